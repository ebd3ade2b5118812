/* standard_bwd.c -- standard attention backward, Algorithm 3 of Dao et al. 2022
 * (arXiv 2205.14135, Appendix B.4), as the five kernels an unfused implementation launches,
 * each tiled under the same SRAM size M with B_r x B_c tiles:
 *   (1) dV = P^T dO        per K/V block j: for each Q block i load P_ij and dO_i    (line 1)
 *   (2) dP = dO V^T        per Q block i (dO_i loaded once): for each j load V_j,
 *                          dP_ij -> HBM                                              (line 2)
 *   (3) dS = P o (dP - D)  per Q block i, D_i = sum_j P_ij dP_ij: if a row fits one tile
 *                          (N_k <= B_c) read P_i, dP_i once; otherwise pass 1 reads P_ij and
 *                          dP_ij for D_i, pass 2 reads them again and writes dS_ij   (line 3)
 *   (4) dQ = tau dS K      per Q block i: for each j load dS_ij and K_j            (line 4)
 *   (5) dK = tau dS^T Q    per K/V block j: for each Q block i load dS_ij and Q_i  (line 5)
 * P is read back from HBM (kept by the forward), dP and dS are materialised for every (i, j):
 * no tile is skipped (as the standard forward).  GQA: kernels (1) and (5) accumulate dV_j, dK_j
 * on chip over the g query heads of a kv head.  Counts: docs/io-model-backward.md, "standard". */
#include <math.h>
#include <stdlib.h>

#include "fa_bwd.h"

typedef struct {
    fa_tensor Q, K, V, P, dO, dP, dS, dQ, dK, dV;
} std_tensors;

/* Kernels (1) and (5) for kv head (b, hk): G_j = sum over the group's query heads h and row
 * blocks i of A_ij^T X_i, times a when a > 0; A is P or dS (N_q x N_k per query head), X is dO or Q.
 * xcols: d_v or d; names: the SRAM buffers of A_ij, X_i, G_j. */
static fa_status kernel_grad_kv(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *A,
                                fa_tensor *X, fa_tensor *G, int64_t xcols, double a,
                                const char *const names[3], int64_t b, int64_t hk, int drop)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_c = fa_cdiv(s->seqlen_k, Bc), g = s->heads / s->kv_heads;
    const int e = fa_dtype_bytes(s->dtype);
    fa_buf Aij = {0}, Xi = {0}, Gj = {0};
    fa_status st = fa_sram_alloc(mem, &Aij, names[0], Br, Bc, 4);
    if (!st) st = fa_sram_alloc(mem, &Xi, names[1], Br, xcols, e);
    if (!st) st = fa_sram_alloc(mem, &Gj, names[2], Bc, xcols, 4);
    for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1); fa_iter_next(&j, &st);) {
        const int64_t c0 = j.x0, cols = j.len;
        fa_mem_set_program(mem, (b * s->kv_heads + hk) * T_c + j.t); /* a block per K/V tile */
        for (int64_t k = 0; Gj.data && k < Bc * xcols; k++) Gj.data[k] = 0;
        /* the row blocks of the group's g query heads */
        for (fa_tile_iter i = fa_iter_rows(mem, 1, g, s->seqlen_q, Br, 1); fa_iter_next(&i, &st);) {
            const int64_t h = hk * g + i.h, r0 = i.x0, rows = i.len;
            st = fa_load(mem, A, b, h, r0, rows, c0, cols, &Aij);
            if (!st && drop) st = fa_tile_dropout(mem, s, b, h, Aij.data, Bc, r0, rows, c0, cols);
            if (!st) st = fa_load(mem, X, b, h, r0, rows, 0, xcols, &Xi);
            if (!st) st = fa_tile_matmul_atb(mem, Gj.data, xcols, Aij.data, Bc, Xi.data, xcols,
                                             cols, xcols, rows, 1);
        }
        if (!st && a > 0) st = fa_tile_scale(mem, Gj.data, xcols, cols, xcols, a);
        if (!st) st = fa_store(mem, G, b, hk, c0, cols, 0, xcols, &Gj);
    }
    fa_sram_free(&Aij);
    fa_sram_free(&Xi);
    fa_sram_free(&Gj);
    return st;
}

