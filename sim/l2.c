/* l2.c -- the L2 cache model: wave-scheduled replay of tile transfers through a
 * set-associative write-back LRU cache (see fa_l2.h). */
#include "fa_l2.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define L2_MAX_TENSORS 32

typedef struct {
    uint64_t addr;      /* byte address of the first row segment */
    uint64_t stride;    /* bytes between row segments */
    uint32_t seg_bytes; /* bytes per row segment */
    uint32_t rows;
    int64_t program;
    int32_t kernel;
    uint8_t write;
} rec;

struct fa_l2 {
    uint64_t capacity;
    int line, ways, slots;
    uint64_t sets;
    uint64_t *tag;  /* sets * ways; UINT64_MAX = empty */
    uint64_t *used; /* LRU stamps */
    uint8_t *dirty; /* per way: mask of dirty sectors */
    uint8_t *valid; /* per way: mask of sectors present */
    int sector;     /* bytes per sector (32, or the line when smaller) */
    uint64_t clock;
    rec *recs;
    uint64_t n, cap, max;
    uint64_t dropped;
    /* tensor base addresses, assigned on first sight */
    char names[L2_MAX_TENSORS][FA_NAME_LEN];
    uint64_t base[L2_MAX_TENSORS];
    int n_tensors;
    uint64_t next_base;
    fa_l2_result res;
};

fa_l2 *fa_l2_alloc(uint64_t capacity_bytes, int line_bytes, int ways, int slots,
                   uint64_t max_transfers)
{
    if (line_bytes <= 0 || line_bytes > 256 || ways <= 0 || slots <= 0 ||
        capacity_bytes < (uint64_t)line_bytes * (uint64_t)ways) {
        fa_error(FA_EINVAL, __FILE__, __LINE__,
                 "L2: capacity %" PRIu64 " B, line %d B, %d ways, %d slots do not make a cache",
                 capacity_bytes, line_bytes, ways, slots);
        return NULL;
    }
    fa_l2 *l = calloc(1, sizeof *l);
    if (!l) goto nomem;
    l->capacity = capacity_bytes;
    l->line = line_bytes;
    l->ways = ways;
    l->slots = slots;
    l->sets = capacity_bytes / ((uint64_t)line_bytes * (uint64_t)ways);
    l->max = max_transfers;
    size_t nl = (size_t)(l->sets * (uint64_t)ways);
    l->tag = malloc(nl * sizeof *l->tag);
    l->used = calloc(nl, sizeof *l->used);
    l->dirty = calloc(nl, 1);
    l->valid = calloc(nl, 1);
    l->sector = line_bytes < 32 ? line_bytes : 32;
    if (!l->tag || !l->used || !l->dirty || !l->valid) goto nomem;
    memset(l->tag, 0xff, nl * sizeof *l->tag);
    return l;
nomem:
    fa_l2_free(l);
    fa_error(FA_ENOMEM, __FILE__, __LINE__, "L2: out of host memory");
    return NULL;
}

void fa_l2_free(fa_l2 *l)
{
    if (!l) return;
    free(l->tag);
    free(l->used);
    free(l->dirty);
    free(l->valid);
    free(l->recs);
    free(l);
}

static uint64_t tensor_base(fa_l2 *l, const fa_tensor *t)
{
    for (int i = 0; i < l->n_tensors; i++)
        if (strncmp(l->names[i], t->name, FA_NAME_LEN) == 0) return l->base[i];
    uint64_t size = (uint64_t)t->shape[0] * (uint64_t)t->stride[0] * (uint64_t)t->elem_bytes;
    uint64_t b = l->next_base;
    l->next_base += (size + 4095) / 4096 * 4096 + 4096; /* page-aligned, a gap between tensors */
    if (l->n_tensors < L2_MAX_TENSORS) {
        snprintf(l->names[l->n_tensors], FA_NAME_LEN, "%s", t->name);
        l->base[l->n_tensors++] = b;
    }
    return b;
}

