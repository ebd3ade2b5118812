/* test_records.c -- the words and records of analysis/records.c (fa_records.h): masks in words
 * (exact digits for the check's records), human units at their boundaries, RFC 4180 fields, and
 * the CSV / JSON records of a counted pass against the closed form computed by hand
 * (FlashAttention-2 forward, N = 256, d = 64, fp16, B_r = B_c = 64: T_r = 4, so Q is read once,
 * K and V four times, O and LSE written once: 32768 + 2 x 131072 + 32768 + 1024 = 328704 B). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fa_records.h"

/* What fn writes to a FILE, as a string (caller frees). */
static char *captured(void (*fn)(FILE *, void *), void *ctx)
{
    /* the stream's buffer pointer on the heap: gcc -O2's dangling-pointer check takes a local's
     * address, kept by open_memstream, for the returned buffer */
    struct mem {
        char *buf;
        size_t len;
    } *m = calloc(1, sizeof *m);
    assert_non_null(m);
    FILE *f = open_memstream(&m->buf, &m->len);
    assert_non_null(f);
    fn(f, ctx);
    assert_int_equal(fclose(f), 0);
    char *out = m->buf;
    free(m);
    return out;
}

/* The number of comma-separated fields of the line starting at p (no quotes in it). */
static int fields(const char *p)
{
    int n = 1;
    for (; *p && *p != '\n'; p++) n += *p == ',';
    return n;
}

/* The value of column name in a two-line CSV (header, row), as a double. */
static double csv_value(const char *csv, const char *name)
{
    const char *row = strchr(csv, '\n') + 1;
    int col = 0;
    for (const char *p = csv; p < row;) {
        size_t l = strcspn(p, ",\n");
        if (l == strlen(name) && !strncmp(p, name, l)) break;
        p += l + 1;
        col++;
    }
    for (int k = 0; k < col; k++) row = strchr(row, ',') + 1;
    return strtod(row, NULL);
}

static void test_mask_text(void **state)
{
    (void)state;
    char b[256];
    fa_shape s = fa_shape_default(256, 64);
    assert_string_equal(fa_mask_text(&s, 0, b, sizeof b), "no mask");
    assert_string_equal(fa_mask_name(&s, b, sizeof b), "none");
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    s.window = 1, s.window_left = 3, s.window_right = 0;
    s.softcap = 0.9999999999999;
    s.dropout_p = 0.125;
    assert_string_equal(fa_mask_text(&s, 0, b, sizeof b), "causal (bottom-right), window (3, 0), softcap 1, dropout 0.125");
    assert_string_equal(fa_mask_text(&s, 1, b, sizeof b),
                        "causal (bottom-right), window (3, 0), softcap 0.9999999999999, dropout 0.125");
    assert_string_equal(fa_mask_name(&s, b, sizeof b), "causal (bottom-right), window (3, 0), softcap 0.9999999999999, dropout 0.125");
    fa_shape t = fa_shape_default(256, 64);
    t.causal = FA_CAUSAL_TOP_LEFT;
    t.alibi = 1;
    assert_string_equal(fa_mask_text(&t, 1, b, sizeof b), "causal (top-left), ALiBi");
    assert_string_equal(fa_mask_text(&s, 0, b, 12), "causal (bot"); /* cut to 11 characters, terminated */
}

static void test_units(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(fa_fmt_bytes(512, b, sizeof b), "512 B");
    assert_string_equal(fa_fmt_bytes(0.5, b, sizeof b), "0.5 B");
    assert_string_equal(fa_fmt_bytes(1024, b, sizeof b), "1 KiB");
    assert_string_equal(fa_fmt_bytes(12.6 * 1048576, b, sizeof b), "12.6 MiB");
    assert_string_equal(fa_fmt_bytes(1048575, b, sizeof b), "1 MiB"); /* 1023.999 KiB would read 1024 KiB */
    assert_string_equal(fa_fmt_si(999, b, sizeof b), "999");
    assert_string_equal(fa_fmt_si(3.2e9, b, sizeof b), "3.2 G");
    assert_string_equal(fa_fmt_si(-1500, b, sizeof b), "-1.5 K");
    assert_string_equal(fa_fmt_time(1.5, b, sizeof b), "1.5 s");
    assert_string_equal(fa_fmt_time(0.0015, b, sizeof b), "1.5 ms");
    assert_string_equal(fa_fmt_time(2.5e-6, b, sizeof b), "2.5 us");
    assert_string_equal(fa_fmt_time(2.5e-9, b, sizeof b), "2.5 ns");
}

