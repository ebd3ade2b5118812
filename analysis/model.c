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
            fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: %s = %g must be an integer in [%lld, %lld]",
                     path, keys[i], x, (long long)lo, (long long)hi);
            return -1;
        }
        *out = (int64_t)x;
        return 1;
    }
    return 0;
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
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &err); /* a key twice: which one? */
    fclose(f);
    if (!root)
        FA_FAIL(FA_EINVAL, "model file %s: malformed JSON at line %d: %s", path, err.line, err.text);
    fa_status st = FA_OK;
    memset(m, 0, sizeof *m);
    const int64_t LIM = INT32_MAX;
    static const char *const k_hidden[] = {"hidden_size", "n_embd", "d_model", NULL};
    static const char *const k_heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const k_kv[] = {"num_key_value_heads", "n_kv_heads", NULL};
    static const char *const k_hd[] = {"head_dim", NULL};
    static const char *const k_layers[] = {"num_hidden_layers", "n_layer", NULL};
    static const char *const k_pos[] = {"max_position_embeddings", "n_positions", "n_ctx", NULL};
    static const char *const k_sw[] = {"sliding_window", NULL};
    int64_t hidden = 0;
    int r;
#define GET(keys, lo, out, dflt)                                  \
    do {                                                          \
        r = get_int(root, path, keys, lo, LIM, out);              \
        if (r < 0) goto fail;                                     \
        if (r == 0) *(out) = (dflt);                              \
    } while (0)
    if (!json_is_object(root)) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "model file %s: top level is not a JSON object", path);
        goto done;
    }
    r = get_int(root, path, k_heads, 1, LIM, &m->heads);
    if (r < 0) goto fail;
    if (r == 0) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                      "model file %s: needs num_attention_heads (or n_head), a positive integer", path);
        goto done;
    }
    GET(k_kv, 1, &m->kv_heads, m->heads);
    GET(k_hidden, 1, &hidden, 0);
    GET(k_hd, 1, &m->head_dim, 0);
    if (m->head_dim == 0) {
        if (hidden == 0) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "model file %s: needs head_dim or hidden_size (or n_embd)", path);
            goto done;
        }
        if (hidden % m->heads != 0) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "model file %s: hidden_size = %lld is not a multiple of num_attention_heads = %lld "
                          "(give head_dim)", path, (long long)hidden, (long long)m->heads);
            goto done;
        }
        m->head_dim = hidden / m->heads;
    }
    GET(k_layers, 1, &m->layers, 1);
    GET(k_pos, 1, &m->max_positions, 2048);
    GET(k_sw, 0, &m->sliding_window, 0);
#undef GET
    if (m->heads % m->kv_heads != 0) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                      "model file %s: num_attention_heads = %lld is not a multiple of num_key_value_heads = %lld",
                      path, (long long)m->heads, (long long)m->kv_heads);
        goto done;
    }
    m->dtype = FA_DTYPE_FP16; /* the default when the file names none */
    json_t *dt = json_object_get(root, "torch_dtype");
    if (!dt || json_is_null(dt)) dt = json_object_get(root, "dtype");
    if (dt && !json_is_null(dt)) {
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
    json_t *nm = json_object_get(root, "_name_or_path");
    if (!nm || !json_is_string(nm)) nm = json_object_get(root, "model_type");
    snprintf(m->name, sizeof m->name, "%s", nm && json_is_string(nm) ? json_string_value(nm) : path);
    goto done;
fail:
    st = FA_EINVAL;
done:
    json_decref(root);
    return st;
}

void fa_shape_fill(fa_shape *s, const fa_model *m)
{
    if (m) {
        if (s->kv_heads < 0) s->kv_heads = s->heads > 0 && m->kv_heads == m->heads ? s->heads : m->kv_heads;
        if (s->heads < 0) s->heads = m->heads;
        if (s->d < 0) s->d = m->head_dim;
        if (s->d_v < 0) s->d_v = s->d >= 0 ? s->d : m->head_dim;
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
