/* shape.c -- dtypes and attention shapes: element sizes and names, the checks of a shape and
 * of tile sizes, the softmax scale, tensor sizes.  The mask and the score modifiers live in
 * modifiers.c, the tile spans and classes they imply in spans.c (declarations: fa_attn.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fa_attn.h"

int fa_dtype_bytes(fa_dtype t) { return t == FA_DTYPE_FP32 ? 4 : t >= FA_DTYPE_E4M3 ? 1 : 2; }

const char *fa_dtype_name(fa_dtype t)
{
    return t == FA_DTYPE_FP32 ? "fp32" : t == FA_DTYPE_FP16 ? "fp16" : t == FA_DTYPE_BF16 ? "bf16"
           : t == FA_DTYPE_E4M3 ? "fp8_e4m3" : "fp8_e5m2";
}

fa_format fa_dtype_format(fa_dtype t)
{
    static const fa_format f[] = {FA_FMT_FP32, FA_FMT_FP16, FA_FMT_BF16, FA_FMT_E4M3, FA_FMT_E5M2};
    return (t >= FA_DTYPE_FP32 && t <= FA_DTYPE_E5M2) ? f[t] : FA_FMT_FP64;
}

fa_status fa_dtype_parse(const char *s, fa_dtype *t)
{
    if (strcmp(s, "fp32") == 0) *t = FA_DTYPE_FP32;
    else if (strcmp(s, "fp16") == 0) *t = FA_DTYPE_FP16;
    else if (strcmp(s, "bf16") == 0) *t = FA_DTYPE_BF16;
    else if (!strcmp(s, "fp8_e4m3") || !strcmp(s, "fp8") || !strcmp(s, "e4m3")) *t = FA_DTYPE_E4M3;
    else if (!strcmp(s, "fp8_e5m2") || !strcmp(s, "e5m2")) *t = FA_DTYPE_E5M2;
    else FA_FAIL(FA_EINVAL, "--dtype '%s' is not one of fp32, fp16, bf16, fp8_e4m3, fp8_e5m2", s);
    return FA_OK;
}

fa_shape fa_shape_default(int64_t n, int64_t d)
{
    fa_shape s = {.batch = 1, .heads = 1, .kv_heads = 1, .seqlen_q = n, .seqlen_k = n,
                  .d = d, .d_v = d, .scale = 0, .causal = FA_CAUSAL_NONE,
                  .dtype = FA_DTYPE_FP16};
    return s;
}

#define FA_DIM_LIMIT ((int64_t)1 << 31)

static fa_status check_dim(const char *name, int64_t v)
{
    if (v < 1) FA_FAIL(FA_EINVAL, "%s = %" PRId64 " must be >= 1", name, v);
    if (v >= FA_DIM_LIMIT)
        FA_FAIL(FA_EINVAL, "%s = %" PRId64 " exceeds the limit %" PRId64, name, v,
                FA_DIM_LIMIT - 1);
    return FA_OK;
}

fa_status fa_blocks_check(fa_blocks bk)
{
    if (bk.block_r < 1 || bk.block_c < 1)
        FA_FAIL(FA_EINVAL, "block sizes B_r = %lld, B_c = %lld must be >= 1", (long long)bk.block_r,
                (long long)bk.block_c);
    return FA_OK;
}

fa_status fa_shape_check(const fa_shape *s)
{
    FA_TRY(check_dim("batch", s->batch));
    FA_TRY(check_dim("heads", s->heads));
    FA_TRY(check_dim("kv-heads", s->kv_heads));
    FA_TRY(check_dim("seqlen (N_q)", s->seqlen_q));
    FA_TRY(check_dim("seqlen-k (N_k)", s->seqlen_k));
    FA_TRY(check_dim("headdim (d)", s->d));
    FA_TRY(check_dim("headdim-v (d_v)", s->d_v));
    if (s->heads % s->kv_heads != 0)
        FA_FAIL(FA_EINVAL, "heads = %" PRId64 " is not a multiple of kv-heads = %" PRId64,
                s->heads, s->kv_heads);
    if (!(s->scale <= 0 || isfinite(s->scale)))
        FA_FAIL(FA_EINVAL, "scale = %g must be finite", s->scale);
    if (s->causal < FA_CAUSAL_NONE || s->causal > FA_CAUSAL_TOP_LEFT)
        FA_FAIL(FA_EINVAL, "unknown causal mode %d", (int)s->causal);
    if (s->window && s->window_left < 0 && s->window_right < 0)
        FA_FAIL(FA_EINVAL, "a window needs at least one bounded side (left or right >= 0)");
    if (!(s->dropout_p >= 0 && s->dropout_p < 1))
        FA_FAIL(FA_EINVAL, "dropout p = %g must be in [0, 1)", s->dropout_p);
    if (!(s->rescale_threshold >= 0 && isfinite(s->rescale_threshold)))
        FA_FAIL(FA_EINVAL, "rescale threshold = %g must be a finite number >= 0 (log2 units; 0: always rescale)",
                s->rescale_threshold);
    if (!(s->softcap >= 0 && isfinite(s->softcap)))
        FA_FAIL(FA_EINVAL, "softcap = %g must be a finite number >= 0 (0: off)", s->softcap);
    if (s->block_mask) {
        const fa_block_mask *m = s->block_mask;
        if (m->block_r < 1 || m->block_c < 1 || !m->bits ||
            m->n_r != fa_cdiv(s->seqlen_q, m->block_r) || m->n_c != fa_cdiv(s->seqlen_k, m->block_c))
            FA_FAIL(FA_EINVAL,
                    "block mask of %" PRId64 " x %" PRId64 " blocks of %" PRId64 " x %" PRId64
                    " does not cover N_q = %" PRId64 ", N_k = %" PRId64 " (needs %" PRId64 " x %" PRId64 ")",
                    m->n_r, m->n_c, m->block_r, m->block_c, s->seqlen_q, s->seqlen_k,
                    m->block_r > 0 ? fa_cdiv(s->seqlen_q, m->block_r) : 0,
                    m->block_c > 0 ? fa_cdiv(s->seqlen_k, m->block_c) : 0);
    }
    if (s->col_mask && (!s->col_mask->lo1 || !s->col_mask->hi1 || !s->col_mask->lo2 || !s->col_mask->hi2))
        FA_FAIL(FA_EINVAL, "a column mask needs its four arrays of N_k row bounds");
    if (s->dtype < FA_DTYPE_FP32 || s->dtype > FA_DTYPE_E5M2)
        FA_FAIL(FA_EINVAL, "unknown dtype %d", (int)s->dtype);
    return FA_OK;
}

double fa_shape_scale(const fa_shape *s) { return s->scale > 0 ? s->scale : 1.0 / sqrt((double)s->d); }

int64_t fa_numel_q(const fa_shape *s) { return s->batch * s->heads * s->seqlen_q * s->d; }
int64_t fa_numel_k(const fa_shape *s) { return s->batch * s->kv_heads * s->seqlen_k * s->d; }
int64_t fa_numel_v(const fa_shape *s) { return s->batch * s->kv_heads * s->seqlen_k * s->d_v; }
int64_t fa_numel_o(const fa_shape *s) { return s->batch * s->heads * s->seqlen_q * s->d_v; }
int64_t fa_numel_stats(const fa_shape *s) { return s->batch * s->heads * s->seqlen_q; }
