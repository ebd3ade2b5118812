/* model.c -- model shapes from a HuggingFace config.json (jansson). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "fa_analysis.h"
#include "fa_file.h"

/* Looks up the first present key of keys.  Integers, and reals with an integral value (8.0),
 * are accepted.  Returns 1 and fills *out, 0 when no key is present, -1 (status set) when the
 * value is not an integer in [lo, hi]. */
static int get_int(json_t *root, const char *path, const char *const *keys, int64_t lo, int64_t hi,
                   int64_t *out)
{
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(root, keys[i]);
        if (!v || json_is_null(v)) continue;
        double x;
        if (json_is_integer(v)) x = (double)json_integer_value(v);
        else if (json_is_real(v)) x = json_real_value(v);
        else {
            fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s is not a number", path, keys[i]);
            return -1;
        }
        if (!(x == floor(x)) || x < (double)lo || x > (double)hi) {
            char lit[40]; /* the value as the file writes it: an integer in full, a real in %.15g */
            if (json_is_integer(v)) snprintf(lit, sizeof lit, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
            else snprintf(lit, sizeof lit, "%.15g", x);
            fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s = %s must be an integer in [%lld, %lld]",
                     path, keys[i], lit, (long long)lo, (long long)hi);
            return -1;
        }
        *out = (int64_t)x;
        return 1;
    }
    return 0;
}

/* Looks up key as a real number (integers too).  Returns 1 and fills *out, 0 when absent or
 * null, -1 (status set) when it is not a number or not > 0. */
static int get_real(json_t *root, const char *path, const char *key, double *out)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) return 0;
    if (!json_is_number(v)) {
        fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s is not a number", path, key);
        return -1;
    }
    const double x = json_number_value(v);
    if (!(x > 0) || !isfinite(x)) {
        fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s = %g must be > 0", path, key, x);
        return -1;
    }
    *out = x;
    return 1;
}

/* Looks up key as a boolean: *out = its value, or dflt when absent or null.  Returns -1 (status
 * set) when it is not a boolean. */
static int get_bool(json_t *root, const char *path, const char *key, int dflt, int *out)
{
    json_t *v = json_object_get(root, key);
    *out = dflt;
    if (!v || json_is_null(v)) return 0;
    if (!json_is_boolean(v)) {
        fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s is not true or false", path, key);
        return -1;
    }
    *out = json_is_true(v);
    return 1;
}

static int is_type(const char *type, const char *const *types)
{
    for (int i = 0; types[i]; i++)
        if (strcmp(type, types[i]) == 0) return 1;
    return 0;
}

/* The attention keys fasim does not model, refused when they are set (true, a number, a string
 * or an object): each changes the scores or the mask of some layer. */
static const struct {
    const char *key, *why;
} unmodeled[] = {
    {"alibi", "ALiBi biases scaled with the logits (Falcon)"},
    {"use_alibi", "ALiBi biases"},
    {"alibi_bias_max", "ALiBi biases"},
    {"attention_chunk_size", "chunked attention (Llama 4)"},
    {"attention_multiplier", "a softmax scale other than 1/sqrt(d) (Granite)"},
    {"scale_attn_by_inverse_layer_idx", "a scale 1/(layer + 1) per layer (GPT-2)"},
    {"use_bidirectional_attention", "bidirectional (non-causal) attention"},
    {"attn_temperature_tuning", "position-dependent query scaling (Llama 4)"},
    {"attn_config", "MPT's attention settings (ALiBi, clip_qkv, softmax scale)"},
    {"blocksparse_block_size", "block-sparse attention layers (Phi-3-small)"},
    {"dense_attention_every_n_layers", "block-sparse attention between the dense layers (Phi-3-small)"},
    {"mup_use_scaling", "muP's softmax scale mup_attn_multiplier / d (Phi-3-small)"},
};

/* Model types whose attention differs from what fasim counts whatever their keys say. */
static const struct {
    const char *type, *why;
} unmodeled_types[] = {
    {"bloom", "ALiBi biases in every layer (BloomModel builds them whatever the config says)"},
    {"mpt", "ALiBi biases in every layer (MptModel builds them whatever the config says)"},
    {"phi3small", "block-sparse attention layers and muP's softmax scale (microsoft/Phi-3-small's code)"},
};

