/* test_formula.c -- counted bytes == closed form, block-size rules, Theorem 2 in numbers. */
#include "testutil.h"

/* forward counts == closed form (testutil.h) */
static void assert_counts_match_formula(fa_algo a, const fa_shape *s, fa_blocks bk)
{
    tu_assert_counts_match_formula(FA_PASS_FWD, a, s, bk, NULL);
}

/* The grid of the issue: (N_q, N_k, d, B_r, B_c, causal, dtype), every algorithm. */
static void test_counted_equals_closed_form(void **state)
{
    (void)state;
    static const int64_t Ns[] = {1, 17, 64, 100, 257};
    static const int64_t ds[] = {1, 24, 64};
    static const int64_t Bs[] = {1, 16, 48};
    int n = 0;
    for (size_t iq = 0; iq < 5; iq++)
        for (size_t ik = 0; ik < 5; ik++)
            for (size_t id = 0; id < 3; id++)
                for (size_t ir = 0; ir < 3; ir++)
                    for (size_t ic = 0; ic < 3; ic++)
                        for (int causal = 0; causal < 3; causal++)
                            for (int dt = 0; dt < 3; dt++) {
                                if ((iq + ik + id + ir + ic + (size_t)causal + (size_t)dt) % 3 != 0) continue;
                                fa_shape s = fa_shape_default(Ns[iq], ds[id]);
                                s.seqlen_k = Ns[ik];
                                s.d_v = ds[(id + 1) % 3];
                                s.batch = 2;
                                s.heads = 4;
                                s.kv_heads = 2;
                                s.causal = (fa_causal)causal;
                                s.dtype = (fa_dtype)dt;
                                fa_blocks bk = {Bs[ir], Bs[ic]};
                                for (int a = 0; a < FA_NALGO; a++)
                                    assert_counts_match_formula((fa_algo)a, &s, bk);
                                n++;
                            }
    assert_true(n > 300);
}

/* Large shapes in count-only mode (merged runs) against the closed form. */
static void test_large_shapes_closed_form(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1 << 16, 128);
    s.batch = 3;
    s.heads = 16;
    s.kv_heads = 4;
    for (int causal = 0; causal < 3; causal++) {
        s.causal = (fa_causal)causal;
        s.seqlen_k = (1 << 16) + 77;
        for (int a = 0; a < FA_NALGO; a++) assert_counts_match_formula((fa_algo)a, &s, (fa_blocks){112, 80});
    }
}

/* flash2 without a mask: K/V term = T_r N_k (d + d_v) e per head.  Doubling M lets B_r double
 * and halves it; Q, O, LSE terms stay. */
static void test_theorem2_flash2_halves(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(8192, 64);
    fa_formula f1, f2;
    fa_counts c1, c2;
    fa_blocks b1 = {64, 64}, b2 = {128, 64};
    uint64_t M1 = fa_sram_need(FA_ALGO_FLASH2, &s, b1), M2 = 2 * M1;
    assert_true(fa_sram_need(FA_ALGO_FLASH2, &s, b2) <= M2);
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, b1, M1, 1, &c1), FA_OK);
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, b2, M2, 1, &c2), FA_OK);
    assert_int_equal(fa_formula_bytes(FA_ALGO_FLASH2, &s, b1, &f1), FA_OK);
    assert_int_equal(fa_formula_bytes(FA_ALGO_FLASH2, &s, b2, &f2), FA_OK);
    int k = fa_counts_find(&c1, "K"), v = fa_counts_find(&c1, "V"), q = fa_counts_find(&c1, "Q");
    assert_int_equal(c1.tensor[k].read_bytes, 2 * c2.tensor[k].read_bytes);
    assert_int_equal(c1.tensor[v].read_bytes, 2 * c2.tensor[v].read_bytes);
    assert_int_equal(c1.tensor[q].read_bytes, c2.tensor[q].read_bytes);
    /* the hand value: T_r = 128 passes over K of 8192 x 64 x 2 bytes */
    assert_int_equal(c1.tensor[k].read_bytes, 128ull * 8192 * 64 * 2);
}

/* standard: its N^2 terms (S and P) do not depend on M; its K and V re-reads do. */
static void test_theorem2_standard(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(4096, 64);
    fa_counts c1, c2;
    fa_blocks b1 = {32, 64}, b2 = {128, 64};
    assert_int_equal(tu_run_count(FA_ALGO_STANDARD, &s, b1, 1u << 20, 1, &c1), FA_OK);
    assert_int_equal(tu_run_count(FA_ALGO_STANDARD, &s, b2, 1u << 20, 1, &c2), FA_OK);
    int S = fa_counts_find(&c1, "S"), P = fa_counts_find(&c1, "P"), K = fa_counts_find(&c1, "K");
    uint64_t n2 = 4096ull * 4096 * 2;
    assert_int_equal(c1.tensor[S].write_bytes, n2);
    assert_int_equal(c1.tensor[S].read_bytes, 2 * n2);
    assert_int_equal(c1.tensor[P].write_bytes, n2);
    assert_int_equal(c1.tensor[P].read_bytes, n2);
    assert_int_equal(c1.tensor[S].read_bytes, c2.tensor[S].read_bytes);
    assert_int_equal(c1.tensor[P].write_bytes, c2.tensor[P].write_bytes);
    assert_int_equal(c1.tensor[K].read_bytes, 4 * c2.tensor[K].read_bytes);
}

