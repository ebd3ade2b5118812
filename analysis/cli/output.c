/* output.c -- the table of IO results (their CSV and JSON records: analysis/records.c). */
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

int io_tile_row_notes(FILE *f, const char *lead, const char *who, const fa_profile *p, fa_pass pass, int arch,
                      const fa_shape *s, fa_blocks fwd, fa_blocks bwd)
{
    int notes = 0;
    if (!p || !p->tiles) return 0;
    for (int k = 0; k < 2; k++) {
        if ((pass == FA_PASS_FWD && k) || (pass == FA_PASS_BWD && !k)) continue;
        const fa_blocks used = k ? bwd : fwd;
        const fa_tile_row *row;
        fa_blocks bk;
        if (fa_profile_tiles(p, k ? FA_PASS_BWD : FA_PASS_FWD, arch, s, &bk, &row) != FA_OK) {
            fa_clear_error();
            continue;
        }
        if (row->note && bk.block_r == used.block_r && bk.block_c == used.block_c)
            fprintf(f, "%snote: %s: %s\n", lead, who, row->note), notes++;
    }
    return notes;
}

void io_dropout_note(FILE *f, const char *lead, const fa_shape *s, const char *who)
{
    fprintf(f, "%snote: --dropout %g: %s timed as without dropout -- the time model charges no Philox random numbers "
               "and no keep-mask multiply per score, and takes the kernels' no-dropout tile tables; the counts (HBM "
               "bytes, FLOPs) do include dropout%s; only math charges its dropout kernel (docs/time-model.md, "
               "\"Dropout\")\n", lead, s->dropout_p, who,
            strstr(who, "(fa2)") ? ", and fa2 runs unsplit (FlashAttention-2 never splits the keys with dropout)" : "");
}

/* Two byte figures of one row that differ, DRAM est and HBM total: why, and where each is
 * derived -- under fasim io's time-model table and fasim explain's time model (one text). */
void io_bytes_notes(FILE *f, const char *lead, const fa_io_result *x, fa_dtype dtype)
{
    char b[3][32];
    const uint64_t hbm = fa_counts_hbm_bytes(&x->counts);
    if (!x->has_perf) return;
    if (x->algo == FA_ALGO_STANDARD && x->dram_est_bytes != hbm)
        fprintf(f, "%snote: standard (%s): DRAM est %s is the %s profile's kernels (docs/time-model.md section 6, \"Standard "
                   "attention\": %s), HBM total %s counts the standard algorithm in %s (docs/io-model.md section 2)\n",
                lead, x->profile, fa_fmt_bytes((double)x->dram_est_bytes, b[0], sizeof b[0]), x->profile,
                !strcmp(x->profile, "math") ? "SDPA's math backend computes in fp32: casts, scales, mask, safe softmax, "
                                              "every N_q x N_k tensor 4 bytes an element"
                                            : "its own list of kernels and their bytes",
                fa_fmt_bytes((double)hbm, b[1], sizeof b[1]), fa_dtype_name(dtype));
    if (x->layout_copy_bytes) {
        const fa_profile *p = fa_profile_find(x->profile);
        fprintf(f, "%snote: %s (%s): DRAM est %s holds the backward's %d layout copies of dO and O into (B, N, H, d) "
                   "(%s: each copy reads and writes B*H*N_q*d_v*e), timed among its small kernels; HBM total %s leaves "
                   "them out: it counts the attention algorithm, the copies are the framework's (docs/time-model.md "
                   "section 6)\n",
                lead, fa_algo_name(x->algo), x->profile, fa_fmt_bytes((double)x->dram_est_bytes, b[0], sizeof b[0]),
                p ? p->layout_copies_bwd : 0, fa_fmt_bytes((double)x->layout_copy_bytes, b[1], sizeof b[1]),
                fa_fmt_bytes((double)hbm, b[2], sizeof b[2]));
    }
}

/* The time columns of a time-model row: each pipe's busy time ('-': a pipe the model does not
 * charge, as standard's library kernels' smem and L2), DRAM est, time, TFLOP/s and bound. */
static void model_times(FILE *f, const fa_io_result *x)
{
    char b[8][32];
    for (int q = 0; q < 6; q++)
        fprintf(f, " %9s", x->perf_pipes >> q & 1 ? fa_fmt_time(x->perf_busy[q], b[q], sizeof b[q]) : "-");
    fprintf(f, " %10s %10s %8.1f %s%s", fa_fmt_bytes((double)x->dram_est_bytes, b[6], sizeof b[6]),
            fa_fmt_time(x->perf_time_s, b[7], sizeof b[7]), x->perf_tflops,
            x->perf_latency == 1 ? "launch" : x->perf_latency ? "grid" : fa_report_bound(x),
            x->perf_tail && !x->perf_latency ? " + tail" : "");
}

/* A time-model row's profile entry (the forward of fwdbwd "KEY fwd", FlashAttention-2's split-KV
 * kernel "KEY split", a backward "KEY bwd") and its blocks/SM entry (docs/time-model.md, section
 * 3): "2 (limit)", "1 of 3 (limit)" when the grid leaves the occupancy unfilled, '-' for the
 * library GEMMs; kernel k (0 forward, 1 backward) of x. */
static void model_names(const fa_io_result *x, int k, char *prof, size_t np, char *occ, size_t no)
{
    if (x->occupancy[k] && x->blocks_run[k] < x->occupancy[k])
        snprintf(occ, no, "%.0f of %d (%s)", x->blocks_run[k], x->occupancy[k], x->occ_limit[k]);
    else if (x->occupancy[k]) snprintf(occ, no, "%d (%s)", x->occupancy[k], x->occ_limit[k]);
    else snprintf(occ, no, "-");
    snprintf(prof, np, "%s%s", x->profile, k ? " bwd" : x->splits > 1 ? " split" : x->pass == FA_PASS_FWDBWD ? " fwd" : "");
}

