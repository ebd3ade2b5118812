/* test_rescale.c -- FlashAttention-4's conditional rescaling in the FlashAttention-2 forward
 * (fa_shape.rescale_threshold, fa_tile_online_softmax_cond): exact against the fp64 reference,
 * within the FlashAttention tolerance rule in bf16, tau = 0 identical to the unconditional
 * algorithm, and the counted rescales equal hand-computed closed forms (docs/variants.md,
 * "Conditional rescaling"). */
#include "testutil.h"

#include "fa_check.h"
#include "fa_numerics.h"

#define BIG_M (1u << 30)

/* One numeric flash2 forward of p with threshold tau; outputs in O, LSE, counts in *c. */
static void run_flash2(const problem *p, double tau, fa_blocks bk, double *O, double *LSE, fa_counts *c)
{
    problem q = *p;
    q.s.rescale_threshold = tau;
    fa_status st = tu_run_numeric(FA_ALGO_FLASH2, &q, bk, BIG_M, O, LSE, c);
    if (st) fail_msg("flash2 tau = %g: %s", tau, fa_last_error());
}

/* Inputs whose score of key j is delta * j for every query row (scale 1): q_i = e_1, k_j = delta j e_1. */
static void increasing_inputs(problem *p, double delta)
{
    const fa_shape *s = &p->s;
    memset(p->Q, 0, sizeof(double) * (size_t)fa_numel_q(s));
    memset(p->K, 0, sizeof(double) * (size_t)fa_numel_k(s));
    for (int64_t r = 0; r < fa_numel_q(s) / s->d; r++) p->Q[r * s->d] = 1.0;
    for (int64_t bh = 0; bh < s->batch * s->kv_heads; bh++)
        for (int64_t j = 0; j < s->seqlen_k; j++) p->K[(bh * s->seqlen_k + j) * s->d] = delta * (double)j;
    assert_int_equal(fa_reference_forward(s, p->Q, p->K, p->V, p->O_ref, p->LSE_ref), FA_OK);
}

/* The closed form for increasing scores delta j (no mask, N_k = T_c B_c): the row max of tile t is
 * delta ((t + 1) B_c - 1); after a rescale at t0 the stale max lags tile t's by delta B_c (t - t0),
 * which exceeds tau (log2 units) first at t - t0 = k = floor(tau / (delta B_c log2 e)) + 1, so a
 * row block rescales at t = 0, k, 2k, ...: 1 + floor((T_c - 1) / k) times (T_c when k = 1). */
static uint64_t increasing_rescales(double delta, int64_t Bc, int64_t Tc, double tau)
{
    int64_t k = tau > 0 ? (int64_t)floor(tau / (delta * (double)Bc * FA_LOG2E)) + 1 : 1;
    return 1 + (uint64_t)((Tc - 1) / k);
}

/* Exact against the fp64 reference: odd shapes, causal both anchors, GQA, N(0,1) x 1.7 and
 * increasing scores, tau in {0.5, 8}: O and LSE within 1e3 N DBL_EPSILON of the reference (the
 * fp64 check's tolerance scaled with N, as in test_cpu_ref.c). */
static void test_exact_fp64(void **state)
{
    (void)state;
    const cfg cases[] = {
        {1, 1, 1, 113, 203, 40, 40, 32, 16, FA_CAUSAL_NONE},     {2, 4, 2, 97, 150, 24, 16, 16, 32, FA_CAUSAL_BOTTOM_RIGHT},
        {1, 2, 1, 150, 97, 16, 16, 32, 16, FA_CAUSAL_TOP_LEFT},  {1, 1, 1, 256, 256, 8, 8, 16, 16, FA_CAUSAL_NONE},
    };
    const double taus[] = {0.5, 8.0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int inc = 0; inc < 2; inc++)
            for (size_t t = 0; t < 2; t++) {
                fa_shape s = shape_of(&cases[c]);
                if (inc) s.scale = 1.0;
                problem p;
                problem_init(&p, &s, 1234 + c);
                if (inc) increasing_inputs(&p, 0.37);
                fa_blocks bk = {cases[c].Br, cases[c].Bc};
                double *O = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
                fa_counts cnt;
                run_flash2(&p, taus[t], bk, O, L, &cnt);
                double tol = 1e3 * (double)s.seqlen_k * DBL_EPSILON;
                double eo = tu_max_rel(O, p.O_ref, fa_numel_o(&s)), el = tu_max_rel(L, p.LSE_ref, fa_numel_stats(&s));
                if (!(eo <= tol && el <= tol))
                    fail_msg("case %zu inc %d tau %g: O err %g, LSE err %g > %g", c, inc, taus[t], eo, el, tol);
                assert_true(cnt.rescales <= cnt.rescale_steps);
                free(O);
                free(L);
                problem_free(&p);
            }
}

