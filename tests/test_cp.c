/* test_cp.c -- context parallelism (analysis/cp.c, docs/context-parallel.md): the closed forms
 * of the link bytes, merges and memory on hand-computed cases; the local calls' counted bytes
 * equal their closed forms; a ring's bytes and time by hand; the time rules of each scheme; P = 1
 * is one GPU; the NVLink keys of the shipped profiles; every refusal names the value and limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "fa_cp.h"

static fa_shape mk(int64_t B, int64_t H, int64_t Hkv, int64_t N, int64_t d, fa_causal causal)
{
    fa_shape s = fa_shape_default(N, d);
    s.batch = B, s.heads = H, s.kv_heads = Hkv, s.causal = causal;
    return s; /* fp16 */
}

static fa_hw h200(void)
{
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    return hw;
}

/* The closed forms on numbers worked by hand (fp16, e = 2). */
static void test_closed_forms(void **st)
{
    (void)st;
    /* ring: (P-1) n H_kv (d + d_v) e = 3 x 256 x 2 x 128 x 2 */
    fa_shape s = mk(1, 4, 2, 1024, 64, FA_CAUSAL_NONE);
    assert_int_equal(fa_cp_link_bytes(&s, 4, FA_CP_RING), 393216);
    assert_int_equal(fa_cp_link_bytes(&s, 4, FA_CP_ZIGZAG), 393216);
    assert_int_equal(fa_cp_link_bytes(&s, 4, FA_CP_ALLGATHER), 393216);
    assert_int_equal(fa_cp_link_bytes(&s, 1, FA_CP_RING), 0);
    /* batch 3 scales it */
    s.batch = 3;
    assert_int_equal(fa_cp_link_bytes(&s, 4, FA_CP_RING), 3 * 393216);
    /* ulysses: (P-1) n (H/P + H_kv/P)(d + d_v) e = 3 x 256 x (2 + 1) x 128 x 2 */
    fa_shape u = mk(1, 8, 4, 1024, 64, FA_CAUSAL_NONE);
    assert_int_equal(fa_cp_link_bytes(&u, 4, FA_CP_ULYSSES), 589824);
    /* a merge of R = 100 rows, H = 2, d_v = 64: 2 x 100 x (64 x 10 + 12) */
    fa_shape m = mk(1, 2, 2, 512, 64, FA_CAUSAL_NONE);
    assert_int_equal(fa_cp_merge_bytes(&m, 100), 130400);
    /* memory, ring, H = 2, H_kv = 1, d = 32, N = 512, P = 2: per token q 128 + 2 kv 256 + o 128 +
     * O_acc 256 + 2 LSE 16 = 784 bytes, x 256 tokens */
    fa_shape r = mk(1, 2, 1, 512, 32, FA_CAUSAL_NONE);
    assert_int_equal(fa_cp_memory_bytes(&r, 2, FA_CP_RING), 200704);
    /* allgather: n (q + o + lse) + N kv = 256 x (128 + 128 + 8) + 512 x 128 */
    assert_int_equal(fa_cp_memory_bytes(&r, 2, FA_CP_ALLGATHER), 256 * 264 + 512 * 128);
    /* ulysses: 2 n (q + kv + o) + N x 4H / P = 512 x 384 + 512 x 4 */
    fa_shape r2 = mk(1, 2, 2, 512, 32, FA_CAUSAL_NONE); /* H_kv = 2: kv 256 bytes a token */
    assert_int_equal(fa_cp_memory_bytes(&r2, 2, FA_CP_ULYSSES), 2 * 256 * (128 + 256 + 128) + 512 * 8 / 2);
    /* one GPU: Q, K, V, O, LSE of all N */
    assert_int_equal(fa_cp_memory_bytes(&r, 1, FA_CP_ULYSSES), 512 * (128 + 128 + 128 + 8));
}

