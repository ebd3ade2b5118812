/* test_sweep.c -- `fasim sweep`'s ranges (analysis/fa_sweep.h): geometric, arithmetic and list
 * ranges computed by hand, the 64-bit stop, the 4096-value and 100000-point limits, each error
 * with the message the command line prints, a caller's value reader (the command line's byte
 * sizes for sram), and the order of the cartesian product's points. */
#include "testutil.h"
#include "fa_sweep.h"

static fa_sweep_range R; /* 32 KiB: not on the stack */

static void expect_values(const char *spec, const char *name, const uint64_t *v, int n)
{
    assert_int_equal(fa_sweep_parse(spec, NULL, NULL, &R), FA_OK);
    assert_string_equal(R.name, name);
    assert_int_equal(R.n, n);
    for (int i = 0; i < n; i++) assert_int_equal(R.v[i], v[i]);
}

static void expect_error(const char *spec, const char *msg)
{
    fa_clear_error();
    assert_int_equal(fa_sweep_parse(spec, NULL, NULL, &R), FA_EINVAL);
    assert_string_equal(fa_last_error(), msg);
}

static void test_ranges(void **state)
{
    (void)state;
    expect_values("seqlen=512:4096:x2", "seqlen", (const uint64_t[]){512, 1024, 2048, 4096}, 4);
    /* STOP need not be reached: 100, 300, 900 (2700 > 1000) */
    expect_values("headdim=100:1000:x3", "headdim", (const uint64_t[]){100, 300, 900}, 3);
    expect_values("seqlen=16:64:+16", "seqlen", (const uint64_t[]){16, 32, 48, 64}, 4);
    expect_values("block-r=16:70:+16", "block-r", (const uint64_t[]){16, 32, 48, 64}, 4);
    expect_values("batch=5:5:x2", "batch", (const uint64_t[]){5}, 1);
    /* a list keeps its order; a repeated value (the same point twice) is refused */
    expect_values("heads=3,1,2", "heads", (const uint64_t[]){3, 1, 2}, 3);
    expect_error("heads=3,1,2,1", "--vary heads=3,1,2,1: '1' repeats the value 1 (list each value once)");
    expect_values("kv-len=7", "kv-len", (const uint64_t[]){7}, 1);
    /* the limits of the fixed options: --block-r up to 2^20, --seqlen up to 2^31 - 1 */
    expect_values("block-c=1048576,1", "block-c", (const uint64_t[]){1048576, 1}, 2);
    expect_values("seqlen-k=2147483647", "seqlen-k", (const uint64_t[]){2147483647}, 1);
    /* sram without a reader of its own: whole bytes up to 2^63 - 1; doubling stops at 2^62 */
    assert_int_equal(fa_sweep_parse("sram=1:9223372036854775807:x2", NULL, NULL, &R), FA_OK);
    assert_int_equal(R.n, 63);
    assert_int_equal(R.v[62], (uint64_t)1 << 62);
    /* exactly 4096 values */
    assert_int_equal(fa_sweep_parse("seqlen=1:4096:+1", NULL, NULL, &R), FA_OK);
    assert_int_equal(R.n, 4096);
    assert_int_equal(R.v[4095], 4096);
    /* a RANGE is read up to its first 1023 characters: 600 items "100,", "101," ... are cut to
     * 255 whole items and the 1021st-1023rd characters, "355": 256 values, 100 ... 355 */
    char spec[2600] = "heads=";
    for (int i = 0; i < 600; i++) sprintf(spec + strlen(spec), "%d,", 100 + i);
    strcat(spec, "700");
    assert_int_equal(fa_sweep_parse(spec, NULL, NULL, &R), FA_OK);
    assert_int_equal(R.n, 256);
    assert_int_equal(R.v[0], 100);
    assert_int_equal(R.v[255], 355);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("seqlen", "--vary 'seqlen' must read NAME=RANGE (see fasim sweep --help)");
    expect_error(NULL, "--vary '' must read NAME=RANGE (see fasim sweep --help)");
    expect_error("colour=1,2", "--vary: unknown parameter 'colour' (seqlen, seqlen-k, headdim, headdim-v, batch, "
                               "heads, kv-heads, sram, block-r, block-c, kv-len, splits, page-size)");
    expect_error("=1", "--vary: unknown parameter '' (seqlen, seqlen-k, headdim, headdim-v, batch, "
                       "heads, kv-heads, sram, block-r, block-c, kv-len, splits, page-size)");
    expect_error("seqlen=", "--vary seqlen=: an empty item in the list");
    expect_error("seqlen=,1", "--vary seqlen=,1: an empty item in the list");
    expect_error("seqlen=1,,2", "--vary seqlen=1,,2: an empty item in the list");
    expect_error("seqlen=1,", "--vary seqlen=1,: an empty item in the list");
    expect_error("seqlen=64,0", "--vary seqlen = '0' must be an integer in [1, 2147483647]");
    expect_error("seqlen=2147483648", "--vary seqlen = '2147483648' must be an integer in [1, 2147483647]");
    expect_error("seqlen=1, 2", "--vary seqlen = ' 2' must be an integer in [1, 2147483647] (digits only: no blanks)");
    expect_error("seqlen=+5,6", "--vary seqlen = '+5' must be an integer in [1, 2147483647]");
    expect_error("block-r=1048577", "--vary block-r = '1048577' must be an integer in [1, 1048576]");
    expect_error("seqlen=1:2", "--vary seqlen=1:2: a range reads START:STOP:xFACTOR or START:STOP:+STEP");
    expect_error("seqlen=1:2:y3", "--vary seqlen=1:2:y3: a range reads START:STOP:xFACTOR or START:STOP:+STEP");
    expect_error("seqlen=a:2:x2", "--vary seqlen = 'a' must be an integer in [1, 2147483647]");
    expect_error("seqlen=1:b:x2", "--vary seqlen = 'b' must be an integer in [1, 2147483647]");
    expect_error("seqlen=1:2:x1", "--vary factor = '1' must be an integer in [2, 2147483647]");
    expect_error("seqlen=1:2:x", "--vary factor = '' must be an integer in [2, 2147483647]");
    expect_error("seqlen=1:2:x2:3", "--vary factor = '2:3' must be an integer in [2, 2147483647]");
    expect_error("seqlen=1:2:+0", "--vary step = '0' must be an integer in [1, 2147483647]");
    expect_error("seqlen=1:2:+ 1", "--vary step = ' 1' must be an integer in [1, 2147483647] (digits only: no blanks)");
    /* START and STOP are read before the step; the order is checked last */
    expect_error("seqlen=512:100:x1", "--vary factor = '1' must be an integer in [2, 2147483647]");
    expect_error("seqlen=512:100:x2", "--vary seqlen: STOP 100 is below START 512");
    expect_error("seqlen=1:10000:+1", "--vary seqlen: 1:10000:+1 is 10000 values, more than 4096");
}

