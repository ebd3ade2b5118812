/* test_decode.c -- split-KV decoding, GQA packing and paged KV caches (cpu_ref/fa_infer.h):
 * each equals the fp64 reference to 1e-12, count-only counts equal numeric counts, and counted
 * bytes and FLOPs equal the closed forms of analysis/formula_decode.c, tensor by tensor. */
#include "testutil.h"

#define BIG_M (1u << 30)

/* Asserts counts == closed form for every inference tensor, the FLOPs and the SRAM peak. */
static void assert_infer_formula(const fa_counts *c, const fa_shape *s, fa_blocks bk,
                                 const fa_infer_opts *o, const fa_varlen *vl, const char *what)
{
    fa_infer_formula f;
    assert_int_equal(fa_infer_formula_bytes(s, bk, o, vl, NULL, &f), FA_OK);
    for (int t = 0; t < FA_INFER_TENSORS; t++) {
        int id = fa_counts_find(c, fa_infer_tensor_names[t]);
        uint64_t r = id < 0 ? 0 : c->tensor[id].read_bytes, w = id < 0 ? 0 : c->tensor[id].write_bytes;
        if (r != f.read[t] || w != f.write[t])
            fail_msg("%s S=%lld pack=%d P=%lld tensor %s: counted r=%llu w=%llu, formula r=%llu w=%llu",
                     what, (long long)o->splits, o->pack_gqa, (long long)o->page_size,
                     fa_infer_tensor_names[t], (unsigned long long)r, (unsigned long long)w,
                     (unsigned long long)f.read[t], (unsigned long long)f.write[t]);
    }
    assert_int_equal(c->hbm_read_bytes, f.read_bytes);
    assert_int_equal(c->hbm_write_bytes, f.write_bytes);
    assert_int_equal(c->flops_matmul, f.matmul_flops);
    assert_int_equal(c->flops_other, f.other_flops);
    assert_int_equal(c->sram_peak_bytes, f.sram_need);
}

static fa_status run_decode(fa_mode mode, int merge, const fa_shape *s, fa_blocks bk,
                            const fa_infer_opts *o, const problem *p, double *O, double *L,
                            fa_counts *c)
{
    fa_mem *mem = fa_mem_alloc(mode, BIG_M);
    assert_non_null(mem);
    fa_mem_set_merge(mem, merge);
    fa_status st = mode == FA_MODE_NUMERIC
                       ? fa_decode_forward(mem, s, bk, o, p->Q, p->K, p->V, O, L)
                       : fa_decode_forward(mem, s, bk, o, NULL, NULL, NULL, NULL, NULL);
    if (c) *c = *fa_mem_counts(mem);
    fa_mem_free(mem);
    return st;
}

typedef struct {
    int64_t B, H, Hkv, Nq, Nk, d, dv, Br, Bc;
    fa_causal causal;
} dcfg;

