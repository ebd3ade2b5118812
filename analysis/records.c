/* records.c -- the words and the CSV / JSON records fasim writes (fa_records.h): one home for
 * the columns of every kind of result, so that io, sweep, report, check and compare agree. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_records.h"

/* ---------------------------------------------------------------- words and units */

/* v with the fewest digits (6 at least, as %g) that read back as v */
static const char *num_exact(double v, char *buf, size_t n)
{
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

const char *fa_mask_text(const fa_shape *s, int exact, char *buf, size_t n)
{
    char num[40];
    buf[0] = '\0';
    size_t l = 0;
#define ADD(...) (l += (size_t)snprintf(buf + l, l < n ? n - l : 0, __VA_ARGS__))
#define NUM(v) (exact ? num_exact(v, num, sizeof num) : (snprintf(num, sizeof num, "%g", v), num))
    if (s->causal == FA_CAUSAL_BOTTOM_RIGHT) ADD("%scausal (bottom-right)", l ? ", " : "");
    if (s->causal == FA_CAUSAL_TOP_LEFT) ADD("%scausal (top-left)", l ? ", " : "");
    if (s->window) ADD("%swindow (%" PRId64 ", %" PRId64 ")", l ? ", " : "", s->window_left, s->window_right);
    if (s->block_mask) ADD("%sblock-sparse %" PRId64 "x%" PRId64, l ? ", " : "", s->block_mask->block_r, s->block_mask->block_c);
    if (s->col_mask) ADD("%scolumn mask", l ? ", " : "");
    if (s->dense_mask) ADD("%sdense mask", l ? ", " : "");
    if (s->softcap > 0) ADD("%ssoftcap %s", l ? ", " : "", NUM(s->softcap));
    if (s->alibi) ADD("%sALiBi", l ? ", " : "");
    if (s->dropout_p > 0) ADD("%sdropout %s", l ? ", " : "", NUM(s->dropout_p));
    if (!l) ADD("no mask");
#undef NUM
#undef ADD
    return buf;
}

const char *fa_mask_name(const fa_shape *s, char *buf, size_t n)
{
    if (!fa_has_mask(s) && !s->alibi && !(s->softcap > 0) && !(s->dropout_p > 0)) {
        snprintf(buf, n, "none");
        return buf;
    }
    return fa_mask_text(s, 1, buf, n);
}

const char *fa_fmt_bytes(double b, char *buf, size_t n)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (b >= 1024 && k < 6) {
        b /= 1024;
        k++;
    }
    if (k > 0 && k < 6 && b >= 1023.95) { /* "%.4g" would print 1024 of this unit */
        b /= 1024;
        k++;
    }
    if (k == 0) snprintf(buf, n, b < 1 && b > 0 ? "%.3g B" : "%.0f B", b);
    else snprintf(buf, n, "%.4g %s", b, u[k]);
    return buf;
}

const char *fa_fmt_si(double x, char *buf, size_t n)
{
    static const char *const u[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
    int k = 0;
    while (fabs(x) >= 1000 && k < 7) {
        x /= 1000;
        k++;
    }
    snprintf(buf, n, "%.4g%s%s", x, k ? " " : "", u[k]);
    return buf;
}

const char *fa_fmt_time(double t, char *buf, size_t n)
{
    if (t >= 1) snprintf(buf, n, "%.4g s", t);
    else if (t >= 1e-3) snprintf(buf, n, "%.4g ms", t * 1e3);
    else if (t >= 1e-6) snprintf(buf, n, "%.4g us", t * 1e6);
    else snprintf(buf, n, "%.4g ns", t * 1e9);
    return buf;
}

/* ---------------------------------------------------------------- CSV and JSON pieces */

void fa_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int fa_csv_has_col(const char *cols, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = cols; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

void fa_json_shape(json_t *j, const fa_shape *s, int64_t batch)
{
    json_object_set_new(j, "batch", json_integer(batch));
    json_object_set_new(j, "heads", json_integer(s->heads));
    json_object_set_new(j, "kv_heads", json_integer(s->kv_heads));
    json_object_set_new(j, "seqlen_q", json_integer(s->seqlen_q));
    json_object_set_new(j, "seqlen_k", json_integer(s->seqlen_k));
    json_object_set_new(j, "d", json_integer(s->d));
    json_object_set_new(j, "d_v", json_integer(s->d_v));
}

/* The score modifiers a run used: "scale", the softmax scale (--scale, a model config's, e.g.
 * Gemma-2's 1/sqrt(query_pre_attn_scalar), else 1/sqrt(d)), and "softcap", C (null: none). */
static void set_scores(json_t *j, const fa_shape *s)
{
    json_object_set_new(j, "scale", json_real(fa_shape_scale(s)));
    json_object_set_new(j, "softcap", s->softcap > 0 ? json_real(s->softcap) : json_null());
}

/* byte counts can exceed 2^63: JSON integers in jansson are signed 64-bit */
static void set_u64(json_t *j, const char *key, uint64_t v)
{
    json_object_set_new(j, key, v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v));
}

/* The leading columns on j: a value that reads as a number is a number (whole: an integer when
 * ints, else always a real), anything else a string. */
static void set_cols(json_t *j, const fa_col *c, int n, int ints)
{
    for (int k = 0; k < n; k++) {
        char *end;
        double v = strtod(c[k].value, &end);
        const int num = *end == '\0' && end != c[k].value;
        json_object_set_new(j, c[k].name, !num ? json_string(c[k].value)
                                          : ints && v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v)
                                                                                  : json_real(v));
    }
}

/* The leading columns' names (values: 1) that cols has not, each followed by a comma. */
static void csv_cols(FILE *f, const char *cols, const fa_col *c, int n, int values)
{
    for (int k = 0; k < n; k++)
        if (!fa_csv_has_col(cols, c[k].name)) fprintf(f, "%s,", values ? c[k].value : c[k].name);
}

