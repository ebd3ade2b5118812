/* test_l2.c -- the L2 cache model: hand-computed hits, misses and write-backs, and the
 * FlashAttention-2 case where an L2 that holds K and V leaves DRAM with Q + K + V once. */
#include "testutil.h"
#include "fa_l2.h"

static void load_all(fa_mem *mem, fa_tensor *t, fa_buf *b, int write)
{
    for (int64_t r0 = 0; r0 < t->shape[2]; r0 += 32) {
        if (write) assert_int_equal(fa_store(mem, t, 0, 0, r0, 32, 0, t->shape[3], b), FA_OK);
        else assert_int_equal(fa_load(mem, t, 0, 0, r0, 32, 0, t->shape[3], b), FA_OK);
    }
}

/* 64 x 64 fp16 = 8192 B = 64 lines of 128 B.  An L2 of 64 KiB holds it: the second read pass
 * hits; a store dirties the lines, which reach DRAM once at the end. */
static void test_l2_hits_and_writeback(void **state)
{
    (void)state;
    fa_l2 *l2 = fa_l2_alloc(65536, 128, 16, 1, 1000);
    assert_non_null(l2);
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 20);
    fa_mem_set_sink(mem, fa_l2_sink, l2);
    assert_false(fa_mem_may_merge(mem));
    fa_tensor t;
    fa_buf b;
    assert_int_equal(fa_tensor_make(mem, &t, "X", 1, 1, 64, 64, 2, NULL), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &b, "buf", 32, 64, 2), FA_OK);
    fa_mem_set_program(mem, 0);
    load_all(mem, &t, &b, 0);
    load_all(mem, &t, &b, 0);
    load_all(mem, &t, &b, 1);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(l2, &r), FA_OK);
    assert_int_equal(r.l2_read_bytes, 2 * 8192);
    assert_int_equal(r.l2_write_bytes, 8192);
    assert_int_equal(r.dram_read_bytes, 8192);
    assert_int_equal(r.dram_write_bytes, 8192);
    assert_int_equal(r.accesses, 3 * 64);
    assert_int_equal(r.misses, 64);
    fa_sram_free(&b);
    fa_mem_free(mem);
    fa_l2_free(l2);
}

/* The same two read passes through a 4 KiB, 2-way L2: LRU streaming misses every line twice. */
static void test_l2_thrash(void **state)
{
    (void)state;
    fa_l2 *l2 = fa_l2_alloc(4096, 128, 2, 1, 1000);
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 20);
    fa_mem_set_sink(mem, fa_l2_sink, l2);
    fa_tensor t;
    fa_buf b;
    assert_int_equal(fa_tensor_make(mem, &t, "X", 1, 1, 64, 64, 2, NULL), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &b, "buf", 32, 64, 2), FA_OK);
    load_all(mem, &t, &b, 0);
    load_all(mem, &t, &b, 0);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(l2, &r), FA_OK);
    assert_int_equal(r.dram_read_bytes, 2 * 8192);
    assert_int_equal(r.dram_write_bytes, 0);
    fa_sram_free(&b);
    fa_mem_free(mem);
    fa_l2_free(l2);
}

/* flash2 with an L2 that holds everything: DRAM reads are Q, K, V once, writes O and LSE once,
 * although SRAM <- L2 reads K and V T_r times.  2 x 4 heads, N = 300, d = 32, fp16:
 * Q = K = V = O = 153600 B (1200 lines each), LSE = 9600 B (75 lines). */
static void test_l2_flash2_reads_qkv_once(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    fa_shape s = fa_shape_default(300, 32);
    s.batch = 2;
    s.heads = 4;
    s.kv_heads = 4;
    fa_blocks bk = {64, 32};
    fa_io_result r;
    assert_int_equal(fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1 << 20, &hw, NULL, &r), FA_OK);
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1 << 20, &hw, &r), FA_OK);
    assert_int_equal(r.dram_read_bytes, 3 * 153600);
    assert_int_equal(r.dram_write_bytes, 153600 + 9600);
    assert_int_equal(r.counts.hbm_read_bytes, 11 * 153600); /* Q once + T_r = 5 passes over K, V */
    /* Even an 8 KiB L2 serves the re-reads when the 40 thread blocks run at once: the 5 row
     * blocks of a head ask for the same K_j, V_j one after another (the lockstep the model
     * assumes). */
    hw.l2_bytes = 8192;
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1 << 20, &hw, &r), FA_OK);
    assert_true(r.l2_slots >= 40); /* 132 SMs x (233472 / SRAM need) blocks each */
    assert_int_equal(r.dram_read_bytes, 3 * 153600);
    /* One thread block at a time: each streams 38400 B of K and V per pass through 8 KiB, so
     * every K/V read misses; only Q_i (read once) is as before. */
    hw.sms = 1;
    hw.sram_per_sm = 1;
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1 << 20, &hw, &r), FA_OK);
    assert_int_equal(r.l2_slots, 1);
    assert_int_equal(r.dram_read_bytes, r.counts.hbm_read_bytes);
}

static void test_l2_limit(void **state)
{
    (void)state;
    fa_l2 *l2 = fa_l2_alloc(65536, 128, 16, 1, 3);
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 20);
    fa_mem_set_sink(mem, fa_l2_sink, l2);
    fa_tensor t;
    fa_buf b;
    assert_int_equal(fa_tensor_make(mem, &t, "X", 1, 1, 64, 64, 2, NULL), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &b, "buf", 32, 64, 2), FA_OK);
    load_all(mem, &t, &b, 0);
    load_all(mem, &t, &b, 0);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(l2, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "exceed its limit"));
    fa_sram_free(&b);
    fa_mem_free(mem);
    fa_l2_free(l2);
    assert_null(fa_l2_alloc(100, 128, 16, 1, 10));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_l2_hits_and_writeback),
        cmocka_unit_test(test_l2_thrash),
        cmocka_unit_test(test_l2_flash2_reads_qkv_once),
        cmocka_unit_test(test_l2_limit),
    };
    return cmocka_run_group_tests_name("l2", tests, NULL, NULL);
}
