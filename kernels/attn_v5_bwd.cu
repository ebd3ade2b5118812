/* attn_v5_bwd.cu -- version 5 backward: the FlashAttention-3 backward's structure on Hopper
 * (sm_90a): TMA loads of Q_i, dO_i into an mbarrier ring by a producer warpgroup, two consumer
 * warpgroups that compute S, P, dP, dS and accumulate dK_j, dV_j with wgmma, dQ_i by a wgmma of its
 * own, added to an fp32 accumulator by the TMA's reduce-add (or, deterministic, in a fixed order of
 * key blocks).
 *
 * What changed from the v3 backward (attn_v3_bwd_tc.cu; FlashAttention-3 paper, Shah et al.
 * 2024, arXiv 2407.08608, section 3.1 and Appendix B.1; FlashAttention-2 Alg. 2 for the math):
 *   - GEMMs: v3's 8 warps each ran mma.sync m16n8k16 on fragments it loaded with ldmatrix.  Here
 *     every GEMM is a warpgroup's wgmma.mma_async m64nNk16 reading its operands from shared
 *     memory (and P^T, dS^T from registers for dV and dK): the tensor cores' Hopper rate;
 *   - loads: v3's 256 threads copied 16-byte pieces with cp.async and met at two
 *     __syncthreads a step.  Here one producer thread issues cp.async.bulk.tensor copies of
 *     K_j, V_j once and of Q_i, dO_i into a ring of two stages that complete on mbarriers; the
 *     consumers release a stage when their last wgmma reading it is done.  LSE_i, D_i (B_r floats
 *     each) reach every consumer warp's own shared copy by cp.async one step ahead; the only
 *     barrier left in a step is the one between the two consumers' dS^T halves and the dQ GEMM
 *     that reads both;
 *   - dQ: v3 added each thread's dQ accumulators to global memory with fp32 atomics.  Here the
 *     consumers store the dQ tile into shared memory and one producer warp adds it to the fp32
 *     accumulator with one cp.reduce.async.bulk (the TMA's reduce-add) a step, as FlashAttention-3;
 *   - registers: the producer gives its registers away (setmaxnreg 40) and the consumers take
 *     232 each: dK_j and dV_j (64 keys x d fp32 each) stay in registers for the whole block;
 *     they leave through shared memory by TMA stores.
 * Structure, per thread block = one K/V block j of B_c = 128 keys and kv head (a grid of
 * T_c H_kv B units, the key block fastest: the outer loop of Alg. 2, line 5), consumer warpgroup w owning keys 64 w .. 64 w + 63, for
 * every Q block i that sees the keys (causal: from the diagonal on) and, for GQA, every query
 * head of the group (dK, dV summed over the group without atomics):
 *   S^T = K_j Q_i^T,  P^T = exp2(S^T scale log2 e - LSE_i log2 e)      lines 9-11  (SS wgmma)
 *   dP^T = V_j dO_i^T                                                   line 13     (SS)
 *   dS^T = P^T o (dP^T - D_i)                                           line 14
 *   dV_j += P^T dO_i,  dK_j += dS^T Q_i                                 lines 12, 16 (RS: P^T,
 *                                                                       dS^T from registers)
 *   dS^T -> shared memory (bf16); dQ_i += dS K_j                        line 15 (SS, both
 *                                                                       operands MN-major)
 * as FlashAttention-3 tiles it (hopper/flash_bwd_launch_template.h): d = 128 B_r 64 queries a
 * step, S^T computed with the keys as rows (SdP_swapAB), dQ split over the two warpgroups by
 * columns; d = 64 B_r 128, dQ split by rows.  The pre-pass writes D_i = rowsum(dO_i o O_i),
 * LSE_i log2 e (+inf for rows past N_q and rows without a key, so their P is 0) padded to a
 * multiple of 128 rows, and zeroes the fp32 dQ accumulator (padded too: no bounds test in the
 * atomics); the post-pass scales it and rounds to bf16/fp16.
 * Deterministic mode: before adding its dQ_i, the block of key block j waits until the key
 * blocks before it have added theirs (a counter per (batch, head, Q block) that the block raises
 * after its adds): the fp32 sums are formed in one order, so dQ is bitwise repeatable.  The
 * order is 0, 1, ... without a causal mask; with one it is last to first (and the grid launches
 * the key blocks last to first), because key block j first sees Q block ~2j: in ascending order
 * block j would wait for block 0 to reach it, and the blocks would run one after another
 * (measured 0.49-0.58x of v5_bwd).  A block waits only on blocks the grid launched before it.
 * Without a mask the ascending order made key block j's first add wait for j - 1, .., 0 to add
 * Q block 0 in turn (0.83-0.99x); rotated (tenth session, where T_c <= T_r and T_c <= the SMs),
 * key block j walks the Q blocks from j on and each Q block takes the key blocks in the order in
 * which their walks reach it (dq_order), so in step the blocks of a head never wait; a block may
 * then wait on one launched after it of its own head, so all T_c of them must fit on the device at
 * once (T_c <= SMs; else the ascending order).  Measured (s10_det_ratios.txt): det/fast 0.973-0.994
 * at d = 64 and 0.945-0.992 at d = 128 without a mask (0.829-0.991, 0.887-0.979 ascending).
 * Measured on the H200 (analysis/measured/h200/v5_bwd_sweep.csv, SDPA in the same call): 0.99-1.16x
 * SDPA cuDNN's backward at d = 64, 0.95-1.13x at d = 128; 1.57-1.95x FlashAttention-2; 1.7-2.0x the v3
 * backward; the deterministic mode 0.85-1.03x of it.  Nsight Compute at N = 4096 (v5_bwd_ncu.csv):
 * DRAM and L2 reduce traffic equal to cuDNN's, the tensor pipe active 54 % against cuDNN's 66 % at
 * d = 128 (docs/results.md, "v5 backward").  Ninth session (s9_bwd_sweep128.csv, s9_bwd_sweep64.csv,
 * s9_bwd_sdpa.csv, one call): d = 128 1.065, 0.970, 1.022, 0.957x cuDNN at N = 2k, 4k, 8k, 16k without a
 * mask, 1.139, 1.017, 0.989, 1.027x with one; d = 64 0.99-1.05x, 1.06-1.20x.
 * Step schedules (CFG & V5B_SCHED; 0, the one above, is the default): 1 issues dV_w = P^T dO right
 * after the exponentials, under dP^T's tail and the dS^T arithmetic, and dK_w behind dQ_i so it runs
 * while dQ_i goes to shared memory; 2 also issues the next step's S^T behind dK_w (the loop entered
 * with S^T alone in flight on every path: ptxas serializes the wgmmas otherwise, C7515).  Both need
 * more registers while dV_w is in flight (S^T, dP^T, P^T, dK_w, dV_w: 208): at 232 ptxas serializes
 * them (C7512), so they run with 240 (V5B_REGS240, the producer at 24 spills 108 bytes) or with dS^T
 * formed from the rounded P^T (V5B_PBF: 8-16x the max error against v3_bwd_det with a mask).
 * Measured in the same call, every one is slower than schedule 0: 0.86-0.92x its time at d = 128,
 * 0.90-0.93x at d = 64 (v5_bwd_s1r, s1p, s2pr); serialized by ptxas 0.75-0.84x.  Moving GEMMs
 * does not shorten the step: its instructions and its tensor time add up (s9_issue.csv).
 * V5B_DINC (operand descriptors advanced from one per operand and step) and V5B_NODIV (no integer
 * division per step without GQA) cut issued instructions (v5_bwd_dinc, v5_bwd_lean): measured in a
 * later call (s9_bwd_lean_*.csv, SDPA in the same call) v5_bwd_lean is 1.126, 0.992, 1.008, 0.988x cuDNN
 * at d = 128 without a mask (N = 2k..16k; v5_bwd 1.097, 0.965, 0.975, 0.962 in that call), 1.023-1.074x
 * with one, 1.016-1.084x and 1.062-1.226x at d = 64: 2-4 % faster than schedule 0, 20 % fewer warp
 * instructions at d = 128 (0.764 against 0.955 a score, s9_issue.csv); its deterministic mode 0.89-0.98x
 * of it.
 * Tenth session: the default (CFG V5B_CUTS; v5_bwd, v5_bwd_det, _atomic, _pers; every measurement of
 * v5_bwd from s10_bwd_* on is of it) is v5_bwd_lean plus three cuts that leave every value as it was:
 * the causal / N_k mask only on the tiles that cross it, as a pass after the exponentials (V5B_EDGE:
 * inline, ptxas had made it 5 predicate ops and a select on every score of every tile), dS^T to shared
 * memory by stmatrix (V5B_STSM: 4 instructions a step at d = 128 in place of 16 stores and their
 * swizzled addresses) and LSE_i, D_i's rows and copies advanced instead of recomputed (V5B_RING).
 * Nsight Compute (s10_issue.csv, B 4, N 4096): 0.550 warp instructions a score at d = 128, 0.347 at
 * d = 64 (v5_bwd_lean 0.764, 0.531; schedule 0 0.955, 0.616), the ALU pipe's count halved (149 M against
 * 317 M); issue slots 26 % busy (36 %).  Measured in one call with SDPA (s10_bwd_*.csv): 1.00-1.05x
 * v5_bwd_lean's speed at d = 128, 1.02-1.07x at d = 64; cuDNN ms / v5_bwd ms 1.070, 1.055, 0.969, 0.999
 * at d = 128 without a mask (N = 2k..16k), 1.215, 1.072, 1.077, 0.990 with one; d = 64 1.070-1.173 and
 * 1.126-1.228; the deterministic mode 0.83-0.99x of it.
 * Eleventh session (two device calls, SDPA in each; analysis/measured/h200/s11_bwd_c1_*, s11_bwd_c2_*):
 * Nsight Compute at d = 128, N = 8192, B 2, H 16, no mask (s11_bwd_c1_ncu.tgz): the main kernel 4.75 ms
 * against cuDNN's 4.63, tensor pipe 59.6 % against 64.1 % of the elapsed cycles (so 2.83 ms of tensor time
 * against cuDNN's 2.96: the gap is idle tensor cycles); stalls per issued instruction barrier 2.01, long
 * scoreboard 1.88, wait 1.60, MIO throttle 1.12 (cuDNN 1.53, 1.61, 0.94, 0.07); L2 reduce sectors equal
 * (402.7 M both).  Tried, each behind its CFG bit and measured against the old default in the same call:
 * V5B_QROT (the fast mode's rotated Q walk without a mask: the key blocks of a head no longer load and
 * reduce-add the same Q block at once) gained nothing: 0.99-1.015x the old default's speed at d = 128 without a
 * mask, 0.98-1.00x at d = 64 (under ncu 4.80 ms, the same stalls and L2 reduce sectors); V5B_DQK (dQ split
 * by keys, no cross-consumer barrier a step, twice the reduce-add traffic) was slower: 0.87-0.95x the old
 * default (0.88-1.08x cuDNN), its deterministic mode 0.56-0.87x cuDNN; V5B_LDTMA | V5B_DQ2 is 1.00-1.02x
 * the old default at d = 128 in 14 of 16 readings (two calls; the others 0.996 at 8k without a mask and
 * 0.945 at 16k causal, in a call where V5B_QROT, the same code with a mask, read 0.961), at d = 64
 * (V5B_LDTMA alone) 0.995-1.007x: the new default at d = 128 only (V5B_CFG128), V5B_CUTS stays measurable as
 * v5_bwd_cuts.  Second call (the default's code): cuDNN ms / ms 1.199, 1.041, 1.007, 1.006 at d = 128 without
 * a mask (N = 2k..16k; V5B_CUTS 1.178, 1.019, 1.011, 1.000), 1.147, 1.133, 1.106, 1.078 with one (1.131,
 * 1.117, 1.084, 1.058); its deterministic mode 0.949-1.000x of it without a mask, 0.870-0.969x with one
 * (first call, the same CFG with lane-0 releases: 0.960-0.986x); d = 64 (V5B_CUTS) 1.072-1.222x, 1.104-1.284x.
 * The margin asked for (a few per cent at N >= 4k without a mask) is not there: 8k and 16k read 1.006-1.015x.
 * Needs sm_90a (H100/H200): other devices get cudaErrorInvalidDeviceFunction. */
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "fa_kernels.h"
#include "hopper.cuh"
#include "tc_common.cuh"
#include "wgmma.cuh"

