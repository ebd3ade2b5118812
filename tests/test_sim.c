/* test_sim.c -- the memory model (sim/): SRAM arena, counted transfers, weights, overflow,
 * the transfer trace, numeric copies, hardware profiles and byte sizes.  Every expected
 * number is computed by hand in the comment beside it. */
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

#ifndef FASIM_HW_DIR
#define FASIM_HW_DIR "sim/hw"
#endif

/* ---- SRAM arena ---- */

static void test_sram_strict_capacity(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1000);
    assert_non_null(mem);
    assert_int_equal(fa_mem_sram_capacity(mem), 1000);
    fa_buf q, s;
    /* Q_i: 10 x 8 x 2 B = 160 B */
    assert_int_equal(fa_sram_alloc(mem, &q, "Q_i", 10, 8, 2), FA_OK);
    assert_int_equal(q.bytes, 160);
    assert_int_equal(fa_mem_sram_used(mem), 160);
    /* S_ij: 16 x 16 x 4 B = 1024 B > 1000 - 160 = 840 B left */
    assert_int_equal(fa_sram_alloc(mem, &s, "S_ij", 16, 16, 4), FA_ENOSRAM);
    const char *msg = fa_last_error();
    assert_non_null(strstr(msg, "S_ij"));
    assert_non_null(strstr(msg, "1024 B"));
    assert_non_null(strstr(msg, "160 B in use"));
    assert_non_null(strstr(msg, "M = 1000 B"));
    assert_string_equal(fa_strerror(FA_ENOSRAM), "SRAM capacity exceeded");
    /* a failed allocation takes nothing and leaves a buffer that frees harmlessly */
    assert_int_equal(fa_mem_sram_used(mem), 160);
    assert_null(s.mem);
    fa_sram_free(&s);
    assert_int_equal(fa_mem_sram_used(mem), 160);
    /* exactly the bytes left fit: 840 = 210 x 1 x 4 */
    assert_int_equal(fa_sram_alloc(mem, &s, "rest", 210, 1, 4), FA_OK);
    assert_int_equal(fa_mem_sram_used(mem), 1000);
    /* one byte more does not */
    fa_buf one;
    assert_int_equal(fa_sram_alloc(mem, &one, "one", 1, 1, 1), FA_ENOSRAM);
    assert_non_null(strstr(fa_last_error(), "1000 B in use"));
    fa_sram_free(&s);
    fa_sram_free(&q);
    assert_int_equal(fa_mem_sram_used(mem), 0);
    fa_mem_free(mem);
}

static void test_sram_bad_sizes(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 20);
    fa_buf b;
    assert_int_equal(fa_sram_alloc(mem, &b, "zero", 0, 4, 4), FA_EINVAL);
    assert_int_equal(fa_sram_alloc(mem, &b, "neg", 4, -1, 4), FA_EINVAL);
    assert_int_equal(fa_sram_alloc(mem, &b, "elem", 4, 4, 0), FA_EINVAL);
    /* rows x cols x e overflowing 64 bits is an overflow, not a wrap to a small size */
    assert_int_equal(fa_sram_alloc(mem, &b, "huge", INT64_MAX, 4, 4), FA_EOVERFLOW);
    assert_int_equal(fa_mem_sram_used(mem), 0);
    fa_mem_free(mem);
    /* M = 0 is refused */
    assert_null(fa_mem_alloc(FA_MODE_COUNT, 0));
    assert_non_null(strstr(fa_last_error(), "M must be > 0"));
}

static void test_sram_peak_and_free(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 1000);
    fa_buf a, b, c, d;
    assert_int_equal(fa_sram_alloc(mem, &a, "A", 100, 1, 4), FA_OK); /* 400 */
    assert_int_equal(fa_sram_alloc(mem, &b, "B", 75, 2, 2), FA_OK);  /* 300, used 700 */
    assert_non_null(a.data);
    assert_int_equal(fa_mem_counts(mem)->sram_peak_bytes, 700);
    fa_sram_free(&a); /* used 300: free returns the 400 bytes */
    assert_int_equal(fa_mem_sram_used(mem), 300);
    assert_null(a.mem);
    fa_sram_free(&a); /* a second free is harmless */
    assert_int_equal(fa_mem_sram_used(mem), 300);
    assert_int_equal(fa_sram_alloc(mem, &c, "C", 50, 1, 4), FA_OK); /* 200, used 500 */
    assert_int_equal(fa_mem_counts(mem)->sram_peak_bytes, 700);   /* peak stays */
    assert_int_equal(fa_sram_alloc(mem, &d, "D", 500, 1, 1), FA_OK); /* used 1000 = M */
    assert_int_equal(fa_mem_counts(mem)->sram_peak_bytes, 1000);
    fa_sram_free(&b);
    fa_sram_free(&d);
    /* reset: the peak restarts from what is in use now (C, 200 B) */
    fa_mem_reset(mem);
    assert_int_equal(fa_mem_counts(mem)->sram_peak_bytes, 200);
    fa_sram_free(&c);
    assert_int_equal(fa_mem_sram_used(mem), 0);
    fa_mem_free(mem);
}

/* ---- tensors ---- */

