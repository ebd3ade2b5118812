/* fa_animate.h -- what `fasim animate` draws, without the files and gnuplot: the tile transfers
 * of one forward pass recorded for slice (batch 0, head 0), the picture of each transfer (a frame:
 * tiles as x y w h colour records, a caption, the cumulative HBM bytes per tensor), and the
 * per-tile read and write counts of the heatmap.  analysis/animate.c; the command line
 * (analysis/cli/cmd_animate.c) takes the options, writes frames.dat, labels.dat, bytes.dat and
 * heatmap.csv from these structs and runs gnuplot (plots/anim_frames.gp, plots/anim_heatmap.gp).
 * Units: bytes; tile indices from 0; T_r = ceil(N_q / B_r), T_c = ceil(N_k / B_c).
 *
 * The picture (plot coordinates, y growing upwards; gnuplot draws a tile as a w x h box centred
 * at x, y): the columns of Q, K, V, O and the statistics (l, m or LSE) in HBM at x = 0.5, 2.1,
 * 3.7, 5.3, 6.9, tile t at y = -(t + 0.5) (Q, O, statistics: T_r tiles; K, V: T_c tiles), then
 * the T_r x T_c grid of score tiles, tile (i, j) at x = 8.5 + j, y = -(i + 0.5); every box
 * 0.45 x 0.45.  Colours (0xRRGGBB) below.  Errors follow fa_status.h. */
#ifndef FA_ANIMATE_H
#define FA_ANIMATE_H

#include <stdint.h>

#include "fa_analysis.h"
#include "fa_run.h"

#define FA_ANIM_MAX_TILES 16        /* T_r and T_c at most */
#define FA_ANIM_MAX_FRAMES 400      /* transfers of one animation (frames) at most */
#define FA_ANIM_MAX_RECORD 131072   /* transfers fa_anim_record keeps at most (2^17) */
#define FA_ANIM_NTENSOR 9           /* tensors of the byte chart */
/* tiles of one frame: the five columns and the score grid */
#define FA_ANIM_FRAME_TILES(T_r, T_c) (3 * (T_r) + 2 * (T_c) + (T_r) * (T_c))

/* The colours of the tiles. */
enum {
    FA_ANIM_IDLE = 0xdddddd,  /* a tile in HBM not yet written; a score tile not yet computed */
    FA_ANIM_SRAM = 0x9ecae1,  /* the last tile of the column read into SRAM, used again or not:
                                 until the column's next read replaces it (from that read's frame
                                 on) or its kernel ends (standard frees each kernel's buffers) */
    FA_ANIM_READ = 0x2171b5,  /* the tile of this frame's transfer, a read (HBM -> SRAM) */
    FA_ANIM_WRITE = 0xde2d26, /* the tile of this frame's transfer, a write (SRAM -> HBM) */
    FA_ANIM_DONE = 0xfcbba1,  /* a tile written before */
    FA_ANIM_COMP = 0xa1d99b,  /* a score tile computed in SRAM (flash1, flash2) */
    FA_ANIM_SDONE = 0xfec44f, /* standard: a tile of S written */
    FA_ANIM_PDONE = 0x31a354, /* standard: a tile of P written */
    FA_ANIM_SKIP = 0x636363   /* a score tile a causal or local mask skips (flash1, flash2) */
};

/* The tensors of the byte chart, in its order: Q K V O S P l m LSE. */
extern const char *const fa_anim_tensor_names[FA_ANIM_NTENSOR];

/* One tile transfer of slice (0, 0), as the memory model's sink saw it (sim/fa_sim.h). */
typedef struct {
    char tensor[FA_NAME_LEN]; /* "Q", "K", "S", "LSE", "mask" ... */
    int write;                /* 1: SRAM -> HBM, 0: HBM -> SRAM */
    int64_t row0, rows, col0, cols; /* the tile, in the tensor's rows and columns */
    uint64_t bytes;           /* rows * cols * the tensor's bytes per element */
    int kernel;               /* the kernel it belongs to (the sink's fa_transfer.kernel: standard
                                 runs three, flash1 and flash2 one) */
} fa_anim_transfer;

/* The transfers of one pass, in order. */
typedef struct {
    fa_anim_transfer *t; /* n of them (malloc'ed; fa_anim_record_free) */
    int n;
    uint64_t bytes;      /* their sum */
} fa_anim_record;

/* Runs the forward pass of algorithm a on shape s with tiles bk and an SRAM of M bytes in
 * count-only mode and records the transfers of batch 0, head 0 (every other slice runs and is
 * not kept).  *out is to be freed with fa_anim_record_free, also after an error.  Errors:
 * FA_ENOMEM; those of the pass (fa_run_pass: a shape or tiles it refuses, FA_ENOSRAM when the
 * buffers do not fit M); FA_EINVAL past FA_ANIM_MAX_RECORD transfers ("animate: too many
 * transfers to record"). */
