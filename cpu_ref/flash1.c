/* flash1.c -- FlashAttention forward, Algorithm 1 of Dao et al. 2022 (arXiv 2205.14135),
 * literally: outer loop over K_j, V_j; inner loop over Q_i; O_i, l_i, m_i travel HBM -> SRAM
 * -> HBM on every inner step.  This is the loop order FlashAttention-2 inverted; the counts
 * show why (docs/io-model.md, "flash1").  Causal: tiles with no allowed key are skipped. */
#include <math.h>

#include "fa_attn.h"
#include "fa_numerics.h"

typedef struct {
    fa_buf Kj, Vj, Qi, O, S, l, m;
    fa_mask_io mk; /* dense mask tiles, when there is one */
} flash1_bufs;

static void free_bufs(flash1_bufs *b)
{
    fa_sram_free(&b->Kj);
    fa_sram_free(&b->Vj);
    fa_sram_free(&b->Qi);
    fa_sram_free(&b->O);
    fa_sram_free(&b->S);
    fa_sram_free(&b->l);
    fa_sram_free(&b->m);
    fa_mask_io_free(&b->mk);
}

static fa_status alloc_bufs(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash1_bufs *b)
{
    const int e = fa_dtype_bytes(s->dtype);
    FA_TRY(fa_sram_alloc(mem, &b->Kj, "K_j", bk.block_c, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &b->Vj, "V_j", bk.block_c, s->d_v, e));
    FA_TRY(fa_sram_alloc(mem, &b->Qi, "Q_i", bk.block_r, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &b->O, "O_i", bk.block_r, s->d_v, 4));
    FA_TRY(fa_sram_alloc(mem, &b->S, "S_ij", bk.block_r, bk.block_c, 4));
    FA_TRY(fa_sram_alloc(mem, &b->l, "l_i", bk.block_r, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &b->m, "m_i", bk.block_r, 1, 4));
    FA_TRY(fa_mask_io_init(mem, s, bk, &b->mk));
    return FA_OK;
}

/* Lines 10-12 on chip for one (i, j) tile; S holds scaled, masked S_ij on entry.
 * FLOPs (other): line 10: 4*r*c; line 11: 8*r; line 12: 3*r + r*dv + r*c.  Plus 2*r*c*dv
 * matmul FLOPs for P~_ij V_j. */
static fa_status update(fa_mem *mem, const fa_shape *sh, int64_t b, int64_t h, flash1_bufs *B,
                        int64_t r0, int64_t rows, int64_t c0, int64_t cols, int64_t dv)
{
    uint64_t r = (uint64_t)rows, c = (uint64_t)cols;
    FA_TRY(fa_count_flops(mem, 0, 5 * r * c + 11 * r + r * (uint64_t)dv));
    double *S = B->S.data, *O = B->O.data, *l = B->l.data, *m = B->m.data;
    const int64_t lds = B->S.cols;
    for (int64_t i = 0; S && i < rows; i++) {
        double *srow = S + i * lds;
        double mt = -INFINITY; /* line 10: m~_ij = rowmax(S_ij) */
        for (int64_t j = 0; j < cols; j++)
            if (srow[j] > mt) mt = srow[j];
        double lt = 0; /* P~_ij = exp(S_ij - m~_ij), l~_ij = rowsum(P~_ij) */
        for (int64_t j = 0; j < cols; j++) {
            srow[j] = fa_num_exp(mem, srow[j], mt);
            lt += srow[j];
        }
        double mnew = m[i] > mt ? m[i] : mt; /* line 11 */
        double e_old = fa_num_exp(mem, m[i], mnew), e_new = fa_num_exp(mem, mt, mnew);
        double lnew = e_old * l[i] + e_new * lt;
        /* line 12: O_i = diag(l_new)^-1 (diag(l_i) e_old O_i + e_new P~_ij V_j) */
        double a = lnew != 0 ? l[i] * e_old / lnew : 0.0;
        double cc = lnew != 0 ? e_new / lnew : 0.0;
        for (int64_t k = 0; k < dv; k++) O[i * dv + k] *= a;
        for (int64_t j = 0; j < cols; j++) srow[j] *= cc;
        l[i] = lnew; /* line 13 */
        m[i] = mnew;
    }
    /* dropout (FlashAttention Alg. 2 line 14): l keeps the undropped sum, P V the dropped P */
    FA_TRY(fa_tile_dropout(mem, sh, b, h, S, lds, r0, rows, c0, cols));
    fa_tile_round_p(mem, S, lds, rows, cols); /* P in the dtype, as the kernel */
    return fa_tile_matmul_ab(mem, O, dv, S, lds, B->Vj.data, dv, rows, dv, cols, 1);
}

