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

/* ---- the judge's own closed form (docs/time-model.md sections 4-5; analysis/perf.c time_flash_at,
 * phase_streams) ---- */

typedef struct {
    double tensor, smem, exp, fp32, w_gemm, c, w_phase, G, S, tile; /* c < 0: G by the law's min / w_gemm */
} pipes;

/* The mistakes the hints name, each one rule of the model left out (0: none: the model itself). */
enum {
    MISS_CLOCK = 1,   /* exp unit, fp32 ALU and shared memory at the rates measured at clock_hz */
    MISS_OVERLAP = 2, /* max(G, S) and max(tensor, smem): perfect overlap */
    MISS_LDSM = 4,    /* G = max + min / w_gemm where ldsm_mma_overlap's points apply */
    MISS_PHASE = 8,   /* w_phase = blocks per SM, a block of 4 warps counted as a whole stream */
    MISS_CAP = 16,    /* w_phase = blocks x warps / 8 without the cap at 8 warps a block */
};

static pipes want_pipes(const ex_kernel *k, const fa_hw *hw, unsigned miss)
{
    const double Br = k->block_r, Bc = k->block_c, d = k->d, sms = hw->sms;
    double mma = k->wgmma ? hw->wgmma_flops : hw->mma_sync_flops;
    double f = k->wgmma ? hw->wgmma_clock_hz : hw->mma_sync_clock_hz;
    double c = !(miss & MISS_CLOCK) && f > 0 && hw->clock_hz > 0 ? f / hw->clock_hz : 1.0;
    pipes p;
    p.tensor = 4 * Br * Bc * d * sms / mma;
    p.smem = k->smem_bytes_per_tile * sms / (c * hw->smem_bandwidth);
    p.exp = Br * Bc * sms / (c * hw->exp_per_s);
    p.fp32 = (4.5 * Br * Bc + Br * d) * sms / (c * hw->fma_flops / 2);
    p.w_gemm = k->blocks_per_sm * k->warps / 4.0; /* the law counts w < 1 as 1; the lookup takes it as is */
    const int wb = (miss & MISS_CAP) || k->warps < 8 ? k->warps : 8; /* warps of a block that count */
    p.w_phase = miss & MISS_PHASE ? k->blocks_per_sm : k->blocks_per_sm * wb / 8.0;
    if (p.w_phase < 1) p.w_phase = 1;
    /* the GEMM phase: the microbenchmark's c for a mma.sync stream where the GPU has its points
     * (the c at the largest point <= the kernel's warps a scheduler, the first below them all) */
    p.c = !k->wgmma && hw->ldsm_overlap_n > 0 && !(miss & MISS_LDSM)
              ? fa_hw_rate_by_len(hw->ldsm_overlap_w, hw->ldsm_overlap_c, hw->ldsm_overlap_n, p.w_gemm)
              : -1;
    const double hi = fmax(p.tensor, p.smem), lo = fmin(p.tensor, p.smem);
    p.G = hi + (miss & MISS_OVERLAP ? 0 : p.c >= 0 ? p.c * lo : lo / fmax(p.w_gemm, 1));
    p.S = p.exp + p.fp32;
    p.tile = fmax(p.G, p.S) + (miss & MISS_OVERLAP ? 0 : fmin(p.G, p.S) / p.w_phase);
    return p;
}

#define LDSM_RULE                                                                                       \
    "an mma.sync GEMM phase on a GPU with ldsm_mma_overlap points is max(tensor, smem) + c min(tensor, " \
    "smem), c = fa_hw_rate_by_len(ldsm_overlap_w, ldsm_overlap_c, ldsm_overlap_n, w_gemm), not min / w_gemm"
#define PHASE_RULE                                                                                      \
    "between the phases a block counts min(warps, 8) / 8 of a stream: w_phase = max(1, blocks/SM x "     \
    "min(warps, 8) / 8)"