static const dcfg dcases[] = {
    {1, 1, 1, 1, 1, 8, 8, 16, 16, FA_CAUSAL_NONE},
    {2, 8, 2, 1, 239, 24, 16, 16, 32, FA_CAUSAL_NONE},
    {1, 8, 2, 3, 203, 16, 12, 16, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {2, 4, 1, 5, 113, 7, 9, 8, 16, FA_CAUSAL_BOTTOM_RIGHT},
    {1, 6, 3, 4, 100, 20, 20, 5, 7, FA_CAUSAL_TOP_LEFT},
    {1, 4, 4, 2, 144, 32, 32, 16, 16, FA_CAUSAL_BOTTOM_RIGHT}, /* T_c = 9 */
    {1, 4, 2, 9, 4, 8, 8, 4, 2, FA_CAUSAL_BOTTOM_RIGHT},       /* N_q > N_k: empty rows */
};
#define NDC (sizeof dcases / sizeof dcases[0])

static fa_shape dshape(const dcfg *c)
{
    fa_shape s = {.batch = c->B, .heads = c->H, .kv_heads = c->Hkv, .seqlen_q = c->Nq,
                  .seqlen_k = c->Nk, .d = c->d, .d_v = c->dv, .scale = 0, .causal = c->causal,
                  .dtype = FA_DTYPE_BF16};
    return s;
}

/* Every split count (1, 2, 3, 4 and T_c) and both loop orders against the fp64 reference;
 * numeric counts == count-only counts (merged and not) == closed form. */
static void test_decode_matches_reference(void **state)
{
    (void)state;
    for (size_t c = 0; c < NDC; c++) {
        fa_shape s = dshape(&dcases[c]);
        fa_blocks bk = {dcases[c].Br, dcases[c].Bc};
        problem p;
        problem_init(&p, &s, 300 + c);
        int64_t no = fa_numel_o(&s), ns = fa_numel_stats(&s), T_c = fa_cdiv(s.seqlen_k, bk.block_c);
        int64_t splits[] = {1, 2, 3, 4, T_c};
        for (int k = 0; k < 5; k++) {
            if (splits[k] > T_c) continue;
            for (int pack = 0; pack < 2; pack++) {
                fa_infer_opts o = {.splits = splits[k], .pack_gqa = pack, .page_size = 0};
                double *O = tu_alloc(no), *L = tu_alloc(ns);
                for (int64_t i = 0; i < no; i++) O[i] = NAN;
                fa_counts num, cnt, mrg;
                assert_int_equal(run_decode(FA_MODE_NUMERIC, 0, &s, bk, &o, &p, O, L, &num), FA_OK);
                double eo = tu_max_rel(O, p.O_ref, no), el = tu_max_rel(L, p.LSE_ref, ns);
                if (eo > 1e-12 || el > 1e-12)
                    fail_msg("case %zu S=%lld pack=%d: O error %g, LSE error %g", c,
                             (long long)o.splits, pack, eo, el);
                assert_int_equal(run_decode(FA_MODE_COUNT, 0, &s, bk, &o, NULL, NULL, NULL, &cnt), FA_OK);
                assert_int_equal(run_decode(FA_MODE_COUNT, 1, &s, bk, &o, NULL, NULL, NULL, &mrg), FA_OK);
                tu_assert_counts_equal(&num, &cnt);
                tu_assert_counts_equal(&num, &mrg);
                assert_infer_formula(&num, &s, bk, &o, NULL, "decode");
                free(O);
                free(L);
            }
        }
        problem_free(&p);
    }
}

/* S = 1, one head per thread block is FlashAttention-2: the same counts as fa_flash2_forward. */
static void test_s1_equals_flash2(void **state)
{
    (void)state;
    for (size_t c = 0; c < NDC; c++) {
        fa_shape s = dshape(&dcases[c]);
        fa_blocks bk = {dcases[c].Br, dcases[c].Bc};
        fa_infer_opts o = fa_infer_opts_default();
        fa_counts a, b;
        assert_int_equal(run_decode(FA_MODE_COUNT, 0, &s, bk, &o, NULL, NULL, NULL, &a), FA_OK);
        assert_int_equal(tu_run_count(FA_ALGO_FLASH2, &s, bk, BIG_M, 0, &b), FA_OK);
        /* tensor by tensor (flash2 may register more tensors, e.g. for masks: compare ours) */
        static const char *const nm[] = {"Q", "K", "V", "O", "LSE"};
        for (int t = 0; t < 5; t++) {
            const fa_tensor_count *x = &a.tensor[fa_counts_find(&a, nm[t])], *y = &b.tensor[fa_counts_find(&b, nm[t])];
            assert_int_equal(x->read_bytes, y->read_bytes);
            assert_int_equal(x->write_bytes, y->write_bytes);
            assert_int_equal(x->loads, y->loads);
            assert_int_equal(x->stores, y->stores);
        }
        assert_int_equal(a.hbm_read_bytes, b.hbm_read_bytes);
        assert_int_equal(a.hbm_write_bytes, b.hbm_write_bytes);
        assert_int_equal(a.flops_matmul, b.flops_matmul);
        assert_int_equal(a.flops_other, b.flops_other);
        assert_int_equal(a.sram_peak_bytes, b.sram_peak_bytes);
    }
}

/* GQA decoding, 8 query heads on 2 kv heads, N_q = 1: packed equals the reference, loads K/V
 * once per kv head (a quarter of the per-head bytes) and has the higher intensity. */
static void test_gqa_8_on_2(void **state)
{
    (void)state;
    fa_shape s = {.batch = 1, .heads = 8, .kv_heads = 2, .seqlen_q = 1, .seqlen_k = 77, .d = 16,
                  .d_v = 16, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_FP16};
    fa_blocks bk = {16, 16};
    problem p;
    problem_init(&p, &s, 88);
    fa_counts c[2];
    for (int pack = 0; pack < 2; pack++) {
        fa_infer_opts o = {.splits = 1, .pack_gqa = pack};
        double O[8 * 16], L[8];
        assert_int_equal(run_decode(FA_MODE_NUMERIC, 0, &s, bk, &o, &p, O, L, &c[pack]), FA_OK);
        assert_true(tu_max_rel(O, p.O_ref, 8 * 16) <= 1e-12);
        assert_true(tu_max_rel(L, p.LSE_ref, 8) <= 1e-12);
    }
    int k0 = fa_counts_find(&c[0], "K"), k1 = fa_counts_find(&c[1], "K");
    assert_int_equal(c[0].tensor[k0].read_bytes, 8 * 77 * 16 * 2);
    assert_int_equal(c[1].tensor[k1].read_bytes, 2 * 77 * 16 * 2);
    /* Q and O gathered one row per transfer: 8 loads and 8 stores either way */
    assert_int_equal(c[1].tensor[fa_counts_find(&c[1], "Q")].loads, 8);
    assert_int_equal(c[1].tensor[fa_counts_find(&c[1], "O")].stores, 8);
    assert_true(fa_counts_hbm_bytes(&c[1]) < fa_counts_hbm_bytes(&c[0]));
    problem_free(&p);
}

/* Intensity of GQA-packed decoding rises with the group size g = H / H_kv (H = 32). */
static void test_intensity_rises_with_g(void **state)
{
    (void)state;
    static const int64_t hkv[] = {32, 8, 4, 1};
    double prev = 0, prev_ph = 0;
    for (int k = 0; k < 4; k++) {
        fa_shape s = {.batch = 4, .heads = 32, .kv_heads = hkv[k], .seqlen_q = 1, .seqlen_k = 4096,
                      .d = 128, .d_v = 128, .scale = 0, .causal = FA_CAUSAL_NONE, .dtype = FA_DTYPE_BF16};
        fa_infer_opts o = {.splits = 1, .pack_gqa = 1}, oh = {.splits = 1, .pack_gqa = 0};
        fa_blocks bk;
        assert_int_equal(fa_infer_blocks_fit(&s, &o, NULL, 232448, &bk), FA_OK);
        fa_infer_result r, rh;
        assert_int_equal(fa_infer_io_run(&s, bk, &o, NULL, 232448, NULL, &r), FA_OK);
        assert_int_equal(fa_infer_io_run(&s, bk, &oh, NULL, 232448, NULL, &rh), FA_OK);
        assert_true(r.intensity > prev);
        if (k > 0) assert_true(fabs(rh.intensity - prev_ph) < 0.05 * prev_ph); /* per head: ~flat */
        prev = r.intensity;
        prev_ph = rh.intensity;
    }
    assert_true(prev > 20 * prev_ph); /* MQA packed (g = 32) vs per head */
}

/* The merge: (0, -inf) is the identity, an all-empty merge is (0, -inf), no NaN from a garbage
 * O in an empty partial, and merging a split equals the whole. */
static void test_lse_merge(void **state)
{
    (void)state;
    double lse[3] = {0.25, -INFINITY, 1.5}, Op[3 * 2] = {1, 2, NAN, NAN, -3, 4}, O[2], L;
    fa_lse_merge(3, lse, Op, 2, 2, O, &L);
    double ref = log(exp(0.25) + exp(1.5));
    assert_float_equal(L, ref, 1e-15);
    assert_float_equal(O[0], (exp(0.25) * 1 + exp(1.5) * -3) / exp(ref), 1e-14);
    assert_float_equal(O[1], (exp(0.25) * 2 + exp(1.5) * 4) / exp(ref), 1e-14);
    double e[2] = {-INFINITY, -INFINITY};
    fa_lse_merge(2, e, Op + 2, 2, 2, O, &L);
    assert_true(L == -INFINITY && O[0] == 0 && O[1] == 0);
    fa_lse_merge(0, e, Op, 2, 2, O, &L);
    assert_true(L == -INFINITY && O[0] == 0 && O[1] == 0);
}

/* T_c = 9 tiles in S = 4 chunks of ceil(9/4) = 3: chunk 3 is empty, writes (0, -inf), and the
 * combine still reads it; the result equals the reference. */
static void test_split_with_empty_chunk(void **state)
{
    (void)state;
    fa_shape s = {.batch = 1, .heads = 2, .kv_heads = 1, .seqlen_q = 1, .seqlen_k = 144, .d = 8,
                  .d_v = 8, .scale = 0, .causal = FA_CAUSAL_NONE, .dtype = FA_DTYPE_FP32};
    fa_blocks bk = {16, 16};
    fa_infer_opts o = {.splits = 4, .pack_gqa = 0};
    problem p;
    problem_init(&p, &s, 9);
    double O[16], L[2];
    fa_counts c;
    assert_int_equal(run_decode(FA_MODE_NUMERIC, 0, &s, bk, &o, &p, O, L, &c), FA_OK);
    assert_true(tu_max_rel(O, p.O_ref, 16) <= 1e-12);
    assert_true(tu_max_rel(L, p.LSE_ref, 2) <= 1e-12);
    /* K: 9 tiles per head; partials: 4 per head written (one row, 8 + 1 fp32) and read back */
    assert_int_equal(c.tensor[fa_counts_find(&c, "K")].loads, 2 * 9);
    int op = fa_counts_find(&c, "O_part"), lp = fa_counts_find(&c, "LSE_part");
    assert_int_equal(c.tensor[op].write_bytes, 2 * 4 * 8 * 4);
    assert_int_equal(c.tensor[op].read_bytes, 2 * 4 * 8 * 4);
    assert_int_equal(c.tensor[lp].write_bytes, 2 * 4 * 4);
    assert_int_equal(c.tensor[op].stores, 2 * 4);
    assert_infer_formula(&c, &s, bk, &o, NULL, "empty chunk");
    problem_free(&p);
}

/* One run of FlashAttention-2's split-KV forward (fa_flash2_forward_split). */
static fa_status run_split(fa_mode mode, int merge, const fa_shape *s, fa_blocks bk, int64_t S, const problem *p,
                           double *O, double *L, fa_counts *c)
{
    fa_mem *mem = fa_mem_alloc(mode, BIG_M);
    assert_non_null(mem);
    fa_mem_set_merge(mem, merge);
    fa_status st = mode == FA_MODE_NUMERIC ? fa_flash2_forward_split(mem, s, bk, S, p->Q, p->K, p->V, O, L)
                                           : fa_flash2_forward_split(mem, s, bk, S, NULL, NULL, NULL, NULL, NULL);
    if (c) *c = *fa_mem_counts(mem);
    fa_mem_free(mem);
    return st;
}

/* Asserts counts == fa_formula_pass_bytes(fwd, flash2, splits S) tensor by tensor, the matmul FLOPs. */
static void assert_split_formula(const fa_counts *c, const fa_shape *s, fa_blocks bk, int64_t S, const char *what)
{
    fa_pass_formula f;
    assert_int_equal(fa_formula_pass_bytes(FA_PASS_FWD, FA_ALGO_FLASH2, s, bk, S, &f), FA_OK);
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        int id = fa_counts_find(c, fa_pass_tensor_names[t]);
        uint64_t r = id < 0 ? 0 : c->tensor[id].read_bytes, w = id < 0 ? 0 : c->tensor[id].write_bytes;
        if (r != f.read[t] || w != f.write[t])
            fail_msg("%s S=%lld tensor %s: counted r=%llu w=%llu, formula r=%llu w=%llu", what, (long long)S,
                     fa_pass_tensor_names[t], (unsigned long long)r, (unsigned long long)w,
                     (unsigned long long)f.read[t], (unsigned long long)f.write[t]);
    }
    assert_int_equal(c->hbm_read_bytes, f.read_bytes);
    assert_int_equal(c->hbm_write_bytes, f.write_bytes);
    assert_int_equal(c->flops_matmul, f.matmul_flops);
}

