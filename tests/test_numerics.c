/* test_numerics.c -- the low-precision emulation on the algorithms, and the edge cases a
 * FlashAttention implementation must get right (docs/numerics.md, "Edge cases"):
 *   - default numerics change nothing (bit for bit) and no numerics change a count;
 *   - whole rows of logits near -2e5 in bf16 equal the reference (no finite "-infinity");
 *   - logits whose raw Q K^T overflows fp16 stay finite (the product stays in fp32, scaled there);
 *   - inf / NaN in the inputs: NaN in a masked-out key never leaks, NaN or +inf on an allowed key
 *     makes that row NaN, a -inf score acts as a masked key;
 *   - a first K/V tile without any real score: the running max stays -inf (never 0);
 *   - exp2 with log2(e) folded into the scale: same results, LSE and backward included. */
#include "testutil.h"

#include "fa_numerics.h"

static const fa_algo ALGOS[] = {FA_ALGO_STANDARD, FA_ALGO_FLASH1, FA_ALGO_FLASH2};

/* Runs algorithm a with numerics nu (NULL: never set); O and LSE (flash1, flash2) out. */
static fa_status run_nu(fa_algo a, const fa_shape *s, fa_blocks bk, const fa_numerics *nu, const double *Q,
                        const double *K, const double *V, double *O, double *LSE, fa_counts *c)
{
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 1u << 30);
    assert_non_null(mem);
    if (nu) fa_mem_set_numerics(mem, nu);
    int64_t ns = fa_numel_stats(s);
    fa_status st;
    if (a == FA_ALGO_STANDARD) st = fa_standard_forward(mem, s, bk, Q, K, V, O);
    else if (a == FA_ALGO_FLASH2) {
        double *Lt = LSE ? LSE : tu_alloc(ns);
        st = fa_flash2_forward(mem, s, bk, Q, K, V, O, Lt);
        if (!LSE) free(Lt);
    }
    else {
        double *l = tu_alloc(ns), *m = tu_alloc(ns);
        st = fa_flash1_forward(mem, s, bk, Q, K, V, O, l, m);
        for (int64_t i = 0; LSE && i < ns; i++) LSE[i] = fa_num_lse(mem, m[i], l[i]);
        free(l);
        free(m);
    }
    if (c) *c = *fa_mem_counts(mem);
    fa_mem_free(mem);
    return st;
}

static double max_abs(const double *a, const double *b, int64_t n)
{
    double w = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(a[i] - b[i]);
        if (!(e <= w)) w = e;
    }
    return w;
}

/* The default numerics are the fp64 algorithms, bit for bit; emulation never changes a count. */
static void test_default_is_fp64_and_counts_unchanged(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(77, 24);
    s.seqlen_k = 131;
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    s.dtype = FA_DTYPE_BF16;
    problem p;
    problem_init(&p, &s, 5);
    fa_round_array(p.Q, fa_numel_q(&s), FA_FMT_BF16); /* inputs in bf16; the reference on them */
    fa_round_array(p.K, fa_numel_k(&s), FA_FMT_BF16);
    fa_round_array(p.V, fa_numel_v(&s), FA_FMT_BF16);
    assert_int_equal(fa_reference_forward(&s, p.Q, p.K, p.V, p.O_ref, p.LSE_ref), FA_OK);
    fa_blocks bk = {16, 32};
    int64_t no = fa_numel_o(&s);
    double *O1 = tu_alloc(no), *O2 = tu_alloc(no), *O3 = tu_alloc(no);
    fa_numerics off = {0}, bf = fa_numerics_for(FA_FMT_BF16);
    for (int k = 0; k < 3; k++) {
        fa_counts c1, c2, c3;
        assert_int_equal(run_nu(ALGOS[k], &s, bk, NULL, p.Q, p.K, p.V, O1, NULL, &c1), FA_OK);
        assert_int_equal(run_nu(ALGOS[k], &s, bk, &off, p.Q, p.K, p.V, O2, NULL, &c2), FA_OK);
        assert_int_equal(run_nu(ALGOS[k], &s, bk, &bf, p.Q, p.K, p.V, O3, NULL, &c3), FA_OK);
        assert_memory_equal(O1, O2, (size_t)no * sizeof *O1);
        assert_true(tu_max_rel(O1, p.O_ref, no) < 1e-12);
        tu_assert_counts_equal(&c1, &c2);
        tu_assert_counts_equal(&c1, &c3);
        assert_true(max_abs(O3, p.O_ref, no) > 0);    /* bf16 does round */
        assert_true(tu_max_rel(O3, p.O_ref, no) < (k ? 2e-2 : 6e-2)); /* naive: S, P in bf16 */
        for (int64_t i = 0; i < no; i++) assert_true(fa_round(O3[i], FA_FMT_BF16) == O3[i]); /* stored in bf16 */
    }
    /* fp32 emulation: close to fp64 */
    fa_numerics f32 = fa_numerics_for(FA_FMT_FP32);
    assert_int_equal(run_nu(FA_ALGO_FLASH2, &s, bk, &f32, p.Q, p.K, p.V, O3, NULL, NULL), FA_OK);
    assert_true(tu_max_rel(O3, p.O_ref, no) < 1e-5);
    free(O1);
    free(O2);
    free(O3);
    problem_free(&p);
}