static void check_tile(const char *what, const ex_kernel *k, const fa_hw *hw, double want)
{
    double got = ex_tile_time(k, hw);
    pipes p = want_pipes(k, hw, 0);
    int ok = close_to(got, want, REL);
    const char *hint = "";
#define LIKE(m) close_to(got, want_pipes(k, hw, (m)).tile, 1e-6)
    /* a rule the student may have missed only counts where it changes this kernel's tile */
    const int ldsm = p.c >= 0, phase = want_pipes(k, hw, MISS_PHASE).w_phase != p.w_phase,
              cap = want_pipes(k, hw, MISS_CAP).w_phase != p.w_phase;
    if (ok)
        ;
    else if (ldsm && phase && (LIKE(MISS_LDSM | MISS_PHASE) || LIKE(MISS_LDSM | MISS_PHASE | MISS_CLOCK)))
        hint = " -- that is G = max + min / w_gemm and w_phase = blocks/SM, two rules the measurements "
               "replace: " LDSM_RULE "; and " PHASE_RULE;
    else if (phase && (LIKE(MISS_PHASE) || LIKE(MISS_PHASE | MISS_CLOCK)))
        hint = " -- w_phase = blocks/SM counts a block of fewer than 8 warps as a whole stream (two blocks of 4 warps "
               "hide none of each other's softmax, Nsight Compute): " PHASE_RULE;
    else if (ldsm && (LIKE(MISS_LDSM) || LIKE(MISS_LDSM | MISS_CLOCK)))
        hint = " -- " LDSM_RULE
               " (the ldsm_mma microbenchmark: a prefetched ldmatrix -> mma.sync stream hides far more)";
    else if (cap && LIKE(MISS_CAP))
        hint = " -- a block counts at most one stream between the phases, its warps capped at 8: " PHASE_RULE;
    else if (LIKE(MISS_CLOCK))
        hint = " -- the exp unit, fp32 ALU and shared memory run at the clock the SM holds while its "
               "tensor cores are busy: scale their rates by the MMA family's clock / clock_hz";
    else if (LIKE(MISS_OVERLAP))
        hint = " -- that is max(): perfect overlap; w streams hide only (w - 1) / w of the shorter phase";
    else
        hint = " -- compare your pipes with the expected ones";
#undef LIKE
    char gl[64];
    if (p.c >= 0)
        snprintf(gl, sizeof gl, "max + %.4g min", p.c);
    else
        snprintf(gl, sizeof gl, "max + min / %.4g", fmax(p.w_gemm, 1));
    judge_check(ok,
                "%s: tile %.6g ns (tensor %.4g, smem %.4g, exp %.4g, fp32 %.4g ns; G = %s = %.4g, S %.4g ns, "
                "w_phase %.4g); you said %.6g ns%s",
                what, want * 1e9, p.tensor * 1e9, p.smem * 1e9, p.exp * 1e9, p.fp32 * 1e9, gl, p.G * 1e9, p.S * 1e9,
                p.w_phase, got * 1e9, hint);
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
    pipes p = want_pipes(k, hw, 0);
    judge_check(ok, "%s: the %s phase is the longer (G %.4g ns, S %.4g ns); you said %s%s", what, want, p.G * 1e9,
                p.S * 1e9, got ? got : "(null)", ok ? "" : " -- return \"gemm\" or \"softmax\", the larger of G and S");
}

