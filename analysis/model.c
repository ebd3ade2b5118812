/* model.c -- model shapes from a HuggingFace config.json (jansson). */
#include <jansson.h>
#include <string.h>

#include "fa_analysis.h"

static int get_int(json_t *root, const char *const *keys, int64_t *out)
{
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(root, keys[i]);
        if (v && json_is_integer(v)) {
            *out = (int64_t)json_integer_value(v);
            return 1;
        }
    }
    return 0;
}

fa_status fa_model_load(const char *path, fa_model *m)
{
    json_error_t err;
    FILE *f = fopen(path, "r");
    if (!f) FA_FAIL(FA_EIO, "cannot open model file %s", path);
    json_t *root = json_loadf(f, 0, &err);
    fclose(f);
    if (!root)
        FA_FAIL(FA_EINVAL, "model file %s: malformed JSON at line %d: %s", path, err.line, err.text);
    fa_status st = FA_OK;
    memset(m, 0, sizeof *m);
    if (!json_is_object(root)) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: top level is not a JSON object", path);
        goto done;
    }
    static const char *const k_hidden[] = {"hidden_size", "n_embd", "d_model", NULL};
    static const char *const k_heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const k_kv[] = {"num_key_value_heads", "n_kv_heads", NULL};
    static const char *const k_hd[] = {"head_dim", NULL};
    static const char *const k_layers[] = {"num_hidden_layers", "n_layer", NULL};
    static const char *const k_pos[] = {"max_position_embeddings", "n_positions", "n_ctx", NULL};
    int64_t hidden = 0;
    int has_hidden = get_int(root, k_hidden, &hidden);
    if (!get_int(root, k_heads, &m->heads) || m->heads < 1) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                      "model file %s: needs a positive num_attention_heads (or n_head)", path);
        goto done;
    }
    if (!get_int(root, k_kv, &m->kv_heads)) m->kv_heads = m->heads;
    if (!get_int(root, k_hd, &m->head_dim)) {
        if (!has_hidden || hidden < 1) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "model file %s: needs head_dim or a positive hidden_size (or n_embd)", path);
            goto done;
        }
        m->head_dim = hidden / m->heads;
    }
    if (!get_int(root, k_layers, &m->layers)) m->layers = 1;
    if (!get_int(root, k_pos, &m->max_positions)) m->max_positions = 2048;
    if (m->kv_heads < 1 || m->head_dim < 1 || m->layers < 1 || m->max_positions < 1 ||
        m->heads % m->kv_heads != 0) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                      "model file %s: heads = %lld, kv heads = %lld, head_dim = %lld, layers = %lld, "
                      "positions = %lld must be positive, heads a multiple of kv heads",
                      path, (long long)m->heads, (long long)m->kv_heads, (long long)m->head_dim,
                      (long long)m->layers, (long long)m->max_positions);
        goto done;
    }
    m->dtype = FA_DTYPE_FP16;
    json_t *dt = json_object_get(root, "torch_dtype");
    if (dt && json_is_string(dt)) {
        const char *s = json_string_value(dt);
        if (strcmp(s, "bfloat16") == 0) m->dtype = FA_DTYPE_BF16;
        else if (strcmp(s, "float32") == 0) m->dtype = FA_DTYPE_FP32;
    }
    json_t *nm = json_object_get(root, "_name_or_path");
    if (!nm || !json_is_string(nm)) nm = json_object_get(root, "model_type");
    snprintf(m->name, sizeof m->name, "%s", nm && json_is_string(nm) ? json_string_value(nm) : path);
done:
    json_decref(root);
    return st;
}
