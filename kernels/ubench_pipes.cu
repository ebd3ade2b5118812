/* ubench_pipes.cu -- microbenchmarks of the H200's pipe ceilings for fasim's time model.
 *
 * A standalone program (no fasim code, sm_90a only) that measures, one CSV row each:
 *   mma_sync_bf16, _4warps, _8warps  mma.sync.m16n8k16 bf16 -> f32, operands in registers, 8
 *                        independent accumulators per warp, 4/8/12/16 warps per SM (one block per
 *                        SM): TFLOP/s (one mma = 4096 FLOP); the best, and 1 and 2 warps per
 *                        scheduler
 *   mma_sync_bf16_latency  one warp, one dependent chain on one accumulator: cycles per mma
 *   wgmma_bf16, wgmma_bf16_n128, wgmma_fp8  wgmma.mma_async m64n256k16 / m64n128k16 bf16 and
 *                        m64n256k32 e4m3, f32 accumulators, both operands in shared memory
 *                        through descriptors (K-major, 128-byte swizzle), 4 wgmma per commit
 *                        group with one group left in flight, 1 or 2 warpgroups per SM: TFLOP/s
 *   wgmma_latency_kK     one warpgroup: a commit group of K/16 wgmma m64n128k16 then wait_group 0,
 *                        repeated: cycles from issue to a usable result (K = 16, 64, 128)
 *   wgmma_duty_Y         4 wgmma m64n128k16 bf16 and Y = 0 .. 512 independent ex2 a thread an
 *                        iteration, 1 warpgroup per SM: TFLOP/s and the SM clock at that tensor
 *                        load (the clock under a partial wgmma load, for the time model)
 *   ex2_f32, ex2_ftz_f32 ex2.approx.f32 / .ftz.f32, 8 independent chains per thread: G ex2/s
 *   ex2_f16x2, ex2_bf16x2, cvt_f16x2_f32, cvt_e4m3x2_f16x2, cvt_e4m3x2_f32, ex2_cvt_e4m3_mix
 *                        packed half exponentials (values a second), the conversions an FP8
 *                        softmax makes (instructions a second), and ex2 interleaved with the
 *                        fp32 -> e4m3 conversion (do they share a pipe?), 8 independent chains a thread
 *   fma_f32              fp32 FFMA, 8 chains per thread: TFLOP/s (FMA = 2 FLOP);
 *   fadd_f32, fmax_f32   FADD, FMNMX (fmaxf): G op/s (per SM per clock in the note)
 *   smem_ldmatrix, smem_ld128  ldmatrix.x4 / ld.shared.v4.u32, 512 conflict-free bytes per warp
 *                        instruction: TB/s over the GPU (bytes per SM per clock in the note)
 *   l2_read, l2_read_48MiB  every SM streams (ld.global.cg.v4, coalesced) a warm 24 / 48 MiB
 *                        buffer, many passes: TB/s
 *   dram_read, dram_copy, dram_write  4 GiB read (sum kept), 2 GiB -> 2 GiB copy (counted as
 *                        4 GiB), 4 GiB written: TB/s
 *   dram_latency, l2_latency  one thread chasing pointers through a random cyclic permutation
 *                        of nodes 256 bytes apart over 1 GiB / 16 MiB (ld.global.cg): ns per load
 *   dram_stream_dep_w64, _w8, l2_stream_dep_w64, l1_stream_dep_w64  a block of 256 threads
 *                        streams its own region of 2-byte elements, 512 contiguous bytes a step,
 *                        each warp's 64 B load consumed before its next (one outstanding a
 *                        warp), 8 blocks an SM (64 warps) or 1 (8 warps), regions of 1 MiB /
 *                        32 KiB / 4 KiB a block (DRAM, L2, L1): ns a step (the loaded latency);
 *                        l2_stream_exp_w64, l1_stream_exp_w64 the same with the value through
 *                        cvt, ex2 and an add before the next load
 *   smem_latency         one warp, dependent ld.shared.u32: cycles per load
 *   block_turnaround     one grid of many empty 256-thread blocks: ns per block per resident slot
 *   launch_overhead, launch_overhead_grid  N back-to-back launches of an empty kernel (1 block
 *                        of 32 threads; 2 x SMs blocks of 128) between two events, / N: us
 *   syncthreads, syncthreads_256  __syncthreads in a loop, one block of 128 / 256 threads per
 *                        SM: cycles per barrier
 *   shfl_xor_latency     a dependent chain of __shfl_xor_sync (one warp): cycles per shuffle
 *   mix_w1, mix_w2, mix_w4  overlap of the tensor and the MUFU pipe: every warp alternates a
 *                        burst of X = 16 independent mma.sync and a burst of Y ex2.approx.ftz
 *                        (Y so that the two take about equal time, from the mma_sync_bf16 and
 *                        ex2_ftz_f32 rates of this run) plus Y/2 cvt to bf16x2, each burst fed by
 *                        the other (ex2 of the accumulators, the next mma's A operand from the
 *                        converted exponentials), at 1, 2, 4 warps per scheduler (4, 8, 16 warps,
 *                        one block per SM): value t_mix / (t_mma + t_ex2) -- 1.0 no overlap, 0.5
 *                        perfect overlap of equal bursts -- where t_mma and t_ex2 are the same
 *                        loop with the other burst left out (mma-only: the next A from the
 *                        accumulators scaled by 2^-24 and converted; ex2-only: the next ex2 input
 *                        from the converted exponentials), ns per burst pair in the note
 *   dep_o1, dep_o2, dep_o1_nobar  the overlap law for an attention-like loop whose softmax phase
 *                        depends on its GEMM phase, blocks of 128 threads: every warp, an
 *                        iteration, does 16 mma.sync (8 accumulators restarted from 0, x 2; A =
 *                        the last iteration's exponentials) -> the row max of the accumulators
 *                        (fmaxf over the thread's elements of each of its 2 rows, quad
 *                        __shfl_xor_sync 1, 2) -> Y ex2.approx.ftz (Y as mix_*) of acc - max + the
 *                        row sums (quad shuffles) + Y/2 cvt.rn.bf16x2 into the next A ->
 *                        __syncthreads.  t_G: the loop without the softmax phase (the next A
 *                        from the row max); t_S: without the mma (the accumulator elements from
 *                        the A fragments); both at 1 block/SM.  The law: an iteration costs G+S at
 *                        1 block/SM and max(G,S)+min(G,S)/o of SM time at o blocks/SM.
 *                        dep_o1: t_dep/(t_G+t_S) at 1 block/SM (law: 1).  dep_o2: at 2 blocks/SM
 *                        (exactly 2 x SMs blocks, forced by shared memory, checked to run as one
 *                        wave), the SM time a block-iteration (wall time an iteration / 2) over
 *                        t_G+t_S (law: (max+min/2)/(t_G+t_S), in the note).  dep_o1_nobar: dep_o1
 *                        with no barrier in any of the three loops.  ns an iteration in the notes
 *   cublas_bf16_gemm, cublas_sgemm  cuBLAS GEMMs 8192^3: bf16 (fp32 accumulation) and fp32 without
 *                        TF32 (the rate of PyTorch's math attention path): TFLOP/s; the rows
 *                        cublas_sgemm_qk_d64 and _pv_d64 are the math path's GEMM shapes
 *                        (diagnostics); clock_mhz empty (cuBLAS's kernels do not record it)
 * Method: every measurement is a warm-up (the calibration launches, then one full-length
 * launch), then 5 launches timed with CUDA events, each long enough to run >= 20 ms (25 ms
 * targeted); the row is the median of the 5.  clock_mhz is the effective SM clock of the same
 * launches: thread 0 of block 0 reads clock64() and %globaltimer at its start and its end, and
 * the median of (clock delta / ns delta) is printed (empty for the launch-overhead rows, whose
 * kernels do nothing).  Work is kept alive by dependent chains into values stored to global
 * memory under a run-time flag that is always 0.  Throughput kernels fill every SM: either one
 * block per SM (forced by a dynamic shared-memory request of more than half an SM's, checked
 * with the occupancy API), or as many blocks as the occupancy API allows (one full wave).
 * Units: TB/s, TFLOP/s, G op/s are 1e12 and 1e9 (decimal); MiB and GiB are binary.
 *
 * Build (kernels/kernels.mk, no GPU needed):
 *   make ubench    = nvcc -O3 -std=c++17 -lineinfo -Xcompiler -Wall,-Wextra,-Wno-unused-parameter
 *                    -Werror all-warnings -gencode arch=compute_90a,code=sm_90a
 *                    kernels/ubench_pipes.cu -lcublas -o build/gpu/ubench_pipes
 * Run (H100/H200; about 8 s in all on an H200, each test under 1.5 s):
 *   ./build/gpu/ubench_pipes [--csv FILE] [--only NAME,NAME] [--list]
 *   CSV on stdout (and in FILE): pipe,value,unit,clock_mhz,note; the device and progress on
 *   stderr.  --only takes test or row names (--list prints them); mix_* and dep_* need the
 *   mma_sync_bf16 and ex2_ftz_f32 rates and measure them silently when they were not selected.
 * Check the machine code: cuobjdump -sass build/gpu/ubench_pipes | grep -c HMMA (also HGMMA,
 * MUFU.EX2, LDSM, BAR.SYNC, SHFL.BFLY, F2FP.BF16).  ptxas merges instructions of equal inputs
 * whatever asm volatile says (k_dep gives each accumulator its own B fragment for that).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "wgmma.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "ubench_pipes needs the arch-specific sm_90a target (wgmma): -gencode arch=compute_90a,code=sm_90a"
#endif

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "ubench_pipes: CUDA error %s at %s:%d (%s): %s\n",               \
                    cudaGetErrorName(e_), __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

/* ---------------- device helpers ---------------- */

__host__ __device__ __forceinline__ uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
/* two bf16 of magnitude 2^-7 .. 2^-6 with random mantissas and signs */
__device__ __forceinline__ uint32_t bf16x2_pattern(uint32_t i)
{
    return 0x3c003c00u ^ (hash32(i) & 0x807f807fu);
}

/* clock64 and %globaltimer at the start and the end of thread 0 of block 0 */
struct ClkRec {
    unsigned long long c0, c1, t0, t1;
};
__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
struct ClkProbe {
    bool on;
    unsigned long long c0, t0;
    __device__ __forceinline__ explicit ClkProbe(ClkRec *r)
        : on(r != nullptr && blockIdx.x == 0 && threadIdx.x == 0), c0(0), t0(0)
    {
        if (on) {
            t0 = gtimer();
            c0 = (unsigned long long)clock64();
        }
    }
    __device__ __forceinline__ void stop(ClkRec *r)
    {
        if (on) {
            const unsigned long long c1 = (unsigned long long)clock64();
            const unsigned long long t1 = gtimer();
            r->c0 = c0;
            r->c1 = c1;
            r->t0 = t0;
            r->t1 = t1;
        }
    }
};

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* D (16x8 f32) += A (16x16 bf16, row) B (16x8 bf16, col) */
__device__ __forceinline__ void mma_bf16(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <int FTZ> __device__ __forceinline__ float ex2(float x);
template <> __device__ __forceinline__ float ex2<1>(float x)
{
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
template <> __device__ __forceinline__ float ex2<0>(float x)
{
    float y;
    asm volatile("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/* bf16x2 {hi, lo} = round(hi), round(lo) */
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi)
{
    uint32_t r;
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ void ldsm_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void lds128(uint32_t r[4], uint32_t addr)
{
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ uint4 ldg_cg(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

/* wgmma: fences, commit/wait, wg_desc and the SS, RS and MN-major wrappers of the kernels
 * (kernels/wgmma.cuh); the m64n128/m64n256 K-major forms below take the swizzle mode. */
/* Shared-memory matrix descriptor: bits 0-13 start address >> 4, 16-29 leading-dimension byte
 * offset >> 4, 32-45 stride-dimension byte offset >> 4, 49-51 base offset (0: the swizzle
 * atoms are 1024-byte aligned), 62-63 swizzle mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte). */
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr, uint32_t lbo, uint32_t sbo,
                                              uint32_t swizzle)
{
    return (uint64_t)((saddr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFFu) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFFu) << 32) | ((uint64_t)(swizzle & 3u) << 62);
}
/* D (m64 x N f32, N/2 registers a thread) += A (m64 x K, smem) B (K x N, smem), both K-major;
 * FP8 = 0: bf16, K = 16; FP8 = 1: e4m3, K = 32.  Generated (operand lists); scale-d = 1. */
template <int N, int FP8> __device__ __forceinline__ void wg_mma(float *d, uint64_t da, uint64_t db);
template <> __device__ __forceinline__ void wg_mma<128, 0>(float *d, uint64_t da, uint64_t db)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(da), "l"(db), "r"(1));
}
template <> __device__ __forceinline__ void wg_mma<256, 0>(float *d, uint64_t da, uint64_t db)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(da), "l"(db), "r"(1));
}
template <> __device__ __forceinline__ void wg_mma<256, 1>(float *d, uint64_t da, uint64_t db)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(da), "l"(db), "r"(1));
}

/* The wgmma benchmarks' operand tiles: the dynamic shared memory from its first 1024-byte boundary
 * (the 128-byte swizzle's atoms), `bytes` of it filled with values finite in both types (e4m3 bytes
 * with the top exponent bit clear, bf16 small) and made visible to the tensor cores' async proxy;
 * every thread of the block calls it.  Returns the tiles' shared-memory address. */
__device__ __forceinline__ uint32_t wg_operands(unsigned char *dsmem, uint32_t bytes)
{
    const uint32_t s0 = smem_u32(dsmem);
    const uint32_t base = (s0 + 1023u) & ~1023u;
    uint32_t *w = reinterpret_cast<uint32_t *>(dsmem + (base - s0));
    for (uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) w[i] = hash32(i) & 0xb7b7b7b7u;
    fence_proxy_async(); /* generic-proxy stores visible to the tensor cores' async proxy */
    __syncthreads();
    return base;
}

/* ---------------- kernels ---------------- */