/* A non-causal ring of P = 4 over N = 512, B = H = H_kv = 1, d = 64 (fp16): every local call is
 * 128 x 128, one tile of the fa2 profile: Q, K, V, O 16384 bytes each, LSE 512 = 66048 bytes; 4
 * calls; 3 merges of 128 rows (83456 each); the fp32 start and final cast 2 x 128 x 64 x 6. */
static void test_ring_by_hand(void **st)
{
    (void)st;
    fa_cp_config c = {.shape = mk(1, 1, 1, 512, 64, FA_CAUSAL_NONE), .hw = h200(), .P = 4, .scheme = FA_CP_RING, .count = 1};
    fa_cp_result r;
    assert_int_equal(fa_cp_predict(&c, &r), FA_OK);
    assert_int_equal(r.calls, 4);
    assert_int_equal(r.merges, 3);
    assert_int_equal(r.attn_bytes, 4 * 66048);
    assert_int_equal(r.merge_bytes, 3 * 83456 + 98304);
    assert_int_equal(r.hbm_bytes, 4 * 66048 + 3 * 83456 + 98304);
    assert_int_equal(r.attn_flops, 4ull * 2 * 128 * 128 * 128); /* 2 N_q N_k (d + d_v) per call */
    assert_int_equal(r.merge_flops, 3ull * 128 * (3 * 64 + 8));
    assert_int_equal(r.sent_bytes, 3 * 128 * 128 * 2);
    assert_int_equal(r.recv_bytes, r.sent_bytes);
    assert_int_equal(r.counted, 1);
    assert_int_equal(r.gpu, 0); /* every GPU alike: the first */
    /* the time: a link of 1 GB/s is slower than every step, so T = 3 t_x + the last step + the cast */
    c.hw.nvlink_bandwidth = 1e9;
    assert_int_equal(fa_cp_predict(&c, &r), FA_OK);
    fa_cp_config one = c;
    one.P = 1, one.shape.seqlen_q = one.shape.seqlen_k = 128;
    fa_cp_result k;
    assert_int_equal(fa_cp_predict(&one, &k), FA_OK); /* one 128 x 128 call */
    const double dram = c.hw.dram_bandwidth, t_x = 128.0 * 128 * 2 / 1e9;
    const double want = 3 * t_x + (k.time_s + 83456 / dram) + 49152 / dram;
    assert_true(fabs(r.time_s - want) <= 1e-12 * want);
    assert_true(fabs(r.comm_s - 3 * t_x) <= 1e-15);
    assert_int_equal(r.link_bound, 1);
    /* a fast link hides every transfer: T = the compute alone */
    c.hw.nvlink_bandwidth = 1e13;
    assert_int_equal(fa_cp_predict(&c, &r), FA_OK);
    assert_true(fabs(r.time_s - r.compute_s) <= 1e-15);
    assert_true(fabs(r.compute_s - (4 * k.time_s + 3 * 83456 / dram + 2 * 49152 / dram)) <= 1e-12 * r.compute_s);
    assert_int_equal(r.link_bound, 0);
}

/* Every scheme, causal or not, P = 2 and 4: each local call's count equals its closed form; the
 * busiest GPU of a causal ring is the last; zigzag balances (P-1 of its steps do the same work). */
