/* cmd_animate.c -- `fasim animate`: the transfer trace of one algorithm turned into pictures.
 *
 * analysis/animate.c (fa_animate.h) records the tile transfers of slice (batch 0, head 0) of the
 * forward pass and computes each transfer's frame: Q, K, V, O and the statistics as columns of
 * tiles in HBM (the tile just read in blue, just written in red, the last tile of each tensor
 * loaded into SRAM in light blue), the T_r x T_c grid of score tiles (computed: green; skipped
 * under a causal mask: dark grey), and the cumulative HBM bytes per tensor.  Here: the options,
 * the files and gnuplot (plots/anim_frames.gp, plots/anim_draw.gp), which renders frame_NNNN.png
 * and anim.gif from frames.dat, labels.dat and bytes.dat, which stay beside them (gnuplot.log, its
 * messages, does not).  --heatmap instead prints how often each tile of Q, K, V, O was read and
 * written (fa_anim_heatmap), flash1 beside flash2, and draws heatmap.png (plots/anim_heatmap.gp).
 * The tiles must fit the SRAM M (--sram, else the --hw profile's), as in `fasim io`.  Every output
 * is opened before drawing and renamed into place only when all are drawn (cli_outset.h): a
 * failed run leaves no file behind. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_outset.h"
#include "fa_animate.h"

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
    "  --heatmap: how many times each tile of Q, K, V, O and of the statistics (l, m; LSE) was read\n"
    "  and written, flash1 vs flash2 (table on stdout, DIR/heatmap.csv, DIR/heatmap.png).\n"
    "  heatmap.csv: algo,row,tile,count,transfer -- row 1..10 the table's line (1 Q read, 2 K read,\n"
    "  3 V read, 4 O read, 5 O write, 6 l read, 7 l write, 8 m read, 9 m write, 10 LSE write),\n"
    "  transfer that line's name, tile the tile's number (row block i for Q, O, l, m, LSE; key block\n"
    "  j for K, V), count its transfers.\n"
    "  Every number a person reads counts from 1, as FlashAttention's Algorithm 1 numbers its blocks\n"
    "  (Q_i, i = 1 .. T_r; K_j, V_j, j = 1 .. T_c): steps, frames, tiles, heatmap rows.\n"
    "  Default: --algo flash2, N = 256, d = 64, 4 x 4 tiles (--block-r/--block-c or --blocks\n"
    "  choose others); the shape and mask options are those of fasim io, drawing only slice (0, 0).\n"
    "options:\n";
static const char *const animate_tail =
    "limits: T_r, T_c <= 16, the tiles fit M, at most 400 transfers per animation (exit 2 beyond).\n";

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
    uint64_t M;
    const fa_run_config c = cli_config(&o);
    fa_status st = fa_anim_tiles(&c, blocks_given, &bk, &M);
    if (st) return cli_fail(st);
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (strchr(out_dir, '\'')) { /* the paths go to gnuplot in single quotes */
        fprintf(stderr, "fasim: --out-dir '%s' must not contain a quote\n", out_dir);
        return EXIT_USAGE;
    }
    fa_algo algos[2];
    int na = 0;
    if ((st = fa_anim_algos(heatmap, explicit_algo ? o.n_algos : 0, (fa_algo)o.algos[0], algos, &na)) ||
        (st = fa_anim_check_sram(algos, na, s, bk, M, blocks_given)))
        return cli_fail(st);
    /* the transfers, then the heatmap's counts or the frames (analysis/animate.c) */
    fa_anim_record R[2] = {{0}, {0}};
    fa_anim_heat tc[2];
    fa_anim_frames F = {0};
    int out = 0;
    cli_outset os = {0};
    for (int k = 0; k < na; k++) {
        st = fa_anim_record_pass(algos[k], s, bk, M, &R[k]);
        if (!st) st = heatmap ? fa_anim_heatmap(&R[k], s, bk, &tc[k]) : fa_anim_frames_make(algos[k], s, bk, &R[k], &F);
        if (st) {
            out = cli_fail(st);
            goto done;
        }
    }
    /* Every output opened now, before any drawing: a path that cannot be written is exit 2 and
     * nothing is left; the temporaries are renamed into place only when all are drawn. */
    char vars[8192], b1[32], path[1100], msg[512];
    if ((out = cli_outset_mkdir(&os, out_dir))) goto done;
    snprintf(path, sizeof path, "%s/gnuplot.log", out_dir);
    const int i_log = cli_outset_add(&os, path, 0);
    if (i_log < 0) goto bad_path;
    char log[1100]; /* a copy: adding outputs moves os.file */
    snprintf(log, sizeof log, "%s", fa_outset_target(&os, i_log));
    if (heatmap) {
        snprintf(path, sizeof path, "%s/heatmap.csv", out_dir);
        const int i_csv = cli_outset_add(&os, path, 1);
        snprintf(path, sizeof path, "%s/heatmap.png", out_dir);
        const int i_png = i_csv < 0 ? -1 : cli_outset_add(&os, path, 0);
        if (i_png < 0) goto bad_path;
        FILE *f = os.file[i_csv].f;
        fa_anim_heat_csv(f, tc, algos, 2);
        if (fflush(f) != 0 || ferror(f)) {
            fprintf(stderr, "fasim: cannot write %s/heatmap.csv: %s\n", out_dir, strerror(errno));
            out = EXIT_RUN;
            goto done;
        }
        /* the bytes of one full tile of each row's tensor, for the picture's key: a statistics tile
         * (B_r fp32 values) is d e / 4 times smaller than a tile of Q or O */
        const int64_t e = (int64_t)fa_dtype_bytes(s->dtype);
        char bq[32], bk_[32], bv[32], bo[32], bs[32];
        fa_fmt_bytes((double)(bk.block_r * s->d * e), bq, sizeof bq);
        fa_fmt_bytes((double)(bk.block_c * s->d * e), bk_, sizeof bk_);
        fa_fmt_bytes((double)(bk.block_c * s->d_v * e), bv, sizeof bv);
        fa_fmt_bytes((double)(bk.block_r * s->d_v * e), bo, sizeof bo);
        fa_fmt_bytes((double)(bk.block_r * 4), bs, sizeof bs);
        snprintf(vars, sizeof vars,
                 "infile='%s'; outfile='%s'; tmax=%d; "
                 "sizes='a transfer moves one tile (full tiles, %s): Q_i %" PRId64 " x %" PRId64 " = %s, K_j %" PRId64
                 " x %" PRId64 " = %s, V_j %s, O_i %s; l_i, m_i, LSE_i: %" PRId64 " fp32 values = %s'",
                 fa_outset_target(&os, i_csv), fa_outset_target(&os, i_png), (int)(T_r > T_c ? T_r : T_c),
                 fa_dtype_name(s->dtype), bk.block_r, s->d, bq, bk.block_c, s->d, bk_, bv, bo, bk.block_r, bs);
        if (cli_gnuplot("anim_heatmap.gp", vars, log)) {
            fprintf(stderr, "fasim: gnuplot could not draw %s/heatmap.png: %s\n", out_dir, fa_file_last_line(log, msg, sizeof msg));
            out = EXIT_RUN;
            goto done;
        }
        fa_outset_drop(&os, i_log); /* gnuplot's messages: only for a failure's message */
        if ((out = cli_outset_commit(&os))) goto done;
        printf("tile reads and writes, batch 0 head 0: N_q=%" PRId64 " N_k=%" PRId64 " d=%" PRId64 ", tiles %" PRId64 " x %" PRId64
               " (T_r = %" PRId64 ", T_c = %" PRId64 ")%s\n",
               s->seqlen_q, s->seqlen_k, s->d, bk.block_r, bk.block_c, T_r, T_c, s->causal ? ", causal" : "");
        printf("  %-9s", "tile"); /* numbered from 1: Q_1 .. Q_T_r, K_1 .. K_T_c (Algorithm 1's i, j) */
        for (int64_t t = 1; t <= (T_r > T_c ? T_r : T_c); t++) printf(" %3" PRId64, t);
        printf("   (the tile's index: row block i for Q, O, l, m, LSE; key block j for K, V; a count: its "
               "transfers)\n");
        for (int k = 0; k < 2; k++) {
            printf("%s\n", fa_algo_name(algos[k]));
            for (int r = 0; r < FA_ANIM_HEAT_ROWS; r++) {
                int p, w;
                const char *name;
                fa_anim_heat_row(r, &p, &w, &name);
                printf("  %-9s", name);
                for (int t = 0; t < fa_anim_heat_tiles(&tc[k], p); t++) printf(" %3d", tc[k].n[p][w][t]);
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
        if (strcmp(fa_outset_target(&os, i), want) != 0) {
            fprintf(stderr, "fasim: cannot write %s: it is a link or a device (animate writes its frames as plain files)\n", path);
            goto bad_path;
        }
    }
    if (fa_anim_write_dat(os.file[i_dat[0]].f, os.file[i_dat[1]].f, os.file[i_dat[2]].f, &F)) {
        fprintf(stderr, "fasim: cannot write the frame data under %s: %s\n", out_dir, strerror(errno));
        out = EXIT_RUN;
        goto done;
    }
    snprintf(vars, sizeof vars,
             "dir='%s'; sfx='%s'; gif='%s'; fdat='%s'; ldat='%s'; bdat='%s'; nframes=%d; ymax=%.0f; tr=%" PRId64
             "; tc=%" PRId64 "; delay=%d; "
             "ttl='%s  N_q=%" PRId64 " N_k=%" PRId64 " d=%" PRId64 " %s%s, tiles %" PRId64 "x%" PRId64 ", batch 0 head 0'",
             out_dir, sfx, fa_outset_target(&os, i_gif), fa_outset_target(&os, i_dat[0]),
             fa_outset_target(&os, i_dat[1]), fa_outset_target(&os, i_dat[2]), R[0].n, F.ymax, T_r, T_c, (int)delay,
             fa_algo_name(algos[0]), s->seqlen_q, s->seqlen_k, s->d, fa_dtype_name(s->dtype), s->causal ? " causal" : "",
             bk.block_r, bk.block_c);
    if (cli_gnuplot("anim_frames.gp", vars, log)) {
        fprintf(stderr, "fasim: gnuplot could not draw the frames under %s: %s\n", out_dir, fa_file_last_line(log, msg, sizeof msg));
        out = EXIT_RUN;
        goto done;
    }
    fa_outset_drop(&os, i_log); /* gnuplot's messages: only for a failure's message */
    if ((out = cli_outset_commit(&os))) goto done;
    int stale = fa_anim_remove_stale(out_dir, R[0].n);
    printf("%s: %d transfers of batch 0 head 0 (%s), T_r = %" PRId64 ", T_c = %" PRId64 "; steps, frames and tiles "
           "numbered from 1, as Algorithm 1 numbers Q_i (i = 1 .. T_r) and K_j, V_j (j = 1 .. T_c)\n",
           fa_algo_name(algos[0]), R[0].n, fa_fmt_bytes((double)R[0].bytes, b1, sizeof b1), T_r, T_c);
    printf("wrote %s/frame_0001.png .. frame_%04d.png, anim.gif and their data frames.dat, labels.dat, bytes.dat\n",
           out_dir, R[0].n);
    if (stale > 0)
        printf("removed frame_%04d.png .. frame_%04d.png of an earlier run\n", R[0].n + 1, R[0].n + stale);
    goto done;
bad_path: /* its message printed */
    out = EXIT_USAGE;
done:
    if (out) fa_outset_abort(&os);
    fa_anim_record_free(&R[0]);
    fa_anim_record_free(&R[1]);
    fa_anim_frames_free(&F);
    return out;
}
