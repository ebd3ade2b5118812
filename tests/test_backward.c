/* test_backward.c -- the backward pass: the fp64 reference against a hand-computed case and
 * against central finite differences (GSL), the tiled backwards against the reference, count-only
 * against numeric mode, counted bytes against the closed forms, HBM footprints. */
#include <gsl/gsl_deriv.h>
#include <gsl/gsl_math.h>

#include "testutil.h"
#include "fa_analysis.h"

#define BIG_M (1u << 30)

/* Odd shapes: tails, N_q != N_k both ways with causal (both anchors), N = 1, d = 1, GQA 8/2,
 * MQA, d_v != d, and the (1, 239) and (113, 203), d = 59, in both orders. */
static const cfg cases[] = {
    {1, 1, 1, 1, 1, 1, 1, 16, 16, FA_CAUSAL_NONE},
    {1, 1, 1, 1, 1, 1, 1, 16, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 2, 2, 37, 37, 8, 8, 16, 16, FA_CAUSAL_NONE},
    {2, 1, 1, 50, 50, 16, 16, 16, 8, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 113, 203, 59, 59, 32, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 203, 113, 59, 59, 16, 32, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 113, 203, 59, 59, 16, 48, FA_CAUSAL_TOP_LEFT},
    {1, 1, 1, 203, 113, 59, 59, 48, 16, FA_CAUSAL_TOP_LEFT},
    {1, 1, 1, 1, 239, 32, 32, 16, 64, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 239, 1, 32, 32, 16, 64, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 1, 239, 32, 32, 16, 64, FA_CAUSAL_TOP_LEFT},
    {1, 8, 2, 45, 67, 16, 12, 16, 16, FA_CAUSAL_NONE},
    {1, 8, 2, 67, 45, 16, 12, 16, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {2, 4, 1, 33, 33, 1, 1, 16, 16, FA_CAUSAL_NONE},
    {1, 4, 1, 70, 31, 20, 7, 8, 5, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 2, 1, 31, 70, 7, 20, 5, 8, FA_CAUSAL_TOP_LEFT},
    {1, 1, 1, 64, 64, 64, 64, 64, 64, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 1, 1, 100, 100, 32, 32, 7, 3, FA_CAUSAL_BOTTOM_RIGHT},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* A backward problem: inputs, dO, the reference gradients, and each forward's saved tensors. */
typedef struct {
    problem p;
    double *dO;
    double *dQ_ref, *dK_ref, *dV_ref;
    double *O2, *LSE;   /* flash2 forward */
    double *O1, *l, *m; /* flash1 forward */
    double *P;          /* standard: the probabilities kept in HBM */
} bproblem;

static void bproblem_init(bproblem *bp, const fa_shape *s, fa_blocks bk, unsigned long seed)
{
    problem_init(&bp->p, s, seed);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed + 77);
    int64_t no = fa_numel_o(s), ns = fa_numel_stats(s);
    bp->dO = tu_alloc(no);
    tu_fill(r, bp->dO, no);
    gsl_rng_free(r);
    bp->dQ_ref = tu_alloc(fa_numel_q(s));
    bp->dK_ref = tu_alloc(fa_numel_k(s));
    bp->dV_ref = tu_alloc(fa_numel_v(s));
    assert_int_equal(fa_reference_backward(s, bp->p.Q, bp->p.K, bp->p.V, bp->dO, bp->dQ_ref,
                                           bp->dK_ref, bp->dV_ref), FA_OK);
    bp->O2 = tu_alloc(no);
    bp->LSE = tu_alloc(ns);
    bp->O1 = tu_alloc(no);
    bp->l = tu_alloc(ns);
    bp->m = tu_alloc(ns);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    assert_non_null(mem);
    assert_int_equal(fa_flash2_forward(mem, s, bk, bp->p.Q, bp->p.K, bp->p.V, bp->O2, bp->LSE), FA_OK);
    assert_int_equal(fa_flash1_forward(mem, s, bk, bp->p.Q, bp->p.K, bp->p.V, bp->O1, bp->l, bp->m), FA_OK);
    fa_mem_free(mem);
    bp->P = tu_alloc(s->batch * s->heads * s->seqlen_q * s->seqlen_k);
    assert_int_equal(fa_reference_probs(s, bp->p.Q, bp->p.K, bp->P), FA_OK);
}

static void bproblem_free(bproblem *bp)
{
    problem_free(&bp->p);
    double *all[] = {bp->dO, bp->dQ_ref, bp->dK_ref, bp->dV_ref, bp->O2, bp->LSE, bp->O1, bp->l, bp->m, bp->P};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i]);
}

