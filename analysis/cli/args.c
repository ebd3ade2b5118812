/* args.c -- option parsing shared by the fasim commands, and small output helpers. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

char cli_where[256];

int cli_fail(fa_status s)
{
    const char *msg = fa_last_error();
    fprintf(stderr, "fasim: %s%s\n", cli_where, msg[0] ? msg : fa_strerror(s));
    /* bad input (including an unreadable input file) is 2; anything else that fails is 1 */
    return (s == FA_EINVAL || s == FA_ENOSRAM || s == FA_EOVERFLOW || s == FA_EIO) ? EXIT_USAGE : EXIT_RUN;
}

static int usage_err(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "fasim: %s", cli_where);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

/* 1 when text has a blank (space, tab, newline ...) anywhere: option values are refused with
 * one rather than trimmed, by every number parser alike. */
static int has_blank(const char *text)
{
    for (const char *p = text; *p; p++)
        if (isspace((unsigned char)*p)) return 1;
    return 0;
}

static int parse_double(const char *opt, const char *val, double *out)
{
    if (!val) return usage_err("%s needs a value%s", opt, "");
    errno = 0;
    char *end = (char *)val;
    double v = has_blank(val) ? 0 : strtod(val, &end);
    if (has_blank(val) || errno || end == val || *end != '\0' || !isfinite(v) || v <= 0) {
        fprintf(stderr, "fasim: %s = '%s' is not a positive finite number%s\n", opt, val,
                has_blank(val) ? " (no blanks)" : "");
        return EXIT_USAGE;
    }
    *out = v;
    return 0;
}

#define DIM_MAX ((int64_t)INT32_MAX)

