/* fa_infer.h -- attention for inference on the memory model: variable-length (packed) batches,
 * KV-cache decoding with split-KV (Flash-Decoding), paged KV caches (PagedAttention) and
 * GQA-packed decoding (FlashInfer / FlashAttention-2 "pack_gqa").
 *
 * All of them run one kernel, the FlashAttention-2 forward (Dao 2023, Alg. 1) per sequence,
 * with three independent options (fa_infer_opts):
 *
 *   splits S    the T_c key tiles of a sequence are cut into S chunks of ceil(T_c / S) tiles
 *               (FlashAttention-2's num_n_blocks_per_split rule); one thread block per (row
 *               block, chunk) writes a partial (O_s normalised, LSE_s), both fp32, to HBM:
 *                 O_part   (B, H, N_q, S * d_v)   chunk s in columns [s d_v, (s+1) d_v)
 *                 LSE_part (B, H, N_q, S)
 *               A chunk that gets no tile (ceil rounding, e.g. T_c = 9, S = 4 gives 3, 3, 3, 0
 *               tiles) or in which a row has no allowed key writes the merge's identity
 *               O_s = 0, LSE_s = -inf.  A second kernel, the combine, reads every partial and
 *               writes O and LSE:  LSE = log sum_s exp(LSE_s),  O = sum_s exp(LSE_s - LSE) O_s.
 *               S = 1 is plain FlashAttention-2: O and LSE written directly, no combine.
 *   pack_gqa    0: one thread block per query head (kv head h / g, g = H / H_kv, loaded by each
 *               of the g heads).  1: the g query heads of a kv head are one row block of
 *               g * N_q rows, packed row p = i * g + h_local (i-major, as FlashInfer and
 *               FlashAttention's PackGQA); K/V tiles are loaded once for all g heads.  Q rows
 *               and O/LSE rows of a packed block are gathered/scattered one row per transfer.
 *   page_size   0: K, V contiguous (B, H_kv, N_k, d).  P >= 1: K, V live in a page pool
 *               K_cache (num_pages, H_kv, P, d), V_cache (num_pages, H_kv, P, d_v); sequence b's
 *               logical page p is physical page block_table[b][p] (int32; the tensor
 *               "block_table" (B, 1, ceil(N_k / P), 1), 4 bytes per entry).  Every key tile
 *               loads the entries of the pages it covers, then K and V page by page.  P must
 *               divide B_c or be a multiple of it (a tile covers whole pages or lies in one).
 *
 * Layouts: Q (B, H, N_q, d), O (B, H, N_q, d_v), LSE (B, H, N_q) fp32, as fa_attn.h; masks,
 * scale, GQA mapping and empty rows (O = 0, LSE = -inf) as fa_attn.h.  Counted tensors: Q, K, V,
 * O, LSE, O_part, LSE_part, block_table.  Closed forms: docs/inference.md.
 *
 * Variable-length batches (fa_varlen): nseq sequences packed along the row axis, Q (1, H,
 * total_q, d), K (1, H_kv, total_k, d), V (1, H_kv, total_k, d_v), O (1, H, total_q, d_v),
 * LSE (1, H, total_q); sequence b has rows [cu_q[b], cu_q[b+1]) of Q/O/LSE and rows
 * [cu_k[b], cu_k[b+1]) of K/V.  Each sequence is its own attention problem: its own causal
 * anchor (bottom-right: key j allowed for row i iff j <= i + N_k(b) - N_q(b)), its own tiles.
 * A sequence with N_q(b) = 0 has no output rows and costs nothing; one with N_k(b) = 0 and
 * N_q(b) > 0 outputs O = 0, LSE = -inf and loads nothing.
 */
#ifndef FA_INFER_H
#define FA_INFER_H

#include <stdint.h>

#include "fa_attn.h"

typedef struct {
    int64_t splits;    /* S >= 1 (1: no split) */
    int pack_gqa;      /* 1: the g = H / H_kv query heads of a kv head form one row block */
    int64_t page_size; /* 0: contiguous K/V; P >= 1 only through fa_paged_forward */
} fa_infer_opts;

/* S = 1, per head, contiguous: plain FlashAttention-2. */
fa_infer_opts fa_infer_opts_default(void);

typedef struct {
    int64_t nseq;        /* number of sequences, >= 1 */
    const int64_t *cu_q; /* nseq + 1 offsets: cu_q[0] = 0, non-decreasing, cu_q[nseq] = N_q */
    const int64_t *cu_k; /* the same for keys, cu_k[nseq] = N_k */
} fa_varlen;

/* Checks cumulative offsets against a packed shape (s->batch must be 1, s->seqlen_q and
 * s->seqlen_k the totals).  Errors: FA_EINVAL naming the first bad offset. */
fa_status fa_varlen_check(const fa_shape *s, const fa_varlen *vl);

/* Checks options against a shape and tiles: S >= 1 and S <= T_c = ceil(N_k / B_c) (for a
 * varlen batch: the largest T_c of a sequence), page size P >= 0 dividing B_c or a multiple of
 * it.  Errors: FA_EINVAL. */
fa_status fa_infer_opts_check(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                              const fa_varlen *vl);

/* ---- algorithms (numeric mode: every array non-NULL; count-only: all NULL) ---- */

