/* test_explain.c -- analysis/explain.c: the forward closed form term by term equals the memory
 * model's count (B H x the slice's sum), for the three algorithms, with and without a causal mask
 * of either anchor, on tiles that do and do not divide N; and a hand-computed slice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fa_explain.h"
#include "fa_perf.h"

static void test_equals_counts(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    static const struct { int64_t Nq, Nk, d, br, bc; } cases[] = {
        {300, 257, 64, 32, 48}, {128, 128, 32, 64, 64}, {67, 45, 16, 16, 32}, {1, 1000, 64, 16, 128}};
    int checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int causal = 0; causal < 3; causal++)
            for (int a = 0; a < FA_NALGO; a++) {
                fa_shape s = fa_shape_default(cases[c].Nq, cases[c].d);
                s.seqlen_k = cases[c].Nk;
                s.batch = 2, s.heads = s.kv_heads = 3;
                s.causal = (fa_causal)causal;
                fa_blocks bk = {cases[c].br, cases[c].bc};
                fa_fwd_terms x;
                assert_int_equal(fa_explain_forward((fa_algo)a, &s, bk, &x), FA_OK);
                uint64_t sum = 0;
                for (int k = 0; k < x.n; k++) sum += x.t[k].value;
                assert_int_equal(sum, x.slice);
                fa_io_result r;
                assert_int_equal(fa_io_run(FA_PASS_FWD, (fa_algo)a, &s, bk, 1u << 30, &hw, NULL, &r), FA_OK);
                if (fa_counts_hbm_bytes(&r.counts) != 6 * x.slice)
                    fail_msg("%s N_q %lld N_k %lld causal %d: counted %llu, terms 6 x %llu", fa_algo_name((fa_algo)a),
                             (long long)s.seqlen_q, (long long)s.seqlen_k, causal,
                             (unsigned long long)fa_counts_hbm_bytes(&r.counts), (unsigned long long)x.slice);
                checked++;
            }
    assert_int_equal(checked, 36);
}

static void test_hand_computed(void **st)
{
    (void)st;
    /* flash2, N_q = N_k = 128, d = 64, fp16, 64 x 64 tiles, no mask: Q 128*64*2 = 16384, K and V
     * T_r*N_k*d*e = 2*128*64*2 = 32768 each, O 16384, LSE 4*128 = 512: 98816 B */
    fa_shape s = fa_shape_default(128, 64);
    fa_fwd_terms x;
    fa_blocks bk = {64, 64};
    assert_int_equal(fa_explain_forward(FA_ALGO_FLASH2, &s, bk, &x), FA_OK);
    assert_int_equal(x.n, 5);
    assert_int_equal(x.krows, 256);
    assert_int_equal(x.slice, 16384 + 2 * 32768 + 16384 + 512);
    assert_string_equal(x.t[1].symbol, "K_rows*d*e");
    assert_string_equal(x.t[1].numbers, "256*64*2");
    /* standard: a row of 128 keys in two 64-key tiles: the softmax reads S twice (p = 2) */
    assert_int_equal(fa_explain_forward(FA_ALGO_STANDARD, &s, bk, &x), FA_OK);
    assert_int_equal(x.p, 2);
    bk.block_c = 128;
    assert_int_equal(fa_explain_forward(FA_ALGO_STANDARD, &s, bk, &x), FA_OK);
    assert_int_equal(x.p, 1);
    bk.block_r = 0;
    assert_int_equal(fa_explain_forward(FA_ALGO_FLASH1, &s, bk, &x), FA_EINVAL);
    fa_clear_error();
}

/* fa_explain_run's tiles and counts, FlashAttention-2's forward at N = 256, d = 64, fp16, one slice:
 * Q read once, K and V T_r times, O written once, LSE (4 B a row) once, so T_r = 4 (B_r = 64) moves
 * 32768 + 2 x 4 x 32768 + 32768 + 1024 = 328704 B and T_r = 2 (the fa2 profile's 128 x 128 on the
 * H200) 32768 + 2 x 2 x 32768 + 32768 + 1024 = 197632 B. */
