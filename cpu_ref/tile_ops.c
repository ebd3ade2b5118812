/* tile_ops.c -- the tile operations every algorithm shares: products, scale and mask, the
 * online-softmax update, and the outer K/V loop of the FlashAttention backwards.  Each one
 * reports its FLOPs to the memory model and, in count-only mode (NULL data), computes nothing.
 * They call the low-precision hooks of numerics.c; calls go one way (nothing there calls back
 * here).  FLOP conventions: docs/io-model.md, "FLOPs". */
#include <math.h>

#include "fa_attn.h"
#include "fa_numerics.h"

#define acc_fmt fa_num_acc

fa_status fa_tile_matmul_abt(fa_mem *mem, double *C, int64_t ldc, const double *A, int64_t lda,
                             const double *B, int64_t ldb, int64_t m, int64_t n, int64_t k,
                             int accumulate)
{
    FA_TRY(fa_count_flops(mem, 2u * (uint64_t)m * (uint64_t)n * (uint64_t)k, 0));
    if (!C) return FA_OK;
    const fa_format af = acc_fmt(mem);
    for (int64_t i = 0; i < m; i++) {
        const double *a = A + i * lda;
        for (int64_t j = 0; j < n; j++) {
            const double *b = B + j * ldb;
            double acc = 0;
            if (af != FA_FMT_FP64) { /* emulated: the accumulator rounds after every multiply-add */
                acc = accumulate ? C[i * ldc + j] : 0.0;
                for (int64_t p = 0; p < k; p++) acc = fa_round(acc + a[p] * b[p], af);
                C[i * ldc + j] = acc;
                continue;
            }
            for (int64_t p = 0; p < k; p++) acc += a[p] * b[p];
            C[i * ldc + j] = accumulate ? C[i * ldc + j] + acc : acc;
        }
    }
    return FA_OK;
}

fa_status fa_tile_matmul_ab(fa_mem *mem, double *C, int64_t ldc, const double *A, int64_t lda,
                            const double *B, int64_t ldb, int64_t m, int64_t n, int64_t k,
                            int accumulate)
{
    FA_TRY(fa_count_flops(mem, 2u * (uint64_t)m * (uint64_t)n * (uint64_t)k, 0));
    if (!C) return FA_OK;
    for (int64_t i = 0; i < m; i++) {
        double *c = C + i * ldc;
        if (!accumulate)
            for (int64_t j = 0; j < n; j++) c[j] = 0;
        const fa_format af = acc_fmt(mem);
        for (int64_t p = 0; p < k; p++) {
            double a = A[i * lda + p];
            /* a zero weight (a masked P entry) adds nothing, even when B holds inf or NaN */
            if (a == 0) continue;
            const double *b = B + p * ldb;
            if (af != FA_FMT_FP64)
                for (int64_t j = 0; j < n; j++) c[j] = fa_round(c[j] + a * b[j], af);
            else
                for (int64_t j = 0; j < n; j++) c[j] += a * b[j];
        }
    }
    return FA_OK;
}

void fa_tile_mask(const fa_mem *mem, const fa_shape *s, double *S, int64_t lds, int64_t r0,
                  int64_t rows, int64_t c0, int64_t cols)
{
    (void)mem;
    if (!S || s->causal == FA_CAUSAL_NONE) return;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            if (!fa_mask_allowed(s, r0 + i, c0 + j)) S[i * lds + j] = -INFINITY;
}

fa_status fa_tile_scale_mask(fa_mem *mem, const fa_shape *s, double *S, int64_t lds, int64_t r0,
                             int64_t rows, int64_t c0, int64_t cols, double scale)
{
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)cols));
    if (!S) return FA_OK;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) S[i * lds + j] *= scale;
    if (fa_tile_classify(s, r0, rows, c0, cols) != FA_TILE_FULL)
        fa_tile_mask(mem, s, S, lds, r0, rows, c0, cols);
    return FA_OK;
}

