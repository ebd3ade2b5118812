/* varlen_bwd.c -- the backward pass of a variable-length batch (FlashAttention-2's
 * flash_attn_varlen backward): FlashAttention-2 backward (Dao 2023, Algorithm 2) run per
 * sequence, each with its own causal anchor.  Each sequence's rows are gathered from the packed
 * tensors into a contiguous problem (numeric mode) -- the counts are those of the same tiles on
 * row views, since a count depends only on the tile shapes.  A sequence with queries but no
 * keys has dQ = 0 (stored); a sequence with no queries has no rows and its keys get dK = dV = 0.
 * Counts: docs/inference.md, "Varlen backward". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_bwd.h"
#include "fa_infer.h"

/* dQ = 0 for the n rows of a sequence with no keys: stored tile by tile from a zeroed buffer. */
static fa_status zero_dq(fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t n, double *dQ_rows)
{
    fa_tensor t;
    fa_buf z = {0};
    const int e = fa_dtype_bytes(s->dtype);
    FA_TRY(fa_tensor_make(mem, &t, "dQ", 1, s->heads, n, s->d, e, dQ_rows));
    FA_TRY(fa_sram_alloc(mem, &z, "dQ_i", bk.block_r, s->d, 4));
    fa_status st = FA_OK;
    for (fa_tile_iter i = fa_iter_rows(mem, 1, s->heads, n, bk.block_r, 1); fa_iter_next(&i, &st);)
        st = fa_store(mem, &t, 0, i.h, i.x0, i.len, 0, s->d, &z);
    fa_sram_free(&z);
    return st;
}

fa_status fa_varlen_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const fa_varlen *vl,
                             const double *Q, const double *K, const double *V, const double *O,
                             const double *LSE, const double *dO, double *dQ, double *dK, double *dV)
{
    FA_TRY(fa_varlen_check(s, vl));
    FA_TRY(fa_blocks_check(bk));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !LSE || !dO || !dQ || !dK || !dV))
        FA_FAIL(FA_EINVAL, "varlen backward: numeric mode needs Q, K, V, O, LSE, dO, dQ, dK, dV");
    const int64_t H = s->heads, Hk = s->kv_heads, d = s->d, dv = s->d_v, Nq = s->seqlen_q, Nk = s->seqlen_k;
    if (numeric) { /* keys that no sequence's query sees still get dK = dV = 0 */
        memset(dK, 0, (size_t)(Hk * Nk * d) * sizeof *dK);
        memset(dV, 0, (size_t)(Hk * Nk * dv) * sizeof *dV);
    }
    fa_status st = FA_OK;
    for (int64_t b = 0; b < vl->nseq && !st; b++) {
        const int64_t q0 = vl->cu_q[b], nq = vl->cu_q[b + 1] - q0;
        const int64_t k0 = vl->cu_k[b], nk = vl->cu_k[b + 1] - k0;
        if (nq == 0) continue; /* no rows: nothing to differentiate, dK = dV = 0 for its keys */
        double *q = NULL, *o = NULL, *l = NULL, *go = NULL, *gq = NULL, *k = NULL, *v = NULL, *gk = NULL, *gv = NULL;
        if (numeric) {
            q = malloc((size_t)(H * nq * d) * sizeof *q);
            o = malloc((size_t)(H * nq * dv) * sizeof *o);
            l = malloc((size_t)(H * nq) * sizeof *l);
            go = malloc((size_t)(H * nq * dv) * sizeof *go);
            gq = malloc((size_t)(H * nq * d) * sizeof *gq);
            int64_t kk = nk > 0 ? nk : 1;
            k = malloc((size_t)(Hk * kk * d) * sizeof *k);
            v = malloc((size_t)(Hk * kk * dv) * sizeof *v);
            gk = malloc((size_t)(Hk * kk * d) * sizeof *gk);
            gv = malloc((size_t)(Hk * kk * dv) * sizeof *gv);
            if (!q || !o || !l || !go || !gq || !k || !v || !gk || !gv)
                st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "varlen backward: out of host memory");
        }
        if (!st && nk == 0) { /* no key: every row's dQ is 0 */
            if (numeric)
                for (int64_t x = 0; x < H * nq * d; x++) gq[x] = 0;
            st = zero_dq(mem, s, bk, nq, gq);
        } else if (!st) {
            fa_shape sb = *s;
            sb.seqlen_q = nq;
            sb.seqlen_k = nk;
            if (numeric) {
                fa_rows_copy(q, Q, H, Nq, d, q0, nq, 0);
                fa_rows_copy(o, O, H, Nq, dv, q0, nq, 0);
                fa_rows_copy(l, LSE, H, Nq, 1, q0, nq, 0);
                fa_rows_copy(go, dO, H, Nq, dv, q0, nq, 0);
                fa_rows_copy(k, K, Hk, Nk, d, k0, nk, 0);
                fa_rows_copy(v, V, Hk, Nk, dv, k0, nk, 0);
            }
            st = fa_flash2_backward(mem, &sb, bk, q, k, v, o, l, go, gq, gk, gv);
            if (!st && numeric) {
                fa_rows_copy(gk, dK, Hk, Nk, d, k0, nk, 1);
                fa_rows_copy(gv, dV, Hk, Nk, dv, k0, nk, 1);
            }
        }
        if (!st && numeric) fa_rows_copy(gq, dQ, H, Nq, d, q0, nq, 1);
        free(q);
        free(o);
        free(l);
        free(go);
        free(gq);
        free(k);
        free(v);
        free(gk);
        free(gv);
    }
    return st;
}

