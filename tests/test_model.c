/* test_model.c -- fa_model_load: the shipped HuggingFace config.json files and bad files. */
#include <float.h>
#include <math.h>
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


/* ---- one test per family: the values Transformers uses, read off the published config.json ---- */

/* Checks the attention fields of a shipped config against what Transformers uses. */
typedef struct {
    const char *file, *name;
    int64_t heads, kv, d, d_v, layers, positions, window, n_sliding;
    double scale, softcap; /* 0: 1/sqrt(d), none */
    fa_dtype dtype;
} family;

static void check_family(const family *w)
{
    fa_model m;
    load_shipped(w->file, &m);
    assert_string_equal(m.name, w->name);
    assert_int_equal(m.heads, w->heads);
    assert_int_equal(m.kv_heads, w->kv);
    assert_int_equal(m.head_dim, w->d);
    assert_int_equal(m.head_dim_v, w->d_v);
    assert_int_equal(m.layers, w->layers);
    assert_int_equal(m.max_positions, w->positions);
    assert_int_equal(m.sliding_window, w->window);
    assert_int_equal(m.n_sliding, w->n_sliding);
    const double want = w->scale > 0 ? w->scale : 1 / sqrt((double)w->d);
    assert_true(fabs(fa_model_scale(&m) - want) <= 1e3 * DBL_EPSILON * want);
    assert_true(m.softcap == w->softcap);
    assert_int_equal(m.dtype, w->dtype);
    fa_shape s = fa_shape_default(m.max_positions, m.head_dim);
    s.heads = m.heads, s.kv_heads = m.kv_heads, s.d_v = m.head_dim_v, s.dtype = m.dtype;
    assert_int_equal(fa_shape_check(&s), FA_OK);
}

static void test_family_llama2(void **state)
{
    (void)state; /* MHA: num_key_value_heads = 32 */
    family w = {"llama-2-7b.json", "meta-llama/Llama-2-7b-hf", 32, 32, 128, 128, 32, 4096, 0, 0, 0, 0, FA_DTYPE_FP16};
    check_family(&w);
}

static void test_family_mixtral(void **state)
{
    (void)state; /* sliding_window null: full attention (Mistral's default 4096 is not taken) */
    family w = {"mixtral-8x7b.json", "mistralai/Mixtral-8x7B-v0.1", 32, 8, 128, 128, 32, 32768, 0, 0, 0, 0, FA_DTYPE_BF16};
    check_family(&w);
}

static void test_family_mistral(void **state)
{
    (void)state; /* Mistral-7B-v0.1: every layer a window of 4096; Nemo: head_dim 128 != 5120 / 32 = 160 */
    family w = {"mistral-7b.json", "mistralai/Mistral-7B-v0.1", 32, 8, 128, 128, 32, 32768, 4096, 32, 0, 0, FA_DTYPE_BF16};
    check_family(&w);
    family n = {"mistral-nemo-12b.json", "mistralai/Mistral-Nemo-Base-2407", 32, 8, 128, 128, 40, 128000, 0, 0, 0, 0,
                FA_DTYPE_BF16};
    check_family(&n);
}

static void test_family_qwen2(void **state)
{
    (void)state; /* sliding_window 131072 with use_sliding_window false: no window */
    family w = {"qwen2.5-7b.json", "Qwen/Qwen2.5-7B-Instruct", 28, 4, 128, 128, 28, 32768, 0, 0, 0, 0, FA_DTYPE_BF16};
    check_family(&w);
}

static void test_family_qwen3(void **state)
{
    (void)state; /* head_dim 128, not hidden 1024 / 16 = 64 */
    family w = {"qwen3-0.6b.json", "Qwen/Qwen3-0.6B", 16, 8, 128, 128, 28, 40960, 0, 0, 0, 0, FA_DTYPE_BF16};
    check_family(&w);
}