/* Runs the backward of a in numeric mode (M bytes of SRAM); outputs poisoned with NaN first. */
static fa_status run_bwd_numeric(fa_algo a, const bproblem *bp, fa_blocks bk, uint64_t M,
                                 double *dQ, double *dK, double *dV, fa_counts *counts)
{
    const fa_shape *s = &bp->p.s;
    for (int64_t i = 0; i < fa_numel_q(s); i++) dQ[i] = NAN;
    for (int64_t i = 0; i < fa_numel_k(s); i++) dK[i] = NAN;
    for (int64_t i = 0; i < fa_numel_v(s); i++) dV[i] = NAN;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M);
    assert_non_null(mem);
    const double *Q = bp->p.Q, *K = bp->p.K, *V = bp->p.V;
    fa_status st;
    if (a == FA_ALGO_STANDARD) st = fa_standard_backward(mem, s, bk, Q, K, V, bp->P, bp->dO, dQ, dK, dV);
    else if (a == FA_ALGO_FLASH1)
        st = fa_flash1_backward(mem, s, bk, Q, K, V, bp->O1, bp->l, bp->m, bp->dO, dQ, dK, dV);
    else st = fa_flash2_backward(mem, s, bk, Q, K, V, bp->O2, bp->LSE, bp->dO, dQ, dK, dV);
    if (counts) *counts = *fa_mem_counts(mem);
    fa_mem_free(mem);
    return st;
}

static fa_status run_bwd_count(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M, int merge,
                               fa_counts *counts)
{
    return tu_run_pass_count(FA_PASS_BWD, a, s, bk, M, merge, counts);
}

/* ---- the reference ---- */

/* The hand case of test_cpu_ref.c: d = 1, q = 1, k = (0, ln 3), v = (1, 5), so P = (1/4, 3/4),
 * O = 4.  With dO = 1: dV = P^T dO = (1/4, 3/4); dP = dO V^T = (1, 5); D = sum P dP = 4;
 * dS = P o (dP - D) = (-3/4, 3/4); tau = 1: dQ = dS K = (3/4) ln 3, dK = dS^T Q = (-3/4, 3/4). */
static void test_reference_hand_case(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1, 1);
    s.seqlen_k = 2;
    double Q[1] = {1}, K[2] = {0, log(3.0)}, V[2] = {1, 5}, dO[1] = {1}, dQ[1], dK[2], dV[2];
    assert_int_equal(fa_reference_backward(&s, Q, K, V, dO, dQ, dK, dV), FA_OK);
    assert_float_equal(dV[0], 0.25, 1e-15);
    assert_float_equal(dV[1], 0.75, 1e-15);
    assert_float_equal(dQ[0], 0.75 * log(3.0), 1e-15);
    assert_float_equal(dK[0], -0.75, 1e-15);
    assert_float_equal(dK[1], 0.75, 1e-15);
}

/* Finite differences: L(Q, K, V) = sum(dO o O(Q, K, V)), so dL/dX = the reference's dX. */
typedef struct {
    const fa_shape *s;
    double *Q, *K, *V, *dO, *O, *x; /* x: the element being varied */
} fd_ctx;

static double fd_loss(double v, void *params)
{
    fd_ctx *c = params;
    double keep = *c->x;
    *c->x = v;
    assert_int_equal(fa_reference_forward(c->s, c->Q, c->K, c->V, c->O, NULL), FA_OK);
    *c->x = keep;
    double L = 0;
    for (int64_t i = 0; i < fa_numel_o(c->s); i++) L += c->dO[i] * c->O[i];
    return L;
}

