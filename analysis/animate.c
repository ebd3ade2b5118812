/* animate.c -- `fasim animate`'s pictures: the transfers of slice (0, 0) of one forward pass
 * recorded through the memory model's sink, each transfer's frame (boxes, caption, cumulative
 * bytes) and the heatmap's per-tile counts (fa_animate.h).  Nothing is written here:
 * analysis/cli/cmd_animate.c writes the files and runs gnuplot. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fa_animate.h"
#include "fa_records.h"

const char *const fa_anim_tensor_names[FA_ANIM_NTENSOR] = {"Q", "K", "V", "O", "S", "P", "l", "m", "LSE"};

/* The sink's state: the record grown by doubling, and whether a transfer could not be kept. */
typedef struct {
    fa_anim_record *r;
    int cap;
    int full, nomem;
} recorder;

static void sink(void *ctx, const fa_transfer *t)
{
    recorder *R = ctx;
    if (t->b != 0 || t->h != 0 || R->full || R->nomem) return;
    fa_anim_record *r = R->r;
    if (r->n == FA_ANIM_MAX_RECORD) {
        R->full = 1;
        return;
    }
    if (r->n == R->cap) {
        int nc = R->cap ? 2 * R->cap : 256;
        fa_anim_transfer *p = realloc(r->t, (size_t)nc * sizeof *p);
        if (!p) {
            R->nomem = 1;
            return;
        }
        r->t = p;
        R->cap = nc;
    }
    fa_anim_transfer *x = &r->t[r->n++];
    snprintf(x->tensor, sizeof x->tensor, "%s", t->tensor->name);
    x->write = t->write;
    x->row0 = t->row0;
    x->rows = t->rows;
    x->col0 = t->col0;
    x->cols = t->cols;
    x->bytes = t->bytes;
    x->kernel = t->kernel;
    r->bytes += t->bytes;
}

fa_status fa_anim_record_pass(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M, fa_anim_record *out)
{
    memset(out, 0, sizeof *out);
    recorder R = {.r = out};
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, M);
    if (!mem) return FA_ENOMEM;
    fa_mem_set_sink(mem, sink, &R);
    fa_status st = fa_run_pass(FA_PASS_FWD, a, mem, s, bk);
    fa_mem_free(mem);
    if (st) return st;
    if (R.nomem) FA_FAIL(FA_ENOMEM, "animate: out of memory recording %d transfers", out->n);
    if (R.full) FA_FAIL(FA_EINVAL, "animate: too many transfers to record");
    return FA_OK;
}

void fa_anim_record_free(fa_anim_record *r)
{
    if (!r) return;
    free(r->t);
    memset(r, 0, sizeof *r);
}

fa_status fa_anim_check_tiles(const fa_shape *s, fa_blocks bk)
{
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (T_r > FA_ANIM_MAX_TILES || T_c > FA_ANIM_MAX_TILES)
        FA_FAIL(FA_EINVAL,
                "animate draws at most %d x %d tiles; T_r = %" PRId64 ", T_c = %" PRId64
                " (use larger --block-r/--block-c or a shorter --seqlen)",
                FA_ANIM_MAX_TILES, FA_ANIM_MAX_TILES, T_r, T_c);
    return FA_OK;
}

fa_status fa_anim_tiles(const fa_run_config *c, int tiles_given, fa_blocks *bk, uint64_t *M)
{
    uint64_t over = 0;
    if (!tiles_given) { /* 4 x 4 tiles by default: a picture, not a tuning */
        bk->block_r = fa_cdiv(c->shape.seqlen_q, 4);
        bk->block_c = fa_cdiv(c->shape.seqlen_k, 4);
    } else {
        FA_TRY(fa_run_tiles(c, bk, &over));
    }
    *M = c->sram + over; /* --blocks paper: M enlarged to fit, as in fasim io */
    return fa_anim_check_tiles(&c->shape, *bk);
}

fa_status fa_anim_algos(int heatmap, int n_given, fa_algo first, fa_algo out[2], int *n)
{
    *n = 0;
    if (heatmap) {
        if (n_given == 1) FA_FAIL(FA_EINVAL, "--heatmap compares flash1 and flash2; leave out --algo");
        out[(*n)++] = FA_ALGO_FLASH1;
        out[(*n)++] = FA_ALGO_FLASH2;
        return FA_OK;
    }
    if (n_given > 1) FA_FAIL(FA_EINVAL, "animate draws one algorithm: --algo flash1, flash2 or standard");
    out[(*n)++] = n_given ? first : FA_ALGO_FLASH2;
    return FA_OK;
}