/* 1. mma.sync throughput: NACC independent accumulators, 4 * NACC mma a warp an iteration */
template <int NACC>
__global__ void __launch_bounds__(512) k_mma_tput(int iters, int flag, float *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = bf16x2_pattern(t * 8 + i);
#pragma unroll
    for (int i = 0; i < 2; i++) b[i] = bf16x2_pattern(t * 8 + 4 + i);
    float c[NACC][4];
#pragma unroll
    for (int i = 0; i < NACC; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) c[i][r] = 0.f;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int i = 0; i < NACC; i++) mma_bf16(c[i], a, b);
    }
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < NACC; i++) s += c[i][0] + c[i][1] + c[i][2] + c[i][3];
    if (flag) sink[t] = s;
}

/* 2. mma.sync latency: one chain, 16 mma an iteration */
__global__ void k_mma_lat(int iters, int flag, float *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    const uint32_t t = threadIdx.x;
    uint32_t a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = bf16x2_pattern(t * 8 + i);
#pragma unroll
    for (int i = 0; i < 2; i++) b[i] = bf16x2_pattern(t * 8 + 4 + i);
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 16; u++) mma_bf16(c, a, b);
    }
    clk.stop(rec);
    if (flag) sink[t] = c[0] + c[1] + c[2] + c[3];
}

/* 3. wgmma: A (64 rows) and B (N rows) of 128 bytes each (64 bf16 or 128 e4m3 of K) in the
 * K-major 128-byte-swizzle layout (8-row groups 1024 bytes apart: SBO 1024; LBO unused by
 * this layout, 16 as in kernels/wgmma.cuh), the k-steps 32 bytes apart inside the rows; every
 * warpgroup of the block reads the same tiles.  4 wgmma a commit group, wait_group 1 (one
 * group in flight while the next is issued, CUTLASS's main-loop pattern). */
template <int N, int FP8>
__global__ void __launch_bounds__(256, 1) k_wgmma(int iters, int flag, float *sink, ClkRec *rec)
{
    extern __shared__ unsigned char dsmem[];
    ClkProbe clk(rec);
    constexpr int BYTES = (64 + N) * 128;
    const uint32_t base = wg_operands(dsmem, BYTES);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0.f;
    const uint32_t a_addr = base, b_addr = base + 64 * 128;
    for (int it = 0; it < iters; it++) {
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wg_mma<N, FP8>(d, make_desc(a_addr + kk * 32, 16, 1024, 1),
                           make_desc(b_addr + kk * 32, 16, 1024, 1));
        wg_commit();
        wg_wait<1>();
    }
    wg_wait<0>();
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) s += d[i];
    if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* 3b. wgmma duty cycle: the SM clock as a function of the tensor pipe's load (the time model runs
 * a wgmma kernel's pipes at the clock the H200 holds under full wgmma load, 1620 MHz; the
 * attention kernels keep the tensor pipe 45-75 % busy, and the clock under a lighter load is what
 * this measures).  One warpgroup a block, one block an SM: an iteration issues 4 wgmma
 * m64n128k16 bf16 (one commit group), then Y ex2.approx.ftz a thread on 8 independent register
 * chains (no dependence on the wgmma), then waits for the group.  Y = 0 is k_wgmma's load;
 * growing Y lowers the tensor pipe's share of the iteration. */
template <int Y>
__global__ void __launch_bounds__(128, 1) k_wgmma_duty(int iters, int flag, float *sink, ClkRec *rec)
{
    extern __shared__ unsigned char dsmem[];
    ClkProbe clk(rec);
    constexpr int N = 128, BYTES = (64 + N) * 128;
    const uint32_t base = wg_operands(dsmem, BYTES);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0.f;
    float e[8];
#pragma unroll
    for (int i = 0; i < 8; i++) e[i] = 0.5f + 0.01f * (float)((threadIdx.x + i) & 31);
    const uint32_t a_addr = base, b_addr = base + 64 * 128;
    for (int it = 0; it < iters; it++) {
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wg_mma<N, 0>(d, make_desc(a_addr + kk * 32, 16, 1024, 1), make_desc(b_addr + kk * 32, 16, 1024, 1));
        wg_commit();
#pragma unroll
        for (int y = 0; y < Y / 8; y++)
#pragma unroll
            for (int i = 0; i < 8; i++) e[i] = ex2<1>(-e[i]); /* stays in [0.5, 1) */
        wg_wait<0>();
    }
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) s += d[i];
#pragma unroll
    for (int i = 0; i < 8; i++) s += e[i];
    if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* 3c. wgmma latency: one warpgroup on one SM issues KS wgmma m64n128k16 bf16 (one accumulator, one
 * commit group) and waits for the group (wait_group 0) before the next: the time from issue to a
 * result a dependent step can use -- what a kernel pays at every wgmma_wait<0> on a GEMM it just
 * issued (S before its softmax, dP before dS, dQ before its store). */
template <int KS>
__global__ void __launch_bounds__(128, 1) k_wgmma_lat(int iters, int flag, float *sink, ClkRec *rec)
{
    extern __shared__ unsigned char dsmem[];
    ClkProbe clk(rec);
    constexpr int N = 128, BYTES = (64 + N) * 128;
    const uint32_t base = wg_operands(dsmem, BYTES);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0.f;
    const uint32_t a_addr = base, b_addr = base + 64 * 128;
    for (int it = 0; it < iters; it++) {
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < KS; kk++)
            wg_mma<N, 0>(d, make_desc(a_addr + (kk & 3) * 32, 16, 1024, 1), make_desc(b_addr + (kk & 3) * 32, 16, 1024, 1));
        wg_commit();
        wg_wait<0>();
    }
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) s += d[i];
    if (flag) sink[threadIdx.x] = s;
}

/* 3d. wgmma by instruction form: the forms the attention kernels issue (kernels/attn_v5_fa3.cu,
 * attn_v5_bwd.cu) -- FORM 0 SS, A and B K-major (wg_mma_ss: S = Q K^T, S^T = K Q^T); FORM 1 RS,
 * A from registers, B MN-major (wg_mma_rs_tb: O += P V, dV += P^T dO, dK += dS^T Q); FORM 2 SS
 * with A and B MN-major (wg_mma_ss_tt: the backward's dQ = dS K) -- at m64nNk16 bf16, in
 * k_wgmma's loop (4 wgmma a commit group, K = 64, wait_group 1), 1 or 2 warpgroups an SM reading
 * the same tiles.  MN-major operands: a 64-column slab of K = 64 rows x 128 bytes (8 KiB; N = 128:
 * two slabs, LBO 8 KiB), the k16 steps 2 KiB apart, SBO 1024 (8 rows of 128 bytes). */
template <int N, int FORM>
__global__ void __launch_bounds__(256, 1) k_wgmma_form(int iters, int flag, float *sink, ClkRec *rec)
{
    extern __shared__ unsigned char dsmem[];
    ClkProbe clk(rec);
    constexpr int BYTES = (64 + N) * 128;
    const uint32_t base = wg_operands(dsmem, BYTES);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0.f;
    uint32_t a[4];
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = bf16x2_pattern(threadIdx.x * 4 + i);
    const uint32_t a_addr = base, b_addr = base + 64 * 128;
    for (int it = 0; it < iters; it++) {
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 4; kk++) {
            if constexpr (FORM == 0)
                wg_mma_ss<N, __nv_bfloat16>(d, wg_desc(a_addr + kk * 32, 16, 1024), wg_desc(b_addr + kk * 32, 16, 1024), 1);
            else if constexpr (FORM == 1)
                wg_mma_rs_tb<N, __nv_bfloat16>(d, a, wg_desc(b_addr + kk * 2048, 8192, 1024));
            else
                wg_mma_ss_tt<N, __nv_bfloat16>(d, wg_desc(a_addr + kk * 2048, 8192, 1024),
                                               wg_desc(b_addr + kk * 2048, 8192, 1024), 1);
        }
        wg_commit();
        wg_wait<1>();
    }
    wg_wait<0>();
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) s += d[i];
    if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* 3e. the v5 backward's GEMM step without its softmax (kernels/attn_v5_bwd.cu, the consumer loop):
 * two consumer warpgroups an SM, each owning 64 of the B_c = 128 keys, a step =
 *   S^T = K_w Q_i^T and dP^T = V_w dO_i^T   (SS, m64 n B_r k d, one commit group each)
 *   [wait_group 1, wait_group 0]            (the kernel's softmax and dS^T read them here)
 *   dV_w += P^T dO_i, dK_w += dS^T Q_i     (RS, m64 n d k B_r, B MN-major; one commit group)
 *   [bar.sync between the two warpgroups]  (both halves of dS^T are in shared memory)
 *   dQ_i += dS K_j                          (SS MN-major, m64 n64 k B_c = 128; one commit group)
 *   [wait_group 0]                          (dQ_i to its shared tile, the stage released)
 * d = 128: B_r 64; d = 64: B_r 128 (the kernel's tiles).  SYNC 1: the waits and the barrier as the
 * kernel has them; SYNC 0: none inside the step (wait_group 1 at its end, a group left in flight):
 * the same instructions with their latencies hidden.  The RS A fragments are fixed registers (the
 * kernel converts P^T, dS^T into them).  The difference of the two is what the step's waits and
 * barrier cost on the tensor pipe. */
template <int D, int SYNC>
__global__ void __launch_bounds__(256, 1) k_wgmma_bwdstep(int iters, int flag, float *sink, ClkRec *rec)
{
    constexpr int BR = D == 128 ? 64 : 128, BC = 128;
    constexpr uint32_t SLAB_KV = BC * 128, SLAB_Q = BR * 128;
    extern __shared__ unsigned char dsmem[];
    ClkProbe clk(rec);
    /* K, V (B_c x d each), Q, dO (B_r x d each), dS^T (B_c x B_r) */
    constexpr uint32_t K_OFF = 0, V_OFF = BC * D * 2, Q_OFF = 2 * BC * D * 2, DO_OFF = Q_OFF + BR * D * 2,
                       DS_OFF = DO_OFF + BR * D * 2, BYTES = DS_OFF + BC * BR * 2;
    const uint32_t base = wg_operands(dsmem, BYTES);
    const int w = threadIdx.x / 128;
    float s[BR / 2], dp[BR / 2], dv[D / 2], dk[D / 2], dq[32];
#pragma unroll
    for (int i = 0; i < BR / 2; i++) s[i] = dp[i] = 0.f;
#pragma unroll
    for (int i = 0; i < D / 2; i++) dv[i] = dk[i] = 0.f;
#pragma unroll
    for (int i = 0; i < 32; i++) dq[i] = 0.f;
    uint32_t a[4];
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = bf16x2_pattern(threadIdx.x * 4 + i);
    const uint32_t k_addr = base + K_OFF, v_addr = base + V_OFF, q_addr = base + Q_OFF, do_addr = base + DO_OFF,
                   ds_addr = base + DS_OFF;
    for (int it = 0; it < iters; it++) {
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
            wg_mma_ss<BR, __nv_bfloat16>(s, wg_desc(k_addr + (kk >> 2) * SLAB_KV + w * 64 * 128 + (kk & 3) * 32, 16, 1024),
                                         wg_desc(q_addr + (kk >> 2) * SLAB_Q + (kk & 3) * 32, 16, 1024), kk > 0);
        wg_commit();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
            wg_mma_ss<BR, __nv_bfloat16>(dp, wg_desc(v_addr + (kk >> 2) * SLAB_KV + w * 64 * 128 + (kk & 3) * 32, 16, 1024),
                                         wg_desc(do_addr + (kk >> 2) * SLAB_Q + (kk & 3) * 32, 16, 1024), kk > 0);
        wg_commit();
        if (SYNC) {
            wg_wait<1>();
            wg_wait<0>();
        }
        wg_fence();
#pragma unroll
        for (int kc = 0; kc < BR / 16; kc++)
            wg_mma_rs_tb<D, __nv_bfloat16>(dv, a, wg_desc(do_addr + kc * 16 * 128, SLAB_Q, 1024));
#pragma unroll
        for (int kc = 0; kc < BR / 16; kc++)
            wg_mma_rs_tb<D, __nv_bfloat16>(dk, a, wg_desc(q_addr + kc * 16 * 128, SLAB_Q, 1024));
        wg_commit();
        if (SYNC) asm volatile("bar.sync 1, 256;\n" ::: "memory");
        const uint32_t a0 = ds_addr + (BR == 128 ? w * SLAB_KV : 0), b0 = k_addr + (D == 128 ? w * SLAB_KV : 0);
        wg_fence();
#pragma unroll
        for (int kc = 0; kc < BC / 16; kc++)
            wg_mma_ss_tt<64, __nv_bfloat16>(dq, wg_desc(a0 + kc * 16 * 128, SLAB_KV, 1024),
                                            wg_desc(b0 + kc * 16 * 128, SLAB_KV, 1024), kc > 0);
        wg_commit();
        if (SYNC)
            wg_wait<0>();
        else
            wg_wait<1>();
    }
    wg_wait<0>();
    clk.stop(rec);
    float t = 0.f;
#pragma unroll
    for (int i = 0; i < BR / 2; i++) t += s[i] + dp[i];
#pragma unroll
    for (int i = 0; i < D / 2; i++) t += dv[i] + dk[i];
#pragma unroll
    for (int i = 0; i < 32; i++) t += dq[i];
    if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = t;
}

/* 4. ex2: 8 independent chains x <- 2^-x (stays in [0.5, 1)), 128 ex2 a thread an iteration */
template <int FTZ>
__global__ void __launch_bounds__(256) k_ex2(int iters, int flag, float *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    float x[8];
#pragma unroll
    for (int i = 0; i < 8; i++) x[i] = 0.5f + 0.01f * (float)i + 1e-7f * (float)(t & 1023);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 16; u++)
#pragma unroll
            for (int i = 0; i < 8; i++) x[i] = ex2<FTZ>(-x[i]);
    }
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 8; i++) s += x[i];
    if (flag) sink[t] = s;
}

/* 5. fp32 pipe: OP 0 x = x * p + q (FFMA), 1 x = x + q (FADD), 2 x = max(-x, q) (FMNMX);
 * 8 independent chains, 256 operations a thread an iteration */
