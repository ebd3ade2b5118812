/* test_infer.c -- the inference runs of analysis/infer.c (fa_inference.h): the variants of a
 * decoding configuration with hand-computed K, partial and block-table bytes, the padded varlen
 * batch equal to FlashAttention-2's closed form, the varlen backward's counts beside its closed
 * form (and, for equal lengths, beside the batched FlashAttention-2 backward's), the numeric
 * checks (a paged cache gives the contiguous errors bit for bit), and the report's decoding
 * table (per head reads g = 4 times the packed K bytes). */
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"
#include "fa_inference.h"

/* GQA decoding, 8 query heads on 2 kv heads, N_q = 1, d = 16, fp16, N_k = 77, tiles 16 x 16 */
static fa_shape decode_shape(void)
{
    fa_shape s = fa_shape_default(1, 16);
    s.heads = 8, s.kv_heads = 2, s.seqlen_k = 77;
    return s;
}

static void test_variants_bytes(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const fa_shape s = decode_shape();
    const fa_blocks bk = {16, 16};
    fa_infer_req q = {.decode = 1, .gqa = 0, .splits = 1, .blocks = &bk, .M = hw.sram_per_block, .hw = &hw};
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n = -1;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 2);
    assert_string_equal(v[0].name, "per-head");
    assert_string_equal(v[1].name, "packed");
    /* per head every query head reads its group's K: 8 * 77 * 16 * 2 B; packed each kv head once */
    assert_int_equal(fa_counts_read_of(&v[0].r.counts, "K"), 8 * 77 * 16 * 2);
    assert_int_equal(fa_counts_read_of(&v[1].r.counts, "K"), 2 * 77 * 16 * 2);
    assert_int_equal(fa_counts_read_of(&v[0].r.counts, "block_table"), 0); /* not counted */
    for (int i = 0; i < n; i++) {
        assert_true(fa_infer_formula_match(&v[i].r));
        assert_int_equal(v[i].opt.splits, 1);
        assert_false(v[i].auto_split);
    }
    /* split S = 4 of T_c = 5, packed only: S = 1 and S = 4; the partials (O_part 16 + LSE_part 1
     * values of 4 B per head and chunk) are written and read back: 2 * 8 * 4 * 17 * 4 = 4352 B */
    q.gqa = 2, q.splits = 4;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].opt.splits, 1);
    assert_int_equal(v[1].opt.splits, 4);
    assert_int_equal(v[0].r.formula.partial_bytes, 0);
    assert_int_equal(v[1].r.formula.partial_bytes, 4352);
    assert_true(fa_infer_formula_match(&v[1].r));
    /* paged, P = 16: one block-table entry a key tile, 5 tiles x 4 B x 2 groups = 40 B; K as contiguous */
    q.splits = 1, q.page_size = 16;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(fa_counts_read_of(&v[0].r.counts, "block_table"), 40);
    assert_int_equal(fa_counts_read_of(&v[0].r.counts, "K"), 4928);
    assert_int_equal(v[0].opt.page_size, 16);
    /* a split beyond T_c is refused */
    q.page_size = 0, q.splits = 9;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_EINVAL);
}

static void test_variants_auto_split(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    /* one sequence, 32 query heads on 8, a long cache: 8 packed thread blocks on 132 SMs, so the
     * wave model splits the keys; the split variant is the faster */
    fa_shape s = fa_shape_default(1, 128);
    s.heads = 32, s.kv_heads = 8, s.seqlen_k = 32768, s.causal = FA_CAUSAL_BOTTOM_RIGHT, s.dtype = FA_DTYPE_BF16;
    fa_infer_req q = {.decode = 1, .gqa = 2, .M = hw.sram_per_block, .hw = &hw};
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n = -1;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 2);
    assert_false(v[0].auto_split);
    assert_true(v[1].auto_split);
    assert_true(v[1].opt.splits > 1);
    assert_true(v[1].r.time_s < v[0].r.time_s);
    int64_t S;
    fa_infer_opts base = {.splits = 1, .pack_gqa = 1};
    assert_int_equal(fa_infer_best_splits(&s, v[0].r.blocks, &base, NULL, q.M, &hw, &S), FA_OK);
    assert_int_equal(v[1].opt.splits, S);
    /* tiles chosen by fa_infer_blocks_fit when none are given */
    fa_blocks fit;
    assert_int_equal(fa_infer_blocks_fit(&s, &base, NULL, q.M, &fit), FA_OK);
    assert_int_equal(v[0].r.blocks.block_r, fit.block_r);
    assert_int_equal(v[0].r.blocks.block_c, fit.block_c);
}