fa_status fa_anim_check_sram(const fa_algo *algos, int n, const fa_shape *s, fa_blocks bk, uint64_t M, int tiles_given)
{
    for (int k = 0; k < n; k++) {
        uint64_t need = fa_sram_need(algos[k], s, bk);
        char b2[32], b3[32];
        if (need > M)
            FA_FAIL(FA_ENOSRAM, "%s's tiles B_r = %" PRId64 ", B_c = %" PRId64 " need %" PRIu64 " B (%s) of SRAM, more than "
                                "M = %" PRIu64 " B (%s)%s (use smaller --block-r/--block-c, a shorter --seqlen or a "
                                "larger --sram)",
                    fa_algo_name(algos[k]), bk.block_r, bk.block_c, need, fa_fmt_bytes((double)need, b2, sizeof b2), M,
                    fa_fmt_bytes((double)M, b3, sizeof b3), tiles_given ? "" : "; by default 4 x 4 tiles");
    }
    return FA_OK;
}

/* The columns of the picture, and their x (left edge). */
enum { P_Q, P_K, P_V, P_O, P_STAT, NPANEL };
static const double panel_x[NPANEL] = {0, 1.6, 3.2, 4.8, 6.4};

/* The column of tensor t; -1 for the score grid (S, P, a dense mask). */
static int panel_of(const char *t)
{
    if (!strcmp(t, "Q")) return P_Q;
    if (!strcmp(t, "K")) return P_K;
    if (!strcmp(t, "V")) return P_V;
    if (!strcmp(t, "O")) return P_O;
    if (!strcmp(t, "l") || !strcmp(t, "m") || !strcmp(t, "LSE")) return P_STAT;
    return -1;
}

static fa_anim_tile box(double x, double y, int colour)
{
    return (fa_anim_tile){.x = x, .y = y, .w = 0.45, .h = 0.45, .colour = colour};
}