static void check_fd(fd_ctx *c, double *X, const double *dX, int64_t n, const char *name)
{
    gsl_function F = {.function = fd_loss, .params = c};
    for (int64_t i = 0; i < n; i++) {
        double res, abserr;
        c->x = &X[i];
        gsl_deriv_central(&F, X[i], 1e-3, &res, &abserr);
        double err = fabs(res - dX[i]) / fmax(1.0, fabs(dX[i]));
        if (err > 1e-6)
            fail_msg("%s[%lld]: finite difference %.12g, reference %.12g (GSL abserr %g)", name,
                     (long long)i, res, dX[i], abserr);
    }
}

static void test_reference_finite_differences(void **state)
{
    (void)state;
    /* small shapes: GQA with an empty row (causal, N_q > N_k), top-left, d_v != d */
    static const cfg fd_cases[] = {
        {1, 2, 1, 4, 3, 3, 2, 1, 1, FA_CAUSAL_BOTTOM_RIGHT},
        {1, 1, 1, 3, 5, 2, 3, 1, 1, FA_CAUSAL_TOP_LEFT},
        {2, 2, 2, 3, 4, 2, 2, 1, 1, FA_CAUSAL_NONE},
    };
    for (size_t k = 0; k < sizeof fd_cases / sizeof fd_cases[0]; k++) {
        fa_shape s = shape_of(&fd_cases[k]);
        bproblem bp;
        bproblem_init(&bp, &s, (fa_blocks){1, 1}, 300 + k);
        /* soften the inputs so that exp does not make the differences stiff */
        fd_ctx c = {.s = &s, .Q = bp.p.Q, .K = bp.p.K, .V = bp.p.V, .dO = bp.dO,
                    .O = tu_alloc(fa_numel_o(&s))};
        check_fd(&c, bp.p.Q, bp.dQ_ref, fa_numel_q(&s), "dQ");
        check_fd(&c, bp.p.K, bp.dK_ref, fa_numel_k(&s), "dK");
        check_fd(&c, bp.p.V, bp.dV_ref, fa_numel_v(&s), "dV");
        free(c.O);
        bproblem_free(&bp);
    }
}

/* ---- the tiled algorithms against the reference ---- */

static void test_algorithms_match_reference(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        fa_shape s = shape_of(&cases[c]);
        fa_blocks bk = {cases[c].Br, cases[c].Bc};
        bproblem bp;
        bproblem_init(&bp, &s, bk, 1000 + c);
        double *dQ = tu_alloc(fa_numel_q(&s)), *dK = tu_alloc(fa_numel_k(&s)),
               *dV = tu_alloc(fa_numel_v(&s));
        for (int a = 0; a < FA_NALGO; a++) {
            assert_int_equal(run_bwd_numeric((fa_algo)a, &bp, bk, BIG_M, dQ, dK, dV, NULL), FA_OK);
            double eq = tu_max_rel(dQ, bp.dQ_ref, fa_numel_q(&s)),
                   ek = tu_max_rel(dK, bp.dK_ref, fa_numel_k(&s)),
                   ev = tu_max_rel(dV, bp.dV_ref, fa_numel_v(&s));
            if (eq > 1e-11 || ek > 1e-11 || ev > 1e-11)
                fail_msg("case %zu %s backward: dQ error %g, dK error %g, dV error %g", c,
                         fa_algo_name((fa_algo)a), eq, ek, ev);
        }
        free(dQ);
        free(dK);
        free(dV);
        bproblem_free(&bp);
    }
}

/* Causal, N_q > N_k (bottom-right): rows 0..14 see no key: dQ = 0 exactly; no NaN anywhere;
 * and the first key tiles under top-left with N_k > N_q: keys no row sees get dK = dV = 0. */
