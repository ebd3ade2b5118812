/* flash1_bwd.c -- FlashAttention backward, Algorithm 4 of Dao et al. 2022 (arXiv 2205.14135),
 * literally, dropout included (lines 14-15 and 18): dQ = 0 initialised in HBM; outer loop over
 * K_j, V_j with dK_j, dV_j accumulated in SRAM; inner loop over Q_i that loads Q_i, O_i, dO_i,
 * dQ_i, l_i, m_i, recomputes P_ij from l and m, recomputes D_i = rowsum(dO_i o O_i) on every
 * visit and writes dQ_i back on every visit.  FlashAttention-2 moved D to a pre-pass and P's
 * statistic to the single logsumexp; the counts show what that saves
 * (docs/io-model-backward.md, "flash1").  Causal: the K/V tile j visits only the row blocks
 * i_lo..T_r-1 that have an allowed key in it. */
#include <math.h>

#include "fa_bwd.h"
#include "fa_numerics.h"

typedef struct {
    fa_tensor Q, K, V, O, l, m, dO, dQ, dK, dV;
} f1_tensors;

typedef struct {
    fa_buf Kj, Vj, dKj, dVj, Qi, Oi, dOi, dQi, li, mi, Di, S, dP;
    fa_buf F;      /* d score / d (Q K^T) under a softcap: tau (1 - tanh^2) */
    fa_mask_io mk; /* dense mask tiles, when there is one */
} f1_bufs;

static fa_status alloc_bufs(fa_mem *mem, const fa_shape *s, fa_blocks bk, f1_bufs *B)
{
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    FA_TRY(fa_sram_alloc(mem, &B->Kj, "K_j", Bc, d, e));
    FA_TRY(fa_sram_alloc(mem, &B->Vj, "V_j", Bc, dv, e));
    FA_TRY(fa_sram_alloc(mem, &B->dKj, "dK_j", Bc, d, 4));
    FA_TRY(fa_sram_alloc(mem, &B->dVj, "dV_j", Bc, dv, 4));
    FA_TRY(fa_sram_alloc(mem, &B->Qi, "Q_i", Br, d, e));
    FA_TRY(fa_sram_alloc(mem, &B->Oi, "O_i", Br, dv, e));
    FA_TRY(fa_sram_alloc(mem, &B->dOi, "dO_i", Br, dv, e));
    FA_TRY(fa_sram_alloc(mem, &B->dQi, "dQ_i", Br, d, 4));
    FA_TRY(fa_sram_alloc(mem, &B->li, "l_i", Br, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &B->mi, "m_i", Br, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &B->Di, "D_i", Br, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &B->S, "S_ij", Br, Bc, 4));
    FA_TRY(fa_sram_alloc(mem, &B->dP, "dP_ij", Br, Bc, 4));
    if (s->softcap > 0) FA_TRY(fa_sram_alloc(mem, &B->F, "dscore_ij", Br, Bc, 4));
    FA_TRY(fa_mask_io_init(mem, s, bk, &B->mk));
    return FA_OK;
}

static void free_bufs(f1_bufs *B)
{
    fa_buf *all[] = {&B->Kj, &B->Vj, &B->dKj, &B->dVj, &B->Qi, &B->Oi, &B->dOi,
                     &B->dQi, &B->li, &B->mi, &B->Di, &B->S, &B->dP, &B->F};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) fa_sram_free(all[k]);
    fa_mask_io_free(&B->mk);
}

/* Line 13: P_ij = diag(l_i)^-1 exp(S_ij - m_i) in place; masked and pad entries (-inf) give 0,
 * a row with no allowed key (l_i = 0, m_i = -inf) gives 0.  FLOPs (other): 3*rows*cols. */
static fa_status p_from_lm(fa_mem *mem, f1_bufs *B, int64_t rows, int64_t cols)
{
    FA_TRY(fa_count_flops(mem, 0, 3u * (uint64_t)rows * (uint64_t)cols));
    double *S = B->S.data;
    if (!S) return FA_OK;
    const int64_t lds = B->S.cols;
    for (int64_t r = 0; r < B->S.rows; r++)
        for (int64_t c = 0; c < lds; c++) {
            double *x = S + r * lds + c;
            double l = r < rows ? B->li.data[r] : 0.0;
            *x = (r < rows && c < cols && l > 0) ? fa_num_exp(mem, *x, B->mi.data[r]) / l : 0.0;
        }
    return FA_OK;
}