fa_status fa_anim_frames_make(fa_algo a, const fa_shape *s, fa_blocks bk, const fa_anim_record *rec,
                              fa_anim_frames *out)
{
    memset(out, 0, sizeof *out);
    FA_TRY(fa_anim_check_tiles(s, bk));
    if (rec->n > FA_ANIM_MAX_FRAMES)
        FA_FAIL(FA_EINVAL,
                "%s makes %d transfers on this shape; animate draws at most %d frames "
                "(use fewer tiles: larger --block-r/--block-c)",
                fa_algo_name(a), rec->n, FA_ANIM_MAX_FRAMES);
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    out->t_r = T_r;
    out->t_c = T_c;
    out->n_tiles = (int)FA_ANIM_FRAME_TILES(T_r, T_c);
    out->ymax = 1;
    if (rec->n > 0) {
        out->tile = malloc((size_t)rec->n * (size_t)out->n_tiles * sizeof *out->tile);
        out->frame = calloc((size_t)rec->n, sizeof *out->frame);
        if (!out->tile || !out->frame) {
            fa_anim_frames_free(out);
            FA_FAIL(FA_ENOMEM, "animate: no memory for %d frames", rec->n);
        }
    }
    out->n = rec->n;

    int sram[NPANEL], done[NPANEL][FA_ANIM_MAX_TILES];
    memset(done, 0, sizeof done);
    for (int p = 0; p < NPANEL; p++) sram[p] = -1;
    int grid[FA_ANIM_MAX_TILES][FA_ANIM_MAX_TILES];
    for (int i = 0; i < T_r; i++)
        for (int j = 0; j < T_c; j++) {
            int64_t r0 = i * bk.block_r, c0 = j * bk.block_c;
            int64_t rows = fa_tile_len(r0, s->seqlen_q, bk.block_r);
            int64_t cols = fa_tile_len(c0, s->seqlen_k, bk.block_c);
            grid[i][j] = a != FA_ALGO_STANDARD && fa_tile_classify(s, r0, rows, c0, cols) == FA_TILE_SKIP
                             ? FA_ANIM_SKIP
                             : FA_ANIM_IDLE;
        }
    uint64_t cum[FA_ANIM_NTENSOR][2];
    memset(cum, 0, sizeof cum);
    int qi = -1, kj = -1; /* the last Q and K tiles read: the score tile being worked on */
    for (int f = 0; f < rec->n; f++) {
        const fa_anim_transfer *x = &rec->t[f];
        int p = panel_of(x->tensor);
        int qside = p == P_Q || p == P_O || p == P_STAT || p < 0;
        int ti = (int)(x->row0 / (qside ? bk.block_r : bk.block_c));
        int tj = p < 0 ? (int)(x->col0 / bk.block_c) : 0;
        /* what SRAM holds during this transfer: a new kernel starts with its own buffers (the
         * last one's were freed), and a read replaces its column's tile in the column's buffer */
        if (f > 0 && x->kernel != rec->t[f - 1].kernel)
            for (int q = 0; q < NPANEL; q++) sram[q] = -1;
        if (p >= 0 && !x->write) sram[p] = ti;
        for (int b = 0; b < FA_ANIM_NTENSOR; b++)
            if (!strcmp(fa_anim_tensor_names[b], x->tensor)) {
                cum[b][x->write] += x->bytes;
                if ((double)cum[b][x->write] > out->ymax) out->ymax = (double)cum[b][x->write];
            }
        if (p == P_Q) qi = ti;
        if (p == P_K) kj = ti;
        if (a == FA_ALGO_FLASH2 && p == P_V && qi >= 0) grid[qi][ti] = FA_ANIM_COMP;
        /* FlashAttention-1 computes S_ij after all of Algorithm 1 line 8's loads (Q_i, O_i, l_i, m_i):
         * the tile turns computed at the last of them, m_i */
        if (a == FA_ALGO_FLASH1 && p == P_STAT && !x->write && !strcmp(x->tensor, "m") && kj >= 0) grid[ti][kj] = FA_ANIM_COMP;
        if (p < 0 && x->write) grid[ti][tj] = !strcmp(x->tensor, "S") ? FA_ANIM_SDONE : FA_ANIM_PDONE;
        fa_anim_tile *t = out->tile + (size_t)f * (size_t)out->n_tiles;
        for (int q = 0; q < NPANEL; q++) { /* the columns */
            int n = (q == P_K || q == P_V) ? (int)T_c : (int)T_r;
            for (int k = 0; k < n; k++) {
                int c = done[q][k] ? FA_ANIM_DONE : FA_ANIM_IDLE;
                if (k == sram[q]) c = FA_ANIM_SRAM;
                if (q == p && k == ti) c = x->write ? FA_ANIM_WRITE : FA_ANIM_READ;
                *t++ = box(panel_x[q] + 0.5, -(k + 0.5), c);
            }
        }
        for (int i = 0; i < T_r; i++) /* the score grid */
            for (int j = 0; j < T_c; j++) {
                int c = grid[i][j];
                if (p < 0 && i == ti && j == tj) c = x->write ? FA_ANIM_WRITE : FA_ANIM_READ;
                *t++ = box(8.0 + j + 0.5, -(i + 0.5), c);
            }
        if (p >= 0 && x->write) done[p][ti] = 1;
        fa_anim_frame *fr = &out->frame[f];
        /* numbered from 1, as FlashAttention's Algorithm 1 numbers its blocks: Q_i, O_i, l_i, m_i (i = 1 ..
         * T_r), K_j, V_j (j = 1 .. T_c), the score tile S_ij; steps and frames from 1 too */
        if (p < 0)
            snprintf(fr->caption, sizeof fr->caption, "step %d/%d: %s %.8s_%d,%d (score tile i = %d, j = %d; %" PRIu64 " B)",
                     f + 1, rec->n, x->write ? "write" : "read", x->tensor, ti + 1, tj + 1, ti + 1, tj + 1, x->bytes);
        else
            snprintf(fr->caption, sizeof fr->caption, "step %d/%d: %s %.8s_%d (%s %d of %d; %" PRIu64 " B)", f + 1,
                     rec->n, x->write ? "write" : "read", x->tensor, ti + 1, qside ? "row block" : "key block", ti + 1,
                     (int)(qside ? T_r : T_c), x->bytes);
        memcpy(fr->cum, cum, sizeof cum);
    }
    return FA_OK;
}

void fa_anim_frames_free(fa_anim_frames *f)
{
    if (!f) return;
    free(f->tile);
    free(f->frame);
    memset(f, 0, sizeof *f);
}

/* The heatmap's tensor of a transfer (FA_ANIM_Q .. FA_ANIM_LSE); -1 for S, P, a dense mask. */
static int heat_tensor(const char *t)
{
    static const char *const names[FA_ANIM_HEAT_TENSORS] = {"Q", "K", "V", "O", "l", "m", "LSE"};
    for (int k = 0; k < FA_ANIM_HEAT_TENSORS; k++)
        if (!strcmp(t, names[k])) return k;
    return -1;
}