/* Every row's logits are about -2e5 (bf16: -199680 plus small differences exact in fp32): softmax is
 * shift invariant, so the output must equal the reference; a finite "-inf" constant (say -1e4 or
 * -65504) in place of the running max's start would break this. */
static void test_very_negative_logits_bf16(void **state)
{
    (void)state;
    const int64_t N = 40, d = 2;
    fa_shape s = fa_shape_default(N, d);
    s.dtype = FA_DTYPE_BF16;
    s.scale = 1.0;
    double *Q = tu_alloc(N * d), *K = tu_alloc(N * d), *V = tu_alloc(N * d), *R = tu_alloc(N * d),
           *O = tu_alloc(N * d), *Nv = tu_alloc(N * d), *L = tu_alloc(N), *LR = tu_alloc(N);
    for (int64_t i = 0; i < N; i++) {
        Q[i * d] = 1, Q[i * d + 1] = 1 + (double)(i % 3); /* small integers: exact in bf16 */
        K[i * d] = -199680.0;                           /* -2e5 in bf16 */
        K[i * d + 1] = 0.25 * (double)(i % 7);
        V[i * d] = fa_round(sin(2.385 * (double)i), FA_FMT_BF16);
        V[i * d + 1] = fa_round(cos(1.7 * (double)i), FA_FMT_BF16);
    }
    assert_int_equal(fa_reference_forward(&s, Q, K, V, R, LR), FA_OK);
    fa_numerics bf = fa_numerics_for(FA_FMT_BF16);
    fa_blocks bk = {16, 16};
    assert_int_equal(run_nu(FA_ALGO_STANDARD, &s, bk, &bf, Q, K, V, Nv, NULL, NULL), FA_OK);
    double naive = max_abs(Nv, R, N * d);
    for (int k = 1; k < 3; k++) {
        assert_int_equal(run_nu(ALGOS[k], &s, bk, NULL, Q, K, V, O, L, NULL), FA_OK); /* fp64 */
        assert_true(tu_max_rel(O, R, N * d) < 1e-12);
        assert_true(tu_max_rel(L, LR, N) < 1e-12);
        assert_int_equal(run_nu(ALGOS[k], &s, bk, &bf, Q, K, V, O, L, NULL), FA_OK); /* bf16 */
        double e = max_abs(O, R, N * d);
        assert_true(e < 1e-2);            /* P rounded to bf16 is all the error there is */
        assert_true(e <= 2 * naive);      /* naive stores S in bf16: every score collapses */
        assert_true(tu_max_rel(L, LR, N) < 1e-6);
    }
    assert_true(naive > 0.05);
    free(Q), free(K), free(V), free(R), free(O), free(Nv), free(L), free(LR);
}

/* Q K^T of these inputs is 102400 > 65504, fp16's largest value; fasim forms the product in the
 * fp32 accumulator and scales it there (12800) before anything is stored in fp16, as real kernels
 * do, so nothing overflows.  A kernel that stored the unscaled Q K^T in fp16 would get inf. */
static void test_fp16_large_logits(void **state)
{
    (void)state;
    const int64_t N = 32, d = 64;
    fa_shape s = fa_shape_default(N, d);
    s.dtype = FA_DTYPE_FP16;
    double *Q = tu_alloc(N * d), *K = tu_alloc(N * d), *V = tu_alloc(N * d), *R = tu_alloc(N * d),
           *O = tu_alloc(N * d);
    for (int64_t i = 0; i < N * d; i++) {
        Q[i] = 40.0;
        K[i] = fa_round(40.0 - 0.0625 * (double)(i / d % 5), FA_FMT_FP16);
        V[i] = fa_round(sin(0.37 * (double)i), FA_FMT_FP16);
    }
    assert_true(isinf(fa_round(64.0 * 40 * 40, FA_FMT_FP16))); /* the unscaled product overflows */
    assert_int_equal(fa_reference_forward(&s, Q, K, V, R, NULL), FA_OK);
    fa_numerics h = fa_numerics_for(FA_FMT_FP16);
    fa_blocks bk = {16, 16};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(run_nu(ALGOS[k], &s, bk, &h, Q, K, V, O, NULL, NULL), FA_OK);
        for (int64_t i = 0; i < N * d; i++) assert_true(isfinite(O[i]));
        assert_true(max_abs(O, R, N * d) < 5e-3);
    }
    free(Q), free(K), free(V), free(R), free(O);
}