/* 5b. packed half-precision exponentials and conversions (FP8 softmax candidates), 8 independent
 * 32-bit chains a thread, 16 steps an iteration: MODE 0 ex2.approx.f16x2 (two exponentials an
 * instruction), 1 ex2.approx.ftz.bf16x2, 2 cvt.rn.f16x2.f32 (two fp32 into one f16x2), 3
 * cvt.rn.satfinite.e4m3x2.f16x2 (an f16x2 into two e4m3, widened back by a prmt). The chains
 * flip the sign bits with the ex2 (x -> 2^-x keeps the values in range): ex2 of x ^ 0x80008000. */
template <int MODE>
__global__ void __launch_bounds__(256) k_pack(int iters, int flag, float *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t x[8];
#pragma unroll
    for (int i = 0; i < 8; i++) x[i] = 0x38003800u + (uint32_t)i + (t & 7); /* f16 0.5-ish pairs */
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 16; u++)
#pragma unroll
            for (int i = 0; i < 8; i++) {
                if (MODE == 0) asm volatile("ex2.approx.f16x2 %0, %1;\n" : "=r"(x[i]) : "r"(x[i] ^ 0x80008000u));
                else if (MODE == 1) asm volatile("ex2.approx.ftz.bf16x2 %0, %1;\n" : "=r"(x[i]) : "r"(x[i] ^ 0x80008000u));
                else if (MODE == 2) {
                    const float f = __uint_as_float(x[i]);
                    asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(x[i]) : "f"(f), "f"(f));
                } else if (MODE == 3) {
                    uint16_t y;
                    asm volatile("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;\n" : "=h"(y) : "r"(x[i]));
                    x[i] = __byte_perm((uint32_t)y, x[i], 0x5410);
                } else if (MODE == 4 || (MODE == 5 && (i & 1))) {
                    /* the FP8 kernel's P conversion: two fp32 into two e4m3 */
                    uint16_t y;
                    const float f = __uint_as_float(x[i]);
                    asm volatile("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(y) : "f"(f), "f"(f));
                    x[i] = __byte_perm((uint32_t)y, x[i], 0x5410);
                } else { /* MODE 5, even chains: ex2.approx.ftz.f32 beside the odd chains' conversions */
                    float f;
                    asm volatile("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(f) : "f"(-__uint_as_float(x[i])));
                    x[i] = __float_as_uint(f);
                }
            }
    }
    clk.stop(rec);
    uint32_t s = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) s += x[i];
    if (flag) sink[t] = (float)s;
}

template <int OP>
__global__ void __launch_bounds__(256) k_falu(int iters, float p, float q, int flag, float *sink,
                                              ClkRec *rec)
{
    ClkProbe clk(rec);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    float x[8];
#pragma unroll
    for (int i = 0; i < 8; i++) x[i] = 0.5f + 0.01f * (float)i + 1e-7f * (float)(t & 1023);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 32; u++)
#pragma unroll
            for (int i = 0; i < 8; i++) {
                if (OP == 0) x[i] = fmaf(x[i], p, q);
                else if (OP == 1) x[i] = x[i] + q;
                else x[i] = fmaxf(-x[i], q);
            }
    }
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 8; i++) s += x[i];
    if (flag) sink[t] = s;
}

/* 6. shared memory: lane l reads the 16 bytes at l * 16 of a 512-byte row (ldmatrix: the 8 row
 * addresses of each 8x8 matrix are 128 contiguous bytes, all 32 banks once; ld.shared.v4: four
 * 128-byte wavefronts), 8 rows an iteration, alternating between two 8 KiB halves.  The half is
 * (it * mul) & 8192 with mul = 8192 given at run time: with a compile-time (it & 1) ptxas proved
 * the loads of iterations it and it + 2 equal and kept one of them (seen in the SASS). */
template <int KIND>
__global__ void __launch_bounds__(256) k_smem(int iters, uint32_t mul, int flag, uint32_t *sink,
                                              ClkRec *rec)
{
    __shared__ __align__(128) uint32_t buf[4096]; /* 16 KiB */
    ClkProbe clk(rec);
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = hash32(i + blockIdx.x * 4096);
    __syncthreads();
    const uint32_t s0 = smem_u32(buf) + (threadIdx.x & 31) * 16;
    uint32_t acc = 0;
    for (int it = 0; it < iters; it++) {
        const uint32_t s = s0 + (((uint32_t)it * mul) & 8192u);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            uint32_t r[4];
            if (KIND == 0) ldsm_x4(r, s + k * 512);
            else lds128(r, s + k * 512);
            acc ^= r[0] ^ r[1] ^ r[2] ^ r[3];
        }
    }
    clk.stop(rec);
    if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* 7, 8. streaming: grid-stride, coalesced 16-byte accesses, 4 in flight a thread */
__global__ void __launch_bounds__(256) k_read(const uint4 *__restrict__ p, size_t n, int passes,
                                              int flag, uint32_t *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t acc = 0;
    for (int ps = 0; ps < passes; ps++) {
        size_t j = i0;
        for (; j + 3 * T < n; j += 4 * T) {
            const uint4 v0 = ldg_cg(p + j), v1 = ldg_cg(p + j + T);
            const uint4 v2 = ldg_cg(p + j + 2 * T), v3 = ldg_cg(p + j + 3 * T);
            acc += (v0.x ^ v0.y ^ v0.z ^ v0.w) + (v1.x ^ v1.y ^ v1.z ^ v1.w) +
                   (v2.x ^ v2.y ^ v2.z ^ v2.w) + (v3.x ^ v3.y ^ v3.z ^ v3.w);
        }
        for (; j < n; j += T) {
            const uint4 v = ldg_cg(p + j);
            acc += v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    clk.stop(rec);
    if (flag) sink[i0] = acc;
}
__global__ void __launch_bounds__(256) k_write(uint4 *p, size_t n, int passes, ClkRec *rec)
{
    ClkProbe clk(rec);
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int ps = 0; ps < passes; ps++) {
        const uint32_t v = (uint32_t)ps * 0x9e3779b9u;
        for (size_t j = i0; j < n; j += T) p[j] = make_uint4((uint32_t)j, v, (uint32_t)j ^ v, v + 1);
    }
    clk.stop(rec);
}
__global__ void __launch_bounds__(256) k_copy(const uint4 *src, uint4 *dst, size_t n, int passes,
                                              ClkRec *rec)
{
    ClkProbe clk(rec);
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int ps = 0; ps < passes; ps++) {
        size_t j = i0;
        for (; j + 3 * T < n; j += 4 * T) {
            uint4 v0 = ldg_cg(src + j), v1 = ldg_cg(src + j + T);
            uint4 v2 = ldg_cg(src + j + 2 * T), v3 = ldg_cg(src + j + 3 * T);
            v0.x ^= ps;
            v1.x ^= ps;
            v2.x ^= ps;
            v3.x ^= ps;
            dst[j] = v0;
            dst[j + T] = v1;
            dst[j + 2 * T] = v2;
            dst[j + 3 * T] = v3;
        }
        for (; j < n; j += T) {
            uint4 v = ldg_cg(src + j);
            v.x ^= ps;
            dst[j] = v;
        }
    }
    clk.stop(rec);
}

/* 9. pointer chase: *pos is the current node (kept between launches, so a later launch goes
 * on through nodes not yet visited); 8 dependent loads a group */
__global__ void k_chase(unsigned long long *pos, int groups, ClkRec *rec)
{
    ClkProbe clk(rec);
    unsigned long long p = *pos;
    for (int g = 0; g < groups; g++) {
#pragma unroll
        for (int u = 0; u < 8; u++) asm volatile("ld.global.cg.u64 %0, [%0];\n" : "+l"(p) : : "memory");
    }
    clk.stop(rec);
    *pos = p;
}
__global__ void k_scatter(const unsigned long long *vals, unsigned long long *region, size_t n,
                          size_t stride_words)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        region[i * stride_words] = vals[i];
}

/* 9b. dependent streams: a block of 256 threads walks its own region of 2-byte elements, lane t
 * of the block reading element t + 256 k at step k (the block's 8 warps cover 512 contiguous
 * bytes a step, a warp 64 B), one load a warp outstanding at a time: the next index depends on
 * the value loaded (v & zero, zero = 0 at run time), as a loop that consumes each load before
 * the next issues.  EXP: the value goes through the exponential chain of a softmax's second
 * pass (to fp32, subtract, ex2, add) before the next load.  The region (elems a block, a
 * multiple of 256) wraps; its size picks the level it is served from. */
template <bool EXP, int LD = 0>
__global__ void __launch_bounds__(256) k_stream_dep(const uint16_t *base, long long elems, int steps,
                                                     uint32_t zero, float *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    const uint16_t *p = base + (size_t)blockIdx.x * (size_t)elems;
    long long j = threadIdx.x;
    float acc = 0.f;
    uint32_t iacc = 0;
#pragma unroll 1
    for (int s = 0; s < steps; s++) {
        uint16_t v;
        if (LD == 0) asm volatile("ld.global.u16 %0, [%1];\n" : "=h"(v) : "l"(p + j) : "memory");
        else if (LD == 1) v = p[j]; /* as kernels/attn_v0_naive.cu's loops load */
        else if (LD == 2) asm volatile("ld.global.ca.u16 %0, [%1];\n" : "=h"(v) : "l"(p + j) : "memory");
        else v = __ldg(p + j);
        if (EXP) {
            const float x = __uint_as_float((uint32_t)v << 16);
            float e;
            asm volatile("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(e) : "f"(x - acc * 1e-30f));
            acc += e;
            j += 256 + (__float_as_uint(acc) & zero);
        } else {
            iacc = max(iacc, (uint32_t)v);
            j += 256 + (iacc & zero);
        }
        if (j >= elems) j -= elems;
    }
    clk.stop(rec);
    if (zero) sink[blockIdx.x * 256 + threadIdx.x] = acc + (float)iacc;
}

/* 9c. shared-memory latency: one warp, dependent ld.shared.u32 (each loaded value the next
 * index), 16 a loop iteration */
__global__ void k_smem_lat(int iters, uint32_t *sink, ClkRec *rec)
{
    __shared__ uint32_t buf[1024];
    for (int i = threadIdx.x; i < 1024; i += 32) buf[i] = (uint32_t)((i + 33) & 1023);
    __syncwarp();
    ClkProbe clk(rec);
    uint32_t k = threadIdx.x;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 16; u++) asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(k) : "r"(smem_u32(&buf[k])) : "memory");
    }
    clk.stop(rec);
    if (k == 0xffffffffu) sink[threadIdx.x] = k;
}

/* 10. launches */
__global__ void k_empty() {}

/* 11. barriers: 16 a loop iteration */
__global__ void __launch_bounds__(256) k_bar(int iters, ClkRec *rec)
{
    ClkProbe clk(rec);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 16; u++) __syncthreads();
    }
    clk.stop(rec);
}

/* 12. shuffles: the masks 1, 2, 4, 8, 16 in turn, 20 a loop iteration, each on the last */
__global__ void k_shfl(int iters, int flag, uint32_t *sink, ClkRec *rec)
{
    ClkProbe clk(rec);
    uint32_t v = hash32(threadIdx.x);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 4; u++) {
            v = __shfl_xor_sync(0xffffffffu, v, 1);
            v = __shfl_xor_sync(0xffffffffu, v, 2);
            v = __shfl_xor_sync(0xffffffffu, v, 4);
            v = __shfl_xor_sync(0xffffffffu, v, 8);
            v = __shfl_xor_sync(0xffffffffu, v, 16);
        }
    }
    clk.stop(rec);
    if (flag) sink[threadIdx.x] = v;
}

/* 13. mma / ex2 overlap.  Per warp and loop iteration ("burst pair"):
 *   MODE & 1: X = 16 independent mma.sync, accumulator i with A fragment a[i % NA];
 *   MODE 3:   Y ex2 of -|accumulator element j| (j < Y), packed by Y/2 cvt.rn.bf16x2 into the NA
 *             A fragments of the next iteration (8 values a fragment, slot s holds e[s % Y]);
 *   MODE 2:   the same Y ex2 and cvt, the ex2 inputs unpacked from the A fragments (the chain
 *             ex2 -> cvt -> ex2 instead of ex2 -> cvt -> mma -> ex2);
 *   MODE 1:   the same cvt, of the accumulators times 2^-24 (so that the values stay finite),
 *             no ex2 (the chain mma -> cvt -> mma). */
__device__ __forceinline__ float unpack_bf16(uint32_t w, int hi)
{
    return __uint_as_float(hi ? (w & 0xffff0000u) : (w << 16));
}
template <int Y, int MODE>
__global__ void __launch_bounds__(512, 1) k_mix(int iters, int flag, float *sink, ClkRec *rec)
{
    constexpr int X = 16, NA = (Y + 7) / 8;
    static_assert(Y % 4 == 0 && Y >= 4 && Y <= 4 * X, "Y: a multiple of 4 in [4, 4 X]");
    ClkProbe clk(rec);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    float c[X][4];
    uint32_t a[NA][4], b[2];
#pragma unroll
    for (int i = 0; i < X; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) c[i][r] = 0.25f + 0.001f * (float)((t + 4 * i + r) & 63);
#pragma unroll
    for (int q = 0; q < NA; q++)
#pragma unroll
        for (int r = 0; r < 4; r++) a[q][r] = 0x3f003f00u ^ (hash32(t * 64 + 4 * q + r) & 0x007f007fu);
    b[0] = bf16x2_pattern(2 * t);
    b[1] = bf16x2_pattern(2 * t + 1);
    for (int it = 0; it < iters; it++) {
        if constexpr ((MODE & 1) != 0) {
#pragma unroll
            for (int i = 0; i < X; i++) mma_bf16(c[i], a[i % NA], b);
        }
        if constexpr (MODE == 1) {
#pragma unroll
            for (int q = 0; q < NA; q++)
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    const int s0 = (8 * q + 2 * r) % Y, s1 = (8 * q + 2 * r + 1) % Y;
                    a[q][r] = pack_bf16x2(c[s0 / 4][s0 % 4] * 0x1p-24f, c[s1 / 4][s1 % 4] * 0x1p-24f);
                }
        } else {
            float e[Y];
#pragma unroll
            for (int j = 0; j < Y; j++) {
                const float x = (MODE == 3) ? c[j / 4][j % 4] : unpack_bf16(a[j / 8][(j % 8) / 2], j % 2);
                e[j] = ex2<1>(-fabsf(x));
            }
#pragma unroll
            for (int q = 0; q < NA; q++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    a[q][r] = pack_bf16x2(e[(8 * q + 2 * r) % Y], e[(8 * q + 2 * r + 1) % Y]);
        }
    }
    clk.stop(rec);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < X; i++) s += c[i][0] + c[i][1] + c[i][2] + c[i][3];