void fa_l2_sink(void *ctx, const fa_transfer *t)
{
    fa_l2 *l = ctx;
    const fa_tensor *x = t->tensor;
    uint64_t e = (uint64_t)x->elem_bytes;
    if (t->write) l->res.l2_write_bytes += t->bytes;
    else l->res.l2_read_bytes += t->bytes;
    if (l->n >= l->max) {
        l->dropped++;
        return;
    }
    if (l->n == l->cap) {
        uint64_t nc = l->cap ? 2 * l->cap : 4096;
        if (nc > l->max) nc = l->max;
        rec *r = realloc(l->recs, (size_t)nc * sizeof *r);
        if (!r) {
            l->dropped++;
            return;
        }
        l->recs = r;
        l->cap = nc;
    }
    rec *r = &l->recs[l->n++];
    uint64_t base = tensor_base(l, x);
    uint64_t row_stride = (uint64_t)x->stride[2] * e;
    r->addr = base + ((uint64_t)t->b * (uint64_t)x->stride[0] + (uint64_t)t->h * (uint64_t)x->stride[1]) * e +
              (uint64_t)t->row0 * row_stride + (uint64_t)t->col0 * e;
    r->seg_bytes = (uint32_t)((uint64_t)t->cols * e);
    r->rows = (uint32_t)t->rows;
    r->stride = row_stride;
    if (r->seg_bytes == row_stride) { /* full-width tile: one contiguous segment */
        r->seg_bytes = (uint32_t)(row_stride * (uint64_t)t->rows);
        r->rows = 1;
    }
    r->program = t->program;
    r->kernel = t->kernel;
    r->write = (uint8_t)t->write;
}

/* One access to `line` touching the sectors in `mask`.  Sectored like Hopper's L2: a line is
 * allocated whole, but only the sectors touched are fetched (reads) or marked dirty (writes),
 * and only dirty sectors are written back. */
static void access_line(fa_l2 *l, uint64_t line, unsigned mask, int write)
{
    uint64_t set = line % l->sets;
    uint64_t *tg = l->tag + set * (uint64_t)l->ways;
    uint64_t *us = l->used + set * (uint64_t)l->ways;
    uint8_t *dt = l->dirty + set * (uint64_t)l->ways, *vl = l->valid + set * (uint64_t)l->ways;
    const uint64_t S = (uint64_t)l->sector;
    l->clock++;
    l->res.accesses++;
    int victim = 0;
    for (int w = 0; w < l->ways; w++) {
        if (tg[w] == line) {
            us[w] = l->clock;
            if (write) dt[w] |= (uint8_t)mask;
            else l->res.dram_read_bytes += S * (uint64_t)__builtin_popcount(mask & ~vl[w] & 0xffu);
            vl[w] |= (uint8_t)mask;
            return;
        }
        if (us[w] < us[victim]) victim = w;
    }
    l->res.misses++;
    if (tg[victim] != UINT64_MAX) l->res.dram_write_bytes += S * (uint64_t)__builtin_popcount(dt[victim]);
    if (!write) l->res.dram_read_bytes += S * (uint64_t)__builtin_popcount(mask); /* write-allocate, no fill */
    tg[victim] = line;
    us[victim] = l->clock;
    vl[victim] = (uint8_t)mask;
    dt[victim] = write ? (uint8_t)mask : 0;
}

/* Set sampling: only lines whose set index is a multiple of f are simulated (f divides the
 * number of sets, so that is every f-th line); the DRAM counts are scaled by f.  f = 1 (exact)
 * unless the replay would touch more than L2_EXACT_LINES lines. */
#define L2_EXACT_LINES 30000000ull

