/* fa_exp2poly.h -- 2^x by range reduction and a degree-3 polynomial: FlashAttention-4's way of
 * moving part of the softmax's exponentials from the special-function unit (MUFU.EX2, 16 per SM
 * per clock on Hopper) onto the fp32 FMA pipe (128 per SM per clock).  FlashAttention-4 (Zadouri,
 * Shah, Dao et al. 2026, arXiv 2603.05451; its code: flash_attn/cute/utils.py, ex2_emulation).
 *
 *   x <- max(x, -127);  j = floor(x);  f = x - j in [0, 1)   (exact for |x| < 2^22)
 *   2^f ~ p(f) = C0 + f (C1 + f (C2 + f C3))                  (three fmaf, Horner)
 *   2^x = p(f) 2^j: j added to p's exponent field (an integer add of j << 23)
 *
 * The coefficients are ours: a relative-error minimax fit of 2^f on [0, 1] (Lawson's iteration,
 * 2001 points), rounded to fp32.  Measured maximum relative error over every fp32 x in
 * [-125, 8] (the softmax's arguments are <= 0, and <= 8 with conditional rescaling at tau = 8):
 * 7.5e-5 (2^-13.7), below bf16's rounding of P (2^-9); tests/test_exp2poly.c checks the bound on
 * a stride of the whole range, and fabench --check on the GPU on every fp32 of it.
 * Arguments below -125 give 0 (MUFU.EX2 with flush-to-zero gives 0 below -126; at -126 the
 * result of p < 1 would need the denormal range), so a row with no allowed key
 * keeps l = 0; NaN stays NaN.  The GPU form (kernels/tc_common.cuh, exp2_fma) computes j with one add in
 * round-down mode instead of floorf (FRND would run on a quarter-rate pipe) and gives the same
 * bits. */
#ifndef FA_EXP2POLY_H
#define FA_EXP2POLY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define FA_EXP2P_C0 0.9999253153800964f
#define FA_EXP2P_C1 0.6958330273628235f
#define FA_EXP2P_C2 0.22606758773326874f
#define FA_EXP2P_C3 0.07802466303110123f
/* the measured bound over [-125, 8] (see above), and the lowest argument that is not 0 */
#define FA_EXP2P_MAX_REL_ERR 7.6e-5
#define FA_EXP2P_X_MIN (-125.0f)

/* 2^x for x <= 127 (larger x overflow the exponent field: not a softmax argument) */
static inline float fa_exp2_poly(float x)
{
    if (x != x) return x;                 /* NaN stays NaN */
    if (x < FA_EXP2P_X_MIN) return 0.0f; /* also -inf (masked scores) */
    const float j = floorf(x), f = x - j;
    const float p = fmaf(fmaf(fmaf(FA_EXP2P_C3, f, FA_EXP2P_C2), f, FA_EXP2P_C1), f, FA_EXP2P_C0);
    uint32_t bits;
    memcpy(&bits, &p, sizeof bits);
    bits += (uint32_t)(int32_t)j << 23;
    float y;
    memcpy(&y, &bits, sizeof y);
    return y;
}

#endif