enum { V5B_BC = 128, V5B_STAGES = 2, V5B_PAD = 128 };
/* fa_v5_bwd_kernel's CFG: the consumers' step schedule (V5B_SCHED bits: 0, 1, 2; the header
 * comment), 240 consumer registers (V5B_REGS240), dS^T from the rounded P^T (V5B_PBF), operand
 * descriptors advanced from one per operand and step (V5B_DINC), no integer division per step
 * without GQA (V5B_NODIV); the default by head dim */
enum { V5B_SCHED = 3, V5B_REGS240 = 4, V5B_PBF = 8, V5B_DINC = 16, V5B_NODIV = 32, V5B_EDGE = 64, V5B_STSM = 128, V5B_RING = 256,
       V5B_QROT = 512, V5B_LDTMA = 1024, V5B_DQ2 = 2048, V5B_DQK = 4096 };
/* V5B_QROT (eleventh session): the fast (not deterministic) mode without a causal mask walks key block
 * kb's Q blocks from kb % T_r on, as the deterministic mode's rotated order: the T_c units of a head then
 * load and reduce-add into T_c different Q blocks at a step instead of all into the same one (a causal
 * mask spreads them already: key block kb starts at its diagonal).  The sums are formed in another order
 * (not deterministic either way).
 * V5B_LDTMA: LSE_i log2 e and D_i (B_r floats each) come with Q_i, dO_i: the producer's bulk copies into
 * the stage, completing on its mbarrier, one copy a stage for all consumer warps (not three a warp by
 * cp.async from every consumer warp): 1-2 KB of shared memory in place of 12-24 KB.
 * V5B_DQ2 (d = 128 only, needs V5B_LDTMA for the shared memory): two dQ tiles in turn, so the
 * consumers write step i's while the dQ warp's reduce-add (in deterministic mode, its wait for the
 * key blocks before it too) still reads step i - 1's; they wait only for step i - 2's.
 * V5B_DQK (d = 128 only, needs V5B_LDTMA, not with V5B_DQ2): dQ_i split over the two consumers by keys
 * (each warpgroup dQ_i's 64 x 128 partial over its own 64 keys, two n64 halves, 64 accumulators) in
 * place of by columns (64 x 64 over all 128 keys): a warpgroup's dQ GEMM reads only its own half of dS^T,
 * so the two consumers no longer meet at a barrier every step (one of 128 threads each); each has its
 * own dQ tile and producer warp (warps 2 and 3) adding it by the reduce-add: twice the reduce traffic.
 * With V5B_LDTMA every consumer thread arrives on the stage's empty barrier (256, not 8 warps' lane 0
 * after __syncwarp: the order compute-sanitizer's racecheck follows for the generic reads of LSE, D). */
/* CUTS: the issue cuts on schedule 0 (V5B_DINC, V5B_NODIV; V5B_EDGE: the mask only on the tiles
 * that cross the causal diagonal or N_k, after the exponentials; V5B_STSM: dS^T to shared memory by
 * stmatrix, four 8 x 8 tiles an instruction; V5B_RING: LSE_i, D_i's copies and rows advanced, no
 * i % 3).  Every one leaves the arithmetic as it was: the same bits as CFG 0. */
enum { V5B_CUTS = V5B_DINC | V5B_NODIV | V5B_EDGE | V5B_STSM | V5B_RING };
/* the default: d = 64 V5B_CUTS; d = 128 (eleventh session) V5B_CUTS | V5B_LDTMA | V5B_DQ2 (the header
 * comment; V5B_CUTS alone stays measurable as v5_bwd_cuts) */
enum { V5B_CFG64 = V5B_CUTS, V5B_CFG128 = V5B_CUTS | V5B_LDTMA | V5B_DQ2 };

struct V5BMaps {
    CUtensorMap q, dO;  /* (d, N_q, B x H), boxes (64, B_r, 1) */
    CUtensorMap k, v;   /* (d, N_k, B x H_kv), boxes (64, B_c, 1) */
    CUtensorMap dk, dv; /* (d, N_k, B x H_kv), boxes (64, 64, 1): a consumer warpgroup's keys of a slab */
};