int cli_parse(int argc, char **argv, int first, unsigned accept, cli_opts *o, char **extra,
              int max_extra, int *n_extra)
{
    memset(o, 0, sizeof *o);
    o->shape = fa_shape_default(-1, -1);
    o->shape.batch = o->shape.heads = o->shape.kv_heads = -1;
    o->shape.seqlen_q = o->shape.seqlen_k = o->shape.d = o->shape.d_v = -1;
    o->shape.dtype = (fa_dtype)-1;
    o->block_r = o->block_c = -1;
    o->blocks = BLOCKS_FIT;
    int blocks_given = 0;
    o->n_algos = 0;
    snprintf(o->hw_key, sizeof o->hw_key, "h200");
    o->seed = 42;
    o->shape.dropout_seed = 42;
    o->tol = 1e-10;
    if (n_extra) *n_extra = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        char *val = NULL;
        char name[64];
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            val = (char *)eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
#define NEXT() (val ? val : (i + 1 < argc ? argv[++i] : NULL))
#define IS(s) (strcmp(name, s) == 0)
        int64_t v;
        if ((accept & OPT_SHAPE) && (IS("--batch") || IS("--heads") || IS("--kv-heads") ||
                                     IS("--seqlen") || IS("--seqlen-k") || IS("--headdim") ||
                                     IS("--headdim-v"))) {
            if (cli_int(name, NEXT(), 1, DIM_MAX, &v)) return EXIT_USAGE;
            if (IS("--batch")) o->shape.batch = v;
            else if (IS("--heads")) o->shape.heads = v;
            else if (IS("--kv-heads")) o->shape.kv_heads = v;
            else if (IS("--seqlen")) o->shape.seqlen_q = v;
            else if (IS("--seqlen-k")) o->shape.seqlen_k = v;
            else if (IS("--headdim")) o->shape.d = v;
            else o->shape.d_v = v;
        } else if ((accept & OPT_SHAPE) && IS("--causal")) {
            if (!val || strcmp(val, "bottom-right") == 0) o->shape.causal = FA_CAUSAL_BOTTOM_RIGHT;
            else if (strcmp(val, "top-left") == 0) o->shape.causal = FA_CAUSAL_TOP_LEFT;
            else return usage_err("--causal=%s: use --causal, --causal=bottom-right or --causal=top-left%s", val, "");
        } else if ((accept & OPT_SHAPE) && IS("--window")) {
            const char *w = NEXT();
            long long L, R;
            char junk;
            if (!w || has_blank(w) || strchr(w, '+') || sscanf(w, "%lld,%lld%c", &L, &R, &junk) != 2 || L > INT32_MAX || R > INT32_MAX ||
                L < -1 || R < -1 || (L < 0 && R < 0))
                return usage_err("--window '%s' must read LEFT,RIGHT: integers >= -1 (-1: unbounded), one of them >= 0%s",
                                 w ? w : "", "");
            o->shape.window = 1;
            o->shape.window_left = L;
            o->shape.window_right = R;
        } else if ((accept & OPT_SHAPE) && IS("--softcap")) {
            if (parse_double(name, NEXT(), &o->shape.softcap)) return EXIT_USAGE;
        } else if ((accept & OPT_SHAPE) && IS("--alibi")) {
            if (val) return usage_err("--alibi takes no value (got '%s')%s", val, "");
            o->shape.alibi = 1;
        } else if ((accept & OPT_SHAPE) && (IS("--block-mask") || IS("--col-mask") || IS("--mask"))) {
            const char *f = NEXT();
            if (!f || !*f) return usage_err("%s needs a file%s", name, "");
            if (IS("--block-mask")) o->block_mask_path = f;
            else if (IS("--col-mask")) o->col_mask_path = f;
            else o->dense_mask_path = f;
        } else if ((accept & OPT_SHAPE) && IS("--doc-mask")) {
            const char *l = NEXT();
            if (!l || !*l) return usage_err("--doc-mask needs document lengths L1,L2,...%s%s", "", "");
            char buf[4096];
            snprintf(buf, sizeof buf, "%s", l);
            size_t bl = strlen(buf);
            if (buf[0] == ',' || buf[bl - 1] == ',' || strstr(buf, ",,"))
                return usage_err("--doc-mask '%s' has an empty item%s", l, "");
            o->n_docs = 0;
            for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o->n_docs >= 256) return usage_err("--doc-mask: at most 256 documents%s%s", "", "");
                if (cli_int("--doc-mask", t, 1, INT32_MAX, &o->doc_len[o->n_docs])) return EXIT_USAGE;
                o->n_docs++;
            }
        } else if ((accept & OPT_INFER) && infer_opt_kind(name)) {
            int rc_ = infer_set_opt(o, name, infer_opt_kind(name) == 2 ? NEXT() : val);
            if (rc_) return rc_;
        } else if ((accept & OPT_SHAPE) && IS("--scale")) {
            if (parse_double(name, NEXT(), &o->shape.scale)) return EXIT_USAGE;
        } else if ((accept & OPT_SHAPE) && IS("--dtype")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            fa_dtype t;
            if (fa_dtype_parse(s, &t)) return cli_fail(FA_EINVAL);
            o->shape.dtype = t;
        } else if ((accept & OPT_ALGO) && IS("--algo")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            o->algo_given = 1;
            if (strcmp(s, "all") == 0) {
                for (int k = 0; k < FA_NALGO; k++) o->algos[k] = k;
                o->n_algos = FA_NALGO;
            } else {
                /* a comma-separated list is accepted too */
                char buf[128];
                snprintf(buf, sizeof buf, "%s", s);
                o->n_algos = 0;
                for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                    fa_algo al;
                    if (!strcmp(t, "all")) /* 'all' is a whole value, not a list item */
                        return usage_err("--algo '%s': 'all' stands alone (or list the algorithms)%s", s, "");
                    if (fa_algo_parse(t, &al)) return cli_fail(FA_EINVAL);
                    int dup = 0;
                    for (int q = 0; q < o->n_algos; q++) dup |= o->algos[q] == (int)al;
                    if (!dup && o->n_algos < FA_NALGO) o->algos[o->n_algos++] = al;
                }
                if (o->n_algos == 0) return usage_err("--algo '%s' names no algorithm%s", s, "");
            }
        } else if ((accept & OPT_HW) && IS("--hw")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            snprintf(o->hw_key, sizeof o->hw_key, "%s", s);
            if (strlen(s) >= sizeof o->hw_key) return usage_err("unknown hardware profile '%s' (known: a100, h100, h200)%s", s, "");
        } else if ((accept & OPT_HW) && IS("--sram")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            if (cli_parse_bytes(s, &o->sram)) {
                fprintf(stderr, "fasim: --sram: %s\n", fa_last_error());
                return EXIT_USAGE;
            }
            if (o->sram == 0) return usage_err("--sram = '%s' must be > 0 bytes%s", s, "");
            if (o->sram > (1ull << 40)) /* beyond any chip by far; the bound's arithmetic degrades */
                return usage_err("--sram = '%s' is above the limit of 1 TiB%s", s, "");
        } else if ((accept & OPT_HW) && (IS("--block-r") || IS("--block-c"))) {
            if (cli_int(name, NEXT(), 1, 1 << 20, &v)) return EXIT_USAGE;
            if (IS("--block-r")) o->block_r = v;
            else o->block_c = v;
        } else if ((accept & OPT_HW) && IS("--blocks")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            if (strcmp(s, "fit") == 0) o->blocks = BLOCKS_FIT;
            else if (strcmp(s, "paper") == 0) o->blocks = BLOCKS_PAPER;
            else return usage_err("--blocks '%s' is not one of fit, paper%s", s, "");
            blocks_given = 1;
        } else if ((accept & OPT_PROFILE) && IS("--profile")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            if (fa_profile_parse(s, &o->profile)) return cli_fail(FA_EINVAL);
        } else if ((accept & OPT_FORMAT) && IS("--format")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            if (strcmp(s, "table") == 0) o->format = FMT_TABLE;
            else if (strcmp(s, "csv") == 0) o->format = FMT_CSV;
            else if (strcmp(s, "json") == 0) o->format = FMT_JSON;
            else return usage_err("--format '%s' is not one of table, csv, json%s", s, "");
        } else if ((accept & OPT_MODEL) && IS("--model")) {
            o->model_path = NEXT();
            if (!o->model_path || !*o->model_path) return usage_err("--model needs a file%s%s", "", "");
        } else if ((accept & OPT_TRACE) && IS("--trace")) {
            o->trace_path = NEXT();
            if (!o->trace_path || !*o->trace_path) return usage_err("--trace needs a file%s%s", "", "");
        } else if ((accept & (OPT_TRACE | OPT_BREAKDOWN)) && IS("--breakdown")) {
            if (val) return usage_err("--breakdown takes no value (got '%s')%s", val, "");
            o->breakdown = 1;
        } else if ((accept & OPT_OUT) && IS("--out")) {
            o->out_path = NEXT();
            if (!o->out_path || !*o->out_path) return usage_err("--out needs a file%s%s", "", "");
        } else if ((accept & OPT_SHAPE) && IS("--dropout")) {
            const char *d = NEXT();
            char *end = NULL;
            double p = d && !has_blank(d) ? strtod(d, &end) : -1;
            if (!d || has_blank(d) || end == d || *end != '\0' || !(p >= 0 && p < 1))
                return usage_err("--dropout '%s' must be a probability p in [0, 1)%s", d ? d : "", "");
            o->shape.dropout_p = p;
        } else if ((accept & (OPT_CHECK | OPT_SHAPE)) && IS("--seed")) {
            if (cli_int(name, NEXT(), 0, INT32_MAX, &v)) return EXIT_USAGE;
            o->seed = (unsigned long)v;
            o->shape.dropout_seed = (uint64_t)v;
        } else if ((accept & OPT_CHECK) && IS("--tol")) {
            if (parse_double(name, NEXT(), &o->tol)) return EXIT_USAGE;
        } else if ((accept & OPT_PASS) && IS("--pass")) {
            const char *s = NEXT();
            if (!s) return usage_err("%s needs a value%s", name, "");
            if (fa_pass_parse(s, &o->pass)) return cli_fail(FA_EINVAL);
        } else if ((accept & OPT_L2) && IS("--l2")) {
            if (val) return usage_err("--l2 takes no value (got '%s')%s", val, "");
            o->l2 = 1;
        } else if ((accept & OPT_QUIET) && IS("--quiet")) {
            if (val) return usage_err("--quiet takes no value (got '%s')%s", val, "");
            o->quiet = 1;
        } else if (extra && n_extra && *n_extra < max_extra && strncmp(a, "--", 2) == 0 &&
                   !eq && i + 1 < argc) {
            /* command-specific option with a value, e.g. --vary */
            extra[(*n_extra)++] = argv[i];
            extra[(*n_extra)++] = argv[++i];
        } else if (extra && n_extra && *n_extra < max_extra && strncmp(a, "--", 2) == 0 && eq) {
            extra[(*n_extra)++] = argv[i];
            extra[(*n_extra)++] = NULL;
        } else {
            return usage_err("unknown or incomplete option '%s' (see fasim %s --help)", a, argv[first - 1]);
        }
