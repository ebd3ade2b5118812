/* Planted mistake for exercise 08: flash1's initialisation of O, l and m in HBM (Alg. 1 line 2)
 * is forgotten, so its writes are short by N_q rows.  The judge must reject it.
 * Otherwise as the reference solution:
 * flash1: outer loop over key blocks j (K_j, V_j read once); for each of the T_c key blocks,
 * every row block loads Q_i, O_i, l_i, m_i and stores O_i, l_i, m_i back; O, l, m are also
 * written once at the start (Alg. 1 line 2).  flash2: outer loop over row blocks i (Q_i read
 * once), K and V streamed once per row block (T_r times), O and LSE written once. */
#include <string.h>

#include "ex.h"

void ex_flash1_io(const fa_shape *s, fa_blocks bk, ex_flash_io *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), BH = (uint64_t)(s->batch * s->heads);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k, d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t T_c = (uint64_t)fa_cdiv(s->seqlen_k, bk.block_c);
    const uint64_t visits = T_c * Nq; /* query rows summed over all (i, j) visits */
    out->K.read = BH * Nk * d * e;
    out->V.read = BH * Nk * dv * e;
    out->Q.read = BH * visits * d * e;
    out->O.read = BH * visits * dv * e;
    out->O.write = BH * visits * dv * e; /* BUG: line 2 forgotten */
    out->l.read = out->m.read = BH * visits * 4;
    out->l.write = out->m.write = BH * visits * 4;
}

void ex_flash2_io(const fa_shape *s, fa_blocks bk, ex_flash_io *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), BH = (uint64_t)(s->batch * s->heads);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k, d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t T_r = (uint64_t)fa_cdiv(s->seqlen_q, bk.block_r);
    out->Q.read = BH * Nq * d * e;
    out->K.read = BH * T_r * Nk * d * e;
    out->V.read = BH * T_r * Nk * dv * e;
    out->O.write = BH * Nq * dv * e;
    out->LSE.write = BH * Nq * 4;
}

static uint64_t total(const ex_flash_io *x)
{
    const ex_rw *t[] = {&x->Q, &x->K, &x->V, &x->O, &x->l, &x->m, &x->LSE};
    uint64_t s = 0;
    for (int k = 0; k < 7; k++) s += t[k]->read + t[k]->write;
    return s;
}

int64_t ex_crossover_block_c(const fa_shape *s, int64_t block_r)
{
    for (int64_t c = 16; c <= 16 * fa_cdiv(s->seqlen_k, 16); c += 16) {
        fa_blocks bk = {block_r, c};
        ex_flash_io f1, f2;
        ex_flash1_io(s, bk, &f1);
        ex_flash2_io(s, bk, &f2);
        if (total(&f1) < total(&f2)) return c;
    }
    return 0;
}
