/* cmd_report.c -- `fasim report`, the main job: real model shapes on the three hardware
 * profiles.  Tables on stdout; CSV and PNG plots (gnuplot scripts in plots/) under
 * build/report/ (or --out-dir).  Every file is opened before any is written and renamed into
 * place only at the end (cli_outset.h): a failed report leaves no file behind.  The numbers
 * are computed in analysis/report.c (fa_report.h); this file parses, calls, prints and writes. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_outset.h"
#include "fa_report.h"

static const char *const report_head =
    "usage: fasim report [--model FILE ...] [--hw KEY ...] [--seqlen N] [--batch B]\n"
    "                    [--pass fwd|bwd|fwdbwd] [--out-dir DIR] [--no-plots] [--quiet]\n"
    "  The main job.  For each model (default: every config.json in analysis/models/) on\n"
    "  each hardware profile (default a100, h100, h200), counts one causal attention layer's\n"
    "  forward pass with standard, flash1 and flash2, each run as its real kernel (the kernel\n"
    "  profiles eager, fa1, fa2: their tile tables and placement), and prints HBM bytes, the\n"
    "  estimated DRAM bytes, the time model's time, TFLOP/s and bound side by side\n"
    "  (docs/time-model.md).  Then the kernels table: every profile that runs on each GPU\n"
    "  (eager, math, fa1, fa2, fa3, cudnn, fa4) with tiles, placement, occupancy, time and bound\n"
    "  (kernels.csv), and the FlashAttention papers' figures beside the time model (FlashAttention\n"
    "  Figure 2, FlashAttention-2 Figure 4, FlashAttention-3 Figures 5-6, and FlashAttention-4\n"
    "  Figure 4 on the B200, fasim's numbers there predictions only: papers.csv).\n"
    "  Writes under DIR (default build/report) -- and removes the files of an earlier report there\n"
    "  that this run does not write (the report's own file names only) -- report.csv, kernels.csv,\n"
    "  papers.csv, and for the plots\n"
    "  hbm_vs_n_<model>.csv/.png (log-log, with the Theta lines), hbm_vs_sram.csv/.png and\n"
    "  hbm_vs_block.csv/.png (bytes and predicted time vs tile size; Llama-3-8B-like shape\n"
    "  on the last --hw, N = 8192).  N defaults to each model's max_position_embeddings.\n"
    "  Then training: forward + backward of GPT-2 medium's shape (B = 64, H = 16, N = 1024,\n"
    "  d = 64, fp16, causal) for the three algorithms, and the HBM footprint vs N with the N at\n"
    "  which each algorithm runs out of memory on each profile (memory_vs_n.csv/.png).\n"
    "  Then long context: the first model whose every layer has a sliding window (Mistral-7B; a model\n"
    "  that mixes full-attention layers in, as Gemma-2/3, is passed over), flash2 forward, N = 4k ..\n"
    "  256k, its window vs full causal attention on the last --hw (long_context.csv; when no model\n"
    "  qualifies the report says so and writes no long_context.csv).\n"
    "  Then decoding: Llama-3-8B (GQA 32/8, d = 128), N_q = 1, KV cache 1k .. 128k, batch 1\n"
    "  and 64: per-head vs GQA-packed, no split vs split-KV (decode.csv; docs/inference.md).\n"
    "  Then context parallelism: Llama-3-70B's attention (H = 64, H_kv = 8, d = 128, bf16, causal), one\n"
    "  layer's forward over P = 1, 2, 4, 8 GPUs of the last --hw at N = 128k .. 1M, ring, zigzag,\n"
    "  allgather and ulysses (cp.csv, cp_time_vs_p.png; docs/context-parallel.md).\n"
    "options:\n";

#define MAX_MODELS FA_REPORT_MAX_MODELS
#define MAX_HW FA_REPORT_MAX_HW

/* The outputs, opened up front: their indices in os (-1: not written by this run). */
typedef struct {
    const char *dir;
    int plots;
    int quiet;
    cli_outset os;
    int report, mem, mem_png, longctx, decode, kernels, papers, n_csv[MAX_MODELS], n_png[MAX_MODELS], sram, sram_png, block,
        block_png, cp, cp_png;
    int n_written;
    char written[64][1100]; /* listed at the end, in the order written */
} report_ctx;

/* Opens c->dir/name (png: for gnuplot, else for fprintf).  Its index, or -1 (message printed). */
static int out_file(report_ctx *c, const char *name, int png)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    return cli_outset_add(&c->os, path, !png);
}

static FILE *out_stream(report_ctx *c, int i) { return c->os.file[i].f; }

static void note_written(report_ctx *c, int i)
{
    if (c->n_written < 64) snprintf(c->written[c->n_written++], 1100, "%s", c->os.file[i].path);
}

/* A CSV is complete: flushed for gnuplot to read.  0, or EXIT_RUN (message printed). */
static int csv_done(report_ctx *c, int i)
{
    FILE *f = out_stream(c, i);
    if (fflush(f) != 0 || ferror(f)) {
        fprintf(stderr, "fasim: cannot write %s: %s\n", c->os.file[i].path, strerror(errno));
        return EXIT_RUN;
    }
    note_written(c, i);
    return 0;
}

/* gnuplot plots/<script> with vars (infile: the CSV's temporary, outfile: output png's); on
 * failure a warning and no PNG (the CSV stands). */
static void draw(report_ctx *c, const char *script, const char *vars, int png)
{
    if (cli_gnuplot(script, vars, NULL) == 0) {
        note_written(c, png);
    } else {
        fprintf(stderr, "fasim: warning: gnuplot could not render %s\n", c->os.file[png].path);
        fa_outset_drop(&c->os, png);
    }
}

/* N as the plots' axes write it: 512, 1k, 160k, 1M (k = 2^10, M = 2^20 tokens). */
static void n_label(int64_t N, char *buf, size_t n)
{
    if (N >= ((int64_t)1 << 20) && N % ((int64_t)1 << 20) == 0) snprintf(buf, n, "%" PRId64 "M", N >> 20);
    else if (N >= 1024 && N % 1024 == 0) snprintf(buf, n, "%" PRId64 "k", N >> 10);
    else snprintf(buf, n, "%" PRId64, N);
}

/* The key's note on a counted FlashAttention curve (algorithm a) that lies within 5 % of
 * standard's Theta(N d + N^2) line over at least three sampled N in a row (the longest such run):
 * two or three lines of at most about 125 characters (gnuplot's key below the plot), in
 * gnuplot's enhanced text with its quotes doubled for -e, into on[3]; "" where none lies on it.
 * Causal and without a window, flash1 moves about 3 N^2 d e / (2 B_c) bytes a head (Q re-read, O
 * read and written once per key block) and flash2 about N^2 d e / B_r (K, V re-read once per row
 * block), standard's line N^2 e: they coincide where 3 d / (2 B_c) or d / B_r is 1. */
static fa_status on_std_line(const fa_report_n_row *rows, int n, fa_algo a, const fa_shape *base, const fa_hw *hw,
                             int win, char on[3][200])
{
    on[0][0] = on[1][0] = on[2][0] = '\0';
    int best0 = -1, best_len = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && rows[j].theta_standard > 0 && fabs((double)rows[j].bytes[a] / rows[j].theta_standard - 1) <= 0.05) j++;
        if (j - i > best_len) best0 = i, best_len = j - i;
        i = j > i ? j : i + 1;
    }
    if (best_len < 3) return FA_OK;
    const int last = best0 + best_len - 1;
    char n0[24], n1[24];
    n_label(rows[best0].N, n0, sizeof n0);
    n_label(rows[last].N, n1, sizeof n1);
    const char *who = a == FA_ALGO_FLASH1 ? "FlashAttention-1" : "FlashAttention-2";
    char span[64];
    if (last == n - 1) snprintf(span, sizeof span, "from N = %s on", n0);
    else snprintf(span, sizeof span, "from N = %s to %s", n0, n1);
    snprintf(on[0], sizeof on[0], "   (%s''s counted curve lies on this line, within 5 %% %s (counted / Θ = %.2f at N = %s)%s",
             who, span, (double)rows[last].bytes[a] / rows[last].theta_standard, n1, win ? ")" : ":");
    if (win) return FA_OK; /* a windowed count crosses the line; the formula below is full causal attention's */
    fa_shape s = *base; /* the tiles at the run's last N */
    s.seqlen_q = s.seqlen_k = rows[last].N;
    fa_io_result r;
    FA_TRY(fa_report_count(FA_PASS_FWD, a, &s, hw->sram_per_block, hw, &r));
    if (a == FA_ALGO_FLASH1) {
        const double f = 3.0 * (double)s.d / (2.0 * (double)r.blocks.block_c);
        snprintf(on[1], sizeof on[1], "    causal, it re-reads Q and reads and writes O once per key block, about 3 N^2 d e / (2 B_c) bytes a head,");
        snprintf(on[2], sizeof on[2], "    = N^2 e %s 3 d / (2 B_c) = 3·%" PRId64 " / (2·%" PRId64 ") = %.3g)", fabs(f - 1) < 1e-9 ? "at" : "times",
                 s.d, r.blocks.block_c, f);
    } else if (r.blocks.block_r == s.d) {
        snprintf(on[1], sizeof on[1], "    causal, it re-reads K, V about N^2 d e / B_r bytes a head, = N^2 e at B_r = d = %" PRId64 ")", s.d);
    } else {
        snprintf(on[1], sizeof on[1], "    causal, it re-reads K, V about N^2 d e / B_r bytes a head, = N^2 e times d / B_r = %" PRId64
                 " / %" PRId64 " = %.3g)", s.d, r.blocks.block_r, (double)s.d / (double)r.blocks.block_r);
    }
    return FA_OK;
}

/* hbm_vs_n_<stem>.csv (model k): N, counted bytes of the three algorithms, the two Theta lines. */
static int sweep_n(report_ctx *c, int k, const fa_report_model *me, const fa_report_rows *rw, const fa_hw *hw)
{
    const fa_shape *base = &rw->s[0]; /* the full-attention layers when the model has two types */
    fa_report_n_row rows[FA_REPORT_N_ROWS];
    int n;
    fa_status st = fa_report_hbm_vs_n(base, hw, base->seqlen_q, rows, &n); /* with the model's N, which the key quotes */
    if (st) return cli_fail(st);
    const int csv = c->n_csv[k];
    fa_report_n_csv(out_stream(c, csv), rows, n);
    int rc = csv_done(c, csv);
    if (rc) return rc;
    if (c->plots) {
        char vars[8000], wtxt[64] = "", ltxt[200] = "", dvtxt[32] = "";
        const int64_t win = base->window && base->window_left >= 0 ? base->window_left + 1 : 0; /* keys a query sees */
        if (win) snprintf(wtxt, sizeof wtxt, " + sliding window of %" PRId64, win);
        if (rw->nkind == 2) /* the plot draws one type: say which, and where the other is */
            snprintf(ltxt, sizeof ltxt,
                     "drawn: the %" PRId64 " full-attention layers of %" PRId64 "; the %" PRId64
                     " sliding-window layers (w = %" PRId64 ") are in the stdout table",
                     rw->layers[0], me->m.layers, rw->layers[1], rw->s[1].window_left + 1);
        if (base->d_v != base->d) snprintf(dvtxt, sizeof dvtxt, ", d_v=%" PRId64, base->d_v);
        /* which d the Theta lines take: the Q, K head dim (d_v is not in the bounds) */
        char dword[96], dkey[96]; /* plain (the title) and gnuplot's enhanced text (the key) */
        if (base->d_v != base->d) {
            snprintf(dword, sizeof dword, "d = d_qk = %" PRId64 ", d_v = %" PRId64 " not in the bound", base->d, base->d_v);
            snprintf(dkey, sizeof dkey, "d = d_{qk} = %" PRId64 ", d_v = %" PRId64 " not in the bound", base->d, base->d_v);
        } else {
            snprintf(dword, sizeof dword, "d = %" PRId64, base->d);
            snprintf(dkey, sizeof dkey, "d = %" PRId64, base->d);
        }
        /* the curves are the paper's model (--profile paper, --blocks fit to M), at any d: the tiles
         * it picks at the model's own N, and each count over its Theta line there (the constant the
         * Theta hides), for the title and key; the stdout table counts each kernel's own tiles */
        fa_io_result r[FA_NALGO];
        for (int a = 0; a < FA_NALGO; a++)
            if ((st = fa_report_count(FA_PASS_FWD, (fa_algo)a, base, hw->sram_per_block, hw, &r[a]))) return cli_fail(st);
        const fa_blocks b1 = r[FA_ALGO_FLASH1].blocks, b2 = r[FA_ALGO_FLASH2].blocks;
        /* the window bound at the model's N: the full-attention one times min(w, N) / N */
        const double wf = win > 0 && win < base->seqlen_q ? (double)win / (double)base->seqlen_q : 1.0;
        /* the counted FlashAttention curves that lie on standard's Theta line, and why (the key) */
        char on1[3][200], on2[3][200];
        if ((st = on_std_line(rows, n, FA_ALGO_FLASH1, base, hw, win > 0, on1)) ||
            (st = on_std_line(rows, n, FA_ALGO_FLASH2, base, hw, win > 0, on2)))
            return cli_fail(st);
        /* Theorem 2's range starts at N = M / (d e): FlashAttention's line is drawn from the first sampled N there */
        const double nthm = (double)hw->sram_per_block / ((double)base->d * fa_dtype_bytes(base->dtype));
        char nfirst[24] = "";
        for (int i = 0; i < n && !nfirst[0]; i++)
            if ((double)rows[i].N >= nthm) n_label(rows[i].N, nfirst, sizeof nfirst);
        /* the model's N outside that range: counted / Θ is no constant of the algorithm there, so the
         * key gives counted / compulsory (Q, K, V, O once) beside it, as fasim io and explain do */
        double comp = 0;
        const int outside = !fa_theta_in_range(FA_PASS_FWD, base, hw->sram_per_block, &comp);
        char mb[32];
        snprintf(vars, sizeof vars,
                 "thmout=%d; kstd=%.17g; kf1=%.17g; kf2=%.17g; "
                 "infile='%s'; outfile='%s'; win=%" PRId64 "; nmod=%" PRId64 "; cstd=%.17g; cf1=%.17g; cf2=%.17g; "
                 "cw1=%.17g; cw2=%.17g; nthm=%.17g; nfirst='%s'; ebytes=%d; nheads=%" PRId64 "; "
                 "on1a='%s'; on1b='%s'; on1c='%s'; on2a='%s'; on2b='%s'; on2c='%s'; dword='%s'; dkey='%s'; "
                 "ttl='%s: HBM bytes of one %s layer vs N (%s, %s, causal%s, B=%" PRId64 ", H=%" PRId64 ", H_kv=%" PRId64
                 ", d=%" PRId64 "%s)'; "
                 "ttl4='%s'; "
                 "ttl2='curves: the paper''s model, any d (--profile paper, --blocks fit to M = %s: flash1 %" PRId64
                 " x %" PRId64 ", flash2 %" PRId64 " x %" PRId64 " at N = %" PRId64 ")'; "
                 "ttl3='not the kernels: the stdout table counts each kernel''s own tiles (none where a kernel lacks this d)'",
                 outside, (double)fa_counts_hbm_bytes(&r[FA_ALGO_STANDARD].counts) / comp,
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_FLASH1].counts) / comp,
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_FLASH2].counts) / comp,
                 fa_outset_target(&c->os, csv), fa_outset_target(&c->os, c->n_png[k]), win, base->seqlen_q,
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_STANDARD].counts) / r[FA_ALGO_STANDARD].bound_bytes,
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_FLASH1].counts) / r[FA_ALGO_FLASH1].bound_bytes,
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_FLASH2].counts) / r[FA_ALGO_FLASH2].bound_bytes,
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_FLASH1].counts) / (r[FA_ALGO_FLASH1].bound_bytes * wf),
                 (double)fa_counts_hbm_bytes(&r[FA_ALGO_FLASH2].counts) / (r[FA_ALGO_FLASH2].bound_bytes * wf),
                 nthm, nfirst, fa_dtype_bytes(base->dtype), base->batch * base->heads,
                 on1[0], on1[1], on1[2], on2[0], on2[1], on2[2], dword, dkey, me->m.name,
                 rw->nkind == 2 ? "full-attention" : "attention", hw->name, fa_dtype_name(base->dtype), wtxt,
                 base->batch, base->heads, base->kv_heads, base->d, dvtxt, ltxt,
                 fa_fmt_bytes((double)hw->sram_per_block, mb, 32),
                 b1.block_r, b1.block_c, b2.block_r, b2.block_c, base->seqlen_q);
        draw(c, "hbm_vs_n.gp", vars, c->n_png[k]);
    }
    return 0;
}

