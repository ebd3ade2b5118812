/* cmd_numerics.c -- `fasim check` beyond fp64: the options, and the rows printed, of
 *   --dtype T          each algorithm run in emulated precision T against the fp64 reference, next
 *                      to naive attention run in T (fa_check_lowprec; docs/numerics.md), with
 *                      --inputs, --fp8-quant, --hadamard: FlashAttention-3's FP8 inputs;
 *   --q --k --v --out  an external kernel's tensors (.npy) judged the same way (fa_ext_load,
 *                      fa_ext_check; docs/validate.md);
 *   --study DIR        error vs N, vs d and with outliers, for every dtype: CSV + gnuplot PNGs
 *                      (fa_study_point; all files written or none);
 *   --save-npy DIR     a sample problem written as .npy files (fa_check_save_sample).
 * and the rows of the fp64 and --dtype suites (cli_check_suite, fa_check_suite).
 * The checks themselves: analysis/check.c. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_numerics.h"
#include "cli_outset.h"
#include "fa_check.h"

/* ---------------------------------------------------------------- options */

int cli_numerics_take(void *ctx, cli_opts *o, int id, const char *name, const char *v)
{
    (void)o;
    num_opts *no = ctx;
    const char **dst = id == O_C_Q ? &no->q : id == O_C_K ? &no->k : id == O_C_V ? &no->v : id == O_C_OUT ? &no->out
                     : id == O_C_LSE ? &no->lse : id == O_C_DOUT ? &no->dout : id == O_C_DQ ? &no->dq
                     : id == O_C_DK ? &no->dk : id == O_C_DV ? &no->dv : id == O_C_STUDY ? &no->study
                     : id == O_C_SAVE_NPY ? &no->save_npy : NULL;
    if (dst) {
        *dst = v;
        return 0;
    }
    if (id == O_C_LAYOUT || id == O_C_ACC || id == O_C_PASS) {
        if (id == O_C_LAYOUT) no->layout_given = 1;
        if (id == O_C_LAYOUT && (!strcmp(v, "bnhd") || !strcmp(v, "bhnd"))) no->bnhd = !strcmp(v, "bnhd");
        else if (id == O_C_ACC && (!strcmp(v, "fp32") || !strcmp(v, "fp64"))) no->acc64 = !strcmp(v, "fp64"), no->acc_given = 1;
        else if (id == O_C_PASS && (!strcmp(v, "fwd") || !strcmp(v, "bwd"))) no->bwd = !strcmp(v, "bwd");
        else
            return cli_usage("%s '%s' is not one of %s", name, v,
                             id == O_C_LAYOUT ? "bhnd, bnhd" : id == O_C_ACC ? "fp32, fp64" : "fwd, bwd");
        return 0;
    }
    if (id == O_C_INPUTS || id == O_C_FP8_QUANT) {
        const int inp = id == O_C_INPUTS;
        if (inp && (!strcmp(v, "normal") || !strcmp(v, "outliers"))) no->outliers = !strcmp(v, "outliers"), no->inputs_given = 1;
        else if (!inp && (!strcmp(v, "tensor") || !strcmp(v, "block"))) no->fp8_block = !strcmp(v, "block"), no->fp8_quant_given = 1;
        else return cli_usage("%s '%s' is not one of %s", name, v, inp ? "normal, outliers" : "tensor, block");
        return 0;
    }
    if (id == O_C_HADAMARD_SEED) {
        int64_t seed;
        if (cli_int(name, v, 0, INT64_MAX, &seed)) return EXIT_USAGE;
        no->hadamard_seed = (uint64_t)seed, no->hadamard_seed_given = 1;
        return 0;
    }
    if (id == O_C_HADAMARD) no->hadamard = 1;
    else if (id == O_C_BF16) no->bf16 = 1;
    else if (id == O_C_EXP2) no->exp2 = 1;
    else if (id == O_C_NO_PLOTS) no->no_plots = 1;
    else return cli_usage("%s: not a check option", name);
    return 0;
}