#undef NEXT
#undef IS
    }
    if (o->block_r > 0 || o->block_c > 0) {
        if (blocks_given)
            return usage_err("--blocks and --block-r/--block-c exclude each other%s%s", "", "");
        if ((o->block_r < 0 || o->block_c < 0) && !(accept & OPT_HALF_BLOCK))
            return usage_err("give both --block-r and --block-c%s%s", "", "");
        o->blocks = BLOCKS_EXPLICIT;
    }
    const int paper = o->profile && o->profile->mma == FA_MMA_NONE;
    if ((accept & OPT_PROFILE) && !blocks_given && o->blocks != BLOCKS_EXPLICIT && !paper)
        o->blocks = BLOCKS_PROFILE;
    /* --blocks fit with a kernel profile: the tiles that kernel fits, its tile table */
    if ((accept & OPT_PROFILE) && blocks_given && o->blocks == BLOCKS_FIT && o->profile && !paper)
        o->blocks = BLOCKS_PROFILE;
    if (o->profile && !paper) { /* a kernel profile runs its own loop order */
        for (int k = 0; k < o->n_algos; k++)
            if (o->algos[k] != (int)o->profile->algo)
            {
                fprintf(stderr, "fasim: --profile %s is a %s kernel: leave out --algo or give --algo %s\n",
                        o->profile->key, fa_algo_name(o->profile->algo), fa_algo_name(o->profile->algo));
                return EXIT_USAGE;
            }
        if (o->n_algos == 0) o->algos[o->n_algos++] = (int)o->profile->algo;
    }
    if (o->n_algos == 0) {
        for (int k = 0; k < FA_NALGO; k++) o->algos[k] = k;
        o->n_algos = FA_NALGO;
    }
    return 0;
}

