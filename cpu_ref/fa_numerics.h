/* fa_numerics.h -- the hooks through which the algorithms emulate a low precision: the numerics
 * set on the memory model (fa_mem_set_numerics, sim/fa_precision.h) decide what they do.  With
 * the default numerics (on = 0) every hook is the identity of the fp64 algorithm, bit for bit,
 * and none counts a FLOP or a byte.  Where each hook sits: docs/numerics.md. */
#ifndef FA_NUMERICS_H
#define FA_NUMERICS_H

#include "fa_sim.h"

#define FA_LOG2E 1.4426950408889634074 /* log2(e) */
#define FA_LN2 0.69314718055994530942   /* ln(2) */

/* The accumulator format: fp64 (no rounding) unless emulating. */
fa_format fa_num_acc(const fa_mem *mem);

/* exp(x - m): fa_exp_guarded by default; emulating, the argument x - m and the result round to
 * the accumulator format, and with exp2 on it is exp2(x - m) (x, m in log2 units).
 * 0 when x == -inf (also when m == -inf: the running max of a row that saw no real score). */
double fa_num_exp(const fa_mem *mem, double x, double m);

/* The logsumexp from the running max m and the sum l: m + log(l) (exp2 on: m ln 2 + log(l));
 * -inf when l == 0. */
double fa_num_lse(const fa_mem *mem, double m, double l);

/* Scores of a tile after scale, softcap, ALiBi and mask (rows x cols, leading dimension lds):
 * emulating, each is rounded once to the accumulator format (fp32), and with exp2 on it is
 * first multiplied by log2(e), the constant FlashAttention folds into the softmax scale so that
 * the exponential is a bare exp2 (one FFMA per score instead of an FMUL and an exp).  Masked
 * scores stay -inf.  No-op by default. */
void fa_tile_num_scores(const fa_mem *mem, double *S, int64_t lds, int64_t rows, int64_t cols);

/* Rounds the P tile to the numerics' P format before the P V product, scaled by 2^p_scale_log2
 * and back (exact).  No-op by default. */
void fa_tile_round_p(const fa_mem *mem, double *P, int64_t ldp, int64_t rows, int64_t cols);

#endif
