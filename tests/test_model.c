/* test_model.c -- fa_model_load: the shipped HuggingFace config.json files and bad files. */
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

#ifndef FASIM_MODELS_DIR
#define FASIM_MODELS_DIR "analysis/models"
#endif

/* A temporary directory for the bad files of one test, removed at teardown. */
typedef struct {
    char dir[64];
    char path[8][128];
    int n;
} tmpdir;

static int setup(void **state)
{
    tmpdir *t = calloc(1, sizeof *t);
    if (!t) return -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/fasim-test-model-XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    tmpdir *t = *state;
    for (int i = 0; i < t->n; i++) unlink(t->path[i]);
    rmdir(t->dir);
    free(t);
    return 0;
}

/* Writes text to <dir>/name and returns the path (owned by t). */
static const char *write_file(tmpdir *t, const char *name, const char *text)
{
    assert_true(t->n < 8);
    char dir[64];
    memcpy(dir, t->dir, sizeof dir);
    char *p = t->path[t->n++];
    snprintf(p, sizeof t->path[0], "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static void load_shipped(const char *file, fa_model *m)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FASIM_MODELS_DIR, file);
    fa_status st = fa_model_load(path, m);
    if (st != FA_OK) fail_msg("%s: %s", path, fa_last_error());
}

static void test_gpt2_medium(void **state)
{
    (void)state;
    fa_model m;
    load_shipped("gpt2-medium.json", &m);
    /* n_embd 1024 / n_head 16 = 64; no num_key_value_heads: MHA */
    assert_int_equal(m.heads, 16);
    assert_int_equal(m.kv_heads, 16);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.layers, 24);
    assert_int_equal(m.max_positions, 1024);
    /* the real config has no torch_dtype: the loader's default, fp16 */
    assert_int_equal(m.dtype, FA_DTYPE_FP16);
    assert_string_equal(m.name, "openai-community/gpt2-medium");
}

static void test_llama3_8b(void **state)
{
    (void)state;
    fa_model m;
    load_shipped("llama-3-8b.json", &m);
    /* hidden 4096 / 32 heads = 128; GQA 32/8 */
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.max_positions, 8192);
    assert_int_equal(m.dtype, FA_DTYPE_BF16);
    assert_string_equal(m.name, "meta-llama/Meta-Llama-3-8B");
}

static void test_mistral_7b(void **state)
{
    (void)state;
    fa_model m;
    load_shipped("mistral-7b.json", &m);
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.max_positions, 32768);
    assert_int_equal(m.dtype, FA_DTYPE_BF16);
    assert_string_equal(m.name, "mistralai/Mistral-7B-v0.1");
}

/* The shipped shapes are valid fasim shapes: GQA group size divides, d fits. */
static void test_shipped_shapes_check(void **state)
{
    (void)state;
    static const char *const files[] = {"gpt2-medium.json", "llama-3-8b.json", "mistral-7b.json"};
    for (int i = 0; i < 3; i++) {
        fa_model m;
        load_shipped(files[i], &m);
        fa_shape s = fa_shape_default(m.max_positions, m.head_dim);
        s.heads = m.heads;
        s.kv_heads = m.kv_heads;
        s.dtype = m.dtype;
        assert_int_equal(fa_shape_check(&s), FA_OK);
    }
}

static void test_optional_keys(void **state)
{
    tmpdir *t = *state;
    fa_model m;
    /* explicit head_dim wins over hidden / heads; float32; model_type as the name */
    const char *p = write_file(t, "hd.json",
                               "{\"hidden_size\": 4096, \"num_attention_heads\": 32, "
                               "\"num_key_value_heads\": 1, \"head_dim\": 96, "
                               "\"torch_dtype\": \"float32\", \"model_type\": \"toy\"}");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.head_dim, 96);
    assert_int_equal(m.kv_heads, 1);
    assert_int_equal(m.dtype, FA_DTYPE_FP32);
    assert_string_equal(m.name, "toy");
    /* defaults: layers 1, positions 2048 */
    assert_int_equal(m.layers, 1);
    assert_int_equal(m.max_positions, 2048);
}

static void test_missing_file(void **state)
{
    tmpdir *t = *state;
    char p[160];
    snprintf(p, sizeof p, "%s/no-such-model.json", t->dir);
    fa_model m;
    assert_int_equal(fa_model_load(p, &m), FA_EIO);
    assert_non_null(strstr(fa_last_error(), "no-such-model.json"));
}

static void test_malformed_json(void **state)
{
    tmpdir *t = *state;
    fa_model m;
    const char *p = write_file(t, "bad.json", "{\"num_attention_heads\": 16,\n \"n_embd\": }\n");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "malformed JSON"));
    p = write_file(t, "array.json", "[16, 64]\n");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "not a JSON object"));
    p = write_file(t, "empty.json", "");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
}

