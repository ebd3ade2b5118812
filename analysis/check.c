/* check.c -- the numerical checks of `fasim check` (fa_check.h): fp64, emulated low precision,
 * external tensors, the sample problem and the error-study points.  The reference runs on the
 * inputs as rounded to the dtype (as the flash-attention tests do), so the errors measure the
 * arithmetic, not the rounding of the inputs; the low-precision rows and the studies add the
 * end-to-end error against the unrounded inputs.  With the FP8 forward's options the inputs are
 * prepared by fa_fp8_prepare (cpu_ref/fa_fp8.h) instead of rounded per tensor. */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fa_check.h"
#include "fa_fp8.h"
#include "fa_outfile.h"
#include "fa_numerics.h"

#define M_BYTES ((uint64_t)1 << 40) /* SRAM large enough for any tile: numerics, not capacity */

/* ---------------------------------------------------------------- errors */

double fa_check_abs_diff(const double *a, const double *b, int64_t n, double *maxref)
{
    double w = 0, mr = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isinf(a[i]) || isinf(b[i])) {
            if (a[i] != b[i]) return INFINITY;
            continue;
        }
        double e = fabs(a[i] - b[i]);
        if (!(e <= w) && !isnan(w)) w = e; /* NaN propagates: once w is NaN it stays */
        if (fabs(b[i]) > mr) mr = fabs(b[i]);
    }
    if (maxref) *maxref = mr;
    return w;
}

fa_err fa_err_of(const double *a, const double *b, int64_t n)
{
    fa_err e = {0, 0, 0, 0};
    double ss = 0; /* the sum of squared errors (an infinite error makes it +inf) */
    for (int64_t i = 0; i < n; i++) {
        double x;
        if (isnan(a[i]) || isnan(b[i])) x = isnan(a[i]) && isnan(b[i]) ? 0 : INFINITY;
        else if (isinf(a[i]) || isinf(b[i])) x = a[i] == b[i] ? 0 : INFINITY;
        else x = fabs(a[i] - b[i]);
        if (x > e.abs) {
            e.abs = x;
            e.at = i;
        }
        ss += x * x;
        if (isfinite(b[i]) && fabs(b[i]) > e.maxref) e.maxref = fabs(b[i]);
    }
    e.rmse = n > 0 ? sqrt(ss / (double)n) : 0;
    return e;
}

double fa_err_rel(fa_err e) { return e.maxref > 0 ? e.abs / e.maxref : e.abs; }

fa_status fa_check_size(const fa_shape *s, int need_sp)
{
    double work = (double)s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_k * (double)(s->d + s->d_v);
    if (work > FA_CHECK_WORK_LIMIT)
        FA_FAIL(FA_EINVAL, "check runs in numeric mode: B*H*N_q*N_k*(d+d_v) = %.3g exceeds the limit %.0e", work,
                FA_CHECK_WORK_LIMIT);
    double sp = (double)s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_k;
    if (need_sp && sp > (double)FA_CHECK_SP_LIMIT)
        FA_FAIL(FA_EINVAL, "naive attention keeps S and P (B*H*N_q*N_k = %.3g elements, limit %.3g) in host memory; "
                           "use smaller tensors", sp, (double)FA_CHECK_SP_LIMIT);
    return FA_OK;
}

/* ---------------------------------------------------------------- suites */

/* {B, H, H_kv, N_q, N_k, d, d_v, causal, B_r, B_c} */
const fa_check_case fa_check_suite_fp64[] = {
    {1, 1, 1, 1, 1, 1, 1, FA_CAUSAL_NONE, 16, 16},         {1, 2, 2, 37, 37, 8, 8, FA_CAUSAL_NONE, 16, 16},
    {2, 1, 1, 113, 203, 59, 59, FA_CAUSAL_BOTTOM_RIGHT, 32, 16}, {1, 1, 1, 203, 113, 59, 59, FA_CAUSAL_BOTTOM_RIGHT, 16, 32},
    {1, 1, 1, 1, 239, 32, 32, FA_CAUSAL_BOTTOM_RIGHT, 16, 64},  {1, 1, 1, 100, 70, 24, 24, FA_CAUSAL_TOP_LEFT, 16, 16},
    {1, 8, 2, 67, 45, 16, 12, FA_CAUSAL_BOTTOM_RIGHT, 16, 16},  {2, 4, 1, 33, 33, 1, 1, FA_CAUSAL_NONE, 16, 16},
    {1, 4, 1, 129, 257, 64, 64, FA_CAUSAL_BOTTOM_RIGHT, 48, 32},
};
const int fa_check_suite_fp64_n = (int)(sizeof fa_check_suite_fp64 / sizeof fa_check_suite_fp64[0]);

/* odd shapes, and long rows */
const fa_check_case fa_check_suite_lowprec[] = {
    {1, 2, 2, 128, 128, 64, 64, FA_CAUSAL_NONE, 32, 32},          {2, 1, 1, 113, 203, 59, 59, FA_CAUSAL_BOTTOM_RIGHT, 32, 16},
    {1, 1, 1, 203, 113, 59, 59, FA_CAUSAL_BOTTOM_RIGHT, 16, 32},  {1, 4, 1, 129, 257, 64, 64, FA_CAUSAL_BOTTOM_RIGHT, 48, 32},
    {1, 8, 2, 67, 45, 16, 12, FA_CAUSAL_BOTTOM_RIGHT, 16, 16},    {1, 1, 1, 512, 512, 128, 128, FA_CAUSAL_NONE, 64, 64},
};
const int fa_check_suite_lowprec_n = (int)(sizeof fa_check_suite_lowprec / sizeof fa_check_suite_lowprec[0]);

void fa_check_case_shape(const fa_check_case *c, fa_shape *s, int keep_causal)
{
    s->batch = c->batch, s->heads = c->heads, s->kv_heads = c->kv_heads;
    s->seqlen_q = c->seqlen_q, s->seqlen_k = c->seqlen_k, s->d = c->d, s->d_v = c->d_v;
    if (!keep_causal) s->causal = c->causal;
}

