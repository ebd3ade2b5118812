/* Planted mistake for exercise 06: the forward's loop order (row blocks outside, key blocks
 * inside).  dK_j and dV_j are then loaded, updated and stored on every step: the numbers are
 * right, but dK and dV move T_r times and K, V are read T_r times.  The judge must reject it. */
#include <math.h>

#include "ex.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

fa_status ex_flash_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *Q,
                            fa_tensor *K, fa_tensor *V, fa_tensor *O, fa_tensor *LSE,
                            fa_tensor *dO, fa_tensor *dQ, fa_tensor *dK, fa_tensor *dV)
{
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
    const double scale = fa_shape_scale(s);
    fa_buf Kj = {0}, Vj = {0}, dKj = {0}, dVj = {0}, Qi = {0}, Oi = {0}, dOi = {0}, dQi = {0},
           Li = {0}, Di = {0}, P = {0}, dP = {0};
    fa_status st = FA_OK;
#define TRY(x) do { if ((st = (x)) != FA_OK) goto done; } while (0)
    TRY(fa_sram_alloc(mem, &Kj, "K_j", Bc, d, e));
    TRY(fa_sram_alloc(mem, &Vj, "V_j", Bc, dv, e));
    TRY(fa_sram_alloc(mem, &dKj, "dK_j", Bc, d, 4));
    TRY(fa_sram_alloc(mem, &dVj, "dV_j", Bc, dv, 4));
    TRY(fa_sram_alloc(mem, &Qi, "Q_i", Br, d, e));
    TRY(fa_sram_alloc(mem, &Oi, "O_i", Br, dv, e));
    TRY(fa_sram_alloc(mem, &dOi, "dO_i", Br, dv, e));
    TRY(fa_sram_alloc(mem, &dQi, "dQ_i", Br, d, 4));
    TRY(fa_sram_alloc(mem, &Li, "L_i", Br, 1, 4));
    TRY(fa_sram_alloc(mem, &Di, "D_i", Br, 1, 4));
    TRY(fa_sram_alloc(mem, &P, "P_ij", Br, Bc, 4));
    TRY(fa_sram_alloc(mem, &dP, "dP_ij", Br, Bc, 4));
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++)
            for (int64_t i = 0; i < T_r; i++) { /* BUG: rows outside */
                const int64_t r0 = i * Br, rows = MIN(Br, s->seqlen_q - r0);
                TRY(fa_load(mem, Q, b, h, r0, rows, 0, d, &Qi));
                TRY(fa_load(mem, O, b, h, r0, rows, 0, dv, &Oi));
                TRY(fa_load(mem, dO, b, h, r0, rows, 0, dv, &dOi));
                TRY(fa_load(mem, LSE, b, h, r0, rows, 0, 1, &Li));
                for (int64_t k = 0; k < Br * d; k++) dQi.data[k] = 0;
                for (int64_t j = 0; j < T_c; j++) {
                    const int64_t c0 = j * Bc, cols = MIN(Bc, s->seqlen_k - c0);
                    TRY(fa_load(mem, K, b, h, c0, cols, 0, d, &Kj));
                    TRY(fa_load(mem, V, b, h, c0, cols, 0, dv, &Vj));
                    TRY(fa_load(mem, dK, b, h, c0, cols, 0, d, &dKj));
                    TRY(fa_load(mem, dV, b, h, c0, cols, 0, dv, &dVj));
                    TRY(fa_tile_matmul_abt(mem, P.data, Bc, Qi.data, d, Kj.data, d, rows, cols, d, 0));
                    TRY(fa_tile_scale_mask(mem, s, P.data, Bc, r0, rows, c0, cols, scale));
                    fa_tile_pad(P.data, Bc, Br, rows, cols, -INFINITY);
                    TRY(fa_tile_exp_lse(mem, P.data, Bc, Br, Li.data, rows, cols));
                    TRY(fa_tile_matmul_atb(mem, dVj.data, dv, P.data, Bc, dOi.data, dv, cols, dv, rows, 1));
                    TRY(fa_tile_matmul_abt(mem, dP.data, Bc, dOi.data, dv, Vj.data, dv, rows, cols, dv, 0));
                    TRY(fa_tile_rowdot(mem, Di.data, dOi.data, dv, Oi.data, dv, rows, dv));
                    TRY(fa_tile_dsoftmax(mem, dP.data, Bc, P.data, Bc, Di.data, rows, cols, scale));
                    TRY(fa_tile_matmul_ab(mem, dQi.data, d, dP.data, Bc, Kj.data, d, rows, d, cols, 1));
                    TRY(fa_tile_matmul_atb(mem, dKj.data, d, dP.data, Bc, Qi.data, d, cols, d, rows, 1));
                    TRY(fa_store(mem, dK, b, h, c0, cols, 0, d, &dKj));
                    TRY(fa_store(mem, dV, b, h, c0, cols, 0, dv, &dVj));
                }
                TRY(fa_store(mem, dQ, b, h, r0, rows, 0, d, &dQi));
            }
done:
    fa_sram_free(&Kj); fa_sram_free(&Vj); fa_sram_free(&dKj); fa_sram_free(&dVj);
    fa_sram_free(&Qi); fa_sram_free(&Oi); fa_sram_free(&dOi); fa_sram_free(&dQi);
    fa_sram_free(&Li); fa_sram_free(&Di); fa_sram_free(&P); fa_sram_free(&dP);
    return st;
#undef TRY
}
