/* cmd_io.c -- `fasim io`: one configuration, every chosen algorithm, counted IO beside the
 * closed form, the Theta bound, intensity and roofline time. */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "cli.h"

static const char *const io_head =
    "usage: fasim io [options]\n"
    "  Counts the HBM traffic, FLOPs and peak SRAM of attention algorithms on one shape\n"
    "  (count-only mode: no data, any N), beside the closed form and the Theta bound.\n"
    "options:\n";

/* Runs every algorithm of the options; fills r[0..n).  Returns an exit status. */
static int run_all(const cli_opts *o, FILE *trace, fa_io_result *r, int *n)
{
    *n = 0;
    for (int k = 0; k < o->n_algos; k++) {
        fa_algo a = (fa_algo)o->algos[k];
        if (a == FA_ALGO_STANDARD && o->pass != FA_PASS_FWD && o->shape.softcap > 0 && !o->algo_given) {
            /* Algorithm 3 keeps no pre-softmax scores, which the softcap's chain rule needs */
            fprintf(stderr, "fasim: note: standard is left out: its backward with a softcap is not modelled "
                            "(--algo standard to see the error)\n");
            continue;
        }
        fa_status st = cli_run(o, a, trace, &r[*n]);
        if (st) return cli_fail(st);
        if (o->l2) { /* one set of tiles through the L2 replay (fa_run_l2) */
            fa_run_config c = cli_config(o);
            if ((st = fa_run_l2(&c, a, &r[*n]))) return cli_fail(st);
        }
        (*n)++;
    }
    return 0;
}

int cmd_io(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "io", io_head, "Counts and formulas are derived in docs/io-model.md (--cp: docs/context-parallel.md).\n");
        return 0;
    }
    cli_opts o;
    int rc = cli_parse_cmd(argc, argv, &o, NULL, NULL);
    if (rc || (rc = cli_resolve(&o))) return rc;
    if ((o.decode || o.varlen) && o.profile) {
        fprintf(stderr, "fasim: --profile times the training kernels; --decode and --cu-seqlens have their own model "
                        "(the wave model of docs/inference.md): leave out --profile\n");
        return EXIT_USAGE;
    }
    if (o.given[O_CP] || o.given[O_CP_SCHEME]) return cp_io(&o);
    if (o.decode || o.varlen) return infer_io(&o);
    cli_file tf = {0};
    if (o.trace_path) {
        if (o.n_algos != 1) {
            fprintf(stderr, "fasim: --trace needs exactly one --algo (got %d algorithms)\n", o.n_algos);
            return EXIT_USAGE;
        }
        const fa_run_config c = cli_config(&o);
        fa_status st = fa_run_trace_check(&c);
        if (st) return cli_fail(st);
        if ((rc = cli_open(&tf, o.trace_path))) return rc;
    }
    fa_io_result r[FA_NALGO];
    int n;
    rc = run_all(&o, tf.f, r, &n);
    if (rc) {
        cli_abort(&tf);
        return rc;
    }
    if (tf.f && (rc = cli_commit(&tf))) return rc;
    if (o.format == FMT_TABLE) {
        io_write_table(stdout, &o, &o.shape, r, n);
    } else if (o.format == FMT_CSV) {
        fa_io_csv(stdout, &o.shape, o.hw.key, o.breakdown, r, n, NULL, 0, 1);
    } else {
        json_t *arr = json_array();
        fa_io_json(arr, &o.shape, o.hw.key, r, n, NULL, 0);
        cli_dump_json(arr, stdout);
        json_decref(arr);
    }
    return 0;
}
