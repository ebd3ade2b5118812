/* masks.c -- reading masks from files for the command line: block-sparse masks, FlashMask
 * column ranges (also built from document lengths), and dense boolean masks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fa_analysis.h"
#include "fa_file.h"

void fa_mask_store_free(fa_mask_store *m)
{
    free(m->bits);
    free(m->cols);
    free(m->dense);
    memset(m, 0, sizeof *m);
}

/* Reads the whole file (text). */
static fa_status slurp(const char *path, char **out)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) FA_FAIL(FA_EINVAL, "mask file %s is a directory", path);
    FA_TRY(fa_check_regular(path, "mask file"));
    FILE *f = fopen(path, "r");
    if (!f) FA_FAIL(FA_EIO, "cannot open mask file %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        FA_FAIL(FA_ENOMEM, "out of host memory reading %s", path);
    }
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) {
            char *nb = cap > ((size_t)1 << 31) ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                FA_FAIL(FA_EINVAL, "mask file %s is larger than 2 GiB", path);
            }
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        FA_FAIL(FA_EIO, "cannot read mask file %s", path);
    }
    buf[n] = '\0';
    const char *nul = memchr(buf, '\0', n);
    if (nul) { /* the lines are C strings: a NUL byte would end the text there, silently */
        int line = 1;
        const char *bol = buf;
        for (const char *q = buf; q < nul; q++)
            if (*q == '\n') line++, bol = q + 1;
        fa_status st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                                "%s:%d:%d: a NUL byte ('\\x00'): a mask file is text, not binary",
                                path, line, (int)(nul - bol) + 1);
        free(buf);
        return st;
    }
    *out = buf;
    return FA_OK;
}

/* Next line that is not empty or a comment, without its leading blanks; NULL at the end.  *p
 * advances; *start (when not NULL) gets the line's first character, for column numbers. */
static char *next_line(char **p, int *lineno, const char **start)
{
    while (**p) {
        char *line = *p;
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
            *p = nl + 1;
        } else {
            *p = line + strlen(line);
        }
        (*lineno)++;
        char *q = line;
        while (*q == ' ' || *q == '\t' || *q == '\r') q++;
        if (*q && *q != '#') {
            if (start) *start = line;
            return q;
        }
    }
    return NULL;
}

/* Reads a row of 0/1 characters (spaces ignored) of exactly n entries into out; start is the
 * line's first character (for the column of a bad one). */
static fa_status bits_row(const char *path, int lineno, const char *start, const char *line, int64_t n,
                          uint8_t *out)
{
    int64_t k = 0;
    for (const char *c = line; *c && *c != '#'; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\r' || *c == ',') continue;
        if (*c != '0' && *c != '1') { /* quoted escaped: the file may be binary */
            char ex[FA_EXCERPT_SIZE];
            FA_FAIL(FA_EINVAL, "%s:%d:%d: '%s' is not 0 or 1", path, lineno, (int)(c - start) + 1,
                    fa_excerpt(c, 1, ex));
        }
        if (k >= n) FA_FAIL(FA_EINVAL, "%s:%d: more than %" PRId64 " entries", path, lineno, n);
        out[k++] = (uint8_t)(*c == '1');
    }
    if (k != n) FA_FAIL(FA_EINVAL, "%s:%d: %" PRId64 " entries, expected %" PRId64, path, lineno, k, n);
    return FA_OK;
}

fa_status fa_block_mask_load(const char *path, int64_t Nq, int64_t Nk, fa_mask_store *m)
{
    char *text, *p;
    FA_TRY(slurp(path, &text));
    p = text;
    int lineno = 0;
    fa_status st = FA_OK;
    char *line = next_line(&p, &lineno, NULL);
    long long br = 0, bc = 0;
    char extra;
    if (!line || sscanf(line, "%lld %lld %c", &br, &bc, &extra) != 2 || br < 1 || bc < 1 || br > INT32_MAX || bc > INT32_MAX) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                      "%s: the first line must give the mask's block size 'block_r block_c' (positive integers)", path);
        goto out;
    }
    int64_t nr = fa_cdiv(Nq, br), nc = fa_cdiv(Nk, bc);
    if ((double)nr * (double)nc > 1e8) {
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: %" PRId64 " x %" PRId64 " blocks exceed the limit of 1e8", path, nr, nc);
        goto out;
    }
    free(m->bits);
    m->bits = malloc((size_t)(nr * nc));
    if (!m->bits) {
        st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the block mask");
        goto out;
    }
    for (int64_t i = 0; i < nr && !st; i++) {
        const char *start;
        line = next_line(&p, &lineno, &start);
        if (!line) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "%s: %" PRId64 " rows of blocks, expected ceil(N_q / %lld) = %" PRId64 " for N_q = %" PRId64,
                          path, i, br, nr, Nq);
            break;
        }
        st = bits_row(path, lineno, start, line, nc, m->bits + i * nc);
    }
    if (!st && next_line(&p, &lineno, NULL))
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:%d: more than ceil(N_q / %lld) = %" PRId64 " rows of blocks", path, lineno, br, nr);
    if (!st) {
        m->block = (fa_block_mask){.block_r = br, .block_c = bc, .n_r = nr, .n_c = nc, .bits = m->bits};
    }
out:
    free(text);
    return st;
}

static fa_status alloc_cols(fa_mask_store *m, int64_t Nk)
{
    free(m->cols);
    m->cols = malloc((size_t)(4 * Nk) * sizeof *m->cols);
    if (!m->cols) FA_FAIL(FA_ENOMEM, "out of host memory for the column mask");
    m->col = (fa_col_mask){.lo1 = m->cols, .hi1 = m->cols + Nk, .lo2 = m->cols + 2 * Nk, .hi2 = m->cols + 3 * Nk};
    return FA_OK;
}