static void test_tensor_make(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 4096);
    fa_tensor t, u;
    assert_int_equal(fa_tensor_make(mem, &t, "Q", 2, 3, 5, 7, 2, NULL), FA_OK);
    /* contiguous (B, H, N, D) strides in elements: (3*5*7, 5*7, 7, 1) */
    assert_int_equal(t.stride[0], 105);
    assert_int_equal(t.stride[1], 35);
    assert_int_equal(t.stride[2], 7);
    assert_int_equal(t.stride[3], 1);
    assert_int_equal(t.elem_bytes, 2);
    /* the same name shares one counter */
    assert_int_equal(fa_tensor_make(mem, &u, "Q", 1, 1, 4, 4, 2, NULL), FA_OK);
    assert_int_equal(u.id, t.id);
    assert_int_equal(fa_mem_counts(mem)->n_tensors, 1);
    assert_int_equal(fa_counts_find(fa_mem_counts(mem), "Q"), t.id);
    assert_int_equal(fa_counts_find(fa_mem_counts(mem), "K"), -1);
    /* bad shapes and a mode/data mismatch */
    assert_int_equal(fa_tensor_make(mem, &u, "K", 1, 0, 4, 4, 2, NULL), FA_EINVAL);
    assert_int_equal(fa_tensor_make(mem, &u, "K", 1, 1, 4, -4, 2, NULL), FA_EINVAL);
    assert_int_equal(fa_tensor_make(mem, &u, "K", 1, 1, 4, 4, 0, NULL), FA_EINVAL);
    double x[16] = {0};
    assert_int_equal(fa_tensor_make(mem, &u, "K", 1, 1, 4, 4, 2, x), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "numeric mode only"));
    /* FA_MAX_TENSORS distinct names fit, one more does not */
    for (int i = 1; i < FA_MAX_TENSORS; i++) {
        char name[8];
        snprintf(name, sizeof name, "T%d", i);
        assert_int_equal(fa_tensor_make(mem, &u, name, 1, 1, 1, 1, 4, NULL), FA_OK);
    }
    assert_int_equal(fa_mem_counts(mem)->n_tensors, FA_MAX_TENSORS);
    assert_int_equal(fa_tensor_make(mem, &u, "one-too-many", 1, 1, 1, 1, 4, NULL), FA_EINVAL);
    fa_mem_free(mem);

    mem = fa_mem_alloc(FA_MODE_NUMERIC, 4096);
    assert_int_equal(fa_tensor_make(mem, &u, "K", 1, 1, 4, 4, 2, NULL), FA_EINVAL);
    fa_mem_free(mem);
}

/* A shape whose element count exceeds 64 bits is refused, not wrapped (count-only mode
 * never allocates it, so nothing else would notice). */
static void test_tensor_huge_shape(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 4096);
    fa_tensor t;
    /* 2^20 heads x 2^30 x 2^30 = 2^80 elements */
    assert_int_equal(fa_tensor_make(mem, &t, "S", 1, 1 << 20, 1 << 30, 1 << 30, 2, NULL),
                     FA_EOVERFLOW);
    assert_non_null(strstr(fa_last_error(), "S"));
    /* 2^62 elements still fit (they are never allocated in count-only mode) */
    assert_int_equal(fa_tensor_make(mem, &t, "S", 4, 1 << 20, 1 << 30, 1 << 10, 2, NULL), FA_OK);
    fa_mem_free(mem);
}

/* ---- counted transfers ---- */

static void test_load_store_counts(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 16);
    fa_tensor Q, O, L;
    assert_int_equal(fa_tensor_make(mem, &Q, "Q", 2, 4, 100, 64, 2, NULL), FA_OK);
    assert_int_equal(fa_tensor_make(mem, &O, "O", 2, 4, 100, 48, 2, NULL), FA_OK);
    assert_int_equal(fa_tensor_make(mem, &L, "LSE", 2, 4, 100, 1, 4, NULL), FA_OK);
    fa_buf q, o, l;
    assert_int_equal(fa_sram_alloc(mem, &q, "Q_i", 32, 64, 2), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &o, "O_i", 32, 48, 4), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &l, "l_i", 32, 1, 4), FA_OK);
    /* Q: a full tile 32 x 64 x 2 = 4096 B, and the tail tile rows [96, 100): 4 x 64 x 2 = 512 B */
    assert_int_equal(fa_load(mem, &Q, 1, 3, 0, 32, 0, 64, &q), FA_OK);
    assert_int_equal(fa_load(mem, &Q, 1, 3, 96, 4, 0, 64, &q), FA_OK);
    /* O: read a 32 x 48 tile (3072 B in fp16 HBM, although O_i is fp32 on chip), write it twice */
    assert_int_equal(fa_load(mem, &O, 0, 0, 32, 32, 0, 48, &o), FA_OK);
    assert_int_equal(fa_store(mem, &O, 0, 0, 32, 32, 0, 48, &o), FA_OK);
    assert_int_equal(fa_store(mem, &O, 0, 1, 64, 32, 0, 48, &o), FA_OK);
    /* LSE: 32 rows x 1 x 4 B = 128 B written; a part-column tile of O: 5 x 7 x 2 = 70 B read */
    assert_int_equal(fa_store(mem, &L, 1, 2, 0, 32, 0, 1, &l), FA_OK);
    assert_int_equal(fa_load(mem, &O, 1, 2, 3, 5, 40, 7, &o), FA_OK);

    const fa_counts *c = fa_mem_counts(mem);
    int iq = fa_counts_find(c, "Q"), io = fa_counts_find(c, "O"), il = fa_counts_find(c, "LSE");
    assert_int_equal(c->tensor[iq].read_bytes, 4096 + 512);
    assert_int_equal(c->tensor[iq].write_bytes, 0);
    assert_int_equal(c->tensor[iq].loads, 2);
    assert_int_equal(c->tensor[iq].stores, 0);
    assert_int_equal(c->tensor[io].read_bytes, 3072 + 70);
    assert_int_equal(c->tensor[io].write_bytes, 2 * 3072);
    assert_int_equal(c->tensor[io].loads, 2);
    assert_int_equal(c->tensor[io].stores, 2);
    assert_int_equal(c->tensor[il].read_bytes, 0);
    assert_int_equal(c->tensor[il].write_bytes, 128);
    assert_int_equal(c->tensor[il].stores, 1);
    assert_int_equal(c->hbm_read_bytes, 4608 + 3142);
    assert_int_equal(c->hbm_write_bytes, 6144 + 128);
    assert_int_equal(fa_counts_hbm_bytes(c), 7750 + 6272);
    /* transfers count no FLOPs */
    assert_int_equal(c->flops_matmul, 0);
    assert_int_equal(c->flops_other, 0);
    /* SRAM: 32*64*2 + 32*48*4 + 32*4 = 4096 + 6144 + 128 */
    assert_int_equal(c->sram_peak_bytes, 10368);

    /* reset zeroes every counter but keeps the tensors registered */
    fa_mem_reset(mem);
    assert_int_equal(c->hbm_read_bytes, 0);
    assert_int_equal(c->tensor[io].write_bytes, 0);
    assert_int_equal(c->tensor[io].stores, 0);
    assert_int_equal(c->n_tensors, 3);
    fa_sram_free(&q);
    fa_sram_free(&o);
    fa_sram_free(&l);
    fa_mem_free(mem);
}

