/* spans.c -- the tile geometry a mask implies: the class of a tile (SKIP, PARTIAL, FULL), the
 * K/V tiles a row block visits and the row blocks a K/V tile is visited by (spans with a FULL
 * core), the span sums of the closed forms, and the tile iterators every tiled loop runs on
 * (the runs of identical tiles count-only mode merges, with their weights).  Declarations:
 * fa_attn.h; the mask itself: modifiers.c. */
#include <stdlib.h>
#include <string.h>

#include "fa_attn.h"

/* The column mask's class of rows [r0, r1] x keys [c0, c1], exactly (a column is fully masked
 * when the two masked ranges cover the rows).  Per-block bounds of the ranges (computed once for
 * a block width and cached) decide most tiles in O(1), as FlashMask's block summaries do; the
 * rest are scanned column by column. */
static fa_tile_class col_scan(const fa_col_mask *m, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    const int64_t rows = r1 - r0 + 1;
    int any_allowed = 0, all_allowed = 1;
    for (int64_t j = c0; j <= c1; j++) {
        int64_t a1 = m->lo1[j] > r0 ? m->lo1[j] : r0, b1 = m->hi1[j] - 1 < r1 ? m->hi1[j] - 1 : r1;
        int64_t a2 = m->lo2[j] > r0 ? m->lo2[j] : r0, b2 = m->hi2[j] - 1 < r1 ? m->hi2[j] - 1 : r1;
        int64_t n1 = b1 >= a1 ? b1 - a1 + 1 : 0, n2 = b2 >= a2 ? b2 - a2 + 1 : 0;
        int64_t ov = 0; /* overlap of the two masked pieces */
        if (n1 && n2) {
            int64_t a = a1 > a2 ? a1 : a2, b = b1 < b2 ? b1 : b2;
            ov = b >= a ? b - a + 1 : 0;
        }
        int64_t masked = n1 + n2 - ov;
        if (masked < rows) any_allowed = 1;
        if (masked > 0) all_allowed = 0;
        if (any_allowed && !all_allowed) return FA_TILE_PARTIAL;
    }
    return !any_allowed ? FA_TILE_SKIP : all_allowed ? FA_TILE_FULL : FA_TILE_PARTIAL;
}

/* Per key block of width bc: max lo and min hi of each range (an empty range counts as covering
 * nothing), min lo and max hi of each non-empty range (for "touches no row"). */
typedef struct {
    const fa_col_mask *m;
    int64_t bc, nk, nb;
    int32_t *v; /* 8 values per block */
} col_summary;
static _Thread_local col_summary g_cs;

static const int32_t *col_block(const fa_col_mask *m, int64_t nk, int64_t bc, int64_t blk)
{
    if (g_cs.m != m || g_cs.bc != bc || g_cs.nk != nk) {
        free(g_cs.v);
        memset(&g_cs, 0, sizeof g_cs);
        int64_t nb = (nk + bc - 1) / bc;
        g_cs.v = malloc((size_t)(8 * nb) * sizeof *g_cs.v);
        if (!g_cs.v) return NULL;
        g_cs.m = m;
        g_cs.bc = bc;
        g_cs.nk = nk;
        g_cs.nb = nb;
        for (int64_t b = 0; b < nb; b++) {
            int32_t *x = g_cs.v + 8 * b;
            x[0] = x[2] = INT32_MIN; /* max lo1, max lo2 (covering) */
            x[1] = x[3] = INT32_MAX; /* min hi1, min hi2 (covering) */
            x[4] = x[6] = INT32_MAX; /* min lo1, min lo2 of non-empty ranges */
            x[5] = x[7] = INT32_MIN; /* max hi1, max hi2 of non-empty ranges */
            int e1 = 0, e2 = 0;
            for (int64_t j = b * bc; j < nk && j < (b + 1) * bc; j++) {
                if (m->lo1[j] >= m->hi1[j]) e1 = 1;
                if (m->lo2[j] >= m->hi2[j]) e2 = 1;
                if (m->lo1[j] > x[0]) x[0] = m->lo1[j];
                if (m->hi1[j] < x[1]) x[1] = m->hi1[j];
                if (m->lo2[j] > x[2]) x[2] = m->lo2[j];
                if (m->hi2[j] < x[3]) x[3] = m->hi2[j];
                if (m->lo1[j] < m->hi1[j]) {
                    if (m->lo1[j] < x[4]) x[4] = m->lo1[j];
                    if (m->hi1[j] > x[5]) x[5] = m->hi1[j];
                }
                if (m->lo2[j] < m->hi2[j]) {
                    if (m->lo2[j] < x[6]) x[6] = m->lo2[j];
                    if (m->hi2[j] > x[7]) x[7] = m->hi2[j];
                }
            }
            if (e1) x[0] = INT32_MAX; /* a column with an empty range 1: range 1 covers nothing */
            if (e2) x[2] = INT32_MAX;
        }
    }
    return blk < g_cs.nb ? g_cs.v + 8 * blk : NULL;
}