static void test_family_gemma2(void **state)
{
    (void)state;
    /* 9b: head_dim 256 (3584 / 16 = 224), 1/sqrt(256), softcap 50, even layers slide (21 of 42) */
    family w = {"gemma-2-9b.json", "google/gemma-2-9b", 16, 8, 256, 256, 42, 8192, 4096, 21, 0.0625, 50, FA_DTYPE_FP32};
    check_family(&w);
    fa_model m;
    load_shipped("gemma-2-9b.json", &m);
    for (int i = 0; i < 42; i++) assert_int_equal(m.layer_sliding[i], i % 2 == 0);
    /* 27b: query_pre_attn_scalar 144 = 4608 / 32: scale 1/12, not 1/sqrt(head_dim 128) */
    family b = {"gemma-2-27b.json", "google/gemma-2-27b", 32, 16, 128, 128, 46, 8192, 4096, 23, 1.0 / 12, 50,
                FA_DTYPE_FP32};
    check_family(&b);
    load_shipped("gemma-2-27b.json", &m); /* the rule the report's header names */
    assert_string_equal(m.scale_from, "1/sqrt(query_pre_attn_scalar = 144)");
    load_shipped("llama-3-8b.json", &m); /* 1/sqrt(d): no rule of the config's */
    assert_true(m.scale == 0);
    assert_string_equal(m.scale_from, "");
}

static void test_family_gemma3(void **state)
{
    (void)state; /* sliding_window_pattern 6: layers 5, 11, 17, 23 full, the 22 others a window of 512 */
    family w = {"gemma-3-1b.json", "google/gemma-3-1b-pt", 4, 1, 256, 256, 26, 32768, 512, 22, 0.0625, 0, FA_DTYPE_BF16};
    check_family(&w);
    fa_model m;
    load_shipped("gemma-3-1b.json", &m);
    for (int i = 0; i < 26; i++) assert_int_equal(m.layer_sliding[i], (i + 1) % 6 != 0);
}

static void test_family_phi3(void **state)
{
    (void)state; /* sliding_window 2047 on every layer; d = 3072 / 32 = 96 */
    family w = {"phi-3-mini-4k.json", "microsoft/Phi-3-mini-4k-instruct", 32, 32, 96, 96, 32, 4096, 2047, 32, 0, 0,
                FA_DTYPE_BF16};
    check_family(&w);
}

static void test_family_gpt2_neox_gptj(void **state)
{
    (void)state; /* n_embd / n_head; GPT-NeoX 6144 / 64 = 96; GPT-J 4096 / 16 = 256, no torch_dtype: fp16 */
    family g = {"gpt2-medium.json", "openai-community/gpt2-medium", 16, 16, 64, 64, 24, 1024, 0, 0, 0, 0, FA_DTYPE_FP16};
    check_family(&g);
    family n = {"gpt-neox-20b.json", "EleutherAI/gpt-neox-20b", 64, 64, 96, 96, 44, 2048, 0, 0, 0, 0, FA_DTYPE_FP16};
    check_family(&n);
    family j = {"gpt-j-6b.json", "EleutherAI/gpt-j-6b", 16, 16, 256, 256, 28, 2048, 0, 0, 0, 0, FA_DTYPE_FP16};
    check_family(&j);
}

static void test_family_falcon(void **state)
{
    (void)state; /* multi_query true, new_decoder_architecture false: one kv head; 4544 / 71 = 64;
                    no max_position_embeddings: FalconConfig's 2048 */
    family w = {"falcon-7b.json", "tiiuae/falcon-7b", 71, 1, 64, 64, 32, 2048, 0, 0, 0, 0, FA_DTYPE_BF16};
    check_family(&w);
}

