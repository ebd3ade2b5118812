/* infer.c -- the inference runs of fasim's commands (fa_inference.h): variants of a decoding or
 * varlen configuration, the padded batch, the varlen backward, the numeric checks of the
 * inference kernels and the report's decoding table.  docs/inference.md. */
#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fa_check.h"
#include "fa_inference.h"
#include "fa_file.h"

/* ---------------------------------------------------------------- counted runs */

fa_status fa_cu_seqlens_parse(const char *opt, const char *text, int64_t *cu, int64_t max_seq, int64_t *n_out)
{
    enum { BUF = 1 << 16 };
    int is_list = 1;
    for (const char *p = text; *p; p++) is_list &= isdigit((unsigned char)*p) || *p == ',' || *p == ' ';
    if (!is_list && strchr(text, ',')) /* meant as a list, with junk in it */
        FA_FAIL(FA_EINVAL, "%s '%s' is not a list of non-negative integers (nor a file)", opt, text);
    if (is_list && (text[0] == ',' || strstr(text, ",,") || (*text && text[strlen(text) - 1] == ',')))
        FA_FAIL(FA_EINVAL, "%s '%s' has an empty item", opt, text);
    struct stat sb;
    if (!is_list && stat(text, &sb) == 0 && S_ISDIR(sb.st_mode)) FA_FAIL(FA_EIO, "%s: %s is a directory", opt, text);
    char *buf = malloc(BUF);
    if (!buf) FA_FAIL(FA_ENOMEM, "%s: out of host memory", opt);
    fa_status st = FA_OK;
    size_t len;
    if (is_list) {
        snprintf(buf, BUF, "%s", text);
        len = strlen(buf);
    } else {
        char what[64];
        snprintf(what, sizeof what, "%s file", opt);
        if ((st = fa_check_regular(text, what))) goto out;
        FILE *f = fopen(text, "r");
        if (!f) {
            st = fa_error(FA_EIO, __FILE__, __LINE__, "%s: cannot read %s: %s", opt, text, strerror(errno));
            goto out;
        }
        len = fread(buf, 1, BUF - 1, f);
        int big = len == BUF - 1 && fgetc(f) != EOF, err = ferror(f);
        fclose(f);
        if (err) st = fa_error(FA_EIO, __FILE__, __LINE__, "%s: cannot read %s", opt, text);
        else if (big) st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: %s is larger than 64 KiB", opt, text);
        if (st) goto out;
    }
    buf[len] = '\0';
    int64_t n = 0;
    int line = 1;
    size_t bol = 0; /* the offset of the line's first byte */
    for (size_t i = 0; i < len;) {
        if (strchr(", \t\r\n", buf[i]) && buf[i]) {
            if (buf[i] == '\n') line++, bol = i + 1;
            i++;
            continue;
        }
        size_t j = i; /* the item is buf[i, j): a NUL byte of a binary file belongs to it */
        while (j < len && !(buf[j] && strchr(", \t\r\n", buf[j]))) j++;
        if (n > max_seq) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: more than %" PRId64 " sequences", opt, max_seq);
            goto out;
        }
        /* a list's items are digits; a file's may be anything */
        int ok = is_list || j - i <= 10;
        for (size_t k = i; k < j && ok; k++) ok = isdigit((unsigned char)buf[k]);
        errno = 0;
        long long v = ok ? strtoll(buf + i, NULL, 10) : -1;
        if (is_list && (errno == ERANGE || v > INT32_MAX)) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s = '%.*s' must be an integer in [0, %d]", opt, (int)(j - i),
                          buf + i, INT32_MAX);
            goto out;
        }
        if (!ok || v > INT32_MAX) {
            char ex[FA_EXCERPT_SIZE];
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: %s:%d:%zu: '%s' is not an integer in [0, %d]", opt, text,
                          line, i - bol + 1, fa_excerpt(buf + i, j - i, ex), INT32_MAX);
            goto out;
        }
        cu[n++] = v;
        i = j;
    }
    if (n < 2)
        st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                      "%s '%s' needs at least two offsets (0 and the end of the first sequence)", opt, text);
    else *n_out = n;
out:
    free(buf);
    return st;
}