void io_write_model(FILE *f, const cli_opts *o, const fa_io_result *r, int n)
{
    char b[8][32];
    int any = 0, paper = 0, untimed = 0;
    char names[64] = "";
    for (int i = 0; i < n; i++) {
        any |= r[i].has_perf;
        if (r[i].has_perf) continue;
        /* a row with a kernel profile that this GPU cannot time (no rate for its MMA) keeps the
         * profile's tiles and placement; only a row of the paper's model has neither */
        const int prof = r[i].profile[0] && strcmp(r[i].profile, "paper") != 0;
        if (prof) {
            untimed = 1;
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s (%s)", l ? ", " : "", fa_algo_name(r[i].algo), r[i].profile);
        } else paper = 1;
    }
    if (paper)
        fprintf(f, "model: %s%s; time = roofline max(FLOPs / peaks, HBM bytes / bandwidth)\n",
                any || untimed ? "rows without a kernel profile: " : "",
                "the paper's (every on-chip buffer in one SRAM of M, Theorem 2)");
    if (untimed)
        fprintf(f, "model: %s: counted with the kernel profile's tiles and placement, but not timed on %s (note "
                   "below); their time = roofline max(FLOPs / peaks, HBM bytes / bandwidth)\n", names, o->hw.name);
    if (n > 0)
        fprintf(f, "FLOPs: every FLOP counted, matmul (FMA = 2) and the softmax's (exp, max, sum, rescale)%s\n",
                any ? "; the time model's TFLOP/s (below) is not FLOPs / time" : "");
    for (int i = 0; i < n; i++)
        if (r[i].perf_note[0]) fprintf(f, "note: %s: %s\n", fa_algo_name(r[i].algo), r[i].perf_note);
    { /* a fused kernel refused tiles that are not multiples of 16 while standard was timed on them */
        int refused = 0, std_timed = -1;
        for (int i = 0; i < n; i++) {
            refused |= strstr(r[i].perf_note, "tiles of multiples of 16") != NULL;
            if (r[i].algo == FA_ALGO_STANDARD && r[i].has_perf) std_timed = i;
        }
        if (refused && std_timed >= 0)
            fprintf(f, "note: standard (%s) is timed on these tiles all the same: its kernels are library GEMMs, which take "
                       "any size (the tile only sets how often they re-read K and V), while the fused kernels' MMAs need "
                       "multiples of 16\n", r[std_timed].profile);
    }
    if (o->shape.dropout_p > 0) { /* the kernels timed as without dropout (all but math's) */
        char who[160] = "";
        for (int i = 0; i < n; i++)
            if (r[i].has_perf && strcmp(r[i].profile, "math")) {
                size_t l = strlen(who);
                snprintf(who + l, sizeof who - l, "%s%s (%s)", l ? ", " : "", fa_algo_name(r[i].algo), r[i].profile);
            }
        if (who[0]) io_dropout_note(f, "", &o->shape, who);
    }
    if (!any) return;
    fprintf(f, "\ntime model (docs/time-model.md): kernel profiles on %s's pipes (%s)%s\n", o->hw.name,
            o->hw.pipes_source[0] ? o->hw.pipes_source : "hardware profile",
            n && r[0].pass == FA_PASS_FWDBWD ? "; forward + backward: a row for each kernel, then their pipe times and "
                                               "time summed on the 'fwd + bwd' row" : "");
    fprintf(f, "TFLOP/s: the FlashAttention-2 convention's FLOPs of the shape / time: 2 N_q N_k (d + d_v) a head forward "
               "(4 N^2 d at d_v = d), halved by a causal mask (other masks: the matmul FLOPs of the tiles visited), "
               "2.5x that backward; no softmax FLOPs, the same work for standard, flash1 and flash2\n");
    /* the profile and blocks/SM columns as wide as their longest entry ("v5_bwd_atomic bwd",
     * "2 (registers, shared memory)"), 11 and 23 at least */
    int wpr = 11, woc = 23;
    for (int i = 0; i < n; i++)
        for (int k = 0; r[i].has_perf && k < 2; k++) {
            if ((r[i].pass == FA_PASS_FWD && k == 1) || (r[i].pass == FA_PASS_BWD && k == 0)) continue;
            char pr[40], oc[64];
            model_names(&r[i], k, pr, sizeof pr, oc, sizeof oc);
            if ((int)strlen(pr) > wpr) wpr = (int)strlen(pr);
            if ((int)strlen(oc) > woc) woc = (int)strlen(oc);
        }
    fprintf(f, "%-9s %-*s %9s %5s %10s %4s %-*s %9s %9s %9s %9s %9s %9s %10s %10s %8s %s\n", "algo", wpr, "profile",
            "tiles", "warps", "smem/blk", "regs", woc, "blocks/SM", "tensor", "smem", "exp", "fp32", "L2", "DRAM",
            "DRAM est", "time", "TFLOP/s", "bound");
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        if (!x->has_perf) continue;
        for (int k = 0; k < 2 + (x->pass == FA_PASS_FWDBWD); k++) {
            if ((x->pass == FA_PASS_FWD && k == 1) || (x->pass == FA_PASS_BWD && k == 0)) continue;
            if (k == 2) { /* fwdbwd: the two kernels' pipe times and time, summed, on a row of their own */
                fprintf(f, "%-9s %-*s", fa_algo_name(x->algo), wpr + woc + 33, "fwd + bwd: the two kernels above together");
                model_times(f, x);
                fprintf(f, "\n");
                continue;
            }
            fa_blocks bk = k ? x->blocks_bwd : x->blocks;
            char tiles[32], occ[64], prof[40];
            snprintf(tiles, sizeof tiles, "%" PRId64 "x%" PRId64, bk.block_r, bk.block_c);
            model_names(x, k, prof, sizeof prof, occ, sizeof occ);
            char rg[16] = "-", wp[16] = "-"; /* a fused kernel's registers and warps; '-' for the library
                                                GEMMs (eager, math): no kernel of their own */
            if (x->occupancy[k]) snprintf(rg, sizeof rg, "%d", x->regs_per_thread[k]);
            if (x->occupancy[k]) snprintf(wp, sizeof wp, "%d", x->warps[k]);
            int last = x->pass != FA_PASS_FWDBWD; /* the row carries the times (fwdbwd: the sum row below) */
            fprintf(f, "%-9s %-*s %9s %5s %10s %4s %-*s", fa_algo_name(x->algo), wpr, prof, tiles, wp,
                    x->occupancy[k] ? fa_fmt_bytes((double)x->smem_per_block[k], b[0], sizeof b[0]) : "-",
                    rg, last ? woc : 0, occ);
            if (last) model_times(f, x);
            fprintf(f, "\n");
        }
        if (x->splits > 1)
            fprintf(f, "          (%s: the forward splits the keys %d ways and combines: FlashAttention-2's split-KV "
                       "rule for a grid that would not fill the GPU; the partials are in HBM total and DRAM est)\n",
                    x->profile, x->splits);
        if (x->prepass_read_bytes && x->prepass_time_s > 0) {
            const double t = x->perf_time_s + x->prepass_time_s;
            fprintf(f, "          (%s_prepass, V -> V^T: %s read + %s written at the DRAM copy rate %sB/s + a %s launch = "
                       "%s, not in the time above; the kernel and its pre-pass: %s, %.1f TFLOP/s)\n", x->profile,
                    fa_fmt_bytes((double)x->prepass_read_bytes, b[0], 32), fa_fmt_bytes((double)x->prepass_write_bytes, b[1], 32),
                    fa_fmt_si(o->hw.dram_bandwidth, b[2], 32), fa_fmt_time(o->hw.launch_s, b[3], 32),
                    fa_fmt_time(x->prepass_time_s, b[4], 32), fa_fmt_time(t, b[5], 32),
                    t > 0 ? x->perf_tflops * x->perf_time_s / t : 0);
        }
    }
    /* the bound column, each of its words (docs/time-model.md, section 6) */
    fprintf(f, "bound: what sets the time: L2 or DRAM when its bytes / rate exceed the waves, else the tile's longer phase: "
               "softmax when S, the softmax phase (exp + fp32), is the longer, issue when S is the longer and set by the "
               "issue slots (the profile's measured warp instructions a tile / the schedulers' issue rate exceed exp + fp32), else G, the GEMM phase (the MMAs and their "
               "shared-memory operand loads), named by its busier pipe, tensor or smem (fp32 for SIMT GEMMs), or loads "
               "for a kernel that does not prefetch (kernels/ v1, v2); standard: its busiest pipe; the busiest pipe is "
               "the largest busy time above and can differ (fasim explain prints both; CSV and JSON: bound is this "
               "column, busiest_pipe that pipe); grid: the grid is under one wave (SMs sit idle, every pipe's busy time "
               "is below the time); launch: kernel launches take half the time or more; '+ tail': the last wave's tail adds over 10 %% (the waves take more "
               "than 1.1 x their time with every slot busy to the end; explain prints both), in both tables; a grid or launch "
               "row drops it (JSON keeps it, time_model.waves_add_over_10pct), as does CSV's bound\n");
    for (int i = 0; i < n; i++) /* eager, math, v0: no kernel of their own (as the report's kernels table says) */
        if (r[i].has_perf && r[i].algo == FA_ALGO_STANDARD && !r[i].occupancy[0] && !r[i].occupancy[1]) {
            char none[64] = ""; /* the pipes its model does not charge */
            for (int q = 0; q < 6; q++)
                if (!(r[i].perf_pipes >> q & 1)) {
                    size_t l = strlen(none);
                    snprintf(none + l, sizeof none - l, "%s%s", l ? ", " : "", fa_pipe_name((fa_pipe)q));
                }
            fprintf(f, "standard (%s): library GEMMs and separate kernels, no fused kernel: no warps, smem/blk, regs or "
                       "blocks/SM of its own ('-'); tiles: the GEMMs' assumed thread-block tile; pipes: each kernel is "
                       "timed alone by its GEMM FLOPs (%s), exponentials (exp) and DRAM bytes (docs/time-model.md, "
                       "\"Standard attention\"), so %s are not modelled ('-'; 0 in CSV and JSON)\n", r[i].profile,
                    r[i].perf_pipes >> FA_PIPE_FP32 & 1 ? "fp32: SGEMM on the FMA units, no TF32" : "tensor", none);
        }
    for (int i = 0; i < n; i++) io_bytes_notes(f, "", &r[i], o->shape.dtype);
}