/* The families fasim has rules for (docs/conventions.md, "Model configs"), and which of them read
 * the keys that only some families read: in another known family Transformers ignores the key, and
 * so does fasim, saying so in the model's note. */
static const char *const t_known[] = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
                                      "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "gpt2", "gpt_neox", "gptj",
                                      "falcon", "RefinedWeb", "RefinedWebModel", "deepseek_v2", "deepseek_v3",
                                      "cohere2", "starcoder2", NULL};
static const char *const t_reads_window[] = {"mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
                                             "gemma2", "gemma3", "gemma3_text", "phi3", "cohere2", "starcoder2", NULL};
static const char *const t_reads_softcap[] = {"gemma2", "gemma3", "gemma3_text", NULL};
static const char *const t_reads_qpas[] = {"gemma2", "gemma3", "gemma3_text", NULL};

/* A config class's max_position_embeddings default (Transformers' configuration_*.py), for a
 * file that omits the key; 0 when fasim does not know the family (then 2048). */
static int64_t default_positions(const char *type)
{
    static const struct {
        const char *type;
        int64_t n;
    } d[] = {{"llama", 2048},          {"mistral", 131072},    {"mixtral", 131072},     {"qwen2", 32768},
             {"qwen2_moe", 32768},     {"qwen3", 32768},       {"qwen3_moe", 32768},    {"gemma", 8192},
             {"gemma2", 8192},         {"gemma3", 131072},     {"gemma3_text", 131072}, {"phi3", 4096},
             {"gpt2", 1024},           {"gpt_neox", 2048},     {"gptj", 2048},          {"falcon", 2048},
             {"deepseek_v2", 2048},    {"deepseek_v3", 4096}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!strcmp(type, d[i].type)) return d[i].n;
    return 0;
}

/* A rope_scaling (or rope_parameters) object: yarn and longrope multiply the rotated q and k by an
 * attention factor, a change of the logits outside MLA's rule; the others move positions only.
 * Sets *mscale2 to MLA's mscale^2 (1 when none).  Returns 0, or -1 (status set). */
static int check_rope(json_t *rs, const char *path, const char *key, int mla, double *mscale2)
{
    *mscale2 = 1;
    if (!rs || json_is_null(rs)) return 0;
    if (!json_is_object(rs)) {
        fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s is not an object", path, key);
        return -1;
    }
    json_t *t = json_object_get(rs, "rope_type");
    if (!t || json_is_null(t)) t = json_object_get(rs, "type");
    if (!t || json_is_null(t)) { /* Transformers v5 per layer type: {"full_attention": {...}, ...} */
        const char *k;
        json_t *v;
        json_object_foreach(rs, k, v) {
            if (!json_is_object(v)) continue;
            double m2;
            if (check_rope(v, path, key, mla, &m2)) return -1;
            if (m2 != 1) *mscale2 = m2;
        }
        return 0;
    }
    if (!json_is_string(t)) {
        fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s's rope_type is not a string", path, key);
        return -1;
    }
    const char *type = json_string_value(t);
    static const char *const positions_only[] = {"default", "linear", "dynamic", "llama3", NULL};
    static const char *const factor_types[] = {"yarn", "longrope", "su", NULL};
    if (!is_type(type, positions_only) && !is_type(type, factor_types)) {
        char ex[FA_EXCERPT_SIZE];
        fa_error(FA_EINVAL, __FILE__, __LINE__,
                 "model file %s: %s type '%s' is not one fasim knows (it reads default, linear, dynamic and llama3, "
                 "which move positions only, and DeepSeek's yarn; docs/conventions.md, \"Model configs\"): what it "
                 "does to the logits is unknown", path, key, fa_excerpt(type, strlen(type), ex));
        return -1;
    }
    double af = 0;
    if (get_real(rs, path, "attention_factor", &af) < 0) return -1;
    const int scaled = !strcmp(type, "yarn") || !strcmp(type, "longrope") || !strcmp(type, "su") || (af && af != 1);
    if (!scaled) return 0;
    double factor = 0, ms = 0, msa = 0;
    if (mla && !strcmp(type, "yarn") && !af) {
        if (get_real(rs, path, "factor", &factor) < 0 || get_real(rs, path, "mscale", &ms) < 0 ||
            get_real(rs, path, "mscale_all_dim", &msa) < 0)
            return -1;
        /* DeepSeek: the rope dims' factor mscale / mscale_all_dim is 1 when they agree; the
         * softmax scale takes mscale(factor, mscale_all_dim)^2 */
        if (ms == msa) {
            if (msa && factor > 1) {
                const double m = 0.1 * msa * log(factor) + 1.0;
                *mscale2 = m * m;
            }
            return 0;
        }
        fa_error(FA_EINVAL, __FILE__, __LINE__,
                 "model file %s: %s yarn with mscale = %g != mscale_all_dim = %g multiplies the rotated q and k by "
                 "mscale(mscale) / mscale(mscale_all_dim), an attention factor fasim does not model (DeepSeek's rule "
                 "with the two equal is read; docs/conventions.md, \"Model configs\")", path, key, ms, msa);
        return -1;
    }
    fa_error(FA_EINVAL, __FILE__, __LINE__,
             "model file %s: %s type '%s' multiplies the rotated q and k by an attention factor (the logits' "
             "scale, not modeled by fasim; docs/conventions.md, \"Model configs\")",
             path, key, type);
    return -1;
}