/* Per tensor: read_bytes, write_bytes, loads and stores. */
static void set_tensors(json_t *j, const fa_counts *c)
{
    json_t *tens = json_object();
    for (int t = 0; t < c->n_tensors; t++) {
        const fa_tensor_count *x = &c->tensor[t];
        json_t *tj = json_object();
        json_object_set_new(tj, "read_bytes", json_integer((json_int_t)x->read_bytes));
        json_object_set_new(tj, "write_bytes", json_integer((json_int_t)x->write_bytes));
        json_object_set_new(tj, "loads", json_integer((json_int_t)x->loads));
        json_object_set_new(tj, "stores", json_integer((json_int_t)x->stores));
        json_object_set_new(tens, x->name, tj);
    }
    json_object_set_new(j, "tensors", tens);
}

static const char *causal_name(fa_causal c)
{
    return c == FA_CAUSAL_NONE ? "none" : c == FA_CAUSAL_BOTTOM_RIGHT ? "bottom-right" : "top-left";
}

/* ---------------------------------------------------------------- a pass of an algorithm */

static int formula_match(const fa_io_result *r)
{
    return r->formula.read_bytes == r->counts.hbm_read_bytes && r->formula.write_bytes == r->counts.hbm_write_bytes;
}

/* The time model's busiest pipe (the largest busy time); what sets the time -- the tables'
 * bound, the launches or the grid among them -- is fa_report_bound. */
static const char *perf_bound(const fa_io_result *x)
{
    return fa_pipe_name((fa_pipe)x->perf_bound);
}

/* time_s and bound are the table's time and bound columns (fa_report_time, fa_report_bound: the
 * time model's where it ran, else the roofline's); roofline_* the paper's roofline beside them
 * (issue 18: time_s was the roofline while the table showed the time model) */
static const char *const io_cols =
    "algo,pass,batch,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,dtype,causal,hw,sram_bytes,block_r,block_c,"
    "hbm_read_bytes,hbm_write_bytes,hbm_bytes,formula_bytes,formula_match,bound_bytes,flops,"
    "flops_matmul,flops_other,nominal_flops,sram_peak_bytes,sram_overflow_bytes,intensity,"
    "time_s,bound,roofline_s,roofline_compute_s,roofline_memory_s,dram_read_bytes,dram_write_bytes,hbm_saved_bytes,"
    "hbm_peak_bytes,mask,profile,busiest_pipe,model_tflops,dram_est_bytes,block_r_bwd,block_c_bwd,"
    "blocks_per_sm,blocks_per_sm_bwd,regs_per_thread,smem_per_block,busy_tensor_s,busy_smem_s,busy_exp_s,"
    "busy_fp32_s,busy_l2_s,busy_dram_s,occupancy,occupancy_bwd";

void fa_io_csv(FILE *f, const fa_shape *s, const char *hw_key, int breakdown, const fa_io_result *r, int n,
               const fa_col *extra, int n_extra, int header)
{
    if (header) {
        csv_cols(f, io_cols, extra, n_extra, 0); /* a varied column the table has already is not repeated */
        fprintf(f, "%s", io_cols);
        if (breakdown)
            for (int t = 0; t < FA_PASS_TENSORS; t++)
                fprintf(f, ",%s_read_bytes,%s_write_bytes", fa_pass_tensor_names[t], fa_pass_tensor_names[t]);
        fprintf(f, "\n");
    }
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        csv_cols(f, io_cols, extra, n_extra, 1);
        fprintf(f,
                "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                ",%s,%s,%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%d,%.6e,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6e,%zu,%" PRIu64
                ",%.6g,%.6e,%s,%.6e,%.6e,%.6e",
                fa_algo_name(x->algo), fa_pass_name(x->pass), s->batch, s->heads, s->kv_heads, s->seqlen_q,
                s->seqlen_k, s->d, s->d_v, fa_dtype_name(s->dtype), causal_name(s->causal), hw_key, x->sram_bytes,
                x->blocks.block_r, x->blocks.block_c, x->counts.hbm_read_bytes, x->counts.hbm_write_bytes,
                fa_counts_hbm_bytes(&x->counts), x->formula.read_bytes + x->formula.write_bytes, formula_match(x),
                x->bound_bytes, x->counts.flops_matmul + x->counts.flops_other, x->counts.flops_matmul,
                x->counts.flops_other, x->nominal_flops, x->counts.sram_peak_bytes, x->sram_overflow, x->intensity,
                fa_report_time(x), fa_report_bound(x), x->time_s, x->time_compute_s, x->time_memory_s);
        if (x->has_l2) fprintf(f, ",%" PRIu64 ",%" PRIu64, x->dram_read_bytes, x->dram_write_bytes);
        else fprintf(f, ",,");
        fprintf(f, ",%" PRIu64 ",%" PRIu64, x->footprint.saved, fa_footprint_peak(&x->footprint, x->pass));
        char mt[256]; /* commas inside the text become semicolons, so the CSV stays CSV */
        fa_mask_text(s, 0, mt, sizeof mt);
        for (char *c = mt; *c; c++)
            if (*c == ',') *c = ';';
        fprintf(f, ",%s", mt);
        fprintf(f, ",%s", x->profile[0] ? x->profile : "paper");
        if (x->has_perf) {
            fprintf(f, ",%s,%.4g,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%.0f,%.0f,%d,%" PRIu64,
                    perf_bound(x), x->perf_tflops, x->dram_est_bytes, x->blocks_bwd.block_r, x->blocks_bwd.block_c,
                    x->blocks_run[0], x->blocks_run[1], x->regs_per_thread[x->pass == FA_PASS_BWD],
                    x->smem_per_block[x->pass == FA_PASS_BWD]);
            for (int q = 0; q < 6; q++) fprintf(f, ",%.6e", x->perf_busy[q]);
            fprintf(f, ",%d,%d", x->occupancy[0], x->occupancy[1]);
        } else {
            fprintf(f, ",,,,,,,,,,,,,,,,,"); /* busiest_pipe .. occupancy_bwd: no time model */
        }
        if (breakdown)
            for (int t = 0; t < FA_PASS_TENSORS; t++) {
                int id = fa_counts_find(&x->counts, fa_pass_tensor_names[t]);
                fprintf(f, ",%" PRIu64 ",%" PRIu64, id < 0 ? 0 : x->counts.tensor[id].read_bytes,
                        id < 0 ? 0 : x->counts.tensor[id].write_bytes);
            }
        fprintf(f, "\n");
    }
}