/* waits until every committed bulk group but the newest has read its shared memory */
__device__ __forceinline__ void bulk_wait_read1() { asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory"); }

/* rows of the padded per-row arrays (LSE log2 e, D) and of the fp32 dQ accumulator */
static inline __host__ __device__ long long v5b_rows_pad(int N_q) { return ((long long)N_q + V5B_PAD - 1) / V5B_PAD * V5B_PAD; }

/* Pre-pass (Alg. 2 line 4): per padded row r of head bh, D = rowsum(dO o O) and lse2 = LSE
 * log2 e (rows past N_q, and rows whose LSE is -inf: D = 0, lse2 = +inf); zeroes the row of
 * dQacc.  D / 8 threads a row, one 16-byte load of O and dO each. */
template <int D, typename T>
__global__ void fa_v5_bwd_pre_kernel(const T *__restrict__ O, const T *__restrict__ dO, const float *__restrict__ LSE,
                                     float *__restrict__ Dpad, float *__restrict__ lse2, float *__restrict__ dQacc,
                                     long long BH, int N_q, int Npad)
{
    constexpr int TPR = D / 8;
    const long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / TPR;
    const int c = (threadIdx.x % TPR) * 8;
    const long long bh = r / Npad;
    const int q = (int)(r % Npad);
    const bool live = r < BH * Npad && q < N_q;
    float acc = 0.f;
    if (live) {
        const long long src = (bh * N_q + q) * D + c;
        const uint4 a = *reinterpret_cast<const uint4 *>(O + src);
        const uint4 b = *reinterpret_cast<const uint4 *>(dO + src);
        const T *pa = reinterpret_cast<const T *>(&a), *pb = reinterpret_cast<const T *>(&b);
#pragma unroll
        for (int e = 0; e < 8; e++) acc += (float)pa[e] * (float)pb[e];
    }
    if (r < BH * Npad) {
        float4 *z = reinterpret_cast<float4 *>(dQacc + r * D + c);
        z[0] = make_float4(0.f, 0.f, 0.f, 0.f);
        z[1] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int o = TPR / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (r < BH * Npad && c == 0) {
        const float L = live ? LSE[bh * N_q + q] : -INFINITY;
        Dpad[r] = acc;
        lse2[r] = L == -INFINITY ? INFINITY : L * 1.44269504088896341f;
    }
}

/* Post-pass: dQ = dQacc scale rounded to T, rows < N_q of each head (8 values a thread). */
template <int D, typename T>
__global__ void fa_v5_bwd_post_kernel(const float *__restrict__ dQacc, T *__restrict__ dQ, long long BH, int N_q,
                                      int Npad, float scale)
{
    const long long n = BH * N_q * D;
    for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * 8; i < n;
         i += (long long)gridDim.x * blockDim.x * 8) {
        const long long row = i / D, bh = row / N_q, q = row % N_q;
        const float *src = dQacc + (bh * Npad + q) * D + i % D;
        const float4 x = *reinterpret_cast<const float4 *>(src);
        const float4 y = *reinterpret_cast<const float4 *>(src + 4);
        uint4 w;
        w.x = pack2<T>(x.x * scale, x.y * scale);
        w.y = pack2<T>(x.z * scale, x.w * scale);
        w.z = pack2<T>(y.x * scale, y.y * scale);
        w.w = pack2<T>(y.z * scale, y.w * scale);
        *reinterpret_cast<uint4 *>(dQ + i) = w;
    }
}

/* Post-pass of the TMA reduce-add path: dQacc holds each (head, Q block) tile of B_r x d in the
 * consumers' accumulator order (dq_tile_index); dQ = dQacc scale rounded to T, 8 columns a
 * thread. */
template <int D, int BR>
__device__ __forceinline__ int dq_tile_index(int rr, int c)
{ /* (row rr < B_r, column c < d) of a tile -> its float in the tile as the consumers store it:
   * warpgroup w's 64 x 64 part, then per n8 block j a float4 per thread (rows g, g + 8 of warp
   * rr / 16 at components 0-1 and 2-3) */
    const int w = D == 128 ? c / 64 : rr / 64, r = rr % 64, cc = c % 64;
    const int tid = (r / 16) * 32 + (r % 8) * 4 + (cc % 8) / 2;
    return ((w * 8 + cc / 8) * 128 + tid) * 4 + ((r % 16) / 8) * 2 + (cc % 2);
}
template <int D, int BR, typename T>
__global__ void fa_v5_bwd_post_tiles_kernel(const float *__restrict__ dQacc, T *__restrict__ dQ, long long BH, int N_q,
                                            int Npad, float scale)
{
    const long long n = BH * N_q * D;
    for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * 8; i < n;
         i += (long long)gridDim.x * blockDim.x * 8) {
        const long long row = i / D, bh = row / N_q;
        const int q = (int)(row % N_q), c = (int)(i % D);
        const float *tile = dQacc + (bh * Npad + (long long)(q / BR) * BR) * D;
        float v[8];
#pragma unroll
        for (int t = 0; t < 4; t++) { /* columns c + 2t, c + 2t + 1: one float2 */
            const float2 x = *reinterpret_cast<const float2 *>(tile + dq_tile_index<D, BR>(q % BR, c + 2 * t));
            v[2 * t] = x.x * scale;
            v[2 * t + 1] = x.y * scale;
        }
        uint4 w;
        w.x = pack2<T>(v[0], v[1]);
        w.y = pack2<T>(v[2], v[3]);
        w.z = pack2<T>(v[4], v[5]);
        w.w = pack2<T>(v[6], v[7]);
        *reinterpret_cast<uint4 *>(dQ + i) = w;
    }
}

/* Registers after setmaxnreg: 384 threads get 168 each at launch (a pool of 64512);
 * 128 x 40 + 256 x 232 = 64512 fits. */
struct V5BRegs {
    static constexpr int producer = 40, consumer = 232;
    static_assert(128 * producer + 256 * consumer <= 384 * 168, "setmaxnreg split above the block's pool");
};
struct V5BRegsBig { /* experiment: the producer at 24 (FlashAttention-3's split) */
    static constexpr int producer = 24, consumer = 240;
    static_assert(128 * producer + 256 * consumer <= 384 * 168, "setmaxnreg split above the block's pool");
};

/* The place of key block kb among the key blocks that add to Q block qi (deterministic mode):
 * ascending, kb itself; descending (causal), the number of later key blocks that see Q block qi;
 * rotated (rot: without a causal mask, T_c <= T_r, key block kb walks the Q blocks from kb on,
 * kb, kb + 1, .., T_r - 1, 0, .., kb - 1), the number of key blocks that reach Q block qi at an
 * earlier step of their walk, (qi - kb') mod T_r < (qi - kb) mod T_r: the key blocks kb + 1 ..
 * min(qi, T_c - 1) when kb <= qi, else 0 .. qi and kb + 1 .. T_c - 1.  A function of (kb, qi)
 * only, so the adds to a Q block keep one order whatever the timing or the grid. */
__device__ __forceinline__ int dq_order(const fa_gpu_shape &sh, bool desc, bool rot, int kb, int qi, int BR, int BC,
                                        int T_c)
{
    if (rot) return kb <= qi ? min(qi, T_c - 1) - kb : qi + T_c - kb;
    if (!desc) return kb;
    const int last = min((qi + 1) * BR, sh.N_q) - 1 + (sh.N_k - sh.N_q); /* the Q block's last allowed key */
    return min(T_c - 1, last / BC) - kb;
}

/* Q blocks (of BR rows) that see key block j (keys c0 .. c0 + BC - 1): from i_lo on */
__device__ __forceinline__ int bwd_first_q_block(const fa_gpu_shape &sh, int c0, int BR)
{
    if (!sh.causal) return 0;
    const int T_r = (sh.N_q + BR - 1) / BR;
    const long long rmin = (long long)c0 - (sh.N_k - sh.N_q); /* the first query row that sees key c0 */
    return rmin <= 0 ? 0 : (int)min((long long)T_r, rmin / BR);
}

/* wgmma descriptor of an operand off bytes past the one of d (wg_desc): the start-address field
 * (bits 0-13, address >> 4) advanced in the low word; shared addresses stay below 2^18, so it
 * never carries, and wg_desc(a + off, ...) == wg_desc_adv(wg_desc(a, ...), off) bit for bit */
