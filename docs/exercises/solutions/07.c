/* Reference solution of exercise 07: split-KV decoding and the logsumexp merge. */
#include <math.h>

#include "ex.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

fa_status ex_split_kv_decode(fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t n_splits,
                             const ex_decode_tensors *t)
{
    const int64_t T_c = fa_cdiv(s->seqlen_k, bk.block_c), Br = bk.block_r, dv = s->d_v;
    const int64_t Nq = s->seqlen_q;
    /* kernel 1: split p gets key blocks [p T_c / n, (p + 1) T_c / n) */
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++)
            for (int64_t p = 0; p < n_splits; p++)
                FA_TRY(ex_partial_forward(mem, s, bk, t, b, h, p, p * T_c / n_splits, (p + 1) * T_c / n_splits));
    /* kernel 2: merge the partials of every row block */
    fa_buf acc = {0}, part = {0}, m = {0}, l = {0}, Lp = {0};
    fa_status st = FA_OK;
#define TRY(x) do { if ((st = (x)) != FA_OK) goto done; } while (0)
    TRY(fa_sram_alloc(mem, &acc, "O_i", Br, dv, 4));
    TRY(fa_sram_alloc(mem, &part, "O_p", Br, dv, 4));
    TRY(fa_sram_alloc(mem, &Lp, "LSE_p", Br, 1, 4));
    TRY(fa_sram_alloc(mem, &m, "m_i", Br, 1, 4));
    TRY(fa_sram_alloc(mem, &l, "l_i", Br, 1, 4));
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++)
            for (int64_t r0 = 0; r0 < Nq; r0 += Br) {
                const int64_t rows = MIN(Br, Nq - r0);
                for (int64_t r = 0; r < rows; r++) {
                    m.data[r] = -INFINITY;
                    l.data[r] = 0;
                    for (int64_t c = 0; c < dv; c++) acc.data[r * dv + c] = 0;
                }
                for (int64_t p = 0; p < n_splits; p++) {
                    TRY(fa_load(mem, t->Opart, b, h, p * Nq + r0, rows, 0, dv, &part));
                    TRY(fa_load(mem, t->LSEpart, b, h, p * Nq + r0, rows, 0, 1, &Lp));
                    for (int64_t r = 0; r < rows; r++) { /* the online softmax of exercise 01 */
                        double x = Lp.data[r];
                        if (x == -INFINITY) continue; /* this split saw no key of row r */
                        double mn = fmax(m.data[r], x);
                        double a = m.data[r] == -INFINITY ? 0.0 : exp(m.data[r] - mn), w = exp(x - mn);
                        for (int64_t c = 0; c < dv; c++)
                            acc.data[r * dv + c] = a * acc.data[r * dv + c] + w * part.data[r * dv + c];
                        l.data[r] = a * l.data[r] + w;
                        m.data[r] = mn;
                    }
                }
                for (int64_t r = 0; r < rows; r++) {
                    double lr = l.data[r];
                    for (int64_t c = 0; c < dv; c++) acc.data[r * dv + c] = lr > 0 ? acc.data[r * dv + c] / lr : 0.0;
                    m.data[r] = lr > 0 ? m.data[r] + log(lr) : -INFINITY;
                }
                TRY(fa_store(mem, t->O, b, h, r0, rows, 0, dv, &acc));
                TRY(fa_store(mem, t->LSE, b, h, r0, rows, 0, 1, &m));
            }
done:
    fa_sram_free(&acc); fa_sram_free(&part); fa_sram_free(&Lp); fa_sram_free(&m); fa_sram_free(&l);
    return st;
#undef TRY
}