static void test_counted_equals_formula(void **st)
{
    (void)st;
    const fa_hw hw = h200();
    for (int causal = 0; causal <= 1; causal++)
        for (int64_t P = 2; P <= 4; P *= 2)
            for (int sc = 0; sc < FA_CP_NSCHEME; sc++) {
                fa_cp_config c = {.shape = mk(2, 4, 4, 1024, 64, causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE),
                                  .hw = hw, .P = P, .scheme = (fa_cp_scheme)sc, .count = 1};
                fa_cp_result r, f;
                assert_int_equal(fa_cp_predict(&c, &r), FA_OK);
                if (r.counted != 1) fail_msg("%s P = %d causal %d: counted bytes differ from the closed form",
                                             fa_cp_scheme_name((fa_cp_scheme)sc), (int)P, causal);
                c.count = 0; /* the closed form alone: the same numbers */
                assert_int_equal(fa_cp_predict(&c, &f), FA_OK);
                assert_int_equal(f.counted, -1);
                assert_int_equal(f.hbm_bytes, r.hbm_bytes);
                assert_true(f.time_s == r.time_s);
                if (sc == FA_CP_RING && causal) assert_int_equal(r.gpu, P - 1);
                if (sc == FA_CP_RING && causal) assert_int_equal(r.calls, P);
                if (sc == FA_CP_ULYSSES) assert_int_equal(r.calls, 1);
                if (sc == FA_CP_ALLGATHER) assert_int_equal(r.calls, causal ? 2 : 1);
                if (sc == FA_CP_ALLGATHER || sc == FA_CP_ULYSSES) { /* communicate, then compute */
                    assert_int_equal(r.merge_bytes, 0);
                    assert_true(fabs(r.time_s - (r.comm_s + r.compute_s)) <= 1e-15);
                }
            }
}

/* P = 1 is the single-GPU FlashAttention-2 call, whatever the scheme. */
static void test_one_gpu(void **st)
{
    (void)st;
    fa_shape s = mk(1, 8, 2, 1000, 128, FA_CAUSAL_BOTTOM_RIGHT); /* 1000: no P divides it but 1 */
    fa_perf_result pr;
    const fa_hw hw = h200();
    assert_int_equal(fa_perf_predict(fa_profile_default(FA_ALGO_FLASH2), FA_PASS_FWD, &s, &hw, NULL, &pr), FA_OK);
    for (int sc = 0; sc < FA_CP_NSCHEME; sc++) {
        fa_cp_config c = {.shape = s, .hw = hw, .P = 1, .scheme = (fa_cp_scheme)sc};
        fa_cp_result r;
        assert_int_equal(fa_cp_predict(&c, &r), FA_OK);
        assert_int_equal(r.hbm_bytes, pr.io.formula.read_bytes + pr.io.formula.write_bytes);
        assert_int_equal(r.sent_bytes, 0);
        assert_true(r.time_s == pr.time_s);
        assert_int_equal(r.memory_bytes, 1000ull * (8 * 128 * 2 * 2 + 2 * 256 * 2 + 8 * 4));
    }
}

/* zigzag against the contiguous ring, causal, P = 4: the ring's last GPU works 1 + 3 whole steps,
 * zigzag's half a step more than 1/4 of the whole: fewer bytes and less time. */
static void test_zigzag_balances(void **st)
{
    (void)st;
    fa_cp_config c = {.shape = mk(1, 8, 8, 8192, 64, FA_CAUSAL_BOTTOM_RIGHT), .hw = h200(), .P = 4, .scheme = FA_CP_RING};
    fa_cp_result ring, zz, one;
    assert_int_equal(fa_cp_predict(&c, &ring), FA_OK);
    c.scheme = FA_CP_ZIGZAG;
    assert_int_equal(fa_cp_predict(&c, &zz), FA_OK);
    c.P = 1;
    assert_int_equal(fa_cp_predict(&c, &one), FA_OK);
    assert_true(zz.time_s < ring.time_s);
    assert_true(zz.attn_flops < ring.attn_flops);
    /* the ring's last GPU: a causal 2048 chunk (half its tiles) + 3 full ones = 3.5 / 8 of the
     * causal whole (8 chunk-squares); zigzag: 2 / 8 plus the diagonal's share */
    assert_true(ring.attn_flops > 0.40 * one.attn_flops && ring.attn_flops < 0.47 * one.attn_flops);
    assert_true(zz.attn_flops > 0.24 * one.attn_flops && zz.attn_flops < 0.28 * one.attn_flops);
    assert_int_equal(zz.sent_bytes, ring.sent_bytes);
}

static void refused(fa_shape s, int64_t P, fa_cp_scheme sc, const char *want)
{
    fa_clear_error();
    assert_int_equal(fa_cp_check(&s, P, sc), FA_EINVAL);
    if (!strstr(fa_last_error(), want)) fail_msg("message '%s' lacks '%s'", fa_last_error(), want);
}

