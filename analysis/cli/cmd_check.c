/* cmd_check.c -- `fasim check`: the tiled algorithms in numeric mode (fp64 arithmetic) on
 * random inputs, against the fp64 reference (fa_check_fp64, analysis/check.c); its options,
 * the built-in suite's configurations and the rows printed. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_numerics.h"
#include "fa_check.h"

static const char *const check_help =
    "usage: fasim check [shape options] [--algo ...] [--seed S] [--tol T] [--format table|csv|json]\n"
    "  Runs standard, flash1 and flash2 in numeric mode on random N(0,1) inputs (GSL mt19937,\n"
    "  --seed, default 42) and compares O (and LSE) with the fp64 reference computed directly.\n"
    "  Without shape options it runs a built-in suite of odd shapes (tails, N_q != N_k causal,\n"
    "  N = 1, d = 1, GQA, MQA).  Error: max|out - ref| (abs) and that over max|ref| (rel).\n"
    "  A configuration passes when rel <= --tol (default 1e-10).  Exit 1 if any fails.\n"
    "shape options: --batch --heads --kv-heads --seqlen --seqlen-k --headdim --headdim-v\n"
    "  --causal[=bottom-right|top-left] --scale --block-r --block-c\n"
    "  --blocks fit|paper --hw --sram (as in fasim io)\n"
    "masks and score modifiers (as in fasim io; docs/variants.md): --window L,R --softcap C --alibi\n"
    "  --block-mask FILE --col-mask FILE --doc-mask L1,L2,... --mask FILE --dropout p (--seed also\n"
    "  seeds the dropout)\n"
    "inference: --decode --kv-len N [--splits S|auto] [--gqa ...] [--page-size P] or\n"
    "  --cu-seqlens LIST|FILE [--cu-seqlens-k ...]: the inference kernels against the reference\n"
    "low precision (docs/numerics.md): --dtype fp32|fp16|bf16|fp8_e4m3|fp8_e5m2 (fp8, e4m3: aliases of\n"
    "  fp8_e4m3; e5m2: of fp8_e5m2) runs every algorithm emulated in that precision beside naive\n"
    "  attention in it; verdict max|out - ref| <= 2 max|naive - ref|\n"
    "  (--pass bwd: the gradients, 3x); --exp2 (log2 e folded into the scale), --acc fp32|fp64\n"
    "  --study DIR [--seqlen MAXN] [--headdim MAXD] [--seed S] [--no-plots] [--quiet]: error vs N, vs d\n"
    "  and with outliers, for all five dtypes (CSV + PNG; --no-plots: CSV only; --quiet: no progress\n"
    "  and no \"wrote\" line).  N = 16, 32, 64, ...: the powers of two from 16 up to the largest\n"
    "  <= MAXN (default 1024), at d = min(MAXD, 64); d = 16, 32, ... <= MAXD (default 256) at\n"
    "  N = min(MAXN, 256).  Limits: 16 <= MAXN <= 4096, 16 <= MAXD <= 1024.  The study takes no\n"
    "  other option (exit 2 naming it)\n"
    "external kernels (docs/validate.md): --q q.npy --k k.npy --v v.npy --out o.npy [--lse lse.npy]\n"
    "  [--dout do.npy --dq dq.npy --dk dk.npy --dv dv.npy] [--layout bhnd|bnhd] [--bf16] [--dtype T]\n"
    "  [--causal] [--scale] [masks and score modifiers] [--format]: the shape comes from the files\n"
    "  (a shape option may repeat it; one that contradicts it: exit 2 naming both values); the masks\n"
    "  and modifiers apply to the reference and to naive attention (mask files: at the files' N_q,\n"
    "  N_k); --seed only with --dropout.  The rule is fixed and fasim runs none of its own\n"
    "  algorithms, so --algo, --tol, --pass (the backward is checked when --dout ... --dv are given),\n"
    "  --exp2, --acc, --hw, --sram, --block-r, --block-c, --blocks, --quiet and --save-npy are\n"
    "  refused (exit 2 naming the option).  --bf16 applies only to these files\n"
    "  --save-npy DIR [--dtype] [shape options] [--layout]: writes a sample problem as .npy files\n";

/* Prints the row of one algorithm on one configuration, or appends it to arr (JSON). */
static void check_print(const cli_opts *o, const fa_shape *s, fa_blocks bk, const fa_check_row *r, json_t *arr)
{
    const fa_algo a = r->algo;
    char cbuf[256];
    const char *c = s->causal == FA_CAUSAL_NONE && !fa_has_mask(s) && !s->alibi && !(s->softcap > 0) && !(s->dropout_p > 0)
                        ? "none" : cli_check_mask_text(s, cbuf, sizeof cbuf);
    char lse_txt[32] = "n/a"; /* standard attention computes no LSE */
    if (a != FA_ALGO_STANDARD) snprintf(lse_txt, sizeof lse_txt, "%.3e", r->abs_lse);
    if (o->format == FMT_TABLE) {
        printf("%-9s B=%-2" PRId64 " H=%-2" PRId64 " H_kv=%-2" PRId64 " N_q=%-5" PRId64 " N_k=%-5" PRId64
               " d=%-3" PRId64 " d_v=%-3" PRId64 " %-12s B_r=%-3" PRId64 " B_c=%-3" PRId64
               "  abs %.3e  rel %.3e  lse %-9s  %s\n",
               fa_algo_name(a), s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d,
               s->d_v, c, bk.block_r, bk.block_c, r->abs_o, r->rel_o, lse_txt, r->pass ? "PASS" : "FAIL");
    } else if (o->format == FMT_CSV) {
        printf("%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
               fa_algo_name(a), s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v);
        cli_csv_field(stdout, c); /* "causal (bottom-right), window (3, 0)" holds commas: quoted */
        printf(",%" PRId64 ",%" PRId64 ",%.6e,%.6e,%.6e,%s\n", bk.block_r, bk.block_c, r->abs_o, r->rel_o,
               r->abs_lse, r->pass ? "pass" : "fail");
    } else {
        json_t *j = json_object();
        json_object_set_new(j, "algo", json_string(fa_algo_name(a)));
        json_object_set_new(j, "batch", json_integer(s->batch));
        json_object_set_new(j, "heads", json_integer(s->heads));
        json_object_set_new(j, "kv_heads", json_integer(s->kv_heads));
        json_object_set_new(j, "seqlen_q", json_integer(s->seqlen_q));
        json_object_set_new(j, "seqlen_k", json_integer(s->seqlen_k));
        json_object_set_new(j, "d", json_integer(s->d));
        json_object_set_new(j, "d_v", json_integer(s->d_v));
        json_object_set_new(j, "causal", json_string(c));
        json_object_set_new(j, "block_r", json_integer(bk.block_r));
        json_object_set_new(j, "block_c", json_integer(bk.block_c));
        /* NaN or inf errors are JSON null (JSON has no NaN); standard computes no LSE */
        json_object_set_new(j, "max_abs_err", isfinite(r->abs_o) ? json_real(r->abs_o) : json_null());
        json_object_set_new(j, "max_rel_err", isfinite(r->rel_o) ? json_real(r->rel_o) : json_null());
        json_object_set_new(j, "lse_abs_err", a != FA_ALGO_STANDARD && isfinite(r->abs_lse) ? json_real(r->abs_lse) : json_null());
        json_object_set_new(j, "pass", json_boolean(r->pass));
        json_array_append_new(arr, j);
    }
}

