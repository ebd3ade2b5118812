/* cmd_numerics.c -- `fasim check` beyond fp64:
 *   --dtype T          each algorithm run in emulated precision T (docs/numerics.md) against the
 *                      fp64 reference, next to naive attention (standard) run in T, judged by the
 *                      FlashAttention test rule max|out - ref| <= 2 max|naive - ref| (grads 3x);
 *   --q --k --v --out  an external kernel's tensors (.npy) judged the same way (docs/validate.md);
 *   --study DIR        error vs N, vs d and with outliers, for every dtype: CSV + gnuplot PNGs
 *                      (N <= STUDY_MAX_N, d <= STUDY_MAX_D; all files written or none);
 *   --save-npy DIR     a sample problem written as .npy files (the format docs/validate.md reads).
 * The reference runs on the inputs as rounded to T (as the flash-attention tests do), so the
 * errors measure the arithmetic, not the rounding of the inputs; the studies add the end-to-end
 * error against the unrounded inputs. */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli_numerics.h"
#include "cli_outset.h"
#include "fa_npy.h"
#include "fa_numerics.h"

extern char **environ;

#define M_BYTES ((uint64_t)1 << 40) /* SRAM large enough for any tile: numerics, not capacity */
#define SP_LIMIT ((double)((int64_t)1 << 25)) /* naive attention keeps S and P: B H N_q N_k */
#define WORK_LIMIT 2e10

/* ---------------------------------------------------------------- options */

int cli_numerics_args(int *argc, char **argv, num_opts *no)
{
    memset(no, 0, sizeof *no);
    int w = 2;
    for (int i = 2; i < *argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (!strcmp(a, "--q")) dst = &no->q;
        else if (!strcmp(a, "--k")) dst = &no->k;
        else if (!strcmp(a, "--v")) dst = &no->v;
        else if (!strcmp(a, "--out")) dst = &no->out;
        else if (!strcmp(a, "--lse")) dst = &no->lse;
        else if (!strcmp(a, "--dout")) dst = &no->dout;
        else if (!strcmp(a, "--dq")) dst = &no->dq;
        else if (!strcmp(a, "--dk")) dst = &no->dk;
        else if (!strcmp(a, "--dv")) dst = &no->dv;
        else if (!strcmp(a, "--study")) dst = &no->study;
        else if (!strcmp(a, "--save-npy")) dst = &no->save_npy;
        if (dst) {
            if (i + 1 >= *argc || !argv[i + 1][0]) {
                fprintf(stderr, "fasim: %s needs a file or directory\n", a);
                return EXIT_USAGE;
            }
            *dst = argv[++i];
            continue;
        }
        if (!strcmp(a, "--layout") || !strcmp(a, "--acc") || !strcmp(a, "--pass")) {
            const char *v = i + 1 < *argc ? argv[++i] : "";
            if (!strcmp(a, "--layout")) no->layout_given = 1;
            if (!strcmp(a, "--layout") && (!strcmp(v, "bnhd") || !strcmp(v, "bhnd"))) no->bnhd = !strcmp(v, "bnhd");
            else if (!strcmp(a, "--acc") && (!strcmp(v, "fp32") || !strcmp(v, "fp64"))) no->acc64 = !strcmp(v, "fp64");
            else if (!strcmp(a, "--pass") && (!strcmp(v, "fwd") || !strcmp(v, "bwd"))) no->bwd = !strcmp(v, "bwd");
            else {
                fprintf(stderr, "fasim: %s '%s' is not one of %s\n", a, v,
                        !strcmp(a, "--layout") ? "bhnd, bnhd" : !strcmp(a, "--acc") ? "fp32, fp64" : "fwd, bwd");
                return EXIT_USAGE;
            }
            continue;
        }
        if (!strcmp(a, "--bf16")) no->bf16 = 1;
        else if (!strcmp(a, "--exp2")) no->exp2 = 1;
        else if (!strcmp(a, "--no-plots")) no->no_plots = 1;
        else {
            if (!strcmp(a, "--dtype") || !strncmp(a, "--dtype=", 8)) no->dtype_given = 1;
            argv[w++] = argv[i];
            continue;
        }
    }
    *argc = w;
    argv[w] = NULL;
    return 0;
}

int cli_numerics_wanted(const num_opts *no)
{
    return no->dtype_given || no->q || no->k || no->v || no->out || no->study || no->save_npy ||
           no->bwd || no->exp2 || no->lse || no->dout;
}

int cli_numerics_external(const num_opts *no)
{
    return no->q || no->k || no->v || no->out || no->lse || no->dout || no->dq || no->dk || no->dv;
}

/* ---------------------------------------------------------------- helpers */

/* v with the fewest digits (6 at least, as %g) that read back as v */
static const char *num_exact(double v, char *buf, size_t n)
{
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

/* In buf (a mask text), "<label><v as %g>" becomes "<label><v exactly>" when the two differ. */
static void exact_in(char *buf, size_t n, const char *label, double v)
{
    char g[64], e[64], num[40];
    snprintf(g, sizeof g, "%s%g", label, v);
    snprintf(e, sizeof e, "%s%s", label, num_exact(v, num, sizeof num));
    if (!strcmp(g, e)) return;
    const size_t lg = strlen(g);
    for (char *p = strstr(buf, g); p; p = strstr(p + 1, g))
        if (p[lg] == '\0' || p[lg] == ',') {
            char tail[256];
            snprintf(tail, sizeof tail, "%s", p + lg);
            const size_t off = (size_t)(p - buf);
            snprintf(buf + off, n - off, "%s%s", e, tail);
            return;
        }
}

const char *cli_check_mask_text(const fa_shape *s, char *buf, size_t n)
{
    cli_mask_text(s, buf, n);
    if (s->softcap > 0) exact_in(buf, n, "softcap ", s->softcap);
    if (s->dropout_p > 0) exact_in(buf, n, "dropout ", s->dropout_p);
    return buf;
}

void cli_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

typedef struct {
    double abs, maxref; /* max |a - b| (inf if any NaN or mismatched inf), max |b| */
    int64_t at;         /* index of the worst element */
} err_t;

static err_t max_err(const double *a, const double *b, int64_t n)
{
    err_t e = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        double x;
        if (isnan(a[i]) || isnan(b[i])) x = isnan(a[i]) && isnan(b[i]) ? 0 : INFINITY;
        else if (isinf(a[i]) || isinf(b[i])) x = a[i] == b[i] ? 0 : INFINITY;
        else x = fabs(a[i] - b[i]);
        if (x > e.abs) {
            e.abs = x;
            e.at = i;
        }
        if (isfinite(b[i]) && fabs(b[i]) > e.maxref) e.maxref = fabs(b[i]);
    }
    return e;
}

