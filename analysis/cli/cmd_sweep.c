/* cmd_sweep.c -- `fasim sweep`: CSV (or JSON) over ranges of one or more parameters.  The ranges
 * are read, checked and enumerated by analysis/sweep.c (fa_sweep.h); here: the options, the byte
 * sizes of --vary sram, a point's values applied to the options, the runs and the printing. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fa_sweep.h"

static const char *const sweep_head =
    "usage: fasim sweep --vary NAME=RANGE [--vary NAME=RANGE ...] [io options] [--out FILE]\n"
    "  Runs `fasim io --profile paper` over the cartesian product of the ranges; one CSV row\n"
    "  per point and algorithm (default --format csv; json gives one array).  Progress goes\n"
    "  to stderr when it is a terminal.  The paper's model only: tiles by --blocks (fit: the\n"
    "  largest multiples of 16 whose buffers fit M, 160 x 160 at d = 64 on the H200) unless\n"
    "  --block-r/--block-c, time_s the roofline (= roofline_s, bound compute or memory), the\n"
    "  time-model columns (busiest_pipe .. occupancy_bwd) empty; for a kernel's tiles and time\n"
    "  run fasim io --profile KEY per point.\n"
    "NAME:  seqlen seqlen-k headdim headdim-v batch heads kv-heads sram block-r block-c\n"
    "       kv-len splits page-size (with --decode or --cu-seqlens)\n"
    "RANGE: START:STOP:xF   geometric (F >= 2), e.g. seqlen=512:1048576:x2\n"
    "       START:STOP:+S   arithmetic,         e.g. block-r=16:256:+16\n"
    "       V1,V2,...       a list,             e.g. sram=64KiB,128KiB,227KiB\n"
    "Varying seqlen moves seqlen-k with it unless --seqlen-k is given; likewise headdim and\n"
    "headdim-v.  Varying block-r or block-c needs the other one (fixed or varied) too.\n"
    "A varied parameter is not also fixed: --vary seqlen with --seqlen (kv-len with --kv-len,\n"
    "splits with --splits ...) is refused.  An error names the point: \"at seqlen = 512: ...\".\n"
    "options (those of fasim io but --trace and --profile):\n";
static const char *const sweep_tail =
    "With --decode or --cu-seqlens the inference kernels run (kv-len, splits, page-size vary).\n";

/* A value of --vary NAME: sram a byte size (cli_parse_bytes: 64KiB, 1MiB ...), the others the
 * integers of fa_sweep_value. */
static fa_status sweep_value(void *ctx, const char *name, const char *text, uint64_t *out)
{
    (void)ctx;
    if (strcmp(name, "sram")) return fa_sweep_value(name, text, out);
    if (cli_parse_bytes(text, out)) {
        char why[1024]; /* a copy: fa_error writes the buffer fa_last_error reads */
        snprintf(why, sizeof why, "%s", fa_last_error());
        FA_FAIL(FA_EINVAL, "--vary sram: %s", why);
    }
    if (*out == 0) FA_FAIL(FA_EINVAL, "--vary sram: '%s' is not a positive byte size", text);
    return FA_OK;
}

/* 1 when the option a --vary name stands for was also given as a fixed value. */
static int given(const cli_opts *o, const char *name)
{
    if (!strcmp(name, "seqlen")) return o->shape.seqlen_q >= 0;
    if (!strcmp(name, "seqlen-k")) return o->shape.seqlen_k >= 0;
    if (!strcmp(name, "headdim")) return o->shape.d >= 0;
    if (!strcmp(name, "headdim-v")) return o->shape.d_v >= 0;
    if (!strcmp(name, "batch")) return o->shape.batch >= 0;
    if (!strcmp(name, "heads")) return o->shape.heads >= 0;
    if (!strcmp(name, "kv-heads")) return o->shape.kv_heads >= 0;
    if (!strcmp(name, "sram")) return o->sram != 0;
    if (!strcmp(name, "block-r")) return o->block_r > 0;
    if (!strcmp(name, "block-c")) return o->block_c > 0;
    if (!strcmp(name, "kv-len")) return o->kv_len > 0;
    if (!strcmp(name, "splits")) return o->splits > 0 || o->splits_auto;
    if (!strcmp(name, "page-size")) return o->paged;
    return 0;
}