static void test_empty_rows_and_unseen_keys(void **state)
{
    (void)state;
    static const cfg ec[] = {{1, 2, 1, 40, 25, 8, 8, 16, 16, FA_CAUSAL_BOTTOM_RIGHT},
                             {1, 1, 1, 20, 50, 8, 4, 16, 16, FA_CAUSAL_TOP_LEFT}};
    for (size_t c = 0; c < 2; c++) {
        fa_shape s = shape_of(&ec[c]);
        fa_blocks bk = {16, 16};
        bproblem bp;
        bproblem_init(&bp, &s, bk, 7 + c);
        double *dQ = tu_alloc(fa_numel_q(&s)), *dK = tu_alloc(fa_numel_k(&s)),
               *dV = tu_alloc(fa_numel_v(&s));
        for (int a = 0; a < FA_NALGO; a++) {
            assert_int_equal(run_bwd_numeric((fa_algo)a, &bp, bk, BIG_M, dQ, dK, dV, NULL), FA_OK);
            for (int64_t h = 0; h < s.heads; h++)
                for (int64_t i = 0; i < s.seqlen_q; i++)
                    for (int64_t k = 0; k < s.d; k++) {
                        double x = dQ[(h * s.seqlen_q + i) * s.d + k];
                        assert_false(isnan(x));
                        if (c == 0 && i < 15) assert_true(x == 0.0);
                        /* row 15 sees one key: P = 1, dP - D = 0, so dS = 0 too */
                        if (c == 0 && i >= 16) assert_true(x != 0.0);
                    }
            for (int64_t j = 0; j < s.seqlen_k; j++) {
                for (int64_t k = 0; k < s.d; k++) {
                    assert_false(isnan(dK[j * s.d + k]));
                    if (c == 1 && j >= 20) assert_true(dK[j * s.d + k] == 0.0);
                }
                for (int64_t k = 0; k < s.d_v; k++) {
                    assert_false(isnan(dV[j * s.d_v + k]));
                    if (c == 1 && j >= 20) assert_true(dV[j * s.d_v + k] == 0.0);
                }
            }
        }
        free(dQ);
        free(dK);
        free(dV);
        bproblem_free(&bp);
    }
}

/* ---- counts ---- */

static void test_count_only_equals_numeric(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        fa_shape s = shape_of(&cases[c]);
        fa_blocks bk = {cases[c].Br, cases[c].Bc};
        bproblem bp;
        bproblem_init(&bp, &s, bk, 2000 + c);
        double *dQ = tu_alloc(fa_numel_q(&s)), *dK = tu_alloc(fa_numel_k(&s)),
               *dV = tu_alloc(fa_numel_v(&s));
        for (int a = 0; a < FA_NALGO; a++) {
            fa_counts num, cnt, merged;
            assert_int_equal(run_bwd_numeric((fa_algo)a, &bp, bk, BIG_M, dQ, dK, dV, &num), FA_OK);
            assert_int_equal(run_bwd_count((fa_algo)a, &s, bk, BIG_M, 0, &cnt), FA_OK);
            assert_int_equal(run_bwd_count((fa_algo)a, &s, bk, BIG_M, 1, &merged), FA_OK);
            tu_assert_counts_equal(&num, &cnt);
            tu_assert_counts_equal(&num, &merged);
        }
        free(dQ);
        free(dK);
        free(dV);
        bproblem_free(&bp);
    }
}

/* backward counts == closed form (testutil.h) */
static void assert_counts_match_formula(fa_algo a, const fa_shape *s, fa_blocks bk)
{
    tu_assert_counts_match_formula(FA_PASS_BWD, a, s, bk, NULL);
}

/* The grid: (N_q, N_k, d, d_v, B_r, B_c, causal, dtype, GQA), every backward. */
static void test_counted_equals_closed_form(void **state)
{
    (void)state;
    static const int64_t Ns[] = {1, 17, 64, 100, 257};
    static const int64_t ds[] = {1, 24, 64};
    static const int64_t Bs[] = {1, 16, 48};
    static const int64_t Hs[][2] = {{4, 2}, {3, 3}, {4, 1}};
    int n = 0;
    for (size_t iq = 0; iq < 5; iq++)
        for (size_t ik = 0; ik < 5; ik++)
            for (size_t id = 0; id < 3; id++)
                for (size_t ir = 0; ir < 3; ir++)
                    for (size_t ic = 0; ic < 3; ic++)
                        for (int causal = 0; causal < 3; causal++)
                            for (int dt = 0; dt < 3; dt++) {
                                size_t sum = iq + ik + id + ir + ic + (size_t)causal + (size_t)dt;
                                if (sum % 3 != 0) continue;
                                fa_shape s = fa_shape_default(Ns[iq], ds[id]);
                                s.seqlen_k = Ns[ik];
                                s.d_v = ds[(id + 1) % 3];
                                s.batch = 2;
                                s.heads = Hs[sum % 9 / 3][0];
                                s.kv_heads = Hs[sum % 9 / 3][1];
                                s.causal = (fa_causal)causal;
                                s.dtype = (fa_dtype)dt;
                                fa_blocks bk = {Bs[ir], Bs[ic]};
                                for (int a = 0; a < FA_NALGO; a++)
                                    assert_counts_match_formula((fa_algo)a, &s, bk);
                                n++;
                            }
    assert_true(n > 300);
}