/* tau = 0 is FlashAttention-2 exactly: outputs bit for bit and every count equal to the default
 * shape's, and every visited tile counts as a rescale, numeric and count-only alike: steps =
 * rescales = B H sum_i n_visit(i) (fa_kv_span_sum), blocks = B H T_r, max = T_c. */
static void test_tau0_identical(void **state)
{
    (void)state;
    const cfg cases[] = {{2, 2, 1, 200, 173, 32, 32, 32, 64, FA_CAUSAL_BOTTOM_RIGHT},
                         {1, 3, 3, 128, 128, 16, 16, 32, 32, FA_CAUSAL_NONE}};
    for (size_t c = 0; c < 2; c++) {
        fa_shape s = shape_of(&cases[c]);
        problem p;
        problem_init(&p, &s, 77 + c);
        fa_blocks bk = {cases[c].Br, cases[c].Bc};
        int64_t no = fa_numel_o(&s), ns = fa_numel_stats(&s);
        double *O0 = tu_alloc(no), *L0 = tu_alloc(ns), *O1 = tu_alloc(no), *L1 = tu_alloc(ns);
        fa_counts c0, c1, cc;
        assert_int_equal(tu_run_numeric(FA_ALGO_FLASH2, &p, bk, BIG_M, O0, L0, &c0), FA_OK); /* the default shape */
        run_flash2(&p, 0.0, bk, O1, L1, &c1);
        assert_memory_equal(O0, O1, sizeof(double) * (size_t)no);
        assert_memory_equal(L0, L1, sizeof(double) * (size_t)ns);
        tu_assert_counts_equal(&c0, &c1);
        assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, bk, BIG_M, 1, &cc), FA_OK);
        tu_assert_counts_equal(&c1, &cc);
        const int64_t Tr = fa_cdiv(s.seqlen_q, bk.block_r), Tc = fa_cdiv(s.seqlen_k, bk.block_c);
        uint64_t visits = 0;
        int64_t most = 0;
        for (int64_t i = 0; i < Tr; i++) {
            int64_t tiles, keys;
            fa_kv_span_sum(&s, i * bk.block_r, fa_tile_len(i * bk.block_r, s.seqlen_q, bk.block_r), bk.block_c,
                           &tiles, &keys);
            visits += (uint64_t)tiles;
            if (tiles > most) most = tiles;
        }
        visits *= (uint64_t)(s.batch * s.heads);
        const fa_counts *all[2] = {&c1, &cc};
        for (int k = 0; k < 2; k++) {
            assert_int_equal(all[k]->rescale_steps, visits);
            assert_int_equal(all[k]->rescales, visits);
            assert_int_equal(all[k]->rescale_blocks, (uint64_t)(s.batch * s.heads * Tr));
            assert_int_equal(all[k]->rescale_max, (uint64_t)most);
        }
        if (s.causal == FA_CAUSAL_NONE) assert_int_equal(visits, (uint64_t)(s.batch * s.heads * Tr * Tc));
        free(O0); free(L0); free(O1); free(L1);
        problem_free(&p);
    }
}

