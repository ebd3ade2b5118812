/* Planted mistake for exercise 04: square tiles (what `--blocks fit` does), with a correct
 * prediction.  Square tiles spend SRAM on B_c, which saves no HBM traffic, so B_r stays small:
 * the judge must find tiles with fewer bytes and reject these. */
#include "ex.h"

static uint64_t need(const fa_shape *s, int64_t Br, int64_t Bc)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t r = (uint64_t)Br, c = (uint64_t)Bc;
    return r * d * e + c * d * e + c * dv * e + 4 * r * c + 4 * r * dv + 8 * r;
}

fa_blocks ex_choose_blocks(const fa_shape *s, uint64_t M)
{
    int64_t B = 16;
    while (need(s, B + 16, B + 16) <= M) B += 16;
    int64_t cr = 16 * fa_cdiv(s->seqlen_q, 16), cc = 16 * fa_cdiv(s->seqlen_k, 16);
    fa_blocks bk = {B < cr ? B : cr, B < cc ? B : cc};
    return bk;
}

uint64_t ex_flash2_bytes(const fa_shape *s, fa_blocks bk)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), BH = (uint64_t)(s->batch * s->heads);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k;
    const uint64_t T_r = (uint64_t)fa_cdiv(s->seqlen_q, bk.block_r);
    return BH * (e * (Nq * (uint64_t)s->d + T_r * Nk * (uint64_t)(s->d + s->d_v) + Nq * (uint64_t)s->d_v) + 4 * Nq);
}