int cli_numerics_wanted(const num_opts *no)
{
    return no->dtype_given || no->q || no->k || no->v || no->out || no->study || no->save_npy ||
           no->bwd || no->exp2 || no->acc_given || no->lse || no->dout;
}

int cli_numerics_external(const num_opts *no)
{
    return no->q || no->k || no->v || no->out || no->lse || no->dout || no->dq || no->dk || no->dv;
}

/* ---------------------------------------------------------------- the suites: fp64 and --dtype */

typedef struct {
    const cli_opts *o;
    const num_opts *no; /* NULL: the fp64 check */
    fa_lowprec_opts lo; /* with no: the low-precision check's options */
    json_t *arr;
    int headed;         /* the fp64 table's header printed (before its first row, not before an error) */
} suite_ctx;

/* A configuration's shape resolved as the options' (defaults, mask files) and its tiles: the
 * options' --block-r/--block-c, else the suite case's, else the rule's (fp64, M grown by --blocks
 * paper's overflow) or 64 x 64 (--dtype). */
static int suite_prepare(void *ctx, fa_shape *s, fa_blocks *bk, uint64_t *M)
{
    const suite_ctx *x = ctx;
    cli_opts oc = *x->o;
    oc.shape = *s;
    int rc = cli_resolve(&oc);
    if (rc) return rc;
    *s = oc.shape;
    if (oc.blocks == BLOCKS_EXPLICIT) *bk = (fa_blocks){oc.block_r, oc.block_c};
    if (x->no) { /* the FP8 forward's input preparation: 128 x 128 tiles and blocks (docs/numerics.md) */
        const int fp8 = x->no->fp8_quant_given || x->no->hadamard;
        if (bk->block_r == 0) *bk = fp8 ? (fa_blocks){128, 128} : (fa_blocks){64, 64};
        return 0;
    }
    if (bk->block_r > 0) oc.blocks = BLOCKS_EXPLICIT, oc.block_r = bk->block_r, oc.block_c = bk->block_c;
    uint64_t over;
    fa_status st = cli_blocks(&oc, bk, &over);
    *M = oc.sram + over;
    return st ? cli_fail(st) : 0;
}

