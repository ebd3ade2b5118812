/* test_report.c -- the tables of `fasim report` (analysis/report.c, fa_report.h) against what
 * they are made of: a model's row equal to fa_perf_predict of its kernel profile on the same
 * shape, a paper-model count equal to fa_run_algo and to the closed form, the memory-vs-N rows
 * and the out-of-memory N computed by hand from the footprint formula, the long-context rows'
 * bytes equal to the closed form (and the window equal to full attention where it covers every
 * key), the kernels table's tiles equal to the profiles' tile rows, the plots' sweeps against
 * fa_sram_need and fa_blocks_fit_pass, the papers' rows, and the models' listing, stems and
 * shapes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fa_records.h"
#include "fa_report.h"
#include "fa_run.h"

static fa_hw load_hw(const char *key)
{
    fa_hw hw;
    assert_int_equal(fa_hw_load(key, NULL, &hw), FA_OK);
    return hw;
}

/* Mistral-7B's attention: H = 32, H_kv = 8, d = 128, bf16, a sliding window of 4096 tokens. */
static fa_model mistral(void)
{
    fa_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "mistral-like");
    m.heads = 32, m.kv_heads = 8, m.head_dim = 128, m.layers = 32, m.max_positions = 32768;
    m.sliding_window = 4096, m.n_sliding = 32, m.head_dim_v = 128;
    m.dtype = FA_DTYPE_BF16;
    return m;
}

static uint64_t hbm(const fa_io_result *r) { return fa_counts_hbm_bytes(&r->counts); }

/* ---- the models ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void test_models(void **state)
{
    (void)state;
    char dir[] = "/tmp/fasim_test_report_XXXXXX", p[256];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/b model.json", dir);
    write_file(p, "{\"hidden_size\": 1024, \"num_attention_heads\": 16, \"num_hidden_layers\": 2, "
                  "\"max_position_embeddings\": 2048, \"sliding_window\": 512, \"_name_or_path\": \"b\"}");
    snprintf(p, sizeof p, "%s/a.json", dir);
    write_file(p, "{\"hidden_size\": 512, \"num_attention_heads\": 8, \"num_hidden_layers\": 1}");
    snprintf(p, sizeof p, "%s/notes.txt", dir);
    write_file(p, "not a model");
    snprintf(p, sizeof p, "%s/.json", dir); /* no stem: not listed */
    write_file(p, "{}");

    fa_report_model ms[4];
    int n = -1;
    assert_int_equal(fa_report_list_models(dir, ms, 4, &n), FA_OK);
    assert_int_equal(n, 2);
    snprintf(p, sizeof p, "%s/a.json", dir);
    assert_string_equal(ms[0].path, p); /* sorted by path */
    snprintf(p, sizeof p, "%s/b model.json", dir);
    assert_string_equal(ms[1].path, p);
    assert_int_equal(fa_report_list_models(dir, ms, 1, &n), FA_EINVAL); /* more than max: refused, none dropped */
    assert_int_equal(n, 0);
    assert_non_null(strstr(fa_last_error(), "more than 1 model files"));
    assert_int_equal(fa_report_list_models(dir, ms, 4, &n), FA_OK);
    for (int k = 0; k < n; k++) assert_int_equal(fa_report_model_load(&ms[k]), FA_OK);
    assert_string_equal(ms[0].stem, "a");
    assert_string_equal(ms[1].stem, "b_model"); /* the space made safe */
    assert_int_equal(ms[1].m.head_dim, 64);
    /* the long-context model: the first with a window; the plots' model: none is a llama -> 0 */
    assert_int_equal(fa_report_window_model(ms, n), 1);
    assert_int_equal(fa_report_window_model(ms, 1), -1);
    assert_int_equal(fa_report_plot_model(ms, n), 0);
    snprintf(ms[0].stem, sizeof ms[0].stem, "llama-3-8b");
    snprintf(ms[1].stem, sizeof ms[1].stem, "my-llama");
    assert_int_equal(fa_report_plot_model(ms, n), 1); /* the last llama */

    /* the shape of one layer: the model's N, and its window only when shorter than N */
    fa_shape s = fa_report_model_shape(&ms[1].m, 3, 0);
    assert_int_equal(s.batch, 3);
    assert_int_equal(s.heads, 16);
    assert_int_equal(s.kv_heads, 16);
    assert_int_equal(s.seqlen_q, 2048);
    assert_int_equal(s.seqlen_k, 2048);
    assert_int_equal(s.d, 64);
    assert_int_equal(s.d_v, 64);
    assert_int_equal(s.causal, FA_CAUSAL_BOTTOM_RIGHT);
    assert_int_equal(s.window, 1);
    assert_int_equal(s.window_left, 511);
    assert_int_equal(s.window_right, 0);
    s = fa_report_model_shape(&ms[1].m, 1, 512); /* W = N: every key in the window */
    assert_int_equal(s.seqlen_q, 512);
    assert_int_equal(s.window, 0);

    /* a missing model file, a missing directory */
    snprintf(ms[0].path, sizeof ms[0].path, "%s/gone.json", dir);
    assert_int_equal(fa_report_model_load(&ms[0]), FA_EIO);
    snprintf(p, sizeof p, "%s/none", dir);
    assert_int_equal(fa_report_list_models(p, ms, 4, &n), FA_EIO);
    assert_int_equal(n, 0);
    assert_non_null(strstr(fa_last_error(), "cannot open the models directory"));
    assert_non_null(strstr(fa_last_error(), p));

    const char *rm[] = {"b model.json", "a.json", "notes.txt", ".json"};
    for (size_t i = 0; i < sizeof rm / sizeof rm[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, rm[i]);
        assert_int_equal(unlink(p), 0);
    }
    assert_int_equal(rmdir(dir), 0);

    /* the shipped models: seventeen, Mistral-7B the first whose every layer has a window (the
     * Gemmas before it mix full and windowed layers), Llama-3-8B the plots' model */
    fa_report_model all[FA_REPORT_MAX_MODELS];
    assert_int_equal(fa_report_list_models(NULL, all, FA_REPORT_MAX_MODELS, &n), FA_OK);
    assert_int_equal(n, 17);
    for (int k = 0; k < n; k++) assert_int_equal(fa_report_model_load(&all[k]), FA_OK);
    int w = fa_report_window_model(all, n), pl = fa_report_plot_model(all, n);
    assert_true(w >= 0 && pl >= 0);
    assert_string_equal(all[w].stem, "mistral-7b");
    assert_string_equal(all[pl].stem, "llama-3-8b");
}

