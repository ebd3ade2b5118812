/* fa_inference.h -- the inference runs of `fasim io`, `check`, `sweep` and `report`
 * (analysis/infer.c): the variants of a decoding or variable-length configuration (per head /
 * GQA-packed, without and with split-KV) counted beside their closed forms, the same batch padded
 * to its longest sequence, the varlen backward's counts, the numeric checks of the inference
 * kernels against the fp64 reference, and the report's decoding table.  Kernels:
 * cpu_ref/fa_infer.h; closed forms and the wave time model: docs/inference.md.  (The name is
 * not fa_infer.h: cpu_ref/ has that header, and both directories are on the include path.)
 */
#ifndef FA_INFERENCE_H
#define FA_INFERENCE_H

#include <stdint.h>

#include "fa_analysis.h"

/* What an inference configuration asks for (the options --decode, --cu-seqlens, --gqa,
 * --splits, --page-size, --block-r/--block-c and the hardware). */
typedef struct {
    const fa_varlen *vl;     /* a variable-length batch (s->batch = 1, totals), NULL: decoding */
    int decode;              /* decoding: without splits, S is chosen by the wave model */
    int gqa;                 /* 0: per-head and GQA-packed, 1: per-head only, 2: packed only */
    int64_t splits;          /* S >= 1, 0: not given (1, or the wave model's when decoding) */
    int splits_auto;         /* S chosen by the wave model (fa_infer_best_splits) */
    int64_t page_size;       /* P >= 1: a paged KV cache; 0: contiguous K/V */
    const fa_blocks *blocks; /* the tiles; NULL: fa_infer_blocks_fit for each GQA mode */
    uint64_t M;              /* SRAM bytes per thread block */
    const fa_hw *hw;         /* the wave model's GPU */
} fa_infer_req;

#define FA_INFER_MAX_VARIANTS 4

/* Reads the offsets of a varlen batch (--cu-seqlens, --cu-seqlens-k; opt names the option in
 * the messages) from text: a list "0,5,5,37" of non-negative integers separated by commas or
 * spaces or, when text is not such a list, the file of that name (at most 64 KiB) of integers
 * separated by commas, blanks or newlines.  Writes cu[0 .. *n), at least 2 and at most
 * max_seq + 1 offsets, each at most 2^31 - 1 (order is checked later, by fa_varlen_check).
 * Errors: FA_EINVAL (an empty item, junk, too few or too many offsets; a bad item of a file is
 * named by FILE:LINE:COLUMN and quoted as a short printable excerpt, the file may be binary),
 * FA_EIO (the file cannot be read, or is a directory), FA_ENOMEM.  *n is unchanged on an error. */
fa_status fa_cu_seqlens_parse(const char *opt, const char *text, int64_t *cu, int64_t max_seq, int64_t *n);

/* The inference options of fasim io, sweep and check as given, to be checked against each other
 * and against the rest (fa_infer_resolve).  0: not given. */
typedef struct {
    int decode;        /* --decode */
    int varlen;        /* --cu-seqlens */
    int cu_k;          /* --cu-seqlens-k */
    int64_t kv_len;    /* --kv-len N_k */
    int splits;        /* --splits (a number or auto) */
    int paged;         /* --page-size */
    int gqa;           /* --gqa per-head or packed (both: 0) */
    int mask_files;    /* --block-mask, --col-mask, --doc-mask or --mask */
    int trace, l2, algo_given, model_given; /* --trace, --l2, --algo, --model */
    fa_pass pass;      /* --pass (FA_PASS_FWD by default) */
} fa_infer_args;

/* Checks a's options against each other and the rest, in this order, and settles the inference
 * defaults of *s (before the other defaults, fa_shape_fill): --cu-seqlens-k needs --cu-seqlens;
 * without --decode and --cu-seqlens, --kv-len, --splits, --page-size and --gqa are refused and *s
 * is left as it is; with either, the masks and modifiers of *s but causal (window, ALiBi, softcap,
 * dropout) and mask files, --trace, --l2, --algo, and a backward of --decode are refused; with
 * --model and no N_q, N_q = 1 for decoding (not the model's max_positions; varlen takes N_q from
 * the offsets); --decode and --cu-seqlens exclude each other; --decode needs --kv-len, which is N_k
 * (a given N_k is refused), and N_q defaults to 1; --cu-seqlens refuses --page-size and --kv-len.
 * The varlen batch itself is fa_varlen_resolve's.  Errors: FA_EINVAL naming the options. */