/* hbm_vs_sram.csv: M from 48 KiB to 4 MiB for the three algorithms; the plot marks each GPU's M. */
static int sweep_sram(report_ctx *c, const char *name, const fa_shape *s, const fa_hw *hw, int nh)
{
    const fa_hw *ph = &hw[nh - 1];
    fa_report_sram_row rows[FA_REPORT_SRAM_ROWS];
    int n;
    fa_status st = fa_report_hbm_vs_sram(s, ph, rows, &n);
    if (st) return cli_fail(st);
    fa_report_sram_csv(out_stream(c, c->sram), rows, n);
    int rc = csv_done(c, c->sram);
    if (rc) return rc;
    if (c->plots) {
        char vars[4000], gm[256] = "", gl[512] = "";
        /* each GPU's shared memory per block M: one line per distinct M, its GPUs' names joined
         * with '+' (gnuplot's word() splits on blanks) */
        for (int h = 0; h < nh; h++) {
            int first = 1;
            for (int j = 0; j < h; j++) first &= hw[j].sram_per_block != hw[h].sram_per_block;
            if (!first) continue;
            size_t lm = strlen(gm), l = strlen(gl);
            snprintf(gm + lm, sizeof gm - lm, "%s%" PRIu64, lm ? " " : "", hw[h].sram_per_block);
            for (int j = h; j < nh; j++)
                if (hw[j].sram_per_block == hw[h].sram_per_block) {
                    l = strlen(gl);
                    snprintf(gl + l, sizeof gl - l, "%s%.47s", l == 0 ? "" : (j == h ? " " : "+"), hw[j].name);
                }
        }
        /* standard's bound B H (N d + N^2) e: no M in it (the plot's flat line); mthm = N d e, the
         * M where Theorem 2's range d <= M <= N d ends (N = min(N_q, N_k)): FlashAttention's Θ line
         * stops there, as hbm_vs_n's starts at N = M / (d e) */
        const double mthm = (double)(s->seqlen_q < s->seqlen_k ? s->seqlen_q : s->seqlen_k) * (double)s->d *
                            fa_dtype_bytes(s->dtype);
        snprintf(vars, sizeof vars,
                 "infile='%s'; outfile='%s'; thstd=%.17g; mthm=%.17g; gpum='%s'; gpun='%s'; ebytes=%d; nheads=%" PRId64 "; "
                 /* three short lines (one long first line ran past the right edge) */
                 "ttl='%s: HBM bytes vs SRAM size M'; ttl3='N = %" PRId64 ", B = %" PRId64 ", H = %" PRId64
                 ", H_kv = %" PRId64 ", d = %" PRId64 ", %s, %s, forward, on %s'; "
                 "ttl2='the paper''s abstract model (--profile paper): every on-chip buffer in one SRAM of M bytes, "
                 "tiles by --blocks fit'",
                 fa_outset_target(&c->os, c->sram), fa_outset_target(&c->os, c->sram_png),
                 fa_bound_bytes(FA_ALGO_STANDARD, s, ph->sram_per_block), mthm, gm, gl, fa_dtype_bytes(s->dtype),
                 s->batch * s->heads, name, s->seqlen_q, s->batch, s->heads, s->kv_heads,
                 s->d, fa_dtype_name(s->dtype), s->causal != FA_CAUSAL_NONE ? "causal" : "not causal", ph->name);
        draw(c, "hbm_vs_sram.gp", vars, c->sram_png);
    }
    return 0;
}

/* hbm_vs_block.csv: square tiles B_r = B_c = 16, 32, ... as long as they fit M. */
static int sweep_block(report_ctx *c, const char *name, const fa_shape *s, const fa_hw *hw)
{
    fa_report_block_row rows[FA_REPORT_BLOCK_ROWS];
    int n;
    fa_status st = fa_report_hbm_vs_block(s, hw, rows, &n);
    if (st) return cli_fail(st);
    fa_report_block_csv(out_stream(c, c->block), rows, n);
    int rc = csv_done(c, c->block);
    if (rc) return rc;
    if (c->plots) {
        char vars[4000], mb[32];
        snprintf(vars, sizeof vars,
                 "infile='%s'; outfile='%s'; ttl='%s, N = %" PRId64 ", B = %" PRId64 ", H = %" PRId64 ", H_kv = %" PRId64
                 ", d = %" PRId64 ", %s, %s, forward, on %s (M = %s)'; ttl2='HBM bytes and roofline time vs the tile size B_r = B_c, "
                 "in the paper''s model (--profile paper: every buffer in one SRAM of M;'; "
                 "ttl3='time = max(FLOPs / peak, bytes / %.3g TB/s, the datasheet HBM bandwidth)), not the kernel time model of the stdout tables'; "
                 "ttl4='(which charges the sustained DRAM rate, %.3g TB/s)'",
                 fa_outset_target(&c->os, c->block), fa_outset_target(&c->os, c->block_png), name, s->seqlen_q,
                 s->batch, s->heads, s->kv_heads, s->d, fa_dtype_name(s->dtype),
                 s->causal != FA_CAUSAL_NONE ? "causal" : "not causal", hw->name,
                 fa_fmt_bytes((double)hw->sram_per_block, mb, sizeof mb), hw->hbm_bandwidth / 1e12,
                 (hw->dram_bandwidth > 0 ? hw->dram_bandwidth : hw->hbm_bandwidth) / 1e12);
        draw(c, "hbm_vs_block.gp", vars, c->block_png);
    }
    return 0;
}

static int training(report_ctx *c, const fa_hw *hw, int nh)
{
    const fa_hw *ph = &hw[nh - 1];
    fa_io_result r[FA_NPASS][FA_NALGO];
    fa_status st = fa_report_training(ph, r);
    if (st) return cli_fail(st);
    char b[8][32];
    if (!c->quiet) {
        printf("== training: GPT-2 medium attention, B = 64, H = 16, N = 1024, d = 64, fp16, causal; "
               "one layer, forward + backward on %s (each algorithm's kernel profile and tiles: eager, fa1, fa2)\n",
               ph->name);
        printf("%-9s %11s %11s %11s %8s %12s %8s %11s %8s %11s %11s\n", "algo", "fwd HBM", "bwd HBM",
               "fwd+bwd HBM", "vs std", "matmul FLOPs", "FLOP/B", "time", "vs std", "kept fwd->bwd", "HBM peak");
        int roof = 0; /* rows timed by the roofline (no time model for their profile on this GPU) */
        for (int a = 0; a < FA_NALGO; a++) {
            const fa_io_result *f = &r[FA_PASS_FWD][a], *bw = &r[FA_PASS_BWD][a], *fb = &r[FA_PASS_FWDBWD][a];
            const fa_io_result *sd = &r[FA_PASS_FWDBWD][FA_ALGO_STANDARD];
            double by = (double)fa_counts_hbm_bytes(&fb->counts);
            /* the matmul FLOPs (the softmax FLOPs apart: report.csv's and `fasim io`'s flops_other) */
            const double mm = (double)fb->counts.flops_matmul;
            char vt[16] = "-"; /* like with like: no ratio of a roofline to the time model */
            if (sd->has_perf == fb->has_perf) snprintf(vt, sizeof vt, "%.2fx", fa_report_time(sd) / fa_report_time(fb));
            char tt[40];
            /* a roofline in parentheses, as in fasim io and the models' tables */
            snprintf(tt, sizeof tt, fb->has_perf ? "%s" : "(%s)", fa_fmt_time(fa_report_time(fb), b[4], 32));
            if (!fb->has_perf) roof++;
            printf("%-9s %11s %11s %11s %7.2fx %12s %8.1f %11s %8s %11s %11s\n", fa_algo_name((fa_algo)a),
                   fa_fmt_bytes((double)fa_counts_hbm_bytes(&f->counts), b[0], 32),
                   fa_fmt_bytes((double)fa_counts_hbm_bytes(&bw->counts), b[1], 32), fa_fmt_bytes(by, b[2], 32),
                   (double)fa_counts_hbm_bytes(&sd->counts) / by,
                   fa_fmt_si(mm, b[3], 32), by > 0 ? mm / by : 0.0, tt, vt,
                   fa_fmt_bytes((double)fb->footprint.saved, b[5], 32),
                   fa_fmt_bytes((double)fa_footprint_peak(&fb->footprint, FA_PASS_FWDBWD), b[6], 32));
        }
        if (roof)
            printf("(time in parentheses: a roofline, max(FLOPs / peaks, bytes / bandwidth), not the time model: that kernel profile\n"
                   " has no pipe rates on %s (%s); a roofline is set against no time-model time ('vs std': -).)\n",
                   ph->name, r[FA_PASS_FWDBWD][FA_ALGO_FLASH2].perf_note[0] ? r[FA_PASS_FWDBWD][FA_ALGO_FLASH2].perf_note
                   : r[FA_PASS_FWDBWD][FA_ALGO_FLASH1].perf_note);
        const fa_io_result *b1 = &r[FA_PASS_BWD][FA_ALGO_FLASH1], *b2 = &r[FA_PASS_BWD][FA_ALGO_FLASH2];
        if (fa_counts_hbm_bytes(&b1->counts) < fa_counts_hbm_bytes(&b2->counts))
            printf("(flash1 moves fewer bytes than flash2 here, in its backward: flash2 accumulates dQ in fp32 in HBM,\n"
                   " read and written on every visit of a key block (4 B an element each way, against flash1's fp16 dQ),\n"
                   " and its tiles (%" PRId64 " x %" PRId64 ", T_c = %" PRId64 ") visit each row block %s than flash1's\n"
                   " (%" PRId64 " x %" PRId64 ", T_c = %" PRId64 "); docs/io-model-backward.md.%s%s%s\n"
                   " kept fwd->bwd: everything the forward leaves in HBM for the backward, the inputs included:\n"
                   " standard Q, K, V, O and P (P: N x N per head, 2 GiB of its 2.5 GiB here), flash1 Q, K, V, O, l\n"
                   " and m, flash2 Q, K, V, O and LSE.  matmul FLOPs: the GEMMs' (Q K^T, P V; the backward's four,\n"
                   " and flash's fifth that recomputes S), FMA = 2, of the tiles each computes (standard: every tile,\n"
                   " the mask skips none; flash: its own tiles' causal visits); FLOP/B = matmul\n"
                   " FLOPs / fwd+bwd HBM; the softmax's exp, max and rescale FLOPs apart (fasim io: flops_other).\n"
                   " HBM peak: the largest HBM footprint of the step, inputs and gradients included (memory, below).)\n",
                   b2->blocks.block_r, b2->blocks.block_c, fa_cdiv(1024, b2->blocks.block_c),
                   b2->blocks.block_c < b1->blocks.block_c ? "more often" : "as often", b1->blocks.block_r,
                   b1->blocks.block_c, fa_cdiv(1024, b1->blocks.block_c),
                   fa_report_time(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH2]) < fa_report_time(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH1])
                       ? "  Bytes are not time:\n flash2 is faster all the same (fewer matmul FLOPs; the time model's busiest pipe: "
                       : "",
                   fa_report_time(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH2]) < fa_report_time(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH1])
                       ? fa_report_bound(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH2]) : "",
                   fa_report_time(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH2]) < fa_report_time(&r[FA_PASS_FWDBWD][FA_ALGO_FLASH1])
                       ? ", docs/time-model.md)." : "");
        printf("\n");
    }
    /* memory_vs_n.csv: HBM peak of one training step vs N at B x H = 64 x 16 */
    fa_report_mem_row mrows[FA_REPORT_MEM_ROWS];
    int nr;
    if ((st = fa_report_memory_vs_n(mrows, &nr))) return cli_fail(st);
    fa_report_mem_csv(out_stream(c, c->mem), mrows, nr, hw, nh);
    int rc = csv_done(c, c->mem);
    if (rc) return rc;
    if (!c->quiet) {
        double at2, at4;
        if ((st = fa_report_memory_ratio(&at2, &at4))) return cli_fail(st);
        printf("== memory: HBM peak of one training step (fwd + bwd), GPT-2 medium's attention, B x H = 64 x 16, d = 64, fp16\n"
               "   (one attention layer's tensors only: no weights, no other layers, no optimizer state)\n");
        printf("standard / flash2: %.1fx at N = 2k, %.1fx at N = 4k (standard keeps P, N x N per head)\n", at2, at4);
        printf("%-15s %12s %14s %14s %14s\n", "hardware", "memory", "standard OOM N", "flash1 OOM N", "flash2 OOM N");
        for (int h = 0; h < nh; h++) {
            int64_t n[FA_NALGO];
            if ((st = fa_report_oom(&hw[h], n))) return cli_fail(st);
            char nb[FA_NALGO][24];
            for (int a = 0; a < FA_NALGO; a++) {
                if (!hw[h].hbm_capacity) snprintf(nb[a], 24, "unknown");
                else if (n[a] == 0) snprintf(nb[a], 24, "none < 2^31");
                else snprintf(nb[a], 24, "%" PRId64, n[a]);
            }
            printf("%-15s %12s %14s %14s %14s\n", hw[h].name,
                   hw[h].hbm_capacity ? fa_fmt_bytes((double)hw[h].hbm_capacity, b[7], 32) : "unknown", nb[0], nb[1], nb[2]);
        }
        printf("(OOM N: the smallest N whose fwd + bwd peak exceeds the device memory.  flash2's peak is above\n"
               " flash1's because its backward holds dQ in an fp32 accumulator, 4 N d bytes a head, beside dQ\n"
               " itself.  The statistics pull the other way, by less: flash2 keeps one fp32 value a row (LSE,\n"
               " 4 N bytes a head) where flash1 keeps two (l, m, 8 N bytes), a saving of 4 N against the\n"
               " accumulator's 4 N d; docs/io-model-backward.md, \"Memory footprint\".)\n\n");
    }
    if (c->plots) {
        char vars[4000], names[256] = "";
        int ncap = 0; /* the GPUs whose memory is known: memory_vs_n.csv's capacity columns */
        for (int h = 0; h < nh; h++) {
            size_t l = strlen(names), k = strlen(hw[h].name);
            if (!hw[h].hbm_capacity || l + k + 2 >= sizeof names) continue;
            if (ncap++) names[l++] = ' ';
            memcpy(names + l, hw[h].name, k + 1);
        }
        snprintf(vars, sizeof vars, "infile='%s'; outfile='%s'; ncap=%d; capnames='%s'; ttl='HBM peak of one training step vs N "
                 "(forward + backward, B x H = 64 x 16, d = 64, fp16, causal)'; "
                 "ttl3='GPT-2 medium''s attention: one layer''s tensors only (no weights, no other layers)'; ttl2='kept for the backward: standard Q, K, V, O and P, "
                 "FlashAttention-1 Q, K, V, O, l and m, FlashAttention-2 Q, K, V, O and LSE'",
                 fa_outset_target(&c->os, c->mem), fa_outset_target(&c->os, c->mem_png), ncap, names);
        draw(c, "memory_vs_n.gp", vars, c->mem_png);
    }
    return 0;
}