fa_status fa_anim_record_pass(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M, fa_anim_record *out);
void fa_anim_record_free(fa_anim_record *r);

/* Refuses tiles animate cannot draw: FA_EINVAL when T_r or T_c exceeds FA_ANIM_MAX_TILES ("animate
 * draws at most 16 x 16 tiles; T_r = .., T_c = .. (use larger --block-r/--block-c or a shorter
 * --seqlen)").  bk must be positive. */
fa_status fa_anim_check_tiles(const fa_shape *s, fa_blocks bk);

/* The tiles animate draws on c->shape and the SRAM *M (bytes) they run in.  Without tiles given
 * (tiles_given 0; the caller counts a block mask as given: its tiles are --blocks fit's) 4 x 4
 * tiles, B_r = ceil(N_q / 4), B_c = ceil(N_k / 4), and M = c->sram: a picture, not a tuning;
 * else the tiles of c's rule (fa_run_tiles) and M = c->sram plus the paper rule's overflow.  Then
 * fa_anim_check_tiles.  Errors: those of fa_run_tiles (FA_ENOSRAM) and fa_anim_check_tiles. */
fa_status fa_anim_tiles(const fa_run_config *c, int tiles_given, fa_blocks *bk, uint64_t *M);

/* The algorithms drawn into out[0 .. *n): the heatmap compares flash1 and flash2 (*n = 2); a
 * picture draws one, first when n_given (the algorithms the command line named; 0: none) is 1,
 * else flash2.  Errors: FA_EINVAL "--heatmap compares flash1 and flash2; leave out --algo" (heatmap
 * with one algorithm named), "animate draws one algorithm: --algo flash1, flash2 or standard" (a
 * picture with several). */
fa_status fa_anim_algos(int heatmap, int n_given, fa_algo first, fa_algo out[2], int *n);

/* FA_OK when the buffers of each of algos[0 .. n) on tiles bk (fa_sram_need, bytes) fit M: animate
 * counts in the paper's model, where exceeding M is an error.  Errors: FA_ENOSRAM "ALGO's tiles
 * B_r = .., B_c = .. need N B (..) of SRAM, more than M = .. B (..)", with "; by default 4 x 4
 * tiles" when !tiles_given, and the options that help. */
fa_status fa_anim_check_sram(const fa_algo *algos, int n, const fa_shape *s, fa_blocks bk, uint64_t M, int tiles_given);

/* One box of a frame. */
typedef struct {
    double x, y, w, h; /* centre and size, plot units */
    int colour;        /* 0xRRGGBB, one of the FA_ANIM_* colours */
} fa_anim_tile;

/* One frame: the picture after transfer f of the record. */
typedef struct {
    char caption[128]; /* "step 3/44: read tile 1 of K (8192 B)" (f + 1 of n; the tile's index
                          in its column, row-major i T_c + j in the score grid) */
    uint64_t cum[FA_ANIM_NTENSOR][2]; /* bytes read [0] and written [1] per fa_anim_tensor_names
                                         tensor by transfers 0..f */
} fa_anim_frame;

/* The frames of an animation. */
typedef struct {
    int n;             /* frames, one per transfer of the record */
    int64_t t_r, t_c;  /* T_r, T_c */
    int n_tiles;       /* boxes per frame: FA_ANIM_FRAME_TILES(t_r, t_c) */
    fa_anim_tile *tile;   /* n * n_tiles boxes: frame f's at tile + f * n_tiles, the columns Q, K,
                             V, O, statistics top to bottom, then the score grid row by row */
    fa_anim_frame *frame; /* n frames */
    double ymax;       /* the largest cumulative byte count of any tensor (at least 1): the chart's
                          y range */
} fa_anim_frames;

/* The frames of the record rec of algorithm a (fa_anim_record_pass with the same s and bk).
 * Colours: a column's tile is READ or WRITE in the frame of its transfer, else SRAM when it is
 * the column's last tile read -- not in the frame that reads the column's next tile (the read
 * replaces it in the column's one buffer), nor after its kernel ended (the memory model's kernel
 * index of the transfers: standard frees each kernel's buffers, docs/io-model.md section 7) --,
 * DONE once written, else IDLE.  A score tile starts SKIP when a
 * mask skips it (flash1, flash2; fa_tile_classify) else IDLE; it turns COMP when flash2 reads the
 * V tile j for row block i, when flash1 reads Q tile i for key block j, when standard writes S's
 * tile (PDONE: P's); S's and P's tiles (and a dense mask's) are READ or WRITE in their frame.
 * *out is to be freed with fa_anim_frames_free, also after an error.  Errors: FA_EINVAL as
 * fa_anim_check_tiles, and beyond FA_ANIM_MAX_FRAMES transfers ("ALGO makes N transfers on this
 * shape; animate draws at most 400 frames (use fewer tiles: larger --block-r/--block-c)");
 * FA_ENOMEM. */
