/* fa_analysis.h -- closed forms, bounds, block-size rules and one-call IO runs.
 *
 * Every closed form here is derived in docs/io-model.md and proved equal to the counted
 * bytes by tests/test_formula.c.  Units: bytes, FLOPs, seconds.
 */
#ifndef FA_ANALYSIS_H
#define FA_ANALYSIS_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "fa_attn.h"
#include "fa_bwd.h"
#include "fa_hw.h"
#include "fa_sim.h"

/* The shape in an overflow message: "closed-form totals exceed 64 bits for " FA_OVF_SHAPE. */
#define FA_OVF_SHAPE                                                                           \
    "B = %" PRId64 ", H = %" PRId64 ", N_q = %" PRId64 ", N_k = %" PRId64 ", d = %" PRId64      \
    " (use a smaller --seqlen, --batch or --heads)"
#define FA_OVF_ARGS(s) (s)->batch, (s)->heads, (s)->seqlen_q, (s)->seqlen_k, (s)->d
/* The same without the advice, for a message that goes on with fa_ovf_limit's text. */
#define FA_OVF_DIMS                                                                            \
    "B = %" PRId64 ", H = %" PRId64 ", N_q = %" PRId64 ", N_k = %" PRId64 ", d = %" PRId64

/* The limit an overflow message names: the largest N (N_q = N_k = N when they are equal, else
 * the longer of the two, the other kept) for which fits(shape) is 1 (0: the counts overflow) at s's B, H and d, found by
 * bisection (the counts grow with N), as ": at these B, H, d they fit up to N = X (use a smaller
 * --seqlen, ...)" into buf.  Where no N fits (N = 1 overflows too: B, H or d is what overflows) and
 * for a shape with a block, column or dense mask (their arrays are sized to s's N), the largest B
 * that fits at s's N, H and d: "...: no N fits at these B, H, d; at these H, d and N = X they fit
 * up to B = Y (use a smaller --batch or --heads)", or "... no B fits ..." when B = 1 overflows. */
void fa_ovf_limit(const fa_shape *s, int (*fits)(const fa_shape *t, const void *ctx), const void *ctx, char *buf,
                  size_t n);

typedef enum { FA_ALGO_STANDARD = 0, FA_ALGO_FLASH1 = 1, FA_ALGO_FLASH2 = 2, FA_NALGO = 3 } fa_algo;

const char *fa_algo_name(fa_algo a);
/* Parses "standard", "flash1", "flash2".  Errors: FA_EINVAL naming the value. */
fa_status fa_algo_parse(const char *s, fa_algo *a);

/* Per-tensor HBM bytes of a closed form.  Tensor names as in the counters:
 * Q, K, V, O, S, P, l, m, LSE, mask (the dense mask's tiles, 1 byte per element). */
#define FA_FORMULA_TENSORS 10
extern const char *const fa_formula_tensor_names[FA_FORMULA_TENSORS];

typedef struct {
    uint64_t read[FA_FORMULA_TENSORS];  /* bytes read per tensor */
    uint64_t write[FA_FORMULA_TENSORS]; /* bytes written per tensor */
    uint64_t read_bytes, write_bytes;   /* sums */
    uint64_t matmul_flops;              /* 2 N_q N_k (d + d_v) per head over visited tiles */
} fa_formula;

/* Exact closed-form HBM bytes of algorithm a on shape s with tiles bk (docs/io-model.md).
 * Errors: FA_EINVAL (shape, blocks), FA_EOVERFLOW (a count exceeds 64 bits). */
fa_status fa_formula_bytes(fa_algo a, const fa_shape *s, fa_blocks bk, fa_formula *out);

/* The tile loads of the FlashAttention-2 forward (fa_flash2_forward) on shape s with tiles bk,
 * over all B H heads: *q_loads, the row blocks that see a key (each loads Q_i once), and
 * *kv_loads, the K/V tiles they visit (each loads K_j and V_j once): B H T_r and B H T_r T_c
 * without a mask, under a mask the tiles fa_kv_span_sum leaves (the sums of the flash2 closed
 * form).  An fp8 kernel reads one scale exponent of Q, K, V with each (docs/io-model.md, "An FP8
 * forward kernel").  Errors: FA_EINVAL (shape, blocks), FA_EOVERFLOW (beyond 64 bits). */
fa_status fa_formula_flash2_loads(const fa_shape *s, fa_blocks bk, uint64_t *q_loads, uint64_t *kv_loads);