static double rel(err_t e) { return e.maxref > 0 ? e.abs / e.maxref : e.abs; }

/* Q, K, V, dO of one problem, inputs already rounded to the dtype */
typedef struct {
    fa_shape s;
    double *Q, *K, *V, *dO;
} prob;

static fa_status run_fwd(fa_algo a, const prob *p, fa_blocks bk, const fa_numerics *nu, double *O,
                         double *L)
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

static fa_status run_bwd(fa_algo a, const prob *p, fa_blocks bk, const fa_numerics *nu, double *dQ,
                         double *dK, double *dV)
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
        if (!st) fa_round_array(P, s->batch * s->heads * s->seqlen_q * s->seqlen_k, store_fmt(s, nu));
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

static void gauss(gsl_rng *r, double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) x[i] = gsl_ran_gaussian(r, 1.0);
}

static fa_status prob_alloc(prob *p, const fa_shape *s)
{
    memset(p, 0, sizeof *p);
    p->s = *s;
    p->Q = malloc((size_t)fa_numel_q(s) * sizeof(double));
    p->K = malloc((size_t)fa_numel_k(s) * sizeof(double));
    p->V = malloc((size_t)fa_numel_v(s) * sizeof(double));
    p->dO = calloc((size_t)fa_numel_o(s), sizeof(double)); /* zero where unused (--study: forward only) */
    if (!p->Q || !p->K || !p->V || !p->dO) FA_FAIL(FA_ENOMEM, "out of host memory for the inputs");
    return FA_OK;
}

static void prob_free(prob *p)
{
    free(p->Q);
    free(p->K);
    free(p->V);
    free(p->dO);
    memset(p, 0, sizeof *p);
}

static void prob_quantize(prob *p, fa_format f)
{
    fa_numerics_quantize(p->Q, fa_numel_q(&p->s), f, NULL);
    fa_numerics_quantize(p->K, fa_numel_k(&p->s), f, NULL);
    fa_numerics_quantize(p->V, fa_numel_v(&p->s), f, NULL);
    fa_numerics_quantize(p->dO, fa_numel_o(&p->s), f, NULL);
}

static fa_numerics numerics_of(fa_format f, const num_opts *no)
{
    fa_numerics nu = fa_numerics_for(f);
    nu.exp2 = no->exp2;
    if (no->acc64) nu.acc = FA_FMT_FP64;
    return nu;
}

static fa_status check_size(const fa_shape *s, int need_sp)
{
    double work = (double)s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_k * (double)(s->d + s->d_v);
    if (work > WORK_LIMIT)
        FA_FAIL(FA_EINVAL, "check runs in numeric mode: B*H*N_q*N_k*(d+d_v) = %.3g exceeds the limit %.0e", work, WORK_LIMIT);
    double sp = (double)s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_k;
    if (need_sp && sp > SP_LIMIT)
        FA_FAIL(FA_EINVAL, "naive attention keeps S and P (B*H*N_q*N_k = %.3g elements, limit %.3g) in host memory; "
                           "use smaller tensors", sp, SP_LIMIT);
    return FA_OK;
}

/* The mask and modifiers of a shape in words ("none" when there are none). */
static const char *mask_name_of(const fa_shape *s)
{
    static _Thread_local char buf[256];
    if (!fa_has_mask(s) && !s->alibi && !(s->softcap > 0) && !(s->dropout_p > 0)) return "none";
    return cli_check_mask_text(s, buf, sizeof buf);
}

/* ---------------------------------------------------------------- --dtype: fasim's algorithms */