/* Prints the row of one algorithm on one configuration, or appends it to the JSON array. */
static void suite_row(void *ctx, const fa_shape *s, fa_blocks bk, const fa_check_row *r, const fa_lowprec_row *lp)
{
    const suite_ctx *x = ctx;
    const out_format fmt = x->o->format;
    char c[256], lse_txt[32] = "n/a"; /* standard attention computes no LSE */
    /* the mask column as wide as the built-in suites' widest mask, "causal (bottom-right)" */
    enum { MASK_W = 21 };
    if (r && r->algo != FA_ALGO_STANDARD) snprintf(lse_txt, sizeof lse_txt, "%.3e", r->abs_lse);
    if (r && fmt == FMT_TABLE && !x->headed) { /* the columns of the fp64 check */
        ((suite_ctx *)ctx)->headed = 1;
        printf("each algorithm in fp64 against the fp64 reference on N(0,1) inputs (seed %lu), on the tiles B_r x B_c "
               "(--block-r/--block-c, else the suite case's, else --blocks fit in the paper's model of one SRAM of --sram, "
               "sized for 2-byte elements -- not a kernel profile's tile table): abs = "
               "max |O - O_ref|, rel = abs / max |O_ref|, lse = max |LSE - LSE_ref| (n/a: standard computes no LSE); PASS: "
               "rel <= %.1e and lse <= %.1e x max(1, max |LSE_ref|)\n", (unsigned long)x->o->seed, x->o->tol, x->o->tol);
    }
    if (r && fmt == FMT_TABLE)
        printf("%-9s B=%-2" PRId64 " H=%-2" PRId64 " H_kv=%-2" PRId64 " N_q=%-5" PRId64 " N_k=%-5" PRId64
               " d=%-3" PRId64 " d_v=%-3" PRId64 " %-*s B_r=%-3" PRId64 " B_c=%-3" PRId64
               "  abs %.3e  rel %.3e  lse %-9s  %s\n",
               fa_algo_name(r->algo), s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v,
               MASK_W, fa_mask_name(s, c, sizeof c), bk.block_r, bk.block_c, r->abs_o, r->rel_o, lse_txt, r->pass ? "PASS" : "FAIL");
    if (r && fmt == FMT_TABLE && r->algo == FA_ALGO_FLASH2 && x->o->given[O_RESCALE_THRESHOLD] && r->rescale_blocks)
        printf("          rescales (threshold %g): %" PRIu64 " of %" PRIu64 " tile steps, %.2f per row block (max %" PRIu64
               "; unconditional %.2f)\n", s->rescale_threshold, r->rescales, r->rescale_steps,
               (double)r->rescales / (double)r->rescale_blocks, r->rescale_max,
               (double)r->rescale_steps / (double)r->rescale_blocks);
    if (r && fmt == FMT_TABLE)
        return;
    if (r && fmt == FMT_CSV)
        fa_check_csv_row(stdout, s, bk, r);
    else if (r)
        json_array_append_new(x->arr, fa_check_json(s, bk, r));
    else if (fmt == FMT_TABLE) {
        /* the rule of docs/numerics.md in one unit, the absolute error: err <= F x naive + atol;
         * the ratio err / naive beside it, apart */
        const double bound = lp->factor * lp->naive.abs + lp->atol;
        printf("%-8s %-2s B=%-2" PRId64 " H=%-2" PRId64 " H_kv=%-2" PRId64 " N_q=%-4" PRId64 " N_k=%-4" PRId64
               " d=%-3" PRId64 " %-*s B_r=%-3" PRId64 " B_c=%-3" PRId64 " %-8s err %.3e %s %.0f x naive %.3e + atol %.3e = %.3e  (%.2f x naive)  rel err %.2e  "
               "rmse %.2e  %s%s\n",
               fa_algo_name(lp->algo), lp->tensor, s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d,
               MASK_W, fa_mask_name(s, c, sizeof c), bk.block_r, bk.block_c, fa_dtype_name(s->dtype), lp->err.abs,
               lp->err.abs <= bound ? "<=" : "> ", lp->factor, lp->naive.abs, lp->atol, bound, lp->ratio, fa_err_rel(lp->err),
               lp->err.rmse, lp->pass ? "PASS" : "FAIL",
               lp->by_floor ? " (by the rounding floor: both errors at the dtype's rounding level)" : "");
        printf("%-11s end to end: err %.3e rmse %.2e\n", "", lp->e2e.abs, lp->e2e.rmse);
    } else if (fmt == FMT_CSV)
        fa_lowprec_csv_row(stdout, s, &x->lo, lp);
    else
        json_array_append_new(x->arr, fa_lowprec_json(s, &x->lo, lp));
}