static fa_tile_class col_classify(const fa_shape *s, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    const fa_col_mask *m = s->col_mask;
    const int64_t bc = c1 - c0 + 1;
    /* summaries are per aligned block of the tile width; the last tile (possibly a shorter tail)
     * is scanned, so one cache serves a whole run */
    if (c1 != s->seqlen_k - 1 && c0 % bc == 0) {
        const int32_t *x = col_block(m, s->seqlen_k, bc, c0 / bc);
        if (x) {
            /* every column's range 1 (or every column's range 2) covers all the rows: SKIP */
            if ((r0 >= x[0] && r1 < x[1]) || (r0 >= x[2] && r1 < x[3])) return FA_TILE_SKIP;
            /* no column's masked ranges touch the rows: FULL */
            int t1 = x[4] == INT32_MAX || r1 < x[4] || r0 >= x[5];
            int t2 = x[6] == INT32_MAX || r1 < x[6] || r0 >= x[7];
            if (t1 && t2) return FA_TILE_FULL;
        }
    }
    return col_scan(m, r0, r1, c0, c1);
}

/* combines two component classes: SKIP wins, then PARTIAL */
static fa_tile_class meet(fa_tile_class a, fa_tile_class b) { return a < b ? a : b; }

fa_tile_class fa_tile_classify(const fa_shape *s, int64_t r0, int64_t rows, int64_t c0,
                               int64_t cols)
{
    fa_tile_class cls = FA_TILE_FULL;
    const int64_t r1 = r0 + rows - 1, c1 = c0 + cols - 1;
    if (s->causal != FA_CAUSAL_NONE) {
        int64_t off = fa_causal_offset(s);
        if (c0 > r1 + off) return FA_TILE_SKIP; /* no row reaches the first key */
        if (!(c1 <= r0 + off)) cls = FA_TILE_PARTIAL; /* the first row does not reach the last key */
    }
    if (s->window) {
        int64_t off = s->seqlen_k - s->seqlen_q, L = s->window_left, R = s->window_right;
        if (R >= 0 && c0 > r1 + off + R) return FA_TILE_SKIP;
        if (L >= 0 && c1 < r0 + off - L) return FA_TILE_SKIP;
        if ((R >= 0 && c1 > r0 + off + R) || (L >= 0 && c0 < r1 + off - L)) cls = FA_TILE_PARTIAL;
    }
    if (s->block_mask) {
        const fa_block_mask *m = s->block_mask;
        int any = 0, all = 1;
        for (int64_t bi = r0 / m->block_r; bi <= r1 / m->block_r; bi++)
            for (int64_t bj = c0 / m->block_c; bj <= c1 / m->block_c; bj++) {
                int on = m->bits[bi * m->n_c + bj] != 0;
                any |= on;
                all &= on;
            }
        if (!any) return FA_TILE_SKIP;
        if (!all) cls = FA_TILE_PARTIAL;
    }
    if (s->col_mask) {
        fa_tile_class c = col_classify(s, r0, r1, c0, c1);
        if (c == FA_TILE_SKIP) return FA_TILE_SKIP;
        cls = meet(cls, c);
    }
    if (s->dense_mask) cls = meet(cls, FA_TILE_PARTIAL); /* unknown until its mask tile is read */
    return cls;
}

void fa_kv_tiles(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *n_visit,
                 int64_t *n_full)
{
    int64_t T_c = fa_cdiv(s->seqlen_k, block_c);
    if (s->causal == FA_CAUSAL_NONE) {
        *n_visit = *n_full = T_c;
        return;
    }
    int64_t off = fa_causal_offset(s);
    int64_t last = r0 + rows - 1 + off; /* largest key the last row of the block may see */
    *n_visit = last < 0 ? 0 : (last / block_c + 1 < T_c ? last / block_c + 1 : T_c);
    int64_t first = r0 + off; /* largest key the first row may see */
    if (first >= s->seqlen_k - 1) *n_full = T_c;
    else if (first + 1 <= 0) *n_full = 0;
    else *n_full = (first + 1) / block_c;
}

