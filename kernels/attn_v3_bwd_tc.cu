/* attn_v3_bwd_tc.cu -- version 3 backward: FlashAttention-2 backward (Dao 2023, Algorithm 2)
 * on tensor cores (bf16 / fp16 in, fp32 accumulate), with the building blocks of the v3 forward.
 *
 * Nothing N x N is stored: S and P are recomputed from Q, K and the forward's LSE
 * (P = exp(scale S - LSE), line 11), so only Q, K, V, O, dO, LSE move through HBM.
 *   1. pre-pass (line 4): D_i = rowsum(dO_i * O_i), fp32, and dQ_acc = 0 (fp32).
 *   2. main kernel, one thread block per K/V block j (B_c = 64 or 128 keys, 16 keys a warp) and
 *      kv head: the outer loop of Algorithm 2 (line 5).  dK_j, dV_j stay in registers while the
 *      block walks the Q blocks i (B_r = 64) that can see K_j (causal: from the diagonal on)
 *      and, for GQA, every query head of its group, so dK, dV need no atomics.  Per step, with
 *      the keys as rows (the transposed problem keeps each warp's keys in its own registers):
 *        S^T = K_j Q_i^T,  P^T = exp2(S^T scale log2 e - LSE log2 e)    (lines 9-11)
 *        dV_j += P^T dO_i          P^T straight from the accumulators  (line 12)
 *        dP^T = V_j dO_i^T,  dS^T = P^T o (dP^T - D_i)                  (lines 13-14)
 *        dK_j += dS^T Q_i          dS^T straight from the accumulators  (line 16)
 *        dQ_i += dS K_j            dS^T goes through shared memory; fp32 atomics (line 15),
 *                                  16 bytes each (lanes swap halves to own 4 columns)
 *      Q_i, dO_i, LSE_i, D_i of the next step are fetched with cp.async while this one computes,
 *      issued right after the step's first barrier (two barriers a step: the refill of the other
 *      stage needs no barrier of its own).  Without a causal mask, only a warp whose keys or
 *      queries cross the end of the keys/queries evaluates the mask; with a causal mask every
 *      element does (measured faster there, analysis/measured/h200/ma_bwd.csv).
 *      As in the forward, the ldmatrix addresses of the step are per-lane swizzle offsets
 *      computed once plus immediates, and whole Q/dO tiles are copied without bounds tests
 *      (+3-5 % at d = 128, within 1 % at d = 64: analysis/measured/h200/ab2_bwd_*.csv).
 *   3. post-pass: dQ = dQ_acc * scale rounded to bf16/fp16 (16-byte loads and stores).
 * Deterministic mode: the main kernel skips dQ, and a second kernel, one block per Q block,
 * walks the K/V blocks and accumulates dQ_i in registers (recomputing S, P, dP: more FLOPs,
 * no atomics, bit-identical results run to run).
 * `v3_bwd_occ2` (d = 64, B_c = 128): each step's 64 queries in two halves of 32, so S^T and dP^T
 * take half the registers and the whole kernel fits 128 registers a thread: two thread blocks
 * (16 warps) per SM instead of one, which hides the latency of the softmax and of the barriers
 * (0.84-1.02x FlashAttention-2 at N >= 2k against 0.80-0.96x for v3_bwd, docs/results.md).
 */
#include <math.h>

#include "fa_kernels.h"
#include "tc_common.cuh"

#define BW_BR 64 /* queries per step */
#define BW_BC 64 /* keys per block of the deterministic dQ kernel */
#define BW_NT 128 /* threads of the deterministic dQ kernel */

static __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
static __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

/* D = rowsum(dO o O) per query row; zeroes the fp32 dQ accumulator row.  D / 8 threads a row,
 * each with one 16-byte load of O and of dO (8 values) and two 16-byte stores of zeros; the
 * row's partial sums meet by shuffles inside its group of D / 8 lanes. */