int cli_check_suite(const cli_opts *o, const num_opts *no)
{
    fa_algo algos[FA_NALGO];
    for (int k = 0; k < o->n_algos; k++) algos[k] = (fa_algo)o->algos[k];
    suite_ctx x = {o, no, {0}, json_array(), 0};
    fa_check_suite_req q = {.lowprec = no != NULL, .algos = algos, .n_algos = o->n_algos, .tol = o->tol, .seed = o->seed,
                            .prepare = suite_prepare, .row = suite_row, .ctx = &x};
    if (no)
        x.lo = q.lo = (fa_lowprec_opts){.exp2 = no->exp2, .acc64 = no->acc64, .bwd = no->bwd, .outliers = no->outliers,
                                        .fp8_prep = no->fp8_quant_given || no->hadamard, .fp8_block = no->fp8_block,
                                        .hadamard = no->hadamard, .hadamard_seed = no->hadamard_seed};
    const char *dt = fa_dtype_name(o->shape.dtype);
    if (o->format == FMT_CSV) fputs(no ? fa_lowprec_csv_header : fa_check_csv_header, stdout);
    if (no && o->format == FMT_TABLE) {
        printf("emulated %s (fp32 accumulation%s%s) vs the fp64 reference on the same rounded inputs; "
               "naive = standard attention in %s; rule: err <= %d x naive err + atol (the dtype's rounding floor); "
               "tiles B_r x B_c: --block-r/--block-c, else the suite case's, else %s\n",
               dt, no->acc64 ? " -> fp64" : "", no->exp2 ? ", exp2 softmax" : "", dt, no->bwd ? 3 : 2,
               no->fp8_quant_given || no->hadamard ? "128 x 128 (the FP8 forward's blocks)" : "64 x 64 (this check's fixed default)");
        printf("inputs %s, rounded to %s %s%s", no->outliers ? "N(0,1) + N(0,100) Bernoulli(0.001) (outliers)" : "N(0,1)",
               dt, x.lo.fp8_prep && no->fp8_block ? "per block of the tiles' B_r (Q) and B_c (K, V) rows (B_r, B_c: each row's; "
                                                    "128 x 128 on a shape given by options, unless --block-r/--block-c)"
                                                  : "per tensor",
               no->hadamard ? " after incoherent processing of Q and K" : "");
        if (no->hadamard) printf(" (Hadamard seed %" PRIu64 ")", no->hadamard_seed);
        printf("; end to end: against the fp64 reference on the inputs before rounding\n");
    }

    int rc, any_fail;
    fa_status st = fa_check_suite(&q, &o->shape, &rc, &any_fail);
    if (!rc && st) rc = cli_fail(st);
    if (rc == 0 && o->format == FMT_JSON) cli_dump_json(x.arr, stdout);
    json_decref(x.arr);
    if (rc) return rc;
    if (any_fail && no) fprintf(stderr, "fasim check: FAILED (FlashAttention rule, %s)\n", dt);
    else if (any_fail) fprintf(stderr, "fasim check: FAILED (tolerance %.1e)\n", o->tol);
    if (any_fail) return EXIT_RUN;
    if (no && o->format == FMT_TABLE) printf("all passed the FlashAttention rule in %s\n", dt);
    else if (o->format == FMT_TABLE) printf("all passed (rel <= %.1e of max |O_ref| and lse <= %.1e x max(1, max |LSE_ref|))\n", o->tol, o->tol);
    return 0;
}

/* ---------------------------------------------------------------- external tensors */

static int run_external(const cli_opts *o, const num_opts *no)
{
    const char *paths[FA_EXT_N] = {no->q, no->k, no->v, no->out, no->lse, no->dout, no->dq, no->dk, no->dv};
    fa_ext x;
    fa_ext_row rows[FA_EXT_N];
    int n = 0, rc = 0;
    fa_status st = fa_ext_load(paths, no->bnhd, no->bf16, &o->shape, no->dtype_given, &x);
    if (!st && (o->block_mask_path || o->col_mask_path || o->n_docs > 0 || o->dense_mask_path)) {
        /* the mask files, read for the files' N_q and N_k (cli_resolve prints its message) */
        cli_opts om = *o;
        om.shape = x.shape;
        if ((rc = cli_resolve(&om))) goto done;
        x.shape = om.shape;
    }
    if (!st) st = fa_ext_check(&x, rows, &n);
    if (st) {
        rc = cli_fail(st);
        goto done;
    }
    const fa_shape *s = &x.shape;
    char mb[256];
    int any_fail = 0;
    json_t *arr = json_array();
    if (o->format == FMT_TABLE) {
        printf("external tensors: B=%" PRId64 " H=%" PRId64 " H_kv=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64
               " d=%" PRId64 " d_v=%" PRId64 ", layout %s, %s inputs, mask %s, scale %.6g\n",
               s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v, fa_ext_layout_name(x.bnhd),
               fa_format_name(x.a[FA_EXT_Q].format), fa_mask_name(s, mb, sizeof mb), fa_shape_scale(s));
        printf("reference: fp64 on the inputs as given; naive: standard attention in %s; rule: max|out - ref| <= "
               "2 x max|naive - ref| (gradients 3 x), no rounding floor; the bound capped at 16 u max|ref|, u = %.3g "
               "the unit roundoff of %s\n", fa_format_name(x.format), fa_unit_roundoff(x.format), fa_format_name(x.format));
        printf("%-4s %-20s %11s %10s %-22s %12s %12s %11s %11s  %s\n", "", "shape", "max|out-ref|", "rel", "worst at",
               "out", "ref", "naive err", "bound", "verdict");
    } else if (o->format == FMT_CSV) {
        fputs(fa_ext_csv_header, stdout);
    }
    for (int i = 0; i < n; i++) {
        const fa_ext_row *r = &rows[i];
        any_fail |= !r->pass;
        if (o->format == FMT_TABLE)
            printf("%-4s %-20s %11.3e %10.3e %-22s %12.6g %12.6g %11.3e %11.3e  %s\n", r->name, r->shape_text,
                   r->err.abs, fa_err_rel(r->err), r->index, r->out, r->ref, r->naive.abs, r->bound,
                   r->pass ? "PASS" : "FAIL");
        if (o->format == FMT_TABLE && r->why && !r->pass) printf("     (%s)\n", r->why);
        if (o->format == FMT_TABLE && r->capped)
            printf("     (the bound is the cap 16 u max|ref|: naive attention's own error, %.3e, is beyond what a "
                   "correct kernel makes in this precision)\n", r->naive.abs);
        else if (o->format == FMT_CSV)
            fa_ext_csv_row(stdout, r);
        else
            json_array_append_new(arr, fa_ext_json(r));
    }
    if (o->format == FMT_JSON) cli_dump_json(arr, stdout);
    json_decref(arr);
    if (o->format == FMT_TABLE) printf("verdict: %s\n", any_fail ? "FAIL" : "PASS");
    rc = any_fail ? EXIT_RUN : 0;
done:
    fa_ext_free(&x);
    return rc;
}