static int lowprec_config(const cli_opts *o, const num_opts *no, const fa_shape *s, fa_blocks bk,
                          gsl_rng *rng, json_t *arr, int *any_fail)
{
    fa_status st = check_size(s, 1);
    if (st) return cli_fail(st);
    const fa_format f = fa_dtype_format(s->dtype);
    const fa_numerics nu = numerics_of(f, no), naive_nu = fa_numerics_for(f);
    prob p;
    int64_t nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s), nO = fa_numel_o(s);
    double *ref[3] = {0}, *out[3] = {0}, *nai[3] = {0};
    int rc = 0;
    const int ntens = no->bwd ? 3 : 1;
    const int64_t len[3] = {no->bwd ? nq : nO, nk, nv};
    const char *tname[3] = {no->bwd ? "dQ" : "O", "dK", "dV"};
    if ((st = prob_alloc(&p, s))) goto fail;
    for (int t = 0; t < 3; t++) {
        ref[t] = malloc((size_t)len[t] * sizeof(double));
        out[t] = malloc((size_t)len[t] * sizeof(double));
        nai[t] = malloc((size_t)len[t] * sizeof(double));
        if (!ref[t] || !out[t] || !nai[t]) {
            st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the check");
            goto fail;
        }
    }
    gauss(rng, p.Q, nq);
    gauss(rng, p.K, nk);
    gauss(rng, p.V, nv);
    gauss(rng, p.dO, nO);
    prob_quantize(&p, f);
    /* the reference and naive attention in the same precision, on the same (rounded) inputs */
    if (no->bwd) {
        if ((st = fa_reference_backward(s, p.Q, p.K, p.V, p.dO, ref[0], ref[1], ref[2]))) goto fail;
        if ((st = run_bwd(FA_ALGO_STANDARD, &p, bk, &naive_nu, nai[0], nai[1], nai[2]))) goto fail;
    } else {
        if ((st = fa_reference_forward(s, p.Q, p.K, p.V, ref[0], NULL))) goto fail;
        if ((st = run_fwd(FA_ALGO_STANDARD, &p, bk, &naive_nu, nai[0], NULL))) goto fail;
    }
    const double factor = no->bwd ? 3.0 : 2.0;
    for (int k = 0; k < o->n_algos; k++) {
        fa_algo a = (fa_algo)o->algos[k];
        st = no->bwd ? run_bwd(a, &p, bk, &nu, out[0], out[1], out[2]) : run_fwd(a, &p, bk, &nu, out[0], NULL);
        if (st) goto fail;
        for (int t = 0; t < ntens; t++) {
            err_t e = max_err(out[t], ref[t], len[t]), en = max_err(nai[t], ref[t], len[t]);
            int pass = e.abs <= factor * en.abs;
            if (!pass) *any_fail = 1;
            double ratio = en.abs > 0 ? e.abs / en.abs : (e.abs > 0 ? INFINITY : 0);
            if (o->format == FMT_TABLE) {
                printf("%-8s %-2s B=%-2" PRId64 " H=%-2" PRId64 " H_kv=%-2" PRId64 " N_q=%-4" PRId64 " N_k=%-4" PRId64
                       " d=%-3" PRId64 " %-12s %-8s err %.3e (rel %.2e)  naive %.3e  ratio %5.2f <= %.0f  %s\n",
                       fa_algo_name(a), tname[t], s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d,
                       mask_name_of(s), fa_dtype_name(s->dtype), e.abs, rel(e), en.abs, ratio, factor,
                       pass ? "PASS" : "FAIL");
            } else if (o->format == FMT_CSV) {
                printf("%s,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
                       fa_algo_name(a), tname[t], fa_dtype_name(s->dtype), s->batch, s->heads, s->kv_heads, s->seqlen_q,
                       s->seqlen_k, s->d, s->d_v);
                cli_csv_field(stdout, mask_name_of(s)); /* "window (3, 0)" holds a comma: quoted */
                printf(",%d,%s,%.6e,%.6e,%.6e,%.4f,%s\n", no->exp2, no->acc64 ? "fp64" : "fp32", e.abs, rel(e), en.abs,
                       ratio, pass ? "pass" : "fail");
            } else {
                json_t *j = json_object();
                json_object_set_new(j, "algo", json_string(fa_algo_name(a)));
                json_object_set_new(j, "tensor", json_string(tname[t]));
                json_object_set_new(j, "dtype", json_string(fa_dtype_name(s->dtype)));
                json_object_set_new(j, "seqlen_q", json_integer(s->seqlen_q));
                json_object_set_new(j, "seqlen_k", json_integer(s->seqlen_k));
                json_object_set_new(j, "d", json_integer(s->d));
                json_object_set_new(j, "causal", json_string(mask_name_of(s)));
                json_object_set_new(j, "max_abs_err", json_real(e.abs));
                json_object_set_new(j, "max_rel_err", json_real(rel(e)));
                json_object_set_new(j, "naive_abs_err", json_real(en.abs));
                json_object_set_new(j, "factor", json_real(factor));
                json_object_set_new(j, "pass", json_boolean(pass));
                json_array_append_new(arr, j);
            }
        }
    }
    goto done;
fail:
    rc = cli_fail(st);
done:
    prob_free(&p);
    for (int t = 0; t < 3; t++) {
        free(ref[t]);
        free(out[t]);
        free(nai[t]);
    }
    return rc;
}

static int run_lowprec(const cli_opts *o0, const num_opts *no)
{
    cli_opts o = *o0;
    const fa_shape given = o.shape;
    int custom = given.batch > 0 || given.heads > 0 || given.kv_heads > 0 || given.seqlen_q > 0 ||
                 given.seqlen_k > 0 || given.d > 0 || given.d_v > 0;
    /* {B, H, H_kv, N_q, N_k, d, d_v, causal, B_r, B_c}: odd shapes, and long rows */
    static const int64_t suite[][10] = {
        {1, 2, 2, 128, 128, 64, 64, 0, 32, 32}, {2, 1, 1, 113, 203, 59, 59, 1, 32, 16},
        {1, 1, 1, 203, 113, 59, 59, 1, 16, 32}, {1, 4, 1, 129, 257, 64, 64, 1, 48, 32},
        {1, 8, 2, 67, 45, 16, 12, 1, 16, 16},   {1, 1, 1, 512, 512, 128, 128, 0, 64, 64},
    };
    int nconf = custom ? 1 : (int)(sizeof suite / sizeof suite[0]);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, o.seed);
    json_t *arr = json_array();
    int any_fail = 0, rc = 0;
    if (o.format == FMT_CSV)
        printf("algo,tensor,dtype,batch,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,causal,exp2,acc,max_abs_err,"
               "max_rel_err,naive_abs_err,ratio,verdict\n");
    if (o.format == FMT_TABLE)
        printf("emulated %s (fp32 accumulation%s%s) vs the fp64 reference on the same rounded inputs; "
               "naive = standard attention in %s; rule: err <= %d x naive err\n",
               fa_dtype_name(o.shape.dtype), no->acc64 ? " -> fp64" : "", no->exp2 ? ", exp2 softmax" : "",
               fa_dtype_name(o.shape.dtype), no->bwd ? 3 : 2);
    for (int c = 0; c < nconf && rc == 0; c++) {
        cli_opts oc = o;
        if (!custom) {
            const int64_t *x = suite[c];
            oc.shape.batch = x[0], oc.shape.heads = x[1], oc.shape.kv_heads = x[2];
            oc.shape.seqlen_q = x[3], oc.shape.seqlen_k = x[4], oc.shape.d = x[5], oc.shape.d_v = x[6];
            if (given.causal == FA_CAUSAL_NONE) oc.shape.causal = (fa_causal)x[7];
        }
        if ((rc = cli_resolve(&oc))) break;
        fa_blocks bk = {64, 64};
        if (oc.blocks == BLOCKS_EXPLICIT) bk.block_r = oc.block_r, bk.block_c = oc.block_c;
        else if (!custom) bk.block_r = suite[c][8], bk.block_c = suite[c][9];
        rc = lowprec_config(&oc, no, &oc.shape, bk, rng, arr, &any_fail);
    }
    if (rc == 0 && o.format == FMT_JSON) {
        json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', stdout);
    }
    json_decref(arr);
    gsl_rng_free(rng);
    if (rc) return rc;
    if (any_fail) {
        fprintf(stderr, "fasim check: FAILED (FlashAttention rule, %s)\n", fa_dtype_name(o.shape.dtype));
        return EXIT_RUN;
    }
    if (o.format == FMT_TABLE) printf("all passed the FlashAttention rule in %s\n", fa_dtype_name(o.shape.dtype));
    return 0;
}