/* N = 1M in count-only mode with merged runs: cheap, and still equal to the closed form. */
static void test_large_shapes_closed_form(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1 << 20, 128);
    s.batch = 3;
    s.heads = 16;
    s.kv_heads = 4;
    for (int causal = 0; causal < 3; causal++) {
        s.causal = (fa_causal)causal;
        s.seqlen_k = (1 << 20) + 77;
        for (int a = 0; a < FA_NALGO; a++) assert_counts_match_formula((fa_algo)a, &s, (fa_blocks){128, 112});
    }
}

/* Hand values, N = 1024, d = d_v = 64, fp16, B = 64 tiles, no mask (T_r = T_c = 16):
 * flash2 reads K once (1024 * 64 * 2 = 131072 B) and Q T_c = 16 times (16 * 131072 B);
 * dQacc moves 4 bytes per element: 4 N d (pre) + 16 * 4 N d read-modify-write + 4 N d (post).
 * standard writes dP and dS once (N^2 e = 2 MiB each) and reads P three times (T_c > 1). */
static void test_hand_values(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1024, 64);
    fa_blocks bk = {64, 64};
    fa_counts c;
    assert_int_equal(run_bwd_count(FA_ALGO_FLASH2, &s, bk, BIG_M, 1, &c), FA_OK);
    const uint64_t nd = 1024ull * 64;
    assert_int_equal(c.tensor[fa_counts_find(&c, "K")].read_bytes, nd * 2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "Q")].read_bytes, 16 * nd * 2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dQacc")].read_bytes, 17 * nd * 4);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dQacc")].write_bytes, 17 * nd * 4);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dQ")].write_bytes, nd * 2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "LSE")].read_bytes, 16 * 1024 * 4);
    assert_int_equal(c.flops_matmul, 10ull * 1024 * 1024 * 64); /* 2.5 x forward's 4 N^2 d */
    /* flash1: D recomputed, O read T_c times; dQ read and written T_c times plus the zeroing */
    assert_int_equal(run_bwd_count(FA_ALGO_FLASH1, &s, bk, BIG_M, 1, &c), FA_OK);
    assert_int_equal(c.tensor[fa_counts_find(&c, "O")].read_bytes, 16 * nd * 2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dQ")].write_bytes, 17 * nd * 2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "l")].read_bytes, 16 * 1024 * 4);
    assert_int_equal(run_bwd_count(FA_ALGO_STANDARD, &s, bk, BIG_M, 1, &c), FA_OK);
    const uint64_t n2 = 1024ull * 1024 * 2;
    assert_int_equal(c.tensor[fa_counts_find(&c, "P")].read_bytes, 3 * n2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dP")].write_bytes, n2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dP")].read_bytes, 2 * n2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dS")].write_bytes, n2);
    assert_int_equal(c.tensor[fa_counts_find(&c, "dS")].read_bytes, 2 * n2);
    assert_int_equal(c.flops_matmul, 8ull * 1024 * 1024 * 64);
}

/* Causal skipping: N = 1024, B = 64: flash2 backward loads K tiles 16 times (once each) and
 * visits sum_{j=1..16} j = 136 (i, j) tiles: Q is read 136 tiles of 64 x 64 x 2 bytes. */
static void test_causal_skipping(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1024, 64);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_counts c;
    assert_int_equal(run_bwd_count(FA_ALGO_FLASH2, &s, (fa_blocks){64, 64}, BIG_M, 1, &c), FA_OK);
    int q = fa_counts_find(&c, "Q"), k = fa_counts_find(&c, "K");
    assert_int_equal(c.tensor[q].loads, 136);
    assert_int_equal(c.tensor[q].read_bytes, 136ull * 64 * 64 * 2);
    assert_int_equal(c.tensor[k].loads, 16);
}