static fa_status run_slice(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash1_bufs *B,
                           fa_tensor *Q, fa_tensor *K, fa_tensor *V, fa_tensor *O, fa_tensor *L,
                           fa_tensor *M, int64_t b, int64_t h)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    const int64_t hk = h / (s->heads / s->kv_heads);
    fa_mem_set_program(mem, b * s->heads + h); /* one thread block per (batch, head) */
    fa_status st = FA_OK;

    /* line 2: O = 0, l = 0, m = -inf in HBM (written tile by tile from SRAM) */
    for (fa_tile_iter i = fa_iter_rows(mem, 1, 1, s->seqlen_q, Br, 1); fa_iter_next(&i, &st);) {
        const int64_t r0 = i.x0, rows = i.len;
        if (B->O.data)
            for (int64_t r = 0; r < rows; r++) {
                for (int64_t c = 0; c < dv; c++) B->O.data[r * dv + c] = 0;
                B->l.data[r] = 0;
                B->m.data[r] = -INFINITY;
            }
        FA_TRY(fa_store(mem, O, b, h, r0, rows, 0, dv, &B->O));
        FA_TRY(fa_store(mem, L, b, h, r0, rows, 0, 1, &B->l));
        FA_TRY(fa_store(mem, M, b, h, r0, rows, 0, 1, &B->m));
    }

    /* line 5: for 1 <= j <= T_c */
    for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, !fa_has_mask(s));
         fa_iter_next(&j, &st);) {
        const int64_t c0 = j.x0, cols = j.len;
        fa_tile_iter i = fa_iter_q(mem, s, 1, c0, cols, Br); /* the row blocks that see K_j */
        if (!fa_iter_empty(&i)) { /* line 6: a K/V tile no row sees is never loaded */
            FA_TRY(fa_load(mem, K, b, hk, c0, cols, 0, d, &B->Kj));
            FA_TRY(fa_load(mem, V, b, hk, c0, cols, 0, dv, &B->Vj));
        }
        while (fa_iter_next(&i, &st)) { /* line 7 */
            const int64_t r0 = i.x0, rows = i.len;
            FA_TRY(fa_load(mem, Q, b, h, r0, rows, 0, d, &B->Qi)); /* line 8 */
            FA_TRY(fa_load(mem, O, b, h, r0, rows, 0, dv, &B->O));
            FA_TRY(fa_load(mem, L, b, h, r0, rows, 0, 1, &B->l));
            FA_TRY(fa_load(mem, M, b, h, r0, rows, 0, 1, &B->m));
            /* line 9: S_ij = Q_i K_j^T, then scale, softcap, ALiBi and the mask */
            FA_TRY(fa_tile_matmul_abt(mem, B->S.data, Bc, B->Qi.data, d, B->Kj.data, d, rows,
                                      cols, d, 0));
            FA_TRY(fa_mask_io_load(mem, &B->mk, r0, rows, c0, cols));
            FA_TRY(fa_tile_scores(mem, s, h, B->S.data, Bc, NULL, r0, rows, c0, cols));
            fa_tile_num_scores(mem, B->S.data, Bc, rows, cols); /* emulated precision */
            FA_TRY(update(mem, s, b, h, B, r0, rows, c0, cols, dv)); /* lines 10-12 */
            FA_TRY(fa_store(mem, O, b, h, r0, rows, 0, dv, &B->O)); /* line 12 */
            FA_TRY(fa_store(mem, L, b, h, r0, rows, 0, 1, &B->l));  /* line 13 */
            FA_TRY(fa_store(mem, M, b, h, r0, rows, 0, 1, &B->m));
        }
    }
    return st;
}

fa_status fa_flash1_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                            const double *K, const double *V, double *O, double *l, double *m)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !l || !m))
        FA_FAIL(FA_EINVAL, "flash1: numeric mode needs Q, K, V, O, l and m");
    const int e = fa_dtype_bytes(s->dtype);
    fa_tensor tQ, tK, tV, tO, tl, tm;
    FA_TRY(fa_tensor_make(mem, &tQ, "Q", s->batch, s->heads, s->seqlen_q, s->d, e,
                          numeric ? (double *)Q : NULL));
    FA_TRY(fa_tensor_make(mem, &tK, "K", s->batch, s->kv_heads, s->seqlen_k, s->d, e,
                          numeric ? (double *)K : NULL));
    FA_TRY(fa_tensor_make(mem, &tV, "V", s->batch, s->kv_heads, s->seqlen_k, s->d_v, e,
                          numeric ? (double *)V : NULL));
    FA_TRY(fa_tensor_make(mem, &tO, "O", s->batch, s->heads, s->seqlen_q, s->d_v, e,
                          numeric ? O : NULL));
    FA_TRY(fa_tensor_make(mem, &tl, "l", s->batch, s->heads, s->seqlen_q, 1, 4,
                          numeric ? l : NULL));
    FA_TRY(fa_tensor_make(mem, &tm, "m", s->batch, s->heads, s->seqlen_q, 1, 4,
                          numeric ? m : NULL));
    flash1_bufs B = {0};
    int depth = fa_mem_weight_depth(mem);
    fa_status st = alloc_bufs(mem, s, bk, &B);
    for (fa_tile_iter bh = fa_iter_slices(mem, s->batch, s->heads); fa_iter_next(&bh, &st);)
        st = run_slice(mem, s, bk, &B, &tQ, &tK, &tV, &tO, &tl, &tm, bh.b, bh.h);
    fa_mem_restore_weight(mem, depth);
    free_bufs(&B);
    return st;
}