static void test_out_of_bounds_tiles(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 16);
    fa_tensor K;
    assert_int_equal(fa_tensor_make(mem, &K, "K", 2, 2, 10, 8, 2, NULL), FA_OK);
    fa_buf k;
    assert_int_equal(fa_sram_alloc(mem, &k, "K_j", 4, 8, 2), FA_OK);
    /* rows [8, 12) leave N = 10 */
    assert_int_equal(fa_load(mem, &K, 0, 0, 8, 4, 0, 8, &k), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "leaves tensor K"));
    /* cols [4, 12) leave D = 8; batch and head out of range; negative origin; empty tile */
    assert_int_equal(fa_load(mem, &K, 0, 0, 0, 4, 4, 8, &k), FA_EINVAL);
    assert_int_equal(fa_load(mem, &K, 2, 0, 0, 4, 0, 8, &k), FA_EINVAL);
    assert_int_equal(fa_load(mem, &K, 0, -1, 0, 4, 0, 8, &k), FA_EINVAL);
    assert_int_equal(fa_load(mem, &K, 0, 0, -1, 4, 0, 8, &k), FA_EINVAL);
    assert_int_equal(fa_load(mem, &K, 0, 0, 0, 0, 0, 8, &k), FA_EINVAL);
    assert_int_equal(fa_store(mem, &K, 0, 0, 0, 4, 0, -8, &k), FA_EINVAL);
    /* an origin so large that row0 + rows would wrap */
    assert_int_equal(fa_load(mem, &K, 0, 0, INT64_MAX, 4, 0, 8, &k), FA_EINVAL);
    /* the tile fits the tensor but not the buffer: 5 rows > 4 */
    assert_int_equal(fa_load(mem, &K, 0, 0, 0, 5, 0, 8, &k), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "exceeds SRAM buffer K_j"));
    assert_int_equal(fa_store(mem, &K, 0, 0, 0, 5, 0, 8, &k), FA_EINVAL);
    /* nothing was counted by the refused transfers */
    const fa_counts *c = fa_mem_counts(mem);
    assert_int_equal(c->hbm_read_bytes, 0);
    assert_int_equal(c->hbm_write_bytes, 0);
    assert_int_equal(c->tensor[K.id].loads, 0);
    /* the last valid tile, rows [6, 10), is fine: 4 x 8 x 2 = 64 B */
    assert_int_equal(fa_load(mem, &K, 1, 1, 6, 4, 0, 8, &k), FA_OK);
    assert_int_equal(c->hbm_read_bytes, 64);
    fa_sram_free(&k);
    fa_mem_free(mem);
}

/* ---- run weights ---- */