fa_status fa_infer_resolve(const fa_infer_args *a, fa_shape *s)
{
    if (a->cu_k && !a->varlen) FA_FAIL(FA_EINVAL, "--cu-seqlens-k needs --cu-seqlens");
    if (!a->decode && !a->varlen) {
        if (a->kv_len) FA_FAIL(FA_EINVAL, "--kv-len needs --decode");
        if (a->splits) FA_FAIL(FA_EINVAL, "--splits needs --decode or --cu-seqlens");
        if (a->paged) FA_FAIL(FA_EINVAL, "--page-size needs --decode");
        if (a->gqa) FA_FAIL(FA_EINVAL, "--gqa needs --decode or --cu-seqlens");
        return FA_OK;
    }
    if (s->window || s->alibi || s->softcap > 0 || s->dropout_p > 0 || a->mask_files)
        FA_FAIL(FA_EINVAL, "--decode and --cu-seqlens support the causal mask only (not --window, --alibi, --softcap, "
                           "--dropout or mask files)");
    if (a->trace) FA_FAIL(FA_EINVAL, "--trace is for the classic algorithms, not --decode or --cu-seqlens");
    if (a->l2) FA_FAIL(FA_EINVAL, "--l2 is for the classic algorithms, not --decode or --cu-seqlens");
    if (a->algo_given)
        FA_FAIL(FA_EINVAL, "--algo does not apply to --decode or --cu-seqlens (their kernel is FlashAttention-2's)");
    if (a->decode && a->pass != FA_PASS_FWD) FA_FAIL(FA_EINVAL, "decoding is inference: it has no backward (drop --pass)");
    if (a->model_given && s->seqlen_q < 0) s->seqlen_q = a->decode ? 1 : -1; /* not max_positions */
    if (a->decode && a->varlen) FA_FAIL(FA_EINVAL, "--decode and --cu-seqlens exclude each other (use one)");
    if (a->decode) {
        if (!a->kv_len) FA_FAIL(FA_EINVAL, "--decode needs --kv-len N (the number of cached keys)");
        if (s->seqlen_k > 0) FA_FAIL(FA_EINVAL, "--decode takes N_k from --kv-len, not --seqlen-k");
        if (s->seqlen_q < 0) s->seqlen_q = 1;
        s->seqlen_k = a->kv_len;
        return FA_OK;
    }
    if (a->paged) FA_FAIL(FA_EINVAL, "--page-size is for --decode (a varlen batch reads contiguous K/V)");
    if (a->kv_len) FA_FAIL(FA_EINVAL, "--kv-len needs --decode (a varlen batch takes key lengths from --cu-seqlens-k)");
    return FA_OK;
}

fa_status fa_varlen_resolve(fa_shape *s, const int64_t *cu_q, int64_t nq, const int64_t *cu_k, int64_t nk,
                            fa_varlen *vl)
{
    if (!cu_k) cu_k = cu_q, nk = nq;
    if (nk != nq) FA_FAIL(FA_EINVAL, "--cu-seqlens has %" PRId64 " offsets but --cu-seqlens-k has %" PRId64, nq, nk);
    if (s->batch > 0 && s->batch != nq - 1)
        FA_FAIL(FA_EINVAL, "--batch %" PRId64 " is inconsistent with --cu-seqlens (%" PRId64 " sequences)", s->batch, nq - 1);
    if (s->seqlen_q > 0 && s->seqlen_q != cu_q[nq - 1])
        FA_FAIL(FA_EINVAL, "--seqlen %" PRId64 " is inconsistent with --cu-seqlens (total %" PRId64 " rows)", s->seqlen_q,
                cu_q[nq - 1]);
    if (s->seqlen_k > 0 && s->seqlen_k != cu_k[nk - 1])
        FA_FAIL(FA_EINVAL, "--seqlen-k %" PRId64 " is inconsistent with --cu-seqlens-k (total %" PRId64 " keys)",
                s->seqlen_k, cu_k[nk - 1]);
    if (cu_q[nq - 1] < 1 || cu_k[nk - 1] < 1)
        FA_FAIL(FA_EINVAL, "--cu-seqlens: the batch needs at least one query row and one key in total");
    s->batch = 1;
    s->seqlen_q = cu_q[nq - 1];
    s->seqlen_k = cu_k[nk - 1];
    vl->nseq = nq - 1;
    vl->cu_q = cu_q;
    vl->cu_k = cu_k;
    return FA_OK;
}