#pragma unroll
    for (int q = 0; q < NA; q++)
#pragma unroll
        for (int r = 0; r < 4; r++) s += __uint_as_float(a[q][r] & 0x3f7f7f7fu);
    if (flag) sink[t] = s;
}

/* 14. dependent GEMM -> softmax, attention-like, 128 threads (4 warps) a block.  Per warp and
 * loop iteration:
 *   MODE & 1: the GEMM phase: c = 0, then X = 16 mma.sync into 8 independent accumulators (two
 *             passes; pass p, accumulator i: A fragment a[(8 p + i) % NA], so A is the previous
 *             iteration's softmax result, and B fragment b[i]: one for each accumulator, since
 *             ptxas merges mma.sync of equal inputs, asm volatile or not);
 *   always:   the reduction: the two row maxima of the thread's accumulator elements (elements
 *             0, 1 of every accumulator: row lane/4; 2, 3: row lane/4 + 8) by 15 sequential
 *             fmaxf each (as FlashAttention's thread reduction), then each row's quad reduction
 *             (__shfl_xor_sync 1 and 2, fmaxf after each: 4 shuffles);
 *   MODE & 2: the softmax phase: Y ex2.approx.ftz of c_j - max_row(j) (c_j = c[(j/4) % 8][j % 4],
 *             for j >= 32 of c_j - (max + 0.5)), the two row sums (sequential adds, then
 *             __shfl_xor_sync 1 and 2 and an add after each) added to two running sums, and Y/2
 *             cvt.rn.bf16x2 packing the exponentials into the NA A fragments of the next
 *             iteration (slot s holds e[s % Y], as k_mix);
 *   MODE 1:   the next A = A ^ ((bits(max0) ^ bits(max1)) & 0x00010001): the lowest mantissa bit
 *             of each bf16, one LOP3 a register (the chain mma -> max -> mma);
 *   MODE 2:   no mma: accumulator element j = 4 i + r (j < Y) is bf16 slot j of the A fragments
 *             unpacked (one shift or and, as k_mix's MODE 2: the Y exponentials of the last
 *             iteration, all different, so ptxas cannot merge the ex2), the others (j >= Y,
 *             inputs of the row max only) the bits of a[i % NA][r] read as f32 (no instruction);
 *             the chain ex2 -> cvt -> max -> ex2;
 *   MODE 0:   the reduction alone, its inputs as MODE 2 and the next A as MODE 1;
 *   BAR:      __syncthreads() at the end of the iteration.  ptxas moves register-only work
 *             across a barrier: in the sm_90a code of CUDA 13.0 the BAR.SYNC of the MODE 3 and 1
 *             loops sits after the first HMMA of the iteration, in MODE 2 and 0 after the first
 *             few fmaxf (still one barrier an iteration, between two iterations' phases).
 * span (optional): thread 0 of each block stores %globaltimer before and after its loop, to
 * check that all blocks of the grid were resident at once.
 * Values stay finite and bounded: A holds bf16 in [0.5, 1], B +-2^-7..2^-6 and the accumulators
 * restart from 0 (32 products), so |c| <= 0.5 and the exponentials lie in [0.35, 1]. */
template <int Y, int MODE, int BAR>
__global__ void __launch_bounds__(128, 1) k_dep(int iters, int flag, float *sink, ClkRec *rec,
                                                unsigned long long *span)
{
    constexpr int X = 16, NACC = 8, NA = (Y + 7) / 8;
    static_assert(Y % 4 == 0 && Y >= 4 && Y <= 64, "Y: a multiple of 4 in [4, 64]");
    ClkProbe clk(rec);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    float c[NACC][4];
    uint32_t a[NA][4], b[NACC][2];
#pragma unroll
    for (int i = 0; i < NACC; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) c[i][r] = 0.f;
#pragma unroll
    for (int q = 0; q < NA; q++)
#pragma unroll
        for (int r = 0; r < 4; r++) a[q][r] = 0x3f003f00u ^ (hash32(t * 64 + 4 * q + r) & 0x007f007fu);
#pragma unroll
    for (int i = 0; i < NACC; i++) {
        b[i][0] = bf16x2_pattern(16 * t + 2 * i);
        b[i][1] = bf16x2_pattern(16 * t + 2 * i + 1);
    }
    float sum0 = 0.f, sum1 = 0.f;
    if (span != nullptr && threadIdx.x == 0) span[2 * blockIdx.x] = gtimer();
    for (int it = 0; it < iters; it++) {
        if constexpr ((MODE & 1) != 0) {
#pragma unroll
            for (int i = 0; i < NACC; i++)
#pragma unroll
                for (int r = 0; r < 4; r++) c[i][r] = 0.f;
#pragma unroll
            for (int p = 0; p < X / NACC; p++)
#pragma unroll
                for (int i = 0; i < NACC; i++) mma_bf16(c[i], a[(NACC * p + i) % NA], b[i]);
        } else {
#pragma unroll
            for (int i = 0; i < NACC; i++)
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    const int j = 4 * i + r;
                    c[i][r] = j < Y ? unpack_bf16(a[j / 8][(j % 8) / 2], j % 2)
                                    : __uint_as_float(a[i % NA][r]);
                }
        }
        float m0 = c[0][0], m1 = c[0][2];
#pragma unroll
        for (int i = 0; i < NACC; i++) {
            if (i > 0) {
                m0 = fmaxf(m0, c[i][0]);
                m1 = fmaxf(m1, c[i][2]);
            }
            m0 = fmaxf(m0, c[i][1]);
            m1 = fmaxf(m1, c[i][3]);
        }
        m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, 1));
        m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, 1));
        m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, 2));
        m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, 2));
        if constexpr ((MODE & 2) != 0) {
            const float m0h = m0 + 0.5f, m1h = m1 + 0.5f;
            float e[Y];
#pragma unroll
            for (int j = 0; j < Y; j++) {
                const bool row0 = (j % 4) < 2;
                const float m = j < 32 ? (row0 ? m0 : m1) : (row0 ? m0h : m1h);
                e[j] = ex2<1>(c[(j / 4) % NACC][j % 4] - m);
            }
            float l0 = 0.f, l1 = 0.f;
#pragma unroll
            for (int j = 0; j < Y; j++) {
                if ((j % 4) < 2) l0 += e[j];
                else l1 += e[j];
            }
            l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
            l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
            l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
            l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
            sum0 += l0;
            sum1 += l1;
#pragma unroll
            for (int q = 0; q < NA; q++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    a[q][r] = pack_bf16x2(e[(8 * q + 2 * r) % Y], e[(8 * q + 2 * r + 1) % Y]);
        } else {
            const uint32_t f = (__float_as_uint(m0) ^ __float_as_uint(m1)) & 0x00010001u;
#pragma unroll
            for (int q = 0; q < NA; q++)
#pragma unroll
                for (int r = 0; r < 4; r++) a[q][r] ^= f;
        }
        if constexpr (BAR != 0) __syncthreads();
    }
    clk.stop(rec);
    if (span != nullptr && threadIdx.x == 0) span[2 * blockIdx.x + 1] = gtimer();
    float s = sum0 + sum1;
#pragma unroll
    for (int i = 0; i < NACC; i++) s += c[i][0] + c[i][1] + c[i][2] + c[i][3];
#pragma unroll
    for (int q = 0; q < NA; q++)
#pragma unroll
        for (int r = 0; r < 4; r++) s += __uint_as_float(a[q][r] & 0x3f7f7f7fu);
    if (flag) sink[t] = s;
}

/* ---------------- host: timing, output ---------------- */

/* ldsm_mma: ldmatrix feeding mma.sync, the inner loop of kernels/ v3's Q K^T and P V (each warp
 * reads its B fragments -- rows of K or V -- from shared memory, its A fragment -- Q or P -- is in
 * registers): a k step is one ldmatrix.x4 (512 B, the B fragments of two m16n8k16) and the two
 * mma.sync that use it, 8 steps an iteration over 8 accumulators, the fragment of step k + 1 loaded
 * before the mma.sync of step k (double-buffered, as the kernels prefetch); 512 B per 8192 FLOP,
 * kernels/ v3's ratio (a = 8 warps reading every K and V tile).  MODE 0: the mma.sync alone (B from
 * registers), 1: the ldmatrix alone, 2: both.  Blocks of W warps, the same layout of
 * addresses as k_smem (conflict-free, alternating 8 KiB halves with mul = 8192 at run time); BPS blocks an
 * SM (the ldsm_mma_wWxBPS rows: two blocks share the SM as kernels/ v3 and v3_mt2 do). */
template <int W, int MODE, int BPS = 1>
__global__ void __launch_bounds__(W * 32, BPS) k_ldsm_mma(int iters, uint32_t mul, int flag, float *sink, ClkRec *rec)
{
    __shared__ __align__(128) uint32_t buf[4096]; /* 16 KiB */
    ClkProbe clk(rec);
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = bf16x2_pattern(i + blockIdx.x * 4096);
    __syncthreads();
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t s0 = smem_u32(buf) + (threadIdx.x & 31) * 16;
    uint32_t a[4], bq[4];
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = bf16x2_pattern(t * 8 + i), bq[i] = bf16x2_pattern(t * 8 + 4 + i);
    float c[8][4];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) c[i][r] = 0.f;
    uint32_t acc = 0, rb[2][4];
    if (MODE != 0) ldsm_x4(rb[0], s0);
    for (int it = 0; it < iters; it++) {
        const uint32_t s = s0 + (((uint32_t)it * mul) & 8192u), sn = s0 + (((uint32_t)(it + 1) * mul) & 8192u);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            uint32_t *r = rb[k & 1], *nx = rb[(k + 1) & 1];
            if (MODE != 0) ldsm_x4(nx, k < 7 ? s + (k + 1) * 512 : sn); /* the next step's fragment */
            if (MODE == 0) r = bq;
            if (MODE != 1) {
                mma_bf16(c[k], a, r);
                mma_bf16(c[(k + 4) & 7], a, r + 2);
            } else {
                acc ^= r[0] ^ r[1] ^ r[2] ^ r[3];
            }
        }
    }
    clk.stop(rec);
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 8; i++) sum += c[i][0] + c[i][1] + c[i][2] + c[i][3];
    if (flag) sink[t] = sum + (float)(acc & 1u);
}

static cudaDeviceProp g_prop;
static int g_sms;
static float *g_sink;        /* one float a thread of the largest grid; never written (flag 0) */
static ClkRec *g_rec;        /* device */
static cudaEvent_t g_ev0, g_ev1;
static FILE *g_csv;
static double g_mma_tflops, g_ex2_gops; /* for mix_*, dep_*: mma_sync_bf16 (best), ex2_ftz_f32 */

static const double TARGET_MS = 25.0; /* each timed launch runs >= 20 ms */
static const int REPS = 5;

struct Stat {
    double ms;     /* median event time of one launch (or one batch of launches) */
    double mhz;    /* median effective SM clock (0: not measured) */
    double cyc;    /* median clock64 delta of thread 0 of block 0 */
    long long n;   /* the work parameter of the timed launches */
};

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F> static double time_once(F &launch, long long n, ClkRec *h)
{
    CK(cudaMemset(g_rec, 0, sizeof(ClkRec)));
    CK(cudaEventRecord(g_ev0));
    launch(n);
    CK(cudaGetLastError());
    CK(cudaEventRecord(g_ev1));
    CK(cudaEventSynchronize(g_ev1));
    float ms = 0.f;
    CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1));
    CK(cudaMemcpy(h, g_rec, sizeof(ClkRec), cudaMemcpyDeviceToHost));
    return ms;
}

/* Calibrate the work parameter n (from n0, times 8 until a launch takes >= 2 ms, then scaled to
 * TARGET_MS), warm up once at that size, then REPS timed launches: medians. */
template <class F> static Stat measure(F launch, long long n0)
{
    const long long NMAX = 1LL << 30; /* kernels take int */
    ClkRec h;
    long long n = std::max(1LL, n0);
    double t = time_once(launch, n, &h);
    while (t < 2.0 && n < NMAX) {
        n = std::min(NMAX, n * 8);
        t = time_once(launch, n, &h);
    }
    n = std::max(1LL, std::min(NMAX, (long long)ceil((double)n * TARGET_MS / std::max(t, 1e-3))));
    time_once(launch, n, &h);
    std::vector<double> ms, mhz, cyc;
    for (int r = 0; r < REPS; r++) {
        ms.push_back(time_once(launch, n, &h));
        const double dc = (double)(h.c1 - h.c0), dt = (double)(h.t1 - h.t0);
        cyc.push_back(dc);
        mhz.push_back(h.t1 > h.t0 ? dc / dt * 1e3 : 0.0);
    }
    Stat s;
    s.ms = median(ms);
    s.mhz = median(mhz);
    s.cyc = median(cyc);
    s.n = n;
    if (s.ms < 20.0 && n < NMAX)
        fprintf(stderr, "ubench_pipes: warning: a timed launch took %.1f ms (< 20)\n", s.ms);
    return s;
}

static void emit(const char *pipe, double value, const char *unit, double mhz, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void emit(const char *pipe, double value, const char *unit, double mhz, const char *fmt, ...)
{
    char note[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    for (char *p = note; *p; p++)
        if (*p == ',' || *p == '\n' || *p == '"') *p = ';';
    char clk[512] = "";
    if (mhz > 0) snprintf(clk, sizeof clk, "%.0f", mhz);
    printf("%s,%.6g,%s,%s,%s\n", pipe, value, unit, clk, note);
    fflush(stdout);
    if (g_csv) {
        fprintf(g_csv, "%s,%.6g,%s,%s,%s\n", pipe, value, unit, clk, note);
        fflush(g_csv);
    }
}

/* per SM per clock of a rate (units a second) */
static double per_sm_clk(double per_s, double mhz)
{
    return mhz > 0 ? per_s / g_sms / (mhz * 1e6) : 0.0;
}

/* Dynamic shared memory that leaves room for one block per SM only (checked). */
static size_t one_block_smem(const void *k, int threads, size_t need)
{
    size_t bytes = std::max(need, g_prop.sharedMemPerMultiprocessor / 2 + 1024);
    bytes = std::min(bytes, g_prop.sharedMemPerBlockOptin);
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, threads, bytes));
    if (nb != 1) {
        fprintf(stderr, "ubench_pipes: %d blocks of %d threads fit an SM, expected 1\n", nb, threads);
        exit(1);
    }
    return bytes;
}
/* Dynamic shared memory that leaves room for exactly o blocks per SM (checked): more than
 * 1/(o+1) of an SM's each. */