/* The object key that ends at byte `end` of f (jansson's position after a duplicate key, which its
 * message does not name), into out: the last quoted string before it, its bytes outside printable
 * ASCII, a quote and a backslash written as \xNN (the message quotes the file's content); "" when
 * none is found. */
static void duplicate_key(FILE *f, long end, char *out, size_t n)
{
    out[0] = '\0';
    char buf[512];
    long from = end > (long)sizeof buf ? end - (long)sizeof buf : 0;
    if (end <= 0 || fseek(f, from, SEEK_SET) != 0) return;
    size_t len = fread(buf, 1, (size_t)(end - from), f);
    size_t close = len; /* the key's closing quote: the last quote not escaped */
    while (close > 0 && buf[close - 1] != '"') close--;
    if (close == 0) return;
    size_t open = close - 1; /* its opening quote: the previous quote not preceded by an odd run of backslashes */
    while (open > 0) {
        open--;
        if (buf[open] != '"') continue;
        size_t bs = 0;
        while (open >= bs + 1 && buf[open - bs - 1] == '\\') bs++;
        if (bs % 2 == 0) break;
    }
    if (buf[open] != '"' || open + 1 >= close) return;
    size_t k = 0;
    for (size_t i = open + 1; i < close - 1 && k + 5 < n; i++) {
        const unsigned char c = (unsigned char)buf[i];
        k += (size_t)snprintf(out + k, n - k, c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? "%c" : "\\x%02x", c);
    }
    out[k] = '\0';
}