fa_status fa_infer_variants(const fa_shape *s, const fa_infer_req *q, fa_infer_variant *v, int *n)
{
    int modes[2], nm = 0;
    if (q->gqa != 2) modes[nm++] = 0;
    if (q->gqa != 1) modes[nm++] = 1;
    *n = 0;
    for (int k = 0; k < nm; k++) {
        fa_infer_opts base = {.splits = 1, .pack_gqa = modes[k], .page_size = q->page_size};
        fa_blocks bk;
        if (q->blocks) bk = *q->blocks;
        else FA_TRY(fa_infer_blocks_fit(s, &base, q->vl, q->M, &bk));
        int64_t S = q->splits;
        int autos = q->splits_auto || (!q->splits && q->decode);
        if (autos) FA_TRY(fa_infer_best_splits(s, bk, &base, q->vl, q->M, q->hw, &S));
        if (S < 1) S = 1;
        int64_t list[2] = {1, S};
        for (int j = 0; j < (S == 1 ? 1 : 2); j++) {
            fa_infer_variant *x = &v[(*n)++];
            x->name = q->vl ? (modes[k] ? "varlen-packed" : "varlen") : modes[k] ? "packed" : "per-head";
            x->opt = base;
            x->opt.splits = list[j];
            x->auto_split = autos && j == 1;
            FA_TRY(fa_infer_io_run(s, bk, &x->opt, q->vl, q->M, q->hw, &x->r));
        }
    }
    return FA_OK;
}

int fa_infer_formula_match(const fa_infer_result *r)
{
    return r->formula.read_bytes == r->counts.hbm_read_bytes && r->formula.write_bytes == r->counts.hbm_write_bytes &&
           r->formula.matmul_flops == r->counts.flops_matmul && r->formula.other_flops == r->counts.flops_other;
}

uint64_t fa_counts_read_of(const fa_counts *c, const char *name)
{
    int id = fa_counts_find(c, name);
    return id < 0 ? 0 : c->tensor[id].read_bytes;
}

fa_status fa_varlen_padded(const fa_shape *s, const fa_varlen *vl, fa_blocks bk, uint64_t M, const fa_hw *hw,
                           fa_shape *padded, fa_infer_result *r)
{
    fa_shape p = *s;
    int64_t mq = 1, mk = 1;
    for (int64_t b = 0; b < vl->nseq; b++) {
        if (vl->cu_q[b + 1] - vl->cu_q[b] > mq) mq = vl->cu_q[b + 1] - vl->cu_q[b];
        if (vl->cu_k[b + 1] - vl->cu_k[b] > mk) mk = vl->cu_k[b + 1] - vl->cu_k[b];
    }
    p.batch = vl->nseq;
    p.seqlen_q = mq;
    p.seqlen_k = mk;
    *padded = p;
    fa_infer_opts one = fa_infer_opts_default();
    return fa_infer_io_run(&p, bk, &one, NULL, M, hw, r);
}

fa_status fa_varlen_bwd_io(fa_pass p, const fa_shape *s, const fa_varlen *vl, const fa_blocks *bk, uint64_t M,
                           const fa_hw *hw, fa_varlen_bwd_io_result *r)
{
    memset(r, 0, sizeof *r);
    if (bk) r->blocks = *bk;
    else FA_TRY(fa_blocks_fit_pass(p, s, M, &r->blocks));
    const fa_blocks b = r->blocks;
    uint64_t need = fa_sram_need_bwd(FA_ALGO_FLASH2, s, b);
    if (need > M)
        FA_FAIL(FA_ENOSRAM, "the backward's buffers with B_r = %lld, B_c = %lld need %llu B, more than M = %llu B "
                            "(give smaller --block-r/--block-c)", (long long)b.block_r, (long long)b.block_c,
                (unsigned long long)need, (unsigned long long)M);
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, M);
    if (!mem) return FA_ENOMEM;
    fa_status st = fa_varlen_backward(mem, s, b, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    r->bwd = *fa_mem_counts(mem);
    fa_mem_free(mem);
    FA_TRY(st);
    FA_TRY(fa_formula_varlen_bwd(s, b, vl, &r->formula));
    r->formula_match = r->bwd.hbm_read_bytes == r->formula.read_bytes && r->bwd.hbm_write_bytes == r->formula.write_bytes;
    fa_infer_opts one = fa_infer_opts_default();
    if (p == FA_PASS_FWDBWD) FA_TRY(fa_infer_io_run(s, b, &one, vl, M, hw, &r->fwd));
    r->read_bytes = r->bwd.hbm_read_bytes + r->fwd.counts.hbm_read_bytes;
    r->write_bytes = r->bwd.hbm_write_bytes + r->fwd.counts.hbm_write_bytes;
    return FA_OK;
}

/* ---------------------------------------------------------------- numeric checks */

static void gauss(gsl_rng *r, double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) x[i] = gsl_ran_gaussian(r, 1.0);
}