fa_status fa_varlen_reference_backward(const fa_shape *s, const fa_varlen *vl, const double *Q,
                                       const double *K, const double *V, const double *dO,
                                       double *dQ, double *dK, double *dV)
{
    FA_TRY(fa_varlen_check(s, vl));
    if (!Q || !K || !V || !dO || !dQ || !dK || !dV)
        FA_FAIL(FA_EINVAL, "varlen reference backward: Q, K, V, dO, dQ, dK and dV must be given");
    const int64_t H = s->heads, Hk = s->kv_heads, d = s->d, dv = s->d_v, Nq = s->seqlen_q, Nk = s->seqlen_k;
    memset(dQ, 0, (size_t)(H * Nq * d) * sizeof *dQ);
    memset(dK, 0, (size_t)(Hk * Nk * d) * sizeof *dK);
    memset(dV, 0, (size_t)(Hk * Nk * dv) * sizeof *dV);
    fa_status st = FA_OK;
    for (int64_t b = 0; b < vl->nseq && !st; b++) {
        const int64_t q0 = vl->cu_q[b], nq = vl->cu_q[b + 1] - q0;
        const int64_t k0 = vl->cu_k[b], nk = vl->cu_k[b + 1] - k0;
        if (nq == 0 || nk == 0) continue; /* dQ = 0, dK = dV = 0 */
        double *q = malloc((size_t)(H * nq * d) * sizeof *q), *go = malloc((size_t)(H * nq * dv) * sizeof *go),
               *gq = malloc((size_t)(H * nq * d) * sizeof *gq), *k = malloc((size_t)(Hk * nk * d) * sizeof *k),
               *v = malloc((size_t)(Hk * nk * dv) * sizeof *v), *gk = malloc((size_t)(Hk * nk * d) * sizeof *gk),
               *gv = malloc((size_t)(Hk * nk * dv) * sizeof *gv);
        if (!q || !go || !gq || !k || !v || !gk || !gv) {
            st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "varlen reference backward: out of host memory");
        } else {
            fa_shape sb = *s;
            sb.seqlen_q = nq;
            sb.seqlen_k = nk;
            fa_rows_copy(q, Q, H, Nq, d, q0, nq, 0);
            fa_rows_copy(go, dO, H, Nq, dv, q0, nq, 0);
            fa_rows_copy(k, K, Hk, Nk, d, k0, nk, 0);
            fa_rows_copy(v, V, Hk, Nk, dv, k0, nk, 0);
            st = fa_reference_backward(&sb, q, k, v, go, gq, gk, gv);
            if (!st) {
                fa_rows_copy(gq, dQ, H, Nq, d, q0, nq, 1);
                fa_rows_copy(gk, dK, Hk, Nk, d, k0, nk, 1);
                fa_rows_copy(gv, dV, Hk, Nk, dv, k0, nk, 1);
            }
        }
        free(q);
        free(go);
        free(gq);
        free(k);
        free(v);
        free(gk);
        free(gv);
    }
    return st;
}