static void test_stem(void **state)
{
    (void)state;
    char out[16];
    fa_report_stem("analysis/models/llama-3-8b.json", out, sizeof out);
    assert_string_equal(out, "llama-3-8b");
    fa_report_stem("x/My Model:v1.2.json", out, sizeof out); /* the last dot only */
    assert_string_equal(out, "My_Model_v1.2");
    fa_report_stem("plain", out, sizeof out);
    assert_string_equal(out, "plain");
    fa_report_stem("d/abcdefghijklmnopqrstuvwxyz.json", out, 8); /* at most n - 1 characters */
    assert_string_equal(out, "abcdefg");
}

/* ---- the hardware ---- */

static void test_load_hw(void **state)
{
    (void)state;
    fa_hw hw[FA_REPORT_MAX_HW];
    int n = -1;
    assert_int_equal(fa_report_load_hw(NULL, 0, hw, &n), FA_OK); /* none given: the three */
    assert_int_equal(n, 3);
    assert_string_equal(hw[0].key, "a100");
    assert_string_equal(hw[1].key, "h100");
    assert_string_equal(hw[2].key, "h200");
    const char *two[] = {"h200", "a100"};
    assert_int_equal(fa_report_load_hw(two, 2, hw, &n), FA_OK);
    assert_int_equal(n, 2);
    assert_string_equal(hw[0].key, "h200");
    assert_true(hw[0].hbm_bandwidth > hw[1].hbm_bandwidth); /* 4.8 TB/s vs 2.0 */
    const char *twice[] = {"h100", "a100", "h100"};
    assert_int_equal(fa_report_load_hw(twice, 3, hw, &n), FA_EINVAL);
    assert_int_equal(n, 0);
    assert_string_equal(fa_last_error(), "--hw h100 given twice (each profile once)");
    const char *bad[] = {"a100", "z80"};
    assert_int_equal(fa_report_load_hw(bad, 2, hw, &n), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "z80"));
    const char *four[] = {"a100", "h100", "h200", "a100"};
    assert_int_equal(fa_report_load_hw(four, 4, hw, &n), FA_EINVAL);
}

/* ---- running an algorithm ---- */

static void test_rows_equal_predictions(void **state)
{
    (void)state;
    fa_hw hw[2] = {load_hw("a100"), load_hw("h200")};
    fa_model m = mistral();
    fa_report_rows *rows = calloc(1, sizeof *rows);
    assert_non_null(rows);
    assert_int_equal(fa_report_model_rows(&m, 2, 8192, FA_PASS_FWD, hw, 2, rows), FA_OK);
    assert_int_equal(rows->s[0].batch, 2);
    assert_int_equal(rows->s[0].seqlen_q, 8192);
    assert_int_equal(rows->s[0].window_left, 4095);
    for (int h = 0; h < 2; h++)
        for (int a = 0; a < FA_NALGO; a++) {
            const fa_io_result *r = &rows->r[0][h][a];
            fa_perf_result pr;
            assert_int_equal(fa_perf_predict(fa_profile_default((fa_algo)a), FA_PASS_FWD, &rows->s[0], &hw[h], NULL, &pr),
                             FA_OK);
            assert_int_equal(r->algo, a);
            assert_string_equal(r->profile, fa_profile_default((fa_algo)a)->key);
            assert_int_equal(hbm(r), hbm(&pr.io));
            assert_int_equal(r->blocks.block_r, pr.io.blocks.block_r);
            assert_int_equal(r->blocks.block_c, pr.io.blocks.block_c);
            assert_int_equal(r->has_perf, 1);
            assert_true(r->perf_time_s == pr.time_s);
            assert_true(r->perf_tflops == pr.tflops);
            assert_int_equal(r->perf_bound, pr.bound);
            assert_int_equal(r->dram_est_bytes, pr.dram_bytes);
            assert_int_equal(r->sram_bytes, hw[h].sram_per_block);
            assert_true(fa_report_time(r) == pr.time_s);
            assert_true(fa_report_tflops(r) == pr.tflops);
            assert_string_equal(fa_report_bound(r), fa_bound_name(pr.bound, pr.latency)); /* grid or launch when no pipe sets it */
        }
    /* the hardware count is checked */
    assert_int_equal(fa_report_model_rows(&m, 1, 1024, FA_PASS_FWD, hw, 0, rows), FA_EINVAL);
    assert_int_equal(fa_report_model_rows(&m, 1, 1024, FA_PASS_FWD, hw, FA_REPORT_MAX_HW + 1, rows), FA_EINVAL);
    free(rows);
}

/* report.csv: one header, then a row per GPU and algorithm of each model, model and layers
 * leading, its bytes those of the rows (Mistral on the A100 and the H200: 1 + 2 x 3 lines). */