void fa_q_tiles(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *i_lo,
                int64_t *i_full)
{
    int64_t T_r = fa_cdiv(s->seqlen_q, block_r);
    if (s->causal == FA_CAUSAL_NONE) {
        *i_lo = *i_full = 0;
        return;
    }
    int64_t off = fa_causal_offset(s);
    int64_t rmin = c0 - off; /* first row that may see key c0 */
    if (rmin > s->seqlen_q - 1) {
        *i_lo = *i_full = T_r;
        return;
    }
    *i_lo = (rmin > 0 ? rmin : 0) / block_r;
    int64_t rfull = c0 + cols - 1 - off; /* first row that sees the tile's last key */
    int64_t f = fa_cdiv(rfull > 0 ? rfull : 0, block_r);
    *i_full = f < T_r ? f : T_r;
    if (*i_full < *i_lo) *i_full = *i_lo;
}

static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

/* floor(a / b) for any a, b > 0 */
static int64_t fdiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void fa_kv_span(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *lo,
                int64_t *hi, int64_t *full_lo, int64_t *full_hi)
{
    const int64_t T_c = fa_cdiv(s->seqlen_k, block_c), Nk = s->seqlen_k, r1 = r0 + rows - 1;
    int64_t l = 0, h = T_c, fl = 0, fh = T_c;
    if (s->causal != FA_CAUSAL_NONE) {
        int64_t nv, nf;
        fa_kv_tiles(s, r0, rows, block_c, &nv, &nf);
        if (nv < h) h = nv;
        if (nf < fh) fh = nf;
    }
    if (s->window) {
        int64_t off = s->seqlen_k - s->seqlen_q, L = s->window_left, R = s->window_right;
        if (R >= 0) {
            int64_t last = r1 + off + R; /* the last key any row of the block sees */
            h = last < 0 ? 0 : (last / block_c + 1 < h ? last / block_c + 1 : h);
            int64_t first_last = r0 + off + R; /* the last key every row sees */
            int64_t nf = first_last >= Nk - 1 ? T_c : clamp64(fdiv(first_last + 1, block_c), 0, T_c);
            if (nf < fh) fh = nf;
        }
        if (L >= 0) {
            int64_t first = r0 + off - L; /* the first key any row of the block sees */
            int64_t t = clamp64(fdiv(first, block_c), 0, T_c);
            if (t > l) l = t;
            int64_t every = r1 + off - L; /* the first key every row sees */
            int64_t tf = clamp64(every <= 0 ? 0 : fa_cdiv(every, block_c), 0, T_c);
            if (tf > fl) fl = tf;
        }
    }
    if (s->block_mask || s->col_mask || s->dense_mask) fl = fh = l; /* classify every tile */
    if (h < l) h = l;
    if (fl < l) fl = l;
    if (fh > h) fh = h;
    if (fh < fl) fh = fl;
    *lo = l;
    *hi = h;
    *full_lo = fl;
    *full_hi = fh;
}

void fa_q_span(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *lo,
               int64_t *hi, int64_t *full_lo, int64_t *full_hi)
{
    const int64_t T_r = fa_cdiv(s->seqlen_q, block_r), Nq = s->seqlen_q, c1 = c0 + cols - 1;
    int64_t l = 0, h = T_r, fl = 0, fh = T_r;
    if (s->causal != FA_CAUSAL_NONE) {
        int64_t ilo, ifull;
        fa_q_tiles(s, c0, cols, block_r, &ilo, &ifull);
        l = ilo;
        fl = ifull;
    }
    if (s->window) {
        int64_t off = s->seqlen_k - s->seqlen_q, L = s->window_left, R = s->window_right;
        if (R >= 0) { /* row r sees key c only if r >= c - off - R */
            int64_t first = c0 - off - R;
            int64_t t = first > Nq - 1 ? T_r : clamp64(fdiv(first, block_r), 0, T_r);
            if (t > l) l = t;
            int64_t every = c1 - off - R;
            int64_t tf = every > Nq - 1 ? T_r : clamp64(every <= 0 ? 0 : fa_cdiv(every, block_r), 0, T_r);
            if (tf > fl) fl = tf;
        }
        if (L >= 0) { /* ... and r <= c + L - off */
            int64_t last = c1 + L - off;
            int64_t t = last < 0 ? 0 : (last >= Nq - 1 ? T_r : clamp64(last / block_r + 1, 0, T_r));
            if (t < h) h = t;
            int64_t every_last = c0 + L - off;
            int64_t tf = every_last >= Nq - 1 ? T_r : clamp64(fdiv(every_last + 1, block_r), 0, T_r);
            if (tf < fh) fh = tf;
        }
    }
    if (s->block_mask || s->col_mask || s->dense_mask) fl = fh = l;
    if (h < l) h = l;
    if (fl < l) fl = l;
    if (fh > h) fh = h;
    if (fh < fl) fh = fl;
    *lo = l;
    *hi = h;
    *full_lo = fl;
    *full_hi = fh;
}