fa_status fa_check_suite(const fa_check_suite_req *q, const fa_shape *given, int *stopped, int *any_fail)
{
    const int custom = given->batch > 0 || given->heads > 0 || given->kv_heads > 0 || given->seqlen_q > 0 ||
                       given->seqlen_k > 0 || given->d > 0 || given->d_v > 0;
    const fa_check_case *suite = q->lowprec ? fa_check_suite_lowprec : fa_check_suite_fp64;
    const int n_conf = custom ? 1 : q->lowprec ? fa_check_suite_lowprec_n : fa_check_suite_fp64_n;
    *stopped = *any_fail = 0;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) return FA_ENOMEM;
    gsl_rng_set(rng, q->seed);
    fa_status st = FA_OK;
    for (int c = 0; c < n_conf && !st; c++) {
        fa_shape s = *given;
        fa_blocks bk = {0, 0};
        uint64_t M = 0;
        if (!custom) {
            fa_check_case_shape(&suite[c], &s, given->causal != FA_CAUSAL_NONE);
            bk = (fa_blocks){suite[c].block_r, suite[c].block_c};
        }
        if ((*stopped = q->prepare(q->ctx, &s, &bk, &M))) break;
        fa_check_row r64[FA_NALGO];
        fa_lowprec_row rlp[3 * FA_NALGO];
        int n = 0;
        st = q->lowprec ? fa_check_lowprec(&s, bk, q->algos, q->n_algos, &q->lo, rng, rlp, &n)
                        : fa_check_fp64(&s, bk, M, q->algos, q->n_algos, q->tol, rng, r64, &n);
        for (int i = 0; i < n; i++) {
            q->row(q->ctx, &s, bk, q->lowprec ? NULL : &r64[i], q->lowprec ? &rlp[i] : NULL);
            *any_fail |= !(q->lowprec ? rlp[i].pass : r64[i].pass);
        }
    }
    gsl_rng_free(rng);
    return st;
}

/* ---------------------------------------------------------------- problems */

/* Q, K, V, dO of one problem (rounded to the dtype where the check says so) */
typedef struct {
    fa_shape s;
    double *Q, *K, *V, *dO;
} prob;

static void gauss(gsl_rng *r, double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) x[i] = gsl_ran_gaussian(r, 1.0);
}

/* N(0, 1) + N(0, 100) Bernoulli(0.001), FlashAttention-3's outliers (Shah et al. 2024, section
 * 4.3): entry by entry a gaussian, a uniform and, when the uniform is below 0.001, a gaussian of
 * standard deviation 10 added */
static void gauss_outliers(gsl_rng *r, double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        x[i] = gsl_ran_gaussian(r, 1.0);
        if (gsl_rng_uniform(r) < 0.001) x[i] += gsl_ran_gaussian(r, 10.0);
    }
}

static void prob_free(prob *p)
{
    free(p->Q);
    free(p->K);
    free(p->V);
    free(p->dO);
    memset(p, 0, sizeof *p);
}

static fa_status prob_alloc(prob *p, const fa_shape *s)
{
    memset(p, 0, sizeof *p);
    p->s = *s;
    p->Q = malloc((size_t)fa_numel_q(s) * sizeof(double));
    p->K = malloc((size_t)fa_numel_k(s) * sizeof(double));
    p->V = malloc((size_t)fa_numel_v(s) * sizeof(double));
    p->dO = calloc((size_t)fa_numel_o(s), sizeof(double)); /* zero where unused (studies: forward only) */
    if (!p->Q || !p->K || !p->V || !p->dO) {
        prob_free(p);
        FA_FAIL(FA_ENOMEM, "out of host memory for the inputs");
    }
    return FA_OK;
}

static void prob_quantize(prob *p, fa_format f)
{
    fa_numerics_quantize(p->Q, fa_numel_q(&p->s), f, NULL);
    fa_numerics_quantize(p->K, fa_numel_k(&p->s), f, NULL);
    fa_numerics_quantize(p->V, fa_numel_v(&p->s), f, NULL);
    fa_numerics_quantize(p->dO, fa_numel_o(&p->s), f, NULL);
}

static fa_numerics numerics_of(fa_format f, const fa_lowprec_opts *lo)
{
    fa_numerics nu = fa_numerics_for(f);
    nu.exp2 = lo->exp2;
    if (lo->acc64) nu.acc = FA_FMT_FP64;
    return nu;
}

static fa_status run_fwd(fa_algo a, const prob *p, fa_blocks bk, const fa_numerics *nu, double *O, double *L)
{
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M_BYTES);
    if (!mem) return FA_ENOMEM;
    fa_mem_set_numerics(mem, nu);
    fa_status st = fa_run_forward(a, mem, &p->s, bk, p->Q, p->K, p->V, O, L);
    fa_mem_free(mem);
    return st;
}

/* The tensor format an HBM tensor of the dtype is stored in under nu. */
static fa_format store_fmt(const fa_shape *s, const fa_numerics *nu)
{
    if (!nu->on) return FA_FMT_FP64;
    return fa_dtype_bytes(s->dtype) == 4 ? FA_FMT_FP32 : nu->store;
}

/* The forward (as the backward needs it) then the backward of algorithm a under nu. */
static fa_status run_bwd(fa_algo a, const prob *p, fa_blocks bk, const fa_numerics *nu, double *dQ, double *dK,
                         double *dV)
{
    const fa_shape *s = &p->s;
    int64_t no = fa_numel_o(s), ns = fa_numel_stats(s);
    double *O = malloc((size_t)no * sizeof *O), *L = malloc((size_t)ns * sizeof *L),
           *l = malloc((size_t)ns * sizeof *l), *m = malloc((size_t)ns * sizeof *m), *P = NULL;
    fa_status st = (O && L && l && m) ? FA_OK : FA_ENOMEM;
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M_BYTES);
    if (!mem) st = FA_ENOMEM;
    if (!st) fa_mem_set_numerics(mem, nu);
    if (!st && a == FA_ALGO_STANDARD) {
        /* P as the naive forward leaves it in HBM: in the dtype */
        P = malloc((size_t)(s->batch * s->heads * s->seqlen_q * s->seqlen_k) * sizeof *P);
        st = P ? fa_reference_probs(s, p->Q, p->K, P) : FA_ENOMEM;
        /* fp8: the naive forward's P is the fp8 P of its softmax (scaled by 2^p_scale_log2, as
         * fa_tile_round_p), not the bf16 of its O: the backward then starts from the same
         * rounding of P as the tiled algorithms' forward, whose O feeds their D_i */
        const int64_t np = s->batch * s->heads * s->seqlen_q * s->seqlen_k;
        if (!st && nu->on && nu->p_scale_log2)
            for (int64_t i = 0; i < np; i++) P[i] = ldexp(fa_round(ldexp(P[i], nu->p_scale_log2), nu->p), -nu->p_scale_log2);
        else if (!st) fa_round_array(P, np, store_fmt(s, nu));
        if (!st) st = fa_standard_backward(mem, s, bk, p->Q, p->K, p->V, P, p->dO, dQ, dK, dV);
    } else if (!st && a == FA_ALGO_FLASH1) {
        st = fa_flash1_forward(mem, s, bk, p->Q, p->K, p->V, O, l, m);
        fa_mem_free(mem);
        mem = fa_mem_alloc(FA_MODE_NUMERIC, M_BYTES);
        if (!mem) st = FA_ENOMEM;
        if (!st) fa_mem_set_numerics(mem, nu);
        if (!st) st = fa_flash1_backward(mem, s, bk, p->Q, p->K, p->V, O, l, m, p->dO, dQ, dK, dV);
    } else if (!st) {
        st = fa_flash2_forward(mem, s, bk, p->Q, p->K, p->V, O, L);
        if (!st) st = fa_flash2_backward(mem, s, bk, p->Q, p->K, p->V, O, L, p->dO, dQ, dK, dV);
    }
    if (mem) fa_mem_free(mem);
    free(O);
    free(L);
    free(l);
    free(m);
    free(P);
    return st;
}

