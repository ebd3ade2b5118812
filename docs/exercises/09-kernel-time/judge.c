/* judge.c -- exercise 09: the time of one K/V tile of a FlashAttention-2-style forward from the
 * rates of the GPU's pipes.  Every function is checked against numbers the judge derives itself:
 * literals worked out by hand in the comments on a synthetic GPU of round rates, and the same
 * closed form (written out below, apart from the student's code) on the real H200 profile; then
 * the question of the exercise (d = 64 gives fewer TFLOP/s than d = 128, and which phase bounds
 * a wgmma kernel at each d); last, the tile time against fasim's own time model (fa_perf_predict
 * with profile "fa2") on a long sequence, where the kernel time is almost all steady-state tiles. */
#include "judge.h"
#include "ex.h"
#include "fa_perf.h"

#define REL 1e-9 /* closed forms in double: agreement to rounding */

static int close_to(double got, double want, double rel)
{
    return isfinite(got) && fabs(got - want) <= rel * fabs(want);
}

/* ---- the judge's own closed form (docs/time-model.md; analysis/perf.c time_flash) ---- */

typedef struct {
    double tensor, smem, exp, fp32, G, S, tile;
} pipes;

/* clock: 0 leaves the exp unit, fp32 ALU and shared memory at the rates measured at clock_hz
 * (the mistake the hints name); overlap: 0 replaces the overlap law by max (perfect overlap). */
static pipes want_pipes(const ex_kernel *k, const fa_hw *hw, int clock, int overlap)
{
    const double Br = k->block_r, Bc = k->block_c, d = k->d, sms = hw->sms;
    double mma = k->wgmma ? hw->wgmma_flops : hw->mma_sync_flops;
    double f = k->wgmma ? hw->wgmma_clock_hz : hw->mma_sync_clock_hz;
    double c = clock && f > 0 && hw->clock_hz > 0 ? f / hw->clock_hz : 1.0;
    pipes p;
    p.tensor = 4 * Br * Bc * d * sms / mma;
    p.smem = k->smem_bytes_per_tile * sms / (c * hw->smem_bandwidth);
    p.exp = Br * Bc * sms / (c * hw->exp_per_s);
    p.fp32 = (4.5 * Br * Bc + Br * d) * sms / (c * hw->fma_flops / 2);
    double wg = k->blocks_per_sm * k->warps / 4.0, wt = k->blocks_per_sm;
    if (wg < 1) wg = 1;
    if (wt < 1) wt = 1;
    p.G = fmax(p.tensor, p.smem) + (overlap ? fmin(p.tensor, p.smem) / wg : 0);
    p.S = p.exp + p.fp32;
    p.tile = fmax(p.G, p.S) + (overlap ? fmin(p.G, p.S) / wt : 0);
    return p;
}

static void check_tile(const char *what, const ex_kernel *k, const fa_hw *hw, double want)
{
    double got = ex_tile_time(k, hw);
    pipes p = want_pipes(k, hw, 1, 1);
    int ok = close_to(got, want, REL);
    const char *hint = "";
    if (!ok && close_to(got, want_pipes(k, hw, 0, 1).tile, 1e-6))
        hint = " -- the exp unit, fp32 ALU and shared memory run at the clock the SM holds while its "
               "tensor cores are busy: scale their rates by the MMA family's clock / clock_hz";
    else if (!ok && close_to(got, want_pipes(k, hw, 1, 0).tile, 1e-6))
        hint = " -- that is max(): perfect overlap; w streams hide only (w - 1) / w of the shorter phase";
    else if (!ok)
        hint = " -- compare your pipes with the expected ones";
    judge_check(ok,
                "%s: tile %.6g ns (tensor %.4g, smem %.4g, exp %.4g, fp32 %.4g ns; G %.4g, S %.4g ns); "
                "you said %.6g ns%s",
                what, want * 1e9, p.tensor * 1e9, p.smem * 1e9, p.exp * 1e9, p.fp32 * 1e9, p.G * 1e9, p.S * 1e9,
                got * 1e9, hint);
}

