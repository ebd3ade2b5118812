/* shape.c -- attention shapes, the causal mask and the tile geometry it implies.
 * The mask convention is fixed here once for every algorithm (see fa_attn.h). */
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
    if (s->dtype < FA_DTYPE_FP32 || s->dtype > FA_DTYPE_E5M2)
        FA_FAIL(FA_EINVAL, "unknown dtype %d", (int)s->dtype);
    return FA_OK;
}

double fa_shape_scale(const fa_shape *s) { return s->scale > 0 ? s->scale : 1.0 / sqrt((double)s->d); }

int64_t fa_causal_offset(const fa_shape *s)
{
    return s->causal == FA_CAUSAL_BOTTOM_RIGHT ? s->seqlen_k - s->seqlen_q : 0;
}

int fa_mask_allowed(const fa_shape *s, int64_t i, int64_t j)
{
    return s->causal == FA_CAUSAL_NONE || j <= i + fa_causal_offset(s);
}

fa_tile_class fa_tile_classify(const fa_shape *s, int64_t r0, int64_t rows, int64_t c0,
                               int64_t cols)
{
    if (s->causal == FA_CAUSAL_NONE) return FA_TILE_FULL;
    int64_t off = fa_causal_offset(s);
    if (c0 > r0 + rows - 1 + off) return FA_TILE_SKIP; /* no row reaches the first key */
    if (c0 + cols - 1 <= r0 + off) return FA_TILE_FULL; /* the first row reaches the last key */
    return FA_TILE_PARTIAL;
}

void fa_kv_tiles(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *n_visit,
                 int64_t *n_full)
{
    int64_t T_c = fa_cdiv(s->seqlen_k, block_c);
    if (s->causal == FA_CAUSAL_NONE) {
        *n_visit = *n_full = T_c;
        return;
    }
    int64_t off = fa_causal_offset(s);
    int64_t last = r0 + rows - 1 + off; /* largest key the last row of the block may see */
    *n_visit = last < 0 ? 0 : (last / block_c + 1 < T_c ? last / block_c + 1 : T_c);
    int64_t first = r0 + off; /* largest key the first row may see */
    if (first >= s->seqlen_k - 1) *n_full = T_c;
    else if (first + 1 <= 0) *n_full = 0;
    else *n_full = (first + 1) / block_c;
}

void fa_q_tiles(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *i_lo,
                int64_t *i_full)
{
    int64_t T_r = fa_cdiv(s->seqlen_q, block_r);
    if (s->causal == FA_CAUSAL_NONE) {
        *i_lo = *i_full = 0;
        return;
    }
    int64_t off = fa_causal_offset(s);
    int64_t rmin = c0 - off; /* first row that may see key c0 */
    if (rmin > s->seqlen_q - 1) {
        *i_lo = *i_full = T_r;
        return;
    }
    *i_lo = (rmin > 0 ? rmin : 0) / block_r;
    int64_t rfull = c0 + cols - 1 - off; /* first row that sees the tile's last key */
    int64_t f = fa_cdiv(rfull > 0 ? rfull : 0, block_r);
    *i_full = f < T_r ? f : T_r;
    if (*i_full < *i_lo) *i_full = *i_lo;
}

int64_t fa_tile_run(const fa_mem *mem, int64_t t, int64_t hi, int64_t single_lo,
                    int64_t single_hi, int64_t tail)
{
    if (!fa_mem_may_merge(mem) || t == tail || (t >= single_lo && t < single_hi)) return 1;
    int64_t end = hi;
    if (single_lo > t && single_lo < end) end = single_lo;
    if (tail > t && tail < end) end = tail;
    return end - t;
}

int64_t fa_numel_q(const fa_shape *s) { return s->batch * s->heads * s->seqlen_q * s->d; }
int64_t fa_numel_k(const fa_shape *s) { return s->batch * s->kv_heads * s->seqlen_k * s->d; }
int64_t fa_numel_v(const fa_shape *s) { return s->batch * s->kv_heads * s->seqlen_k * s->d_v; }
int64_t fa_numel_o(const fa_shape *s) { return s->batch * s->heads * s->seqlen_q * s->d_v; }
int64_t fa_numel_stats(const fa_shape *s) { return s->batch * s->heads * s->seqlen_q; }