static void test_explain_run(void **st)
{
    (void)st;
    fa_run_config c;
    memset(&c, 0, sizeof c);
    c.shape = fa_shape_default(256, 64);
    c.shape.dtype = FA_DTYPE_FP16;
    c.pass = FA_PASS_FWD;
    assert_int_equal(fa_hw_load("h200", NULL, &c.hw), FA_OK);
    c.sram = c.hw.sram_per_block;
    fa_blocks bk;
    fa_io_result r;
    char rule[64];
    fa_tile_rule used;
    c.rule = FA_TILES_EXPLICIT, c.block_r = 64, c.block_c = 64;
    assert_int_equal(fa_explain_run(&c, FA_ALGO_FLASH2, &bk, &r, rule, sizeof rule, &used), FA_OK);
    assert_string_equal(rule, "--block-r/--block-c");
    assert_int_equal(used, FA_TILES_EXPLICIT);
    assert_true(bk.block_r == 64 && bk.block_c == 64);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 328704);
    /* the profile's table: fa2 runs 128 x 128 tiles at d = 64 on the H200 */
    c.rule = FA_TILES_PROFILE;
    assert_int_equal(fa_explain_run(&c, FA_ALGO_FLASH2, &bk, &r, rule, sizeof rule, &used), FA_OK);
    assert_string_equal(rule, "the fa2 profile's tile table");
    assert_int_equal(used, FA_TILES_PROFILE);
    assert_true(bk.block_r == 128 && bk.block_c == 128);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 197632);
    /* fwdbwd: each pass on its own tiles of the table, as fasim io (issue 18, the fourth reader):
     * the forward's 197632 B above plus the backward's at 128 x 128 (T_c = 2): Q and dO read per key
     * block (2 x 32768 each, dO once more for D), K, V, O once (32768 each), LSE and D read per key
     * block (2 x 1024 each) and D written once (1024), dQacc (4 B a value, 65536) read and written per
     * key block and once more (2 x 3 x 65536), dQ, dK, dV written once (32768 each): 758784 B */
    c.pass = FA_PASS_FWDBWD;
    assert_int_equal(fa_explain_run(&c, FA_ALGO_FLASH2, &bk, &r, rule, sizeof rule, &used), FA_OK);
    assert_string_equal(rule, "the fa2 profile's tile table");
    assert_int_equal(used, FA_TILES_PROFILE);
    assert_true(bk.block_r == 128 && bk.block_c == 128 && r.blocks_bwd.block_r == 128 && r.blocks_bwd.block_c == 128);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), r.formula.read_bytes + r.formula.write_bytes);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 197632 + 2 * 32768 + 3 * 32768 + 3 * 32768 + 5 * 1024 +
                                                         6 * 65536 + 3 * 32768);
    /* a grid that would not fill the GPU: FlashAttention-2's split-KV kernel, as fasim io counts it.
     * N = 4096: 64 row blocks of 64 < 0.8 x 2 x 132, so S = 4 splits of 64 x 256 tiles (T_r = 64, T_c =
     * 16, 4 tiles a chunk): Q read once per chunk 4 x 4096 x 64 x 2, K and V T_r N_k d e each, O_part
     * written and read S N_q d_v 4, LSE_part S N_q 4, O and LSE written by the combine */
    c.pass = FA_PASS_FWD;
    c.shape = fa_shape_default(4096, 64);
    c.shape.dtype = FA_DTYPE_FP16;
    assert_int_equal(fa_explain_run(&c, FA_ALGO_FLASH2, &bk, &r, rule, sizeof rule, &used), FA_OK);
    assert_true(bk.block_r == 64 && bk.block_c == 256 && r.splits == 4);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 4 * 4096 * 64 * 2 + 2 * 64 * 4096 * 64 * 2 + 2 * 4 * 4096 * 64 * 4 +
                                                         2 * 4 * 4096 * 4 + 4096 * 64 * 2 + 4096 * 4);
    fa_fwd_terms x;
    assert_int_equal(fa_explain_forward_split(FA_ALGO_FLASH2, &c.shape, bk, 4, &x), FA_OK);
    assert_int_equal(x.slice, fa_counts_hbm_bytes(&r.counts));
    assert_int_equal(x.qsplit, 4 * 4096);
    assert_int_equal(fa_explain_forward_split(FA_ALGO_FLASH1, &c.shape, bk, 4, &x), FA_EINVAL);
    fa_clear_error();
    c.shape = fa_shape_default(256, 64);
    c.shape.dtype = FA_DTYPE_FP16;
    /* --blocks paper: B_c = ceil(M / 4d) = 908, clamped to N = 256; B_r = min(B_c, d) = 64: T_r = 4 again */
    c.pass = FA_PASS_FWD, c.rule = FA_TILES_PAPER;
    assert_int_equal(fa_explain_run(&c, FA_ALGO_FLASH2, &bk, &r, rule, sizeof rule, &used), FA_OK);
    assert_string_equal(rule, "--blocks paper");
    assert_int_equal(used, FA_TILES_PAPER);
    assert_true(bk.block_r == 64 && bk.block_c == 256);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 328704);
    /* tiles over M: the paper's model refuses them */
    c.rule = FA_TILES_EXPLICIT, c.sram = 4096;
    assert_int_equal(fa_explain_run(&c, FA_ALGO_FLASH2, &bk, &r, rule, sizeof rule, &used), FA_ENOSRAM);
    fa_clear_error();
}

