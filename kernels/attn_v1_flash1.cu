/* attn_v1_flash1.cu -- version 1: FlashAttention-1 loop order (Dao et al. 2022, Algorithm 1), fp32 SIMT.
 *
 * What changed from v0: S and P never reach HBM.  Q, K, V are cut into tiles (B_r = B_c = 64)
 * that fit in shared memory; S_ij = Q_i K_j^T, the tile softmax and P_ij V_j happen on chip
 * (lines 9-12), and the running statistics l (row sums) and m (row maxima) make the tile-wise
 * softmax exact.  Why faster: HBM traffic drops from Theta(N d + N^2) to Theta(N^2 d^2 / M),
 * one fused kernel instead of three launches, no N^2 buffer.
 *
 * The loop order is the paper's: the OUTER loop walks K_j, V_j (line 5) and the INNER loop the
 * Q blocks (line 7), so O_i, l_i, m_i are read from HBM and written back on every inner step
 * (lines 8 and 13), O_i kept normalized each time (line 12).  That round trip is what v2
 * removes.  A GPU needs parallel work, so each thread block runs Algorithm 1 on its own slice
 * of QPB = 4 consecutive Q blocks (256 rows) of one head: grid (ceil(T_r / 4), H, B).
 * K/V tiles that the causal mask hides from every row of a Q block are skipped.
 * l and m live in a workspace (2 * B * H * N_q floats); LSE = m + log l at the end.
 */
#include "simt_tile.cuh"

#define V1_QPB 4 /* Q blocks per thread block (the inner loop's length) */

