/* test_variants.c -- masks and score modifiers of the FlashAttention family: sliding window,
 * ALiBi, softcap, block-sparse, FlashMask column ranges, dense masks.  Each variant equals the
 * fp64 reference forward and backward, counted bytes equal the closed form, count-only equals
 * numeric, and the conventions of docs/conventions.md hold. */
#include "testutil.h"

#define BIG_M (1u << 30)

/* Everything a numeric forward + backward needs. */
typedef struct {
    problem p;
    double *dO, *dQ_ref, *dK_ref, *dV_ref;
} vproblem;

static void vp_init(vproblem *v, const fa_shape *s, unsigned long seed)
{
    problem_init(&v->p, s, seed);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed + 7);
    v->dO = tu_alloc(fa_numel_o(s));
    tu_fill(r, v->dO, fa_numel_o(s));
    gsl_rng_free(r);
    v->dQ_ref = tu_alloc(fa_numel_q(s));
    v->dK_ref = tu_alloc(fa_numel_k(s));
    v->dV_ref = tu_alloc(fa_numel_v(s));
    assert_int_equal(fa_reference_backward(s, v->p.Q, v->p.K, v->p.V, v->dO, v->dQ_ref, v->dK_ref, v->dV_ref), FA_OK);
}

static void vp_free(vproblem *v)
{
    problem_free(&v->p);
    free(v->dO);
    free(v->dQ_ref);
    free(v->dK_ref);
    free(v->dV_ref);
}

/* Forward of a (flash2 also gives LSE), then its backward; returns the worst relative error of
 * O, LSE (flash), dQ, dK, dV against the reference.  Counts of both passes in *cf, *cb. */
static double fwd_bwd_error(fa_algo a, const vproblem *v, fa_blocks bk, fa_counts *cf, fa_counts *cb)
{
    const fa_shape *s = &v->p.s;
    int64_t no = fa_numel_o(s), ns = fa_numel_stats(s), nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s);
    double *O = tu_alloc(no), *L = tu_alloc(ns), *l = tu_alloc(ns), *m = tu_alloc(ns);
    double *dQ = tu_alloc(nq), *dK = tu_alloc(nk), *dV = tu_alloc(nv), *P = NULL;
    for (int64_t i = 0; i < no; i++) O[i] = NAN;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
    fa_status st;
    if (a == FA_ALGO_STANDARD) st = fa_standard_forward(mem, s, bk, v->p.Q, v->p.K, v->p.V, O);
    else if (a == FA_ALGO_FLASH1) st = fa_flash1_forward(mem, s, bk, v->p.Q, v->p.K, v->p.V, O, l, m);
    else st = fa_flash2_forward(mem, s, bk, v->p.Q, v->p.K, v->p.V, O, L);
    if (st) fail_msg("%s forward: %s", fa_algo_name(a), fa_last_error());
    if (cf) *cf = *fa_mem_counts(mem);
    fa_mem_free(mem);
    if (a == FA_ALGO_FLASH1)
        for (int64_t i = 0; i < ns; i++) L[i] = l[i] > 0 ? m[i] + log(l[i]) : -INFINITY;
    double err = tu_max_rel(O, v->p.O_ref, no);
    if (a != FA_ALGO_STANDARD) err = fmax(err, tu_max_rel(L, v->p.LSE_ref, ns));
    if (!(a == FA_ALGO_STANDARD && s->softcap > 0)) {
        for (int64_t i = 0; i < nq; i++) dQ[i] = NAN;
        mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
        if (a == FA_ALGO_STANDARD) {
            P = tu_alloc(s->batch * s->heads * s->seqlen_q * s->seqlen_k);
            assert_int_equal(fa_reference_probs(s, v->p.Q, v->p.K, P), FA_OK);
            st = fa_standard_backward(mem, s, bk, v->p.Q, v->p.K, v->p.V, P, v->dO, dQ, dK, dV);
        } else if (a == FA_ALGO_FLASH1) {
            st = fa_flash1_backward(mem, s, bk, v->p.Q, v->p.K, v->p.V, O, l, m, v->dO, dQ, dK, dV);
        } else {
            st = fa_flash2_backward(mem, s, bk, v->p.Q, v->p.K, v->p.V, O, L, v->dO, dQ, dK, dV);
        }
        if (st) fail_msg("%s backward: %s", fa_algo_name(a), fa_last_error());
        if (cb) *cb = *fa_mem_counts(mem);
        fa_mem_free(mem);
        err = fmax(err, tu_max_rel(dQ, v->dQ_ref, nq));
        err = fmax(err, tu_max_rel(dK, v->dK_ref, nk));
        err = fmax(err, tu_max_rel(dV, v->dV_ref, nv));
    }
    free(O); free(L); free(l); free(m); free(dQ); free(dK); free(dV); free(P);
    return err;
}