static void check_tflops(const char *what, const ex_kernel *k, const fa_hw *hw, double want)
{
    double got = ex_tflops(k, hw);
    /* the TFLOP/s the student's own tile time gives: tells a wrong tile time from a wrong formula */
    double tile = ex_tile_time(k, hw);
    double own = tile > 0 ? 4.0 * k->block_r * k->block_c * k->d * hw->sms / tile / 1e12 : NAN;
    int ok = close_to(got, want, REL);
    judge_check(ok, "%s: %.6g TFLOP/s with every SM busy; you said %.6g%s", what, want, got,
                ok                        ? ""
                : close_to(got, own, REL) ? " -- right from your ex_tile_time, which is off (see its check)"
                                          : " -- 4 B_r B_c d FLOPs per tile; each SM finishes one tile per tile time");
}

static void check_bound(const char *what, const ex_kernel *k, const fa_hw *hw, const char *want)
{
    const char *got = ex_bound(k, hw);
    int ok = got && !strcmp(got, want);
    pipes p = want_pipes(k, hw, 1, 1);
    judge_check(ok, "%s: the %s phase is the longer (G %.4g ns, S %.4g ns); you said %s%s", what, want, p.G * 1e9,
                p.S * 1e9, got ? got : "(null)", ok ? "" : " -- return \"gemm\" or \"softmax\", the larger of G and S");
}

/* ---- a synthetic GPU of round rates ----
 * 100 SMs; rates measured at clock_hz = 2 GHz; mma.sync 400 TFLOP/s at 1.6 GHz (c = 0.8), wgmma
 * 800 TFLOP/s at 1.0 GHz (c = 0.5); exp 4e12/s, fp32 FMA 40 TFLOP/s (20e12 fp32 ops/s),
 * shared memory 20 TB/s.  One SM's share, at the clock of each MMA family:
 *                  tensor      smem        exp          fp32 ops
 *   mma.sync (0.8) 4e12 FLOP/s 1.6e11 B/s  3.2e10 /s    1.6e11 /s
 *   wgmma    (0.5) 8e12 FLOP/s 1.0e11 B/s  2.0e10 /s    1.0e11 /s
 *   no clocks (1)  4e12 FLOP/s 2.0e11 B/s  4.0e10 /s    2.0e11 /s
 * Kernel A: B_r 64, B_c 32, d 48, 6 warps, 3 blocks per SM, 24576 B of shared memory per tile,
 * mma.sync.  Per tile: 4 x 64 x 32 x 48 = 393216 FLOPs, 2048 exps, 4.5 x 2048 + 64 x 48 = 12288
 * fp32 ops; streams w_G = 3 x 6 / 4 = 4.5, w = 3:
 *   tensor 393216 / 4e12 = 98.304 ns, smem 24576 / 1.6e11 = 153.6 ns,
 *   exp 2048 / 3.2e10 = 64 ns, fp32 12288 / 1.6e11 = 76.8 ns;
 *   G = 153.6 + 98.304 / 4.5 = 175.4453333 ns, S = 140.8 ns (gemm),
 *   tile = 175.4453333 + 140.8 / 3 = 222.3786667 ns;
 *   TFLOP/s = 393216 x 100 / 222.3786667 ns / 1e12 = 176.8244 (39321600 / 222378.6667).
 * Kernel B: A on wgmma with no shared-memory operand loads (smem 0):
 *   tensor 393216 / 8e12 = 49.152 ns = G; exp 2048 / 2e10 = 102.4 ns, fp32 12288 / 1e11 =
 *   122.88 ns, S = 225.28 ns (softmax); tile = 225.28 + 49.152 / 3 = 241.664 ns.
 * Kernel A on the same GPU without its clock keys (mma_sync_clock_hz = clock_hz = 0: c = 1):
 *   smem 122.88 ns, exp 51.2 ns, fp32 61.44 ns; G = 122.88 + 21.8453333 = 144.7253333 ns,
 *   S = 112.64 ns, tile = 144.7253333 + 37.5466667 = 182.272 ns. */
