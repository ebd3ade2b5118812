/* Planted mistake for exercise 02: Theorem 2's view that K and V are read once; fasim's tiled
 * GEMMs re-read them once per row block.  The judge must reject it. */
#include <string.h>

#include "ex.h"

void ex_standard_bytes(const fa_shape *s, fa_blocks bk, ex_standard_io *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k;
    const uint64_t d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t T_c = (uint64_t)fa_cdiv(s->seqlen_k, bk.block_c);
    const uint64_t p = T_c == 1 ? 1 : 2;
    const uint64_t BH = (uint64_t)(s->batch * s->heads);
    out->Q.read = BH * Nq * d * e;
    out->K.read = BH * Nk * d * e; /* BUG: K is read once per row block */
    out->S.write = BH * Nq * Nk * e;
    out->S.read = BH * p * Nq * Nk * e;
    out->P.write = BH * Nq * Nk * e;
    out->P.read = BH * Nq * Nk * e;
    out->V.read = BH * Nk * dv * e; /* BUG: the same for V */
    out->O.write = BH * Nq * dv * e;
}