/* inf and NaN in the inputs (policy in docs/numerics.md): IEEE propagation on allowed keys, and a
 * masked-out key is never read into a result, whatever it holds. */
static void test_nonfinite_inputs(void **state)
{
    (void)state;
    const int64_t N = 8, d = 4;
    fa_shape s = fa_shape_default(N, d);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    problem p;
    problem_init(&p, &s, 11);
    fa_blocks bk = {4, 4};
    double *O = tu_alloc(N * d), *R = tu_alloc(N * d);
    for (int which = 0; which < 3; which++) { /* NaN in V, in K, and +inf in K, of key 7 */
        double *X = which == 0 ? p.V : p.K;
        double keep = X[7 * d + 1];
        X[7 * d + 1] = which == 2 ? INFINITY : NAN;
        assert_int_equal(fa_reference_forward(&s, p.Q, p.K, p.V, R, NULL), FA_OK);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(run_nu(ALGOS[k], &s, bk, NULL, p.Q, p.K, p.V, O, NULL, NULL), FA_OK);
            /* rows 0-6 never see key 7 (causal): exact, no NaN */
            assert_true(tu_max_rel(O, p.O_ref, 7 * d) < 1e-12);
            /* row 7 sees it: NaN (V NaN; K NaN or +inf: its score is NaN or +-inf, inf - inf) */
            int nan_row = 0;
            for (int64_t c = 0; c < d; c++) nan_row |= isnan(O[7 * d + c]);
            if (which != 2 || isnan(R[7 * d])) assert_true(nan_row);
        }
        X[7 * d + 1] = keep;
    }
    /* NaN in a query row: that row only */
    p.Q[3 * d] = NAN;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(run_nu(ALGOS[k], &s, bk, NULL, p.Q, p.K, p.V, O, NULL, NULL), FA_OK);
        for (int64_t i = 0; i < N; i++)
            for (int64_t c = 0; c < d; c++)
                if (i == 3) assert_true(isnan(O[i * d + c]));
                else assert_true(fabs(O[i * d + c] - p.O_ref[i * d + c]) < 1e-12);
    }
    free(O);
    free(R);
    problem_free(&p);
}

/* Keys 0..15 (the whole first K/V tile) score -inf (K = -inf with q = 1 > 0), the real scores
 * are all about -2e5: the running max must stay -inf through the first tile and become the
 * first real score; had it become 0, exp(-2e5 - 0) would underflow and the row would be 0. */
static void test_first_tile_masked_running_max(void **state)
{
    (void)state;
    const int64_t N = 48, d = 1;
    fa_shape s = fa_shape_default(N, d);
    s.scale = 1.0;
    s.dtype = FA_DTYPE_FP32;
    double *Q = tu_alloc(N), *K = tu_alloc(N), *V = tu_alloc(N), *R = tu_alloc(N), *O = tu_alloc(N),
           *L = tu_alloc(N), *LR = tu_alloc(N);
    for (int64_t j = 0; j < N; j++) {
        Q[j] = 1.0;
        K[j] = j < 16 ? -INFINITY : -2e5 + 0.25 * (double)(j % 5);
        V[j] = sin(2.385 * (double)j);
    }
    assert_int_equal(fa_reference_forward(&s, Q, K, V, R, LR), FA_OK);
    fa_numerics f32 = fa_numerics_for(FA_FMT_FP32);
    fa_blocks bk = {16, 16};
    for (int k = 0; k < 3; k++)
        for (int emu = 0; emu < 2; emu++) {
            assert_int_equal(run_nu(ALGOS[k], &s, bk, emu ? &f32 : NULL, Q, K, V, O, L, NULL), FA_OK);
            assert_true(max_abs(O, R, N) < (emu ? 1e-6 : 1e-12));
            if (k) assert_true(max_abs(L, LR, N) < (emu ? 1e-1 : 1e-9)); /* fp32 LSE of -2e5: ulp 1/64 */
        }
    /* the online-softmax step itself: a tile of -inf leaves m = -inf, l = 0, O = 0 */
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 1u << 20);
    double S[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, m = -INFINITY, l = 0, o = 0;
    assert_int_equal(fa_tile_online_softmax(mem, S, 4, &m, &l, &o, 1, 1, 4, 1), FA_OK);
    assert_true(m == -INFINITY && l == 0 && o == 0);
    double S2[4] = {-5.0, -6.0, -INFINITY, -7.0};
    assert_int_equal(fa_tile_online_softmax(mem, S2, 4, &m, &l, &o, 1, 1, 4, 1), FA_OK);
    assert_true(m == -5.0);
    assert_true(fabs(l - (1 + exp(-1.0) + exp(-2.0))) < 1e-15 && S2[0] == 1.0 && S2[2] == 0.0);
    fa_mem_free(mem);
    free(Q), free(K), free(V), free(R), free(O), free(L), free(LR);
}

