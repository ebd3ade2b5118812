/* ex.h -- exercise 07: split-KV decoding (Flash-Decoding) and the merge of partial results by
 * their logsumexp. */
#ifndef EX07_H
#define EX07_H

#include "fa_attn.h"

/* The tensors of one decoding step, made by the judge on mem (e = element size of the dtype):
 *   Q (B, H, N_q, d), K (B, H_kv, N_k, d), V (B, H_kv, N_k, d_v)            inputs
 *   O (B, H, N_q, d_v) e bytes, LSE (B, H, N_q, 1) fp32                      outputs
 *   Opart (B, H, n_splits * N_q, d_v) fp32, LSEpart (B, H, n_splits * N_q, 1) fp32
 *       scratch in HBM: split p owns rows [p * N_q, (p + 1) * N_q). */
typedef struct {
    fa_tensor *Q, *K, *V, *O, *LSE, *Opart, *LSEpart;
} ex_decode_tensors;

/* Provided by the judge (you call it, you do not write it): kernel 1 of split-KV decoding for
 * one (batch b, query head h) and one split.  Runs the FlashAttention-2 forward of all N_q
 * query rows over the key blocks [j_begin, j_end) of width bk.block_c only (the causal mask
 * of s applies), and stores the *normalised* partial output O_p and its logsumexp LSE_p to rows
 * [p * N_q, (p + 1) * N_q) of Opart and LSEpart.  A row that sees no key of the range gets
 * O_p = 0 and LSE_p = -inf; an empty range (j_begin == j_end) is allowed.  It reads K and V of
 * the range once (Q once per row block) and allocates and frees its own SRAM buffers. */
fa_status ex_partial_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const ex_decode_tensors *t,
                             int64_t b, int64_t h, int64_t p, int64_t j_begin, int64_t j_end);

/* What you write: split the T_c = ceil(N_k / B_c) key blocks into n_splits contiguous ranges
 * (as even as possible; n_splits may exceed T_c, leaving some ranges empty), run
 * ex_partial_forward on each (the splits of a GPU kernel run in parallel), then merge: for
 * every (b, h) and row block of N_q, load the n_splits partial tiles and combine
 *     LSE = log sum_p exp(LSE_p),   O = sum_p exp(LSE_p - LSE) O_p
 * without overflow and without NaN (a row that sees no key at all gets O = 0, LSE = -inf);
 * store O and LSE once.  Budget: K and V read once per query head, Opart written once and read
 * once.  Return FA_OK or the status of the first call that failed. */
fa_status ex_split_kv_decode(fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t n_splits,
                             const ex_decode_tensors *t);

#endif