static void replay(fa_l2 *l, const rec *r, uint64_t f)
{
    const uint64_t L = (uint64_t)l->line, S = (uint64_t)l->sector;
    for (uint32_t i = 0; i < r->rows; i++) {
        uint64_t a = r->addr + (uint64_t)i * r->stride, e = a + r->seg_bytes; /* [a, e) */
        uint64_t first = a / L, last = (e - 1) / L;
        for (uint64_t line = (first + f - 1) / f * f; line <= last; line += f) {
            uint64_t lo = a > line * L ? a - line * L : 0;
            uint64_t hi = e < (line + 1) * L ? e - line * L : L;
            unsigned mask = 0;
            for (uint64_t sct = lo / S; sct <= (hi - 1) / S; sct++) mask |= 1u << sct;
            access_line(l, line, mask, r->write);
        }
    }
}

fa_status fa_l2_run(fa_l2 *l, fa_l2_result *out)
{
    if (l->dropped)
        FA_FAIL(FA_EINVAL, "L2 model: %" PRIu64 " transfers exceed its limit of %" PRIu64
                " recorded transfers; use a smaller shape", l->n + l->dropped, l->max);
    /* programs in launch order: records are contiguous per program (the CPU runs one program
     * after another); a new program starts where the program or kernel id changes */
    uint64_t np = 0;
    for (uint64_t i = 0; i < l->n; i++)
        if (i == 0 || l->recs[i].program != l->recs[i - 1].program || l->recs[i].kernel != l->recs[i - 1].kernel) np++;
    uint64_t *start = malloc((size_t)(np + 1) * sizeof *start);
    int32_t *kern = malloc((size_t)(np + 1) * sizeof *kern);
    uint64_t *pos = malloc((size_t)l->slots * sizeof *pos), *end = malloc((size_t)l->slots * sizeof *end);
    if (!start || !kern || !pos || !end) {
        free(start); free(kern); free(pos); free(end);
        FA_FAIL(FA_ENOMEM, "L2 model: out of host memory");
    }
    np = 0;
    for (uint64_t i = 0; i < l->n; i++)
        if (i == 0 || l->recs[i].program != l->recs[i - 1].program || l->recs[i].kernel != l->recs[i - 1].kernel) {
            kern[np] = l->recs[i].kernel;
            start[np++] = i;
        }
    start[np] = l->n;
    uint64_t lines = 0, L = (uint64_t)l->line;
    for (uint64_t i = 0; i < l->n; i++) {
        const rec *r = &l->recs[i];
        lines += (uint64_t)r->rows * ((uint64_t)r->seg_bytes / L + 1);
    }
    uint64_t f = 1;
    while (lines / f > L2_EXACT_LINES && l->sets % (2 * f) == 0 && l->sets / (2 * f) >= 64) f *= 2;
    uint64_t p = 0; /* next program to launch */
    while (p < np) {
        int32_t k = kern[p];
        int active = 0;
        for (int s = 0; s < l->slots; s++) {
            if (p < np && kern[p] == k) {
                pos[s] = start[p];
                end[s] = start[p + 1];
                p++;
                active++;
            } else {
                pos[s] = end[s] = 0;
            }
        }
        while (active > 0) { /* round-robin: each running program issues one transfer */
            for (int s = 0; s < l->slots; s++) {
                if (pos[s] >= end[s]) continue;
                replay(l, &l->recs[pos[s]++], f);
                if (pos[s] == end[s]) {
                    if (p < np && kern[p] == k) { /* the next thread block takes the SM */
                        pos[s] = start[p];
                        end[s] = start[p + 1];
                        p++;
                    } else {
                        active--;
                    }
                }
            }
        }
    }
    /* flush: dirty lines still in the cache reach DRAM */
    for (uint64_t i = 0; i < l->sets * (uint64_t)l->ways; i++)
        if (l->tag[i] != UINT64_MAX) l->res.dram_write_bytes += (uint64_t)l->sector * (uint64_t)__builtin_popcount(l->dirty[i]);
    l->res.dram_read_bytes *= f;
    l->res.dram_write_bytes *= f;
    l->res.sample = (int)f;
    l->res.programs = (int64_t)np;
    l->res.slots = l->slots;
    *out = l->res;
    free(start);
    free(kern);
    free(pos);
    free(end);
    return FA_OK;
}
