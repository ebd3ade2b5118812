/* test_compare.c -- `fasim compare`'s logic (analysis/fa_compare.h) on a hand-written measured
 * CSV: the fields each row parses to and their defaults, FILE:LINE messages of bad files, a
 * prediction equal to the closed form (two-level bytes), to the L2 model's compulsory bytes and
 * to fa_perf_predict's time for the same shape, and the summary's counts, median and largest
 * error computed by hand. */
#include <unistd.h>

#include "testutil.h"
#include "fa_compare.h"

/* A temporary file holding text; path receives its name (remove with unlink). */
static void write_tmp(char path[64], const char *text)
{
    snprintf(path, 64, "/tmp/fasim_test_compare_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Line 2: the shape of tests/cli_test.sh's compare check (B = 2, H = 4, N = 300, d = 32, fp16,
 * 64 x 32 tiles); line 5: a backward by its name, GQA, causal, bf16 by default, no tiles; line 6:
 * PyTorch's math backend by its name; line 7: the v3 kernel with nothing but the shape. */
static const char csv[] =
    "kernel,B,H,H_kv,N,d,causal,dtype,block_r,block_c,ms,dram_read_bytes,dram_write_bytes,l2_read_bytes,"
    "l2_write_bytes\n"
    "v3,2,4,,300,32,,fp16,64,32,0.01,460800,163200,,\n"
    "# a comment, then a blank line\n"
    "\n"
    "v1_bwd,1,2,1,256,64,1,,,,2.5,,,100,200\r\n"
    "sdpa_math,1,1,,1024.0,64,0,bf16,,,0.5,,,,\n"
    "v3,1,1,,1024,64,,,,,,,,,\n";

static void test_read_rows(void **state)
{
    (void)state;
    char path[64];
    write_tmp(path, csv);
    fa_cmp_reader *rd = NULL;
    assert_int_equal(fa_cmp_open(path, &rd), FA_OK);
    fa_cmp_row r;
    int got = 0;

    assert_int_equal(fa_cmp_next(rd, &r, &got), FA_OK);
    assert_int_equal(got, 1);
    assert_string_equal(r.file, path);
    assert_int_equal(r.line, 2);
    assert_string_equal(r.kernel, "v3");
    assert_int_equal(r.shape.batch, 2);
    assert_int_equal(r.shape.heads, 4);
    assert_int_equal(r.shape.kv_heads, 4); /* empty: H */
    assert_int_equal(r.shape.seqlen_q, 300);
    assert_int_equal(r.shape.seqlen_k, 300); /* no column: N_q */
    assert_int_equal(r.shape.d, 32);
    assert_int_equal(r.shape.d_v, 32);
    assert_int_equal(r.shape.causal, FA_CAUSAL_NONE);
    assert_int_equal(r.shape.dtype, FA_DTYPE_FP16);
    assert_int_equal(r.algo, FA_ALGO_FLASH2); /* the v3 profile's loop */
    assert_string_equal(r.profile->key, "v3");
    assert_int_equal(r.pass, FA_PASS_FWD);
    assert_int_equal(r.blocks.block_r, 64);
    assert_int_equal(r.blocks.block_c, 32);
    assert_int_equal(r.blocks_per_sm, 0);
    assert_true(r.ms == 0.01);
    assert_true(r.dram_read_bytes == 460800 && r.dram_write_bytes == 163200);
    assert_true(isnan(r.l2_read_bytes) && isnan(r.l2_write_bytes));

    assert_int_equal(fa_cmp_next(rd, &r, &got), FA_OK); /* the comment and the blank line skipped */
    assert_int_equal(got, 1);
    assert_int_equal(r.line, 5);
    assert_string_equal(r.kernel, "v1_bwd");
    assert_int_equal(r.shape.heads, 2);
    assert_int_equal(r.shape.kv_heads, 1);
    assert_int_equal(r.shape.seqlen_q, 256);
    assert_int_equal(r.shape.d, 64);
    assert_int_equal(r.shape.causal, FA_CAUSAL_BOTTOM_RIGHT);
    assert_int_equal(r.shape.dtype, FA_DTYPE_BF16); /* empty: bf16 */
    assert_int_equal(r.algo, FA_ALGO_FLASH1);       /* v1...: flash1 */
    assert_string_equal(r.profile->key, "v1");
    assert_int_equal(r.pass, FA_PASS_BWD); /* ..._bwd */
    assert_int_equal(r.blocks.block_r, 0);
    assert_int_equal(r.blocks.block_c, 0);
    assert_true(r.ms == 2.5);
    assert_true(isnan(r.dram_read_bytes) && isnan(r.dram_write_bytes));
    assert_true(r.l2_read_bytes == 100 && r.l2_write_bytes == 200); /* the CR of CRLF is the line end */

    assert_int_equal(fa_cmp_next(rd, &r, &got), FA_OK);
    assert_int_equal(r.line, 6);
    assert_int_equal(r.shape.seqlen_q, 1024); /* "1024.0" as a spreadsheet writes it */
    assert_int_equal(r.algo, FA_ALGO_STANDARD);
    assert_string_equal(r.profile->key, "math");
    assert_int_equal(r.pass, FA_PASS_FWD);

    assert_int_equal(fa_cmp_next(rd, &r, &got), FA_OK);
    assert_int_equal(r.line, 7);
    assert_true(isnan(r.ms));

    assert_int_equal(fa_cmp_next(rd, &r, &got), FA_OK);
    assert_int_equal(got, 0);
    fa_cmp_close(rd);
    unlink(path);

    int bwd = -1;
    assert_string_equal(fa_cmp_kernel_profile("sdpa_flash", &bwd)->key, "sdpa_flash");
    assert_int_equal(bwd, 0);
    assert_string_equal(fa_cmp_kernel_profile("v3_bwd_det", &bwd)->key, "v3");
    assert_int_equal(bwd, 1);
    assert_null(fa_cmp_kernel_profile("my_kernel_bwd", &bwd));
    assert_int_equal(bwd, 1);
    assert_null(fa_cmp_kernel_profile("paper", &bwd)); /* not a kernel */
    /* kernels/ v5's backward and its variants (fabench names): each its own profile, the
     * deterministic one timed as v5_bwd, KEY_det as KEY, a variant without a profile as v5_bwd;
     * v5's forward variants by their names */
    static const char *const v5b[][2] = {{"v5_bwd", "v5_bwd"}, {"v5_bwd_det", "v5_bwd"},
                                         {"v5_bwd_pers", "v5_bwd_pers"}, {"v5_bwd_atomic", "v5_bwd_atomic"},
                                         {"v5_bwd_lean", "v5_bwd_lean"}, {"v5_bwd_lean_det", "v5_bwd_lean"},
                                         {"v5_bwd_s1r", "v5_bwd"}};
    for (int i = 0; i < 7; i++) {
        bwd = 0;
        assert_string_equal(fa_cmp_kernel_profile(v5b[i][0], &bwd)->key, v5b[i][1]);
        assert_int_equal(bwd, 1);
    }
    assert_string_equal(fa_cmp_kernel_profile("v5_fa4", &bwd)->key, "v5_fa4");
    assert_int_equal(bwd, 0);
    /* kernels/ v5_fp8 and its V -> V^T pre-pass (fabench names): both the v5_fp8 profile */
    assert_string_equal(fa_cmp_kernel_profile("v5_fp8", &bwd)->key, "v5_fp8");
    assert_int_equal(bwd, 0);
    assert_string_equal(fa_cmp_kernel_profile("v5_fp8_prepass", &bwd)->key, "v5_fp8");
    assert_int_equal(bwd, 0);
    assert_null(fa_cmp_kernel_profile("paper_prepass", &bwd));
}


/* A file whose first failure is status st with a message holding "PATH" + want. */
static void expect_fail(const char *text, int at_open, fa_status st, const char *want)
{
    char path[64], msg[256];
    write_tmp(path, text);
    fa_cmp_reader *rd = NULL;
    fa_status got_st = fa_cmp_open(path, &rd);
    if (!at_open) {
        assert_int_equal(got_st, FA_OK);
        fa_cmp_row r;
        int got = 1;
        while ((got_st = fa_cmp_next(rd, &r, &got)) == FA_OK && got) {
        }
        fa_cmp_close(rd);
    } else {
        assert_null(rd);
    }
    assert_int_equal(got_st, st);
    snprintf(msg, sizeof msg, "%s%s", path, want);
    if (!strstr(fa_last_error(), msg)) fail_msg("message '%s' lacks '%s'", fa_last_error(), msg);
    unlink(path);
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_fail("", 1, FA_EINVAL, " is empty");
    expect_fail("kernel,B,H,N_q\nv3,1,1,64\n", 1, FA_EINVAL, ": the header needs the columns kernel, B, H, N_q (or N) and d");
    expect_fail("kernel,B,H,N_q,d,causl\n", 1, FA_EINVAL, ":1: unknown column 'causl' (column 6 of the header)");
    expect_fail("kernel,B,H,N,N_q,d\n", 1, FA_EINVAL, ":1: the header names both 'N_q' and 'N'");
    expect_fail("kernel,B,H,N_q,d\n", 0, FA_EINVAL, " has a header but no rows");
    expect_fail("kernel,B,H,N_q,d\nv3,1,1,64,64\nv3,1,1,1024.5,64\n", 0, FA_EINVAL,
                ":3: column N_q = '1024.5' must be a whole number from 1 to 2147483647");
    expect_fail("kernel,B,H,N_q,d\nv3,1,1,64\n", 0, FA_EINVAL, ":2: 4 fields, the header has 5");
    expect_fail("kernel,B,H,N_q,d,ms\nv3,1,1,64,64,0\n", 0, FA_EINVAL, ":2: column ms = '0' must be a finite number > 0");
    expect_fail("kernel,B,H,N_q,d,block_r\nv3,1,1,64,64,16\n", 0, FA_EINVAL, ":2: block_r = '16' but block_c = ''");
    expect_fail("kernel,B,H,N_q,d,pass\nv3,1,1,64,64,fwdbwd\n", 0, FA_EINVAL, ":2: pass 'fwdbwd' is not fwd or bwd");
    expect_fail("kernel,B,H,H_kv,N_q,d\nv3,1,3,2,64,64\n", 0, FA_EINVAL, ":2: ");
    fa_cmp_reader *rd = (fa_cmp_reader *)1;
    assert_int_equal(fa_cmp_open("/nonexistent/fasim.csv", &rd), FA_EIO);
    assert_null(rd);
    assert_non_null(strstr(fa_last_error(), "cannot open measured file /nonexistent/fasim.csv"));
    assert_int_equal(fa_cmp_open("/tmp", &rd), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "measured file /tmp is a directory"));
}