static void test_report_csv(void **state)
{
    (void)state;
    fa_hw hw[2] = {load_hw("a100"), load_hw("h200")};
    fa_report_model md;
    memset(&md, 0, sizeof md);
    md.m = mistral();
    md.m.layers = 32;
    snprintf(md.stem, sizeof md.stem, "mistral");
    fa_report_rows *rows = calloc(1, sizeof *rows);
    assert_non_null(rows);
    assert_int_equal(fa_report_model_rows(&md.m, 1, 4096, FA_PASS_FWD, hw, 2, rows), FA_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fa_report_csv(f, &md, rows, 1, hw, 2);
    fclose(f);
    assert_int_equal(strncmp(buf, "model,layers,algo,pass,batch,", 29), 0);
    int lines = 0;
    for (const char *p = buf; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 1 + 2 * FA_NALGO);
    char want[160];
    for (int h = 0; h < 2; h++)
        for (int a = 0; a < FA_NALGO; a++) { /* ...,hbm_read_bytes,hbm_write_bytes,hbm_bytes,... */
            const fa_io_result *r = &rows->r[0][h][a];
            snprintf(want, sizeof want, "\nmistral,32,%s,fwd,1,", fa_algo_name((fa_algo)a));
            assert_non_null(strstr(buf, want));
            snprintf(want, sizeof want, ",%s,%llu,", hw[h].key, (unsigned long long)hw[h].sram_per_block);
            assert_non_null(strstr(buf, want));
            snprintf(want, sizeof want, ",%llu,%llu,%llu,", (unsigned long long)r->counts.hbm_read_bytes,
                     (unsigned long long)r->counts.hbm_write_bytes, (unsigned long long)hbm(r));
            assert_non_null(strstr(buf, want));
        }
    free(buf);
    free(rows);
}

static void test_count_and_roofline(void **state)
{
    (void)state;
    fa_hw hw = load_hw("h100");
    fa_shape s = fa_shape_default(1024, 64);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    for (int a = 0; a < FA_NALGO; a++) {
        fa_io_result r, ref;
        assert_int_equal(fa_report_count(FA_PASS_FWD, (fa_algo)a, &s, 65536, &hw, &r), FA_OK);
        fa_blocks bk;
        assert_int_equal(fa_blocks_fit_pass(FA_PASS_FWD, &s, 65536, &bk), FA_OK);
        assert_int_equal(fa_io_run(FA_PASS_FWD, (fa_algo)a, &s, bk, 65536, &hw, NULL, &ref), FA_OK);
        assert_int_equal(r.blocks.block_r, bk.block_r);
        assert_int_equal(r.blocks.block_c, bk.block_c);
        assert_int_equal(hbm(&r), hbm(&ref));
        assert_int_equal(hbm(&r), r.formula.read_bytes + r.formula.write_bytes); /* the closed form */
        assert_int_equal(r.has_perf, 0);                                         /* the paper's model */
        assert_true(r.time_s == ref.time_s);
        /* without the time model: the roofline's time, TFLOP/s and side */
        assert_true(fa_report_time(&r) == r.time_s);
        assert_true(fabs(fa_report_tflops(&r) - r.nominal_flops / r.time_s / 1e12) <= 0);
        assert_string_equal(fa_report_bound(&r), r.time_compute_s > r.time_memory_s ? "compute" : "memory");
    }
    fa_io_result r;
    assert_int_equal(fa_report_count(FA_PASS_FWD, FA_ALGO_FLASH2, &s, 1024, &hw, &r), FA_ENOSRAM);
}

/* ---- training ---- */

static void test_training(void **state)
{
    (void)state;
    fa_shape s = fa_report_training_shape();
    assert_int_equal(s.batch, 64);
    assert_int_equal(s.heads, 16);
    assert_int_equal(s.kv_heads, 16);
    assert_int_equal(s.seqlen_q, 1024);
    assert_int_equal(s.seqlen_k, 1024);
    assert_int_equal(s.d, 64);
    assert_int_equal(s.dtype, FA_DTYPE_FP16);
    assert_int_equal(s.causal, FA_CAUSAL_BOTTOM_RIGHT);
    fa_hw hw = load_hw("h200");
    fa_io_result (*r)[FA_NALGO] = calloc(FA_NPASS, sizeof *r);
    assert_non_null(r);
    assert_int_equal(fa_report_training(&hw, r), FA_OK);
    for (int p = 0; p < FA_NPASS; p++)
        for (int a = 0; a < FA_NALGO; a++) {
            fa_io_result one;
            assert_int_equal(fa_report_kernel_pass((fa_pass)p, (fa_algo)a, &s, &hw, &one), FA_OK);
            assert_int_equal(r[p][a].pass, p);
            assert_int_equal(hbm(&r[p][a]), hbm(&one));
            assert_true(r[p][a].perf_time_s == one.perf_time_s);
        }
    /* a training step's bytes: the forward's plus the backward's */
    for (int a = 0; a < FA_NALGO; a++)
        assert_int_equal(hbm(&r[FA_PASS_FWDBWD][a]), hbm(&r[FA_PASS_FWD][a]) + hbm(&r[FA_PASS_BWD][a]));
    free(r);
}

/* The training step's peak by hand (docs/io-model-backward.md, "Memory footprint"): with
 * X = B H N d e (each of Q, K, V, O, dO, dQ, dK, dV), NN = B H N^2 e and R = 4 B H N bytes,
 *   standard: bwd = saved (4X + NN: P kept) + dO + dV + dP + max(dS, dQ + dK) = 6X + 3 NN (NN > 2X)
 *   flash1:   saved (4X + 2R: l, m) + dO + dQ + dK + dV                      = 8X + 2R
 *   flash2:   saved (4X + R: LSE) + dO + dK + dV + dQacc (2X in fp32) + dQ   = 10X + R
 * and each backward exceeds its forward. */
static uint64_t peak_by_hand(fa_algo a, int64_t N)
{
    const uint64_t BH = 64 * 16, X = BH * (uint64_t)N * 64 * 2, NN = BH * (uint64_t)N * (uint64_t)N * 2,
                   R = 4 * BH * (uint64_t)N;
    return a == FA_ALGO_STANDARD ? 6 * X + 3 * NN : a == FA_ALGO_FLASH1 ? 8 * X + 2 * R : 10 * X + R;
}

static void test_memory(void **state)
{
    (void)state;
    fa_report_mem_row rows[FA_REPORT_MEM_ROWS];
    int n = -1;
    assert_int_equal(fa_report_memory_vs_n(rows, &n), FA_OK);
    assert_int_equal(n, FA_REPORT_MEM_ROWS);
    for (int i = 0; i < n; i++) {
        assert_int_equal(rows[i].N, (int64_t)256 << i);
        for (int a = 0; a < FA_NALGO; a++) assert_int_equal(rows[i].peak[a], peak_by_hand((fa_algo)a, rows[i].N));
    }
    assert_int_equal(rows[n - 1].N, 262144); /* past every OOM N of the A100, H100, H200 (issue 18) */

    double r2, r4;
    assert_int_equal(fa_report_memory_ratio(&r2, &r4), FA_OK);
    assert_true(r2 == (double)peak_by_hand(FA_ALGO_STANDARD, 2048) / (double)peak_by_hand(FA_ALGO_FLASH2, 2048));
    assert_true(r4 == (double)peak_by_hand(FA_ALGO_STANDARD, 4096) / (double)peak_by_hand(FA_ALGO_FLASH2, 4096));
    assert_true(fabs(r2 - 10.168) < 0.001); /* the report's "10.2x at N = 2k" */

    /* out of memory: the smallest N whose peak exceeds the capacity */
    fa_hw hw = load_hw("h100");
    int64_t oom[FA_NALGO];
    assert_int_equal(fa_report_oom(&hw, oom), FA_OK);
    const uint64_t C = hw.hbm_capacity;
    assert_true(C > 0);
    /* standard: 6144 N^2 + 786432 N > C, the positive root of the quadratic */
    double root = (-786432.0 + sqrt(786432.0 * 786432.0 + 4.0 * 6144.0 * (double)C)) / (2.0 * 6144.0);
    int64_t n_std = (int64_t)floor(root) + 1;
    if (peak_by_hand(FA_ALGO_STANDARD, n_std - 1) > C) n_std--; /* the root on an integer */
    assert_int_equal(oom[FA_ALGO_STANDARD], n_std);
    assert_true(peak_by_hand(FA_ALGO_STANDARD, n_std) > C && peak_by_hand(FA_ALGO_STANDARD, n_std - 1) <= C);
    /* flash: linear in N, 1056768 N (flash1) and 1314816 N (flash2) */
    assert_int_equal(oom[FA_ALGO_FLASH1], (int64_t)(C / 1056768) + 1);
    assert_int_equal(oom[FA_ALGO_FLASH2], (int64_t)(C / 1314816) + 1);
    /* a GPU of unknown capacity: none */
    hw.hbm_capacity = 0;
    assert_int_equal(fa_report_oom(&hw, oom), FA_OK);
    for (int a = 0; a < FA_NALGO; a++) assert_int_equal(oom[a], 0);
}

/* ---- long context ---- */

static void test_long_context(void **state)
{
    (void)state;
    fa_model m = mistral();
    fa_hw hw = load_hw("h200");
    fa_report_long_row rows[FA_REPORT_LONG_ROWS];
    int n = -1;
    assert_int_equal(fa_report_long_context(&m, &hw, rows, &n), FA_OK);
    assert_int_equal(n, FA_REPORT_LONG_ROWS);
    const uint64_t M = hw.sram_per_block;
    for (int i = 0; i < n; i++) {
        const int64_t N = (int64_t)4096 << (2 * i);
        assert_int_equal(rows[i].N, N);
        fa_shape s = {.batch = 1, .heads = 32, .kv_heads = 8, .seqlen_q = N, .seqlen_k = N, .d = 128, .d_v = 128,
                      .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_BF16};
        fa_shape w = s;
        w.window = 1, w.window_left = 4095, w.window_right = 0;
        /* each row is the fa2 kernel profile's prediction (its tiles, its time model) */
        for (int k = 0; k < 2; k++) {
            const fa_shape *x = k ? &w : &s;
            fa_perf_result pr;
            assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, x, &hw, NULL, &pr), FA_OK);
            assert_int_equal(k ? rows[i].window_bytes : rows[i].full_bytes, hbm(&pr.io));
            /* the matmul FLOPs: the softmax's are counted on the windowed run only */
            assert_int_equal(k ? rows[i].window_flops : rows[i].full_flops, pr.io.counts.flops_matmul);
            assert_true((k ? rows[i].window_time_s : rows[i].full_time_s) == pr.time_s);
        }
        (void)M;
        if (i == 0) { /* N = W: the window holds every key causal attention allows: the same tiles,
                         the same bytes and matmul FLOPs (141.7 G: 1056 tiles of 128 x 64 a head) */
            assert_int_equal(rows[i].window_bytes, rows[i].full_bytes);
            assert_int_equal(rows[i].window_flops, rows[i].full_flops);
            assert_int_equal(rows[i].full_flops, (uint64_t)32 * 1056 * 2 * 128 * 64 * (128 + 128));
        } else {
            assert_true(rows[i].window_bytes < rows[i].full_bytes);
            assert_true(rows[i].window_flops < rows[i].full_flops);
        }
    }
    /* full causal FLOPs grow as N^2, the window's as N W: x16 and about x4 per row */
    assert_true(rows[3].full_flops > 15 * rows[2].full_flops);
    assert_true(rows[3].window_flops < 5 * rows[2].window_flops);
    m.sliding_window = 0;
    assert_int_equal(fa_report_long_context(&m, &hw, rows, &n), FA_EINVAL);
    assert_int_equal(n, 0);
}

