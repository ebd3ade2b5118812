/* flash2_bwd.c -- FlashAttention-2 backward (Dao 2023, arXiv 2307.08691, Algorithm 2), as the
 * three kernels of the FlashAttention-2 code base:
 *   pre-pass   D = rowsum(dO o O) -> HBM and dQacc = 0 -> HBM        (Alg. 2 lines 3-4)
 *   main       outer loop over K_j, V_j; inner loop over Q_i          (Alg. 2 lines 5-19)
 *              P_ij recomputed from the stored logsumexp L_i; dQacc_i (fp32) read, updated and
 *              written back on every inner step (atomic adds on a GPU); dK_j, dV_j on chip
 *   post-pass  dQ = dQacc in the dtype
 * HBM traffic per head without a mask: K, V once (per kv head); Q, dO, L, D and dQacc (read and
 * write) T_c times; D, dQacc, dQ once each way (docs/io-model-backward.md, "flash2").
 * Causal: the K/V tile j visits only the row blocks i_lo..T_r-1 that have an allowed key in it. */
#include <math.h>
#include <stdlib.h>

#include "fa_bwd.h"
#include "fa_numerics.h"

typedef struct {
    fa_tensor Q, K, V, O, L, dO, D, dQacc, dQ, dK, dV;
} f2_tensors;

typedef struct {
    fa_buf Kj, Vj, dKj, dVj, Qi, dOi, Li, Di, S, dP, dQi;
    fa_buf F;      /* d score / d (Q K^T) under a softcap: tau (1 - tanh^2) */
    fa_mask_io mk; /* dense mask tiles, when there is one */
} f2_bufs;

/* Pre-pass over the row blocks of every query head: lines 3-4. */
static fa_status pre_pass(fa_mem *mem, const fa_shape *s, fa_blocks bk, f2_tensors *T)
{
    const int64_t Br = bk.block_r, d = s->d, dv = s->d_v, T_r = fa_cdiv(s->seqlen_q, Br);
    const int e = fa_dtype_bytes(s->dtype);
    fa_buf dOi = {0}, Oi = {0}, Di = {0}, dQi = {0};
    fa_status st = fa_sram_alloc(mem, &dOi, "dO_i", Br, dv, e);
    if (!st) st = fa_sram_alloc(mem, &Oi, "O_i", Br, dv, e);
    if (!st) st = fa_sram_alloc(mem, &Di, "D_i", Br, 1, 4);
    if (!st) st = fa_sram_alloc(mem, &dQi, "dQ_i", Br, d, 4);
    fa_buf_zero(&dQi);
    for (fa_tile_iter i = fa_iter_rows(mem, s->batch, s->heads, s->seqlen_q, Br, 1);
         fa_iter_next(&i, &st);) {
        const int64_t b = i.b, h = i.h, r0 = i.x0, rows = i.len;
        fa_mem_set_program(mem, (b * s->heads + h) * T_r + i.t); /* a thread block per row block */
        st = fa_load(mem, &T->dO, b, h, r0, rows, 0, dv, &dOi);
        if (!st) st = fa_load(mem, &T->O, b, h, r0, rows, 0, dv, &Oi);
        /* line 4: D_i = rowsum(dO_i o O_i) */
        if (!st) st = fa_tile_rowdot(mem, Di.data, dOi.data, dv, Oi.data, dv, rows, dv);
        if (!st) st = fa_store(mem, &T->D, b, h, r0, rows, 0, 1, &Di);
        /* line 3: dQ = 0 in HBM (here the fp32 accumulator) */
        if (!st) st = fa_store(mem, &T->dQacc, b, h, r0, rows, 0, d, &dQi);
    }
    fa_sram_free(&dOi);
    fa_sram_free(&Oi);
    fa_sram_free(&Di);
    fa_sram_free(&dQi);
    return st;
}

