/* flash2.c -- FlashAttention-2 forward (Dao 2023, arXiv 2307.08691, Algorithm 1).
 *
 * Outer loop over row blocks Q_i (one thread block each on a GPU), inner loop over K_j, V_j.
 * O_i stays unnormalised in SRAM; one final rescale by diag(l_i)^-1; only the logsumexp
 * LSE_i = m_i + log(l_i) goes to HBM.  HBM traffic per (batch, head), without a mask:
 *   Q once, K and V T_r times, O and LSE once  (docs/io-model.md, "flash2"). */
#include <math.h>
#include <stdlib.h>

#include "fa_attn.h"
#include "fa_numerics.h"

typedef struct {
    fa_buf Qi, Kj, Vj, S, O, m, l;
    fa_mask_io mk; /* dense mask tiles, when there is one */
} flash2_bufs;

static void free_bufs(flash2_bufs *b)
{
    fa_sram_free(&b->Qi);
    fa_sram_free(&b->Kj);
    fa_sram_free(&b->Vj);
    fa_sram_free(&b->S);
    fa_sram_free(&b->O);
    fa_sram_free(&b->m);
    fa_sram_free(&b->l);
    fa_mask_io_free(&b->mk);
}

static fa_status alloc_bufs(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash2_bufs *b)
{
    const int e = fa_dtype_bytes(s->dtype);
    FA_TRY(fa_sram_alloc(mem, &b->Qi, "Q_i", bk.block_r, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &b->Kj, "K_j", bk.block_c, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &b->Vj, "V_j", bk.block_c, s->d_v, e));
    FA_TRY(fa_sram_alloc(mem, &b->S, "S_ij", bk.block_r, bk.block_c, 4));
    FA_TRY(fa_sram_alloc(mem, &b->O, "O_i", bk.block_r, s->d_v, 4));
    FA_TRY(fa_sram_alloc(mem, &b->m, "m_i", bk.block_r, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &b->l, "l_i", bk.block_r, 1, 4));
    FA_TRY(fa_mask_io_init(mem, s, bk, &b->mk));
    return FA_OK;
}

/* One row block Q_i of slice (b, h): FlashAttention-2 Algorithm 1 lines 4-15. */
static fa_status row_block(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash2_bufs *B,
                           fa_tensor *Q, fa_tensor *K, fa_tensor *V, fa_tensor *O,
                           fa_tensor *LSE, int64_t b, int64_t h, int64_t i)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    const int64_t hk = h / (s->heads / s->kv_heads);
    const int64_t r0 = i * Br, rows = fa_tile_len(r0, s->seqlen_q, Br);
    fa_tile_iter j = fa_iter_kv(mem, s, r0, rows, Bc); /* the K/V tiles this row block sees */
    /* one thread block per (batch, head, row block) on a GPU */
    fa_mem_set_program(mem, (b * s->heads + h) * fa_cdiv(s->seqlen_q, Br) + i);

    /* line 5: O_i = 0, l_i = 0, m_i = -inf on chip */
    if (B->O.data)
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t c = 0; c < dv; c++) B->O.data[r * dv + c] = 0;
            B->l.data[r] = 0;
            B->m.data[r] = -INFINITY;
        }
    if (!fa_iter_empty(&j)) /* line 4: a row block that sees no key loads nothing */
        FA_TRY(fa_load(mem, Q, b, h, r0, rows, 0, d, &B->Qi));
    fa_status st = FA_OK;
    uint64_t steps = 0, rescales = 0; /* this row block's tile steps and rescales */
    while (fa_iter_next(&j, &st)) { /* line 6 */
        const int64_t c0 = j.x0, cols = j.len;
        FA_TRY(fa_load(mem, K, b, hk, c0, cols, 0, d, &B->Kj)); /* line 7 */
        FA_TRY(fa_load(mem, V, b, hk, c0, cols, 0, dv, &B->Vj));
        /* line 8: S_ij = Q_i K_j^T, then scale, softcap, ALiBi and the mask */
        FA_TRY(fa_tile_matmul_abt(mem, B->S.data, Bc, B->Qi.data, d, B->Kj.data, d, rows, cols,
                                  d, 0));
        FA_TRY(fa_mask_io_load(mem, &B->mk, r0, rows, c0, cols));
        FA_TRY(fa_tile_scores(mem, s, h, B->S.data, Bc, NULL, r0, rows, c0, cols));
        fa_tile_num_scores(mem, B->S.data, Bc, rows, cols); /* emulated precision */
        /* line 9: m_new, P~_ij = exp(S_ij - m_new), l_new; line 10 begins: O_i *= exp(m_old - m_new) */
        int rescaled = 1; /* tau > 0: only where m grows by more than tau (FlashAttention-4) */
        FA_TRY(fa_tile_online_softmax_cond(mem, B->S.data, Bc, B->m.data, B->l.data, B->O.data, dv,
                                           rows, cols, dv, s->rescale_threshold, &rescaled));
        steps += (uint64_t)j.w; /* a merged run of j.w identical tiles (count-only mode) */
        if (rescaled) rescales += (uint64_t)j.w;
        fa_tile_round_p(mem, B->S.data, Bc, rows, cols); /* P in the dtype, as the kernel */
        /* dropout (FlashAttention Alg. 2 line 14): l_i keeps the undropped sum, P V the dropped P */
        FA_TRY(fa_tile_dropout(mem, s, b, h, B->S.data, Bc, r0, rows, c0, cols));
        /* line 10: O_i += P~_ij V_j */
        FA_TRY(fa_tile_matmul_ab(mem, B->O.data, dv, B->S.data, Bc, B->Vj.data, dv, rows, dv,
                                 cols, 1));
    }
    FA_TRY(st);
    FA_TRY(fa_count_rescales(mem, steps, rescales)); /* weighted by the row blocks this one stands for */
    /* with tau > 0, m_i may be stale: the exponentials used the same m_i, so O_i / l_i is exact */
    /* line 12: O_i = diag(l_i)^-1 O_i;  line 13: L_i = m_i + log(l_i) (rows*dv + 2*rows FLOPs) */
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)dv + 2u * (uint64_t)rows));
    if (B->O.data)
        for (int64_t r = 0; r < rows; r++) {
            double l = B->l.data[r];
            for (int64_t c = 0; c < dv; c++) B->O.data[r * dv + c] = l != 0 ? B->O.data[r * dv + c] / l : 0.0;
            B->m.data[r] = l != 0 ? fa_num_lse(mem, B->m.data[r], l) : -INFINITY; /* m_i now holds L_i */
        }
    FA_TRY(fa_store(mem, O, b, h, r0, rows, 0, dv, &B->O));  /* line 14 */
    FA_TRY(fa_store(mem, LSE, b, h, r0, rows, 0, 1, &B->m)); /* line 15 */
    return FA_OK;
}