/* ---------------------------------------------------------------- fp64 */

fa_status fa_check_fp64(const fa_shape *s, fa_blocks bk, uint64_t M, const fa_algo *algos, int n_algos, double tol,
                        gsl_rng *rng, fa_check_row *rows, int *n_rows)
{
    *n_rows = 0;
    int64_t nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s), no = fa_numel_o(s), ns = fa_numel_stats(s);
    double work = (double)s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_k * (double)(s->d + s->d_v);
    if (work > FA_CHECK_WORK_LIMIT)
        FA_FAIL(FA_EINVAL, "check runs in numeric mode: B*H*N_q*N_k*(d+d_v) = %.3g exceeds the limit %.0e; use a "
                           "smaller shape (fasim io counts any size)", work, FA_CHECK_WORK_LIMIT);
    double *Q = malloc((size_t)nq * sizeof *Q), *K = malloc((size_t)nk * sizeof *K), *V = malloc((size_t)nv * sizeof *V),
           *Or = malloc((size_t)no * sizeof *Or), *Lr = malloc((size_t)ns * sizeof *Lr),
           *O = malloc((size_t)no * sizeof *O), *L = malloc((size_t)ns * sizeof *L);
    fa_status st = FA_OK;
    if (!Q || !K || !V || !Or || !Lr || !O || !L) {
        st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the check");
        goto out;
    }
    gauss(rng, Q, nq);
    gauss(rng, K, nk);
    gauss(rng, V, nv);
    if ((st = fa_reference_forward(s, Q, K, V, Or, Lr))) goto out;
    const double sp = (double)s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_k;
    for (int k = 0; k < n_algos; k++) {
        fa_algo a = algos[k];
        if (a == FA_ALGO_STANDARD && sp > (double)FA_CHECK_SP_LIMIT) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "check: standard keeps S and P (B*H*N_q*N_k = %.3g elements, limit %" PRId64
                          ") in host memory; use a smaller shape or --algo flash1,flash2", sp, FA_CHECK_SP_LIMIT);
            goto out;
        }
        for (int64_t i = 0; i < no; i++) O[i] = NAN; /* poisoned: every element must be written */
        for (int64_t i = 0; i < ns; i++) L[i] = NAN;
        fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M);
        if (!mem) {
            st = FA_ENOMEM;
            goto out;
        }
        st = fa_run_forward(a, mem, s, bk, Q, K, V, O, L);
        const fa_counts cnt = *fa_mem_counts(mem);
        fa_mem_free(mem);
        if (st) goto out;
        fa_check_row *r = &rows[(*n_rows)++];
        double maxref = 0, maxlse = 0;
        r->algo = a;
        r->rescales = cnt.rescales, r->rescale_steps = cnt.rescale_steps;
        r->rescale_blocks = cnt.rescale_blocks, r->rescale_max = cnt.rescale_max;
        r->abs_o = fa_check_abs_diff(O, Or, no, &maxref);
        r->rel_o = maxref > 0 ? r->abs_o / maxref : r->abs_o;
        r->abs_lse = a == FA_ALGO_STANDARD ? 0 : fa_check_abs_diff(L, Lr, ns, &maxlse);
        /* O relative to max|O_ref|; LSE relative to max(1, max|LSE_ref|) */
        r->pass = r->rel_o <= tol && r->abs_lse <= tol * fmax(1.0, maxlse);
        if (isnan(r->abs_o) || isnan(r->abs_lse)) r->pass = 0;
    }
out:
    free(Q);
    free(K);
    free(V);
    free(Or);
    free(Lr);
    free(O);
    free(L);
    return st;
}

/* ---------------------------------------------------------------- low precision */

double fa_unit_roundoff(fa_format f)
{
    static const double u[FA_NFMT] = {0x1p-53, 0x1p-24, 0x1p-11, 0x1p-8, 0x1p-4, 0x1p-3};
    return f >= 0 && f < FA_NFMT ? u[f] : 0x1p-53;
}

double fa_check_atol(const double *ref, int64_t n, fa_format f)
{
    double w = 0;
    for (int64_t i = 0; i < n; i++) {
        const double r = fa_round(ref[i], f), e = fabs(fa_round(fa_round(r + 0.3, f) - 0.3, f) - r);
        if (e > w) w = e;
    }
    return 2 * w;
}