/* Bytes of SRAM the algorithm allocates with tiles bk (its peak; docs/io-model.md, "SRAM"). */
uint64_t fa_sram_need(fa_algo a, const fa_shape *s, fa_blocks bk);

/* The Theta bound of Theorem 2 evaluated with constant 1, in bytes:
 * standard B H (N_q d + N_q N_k) e;  flash1/flash2 B H N_q N_k d^2 e^2 / M  (M in bytes). */
double fa_bound_bytes(fa_algo a, const fa_shape *s, uint64_t M);

/* --blocks fit: square tiles B_r = B_c = B, the largest multiple of 16 whose flash buffers
 * fit M: 4 B^2 + B (2 d e + d_v e + 4 d_v + 8) <= M; then B_r = min(B, 16 ceil(N_q/16)),
 * B_c = min(B, 16 ceil(N_k/16)).  Errors: FA_ENOSRAM if not even B = 16 fits (the message
 * names M and what 16 x 16 tiles need). */
fa_status fa_blocks_fit(const fa_shape *s, uint64_t M, fa_blocks *out);

/* --blocks paper: Algorithm 1 line 1 with M in elements (M / e):
 * B_c = ceil(M / 4d), B_r = min(ceil(M / 4d), d), each clamped to its sequence length (N_k,
 * N_q).  *overflow receives how many bytes the
 * buffers need beyond M (0 if they fit). */
void fa_blocks_paper(const fa_shape *s, uint64_t M, fa_blocks *out, uint64_t *overflow);

/* Which pass a count or footprint is about (--pass fwd|bwd|fwdbwd). */
typedef enum { FA_PASS_FWD = 0, FA_PASS_BWD = 1, FA_PASS_FWDBWD = 2, FA_NPASS = 3 } fa_pass;

const char *fa_pass_name(fa_pass p);
/* Parses "fwd", "bwd", "fwdbwd".  Errors: FA_EINVAL naming the value. */
fa_status fa_pass_parse(const char *s, fa_pass *p);

/* Tensor names of the forward and backward counters.  The first FA_FORMULA_TENSORS entries are
 * fa_formula_tensor_names in the same order (Q, K, V, O, S, P, l, m, LSE, mask), then dO, dP, dS, D,
 * dQ, dQacc, dK, dV.  D = rowsum(dO o O) and dQacc (FlashAttention-2's dQ accumulator) are fp32;
 * then O_part, LSE_part: the fp32 partials of FlashAttention-2's split-KV forward. */
#define FA_PASS_TENSORS 20
extern const char *const fa_pass_tensor_names[FA_PASS_TENSORS];

/* Per-tensor HBM bytes of a closed form over any pass. */
typedef struct {
    uint64_t read[FA_PASS_TENSORS];  /* bytes read per tensor */
    uint64_t write[FA_PASS_TENSORS]; /* bytes written per tensor */
    uint64_t read_bytes, write_bytes; /* sums */
    uint64_t matmul_flops;            /* tile products over the visited tiles */
} fa_pass_formula;

/* Exact closed-form HBM bytes and matmul FLOPs of the backward of algorithm a (standard:
 * fa_standard_backward, flash1: fa_flash1_backward, flash2: fa_flash2_backward) on shape s with
 * tiles bk, tails and causal tile skipping included (docs/io-model-backward.md).
 * Errors: FA_EINVAL (shape, blocks, algorithm), FA_EOVERFLOW (a count exceeds 64 bits). */
fa_status fa_formula_bwd_bytes(fa_algo a, const fa_shape *s, fa_blocks bk, fa_pass_formula *out);

/* The same for a pass: fwd (fa_formula_bytes in the first 9 entries), bwd, or fwd + bwd.
 * splits > 1 (flash2 only): the forward is FlashAttention-2's split-KV kernel and its combine
 * (fa_flash2_forward_split; docs/io-model.md, "Split-KV"): Q_i read once per chunk that has a
 * tile, O_part and LSE_part written and read once, O and LSE written by the combine.
 * Errors: as fa_formula_bwd_bytes; FA_EINVAL for splits < 1, or > 1 with another algorithm. */
fa_status fa_formula_pass_bytes(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits,
                                fa_pass_formula *out);

/* FlashAttention-2's split-KV forward with S chunks of ceil(T_c / S) key tiles: the query rows
 * its thread blocks load per slice, each row block's rows once per chunk that holds a tile the
 * block visits (the mask's SKIP tiles left out). */
int64_t fa_split_q_rows(const fa_shape *s, fa_blocks bk, int64_t splits);

