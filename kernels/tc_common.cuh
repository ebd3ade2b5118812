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
#include <stdint.h>

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

/* Issues cp.async for rows [row0, row0 + ROWS) of a (N, D) matrix into a swizzled tile. */
template <int D, int ROWS, int NT, typename T>
__device__ __forceinline__ void load_tile_async(T *tile, const T *src, int row0, int N)
{
    constexpr int CPR = D / 8; /* 16-byte chunks per row */
#pragma unroll
    for (int it = 0; it < (ROWS * CPR + NT - 1) / NT; it++) {
        int idx = threadIdx.x + it * NT;
        if (ROWS * CPR % NT != 0 && idx >= ROWS * CPR) break;
        int r = idx / CPR, ch = idx % CPR;
        bool ok = row0 + r < N;
        const T *g = src + (long long)(ok ? row0 + r : 0) * D + ch * 8;
        cp_async16(smem_u32(tile + swz<D>(r, ch * 8)), g, ok ? 16 : 0);
    }
}

#endif