/* ---- a synthetic GPU of round rates ----
 * 100 SMs; rates measured at clock_hz = 2 GHz; mma.sync 400 TFLOP/s at 1.6 GHz (c = 0.8), wgmma
 * 800 TFLOP/s at 1.0 GHz (c = 0.5); exp 4e12/s, fp32 FMA 40 TFLOP/s (20e12 fp32 ops/s),
 * shared memory 20 TB/s; no ldsm_mma_overlap points (ldsm_overlap_n = 0: G by the law).  One SM's
 * share, at the clock of each MMA family:
 *                  tensor      smem        exp          fp32 ops
 *   mma.sync (0.8) 4e12 FLOP/s 1.6e11 B/s  3.2e10 /s    1.6e11 /s
 *   wgmma    (0.5) 8e12 FLOP/s 1.0e11 B/s  2.0e10 /s    1.0e11 /s
 *   no clocks (1)  4e12 FLOP/s 2.0e11 B/s  4.0e10 /s    2.0e11 /s
 * Kernel A: B_r 64, B_c 32, d 48, 6 warps, 3 blocks per SM, 24576 B of shared memory per tile,
 * mma.sync.  Per tile: 4 x 64 x 32 x 48 = 393216 FLOPs, 2048 exps, 4.5 x 2048 + 64 x 48 = 12288
 * fp32 ops; streams w_gemm = 3 x 6 / 4 = 4.5, w_phase = max(1, 3 x min(6, 8) / 8) = 18 / 8 = 2.25:
 *   tensor 393216 / 4e12 = 98.304 ns, smem 24576 / 1.6e11 = 153.6 ns,
 *   exp 2048 / 3.2e10 = 64 ns, fp32 12288 / 1.6e11 = 76.8 ns;
 *   G = 153.6 + 98.304 / 4.5 = 153.6 + 21.8453333 = 175.4453333 ns, S = 64 + 76.8 = 140.8 ns (gemm),
 *   tile = 175.4453333 + 140.8 / 2.25 = 175.4453333 + 62.5777778 = 238.0231111 ns;
 *   TFLOP/s = 393216 x 100 / 238.0231111 ns / 1e12 = 165.2008 (39321600 / 238023.1111).
 * Kernel B: A on wgmma with no shared-memory operand loads (smem 0):
 *   tensor 393216 / 8e12 = 49.152 ns = G; exp 2048 / 2e10 = 102.4 ns, fp32 12288 / 1e11 =
 *   122.88 ns, S = 225.28 ns (softmax); tile = 225.28 + 49.152 / 2.25 = 225.28 + 21.8453333 =
 *   247.1253333 ns.
 * Kernel A on the same GPU without its clock keys (mma_sync_clock_hz = clock_hz = 0: c = 1):
 *   smem 122.88 ns, exp 51.2 ns, fp32 61.44 ns; G = 122.88 + 21.8453333 = 144.7253333 ns,
 *   S = 112.64 ns, tile = 144.7253333 + 112.64 / 2.25 = 144.7253333 + 50.0622222 = 194.7875556 ns.
 * The same GPU with ldsm_mma_overlap = 2:0.25 4:0.125 8:0.0625 (warps a scheduler : c): a mma.sync
 * kernel's G = max(tensor, smem) + c min(tensor, smem), c at the largest point <= w_gemm (the first
 * point when w_gemm is below them all); the tiles below have A's pipes (98.304, 153.6, 64, 76.8 ns):
 *   kernel A: w_gemm 4.5 -> c = 0.125 (the point at 4); G = 153.6 + 0.125 x 98.304 = 153.6 + 12.288 =
 *     165.888 ns; w_phase 2.25: tile = 165.888 + 62.5777778 = 228.4657778 ns;
 *   kernel C, A with 4 warps and 1 block per SM: w_gemm = 1 x 4 / 4 = 1, below every point -> c =
 *     0.25; G = 153.6 + 0.25 x 98.304 = 153.6 + 24.576 = 178.176 ns; w_phase = max(1, 1 x 4 / 8 =
 *     0.5) = 1: tile = 178.176 + 140.8 = 318.976 ns (the law's G would be 153.6 + 98.304 = 251.904);
 *   kernel D, A with 16 warps and 1 block per SM: w_gemm = 1 x 16 / 4 = 4 -> c = 0.125 (at the
 *     point): G = 165.888 ns; w_phase = max(1, 1 x min(16, 8) / 8) = 1 (uncapped: 16 / 8 = 2):
 *     tile = 165.888 + 140.8 = 306.688 ns. */
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