fa_status fa_model_load(const char *path, fa_model *m)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        FA_FAIL(FA_EINVAL, "model file %s is a directory (give its config.json)", path);
    json_error_t err;
    FA_TRY(fa_check_regular(path, "model file"));
    FILE *f = fopen(path, "r");
    if (!f) FA_FAIL(FA_EIO, "cannot open model file %s: %s", path, strerror(errno));
    /* a UTF-8 byte order mark (editors on Windows write one) is skipped, as compare skips it in
     * a CSV: jansson reads from the stream's position */
    char bom[3];
    long start = 3;
    if (fread(bom, 1, 3, f) != 3 || memcmp(bom, "\xEF\xBB\xBF", 3) != 0) rewind(f), start = 0;
    json_t *top = json_loadf(f, JSON_REJECT_DUPLICATES, &err); /* a key twice: which one? */
    char dup[96] = "";
    if (!top && json_error_code(&err) == json_error_duplicate_key) duplicate_key(f, start + err.position, dup, sizeof dup);
    fclose(f);
    if (!top && dup[0]) /* jansson names no key: the one that ends where it stopped */
        FA_FAIL(FA_EINVAL, "model file %s: key \"%s\" given twice (line %d): give each key once", path, dup, err.line);
    if (!top) { /* jansson's text quotes the file near the error: bytes outside printable ASCII as \xNN */
        char ex[4 * sizeof err.text];
        size_t k = 0;
        for (const unsigned char *c = (const unsigned char *)err.text; *c && k + 5 < sizeof ex; c++)
            k += (size_t)snprintf(ex + k, sizeof ex - k, *c >= 0x20 && *c < 0x7f ? "%c" : "\\x%02x", *c);
        ex[k] = 0;
        FA_FAIL(FA_EINVAL, "model file %s: malformed JSON at line %d: %s", path, err.line, ex);
    }
    fa_status st = FA_OK;
    memset(m, 0, sizeof *m);
    const int64_t LIM = INT32_MAX;
    static const char *const k_hidden[] = {"hidden_size", "n_embd", "d_model", NULL};
    static const char *const k_heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const k_kv[] = {"num_key_value_heads", "num_kv_heads", "n_kv_heads", "n_head_kv", NULL};
    static const char *const k_hd[] = {"head_dim", NULL};
    static const char *const k_layers[] = {"num_hidden_layers", "n_layer", NULL};
    static const char *const k_pos[] = {"max_position_embeddings", "n_positions", "n_ctx", NULL};
    static const char *const k_sw[] = {"sliding_window", NULL};
    static const char *const k_mwl[] = {"max_window_layers", NULL};
    static const char *const k_swp[] = {"sliding_window_pattern", NULL};
    static const char *const k_lora[] = {"kv_lora_rank", NULL};
    static const char *const k_nope[] = {"qk_nope_head_dim", NULL};
    static const char *const k_rope[] = {"qk_rope_head_dim", NULL};
    static const char *const k_vhd[] = {"v_head_dim", NULL};
    /* the families whose configuration classes give these defaults */
    static const char *const t_gemma[] = {"gemma2", "gemma3", "gemma3_text", NULL};
    static const char *const t_sw4096[] = {"mistral", "gemma2", "gemma3", "gemma3_text", "qwen2", NULL};
    static const char *const t_qwen[] = {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", NULL};
    static const char *const t_falcon[] = {"falcon", "RefinedWeb", "RefinedWebModel", NULL};
    int64_t hidden = 0;
    int r;
    json_t *root = top;
#define GET(keys, lo, out, dflt)                                  \
    do {                                                          \
        r = get_int(root, path, keys, lo, LIM, out);              \
        if (r < 0) goto fail;                                     \
        if (r == 0) *(out) = (dflt);                              \
    } while (0)
#define REFUSE(...)                                                         \
    do {                                                                    \
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, __VA_ARGS__);          \
        goto done;                                                          \
    } while (0)
    if (!json_is_object(top)) REFUSE("model file %s: top level is not a JSON object", path);
    json_t *tc = json_object_get(top, "text_config"); /* Gemma-3 (multimodal): the language model's */
    if (json_is_object(tc) && !json_object_get(top, "num_attention_heads") && !json_object_get(top, "n_head"))
        root = tc;
    json_t *mt = json_object_get(root, "model_type");
    if (!json_is_string(mt)) mt = json_object_get(top, "model_type");
    snprintf(m->type, sizeof m->type, "%s", json_is_string(mt) ? json_string_value(mt) : "");
    for (size_t i = 0; i < sizeof unmodeled / sizeof unmodeled[0]; i++) {
        json_t *v = json_object_get(root, unmodeled[i].key);
        if (!v || json_is_null(v) || json_is_false(v) || (json_is_number(v) && json_number_value(v) == 0)) continue;
        REFUSE("model file %s: %s (%s) changes attention in a way fasim does not model", path, unmodeled[i].key,
               unmodeled[i].why);
    }
    for (size_t i = 0; i < sizeof unmodeled_types / sizeof unmodeled_types[0]; i++)
        if (!strcmp(m->type, unmodeled_types[i].type))
            REFUSE("model file %s: model_type %s (%s) changes attention in a way fasim does not model", path, m->type,
                   unmodeled_types[i].why);
    const int known = is_type(m->type, t_known);
    size_t nk = 0; /* m->note's length */