/* Counted (count-only, merged and not) == numeric == closed form, forward and backward. */
static void assert_counts(fa_algo a, const fa_shape *s, fa_blocks bk, const fa_counts *num_f, const fa_counts *num_b)
{
    for (int p = 0; p < 2; p++) {
        fa_pass pass = p == 0 ? FA_PASS_FWD : FA_PASS_BWD;
        if (pass == FA_PASS_BWD && a == FA_ALGO_STANDARD && s->softcap > 0) continue;
        const fa_counts *num = p == 0 ? num_f : num_b;
        fa_counts merged;
        tu_assert_counts_match_formula(pass, a, s, bk, &merged);
        tu_assert_counts_equal(&merged, num);
        fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
        fa_mem_set_merge(mem, 0);
        assert_int_equal(fa_run_pass(pass, a, mem, s, bk), FA_OK);
        tu_assert_counts_equal(fa_mem_counts(mem), num);
        fa_mem_free(mem);
    }
}

static void check_variant(const char *what, const fa_shape *s, fa_blocks bk, unsigned long seed)
{
    vproblem v;
    vp_init(&v, s, seed);
    for (int a = 0; a < FA_NALGO; a++) {
        fa_counts cf, cb;
        memset(&cb, 0, sizeof cb);
        double e = fwd_bwd_error((fa_algo)a, &v, bk, &cf, &cb);
        if (e > 1e-12) fail_msg("%s: %s differs from the reference by %g", what, fa_algo_name((fa_algo)a), e);
        assert_counts((fa_algo)a, s, bk, &cf, &cb);
    }
    vp_free(&v);
}

static fa_shape base(int64_t Nq, int64_t Nk, int64_t d)
{
    fa_shape s = fa_shape_default(Nq, d);
    s.seqlen_k = Nk;
    s.batch = 2;
    s.heads = 4;
    s.kv_heads = 2;
    s.d_v = d + 3;
    return s;
}

static void test_window(void **state)
{
    (void)state;
    static const int64_t LR[][2] = {{10, 0}, {0, 10}, {17, 5}, {-1, 3}, {40, -1}, {0, 0}, {300, 300}};
    static const int64_t NN[][2] = {{113, 203}, {203, 113}, {77, 77}, {1, 239}};
    int k = 0;
    for (size_t n = 0; n < 4; n++)
        for (size_t w = 0; w < 7; w++) {
            fa_shape s = base(NN[n][0], NN[n][1], 24);
            s.window = 1;
            s.window_left = LR[w][0];
            s.window_right = LR[w][1];
            s.causal = (w % 2) ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
            char what[96];
            snprintf(what, sizeof what, "window (%lld, %lld) N_q = %lld N_k = %lld", (long long)LR[w][0],
                     (long long)LR[w][1], (long long)NN[n][0], (long long)NN[n][1]);
            check_variant(what, &s, (fa_blocks){32, 16}, 100 + k++);
        }
}

static void test_alibi_softcap(void **state)
{
    (void)state;
    fa_shape s = base(70, 93, 16);
    s.alibi = 1;
    check_variant("alibi", &s, (fa_blocks){16, 32}, 1);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    check_variant("alibi causal", &s, (fa_blocks){16, 32}, 2);
    s.alibi = 0;
    s.softcap = 2.5;
    check_variant("softcap causal", &s, (fa_blocks){16, 32}, 3);
    s.alibi = 1;
    s.window = 1;
    s.window_left = 20;
    s.window_right = 0;
    check_variant("softcap + alibi + window", &s, (fa_blocks){16, 32}, 4);
    /* the standard slopes 2^(-8 (h + 1) / H) for H = 4: 1/4, 1/16, 1/64, 1/256 */
    assert_true(fa_alibi_slope(&s, 0) == 0.25 && fa_alibi_slope(&s, 3) == 1.0 / 256);
    /* softcap: cap tanh(x / cap) -- a hand value */
    double ds;
    fa_shape t = fa_shape_default(1, 1);
    t.softcap = 2.0;
    t.scale = 1.0;
    assert_float_equal(fa_score(&t, 0, 0, 0, 3.0, &ds), 2.0 * tanh(1.5), 1e-15);
    assert_float_equal(ds, 1.0 - tanh(1.5) * tanh(1.5), 1e-15);
}

