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

/* One L2 behind a counting fa_mem, one fp16 tensor X (rows x cols) and one SRAM buffer of
 * buf_rows rows: the setup every hand-computed case below shares. */
typedef struct {
    fa_l2 *l2;
    fa_mem *mem;
    fa_tensor t;
    fa_buf b;
} l2_fix;

static void fix_open(l2_fix *f, uint64_t capacity, int ways, uint64_t max_transfers, int64_t rows,
                     int64_t cols, int64_t buf_rows)
{
    f->l2 = fa_l2_alloc(capacity, 128, ways, 1, max_transfers);
    assert_non_null(f->l2);
    f->mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 20);
    fa_mem_set_sink(f->mem, fa_l2_sink, f->l2);
    assert_int_equal(fa_tensor_make(f->mem, &f->t, "X", 1, 1, rows, cols, 2, NULL), FA_OK);
    assert_int_equal(fa_sram_alloc(f->mem, &f->b, "buf", buf_rows, cols, 2), FA_OK);
}

static void fix_close(l2_fix *f)
{
    fa_sram_free(&f->b);
    fa_mem_free(f->mem);
    fa_l2_free(f->l2);
}

/* 64 x 64 fp16 = 8192 B = 64 lines of 128 B.  An L2 of 64 KiB holds it: the second read pass
 * hits; a store dirties the lines, which reach DRAM once at the end. */
static void test_l2_hits_and_writeback(void **state)
{
    (void)state;
    l2_fix f;
    fix_open(&f, 65536, 16, 1000, 64, 64, 32);
    assert_false(fa_mem_may_merge(f.mem));
    fa_mem_set_program(f.mem, 0);
    load_all(f.mem, &f.t, &f.b, 0);
    load_all(f.mem, &f.t, &f.b, 0);
    load_all(f.mem, &f.t, &f.b, 1);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(f.l2, &r), FA_OK);
    assert_int_equal(r.l2_read_bytes, 2 * 8192);
    assert_int_equal(r.l2_write_bytes, 8192);
    assert_int_equal(r.dram_read_bytes, 8192);
    assert_int_equal(r.dram_write_bytes, 8192);
    assert_int_equal(r.accesses, 3 * 64);
    assert_int_equal(r.misses, 64);
    fix_close(&f);
}

/* The same two read passes through a 4 KiB, 2-way L2: LRU streaming misses every line twice. */
static void test_l2_thrash(void **state)
{
    (void)state;
    l2_fix f;
    fix_open(&f, 4096, 2, 1000, 64, 64, 32);
    load_all(f.mem, &f.t, &f.b, 0);
    load_all(f.mem, &f.t, &f.b, 0);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(f.l2, &r), FA_OK);
    assert_int_equal(r.dram_read_bytes, 2 * 8192);
    assert_int_equal(r.dram_write_bytes, 0);
    fix_close(&f);
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
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, 1 << 20, &hw, 0, &r), FA_OK);
    assert_int_equal(r.dram_read_bytes, 3 * 153600);
    assert_int_equal(r.dram_write_bytes, 153600 + 9600);
    assert_int_equal(r.counts.hbm_read_bytes, 11 * 153600); /* Q once + T_r = 5 passes over K, V */
    /* Even an 8 KiB L2 serves the re-reads when the 40 thread blocks run at once: the 5 row
     * blocks of a head ask for the same K_j, V_j one after another (the lockstep the model
     * assumes). */
    hw.l2_bytes = 8192;
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, 1 << 20, &hw, 0, &r), FA_OK);
    assert_true(r.l2_slots >= 40); /* 132 SMs x (233472 / SRAM need) blocks each */
    assert_int_equal(r.dram_read_bytes, 3 * 153600);
    /* One thread block at a time: each streams 38400 B of K and V per pass through 8 KiB, so
     * every K/V read misses; only Q_i (read once) is as before. */
    hw.sms = 1;
    hw.sram_per_sm = 1;
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, 1 << 20, &hw, 0, &r), FA_OK);
    assert_int_equal(r.l2_slots, 1);
    assert_int_equal(r.dram_read_bytes, r.counts.hbm_read_bytes);
    /* The kernel's own occupancy overrides the estimate: 5 blocks on the one SM are the 5 row
     * blocks of a head, which share each K_j, V_j again. */
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, 1 << 20, &hw, 5, &r), FA_OK);
    assert_int_equal(r.l2_slots, 5);
    assert_int_equal(r.dram_read_bytes, 3 * 153600);
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, 1 << 20, &hw, 33, &r), FA_EINVAL);
    assert_int_equal(fa_io_l2(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, 1 << 20, &hw, -1, &r), FA_EINVAL);
}

/* One read of row 0 of a 1 x 256 B fp16 tensor (at address 0): lines 0 and 1. */
static void row0(fa_mem *mem, fa_tensor *t, fa_buf *b, int write)
{
    if (write) assert_int_equal(fa_store(mem, t, 0, 0, 0, 1, 0, 128, b), FA_OK);
    else assert_int_equal(fa_load(mem, t, 0, 0, 0, 1, 0, 128, b), FA_OK);
}

/* Runs `ops` (r = read row 0, w = store it) through a 256 B L2 of two 1-way sets, in `parts`
 * partitions, one thread block (slot 0: the SM next to partition 0). */