static void write_fields(FILE *f, void *ctx)
{
    (void)ctx;
    fa_csv_field(f, "plain");
    fputc('|', f);
    fa_csv_field(f, "a,b");
    fputc('|', f);
    fa_csv_field(f, "say \"hi\"");
    fputc('|', f);
    fa_csv_field(f, "two\nlines");
}

static void test_csv_pieces(void **state)
{
    (void)state;
    char *out = captured(write_fields, NULL);
    assert_string_equal(out, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"");
    free(out);
    assert_int_equal(fa_csv_has_col("a,bb,c", "b"), 0);
    assert_int_equal(fa_csv_has_col("a,bb,c", "bb"), 1);
    assert_int_equal(fa_csv_has_col("a,bb,c", "a"), 1);
    assert_int_equal(fa_csv_has_col("a,bb,c", "c"), 1);
    assert_int_equal(fa_csv_has_col("a,bb,c", "bb,c"), 1); /* a prefix of the rest: the caller names one column */
    assert_int_equal(fa_csv_has_col("", "a"), 0);
}

/* FlashAttention-2's forward on the header's shape, counted, with the h200 profile's roofline. */
typedef struct {
    fa_shape s;
    fa_io_result r;
    fa_hw hw;
    fa_col cols[2];
} io_case;

static void io_setup(io_case *c)
{
    c->s = fa_shape_default(256, 64);
    assert_int_equal(fa_hw_load("h200", NULL, &c->hw), FA_OK);
    assert_int_equal(fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &c->s, (fa_blocks){64, 64}, 227 * 1024, &c->hw, NULL, &c->r), FA_OK);
    c->cols[0].name = "seqlen";
    snprintf(c->cols[0].value, sizeof c->cols[0].value, "256");
    c->cols[1].name = "batch"; /* a column the record has: not repeated */
    snprintf(c->cols[1].value, sizeof c->cols[1].value, "1");
}

static void write_io(FILE *f, void *ctx)
{
    io_case *c = ctx;
    fa_io_csv(f, &c->s, c->hw.key, 1, &c->r, 1, c->cols, 2, 1);
}

static void test_io_records(void **state)
{
    (void)state;
    io_case c;
    io_setup(&c);
    char *csv = captured(write_io, &c);
    assert_true(!strncmp(csv, "seqlen,algo,pass,batch,", strlen("seqlen,algo,pass,batch,")));
    assert_int_equal(fields(csv), fields(strchr(csv, '\n') + 1));
    assert_int_equal(fields(csv), 1 + 56 + 2 * FA_PASS_TENSORS); /* seqlen, the record, --breakdown's pairs */
    const char *row = "256,flash2,fwd,1,1,1,256,256,64,64,fp16,none,h200,";
    assert_true(!strncmp(strchr(csv, '\n') + 1, row, strlen(row)));
    assert_true(csv_value(csv, "hbm_bytes") == 328704);
    assert_true(csv_value(csv, "hbm_read_bytes") == 32768 + 2 * 131072);
    assert_true(csv_value(csv, "formula_match") == 1);
    assert_true(csv_value(csv, "K_read_bytes") == 131072);
    assert_true(csv_value(csv, "LSE_write_bytes") == 1024);
    /* no kernel profile ran: the table's time is the roofline, time_s = roofline_s (issue 18) */
    assert_true(csv_value(csv, "time_s") > 0 && csv_value(csv, "time_s") == csv_value(csv, "roofline_s"));
    assert_true(csv_value(csv, "roofline_s") == fmax(csv_value(csv, "roofline_compute_s"), csv_value(csv, "roofline_memory_s")));
    free(csv);

    json_t *arr = json_array();
    fa_io_json(arr, &c.s, c.hw.key, &c.r, 1, c.cols, 2);
    assert_int_equal(json_array_size(arr), 1);
    json_t *j = json_array_get(arr, 0);
    assert_true(json_is_integer(json_object_get(j, "seqlen"))); /* a whole value stays an integer */
    assert_int_equal(json_integer_value(json_object_get(j, "seqlen")), 256);
    assert_int_equal(json_integer_value(json_object_get(j, "hbm_bytes")), 328704);
    assert_int_equal(json_integer_value(json_object_get(j, "hbm_write_bytes")), 32768 + 1024);
    assert_int_equal(json_integer_value(json_object_get(j, "T_r")), 4);
    assert_int_equal(json_integer_value(json_object_get(j, "T_c")), 4);
    assert_string_equal(json_string_value(json_object_get(j, "mask")), "no mask");
    assert_string_equal(json_string_value(json_object_get(j, "causal")), "none");
    assert_true(json_is_true(json_object_get(j, "formula_match")));
    assert_null(json_object_get(j, "time_model")); /* fa_io_run runs no kernel profile */
    assert_true(json_real_value(json_object_get(j, "time_s")) == c.r.time_s); /* the table's time: the roofline */
    assert_true(json_real_value(json_object_get(j, "roofline_s")) == c.r.time_s);
    assert_string_equal(json_string_value(json_object_get(j, "bound")), c.r.time_compute_s > c.r.time_memory_s ? "compute" : "memory");
    json_t *k = json_object_get(json_object_get(j, "tensors"), "K");
    assert_int_equal(json_integer_value(json_object_get(k, "read_bytes")), 131072);
    assert_int_equal(json_integer_value(json_object_get(k, "loads")), 16); /* T_r x T_c tiles */
    json_decref(arr);
}