template <int D, typename T>
__global__ void fa_v3_bwd_pre_kernel(const T *__restrict__ O, const T *__restrict__ dO,
                                     float *__restrict__ Dsum, float *__restrict__ dQacc,
                                     long long rows, int zero_dq)
{
    constexpr int TPR = D / 8; /* threads per row: 8 or 16 */
    const long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / TPR;
    const int c = (threadIdx.x % TPR) * 8;
    float acc = 0.f;
    if (r < rows) {
        const uint4 a = *reinterpret_cast<const uint4 *>(O + r * D + c);
        const uint4 b = *reinterpret_cast<const uint4 *>(dO + r * D + c);
        const T *pa = reinterpret_cast<const T *>(&a), *pb = reinterpret_cast<const T *>(&b);
#pragma unroll
        for (int e = 0; e < 8; e++) acc += to_float(pa[e]) * to_float(pb[e]);
        if (zero_dq) {
            float4 *z = reinterpret_cast<float4 *>(dQacc + r * D + c);
            z[0] = make_float4(0.f, 0.f, 0.f, 0.f);
            z[1] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }
#pragma unroll
    for (int o = TPR / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (r < rows && c == 0) Dsum[r] = acc;
}

/* dQ = dQ_acc * scale in bf16/fp16, 8 values a thread (two 16-byte loads, one 16-byte store);
 * n is a multiple of 8 (d is 64 or 128). */
template <typename T>
__global__ void fa_v3_bwd_post_kernel(const float *__restrict__ dQacc, T *__restrict__ dQ,
                                      long long n, float scale)
{
    for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * 8; i < n;
         i += (long long)gridDim.x * blockDim.x * 8) {
        const float4 x = *reinterpret_cast<const float4 *>(dQacc + i);
        const float4 y = *reinterpret_cast<const float4 *>(dQacc + i + 4);
        uint4 w;
        w.x = pack2<T>(x.x * scale, x.y * scale);
        w.y = pack2<T>(x.z * scale, x.w * scale);
        w.z = pack2<T>(y.x * scale, y.y * scale);
        w.w = pack2<T>(y.z * scale, y.w * scale);
        *reinterpret_cast<uint4 *>(dQ + i) = w;
    }
}

/* 4-byte cp.async of n floats (zero-filled past `valid`). */
__device__ __forceinline__ void load_vec_async(float *dst, const float *src, int n, int valid)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        bool ok = i < valid;
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst + i)),
                     "l"(src + (ok ? i : 0)), "r"(ok ? 4 : 0));
    }
}