static void test_weights_multiply(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 16);
    assert_true(fa_mem_may_merge(mem));
    fa_tensor V;
    assert_int_equal(fa_tensor_make(mem, &V, "V", 1, 1, 64, 16, 2, NULL), FA_OK);
    fa_buf v;
    assert_int_equal(fa_sram_alloc(mem, &v, "V_j", 16, 16, 2), FA_OK);
    /* one tile = 16 x 16 x 2 = 512 B */
    assert_int_equal(fa_load(mem, &V, 0, 0, 0, 16, 0, 16, &v), FA_OK); /* 1 x 512 */
    assert_int_equal(fa_mem_push_weight(mem, 3), FA_OK);
    assert_int_equal(fa_mem_weight_depth(mem), 1);
    assert_int_equal(fa_load(mem, &V, 0, 0, 0, 16, 0, 16, &v), FA_OK); /* 3 x 512 */
    assert_int_equal(fa_mem_push_weight(mem, 5), FA_OK);                /* nested: 15 */
    assert_int_equal(fa_load(mem, &V, 0, 0, 16, 16, 0, 16, &v), FA_OK); /* 15 x 512 */
    assert_int_equal(fa_store(mem, &V, 0, 0, 16, 16, 0, 16, &v), FA_OK); /* 15 x 512 */
    assert_int_equal(fa_count_flops(mem, 7, 11), FA_OK);                 /* 105, 165 */
    fa_mem_pop_weight(mem);                                              /* back to 3 */
    assert_int_equal(fa_count_flops(mem, 2, 0), FA_OK);                  /* 6 */
    fa_mem_pop_weight(mem);                                              /* back to 1 */
    assert_int_equal(fa_count_flops(mem, 1, 1), FA_OK);
    fa_mem_pop_weight(mem); /* popping an empty stack is harmless */
    assert_int_equal(fa_mem_weight_depth(mem), 0);
    assert_int_equal(fa_load(mem, &V, 0, 0, 48, 16, 0, 16, &v), FA_OK); /* 1 x 512 */

    const fa_counts *c = fa_mem_counts(mem);
    assert_int_equal(c->tensor[V.id].read_bytes, (1 + 3 + 15 + 1) * 512);
    assert_int_equal(c->tensor[V.id].loads, 1 + 3 + 15 + 1);
    assert_int_equal(c->tensor[V.id].write_bytes, 15 * 512);
    assert_int_equal(c->tensor[V.id].stores, 15);
    assert_int_equal(c->flops_matmul, 105 + 6 + 1);
    assert_int_equal(c->flops_other, 165 + 1);

    /* w = 0 and a stack deeper than FA_MAX_WEIGHT_DEPTH are refused */
    assert_int_equal(fa_mem_push_weight(mem, 0), FA_EINVAL);
    for (int i = 0; i < FA_MAX_WEIGHT_DEPTH; i++) assert_int_equal(fa_mem_push_weight(mem, 1), FA_OK);
    assert_int_equal(fa_mem_push_weight(mem, 1), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "deeper"));
    /* restore goes back to a saved depth, never up */
    fa_mem_restore_weight(mem, 2);
    assert_int_equal(fa_mem_weight_depth(mem), 2);
    fa_mem_restore_weight(mem, 5);
    assert_int_equal(fa_mem_weight_depth(mem), 2);
    fa_mem_restore_weight(mem, 0);
    assert_int_equal(fa_mem_weight_depth(mem), 0);

    /* merging: count-only only, and never while tracing */
    fa_mem_set_merge(mem, 0);
    assert_false(fa_mem_may_merge(mem));
    fa_mem_set_merge(mem, 1);
    assert_true(fa_mem_may_merge(mem));
    FILE *f = tmpfile();
    assert_non_null(f);
    fa_mem_set_trace(mem, f);
    assert_false(fa_mem_may_merge(mem));
    fa_mem_set_trace(mem, NULL);
    assert_true(fa_mem_may_merge(mem));
    fclose(f);
    fa_sram_free(&v);
    fa_mem_free(mem);

    mem = fa_mem_alloc(FA_MODE_NUMERIC, 1 << 16);
    assert_false(fa_mem_may_merge(mem));
    fa_mem_free(mem);
}

/* ---- 64-bit overflow ---- */

static void test_counter_overflow(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 16);
    fa_tensor K;
    assert_int_equal(fa_tensor_make(mem, &K, "K", 1, 1, 4, 4, 4, NULL), FA_OK);
    fa_buf k;
    assert_int_equal(fa_sram_alloc(mem, &k, "K_j", 4, 4, 4), FA_OK);
    const fa_counts *c = fa_mem_counts(mem);
    /* a tile of 64 B under weight 2^58 is 2^64 B: overflow, and nothing is counted */
    assert_int_equal(fa_mem_push_weight(mem, 1ull << 58), FA_OK);
    assert_int_equal(fa_load(mem, &K, 0, 0, 0, 4, 0, 4, &k), FA_EOVERFLOW);
    assert_non_null(strstr(fa_last_error(), "64 bits"));
    assert_string_equal(fa_strerror(FA_EOVERFLOW), "64-bit counter overflow");
    assert_int_equal(c->tensor[K.id].read_bytes, 0);
    assert_int_equal(c->tensor[K.id].loads, 0);
    assert_int_equal(c->hbm_read_bytes, 0);
    fa_mem_pop_weight(mem);
    /* under weight 2^57 one tile is 2^63 B: fine once; the second sum overflows, and the
     * counters keep their last good values */
    assert_int_equal(fa_mem_push_weight(mem, 1ull << 57), FA_OK);
    assert_int_equal(fa_store(mem, &K, 0, 0, 0, 4, 0, 4, &k), FA_OK);
    assert_int_equal(c->tensor[K.id].write_bytes, 1ull << 63);
    assert_int_equal(fa_store(mem, &K, 0, 0, 0, 4, 0, 4, &k), FA_EOVERFLOW);
    assert_int_equal(c->tensor[K.id].write_bytes, 1ull << 63);
    assert_int_equal(c->hbm_write_bytes, 1ull << 63);
    assert_int_equal(c->tensor[K.id].stores, 1ull << 57);
    /* FLOPs overflow the same way */
    assert_int_equal(fa_count_flops(mem, 1ull << 7, 0), FA_EOVERFLOW);
    assert_int_equal(c->flops_matmul, 0);
    assert_int_equal(fa_count_flops(mem, 0, 64), FA_OK); /* 2^63 */
    assert_int_equal(fa_count_flops(mem, 0, 64), FA_EOVERFLOW);
    assert_int_equal(c->flops_other, 1ull << 63);
    /* nested weights whose product overflows are refused; the stack is unchanged */
    assert_int_equal(fa_mem_push_weight(mem, 1ull << 7), FA_EOVERFLOW);
    assert_int_equal(fa_mem_weight_depth(mem), 1);
    fa_mem_pop_weight(mem);
    /* the checked helpers */
    uint64_t r = 7;
    assert_int_equal(fa_u64_mul(1ull << 32, 1ull << 31, &r, "x"), FA_OK);
    assert_int_equal(r, 1ull << 63);
    assert_int_equal(fa_u64_mul(1ull << 32, 1ull << 32, &r, "the product"), FA_EOVERFLOW);
    assert_non_null(strstr(fa_last_error(), "the product overflows 64 bits"));
    assert_int_equal(fa_u64_add(UINT64_MAX - 1, 1, &r, "x"), FA_OK);
    assert_int_equal(r, UINT64_MAX);
    assert_int_equal(fa_u64_add(UINT64_MAX, 1, &r, "the sum"), FA_EOVERFLOW);
    assert_int_equal(r, UINT64_MAX); /* untouched on failure */
    /* the total saturates instead of wrapping */
    fa_counts sat = {0};
    sat.hbm_read_bytes = UINT64_MAX - 3;
    sat.hbm_write_bytes = 10;
    assert_int_equal(fa_counts_hbm_bytes(&sat), UINT64_MAX);
    fa_sram_free(&k);
    fa_mem_free(mem);
}