/* --study takes only these options (a value follows each but the flags); every other one would be
 * ignored, so it is refused.  Returns 0 or EXIT_USAGE (after one message). */
static int study_args_ok(int argc, char **argv)
{
    static const char *const with_value[] = {"--study", "--seqlen", "--headdim", "--seed"};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        size_t n = strcspn(a, "=");
        int ok = !strcmp(a, "--no-plots") || !strcmp(a, "--quiet");
        for (size_t k = 0; !ok && k < sizeof with_value / sizeof with_value[0]; k++) {
            if (strlen(with_value[k]) != n || strncmp(a, with_value[k], n) != 0) continue;
            if (a[n] == '=' && k == 0) break; /* --study takes no --study=DIR */
            ok = 1;
            if (a[n] == '\0') i++; /* its value */
        }
        if (!ok) {
            fprintf(stderr, "fasim: check --study does not use %s (the study takes only --seqlen MAXN, --headdim "
                            "MAXD, --seed S, --no-plots and --quiet; see fasim check --help)\n", a);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* With --q/--k/--v/--out files the options of fasim's own runs would be ignored, so they are
 * refused naming them; the accepted ones are listed too, so that the walk over argv skips their
 * values.  An option in neither list is left to the parser (unknown) or to the --decode /
 * --cu-seqlens check.  Returns 0 or EXIT_USAGE (after one message). */
static int npy_args_ok(int argc, char **argv)
{
    static const char *const no_algos = "fasim runs none of its own algorithms on your tensors",
                             *const own_runs = "it applies to fasim's own runs, not to external tensors",
                             *const baseline = "naive attention runs in the files' precision or --dtype, as a kernel's baseline";
    static const struct {
        const char *name;
        int value;       /* a value follows (unless given as --name=value) */
        const char *why; /* NULL: used by the external check */
    } opts[] = {
        {"--q", 1, NULL}, {"--k", 1, NULL}, {"--v", 1, NULL}, {"--out", 1, NULL}, {"--lse", 1, NULL},
        {"--dout", 1, NULL}, {"--dq", 1, NULL}, {"--dk", 1, NULL}, {"--dv", 1, NULL}, {"--layout", 1, NULL},
        {"--bf16", 0, NULL}, {"--dtype", 1, NULL}, {"--scale", 1, NULL}, {"--format", 1, NULL},
        {"--causal", 0, NULL}, {"--batch", 1, NULL}, {"--heads", 1, NULL}, {"--kv-heads", 1, NULL},
        {"--seqlen", 1, NULL}, {"--seqlen-k", 1, NULL}, {"--headdim", 1, NULL}, {"--headdim-v", 1, NULL},
        {"--window", 1, NULL}, {"--softcap", 1, NULL}, {"--alibi", 0, NULL}, {"--block-mask", 1, NULL},
        {"--col-mask", 1, NULL}, {"--doc-mask", 1, NULL}, {"--mask", 1, NULL}, {"--dropout", 1, NULL},
        {"--seed", 1, NULL},
        {"--algo", 1, no_algos},
        {"--tol", 1, "the verdict is max|out - ref| <= 2 x max|naive - ref|, gradients 3x"},
        {"--pass", 1, "the backward is checked when --dout, --dq, --dk and --dv are given"},
        {"--exp2", 0, baseline}, {"--acc", 1, baseline}, {"--hw", 1, own_runs}, {"--sram", 1, own_runs},
        {"--block-r", 1, own_runs}, {"--block-c", 1, own_runs}, {"--blocks", 1, own_runs},
        {"--quiet", 0, own_runs}, {"--save-npy", 1, own_runs}, {"--no-plots", 0, own_runs},
    };
    int seed = 0, dropout = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        size_t n = strcspn(a, "="), k = 0;
        while (k < sizeof opts / sizeof opts[0] && (strlen(opts[k].name) != n || strncmp(a, opts[k].name, n) != 0)) k++;
        if (k == sizeof opts / sizeof opts[0]) return 0; /* not ours: the parser or the mode check refuses it */
        if (opts[k].why) {
            fprintf(stderr, "fasim: check with --q/--k/--v/--out files does not use %.*s (%s; see fasim check --help)\n",
                    (int)n, a, opts[k].why);
            return EXIT_USAGE;
        }
        seed |= !strcmp(opts[k].name, "--seed");
        dropout |= !strcmp(opts[k].name, "--dropout");
        if (opts[k].value && a[n] == '\0') i++; /* its value */
    }
    if (seed && !dropout) {
        fprintf(stderr, "fasim: check with --q/--k/--v/--out files uses --seed only for --dropout (the inputs are "
                        "the files); add --dropout p or drop --seed\n");
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_check(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(check_help, stdout);
            return 0;
        }
    const int argc0 = argc;
    char **argv0 = malloc((size_t)(argc + 1) * sizeof *argv0); /* argv before the numerics options go */
    if (!argv0) return cli_fail(fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory"));
    memcpy(argv0, argv, (size_t)(argc + 1) * sizeof *argv0);
    num_opts no; /* --dtype, external tensors, studies: cmd_numerics.c */
    int bad = cli_numerics_args(&argc, argv, &no);
    if (!bad && no.study) bad = study_args_ok(argc0, argv0);
    if (!bad && !no.study && cli_numerics_external(&no)) bad = npy_args_ok(argc0, argv0);
    if (!bad && no.bf16 && !cli_numerics_external(&no)) {
        fprintf(stderr, "fasim: check --bf16 applies only to .npy files (--q --k --v --out ...: 16-bit data holds "
                        "bfloat16 bits); to emulate bf16 use --dtype bf16\n");
        bad = EXIT_USAGE;
    }
    if (!bad && no.layout_given && !cli_numerics_external(&no) && !no.save_npy) {
        fprintf(stderr, "fasim: check --layout applies only to .npy files (--q --k --v --out ..., or --save-npy DIR)\n");
        bad = EXIT_USAGE;
    }
    free(argv0);
    if (bad) return EXIT_USAGE;
    if (no.no_plots && !no.study) {
        fprintf(stderr, "fasim: check --no-plots applies only to --study DIR (the error study); drop it or add --study\n");
        return EXIT_USAGE;
    }
    int varlen_args = 0; /* --cu-seqlens ... --pass bwd: the varlen backward, not the numerics path */
    for (int i = 2; i < argc; i++) varlen_args |= !strncmp(argv[i], "--cu-seqlens", 12);
    int only_pass = no.bwd && !no.dtype_given && !no.q && !no.k && !no.v && !no.out && !no.study &&
                    !no.save_npy && !no.exp2 && !no.lse && !no.dout;
    int decode_args = 0;
    for (int i = 2; i < argc; i++) decode_args |= !strcmp(argv[i], "--decode");
    if (cli_numerics_wanted(&no) && !(varlen_args && only_pass) && (varlen_args || decode_args)) {
        fprintf(stderr, "fasim: low-precision emulation (--dtype, --exp2, --acc, .npy files, --study) does not "
                        "support --decode or --cu-seqlens; drop one of them\n");
        return EXIT_USAGE;
    }
    if (cli_numerics_wanted(&no) && !(varlen_args && only_pass)) return cmd_check_numerics(argc, argv, &no);
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, OPT_SHAPE | OPT_ALGO | OPT_HW | OPT_FORMAT | OPT_CHECK | OPT_INFER, &o, NULL, 0, NULL);
    if (rc) return rc;
    if (no.bwd) o.pass = FA_PASS_BWD;
    if (o.decode || o.varlen) return infer_check(&o);
    const fa_shape given = o.shape;
    int custom = given.batch > 0 || given.heads > 0 || given.kv_heads > 0 || given.seqlen_q > 0 ||
                 given.seqlen_k > 0 || given.d > 0 || given.d_v > 0;
    int nconf = custom ? 1 : fa_check_suite_fp64_n;
    fa_algo algos[FA_NALGO];
    for (int k = 0; k < o.n_algos; k++) algos[k] = (fa_algo)o.algos[k];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, o.seed);
    json_t *arr = json_array();
    int any_fail = 0;
    if (o.format == FMT_CSV)
        printf("algo,batch,heads,kv_heads,seqlen_q,seqlen_k,d,d_v,causal,block_r,block_c,max_abs_err,max_rel_err,lse_abs_err,verdict\n");
    for (int c = 0; c < nconf && rc == 0; c++) {
        cli_opts oc = o;
        if (!custom) {
            const fa_check_case *x = &fa_check_suite_fp64[c];
            fa_check_case_shape(x, &oc.shape, given.causal != FA_CAUSAL_NONE);
            if (oc.blocks != BLOCKS_EXPLICIT) {
                oc.blocks = BLOCKS_EXPLICIT;
                oc.block_r = x->block_r;
                oc.block_c = x->block_c;
            }
        }
        if ((rc = cli_resolve(&oc))) break;
        fa_blocks bk;
        uint64_t over;
        fa_status st = cli_blocks(&oc, &bk, &over);
        if (st) {
            rc = cli_fail(st);
            break;
        }
        oc.sram += over;
        fa_check_row rows[FA_NALGO];
        int n = 0;
        st = fa_check_fp64(&oc.shape, bk, oc.sram, algos, o.n_algos, o.tol, rng, rows, &n);
        for (int i = 0; i < n; i++) {
            check_print(&oc, &oc.shape, bk, &rows[i], arr);
            any_fail |= !rows[i].pass;
        }
        if (st) rc = cli_fail(st);
    }
    if (rc == 0 && o.format == FMT_JSON) {
        json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', stdout);
    }
    json_decref(arr);
    gsl_rng_free(rng);
    if (rc) return rc;
    if (any_fail) {
        fprintf(stderr, "fasim check: FAILED (tolerance %.1e)\n", o.tol);
        return EXIT_RUN;
    }
    if (o.format == FMT_TABLE) printf("all passed (tolerance %.1e relative to max|O_ref|)\n", o.tol);
    return 0;
}
