/* test_explain.c -- analysis/explain.c: the forward closed form term by term equals the memory
 * model's count (B H x the slice's sum), for the three algorithms, with and without a causal mask
 * of either anchor, on tiles that do and do not divide N; and a hand-computed slice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fa_explain.h"

static void test_equals_counts(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    static const struct { int64_t Nq, Nk, d, br, bc; } cases[] = {
        {300, 257, 64, 32, 48}, {128, 128, 32, 64, 64}, {67, 45, 16, 16, 32}, {1, 1000, 64, 16, 128}};
    int checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int causal = 0; causal < 3; causal++)
            for (int a = 0; a < FA_NALGO; a++) {
                fa_shape s = fa_shape_default(cases[c].Nq, cases[c].d);
                s.seqlen_k = cases[c].Nk;
                s.batch = 2, s.heads = s.kv_heads = 3;
                s.causal = (fa_causal)causal;
                fa_blocks bk = {cases[c].br, cases[c].bc};
                fa_fwd_terms x;
                assert_int_equal(fa_explain_forward((fa_algo)a, &s, bk, &x), FA_OK);
                uint64_t sum = 0;
                for (int k = 0; k < x.n; k++) sum += x.t[k].value;
                assert_int_equal(sum, x.slice);
                fa_io_result r;
                assert_int_equal(fa_io_run(FA_PASS_FWD, (fa_algo)a, &s, bk, 1u << 30, &hw, NULL, &r), FA_OK);
                if (fa_counts_hbm_bytes(&r.counts) != 6 * x.slice)
                    fail_msg("%s N_q %lld N_k %lld causal %d: counted %llu, terms 6 x %llu", fa_algo_name((fa_algo)a),
                             (long long)s.seqlen_q, (long long)s.seqlen_k, causal,
                             (unsigned long long)fa_counts_hbm_bytes(&r.counts), (unsigned long long)x.slice);
                checked++;
            }
    assert_int_equal(checked, 36);
}

static void test_hand_computed(void **st)
{
    (void)st;
    /* flash2, N_q = N_k = 128, d = 64, fp16, 64 x 64 tiles, no mask: Q 128*64*2 = 16384, K and V
     * T_r*N_k*d*e = 2*128*64*2 = 32768 each, O 16384, LSE 4*128 = 512: 98816 B */
    fa_shape s = fa_shape_default(128, 64);
    fa_fwd_terms x;
    fa_blocks bk = {64, 64};
    assert_int_equal(fa_explain_forward(FA_ALGO_FLASH2, &s, bk, &x), FA_OK);
    assert_int_equal(x.n, 5);
    assert_int_equal(x.krows, 256);
    assert_int_equal(x.slice, 16384 + 2 * 32768 + 16384 + 512);
    assert_string_equal(x.t[1].symbol, "K_rows*d*e");
    assert_string_equal(x.t[1].numbers, "256*64*2");
    /* standard: a row of 128 keys in two 64-key tiles: the softmax reads S twice (p = 2) */
    assert_int_equal(fa_explain_forward(FA_ALGO_STANDARD, &s, bk, &x), FA_OK);
    assert_int_equal(x.p, 2);
    bk.block_c = 128;
    assert_int_equal(fa_explain_forward(FA_ALGO_STANDARD, &s, bk, &x), FA_OK);
    assert_int_equal(x.p, 1);
    bk.block_r = 0;
    assert_int_equal(fa_explain_forward(FA_ALGO_FLASH1, &s, bk, &x), FA_EINVAL);
    fa_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_equals_counts), cmocka_unit_test(test_hand_computed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