/* ---- the transfer trace ---- */

static void test_trace_csv(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, 1 << 16);
    fa_tensor Q, O, L;
    assert_int_equal(fa_tensor_make(mem, &Q, "Q", 1, 2, 5, 3, 2, NULL), FA_OK);
    assert_int_equal(fa_tensor_make(mem, &O, "O", 2, 1, 5, 3, 4, NULL), FA_OK);
    assert_int_equal(fa_tensor_make(mem, &L, "LSE", 2, 1, 5, 1, 4, NULL), FA_OK);
    fa_buf q, o, l;
    assert_int_equal(fa_sram_alloc(mem, &q, "Q_i", 4, 3, 2), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &o, "O_i", 4, 3, 4), FA_OK);
    assert_int_equal(fa_sram_alloc(mem, &l, "l_i", 4, 1, 4), FA_OK);
    fa_mem_set_trace(mem, f);
    /* step 0: Q, head 1, rows [1, 4), all 3 columns, fp16: 3 x 3 x 2 = 18 B */
    assert_int_equal(fa_load(mem, &Q, 0, 1, 1, 3, 0, 3, &q), FA_OK);
    /* step 1: O, batch 1, row 4 (the tail), columns [1, 3), fp32: 1 x 2 x 4 = 8 B */
    assert_int_equal(fa_store(mem, &O, 1, 0, 4, 1, 1, 2, &o), FA_OK);
    /* a refused transfer writes no line and takes no step */
    assert_int_equal(fa_load(mem, &Q, 0, 2, 0, 1, 0, 3, &q), FA_EINVAL);
    /* step 2: LSE, batch 0, rows [0, 4): 4 x 1 x 4 = 16 B */
    assert_int_equal(fa_store(mem, &L, 0, 0, 0, 4, 0, 1, &l), FA_OK);
    fa_mem_set_trace(mem, NULL);
    /* not traced, but counted */
    assert_int_equal(fa_load(mem, &Q, 0, 0, 0, 4, 0, 3, &q), FA_OK);
    fclose(f);
    assert_string_equal(text,
                        "step,tensor,direction,row0,rows,col0,cols,bytes,batch,head\n"
                        "0,Q,read,1,3,0,3,18,0,1\n"
                        "1,O,write,4,1,1,2,8,1,0\n"
                        "2,LSE,write,0,4,0,1,16,0,0\n");
    assert_int_equal(fa_mem_counts(mem)->hbm_read_bytes, 18 + 24);
    free(text);
    fa_sram_free(&q);
    fa_sram_free(&o);
    fa_sram_free(&l);
    fa_mem_free(mem);
}

/* ---- numeric mode copies data ---- */