fa_status fa_check_lowprec(const fa_shape *s, fa_blocks bk, const fa_algo *algos, int n_algos,
                           const fa_lowprec_opts *lo, gsl_rng *rng, fa_lowprec_row *rows, int *n_rows)
{
    *n_rows = 0;
    FA_TRY(fa_check_size(s, 1));
    const fa_format f = fa_dtype_format(s->dtype);
    if (lo->fp8_prep && (f != FA_FMT_E4M3 || lo->bwd))
        FA_FAIL(FA_EINVAL, "the FP8 input preparation (block quantization, incoherent processing) is the e4m3 forward's: "
                           "dtype %s, pass %s", fa_dtype_name(s->dtype), lo->bwd ? "bwd" : "fwd");
    const fa_numerics nu = numerics_of(f, lo), naive_nu = fa_numerics_for(f);
    prob p;
    int64_t nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s), nO = fa_numel_o(s);
    double *ref[3] = {0}, *out[3] = {0}, *nai[3] = {0}, *exact[3] = {0};
    const int ntens = lo->bwd ? 3 : 1;
    const int64_t len[3] = {lo->bwd ? nq : nO, nk, nv};
    static const char *const tname[2][3] = {{"O", "dK", "dV"}, {"dQ", "dK", "dV"}};
    fa_status st = prob_alloc(&p, s);
    for (int t = 0; !st && t < 3; t++) {
        ref[t] = malloc((size_t)len[t] * sizeof(double));
        out[t] = malloc((size_t)len[t] * sizeof(double));
        nai[t] = malloc((size_t)len[t] * sizeof(double));
        exact[t] = malloc((size_t)len[t] * sizeof(double));
        if (!ref[t] || !out[t] || !nai[t] || !exact[t])
            st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the check");
    }
    if (st) goto done;
    void (*draw)(gsl_rng *, double *, int64_t) = lo->outliers ? gauss_outliers : gauss;
    draw(rng, p.Q, nq);
    draw(rng, p.K, nk);
    draw(rng, p.V, nv);
    gauss(rng, p.dO, nO);
    /* the end-to-end reference: fp64 on the inputs as drawn */
    st = lo->bwd ? fa_reference_backward(s, p.Q, p.K, p.V, p.dO, exact[0], exact[1], exact[2])
                 : fa_reference_forward(s, p.Q, p.K, p.V, exact[0], NULL);
    if (st) goto done;
    if (lo->fp8_prep) { /* FlashAttention-3's FP8 inputs: incoherent processing, block quantization */
        const fa_fp8_opts fo = {.per_block = lo->fp8_block, .block_r = (int)bk.block_r, .block_c = (int)bk.block_c,
                                .hadamard = lo->hadamard, .seed = lo->hadamard_seed};
        if ((st = fa_fp8_prepare(s, p.Q, p.K, p.V, &fo))) goto done;
        fa_numerics_quantize(p.dO, nO, f, NULL);
    } else {
        prob_quantize(&p, f);
    }
    /* the reference and naive attention in the same precision, on the same (rounded) inputs */
    if (lo->bwd) {
        if ((st = fa_reference_backward(s, p.Q, p.K, p.V, p.dO, ref[0], ref[1], ref[2]))) goto done;
        if ((st = run_bwd(FA_ALGO_STANDARD, &p, bk, &naive_nu, nai[0], nai[1], nai[2]))) goto done;
    } else {
        if ((st = fa_reference_forward(s, p.Q, p.K, p.V, ref[0], NULL))) goto done;
        if ((st = run_fwd(FA_ALGO_STANDARD, &p, bk, &naive_nu, nai[0], NULL))) goto done;
    }
    const double factor = lo->bwd ? 3.0 : 2.0;
    for (int k = 0; k < n_algos; k++) {
        fa_algo a = algos[k];
        st = lo->bwd ? run_bwd(a, &p, bk, &nu, out[0], out[1], out[2]) : run_fwd(a, &p, bk, &nu, out[0], NULL);
        if (st) goto done;
        for (int t = 0; t < ntens; t++) {
            fa_lowprec_row *r = &rows[(*n_rows)++];
            r->algo = a;
            r->tensor = tname[lo->bwd][t];
            r->err = fa_err_of(out[t], ref[t], len[t]);
            r->naive = fa_err_of(nai[t], ref[t], len[t]);
            r->e2e = fa_err_of(out[t], exact[t], len[t]);
            r->factor = factor;
            /* the floor: the dtype's rounding at the tensor's magnitude (FlashAttention's tests), plus
             * the accumulation's: a sum of n products rounded in u_acc errs by about sqrt(n) u_acc
             * times its terms (Higham and Mary 2019, probabilistic bound), n the GEMM's inner length:
             * N_k for O and dQ, N_q for dK and dV */
            const double n_inner = (double)(!lo->bwd || t == 0 ? s->seqlen_k : s->seqlen_q);
            const double u_acc = lo->acc64 ? 0x1p-53 : 0x1p-24;
            /* fp8 runs store O and the gradients in bf16 (the dtype's floor is the stored tensor's) */
            const fa_format fo = f == FA_FMT_E4M3 || f == FA_FMT_E5M2 ? FA_FMT_BF16 : f;
            r->atol = fa_check_atol(ref[t], len[t], fo) + 2 * sqrt(n_inner) * u_acc * fa_err_of(ref[t], ref[t], len[t]).maxref;
            r->pass = r->err.abs <= factor * r->naive.abs + r->atol && !isnan(r->err.abs);
            r->by_floor = r->pass && !(r->err.abs <= factor * r->naive.abs);
            r->ratio = r->naive.abs > 0 ? r->err.abs / r->naive.abs : (r->err.abs > 0 ? INFINITY : 0);
        }
    }
done:
    prob_free(&p);
    for (int t = 0; t < 3; t++) {
        free(ref[t]);
        free(out[t]);
        free(nai[t]);
        free(exact[t]);
    }
    return st;
}

/* ---------------------------------------------------------------- external tensors */

const char *fa_ext_layout_name(int bnhd) { return bnhd ? "(B, N, H, d)" : "(B, H, N, d)"; }

/* (B, H, N, D) of file t in the chosen layout; 2-D (N, D), 3-D without B */
static fa_status dims4(const fa_ext *x, int t, int64_t d4[4])
{
    const fa_npy *a = &x->a[t];
    const int bnhd = x->bnhd;
    int64_t B = 1, H = 1, N, D;
    if (a->ndim == 2) N = a->shape[0], D = a->shape[1];
    else if (a->ndim == 3) {
        N = bnhd ? a->shape[0] : a->shape[1], H = bnhd ? a->shape[1] : a->shape[0];
        D = a->shape[2];
    } else if (a->ndim == 4) {
        B = a->shape[0];
        N = bnhd ? a->shape[1] : a->shape[2], H = bnhd ? a->shape[2] : a->shape[1];
        D = a->shape[3];
    } else {
        FA_FAIL(FA_EINVAL, "%s: shape has %d dimensions; expected (B, %s, d) with 2 to 4 dimensions", x->path[t],
                a->ndim, bnhd ? "N, H" : "H, N");
    }
    if (B < 1 || H < 1 || N < 1 || D < 1) FA_FAIL(FA_EINVAL, "%s: shape has a zero dimension", x->path[t]);
    d4[0] = B, d4[1] = H, d4[2] = N, d4[3] = D;
    return FA_OK;
}

/* file layout <-> fasim's (B, H, N, D) */
static void relayout(const double *src, double *dst, const int64_t d[4], int bnhd, int to_internal)
{
    const int64_t B = d[0], H = d[1], N = d[2], D = d[3];
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t n = 0; n < N; n++) {
                int64_t in = ((b * H + h) * N + n) * D;
                int64_t fi = bnhd ? ((b * N + n) * H + h) * D : in;
                if (to_internal) memcpy(dst + in, src + fi, (size_t)D * sizeof *dst);
                else memcpy(dst + fi, src + in, (size_t)D * sizeof *dst);
            }
}

#define MISMATCH(cond, ...)                                                   \
    if (cond) FA_FAIL(FA_EINVAL, __VA_ARGS__)