/* Post-pass over the row blocks of every query head: dQ = dQacc, converted to the dtype. */
static fa_status post_pass(fa_mem *mem, const fa_shape *s, fa_blocks bk, f2_tensors *T)
{
    const int64_t Br = bk.block_r, d = s->d, T_r = fa_cdiv(s->seqlen_q, Br);
    fa_buf dQi = {0};
    fa_status st = fa_sram_alloc(mem, &dQi, "dQ_i", Br, d, 4);
    for (fa_tile_iter i = fa_iter_rows(mem, s->batch, s->heads, s->seqlen_q, Br, 1);
         fa_iter_next(&i, &st);) {
        fa_mem_set_program(mem, (i.b * s->heads + i.h) * T_r + i.t);
        st = fa_load(mem, &T->dQacc, i.b, i.h, i.x0, i.len, 0, d, &dQi);
        if (!st) st = fa_store(mem, &T->dQ, i.b, i.h, i.x0, i.len, 0, d, &dQi);
    }
    fa_sram_free(&dQi);
    return st;
}

static fa_status alloc_main(fa_mem *mem, const fa_shape *s, fa_blocks bk, f2_bufs *B)
{
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    FA_TRY(fa_sram_alloc(mem, &B->Kj, "K_j", Bc, d, e));
    FA_TRY(fa_sram_alloc(mem, &B->Vj, "V_j", Bc, dv, e));
    FA_TRY(fa_sram_alloc(mem, &B->dKj, "dK_j", Bc, d, 4));
    FA_TRY(fa_sram_alloc(mem, &B->dVj, "dV_j", Bc, dv, 4));
    FA_TRY(fa_sram_alloc(mem, &B->Qi, "Q_i", Br, d, e));
    FA_TRY(fa_sram_alloc(mem, &B->dOi, "dO_i", Br, dv, e));
    FA_TRY(fa_sram_alloc(mem, &B->Li, "L_i", Br, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &B->Di, "D_i", Br, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &B->S, "S_ij", Br, Bc, 4));
    FA_TRY(fa_sram_alloc(mem, &B->dP, "dP_ij", Br, Bc, 4));
    FA_TRY(fa_sram_alloc(mem, &B->dQi, "dQ_i", Br, d, 4));
    if (s->softcap > 0) FA_TRY(fa_sram_alloc(mem, &B->F, "dscore_ij", Br, Bc, 4));
    FA_TRY(fa_mask_io_init(mem, s, bk, &B->mk));
    return FA_OK;
}

static void free_main(f2_bufs *B)
{
    fa_buf *all[] = {&B->Kj, &B->Vj, &B->dKj, &B->dVj, &B->Qi, &B->dOi,
                     &B->Li, &B->Di, &B->S,   &B->dP,  &B->dQi, &B->F};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) fa_sram_free(all[k]);
    fa_mask_io_free(&B->mk);
}

/* Lines 9-16 for one (i, j) tile of query head h; K_j, V_j are on chip. */
typedef struct {
    const fa_shape *s;
    fa_blocks bk;
    f2_tensors *T;
    f2_bufs *B;
} f2_ctx;

