/* test_varlen.c -- row views of tensors (sim/view.c) and variable-length batches
 * (cpu_ref/varlen.c): each sequence equals its own fp64 reference to 1e-12 with its own causal
 * anchor, an empty sequence gives no rows and no NaN, counted == closed form, and the counts are
 * the sum of FlashAttention-2 run on each sequence alone. */
#include "testutil.h"

#define BIG_M (1u << 30)

/* A view reads and writes the right rows, counts under its tensor's name, refuses rows outside,
 * and traces tensor rows. */
static void test_view_rows(void **state)
{
    (void)state;
    double data[2 * 6 * 3]; /* (1, 2, 6, 3) */
    for (int i = 0; i < 36; i++) data[i] = i;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 1 << 20);
    fa_tensor t, v, vv;
    assert_int_equal(fa_tensor_make(mem, &t, "X", 1, 2, 6, 3, 2, data), FA_OK);
    assert_int_equal(fa_tensor_view_rows(&t, 2, 3, &v), FA_OK);
    assert_int_equal(fa_tensor_view_rows(&v, 1, 2, &vv), FA_OK); /* rows 3, 4 of t */
    assert_int_equal(fa_tensor_view_rows(&t, 4, 3, &v), FA_EINVAL);
    assert_int_equal(fa_tensor_view_rows(&t, 2, 0, &v), FA_EINVAL);
    assert_int_equal(fa_tensor_view_rows(&t, 2, 3, &v), FA_OK);
    fa_buf b;
    assert_int_equal(fa_sram_alloc(mem, &b, "b", 3, 3, 4), FA_OK);
    assert_int_equal(fa_load(mem, &v, 0, 1, 0, 3, 0, 3, &b), FA_OK); /* head 1, rows 2..4 */
    assert_true(b.data[0] == 24 && b.data[8] == 32);
    assert_int_equal(fa_load(mem, &v, 0, 0, 3, 1, 0, 3, &b), FA_EINVAL); /* past the view */
    b.data[0] = -1;
    assert_int_equal(fa_store(mem, &vv, 0, 0, 1, 1, 0, 1, &b), FA_OK); /* t row 4, head 0 */
    assert_true(data[12] == -1);
    const fa_counts *c = fa_mem_counts(mem);
    assert_int_equal(c->n_tensors, 1);
    assert_int_equal(c->tensor[0].read_bytes, 9 * 2);
    assert_int_equal(c->tensor[0].write_bytes, 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fa_mem_set_trace(mem, f);
    assert_int_equal(fa_load(mem, &vv, 0, 1, 1, 1, 0, 3, &b), FA_OK);
    fa_mem_set_trace(mem, NULL);
    fclose(f);
    assert_non_null(strstr(buf, ",X,read,4,1,0,3,6,0,1"));
    free(buf);
    fa_sram_free(&b);
    fa_mem_free(mem);
}

typedef struct {
    int64_t nseq;
    int64_t cu_q[8], cu_k[8];
} batch;

/* Sequence lengths (N_q, N_k): (5, 9), (0, 11) no rows, (32, 0) no keys, (1, 71), (40, 25),
 * (17, 17). */
static const batch B1 = {6, {0, 5, 5, 37, 38, 78, 95}, {0, 9, 20, 20, 91, 116, 133}};
/* one sequence of one row and one key */
static const batch B2 = {1, {0, 1}, {0, 1}};

static fa_shape packed(const batch *bt, int64_t H, int64_t Hkv, int64_t d, int64_t dv, fa_causal c)
{
    fa_shape s = {.batch = 1, .heads = H, .kv_heads = Hkv, .seqlen_q = bt->cu_q[bt->nseq],
                  .seqlen_k = bt->cu_k[bt->nseq], .d = d, .d_v = dv, .scale = 0, .causal = c,
                  .dtype = FA_DTYPE_FP16};
    return s;
}