/* FlashAttention-2's split-KV forward on the training kernel (issue 18, the fourth reader: fasim io
 * counts what the fa2 profile runs): for every case and S in {1, 2, 3, T_c}, O and LSE equal the
 * fp64 reference to 1e-12, numeric counts equal count-only counts (merged and not) and the closed
 * form, and without other masks than causal the bytes per tensor equal the decode kernel's with the
 * same S (two implementations of the same kernel); with a sliding window the closed form holds too. */
static void test_flash2_split(void **state)
{
    (void)state;
    for (size_t c = 0; c < NDC + 2; c++) {
        fa_shape s = dshape(&dcases[c < NDC ? c : 2]);
        if (c >= NDC) { /* a window of 23 keys (and causal), on a longer N_q: rows see different chunks */
            s.seqlen_q = 70, s.window = 1, s.window_left = 22, s.window_right = c == NDC ? 0 : 5;
            if (c > NDC) s.causal = FA_CAUSAL_NONE;
        }
        fa_blocks bk = {dcases[c < NDC ? c : 2].Br, dcases[c < NDC ? c : 2].Bc};
        problem p;
        problem_init(&p, &s, 700 + c);
        int64_t no = fa_numel_o(&s), ns = fa_numel_stats(&s), T_c = fa_cdiv(s.seqlen_k, bk.block_c);
        int64_t splits[] = {1, 2, 3, T_c};
        for (int k = 0; k < 4; k++) {
            const int64_t S = splits[k];
            if (S > T_c) continue;
            double *O = tu_alloc(no), *L = tu_alloc(ns);
            fa_counts num, cnt, mrg, dec;
            assert_int_equal(run_split(FA_MODE_NUMERIC, 0, &s, bk, S, &p, O, L, &num), FA_OK);
            double eo = tu_max_rel(O, p.O_ref, no), el = tu_max_rel(L, p.LSE_ref, ns);
            if (eo > 1e-12 || el > 1e-12) fail_msg("case %zu S=%lld: O error %g, LSE error %g", c, (long long)S, eo, el);
            assert_int_equal(run_split(FA_MODE_COUNT, 0, &s, bk, S, NULL, NULL, NULL, &cnt), FA_OK);
            assert_int_equal(run_split(FA_MODE_COUNT, 1, &s, bk, S, NULL, NULL, NULL, &mrg), FA_OK);
            tu_assert_counts_equal(&num, &cnt);
            tu_assert_counts_equal(&num, &mrg);
            assert_split_formula(&num, &s, bk, S, "flash2 split");
            if (!s.window) {
                fa_infer_opts o = {.splits = S, .pack_gqa = 0, .page_size = 0};
                assert_int_equal(run_decode(FA_MODE_COUNT, 0, &s, bk, &o, NULL, NULL, NULL, &dec), FA_OK);
                static const char *const nm[] = {"Q", "K", "V", "O", "LSE", "O_part", "LSE_part"};
                for (int t = 0; t < (S > 1 ? 7 : 5); t++) {
                    const fa_tensor_count *x = &num.tensor[fa_counts_find(&num, nm[t])];
                    const fa_tensor_count *y = &dec.tensor[fa_counts_find(&dec, nm[t])];
                    assert_int_equal(x->read_bytes, y->read_bytes);
                    assert_int_equal(x->write_bytes, y->write_bytes);
                }
            }
            free(O);
            free(L);
        }
        problem_free(&p);
    }
    /* by hand: N = 4096, d = 64, fp16, 64 x 256 tiles, S = 4 (what the fa2 profile runs on one head):
     * Q 4 x 4096 x 64 x 2, K = V = T_r N_k d e = 64 x 4096 x 64 x 2, O_part S N_q d_v 4 = 4194304
     * written and read, LSE_part S N_q 4 = 65536 written and read, O 524288 and LSE 16384 written */
    fa_shape s = fa_shape_default(4096, 64);
    s.dtype = FA_DTYPE_FP16;
    fa_counts c;
    assert_int_equal(run_split(FA_MODE_COUNT, 1, &s, (fa_blocks){64, 256}, 4, NULL, NULL, NULL, &c), FA_OK);
    assert_int_equal(c.tensor[fa_counts_find(&c, "Q")].read_bytes, 2097152);
    assert_int_equal(c.tensor[fa_counts_find(&c, "K")].read_bytes, 33554432);
    assert_int_equal(c.tensor[fa_counts_find(&c, "O_part")].write_bytes, 4194304);
    assert_int_equal(c.tensor[fa_counts_find(&c, "O_part")].read_bytes, 4194304);
    assert_int_equal(c.tensor[fa_counts_find(&c, "LSE_part")].read_bytes, 65536);
    assert_int_equal(c.tensor[fa_counts_find(&c, "O")].write_bytes, 524288);
    assert_int_equal(fa_counts_hbm_bytes(&c), 78266368);
    /* S outside 1 .. T_c, and a split of another algorithm, are refused */
    assert_int_equal(run_split(FA_MODE_COUNT, 1, &s, (fa_blocks){64, 256}, 17, NULL, NULL, NULL, NULL), FA_EINVAL);
    assert_int_equal(run_split(FA_MODE_COUNT, 1, &s, (fa_blocks){64, 256}, 0, NULL, NULL, NULL, NULL), FA_EINVAL);
    fa_pass_formula f;
    assert_int_equal(fa_formula_pass_bytes(FA_PASS_FWD, FA_ALGO_FLASH1, &s, (fa_blocks){64, 256}, 2, &f), FA_EINVAL);
    fa_clear_error();
}

