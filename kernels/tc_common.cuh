/* tc_common.cuh -- tensor-core building blocks shared by the v3 forward and backward kernels:
 * cp.async, ldmatrix, mma.sync m16n8k16 (bf16/fp16 in, fp32 accumulate), the XOR swizzle of
 * shared tiles, and a fast exp2.  Fragment layouts (PTX ISA, "mma.m16n8k16"): lane = 4 g + t,
 *   A (16x16 row-major): a0 (row g, k 2t..2t+1)  a1 (row g+8, k 2t..)  a2 (row g, k 2t+8..)
 *                        a3 (row g+8, k 2t+8..)
 *   B (16x8, "col"):     b0 (k 2t..2t+1, col g)  b1 (k 2t+8.., col g)
 *   C (16x8 fp32):       c0, c1 (row g, cols 2t, 2t+1)  c2, c3 (row g+8, cols 2t, 2t+1)
 * so the C fragments of two adjacent n8 blocks, packed to 16 bits, are an A fragment. */
#ifndef FA_TC_COMMON_CUH
#define FA_TC_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

#include "fa_exp2poly.h"
#include "fa_kernels.h"

/* ---- PTX wrappers ---- */

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16-byte async copy; src_bytes = 0 zero-fills the destination (rows past the end). */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* D (16x8 fp32) += A (16x16, row) * B (16x8, col). */
template <typename T>
__device__ __forceinline__ void mma16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void mma16816<__nv_bfloat16>(float c[4], const uint32_t a[4],
                                                        uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void mma16816<__half>(float c[4], const uint32_t a[4], uint32_t b0,
                                                 uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* 2^x on the special-function unit (one MUFU.EX2; exp2f adds range fix-ups we do not need:
 * the arguments are <= 0 and -inf gives 0). */
__device__ __forceinline__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* 2^x on the fp32 FMA pipe (FlashAttention-4's exp emulation; cpu_ref/fa_exp2poly.h, the same
 * polynomial and the same bits for x >= -125, 0 below): floor(x) from one add of 1.5 2^23 in
 * round-down mode (its low mantissa bits hold floor(x); FRND would run on a quarter-rate pipe),
 * f = x - floor(x), three FFMA, and floor(x) 2^23 added to the polynomial's bits by an IMAD (the
 * FMA pipe) -- seven FMA-pipe operations and a compare-select, in place of one MUFU.EX2. */
__device__ __forceinline__ float exp2_fma(float x)
{
    const float magic = 12582912.0f; /* 1.5 2^23 */
    const float r = __fadd_rd(x, magic), j = r - magic, f = x - j;
    const float p = fmaf(fmaf(fmaf(FA_EXP2P_C3, f, FA_EXP2P_C2), f, FA_EXP2P_C1), f, FA_EXP2P_C0);
    int y;
    asm("mad.lo.s32 %0, %1, 8388608, %2;\n" : "=r"(y) : "r"(__float_as_int(r)), "r"(__float_as_int(p)));
    return x < FA_EXP2P_X_MIN ? 0.0f : __int_as_float(y);
}

/* Two floats -> one register of two 16-bit values (lo in the low half). */
template <typename T> __device__ __forceinline__ uint32_t pack2(float lo, float hi);
template <> __device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}
template <> __device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi)
{
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}

/* Element offset of (row r, column c) in a swizzled tile of D 16-bit columns:
 * 16-byte chunk c/8 of row r is stored at chunk (c/8) ^ (r % 8). */
template <int D> __device__ __forceinline__ int swz(int r, int c)
{
    return r * D + ((((c >> 3) ^ (r & 7))) << 3) + (c & 7);
}

/* Byte offsets of ldmatrix rows in a swizzled tile of D 16-bit columns (row stride 2 D bytes).
 * The lane's row is r (only r % 8 matters for the swizzle) and it reads 16-byte chunk 2 kk + hi
 * of k-step kk.  Since (8 q + c) ^ x = 8 q + (c ^ x) for c, x < 8, step kk = 4 q + kq is at
 *   off[kq] + 128 q   (and a row 16 m further down at + 32 m D),
 * so four per-lane offsets, computed once, turn every fragment address of the tile loop into
 * a register plus an immediate instead of a swizzle computed again on every tile. */
