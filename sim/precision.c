/* precision.c -- rounding to fp32, fp16, bf16, e4m3, e5m2 (round to nearest, ties to even), the
 * formats' bit patterns, and the numerics presets (fa_precision.h). */
#include "fa_precision.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct {
    const char *name;
    int p;        /* significand bits after the leading 1 */
    int ebits;    /* exponent bits */
    int emin;     /* smallest normal exponent, 1 - bias */
    double max;   /* largest finite value */
    int saturate; /* 1: no infinity, overflow clamps to +-max (e4m3) */
    int bytes;
} fmt_info;

static const fmt_info FMT[FA_NFMT] = {
    [FA_FMT_FP64] = {"fp64", 52, 11, -1022, DBL_MAX, 0, 8},
    [FA_FMT_FP32] = {"fp32", 23, 8, -126, FLT_MAX, 0, 4},
    [FA_FMT_FP16] = {"fp16", 10, 5, -14, 65504.0, 0, 2},
    [FA_FMT_BF16] = {"bf16", 7, 8, -126, 0x1.fep127, 0, 2},
    [FA_FMT_E4M3] = {"e4m3", 3, 4, -6, 448.0, 1, 1},
    [FA_FMT_E5M2] = {"e5m2", 2, 5, -14, 57344.0, 0, 1},
};

const char *fa_format_name(fa_format f) { return (f >= 0 && f < FA_NFMT) ? FMT[f].name : "?"; }

fa_status fa_format_parse(const char *s, fa_format *f)
{
    for (int k = 0; k < FA_NFMT; k++)
        if (strcmp(s, FMT[k].name) == 0) {
            *f = (fa_format)k;
            return FA_OK;
        }
    if (strcmp(s, "fp8_e4m3") == 0 || strcmp(s, "fp8") == 0) *f = FA_FMT_E4M3;
    else if (strcmp(s, "fp8_e5m2") == 0) *f = FA_FMT_E5M2;
    else FA_FAIL(FA_EINVAL, "format '%s' is not one of fp64, fp32, fp16, bf16, e4m3, e5m2", s);
    return FA_OK;
}

int fa_format_bytes(fa_format f) { return FMT[f].bytes; }
double fa_format_max(fa_format f) { return FMT[f].max; }

double fa_round(double x, fa_format f)
{
    if (f == FA_FMT_FP64 || x != x) return x;
    if (f == FA_FMT_FP32) return (double)(float)x; /* one IEEE conversion: RNE, overflow to inf */
    const fmt_info *F = &FMT[f];
    double a = fabs(x);
    if (a == 0) return x;
    if (isinf(a)) return F->saturate ? copysign(F->max, x) : x;
    double r;
    if (a >= ldexp(1.0, F->emin)) {
        /* normal range: round the fp64 significand to p bits by integer arithmetic; a carry
         * out of the significand correctly bumps the exponent */
        uint64_t b;
        memcpy(&b, &a, sizeof b);
        const int sh = 52 - F->p;
        b += ((uint64_t)1 << (sh - 1)) - 1 + ((b >> sh) & 1);
        b &= ~(((uint64_t)1 << sh) - 1);
        memcpy(&r, &b, sizeof r);
    } else {
        /* subnormal range: a fixed quantum 2^(emin - p); scaling by it is exact */
        const int e = F->emin - F->p;
        r = ldexp(nearbyint(ldexp(a, -e)), e);
    }
    if (r > F->max) r = F->saturate ? F->max : INFINITY;
    return copysign(r, x);
}

void fa_round_array(double *x, int64_t n, fa_format f)
{
    if (f == FA_FMT_FP64) return;
    for (int64_t i = 0; i < n; i++) x[i] = fa_round(x[i], f);
}

uint32_t fa_format_encode(double x, fa_format f)
{
    if (f == FA_FMT_FP64) return 0;
    const fmt_info *F = &FMT[f];
    const int p = F->p, eb = F->ebits, bias = 1 - F->emin;
    const uint32_t emax_bits = ((uint32_t)1 << eb) - 1, mmask = ((uint32_t)1 << p) - 1;
    if (x != x) { /* canonical quiet NaN; e4m3 has a single NaN pattern S.1111.111 */
        if (f == FA_FMT_E4M3) return 0x7f;
        return (emax_bits << p) | ((uint32_t)1 << (p - 1));
    }
    double r = fa_round(x, f);
    uint32_t sign = signbit(r) ? (uint32_t)1 << (eb + p) : 0;
    double a = fabs(r);
    if (isinf(a)) return sign | (emax_bits << p);
    if (a == 0) return sign;
    int e2;
    frexp(a, &e2);
    int E = e2 - 1;
    if (E < F->emin) /* subnormal: exponent field 0, value = mant * 2^(emin - p) */
        return sign | (uint32_t)ldexp(a, p - F->emin);
    uint32_t mant = (uint32_t)ldexp(a, p - E) & mmask;
    return sign | ((uint32_t)(E + bias) << p) | mant;
}

double fa_format_decode(uint32_t bits, fa_format f)
{
    if (f == FA_FMT_FP64) return 0;
    const fmt_info *F = &FMT[f];
    const int p = F->p, eb = F->ebits, bias = 1 - F->emin;
    const uint32_t emax_bits = ((uint32_t)1 << eb) - 1, mmask = ((uint32_t)1 << p) - 1;
    double s = (bits >> (eb + p)) & 1 ? -1.0 : 1.0;
    uint32_t ex = (bits >> p) & emax_bits, mant = bits & mmask;
    if (ex == emax_bits) {
        if (f == FA_FMT_E4M3) {
            if (mant == mmask) return NAN;
        } else {
            return mant ? NAN : s * INFINITY;
        }
    }
    if (ex == 0) return s * ldexp((double)mant, F->emin - p);
    return s * ldexp(1.0 + ldexp((double)mant, -p), (int)ex - bias);
}

fa_numerics fa_numerics_for(fa_format storage)
{
    fa_numerics n = {0};
    if (storage == FA_FMT_FP64) return n;
    n.on = 1;
    n.acc = FA_FMT_FP32;
    n.store = storage;
    n.p = storage;
    if (storage == FA_FMT_E4M3 || storage == FA_FMT_E5M2) {
        /* FP8 attention: P in fp8 scaled by a power of two (P <= 1, so 2^8 fits e4m3's 448 and
         * keeps P's small values out of the subnormals), O written in bf16 */
        n.store = FA_FMT_BF16;
        n.p_scale_log2 = storage == FA_FMT_E4M3 ? 8 : 15;
    }
    return n;
}

void fa_numerics_quantize(double *x, int64_t n, fa_format f, int *scale_log2)
{
    int k = 0;
    if (f == FA_FMT_E4M3 || f == FA_FMT_E5M2) {
        double amax = 0;
        for (int64_t i = 0; i < n; i++)
            if (isfinite(x[i]) && fabs(x[i]) > amax) amax = fabs(x[i]);
        if (amax > 0) {
            k = ilogb(FMT[f].max) - ilogb(amax);
            if (ldexp(amax, k) > FMT[f].max) k--;
        }
    }
    for (int64_t i = 0; i < n; i++)
        x[i] = k ? ldexp(fa_round(ldexp(x[i], k), f), -k) : fa_round(x[i], f);
    if (scale_log2) *scale_log2 = k;
}