static void test_refusals(void **st)
{
    (void)st;
    const fa_shape s = mk(1, 64, 8, 131072, 128, FA_CAUSAL_BOTTOM_RIGHT);
    refused(s, 0, FA_CP_RING, "P = 0 GPUs is out of range: the limit is 1 to 1024");
    refused(s, -3, FA_CP_RING, "P = -3 GPUs is out of range: the limit is 1 to 1024");
    refused(s, 1025, FA_CP_RING, "P = 1025 GPUs is out of range: the limit is 1 to 1024");
    refused(s, 16, FA_CP_ULYSSES, "ulysses: H_kv = 8 kv heads is not a multiple of P = 16");
    refused(mk(1, 6, 6, 1200, 64, FA_CAUSAL_NONE), 4, FA_CP_ULYSSES, "ulysses: H = 6 query heads is not a multiple of P = 4");
    refused(mk(1, 4, 4, 1000, 64, FA_CAUSAL_NONE), 3, FA_CP_RING, "ring: N = 1000 is not a multiple of P = 3");
    refused(mk(1, 4, 4, 1020, 64, FA_CAUSAL_NONE), 4, FA_CP_ZIGZAG, "zigzag: N = 1020 is not a multiple of 2P = 8");
    refused(mk(1, 4, 4, 1020, 64, FA_CAUSAL_BOTTOM_RIGHT), 4, FA_CP_ALLGATHER,
            "allgather: N = 1020 is not a multiple of 2P = 8");
    assert_int_equal(fa_cp_check(&(fa_shape){0}, 2, (fa_cp_scheme)7), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "scheme 7 is not one of ring, zigzag, allgather, ulysses"));
    fa_shape x = s;
    x.seqlen_k = 4096;
    refused(x, 2, FA_CP_RING, "N_q = 131072 must equal N_k = 4096");
    x = s;
    x.window = 1, x.window_left = 4095, x.window_right = 0;
    refused(x, 2, FA_CP_RING, "full and causal attention only");
    fa_cp_scheme sc;
    assert_int_equal(fa_cp_scheme_parse("ulysses", &sc), FA_OK);
    assert_int_equal(sc, FA_CP_ULYSSES);
    assert_int_equal(fa_cp_scheme_parse("torus", &sc), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "unknown context-parallel scheme 'torus' (known: ring, zigzag, allgather, ulysses)"));
    /* P = 1 takes any N; P > 1 needs the link */
    assert_int_equal(fa_cp_check(&(fa_shape){.batch = 1, .heads = 3, .kv_heads = 1, .seqlen_q = 997, .seqlen_k = 997, .d = 8,
                                             .d_v = 8, .dtype = FA_DTYPE_FP16}, 1, FA_CP_ULYSSES), FA_OK);
    fa_cp_config c = {.shape = mk(1, 4, 4, 1024, 64, FA_CAUSAL_NONE), .hw = h200(), .P = 2, .scheme = FA_CP_RING};
    c.hw.nvlink_bandwidth = 0;
    fa_cp_result r;
    assert_int_equal(fa_cp_predict(&c, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "gives no nvlink_bytes_per_s"));
}

/* The NVLink rate of each shipped profile: the datasheets' per-direction figures. */
static void test_profiles(void **st)
{
    (void)st;
    static const struct { const char *key; double bw; } want[] = {
        {"a100", 300e9}, {"h100", 450e9}, {"h200", 450e9}, {"b200", 900e9}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        fa_hw hw;
        assert_int_equal(fa_hw_load(want[i].key, NULL, &hw), FA_OK);
        assert_true(hw.nvlink_bandwidth == want[i].bw);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_forms),  cmocka_unit_test(test_ring_by_hand),
        cmocka_unit_test(test_counted_equals_formula), cmocka_unit_test(test_one_gpu),
        cmocka_unit_test(test_zigzag_balances), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