/* After the commit: removes from c->dir every regular file the report owns (fa_report_owns_file:
 * its own file names only) that this run did not write -- an earlier run's hbm_vs_n_<stem> of a
 * model not given now, its PNGs after --no-plots, its long_context.csv when no model has a window
 * on every layer -- so the directory holds one run's outputs; and the temporaries of those names,
 * NAME.tmp.PID (fa_report_owns_temporary), that a report killed while writing left, when process
 * PID no longer runs (another report writing the folder now keeps its own).  The first max names
 * of each kind go to removed and removed_tmp, their counts to *n_tmp and the return value (a file
 * that cannot be removed stays, with a warning). */
static int remove_stale(report_ctx *c, char (*removed)[300], char (*removed_tmp)[300], int max, int *n_tmp)
{
    *n_tmp = 0;
    DIR *dir = opendir(c->dir);
    if (!dir) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        long pid = 0;
        const int tmp = fa_report_owns_temporary(e->d_name, &pid);
        if (!tmp && !fa_report_owns_file(e->d_name)) continue;
        /* a temporary of a process that runs (kill 0: it exists, or EPERM: another user's) stays */
        if (tmp && pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name);
        int mine = 0;
        for (int i = 0; i < c->n_written && !mine; i++) mine = !strcmp(c->written[i], path);
        struct stat st;
        if (mine || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (unlink(path) != 0) {
            fprintf(stderr, "fasim: warning: cannot remove %s, %s: %s\n", path,
                    tmp ? "an interrupted report's temporary" : "an earlier report's file", strerror(errno));
            continue;
        }
        int *k = tmp ? n_tmp : &n;
        if (*k < max) snprintf((tmp ? removed_tmp : removed)[*k], 300, "%s", e->d_name);
        (*k)++;
    }
    closedir(dir);
    return n;
}

/* The sliding window's savings at long context: flash2, causal, full vs windowed, fwd. */
static int long_context(report_ctx *c, const fa_report_model *me, const fa_hw *hw)
{
    const fa_model *m = &me->m;
    fa_report_long_row rows[FA_REPORT_LONG_ROWS];
    int n;
    fa_status st = fa_report_long_context(m, hw, rows, &n); /* on failure, the rows before it */
    fa_report_long_csv(out_stream(c, c->longctx), rows, n, m->sliding_window);
    const int timed = n > 0 && rows[0].timed; /* else both times are rooflines (no time model here) */
    if (!c->quiet) {
        printf("== long context: %s with its sliding window of %" PRId64 " tokens vs full causal attention; "
               "flash2 forward (the fa2 kernel profile, as the tables above), one layer, B = 1, on %s\n",
               m->name, m->sliding_window, hw->name);
        printf("%8s %12s %12s %8s %12s %12s %10s %10s %8s\n", "N", "full HBM", "window HBM", "saved",
               "full FLOPs", "win FLOPs", timed ? "full time" : "full roof.", timed ? "win time" : "win roof.", "speedup");
    }
    for (int i = 0; i < n; i++) {
        const fa_report_long_row *x = &rows[i];
        double bf = (double)x->full_bytes, bw = (double)x->window_bytes;
        double ff = (double)x->full_flops, fw = (double)x->window_flops;
        if (!c->quiet) {
            char b[6][32];
            printf("%8" PRId64 " %12s %12s %7.1f%% %12s %12s %10s %10s %7.2fx\n", x->N, fa_fmt_bytes(bf, b[0], 32),
                   fa_fmt_bytes(bw, b[1], 32), 100.0 * (1.0 - bw / bf), fa_fmt_si(ff, b[2], 32), fa_fmt_si(fw, b[3], 32),
                   fa_fmt_time(x->full_time_s, b[4], 32), fa_fmt_time(x->window_time_s, b[5], 32),
                   x->full_time_s / x->window_time_s);
        }
    }
    if (st) return cli_fail(st);
    if (!c->quiet) {
        char roof[200];
        snprintf(roof, sizeof roof, "both rooflines, max(FLOPs / peaks, bytes / %.3g TB/s, the datasheet HBM bandwidth):\n"
                 " the fa2 profile has no time model on this GPU (no mma.sync rate)", hw->hbm_bandwidth / 1e12);
        printf("(FLOPs: the matmul FLOPs (Q K^T and P V, FMA = 2) of the tiles flash2 visits: causal, or causal\n"
               " and the window; up to N = w = %" PRId64 " the window drops no key, so both agree.  saved = 1 - window\n"
               " HBM / full HBM, speedup = full time / win time, %s.)\n\n",
               m->sliding_window, timed ? "each time the fa2 profile's (docs/time-model.md)" : roof);
    }
    return csv_done(c, c->longctx);
}

/* hw has key k (a100, h100, h200, b200): 1 or 0. */
static int has_hw(const fa_hw *hw, int nh, const char *k)
{
    for (int h = 0; h < nh; h++)
        if (!strcmp(hw[h].key, k)) return 1;
    return 0;
}

/* Appends ", NAME" (or NAME first) to a list buffer. */
static void list_add(char *buf, size_t n, const char *name)
{
    size_t l = strlen(buf), m = strlen(name);
    if (l + 2 + m >= n) return; /* no room: the list as it is */
    if (l) memcpy(buf + l, ", ", 2), l += 2;
    memcpy(buf + l, name, m + 1);
}

/* Prints text as the report's notes: words (separated by blanks or newlines) filled into lines of
 * at most 106 columns, each line after the first indented by one blank; a '\v' starts a new line
 * (a paragraph of the notes). */
static void wrap_print(const char *text)
{
    int col = 0;
    for (const char *p = text; *p;) {
        if (*p == '\v') { /* a paragraph: a new line */
            if (col) putchar('\n'), col = 0;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\n') {
            p++;
            continue;
        }
        size_t w = strcspn(p, " \n\v");
        const int close = w == 1 && *p == ')'; /* a closing parenthesis ends the word before it */
        if (col && !close && col + 1 + (int)w > 106) putchar('\n'), col = 0;
        if (col && !close) putchar(' '), col++;
        else if (!col && p != text) putchar(' '), col++;
        fwrite(p, 1, w, stdout);
        col += (int)w;
        p += w;
    }
    if (col) putchar('\n');
}

/* The notes under the kernels tables: what every table has, then what applies to the GPUs asked
 * for -- which kernels have no row where, the H100 against the H200, each GPU's DRAM rate.
 * missing[h][q]: kernel fa_report_kernel_keys[q] has no row on hw[h] for some model. */
/* Why kernel key has no row on a GPU of arch: 1 Hopper only (fa3, cudnn), 2 Blackwell only (fa4), 3 the
 * GPU's profile cannot time it (fa1, fa2 on Blackwell), 0 the model's shape (no tile for its head dim,
 * or tiles over its shared memory). */
static int no_row_reason(const char *key, int arch)
{
    if ((!strcmp(key, "fa3") || !strcmp(key, "cudnn")) && arch != 90) return 1;
    if (!strcmp(key, "fa4") && arch < 100) return 2;
    if ((!strcmp(key, "fa1") || !strcmp(key, "fa2")) && arch >= 100) return 3;
    return 0;
}

