/* compare.c -- `fasim compare`: the measured CSV read and checked row by row, fasim's prediction
 * of a row, the summary of the ratios fasim / measured (fa_compare.h).  Nothing is printed here:
 * analysis/cli/cmd_compare.c prints. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fa_compare.h"
#include "fa_file.h"

#define DIM_MAX ((int64_t)INT32_MAX) /* the limit of --batch, --seqlen, --headdim ... */
#define TILE_MAX ((int64_t)1 << 20)  /* the limit of --block-r / --block-c */

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

/* The columns of the benchmark CSVs (kernels/fabench.cu --csv, kernels/compare_sdpa.py --csv:
 * kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass) that compare does not read:
 * tflops and gbps follow from ms and the shape, max_err is the validation's.  Accepted in any
 * header, their fields not read; every other unknown name is still an error. */
static const char *const info_cols[] = {"tflops", "gbps", "max_err", NULL};

/* The verdicts those benchmarks write in their pass column (fabench.cu: "ref" for the reference
 * row that is not timed, "skip" for a kernel that did not run, CONS for a backward that agrees
 * with the deterministic reference; compare_sdpa.py: PASS, FAIL, and skip for a timed row it had
 * no reference for).  A ref row, and a skip row with no time (ms nan or empty), is left out; the
 * others are compared, their pass taken from the kernel name as when the column is absent. */
static const char *const verdicts[] = {"PASS", "FAIL", "CONS", "ref", "skip", NULL};
static int is_verdict(const char *v)
{
    for (int i = 0; verdicts[i]; i++)
        if (!strcmp(v, verdicts[i])) return 1;
    return 0;
}

struct fa_cmp_reader {
    FILE *f;
    char *path;
    char hline[FA_CMP_MAXLINE]; /* the header; name[] points into it */
    char line[FA_CMP_MAXLINE];  /* the current row; the row's kernel points into it */
    char *name[FA_CMP_MAXCOL];
    int n;                      /* columns of the header */
    int idx[NSPEC];             /* the column of each spec, -1 if absent */
    int lineno, rows;           /* the last line read; rows read (blank and '#' lines not counted) */
    int untimed;                /* rows left out: a benchmark's ref or skip row (no time) */
    int v1_sliced, v1_left;     /* kernels/ v1 rows in a head's shape: read as its 256-row query
                                   slices; left out (causal, or N_q not a multiple of 256) */
    int nmap;                   /* fa_cmp_map's kernels, their profiles, whether a row had the kernel */
    char map_kernel[FA_CMP_MAXMAP][64];
    const fa_profile *map_profile[FA_CMP_MAXMAP];
    int map_used[FA_CMP_MAXMAP];
    char kernels[1024];         /* the file's distinct kernel names so far, comma-separated (for the
                                   message of a mapped kernel no row has; "..." once full) */
};

/* Adds kernel k to r->kernels when it is not there yet. */
static void note_kernel(fa_cmp_reader *r, const char *k)
{
    const size_t n = strlen(k), used = strlen(r->kernels);
    for (const char *p = r->kernels; *p;) {
        const char *e = strchr(p, ',');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, k, n)) return;
        p += l + (e ? 1 : 0);
    }
    if (used + n + 5 < sizeof r->kernels) snprintf(r->kernels + used, sizeof r->kernels - used, "%s%s", used ? "," : "", k);
    else if (used + 4 < sizeof r->kernels && strcmp(r->kernels + used - 3, "...")) strcat(r->kernels, ",...");
}

fa_status fa_cmp_map(fa_cmp_reader *r, const char *kernel, const fa_profile *prof)
{
    const size_t n = strlen(kernel);
    if (n == 0 || n >= sizeof r->map_kernel[0])
        FA_FAIL(FA_EINVAL, "--kernel-profile: the kernel name must have 1 to %d characters, got %zu",
                (int)sizeof r->map_kernel[0] - 1, n);
    for (int i = 0; i < r->nmap; i++)
        if (!strcmp(r->map_kernel[i], kernel)) FA_FAIL(FA_EINVAL, "--kernel-profile: kernel %s given twice", kernel);
    if (r->nmap == FA_CMP_MAXMAP)
        FA_FAIL(FA_EINVAL, "--kernel-profile: at most %d kernels, got more (%s)", FA_CMP_MAXMAP, kernel);
    memcpy(r->map_kernel[r->nmap], kernel, n + 1);
    r->map_profile[r->nmap++] = prof;
    return FA_OK;
}

/* Records "FILE:LINE: <the message of the failure st>" (fa_strerror's text when it left none)
 * and returns st. */