static fa_status inner_step(fa_mem *mem, void *ctx, int64_t b, int64_t h, int64_t i, int64_t c0,
                            int64_t cols)
{
    const f2_ctx *C = ctx;
    const fa_shape *s = C->s;
    f2_tensors *T = C->T;
    f2_bufs *B = C->B;
    const int64_t Br = C->bk.block_r, Bc = C->bk.block_c, d = s->d, dv = s->d_v;
    const int64_t r0 = i * Br, rows = fa_tile_len(r0, s->seqlen_q, Br);
    FA_TRY(fa_load(mem, &T->Q, b, h, r0, rows, 0, d, &B->Qi)); /* line 9 */
    FA_TRY(fa_load(mem, &T->dO, b, h, r0, rows, 0, dv, &B->dOi));
    FA_TRY(fa_load(mem, &T->L, b, h, r0, rows, 0, 1, &B->Li));
    FA_TRY(fa_load(mem, &T->D, b, h, r0, rows, 0, 1, &B->Di));
    /* line 10: S_ij = Q_i K_j^T, then the scale tau and the mask (which the paper's line leaves
     * out); the pad of a tail tile scores -inf */
    FA_TRY(fa_tile_matmul_abt(mem, B->S.data, Bc, B->Qi.data, d, B->Kj.data, d, rows, cols, d, 0));
    FA_TRY(fa_mask_io_load(mem, &B->mk, r0, rows, c0, cols));
    FA_TRY(fa_tile_scores(mem, s, h, B->S.data, Bc, s->softcap > 0 ? &B->F : NULL, r0, rows,
                          c0, cols));
    fa_tile_num_scores(mem, B->S.data, Bc, rows, cols); /* emulated precision */
    fa_tile_pad(B->S.data, Bc, Br, rows, cols, -INFINITY);
    /* line 11: P_ij = exp(S_ij - L_i) */
    FA_TRY(fa_tile_exp_lse(mem, B->S.data, Bc, Br, B->Li.data, rows, cols));
    /* line 13: dP_ij = dO_i V_j^T */
    FA_TRY(fa_tile_matmul_abt(mem, B->dP.data, Bc, B->dOi.data, dv, B->Vj.data, dv, rows, cols,
                              dv, 0));
    /* dropout (Algorithm 2 has none; as FlashAttention Alg. 4 line 18): dP_ij o Z_ij, with
     * Z_ij = keep / (1 - p) from the forward's keep mask */
    FA_TRY(fa_tile_dropout(mem, s, b, h, B->dP.data, Bc, r0, rows, c0, cols));
    /* line 14: dS_ij = P_ij o (dP_ij - D_i), times tau (S = tau Q K^T) */
    FA_TRY(fa_tile_dsoftmax(mem, B->dP.data, Bc, B->S.data, Bc, B->Di.data, rows, cols,
                            s->softcap > 0 ? 1.0 : fa_shape_scale(s)));
    if (s->softcap > 0) /* the chain rule through the softcap: dS *= tau (1 - tanh^2) */
        FA_TRY(fa_tile_mul(mem, B->dP.data, Bc, B->F.data, Bc, rows, cols));
    /* line 12: dV_j += P_ij^T dO_i -- after dS, which needs the undropped P; with dropout the
     * P here is Z o P (as FlashAttention Alg. 4 lines 15-16) */
    FA_TRY(fa_tile_dropout(mem, s, b, h, B->S.data, Bc, r0, rows, c0, cols));
    FA_TRY(fa_tile_matmul_atb(mem, B->dVj.data, dv, B->S.data, Bc, B->dOi.data, dv, cols, dv,
                              rows, 1));
    /* line 15: dQ_i += dS_ij K_j, read-modify-write of the fp32 accumulator in HBM */
    FA_TRY(fa_load(mem, &T->dQacc, b, h, r0, rows, 0, d, &B->dQi));
    FA_TRY(fa_tile_matmul_ab(mem, B->dQi.data, d, B->dP.data, Bc, B->Kj.data, d, rows, d, cols, 1));
    FA_TRY(fa_store(mem, &T->dQacc, b, h, r0, rows, 0, d, &B->dQi));
    /* line 16: dK_j += dS_ij^T Q_i */
    return fa_tile_matmul_atb(mem, B->dKj.data, d, B->dP.data, Bc, B->Qi.data, d, cols, d, rows, 1);
}

/* Lines 5-19 for kv head (b, hk): its K/V tiles, a thread block each, each visited by the row
 * blocks of the g query heads that read it (GQA: dK_j, dV_j sum over the group on chip). */