/* Bytes of SRAM the backward of a allocates with tiles bk: its peak over its kernels
 * (docs/io-model-backward.md, "SRAM").  fa_sram_need_pass: fwd, bwd, or their max. */
uint64_t fa_sram_need_bwd(fa_algo a, const fa_shape *s, fa_blocks bk);
uint64_t fa_sram_need_pass(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk);

/* Theorem 5 (Dao et al. 2022): the backward pass has the same orders as the forward, standard
 * Theta(N d + N^2), FlashAttention Theta(N^2 d^2 / M).  Evaluated with constant 1, in bytes:
 * standard B H (N_q d + N_q N_k) e, flash1/flash2 B H N_q N_k d^2 e^2 / M (M in bytes).
 * fa_bound_pass_bytes: fwd (Theorem 2), bwd (Theorem 5), fwdbwd (their sum). */
double fa_bound_bwd_bytes(fa_algo a, const fa_shape *s, uint64_t M);
double fa_bound_pass_bytes(fa_pass p, fa_algo a, const fa_shape *s, uint64_t M);

/* Theorems 2 and 5 hold for d <= M <= N d (M in elements); in bytes d e <= M <= N d e, with N =
 * min(N_q, N_k) where they differ (decoding's N_q = 1).  Outside that range the Theta expression
 * can fall below the bytes every algorithm must move.  Returns 1 inside the range, 0 outside;
 * *compulsory (may be NULL): those bytes over all heads -- Q, K, V, O once forward, Q, K, V, O,
 * dO, dQ, dK, dV backward (twice the forward's), their sum for fwdbwd. */
int fa_theta_in_range(fa_pass p, const fa_shape *s, uint64_t M, double *compulsory);

/* HBM memory footprint of attention over all B x H heads, in bytes (docs/io-model-backward.md,
 * "Memory footprint").  A tensor lives from its first write to its last read; the forward's
 * inputs and saved tensors live through both passes. */
typedef struct {
    uint64_t inputs;   /* Q, K, V */
    uint64_t output;   /* O */
    uint64_t stats;    /* what the backward needs besides Q, K, V, O: standard P (N_q N_k e per
                          head), flash1 l and m (8 N_q per head), flash2 LSE (4 N_q per head) */
    uint64_t saved;    /* inputs + output + stats: kept in HBM between forward and backward */
    uint64_t fwd_peak; /* largest live set of the forward (standard: Q K V + P + max(S, O)) */
    uint64_t bwd_peak; /* largest live set of the backward: saved + dO + gradients + its
                          intermediates (standard: dP, dS; flash2: D, dQacc) */
    uint64_t peak;     /* max(fwd_peak, bwd_peak): one training step */
} fa_footprint;

/* Fills f for algorithm a on shape s.  Errors: FA_EINVAL, FA_EOVERFLOW (beyond 64 bits). */
fa_status fa_hbm_footprint(fa_algo a, const fa_shape *s, fa_footprint *f);

/* A split-KV forward (FlashAttention-2's num_splits > 1, docs/io-model.md "Split-KV"): the splits'
 * fp32 partials O_part and LSE_part, 4 B H N_q S (d_v + 1) bytes, live in HBM from the split
 * kernel to the combine kernel, beside the inputs, O and LSE (the combine writes those while it
 * reads the partials): fwd_peak = saved + the partials, and peak = max(fwd_peak, bwd_peak).
 * splits <= 1 leaves f as it is.  Errors: FA_EOVERFLOW (beyond 64 bits). */
fa_status fa_footprint_split(fa_footprint *f, const fa_shape *s, int64_t splits);

/* The peak of a pass: fwd_peak, bwd_peak or peak. */
uint64_t fa_footprint_peak(const fa_footprint *f, fa_pass p);

/* The smallest N such that algorithm a with N_q = N_k = N (batch, heads, kv heads, d, d_v and
 * dtype from s; the mask does not change the footprint) needs more than hbm_bytes of HBM in
 * pass p (fa_footprint_peak); *n_out = 0 when every N < 2^31 fits.  For standard attention and
 * an 80 GB GPU this is where it runs out of memory.  Errors: FA_EINVAL (shape, hbm_bytes = 0). */
fa_status fa_oom_seqlen(fa_algo a, const fa_shape *s, fa_pass p, uint64_t hbm_bytes,
                        int64_t *n_out);

/* Runs the backward of a in count-only mode on mem (which may already hold a forward's counts:
 * tensors of the same name share a counter).  Errors: those of the algorithm. */
fa_status fa_bwd_run(fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk);