/* ---- main kernel: dK, dV (and dQ by atomics) per K/V block of BC keys (BC / 16 warps) ---- */
template <int D, int BC, bool WITH_DQ, int QS, int MINB, typename T, bool MA = false>
__global__ void __launch_bounds__(BC * 2, MINB)
    fa_v3_bwd_kernel(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                     const T *__restrict__ dO, const float *__restrict__ LSE,
                     const float *__restrict__ Dsum, float *__restrict__ dQacc,
                     T *__restrict__ dK, T *__restrict__ dV, fa_gpu_shape sh, float scale_log2)
{
    constexpr int DB = D / 8, NT = BC * 2;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    T *Ks = reinterpret_cast<T *>(smem_raw);
    T *Vs = Ks + BC * D;
    T *Qs = Vs + BC * D;   /* 2 stages */
    T *dOs = Qs + 2 * BW_BR * D; /* 2 stages */
    T *dSs = dOs + 2 * BW_BR * D; /* (B_c keys, B_r queries), swizzled rows of 64 */
    float *Ls = reinterpret_cast<float *>(dSs + BC * BW_BR); /* 2 stages of B_r */
    float *Ds = Ls + 2 * BW_BR;

    const int b = blockIdx.z, hk = blockIdx.y, kb = blockIdx.x;
    const int c0 = kb * BC;
    const int group = sh.H / sh.H_kv;
    const int off = sh.N_k - sh.N_q;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane >> 2, t4 = lane & 3;
    const int wk = warp * 16; /* this warp's first key inside the block */
    const T *kg = K + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const T *vg = V + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const float log2e = 1.44269504088896341f;

    /* Q blocks that see this key block: causal -> from the first row whose limit reaches c0 */
    const int T_r = (sh.N_q + BW_BR - 1) / BW_BR;
    int i_lo = 0;
    if (sh.causal) {
        long long rmin = (long long)c0 - off;
        i_lo = rmin <= 0 ? 0 : (int)min((long long)T_r, rmin / BW_BR);
    }
    const int nq = T_r - i_lo, n_it = nq * group;

    float dk[DB][4], dv[DB][4];
#pragma unroll
    for (int db = 0; db < DB; db++)
#pragma unroll
        for (int e = 0; e < 4; e++) dk[db][e] = dv[db][e] = 0.f;
    /* ldmatrix byte offsets: K, V (this warp's keys) as the A operand, Q, dO as the B operand
     * of S^T, dP^T, and transposed as the B operand of dV, dK.  V and dO sit at fixed distances
     * from K and Q: one base address each. */
    uint32_t ka[4], qb[4], qt[4];
    ldsm_a_offsets<D>(ka, wk, lane);
    ldsm_b_offsets<D>(qb, lane);
    ldsm_bt_offsets<D>(qt, lane);
#pragma unroll
    for (int i = 0; i < 4; i++) ka[i] += smem_u32(Ks);
    constexpr uint32_t V_OFF = BC * D * sizeof(T), DO_OFF = 2 * BW_BR * D * sizeof(T);

    auto issue = [&](int it, int stg) {
        const int hq = hk * group + it / nq, r0 = (i_lo + it % nq) * BW_BR;
        const long long bh = (long long)b * sh.H + hq;
        load_tile_pair_async<D, BW_BR, NT>(Qs + stg * BW_BR * D, Q + bh * sh.N_q * D,
                                           dOs + stg * BW_BR * D, dO + bh * sh.N_q * D, r0, sh.N_q);
        load_vec_async(Ls + stg * BW_BR, LSE + bh * sh.N_q + r0, BW_BR, sh.N_q - r0);
        load_vec_async(Ds + stg * BW_BR, Dsum + bh * sh.N_q + r0, BW_BR, sh.N_q - r0);
    };

    if (n_it > 0) {
        load_tile_async<D, BC, NT>(Ks, kg, c0, sh.N_k);
        load_tile_async<D, BC, NT>(Vs, vg, c0, sh.N_k);
        issue(0, 0);
        cp_async_commit();
    }
    for (int it = 0; it < n_it; it++) {
        const int st = it & 1;
        const int hq = hk * group + it / nq, r0 = (i_lo + it % nq) * BW_BR;
        cp_async_wait<0>(); /* step it's Q, dO, LSE, D (issued one step ago) */
        __syncthreads();    /* ... visible to all, and every warp is done with step it - 1:
                               stage st ^ 1 and dS^T are free (one barrier fewer than
                               refilling before the wait) */
        if (it + 1 < n_it) {
            issue(it + 1, st ^ 1);
            cp_async_commit();
        }
        const T *Qt = Qs + st * BW_BR * D;
        const uint32_t sQ = smem_u32(Qt); /* dO of this stage at sQ + DO_OFF */
        const float *Lt = Ls + st * BW_BR, *Dt = Ds + st * BW_BR;
        /* this warp's 16 keys x 64 queries need no mask unless they cross the end of the keys,
         * the end of the queries or the causal diagonal */
        const bool need_mask = c0 + wk + 16 > sh.N_k || r0 + BW_BR > sh.N_q ||
                               (sh.causal && c0 + wk + 15 > r0 + off);

        /* QS = 2: the 64 queries in two halves of 32, so S^T and dP^T need half the registers
         * (with MINB = 2: two thread blocks, 16 warps, per SM) */
#pragma unroll
        for (int qh = 0; qh < QS; qh++) {
        constexpr int QH = BW_BR / QS, NBH = QH / 8;
        const int qo = qh * QH;
        /* S^T = K_j Q_i^T (this warp's 16 keys x QH queries) */
        float s[NBH][4], dp[NBH][4];
#pragma unroll
        for (int nb = 0; nb < NBH; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) s[nb][e] = dp[nb][e] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t ak[4], av[4];
            const uint32_t kx = ka[kk & 3] + (kk >> 2) * 128;
            ldmatrix_x4(ak, kx);
            ldmatrix_x4(av, kx + V_OFF);
            const uint32_t qx = sQ + qb[kk & 3] + (kk >> 2) * 128;
#pragma unroll
            for (int nb2 = 0; nb2 < NBH / 2; nb2++) {
                uint32_t bq[4], bo[4];
                const uint32_t rows = (qo + nb2 * 16) * 2 * D; /* bytes */
                ldmatrix_x4(bq, qx + rows);
                ldmatrix_x4(bo, qx + rows + DO_OFF);
                mma16816<T>(s[2 * nb2], ak, bq[0], bq[1]);
                mma16816<T>(s[2 * nb2 + 1], ak, bq[2], bq[3]);
                mma16816<T>(dp[2 * nb2], av, bo[0], bo[1]); /* dP^T = V_j dO_i^T */
                mma16816<T>(dp[2 * nb2 + 1], av, bo[2], bo[3]);
            }
        }
        /* P^T = exp(scale S^T - LSE) where allowed, else 0; dS^T = P^T o (dP^T - D) */
#pragma unroll
        for (int nb = 0; nb < NBH; nb++) {
            const int ql = qo + nb * 8 + t4 * 2;
            const float2 lse2 = *reinterpret_cast<const float2 *>(Lt + ql);
            const float2 d2 = *reinterpret_cast<const float2 *>(Dt + ql);
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const float lg = (e & 1) ? lse2.y : lse2.x, dd = (e & 1) ? d2.y : d2.x;
                if (MA) { /* the earlier form: the mask evaluated on every element */
                    const int key = c0 + wk + g + (e >> 1) * 8, q = r0 + ql + (e & 1);
                    const bool ok = key < sh.N_k && q < sh.N_q && (!sh.causal || key <= q + off);
                    const float p = ok ? fast_exp2(fmaf(s[nb][e], scale_log2, -lg * log2e)) : 0.f;
                    s[nb][e] = p;
                    dp[nb][e] = p * (dp[nb][e] - dd);
                    continue;
                }
                float p = fast_exp2(fmaf(s[nb][e], scale_log2, -lg * log2e));
                if (need_mask) {
                    const int key = c0 + wk + g + (e >> 1) * 8, q = r0 + ql + (e & 1);
                    if (!(key < sh.N_k && q < sh.N_q && (!sh.causal || key <= q + off))) p = 0.f;
                }
                s[nb][e] = p;
                dp[nb][e] = p * (dp[nb][e] - dd);
            }
        }
        /* dV_j += P^T dO_i and dK_j += dS^T Q_i (k = queries) */
#pragma unroll
        for (int kc = 0; kc < QH / 16; kc++) {
            uint32_t pa[4], sa[4];
            pa[0] = pack2<T>(s[2 * kc][0], s[2 * kc][1]);
            pa[1] = pack2<T>(s[2 * kc][2], s[2 * kc][3]);
            pa[2] = pack2<T>(s[2 * kc + 1][0], s[2 * kc + 1][1]);
            pa[3] = pack2<T>(s[2 * kc + 1][2], s[2 * kc + 1][3]);
            sa[0] = pack2<T>(dp[2 * kc][0], dp[2 * kc][1]);
            sa[1] = pack2<T>(dp[2 * kc][2], dp[2 * kc][3]);
            sa[2] = pack2<T>(dp[2 * kc + 1][0], dp[2 * kc + 1][1]);
            sa[3] = pack2<T>(dp[2 * kc + 1][2], dp[2 * kc + 1][3]);
            const int qc = qo + kc * 16;
            if (WITH_DQ) { /* dS^T to shared memory for dQ: rows = keys, 64 queries a row */
                *reinterpret_cast<uint32_t *>(dSs + swz<BW_BR>(wk + g, qc + t4 * 2)) = sa[0];
                *reinterpret_cast<uint32_t *>(dSs + swz<BW_BR>(wk + g + 8, qc + t4 * 2)) = sa[1];
                *reinterpret_cast<uint32_t *>(dSs + swz<BW_BR>(wk + g, qc + 8 + t4 * 2)) = sa[2];
                *reinterpret_cast<uint32_t *>(dSs + swz<BW_BR>(wk + g + 8, qc + 8 + t4 * 2)) = sa[3];
            }
#pragma unroll
            for (int db2 = 0; db2 < DB / 2; db2++) {
                uint32_t bo[4], bq[4];
                const uint32_t x = sQ + qt[db2 & 3] + (db2 >> 2) * 128 + qc * 2 * D;
                ldmatrix_x4_trans(bo, x + DO_OFF);
                ldmatrix_x4_trans(bq, x);
                mma16816<T>(dv[2 * db2], pa, bo[0], bo[1]);
                mma16816<T>(dv[2 * db2 + 1], pa, bo[2], bo[3]);
                mma16816<T>(dk[2 * db2], sa, bq[0], bq[1]);
                mma16816<T>(dk[2 * db2 + 1], sa, bq[2], bq[3]);
            }
        }
        } /* qh */
        if (WITH_DQ) {
            __syncthreads(); /* all of dS^T is in shared memory */
            /* dQ_i += dS K_j; warp w: queries 16 (w % 4).., dims [w / 4 * D / NS, +D / NS)
             * with NS = BC / 64 dim slices; A = dS via ldmatrix.trans of dS^T */
            constexpr int NS = BC / 64;
            const int q0 = (warp % 4) * 16, dlo = (warp / 4) * (D / NS);
            float *dq = dQacc + ((long long)b * sh.H + hq) * sh.N_q * D;
            if constexpr (QS == 2) { /* fewer live registers: each dS fragment loaded once */
                constexpr int NDB = DB / 2 / NS;
                float acc[NDB][2][4];
#pragma unroll
                for (int x = 0; x < NDB; x++)
#pragma unroll
                    for (int e = 0; e < 4; e++) acc[x][0][e] = acc[x][1][e] = 0.f;
#pragma unroll
                for (int ks = 0; ks < BC / 16; ks++) {
                    uint32_t a[4];
                    ldmatrix_x4_trans(a, smem_u32(dSs + swz<BW_BR>(ks * 16 + (lane & 7) + (lane >> 4) * 8,
                                                                   q0 + ((lane >> 3) & 1) * 8)));
#pragma unroll
                    for (int db2 = 0; db2 < NDB; db2++) {
                        uint32_t bk[4];
                        ldmatrix_x4_trans(bk, smem_u32(Ks + swz<D>(ks * 16 + (lane & 7) + ((lane >> 3) & 1) * 8,
                                                                   dlo + db2 * 16 + (lane >> 4) * 8)));
                        mma16816<T>(acc[db2][0], a, bk[0], bk[1]);
                        mma16816<T>(acc[db2][1], a, bk[2], bk[3]);
                    }
                }
#pragma unroll
                for (int db2 = 0; db2 < NDB; db2++)
                    atomic_add_tile<D>(dq, acc[db2], r0 + q0, dlo + db2 * 16, sh.N_q, lane);
            } else {
            uint32_t a[BC / 16][4];
#pragma unroll
            for (int ks = 0; ks < BC / 16; ks++)
                ldmatrix_x4_trans(a[ks], smem_u32(dSs + swz<BW_BR>(ks * 16 + (lane & 7) + (lane >> 4) * 8,
                                                                   q0 + ((lane >> 3) & 1) * 8)));
#pragma unroll
            for (int db2 = 0; db2 < DB / 2 / NS; db2++) {
                float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
                for (int ks = 0; ks < BC / 16; ks++) {
                    uint32_t bk[4];
                    ldmatrix_x4_trans(bk, smem_u32(Ks + swz<D>(ks * 16 + (lane & 7) + ((lane >> 3) & 1) * 8,
                                                               dlo + db2 * 16 + (lane >> 4) * 8)));
                    mma16816<T>(acc[0], a[ks], bk[0], bk[1]);
                    mma16816<T>(acc[1], a[ks], bk[2], bk[3]);
                }
                atomic_add_tile<D>(dq, acc, r0 + q0, dlo + db2 * 16, sh.N_q, lane);
            }
            } /* QS */
        }
    }
    /* dK_j = scale * sum dS^T Q (line 16 carries the scale), dV_j; rows past N_k dropped */
    const float scale = scale_log2 / log2e;
    T *dkg = dK + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    T *dvg = dV + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
