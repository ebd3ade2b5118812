/* l2.c -- the L2 cache model: wave-scheduled replay of tile transfers through a
 * set-associative write-back LRU cache, optionally in two partitions (see fa_l2.h). */
#include "fa_l2.h"

#include <assert.h>
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
    int parts;          /* L2 partitions (1 or 2) */
    uint64_t part_sets; /* sets per partition */
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
    l->parts = 1;
    l->part_sets = l->sets;
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

fa_status fa_l2_set_partitions(fa_l2 *l, int parts)
{
    if (parts != 1 && parts != 2)
        FA_FAIL(FA_EINVAL, "L2: %d partitions; the model knows 1 or 2", parts);
    if (l->sets % (uint64_t)parts)
        FA_FAIL(FA_EINVAL, "L2: %" PRIu64 " sets do not split into %d partitions", l->sets, parts);
    l->parts = parts;
    l->part_sets = l->sets / (uint64_t)parts;
    return FA_OK;
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

/* The set bits of a sector mask (8 bits), without libgcc's popcount call (no -mpopcnt). */
static inline unsigned pop8(unsigned x)
{
    x &= 0xffu;
    x = x - ((x >> 1) & 0x55u);
    x = (x & 0x33u) + ((x >> 2) & 0x33u);
    return (x + (x >> 4)) & 0x0fu;
}

/* The way of `set` that holds `line`, or -1. */
static int find_way(const fa_l2 *l, uint64_t set, uint64_t line)
{
    const uint64_t *tg = l->tag + set * (uint64_t)l->ways;
    for (int w = 0; w < l->ways; w++)
        if (tg[w] == line) return w;
    return -1;
}

/* Makes room for `line` in `set`: the least recently used way is evicted (its dirty sectors
 * reach DRAM) and given to `line`, empty.  Returns the way. */
static int evict_lru(fa_l2 *l, uint64_t set, uint64_t line)
{
    const uint64_t b = set * (uint64_t)l->ways;
    int v = 0;
    for (int w = 1; w < l->ways; w++)
        if (l->used[b + (uint64_t)w] < l->used[b + (uint64_t)v]) v = w;
    const uint64_t i = b + (uint64_t)v;
    if (l->tag[i] != UINT64_MAX) l->res.dram_write_bytes += (uint64_t)l->sector * (uint64_t)pop8(l->dirty[i]);
    l->tag[i] = line;
    l->valid[i] = l->dirty[i] = 0;
    return v;
}

/* A line's set within a partition.  Its set key (line / parts: the lines 2k and 2k + 1 of two
 * partitions share key k) taken mod the sets of a partition, turned by 7919 sets for every
 * time the keys wrap around the cache: consecutive lines still fill the sets evenly, but
 * lines a multiple of the cache size apart do not all fall into one set (real L2s hash the
 * higher address bits into the set index for that reason). */
static uint64_t set_index(const fa_l2 *l, uint64_t line)
{
    const uint64_t key = line / (uint64_t)l->parts;
    return (key + key / l->part_sets * 7919u) % l->part_sets;
}

/* The set in partition p of a line whose set index (set_index) is si: the sets are split into
 * `parts` equal ranges. */
static uint64_t set_of(const fa_l2 *l, uint64_t si, int p)
{
    return (uint64_t)p * l->part_sets + si;
}

/* The partition a line belongs to (its home, where DRAM fills and write-backs happen): the
 * parity of the line address.  The two lines of a set key (2k, 2k + 1) differ in parity, so
 * they are homed on different partitions and each partition sees one line of every key: a
 * region of lines splits evenly, set by set. */
static int home_of(const fa_l2 *l, uint64_t line)
{
    return l->parts == 1 ? 0 : __builtin_parityll(line);
}

/* Drops `line` (set index si) from partition p if it is there (a replica: never dirty). */
static void drop_replica(fa_l2 *l, uint64_t line, uint64_t si, int p)
{
    const uint64_t set = set_of(l, si, p);
    const int w = find_way(l, set, line);
    if (w < 0) return;
    const uint64_t i = set * (uint64_t)l->ways + (uint64_t)w;
    l->tag[i] = UINT64_MAX;
    l->used[i] = 0;
    l->valid[i] = l->dirty[i] = 0;
}

/* An access to `line`, sectors `mask`, in its home partition.  Sectored like Hopper's L2: a
 * line is allocated whole, but only the sectors touched are fetched (reads) or marked dirty
 * (writes), and only dirty sectors are written back.  Write-allocate without a fill. */
static void access_home(fa_l2 *l, uint64_t line, uint64_t si, unsigned mask, int write)
{
    const uint64_t set = set_of(l, si, home_of(l, line));
    const uint64_t S = (uint64_t)l->sector;
    int w = find_way(l, set, line);
    if (w < 0) {
        l->res.misses++;
        w = evict_lru(l, set, line);
    }
    const uint64_t i = set * (uint64_t)l->ways + (uint64_t)w;
    l->used[i] = l->clock;
    if (write) l->dirty[i] |= (uint8_t)mask;
    else l->res.dram_read_bytes += S * (uint64_t)pop8(mask & ~l->valid[i] & 0xffu);
    l->valid[i] |= (uint8_t)mask;
}

/* One access to `line` (sectors `mask`) by a thread block on an SM next to partition `side`.
 * One partition: the line's set, as in any set-associative cache.  Two partitions (Hopper,
 * Ampere): a line has a home partition; an SM reads a line homed on the far side through a
 * copy in its near partition (a read-only replica, filled from the home copy, so DRAM is read
 * only when the home copy misses); a store goes to the home copy and drops the replica, so the
 * replicas never hold dirty data. */
static void access_line(fa_l2 *l, uint64_t line, uint64_t si, unsigned mask, int write, int side)
{
    l->clock++;
    l->res.accesses++;
    const int home = home_of(l, line);
    if (home == side || l->parts == 1) {
        access_home(l, line, si, mask, write);
        if (write && l->parts > 1) drop_replica(l, line, si, 1 - home); /* now stale */
        return;
    }
    if (write) {
        drop_replica(l, line, si, side);
        access_home(l, line, si, mask, 1);
        return;
    }
    const uint64_t rs = set_of(l, si, side);
    int w = find_way(l, rs, line);
    uint64_t i = w >= 0 ? rs * (uint64_t)l->ways + (uint64_t)w : 0;
    if (w >= 0 && (mask & ~l->valid[i] & 0xffu) == 0) { /* replica hit */
        l->used[i] = l->clock;
        return;
    }
    access_home(l, line, si, mask, 0); /* the home copy serves the replica (DRAM if it misses) */
    if (w < 0) w = evict_lru(l, rs, line);
    i = rs * (uint64_t)l->ways + (uint64_t)w;
    l->used[i] = l->clock;
    l->valid[i] |= (uint8_t)mask;
}

/* Set sampling: only lines whose set index (within a partition) is a multiple of f are
 * simulated (f divides the sets of a partition: every f-th set, whole, with all its ways) and
 * the DRAM counts are scaled by f.  f = 1 (exact) unless the replay would touch more than
 * L2_EXACT_LINES lines. */
#define L2_EXACT_LINES 30000000ull

static void replay(fa_l2 *l, const rec *r, uint64_t f, int side)
{
    const uint64_t L = (uint64_t)l->line, S = (uint64_t)l->sector, P = l->part_sets, parts = (uint64_t)l->parts;
    const int sh = (S & (S - 1)) == 0 ? __builtin_ctzll(S) : -1; /* log2 S, or -1 */
    for (uint32_t i = 0; i < r->rows; i++) {
        uint64_t a = r->addr + (uint64_t)i * r->stride, e = a + r->seg_bytes; /* [a, e) */
        uint64_t first = a / L, last = (e - 1) / L;
        /* set_index of consecutive lines without dividing: key = line / parts = q P + k, and
         * the set is (k + (q x 7919 mod P)) mod P; k steps by one every `parts` lines */
        uint64_t key = first / parts, q = key / P, k = key % P, off = q * 7919u % P;
        for (uint64_t line = first; line <= last; line++) {
            if (line != first && (line & (parts - 1)) == 0 && ++k == P) k = 0, q++, off = q * 7919u % P; /* parts: 1 or 2 */
            const uint64_t si = k + off < P ? k + off : k + off - P;
            if (f > 1 && (si & (f - 1))) continue; /* a set that is not simulated (f: a power of 2) */
            uint64_t lo = a > line * L ? a - line * L : 0;
            uint64_t hi = e < (line + 1) * L ? e - line * L : L;
            unsigned mask = 0;
            if (sh >= 0) /* the sectors [lo / S, (hi - 1) / S] as a run of bits */
                mask = (unsigned)(((2ull << ((hi - 1) >> sh)) - 1) & ~((1ull << (lo >> sh)) - 1));
            else
                for (uint64_t sct = lo / S; sct <= (hi - 1) / S; sct++) mask |= 1u << sct;
            access_line(l, line, si, mask, r->write, side);
        }
        /* the incremental index at the segment's last line is set_index's (asserted: a few
         * divisions a segment, not four a line) */
        assert(last / parts % P == k && last / parts / P == q &&
               (k + off < P ? k + off : k + off - P) == set_index(l, last));
    }
    (void)set_index; /* used by the assertion only */
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
    while (lines / f > L2_EXACT_LINES && l->part_sets % (2 * f) == 0 && l->part_sets / (2 * f) >= 64) f *= 2;
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
                replay(l, &l->recs[pos[s]++], f, s % l->parts);
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
        if (l->tag[i] != UINT64_MAX) l->res.dram_write_bytes += (uint64_t)l->sector * (uint64_t)pop8(l->dirty[i]);
    l->res.dram_read_bytes *= f;
    l->res.dram_write_bytes *= f;
    l->res.sample = (int)f;
    l->res.programs = (int64_t)np;
    l->res.slots = l->slots;
    l->res.max_grid = 0; /* the largest kernel's thread blocks */
    for (uint64_t i = 0, run = 0; i < np; i++) {
        run = i > 0 && kern[i] == kern[i - 1] ? run + 1 : 1;
        if ((int64_t)run > l->res.max_grid) l->res.max_grid = (int64_t)run;
    }
    *out = l->res;
    free(start);
    free(kern);
    free(pos);
    free(end);
    return FA_OK;
}
