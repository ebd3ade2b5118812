/* fa_kernels.h -- the GPU attention kernels of fasim (CUDA C), one launcher per numbered version.
 *
 * Layout (row-major, contiguous), the same as cpu_ref/fa_attn.h:
 *   Q (B, H, N_q, d)   K, V (B, H_kv, N_k, d)   O (B, H, N_q, d)   LSE (B, H, N_q) fp32
 * GQA/MQA: query head h reads kv head h / (H / H_kv).
 * Causal (bottom-right anchor): key j is allowed for query row i iff j <= i + N_k - N_q.
 * A row with no allowed key gets O = 0 and LSE = -inf (never NaN).
 * LSE is the natural-log logsumexp of the scaled, masked scores of the row.
 *
 * Versions (each file opens with what changed and why it is faster):
 *   v0  attn_v0_naive.cu    cuBLAS S = scale Q K^T, softmax kernel, cuBLAS O = P V; S, P in HBM
 *   v1  attn_v1_flash1.cu   FlashAttention-1 loop order (outer K/V, inner Q; O, l, m in HBM), fp32
 *   v2  attn_v2_flash2.cu   FlashAttention-2 loop order (one block per Q block and head), fp32
 *   v3  attn_v3_flash2_tc.cu FlashAttention-2 on tensor cores (mma.sync, ldmatrix, cp.async), bf16/fp16
 *   v3 backward  attn_v3_bwd_tc.cu  FlashAttention-2 backward on tensor cores (dQ by atomics or
 *                                    deterministic)
 *   v4  attn_v4_wgmma.cu    the v3 forward on Hopper's wgmma.mma_async (sm_90a only)
 *   v5  attn_v5_fa3.cu      FlashAttention-3's forward structure: TMA, warp specialization,
 *                           ping-pong and intra-warpgroup overlap (sm_90a only)
 *   v5 backward  attn_v5_bwd.cu   FlashAttention-3's backward structure: TMA producer, wgmma
 *                                  consumers, dQ by atomics or in key-block order (sm_90a)
 *   v5 FP8  attn_v5_fp8.cu   the v5 forward on e4m3 Q, K, V^T (block scales, optional Hadamard),
 *                            wgmma e4m3 (sm_90a, d = 128): fa_v5_fp8_prepare, fa_v5_fp8_forward
 *
 * Every launcher returns cudaSuccess or the error of its launch; it validates nothing itself:
 * call fa_gpu_check first (it returns a message for a shape the kernel cannot run). */
#ifndef FA_KERNELS_H
#define FA_KERNELS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FA_GPU_FP32 = 0, FA_GPU_BF16 = 1, FA_GPU_FP16 = 2 } fa_gpu_dtype;

typedef struct {
    int B, H, H_kv; /* batch, query heads, kv heads (H_kv divides H) */
    int N_q, N_k;   /* sequence lengths */
    int d;          /* head dimension of Q, K, V and O */
    int causal;     /* 0: none, 1: bottom-right anchor */
    float scale;    /* softmax scale, > 0 (usually 1/sqrt(d)) */
} fa_gpu_shape;

/* Kernel identifiers, in the order of the versions. */
typedef enum {
    FA_K_V0 = 0,      /* naive, fp32 (cuBLAS SGEMM, S and P fp32) */
    FA_K_V0_LOW = 1,  /* naive in the low precision (bf16/fp16 GEMMs, S and P stored low) */
    FA_K_V1 = 2,      /* FlashAttention-1 order, fp32 SIMT */
    FA_K_V2 = 3,      /* FlashAttention-2 order, fp32 SIMT */
    FA_K_V3 = 4,      /* FlashAttention-2 on tensor cores, 8 warps x 16 rows, B_c = 64 */
    FA_K_V3_MT2 = 5,  /* same, 4 warps x 32 rows (two m16 tiles per warp), B_c = 64 */
    FA_K_V3_MT2_BC32 = 6, /* 4 warps x 32 rows, B_c = 32 */
    FA_K_V3_BR256 = 7,    /* 8 warps x 32 rows (B_r = 256), B_c = 64 */
    FA_K_V3_LAZY = 8,     /* as v3_mt2, O rescaled only when a row max changed */
    FA_K_V3_BC128 = 9,    /* 8 warps x 16 rows (B_r = 128), B_c = 128: half the K/V steps of v3 */
    FA_K_V3_MT2_BC48 = 10, /* 4 warps x 32 rows, B_c = 48 (fewer S registers; spills as much) */
    FA_K_V4 = 11,         /* Hopper wgmma (sm_90a): 2 warpgroups x 64 rows (B_r 128), B_c 128 */
    FA_K_V4_BC64 = 12,    /* as v4 with B_c 64 and two thread blocks per SM */
    FA_K_V5 = 13,         /* FlashAttention-3 style (sm_90a): TMA, a producer warpgroup and
                             consumer warpgroups, ping-pong, softmax under P V; the variant
                             below chosen by head dim and causal (attn_v5_fa3.cu, v5_pick) */
    FA_K_V5_BC176 = 14,   /* as v5_bc128 with B_c 176 (FlashAttention-3's non-causal d = 128 tile) */
    FA_K_V5_WG3 = 15,     /* 3 consumer warpgroups (B_r 192), B_c 128, d = 64 only */
    FA_K_V5_NOPP = 16,    /* as v5_bc128 without the ping-pong turns (to measure what they give) */
    FA_K_V5_PERS = 17,    /* as v5_bc128 on a persistent grid (a block per SM takes units in turn) */
    FA_K_V5_PERS_WG3 = 18, /* as v5_wg3 on a persistent grid, d = 64 only */
    FA_K_V5_BC128 = 19,   /* 2 consumer warpgroups (B_r 128), B_c 128, one block per row block */
    FA_K_V5_PERS_BC160 = 20, /* B_c 160 on a persistent grid, d = 128 only */
    FA_K_V5_EXP2POLY = 21, /* v5 with FlashAttention-4's exp split: 3/8 of the exponentials by a
                              polynomial on the FMA pipe (exp2_fma) */
    FA_K_V5_CRESC = 22,    /* v5 with FlashAttention-4's conditional rescaling (tau = 8) */
    FA_K_V5_FA4 = 23,      /* v5 with both */
    FA_K_COUNT = 24
} fa_kernel_id;