/* total/Θ in the table: three significant digits below 1000 (6.92, 60.4), whole numbers above
 * (1820), so that the column reads alike; an exponent only beyond 10^8 */
static const char *ratio_text(double tot, double bound, char *buf, size_t size)
{
    const double k = tot / bound;
    snprintf(buf, size, k < 1000 ? "%.3g" : k < 1e8 ? "%.0f" : "%.3g", k);
    return buf;
}

/* Theorems 2 and 5 hold for d <= M <= N d: outside it the Theta expression is no lower bound (it can
 * fall below the bytes every algorithm moves), so total/Θ is no constant: say so under the table */
static void theta_range_note(FILE *f, const fa_shape *s, const fa_io_result *r, int n)
{
    double comp;
    const fa_pass p = r[0].pass;
    fa_theta_in_range(p, s, r[0].sram_bytes, &comp);
    const int64_t N = s->seqlen_q < s->seqlen_k ? s->seqlen_q : s->seqlen_k;
    const double e = fa_dtype_bytes(s->dtype);
    char b1[32];
    fprintf(f, "note: Theta bound: M = %" PRIu64 " B is outside %s's range d <= M <= N d (in bytes d e = %.0f to N d e = %.0f, "
               "N = min(N_q, N_k) = %" PRId64 "), where the Theta expression is no lower bound: every algorithm moves at "
               "least the compulsory bytes, %s once, %s (total / compulsory:",
            r[0].sram_bytes, p == FA_PASS_FWD ? "Theorem 2" : p == FA_PASS_BWD ? "Theorem 5" : "Theorems 2 and 5",
            (double)s->d * e, (double)N * (double)s->d * e, N,
            p == FA_PASS_FWD ? "Q, K, V, O" : p == FA_PASS_BWD ? "Q, K, V, O, dO, dQ, dK, dV" : "each pass's Q, K, V, O (dO, dQ, dK, dV)",
            fa_fmt_bytes(comp, b1, sizeof b1));
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %s %.3g", i ? "," : "", fa_algo_name(r[i].algo), (double)fa_counts_hbm_bytes(&r[i].counts) / comp);
    fprintf(f, ")\n");
}

/* ---- reader25: where a kernel profile does not run what its real kernel runs (items 1-4, 6 of
 * /work/notes/reader25_findings.md): one note each, after every other note of the table ---- */

