/* Exercise 03 -- the FlashAttention-2 forward tile loop.  See README.md.
 * Judge: make exercise EX=03 */
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
    /* TODO: for every (b, h) and row block i (kv head hk = h / (H / H_kv)):
     *   O_i = 0, m_i = -inf, l_i = 0 on chip; load Q_i;
     *   for every key block j: load K_j, V_j; S_ij = Q_i K_j^T (fa_tile_matmul_abt), scale
     *     (fa_tile_scale_mask), online softmax (fa_tile_online_softmax), O_i += P_ij V_j
     *     (fa_tile_matmul_ab, accumulate = 1);
     *   O_i /= l_i, LSE_i = m_i + log l_i; store O_i and LSE_i.
     * Tails: the last row block has rows = N_q - r0 < B_r rows (same for keys). */
    (void)T_r; (void)T_c; (void)scale; (void)Q; (void)K; (void)V; (void)O; (void)LSE;
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