fa_status fa_ext_load(const char *const path[FA_EXT_N], int bnhd, int bf16, const fa_shape *given, int dtype_given,
                      fa_ext *x)
{
    memset(x, 0, sizeof *x);
    x->bnhd = bnhd;
    if (!path[FA_EXT_Q] || !path[FA_EXT_K] || !path[FA_EXT_V] || !path[FA_EXT_O])
        FA_FAIL(FA_EINVAL, "external check needs --q, --k, --v and --out (.npy files)");
    int nb = (path[FA_EXT_DO] != NULL) + (path[FA_EXT_DQ] != NULL) + (path[FA_EXT_DK] != NULL) + (path[FA_EXT_DV] != NULL);
    if (nb != 0 && nb != 4) FA_FAIL(FA_EINVAL, "the backward check needs all of --dout, --dq, --dk and --dv");
    x->bwd = nb == 4;
    for (int t = 0; t < FA_EXT_N; t++)
        if (path[t]) {
            x->path[t] = path[t];
            FA_TRY(fa_npy_read(path[t], bf16, &x->a[t]));
        }
    if (bf16) { /* an option that changes nothing is refused, not ignored */
        int any = 0;
        for (int t = 0; t < FA_EXT_N; t++) any |= path[t] && x->a[t].format == FA_FMT_BF16;
        if (!any) {
            fa_status e = fa_error(FA_EINVAL, __FILE__, __LINE__,
                                   "--bf16 reads 16-bit integer .npy data as bfloat16 bits; none of the files holds 16-bit "
                                   "integers (%s is %s): drop --bf16", path[FA_EXT_Q], fa_format_name(x->a[FA_EXT_Q].format));
            fa_ext_free(x);
            return e;
        }
    }
    int64_t *dq4 = x->dims[FA_EXT_Q], *dk4 = x->dims[FA_EXT_K], *dv4 = x->dims[FA_EXT_V], *do4 = x->dims[FA_EXT_O];
    FA_TRY(dims4(x, FA_EXT_Q, dq4));
    FA_TRY(dims4(x, FA_EXT_K, dk4));
    FA_TRY(dims4(x, FA_EXT_V, dv4));
    FA_TRY(dims4(x, FA_EXT_O, do4));
    const char *L = fa_ext_layout_name(bnhd);
    /* the shape, from q, k, v; shape options may repeat it, not contradict it */
    const struct {
        const char *opt, *sym;
        int64_t given, file;
        int xi;
    } gv[] = {
        {"--batch", "B", given->batch, dq4[0], FA_EXT_Q},          {"--heads", "H", given->heads, dq4[1], FA_EXT_Q},
        {"--kv-heads", "H_kv", given->kv_heads, dk4[1], FA_EXT_K}, {"--seqlen", "N_q", given->seqlen_q, dq4[2], FA_EXT_Q},
        {"--seqlen-k", "N_k", given->seqlen_k, dk4[2], FA_EXT_K},  {"--headdim", "d", given->d, dq4[3], FA_EXT_Q},
        {"--headdim-v", "d_v", given->d_v, dv4[3], FA_EXT_V},
    };
    for (size_t g = 0; g < sizeof gv / sizeof gv[0]; g++)
        MISMATCH(gv[g].given > 0 && gv[g].given != gv[g].file,
                 "%s %" PRId64 " contradicts the files: %s %s has %s = %" PRId64
                 " (layout %s); the shape comes from the files, drop %s or make it %" PRId64,
                 gv[g].opt, gv[g].given, gv[g].xi == FA_EXT_Q ? "q" : gv[g].xi == FA_EXT_K ? "k" : "v",
                 path[gv[g].xi], gv[g].sym, gv[g].file, L, gv[g].opt, gv[g].file);
    fa_shape s = *given;
    s.batch = dq4[0], s.heads = dq4[1], s.seqlen_q = dq4[2], s.d = dq4[3];
    s.kv_heads = dk4[1], s.seqlen_k = dk4[2], s.d_v = dv4[3];
    MISMATCH(dk4[0] != s.batch || dv4[0] != s.batch || dv4[1] != s.kv_heads || dv4[2] != s.seqlen_k || dk4[3] != s.d,
             "shape mismatch: k %s has (B, H_kv, N_k, d) = (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
             "), v %s (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "), q %s has B = %" PRId64 ", d = %" PRId64
             " (layout %s)", path[FA_EXT_K], dk4[0], dk4[1], dk4[2], dk4[3], path[FA_EXT_V], dv4[0], dv4[1], dv4[2],
             dv4[3], path[FA_EXT_Q], s.batch, s.d, L);
    MISMATCH(s.heads % s.kv_heads != 0, "shape mismatch: q %s has H = %" PRId64 " heads, not a multiple of k's H_kv = %" PRId64,
             path[FA_EXT_Q], s.heads, s.kv_heads);
    MISMATCH(do4[0] != s.batch || do4[1] != s.heads || do4[2] != s.seqlen_q || do4[3] != s.d_v,
             "shape mismatch: --out %s should hold (B, H, N_q, d_v) = (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
             ") in layout %s", path[FA_EXT_O], s.batch, s.heads, s.seqlen_q, s.d_v, L);
    if (path[FA_EXT_LSE]) {
        const fa_npy *a = &x->a[FA_EXT_LSE];
        MISMATCH(a->n != s.batch * s.heads * s.seqlen_q || a->ndim < 1 || a->shape[a->ndim - 1] != s.seqlen_q,
                 "shape mismatch: --lse %s should hold (B, H, N_q) = (%" PRId64 ", %" PRId64 ", %" PRId64 ")",
                 path[FA_EXT_LSE], s.batch, s.heads, s.seqlen_q);
    }
    for (int t = FA_EXT_DO; t <= FA_EXT_DV && x->bwd; t++) {
        const int w = t == FA_EXT_DO ? FA_EXT_O : t == FA_EXT_DQ ? FA_EXT_Q : t == FA_EXT_DK ? FA_EXT_K : FA_EXT_V;
        FA_TRY(dims4(x, t, x->dims[t]));
        MISMATCH(memcmp(x->dims[t], x->dims[w], sizeof x->dims[t]) != 0, "shape mismatch: %s should have the shape of %s",
                 path[t], t == FA_EXT_DO ? "--out" : t == FA_EXT_DQ ? "q" : t == FA_EXT_DK ? "k" : "v");
    }
    /* the low precision of the naive baseline: the dtype given, else the inputs' own format */
    fa_format f = x->a[FA_EXT_Q].format == FA_FMT_FP64 ? FA_FMT_FP32 : x->a[FA_EXT_Q].format;
    if (dtype_given) f = fa_dtype_format(given->dtype);
    s.dtype = f == FA_FMT_FP16 ? FA_DTYPE_FP16 : f == FA_FMT_BF16 ? FA_DTYPE_BF16 : f == FA_FMT_E4M3 ? FA_DTYPE_E4M3
              : f == FA_FMT_E5M2 ? FA_DTYPE_E5M2 : FA_DTYPE_FP32;
    if ((int)s.causal < 0) s.causal = FA_CAUSAL_NONE;
    x->format = f;
    x->shape = s;
    return FA_OK;
}
#undef MISMATCH

void fa_ext_free(fa_ext *x)
{
    for (int t = 0; t < FA_EXT_N; t++) fa_npy_free(&x->a[t]);
}

/* log-sum-exp of each row as naive attention in the dtype gets it: scores rounded to the storage
 * format (the S it writes to HBM), then fp32 */