/* GQA: a K/V tile is loaded once per kv head, whatever the number of query heads reading it. */
static void test_gqa_loads_kv_once(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(256, 64);
    s.heads = 8;
    s.kv_heads = 2;
    fa_counts c;
    for (int a = FA_ALGO_FLASH1; a <= FA_ALGO_FLASH2; a++) {
        assert_int_equal(run_bwd_count((fa_algo)a, &s, (fa_blocks){64, 64}, BIG_M, 1, &c), FA_OK);
        assert_int_equal(c.tensor[fa_counts_find(&c, "K")].read_bytes, 2ull * 256 * 64 * 2);
        assert_int_equal(c.tensor[fa_counts_find(&c, "dK")].write_bytes, 2ull * 256 * 64 * 2);
        assert_int_equal(c.tensor[fa_counts_find(&c, "Q")].read_bytes, 4ull * 8 * 256 * 64 * 2);
    }
}

static void test_sram_over_capacity_is_error(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(256, 64);
    s.d_v = 40;
    for (int a = 0; a < FA_NALGO; a++) {
        fa_counts c;
        fa_blocks bk = {64, 32};
        uint64_t need = fa_sram_need_bwd((fa_algo)a, &s, bk);
        assert_int_equal(run_bwd_count((fa_algo)a, &s, bk, need - 1, 1, &c), FA_ENOSRAM);
        assert_non_null(strstr(fa_last_error(), "does not fit"));
        assert_int_equal(run_bwd_count((fa_algo)a, &s, bk, need, 1, &c), FA_OK);
        assert_int_equal(c.sram_peak_bytes, need);
    }
}

/* ---- passes, footprints, out-of-memory ---- */

/* fwdbwd on one memory model == fwd + bwd closed forms, tensor by tensor. */
static void test_pass_io_run(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(300, 48);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    s.heads = 4;
    s.kv_heads = 2;
    fa_blocks bk = {32, 48};
    for (int a = 0; a < FA_NALGO; a++)
        for (int p = 0; p < FA_NPASS; p++) {
            fa_io_result r;
            assert_int_equal(fa_io_run((fa_pass)p, (fa_algo)a, &s, bk, BIG_M, NULL, NULL, &r), FA_OK);
            for (int t = 0; t < FA_PASS_TENSORS; t++) {
                int id = fa_counts_find(&r.counts, fa_pass_tensor_names[t]);
                assert_int_equal(id < 0 ? 0 : r.counts.tensor[id].read_bytes, r.formula.read[t]);
                assert_int_equal(id < 0 ? 0 : r.counts.tensor[id].write_bytes, r.formula.write[t]);
            }
            assert_int_equal(r.counts.flops_matmul, r.formula.matmul_flops);
            assert_int_equal(r.counts.sram_peak_bytes, r.sram_need);
            double f = 2.0 * 4 * 300 * 300 * 96 / 2;
            assert_float_equal(r.nominal_flops, f * (p == 0 ? 1 : p == 1 ? 2.5 : 3.5), 1e-6);
        }
    /* a trace (no run merging) sees every transfer and changes no count */
    for (int a = 0; a < FA_NALGO; a++) {
        fa_io_result r0, r1;
        FILE *f = tmpfile();
        assert_non_null(f);
        assert_int_equal(fa_io_run(FA_PASS_FWDBWD, (fa_algo)a, &s, bk, BIG_M, NULL, NULL, &r0), FA_OK);
        assert_int_equal(fa_io_run(FA_PASS_FWDBWD, (fa_algo)a, &s, bk, BIG_M, NULL, f, &r1), FA_OK);
        tu_assert_counts_equal(&r0.counts, &r1.counts);
        uint64_t lines = 0, transfers = 0;
        rewind(f);
        for (int ch; (ch = fgetc(f)) != EOF;) lines += ch == '\n';
        for (int i = 0; i < r1.counts.n_tensors; i++)
            transfers += r1.counts.tensor[i].loads + r1.counts.tensor[i].stores;
        assert_int_equal(lines, transfers + 1); /* + the CSV header */
        fclose(f);
    }
    fa_pass p;
    assert_int_equal(fa_pass_parse("fwdbwd", &p), FA_OK);
    assert_int_equal(p, FA_PASS_FWDBWD);
    assert_int_equal(fa_pass_parse("both", &p), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "fwd, bwd, fwdbwd"));
}