/* Over a span [lo, hi) of tiles of width B along an axis of length n, with FULL core [fl, fh)
 * (fl <= fh): how many tiles are visited and how many elements (keys or rows) they hold.  The
 * core is summed in closed form, the tiles before and after it are classified one by one.
 * kv: tiles are key tiles of the row block [f0, f0 + flen); else row blocks of the key tile. */
static void span_sum(const fa_shape *s, int kv, int64_t f0, int64_t flen, int64_t B, int64_t n,
                     int64_t lo, int64_t hi, int64_t fl, int64_t fh, int64_t *count, int64_t *len)
{
    int64_t c = fh - fl, l = fh > fl ? (fh * B < n ? fh * B : n) - fl * B : 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t t = pass ? fh : lo; t < (pass ? hi : fl); t++) {
            const int64_t x0 = t * B, w = fa_tile_len(x0, n, B);
            fa_tile_class cls = kv ? fa_tile_classify(s, f0, flen, x0, w) : fa_tile_classify(s, x0, w, f0, flen);
            if (cls == FA_TILE_SKIP) continue;
            c++;
            l += w;
        }
    *count = c;
    *len = l;
}

void fa_kv_span_sum(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *tiles,
                    int64_t *keys)
{
    int64_t lo, hi, fl, fh;
    fa_kv_span(s, r0, rows, block_c, &lo, &hi, &fl, &fh);
    span_sum(s, 1, r0, rows, block_c, s->seqlen_k, lo, hi, fl, fh, tiles, keys);
}

void fa_q_span_sum(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *blocks,
                   int64_t *qrows)
{
    int64_t lo, hi, fl, fh;
    fa_q_span(s, c0, cols, block_r, &lo, &hi, &fl, &fh);
    span_sum(s, 0, c0, cols, block_r, s->seqlen_q, lo, hi, fl, fh, blocks, qrows);
}

/* ---- tile iterators ---- */

static fa_tile_iter iter_make(fa_mem *mem, int64_t batch, int64_t heads, int64_t n, int64_t B)
{
    const int merge = fa_mem_may_merge(mem);
    fa_tile_iter it = {.mem = mem, .n = n, .B = B, .hi = fa_cdiv(n, B), .heads = heads,
                       .slices = merge ? 1 : batch * heads, .sw = merge ? batch * heads : 1};
    return it;
}

/* 1 if tile t of the span is SKIP: only tiles outside the FULL core are classified */
static int iter_skip(const fa_tile_iter *it, int64_t t)
{
    if (!it->s || (t >= it->full_lo && t < it->full_hi)) return 0;
    const int64_t x0 = t * it->B, len = fa_tile_len(x0, it->n, it->B);
    return (it->kv ? fa_tile_classify(it->s, it->f0, it->flen, x0, len)
                   : fa_tile_classify(it->s, x0, len, it->f0, it->flen)) == FA_TILE_SKIP;
}

/* positions the iterator on the first tile of the span that is not SKIP */
static fa_tile_iter iter_first(fa_tile_iter it)
{
    it.t = it.lo;
    while (it.t < it.hi && iter_skip(&it, it.t)) it.t++;
    return it;
}

fa_tile_iter fa_iter_rows(fa_mem *mem, int64_t batch, int64_t heads, int64_t n, int64_t B,
                          int merge)
{
    fa_tile_iter it = iter_make(mem, batch, heads, n, B);
    it.full_hi = merge ? it.hi : 0;
    return iter_first(it);
}

fa_tile_iter fa_iter_slices(fa_mem *mem, int64_t batch, int64_t heads)
{
    return fa_iter_rows(mem, batch, heads, 1, 1, 0);
}

