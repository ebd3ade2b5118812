/* Reference solution of exercise 04.  Only K and V carry a factor that depends on the tiles,
 * T_r = ceil(N_q / B_r): B_c costs SRAM (the B_r x B_c fp32 score tile and the K_j, V_j tiles)
 * but saves no HBM traffic.  So take B_c = 16 and the largest B_r that fits; past
 * 16 ceil(N_q / 16) a larger B_r changes nothing. */
#include "ex.h"

static uint64_t need(const fa_shape *s, int64_t Br, int64_t Bc)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t r = (uint64_t)Br, c = (uint64_t)Bc;
    return r * d * e + c * d * e + c * dv * e + 4 * r * c + 4 * r * dv + 8 * r;
}

fa_blocks ex_choose_blocks(const fa_shape *s, uint64_t M)
{
    fa_blocks bk = {16, 16};
    const int64_t cap = 16 * fa_cdiv(s->seqlen_q, 16);
    while (bk.block_r + 16 <= cap && need(s, bk.block_r + 16, 16) <= M) bk.block_r += 16;
    return bk;
}

uint64_t ex_flash2_bytes(const fa_shape *s, fa_blocks bk)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), BH = (uint64_t)(s->batch * s->heads);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k;
    const uint64_t T_r = (uint64_t)fa_cdiv(s->seqlen_q, bk.block_r);
    return BH * (e * (Nq * (uint64_t)s->d + T_r * Nk * (uint64_t)(s->d + s->d_v) + Nq * (uint64_t)s->d_v) + 4 * Nq);
}