/* cu_seqlens 0, 5, 5, 37, 100: four sequences of 5, 0, 32, 63 rows (keys the same) */
static const int64_t CU[5] = {0, 5, 5, 37, 100};

static fa_shape varlen_shape(const int64_t *cu, int64_t nseq)
{
    fa_shape s = fa_shape_default(cu[nseq], 24);
    s.heads = 4, s.kv_heads = 2, s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    return s;
}

static void test_cu_seqlens_parse(void **state)
{
    (void)state;
    int64_t cu[8], n = -1;
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,5, 5 37", cu, 6, &n), FA_OK);
    assert_int_equal(n, 4);
    assert_int_equal(cu[1], 5);
    assert_int_equal(cu[3], 37);
    char path[] = "/tmp/fasim_test_cu_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("0\n9\t20,\r\n20 91\n", f);
    fclose(f);
    n = -1;
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens-k", path, cu, 6, &n), FA_OK);
    assert_int_equal(n, 5);
    assert_int_equal(cu[4], 91);
    f = fopen(path, "w");
    fputs("0\n5\n  x7\n", f);
    fclose(f);
    n = -1;
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", path, cu, 6, &n), FA_EINVAL);
    assert_int_equal(n, -1); /* unchanged */
    char want[160];
    snprintf(want, sizeof want, "--cu-seqlens: %s:3:3: 'x7' is not an integer in [0, 2147483647]", path);
    assert_string_equal(fa_last_error(), want);
    unlink(path);
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", path, cu, 6, &n), FA_EIO);
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "/tmp", cu, 6, &n), FA_EIO);
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,,5", cu, 6, &n), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--cu-seqlens '0,,5' has an empty item");
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,5x", cu, 6, &n), FA_EINVAL);
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,2147483648", cu, 6, &n), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--cu-seqlens = '2147483648' must be an integer in [0, 2147483647]");
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,2147483647", cu, 6, &n), FA_OK);
    assert_int_equal(cu[1], INT32_MAX);
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "7", cu, 6, &n), FA_EINVAL); /* one offset */
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,1,2,3", cu, 2, &n), FA_EINVAL); /* 3 sequences > 2 */
    assert_string_equal(fa_last_error(), "--cu-seqlens: more than 2 sequences");
    assert_int_equal(fa_cu_seqlens_parse("--cu-seqlens", "0,1,2", cu, 2, &n), FA_OK);
}