/* One count-only run of a pass of an algorithm with everything the tool prints about it. */
typedef struct {
    fa_pass pass;
    fa_algo algo;
    fa_blocks blocks;
    uint64_t sram_bytes;     /* M the run used */
    uint64_t sram_overflow;  /* > 0 when --blocks paper's tiles make this algorithm's buffers need
                                more than M: sram_need - M (set by the caller) */
    fa_counts counts;        /* measured; fwdbwd: both passes on one memory model (bytes add up
                                per tensor, sram_peak_bytes is the larger peak) */
    fa_pass_formula formula; /* closed form */
    uint64_t sram_need;      /* closed-form SRAM peak (== counts.sram_peak_bytes) */
    double bound_bytes;      /* Theorem 2 / 5 bound with constant 1 */
    double nominal_flops;    /* FA2 convention: fwd 2 B H N_q N_k (d + d_v) (x 1/2 causal),
                                bwd 2.5 x fwd, fwdbwd 3.5 x fwd */
    double intensity;        /* counted FLOPs per HBM byte */
    double time_compute_s;   /* matmul / tensor peak + other / fp32 peak */
    double time_memory_s;    /* HBM bytes / bandwidth */
    double time_s;           /* roofline: max of the two (0 when hw is NULL); the CSV and JSON
                                roofline_s (their time_s is fa_report_time: the table's) */
    fa_footprint footprint;  /* HBM footprint of the algorithm on s */
    int has_l2;              /* 1 when fa_io_l2 filled the fields below */
    uint64_t dram_read_bytes;  /* with the L2 model: bytes read from DRAM */
    uint64_t dram_write_bytes; /* with the L2 model: bytes written to DRAM */
    int l2_slots;              /* concurrent thread blocks the L2 model replays: SMs x blocks per SM */
    int64_t l2_max_grid;       /* thread blocks of the largest kernel replayed: fewer than
                                  l2_slots run at once when it is smaller */
    int l2_partitions;         /* L2 partitions the model used (1 or 2) */
    /* ---- the time model (fa_perf.h), filled by the command line when a kernel profile ran ---- */
    char profile[16];          /* the kernel profile's key; "" = the paper's model (one SRAM of M) */
    int has_perf;              /* 1: the fields below hold the time model's prediction */
    fa_blocks blocks_bwd;      /* the backward kernel's tiles (a profile's bwd tiles may differ) */
    double perf_time_s;        /* predicted time */
    int perf_bound;            /* the busiest pipe, an fa_pipe (CSV busiest_pipe, JSON time_model.busiest_pipe) */
    const char *perf_sets;     /* what sets its time (fa_perf_result.sets): the tables' "bound" */
    int perf_tail;             /* 1: the waves add over 10 % (tail, latency, causal imbalance) */
    double perf_busy[6];       /* busy time per fa_pipe, s */
    unsigned perf_pipes;       /* the pipes the model charges (fa_perf_result.pipes, bit 1 << fa_pipe) */
    double perf_tflops;        /* nominal FLOPs / perf_time_s, TFLOP/s */
    uint64_t dram_est_bytes;   /* estimated DRAM bytes (docs/time-model.md, "DRAM"); the framework's
                                  layout copies (layout_copy_bytes) included */
    uint64_t layout_copy_bytes; /* a profile's layout copies before its backward (fa_profile
                                  layout_copies_bwd), read + written: in dram_est_bytes and the
                                  time, not in counts (the framework's, not the algorithm's); 0: none */
    int occupancy[2];          /* thread blocks an SM can hold, forward / backward kernel (0: not run) */
    double blocks_run[2];      /* thread blocks that share an SM: min(occupancy, ceil(grid / SMs))
                                  (docs/time-model.md, section 3; the time model's blocks_per_sm) */
    int regs_per_thread[2];
    uint64_t smem_per_block[2];
    int warps[2];
    const char *occ_limit[2];
    int perf_latency;          /* not a pipe sets the time: 1 the launches, 2 a grid under one wave */
    int splits;                /* the forward's split-KV count S (1: none): counts and formula are
                                  those of fa_flash2_forward_split with S chunks */
    int ngroups_swapped;       /* 1: the profile's forward ran one query row of H heads as H / H_kv
                                  rows of H_kv heads (fa_profile_ngroups_swap): counts and formula
                                  are that shape's */
    char perf_note[200];       /* why the time model did not run (has_perf 0), or "" */
    uint64_t prepass_read_bytes, prepass_write_bytes; /* a profile's V -> V^T pre-pass (fa_perf_result):
                                  a kernel of its own, not in counts; 0: none */
    double prepass_time_s;     /* its predicted time (0 without the time model) */
    uint64_t dram_comp_bytes;  /* the compulsory part of dram_est_bytes (fa_perf_result.compulsory_bytes) */
} fa_io_result;