static void test_bad_options(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1, 16);
    s.seqlen_k = 100; /* T_c = 7 with B_c = 16 */
    fa_blocks bk = {16, 16};
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
    fa_infer_opts o = {.splits = 0};
    assert_int_equal(fa_decode_forward(mem, &s, bk, &o, NULL, NULL, NULL, NULL, NULL), FA_EINVAL);
    o.splits = 8;
    assert_int_equal(fa_decode_forward(mem, &s, bk, &o, NULL, NULL, NULL, NULL, NULL), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "T_c"));
    o.splits = 7;
    assert_int_equal(fa_decode_forward(mem, &s, bk, &o, NULL, NULL, NULL, NULL, NULL), FA_OK);
    o.splits = 1;
    o.page_size = 0;
    assert_int_equal(fa_paged_forward(mem, &s, bk, &o, NULL, 0, NULL, NULL, NULL, NULL, NULL), FA_EINVAL);
    o.page_size = 48; /* neither divides B_c = 16 nor is divided by it: 48 % 16 == 0 is fine */
    assert_int_equal(fa_paged_forward(mem, &s, bk, &o, NULL, 0, NULL, NULL, NULL, NULL, NULL), FA_OK);
    o.page_size = 24;
    assert_int_equal(fa_paged_forward(mem, &s, bk, &o, NULL, 0, NULL, NULL, NULL, NULL, NULL), FA_EINVAL);
    fa_mem_free(mem);
}