static void test_varlen_resolve(void **state)
{
    (void)state;
    static const int64_t cuk[5] = {0, 9, 20, 20, 91};
    fa_shape s = fa_shape_default(-1, 24);
    s.batch = -1, s.seqlen_k = -1;
    fa_varlen vl;
    assert_int_equal(fa_varlen_resolve(&s, CU, 5, NULL, -1, &vl), FA_OK); /* keys as queries */
    assert_int_equal(s.batch, 1);
    assert_int_equal(s.seqlen_q, 100);
    assert_int_equal(s.seqlen_k, 100);
    assert_int_equal(vl.nseq, 4);
    assert_ptr_equal(vl.cu_k, CU);
    s.batch = 4, s.seqlen_q = 100, s.seqlen_k = 91; /* repeating the totals is fine */
    assert_int_equal(fa_varlen_resolve(&s, CU, 5, cuk, 5, &vl), FA_OK);
    assert_int_equal(s.seqlen_k, 91);
    assert_int_equal(s.batch, 1);
    assert_ptr_equal(vl.cu_k, cuk);
    assert_int_equal(fa_varlen_check(&s, &vl), FA_OK);
    s.batch = 3;
    assert_int_equal(fa_varlen_resolve(&s, CU, 5, cuk, 5, &vl), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--batch 3 is inconsistent with --cu-seqlens (4 sequences)");
    s.batch = -1, s.seqlen_q = 99;
    assert_int_equal(fa_varlen_resolve(&s, CU, 5, cuk, 5, &vl), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--seqlen 99 is inconsistent with --cu-seqlens (total 100 rows)");
    s.seqlen_q = -1, s.seqlen_k = 100;
    assert_int_equal(fa_varlen_resolve(&s, CU, 5, cuk, 5, &vl), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--seqlen-k 100 is inconsistent with --cu-seqlens-k (total 91 keys)");
    s.seqlen_k = -1;
    assert_int_equal(fa_varlen_resolve(&s, CU, 5, cuk, 4, &vl), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--cu-seqlens has 5 offsets but --cu-seqlens-k has 4");
    static const int64_t none[2] = {0, 0};
    assert_int_equal(fa_varlen_resolve(&s, CU, 2, none, 2, &vl), FA_EINVAL);
}

static void test_padded(void **state)
{
    (void)state;
    const fa_varlen vl = {4, CU, CU};
    const fa_shape s = varlen_shape(CU, 4);
    const fa_blocks bk = {16, 16};
    fa_shape p;
    fa_infer_result r;
    assert_int_equal(fa_varlen_padded(&s, &vl, bk, 1u << 30, NULL, &p, &r), FA_OK);
    assert_int_equal(p.batch, 4);
    assert_int_equal(p.seqlen_q, 63);
    assert_int_equal(p.seqlen_k, 63);
    assert_int_equal(p.heads, 4);
    /* S = 1, per head: plain FlashAttention-2 on the padded batch, byte for byte its closed form */
    fa_formula f;
    assert_int_equal(fa_formula_bytes(FA_ALGO_FLASH2, &p, bk, &f), FA_OK);
    assert_int_equal(r.counts.hbm_read_bytes, f.read_bytes);
    assert_int_equal(r.counts.hbm_write_bytes, f.write_bytes);
    /* the packed batch moves less than the padded one */
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n;
    fa_infer_req q = {.vl = &vl, .gqa = 1, .blocks = &bk, .M = 1u << 30};
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 1);
    assert_string_equal(v[0].name, "varlen");
    assert_true(fa_counts_hbm_bytes(&v[0].r.counts) < fa_counts_hbm_bytes(&r.counts));
}

static void test_varlen_bwd_io(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const fa_varlen vl = {4, CU, CU};
    const fa_shape s = varlen_shape(CU, 4);
    const fa_blocks bk = {16, 16};
    fa_varlen_bwd_io_result b, fb;
    assert_int_equal(fa_varlen_bwd_io(FA_PASS_BWD, &s, &vl, &bk, hw.sram_per_block, &hw, &b), FA_OK);
    assert_true(b.formula_match);
    assert_int_equal(b.read_bytes, b.formula.read_bytes);
    assert_int_equal(b.write_bytes, b.formula.write_bytes);
    assert_int_equal(fa_counts_hbm_bytes(&b.fwd.counts), 0);
    /* forward + backward: the forward (S = 1) added */
    assert_int_equal(fa_varlen_bwd_io(FA_PASS_FWDBWD, &s, &vl, &bk, hw.sram_per_block, &hw, &fb), FA_OK);
    fa_infer_opts one = fa_infer_opts_default();
    fa_infer_result fwd;
    assert_int_equal(fa_infer_io_run(&s, bk, &one, &vl, hw.sram_per_block, &hw, &fwd), FA_OK);
    assert_int_equal(fb.read_bytes, b.read_bytes + fwd.counts.hbm_read_bytes);
    assert_int_equal(fb.write_bytes, b.write_bytes + fwd.counts.hbm_write_bytes);
    /* tiles fitted when none are given */
    assert_int_equal(fa_varlen_bwd_io(FA_PASS_BWD, &s, &vl, NULL, hw.sram_per_block, &hw, &b), FA_OK);
    fa_blocks fit;
    assert_int_equal(fa_blocks_fit_pass(FA_PASS_BWD, &s, hw.sram_per_block, &fit), FA_OK);
    assert_int_equal(b.blocks.block_r, fit.block_r);
    assert_int_equal(b.blocks.block_c, fit.block_c);
    /* buffers over M */
    const fa_blocks big = {256, 256};
    assert_int_equal(fa_varlen_bwd_io(FA_PASS_BWD, &s, &vl, &big, hw.sram_per_block, &hw, &b), FA_ENOSRAM);
    assert_non_null(strstr(fa_last_error(), "B_r = 256, B_c = 256"));
    /* two sequences of 64: the batched FlashAttention-2 backward of B = 2, N = 64 */
    static const int64_t cu2[3] = {0, 64, 128};
    const fa_varlen v2 = {2, cu2, cu2};
    const fa_shape s2 = varlen_shape(cu2, 2);
    fa_shape sb = s2;
    sb.batch = 2, sb.seqlen_q = sb.seqlen_k = 64;
    fa_pass_formula f;
    assert_int_equal(fa_formula_bwd_bytes(FA_ALGO_FLASH2, &sb, bk, &f), FA_OK);
    assert_int_equal(fa_varlen_bwd_io(FA_PASS_BWD, &s2, &v2, &bk, hw.sram_per_block, &hw, &b), FA_OK);
    assert_int_equal(b.read_bytes, f.read_bytes);
    assert_int_equal(b.write_bytes, f.write_bytes);
}

static void test_varlen_bwd_check(void **state)
{
    (void)state;
    const fa_varlen vl = {4, CU, CU};
    const fa_shape s = varlen_shape(CU, 4);
    const fa_blocks bk = {16, 16};
    fa_varlen_bwd_check_result r;
    assert_int_equal(fa_varlen_bwd_check(&s, &vl, &bk, 1u << 30, 42, 1e-10, &r), FA_OK);
    assert_true(r.pass);
    for (int t = 0; t < 3; t++) assert_true(r.rel[t] > 0 && r.rel[t] < 1e-13); /* fp64 rounding */
    assert_int_equal(r.blocks.block_r, 16);
    fa_varlen_bwd_check_result z;
    assert_int_equal(fa_varlen_bwd_check(&s, &vl, &bk, 1u << 30, 42, 0, &z), FA_OK);
    assert_false(z.pass);
    for (int t = 0; t < 3; t++) assert_true(z.rel[t] == r.rel[t]); /* the same seed, the same errors */
}

static void test_check_size(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(1, 128);
    s.seqlen_k = 100000000, s.heads = 1; /* 1e8 * 256 = 2.56e10 */
    assert_int_equal(fa_infer_check_size(&s, 0), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "= 2.56e+10 exceeds the limit of 2e10"));
    s.seqlen_k = 50000000;
    assert_int_equal(fa_infer_check_size(&s, 0), FA_OK);
    s.batch = 2;
    assert_int_equal(fa_infer_check_size(&s, 0), FA_EINVAL);
    assert_int_equal(fa_infer_check_size(&s, 1), FA_OK); /* a varlen batch's B is 1 */
}

static void test_check_paged_equals_contiguous(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    fa_shape s = fa_shape_default(3, 64);
    s.heads = 8, s.kv_heads = 2, s.seqlen_k = 300, s.batch = 2, s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    const fa_blocks bk = {16, 32};
    fa_infer_req q = {.decode = 1, .splits = 4, .blocks = &bk, .M = hw.sram_per_block, .hw = &hw};
    fa_infer_variant v[FA_INFER_MAX_VARIANTS], vp[FA_INFER_MAX_VARIANTS];
    int n, np;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 4); /* per-head and packed, S = 1 and 4 */
    fa_infer_check_result c, cp;
    assert_int_equal(fa_infer_check_run(&s, &q, v, n, 7, 1e-10, &c), FA_OK);
    assert_true(c.ready);
    assert_int_equal(c.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_true(c.row[i].pass);
        assert_true(c.row[i].abs_o < 1e-13 && c.row[i].abs_lse < 1e-12);
        assert_true(c.row[i].rel_o >= c.row[i].abs_o); /* max |O_ref| < 1 for a softmax average of N(0, 1) */
    }
    /* the same cache in a shuffled pool of pages of 16 tokens: the same errors, bit for bit */
    q.page_size = 16;
    assert_int_equal(fa_infer_variants(&s, &q, vp, &np), FA_OK);
    assert_int_equal(np, 4);
    assert_int_equal(fa_infer_check_run(&s, &q, vp, np, 7, 1e-10, &cp), FA_OK);
    for (int i = 0; i < 4; i++) {
        assert_true(cp.row[i].abs_o == c.row[i].abs_o);
        assert_true(cp.row[i].abs_lse == c.row[i].abs_lse);
    }
    /* tolerance 0: every row with a nonzero error fails */
    assert_int_equal(fa_infer_check_run(&s, &q, vp, np, 7, 0, &cp), FA_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(cp.row[i].pass, cp.row[i].rel_o == 0 && cp.row[i].abs_lse == 0);
}

static void test_check_varlen(void **state)
{
    (void)state;
    static const int64_t cuk[5] = {0, 9, 20, 20, 91}; /* a sequence with queries and no keys */
    const fa_varlen vl = {4, CU, cuk};
    fa_shape s = varlen_shape(CU, 4);
    s.seqlen_k = 91;
    const fa_blocks bk = {16, 16};
    fa_infer_req q = {.vl = &vl, .splits = 2, .blocks = &bk, .M = 1u << 30};
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n;
    assert_int_equal(fa_infer_variants(&s, &q, v, &n), FA_OK);
    assert_int_equal(n, 4);
    assert_string_equal(v[2].name, "varlen-packed");
    fa_infer_check_result c;
    assert_int_equal(fa_infer_check_run(&s, &q, v, n, 42, 1e-10, &c), FA_OK);
    assert_int_equal(c.n, 4);
    for (int i = 0; i < 4; i++) assert_true(c.row[i].pass); /* empty rows: O = 0, LSE = -inf as the reference */
}

static void test_decode_table(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    static fa_decode_table t;
    assert_int_equal(fa_decode_table_run(&hw, &t), FA_OK);
    assert_int_equal(t.batch[1], 64);
    assert_int_equal(t.kv_len[4], 131072);
    for (int ib = 0; ib < FA_DECODE_NB; ib++)
        for (int ik = 0; ik < FA_DECODE_NKV; ik++) {
            const uint64_t Kpk = (uint64_t)t.batch[ib] * 8 * (uint64_t)t.kv_len[ik] * 128 * 2; /* bf16 */
            assert_int_equal(fa_counts_read_of(&t.r[ib][ik][0].counts, "K"), 4 * Kpk); /* g = 32 / 8 */
            assert_int_equal(fa_counts_read_of(&t.r[ib][ik][1].counts, "K"), Kpk);
            assert_int_equal(t.r[ib][ik][2].opt.splits, t.best_splits[ib][ik]);
            assert_int_equal(t.r[ib][ik][0].opt.splits, 1);
            for (int k = 0; k < FA_DECODE_NV; k++) assert_true(fa_infer_formula_match(&t.r[ib][ik][k]));
        }
    /* one sequence over 128k keys: 8 packed thread blocks, split; the split is faster */
    assert_true(t.best_splits[0][4] > 1);
    assert_true(t.r[0][4][2].time_s < t.r[0][4][1].time_s);
}

/* The inference options against each other and the rest (fa_infer_resolve): the defaults they
 * settle (--decode: N_q 1, N_k = --kv-len) and each refusal's message. */
static fa_status resolve(fa_infer_args a, fa_shape *s)
{
    fa_clear_error();
    return fa_infer_resolve(&a, s);
}

static void expect_refused(fa_infer_args a, fa_shape s, const char *msg)
{
    assert_int_equal(resolve(a, &s), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), msg));
}

