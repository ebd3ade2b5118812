/* output.c -- table, CSV and JSON output of IO results. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "cli.h"

static int formula_match(const fa_io_result *r)
{
    return r->formula.read_bytes == r->counts.hbm_read_bytes &&
           r->formula.write_bytes == r->counts.hbm_write_bytes;
}

static const char *causal_name(fa_causal c)
{
    return c == FA_CAUSAL_NONE ? "none" : c == FA_CAUSAL_BOTTOM_RIGHT ? "bottom-right" : "top-left";
}

void io_write_model(FILE *f, const cli_opts *o, const fa_io_result *r, int n)
{
    char b[8][32];
    int any = 0, paper = 0;
    for (int i = 0; i < n; i++) any |= r[i].has_perf, paper |= !r[i].has_perf;
    if (paper)
        fprintf(f, "model: %s%s; time = roofline max(FLOPs / peaks, HBM bytes / bandwidth)\n",
                any ? "rows without a kernel profile: " : "",
                "the paper's (every on-chip buffer in one SRAM of M, Theorem 2)");
    for (int i = 0; i < n; i++)
        if (r[i].perf_note[0]) fprintf(f, "note: %s: %s\n", fa_algo_name(r[i].algo), r[i].perf_note);
    if (!any) return;
    fprintf(f, "\ntime model (docs/time-model.md): kernel profiles on %s's pipes (%s)%s\n", o->hw.name,
            o->hw.pipes_source[0] ? o->hw.pipes_source : "hardware profile",
            n && r[0].pass == FA_PASS_FWDBWD ? "; pipe times and time: both kernels together" : "");
    fprintf(f, "%-9s %-11s %9s %5s %9s %4s %-16s %9s %9s %9s %9s %9s %9s %10s %10s %8s %s\n", "algo", "profile",
            "tiles", "warps", "smem/blk", "regs", "blocks/SM", "tensor", "smem", "exp", "fp32", "L2", "DRAM",
            "DRAM est", "time", "TFLOP/s", "bound");
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        if (!x->has_perf) continue;
        for (int k = 0; k < 2; k++) {
            if ((x->pass == FA_PASS_FWD && k == 1) || (x->pass == FA_PASS_BWD && k == 0)) continue;
            fa_blocks bk = k ? x->blocks_bwd : x->blocks;
            char tiles[32], occ[40], prof[24];
            snprintf(tiles, sizeof tiles, "%" PRId64 "x%" PRId64, bk.block_r, bk.block_c);
            if (x->occupancy[k]) snprintf(occ, sizeof occ, "%d (%s)", x->occupancy[k], x->occ_limit[k]);
            else snprintf(occ, sizeof occ, "-");
            snprintf(prof, sizeof prof, "%s%s%s", x->profile, x->pass == FA_PASS_FWDBWD || k ? (k ? " bwd" : " fwd") : "",
                     !k && x->splits > 1 ? " split" : "");
            fprintf(f, "%-9s %-11s %9s %5d %9s %4d %-16s", fa_algo_name(x->algo), prof, tiles, x->warps[k],
                    x->occupancy[k] ? cli_bytes((double)x->smem_per_block[k], b[0], sizeof b[0]) : "-",
                    x->regs_per_thread[k], occ);
            int last = x->pass != FA_PASS_FWDBWD || k == 1;
            if (last) {
                for (int q = 0; q < 6; q++) fprintf(f, " %9s", cli_time(x->perf_busy[q], b[q + 1 < 8 ? q + 1 : 7], 32));
                char tb[32];
                fprintf(f, " %10s %10s %8.1f %s%s", cli_bytes((double)x->dram_est_bytes, b[7], sizeof b[7]),
                        cli_time(x->perf_time_s, tb, sizeof tb), x->perf_tflops,
                        x->perf_latency == 1 ? "launch" : x->perf_latency ? "grid" : fa_pipe_name((fa_pipe)x->perf_bound),
                        x->perf_tail && !x->perf_latency ? " + tail" : "");
            }
            fprintf(f, "\n");
        }
        if (x->splits > 1)
            fprintf(f, "          (%s: the forward splits the keys %d ways and combines: FlashAttention-2's split-KV "
                       "rule for a grid that would not fill the GPU)\n", x->profile, x->splits);
    }
}

void io_write_table(FILE *f, const cli_opts *o, const fa_shape *s, const fa_io_result *r, int n)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32];
    static const char *const pass_title[] = {"forward pass", "backward pass (recomputation)",
                                             "forward + backward"};
    fprintf(f, "%s | ", n > 0 ? pass_title[r[0].pass] : "");
    cli_describe(f, o, s);
    fprintf(f, "%-9s %5s %5s %7s %7s %11s %11s %11s %7s %11s %8s %10s %8s %10s %11s %7s\n", "algo",
            "B_r", "B_c", "T_r", "T_c", "HBM read", "HBM write", "HBM total", "=formula",
            "Theta bound", "total/Θ", "FLOPs", "FLOP/B", "SRAM peak", "time", "bound");
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        uint64_t tot = fa_counts_hbm_bytes(&x->counts);
        double flops = (double)x->counts.flops_matmul + (double)x->counts.flops_other;
        char tbuf[32];
        cli_time(x->has_perf ? x->perf_time_s : x->time_s, tbuf, sizeof tbuf);
        fprintf(f, "%-9s %5" PRId64 " %5" PRId64 " %7" PRId64 " %7" PRId64
                   " %11s %11s %11s %7s %11s %8.3g %10s %8.1f %10s %11s %7s\n",
                fa_algo_name(x->algo), x->blocks.block_r, x->blocks.block_c,
                fa_cdiv(s->seqlen_q, x->blocks.block_r), fa_cdiv(s->seqlen_k, x->blocks.block_c),
                cli_bytes((double)x->counts.hbm_read_bytes, b1, sizeof b1),
                cli_bytes((double)x->counts.hbm_write_bytes, b2, sizeof b2),
                cli_bytes((double)tot, b3, sizeof b3), formula_match(x) ? "yes" : "NO",
                cli_bytes(x->bound_bytes, b4, sizeof b4), (double)tot / x->bound_bytes,
                cli_si(flops, b5, sizeof b5), x->intensity,
                cli_bytes((double)x->counts.sram_peak_bytes, b6, sizeof b6), tbuf,
                x->has_perf ? (x->perf_latency == 1 ? "launch" : x->perf_latency ? "grid" : fa_pipe_name((fa_pipe)x->perf_bound))
                : x->time_compute_s > x->time_memory_s ? "compute" : "memory");
        (void)b7;
        if (x->sram_overflow)
            fprintf(f, "  note: --blocks paper (B_r = %" PRId64 ", B_c = %" PRId64 ") needs %" PRIu64
                       " B of SRAM, %" PRIu64 " B (%.1f%%) more than M = %" PRIu64
                       " B; counted with the SRAM enlarged to fit\n",
                    x->blocks.block_r, x->blocks.block_c, x->sram_bytes, x->sram_overflow,
                    100.0 * (double)x->sram_overflow / (double)(x->sram_bytes - x->sram_overflow),
                    x->sram_bytes - x->sram_overflow);
    }
    io_write_model(f, o, r, n);
    if (n > 0 && r[0].pass != FA_PASS_FWD) {
        fprintf(f, "\nHBM footprint (all %" PRId64 " x %" PRId64 " heads): kept between forward and backward / peak of the pass\n",
                s->batch, s->heads);
        for (int i = 0; i < n; i++)
            fprintf(f, "%-9s %11s / %11s   (%s)\n", fa_algo_name(r[i].algo),
                    cli_bytes((double)r[i].footprint.saved, b1, sizeof b1),
                    cli_bytes((double)fa_footprint_peak(&r[i].footprint, r[i].pass), b2, sizeof b2),
                    r[i].algo == FA_ALGO_STANDARD ? "Q, K, V, O and P (N_q x N_k per head)"
                    : r[i].algo == FA_ALGO_FLASH1 ? "Q, K, V, O, l and m" : "Q, K, V, O and LSE");
    }
    for (int i = 0; i < n; i++)
        if (r[i].has_l2) {
            char d1[32], d2[32];
            fprintf(f, "%s%-9s L2 model (%s L2%s, %d thread blocks at a time): DRAM read %s, DRAM write %s "
                       "(SRAM<->L2 traffic is the HBM column above)\n",
                    i == 0 ? "\n" : "", fa_algo_name(r[i].algo), cli_bytes((double)o->hw.l2_bytes, b7, sizeof b7),
                    r[i].l2_partitions > 1 ? " in 2 partitions" : "", r[i].l2_slots, cli_bytes((double)r[i].dram_read_bytes, d1, sizeof d1),
                    cli_bytes((double)r[i].dram_write_bytes, d2, sizeof d2));
        }
    if (o->breakdown) {
        fprintf(f, "\nper tensor (bytes):\n%-9s %-6s %16s %16s %12s %12s\n", "algo", "tensor", "read",
                "written", "loads", "stores");
        for (int i = 0; i < n; i++)
            for (int t = 0; t < r[i].counts.n_tensors; t++) {
                const fa_tensor_count *c = &r[i].counts.tensor[t];
                fprintf(f, "%-9s %-6s %16" PRIu64 " %16" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
                        fa_algo_name(r[i].algo), c->name, c->read_bytes, c->write_bytes, c->loads,
                        c->stores);
            }
    }
}

static const char *const csv_cols =
    "algo,pass,batch,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,dtype,causal,hw,sram_bytes,block_r,block_c,"
    "hbm_read_bytes,hbm_write_bytes,hbm_bytes,formula_bytes,formula_match,bound_bytes,flops,"
    "flops_matmul,flops_other,nominal_flops,sram_peak_bytes,sram_overflow_bytes,intensity,"
    "time_s,time_compute_s,time_memory_s,dram_read_bytes,dram_write_bytes,hbm_saved_bytes,"
    "hbm_peak_bytes,mask,profile,model_time_s,model_bound,model_tflops,dram_est_bytes,block_r_bwd,block_c_bwd,"
    "blocks_per_sm,blocks_per_sm_bwd,regs_per_thread,smem_per_block,busy_tensor_s,busy_smem_s,busy_exp_s,"
    "busy_fp32_s,busy_l2_s,busy_dram_s";

void cli_json_shape(void *obj, const fa_shape *s, int64_t batch)
{
    json_t *j = obj;
    json_object_set_new(j, "batch", json_integer(batch));
    json_object_set_new(j, "heads", json_integer(s->heads));
    json_object_set_new(j, "kv_heads", json_integer(s->kv_heads));
    json_object_set_new(j, "seqlen_q", json_integer(s->seqlen_q));
    json_object_set_new(j, "seqlen_k", json_integer(s->seqlen_k));
    json_object_set_new(j, "d", json_integer(s->d));
    json_object_set_new(j, "d_v", json_integer(s->d_v));
}

int cli_csv_has_col(const char *cols, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = cols; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

void io_write_csv(FILE *f, const cli_opts *o, const fa_shape *s, const fa_io_result *r, int n,
                  const cli_col *extra, int n_extra, int header)
{
    if (header) {
        for (int k = 0; k < n_extra; k++) /* a varied column the table has already is not repeated */
            if (!cli_csv_has_col(csv_cols, extra[k].name)) fprintf(f, "%s,", extra[k].name);
        fprintf(f, "%s", csv_cols);
        if (o->breakdown)
            for (int t = 0; t < FA_PASS_TENSORS; t++)
                fprintf(f, ",%s_read_bytes,%s_write_bytes", fa_pass_tensor_names[t],
                        fa_pass_tensor_names[t]);
        fprintf(f, "\n");
    }
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        for (int k = 0; k < n_extra; k++)
            if (!cli_csv_has_col(csv_cols, extra[k].name)) fprintf(f, "%s,", extra[k].value);
        fprintf(f,
                "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                ",%s,%s,%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%d,%.6e,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6e,%zu,%" PRIu64
                ",%.6g,%.6e,%.6e,%.6e",
                fa_algo_name(x->algo), fa_pass_name(x->pass), s->batch, s->heads, s->kv_heads,
                s->seqlen_q, s->seqlen_k, s->d, s->d_v, fa_dtype_name(s->dtype), causal_name(s->causal),
                o->hw.key,
                x->sram_bytes, x->blocks.block_r, x->blocks.block_c, x->counts.hbm_read_bytes,
                x->counts.hbm_write_bytes, fa_counts_hbm_bytes(&x->counts),
                x->formula.read_bytes + x->formula.write_bytes, formula_match(x), x->bound_bytes,
                x->counts.flops_matmul + x->counts.flops_other, x->counts.flops_matmul,
                x->counts.flops_other, x->nominal_flops, x->counts.sram_peak_bytes,
                x->sram_overflow, x->intensity, x->time_s, x->time_compute_s, x->time_memory_s);
        if (x->has_l2) fprintf(f, ",%" PRIu64 ",%" PRIu64, x->dram_read_bytes, x->dram_write_bytes);
        else fprintf(f, ",,");
        fprintf(f, ",%" PRIu64 ",%" PRIu64, x->footprint.saved, fa_footprint_peak(&x->footprint, x->pass));
        {
            char mt[256]; /* commas inside the text become semicolons, so the CSV stays CSV */
            cli_mask_text(s, mt, sizeof mt);
            for (char *c = mt; *c; c++)
                if (*c == ',') *c = ';';
            fprintf(f, ",%s", mt);
        }
        fprintf(f, ",%s", x->profile[0] ? x->profile : "paper");
        if (x->has_perf) {
            fprintf(f, ",%.6e,%s,%.4g,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%d,%d,%d,%" PRIu64, x->perf_time_s,
                    x->perf_latency == 1 ? "launch" : x->perf_latency ? "grid" : fa_pipe_name((fa_pipe)x->perf_bound), x->perf_tflops, x->dram_est_bytes, x->blocks_bwd.block_r,
                    x->blocks_bwd.block_c, x->occupancy[0], x->occupancy[1], x->regs_per_thread[x->pass == FA_PASS_BWD],
                    x->smem_per_block[x->pass == FA_PASS_BWD]);
            for (int q = 0; q < 6; q++) fprintf(f, ",%.6e", x->perf_busy[q]);
        } else {
            fprintf(f, ",,,,,,,,,,,,,,,,");
        }
        if (o->breakdown)
            for (int t = 0; t < FA_PASS_TENSORS; t++) {
                int id = fa_counts_find(&x->counts, fa_pass_tensor_names[t]);
                fprintf(f, ",%" PRIu64 ",%" PRIu64, id < 0 ? 0 : x->counts.tensor[id].read_bytes,
                        id < 0 ? 0 : x->counts.tensor[id].write_bytes);
            }
        fprintf(f, "\n");
    }
}