fa_status fa_tile_online_softmax(fa_mem *mem, double *S, int64_t lds, double *m, double *l,
                                 double *O, int64_t ldo, int64_t rows, int64_t cols, int64_t dv)
{
    return fa_tile_online_softmax_cond(mem, S, lds, m, l, O, ldo, rows, cols, dv, 0.0, NULL);
}

fa_status fa_tile_online_softmax_cond(fa_mem *mem, double *S, int64_t lds, double *m, double *l,
                                      double *O, int64_t ldo, int64_t rows, int64_t cols, int64_t dv,
                                      double tau, int *rescaled)
{
    if (!(tau >= 0 && isfinite(tau)))
        FA_FAIL(FA_EINVAL, "rescale threshold tau = %g must be a finite number >= 0", tau);
    uint64_t r = (uint64_t)rows, c = (uint64_t)cols;
    /* rowmax r*c, exp(S - m) 2*r*c, rowsum r*c; alpha 2r, l update 2r, m update r; O rescale r*dv */
    FA_TRY(fa_count_flops(mem, 0, 4 * r * c + 5 * r + r * (uint64_t)dv));
    if (rescaled) *rescaled = 1; /* tau = 0 and count-only mode: every tile rescales */
    if (!S) return FA_OK;
    /* the max's growth in log2 units: scores are natural-log units unless exp2 folded log2(e) in */
    const double to_log2 = fa_mem_numerics(mem)->exp2 ? 1.0 : FA_LOG2E;
    int any = 0;
    for (int64_t i = 0; i < rows; i++) {
        double *srow = S + i * lds;
        double mx = m[i];
        for (int64_t j = 0; j < cols; j++)
            if (srow[j] > mx) mx = srow[j];
        /* FlashAttention-4: keep the stale max while it lags by at most tau (P <= 2^tau) */
        if (tau > 0 && m[i] != -INFINITY && (mx - m[i]) * to_log2 <= tau) mx = m[i];
        if (mx != m[i]) any = 1; /* the row moved its max (its first real score included) */
        /* fp64 unless emulating: then every operation rounds to the accumulator format */
        const fa_format af = acc_fmt(mem);
        double sum = 0;
        for (int64_t j = 0; j < cols; j++) {
            srow[j] = fa_num_exp(mem, srow[j], mx);
            sum = fa_round(sum + srow[j], af);
        }
        /* the running max stays -inf until a real score arrives (never 0): alpha = 0 then */
        double alpha = fa_num_exp(mem, m[i], mx); /* 0 when m[i] = -inf */
        if (mx == -INFINITY) alpha = 1.0;           /* nothing seen yet: l = 0, O = 0 stay */
        l[i] = fa_round(fa_round(alpha * l[i], af) + sum, af);
        double *orow = O + i * ldo;
        for (int64_t j = 0; j < dv; j++) orow[j] = fa_round(orow[j] * alpha, af);
        m[i] = mx;
    }
    if (rescaled && tau > 0) *rescaled = any;
    return FA_OK;
}

/* ---- tile operations of the backward pass (declared in fa_bwd.h) ---- */
#include "fa_bwd.h"

fa_status fa_tile_matmul_atb(fa_mem *mem, double *C, int64_t ldc, const double *A, int64_t lda,
                             const double *B, int64_t ldb, int64_t m, int64_t n, int64_t k,
                             int accumulate)
{
    FA_TRY(fa_count_flops(mem, 2u * (uint64_t)m * (uint64_t)n * (uint64_t)k, 0));
    if (!C) return FA_OK;
    for (int64_t i = 0; i < m; i++) {
        double *c = C + i * ldc;
        if (!accumulate)
            for (int64_t j = 0; j < n; j++) c[j] = 0;
        const fa_format af = acc_fmt(mem);
        for (int64_t p = 0; p < k; p++) {
            double a = A[p * lda + i];
            if (a == 0) continue; /* a masked P entry adds nothing, even to inf or NaN */
            const double *b = B + p * ldb;
            if (af != FA_FMT_FP64)
                for (int64_t j = 0; j < n; j++) c[j] = fa_round(c[j] + a * b[j], af);
            else
                for (int64_t j = 0; j < n; j++) c[j] += a * b[j];
        }
    }
    return FA_OK;
}