__device__ __forceinline__ uint64_t wg_desc_adv(uint64_t d, uint32_t off)
{
    return (d & 0xFFFFFFFF00000000ull) | (uint32_t)((uint32_t)d + (off >> 4));
}

/* step i of a unit -> (its Q block past the unit's first, i % nq; its query head in the group,
 * i / nq); NODIV: without GQA (group 1) every step is its own Q block, no integer division */
template <bool NODIV> __device__ __forceinline__ int2 unit_step(int i, int nq, int group)
{
    if (NODIV && group == 1) return make_int2(i, 0);
    return make_int2(i % nq, i / nq);
}

/* half h (0: low) of a packed pair of T as a float */
template <typename T> __device__ __forceinline__ float unpack_half(uint32_t x, int h);
template <> __device__ __forceinline__ float unpack_half<__nv_bfloat16>(uint32_t x, int h)
{
    return __uint_as_float(h ? x & 0xffff0000u : x << 16);
}
template <> __device__ __forceinline__ float unpack_half<__half>(uint32_t x, int h)
{
    return __half2float(__ushort_as_half((unsigned short)(h ? x >> 16 : x & 0xffffu)));
}

/* named barriers: 1 both consumers (dS^T written), 2 dQ tile written (consumers -> the dQ
 * warp), 3 dQ tile read (the dQ warp -> consumers) */
enum { V5B_BAR_DS = 1, V5B_BAR_DQ_FULL = 2, V5B_BAR_DQ_EMPTY = 3 }; /* V5B_DQ2's second tile: 6, 7 (4, 5: the
                                                                     * consumers' dK, dV stores) */

/* RED: dQ_i leaves through a shared tile that one producer warp adds to the fp32 accumulator
 * with the TMA's reduce-add (as FlashAttention-3); else every consumer thread adds its
 * accumulators with fp32 atomics. */
template <int D, int BR, bool DET, bool RED, int CFG, typename T>
__global__ void __launch_bounds__(384, 1)
    fa_v5_bwd_kernel(const __grid_constant__ V5BMaps maps, const float *__restrict__ lse2, const float *__restrict__ Dpad,
                     float *__restrict__ dQacc, int *__restrict__ sem, T *__restrict__ dK, T *__restrict__ dV,
                     fa_gpu_shape sh, float scale_log2, int rot_on)
{
#if FA_HAVE_WGMMA
    constexpr int BC = V5B_BC, S = V5B_STAGES, SCH = CFG & V5B_SCHED;
    using Regs = typename std::conditional<(CFG & V5B_REGS240) != 0, V5BRegsBig, V5BRegs>::type;
    constexpr bool PBF = (CFG & V5B_PBF) != 0 && SCH >= 1; /* dS^T from the rounded P^T (pa), s dies early */
    constexpr bool DINC = (CFG & V5B_DINC) != 0, NODIV = (CFG & V5B_NODIV) != 0;
    constexpr bool EDGE = (CFG & V5B_EDGE) != 0, STSM = (CFG & V5B_STSM) != 0, RING = (CFG & V5B_RING) != 0;
    /* the operand descriptor of shared address base + off (SW128, stride 1024 bytes) */
    auto opd = [](uint32_t base, uint32_t off, uint32_t lbo) -> uint64_t {
        return DINC ? wg_desc_adv(wg_desc(base, lbo, 1024), off) : wg_desc(base + off, lbo, 1024);
    };
    constexpr int NB = BR / 8, DB = D / 8, SLABS = D / 64;
    static_assert(RED || !DET, "the ordered dQ is the reduce-add path's");
    constexpr uint32_t QT_BYTES = BR * D * 2, KV_BYTES = BC * D * 2;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    unsigned char *base = smem_raw + ((1024u - (smem_u32(smem_raw) & 1023u)) & 1023u);
    T *Ks = reinterpret_cast<T *>(base);
    T *Vs = Ks + BC * D;
    T *Qs = Vs + BC * D;      /* S stages */
    T *dOs = Qs + S * BR * D; /* S stages */
    T *dSs = dOs + S * BR * D; /* 2 buffers of (B_c keys, B_r queries), sw128 */
    float *dQs = reinterpret_cast<float *>(dSs + 2 * BC * BR); /* B_r x d fp32 (dq_tile_index) */
    constexpr bool LDTMA = (CFG & V5B_LDTMA) != 0, DQ2 = (CFG & V5B_DQ2) != 0 && LDTMA && D == 128 && RED;
    constexpr bool DQK = (CFG & V5B_DQK) != 0 && LDTMA && !DQ2 && D == 128 && RED;
    constexpr int NDQ = DQ2 || DQK ? 2 : 1, LDN = LDTMA ? S * BR : 24 * BR;
    float *Ls = dQs + NDQ * BR * D; /* LSE_i log2 e, D_i: three copies per consumer warp (LDTMA: one a stage) */
    float *Ds = Ls + LDN;
    uint64_t *bar = reinterpret_cast<uint64_t *>(Ds + LDN);
    uint64_t *fullKV = bar, *emptyKV = bar + 1, *fullQ = bar + 2, *emptyQ = fullQ + S;

    /* work units u = (batch, kv head, key block), the key block fastest; a block takes units
     * blockIdx.x, + gridDim.x, ... (one each when the grid has one block per unit).
     * Deterministic and causal: the key blocks run last to first and each Q block's dQ is added
     * in that order (dq_order), so no unit waits for one that starts later.
     * Deterministic, no causal mask and rot_on (the launcher's: T_c <= T_r and every unit of a
     * (batch, kv head) can be resident at once): unit kb starts at Q block kb (rotated, dq_order),
     * so at step t the T_c units of a head add to T_c different Q blocks and none waits on the
     * start-up chain kb - 1, .., 0 of the ascending order; a unit may then wait on a later unit of
     * its head (one that reaches the Q block at an earlier step), hence the residency condition. */
    const bool desc = DET && sh.causal, rot = DET && rot_on != 0 && !sh.causal;
    const int T_c = (sh.N_k + BC - 1) / BC, units = T_c * sh.H_kv * sh.B;
    const int group = sh.H / sh.H_kv, T_r = (sh.N_q + BR - 1) / BR;
    const int Npad = (int)v5b_rows_pad(sh.N_q);
    const int wg = threadIdx.x / 128;
    struct Unit {
        int b, hk, kb, c0, i_lo, nq, n_it, r0; /* r0: the walk's first Q block past i_lo (rot) */
    };
    /* the Q block of a unit's step with Q block index qx past the first (unit_step's x) */
    constexpr bool QROT = (CFG & V5B_QROT) != 0 && !DET;
    auto qblock = [&](const Unit &x, int qx) {
        if (!DET && !QROT) return x.i_lo + qx;
        const int q = qx + x.r0;
        return x.i_lo + (q >= x.nq ? q - x.nq : q);
    };
    auto unit = [&](int u) {
        Unit x;
        const int k = u % T_c, bhk = u / T_c;
        x.kb = desc ? T_c - 1 - k : k;
        x.hk = bhk % sh.H_kv, x.b = bhk / sh.H_kv, x.c0 = x.kb * BC;
        x.i_lo = bwd_first_q_block(sh, x.c0, BR), x.nq = T_r - x.i_lo, x.n_it = x.nq * group;
        x.r0 = rot ? x.kb : (QROT && !sh.causal && x.nq > 0 ? x.kb % x.nq : 0);
        return x;
    };

    if (threadIdx.x == 0) {
        mbar_init(fullKV, 1);
        mbar_init(emptyKV, 8); /* one arrive per consumer warp */
        for (int s = 0; s < S; s++) {
            mbar_init(&fullQ[s], 1); /* the TMA thread's expect_tx */
            mbar_init(&emptyQ[s], LDTMA ? 256 : 8); /* LDTMA: every consumer thread */
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) { /* ---- producer warpgroup: warp 0 the TMA loads, warp 2 the dQ adds ---- */
        reg_dealloc<Regs::producer>();
        const int pw = threadIdx.x / 32, lane = threadIdx.x % 32;
        int ig = 0, ku = 0; /* steps (the ring's phases) and units of this block so far */
        for (int u = blockIdx.x; u < units; u += gridDim.x) {
            const Unit x = unit(u);
            if (x.n_it == 0) continue;
            if (threadIdx.x == 0) {
                mbar_wait(emptyKV, (ku & 1) ^ 1); /* the consumers are done with the last unit's K, V */
                mbar_expect_tx(fullKV, 2 * KV_BYTES);
#pragma unroll
                for (int sl = 0; sl < SLABS; sl++) {
                    tma_load3(Ks + sl * BC * 64, &maps.k, fullKV, sl * 64, x.c0, x.b * sh.H_kv + x.hk);
                    tma_load3(Vs + sl * BC * 64, &maps.v, fullKV, sl * 64, x.c0, x.b * sh.H_kv + x.hk);
                }
                for (int it = 0; it < x.n_it; it++) {
                    const int s = (ig + it) % S;
                    const int2 qh = unit_step<NODIV>(it, x.nq, group);
                    const int hq = x.hk * group + qh.y, r0 = qblock(x, qh.x) * BR;
                    mbar_wait(&emptyQ[s], (((ig + it) / S) & 1) ^ 1);
                    mbar_expect_tx(&fullQ[s], 2 * QT_BYTES + (LDTMA ? 2 * BR * 4 : 0));
#pragma unroll
                    for (int sl = 0; sl < SLABS; sl++) {
                        tma_load3(Qs + s * BR * D + sl * BR * 64, &maps.q, &fullQ[s], sl * 64, r0, x.b * sh.H + hq);
                        tma_load3(dOs + s * BR * D + sl * BR * 64, &maps.dO, &fullQ[s], sl * 64, r0, x.b * sh.H + hq);
                    }
                    if (LDTMA) { /* the step's rows of LSE log2 e and D (padded: no bounds) */
                        const long long row = ((long long)x.b * sh.H + hq) * Npad + r0;
                        bulk_load(Ls + s * BR, lse2 + row, BR * 4, &fullQ[s]);
                        bulk_load(Ds + s * BR, Dpad + row, BR * 4, &fullQ[s]);
                    }
                }
            } else if (RED && (pw == 2 || (DQK && pw == 3))) { /* dQ_i += the consumers' tile: one TMA reduce-add of B_r d fp32
                                                                * (DQK: warp 2 + t adds consumer t's partial tile) */
                const int tw = DQK ? pw - 2 : 0, nbar = DQK ? 160 : 288;
                for (int it = 0; it < x.n_it; it++) {
                    const int2 qh = unit_step<NODIV>(it, x.nq, group);
                    const int qi = qblock(x, qh.x), hq = x.hk * group + qh.y;
                    const long long bh = (long long)x.b * sh.H + hq;
                    const int db = DQ2 ? (it & 1) : tw;
                    named_sync(V5B_BAR_DQ_FULL + 4 * db, nbar);
                    if (lane == 0) {
                        int *sm = sem + bh * (Npad / 64) + qi;
                        const int ord = DQK ? 2 * dq_order(sh, desc, rot, x.kb, qi, BR, BC, T_c) + tw
                                            : dq_order(sh, desc, rot, x.kb, qi, BR, BC, T_c);
                        if (DET) { /* the key blocks before this one in dq_order have added theirs */
                            int v;
                            do asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(sm) : "memory");
                            while (v < ord);
                        }
                        bulk_reduce_add_f32(dQacc + (bh * Npad + (long long)qi * BR) * D, dQs + db * BR * D, BR * D * 4);
                        bulk_commit();
                        if (DET) { /* the adds are done before the next key block may start its own */
                            bulk_wait<false>();
                            asm volatile("fence.proxy.async.global;\n" ::: "memory");
                            asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(sm), "r"(ord + 1) : "memory");
                        } else if (DQ2) {
                            bulk_wait_read1(); /* the last step's tile has been read (this one's may still be) */
                        } else {
                            bulk_wait<true>(); /* the tile has been read */
                        }
                    }
                    __syncwarp();
                    if (!DQ2 || DET) named_arrive(V5B_BAR_DQ_EMPTY + 4 * db, nbar);
                    else if (it > 0) named_arrive(V5B_BAR_DQ_EMPTY + 4 * (db ^ 1), 288);
                }
                if (DQ2 && !DET) { /* the unit's last tile has been read */
                    if (lane == 0) bulk_wait<true>();
                    __syncwarp();
                    named_arrive(V5B_BAR_DQ_EMPTY + 4 * ((x.n_it - 1) & 1), 288);
                }
            }
            ig += x.n_it;
            ku++;
        }
        if (RED && (pw == 2 || (DQK && pw == 3)) && lane == 0) bulk_wait<false>();
        return;
    }

    /* ---- consumers: warpgroup w = 0, 1 owns keys 64 w .. 64 w + 63 of the block ---- */
    reg_alloc<Regs::consumer>();
    const int w = wg - 1, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int g = lane >> 2, t4 = lane & 3;
    const int off = sh.N_k - sh.N_q;
    const bool issuer = threadIdx.x % 128 == 0; /* this warpgroup's TMA stores */
    constexpr uint32_t SLAB_KV = BC * 128, SLAB_Q = BR * 128, STAGE_Q = BR * D * 2;
    const uint32_t k_addr = smem_u32(Ks), v_addr = smem_u32(Vs), q_addr = smem_u32(Qs), do_addr = smem_u32(dOs);
    const uint32_t ds_addr = smem_u32(dSs);
    /* STSM: this lane's row address of stmatrix tile lane / 8 for kc = 0 (key 64 w + 16 warp + lane % 8
     * + 8 (lane / 8 % 2), queries 8 (lane / 16) ..: chunk (lane / 16) ^ (lane % 8)); dSs is 1024-aligned */
    const uint32_t ds_row = ds_addr + (uint32_t)(64 * w + 16 * warp + (lane & 7) + 8 * ((lane >> 3) & 1)) * 128u +
                            (uint32_t)(((lane >> 4) ^ (lane & 7)) << 4);
    float dk[DB][4], dv[DB][4], s[NB][4], dp[NB][4], dq[8][4];
    uint32_t pa[BR / 16][4], sa[BR / 16][4];
    int ig = 0, ku = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const Unit x = unit(u);
    if (x.n_it == 0) continue;
    const int hk = x.hk, b = x.b, c0 = x.c0, i_lo = x.i_lo, nq = x.nq, n_it = x.n_it;
    const int kw = c0 + 64 * w + 16 * warp; /* this warp's first key */
