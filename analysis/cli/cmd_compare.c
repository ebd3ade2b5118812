/* cmd_compare.c -- `fasim compare --measured FILE`: fasim's predictions beside what a GPU
 * measured (Nsight Compute bytes, CUDA-event times), per kernel and shape.  The options and the
 * printing; reading the file, the predictions and the summary are analysis/compare.c
 * (fa_compare.h). */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fa_compare.h"

static const char *const compare_head =
    "usage: fasim compare --measured FILE [--hw a100|h100|h200|b200] [--sram BYTES] [--no-l2]\n"
    "                     [--format table|csv|json] [--blocks fit]\n"
    "  Reads a CSV of measured kernels (one row per kernel and shape; a header names the\n"
    "  columns, in any order) and prints, per row, fasim's prediction for the same shape and\n"
    "  tile sizes beside the measurement:\n"
    "    SRAM<->L2 bytes (the two-level count) vs the measured L2<->SM bytes,\n"
    "    DRAM bytes with the L2 model (fasim io --l2) vs the measured DRAM bytes,\n"
    "    the time model's time (docs/time-model.md) vs the measured time, with the busiest\n"
    "    pipe and the bound, what sets the time (as fasim io's bound column says it); a summary\n"
    "    of the rows within 15 % (time), 10 % (L2) and 20 % (DRAM).  CSV and JSON: bound and\n"
    "    busiest_pipe.\n"
    "  Columns: kernel, B, H, N_q (or N), d (required); H_kv, N_k, d_v, causal (0/1),\n"
    "  dtype (fp32/fp16/bf16/fp8_e4m3/fp8_e5m2), algo (standard/flash1/flash2; default from the kernel name:\n"
    "  v0 -> standard, v1 -> flash1, else flash2), block_r, block_c (default: the profile's tile table; --blocks fit without one),\n"
    "  blocks_per_sm (the kernel's occupancy for the L2 replay, 1..32, e.g. the smallest of\n"
    "  Nsight Compute's launch__occupancy_limit_*; default: the time model's occupancy of the\n"
    "  profile, else estimated from fasim's SRAM need),\n"
    "  profile (the kernel profile, fasim io --profile; default from the kernel name: a\n"
    "  profile key, sdpa_flash -> sdpa_flash (fa2's kernels as SDPA calls them), sdpa_cudnn -> cudnn, sdpa_math -> math, v0_low -> v0,\n"
    "  v3_bwd* -> v3; KEY_prepass -> the V -> V^T pre-pass of KEY (v5_fp8_prepass), timed\n"
    "  apart from the kernel; else the algorithm's, with a note naming the kernel: a name\n"
    "  fasim does not know, or a typo), pass (fwd or bwd; a name ending in _bwd or\n"
    "  starting v3_bwd is a backward; default fwd; a pre-pass row prints pre),\n"
    "  ms, dram_read_bytes, dram_write_bytes, l2_read_bytes, l2_write_bytes (optional; the\n"
    "  Nsight Compute names dram__bytes_read.sum, dram__bytes_write.sum,\n"
    "  l1tex__m_xbar2l1tex_read_bytes.sum, l1tex__m_l1tex2xbar_write_bytes.sum work too).\n"
    "  The CSVs of kernels/fabench.cu and kernels/compare_sdpa.py (--csv) are read as they are:\n"
    "  their tflops, gbps and max_err columns are accepted and not read, and their pass column\n"
    "  holds the validation's verdict (PASS, FAIL, CONS, ref, skip) instead of fwd/bwd -- the\n"
    "  pass then comes from the kernel name (the table's pass column is that pass, not the\n"
    "  file's verdict); a ref row, and a skip row with no time (ms nan or empty), is left out;\n"
    "  a skip row with a time (the validation did not run: every row of s8_fp8_sweep.csv) is\n"
    "  compared.  fabench times a v5_fp8 row's attention kernel alone: its V -> V^T pre-pass\n"
    "  is timed apart (kernels/fabench_fp8.cu); a v5_fp8_prepass row is the pre-pass alone.\n"
    "  kernels/ v1 runs a thread block a 256-row slice of a head's queries: a v1 row in a\n"
    "  head's shape (N_q > 256) is read as its slices, H x N_q / 256 heads of 256 queries\n"
    "  sharing the head's K and V; a causal one, or N_q not a multiple of 256, is left out\n"
    "  (a note counts both).\n"
    "  Each column appears once, under one of its names (case-sensitive); any other column\n"
    "  name is an error; a UTF-8 byte order mark before the header is skipped.  Every row\n"
    "  has the header's number of fields.  B, H, N, d, H_kv, N_k, d_v: whole numbers\n"
    "  1..2^31-1; block_r, block_c: 1..2^20, both or neither; causal 0 or 1; ms finite and\n"
    "  > 0; the other numbers finite and >= 0.  An empty field of an optional column is read\n"
    "  as the column left out: the table prints '-' (and no ratio), CSV nan, JSON null.  The\n"
    "  tiles Q_i, K_j, V_j must fit M: (B_r d + B_c d + B_c d_v) x element size <= M (fasim io\n"
    "  refuses such tiles too); fasim's fp32 S_ij, O_i, m_i, l_i may exceed M (a kernel keeps\n"
    "  them in registers).  --block-r, --block-c and --blocks paper are refused: the tile\n"
    "  sizes come from the file.\n"
    "  The L2 model replays the rows with measured DRAM bytes (elsewhere '-'); it is skipped\n"
    "  (--no-l2) or refused for runs over 2^26 transfers.\n"
    "options:\n";