#pragma unroll
    for (int hr = 0; hr < 2; hr++) {
        const int key = c0 + wk + g + hr * 8;
        if (key >= sh.N_k) continue;
#pragma unroll
        for (int db = 0; db < DB; db++) {
            const long long o = (long long)key * D + db * 8 + t4 * 2;
            *reinterpret_cast<uint32_t *>(dkg + o) =
                pack2<T>(dk[db][2 * hr] * scale, dk[db][2 * hr + 1] * scale);
            *reinterpret_cast<uint32_t *>(dvg + o) = pack2<T>(dv[db][2 * hr], dv[db][2 * hr + 1]);
        }
    }
}

/* ---- deterministic dQ: one block per Q block (4 warps x 16 queries), loop over K/V ---- */
template <int D, typename T>
__global__ void __launch_bounds__(BW_NT, 1)
    fa_v3_bwd_dq_kernel(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                        const T *__restrict__ dO, const float *__restrict__ LSE,
                        const float *__restrict__ Dsum, T *__restrict__ dQ, fa_gpu_shape sh,
                        float scale_log2)
{
    constexpr int NB = BW_BC / 8, DB = D / 8;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    T *Qs = reinterpret_cast<T *>(smem_raw);
    T *dOs = Qs + BW_BR * D;
    T *Ks = dOs + BW_BR * D; /* 2 stages */
    T *Vs = Ks + 2 * BW_BC * D;
    const int b = blockIdx.z, h = blockIdx.y, r0 = blockIdx.x * BW_BR;
    const int hk = h / (sh.H / sh.H_kv), off = sh.N_k - sh.N_q;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane >> 2, t4 = lane & 3;
    const int wq = warp * 16;
    const long long bh = (long long)b * sh.H + h;
    const T *kg = K + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const T *vg = V + ((long long)b * sh.H_kv + hk) * sh.N_k * D;
    const float log2e = 1.44269504088896341f;
    int n_kv = (sh.N_k + BW_BC - 1) / BW_BC;
    if (sh.causal) {
        long long last = (long long)min(r0 + BW_BR, sh.N_q) - 1 + off;
        n_kv = last < 0 ? 0 : (int)min((long long)n_kv, last / BW_BC + 1);
    }
    /* per-row LSE and D of this thread's rows g, g+8 */
    float lse2[2], dd[2];
#pragma unroll
    for (int hr = 0; hr < 2; hr++) {
        const int q = r0 + wq + g + hr * 8;
        lse2[hr] = q < sh.N_q ? LSE[bh * sh.N_q + q] * log2e : 0.f;
        dd[hr] = q < sh.N_q ? Dsum[bh * sh.N_q + q] : 0.f;
    }
    float dq[DB][4];
#pragma unroll
    for (int db = 0; db < DB; db++)
#pragma unroll
        for (int e = 0; e < 4; e++) dq[db][e] = 0.f;
    if (n_kv > 0) {
        load_tile_async<D, BW_BR, BW_NT>(Qs, Q + bh * sh.N_q * D, r0, sh.N_q);
        load_tile_async<D, BW_BR, BW_NT>(dOs, dO + bh * sh.N_q * D, r0, sh.N_q);
        load_tile_async<D, BW_BC, BW_NT>(Ks, kg, 0, sh.N_k);
        load_tile_async<D, BW_BC, BW_NT>(Vs, vg, 0, sh.N_k);
        cp_async_commit();
    }
    for (int j = 0; j < n_kv; j++) {
        const int c0 = j * BW_BC, st = j & 1;
        if (j + 1 < n_kv) {
            load_tile_pair_async<D, BW_BC, BW_NT>(Ks + (st ^ 1) * BW_BC * D, kg,
                                                  Vs + (st ^ 1) * BW_BC * D, vg, c0 + BW_BC, sh.N_k);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        const T *Kt = Ks + st * BW_BC * D, *Vt = Vs + st * BW_BC * D;
        float s[NB][4], dp[NB][4];
#pragma unroll
        for (int nb = 0; nb < NB; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) s[nb][e] = dp[nb][e] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t aq[4], ao[4];
            ldmatrix_x4(aq, smem_u32(Qs + swz<D>(wq + (lane & 15), kk * 16 + (lane >> 4) * 8)));
            ldmatrix_x4(ao, smem_u32(dOs + swz<D>(wq + (lane & 15), kk * 16 + (lane >> 4) * 8)));
#pragma unroll
            for (int nb2 = 0; nb2 < NB / 2; nb2++) {
                uint32_t bk[4], bv[4];
                const int rr = nb2 * 16 + (lane & 7) + (lane >> 4) * 8;
                const int cc = kk * 16 + ((lane >> 3) & 1) * 8;
                ldmatrix_x4(bk, smem_u32(Kt + swz<D>(rr, cc)));
                ldmatrix_x4(bv, smem_u32(Vt + swz<D>(rr, cc)));
                mma16816<T>(s[2 * nb2], aq, bk[0], bk[1]);
                mma16816<T>(s[2 * nb2 + 1], aq, bk[2], bk[3]);
                mma16816<T>(dp[2 * nb2], ao, bv[0], bv[1]); /* dP = dO_i V_j^T */
                mma16816<T>(dp[2 * nb2 + 1], ao, bv[2], bv[3]);
            }
        }
#pragma unroll
        for (int nb = 0; nb < NB; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int hr = e >> 1, q = r0 + wq + g + hr * 8;
                const int key = c0 + nb * 8 + t4 * 2 + (e & 1);
                const bool ok = key < sh.N_k && q < sh.N_q && (!sh.causal || key <= q + off);
                const float p = ok ? fast_exp2(fmaf(s[nb][e], scale_log2, -lse2[hr])) : 0.f;
                dp[nb][e] = p * (dp[nb][e] - dd[hr]);
            }
        /* dQ_i += dS K_j (k = keys) */
#pragma unroll
        for (int kc = 0; kc < BW_BC / 16; kc++) {
            uint32_t sa[4];
            sa[0] = pack2<T>(dp[2 * kc][0], dp[2 * kc][1]);
            sa[1] = pack2<T>(dp[2 * kc][2], dp[2 * kc][3]);
            sa[2] = pack2<T>(dp[2 * kc + 1][0], dp[2 * kc + 1][1]);
            sa[3] = pack2<T>(dp[2 * kc + 1][2], dp[2 * kc + 1][3]);
#pragma unroll
            for (int db2 = 0; db2 < DB / 2; db2++) {
                uint32_t bk[4];
                ldmatrix_x4_trans(bk, smem_u32(Kt + swz<D>(kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8,
                                                           db2 * 16 + (lane >> 4) * 8)));
                mma16816<T>(dq[2 * db2], sa, bk[0], bk[1]);
                mma16816<T>(dq[2 * db2 + 1], sa, bk[2], bk[3]);
            }
        }
        __syncthreads();
    }
    const float scale = scale_log2 / log2e;
    T *dqg = dQ + bh * sh.N_q * D;
#pragma unroll
    for (int hr = 0; hr < 2; hr++) {
        const int q = r0 + wq + g + hr * 8;
        if (q >= sh.N_q) continue;
#pragma unroll
        for (int db = 0; db < DB; db++)
            *reinterpret_cast<uint32_t *>(dqg + (long long)q * D + db * 8 + t4 * 2) =
                pack2<T>(dq[db][2 * hr] * scale, dq[db][2 * hr + 1] * scale);
    }
}