/* Runs pass p of algorithm a in count-only mode with SRAM M (trace: optional CSV sink, merging
 * off when set), fills r.  hw may be NULL (no times).  Errors: those of the algorithms and
 * closed forms. */
fa_status fa_io_run(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M,
                    const fa_hw *hw, FILE *trace, fa_io_result *r);

/* fa_io_run with the buffers named in regs (space-separated, NULL: none) placed in a register
 * arena of reg_capacity bytes instead of the SRAM of M (fa_mem_set_registers): the placement of a
 * kernel profile (fa_perf.h).  counts.sram_peak_bytes is then the shared memory alone and
 * counts.reg_peak_bytes the registers; sram_need stays the paper's model (every buffer in M).
 * Errors: as fa_io_run, and FA_EINVAL for a bad placement list. */
/* splits > 1: flash2's forward is the split-KV kernel with its combine (fa_run_pass_split). */
fa_status fa_io_run_regs(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M,
                         const fa_hw *hw, const char *regs, size_t reg_capacity, FILE *trace,
                         fa_io_result *r);

/* Adds the counts, closed form and nominal FLOPs of b (another pass of the same algorithm and
 * shape) to a: per tensor by name, peaks as the larger of the two (fwdbwd with per-pass tiles). */
void fa_io_result_add(fa_io_result *a, const fa_io_result *b);

/* The forward of algorithm a on mem, numeric or count-only (then all arrays NULL).  Shapes as
 * fa_attn.h: Q (B,H,N_q,d), K (B,H_kv,N_k,d), V (B,H_kv,N_k,d_v), O (B,H,N_q,d_v), LSE (B,H,N_q),
 * which may be NULL: flash2's LSE, or flash1's m + log l (with the memory model's numerics); NaN
 * for standard, which stores no statistic.  Errors: those of the algorithm, FA_ENOMEM. */
fa_status fa_run_forward(fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                         const double *K, const double *V, double *O, double *LSE);

/* Runs pass p of algorithm a on mem (count-only or numeric with NULL data not allowed: this is
 * the count-only dispatcher used by fa_io_run and fa_io_l2). */
fa_status fa_run_pass(fa_pass p, fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk);
/* The same with the forward of flash2 split S ways (fa_flash2_forward_split; the backward never
 * splits).  Errors: FA_EINVAL for S < 1, or S > 1 with standard or flash1. */
fa_status fa_run_pass_split(fa_pass p, fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t splits);

/* Predicts DRAM bytes with the L2 model (sim/fa_l2.h): replays the pass's transfers with
 * hw->sms x blocks_per_sm concurrent thread blocks through an L2 of hw->l2_bytes (128-byte
 * lines, 16 ways, hw->l2_partitions partitions).  blocks_per_sm = 0 estimates the occupancy as
 * max(1, floor(sram_per_sm / SRAM need)), capped at 32; a kernel's own occupancy (what Nsight
 * Compute's launch__occupancy_limit_* report) may be given instead (1..32).  splits: as
 * fa_run_pass_split.  Fills the has_l2 fields of r (r must come from fa_io_run with the same
 * arguments).  Errors: FA_EINVAL when blocks_per_sm is out of range or
 * the run has more than 2^26 transfers, FA_ENOMEM, those of the algorithm. */
fa_status fa_io_l2(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M,
                   const fa_hw *hw, int blocks_per_sm, fa_io_result *r);

/* --blocks fit for a pass: the largest square multiple of 16 whose buffers fit M for every
 * algorithm in pass p (fwd: the rule of fa_blocks_fit; bwd and fwdbwd also the backward's
 * larger buffers), clamped to the sequence lengths like fa_blocks_fit.
 * Errors: FA_ENOSRAM when not even 16 x 16 fits. */
fa_status fa_blocks_fit_pass(fa_pass p, const fa_shape *s, uint64_t M, fa_blocks *out);

/* Roofline time of a result on hw (fills the three time fields). */
void fa_io_times(fa_io_result *r, const fa_shape *s, const fa_hw *hw);

/* Model shapes read from a HuggingFace config.json, as Transformers reads them
 * (docs/conventions.md, "Model configs"). */
