/* standard.c -- standard attention, Algorithm 0 of Dao et al. 2022 (arXiv 2205.14135), as the
 * three kernels an unfused implementation launches, each tiled under the same SRAM size M:
 *   (1) S = scale Q K^T      per row block Q_i (loaded once): for each K_j, S_ij -> HBM  (line 1)
 *   (2) P = softmax(S)       per row block: if a row fits one tile (N_k <= B_c), read S_i once;
 *                            otherwise pass 1 reads S_ij for the row max m and sum l, pass 2
 *                            reads S_ij again and writes P_ij = exp(S_ij - m) / l       (line 2)
 *   (3) O = P V              per row block: for each j load P_ij and V_j, accumulate O_i (line 3)
 * S and P are materialised for every (i, j), masked entries included: the unfused baseline
 * has no tile skipping (as PyTorch's math backend).  The Theta(Nd + N^2) idealisation of
 * Theorem 2 counts S and P once each way; this version also counts the GEMM operand re-reads
 * (K and V read T_r times) and the second pass over S (docs/io-model.md, "standard"). */
#include <math.h>
#include <stdlib.h>

#include "fa_attn.h"
#include "fa_bwd.h"
#include "fa_numerics.h"

fa_status fa_std_rows_abt(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *X, fa_tensor *Y,
                          fa_tensor *C, int64_t n, const char *const names[3], int64_t b, int64_t h,
                          int scores)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br);
    const int64_t hk = h / (s->heads / s->kv_heads);
    const int e = fa_dtype_bytes(s->dtype);
    fa_buf Xi = {0}, Yj = {0}, Cij = {0};
    fa_mask_io mk = {0};
    fa_status st = fa_sram_alloc(mem, &Xi, names[0], Br, n, e);
    if (!st) st = fa_sram_alloc(mem, &Yj, names[1], Bc, n, e);
    if (!st) st = fa_sram_alloc(mem, &Cij, names[2], Br, Bc, 4);
    if (!st && scores) st = fa_mask_io_init(mem, s, bk, &mk);
    for (fa_tile_iter i = fa_iter_rows(mem, 1, 1, s->seqlen_q, Br, 1); fa_iter_next(&i, &st);) {
        const int64_t r0 = i.x0, rows = i.len;
        fa_mem_set_program(mem, (b * s->heads + h) * T_r + i.t); /* a thread block per row block */
        if (!st) st = fa_load(mem, X, b, h, r0, rows, 0, n, &Xi);
        for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1); fa_iter_next(&j, &st);) {
            const int64_t c0 = j.x0, cols = j.len;
            if (!st) st = fa_load(mem, Y, b, hk, c0, cols, 0, n, &Yj);
            if (!st) st = fa_tile_matmul_abt(mem, Cij.data, Bc, Xi.data, n, Yj.data, n, rows, cols, n, 0);
            if (scores) {
                if (!st) st = fa_mask_io_load(mem, &mk, r0, rows, c0, cols);
                if (!st) st = fa_tile_scores(mem, s, h, Cij.data, Bc, NULL, r0, rows, c0, cols);
                if (!st) fa_tile_num_scores(mem, Cij.data, Bc, rows, cols); /* emulated precision */
            } else if (!st) {
                st = fa_tile_dropout(mem, s, b, h, Cij.data, Bc, r0, rows, c0, cols);
            }
            if (!st) st = fa_store(mem, C, b, h, r0, rows, c0, cols, &Cij);
        }
    }
    fa_sram_free(&Xi);
    fa_sram_free(&Yj);
    fa_sram_free(&Cij);
    fa_mask_io_free(&mk);
    return st;
}