static fa_hw synthetic(void)
{
    fa_hw hw;
    memset(&hw, 0, sizeof hw);
    snprintf(hw.name, sizeof hw.name, "synthetic");
    snprintf(hw.key, sizeof hw.key, "synthetic");
    hw.sms = 100;
    hw.clock_hz = 2.0e9;
    hw.mma_sync_flops = 400e12;
    hw.mma_sync_clock_hz = 1.6e9;
    hw.wgmma_flops = 800e12;
    hw.wgmma_clock_hz = 1.0e9;
    hw.exp_per_s = 4e12;
    hw.fma_flops = 40e12;
    hw.smem_bandwidth = 20e12;
    return hw;
}

/* FlashAttention-2's forward kernels (analysis/profiles.c, "fa2": Flash_fwd_kernel_traits<64,
 * 128, 128, 4> and <128, 128, 64, 4>; 255 registers a thread, so 2 blocks of 128 threads per SM).
 * The GEMMs read from shared memory, per tile, Q_i by its 1 warp (each warp its own rows) and
 * K_j, V_j by all 4 warps: 2 (1 B_r d + 4 B_c d + 4 B_c d) bytes. */
static ex_kernel fa2(int d)
{
    ex_kernel k = {128, d <= 64 ? 128 : 64, d, 4, 2, 0, 0};
    k.smem_bytes_per_tile = 2.0 * (1.0 * k.block_r * d + 4.0 * k.block_c * d + 4.0 * k.block_c * d);
    return k;
}

/* A wgmma kernel like kernels/ v4_bc64 (two warpgroups, 128 x 64 tiles, 2 blocks per SM): the
 * tensor cores read Q, K, V from shared memory themselves (in the wgmma rate), P from registers. */
static ex_kernel v4(int d)
{
    ex_kernel k = {128, 64, d, 8, 2, 0, 1};
    return k;
}

/* The cross-check: fasim's own time model, profile "fa2" on the H200, B = 1, H = 66, N = 16384,
 * bf16, no mask.  T_r = 16384 / 128 = 128 row blocks a head: 66 x 128 = 8448 thread blocks,
 * exactly 32 waves of 132 SMs x 2; each block visits T_c tiles.  fasim's kernel time is those
 * waves' steady-state tiles, T_r T_c H x tile / SMs, plus per block a prologue and epilogue (the
 * DRAM latency and the block's own and shared tiles at its SM's shares of the DRAM and L2
 * bandwidth: about 4-6 us against some 400-750 us of tiles a block) and one launch (4 us against
 * some 13-24 ms): under 1 %.  A 2 % tolerance leaves room for that, and still catches
 * the unscaled clock (4 %) or perfect overlap (about 30 %).  The check needs fasim to place these
 * kernels as the exercise does (tiles, 4 warps, 2 blocks per SM): if the library's profile
 * changes, the check says so. */
static void cross_check(const fa_hw *hw, int d)
{
    const fa_profile *prof = fa_profile_find("fa2");
    fa_shape s = fa_shape_default(16384, d);
    s.heads = s.kv_heads = 66;
    s.dtype = FA_DTYPE_BF16;
    ex_kernel k = fa2(d);
    fa_perf_result r;
    if (!prof || fa_perf_predict(prof, FA_PASS_FWD, &s, hw, NULL, &r) || !r.has_time) {
        judge_check(0, "fasim fa2, d = %d: fa_perf_predict failed: %s", d, fa_last_error());
        fa_clear_error();
        return;
    }
    const fa_occupancy *o = &r.occ[0];
    if (o->blocks.block_r != k.block_r || o->blocks.block_c != k.block_c || o->warps != k.warps ||
        o->occupancy != k.blocks_per_sm) {
        judge_check(0, "fasim fa2, d = %d: fasim places %" PRId64 " x %" PRId64 " tiles, %d warps, %d blocks per SM; "
                    "the exercise assumes %d x %d, %d, %d (the exercise is out of date with analysis/profiles.c)",
                    d, o->blocks.block_r, o->blocks.block_c, o->warps, o->occupancy, k.block_r, k.block_c, k.warps,
                    k.blocks_per_sm);
        return;
    }
    const double Tr = (double)fa_cdiv(s.seqlen_q, k.block_r), Tc = (double)fa_cdiv(s.seqlen_k, k.block_c);
    double tile = ex_tile_time(&k, hw);
    double mine = Tr * Tc * (double)(s.batch * s.heads) * tile / hw->sms;
    int ok = close_to(mine, r.time_s, 0.02);
    judge_check(ok,
                "fasim fa2, d = %d, H = 66, N = 16384 on %s: fasim's kernel time %.4g ms; T_r T_c H x your tile / SMs "
                "= %.4g ms (%+.2f %%; 2 %% allowed)%s",
                d, hw->name, r.time_s * 1e3, mine * 1e3, r.time_s > 0 ? 100 * (mine / r.time_s - 1) : 0.0,
                ok ? "" : " -- your tile time is not fasim's (the checks above say which part)");
}