/* Builds a page pool from contiguous K (B, Hkv, Nk, D) under a permuted block table. */
static double *to_pages(const double *K, int64_t B, int64_t Hk, int64_t Nk, int64_t D, int64_t P,
                        const int32_t *bt, int64_t npages)
{
    int64_t pps = fa_cdiv(Nk, P);
    double *C = tu_alloc(npages * Hk * P * D);
    for (int64_t i = 0; i < npages * Hk * P * D; i++) C[i] = NAN; /* unused slots poisoned */
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < Hk; h++)
            for (int64_t j = 0; j < Nk; j++) {
                int64_t pg = bt[b * pps + j / P];
                memcpy(C + ((pg * Hk + h) * P + j % P) * D, K + ((b * Hk + h) * Nk + j) * D,
                       (size_t)D * sizeof *C);
            }
    return C;
}

/* Paged == contiguous bit for bit, for pages smaller than, equal to and larger than B_c; K and
 * V bytes are the contiguous ones, the block table adds 4 bytes per page per tile. */
static void test_paged_equals_contiguous(void **state)
{
    (void)state;
    fa_shape s = {.batch = 3, .heads = 8, .kv_heads = 2, .seqlen_q = 2, .seqlen_k = 75, .d = 12,
                  .d_v = 10, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_FP16};
    fa_blocks bk = {16, 16};
    problem p;
    problem_init(&p, &s, 4242);
    static const int64_t Ps[] = {1, 4, 16, 32, 80};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    for (int k = 0; k < 5; k++)
        for (int pack = 0; pack < 2; pack++)
            for (int64_t S = 1; S <= 3; S += 2) {
                int64_t P = Ps[k], pps = fa_cdiv(s.seqlen_k, P), np = s.batch * pps + 5;
                int32_t *bt = calloc((size_t)(s.batch * pps), sizeof *bt);
                int32_t *perm = calloc((size_t)np, sizeof *perm);
                for (int64_t i = 0; i < np; i++) perm[i] = (int32_t)i;
                gsl_ran_shuffle(rng, perm, (size_t)np, sizeof *perm);
                for (int64_t i = 0; i < s.batch * pps; i++) bt[i] = perm[i];
                double *Kc = to_pages(p.K, s.batch, s.kv_heads, s.seqlen_k, s.d, P, bt, np);
                double *Vc = to_pages(p.V, s.batch, s.kv_heads, s.seqlen_k, s.d_v, P, bt, np);
                fa_infer_opts oc = {.splits = S, .pack_gqa = pack}, op = oc;
                op.page_size = P;
                int64_t no = fa_numel_o(&s), ns = fa_numel_stats(&s);
                double *O1 = tu_alloc(no), *L1 = tu_alloc(ns), *O2 = tu_alloc(no), *L2 = tu_alloc(ns);
                fa_counts cc, cp, cnt;
                assert_int_equal(run_decode(FA_MODE_NUMERIC, 0, &s, bk, &oc, &p, O1, L1, &cc), FA_OK);
                fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
                assert_int_equal(fa_paged_forward(mem, &s, bk, &op, bt, np, p.Q, Kc, Vc, O2, L2), FA_OK);
                cp = *fa_mem_counts(mem);
                fa_mem_free(mem);
                assert_memory_equal(O1, O2, (size_t)no * sizeof *O1); /* bit for bit */
                assert_memory_equal(L1, L2, (size_t)ns * sizeof *L1);
                assert_true(tu_max_rel(O2, p.O_ref, no) <= 1e-12);
                for (int t = 0; t < 2; t++) {
                    const char *nm = t ? "V" : "K";
                    assert_int_equal(cc.tensor[fa_counts_find(&cc, nm)].read_bytes,
                                     cp.tensor[fa_counts_find(&cp, nm)].read_bytes);
                }
                assert_infer_formula(&cp, &s, bk, &op, NULL, "paged");
                mem = fa_mem_alloc(FA_MODE_COUNT, BIG_M);
                assert_int_equal(fa_paged_forward(mem, &s, bk, &op, NULL, 0, NULL, NULL, NULL, NULL, NULL), FA_OK);
                cnt = *fa_mem_counts(mem);
                fa_mem_free(mem);
                tu_assert_counts_equal(&cp, &cnt);
                /* a page number out of range is refused */
                bt[0] = (int32_t)np;
                mem = fa_mem_alloc(FA_MODE_NUMERIC, BIG_M);
                assert_int_equal(fa_paged_forward(mem, &s, bk, &op, bt, np, p.Q, Kc, Vc, O2, L2), FA_EINVAL);
                fa_mem_free(mem);
                free(bt);
                free(perm);
                free(Kc);
                free(Vc);
                free(O1);
                free(L1);
                free(O2);
                free(L2);
            }
    gsl_rng_free(rng);
    problem_free(&p);
}