void fa_tile_pad(double *X, int64_t ld, int64_t cap_rows, int64_t rows, int64_t cols, double v)
{
    if (!X) return;
    for (int64_t r = 0; r < cap_rows; r++)
        for (int64_t c = (r < rows ? cols : 0); c < ld; c++) X[r * ld + c] = v;
}

fa_status fa_tile_exp_lse(fa_mem *mem, double *S, int64_t lds, int64_t cap_rows, const double *L,
                          int64_t rows, int64_t cols)
{
    FA_TRY(fa_count_flops(mem, 0, 2u * (uint64_t)rows * (uint64_t)cols));
    if (!S) return FA_OK;
    const int e2 = fa_mem_numerics(mem)->exp2; /* S in log2 units: P = exp2(S - L log2(e)) */
    for (int64_t r = 0; r < cap_rows; r++)
        for (int64_t c = 0; c < lds; c++) {
            double *x = S + r * lds + c;
            /* pad and masked entries are -inf: exactly 0, whatever L holds (-inf included) */
            *x = (r < rows && c < cols) ? fa_num_exp(mem, *x, e2 ? L[r] * FA_LOG2E : L[r]) : 0.0;
        }
    return FA_OK;
}

fa_status fa_tile_rowdot(fa_mem *mem, double *D, const double *A, int64_t lda, const double *B,
                         int64_t ldb, int64_t rows, int64_t cols)
{
    FA_TRY(fa_count_flops(mem, 0, 2u * (uint64_t)rows * (uint64_t)cols));
    if (!D) return FA_OK;
    for (int64_t r = 0; r < rows; r++) {
        double acc = 0;
        for (int64_t c = 0; c < cols; c++) acc += A[r * lda + c] * B[r * ldb + c];
        D[r] = acc;
    }
    return FA_OK;
}

fa_status fa_tile_dsoftmax(fa_mem *mem, double *dP, int64_t ldp, const double *P, int64_t ldpp,
                           const double *D, int64_t rows, int64_t cols, double scale)
{
    uint64_t rc = (uint64_t)rows * (uint64_t)cols;
    FA_TRY(fa_count_flops(mem, 0, (scale != 1.0 ? 3u : 2u) * rc));
    if (!dP) return FA_OK;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            double *x = dP + r * ldp + c;
            /* P = 0 (masked) gives dS = 0 exactly, whatever dP - D is */
            *x = P[r * ldpp + c] * (*x - D[r]) * scale;
        }
    return FA_OK;
}

fa_status fa_tile_scale(fa_mem *mem, double *X, int64_t ldx, int64_t rows, int64_t cols, double a)
{
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)cols));
    if (!X) return FA_OK;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) X[r * ldx + c] *= a;
    return FA_OK;
}

fa_status fa_tile_scores(fa_mem *mem, const fa_shape *s, int64_t h, double *S, int64_t lds,
                         fa_buf *Fb, int64_t r0, int64_t rows, int64_t c0, int64_t cols)
{
    uint64_t rc = (uint64_t)rows * (uint64_t)cols;
    double *F = Fb ? Fb->data : NULL;
    const int64_t ldf = Fb ? Fb->cols : 0;
    /* scale: 1 per score; softcap: divide, tanh, multiply (3); ALiBi: distance x slope, add (2);
     * the softcap derivative 1 - t^2 and its product with the scale: 3 more */
    uint64_t per = 1 + (s->softcap > 0 ? 3u : 0u) + (s->alibi ? 2u : 0u) + (Fb && s->softcap > 0 ? 3u : 0u);
    FA_TRY(fa_count_flops(mem, 0, per * rc));
    if (!S) return FA_OK;
    const int full = fa_tile_classify(s, r0, rows, c0, cols) == FA_TILE_FULL;
    const double tau = fa_shape_scale(s);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double *x = S + i * lds + j;
            if (full && s->softcap <= 0 && !s->alibi) { /* the common case: scale only */
                *x *= tau;
                if (F) F[i * ldf + j] = tau;
                continue;
            }
            double dsc;
            *x = fa_score(s, h, r0 + i, c0 + j, *x, &dsc);
            if (F) F[i * ldf + j] = dsc;
        }
    return FA_OK;
}