static fa_status at_line(fa_status st, const char *file, int line)
{
    char msg[1024];
    const char *m = fa_last_error();
    snprintf(msg, sizeof msg, "%s", m[0] ? m : fa_strerror(st));
    return fa_error(st, __FILE__, __LINE__, "%s:%d: %s", file, line, msg);
}

/* Splits one CSV line into at most max fields (RFC 4180: a field in double quotes may hold
 * commas and "" for a quote); returns how many it found (max + 1 when the line has more than
 * max), or -1 when a quoted field is not closed or text follows its closing quote. */
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
        if (*p == '"') { /* quoted: unescape in place */
            char *w = start;
            for (p++;; p++) {
                if (!*p) return -1; /* not closed */
                if (*p == '"' && p[1] == '"') *w++ = '"', p++;
                else if (*p == '"') break;
                else *w++ = *p;
            }
            p++;
            if (*p && *p != ',') return -1; /* text after the closing quote */
            *w = '\0';
        } else {
            while (*p && *p != ',') p++;
        }
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
    if (!fa_is_decimal(s)) return -1; /* not 0x1p-3, inf, nan: the rule of every reader */
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

/* Every name the header may use, for the unknown-column message: "kernel, B or batch, ...". */
static const char *accepted_names(void)
{
    static char buf[1024];
    size_t l = 0;
    for (int k = 0; k < NSPEC; k++)
        for (int a = 0; specs[k].names[a] && l < sizeof buf; a++)
            l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", a ? " or " : k ? ", " : "", specs[k].names[a]);
    for (int i = 0; info_cols[i] && l < sizeof buf; i++)
        l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", i ? ", " : "; read but not used: ", info_cols[i]);
    return buf;
}

/* Checks the header r->name[0 .. r->n) and fills r->idx.  A name given twice, two names of one
 * column (N_q and N), a name compare does not know (a typo such as 'causl' would otherwise drop
 * the column silently), an unnamed column or a missing required column is FA_EINVAL. */
static fa_status read_header(fa_cmp_reader *r)
{
    const char *path = r->path;
    for (int i = 0; i < r->n; i++) {
        if (!*r->name[i]) FA_FAIL(FA_EINVAL, "%s:1: column %d of the header has no name", path, i + 1);
        for (int j = 0; j < i; j++)
            if (!strcmp(r->name[i], r->name[j]))
                FA_FAIL(FA_EINVAL, "%s:1: column '%s' appears twice in the header (columns %d and %d)", path,
                        r->name[i], j + 1, i + 1);
    }
    for (int i = 0; i < r->n; i++)
        if (strchr(r->name[i], '\r'))
            FA_FAIL(FA_EINVAL, "%s:1: column %d of the header holds a carriage return (a CRLF line end in the "
                               "middle of the line?)", path, i + 1);
    for (int i = 0; i < r->n; i++) {
        int known = 0;
        for (int k = 0; info_cols[k] && !known; k++) known = !strcmp(r->name[i], info_cols[k]);
        for (int k = 0; k < NSPEC && !known; k++)
            for (int a = 0; specs[k].names[a] && !known; a++) known = !strcmp(r->name[i], specs[k].names[a]);
        if (!known && !strncmp(r->name[i], "pred_", 5))
            FA_FAIL(FA_EINVAL, "%s:1: unknown column '%s' (column %d of the header): this is fasim compare's own "
                               "output (--format csv), not a measured file; give it the file it read (the kernel, "
                               "shape and ms columns; e.g. analysis/measured/h200/timemodel_input.csv)",
                    path, r->name[i], i + 1);
        if (!known)
            FA_FAIL(FA_EINVAL, "%s:1: unknown column '%s' (column %d of the header); the accepted columns "
                               "are %s (names are case-sensitive)", path, r->name[i], i + 1, accepted_names());
    }
    for (int k = 0; k < NSPEC; k++) {
        r->idx[k] = -1;
        for (int a = 0; specs[k].names[a]; a++)
            for (int i = 0; i < r->n; i++) {
                if (strcmp(r->name[i], specs[k].names[a])) continue;
                if (r->idx[k] >= 0)
                    FA_FAIL(FA_EINVAL, "%s:1: the header names both '%s' and '%s', two names of one column: keep one",
                            path, r->name[r->idx[k]], r->name[i]);
                r->idx[k] = i;
            }
    }
    if (r->idx[C_KERNEL] < 0 || r->idx[C_B] < 0 || r->idx[C_H] < 0 || r->idx[C_NQ] < 0 || r->idx[C_D] < 0)
        FA_FAIL(FA_EINVAL, "%s: the header needs the columns kernel, B, H, N_q (or N) and d", path);
    return FA_OK;
}