fa_status fa_anim_frames_make(fa_algo a, const fa_shape *s, fa_blocks bk, const fa_anim_record *rec,
                              fa_anim_frames *out);
void fa_anim_frames_free(fa_anim_frames *f);

/* The heatmap: how often each tile of Q, K, V, O and of the statistics (l, m: FlashAttention-1's
 * running row max and sum; LSE: FlashAttention-2's logsumexp; fp32, B_r values a tile) was read
 * and written. */
enum { FA_ANIM_Q = 0, FA_ANIM_K = 1, FA_ANIM_V = 2, FA_ANIM_O = 3, FA_ANIM_L = 4, FA_ANIM_M = 5, FA_ANIM_LSE = 6,
       FA_ANIM_HEAT_TENSORS = 7 };
#define FA_ANIM_HEAT_ROWS 10 /* the rows of heatmap.csv and the picture (fa_anim_heat_row) */
typedef struct {
    int64_t t_r, t_c; /* tiles of Q, O and the statistics (T_r), of K and V (T_c) */
    int n[FA_ANIM_HEAT_TENSORS][2][FA_ANIM_MAX_TILES]; /* n[tensor][0 read, 1 write][tile]: transfers
                                       of the tile (its rows' block: row0 / B_r for Q, O, l, m, LSE;
                                       row0 / B_c for K, V); 0 past t_r or t_c */
} fa_anim_heat;

/* Counts the transfers of rec (a record on shape s with tiles bk) per tile of Q, K, V, O, l, m and
 * LSE.  Closed forms (no mask): flash1 reads each Q tile T_c times, each K and V tile once, reads
 * each O, l and m tile T_c times and writes it T_c + 1 times (line 2's initialization), and has no
 * LSE; flash2 reads each Q tile once, each K and V tile T_r times, writes each O and LSE tile once,
 * and never moves l or m (they stay on chip).  Errors: FA_EINVAL as fa_anim_check_tiles. */
fa_status fa_anim_heatmap(const fa_anim_record *rec, const fa_shape *s, fa_blocks bk, fa_anim_heat *out);

/* The tiles of tensor (FA_ANIM_Q .. FA_ANIM_LSE) in a heatmap row: T_c for K and V, T_r else. */
int fa_anim_heat_tiles(const fa_anim_heat *h, int tensor);

/* Row r (0 .. FA_ANIM_HEAT_ROWS - 1) of the heatmap, top to bottom: Q read, K read, V read, O read,
 * O write, l read, l write, m read, m write, LSE write.  Its tensor (FA_ANIM_*), direction (0 read,
 * 1 write) and name ("l write"); -1 for r out of range. */
int fa_anim_heat_row(int r, int *tensor, int *write, const char **name);

/* heatmap.csv: "algo,row,tile,count,transfer", then for each of the n heatmaps h[k] (algorithm
 * algos[k]) its FA_ANIM_HEAT_ROWS rows in fa_anim_heat_row's order, one line per tile: row is the
 * row's index 0 .. 9 (the picture's line, top to bottom), tile the tile's index, count its
 * transfers, transfer the row's name ("Q read", .. "LSE write": fa_anim_heat_row). */
void fa_anim_heat_csv(FILE *f, const fa_anim_heat *h, const fa_algo *algos, int n);

/* gnuplot's input of frames F, each frame a block ended by two blank lines: ft (frames.dat) the
 * boxes "x y w h colour", fl (labels.dat) the captions, fb (bytes.dat) the cumulative bytes
 * "index name read written" per tensor; then flushes the three.  Returns 0, or -1 on a write
 * error (errno from the stream). */
int fa_anim_write_dat(FILE *ft, FILE *fl, FILE *fb, const fa_anim_frames *F);

/* Removes dir/frame_NNNN.png for NNNN = n + 1, n + 2, ... (up to 9999) while each is a plain
 * file: the frames of an earlier, longer animation into dir, so that dir holds one animation.  It
 * stops at the first that is missing or not a plain file (a link, a directory: left alone).
 * Returns how many it removed. */
int fa_anim_remove_stale(const char *dir, int n);

#endif
