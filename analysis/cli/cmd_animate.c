/* cmd_animate.c -- `fasim animate`: the transfer trace of one algorithm turned into pictures.
 *
 * Runs the forward pass in count-only mode with a sink (sim/fa_sim.h) that records every tile
 * transfer of slice (batch 0, head 0).  One frame per transfer: Q, K, V, O and the statistics as
 * columns of tiles in HBM (the tile just read in blue, just written in red, the last tile of each
 * tensor loaded into SRAM in light blue), the T_r x T_c grid of score tiles (computed: green;
 * skipped under a causal mask: dark grey), and the cumulative HBM bytes per tensor.  gnuplot
 * (plots/anim_frames.gp, plots/anim_draw.gp) renders frame_NNNN.png and anim.gif from frames.dat,
 * labels.dat and bytes.dat, which stay beside them (gnuplot.log, its messages, does not).
 * --heatmap instead counts how often each tile of Q, K, V, O was read and written, flash1 beside
 * flash2, prints the table and draws heatmap.png (plots/anim_heatmap.gp).
 * The tiles must fit the SRAM M (--sram, else the --hw profile's), as in `fasim io`.  Every output
 * is opened before drawing and renamed into place only when all are drawn (cli_outset.h): a
 * failed run leaves no file behind. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_outset.h"

extern char **environ;

#define ANIM_MAX_TILES 16   /* T_r and T_c at most */
#define ANIM_MAX_FRAMES 400 /* transfers of slice (0, 0) */

static const char *const animate_head =
    "usage: fasim animate [--algo flash1|flash2|standard] [shape options] --out-dir DIR\n"
    "       fasim animate --heatmap [shape options] --out-dir DIR\n"
    "  Draws the HBM<->SRAM tile transfers of one forward pass (batch 0, head 0): one PNG per\n"
    "  transfer (DIR/frame_NNNN.png) and DIR/anim.gif -- Q, K, V, O and statistics as tiles in\n"
    "  HBM, the tile moving now (blue read, red write), the tiles in SRAM, the score tiles computed\n"
    "  (grey: skipped by a causal mask), cumulative HBM bytes per tensor.  Beside them, the data\n"
    "  gnuplot draws, one block per frame: DIR/frames.dat (x y w h colour of every tile),\n"
    "  DIR/labels.dat (the captions) and DIR/bytes.dat (per tensor: index name read write bytes).\n"
    "  Frames of an earlier run into DIR numbered past this run's last are removed.\n"
    "  --heatmap: how many times each tile of Q, K, V, O was read and written, flash1 vs flash2\n"
    "  (table on stdout, DIR/heatmap.csv, DIR/heatmap.png).\n"
    "  Default: --algo flash2, N = 256, d = 64, 4 x 4 tiles (--block-r/--block-c or --blocks\n"
    "  choose others); the shape and mask options are those of fasim io, drawing only slice (0, 0).\n"
    "options:\n";
static const char *const animate_tail =
    "limits: T_r, T_c <= 16, the tiles fit M, at most 400 transfers per animation (exit 2 beyond).\n";

/* Removes DIR/frame_NNNN.png for NNNN = n + 1, n + 2, ... while each is a plain file (an
 * earlier, longer animation into the same directory), so that DIR holds one animation.
 * Returns how many were removed. */
static int remove_stale_frames(const char *dir, int n)
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

typedef struct {
    char tensor[FA_NAME_LEN];
    int write;
    int64_t row0, rows, col0, cols;
    uint64_t bytes;
} rec;

typedef struct {
    rec *r;
    int n, cap, overflow;
} recorder;

static void sink(void *ctx, const fa_transfer *t)
{
    recorder *R = ctx;
    if (t->b != 0 || t->h != 0) return;
    if (R->n == R->cap) {
        if (R->cap >= 100000) {
            R->overflow = 1;
            return;
        }
        int nc = R->cap ? 2 * R->cap : 256;
        rec *p = realloc(R->r, (size_t)nc * sizeof *p);
        if (!p) {
            R->overflow = 1;
            return;
        }
        R->r = p;
        R->cap = nc;
    }
    rec *x = &R->r[R->n++];
    snprintf(x->tensor, sizeof x->tensor, "%s", t->tensor->name);
    x->write = t->write;
    x->row0 = t->row0;
    x->rows = t->rows;
    x->col0 = t->col0;
    x->cols = t->cols;
    x->bytes = t->bytes;
}