/* Reads the row on line `line` of csv. */
static fa_cmp_row row_at(const char *path, fa_cmp_reader **rd, int line)
{
    assert_int_equal(fa_cmp_open(path, rd), FA_OK);
    fa_cmp_row r;
    int got = 1;
    do {
        assert_int_equal(fa_cmp_next(*rd, &r, &got), FA_OK);
        assert_int_equal(got, 1);
    } while (r.line != line);
    return r;
}

static void test_predict(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    char path[64];
    write_tmp(path, csv);
    static fa_cmp_pred p;
    static fa_perf_result pr;
    fa_cmp_reader *rd;

    /* line 2: flash2 with T_r = ceil(300 / 64) = 5 row blocks over 2 x 4 heads of 300 x 32 fp16:
     * SRAM<->L2 = Q + 5 K + 5 V + O (153600 B each) + LSE (2 x 4 x 300 x 4 = 9600 B) = 1852800;
     * the L2 (60 MiB) holds everything, so DRAM = Q + K + V + O + LSE = 624000 */
    fa_cmp_row r = row_at(path, &rd, 2);
    assert_int_equal(fa_cmp_predict(&r, &hw, hw.sram_per_block, 1, &p), FA_OK);
    assert_int_equal(p.blocks.block_r, 64);
    assert_int_equal(p.blocks.block_c, 32);
    assert_int_equal(p.blocks_from_table, 0);
    assert_int_equal(p.sram, hw.sram_per_block);
    assert_true(p.pred_l2_bytes == 1852800);
    assert_int_equal(p.l2, 1);
    assert_true(p.pred_dram_bytes == 624000);
    assert_true(p.meas_dram_bytes == 460800 + 163200);
    assert_true(isnan(p.meas_l2_bytes));
    assert_true(p.meas_ms == 0.01);
    /* the time: fa_perf_predict's for the same shape, profile and tiles */
    fa_blocks bk = {64, 32};
    assert_int_equal(fa_perf_predict(fa_profile_find("v3"), FA_PASS_FWD, &r.shape, &hw, &bk, &pr), FA_OK);
    assert_int_equal(p.timed, 1);
    assert_true(p.pred_ms == 1e3 * pr.time_s);
    /* bound: what sets the time, as fasim io prints it; busiest: the busiest pipe */
    assert_string_equal(p.busiest, fa_pipe_name(pr.bound));
    assert_string_equal(p.bound, pr.latency == 1 ? "launch" : pr.latency ? "grid" : pr.sets ? pr.sets : fa_pipe_name(pr.bound));
    assert_int_equal(p.model_blocks_per_sm, pr.occ[0].occupancy);
    /* the L2 replay took the time model's occupancy (the row gives none) */
    assert_int_equal(p.blocks_per_sm, pr.occ[0].occupancy);
    /* without the L2 model: no DRAM prediction, the same time */
    double ms = p.pred_ms;
    assert_int_equal(fa_cmp_predict(&r, &hw, hw.sram_per_block, 0, &p), FA_OK);
    assert_int_equal(p.l2, 0);
    assert_true(isnan(p.pred_dram_bytes));
    assert_int_equal(p.blocks_per_sm, 0);
    assert_true(p.pred_ms == ms);
    /* M = 1024 B: Q_i, K_j, V_j need (64 x 32 + 32 x 32 + 32 x 32) x 2 = 8192 B */
    assert_int_equal(fa_cmp_predict(&r, &hw, 1024, 0, &p), FA_EINVAL);
    char want[256];
    snprintf(want, sizeof want, "%s:2: tiles B_r x B_c = 64 x 32 do not fit SRAM: Q_i, K_j, V_j (d = 32, d_v = 32, "
                                "fp16) need 8192 B, M = 1024 B", path);
    assert_string_equal(fa_last_error(), want);
    fa_cmp_close(rd);

    /* line 7: v3's own tiles at d = 64 (128 x 64, its tile table), bf16, N = 1024: T_r = 8,
     * Q + 8 K + 8 V + O = 131072 x 18 = 2359296 B, LSE 4096 B */
    r = row_at(path, &rd, 7);
    assert_int_equal(fa_cmp_predict(&r, &hw, hw.sram_per_block, 1, &p), FA_OK);
    assert_int_equal(p.blocks_from_table, 1);
    assert_int_equal(p.blocks.block_r, 128);
    assert_int_equal(p.blocks.block_c, 64);
    assert_true(p.pred_l2_bytes == 2363392);
    assert_int_equal(p.l2, 0); /* no measured DRAM bytes: no replay */
    assert_int_equal(fa_perf_predict(fa_profile_find("v3"), FA_PASS_FWD, &r.shape, &hw, NULL, &pr), FA_OK);
    assert_true(p.pred_ms == 1e3 * pr.time_s);
    assert_true(isnan(p.meas_ms));
    fa_cmp_close(rd);
    unlink(path);
}