static void naive_lse(const prob *p, fa_format sf, double *L)
{
    const fa_shape *s = &p->s;
    const int64_t Nq = s->seqlen_q, Nk = s->seqlen_k, d = s->d, g = s->heads / s->kv_heads;
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t h = 0; h < s->heads; h++)
            for (int64_t i = 0; i < Nq; i++) {
                const double *q = p->Q + ((b * s->heads + h) * Nq + i) * d;
                const double *k = p->K + (b * s->kv_heads + h / g) * Nk * d;
                double mx = -INFINITY, sum = 0;
                double *sc = malloc((size_t)Nk * sizeof *sc);
                if (!sc) return;
                for (int64_t j = 0; j < Nk; j++) {
                    double acc = 0;
                    for (int64_t c = 0; c < d; c++) acc = fa_round(acc + q[c] * k[j * d + c], FA_FMT_FP32);
                    const double x = fa_score(s, h, i, j, acc, NULL); /* scale, softcap, ALiBi, masks */
                    sc[j] = x == -INFINITY ? -INFINITY : fa_round(fa_round(x, FA_FMT_FP32), sf);
                    if (sc[j] > mx) mx = sc[j];
                }
                for (int64_t j = 0; j < Nk; j++)
                    if (sc[j] != -INFINITY) sum = fa_round(sum + fa_round(exp(sc[j] - mx), FA_FMT_FP32), FA_FMT_FP32);
                L[(b * s->heads + h) * Nq + i] = sum > 0 ? fa_round(mx + log(sum), FA_FMT_FP32) : -INFINITY;
                free(sc);
            }
}

static void index_text(char *buf, size_t n, const fa_npy *a, int64_t at)
{
    int64_t idx[FA_NPY_MAXDIM];
    for (int k = a->ndim - 1; k >= 0; k--) {
        idx[k] = a->shape[k] ? at % a->shape[k] : 0;
        at = a->shape[k] ? at / a->shape[k] : 0;
    }
    size_t u = (size_t)snprintf(buf, n, "(");
    for (int k = 0; k < a->ndim && u < n; k++)
        u += (size_t)snprintf(buf + u, n - u, "%" PRId64 "%s", idx[k], k + 1 < a->ndim ? ", " : ")");
}

static void shape_text(char *buf, size_t n, const fa_npy *a)
{
    size_t u = (size_t)snprintf(buf, n, "(");
    for (int k = 0; k < a->ndim && u < n; k++)
        u += (size_t)snprintf(buf + u, n - u, "%" PRId64 "%s", a->shape[k], k + 1 < a->ndim ? ", " : "");
    if (u < n) snprintf(buf + u, n - u, ")");
}

fa_status fa_ext_check(fa_ext *x, fa_ext_row *rows, int *n_rows)
{
    *n_rows = 0;
    const fa_shape *s = &x->shape;
    const int bnhd = x->bnhd, nb = x->bwd;
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_check_size(s, 1));
    prob p;
    double *buf[FA_EXT_N] = {0}, *ref[FA_EXT_N] = {0}, *nai[FA_EXT_N] = {0};
    fa_status st = prob_alloc(&p, s);
    if (st) goto done;
    /* The tolerance rule compares with naive attention in low precision: with a NaN or inf among
     * the inputs the reference and the baseline are not finite and the bound says nothing. */
    for (int t = FA_EXT_Q; t <= FA_EXT_DO; t++) {
        if (t == FA_EXT_O || t == FA_EXT_LSE || !x->path[t] || (t == FA_EXT_DO && !nb)) continue;
        for (int64_t i = 0; i < x->a[t].n; i++)
            if (!isfinite(x->a[t].data[i])) {
                st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                              "input %s holds a non-finite value (%g) at flat index %" PRId64
                              ": the tolerance rule needs finite inputs", x->path[t], x->a[t].data[i], i);
                goto done;
            }
    }
    const int64_t *dq4 = x->dims[FA_EXT_Q], *dk4 = x->dims[FA_EXT_K], *dv4 = x->dims[FA_EXT_V], *do4 = x->dims[FA_EXT_O];
    relayout(x->a[FA_EXT_Q].data, p.Q, dq4, bnhd, 1);
    relayout(x->a[FA_EXT_K].data, p.K, dk4, bnhd, 1);
    relayout(x->a[FA_EXT_V].data, p.V, dv4, bnhd, 1);
    if (nb) relayout(x->a[FA_EXT_DO].data, p.dO, do4, bnhd, 1);
    const int64_t nO = fa_numel_o(s), nS = fa_numel_stats(s);
    const int64_t n[FA_EXT_N] = {0, 0, 0, nO, nS, 0, fa_numel_q(s), fa_numel_k(s), fa_numel_v(s)};
    for (int t = FA_EXT_O; t < FA_EXT_N; t++)
        if (n[t]) {
            buf[t] = malloc((size_t)n[t] * sizeof(double));
            ref[t] = malloc((size_t)n[t] * sizeof(double));
            nai[t] = malloc((size_t)n[t] * sizeof(double));
            if (!buf[t] || !ref[t] || !nai[t]) {
                st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the check");
                goto done;
            }
        }
    /* fp64 reference on the inputs as given; naive attention in the low precision */
    const fa_numerics nn = fa_numerics_for(x->format);
    fa_blocks bk = {64, 64};
    if ((st = fa_reference_forward(s, p.Q, p.K, p.V, buf[FA_EXT_O], buf[FA_EXT_LSE]))) goto done;
    relayout(buf[FA_EXT_O], ref[FA_EXT_O], do4, bnhd, 0);
    memcpy(ref[FA_EXT_LSE], buf[FA_EXT_LSE], (size_t)nS * sizeof(double));
    if ((st = run_fwd(FA_ALGO_STANDARD, &p, bk, &nn, buf[FA_EXT_O], NULL))) goto done;
    relayout(buf[FA_EXT_O], nai[FA_EXT_O], do4, bnhd, 0);
    if (x->path[FA_EXT_LSE]) naive_lse(&p, fa_dtype_bytes(s->dtype) == 4 ? FA_FMT_FP32 : nn.store, nai[FA_EXT_LSE]);
    if (nb) {
        if ((st = fa_reference_backward(s, p.Q, p.K, p.V, p.dO, buf[FA_EXT_DQ], buf[FA_EXT_DK], buf[FA_EXT_DV])))
            goto done;
        for (int t = FA_EXT_DQ; t <= FA_EXT_DV; t++) relayout(buf[t], ref[t], x->dims[t], bnhd, 0);
        if ((st = run_bwd(FA_ALGO_STANDARD, &p, bk, &nn, buf[FA_EXT_DQ], buf[FA_EXT_DK], buf[FA_EXT_DV]))) goto done;
        for (int t = FA_EXT_DQ; t <= FA_EXT_DV; t++) relayout(buf[t], nai[t], x->dims[t], bnhd, 0);
    }
    /* A row with no allowed key has LSE = -inf in fasim (the log of an empty sum); FlashAttention-2
     * and -3 write +inf there (csrc/flash_attn/src/softmax.h and hopper/softmax.h: sum == 0 ?
     * INFINITY), so either is taken as right on such a row -- and only there. */
    if (x->path[FA_EXT_LSE])
        for (int64_t i = 0; i < n[FA_EXT_LSE]; i++)
            if (ref[FA_EXT_LSE][i] == -INFINITY && x->a[FA_EXT_LSE].data[i] == INFINITY) x->a[FA_EXT_LSE].data[i] = -INFINITY;
    /* the verdicts */
    static const char *const tn[FA_EXT_N] = {"", "", "", "O", "LSE", "", "dQ", "dK", "dV"};
    for (int t = FA_EXT_O; t < FA_EXT_N; t++) {
        if (!x->path[t] || t == FA_EXT_DO) continue;
        fa_ext_row *r = &rows[(*n_rows)++];
        r->tensor = t;
        r->name = tn[t];
        r->path = x->path[t];
        r->err = fa_err_of(x->a[t].data, ref[t], n[t]);
        r->naive = fa_err_of(nai[t], ref[t], n[t]);
        r->bound = (t >= FA_EXT_DQ ? 3.0 : 2.0) * r->naive.abs;
        /* the cap a collapsed baseline cannot stretch (docs/numerics.md, "The verdict") */
        r->cap = t == FA_EXT_LSE ? INFINITY : 16 * fa_unit_roundoff(x->format) * r->naive.maxref;
        r->capped = r->cap < r->bound;
        if (r->capped) r->bound = r->cap;
        r->pass = r->err.abs <= r->bound && isfinite(r->bound) && !isnan(r->err.abs); /* a vacuous bound never passes */
        r->out = x->a[t].data[r->err.at];
        r->ref = ref[t][r->err.at];
        r->why = isnan(r->out) ? "the file holds NaN (at the index shown)"
               : isinf(r->out) ? "the file holds an infinity (at the index shown)"
               : !isfinite(r->naive.abs) ? "naive attention overflowed in this precision: the rule has no bound"
               : !isfinite(r->ref) ? "the fp64 reference is not finite there" : NULL;
        index_text(r->index, sizeof r->index, &x->a[t], r->err.at);
        shape_text(r->shape_text, sizeof r->shape_text, &x->a[t]);
    }
