/* test_run.c -- analysis/run.c (fa_run.h): the tile rules on hand-computed cases, and a run's
 * fallback to the paper's model where the algorithm's kernel cannot run the shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fa_run.h"

static fa_run_config config(int64_t N, int64_t d, fa_dtype t)
{
    fa_run_config c;
    memset(&c, 0, sizeof c);
    c.shape = fa_shape_default(N, d);
    c.shape.dtype = t;
    c.pass = FA_PASS_FWD;
    assert_int_equal(fa_hw_load("h200", NULL, &c.hw), FA_OK);
    c.sram = c.hw.sram_per_block;
    return c;
}

static void test_tile_rules(void **st)
{
    (void)st;
    fa_run_config c = config(1024, 64, FA_DTYPE_FP16);
    fa_blocks bk;
    uint64_t over = 1;
    /* explicit: as given */
    c.rule = FA_TILES_EXPLICIT, c.block_r = 48, c.block_c = 80;
    assert_int_equal(fa_run_tiles(&c, &bk, &over), FA_OK);
    assert_int_equal(bk.block_r, 48);
    assert_int_equal(bk.block_c, 80);
    assert_int_equal(over, 0);
    /* the paper's Algorithm 1 line 1 with M = 65536 B of fp16 (32768 elements): B_c = ceil(M / 4d)
     * = 128, B_r = min(B_c, d) = 64 */
    c.rule = FA_TILES_PAPER, c.sram = 65536;
    assert_int_equal(fa_run_tiles(&c, &bk, &over), FA_OK);
    assert_int_equal(bk.block_c, 128);
    assert_int_equal(bk.block_r, 64);
    uint64_t need = 0;
    for (int a = 0; a < FA_NALGO; a++) {
        uint64_t n = fa_sram_need_pass(FA_PASS_FWD, (fa_algo)a, &c.shape, bk);
        if (n > need) need = n;
    }
    assert_int_equal(over, need > 65536 ? need - 65536 : 0);
    /* fit: the largest square multiple of 16 whose buffers fit M (227 KiB): 160 x 160 (the next,
     * 176, does not) */
    c.rule = FA_TILES_FIT, c.sram = c.hw.sram_per_block;
    assert_int_equal(fa_run_tiles(&c, &bk, &over), FA_OK);
    assert_int_equal(bk.block_r, 160);
    assert_int_equal(bk.block_c, 160);
    assert_true(fa_sram_need_pass(FA_PASS_FWD, FA_ALGO_FLASH2, &c.shape, bk) <= c.sram);
    fa_blocks next = {176, 176};
    assert_true(fa_sram_need_pass(FA_PASS_FWD, FA_ALGO_FLASH2, &c.shape, next) > c.sram);
    /* profile: FlashAttention-2's CUDA tile table (kernel_traits: <64, 128, 128, 4> and
     * <128, 128, 64, 4> forward; 64 x 128 backward at d = 128) */
    c.rule = FA_TILES_PROFILE;
    assert_int_equal(fa_run_tiles(&c, &bk, &over), FA_OK);
    assert_int_equal(bk.block_r, 128);
    assert_int_equal(bk.block_c, 128);
    c.shape.d = c.shape.d_v = 128;
    assert_int_equal(fa_run_tiles(&c, &bk, &over), FA_OK);
    assert_int_equal(bk.block_r, 128);
    assert_int_equal(bk.block_c, 64);
    c.pass = FA_PASS_BWD;
    assert_int_equal(fa_run_tiles(&c, &bk, &over), FA_OK);
    assert_int_equal(bk.block_r, 64);
    assert_int_equal(bk.block_c, 128);
}

static void test_fallback(void **st)
{
    (void)st;
    /* fp32 on the default flash2 kernel (mma.sync, 16-bit inputs): counted in the paper's model
     * with --blocks fit, and the note says so */
    fa_run_config c = config(256, 64, FA_DTYPE_FP32);
    c.rule = FA_TILES_PROFILE;
    fa_io_result r;
    assert_int_equal(fa_run_algo(&c, FA_ALGO_FLASH2, NULL, &r), FA_OK);
    assert_non_null(strstr(r.perf_note, "counted in the paper's model"));
    assert_string_equal(r.profile, "");
    fa_run_config f = c;
    f.rule = FA_TILES_FIT;
    fa_blocks bk;
    uint64_t over;
    assert_int_equal(fa_run_tiles(&f, &bk, &over), FA_OK);
    assert_int_equal(r.blocks.block_r, bk.block_r);
    assert_int_equal(r.blocks.block_c, bk.block_c);
    /* the same counts as fa_io_run on those tiles */
    fa_io_result direct;
    assert_int_equal(fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &c.shape, bk, c.sram, &c.hw, NULL, &direct), FA_OK);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), fa_counts_hbm_bytes(&direct.counts));
    /* asked for by name, the kernel refuses instead */
    c.profile = fa_profile_find("fa2");
    assert_int_equal(fa_run_algo(&c, FA_ALGO_FLASH2, NULL, &r), FA_EINVAL);
    fa_clear_error();
    /* bf16 runs the kernel: its tiles and a time (a grid of 16 x 16 x 8 blocks: no split-KV) */
    c = config(1024, 64, FA_DTYPE_BF16);
    c.shape.batch = c.shape.heads = c.shape.kv_heads = 16;
    c.rule = FA_TILES_PROFILE;
    assert_int_equal(fa_run_algo(&c, FA_ALGO_FLASH2, NULL, &r), FA_OK);
    assert_true(r.has_perf);
    assert_string_equal(r.profile, "fa2");
    assert_int_equal(r.blocks.block_r, 128);
    assert_int_equal(r.splits, 1);
    assert_true(r.perf_time_s > 0);
    /* one head of N = 1024 fills 8 of 2 x 132 slots: FlashAttention-2 splits the keys */
    c.shape.batch = c.shape.heads = c.shape.kv_heads = 1;
    assert_int_equal(fa_run_algo(&c, FA_ALGO_FLASH2, NULL, &r), FA_OK);
    assert_true(r.splits > 1);
}