/* The time model's object: time, bound, TFLOP/s, pipe busy times and each kernel's launch. */
static json_t *time_model_json(json_t *j, const fa_io_result *x)
{
    json_t *tm = json_object();
    json_object_set_new(tm, "time_s", json_real(x->perf_time_s));
    json_object_set_new(tm, "busiest_pipe", json_string(perf_bound(x))); /* the record's "bound" says what sets the time */
    json_object_set_new(tm, "waves_add_over_10pct", json_boolean(x->perf_tail));
    json_object_set_new(tm, "tflops", json_real(x->perf_tflops));
    set_u64(j, "dram_est_bytes", x->dram_est_bytes);
    json_t *busy = json_object();
    for (int q = 0; q < 6; q++) json_object_set_new(busy, fa_pipe_name((fa_pipe)q), json_real(x->perf_busy[q]));
    json_object_set_new(tm, "busy_s", busy);
    json_t *ks = json_array();
    for (int k = 0; k < 2; k++) {
        if ((x->pass == FA_PASS_FWD && k == 1) || (x->pass == FA_PASS_BWD && k == 0)) continue;
        json_t *kj = json_object();
        fa_blocks bk = k ? x->blocks_bwd : x->blocks;
        json_object_set_new(kj, "pass", json_string(k ? "bwd" : "fwd"));
        json_object_set_new(kj, "block_r", json_integer(bk.block_r));
        json_object_set_new(kj, "block_c", json_integer(bk.block_c));
        /* FlashAttention-2's split-KV forward: S chunks of the keys and a combine (1: none) */
        json_object_set_new(kj, "splits", json_integer(!k && x->splits > 1 ? x->splits : 1));
        json_object_set_new(kj, "warps", json_integer(x->occupancy[k] ? x->warps[k] : 0)); /* 0: library kernels (as kernels.csv) */
        json_object_set_new(kj, "blocks_per_sm", json_integer((json_int_t)x->blocks_run[k])); /* what runs */
        json_object_set_new(kj, "occupancy", json_integer(x->occupancy[k]));                /* the limit */
        json_object_set_new(kj, "occupancy_limit", json_string(x->occ_limit[k] ? x->occ_limit[k] : ""));
        json_object_set_new(kj, "regs_per_thread", json_integer(x->regs_per_thread[k]));
        json_object_set_new(kj, "smem_per_block", json_integer((json_int_t)x->smem_per_block[k]));
        json_array_append_new(ks, kj);
    }
    json_object_set_new(tm, "kernels", ks);
    return tm;
}

void fa_io_json(json_t *arr, const fa_shape *s, const char *hw_key, const fa_io_result *r, int n,
                const fa_col *extra, int n_extra)
{
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        json_t *j = json_object();
        char mt[256];
        set_cols(j, extra, n_extra, 1); /* a whole number stays an integer ("seqlen": 256, not 256.0) */
        json_object_set_new(j, "algo", json_string(fa_algo_name(x->algo)));
        json_object_set_new(j, "pass", json_string(fa_pass_name(x->pass)));
        fa_json_shape(j, s, s->batch);
        json_object_set_new(j, "dtype", json_string(fa_dtype_name(s->dtype)));
        json_object_set_new(j, "causal", json_string(causal_name(s->causal)));
        json_object_set_new(j, "mask", json_string(fa_mask_text(s, 0, mt, sizeof mt)));
        set_scores(j, s);
        json_object_set_new(j, "hw", json_string(hw_key));
        json_object_set_new(j, "sram_bytes", json_integer((json_int_t)x->sram_bytes));
        json_object_set_new(j, "block_r", json_integer(x->blocks.block_r));
        json_object_set_new(j, "block_c", json_integer(x->blocks.block_c));
        json_object_set_new(j, "T_r", json_integer(fa_cdiv(s->seqlen_q, x->blocks.block_r)));
        json_object_set_new(j, "T_c", json_integer(fa_cdiv(s->seqlen_k, x->blocks.block_c)));
        set_u64(j, "hbm_read_bytes", x->counts.hbm_read_bytes);
        set_u64(j, "hbm_write_bytes", x->counts.hbm_write_bytes);
        set_u64(j, "hbm_bytes", fa_counts_hbm_bytes(&x->counts));
        set_u64(j, "formula_bytes", x->formula.read_bytes + x->formula.write_bytes);
        json_object_set_new(j, "formula_match", json_boolean(formula_match(x)));
        json_object_set_new(j, "bound_bytes", json_real(x->bound_bytes));
        set_u64(j, "flops", x->counts.flops_matmul + x->counts.flops_other);
        set_u64(j, "flops_matmul", x->counts.flops_matmul);
        set_u64(j, "flops_other", x->counts.flops_other);
        json_object_set_new(j, "nominal_flops", json_real(x->nominal_flops));
        set_u64(j, "sram_peak_bytes", (uint64_t)x->counts.sram_peak_bytes);
        set_u64(j, "sram_overflow_bytes", x->sram_overflow);
        json_object_set_new(j, "intensity", json_real(x->intensity));
        json_object_set_new(j, "time_s", json_real(fa_report_time(x))); /* the table's time and bound */
        json_object_set_new(j, "bound", json_string(fa_report_bound(x)));
        json_object_set_new(j, "roofline_s", json_real(x->time_s));
        json_object_set_new(j, "roofline_compute_s", json_real(x->time_compute_s));
        json_object_set_new(j, "roofline_memory_s", json_real(x->time_memory_s));
        if (x->has_l2) {
            set_u64(j, "dram_read_bytes", x->dram_read_bytes);
            set_u64(j, "dram_write_bytes", x->dram_write_bytes);
            json_object_set_new(j, "l2_slots", json_integer(x->l2_slots));
            json_object_set_new(j, "l2_partitions", json_integer(x->l2_partitions));
        }
        json_object_set_new(j, "profile", json_string(x->profile[0] ? x->profile : "paper"));
        if (x->perf_note[0]) json_object_set_new(j, "time_model_note", json_string(x->perf_note));
        if (x->has_perf) json_object_set_new(j, "time_model", time_model_json(j, x));
        if (x->prepass_read_bytes) { /* the kernel's V -> V^T pre-pass: a kernel of its own */
            json_t *pp = json_object();
            char k[40];
            snprintf(k, sizeof k, "%s_prepass", x->profile);
            json_object_set_new(pp, "kernel", json_string(k));
            set_u64(pp, "read_bytes", x->prepass_read_bytes);
            set_u64(pp, "write_bytes", x->prepass_write_bytes);
            if (x->has_perf) json_object_set_new(pp, "time_s", json_real(x->prepass_time_s));
            json_object_set_new(j, "prepass", pp);
        }
        set_u64(j, "hbm_saved_bytes", x->footprint.saved);
        set_u64(j, "hbm_peak_bytes", fa_footprint_peak(&x->footprint, x->pass));
        set_tensors(j, &x->counts);
        json_array_append_new(arr, j);
    }
}