/* Kernel 2, for slice (b, h): line 2, P = softmax(S) row-wise; masked entries are -inf in S. */
static fa_status kernel_p(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *S,
                          fa_tensor *P, int64_t b, int64_t h)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
    fa_buf Sij = {0}, m = {0}, l = {0};
    fa_status st = fa_sram_alloc(mem, &Sij, "S_ij", Br, Bc, 4);
    if (!st) st = fa_sram_alloc(mem, &m, "m_i", Br, 1, 4);
    if (!st) st = fa_sram_alloc(mem, &l, "l_i", Br, 1, 4);
    for (fa_tile_iter i = fa_iter_rows(mem, 1, 1, s->seqlen_q, Br, 1); fa_iter_next(&i, &st);) {
        const int64_t r0 = i.x0, rows = i.len;
        fa_mem_set_program(mem, (b * s->heads + h) * T_r + i.t); /* a thread block per row block */
        if (!st && m.data)
            for (int64_t r = 0; r < rows; r++) {
                m.data[r] = -INFINITY;
                l.data[r] = 0;
            }
        /* pass 1 (only when a row spans several tiles): running max and sum over S_i */
        for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1);
             T_c > 1 && fa_iter_next(&j, &st);) {
            const int64_t c0 = j.x0, cols = j.len;
            if (!st) st = fa_load(mem, S, b, h, r0, rows, c0, cols, &Sij);
            /* rowmax r*c, exp(S - m) 2*r*c, sum r*c; rescale of l: 2 exp-subs + mul + add = 4r */
            if (!st) st = fa_count_flops(mem, 0, 4u * (uint64_t)rows * (uint64_t)cols + 4u * (uint64_t)rows);
            for (int64_t r = 0; !st && Sij.data && r < rows; r++) {
                const double *row = Sij.data + r * Bc;
                double mx = m.data[r];
                for (int64_t c = 0; c < cols; c++) if (row[c] > mx) mx = row[c];
                double sum = 0;
                for (int64_t c = 0; c < cols; c++) sum += fa_num_exp(mem, row[c], mx);
                l.data[r] = fa_num_exp(mem, m.data[r], mx) * l.data[r] + sum;
                m.data[r] = mx;
            }
        }
        /* pass 2 (the only pass when T_c == 1): P_ij = exp(S_ij - m) / l */
        for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1); fa_iter_next(&j, &st);) {
            const int64_t c0 = j.x0, cols = j.len;
            if (!st) st = fa_load(mem, S, b, h, r0, rows, c0, cols, &Sij);
            if (!st && T_c == 1) { /* one pass: max and sum from this very tile */
                st = fa_count_flops(mem, 0, 4u * (uint64_t)rows * (uint64_t)cols);
                for (int64_t r = 0; !st && Sij.data && r < rows; r++) {
                    const double *row = Sij.data + r * Bc;
                    double mx = -INFINITY, sum = 0;
                    for (int64_t c = 0; c < cols; c++) if (row[c] > mx) mx = row[c];
                    for (int64_t c = 0; c < cols; c++) sum += fa_num_exp(mem, row[c], mx);
                    m.data[r] = mx;
                    l.data[r] = sum;
                }
            }
            /* exp(S - m) 2*r*c and the division r*c */
            if (!st) st = fa_count_flops(mem, 0, 3u * (uint64_t)rows * (uint64_t)cols);
            for (int64_t r = 0; !st && Sij.data && r < rows; r++) {
                double *row = Sij.data + r * Bc;
                for (int64_t c = 0; c < cols; c++)
                    row[c] = l.data[r] != 0 ? fa_num_exp(mem, row[c], m.data[r]) / l.data[r] : 0.0;
            }
            if (!st) st = fa_store(mem, P, b, h, r0, rows, c0, cols, &Sij);
        }
    }
    fa_sram_free(&Sij);
    fa_sram_free(&m);
    fa_sram_free(&l);
    return st;
}