/* Decoding (any N_q, typically 1 .. a few) with split-KV and GQA packing over contiguous K/V.
 * opt->page_size must be 0.  With S = 1 and pack_gqa = 0 its counts equal fa_flash2_forward's.
 * Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_decode_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk,
                            const fa_infer_opts *opt, const double *Q, const double *K,
                            const double *V, double *O, double *LSE);

/* Decoding through a paged KV cache.  opt->page_size = P >= 1 (0 is FA_EINVAL).
 * block_table: B x ceil(N_k / P) physical page numbers in [0, num_pages) (numeric mode; NULL in
 * count-only mode, where page p of sequence b is page b ceil(N_k / P) + p).  K_cache
 * (num_pages, H_kv, P, d), V_cache (num_pages, H_kv, P, d_v); num_pages >= 1 (count-only: 0
 * means B ceil(N_k / P)).  Results equal fa_decode_forward on the gathered K, V bit for bit.
 * Errors: FA_EINVAL (P = 0, a page number out of range, ...), FA_ENOSRAM, FA_EOVERFLOW,
 * FA_ENOMEM. */
fa_status fa_paged_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk,
                           const fa_infer_opts *opt, const int32_t *block_table,
                           int64_t num_pages, const double *Q, const double *K_cache,
                           const double *V_cache, double *O, double *LSE);

/* Variable-length batch: FlashAttention-2 per sequence on row views of the packed tensors
 * (opt may be NULL: S = 1, per head; page_size must be 0).  s->batch = 1, s->seqlen_q and
 * s->seqlen_k are the totals.  Errors: FA_EINVAL (offsets, shape), FA_ENOSRAM, FA_EOVERFLOW,
 * FA_ENOMEM. */
fa_status fa_varlen_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk,
                            const fa_infer_opts *opt, const fa_varlen *vl, const double *Q,
                            const double *K, const double *V, double *O, double *LSE);

/* fp64 reference of a varlen batch: fa_reference_forward per sequence on gathered copies.
 * Errors: FA_EINVAL, FA_ENOMEM. */
fa_status fa_varlen_reference_forward(const fa_shape *s, const fa_varlen *vl, const double *Q,
                                      const double *K, const double *V, double *O,
                                      double *LSE);

/* The split-KV merge of n partials of one row: O_s (row s of O_parts, leading dimension ld,
 * d_v values, each normalised over its chunk) with LSE_s.  LSE = log sum_s exp(LSE_s) (computed
 * around the max), O = sum_s exp(LSE_s - LSE) O_s.  A partial with LSE_s = -inf gets weight
 * exactly 0 (whatever its O_s): (0, -inf) is the identity; if every LSE_s is -inf the result
 * is O = 0, LSE = -inf.  n = 0 gives the identity.  No memory model (the combine kernel counts
 * its own transfers and FLOPs). */
void fa_lse_merge(int64_t n, const double *lse, const double *O_parts, int64_t ld, int64_t dv,
                  double *O, double *lse_out);

/* The SRAM buffers of one combine thread block of R rows: LSE_s (R x S), O_s and O_c
 * (R x d_v), LSE_c (R x 1), all fp32. */
typedef struct {
    fa_buf *Ls, *Os, *Oc, *Lc;
} fa_split_bufs;

/* The split-KV combine of rows [r0, r0 + rows) of head h of batch b (one thread block of the
 * combine kernel, FlashAttention-2's flash_fwd_splitkv_combine_kernel): loads their LSE_part
 * (rows x S) and the S partial tiles of O_part (chunk s in columns [s d_v, (s+1) d_v)), merges
 * them as fa_lse_merge, stores O and LSE.  Counts the loads, stores and fa_combine_flops_per_row
 * FLOPs a row.  Used by the decode kernel and by fa_flash2_forward_split.  Errors: those of
 * fa_load, fa_store and fa_count_flops. */
fa_status fa_split_combine(fa_mem *mem, int64_t S, int64_t dv, fa_tensor *Op, fa_tensor *Lp, fa_tensor *O,
                           fa_tensor *L, int64_t b, int64_t h, int64_t r0, int64_t rows, const fa_split_bufs *x);

/* FLOPs (other) the combine counts per row merging S partials of d_v values:
 * 4S + 2 for the LSE (max, exp, sum, log) and S (2 + 2 d_v) for the weighted sum. */
uint64_t fa_combine_flops_per_row(int64_t S, int64_t dv);

/* Copies rows [r0, r0 + n) of every head of a packed (1, H, total, D) array to (back = 0) or
 * from (back = 1) a contiguous (1, H, n, D) one: a sequence's slice of a varlen batch. */
void fa_rows_copy(double *dst, const double *src, int64_t H, int64_t total, int64_t D, int64_t r0,
                  int64_t n, int back);

/* Backward of a variable-length batch: FlashAttention-2 backward (fa_flash2_backward) per
 * sequence with its own causal anchor; O and LSE from fa_varlen_forward.  Packed layouts as the
 * forward: Q, O, dO, dQ (1, H, N_q, *), K, V, dK, dV (1, H_kv, N_k, *), LSE (1, H, N_q).
 * A sequence with queries and no keys gets dQ = 0 (stored); keys of a sequence with no queries
 * get dK = dV = 0 (not stored: no thread block runs for it).  Count-only: all arrays NULL.
 * Errors: FA_EINVAL (shape, cu_seqlens, blocks), FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_varlen_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const fa_varlen *vl,
                             const double *Q, const double *K, const double *V, const double *O,
                             const double *LSE, const double *dO, double *dQ, double *dK, double *dV);

/* fp64 reference of the varlen backward (fa_reference_backward per sequence). */
fa_status fa_varlen_reference_backward(const fa_shape *s, const fa_varlen *vl, const double *Q,
                                       const double *K, const double *V, const double *dO,
                                       double *dQ, double *dK, double *dV);

#endif