static fa_status record(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M, recorder *R)
{
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, M);
    if (!mem) return FA_ENOMEM;
    fa_mem_set_sink(mem, sink, R);
    fa_status st = fa_run_pass(FA_PASS_FWD, a, mem, s, bk);
    fa_mem_free(mem);
    if (!st && R->overflow) FA_FAIL(FA_EINVAL, "animate: too many transfers to record");
    return st;
}

/* Runs gnuplot on plots/<script>; its messages go to the file log.  0 on success. */
static int run_gnuplot(const char *script, const char *vars, const char *log)
{
    char path[1200];
    const char *dir = getenv("FASIM_PLOTS_DIR");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : FASIM_PLOTS_DIR, script);
    char *argv[] = {"gnuplot", "-e", (char *)vars, path, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return -1;
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int bad = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ) != 0;
    posix_spawn_file_actions_destroy(&fa);
    if (bad) return -1;
    int status;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The last non-empty line of gnuplot's log (for the one-line error message). */
static const char *log_tail(const char *log, char *buf, size_t n)
{
    snprintf(buf, n, "no message");
    FILE *f = fopen(log, "r");
    if (!f) return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        line[l] = '\0';
        if (l > 0) snprintf(buf, n, "%s", line);
    }
    fclose(f);
    return buf;
}

/* Panels: index, name, x of the column, whether its rows are query rows (else key rows). */
enum { P_Q, P_K, P_V, P_O, P_STAT, NPANEL };
static const double panel_x[NPANEL] = {0, 1.6, 3.2, 4.8, 6.4};

static int panel_of(const char *t)
{
    if (!strcmp(t, "Q")) return P_Q;
    if (!strcmp(t, "K")) return P_K;
    if (!strcmp(t, "V")) return P_V;
    if (!strcmp(t, "O")) return P_O;
    if (!strcmp(t, "l") || !strcmp(t, "m") || !strcmp(t, "LSE")) return P_STAT;
    return -1; /* S, P: the score grid */
}

enum { C_IDLE = 0xdddddd, C_SRAM = 0x9ecae1, C_READ = 0x2171b5, C_WRITE = 0xde2d26, C_DONE = 0xfcbba1,
       C_COMP = 0xa1d99b, C_SKIP = 0x636363 };

/* Names of the tensors in the byte chart, in a fixed order. */
static const char *const bar_names[] = {"Q", "K", "V", "O", "S", "P", "l", "m", "LSE"};
#define NBAR 9

/* Writes the tiles (ft: frames.dat), captions (fl: labels.dat) and cumulative bytes (fb:
 * bytes.dat) of every frame and flushes them.  0, or -1 on a write error. */
