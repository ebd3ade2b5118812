/* fa_cp.h -- context parallelism: one attention layer's forward over P GPUs, the level above one
 * GPU (docs/context-parallel.md).  The sequence of N tokens is split over P GPUs; each scheme
 * runs local FlashAttention-2 calls (counted and timed by the single-GPU model: fa_perf.h) and
 * moves K, V (or Q, K, V, O) over NVLink:
 *
 *   ring      Ring Attention (Liu et al. 2023, arXiv 2310.01889): GPU r holds tokens
 *             [r N/P, (r+1) N/P); P steps, each a call of N/P queries against the N/P keys held
 *             at that step, while the K/V chunk moves on to the next GPU; partial outputs merged
 *             by their LSE.  Causal: the chunks above the diagonal are skipped (GPU P-1 works
 *             every step, GPU 0 once).
 *   zigzag    the load-balanced causal ring (Brandon et al. 2023, arXiv 2311.09431; the zigzag
 *             form of zhuzilin/ring-flash-attention): 2P chunks of N/(2P), GPU r holds chunks r
 *             and 2P-1-r; step 0 is a causal call on its own 2 chunks, every later step a full
 *             call of N/(2P) x N/P work (either half the queries or half the keys).
 *   allgather Megatron-Core / Transformer Engine style: all-gather K and V (ring all-gather),
 *             then each GPU computes its queries against all keys, no merge.  Causal: queries
 *             in the zigzag chunks r and 2P-1-r (two calls, bottom-right causal).
 *   ulysses   DeepSpeed-Ulysses (Jacobs et al. 2023, arXiv 2309.14509): all-to-all of Q, K, V
 *             from sequence to head sharding, a full-N call on H/P heads, all-to-all of O back.
 *
 * Units: bytes, FLOPs, seconds; every count is per GPU and per layer (forward pass). */
#ifndef FA_CP_H
#define FA_CP_H

#include <stdint.h>

#include "fa_analysis.h"
#include "fa_perf.h"

typedef enum { FA_CP_RING = 0, FA_CP_ZIGZAG, FA_CP_ALLGATHER, FA_CP_ULYSSES, FA_CP_NSCHEME } fa_cp_scheme;

/* The most GPUs a configuration may have. */
#define FA_CP_MAX_P 1024

/* "ring", "zigzag", "allgather", "ulysses" ("?" out of range). */
const char *fa_cp_scheme_name(fa_cp_scheme s);
/* Parses a scheme name.  Errors: FA_EINVAL naming the value and the four schemes. */
fa_status fa_cp_scheme_parse(const char *text, fa_cp_scheme *out);

/* Checks that scheme sc can split shape s over P GPUs: 1 <= P <= FA_CP_MAX_P; self-attention
 * (N_q = N_k); no window, block, column or dense mask; P divides N (2P divides N for zigzag and
 * for causal allgather, whose queries sit in the zigzag chunks); ulysses: P divides H and H_kv.
 * P = 1 is one GPU and takes any N.  Errors: FA_EINVAL with a message naming the value and the
 * limit. */
fa_status fa_cp_check(const fa_shape *s, int64_t P, fa_cp_scheme sc);

/* One configuration: the whole layer's shape (N = s.seqlen_q tokens), the GPU (each of the P
 * alike, hw.nvlink_bandwidth their link), the kernel profile of the local calls (NULL: fa2,
 * FlashAttention-2's), P and the scheme; count 1 also counts every local call in the memory
 * model (count-only) and compares it with the closed form. */
typedef struct {
    fa_shape shape;
    fa_hw hw;
    const fa_profile *profile;
    int64_t P;
    fa_cp_scheme scheme;
    int count;
} fa_cp_config;

/* The prediction for the busiest GPU (the one with the most HBM bytes; its counts are what the
 * tables print) and the time of the whole layer (the slowest GPU of every step). */
typedef struct {
    fa_cp_scheme scheme;
    int64_t P;
    int64_t gpu;            /* the rank whose counts are shown */
    int64_t calls;          /* local attention calls it runs */
    int64_t merges;         /* LSE merges it runs (ring, zigzag) */
    uint64_t attn_bytes;    /* HBM bytes of its local attention calls (closed form, docs/io-model.md) */
    uint64_t merge_bytes;   /* HBM bytes of its merges, the accumulator's fp32 start and final cast */
    uint64_t hbm_bytes;     /* attn_bytes + merge_bytes */
    uint64_t attn_flops;    /* matmul FLOPs of its calls (visited tiles) */
    uint64_t merge_flops;   /* merge FLOPs: (3 d_v + 8) per merged row and head */
    uint64_t sent_bytes;    /* bytes it sends over NVLink */
    uint64_t recv_bytes;    /* bytes it receives over NVLink */
    uint64_t memory_bytes;  /* its live attention tensors at the peak (inputs, buffers, output) */
    double compute_s;       /* the compute on the critical path: calls + merges (slowest GPU per step) */
    double comm_s;          /* the link time: bytes received / hw.nvlink_bandwidth */
    double time_s;          /* the prediction (ring, zigzag: each step max(compute, transfer), the last
                               step's compute alone; allgather, ulysses: comm + compute, in sequence) */
    int link_bound;         /* 1: the link sets the time (comm_s exceeds the compute that can hide it) */
    int has_time;           /* 1: every local call had the time model's time (0: roofline times) */
    int counted;            /* count 1: 1 when every call's counted bytes equal its closed form, else 0;
                               count 0: -1 */
    char profile[16];       /* the local calls' kernel profile */
} fa_cp_result;

/* Predicts configuration c.  Errors: those of fa_cp_check; FA_EINVAL when P > 1 and hw has no
 * nvlink_bytes_per_s; those of fa_perf_predict (a local call the kernel cannot run) and of the
 * counted run. */
fa_status fa_cp_predict(const fa_cp_config *c, fa_cp_result *r);

/* The closed forms of docs/context-parallel.md, each per GPU (e = bytes per element):
 * fa_cp_link_bytes: the bytes one GPU sends (= receives) in the forward:
 *   ring, zigzag:  (P-1) B (N/P) H_kv (d + d_v) e
 *   allgather:     (P-1) B (N/P) H_kv (d + d_v) e
 *   ulysses:       (P-1) B (N/P) (H/P + H_kv/P) (d + d_v) e  (of Q, K, V and O a GPU keeps 1/P)
 * fa_cp_merge_bytes: one merge of R query rows: B H R (d_v (8 + e) + 12);
 * fa_cp_memory_bytes: the live bytes per GPU (docs/context-parallel.md, "Memory").
 * The shape must pass fa_cp_check. */
uint64_t fa_cp_link_bytes(const fa_shape *s, int64_t P, fa_cp_scheme sc);
uint64_t fa_cp_merge_bytes(const fa_shape *s, int64_t rows);
uint64_t fa_cp_memory_bytes(const fa_shape *s, int64_t P, fa_cp_scheme sc);

#endif