#pragma unroll
    for (int y = 0; y < DB; y++)
#pragma unroll
        for (int e = 0; e < 4; e++) dk[y][e] = dv[y][e] = 0.f;
    /* LSE_i, D_i of step i (B_r floats each, 16 bytes a lane) into this warp's copy i % 3 (RING:
     * slot, kept by the loop; without GQA step i's rows are the unit's first + i B_r) */
    const int cwarp = 4 * w + warp;
    const long long row_u = ((long long)b * sh.H + (long long)hk * group) * Npad + (long long)i_lo * BR;
    auto fetch_ld = [&](int i, int slot) {
        if (i < n_it) {
            long long row;
            if (RING && NODIV && group == 1) {
                row = row_u + (long long)(qblock(x, i) - i_lo) * BR;
            } else {
                const int2 qh = unit_step<NODIV>(i, nq, group);
                const int hq = hk * group + qh.y, r0 = qblock(x, qh.x) * BR;
                row = ((long long)b * sh.H + hq) * Npad + r0;
            }
            const int sl = RING ? slot : i % 3;
            for (int c = 4 * lane; c < BR; c += 128) {
                cp_async16(smem_u32(Ls + (3 * cwarp + sl) * BR + c), lse2 + row + c, 16);
                cp_async16(smem_u32(Ds + (3 * cwarp + sl) * BR + c), Dpad + row + c, 16);
            }
        }
        cp_async_commit();
    };
    if (!LDTMA) fetch_ld(0, 0);
    int ld_cur = 0; /* RING: it % 3 */
    mbar_wait(fullKV, ku & 1);
    /* S^T = K_w Q_i^T and dP^T = V_w dO_i^T of step it: m64 (keys) x B_r (queries) x d, two commit
     * groups, once the step's Q_i, dO_i have landed */
    auto issue_s = [&](int it) {
        const int st = (ig + it) % S;
        mbar_wait(&fullQ[st], ((ig + it) / S) & 1);
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            const uint32_t kof = (kk & 3) * 32;
            wg_mma_ss<BR, T>(&s[0][0], opd(k_addr + w * 64 * 128, (kk >> 2) * SLAB_KV + kof, 16),
                             opd(q_addr + st * STAGE_Q, (kk >> 2) * SLAB_Q + kof, 16), kk > 0);
        }
        wg_commit();
    };
    auto issue_dp = [&](int it) {
        const int st = (ig + it) % S;
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            const uint32_t kof = (kk & 3) * 32;
            wg_mma_ss<BR, T>(&dp[0][0], opd(v_addr + w * 64 * 128, (kk >> 2) * SLAB_KV + kof, 16),
                             opd(do_addr + st * STAGE_Q, (kk >> 2) * SLAB_Q + kof, 16), kk > 0);
        }
        wg_commit();
    };
    /* Q_i, dO_i of stage st are read (their last reader, dK's wgmma, is done) */
    auto release_q = [&](int st) {
        fence_regs(dk);
        fence_regs(dv);
        if (LDTMA) {
            mbar_arrive(&emptyQ[st]);
        } else {
            __syncwarp(); /* the lanes' reads of LSE_i, D_i are ordered before lane 0's release */
            if (lane == 0) mbar_arrive(&emptyQ[st]);
        }
    };
    if (SCH == 2) issue_s(0);
    for (int it = 0;; it++) { /* n_it >= 1 steps; the exit is at the bottom */
        const int2 qh = unit_step<NODIV>(it, nq, group);
        const int st = (ig + it) % S, qi = qblock(x, qh.x), hq = hk * group + qh.y, r0 = qi * BR;
        const long long bh = (long long)b * sh.H + hq;
        if (SCH < 2) issue_s(it);
        issue_dp(it);
        const bool need_mask = kw + 16 > sh.N_k || (sh.causal && kw + 15 > r0 + off);
        /* LSE_i log2 e, D_i of the next step into this warp's copies (cp.async, three in turn:
         * copy (it + 1) % 3 was last read by this warp at it - 2), then this step's, fetched one
         * step ago: a warp's own copy needs no barrier but __syncwarp */
        const float *Lt, *Dt;
        if (LDTMA) { /* landed with the stage (issue_s waited for it) */
            Lt = Ls + st * BR, Dt = Ds + st * BR;
        } else {
            const int ld_nxt = ld_cur == 2 ? 0 : ld_cur + 1;
            fetch_ld(it + 1, ld_nxt);
            cp_async_wait<1>();
            __syncwarp();
            const int ld_sl = RING ? ld_cur : it % 3;
            ld_cur = ld_nxt;
            Lt = Ls + (3 * cwarp + ld_sl) * BR, Dt = Ds + (3 * cwarp + ld_sl) * BR;
        }
        wg_wait<1>(); /* S^T */
        fence_regs(s);
#pragma unroll
        for (int nb = 0; nb < NB; nb++) { /* line 11: P^T = exp(scale S^T - LSE), 0 where masked */
            const int ql = nb * 8 + t4 * 2;
            const float2 l2 = *reinterpret_cast<const float2 *>(Lt + ql);
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float p = fast_exp2(fmaf(s[nb][e], scale_log2, -((e & 1) ? l2.y : l2.x)));
                if (!EDGE && need_mask) {
                    const int key = kw + g + (e >> 1) * 8, q = r0 + ql + (e & 1);
                    if (key >= sh.N_k || (sh.causal && key > q + off)) p = 0.f;
                }
                s[nb][e] = p;
            }
        }
        if (EDGE && need_mask) { /* the tile crosses the diagonal or N_k: key > min(N_k - 1, q + off) is 0 */
#pragma unroll
            for (int nb = 0; nb < NB; nb++)
#pragma unroll
                for (int e1 = 0; e1 < 2; e1++) {
                    const int q = r0 + nb * 8 + t4 * 2 + e1;
                    const int lim = sh.causal ? min(q + off, sh.N_k - 1) : sh.N_k - 1;
#pragma unroll
                    for (int hr = 0; hr < 2; hr++)
                        if (kw + g + 8 * hr > lim) s[nb][2 * hr + e1] = 0.f;
                }
        }
        if (SCH >= 1) { /* line 12: dV_w += P^T dO_i now, under dP^T's tail and dS^T's arithmetic */
#pragma unroll
            for (int kc = 0; kc < BR / 16; kc++) p_fragment<T, NB>(pa[kc], s, kc);
            wg_fence();
#pragma unroll
            for (int kc = 0; kc < BR / 16; kc++)
                wg_mma_rs_tb<D, T>(&dv[0][0], pa[kc], opd(do_addr + st * STAGE_Q, kc * 16 * 128, SLAB_Q));
            wg_commit();
            wg_wait<1>(); /* dP^T (dV may run on) */
        } else {
            wg_wait<0>(); /* dP^T */
        }
        fence_regs(dp);
