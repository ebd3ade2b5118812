/* fa_analysis.h -- closed forms, bounds, block-size rules and one-call IO runs.
 *
 * Every closed form here is derived in docs/io-model.md and proved equal to the counted
 * bytes by tests/test_formula.c.  Units: bytes, FLOPs, seconds.
 */
#ifndef FA_ANALYSIS_H
#define FA_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>

#include "fa_attn.h"
#include "fa_hw.h"
#include "fa_sim.h"

typedef enum { FA_ALGO_STANDARD = 0, FA_ALGO_FLASH1 = 1, FA_ALGO_FLASH2 = 2, FA_NALGO = 3 } fa_algo;

const char *fa_algo_name(fa_algo a);
/* Parses "standard", "flash1", "flash2".  Errors: FA_EINVAL naming the value. */
fa_status fa_algo_parse(const char *s, fa_algo *a);

/* Per-tensor HBM bytes of a closed form.  Tensor names as in the counters:
 * Q, K, V, O, S, P, l, m, LSE. */
#define FA_FORMULA_TENSORS 9
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
 * B_c = ceil(M / 4d), B_r = min(ceil(M / 4d), d).  *overflow receives how many bytes the
 * buffers need beyond M (0 if they fit). */
void fa_blocks_paper(const fa_shape *s, uint64_t M, fa_blocks *out, uint64_t *overflow);

/* One algorithm run in count-only mode with everything the tool prints about it. */
typedef struct {
    fa_algo algo;
    fa_blocks blocks;
    uint64_t sram_bytes;        /* M the run used */
    uint64_t sram_overflow;     /* > 0 when --blocks paper needed more than M */
    fa_counts counts;           /* measured */
    fa_formula formula;         /* closed form */
    double bound_bytes;         /* Theta bound with constant 1 */
    double nominal_flops;       /* FA2 convention: 4 B H N_q N_k d (x 1/2 causal, d=d_v) */
    double intensity;           /* counted FLOPs per HBM byte */
    double time_compute_s;      /* matmul / tensor peak + other / fp32 peak */
    double time_memory_s;       /* HBM bytes / bandwidth */
    double time_s;              /* roofline: max of the two */
    int has_l2;                 /* 1 when fa_io_l2 filled the fields below */
    uint64_t dram_read_bytes;   /* with the L2 model: bytes read from DRAM */
    uint64_t dram_write_bytes;  /* with the L2 model: bytes written to DRAM */
    int l2_slots;               /* concurrent thread blocks the L2 model replayed */
} fa_io_result;

/* Runs algorithm a in count-only mode (trace: optional CSV sink; merging is off when set),
 * fills r, and checks nothing.  hw may be NULL (no times).  Errors: those of the algorithm. */
fa_status fa_io_run(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M, const fa_hw *hw,
                    FILE *trace, fa_io_result *r);

/* Predicts DRAM bytes with the L2 model (sim/fa_l2.h): replays the algorithm's transfers with
 * hw->sms x max(1, floor(sram_per_sm / SRAM need)) concurrent thread blocks through an L2 of
 * hw->l2_bytes (128-byte lines, 16 ways).  Fills the has_l2 fields of r (r must come from
 * fa_io_run with the same arguments).  Errors: FA_EINVAL when the run has more than
 * 2^26 transfers, FA_ENOMEM, those of the algorithm. */
fa_status fa_io_l2(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M, const fa_hw *hw,
                   fa_io_result *r);

/* Roofline time of a result on hw (fills the three time fields). */
void fa_io_times(fa_io_result *r, const fa_shape *s, const fa_hw *hw);

/* Model shapes read from a HuggingFace config.json. */
typedef struct {
    char name[64];
    int64_t heads, kv_heads, head_dim, layers, max_positions;
    fa_dtype dtype;
} fa_model;

/* Reads hidden_size / n_embd, num_attention_heads / n_head, num_key_value_heads (default:
 * heads), head_dim (default hidden / heads), num_hidden_layers / n_layer,
 * max_position_embeddings / n_positions, torch_dtype (default fp16), and _name_or_path or
 * model_type for the name.  Errors: FA_EIO (missing file), FA_EINVAL (malformed JSON, missing
 * or non-positive keys, heads not a multiple of kv heads). */
fa_status fa_model_load(const char *path, fa_model *m);

/* Parses a byte size: a non-negative integer with optional suffix B, KiB, MiB, GiB, KB, MB, GB.
 * Errors: FA_EINVAL naming the text. */
fa_status fa_parse_bytes(const char *text, uint64_t *out);

#endif
