/* test_precision.c -- rounding to fp32, fp16, bf16, e4m3, e5m2 against hand-computed bit
 * patterns: ties to even, subnormals, overflow (inf or saturation), NaN; exhaustive round trips
 * of every 8- and 16-bit pattern; fp8 per-tensor scaling. */
#include "testutil.h"

#include "fa_precision.h"

#define ENC(x, f) fa_format_encode((x), (f))

static void test_fp16_bits(void **state)
{
    (void)state;
    assert_int_equal(ENC(1.0, FA_FMT_FP16), 0x3c00);
    assert_int_equal(ENC(-2.0, FA_FMT_FP16), 0xc000);
    assert_int_equal(ENC(0.1, FA_FMT_FP16), 0x2e66);         /* 0.0999755859375 */
    assert_int_equal(ENC(65504.0, FA_FMT_FP16), 0x7bff);     /* largest finite */
    assert_int_equal(ENC(65519.0, FA_FMT_FP16), 0x7bff);     /* below the midpoint 65520 */
    assert_int_equal(ENC(65520.0, FA_FMT_FP16), 0x7c00);     /* midpoint, ties to even: inf */
    assert_int_equal(ENC(-1e6, FA_FMT_FP16), 0xfc00);        /* -inf */
    assert_int_equal(ENC(ldexp(1, -24), FA_FMT_FP16), 0x0001); /* smallest subnormal */
    assert_int_equal(ENC(ldexp(1, -25), FA_FMT_FP16), 0x0000); /* tie between 0 and 2^-24: 0 */
    assert_int_equal(ENC(ldexp(3, -26), FA_FMT_FP16), 0x0001); /* 0.75 of 2^-24 rounds up */
    assert_int_equal(ENC(ldexp(3, -25), FA_FMT_FP16), 0x0002); /* tie 1.5 quanta: to 2 (even) */
    assert_int_equal(ENC(ldexp(1023, -24), FA_FMT_FP16), 0x03ff); /* largest subnormal */
    assert_int_equal(ENC(ldexp(1, -14), FA_FMT_FP16), 0x0400);    /* smallest normal */
    assert_int_equal(ENC(1 + ldexp(1, -11), FA_FMT_FP16), 0x3c00); /* tie: to even 1.0 */
    assert_int_equal(ENC(1 + ldexp(3, -11), FA_FMT_FP16), 0x3c02); /* tie: to even 1+2^-9 */
    assert_int_equal(ENC(NAN, FA_FMT_FP16), 0x7e00);
    assert_true(signbit(fa_round(-0.0, FA_FMT_FP16)));
    assert_true(fa_round(-ldexp(1, -26), FA_FMT_FP16) == 0 && signbit(fa_round(-ldexp(1, -26), FA_FMT_FP16)));
}

static void test_bf16_bits(void **state)
{
    (void)state;
    assert_int_equal(ENC(1.0, FA_FMT_BF16), 0x3f80);
    assert_int_equal(ENC(3.14159265358979, FA_FMT_BF16), 0x4049);        /* 3.140625 */
    assert_int_equal(ENC(1 + ldexp(1, -8), FA_FMT_BF16), 0x3f80); /* tie: to even */
    assert_int_equal(ENC(1 + ldexp(3, -8), FA_FMT_BF16), 0x3f82);
    assert_int_equal(ENC(-2e5, FA_FMT_BF16), 0xc843);         /* -199680 */
    assert_true(fa_round(-2e5, FA_FMT_BF16) == -199680.0);
    assert_int_equal(ENC(0x1.fep127, FA_FMT_BF16), 0x7f7f);   /* largest finite */
    assert_int_equal(ENC(FLT_MAX, FA_FMT_BF16), 0x7f80);      /* beyond max + half ulp: inf */
    assert_int_equal(ENC(ldexp(1, -133), FA_FMT_BF16), 0x0001); /* smallest subnormal */
    assert_int_equal(ENC(NAN, FA_FMT_BF16), 0x7fc0);
}

