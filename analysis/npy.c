/* npy.c -- a strict reader and a small writer of NumPy .npy files (fa_npy.h). */
#include "fa_npy.h"
#include "fa_file.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BAD(...) FA_FAIL(FA_EINVAL, __VA_ARGS__)

/* ---- the header: a Python dict literal, parsed by a tiny recursive-descent scanner ---- */

typedef struct {
    const char *p, *end;
} scan;

static void skip_ws(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int eat(scan *s, char c)
{
    skip_ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return 1;
    }
    return 0;
}

/* a quoted string ('...' or "...") of at most cap - 1 printable characters, no escapes (the
 * messages quote it) */
static int str(scan *s, char *out, size_t cap)
{
    skip_ws(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"')) return 0;
    char q = *s->p++;
    size_t k = 0;
    while (s->p < s->end && *s->p != q) {
        if (k + 1 >= cap || *s->p == '\\' || !isprint((unsigned char)*s->p)) return 0;
        out[k++] = *s->p++;
    }
    if (s->p >= s->end) return 0;
    s->p++;
    out[k] = '\0';
    return 1;
}

static int word(scan *s, const char *w)
{
    skip_ws(s);
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) >= n && memcmp(s->p, w, n) == 0) {
        s->p += n;
        return 1;
    }
    return 0;
}

static fa_status parse_shape(scan *s, const char *name, fa_npy *a)
{
    if (!eat(s, '(')) BAD("%s: header 'shape' is not a tuple", name);
    a->ndim = 0;
    for (;;) {
        if (eat(s, ')')) break;
        skip_ws(s);
        if (s->p >= s->end || !isdigit((unsigned char)*s->p))
            BAD("%s: header 'shape' holds something other than non-negative integers", name);
        int64_t v = 0;
        while (s->p < s->end && isdigit((unsigned char)*s->p)) {
            if (v > (INT64_MAX - 9) / 10) BAD("%s: a dimension of 'shape' overflows 64 bits", name);
            v = v * 10 + (*s->p++ - '0');
        }
        if (s->p < s->end && *s->p == 'L') s->p++; /* Python 2 long */
        if (a->ndim >= FA_NPY_MAXDIM) BAD("%s: 'shape' has more than %d dimensions", name, FA_NPY_MAXDIM);
        a->shape[a->ndim++] = v;
        if (eat(s, ',')) continue;
        if (eat(s, ')')) break;
        BAD("%s: header 'shape' is not a well-formed tuple", name);
    }
    return FA_OK;
}

/* elem: bytes per element; swap: big-endian data */
static fa_status parse_header(const char *h, size_t len, const char *name, int u16_is_bf16,
                              fa_npy *a, int *elem, int *swap)
{
    scan s = {h, h + len};
    int have_descr = 0, have_fo = 0, have_shape = 0;
    char key[32], descr[16];
    if (!eat(&s, '{')) BAD("%s: header is not a Python dict literal (no '{')", name);
    for (;;) {
        if (eat(&s, '}')) break;
        if (!str(&s, key, sizeof key)) BAD("%s: header dict has a malformed key", name);
        if (!eat(&s, ':')) BAD("%s: header dict: no ':' after '%s'", name, key);
        if (!strcmp(key, "descr")) {
            if (!str(&s, descr, sizeof descr)) BAD("%s: header 'descr' is not a type string", name);
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (word(&s, "True")) BAD("%s: Fortran order is not supported; save a C-ordered array "
                                      "(np.save(f, np.ascontiguousarray(x)))", name);
            if (!word(&s, "False")) BAD("%s: header 'fortran_order' is neither True nor False", name);
            have_fo = 1;
        } else if (!strcmp(key, "shape")) {
            FA_TRY(parse_shape(&s, name, a));
            have_shape = 1;
        } else {
            BAD("%s: header has an unknown key '%s'", name, key);
        }
        if (eat(&s, ',')) continue;
        if (eat(&s, '}')) break;
        BAD("%s: header dict is not well formed after '%s'", name, key);
    }
    skip_ws(&s);
    if (s.p != s.end) BAD("%s: header has text after the dict", name);
    if (!have_descr || !have_fo || !have_shape)
        BAD("%s: header lacks '%s'", name, !have_descr ? "descr" : !have_fo ? "fortran_order" : "shape");
    /* the type: byte order, kind, size */
    char bo = descr[0], kind = descr[1];
    const char *sz = descr + 2;
    if (!(bo == '<' || bo == '>' || bo == '|' || bo == '=') || !kind || !*sz)
        BAD("%s: unsupported dtype '%s'", name, descr);
    *swap = bo == '>';
    if (kind == 'f' && !strcmp(sz, "8")) a->format = FA_FMT_FP64, *elem = 8;
    else if (kind == 'f' && !strcmp(sz, "4")) a->format = FA_FMT_FP32, *elem = 4;
    else if (kind == 'f' && !strcmp(sz, "2")) a->format = FA_FMT_FP16, *elem = 2;
    else if ((kind == 'u' || kind == 'i' || kind == 'V') && !strcmp(sz, "2")) {
        if (!u16_is_bf16)
            BAD("%s: dtype '%s' is 16-bit integer data; if it holds bfloat16 bits, pass --bf16", name, descr);
        a->format = FA_FMT_BF16, *elem = 2;
    } else {
        BAD("%s: unsupported dtype '%s' (supported: <f8, <f4, <f2, and <u2 holding bfloat16 with --bf16)",
            name, descr);
    }
    if (*elem > 1 && bo == '|' && kind != 'V') BAD("%s: dtype '%s' has no byte order", name, descr);
    return FA_OK;
}