fa_status fa_varlen_bwd_check(const fa_shape *s, const fa_varlen *vl, const fa_blocks *bk, uint64_t M,
                              unsigned long seed, double tol, fa_varlen_bwd_check_result *r)
{
    memset(r, 0, sizeof *r);
    if (bk) r->blocks = *bk;
    else FA_TRY(fa_blocks_fit_pass(FA_PASS_BWD, s, M, &r->blocks));
    const fa_blocks b = r->blocks;
    int64_t nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s), no = fa_numel_o(s), ns = fa_numel_stats(s);
    double *buf[12] = {0};
    const int64_t sz[12] = {nq, nk, nv, no, no, ns, nq, nk, nv, nq, nk, nv};
    for (int i = 0; i < 12; i++)
        if (!(buf[i] = malloc((size_t)(sz[i] > 0 ? sz[i] : 1) * sizeof(double)))) {
            for (int k = 0; k < i; k++) free(buf[k]);
            FA_FAIL(FA_ENOMEM, "out of host memory for the check");
        }
    double *Q = buf[0], *K = buf[1], *V = buf[2], *dO = buf[3], *O = buf[4], *L = buf[5], *dQ = buf[6], *dK = buf[7],
           *dV = buf[8], *rQ = buf[9], *rK = buf[10], *rV = buf[11];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    gauss(rng, Q, nq);
    gauss(rng, K, nk);
    gauss(rng, V, nv);
    gauss(rng, dO, no);
    gsl_rng_free(rng);
    fa_infer_opts one = fa_infer_opts_default();
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M);
    fa_status st = mem ? fa_varlen_forward(mem, s, b, &one, vl, Q, K, V, O, L) : FA_ENOMEM;
    fa_mem_free(mem);
    mem = st ? NULL : fa_mem_alloc(FA_MODE_NUMERIC, M);
    if (!st) st = mem ? fa_varlen_backward(mem, s, b, vl, Q, K, V, O, L, dO, dQ, dK, dV) : FA_ENOMEM;
    fa_mem_free(mem);
    if (!st) st = fa_varlen_reference_backward(s, vl, Q, K, V, dO, rQ, rK, rV);
    const double *got[3] = {dQ, dK, dV}, *ref[3] = {rQ, rK, rV};
    const int64_t n3[3] = {nq, nk, nv};
    r->pass = !st;
    for (int t = 0; !st && t < 3; t++) {
        double mx = 0, worst = 0;
        for (int64_t i = 0; i < n3[t]; i++) {
            double e = fabs(got[t][i] - ref[t][i]);
            if (!(e <= worst) && !isnan(worst)) worst = e; /* NaN propagates: once NaN it stays */
            if (fabs(ref[t][i]) > mx) mx = fabs(ref[t][i]);
        }
        r->rel[t] = mx > 0 ? worst / mx : worst;
        r->pass &= r->rel[t] <= tol;
    }
    for (int k = 0; k < 12; k++) free(buf[k]);
    return st;
}

fa_status fa_infer_check_size(const fa_shape *s, int varlen)
{
    double work = (double)(varlen ? 1 : s->batch) * s->heads * (double)s->seqlen_q * (double)s->seqlen_k *
                  (double)(s->d + s->d_v);
    if (work > 2e10)
        FA_FAIL(FA_EINVAL, "check runs in numeric mode: the work %s = %.3g exceeds the limit of 2e10; use a smaller shape",
                varlen ? "H*N_q*N_k*(d+d_v)" : "B*H*N_q*N_k*(d+d_v)", work);
    return FA_OK;
}