/* A prediction with only the numbers the summary reads. */
static fa_cmp_pred pm(double pms, double mms, double pl2, double ml2)
{
    fa_cmp_pred p;
    memset(&p, 0, sizeof p);
    p.pred_ms = pms;
    p.meas_ms = mms;
    p.pred_l2_bytes = pl2;
    p.meas_l2_bytes = ml2;
    p.pred_dram_bytes = p.meas_dram_bytes = NAN;
    return p;
}

static void test_summary(void **state)
{
    (void)state;
    assert_true(fa_cmp_ratio(2, 4) == 0.5);
    assert_true(isnan(fa_cmp_ratio(2, 0)));
    assert_true(isnan(fa_cmp_ratio(NAN, 4)));
    assert_true(isnan(fa_cmp_ratio(2, NAN)));
    static fa_cmp_summary m;
    memset(&m, 0, sizeof m);
    /* time errors |p / m - 1|: 0.1, 0.2, 0, 0.5; a row without ms and one measured 0 are left out */
    static fa_cmp_pred rows[6];
    rows[0] = pm(1.1, 1.0, 90, 100); /* L2: 0.1 */
    rows[1] = pm(0.8, 1.0, NAN, 100);
    rows[2] = pm(1.0, 1.0, 100, NAN);
    rows[3] = pm(3.0, 2.0, 130, 100); /* L2: 0.3 */
    rows[4] = pm(1.0, NAN, 100, 0);
    rows[5] = pm(1.0, 0, NAN, NAN);
    for (int i = 0; i < 6; i++) fa_cmp_summary_add(&m, &rows[i]);
    fa_cmp_stat t = fa_cmp_summary_stat(&m, FA_CMP_TIME);
    assert_int_equal(t.rows, 4);
    assert_int_equal(t.full, 0);
    assert_int_equal(t.within, 2); /* 0 and 0.1 are within 15 % */
    assert_true(t.limit == 0.15);
    assert_true(fabs(t.median - 0.15) < 1e-12); /* sorted 0, 0.1, 0.2, 0.5: (0.1 + 0.2) / 2 */
    assert_true(fabs(t.largest - 0.5) < 1e-12);
    t = fa_cmp_summary_stat(&m, FA_CMP_L2);
    assert_int_equal(t.rows, 2);
    assert_int_equal(t.within, 1); /* 0.1 within 10 %, 0.3 not */
    assert_true(fabs(t.median - 0.2) < 1e-12);
    assert_true(fabs(t.largest - 0.3) < 1e-12);
    t = fa_cmp_summary_stat(&m, FA_CMP_DRAM);
    assert_int_equal(t.rows, 0);
    assert_int_equal(t.within, 0);
    assert_true(t.median == 0 && t.largest == 0);
    /* an odd count: the middle one */
    fa_cmp_pred one = pm(1.4, 1.0, NAN, NAN);
    fa_cmp_summary_add(&m, &one);
    t = fa_cmp_summary_stat(&m, FA_CMP_TIME);
    assert_int_equal(t.rows, 5);
    assert_true(fabs(t.median - 0.2) < 1e-12); /* 0, 0.1, 0.2, 0.4, 0.5 */
    /* the first FA_CMP_SUMMARY_MAX rows only */
    memset(&m, 0, sizeof m);
    for (int i = 0; i <= FA_CMP_SUMMARY_MAX; i++) fa_cmp_summary_add(&m, &one);
    t = fa_cmp_summary_stat(&m, FA_CMP_TIME);
    assert_int_equal(t.rows, FA_CMP_SUMMARY_MAX);
    assert_int_equal(t.full, 1);
    assert_int_equal(t.within, 0);
}