static void kernels_footnote(const fa_hw *hw, int nh, int missing[][FA_REPORT_NKERNELS],
                             char shape_miss[][400])
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    fprintf(m, "(The kernels tables hold the published kernels' profiles -- eager, math, fa1, fa2, fa3, cudnn, fa4;\n"
               " kernels/ v0-v5 and sdpa_flash are timed by fasim io --model FILE --profile KEY.\n"
               " eager, math: standard attention as separate kernels (GEMMs, a softmax), no one fused kernel: no\n"
               " warps, smem/blk, regs or blocks/SM of its own ('-'; kernels.csv writes 0).  Their tiles are the thread-block\n"
               " tile fasim assumes for the library GEMMs S = Q K^T and O = P V (cuBLAS's 128 x 128 up to d = 128,\n"
               " 64 x 64 to d = 256, smaller beyond, to fit M): they set how often those GEMMs re-read K and V and\n"
               " nothing else.");
    /* the kernels without a row, and why: by the kinds of kernel missing */
    char none[2000] = "";
    int hopper = 0, blackwell = 0, untimed = 0, other = 0;
    for (int q = 0; q < FA_REPORT_NKERNELS; q++) {
        char where[200] = "";
        for (int h = 0; h < nh; h++)
            if (missing[h][q]) {
                list_add(where, sizeof where, hw[h].name);
                const int why = no_row_reason(fa_report_kernel_keys[q], hw[h].arch);
                hopper |= why == 1, blackwell |= why == 2, untimed |= why == 3, other |= why == 0;
            }
        if (!where[0]) continue;
        char one[4000];
        /* a kernel missing for the models' shapes: which models (their head dims) */
        snprintf(one, sizeof one, "%s%s on %s%s%s%s", none[0] ? "; " : "", fa_report_kernel_keys[q], where,
                 shape_miss[q][0] ? " for the models " : "", shape_miss[q],
                 shape_miss[q][0] ? " only (their config files' names under analysis/models/)" : "");
        if (strlen(none) + strlen(one) < sizeof none) strcat(none, one);
    }
    if (none[0]) {
        fprintf(m, "\v No row: %s (", none);
        int k = 0;
        if (hopper) fprintf(m, "%sfa3 and cudnn run on Hopper only", k++ ? "; " : "");
        if (blackwell) fprintf(m, "%sfa4 on Blackwell only", k++ ? "; " : "");
        if (untimed) fprintf(m, "%sthe GPU's profile cannot time fa1 and fa2 there: no mma.sync rate", k++ ? "; " : "");
        if (other) fprintf(m, "%sthe kernel has no tile for the head dims of the models named (fa1: d <= 128), or its "
                              "tiles do not fit the GPU's shared memory", k++ ? "; " : "");
        fprintf(m, ").");
    }
    fprintf(m, "\v Each model's rows time one layer type, named in its title (kernels.csv: layer_type, mask): a model of\n"
               " both types its full-attention layers, a model whose every layer has a sliding window its windowed ones;\n"
               " a window of at least N keys masks none, so its layers are full causal layers at that N (the title says so).\n"
               "\v blocks/SM: the thread blocks that run on an SM at once, min(occupancy, ceil(grid / SMs))\n"
               " (docs/time-model.md, section 3); \"1 of 3\": the grid is too small to fill the 3 the occupancy\n"
               " allows (fa1: one block per batch x head).  waves: the grid's thread blocks / (SMs x blocks/SM),\n"
               " how many times the grid fills the SMs' slots; under 1 the grid is a fraction of one wave and slots\n"
               " sit empty even where blocks/SM is the occupancy (e.g. 128 blocks on 108 SMs at 2 blocks/SM: 0.59\n"
               " waves, 20 SMs run two blocks, 88 one, 88 of the 216 slots are empty), and bound is grid where that\n"
               " sets the time; bound as in the models' tables, '+ tail' where the last wave's tail adds over 10 %%\n"
               " (kernels.csv's bound leaves it out).  regs: registers a thread (of 255 at most; blocks/SM\n"
               " follows from them, smem/blk and the warps): the kernel's own count where the profile has one\n"
               " (ptxas or Nsight Compute: kernels/ v1-v4, fa2's forward at d <= 128; the setmaxnreg split:\n"
               " fa3, kernels/ v5), else fasim's estimate, the register-resident buffers over the consumer\n"
               " threads + a base (fa1, cudnn, fa2's backward and d > 128: docs/time-model.md section 3).  For the\n"
               " warp-specialized fa3 and cudnn it is the consumer warps' count (fa3: 240 with 2 consumer\n"
               " warpgroups, 160 with 3, hopper/flash_fwd_kernel.h warpgroup_reg_alloc); the producer\n"
               " warpgroup runs at 24, so warps x regs is more than the block holds.");
    if (has_hw(hw, nh, "h100") && has_hw(hw, nh, "h200"))
        fprintf(m, "\v H100 against H200: the\n"
                   " H100 profile runs at 1830 MHz (the FlashAttention-3 paper's fixed clock), the H200 at its measured\n"
                   " 1815 MHz under mma.sync (fa1, fa2) and, under wgmma (fa3, cudnn), 1620 MHz at full load, more at\n"
                   " partial load (wgmma_clock_by_load; fasim explain prints each row's clock), its 700 W limit:\n"
                   " a row bound by tensor, exp or fp32 can be faster on the H100 (docs/time-model.md, section 1), and\n"
                   " so can a row bound by the grid (fa1 under one wave): its time is its longest block's, and a block's\n"
                   " time is its tiles' pipe times at the GPU's clock, the same tiles on both GPUs' 132 SMs.\n"
                   " The L2 and DRAM terms differ too (L2: H200 8.76 vs H100 8.1 TB/s; DRAM: H200 3.94 vs H100 2.75 TB/s), so\n"
                   " a tensor-bound row can still be predicted faster on the H200 where those terms add to its time.");
    /* each GPU's DRAM rate: sustained, not the datasheet's */
    fprintf(m, "\v DRAM rates: the model charges sustained rates, not the datasheets' (sim/hw/*.hw, dram_bytes_per_s):");
    int scaled = 0; /* a rate that is its datasheet's x 3.94 / 4.8, the fraction the H200 sustained */
    for (int h = 0; h < nh; h++) {
        const int h200 = !strcmp(hw[h].key, "h200");
        const double ratio = hw[h].hbm_bandwidth > 0 ? hw[h].dram_bandwidth / hw[h].hbm_bandwidth : 0;
        const int sc = !h200 && fabs(ratio / (3.94 / 4.8) - 1) < 0.01;
        scaled |= sc;
        fprintf(m, "%s the %s's %.3g TB/s%s (datasheet %.4g)", h ? ";" : "", hw[h].name, hw[h].dram_bandwidth / 1e12,
                h200 ? ", measured by kernels/ubench_pipes.cu" : sc ? ", its datasheet's x 3.94 / 4.8" : "",
                hw[h].hbm_bandwidth / 1e12);
    }
    fprintf(m, "%s", scaled ? " -- 3.94 / 4.8 is the fraction of its datasheet the H200 sustained" : "");
    fprintf(m, ".\v math computes in fp32 without TF32: its GEMMs are SGEMM on the FMA units, charged to fp32.)");
    fclose(m);
    wrap_print(buf);
    free(buf);
}

/* The phrase a title adds when model m's sliding window covers N_k = n keys (W >= N: it masks no key,
 * so its sliding-window layers are full causal layers at this N and have no table of their own);
 * "" when the model has no window or its window binds. */
static void window_covers_text(const fa_model *m, int64_t n, char *buf, size_t len)
{
    buf[0] = 0;
    if (!fa_report_window_covers(m, n)) return;
    if (m->n_sliding < m->layers)
        snprintf(buf, len, "its %" PRId64 " sliding-window layers' window of %" PRId64 " covers N = %" PRId64
                 ": they are full causal layers here", m->n_sliding, m->sliding_window, n);
    else if (m->layers > 1)
        snprintf(buf, len, "its %" PRId64 " layers' sliding window of %" PRId64 " covers N = %" PRId64
                 ": they are full causal layers here", m->layers, m->sliding_window, n);
    else
        snprintf(buf, len, "its sliding window of %" PRId64 " covers N = %" PRId64 ": a full causal layer here",
                 m->sliding_window, n);
}

/* The kernels table's waves: two decimals (three just under 1, which two would round to 1.00),
 * fewer from 10 on. */
static void fmt_waves(double w, char *buf, size_t n)
{
    if (w < 1 && w >= 0.995) snprintf(buf, n, "%.3f", w);
    else if (w < 10) snprintf(buf, n, "%.2f", w);
    else if (w < 100) snprintf(buf, n, "%.1f", w);
    else snprintf(buf, n, "%.0f", w);
}

/* The kernels of each profile that runs on a GPU, forward (or the report's pass) on each
 * model's shape: tiles, placement, occupancy, predicted time, TFLOP/s and the bounding pipe
 * (kernels.csv; docs/time-model.md). */
static int kernels_table(report_ctx *c, const fa_report_model *models, int nm, const fa_shape *shapes,
                         const fa_hw *hw, int nh, fa_pass pass)
{
    FILE *f = out_stream(c, c->kernels);
    fputs(fa_report_kernels_csv_header, f);
    int missing[FA_REPORT_MAX_HW][FA_REPORT_NKERNELS]; /* a kernel with no row for some model on the GPU */
    memset(missing, 0, sizeof missing);
    static char shape_miss[FA_REPORT_NKERNELS][400]; /* the models (d) a kernel has no row for, by their shape */
    memset(shape_miss, 0, sizeof shape_miss);
    for (int k = 0; k < nm; k++) {
        char lt[400], mt[256]; /* the layer type the rows time, and its mask */
        fa_mask_text(&shapes[k], 0, mt, sizeof mt);
        const fa_shape *ws = &shapes[k];
        if (ws->window && ws->window_left >= 0 && ws->window_right >= 0) { /* the models' tables' spelling beside it */
            const size_t l = strlen(mt);
            snprintf(mt + l, sizeof mt - l, " = --window %" PRId64 ",%" PRId64 ": a sliding window of %" PRId64
                     " keys, the diagonal's included", ws->window_left, ws->window_right,
                     ws->window_left + ws->window_right + 1);
        }
        char cov[200];
        window_covers_text(&models[k].m, shapes[k].seqlen_k, cov, sizeof cov);
        if (models[k].m.n_sliding == 0) snprintf(lt, sizeof lt, "one full-attention layer (%s)", mt);
        else if (cov[0] && models[k].m.layers > 1) /* the window masks nothing: no sliding-window layer here */
            snprintf(lt, sizeof lt, "one of its %" PRId64 " layers (%s; %s)", models[k].m.layers, mt, cov);
        else if (cov[0]) snprintf(lt, sizeof lt, "one layer (%s; %s)", mt, cov);
        else if (models[k].m.n_sliding == models[k].m.layers) snprintf(lt, sizeof lt, "one sliding-window layer (%s)", mt);
        else
            snprintf(lt, sizeof lt, "one of its %" PRId64 " full-attention layers (%s; its %" PRId64
                     " sliding-window layers: the model's table above)", models[k].m.layers - models[k].m.n_sliding, mt,
                     models[k].m.n_sliding);
        if (!c->quiet)
            printf("== kernels: %s, N = %" PRId64 ", %s of %s, on each GPU (fasim io --profile KEY; docs/time-model.md)\n"
                   "%-15s %-6s %9s %5s %9s %4s %9s %6s %12s %8s %8s\n",
                   models[k].m.name, shapes[k].seqlen_q, fa_pass_name(pass), lt, "hardware", "kernel", "tiles", "warps",
                   "smem/blk", "regs", "blocks/SM", "waves", "time", "TFLOP/s", "bound");
        fa_report_kernel rows[FA_REPORT_MAX_HW * FA_REPORT_NKERNELS];
        int n;
        fa_status st = fa_report_kernels(&shapes[k], hw, nh, pass, rows, &n); /* on failure, the rows before it */
        for (int h = 0; h < nh; h++)
            for (int q = 0; q < FA_REPORT_NKERNELS; q++) {
                int have = 0;
                for (int i = 0; i < n; i++) have |= rows[i].hw == h && rows[i].key == q;
                missing[h][q] |= !have;
            }
        for (int q = 0; q < FA_REPORT_NKERNELS; q++) { /* missing on a GPU it runs on: the model's shape */
            int shape = 0;
            for (int h = 0; h < nh; h++) {
                int have = 0;
                for (int i = 0; i < n; i++) have |= rows[i].hw == h && rows[i].key == q;
                shape |= !have && !no_row_reason(fa_report_kernel_keys[q], hw[h].arch);
            }
            if (shape) {
                char nm_d[200];
                snprintf(nm_d, sizeof nm_d, "%s (d = %" PRId64 ")", models[k].stem, shapes[k].d);
                list_add(shape_miss[q], sizeof shape_miss[q], nm_d);
            }
        }
        for (int i = 0; i < n; i++) {
            const fa_report_kernel *x = &rows[i];
            const fa_occupancy *oc = &x->occ;
            char b1[32], b2[32], tiles[32];
            snprintf(tiles, sizeof tiles, "%" PRId64 "x%" PRId64, oc->blocks.block_r, oc->blocks.block_c);
            /* the GPU on its first row (a kernel that does not run the shape has no row) */
            const int first = i == 0 || rows[i - 1].hw != x->hw;
            if (!c->quiet)
            {
                /* a fused kernel's own; '-' for the library GEMMs (eager, math) */
                char rg[16] = "-", bl[16] = "-", wp[16] = "-", wv[16] = "-";
                if (oc->occupancy) { /* blocks/SM: what runs; "1 of 3" when the grid is too small to fill the occupancy */
                    snprintf(wp, sizeof wp, "%d", oc->warps);
                    snprintf(rg, sizeof rg, "%d", oc->regs_per_thread);
                    if (x->blocks_run < oc->occupancy) snprintf(bl, sizeof bl, "%.0f of %d", x->blocks_run, oc->occupancy);
                    else snprintf(bl, sizeof bl, "%d", oc->occupancy);
                    fmt_waves(x->waves, wv, sizeof wv);
                }
                printf("%-15s %-6s %9s %5s %9s %4s %9s %6s %12s %8.1f %8s%s\n", first ? hw[x->hw].name : "",
                       x->profile->key, tiles, wp,
                       oc->occupancy ? fa_fmt_bytes((double)oc->smem_bytes, b1, sizeof b1) : "-", rg,
                       bl, wv, fa_fmt_time(x->time_s, b2, sizeof b2), x->tflops,
                       x->sets && !x->latency ? x->sets : fa_bound_name(x->bound, x->latency),
                       x->tail && !x->latency ? " + tail" : "");
            }
            fa_report_kernel_csv_row(f, models[k].stem, &hw[x->hw], pass, &shapes[k], x);
        }
        /* rows of one GPU set by the same memory level at the same time: say why they tie (their
         * tiles move the same bytes past the L2, or to the SMs, and that level's time sets them) */
        for (int i = 0; i < n && !c->quiet; i++) {
            const char *bi = rows[i].sets && !rows[i].latency ? rows[i].sets : fa_bound_name(rows[i].bound, rows[i].latency);
            if (strcmp(bi, "DRAM") && strcmp(bi, "L2")) continue;
            int first = 1, same = 0;
            char keys[160] = "";
            for (int j = 0; j < n; j++) {
                const char *bj = rows[j].sets && !rows[j].latency ? rows[j].sets : fa_bound_name(rows[j].bound, rows[j].latency);
                if (rows[j].hw != rows[i].hw || strcmp(bi, bj) || fabs(rows[j].time_s - rows[i].time_s) > 1e-6 * rows[i].time_s)
                    continue;
                if (j < i) first = 0;
                same++;
                list_add(keys, sizeof keys, rows[j].profile->key);
            }
            if (first && same > 1) {
                char b[32];
                printf("(%s on %s: the same time, %s, each %s-bound: their tiles move the same bytes %s, the model's "
                       "table's DRAM est, and %s's rate sets the time)\n", keys, hw[rows[i].hw].name,
                       fa_fmt_time(rows[i].time_s, b, sizeof b), bi, !strcmp(bi, "DRAM") ? "past the L2" : "between L2 and the SMs",
                       bi);
            }
        }
        if (st) return cli_fail(st);
        /* fa1 has no kernel beyond d = 128: say so under the table that drops its rows */
        int fa1_rows = 0, fa1_gpus = 0;
        for (int q = 0; q < FA_REPORT_NKERNELS; q++)
            if (!strcmp(fa_report_kernel_keys[q], "fa1"))
                for (int h = 0; h < nh; h++) {
                    fa1_gpus += hw[h].arch < 100; /* Blackwell: fa1 is not timed there at all (the footnote) */
                    for (int i = 0; i < n; i++) fa1_rows += rows[i].hw == h && rows[i].key == q;
                }
        if (!c->quiet && fa1_gpus && !fa1_rows && (shapes[k].d > 128 || shapes[k].d_v > 128))
            printf("(no fa1 rows: FlashAttention-1's kernels take head dims d <= 128, and this model has d = %" PRId64
                   ", d_v = %" PRId64 ")\n", shapes[k].d, shapes[k].d_v);
        if (!c->quiet && k == nm - 1) kernels_footnote(hw, nh, missing, shape_miss);
        if (!c->quiet) printf("\n");
    }
    return 0;
}