/* Lines 10-22 for one (i, j) tile of query head h; K_j, V_j are on chip. */
typedef struct {
    const fa_shape *s;
    fa_blocks bk;
    f1_tensors *T;
    f1_bufs *B;
} f1_ctx;

static fa_status inner_step(fa_mem *mem, void *ctx, int64_t b, int64_t h, int64_t i, int64_t c0,
                            int64_t cols)
{
    const f1_ctx *C = ctx;
    const fa_shape *s = C->s;
    f1_tensors *T = C->T;
    f1_bufs *B = C->B;
    const int64_t Br = C->bk.block_r, Bc = C->bk.block_c, d = s->d, dv = s->d_v;
    const int64_t r0 = i * Br, rows = fa_tile_len(r0, s->seqlen_q, Br);
    FA_TRY(fa_load(mem, &T->Q, b, h, r0, rows, 0, d, &B->Qi)); /* line 10 */
    FA_TRY(fa_load(mem, &T->O, b, h, r0, rows, 0, dv, &B->Oi));
    FA_TRY(fa_load(mem, &T->dO, b, h, r0, rows, 0, dv, &B->dOi));
    FA_TRY(fa_load(mem, &T->dQ, b, h, r0, rows, 0, d, &B->dQi));
    FA_TRY(fa_load(mem, &T->l, b, h, r0, rows, 0, 1, &B->li));
    FA_TRY(fa_load(mem, &T->m, b, h, r0, rows, 0, 1, &B->mi));
    /* lines 11-12: S_ij = tau Q_i K_j^T, masked; the pad of a tail tile scores -inf */
    FA_TRY(fa_tile_matmul_abt(mem, B->S.data, Bc, B->Qi.data, d, B->Kj.data, d, rows, cols, d, 0));
    FA_TRY(fa_mask_io_load(mem, &B->mk, r0, rows, c0, cols));
    FA_TRY(fa_tile_scores(mem, s, h, B->S.data, Bc, s->softcap > 0 ? &B->F : NULL, r0, rows,
                          c0, cols));
    fa_tile_num_scores(mem, B->S.data, Bc, rows, cols); /* emulated precision */
    fa_tile_pad(B->S.data, Bc, Br, rows, cols, -INFINITY);
    FA_TRY(p_from_lm(mem, B, rows, cols)); /* line 13 */
    /* line 17: dP_ij^dropped = dO_i V_j^T */
    FA_TRY(fa_tile_matmul_abt(mem, B->dP.data, Bc, B->dOi.data, dv, B->Vj.data, dv, rows, cols,
                              dv, 0));
    /* line 18: dP_ij = dP_ij^dropped o Z_ij, Z_ij = keep / (1 - p), the forward's keep mask */
    FA_TRY(fa_tile_dropout(mem, s, b, h, B->dP.data, Bc, r0, rows, c0, cols));
    /* line 19: D_i = rowsum(dO_i o O_i), recomputed on every visit */
    FA_TRY(fa_tile_rowdot(mem, B->Di.data, B->dOi.data, dv, B->Oi.data, dv, rows, dv));
    /* line 20: dS_ij = P_ij o (dP_ij - D_i), times tau (lines 21-22 multiply by tau) */
    FA_TRY(fa_tile_dsoftmax(mem, B->dP.data, Bc, B->S.data, Bc, B->Di.data, rows, cols,
                            s->softcap > 0 ? 1.0 : fa_shape_scale(s)));
    if (s->softcap > 0) /* the chain rule through the softcap: dS *= tau (1 - tanh^2) */
        FA_TRY(fa_tile_mul(mem, B->dP.data, Bc, B->F.data, Bc, rows, cols));
    /* lines 15-16: P_ij^dropped = P_ij o Z_ij, dV_j += (P_ij^dropped)^T dO_i -- after dS, which
     * needs the undropped P */
    FA_TRY(fa_tile_dropout(mem, s, b, h, B->S.data, Bc, r0, rows, c0, cols));
    FA_TRY(fa_tile_matmul_atb(mem, B->dVj.data, dv, B->S.data, Bc, B->dOi.data, dv, cols, dv,
                              rows, 1));
    /* line 21: dQ_i += tau dS_ij K_j, written to HBM */
    FA_TRY(fa_tile_matmul_ab(mem, B->dQi.data, d, B->dP.data, Bc, B->Kj.data, d, rows, d, cols, 1));
    FA_TRY(fa_store(mem, &T->dQ, b, h, r0, rows, 0, d, &B->dQi));
    /* line 22: dK_j += tau dS_ij^T Q_i */
    return fa_tile_matmul_atb(mem, B->dKj.data, d, B->dP.data, Bc, B->Qi.data, d, cols, d, rows, 1);
}

