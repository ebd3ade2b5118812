/* attn_v2_flash2.cu -- version 2: FlashAttention-2 loop order (Dao 2023, Algorithm 1), fp32 SIMT.
 *
 * What changed from v1: the loops are swapped.  One thread block owns one Q block (B_r = 64
 * rows) of one head and walks all K/V blocks in its inner loop, so O_i, l_i and m_i live in
 * registers for the whole walk: they are never read from or written to HBM until the single
 * final store (O_i scaled once by diag(l_i)^-1, plus LSE_i = m_i + log l_i; lines 12-13).
 * Why faster: v1 moves O, l, m through HBM once per (K/V block, Q block) pair, T_c times
 * more output traffic; v2 writes O once.  It also rescales O only by exp(m_old - m_new) per
 * step and divides once at the end (fewer non-matmul FLOPs), and with causal masking each
 * block simply stops at its last visible K/V block.  Parallelism is over (Q block, head,
 * batch), so long sequences fill the GPU even at batch 1.
 * Same tiles and thread mapping as v1 (simt_tile.cuh), exp2 with log2(e) folded into scale.
 */
#include "simt_tile.cuh"

template <int D>
__global__ void __launch_bounds__(SIMT_THREADS)
    fa_v2_fwd_kernel(const float *__restrict__ Q, const float *__restrict__ K,
                     const float *__restrict__ V, float *__restrict__ O, float *__restrict__ LSE,
                     fa_gpu_shape sh, float scale_log2)
{
    typedef SimtSmem<D> L;
    extern __shared__ float smem[];
    float *Qs = smem, *Ks = Qs + SIMT_BR * L::QLD, *Vs = Ks + SIMT_BC * L::KLD,
          *Ps = Vs + SIMT_BC * L::VLD;
    const int b = blockIdx.z, h = blockIdx.y;
    const int T_r = (sh.N_q + SIMT_BR - 1) / SIMT_BR;
    /* causal: the heaviest Q blocks (last rows) first, so the tail of the grid is light */
    const int qb = sh.causal ? T_r - 1 - (int)blockIdx.x : (int)blockIdx.x;
    const int r0 = qb * SIMT_BR;
    const int hk = h / (sh.H / sh.H_kv);
    const float *q = Q + ((long long)b * sh.H + h) * sh.N_q * D;
    const float *k = K + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const float *v = V + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    float *o_g = O + ((long long)b * sh.H + h) * sh.N_q * D;
    float *lse = LSE + ((long long)b * sh.H + h) * sh.N_q;
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;

    float o[4][D / 16], m[4], l[4];
#pragma unroll
    for (int a = 0; a < 4; a++) {
        m[a] = -INFINITY;
        l[a] = 0.f;
#pragma unroll
        for (int c = 0; c < D / 16; c++) o[a][c] = 0.f;
    }
    simt_load_tile<D>(Qs, L::QLD, q, r0, SIMT_BR, sh.N_q); /* Alg. 1 line 4 */
    const int n_kv = kv_tiles_visited(sh, r0, SIMT_BR, SIMT_BC);
    for (int j = 0; j < n_kv; j++) { /* line 6 */
        const int c0 = j * SIMT_BC;
        __syncthreads(); /* the previous step is done with Ks, Vs, Ps */
        simt_load_tile<D>(Ks, L::KLD, k, c0, SIMT_BC, sh.N_k); /* line 7 */
        simt_load_tile<D>(Vs, L::VLD, v, c0, SIMT_BC, sh.N_k);
        __syncthreads();
        float s[4][4];
        simt_scores<D>(s, Qs, Ks, r0, c0, sh, scale_log2); /* line 8 */
#pragma unroll
        for (int a = 0; a < 4; a++) { /* lines 9-10: online softmax */
            float mt = fmaxf(fmaxf(s[a][0], s[a][1]), fmaxf(s[a][2], s[a][3]));
            float m_new = fmaxf(m[a], row16_max(mt));
            float m_use = m_new == -INFINITY ? 0.f : m_new; /* guard only the exp argument */
            float alpha = exp2f(m[a] - m_use);              /* 0 while m is still -inf */
            float rs = 0.f;
#pragma unroll
            for (int bb = 0; bb < 4; bb++) {
                float p = exp2f(s[a][bb] - m_use);
                rs += p;
                Ps[(ty * 4 + a) * L::PLD + tx + 16 * bb] = p;
            }
            l[a] = alpha * l[a] + row16_sum(rs);
            m[a] = m_new;
#pragma unroll
            for (int c = 0; c < D / 16; c++) o[a][c] *= alpha;
        }
        __syncthreads();
        simt_pv<D>(o, Ps, Vs); /* line 10: O_i += P_ij V_j */
    }
    /* lines 12-13: O_i = diag(l_i)^-1 O_i, L_i = m_i + log(l_i); empty rows O = 0, -inf */
    const float ln2 = 0.69314718055994531f;
#pragma unroll
    for (int a = 0; a < 4; a++) {
        int i = r0 + ty * 4 + a;
        if (i >= sh.N_q) continue;
        float inv = l[a] > 0.f ? 1.f / l[a] : 0.f;
#pragma unroll
        for (int c = 0; c < D / 16; c++) o_g[(long long)i * D + tx + 16 * c] = o[a][c] * inv;
        if (tx == 0) lse[i] = l[a] > 0.f ? m[a] * ln2 + logf(l[a]) : -INFINITY;
    }
}

template <int D>
static cudaError_t launch_v2(const fa_gpu_shape *s, const float *Q, const float *K,
                             const float *V, float *O, float *LSE, cudaStream_t st)
{
    const int bytes = SimtSmem<D>::bytes;
    cudaError_t e = cudaFuncSetAttribute(fa_v2_fwd_kernel<D>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess) return e;
    dim3 grid((s->N_q + SIMT_BR - 1) / SIMT_BR, s->H, s->B);
    const float scale_log2 = s->scale * 1.44269504088896341f;
    fa_v2_fwd_kernel<D><<<grid, SIMT_THREADS, bytes, st>>>(Q, K, V, O, LSE, *s, scale_log2);
    return cudaGetLastError();
}

extern "C" cudaError_t fa_v2_forward(const fa_gpu_shape *s, const float *Q, const float *K,
                                     const float *V, float *O, float *LSE, cudaStream_t st)
{
    if (s->d == 64) return launch_v2<64>(s, Q, K, V, O, LSE, st);
    if (s->d == 128) return launch_v2<128>(s, Q, K, V, O, LSE, st);
    return cudaErrorInvalidValue;
}