#pragma unroll
        for (int nb = 0; nb < NB; nb++) { /* line 14: dS^T = P^T o (dP^T - D) */
            const float2 d2 = *reinterpret_cast<const float2 *>(Dt + nb * 8 + t4 * 2);
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const float p = PBF ? unpack_half<T>(pa[nb >> 1][(nb & 1) * 2 + (e >> 1)], e & 1) : s[nb][e];
                dp[nb][e] = p * (dp[nb][e] - ((e & 1) ? d2.y : d2.x));
            }
        }
#pragma unroll
        for (int kc = 0; kc < BR / 16; kc++) {
            if (SCH == 0) p_fragment<T, NB>(pa[kc], s, kc);
            p_fragment<T, NB>(sa[kc], dp, kc);
        }
        if (SCH == 0) { /* lines 12, 16: dV_w += P^T dO_i, dK_w += dS^T Q_i (k = queries; dO, Q MN-major) */
            wg_fence();
#pragma unroll
            for (int kc = 0; kc < BR / 16; kc++)
                wg_mma_rs_tb<D, T>(&dv[0][0], pa[kc], opd(do_addr + st * STAGE_Q, kc * 16 * 128, SLAB_Q));
#pragma unroll
            for (int kc = 0; kc < BR / 16; kc++)
                wg_mma_rs_tb<D, T>(&dk[0][0], sa[kc], opd(q_addr + st * STAGE_Q, kc * 16 * 128, SLAB_Q));
            wg_commit();
        }
        /* dS^T (this warpgroup's 64 keys) into buffer it & 1: rows = keys, sw128 by 64 queries;
         * a unit's first write waits until the last unit's dK, dV stores have read their tiles */
        if (it == 0 && ku > 0) {
            if (issuer) bulk_wait<true>();
            named_sync(V5B_BAR_DS, 256);
        }
        if (STSM) { /* stmatrix kc: tiles (keys +0, queries 16 kc), (+8, 16 kc), (+0, 16 kc + 8), (+8, 16 kc + 8)
                     * = sa[kc][0..3]; lane 8 i + r gives the row of its tile i: 16-byte chunk (nb & 7) ^ r of
                     * the key's sw128 row (nb = 2 kc + i / 2), i.e. this lane's chunk of kc 0 XOR 2 (kc & 3) */
            const uint32_t a = ds_row + (it & 1) * (BC * BR * 2);
#pragma unroll
            for (int kc = 0; kc < BR / 16; kc++)
                stmatrix_x4((a ^ ((kc & 3) << 5)) + (kc >> 2) * (BC * 128), sa[kc][0], sa[kc][1], sa[kc][2], sa[kc][3]);
        } else {
            T *dsb = dSs + (it & 1) * BC * BR;
#pragma unroll
            for (int nb = 0; nb < NB; nb++)
#pragma unroll
                for (int hr = 0; hr < 2; hr++)
                    *reinterpret_cast<uint32_t *>(dsb + sw128<BC>(64 * w + 16 * warp + g + 8 * hr, nb * 8 + t4 * 2)) =
                        sa[nb >> 1][(nb & 1) * 2 + hr];
        }
        fence_proxy_async();
        if (DQK) named_sync(4 + w, 128); /* this warpgroup's half of dS^T is written */
        else named_sync(V5B_BAR_DS, 256); /* both halves of dS^T are written */
        /* line 15: dQ_i += dS K_j, m64 x n64 x k = B_c keys; d = 128: queries 0..63, columns
         * 64 w..; d = 64 (B_r 128): queries 64 w.., all 64 columns */
        const uint32_t a0 = ds_addr + (it & 1) * BC * BR * 2 + (BR == 128 ? w * SLAB_KV : 0);
        const uint32_t b0 = k_addr + (D == 128 ? w * SLAB_KV : 0);
        wg_fence();
        /* DQK: dQ_i's partial over keys 64 w..: columns 64 h.. from K's slab h, k = this warpgroup's 64 keys;
         * half 0 here, half 1 once half 0 is in the tile (both at once: ptxas serializes, C7512) */
        auto issue_dqk = [&](int h) {
#pragma unroll
            for (int kc = 4 * w; kc < 4 * w + 4; kc++)
                wg_mma_ss_tt<64, T>(&dq[0][0], opd(a0, kc * 16 * 128, SLAB_KV), opd(k_addr + h * SLAB_KV, kc * 16 * 128, SLAB_KV),
                                    kc > 4 * w);
        };
        if (DQK) {
            issue_dqk(0);
        } else {
#pragma unroll
            for (int kc = 0; kc < BC / 16; kc++)
                wg_mma_ss_tt<64, T>(&dq[0][0], opd(a0, kc * 16 * 128, SLAB_KV), opd(b0, kc * 16 * 128, SLAB_KV), kc > 0);
        }
        wg_commit();
        if (SCH >= 1) { /* line 16: dK_w += dS^T Q_i behind dQ, running while dQ_i leaves */
#pragma unroll
            for (int kc = 0; kc < BR / 16; kc++)
                wg_mma_rs_tb<D, T>(&dk[0][0], sa[kc], opd(q_addr + st * STAGE_Q, kc * 16 * 128, SLAB_Q));
            wg_commit();
            wg_wait<1>(); /* dV, dQ */
        } else {
            wg_wait<0>();
        }
        fence_regs(dq);
        if (SCH == 0) release_q(st);
        if (RED) { /* dQ_i into the shared tile (float4 a thread and n8 block: no bank conflict) */
            const int db = DQ2 ? (it & 1) : DQK ? w : 0, nbar = DQK ? 160 : 288;
            if (it >= (DQ2 ? 2 : 1)) named_sync(V5B_BAR_DQ_EMPTY + 4 * db, nbar); /* the dQ warp has read this tile's last one */
            if (DQK) { /* the whole tile: half h where the column split puts warpgroup h's */
                float4 *dst = reinterpret_cast<float4 *>(dQs + db * BR * D) + threadIdx.x % 128;
#pragma unroll
                for (int x = 0; x < 8; x++) dst[x * 128] = make_float4(dq[x][0], dq[x][1], dq[x][2], dq[x][3]);
                wg_fence();
                issue_dqk(1);
                wg_commit();
                wg_wait<0>();
                fence_regs(dq);
#pragma unroll
                for (int x = 0; x < 8; x++) dst[(8 + x) * 128] = make_float4(dq[x][0], dq[x][1], dq[x][2], dq[x][3]);
            } else {
                float4 *dst = reinterpret_cast<float4 *>(dQs + db * BR * D) + w * 8 * 128 + threadIdx.x % 128;
#pragma unroll
                for (int x = 0; x < 8; x++) dst[x * 128] = make_float4(dq[x][0], dq[x][1], dq[x][2], dq[x][3]);
            }
            fence_proxy_async();
            named_arrive(V5B_BAR_DQ_FULL + 4 * db, nbar);
        } else {
            const int qrow = BR == 128 ? 64 * w : 0, col = D == 128 ? 64 * w : 0;
            float *dqg = dQacc + bh * Npad * D;
#pragma unroll
            for (int x = 0; x < 4; x++)
                atomic_add_tile<D>(dqg, *reinterpret_cast<const float(*)[2][4]>(&dq[2 * x][0]), r0 + qrow + 16 * warp,
                                   col + 16 * x, Npad, lane);
        }
        if (it + 1 == n_it) {
            if (SCH >= 1) {
                wg_wait<0>(); /* dK */
                release_q(st);
            }
            break;
        }
        if (SCH == 1) {
            wg_wait<0>(); /* dK */
            release_q(st);
        }
        if (SCH == 2) { /* the next step's S^T queues behind dK: the tensor pipe does not drain; the
                         * loop is entered with S^T alone in flight on every path */
            issue_s(it + 1);
            wg_wait<1>(); /* dK */
            release_q(st);
        }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(emptyKV); /* the unit's last reads of K, V are done */
    if (DQ2 && n_it >= 2) named_sync(V5B_BAR_DQ_EMPTY + 4 * ((n_it - 2) & 1), 288); /* and the one before */
    if (RED) /* the dQ warp has read the unit's last tile */
        named_sync(V5B_BAR_DQ_EMPTY + (DQ2 ? 4 * ((n_it - 1) & 1) : DQK ? 4 * w : 0), DQK ? 160 : 288);
    named_sync(V5B_BAR_DS, 256);                /* both warpgroups' last dQ GEMM has read dS^T */
    /* dK_j = scale sum dS^T Q (line 16's scale), dV_j: this warpgroup's 64 keys through shared
     * tiles in the layout of a TMA box (64 columns, 64 rows, 128-byte swizzle) and a TMA store a
     * slab (keys past N_k are not written).  The tiles: the dS^T buffers and the dQ tile, free
     * now (d = 64: both in the dS^T buffers). */
    const float scale = scale_log2 / 1.44269504088896341f;
    T *stk = dSs + w * 64 * D, *stv = (D == 128 ? reinterpret_cast<T *>(dQs) : dSs + 2 * 64 * D) + w * 64 * D;
    const Sw128Layout<64> lay;