done:
    prob_free(&p);
    for (int t = 0; t < FA_EXT_N; t++) {
        free(buf[t]);
        free(ref[t]);
        free(nai[t]);
    }
    return st;
}

/* ---------------------------------------------------------------- a sample problem */

static fa_status save_one(const char *path, const char *name, fa_format f, const double *x, const int64_t d4[4],
                          int bnhd)
{
    int64_t n = d4[0] * d4[1] * d4[2] * d4[3];
    double *y = malloc((size_t)n * sizeof *y);
    if (!y) FA_FAIL(FA_ENOMEM, "out of host memory");
    relayout(x, y, d4, bnhd, 0);
    int64_t shape[4] = {d4[0], bnhd ? d4[2] : d4[1], bnhd ? d4[1] : d4[2], d4[3]};
    fa_status st = fa_npy_write_as(path, name, f, 4, shape, y);
    free(y);
    return st;
}

fa_status fa_check_save_sample(const char *dir, const fa_shape *s, int bnhd, unsigned long seed,
                               const fa_lowprec_opts *lo, int *write_failed)
{
    if (write_failed) *write_failed = 0;
    fa_format f = fa_dtype_format(s->dtype);
    if (f == FA_FMT_E4M3 || f == FA_FMT_E5M2) FA_FAIL(FA_EINVAL, "--save-npy writes fp32, fp16 or bf16 (.npy has no fp8)");
    FA_TRY(fa_check_size(s, 0));
    /* all or nothing: the directory and every file opened (as temporaries) before any is written */
    static const char *const names[9] = {"q.npy", "k.npy", "v.npy", "o.npy", "do.npy", "dq.npy", "dk.npy", "dv.npy", "lse.npy"};
    fa_outset os = {0};
    FA_TRY(fa_outset_mkdir(&os, dir));
    for (int i = 0; i < 9; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (fa_outset_add(&os, path, 0) < 0) {
            fa_status e = FA_EIO; /* the message is set (fa_outfile_open: a path that cannot be written) */
            fa_outset_abort(&os);
            return e;
        }
    }
    prob p;
    fa_status sp = prob_alloc(&p, s);
    if (sp) {
        fa_outset_abort(&os);
        return sp;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    gauss(rng, p.Q, fa_numel_q(s));
    gauss(rng, p.K, fa_numel_k(s));
    gauss(rng, p.V, fa_numel_v(s));
    gauss(rng, p.dO, fa_numel_o(s));
    gsl_rng_free(rng);
    prob_quantize(&p, f);
    double *O = malloc((size_t)fa_numel_o(s) * sizeof *O), *L = malloc((size_t)fa_numel_stats(s) * sizeof *L),
           *dQ = malloc((size_t)fa_numel_q(s) * sizeof *dQ), *dK = malloc((size_t)fa_numel_k(s) * sizeof *dK),
           *dV = malloc((size_t)fa_numel_v(s) * sizeof *dV);
    const fa_numerics nu = numerics_of(f, lo);
    fa_blocks bk = {64, 64};
    fa_status st = (O && L && dQ && dK && dV) ? FA_OK : FA_ENOMEM;
    if (!st) st = run_fwd(FA_ALGO_FLASH2, &p, bk, &nu, O, L); /* fasim's FlashAttention-2 in the dtype */
    if (!st) st = run_bwd(FA_ALGO_FLASH2, &p, bk, &nu, dQ, dK, dV);
    int64_t q4[4] = {s->batch, s->heads, s->seqlen_q, s->d}, k4[4] = {s->batch, s->kv_heads, s->seqlen_k, s->d},
            v4[4] = {s->batch, s->kv_heads, s->seqlen_k, s->d_v}, o4[4] = {s->batch, s->heads, s->seqlen_q, s->d_v};
    const struct {
        const char *name;
        const double *x;
        const int64_t *d4;
    } files[] = {{"q.npy", p.Q, q4}, {"k.npy", p.K, k4}, {"v.npy", p.V, v4}, {"o.npy", O, o4},
                 {"do.npy", p.dO, o4}, {"dq.npy", dQ, q4}, {"dk.npy", dK, k4}, {"dv.npy", dV, v4}};
    for (int i = 0; !st && i < (int)(sizeof files / sizeof files[0]); i++)
        st = save_one(fa_outset_target(&os, i), os.file[i].path, f, files[i].x, files[i].d4, bnhd);
    if (!st) {
        int64_t l3[3] = {s->batch, s->heads, s->seqlen_q};
        st = fa_npy_write_as(fa_outset_target(&os, 8), os.file[8].path, FA_FMT_FP32, 3, l3, L);
    }
    if (st == FA_EIO && write_failed) *write_failed = 1; /* every output was opened: the write failed */
    if (st) fa_outset_abort(&os);
    else if ((st = fa_outset_commit(&os)) && write_failed) *write_failed = 1;
    prob_free(&p);
    free(O);
    free(L);
    free(dQ);
    free(dK);
    free(dV);
    return st;
}

/* ---------------------------------------------------------------- error studies */

static const struct {
    const char *name;
    fa_algo algo;
    int exp2;
} S_ALGOS[FA_STUDY_ALGOS] = {
    {"standard", FA_ALGO_STANDARD, 0}, {"flash1", FA_ALGO_FLASH1, 0},
    {"flash2", FA_ALGO_FLASH2, 0},     {"flash2_exp2", FA_ALGO_FLASH2, 1},
};
static const fa_dtype S_DTYPES[FA_STUDY_DTYPES] = {FA_DTYPE_FP32, FA_DTYPE_FP16, FA_DTYPE_BF16, FA_DTYPE_E4M3,
                                                   FA_DTYPE_E5M2};

fa_status fa_study_limits(int64_t maxn, int64_t maxd)
{
    if (maxn < 16 || maxd < 16) /* the study's grid starts at N = d = 16 */
        FA_FAIL(FA_EINVAL, "--study --%s %" PRId64 " is under the minimum 16 (the study's grid of N and d starts at 16)",
                maxn < 16 ? "seqlen" : "headdim", maxn < 16 ? maxn : maxd);
    if (maxn > FA_STUDY_MAX_N || maxd > FA_STUDY_MAX_D)
        FA_FAIL(FA_EINVAL, "--study --%s %" PRId64 " is over the limit %d (the study runs O(N^2 d) fp64 reference "
                           "and emulated-precision work per point; at the limit it takes minutes)",
                maxn > FA_STUDY_MAX_N ? "seqlen" : "headdim", maxn > FA_STUDY_MAX_N ? maxn : maxd,
                maxn > FA_STUDY_MAX_N ? FA_STUDY_MAX_N : FA_STUDY_MAX_D);
    return FA_OK;
}

int fa_study_points(int part, int64_t maxn, int64_t maxd, unsigned long seed, fa_study_pt *pts, int max_pts)
{
    const int64_t d0 = maxd < 64 ? maxd : 64, n0 = maxn < 256 ? maxn : 256;
    int n = 0;
    for (int t = 0; t < FA_STUDY_DTYPES; t++) {
        fa_study_pt p = {.dtype = S_DTYPES[t], .N = n0, .d = d0, .magnitude = 0, .seed = seed};
        if (part == 0)
            for (int64_t N = 16; N <= maxn && n < max_pts; N *= 2) { /* powers of two from 16, <= MAXN */
                p.N = N, p.seed = seed + (unsigned long)N;
                pts[n++] = p;
            }
        else if (part == 1)
            for (int64_t d = 16; d <= maxd && n < max_pts; d *= 2) {
                p.d = d, p.seed = seed + (unsigned long)d;
                pts[n++] = p;
            }
        else
            for (double m = 1; m <= 1024 && n < max_pts; m *= 4) {
                p.magnitude = m;
                pts[n++] = p;
            }
    }
    return n;
}

fa_status fa_study_point(const fa_study_pt *pt, fa_study_row rows[FA_STUDY_ALGOS])
{
    const int64_t N = pt->N, d = pt->d;
    const double outlier = pt->magnitude > 1 ? pt->magnitude : 0;
    fa_shape s = fa_shape_default(N, d);
    s.dtype = pt->dtype;
    prob p;
    fa_status st = prob_alloc(&p, &s);
    int64_t n = N * d;
    double *ref = malloc((size_t)n * sizeof *ref), *exact = malloc((size_t)n * sizeof *exact),
           *nai = malloc((size_t)n * sizeof *nai), *out = malloc((size_t)n * sizeof *out);
    if (!st && (!ref || !exact || !nai || !out)) st = FA_ENOMEM;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, pt->seed);
    if (!st) {
        gauss(rng, p.Q, n);
        gauss(rng, p.K, n);
        gauss(rng, p.V, n);
        for (int k = 0; outlier > 0 && k < 8; k++) /* a few very large values, as in LLM activations */
            p.K[gsl_rng_uniform_int(rng, (unsigned long)n)] = (k % 2 ? -outlier : outlier);
        st = fa_reference_forward(&s, p.Q, p.K, p.V, exact, NULL); /* before rounding the inputs */
    }
    gsl_rng_free(rng);
    const fa_format fm = fa_dtype_format(pt->dtype);
    if (!st) prob_quantize(&p, fm);
    if (!st) st = fa_reference_forward(&s, p.Q, p.K, p.V, ref, NULL);
    const fa_numerics nn = fa_numerics_for(fm);
    fa_blocks bk = {N < 64 ? N : 64, N < 64 ? N : 64};
    if (!st) st = run_fwd(FA_ALGO_STANDARD, &p, bk, &nn, nai, NULL);
    fa_err en = st ? (fa_err){0, 0, 0, 0} : fa_err_of(nai, ref, n);
    for (int k = 0; !st && k < FA_STUDY_ALGOS; k++) {
        fa_numerics nu = nn;
        nu.exp2 = S_ALGOS[k].exp2;
        st = run_fwd(S_ALGOS[k].algo, &p, bk, &nu, out, NULL);
        if (st) break;
        fa_err e = fa_err_of(out, ref, n), ee = fa_err_of(out, exact, n);
        rows[k] = (fa_study_row){.algo = S_ALGOS[k].name, .abs = e.abs, .rel = fa_err_rel(e), .naive_abs = en.abs,
                                 .ratio = en.abs > 0 ? e.abs / en.abs : 0, .e2e_rel = fa_err_rel(ee)};
    }
    prob_free(&p);
    free(ref);
    free(exact);
    free(nai);
    free(out);
    return st;
}

