/* attn_v3_flash2_tc.cu -- version 3: FlashAttention-2 forward on tensor cores (bf16 / fp16).
 *
 * What changed from v2: the same loop order (one thread block per Q block and head, O_i, l_i,
 * m_i in registers, one final rescale), but the two matrix products run on the tensor cores
 * with `mma.sync.m16n8k16` (fp32 accumulators) instead of fp32 FMAs, inputs are bf16/fp16 (half
 * the bytes), and the data path is rebuilt around them:
 *   - each warp owns 16 * MT query rows; S = Q K^T lands in mma accumulators whose layout is
 *     exactly the A-operand layout of the next mma, so P = exp(S - m) is converted to bf16 in
 *     registers and fed straight into O += P V: P never touches shared memory;
 *   - tiles are fetched with `cp.async` (global -> shared without a register stop) into two
 *     stages: K_{j+1}, V_{j+1} are in flight while tile j is computed;
 *   - shared tiles are read with `ldmatrix` (Q, K) and `ldmatrix.trans` (V, which is needed
 *     transposed as the B operand of P V), and stored with an XOR swizzle (16-byte chunk
 *     c of row r lives at chunk c ^ (r % 8)) so the eight row addresses of an ldmatrix hit
 *     eight different bank groups;
 *   - the softmax runs in base 2: scale * log2(e) is folded into one FFMA per score before
 *     exp2, and the row sum l stays a per-thread partial sum until the end (one quad reduce);
 *   - the address arithmetic stays out of the tile loop: every ldmatrix address is one of four
 *     per-lane swizzle offsets plus an immediate (swz_offsets), and whole K/V tiles are copied
 *     without per-row bounds tests from one global and one shared address per thread.  Before,
 *     the compiler (255 registers) rebuilt the swizzled addresses from the thread index on
 *     every tile: ~270 integer instructions a warp a tile beside 256 mma (Nsight Compute,
 *     analysis/measured/h200/diag_ncu.tgz); with the offsets computed once and the copies
 *     from one address per thread, v3_mt2 is 6-8 % faster at d = 128.
 * Why faster: tensor cores have ~15x the fp32 SIMT rate; bf16 halves HBM and shared bytes;
 * cp.async double buffering hides load latency; swizzling removes bank conflicts; keeping P
 * in registers removes a shared-memory round trip per tile.
 *
 * Variant 6 (`v3_bc128`): 8 warps x 16 rows = B_r 128 with B_c 128: half as many K/V steps
 * (barriers, row-max updates, O rescales) as `v3` for the same FLOPs, at twice the S registers.
 * Variant 0 (`v3`): 8 warps x 16 rows = B_r 128, B_c 64.  Variant 1 (`v3_mt2`): 4 warps x 32
 * rows = B_r 128, B_c 64 (each K/V fragment read from shared memory feeds two m16 tiles: half
 * the shared-memory reads per FLOP, more registers).  Variant 2 (`v3_mt2_bc32`): as 1 with
 * B_c 32 (fewer registers for S, more steps).  Variant 3 (`v3_br256`): 8 warps x 32 rows = B_r
 * 256, B_c 64 (each K/V tile fetched from L2 serves twice the rows).  Variant 4 (`v3_lazy`): as 1,
 * but O is rescaled only when some row of the warp raised its running max.  (Variant 5,
 * `v3_pipe`, S of the next K tile issued before this tile's softmax, measured 0.72-0.83x
 * FlashAttention-2 at d = 128 and was removed: docs/results.md, code at commit d93e6d4.)
 * (Variant 8, `v3_ovl`, softmax and P V one m-tile after the other so that the second softmax
 * may overlap the first P V, measured 3-6 % slower -- V fragments read twice a tile -- and was
 * removed: code at commit 634aca6.)  Variant 7 (`v3_mt2_bc48`): as 1
 * with B_c 48 (fewer S registers; it spills as much and runs 5-8 % slower).  The O tile leaves through shared memory in
 * 16-byte row chunks.  Needs sm_80+ (mma.sync, ldmatrix, cp.async); built for sm_80 and sm_90.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

#include "fa_kernels.h"
#include "tc_common.cuh"

/* ---- the kernel ---- */