/* Checks every field of a row against its column; fills whole[] and real[] (the values of the
 * specs, -1 / NAN where the field is absent or empty).  Errors: FA_EINVAL, FILE:LINE named. */
static fa_status read_fields(const fa_cmp_reader *r, char **fld, int64_t whole[NSPEC], double real[NSPEC])
{
    const char *path = r->path;
    const int lineno = r->lineno;
    for (int c = 0; c < r->n; c++)
        if (strchr(fld[c], '\r'))
            FA_FAIL(FA_EINVAL, "%s:%d: column %s holds a carriage return (a CRLF line end in the middle of the "
                               "line?)", path, lineno, r->name[c]);
    for (int k = 0; k < NSPEC; k++) {
        whole[k] = -1;
        real[k] = NAN;
        int c = r->idx[k];
        if (c < 0) continue;
        const char *f = fld[c];
        if (!*f) {
            if (!specs[k].required) continue;
            FA_FAIL(FA_EINVAL, "%s:%d: column %s is empty; every row needs it", path, lineno, r->name[c]);
        }
        if (specs[k].kind == COL_WHOLE && parse_whole(f, specs[k].lo, specs[k].hi, &whole[k])) {
            if (specs[k].hi == 1)
                FA_FAIL(FA_EINVAL, "%s:%d: column %s = '%s' must be 0 or 1", path, lineno, r->name[c], f);
            FA_FAIL(FA_EINVAL, "%s:%d: column %s = '%s' must be a whole number from %" PRId64 " to %" PRId64,
                    path, lineno, r->name[c], f, specs[k].lo, specs[k].hi);
        }
        if (specs[k].kind == COL_REAL &&
            (parse_num(f, &real[k]) || real[k] < 0 || (specs[k].positive && real[k] == 0)))
            FA_FAIL(FA_EINVAL, "%s:%d: column %s = '%s' must be a finite number %s", path, lineno, r->name[c], f,
                    specs[k].positive ? "> 0" : ">= 0");
    }
    return FA_OK;
}

/* 1 when the kernel name ends in "_prepass": a kernel profile's V -> V^T pre-pass (fabench's
 * v5_fp8_prepass rows). */
static int prepass_name(const char *k)
{
    static const char suf[] = "_prepass";
    const size_t l = strlen(k), n = sizeof suf - 1;
    return l > n && !strcmp(k + l - n, suf);
}

const fa_profile *fa_cmp_kernel_profile(const char *k, int *bwd)
{
    char name[64];
    snprintf(name, sizeof name, "%s", k);
    size_t l = strlen(name);
    *bwd = 0;
    if (prepass_name(name)) { /* KEY_prepass: the pre-pass of profile KEY, a forward-side kernel */
        name[l - 8] = '\0';
        const fa_profile *p = fa_profile_find(name);
        return p && p->mma != FA_MMA_NONE ? p : NULL;
    }
    if (!strncmp(name, "v5_bwd", 6)) { /* kernels/ v5_bwd and its variants: v5_bwd_pers, v5_bwd_atomic
                                          have profiles; v5_bwd_det is timed as v5_bwd, KEY_det as KEY
                                          (the model has no wait of one block on another:
                                          docs/time-model.md) */
        const fa_profile *p = fa_profile_find(name);
        *bwd = 1;
        if (!p && l > 4 && !strcmp(name + l - 4, "_det")) { /* KEY_det: timed as KEY (v5_bwd_lean_det) */
            name[l - 4] = '\0';
            p = fa_profile_find(name);
        }
        return p ? p : fa_profile_find("v5_bwd");
    }
    if (l > 4 && !strcmp(name + l - 4, "_bwd")) *bwd = 1, name[l - 4] = '\0';
    if (!strncmp(name, "v3_bwd", 6)) {
        *bwd = 1;
        return fa_profile_find(!strcmp(name, "v3_bwd_bc64") ? "v3_bwd_bc64" : "v3");
    }
    static const char *const alias[][2] = {{"sdpa_cudnn", "cudnn"}, {"sdpa_math", "math"},
                                           {"v0_low", "v0"}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(name, alias[i][0])) return fa_profile_find(alias[i][1]);
    const fa_profile *p = fa_profile_find(name);
    return p && p->mma != FA_MMA_NONE ? p : NULL;
}

/* the next line: 1, 0 at the end, -1 too long, -2 a NUL byte (fa_read_line) */
static int get_line(char *buf, int n, FILE *f) { return fa_read_line(f, buf, (size_t)n); }