/* Causal tile skipping shows in the counts: flash2 with N = 1024, B = 64 reads K
 * sum_{i=1..16} i tiles = 136 tiles instead of 256. */
static void test_causal_skipping(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1024, 64);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_counts c;
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, (fa_blocks){64, 64}, 1u << 20, 1, &c), FA_OK);
    int k = fa_counts_find(&c, "K");
    assert_int_equal(c.tensor[k].read_bytes, 136ull * 64 * 64 * 2);
    assert_int_equal(c.tensor[k].loads, 136);
}

static void test_blocks_fit(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(4096, 128);
    fa_blocks b;
    /* H100/H200: M = 232448 B, fp16, d = d_v = 128: 4B^2 + B(256+256+512+256... ) */
    assert_int_equal(fa_blocks_fit(&s, 232448, &b), FA_OK);
    assert_true(b.block_r % 16 == 0 && b.block_r == b.block_c);
    assert_true(fa_sram_need(FA_ALGO_FLASH2, &s, b) <= 232448);
    fa_blocks bigger = {b.block_r + 16, b.block_c + 16};
    assert_true(fa_sram_need(FA_ALGO_FLASH2, &s, bigger) > 232448);
    /* hand value: need(B) = 4B^2 + B(2*128*2 + 128*2 + 4*128 + 8) = 4B^2 + 1288B; B = 160:
     * 102400 + 206080 = 308480 > 232448; B = 144: 82944 + 185472 = 268416 > M; B = 128:
     * 65536 + 164864 = 230400 <= M. */
    assert_int_equal(b.block_r, 128);
    /* clamped to the sequence: N_q = 1 gives B_r = 16 */
    s.seqlen_q = 1;
    assert_int_equal(fa_blocks_fit(&s, 232448, &b), FA_OK);
    assert_int_equal(b.block_r, 16);
    assert_int_equal(b.block_c, 128);
    /* too small */
    assert_int_equal(fa_blocks_fit(&s, 1000, &b), FA_ENOSRAM);
    assert_non_null(strstr(fa_last_error(), "too small"));
}

static void test_blocks_paper_overflow(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(4096, 64);
    fa_blocks b;
    uint64_t over;
    /* M = 64 KiB fp16 = 32768 elements: B_c = ceil(32768 / 256) = 128, B_r = min(128, 64) = 64 */
    fa_blocks_paper(&s, 65536, &b, &over);
    assert_int_equal(b.block_c, 128);
    assert_int_equal(b.block_r, 64);
    uint64_t need = fa_sram_need(FA_ALGO_FLASH1, &s, b);
    assert_int_equal(over, need - 65536);
    assert_true(over > 0);
}

static void test_sram_over_capacity_is_error(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(256, 64);
    for (int a = 0; a < FA_NALGO; a++) {
        fa_counts c;
        fa_blocks bk = {64, 64};
        uint64_t need = fa_sram_need((fa_algo)a, &s, bk);
        assert_int_equal(tu_run_count((fa_algo)a, &s, bk, need - 1, 1, &c), FA_ENOSRAM);
        assert_non_null(strstr(fa_last_error(), "does not fit"));
        assert_int_equal(tu_run_count((fa_algo)a, &s, bk, need, 1, &c), FA_OK);
        assert_true(c.sram_peak_bytes <= need);
    }
}

static void test_overflow_is_error(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default((int64_t)1 << 30, 1 << 20);
    s.batch = 1 << 20;
    fa_formula f;
    assert_int_equal(fa_formula_bytes(FA_ALGO_STANDARD, &s, (fa_blocks){16, 16}, &f), FA_EOVERFLOW);
    fa_counts c;
    s = fa_shape_default((int64_t)1 << 30, 64);
    s.batch = 1 << 20;
    assert_int_equal(tu_run_count(FA_ALGO_STANDARD, &s, (fa_blocks){16, 16}, 1u << 20, 1, &c), FA_EOVERFLOW);
    assert_non_null(strstr(fa_last_error(), "64 bits"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counted_equals_closed_form),
        cmocka_unit_test(test_large_shapes_closed_form),
        cmocka_unit_test(test_theorem2_flash2_halves),
        cmocka_unit_test(test_theorem2_standard),
        cmocka_unit_test(test_causal_skipping),
        cmocka_unit_test(test_blocks_fit),
        cmocka_unit_test(test_blocks_paper_overflow),
        cmocka_unit_test(test_sram_over_capacity_is_error),
        cmocka_unit_test(test_overflow_is_error),
    };
    return cmocka_run_group_tests_name("formula", tests, NULL, NULL);
}