int cli_resolve(cli_opts *o)
{
    fa_shape *s = &o->shape;
    int rci = infer_resolve(o); /* --decode, --cu-seqlens: before the defaults */
    if (rci) return rci;
    if (o->model_path) {
        fa_model m;
        fa_status st = fa_model_load(o->model_path, &m);
        if (st) return cli_fail(st);
        /* --heads alone on a multi-head (MHA) model keeps it MHA; a GQA model keeps its kv heads */
        if (s->kv_heads < 0) s->kv_heads = s->heads > 0 && m.kv_heads == m.heads ? s->heads : m.kv_heads;
        if (s->heads < 0) s->heads = m.heads;
        if (s->d < 0) s->d = m.head_dim;
        if (s->d_v < 0) s->d_v = m.head_dim;
        if ((int)s->dtype < 0) s->dtype = m.dtype;
        if (s->seqlen_q < 0) s->seqlen_q = m.max_positions;
    }
    if (s->batch < 0) s->batch = 1;
    if (s->heads < 0) s->heads = s->kv_heads > 0 ? s->kv_heads : 1;
    if (s->kv_heads < 0) s->kv_heads = s->heads;
    if (s->seqlen_q < 0) s->seqlen_q = 1024;
    if (s->seqlen_k < 0) s->seqlen_k = s->seqlen_q;
    if (s->d < 0) s->d = 64;
    if (s->d_v < 0) s->d_v = s->d;
    if ((int)s->dtype < 0) s->dtype = FA_DTYPE_FP16;
    /* masks from files: N_q and N_k are known now; the arrays live until the process ends */
    static fa_mask_store masks;
    fa_status st = FA_OK;
    if (o->n_docs > 0 && o->col_mask_path) return usage_err("--doc-mask and --col-mask exclude each other%s%s", "", "");
    if (o->block_mask_path && !(st = fa_block_mask_load(o->block_mask_path, s->seqlen_q, s->seqlen_k, &masks)))
        s->block_mask = &masks.block;
    if (!st && o->col_mask_path && !(st = fa_col_mask_load(o->col_mask_path, s->seqlen_q, s->seqlen_k, &masks)))
        s->col_mask = &masks.col;
    if (!st && o->n_docs > 0) {
        if (s->seqlen_q != s->seqlen_k)
            return usage_err("--doc-mask needs N_q = N_k (one packed sequence)%s%s", "", "");
        if (!(st = fa_col_mask_documents(o->doc_len, o->n_docs, s->seqlen_q, &masks))) s->col_mask = &masks.col;
    }
    if (!st && o->dense_mask_path && !(st = fa_dense_mask_load(o->dense_mask_path, s->seqlen_q, s->seqlen_k, &masks)))
        s->dense_mask = masks.dense;
    if (st) return cli_fail(st);
    st = fa_shape_check(s);
    if (st) return cli_fail(st);
    st = fa_hw_load(o->hw_key, NULL, &o->hw);
    if (st) return cli_fail(st);
    if (o->sram == 0) o->sram = o->hw.sram_per_block;
    return 0;
}