fa_status fa_infer_resolve(const fa_infer_args *a, fa_shape *s);

/* The packed shape of a varlen batch from its offsets: cu_q[0 .. nq) (--cu-seqlens) and cu_k[0 ..
 * nk) (--cu-seqlens-k; NULL: the keys have the query offsets), nq >= 2.  The dimensions of *s
 * given (> 0) must agree: batch = nq - 1 sequences, seqlen_q = cu_q[nq - 1] rows, seqlen_k =
 * cu_k[nk - 1] keys; then s->batch = 1, s->seqlen_q, s->seqlen_k are the totals and *vl points at
 * the offsets (not copied; not checked for order: fa_varlen_check does that).  Errors: FA_EINVAL
 * (nk != nq, a dimension that disagrees, no query row or no key in all), naming the options. */
fa_status fa_varlen_resolve(fa_shape *s, const int64_t *cu_q, int64_t nq, const int64_t *cu_k, int64_t nk,
                            fa_varlen *vl);

/* One counted run of a configuration. */
typedef struct {
    const char *name;  /* "per-head", "packed", "varlen" or "varlen-packed" */
    fa_infer_opts opt; /* its S, GQA packing and page size */
    int auto_split;    /* its S was chosen by the wave model */
    fa_infer_result r; /* counts, closed form, times (fa_infer_io_run) */
} fa_infer_variant;

/* Counts every variant q asks for: for each GQA mode (per head first), S = 1 and, when S > 1
 * (given, or the wave model's when decoding or splits_auto), that S too; tiles q->blocks or
 * fa_infer_blocks_fit.  Fills v[0 .. *n), at most FA_INFER_MAX_VARIANTS.  Errors: those of
 * fa_infer_blocks_fit, fa_infer_best_splits and fa_infer_io_run (FA_EINVAL for S > T_c or a
 * page size that does not fit the tiles, FA_ENOSRAM, FA_EOVERFLOW). */
fa_status fa_infer_variants(const fa_shape *s, const fa_infer_req *q, fa_infer_variant *v, int *n);

/* 1 when the counted HBM bytes read and written and the matmul and other FLOPs of r all equal
 * its closed form. */
int fa_infer_formula_match(const fa_infer_result *r);

/* Bytes read of the counted tensor `name` (0 when it was not counted). */
uint64_t fa_counts_read_of(const fa_counts *c, const char *name);

/* The varlen batch s, vl padded to its longest sequence: *padded = s with B = nseq sequences of
 * N_q = the longest query length and N_k = the longest key length (each at least 1), counted as
 * plain FlashAttention-2 (S = 1, per head) on tiles bk into *r.  Errors: those of
 * fa_infer_io_run. */
fa_status fa_varlen_padded(const fa_shape *s, const fa_varlen *vl, fa_blocks bk, uint64_t M, const fa_hw *hw,
                           fa_shape *padded, fa_infer_result *r);

/* ---- the varlen backward (fa_varlen_backward; --cu-seqlens --pass bwd|fwdbwd) ---- */

typedef struct {
    fa_blocks blocks;         /* the tiles */
    fa_counts bwd;            /* the backward's counts */
    fa_pass_formula formula;  /* its closed form (fa_formula_varlen_bwd) */
    int formula_match;        /* counted bytes read and written = the closed form */
    fa_infer_result fwd;      /* fwdbwd: the forward, S = 1 (zero for bwd) */
    uint64_t read_bytes, write_bytes; /* both passes together */
} fa_varlen_bwd_io_result;

/* Counts pass p (FA_PASS_BWD or FA_PASS_FWDBWD) of the varlen batch s, vl on tiles *bk (NULL:
 * fa_blocks_fit_pass) with M bytes of SRAM.  Errors: FA_ENOSRAM (the backward's buffers exceed M,
 * naming B_r, B_c and the bytes), those of the kernels and of the closed form. */