/* ---------------------------------------------------------------- inference kernels */

static const char *const infer_cols =
    "kernel,batch,nseq,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,dtype,causal,hw,sram_bytes,splits,"
    "pack_gqa,page_size,block_r,block_c,hbm_read_bytes,hbm_write_bytes,hbm_bytes,formula_bytes,"
    "formula_match,partial_bytes,block_table_bytes,flops,flops_matmul,flops_other,intensity,"
    "sram_peak_bytes,programs,programs_combine,time_s,time_main_s,time_combine_s,time_roofline_s";

void fa_infer_csv_header(FILE *f, const fa_col *cols, int n)
{
    csv_cols(f, infer_cols, cols, n, 0);
    fprintf(f, "%s\n", infer_cols);
}

void fa_infer_csv_row(FILE *f, const fa_shape *s, const fa_varlen *vl, const char *hw_key, const fa_infer_variant *x,
                      const fa_col *cols, int n)
{
    const fa_infer_result *r = &x->r;
    csv_cols(f, infer_cols, cols, n, 1);
    fprintf(f,
            "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
            ",%s,%s,%s,%" PRIu64 ",%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%.6g,%zu,%" PRIu64 ",%" PRIu64 ",%.6e,%.6e,%.6e,%.6e\n",
            x->name, vl ? (int64_t)1 : s->batch, vl ? vl->nseq : s->batch, s->heads, s->kv_heads, s->seqlen_q,
            s->seqlen_k, s->d, s->d_v, fa_dtype_name(s->dtype), causal_name(s->causal), hw_key, r->sram_bytes,
            r->opt.splits, r->opt.pack_gqa, r->opt.page_size, r->blocks.block_r, r->blocks.block_c,
            r->counts.hbm_read_bytes, r->counts.hbm_write_bytes, fa_counts_hbm_bytes(&r->counts),
            r->formula.read_bytes + r->formula.write_bytes, fa_infer_formula_match(r), r->formula.partial_bytes,
            fa_counts_read_of(&r->counts, "block_table"), r->counts.flops_matmul + r->counts.flops_other,
            r->counts.flops_matmul, r->counts.flops_other, r->intensity, r->counts.sram_peak_bytes,
            r->formula.programs_main, r->formula.programs_combine, r->time_s, r->time_main_s, r->time_combine_s,
            r->time_roofline_s);
}

json_t *fa_infer_json(const fa_shape *s, const fa_varlen *vl, const char *hw_key, const fa_infer_variant *x,
                      const fa_col *cols, int n)
{
    const fa_infer_result *r = &x->r;
    json_t *j = json_object();
    set_cols(j, cols, n, 0);
    json_object_set_new(j, "kernel", json_string(x->name));
    json_object_set_new(j, "nseq", json_integer(vl ? vl->nseq : s->batch));
    fa_json_shape(j, s, vl ? 1 : s->batch);
    json_object_set_new(j, "dtype", json_string(fa_dtype_name(s->dtype)));
    set_scores(j, s);
    json_object_set_new(j, "hw", json_string(hw_key));
    json_object_set_new(j, "splits", json_integer(r->opt.splits));
    json_object_set_new(j, "splits_auto", json_boolean(x->auto_split));
    json_object_set_new(j, "pack_gqa", json_boolean(r->opt.pack_gqa));
    json_object_set_new(j, "page_size", json_integer(r->opt.page_size));
    json_object_set_new(j, "block_r", json_integer(r->blocks.block_r));
    json_object_set_new(j, "block_c", json_integer(r->blocks.block_c));
    set_u64(j, "hbm_read_bytes", r->counts.hbm_read_bytes);
    set_u64(j, "hbm_write_bytes", r->counts.hbm_write_bytes);
    set_u64(j, "hbm_bytes", fa_counts_hbm_bytes(&r->counts));
    set_u64(j, "formula_bytes", r->formula.read_bytes + r->formula.write_bytes);
    json_object_set_new(j, "formula_match", json_boolean(fa_infer_formula_match(r)));
    set_u64(j, "partial_bytes", r->formula.partial_bytes);
    set_u64(j, "block_table_bytes", fa_counts_read_of(&r->counts, "block_table"));
    set_u64(j, "flops", r->counts.flops_matmul + r->counts.flops_other);
    set_u64(j, "flops_matmul", r->counts.flops_matmul);
    set_u64(j, "flops_other", r->counts.flops_other);
    json_object_set_new(j, "intensity", json_real(r->intensity));
    set_u64(j, "sram_peak_bytes", (uint64_t)r->counts.sram_peak_bytes);
    set_u64(j, "programs", r->formula.programs_main);
    set_u64(j, "programs_combine", r->formula.programs_combine);
    json_object_set_new(j, "time_s", json_real(r->time_s));
    json_object_set_new(j, "time_main_s", json_real(r->time_main_s));
    json_object_set_new(j, "time_combine_s", json_real(r->time_combine_s));
    json_object_set_new(j, "time_roofline_s", json_real(r->time_roofline_s));
    set_tensors(j, &r->counts);
    return j;
}