/* A W-token causal window is (W - 1, 0): equal to a dense mask written from the definition;
 * the tiled loops skip tiles, the dense path skips none, so equal outputs prove that no allowed
 * key is dropped -- also when N_q > N_k. */
static void test_window_equals_dense_definition(void **state)
{
    (void)state;
    static const int64_t NN[][2] = {{150, 60}, {60, 150}, {97, 97}};
    for (size_t n = 0; n < 3; n++)
        for (int64_t W = 1; W <= 40; W += 13) {
            fa_shape s = base(NN[n][0], NN[n][1], 8);
            s.window = 1;
            s.window_left = W - 1;
            s.window_right = 0;
            uint8_t *dm = malloc((size_t)(s.seqlen_q * s.seqlen_k));
            for (int64_t i = 0; i < s.seqlen_q; i++)
                for (int64_t j = 0; j < s.seqlen_k; j++) {
                    int64_t c = i + s.seqlen_k - s.seqlen_q;
                    dm[i * s.seqlen_k + j] = j <= c && j >= c - (W - 1);
                }
            fa_shape dense = base(NN[n][0], NN[n][1], 8);
            dense.dense_mask = dm;
            problem pw, pd;
            problem_init(&pw, &s, 9);
            problem_init(&pd, &dense, 9);
            double *Ow = tu_alloc(fa_numel_o(&s)), *Od = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
            assert_int_equal(tu_run_numeric(FA_ALGO_FLASH2, &pw, (fa_blocks){16, 16}, BIG_M, Ow, L, NULL), FA_OK);
            assert_int_equal(tu_run_numeric(FA_ALGO_FLASH2, &pd, (fa_blocks){16, 16}, BIG_M, Od, L, NULL), FA_OK);
            assert_true(tu_max_rel(Ow, Od, fa_numel_o(&s)) < 1e-13);
            assert_true(tu_max_rel(Ow, pd.O_ref, fa_numel_o(&s)) < 1e-12);
            problem_free(&pw);
            problem_free(&pd);
            free(Ow);
            free(Od);
            free(L);
            free(dm);
        }
    /* window (-1, 0) is causal (bottom-right): same outputs and the same counts */
    fa_shape w = base(90, 130, 8), c = base(90, 130, 8);
    w.window = 1;
    w.window_left = -1;
    w.window_right = 0;
    c.causal = FA_CAUSAL_BOTTOM_RIGHT;
    for (int a = 0; a < FA_NALGO; a++) {
        fa_counts cw, cc;
        assert_int_equal(tu_run_count((fa_algo)a, &w, (fa_blocks){16, 32}, BIG_M, 1, &cw), FA_OK);
        assert_int_equal(tu_run_count((fa_algo)a, &c, (fa_blocks){16, 32}, BIG_M, 1, &cc), FA_OK);
        tu_assert_counts_equal(&cw, &cc);
    }
}

/* Proposition 4: with a block mask aligned to the tiles, flash2 reads K and V only for the
 * nonzero blocks: K bytes = nonzero blocks x B_c x d x e (per head). */
static void test_block_sparse(void **state)
{
    (void)state;
    fa_shape s = base(128, 96, 16);
    uint8_t bits[4 * 3] = {1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1}; /* 32 x 32 blocks; row 2 empty */
    fa_block_mask bm = {.block_r = 32, .block_c = 32, .n_r = 4, .n_c = 3, .bits = bits};
    s.block_mask = &bm;
    check_variant("block-sparse 32x32", &s, (fa_blocks){32, 32}, 5);
    check_variant("block-sparse, tiles 16 x 48", &s, (fa_blocks){16, 48}, 6);
    fa_counts c;
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, (fa_blocks){32, 32}, BIG_M, 1, &c), FA_OK);
    int k = fa_counts_find(&c, "K"), q = fa_counts_find(&c, "Q");
    assert_int_equal(c.tensor[k].read_bytes, 2ull * 4 * 5 * 32 * 16 * 2); /* B H x 5 blocks */
    assert_int_equal(c.tensor[q].read_bytes, 2ull * 4 * 3 * 32 * 16 * 2); /* row block 2 loads no Q */
    /* rows of the empty row block: O = 0, LSE = -inf */
    problem p;
    problem_init(&p, &s, 3);
    double *O = tu_alloc(fa_numel_o(&s)), *L = tu_alloc(fa_numel_stats(&s));
    assert_int_equal(tu_run_numeric(FA_ALGO_FLASH2, &p, (fa_blocks){32, 32}, BIG_M, O, L, NULL), FA_OK);
    assert_true(L[64] == -INFINITY && O[64 * s.d_v] == 0.0 && isfinite(L[0]));
    problem_free(&p);
    free(O);
    free(L);
}