/* One launch of the main kernel (all its compile-time choices as template arguments). */
template <int D, int BC, bool WITH_DQ, int QS, int MINB, bool MA, typename T>
static cudaError_t launch_main(dim3 grid, int bytes, cudaStream_t st, const void *Q, const void *K,
                               const void *V, const void *dO, const float *LSE, const float *Dsum,
                               float *dQacc, void *dK, void *dV, const fa_gpu_shape *s,
                               float scale_log2)
{
    auto kern = fa_v3_bwd_kernel<D, BC, WITH_DQ, QS, MINB, T, MA>;
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess) return e;
    kern<<<grid, BC * 2, bytes, st>>>((const T *)Q, (const T *)K, (const T *)V, (const T *)dO, LSE,
                                      Dsum, dQacc, (T *)dK, (T *)dV, *s, scale_log2);
    return cudaGetLastError();
}

template <int D, int BC, typename T>
static cudaError_t launch_bwd(const fa_gpu_shape *s, int det, int occ2, int ma,
                              const void *Q, const void *K, const void *V, const void *O,
                              const void *dO, const float *LSE, void *dQ, void *dK, void *dV,
                              float *ws, cudaStream_t st)
{
    const long long rows = (long long)s->B * s->H * s->N_q;
    float *dQacc = ws, *Dsum = ws + rows * D; /* dQacc first: 16-byte aligned rows */
    const float scale_log2 = s->scale * 1.44269504088896341f;
    fa_v3_bwd_pre_kernel<D, T><<<(unsigned)((rows * (D / 8) + 255) / 256), 256, 0, st>>>(
        (const T *)O, (const T *)dO, Dsum, dQacc, rows, !det);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const int bytes = (2 * BC * D + 4 * BW_BR * D + BC * BW_BR) * (int)sizeof(T) +
                      4 * BW_BR * (int)sizeof(float);
    dim3 grid((s->N_k + BC - 1) / BC, s->H_kv, s->B);
    /* causal: the mask evaluated on every element (measured 4-5 % faster at d = 128 than the
     * boundary-tile branch, which is 2-3 % faster without a causal mask: analysis/measured/h200/
     * ma_bwd.csv) */
    const bool mall = ma || s->causal;
#define FA_MAIN(WQ, QS, MB, MA)                                                                   \
    launch_main<D, BC, WQ, QS, MB, MA, T>(grid, bytes, st, Q, K, V, dO, LSE, Dsum, dQacc, dK,     \
                                              dV, s, scale_log2)
    if (det) {
        e = mall ? FA_MAIN(false, 1, 1, true) : FA_MAIN(false, 1, 1, false);
        if (e != cudaSuccess) return e;
        const int qbytes = (2 * BW_BR * D + 4 * BW_BC * D) * (int)sizeof(T);
        e = cudaFuncSetAttribute(fa_v3_bwd_dq_kernel<D, T>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, qbytes);
        if (e != cudaSuccess) return e;
        dim3 qgrid((s->N_q + BW_BR - 1) / BW_BR, s->H, s->B);
        fa_v3_bwd_dq_kernel<D, T><<<qgrid, BW_NT, qbytes, st>>>(
            (const T *)Q, (const T *)K, (const T *)V, (const T *)dO, LSE, Dsum, (T *)dQ, *s,
            scale_log2);
        return cudaGetLastError();
    }
    e = cudaErrorInvalidValue;
    bool done = false;
    (void)occ2;
    if constexpr (D == 64 && BC == 128) {
        if (occ2) {
            e = mall ? FA_MAIN(true, 2, 2, true) : FA_MAIN(true, 2, 2, false);
            done = true;
        }
    }
    if (!done) {
        e = mall ? FA_MAIN(true, 1, 1, true) : FA_MAIN(true, 1, 1, false);
    }
#undef FA_MAIN
    if (e != cudaSuccess) return e;
    fa_v3_bwd_post_kernel<T><<<2048, 256, 0, st>>>(dQacc, (T *)dQ, rows * D, s->scale);
    return cudaGetLastError();
}