/* ---------------------------------------------------------------- the varlen backward */

const char fa_varlen_bwd_csv_header[] =
    "algo,pass,nseq,block_r,block_c,hbm_read_bytes,hbm_write_bytes,hbm_bytes,bwd_formula_bytes,bwd_formula_match\n";

void fa_varlen_bwd_csv_row(FILE *f, fa_pass p, int64_t nseq, const fa_varlen_bwd_io_result *r)
{
    const uint64_t fb = r->formula.read_bytes + r->formula.write_bytes;
    fprintf(f, "varlen_flash2,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
            fa_pass_name(p), nseq, r->blocks.block_r, r->blocks.block_c, r->read_bytes, r->write_bytes,
            r->read_bytes + r->write_bytes, fb, r->formula_match);
}

json_t *fa_varlen_bwd_json(fa_pass p, int64_t nseq, const fa_varlen_bwd_io_result *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "algo", json_string("varlen_flash2"));
    json_object_set_new(j, "pass", json_string(fa_pass_name(p)));
    json_object_set_new(j, "nseq", json_integer(nseq));
    json_object_set_new(j, "block_r", json_integer(r->blocks.block_r));
    json_object_set_new(j, "block_c", json_integer(r->blocks.block_c));
    set_u64(j, "hbm_read_bytes", r->read_bytes);
    set_u64(j, "hbm_write_bytes", r->write_bytes);
    set_u64(j, "hbm_bytes", r->read_bytes + r->write_bytes);
    set_u64(j, "bwd_formula_bytes", r->formula.read_bytes + r->formula.write_bytes);
    json_object_set_new(j, "formula_match", json_boolean(r->formula_match)); /* the backward's counts */
    set_u64(j, "sram_peak_bytes", r->bwd.sram_peak_bytes);
    return j;
}

/* ---------------------------------------------------------------- checks */

/* an error as JSON: null when NaN or infinite (JSON has no NaN) */
static json_t *finite_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

const char fa_check_csv_header[] =
    "algo,batch,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,causal,block_r,block_c,max_abs_err,max_rel_err,lse_abs_err,verdict\n";

void fa_check_csv_row(FILE *f, const fa_shape *s, fa_blocks bk, const fa_check_row *r)
{
    char c[256];
    fprintf(f, "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
            fa_algo_name(r->algo), s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v);
    fa_csv_field(f, fa_mask_name(s, c, sizeof c)); /* "causal (bottom-right), window (3, 0)" holds commas: quoted */
    fprintf(f, ",%" PRId64 ",%" PRId64 ",%.6e,%.6e,%.6e,%s\n", bk.block_r, bk.block_c, r->abs_o, r->rel_o, r->abs_lse,
            r->pass ? "pass" : "fail");
}

json_t *fa_check_json(const fa_shape *s, fa_blocks bk, const fa_check_row *r)
{
    char c[256];
    json_t *j = json_object();
    json_object_set_new(j, "algo", json_string(fa_algo_name(r->algo)));
    fa_json_shape(j, s, s->batch);
    json_object_set_new(j, "causal", json_string(fa_mask_name(s, c, sizeof c)));
    json_object_set_new(j, "block_r", json_integer(bk.block_r));
    json_object_set_new(j, "block_c", json_integer(bk.block_c));
    json_object_set_new(j, "max_abs_err", finite_or_null(r->abs_o));
    json_object_set_new(j, "max_rel_err", finite_or_null(r->rel_o));
    json_object_set_new(j, "lse_abs_err", r->algo != FA_ALGO_STANDARD ? finite_or_null(r->abs_lse) : json_null());
    json_object_set_new(j, "pass", json_boolean(r->pass));
    return j;
}

const char fa_lowprec_csv_header[] = "algo,tensor,dtype,batch,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,causal,exp2,acc,"
                                     "inputs,fp8_quant,hadamard,hadamard_seed,max_abs_err,max_rel_err,rmse,naive_abs_err,"
                                     "ratio,atol,e2e_max_abs_err,e2e_rmse,verdict\n";