fa_status fa_tile_mul(fa_mem *mem, double *X, int64_t ldx, const double *F, int64_t ldf,
                      int64_t rows, int64_t cols)
{
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)cols));
    if (!X) return FA_OK;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) X[r * ldx + c] *= F[r * ldf + c];
    return FA_OK;
}

fa_status fa_tile_dropout(fa_mem *mem, const fa_shape *s, int64_t b, int64_t h, double *X,
                          int64_t ldx, int64_t r0, int64_t rows, int64_t c0, int64_t cols)
{
    if (!(s->dropout_p > 0)) return FA_OK;
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)cols));
    if (!X) return FA_OK;
    const double keep_scale = 1.0 / (1.0 - s->dropout_p);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            X[i * ldx + j] *= fa_dropout_keep(s, b, h, r0 + i, c0 + j) ? keep_scale : 0.0;
    return FA_OK;
}

void fa_buf_zero(fa_buf *b)
{
    for (int64_t k = 0; b->data && k < b->rows * b->cols; k++) b->data[k] = 0;
}

/* The outer loop both FlashAttention backwards share (fa_bwd.h): FA1 is Dao et al. 2022
 * Algorithm 4, FA2 is Dao 2023 Algorithm 2; their lines side by side below.  The iterators
 * (fa_attn.h) merge the runs of identical K/V tiles and row blocks and the g query heads of a
 * GQA group, and leave out the row blocks that see nothing of the tile (fa_q_span). */
fa_status fa_bwd_kv_slice(fa_mem *mem, const fa_shape *s, fa_blocks bk, const fa_bwd_kv_loop *L,
                          int64_t b, int64_t hk)
{
    const int64_t d = s->d, dv = s->d_v, g = s->heads / s->kv_heads;
    const int64_t T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    fa_status st = FA_OK;
    /* FA1 Alg. 4 line 6, FA2 Alg. 2 line 5: for 1 <= j <= T_c */
    for (fa_tile_iter j = fa_iter_rows(mem, 1, 1, s->seqlen_k, bk.block_c, !fa_has_mask(s));
         fa_iter_next(&j, &st);) {
        const int64_t c0 = j.x0, cols = j.len;
        /* the row blocks of the group's g query heads that see K_j */
        fa_tile_iter i = fa_iter_q(mem, s, g, c0, cols, bk.block_r);
        if (L->program_per_tile) fa_mem_set_program(mem, (b * s->kv_heads + hk) * T_c + j.t);
        fa_buf_zero(L->dKj); /* FA1 Alg. 4 line 8, FA2 Alg. 2 line 7: dK_j = dV_j = 0 on chip */
        fa_buf_zero(L->dVj);
        if (!fa_iter_empty(&i)) { /* a K/V tile no row may see is never loaded: dK_j = dV_j = 0 */
            /* FA1 Alg. 4 line 7, FA2 Alg. 2 line 6: load K_j, V_j */
            FA_TRY(fa_load(mem, L->K, b, hk, c0, cols, 0, d, L->Kj));
            FA_TRY(fa_load(mem, L->V, b, hk, c0, cols, 0, dv, L->Vj));
        }
        while (fa_iter_next(&i, &st)) /* FA1 Alg. 4 line 9, FA2 Alg. 2 line 8 */
            /* the loop body: FA1 Alg. 4 lines 10-22, FA2 Alg. 2 lines 9-16 */
            FA_TRY(L->step(mem, L->ctx, b, hk * g + i.h, i.t, c0, cols));
        FA_TRY(st);
        /* FA1 Alg. 4 line 24, FA2 Alg. 2 line 18: write dK_j, dV_j to HBM */
        FA_TRY(fa_store(mem, L->dK, b, hk, c0, cols, 0, d, L->dKj));
        FA_TRY(fa_store(mem, L->dV, b, hk, c0, cols, 0, dv, L->dVj));
    }
    return st;
}