static void test_fp8_bits(void **state)
{
    (void)state;
    /* e4m3: bias 7, no inf, max 448 = S.1111.110, NaN = S.1111.111; saturating conversion */
    assert_int_equal(ENC(1.0, FA_FMT_E4M3), 0x38);
    assert_int_equal(ENC(448.0, FA_FMT_E4M3), 0x7e);
    assert_int_equal(ENC(500.0, FA_FMT_E4M3), 0x7e);          /* saturates */
    assert_int_equal(ENC(-1e9, FA_FMT_E4M3), 0xfe);
    assert_int_equal(ENC(INFINITY, FA_FMT_E4M3), 0x7e);       /* inf saturates too */
    assert_int_equal(ENC(NAN, FA_FMT_E4M3), 0x7f);
    assert_int_equal(ENC(17.0, FA_FMT_E4M3), 0x58);           /* tie 16 | 18: to even 16 */
    assert_int_equal(ENC(ldexp(1, -9), FA_FMT_E4M3), 0x01);   /* smallest subnormal */
    assert_int_equal(ENC(ldexp(1, -10), FA_FMT_E4M3), 0x00);  /* tie: to 0 */
    assert_int_equal(ENC(ldexp(3, -11), FA_FMT_E4M3), 0x01);
    assert_true(fa_round(0.3, FA_FMT_E4M3) == 0.3125);
    /* e5m2: IEEE-like, max 57344, overflow to inf */
    assert_int_equal(ENC(1.0, FA_FMT_E5M2), 0x3c);
    assert_int_equal(ENC(57344.0, FA_FMT_E5M2), 0x7b);
    assert_int_equal(ENC(61439.0, FA_FMT_E5M2), 0x7b);
    assert_int_equal(ENC(61440.0, FA_FMT_E5M2), 0x7c);        /* midpoint, mantissa 11 odd: inf */
    assert_int_equal(ENC(ldexp(1, -16), FA_FMT_E5M2), 0x01);
    assert_int_equal(ENC(NAN, FA_FMT_E5M2), 0x7e);
    /* decoding */
    assert_true(isnan(fa_format_decode(0x7f, FA_FMT_E4M3)) && isnan(fa_format_decode(0xff, FA_FMT_E4M3)));
    assert_true(fa_format_decode(0x78, FA_FMT_E4M3) == 256.0); /* exponent 1111 is finite */
    assert_true(isinf(fa_format_decode(0x7c, FA_FMT_E5M2)) && isnan(fa_format_decode(0x7d, FA_FMT_E5M2)));
    assert_true(isnan(fa_format_decode(0x7c01, FA_FMT_FP16)));
    assert_true(fa_format_decode(0xfbff, FA_FMT_FP16) == -65504.0);
    assert_true(fa_format_decode(0x0001, FA_FMT_FP16) == ldexp(1, -24));
}

static void test_fp32(void **state)
{
    (void)state;
    assert_true(fa_round(1 + ldexp(1, -24), FA_FMT_FP32) == 1.0);
    assert_true(fa_round(1 + ldexp(3, -24), FA_FMT_FP32) == 1 + ldexp(1, -22));
    assert_true(fa_round(ldexp(1, -149), FA_FMT_FP32) == ldexp(1, -149));
    assert_true(fa_round(ldexp(1, -150), FA_FMT_FP32) == 0.0);
    assert_true(isinf(fa_round(1e39, FA_FMT_FP32)));
    assert_int_equal(ENC(1.0, FA_FMT_FP32), 0x3f800000u);
    assert_true(fa_round(0.1, FA_FMT_FP64) == 0.1);
}

/* every bit pattern decodes to a value that rounds to itself and encodes back to the pattern */
static void test_round_trips(void **state)
{
    (void)state;
    const fa_format f[] = {FA_FMT_FP16, FA_FMT_BF16, FA_FMT_E4M3, FA_FMT_E5M2};
    for (int k = 0; k < 4; k++) {
        uint32_t n = fa_format_bytes(f[k]) == 1 ? 256u : 65536u;
        for (uint32_t b = 0; b < n; b++) {
            double x = fa_format_decode(b, f[k]);
            if (isnan(x)) continue;
            assert_true(fa_round(x, f[k]) == x);
            if (fa_format_encode(x, f[k]) != b) fail_msg("%s 0x%x -> %g -> 0x%x", fa_format_name(f[k]), b, x, fa_format_encode(x, f[k]));
        }
    }
    /* monotone: rounding never crosses a neighbour */
    for (double x = -70000; x < 70000; x += 13.37)
        assert_true(fa_round(x, FA_FMT_FP16) <= fa_round(x + 13.37, FA_FMT_FP16));
}

static void test_quantize_scaling(void **state)
{
    (void)state;
    double x[4] = {3.0, -1.5, 0.001, 0.0};
    int k = -1;
    fa_numerics_quantize(x, 4, FA_FMT_E4M3, &k);
    assert_int_equal(k, 7); /* 3 * 2^7 = 384 <= 448 < 768 */
    assert_true(x[0] == 3.0 && x[1] == -1.5 && x[3] == 0.0);
    assert_true(x[2] == ldexp(fa_round(ldexp(0.001, 7), FA_FMT_E4M3), -7));
    double y[2] = {3.6, 1.0};
    fa_numerics_quantize(y, 2, FA_FMT_E4M3, &k);
    assert_int_equal(k, 6); /* 3.6 * 128 = 460.8 > 448 */
    double z[2] = {3.6, 1e-3};
    fa_numerics_quantize(z, 2, FA_FMT_BF16, &k);
    assert_int_equal(k, 0);
    assert_true(z[0] == fa_round(3.6, FA_FMT_BF16));
    fa_format p;
    assert_int_equal(fa_format_parse("fp8_e5m2", &p), FA_OK);
    assert_int_equal(p, FA_FMT_E5M2);
    assert_int_equal(fa_format_parse("fp12", &p), FA_EINVAL);
    fa_numerics n8 = fa_numerics_for(FA_FMT_E4M3), n0 = fa_numerics_for(FA_FMT_FP64);
    assert_true(n8.on && n8.p == FA_FMT_E4M3 && n8.store == FA_FMT_BF16 && n8.p_scale_log2 == 8);
    assert_false(n0.on);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp16_bits),  cmocka_unit_test(test_bf16_bits),
        cmocka_unit_test(test_fp8_bits),   cmocka_unit_test(test_fp32),
        cmocka_unit_test(test_round_trips), cmocka_unit_test(test_quantize_scaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
