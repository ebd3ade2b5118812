/* hopper.cuh -- the Hopper (sm_90a) machinery the v5 kernels share: mbarriers, TMA copies
 * (cp.async.bulk.tensor and the plain cp.async.bulk), named barriers, setmaxnreg, and the host's
 * tensor maps (cuTensorMapEncodeTiled through the driver entry point, so no -lcuda).
 * PTX ISA 8.x: "mbarrier", "cp.async.bulk.tensor", "cp.async.bulk", "bar.sync / bar.arrive",
 * "setmaxnreg".  Include after tc_common.cuh (smem_u32) and wgmma.cuh (FA_HAVE_WGMMA). */
#ifndef FA_HOPPER_CUH
#define FA_HOPPER_CUH
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>

#include "tc_common.cuh"
#include "wgmma.cuh"

/* ---- mbarrier, TMA, named barriers, setmaxnreg (PTX ISA 8.x) ---- */

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
/* the producer's arrive that also announces `bytes` of TMA transactions on the barrier */
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
/* waits until the phase of parity `parity` has completed */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    asm volatile("{\n.reg .pred p;\nV5_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra V5_WAIT;\n}\n" ::"r"(smem_u32(bar)),
                 "r"(parity)
                 : "memory");
}
/* four 8 x 8 tiles of 16-bit values from registers to shared memory (stmatrix, sm_90): register i
 * of lane 4 r + t holds row r, columns 2 t, 2 t + 1 of tile i (the mma / wgmma accumulator layout
 * packed to 16 bits), and lane 8 i + r gives the 16-byte address of tile i's row r */
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
#if FA_HAVE_WGMMA
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
#endif
}
/* one box of a 3-d tensor map (coordinates innermost first) into shared memory at dst */
__device__ __forceinline__ void tma_load3(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
                     smem_u32(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
/* one box from shared memory at src to a 3-d tensor map (rows past the tensor are not written) */
__device__ __forceinline__ void tma_store3(const CUtensorMap *map, const void *src, int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* waits until the committed bulk stores have read their shared memory (READ) or are done */
template <bool READ> __device__ __forceinline__ void bulk_wait()
{
    if (READ) asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    else asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}
__device__ __forceinline__ void named_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void named_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
template <int N> __device__ __forceinline__ void reg_dealloc()
{
#if FA_HAVE_WGMMA
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N> __device__ __forceinline__ void reg_alloc()
{
#if FA_HAVE_WGMMA
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
/* keeps the compiler from moving uses of wgmma accumulators across a wgmma wait */
template <int N> __device__ __forceinline__ void fence_regs(float (&x)[N][4])
{
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int e = 0; e < 4; e++) asm volatile("" : "+f"(x[i][e])::"memory");
}

/* n bytes (a multiple of 16, both addresses 16-byte aligned) from global src to shared dst,
 * completing on the mbarrier bar (its expect_tx counts them) */
__device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t n, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     smem_u32(dst)),
                 "l"(src), "r"(n), "r"(smem_u32(bar))
                 : "memory");
}

/* ---- host: tensor maps (driver entry point, no -lcuda) and the launch ---- */
/* n bytes (a multiple of 16) of fp32 from shared src added element by element to global dst
 * (the TMA unit's reduce-add; a bulk group: bulk_commit, then bulk_wait) */
__device__ __forceinline__ void bulk_reduce_add_f32(float *dst, const void *src, uint32_t n)
{
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(dst),
                 "r"(smem_u32(src)), "r"(n)
                 : "memory");
}

/* Host side: the current device's SM count into *sms (asked once per process; the persistent grids'
 * block count).  cudaErrorNoDevice when it cannot be read. */
static inline cudaError_t fa_sm_count(int *sms)
{
    static int n = 0;
    if (!n) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
            n = 0;
            return cudaErrorNoDevice;
        }
    }
    *sms = n;
    return cudaSuccess;
}

static inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
    if (!fn) {
        cudaDriverEntryPointQueryResult q;
        void *p = NULL;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}

/* (inner, N, heads x B) of esize-byte elements, boxes of (128 / esize, rows, 1) -- one 128-byte row
 * of the box a row of the tile -- 128-byte swizzle, zeros out of bounds.  inner * esize must be a
 * multiple of 16 (the TMA's stride rule). */
static inline int make_map_e(CUtensorMap *map, const void *ptr, int inner, int N, int BH, int rows, CUtensorMapDataType t,
                             int esize)
{
    PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
    if (!fn) return 1;
    const cuuint64_t dims[3] = {(cuuint64_t)inner, (cuuint64_t)N, (cuuint64_t)BH};
    const cuuint64_t strides[2] = {(cuuint64_t)inner * esize, (cuuint64_t)N * inner * esize};
    const cuuint32_t box[3] = {(cuuint32_t)(128 / esize), (cuuint32_t)rows, 1}, estr[3] = {1, 1, 1};
    CUresult r = fn(map, t, 3, const_cast<void *>(ptr), dims, strides, box, estr,
                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r != CUDA_SUCCESS;
}
/* (d, N, heads x B) of 2-byte elements, boxes of (64, rows, 1) */
static inline int make_map(CUtensorMap *map, const void *ptr, int d, int N, int BH, int rows, CUtensorMapDataType t)
{
    return make_map_e(map, ptr, d, N, BH, rows, t, 2);
}


#endif