fa_status fa_study_csv(FILE *f, int part, int64_t maxn, int64_t maxd, unsigned long seed, FILE *progress)
{
    static const char *const lead_col[3] = {"fixed_d,", "fixed_n,", "outlier,"};
    fputs(lead_col[part], f);
    fputs("dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err\n", f);
    fa_study_pt pts[FA_STUDY_MAX_POINTS];
    const int npts = fa_study_points(part, maxn, maxd, seed, pts, FA_STUDY_MAX_POINTS);
    for (int i = 0; i < npts; i++) {
        const fa_study_pt *p = &pts[i];
        const char *t = fa_dtype_name(p->dtype);
        char lead[32];
        if (part == 2) snprintf(lead, sizeof lead, "%g", p->magnitude);
        else snprintf(lead, sizeof lead, "%" PRId64, part == 0 ? p->d : p->N);
        if (progress && part == 2) fprintf(progress, "\rstudy: %s outlier %g      ", t, p->magnitude);
        else if (progress) fprintf(progress, "\rstudy: %s %s = %" PRId64 "      ", t, part ? "d" : "N", part ? p->d : p->N);
        fa_study_row rows[FA_STUDY_ALGOS];
        fa_status st = fa_study_point(p, rows);
        if (st) return st;
        for (int k = 0; k < FA_STUDY_ALGOS; k++)
            fprintf(f, "%s,%s,%s,%" PRId64 ",%" PRId64 ",%.6e,%.6e,%.6e,%.6e,%.6e\n", lead, t, rows[k].algo, p->N, p->d,
                    rows[k].abs, rows[k].rel, rows[k].naive_abs, rows[k].ratio, rows[k].e2e_rel);
    }
    return FA_OK;
}
