/* ex.h -- exercise 01: online softmax over a stream.
 *
 * The state of a softmax over the numbers seen so far is two numbers:
 *   m = the largest number seen (-inf before any),
 *   l = sum over the numbers x seen of exp(x - m)       (0 before any).
 * Then logsumexp(seen) = m + log(l), and softmax(x) = exp(x - m) / l.
 * FlashAttention keeps exactly this state per query row (FlashAttention-2, Alg. 1: initialised on line 5, updated on line 9). */
#ifndef EX01_H
#define EX01_H

#include <stdint.h>

typedef struct {
    double m; /* running max */
    double l; /* running sum of exp(x - m) */
} ex_state;

/* The state of an empty stream: m = -inf, l = 0. */
ex_state ex_softmax_init(void);

/* Absorbs the n numbers x[0..n) (some may be -inf: masked scores) into s and returns the new
 * state.  Must never overflow (x may be 800) and never produce NaN. */
ex_state ex_softmax_update(ex_state s, const double *x, int64_t n);

/* The state of the concatenation of two streams, given their states.  The empty state must be
 * an identity: merge(init, b) == b. */
ex_state ex_softmax_merge(ex_state a, ex_state b);

#endif