/* ---------------------------------------------------------------- external tensors */

typedef struct {
    fa_npy a;
    const char *path;
} ext;

/* (B, H, N, D) of a file in the chosen layout; 2-D (N, D), 3-D without B */
static fa_status dims4(const ext *x, int bnhd, int64_t d4[4])
{
    const fa_npy *a = &x->a;
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
        FA_FAIL(FA_EINVAL, "%s: shape has %d dimensions; expected (B, %s, d) with 2 to 4 dimensions", x->path,
                a->ndim, bnhd ? "N, H" : "H, N");
    }
    if (B < 1 || H < 1 || N < 1 || D < 1) FA_FAIL(FA_EINVAL, "%s: shape has a zero dimension", x->path);
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

static void print_pos(char *buf, size_t n, const fa_npy *a, int64_t at)
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

static void print_shape(char *buf, size_t n, const fa_npy *a)
{
    size_t u = (size_t)snprintf(buf, n, "(");
    for (int k = 0; k < a->ndim && u < n; k++)
        u += (size_t)snprintf(buf + u, n - u, "%" PRId64 "%s", a->shape[k], k + 1 < a->ndim ? ", " : "");
    if (u < n) snprintf(buf + u, n - u, ")");
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

static int run_external(const cli_opts *o, const num_opts *no)
{
    if (!no->q || !no->k || !no->v || !no->out) {
        fprintf(stderr, "fasim: external check needs --q, --k, --v and --out (.npy files)\n");
        return EXIT_USAGE;
    }
    int nb = (no->dout != NULL) + (no->dq != NULL) + (no->dk != NULL) + (no->dv != NULL);
    if (nb != 0 && nb != 4) {
        fprintf(stderr, "fasim: the backward check needs all of --dout, --dq, --dk and --dv\n");
        return EXIT_USAGE;
    }
    enum { XQ, XK, XV, XO, XL, XDO, XDQ, XDK, XDV, NX };
    ext x[NX];
    memset(x, 0, sizeof x);
    const char *paths[NX] = {no->q, no->k, no->v, no->out, no->lse, no->dout, no->dq, no->dk, no->dv};
    int rc = 0;
    fa_status st = FA_OK;
    double *buf[NX] = {0}, *ref[NX] = {0}, *nai[NX] = {0};
    prob p;
    memset(&p, 0, sizeof p);
    for (int t = 0; t < NX && !st; t++)
        if (paths[t]) {
            x[t].path = paths[t];
            st = fa_npy_read(paths[t], no->bf16, &x[t].a);
        }
    int64_t dq4[4], dk4[4], dv4[4], do4[4];
    if (!st) st = dims4(&x[XQ], no->bnhd, dq4);
    if (!st) st = dims4(&x[XK], no->bnhd, dk4);
    if (!st) st = dims4(&x[XV], no->bnhd, dv4);
    if (!st) st = dims4(&x[XO], no->bnhd, do4);
    if (st) goto fail;
    /* the shape, from q, k, v; shape options may repeat it, not contradict it */
    {
        const char *L0 = no->bnhd ? "(B, N, H, d)" : "(B, H, N, d)";
        const struct {
            const char *opt, *sym;
            int64_t given, file;
            int xi;
        } gv[] = {
            {"--batch", "B", o->shape.batch, dq4[0], XQ},      {"--heads", "H", o->shape.heads, dq4[1], XQ},
            {"--kv-heads", "H_kv", o->shape.kv_heads, dk4[1], XK}, {"--seqlen", "N_q", o->shape.seqlen_q, dq4[2], XQ},
            {"--seqlen-k", "N_k", o->shape.seqlen_k, dk4[2], XK}, {"--headdim", "d", o->shape.d, dq4[3], XQ},
            {"--headdim-v", "d_v", o->shape.d_v, dv4[3], XV},
        };
        for (size_t g = 0; g < sizeof gv / sizeof gv[0]; g++)
            if (gv[g].given > 0 && gv[g].given != gv[g].file) {
                st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                              "%s %" PRId64 " contradicts the files: %s %s has %s = %" PRId64
                              " (layout %s); the shape comes from the files, drop %s or make it %" PRId64,
                              gv[g].opt, gv[g].given, gv[g].xi == XQ ? "q" : gv[g].xi == XK ? "k" : "v",
                              x[gv[g].xi].path, gv[g].sym, gv[g].file, L0, gv[g].opt, gv[g].file);
                goto fail;
            }
    }
    fa_shape s = o->shape;
    s.batch = dq4[0], s.heads = dq4[1], s.seqlen_q = dq4[2], s.d = dq4[3];
    s.kv_heads = dk4[1], s.seqlen_k = dk4[2], s.d_v = dv4[3];
    const char *L = no->bnhd ? "(B, N, H, d)" : "(B, H, N, d)";
#define MISMATCH(cond, ...)                                   \
    if (cond) {                                               \
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, __VA_ARGS__); \
        goto fail;                                            \
    }
    MISMATCH(dk4[0] != s.batch || dv4[0] != s.batch || dv4[1] != s.kv_heads || dv4[2] != s.seqlen_k ||
                 dk4[3] != s.d,
             "shape mismatch: k %s has (B, H_kv, N_k, d) = (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
             "), v %s (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "), q %s has B = %" PRId64 ", d = %" PRId64
             " (layout %s)", x[XK].path, dk4[0], dk4[1], dk4[2], dk4[3], x[XV].path, dv4[0], dv4[1], dv4[2], dv4[3],
             x[XQ].path, s.batch, s.d, L);
    MISMATCH(s.heads % s.kv_heads != 0, "shape mismatch: q %s has H = %" PRId64 " heads, not a multiple of k's H_kv = %" PRId64,
             x[XQ].path, s.heads, s.kv_heads);
    MISMATCH(do4[0] != s.batch || do4[1] != s.heads || do4[2] != s.seqlen_q || do4[3] != s.d_v,
             "shape mismatch: --out %s should hold (B, H, N_q, d_v) = (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
             ") in layout %s", x[XO].path, s.batch, s.heads, s.seqlen_q, s.d_v, L);
    if (x[XL].path) {
        const fa_npy *a = &x[XL].a;
        MISMATCH(a->n != s.batch * s.heads * s.seqlen_q || a->ndim < 1 || a->shape[a->ndim - 1] != s.seqlen_q,
                 "shape mismatch: --lse %s should hold (B, H, N_q) = (%" PRId64 ", %" PRId64 ", %" PRId64 ")",
                 x[XL].path, s.batch, s.heads, s.seqlen_q);
    }
    for (int t = XDO; t <= XDV && nb; t++) {
        int64_t e4[4], *w = t == XDO ? do4 : t == XDQ ? dq4 : t == XDK ? dk4 : dv4;
        if ((st = dims4(&x[t], no->bnhd, e4))) goto fail;
        MISMATCH(memcmp(e4, w, sizeof e4) != 0, "shape mismatch: %s should have the shape of %s",
                 x[t].path, t == XDO ? "--out" : t == XDQ ? "q" : t == XDK ? "k" : "v");
    }