static int write_frames(FILE *ft, FILE *fl, FILE *fb, fa_algo a, const fa_shape *s, fa_blocks bk, const recorder *R,
                        double *ymax)
{
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    int sram[NPANEL], done[NPANEL][ANIM_MAX_TILES];
    memset(done, 0, sizeof done);
    for (int p = 0; p < NPANEL; p++) sram[p] = -1;
    int grid[ANIM_MAX_TILES][ANIM_MAX_TILES];
    for (int i = 0; i < T_r; i++)
        for (int j = 0; j < T_c; j++) {
            int64_t r0 = i * bk.block_r, c0 = j * bk.block_c;
            int64_t rows = fa_tile_len(r0, s->seqlen_q, bk.block_r);
            int64_t cols = fa_tile_len(c0, s->seqlen_k, bk.block_c);
            grid[i][j] = (a != FA_ALGO_STANDARD && fa_tile_classify(s, r0, rows, c0, cols) == FA_TILE_SKIP) ? C_SKIP : C_IDLE;
        }
    uint64_t cum[NBAR][2];
    memset(cum, 0, sizeof cum);
    *ymax = 1;
    int qi = -1, kj = -1;
    for (int f = 0; f < R->n; f++) {
        const rec *x = &R->r[f];
        int p = panel_of(x->tensor);
        int qside = p == P_Q || p == P_O || p == P_STAT || p < 0;
        int ti = (int)(x->row0 / (qside ? bk.block_r : bk.block_c));
        int tj = p < 0 ? (int)(x->col0 / bk.block_c) : 0;
        for (int b = 0; b < NBAR; b++)
            if (!strcmp(bar_names[b], x->tensor)) {
                cum[b][x->write] += x->bytes;
                if ((double)cum[b][x->write] > *ymax) *ymax = (double)cum[b][x->write];
            }
        /* which score tile this step works on */
        if (p == P_Q) qi = ti;
        if (p == P_K) kj = ti;
        if (a == FA_ALGO_FLASH2 && p == P_V && qi >= 0) grid[qi][ti] = C_COMP;
        if (a == FA_ALGO_FLASH1 && p == P_Q && kj >= 0) grid[ti][kj] = C_COMP;
        if (p < 0 && x->write) grid[ti][tj] = !strcmp(x->tensor, "S") ? C_COMP : 0x31a354;
        /* tiles of the columns */
        for (int q = 0; q < NPANEL; q++) {
            int n = (q == P_K || q == P_V) ? (int)T_c : (int)T_r;
            for (int t = 0; t < n; t++) {
                int c = done[q][t] ? C_DONE : C_IDLE;
                if (t == sram[q]) c = C_SRAM;
                if (q == p && t == ti) c = x->write ? C_WRITE : C_READ;
                fprintf(ft, "%g %g 0.45 0.45 %d\n", panel_x[q] + 0.5, -(t + 0.5), c);
            }
        }
        for (int i = 0; i < T_r; i++)
            for (int j = 0; j < T_c; j++) {
                int c = grid[i][j];
                if (p < 0 && i == ti && j == tj) c = x->write ? C_WRITE : C_READ;
                fprintf(ft, "%g %g 0.45 0.45 %d\n", 8.0 + j + 0.5, -(i + 0.5), c);
            }
        fprintf(ft, "\n\n");
        if (p >= 0) {
            if (x->write) done[p][ti] = 1;
            else sram[p] = ti;
        }
        fprintf(fl, "%g 1.0 \"%s\"\n", 3.5, "");
        fprintf(fl, "0 0.9 \"step %d/%d: %s tile %d of %s (%" PRIu64 " B)\"\n\n\n", f + 1, R->n,
                x->write ? "write" : "read", p < 0 ? ti * (int)T_c + tj : ti, x->tensor, x->bytes);
        for (int b = 0; b < NBAR; b++) fprintf(fb, "%d %s %" PRIu64 " %" PRIu64 "\n", b, bar_names[b], cum[b][0], cum[b][1]);
        fprintf(fb, "\n\n");
    }
    int bad = fflush(ft) != 0 || fflush(fl) != 0 || fflush(fb) != 0;
    return bad || ferror(ft) || ferror(fl) || ferror(fb) ? -1 : 0;
}

/* Per-tile read and write counts of Q, K, V, O (slice 0, 0). */
typedef struct {
    int n[4][2][ANIM_MAX_TILES];
} tilecount;

static void count_tiles(const recorder *R, fa_blocks bk, tilecount *c)
{
    memset(c, 0, sizeof *c);
    for (int f = 0; f < R->n; f++) {
        int p = panel_of(R->r[f].tensor);
        if (p < 0 || p > P_O) continue;
        int t = (int)(R->r[f].row0 / ((p == P_K || p == P_V) ? bk.block_c : bk.block_r));
        if (t < ANIM_MAX_TILES) c->n[p][R->r[f].write][t]++;
    }
}

/* animate's own options */
typedef struct {
    const char *out_dir;
    int64_t delay;
    int heatmap;
} anim_args;

static int take_anim(void *ctx, cli_opts *o, int id, const char *name, const char *val)
{
    (void)o;
    anim_args *a = ctx;
    switch (id) {
    case O_OUT_DIR:
        if (!val || !*val) return cli_usage("--out-dir needs a directory");
        a->out_dir = val;
        return 0;
    case O_DELAY: return cli_int(name, val, 1, 1000, &a->delay);
    case O_HEATMAP: a->heatmap = 1; return 0;
    }
    return cli_usage("%s: not an animate option", name);
}