/* FlashAttention-1's num_splits_heuristic_fwd (fmha_fwd_launch_template.h): the smallest S whose
 * wave efficiency is over 0.95 x the best for S <= max_splits */
static int fa1_splits_fwd(int64_t bh, int64_t slots, int max_splits)
{
    double best = 0, eff[32];
    if (max_splits > 30) max_splits = 30;
    for (int k = 1; k <= max_splits; k++) {
        double w = (double)(bh * k) / (double)slots;
        eff[k] = w / ceil(w);
        if (eff[k] > best) best = eff[k];
    }
    for (int k = 1; k <= max_splits; k++)
        if (eff[k] > 0.95 * best) return k;
    return 1;
}

/* FlashAttention-1's num_splits_heuristic_bwd (fmha_bwd_launch_template.h): 1, or one block per
 * key block (N_k / B_c) when that fills the waves better */
static int64_t fa1_splits_bwd(int64_t bh, int64_t slots, int64_t n_k, int64_t bc, int causal)
{
    double w1 = (double)bh / (double)slots, e1 = w1 / ceil(w1);
    int64_t par = n_k / bc;
    if (par < 1) return 1;
    double wp = (double)(bh * par) / (double)slots, ep = wp / ceil(wp), disc;
    if (!causal) disc = 1.0 + (double)bc / (double)n_k;
    else {
        if (par >= 10) return par;
        disc = 1.0 + 0.5 * (double)bc / (double)n_k;
    }
    return e1 >= ep / disc ? 1 : par;
}