static void apply(cli_opts *o, const char *name, uint64_t v)
{
    int64_t x = (int64_t)v;
    if (!strcmp(name, "seqlen")) o->shape.seqlen_q = x;
    else if (!strcmp(name, "seqlen-k")) o->shape.seqlen_k = x;
    else if (!strcmp(name, "headdim")) o->shape.d = x;
    else if (!strcmp(name, "headdim-v")) o->shape.d_v = x;
    else if (!strcmp(name, "batch")) o->shape.batch = x;
    else if (!strcmp(name, "heads")) o->shape.heads = x;
    else if (!strcmp(name, "kv-heads")) o->shape.kv_heads = x;
    else if (!strcmp(name, "sram")) o->sram = v;
    else if (!strcmp(name, "block-r")) { o->block_r = x; o->blocks = BLOCKS_EXPLICIT; }
    else if (!strcmp(name, "block-c")) { o->block_c = x; o->blocks = BLOCKS_EXPLICIT; }
    else if (!strcmp(name, "kv-len")) o->kv_len = x;
    else if (!strcmp(name, "splits")) { o->splits = x; o->splits_auto = 0; }
    else if (!strcmp(name, "page-size")) { o->page_size = x; o->paged = 1; }
}

/* Like cli_fail, but the message names the sweep point (and the algorithm, when one ran):
 * "fasim: at block-r = 512 (flash2): SRAM buffer O_i ... does not fit ...". */
static int point_fail(fa_status s, const fa_col *cols, int nv, const char *algo)
{
    const char *msg = fa_last_error();
    fprintf(stderr, "fasim: at ");
    for (int k = 0; k < nv; k++) fprintf(stderr, "%s%s = %s", k ? ", " : "", cols[k].name, cols[k].value);
    if (algo) fprintf(stderr, " (%s)", algo);
    fprintf(stderr, ": %s\n", msg[0] ? msg : fa_strerror(s));
    return (s == FA_EINVAL || s == FA_ENOSRAM || s == FA_EOVERFLOW || s == FA_EIO) ? EXIT_USAGE : EXIT_RUN;
}

/* The point p of the sweep (fa_sweep_point): applies its values to o, names them in cols and in
 * cli_where (so that every message of the point starts "at seqlen = 512, heads = 3: "). */
static void point(cli_opts *o, const fa_sweep *sw, long p, fa_col *cols)
{
    uint64_t v[FA_SWEEP_MAX_VARY];
    fa_sweep_point(sw, p, v);
    const int nv = sw->n;
    for (int k = nv - 1; k >= 0; k--) {
        apply(o, sw->r[k].name, v[k]);
        cols[k].name = sw->r[k].name;
        snprintf(cols[k].value, sizeof cols[k].value, "%" PRIu64, v[k]);
    }
    size_t l = 0;
    for (int k = 0; k <= nv; k++) {
        int r = k < nv ? snprintf(cli_where + l, sizeof cli_where - l, "%s%s = %s", k ? ", " : "at ",
                                  cols[k].name, cols[k].value)
                       : snprintf(cli_where + l, sizeof cli_where - l, ": ");
        if (r < 0 || (size_t)r >= sizeof cli_where - l) break; /* cut (4 names and values fit) */
        l += (size_t)r;
    }
}

/* The --vary options, in order (checked once every option is read: a fixed --seqlen may follow). */
typedef struct {
    const char *spec[FA_SWEEP_MAX_VARY + 1];
    int n;
} vary_args;