/* ---- the kernels table ---- */

static void test_kernels(void **state)
{
    (void)state;
    fa_hw hw[2] = {load_hw("a100"), load_hw("h100")};
    fa_shape s = fa_shape_default(8192, 128);
    s.heads = 32, s.kv_heads = 8, s.causal = FA_CAUSAL_BOTTOM_RIGHT, s.dtype = FA_DTYPE_BF16;
    for (int pass = 0; pass < FA_NPASS; pass++) {
        fa_report_kernel rows[FA_REPORT_MAX_HW * FA_REPORT_NKERNELS];
        int n = -1;
        assert_int_equal(fa_report_kernels(&s, hw, 2, (fa_pass)pass, rows, &n), FA_OK);
        const fa_pass kp = pass == FA_PASS_BWD ? FA_PASS_BWD : FA_PASS_FWD;
        int i = 0, fa3 = 0;
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < FA_REPORT_NKERNELS; k++) {
                const fa_profile *p = fa_profile_find(fa_report_kernel_keys[k]);
                assert_non_null(p);
                fa_blocks bk;
                const fa_tile_row *tr;
                if (fa_profile_tiles(p, kp, hw[h].arch, &s, &bk, &tr)) { /* not on this GPU: no row */
                    fa_clear_error();
                    for (int j = 0; j < n; j++) assert_false(rows[j].hw == h && rows[j].key == k);
                    continue;
                }
                /* a row per profile that runs here, in the table's order, with the profile's tiles */
                assert_true(i < n);
                assert_int_equal(rows[i].hw, h);
                assert_int_equal(rows[i].key, k);
                assert_ptr_equal(rows[i].profile, p);
                assert_int_equal(rows[i].occ.blocks.block_r, bk.block_r);
                assert_int_equal(rows[i].occ.blocks.block_c, bk.block_c);
                assert_int_equal(rows[i].occ.warps, tr->warps);
                fa_perf_result pr;
                assert_int_equal(fa_perf_predict(p, (fa_pass)pass, &s, &hw[h], NULL, &pr), FA_OK);
                assert_true(rows[i].time_s == pr.time_s);
                assert_true(rows[i].tflops == pr.tflops);
                assert_int_equal(rows[i].bound, pr.bound);
                assert_int_equal(rows[i].dram_bytes, pr.dram_bytes);
                for (int q = 0; q < FA_NPIPE; q++) assert_true(rows[i].busy[q] == pr.busy[q]);
                /* blocks/SM: what runs, min(occupancy, ceil(grid / SMs)) (time-model.md section 3); fa1's
                 * forward grid is B x H = 32 blocks, under one an SM on 108 or 132 SMs */
                assert_true(rows[i].blocks_run == pr.k[kp == FA_PASS_BWD].blocks_per_sm);
                assert_true(rows[i].blocks_run <= rows[i].occ.occupancy);
                if (k == 2 && kp == FA_PASS_FWD) {
                    assert_true(rows[i].blocks_run == 1);
                    assert_true(rows[i].occ.occupancy > 1);
                }
                if (k == 4) fa3 += h == 1; /* FlashAttention-3 is Hopper's */
                i++;
            }
        assert_int_equal(i, n);
        assert_int_equal(fa3, 1);
        for (int j = 0; j < n; j++) assert_false(rows[j].hw == 0 && rows[j].key == 4); /* not on the A100 */
    }
    fa_report_kernel rows[FA_REPORT_MAX_HW * FA_REPORT_NKERNELS];
    int n;
    assert_int_equal(fa_report_kernels(&s, hw, 0, FA_PASS_FWD, rows, &n), FA_EINVAL);
}