fa_run_config cli_config(const cli_opts *o)
{
    fa_run_config c = {.shape = o->shape, .pass = o->pass, .hw = o->hw, .sram = o->sram, .rule = (fa_tile_rule)o->blocks,
                       .block_r = o->block_r, .block_c = o->block_c, .profile = o->profile};
    return c;
}

fa_status cli_blocks(const cli_opts *o, fa_blocks *bk, uint64_t *overflow)
{
    fa_run_config c = cli_config(o);
    return fa_run_tiles(&c, bk, overflow);
}

fa_status cli_run(const cli_opts *o, fa_algo a, FILE *trace, fa_io_result *r)
{
    fa_run_config c = cli_config(o);
    return fa_run_algo(&c, a, trace, r);
}

int cli_open(cli_file *cf, const char *path)
{
    memset(cf, 0, sizeof *cf);
    if (!strcmp(path, "-")) { /* not a file named "-" left in the working directory */
        fprintf(stderr, "fasim: '-' is not an output path (give a file, or /dev/stdout to print)\n");
        return EXIT_USAGE;
    }
    if (strlen(path) >= sizeof cf->path - 32) {
        fprintf(stderr, "fasim: output path is %zu characters long (limit %zu)\n", strlen(path),
                sizeof cf->path - 33);
        return EXIT_USAGE;
    }
    /* A symbolic link is followed (the file it names is replaced, the link stays); a device,
     * FIFO or other non-regular file is written in place (no temporary file, no rename). */
    char target[PATH_MAX];
    const char *t = path;
    struct stat st;
    if (stat(path, &st) == 0) { /* follows links */
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "fasim: cannot write %s: it is a directory\n", path);
            return EXIT_USAGE;
        }
        if (!S_ISREG(st.st_mode)) { /* device, FIFO, /dev/stdout: write through the path */
            memcpy(cf->path, path, strlen(path) + 1);
            cf->f = fopen(path, "w");
            cf->direct = 1;
            if (!cf->f) {
                fprintf(stderr, "fasim: cannot write %s: %s\n", path, strerror(errno));
                return EXIT_USAGE;
            }
            return 0;
        }
        struct stat lst;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) { /* replace the file, keep the link */
            if (!realpath(path, target) || strlen(target) >= sizeof cf->path - 32) {
                fprintf(stderr, "fasim: cannot resolve the link %s\n", path);
                return EXIT_USAGE;
            }
            t = target;
        }
    }
    memcpy(cf->path, t, strlen(t) + 1);
    snprintf(cf->tmp, sizeof cf->tmp, "%s.tmp.%ld", cf->path, (long)getpid());
    cf->f = fopen(cf->tmp, "w");
    if (!cf->f) {
        /* The result goes to a temporary file beside the target, renamed at the end: when the
         * directory exists, the failure is its own (read-only, /proc, no permission), whatever
         * errno says (ENOENT on /proc). */
        int e = errno;
        char dir[sizeof cf->path];
        const char *slash = strrchr(cf->path, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else if (slash == cf->path) snprintf(dir, sizeof dir, "/");
        else snprintf(dir, sizeof dir, "%.*s", (int)(slash - cf->path), cf->path);
        struct stat ds;
        if (stat(dir, &ds) == 0 && S_ISDIR(ds.st_mode))
            fprintf(stderr, "fasim: cannot write %s: its directory %s cannot take a temporary file (%s, "
                            "written first and then renamed)%s%s\n",
                    path, dir, cf->tmp, e == ENOENT ? "" : ": ", e == ENOENT ? "" : strerror(e));
        else
            fprintf(stderr, "fasim: cannot write %s: %s\n", path, strerror(e));
        return EXIT_USAGE;
    }
    return 0;
}