static int take_vary(void *ctx, cli_opts *o, int id, const char *name, const char *val)
{
    (void)o;
    vary_args *va = ctx;
    if (id != O_VARY) return cli_usage("%s: not a sweep option", name);
    if (va->n >= FA_SWEEP_MAX_VARY) return cli_usage("at most %d --vary options", FA_SWEEP_MAX_VARY);
    va->spec[va->n++] = val;
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "sweep", sweep_head, sweep_tail);
        return 0;
    }
    cli_opts base;
    vary_args va = {.n = 0};
    int rc = cli_parse_cmd(argc, argv, &base, take_vary, &va);
    if (rc) return rc;
    if (!base.given[O_FORMAT]) base.format = FMT_CSV; /* sweep's default */
    if (base.format == FMT_TABLE) {
        fprintf(stderr, "fasim: sweep writes csv or json (--format table is for fasim io)\n");
        return EXIT_USAGE;
    }
    static fa_sweep sw; /* 128 KiB of values: not on the stack */
    sw.n = 0;
    for (int i = 0; i < va.n; i++) {
        fa_status as = fa_sweep_add(&sw, va.spec[i], sweep_value, NULL);
        if (as) return cli_fail(as);
        const char *name = sw.r[sw.n - 1].name;
        if (given(&base, name)) {
            fprintf(stderr, "fasim: --vary %s and --%s both given: vary it or fix it, not both\n", name, name);
            return EXIT_USAGE;
        }
    }
    const int nv = sw.n;
    if (nv == 0) {
        fprintf(stderr, "fasim: sweep needs at least one --vary NAME=RANGE (see fasim sweep --help)\n");
        return EXIT_USAGE;
    }
    long total;
    fa_status cs = fa_sweep_count(&sw, &total);
    if (cs) return cli_fail(cs);
    /* cli_parse_cmd lets one of --block-r / --block-c come alone: the other must be varied */
    if ((cs = fa_sweep_check_tiles(&sw, base.block_r > 0, base.block_c > 0))) return cli_fail(cs);

    /* Output is buffered and only written once every point succeeded. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (!mf) return cli_fail(FA_ENOMEM);
    json_t *arr = base.format == FMT_JSON ? json_array() : NULL;
    int tty = isatty(2);
    rc = 0;
    /* Every point is checked (shape, masks, tiles) before anything runs or is printed. */
    for (long p = 0; p < total && rc == 0; p++) {
        cli_opts o = base;
        fa_col cols[FA_SWEEP_MAX_VARY];
        point(&o, &sw, p, cols);
        if ((rc = cli_resolve(&o))) break;
        if (o.decode || o.varlen) continue;
        fa_blocks bk;
        uint64_t over;
        fa_status st = cli_blocks(&o, &bk, &over);
        if (st) rc = point_fail(st, cols, nv, NULL);
    }
    for (long p = 0; p < total && rc == 0; p++) {
        cli_opts o = base;
        fa_col cols[FA_SWEEP_MAX_VARY];
        point(&o, &sw, p, cols);
        if (!base.quiet && tty) { /* progress on a terminal only: logs and pipes get the result alone */
            fprintf(stderr, "\rfasim sweep: point %ld/%ld", p + 1, total);
            for (int k = 0; k < nv; k++) fprintf(stderr, " %s=%s", cols[k].name, cols[k].value);
            fprintf(stderr, "   ");
        }
        if ((rc = cli_resolve(&o))) break;
        if (o.decode || o.varlen) { /* inference kernels (cmd_infer.c) */
            if ((rc = infer_sweep_point(&o, mf, arr, cols, nv, p == 0))) break;
            continue;
        }
        fa_io_result r[FA_NALGO];
        int n = 0;
        for (int k = 0; k < o.n_algos && rc == 0; k++) {
            if (o.algos[k] == FA_ALGO_STANDARD && o.pass != FA_PASS_FWD && o.shape.softcap > 0 && !o.algo_given)
                continue; /* no standard backward with a softcap (fasim io says so) */
            const fa_run_config c = cli_config(&o);
            fa_status st = fa_run_counts(&c, (fa_algo)o.algos[k], o.l2, &r[n]);
            if (st) {
                rc = point_fail(st, cols, nv, fa_algo_name((fa_algo)o.algos[k]));
                break;
            }
            n++;
        }
        if (rc) break;
        if (arr) fa_io_json(arr, &o.shape, o.hw.key, r, n, cols, nv);
        else fa_io_csv(mf, &o.shape, o.hw.key, o.breakdown, r, n, cols, nv, p == 0);
    }
    cli_where[0] = '\0';
    if (!base.quiet && tty) fputc('\n', stderr);
    if (arr && rc == 0) {
        cli_dump_json(arr, mf);
    }
    if (arr) json_decref(arr);
    fclose(mf);
    if (rc == 0) {
        if (base.out_path) {
            cli_file cf;
            if ((rc = cli_open(&cf, base.out_path)) == 0) {
                fwrite(buf, 1, len, cf.f);
                rc = cli_commit(&cf);
            }
        } else {
            fwrite(buf, 1, len, stdout);
        }
    }
    free(buf);
    return rc;
}