template <int D>
__device__ __forceinline__ void swz_offsets(uint32_t (&off)[4], int r, int hi)
{
#pragma unroll
    for (int kq = 0; kq < 4; kq++)
        off[kq] = (uint32_t)(r * 2 * D + ((((2 * kq + hi) ^ (r & 7))) << 4));
}

/* The per-lane offsets of the three ldmatrix.x4 forms the kernels use (PTX ISA, "ldmatrix"):
 * lanes 8 i .. 8 i + 7 give the row addresses of 8x8 matrix i.
 *   A operand of m16n8k16 (16 rows x 16 k, row-major tile): matrices (rows 0-7, k 0-7),
 *     (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) -> row r0 + (lane & 15),
 *     chunk 2 kk + (lane >> 4);
 *   B operands of two n8 blocks from a tile stored [n][k]: (n 0-7, k 0-7), (n 0-7, k 8-15),
 *     (n 8-15, k 0-7), (n 8-15, k 8-15) -> row (lane & 7) + (lane >> 4) 8, chunk
 *     2 kk + ((lane >> 3) & 1);
 *   the same from a tile stored [k][n] with .trans: row (lane & 7) + ((lane >> 3) & 1) 8 (k),
 *     chunk 2 nn + (lane >> 4) (n). */
template <int D> __device__ __forceinline__ void ldsm_a_offsets(uint32_t (&off)[4], int r0, int lane)
{
    swz_offsets<D>(off, r0 + (lane & 15), lane >> 4);
}
template <int D> __device__ __forceinline__ void ldsm_b_offsets(uint32_t (&off)[4], int lane)
{
    swz_offsets<D>(off, (lane & 7) + (lane >> 4) * 8, (lane >> 3) & 1);
}
template <int D> __device__ __forceinline__ void ldsm_bt_offsets(uint32_t (&off)[4], int lane)
{
    swz_offsets<D>(off, (lane & 7) + ((lane >> 3) & 1) * 8, lane >> 4);
}

/* Shared-tile layouts for load_tile_async: the element offset of (row r, column c), and
 * row_stride, the offset of one row further down when moving by a multiple of 8 rows (which
 * leaves every swizzle unchanged).  SwzLayout: rows of D columns, 16-byte chunks XOR-swizzled
 * by r % 8 (swz above; the mma.sync kernels). */
template <int D> struct SwzLayout {
    __device__ __forceinline__ int operator()(int r, int c) const { return swz<D>(r, c); }
    static constexpr int row_stride = D;
};

/* Issues cp.async for rows [row0, row0 + ROWS) of a (N, D) matrix into a shared tile of layout
 * L; rows past N are zero-filled.  CHECK = false: the caller knows row0 + ROWS <= N (no per-row
 * bounds test). */
template <int D, int ROWS, int NT, typename T, bool CHECK = true, typename L = SwzLayout<D>>
__device__ __forceinline__ void load_tile_async(T *tile, const T *src, int row0, int N)
{
    constexpr int CPR = D / 8; /* 16-byte chunks per row */
    constexpr int RPI = NT / CPR; /* rows per pass of the NT threads */
    if constexpr (!CHECK && NT % CPR == 0 && RPI % 8 == 0 && ROWS % RPI == 0) {
        /* whole tile: thread t copies chunk t % CPR of rows t / CPR + RPI it; the row's swizzle
         * (r % 8) is the same on every pass, so one shared and one global address serve all
         * passes with immediate offsets (few registers in the tile loop) */
        const T *g = src + (long long)row0 * D + threadIdx.x * 8;
        const uint32_t s = smem_u32(tile + L()(threadIdx.x / CPR, (threadIdx.x % CPR) * 8));
#pragma unroll
        for (int it = 0; it < ROWS / RPI; it++)
            cp_async16(s + it * RPI * L::row_stride * (int)sizeof(T), g + it * RPI * D, 16);
    } else {
#pragma unroll
        for (int it = 0; it < (ROWS * CPR + NT - 1) / NT; it++) {
            int idx = threadIdx.x + it * NT;
            if (ROWS * CPR % NT != 0 && idx >= ROWS * CPR) break;
            int r = idx / CPR, ch = idx % CPR;
            bool ok = !CHECK || row0 + r < N;
            const T *g = src + (long long)(ok ? row0 + r : 0) * D + ch * 8;
            cp_async16(smem_u32(tile + L()(r, ch * 8)), g, ok ? 16 : 0);
        }
    }
}