static void write_check(FILE *f, void *ctx)
{
    const fa_check_row *r = ctx;
    fa_shape s = fa_shape_default(5, 3);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT, s.window = 1, s.window_left = 3, s.window_right = 0;
    fa_check_csv_row(f, &s, (fa_blocks){16, 32}, r);
}

static void test_check_records(void **state)
{
    (void)state;
    fa_check_row r = {.algo = FA_ALGO_FLASH2, .abs_o = 2.5e-16, .rel_o = 1.25e-16, .abs_lse = 4e-16, .pass = 1};
    char *csv = captured(write_check, &r);
    assert_string_equal(csv, "flash2,1,1,1,5,5,3,3,\"causal (bottom-right), window (3, 0)\",16,32,2.500000e-16,"
                             "1.250000e-16,4.000000e-16,pass\n");
    free(csv);
    assert_int_equal(fields(fa_check_csv_header), 15);
    fa_shape s = fa_shape_default(5, 3);
    r.algo = FA_ALGO_STANDARD, r.abs_o = NAN, r.pass = 0;
    json_t *j = fa_check_json(&s, (fa_blocks){16, 32}, &r);
    assert_true(json_is_null(json_object_get(j, "max_abs_err"))); /* JSON has no NaN */
    assert_true(json_is_null(json_object_get(j, "lse_abs_err"))); /* standard computes no LSE */
    assert_true(json_real_value(json_object_get(j, "max_rel_err")) == 1.25e-16);
    assert_string_equal(json_string_value(json_object_get(j, "causal")), "none");
    assert_int_equal(json_integer_value(json_object_get(j, "seqlen_k")), 5);
    assert_true(json_is_false(json_object_get(j, "pass")));
    json_decref(j);
}

static void write_cmp(FILE *f, void *ctx)
{
    const fa_cmp_pred *p = ctx;
    fa_cmp_row w;
    memset(&w, 0, sizeof w);
    w.kernel = "v2,bc64";
    w.shape = fa_shape_default(1024, 64);
    w.algo = FA_ALGO_FLASH2;
    assert_int_equal(fa_profile_parse("fa2", &w.profile), FA_OK);
    w.pass = FA_PASS_FWD;
    fa_cmp_csv_row(f, &w, p);
}

static void test_cmp_records(void **state)
{
    (void)state;
    fa_cmp_pred p;
    memset(&p, 0, sizeof p);
    p.blocks = (fa_blocks){128, 64};
    p.pred_l2_bytes = 1.5e6, p.meas_l2_bytes = NAN, p.pred_dram_bytes = NAN, p.meas_dram_bytes = NAN;
    p.pred_ms = 0.125, p.meas_ms = 0.25;
    p.bound = "softmax"; /* what sets the time; the busiest pipe apart */
    p.busiest = "exp";
    p.model_blocks_per_sm = 2;
    char *csv = captured(write_cmp, &p);
    assert_string_equal(csv, "\"v2,bc64\",1,1,1,1024,1024,64,64,0,fp16,flash2,128,64,1500000,nan,nan,nan,0.125,0.25,,"
                             "fa2,fwd,softmax,2,exp\n"); /* no L2 replay: blocks_per_sm empty */
    free(csv);
    assert_int_equal(fields(fa_cmp_csv_header), 25);
}