/* D_i += rowsum(P_ij o dP_ij) over one tile (2*rows*cols FLOPs). */
static fa_status rowdot_acc(fa_mem *mem, fa_buf *D, const fa_buf *P, const fa_buf *dP,
                            int64_t rows, int64_t cols)
{
    FA_TRY(fa_count_flops(mem, 0, 2u * (uint64_t)rows * (uint64_t)cols));
    for (int64_t r = 0; D->data && r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            D->data[r] += P->data[r * P->cols + c] * dP->data[r * dP->cols + c];
    return FA_OK;
}

/* Kernel (3) for query head (b, h): dS = P o (dP - D), D_i = sum_j P_ij dP_ij, dS_ij -> HBM. */
static fa_status kernel_ds(fa_mem *mem, const fa_shape *s, fa_blocks bk, std_tensors *T,
                           int64_t b, int64_t h)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
    fa_buf Pij = {0}, dPij = {0}, Di = {0};
    fa_status st = fa_sram_alloc(mem, &Pij, "P_ij", Br, Bc, 4);
    if (!st) st = fa_sram_alloc(mem, &dPij, "dP_ij", Br, Bc, 4);
    if (!st) st = fa_sram_alloc(mem, &Di, "D_i", Br, 1, 4);
    for (fa_tile_iter i = fa_iter_rows(mem, 1, 1, s->seqlen_q, Br, 1); fa_iter_next(&i, &st);) {
        const int64_t r0 = i.x0, rows = i.len;
        fa_mem_set_program(mem, (b * s->heads + h) * T_r + i.t); /* a thread block per row block */
        for (int64_t r = 0; Di.data && r < Br; r++) Di.data[r] = 0;
        /* pass 1 (only when a row spans several tiles): D_i = sum_j rowsum(P_ij o dP_ij) */
        for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1);
             T_c > 1 && fa_iter_next(&j, &st);) {
            const int64_t c0 = j.x0, cols = j.len;
            if (!st) st = fa_load(mem, &T->P, b, h, r0, rows, c0, cols, &Pij);
            if (!st) st = fa_load(mem, &T->dP, b, h, r0, rows, c0, cols, &dPij);
            if (!st) st = rowdot_acc(mem, &Di, &Pij, &dPij, rows, cols);
        }
        /* pass 2 (the only pass when T_c == 1): dS_ij = P_ij o (dP_ij - D_i) */
        for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1); fa_iter_next(&j, &st);) {
            const int64_t c0 = j.x0, cols = j.len;
            if (!st) st = fa_load(mem, &T->P, b, h, r0, rows, c0, cols, &Pij);
            if (!st) st = fa_load(mem, &T->dP, b, h, r0, rows, c0, cols, &dPij);
            if (!st && T_c == 1) st = rowdot_acc(mem, &Di, &Pij, &dPij, rows, cols);
            if (!st) st = fa_tile_dsoftmax(mem, dPij.data, Bc, Pij.data, Bc, Di.data, rows, cols, 1.0);
            if (!st) st = fa_store(mem, &T->dS, b, h, r0, rows, c0, cols, &dPij);
        }
    }
    fa_sram_free(&Pij);
    fa_sram_free(&dPij);
    fa_sram_free(&Di);
    return st;
}

fa_status fa_standard_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                               const double *K, const double *V, const double *P,
                               const double *dO, double *dQ, double *dK, double *dV)
{
    if (s->softcap > 0)
        FA_FAIL(FA_EINVAL, "standard backward with a softcap is not modelled: the chain rule through "
                           "the cap needs the pre-softmax scores, which Algorithm 3 does not keep "
                           "(use flash1 or flash2)");
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !P || !dO || !dQ || !dK || !dV))
        FA_FAIL(FA_EINVAL, "standard backward: numeric mode needs Q, K, V, P, dO, dQ, dK, dV");
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t B = s->batch, H = s->heads, Hk = s->kv_heads, Nq = s->seqlen_q,
                  Nk = s->seqlen_k, d = s->d, dv = s->d_v;
    double *dPd = NULL, *dSd = NULL;
    if (numeric) {
        size_t n = (size_t)B * (size_t)H * (size_t)Nq * (size_t)Nk;
        dPd = malloc(n * sizeof(double));
        dSd = malloc(n * sizeof(double));
        if (!dPd || !dSd) {
            free(dPd);
            free(dSd);
            FA_FAIL(FA_ENOMEM, "standard backward: out of host memory for dP and dS (%zu elements each)", n);
        }
    }