/* Hand-computed counts, tau = 8 (FlashAttention-4's value), B = 1, H = 2, N = 320, B_r = 32,
 * B_c = 32 (T_r = T_c = 10):
 * - increasing scores delta j, delta = 1: a tile's max grows by 32 log2(e) = 46.2 > 8 every tile:
 *   every tile rescales, 10 per row block, 200 in all (= the unconditional count);
 * - delta = 0.05: 1.6 per tile = 2.31 log2 units; k = floor(8 / 2.31) + 1 = 4: tiles 0, 4, 8,
 *   3 per row block, 60 in all (the closed form increasing_rescales);
 * - constant scores (K = 0): the first tile only: 1 per row block, 20 in all;
 * - N(0, 1) inputs, d = 16, scale 1/4: scores of sd 1; a tile of 32 keys already holds a max
 *   within a few units of the row's (tau = 8 log2 units = 5.5 natural): about one rescale per
 *   row block (at least 1, at most 2 asserted).
 * Count-only mode sees no scores: its count is the unconditional one, 200 (the upper bound the
 * increasing input attains). */
static void test_counts_hand_computed(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(320, 16);
    s.heads = s.kv_heads = 2;
    s.scale = 1.0;
    fa_blocks bk = {32, 32};
    const int64_t Tr = 10, Tc = 10, BH = 2;
    problem p;
    problem_init(&p, &s, 99);
    double *O = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
    fa_counts c;

    increasing_inputs(&p, 1.0);
    run_flash2(&p, 8.0, bk, O, L, &c);
    assert_int_equal(c.rescales, (uint64_t)(BH * Tr * Tc));
    assert_int_equal(c.rescales, BH * Tr * increasing_rescales(1.0, 32, Tc, 8.0));
    assert_int_equal(c.rescale_steps, (uint64_t)(BH * Tr * Tc));
    assert_int_equal(c.rescale_max, (uint64_t)Tc);
    assert_int_equal(c.rescale_blocks, (uint64_t)(BH * Tr));

    increasing_inputs(&p, 0.05);
    run_flash2(&p, 8.0, bk, O, L, &c);
    assert_int_equal(increasing_rescales(0.05, 32, Tc, 8.0), 3);
    assert_int_equal(c.rescales, 60);
    assert_int_equal(c.rescale_max, 3);
    assert_true(tu_max_rel(O, p.O_ref, fa_numel_o(&s)) <= 1e3 * 320 * DBL_EPSILON);
    /* a threshold below one tile's growth: every tile again */
    run_flash2(&p, 2.0, bk, O, L, &c);
    assert_int_equal(c.rescales, BH * Tr * increasing_rescales(0.05, 32, Tc, 2.0));
    assert_int_equal(c.rescales, 200);

    memset(p.K, 0, sizeof(double) * (size_t)fa_numel_k(&s)); /* every score 0 */
    assert_int_equal(fa_reference_forward(&s, p.Q, p.K, p.V, p.O_ref, p.LSE_ref), FA_OK);
    run_flash2(&p, 8.0, bk, O, L, &c);
    assert_int_equal(c.rescales, (uint64_t)(BH * Tr));
    assert_int_equal(c.rescale_max, 1);
    assert_true(tu_max_rel(O, p.O_ref, fa_numel_o(&s)) <= 1e3 * 320 * DBL_EPSILON);

    problem_free(&p);
    s.scale = 0; /* 1 / sqrt(d) */
    problem_init(&p, &s, 99);
    for (int64_t i = 0; i < fa_numel_q(&s); i++) p.Q[i] /= 1.7; /* N(0, 1): scores of sd 1 */
    for (int64_t i = 0; i < fa_numel_k(&s); i++) p.K[i] /= 1.7;
    assert_int_equal(fa_reference_forward(&s, p.Q, p.K, p.V, p.O_ref, p.LSE_ref), FA_OK);
    run_flash2(&p, 8.0, bk, O, L, &c);
    assert_true(c.rescales >= (uint64_t)(BH * Tr));
    assert_true(c.rescales <= (uint64_t)(2 * BH * Tr));
    assert_true(tu_max_rel(O, p.O_ref, fa_numel_o(&s)) <= 1e3 * 320 * DBL_EPSILON);
    assert_int_equal(c.rescale_steps, (uint64_t)(BH * Tr * Tc));

    s.rescale_threshold = 8.0;
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, bk, BIG_M, 1, &c), FA_OK);
    assert_int_equal(c.rescales, (uint64_t)(BH * Tr * Tc));
    assert_int_equal(c.rescale_steps, (uint64_t)(BH * Tr * Tc));
    free(O);
    free(L);
    problem_free(&p);
}

