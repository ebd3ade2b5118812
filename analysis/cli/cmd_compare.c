/* cmd_compare.c -- `fasim compare --measured FILE`: fasim's predictions beside what a GPU
 * measured (Nsight Compute bytes, CUDA-event times), per kernel and shape. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char *const compare_help =
    "usage: fasim compare --measured FILE [--hw a100|h100|h200] [--sram BYTES] [--no-l2]\n"
    "                     [--format table|csv|json] [--blocks fit]\n"
    "  Reads a CSV of measured kernels (one row per kernel and shape; a header names the\n"
    "  columns, in any order) and prints, per row, fasim's prediction for the same shape and\n"
    "  tile sizes beside the measurement:\n"
    "    SRAM<->L2 bytes (the two-level count) vs the measured L2<->SM bytes,\n"
    "    DRAM bytes with the L2 model (fasim io --l2) vs the measured DRAM bytes,\n"
    "    the time model's time (docs/time-model.md) vs the measured time, with the pipe that\n"
    "    bounds it; a summary of the rows within 15 % (time), 10 % (L2) and 20 % (DRAM).\n"
    "  Columns: kernel, B, H, N_q (or N), d (required); H_kv, N_k, d_v, causal (0/1),\n"
    "  dtype (fp32/fp16/bf16/fp8_e4m3/fp8_e5m2), algo (standard/flash1/flash2; default from the kernel name:\n"
    "  v0 -> standard, v1 -> flash1, else flash2), block_r, block_c (default: the profile's tile table; --blocks fit without one),\n"
    "  blocks_per_sm (the kernel's occupancy for the L2 replay, 1..32, e.g. the smallest of\n"
    "  Nsight Compute's launch__occupancy_limit_*; default: the time model's occupancy of the\n"
    "  profile, else estimated from fasim's SRAM need),\n"
    "  profile (the kernel profile, fasim io --profile; default from the kernel name: a\n"
    "  profile key, sdpa_flash -> fa2, sdpa_cudnn -> cudnn, sdpa_math -> math, v0_low -> v0,\n"
    "  v3_bwd* -> v3; else the algorithm's), pass (fwd or bwd; a name ending in _bwd or\n"
    "  starting v3_bwd is a backward; default fwd),\n"
    "  ms, dram_read_bytes, dram_write_bytes, l2_read_bytes, l2_write_bytes (optional; the\n"
    "  Nsight Compute names dram__bytes_read.sum, dram__bytes_write.sum,\n"
    "  l1tex__m_xbar2l1tex_read_bytes.sum, l1tex__m_l1tex2xbar_write_bytes.sum work too).\n"
    "  Each column appears once, under one of its names (case-sensitive); any other column\n"
    "  name is an error; a UTF-8 byte order mark before the header is skipped.  Every row\n"
    "  has the header's number of fields.  B, H, N, d, H_kv, N_k, d_v: whole numbers\n"
    "  1..2^31-1; block_r, block_c: 1..2^20, both or neither; causal 0 or 1; ms finite and\n"
    "  > 0; the other numbers finite and >= 0.  An empty field of an optional column is read\n"
    "  as the column left out: the table prints '-' (and no ratio), CSV nan, JSON null.  The\n"
    "  tiles Q_i, K_j, V_j must fit M: (B_r d + B_c d + B_c d_v) x element size <= M (fasim io\n"
    "  refuses such tiles too); fasim's fp32 S_ij, O_i, m_i, l_i may exceed M (a kernel keeps\n"
    "  them in registers).  --block-r, --block-c and --blocks paper are refused: the tile\n"
    "  sizes come from the file.\n"
    "  The L2 model replays the rows with measured DRAM bytes (elsewhere '-'); it is skipped\n"
    "  (--no-l2) or refused for runs over 2^26 transfers.\n";

#define MAXCOL 64
#define MAXLINE 8192
#define DIM_MAX ((int64_t)INT32_MAX) /* the limit of --batch, --seqlen, --headdim ... */
#define TILE_MAX ((int64_t)1 << 20)  /* the limit of --block-r / --block-c */

typedef struct {
    char *name[MAXCOL];
    int n;
} header;

/* Splits one CSV line into at most max fields; returns how many it found (max + 1 when the
 * line has more than max). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    /* only the line end: a carriage return elsewhere stays in its field (and is refused) */
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n') line[--len] = '\0';
    if (len && line[len - 1] == '\r') line[--len] = '\0';
    for (;;) {
        char *start = p;
        if (*p == '"') { /* quoted field: no embedded quotes or commas expected */
            start = ++p;
            while (*p && *p != '"') p++;
            if (*p == '"') *p++ = '\0';
        }
        while (*p && *p != ',') p++;
        if (n == max) return max + 1;
        f[n++] = start;
        if (!*p) break;
        *p++ = '\0';
    }
    return n;
}