/* The papers' table, one series (paper, figure, GPU, kernel, d, mask, pass, unit) a line: the rows
 * on b200 (b200_rows 1: FlashAttention-4's Figure 4, each line tagged a prediction) or the others
 * (0). */
static void paper_series(const fa_paper_row *rows, int n, const fa_hw *b200, int b200_rows)
{
    printf("%-14s %-6s %-18s %-6s %4s %2s  %s\n", "figure", "gpu", "kernel", "pass", "d", "c",
           "N: published -> fasim (ratio)");
    int prev = -1;
    for (int i = 0; i < n; i++) {
        if ((rows[i].hw == b200) != b200_rows) continue;
        if (prev >= 0 && fa_report_same_series(&rows[prev], &rows[i]))
            printf("  %" PRId64 ": %.4g -> %.4g (%.2f)", rows[i].N, rows[i].published, rows[i].predicted, rows[i].ratio);
        else
            printf("%s%s%-14s %-6s %-18.18s %-6s %4" PRId64 " %2d  %" PRId64 ": %.4g -> %.4g %s (%.2f)",
                   prev >= 0 && b200_rows ? "  [prediction: no B200 here]" : "", prev >= 0 ? "\n" : "", rows[i].figure,
                   rows[i].hw->key, rows[i].kernel, fa_pass_name(rows[i].pass), rows[i].d, rows[i].causal, rows[i].N,
                   rows[i].published, rows[i].predicted, rows[i].unit, rows[i].ratio);
        prev = i;
    }
    printf("%s\n", prev >= 0 && b200_rows ? "  [prediction: no B200 here]" : "");
}

/* The papers' row of (figure, profile key, d, causal, N, unit) off the B200 (NULL: none) -- the
 * papers' note quotes the rows the table prints, never a number of its own. */
static const fa_paper_row *paper_row(const fa_paper_row *rows, int n, const char *fig, const char *key, int64_t d,
                                     int causal, int64_t N, const char *unit)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].figure, fig) && !strcmp(rows[i].profile->key, key) && rows[i].d == d
            && rows[i].causal == causal && rows[i].N == N && !strcmp(rows[i].unit, unit) && strcmp(rows[i].hw->key, "b200"))
            return &rows[i];
    return NULL;
}

/* The ratio of a row as the table prints it (%.2f), "?" without the row. */
static const char *paper_ratio(char b[16], const fa_paper_row *r)
{
    if (r) snprintf(b, 16, "%.2f", r->ratio);
    else snprintf(b, 16, "?");
    return b;
}

/* "lo-hi": the range of the ratios of a figure's rows of profile key (off the B200) with N >= n_min,
 * as the table prints them (%.2f); "?" without a row. */
static const char *paper_range(char b[32], const fa_paper_row *rows, int n, const char *fig, const char *key,
                               int64_t n_min)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].figure, fig) && !strcmp(rows[i].profile->key, key) && rows[i].N >= n_min
            && strcmp(rows[i].hw->key, "b200") && isfinite(rows[i].ratio)) {
            if (rows[i].ratio < lo) lo = rows[i].ratio;
            if (rows[i].ratio > hi) hi = rows[i].ratio;
        }
    if (lo > hi) snprintf(b, 32, "?");
    else snprintf(b, 32, "%.2f-%.2f", lo, hi);
    return b;
}

/* The papers' figures: FlashAttention Figure 2 (A100), FlashAttention-2 Figure 4 (A100),
 * FlashAttention-3 Figures 5-6 (H100) and FlashAttention-4 Figure 4 (B200, predictions only)
 * beside the time model (fa_papers.h; papers.csv). */
static int papers(report_ctx *c)
{
    fa_report_paper_set set;
    fa_status st = fa_report_papers(NULL, &set);
    if (st) return cli_fail(st);
    const fa_paper_row *rows = set.rows;
    const int n = set.n;
    fa_report_papers_csv(out_stream(c, c->papers), rows, n);
    if (!c->quiet) {
        printf("== the papers, reproduced (published figure vs fasim's time model; ratio = fasim / published; "
               "c: causal; papers.csv, docs/results.md)\n");
        paper_series(rows, n, &set.b200, 0);
        /* the note's numbers: the rows above (issue 18, pass 11: never a number of its own) */
        char r_std[16], f1[7][16], g_fa3[32], g_cud[32], v_cud[16], v_fa3[16], same[80];
        const fa_paper_row *std_ms = paper_row(rows, n, "Figure 2 left", "eager", 64, 0, 1024, "ms");
        static const int64_t F1[7][2] = {{128, 2048}, {128, 4096}, {128, 8192}, {128, 16384},
                                         {64, 4096}, {64, 8192}, {64, 16384}};
        for (int i = 0; i < 7; i++)
            paper_ratio(f1[i], paper_row(rows, n, "Figure 4", "fa1", F1[i][0], 0, F1[i][1], "TFLOP/s"));
        /* FlashAttention-1's rows at N <= 1k in FlashAttention-2's Figure 4: their ratios' range */
        char f1_short[32] = "-";
        double s_lo = INFINITY, s_hi = -INFINITY;
        for (int i = 0; i < n; i++)
            if (!strcmp(rows[i].figure, "Figure 4") && rows[i].profile && !strcmp(rows[i].profile->key, "fa1") && rows[i].N <= 1024)
                s_lo = fmin(s_lo, rows[i].ratio), s_hi = fmax(s_hi, rows[i].ratio);
        if (s_lo <= s_hi) snprintf(f1_short, sizeof f1_short, "%.2f-%.2f", s_lo, s_hi);
        paper_range(g_fa3, rows, n, "Figure 6", "fa3", 0);
        paper_range(g_cud, rows, n, "Figure 6", "cudnn", 0);
        const fa_paper_row *c16 = paper_row(rows, n, "Figure 6", "cudnn", 128, 0, 16384, "TFLOP/s");
        const fa_paper_row *f16 = paper_row(rows, n, "Figure 6", "fa3", 128, 0, 16384, "TFLOP/s");
        snprintf(v_cud, sizeof v_cud, "%.4g", c16 ? c16->predicted : NAN);
        snprintf(v_fa3, sizeof v_fa3, "%.4g", f16 ? f16->predicted : NAN);
        char same2[80], same3[200] = "";
        if (!strcmp(v_cud, v_fa3)) {
            snprintf(same, sizeof same, "cuDNN and FlashAttention-3 both fall to the same %s", v_cud);
            snprintf(same2, sizeof same2, "both turn DRAM-bound with the same DRAM estimate");
        } else {
            snprintf(same, sizeof same, "FlashAttention-3 falls to %s", v_fa3);
            snprintf(same2, sizeof same2, "it turns DRAM-bound with its DRAM estimate");
            snprintf(same3, sizeof same3, "; cuDNN has the same estimate and falls to %s: its tile (its\n"
                     " measured instruction count, its waits and barriers) outlasts that bound", v_cud);
        }
        printf("(GB as the papers print it: 10^9 bytes, not the GiB = 2^30 of the tables above; fasim's GB is\n"
               " its DRAM estimate, what the paper measured.  The misses and why: docs/time-model.md, \"The papers,\n"
               " reproduced\": standard's time (%s: PyTorch's kernels of 2022 moved 0.97 TB/s, not the 1.67 the\n"
               " model charges: the A100 profile's sustained rate, its datasheet's 2.039 TB/s x 3.94 / 4.8, the\n"
               " fraction the H200 sustained of its own datasheet, sim/hw/a100-sxm4-80gb.hw), FlashAttention-1 at long N (the fa1 profile runs one\n"
               " thread block per (batch, head), B H = (16k / N) x (2048 / d) blocks on 108 SMs: the forward's grid\n"
               " (2 blocks an SM) is under one wave from N = 2k at d = 128 (128 blocks) and 4k at d = 64; a block's time\n"
               " grows as N^2 d, the FLOPs as N, so once every block has an SM to itself (B H <= 108, no second backward\n"
               " wave) each doubling of N halves the rate: without a mask d = 128 %s at 2k, %s at 4k, %s at 8k,\n"
               " %s at 16k; d = 64 %s at 4k, %s at 8k, %s at 16k) and at N <= 1k (%s, not explained yet), standard\n"
               " attention causal (up to 1.8: the eager profile gives the causal mask no time; the published causal\n"
               " runs took 1.3-2x their full runs'), standard without a mask at long N (0.67-0.8, not explained\n"
               " yet), FlashAttention-3's backward in Figure 6 too fast (%s: its kernel was not run here, so\n"
               " its profile has no measured instruction count; cuDNN's, with the count measured on the H200, %s,\n"
               " on both sides of 1), and cuDNN's rows equal to FlashAttention-3's where their tiles\n"
               " agree (d = 128 causal).  cuDNN's\n"
               " tiles are not published: its profile takes the block shape Nsight Compute shows for its kernels\n"
               " (a persistent grid of one block per SM, 384 threads = 12 warps: analysis/profiles.c, cudnn_tiles)\n"
               " and assumes FlashAttention-3's d = 128 tile, 128 x 128 forward, at every d <= 128 (128 x 64 at\n"
               " 128 < d <= 256: DeepSeek's d = 192 and d = 256), where FlashAttention-3 itself runs 192 x 128 with 16 warps at d = 64 and 128 x 176\n"
               " without a mask at d = 128.\n"
               " Figure 6, backward d = 128 at N = 16k: %s TFLOP/s\n"
               " because %s (%.0f GiB: B_c = 128, so the\n"
               " re-reads of Q, dO, LSE, D and the fp32 dQ accumulator)%s.  Each head's re-read set is 16 MiB there\n"
               " (8 at 8k).  The grid runs one block per key block (B_c = 128: 128 a head at 16k), 132 at a time\n"
               " on the 132 SMs, so the blocks running at once straddle up to 3 heads (e.g. 2 + 128 + 2; 4 heads\n"
               " of 64 blocks at 8k): 3 x 16 = 48 MiB of re-read sets live at once.  The H100's 50 MiB L2 is two\n"
               " partitions of 25 MiB, each caching for the SMs wired to it (docs/l2-model.md, \"Partitions\"); a head's\n"
               " blocks run on SMs of both, so each partition holds every live head's set: 48 MiB against 25 MiB,\n"
               " so the model lets 48%% of those re-reads reach DRAM (22%% at 8k: 32 MiB; docs/time-model.md, \"DRAM\").  The published rows do not drop (%.4g, %.4g): the model's L2 capture is too pessimistic there\n"
               " (fasim io --profile fa3 --pass bwd --heads 16 --seqlen 16384 --headdim 128 --hw h100 shows it).\n"
               " gpu a100: Figure 2's A100 was the 40 GB SXM4 (1.555 TB/s of HBM); fasim times it, as every a100\n"
               " row, on its A100-SXM4-80GB profile (the same SMs and clocks, 2.039 TB/s; FlashAttention-2's\n"
               " Figure 4 ran on the 80 GB part): docs/time-model.md, \"The papers, reproduced\".\n"
               " An N missing from a series (Figure 4 FlashAttention-2: d = 64 without a mask N = 1024, d = 128\n"
               " without a mask N = 512 and 1024) has no value in fasim's transcription of the figure\n"
               " (analysis/measured/papers/published.csv): not read off the figure, so not compared.)\n\n",
               paper_ratio(r_std, std_ms), f1[0], f1[1], f1[2], f1[3], f1[4], f1[5], f1[6], f1_short, g_fa3, g_cud, same, same2,
               (f16 ? f16->dram_bytes : NAN) / 1073741824.0, same3, c16 ? c16->published : NAN, f16 ? f16->published : NAN);
        printf("== FlashAttention-4 (arXiv 2603.05451) on the B200: every fasim number a prediction (no B200 here:\n"
               "   sim/hw/b200.hw is datasheet figures and assumptions, nothing fitted to a B200 time); the\n"
               "   paper's shape: 32k tokens (B = 32768 / N), hidden 2048 (H = 16), bf16, forward\n");
        paper_series(rows, n, &set.b200, 1);
        printf("(Figure 4 also shows FA2, Triton 3.6.0, Gluon 3.6.0, cuDNN 9.13.0 and 9.19.1(.2) on the B200\n"
               " (published.csv holds them, and Figure 5's d = 192 / d_v = 128 causal rows): fasim has no B200\n"
               " profile for them (fa2 runs mma.sync, whose B200 rate is not known here; cudnn's profile is\n"
               " Hopper's wgmma) and no fa4 tile at d = 192, so they are not compared.  Why the model falls\n"
               " short of FA4: docs/results.md, \"FlashAttention-4 on the B200\".)\n\n");
    }
    fa_report_papers_free(&set);
    return 0;
}