static void assert_counts_formula(const fa_counts *c, const fa_shape *s, fa_blocks bk,
                                  const fa_infer_opts *o, const fa_varlen *vl)
{
    fa_infer_formula f;
    assert_int_equal(fa_infer_formula_bytes(s, bk, o, vl, NULL, &f), FA_OK);
    for (int t = 0; t < FA_INFER_TENSORS; t++) {
        int id = fa_counts_find(c, fa_infer_tensor_names[t]);
        uint64_t r = id < 0 ? 0 : c->tensor[id].read_bytes, w = id < 0 ? 0 : c->tensor[id].write_bytes;
        if (r != f.read[t] || w != f.write[t])
            fail_msg("varlen S=%lld pack=%d tensor %s: counted r=%llu w=%llu, formula r=%llu w=%llu",
                     (long long)o->splits, o->pack_gqa, fa_infer_tensor_names[t], (unsigned long long)r,
                     (unsigned long long)w, (unsigned long long)f.read[t], (unsigned long long)f.write[t]);
    }
    assert_int_equal(c->flops_matmul, f.matmul_flops);
    assert_int_equal(c->flops_other, f.other_flops);
    assert_int_equal(c->sram_peak_bytes, f.sram_need);
}

static void test_varlen_matches_reference(void **state)
{
    (void)state;
    const batch *bs[] = {&B1, &B2};
    for (int k = 0; k < 2; k++)
        for (int causal = 0; causal < 3; causal++)
            for (int64_t S = 1; S <= 2; S++)
                for (int pack = 0; pack < 2; pack++) {
                    const batch *bt = bs[k];
                    if (S > 1 && k == 1) continue; /* T_c = 1 */
                    fa_shape s = packed(bt, 4, 2, 13, 11, (fa_causal)causal);
                    fa_varlen vl = {bt->nseq, bt->cu_q, bt->cu_k};
                    fa_blocks bk = {16, 8};
                    fa_infer_opts o = {.splits = S, .pack_gqa = pack};
                    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
                    gsl_rng_set(r, 77 + (unsigned long)causal);
                    int64_t nq = fa_numel_q(&s), nk = fa_numel_k(&s), nv = fa_numel_v(&s),
                            no = fa_numel_o(&s), ns = fa_numel_stats(&s);
                    double *Q = tu_alloc(nq), *K = tu_alloc(nk), *V = tu_alloc(nv), *O = tu_alloc(no),
                           *L = tu_alloc(ns), *Or = tu_alloc(no), *Lr = tu_alloc(ns);
                    tu_fill(r, Q, nq);
                    tu_fill(r, K, nk);
                    tu_fill(r, V, nv);
                    for (int64_t i = 0; i < no; i++) O[i] = NAN;
                    assert_int_equal(fa_varlen_reference_forward(&s, &vl, Q, K, V, Or, Lr), FA_OK);
                    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
                    assert_int_equal(fa_varlen_forward(mem, &s, bk, &o, &vl, Q, K, V, O, L), FA_OK);
                    fa_counts num = *fa_mem_counts(mem);
                    fa_mem_free(mem);
                    double eo = tu_max_rel(O, Or, no), el = tu_max_rel(L, Lr, ns);
                    if (eo > 1e-12 || el > 1e-12)
                        fail_msg("batch %d causal %d S %lld pack %d: O err %g LSE err %g", k, causal,
                                 (long long)S, pack, eo, el);
                    if (k == 0) /* sequence 2 (rows 5..36) has no key: O = 0, LSE = -inf */
                        for (int64_t h = 0; h < 4; h++)
                            for (int64_t i = 5; i < 37; i++) {
                                assert_true(L[h * 95 + i] == -INFINITY);
                                assert_true(O[(h * 95 + i) * 11] == 0.0);
                            }
                    fa_counts cnt;
                    mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
                    assert_int_equal(fa_varlen_forward(mem, &s, bk, &o, &vl, NULL, NULL, NULL, NULL, NULL), FA_OK);
                    cnt = *fa_mem_counts(mem);
                    fa_mem_free(mem);
                    tu_assert_counts_equal(&num, &cnt);
                    assert_counts_formula(&num, &s, bk, &o, &vl);
                    free(Q);
                    free(K);
                    free(V);
                    free(O);
                    free(L);
                    free(Or);
                    free(Lr);
                    gsl_rng_free(r);
                }
}

/* Each sequence has its own bottom-right anchor: the batch's counts are FlashAttention-2's on
 * each sequence alone, summed (a sequence with no keys writes O and LSE only). */