int fa_cmp_untimed(const fa_cmp_reader *r) { return r->untimed; }

void fa_cmp_v1_rows(const fa_cmp_reader *r, int *sliced, int *left)
{
    *sliced = r->v1_sliced;
    *left = r->v1_left;
}

void fa_cmp_close(fa_cmp_reader *r)
{
    if (!r) return;
    if (r->f) fclose(r->f);
    free(r->path);
    free(r);
}

fa_status fa_cmp_open(const char *path, fa_cmp_reader **out)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) FA_FAIL(FA_EINVAL, "measured file %s is a directory", path);
    fa_cmp_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = malloc(strlen(path) + 1))) {
        free(r);
        FA_FAIL(FA_ENOMEM, "out of host memory");
    }
    strcpy(r->path, path);
    fa_status sr = fa_check_regular(path, "measured file");
    if (sr) {
        fa_cmp_close(r);
        return sr;
    }
    if (!(r->f = fopen(path, "r"))) {
        fa_status st = fa_error(FA_EIO, __FILE__, __LINE__, "cannot open measured file %s: %s", path, strerror(errno));
        fa_cmp_close(r);
        return st;
    }
    fa_status st = FA_OK;
    int got = get_line(r->hline, sizeof r->hline, r->f);
    r->lineno = 1;
    if (got == 0) st = fa_error(FA_EINVAL, __FILE__, __LINE__, "measured file %s is empty", path);
    else if (got == -2)
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:1: a NUL byte ('\\x00'): a measured file is text, not binary", path);
    else if (got < 0)
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:1: the header is longer than %d characters", path,
                      FA_CMP_MAXLINE - 2);
    if (st == FA_OK) {
        /* a UTF-8 byte order mark (as spreadsheets write it) is not part of the first column's name */
        char *hstart = strncmp(r->hline, "\xEF\xBB\xBF", 3) ? r->hline : r->hline + 3;
        r->n = split(hstart, r->name, FA_CMP_MAXCOL);
        if (r->n < 0)
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:1: a quoted column name is not closed, or text follows "
                          "its closing quote", path);
        else if (r->n > FA_CMP_MAXCOL)
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:1: the header has more than %d columns", path,
                          FA_CMP_MAXCOL);
        else st = read_header(r);
    }
    if (st) {
        fa_cmp_close(r);
        return st;
    }
    *out = r;
    return FA_OK;
}