void fa_lowprec_csv_row(FILE *f, const fa_shape *s, const fa_lowprec_opts *lo, const fa_lowprec_row *r)
{
    char c[256];
    fprintf(f, "%s,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
            fa_algo_name(r->algo), r->tensor, fa_dtype_name(s->dtype), s->batch, s->heads, s->kv_heads, s->seqlen_q,
            s->seqlen_k, s->d, s->d_v);
    fa_csv_field(f, fa_mask_name(s, c, sizeof c)); /* "window (3, 0)" holds a comma: quoted */
    fprintf(f, ",%d,%s,%s,%s,%d,%" PRIu64 ",%.6e,%.6e,%.6e,%.6e,%.4f,%.6e,%.6e,%.6e,%s\n", lo->exp2, lo->acc64 ? "fp64" : "fp32",
            lo->outliers ? "outliers" : "normal", lo->fp8_prep && lo->fp8_block ? "block" : "tensor", lo->hadamard,
            lo->hadamard ? lo->hadamard_seed : 0, r->err.abs, fa_err_rel(r->err), r->err.rmse, r->naive.abs, r->ratio, r->atol,
            r->e2e.abs, r->e2e.rmse, r->pass ? "pass" : "fail");
}

json_t *fa_lowprec_json(const fa_shape *s, const fa_lowprec_opts *lo, const fa_lowprec_row *r)
{
    char c[256];
    json_t *j = json_object();
    json_object_set_new(j, "algo", json_string(fa_algo_name(r->algo)));
    json_object_set_new(j, "tensor", json_string(r->tensor));
    json_object_set_new(j, "dtype", json_string(fa_dtype_name(s->dtype)));
    json_object_set_new(j, "seqlen_q", json_integer(s->seqlen_q));
    json_object_set_new(j, "seqlen_k", json_integer(s->seqlen_k));
    json_object_set_new(j, "d", json_integer(s->d));
    json_object_set_new(j, "causal", json_string(fa_mask_name(s, c, sizeof c)));
    json_object_set_new(j, "inputs", json_string(lo->outliers ? "outliers" : "normal"));
    json_object_set_new(j, "fp8_quant", json_string(lo->fp8_prep && lo->fp8_block ? "block" : "tensor"));
    json_object_set_new(j, "hadamard", json_boolean(lo->hadamard));
    json_object_set_new(j, "hadamard_seed", json_integer(lo->hadamard ? (json_int_t)lo->hadamard_seed : 0));
    json_object_set_new(j, "max_abs_err", json_real(r->err.abs));
    json_object_set_new(j, "max_rel_err", json_real(fa_err_rel(r->err)));
    json_object_set_new(j, "rmse", finite_or_null(r->err.rmse));
    json_object_set_new(j, "naive_abs_err", json_real(r->naive.abs));
    json_object_set_new(j, "factor", json_real(r->factor));
    json_object_set_new(j, "atol", json_real(r->atol));
    json_object_set_new(j, "e2e_max_abs_err", finite_or_null(r->e2e.abs));
    json_object_set_new(j, "e2e_rmse", finite_or_null(r->e2e.rmse));
    json_object_set_new(j, "by_floor", json_boolean(r->by_floor));
    json_object_set_new(j, "pass", json_boolean(r->pass));
    return j;
}

const char fa_ext_csv_header[] = "tensor,file,max_abs_err,max_rel_err,worst_index,out,ref,naive_abs_err,bound,verdict\n";

void fa_ext_csv_row(FILE *f, const fa_ext_row *r)
{
    fprintf(f, "%s,", r->name);
    fa_csv_field(f, r->path); /* a path may hold a comma or a quote */
    fprintf(f, ",%.6e,%.6e,\"%s\",%.9g,%.9g,%.6e,%.6e,%s\n", r->err.abs, fa_err_rel(r->err), r->index, r->out, r->ref,
            r->naive.abs, r->bound, r->pass ? "pass" : "fail");
}

json_t *fa_ext_json(const fa_ext_row *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "tensor", json_string(r->name));
    json_object_set_new(j, "file", json_string(r->path));
    json_object_set_new(j, "max_abs_err", json_real(r->err.abs));
    json_object_set_new(j, "max_rel_err", json_real(fa_err_rel(r->err)));
    json_object_set_new(j, "worst_index", json_string(r->index));
    json_object_set_new(j, "naive_abs_err", json_real(r->naive.abs));
    json_object_set_new(j, "bound", json_real(r->bound));
    json_object_set_new(j, "capped", json_boolean(r->capped));
    if (r->why) json_object_set_new(j, "why", json_string(r->why));
    json_object_set_new(j, "pass", json_boolean(r->pass));
    return j;
}

const char fa_infer_check_csv_header[] =
    "kernel,splits,pack_gqa,page_size,block_r,block_c,max_abs_err,max_rel_err,lse_abs_err,verdict\n";

void fa_infer_check_csv_row(FILE *f, const fa_infer_variant *v, const fa_infer_check_row *r)
{
    const fa_infer_opts *op = &v->opt;
    const fa_blocks b = v->r.blocks;
    fprintf(f, "%s,%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6e,%.6e,%.6e,%s\n", v->name, op->splits,
            op->pack_gqa, op->page_size, b.block_r, b.block_c, r->abs_o, r->rel_o, r->abs_lse, r->pass ? "pass" : "fail");
}

json_t *fa_infer_check_json(const fa_infer_variant *v, const fa_infer_check_row *r)
{
    const fa_infer_opts *op = &v->opt;
    json_t *j = json_object();
    json_object_set_new(j, "kernel", json_string(v->name));
    json_object_set_new(j, "splits", json_integer(op->splits));
    json_object_set_new(j, "pack_gqa", json_boolean(op->pack_gqa));
    json_object_set_new(j, "page_size", json_integer(op->page_size));
    json_object_set_new(j, "block_r", json_integer(v->r.blocks.block_r));
    json_object_set_new(j, "block_c", json_integer(v->r.blocks.block_c));
    json_object_set_new(j, "max_abs_err", json_real(r->abs_o));
    json_object_set_new(j, "max_rel_err", json_real(r->rel_o));
    json_object_set_new(j, "lse_abs_err", json_real(r->abs_lse));
    json_object_set_new(j, "pass", json_boolean(r->pass));
    return j;
}