int cmd_animate(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "animate", animate_head, animate_tail);
        return 0;
    }
    anim_args aa = {.delay = 40};
    cli_opts o;
    int rc = cli_parse_cmd(argc, argv, &o, take_anim, &aa);
    if (rc) return rc;
    const int heatmap = aa.heatmap, explicit_algo = o.algo_given;
    const int64_t delay = aa.delay;
    const char *out_dir = aa.out_dir;
    /* tiles given (a block mask counts: its tiles come from --blocks fit, not 4 x 4) */
    const int blocks_given = o.block_r > 0 || o.block_c > 0 || o.given[O_BLOCKS] || o.block_mask_path;
    if (o.shape.seqlen_q < 0) o.shape.seqlen_q = 256;
    if (o.shape.d < 0) o.shape.d = 64;
    if ((rc = cli_resolve(&o))) return rc;
    if (!out_dir) {
        fprintf(stderr, "fasim: animate needs --out-dir DIR\n");
        return EXIT_USAGE;
    }
    fa_shape *s = &o.shape;
    fa_blocks bk;
    uint64_t over = 0;
    if (!blocks_given) { /* 4 x 4 tiles by default: a picture, not a tuning */
        bk.block_r = fa_cdiv(s->seqlen_q, 4);
        bk.block_c = fa_cdiv(s->seqlen_k, 4);
    } else {
        fa_status st = cli_blocks(&o, &bk, &over);
        if (st) return cli_fail(st);
    }
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (T_r > ANIM_MAX_TILES || T_c > ANIM_MAX_TILES) {
        fprintf(stderr, "fasim: animate draws at most %d x %d tiles; T_r = %" PRId64 ", T_c = %" PRId64
                        " (use larger --block-r/--block-c or a shorter --seqlen)\n",
                ANIM_MAX_TILES, ANIM_MAX_TILES, T_r, T_c);
        return EXIT_USAGE;
    }
    if (strchr(out_dir, '\'')) { /* the paths go to gnuplot in single quotes */
        fprintf(stderr, "fasim: --out-dir '%s' must not contain a quote\n", out_dir);
        return EXIT_USAGE;
    }
    uint64_t M = o.sram + over; /* --blocks paper: M enlarged to fit, as in fasim io */
    fa_algo algos[2];
    int na = 0;
    if (heatmap) {
        if (explicit_algo && o.n_algos == 1) {
            fprintf(stderr, "fasim: --heatmap compares flash1 and flash2; leave out --algo\n");
            return EXIT_USAGE;
        }
        algos[na++] = FA_ALGO_FLASH1;
        algos[na++] = FA_ALGO_FLASH2;
    } else {
        if (explicit_algo && o.n_algos != 1) {
            fprintf(stderr, "fasim: animate draws one algorithm: --algo flash1, flash2 or standard\n");
            return EXIT_USAGE;
        }
        algos[na++] = explicit_algo ? (fa_algo)o.algos[0] : FA_ALGO_FLASH2;
    }
    /* the SRAM must hold the tiles of every algorithm drawn (README: exceeding M is an error) */
    for (int k = 0; k < na; k++) {
        uint64_t need = fa_sram_need(algos[k], s, bk);
        if (need > M) {
            char b2[32], b3[32];
            fprintf(stderr, "fasim: %s's tiles B_r = %" PRId64 ", B_c = %" PRId64 " need %" PRIu64 " B (%s) of SRAM, "
                            "more than M = %" PRIu64 " B (%s)%s (use smaller --block-r/--block-c, a shorter --seqlen "
                            "or a larger --sram)\n",
                    fa_algo_name(algos[k]), bk.block_r, bk.block_c, need, cli_bytes((double)need, b2, sizeof b2), M,
                    cli_bytes((double)M, b3, sizeof b3), blocks_given ? "" : "; by default 4 x 4 tiles");
            return EXIT_USAGE;
        }
    }
    recorder R[2] = {{0}, {0}};
    int out = 0;
    cli_outset os = {0};
    for (int k = 0; k < na; k++) {
        fa_status st = record(algos[k], s, bk, M, &R[k]);
        if (st) {
            out = cli_fail(st);
            goto done;
        }
    }
    if (!heatmap && R[0].n > ANIM_MAX_FRAMES) {
        fprintf(stderr, "fasim: %s makes %d transfers on this shape; animate draws at most %d frames "
                        "(use fewer tiles: larger --block-r/--block-c)\n",
                fa_algo_name(algos[0]), R[0].n, ANIM_MAX_FRAMES);
        out = EXIT_USAGE;
        goto done;
    }
    /* Every output opened now, before any drawing: a path that cannot be written is exit 2 and
     * nothing is left; the temporaries are renamed into place only when all are drawn. */
    char vars[8192], b1[32], path[1100], msg[512];
    if ((out = cli_outset_mkdir(&os, out_dir))) goto done;
    snprintf(path, sizeof path, "%s/gnuplot.log", out_dir);
    const int i_log = cli_outset_add(&os, path, 0);
    if (i_log < 0) goto bad_path;
    char log[1100]; /* a copy: adding outputs moves os.file */
    snprintf(log, sizeof log, "%s", cli_outset_target(&os, i_log));
    if (heatmap) {
        snprintf(path, sizeof path, "%s/heatmap.csv", out_dir);
        const int i_csv = cli_outset_add(&os, path, 1);
        snprintf(path, sizeof path, "%s/heatmap.png", out_dir);
        const int i_png = i_csv < 0 ? -1 : cli_outset_add(&os, path, 0);
        if (i_png < 0) goto bad_path;
        tilecount tc[2];
        static const char *const rowname[] = {"Q read", "K read", "V read", "O read", "O write"};
        static const int rp[] = {P_Q, P_K, P_V, P_O, P_O}, rw[] = {0, 0, 0, 0, 1};
        FILE *f = os.file[i_csv].f;
        fprintf(f, "algo,row,tile,count\n");
        for (int k = 0; k < 2; k++) {
            count_tiles(&R[k], bk, &tc[k]);
            for (int r = 0; r < 5; r++) {
                int n = (rp[r] == P_K || rp[r] == P_V) ? (int)T_c : (int)T_r;
                for (int t = 0; t < n; t++)
                    fprintf(f, "%s,%d,%d,%d\n", fa_algo_name(algos[k]), r, t, tc[k].n[rp[r]][rw[r]][t]);
            }
        }
        if (fflush(f) != 0 || ferror(f)) {
            fprintf(stderr, "fasim: cannot write %s/heatmap.csv: %s\n", out_dir, strerror(errno));
            out = EXIT_RUN;
            goto done;
        }
        snprintf(vars, sizeof vars, "infile='%s'; outfile='%s'; tmax=%d", cli_outset_target(&os, i_csv),
                 cli_outset_target(&os, i_png), (int)(T_r > T_c ? T_r : T_c));
        if (run_gnuplot("anim_heatmap.gp", vars, log)) {
            fprintf(stderr, "fasim: gnuplot could not draw %s/heatmap.png: %s\n", out_dir, log_tail(log, msg, sizeof msg));
            out = EXIT_RUN;
            goto done;
        }
        cli_outset_drop(&os, i_log); /* gnuplot's messages: only for a failure's message */
        if ((out = cli_outset_commit(&os))) goto done;
        printf("tile reads and writes, batch 0 head 0: N_q=%" PRId64 " N_k=%" PRId64 " d=%" PRId64 ", tiles %" PRId64 " x %" PRId64
               " (T_r = %" PRId64 ", T_c = %" PRId64 ")%s\n",
               s->seqlen_q, s->seqlen_k, s->d, bk.block_r, bk.block_c, T_r, T_c, s->causal ? ", causal" : "");
        for (int k = 0; k < 2; k++) {
            printf("%s\n", fa_algo_name(algos[k]));
            for (int r = 0; r < 5; r++) {
                int n = (rp[r] == P_K || rp[r] == P_V) ? (int)T_c : (int)T_r;
                printf("  %-8s", rowname[r]);
                for (int t = 0; t < n; t++) printf(" %3d", tc[k].n[rp[r]][rw[r]][t]);
                printf("\n");
            }
        }
        printf("wrote %s/heatmap.csv, %s/heatmap.png\n", out_dir, out_dir);
        goto done;
    }
    /* frames.dat, labels.dat, bytes.dat (gnuplot's input), frame_NNNN.png, anim.gif */
    int i_dat[3];
    static const char *const dat[3] = {"frames.dat", "labels.dat", "bytes.dat"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", out_dir, dat[k]);
        if ((i_dat[k] = cli_outset_add(&os, path, 1)) < 0) goto bad_path;
    }
    snprintf(path, sizeof path, "%s/anim.gif", out_dir);
    const int i_gif = cli_outset_add(&os, path, 0);
    if (i_gif < 0) goto bad_path;
    /* gnuplot names the frames dir/frame_%04d.png + sfx: each must be a plain file there */
    char sfx[32];
    snprintf(sfx, sizeof sfx, ".tmp.%ld", (long)getpid());
    for (int f = 0; f < R[0].n; f++) {
        char want[1200];
        snprintf(path, sizeof path, "%s/frame_%04d.png", out_dir, f + 1);
        int i = cli_outset_add(&os, path, 0);
        if (i < 0) goto bad_path;
        snprintf(want, sizeof want, "%s%s", path, sfx);
        if (strcmp(cli_outset_target(&os, i), want) != 0) {
            fprintf(stderr, "fasim: cannot write %s: it is a link or a device (animate writes its frames as plain files)\n", path);
            goto bad_path;
        }
    }
    double ymax;
    if (write_frames(os.file[i_dat[0]].f, os.file[i_dat[1]].f, os.file[i_dat[2]].f, algos[0], s, bk, &R[0], &ymax)) {
        fprintf(stderr, "fasim: cannot write the frame data under %s: %s\n", out_dir, strerror(errno));
        out = EXIT_RUN;
        goto done;
    }
    snprintf(vars, sizeof vars,
             "dir='%s'; sfx='%s'; gif='%s'; fdat='%s'; ldat='%s'; bdat='%s'; nframes=%d; ymax=%.0f; tr=%" PRId64
             "; tc=%" PRId64 "; delay=%d; "
             "ttl='%s  N_q=%" PRId64 " N_k=%" PRId64 " d=%" PRId64 " %s%s, tiles %" PRId64 "x%" PRId64 ", batch 0 head 0'",
             out_dir, sfx, cli_outset_target(&os, i_gif), cli_outset_target(&os, i_dat[0]),
             cli_outset_target(&os, i_dat[1]), cli_outset_target(&os, i_dat[2]), R[0].n, ymax, T_r, T_c, (int)delay,
             fa_algo_name(algos[0]), s->seqlen_q, s->seqlen_k, s->d, fa_dtype_name(s->dtype), s->causal ? " causal" : "",
             bk.block_r, bk.block_c);
    if (run_gnuplot("anim_frames.gp", vars, log)) {
        fprintf(stderr, "fasim: gnuplot could not draw the frames under %s: %s\n", out_dir, log_tail(log, msg, sizeof msg));
        out = EXIT_RUN;
        goto done;
    }
    cli_outset_drop(&os, i_log); /* gnuplot's messages: only for a failure's message */
    if ((out = cli_outset_commit(&os))) goto done;
    int stale = remove_stale_frames(out_dir, R[0].n);
    uint64_t tot = 0;
    for (int f = 0; f < R[0].n; f++) tot += R[0].r[f].bytes;
    printf("%s: %d transfers of batch 0 head 0 (%s), T_r = %" PRId64 ", T_c = %" PRId64 "\n", fa_algo_name(algos[0]), R[0].n,
           cli_bytes((double)tot, b1, sizeof b1), T_r, T_c);
    printf("wrote %s/frame_0001.png .. frame_%04d.png, anim.gif and their data frames.dat, labels.dat, bytes.dat\n",
           out_dir, R[0].n);
    if (stale > 0)
        printf("removed frame_%04d.png .. frame_%04d.png of an earlier run\n", R[0].n + 1, R[0].n + stale);
    goto done;
bad_path: /* its message printed */
    out = EXIT_USAGE;
done:
    if (out) cli_outset_abort(&os);
    free(R[0].r);
    free(R[1].r);
    return out;
}