#pragma unroll
    for (int hr = 0; hr < 2; hr++) {
        const int r = 16 * warp + g + 8 * hr;
#pragma unroll
        for (int y = 0; y < DB; y++) {
            *reinterpret_cast<uint32_t *>(stk + lay(r, y * 8 + t4 * 2)) = pack2<T>(dk[y][2 * hr] * scale, dk[y][2 * hr + 1] * scale);
            *reinterpret_cast<uint32_t *>(stv + lay(r, y * 8 + t4 * 2)) = pack2<T>(dv[y][2 * hr], dv[y][2 * hr + 1]);
        }
    }
    fence_proxy_async();
    named_sync(4 + w, 128);
    if (issuer) {
#pragma unroll
        for (int sl = 0; sl < SLABS; sl++) {
            tma_store3(&maps.dk, stk + sl * 64 * 64, sl * 64, c0 + 64 * w, b * sh.H_kv + hk);
            tma_store3(&maps.dv, stv + sl * 64 * 64, sl * 64, c0 + 64 * w, b * sh.H_kv + hk);
        }
        bulk_commit();
    }
    ig += n_it;
    ku++;
    } /* units */
    if (issuer) bulk_wait<false>();
#else
    __trap(); /* built without sm_90a: the launcher refuses other devices before we get here */
#endif
}