/* Line 5: dQ = 0 in HBM, written tile by tile from SRAM, for every query head. */
static fa_status init_dq(fa_mem *mem, const fa_shape *s, fa_blocks bk, f1_tensors *T, f1_bufs *B)
{
    fa_status st = FA_OK;
    fa_buf_zero(&B->dQi);
    for (fa_tile_iter i = fa_iter_rows(mem, s->batch, s->heads, s->seqlen_q, bk.block_r, 1);
         fa_iter_next(&i, &st);) {
        fa_mem_set_program(mem, i.b * s->heads + i.h);
        FA_TRY(fa_store(mem, &T->dQ, i.b, i.h, i.x0, i.len, 0, s->d, &B->dQi));
    }
    return st;
}

/* Lines 6-25 for kv head (b, hk), one thread block: its K/V tiles, each visited by the row
 * blocks of the g query heads that read it (GQA: dK_j, dV_j sum over the group on chip). */
static fa_status kv_slice(fa_mem *mem, const fa_shape *s, fa_blocks bk, f1_tensors *T,
                          f1_bufs *B, int64_t b, int64_t hk)
{
    f1_ctx C = {s, bk, T, B};
    const fa_bwd_kv_loop L = {&T->K, &T->V, &T->dK, &T->dV, &B->Kj, &B->Vj, &B->dKj, &B->dVj,
                              0, inner_step, &C};
    fa_mem_set_program(mem, b * s->kv_heads + hk); /* one thread block per (batch, kv head) */
    return fa_bwd_kv_slice(mem, s, bk, &L, b, hk);
}

fa_status fa_flash1_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                             const double *K, const double *V, const double *O,
                             const double *l, const double *m, const double *dO, double *dQ,
                             double *dK, double *dV)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !l || !m || !dO || !dQ || !dK || !dV))
        FA_FAIL(FA_EINVAL, "flash1 backward: numeric mode needs Q, K, V, O, l, m, dO, dQ, dK, dV");
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t B = s->batch, H = s->heads, Hk = s->kv_heads, Nq = s->seqlen_q,
                  Nk = s->seqlen_k, d = s->d, dv = s->d_v;
#define IN(p) (numeric ? (double *)(p) : NULL)
    f1_tensors T;
    FA_TRY(fa_tensor_make(mem, &T.Q, "Q", B, H, Nq, d, e, IN(Q)));
    FA_TRY(fa_tensor_make(mem, &T.K, "K", B, Hk, Nk, d, e, IN(K)));
    FA_TRY(fa_tensor_make(mem, &T.V, "V", B, Hk, Nk, dv, e, IN(V)));
    FA_TRY(fa_tensor_make(mem, &T.O, "O", B, H, Nq, dv, e, IN(O)));
    FA_TRY(fa_tensor_make(mem, &T.l, "l", B, H, Nq, 1, 4, IN(l)));
    FA_TRY(fa_tensor_make(mem, &T.m, "m", B, H, Nq, 1, 4, IN(m)));
    FA_TRY(fa_tensor_make(mem, &T.dO, "dO", B, H, Nq, dv, e, IN(dO)));
    FA_TRY(fa_tensor_make(mem, &T.dQ, "dQ", B, H, Nq, d, e, IN(dQ)));
    FA_TRY(fa_tensor_make(mem, &T.dK, "dK", B, Hk, Nk, d, e, IN(dK)));
    FA_TRY(fa_tensor_make(mem, &T.dV, "dV", B, Hk, Nk, dv, e, IN(dV)));
#undef IN
    f1_bufs Bf = {0};
    const int depth = fa_mem_weight_depth(mem);
    fa_status st = alloc_bufs(mem, s, bk, &Bf);
    if (!st) st = init_dq(mem, s, bk, &T, &Bf);
    fa_mem_restore_weight(mem, depth);
    fa_mem_kernel_barrier(mem);
    for (fa_tile_iter bh = fa_iter_slices(mem, B, Hk); fa_iter_next(&bh, &st);)
        st = kv_slice(mem, s, bk, &T, &Bf, bh.b, bh.h);
    fa_mem_restore_weight(mem, depth);
    free_bufs(&Bf);
    return st;
}
