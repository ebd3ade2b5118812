/* modifiers.c -- what turns a raw product q_i . k_j into a score and P into what multiplies V:
 * the masks (causal, sliding window, block-sparse, column and dense; the convention is fixed
 * here once for every algorithm, see fa_attn.h), softcap, ALiBi and dropout (Philox4x32-10), and
 * the HBM side of the dense mask.  Declarations: fa_attn.h. */
#include <math.h>
#include <string.h>

#include "fa_attn.h"

int64_t fa_causal_offset(const fa_shape *s)
{
    return s->causal == FA_CAUSAL_BOTTOM_RIGHT ? s->seqlen_k - s->seqlen_q : 0;
}

int fa_has_mask(const fa_shape *s)
{
    return s->causal != FA_CAUSAL_NONE || s->window || s->block_mask || s->col_mask || s->dense_mask;
}

int fa_mask_allowed(const fa_shape *s, int64_t i, int64_t j)
{
    if (s->causal != FA_CAUSAL_NONE && j > i + fa_causal_offset(s)) return 0;
    if (s->window) {
        int64_t c = i + s->seqlen_k - s->seqlen_q; /* the bottom-right diagonal */
        if (s->window_left >= 0 && j < c - s->window_left) return 0;
        if (s->window_right >= 0 && j > c + s->window_right) return 0;
    }
    if (s->block_mask) {
        const fa_block_mask *m = s->block_mask;
        if (!m->bits[(i / m->block_r) * m->n_c + j / m->block_c]) return 0;
    }
    if (s->col_mask) {
        const fa_col_mask *m = s->col_mask;
        if ((i >= m->lo1[j] && i < m->hi1[j]) || (i >= m->lo2[j] && i < m->hi2[j])) return 0;
    }
    if (s->dense_mask && !s->dense_mask[i * s->seqlen_k + j]) return 0;
    return 1;
}

void fa_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0, hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u; /* the Weyl key schedule */
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

int fa_dropout_keep(const fa_shape *s, int64_t b, int64_t h, int64_t i, int64_t j)
{
    if (!(s->dropout_p > 0)) return 1;
    uint64_t bh = (uint64_t)(b * s->heads + h);
    uint32_t ctr[4] = {(uint32_t)i, (uint32_t)j, (uint32_t)bh, (uint32_t)(bh >> 32)};
    uint32_t key[2] = {(uint32_t)s->dropout_seed, (uint32_t)(s->dropout_seed >> 32)};
    uint32_t r[4];
    fa_philox4x32(ctr, key, r);
    /* keep with probability 1 - p: drop when the 32-bit draw falls below p 2^32 */
    return (double)r[0] >= s->dropout_p * 4294967296.0;
}

double fa_alibi_slope(const fa_shape *s, int64_t h)
{
    if (!s->alibi) return 0.0;
    if (s->alibi_slopes) return s->alibi_slopes[h];
    /* the standard slopes of Press et al. (ALiBi): 2^(-8 (h + 1) / H), rounded to fp32 */
    return (double)(float)exp2(-8.0 * (double)(h + 1) / (double)s->heads);
}

double fa_score(const fa_shape *s, int64_t h, int64_t i, int64_t j, double dot, double *dscore)
{
    if (!fa_mask_allowed(s, i, j)) {
        if (dscore) *dscore = 0;
        return -INFINITY;
    }
    double tau = fa_shape_scale(s), x = tau * dot, dx = tau;
    if (s->softcap > 0) {
        double t = tanh(x / s->softcap);
        x = s->softcap * t;
        dx = tau * (1.0 - t * t);
    }
    if (s->alibi) {
        int64_t dist = i + s->seqlen_k - s->seqlen_q - j;
        x -= fa_alibi_slope(s, h) * (double)(dist < 0 ? -dist : dist);
    }
    if (dscore) *dscore = dx;
    return x;
}

fa_status fa_mask_io_init(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_mask_io *m)
{
    memset(m, 0, sizeof *m);
    if (!s->dense_mask) return FA_OK;
    FA_TRY(fa_tensor_make_meta(mem, &m->t, "mask", 1, 1, s->seqlen_q, s->seqlen_k, 1));
    FA_TRY(fa_sram_alloc(mem, &m->buf, "mask_ij", bk.block_r, bk.block_c, 1));
    m->on = 1;
    return FA_OK;
}

fa_status fa_mask_io_load(fa_mem *mem, fa_mask_io *m, int64_t r0, int64_t rows, int64_t c0,
                          int64_t cols)
{
    if (!m->on) return FA_OK;
    return fa_load(mem, &m->t, 0, 0, r0, rows, c0, cols, &m->buf);
}

void fa_mask_io_free(fa_mask_io *m)
{
    if (m->on) fa_sram_free(&m->buf);
    m->on = 0;
}