#define FA_MODEL_MAX_LAYERS 1024 /* layers a model with both full and sliding-window layers may have */
typedef struct {
    char name[64];
    char type[32];            /* model_type ("" when the file names none) */
    int64_t heads, kv_heads;  /* H and H_kv of training and prefill (MLA: H_kv = H) */
    int64_t head_dim;         /* d = d_qk (MLA: qk_nope_head_dim + qk_rope_head_dim) */
    int64_t head_dim_v;       /* d_v (MLA: v_head_dim; else head_dim) */
    int64_t layers, max_positions;
    int64_t sliding_window;   /* W: tokens a query of a sliding layer attends to (itself included); 0: none */
    int64_t n_sliding;        /* how many of the layers use the window (the others: full causal) */
    uint8_t layer_sliding[FA_MODEL_MAX_LAYERS]; /* layer i (i < layers) uses the window */
    double scale;             /* softmax scale Transformers uses; 0: 1/sqrt(head_dim) */
    char scale_from[64];      /* how the config sets scale ("1/sqrt(query_pre_attn_scalar = 144)",
                                 "scale_attn_weights false", "mscale^2 / sqrt(d), yarn mscale = 1.37");
                                 "" with scale 0 */
    char scale_note[128];     /* the other scale of a config its implementations read two ways
                                 (DeepSeek-V2: Transformers 1/sqrt(d), DeepSeek's code and vLLM
                                 mscale^2 / sqrt(d)); "" when they agree */
    double softcap;           /* logit softcap (attn_logit_softcapping); 0: none */
    char note[320];           /* what the file leaves to the configuration class or sets for another
                                 family ("N = 131072: no max_position_embeddings, Gemma3TextConfig's
                                 default"; "sliding_window ignored: llama's attention does not read
                                 it"); "" when nothing */
    int mla;                  /* 1: DeepSeek-V2/V3 multi-head latent attention */
    int64_t latent_d, latent_d_v; /* MLA decoding in the latent form (FlashMLA): d_qk = kv_lora_rank +
                                     qk_rope_head_dim, d_v = kv_lora_rank, one kv head */
    fa_dtype dtype;
    int dtype_default;        /* 1: the file names no torch_dtype / dtype (dtype is fasim's fp16) */
} fa_model;

/* Reads a HuggingFace config.json as Transformers' configuration and attention classes read it
 * (the rules, with the keys of each family: docs/conventions.md, "Model configs").  A file with
 * a "text_config" object and no num_attention_heads (Gemma-3's multimodal configs) is read from
 * its text_config.
 *  - H: num_attention_heads / n_head.  H_kv: Falcon's rule (new_decoder_architecture:
 *    num_kv_heads; else multi_query (Falcon's default true): 1; else H), then
 *    num_key_value_heads / num_kv_heads / n_kv_heads / n_head_kv, default H.
 *  - d: an explicit head_dim wins over hidden_size / H (Gemma's default 256); MLA (kv_lora_rank
 *    given): d = qk_nope_head_dim + qk_rope_head_dim, d_v = v_head_dim, H_kv = H, and the
 *    latent decoding form d = kv_lora_rank + qk_rope_head_dim, d_v = kv_lora_rank, H_kv = 1.
 *  - the scale: 1/sqrt(query_pre_attn_scalar) when given (Gemma-2/3; their default 256);
 *    scale_attn_weights false: 1 (GPT-2); MLA: 1/sqrt(d) x mscale^2 with
 *    mscale = 0.1 mscale_all_dim ln(factor) + 1 of a yarn rope_scaling (DeepseekV3Attention),
 *    except model_type deepseek_v2: 1/sqrt(d) (DeepseekV2Attention), the mscale^2 value that
 *    DeepSeek's code and vLLM use in scale_note; else 1/sqrt(d).
 *  - softcap: attn_logit_softcapping (Gemma-2's default 50).
 *  - the window: sliding_window (Mistral's, Gemma's and Qwen2's default 4096), none when null or
 *    when use_sliding_window is false (Qwen2/Qwen3's default; a 0 there too); 0 otherwise refused
 *    (Transformers would build a window of no key from it); per layer: layer_types
 *    (sliding_attention / full_attention), else Gemma-2's alternation (even layers sliding),
 *    sliding_window_pattern P (Gemma-3's default 6: layer i is full iff (i + 1) % P == 0), Qwen's
 *    max_window_layers (layers i >= it slide), else every layer slides.
 *  - layers num_hidden_layers / n_layer (default 1), positions max_position_embeddings /
 *    n_positions / n_ctx (default 2048), torch_dtype / dtype (default fp16), the name
 *    _name_or_path or model_type.
 * Integers may be written as integral reals (8.0) and must lie in [1, 2^31 - 1].
 * Errors: FA_EIO (missing file), FA_EINVAL (a directory, malformed JSON or a key given twice
 * (jansson's JSON_REJECT_DUPLICATES), a missing, non-integer or out-of-range key naming the key
 * and the limit, hidden_size not a multiple of heads without head_dim, heads not a multiple of
 * kv heads, an unknown dtype, and a key that changes attention in a way fasim does not model,
 * named: alibi, position_embedding_type alibi, attention_chunk_size, attention_multiplier,
 * scale_attn_by_inverse_layer_idx, use_bidirectional_attention, attn_temperature_tuning,
 * attn_config, a layer type other than sliding_attention / full_attention, a rope_scaling whose
 * attention factor rescales q and k (yarn, longrope) outside MLA's mscale rule). */