fa_status fa_std_rows_gemm(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *A, fa_tensor *Bm,
                           fa_tensor *C, int64_t n, double a, const char *const names[3], int64_t b,
                           int64_t h, int drop)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br);
    const int64_t hk = h / (s->heads / s->kv_heads);
    const int e = fa_dtype_bytes(s->dtype);
    fa_buf Aij = {0}, Bj = {0}, Ci = {0};
    fa_status st = fa_sram_alloc(mem, &Aij, names[0], Br, Bc, 4);
    if (!st) st = fa_sram_alloc(mem, &Bj, names[1], Bc, n, e);
    if (!st) st = fa_sram_alloc(mem, &Ci, names[2], Br, n, 4);
    for (fa_tile_iter i = fa_iter_rows(mem, 1, 1, s->seqlen_q, Br, 1); fa_iter_next(&i, &st);) {
        const int64_t r0 = i.x0, rows = i.len;
        fa_mem_set_program(mem, (b * s->heads + h) * T_r + i.t); /* a thread block per row block */
        for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, Bc, 1); fa_iter_next(&j, &st);) {
            const int64_t c0 = j.x0, cols = j.len;
            if (!st) st = fa_load(mem, A, b, h, r0, rows, c0, cols, &Aij);
            if (!st && drop) st = fa_tile_dropout(mem, s, b, h, Aij.data, Bc, r0, rows, c0, cols);
            if (!st) st = fa_load(mem, Bm, b, hk, c0, cols, 0, n, &Bj);
            if (!st && drop) fa_tile_round_p(mem, Aij.data, Bc, rows, cols); /* P operand in the dtype */
            if (!st) st = fa_tile_matmul_ab(mem, Ci.data, n, Aij.data, Bc, Bj.data, n, rows, n, cols, j.t > 0);
        }
        if (!st && a > 0) st = fa_tile_scale(mem, Ci.data, n, rows, n, a);
        if (!st) st = fa_store(mem, C, b, h, r0, rows, 0, n, &Ci);
    }
    fa_sram_free(&Aij);
    fa_sram_free(&Bj);
    fa_sram_free(&Ci);
    return st;
}

fa_status fa_standard_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                              const double *K, const double *V, double *O)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O))
        FA_FAIL(FA_EINVAL, "standard: numeric mode needs Q, K, V and O");
    const int e = fa_dtype_bytes(s->dtype);
    double *Sd = NULL, *Pd = NULL;
    if (numeric) {
        size_t n = (size_t)s->batch * (size_t)s->heads * (size_t)s->seqlen_q * (size_t)s->seqlen_k;
        Sd = malloc(n * sizeof(double));
        Pd = malloc(n * sizeof(double));
        if (!Sd || !Pd) {
            free(Sd);
            free(Pd);
            FA_FAIL(FA_ENOMEM, "standard: out of host memory for S and P (%zu elements each)", n);
        }
    }
    fa_tensor tQ, tK, tV, tO, tS, tP;
    fa_status st = fa_tensor_make(mem, &tQ, "Q", s->batch, s->heads, s->seqlen_q, s->d, e,
                                  numeric ? (double *)Q : NULL);
    if (!st) st = fa_tensor_make(mem, &tK, "K", s->batch, s->kv_heads, s->seqlen_k, s->d, e,
                                 numeric ? (double *)K : NULL);
    if (!st) st = fa_tensor_make(mem, &tV, "V", s->batch, s->kv_heads, s->seqlen_k, s->d_v, e,
                                 numeric ? (double *)V : NULL);
    if (!st) st = fa_tensor_make(mem, &tO, "O", s->batch, s->heads, s->seqlen_q, s->d_v, e, O);
    if (!st) st = fa_tensor_make(mem, &tS, "S", s->batch, s->heads, s->seqlen_q, s->seqlen_k, e, Sd);
    if (!st) st = fa_tensor_make(mem, &tP, "P", s->batch, s->heads, s->seqlen_q, s->seqlen_k, e, Pd);
    int depth = fa_mem_weight_depth(mem);
    static const char *const names_s[3] = {"Q_i", "K_j", "S_ij"};
    static const char *const names_o[3] = {"P_ij", "V_j", "O_i"};
    /* Each kernel runs over all (batch, head) slices before the next one starts. */
    /* kernel 1, line 1: S = scale Q K^T */
    for (fa_tile_iter bh = fa_iter_slices(mem, s->batch, s->heads); fa_iter_next(&bh, &st);)
        st = fa_std_rows_abt(mem, s, bk, &tQ, &tK, &tS, s->d, names_s, bh.b, bh.h, 1);
    fa_mem_kernel_barrier(mem);
    for (fa_tile_iter bh = fa_iter_slices(mem, s->batch, s->heads); fa_iter_next(&bh, &st);)
        st = kernel_p(mem, s, bk, &tS, &tP, bh.b, bh.h);
    fa_mem_kernel_barrier(mem);
    /* kernel 3, line 3: O = P V */
    for (fa_tile_iter bh = fa_iter_slices(mem, s->batch, s->heads); fa_iter_next(&bh, &st);)
        st = fa_std_rows_gemm(mem, s, bk, &tP, &tV, &tO, s->d_v, 0, names_o, bh.b, bh.h, 1);
    fa_mem_restore_weight(mem, depth);
    free(Sd);
    free(Pd);
    return st;
}