static void test_family_deepseek(void **state)
{
    (void)state;
    /* MLA: d_qk = 128 + 64, d_v = 128, H_kv = H; latent 512 + 64 = 576, 512.  V3: scale 1/sqrt(192)
       x mscale^2, mscale = 0.1 mscale_all_dim ln(40) + 1 = 1.369 (Transformers' DeepseekV3Attention).
       V2: Transformers' DeepseekV2Attention takes qk_head_dim^-0.5 = 1/sqrt(192) (no mscale); the
       mscale^2 value (mscale_all_dim 0.707: 1.261) that DeepSeek's code and vLLM use is the note */
    const double m2 = 0.1 * 0.707 * log(40.0) + 1, m3 = 0.1 * log(40.0) + 1;
    family v2 = {"deepseek-v2.json", "deepseek-ai/DeepSeek-V2", 128, 128, 192, 128, 60, 163840, 0, 0,
                 1 / sqrt(192.0), 0, FA_DTYPE_BF16};
    check_family(&v2);
    fa_model m;
    load_shipped("deepseek-v2.json", &m);
    assert_true(fabs(fa_model_scale(&m) - 0.0721688) < 1e-6);
    assert_string_equal(m.scale_from, "");
    char want[128];
    snprintf(want, sizeof want, "DeepSeek's reference code and vLLM use mscale^2 / sqrt(d) = %.6g, yarn mscale = 1.261",
             m2 * m2 / sqrt(192.0));
    assert_string_equal(m.scale_note, want);
    assert_string_equal(want, "DeepSeek's reference code and vLLM use mscale^2 / sqrt(d) = 0.114721, yarn mscale = 1.261");
    family v3 = {"deepseek-v3.json", "deepseek-ai/DeepSeek-V3", 128, 128, 192, 128, 61, 163840, 0, 0,
                 m3 * m3 / sqrt(192.0), 0, FA_DTYPE_BF16};
    check_family(&v3);
    load_shipped("deepseek-v3.json", &m);
    assert_string_equal(m.scale_note, ""); /* V3: Transformers, DeepSeek's code and vLLM agree */
    assert_int_equal(m.mla, 1);
    assert_int_equal(m.latent_d, 576);
    assert_int_equal(m.latent_d_v, 512);
    assert_true(fabs(m.scale - 0.135234) < 1e-6); /* Transformers' DeepseekV3Attention.scaling */
    assert_string_equal(m.scale_from, "mscale^2 / sqrt(d), yarn mscale = 1.369"); /* the report's header */
}

/* The rules on small files: Falcon-40B's kv heads, defaults by model_type, layer_types,
 * max_window_layers, Gemma-3's text_config, GPT-2's scale_attn_weights. */
static void test_rules(void **state)
{
    tmpdir *t = *state;
    fa_model m;
    const char *p = write_file(t, "f40.json",
                               "{\"model_type\": \"falcon\", \"hidden_size\": 8192, \"num_attention_heads\": 128, "
                               "\"num_kv_heads\": 8, \"new_decoder_architecture\": true, \"num_hidden_layers\": 60}");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.kv_heads, 8);
    p = write_file(t, "def.json", "{\"model_type\": \"gemma2\", \"hidden_size\": 2304, \"num_attention_heads\": 8, "
                                  "\"num_hidden_layers\": 4}"); /* Gemma2Config's defaults */
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.head_dim, 256);
    assert_true(m.softcap == 50);
    assert_int_equal(m.sliding_window, 4096);
    assert_int_equal(m.n_sliding, 2);
    p = write_file(t, "lt.json", "{\"hidden_size\": 512, \"num_attention_heads\": 8, \"num_hidden_layers\": 3, "
                                 "\"sliding_window\": 128, \"layer_types\": [\"full_attention\", "
                                 "\"sliding_attention\", \"sliding_attention\"]}");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.n_sliding, 2);
    assert_int_equal(m.layer_sliding[0], 0);
    p = write_file(t, "mwl.json", "{\"model_type\": \"qwen2\", \"hidden_size\": 512, \"num_attention_heads\": 8, "
                                  "\"num_hidden_layers\": 6, \"sliding_window\": 256, \"use_sliding_window\": true, "
                                  "\"max_window_layers\": 4}");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.n_sliding, 2); /* layers 4 and 5 */
    assert_int_equal(m.layer_sliding[4], 1);
    p = write_file(t, "g3.json", "{\"_name_or_path\": \"g3\", \"torch_dtype\": \"bfloat16\", \"text_config\": "
                                 "{\"model_type\": \"gemma3_text\", \"hidden_size\": 2560, \"num_attention_heads\": 8, "
                                 "\"num_key_value_heads\": 4, \"num_hidden_layers\": 34, \"sliding_window\": 1024, "
                                 "\"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"}}}");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(m.n_sliding, 34 - 5); /* full: 5, 11, 17, 23, 29 */
    assert_int_equal(m.dtype, FA_DTYPE_BF16);
    assert_string_equal(m.name, "g3");
    p = write_file(t, "g2.json", "{\"n_embd\": 768, \"n_head\": 12, \"scale_attn_weights\": false}");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_true(m.scale == 1);
    assert_string_equal(m.scale_from, "scale_attn_weights false");
}