#define NOTE(...)                                                                                   \
    do {                                                                                            \
        if (nk < sizeof m->note)                                                                    \
            nk += (size_t)snprintf(m->note + nk, sizeof m->note - nk, "%s", nk ? "; " : "");        \
        if (nk < sizeof m->note) nk += (size_t)snprintf(m->note + nk, sizeof m->note - nk, __VA_ARGS__); \
    } while (0)
    /* a key another family reads: Transformers' attention of this one ignores it, and so does fasim */
    {
        static const struct {
            const char *key;
            const char *const *readers;
        } fam[] = {{"sliding_window", t_reads_window},
                   {"attn_logit_softcapping", t_reads_softcap},
                   {"query_pre_attn_scalar", t_reads_qpas}};
        for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
            json_t *v = json_object_get(root, fam[i].key);
            if (known && v && !json_is_null(v) && !is_type(m->type, fam[i].readers)) {
                NOTE("%s ignored: Transformers' %s attention does not read it", fam[i].key, m->type);
                json_object_del(root, fam[i].key);
            }
        }
    }
    json_t *pe = json_object_get(root, "position_embedding_type");
    if (json_is_string(pe) && strcmp(json_string_value(pe), "alibi") == 0)
        REFUSE("model file %s: position_embedding_type alibi (ALiBi biases) changes attention in a way fasim does "
               "not model", path);
    r = get_int(root, path, k_heads, 1, LIM, &m->heads);
    if (r < 0) goto fail;
    if (r == 0) REFUSE("model file %s: needs num_attention_heads (or n_head), a positive integer", path);
    /* kv heads: Falcon's rule first (FalconConfig, modeling_falcon.py) */
    int nda, mq;
    if (get_bool(root, path, "new_decoder_architecture", 0, &nda) < 0) goto fail;
    if (get_bool(root, path, "multi_query", is_type(m->type, t_falcon), &mq) < 0) goto fail;
    GET(k_kv, 1, &m->kv_heads, m->heads);
    if (!nda && mq) m->kv_heads = 1;
    GET(k_hidden, 1, &hidden, 0);
    GET(k_hd, 1, &m->head_dim, is_type(m->type, t_gemma) || !strcmp(m->type, "gemma") ? 256 : 0);
    int64_t lora = 0;
    GET(k_lora, 1, &lora, 0);
    if (lora) { /* MLA (DeepSeek-V2/V3): Transformers' attention ignores head_dim and num_key_value_heads */
        int64_t nope, rope, vhd;
        GET(k_nope, 1, &nope, 128);
        GET(k_rope, 1, &rope, 64);
        GET(k_vhd, 1, &vhd, 128);
        m->mla = 1;
        m->head_dim = nope + rope;
        m->head_dim_v = vhd;
        m->kv_heads = m->heads;
        m->latent_d = lora + rope;
        m->latent_d_v = lora;
    }
    if (m->head_dim == 0) {
        if (hidden == 0) REFUSE("model file %s: needs head_dim or hidden_size (or n_embd)", path);
        if (hidden % m->heads != 0)
            REFUSE("model file %s: hidden_size = %lld is not a multiple of num_attention_heads = %lld "
                   "(give head_dim)", path, (long long)hidden, (long long)m->heads);
        m->head_dim = hidden / m->heads;
    }
    if (!m->head_dim_v) m->head_dim_v = m->head_dim;
    GET(k_layers, 1, &m->layers, 1);
    const int no_layers = r == 0;
    {
        const int64_t dp = default_positions(m->type);
        GET(k_pos, 1, &m->max_positions, dp ? dp : 2048);
        if (r == 0 && dp)
            NOTE("N = %lld: the file has no max_position_embeddings, the default of Transformers' %s configuration class",
                 (long long)m->max_positions, m->type);
        else if (r == 0)
            NOTE("N = 2048: the file has no max_position_embeddings (fasim's default; --seqlen to count another)");
    }
    if (m->heads % m->kv_heads != 0)
        REFUSE("model file %s: num_attention_heads = %lld is not a multiple of num_key_value_heads = %lld", path,
               (long long)m->heads, (long long)m->kv_heads);
    /* the scale */
    double qpas = 0, mscale2 = 1;
    if ((r = get_real(root, path, "query_pre_attn_scalar", &qpas)) < 0) goto fail;
    if (r == 0 && is_type(m->type, t_gemma)) qpas = 256;
    int saw;
    if (get_bool(root, path, "scale_attn_weights", 1, &saw) < 0) goto fail;
    if (check_rope(json_object_get(root, "rope_scaling"), path, "rope_scaling", m->mla, &mscale2)) goto fail;
    if (mscale2 == 1 &&
        check_rope(json_object_get(root, "rope_parameters"), path, "rope_parameters", m->mla, &mscale2))
        goto fail;
    if (qpas > 0) {
        m->scale = 1 / sqrt(qpas);
        snprintf(m->scale_from, sizeof m->scale_from, "1/sqrt(query_pre_attn_scalar = %g)", qpas);
    } else if (!saw) {
        m->scale = 1;
        snprintf(m->scale_from, sizeof m->scale_from, "scale_attn_weights false");
    } else if (mscale2 != 1 && !strcmp(m->type, "deepseek_v2")) {
        /* Transformers' DeepseekV2Attention sets scaling = qk_head_dim^-0.5 and no mscale (its yarn
         * rope's attention_scaling is mscale / mscale_all_dim = 1 here); DeepSeek's own modeling code
         * (trust_remote_code), vLLM and SGLang multiply it by mscale^2, as Transformers'
         * DeepseekV3Attention does */
        snprintf(m->scale_note, sizeof m->scale_note,
                 "DeepSeek's reference code and vLLM use mscale^2 / sqrt(d) = %.6g, yarn mscale = %.4g",
                 mscale2 / sqrt((double)m->head_dim), sqrt(mscale2));
    } else if (mscale2 != 1) { /* Transformers' DeepseekV3Attention, DeepSeek's code and vLLM alike */
        m->scale = mscale2 / sqrt((double)m->head_dim);
        snprintf(m->scale_from, sizeof m->scale_from, "mscale^2 / sqrt(d), yarn mscale = %.4g", sqrt(mscale2));
    }
    /* the softcap */
    json_t *sc = json_object_get(root, "attn_logit_softcapping");
    if (!sc && !strcmp(m->type, "gemma2")) m->softcap = 50;
    else if ((r = get_real(root, path, "attn_logit_softcapping", &m->softcap)) < 0) goto fail;
    /* the window and the layers it applies to.  Transformers tests sliding_window for None only
     * (masking_utils: create_causal_mask if config.sliding_window is None, else the sliding-window
     * mask kv_idx > q_idx - sliding_window): null is no window, and 0 a window of no key, a mask that
     * hides every key -- refused, with the range.  use_sliding_window false (Qwen2/3) sets it to
     * None whatever the file says (Qwen2Config), so a 0 there is accepted and means no window. */
    int usw;
    if (get_bool(root, path, "use_sliding_window", !is_type(m->type, t_qwen) && strcmp(m->type, "qwen2"), &usw) < 0)
        goto fail;
    json_t *swv = json_object_get(root, "sliding_window");
    if (!swv && is_type(m->type, t_sw4096)) m->sliding_window = 4096;
    else if (json_is_number(swv) && json_number_value(swv) == 0 && !usw) m->sliding_window = 0;
    else if (json_is_number(swv) && json_number_value(swv) == 0)
        REFUSE("model file %s: sliding_window = 0 must be an integer in [1, 2147483647], or null for no window "
               "(Transformers reads 0 as a window of no key, which masks every key)", path);
    else GET(k_sw, 1, &m->sliding_window, 0);
    if (!usw) m->sliding_window = 0; /* Qwen2: sliding_window is kept in the file but not used */
    json_t *lt = json_object_get(root, "layer_types");
    int64_t mwl = -1, swp = 0;
    GET(k_mwl, 0, &mwl, is_type(m->type, t_qwen) ? 28 : -1);
    GET(k_swp, 1, &swp, !strcmp(m->type, "gemma3") || !strcmp(m->type, "gemma3_text") ? 6 : 0);
    /* which layers slide follows from their count (Gemma-2 alternates, Gemma-3 every swp-th is full,
     * Qwen2 from max_window_layers on); Transformers would take the configuration class's default
     * count (Gemma-2: 26), which the file does not carry */
    if (no_layers && m->sliding_window && ((lt && !json_is_null(lt)) || !strcmp(m->type, "gemma2") || swp > 0 || mwl >= 0))
        REFUSE("model file %s: no num_hidden_layers (or n_layer): which layers of a %s model slide follows from their "
               "count, and its configuration class's default is not in the file; add the key", path, m->type);
    int mixed = 0;
    for (int64_t i = 0; i < m->layers; i++) {
        int s;
        if (lt && !json_is_null(lt)) {
            if (!json_is_array(lt) || (int64_t)json_array_size(lt) != m->layers)
                REFUSE("model file %s: layer_types must be a list of num_hidden_layers = %lld strings", path,
                       (long long)m->layers);
            const char *t = json_string_value(json_array_get(lt, (size_t)i));
            if (t && !strcmp(t, "sliding_attention")) s = 1;
            else if (t && !strcmp(t, "full_attention")) s = 0;
            else {
                char ex[FA_EXCERPT_SIZE];
                REFUSE("model file %s: layer_types[%lld] '%s' is an attention fasim does not model (it reads "
                       "sliding_attention and full_attention)", path, (long long)i,
                       t ? fa_excerpt(t, strlen(t), ex) : "(not a string)");
            }
            if (s && !m->sliding_window)
                REFUSE("model file %s: layer_types[%lld] is sliding_attention but the model has no sliding_window",
                       path, (long long)i);
        } else if (!m->sliding_window) s = 0;
        else if (!strcmp(m->type, "gemma2")) s = i % 2 == 0;            /* Gemma-2: even layers slide */
        else if (swp > 0) s = (i + 1) % swp != 0;                       /* Gemma-3: every P-th is full */
        else if (mwl >= 0) s = i >= mwl;                                /* Qwen2: from max_window_layers on */
        else s = 1;
        m->n_sliding += s;
        if (i < FA_MODEL_MAX_LAYERS) m->layer_sliding[i] = (uint8_t)s;
        if (s != m->layer_sliding[0]) mixed = 1;
    }
    if (mixed && m->layers > FA_MODEL_MAX_LAYERS)
        REFUSE("model file %s: %lld layers of two attention types (at most %d)", path, (long long)m->layers,
               FA_MODEL_MAX_LAYERS);
    if (!m->n_sliding) m->sliding_window = 0;