static size_t blocks_smem(const void *k, int threads, int o)
{
    size_t bytes = g_prop.sharedMemPerMultiprocessor / (size_t)(o + 1) + 1024;
    bytes = std::min(bytes, g_prop.sharedMemPerBlockOptin);
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    CK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                            (int)cudaSharedmemCarveoutMaxShared));
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, threads, bytes));
    if (nb != o) {
        fprintf(stderr, "ubench_pipes: %d blocks of %d threads with %zu B of shared memory fit an SM, "
                        "expected %d\n", nb, threads, bytes, o);
        exit(1);
    }
    return bytes;
}
/* One full wave: as many blocks as fit, on every SM. */
static int full_grid(const void *k, int threads, size_t smem)
{
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, threads, smem));
    if (nb < 1) {
        fprintf(stderr, "ubench_pipes: a block of %d threads does not fit an SM\n", threads);
        exit(1);
    }
    return nb * g_sms;
}

/* ---------------- tests ---------------- */

static double mma_sync_rows(bool print)
{
    const int W[4] = {4, 8, 12, 16};
    double tf[4], mhz[4], fpc[4];
    int best = 0;
    for (int w = 0; w < 4; w++) {
        const int threads = W[w] * 32;
        const size_t smem = one_block_smem((const void *)k_mma_tput<8>, threads, 0);
        const Stat s = measure(
            [&](long long n) { k_mma_tput<8><<<g_sms, threads, smem>>>((int)n, 0, g_sink, g_rec); },
            256);
        const double flop = (double)g_sms * W[w] * (double)s.n * 32 * 4096;
        tf[w] = flop / (s.ms * 1e-3) / 1e12;
        mhz[w] = s.mhz;
        fpc[w] = per_sm_clk(flop / (s.ms * 1e-3), s.mhz);
        if (tf[w] > tf[best]) best = w;
    }
    if (print) {
        emit("mma_sync_bf16", tf[best], "TFLOP/s", mhz[best],
             "best at %d warps/SM (one block/SM; 8 independent accumulators a warp): 4w %.1f 8w %.1f "
             "12w %.1f 16w %.1f TFLOP/s; %.0f FLOP/SM/clk",
             W[best], tf[0], tf[1], tf[2], tf[3], fpc[best]);
        emit("mma_sync_bf16_4warps", tf[0], "TFLOP/s", mhz[0],
             "4 warps/SM = 1 per scheduler; 8 accumulators a warp; %.0f FLOP/SM/clk", fpc[0]);
        emit("mma_sync_bf16_8warps", tf[1], "TFLOP/s", mhz[1],
             "8 warps/SM = 2 per scheduler; 8 accumulators a warp; %.0f FLOP/SM/clk", fpc[1]);
    }
    g_mma_tflops = tf[best];
    return tf[best];
}
static void t_mma_sync() { mma_sync_rows(true); }

static void t_mma_lat()
{
    const Stat s = measure([&](long long n) { k_mma_lat<<<1, 32>>>((int)n, 0, g_sink, g_rec); }, 256);
    const double per = s.cyc / ((double)s.n * 16);
    emit("mma_sync_bf16_latency", per, "cycles", s.mhz,
         "one warp; dependent chain on one accumulator (m16n8k16 bf16 -> f32); %.2f ns per mma",
         s.ms * 1e6 / ((double)s.n * 16));
}

template <int N, int FP8> static void wgmma_row(const char *name)
{
    const int K = FP8 ? 32 : 16;
    double tf[2], mhz[2], fpc[2];
    for (int g = 0; g < 2; g++) {
        const int threads = 128 * (g + 1);
        const size_t smem = one_block_smem((const void *)k_wgmma<N, FP8>, threads, (64 + N) * 128 + 1024);
        const Stat s = measure(
            [&](long long n) { k_wgmma<N, FP8><<<g_sms, threads, smem>>>((int)n, 0, g_sink, g_rec); },
            64);
        const double flop = (double)g_sms * (g + 1) * (double)s.n * 4 * (2.0 * 64 * N * K);
        tf[g] = flop / (s.ms * 1e-3) / 1e12;
        mhz[g] = s.mhz;
        fpc[g] = per_sm_clk(flop / (s.ms * 1e-3), s.mhz);
    }
    const int b = tf[1] > tf[0] ? 1 : 0;
    emit(name, tf[b], "TFLOP/s", mhz[b],
         "m64n%dk%d %s -> f32 SS (K-major 128B swizzle); 4 wgmma a commit group; wait_group 1; "
         "best at %d warpgroup(s)/SM: 1 WG %.1f 2 WG %.1f TFLOP/s; %.0f FLOP/SM/clk",
         N, K, FP8 ? "e4m3" : "bf16", b + 1, tf[0], tf[1], fpc[b]);
}
static void t_wgmma_bf16() { wgmma_row<256, 0>("wgmma_bf16"); }
static void t_wgmma_n128() { wgmma_row<128, 0>("wgmma_bf16_n128"); }
static void t_wgmma_fp8() { wgmma_row<256, 1>("wgmma_fp8"); }
/* wgmma_duty_Y: achieved wgmma TFLOP/s and the clock it ran at, with Y ex2 a thread an iteration
 * beside 4 wgmma m64n128k16 (the note gives the tensor pipe's share: achieved / (4096 FLOP/SM/clk
 * at the measured clock), and the exp unit's) */
template <int Y> static void wgmma_duty_row()
{
    const size_t smem = one_block_smem((const void *)k_wgmma_duty<Y>, 128, (64 + 128) * 128 + 1024);
    const Stat s = measure([&](long long n) { k_wgmma_duty<Y><<<g_sms, 128, smem>>>((int)n, 0, g_sink, g_rec); }, 64);
    const double flop = (double)g_sms * (double)s.n * 4 * (2.0 * 64 * 128 * 16);
    const double ex2n = (double)g_sms * 128 * (double)s.n * Y;
    const double tf = flop / (s.ms * 1e-3) / 1e12;
    const double tshare = per_sm_clk(flop / (s.ms * 1e-3), s.mhz) / 4096.0, eshare = per_sm_clk(ex2n / (s.ms * 1e-3), s.mhz) / 16.0;
    char name[32];
    snprintf(name, sizeof name, "wgmma_duty_%d", Y);
    emit(name, tf, "TFLOP/s", s.mhz,
         "4 wgmma m64n128k16 bf16 + %d independent ex2.approx.ftz a thread an iteration, 1 warpgroup/SM; tensor pipe "
         "%.1f %% of 4096 FLOP/SM/clk, exp unit %.1f %% of 16/SM/clk, at the measured clock",
         Y, 100 * tshare, 100 * eshare);
}
/* wgmma_latency_KS: cycles from issuing a commit group of KS wgmma m64n128k16 to its wait_group 0
 * returning, one warpgroup on one SM (the rest idle) */
template <int KS> static void wgmma_lat_row()
{
    const size_t smem = one_block_smem((const void *)k_wgmma_lat<KS>, 128, (64 + 128) * 128 + 1024);
    const Stat s = measure([&](long long n) { k_wgmma_lat<KS><<<1, 128, smem>>>((int)n, 0, g_sink, g_rec); }, 64);
    const double per = s.cyc / (double)s.n;
    char name[32];
    snprintf(name, sizeof name, "wgmma_latency_k%d", 16 * KS);
    emit(name, per, "cycles", s.mhz,
         "one warpgroup, one SM: a commit group of %d wgmma m64n128k16 bf16 (K = %d) then wait_group 0, repeated; "
         "%.1f ns a group; its issue-limited time at 4096 FLOP/SM/clk would be %d cycles",
         KS, 16 * KS, s.ms * 1e6 / (double)s.n, KS * 64 * 128 * 16 * 2 / 4096);
}
static void t_wgmma_lat()
{
    wgmma_lat_row<1>();
    wgmma_lat_row<4>();
    wgmma_lat_row<8>();
}
/* wgmma_FORM_nN: k_wgmma_form's TFLOP/s, the better of 1 and 2 warpgroups an SM */
template <int N, int FORM> static void wgmma_form_row(const char *name)
{
    double tf[2], mhz[2], fpc[2];
    for (int g = 0; g < 2; g++) {
        const int threads = 128 * (g + 1);
        const size_t smem = one_block_smem((const void *)k_wgmma_form<N, FORM>, threads, (64 + N) * 128 + 1024);
        const Stat s = measure(
            [&](long long n) { k_wgmma_form<N, FORM><<<g_sms, threads, smem>>>((int)n, 0, g_sink, g_rec); }, 64);
        const double flop = (double)g_sms * (g + 1) * (double)s.n * 4 * (2.0 * 64 * N * 16);
        tf[g] = flop / (s.ms * 1e-3) / 1e12;
        mhz[g] = s.mhz;
        fpc[g] = per_sm_clk(flop / (s.ms * 1e-3), s.mhz);
    }
    const int b = tf[1] > tf[0] ? 1 : 0;
    static const char *forms[3] = {"SS, A and B K-major", "RS, A from registers, B MN-major",
                                   "SS, A and B MN-major"};
    emit(name, tf[b], "TFLOP/s", mhz[b],
         "m64n%dk16 bf16 -> f32 %s (128B swizzle); 4 wgmma a commit group; wait_group 1; best at %d "
         "warpgroup(s)/SM: 1 WG %.1f 2 WG %.1f TFLOP/s; %.0f FLOP/SM/clk",
         N, forms[FORM], b + 1, tf[0], tf[1], fpc[b]);
}
static void t_wgmma_forms()
{
    wgmma_form_row<64, 0>("wgmma_ss_n64");
    wgmma_form_row<128, 0>("wgmma_ss_n128");
    wgmma_form_row<64, 1>("wgmma_rs_n64");
    wgmma_form_row<128, 1>("wgmma_rs_n128");
    wgmma_form_row<64, 2>("wgmma_sstt_n64");
}
/* wgmma_bwdstep_dD[_nosync]: k_wgmma_bwdstep's TFLOP/s (the step's 5 GEMMs: 2 B_r B_c d + 2 B_c d B_r
 * + 2 B_r d B_c FLOPs... for both warpgroups: 10 B_r B_c d) and ns a step */
template <int D, int SYNC> static void wgmma_bwdstep_row(const char *name)
{
    constexpr int BR = D == 128 ? 64 : 128, BC = 128;
    const size_t need = (size_t)(2 * BC * D * 2 + 2 * BR * D * 2 + BC * BR * 2) + 1024;
    const size_t smem = one_block_smem((const void *)k_wgmma_bwdstep<D, SYNC>, 256, need);
    const Stat s = measure([&](long long n) { k_wgmma_bwdstep<D, SYNC><<<g_sms, 256, smem>>>((int)n, 0, g_sink, g_rec); }, 16);
    const double flop = (double)g_sms * (double)s.n * 10.0 * BR * BC * D;
    emit(name, flop / (s.ms * 1e-3) / 1e12, "TFLOP/s", s.mhz,
         "the v5 backward's GEMM step at d = %d (B_r %d, B_c %d; 2 consumer warpgroups, one block an SM) without its "
         "softmax, %s; %.1f ns a step; %.0f FLOP/SM/clk",
         D, BR, BC, SYNC ? "with the kernel's waits and barrier" : "no wait or barrier inside the step",
         s.ms * 1e6 / (double)s.n, per_sm_clk(flop / (s.ms * 1e-3), s.mhz));
}
static void t_wgmma_bwdstep()
{
    wgmma_bwdstep_row<128, 1>("wgmma_bwdstep_d128");
    wgmma_bwdstep_row<128, 0>("wgmma_bwdstep_d128_nosync");
    wgmma_bwdstep_row<64, 1>("wgmma_bwdstep_d64");
    wgmma_bwdstep_row<64, 0>("wgmma_bwdstep_d64_nosync");
}
static void t_wgmma_duty()
{
    wgmma_duty_row<0>();
    wgmma_duty_row<32>();
    wgmma_duty_row<64>();
    wgmma_duty_row<128>();
    wgmma_duty_row<256>();
    wgmma_duty_row<512>();
}

template <int FTZ> static double ex2_row(bool print)
{
    const int threads = 256, grid = full_grid((const void *)k_ex2<FTZ>, threads, 0);
    const Stat s = measure([&](long long n) { k_ex2<FTZ><<<grid, threads>>>((int)n, 0, g_sink, g_rec); },
                           256);
    const double ops = (double)grid * threads * (double)s.n * 128, rate = ops / (s.ms * 1e-3);
    if (print)
        emit(FTZ ? "ex2_ftz_f32" : "ex2_f32", rate / 1e9, "Gop/s", s.mhz,
             "ex2.approx%s.f32%s; %.2f ex2/SM/clk; 8 independent chains a thread; %d blocks of 256",
             FTZ ? ".ftz" : "", FTZ ? " (one MUFU.EX2)" : " (MUFU.EX2 + FSETP + 2 FMUL: the denormal fix-up)",
             per_sm_clk(rate, s.mhz), grid);
    if (FTZ) g_ex2_gops = rate / 1e9;
    return rate / 1e9;
}
static void t_ex2()
{
    ex2_row<0>(true);
    ex2_row<1>(true);
}

