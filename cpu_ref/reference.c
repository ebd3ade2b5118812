/* reference.c -- the fp64 oracle: O = softmax(scale Q K^T + mask) V computed row by row with
 * no tiles and no memory model, so that it is independent of every tiled algorithm. */
#include <math.h>
#include <stdlib.h>

#include "fa_attn.h"

fa_status fa_reference_forward(const fa_shape *s, const double *Q, const double *K,
                               const double *V, double *O, double *LSE)
{
    FA_TRY(fa_shape_check(s));
    if (!Q || !K || !V || !O) FA_FAIL(FA_EINVAL, "reference: Q, K, V and O must be given");
    const int64_t Nq = s->seqlen_q, Nk = s->seqlen_k, d = s->d, dv = s->d_v;
    const int64_t group = s->heads / s->kv_heads;
    double *p = malloc((size_t)Nk * sizeof *p);
    if (!p) FA_FAIL(FA_ENOMEM, "reference: out of host memory for %lld scores", (long long)Nk);
    for (int64_t b = 0; b < s->batch; b++) {
        for (int64_t h = 0; h < s->heads; h++) {
            int64_t hk = h / group;
            const double *q = Q + (b * s->heads + h) * Nq * d;
            const double *k = K + (b * s->kv_heads + hk) * Nk * d;
            const double *v = V + (b * s->kv_heads + hk) * Nk * dv;
            double *o = O + (b * s->heads + h) * Nq * dv;
            for (int64_t i = 0; i < Nq; i++) {
                double mx = -INFINITY;
                for (int64_t j = 0; j < Nk; j++) {
                    if (!fa_mask_allowed(s, i, j)) {
                        p[j] = -INFINITY;
                        continue;
                    }
                    double dot = 0;
                    for (int64_t c = 0; c < d; c++) dot += q[i * d + c] * k[j * d + c];
                    p[j] = fa_score(s, h, i, j, dot, NULL); /* scale, softcap, ALiBi */
                    if (p[j] > mx) mx = p[j];
                }
                double *orow = o + i * dv;
                for (int64_t c = 0; c < dv; c++) orow[c] = 0;
                if (mx == -INFINITY) { /* no allowed key: O = 0, LSE = -inf */
                    if (LSE) LSE[(b * s->heads + h) * Nq + i] = -INFINITY;
                    continue;
                }
                double l = 0;
                for (int64_t j = 0; j < Nk; j++) {
                    if (p[j] == -INFINITY) continue;
                    double e = exp(p[j] - mx);
                    l += e; /* the softmax sum is taken before dropout */
                    double z = fa_dropout_keep(s, b, h, i, j) ? 1.0 / (1.0 - s->dropout_p) : 0.0;
                    for (int64_t c = 0; c < dv; c++) orow[c] += e * z * v[j * dv + c];
                }
                for (int64_t c = 0; c < dv; c++) orow[c] /= l;
                if (LSE) LSE[(b * s->heads + h) * Nq + i] = mx + log(l);
            }
        }
    }
    free(p);
    return FA_OK;
}