template <int D, int BC, int NW, int MT, int MINB, bool LAZY, typename T>
__global__ void __launch_bounds__(NW * 32, MINB)
    fa_v3_fwd_kernel(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                     T *__restrict__ O, float *__restrict__ LSE, fa_gpu_shape sh,
                     float scale_log2)
{
    constexpr int BR = 16 * MT * NW, NT = NW * 32;
    constexpr int NB = BC / 8;  /* n8 blocks of S per tile */
    constexpr int DB = D / 8;   /* n8 blocks of O */
    extern __shared__ __align__(128) unsigned char smem_raw[];
    T *Qs = reinterpret_cast<T *>(smem_raw);
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
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane >> 2, t4 = lane & 3; /* mma fragment row group / thread in group */
    const int wrow = warp * 16 * MT;        /* first row of this warp inside the Q block */
    const int off = sh.N_k - sh.N_q;        /* causal diagonal offset (bottom-right) */
    const int n_kv = fwd_kv_tiles(sh, r0, BR, BC); /* K/V tiles this Q block visits */
    /* ldmatrix byte offsets: Q as the A operand (this warp's rows), K as the B operand of
     * S = Q K^T, V transposed as the B operand of O += P V */
    uint32_t qa[4], ko[4], vo[4];
    ldsm_a_offsets<D>(qa, wrow, lane);
    ldsm_b_offsets<D>(ko, lane);
    ldsm_bt_offsets<D>(vo, lane);
#pragma unroll
    for (int i = 0; i < 4; i++) qa[i] += smem_u32(Qs);

    float o[MT][DB][4];
    float m[MT][2], l[MT][2]; /* m: raw-score max of rows g and g+8; l: per-thread partial sum */
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
#pragma unroll
        for (int hr = 0; hr < 2; hr++) {
            m[mt][hr] = -INFINITY;
            l[mt][hr] = 0.f;
        }
#pragma unroll
        for (int db = 0; db < DB; db++)
#pragma unroll
            for (int e = 0; e < 4; e++) o[mt][db][e] = 0.f;
    }

    if (n_kv > 0) {
        load_tile_async<D, BR, NT>(Qs, q, r0, sh.N_q);
        load_tile_async<D, BC, NT>(Ks, k, 0, sh.N_k);
        load_tile_async<D, BC, NT>(Vs, v, 0, sh.N_k);
        cp_async_commit();
    }
    for (int j = 0; j < n_kv; j++) {
        const int c0 = j * BC;
        const int st = j & 1;
        if (j + 1 < n_kv) { /* prefetch the next stage while this one is computed */
            load_tile_pair_async<D, BC, NT>(Ks + (st ^ 1) * BC * D, k, Vs + (st ^ 1) * BC * D, v,
                                            c0 + BC, sh.N_k);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        const uint32_t sK = smem_u32(Ks + st * BC * D), sV = smem_u32(Vs + st * BC * D);

        /* S = Q_i K_j^T (Alg. 1 line 8), fp32 accumulators */
        float s[MT][NB][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int nb = 0; nb < NB; nb++)
#pragma unroll
                for (int e = 0; e < 4; e++) s[mt][nb][e] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t a[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
                ldmatrix_x4(a[mt], qa[kk & 3] + (kk >> 2) * 128 + mt * 32 * D);
#pragma unroll
            for (int nb2 = 0; nb2 < NB / 2; nb2++) {
                uint32_t bk[4];
                ldmatrix_x4(bk, sK + ko[kk & 3] + (kk >> 2) * 128 + nb2 * 32 * D);
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    mma16816<T>(s[mt][2 * nb2], a[mt], bk[0], bk[1]);
                    mma16816<T>(s[mt][2 * nb2 + 1], a[mt], bk[2], bk[3]);
                }
            }
        }

        /* mask: only tiles that cross the causal diagonal or the end of the keys */
        const bool need_mask =
            (c0 + BC > sh.N_k) || (sh.causal && c0 + BC - 1 > r0 + wrow + off); /* this warp */
        if (need_mask) {
#pragma unroll
            for (int mt = 0; mt < MT; mt++) mask_m16<NB>(s[mt], sh, r0 + wrow + mt * 16, c0, g, t4);
        }

        /* online softmax (lines 9-10) in base 2; P overwrites S in registers */
        float al[MT][2]; /* exp(m_old - m_new) per row */
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
            softmax_m16<NB, DB, !LAZY>(s[mt], o[mt], m[mt], l[mt], al[mt], scale_log2);
        /* LAZY: O *= alpha only when some row of the warp changed its max (alpha == 1 exactly
         * otherwise; a row still at -inf has O = 0), which is most steps once the running max
         * has settled, so P V need not wait on the rescale. */
        if (LAZY) {
            bool need = false;
#pragma unroll
            for (int mt = 0; mt < MT; mt++) need = need || al[mt][0] != 1.f || al[mt][1] != 1.f;
            if (__any_sync(0xffffffffu, need)) {
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int db = 0; db < DB; db++) {
                    o[mt][db][0] *= al[mt][0];
                    o[mt][db][1] *= al[mt][0];
                    o[mt][db][2] *= al[mt][1];
                    o[mt][db][3] *= al[mt][1];
                }
            }
        }

        /* O_i += P_ij V_j: the S accumulators of n-blocks 2kc, 2kc+1 are the A fragment */