/* report's options (its own: several models and GPUs) */
/* The notes under the models' tables: the columns and words every table has, then only those that
 * apply to the models and GPUs asked for (issue 18: a B200 note without a B200, none with one). */
static void models_footnote(const fa_report_model *models, int nm, const fa_report_rows *rows, const fa_hw *hw, int nh,
                            fa_pass pass, int any_oom)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len); /* the notes, then printed wrapped (wrap_print) */
    if (!m) return;
    char b[4][32];
    /* the grid's example: the first model and GPU whose flash1 row is bound by its grid */
    char grid[448] = "";
    for (int k = 0; k < nm && !grid[0]; k++)
        for (int h = 0; h < nh && !grid[0]; h++) {
            const fa_io_result *x = &rows[k].r[0][h][FA_ALGO_FLASH1];
            const int64_t bh = rows[k].s[0].batch * rows[k].s[0].heads;
            if (rows[k].ran[0][h][FA_ALGO_FLASH1] && x->has_perf && x->perf_latency == 2 && bh < hw[h].sms)
                snprintf(grid, sizeof grid, " (fa1, the paper's kernel, runs one thread block per batch x head: %.60s's "
                         "%" PRId64 " heads use %" PRId64 " of the %.40s's %d SMs; FlashAttention-1's own launcher splits "
                         "the queries over more blocks on such a grid, num_splits_heuristic_fwd, which the profile does not "
                         "model: fasim io says so)", models[k].m.name, bh, bh, hw[h].name, hw[h].sms);
        }
    fprintf(m, "(standard runs as eager PyTorch's math path does: it computes all of S and P and keeps them in\n"
           " HBM; the causal mask and the window are applied to S but skip no tile, so its bytes and time are\n"
           " full attention's, and a windowed model's 'vs std' includes the window's savings.  HBM bytes: the\n"
           " two-level count (HBM <-> SRAM); DRAM est: what still reaches DRAM past the L2 (docs/l2-model.md);\n"
           " time, TFLOP/s and bound: the time model of the kernel profile (docs/time-model.md), bound = what\n"
           " sets the time: L2 or DRAM when its bytes / rate exceed the waves, else the tile's longer phase,\n"
           " softmax (exp + fp32), issue (the softmax phase, set by its issue slots: the profile's measured\n"
           " instructions over the schedulers' rate exceed exp + fp32) or its GEMM phase's busier pipe, tensor\n"
           " or smem (standard: its busiest pipe; report.csv's bound is this column, its busiest_pipe the\n"
           " busiest pipe) -- or grid when the grid is under one wave and SMs sit idle%s, launch when kernel\n"
           " launches take half the time; '+ tail' after it: the last wave's tail (a grid that does not fill\n"
           " whole waves, the causal mask's unequal blocks) adds over 10 %% to the waves' time (more than 1.1 x\n"
           " their time with every slot busy to the end; fasim io's bound says the same, fasim explain prints\n"
           " both times; a grid or launch row drops it, as does report.csv's and kernels.csv's bound:\n"
           " docs/report-csv.md).  vs std:\n"
           " standard's bytes (time) / this row's, above 1 = fewer bytes (faster) than standard.\n", grid);
    /* rows of a kernel this GPU's profile cannot time: their roofline in parentheses */
    char roof[96] = "";
    for (int h = 0; h < nh; h++) {
        int any = 0;
        for (int k = 0; k < nm; k++)
            for (int t = 0; t < rows[k].nkind; t++)
                for (int a = 0; a < FA_NALGO; a++) any |= rows[k].ran[t][h][a] && !rows[k].r[t][h][a].has_perf;
        if (any) list_add(roof, sizeof roof, hw[h].name);
    }
    if (roof[0]) {
        fprintf(m, "\v No time ratio ('-') where one of the two times is a roofline and the other the time model's: a\n"
               " kernel the GPU's profile cannot time (here on %s: no mma.sync rate for fa1 and fa2), its time and\n"
               " TFLOP/s in parentheses.\n", roof);
        /* what that roofline is, so that no one reads it against a time-model time (fa4's on the B200) */
        for (int h = 0; h < nh; h++) {
            int any = 0;
            for (int k = 0; k < nm; k++)
                for (int t = 0; t < rows[k].nkind; t++)
                    for (int a = 0; a < FA_NALGO; a++) any |= rows[k].ran[t][h][a] && !rows[k].r[t][h][a].has_perf;
            if (!any) continue;
            fprintf(m, " The parenthesised time on %s is a roofline, max(FLOPs / peaks, HBM bytes / bandwidth), at the\n"
                   " GPU's datasheet rates: the matmuls at its %.4g TFLOP/s dense fp16/bf16 tensor peak (which an mma.sync\n"
                   " kernel as fa1 or fa2 does not reach there) and the bytes at the datasheet's %.3g TB/s (the time model charges the\n"
                   " sustained %.3g), with no L2, occupancy, tail or launch. It is an ideal bound of the counts, not a\n"
                   " predicted time: it is NOT comparable with the time model's times (the other rows, the kernels\n"
                   " table's), and a parenthesised time below a time-model one does not make that kernel the faster.\n",
                   hw[h].name, hw[h].peak_fp16 / 1e12, hw[h].hbm_bandwidth / 1e12,
                   (hw[h].dram_bandwidth > 0 ? hw[h].dram_bandwidth : hw[h].hbm_bandwidth) / 1e12);
        }
    }
    /* the L2 of each GPU asked for (the B200's is not in its datasheet) */
    char l2[400] = "";
    for (int h = 0; h < nh; h++) {
        char one[160];
        snprintf(one, sizeof one, "%.31s on the %.40s%s", fa_fmt_bytes((double)hw[h].l2_bytes, b[0], 32), hw[h].name,
                 !strcmp(hw[h].key, "b200") ? " (not in its datasheet: assumed, sim/hw/b200.hw)" : "");
        list_add(l2, sizeof l2, one);
    }
    if (nh > 1)
        fprintf(m, "\v DRAM est depends on the L2, %s: a working set that fits one L2 but not another reaches DRAM several\n"
               " times less on the larger.\n", l2);
    else
        fprintf(m, "\v DRAM est depends on the L2: %s.\n", l2);
    int softcap = 0, d256 = 0, d192 = 0;
    for (int k = 0; k < nm; k++) {
        softcap |= models[k].m.softcap > 0;
        for (int t = 0; t < rows[k].nkind; t++) d256 |= rows[k].s[t].d == 256, d192 |= rows[k].s[t].d == 192;
    }
    fprintf(m, "\v dtype: the config's torch_dtype; float32 is counted in bf16 (the FlashAttention kernels take\n"
           " fp16/bf16), and a config with none (GPT-2, GPT-J) in fasim's default fp16, where Transformers would\n"
           " load it in torch's default fp32; each header says which.\n");
    fprintf(m, "\v scale: the softmax scale Transformers uses, S = scale Q K^T, and the config key it comes from:\n"
           " 1/sqrt(d) unless Gemma's query_pre_attn_scalar or DeepSeek-V3's yarn mscale sets another; DeepSeek-V2:\n"
           " Transformers' DeepseekV2Attention takes 1/sqrt(d), where DeepSeek's reference code and vLLM take\n"
           " mscale^2 / sqrt(d), both printed (docs/conventions.md, \"Model configs\"); it changes no count.\n");
    if (softcap)
        fprintf(m, "\v softcap C (Gemma-2's attn_logit_softcapping): each score becomes C tanh(S / C) before the softmax; it\n"
               " moves no byte, and the time model leaves its tanh out (docs/time-model.md, section 4): the time is that\n"
               " of the same shape without it.\n");
    fprintf(m, "\v TFLOP/s: the FlashAttention-2 convention's FLOPs of the shape, 2 N_q N_k (d + d_v) per head in the\n"
           " forward (the backward 2.5x that), halved by the causal mask (with a window: the matmul FLOPs of the\n"
           " tiles FlashAttention-2 visits), the same work for standard, flash1 and flash2, / the row's time:\n"
           " standard's TFLOP/s falls with a window while its time does not.\n");
    if (any_oom)
        fprintf(m, "\v \"out of memory\": the pass's live tensors (standard: S and P) exceed the GPU's memory; the row is what\n"
               " it would move.\n");
    /* fa2's tiles beyond B_r = 128, only where a model asked for has that d on a GPU asked for */
    char big[160] = "", big_a100[64] = "";
    for (int h = 0; h < nh && d256; h++)
        if (strcmp(hw[h].key, "a100")) list_add(big, sizeof big, hw[h].name);
        else snprintf(big_a100, sizeof big_a100, " and at d = 256 on the %.40s", hw[h].name);
    fprintf(m, "\v B_r, B_c: the tiles each kernel runs (standard: the GEMMs' thread-block tile fasim assumes, the kernels\n"
           " table's note, below): fa1 re-reads Q and reads and writes O, l, m once per key block, T_c = N / B_c\n"
           " passes with its wide B_c = 256 (128 at d > 64); fa2 re-reads K and V once per row block, T_r = N / B_r\n"
           " passes with B_r = 128");
    if (big[0]) { /* why 64: the shared memory a 64 x 64 block takes, and how many an SM holds */
        const fa_io_result *x = NULL;
        int xh = 0, same = 1;
        for (int k = 0; k < nm; k++)
            for (int t = 0; t < rows[k].nkind; t++)
                for (int h = 0; h < nh; h++) {
                    const fa_io_result *y = &rows[k].r[t][h][FA_ALGO_FLASH2];
                    if (x || rows[k].s[t].d != 256 || !strcmp(hw[h].key, "a100") || !rows[k].ran[t][h][FA_ALGO_FLASH2] ||
                        y->occupancy[0] <= 0 || y->blocks.block_r != 64)
                        continue;
                    x = y, xh = h;
                }
        for (int h = 0; h < nh && x; h++)
            if (strcmp(hw[h].key, "a100") &&
                (hw[h].sram_per_sm != hw[xh].sram_per_sm || hw[h].sram_per_block != hw[xh].sram_per_block))
                same = 0;
        fprintf(m, ", 64 at d = 256 on the %s", big);
        if (x) {
            char b1[32], b2[32], b3[32];
            fprintf(m, " (a 64 x 64 block with 4 warps takes %s of shared memory; %s%s%s SM has %s, of which\n"
                       " one block may use %s, and holds %d such blocks at once)",
                    fa_fmt_bytes((double)x->smem_per_block[0], b1, sizeof b1), same ? "an" : "the ",
                    same ? "" : hw[xh].name, same ? "" : "'s", fa_fmt_bytes((double)hw[xh].sram_per_sm, b2, sizeof b2),
                    fa_fmt_bytes((double)hw[xh].sram_per_block, b3, sizeof b3), x->occupancy[0]);
        }
    }
    if (d192 || big_a100[0])
        fprintf(m, ", 128 x 64 with 8 warps%s%s", d192 ? " at d = 192 on every GPU" : "", d192 ? big_a100 : big_a100 + 5);
    if (big[0] || d192 || big_a100[0]) fprintf(m, " (as FlashAttention-2's flash_fwd_launch_template.h picks)");
    fprintf(m, "; the causal mask halves both.\n");
    /* a sequence shorter than those tiles: a kernel still runs its whole tiles */
    int64_t cl_q = 0, cl_k = 0;
    for (int k = 0; k < nm && !cl_q; k++)
        for (int t = 0; t < rows[k].nkind && !cl_q; t++)
            if (rows[k].s[t].seqlen_q < 128 || rows[k].s[t].seqlen_k < 256)
                cl_q = rows[k].s[t].seqlen_q, cl_k = rows[k].s[t].seqlen_k;
    if (cl_q) {
        if (cl_q == cl_k)
            fprintf(m, " At N = %" PRId64 " some tiles are longer than the sequence: a kernel allocates and computes its\n"
                       " whole tile (the B_r and B_c the table shows, its shared memory and occupancy), while the\n"
                       " counts move only the %" PRId64 " rows and keys there are (docs/time-model.md, section 2).\n",
                    cl_q, cl_q);
        else
            fprintf(m, " At N_q = %" PRId64 ", N_k = %" PRId64 " some tiles are longer than the sequence: a kernel allocates and\n"
                       " computes its whole tile (the B_r and B_c the table shows), while the counts move only the rows\n"
                       " and keys there are (docs/time-model.md, section 2).\n",
                    cl_q, cl_k);
    }
    /* fa1 rows of shapes FlashAttention-1's kernel does not run as counted (v1.0.9 fmha_api.cpp): a window,
     * GQA/MQA, a head dim it has no kernel for; fasim io prints the same per row */
    char f1w[200] = "", f1g[200] = "", f1d[200] = "";
    for (int k = 0; k < nm; k++) {
        int w = 0, gq = 0, dd = 0;
        for (int t = 0; t < rows[k].nkind; t++)
            for (int h = 0; h < nh; h++) {
                if (!rows[k].ran[t][h][FA_ALGO_FLASH1]) continue;
                const fa_shape *x = &rows[k].s[t];
                w |= x->window != 0, gq |= x->kv_heads > 0 && x->kv_heads < x->heads;
                dd |= x->d != 32 && x->d != 64 && x->d != 128;
            }
        if (w) list_add(f1w, sizeof f1w, models[k].m.name);
        if (gq) list_add(f1g, sizeof f1g, models[k].m.name);
        if (dd) list_add(f1d, sizeof f1d, models[k].m.name);
    }
    if (f1w[0] || f1g[0] || f1d[0]) {
        fprintf(m, "\v fa1 rows count Algorithm 1 on the model's shape, which FlashAttention-1's kernel (v1.0.9\n"
                   " fmha_api.cpp) does not always run:");
        if (f1w[0])
            fprintf(m, " it has no sliding window (%s: the rows skip the window's tiles, the real kernel computes\n"
                       " every causal tile);", f1w);
        if (f1g[0])
            fprintf(m, " it has no GQA or MQA, K and V are checked against num_heads (%s: callers repeat K, V to\n"
                       " the query heads, H / H_kv times the K, V bytes the rows count);", f1g);
        if (f1d[0])
            fprintf(m, " it runs only d = 32, 64, 128 kernels and refuses d not a multiple of 8 or over 128 (%s: a\n"
                       " d = 96 runs in the d = 128 kernel, a d over 128 has no fa1 row);", f1d);
        fprintf(m, " fasim io prints a note per row.\n");
    }
    /* where fa1's few passes move fewer bytes than fa2's many: name the models, the first one's numbers */
    char fewer[200] = "";
    int fk = -1, fh = 0, ft = 0;
    for (int k = 0; k < nm; k++) {
        int here = 0;
        for (int t = 0; t < rows[k].nkind; t++)
            for (int h = 0; h < nh; h++) {
                const fa_io_result *r1 = &rows[k].r[t][h][FA_ALGO_FLASH1], *r2 = &rows[k].r[t][h][FA_ALGO_FLASH2];
                if (!rows[k].ran[t][h][FA_ALGO_FLASH1] || !rows[k].ran[t][h][FA_ALGO_FLASH2] ||
                    fa_counts_hbm_bytes(&r1->counts) >= fa_counts_hbm_bytes(&r2->counts))
                    continue;
                if (fk < 0) fk = k, fh = h, ft = t;
                here = 1;
            }
        if (here) list_add(fewer, sizeof fewer, models[k].m.name);
    }
    if (fk >= 0) {
        const fa_shape *s = &rows[fk].s[ft];
        const fa_io_result *r1 = &rows[fk].r[ft][fh][FA_ALGO_FLASH1], *r2 = &rows[fk].r[ft][fh][FA_ALGO_FLASH2];
        fprintf(m, "\v flash1 against flash2: each runs its own kernel's tiles, so the worked example's equal-tile order\n"
               " (README, 64 x 64: flash1 above flash2) need not hold here: where fa1's few passes cost less than fa2's\n"
               " more passes (%s; %s at d = %" PRId64 ": T_c = %" PRId64 " against T_r = %" PRId64 "), flash1 moves\n"
               " fewer bytes", fewer, models[fk].m.name, s->d, fa_cdiv(s->seqlen_k, r1->blocks.block_c),
               fa_cdiv(s->seqlen_q, r2->blocks.block_r));
        fa_perf_result pr; /* flash1's kernel on flash2's tiles */
        if (fa_perf_predict(fa_profile_find("fa1"), pass, s, &hw[fh], &r2->blocks, &pr) == FA_OK &&
            fa_counts_hbm_bytes(&pr.io.counts) > fa_counts_hbm_bytes(&r2->counts))
            fprintf(m, " -- at fa2's %" PRId64 " x %" PRId64 " tiles it would move more (%s against %s)", r2->blocks.block_r,
                   r2->blocks.block_c, fa_fmt_bytes((double)fa_counts_hbm_bytes(&pr.io.counts), b[1], 32),
                   fa_fmt_bytes((double)fa_counts_hbm_bytes(&r2->counts), b[2], 32));
        else
            fa_clear_error();
        fprintf(m, " -- and it is slower all the same where its grid is one thread block per batch x head.\n");
    }
    if (has_hw(hw, nh, "h100") && has_hw(hw, nh, "h200"))
        fprintf(m, "\v H100 against H200: where a kernel is bound by its tensor cores, exp or fp32 pipe, or by its grid\n"
               " (fa1 under one wave: the time is its longest block's, and a block's time is its tiles' pipe times at\n"
               " the GPU's clock), the H100 can be\n"
               " predicted faster than the H200: the H100 profile runs every pipe at 1830 MHz, the clock the\n"
               " FlashAttention-3 paper fixed for its measurements, while the H200 profile runs at the clocks\n"
               " measured under its 700 W limit, 1815 MHz under mma.sync (fa1, fa2) and, under wgmma (fa3, cudnn),\n"
               " 1620 MHz at full load, more at partial load (wgmma_clock_by_load; fasim explain prints each row's\n"
               " clock); the H200 is faster where DRAM bounds, and the L2/DRAM terms differ too, so a tensor-bound\n"
               " row can still be predicted faster on the H200 where they add to its time (L2 H200 8.76 vs\n"
               " H100 8.1 TB/s; the DRAM rates: the kernels table's note; docs/time-model.md, 1).\n");
    fputc(')', m);
    fclose(m);
    wrap_print(buf);
    free(buf);
}