#undef MISMATCH
    /* the low precision of the naive baseline: --dtype, else the inputs' own format */
    fa_format f = x[XQ].a.format == FA_FMT_FP64 ? FA_FMT_FP32 : x[XQ].a.format;
    if (no->dtype_given) f = fa_dtype_format(o->shape.dtype);
    s.dtype = f == FA_FMT_FP16 ? FA_DTYPE_FP16 : f == FA_FMT_BF16 ? FA_DTYPE_BF16 : f == FA_FMT_E4M3 ? FA_DTYPE_E4M3
              : f == FA_FMT_E5M2 ? FA_DTYPE_E5M2 : FA_DTYPE_FP32;
    if ((int)s.causal < 0) s.causal = FA_CAUSAL_NONE;
    if (o->block_mask_path || o->col_mask_path || o->n_docs > 0 || o->dense_mask_path) {
        /* the mask files, read for the files' N_q and N_k (cli_resolve prints its message) */
        cli_opts om = *o;
        om.shape = s;
        if ((rc = cli_resolve(&om))) goto done;
        s = om.shape;
    }
    if ((st = fa_shape_check(&s)) || (st = check_size(&s, 1))) goto fail;
    if ((st = prob_alloc(&p, &s))) goto fail;
    /* The tolerance rule compares with naive attention in low precision: with a NaN or inf among
     * the inputs the reference and the baseline are not finite and the bound says nothing. */
    for (int t = XQ; t <= XDO; t++) {
        if (t == XO || t == XL || !x[t].path || (t == XDO && !nb)) continue;
        for (int64_t i = 0; i < x[t].a.n; i++)
            if (!isfinite(x[t].a.data[i])) {
                st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                              "input %s holds a non-finite value (%g) at flat index %" PRId64
                              ": the tolerance rule needs finite inputs", x[t].path, x[t].a.data[i], i);
                goto fail;
            }
    }
    relayout(x[XQ].a.data, p.Q, dq4, no->bnhd, 1);
    relayout(x[XK].a.data, p.K, dk4, no->bnhd, 1);
    relayout(x[XV].a.data, p.V, dv4, no->bnhd, 1);
    if (nb) relayout(x[XDO].a.data, p.dO, do4, no->bnhd, 1);
    const int64_t nO = fa_numel_o(&s), nS = fa_numel_stats(&s);
    const int64_t n[NX] = {0, 0, 0, nO, nS, 0, fa_numel_q(&s), fa_numel_k(&s), fa_numel_v(&s)};
    for (int t = XO; t < NX; t++)
        if (n[t]) {
            buf[t] = malloc((size_t)n[t] * sizeof(double));
            ref[t] = malloc((size_t)n[t] * sizeof(double));
            nai[t] = malloc((size_t)n[t] * sizeof(double));
            if (!buf[t] || !ref[t] || !nai[t]) {
                st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the check");
                goto fail;
            }
        }
    /* fp64 reference on the inputs as given; naive attention in the low precision */
    const fa_numerics nn = fa_numerics_for(f);
    fa_blocks bk = {64, 64};
    if ((st = fa_reference_forward(&s, p.Q, p.K, p.V, buf[XO], buf[XL]))) goto fail;
    relayout(buf[XO], ref[XO], do4, no->bnhd, 0);
    memcpy(ref[XL], buf[XL], (size_t)nS * sizeof(double));
    if ((st = run_fwd(FA_ALGO_STANDARD, &p, bk, &nn, buf[XO], NULL))) goto fail;
    relayout(buf[XO], nai[XO], do4, no->bnhd, 0);
    if (x[XL].path) naive_lse(&p, fa_dtype_bytes(s.dtype) == 4 ? FA_FMT_FP32 : nn.store, nai[XL]);
    if (nb) {
        if ((st = fa_reference_backward(&s, p.Q, p.K, p.V, p.dO, buf[XDQ], buf[XDK], buf[XDV]))) goto fail;
        relayout(buf[XDQ], ref[XDQ], dq4, no->bnhd, 0);
        relayout(buf[XDK], ref[XDK], dk4, no->bnhd, 0);
        relayout(buf[XDV], ref[XDV], dv4, no->bnhd, 0);
        if ((st = run_bwd(FA_ALGO_STANDARD, &p, bk, &nn, buf[XDQ], buf[XDK], buf[XDV]))) goto fail;
        relayout(buf[XDQ], nai[XDQ], dq4, no->bnhd, 0);
        relayout(buf[XDK], nai[XDK], dk4, no->bnhd, 0);
        relayout(buf[XDV], nai[XDV], dv4, no->bnhd, 0);
    }
    /* the verdicts */
    const char *tn[NX] = {"", "", "", "O", "LSE", "", "dQ", "dK", "dV"};
    int any_fail = 0;
    json_t *arr = json_array();
    if (o->format == FMT_TABLE) {
        printf("external tensors: B=%" PRId64 " H=%" PRId64 " H_kv=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64
               " d=%" PRId64 " d_v=%" PRId64 ", layout %s, %s inputs, mask %s, scale %.6g\n",
               s.batch, s.heads, s.kv_heads, s.seqlen_q, s.seqlen_k, s.d, s.d_v, L, fa_format_name(x[XQ].a.format),
               mask_name_of(&s), fa_shape_scale(&s));
        printf("reference: fp64 on the inputs as given; naive: standard attention in %s; rule: max|out - ref| <= "
               "2 x max|naive - ref| (gradients 3 x)\n", fa_format_name(f));
        printf("%-4s %-20s %11s %10s %-22s %12s %12s %11s %11s  %s\n", "", "shape", "max|out-ref|", "rel", "worst at",
               "out", "ref", "naive err", "bound", "verdict");
    } else if (o->format == FMT_CSV) {
        printf("tensor,file,max_abs_err,max_rel_err,worst_index,out,ref,naive_abs_err,bound,verdict\n");
    }
    for (int t = XO; t < NX; t++) {
        if (!x[t].path || t == XDO) continue;
        err_t e = max_err(x[t].a.data, ref[t], n[t]), en = max_err(nai[t], ref[t], n[t]);
        double factor = t >= XDQ ? 3.0 : 2.0, bound = factor * en.abs;
        int pass = e.abs <= bound && isfinite(bound) && !isnan(e.abs); /* a vacuous bound never passes */
        if (!pass) any_fail = 1;
        char pos[96], shp[96];
        print_pos(pos, sizeof pos, &x[t].a, e.at);
        print_shape(shp, sizeof shp, &x[t].a);
        if (o->format == FMT_TABLE)
            printf("%-4s %-20s %11.3e %10.3e %-22s %12.6g %12.6g %11.3e %11.3e  %s\n", tn[t], shp, e.abs, rel(e), pos,
                   x[t].a.data[e.at], ref[t][e.at], en.abs, bound, pass ? "PASS" : "FAIL");
        else if (o->format == FMT_CSV) {
            printf("%s,", tn[t]);
            cli_csv_field(stdout, x[t].path); /* a path may hold a comma or a quote */
            printf(",%.6e,%.6e,\"%s\",%.9g,%.9g,%.6e,%.6e,%s\n", e.abs, rel(e), pos, x[t].a.data[e.at],
                   ref[t][e.at], en.abs, bound, pass ? "pass" : "fail");
        }
        else {
            json_t *j = json_object();
            json_object_set_new(j, "tensor", json_string(tn[t]));
            json_object_set_new(j, "file", json_string(x[t].path));
            json_object_set_new(j, "max_abs_err", json_real(e.abs));
            json_object_set_new(j, "max_rel_err", json_real(rel(e)));
            json_object_set_new(j, "worst_index", json_string(pos));
            json_object_set_new(j, "naive_abs_err", json_real(en.abs));
            json_object_set_new(j, "bound", json_real(bound));
            json_object_set_new(j, "pass", json_boolean(pass));
            json_array_append_new(arr, j);
        }
    }
    if (o->format == FMT_JSON) {
        json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', stdout);
    }
    json_decref(arr);
    if (o->format == FMT_TABLE) printf("verdict: %s\n", any_fail ? "FAIL" : "PASS");
    rc = any_fail ? EXIT_RUN : 0;
    goto done;