static fa_l2_result two_lines(int parts, const char *ops)
{
    l2_fix f;
    fix_open(&f, 256, 1, 100, 1, 128, 1);
    assert_int_equal(fa_l2_set_partitions(f.l2, parts), FA_OK);
    fa_mem_set_program(f.mem, 0);
    for (const char *o = ops; *o; o++) row0(f.mem, &f.t, &f.b, *o == 'w');
    fa_l2_result r;
    assert_int_equal(fa_l2_run(f.l2, &r), FA_OK);
    fix_close(&f);
    return r;
}

/* Two partitions: line 0 is homed next to the SM (partition 0), line 1 on the far side
 * (partition 1, parity of the line).  One partition: the two lines sit in sets 0 and 1 and
 * three reads cost two line fills.  Two partitions: each partition has one set of one way;
 * reading line 1 leaves a replica in partition 0, which evicts line 0, and the next read of
 * line 0 evicts the replica: from the second read on, every read misses line 0 once
 * (the replica is refilled from the home copy of line 1, not from DRAM):
 * 2 + 1 + 1 lines = 512 B, misses 2 + 1 + 1 (home misses), accesses 6. */
static void test_l2_partition_replica(void **state)
{
    (void)state;
    fa_l2_result r = two_lines(1, "rrr");
    assert_int_equal(r.dram_read_bytes, 256);
    assert_int_equal(r.misses, 2);
    r = two_lines(2, "rrr");
    assert_int_equal(r.dram_read_bytes, 512);
    assert_int_equal(r.dram_write_bytes, 0);
    assert_int_equal(r.misses, 4);
    assert_int_equal(r.accesses, 6);
}

/* A store goes to the home copy and drops the replica.  Store row 0, read it twice, two
 * partitions: the store allocates line 0 in partition 0 and line 1 in partition 1, both dirty
 * (no fill; misses 2).  Read 1: line 0 hits; line 1 is served by its home copy, and its new
 * replica evicts the dirty line 0 (128 B written).  Read 2: line 0 misses (128 B read) and
 * evicts the clean replica; line 1 comes from its home copy again.  At the end the dirty line 1
 * is flushed (128 B).  DRAM read 128 B, written 256 B, misses 3. */
static void test_l2_partition_store(void **state)
{
    (void)state;
    fa_l2_result r = two_lines(2, "wrr");
    assert_int_equal(r.dram_read_bytes, 128);
    assert_int_equal(r.dram_write_bytes, 256);
    assert_int_equal(r.misses, 3);
    /* one partition: both lines stay; the store's lines are written once at the end */
    r = two_lines(1, "wrr");
    assert_int_equal(r.dram_read_bytes, 0);
    assert_int_equal(r.dram_write_bytes, 256);
    /* partition counts the model does not know, and sets that do not split */
    fa_l2 *l2 = fa_l2_alloc(4096, 128, 2, 1, 10);
    assert_int_equal(fa_l2_set_partitions(l2, 3), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "1 or 2"));
    fa_l2_free(l2);
    l2 = fa_l2_alloc(128, 128, 1, 1, 10); /* one set */
    assert_int_equal(fa_l2_set_partitions(l2, 2), FA_EINVAL);
    fa_l2_free(l2);
}

/* The set index turns by 7919 sets each time the lines wrap around the cache: lines 0, 16 and
 * 32 of a 4 KiB, 2-way L2 (16 sets) go to sets 0, (16 + 7919) mod 16 = 15 and
 * (32 + 2 x 7919) mod 16 = 14, so reading the three twice misses 3 lines (384 B); with
 * line mod 16 all three would share set 0's two ways and LRU would miss all 6. */
static void test_l2_set_skew(void **state)
{
    (void)state;
    l2_fix f;
    fix_open(&f, 4096, 2, 100, 64, 64, 1);
    for (int pass = 0; pass < 2; pass++)
        for (int64_t row = 0; row <= 32; row += 16)
            assert_int_equal(fa_load(f.mem, &f.t, 0, 0, row, 1, 0, 64, &f.b), FA_OK);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(f.l2, &r), FA_OK);
    assert_int_equal(r.dram_read_bytes, 3 * 128);
    assert_int_equal(r.misses, 3);
    fix_close(&f);
}

static void test_l2_limit(void **state)
{
    (void)state;
    l2_fix f;
    fix_open(&f, 65536, 16, 3, 64, 64, 32);
    load_all(f.mem, &f.t, &f.b, 0);
    load_all(f.mem, &f.t, &f.b, 0);
    fa_l2_result r;
    assert_int_equal(fa_l2_run(f.l2, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "exceed its limit"));
    fix_close(&f);
    assert_null(fa_l2_alloc(100, 128, 16, 1, 10));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_l2_hits_and_writeback),
        cmocka_unit_test(test_l2_thrash),
        cmocka_unit_test(test_l2_flash2_reads_qkv_once),
        cmocka_unit_test(test_l2_partition_replica),
        cmocka_unit_test(test_l2_partition_store),
        cmocka_unit_test(test_l2_set_skew),
        cmocka_unit_test(test_l2_limit),
    };
    return cmocka_run_group_tests_name("l2", tests, NULL, NULL);
}
