/* fa_precision.h -- low-precision number formats, emulated in fp64: fp32, fp16, bf16 and the two
 * OCP FP8 formats (E4M3, E5M2), rounding to nearest, ties to even, and the numerics config of a
 * memory model (where an algorithm rounds: docs/numerics.md).
 *
 * Formats (significand bits p after the leading 1, smallest normal exponent emin, largest finite):
 *   fp32     p = 23  emin = -126  max = (2 - 2^-23) 2^127     overflow -> +-inf (IEEE 754)
 *   fp16     p = 10  emin = -14   max = 65504                 overflow -> +-inf (IEEE 754)
 *   bf16     p = 7   emin = -126  max = (2 - 2^-7) 2^127      overflow -> +-inf
 *   e5m2     p = 2   emin = -14   max = 57344                 overflow -> +-inf (OCP FP8, IEEE-like)
 *   e4m3     p = 3   emin = -6    max = 448                   no inf: overflow SATURATES to +-448
 * E4M3 is OCP's "E4M3FN": exponent 1111 with mantissa 111 is NaN, everything else is finite, so
 * 448 = 1.75 * 2^8 is the largest value.  fasim converts with saturation, as the conversions FP8
 * training uses do (PTX cvt.rn.satfinite.e4m3x2.f32, Transformer Engine): a finite value beyond
 * 448, and +-inf, become +-448; NaN stays NaN.  Subnormals are kept by every format (no flush to
 * zero); the quantum below 2^emin is 2^(emin - p).
 *
 * Everything here is a pure function of its arguments; nothing allocates.
 */
#ifndef FA_PRECISION_H
#define FA_PRECISION_H

#include <stdint.h>

#include "fa_status.h"

typedef enum {
    FA_FMT_FP64 = 0, /* no rounding at all */
    FA_FMT_FP32 = 1,
    FA_FMT_FP16 = 2,
    FA_FMT_BF16 = 3,
    FA_FMT_E4M3 = 4,
    FA_FMT_E5M2 = 5,
    FA_NFMT = 6
} fa_format;

/* "fp64", "fp32", "fp16", "bf16", "e4m3", "e5m2". */
const char *fa_format_name(fa_format f);

/* Parses a name of fa_format_name (also "fp8_e4m3", "fp8_e5m2").  Errors: FA_EINVAL. */
fa_status fa_format_parse(const char *s, fa_format *f);

/* Storage bytes: 8, 4, 2, 2, 1, 1. */
int fa_format_bytes(fa_format f);

/* Largest finite value of the format (DBL_MAX for fp64). */
double fa_format_max(fa_format f);

/* x rounded to the nearest value of format f, ties to even; overflow as described above.
 * NaN stays NaN, +-0 and +-inf keep their sign (e4m3: inf saturates). */
double fa_round(double x, fa_format f);

/* The bit pattern of fa_round(x, f) in format f (1, 2 or 4 bytes, in the low bits); NaN gives the
 * format's canonical quiet NaN (fp16 0x7e00, bf16 0x7fc0, e4m3 0x7f, e5m2 0x7e, fp32 0x7fc00000).
 * fp64 is not encoded (returns 0). */
uint32_t fa_format_encode(double x, fa_format f);

/* The value of bit pattern `bits` of format f (exact). */
double fa_format_decode(uint32_t bits, fa_format f);

/* Rounds n values in place (no-op for fp64). */
void fa_round_array(double *x, int64_t n, fa_format f);

/* Where and how an algorithm on a memory model rounds (fa_mem_set_numerics).  A zeroed struct
 * (on = 0) is the default: plain fp64 arithmetic, bit for bit what the algorithms always did.
 * Counts (bytes, FLOPs) never depend on it. */
typedef struct {
    int on;           /* 0: fp64 everywhere, nothing below is used */
    fa_format store;  /* format of every HBM tensor of 1 or 2 bytes per element (O, S, P, dQ, dK,
                         dV, dP, dS): rounded on every fa_store; 4-byte tensors (l, m, LSE, D,
                         dQacc) round to fp32.  Inputs are rounded by their creator
                         (fa_numerics_quantize), not here. */
    fa_format p;      /* the probability tile P, rounded on chip before the P V product */
    int p_scale_log2; /* P is scaled by 2^k before that rounding and back after (fp8: 8) */
    fa_format acc;    /* fp32: every accumulate, softmax statistic and exponential rounds to
                         fp32; fp64: none does */
    int exp2;         /* exp2 with log2(e) folded into the softmax scale (S holds scale*log2(e)
                         * QK^T, the running max m is in log2 units) */
} fa_numerics;

/* The emulation of a storage dtype as a kernel runs it: inputs and HBM tensors in `storage`,
 * P in `storage` (fp8: P in e4m3 scaled by 2^8; O and the other stored tensors in bf16, as FP8
 * attention writes a bf16 O), fp32 accumulation.  storage fp64 gives the default (on = 0). */
fa_numerics fa_numerics_for(fa_format storage);

/* Rounds the creator's input x (n values) to format f in place.  fp8 formats use a per-tensor
 * power-of-two scale: x is multiplied by 2^k, k the largest integer with amax * 2^k <= max(f),
 * rounded, and multiplied back by 2^-k (exact), so x holds the dequantized values; *scale_log2
 * receives k (0 for the other formats, or when x is all zero or non-finite).  A power of two
 * makes "dequantize, then compute" equal "compute in fp8, then descale" exactly. */
void fa_numerics_quantize(double *x, int64_t n, fa_format f, int *scale_log2);

#endif