/* Footprints by hand: B = 8, H = 16, N = 2048, d = 64, fp16.  Q = K = V = O = 8*16*2048*64*2
 * = 32 MiB each; P = 8*16*2048^2*2 = 1 GiB; LSE = 8*16*2048*4 = 1 MiB. */
static void test_footprint_hand_values(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(2048, 64);
    s.batch = 8;
    s.heads = s.kv_heads = 16;
    const uint64_t T = 32ull << 20, P = 1ull << 30, L = 1ull << 20;
    fa_footprint f;
    assert_int_equal(fa_hbm_footprint(FA_ALGO_STANDARD, &s, &f), FA_OK);
    assert_int_equal(f.stats, P);
    assert_int_equal(f.saved, 4 * T + P);
    assert_int_equal(f.fwd_peak, 3 * T + 2 * P);
    /* saved + dO + dV + dS + max(dP, dQ + dK) */
    assert_int_equal(f.bwd_peak, 4 * T + P + 2 * T + P + P);
    assert_int_equal(f.peak, f.bwd_peak);
    assert_int_equal(fa_hbm_footprint(FA_ALGO_FLASH2, &s, &f), FA_OK);
    assert_int_equal(f.saved, 4 * T + L);
    assert_int_equal(f.fwd_peak, 4 * T + L);
    /* saved + dO + dK + dV + dQacc (fp32, 2T) + dQ */
    assert_int_equal(f.bwd_peak, 4 * T + L + 3 * T + 2 * T + T);
    assert_int_equal(fa_hbm_footprint(FA_ALGO_FLASH1, &s, &f), FA_OK);
    assert_int_equal(f.saved, 4 * T + 2 * L);
    assert_int_equal(f.bwd_peak, 4 * T + 2 * L + 4 * T);
    /* saved memory: standard / flash2 = (4T + P) / (4T + L) = 1152 / 129, about 8.9x at 2k */
    fa_footprint fs, f2;
    assert_int_equal(fa_hbm_footprint(FA_ALGO_STANDARD, &s, &fs), FA_OK);
    assert_int_equal(fa_hbm_footprint(FA_ALGO_FLASH2, &s, &f2), FA_OK);
    assert_float_equal((double)fs.saved / (double)f2.saved, 1152.0 / 129.0, 1e-12);
    /* split-KV in S chunks: the fp32 partials O_part and LSE_part, 4 B H N_q S (d_v + 1) bytes =
     * 4 * 8 * 16 * 2048 * 65 = 65 MiB a chunk, live beside the saved tensors.  S = 2: the forward's
     * peak 4 T + L + 130 MiB = 259 MiB, still below the backward's 10 T + L = 321 MiB (the step's
     * peak); S = 4: 389 MiB, the step's peak too; S = 1 changes nothing */
    const uint64_t part = 65ull << 20;
    assert_int_equal(fa_footprint_split(&f2, &s, 1), FA_OK);
    assert_int_equal(f2.fwd_peak, 4 * T + L);
    assert_int_equal(fa_footprint_split(&f2, &s, 2), FA_OK);
    assert_int_equal(f2.fwd_peak, 4 * T + L + 2 * part);
    assert_int_equal(f2.bwd_peak, 4 * T + L + 3 * T + 2 * T + T);
    assert_int_equal(f2.peak, f2.bwd_peak);
    assert_int_equal(fa_hbm_footprint(FA_ALGO_FLASH2, &s, &f2), FA_OK);
    assert_int_equal(fa_footprint_split(&f2, &s, 4), FA_OK);
    assert_int_equal(f2.fwd_peak, 4 * T + L + 4 * part);
    assert_int_equal(f2.fwd_peak, 389ull << 20);
    assert_int_equal(f2.peak, f2.fwd_peak);
}