#pragma unroll
        for (int kc = 0; kc < BC / 16; kc++) {
            uint32_t pa[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++) p_fragment<T, NB>(pa[mt], s[mt], kc);
#pragma unroll
            for (int db2 = 0; db2 < DB / 2; db2++) {
                uint32_t bv[4];
                ldmatrix_x4_trans(bv, sV + vo[db2 & 3] + (db2 >> 2) * 128 + kc * 32 * D);
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    mma16816<T>(o[mt][2 * db2], pa[mt], bv[0], bv[1]);
                    mma16816<T>(o[mt][2 * db2 + 1], pa[mt], bv[2], bv[3]);
                }
            }
        }
        __syncthreads(); /* every warp is done with stage st before it is refilled (one barrier
                            per tile instead, refilling after the top barrier, measured 0-3 %
                            slower: analysis/measured/h200/ab1_fwd_*.csv) */
    }

    /* epilogue (lines 12-13): O = diag(l)^-1 O, LSE = m * scale + ln l; empty rows 0, -inf.
     * O goes through this warp's own rows of the Q tile (no other warp reads them) so that the
     * global stores are whole 16-byte chunks of a row instead of 4-byte pieces. */
    T *Os = Qs;
    const SwzLayout<D> lay;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        epilogue_m16<DB, T>(o[mt], m[mt], l[mt], Os, lay, wrow + mt * 16, r0, lse, sh.N_q,
                            scale_log2, g, t4);
    __syncwarp();
    store_rows<D, 16 * MT, T>(o_g, Os, lay, wrow, r0, sh.N_q, lane);
}

template <int D, int BC, int NW, int MT, int MINB, typename T, bool LAZY = false>
static cudaError_t launch_v3(const fa_gpu_shape *s, const void *Q, const void *K, const void *V,
                             void *O, float *LSE, cudaStream_t st)
{
    constexpr int BR = 16 * MT * NW;
    const int bytes = (BR * D + 4 * BC * D) * (int)sizeof(T);
    cudaError_t e = cudaFuncSetAttribute(fa_v3_fwd_kernel<D, BC, NW, MT, MINB, LAZY, T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess) return e;
    dim3 grid((s->N_q + BR - 1) / BR, s->H, s->B);
    const float scale_log2 = s->scale * 1.44269504088896341f;
    fa_v3_fwd_kernel<D, BC, NW, MT, MINB, LAZY, T><<<grid, NW * 32, bytes, st>>>(
        (const T *)Q, (const T *)K, (const T *)V, (T *)O, LSE, *s, scale_log2);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t v3_dispatch(const fa_gpu_shape *s, int variant, const void *Q, const void *K,
                               const void *V, void *O, float *LSE, cudaStream_t st)
{
    if (s->d == 64)
        return variant == 0   ? launch_v3<64, 64, 8, 1, 2, T>(s, Q, K, V, O, LSE, st)
               : variant == 1 ? launch_v3<64, 64, 4, 2, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 2 ? launch_v3<64, 32, 4, 2, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 3 ? launch_v3<64, 64, 8, 2, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 6 ? launch_v3<64, 128, 8, 1, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 7 ? launch_v3<64, 48, 4, 2, 1, T>(s, Q, K, V, O, LSE, st)
                              : launch_v3<64, 64, 4, 2, 1, T, true>(s, Q, K, V, O, LSE, st);
    if (s->d == 128)
        return variant == 0   ? launch_v3<128, 64, 8, 1, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 1 ? launch_v3<128, 64, 4, 2, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 2 ? launch_v3<128, 32, 4, 2, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 3 ? launch_v3<128, 64, 8, 2, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 6 ? launch_v3<128, 128, 8, 1, 1, T>(s, Q, K, V, O, LSE, st)
               : variant == 7 ? launch_v3<128, 48, 4, 2, 1, T>(s, Q, K, V, O, LSE, st)
                              : launch_v3<128, 64, 4, 2, 1, T, true>(s, Q, K, V, O, LSE, st);
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t fa_v3_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, int variant,
                                     const void *Q, const void *K, const void *V, void *O,
                                     float *LSE, cudaStream_t st)
{
    if (dt == FA_GPU_BF16) return v3_dispatch<__nv_bfloat16>(s, variant, Q, K, V, O, LSE, st);
    if (dt == FA_GPU_FP16) return v3_dispatch<__half>(s, variant, Q, K, V, O, LSE, st);
    return cudaErrorInvalidValue;
}
