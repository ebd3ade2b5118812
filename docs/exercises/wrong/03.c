/* Planted mistake for exercise 03: Q_i is loaded inside the inner loop, once per K/V tile.
 * The numbers are right; the IO is T_c times too much for Q.  The judge must reject it. */
#include <math.h>

#include "ex.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

fa_status ex_flash2_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *Q,
                            fa_tensor *K, fa_tensor *V, fa_tensor *O, fa_tensor *LSE)
{
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
    const double scale = fa_shape_scale(s);
    fa_buf Qi = {0}, Kj = {0}, Vj = {0}, S = {0}, Oi = {0}, m = {0}, l = {0};
    fa_status st = FA_OK;
#define TRY(x) do { if ((st = (x)) != FA_OK) goto done; } while (0)
    TRY(fa_sram_alloc(mem, &Qi, "Q_i", Br, d, e));
    TRY(fa_sram_alloc(mem, &Kj, "K_j", Bc, d, e));
    TRY(fa_sram_alloc(mem, &Vj, "V_j", Bc, dv, e));
    TRY(fa_sram_alloc(mem, &S, "S_ij", Br, Bc, 4));
    TRY(fa_sram_alloc(mem, &Oi, "O_i", Br, dv, 4));
    TRY(fa_sram_alloc(mem, &m, "m_i", Br, 1, 4));
    TRY(fa_sram_alloc(mem, &l, "l_i", Br, 1, 4));
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++) {
            const int64_t hk = h / (s->heads / s->kv_heads);
            for (int64_t i = 0; i < T_r; i++) {
                const int64_t r0 = i * Br, rows = MIN(Br, s->seqlen_q - r0);
                for (int64_t r = 0; r < rows; r++) {
                    for (int64_t c = 0; c < dv; c++) Oi.data[r * dv + c] = 0;
                    m.data[r] = -INFINITY;
                    l.data[r] = 0;
                }
                for (int64_t j = 0; j < T_c; j++) {
                    const int64_t c0 = j * Bc, cols = MIN(Bc, s->seqlen_k - c0);
                    TRY(fa_load(mem, Q, b, h, r0, rows, 0, d, &Qi)); /* BUG: reloaded every step */
                    TRY(fa_load(mem, K, b, hk, c0, cols, 0, d, &Kj));
                    TRY(fa_load(mem, V, b, hk, c0, cols, 0, dv, &Vj));
                    TRY(fa_tile_matmul_abt(mem, S.data, Bc, Qi.data, d, Kj.data, d, rows, cols, d, 0));
                    TRY(fa_tile_scale_mask(mem, s, S.data, Bc, r0, rows, c0, cols, scale));
                    TRY(fa_tile_online_softmax(mem, S.data, Bc, m.data, l.data, Oi.data, dv, rows, cols, dv));
                    TRY(fa_tile_matmul_ab(mem, Oi.data, dv, S.data, Bc, Vj.data, dv, rows, dv, cols, 1));
                }
                for (int64_t r = 0; r < rows; r++) { /* O_i = diag(l_i)^-1 O_i, L_i = m_i + log l_i */
                    for (int64_t c = 0; c < dv; c++) Oi.data[r * dv + c] /= l.data[r];
                    m.data[r] += log(l.data[r]);
                }
                TRY(fa_store(mem, O, b, h, r0, rows, 0, dv, &Oi));
                TRY(fa_store(mem, LSE, b, h, r0, rows, 0, 1, &m));
            }
        }
done:
    fa_sram_free(&Qi);
    fa_sram_free(&Kj);
    fa_sram_free(&Vj);
    fa_sram_free(&S);
    fa_sram_free(&Oi);
    fa_sram_free(&m);
    fa_sram_free(&l);
    return st;
#undef TRY
}