/* Two tiles of the same rows (K and V, or Q and dO): the whole-tile path when rows
 * [row0, row0 + ROWS) all exist, the bounds-tested one otherwise. */
template <int D, int ROWS, int NT, typename T, typename L = SwzLayout<D>>
__device__ __forceinline__ void load_tile_pair_async(T *tile_a, const T *src_a, T *tile_b,
                                                     const T *src_b, int row0, int N)
{
    if (row0 + ROWS <= N) {
        load_tile_async<D, ROWS, NT, T, false, L>(tile_a, src_a, row0, N);
        load_tile_async<D, ROWS, NT, T, false, L>(tile_b, src_b, row0, N);
    } else {
        load_tile_async<D, ROWS, NT, T, true, L>(tile_a, src_a, row0, N);
        load_tile_async<D, ROWS, NT, T, true, L>(tile_b, src_b, row0, N);
    }
}

/* ---- the forward's per-tile steps, shared by v3 (mma.sync) and v4 (wgmma): both hold S and O
 * of a 16-row m-tile in the m16n8 accumulator layout above (rows g and g + 8) ---- */

/* K/V tiles of width BC that the Q rows [r0, r0 + BR) visit: all of them, or with a causal
 * mask (bottom-right anchor) up to the last row's last allowed key. */
__device__ __forceinline__ int fwd_kv_tiles(const fa_gpu_shape &sh, int r0, int BR, int BC)
{
    int n_kv = (sh.N_k + BC - 1) / BC;
    if (sh.causal) {
        const long long last = (long long)min(r0 + BR, sh.N_q) - 1 + (sh.N_k - sh.N_q);
        n_kv = last < 0 ? 0 : (int)min((long long)n_kv, last / BC + 1);
    }
    return n_kv;
}

/* Scores past the last key or above the causal diagonal -> -inf, for the m-tile whose first
 * query row is i0 and the key tile starting at c0. */
template <int NB>
__device__ __forceinline__ void mask_m16(float (&s)[NB][4], const fa_gpu_shape &sh, int i0, int c0,
                                         int g, int t4)
{
    const int off = sh.N_k - sh.N_q;
#pragma unroll
    for (int nb = 0; nb < NB; nb++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int i = i0 + g + (e >> 1) * 8, jj = c0 + nb * 8 + t4 * 2 + (e & 1);
            if (jj >= sh.N_k || (sh.causal && jj > i + off)) s[nb][e] = -INFINITY;
        }
}