static void test_numeric_copies(void **state)
{
    (void)state;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 1 << 16);
    /* src (1, 2, 4, 3): value = 100 h + 10 r + c + 0.25 */
    double src[24], dst[24];
    for (int h = 0; h < 2; h++)
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 3; c++) src[h * 12 + r * 3 + c] = 100 * h + 10 * r + c + 0.25;
    for (int i = 0; i < 24; i++) dst[i] = -1.5;
    fa_tensor A, B;
    assert_int_equal(fa_tensor_make(mem, &A, "A", 1, 2, 4, 3, 2, src), FA_OK);
    assert_int_equal(fa_tensor_make(mem, &B, "B", 1, 2, 4, 3, 2, dst), FA_OK);
    /* a 3 x 5 buffer: a 2 x 2 tile lands at its top-left with leading dimension 5 */
    fa_buf t;
    assert_int_equal(fa_sram_alloc(mem, &t, "T", 3, 5, 4), FA_OK);
    assert_non_null(t.data);
    assert_int_equal(fa_load(mem, &A, 0, 1, 1, 2, 1, 2, &t), FA_OK);
    assert_true(t.data[0] == 111.25 && t.data[1] == 112.25);
    assert_true(t.data[5] == 121.25 && t.data[6] == 122.25);
    assert_true(t.data[2] == 0.0 && t.data[10] == 0.0); /* untouched (calloc) */
    /* store it into B, head 0, rows [2, 4), cols [0, 2) */
    assert_int_equal(fa_store(mem, &B, 0, 0, 2, 2, 0, 2, &t), FA_OK);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) {
            double want = -1.5;
            if (r >= 2 && c < 2) want = 100 + 10 * (r - 1) + (c + 1) + 0.25;
            assert_true(dst[r * 3 + c] == want);
        }
    for (int i = 12; i < 24; i++) assert_true(dst[i] == -1.5); /* head 1 untouched */
    /* bytes follow the HBM element size (2), not fp64: 2 x 2 x 2 = 8 each way */
    assert_int_equal(fa_mem_counts(mem)->hbm_read_bytes, 8);
    assert_int_equal(fa_mem_counts(mem)->hbm_write_bytes, 8);
    fa_sram_free(&t);
    fa_mem_free(mem);
}

/* ---- hardware profiles ---- */

static void test_hw_shipped_profiles(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("a100", FASIM_HW_DIR, &hw), FA_OK);
    assert_string_equal(hw.name, "A100-SXM4-80GB");
    assert_string_equal(hw.key, "a100");
    assert_true(hw.hbm_bandwidth == 2.039e12);
    assert_int_equal(hw.sram_per_sm, 164 * 1024);
    assert_int_equal(hw.sram_per_block, 163 * 1024);
    assert_int_equal(hw.sms, 108);
    assert_int_equal(hw.l2_bytes, 40ull << 20);
    assert_true(hw.peak_fp16 == 312e12);
    assert_true(hw.peak_fp32 == 19.5e12);
    assert_non_null(strstr(hw.source, "datasheet"));

    assert_int_equal(fa_hw_load("h100", FASIM_HW_DIR, &hw), FA_OK);
    assert_string_equal(hw.name, "H100-SXM5");
    assert_true(hw.hbm_bandwidth == 3.35e12);
    assert_int_equal(hw.sram_per_sm, 228 * 1024);
    assert_int_equal(hw.sram_per_block, 227 * 1024);
    assert_int_equal(hw.sms, 132);
    assert_int_equal(hw.l2_bytes, 50ull << 20);
    assert_true(hw.peak_fp16 == 989e12);
    assert_true(hw.peak_fp32 == 67e12);

    assert_int_equal(fa_hw_load("h200", FASIM_HW_DIR, &hw), FA_OK);
    assert_string_equal(hw.name, "H200-SXM");
    assert_string_equal(hw.key, "h200");
    assert_true(hw.hbm_bandwidth == 4.8e12);
    assert_int_equal(hw.sram_per_block, 227 * 1024);
    assert_int_equal(hw.sms, 132);
    assert_int_equal(hw.l2_bytes, 60ull << 20);
    assert_true(hw.peak_fp16 == 989e12);

    /* the key list names exactly the four */
    int n = 0;
    while (fa_hw_keys[n]) n++;
    assert_int_equal(n, 4);
    /* B200 (sim/hw/b200.hw): datasheet figures */
    assert_int_equal(fa_hw_load("b200", FASIM_HW_DIR, &hw), FA_OK);
    assert_int_equal(hw.sms, 148);
    assert_true(hw.hbm_bandwidth == 8e12);
    assert_true(hw.tcgen05_flops == 2.25e15);
    assert_true(hw.tcgen05_fp8_flops == 4.5e15);
    assert_int_equal(hw.tmem_per_sm, 256 * 1024);
    assert_int_equal(hw.sram_per_sm, 228 * 1024);
    assert_true(hw.exp_per_s == 16.0 * 148 * hw.clock_hz);
}

typedef struct {
    char dir[64];
    char path[128];
} hwtmp;

static int hw_setup(void **state)
{
    hwtmp *t = calloc(1, sizeof *t);
    if (!t) return -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/fasim-test-sim-XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s/p.hw", t->dir);
    *state = t;
    return 0;
}

static int hw_teardown(void **state)
{
    hwtmp *t = *state;
    unlink(t->path);
    rmdir(t->dir);
    free(t);
    return 0;
}

static const char *const good_profile =
    "# a made-up profile\n"
    "name = Toy-GPU\n"
    "key = toy\n"
    "hbm_bandwidth_bytes_per_s = 1.5e12\n"
    "sram_per_sm_bytes = 65536\n"
    "sram_per_block_bytes = 49152\n"
    "sms = 10\n"
    "l2_bytes = 4194304\n"
    "peak_fp16_flops = 100e12\n"
    "peak_fp32_flops = 10e12\n"
    "source = invented for a test\n";

/* Writes good_profile with one line replaced (or appended when `find` is NULL). */
static fa_status load_variant(hwtmp *t, const char *find, const char *repl, fa_hw *hw)
{
    FILE *f = fopen(t->path, "w");
    assert_non_null(f);
    if (find) {
        const char *at = strstr(good_profile, find);
        assert_non_null(at);
        const char *eol = strchr(at, '\n');
        fprintf(f, "%.*s%s%s", (int)(at - good_profile), good_profile, repl, eol);
    } else {
        fprintf(f, "%s%s", good_profile, repl);
    }
    fclose(f);
    return fa_hw_load_file(t->path, hw);
}

