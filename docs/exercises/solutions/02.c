/* Reference solution of exercise 02 (standard attention's IO). */
#include <string.h>

#include "ex.h"

void ex_standard_bytes(const fa_shape *s, fa_blocks bk, ex_standard_io *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k;
    const uint64_t d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t T_r = (uint64_t)fa_cdiv(s->seqlen_q, bk.block_r);
    const uint64_t T_c = (uint64_t)fa_cdiv(s->seqlen_k, bk.block_c);
    const uint64_t p = T_c == 1 ? 1 : 2; /* passes over S in the softmax kernel */
    const uint64_t BH = (uint64_t)(s->batch * s->heads);
    out->Q.read = BH * Nq * d * e;             /* kernel 1: each Q_i once */
    out->K.read = BH * T_r * Nk * d * e;       /* kernel 1: all of K per row block */
    out->S.write = BH * Nq * Nk * e;           /* kernel 1: S */
    out->S.read = BH * p * Nq * Nk * e;        /* kernel 2: max/sum pass, normalise pass */
    out->P.write = BH * Nq * Nk * e;           /* kernel 2: P */
    out->P.read = BH * Nq * Nk * e;            /* kernel 3: P once */
    out->V.read = BH * T_r * Nk * dv * e;      /* kernel 3: all of V per row block */
    out->O.write = BH * Nq * dv * e;           /* kernel 3: O once */
}