static void test_infer_resolve(void **state)
{
    (void)state;
    fa_shape s = fa_shape_default(-1, 64), given = s;
    /* neither --decode nor --cu-seqlens: nothing changes */
    assert_int_equal(resolve((fa_infer_args){.pass = FA_PASS_BWD, .l2 = 1}, &s), FA_OK);
    assert_memory_equal(&s, &given, sizeof s);
    /* decoding: N_q = 1, N_k = 4096 */
    assert_int_equal(resolve((fa_infer_args){.decode = 1, .kv_len = 4096, .splits = 1, .paged = 1, .gqa = 2}, &s), FA_OK);
    assert_int_equal(s.seqlen_q, 1);
    assert_int_equal(s.seqlen_k, 4096);
    /* a given N_q stays; --model leaves N_q unset for varlen (the offsets give it) */
    s = given, s.seqlen_q = 4;
    assert_int_equal(resolve((fa_infer_args){.decode = 1, .kv_len = 77, .model_given = 1}, &s), FA_OK);
    assert_true(s.seqlen_q == 4 && s.seqlen_k == 77);
    s = given;
    assert_int_equal(resolve((fa_infer_args){.varlen = 1, .model_given = 1, .splits = 1}, &s), FA_OK);
    assert_true(s.seqlen_q == -1 && s.seqlen_k == given.seqlen_k);
    expect_refused((fa_infer_args){.cu_k = 1, .decode = 1}, given, "--cu-seqlens-k needs --cu-seqlens");
    expect_refused((fa_infer_args){.kv_len = 8}, given, "--kv-len needs --decode");
    expect_refused((fa_infer_args){.splits = 1}, given, "--splits needs --decode or --cu-seqlens");
    expect_refused((fa_infer_args){.paged = 1}, given, "--page-size needs --decode");
    expect_refused((fa_infer_args){.gqa = 1}, given, "--gqa needs --decode or --cu-seqlens");
    fa_shape w = given;
    w.softcap = 30;
    expect_refused((fa_infer_args){.decode = 1, .kv_len = 8}, w, "support the causal mask only");
    expect_refused((fa_infer_args){.varlen = 1, .mask_files = 1}, given, "support the causal mask only");
    expect_refused((fa_infer_args){.varlen = 1, .trace = 1}, given, "--trace is for the classic algorithms");
    expect_refused((fa_infer_args){.varlen = 1, .l2 = 1}, given, "--l2 is for the classic algorithms");
    expect_refused((fa_infer_args){.decode = 1, .algo_given = 1}, given, "--algo does not apply");
    expect_refused((fa_infer_args){.decode = 1, .kv_len = 8, .pass = FA_PASS_BWD}, given, "it has no backward");
    expect_refused((fa_infer_args){.decode = 1, .varlen = 1, .kv_len = 8}, given, "exclude each other");
    expect_refused((fa_infer_args){.decode = 1}, given, "--decode needs --kv-len N");
    fa_shape k = given;
    k.seqlen_k = 100;
    expect_refused((fa_infer_args){.decode = 1, .kv_len = 8}, k, "not --seqlen-k");
    expect_refused((fa_infer_args){.varlen = 1, .paged = 1}, given, "--page-size is for --decode");
    expect_refused((fa_infer_args){.varlen = 1, .kv_len = 8}, given, "takes key lengths from --cu-seqlens-k");
    fa_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_bytes),
        cmocka_unit_test(test_variants_auto_split),
        cmocka_unit_test(test_cu_seqlens_parse),
        cmocka_unit_test(test_infer_resolve),
        cmocka_unit_test(test_varlen_resolve),
        cmocka_unit_test(test_padded),
        cmocka_unit_test(test_varlen_bwd_io),
        cmocka_unit_test(test_varlen_bwd_check),
        cmocka_unit_test(test_check_size),
        cmocka_unit_test(test_check_paged_equals_contiguous),
        cmocka_unit_test(test_check_varlen),
        cmocka_unit_test(test_decode_table),
    };
    return cmocka_run_group_tests_name("infer", tests, NULL, NULL);
}
