/* Exercise 06 -- the backward pass by recomputation.  See README.md.
 * Judge: make exercise EX=06 */
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
    /* TODO: choose the loop order that keeps dK_j, dV_j on chip.  For each tile (i, j):
     *   P_ij = exp(scale Q_i K_j^T - L_i)   (fa_tile_matmul_abt, fa_tile_scale_mask, fa_tile_pad
     *                                        with -inf, fa_tile_exp_lse)
     *   dV_j += P_ij^T dO_i                 (fa_tile_matmul_atb)
     *   dP_ij = dO_i V_j^T                  (fa_tile_matmul_abt)
     *   D_i = rowsum(dO_i o O_i)            (fa_tile_rowdot)
     *   dS_ij = scale P_ij o (dP_ij - D_i)  (fa_tile_dsoftmax)
     *   dQ_i += dS_ij K_j   dK_j += dS_ij^T Q_i */
    (void)T_r; (void)T_c; (void)scale; (void)Q; (void)K; (void)V; (void)O; (void)LSE; (void)dO;
    (void)dQ; (void)dK; (void)dV;
done:
    fa_sram_free(&Kj); fa_sram_free(&Vj); fa_sram_free(&dKj); fa_sram_free(&dVj);
    fa_sram_free(&Qi); fa_sram_free(&Oi); fa_sram_free(&dOi); fa_sram_free(&dQi);
    fa_sram_free(&Li); fa_sram_free(&Di); fa_sram_free(&P); fa_sram_free(&dP);
    return st;
#undef TRY
}
