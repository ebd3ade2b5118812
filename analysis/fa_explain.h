/* fa_explain.h -- the forward pass's closed form term by term (docs/io-model.md), with the
 * numbers filled in, for `fasim explain`: each term's tensor, direction, symbolic form, its
 * factors as text and its value in bytes per (batch, head) slice. */
#ifndef FA_EXPLAIN_H
#define FA_EXPLAIN_H

#include "fa_analysis.h"

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
} fa_fwd_terms;

/* The forward HBM bytes of algorithm a on shape s (one slice; causal or not) with tiles bk, term
 * by term: standard (Algorithm 0: Q, K read T_r times, S written and read p times, P, V, O),
 * flash1 (Alg. 1: K, V once per visited key block, Q, O, l, m per visit), flash2 (FlashAttention-2
 * Alg. 1: Q once, K, V per visited key block, O, LSE once).  B H x slice equals the memory
 * model's count (tests/test_explain.c).  Errors: FA_EINVAL for tiles below 1. */
fa_status fa_explain_forward(fa_algo a, const fa_shape *s, fa_blocks bk, fa_fwd_terms *out);

#endif