/* exp2 with log2(e) folded into the scale: the same softmax, in log2 units inside. */
static void test_exp2_formulation(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(70, 16);
    s.seqlen_k = 45;
    s.heads = 4;
    s.kv_heads = 2;
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    s.dtype = FA_DTYPE_FP32;
    problem p;
    problem_init(&p, &s, 21);
    fa_blocks bk = {16, 16};
    int64_t no = fa_numel_o(&s), ns = fa_numel_stats(&s);
    double *O = tu_alloc(no), *L = tu_alloc(ns);
    fa_numerics e2 = fa_numerics_for(FA_FMT_FP32);
    e2.exp2 = 1;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(run_nu(ALGOS[k], &s, bk, &e2, p.Q, p.K, p.V, O, L, NULL), FA_OK);
        assert_true(tu_max_rel(O, p.O_ref, no) < 1e-5);
        if (k) assert_true(tu_max_rel(L, p.LSE_ref, ns) < 1e-5);
    }
    /* the backward in exp2 mode: P recomputed as exp2(S log2 e - LSE log2 e) */
    double *dO = tu_alloc(no), *dQ = tu_alloc(fa_numel_q(&s)), *dK = tu_alloc(fa_numel_k(&s)),
           *dV = tu_alloc(fa_numel_v(&s)), *rQ = tu_alloc(fa_numel_q(&s)), *rK = tu_alloc(fa_numel_k(&s)),
           *rV = tu_alloc(fa_numel_v(&s)), *l = tu_alloc(ns), *m = tu_alloc(ns);
    for (int64_t i = 0; i < no; i++) dO[i] = sin(0.7 * (double)i);
    assert_int_equal(fa_reference_backward(&s, p.Q, p.K, p.V, dO, rQ, rK, rV), FA_OK);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 1u << 30);
    fa_mem_set_numerics(mem, &e2);
    assert_int_equal(fa_flash2_forward(mem, &s, bk, p.Q, p.K, p.V, O, L), FA_OK);
    assert_int_equal(fa_flash2_backward(mem, &s, bk, p.Q, p.K, p.V, O, L, dO, dQ, dK, dV), FA_OK);
    assert_true(tu_max_rel(dQ, rQ, fa_numel_q(&s)) < 1e-4 && tu_max_rel(dK, rK, fa_numel_k(&s)) < 1e-4 &&
                tu_max_rel(dV, rV, fa_numel_v(&s)) < 1e-4);
    assert_int_equal(fa_flash1_forward(mem, &s, bk, p.Q, p.K, p.V, O, l, m), FA_OK);
    assert_int_equal(fa_flash1_backward(mem, &s, bk, p.Q, p.K, p.V, O, l, m, dO, dQ, dK, dV), FA_OK);
    assert_true(tu_max_rel(dQ, rQ, fa_numel_q(&s)) < 1e-4 && tu_max_rel(dK, rK, fa_numel_k(&s)) < 1e-4 &&
                tu_max_rel(dV, rV, fa_numel_v(&s)) < 1e-4);
    fa_mem_free(mem);
    free(O), free(L), free(dO), free(dQ), free(dK), free(dV), free(rQ), free(rK), free(rV), free(l), free(m);
    problem_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_is_fp64_and_counts_unchanged),
        cmocka_unit_test(test_very_negative_logits_bf16),
        cmocka_unit_test(test_fp16_large_logits),
        cmocka_unit_test(test_nonfinite_inputs),
        cmocka_unit_test(test_first_tile_masked_running_max),
        cmocka_unit_test(test_exp2_formulation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