static void test_hw_profile_files(void **state)
{
    hwtmp *t = *state;
    fa_hw hw;
    /* the well-formed file, with blank lines, comments and spaces around '=' */
    assert_int_equal(load_variant(t, NULL, "\n   # trailing comment\n", &hw), FA_OK);
    assert_string_equal(hw.name, "Toy-GPU");
    assert_true(hw.hbm_bandwidth == 1.5e12);
    assert_int_equal(hw.sram_per_block, 49152);
    assert_int_equal(hw.sms, 10);
    assert_string_equal(hw.source, "invented for a test");
    /* a line without '=' */
    assert_int_equal(load_variant(t, "sms", "sms 10", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":7: expected key = value"));
    /* numbers that are not positive numbers */
    assert_int_equal(load_variant(t, "sms", "sms = ten", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "sms"));
    assert_int_equal(load_variant(t, "sms", "sms = 0", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "l2_bytes", "l2_bytes = -4", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "l2_bytes", "l2_bytes = 4 MiB", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = nan", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = inf", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "sms", "sms = 1e30", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "l2_bytes", "l2_bytes = 1e30", &hw), FA_EINVAL);
    /* a required key missing */
    assert_int_equal(load_variant(t, "peak_fp32", "# peak_fp32_flops removed", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "missing key peak_fp32_flops"));
    /* l2_partitions: optional (1 when absent), 1 or 2 */
    assert_int_equal(load_variant(t, NULL, "", &hw), FA_OK);
    assert_int_equal(hw.l2_partitions, 1);
    assert_int_equal(load_variant(t, NULL, "l2_partitions = 2\n", &hw), FA_OK);
    assert_int_equal(hw.l2_partitions, 2);
    assert_int_equal(load_variant(t, NULL, "l2_partitions = 3\n", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "l2_partitions"));
    assert_int_equal(load_variant(t, NULL, "l2_partitions = 1.5\n", &hw), FA_EINVAL);
    /* the shipped Ampere and Hopper profiles have two */
    assert_int_equal(fa_hw_load("h200", FASIM_HW_DIR, &hw), FA_OK);
    assert_int_equal(hw.l2_partitions, 2);
    assert_int_equal(fa_hw_load("a100", FASIM_HW_DIR, &hw), FA_OK);
    assert_int_equal(hw.l2_partitions, 2);
}

/* The strict rules of hw.c: each mistake is an error naming FILE:LINE, the key and the value. */
static void test_hw_strict(void **state)
{
    hwtmp *t = *state;
    fa_hw hw;
    char want[256];
    /* an unknown key (a typo of the optional l2_partitions must not pass as a note) */
    assert_int_equal(load_variant(t, NULL, "l2_partition = 2\n", &hw), FA_EINVAL);
    snprintf(want, sizeof want, "%s:12: unknown key 'l2_partition'", t->path);
    assert_non_null(strstr(fa_last_error(), want));
    assert_non_null(strstr(fa_last_error(), "l2_partitions")); /* the known keys are listed */
    assert_int_equal(load_variant(t, NULL, "memory_type = HBM3\n", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "memory_type"));
    /* a key given twice */
    assert_int_equal(load_variant(t, NULL, "sms = 12\n", &hw), FA_EINVAL);
    snprintf(want, sizeof want, "%s:12: key sms given twice (first on line 7)", t->path);
    assert_non_null(strstr(fa_last_error(), want));
    assert_int_equal(load_variant(t, NULL, "l2_partitions = 2\nl2_partitions = 2\n", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":13: key l2_partitions given twice"));
    /* fractional byte and SM counts are not truncated */
    assert_int_equal(load_variant(t, "sram_per_block", "sram_per_block_bytes = 1000.5", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":6: sram_per_block_bytes = '1000.5' is not a whole number"));
    assert_int_equal(load_variant(t, "sms", "sms = 10.25", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "sms = '10.25'"));
    assert_int_equal(load_variant(t, NULL, "hbm_capacity_bytes = 8589934592.5\n", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, NULL, "hbm_capacity_bytes = 8e9\n", &hw), FA_OK); /* whole, in e-notation */
    assert_int_equal(hw.hbm_capacity, 8000000000ull);
    /* bandwidths and FLOP rates may be fractional */
    assert_int_equal(load_variant(t, "hbm_bandwidth", "hbm_bandwidth_bytes_per_s = 1.25e12", &hw), FA_OK);
    /* per-block SRAM above the per-SM SRAM; equal is allowed */
    assert_int_equal(load_variant(t, "sram_per_block", "sram_per_block_bytes = 65537", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":6: sram_per_block_bytes = 65537 exceeds sram_per_sm_bytes = 65536"));
    assert_int_equal(load_variant(t, "sram_per_block", "sram_per_block_bytes = 65536", &hw), FA_OK);
    /* a key without a value, and a value without a key */
    assert_int_equal(load_variant(t, "sms", "sms =", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":7: key sms has no value"));
    assert_int_equal(load_variant(t, "source", "source =   ", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "key source has no value"));
    assert_int_equal(load_variant(t, "sms", "= 10", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":7: expected key = value"));
    /* a very long line says so (a long comment too), instead of "expected key = value" */
    char longl[1100];
    memset(longl, 'x', sizeof longl);
    memcpy(longl, "# ", 2);
    longl[1023] = '\0'; /* 1023 characters: one over */
    assert_int_equal(load_variant(t, "sms", longl, &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":7: line longer than 1022 characters"));
    longl[1022] = '\0'; /* 1022: at the limit, a comment */
    assert_int_equal(load_variant(t, NULL, longl, &hw), FA_OK);
    /* text values that do not fit their field are not cut */
    char name[80];
    snprintf(name, sizeof name, "name = %048d", 7); /* 48 characters: one over */
    assert_int_equal(load_variant(t, "name", name, &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":2: name = '"));
    assert_non_null(strstr(fa_last_error(), "48 characters long (limit 47)"));
    snprintf(name, sizeof name, "name = %047d", 7);
    assert_int_equal(load_variant(t, "name", name, &hw), FA_OK);
    assert_int_equal(strlen(hw.name), 47);
    assert_int_equal(load_variant(t, "key = toy", "key = a-very-long-profile-key", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "(limit 15)"));
    /* numbers are decimal: no hex (strtod would read 0x10 as 16), inf or nan */
    assert_int_equal(load_variant(t, "hbm_bandwidth", "hbm_bandwidth_bytes_per_s = 0x10", &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":4: hbm_bandwidth_bytes_per_s = '0x10' is not a decimal number"));
    assert_int_equal(load_variant(t, "sms", "sms = 0XA", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "hbm_bandwidth", "hbm_bandwidth_bytes_per_s = 0x1p40", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = infinity", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = 1e", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = .", &hw), FA_EINVAL);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = .5e12", &hw), FA_OK);
    assert_int_equal(load_variant(t, "peak_fp16", "peak_fp16_flops = 5.E+12", &hw), FA_OK);
    assert_true(hw.peak_fp16 == 5e12);
    assert_int_equal(load_variant(t, "sms", "sms = 010", &hw), FA_OK); /* decimal, not octal */
    assert_int_equal(hw.sms, 10);
}