/* FlashMask: causal document masking as column ranges equals the dense definition; fully
 * masked tiles (across documents) are skipped. */
static void test_document_mask(void **state)
{
    (void)state;
    const int64_t len[] = {40, 7, 60, 21};
    fa_mask_store ms = {0};
    assert_int_equal(fa_col_mask_documents(len, 4, 128, &ms), FA_OK);
    fa_shape s = base(128, 128, 16);
    s.col_mask = &ms.col;
    for (int64_t i = 0; i < 128; i++)
        for (int64_t j = 0; j < 128; j++) {
            int64_t di = i < 40 ? 0 : i < 47 ? 1 : i < 107 ? 2 : 3, dj = j < 40 ? 0 : j < 47 ? 1 : j < 107 ? 2 : 3;
            assert_int_equal(fa_mask_allowed(&s, i, j), di == dj && j <= i);
        }
    check_variant("document mask", &s, (fa_blocks){16, 16}, 7);
    fa_counts cm, cc;
    fa_shape causal = base(128, 128, 16);
    causal.causal = FA_CAUSAL_BOTTOM_RIGHT;
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, (fa_blocks){16, 16}, BIG_M, 1, &cm), FA_OK);
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &causal, (fa_blocks){16, 16}, BIG_M, 1, &cc), FA_OK);
    int k = fa_counts_find(&cm, "K");
    /* Hand count, documents [0,40) [40,47) [47,107) [107,128), tiles of 16: the eight row blocks
     * visit 1, 2, 3, 2, 3, 4, 5, 2 key tiles = 22 (causal alone: 1 + ... + 8 = 36); a tile is
     * 16 x 16 x 2 bytes of K, times B H = 8. */
    assert_int_equal(cm.tensor[k].read_bytes, 22ull * 512 * 8);
    assert_int_equal(cc.tensor[k].read_bytes, 36ull * 512 * 8);
    assert_int_equal(fa_col_mask_documents(len, 4, 127, &ms), FA_EINVAL);
    fa_mask_store_free(&ms);
}

/* fa_masks_load: the documents become the shape's column mask (the hand-checked one above);
 * documents with a column mask, or with N_q != N_k, are refused naming why; a missing file
 * is FA_EIO and leaves the shape without that mask. */
static void test_masks_load(void **state)
{
    (void)state;
    const int64_t len[] = {40, 7, 60, 21};
    fa_mask_store ms = {0};
    fa_shape s = base(128, 128, 16);
    assert_int_equal(fa_masks_load(&s, NULL, NULL, len, 4, NULL, &ms), FA_OK);
    assert_ptr_equal(s.col_mask, &ms.col);
    assert_null(s.block_mask);
    assert_null(s.dense_mask);
    assert_int_equal(fa_mask_allowed(&s, 46, 40), 1); /* document 1 sees its own first key */
    assert_int_equal(fa_mask_allowed(&s, 47, 46), 0); /* document 2 does not see document 1 */
    fa_shape t = base(128, 128, 16);
    assert_int_equal(fa_masks_load(&t, NULL, "cols.txt", len, 4, NULL, &ms), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--doc-mask and --col-mask exclude each other");
    t = base(128, 64, 16);
    assert_int_equal(fa_masks_load(&t, NULL, NULL, len, 4, NULL, &ms), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--doc-mask needs N_q = N_k (one packed sequence)");
    assert_null(t.col_mask);
    t = base(128, 128, 16);
    assert_int_equal(fa_masks_load(&t, "/nonexistent/block.txt", NULL, NULL, 0, NULL, &ms), FA_EIO);
    assert_null(t.block_mask);
    t = base(128, 128, 16);
    assert_int_equal(fa_masks_load(&t, NULL, NULL, NULL, 0, NULL, &ms), FA_OK); /* nothing given: no mask */
    assert_int_equal(fa_has_mask(&t), 0);
    fa_mask_store_free(&ms);
    fa_clear_error();
}

/* Dense masks: every tile loads its mask tile (N_q x N_k bytes per head for standard, the
 * visited tiles for flash) and nothing is skipped by it. */
static void test_dense_mask(void **state)
{
    (void)state;
    fa_shape s = base(45, 70, 8);
    uint8_t *dm = malloc(45 * 70);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int i = 0; i < 45 * 70; i++) dm[i] = gsl_rng_uniform(r) < 0.6;
    for (int j = 0; j < 70; j++) dm[5 * 70 + j] = 0; /* row 5 sees nothing */
    gsl_rng_free(r);
    s.dense_mask = dm;
    check_variant("dense mask", &s, (fa_blocks){16, 32}, 8);
    fa_counts c;
    assert_int_equal(tu_run_count(FA_ALGO_STANDARD, &s, (fa_blocks){16, 32}, BIG_M, 1, &c), FA_OK);
    assert_int_equal(c.tensor[fa_counts_find(&c, "mask")].read_bytes, 2ull * 4 * 45 * 70);
    assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, (fa_blocks){16, 32}, BIG_M, 1, &c), FA_OK);
    assert_int_equal(c.tensor[fa_counts_find(&c, "mask")].read_bytes, 2ull * 4 * 45 * 70);
    free(dm);
}