template <int D>
__global__ void __launch_bounds__(SIMT_THREADS)
    fa_v1_fwd_kernel(const float *__restrict__ Q, const float *__restrict__ K,
                     const float *__restrict__ V, float *O, float *LSE, float *l_ws,
                     float *m_ws, fa_gpu_shape sh, float scale_log2)
{
    typedef SimtSmem<D> L;
    extern __shared__ float smem[];
    float *Qs = smem, *Ks = Qs + SIMT_BR * L::QLD, *Vs = Ks + SIMT_BC * L::KLD,
          *Ps = Vs + SIMT_BC * L::VLD;
    const int b = blockIdx.z, h = blockIdx.y;
    const int T_r = (sh.N_q + SIMT_BR - 1) / SIMT_BR;
    const int qb_lo = blockIdx.x * V1_QPB;
    const int qb_hi = min(T_r, qb_lo + V1_QPB);
    const int hk = h / (sh.H / sh.H_kv);
    const long long bh = (long long)b * sh.H + h;
    const float *q = Q + bh * sh.N_q * D;
    const float *k = K + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const float *v = V + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    float *o_g = O + bh * sh.N_q * D;
    float *lg = l_ws + bh * sh.N_q, *mg = m_ws + bh * sh.N_q;
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
    const int row_lo = qb_lo * SIMT_BR, row_hi = min(sh.N_q, qb_hi * SIMT_BR);

    /* line 2: O = 0, l = 0, m = -inf in HBM (this block's rows) */
    for (int e = threadIdx.x; e < (row_hi - row_lo) * D; e += SIMT_THREADS)
        o_g[(long long)row_lo * D + e] = 0.f;
    for (int i = row_lo + threadIdx.x; i < row_hi; i += SIMT_THREADS) {
        lg[i] = 0.f;
        mg[i] = -INFINITY;
    }
    /* K/V tiles any row of this slice can see */
    const int T_c = kv_tiles_visited(sh, row_lo, row_hi - row_lo, SIMT_BC);
    for (int j = 0; j < T_c; j++) { /* line 5: outer loop over K_j, V_j */
        const int c0 = j * SIMT_BC;
        __syncthreads();
        simt_load_tile<D>(Ks, L::KLD, k, c0, SIMT_BC, sh.N_k); /* line 6 */
        simt_load_tile<D>(Vs, L::VLD, v, c0, SIMT_BC, sh.N_k);
        for (int qb = qb_lo; qb < qb_hi; qb++) { /* line 7: inner loop over Q_i */
            const int r0 = qb * SIMT_BR;
            if (j >= kv_tiles_visited(sh, r0, SIMT_BR, SIMT_BC)) continue; /* hidden tile */
            __syncthreads(); /* previous inner step is done with Qs, Ps; O, l, m stores seen */
            simt_load_tile<D>(Qs, L::QLD, q, r0, SIMT_BR, sh.N_q); /* line 8: Q_i ... */
            float o[4][D / 16], m_i[4], l_i[4];
#pragma unroll
            for (int a = 0; a < 4; a++) { /* ... O_i, l_i, m_i from HBM */
                int i = min(r0 + ty * 4 + a, sh.N_q - 1); /* padded rows read a valid row */
                m_i[a] = mg[i];
                l_i[a] = lg[i];
#pragma unroll
                for (int c = 0; c < D / 16; c++) o[a][c] = o_g[(long long)i * D + tx + 16 * c];
            }
            __syncthreads();
            float s[4][4];
            simt_scores<D>(s, Qs, Ks, r0, c0, sh, scale_log2); /* line 9 */
            float m_new[4], l_new[4], w_old[4], w_new[4];
#pragma unroll
            for (int a = 0; a < 4; a++) {
                /* line 10: m~ = rowmax(S), P~ = exp(S - m~), l~ = rowsum(P~) */
                float mt = row16_max(fmaxf(fmaxf(s[a][0], s[a][1]), fmaxf(s[a][2], s[a][3])));
                float mt_use = mt == -INFINITY ? 0.f : mt;
                float rs = 0.f;
#pragma unroll
                for (int bb = 0; bb < 4; bb++) {
                    float p = exp2f(s[a][bb] - mt_use);
                    rs += p;
                    Ps[(ty * 4 + a) * L::PLD + tx + 16 * bb] = p;
                }
                float lt = row16_sum(rs);
                /* line 11: m_new = max(m_i, m~), l_new = e^(m_i - m_new) l_i + e^(m~ - m_new) l~ */
                m_new[a] = fmaxf(m_i[a], mt);
                float mn_use = m_new[a] == -INFINITY ? 0.f : m_new[a];
                float e_old = exp2f(m_i[a] - mn_use), e_new = exp2f(mt - mn_use);
                l_new[a] = e_old * l_i[a] + e_new * lt;
                /* line 12: O_i = diag(l_new)^-1 (diag(l_i) e^(m_i-m_new) O_i + e^(m~-m_new) P~ V_j) */
                float inv = l_new[a] > 0.f ? 1.f / l_new[a] : 0.f;
                w_old[a] = l_i[a] * e_old * inv;
                w_new[a] = e_new * inv;
            }
            __syncthreads();
            float pv[4][D / 16];
#pragma unroll
            for (int a = 0; a < 4; a++)
#pragma unroll
                for (int c = 0; c < D / 16; c++) pv[a][c] = 0.f;
            simt_pv<D>(pv, Ps, Vs);
#pragma unroll
            for (int a = 0; a < 4; a++) { /* line 13: O_i, l_i, m_i back to HBM */
                int i = r0 + ty * 4 + a;
                if (i >= sh.N_q) continue;
#pragma unroll
                for (int c = 0; c < D / 16; c++)
                    o_g[(long long)i * D + tx + 16 * c] = w_old[a] * o[a][c] + w_new[a] * pv[a][c];
                if (tx == 0) {
                    lg[i] = l_new[a];
                    mg[i] = m_new[a];
                }
            }
        }
    }
    __syncthreads();
    const float ln2 = 0.69314718055994531f;
    for (int i = row_lo + threadIdx.x; i < row_hi; i += SIMT_THREADS)
        LSE[bh * sh.N_q + i] = lg[i] > 0.f ? mg[i] * ln2 + logf(lg[i]) : -INFINITY;
}

template <int D>
static cudaError_t launch_v1(const fa_gpu_shape *s, const float *Q, const float *K,
                             const float *V, float *O, float *LSE, float *lm, cudaStream_t st)
{
    const int bytes = SimtSmem<D>::bytes;
    cudaError_t e = cudaFuncSetAttribute(fa_v1_fwd_kernel<D>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess) return e;
    const int T_r = (s->N_q + SIMT_BR - 1) / SIMT_BR;
    dim3 grid((T_r + V1_QPB - 1) / V1_QPB, s->H, s->B);
    const float scale_log2 = s->scale * 1.44269504088896341f;
    float *l_ws = lm, *m_ws = lm + (long long)s->B * s->H * s->N_q;
    fa_v1_fwd_kernel<D><<<grid, SIMT_THREADS, bytes, st>>>(Q, K, V, O, LSE, l_ws, m_ws, *s,
                                                           scale_log2);
    return cudaGetLastError();
}

extern "C" cudaError_t fa_v1_forward(const fa_gpu_shape *s, const float *Q, const float *K,
                                     const float *V, float *O, float *LSE, float *lm_ws,
                                     cudaStream_t st)
{
    if (s->d == 64) return launch_v1<64>(s, Q, K, V, O, LSE, lm_ws, st);
    if (s->d == 128) return launch_v1<128>(s, Q, K, V, O, LSE, lm_ws, st);
    return cudaErrorInvalidValue;
}
