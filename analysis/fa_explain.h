/* fa_explain.h -- the forward pass's closed form term by term (docs/io-model.md), with the
 * numbers filled in, for `fasim explain`: each term's tensor, direction, symbolic form, its
 * factors as text and its value in bytes per (batch, head) slice. */
#ifndef FA_EXPLAIN_H
#define FA_EXPLAIN_H

#include <stdio.h>

#include "fa_analysis.h"
#include "fa_run.h"

#define FA_EXPLAIN_TERMS 16

typedef struct {
    const char *tensor, *dir, *symbol; /* "K", "read", "T_r*N_k*d*e" */
    char numbers[160];                 /* the factors: "4*1024*64*2" */
    uint64_t value;                    /* bytes per (batch, head) slice */
} fa_term;

typedef struct {
    fa_term t[FA_EXPLAIN_TERMS];
    int n;
    uint64_t slice;        /* the sum of the terms: bytes per slice */
    uint64_t p;            /* standard: the softmax reads S p times (1: one tile a row, else 2) */
    uint64_t vrows, kcols; /* flash1 (FlashAttention Alg. 1): query rows over all (i, j) visits, keys loaded */
    uint64_t krows, qrows; /* flash2 (FlashAttention-2 Alg. 1): keys loaded over all row blocks, query rows loaded */
    int64_t splits;        /* flash2's split-KV chunks S (1: none) */
    uint64_t qsplit;       /* split-KV: query rows loaded by the S chunks' thread blocks (fa_split_q_rows) */
} fa_fwd_terms;

/* The forward HBM bytes of algorithm a on shape s (one slice; causal or not) with tiles bk, term
 * by term: standard (Algorithm 0: Q, K read T_r times, S written and read p times, P, V, O),
 * flash1 (Alg. 1: K, V once per visited key block, Q, O, l, m per visit), flash2 (FlashAttention-2
 * Alg. 1: Q once, K, V per visited key block, O, LSE once).  B H x slice equals the memory
 * model's count (tests/test_explain.c).  Errors: FA_EINVAL for tiles below 1. */
fa_status fa_explain_forward(fa_algo a, const fa_shape *s, fa_blocks bk, fa_fwd_terms *out);
/* The same with flash2 split S ways (FlashAttention-2's split-KV kernel and its combine,
 * fa_flash2_forward_split): Q_rows = fa_split_q_rows, K_rows as unsplit, O_part and LSE_part
 * written by the splits and read by the combine (S N_q d_v and S N_q fp32 values), O and LSE
 * written by the combine.  Errors: as fa_explain_forward; FA_EINVAL for S < 1, or S > 1 with
 * another algorithm. */
fa_status fa_explain_forward_split(fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, fa_fwd_terms *out);

/* The counts fasim explain derives for algorithm a on configuration c, and their tiles, as fasim
 * io chooses them: with c->rule FA_TILES_PROFILE the kernel profile's tile table (c->profile, else
 * a's own, fa_profile_default) and its buffers' placement, for one pass (not fwdbwd); where that
 * profile has no table, is another algorithm's kernel, has no row for the shape or cannot run it,
 * and for the other rules, c's tiles in the paper's model (FA_TILES_PROFILE counts as --blocks fit;
 * --blocks paper grows M by the tiles' overflow).  Fills *bk, *r and rule (n bytes): "the KEY
 * profile's tile table", "--block-r/--block-c", "--blocks paper" or "--blocks fit", and *used (when
 * not NULL) with the rule those name (FA_TILES_PROFILE, _EXPLICIT, _PAPER, _FIT).  Errors: those
 * of fa_run_tiles (FA_ENOSRAM: no tile fits M) and fa_io_run. */
fa_status fa_explain_run(const fa_run_config *c, fa_algo a, fa_blocks *bk, fa_io_result *r, char *rule, size_t n,
                         fa_tile_rule *used);

/* The prose of fasim explain's forward derivation around the terms x (fa_explain_forward of a, s,
 * bk), to f: the loops of the algorithm's paper lines and the numbers they visit -- standard: p,
 * the softmax's reads of S; flash1: V_rows = T_c N_q (unmasked) or the causal sum, and the keys
 * loaded; flash2: K_rows = T_r N_k (unmasked) or the causal sum, and the query rows loaded. */
void fa_explain_forward_text(FILE *f, fa_algo a, const fa_shape *s, fa_blocks bk, const fa_fwd_terms *x);

/* Where the Theta bound of r (a count of pass p of algorithm a on s, tiles bk) comes from, to f:
 * Theorem 2 (forward), 5 (backward) or both, constant 1; standard: B H (N_q d + N_q N_k) e, whose
 * N_q N_k terms no M changes; flash1, flash2: B H N_q N_k d^2 e^2 / M with the numbers, and the
 * counted / Theta ratio, the hidden constant of the tile that carries it (B_c for flash1, B_r for
 * flash2), said as the tiles were chosen (rule, fa_explain_run's *used): FA_TILES_FIT, limited by
 * the SRAM budget (the fp32 score tiles' bytes beside the B*d buffers', the larger named); FA_TILES_EXPLICIT, given (the SRAM they need of M named), not limited;
 * FA_TILES_PAPER, Alg. 1 line 1's; FA_TILES_PROFILE, the kernel profile's table, whose tiles
 * tiles_from runs (fa_profile.tiles_from: "FlashAttention-3 at 0251105a ..."; NULL: "the real kernel"). */
void fa_explain_bound_text(FILE *f, fa_pass p, fa_algo a, const fa_shape *s, const fa_io_result *r, fa_blocks bk,
                           fa_tile_rule rule, const char *tiles_from);

#endif