/* Large decoding shapes in count-only mode (merged runs) against the closed form: Llama-3-8B
 * (GQA 32/8, d = 128) at 128k cached tokens, batch 64; FlashMLA's shape (d_qk 576, d_v 512,
 * 128 heads on one latent head); paged with P = 16. */
static void test_large_closed_form(void **state)
{
    (void)state;
    fa_shape ll = {.batch = 64, .heads = 32, .kv_heads = 8, .seqlen_q = 1, .seqlen_k = 131072,
                   .d = 128, .d_v = 128, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_BF16};
    fa_shape mla = {.batch = 8, .heads = 128, .kv_heads = 1, .seqlen_q = 2, .seqlen_k = 65537,
                    .d = 576, .d_v = 512, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_BF16};
    const fa_shape *ss[] = {&ll, &mla};
    for (int k = 0; k < 2; k++)
        for (int pack = 0; pack < 2; pack++)
            for (int64_t P = 0; P <= 16; P += 16)
                for (int64_t S = 1; S <= 16; S *= 4) {
                    fa_infer_opts o = {.splits = S, .pack_gqa = pack, .page_size = P};
                    fa_blocks bk;
                    assert_int_equal(fa_infer_blocks_fit(ss[k], &o, NULL, 232448, &bk), FA_OK);
                    fa_infer_result r;
                    assert_int_equal(fa_infer_io_run(ss[k], bk, &o, NULL, 232448, NULL, &r), FA_OK);
                    assert_infer_formula(&r.counts, ss[k], bk, &o, NULL, "large");
                    assert_true(r.counts.sram_peak_bytes <= 232448);
                }
}