/* A key that changes attention in a way fasim does not model is refused, naming it. */
static void test_refused_keys(void **state)
{
    tmpdir *t = *state;
    static const char *const cases[][2] = {
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"alibi\": true}", "alibi"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"attention_chunk_size\": 8192}", "attention_chunk_size"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"scale_attn_by_inverse_layer_idx\": true}",
         "scale_attn_by_inverse_layer_idx"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"position_embedding_type\": \"alibi\"}",
         "position_embedding_type"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"rope_scaling\": {\"rope_type\": \"yarn\", "
         "\"factor\": 4.0}}", "rope_scaling type 'yarn'"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"num_hidden_layers\": 2, \"sliding_window\": 64, "
         "\"layer_types\": [\"chunked_attention\", \"full_attention\"]}", "chunked_attention"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"use_bidirectional_attention\": true}",
         "use_bidirectional_attention"},
        {"{\"hidden_size\": 512, \"num_attention_heads\": 8, \"attention_multiplier\": 0.015625}",
         "attention_multiplier"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "r%zu.json", i);
        t->n = 0; /* the files of this loop share one slot */
        const char *p = write_file(t, name, cases[i][0]);
        fa_model m;
        assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
        if (!strstr(fa_last_error(), cases[i][1])) fail_msg("case %zu: '%s' not in: %s", i, cases[i][1], fa_last_error());
        unlink(p);
    }
    /* the same keys when off are accepted: alibi false (Falcon-7B's file), rope_scaling llama3 */
    const char *p = write_file(t, "ok.json", "{\"hidden_size\": 512, \"num_attention_heads\": 8, \"alibi\": false, "
                                             "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0}}");
    fa_model m;
    assert_int_equal(fa_model_load(p, &m), FA_OK);
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
    /* a UTF-8 byte order mark first is skipped (as compare skips it); a second one is an error,
     * quoted in printable \xNN form */
    p = write_file(t, "bom.json", "\xEF\xBB\xBF{\"num_attention_heads\": 12, \"hidden_size\": 768}\n");
    assert_int_equal(fa_model_load(p, &m), FA_OK);
    assert_int_equal(m.heads, 12);
    assert_int_equal(m.head_dim, 64);
    p = write_file(t, "bom2.json", "\xEF\xBB\xBF\xEF\xBB\xBF{}\n");
    assert_int_equal(fa_model_load(p, &m), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "expected near '\\xef\\xbb\\xbf'"));
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
    /* an MLA model (DeepSeek-V2's config: qk_nope 128 + qk_rope 64 = 192, v_head_dim 128): d_v is
     * the model's, not d (issue 18, the fourth reader: io --model gave d_v = 192) */
    fa_model mla = {.heads = 128, .kv_heads = 128, .head_dim = 192, .head_dim_v = 128, .max_positions = 163840,
                    .dtype = FA_DTYPE_BF16, .mla = 1};
    s = unset;
    fa_shape_fill(&s, &mla);
    assert_int_equal(s.d, 192);
    assert_int_equal(s.d_v, 128);
    s = unset, s.d = 160; /* --headdim on it: d_v moves with it, as for every model */
    fa_shape_fill(&s, &mla);
    assert_int_equal(s.d_v, 160);
    s = unset, s.d_v = 96; /* --headdim-v alone: d stays the model's */
    fa_shape_fill(&s, &mla);
    assert_int_equal(s.d, 192);
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
        cmocka_unit_test(test_family_llama2),
        cmocka_unit_test(test_family_mixtral),
        cmocka_unit_test(test_family_mistral),
        cmocka_unit_test(test_family_qwen2),
        cmocka_unit_test(test_family_qwen3),
        cmocka_unit_test(test_family_gemma2),
        cmocka_unit_test(test_family_gemma3),
        cmocka_unit_test(test_family_phi3),
        cmocka_unit_test(test_family_gpt2_neox_gptj),
        cmocka_unit_test(test_family_falcon),
        cmocka_unit_test(test_family_deepseek),
        cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_optional_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_heads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heads_not_multiple_of_kv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negative_values, setup, teardown),
    };
    return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