fa_tile_iter fa_iter_kv(fa_mem *mem, const fa_shape *s, int64_t r0, int64_t rows, int64_t Bc)
{
    return fa_iter_kv_chunk(mem, s, r0, rows, Bc, 0, fa_cdiv(s->seqlen_k, Bc));
}

static int64_t clamp_to(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

fa_tile_iter fa_iter_kv_chunk(fa_mem *mem, const fa_shape *s, int64_t r0, int64_t rows, int64_t Bc,
                              int64_t t0, int64_t t1)
{
    fa_tile_iter it = iter_make(mem, 1, 1, s->seqlen_k, Bc);
    it.s = s;
    it.kv = 1;
    it.f0 = r0;
    it.flen = rows;
    fa_kv_span(s, r0, rows, Bc, &it.lo, &it.hi, &it.full_lo, &it.full_hi);
    /* the span cut to the chunk [t0, t1), its FULL core with it (unchanged for the whole axis) */
    it.lo = clamp_to(it.lo, t0, t1 > t0 ? t1 : t0);
    it.hi = clamp_to(it.hi, it.lo, t1 > it.lo ? t1 : it.lo);
    it.full_lo = clamp_to(it.full_lo, it.lo, it.hi);
    it.full_hi = clamp_to(it.full_hi, it.full_lo, it.hi);
    return iter_first(it);
}

fa_tile_iter fa_iter_q(fa_mem *mem, const fa_shape *s, int64_t heads, int64_t c0, int64_t cols,
                       int64_t Br)
{
    fa_tile_iter it = iter_make(mem, 1, heads, s->seqlen_q, Br);
    it.s = s;
    it.f0 = c0;
    it.flen = cols;
    fa_q_span(s, c0, cols, Br, &it.lo, &it.hi, &it.full_lo, &it.full_hi);
    return iter_first(it);
}

fa_tile_iter fa_iter_span(fa_mem *mem, int64_t n, int64_t B, int64_t lo, int64_t hi,
                          int64_t full_hi)
{
    fa_tile_iter it = iter_make(mem, 1, 1, n, B);
    it.lo = it.full_lo = lo;
    it.hi = hi;
    it.full_hi = full_hi;
    return iter_first(it);
}

int fa_iter_empty(const fa_tile_iter *it) { return it->phase == 0 && it->t >= it->hi; }

/* Length of the run that starts at tile t: the FULL core merges (up to the tail tile, a run of
 * its own), every other tile is a run of one; 1 unless count-only mode may merge. */
static int64_t iter_run(const fa_tile_iter *it, int64_t t)
{
    const int64_t tail = fa_cdiv(it->n, it->B) - 1;
    if (!fa_mem_may_merge(it->mem) || t == tail || t < it->full_lo || t >= it->full_hi) return 1;
    int64_t end = it->full_hi < it->hi ? it->full_hi : it->hi;
    if (tail > t && tail < end) end = tail;
    return end - t;
}

/* ends the loop: pops the slices' weight (if pushed); returns 0 */
static int iter_end(fa_tile_iter *it)
{
    if (it->phase == 1 && it->sw > 1) fa_mem_pop_weight(it->mem);
    it->phase = 2;
    return 0;
}

int fa_iter_next(fa_tile_iter *it, fa_status *st)
{
    if (it->pushed) fa_mem_pop_weight(it->mem);
    it->pushed = 0;
    if (it->phase == 1) it->t += it->w;
    if (*st != FA_OK || it->phase == 2) return iter_end(it);
    if (it->phase == 0) {
        if (it->t >= it->hi) return iter_end(it); /* every slice has the same span: nothing */
        if (it->sw > 1 && (*st = fa_mem_push_weight(it->mem, (uint64_t)it->sw)) != FA_OK)
            return iter_end(it);
        it->phase = 1;
    }
    while (it->t < it->hi && iter_skip(it, it->t)) it->t++;
    if (it->t >= it->hi) { /* the slice is done: the next one, or the end */
        if (++it->slice >= it->slices) return iter_end(it);
        *it = iter_first(*it);
    }
    it->b = it->slice / it->heads;
    it->h = it->slice % it->heads;
    it->x0 = it->t * it->B;
    it->len = fa_tile_len(it->x0, it->n, it->B);
    it->w = iter_run(it, it->t);
    if (it->w > 1 && (*st = fa_mem_push_weight(it->mem, (uint64_t)it->w)) != FA_OK)
        return iter_end(it);
    it->pushed = it->w > 1;
    return 1;
}