fa_status fa_anim_heatmap(const fa_anim_record *rec, const fa_shape *s, fa_blocks bk, fa_anim_heat *out)
{
    memset(out, 0, sizeof *out);
    FA_TRY(fa_anim_check_tiles(s, bk));
    out->t_r = fa_cdiv(s->seqlen_q, bk.block_r);
    out->t_c = fa_cdiv(s->seqlen_k, bk.block_c);
    for (int f = 0; f < rec->n; f++) {
        int p = heat_tensor(rec->t[f].tensor);
        if (p < 0) continue;
        int64_t t = rec->t[f].row0 / ((p == FA_ANIM_K || p == FA_ANIM_V) ? bk.block_c : bk.block_r);
        if (t < FA_ANIM_MAX_TILES) out->n[p][rec->t[f].write][t]++;
    }
    return FA_OK;
}

int fa_anim_heat_tiles(const fa_anim_heat *h, int tensor)
{
    return (int)(tensor == FA_ANIM_K || tensor == FA_ANIM_V ? h->t_c : h->t_r);
}

int fa_anim_heat_row(int r, int *tensor, int *write, const char **name)
{
    static const int rp[FA_ANIM_HEAT_ROWS] = {FA_ANIM_Q, FA_ANIM_K, FA_ANIM_V, FA_ANIM_O, FA_ANIM_O,
                                              FA_ANIM_L, FA_ANIM_L, FA_ANIM_M, FA_ANIM_M, FA_ANIM_LSE};
    static const int rw[FA_ANIM_HEAT_ROWS] = {0, 0, 0, 0, 1, 0, 1, 0, 1, 1};
    static const char *const rn[FA_ANIM_HEAT_ROWS] = {"Q read",  "K read", "V read",  "O read",  "O write",
                                                      "l read",  "l write", "m read", "m write", "LSE write"};
    if (r < 0 || r >= FA_ANIM_HEAT_ROWS) return -1;
    *tensor = rp[r];
    *write = rw[r];
    *name = rn[r];
    return 0;
}

void fa_anim_heat_csv(FILE *f, const fa_anim_heat *h, const fa_algo *algos, int n)
{
    fprintf(f, "algo,row,tile,count,transfer\n");
    for (int k = 0; k < n; k++)
        for (int r = 0; r < FA_ANIM_HEAT_ROWS; r++) {
            int p, w;
            const char *name;
            fa_anim_heat_row(r, &p, &w, &name);
            for (int t = 0; t < fa_anim_heat_tiles(&h[k], p); t++)
                /* row and tile numbered from 1, as the captions and Algorithm 1 (Q_1 .. Q_T_r) */
                fprintf(f, "%s,%d,%d,%d,%s\n", fa_algo_name(algos[k]), r + 1, t + 1, h[k].n[p][w][t], name);
        }
}

int fa_anim_write_dat(FILE *ft, FILE *fl, FILE *fb, const fa_anim_frames *F)
{
    for (int f = 0; f < F->n; f++) {
        const fa_anim_tile *t = F->tile + (size_t)f * (size_t)F->n_tiles;
        for (int k = 0; k < F->n_tiles; k++)
            fprintf(ft, "%g %g %g %g %d\n", t[k].x, t[k].y, t[k].w, t[k].h, t[k].colour);
        fprintf(ft, "\n\n");
        fprintf(fl, "%g 1.0 \"%s\"\n", 3.5, "");
        fprintf(fl, "0 0.9 \"%s\"\n\n\n", F->frame[f].caption);
        for (int b = 0; b < FA_ANIM_NTENSOR; b++)
            fprintf(fb, "%d %s %" PRIu64 " %" PRIu64 "\n", b, fa_anim_tensor_names[b], F->frame[f].cum[b][0],
                    F->frame[f].cum[b][1]);
        fprintf(fb, "\n\n");
    }
    int bad = fflush(ft) != 0 || fflush(fl) != 0 || fflush(fb) != 0;
    return bad || ferror(ft) || ferror(fl) || ferror(fb) ? -1 : 0;
}

int fa_anim_remove_stale(const char *dir, int n)
{
    int k = 0;
    for (int f = n + 1; f <= 9999; f++, k++) {
        char path[1200];
        struct stat st;
        snprintf(path, sizeof path, "%s/frame_%04d.png", dir, f);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || unlink(path) != 0) break;
    }
    return k;
}