const char *fa_kernel_name(fa_kernel_id k);
/* The dtype a kernel computes in (fp32 kernels read fp32 Q, K, V and write fp32 O). */
fa_gpu_dtype fa_kernel_dtype(fa_kernel_id k, fa_gpu_dtype low);

/* Returns NULL when kernel k can run shape s, else a message saying why not
 * (e.g. "head dim 96 is not supported by v3 (only 64 and 128)"). */
const char *fa_gpu_check(fa_kernel_id k, const fa_gpu_shape *s);

/* Returns NULL when the current device can run kernel k, else why not (v4 needs sm_90). */
const char *fa_gpu_arch_check(fa_kernel_id k);
/* fa_gpu_check without the device part: the shape alone (no CUDA call). */
const char *fa_gpu_check_shape(fa_kernel_id k, const fa_gpu_shape *s);

/* Workspace bytes kernel k needs (v0: S and P, B*H*N_q*N_k elements; v1: l and m). */
size_t fa_gpu_workspace_bytes(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype dt);

/* Runs kernel k.  Q, K, V, O are in fa_kernel_dtype(k, dt); LSE is fp32 (B, H, N_q).
 * ws: workspace of fa_gpu_workspace_bytes bytes.  Needs fa_gpu_init() once before. */
cudaError_t fa_gpu_forward(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype dt, const void *Q,
                           const void *K, const void *V, void *O, float *LSE, void *ws,
                           cudaStream_t stream);

/* Creates the cuBLAS handle and raises the shared-memory limits.  0 on success. */
int fa_gpu_init(void);
void fa_gpu_finish(void);

/* ---- per-version launchers (called by fa_gpu_forward) ---- */
cudaError_t fa_v0_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, const void *Q, const void *K,
                          const void *V, void *O, float *LSE, void *S_ws, cudaStream_t st);
cudaError_t fa_v1_forward(const fa_gpu_shape *s, const float *Q, const float *K, const float *V,
                          float *O, float *LSE, float *lm_ws, cudaStream_t st);
cudaError_t fa_v2_forward(const fa_gpu_shape *s, const float *Q, const float *K, const float *V,
                          float *O, float *LSE, cudaStream_t st);
/* variant 0: 8 warps x 16 rows; 1: 4 warps x 32 rows; 2: 4 x 32 rows with B_c 32;
 * 3: 8 warps x 32 rows; 4: as 1 with the lazy rescale; 6: 8 warps x 16 rows with B_c 128;
 * 7: as 1 with B_c 48 (5, v3_pipe, and 8, v3_ovl, were removed after measurement). */
cudaError_t fa_v3_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, int variant, const void *Q,
                          const void *K, const void *V, void *O, float *LSE, cudaStream_t st);
/* v4 (attn_v4_wgmma.cu), sm_90a only (cudaErrorInvalidDeviceFunction elsewhere):
 * variant 0: B_c 128; 1: B_c 64, two blocks per SM. */
cudaError_t fa_v4_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, int variant, const void *Q,
                          const void *K, const void *V, void *O, float *LSE, cudaStream_t st);
/* v5 (attn_v5_fa3.cu), sm_90a only: variant -1 v5 (chosen by d and causal), 0 v5_bc128,
 * 1 v5_bc176, 2 v5_wg3 (d = 64), 3 v5_nopp, 4 v5_pers, 5 v5_pers_wg3 (d = 64),
 * 6 v5_pers_bc160 (d = 128), 7 v5_exp2poly, 8 v5_cresc, 9 v5_fa4 (v5's tiles, FlashAttention-4's
 * softmax changes). */
cudaError_t fa_v5_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, int variant, const void *Q,
                          const void *K, const void *V, void *O, float *LSE, cudaStream_t st);