extern "C" size_t fa_v3_bwd_workspace_bytes(const fa_gpu_shape *s)
{
    size_t rows = (size_t)s->B * s->H * s->N_q;
    return rows * 4 + rows * (size_t)s->d * 4;
}

template <typename T>
static cudaError_t bwd_dispatch(const fa_gpu_shape *s, int det, int bc, const void *Q,
                                const void *K, const void *V, const void *O, const void *dO,
                                const float *LSE, void *dQ, void *dK, void *dV, float *ws,
                                cudaStream_t st)
{
    if (s->d == 64 && bc == 64)
        return launch_bwd<64, 64, T>(s, det, 0, 0, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    if (s->d == 64 && (bc & ~(FA_BWD_OCC2 | FA_BWD_MASKALL)) == 128)
        return launch_bwd<64, 128, T>(s, det, (bc & FA_BWD_OCC2) != 0,
                                      (bc & FA_BWD_MASKALL) != 0, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    if (s->d == 128 && bc == 64)
        return launch_bwd<128, 64, T>(s, det, 0, 0, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    if (s->d == 128 && (bc & ~FA_BWD_MASKALL) == 128)
        return launch_bwd<128, 128, T>(s, det, 0, (bc & FA_BWD_MASKALL) != 0, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t fa_v3_backward(const fa_gpu_shape *s, fa_gpu_dtype dt, int deterministic,
                                      int block_c, const void *Q, const void *K, const void *V,
                                      const void *O, const void *dO, const float *LSE, void *dQ,
                                      void *dK, void *dV, float *ws, cudaStream_t st)
{
    if (dt == FA_GPU_BF16)
        return bwd_dispatch<__nv_bfloat16>(s, deterministic, block_c, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    if (dt == FA_GPU_FP16)
        return bwd_dispatch<__half>(s, deterministic, block_c, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    return cudaErrorInvalidValue;
}