static fa_status run(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash2_bufs *B, fa_tensor *Q,
                     fa_tensor *K, fa_tensor *V, fa_tensor *O, fa_tensor *LSE)
{
    fa_status st = FA_OK;
    /* line 3: for 1 <= i <= T_r, every (batch, head); parallel over row blocks on a GPU */
    for (fa_tile_iter i = fa_iter_rows(mem, s->batch, s->heads, s->seqlen_q, bk.block_r,
                                       !fa_has_mask(s));
         fa_iter_next(&i, &st);)
        FA_TRY(row_block(mem, s, bk, B, Q, K, V, O, LSE, i.b, i.h, i.t));
    return st;
}

fa_status fa_flash2_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                            const double *K, const double *V, double *O, double *LSE)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !LSE))
        FA_FAIL(FA_EINVAL, "flash2: numeric mode needs Q, K, V, O and LSE");
    const int e = fa_dtype_bytes(s->dtype);
    fa_tensor tQ, tK, tV, tO, tL;
    FA_TRY(fa_tensor_make(mem, &tQ, "Q", s->batch, s->heads, s->seqlen_q, s->d, e,
                          numeric ? (double *)Q : NULL));
    FA_TRY(fa_tensor_make(mem, &tK, "K", s->batch, s->kv_heads, s->seqlen_k, s->d, e,
                          numeric ? (double *)K : NULL));
    FA_TRY(fa_tensor_make(mem, &tV, "V", s->batch, s->kv_heads, s->seqlen_k, s->d_v, e,
                          numeric ? (double *)V : NULL));
    FA_TRY(fa_tensor_make(mem, &tO, "O", s->batch, s->heads, s->seqlen_q, s->d_v, e,
                          numeric ? O : NULL));
    FA_TRY(fa_tensor_make(mem, &tL, "LSE", s->batch, s->heads, s->seqlen_q, 1, 4,
                          numeric ? LSE : NULL));
    flash2_bufs B = {0};
    int depth = fa_mem_weight_depth(mem);
    fa_status st = alloc_bufs(mem, s, bk, &B);
    if (st == FA_OK) st = run(mem, s, bk, &B, &tQ, &tK, &tV, &tO, &tL);
    fa_mem_restore_weight(mem, depth);
    free_bufs(&B);
    return st;
}