fail:
    rc = cli_fail(st);
done:
    prob_free(&p);
    for (int t = 0; t < NX; t++) {
        fa_npy_free(&x[t].a);
        free(buf[t]);
        free(ref[t]);
        free(nai[t]);
    }
    return rc;
}

/* ---------------------------------------------------------------- --save-npy: a sample problem */

static fa_status save_one(const char *dir, const char *name, fa_format f, const double *x, const int64_t d4[4],
                          int bnhd)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int64_t n = d4[0] * d4[1] * d4[2] * d4[3];
    double *y = malloc((size_t)n * sizeof *y);
    if (!y) FA_FAIL(FA_ENOMEM, "out of host memory");
    relayout(x, y, d4, bnhd, 0);
    int64_t shape[4] = {d4[0], bnhd ? d4[2] : d4[1], bnhd ? d4[1] : d4[2], d4[3]};
    fa_status st = fa_npy_write(path, f, 4, shape, y);
    free(y);
    return st;
}

static int run_save(const cli_opts *o0, const num_opts *no)
{
    cli_opts o = *o0;
    if (o.shape.seqlen_q < 0) o.shape.seqlen_q = 128;
    if (o.shape.heads < 0 && o.shape.kv_heads < 0) o.shape.heads = 2;
    if ((int)o.shape.dtype < 0) o.shape.dtype = FA_DTYPE_BF16;
    int rc = cli_resolve(&o);
    if (rc) return rc;
    const fa_shape *s = &o.shape;
    fa_format f = fa_dtype_format(s->dtype);
    if (f == FA_FMT_E4M3 || f == FA_FMT_E5M2) {
        fprintf(stderr, "fasim: --save-npy writes fp32, fp16 or bf16 (.npy has no fp8)\n");
        return EXIT_USAGE;
    }
    fa_status st = check_size(s, 0);
    if (st) return cli_fail(st);
    struct stat sb_;
    if ((mkdir(no->save_npy, 0777) != 0 && errno != EEXIST) || stat(no->save_npy, &sb_) != 0 || !S_ISDIR(sb_.st_mode)) {
        fprintf(stderr, "fasim: cannot create the directory %s (%s)\n", no->save_npy,
                errno == EEXIST || errno == 0 ? "a file of that name exists" : strerror(errno));
        return EXIT_USAGE;
    }
    prob p;
    double *O = NULL, *L = NULL, *dQ = NULL, *dK = NULL, *dV = NULL;
    if ((st = prob_alloc(&p, s))) return cli_fail(st);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, o.seed);
    gauss(rng, p.Q, fa_numel_q(s));
    gauss(rng, p.K, fa_numel_k(s));
    gauss(rng, p.V, fa_numel_v(s));
    gauss(rng, p.dO, fa_numel_o(s));
    gsl_rng_free(rng);
    prob_quantize(&p, f);
    O = malloc((size_t)fa_numel_o(s) * sizeof *O), L = malloc((size_t)fa_numel_stats(s) * sizeof *L);
    dQ = malloc((size_t)fa_numel_q(s) * sizeof *dQ), dK = malloc((size_t)fa_numel_k(s) * sizeof *dK);
    dV = malloc((size_t)fa_numel_v(s) * sizeof *dV);
    const fa_numerics nu = numerics_of(f, no);
    fa_blocks bk = {64, 64};
    st = (O && L && dQ && dK && dV) ? FA_OK : FA_ENOMEM;
    if (!st) st = run_fwd(FA_ALGO_FLASH2, &p, bk, &nu, O, L); /* fasim's FlashAttention-2 in the dtype */
    if (!st) st = run_bwd(FA_ALGO_FLASH2, &p, bk, &nu, dQ, dK, dV);
    int64_t q4[4] = {s->batch, s->heads, s->seqlen_q, s->d}, k4[4] = {s->batch, s->kv_heads, s->seqlen_k, s->d},
            v4[4] = {s->batch, s->kv_heads, s->seqlen_k, s->d_v}, o4[4] = {s->batch, s->heads, s->seqlen_q, s->d_v};
    if (!st) st = save_one(no->save_npy, "q.npy", f, p.Q, q4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "k.npy", f, p.K, k4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "v.npy", f, p.V, v4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "o.npy", f, O, o4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "do.npy", f, p.dO, o4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "dq.npy", f, dQ, q4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "dk.npy", f, dK, k4, no->bnhd);
    if (!st) st = save_one(no->save_npy, "dv.npy", f, dV, v4, no->bnhd);
    if (!st) {
        char path[1200];
        snprintf(path, sizeof path, "%s/lse.npy", no->save_npy);
        int64_t l3[3] = {s->batch, s->heads, s->seqlen_q};
        st = fa_npy_write(path, FA_FMT_FP32, 3, l3, L);
    }
    prob_free(&p);
    free(O);
    free(L);
    free(dQ);
    free(dK);
    free(dV);
    if (st) return cli_fail(st);
    if (!o.quiet)
        printf("wrote q, k, v, o, lse, do, dq, dk, dv .npy (%s, layout %s, fasim's flash2 in %s) to %s\n",
               fa_format_name(f), no->bnhd ? "(B, N, H, d)" : "(B, H, N, d)", fa_format_name(f), no->save_npy);
    return 0;
}