template <int OP> static void falu_row()
{
    const int threads = 256, grid = full_grid((const void *)k_falu<OP>, threads, 0);
    const Stat s = measure(
        [&](long long n) { k_falu<OP><<<grid, threads>>>((int)n, 0.999f, 1e-3f, 0, g_sink, g_rec); }, 256);
    const double ops = (double)grid * threads * (double)s.n * 256, rate = ops / (s.ms * 1e-3);
    if (OP == 0)
        emit("fma_f32", 2 * rate / 1e12, "TFLOP/s", s.mhz,
             "FFMA; %.1f FMA/SM/clk; 8 independent chains a thread; %d blocks of 256",
             per_sm_clk(rate, s.mhz), grid);
    else
        emit(OP == 1 ? "fadd_f32" : "fmax_f32", rate / 1e9, "Gop/s", s.mhz,
             "%s; %.1f op/SM/clk; 8 independent chains a thread; %d blocks of 256",
             OP == 1 ? "FADD" : "fmaxf (FMNMX)", per_sm_clk(rate, s.mhz), grid);
}

template <int MODE> static void pack_row(const char *name, const char *what, double per_inst)
{
    const int threads = 256, grid = full_grid((const void *)k_pack<MODE>, threads, 0);
    const Stat s = measure([&](long long n) { k_pack<MODE><<<grid, threads>>>((int)n, 0, g_sink, g_rec); }, 256);
    const double inst = (double)grid * threads * (double)s.n * 128, rate = inst * per_inst / (s.ms * 1e-3);
    emit(name, rate / 1e9, "Gop/s", s.mhz, "%s; %.2f values/SM/clk (%.2f thread instructions/SM/clk); 8 independent chains a thread; %d blocks of 256",
         what, per_sm_clk(rate, s.mhz), per_sm_clk(inst / (s.ms * 1e-3), s.mhz), grid);
}
static void t_pack()
{
    pack_row<0>("ex2_f16x2", "ex2.approx.f16x2 (two exponentials an instruction; Gop/s counts exponentials)", 2.0);
    pack_row<1>("ex2_bf16x2", "ex2.approx.ftz.bf16x2 (two exponentials an instruction)", 2.0);
    pack_row<2>("cvt_f16x2_f32", "cvt.rn.f16x2.f32 (two fp32 in; Gop/s counts instructions)", 1.0);
    pack_row<3>("cvt_e4m3x2_f16x2", "cvt.rn.satfinite.e4m3x2.f16x2 + a prmt (Gop/s counts instructions)", 1.0);
    pack_row<4>("cvt_e4m3x2_f32", "cvt.rn.satfinite.e4m3x2.f32 + a prmt (the FP8 kernels' P conversion; Gop/s counts instructions)", 1.0);
    pack_row<5>("ex2_cvt_e4m3_mix", "4 chains of ex2.approx.ftz.f32 beside 4 of cvt.rn.satfinite.e4m3x2.f32 + prmt, interleaved (Gop/s counts both; 16 a clock: one shared pipe)", 1.0);
}
static void t_falu()
{
    falu_row<0>();
    falu_row<1>();
    falu_row<2>();
}

template <int KIND> static void smem_row(const char *name)
{
    const int threads = 256, grid = full_grid((const void *)k_smem<KIND>, threads, 0);
    const Stat s = measure(
        [&](long long n) { k_smem<KIND><<<grid, threads>>>((int)n, 8192u, 0, (uint32_t *)g_sink, g_rec); }, 256);
    const double bytes = (double)grid * (threads / 32) * (double)s.n * 8 * 512, rate = bytes / (s.ms * 1e-3);
    emit(name, rate / 1e12, "TB/s", s.mhz,
         "%s; 512 B a warp instruction; conflict-free; %.1f B/SM/clk; %d blocks of 256",
         KIND == 0 ? "ldmatrix.sync.aligned.m8n8.x4.shared.b16" : "ld.shared.v4.u32",
         per_sm_clk(rate, s.mhz), grid);
}
static void t_smem_ldsm() { smem_row<0>("smem_ldmatrix"); }
static void t_smem_ld128() { smem_row<1>("smem_ld128"); }

static Stat read_stat(const uint4 *p, size_t n, int *grid_out, long long passes0)
{
    const int threads = 256, grid = full_grid((const void *)k_read, threads, 0);
    *grid_out = grid;
    return measure(
        [&](long long ps) { k_read<<<grid, threads>>>(p, n, (int)ps, 0, (uint32_t *)g_sink, g_rec); },
        passes0);
}

static void t_l2()
{
    const size_t MiB = 1u << 20, bytes_max = 48 * MiB;
    uint4 *buf = nullptr;
    CK(cudaMalloc(&buf, bytes_max));
    CK(cudaMemset(buf, 0x5a, bytes_max));
    const int sizes[2] = {24, 48};
    const char *names[2] = {"l2_read", "l2_read_48MiB"};
    for (int i = 0; i < 2; i++) {
        const size_t bytes = sizes[i] * MiB;
        int grid = 0;
        const Stat s = read_stat(buf, bytes / 16, &grid, 16);
        const double rate = (double)bytes * (double)s.n / (s.ms * 1e-3);
        emit(names[i], rate / 1e12, "TB/s", s.mhz,
             "%d MiB buffer (L2 %d MiB) warm; %lld passes a launch; ld.global.cg.v4 coalesced; %d "
             "blocks of 256; %.1f B/SM/clk",
             sizes[i], g_prop.l2CacheSize >> 20, s.n, grid, per_sm_clk(rate, s.mhz));
    }
    CK(cudaFree(buf));
}

static void t_dram()
{
    const size_t GiB = 1ull << 30, bytes = 4 * GiB;
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < bytes + GiB) {
        fprintf(stderr, "ubench_pipes: dram_*: %zu MiB free, need 5 GiB; skipped\n", free_b >> 20);
        return;
    }
    uint4 *buf = nullptr;
    CK(cudaMalloc(&buf, bytes));
    CK(cudaMemset(buf, 0x5a, bytes));
    const size_t n = bytes / 16;
    const int threads = 256;
    {
        int grid = 0;
        const Stat s = read_stat(buf, n, &grid, 1);
        const double rate = (double)bytes * (double)s.n / (s.ms * 1e-3);
        emit("dram_read", rate / 1e12, "TB/s", s.mhz,
             "4 GiB read a pass; %lld passes a launch; ld.global.cg.v4 coalesced; %d blocks of 256",
             s.n, grid);
    }
    {
        const int grid = full_grid((const void *)k_copy, threads, 0);
        const Stat s = measure(
            [&](long long ps) { k_copy<<<grid, threads>>>(buf, buf + n / 2, n / 2, (int)ps, g_rec); }, 1);
        const double rate = (double)bytes * (double)s.n / (s.ms * 1e-3);
        emit("dram_copy", rate / 1e12, "TB/s", s.mhz,
             "2 GiB read + 2 GiB written a pass (counted 4 GiB); %lld passes a launch; %d blocks of 256",
             s.n, grid);
    }
    {
        const int grid = full_grid((const void *)k_write, threads, 0);
        const Stat s =
            measure([&](long long ps) { k_write<<<grid, threads>>>(buf, n, (int)ps, g_rec); }, 1);
        const double rate = (double)bytes * (double)s.n / (s.ms * 1e-3);
        emit("dram_write", rate / 1e12, "TB/s", s.mhz,
             "4 GiB written a pass (st.global.v4); %lld passes a launch; %d blocks of 256", s.n, grid);
    }
    CK(cudaFree(buf));
}

/* A random cyclic permutation (every node in one cycle) of n nodes STRIDE bytes apart: node k
 * holds the address of the next. */
static const size_t CHASE_STRIDE = 256;
static void build_chase(unsigned long long *region, size_t n, unsigned long long *pos)
{
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates, xorshift64 */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const size_t j = (size_t)(x % (i + 1));
        std::swap(order[i], order[j]);
    }
    const unsigned long long base = (unsigned long long)(uintptr_t)region;
    std::vector<unsigned long long> next(n);
    for (size_t k = 0; k < n; k++) next[order[k]] = base + (unsigned long long)order[(k + 1) % n] * CHASE_STRIDE;
    unsigned long long *d_next = nullptr;
    CK(cudaMalloc(&d_next, n * sizeof(unsigned long long)));
    CK(cudaMemcpy(d_next, next.data(), n * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    k_scatter<<<g_sms * 4, 256>>>(d_next, region, n, CHASE_STRIDE / 8);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d_next));
    const unsigned long long start = base + (unsigned long long)order[0] * CHASE_STRIDE;
    CK(cudaMemcpy(pos, &start, sizeof start, cudaMemcpyHostToDevice));
}
static void chase_row(const char *name, size_t bytes, bool warm_all)
{
    const size_t n = bytes / CHASE_STRIDE;
    unsigned long long *region = nullptr, *pos = nullptr;
    CK(cudaMalloc(&region, bytes));
    CK(cudaMalloc(&pos, sizeof(unsigned long long)));
    build_chase(region, n, pos);
    if (!warm_all) { /* evict the nodes that building left in L2: write 4 x L2 elsewhere */
        const size_t fb = std::max((size_t)256 << 20, (size_t)g_prop.l2CacheSize * 4);
        void *flush = nullptr;
        CK(cudaMalloc(&flush, fb));
        CK(cudaMemset(flush, 0, fb));
        CK(cudaDeviceSynchronize());
        CK(cudaFree(flush));
    }
    if (warm_all) { /* one whole cycle: every node in L2 */
        k_chase<<<1, 1>>>(pos, (int)(n / 8), nullptr);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    const Stat s = measure([&](long long g) { k_chase<<<1, 1>>>(pos, (int)g, g_rec); }, 128);
    const double loads = (double)s.n * 8;
    emit(name, s.ms * 1e6 / loads, "ns", s.mhz,
         "one thread; dependent ld.global.cg.u64 through a random cyclic permutation of %zu nodes "
         "%zu B apart over %zu MiB%s; %.0f cycles a load",
         n, CHASE_STRIDE, bytes >> 20,
         warm_all ? " (warmed: L2-resident)"
                 : " (L2 flushed after building; each launch goes on to unvisited nodes; TLB misses included)",
         s.cyc / loads);
    CK(cudaFree(pos));
    CK(cudaFree(region));
}
static void t_dram_lat() { chase_row("dram_latency", 1ull << 30, false); }
static void t_l2_lat() { chase_row("l2_latency", 16ull << 20, true); }


/* Dependent streams (k_stream_dep): ns a step of every warp, with `blocks` blocks of 256 threads an
 * SM (8: the thread limit, 64 warps; 1: forced by shared memory, 8 warps), each block's region
 * region_b bytes (1 MiB at 8 an SM, 8 MiB at 1: 1.03 GiB in all, from DRAM; 32 KiB: 256 KiB an SM, beyond L1, 33 MiB in
 * all, in L2; 4 KiB: in L1). */
template <bool EXP, int LD = 0> static void stream_row(const char *name, int blocks, size_t region_b)
{
    const void *k = (const void *)k_stream_dep<EXP, LD>;
    size_t smem = 0;
    if (blocks == 1) smem = one_block_smem(k, 256, 0);
    else {
        int nb = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 256, 0));
        if (nb != blocks) {
            fprintf(stderr, "ubench_pipes: %s: %d blocks of 256 fit an SM, expected %d\n", name, nb, blocks);
            exit(1);
        }
    }
    const int grid = blocks * g_sms;
    const long long elems = (long long)(region_b / 2);
    uint16_t *buf = nullptr;
    CK(cudaMalloc(&buf, (size_t)grid * region_b));
    CK(cudaMemset(buf, 0x3c, (size_t)grid * region_b));
    const Stat s = measure([&](long long n) {
        k_stream_dep<EXP, LD><<<grid, 256, smem>>>(buf, elems, (int)n, 0u, g_sink, g_rec);
    }, 64);
    const double ns = s.ms * 1e6 / (double)s.n;
    const double bytes = (double)grid * 512.0 * (double)s.n;
    emit(name, ns, "ns", s.mhz,
         "%d blocks of 256 an SM (%d warps); a warp's step: one 64 B coalesced ld.global.u16 a lane%s, "
         "consumed before the next; region %zu KiB a block (%zu MiB in all); %.0f cycles a step; %.2f TB/s",
         blocks, 8 * blocks, EXP ? " through cvt, ex2, add" : " (max)", region_b >> 10,
         ((size_t)grid * region_b) >> 20, ns * s.mhz * 1e-3, bytes / (s.ms * 1e-3) / 1e12);
    CK(cudaFree(buf));
}
static void t_stream_dep()
{
    stream_row<false>("dram_stream_dep_w64", 8, 1u << 20);
    stream_row<false>("dram_stream_dep_w8", 1, 8u << 20);
    stream_row<false>("l2_stream_dep_w64", 8, 32u << 10);
    stream_row<true>("l2_stream_exp_w64", 8, 32u << 10);
    stream_row<false>("l1_stream_dep_w64", 8, 4u << 10);
    stream_row<true>("l1_stream_exp_w64", 8, 4u << 10);
}
/* the same L1-sized stream with the other load forms: a plain C++ load (v0's), ld.global.ca,
 * ld.global.nc (__ldg); and 1 KiB regions */
static void t_stream_ld()
{
    stream_row<false, 1>("l1_stream_dep_w64_c", 8, 4u << 10);
    stream_row<false, 2>("l1_stream_dep_w64_ca", 8, 4u << 10);
    stream_row<false, 3>("l1_stream_dep_w64_nc", 8, 4u << 10);
    stream_row<false, 1>("l1_stream_dep_w64_c1k", 8, 1u << 10);
    stream_row<false, 1>("l1_stream_dep_w8_c", 1, 4u << 10);
    stream_row<true, 1>("l1_stream_exp_w64_c", 8, 4u << 10);
    stream_row<false, 1>("dram_stream_dep_w64_c", 8, 1u << 20);
}
static void t_smem_lat()
{
    const Stat s = measure([&](long long n) { k_smem_lat<<<1, 32>>>((int)n, (uint32_t *)g_sink, g_rec); }, 256);
    emit("smem_latency", s.cyc / ((double)s.n * 16), "cycles", s.mhz,
         "one warp; dependent ld.shared.u32 (each value the next index); %.2f ns a load",
         s.ms * 1e6 / ((double)s.n * 16));
}
/* Block turnaround: a grid of n empty blocks of 256 threads (8 resident an SM): ns per block per
 * resident slot, i.e. the time an SM slot takes to retire one block and start the next. */