static void test_varlen_is_sum_of_flash2(void **state)
{
    (void)state;
    fa_shape s = packed(&B1, 8, 2, 24, 24, FA_CAUSAL_BOTTOM_RIGHT);
    fa_varlen vl = {B1.nseq, B1.cu_q, B1.cu_k};
    fa_blocks bk = {16, 16};
    fa_infer_opts o = fa_infer_opts_default();
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
    assert_int_equal(fa_varlen_forward(mem, &s, bk, &o, &vl, NULL, NULL, NULL, NULL, NULL), FA_OK);
    fa_counts c = *fa_mem_counts(mem);
    fa_mem_free(mem);
    static const char *const nm[] = {"Q", "K", "V", "O", "LSE"};
    uint64_t sum_r[5] = {0}, sum_w[5] = {0};
    for (int64_t b = 0; b < B1.nseq; b++) {
        int64_t nq = B1.cu_q[b + 1] - B1.cu_q[b], nk = B1.cu_k[b + 1] - B1.cu_k[b];
        if (nq == 0) continue;
        if (nk == 0) {
            sum_w[3] += (uint64_t)(8 * nq * 24 * 2);
            sum_w[4] += (uint64_t)(8 * nq * 4);
            continue;
        }
        fa_shape sb = s;
        sb.seqlen_q = nq;
        sb.seqlen_k = nk;
        fa_counts cb;
        assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &sb, bk, BIG_M, 1, &cb), FA_OK);
        for (int t = 0; t < 5; t++) {
            sum_r[t] += cb.tensor[fa_counts_find(&cb, nm[t])].read_bytes;
            sum_w[t] += cb.tensor[fa_counts_find(&cb, nm[t])].write_bytes;
        }
    }
    for (int t = 0; t < 5; t++) {
        assert_int_equal(c.tensor[fa_counts_find(&c, nm[t])].read_bytes, sum_r[t]);
        assert_int_equal(c.tensor[fa_counts_find(&c, nm[t])].write_bytes, sum_w[t]);
    }
}

static void test_varlen_bad_offsets(void **state)
{
    (void)state;
    int64_t q[] = {0, 5, 3, 10}, k[] = {0, 4, 8, 12};
    fa_shape s = packed(&B2, 2, 2, 8, 8, FA_CAUSAL_NONE);
    s.seqlen_q = 10;
    s.seqlen_k = 12;
    fa_varlen vl = {3, q, k};
    assert_int_equal(fa_varlen_check(&s, &vl), FA_EINVAL); /* non-monotone */
    assert_non_null(strstr(fa_last_error(), "non-decreasing"));
    q[2] = 7;
    assert_int_equal(fa_varlen_check(&s, &vl), FA_OK);
    s.seqlen_k = 13;
    assert_int_equal(fa_varlen_check(&s, &vl), FA_EINVAL); /* ends at 12, tensor has 13 */
    s.seqlen_k = 12;
    q[0] = 1;
    assert_int_equal(fa_varlen_check(&s, &vl), FA_EINVAL);
    q[0] = 0;
    s.batch = 2;
    assert_int_equal(fa_varlen_check(&s, &vl), FA_EINVAL);
    s.batch = 1;
    vl.nseq = 0;
    assert_int_equal(fa_varlen_check(&s, &vl), FA_EINVAL);
}

/* A large packed batch in count-only mode (merged tiles): counted == closed form. */
static void test_varlen_large(void **state)
{
    (void)state;
    int64_t q[] = {0, 100000, 100001, 100001, 180000}, k[] = {0, 100000, 150000, 160000, 240000};
    fa_shape s = {.batch = 1, .heads = 32, .kv_heads = 8, .seqlen_q = 180000, .seqlen_k = 240000,
                  .d = 128, .d_v = 128, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_BF16};
    fa_varlen vl = {4, q, k};
    for (int causal = 0; causal < 2; causal++) {
        s.causal = causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        fa_infer_opts o = fa_infer_opts_default();
        fa_blocks bk;
        assert_int_equal(fa_infer_blocks_fit(&s, &o, &vl, 232448, &bk), FA_OK);
        fa_infer_result r;
        assert_int_equal(fa_infer_io_run(&s, bk, &o, &vl, 232448, NULL, &r), FA_OK);
        assert_counts_formula(&r.counts, &s, bk, &o, &vl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_rows),
        cmocka_unit_test(test_varlen_matches_reference),
        cmocka_unit_test(test_varlen_is_sum_of_flash2),
        cmocka_unit_test(test_varlen_bad_offsets),
        cmocka_unit_test(test_varlen_large),
    };
    return cmocka_run_group_tests_name("varlen", tests, NULL, NULL);
}