template <int D, int BR, bool DET, bool RED, bool PERS, int CFG, typename T>
static cudaError_t launch_v5_bwd(const fa_gpu_shape *s, const void *Q, const void *K, const void *V, const void *O,
                                 const void *dO, const float *LSE, void *dQ, void *dK, void *dV, float *ws,
                                 cudaStream_t st)
{
    constexpr int BC = V5B_BC, S = V5B_STAGES;
    const long long BH = (long long)s->B * s->H;
    const int Npad = (int)v5b_rows_pad(s->N_q);
    float *dQacc = ws, *lse2 = dQacc + BH * Npad * D, *Dpad = lse2 + BH * Npad;
    int *sem = reinterpret_cast<int *>(Dpad + BH * Npad);
    const float scale_log2 = s->scale * 1.44269504088896341f;
    cudaError_t e;
    if (DET && (e = cudaMemsetAsync(sem, 0, BH * (Npad / 64) * sizeof(int), st)) != cudaSuccess) return e;
    const long long rows = BH * Npad;
    fa_v5_bwd_pre_kernel<D, T><<<(unsigned)((rows * (D / 8) + 255) / 256), 256, 0, st>>>(
        (const T *)O, (const T *)dO, LSE, Dpad, lse2, dQacc, BH, s->N_q, Npad);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;

    constexpr bool LDTMA = (CFG & V5B_LDTMA) != 0, DQ2 = (CFG & V5B_DQ2) != 0 && LDTMA && D == 128 && RED;
    constexpr bool DQK = (CFG & V5B_DQK) != 0 && LDTMA && !DQ2 && D == 128 && RED;
    const int bytes = (2 * BC * D + 2 * S * BR * D + 2 * BC * BR) * (int)sizeof(T) + (DQ2 || DQK ? 2 : 1) * BR * D * 4 +
                      (LDTMA ? 2 * S : 48) * BR * 4 + (2 + 2 * S) * 8 + 1024;
    auto kern = fa_v5_bwd_kernel<D, BR, DET, RED, CFG, T>;
    if ((e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)) != cudaSuccess) return e;
    static V5BMaps maps; /* rebuilt when the pointers or the shape change */
    static const void *last[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    static fa_gpu_shape last_s;
    if (last[0] != Q || last[1] != K || last[2] != V || last[3] != dO || last[4] != dK || last[5] != dV ||
        memcmp(&last_s, s, sizeof *s) != 0) {
        const CUtensorMapDataType t =
            std::is_same<T, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
        if (make_map(&maps.q, Q, D, s->N_q, s->B * s->H, BR, t) || make_map(&maps.dO, dO, D, s->N_q, s->B * s->H, BR, t) ||
            make_map(&maps.k, K, D, s->N_k, s->B * s->H_kv, BC, t) || make_map(&maps.v, V, D, s->N_k, s->B * s->H_kv, BC, t) ||
            make_map(&maps.dk, dK, D, s->N_k, s->B * s->H_kv, 64, t) || make_map(&maps.dv, dV, D, s->N_k, s->B * s->H_kv, 64, t)) {
            last[0] = NULL;
            return cudaErrorInvalidValue;
        }
        last[0] = Q, last[1] = K, last[2] = V, last[3] = dO, last[4] = dK, last[5] = dV, last_s = *s;
    }
    int sms = 0;
    if ((e = fa_sm_count(&sms)) != cudaSuccess) return e;
    const long long units = (long long)((s->N_k + BC - 1) / BC) * s->H_kv * s->B;
    const unsigned grid = (unsigned)(PERS && units > sms ? sms : units);
    /* deterministic without a causal mask: the rotated dQ order (dq_order) where T_c <= T_r and all
     * T_c units of a head fit at once (T_c <= SMs: the persistent grid, min(units, SMs) blocks, then
     * holds them all; a block a unit, with blocks dispatched in order, as the ascending order assumes) */
    const int T_c = (s->N_k + BC - 1) / BC, T_r = (s->N_q + BR - 1) / BR;
    const int rot = DET && !s->causal && T_c <= T_r && T_c <= sms;
    kern<<<grid, 384, bytes, st>>>(maps, lse2, Dpad, dQacc, sem, (T *)dK, (T *)dV, *s, scale_log2, rot);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    if (RED) fa_v5_bwd_post_tiles_kernel<D, BR, T><<<2048, 256, 0, st>>>(dQacc, (T *)dQ, BH, s->N_q, Npad, s->scale);
    else fa_v5_bwd_post_kernel<D, T><<<2048, 256, 0, st>>>(dQacc, (T *)dQ, BH, s->N_q, Npad, s->scale);
    return cudaGetLastError();
}

extern "C" size_t fa_v5_bwd_workspace_bytes(const fa_gpu_shape *s)
{
    const size_t rows = (size_t)s->B * s->H * (size_t)v5b_rows_pad(s->N_q);
    return rows * (size_t)s->d * 4 + 2 * rows * 4 + rows / 64 * sizeof(int);
}

/* variant 0: dQ by the TMA reduce-add of a shared tile, a thread block per unit; 1: dQ by fp32
 * atomics from the consumers (measured 0.77-0.85x of the reduce-add, not deterministic); 2: as 0
 * on a persistent grid (one block per SM taking units blockIdx.x + k gridDim.x: measured
 * 0.99-1.02x without a causal mask, 0.67-0.97x with one, where blocks of unequal work drift apart
 * over more heads than the L2 holds; analysis/measured/h200/v5_bwd_sweep.csv); 3-8 (fabench
 * v5_bwd_s0, s1r, s1p, s2pr, dinc, lean; 6-8 also deterministic): as 0 with the CFG named here
 * (the header comment; s9_bwd_sweep128.csv; 3 is the default before the ninth session's cuts, 8 the
 * ninth session's lean, CFG 48); 9-11 (eleventh session; v5_bwd_qrot, v5_bwd_dq2(_det), v5_bwd_qd): V5B_CUTS
 * with V5B_QROT, with V5B_LDTMA | V5B_DQ2, with all three; 12 (v5_bwd_dqk(_det)): V5B_CUTS | V5B_LDTMA | V5B_DQK; 13 (v5_bwd_cuts(_det)):
 * V5B_CUTS, the default before the eleventh session (at d = 64 still the default).  Variants 0-2 run the default CFG, V5B_CFG64 / V5B_CFG128 (V5B_CUTS). */
template <typename T>
static cudaError_t v5_bwd_dispatch(const fa_gpu_shape *s, int det, int variant, const void *Q, const void *K,
                                   const void *V, const void *O, const void *dO, const float *LSE, void *dQ, void *dK,
                                   void *dV, float *ws, cudaStream_t st)
{
#define FA_V5B(D, BR, DET, RED, PERS, CFG) launch_v5_bwd<D, BR, DET, RED, PERS, CFG, T>(s, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st)
#define FA_V5B_X(D, BR, CFG) (det ? FA_V5B(D, BR, true, true, false, CFG) : FA_V5B(D, BR, false, true, false, CFG))
#define FA_V5B_D(D, BR, CFG)                                                                                       \
    (variant == 1 ? FA_V5B(D, BR, false, false, false, CFG)                                                        \
     : variant == 0 ? FA_V5B_X(D, BR, CFG)                                                                         \
     : variant == 2 ? (det ? FA_V5B(D, BR, true, true, true, CFG) : FA_V5B(D, BR, false, true, true, CFG))        \
     : variant == 3 ? FA_V5B(D, BR, false, true, false, 0)                                                         \
     : variant == 4 ? FA_V5B(D, BR, false, true, false, 1 | V5B_REGS240)                                           \
     : variant == 5 ? FA_V5B(D, BR, false, true, false, 1 | V5B_PBF)                                               \
     : variant == 6 ? FA_V5B_X(D, BR, 2 | V5B_REGS240 | V5B_PBF)                                                   \
     : variant == 7 ? FA_V5B_X(D, BR, V5B_DINC)                                                                    \
     : variant == 8 ? FA_V5B_X(D, BR, V5B_DINC | V5B_NODIV)                                                        \
     : variant == 9 ? FA_V5B(D, BR, false, true, false, V5B_CUTS | V5B_QROT)                                       \
     : variant == 10 ? FA_V5B_X(D, BR, V5B_CUTS | V5B_LDTMA | V5B_DQ2)                                             \
     : variant == 11 ? FA_V5B(D, BR, false, true, false, V5B_CUTS | V5B_QROT | V5B_LDTMA | V5B_DQ2)                \
     : variant == 12 ? FA_V5B_X(D, BR, V5B_CUTS | V5B_LDTMA | V5B_DQK)                                             \
                     : FA_V5B_X(D, BR, V5B_CUTS))
    if (variant < 0 || variant > 13 || (det && (variant == 1 || (variant > 2 && variant < 6) || variant == 9 || variant == 11)))
        return cudaErrorInvalidValue;
    if (s->d == 64) return FA_V5B_D(64, 128, V5B_CFG64);
    if (s->d == 128) return FA_V5B_D(128, 64, V5B_CFG128);
#undef FA_V5B_D
#undef FA_V5B_X
#undef FA_V5B
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t fa_v5_backward(const fa_gpu_shape *s, fa_gpu_dtype dt, int deterministic, int variant, const void *Q,
                                      const void *K, const void *V, const void *O, const void *dO, const float *LSE,
                                      void *dQ, void *dK, void *dV, float *ws, cudaStream_t st)
{
    cudaError_t e = wg_device_check(); /* wgmma: sm_90a only */
    if (e != cudaSuccess) return e;
    if (dt == FA_GPU_BF16) return v5_bwd_dispatch<__nv_bfloat16>(s, deterministic, variant, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    if (dt == FA_GPU_FP16) return v5_bwd_dispatch<__half>(s, deterministic, variant, Q, K, V, O, dO, LSE, dQ, dK, dV, ws, st);
    return cudaErrorInvalidValue;
}