fa_status fa_model_load(const char *path, fa_model *m);

/* The softmax scale of model m: m->scale, else 1/sqrt(head_dim). */
double fa_model_scale(const fa_model *m);

/* Fills the fields of s that are not given (-1) from model m (NULL: none), then from fasim's
 * defaults.  From m: H_kv (--heads alone on a multi-head model keeps it multi-head: H_kv = H; a
 * GQA model keeps its H_kv), H, d, d_v (the model's head_dim_v; = d when d is given: --headdim
 * alone moves d_v with it), the scale and the softcap when s has none (scale <= 0, softcap 0),
 * dtype and N_q = max_positions (no window: it is per layer; give --window).  Then B = 1, H = H_kv (else 1), H_kv = H, N_q = 1024, N_k = N_q,
 * d = 64, d_v = d, fp16.  Checks nothing (fa_shape_check does). */
void fa_shape_fill(fa_shape *s, const fa_model *m);

/* Masks read from files (the command line's --block-mask, --col-mask, --doc-mask, --mask).
 * The store owns the arrays that the fa_shape mask pointers point to. */
typedef struct {
    fa_block_mask block;
    fa_col_mask col;
    uint8_t *bits;  /* block mask bits */
    int32_t *cols;  /* 4 N_k column bounds */
    uint8_t *dense; /* N_q x N_k */
} fa_mask_store;
void fa_mask_store_free(fa_mask_store *m);

/* Block-sparse mask file: a first line "block_r block_c", then ceil(N_q / block_r) rows of
 * ceil(N_k / block_c) characters 0 or 1 (spaces and commas ignored; '#' starts a comment).
 * Errors: FA_EIO (cannot read), FA_EINVAL (naming the file, line and what was expected). */
fa_status fa_block_mask_load(const char *path, int64_t Nq, int64_t Nk, fa_mask_store *m);

/* FlashMask column file: N_k lines "lo1 hi1 [lo2 hi2]": query rows [lo1, hi1) and [lo2, hi2)
 * are masked for that key.  Errors: FA_EIO, FA_EINVAL. */
fa_status fa_col_mask_load(const char *path, int64_t Nq, int64_t Nk, fa_mask_store *m);

/* Causal document masking as a column mask: documents of the given lengths packed in one
 * sequence of N = sum of lengths; a query sees the keys of its own document up to itself.
 * Errors: FA_EINVAL (a length < 1, or the sum differs from N). */
fa_status fa_col_mask_documents(const int64_t *len, int n_docs, int64_t N, fa_mask_store *m);

/* Dense mask file: N_q rows of N_k characters 0 or 1 (1 = allowed).  At most 1e8 entries.
 * Errors: FA_EIO, FA_EINVAL. */
fa_status fa_dense_mask_load(const char *path, int64_t Nq, int64_t Nk, fa_mask_store *m);

/* The masks of the command line's files on shape s (its N_q and N_k known): block_path
 * (--block-mask), col_path (--col-mask), the n_docs document lengths doc_len (--doc-mask) and
 * dense_path (--mask), each NULL / 0 when not given, read into m and pointed to by s.  Errors:
 * FA_EINVAL when documents and a column mask are both given or documents with N_q != N_k, and
 * those of the four readers (the first that fails; s keeps the masks read before it). */
fa_status fa_masks_load(fa_shape *s, const char *block_path, const char *col_path, const int64_t *doc_len, int n_docs,
                        const char *dense_path, fa_mask_store *m);


/* ---- inference: varlen batches, split-KV decoding, paged KV, GQA packing (fa_infer.h) ----
 * Closed forms derived in docs/inference.md, proved equal to the counts by tests/test_decode.c
 * and tests/test_varlen.c (analysis/formula_decode.c). */
#include "fa_infer.h"