fa_status fa_cmp_next(fa_cmp_reader *r, fa_cmp_row *row, int *got)
{
    *got = 0;
    const char *path = r->path;
    int g;
next_line:
    for (;;) {
        if ((g = get_line(r->line, sizeof r->line, r->f)) == 0) {
            if (r->rows == 0 && (r->untimed || r->v1_left))
                FA_FAIL(FA_EINVAL, "measured file %s has no timed rows: all %d are a benchmark's ref or skip rows",
                        path, r->untimed + r->v1_left);
            if (r->rows == 0) FA_FAIL(FA_EINVAL, "measured file %s has a header but no rows", path);
            for (int i = 0; i < r->nmap; i++)
                if (!r->map_used[i])
                    FA_FAIL(FA_EINVAL, "--kernel-profile: kernel '%s' names no row of %s (its kernels: %s)", r->map_kernel[i],
                            path, r->kernels);
            return FA_OK;
        }
        r->lineno++;
        if (g == -2) FA_FAIL(FA_EINVAL, "%s:%d: a NUL byte ('\\x00'): a measured file is text, not binary", path, r->lineno);
        if (g < 0) FA_FAIL(FA_EINVAL, "%s:%d: the line is longer than %d characters", path, r->lineno,
                           FA_CMP_MAXLINE - 2);
        if (!(r->line[strspn(r->line, " \t\r\n")] == '\0' || r->line[0] == '#')) break;
    }
    const int lineno = r->lineno;
    r->rows++;
    char *fld[FA_CMP_MAXCOL];
    int nf = split(r->line, fld, FA_CMP_MAXCOL);
    if (nf < 0) FA_FAIL(FA_EINVAL, "%s:%d: a quoted field is not closed, or text follows its closing quote", path, lineno);
    if (nf != r->n)
        FA_FAIL(FA_EINVAL, "%s:%d: %s%d fields, the header has %d", path, lineno, nf > FA_CMP_MAXCOL ? "over " : "",
                nf > FA_CMP_MAXCOL ? FA_CMP_MAXCOL : nf, r->n);
    const int ips = r->idx[C_PASS];
    /* a benchmark's untimed row: ref, or skip without a time (compare_sdpa.py writes skip for a
     * timed row it could not validate -- no reference at that size: those are compared) */
    const int ims = r->idx[C_MS];
    const int no_ms = ims < 0 || !*fld[ims] || !strcasecmp(fld[ims], "nan");
    if (ips >= 0 && (!strcmp(fld[ips], "ref") || (!strcmp(fld[ips], "skip") && no_ms))) {
        r->untimed++, r->rows--;
        goto next_line;
    }
    int64_t w[NSPEC];
    double x[NSPEC];
    FA_TRY(read_fields(r, fld, w, x));
    memset(row, 0, sizeof *row);
    row->file = path;
    row->line = lineno;
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
    const int idt = r->idx[C_DTYPE], ia = r->idx[C_ALGO];
    if (idt >= 0 && *fld[idt] && fa_dtype_parse(fld[idt], &s.dtype))
        FA_FAIL(FA_EINVAL, "%s:%d: dtype '%s' is not one of fp32, fp16, bf16, fp8_e4m3, fp8_e5m2", path, lineno,
                fld[idt]);
    fa_clear_error();
    fa_status st = fa_shape_check(&s);
    if (st) return at_line(st, path, lineno);
    const char *kname = fld[r->idx[C_KERNEL]];
    fa_algo a = FA_ALGO_FLASH2;
    const int algo_given = ia >= 0 && *fld[ia];
    if (algo_given) {
        if (fa_algo_parse(fld[ia], &a))
            FA_FAIL(FA_EINVAL, "%s:%d: algo '%s' is not one of standard, flash1, flash2", path, lineno, fld[ia]);
    } else if (!strncmp(kname, "v0", 2) || !strcmp(kname, "sdpa_math")) {
        a = FA_ALGO_STANDARD;
    } else if (!strncmp(kname, "v1", 2)) {
        a = FA_ALGO_FLASH1;
    }
    int bwd = 0;
    const fa_profile *prof = fa_cmp_kernel_profile(kname, &bwd);
    for (int i = 0; i < r->nmap; i++)
        if (!strcmp(r->map_kernel[i], kname)) prof = r->map_profile[i], r->map_used[i] = 1;
    if (r->nmap) note_kernel(r, kname);
    const int ip = r->idx[C_PROFILE];
    fa_clear_error();
    if (ip >= 0 && *fld[ip] && fa_profile_parse(fld[ip], &prof)) return at_line(FA_EINVAL, path, lineno);
    if (ips >= 0 && *fld[ips] && !is_verdict(fld[ips])) {
        fa_pass pp;
        if (fa_pass_parse(fld[ips], &pp) || pp == FA_PASS_FWDBWD)
            FA_FAIL(FA_EINVAL, "%s:%d: pass '%s' is not fwd or bwd (nor a benchmark's verdict: PASS, FAIL, CONS, "
                               "ref, skip)", path, lineno, fld[ips]);
        bwd = pp == FA_PASS_BWD;
    }
    const int pre = prepass_name(kname);
    if (pre && (!prof || !prof->v_prepass)) {
        char list[256] = "";
        size_t l = 0;
        for (int i = 0; i < fa_nprofiles; i++)
            if (fa_profiles[i].v_prepass)
                l += (size_t)snprintf(list + l, sizeof list - l, "%s%s_prepass", l ? ", " : "", fa_profiles[i].key);
        if (prof)
            FA_FAIL(FA_EINVAL, "%s:%d: kernel '%s' names the pre-pass of profile %s, which has none (pre-passes: %s)",
                    path, lineno, kname, prof->key, list);
        FA_FAIL(FA_EINVAL, "%s:%d: kernel '%s' ends in _prepass but names no kernel profile (pre-passes: %s)", path,
                lineno, kname, list);
    }
    if (pre && bwd)
        FA_FAIL(FA_EINVAL, "%s:%d: kernel '%s' is a forward kernel's pre-pass, not a backward (pass bwd)", path, lineno, kname);
    if (prof && prof->mma != FA_MMA_NONE && !algo_given) a = prof->algo; /* the profile's loop */
    const int guessed = !prof;
    if (!prof) prof = fa_profile_default(a);
    /* kernels/ v1 runs a thread block a slice of 256 rows of one head's queries (4 Q blocks;
     * kernels/attn_v1_flash1.cu, grid (ceil(T_r / 4), H, B)) where FlashAttention-1 runs one a
     * head: a row in the head's shape (fabench's own CSV) is read in the kernel's, N_q / 256 query
     * heads of 256 rows that share the head's K and V, as make_timemodel_input.py writes it.  A
     * causal slice's keys depend on its place under the mask, and a last slice of fewer rows has
     * no such form: those rows are left out, and the table says so. */
    if (!strcmp(prof->key, "v1") && !bwd && s.seqlen_q > 256) {
        if (s.causal != FA_CAUSAL_NONE || s.seqlen_q % 256 != 0) {
            r->v1_left++, r->rows--;
            goto next_line;
        }
        const int64_t slices = s.seqlen_q / 256;
        if (s.heads > INT64_MAX / slices)
            FA_FAIL(FA_EINVAL, "%s:%d: H = %lld x %lld slices of 256 queries overflows", path, lineno,
                    (long long)s.heads, (long long)slices);
        s.heads *= slices;
        s.seqlen_q = 256;
        fa_clear_error();
        if ((st = fa_shape_check(&s))) return at_line(st, path, lineno);
        r->v1_sliced++;
    }
    if (prof->mma != FA_MMA_NONE && prof->algo != a)
        FA_FAIL(FA_EINVAL, "%s:%d: profile %s is a %s kernel, the row's algo is %s", path, lineno, prof->key,
                fa_algo_name(prof->algo), fa_algo_name(a));
    if ((w[C_BR] > 0) != (w[C_BC] > 0))
        FA_FAIL(FA_EINVAL, "%s:%d: block_r = '%s' but block_c = '%s': give both tile sizes, or neither "
                           "(--blocks fit)", path, lineno, r->idx[C_BR] >= 0 ? fld[r->idx[C_BR]] : "",
                r->idx[C_BC] >= 0 ? fld[r->idx[C_BC]] : "");
    static const int pair[2][2] = {{C_DR, C_DW}, {C_LR, C_LW}};
    for (int k = 0; k < 2; k++) /* fasim compares a read + write sum: one alone would be dropped */
        if (isnan(x[pair[k][0]]) != isnan(x[pair[k][1]])) {
            const int given = isnan(x[pair[k][0]]) ? pair[k][1] : pair[k][0];
            const int missing = pair[k][0] + pair[k][1] - given;
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' but %s is %s: fasim compares the sum of the two, give both or "
                               "neither", path, lineno, r->name[r->idx[given]], fld[r->idx[given]],
                    specs[missing].names[0], r->idx[missing] >= 0 ? "empty" : "not a column");
        }
    row->kernel = kname;
    row->guessed = guessed;
    row->shape = s;
    row->algo = a;
    row->profile = prof;
    row->pass = bwd ? FA_PASS_BWD : FA_PASS_FWD;
    row->prepass = pre;
    row->blocks.block_r = w[C_BR] > 0 ? w[C_BR] : 0;
    row->blocks.block_c = w[C_BC] > 0 ? w[C_BC] : 0;
    row->blocks_per_sm = w[C_OCC] > 0 ? (int)w[C_OCC] : 0;
    row->ms = x[C_MS];
    row->dram_read_bytes = x[C_DR];
    row->dram_write_bytes = x[C_DW];
    row->l2_read_bytes = x[C_LR];
    row->l2_write_bytes = x[C_LW];
    *got = 1;
    return FA_OK;
}

