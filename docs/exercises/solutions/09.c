/* Reference solution of exercise 09: each pipe's time for one SM's share of a tile, the
 * non-tensor pipes slowed to the clock the SM holds while its tensor cores run; the GEMM phase
 * (tensor cores and their operand loads, out of step across all resident warps; for mma.sync on
 * a GPU with ldsm_mma_overlap points, max + c min with the measured c), the softmax phase (exp
 * unit and fp32 ALU), and the two phases out of step across resident thread blocks, a block of
 * fewer than 8 warps counting warps / 8 of a stream. */
#include "ex.h"

double ex_pipe_time(double work, double rate_per_s_gpu, int sms)
{
    return work / (rate_per_s_gpu / sms);
}

double ex_overlap(double a, double b, double w)
{
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi + lo / (w > 1 ? w : 1);
}

static void phases(const ex_kernel *k, const fa_hw *hw, double *G, double *S)
{
    const double Br = k->block_r, Bc = k->block_c, d = k->d;
    const double rate = k->wgmma ? hw->wgmma_flops : hw->mma_sync_flops;
    const double clk = k->wgmma ? hw->wgmma_clock_hz : hw->mma_sync_clock_hz;
    const double c = clk > 0 && hw->clock_hz > 0 ? clk / hw->clock_hz : 1.0;
    double tensor = ex_pipe_time(4 * Br * Bc * d, rate, hw->sms);
    double smem = ex_pipe_time(k->smem_bytes_per_tile, c * hw->smem_bandwidth, hw->sms);
    double ex = ex_pipe_time(Br * Bc, c * hw->exp_per_s, hw->sms);
    double fp32 = ex_pipe_time(4.5 * Br * Bc + Br * d, c * hw->fma_flops / 2, hw->sms);
    /* the GEMM phase: every resident warp a stream, blocks/SM x warps / 4 of them on each scheduler;
     * a mma.sync stream's prefetched ldmatrix hides what the GPU's ldsm_mma points say */
    const double w_gemm = k->blocks_per_sm * k->warps / 4.0;
    if (!k->wgmma && hw->ldsm_overlap_n > 0) {
        const double c_gemm = fa_hw_rate_by_len(hw->ldsm_overlap_w, hw->ldsm_overlap_c, hw->ldsm_overlap_n, w_gemm);
        *G = (tensor > smem ? tensor : smem) + c_gemm * (tensor > smem ? smem : tensor);
    } else {
        *G = ex_overlap(tensor, smem, w_gemm);
    }
    *S = ex + fp32;
}

/* the streams out of step between the phases: a block of 8 warps or more is one, a smaller one
 * min(warps, 8) / 8 of one (ex_overlap counts fewer than 1 as 1) */
static double phase_streams(const ex_kernel *k)
{
    return k->blocks_per_sm * (k->warps < 8 ? k->warps : 8) / 8.0;
}

double ex_tile_time(const ex_kernel *k, const fa_hw *hw)
{
    double G, S;
    phases(k, hw, &G, &S);
    return ex_overlap(G, S, phase_streams(k));
}

double ex_tflops(const ex_kernel *k, const fa_hw *hw)
{
    return 4.0 * k->block_r * k->block_c * k->d * hw->sms / ex_tile_time(k, hw) / 1e12;
}

const char *ex_bound(const ex_kernel *k, const fa_hw *hw)
{
    double G, S;
    phases(k, hw, &G, &S);
    return S > G ? "softmax" : "gemm";
}