/* The B200's kernels table: fa4 (Blackwell's, FlashAttention-4) has its row; fa1 and fa2, which the
 * B200 profile cannot time (no mma.sync rate), have none; fa3, cudnn (Hopper's) none. */
static void test_kernels_b200(void **state)
{
    (void)state;
    fa_hw hw[1] = {load_hw("b200")};
    fa_shape s = fa_shape_default(8192, 128);
    s.heads = 32, s.kv_heads = 8, s.causal = FA_CAUSAL_BOTTOM_RIGHT, s.dtype = FA_DTYPE_BF16;
    fa_report_kernel rows[FA_REPORT_MAX_HW * FA_REPORT_NKERNELS];
    int n = -1, fa4 = 0;
    assert_int_equal(fa_report_kernels(&s, hw, 1, FA_PASS_FWD, rows, &n), FA_OK);
    for (int j = 0; j < n; j++) {
        const char *key = fa_report_kernel_keys[rows[j].key];
        assert_true(!strcmp(key, "eager") || !strcmp(key, "math") || !strcmp(key, "fa4"));
        if (!strcmp(key, "fa4")) {
            fa4++;
            assert_int_equal(rows[j].occ.blocks.block_r, 256); /* two Q tiles of 128 a CTA */
            assert_int_equal(rows[j].occ.blocks.block_c, 128);
            assert_true(rows[j].time_s > 0);
        }
    }
    assert_int_equal(fa4, 1);
    assert_int_equal(hw[0].hbm_capacity, 180000000000ull); /* DGX B200 User Guide: 1,440 GB over 8 GPUs */
}

/* The files the report owns in its --out-dir, and only those (an earlier run's are removed). */
static void test_owns_file(void **state)
{
    (void)state;
    static const char *const mine[] = {"report.csv", "kernels.csv", "papers.csv", "decode.csv", "long_context.csv",
                                       "cp.csv", "cp_time_vs_p.png", "memory_vs_n.png", "hbm_vs_sram.csv",
                                       "hbm_vs_block.png", "hbm_vs_n_llama-3-8b.csv", "hbm_vs_n_x.png"};
    static const char *const not_mine[] = {"notes.txt", "report.csv.tmp.123", "hbm_vs_n_.csv", "hbm_vs_n_x.txt",
                                           "hbm_vs_n_a.csvx", "Report.csv", "hbm_vs_nx.csv", "x/report.csv", ""};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) assert_int_equal(fa_report_owns_file(mine[i]), 1);
    for (size_t i = 0; i < sizeof not_mine / sizeof not_mine[0]; i++)
        assert_int_equal(fa_report_owns_file(not_mine[i]), 0);
}

/* The temporaries of the report's own files (a killed report's leftovers), and only those. */
static void test_owns_temporary(void **state)
{
    (void)state;
    long pid = 0;
    assert_int_equal(fa_report_owns_temporary("report.csv.tmp.26463", &pid), 1);
    assert_int_equal(pid, 26463);
    assert_int_equal(fa_report_owns_temporary("hbm_vs_n_gpt-neox-20b.png.tmp.7", &pid), 1);
    assert_int_equal(pid, 7);
    static const char *const not_mine[] = {"report.csv", "notes.txt.tmp.12", "report.csv.tmp.", "report.csv.tmp.12x",
                                           "report.csv.tmp.-12", "report.csv.tmp.012", "report.csv.tmp.1234567890",
                                           ".tmp.12", "hbm_vs_n_.csv.tmp.12", "report.csv.tmp.12.tmp.x", "x/report.csv.tmp.1"};
    for (size_t i = 0; i < sizeof not_mine / sizeof not_mine[0]; i++) {
        pid = -5;
        if (fa_report_owns_temporary(not_mine[i], &pid)) fail_msg("'%s' taken for a temporary", not_mine[i]);
        assert_int_equal(pid, -5);
    }
}

/* ---- the papers ---- */