static fa_status main_slice(fa_mem *mem, const fa_shape *s, fa_blocks bk, f2_tensors *T,
                            f2_bufs *B, int64_t b, int64_t hk)
{
    f2_ctx C = {s, bk, T, B};
    const fa_bwd_kv_loop L = {&T->K, &T->V, &T->dK, &T->dV, &B->Kj, &B->Vj, &B->dKj, &B->dVj,
                              1, inner_step, &C};
    return fa_bwd_kv_slice(mem, s, bk, &L, b, hk);
}

static fa_status run(fa_mem *mem, const fa_shape *s, fa_blocks bk, f2_tensors *T)
{
    int depth = fa_mem_weight_depth(mem);
    fa_status st = pre_pass(mem, s, bk, T);
    fa_mem_restore_weight(mem, depth);
    if (st) return st;
    fa_mem_kernel_barrier(mem);

    f2_bufs B = {0};
    st = alloc_main(mem, s, bk, &B);
    for (fa_tile_iter bh = fa_iter_slices(mem, s->batch, s->kv_heads); fa_iter_next(&bh, &st);)
        st = main_slice(mem, s, bk, T, &B, bh.b, bh.h);
    fa_mem_restore_weight(mem, depth);
    free_main(&B);
    if (st) return st;
    fa_mem_kernel_barrier(mem);

    st = post_pass(mem, s, bk, T);
    fa_mem_restore_weight(mem, depth);
    return st;
}

fa_status fa_flash2_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                             const double *K, const double *V, const double *O,
                             const double *LSE, const double *dO, double *dQ, double *dK,
                             double *dV)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !LSE || !dO || !dQ || !dK || !dV))
        FA_FAIL(FA_EINVAL, "flash2 backward: numeric mode needs Q, K, V, O, LSE, dO, dQ, dK, dV");
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t B = s->batch, H = s->heads, Hk = s->kv_heads, Nq = s->seqlen_q,
                  Nk = s->seqlen_k, d = s->d, dv = s->d_v;
    double *Dd = NULL, *Acc = NULL;
    if (numeric) {
        Dd = malloc((size_t)fa_numel_stats(s) * sizeof *Dd);
        Acc = malloc((size_t)fa_numel_q(s) * sizeof *Acc);
        if (!Dd || !Acc) {
            free(Dd);
            free(Acc);
            FA_FAIL(FA_ENOMEM, "flash2 backward: out of host memory for D and dQacc");
        }
    }
#define IN(p) (numeric ? (double *)(p) : NULL)
    f2_tensors T;
    fa_status st = fa_tensor_make(mem, &T.Q, "Q", B, H, Nq, d, e, IN(Q));
    if (!st) st = fa_tensor_make(mem, &T.K, "K", B, Hk, Nk, d, e, IN(K));
    if (!st) st = fa_tensor_make(mem, &T.V, "V", B, Hk, Nk, dv, e, IN(V));
    if (!st) st = fa_tensor_make(mem, &T.O, "O", B, H, Nq, dv, e, IN(O));
    if (!st) st = fa_tensor_make(mem, &T.L, "LSE", B, H, Nq, 1, 4, IN(LSE));
    if (!st) st = fa_tensor_make(mem, &T.dO, "dO", B, H, Nq, dv, e, IN(dO));
    if (!st) st = fa_tensor_make(mem, &T.D, "D", B, H, Nq, 1, 4, Dd);
    if (!st) st = fa_tensor_make(mem, &T.dQacc, "dQacc", B, H, Nq, d, 4, Acc);
    if (!st) st = fa_tensor_make(mem, &T.dQ, "dQ", B, H, Nq, d, e, IN(dQ));
    if (!st) st = fa_tensor_make(mem, &T.dK, "dK", B, Hk, Nk, d, e, IN(dK));
    if (!st) st = fa_tensor_make(mem, &T.dV, "dV", B, Hk, Nk, dv, e, IN(dV));
#undef IN
    if (!st) st = run(mem, s, bk, &T);
    free(Dd);
    free(Acc);
    return st;
}
