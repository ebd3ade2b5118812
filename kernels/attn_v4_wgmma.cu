/* attn_v4_wgmma.cu -- version 4: the FlashAttention-2 forward on Hopper's warpgroup MMA (sm_90a).
 *
 * What changed from v3: the loop order, the online softmax in base 2, P kept in registers and the
 * cp.async double buffer are v3's, but the two matrix products are `wgmma.mma_async` issued by a
 * warpgroup (4 warps, 128 threads) instead of `mma.sync` issued by one warp:
 *   - S = Q K_j^T is one m64 x B_c x d product per warpgroup, with both operands read by the
 *     tensor cores straight from shared memory through matrix descriptors (no ldmatrix, no
 *     operand registers); Q and K are stored in the canonical "K-major, 128-byte swizzle"
 *     layout (d in slabs of 64 columns, 16-byte chunk c of a 128-byte row r at c ^ (r % 8),
 *     slabs 1024-byte aligned);
 *   - O += P V_j takes P from registers (the S accumulator layout is the A-fragment layout, as
 *     in v3) and V from shared memory as a transposed ("MN-major") operand: V needs no
 *     ldmatrix.trans either;
 *   - two warpgroups per thread block (B_r = 128, 64 query rows each), B_c = 128;
 *   - tiles are copied by tc_common's loaders with this layout (Sw128Layout), whole K/V tiles
 *     without per-row bounds tests (+2-5 % for v4_bc64 at d = 128, measured beside the
 *     bounds-tested copies: analysis/measured/h200/ab3_*.csv).
 * Why faster: wgmma runs the Hopper tensor cores at their full rate (mma.sync reaches about
 * two thirds of it) and removes the shared-memory -> register traffic of the operands, which
 * in v3 costs one ldmatrix per two to four mma.  What FlashAttention-3 adds and v4 does not
 * (yet): TMA loads, producer/consumer warp specialization, ping-pong scheduling of the two
 * warpgroups and the intra-warpgroup overlap of softmax with the next QK^T.
 * Needs sm_90a (H100/H200); other devices get cudaErrorInvalidDeviceFunction.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

#include "fa_kernels.h"
#include "tc_common.cuh"
#include "wgmma.cuh"

/* V's (MN-major) descriptor: LBO = the byte distance between the two 64-column slabs of d
 * (d = 128), SBO = between 8-key groups (1024).  Checked on the H200: with the two exchanged,
 * d = 128 gives a wrong O (error 1-3 against the fp64 oracle) and d = 64 an illegal address. */