int cli_commit(cli_file *cf)
{
    if (!cf->f) return 0;
    if (cf->direct) { /* a device or FIFO: nothing to rename */
        int bad = ferror(cf->f) | (fclose(cf->f) != 0);
        cf->f = NULL;
        if (bad) {
            fprintf(stderr, "fasim: cannot write %s: %s\n", cf->path, strerror(errno));
            return EXIT_RUN;
        }
        return 0;
    }
    int bad = ferror(cf->f);
    if (fclose(cf->f) != 0) bad = 1;
    cf->f = NULL;
    if (bad || rename(cf->tmp, cf->path) != 0) {
        fprintf(stderr, "fasim: cannot write %s: %s\n", cf->path, strerror(errno));
        remove(cf->tmp);
        return EXIT_RUN;
    }
    return 0;
}

void cli_abort(cli_file *cf)
{
    if (!cf->f) return;
    fclose(cf->f);
    cf->f = NULL;
    if (!cf->direct) remove(cf->tmp);
}

const char *cli_bytes(double b, char *buf, size_t n)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (b >= 1024 && k < 6) {
        b /= 1024;
        k++;
    }
    if (k > 0 && k < 6 && b >= 1023.95) { /* "%.4g" would print 1024 of this unit */
        b /= 1024;
        k++;
    }
    if (k == 0) snprintf(buf, n, b < 1 && b > 0 ? "%.3g B" : "%.0f B", b);
    else snprintf(buf, n, "%.4g %s", b, u[k]);
    return buf;
}

const char *cli_si(double x, char *buf, size_t n)
{
    static const char *const u[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
    int k = 0;
    while (fabs(x) >= 1000 && k < 7) {
        x /= 1000;
        k++;
    }
    snprintf(buf, n, "%.4g%s%s", x, k ? " " : "", u[k]);
    return buf;
}

const char *cli_time(double t, char *buf, size_t n)
{
    if (t >= 1) snprintf(buf, n, "%.4g s", t);
    else if (t >= 1e-3) snprintf(buf, n, "%.4g ms", t * 1e3);
    else if (t >= 1e-6) snprintf(buf, n, "%.4g us", t * 1e6);
    else snprintf(buf, n, "%.4g ns", t * 1e9);
    return buf;
}

const char *cli_mask_text(const fa_shape *s, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t l = 0;
#define ADD(...) (l += (size_t)snprintf(buf + l, l < n ? n - l : 0, __VA_ARGS__))
    if (s->causal == FA_CAUSAL_BOTTOM_RIGHT) ADD("%scausal (bottom-right)", l ? ", " : "");
    if (s->causal == FA_CAUSAL_TOP_LEFT) ADD("%scausal (top-left)", l ? ", " : "");
    if (s->window) ADD("%swindow (%" PRId64 ", %" PRId64 ")", l ? ", " : "", s->window_left, s->window_right);
    if (s->block_mask) ADD("%sblock-sparse %" PRId64 "x%" PRId64, l ? ", " : "", s->block_mask->block_r, s->block_mask->block_c);
    if (s->col_mask) ADD("%scolumn mask", l ? ", " : "");
    if (s->dense_mask) ADD("%sdense mask", l ? ", " : "");
    if (s->softcap > 0) ADD("%ssoftcap %g", l ? ", " : "", s->softcap);
    if (s->alibi) ADD("%sALiBi", l ? ", " : "");
    if (s->dropout_p > 0) ADD("%sdropout %g", l ? ", " : "", s->dropout_p);
    if (!l) ADD("no mask");
#undef ADD
    return buf;
}

void cli_describe(FILE *f, const cli_opts *o, const fa_shape *s)
{
    char mb[32], mt[256];
    const char *mask = cli_mask_text(s, mt, sizeof mt);
    fprintf(f, "B=%" PRId64 " H=%" PRId64 " H_kv=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64
               " d=%" PRId64 " d_v=%" PRId64 " %s, %s | %s, M = %" PRIu64 " B (%s)\n",
            s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v,
            fa_dtype_name(s->dtype), mask, o->hw.name, o->sram, cli_bytes((double)o->sram, mb, sizeof mb));
}