/* A table cell: the value with prec decimals in width w, or "-" where it is unknown (NAN). */
static const char *cell(char *buf, size_t n, double v, int w, int prec)
{
    if (isnan(v)) snprintf(buf, n, "%*s", w, "-");
    else if (v != 0 && fabs(v) < 0.5 * pow(10, -prec)) snprintf(buf, n, "%*.*g", w, prec, v); /* not 0.000 */
    else snprintf(buf, n, "%*.*f", w, prec, v);
    return buf;
}

/* The validation summary below the table: per quantity, the rows with both numbers, how many lie
 * within the limits, the median and largest |ratio - 1|. */
static void stat_print(FILE *out, fa_cmp_summary *m)
{
    static const char *const what[FA_CMP_NQTY] = {[FA_CMP_TIME] = "time", [FA_CMP_L2] = "SRAM<->L2 bytes",
                                                 [FA_CMP_DRAM] = "DRAM bytes"};
    fprintf(out, "\n");
    for (int k = 0; k < FA_CMP_NQTY; k++) {
        fa_cmp_stat t = fa_cmp_summary_stat(m, (fa_cmp_qty)k);
        if (!t.rows) continue;
        fprintf(out, "%-16s %4d row%s%s: %4d within %2.0f %%, median |fasim / measured - 1| = %.1f %%, largest %.1f %%\n",
                what[k], t.rows, t.rows == 1 ? "" : "s", t.full ? " (the first)" : "", t.within, 100 * t.limit, 100 * t.median,
                100 * t.largest);
    }
}

/* compare's own options */
typedef struct {
    const char *path;
    int use_l2;
    const char *kernel_profile; /* --kernel-profile's KERNEL=PROFILE[,...] */
} cmp_args;

static int take_compare(void *ctx, cli_opts *o, int id, const char *name, const char *val)
{
    (void)o;
    cmp_args *c = ctx;
    if (id == O_MEASURED) {
        c->path = val;
        return 0;
    }
    if (id == O_NO_L2) {
        c->use_l2 = 0;
        return 0;
    }
    if (id == O_KERNEL_PROFILE) {
        if (c->kernel_profile) return cli_usage("--kernel-profile given twice (give the pairs in one, comma-separated)");
        c->kernel_profile = val;
        return 0;
    }
    return cli_usage("%s: not a compare option", name);
}