template <int D, int BC, int MINB, typename T>
__global__ void __launch_bounds__(256, MINB)
    fa_v4_fwd_kernel(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                     T *__restrict__ O, float *__restrict__ LSE, fa_gpu_shape sh, float scale_log2)
{
#if FA_HAVE_WGMMA
    constexpr int BR = 128, NT = 256;
    constexpr int NB = BC / 8; /* n8 blocks of S */
    constexpr int DB = D / 8;  /* n8 blocks of O */
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    unsigned char *base = smem_raw + ((1024u - (smem_u32(smem_raw) & 1023u)) & 1023u);
    T *Qs = reinterpret_cast<T *>(base);
    T *Ks = Qs + BR * D; /* 2 stages */
    T *Vs = Ks + 2 * BC * D;

    const int b = blockIdx.z, h = blockIdx.y;
    const int T_r = (sh.N_q + BR - 1) / BR;
    const int qb = sh.causal ? T_r - 1 - (int)blockIdx.x : (int)blockIdx.x; /* heavy first */
    const int r0 = qb * BR;
    const int hk = h / (sh.H / sh.H_kv);
    const T *q = Q + ((long long)b * sh.H + h) * sh.N_q * D;
    const T *k = K + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const T *v = V + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    T *o_g = O + ((long long)b * sh.H + h) * sh.N_q * D;
    float *lse = LSE + ((long long)b * sh.H + h) * sh.N_q;
    const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int g = lane >> 2, t4 = lane & 3;
    const int wrow = wg * 64 + warp * 16; /* first row of this warp inside the Q block */
    const int off = sh.N_k - sh.N_q;
    const int n_kv = fwd_kv_tiles(sh, r0, BR, BC);

    float o[DB][4]; /* the m64nD accumulator: this warp's 16 rows, as v3's m16 tile */
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, alpha[2];
#pragma unroll
    for (int db = 0; db < DB; db++)
#pragma unroll
        for (int e = 0; e < 4; e++) o[db][e] = 0.f;

    /* descriptors: Q rows of this warpgroup (K-major), K_j (K-major), V_j (MN-major) */
    const uint32_t q_addr = smem_u32(Qs) + wg * 64 * 128;
    const uint32_t k_addr = smem_u32(Ks), v_addr = smem_u32(Vs);
    constexpr uint32_t SLAB_Q = BR * 128, SLAB_KV = BC * 128, STAGE = BC * D * 2;
    constexpr uint32_t V_LBO = SLAB_KV, V_SBO = 1024;

    if (n_kv > 0) {
        load_tile_async<D, BR, NT, T, true, Sw128Layout<BR>>(Qs, q, r0, sh.N_q);
        load_tile_async<D, BC, NT, T, true, Sw128Layout<BC>>(Ks, k, 0, sh.N_k);
        load_tile_async<D, BC, NT, T, true, Sw128Layout<BC>>(Vs, v, 0, sh.N_k);
        cp_async_commit();
    }
    for (int j = 0; j < n_kv; j++) {
        const int c0 = j * BC, st = j & 1;
        cp_async_wait<0>();  /* tile j (issued one tile ago) has landed */
        fence_proxy_async(); /* ... and is visible to the tensor cores' async proxy */
        __syncthreads();     /* for every thread; every warpgroup is done with tile j - 1 */
        if (j + 1 < n_kv) {
            load_tile_pair_async<D, BC, NT, T, Sw128Layout<BC>>(Ks + (st ^ 1) * BC * D, k,
                                                                Vs + (st ^ 1) * BC * D, v,
                                                                c0 + BC, sh.N_k);
            cp_async_commit();
        }

        /* S = Q_i K_j^T (Alg. 1 line 8): d / 16 wgmma of m64 x B_c x k16 */
        float s[NB][4];
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            const uint32_t kof = (kk & 3) * 32; /* k16 step inside a 128-byte row */
            const uint64_t da = wg_desc(q_addr + (kk >> 2) * SLAB_Q + kof, 16, 1024);
            const uint64_t db = wg_desc(k_addr + st * STAGE + (kk >> 2) * SLAB_KV + kof, 16, 1024);
            wg_mma_ss<BC, T>(&s[0][0], da, db, kk > 0);
        }
        wg_commit();
        wg_wait<0>();

        const bool need_mask =
            (c0 + BC > sh.N_k) || (sh.causal && c0 + BC - 1 > r0 + wrow + off); /* this warp */
        if (need_mask) mask_m16<NB>(s, sh, r0 + wrow, c0, g, t4);

        /* online softmax (lines 9-10) in base 2, rows g and g + 8 of this warp */
        softmax_m16<NB, DB, true>(s, o, m, l, alpha, scale_log2);

        /* O_i += P_ij V_j: P from registers (two n8 blocks of S = one k16 A fragment) */
        uint32_t pa[BC / 16][4];
#pragma unroll
        for (int kc = 0; kc < BC / 16; kc++) p_fragment<T, NB>(pa[kc], s, kc);
        wg_fence();
#pragma unroll
        for (int kc = 0; kc < BC / 16; kc++) {
            const uint64_t dv = wg_desc(v_addr + st * STAGE + kc * 16 * 128, V_LBO, V_SBO);
            wg_mma_rs_tb<D, T>(&o[0][0], pa[kc], dv);
        }
        wg_commit();
        wg_wait<0>();
    }
    __syncthreads(); /* every wgmma reading Q is complete before Q's rows take O */

    /* epilogue (lines 12-13) as in v3: O through this warp's own rows of the Q tile */
    T *Os = Qs;
    const Sw128Layout<BR> lay;
    epilogue_m16<DB, T>(o, m, l, Os, lay, wrow, r0, lse, sh.N_q, scale_log2, g, t4);
    __syncwarp();
    store_rows<D, 16, T>(o_g, Os, lay, wrow, r0, sh.N_q, lane);
#else
    __trap(); /* built without sm_90a: the launcher refuses other devices before we get here */
#endif
}

template <int D, int BC, int MINB, typename T>
static cudaError_t launch_v4(const fa_gpu_shape *s, const void *Q, const void *K, const void *V,
                             void *O, float *LSE, cudaStream_t st)
{
    constexpr int BR = 128;
    const int bytes = (BR * D + 4 * BC * D) * (int)sizeof(T) + 1024; /* + 1024-byte alignment */
    cudaError_t e = cudaFuncSetAttribute(fa_v4_fwd_kernel<D, BC, MINB, T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess) return e;
    dim3 grid((s->N_q + BR - 1) / BR, s->H, s->B);
    const float scale_log2 = s->scale * 1.44269504088896341f;
    fa_v4_fwd_kernel<D, BC, MINB, T><<<grid, 256, bytes, st>>>(
        (const T *)Q, (const T *)K, (const T *)V, (T *)O, LSE, *s, scale_log2);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t v4_dispatch(const fa_gpu_shape *s, int variant, const void *Q, const void *K,
                               const void *V, void *O, float *LSE, cudaStream_t st)
{
    if (s->d == 64)
        return variant == 0 ? launch_v4<64, 128, 1, T>(s, Q, K, V, O, LSE, st)
                            : launch_v4<64, 64, 2, T>(s, Q, K, V, O, LSE, st);
    if (s->d == 128)
        return variant == 0 ? launch_v4<128, 128, 1, T>(s, Q, K, V, O, LSE, st)
                            : launch_v4<128, 64, 2, T>(s, Q, K, V, O, LSE, st);
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t fa_v4_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, int variant,
                                     const void *Q, const void *K, const void *V, void *O,
                                     float *LSE, cudaStream_t st)
{
    cudaError_t e = wg_device_check(); /* wgmma: sm_90a only */
    if (e != cudaSuccess) return e;
    if (dt == FA_GPU_BF16) return v4_dispatch<__nv_bfloat16>(s, variant, Q, K, V, O, LSE, st);
    if (dt == FA_GPU_FP16) return v4_dispatch<__half>(s, variant, Q, K, V, O, LSE, st);
    return cudaErrorInvalidValue;
}