double fa_cmp_ratio(double pred, double meas)
{
    return isnan(pred) || isnan(meas) || !(meas > 0) ? NAN : pred / meas;
}

fa_status fa_cmp_predict(const fa_cmp_row *row, const fa_hw *hw, uint64_t M0, int use_l2, fa_cmp_pred *out)
{
    const char *path = row->file;
    const int lineno = row->line;
    const fa_shape *s = &row->shape;
    const fa_profile *prof = row->profile;
    const fa_pass pass = row->pass;
    const int bwd = pass == FA_PASS_BWD;
    const fa_algo a = row->algo;
    memset(out, 0, sizeof *out);
    fa_status st;
    fa_blocks bk;
    const int given = row->blocks.block_r > 0;
    /* a tensor-core kernel on an fp32 row: the file's columns are what to change (the time
     * model's own message suggests fasim io's --dtype and --profile, which compare does not take) */
    if (s->dtype == FA_DTYPE_FP32 && (prof->mma == FA_MMA_SYNC || prof->mma == FA_MMA_WGMMA || prof->mma == FA_MMA_TCGEN05))
        FA_FAIL(FA_EINVAL, "%s:%d: profile %s is a%s %s kernel (fp16/bf16%s inputs), not one for fp32: give the row a dtype "
                           "of fp16 or bf16, or a profile column (or kernel name) of an fp32 kernel, v1 or v2",
                path, lineno, prof->key, prof->mma == FA_MMA_SYNC ? "n" : "",
                prof->mma == FA_MMA_SYNC ? "mma.sync" : prof->mma == FA_MMA_WGMMA ? "wgmma" : "tcgen05",
                prof->mma != FA_MMA_SYNC ? ", fp8" : "");
    if (row->prepass) { /* the profile's V -> V^T pre-pass: its bytes and its time (fa_perf_result) */
        fa_perf_result *pr = &out->perf;
        fa_clear_error();
        if ((st = fa_perf_predict(prof, FA_PASS_FWD, s, hw, given ? &row->blocks : NULL, pr)))
            return at_line(st, path, lineno);
        out->blocks = pr->occ[0].blocks;
        out->blocks_from_table = !given;
        out->timed = pr->has_time;
        out->pred_l2_bytes = (double)(pr->prepass_read_bytes + pr->prepass_write_bytes);
        out->pred_dram_bytes = NAN; /* no L2 replay: it streams V once, every byte to and from DRAM */
        out->meas_l2_bytes = row->l2_read_bytes + row->l2_write_bytes;
        out->meas_dram_bytes = row->dram_read_bytes + row->dram_write_bytes;
        out->meas_ms = row->ms;
        out->pred_ms = 1e3 * pr->prepass_s;
        if (!out->timed) out->pred_ms = 1e3 * out->pred_l2_bytes / hw->hbm_bandwidth;
        out->bound = out->timed ? fa_pipe_name(FA_PIPE_DRAM) : "memory";
        out->busiest = out->timed ? fa_pipe_name(FA_PIPE_DRAM) : "-";
        return FA_OK;
    }
    fa_clear_error();
    if (given) {
        bk = row->blocks;
    } else if (prof->tiles) { /* the profile's tile table */
        const fa_tile_row *trow;
        if ((st = fa_profile_tiles(prof, pass, hw->arch, s, &bk, &trow))) return at_line(st, path, lineno);
        out->blocks_from_table = 1;
    } else if ((st = fa_blocks_fit(s, M0, &bk))) {
        return at_line(st, path, lineno);
    }
    const int from_table = out->blocks_from_table;
    if (given || from_table) {
        /* The tiles a kernel must stage in shared memory, Q_i, K_j and V_j in the dtype, must
         * fit M (fasim io refuses the same tiles).  fasim's fp32 buffers (S_ij, O_i, m_i, l_i)
         * may exceed it: a measured kernel keeps them in registers (M is raised below). */
        const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
        const uint64_t ops = ((uint64_t)bk.block_r * (uint64_t)s->d + (uint64_t)bk.block_c * (uint64_t)s->d +
                              (uint64_t)bk.block_c * (uint64_t)s->d_v) * e;
        if (ops > M0)
            FA_FAIL(FA_EINVAL, "%s:%d: tiles B_r x B_c = %" PRId64 " x %" PRId64 "%s%s%s do not fit SRAM: Q_i, "
                               "K_j, V_j (d = %" PRId64 ", d_v = %" PRId64 ", %s) need %" PRIu64 " B, M = %" PRIu64 " B",
                    path, lineno, bk.block_r, bk.block_c, from_table ? " (profile " : "", from_table ? prof->key : "",
                    from_table ? ")" : "", s->d, s->d_v, fa_dtype_name(s->dtype), ops, M0);
    }
    out->blocks = bk;
    int occ = row->blocks_per_sm; /* 0: estimated from the SRAM need */
    uint64_t M = M0;
    uint64_t need = fa_sram_need_pass(pass, a, s, bk);
    if (need > M) M = need; /* the kernel's own tiles: count them even if fasim's buffers are larger */
    out->sram = M;
    fa_io_result *r = &out->io;
    fa_clear_error();
    if ((st = fa_io_run(pass, a, s, bk, M, hw, NULL, r))) return at_line(st, path, lineno);
    fa_perf_result *pr = &out->perf;
    if (prof->mma != FA_MMA_NONE) {
        fa_hw h = *hw; /* the kernel's tiles: let fasim's larger buffers fit as above */
        if (h.sram_per_block < M) h.sram_per_block = M;
        if (h.sram_per_sm < M) h.sram_per_sm = M;
        fa_clear_error();
        if ((st = fa_perf_predict(prof, pass, s, &h, from_table ? NULL : &bk, pr))) return at_line(st, path, lineno);
        out->timed = pr->has_time;
        if (pr->splits > 1 && pass == FA_PASS_FWD) { /* the split-KV kernel's tiles and bytes, as fasim io counts them */
            bk = out->blocks = pr->occ[0].blocks;
            need = fa_sram_need_pass(pass, a, s, bk);
            if (need > M) out->sram = M = need;
            fa_clear_error();
            if ((st = fa_io_run_regs(pass, a, s, bk, pr->splits, M, hw, NULL, 0, NULL, r))) return at_line(st, path, lineno);
        }
    }
    /* the L2 replay is costly: run it only where the row has DRAM bytes to compare */
    if (use_l2 && !isnan(row->dram_read_bytes + row->dram_write_bytes)) {
        /* occupancy: the measured one, else the time model's, else estimated from the SRAM need */
        if (occ == 0 && out->timed && pr->occ[bwd].occupancy > 0 && pr->occ[bwd].occupancy <= 32)
            occ = pr->occ[bwd].occupancy;
        fa_clear_error();
        st = fa_io_l2(pass, a, s, bk, r->splits, M, hw, occ, r);
        if (st == FA_OK) out->l2 = 1;
        else if (st != FA_EINVAL) return at_line(st, path, lineno);
    }
    out->pred_l2_bytes = (double)fa_counts_hbm_bytes(&r->counts);
    if (out->timed && fa_profile_has_format(prof)) /* the kernel's own formats (bf16 O, scales): its count */
        out->pred_l2_bytes = (double)fa_counts_hbm_bytes(&pr->io.counts);
    out->pred_dram_bytes = out->l2 ? (double)(r->dram_read_bytes + r->dram_write_bytes) : NAN;
    out->meas_l2_bytes = row->l2_read_bytes + row->l2_write_bytes; /* NAN unless both are given */
    out->meas_dram_bytes = row->dram_read_bytes + row->dram_write_bytes;
    out->meas_ms = row->ms;
    /* predicted time: the time model of the kernel's profile (docs/time-model.md); without
     * the pipe rates, the roofline with the DRAM bytes of the L2 model when there is one */
    double tmem = (out->l2 ? out->pred_dram_bytes : out->pred_l2_bytes) / hw->hbm_bandwidth;
    out->pred_ms = out->timed ? 1e3 * pr->time_s : 1e3 * (r->time_compute_s > tmem ? r->time_compute_s : tmem);
    /* the bound: what sets the time, as fasim io prints it (fa_report_bound); busiest: the busiest pipe */
    if (out->timed)
        out->bound = pr->latency == 1 ? "launch" : pr->latency ? "grid" : pr->sets ? pr->sets : fa_pipe_name(pr->bound);
    else
        out->bound = r->time_compute_s > tmem ? "compute" : "memory";
    out->busiest = out->timed ? fa_pipe_name(pr->bound) : "-";
    out->tail = out->timed && pr->tail && !pr->latency;
    out->blocks_per_sm = out->l2 ? r->l2_slots / hw->sms : 0;
    out->model_blocks_per_sm = out->timed ? pr->occ[bwd].occupancy : 0;
    return FA_OK;
}