int cmd_compare(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "compare", compare_head, "");
        return 0;
    }
    cmp_args ca = {NULL, 1, NULL};
    cli_opts o;
    int rc = cli_parse_cmd(argc, argv, &o, take_compare, &ca);
    if (rc) return rc;
    if (o.blocks != BLOCKS_FIT)
        return cli_usage("compare takes the tile sizes from the file's block_r and block_c columns, "
                         "not --block-r, --block-c or --blocks paper");
    const char *path = ca.path;
    const int use_l2 = ca.use_l2;
    if (!path) return cli_usage("compare needs --measured FILE (see fasim compare --help)");
    fa_status st = fa_hw_load(o.hw_key, NULL, &o.hw);
    if (st) return cli_fail(st);
    if (o.sram == 0) o.sram = o.hw.sram_per_block;
    /* --kernel-profile is checked whole before the file is read, as every option is */
    char kerns[FA_CMP_MAXMAP][64];
    const fa_profile *kprofs[FA_CMP_MAXMAP];
    int nk = 0;
    for (const char *p = ca.kernel_profile; p && *p;) { /* KERNEL=PROFILE[,KERNEL=PROFILE...] */
        const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p), *eq = memchr(p, '=', (size_t)(end - p));
        char kern[64], pkey[64];
        if (!eq || eq == p || eq + 1 == end || (size_t)(eq - p) >= sizeof kern || (size_t)(end - eq - 1) >= sizeof pkey)
            return cli_usage("--kernel-profile wants KERNEL=PROFILE pairs separated by ',' (names of 1 to 63 characters), "
                             "got '%.*s'", (int)(end - p) > 80 ? 80 : (int)(end - p), p);
        memcpy(kern, p, (size_t)(eq - p)), kern[eq - p] = '\0';
        memcpy(pkey, eq + 1, (size_t)(end - eq - 1)), pkey[end - eq - 1] = '\0';
        const fa_profile *prof;
        if ((st = fa_profile_parse(pkey, &prof))) return cli_fail(st);
        for (int i = 0; i < nk; i++)
            if (!strcmp(kerns[i], kern)) return cli_usage("--kernel-profile: kernel %s given twice", kern);
        if (nk == FA_CMP_MAXMAP)
            return cli_usage("--kernel-profile: at most %d kernels, got more (%s)", FA_CMP_MAXMAP, kern);
        memcpy(kerns[nk], kern, sizeof kern);
        kprofs[nk++] = prof;
        p = comma ? comma + 1 : end;
        if (comma && !*p) return cli_usage("--kernel-profile: nothing after the last ','");
    }
    fa_cmp_reader *rd;
    if ((st = fa_cmp_open(path, &rd))) return cli_fail(st);
    for (int i = 0; i < nk; i++)
        if ((st = fa_cmp_map(rd, kerns[i], kprofs[i]))) {
            fa_cmp_close(rd);
            return cli_fail(st);
        }
    json_t *arr = json_array();
    /* output is buffered: a bad row later in the file leaves stdout empty */
    char *obuf = NULL;
    size_t olen = 0;
    FILE *out = open_memstream(&obuf, &olen);
    if (!out) {
        fa_cmp_close(rd);
        json_decref(arr);
        return cli_fail(fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory"));
    }
    int pw = 7; /* the profile column: as wide as the longest profile key */
    for (int i = 0; i < fa_nprofiles; i++)
        if ((int)strlen(fa_profiles[i].key) > pw) pw = (int)strlen(fa_profiles[i].key);
    /* the measured file names no GPU; a folder named after another hardware profile's key says it was
     * measured there (analysis/measured/h200/...): the ratios would set two GPUs side by side */
    char other[32] = "";
    for (int k = 0; fa_hw_keys[k] && !other[0]; k++) {
        const size_t kl = strlen(fa_hw_keys[k]);
        if (!strcmp(fa_hw_keys[k], o.hw.key)) continue;
        for (const char *q = strstr(path, fa_hw_keys[k]); q && !other[0]; q = strstr(q + 1, fa_hw_keys[k]))
            if ((q == path || q[-1] == '/') && q[kl] == '/') snprintf(other, sizeof other, "%s", fa_hw_keys[k]);
    }
    if (other[0])
        fprintf(stderr, "fasim: note: %s lies in a folder named %s, the GPU it was measured on, but --hw %s predicts %s: "
                        "the ratios set two GPUs side by side, not a validation (give --hw %s)\n",
                path, other, o.hw.key, o.hw.name, other);
    if (o.format == FMT_TABLE) {
        fprintf(out, "fasim compare: %s on %s (M = %" PRIu64 " B); bytes in MB (1e6), ratio = fasim / measured\n",
               path, o.hw.name, o.sram);
        fprintf(out, "%-14s %3s %6s %9s %4s %2s %-4s %-*s %4s %4s %4s | %9s %9s %6s | %9s %9s %6s | %9s %9s %6s %-7s %s\n",
               "kernel", "B", "H", "N", "d", "c", "pass", pw, "profile", "B_r", "B_c", "b/SM", "SRAM<->L2", "meas L2",
               "ratio", "DRAM(L2)", "meas DRAM", "ratio", "time ms", "meas ms", "ratio", "busiest", "bound");
    } else if (o.format == FMT_CSV) {
        fputs(fa_cmp_csv_header, out);
    }
    static fa_cmp_summary sum;
    memset(&sum, 0, sizeof sum);
    static fa_cmp_pred p; /* large (two runs' counts): not on the stack */
    char prepass_key[32] = ""; /* a profile with a V -> V^T pre-pass among the rows */
    char guess_note[160] = ""; /* the first row whose kernel name names no profile */
    int n_guessed = 0;
    for (;;) {
        fa_cmp_row row;
        int got;
        if ((st = fa_cmp_next(rd, &row, &got))) {
            rc = cli_fail(st);
            break;
        }
        if (!got) break;
        if ((st = fa_cmp_predict(&row, &o.hw, o.sram, use_l2, &p))) {
            rc = cli_fail(st);
            break;
        }
        fa_cmp_summary_add(&sum, &p);
        if (row.guessed) { /* a kernel name fasim does not know: timed as its algorithm's default profile */
            if (!n_guessed++)
                snprintf(guess_note, sizeof guess_note, "'%.40s' (line %d) as %s, the %s default", row.kernel, row.line,
                         row.profile->key, fa_algo_name(row.algo));
        }
        if (row.profile->v_prepass && !row.prepass && !prepass_key[0]) /* what its measured ms holds */
            snprintf(prepass_key, sizeof prepass_key, "%s", row.profile->key);
        const fa_shape *s = &row.shape;
        const char *pass_name = row.prepass ? "pre" : row.pass == FA_PASS_BWD ? "bwd" : "fwd";
        char bps_s[16] = "-"; /* no L2 model (--no-l2): no replayed occupancy */
        if (p.l2) snprintf(bps_s, sizeof bps_s, "%d", p.blocks_per_sm);
        if (o.format == FMT_TABLE) {
            char c[9][32], hs[48], ns[48]; /* H, N: H/H_kv and N_q/N_k where they differ */
            if (s->heads != s->kv_heads) snprintf(hs, sizeof hs, "%" PRId64 "/%" PRId64, s->heads, s->kv_heads);
            else snprintf(hs, sizeof hs, "%" PRId64, s->heads);
            if (s->seqlen_q != s->seqlen_k) snprintf(ns, sizeof ns, "%" PRId64 "/%" PRId64, s->seqlen_q, s->seqlen_k);
            else snprintf(ns, sizeof ns, "%" PRId64, s->seqlen_q);
            fprintf(out, "%-14s %3" PRId64 " %6s %9s %4" PRId64 " %2d %-4s %-*s %4" PRId64 " %4" PRId64
                   " %4s | %s %s %s | %s %s %s | %s %s %s %-7s %s%s\n",
                   row.kernel, s->batch, hs, ns, s->d, s->causal != FA_CAUSAL_NONE, pass_name,
                   pw, row.profile->key, p.blocks.block_r, p.blocks.block_c, bps_s, cell(c[0], 32, p.pred_l2_bytes / 1e6, 9, 1),
                   cell(c[1], 32, p.meas_l2_bytes / 1e6, 9, 1), cell(c[2], 32, fa_cmp_ratio(p.pred_l2_bytes, p.meas_l2_bytes), 6, 2),
                   cell(c[3], 32, p.pred_dram_bytes / 1e6, 9, 1), cell(c[4], 32, p.meas_dram_bytes / 1e6, 9, 1),
                   cell(c[5], 32, fa_cmp_ratio(p.pred_dram_bytes, p.meas_dram_bytes), 6, 2), cell(c[6], 32, p.pred_ms, 9, 3),
                   cell(c[7], 32, p.meas_ms, 9, 3), cell(c[8], 32, fa_cmp_ratio(p.pred_ms, p.meas_ms), 6, 2), p.busiest, p.bound,
                   p.tail ? " + tail" : "");
        } else if (o.format == FMT_CSV) {
            fa_cmp_csv_row(out, &row, &p);
        } else {
            json_array_append_new(arr, fa_cmp_json(&row, &p));
        }
    }
    const int untimed = fa_cmp_untimed(rd);
    int v1_sliced, v1_left;
    fa_cmp_v1_rows(rd, &v1_sliced, &v1_left);
    fa_cmp_close(rd);
    if (rc == 0 && o.format == FMT_TABLE) stat_print(out, &sum);
    if (rc == 0 && o.format == FMT_TABLE && untimed)
        fprintf(out, "(%d row%s left out: the benchmark's ref row%s or skip rows with no time)\n", untimed,
                untimed == 1 ? "" : "s", untimed == 1 ? "" : "s");
    if (rc == 0 && (v1_sliced || v1_left)) /* on stderr too in CSV or JSON: the rows changed shape or went */
        fprintf(o.format == FMT_TABLE ? out : stderr,
                "%snote: kernels/ v1 runs a thread block a 256-row slice of a head's queries: %d v1 row%s in a head's "
                "shape read as its slices (H x N_q / 256 heads of 256 queries sharing the head's K and V)%s%d left out "
                "(causal, or N_q not a multiple of 256: a slice's keys depend on its place, which no slice-as-head "
                "shape says)%s\n", o.format == FMT_TABLE ? "(" : "fasim compare: ", v1_sliced, v1_sliced == 1 ? "" : "s",
                "; ", v1_left, o.format == FMT_TABLE ? ")" : "");
    if (rc == 0 && n_guessed) /* on stderr too: a typo must not pass unseen in CSV or JSON */
        fprintf(o.format == FMT_TABLE ? out : stderr,
                "%snote: %d row%s name%s a kernel fasim has no profile for (no profile column either): timed %s%s; give "
                "the profile column, or a kernel name of fasim io --profile's list%s\n", o.format == FMT_TABLE ? "(" : "fasim compare: ",
                n_guessed, n_guessed == 1 ? "" : "s", n_guessed == 1 ? "s" : "", n_guessed == 1 ? "" : "first ", guess_note,
                o.format == FMT_TABLE ? ")" : "");
    if (rc == 0 && o.format == FMT_TABLE && prepass_key[0])
        fprintf(out, "(%s: meas ms is the attention kernel alone, as fabench times it (kernels/fabench_fp8.cu); the V -> "
                     "V^T pre-pass is timed apart (a %s_prepass row is timed as the pre-pass alone), and the time model's ms "
                     "leaves it out too)\n", prepass_key, prepass_key);
    if (rc == 0 && o.format == FMT_TABLE)
        fprintf(out, "(the file names no GPU: its rows are taken as measured on the %s%s)\n", o.hw.name,
                other[0] ? "; its folder's name says otherwise, see the note on standard error" : "");
    if (rc == 0 && o.format == FMT_TABLE) /* the columns, after the rows (the table stays a table) */
        fputs("(columns: B batch, H heads (H/H_kv where fewer K/V heads serve them: GQA, or a kernel's query\n"
              " slices counted as heads that share their head's K and V, as kernels/ v1's rows in\n"
              " analysis/measured/h200/: 256-row slices of each head's queries, N / 256 a head), N sequence length\n"
              " (N_q/N_k where they differ: v1's 256/4096 is a slice's 256 queries against its head's 4096 keys;\n"
              " --format csv has H, H_kv, N_q and N_k each a column), d head dim, c causal (1) or not (0), pass the pass\n"
              " (fwd, bwd; pre: the profile's V -> V^T pre-pass; from the kernel name, not a benchmark file's pass\n"
              " column, which holds its validation's verdict), profile the kernel profile timed and B_r x B_c its\n"
              " tiles; b/SM the thread blocks per SM the L2 model replays, '-' where no replay ran: the row has no\n"
              " measured DRAM bytes to compare (or --no-l2); SRAM<->L2 fasim's two-level count vs meas L2, Nsight\n"
              " Compute's L2<->SM bytes; DRAM(L2) fasim's DRAM bytes with the L2 model vs meas DRAM; time ms the time\n"
              " model's vs meas ms; busiest the busiest pipe of the time model (the largest busy time; '-':\n"
              " untimed); bound what sets the time, as fasim io's bound column says it: L2 or DRAM when its\n"
              " bytes / rate exceed the waves, else the tile's longer phase (softmax, issue, loads, or the GEMM\n"
              " phase by its busier pipe: tensor, smem, fp32), grid or launch when latency sets it, '+ tail'\n"
              " when the last wave's tail adds over 10 % (untimed rows: the roofline's compute or memory);\n"
              " '-': not measured or not predicted)\n", out);
    if (rc == 0 && o.format == FMT_JSON) {
        cli_dump_json(arr, out);
    }
    fclose(out);
    if (rc == 0) fwrite(obuf, 1, olen, stdout);
    free(obuf);
    json_decref(arr);
    return rc;
}