static void t_block_turn()
{
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, (const void *)k_empty, 256, 0));
    const Stat s = measure([&](long long n) { k_empty<<<(unsigned)n, 256>>>(); }, 1 << 16);
    const double slots = (double)nb * g_sms;
    emit("block_turnaround", s.ms * 1e6 / ((double)s.n / slots), "ns", 0.0,
         "one launch of %lld empty blocks of 256 threads (%d resident an SM, %.0f slots): wall time / "
         "(blocks / slots); %.1f blocks a us over the GPU",
         s.n, nb, slots, (double)s.n / (s.ms * 1e3));
}

static void t_launch()
{
    {
        const Stat s = measure([&](long long n) {
            for (long long i = 0; i < n; i++) k_empty<<<1, 32>>>();
        }, 256);
        emit("launch_overhead", s.ms * 1e3 / (double)s.n, "us", 0.0,
             "%lld back-to-back launches of an empty kernel (1 block of 32) between two events / N",
             s.n);
    }
    {
        const int grid = 2 * g_sms;
        const Stat s = measure([&](long long n) {
            for (long long i = 0; i < n; i++) k_empty<<<grid, 128>>>();
        }, 256);
        emit("launch_overhead_grid", s.ms * 1e3 / (double)s.n, "us", 0.0,
             "%lld back-to-back launches of an empty kernel (%d blocks of 128) between two events / N",
             s.n, grid);
    }
}

static void t_sync()
{
    const int T[2] = {128, 256};
    const char *names[2] = {"syncthreads", "syncthreads_256"};
    for (int i = 0; i < 2; i++) {
        const int threads = T[i];
        const size_t smem = one_block_smem((const void *)k_bar, threads, 0);
        const Stat s = measure([&](long long n) { k_bar<<<g_sms, threads, smem>>>((int)n, g_rec); }, 256);
        const double per = s.cyc / ((double)s.n * 16);
        emit(names[i], per, "cycles", s.mhz,
             "__syncthreads in a loop (16 an iteration); one block of %d threads per SM; %.2f ns a barrier",
             threads, s.ms * 1e6 / ((double)s.n * 16));
    }
}

static void t_shfl()
{
    const Stat s =
        measure([&](long long n) { k_shfl<<<1, 32>>>((int)n, 0, (uint32_t *)g_sink, g_rec); }, 256);
    const double per = s.cyc / ((double)s.n * 20);
    emit("shfl_xor_latency", per, "cycles", s.mhz,
         "one warp; dependent __shfl_xor_sync (masks 1 2 4 8 16 in turn); %.2f ns a shuffle",
         s.ms * 1e6 / ((double)s.n * 20));
}

template <int Y> static Stat mix_y(int mode, int threads)
{
    const void *k = mode == 1 ? (const void *)k_mix<Y, 1>
                  : mode == 2 ? (const void *)k_mix<Y, 2>
                              : (const void *)k_mix<Y, 3>;
    const size_t smem = one_block_smem(k, threads, 0);
    return measure(
        [&](long long n) {
            if (mode == 1) k_mix<Y, 1><<<g_sms, threads, smem>>>((int)n, 0, g_sink, g_rec);
            else if (mode == 2) k_mix<Y, 2><<<g_sms, threads, smem>>>((int)n, 0, g_sink, g_rec);
            else k_mix<Y, 3><<<g_sms, threads, smem>>>((int)n, 0, g_sink, g_rec);
        },
        64);
}
static Stat mix_stat(int Y, int mode, int threads)
{
    switch (Y) {
    case 4: return mix_y<4>(mode, threads);
    case 8: return mix_y<8>(mode, threads);
    case 12: return mix_y<12>(mode, threads);
    case 16: return mix_y<16>(mode, threads);
    case 20: return mix_y<20>(mode, threads);
    case 24: return mix_y<24>(mode, threads);
    case 28: return mix_y<28>(mode, threads);
    case 32: return mix_y<32>(mode, threads);
    case 36: return mix_y<36>(mode, threads);
    case 40: return mix_y<40>(mode, threads);
    case 44: return mix_y<44>(mode, threads);
    case 48: return mix_y<48>(mode, threads);
    case 52: return mix_y<52>(mode, threads);
    case 56: return mix_y<56>(mode, threads);
    case 60: return mix_y<60>(mode, threads);
    default: return mix_y<64>(mode, threads);
    }
}
/* The ex2 count a thread Y (a multiple of 4 in [4, 64]) for which a burst of Y ex2 a warp takes
 * as long as 16 mma a warp, from this run's mma_sync_bf16 and ex2_ftz_f32 rates (measured
 * silently when not yet measured); *yf: the unrounded value. */
static int burst_y(double *yf)
{
    if (g_mma_tflops <= 0) mma_sync_rows(false);
    if (g_ex2_gops <= 0) ex2_row<1>(false);
    /* 16 mma (16 x 4096 FLOP) a warp take as long as 32 Y ex2 a warp */
    *yf = 16.0 * 4096.0 * (g_ex2_gops * 1e9) / (32.0 * g_mma_tflops * 1e12);
    return std::min(64, std::max(4, 4 * (int)lround(*yf / 4)));
}
static void t_mix()
{
    double yf = 0;
    const int Y = burst_y(&yf);
    for (int w = 1; w <= 4; w *= 2) {
        const int threads = 128 * w;
        double tp[4] = {0, 0, 0, 0}, mhz = 0;
        for (int mode = 1; mode <= 3; mode++) {
            const Stat s = mix_stat(Y, mode, threads);
            tp[mode] = s.ms * 1e6 / (double)s.n;
            if (mode == 3) mhz = s.mhz;
        }
        const char *name = w == 1 ? "mix_w1" : w == 2 ? "mix_w2" : "mix_w4";
        emit(name, tp[3] / (tp[1] + tp[2]), "ratio", mhz,
             "t_mix/(t_mma+t_ex2) (perfect overlap: %.3f); %d warps/SM (one block/SM); a pair = 16 "
             "mma.sync + Y=%d ex2.approx.ftz + %d cvt.rn.bf16x2 a warp (Y from mma_sync_bf16 %.1f "
             "TFLOP/s and ex2_ftz_f32 %.1f Gop/s: %.1f); ns a pair: t_mma %.2f t_ex2 %.2f t_mix %.2f",
             std::max(tp[1], tp[2]) / (tp[1] + tp[2]), 4 * w, Y, Y / 2, g_mma_tflops, g_ex2_gops, yf,
             tp[1], tp[2], tp[3]);
    }
}

/* dep: the k_dep cases (CS: MODE 3 dep, 1 GEMM only, 2 softmax only, 0 reduction only; + 4:
 * no barrier), o blocks of 128 per SM, exactly o x SMs blocks.  *resident (when asked): one more
 * launch (a quarter of the timed length) with per-block spans; true when every block started
 * before any ended, i.e. the whole grid ran as one wave. */
static unsigned long long *g_span; /* 2 a block of the largest k_dep grid (2 x SMs) */
template <int Y, int MODE, int BAR> static Stat dep_run(int o, size_t *smem_out, bool *resident)
{
    const size_t smem = blocks_smem((const void *)k_dep<Y, MODE, BAR>, 128, o);
    const int grid = o * g_sms;
    if (smem_out) *smem_out = smem;
    const Stat s = measure(
        [&](long long n) {
            k_dep<Y, MODE, BAR><<<grid, 128, smem>>>((int)n, 0, g_sink, g_rec, nullptr);
        },
        64);
    if (resident) {
        CK(cudaMemset(g_span, 0, 2 * (size_t)grid * sizeof(unsigned long long)));
        k_dep<Y, MODE, BAR><<<grid, 128, smem>>>((int)std::max(1LL, s.n / 4), 0, g_sink, nullptr, g_span);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<unsigned long long> h(2 * (size_t)grid);
        CK(cudaMemcpy(h.data(), g_span, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        unsigned long long last_start = 0, first_end = ~0ull;
        for (int b = 0; b < grid; b++) {
            last_start = std::max(last_start, h[2 * b]);
            first_end = std::min(first_end, h[2 * b + 1]);
        }
        *resident = last_start < first_end;
        if (!*resident)
            fprintf(stderr, "ubench_pipes: dep: the %d blocks (%d per SM) did not all run at once\n",
                    grid, o);
    }
    return s;
}
template <int Y> static Stat dep_y(int cs, int o, size_t *smem_out, bool *resident)
{
    switch (cs) {
    case 0: return dep_run<Y, 0, 1>(o, smem_out, resident);
    case 1: return dep_run<Y, 1, 1>(o, smem_out, resident);
    case 2: return dep_run<Y, 2, 1>(o, smem_out, resident);
    case 3: return dep_run<Y, 3, 1>(o, smem_out, resident);
    case 5: return dep_run<Y, 1, 0>(o, smem_out, resident);
    case 6: return dep_run<Y, 2, 0>(o, smem_out, resident);
    default: return dep_run<Y, 3, 0>(o, smem_out, resident);
    }
}
static Stat dep_stat(int Y, int cs, int o, size_t *smem_out = nullptr, bool *resident = nullptr)
{
    switch (Y) {
    case 4: return dep_y<4>(cs, o, smem_out, resident);
    case 8: return dep_y<8>(cs, o, smem_out, resident);
    case 12: return dep_y<12>(cs, o, smem_out, resident);
    case 16: return dep_y<16>(cs, o, smem_out, resident);
    case 20: return dep_y<20>(cs, o, smem_out, resident);
    case 24: return dep_y<24>(cs, o, smem_out, resident);
    case 28: return dep_y<28>(cs, o, smem_out, resident);
    case 32: return dep_y<32>(cs, o, smem_out, resident);
    case 36: return dep_y<36>(cs, o, smem_out, resident);
    case 40: return dep_y<40>(cs, o, smem_out, resident);
    case 44: return dep_y<44>(cs, o, smem_out, resident);
    case 48: return dep_y<48>(cs, o, smem_out, resident);
    case 52: return dep_y<52>(cs, o, smem_out, resident);
    case 56: return dep_y<56>(cs, o, smem_out, resident);
    case 60: return dep_y<60>(cs, o, smem_out, resident);
    default: return dep_y<64>(cs, o, smem_out, resident);
    }
}
/* ns a loop iteration of one block (wall time / iterations) */
static double per_iter_ns(const Stat &s) { return s.ms * 1e6 / (double)s.n; }
static void t_dep()
{
    double yf = 0;
    const int Y = burst_y(&yf);
    CK(cudaMalloc(&g_span, 4 * (size_t)g_sms * sizeof(unsigned long long)));
    size_t smem1 = 0, smem2 = 0;
    bool res1 = false, res2 = false;
    const Stat sR = dep_stat(Y, 0, 1), sG = dep_stat(Y, 1, 1), sS = dep_stat(Y, 2, 1);
    const Stat sD1 = dep_stat(Y, 3, 1, &smem1, &res1), sD2 = dep_stat(Y, 3, 2, &smem2, &res2);
    const Stat sGn = dep_stat(Y, 5, 1), sSn = dep_stat(Y, 6, 1), sDn = dep_stat(Y, 7, 1);
    CK(cudaFree(g_span));
    g_span = nullptr;
    const double tR = per_iter_ns(sR), tG = per_iter_ns(sG), tS = per_iter_ns(sS);
    const double tD1 = per_iter_ns(sD1), tD2 = per_iter_ns(sD2);
    const double tGn = per_iter_ns(sGn), tSn = per_iter_ns(sSn), tDn = per_iter_ns(sDn);
    const double sum = tG + tS, sumn = tGn + tSn;
    const double mx = std::max(tG, tS), mn = std::min(tG, tS);
    const double sm2 = tD2 / 2, pred2 = mx + mn / 2; /* SM time a block-iteration at o = 2 */
    emit("dep_o1", tD1 / sum, "ratio", sD1.mhz,
         "t_dep/(t_G+t_S) at 1 block of 128 per SM (%d blocks%s; %zu B dynamic smem) with "
         "__syncthreads an iteration; the law (G+S) predicts 1.000; ns an iteration: t_G %.2f t_S "
         "%.2f t_dep %.2f (t_R %.2f: the reduction + barrier alone; counted in both t_G and t_S); "
         "an iteration a warp = 16 mma.sync m16n8k16 bf16 (8 accumulators x 2) -> row max (30 + 4 "
         "fmaxf; 4 shfl) -> Y=%d ex2.approx.ftz + row sum (4 shfl) + %d cvt.rn.bf16x2 -> the next "
         "A (Y from mma_sync_bf16 %.1f TFLOP/s and ex2_ftz_f32 %.1f Gop/s: %.1f)",
         g_sms, res1 ? ", all resident" : ", NOT all resident", smem1, tG, tS, tD1, tR, Y, Y / 2,
         g_mma_tflops, g_ex2_gops, yf);
    emit("dep_o2", sm2 / sum, "ratio", sD2.mhz,
         "SM time a block-iteration at 2 blocks of 128 per SM (%d blocks%s; %zu B dynamic smem) = "
         "(wall ns an iteration of each block)/2 over t_G+t_S (both at 1 block/SM: %.2f + %.2f "
         "ns); the law max(G;S)+min(G;S)/2 predicts %.2f ns = %.3f; measured %.2f ns (wall %.2f "
         "ns an iteration a block); t_dep at 1 block/SM %.2f ns",
         2 * g_sms, res2 ? ", all resident" : ", NOT all resident", smem2, tG, tS, pred2, pred2 / sum,
         sm2, tD2, tD1);
    emit("dep_o1_nobar", tDn / sumn, "ratio", sDn.mhz,
         "dep_o1 without the __syncthreads (the 4 warps drift); t_dep/(t_G+t_S) with all three "
         "loops barrier-free; the law (G+S) predicts 1.000; ns an iteration: t_G %.2f t_S %.2f "
         "t_dep %.2f; over dep_o1's t_G+t_S (with the barrier): %.3f",
         tGn, tSn, tDn, tDn / sum);
}

/* cuBLAS GEMMs, the rate of a library GEMM (standard attention's S = Q K^T and O = P V):
 * cublas_bf16_gemm  C = A B, 8192^3, bf16 inputs and output, fp32 accumulation (cublasGemmEx)
 * cublas_sgemm      the same in fp32, CUBLAS_DEFAULT_MATH and CUBLAS_COMPUTE_32F (no TF32: PyTorch's default
 *                   torch.backends.cuda.matmul.allow_tf32 = False), the rate of PyTorch's math
 *                   path, which computes fp16/bf16 attention in fp32
 * cublas_sgemm_qk_d64, cublas_sgemm_pv_d64  diagnostics, not used by the model: batched fp32 GEMMs
 *                   of the math path's shapes at N = 4096, d = 64, 32 heads (S = Q K^T: 4096 x
 *                   4096 x 64; O = P V: 4096 x 64 x 4096) */
static void gemm_row(cublasHandle_t h, const char *name, cudaDataType_t ty, int m, int n, int k, int batch,
                     const char *what)
{
    const size_t es = ty == CUDA_R_32F ? 4 : 2;
    void *A, *B, *C;
    CK(cudaMalloc(&A, (size_t)m * k * batch * es));
    CK(cudaMalloc(&B, (size_t)k * n * batch * es));
    CK(cudaMalloc(&C, (size_t)m * n * batch * es));
    CK(cudaMemset(A, 0, (size_t)m * k * batch * es));
    CK(cudaMemset(B, 0, (size_t)k * n * batch * es));
    const float one = 1.f, zero = 0.f;
    bool ok = true;
    auto launch = [&](long long reps) {
        for (long long i = 0; i < reps && ok; i++)
            ok = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, ty, m,
                                            (long long)m * k, B, ty, k, (long long)k * n, &zero, C, ty, m,
                                            (long long)m * n, batch, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
    };
    const Stat s = measure(launch, 1);
    if (!ok) {
        fprintf(stderr, "ubench_pipes: %s: cuBLAS refused the GEMM\n", name);
        exit(1);
    }
    const double flops = 2.0 * m * n * (double)k * batch * (double)s.n;
    emit(name, flops / (s.ms * 1e-3) / 1e12, "TFLOP/s", s.mhz, "%s: m n k = %d %d %d x %d batches; %.3f ms a GEMM",
         what, m, n, k, batch, s.ms / (double)s.n);
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
}

static void t_cublas()
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "ubench_pipes: cublasCreate failed\n");
        exit(1);
    }
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH); /* TF32 only with CUBLAS_TF32_TENSOR_OP_MATH */
    gemm_row(h, "cublas_bf16_gemm", CUDA_R_16BF, 8192, 8192, 8192, 1, "bf16 in and out; fp32 accumulation");
    gemm_row(h, "cublas_sgemm", CUDA_R_32F, 8192, 8192, 8192, 1, "fp32; default math (no TF32)");
    gemm_row(h, "cublas_sgemm_qk_d64", CUDA_R_32F, 4096, 4096, 64, 32, "fp32 S = Q K^T shape (diagnostic)");
    gemm_row(h, "cublas_sgemm_pv_d64", CUDA_R_32F, 4096, 64, 4096, 32, "fp32 O = P V shape (diagnostic)");
    cublasDestroy(h);
}

