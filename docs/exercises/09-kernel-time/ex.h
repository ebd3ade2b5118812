/* ex.h -- exercise 09: the time of one K/V tile of a FlashAttention-2-style forward kernel,
 * from the rates of the GPU's pipes; the kernel's TFLOP/s; and which phase bounds it.
 *
 * Units throughout: seconds, FLOPs (an FMA is 2), exponentials, bytes; hardware rates are per
 * second for the whole GPU (fa_hw, sim/fa_hw.h), so one SM gets rate / hw->sms of each. */
#ifndef EX09_H
#define EX09_H

#include "fa_analysis.h"

/* One forward kernel as the time model sees it (bf16 operands, fp32 accumulators, d_v = d). */
typedef struct {
    int block_r, block_c;      /* B_r query rows x B_c keys per tile */
    int d;                     /* head dimension (= d_v) */
    int warps;                 /* warps per thread block */
    int blocks_per_sm;         /* resident thread blocks per SM (occupancy) */
    double smem_bytes_per_tile; /* bytes the GEMMs read from shared memory per K/V tile
                                   (ldmatrix; 0 when the tensor cores read shared memory
                                   themselves, as wgmma does -- that is in its rate) */
    int wgmma;                 /* 0: mma.sync (sm_80 tensor cores), 1: wgmma (sm_90) */
} ex_kernel;

/* The busy time, in seconds, of one pipe doing `work` units (FLOPs, exponentials, bytes) for
 * one SM, when the whole GPU's rate is rate_per_s_gpu units/s over `sms` SMs:
 * work / (rate_per_s_gpu / sms). */
double ex_pipe_time(double work, double rate_per_s_gpu, int sms);

/* The overlap law (docs/time-model.md, "Overlap"): two phases of times a and b (seconds) run in
 * w instruction streams that are out of step with one another take
 *     max(a, b) + min(a, b) / w      seconds,
 * w < 1 counting as 1 (w = 1: a + b, nothing hidden; w -> infinity: max(a, b)). */
double ex_overlap(double a, double b, double w);

/* The steady-state time, in seconds, one SM spends per K/V tile of kernel k on hw (the SM runs
 * k->blocks_per_sm thread blocks at once, so each of them takes blocks_per_sm x this per tile):
 *   tensor  = 4 B_r B_c d FLOPs  at hw->mma_sync_flops (wgmma: hw->wgmma_flops)
 *   smem    = smem_bytes_per_tile  at hw->smem_bandwidth x c
 *   exp     = B_r B_c exponentials at hw->exp_per_s x c
 *   fp32    = 4.5 B_r B_c + B_r d operations at hw->fma_flops / 2 x c
 * each rate shared by hw->sms SMs (ex_pipe_time), where c = hw->mma_sync_clock_hz / hw->clock_hz
 * (wgmma: hw->wgmma_clock_hz / hw->clock_hz) is the clock the SM runs at while its tensor cores
 * are busy, relative to the clock the rates were measured at (c = 1 when either clock is 0);
 *   w_gemm  = blocks_per_sm x warps / 4                 resident warps on each of the 4 schedulers
 *   G       = ex_overlap(tensor, smem, w_gemm)          the GEMM phase: wgmma, or a GPU without
 *                                                       ldsm_mma_overlap points (ldsm_overlap_n 0)
 *   G       = max(tensor, smem) + c_gemm min(tensor, smem)   mma.sync on a GPU with the points,
 *             c_gemm = fa_hw_rate_by_len(hw->ldsm_overlap_w, hw->ldsm_overlap_c, hw->ldsm_overlap_n,
 *             w_gemm): the c of the largest point at or below w_gemm (the first point when w_gemm
 *             is below them all) -- measured, kernels/ubench_pipes.cu's ldsm_mma rows
 *   S       = exp + fp32                                the softmax phase
 *   w_phase = blocks_per_sm x min(warps, 8) / 8         streams out of step between the phases: a
 *                                                       block of 8 warps or more counts one, a block
 *                                                       of 4 warps half of one (Nsight Compute,
 *                                                       docs/time-model.md section 5)
 *   tile    = ex_overlap(G, S, w_phase)                 (w_phase < 1 counting as 1). */
double ex_tile_time(const ex_kernel *k, const fa_hw *hw);

/* The kernel's throughput in TFLOP/s (10^12 FLOP/s) with every SM busy in steady state:
 * 4 B_r B_c d x hw->sms / ex_tile_time(k, hw) / 1e12. */
double ex_tflops(const ex_kernel *k, const fa_hw *hw);

/* Which phase of a tile is the longer: "softmax" when S > G (as in ex_tile_time), else "gemm".
 * A string literal (never freed). */
const char *ex_bound(const ex_kernel *k, const fa_hw *hw);

#endif