/* ---------------------------------------------------------------- comparison with measurements */

const char fa_cmp_csv_header[] = "kernel,B,H,H_kv,N_q,N_k,d,d_v,causal,dtype,algo,block_r,block_c,pred_l2_bytes,"
                                 "meas_l2_bytes,pred_dram_bytes,meas_dram_bytes,pred_ms,meas_ms,blocks_per_sm,profile,"
                                 "pass,bound,model_blocks_per_sm,busiest_pipe\n";

void fa_cmp_csv_row(FILE *f, const fa_cmp_row *w, const fa_cmp_pred *p)
{
    const fa_shape *s = &w->shape;
    char bps[16] = "";
    if (p->l2) snprintf(bps, sizeof bps, "%d", p->blocks_per_sm);
    fa_csv_field(f, w->kernel); /* quoted when it holds a comma or a quote */
    fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
               ",%d,%s,%s,%" PRId64 ",%" PRId64 ",%.0f,%.0f,%.0f,%.0f,%.6g,%.6g,%s,%s,%s,%s,%d,%s\n",
            s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v, s->causal != FA_CAUSAL_NONE,
            fa_dtype_name(s->dtype), fa_algo_name(w->algo), p->blocks.block_r, p->blocks.block_c, p->pred_l2_bytes,
            p->meas_l2_bytes, p->pred_dram_bytes, p->meas_dram_bytes, p->pred_ms, p->meas_ms, bps, w->profile->key,
            w->prepass ? "pre" : w->pass == FA_PASS_BWD ? "bwd" : "fwd", p->bound, p->model_blocks_per_sm,
            p->busiest ? p->busiest : "-");
}

/* a measured (or L2-predicted) number: null when unknown */
static json_t *known_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

json_t *fa_cmp_json(const fa_cmp_row *w, const fa_cmp_pred *p)
{
    const fa_shape *s = &w->shape;
    json_t *j = json_object();
    json_object_set_new(j, "kernel", json_string(w->kernel));
    json_object_set_new(j, "algo", json_string(fa_algo_name(w->algo)));
    json_object_set_new(j, "batch", json_integer(s->batch));
    json_object_set_new(j, "heads", json_integer(s->heads));
    json_object_set_new(j, "seqlen_q", json_integer(s->seqlen_q));
    json_object_set_new(j, "seqlen_k", json_integer(s->seqlen_k));
    json_object_set_new(j, "d", json_integer(s->d));
    json_object_set_new(j, "causal", json_boolean(s->causal != FA_CAUSAL_NONE));
    json_object_set_new(j, "block_r", json_integer(p->blocks.block_r));
    json_object_set_new(j, "block_c", json_integer(p->blocks.block_c));
    json_object_set_new(j, "pred_l2_bytes", json_real(p->pred_l2_bytes));
    json_object_set_new(j, "meas_l2_bytes", known_or_null(p->meas_l2_bytes));
    json_object_set_new(j, "pred_dram_bytes", known_or_null(p->pred_dram_bytes));
    json_object_set_new(j, "meas_dram_bytes", known_or_null(p->meas_dram_bytes));
    json_object_set_new(j, "pred_ms", json_real(p->pred_ms));
    json_object_set_new(j, "meas_ms", known_or_null(p->meas_ms));
    json_object_set_new(j, "blocks_per_sm", p->l2 ? json_integer(p->blocks_per_sm) : json_null());
    json_object_set_new(j, "profile", json_string(w->profile->key));
    json_object_set_new(j, "pass", json_string(w->prepass ? "pre" : w->pass == FA_PASS_BWD ? "bwd" : "fwd"));
    json_object_set_new(j, "bound", json_string(p->bound));
    json_object_set_new(j, "model_blocks_per_sm", p->timed ? json_integer(p->model_blocks_per_sm) : json_null());
    json_object_set_new(j, "busiest_pipe", p->timed && p->busiest ? json_string(p->busiest) : json_null());
    return j;
}

/* ---------------------------------------------------------------- the files of fasim report */

void fa_report_csv(FILE *f, const fa_report_model *models, const fa_report_rows *rows, int nm, const fa_hw *hw, int nh)
{
    int first = 1;
    for (int k = 0; k < nm; k++)
        for (int t = 0; t < rows[k].nkind; t++)
            for (int h = 0; h < nh; h++) {
                fa_col col[2] = {{.name = "model"}, {.name = "layers"}};
                snprintf(col[0].value, sizeof col[0].value, "%s", models[k].stem);
                snprintf(col[1].value, sizeof col[1].value, "%" PRId64, rows[k].layers[t]);
                fa_io_result ran[FA_NALGO]; /* the kernels that run the layer type's shape */
                int n = 0;
                for (int a = 0; a < FA_NALGO; a++)
                    if (rows[k].ran[t][h][a]) ran[n++] = rows[k].r[t][h][a];
                fa_io_csv(f, &rows[k].s[t], hw[h].key, 0, ran, n, col, 2, first);
                first = 0;
            }
}

void fa_report_n_csv(FILE *f, const fa_report_n_row *rows, int n)
{
    fprintf(f, "N,standard,flash1,flash2,theta_standard,theta_flash,theta_window\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6e,%.6e,%.6e\n", rows[i].N, rows[i].bytes[0],
                rows[i].bytes[1], rows[i].bytes[2], rows[i].theta_standard, rows[i].theta_flash, rows[i].theta_window);
}

void fa_report_sram_csv(FILE *f, const fa_report_sram_row *rows, int n)
{
    fprintf(f, "M,block,standard,flash1,flash2,theta_flash\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%" PRIu64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6e\n", rows[i].M, rows[i].block,
                rows[i].bytes[0], rows[i].bytes[1], rows[i].bytes[2], rows[i].theta_flash);
}