typedef struct {
    fa_report_model *models;
    int nm;
    const char **hws;
    int nh;
    int64_t seqlen, batch;
    fa_pass pass;
    report_ctx *c;
} report_args;

static int take_report(void *ctx, cli_opts *o, int id, const char *name, const char *v)
{
    (void)o;
    report_args *r = ctx;
    switch (id) {
    case O_R_MODEL:
        if (r->nm >= MAX_MODELS) return cli_usage("at most %d --model files", MAX_MODELS);
        snprintf(r->models[r->nm++].path, sizeof r->models[0].path, "%s", v);
        return 0;
    case O_R_HW:
        if (r->nh >= MAX_HW) return cli_usage("at most %d --hw profiles", MAX_HW);
        r->hws[r->nh++] = v;
        return 0;
    case O_R_SEQLEN: return cli_int(name, v, 1, INT32_MAX, &r->seqlen);
    case O_R_BATCH: return cli_int(name, v, 1, INT32_MAX, &r->batch);
    case O_R_OUT_DIR:
        r->c->dir = v;
        return 0;
    case O_R_PASS:
        return fa_pass_parse(v, &r->pass) ? cli_fail(FA_EINVAL) : 0;
    case O_R_NO_PLOTS: r->c->plots = 0; return 0;
    case O_R_QUIET: r->c->quiet = 1; return 0;
    }
    return cli_usage("%s: not a report option", name);
}