/* ---------------------------------------------------------------- --study: error studies */

typedef struct {
    const char *name;
    fa_algo algo;
    int exp2;
} study_algo;

static const study_algo S_ALGOS[] = {
    {"standard", FA_ALGO_STANDARD, 0}, {"flash1", FA_ALGO_FLASH1, 0},
    {"flash2", FA_ALGO_FLASH2, 0},     {"flash2_exp2", FA_ALGO_FLASH2, 1},
};
static const fa_dtype S_DTYPES[] = {FA_DTYPE_FP32, FA_DTYPE_FP16, FA_DTYPE_BF16, FA_DTYPE_E4M3, FA_DTYPE_E5M2};

/* One study point: rows for every algorithm of `algos` in dtype t, inputs N(0,1) with `outliers`
 * entries of K set to +-outlier (0: none).  Columns: see study_header. */
static fa_status study_point(FILE *f, fa_dtype t, int64_t N, int64_t d, double outlier, unsigned long seed,
                             const char *lead)
{
    fa_shape s = fa_shape_default(N, d);
    s.dtype = t;
    prob p;
    fa_status st = prob_alloc(&p, &s);
    int64_t n = N * d;
    double *ref = malloc((size_t)n * sizeof *ref), *exact = malloc((size_t)n * sizeof *exact),
           *nai = malloc((size_t)n * sizeof *nai), *out = malloc((size_t)n * sizeof *out);
    if (!st && (!ref || !exact || !nai || !out)) st = FA_ENOMEM;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    if (!st) {
        gauss(rng, p.Q, n);
        gauss(rng, p.K, n);
        gauss(rng, p.V, n);
        for (int k = 0; outlier > 0 && k < 8; k++) /* a few very large values, as in LLM activations */
            p.K[gsl_rng_uniform_int(rng, (unsigned long)n)] = (k % 2 ? -outlier : outlier);
        st = fa_reference_forward(&s, p.Q, p.K, p.V, exact, NULL); /* before rounding the inputs */
    }
    gsl_rng_free(rng);
    const fa_format fm = fa_dtype_format(t);
    if (!st) prob_quantize(&p, fm);
    if (!st) st = fa_reference_forward(&s, p.Q, p.K, p.V, ref, NULL);
    const fa_numerics nn = fa_numerics_for(fm);
    fa_blocks bk = {N < 64 ? N : 64, N < 64 ? N : 64};
    if (!st) st = run_fwd(FA_ALGO_STANDARD, &p, bk, &nn, nai, NULL);
    err_t en = max_err(nai, ref, n);
    for (size_t k = 0; !st && k < sizeof S_ALGOS / sizeof S_ALGOS[0]; k++) {
        fa_numerics nu = nn;
        nu.exp2 = S_ALGOS[k].exp2;
        st = run_fwd(S_ALGOS[k].algo, &p, bk, &nu, out, NULL);
        if (st) break;
        err_t e = max_err(out, ref, n), ee = max_err(out, exact, n);
        fprintf(f, "%s,%s,%s,%" PRId64 ",%" PRId64 ",%.6e,%.6e,%.6e,%.6e,%.6e\n", lead, fa_dtype_name(t),
                S_ALGOS[k].name, N, d, e.abs, rel(e), en.abs, en.abs > 0 ? e.abs / en.abs : 0, rel(ee));
    }
    prob_free(&p);
    free(ref);
    free(exact);
    free(nai);
    free(out);
    return st;
}

/* gnuplot plots/<script> from infile to outfile; 0 on success. */
static int plot(const char *script, const char *infile, const char *outfile)
{
    char vars[3000], path[1200];
    snprintf(vars, sizeof vars, "infile='%s'; outfile='%s'", infile, outfile);
    const char *pd = getenv("FASIM_PLOTS_DIR");
    snprintf(path, sizeof path, "%s/%s", pd ? pd : FASIM_PLOTS_DIR, script);
    char *argv[] = {"gnuplot", "-e", vars, path, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0) return -1;
    int ws;
    if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) return -1;
    return 0;
}

/* The study's sizes: every point runs the fp64 reference twice, naive attention (which holds
 * N x N scores) and four tiled algorithms in emulated precision, for five dtypes, so the N
 * sweep costs O(N_max^2 d) and the d sweep O(256^2 d_max).  At the limits it takes minutes
 * (N = 4096: about 4 min on one core); docs/numerics.md. */
#define STUDY_MAX_N 4096
#define STUDY_MAX_D 1024