/* The wave model: one sequence, 8 kv heads, packed -> 8 thread blocks on 132 SMs; splitting the
 * keys fills the machine and is predicted faster, while a batch of 64 fills it without splits. */
static void test_split_wins_when_few_programs(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    fa_shape s = {.batch = 1, .heads = 32, .kv_heads = 8, .seqlen_q = 1, .seqlen_k = 32768,
                  .d = 128, .d_v = 128, .scale = 0, .causal = FA_CAUSAL_NONE, .dtype = FA_DTYPE_BF16};
    fa_infer_opts o = {.splits = 1, .pack_gqa = 1};
    fa_blocks bk;
    assert_int_equal(fa_infer_blocks_fit(&s, &o, NULL, hw.sram_per_block, &bk), FA_OK);
    int64_t S;
    assert_int_equal(fa_infer_best_splits(&s, bk, &o, NULL, hw.sram_per_block, &hw, &S), FA_OK);
    assert_true(S > 8);
    fa_infer_result r1, rs;
    assert_int_equal(fa_infer_io_run(&s, bk, &o, NULL, hw.sram_per_block, &hw, &r1), FA_OK);
    o.splits = S;
    assert_int_equal(fa_infer_io_run(&s, bk, &o, NULL, hw.sram_per_block, &hw, &rs), FA_OK);
    assert_true(rs.time_s < r1.time_s / 4);
    assert_true(fa_counts_hbm_bytes(&rs.counts) > fa_counts_hbm_bytes(&r1.counts)); /* partials */
    s.batch = 64;
    o.splits = 1;
    assert_int_equal(fa_infer_best_splits(&s, bk, &o, NULL, hw.sram_per_block, &hw, &S), FA_OK);
    assert_true(S <= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lse_merge),
        cmocka_unit_test(test_decode_matches_reference),
        cmocka_unit_test(test_s1_equals_flash2),
        cmocka_unit_test(test_gqa_8_on_2),
        cmocka_unit_test(test_intensity_rises_with_g),
        cmocka_unit_test(test_split_with_empty_chunk),
        cmocka_unit_test(test_flash2_split),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_paged_equals_contiguous),
        cmocka_unit_test(test_large_closed_form),
        cmocka_unit_test(test_split_wins_when_few_programs),
    };
    return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