int cmd_report(int argc, char **argv)
{
    fa_report_model models[MAX_MODELS];
    const char *hws[MAX_HW];
    report_ctx c = {.dir = "build/report", .plots = 1};
    memset(models, 0, sizeof models);
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "report", report_head, "");
        return 0;
    }
    report_args ra = {models, 0, hws, 0, -1, 1, FA_PASS_FWD, &c};
    cli_opts unused;
    int rc0 = cli_parse_cmd(argc, argv, &unused, take_report, &ra);
    if (rc0) return rc0;
    int nm = ra.nm, nh = ra.nh;
    const int64_t seqlen = ra.seqlen, batch = ra.batch;
    const fa_pass pass = ra.pass;
    if (strchr(c.dir, '\'')) {
        fprintf(stderr, "fasim: --out-dir '%s' must not contain a quote\n", c.dir);
        return EXIT_USAGE;
    }
    int rc;
    if (nm == 0) {
        fa_status st = fa_report_list_models(NULL, models, MAX_MODELS, &nm);
        if (st) {
            cli_fail(st);
            return EXIT_RUN;
        }
    }
    if (nm == 0) {
        fprintf(stderr, "fasim: no model files found (give --model FILE)\n");
        return EXIT_USAGE;
    }
    /* Validate every input before writing anything. */
    fa_hw hw[MAX_HW];
    fa_status st0 = fa_report_load_hw(hws, nh, hw, &nh); /* none given: a100, h100, h200 */
    if (st0) return cli_fail(st0);
    for (int k = 0; k < nm; k++) {
        fa_status st = fa_report_model_load(&models[k]);
        if (st) return cli_fail(st);
        /* each model once: the report names a model's tables and files by its file stem */
        for (int g = 0; g < k; g++) {
            if (strcmp(models[g].stem, models[k].stem)) continue;
            if (!strcmp(models[g].path, models[k].path))
                return cli_usage("--model %s given twice (each model once)", models[k].path);
            return cli_usage("--model %s and --model %s have the same file stem '%s', which names a model's files "
                             "(hbm_vs_n_%s.csv): give each model once, or copy one under another name",
                             models[g].path, models[k].path, models[k].stem, models[k].stem);
        }
    }
    /* Compute the tables first (errors here leave no file behind). */
    fa_report_rows *rows = calloc(nm > 0 && nm <= MAX_MODELS ? (size_t)nm : 1, sizeof *rows);
    if (!rows) return cli_fail(fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory"));
    for (int k = 0; k < nm; k++) {
        fa_status st = fa_report_model_rows(&models[k].m, batch, seqlen, pass, hw, nh, &rows[k]);
        if (st) {
            free(rows);
            return cli_fail(st);
        }
    }
    /* Open every output now, before writing any: a path that cannot be written (a directory in
     * the way, no permission) is exit 2 with nothing left behind. */
    const int longk = fa_report_window_model(models, nm);
    c.mem_png = c.longctx = c.sram_png = c.block_png = c.cp = c.cp_png = -1;
    const fa_hw *cph = &hw[nh - 1]; /* context parallelism: on the last --hw, when it gives its NVLink rate */
    /* the default build/report: its parent build/ is made too (a folder option given creates its
     * last folder only: fa_outset_mkdir) */
    if (!strcmp(c.dir, "build/report")) (void)mkdir("build", 0777);
    int ok = cli_outset_mkdir(&c.os, c.dir) == 0;
    ok = ok && (c.report = out_file(&c, "report.csv", 0)) >= 0;
    ok = ok && (c.mem = out_file(&c, "memory_vs_n.csv", 0)) >= 0;
    ok = ok && (!c.plots || (c.mem_png = out_file(&c, "memory_vs_n.png", 1)) >= 0);
    ok = ok && (longk < 0 || (c.longctx = out_file(&c, "long_context.csv", 0)) >= 0);
    ok = ok && (c.decode = out_file(&c, "decode.csv", 0)) >= 0;
    ok = ok && (c.kernels = out_file(&c, "kernels.csv", 0)) >= 0;
    ok = ok && (c.papers = out_file(&c, "papers.csv", 0)) >= 0;
    ok = ok && (!(cph->nvlink_bandwidth > 0) || (c.cp = out_file(&c, "cp.csv", 0)) >= 0);
    ok = ok && (!(cph->nvlink_bandwidth > 0) || !c.plots || (c.cp_png = out_file(&c, "cp_time_vs_p.png", 1)) >= 0);
    for (int k = 0; k < nm && ok; k++) {
        char name[160];
        snprintf(name, sizeof name, "hbm_vs_n_%s.csv", models[k].stem);
        ok = (c.n_csv[k] = out_file(&c, name, 0)) >= 0;
        snprintf(name, sizeof name, "hbm_vs_n_%s.png", models[k].stem);
        c.n_png[k] = -1;
        ok = ok && (!c.plots || (c.n_png[k] = out_file(&c, name, 1)) >= 0);
    }
    ok = ok && (c.sram = out_file(&c, "hbm_vs_sram.csv", 0)) >= 0;
    ok = ok && (!c.plots || (c.sram_png = out_file(&c, "hbm_vs_sram.png", 1)) >= 0);
    ok = ok && (c.block = out_file(&c, "hbm_vs_block.csv", 0)) >= 0;
    ok = ok && (!c.plots || (c.block_png = out_file(&c, "hbm_vs_block.png", 1)) >= 0);
    if (!ok) { /* the message printed */
        fa_outset_abort(&c.os);
        free(rows);
        return EXIT_USAGE;
    }
    /* report.csv: every (model, hw, algo) row in the io CSV columns */
    fa_report_csv(out_stream(&c, c.report), models, rows, nm, hw, nh);
    rc = csv_done(&c, c.report);

    /* Tables: per model, each layer type's one layer, then (two types) the model pass summed. */
    int any_oom = 0; /* a row the tables mark "out of memory" */
    for (int k = 0; k < nm && !c.quiet && rc == 0; k++) {
        const fa_report_rows *rw = &rows[k];
        const fa_model *m = &models[k].m;
        for (int t = 0; t < rw->nkind; t++) {
            const fa_shape *s = &rw->s[t];
            char wbuf[64] = "", dbuf[64] = "", xbuf[320] = "", lbuf[264] = "", tbuf[160];
            snprintf(tbuf, sizeof tbuf, "%s%s", fa_dtype_name(s->dtype),
                     s->dtype != m->dtype ? " (the model is published in fp32; counted in bf16, as the FlashAttention kernels take fp16/bf16)"
                     : m->dtype_default ? " (no torch_dtype in the config: fasim's default fp16; Transformers would load fp32)" : "");
            if (s->window) snprintf(wbuf, sizeof wbuf, " + sliding window of %" PRId64, s->window_left + 1);
            if (s->d_v != s->d) snprintf(dbuf, sizeof dbuf, ", d_v = %" PRId64, s->d_v);
            { /* the scale Transformers uses, and where it comes from; the softcap */
                int o = snprintf(xbuf, sizeof xbuf, ", scale = %.6g (%s%s%s)", fa_model_scale(m),
                                 m->scale > 0 && m->scale_from[0] ? m->scale_from : "1/sqrt(d)",
                                 m->scale_note[0] ? "; " : "", m->scale_note);
                if (m->softcap > 0 && o > 0 && (size_t)o < sizeof xbuf)
                    snprintf(xbuf + o, sizeof xbuf - (size_t)o, ", softcap %g", m->softcap);
            }
            if (rw->nkind == 1) { /* a window that covers N: say so, as no sliding-window table follows */
                char cov[200];
                window_covers_text(m, s->seqlen_k, cov, sizeof cov);
                snprintf(lbuf, sizeof lbuf, "%" PRId64 " layer%s per model pass%s%s", m->layers, m->layers == 1 ? "" : "s",
                         cov[0] ? "; " : "", cov);
            }
            else
                snprintf(lbuf, sizeof lbuf, "%" PRId64 " of %" PRId64 " layers per model pass", rw->layers[t], m->layers);
            printf("== %s: H = %" PRId64 ", H_kv = %" PRId64 ", d = %" PRId64 "%s, %s, causal%s%s, B = %" PRId64
                   ", N = %" PRId64 "; one attention layer, %s (x %s)\n",
                   m->name, s->heads, s->kv_heads, s->d, dbuf, tbuf, wbuf, xbuf, s->batch,
                   s->seqlen_q, pass == FA_PASS_FWD ? "forward" : pass == FA_PASS_BWD ? "backward" : "forward + backward",
                   lbuf);
            if (m->note[0] && t == 0) printf("   note: %s\n", m->note);
            if (m->mla && t == 0)
                printf("   MLA (multi-head latent attention): training and prefill as above; decoding in the latent form "
                       "(FlashMLA) has d = %" PRId64 ", d_v = %" PRId64 ", H_kv = 1\n", m->latent_d, m->latent_d_v);
            printf("%-15s %-9s %-6s %5s %5s %12s %9s %12s %12s %9s %8s %8s\n", "hardware", "algo", "kernel", "B_r",
                   "B_c", "HBM bytes", "vs std", "DRAM est", "time", "vs std", "TFLOP/s", "bound");
            static int legend_named; /* the first table points to the legend, printed after the last */
            if (!legend_named++)
                printf("(kernel: the profile timed; vs std: standard's bytes (time) / this row's; DRAM est: the bytes "
                       "past the L2; bound: what sets the time -- the legend in full after the last model's table)\n");
            for (int h = 0; h < nh; h++)
                for (int a = 0; a < FA_NALGO; a++) {
                    const fa_io_result *x = &rw->r[t][h][a], *sd = &rw->r[t][h][FA_ALGO_STANDARD];
                    const int sdr = rw->ran[t][h][FA_ALGO_STANDARD];
                    if (!rw->ran[t][h][a]) {
                        printf("%-15s %-9s %-6s  no kernel for this shape: %s\n", a == 0 ? hw[h].name : "",
                               fa_algo_name((fa_algo)a), fa_profile_default((fa_algo)a)->key, rw->why[t][h][a]);
                        continue;
                    }
                    char b1[32], b3[32], b4[32], v1[16] = "-", v2[16] = "-";
                    double by = (double)fa_counts_hbm_bytes(&x->counts);
                    double sb = (double)fa_counts_hbm_bytes(&sd->counts);
                    if (sdr) snprintf(v1, sizeof v1, "%.2fx", sb / by);
                    /* a time ratio of like with like only: a roofline against the time model is no speed-up */
                    if (sdr && sd->has_perf == x->has_perf)
                        snprintf(v2, sizeof v2, "%.2fx", fa_report_time(sd) / fa_report_time(x));
                    /* a pass whose live tensors exceed the GPU's memory is still counted, and says so */
                    fa_footprint fp;
                    char oom[96] = "";
                    if (hw[h].hbm_capacity && fa_hbm_footprint(x->algo, s, &fp) == FA_OK) {
                        const uint64_t live = pass == FA_PASS_FWD ? fp.fwd_peak : fp.peak;
                        char b5[32], b6[32];
                        if (live > hw[h].hbm_capacity && (any_oom = 1))
                            snprintf(oom, sizeof oom, "  out of memory: %s live of %s",
                                     fa_fmt_bytes((double)live, b5, sizeof b5),
                                     fa_fmt_bytes((double)hw[h].hbm_capacity, b6, sizeof b6));
                    } else {
                        fa_clear_error();
                    }
                    char why[400] = ""; /* a kernel this GPU's profile cannot time (b200: no mma.sync rate) */
                    if (!x->has_perf && !oom[0])
                        snprintf(why, sizeof why, "  roofline time and TFLOP/s, in parentheses, not the time model (so no time 'vs std'): %s; "
                                 "an ideal bound, not a prediction: not comparable with a time-model time (legend below)",
                                 x->perf_note[0] ? x->perf_note : "no time model for this kernel here");
                    /* a roofline's time and TFLOP/s in parentheses: not the time model's (the row says why) */
                    char tc[40], fc[24], tt[32];
                    fa_fmt_time(fa_report_time(x), tt, sizeof tt);
                    snprintf(tc, sizeof tc, x->has_perf ? "%s" : "(%s)", tt);
                    snprintf(fc, sizeof fc, x->has_perf ? "%.1f" : "(%.1f)", fa_report_tflops(x));
                    printf("%-15s %-9s %-6s %5" PRId64 " %5" PRId64 " %12s %9s %12s %12s %9s %8s %8s%s%s\n",
                           a == 0 ? hw[h].name : "", fa_algo_name(x->algo), x->profile, x->blocks.block_r,
                           x->blocks.block_c, fa_fmt_bytes(by, b1, sizeof b1), v1,
                           x->has_perf ? fa_fmt_bytes((double)x->dram_est_bytes, b4, sizeof b4) : "-",
                           tc, v2, fc, fa_report_bound(x), x->has_perf && x->perf_tail && !x->perf_latency ? " + tail" : "",
                           oom[0] ? oom : why);
                    (void)b3;
                }
            /* FlashAttention-1/-2's released API: V's head dim = Q's; counted as given (as fasim io's note) */
            char unpadded[48] = "";
            for (int a = 0; a < FA_NALGO && s->d_v != s->d; a++) {
                int ran = 0;
                for (int h = 0; h < nh; h++) ran |= rw->ran[t][h][a];
                const char *key = fa_profile_default((fa_algo)a)->key;
                if (ran && (!strcmp(key, "fa2") || !strcmp(key, "fa1"))) {
                    size_t l = strlen(unpadded);
                    snprintf(unpadded + l, sizeof unpadded - l, "%s%s (%s)", l ? ", " : "", fa_algo_name((fa_algo)a), key);
                }
            }
            if (unpadded[0])
                printf("note: %s: d_v = %" PRId64 " != d = %" PRId64 " counted and timed as given, V and O unpadded; "
                       "FlashAttention-2's released API checks V's head dim against Q's, so its callers pad V (and O) to %"
                       PRId64 " and move more (fasim io --headdim-v %" PRId64 " counts that; docs/time-model.md section 2)\n",
                       unpadded, s->d_v, s->d, s->d, s->d);
            printf("\n");
        }
        if (rw->nkind == 2) { /* the layer types summed: layers[0] x full + layers[1] x windowed */
            printf("== %s, the model pass: %" PRId64 " full-attention layers + %" PRId64
                   " sliding-window layers, summed (%s)\n",
                   m->name, rw->layers[0], rw->layers[1],
                   pass == FA_PASS_FWD ? "forward" : pass == FA_PASS_BWD ? "backward" : "forward + backward");
            printf("%-15s %-9s %12s %12s\n", "hardware", "algo", "HBM bytes", "time");
            int roofs = 0; /* sums of rooflines: in parentheses, as the rows (a sum of both kinds: '-') */
            for (int h = 0; h < nh; h++)
                for (int a = 0; a < FA_NALGO; a++) {
                    char b1[32], b3[32], tt[40];
                    if (!rw->ran_all[h][a]) {
                        printf("%-15s %-9s %12s %12s  (no kernel for a layer type)\n", a == 0 ? hw[h].name : "",
                               fa_algo_name((fa_algo)a), "-", "-");
                        continue;
                    }
                    int nroof = 0;
                    for (int t = 0; t < rw->nkind; t++) nroof += !rw->r[t][h][a].has_perf;
                    fa_fmt_time(rw->total_time_s[h][a], b3, sizeof b3);
                    snprintf(tt, sizeof tt, nroof == rw->nkind ? "(%s)" : nroof ? "-" : "%s", b3);
                    roofs += nroof == rw->nkind;
                    printf("%-15s %-9s %12s %12s%s\n", a == 0 ? hw[h].name : "", fa_algo_name((fa_algo)a),
                           fa_fmt_bytes(rw->total_bytes[h][a], b1, sizeof b1), tt,
                           nroof && nroof < rw->nkind ? "  (one layer type timed, the other a roofline: no sum)" : "");
                }
            if (roofs)
                printf("(time in parentheses: the layers' roofline times summed, as the rows above print them: not the "
                       "time model, so not comparable with the others)\n");
            printf("\n");
        }
        if (k == nm - 1) /* after the last model's tables: the notes that apply to them */
            models_footnote(models, nm, rows, hw, nh, pass, any_oom);
        if (k == nm - 1) printf("\n");
    }

    /* Training: forward + backward on GPT-2 medium's shape, and the HBM footprint vs N. */
    if (rc == 0) rc = training(&c, hw, nh);
    /* Long context: a sliding window (Mistral-7B) against full causal attention. */
    if (rc == 0 && longk >= 0) rc = long_context(&c, &models[longk], &hw[nh - 1]);
    if (rc == 0 && longk < 0 && !c.quiet)
        printf("== long context: skipped, no model given has a sliding window on every layer (the section takes the\n"
               "   first that has: Mistral-7B, Phi-3 among the shipped configs; Gemma-2/3 mix full-attention layers in);\n"
               "   no long_context.csv written\n\n");
    /* Decoding: Llama-3-8B's GQA shape, split-KV and GQA packing (cmd_infer.c). */
    /* The kernel profiles: predicted time and TFLOP/s of each real kernel per model and GPU. */
    fa_shape shapes[MAX_MODELS];
    for (int k = 0; k < nm; k++) shapes[k] = rows[k].s[0];
    if (rc == 0) rc = kernels_table(&c, models, nm, shapes, hw, nh, pass);
    if (rc == 0) rc = csv_done(&c, c.kernels);
    /* The papers' figures beside the time model (analysis/measured/papers/published.csv). */
    if (rc == 0) rc = papers(&c);
    if (rc == 0) rc = csv_done(&c, c.papers);
    if (rc == 0) rc = infer_report(out_stream(&c, c.decode), c.quiet, hw, nh);
    if (rc == 0) rc = csv_done(&c, c.decode);
    /* Context parallelism: Llama-3-70B's attention over P = 1 .. 8 GPUs (cmd_cp.c). */
    if (rc == 0 && c.cp >= 0) rc = cp_report(out_stream(&c, c.cp), c.quiet, cph);
    if (rc == 0 && c.cp >= 0) rc = csv_done(&c, c.cp);
    if (rc == 0 && c.cp_png >= 0) {
        char vars[2000];
        snprintf(vars, sizeof vars, "infile='%s'; outfile='%s'; ttl='Llama-3-70B attention (H = 64, H_kv = 8, d = 128, bf16, "
                 "causal, B = 1): one layer''s forward over P GPUs of %s, NVLink %.4g GB/s per direction'; "
                 "ttl2='predicted by fasim (docs/context-parallel.md), not measured: no multi-GPU run yet'",
                 fa_outset_target(&c.os, c.cp), fa_outset_target(&c.os, c.cp_png), cph->name, cph->nvlink_bandwidth / 1e9);
        draw(&c, "cp_time_vs_p.gp", vars, c.cp_png);
    }
    if (rc == 0 && c.cp < 0 && !c.quiet)
        printf("== context parallelism: skipped, %s gives no nvlink_bytes_per_s\n\n", cph->name);

    /* Plots: HBM vs N per model (last hw), HBM vs M and vs block on a Llama-3-8B-like shape. */
    const fa_hw *ph = &hw[nh - 1];
    for (int k = 0; k < nm && rc == 0; k++) rc = sweep_n(&c, k, &models[k], &rows[k], ph);
    const int ref = fa_report_plot_model(models, nm);
    fa_shape s = rows[ref].s[0];
    s.seqlen_q = s.seqlen_k = 8192;
    if (rc == 0) rc = sweep_sram(&c, models[ref].m.name, &s, hw, nh);
    if (rc == 0) rc = sweep_block(&c, models[ref].m.name, &s, ph);
    free(rows);
    if (rc) {
        fa_outset_abort(&c.os);
        return rc;
    }
    if ((rc = cli_outset_commit(&c.os))) return rc;
    static char removed[64][300], removed_tmp[64][300];
    int ntmp;
    const int nrm = remove_stale(&c, removed, removed_tmp, 64, &ntmp);
    if (!c.quiet) {
        printf("files written (every CSV column defined in docs/report-csv.md; report.csv's dram_read_bytes and\n"
               " dram_write_bytes stay empty: the report runs no L2 replay, its DRAM figure is dram_est_bytes):\n");
        for (int i = 0; i < c.n_written; i++) printf("  %s\n", c.written[i]);
        if (nrm > 0) {
            printf("removed from %s, an earlier report's files this run did not write (other models, --no-plots,\n"
                   " no long-context model; only the report's own file names):\n", c.dir);
            for (int i = 0; i < nrm && i < 64; i++) printf("  %s/%s\n", c.dir, removed[i]);
            if (nrm > 64) printf("  ... and %d more\n", nrm - 64);
        }
        if (ntmp > 0) {
            printf("removed from %s, the temporaries (NAME.tmp.PID) of a report that was killed while writing\n"
                   " (process PID no longer runs; only temporaries of the report's own file names):\n", c.dir);
            for (int i = 0; i < ntmp && i < 64; i++) printf("  %s/%s\n", c.dir, removed_tmp[i]);
            if (ntmp > 64) printf("  ... and %d more\n", ntmp - 64);
        }
    }
    return 0;
}