static void test_papers(void **state)
{
    (void)state;
    fa_report_paper_set *set = malloc(sizeof *set);
    assert_non_null(set);
    assert_int_equal(fa_report_papers(NULL, set), FA_OK);
    assert_true(set->n > 10);
    int a100 = 0, h100 = 0;
    for (int i = 0; i < set->n; i++) {
        const fa_paper_row *r = &set->rows[i];
        assert_true(r->hw == &set->a100 || r->hw == &set->h100 || r->hw == &set->b200);
        a100 += r->hw == &set->a100, h100 += r->hw == &set->h100;
        assert_true(r->published > 0);
        assert_true(fabs(r->ratio - r->predicted / r->published) <= 1e-12 * r->ratio);
    }
    assert_true(a100 > 0 && h100 > 0);
    /* a series: the same figure, kernel, d, mask, pass and unit, N after N */
    fa_paper_row x = set->rows[0], y = x;
    y.N = 2 * x.N;
    assert_int_equal(fa_report_same_series(&x, &y), 1);
    y.d = x.d + 64;
    assert_int_equal(fa_report_same_series(&x, &y), 0);
    y = x, y.pass = x.pass == FA_PASS_FWD ? FA_PASS_BWD : FA_PASS_FWD;
    assert_int_equal(fa_report_same_series(&x, &y), 0);
    y = x, snprintf(y.unit, sizeof y.unit, "other");
    assert_int_equal(fa_report_same_series(&x, &y), 0);
    y = x, y.causal = !x.causal;
    assert_int_equal(fa_report_same_series(&x, &y), 0);
    y = x, y.hw = x.hw == &set->a100 ? &set->h100 : &set->a100;
    assert_int_equal(fa_report_same_series(&x, &y), 0);
    y = x, snprintf(y.source, sizeof y.source, "another paper");
    assert_int_equal(fa_report_same_series(&x, &y), 0);
    assert_string_equal(set->a100.key, "a100");
    assert_string_equal(set->h100.key, "h100");
    assert_string_equal(set->b200.key, "b200");
    fa_report_papers_free(set);
    assert_null(set->rows);
    assert_int_equal(fa_report_papers("/nonexistent/published.csv", set), FA_EIO);
    assert_null(set->rows);
    free(set);
}

/* FlashAttention-4 (Zadouri et al. 2026, arXiv 2603.05451v1): the bar labels of Figure 4 (forward,
 * B200, d = 128; left without a mask, right causal) and Figure 5 (causal, d = 192, d_v = 128), as
 * published.csv transcribes them (docs/citations.md, section 5: read off the arXiv source's
 * figure images), N = 1k .. 32k. */
static const int FA4_N[6] = {1024, 2048, 4096, 8192, 16384, 32768};
static const struct {
    const char *figure, *kernel;
    int d, causal, v[6];
} FA4_FIG[] = {
    {"Figure 4", "FA2", 128, 0, {383, 406, 420, 427, 430, 432}},
    {"Figure 4", "Triton 3.6.0", 128, 0, {507, 594, 648, 676, 695, 703}},
    {"Figure 4", "Gluon 3.6.0", 128, 0, {1060, 1147, 1198, 1226, 1242, 1250}},
    {"Figure 4", "cuDNN 9.13.0", 128, 0, {1157, 1328, 1413, 1460, 1488, 1517}},
    {"Figure 4", "cuDNN 9.19.1.2", 128, 0, {1346, 1474, 1552, 1585, 1609, 1613}},
    {"Figure 4", "FA4", 128, 0, {1355, 1468, 1532, 1579, 1601, 1613}},
    {"Figure 4", "FA2", 128, 1, {292, 343, 375, 395, 404, 408}},
    {"Figure 4", "Triton 3.6.0", 128, 1, {351, 455, 546, 609, 647, 670}},
    {"Figure 4", "Gluon 3.6.0", 128, 1, {638, 824, 938, 982, 1023, 1037}},
    {"Figure 4", "cuDNN 9.13.0", 128, 1, {717, 929, 1076, 1168, 1285, 1266}},
    {"Figure 4", "cuDNN 9.19.1", 128, 1, {822, 1103, 1295, 1430, 1509, 1540}},
    {"Figure 4", "FA4", 128, 1, {744, 1053, 1279, 1426, 1526, 1576}},
    {"Figure 5", "cuDNN 9.13.0", 192, 1, {769, 999, 1167, 1276, 1375, 1382}},
    {"Figure 5", "cuDNN 9.19.1.2", 192, 1, {860, 1133, 1311, 1415, 1515, 1563}},
    {"Figure 5", "FA4", 192, 1, {812, 1121, 1357, 1506, 1600, 1654}},
};
enum { FA4_NFIG = (int)(sizeof FA4_FIG / sizeof FA4_FIG[0]) };

/* The FlashAttention-4 figures stored in published.csv are the paper's bar labels, every one once
 * (nothing else on the B200); fasim's rows for them are FA4's twelve of Figure 4 on the b200
 * profile with the fa4 profile, each fa_perf_predict of the paper's shape (B = 32768 / N,
 * H = 16, bf16), and no row of another kernel is timed on the B200. */