static void io_kernel_gap_notes(FILE *f, const cli_opts *o, const fa_shape *s, const fa_io_result *r, int n)
{
    const int64_t e = fa_dtype_bytes(s->dtype), g = s->kv_heads > 0 ? s->heads / s->kv_heads : 1;
    char b1[32], b2[32], b3[32];
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        const char *an = fa_algo_name(x->algo), *pk = x->profile;
        const int fwd = x->pass != FA_PASS_BWD, bwd = x->pass != FA_PASS_FWD;
        /* 1: FlashAttention-1 splits the queries (forward) or the keys (backward) over more blocks */
        if (!strcmp(pk, "fa1") && x->has_perf && o->hw.sms > 0) {
            const int64_t bh = s->batch * s->heads;
            if (fwd && x->occupancy[0] > 0 && bh < (int64_t)o->hw.sms * x->occupancy[0]) {
                const int64_t slots = (int64_t)o->hw.sms * x->occupancy[0];
                /* the source's max_splits is min(30, (seqlen_q + M - 1 / M)): 1 / M is 0 in C++ */
                const int64_t mx = s->seqlen_q + x->blocks.block_r < 30 ? s->seqlen_q + x->blocks.block_r : 30;
                const int S = fa1_splits_fwd(bh, slots, (int)mx);
                if (S > 1)
                    fprintf(f, "note: %s (%s): the forward's grid is B*H = %" PRId64 " thread block%s, %.3g of a wave (%d SMs x "
                               "%d); FlashAttention-1's launcher (csrc/flash_attn/src/fmha_fwd_launch_template.h, "
                               "num_splits_heuristic_fwd) then launches grid (B, H, S = %d), each block taking 1/S of a "
                               "head's query steps and all its K, V, which the profile does not model: the forward time "
                               "above is up to ~%dx too long (its grid bound is the profile's, not FA1's); bytes as counted, "
                               "K, V's loads %dx (mostly L2 hits) (docs/time-model.md section 2)\n",
                            an, pk, bh, bh == 1 ? "" : "s", (double)bh / (double)slots, o->hw.sms, x->occupancy[0], S, S, S);
            }
            if (bwd && x->occupancy[1] > 0 && x->blocks_bwd.block_c > 0 &&
                bh < (int64_t)o->hw.sms * x->occupancy[1]) {
                const int64_t slots = (int64_t)o->hw.sms * x->occupancy[1];
                const int64_t S = fa1_splits_bwd(bh, slots, s->seqlen_k, x->blocks_bwd.block_c, s->causal != FA_CAUSAL_NONE);
                if (S > 1)
                    fprintf(f, "note: %s (%s): the backward's grid is B*H = %" PRId64 " thread block%s, %.3g of a wave; "
                               "FlashAttention-1 (fmha_bwd_launch_template.h, num_splits_heuristic_bwd) then runs its "
                               "sequence-parallel kernel, one block per key block (grid B x H x N_k / B_c = %" PRId64
                               "), dQ accumulated in fp32, which the profile does not model: the backward time above is "
                               "too long (docs/time-model.md section 2)\n",
                            an, pk, bh, bh == 1 ? "" : "s", (double)bh / (double)slots, S);
            }
        }
        /* 2: FlashAttention-1's kernel keeps O in fp32 o_tmp and one softmax_lse, not Algorithm 1's O, l, m */
        if (!strcmp(pk, "fa1") && x->pass == FA_PASS_FWD && fa_cdiv(s->seqlen_k, x->blocks.block_c) > 1) {
            const int to = fa_counts_find(&x->counts, "O"), tl = fa_counts_find(&x->counts, "l"),
                      tm = fa_counts_find(&x->counts, "m");
            if (to >= 0 && tl >= 0 && tm >= 0) {
                const fa_tensor_count *O = &x->counts.tensor[to];
                const uint64_t lm = x->counts.tensor[tl].read_bytes + x->counts.tensor[tl].write_bytes +
                                    x->counts.tensor[tm].read_bytes + x->counts.tensor[tm].write_bytes;
                fprintf(f, "note: %s (%s): the counts are Algorithm 1's; FlashAttention-1's kernel (fmha_api.cpp, "
                           "fmha_fprop_kernel_1xN.h) keeps the running O in an fp32 o_tmp (4 B an element%s, O counted "
                           "%s read + %s written at %d B), carries one fp32 softmax_lse a row for l and m (%s counted: "
                           "about half of it) and writes nothing before its key loop (Is_first; Algorithm 1 line 2 "
                           "writes O, l, m): its O traffic is larger and its statistics' smaller than counted "
                           "(docs/io-model.md section 3)\n",
                        an, pk, e < 4 ? (e == 2 ? ": 2x the O re-reads and re-writes" : ": 4x the O re-reads and re-writes") : "",
                        fa_fmt_bytes((double)O->read_bytes, b1, sizeof b1), fa_fmt_bytes((double)O->write_bytes, b2, sizeof b2),
                        (int)e, fa_fmt_bytes((double)lm, b3, sizeof b3));
            }
        }
        /* 3: FlashAttention-3 splits the keys and packs GQA at decode; the fa3/cudnn profiles do neither */
        if ((!strcmp(pk, "fa3") || !strcmp(pk, "cudnn")) && fwd && x->has_perf && x->blocks.block_r > 0 &&
            s->seqlen_q < x->blocks.block_r && x->splits <= 1 && !x->ngroups_swapped) {
            const int64_t grid = s->batch * s->heads * fa_cdiv(s->seqlen_q, x->blocks.block_r);
            char pack[256] = "";
            if (g > 1)
                snprintf(pack, sizeof pack, ", so each K,V head's keys are read by one block of its H/H_kv = %" PRId64
                         " query heads' rows, not %" PRId64 " times: K, V loads %" PRId64 "x the kernel's", g, g, g);
            fprintf(f, "note: %s (%s): N_q = %" PRId64 " fills %" PRId64 " of B_r = %" PRId64 " rows and the grid is %" PRId64
                       " thread blocks; FlashAttention-3 (hopper/flash_api.cpp) picks num_splits by its num_splits_heuristic "
                       "and packs GQA (get_pack_gqa, forced whenever num_splits > 1)%s%s; the %s profile does neither%s, so the "
                       "time above is too long (--profile fa2 swaps and splits; docs/time-model.md section 2)\n",
                    an, pk, s->seqlen_q, s->seqlen_q, x->blocks.block_r, grid, g > 1 ? "" : " when H > H_kv", pack, pk,
                    !strcmp(pk, "cudnn") ? " (cuDNN's own decode path, closed source, is not modelled)" : "");
        }
        /* 4: the DRAM rule's whole-head K,V working set, unchecked beyond N = 16k */
        if (x->has_perf && x->algo != FA_ALGO_STANDARD && (s->seqlen_q > 16384 || s->seqlen_k > 16384)) {
            const uint64_t base = x->dram_comp_bytes + x->layout_copy_bytes;
            if (x->dram_est_bytes > base && x->dram_est_bytes - base > x->dram_est_bytes / 10)
                fprintf(f, "note: %s (%s): DRAM est %s is compulsory %s + %s of re-reads the rule charges because the live "
                           "heads' whole K, V (or Q, dO) exceed the L2 (docs/time-model.md section 7); no measurement checks "
                           "it beyond N = 16384, and the resident blocks that share a head's K, V stream them nearly in "
                           "step (a reuse distance of a few tiles, well inside the L2): DRAM est%s likely too high\n",
                        an, pk, fa_fmt_bytes((double)x->dram_est_bytes, b1, sizeof b1),
                        fa_fmt_bytes((double)x->dram_comp_bytes, b2, sizeof b2),
                        fa_fmt_bytes((double)(x->dram_est_bytes - base), b3, sizeof b3),
                        x->perf_bound == FA_PIPE_DRAM ? " and the DRAM bound are" : " is");
        }
        /* 7: shapes FlashAttention-1's kernel does not run as counted (v1.0.9 csrc/flash_attn/fmha_api.cpp,
         * mha_fwd / mha_bwd): no window argument, K and V checked against num_heads (no GQA), head_size a
         * multiple of 8 and <= 128, run in the d = 32, 64 or 128 kernel (run_fmha_fwd: d <= 32, <= 64, <= 128) */
        if (!strcmp(pk, "fa1")) {
            if (s->window)
                fprintf(f, "note: %s (%s): FlashAttention-1's kernel has no sliding window (v1.0.9 fmha_api.cpp: mha_fwd and "
                           "mha_bwd take none): the counts and time above skip the window's tiles as Algorithm 1 with the "
                           "window would; the real kernel computes every tile, or every tile its causal mask "
                           "leaves (fasim io without --window counts that)\n", an, pk);
            if (g > 1) {
                const uint64_t kv = (uint64_t)(s->batch * s->kv_heads * s->seqlen_k * (s->d + s->d_v) * e);
                fprintf(f, "note: %s (%s): H = %" PRId64 " > H_kv = %" PRId64 ": FlashAttention-1 has no GQA or MQA (v1.0.9 "
                           "fmha_api.cpp checks K and V against num_heads: CHECK_SHAPE(k, total_k, num_heads, head_size)), so "
                           "its callers repeat K, V to the H query heads: %" PRId64 "x the K, V in HBM (%s, not %s) and %" PRId64
                           "x their loads; the counts above share K, V at H_kv (fasim io --kv-heads %" PRId64 " counts the "
                           "repeated shape)\n",
                        an, pk, s->heads, s->kv_heads, g, fa_fmt_bytes((double)kv * (double)g, b1, sizeof b1),
                        fa_fmt_bytes((double)kv, b2, sizeof b2), g, s->heads);
            }
            if (s->d % 8 || s->d > 128 || s->d_v % 8 || s->d_v > 128)
                fprintf(f, "note: %s (%s): FlashAttention-1 refuses d = %" PRId64 "%s (v1.0.9 fmha_api.cpp: head_size %% 8 == 0 "
                           "and head_size <= 128): no real kernel runs this shape; it is counted and timed as given\n",
                        an, pk, s->d % 8 || s->d > 128 ? s->d : s->d_v, s->d % 8 || s->d > 128 ? "" : " (d_v)");
            else {
                const int64_t dk = s->d <= 32 ? 32 : s->d <= 64 ? 64 : 128;
                if (dk != s->d)
                    fprintf(f, "note: %s (%s): FlashAttention-1 has no kernel for d = %" PRId64 ": it runs it in its d = %" PRId64
                               " kernel (v1.0.9 fmha_api.cpp run_fmha_fwd; FMHA_kernel_traits<B_c, %" PRId64 ", ...>), whose "
                               "shared memory, registers and MMA work are d = %" PRId64 "'s; fasim counts and times d = %" PRId64
                               " as given, so the real kernel's MMA work is up to %.2fx these and its occupancy may be lower "
                               "(docs/time-model.md section 2)\n",
                            an, pk, s->d, dk, dk, dk, s->d, (double)dk / (double)s->d);
            }
        }
        /* 8: FlashAttention-3's FP8 forward writes O in bf16 (hopper/flash_api.cpp at 0251105a: out_type) */
        if (!strcmp(pk, "fa3") && fwd && s->dtype == FA_DTYPE_E4M3) {
            const uint64_t o1 = (uint64_t)(s->batch * s->heads * s->seqlen_q * s->d_v);
            fprintf(f, "note: %s (%s): FlashAttention-3's FP8 forward writes O in bf16 (hopper/flash_api.cpp at 0251105a: "
                       "out_type = BFloat16 for e4m3 inputs), 2 B an element where the counts write O at 1 B: %s more "
                       "written than counted\n",
                    an, pk, fa_fmt_bytes((double)o1, b1, sizeof b1));
        }
        /* 6: FlashAttention-2's GQA backward: K, V per query head, dK, dV expanded and summed */
        if ((!strcmp(pk, "fa2") || !strcmp(pk, "sdpa_flash")) && bwd && g > 1) {
            const uint64_t kv = (uint64_t)(s->batch * s->kv_heads * s->seqlen_k * (s->d + s->d_v) * e);
            fprintf(f, "note: %s (%s): H = %" PRId64 " > H_kv = %" PRId64 ": FlashAttention-2's backward (flash_api.cpp, "
                       "mha_bwd) runs one block per query head on its kv head's K_j, V_j and writes dk_expanded, "
                       "dv_expanded (B, N_k, H, d), which at::sum_out reduces to dK, dV; the count shares K, V and dK, dV "
                       "at H_kv: the real backward reads K, V %" PRId64 "x and moves (3 x %" PRId64 " - 1) x %s = %s "
                       "more than counted (docs/io-model-backward.md section 3)\n",
                    an, pk, s->heads, s->kv_heads, g, g, fa_fmt_bytes((double)kv, b1, sizeof b1),
                    fa_fmt_bytes((double)kv * (double)(3 * g - 1), b2, sizeof b2));
        }
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
    /* a roofline in parentheses beside the time model's times, or in place of a kernel profile's
     * time it could not give (this GPU has no rate for its MMA); the paper's model's alone: plain */
    int mixed = 0, timed = 0, roof = 0, untimed = 0;
    for (int i = 0; i < n; i++) {
        timed |= r[i].has_perf, roof |= !r[i].has_perf;
        untimed |= !r[i].has_perf && r[i].profile[0] && strcmp(r[i].profile, "paper") != 0;
    }
    mixed = (timed && roof) || untimed;
    for (int i = 0; i < n; i++) {
        const fa_io_result *x = &r[i];
        uint64_t tot = fa_counts_hbm_bytes(&x->counts);
        double flops = (double)x->counts.flops_matmul + (double)x->counts.flops_other;
        char tbuf[40], tt[32];
        fa_fmt_time(x->has_perf ? x->perf_time_s : x->time_s, tt, sizeof tt);
        /* a roofline beside the time model's times: in parentheses (the legend under the table) */
        snprintf(tbuf, sizeof tbuf, mixed && !x->has_perf ? "(%s)" : "%s", tt);
        fprintf(f, "%-9s %5" PRId64 " %5" PRId64 " %7" PRId64 " %7" PRId64
                   " %11s %11s %11s %7s %11s %8s %10s %8.1f %10s %11s %7s%s\n",
                fa_algo_name(x->algo), x->blocks.block_r, x->blocks.block_c,
                fa_cdiv(s->seqlen_q, x->blocks.block_r), fa_cdiv(s->seqlen_k, x->blocks.block_c),
                fa_fmt_bytes((double)x->counts.hbm_read_bytes, b1, sizeof b1),
                fa_fmt_bytes((double)x->counts.hbm_write_bytes, b2, sizeof b2),
                fa_fmt_bytes((double)tot, b3, sizeof b3), formula_match(x) ? "yes" : "NO",
                fa_fmt_bytes(x->bound_bytes, b4, sizeof b4), ratio_text(tot, x->bound_bytes, b7, sizeof b7),
                fa_fmt_si(flops, b5, sizeof b5), x->intensity,
                fa_fmt_bytes((double)x->counts.sram_peak_bytes, b6, sizeof b6), tbuf,
                x->has_perf ? fa_report_bound(x)
                : x->time_compute_s > x->time_memory_s ? "compute" : "memory",
                x->has_perf && x->perf_tail && !x->perf_latency ? " + tail" : ""); /* as the time-model table */
        if (x->sram_overflow) /* this algorithm's own buffers exceed M (fa_run_algo) */
            fprintf(f, "  note: --blocks paper (B_r = %" PRId64 ", B_c = %" PRId64 "): %s's buffers need %" PRIu64
                       " B of SRAM, %" PRIu64 " B (%.1f%%) more than M = %" PRIu64
                       " B; counted with the SRAM enlarged to fit\n",
                    x->blocks.block_r, x->blocks.block_c, fa_algo_name(x->algo), x->sram_need, x->sram_overflow,
                    100.0 * (double)x->sram_overflow / (double)(x->sram_need - x->sram_overflow),
                    x->sram_need - x->sram_overflow);
    }
    if (n > 0 && !fa_theta_in_range(r[0].pass, s, r[0].sram_bytes, NULL)) theta_range_note(f, s, r, n);
    if (mixed)
        fprintf(f, "time in parentheses: the roofline max(FLOPs / peaks, HBM bytes / bandwidth) of a row no kernel profile "
                   "times here (notes below), its bound compute or memory%s\n",
                timed ? "; the others are the time model's (table below): the two are not comparable"
                      : ": not the time model's time");
    for (int i = 0; i < n; i++) /* a kernel's V -> V^T pre-pass (fa_profile.v_prepass): its own line */
        if (r[i].prepass_read_bytes)
            fprintf(f, "%-9s %-27s %11s %11s %11s  (B H_kv N_k d_v e each way; a kernel of its own, not in the %s row, "
                       "which reads V^T in V's place)\n", "pre-pass", "V -> V^T", fa_fmt_bytes((double)r[i].prepass_read_bytes, b1, sizeof b1),
                    fa_fmt_bytes((double)r[i].prepass_write_bytes, b2, sizeof b2),
                    fa_fmt_bytes((double)(r[i].prepass_read_bytes + r[i].prepass_write_bytes), b3, sizeof b3),
                    fa_algo_name(r[i].algo));
    for (int i = 0; i < n; i++) /* flash2 with --rescale-threshold (fa_shape.rescale_threshold) */
        if (o->given[O_RESCALE_THRESHOLD] && r[i].algo == FA_ALGO_FLASH2 && r[i].pass == FA_PASS_FWD &&
            r[i].counts.rescale_blocks)
            fprintf(f, "  rescales (threshold %g): %" PRIu64 " of %" PRIu64 " tile steps, %.2f per row block (max %" PRIu64
                       "): count-only mode sees no scores, so this is the upper bound (every tile, T_c per row block "
                       "without a mask), which increasing scores attain; fasim check --rescale-threshold counts them on "
                       "N(0, 1) inputs\n", s->rescale_threshold, r[i].counts.rescales, r[i].counts.rescale_steps,
                    (double)r[i].counts.rescales / (double)r[i].counts.rescale_blocks, r[i].counts.rescale_max);
    for (int i = 0; i < n; i++) { /* fwdbwd on a profile's tables: each pass on its own tiles */
        const fa_io_result *x = &r[i];
        if (x->pass != FA_PASS_FWDBWD || !x->blocks_bwd.block_r ||
            (x->blocks_bwd.block_r == x->blocks.block_r && x->blocks_bwd.block_c == x->blocks.block_c))
            continue;
        fprintf(f, "note: %s: B_r, B_c, T_r, T_c above are the forward kernel's; the backward's are %" PRId64 " x %" PRId64
                   " (T_r = %" PRId64 ", T_c = %" PRId64 "); HBM and =formula sum both passes, each on its own tiles\n",
                fa_algo_name(x->algo), x->blocks_bwd.block_r, x->blocks_bwd.block_c,
                fa_cdiv(s->seqlen_q, x->blocks_bwd.block_r), fa_cdiv(s->seqlen_k, x->blocks_bwd.block_c));
    }
    for (int i = 0; i < n; i++) /* FlashAttention-2's decoding with GQA: one row block per K,V head */
        if (r[i].ngroups_swapped)
            fprintf(f, "note: %s (%s): FlashAttention-2 runs one query row of H = %" PRId64 " heads as N_q = H / H_kv = %" PRId64
                       " rows of H_kv = %" PRId64 " heads (flash_api.cpp, seqlenq_ngroups_swapped), so each K,V head's keys are "
                       "read by one row block, not by each of its %" PRId64 " query heads: the counts, =formula and the time "
                       "above are that shape's (fasim io --decode calls it the packed order; docs/inference.md)\n",
                    fa_algo_name(r[i].algo), r[i].profile, s->heads, s->heads / s->kv_heads, s->kv_heads,
                    s->heads / s->kv_heads);
    for (int i = 0; i < n; i++) /* FlashAttention-2's split-KV kernel: other tiles, two more tensors, a second kernel */
        if (r[i].splits > 1 && r[i].pass != FA_PASS_BWD) {
            const int64_t T_c = fa_cdiv(s->seqlen_k, r[i].blocks.block_c);
            /* the row blocks FlashAttention-2's rule counts: of the swapped shape when it swapped */
            const int64_t rows_q = r[i].ngroups_swapped ? s->heads / s->kv_heads : s->seqlen_q,
                          heads_q = r[i].ngroups_swapped ? s->kv_heads : s->heads;
            fprintf(f, "note: %s (%s): FlashAttention-2's split-KV kernel: %s = %" PRId64 " row blocks would "
                       "not fill 0.8 x 2 x %d SMs, so its rule splits each row block's T_c = %" PRId64 " key tiles (%" PRId64
                       " x %" PRId64 ") in S = %d chunks of %" PRId64 "; every chunk writes an fp32 partial (O_part, LSE_part), "
                       "a combine kernel reads them back and writes O and LSE: all counted above (HBM, =formula, --breakdown; "
                       "docs/io-model.md, \"Split-KV\"); --block-r/--block-c count the unsplit kernel\n",
                    fa_algo_name(r[i].algo), r[i].profile,
                    r[i].ngroups_swapped ? "B*H_kv*ceil((H/H_kv)/64)" : "B*H*ceil(N_q/64)",
                    s->batch * heads_q * fa_cdiv(rows_q, 64), o->hw.sms, T_c,
                    r[i].blocks.block_r, r[i].blocks.block_c, r[i].splits, fa_cdiv(T_c, r[i].splits));
        }
    for (int i = 0; i < n; i++) { /* FlashAttention-2's and -3's kernels exist for a few head dims only */
        const int fa2 = !strcmp(r[i].profile, "fa2") || !strcmp(r[i].profile, "sdpa_flash"),
                  fa3 = !strcmp(r[i].profile, "fa3");
        if ((!fa2 && !fa3) || s->d > 256) continue;
        /* FlashAttention-2 (flash_api.cpp): d padded to a multiple of 8, then the next multiple of 32
         * up to 192, else 256; FlashAttention-3 (hopper/flash_api.cpp, round_up_headdim): 64, 96,
         * 128, 192 or 256 */
        const int64_t d8 = fa_cdiv(s->d, 8) * 8;
        const int64_t dk = fa2 ? (d8 <= 192 ? fa_cdiv(d8, 32) * 32 : 256)
                               : s->d <= 64 ? 64 : s->d <= 96 ? 96 : s->d <= 128 ? 128 : s->d <= 192 ? 192 : 256;
        if (dk == s->d) continue;
        fprintf(f, "note: %s (%s): FlashAttention-%d has no kernel for d = %" PRId64 ": it runs it in its d = %" PRId64
                   " kernel%s (%s); fasim counts and times d = %" PRId64 " as given, so the real kernel's MMA work is up "
                   "to %" PRId64 " / %" PRId64 " = %.2fx these (docs/time-model.md section 2)\n",
                fa_algo_name(r[i].algo), r[i].profile, fa2 ? 2 : 3, s->d, dk,
                fa2 && d8 != s->d ? ", on Q, K and V that its API pads to a multiple of 8" : "",
                fa2 ? "flash_api.cpp: the head dim rounded up to a multiple of 32 up to 192, else 256"
                    : "hopper/flash_api.cpp, round_up_headdim: 64, 96, 128, 192 or 256",
                s->d, dk, s->d, (double)dk / (double)s->d);
    }
    for (int i = 0; i < n; i++) { /* a tile row from another commit of the kernel than the rest of its table */
        if (!r[i].profile[0]) continue;
        char who[64];
        snprintf(who, sizeof who, "%s (%s)", fa_algo_name(r[i].algo), r[i].profile);
        const fa_blocks bwd = r[i].pass == FA_PASS_BWD ? r[i].blocks
                              : r[i].blocks_bwd.block_r ? r[i].blocks_bwd : r[i].blocks;
        io_tile_row_notes(f, "", who, fa_profile_find(r[i].profile), r[i].pass, o->hw.arch, s, r[i].blocks, bwd);
    }
    for (int i = 0; i < n; i++) /* FlashAttention-1/-2's released API: V's head dim = Q's (docs/time-model.md section 2) */
        if (s->d_v != s->d && (!strcmp(r[i].profile, "fa2") || !strcmp(r[i].profile, "fa1")))
            fprintf(f, "note: %s (%s): d_v = %" PRId64 " != d = %" PRId64 " counted as given; FlashAttention-2's released "
                       "API checks V's head dim against Q's, so its callers pad V (and O) to %" PRId64 " (--headdim-v %" PRId64
                       " counts that; docs/time-model.md section 2)\n", fa_algo_name(r[i].algo), r[i].profile, s->d_v, s->d,
                    s->d, s->d);
    if (o->model_note[0]) fprintf(f, "note: --model %s: %s\n", o->model_path, o->model_note);
    io_kernel_gap_notes(f, o, s, r, n); /* reader25: last of the notes */
    io_write_model(f, o, r, n);
    if (n > 0 && r[0].pass != FA_PASS_FWD) {
        fprintf(f, "\nHBM footprint (all %" PRId64 " x %" PRId64 " heads): kept between forward and backward / peak of the pass\n",
                s->batch, s->heads);
        for (int i = 0; i < n; i++)
            fprintf(f, "%-9s %11s / %11s   (%s)\n", fa_algo_name(r[i].algo),
                    fa_fmt_bytes((double)r[i].footprint.saved, b1, sizeof b1),
                    fa_fmt_bytes((double)fa_footprint_peak(&r[i].footprint, r[i].pass), b2, sizeof b2),
                    r[i].algo == FA_ALGO_STANDARD ? "Q, K, V, O and P (N_q x N_k per head)"
                    : r[i].algo == FA_ALGO_FLASH1 ? "Q, K, V, O, l and m"
                    : r[i].splits > 1 && r[i].footprint.fwd_peak > r[i].footprint.saved &&
                              fa_footprint_peak(&r[i].footprint, r[i].pass) == r[i].footprint.fwd_peak
                        ? "Q, K, V, O and LSE; the peak: the split-KV forward's fp32 partials O_part, LSE_part beside them"
                        : "Q, K, V, O and LSE");
    }
    int both = 0; /* rows with the time model's DRAM estimate and the L2 replay's */
    for (int i = 0; i < n; i++)
        if (r[i].has_l2) {
            char d1[32], d2[32], d3[32], at[96];
            /* at most the largest kernel's grid runs at once, whatever the slots */
            const int64_t run = r[i].l2_max_grid > 0 && r[i].l2_max_grid < r[i].l2_slots ? r[i].l2_max_grid : r[i].l2_slots;
            if (run < r[i].l2_slots)
                snprintf(at, sizeof at, "%" PRId64 " thread block%s at a time: the whole grid, under the %d slots of %d SMs",
                         run, run == 1 ? "" : "s", r[i].l2_slots, o->hw.sms);
            else
                snprintf(at, sizeof at, "%d thread block%s at a time: %d SMs x %d", r[i].l2_slots, r[i].l2_slots == 1 ? "" : "s",
                         o->hw.sms, o->hw.sms ? r[i].l2_slots / o->hw.sms : 0);
            fprintf(f, "%s%-9s L2 model (%s L2%s, %s): DRAM read %s + write %s = %s (SRAM<->L2 traffic is the HBM "
                       "column above)\n",
                    i == 0 ? "\n" : "", fa_algo_name(r[i].algo), fa_fmt_bytes((double)o->hw.l2_bytes, b7, sizeof b7),
                    r[i].l2_partitions > 1 ? " in 2 partitions" : "", at, fa_fmt_bytes((double)r[i].dram_read_bytes, d1, sizeof d1),
                    fa_fmt_bytes((double)r[i].dram_write_bytes, d2, sizeof d2),
                    fa_fmt_bytes((double)(r[i].dram_read_bytes + r[i].dram_write_bytes), d3, sizeof d3));
            both |= r[i].has_perf;
        }
    if (both) {
        fprintf(f, "note: two estimates of the same DRAM traffic, which differ: DRAM est (the time model's: standard, each "
                   "kernel's bytes, docs/time-model.md section 6; flash, compulsory + re-reads x (1 - hit), hit = min(1, L2 / "
                   "working set), section 7) and the L2 model's replay of every transfer through an LRU set-associative L2 in "
                   "launch order (docs/l2-model.md; fasim compare uses it where measured DRAM bytes exist):");
        for (int i = 0, k = 0; i < n; i++)
            if (r[i].has_l2 && r[i].has_perf) {
                char d1[32], d2[32];
                fprintf(f, "%s %s %s vs %s", k++ ? "," : "", fa_algo_name(r[i].algo),
                        fa_fmt_bytes((double)r[i].dram_est_bytes, d1, sizeof d1),
                        fa_fmt_bytes((double)(r[i].dram_read_bytes + r[i].dram_write_bytes), d2, sizeof d2));
            }
        fprintf(f, "; a re-read working set larger than the L2 keeps L2 / WS of its hits in the rule and none in LRU "
                   "order, and the rule charges standard's re-reads to DRAM while the replay finds some in the L2\n");
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

void cli_dump_json(const json_t *arr, FILE *f)
{
    json_dumpf(arr, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', f);
}