/* A profile loaded for --hw K must say key = K; FASIM_HW_DIR= (empty) is the built-in directory. */
static void test_hw_key_and_dir(void **state)
{
    hwtmp *t = *state;
    fa_hw hw;
    char path[160], want[256];
    snprintf(path, sizeof path, "%s/h200-sxm.hw", t->dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# a copy of another GPU's file\n", f);
    fputs(good_profile, f);
    fclose(f);
    /* good_profile says key = toy (line 3 of the copy) */
    assert_int_equal(fa_hw_load("h200", t->dir, &hw), FA_EINVAL);
    snprintf(want, sizeof want, "%s:4: key = 'toy' differs from the profile requested, --hw h200", path);
    assert_non_null(strstr(fa_last_error(), want));
    /* the same file read by path has no expected key */
    assert_int_equal(fa_hw_load_file(path, &hw), FA_OK);
    assert_string_equal(hw.key, "toy");
    unlink(path);
    /* FASIM_HW_DIR set but empty: the built-in directory, not "/h200-sxm.hw" */
    const char *old = getenv("FASIM_HW_DIR");
    char *saved = old ? strdup(old) : NULL;
    assert_int_equal(setenv("FASIM_HW_DIR", "", 1), 0);
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    assert_string_equal(hw.key, "h200");
    assert_int_equal(fa_hw_load("h200", "", &hw), FA_OK);
    if (saved) {
        setenv("FASIM_HW_DIR", saved, 1);
        free(saved);
    } else {
        unsetenv("FASIM_HW_DIR");
    }
}

static void test_hw_errors(void **state)
{
    (void)state;
    fa_hw hw;
    /* an unknown profile key */
    assert_int_equal(fa_hw_load("tpu-v5", FASIM_HW_DIR, &hw), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "tpu-v5"));
    assert_non_null(strstr(fa_last_error(), "a100, h100, h200"));
    /* a missing file, and a directory without the profiles */
    assert_int_equal(fa_hw_load_file("/nonexistent/fasim/none.hw", &hw), FA_EIO);
    assert_non_null(strstr(fa_last_error(), "none.hw"));
    assert_int_equal(fa_hw_load("h100", "/nonexistent/fasim", &hw), FA_EIO);
    assert_string_equal(fa_strerror(FA_EIO), "input/output error");
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sram_strict_capacity),
        cmocka_unit_test(test_sram_bad_sizes),
        cmocka_unit_test(test_sram_peak_and_free),
        cmocka_unit_test(test_tensor_make),
        cmocka_unit_test(test_tensor_huge_shape),
        cmocka_unit_test(test_load_store_counts),
        cmocka_unit_test(test_out_of_bounds_tiles),
        cmocka_unit_test(test_weights_multiply),
        cmocka_unit_test(test_counter_overflow),
        cmocka_unit_test(test_trace_csv),
        cmocka_unit_test(test_numeric_copies),
        cmocka_unit_test(test_hw_shipped_profiles),
        cmocka_unit_test_setup_teardown(test_hw_profile_files, hw_setup, hw_teardown),
        cmocka_unit_test_setup_teardown(test_hw_strict, hw_setup, hw_teardown),
        cmocka_unit_test_setup_teardown(test_hw_key_and_dir, hw_setup, hw_teardown),
        cmocka_unit_test(test_hw_errors),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