/* The varlen backward's record: bytes made up so that each column is a different number
 * (read 1000 + written 24 = 1024; closed form 600 + 400 = 1000, not the count: no match). */
static void write_varlen_bwd(FILE *f, void *ctx)
{
    fputs(fa_varlen_bwd_csv_header, f);
    fa_varlen_bwd_csv_row(f, FA_PASS_FWDBWD, 3, ctx);
}

static void test_varlen_bwd_records(void **state)
{
    (void)state;
    fa_varlen_bwd_io_result r;
    memset(&r, 0, sizeof r);
    r.blocks = (fa_blocks){32, 16};
    r.read_bytes = 1000, r.write_bytes = 24;
    r.formula.read_bytes = 600, r.formula.write_bytes = 400;
    r.formula_match = 0;
    r.bwd.sram_peak_bytes = 12288;
    char *csv = captured(write_varlen_bwd, &r);
    assert_string_equal(csv, "algo,pass,nseq,block_r,block_c,hbm_read_bytes,hbm_write_bytes,hbm_bytes,bwd_formula_bytes,"
                             "bwd_formula_match\nvarlen_flash2,fwdbwd,3,32,16,1000,24,1024,1000,0\n");
    free(csv);
    json_t *j = fa_varlen_bwd_json(FA_PASS_BWD, 3, &r);
    assert_string_equal(json_string_value(json_object_get(j, "algo")), "varlen_flash2");
    assert_string_equal(json_string_value(json_object_get(j, "pass")), "bwd");
    assert_int_equal(json_integer_value(json_object_get(j, "nseq")), 3);
    assert_int_equal(json_integer_value(json_object_get(j, "block_r")), 32);
    assert_int_equal(json_integer_value(json_object_get(j, "block_c")), 16);
    assert_int_equal(json_integer_value(json_object_get(j, "hbm_read_bytes")), 1000);
    assert_int_equal(json_integer_value(json_object_get(j, "hbm_write_bytes")), 24);
    assert_int_equal(json_integer_value(json_object_get(j, "hbm_bytes")), 1024);
    assert_int_equal(json_integer_value(json_object_get(j, "bwd_formula_bytes")), 1000);
    assert_true(json_is_false(json_object_get(j, "formula_match")));
    assert_int_equal(json_integer_value(json_object_get(j, "sram_peak_bytes")), 12288);
    assert_int_equal(json_object_size(j), 11);
    json_decref(j);
    /* a count above 2^63 - 1 is a real, as every byte count of the records */
    r.read_bytes = (uint64_t)1 << 63, r.formula_match = 1;
    j = fa_varlen_bwd_json(FA_PASS_BWD, 3, &r);
    assert_true(json_is_real(json_object_get(j, "hbm_read_bytes")));
    assert_true(json_real_value(json_object_get(j, "hbm_read_bytes")) == 9223372036854775808.0);
    assert_true(json_is_true(json_object_get(j, "formula_match")));
    json_decref(j);
}

static void write_decode(FILE *f, void *ctx) { fa_decode_table_csv(f, ctx); }

static void test_decode_csv(void **state)
{
    (void)state;
    static fa_decode_table t;
    memset(&t, 0, sizeof t);
    t.batch[0] = 1, t.batch[1] = 64;
    for (int k = 0; k < FA_DECODE_NKV; k++) t.kv_len[k] = 1024 << (2 * k);
    t.r[1][2][2].opt.splits = 7;
    t.r[1][2][2].formula.partial_bytes = 4096;
    char *csv = captured(write_decode, &t);
    int lines = 0;
    for (const char *p = csv; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 1 + FA_DECODE_NB * FA_DECODE_NKV * FA_DECODE_NV);
    /* row 1 + (1 * 5 + 2) * 3 + 2: batch 64, kv 16384, packed-split */
    assert_non_null(strstr(csv, "\n64,16384,packed-split,7,0,4096,0,0,0,0.000000e+00,0.000000e+00\n"));
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_text),   cmocka_unit_test(test_units),       cmocka_unit_test(test_csv_pieces),
        cmocka_unit_test(test_io_records),  cmocka_unit_test(test_check_records), cmocka_unit_test(test_cmp_records),
        cmocka_unit_test(test_decode_csv),  cmocka_unit_test(test_varlen_bwd_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