#undef GET
#undef REFUSE
#undef NOTE
    m->dtype = FA_DTYPE_FP16; /* the default when the file names none */
    m->dtype_default = 1;
    json_t *dt = json_object_get(top, "torch_dtype");
    if (!dt || json_is_null(dt)) dt = json_object_get(top, "dtype");
    if ((!dt || json_is_null(dt)) && root != top) dt = json_object_get(root, "torch_dtype");
    if (dt && !json_is_null(dt)) {
        m->dtype_default = 0;
        const char *s = json_is_string(dt) ? json_string_value(dt) : "";
        if (strcmp(s, "bfloat16") == 0) m->dtype = FA_DTYPE_BF16;
        else if (strcmp(s, "float16") == 0) m->dtype = FA_DTYPE_FP16;
        else if (strcmp(s, "float32") == 0) m->dtype = FA_DTYPE_FP32;
        else {
            char ex[FA_EXCERPT_SIZE];
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "model file %s: torch_dtype '%s' is not one of float32, float16, bfloat16", path,
                          fa_excerpt(s, strlen(s), ex));
            goto done;
        }
    }
    json_t *nm = json_object_get(top, "_name_or_path");
    if (!nm || !json_is_string(nm)) nm = mt;
    snprintf(m->name, sizeof m->name, "%s", nm && json_is_string(nm) ? json_string_value(nm) : path);
    goto done;
