/* test_exp2poly.c -- fa_exp2_poly (cpu_ref/fa_exp2poly.h), the FMA-pipe 2^x of FlashAttention-4
 * that the v5 forward's exp split uses:
 *   - relative error against exp2 in double <= FA_EXP2P_MAX_REL_ERR on every 61st fp32 bit
 *     pattern of [-125, 8] (about 36 M arguments: the softmax's range, with conditional
 *     rescaling's headroom 2^8), and the worst one is above 1e-5 (the bound is not vacuous);
 *   - hand-computed values: integers x give p(0) 2^x exactly (f = 0), 2^0.5 within the bound;
 *   - x < -125 and -inf give 0, NaN stays NaN, and the result is monotone across each integer
 *     (the jump from p(1-) 2^j to p(0) 2^(j+1) keeps order within the bound). */
#include "testutil.h"

#include "fa_exp2poly.h"

static double rel_err(float x)
{
    const double ref = exp2((double)x);
    return fabs((double)fa_exp2_poly(x) - ref) / ref;
}

static void test_exp2poly_whole_range(void **state)
{
    (void)state;
    double worst = 0;
    float worst_x = 0;
    long n = 0;
    /* negative side: bit patterns from -0 up to -125 (0xC2FA0000); positive: +0 .. 8 (0x41000000) */
    const uint32_t neg_end = 0xC2FA0000u, pos_end = 0x41000000u;
    for (uint32_t b = 0x80000000u; b <= neg_end; b += 61) {
        float x;
        memcpy(&x, &b, sizeof x);
        const double e = rel_err(x);
        if (e > worst) worst = e, worst_x = x;
        n++;
    }
    for (uint32_t b = 0; b <= pos_end; b += 61) {
        float x;
        memcpy(&x, &b, sizeof x);
        const double e = rel_err(x);
        if (e > worst) worst = e, worst_x = x;
        n++;
    }
    const float ends[] = {-125.0f, 8.0f, -0.0f, 0.0f, -1e-30f, -124.99999f, 7.99999f};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        const double e = rel_err(ends[i]);
        if (e > worst) worst = e, worst_x = ends[i];
    }
    print_message("fa_exp2_poly: %ld arguments, max rel err %.3e at x = %.9g\n", n, worst, (double)worst_x);
    assert_true(n > 30000000L);
    assert_true(worst <= FA_EXP2P_MAX_REL_ERR);
    assert_true(worst > 1e-5);
}

static void test_exp2poly_values(void **state)
{
    (void)state;
    for (int j = -125; j <= 8; j++) /* f = 0: p(0) = C0 exactly, times 2^j */
        assert_true(fa_exp2_poly((float)j) == ldexpf(FA_EXP2P_C0, j));
    assert_true(fabs(fa_exp2_poly(0.5f) - sqrt(2.0)) <= FA_EXP2P_MAX_REL_ERR * sqrt(2.0));
    assert_true(fabs(fa_exp2_poly(-3.25f) - exp2(-3.25)) <= FA_EXP2P_MAX_REL_ERR * exp2(-3.25));
    assert_true(fa_exp2_poly(-125.5f) == 0.0f);
    assert_true(fa_exp2_poly(-1e30f) == 0.0f);
    assert_true(fa_exp2_poly(-INFINITY) == 0.0f);
    assert_true(isnan(fa_exp2_poly(NAN)));
    for (int j = -124; j <= 8; j++) { /* across an integer: below stays below */
        const float below = nextafterf((float)j, -INFINITY);
        assert_true(fa_exp2_poly(below) < fa_exp2_poly(nextafterf((float)j, INFINITY)));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp2poly_whole_range),
        cmocka_unit_test(test_exp2poly_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