fa_status fa_infer_check_run(const fa_shape *s, const fa_infer_req *q, const fa_infer_variant *v, int n,
                             unsigned long seed, double tol, fa_infer_check_result *res)
{
    memset(res, 0, sizeof *res);
    int64_t nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s), no = fa_numel_o(s), ns = fa_numel_stats(s);
    double *Q = malloc((size_t)nq * sizeof *Q), *K = malloc((size_t)nk * sizeof *K), *V = malloc((size_t)nv * sizeof *V),
           *Or = malloc((size_t)no * sizeof *Or), *Lr = malloc((size_t)ns * sizeof *Lr), *O = malloc((size_t)no * sizeof *O),
           *L = malloc((size_t)ns * sizeof *L), *Kc = NULL, *Vc = NULL;
    int32_t *bt = NULL;
    const int64_t P = q->page_size, pps = P ? fa_cdiv(s->seqlen_k, P) : 0, np = s->batch * pps;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    fa_status st = FA_OK;
    if (!Q || !K || !V || !Or || !Lr || !O || !L) {
        st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the check");
        goto out;
    }
    gsl_rng_set(rng, seed);
    gauss(rng, Q, nq);
    gauss(rng, K, nk);
    gauss(rng, V, nv);
    st = q->vl ? fa_varlen_reference_forward(s, q->vl, Q, K, V, Or, Lr) : fa_reference_forward(s, Q, K, V, Or, Lr);
    if (st) goto out;
    if (P) { /* a shuffled page pool: logical page p of sequence b is physical page bt[b pps + p] */
        bt = malloc((size_t)np * sizeof *bt);
        Kc = calloc((size_t)(np * s->kv_heads * P * s->d), sizeof *Kc);
        Vc = calloc((size_t)(np * s->kv_heads * P * s->d_v), sizeof *Vc);
        if (!bt || !Kc || !Vc) {
            st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the page pool");
            goto out;
        }
        for (int64_t i = 0; i < np; i++) bt[i] = (int32_t)i;
        gsl_ran_shuffle(rng, bt, (size_t)np, sizeof *bt);
        for (int64_t b = 0; b < s->batch; b++)
            for (int64_t h = 0; h < s->kv_heads; h++)
                for (int64_t j = 0; j < s->seqlen_k; j++) {
                    int64_t pg = bt[b * pps + j / P];
                    memcpy(Kc + ((pg * s->kv_heads + h) * P + j % P) * s->d, K + ((b * s->kv_heads + h) * s->seqlen_k + j) * s->d,
                           (size_t)s->d * sizeof *Kc);
                    memcpy(Vc + ((pg * s->kv_heads + h) * P + j % P) * s->d_v, V + ((b * s->kv_heads + h) * s->seqlen_k + j) * s->d_v,
                           (size_t)s->d_v * sizeof *Vc);
                }
    }
    res->ready = 1;
    for (int i = 0; i < n; i++) {
        for (int64_t k = 0; k < no; k++) O[k] = NAN;
        for (int64_t k = 0; k < ns; k++) L[k] = NAN;
        fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, q->M);
        if (!mem) {
            st = FA_ENOMEM;
            goto out;
        }
        const fa_infer_opts *op = &v[i].opt;
        fa_blocks bk = v[i].r.blocks;
        if (q->vl) st = fa_varlen_forward(mem, s, bk, op, q->vl, Q, K, V, O, L);
        else if (P) st = fa_paged_forward(mem, s, bk, op, bt, np, Q, Kc, Vc, O, L);
        else st = fa_decode_forward(mem, s, bk, op, Q, K, V, O, L);
        fa_mem_free(mem);
        if (st) goto out;
        fa_infer_check_row *r = &res->row[res->n++];
        double mref = 0, mlse = 0;
        r->abs_o = fa_check_abs_diff(O, Or, no, &mref);
        r->abs_lse = fa_check_abs_diff(L, Lr, ns, &mlse);
        r->rel_o = mref > 0 ? r->abs_o / mref : r->abs_o;
        r->pass = r->rel_o <= tol && r->abs_lse <= tol * fmax(1.0, mlse) && !isnan(r->abs_o) && !isnan(r->abs_lse);
    }
out:
    gsl_rng_free(rng);
    free(Q);
    free(K);
    free(V);
    free(Or);
    free(Lr);
    free(O);
    free(L);
    free(bt);
    free(Kc);
    free(Vc);
    return st;
}

/* ---------------------------------------------------------------- the report's decoding table */

fa_status fa_decode_table_run(const fa_hw *hw, fa_decode_table *t)
{
    /* Llama-3-8B (analysis/models/llama-3-8b.json): 32 query heads on 8 kv heads, d = 128, bf16 */
    static const int64_t kv[FA_DECODE_NKV] = {1024, 4096, 16384, 32768, 131072}, bs[FA_DECODE_NB] = {1, 64};
    memcpy(t->kv_len, kv, sizeof kv);
    memcpy(t->batch, bs, sizeof bs);
    for (int ib = 0; ib < FA_DECODE_NB; ib++)
        for (int ik = 0; ik < FA_DECODE_NKV; ik++) {
            fa_shape s = {.batch = bs[ib], .heads = 32, .kv_heads = 8, .seqlen_q = 1, .seqlen_k = kv[ik],
                          .d = 128, .d_v = 128, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = FA_DTYPE_BF16};
            for (int k = 0; k < FA_DECODE_NV; k++) {
                fa_infer_opts op = {.splits = 1, .pack_gqa = k > 0};
                fa_blocks bk;
                FA_TRY(fa_infer_blocks_fit(&s, &op, NULL, hw->sram_per_block, &bk));
                if (k == 2) FA_TRY(fa_infer_best_splits(&s, bk, &op, NULL, hw->sram_per_block, hw, &op.splits));
                FA_TRY(fa_infer_io_run(&s, bk, &op, NULL, hw->sram_per_block, hw, &t->r[ib][ik][k]));
                if (k == 2) t->best_splits[ib][ik] = op.splits;
            }
        }
    return FA_OK;
}