/* v3 backward (attn_v3_bwd_tc.cu): dQ, dK, dV (same dtype as Q) from Q, K, V, O, dO and the
 * forward's LSE.  ws: fa_v3_bwd_workspace_bytes bytes (D = rowsum(dO o O) and the fp32 dQ
 * accumulator).  deterministic = 1: no atomics (a second kernel computes dQ per Q block).
 * block_c: keys per thread block of the main kernel, 64 or 128; at d = 64, 128 | FA_BWD_OCC2
 * takes the queries of a step in two halves (half the S/dP registers) so that two thread
 * blocks of 8 warps fit on an SM (atomic dQ only). */
#define FA_BWD_OCC2 0x200
/* 128 | FA_BWD_MASKALL: the mask evaluated on every element (as before the boundary-tile
 * fast path): kept to compare the two. */
#define FA_BWD_MASKALL 0x800
size_t fa_v3_bwd_workspace_bytes(const fa_gpu_shape *s);
cudaError_t fa_v3_backward(const fa_gpu_shape *s, fa_gpu_dtype dt, int deterministic, int block_c,
                           const void *Q, const void *K, const void *V, const void *O,
                           const void *dO, const float *LSE, void *dQ, void *dK, void *dV,
                           float *ws, cudaStream_t st);
/* v5 backward (attn_v5_bwd.cu), sm_90a only (cudaErrorInvalidDeviceFunction elsewhere): dQ, dK,
 * dV as fa_v3_backward, d = 64 or 128.  ws: fa_v5_bwd_workspace_bytes bytes (the fp32 dQ
 * accumulator, LSE log2 e and D padded to 128 rows a head, the deterministic mode's counters).
 * deterministic = 1: dQ accumulated in the order of the key blocks (bitwise repeatable).
 * variant 0: dQ added by the TMA's reduce-add of a shared tile, a thread block per key block
 * (v5_bwd); 1: by fp32 atomics from the consumer threads (v5_bwd_atomic; deterministic = 0
 * only); 2: as 0 on a persistent grid (v5_bwd_pers); 3-8: as 0 with another step schedule or
 * fewer issued instructions (v5_bwd_s0, s1r, s1p, s2pr, dinc, lean; deterministic = 1 for 6-8
 * only: attn_v5_bwd.cu's header comment). */
size_t fa_v5_bwd_workspace_bytes(const fa_gpu_shape *s);
cudaError_t fa_v5_backward(const fa_gpu_shape *s, fa_gpu_dtype dt, int deterministic, int variant, const void *Q,
                           const void *K, const void *V, const void *O, const void *dO,
                           const float *LSE, void *dQ, void *dK, void *dV, float *ws,
                           cudaStream_t st);
/* v5 FP8 forward (attn_v5_fp8.cu), sm_90a only, d = 128: e4m3 Q, K and V^T (keys permuted within
 * 16-groups, padded with zero keys to n_kpad, a multiple of 128), one power-of-two scale exponent
 * per block of 128 rows (q_exp: B x H x ceil(N_q / 128); k_exp, v_exp: B x H_kv x n_kpad / 128),
 * bf16 O, fp32 LSE.  fa_v5_fp8_prepare quantizes fp32 Q, K, V (B, H, N, 128) into them: per block
 * (per_block = 1) or one exponent a tensor (0), with incoherent processing of Q and K
 * (hadamard = 1: rows times diag(s) H_128 / sqrt(128), s from seed as cpu_ref/fa_fp8.h). */
typedef struct {
    unsigned char *Q8, *K8, *Vt8;
    int *q_exp, *k_exp, *v_exp;
    float *amax; /* the pre-pass's block maxima */
    int n_kpad;
    int kv_blk; /* rows of K and V a scale block: 128 (fa_v5_fp8_alloc's) or 64 (set before fa_v5_fp8_prepare for a
                   variant whose fa_v5_fp8_kv_block is 64; k_exp, v_exp then B x H_kv x n_kpad / 64) */
} fa_fp8_bufs;
/* rows of K and V a scale block that variant reads (128, or 64 for variant 10); -1: no such variant */
int fa_v5_fp8_kv_block(int variant);
const char *fa_v5_fp8_check(const fa_gpu_shape *s);
cudaError_t fa_v5_fp8_alloc(const fa_gpu_shape *s, fa_fp8_bufs *b);
void fa_v5_fp8_free(fa_fp8_bufs *b);
cudaError_t fa_v5_fp8_prepare(const fa_gpu_shape *s, const float *Q, const float *K, const float *V, int per_block,
                              int hadamard, unsigned long long seed, fa_fp8_bufs *b, cudaStream_t st);
/* variant 0: the default (attn_v5_fp8.cu's list), ... 10, 11: three consumer warpgroups with 64-key turns, which
 * want in->kv_blk = 64 (fa_v5_fp8_kv_block); a variant given inputs of the other block size: cudaErrorInvalidValue */
cudaError_t fa_v5_fp8_forward(const fa_gpu_shape *s, int variant, const fa_fp8_bufs *in, void *O, float *LSE,
                              cudaStream_t st);
int fa_v0_init(void);
void fa_v0_finish(void);

#ifdef __cplusplus
}
#endif

#endif