/* With the numerics' exp2 (scores in log2 units, as the kernels hold them) the threshold is the
 * same number of log2 units: the increasing input with delta = 0.05 (natural units) rescales
 * 3 times per row block again. */
static void test_exp2_units(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(320, 16);
    s.scale = 1.0;
    s.dtype = FA_DTYPE_FP32;
    fa_blocks bk = {32, 32};
    problem p;
    problem_init(&p, &s, 5);
    increasing_inputs(&p, 0.05);
    s.rescale_threshold = 8.0;
    fa_numerics nu = fa_numerics_for(FA_FMT_FP32);
    nu.exp2 = 1;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    fa_mem_set_numerics(mem, &nu);
    double *O = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
    assert_int_equal(fa_flash2_forward(mem, &s, bk, p.Q, p.K, p.V, O, L), FA_OK);
    assert_int_equal(fa_mem_counts(mem)->rescales, 10 * 3);
    fa_mem_free(mem);
    free(O);
    free(L);
    problem_free(&p);
}

/* bf16 with fp32 accumulation (P <= 2^8 before its rounding to bf16): FlashAttention's test rule,
 * max |O - O_ref| <= 2 max |O_naive - O_ref| + atol (fa_check_lowprec), holds with tau = 8 on the
 * random and the increasing inputs' shapes. */
static void test_lowprec_rule(void **state)
{
    (void)state;
    const cfg cases[] = {{1, 2, 1, 113, 203, 64, 64, 64, 64, FA_CAUSAL_NONE},
                         {2, 2, 2, 256, 256, 64, 64, 64, 32, FA_CAUSAL_BOTTOM_RIGHT}};
    for (size_t c = 0; c < 2; c++) {
        fa_shape s = shape_of(&cases[c]);
        s.dtype = FA_DTYPE_BF16;
        s.rescale_threshold = 8.0;
        fa_blocks bk = {cases[c].Br, cases[c].Bc};
        const fa_algo a = FA_ALGO_FLASH2;
        fa_lowprec_opts lo = {0};
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 31 + c);
        fa_lowprec_row row;
        int n = 0;
        assert_int_equal(fa_check_lowprec(&s, bk, &a, 1, &lo, r, &row, &n), FA_OK);
        gsl_rng_free(r);
        assert_int_equal(n, 1);
        if (!row.pass) fail_msg("case %zu: err %g, naive %g, atol %g", c, row.err.abs, row.naive.abs, row.atol);
    }
}

/* A negative or infinite threshold is refused by the shape check, naming the value. */
static void test_bad_threshold(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(64, 16);
    s.rescale_threshold = -1;
    assert_int_equal(fa_shape_check(&s), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "rescale threshold = -1"));
    s.rescale_threshold = INFINITY;
    assert_int_equal(fa_shape_check(&s), FA_EINVAL);
    double S[1] = {0}, m[1] = {-INFINITY}, l[1] = {0}, O[1] = {0};
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    assert_int_equal(fa_tile_online_softmax_cond(mem, S, 1, m, l, O, 1, 1, 1, 1, -0.5, NULL), FA_EINVAL);
    fa_mem_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_fp64),          cmocka_unit_test(test_tau0_identical),
        cmocka_unit_test(test_counts_hand_computed), cmocka_unit_test(test_exp2_units),
        cmocka_unit_test(test_lowprec_rule),        cmocka_unit_test(test_bad_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