/* fabench's rows of kernels/ v5_fp8 (its CSV columns, dtype fp8_e4m3): the kernel timed as the
 * v5_fp8 profile with its own bytes (bf16 O, the scales: tests/test_perf.c test_v5_fp8_bytes), the
 * v5_fp8_prepass row as the pre-pass alone (B H_kv N d bytes each way, its time); a bf16 row of
 * v5_fp8, the pre-pass of a profile without one and a backward pre-pass are refused, FILE:LINE. */
static void test_fp8_rows(void **state)
{
    (void)state;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    char path[64];
    write_tmp(path, "kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass\n"
                    "v5_fp8,2,4,2,1000,1000,128,0,fp8_e4m3,0.05,0,0,0,PASS\n"
                    "v5_fp8_prepass,2,4,2,1000,1000,128,0,fp8_e4m3,0.005,0,0,0,PASS\n");
    static fa_cmp_pred p;
    static fa_perf_result pr;
    fa_cmp_reader *rd;
    fa_cmp_row r = row_at(path, &rd, 2);
    assert_string_equal(r.profile->key, "v5_fp8");
    assert_int_equal(r.prepass, 0);
    assert_int_equal(r.shape.dtype, FA_DTYPE_E4M3);
    assert_int_equal(fa_cmp_predict(&r, &hw, hw.sram_per_block, 1, &p), FA_OK);
    assert_int_equal(p.timed, 1);
    assert_true(p.pred_l2_bytes == 19492352); /* test_v5_fp8_bytes's closed form */
    assert_int_equal(fa_perf_predict(fa_profile_find("v5_fp8"), FA_PASS_FWD, &r.shape, &hw, NULL, &pr), FA_OK);
    assert_true(p.pred_ms == 1e3 * pr.time_s);
    fa_cmp_close(rd);
    r = row_at(path, &rd, 3);
    assert_string_equal(r.profile->key, "v5_fp8");
    assert_int_equal(r.prepass, 1);
    assert_int_equal(r.pass, FA_PASS_FWD);
    assert_int_equal(fa_cmp_predict(&r, &hw, hw.sram_per_block, 1, &p), FA_OK);
    assert_true(p.pred_l2_bytes == 2 * 512000);
    assert_true(p.pred_ms == 1e3 * pr.prepass_s);
    assert_true(isnan(p.pred_dram_bytes));
    assert_string_equal(p.bound, "DRAM");
    assert_string_equal(p.busiest, "DRAM");
    fa_cmp_close(rd);
    unlink(path);
    expect_fail("kernel,B,H,N_q,d,dtype,ms\nv5_prepass,1,1,1024,128,bf16,1\n", 0, FA_EINVAL,
                ":2: kernel 'v5_prepass' names the pre-pass of profile v5, which has none (pre-passes: v5_fp8_prepass)");
    expect_fail("kernel,B,H,N_q,d,ms\nnope_prepass,1,1,1024,128,1\n", 0, FA_EINVAL,
                ":2: kernel 'nope_prepass' ends in _prepass but names no kernel profile (pre-passes: v5_fp8_prepass)");
    expect_fail("kernel,B,H,N_q,d,dtype,pass,ms\nv5_fp8_prepass,1,1,1024,128,fp8_e4m3,bwd,1\n", 0, FA_EINVAL,
                ":2: kernel 'v5_fp8_prepass' is a forward kernel's pre-pass, not a backward");
    /* a bf16 row of the fp8 kernel: refused when predicted, naming the dtype */
    write_tmp(path, "kernel,B,H,N_q,d,dtype,ms\nv5_fp8,1,1,1024,128,bf16,1\n");
    r = row_at(path, &rd, 2);
    assert_int_equal(fa_cmp_predict(&r, &hw, hw.sram_per_block, 1, &p), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), ":2: profile v5_fp8 takes --dtype fp8_e4m3 only (the kernel's input format), not bf16"));
    fa_cmp_close(rd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_rows),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_predict),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_fp8_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