/* Philox4x32-10 against the known-answer vectors of Random123 (Salmon et al. 2011). */
static void test_philox_known_answers(void **state)
{
    (void)state;
    static const uint32_t in[3][6] = {{0, 0, 0, 0, 0, 0},
                                      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0}};
    static const uint32_t want[3][4] = {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
                                        {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
                                        {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}};
    for (int k = 0; k < 3; k++) {
        uint32_t out[4];
        fa_philox4x32(in[k], in[k] + 4, out);
        for (int w = 0; w < 4; w++) assert_int_equal(out[w], want[k][w]);
    }
}

/* Dropout: a pure function of (seed, b, h, i, j), the same in forward and backward (both equal
 * the reference, which draws it independently), drop fraction within 0.01 of p. */
static void test_dropout(void **state)
{
    (void)state;
    fa_shape s = base(67, 90, 16);
    s.dropout_p = 0.3;
    s.dropout_seed = 1234567;
    check_variant("dropout 0.3", &s, (fa_blocks){16, 32}, 11);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    s.softcap = 3;
    check_variant("dropout causal softcap", &s, (fa_blocks){32, 16}, 12);
    for (double p = 0.1; p < 0.95; p += 0.4) {
        fa_shape t = base(512, 512, 8);
        t.dropout_p = p;
        t.dropout_seed = 99;
        int64_t dropped = 0, n = 0;
        for (int64_t h = 0; h < 4; h++)
            for (int64_t i = 0; i < 512; i++)
                for (int64_t j = 0; j < 512; j++, n++) dropped += !fa_dropout_keep(&t, 1, h, i, j);
        double frac = (double)dropped / (double)n;
        if (fabs(frac - p) > 0.01) fail_msg("p = %g: dropped fraction %g", p, frac);
        assert_int_equal(fa_dropout_keep(&t, 1, 2, 3, 4), fa_dropout_keep(&t, 1, 2, 3, 4));
    }
    fa_shape u = base(8, 8, 8);
    u.dropout_p = 1.0;
    assert_int_equal(fa_shape_check(&u), FA_EINVAL);
    u.dropout_p = -0.1;
    assert_int_equal(fa_shape_check(&u), FA_EINVAL);
}

static void test_bad_masks(void **state)
{
    (void)state;
    fa_shape s = base(64, 64, 8);
    s.window = 1;
    s.window_left = s.window_right = -1;
    assert_int_equal(fa_shape_check(&s), FA_EINVAL);
    s = base(64, 64, 8);
    uint8_t bits[2] = {1, 1};
    fa_block_mask bm = {.block_r = 32, .block_c = 64, .n_r = 1, .n_c = 2, .bits = bits};
    s.block_mask = &bm;
    assert_int_equal(fa_shape_check(&s), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "does not cover"));
    s = base(64, 64, 8);
    s.softcap = -1;
    assert_int_equal(fa_shape_check(&s), FA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_alibi_softcap),
        cmocka_unit_test(test_window_equals_dense_definition),
        cmocka_unit_test(test_block_sparse),
        cmocka_unit_test(test_document_mask),
        cmocka_unit_test(test_dense_mask),
        cmocka_unit_test(test_philox_known_answers),
        cmocka_unit_test(test_dropout),
        cmocka_unit_test(test_bad_masks),
        cmocka_unit_test(test_masks_load),
    };
    return cmocka_run_group_tests_name("variants", tests, NULL, NULL);
}