static void test_missing_heads(void **state)
{
    tmpdir *t = *state;
    fa_model m;
    const char *p = write_file(t, "noheads.json", "{\"hidden_size\": 1024, \"num_hidden_layers\": 4}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "num_attention_heads"));
    /* heads given, but neither head_dim nor hidden size */
    p = write_file(t, "nohidden.json", "{\"num_attention_heads\": 8}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "hidden_size"));
    /* a string is not a number */
    p = write_file(t, "strheads.json", "{\"hidden_size\": 1024, \"num_attention_heads\": \"16\"}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
}

static void test_heads_not_multiple_of_kv(void **state)
{
    tmpdir *t = *state;
    fa_model m;
    const char *p = write_file(t, "gqa.json",
                               "{\"hidden_size\": 4096, \"num_attention_heads\": 32, "
                               "\"num_key_value_heads\": 6}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "not a multiple of num_key_value_heads"));
}

static void test_negative_values(void **state)
{
    tmpdir *t = *state;
    fa_model m;
    const char *p = write_file(t, "neg1.json", "{\"hidden_size\": 1024, \"num_attention_heads\": -16}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    p = write_file(t, "neg2.json", "{\"hidden_size\": -1024, \"num_attention_heads\": 16}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    p = write_file(t, "neg3.json",
                   "{\"hidden_size\": 1024, \"num_attention_heads\": 16, \"num_key_value_heads\": -4}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    p = write_file(t, "neg4.json",
                   "{\"hidden_size\": 1024, \"num_attention_heads\": 16, \"num_hidden_layers\": -2}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    p = write_file(t, "neg5.json",
                   "{\"hidden_size\": 1024, \"num_attention_heads\": 16, \"n_positions\": 0}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    /* hidden smaller than heads: head_dim would be 0 */
    p = write_file(t, "small.json", "{\"hidden_size\": 8, \"num_attention_heads\": 16}");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
}

/* hidden_size not a multiple of heads without head_dim; integral reals; out of range; dtype;
 * a directory; the sliding window. */
static void test_model_strict_values(void **state)
{
    (void)state;
    char dir[] = "/tmp/fasim_model_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    fa_model m;
    snprintf(path, sizeof path, "%s/a.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"num_attention_heads\": 7, \"hidden_size\": 512}", f);
    fclose(f);
    assert_int_equal(fa_model_load(path, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "not a multiple of num_attention_heads"));
    f = fopen(path, "w");
    fputs("{\"num_attention_heads\": 8.0, \"hidden_size\": 512, \"sliding_window\": 4096, \"dtype\": \"float32\"}", f);
    fclose(f);
    assert_int_equal(fa_model_load(path, &m), FA_OK);
    assert_int_equal(m.heads, 8);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.sliding_window, 4096);
    assert_int_equal(m.dtype, FA_DTYPE_FP32);
    f = fopen(path, "w");
    fputs("{\"num_attention_heads\": 99999999999, \"hidden_size\": 512}", f);
    fclose(f);
    assert_int_equal(fa_model_load(path, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "num_attention_heads"));
    assert_non_null(strstr(fa_last_error(), "2147483647"));
    f = fopen(path, "w");
    fputs("{\"num_attention_heads\": 8, \"hidden_size\": 512, \"torch_dtype\": \"float8_e4m3fn\"}", f);
    fclose(f);
    assert_int_equal(fa_model_load(path, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "float8_e4m3fn"));
    assert_int_equal(fa_model_load(dir, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "directory"));
    remove(path);
    rmdir(dir);
}

/* fa_shape_fill: a model's fields, the --heads rule of a multi-head model and of a GQA one,
 * --headdim moving d_v, and fasim's defaults without a model. */
static void test_shape_fill(void **state)
{
    (void)state;
    fa_model mha = {.heads = 16, .kv_heads = 16, .head_dim = 64, .max_positions = 1024, .dtype = FA_DTYPE_FP16};
    fa_model gqa = {.heads = 32, .kv_heads = 8, .head_dim = 128, .max_positions = 8192, .dtype = FA_DTYPE_BF16};
    const fa_shape unset = {.batch = -1, .heads = -1, .kv_heads = -1, .seqlen_q = -1, .seqlen_k = -1, .d = -1, .d_v = -1,
                            .dtype = (fa_dtype)-1};
    fa_shape s = unset;
    fa_shape_fill(&s, &gqa);
    assert_int_equal(s.batch, 1);
    assert_int_equal(s.heads, 32);
    assert_int_equal(s.kv_heads, 8);
    assert_int_equal(s.seqlen_q, 8192);
    assert_int_equal(s.seqlen_k, 8192);
    assert_int_equal(s.d, 128);
    assert_int_equal(s.d_v, 128);
    assert_int_equal(s.dtype, FA_DTYPE_BF16);
    s = unset, s.heads = 4; /* --heads 4 on a multi-head model: still multi-head */
    fa_shape_fill(&s, &mha);
    assert_int_equal(s.kv_heads, 4);
    s = unset, s.heads = 4; /* on a GQA model: its 8 kv heads stay (fa_shape_check refuses 4 / 8) */
    fa_shape_fill(&s, &gqa);
    assert_int_equal(s.kv_heads, 8);
    s = unset, s.d = 96; /* --headdim alone moves d_v with it */
    fa_shape_fill(&s, &gqa);
    assert_int_equal(s.d_v, 96);
    s = unset, s.kv_heads = 2, s.seqlen_q = 77; /* no model: H follows H_kv, N_k follows N_q */
    fa_shape_fill(&s, NULL);
    assert_int_equal(s.heads, 2);
    assert_int_equal(s.seqlen_k, 77);
    assert_int_equal(s.d, 64);
    assert_int_equal(s.d_v, 64);
    assert_int_equal(s.dtype, FA_DTYPE_FP16);
    s = unset;
    fa_shape_fill(&s, NULL);
    assert_int_equal(s.heads, 1);
    assert_int_equal(s.kv_heads, 1);
    assert_int_equal(s.seqlen_q, 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_strict_values),
        cmocka_unit_test(test_shape_fill),
        cmocka_unit_test(test_gpt2_medium),
        cmocka_unit_test(test_llama3_8b),
        cmocka_unit_test(test_mistral_7b),
        cmocka_unit_test(test_shipped_shapes_check),
        cmocka_unit_test_setup_teardown(test_optional_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_heads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heads_not_multiple_of_kv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negative_values, setup, teardown),
    };
    return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
