/* simt_tile.cuh -- the fp32 SIMT tile machinery shared by v1 (FlashAttention-1 order) and
 * v2 (FlashAttention-2 order): tile loads, S = Q K^T on one B_r x B_c tile, and P V.
 *
 * Thread mapping (256 threads as a 16 x 16 grid, ty = tid / 16, tx = tid % 16):
 *   S, P  rows ty*4 + a (a < 4), columns tx + 16 b (b < 4)      -> 16 scores per thread
 *   O     rows ty*4 + a,         columns tx + 16 c (c < d / 16) -> 4 d / 16 outputs per thread
 * The 16 threads of one row group are 16 consecutive lanes of a warp, so a row reduction is
 * four __shfl_xor_sync steps (8, 4, 2, 1).
 * Shared memory, fp32: Qs (B_r, d+1), Ks (B_c, d+1), Vs (B_c, d), Ps (B_r, B_c+1); the +1
 * pads make the column walks of Q K^T conflict-free. */
#ifndef FA_SIMT_TILE_CUH
#define FA_SIMT_TILE_CUH

#include <math.h>

#include "fa_kernels.h"

#define SIMT_BR 64
#define SIMT_BC 64
#define SIMT_THREADS 256

template <int D> struct SimtSmem {
    static constexpr int QLD = D + 1, KLD = D + 1, VLD = D, PLD = SIMT_BC + 1;
    static constexpr int floats = SIMT_BR * QLD + SIMT_BC * KLD + SIMT_BC * VLD + SIMT_BR * PLD;
    static constexpr int bytes = floats * 4;
};

/* Loads rows [row0, row0 + nrows) of a (N, D) fp32 matrix into dst (leading dim ld);
 * rows at or past N are zero-filled (so padded keys and values are exact zeros). */
template <int D>
__device__ __forceinline__ void simt_load_tile(float *dst, int ld, const float *src, int row0,
                                               int nrows, int N)
{
    for (int e = threadIdx.x; e < nrows * D; e += SIMT_THREADS) {
        int r = e / D, c = e % D;
        dst[r * ld + c] = row0 + r < N ? src[(long long)(row0 + r) * D + c] : 0.f;
    }
}

/* s[a][b] = (Q_i K_j^T)[ty*4+a][tx+16b] in log2 units (times scale * log2 e), -inf where the
 * mask or the end of the keys forbids.  r0/c0: first query row / key of the tile. */
template <int D>
__device__ __forceinline__ void simt_scores(float s[4][4], const float *Qs, const float *Ks,
                                            int r0, int c0, const fa_gpu_shape &sh,
                                            float scale_log2)
{
    typedef SimtSmem<D> L;
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int b = 0; b < 4; b++) s[a][b] = 0.f;
#pragma unroll 8
    for (int k = 0; k < D; k++) {
        float q[4], kk[4];
#pragma unroll
        for (int a = 0; a < 4; a++) q[a] = Qs[(ty * 4 + a) * L::QLD + k];
#pragma unroll
        for (int b = 0; b < 4; b++) kk[b] = Ks[(tx + 16 * b) * L::KLD + k];
#pragma unroll
        for (int a = 0; a < 4; a++)
#pragma unroll
            for (int b = 0; b < 4; b++) s[a][b] = fmaf(q[a], kk[b], s[a][b]);
    }
    const int off = sh.N_k - sh.N_q;
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int b = 0; b < 4; b++) {
            int i = r0 + ty * 4 + a, j = c0 + tx + 16 * b;
            bool ok = j < sh.N_k && (!sh.causal || j <= i + off);
            s[a][b] = ok ? s[a][b] * scale_log2 : -INFINITY;
        }
}

/* Max / sum over the 16 lanes that hold one row. */
__device__ __forceinline__ float row16_max(float v)
{
#pragma unroll
    for (int o = 8; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float row16_sum(float v)
{
#pragma unroll
    for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* o[a][c] += sum_j Ps[ty*4+a][j] * Vs[j][tx+16c]  (needs a barrier after Ps was written). */
template <int D>
__device__ __forceinline__ void simt_pv(float o[4][D / 16], const float *Ps, const float *Vs)
{
    typedef SimtSmem<D> L;
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
#pragma unroll 4
    for (int j = 0; j < SIMT_BC; j++) {
        float p[4];
#pragma unroll
        for (int a = 0; a < 4; a++) p[a] = Ps[(ty * 4 + a) * L::PLD + j];
#pragma unroll
        for (int c = 0; c < D / 16; c++) {
            float v = Vs[j * L::VLD + tx + 16 * c];
#pragma unroll
            for (int a = 0; a < 4; a++) o[a][c] = fmaf(p[a], v, o[a][c]);
        }
    }
}

/* Number of K/V tiles of width B_c that the query rows [r0, r0 + rows) visit (causal: the
 * tiles up to the last allowed key of the last row), as fa_kv_tiles in cpu_ref/shape.c. */
__device__ __forceinline__ int kv_tiles_visited(const fa_gpu_shape &sh, int r0, int rows, int bc)
{
    int T_c = (sh.N_k + bc - 1) / bc;
    if (!sh.causal) return T_c;
    long long last = (long long)r0 + rows - 1 + sh.N_k - sh.N_q;
    if (last < 0) return 0;
    long long n = last / bc + 1;
    return n < T_c ? (int)n : T_c;
}

#endif