void io_append_json(void *arr_, const cli_opts *o, const fa_shape *s, const fa_io_result *r, int n,
                    const cli_col *extra, int n_extra)
{
    json_t *arr = arr_;
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        json_t *j = json_object();
        for (int k = 0; k < n_extra; k++) {
            char *end;
            double v = strtod(extra[k].value, &end);
            const int num = *end == '\0' && end != extra[k].value;
            /* a whole number stays an integer ("seqlen": 256, not 256.0) */
            json_object_set_new(j, extra[k].name,
                                !num ? json_string(extra[k].value)
                                : v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v)
                                                                   : json_real(v));
        }
        json_object_set_new(j, "algo", json_string(fa_algo_name(x->algo)));
        json_object_set_new(j, "pass", json_string(fa_pass_name(x->pass)));
        cli_json_shape(j, s, s->batch);
        json_object_set_new(j, "dtype", json_string(fa_dtype_name(s->dtype)));
        json_object_set_new(j, "causal", json_string(causal_name(s->causal)));
        {
            char mt[256];
            json_object_set_new(j, "mask", json_string(cli_mask_text(s, mt, sizeof mt)));
        }
        json_object_set_new(j, "hw", json_string(o->hw.key));
        json_object_set_new(j, "sram_bytes", json_integer((json_int_t)x->sram_bytes));
        json_object_set_new(j, "block_r", json_integer(x->blocks.block_r));
        json_object_set_new(j, "block_c", json_integer(x->blocks.block_c));
        json_object_set_new(j, "T_r", json_integer(fa_cdiv(s->seqlen_q, x->blocks.block_r)));
        json_object_set_new(j, "T_c", json_integer(fa_cdiv(s->seqlen_k, x->blocks.block_c)));
        /* byte counts can exceed 2^63: JSON integers in jansson are signed 64-bit */