/* ---------------------------------------------------------------- --save-npy: a sample problem */

static int run_save(const cli_opts *o0, const num_opts *no)
{
    cli_opts o = *o0;
    if (o.shape.seqlen_q < 0) o.shape.seqlen_q = 128;
    if (o.shape.heads < 0 && o.shape.kv_heads < 0) o.shape.heads = 2;
    if ((int)o.shape.dtype < 0) o.shape.dtype = FA_DTYPE_BF16;
    int rc = cli_resolve(&o);
    if (rc) return rc;
    const fa_lowprec_opts lo = {.exp2 = no->exp2, .acc64 = no->acc64};
    int write_failed = 0;
    fa_status st = fa_check_save_sample(no->save_npy, &o.shape, no->bnhd, o.seed, &lo, &write_failed);
    if (st) {
        const int code = cli_fail(st);
        return write_failed ? EXIT_RUN : code; /* a full disk is the run's failure, not the input's */
    }
    const fa_format f = fa_dtype_format(o.shape.dtype);
    if (!o.quiet)
        printf("wrote q, k, v, o, lse, do, dq, dk, dv .npy (%s, layout %s, fasim's flash2 in %s) to %s\n",
               fa_format_name(f), fa_ext_layout_name(no->bnhd), fa_format_name(f), no->save_npy);
    if (!o.quiet && o.shape.dtype == FA_DTYPE_BF16) { /* the reader cannot tell bf16 bits from integers */
        char mb[256];
        const char *mask = fa_mask_name(&o.shape, mb, sizeof mb);
        printf("bf16 has no NumPy dtype: all but lse (<f4) hold bf16 bit patterns as dtype '<u2' (valid .npy; NumPy "
               "reads them as uint16), so reading them back needs --bf16: fasim check --q %s/q.npy --k %s/k.npy --v "
               "%s/v.npy --out %s/o.npy --lse %s/lse.npy --bf16%s%s%s%s\n",
               no->save_npy, no->save_npy, no->save_npy, no->save_npy, no->save_npy, no->bnhd ? " --layout bnhd" : "",
               strcmp(mask, "none") ? " (and this run's mask options: " : "", strcmp(mask, "none") ? mask : "",
               strcmp(mask, "none") ? ")" : "");
    }
    return 0;
}

/* ---------------------------------------------------------------- --study: error studies */