static void test_papers_fa4(void **state)
{
    (void)state;
    char path[1200];
    snprintf(path, sizeof path, "%s/../measured/papers/published.csv", fa_report_models_dir());
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int seen[FA4_NFIG][6];
    memset(seen, 0, sizeof seen);
    int n_fa4 = 0, n_b200 = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *fld[12];
        int nf = 0;
        for (char *p = line; nf < 12;) {
            fld[nf++] = p;
            char *c = strchr(p, ',');
            if (!c) break;
            *c = '\0', p = c + 1;
        }
        if (nf != 11) continue;
        const int fa4 = !strncmp(fld[0], "FlashAttention-4 ", 17);
        n_b200 += !strcmp(fld[3], "B200");
        if (!fa4) continue;
        n_fa4++;
        assert_string_equal(fld[0], "FlashAttention-4 arXiv 2603.05451v1");
        assert_string_equal(fld[3], "B200");
        assert_string_equal(fld[5], "fwd");
        assert_string_equal(fld[10], "TFLOP/s");
        int k = 0, j = 0;
        while (k < FA4_NFIG && !(!strcmp(fld[1], FA4_FIG[k].figure) && !strcmp(fld[4], FA4_FIG[k].kernel) &&
                                 atoi(fld[6]) == FA4_FIG[k].d && atoi(fld[7]) == FA4_FIG[k].causal))
            k++;
        assert_true(k < FA4_NFIG);
        while (j < 6 && FA4_N[j] != atoi(fld[8])) j++;
        assert_true(j < 6);
        assert_int_equal(atoi(fld[9]), FA4_FIG[k].v[j]);
        seen[k][j]++;
    }
    fclose(f);
    assert_int_equal(n_fa4, FA4_NFIG * 6);
    assert_int_equal(n_b200, FA4_NFIG * 6);
    for (int k = 0; k < FA4_NFIG; k++)
        for (int j = 0; j < 6; j++) assert_int_equal(seen[k][j], 1);
    /* the headline: 1613 TFLOP/s, FA4 without a mask at 32k (the abstract's number) */
    assert_int_equal(FA4_FIG[5].v[5], 1613);

    fa_report_paper_set *set = malloc(sizeof *set);
    assert_non_null(set);
    assert_int_equal(fa_report_papers(NULL, set), FA_OK);
    int n = 0;
    for (int i = 0; i < set->n; i++) {
        const fa_paper_row *r = &set->rows[i];
        const int b200 = r->hw == &set->b200;
        assert_int_equal(b200, !strncmp(r->source, "FlashAttention-4 ", 17));
        if (!b200) continue;
        n++;
        assert_string_equal(r->figure, "Figure 4");
        assert_string_equal(r->kernel, "FA4");
        assert_string_equal(r->profile->key, "fa4");
        assert_string_equal(r->unit, "TFLOP/s");
        assert_int_equal(r->pass, FA_PASS_FWD);
        assert_int_equal(r->d, 128);
        int j = 0;
        while (j < 6 && FA4_N[j] != r->N) j++;
        assert_true(j < 6);
        assert_true(r->published == FA4_FIG[r->causal ? 11 : 5].v[j]);
        fa_shape s = fa_shape_default(r->N, 128);
        s.batch = 32768 / r->N, s.heads = s.kv_heads = 16, s.dtype = FA_DTYPE_BF16;
        s.causal = r->causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        fa_perf_result pr;
        assert_int_equal(fa_perf_predict(fa_profile_find("fa4"), FA_PASS_FWD, &s, &set->b200, NULL, &pr), FA_OK);
        assert_true(pr.has_time);
        assert_true(r->predicted == pr.tflops && r->time_s == pr.time_s);
        assert_true(fabs(r->ratio - r->predicted / r->published) <= 1e-12 * r->ratio);
        /* a prediction, and the model's known shortfall: below the published figure, above half */
        assert_true(r->ratio > 0.5 && r->ratio < 1.0);
    }
    assert_int_equal(n, 12);
    fa_report_papers_free(set);
    free(set);
}

/* ---- the plots' data ---- */

static void test_hbm_vs_n(void **state)
{
    (void)state;
    fa_hw hw = load_hw("h200");
    fa_shape base = fa_shape_default(1024, 64);
    base.heads = base.kv_heads = 4, base.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_report_n_row rows[FA_REPORT_N_ROWS];
    int n = -1;
    assert_int_equal(fa_report_hbm_vs_n(&base, &hw, 0, rows, &n), FA_OK);
    assert_int_equal(n, 14);
    const uint64_t M = hw.sram_per_block;
    for (int i = 0; i < n; i++) {
        const int64_t N = (int64_t)128 << i;
        assert_int_equal(rows[i].N, N);
        fa_shape s = base;
        s.seqlen_q = s.seqlen_k = N;
        for (int a = 0; a < FA_NALGO; a++) {
            fa_blocks bk;
            fa_pass_formula pf;
            assert_int_equal(fa_blocks_fit_pass(FA_PASS_FWD, &s, M, &bk), FA_OK);
            assert_int_equal(fa_formula_pass_bytes(FA_PASS_FWD, (fa_algo)a, &s, bk, 1, &pf), FA_OK);
            assert_int_equal(rows[i].bytes[a], pf.read_bytes + pf.write_bytes);
        }
        assert_true(rows[i].theta_standard == fa_bound_pass_bytes(FA_PASS_FWD, FA_ALGO_STANDARD, &s, M));
        assert_true(rows[i].theta_flash == fa_bound_pass_bytes(FA_PASS_FWD, FA_ALGO_FLASH2, &s, M));
        assert_true(rows[i].theta_window == rows[i].theta_flash); /* no window */
        /* standard's S and P: at least 4 N^2 e bytes per head (written, read twice, P written) */
        assert_true(rows[i].bytes[FA_ALGO_STANDARD] > rows[i].bytes[FA_ALGO_FLASH2]);
    }
    assert_int_equal(rows[n - 1].N, (int64_t)1 << 20);
    /* the model's own N (DeepSeek's 163840) gets a row in its place, counted as the others; a power
     * of two is already a row */
    fa_report_n_row rm[FA_REPORT_N_ROWS];
    int nm = -1;
    assert_int_equal(fa_report_hbm_vs_n(&base, &hw, 163840, rm, &nm), FA_OK);
    assert_int_equal(nm, 15);
    assert_int_equal(rm[10].N, 131072);
    assert_int_equal(rm[11].N, 163840);
    assert_int_equal(rm[12].N, 262144);
    assert_int_equal(rm[14].N, (int64_t)1 << 20);
    for (int i = 0; i < 11; i++) assert_true(rm[i].bytes[FA_ALGO_FLASH2] == rows[i].bytes[FA_ALGO_FLASH2]);
    fa_shape s = base;
    s.seqlen_q = s.seqlen_k = 163840;
    assert_true(rm[11].theta_flash == fa_bound_pass_bytes(FA_PASS_FWD, FA_ALGO_FLASH2, &s, M));
    assert_int_equal(fa_report_hbm_vs_n(&base, &hw, 4096, rm, &nm), FA_OK);
    assert_int_equal(nm, 14);
}

/* hbm_vs_n with a sliding window (issue 18): the window bound is in the CSV's rows, equal to the
 * full-attention bound up to N = w and theta_flash * w / N beyond */
static void test_hbm_vs_n_window(void **state)
{
    (void)state;
    fa_hw hw = load_hw("h200");
    fa_shape base = fa_shape_default(4096, 128);
    base.heads = base.kv_heads = 2, base.causal = FA_CAUSAL_BOTTOM_RIGHT;
    base.window = 1, base.window_left = 4095, base.window_right = 0;
    fa_report_n_row rows[FA_REPORT_N_ROWS];
    int n = -1;
    assert_int_equal(fa_report_hbm_vs_n(&base, &hw, 0, rows, &n), FA_OK);
    for (int i = 0; i < n; i++) {
        if (rows[i].N <= 4096) assert_true(rows[i].theta_window == rows[i].theta_flash);
        else assert_true(fabs(rows[i].theta_window - rows[i].theta_flash * 4096.0 / (double)rows[i].N) <=
                         1e-12 * rows[i].theta_flash);
    }
    assert_true(rows[n - 1].theta_window < rows[n - 1].theta_flash / 200);
}