#define U64(key, v) json_object_set_new(j, key, (v) <= (uint64_t)INT64_MAX ? json_integer((json_int_t)(v)) : json_real((double)(v)))
        U64("hbm_read_bytes", x->counts.hbm_read_bytes);
        U64("hbm_write_bytes", x->counts.hbm_write_bytes);
        U64("hbm_bytes", fa_counts_hbm_bytes(&x->counts));
        U64("formula_bytes", x->formula.read_bytes + x->formula.write_bytes);
        json_object_set_new(j, "formula_match", json_boolean(formula_match(x)));
        json_object_set_new(j, "bound_bytes", json_real(x->bound_bytes));
        U64("flops", x->counts.flops_matmul + x->counts.flops_other);
        U64("flops_matmul", x->counts.flops_matmul);
        U64("flops_other", x->counts.flops_other);
        json_object_set_new(j, "nominal_flops", json_real(x->nominal_flops));
        U64("sram_peak_bytes", (uint64_t)x->counts.sram_peak_bytes);
        U64("sram_overflow_bytes", x->sram_overflow);
        json_object_set_new(j, "intensity", json_real(x->intensity));
        json_object_set_new(j, "time_s", json_real(x->time_s));
        json_object_set_new(j, "time_compute_s", json_real(x->time_compute_s));
        json_object_set_new(j, "time_memory_s", json_real(x->time_memory_s));
        if (x->has_l2) {
            U64("dram_read_bytes", x->dram_read_bytes);
            U64("dram_write_bytes", x->dram_write_bytes);
            json_object_set_new(j, "l2_slots", json_integer(x->l2_slots));
            json_object_set_new(j, "l2_partitions", json_integer(x->l2_partitions));
        }
        json_object_set_new(j, "profile", json_string(x->profile[0] ? x->profile : "paper"));
        if (x->perf_note[0]) json_object_set_new(j, "time_model_note", json_string(x->perf_note));
        if (x->has_perf) {
            json_t *tm = json_object();
            json_object_set_new(tm, "time_s", json_real(x->perf_time_s));
            json_object_set_new(tm, "bound", json_string(x->perf_latency == 1 ? "launch" : x->perf_latency ? "grid" : fa_pipe_name((fa_pipe)x->perf_bound)));
            json_object_set_new(tm, "waves_add_over_10pct", json_boolean(x->perf_tail));
            json_object_set_new(tm, "tflops", json_real(x->perf_tflops));
            U64("dram_est_bytes", x->dram_est_bytes);
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
                json_object_set_new(kj, "warps", json_integer(x->warps[k]));
                json_object_set_new(kj, "blocks_per_sm", json_integer(x->occupancy[k]));
                json_object_set_new(kj, "occupancy_limit", json_string(x->occ_limit[k] ? x->occ_limit[k] : ""));
                json_object_set_new(kj, "regs_per_thread", json_integer(x->regs_per_thread[k]));
                json_object_set_new(kj, "smem_per_block", json_integer((json_int_t)x->smem_per_block[k]));
                json_array_append_new(ks, kj);
            }
            json_object_set_new(tm, "kernels", ks);
            json_object_set_new(j, "time_model", tm);
        }
        U64("hbm_saved_bytes", x->footprint.saved);
        U64("hbm_peak_bytes", fa_footprint_peak(&x->footprint, x->pass));
        json_t *tens = json_object();
        for (int t = 0; t < x->counts.n_tensors; t++) {
            const fa_tensor_count *c = &x->counts.tensor[t];
            json_t *tj = json_object();
            json_object_set_new(tj, "read_bytes", json_integer((json_int_t)c->read_bytes));
            json_object_set_new(tj, "write_bytes", json_integer((json_int_t)c->write_bytes));
            json_object_set_new(tj, "loads", json_integer((json_int_t)c->loads));
            json_object_set_new(tj, "stores", json_integer((json_int_t)c->stores));
            json_object_set_new(tens, c->name, tj);
        }
        json_object_set_new(j, "tensors", tens);
#undef U64
        json_array_append_new(arr, j);
    }
}