/* Out of memory: the first N whose peak exceeds the capacity, checked on both sides. */
static void test_oom_seqlen(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1, 64);
    s.batch = 8;
    s.heads = s.kv_heads = 16;
    const uint64_t hbm = 80ull * 1000 * 1000 * 1000; /* an 80 GB GPU */
    for (int a = 0; a < FA_NALGO; a++)
        for (int p = 0; p < FA_NPASS; p++) {
            int64_t n;
            assert_int_equal(fa_oom_seqlen((fa_algo)a, &s, (fa_pass)p, hbm, &n), FA_OK);
            assert_true(n > 1);
            fa_shape t = s;
            fa_footprint f;
            t.seqlen_q = t.seqlen_k = n;
            assert_int_equal(fa_hbm_footprint((fa_algo)a, &t, &f), FA_OK);
            assert_true(fa_footprint_peak(&f, (fa_pass)p) > hbm);
            t.seqlen_q = t.seqlen_k = n - 1;
            assert_int_equal(fa_hbm_footprint((fa_algo)a, &t, &f), FA_OK);
            assert_true(fa_footprint_peak(&f, (fa_pass)p) <= hbm);
        }
    /* per N, T = 8*16*N*64*2 = 16384 N (Q, K, V, O, each gradient), P = 8*16*N^2*2 = 256 N^2.
     * standard fwd+bwd peak = bwd peak = 6T + 3P = 98304 N + 768 N^2 > 80e9 first at N = 10143
     * (N = 10142 needs 79.994e9 B, N = 10143 needs 80.009e9 B). */
    int64_t ns, nf;
    assert_int_equal(fa_oom_seqlen(FA_ALGO_STANDARD, &s, FA_PASS_FWDBWD, hbm, &ns), FA_OK);
    assert_int_equal(ns, 10143);
    /* flash2 is linear: bwd peak = 10T + LSE (512 N) = 164352 N > 80e9 first at N = 486761 */
    assert_int_equal(fa_oom_seqlen(FA_ALGO_FLASH2, &s, FA_PASS_FWDBWD, hbm, &nf), FA_OK);
    assert_int_equal(nf, 486761);
    assert_int_equal(fa_oom_seqlen(FA_ALGO_STANDARD, &s, FA_PASS_FWD, 0, &ns), FA_EINVAL);
    /* a capacity nothing can exhaust below 2^31 */
    s.batch = s.heads = s.kv_heads = 1;
    s.d = s.d_v = 1;
    assert_int_equal(fa_oom_seqlen(FA_ALGO_FLASH2, &s, FA_PASS_FWD, UINT64_MAX, &nf), FA_OK);
    assert_int_equal(nf, 0);
}

static void test_errors(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(16, 8);
    fa_pass_formula f;
    assert_int_equal(fa_formula_bwd_bytes(FA_ALGO_FLASH2, &s, (fa_blocks){0, 16}, &f), FA_EINVAL);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    assert_int_equal(fa_flash2_backward(mem, &s, (fa_blocks){16, 16}, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "numeric mode needs"));
    fa_mem_free(mem);
    s = fa_shape_default((int64_t)1 << 30, 1 << 20);
    s.batch = 1 << 20;
    assert_int_equal(fa_formula_bwd_bytes(FA_ALGO_STANDARD, &s, (fa_blocks){16, 16}, &f), FA_EOVERFLOW);
    fa_footprint fp;
    assert_int_equal(fa_hbm_footprint(FA_ALGO_STANDARD, &s, &fp), FA_EOVERFLOW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_hand_case),
        cmocka_unit_test(test_reference_finite_differences),
        cmocka_unit_test(test_algorithms_match_reference),
        cmocka_unit_test(test_empty_rows_and_unseen_keys),
        cmocka_unit_test(test_count_only_equals_numeric),
        cmocka_unit_test(test_counted_equals_closed_form),
        cmocka_unit_test(test_large_shapes_closed_form),
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_causal_skipping),
        cmocka_unit_test(test_gqa_loads_kv_once),
        cmocka_unit_test(test_sram_over_capacity_is_error),
        cmocka_unit_test(test_pass_io_run),
        cmocka_unit_test(test_footprint_hand_values),
        cmocka_unit_test(test_oom_seqlen),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("backward", tests, NULL, NULL);
}