const double fa_cmp_limit[FA_CMP_NQTY] = {[FA_CMP_TIME] = 0.15, [FA_CMP_L2] = 0.10, [FA_CMP_DRAM] = 0.20};

void fa_cmp_summary_add(fa_cmp_summary *m, const fa_cmp_pred *p)
{
    double q[FA_CMP_NQTY][2] = {[FA_CMP_TIME] = {p->pred_ms, p->meas_ms},
                                [FA_CMP_L2] = {p->pred_l2_bytes, p->meas_l2_bytes},
                                [FA_CMP_DRAM] = {p->pred_dram_bytes, p->meas_dram_bytes}};
    for (int k = 0; k < FA_CMP_NQTY; k++) {
        double r = fa_cmp_ratio(q[k][0], q[k][1]);
        if (!isnan(r) && m->n[k] < FA_CMP_SUMMARY_MAX) m->err[k][m->n[k]++] = fabs(r - 1);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

fa_cmp_stat fa_cmp_summary_stat(fa_cmp_summary *m, fa_cmp_qty q)
{
    fa_cmp_stat t = {0};
    if (q < 0 || q >= FA_CMP_NQTY) return t;
    const int n = m->n[q];
    double *e = m->err[q];
    t.rows = n;
    t.full = n == FA_CMP_SUMMARY_MAX;
    t.limit = fa_cmp_limit[q];
    if (n == 0) return t;
    qsort(e, (size_t)n, sizeof(double), cmp_double);
    for (int i = 0; i < n; i++) t.within += e[i] <= t.limit;
    t.median = n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
    t.largest = e[n - 1];
    return t;
}