/* Not a check: what fasim's own v4_bc64 does at the cross-check's shape, d = 64.  Its wgmma runs at
 * the clock of its tensor load (wgmma_clock_by_load), not the full-load wgmma_clock_hz the checks
 * above use, and its tile may count terms the exercise leaves out; every number printed here is
 * the library's, so the note follows the time model wherever it goes. */
static void note_v4_bc64(const fa_hw *hw, const ex_kernel *w64)
{
    const fa_profile *prof = fa_profile_find("v4_bc64");
    fa_shape s = fa_shape_default(16384, 64);
    s.heads = s.kv_heads = 66;
    s.dtype = FA_DTYPE_BF16;
    fa_perf_result r;
    if (!prof || fa_perf_predict(prof, FA_PASS_FWD, &s, hw, NULL, &r) || !r.has_time) {
        fa_clear_error();
        return;
    }
    const fa_perf_kernel *k = &r.k[0];
    const double full = hw->wgmma_clock_hz > 0 ? hw->wgmma_clock_hz : hw->clock_hz;
    const double clk = k->load_clock_hz > 0 ? k->load_clock_hz : full;
    printf("note  (not a check) fasim's v4_bc64 at H = 66, N = 16384, d = 64 (fasim explain --profile v4_bc64 --hw h200 "
           "--heads 66 --seqlen 16384 --headdim 64 --dtype bf16): its pipes, the tensor pipe too, run at %.0f MHz, %s, "
           "not the full-load %.0f MHz used above; its tile is %.4g ns (tensor %.4g, exp %.4g, fp32 %.4g ns) against the %.4g ns "
           "of this exercise's model\n",
           clk / 1e6,
           k->load_clock_hz > 0 ? "the clock the GPU holds at that kernel's tensor load (wgmma_clock_by_load)"
                                : "the full-load clock",
           full / 1e6, k->tile * 1e9, k->t_tensor * 1e9, k->t_exp * 1e9, k->t_fp32 * 1e9,
           want_pipes(w64, hw, 1, 1).tile * 1e9);
}