void fa_report_block_csv(FILE *f, const fa_report_block_row *rows, int n)
{
    fprintf(f, "block,flash1_bytes,flash2_bytes,standard_bytes,flash1_time_s,flash2_time_s,standard_time_s\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6e,%.6e,%.6e\n", rows[i].block, rows[i].bytes[1],
                rows[i].bytes[2], rows[i].bytes[0], rows[i].time_s[1], rows[i].time_s[2], rows[i].time_s[0]);
}

void fa_report_mem_csv(FILE *f, const fa_report_mem_row *rows, int n, const fa_hw *hw, int nh)
{
    fprintf(f, "N,standard,flash1,flash2");
    for (int h = 0; h < nh; h++) /* a GPU whose memory is unknown (no hbm_capacity_bytes) has no column */
        if (hw[h].hbm_capacity) fprintf(f, ",capacity_%s", hw[h].key);
    fprintf(f, "\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%" PRId64, rows[i].N);
        for (int a = 0; a < FA_NALGO; a++) fprintf(f, ",%" PRIu64, rows[i].peak[a]);
        for (int h = 0; h < nh; h++)
            if (hw[h].hbm_capacity) fprintf(f, ",%" PRIu64, hw[h].hbm_capacity);
        fprintf(f, "\n");
    }
}

void fa_report_long_csv(FILE *f, const fa_report_long_row *rows, int n, int64_t window)
{
    fprintf(f, "N,window,full_bytes,window_bytes,full_flops,window_flops,full_time_s,window_time_s\n");
    for (int i = 0; i < n; i++) {
        const fa_report_long_row *x = &rows[i];
        fprintf(f, "%" PRId64 ",%" PRId64 ",%.0f,%.0f,%.0f,%.0f,%.6e,%.6e\n", x->N, window, (double)x->full_bytes,
                (double)x->window_bytes, (double)x->full_flops, (double)x->window_flops, x->full_time_s, x->window_time_s);
    }
}

const char fa_report_kernels_csv_header[] =
    "model,hw,profile,pass,block_r,block_c,warps,blocks_per_sm,regs_per_thread,smem_per_block,time_s,tflops,bound,"
    "busiest_pipe,busy_tensor_s,busy_smem_s,busy_exp_s,busy_fp32_s,busy_l2_s,busy_dram_s,dram_est_bytes,occupancy,layer_type,mask,"
    "waves\n";

void fa_report_kernel_csv_row(FILE *f, const char *stem, const fa_hw *hw, fa_pass p, const fa_shape *s,
                              const fa_report_kernel *x)
{
    const fa_occupancy *oc = &x->occ;
    /* bound: what the kernels table prints (what sets the time); busiest_pipe: the largest busy time */
    fprintf(f, "%s,%s,%s,%s,%" PRId64 ",%" PRId64 ",%d,%.0f,%d,%" PRIu64 ",%.6e,%.4g,%s,%s", stem, hw->key, x->profile->key,
            fa_pass_name(p), oc->blocks.block_r, oc->blocks.block_c, oc->occupancy ? oc->warps : 0,
            oc->occupancy ? x->blocks_run : 0.0, oc->regs_per_thread, oc->smem_bytes, x->time_s, x->tflops,
            x->sets && !x->latency ? x->sets : fa_bound_name(x->bound, x->latency), fa_pipe_name((fa_pipe)x->bound));
    for (int q = 0; q < FA_NPIPE; q++) fprintf(f, ",%.6e", x->busy[q]);
    char mt[256]; /* commas become semicolons, as in report.csv's mask */
    fa_mask_text(s, 0, mt, sizeof mt);
    for (char *c = mt; *c; c++)
        if (*c == ',') *c = ';';
    fprintf(f, ",%" PRIu64 ",%d,%s,%s,%.4g\n", x->dram_bytes, oc->occupancy, s->window ? "sliding" : "full", mt,
            oc->occupancy ? x->waves : 0.0);
}

void fa_report_papers_csv(FILE *f, const fa_paper_row *rows, int n)
{
    fprintf(f, "source,figure,gpu,kernel,profile,pass,d,causal,N,unit,published,predicted,ratio,time_s,dram_bytes,l2_bytes\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s,%s,%s,%s,%s,%s,%" PRId64 ",%d,%" PRId64 ",%s,%.6g,%.6g,%.4f,%.6e,%.6e,%.6e\n", rows[i].source,
                rows[i].figure, rows[i].hw->key, rows[i].kernel, rows[i].profile->key, fa_pass_name(rows[i].pass),
                rows[i].d, rows[i].causal, rows[i].N, rows[i].unit, rows[i].published, rows[i].predicted, rows[i].ratio,
                rows[i].time_s, rows[i].dram_bytes, rows[i].l2_bytes);
}

void fa_decode_table_csv(FILE *f, const fa_decode_table *t)
{
    static const char *const kn[FA_DECODE_NV] = {"per-head", "packed", "packed-split"};
    fprintf(f, "batch,kv_len,kernel,splits,hbm_bytes,partial_bytes,flops,intensity,programs,time_s,time_roofline_s\n");
    for (int ib = 0; ib < FA_DECODE_NB; ib++)
        for (int ik = 0; ik < FA_DECODE_NKV; ik++)
            for (int k = 0; k < FA_DECODE_NV; k++) {
                const fa_infer_result *r = &t->r[ib][ik][k];
                fprintf(f, "%" PRId64 ",%" PRId64 ",%s,%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6g,%" PRIu64
                           ",%.6e,%.6e\n", t->batch[ib], t->kv_len[ik], kn[k], r->opt.splits, fa_counts_hbm_bytes(&r->counts),
                        r->formula.partial_bytes, r->counts.flops_matmul + r->counts.flops_other, r->intensity,
                        r->formula.programs_main, r->time_s, r->time_roofline_s);
            }
}