/* Tensors of the inference counters: Q, K, V, O, LSE, O_part, LSE_part, block_table. */
#define FA_INFER_TENSORS 8
extern const char *const fa_infer_tensor_names[FA_INFER_TENSORS];

typedef struct {
    uint64_t read[FA_INFER_TENSORS];  /* bytes read per tensor */
    uint64_t write[FA_INFER_TENSORS]; /* bytes written per tensor */
    uint64_t read_bytes, write_bytes; /* sums */
    uint64_t matmul_flops, other_flops; /* every FLOP the kernels count */
    uint64_t partial_bytes;   /* O_part + LSE_part, written and read back (0 when S = 1) */
    uint64_t sram_need;       /* peak SRAM: max(main kernel, combine) */
    uint64_t programs_main;   /* thread blocks of the main kernel (row blocks x chunks) */
    uint64_t programs_combine; /* thread blocks of the combine (0 when S = 1) */
    uint64_t prog_bytes_max;  /* HBM bytes of the heaviest main-kernel thread block */
    double prog_time_max_s;   /* its time with 1/sms of the sustained DRAM rate (dram_bytes_per_s) and of the peaks */
    double combine_prog_time_s; /* the same for a combine thread block */
} fa_infer_formula;

/* Exact closed-form counts of fa_decode_forward (vl NULL, opt->page_size 0),
 * fa_paged_forward (page_size >= 1) or fa_varlen_forward (vl given).  hw (may be NULL: no
 * per-program times) feeds the wave model.  Errors: FA_EINVAL, FA_EOVERFLOW. */
fa_status fa_infer_formula_bytes(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                                 const fa_varlen *vl, const fa_hw *hw, fa_infer_formula *out);

/* Tiles for an inference run on M bytes of SRAM: the largest multiple of 16, B <= 128, whose main
 * kernel buffers fit M with B_r = min(B, 16 ceil(R / 16)) (R = rows per thread block: N_q, or
 * g N_q when packed; varlen: the longest sequence) and B_c = min(B, 16 ceil(N_k / 16)), then B_c
 * lowered to a divisor of P (P < B_c: a multiple of P) when paged.  Errors: FA_ENOSRAM. */
fa_status fa_infer_blocks_fit(const fa_shape *s, const fa_infer_opts *opt, const fa_varlen *vl,
                              uint64_t M, fa_blocks *out);

/* One count-only inference run with everything the tool prints about it. */
typedef struct {
    fa_infer_opts opt;
    fa_blocks blocks;
    uint64_t sram_bytes;       /* M */
    fa_counts counts;          /* measured */
    fa_infer_formula formula;  /* closed form */
    double intensity;          /* counted FLOPs per HBM byte */
    double time_roofline_s;    /* max(FLOPs / peaks, bytes / bandwidth), as fasim io */
    double time_main_s;        /* wave model: ceil(programs / sms) x slowest thread block */
    double time_combine_s;     /* the same for the combine kernel (0 when S = 1) */
    double time_s;             /* time_main_s + time_combine_s */
} fa_infer_result;

/* The times of r from its counts and closed form (r->formula filled): time_roofline_s as
 * fa_io_times, the wave model's time_main_s = ceil(programs_main / sms) x prog_time_max_s,
 * time_combine_s likewise, time_s their sum (docs/inference.md, "wave model"); all 0 when hw is
 * NULL.  Seconds. */
void fa_infer_times(fa_infer_result *r, const fa_shape *s, const fa_hw *hw);

/* Runs the inference kernel of the options in count-only mode and fills r (analysis/io.c).  hw
 * may be NULL.  Errors: those of the kernels and of fa_infer_formula_bytes. */
fa_status fa_infer_io_run(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                          const fa_varlen *vl, uint64_t M, const fa_hw *hw, fa_infer_result *r);

/* The smallest S in 1 .. min(T_c, 128) whose wave-model time (closed form) is within 5% of the
 * smallest, among those whose combine fits M.  Errors: those of fa_infer_formula_bytes. */
fa_status fa_infer_best_splits(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                               const fa_varlen *vl, uint64_t M, const fa_hw *hw, int64_t *S);

/* Closed form of fa_varlen_backward (FlashAttention-2 backward per sequence; a sequence with
 * queries and no keys stores dQ = 0).  Errors: FA_EINVAL (shape, cu_seqlens), FA_EOVERFLOW. */
fa_status fa_formula_varlen_bwd(const fa_shape *s, fa_blocks bk, const fa_varlen *vl,
                                fa_pass_formula *out);

#endif