static int parse_num(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* A whole number in [lo, hi], written in decimal ("4096", also "4096.0" or "4.096e3" as a
 * spreadsheet may write it; not "1024.5", "0x10", "inf"). */
static int parse_whole(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    double v;
    if (!s || strspn(s, "0123456789.eE+-") != strlen(s) || parse_num(s, &v) || v != floor(v) ||
        v < (double)lo || v > (double)hi)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* The columns compare reads: every name a column may go by, and what its fields hold. */
typedef enum { COL_TEXT, COL_WHOLE, COL_REAL } col_kind;
typedef struct {
    const char *names[5]; /* NULL-terminated */
    col_kind kind;
    int64_t lo, hi;       /* COL_WHOLE: the range */
    int required;         /* in the header and in every row */
    int positive;         /* COL_REAL: > 0 (a time), else >= 0 */
} col_spec;

enum { C_KERNEL, C_B, C_H, C_HKV, C_NQ, C_NK, C_D, C_DV, C_CAUSAL, C_DTYPE, C_ALGO, C_BR, C_BC, C_OCC,
       C_MS, C_DR, C_DW, C_LR, C_LW, C_PROFILE, C_PASS, NSPEC };
static const col_spec specs[NSPEC] = {
    [C_KERNEL] = {{"kernel", NULL}, COL_TEXT, 0, 0, 1},
    [C_B] = {{"B", "batch", NULL}, COL_WHOLE, 1, DIM_MAX, 1},
    [C_H] = {{"H", "heads", NULL}, COL_WHOLE, 1, DIM_MAX, 1},
    [C_HKV] = {{"H_kv", "kv_heads", NULL}, COL_WHOLE, 1, DIM_MAX, 0},
    [C_NQ] = {{"N_q", "N", "seqlen_q", "seqlen", NULL}, COL_WHOLE, 1, DIM_MAX, 1},
    [C_NK] = {{"N_k", "seqlen_k", NULL}, COL_WHOLE, 1, DIM_MAX, 0},
    [C_D] = {{"d", "headdim", NULL}, COL_WHOLE, 1, DIM_MAX, 1},
    [C_DV] = {{"d_v", NULL}, COL_WHOLE, 1, DIM_MAX, 0},
    [C_CAUSAL] = {{"causal", NULL}, COL_WHOLE, 0, 1, 0},
    [C_DTYPE] = {{"dtype", NULL}, COL_TEXT, 0, 0, 0},
    [C_ALGO] = {{"algo", NULL}, COL_TEXT, 0, 0, 0},
    [C_BR] = {{"block_r", NULL}, COL_WHOLE, 1, TILE_MAX, 0},
    [C_BC] = {{"block_c", NULL}, COL_WHOLE, 1, TILE_MAX, 0},
    [C_OCC] = {{"blocks_per_sm", NULL}, COL_WHOLE, 1, 32, 0},
    [C_MS] = {{"ms", "time_ms", NULL}, COL_REAL, 0, 0, 0, 1},
    [C_DR] = {{"dram_read_bytes", "dram__bytes_read.sum", NULL}, COL_REAL, 0, 0, 0},
    [C_DW] = {{"dram_write_bytes", "dram__bytes_write.sum", NULL}, COL_REAL, 0, 0, 0},
    [C_LR] = {{"l2_read_bytes", "l1tex__m_xbar2l1tex_read_bytes.sum", NULL}, COL_REAL, 0, 0, 0},
    [C_LW] = {{"l2_write_bytes", "l1tex__m_l1tex2xbar_write_bytes.sum", NULL}, COL_REAL, 0, 0, 0},
    [C_PROFILE] = {{"profile", NULL}, COL_TEXT, 0, 0, 0},
    [C_PASS] = {{"pass", NULL}, COL_TEXT, 0, 0, 0},
};

/* Every name the header may use, for the unknown-column message: "kernel, B or batch, ...". */
static const char *accepted_names(void)
{
    static char buf[1024];
    size_t l = 0;
    for (int k = 0; k < NSPEC; k++)
        for (int a = 0; specs[k].names[a] && l < sizeof buf; a++)
            l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", a ? " or " : k ? ", " : "", specs[k].names[a]);
    return buf;
}

/* Reads the header: fills idx[] (the column of each spec, -1 if absent).  A name given twice,
 * two names of one column (N_q and N), a name compare does not know (a typo such as 'causl'
 * would otherwise drop the column silently), an unnamed column or a missing required column is
 * an error.  Returns 0 or EXIT_USAGE (message printed). */
static int read_header(const char *path, const header *h, int idx[NSPEC])
{
    for (int i = 0; i < h->n; i++) {
        if (!*h->name[i]) {
            fprintf(stderr, "fasim: %s:1: column %d of the header has no name\n", path, i + 1);
            return EXIT_USAGE;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(h->name[i], h->name[j])) {
                fprintf(stderr, "fasim: %s:1: column '%s' appears twice in the header (columns %d and %d)\n", path,
                        h->name[i], j + 1, i + 1);
                return EXIT_USAGE;
            }
    }
    for (int i = 0; i < h->n; i++)
        if (strchr(h->name[i], '\r')) {
            fprintf(stderr, "fasim: %s:1: column %d of the header holds a carriage return (a CRLF line end in the "
                            "middle of the line?)\n", path, i + 1);
            return EXIT_USAGE;
        }
    for (int i = 0; i < h->n; i++) {
        int known = 0;
        for (int k = 0; k < NSPEC && !known; k++)
            for (int a = 0; specs[k].names[a] && !known; a++) known = !strcmp(h->name[i], specs[k].names[a]);
        if (!known) {
            fprintf(stderr, "fasim: %s:1: unknown column '%s' (column %d of the header); the accepted columns "
                            "are %s (names are case-sensitive)\n", path, h->name[i], i + 1, accepted_names());
            return EXIT_USAGE;
        }
    }
    for (int k = 0; k < NSPEC; k++) {
        idx[k] = -1;
        for (int a = 0; specs[k].names[a]; a++)
            for (int i = 0; i < h->n; i++) {
                if (strcmp(h->name[i], specs[k].names[a])) continue;
                if (idx[k] >= 0) {
                    fprintf(stderr, "fasim: %s:1: the header names both '%s' and '%s', two names of one column: "
                                    "keep one\n", path, h->name[idx[k]], h->name[i]);
                    return EXIT_USAGE;
                }
                idx[k] = i;
            }
    }
    if (idx[C_KERNEL] < 0 || idx[C_B] < 0 || idx[C_H] < 0 || idx[C_NQ] < 0 || idx[C_D] < 0) {
        fprintf(stderr, "fasim: %s: the header needs the columns kernel, B, H, N_q (or N) and d\n", path);
        return EXIT_USAGE;
    }
    return 0;
}

/* Checks every field of a row against its column; fills whole[] and real[] (the values of the
 * specs, -1 / NAN where the field is absent or empty).  Returns 0 or EXIT_USAGE (printed). */
static int read_row(const char *path, int lineno, const header *h, const int idx[NSPEC], char **fld,
                    int64_t whole[NSPEC], double real[NSPEC])
{
    for (int c = 0; c < h->n; c++)
        if (strchr(fld[c], '\r')) {
            fprintf(stderr, "fasim: %s:%d: column %s holds a carriage return (a CRLF line end in the middle of the "
                            "line?)\n", path, lineno, h->name[c]);
            return EXIT_USAGE;
        }
    for (int k = 0; k < NSPEC; k++) {
        whole[k] = -1;
        real[k] = NAN;
        int c = idx[k];
        if (c < 0) continue;
        const char *f = fld[c];
        if (!*f) {
            if (!specs[k].required) continue;
            fprintf(stderr, "fasim: %s:%d: column %s is empty; every row needs it\n", path, lineno, h->name[c]);
            return EXIT_USAGE;
        }
        if (specs[k].kind == COL_WHOLE && parse_whole(f, specs[k].lo, specs[k].hi, &whole[k])) {
            if (specs[k].hi == 1)
                fprintf(stderr, "fasim: %s:%d: column %s = '%s' must be 0 or 1\n", path, lineno, h->name[c], f);
            else
                fprintf(stderr, "fasim: %s:%d: column %s = '%s' must be a whole number from %" PRId64 " to %" PRId64
                                "\n", path, lineno, h->name[c], f, specs[k].lo, specs[k].hi);
            return EXIT_USAGE;
        }
        if (specs[k].kind == COL_REAL &&
            (parse_num(f, &real[k]) || real[k] < 0 || (specs[k].positive && real[k] == 0))) {
            fprintf(stderr, "fasim: %s:%d: column %s = '%s' must be a finite number %s\n", path, lineno,
                    h->name[c], f, specs[k].positive ? "> 0" : ">= 0");
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* A table cell: the value with prec decimals in width w, or "-" where it is unknown (NAN). */
static const char *cell(char *buf, size_t n, double v, int w, int prec)
{
    if (isnan(v)) snprintf(buf, n, "%*s", w, "-");
    else if (v != 0 && fabs(v) < 0.5 * pow(10, -prec)) snprintf(buf, n, "%*.*g", w, prec, v); /* not 0.000 */
    else snprintf(buf, n, "%*.*f", w, prec, v);
    return buf;
}

/* The ratio fasim / measured, NAN (printed "-") where either is unknown or measured is 0. */
static double ratio(double pred, double meas)
{
    return isnan(pred) || isnan(meas) || !(meas > 0) ? NAN : pred / meas;
}

/* The kernel profile of a measured kernel's name: a profile key itself ("v3", "v4_bc64"), PyTorch's
 * SDPA backends (sdpa_flash -> fa2, sdpa_cudnn -> cudnn, sdpa_math -> math), v0_low -> v0, the v3
 * backward configurations (v3_bwd, v3_bwd_det, v3_bwd_occ2 -> v3; v3_bwd_bc64); a name ending in
 * _bwd is a backward (*bwd = 1).  NULL when the name says nothing (then the algorithm's own). */
static const fa_profile *profile_of_kernel(const char *k, int *bwd)
{
    char name[64];
    snprintf(name, sizeof name, "%s", k);
    size_t l = strlen(name);
    *bwd = 0;
    if (l > 4 && !strcmp(name + l - 4, "_bwd")) *bwd = 1, name[l - 4] = '\0';
    if (!strncmp(name, "v3_bwd", 6)) {
        *bwd = 1;
        return fa_profile_find(!strcmp(name, "v3_bwd_bc64") ? "v3_bwd_bc64" : "v3");
    }
    static const char *const alias[][2] = {{"sdpa_flash", "fa2"}, {"sdpa_cudnn", "cudnn"}, {"sdpa_math", "math"},
                                           {"v0_low", "v0"}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(name, alias[i][0])) return fa_profile_find(alias[i][1]);
    const fa_profile *p = fa_profile_find(name);
    return p && p->mma != FA_MMA_NONE ? p : NULL;
}

/* Prints "fasim: FILE:LINE: <message of st>" and returns the exit status cli_fail would. */
static int row_fail(const char *path, int lineno, fa_status st)
{
    const char *msg = fa_last_error();
    fprintf(stderr, "fasim: %s:%d: %s\n", path, lineno, msg[0] ? msg : fa_strerror(st));
    return (st == FA_EINVAL || st == FA_ENOSRAM || st == FA_EOVERFLOW || st == FA_EIO) ? EXIT_USAGE : EXIT_RUN;
}

/* fgets that reports a line longer than the buffer: 1 a line, 0 end of file, -1 too long. */
static int get_line(char *buf, int n, FILE *f)
{
    if (!fgets(buf, n, f)) return 0;
    size_t l = strlen(buf);
    if (l == (size_t)n - 1 && buf[l - 1] != '\n') {
        int ch = getc(f);
        if (ch == EOF) return 1; /* the last line, without a newline */
        ungetc(ch, f);
        return -1;
    }
    return 1;
}

/* The validation summary: per quantity, the rows with both numbers, how many lie within the
 * issue's limits (time 15 %, L2<->SM 10 %, DRAM 20 %), the median and largest |ratio - 1|. */
#define SUMMARY_MAX 4096
typedef struct {
    double err[3][SUMMARY_MAX];
    int n[3];
} summary;

static void stat_add(summary *m, double pl2, double ml2, double pdr, double mdr, double pms, double mms)
{
    const double p[3] = {pms, pl2, pdr}, q[3] = {mms, ml2, mdr};
    for (int k = 0; k < 3; k++) {
        double r = ratio(p[k], q[k]);
        if (!isnan(r) && m->n[k] < SUMMARY_MAX) m->err[k][m->n[k]++] = fabs(r - 1);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stat_print(FILE *out, summary *m)
{
    static const char *const what[3] = {"time", "SRAM<->L2 bytes", "DRAM bytes"};
    static const double lim[3] = {0.15, 0.10, 0.20};
    fprintf(out, "\n");
    for (int k = 0; k < 3; k++) {
        if (!m->n[k]) continue;
        qsort(m->err[k], (size_t)m->n[k], sizeof(double), cmp_double);
        int in = 0;
        for (int i = 0; i < m->n[k]; i++) in += m->err[k][i] <= lim[k];
        double med = m->n[k] % 2 ? m->err[k][m->n[k] / 2] : 0.5 * (m->err[k][m->n[k] / 2 - 1] + m->err[k][m->n[k] / 2]);
        fprintf(out, "%-16s %4d rows%s: %4d within %2.0f %%, median |fasim / measured - 1| = %.1f %%, largest %.1f %%\n",
                what[k], m->n[k], m->n[k] == SUMMARY_MAX ? " (the first)" : "", in, 100 * lim[k], 100 * med,
                100 * m->err[k][m->n[k] - 1]);
    }
}

int cmd_compare(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(compare_help, stdout);
            return 0;
        }
    /* --no-l2 is a flag: take it out before cli_parse, which would read the next argument as
     * its value */
    int use_l2 = 1, nargs = 0;
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args) return cli_fail(fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory"));
    for (int i = 0; i < argc; i++) {
        if (i >= 2 && !strcmp(argv[i], "--no-l2")) use_l2 = 0;
        else args[nargs++] = argv[i];
    }
    args[nargs] = NULL;
    cli_opts o;
    char *extra[8];
    int n_extra = 0;
    int rc = cli_parse(nargs, args, 2, OPT_HW | OPT_FORMAT, &o, extra, 8, &n_extra);
    free(args);
    if (rc) return rc;
    if (o.blocks != BLOCKS_FIT) {
        fprintf(stderr, "fasim: compare takes the tile sizes from the file's block_r and block_c columns, "
                        "not --block-r, --block-c or --blocks paper\n");
        return EXIT_USAGE;
    }
    const char *path = NULL;
    for (int i = 0; i < n_extra; i += 2) {
        if (!strcmp(extra[i], "--measured") && extra[i + 1]) path = extra[i + 1];
        else if (!strncmp(extra[i], "--measured=", 11)) path = extra[i] + 11;
        else {
            fprintf(stderr, "fasim: unknown option '%s' (see fasim compare --help)\n", extra[i]);
            return EXIT_USAGE;
        }
    }
    if (!path) {
        fprintf(stderr, "fasim: compare needs --measured FILE (see fasim compare --help)\n");
        return EXIT_USAGE;
    }
    fa_status st = fa_hw_load(o.hw_key, NULL, &o.hw);
    if (st) return cli_fail(st);
    if (o.sram == 0) o.sram = o.hw.sram_per_block;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "fasim: measured file %s is a directory\n", path);
        return EXIT_USAGE;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fasim: cannot open measured file %s: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    static char hline[MAXLINE], line[MAXLINE];
    header h = {.n = 0};
    int got = get_line(hline, sizeof hline, f);
    if (got <= 0) {
        fclose(f);
        if (got == 0) fprintf(stderr, "fasim: measured file %s is empty\n", path);
        else fprintf(stderr, "fasim: %s:1: the header is longer than %d characters\n", path, MAXLINE - 2);
        return EXIT_USAGE;
    }
    /* a UTF-8 byte order mark (as spreadsheets write it) is not part of the first column's name */
    char *hstart = strncmp(hline, "\xEF\xBB\xBF", 3) ? hline : hline + 3;
    h.n = split(hstart, h.name, MAXCOL);
    if (h.n > MAXCOL) {
        fclose(f);
        fprintf(stderr, "fasim: %s:1: the header has more than %d columns\n", path, MAXCOL);
        return EXIT_USAGE;
    }
    int idx[NSPEC];
    if ((rc = read_header(path, &h, idx))) {
        fclose(f);
        return rc;
    }
    json_t *arr = json_array();
    /* output is buffered: a bad row later in the file leaves stdout empty */
    char *obuf = NULL;
    size_t olen = 0;
    FILE *out = open_memstream(&obuf, &olen);
    if (!out) {
        fclose(f);
        json_decref(arr);
        return cli_fail(fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory"));
    }
    if (o.format == FMT_TABLE) {
        fprintf(out, "fasim compare: %s on %s (M = %" PRIu64 " B); bytes in MB (1e6), ratio = fasim / measured\n",
               path, o.hw.name, o.sram);
        fprintf(out, "%-14s %3s %3s %6s %4s %2s %3s %-11s %4s %4s %4s | %9s %9s %6s | %9s %9s %6s | %9s %9s %6s %s\n",
               "kernel", "B", "H", "N", "d", "c", "pas", "profile", "B_r", "B_c", "b/SM", "SRAM<->L2", "meas L2",
               "ratio", "DRAM(L2)", "meas DRAM", "ratio", "time ms", "meas ms", "ratio", "bound");
    } else if (o.format == FMT_CSV) {
        fprintf(out, "kernel,B,H,H_kv,N_q,N_k,d,d_v,causal,dtype,algo,block_r,block_c,pred_l2_bytes,meas_l2_bytes,"
               "pred_dram_bytes,meas_dram_bytes,pred_ms,meas_ms,blocks_per_sm,profile,pass,bound,model_blocks_per_sm\n");
    }
    summary sum = {0};
    int lineno = 1, rows_seen = 0;
    while (rc == 0 && (got = get_line(line, sizeof line, f)) != 0) {
        lineno++;
        if (got < 0) {
            fprintf(stderr, "fasim: %s:%d: the line is longer than %d characters\n", path, lineno, MAXLINE - 2);
            rc = EXIT_USAGE;
            break;
        }
        if (line[strspn(line, " \t\r\n")] == '\0' || line[0] == '#') continue;
        char *fld[MAXCOL];
        rows_seen++;
        int nf = split(line, fld, MAXCOL);
        if (nf != h.n) {
            fprintf(stderr, "fasim: %s:%d: %s%d fields, the header has %d\n", path, lineno, nf > MAXCOL ? "over " : "",
                    nf > MAXCOL ? MAXCOL : nf, h.n);
            rc = EXIT_USAGE;
            break;
        }
        int64_t w[NSPEC];
        double x[NSPEC];
        if ((rc = read_row(path, lineno, &h, idx, fld, w, x))) break;
        fa_shape s = fa_shape_default(1, 1);
        s.batch = w[C_B];
        s.heads = w[C_H];
        s.kv_heads = w[C_HKV] > 0 ? w[C_HKV] : s.heads;
        s.seqlen_q = w[C_NQ];
        s.seqlen_k = w[C_NK] > 0 ? w[C_NK] : s.seqlen_q;
        s.d = w[C_D];
        s.d_v = w[C_DV] > 0 ? w[C_DV] : s.d;
        s.causal = w[C_CAUSAL] == 1 ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        s.dtype = FA_DTYPE_BF16;
        const int idt = idx[C_DTYPE], ia = idx[C_ALGO];
        if (idt >= 0 && *fld[idt] && fa_dtype_parse(fld[idt], &s.dtype)) {
            fprintf(stderr, "fasim: %s:%d: dtype '%s' is not one of fp32, fp16, bf16, fp8_e4m3, fp8_e5m2\n", path,
                    lineno, fld[idt]);
            rc = EXIT_USAGE;
            break;
        }
        if ((st = fa_shape_check(&s))) {
            rc = row_fail(path, lineno, st);
            break;
        }
        const char *kname = fld[idx[C_KERNEL]];
        fa_algo a = FA_ALGO_FLASH2;
        if (ia >= 0 && *fld[ia]) {
            if ((st = fa_algo_parse(fld[ia], &a))) {
                fprintf(stderr, "fasim: %s:%d: algo '%s' is not one of standard, flash1, flash2\n", path, lineno, fld[ia]);
                rc = EXIT_USAGE;
                break;
            }
        } else if (!strncmp(kname, "v0", 2) || !strcmp(kname, "sdpa_math")) {
            a = FA_ALGO_STANDARD;
        } else if (!strncmp(kname, "v1", 2)) {
            a = FA_ALGO_FLASH1;
        }
        int bwd = 0;
        const fa_profile *prof = profile_of_kernel(kname, &bwd);
        const int ip = idx[C_PROFILE], ips = idx[C_PASS];
        if (ip >= 0 && *fld[ip] && fa_profile_parse(fld[ip], &prof)) {
            rc = row_fail(path, lineno, FA_EINVAL);
            break;
        }
        if (ips >= 0 && *fld[ips]) {
            fa_pass pp;
            if (fa_pass_parse(fld[ips], &pp) || pp == FA_PASS_FWDBWD) {
                fprintf(stderr, "fasim: %s:%d: pass '%s' is not fwd or bwd\n", path, lineno, fld[ips]);
                rc = EXIT_USAGE;
                break;
            }
            bwd = pp == FA_PASS_BWD;
        }
        if (prof && prof->mma != FA_MMA_NONE && !(ia >= 0 && *fld[ia])) a = prof->algo; /* the profile's loop */
        if (!prof) prof = fa_profile_default(a);
        if (prof->mma != FA_MMA_NONE && prof->algo != a) {
            fprintf(stderr, "fasim: %s:%d: profile %s is a %s kernel, the row's algo is %s\n", path, lineno, prof->key,
                    fa_algo_name(prof->algo), fa_algo_name(a));
            rc = EXIT_USAGE;
            break;
        }
        const fa_pass pass = bwd ? FA_PASS_BWD : FA_PASS_FWD;
        fa_blocks bk;
        if ((w[C_BR] > 0) != (w[C_BC] > 0)) {
            fprintf(stderr, "fasim: %s:%d: block_r = '%s' but block_c = '%s': give both tile sizes, or neither "
                            "(--blocks fit)\n", path, lineno, idx[C_BR] >= 0 ? fld[idx[C_BR]] : "",
                    idx[C_BC] >= 0 ? fld[idx[C_BC]] : "");
            rc = EXIT_USAGE;
            break;
        }
        int from_table = 0;
        if (w[C_BR] > 0) {
            bk.block_r = w[C_BR];
            bk.block_c = w[C_BC];
        } else if (prof->tiles) { /* the profile's tile table */
            const fa_tile_row *row;
            if ((st = fa_profile_tiles(prof, pass, o.hw.arch, &s, &bk, &row))) {
                rc = row_fail(path, lineno, st);
                break;
            }
            from_table = 1;
        } else if ((st = fa_blocks_fit(&s, o.sram, &bk))) {
            rc = row_fail(path, lineno, st);
            break;
        }
        if (w[C_BR] > 0 || from_table) {
            /* The tiles a kernel must stage in shared memory, Q_i, K_j and V_j in the dtype, must
             * fit M (fasim io refuses the same tiles).  fasim's fp32 buffers (S_ij, O_i, m_i, l_i)
             * may exceed it: a measured kernel keeps them in registers (M is raised below). */
            const uint64_t e = (uint64_t)fa_dtype_bytes(s.dtype);
            const uint64_t ops = ((uint64_t)bk.block_r * (uint64_t)s.d + (uint64_t)bk.block_c * (uint64_t)s.d +
                                  (uint64_t)bk.block_c * (uint64_t)s.d_v) * e;
            if (ops > o.sram) {
                fprintf(stderr, "fasim: %s:%d: tiles B_r x B_c = %" PRId64 " x %" PRId64 "%s%s%s do not fit SRAM: Q_i, "
                                "K_j, V_j (d = %" PRId64 ", d_v = %" PRId64 ", %s) need %" PRIu64 " B, M = %" PRIu64 " B\n",
                        path, lineno, bk.block_r, bk.block_c, from_table ? " (profile " : "",
                        from_table ? prof->key : "", from_table ? ")" : "", s.d, s.d_v, fa_dtype_name(s.dtype), ops,
                        o.sram);
                rc = EXIT_USAGE;
                break;
            }
        }
        int64_t occ = w[C_OCC] > 0 ? w[C_OCC] : 0; /* 0: estimated from the SRAM need */
        uint64_t M = o.sram;
        uint64_t need = fa_sram_need_pass(pass, a, &s, bk);
        if (need > M) M = need; /* the kernel's own tiles: count them even if fasim's buffers are larger */
        fa_io_result r;
        if ((st = fa_io_run(pass, a, &s, bk, M, &o.hw, NULL, &r))) {
            rc = row_fail(path, lineno, st);
            break;
        }
        fa_perf_result pr;
        int timed = 0;
        if (prof->mma != FA_MMA_NONE) {
            fa_hw hw = o.hw; /* the kernel's tiles: let fasim's larger buffers fit as above */
            if (hw.sram_per_block < M) hw.sram_per_block = M;
            if (hw.sram_per_sm < M) hw.sram_per_sm = M;
            if ((st = fa_perf_predict(prof, pass, &s, &hw, from_table ? NULL : &bk, &pr))) {
                rc = row_fail(path, lineno, st);
                break;
            }
            timed = pr.has_time;
        }
        int l2ok = 0;
        /* the L2 replay is costly: run it only where the row has DRAM bytes to compare */
        if (use_l2 && !isnan(x[C_DR] + x[C_DW])) {
            /* occupancy: the measured one, else the time model's, else estimated from the SRAM need */
            if (occ == 0 && timed && pr.occ[bwd].occupancy > 0 && pr.occ[bwd].occupancy <= 32) occ = pr.occ[bwd].occupancy;
            st = fa_io_l2(pass, a, &s, bk, M, &o.hw, (int)occ, &r);
            if (st == FA_OK) l2ok = 1;
            else if (st != FA_EINVAL) {
                rc = row_fail(path, lineno, st);
                break;
            }
        }
        double pred_l2 = (double)fa_counts_hbm_bytes(&r.counts);
        double pred_dram = l2ok ? (double)(r.dram_read_bytes + r.dram_write_bytes) : NAN;
        double meas_l2 = x[C_LR] + x[C_LW]; /* NAN unless both are given */
        double meas_dram = x[C_DR] + x[C_DW];
        double meas_ms = x[C_MS];
        /* predicted time: the time model of the kernel's profile (docs/time-model.md); without
         * the pipe rates, the roofline with the DRAM bytes of the L2 model when there is one */
        double tmem = (l2ok ? pred_dram : pred_l2) / o.hw.hbm_bandwidth;
        double pred_ms = timed ? 1e3 * pr.time_s : 1e3 * (r.time_compute_s > tmem ? r.time_compute_s : tmem);
        const char *bound = timed ? fa_pipe_name(pr.bound) : r.time_compute_s > tmem ? "compute" : "memory";
        stat_add(&sum, pred_l2, meas_l2, pred_dram, meas_dram, pred_ms, meas_ms);
        const int bps = l2ok ? r.l2_slots / o.hw.sms : 0; /* blocks per SM the L2 model replayed */
        char bps_s[16] = "-"; /* no L2 model (--no-l2): no replayed occupancy */
        if (l2ok) snprintf(bps_s, sizeof bps_s, "%d", bps);
        if (o.format == FMT_TABLE) {
            char c[9][32];
            fprintf(out, "%-14s %3" PRId64 " %3" PRId64 " %6" PRId64 " %4" PRId64 " %2d %3s %-11s %4" PRId64 " %4" PRId64
                   " %4s | %s %s %s | %s %s %s | %s %s %s %s\n",
                   kname, s.batch, s.heads, s.seqlen_q, s.d, s.causal != FA_CAUSAL_NONE, bwd ? "bwd" : "fwd",
                   prof->key, bk.block_r, bk.block_c, bps_s, cell(c[0], 32, pred_l2 / 1e6, 9, 1),
                   cell(c[1], 32, meas_l2 / 1e6, 9, 1), cell(c[2], 32, ratio(pred_l2, meas_l2), 6, 2),
                   cell(c[3], 32, pred_dram / 1e6, 9, 1), cell(c[4], 32, meas_dram / 1e6, 9, 1),
                   cell(c[5], 32, ratio(pred_dram, meas_dram), 6, 2), cell(c[6], 32, pred_ms, 9, 3),
                   cell(c[7], 32, meas_ms, 9, 3), cell(c[8], 32, ratio(pred_ms, meas_ms), 6, 2), bound);
        } else if (o.format == FMT_CSV) {
            fprintf(out, "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                   ",%d,%s,%s,%" PRId64 ",%" PRId64 ",%.0f,%.0f,%.0f,%.0f,%.6g,%.6g,%s,%s,%s,%s,%d\n",
                   kname, s.batch, s.heads, s.kv_heads, s.seqlen_q, s.seqlen_k, s.d, s.d_v,
                   s.causal != FA_CAUSAL_NONE, fa_dtype_name(s.dtype), fa_algo_name(a), bk.block_r,
                   bk.block_c, pred_l2, meas_l2, pred_dram, meas_dram, pred_ms, meas_ms, l2ok ? bps_s : "",
                   prof->key, bwd ? "bwd" : "fwd", bound, timed ? pr.occ[bwd].occupancy : 0);
        } else {
            json_t *j = json_object();
            json_object_set_new(j, "kernel", json_string(kname));
            json_object_set_new(j, "algo", json_string(fa_algo_name(a)));
            json_object_set_new(j, "batch", json_integer(s.batch));
            json_object_set_new(j, "heads", json_integer(s.heads));
            json_object_set_new(j, "seqlen_q", json_integer(s.seqlen_q));
            json_object_set_new(j, "seqlen_k", json_integer(s.seqlen_k));
            json_object_set_new(j, "d", json_integer(s.d));
            json_object_set_new(j, "causal", json_boolean(s.causal != FA_CAUSAL_NONE));
            json_object_set_new(j, "block_r", json_integer(bk.block_r));
            json_object_set_new(j, "block_c", json_integer(bk.block_c));
            json_object_set_new(j, "pred_l2_bytes", json_real(pred_l2));
            json_object_set_new(j, "meas_l2_bytes", isnan(meas_l2) ? json_null() : json_real(meas_l2));
            json_object_set_new(j, "pred_dram_bytes", isnan(pred_dram) ? json_null() : json_real(pred_dram));
            json_object_set_new(j, "meas_dram_bytes", isnan(meas_dram) ? json_null() : json_real(meas_dram));
            json_object_set_new(j, "pred_ms", json_real(pred_ms));
            json_object_set_new(j, "meas_ms", isnan(meas_ms) ? json_null() : json_real(meas_ms));
            json_object_set_new(j, "blocks_per_sm", l2ok ? json_integer(bps) : json_null());
            json_object_set_new(j, "profile", json_string(prof->key));
            json_object_set_new(j, "pass", json_string(bwd ? "bwd" : "fwd"));
            json_object_set_new(j, "bound", json_string(bound));
            json_object_set_new(j, "model_blocks_per_sm", timed ? json_integer(pr.occ[bwd].occupancy) : json_null());
            json_array_append_new(arr, j);
        }
    }
    fclose(f);
    if (rc == 0 && rows_seen == 0) {
        fprintf(stderr, "fasim: measured file %s has a header but no rows\n", path);
        rc = EXIT_USAGE;
    }
    if (rc == 0 && o.format == FMT_TABLE) stat_print(out, &sum);
    if (rc == 0 && o.format == FMT_JSON) {
        json_dumpf(arr, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', out);
    }
    fclose(out);
    if (rc == 0) fwrite(obuf, 1, olen, stdout);
    free(obuf);
    json_decref(arr);
    return rc;
}