static void test_hbm_vs_sram(void **state)
{
    (void)state;
    fa_hw hw = load_hw("h200");
    fa_shape s = fa_shape_default(4096, 128);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_report_sram_row rows[FA_REPORT_SRAM_ROWS];
    int n = -1;
    assert_int_equal(fa_report_hbm_vs_sram(&s, &hw, rows, &n), FA_OK);
    /* M = 48 KiB, then M * 5 / 4 while M <= 4 MiB: 20 sizes, every one fits 16 x 16 tiles at d = 128;
     * and M = N d e = 4096 x 128 x 2 B = 1 MiB (fp16), where the Θ line stops, between 894065 and
     * 1117581: 21 rows */
    uint64_t M = 48 * 1024;
    int expect = 0;
    for (; M <= 4u * 1024 * 1024; M = M * 5 / 4) expect++;
    assert_int_equal(expect, 20);
    assert_int_equal(n, expect + 1);
    assert_int_equal(rows[13].M, 894065);
    assert_int_equal(rows[14].M, 1048576);
    assert_int_equal(rows[15].M, 1117581);
    M = 48 * 1024;
    for (int i = 0; i < n; i++, M = i == 14 ? M : M * 5 / 4) {
        if (i == 14) {
            assert_int_equal(rows[i].M, 1048576);
            continue;
        }
        assert_int_equal(rows[i].M, M);
        fa_blocks bk;
        assert_int_equal(fa_blocks_fit_pass(FA_PASS_FWD, &s, M, &bk), FA_OK);
        assert_int_equal(rows[i].block, bk.block_r);
        fa_io_result r;
        assert_int_equal(fa_report_count(FA_PASS_FWD, FA_ALGO_FLASH1, &s, M, &hw, &r), FA_OK);
        assert_int_equal(rows[i].bytes[FA_ALGO_FLASH1], hbm(&r));
        assert_true(rows[i].theta_flash == fa_bound_pass_bytes(FA_PASS_FWD, FA_ALGO_FLASH2, &s, M));
    }
    /* from 48 KiB to 4 MiB, flash2 reads K and V fewer times: larger tiles, fewer row blocks */
    assert_true(rows[n - 1].bytes[FA_ALGO_FLASH2] < rows[0].bytes[FA_ALGO_FLASH2]);
    assert_true(rows[n - 1].block > rows[0].block);
    /* d = 512: 16 x 16 tiles need 4 * 256 + 16 (2 d e + d e + 4 d + 8) = 83072 B, so M = 48 KiB,
     * 60 KiB and 75 KiB are left out and the first row is M = 96000; N d e = 4 MiB is the last row
     * (the last sampled M is 3410585) */
    s.d = s.d_v = 512;
    assert_int_equal(fa_report_hbm_vs_sram(&s, &hw, rows, &n), FA_OK);
    assert_int_equal(n, expect - 3 + 1);
    assert_int_equal(rows[0].M, 96000);
    assert_int_equal(rows[n - 2].M, 3410585);
    assert_int_equal(rows[n - 1].M, 4194304);
    /* N = 16384, d = 128: N d e = 4 MiB too; N = 32768: 8 MiB, outside the sweep, no extra row */
    s.d = s.d_v = 128;
    s.seqlen_q = s.seqlen_k = 32768;
    assert_int_equal(fa_report_hbm_vs_sram(&s, &hw, rows, &n), FA_OK);
    assert_int_equal(n, expect);
    assert_int_equal(rows[n - 1].M, 3410585);
}

static void test_hbm_vs_block(void **state)
{
    (void)state;
    fa_hw hw = load_hw("a100");
    fa_shape s = fa_shape_default(2048, 128);
    s.heads = 2, s.kv_heads = 2, s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_report_block_row rows[FA_REPORT_BLOCK_ROWS];
    int n = -1;
    assert_int_equal(fa_report_hbm_vs_block(&s, &hw, rows, &n), FA_OK);
    const uint64_t M = hw.sram_per_block;
    assert_true(n > 1);
    for (int i = 0; i < n; i++) {
        const int64_t B = 16 * (i + 1);
        assert_int_equal(rows[i].block, B);
        fa_blocks bk = {B, B};
        assert_true(fa_sram_need(FA_ALGO_FLASH2, &s, bk) <= M);
        for (int a = 0; a < FA_NALGO; a++) {
            fa_io_result r;
            assert_int_equal(fa_io_run(FA_PASS_FWD, (fa_algo)a, &s, bk, M, &hw, NULL, &r), FA_OK);
            assert_int_equal(rows[i].bytes[a], hbm(&r));
            assert_true(rows[i].time_s[a] == r.time_s);
        }
        fa_formula f;
        assert_int_equal(fa_formula_bytes(FA_ALGO_FLASH2, &s, bk, &f), FA_OK);
        assert_int_equal(rows[i].bytes[FA_ALGO_FLASH2], f.read_bytes + f.write_bytes);
    }
    /* the next tile does not fit */
    fa_blocks next = {16 * (n + 1), 16 * (n + 1)};
    assert_true(n == FA_REPORT_BLOCK_ROWS || fa_sram_need(FA_ALGO_FLASH2, &s, next) > M);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_stem),
        cmocka_unit_test(test_load_hw),
        cmocka_unit_test(test_rows_equal_predictions), cmocka_unit_test(test_report_csv),
        cmocka_unit_test(test_count_and_roofline),
        cmocka_unit_test(test_training),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_long_context),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_kernels_b200),
        cmocka_unit_test(test_owns_file),
        cmocka_unit_test(test_owns_temporary),
        cmocka_unit_test(test_papers),
        cmocka_unit_test(test_papers_fa4),
        cmocka_unit_test(test_hbm_vs_n), cmocka_unit_test(test_hbm_vs_n_window),
        cmocka_unit_test(test_hbm_vs_sram),
        cmocka_unit_test(test_hbm_vs_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
