/* test_cpu_ref.c -- the tiled algorithms against the fp64 reference, and count-only mode
 * against numeric mode. */
#include "testutil.h"

#define BIG_M (1u << 30)

/* Odd shapes: tails, N_q != N_k both ways with causal, N = 1, d = 1, GQA 8/2, MQA. */
static const cfg cases[] = {
    {1, 1, 1, 1, 1, 1, 1, 16, 16, FA_CAUSAL_NONE},
    {1, 1, 1, 1, 1, 1, 1, 16, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 2, 2, 37, 37, 8, 8, 16, 16, FA_CAUSAL_NONE},
    {2, 1, 1, 50, 50, 16, 16, 16, 8, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 113, 203, 59, 59, 32, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 203, 113, 59, 59, 16, 32, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 203, 113, 24, 24, 16, 32, FA_CAUSAL_TOP_LEFT},
    {1, 1, 1, 113, 203, 24, 24, 48, 16, FA_CAUSAL_TOP_LEFT},
    {1, 1, 1, 1, 239, 32, 32, 16, 64, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 239, 1, 32, 32, 16, 64, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 8, 2, 45, 67, 16, 12, 16, 16, FA_CAUSAL_NONE},
    {1, 8, 2, 67, 45, 16, 12, 16, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {2, 4, 1, 33, 33, 1, 1, 16, 16, FA_CAUSAL_NONE},
    {1, 4, 1, 70, 31, 20, 7, 8, 5, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 64, 64, 64, 64, 64, 64, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 100, 100, 32, 32, 7, 3, FA_CAUSAL_BOTTOM_RIGHT},
};
#define NCASES (sizeof cases / sizeof cases[0])

static void test_algorithms_match_reference(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        fa_shape s = shape_of(&cases[c]);
        fa_blocks bk = {cases[c].Br, cases[c].Bc};
        problem p;
        problem_init(&p, &s, 1000 + c);
        int64_t no = fa_numel_o(&s), ns = fa_numel_stats(&s);
        for (int a = 0; a < FA_NALGO; a++) {
            double *O = tu_alloc(no), *L = tu_alloc(ns);
            for (int64_t i = 0; i < no; i++) O[i] = NAN; /* poison */
            assert_int_equal(tu_run_numeric((fa_algo)a, &p, bk, BIG_M, O, L, NULL), FA_OK);
            double eo = tu_max_rel(O, p.O_ref, no);
            if (eo > 1e-12) fail_msg("case %zu %s: O error %g", c, fa_algo_name((fa_algo)a), eo);
            if (a != FA_ALGO_STANDARD) {
                double el = tu_max_rel(L, p.LSE_ref, ns);
                if (el > 1e-12) fail_msg("case %zu %s: LSE error %g", c, fa_algo_name((fa_algo)a), el);
            }
            free(O);
            free(L);
        }
        problem_free(&p);
    }
}

/* Causal with N_q > N_k (bottom-right): the first N_q - N_k rows see no key: O = 0, LSE = -inf. */
static void test_empty_rows(void **state)
{
    (void)state;
    cfg c = {1, 1, 1, 40, 25, 8, 8, 16, 16, FA_CAUSAL_BOTTOM_RIGHT};
    fa_shape s = shape_of(&c);
    problem p;
    problem_init(&p, &s, 7);
    double *O = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
    for (int a = 0; a < FA_NALGO; a++) {
        assert_int_equal(tu_run_numeric((fa_algo)a, &p, (fa_blocks){16, 16}, BIG_M, O, L, NULL), FA_OK);
        for (int64_t i = 0; i < 40; i++) {
            int empty = i < 15;
            for (int64_t k = 0; k < 8; k++) {
                assert_false(isnan(O[i * 8 + k]));
                if (empty) assert_true(O[i * 8 + k] == 0.0);
            }
            if (a != FA_ALGO_STANDARD) {
                if (empty) assert_true(L[i] == -INFINITY);
                else assert_true(isfinite(L[i]));
            }
        }
    }
    free(O);
    free(L);
    problem_free(&p);
}

/* The reference on a hand-computed 1 x 2 case: q = [1], k = [0; ln 3 * sqrt(1)], v = [1; 5]
 * with d = 1: scores 0 and ln 3, softmax 1/4 and 3/4, O = 1/4 + 15/4 = 4, LSE = ln 4. */
static void test_reference_hand_case(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1, 1);
    s.seqlen_k = 2;
    double Q[1] = {1}, K[2] = {0, log(3.0)}, V[2] = {1, 5}, O[1], L[1];
    assert_int_equal(fa_reference_forward(&s, Q, K, V, O, L), FA_OK);
    assert_float_equal(O[0], 4.0, 1e-15);
    assert_float_equal(L[0], log(4.0), 1e-15);
}