/* A reader of byte sizes "NKiB" / "N" (the command line uses cli_parse_bytes); counts its calls. */
static fa_status kib(void *ctx, const char *name, const char *text, uint64_t *out)
{
    ++*(int *)ctx;
    assert_string_equal(name, "sram");
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text) FA_FAIL(FA_EINVAL, "--vary sram: '%s' is not a byte size", text);
    if (!strcmp(end, "KiB")) v *= 1024;
    else if (*end) FA_FAIL(FA_EINVAL, "--vary sram: '%s' is not a byte size", text);
    *out = v;
    return FA_OK;
}

static void test_reader(void **state)
{
    (void)state;
    int calls = 0;
    assert_int_equal(fa_sweep_parse("sram=64KiB,128KiB,227KiB", kib, &calls, &R), FA_OK);
    assert_int_equal(calls, 3);
    assert_int_equal(R.n, 3);
    assert_int_equal(R.v[0], 65536);
    assert_int_equal(R.v[1], 131072);
    assert_int_equal(R.v[2], 232448);
    calls = 0; /* START and STOP through the reader, the factor not */
    assert_int_equal(fa_sweep_parse("sram=1KiB:64KiB:x4", kib, &calls, &R), FA_OK);
    assert_int_equal(calls, 2);
    assert_int_equal(R.n, 4);
    assert_int_equal(R.v[0], 1024);
    assert_int_equal(R.v[3], 65536);
    /* the 64-bit stop: 2^0 .. 2^63, then 2^64 would wrap */
    assert_int_equal(fa_sweep_parse("sram=1:18446744073709551615:x2", kib, &calls, &R), FA_OK);
    assert_int_equal(R.n, 64);
    assert_int_equal(R.v[63], (uint64_t)1 << 63);
    assert_int_equal(fa_sweep_parse("sram=18446744073709551614:18446744073709551615:+5", kib, &calls, &R), FA_OK);
    assert_int_equal(R.n, 1);
    assert_int_equal(R.v[0], UINT64_MAX - 1);
    /* the reader's message is the error */
    assert_int_equal(fa_sweep_parse("sram=64KiB,abc", kib, &calls, &R), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--vary sram: 'abc' is not a byte size");
    /* the default reader for another parameter */
    uint64_t v = 0;
    assert_int_equal(fa_sweep_value("splits", "12", &v), FA_OK);
    assert_int_equal(v, 12);
    assert_int_equal(fa_sweep_value("splits", "12x", &v), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--vary splits = '12x' must be an integer in [1, 2147483647]");
}

static void test_product(void **state)
{
    (void)state;
    static fa_sweep sw;
    sw.n = 0;
    long total = 0;
    assert_int_equal(fa_sweep_count(&sw, &total), FA_OK);
    assert_int_equal(total, 1);
    assert_int_equal(fa_sweep_add(&sw, "seqlen=512:1024:x2", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_add(&sw, "headdim=64,128,32", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_add(&sw, "seqlen=3", NULL, NULL), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--vary seqlen given twice");
    assert_int_equal(sw.n, 2);
    assert_true(fa_sweep_varies(&sw, "headdim"));
    assert_false(fa_sweep_varies(&sw, "block-r"));
    assert_int_equal(fa_sweep_count(&sw, &total), FA_OK);
    assert_int_equal(total, 6);
    /* row-major: the last range fastest */
    static const uint64_t want[6][2] = {{512, 64}, {512, 128}, {512, 32}, {1024, 64}, {1024, 128}, {1024, 32}};
    for (long p = 0; p < total; p++) {
        uint64_t v[FA_SWEEP_MAX_VARY];
        fa_sweep_point(&sw, p, v);
        assert_int_equal(v[0], want[p][0]);
        assert_int_equal(v[1], want[p][1]);
    }
    assert_int_equal(fa_sweep_add(&sw, "batch=1,2", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_add(&sw, "heads=1:3:+1", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_count(&sw, &total), FA_OK);
    assert_int_equal(total, 36);
    uint64_t v[FA_SWEEP_MAX_VARY];
    fa_sweep_point(&sw, 35, v); /* the last point: the last value of each */
    assert_int_equal(v[0], 1024);
    assert_int_equal(v[1], 32);
    assert_int_equal(v[2], 2);
    assert_int_equal(v[3], 3);
    fa_sweep_point(&sw, 7, v); /* 7 = ((0 * 3 + 1) * 2 + 0) * 3 + 1 */
    assert_int_equal(v[0], 512);
    assert_int_equal(v[1], 128);
    assert_int_equal(v[2], 1);
    assert_int_equal(v[3], 2);
    assert_int_equal(fa_sweep_add(&sw, "kv-heads=1", NULL, NULL), FA_EINVAL);
    assert_string_equal(fa_last_error(), "at most 4 --vary options");
    /* 4096 x 4096 points */
    sw.n = 0;
    assert_int_equal(fa_sweep_add(&sw, "seqlen=1:4096:+1", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_add(&sw, "headdim=1:4096:+1", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_count(&sw, &total), FA_EINVAL);
    assert_string_equal(fa_last_error(), "the sweep has 16777216 points (4096 x 4096), more than 100000");
}

/* Both tiles at every point: each fixed or varied. */
static void test_check_tiles(void **state)
{
    (void)state;
    static fa_sweep sw;
    sw.n = 0;
    assert_int_equal(fa_sweep_check_tiles(&sw, 0, 0), FA_OK); /* the rule's tiles */
    assert_int_equal(fa_sweep_check_tiles(&sw, 1, 1), FA_OK);
    assert_int_equal(fa_sweep_check_tiles(&sw, 1, 0), FA_EINVAL);
    assert_string_equal(fa_last_error(), "give both --block-r and --block-c (or --vary the other one)");
    assert_int_equal(fa_sweep_add(&sw, "block-r=16,32", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_check_tiles(&sw, 0, 1), FA_OK); /* B_r varied, B_c fixed */
    assert_int_equal(fa_sweep_check_tiles(&sw, 0, 0), FA_EINVAL);
    assert_string_equal(fa_last_error(), "varying block-r or block-c needs the other one (--block-c / --block-r or --vary)");
    assert_int_equal(fa_sweep_add(&sw, "block-c=16:64:x2", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_check_tiles(&sw, 0, 0), FA_OK); /* both varied */
    sw.n = 0;
    assert_int_equal(fa_sweep_add(&sw, "block-c=16", NULL, NULL), FA_OK);
    assert_int_equal(fa_sweep_check_tiles(&sw, 1, 0), FA_OK);
    assert_int_equal(fa_sweep_check_tiles(&sw, 0, 0), FA_EINVAL);
    fa_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_product),
        cmocka_unit_test(test_check_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