#define IN(p) (numeric ? (double *)(p) : NULL)
    std_tensors T;
    fa_status st = fa_tensor_make(mem, &T.Q, "Q", B, H, Nq, d, e, IN(Q));
    if (!st) st = fa_tensor_make(mem, &T.K, "K", B, Hk, Nk, d, e, IN(K));
    if (!st) st = fa_tensor_make(mem, &T.V, "V", B, Hk, Nk, dv, e, IN(V));
    if (!st) st = fa_tensor_make(mem, &T.P, "P", B, H, Nq, Nk, e, IN(P));
    if (!st) st = fa_tensor_make(mem, &T.dO, "dO", B, H, Nq, dv, e, IN(dO));
    if (!st) st = fa_tensor_make(mem, &T.dP, "dP", B, H, Nq, Nk, e, dPd);
    if (!st) st = fa_tensor_make(mem, &T.dS, "dS", B, H, Nq, Nk, e, dSd);
    if (!st) st = fa_tensor_make(mem, &T.dQ, "dQ", B, H, Nq, d, e, IN(dQ));
    if (!st) st = fa_tensor_make(mem, &T.dK, "dK", B, Hk, Nk, d, e, IN(dK));
    if (!st) st = fa_tensor_make(mem, &T.dV, "dV", B, Hk, Nk, dv, e, IN(dV));
#undef IN
    static const char *const names_dv[3] = {"P_ij", "dO_i", "dV_j"};
    static const char *const names_dk[3] = {"dS_ij", "Q_i", "dK_j"};
    static const char *const names_dp[3] = {"dO_i", "V_j", "dP_ij"};
    static const char *const names_dq[3] = {"dS_ij", "K_j", "dQ_i"};
    const int depth = fa_mem_weight_depth(mem);
    /* Each kernel runs over all slices before the next one starts (Algorithm 3, lines 1-5). */
    /* line 1: dV = P^T dO */
    for (fa_tile_iter bh = fa_iter_slices(mem, B, Hk); fa_iter_next(&bh, &st);)
        st = kernel_grad_kv(mem, s, bk, &T.P, &T.dO, &T.dV, dv, 0.0, names_dv, bh.b, bh.h, 1);
    fa_mem_kernel_barrier(mem);
    /* line 2: dP = dO V^T */
    for (fa_tile_iter bh = fa_iter_slices(mem, B, H); fa_iter_next(&bh, &st);)
        st = fa_std_rows_abt(mem, s, bk, &T.dO, &T.V, &T.dP, dv, names_dp, bh.b, bh.h, 0);
    fa_mem_kernel_barrier(mem);
    /* line 3: dS = P o (dP - D) */
    for (fa_tile_iter bh = fa_iter_slices(mem, B, H); fa_iter_next(&bh, &st);)
        st = kernel_ds(mem, s, bk, &T, bh.b, bh.h);
    fa_mem_kernel_barrier(mem);
    /* line 4: dQ = tau dS K */
    for (fa_tile_iter bh = fa_iter_slices(mem, B, H); fa_iter_next(&bh, &st);)
        st = fa_std_rows_gemm(mem, s, bk, &T.dS, &T.K, &T.dQ, d, fa_shape_scale(s), names_dq, bh.b,
                              bh.h, 0);
    fa_mem_kernel_barrier(mem);
    /* line 5: dK = tau dS^T Q */
    for (fa_tile_iter bh = fa_iter_slices(mem, B, Hk); fa_iter_next(&bh, &st);)
        st = kernel_grad_kv(mem, s, bk, &T.dS, &T.Q, &T.dK, d, fa_shape_scale(s), names_dk, bh.b,
                            bh.h, 0);
    fa_mem_restore_weight(mem, depth);
    free(dPd);
    free(dSd);
    return st;
}