static int run_study(const cli_opts *o, const num_opts *no)
{
    const int64_t maxn = o->shape.seqlen_q > 0 ? o->shape.seqlen_q : 1024;
    const int64_t maxd = o->shape.d > 0 ? o->shape.d : 256;
    fa_status st = fa_study_limits(maxn, maxd);
    if (st) return cli_fail(st);
    if (strchr(no->study, '\'')) { /* the paths go to gnuplot in single quotes */
        fprintf(stderr, "fasim: --study '%s' must not contain a quote\n", no->study);
        return EXIT_USAGE;
    }
    /* Every output opened before the work (an unwritable path: exit 2 at once), renamed into
     * place only when all are written (cli_outset.h). */
    static const char *const csv[3] = {"err_vs_n.csv", "err_vs_d.csv", "err_outliers.csv"};
    static const char *const png[3] = {"err_vs_n.png", "err_vs_d.png", "err_outliers.png"};
    static const char *const gp[3] = {"numerics_vs_n.gp", "numerics_vs_d.gp", "numerics_outliers.gp"};
    cli_outset os = {0};
    int ic[3], ip[3] = {-1, -1, -1};
    /* progress lines (\r) on a terminal only, as fasim sweep's: a log or a pipe gets none */
    FILE *progress = !o->quiet && isatty(2) ? stderr : NULL;
    if (cli_outset_mkdir(&os, no->study)) return EXIT_USAGE;
    for (int part = 0; part < 3; part++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", no->study, csv[part]);
        if ((ic[part] = cli_outset_add(&os, path, 1)) < 0) goto bad_path;
        if (no->no_plots) continue;
        snprintf(path, sizeof path, "%s/%s", no->study, png[part]);
        if ((ip[part] = cli_outset_add(&os, path, 0)) < 0) goto bad_path;
    }
    for (int part = 0; part < 3 && !st; part++) {
        FILE *f = os.file[ic[part]].f;
        st = fa_study_csv(f, part, maxn, maxd, o->seed, progress);
        if (!st && (fflush(f) != 0 || ferror(f))) {
            if (progress) fprintf(stderr, "\r%40s\r", "");
            fprintf(stderr, "fasim: cannot write %s/%s: %s\n", no->study, csv[part], strerror(errno));
            fa_outset_abort(&os);
            return EXIT_RUN;
        }
    }
    if (progress) fprintf(stderr, "\r%40s\r", "");
    if (st) {
        fa_outset_abort(&os);
        return cli_fail(st);
    }
    int plotted = 0;
    for (int part = 0; part < 3 && !no->no_plots; part++) {
        char vars[3000];
        snprintf(vars, sizeof vars, "infile='%s'; outfile='%s'", fa_outset_target(&os, ic[part]), fa_outset_target(&os, ip[part]));
        if (cli_gnuplot(gp[part], vars, NULL) == 0) plotted++;
        else fa_outset_drop(&os, ip[part]); /* no PNG, as before: the CSVs are the result */
    }
    int rc = cli_outset_commit(&os);
    if (rc) return rc;
    if (!o->quiet)
        printf("wrote %s/{err_vs_n,err_vs_d,err_outliers}.csv%s\n", no->study,
               plotted == 3 ? " and .png" : no->no_plots ? "" : " (gnuplot failed: no PNG)");
    return 0;
bad_path: /* its message printed */
    fa_outset_abort(&os);
    return EXIT_USAGE;
}

/* ---------------------------------------------------------------- entry */

int cmd_check_numerics(cli_opts *po, const num_opts *no)
{
    cli_opts o = *po;
    if (cli_numerics_external(no)) return run_external(&o, no);
    if (no->study) return run_study(&o, no);
    if (no->save_npy) return run_save(&o, no);
    if (!no->dtype_given) {
        fprintf(stderr, "fasim: --pass bwd, --exp2 and --acc need --dtype (the precision to emulate; --dtype fp32 checks the gradients of every algorithm and mask in fp32 against the fp64 reference)\n");
        return EXIT_USAGE;
    }
    return cli_check_suite(&o, no);
}
