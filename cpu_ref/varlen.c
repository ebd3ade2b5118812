/* varlen.c -- variable-length batches: sequences packed along the row axis with cumulative
 * offsets cu_seqlens (as FlashAttention's flash_attn_varlen_func), each run as its own
 * FlashAttention-2 problem on row views of the packed tensors.  Counts: docs/inference.md. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_infer_impl.h"

static fa_status check_cu(const char *name, const int64_t *cu, int64_t nseq, int64_t total)
{
    if (!cu) FA_FAIL(FA_EINVAL, "%s is missing", name);
    if (cu[0] != 0) FA_FAIL(FA_EINVAL, "%s[0] = %" PRId64 " must be 0", name, cu[0]);
    for (int64_t b = 0; b < nseq; b++)
        if (cu[b + 1] < cu[b])
            FA_FAIL(FA_EINVAL, "%s is not non-decreasing: %s[%" PRId64 "] = %" PRId64
                    " < %s[%" PRId64 "] = %" PRId64, name, name, b + 1, cu[b + 1], name, b, cu[b]);
    if (cu[nseq] != total)
        FA_FAIL(FA_EINVAL, "%s ends at %" PRId64 " but the packed tensor has %" PRId64 " rows",
                name, cu[nseq], total);
    return FA_OK;
}

fa_status fa_varlen_check(const fa_shape *s, const fa_varlen *vl)
{
    FA_TRY(fa_shape_check(s));
    if (!vl || vl->nseq < 1) FA_FAIL(FA_EINVAL, "a varlen batch needs at least one sequence");
    if (s->batch != 1)
        FA_FAIL(FA_EINVAL, "a varlen batch packs its sequences along the rows: batch = %" PRId64
                " must be 1", s->batch);
    FA_TRY(check_cu("cu_seqlens_q", vl->cu_q, vl->nseq, s->seqlen_q));
    return check_cu("cu_seqlens_k", vl->cu_k, vl->nseq, s->seqlen_k);
}

fa_status fa_varlen_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk,
                            const fa_infer_opts *opt, const fa_varlen *vl, const double *Q,
                            const double *K, const double *V, double *O, double *LSE)
{
    FA_TRY(fa_varlen_check(s, vl));
    fa_infer_opts o = opt ? *opt : fa_infer_opts_default();
    if (o.page_size != 0) FA_FAIL(FA_EINVAL, "varlen: a paged KV cache is not supported here");
    FA_TRY(fa_infer_opts_check(s, bk, &o, vl));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !LSE))
        FA_FAIL(FA_EINVAL, "varlen: numeric mode needs Q, K, V, O and LSE");
    const int e = fa_dtype_bytes(s->dtype);
    infer_eng E;
    memset(&E, 0, sizeof E);
    E.s = s;
    E.bk = bk;
    E.opt = o;
    E.vl = vl;
    double *Op = NULL, *Lp = NULL;
    fa_status st = fa_tensor_make(mem, &E.Q, "Q", 1, s->heads, s->seqlen_q, s->d, e,
                                  numeric ? (double *)Q : NULL);
    if (!st) st = fa_tensor_make(mem, &E.K, "K", 1, s->kv_heads, s->seqlen_k, s->d, e,
                                 numeric ? (double *)K : NULL);
    if (!st) st = fa_tensor_make(mem, &E.V, "V", 1, s->kv_heads, s->seqlen_k, s->d_v, e,
                                 numeric ? (double *)V : NULL);
    if (!st) st = infer_make_outputs(mem, &E, 1, s->seqlen_q, O, LSE, &Op, &Lp);
    if (!st) st = infer_run(mem, &E);
    free(Op);
    free(Lp);
    return st;
}

void fa_rows_copy(double *dst, const double *src, int64_t H, int64_t total, int64_t D, int64_t r0,
                  int64_t n, int back)
{
    for (int64_t h = 0; h < H; h++)
        for (int64_t r = 0; r < n; r++) {
            double *a = dst + (h * n + r) * D;
            double *p = (double *)src + (h * total + r0 + r) * D;
            if (back) memcpy(p, a, (size_t)D * sizeof *a);
            else memcpy(a, p, (size_t)D * sizeof *a);
        }
}

fa_status fa_varlen_reference_forward(const fa_shape *s, const fa_varlen *vl, const double *Q,
                                      const double *K, const double *V, double *O, double *LSE)
{
    FA_TRY(fa_varlen_check(s, vl));
    if (!Q || !K || !V || !O) FA_FAIL(FA_EINVAL, "varlen reference: Q, K, V and O must be given");
    const int64_t H = s->heads, Hk = s->kv_heads, d = s->d, dv = s->d_v;
    fa_status st = FA_OK;
    for (int64_t b = 0; b < vl->nseq && !st; b++) {
        const int64_t q0 = vl->cu_q[b], nq = vl->cu_q[b + 1] - q0;
        const int64_t k0 = vl->cu_k[b], nk = vl->cu_k[b + 1] - k0;
        if (nq == 0) continue;
        double *q = malloc((size_t)(H * nq * d) * sizeof *q), *o = malloc((size_t)(H * nq * dv) * sizeof *o),
               *l = malloc((size_t)(H * nq) * sizeof *l);
        double *k = malloc((size_t)(Hk * (nk > 0 ? nk : 1) * d) * sizeof *k),
               *v = malloc((size_t)(Hk * (nk > 0 ? nk : 1) * dv) * sizeof *v);
        if (!q || !o || !l || !k || !v) {
            st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "varlen reference: out of host memory");
        } else if (nk == 0) { /* no key at all: every row is empty */
            for (int64_t x = 0; x < H * nq * dv; x++) o[x] = 0;
            for (int64_t x = 0; x < H * nq; x++) l[x] = -INFINITY;
        } else {
            fa_shape sb = *s;
            sb.seqlen_q = nq;
            sb.seqlen_k = nk;
            fa_rows_copy(q, Q, H, s->seqlen_q, d, q0, nq, 0);
            fa_rows_copy(k, K, Hk, s->seqlen_k, d, k0, nk, 0);
            fa_rows_copy(v, V, Hk, s->seqlen_k, dv, k0, nk, 0);
            st = fa_reference_forward(&sb, q, k, v, o, l);
        }
        if (!st) {
            fa_rows_copy(o, O, H, s->seqlen_q, dv, q0, nq, 1);
            if (LSE) fa_rows_copy(l, LSE, H, s->seqlen_q, 1, q0, nq, 1);
        }
        free(q);
        free(o);
        free(l);
        free(k);
        free(v);
    }
    return st;
}