/* ldsm_mma rows: SM clocks an iteration (16 mma.sync + 8 ldmatrix.x4 a warp) of each mode, each at its own
 * measured clock (the ldmatrix alone runs at a higher one); the value is
 * t_both / (t_mma + t_ldsm) (1: serial; max / sum: perfect overlap), the detail also gives
 * fasim's overlap law max + min / w with w = W / 4 warps a scheduler (docs/time-model.md section 5). */
template <int W, int MODE, int BPS> static double ldsm_mma_ns(double *mhz)
{
    const int threads = W * 32;
    const Stat s = measure(
        [&](long long n) { k_ldsm_mma<W, MODE, BPS><<<g_sms * BPS, threads>>>((int)n, 8192u, 0, g_sink, g_rec); }, 256);
    if (mhz) *mhz = s.mhz;
    return s.ms * 1e6 / (double)s.n;
}
template <int W, int BPS = 1> static void ldsm_mma_row(const char *name)
{
    double m0 = 0, m1 = 0, m2 = 0; /* each mode's clock: the ldmatrix alone runs faster (no tensor load) */
    const double n0 = ldsm_mma_ns<W, 0, BPS>(&m0), n1 = ldsm_mma_ns<W, 1, BPS>(&m1), n2 = ldsm_mma_ns<W, 2, BPS>(&m2);
    /* SM clocks an iteration of every resident block (BPS blocks share the SM) */
    const double t0 = n0 * m0 / 1e3, t1 = n1 * m1 / 1e3, t2 = n2 * m2 / 1e3;
    const double hi = std::max(t0, t1), lo = std::min(t0, t1), w = W * BPS / 4.0;
    emit(name, t2 / (t0 + t1), "ratio", m2,
         "t_both/(t_mma+t_ldsm) in SM clocks (perfect overlap: %.3f; fasim's law max + min/w, w = %g warps a scheduler: "
         "%.3f); %d warps/SM (%d block(s) of %d warps/SM; c = (t_both - max) / min = %.3f); an iteration = 8 ldmatrix.x4 + 16 mma.sync m16n8k16 a warp (512 B per "
         "8192 FLOP, kernels/ v3's ratio), next fragment prefetched; clocks an iteration: t_mma %.1f (%.2f ns at %.0f "
         "MHz) t_ldsm %.1f (%.2f ns at %.0f MHz) t_both %.1f (%.2f ns at %.0f MHz)",
         hi / (t0 + t1), w, (hi + lo / w) / (t0 + t1), W * BPS, BPS, W, (t2 - hi) / lo, t0, n0, m0, t1, n1, m1, t2, n2, m2);
}
static void t_ldsm_mma()
{
    ldsm_mma_row<4>("ldsm_mma_w4");
    ldsm_mma_row<8>("ldsm_mma_w8");
    ldsm_mma_row<16>("ldsm_mma_w16");
    ldsm_mma_row<4, 2>("ldsm_mma_w4x2"); /* two blocks of 4 warps an SM (kernels/ v3_mt2, FlashAttention-2) */
    ldsm_mma_row<8, 2>("ldsm_mma_w8x2"); /* two blocks of 8 warps an SM (kernels/ v3 at d = 64) */
}

/* ---------------- main ---------------- */

struct Test {
    const char *name;
    const char *rows; /* the rows it prints, comma-separated */
    void (*fn)();
};
static const Test TESTS[] = {
    {"mma_sync_bf16", "mma_sync_bf16,mma_sync_bf16_4warps,mma_sync_bf16_8warps", t_mma_sync},
    {"mma_sync_bf16_latency", "mma_sync_bf16_latency", t_mma_lat},
    {"wgmma_bf16", "wgmma_bf16", t_wgmma_bf16},
    {"wgmma_bf16_n128", "wgmma_bf16_n128", t_wgmma_n128},
    {"wgmma_fp8", "wgmma_fp8", t_wgmma_fp8},
    {"wgmma_latency", "wgmma_latency_k16,wgmma_latency_k64,wgmma_latency_k128", t_wgmma_lat},
    {"wgmma_forms", "wgmma_ss_n64,wgmma_ss_n128,wgmma_rs_n64,wgmma_rs_n128,wgmma_sstt_n64", t_wgmma_forms},
    {"wgmma_bwdstep", "wgmma_bwdstep_d128,wgmma_bwdstep_d128_nosync,wgmma_bwdstep_d64,wgmma_bwdstep_d64_nosync", t_wgmma_bwdstep},
    {"wgmma_duty", "wgmma_duty_0,wgmma_duty_32,wgmma_duty_64,wgmma_duty_128,wgmma_duty_256,wgmma_duty_512", t_wgmma_duty},
    {"ex2_f32", "ex2_f32,ex2_ftz_f32", t_ex2},
    {"fma_f32", "fma_f32,fadd_f32,fmax_f32", t_falu},
    {"pack", "ex2_f16x2,ex2_bf16x2,cvt_f16x2_f32,cvt_e4m3x2_f16x2,cvt_e4m3x2_f32,ex2_cvt_e4m3_mix", t_pack},
    {"smem_ldmatrix", "smem_ldmatrix", t_smem_ldsm},
    {"smem_ld128", "smem_ld128", t_smem_ld128},
    {"l2_read", "l2_read,l2_read_48MiB", t_l2},
    {"dram_read", "dram_read,dram_copy,dram_write", t_dram},
    {"dram_latency", "dram_latency", t_dram_lat},
    {"l2_latency", "l2_latency", t_l2_lat},
    {"stream_dep", "dram_stream_dep_w64,dram_stream_dep_w8,l2_stream_dep_w64,l2_stream_exp_w64,l1_stream_dep_w64,l1_stream_exp_w64", t_stream_dep},
    {"stream_ld", "l1_stream_dep_w64_c,l1_stream_dep_w64_ca,l1_stream_dep_w64_nc,l1_stream_dep_w64_c1k,l1_stream_dep_w8_c,l1_stream_exp_w64_c,dram_stream_dep_w64_c", t_stream_ld},
    {"smem_latency", "smem_latency", t_smem_lat},
    {"block_turnaround", "block_turnaround", t_block_turn},
    {"launch_overhead", "launch_overhead,launch_overhead_grid", t_launch},
    {"syncthreads", "syncthreads,syncthreads_256", t_sync},
    {"shfl_xor_latency", "shfl_xor_latency", t_shfl},
    {"mix", "mix_w1,mix_w2,mix_w4", t_mix},
    {"dep", "dep_o1,dep_o2,dep_o1_nobar", t_dep},
    {"ldsm_mma", "ldsm_mma_w4,ldsm_mma_w8,ldsm_mma_w16,ldsm_mma_w4x2,ldsm_mma_w8x2", t_ldsm_mma},
    {"cublas", "cublas_bf16_gemm,cublas_sgemm,cublas_sgemm_qk_d64,cublas_sgemm_pv_d64", t_cublas},
};
static const int NTESTS = (int)(sizeof TESTS / sizeof TESTS[0]);

static std::vector<std::string> split(const char *s)
{
    std::vector<std::string> v;
    std::string cur;
    for (const char *p = s;; p++) {
        if (*p == ',' || *p == 0) {
            if (!cur.empty()) v.push_back(cur);
            cur.clear();
            if (*p == 0) break;
        } else {
            cur += *p;
        }
    }
    return v;
}
static bool names_test(const Test &t, const std::string &name)
{
    if (name == t.name) return true;
    for (const std::string &r : split(t.rows))
        if (r == name) return true;
    return false;
}
static void usage(FILE *f)
{
    fprintf(f, "usage: ubench_pipes [--csv FILE] [--only NAME,NAME] [--list]\n"
               "  CSV (pipe,value,unit,clock_mhz,note) on stdout and in FILE; NAME: a test or a row\n");
}

int main(int argc, char **argv)
{
    const char *csv_path = nullptr;
    std::vector<std::string> only;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = split(argv[++i]);
        else if (!strcmp(argv[i], "--list")) {
            for (int k = 0; k < NTESTS; k++) printf("%-24s rows: %s\n", TESTS[k].name, TESTS[k].rows);
            return 0;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    for (const std::string &name : only) {
        bool known = false;
        for (int k = 0; k < NTESTS; k++) known = known || names_test(TESTS[k], name);
        if (!known) {
            fprintf(stderr, "ubench_pipes: unknown test or row '%s' (--list)\n", name.c_str());
            return 2;
        }
    }

    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&g_prop, 0));
    g_sms = g_prop.multiProcessorCount;
    int clk_khz = 0, mclk_khz = 0;
    CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&mclk_khz, cudaDevAttrMemoryClockRate, 0));
    fprintf(stderr,
            "ubench_pipes: %s, sm_%d%d, %d SMs, SM clock %.0f MHz (peak, cudaDevAttrClockRate), memory "
            "clock %.0f MHz, %d-bit bus, L2 %d KiB, shared memory %zu KiB/SM (%zu KiB/block opt-in), "
            "%d registers/SM, %zu MiB global memory\n",
            g_prop.name, g_prop.major, g_prop.minor, g_sms, clk_khz / 1e3, mclk_khz / 1e3,
            g_prop.memoryBusWidth, g_prop.l2CacheSize >> 10, g_prop.sharedMemPerMultiprocessor >> 10,
            g_prop.sharedMemPerBlockOptin >> 10, g_prop.regsPerMultiprocessor, g_prop.totalGlobalMem >> 20);
    if (g_prop.major != 9 || g_prop.minor != 0) {
        fprintf(stderr, "ubench_pipes: built for sm_90a only (H100/H200); this is sm_%d%d\n", g_prop.major,
                g_prop.minor);
        return 1;
    }
    if (csv_path) {
        g_csv = fopen(csv_path, "w");
        if (!g_csv) {
            perror(csv_path);
            return 1;
        }
    }
    const size_t sink_n = (size_t)g_sms * g_prop.maxThreadsPerMultiProcessor;
    CK(cudaMalloc(&g_sink, sink_n * sizeof(float)));
    CK(cudaMalloc(&g_rec, sizeof(ClkRec)));
    CK(cudaEventCreate(&g_ev0));
    CK(cudaEventCreate(&g_ev1));

    printf("pipe,value,unit,clock_mhz,note\n");
    if (g_csv) fprintf(g_csv, "pipe,value,unit,clock_mhz,note\n");
    struct timespec ta, tb;
    clock_gettime(CLOCK_MONOTONIC, &ta);
    for (int k = 0; k < NTESTS; k++) {
        bool sel = only.empty();
        for (const std::string &name : only) sel = sel || names_test(TESTS[k], name);
        if (!sel) continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        TESTS[k].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        fprintf(stderr, "ubench_pipes: %-22s %.2f s\n", TESTS[k].name,
                (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
    }
    clock_gettime(CLOCK_MONOTONIC, &tb);
    fprintf(stderr, "ubench_pipes: total %.1f s\n", (tb.tv_sec - ta.tv_sec) + 1e-9 * (tb.tv_nsec - ta.tv_nsec));

    CK(cudaEventDestroy(g_ev0));
    CK(cudaEventDestroy(g_ev1));
    CK(cudaFree(g_rec));
    CK(cudaFree(g_sink));
    if (g_csv) fclose(g_csv);
    return 0;
}