/* The fixed part: magic, version, header length.  Sets *off (where the header starts) and *hlen.
 * `have` is how many bytes buf holds; `total` the file's size (the header must fit in it). */
#define NPY_MAX_HEADER ((size_t)1 << 20) /* numpy writes headers of a few hundred bytes */
static fa_status preamble(const unsigned char *buf, size_t have, size_t total, const char *name,
                          size_t *off, size_t *hlen)
{
    if (have < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) BAD("%s: not a .npy file (bad magic)", name);
    int major = buf[6];
    if (major == 1) {
        *hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        *off = 10;
    } else if (major == 2 || major == 3) {
        if (have < 12) BAD("%s: truncated header", name);
        *hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        *off = 12;
    } else {
        BAD("%s: unsupported .npy version %d.%d (1.0, 2.0 and 3.0 are read)", name, major, buf[7]);
    }
    if (*hlen > total - *off) BAD("%s: truncated header (%zu bytes announced, %zu present)", name, *hlen, total - *off);
    if (*hlen > NPY_MAX_HEADER) BAD("%s: a header of %zu bytes (at most %zu are read)", name, *hlen, NPY_MAX_HEADER);
    return FA_OK;
}

/* The header at h (hlen bytes) against `have` bytes of data after it: fills a's shape, n and
 * format (no data), *elem and *swap.  On error *a is zeroed. */
static fa_status layout(const char *h, size_t hlen, size_t have, const char *name, int u16_is_bf16,
                        fa_npy *a, int *elem, int *swap)
{
    fa_status st = parse_header(h, hlen, name, u16_is_bf16, a, elem, swap);
    if (st) {
        memset(a, 0, sizeof *a);
        return st;
    }
    int64_t n = 1;
    for (int k = 0; k < a->ndim; k++)
        if (a->shape[k] != 0 && n > FA_NPY_MAX_ELEMS / a->shape[k]) {
            memset(a, 0, sizeof *a);
            BAD("%s: shape has more than %" PRId64 " elements", name, FA_NPY_MAX_ELEMS);
        } else {
            n *= a->shape[k];
        }
    a->n = n;
    size_t need = (size_t)n * (size_t)*elem;
    if (have != need) {
        memset(a, 0, sizeof *a);
        if (have < need) BAD("%s: truncated data: the shape needs %zu bytes, the file has %zu", name, need, have);
        BAD("%s: %zu bytes of data beyond the %zu the shape needs", name, have - need, need);
    }
    return FA_OK;
}

/* a->n elements of `elem` bytes at d, byte-swapped when `swap`, into a->data (allocated here). */
static fa_status convert(const unsigned char *d, int elem, int swap, const char *name, fa_npy *a)
{
    const int64_t n = a->n;
    a->data = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!a->data) {
        memset(a, 0, sizeof *a);
        FA_FAIL(FA_ENOMEM, "%s: out of host memory for %" PRId64 " elements", name, n);
    }
    for (int64_t i = 0; i < n; i++) {
        unsigned char b[8];
        for (int k = 0; k < elem; k++) b[k] = d[i * elem + (swap ? elem - 1 - k : k)];
        uint64_t u = 0;
        for (int k = elem - 1; k >= 0; k--) u = u << 8 | b[k];
        double v;
        if (elem == 8) memcpy(&v, &u, 8);
        else if (elem == 4) {
            float f;
            uint32_t u32 = (uint32_t)u;
            memcpy(&f, &u32, 4);
            v = f;
        } else {
            v = fa_format_decode((uint32_t)u, a->format);
        }
        a->data[i] = v;
    }
    return FA_OK;
}

fa_status fa_npy_parse(const unsigned char *buf, size_t len, const char *name, int u16_is_bf16,
                       fa_npy *a)
{
    memset(a, 0, sizeof *a);
    size_t off, hlen;
    FA_TRY(preamble(buf, len, len, name, &off, &hlen));
    int elem = 0, swap = 0;
    FA_TRY(layout((const char *)buf + off, hlen, len - off - hlen, name, u16_is_bf16, a, &elem, &swap));
    return convert(buf + off + hlen, elem, swap, name, a);
}

/* Reads exactly n bytes at the file's current position into buf. */
static fa_status read_all(FILE *f, unsigned char *buf, size_t n, const char *path)
{
    if (fread(buf, 1, n, f) == n) return FA_OK;
    if (ferror(f)) FA_FAIL(FA_EIO, "%s: read error: %s", path, strerror(errno));
    FA_FAIL(FA_EIO, "%s: the file became shorter while it was read", path);
}