/* Online softmax of one m-tile (Alg. 1 lines 9-10, base 2): m = running raw-score max of rows
 * g, g + 8 (shared by the row's quad), l = this thread's partial row sum; S becomes
 * P = exp2(S scale log2 e - m scale log2 e); alpha = exp2 of the max change.  RESCALE: O *= alpha
 * here (the lazy variant does it itself).  FlashAttention-4's two changes (Zadouri, Shah, Dao et al.
 * 2026, arXiv 2603.05451; its code flash_attn/cute/softmax.py, utils.py), used by v5's variants:
 *   EMU: of the NB n8 blocks of a row, EMU (spread evenly) take 2^x from exp2_fma on the FMA pipe
 *        instead of MUFU.EX2, so that the exp unit and the FMA pipe share the work;
 *   CR:  conditional rescaling -- a row keeps its stale max m while the new max exceeds it by at
 *        most tau = 8 in log2 units (P <= 2^8 then, safe in fp32 and bf16) and alpha is exactly 1,
 *        so a caller can skip O *= alpha for a warp whose rows all kept theirs.  Exact: l, O and
 *        the epilogue's LSE all use the same stale m (cpu_ref/flash2.c, rescale_threshold).
 * With EMU = 0 and CR = false (v3, v4, v5) the code is what it was before the two were added.
 *   PSHIFT >= 0 (the v5 FP8 forward): m is kept in log2 units of the scaled scores (the scale may
 *        change from tile to tile: per-block descale factors of K), and P = 2^PSHIFT exp2(..) -- the
 *        P in [0, 2^PSHIFT] that e4m3 gets (2^8: small probabilities stay out of its subnormals);
 *        l sums the same P, so O / l is unchanged and LSE = (m - PSHIFT) ln 2 + ln l. */