/* fa_run_l2 replays the forward's tiles with M at least the paper's SRAM need, as fa_io_l2 on
 * the same arguments; fwdbwd with a forward and a backward tile that differ is refused. */
static void test_l2(void **st)
{
    (void)st;
    fa_run_config c = config(2048, 64, FA_DTYPE_FP16);
    c.rule = FA_TILES_EXPLICIT, c.block_r = 128, c.block_c = 64;
    fa_io_result r, x;
    assert_int_equal(fa_run_algo(&c, FA_ALGO_FLASH2, NULL, &r), FA_OK);
    x = r;
    assert_int_equal(fa_run_l2(&c, FA_ALGO_FLASH2, &r), FA_OK);
    const fa_blocks bk = {128, 64};
    const uint64_t need = fa_sram_need_pass(FA_PASS_FWD, FA_ALGO_FLASH2, &c.shape, bk);
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &c.shape, bk, 1, need > x.sram_bytes ? need : x.sram_bytes, &c.hw,
                              x.occupancy[0], &x), FA_OK);
    assert_int_equal(r.has_l2, 1);
    assert_int_equal(r.dram_read_bytes, x.dram_read_bytes);
    assert_int_equal(r.dram_write_bytes, x.dram_write_bytes);
    /* every byte of O and LSE reaches DRAM once: N d_v e + 4 N */
    assert_true(r.dram_write_bytes >= 2048ull * 64 * 2 + 4 * 2048);
    c.pass = FA_PASS_FWDBWD;
    r.blocks = (fa_blocks){128, 64}, r.blocks_bwd = (fa_blocks){64, 128};
    snprintf(r.profile, sizeof r.profile, "fa2");
    assert_int_equal(fa_run_l2(&c, FA_ALGO_FLASH2, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "the fa2 profile's forward and backward tiles differ"));
    fa_clear_error();
}

/* fasim sweep's counts (fa_run_counts): FlashAttention-2's forward at N = 256, d = 64, fp16 on
 * 64 x 64 tiles moves Q once, K and V T_r = 4 times, O and LSE once: 32768 + 2 x 4 x 32768 + 32768
 * + 1024 = 328704 B.  --blocks paper at M = 4096: B_c = ceil(M / 4de) = ceil(4096 / 512) = 8,
 * B_r = min(8, d) = 8, so T_r = 32 (32768 + 2 x 32 x 32768 + 32768 + 1024 = 2163712 B), and the
 * pass's largest buffers (flash1's and flash2's: Q_i, K_j, V_j 3 x 1024, S_ij 256, O_i 2048, m_i,
 * l_i 64: 5440 B) exceed M by 1344 B. */
static void test_counts(void **st)
{
    (void)st;
    fa_run_config c = config(256, 64, FA_DTYPE_FP16);
    c.rule = FA_TILES_EXPLICIT, c.block_r = 64, c.block_c = 64;
    fa_io_result r;
    assert_int_equal(fa_run_counts(&c, FA_ALGO_FLASH2, 0, &r), FA_OK);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 328704);
    assert_int_equal(r.sram_overflow, 0);
    assert_false(r.has_perf);
    assert_false(r.has_l2);
    c.rule = FA_TILES_PAPER, c.sram = 4096;
    assert_int_equal(fa_run_counts(&c, FA_ALGO_FLASH2, 1, &r), FA_OK);
    assert_true(r.blocks.block_r == 8 && r.blocks.block_c == 8);
    assert_int_equal(fa_counts_hbm_bytes(&r.counts), 2163712);
    assert_int_equal(r.sram_overflow, 1344);
    assert_true(r.has_l2);
    assert_true(r.dram_write_bytes >= 32768 + 1024); /* O and LSE reach DRAM */
    /* tiles over M without the paper rule's growth: refused */
    c.rule = FA_TILES_EXPLICIT;
    assert_int_equal(fa_run_counts(&c, FA_ALGO_FLASH2, 0, &r), FA_ENOSRAM);
    fa_clear_error();
}

/* --trace's limit: 8 transfers a tile, 16 x 16 tiles: N = 40000 gives 2500^2 tiles, 5e7 transfers
 * (the limit itself); N = 40001 2501^2 of them, over it. */
static void test_trace_check(void **st)
{
    (void)st;
    fa_run_config c = config(40000, 64, FA_DTYPE_FP16);
    c.rule = FA_TILES_EXPLICIT, c.block_r = 16, c.block_c = 16;
    assert_int_equal(fa_run_trace_check(&c), FA_OK);
    c.shape.seqlen_q = c.shape.seqlen_k = 40001;
    assert_int_equal(fa_run_trace_check(&c), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--trace would hold about 5e+07 transfers (limit 50000000): use a smaller shape");
    c.shape.batch = 2; /* twice the tiles */
    assert_int_equal(fa_run_trace_check(&c), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "about 1e+08 transfers"));
    fa_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tile_rules), cmocka_unit_test(test_fallback), cmocka_unit_test(test_l2),
                                       cmocka_unit_test(test_counts), cmocka_unit_test(test_trace_check)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
