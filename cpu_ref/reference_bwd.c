/* reference_bwd.c -- the fp64 oracle of the backward pass: dQ, dK, dV by the definition
 * (fa_bwd.h), row by row, with no tiles, no memory model and no statistic from a forward run,
 * so that it is independent of every tiled backward. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_bwd.h"

/* One probability row: p[j] = softmax_j(score(tau q.k_j) + mask), with the softcap and ALiBi of
 * fa_score; ds[j] (if non-NULL) receives d score / d (q.k_j).  All 0 when no key is allowed.
 * Returns 0 for an empty row, 1 otherwise. */
static int prob_row(const fa_shape *s, int64_t h, int64_t i, const double *q, const double *k,
                    double *p, double *ds)
{
    const int64_t Nk = s->seqlen_k, d = s->d;
    double mx = -INFINITY;
    for (int64_t j = 0; j < Nk; j++) {
        if (!fa_mask_allowed(s, i, j)) {
            p[j] = -INFINITY;
            if (ds) ds[j] = 0;
            continue;
        }
        double dot = 0;
        for (int64_t c = 0; c < d; c++) dot += q[c] * k[j * d + c];
        p[j] = fa_score(s, h, i, j, dot, ds ? &ds[j] : NULL);
        if (p[j] > mx) mx = p[j];
    }
    if (mx == -INFINITY) {
        for (int64_t j = 0; j < Nk; j++) p[j] = 0;
        return 0;
    }
    double l = 0;
    for (int64_t j = 0; j < Nk; j++) {
        p[j] = p[j] == -INFINITY ? 0.0 : exp(p[j] - mx);
        l += p[j];
    }
    for (int64_t j = 0; j < Nk; j++) p[j] /= l;
    return 1;
}

fa_status fa_reference_probs(const fa_shape *s, const double *Q, const double *K, double *P)
{
    FA_TRY(fa_shape_check(s));
    if (!Q || !K || !P) FA_FAIL(FA_EINVAL, "reference probs: Q, K and P must be given");
    const int64_t Nq = s->seqlen_q, Nk = s->seqlen_k, d = s->d, g = s->heads / s->kv_heads;
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++) {
            const double *q = Q + (b * s->heads + h) * Nq * d;
            const double *k = K + (b * s->kv_heads + h / g) * Nk * d;
            double *p = P + (b * s->heads + h) * Nq * Nk;
            for (int64_t i = 0; i < Nq; i++) prob_row(s, h, i, q + i * d, k, p + i * Nk, NULL);
        }
    return FA_OK;
}

fa_status fa_reference_backward(const fa_shape *s, const double *Q, const double *K,
                                const double *V, const double *dO, double *dQ, double *dK,
                                double *dV)
{
    FA_TRY(fa_shape_check(s));
    if (!Q || !K || !V || !dO || !dQ || !dK || !dV)
        FA_FAIL(FA_EINVAL, "reference backward: Q, K, V, dO, dQ, dK and dV must be given");
    const int64_t Nq = s->seqlen_q, Nk = s->seqlen_k, d = s->d, dv = s->d_v;
    const int64_t g = s->heads / s->kv_heads;
    double *p = malloc((size_t)Nk * sizeof *p), *dp = malloc((size_t)Nk * sizeof *dp),
           *dsc = malloc((size_t)Nk * sizeof *dsc);
    if (!p || !dp || !dsc) {
        free(p);
        free(dp);
        free(dsc);
        FA_FAIL(FA_ENOMEM, "reference backward: out of host memory for %lld scores", (long long)Nk);
    }
    memset(dK, 0, (size_t)fa_numel_k(s) * sizeof *dK);
    memset(dV, 0, (size_t)fa_numel_v(s) * sizeof *dV);
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++) {
            const int64_t hk = h / g; /* GQA: the kv head this query head reads */
            const double *q = Q + (b * s->heads + h) * Nq * d;
            const double *k = K + (b * s->kv_heads + hk) * Nk * d;
            const double *v = V + (b * s->kv_heads + hk) * Nk * dv;
            const double *go = dO + (b * s->heads + h) * Nq * dv;
            double *gq = dQ + (b * s->heads + h) * Nq * d;
            double *gk = dK + (b * s->kv_heads + hk) * Nk * d; /* summed over the group */
            double *gv = dV + (b * s->kv_heads + hk) * Nk * dv;
            for (int64_t i = 0; i < Nq; i++) {
                const double *qi = q + i * d, *doi = go + i * dv;
                double *dqi = gq + i * d;
                for (int64_t c = 0; c < d; c++) dqi[c] = 0;
                if (!prob_row(s, h, i, qi, k, p, dsc)) continue; /* no allowed key: dQ = 0 */
                /* dP_ij = dO_i . V_j and D_i = sum_j P_ij dP_ij */
                double D = 0;
                for (int64_t j = 0; j < Nk; j++) {
                    double acc = 0;
                    for (int64_t c = 0; c < dv; c++) acc += doi[c] * v[j * dv + c];
                    /* dropout: O = (Z o P / (1 - p)) V, so dP = (dO V^T) o Z / (1 - p) */
                    dp[j] = acc * (fa_dropout_keep(s, b, h, i, j) ? 1.0 / (1.0 - s->dropout_p) : 0.0);
                    D += p[j] * dp[j];
                }
                for (int64_t j = 0; j < Nk; j++) {
                    if (p[j] == 0.0) continue; /* masked (or underflowed): dS = 0, dV += 0 */
                    /* dS_ij, times d score / d (q.k): tau, or tau (1 - tanh^2) under a softcap */
                    double ds = p[j] * (dp[j] - D) * dsc[j];
                    double pz = p[j] * (fa_dropout_keep(s, b, h, i, j) ? 1.0 / (1.0 - s->dropout_p) : 0.0);
                    for (int64_t c = 0; c < dv; c++) gv[j * dv + c] += pz * doi[c]; /* dV += P_drop^T dO */
                    for (int64_t c = 0; c < d; c++) {
                        dqi[c] += ds * k[j * d + c];      /* dQ = tau dS K */
                        gk[j * d + c] += ds * qi[c];      /* dK = tau dS^T Q */
                    }
                }
            }
        }
    free(p);
    free(dp);
    free(dsc);
    return FA_OK;
}