/* Count-only mode counts exactly what numeric mode counts, with and without run merging. */
static void test_count_only_equals_numeric(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        fa_shape s = shape_of(&cases[c]);
        fa_blocks bk = {cases[c].Br, cases[c].Bc};
        problem p;
        problem_init(&p, &s, 2000 + c);
        double *O = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
        for (int a = 0; a < FA_NALGO; a++) {
            fa_counts num, cnt, merged;
            assert_int_equal(tu_run_numeric((fa_algo)a, &p, bk, BIG_M, O, L, &num), FA_OK);
            assert_int_equal(tu_run_count((fa_algo)a, &s, bk, BIG_M, 0, &cnt), FA_OK);
            assert_int_equal(tu_run_count((fa_algo)a, &s, bk, BIG_M, 1, &merged), FA_OK);
            tu_assert_counts_equal(&num, &cnt);
            tu_assert_counts_equal(&num, &merged);
        }
        free(O);
        free(L);
        problem_free(&p);
    }
}

/* The tile iterators (fa_attn.h): which visits they yield, with which weights, and their errors. */
static void test_tile_iter(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
    fa_status st = FA_OK;
    /* 2 x 3 slices of 7 row blocks (the tail 4 rows): merged, two visits of weight 6 x 6, 6 x 1 */
    int64_t got[4][5], n = 0;
    for (fa_tile_iter i = fa_iter_rows(mem, 2, 3, 100, 16, 1); fa_iter_next(&i, &st); n++) {
        assert_true(n < 4);
        int64_t v[5] = {i.b * 10 + i.h, i.t, i.w, i.len, fa_mem_weight_depth(mem)};
        memcpy(got[n], v, sizeof v);
    }
    assert_int_equal(st, FA_OK);
    assert_int_equal(n, 2);
    const int64_t want[2][5] = {{0, 0, 6, 16, 2}, {0, 6, 1, 4, 1}};
    assert_memory_equal(got, want, sizeof want);
    assert_int_equal(fa_mem_weight_depth(mem), 0);
    /* without merging every slice and tile is visited once, b major, weight 1 */
    fa_mem_set_merge(mem, 0);
    n = 0;
    int64_t last = -1;
    for (fa_tile_iter i = fa_iter_rows(mem, 2, 3, 100, 16, 1); fa_iter_next(&i, &st); n++) {
        assert_int_equal(i.w, 1);
        assert_true((i.b * 3 + i.h) * 7 + i.t == last + 1);
        last = (i.b * 3 + i.h) * 7 + i.t;
    }
    assert_int_equal(n, 42);
    fa_mem_set_merge(mem, 1);
    /* causal N = 64, B = 16: row block 2 sees K/V tiles 0-1 (FULL, one run) and 2 (PARTIAL) */
    fa_shape s = fa_shape_default(64, 16);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_tile_iter j = fa_iter_kv(mem, &s, 32, 16, 16);
    assert_false(fa_iter_empty(&j));
    assert_true(fa_iter_next(&j, &st) && j.t == 0 && j.w == 2 && j.x0 == 0);
    assert_true(fa_iter_next(&j, &st) && j.t == 2 && j.w == 1 && j.x0 == 32);
    assert_false(fa_iter_next(&j, &st));
    /* key tile 3 is seen by row block 3 alone, of each of 4 heads: one visit of weight 4 */
    fa_tile_iter q = fa_iter_q(mem, &s, 4, 48, 16, 16);
    assert_true(fa_iter_next(&q, &st) && q.t == 3 && q.h == 0 && fa_mem_weight_depth(mem) == 1);
    assert_false(fa_iter_next(&q, &st));
    /* N_q = 5, N_k = 2: rows 0-2 see no key, so row block [0, 2) has no tile (nothing pushed) */
    s.seqlen_q = 5;
    s.seqlen_k = 2;
    j = fa_iter_kv(mem, &s, 0, 2, 2);
    assert_true(fa_iter_empty(&j));
    assert_false(fa_iter_next(&j, &st));
    assert_int_equal(fa_mem_weight_depth(mem), 0);
    /* errors: a failed body ends the loop; a weight that overflows is reported in st */
    st = FA_EINVAL;
    fa_tile_iter e = fa_iter_slices(mem, 2, 2);
    assert_false(fa_iter_next(&e, &st));
    st = FA_OK;
    e = fa_iter_slices(mem, 2, 2);
    assert_true(fa_iter_next(&e, &st) && fa_mem_weight_depth(mem) == 1);
    st = FA_EINVAL; /* the body failed into st: the loop ends, its weights popped */
    assert_false(fa_iter_next(&e, &st));
    assert_int_equal(fa_mem_weight_depth(mem), 0);
    st = FA_OK;
    assert_int_equal(fa_mem_push_weight(mem, UINT64_MAX / 3), FA_OK);
    e = fa_iter_slices(mem, 2, 2);
    assert_false(fa_iter_next(&e, &st));
    assert_int_equal(st, FA_EOVERFLOW);
    fa_mem_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_hand_case),
        cmocka_unit_test(test_algorithms_match_reference),
        cmocka_unit_test(test_empty_rows),
        cmocka_unit_test(test_count_only_equals_numeric),
        cmocka_unit_test(test_tile_iter),
    };
    return cmocka_run_group_tests_name("cpu_ref", tests, NULL, NULL);
}