static int run_study(const cli_opts *o, const num_opts *no)
{
    const int64_t maxn = o->shape.seqlen_q > 0 ? o->shape.seqlen_q : 1024;
    const int64_t maxd = o->shape.d > 0 ? o->shape.d : 256;
    if (maxn < 16 || maxd < 16) {
        fprintf(stderr, "fasim: --study needs --seqlen >= 16 and --headdim >= 16\n");
        return EXIT_USAGE;
    }
    if (maxn > STUDY_MAX_N || maxd > STUDY_MAX_D) {
        fprintf(stderr, "fasim: --study --%s %" PRId64 " is over the limit %d (the study runs O(N^2 d) fp64 reference "
                        "and emulated-precision work per point; at the limit it takes minutes)\n",
                maxn > STUDY_MAX_N ? "seqlen" : "headdim", maxn > STUDY_MAX_N ? maxn : maxd,
                maxn > STUDY_MAX_N ? STUDY_MAX_N : STUDY_MAX_D);
        return EXIT_USAGE;
    }
    if (strchr(no->study, '\'')) { /* the paths go to gnuplot in single quotes */
        fprintf(stderr, "fasim: --study '%s' must not contain a quote\n", no->study);
        return EXIT_USAGE;
    }
    /* Every output opened before the work (an unwritable path: exit 2 at once), renamed into
     * place only when all are written (cli_outset.h). */
    static const char *const hdr = "dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err\n";
    static const char *const csv[3] = {"err_vs_n.csv", "err_vs_d.csv", "err_outliers.csv"};
    static const char *const png[3] = {"err_vs_n.png", "err_vs_d.png", "err_outliers.png"};
    static const char *const gp[3] = {"numerics_vs_n.gp", "numerics_vs_d.gp", "numerics_outliers.gp"};
    cli_outset os = {0};
    int ic[3], ip[3] = {-1, -1, -1};
    if (cli_outset_mkdir(&os, no->study)) return EXIT_USAGE;
    for (int part = 0; part < 3; part++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", no->study, csv[part]);
        if ((ic[part] = cli_outset_add(&os, path, 1)) < 0) goto bad_path;
        if (no->no_plots) continue;
        snprintf(path, sizeof path, "%s/%s", no->study, png[part]);
        if ((ip[part] = cli_outset_add(&os, path, 0)) < 0) goto bad_path;
    }
    fa_status st = FA_OK;
    for (int part = 0; part < 3 && !st; part++) {
        FILE *f = os.file[ic[part]].f;
        fputs(part == 2 ? "outlier," : part == 1 ? "fixed_n," : "fixed_d,", f);
        fputs(hdr, f);
        const int64_t d0 = maxd < 64 ? maxd : 64, n0 = maxn < 256 ? maxn : 256;
        for (size_t t = 0; t < sizeof S_DTYPES / sizeof S_DTYPES[0] && !st; t++) {
            char lead[32];
            if (part == 0)
                for (int64_t N = 16; N <= maxn && !st; N *= 2) { /* powers of two from 16, <= MAXN */
                    snprintf(lead, sizeof lead, "%" PRId64, d0);
                    if (!o->quiet) fprintf(stderr, "\rstudy: %s N = %" PRId64 "      ", fa_dtype_name(S_DTYPES[t]), N);
                    st = study_point(f, S_DTYPES[t], N, d0, 0, o->seed + (unsigned long)N, lead);
                }
            else if (part == 1)
                for (int64_t d = 16; d <= maxd && !st; d *= 2) {
                    snprintf(lead, sizeof lead, "%" PRId64, n0);
                    if (!o->quiet) fprintf(stderr, "\rstudy: %s d = %" PRId64 "      ", fa_dtype_name(S_DTYPES[t]), d);
                    st = study_point(f, S_DTYPES[t], n0, d, 0, o->seed + (unsigned long)d, lead);
                }
            else
                for (double m = 1; m <= 1024 && !st; m *= 4) {
                    snprintf(lead, sizeof lead, "%g", m);
                    if (!o->quiet) fprintf(stderr, "\rstudy: %s outlier %g      ", fa_dtype_name(S_DTYPES[t]), m);
                    st = study_point(f, S_DTYPES[t], n0, d0, m > 1 ? m : 0, o->seed, lead);
                }
        }
        if (!st && (fflush(f) != 0 || ferror(f))) {
            if (!o->quiet) fprintf(stderr, "\r%40s\r", "");
            fprintf(stderr, "fasim: cannot write %s/%s: %s\n", no->study, csv[part], strerror(errno));
            cli_outset_abort(&os);
            return EXIT_RUN;
        }
    }
    if (!o->quiet) fprintf(stderr, "\r%40s\r", "");
    if (st) {
        cli_outset_abort(&os);
        return cli_fail(st);
    }
    int plotted = 0;
    for (int part = 0; part < 3 && !no->no_plots; part++) {
        if (plot(gp[part], cli_outset_target(&os, ic[part]), cli_outset_target(&os, ip[part])) == 0) plotted++;
        else cli_outset_drop(&os, ip[part]); /* no PNG, as before: the CSVs are the result */
    }
    int rc = cli_outset_commit(&os);
    if (rc) return rc;
    if (!o->quiet)
        printf("wrote %s/{err_vs_n,err_vs_d,err_outliers}.csv%s\n", no->study,
               plotted == 3 ? " and .png" : no->no_plots ? "" : " (gnuplot failed: no PNG)");
    return 0;
bad_path: /* its message printed */
    cli_outset_abort(&os);
    return EXIT_USAGE;
}

/* ---------------------------------------------------------------- entry */

int cmd_check_numerics(int argc, char **argv, const num_opts *no)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, OPT_SHAPE | OPT_ALGO | OPT_HW | OPT_FORMAT | OPT_CHECK | OPT_QUIET, &o, NULL,
                       0, NULL);
    if (rc) return rc;
    if (no->q || no->k || no->v || no->out || no->lse || no->dout || no->dq || no->dk || no->dv)
        return run_external(&o, no);
    if (no->study) return run_study(&o, no);
    if (no->save_npy) return run_save(&o, no);
    if (!no->dtype_given) {
        fprintf(stderr, "fasim: --pass bwd, --exp2 and --acc need --dtype (the precision to emulate; --dtype fp32 checks the gradients of every algorithm and mask in fp32 against the fp64 reference)\n");
        return EXIT_USAGE;
    }
    return run_lowprec(&o, no);
}