/* The derivation's prose at N = 256, d = 64, fp16, 64 x 64 tiles (T_r = T_c = 4): unmasked, flash1
 * visits T_c N_q = 1024 query rows and flash2 loads T_r N_k = 1024 keys; causal (bottom-right, N_q =
 * N_k), key block j is seen by row blocks j .. 3 and row block i sees i + 1 key blocks, so both are
 * 256 + 192 + 128 + 64 = 640.  The bounds: standard's B H (N_q d + N_q N_k) e = (16384 + 65536) 2 =
 * 163840 B against a count of 983040 B (Q 32768, K and V 4 x 32768 each, S written once and read
 * twice, P written and read, 131072 each, O 32768): 6; flash2's N_q N_k d^2 e^2 / M = 256^2 64^2 2^2
 * / 232448 = 4619.3 B against 328704 B: 71.2. */
/* whose tiles a FA_TILES_PROFILE bound names (fa_explain_bound_text's tiles_from; NULL: the real kernel) */
static const char *text_tiles_from;
/* bound 0: the derivation's prose; else the bound's, with the tiles chosen by rule bound - 1 */
static char *text_of(fa_algo a, fa_causal causal, int bound)
{
    fa_shape s = fa_shape_default(256, 64);
    s.dtype = FA_DTYPE_FP16;
    s.causal = causal;
    const fa_blocks bk = {64, 64};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (bound) {
        fa_hw hw;
        fa_io_result r;
        assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
        assert_int_equal(fa_io_run(FA_PASS_FWD, a, &s, bk, 232448, &hw, NULL, &r), FA_OK);
        fa_explain_bound_text(f, FA_PASS_FWD, a, &s, &r, bk, (fa_tile_rule)(bound - 1), text_tiles_from);
    } else {
        fa_fwd_terms x;
        assert_int_equal(fa_explain_forward(a, &s, bk, &x), FA_OK);
        fa_explain_forward_text(f, a, &s, bk, &x);
    }
    fclose(f);
    return buf;
}