/* the synthetic GPU with ldsm_mma_overlap = 2:0.25 4:0.125 8:0.0625 */
static fa_hw synthetic_ldsm(void)
{
    fa_hw hw = synthetic();
    static const double w[] = {2, 4, 8}, c[] = {0.25, 0.125, 0.0625};
    hw.ldsm_overlap_n = 3;
    for (int i = 0; i < 3; i++) {
        hw.ldsm_overlap_w[i] = w[i];
        hw.ldsm_overlap_c[i] = c[i];
    }
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
 * waves' steady-state tiles, T_r T_c H x tile / SMs, where fasim's tile also holds the waits and
 * barriers this exercise leaves out (fa2: 2 __syncthreads a tile, W = 2 x 28.2 SM clocks at
 * 1815 MHz = 31.07 ns, of which W / w_phase is charged: all of it at w_phase = 1, some 2 % of a
 * tile; docs/time-model.md section 5, "Waits and barriers") -- the judge adds fasim's own W /
 * w_phase to the student's tile --, plus per block a prologue and epilogue (the DRAM latency and
 * the block's own and shared tiles at its SM's shares of the DRAM and L2 bandwidth: 3.5 us at
 * d = 64 and 5.7 us at d = 128, against 472 and 737 us of tiles a block) and one launch (4 us
 * against 15-24 ms): under 1 % (the reference solution: -0.77 % at d = 64, -0.79 % at d = 128).
 * A 2 % tolerance leaves room for that, and still catches the unscaled clock (-4.9 %, -3.8 %),
 * G by min / w_gemm where the ldsm_mma points apply (+14 %, +20 %), w_phase = blocks/SM (-25 %,
 * -19 %), both of those (-11 % at d = 64; +2.6 % at d = 128) or perfect overlap (-49 %, -39 %).
 * The check needs fasim to place these kernels as the exercise does (tiles, 4 warps, 2 blocks per
 * SM): if the library's profile changes, the check says so. */
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
    /* the waits and barriers this exercise leaves out, as fasim charges them a tile */
    const fa_perf_kernel *fk = &r.k[0];
    const double wait = fk->w_phase > 0 ? fk->t_wait / fk->w_phase : fk->t_wait;
    double tile = ex_tile_time(&k, hw);
    double mine = Tr * Tc * (double)(s.batch * s.heads) * (tile + wait) / hw->sms;
    int ok = close_to(mine, r.time_s, 0.02);
    judge_check(ok,
                "fasim fa2, d = %d, H = 66, N = 16384 on %s: fasim's kernel time %.4g ms; T_r T_c H x (your tile + "
                "fasim's barriers W / w_phase = %.4g ns) / SMs = %.4g ms (%+.2f %%; 2 %% allowed)%s",
                d, hw->name, r.time_s * 1e3, wait * 1e9, mine * 1e3, r.time_s > 0 ? 100 * (mine / r.time_s - 1) : 0.0,
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
           want_pipes(w64, hw, 0).tile * 1e9);
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
    check_tile("synthetic GPU, kernel A (64 x 32, d 48, 6 warps, 3 blocks/SM, mma.sync)", &A, &syn, 238.023111111111e-9);
    check_tile("synthetic GPU, kernel B (A on wgmma, no smem operand loads)", &B, &syn, 247.125333333333e-9);
    check_tile("synthetic GPU without clock keys (c = 1), kernel A", &A, &noclk, 194.787555555556e-9);
    check_tflops("synthetic GPU, kernel A", &A, &syn, 39321600.0 / 238023.111111111);
    /* ldsm_mma_overlap points on the synthetic GPU (the comment above) */
    fa_hw ldsm = synthetic_ldsm();
    ex_kernel C = {64, 32, 48, 4, 1, 24576, 0}, D = {64, 32, 48, 16, 1, 24576, 0};
    check_tile("synthetic GPU with ldsm_mma_overlap 2:0.25 4:0.125 8:0.0625, kernel A (w_gemm 4.5)", &A, &ldsm,
               228.465777777778e-9);
    check_tile("synthetic GPU with ldsm_mma_overlap, kernel C (A with 4 warps, 1 block/SM: w_gemm 1)", &C, &ldsm,
               318.976e-9);
    check_tile("synthetic GPU with ldsm_mma_overlap, kernel D (A with 16 warps, 1 block/SM: w_gemm 4)", &D, &ldsm,
               306.688e-9);
    check_bound("synthetic GPU, kernel A", &A, &syn, "gemm");
    check_bound("synthetic GPU, kernel B", &B, &syn, "softmax");

    /* the H200 (sim/hw/h200-sxm.hw: the rates measured by kernels/ubench_pipes.cu) */
    fa_hw h200;
    if (fa_hw_load("h200", NULL, &h200)) {
        judge_check(0, "loading the H200 profile: %s", fa_last_error());
        return judge_verdict("09 (kernel time from the pipes)");
    }
    ex_kernel f64 = fa2(64), f128 = fa2(128), w64 = v4(64), w128 = v4(128);
    pipes p64 = want_pipes(&f64, &h200, 0), p128 = want_pipes(&f128, &h200, 0);
    check_tile("H200, FlashAttention-2 d = 64 (128 x 128, 4 warps, 2 blocks/SM, mma.sync)", &f64, &h200, p64.tile);
    check_tile("H200, FlashAttention-2 d = 128 (128 x 64, 4 warps, 2 blocks/SM, mma.sync)", &f128, &h200, p128.tile);
    check_tile("H200, wgmma d = 64 (128 x 64, 8 warps, 2 blocks/SM)", &w64, &h200, want_pipes(&w64, &h200, 0).tile);
    check_tile("H200, wgmma d = 128 (128 x 64, 8 warps, 2 blocks/SM)", &w128, &h200, want_pipes(&w128, &h200, 0).tile);
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