fa_status fa_col_mask_load(const char *path, int64_t Nq, int64_t Nk, fa_mask_store *m)
{
    char *text, *p;
    FA_TRY(slurp(path, &text));
    p = text;
    int lineno = 0;
    fa_status st = alloc_cols(m, Nk);
    int32_t *lo1 = m->cols, *hi1 = m->cols + Nk, *lo2 = m->cols + 2 * Nk, *hi2 = m->cols + 3 * Nk;
    for (int64_t j = 0; j < Nk && !st; j++) {
        char *line = next_line(&p, &lineno, NULL);
        long long a, b, c = 0, d = 0;
        char extra;
        int n = line ? sscanf(line, "%lld %lld %lld %lld %c", &a, &b, &c, &d, &extra) : 0;
        if (!line) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: %" PRId64 " columns, expected N_k = %" PRId64, path, j, Nk);
        } else if ((n != 2 && n != 4) || a < 0 || b < 0 || c < 0 || d < 0 || a > Nq || b > Nq || c > Nq || d > Nq) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "%s:%d: expected 'lo1 hi1 [lo2 hi2]', masked query rows of key %" PRId64 ", each in [0, N_q = %" PRId64 "]",
                          path, lineno, j, Nq);
        } else if (a > b || (n == 4 && c > d)) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                          "%s:%d: key %" PRId64 ": the range [%lld, %lld) ends before it starts: lo <= hi (lo = hi masks nothing)",
                          path, lineno, j, a > b ? a : c, a > b ? b : d);
        } else {
            lo1[j] = (int32_t)a;
            hi1[j] = (int32_t)b;
            lo2[j] = (int32_t)c;
            hi2[j] = (int32_t)d;
        }
    }
    if (!st && next_line(&p, &lineno, NULL))
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:%d: more than N_k = %" PRId64 " columns", path, lineno, Nk);
    free(text);
    return st;
}

fa_status fa_col_mask_documents(const int64_t *len, int n_docs, int64_t N, fa_mask_store *m)
{
    int64_t total = 0;
    for (int k = 0; k < n_docs; k++) {
        if (len[k] < 1) FA_FAIL(FA_EINVAL, "--doc-mask: document %d has length %" PRId64 " (must be >= 1)", k, len[k]);
        total += len[k];
    }
    if (total != N)
        FA_FAIL(FA_EINVAL, "--doc-mask: the document lengths sum to %" PRId64 ", but N_q = N_k = %" PRId64, total, N);
    FA_TRY(alloc_cols(m, N));
    int32_t *lo1 = m->cols, *hi1 = m->cols + N, *lo2 = m->cols + 2 * N, *hi2 = m->cols + 3 * N;
    int64_t start = 0;
    for (int k = 0; k < n_docs; k++) {
        int64_t end = start + len[k];
        for (int64_t j = start; j < end; j++) {
            lo1[j] = 0; /* rows above the diagonal (causal; includes earlier documents) */
            hi1[j] = (int32_t)j;
            lo2[j] = (int32_t)end; /* rows of later documents */
            hi2[j] = (int32_t)N;
        }
        start = end;
    }
    return FA_OK;
}

fa_status fa_dense_mask_load(const char *path, int64_t Nq, int64_t Nk, fa_mask_store *m)
{
    if ((double)Nq * (double)Nk > 1e8)
        FA_FAIL(FA_EINVAL, "a dense mask of N_q x N_k = %.3g entries exceeds the limit of 1e8 (use a block or column mask)",
                (double)Nq * (double)Nk);
    char *text, *p;
    FA_TRY(slurp(path, &text));
    p = text;
    int lineno = 0;
    fa_status st = FA_OK;
    free(m->dense);
    m->dense = malloc((size_t)(Nq * Nk));
    if (!m->dense) st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the dense mask");
    for (int64_t i = 0; i < Nq && !st; i++) {
        const char *start;
        char *line = next_line(&p, &lineno, &start);
        if (!line) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s: %" PRId64 " rows, expected N_q = %" PRId64, path, i, Nq);
            break;
        }
        st = bits_row(path, lineno, start, line, Nk, m->dense + i * Nk);
    }
    if (!st && next_line(&p, &lineno, NULL))
        st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:%d: more than N_q = %" PRId64 " rows", path, lineno, Nq);
    free(text);
    return st;
}

fa_status fa_masks_load(fa_shape *s, const char *block_path, const char *col_path, const int64_t *doc_len, int n_docs,
                        const char *dense_path, fa_mask_store *m)
{
    if (n_docs > 0 && col_path) FA_FAIL(FA_EINVAL, "--doc-mask and --col-mask exclude each other");
    if (block_path) {
        FA_TRY(fa_block_mask_load(block_path, s->seqlen_q, s->seqlen_k, m));
        s->block_mask = &m->block;
    }
    if (col_path) {
        FA_TRY(fa_col_mask_load(col_path, s->seqlen_q, s->seqlen_k, m));
        s->col_mask = &m->col;
    }
    if (n_docs > 0) {
        if (s->seqlen_q != s->seqlen_k) FA_FAIL(FA_EINVAL, "--doc-mask needs N_q = N_k (one packed sequence)");
        FA_TRY(fa_col_mask_documents(doc_len, n_docs, s->seqlen_q, m));
        s->col_mask = &m->col;
    }
    if (dense_path) {
        FA_TRY(fa_dense_mask_load(dense_path, s->seqlen_q, s->seqlen_k, m));
        s->dense_mask = m->dense;
    }
    return FA_OK;
}