fa_status fa_varlen_bwd_io(fa_pass p, const fa_shape *s, const fa_varlen *vl, const fa_blocks *bk, uint64_t M,
                           const fa_hw *hw, fa_varlen_bwd_io_result *r);

typedef struct {
    fa_blocks blocks; /* the tiles */
    double rel[3];    /* dQ, dK, dV: max |g - g_ref| / max |g_ref| (NaN propagates) */
    int pass;         /* every rel <= tol */
} fa_varlen_bwd_check_result;

/* The varlen backward in numeric mode against fa_varlen_reference_backward: Q, K, V, dO N(0, 1)
 * (mt19937, seed), the forward and backward of FlashAttention-2 per sequence on tiles *bk (NULL:
 * fa_blocks_fit_pass for the backward) with M bytes of SRAM.  Errors: FA_ENOMEM, those of the
 * kernels. */
fa_status fa_varlen_bwd_check(const fa_shape *s, const fa_varlen *vl, const fa_blocks *bk, uint64_t M,
                              unsigned long seed, double tol, fa_varlen_bwd_check_result *r);

/* ---- the inference kernels in numeric mode ---- */

/* FA_OK when the numeric check of s may run: (B, or 1 for a varlen batch) H N_q N_k (d + d_v)
 * at most 2e10.  Errors: FA_EINVAL naming the work. */
fa_status fa_infer_check_size(const fa_shape *s, int varlen);

typedef struct {
    double abs_o;   /* max |O - O_ref| (fa_check_abs_diff's rule) */
    double rel_o;   /* abs_o / max |O_ref| (abs_o when O_ref is 0) */
    double abs_lse; /* max |LSE - LSE_ref| */
    int pass;       /* rel_o <= tol, abs_lse <= tol max(1, max |LSE_ref|), neither NaN */
} fa_infer_check_row;

typedef struct {
    int ready; /* the inputs, the reference and the page pool were made: the rows follow */
    int n;     /* rows filled, one per variant, also on an error */
    fa_infer_check_row row[FA_INFER_MAX_VARIANTS];
} fa_infer_check_result;

/* Runs the variants v[0 .. n) (from fa_infer_variants with the same s and q) in numeric mode
 * with M = q->M bytes of SRAM: Q, K, V N(0, 1) (mt19937, seed), the reference
 * fa_reference_forward (fa_varlen_reference_forward for a varlen batch), and with a page size P
 * the K/V cache scattered over a shuffled pool of B ceil(N_k / P) pages (fa_paged_forward);
 * otherwise fa_decode_forward or fa_varlen_forward.  Outputs are poisoned with NaN first.
 * Errors: FA_ENOMEM, those of the kernels. */
fa_status fa_infer_check_run(const fa_shape *s, const fa_infer_req *q, const fa_infer_variant *v, int n,
                             unsigned long seed, double tol, fa_infer_check_result *res);

/* ---- the report's decoding table ---- */

#define FA_DECODE_NB 2  /* batch 1 and 64 */
#define FA_DECODE_NKV 5 /* KV cache 1k, 4k, 16k, 32k, 128k */
#define FA_DECODE_NV 3  /* per head; GQA-packed; packed with the wave model's split */

typedef struct {
    int64_t batch[FA_DECODE_NB], kv_len[FA_DECODE_NKV];
    fa_infer_result r[FA_DECODE_NB][FA_DECODE_NKV][FA_DECODE_NV];
    int64_t best_splits[FA_DECODE_NB][FA_DECODE_NKV]; /* S of the split variant */
} fa_decode_table;

/* Llama-3-8B's attention decoding one token (H = 32, H_kv = 8, d = 128, bf16, N_q = 1, causal
 * bottom-right) on hw (M = hw->sram_per_block, tiles fa_infer_blocks_fit): every batch and KV
 * length of the table, each variant counted with fa_infer_io_run.  Errors: those of
 * fa_infer_blocks_fit, fa_infer_best_splits and fa_infer_io_run. */
fa_status fa_decode_table_run(const fa_hw *hw, fa_decode_table *t);

#endif