static void expect_text(fa_algo a, fa_causal causal, int bound, const char *want)
{
    char *t = text_of(a, causal, bound);
    if (!strstr(t, want)) fprintf(stderr, "missing \"%s\" in:\n%s", want, t);
    assert_non_null(strstr(t, want));
    free(t);
}

static void test_prose(void **st)
{
    (void)st;
    expect_text(FA_ALGO_STANDARD, FA_CAUSAL_NONE, 0, "p = 2: the softmax reads S twice");
    expect_text(FA_ALGO_FLASH1, FA_CAUSAL_NONE, 0, "V_rows = query rows over all visits = T_c*N_q = 4*256 = 1024");
    expect_text(FA_ALGO_FLASH1, FA_CAUSAL_BOTTOM_RIGHT, 0, "V_rows = sum_j (N_q - i_lo(j)*B_r) = 640 (instead of T_c*N_q = 1024)");
    expect_text(FA_ALGO_FLASH1, FA_CAUSAL_BOTTOM_RIGHT, 0, "are loaded: 256 of 256 keys");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 0, "K_rows = keys loaded over all row blocks = T_r*N_k = 4*256 = 1024");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_BOTTOM_RIGHT, 0, "K_rows = sum_i min(N_k, n_visit(i)*B_c) = 640 (instead of T_r*N_k = 1024)");
    expect_text(FA_ALGO_STANDARD, FA_CAUSAL_NONE, 1, "B*H*(N_q*d + N_q*N_k)*e = 163840 B (160 KiB)");
    expect_text(FA_ALGO_STANDARD, FA_CAUSAL_NONE, 1, "counted / Theta = 6:");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1, "= 256*256*64^2*2^2/232448 = 4619.3 B (4.511 KiB)");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1, "with B = B_r = 64;");
    /* N = 256, d = 64: N d e = 32768 < M, outside Theorem 2's range: the compulsory bytes named,
     * and the ratio no constant */
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1, "counted / Theta = 71.2 is no constant of the algorithm (outside the range)");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1, "M = 232448 B is outside Theorem 2's range d <= M <= N d (in bytes d e = 128 to N d e = 32768");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1, "compulsory bytes, Q, K, V, O once, 131072 B (128 KiB): counted / compulsory = 2.51");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1 + FA_TILES_FIT, "Here B is limited by\n  the SRAM budget");
    /* issue 18: tiles given by --block-r/--block-c are not "limited": 64 x 64 need 57856 of 232448 B */
    char *t = text_of(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1 + FA_TILES_EXPLICIT);
    assert_null(strstr(t, "limited"));
    assert_non_null(strstr(t, "Here the tiles were given\n  (--block-r/--block-c), not chosen to fill M: they need 57856 of M = 232448 B"));
    assert_non_null(strstr(t, "counted / Theta = 71.2 is no constant (outside the range) (a larger B_r that fits M lowers it)"));
    free(t);
    t = text_of(FA_ALGO_FLASH1, FA_CAUSAL_NONE, 1 + FA_TILES_EXPLICIT);
    assert_non_null(strstr(t, "(a larger B_c that fits M lowers it)"));
    free(t);
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1 + FA_TILES_PAPER, "(--blocks paper: B_c = ceil(M/(4*d*e)), B_r = min(B_c, d), each at most N)");
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1 + FA_TILES_PROFILE, "profile's (its tile table: the tiles the real kernel runs, not sized to M)");
    /* a profile that names whose tiles its table holds (fa_profile.tiles_from: fa3's) */
    text_tiles_from = fa_profile_find("fa3")->tiles_from;
    expect_text(FA_ALGO_FLASH2, FA_CAUSAL_NONE, 1 + FA_TILES_PROFILE,
                "profile's (its tile table: the tiles FlashAttention-3 at 0251105a runs,\n  not sized to M), so counted / Theta");
    text_tiles_from = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_equals_counts), cmocka_unit_test(test_explain_run), cmocka_unit_test(test_prose), cmocka_unit_test(test_hand_computed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