int main(void)
{
    /* ex_pipe_time */
    double t = ex_pipe_time(393216, 400e12, 100); /* 393216 / 4e12 = 98.304 ns */
    judge_check(close_to(t, 98.304e-9, REL), "ex_pipe_time(393216 FLOPs, 400e12 /s, 100 SMs) = 98.304 ns; you said %.6g ns%s",
                t * 1e9, close_to(t, 98.304e-9, REL) ? "" : " -- one SM gets rate / sms");
    t = ex_pipe_time(2.385e6, 3.3e12, 132); /* 2.385e6 x 132 / 3.3e12 = 95.4 us */
    judge_check(close_to(t, 95.4e-6, REL), "ex_pipe_time(2.385e6, 3.3e12 /s, 132 SMs) = 95.4 us; you said %.6g us", t * 1e6);

    /* ex_overlap: max(a, b) + min(a, b) / max(w, 1) */
    static const struct {
        double a, b, w, want;
        const char *why;
    } ov[] = {
        {3, 5, 2, 6.5, "5 + 3 / 2"},
        {5, 3, 2, 6.5, "the order of the phases does not matter"},
        {2.385, 1.2, 4, 2.685, "2.385 + 1.2 / 4"},
        {2.385, 1.2, 1, 3.585, "one stream hides nothing: the sum"},
        {2.385, 1.2, 0.5, 3.585, "w < 1 counts as 1"},
        {1.2, 2.385, 1e9, 2.3850000012, "many streams: almost max(a, b)"},
    };
    for (size_t i = 0; i < sizeof ov / sizeof ov[0]; i++) {
        double got = ex_overlap(ov[i].a, ov[i].b, ov[i].w);
        judge_check(close_to(got, ov[i].want, REL), "ex_overlap(%g, %g, %g) = %.10g (%s); you said %.10g", ov[i].a,
                    ov[i].b, ov[i].w, ov[i].want, ov[i].why, got);
    }

    /* ex_tile_time, ex_tflops, ex_bound on the synthetic GPU (the literals of the comment above) */
    fa_hw syn = synthetic(), noclk = synthetic();
    noclk.clock_hz = noclk.mma_sync_clock_hz = noclk.wgmma_clock_hz = 0;
    ex_kernel A = {64, 32, 48, 6, 3, 24576, 0}, B = {64, 32, 48, 6, 3, 0, 1};
    check_tile("synthetic GPU, kernel A (64 x 32, d 48, 6 warps, 3 blocks/SM, mma.sync)", &A, &syn, 222.378666666667e-9);
    check_tile("synthetic GPU, kernel B (A on wgmma, no smem operand loads)", &B, &syn, 241.664e-9);
    check_tile("synthetic GPU without clock keys (c = 1), kernel A", &A, &noclk, 182.272e-9);
    check_tflops("synthetic GPU, kernel A", &A, &syn, 39321600.0 / 222378.666666667);
    check_bound("synthetic GPU, kernel A", &A, &syn, "gemm");
    check_bound("synthetic GPU, kernel B", &B, &syn, "softmax");

    /* the H200 (sim/hw/h200-sxm.hw: the rates measured by kernels/ubench_pipes.cu) */
    fa_hw h200;
    if (fa_hw_load("h200", NULL, &h200)) {
        judge_check(0, "loading the H200 profile: %s", fa_last_error());
        return judge_verdict("09 (kernel time from the pipes)");
    }
    ex_kernel f64 = fa2(64), f128 = fa2(128), w64 = v4(64), w128 = v4(128);
    pipes p64 = want_pipes(&f64, &h200, 1, 1), p128 = want_pipes(&f128, &h200, 1, 1);
    check_tile("H200, FlashAttention-2 d = 64 (128 x 128, 4 warps, 2 blocks/SM, mma.sync)", &f64, &h200, p64.tile);
    check_tile("H200, FlashAttention-2 d = 128 (128 x 64, 4 warps, 2 blocks/SM, mma.sync)", &f128, &h200, p128.tile);
    check_tile("H200, wgmma d = 64 (128 x 64, 8 warps, 2 blocks/SM)", &w64, &h200, want_pipes(&w64, &h200, 1, 1).tile);
    check_tile("H200, wgmma d = 128 (128 x 64, 8 warps, 2 blocks/SM)", &w128, &h200, want_pipes(&w128, &h200, 1, 1).tile);
    const double tf64 = 4.0 * 128 * 128 * 64 * h200.sms / p64.tile / 1e12;
    const double tf128 = 4.0 * 128 * 64 * 128 * h200.sms / p128.tile / 1e12;
    check_tflops("H200, FlashAttention-2 d = 64", &f64, &h200, tf64);
    check_tflops("H200, FlashAttention-2 d = 128", &f128, &h200, tf128);

    /* the question: d = 64 is slower per FLOP -- and why */
    double g64 = ex_tflops(&f64, &h200), g128 = ex_tflops(&f128, &h200);
    judge_check(isfinite(g64) && isfinite(g128) && g64 > 0 && g64 < g128,
                "H200, FlashAttention-2: d = 64 gives fewer TFLOP/s than d = 128 (%.4g < %.4g expected); you said %.4g, %.4g",
                tf64, tf128, g64, g128);
    check_bound("H200, wgmma d = 64 (one exp per score against 4 x 64 FLOPs)", &w64, &h200, "softmax");
    check_bound("H200, wgmma d = 128 (one exp per score against 4 x 128 FLOPs)", &w128, &h200, "gemm");

    /* against fasim itself */
    cross_check(&h200, 64);
    cross_check(&h200, 128);
    note_v4_bc64(&h200, &w64);
    return judge_verdict("09 (kernel time from the pipes)");
}
