/* test_varlen_bwd.c -- the backward of a variable-length batch: equal to the per-sequence fp64
 * reference, empty sequences (no queries; no keys) give zeros and no NaN, counted bytes equal the
 * closed form, count-only equals numeric. */
#include "testutil.h"
#include "fa_infer.h"

#define BIG_M (1u << 30)

static void run_case(const int64_t *cq, const int64_t *ck, int64_t nseq, fa_causal causal, int64_t H,
                     int64_t Hk, int64_t d, int64_t dv, fa_blocks bk, unsigned long seed)
{
    fa_shape s = fa_shape_default(cq[nseq], d);
    s.seqlen_k = ck[nseq];
    s.heads = H;
    s.kv_heads = Hk;
    s.d_v = dv;
    s.causal = causal;
    fa_varlen vl = {.nseq = nseq, .cu_q = cq, .cu_k = ck};
    int64_t nq = H * s.seqlen_q, nk = Hk * s.seqlen_k;
    double *Q = tu_alloc(nq * d), *K = tu_alloc(nk * d), *V = tu_alloc(nk * dv), *dO = tu_alloc(nq * dv);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    tu_fill(r, Q, nq * d);
    tu_fill(r, K, nk * d);
    tu_fill(r, V, nk * dv);
    tu_fill(r, dO, nq * dv);
    gsl_rng_free(r);
    double *O = tu_alloc(nq * dv), *L = tu_alloc(nq);
    double *dQ = tu_alloc(nq * d), *dK = tu_alloc(nk * d), *dV = tu_alloc(nk * dv);
    double *rQ = tu_alloc(nq * d), *rK = tu_alloc(nk * d), *rV = tu_alloc(nk * dv);
    for (int64_t i = 0; i < nq * d; i++) dQ[i] = NAN; /* every element must be written */
    for (int64_t i = 0; i < nk * d; i++) dK[i] = NAN;
    for (int64_t i = 0; i < nk * dv; i++) dV[i] = NAN;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    fa_infer_opts opt = fa_infer_opts_default();
    assert_int_equal(fa_varlen_forward(mem, &s, bk, &opt, &vl, Q, K, V, O, L), FA_OK);
    fa_mem_free(mem);
    mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    if (fa_varlen_backward(mem, &s, bk, &vl, Q, K, V, O, L, dO, dQ, dK, dV)) fail_msg("%s", fa_last_error());
    fa_counts num = *fa_mem_counts(mem);
    fa_mem_free(mem);
    assert_int_equal(fa_varlen_reference_backward(&s, &vl, Q, K, V, dO, rQ, rK, rV), FA_OK);
    double e = fmax(tu_max_rel(dQ, rQ, nq * d), fmax(tu_max_rel(dK, rK, nk * d), tu_max_rel(dV, rV, nk * dv)));
    if (e > 1e-11) fail_msg("varlen backward differs from the reference by %g", e);
    /* count-only (merged and not) == numeric == closed form */
    for (int merge = 0; merge < 2; merge++) {
        mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
        fa_mem_set_merge(mem, merge);
        assert_int_equal(fa_varlen_backward(mem, &s, bk, &vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), FA_OK);
        tu_assert_counts_equal(fa_mem_counts(mem), &num);
        fa_mem_free(mem);
    }
    fa_pass_formula f;
    assert_int_equal(fa_formula_varlen_bwd(&s, bk, &vl, &f), FA_OK);
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        int id = fa_counts_find(&num, fa_pass_tensor_names[t]);
        uint64_t rd = id < 0 ? 0 : num.tensor[id].read_bytes, wr = id < 0 ? 0 : num.tensor[id].write_bytes;
        if (rd != f.read[t] || wr != f.write[t])
            fail_msg("tensor %s: counted %llu/%llu, closed form %llu/%llu", fa_pass_tensor_names[t],
                     (unsigned long long)rd, (unsigned long long)wr, (unsigned long long)f.read[t],
                     (unsigned long long)f.write[t]);
    }
    assert_int_equal(num.flops_matmul, f.matmul_flops);
    free(Q); free(K); free(V); free(dO); free(O); free(L);
    free(dQ); free(dK); free(dV); free(rQ); free(rK); free(rV);
}

static void test_varlen_backward(void **state)
{
    (void)state;
    /* sequences of 5, 0 (empty), 32, 63 query rows against 9, 11, 0 (no key), 71 keys */
    const int64_t cq[] = {0, 5, 5, 37, 100}, ck[] = {0, 9, 20, 20, 91};
    run_case(cq, ck, 4, FA_CAUSAL_BOTTOM_RIGHT, 4, 2, 24, 20, (fa_blocks){16, 16}, 1);
    run_case(cq, ck, 4, FA_CAUSAL_NONE, 2, 2, 8, 8, (fa_blocks){32, 16}, 2);
    const int64_t eq[] = {0, 40, 41, 80}, ek[] = {0, 40, 41, 80};
    run_case(eq, ek, 3, FA_CAUSAL_TOP_LEFT, 8, 1, 16, 16, (fa_blocks){16, 32}, 3);
}

static void test_varlen_backward_errors(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(10, 8);
    const int64_t cq[] = {0, 6, 4}, ck[] = {0, 5, 10};
    fa_varlen vl = {.nseq = 2, .cu_q = cq, .cu_k = ck};
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
    assert_int_equal(fa_varlen_backward(mem, &s, (fa_blocks){16, 16}, &vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "non-decreasing"));
    fa_mem_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varlen_backward),
        cmocka_unit_test(test_varlen_backward_errors),
    };
    return cmocka_run_group_tests_name("varlen_bwd", tests, NULL, NULL);
}