fa_status fa_npy_read(const char *path, int u16_is_bf16, fa_npy *a)
{
    memset(a, 0, sizeof *a);
    struct stat sb; /* fopen opens a directory; its read fails with EISDIR */
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) FA_FAIL(FA_EIO, "%s is a directory (give a .npy file)", path);
    FA_TRY(fa_check_regular(path, ".npy file"));
    FILE *f = fopen(path, "rb");
    if (!f) FA_FAIL(FA_EIO, "%s: cannot open: %s", path, strerror(errno));
    /* The size comes from the open file: the header is checked against it before any data is
     * allocated or read, so a header that promises 16 G elements costs nothing. */
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        FA_FAIL(FA_EIO, "%s: not a regular file once opened", path);
    }
    const size_t total = (size_t)sb.st_size;
    unsigned char pre[12];
    size_t have = total < sizeof pre ? total : sizeof pre, off, hlen;
    unsigned char *buf = NULL;
    int elem = 0, swap = 0;
    fa_status st = read_all(f, pre, have, path);
    if (!st) st = preamble(pre, have, total, path, &off, &hlen);
    if (!st && !(buf = malloc(hlen > 0 ? hlen : 1))) st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "%s: out of host memory", path);
    if (!st && fseek(f, (long)off, SEEK_SET) != 0) st = fa_error(FA_EIO, __FILE__, __LINE__, "%s: cannot seek", path);
    if (!st) st = read_all(f, buf, hlen, path);
    if (!st) st = layout((const char *)buf, hlen, total - off - hlen, path, u16_is_bf16, a, &elem, &swap);
    free(buf);
    buf = NULL;
    size_t need = (size_t)a->n * (size_t)elem;
    if (!st && !(buf = malloc(need > 0 ? need : 1)))
        st = fa_error(FA_ENOMEM, __FILE__, __LINE__, "%s: out of host memory for %" PRId64 " elements", path, a->n);
    if (!st) st = read_all(f, buf, need, path);
    if (!st) st = convert(buf, elem, swap, path, a);
    free(buf);
    fclose(f);
    if (st) fa_npy_free(a);
    return st;
}

void fa_npy_free(fa_npy *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

fa_status fa_npy_write(const char *path, fa_format f, int ndim, const int64_t *shape,
                       const double *data)
{
    return fa_npy_write_as(path, path, f, ndim, shape, data);
}

fa_status fa_npy_write_as(const char *path, const char *name, fa_format f, int ndim, const int64_t *shape,
                          const double *data)
{
    const char *descr = f == FA_FMT_FP64 ? "<f8" : f == FA_FMT_FP32 ? "<f4" : f == FA_FMT_FP16 ? "<f2"
                        : f == FA_FMT_BF16 ? "<u2" : NULL;
    if (!descr) FA_FAIL(FA_EINVAL, "%s: .npy cannot store %s", name, fa_format_name(f));
    if (ndim < 0 || ndim > FA_NPY_MAXDIM) FA_FAIL(FA_EINVAL, "%s: %d dimensions", name, ndim);
    char hdr[256], sh[160] = "";
    int64_t n = 1;
    for (int k = 0; k < ndim; k++) {
        size_t u = strlen(sh);
        snprintf(sh + u, sizeof sh - u, "%" PRId64 "%s", shape[k], ndim == 1 || k + 1 < ndim ? ", " : "");
        n *= shape[k];
    }
    if (ndim == 1) sh[strlen(sh) - 1] = '\0'; /* "(5,)" */
    int h = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh);
    int total = 10 + h + 1, pad = (64 - total % 64) % 64; /* header padded to a multiple of 64 */
    FILE *fp = fopen(path, "wb");
    if (!fp) FA_FAIL(FA_EIO, "cannot create %s: %s", name, strerror(errno));
    unsigned hl = (unsigned)(h + pad + 1);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xff), (unsigned char)(hl >> 8)};
    fwrite(pre, 1, 10, fp);
    fwrite(hdr, 1, (size_t)h, fp);
    for (int k = 0; k < pad; k++) fputc(' ', fp);
    fputc('\n', fp);
    int e = fa_format_bytes(f);
    for (int64_t i = 0; i < n; i++) {
        unsigned char b[8];
        uint64_t u = 0;
        if (f == FA_FMT_FP64) memcpy(&u, &data[i], 8);
        else if (f == FA_FMT_FP32) {
            float x = (float)data[i];
            uint32_t u32;
            memcpy(&u32, &x, 4);
            u = u32;
        } else {
            u = fa_format_encode(data[i], f);
        }
        for (int k = 0; k < e; k++) b[k] = (unsigned char)(u >> (8 * k));
        fwrite(b, 1, (size_t)e, fp);
    }
    int bad = ferror(fp), err = bad ? errno : 0;
    if (fclose(fp) != 0 && !err) err = errno ? errno : EIO;
    if (bad || err) FA_FAIL(FA_EIO, "cannot write %s: %s", name, strerror(err ? err : EIO));
    return FA_OK;
}