template <int NB, int DB, bool RESCALE, int EMU = 0, bool CR = false, int PSHIFT = -1>
__device__ __forceinline__ void softmax_m16(float (&s)[NB][4], float (&o)[DB][4], float (&m)[2],
                                            float (&l)[2], float (&alpha)[2], float scale_log2)
{
    constexpr float TAU = 8.0f;
    static_assert(!(CR && PSHIFT >= 0), "conditional rescaling keeps m in raw units");
#pragma unroll
    for (int hr = 0; hr < 2; hr++) {
        float mx = m[hr];
        if (PSHIFT >= 0) mx = -INFINITY; /* the raw max of this tile; m is in scaled units */
#pragma unroll
        for (int nb = 0; nb < NB; nb++) mx = fmaxf(mx, fmaxf(s[nb][2 * hr], s[nb][2 * hr + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        if (PSHIFT >= 0) mx = fmaxf(m[hr], mx * scale_log2); /* -inf stays -inf */
        if (CR && m[hr] != -INFINITY && (mx - m[hr]) * scale_log2 <= TAU) mx = m[hr]; /* keep the stale max */
        const float ms = PSHIFT >= 0 ? (mx == -INFINITY ? 0.f : mx - (float)PSHIFT)
                                     : (mx == -INFINITY ? 0.f : mx * scale_log2); /* a row with no key yet */
        const float a = m[hr] == -INFINITY ? 0.f
                        : PSHIFT >= 0      ? fast_exp2(m[hr] - mx)
                        : (CR && mx == m[hr]) ? 1.f
                                              : fast_exp2(m[hr] * scale_log2 - ms);
        m[hr] = mx;
        float rs = 0.f;
#pragma unroll
        for (int nb = 0; nb < NB; nb++)
#pragma unroll
            for (int e = 2 * hr; e < 2 * hr + 2; e++) {
                const float x = fmaf(s[nb][e], scale_log2, -ms);
                const float p = (nb * EMU) / NB != ((nb + 1) * EMU) / NB ? exp2_fma(x) : fast_exp2(x);
                s[nb][e] = p;
                rs += p;
            }
        l[hr] = l[hr] * a + rs;
        alpha[hr] = a;
        if (RESCALE) {
#pragma unroll
            for (int db = 0; db < DB; db++) {
                o[db][2 * hr] *= a;
                o[db][2 * hr + 1] *= a;
            }
        }
    }
}

/* The A fragment (k16 step kc) of P V from the P accumulators of n8 blocks 2 kc, 2 kc + 1. */
template <typename T, int NB>
__device__ __forceinline__ void p_fragment(uint32_t (&pa)[4], const float (&s)[NB][4], int kc)
{
    pa[0] = pack2<T>(s[2 * kc][0], s[2 * kc][1]);
    pa[1] = pack2<T>(s[2 * kc][2], s[2 * kc][3]);
    pa[2] = pack2<T>(s[2 * kc + 1][0], s[2 * kc + 1][1]);
    pa[3] = pack2<T>(s[2 * kc + 1][2], s[2 * kc + 1][3]);
}

/* Epilogue of one m-tile (lines 12-13): O / l rounded to T into rows rr0 + g, rr0 + g + 8 of the
 * shared tile Os (element offset lay(row, col)), LSE = m scale + ln l of the global rows
 * r0 + rr0 + ...; a row without a key gets O = 0, LSE = -inf. */
template <int DB, typename T, typename Layout>
__device__ __forceinline__ void epilogue_m16(const float (&o)[DB][4], const float (&m)[2],
                                             const float (&l)[2], T *Os, Layout lay, int rr0,
                                             int r0, float *lse, int N_q, float scale_log2,
                                             int g, int t4)
{
    const float ln2 = 0.69314718055994531f;
#pragma unroll
    for (int hr = 0; hr < 2; hr++) {
        float lt = l[hr];
        lt += __shfl_xor_sync(0xffffffffu, lt, 1);
        lt += __shfl_xor_sync(0xffffffffu, lt, 2);
        const int rr = rr0 + g + hr * 8, i = r0 + rr;
        const float inv = lt > 0.f ? 1.f / lt : 0.f;
#pragma unroll
        for (int db = 0; db < DB; db++)
            *reinterpret_cast<uint32_t *>(Os + lay(rr, db * 8 + t4 * 2)) =
                pack2<T>(o[db][2 * hr] * inv, o[db][2 * hr + 1] * inv);
        if (t4 == 0 && i < N_q) lse[i] = lt > 0.f ? m[hr] * scale_log2 * ln2 + logf(lt) : -INFINITY;
    }
}

/* Rows [rr0, rr0 + ROWS) of the shared O tile to global rows r0 + rr0 + ..., one 16-byte chunk a
 * lane at a time (whole row chunks instead of 4-byte pieces); rows past N_q are skipped. */
template <int D, int ROWS, typename T, typename Layout>
__device__ __forceinline__ void store_rows(T *o_g, const T *Os, Layout lay, int rr0, int r0, int N_q,
                                           int lane)
{
    constexpr int CPR = D / 8;
#pragma unroll
    for (int idx = lane; idx < ROWS * CPR; idx += 32) {
        const int rr = rr0 + idx / CPR, ch = idx % CPR, i = r0 + rr;
        if (i < N_q)
            *reinterpret_cast<uint4 *>(o_g + (long long)i * D + ch * 8) =
                *reinterpret_cast<const uint4 *>(Os + lay(rr, ch * 8));
    }
}

/* Adds the 16 x 16 fp32 tile acc (two n8 accumulators: rows g, g+8; columns 2t, 2t+1 of each)
 * to dq (row stride D; v3 and v5 backward) at rows q0.., columns c0..: lanes t, t^1 swap half their values so each
 * lane holds 4 consecutive columns of one row, then one 16-byte atomic add (sm_90) each. */
template <int D>
__device__ __forceinline__ void atomic_add_tile(float *dq, const float acc[2][4], int q0, int c0,
                                                int N_q, int lane)
{
    const int g = lane >> 2, t4 = lane & 3, odd = t4 & 1;
#pragma unroll
    for (int n = 0; n < 2; n++) {
        const float x0 = odd ? acc[n][0] : acc[n][2], x1 = odd ? acc[n][1] : acc[n][3];
        const float y0 = __shfl_xor_sync(0xffffffffu, x0, 1), y1 = __shfl_xor_sync(0xffffffffu, x1, 1);
        const int q = q0 + g + (odd ? 8 : 0), c = c0 + n * 8 + (t4 >> 1) * 4;
        float4 v = odd ? make_float4(y0, y1, acc[n][2], acc[n][3])
                       : make_float4(acc[n][0], acc[n][1], y0, y1);
        if (q < N_q) {
            float *p = dq + (long long)q * D + c;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
            atomicAdd(reinterpret_cast<float4 *>(p), v);
#else
            atomicAdd(p, v.x);
            atomicAdd(p + 1, v.y);
            atomicAdd(p + 2, v.z);
            atomicAdd(p + 3, v.w);
#endif
        }
    }
}

#endif