fail:
    st = FA_EINVAL;
done:
    json_decref(top);
    return st;
}

double fa_model_scale(const fa_model *m)
{
    return m->scale > 0 ? m->scale : 1 / sqrt((double)m->head_dim);
}

void fa_shape_fill(fa_shape *s, const fa_model *m)
{
    if (m) {
        if (s->kv_heads < 0) s->kv_heads = s->heads > 0 && m->kv_heads == m->heads ? s->heads : m->kv_heads;
        if (s->heads < 0) s->heads = m->heads;
        /* d_v: the model's (MLA: v_head_dim) unless --headdim was given, which moves d_v with it;
         * decided before d is filled in (once filled, d would always look given) */
        if (s->d_v < 0) s->d_v = s->d >= 0 ? s->d : m->head_dim_v > 0 ? m->head_dim_v : m->head_dim;
        if (s->d < 0) s->d = m->head_dim;
        if (s->scale <= 0 && m->scale > 0) s->scale = m->scale;
        if (s->softcap == 0 && m->softcap > 0) s->softcap = m->softcap;
        if ((int)s->dtype < 0) s->dtype = m->dtype;
        if (s->seqlen_q < 0) s->seqlen_q = m->max_positions;
    }
    if (s->batch < 0) s->batch = 1;
    if (s->heads < 0) s->heads = s->kv_heads > 0 ? s->kv_heads : 1;
    if (s->kv_heads < 0) s->kv_heads = s->heads;
    if (s->seqlen_q < 0) s->seqlen_q = 1024;
    if (s->seqlen_k < 0) s->seqlen_k = s->seqlen_q;
    if (s->d < 0) s->d = 64;
    if (s->d_v < 0) s->d_v = s->d;
    if ((int)s->dtype < 0) s->dtype = FA_DTYPE_FP16;
}
