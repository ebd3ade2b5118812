/* Planted mistake for exercise 09: the exp unit, the fp32 ALU and shared memory run at the rates
 * the microbenchmark measured -- forgetting that the SM's clock drops while its tensor cores are
 * busy (the power limit), so those pipes are slower inside the kernel.  The overlap law (with the
 * ldsm_mma GEMM phase and the half-stream blocks of 4 warps) and the d = 64 vs d = 128 comparison
 * come out right; the times do not.  The judge must reject it. */
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
    double tensor = ex_pipe_time(4 * Br * Bc * d, rate, hw->sms);
    /* BUG: no clock scale c = mma clock / clock_hz on the three pipes below */
    double smem = ex_pipe_time(k->smem_bytes_per_tile, hw->smem_bandwidth, hw->sms);
    double ex = ex_pipe_time(Br * Bc, hw->exp_per_s, hw->sms);
    double fp32 = ex_pipe_time(4.5 * Br * Bc + Br * d, hw->fma_flops / 2, hw->sms);
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
