/* fa_report.h -- the tables of `fasim report`, the main job (analysis/report.c): real model
 * shapes on the hardware profiles, computed here and printed by analysis/cli/cmd_report.c.
 *
 * Every function fills structs and returns an fa_status with a message (fa_last_error), the way
 * analysis/io.c does: nothing here prints, exits or writes a file.  The inputs: the model
 * configs (fa_report_list_models, fa_report_model_load) and the GPUs (fa_report_load_hw).  The
 * sections, in the order the report prints them:
 *  - per model and GPU, one attention layer of the three algorithms, each run as its real kernel
 *    (fa_report_model_rows; report.csv);
 *  - training: GPT-2 medium's shape, forward, backward and both (fa_report_training), the HBM
 *    footprint vs N (fa_report_memory_vs_n; memory_vs_n.csv) and the N at which each algorithm
 *    runs out of device memory (fa_report_oom);
 *  - long context: a sliding window against full causal attention (fa_report_long_context;
 *    long_context.csv);
 *  - the kernels table: every profile that runs on each GPU (fa_report_kernels; kernels.csv);
 *  - the FlashAttention papers' figures beside the time model (fa_report_papers; papers.csv);
 *  - the plots' data: HBM bytes vs N, vs M and vs the tile size (fa_report_hbm_vs_n,
 *    fa_report_hbm_vs_sram, fa_report_hbm_vs_block; hbm_vs_*.csv).
 * The decoding section is fasim's inference code (analysis/infer.c, printed by cmd_infer.c).
 *
 * Units: bytes, FLOPs (FMA = 2), seconds, TFLOP/s (the FlashAttention-2 convention).  The
 * derivations: docs/io-model.md (counts and closed forms), docs/io-model-backward.md (the
 * footprint), docs/time-model.md (the kernel profiles and the time model). */
#ifndef FA_REPORT_H
#define FA_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "fa_analysis.h"
#include "fa_papers.h"
#include "fa_perf.h"

#define FA_REPORT_MAX_MODELS 32 /* model files one report reads */
#define FA_REPORT_MAX_HW 3      /* hardware profiles one report compares */

/* ---- the models ---- */

/* One model of the report: its config file, the file's stem (file names of its outputs) and the
 * shapes read from it. */
typedef struct {
    char path[1024];
    char stem[128];
    fa_model m;
} fa_report_model;

/* The directory of the shipped model configs: the environment variable FASIM_MODELS_DIR when
 * set, else the built-in one (analysis/models of the source tree). */
const char *fa_report_models_dir(void);

/* Lists the *.json files of directory dir (NULL: fa_report_models_dir()) into ms[0 .. *n), at
 * most max of them, sorted by path; only path is filled (fa_report_model_load reads them).
 * Errors: FA_EIO "cannot open the models directory DIR: REASON" (*n = 0), FA_EINVAL when the
 * directory holds more than max (none is left out silently). */
fa_status fa_report_list_models(const char *dir, fa_report_model *ms, int max, int *n);

/* The stem of path: its last component without the extension, every character other than
 * letters, digits, '-', '_' and '.' replaced by '_' ("analysis/models/llama-3-8b.json" ->
 * "llama-3-8b"); at most n - 1 characters. */
void fa_report_stem(const char *path, char *out, size_t n);

/* Reads me->path (fa_model_load) into me->m and sets me->stem.  Errors: those of fa_model_load
 * (FA_EIO a missing file, FA_EINVAL a malformed one). */
fa_status fa_report_model_load(fa_report_model *me);

/* The shape of one attention layer of model m: B = batch, H, H_kv, d and d_v from the model,
 * N_q = N_k = seqlen (seqlen <= 0: the model's max_position_embeddings), causal (bottom-right),
 * the model's dtype (bf16 for a model stored in float32: the FlashAttention kernels take
 * fp16/bf16; the report says so), scale and softcap, and its sliding window of W tokens (window_left = W - 1,
 * window_right = 0) when every layer uses one shorter than N.  A model of two layer types
 * (fa_report_model_kinds) gets its full-attention layers' shape here. */
fa_shape fa_report_model_shape(const fa_model *m, int64_t batch, int64_t seqlen);

/* 1 when model m has sliding-window layers whose window of W tokens covers seqlen_k keys (W >= N_k:
 * the window masks no key, so those layers are full causal attention at this N), 0 otherwise. */
int fa_report_window_covers(const fa_model *m, int64_t seqlen_k);

/* The layer types of model m: returns 1 (every layer alike: s[0] = fa_report_model_shape,
 * layers[0] = m->layers) or 2 (full and sliding-window layers, e.g. Gemma-2's alternation:
 * s[0] the full layers', layers[0] = m->layers - m->n_sliding; s[1] the same shape with the
 * window, layers[1] = m->n_sliding).  A window of at least N tokens is full attention. */
int fa_report_model_kinds(const fa_model *m, int64_t batch, int64_t seqlen, fa_shape s[2], int64_t layers[2]);

/* The model whose shape the hbm_vs_sram / hbm_vs_block plots take: the last of ms[0 .. n) whose
 * stem contains "llama" (0 when none does). */
int fa_report_plot_model(const fa_report_model *ms, int n);

/* The model of the long-context section: the first of ms[0 .. n) whose every layer has a sliding
 * window (Mistral-7B; a model of both layer types, as Gemma-2/3, is passed over); -1 when none
 * has (the report then says so and writes no long_context.csv). */
int fa_report_window_model(const fa_report_model *ms, int n);

/* 1 when name (a file name, no directory) is one fasim report writes under its --out-dir: report.csv,
 * kernels.csv, papers.csv, decode.csv, long_context.csv, cp.csv, cp_time_vs_p.png, memory_vs_n.csv/.png,
 * hbm_vs_sram.csv/.png, hbm_vs_block.csv/.png, and hbm_vs_n_<stem>.csv/.png; else 0.  The report
 * removes such a file an earlier run left that this run did not write (analysis/cli/cmd_report.c),
 * and no other. */
int fa_report_owns_file(const char *name);
/* 1 when name is the temporary of such a file, "<name>.tmp.<pid>" (analysis/fa_outfile.h: an
 * output is written there and renamed at the end), with *pid the process that made it (a
 * positive decimal, at most 9 digits); else 0.  A report killed while writing leaves these; the
 * next one removes those whose process no longer runs. */
int fa_report_owns_temporary(const char *name, long *pid);

/* ---- the hardware ---- */

/* The report's GPUs when none is asked for: a100, h100, h200. */
extern const char *const fa_report_default_hw[FA_REPORT_MAX_HW];

/* Loads the hardware profiles keys[0 .. nh) (fa_hw_load from the built-in directory) into
 * hw[0 .. *n); keys NULL or nh = 0: fa_report_default_hw.  Errors: FA_EINVAL for nh above
 * FA_REPORT_MAX_HW and for a profile given twice ("--hw KEY given twice (each profile once)":
 * each table would be printed twice), those of fa_hw_load (the first key that fails). */
fa_status fa_report_load_hw(const char *const *keys, int nh, fa_hw hw[FA_REPORT_MAX_HW], int *n);

/* ---- running an algorithm ---- */

/* Pass p of algorithm a as its real kernel runs it: the algorithm's kernel profile
 * (fa_profile_default: standard eager, flash1 fa1, flash2 fa2), its tile table and placement,
 * and the time model (fa_perf_predict: bytes and matmul FLOPs from the closed form); r holds the
 * counts with the prediction (fa_perf_to_io) and sram_bytes = hw->sram_per_block.  Errors:
 * those of fa_perf_predict (FA_EINVAL no tile row for the shape, FA_ENOSRAM the tiles do not
 * fit); unlike fa_run_algo there is no fallback to the paper's model. */
fa_status fa_report_kernel_pass(fa_pass p, fa_algo a, const fa_shape *s, const fa_hw *hw, fa_io_result *r);

/* Pass p of algorithm a counted in the paper's model (one SRAM of M bytes, profile "paper") with
 * the --blocks fit tiles of the pass, timed by the roofline on hw: fa_run_algo with
 * FA_TILES_FIT.  Errors: those of fa_run_algo (FA_ENOSRAM: not even 16 x 16 tiles fit M). */
fa_status fa_report_count(fa_pass p, fa_algo a, const fa_shape *s, uint64_t M, const fa_hw *hw, fa_io_result *r);

/* The time of a result as the tables print it, s: the time model's (perf_time_s) when it ran,
 * else the roofline's (time_s). */
double fa_report_time(const fa_io_result *r);
/* Its TFLOP/s: the time model's, else nominal_flops / time_s / 1e12. */
double fa_report_tflops(const fa_io_result *r);
/* What bounds it, as the tables' bound column and the CSV and JSON "bound" of fasim io: what
 * sets the time model's time (fa_perf_result.sets: a pipe, softmax, loads; "launch" or "grid"),
 * else "compute" or "memory" by the roofline's two times. */
const char *fa_report_bound(const fa_io_result *r);

/* ---- per model and GPU: the three algorithms ---- */

/* One model's rows: per layer type k (fa_report_model_kinds) its shape s[k], its layer count
 * layers[k], and per GPU h and algorithm a the pass r[k][h][a]; ran[k][h][a] = 0 when the
 * algorithm's kernel does not run the shape (FlashAttention-1 takes d <= 128; the reason in
 * why[k][h][a]); total_bytes and total_time_s: the sum over the model's layers (layers[k] x
 * each type's), over the kinds whose kernel ran (ran_all[h][a] = 1 when every kind ran). */
typedef struct {
    int nkind;
    fa_shape s[2];
    int64_t layers[2];
    fa_io_result r[2][FA_REPORT_MAX_HW][FA_NALGO];
    int ran[2][FA_REPORT_MAX_HW][FA_NALGO];
    char why[2][FA_REPORT_MAX_HW][FA_NALGO][160];
    double total_bytes[FA_REPORT_MAX_HW][FA_NALGO], total_time_s[FA_REPORT_MAX_HW][FA_NALGO];
    int ran_all[FA_REPORT_MAX_HW][FA_NALGO];
} fa_report_rows;

/* Fills out for model m: its layer types (fa_report_model_kinds(m, batch, seqlen)), and for each
 * of hw[0 .. nh), each type and each algorithm fa_report_kernel_pass(p, ...); a kernel that has
 * no tile row for the shape or whose tiles do not fit (FA_EINVAL, FA_ENOSRAM) is marked not run
 * with its reason, the others summed over the layers.  Errors: FA_EINVAL for nh outside
 * 1 .. FA_REPORT_MAX_HW, FA_EINVAL when flash2 does not run a shape (nothing to report), the
 * others of fa_report_kernel_pass. */
fa_status fa_report_model_rows(const fa_model *m, int64_t batch, int64_t seqlen, fa_pass p, const fa_hw *hw, int nh,
                               fa_report_rows *out);

/* ---- training ---- */

/* GPT-2 medium's training shape: B = 64, H = H_kv = 16, N = 1024, d = d_v = 64, fp16, causal
 * (bottom-right), default scale (the FlashAttention paper's Figure 2 shape, with a mask). */
fa_shape fa_report_training_shape(void);

/* One training layer on hw: r[p][a] = fa_report_kernel_pass(p, a, training shape, hw) for every
 * pass (fwd, bwd, fwdbwd) and algorithm.  Errors: those of fa_report_kernel_pass. */
fa_status fa_report_training(const fa_hw *hw, fa_io_result r[FA_NPASS][FA_NALGO]);

/* memory_vs_n.csv: one row per N = 256, 512, ..., 262144 of the training shape with N_q = N_k = N,
 * each algorithm's HBM peak of one training step (fa_footprint_peak(.., FA_PASS_FWDBWD), bytes). */
#define FA_REPORT_MEM_ROWS 11
typedef struct {
    int64_t N;
    uint64_t peak[FA_NALGO];
} fa_report_mem_row;

/* Fills rows[0 .. *n), *n = FA_REPORT_MEM_ROWS.  Errors: those of fa_hbm_footprint (*n then
 * counts the rows filled before it). */
fa_status fa_report_memory_vs_n(fa_report_mem_row rows[FA_REPORT_MEM_ROWS], int *n);

/* The training step's HBM peak of standard over flash2's at N = 2048 (*at_2k) and 4096
 * (*at_4k): standard keeps P (N x N per head).  Errors: those of fa_hbm_footprint. */
fa_status fa_report_memory_ratio(double *at_2k, double *at_4k);

/* For each algorithm the smallest N whose training-step peak exceeds hw->hbm_capacity
 * (fa_oom_seqlen on the training shape, fwd + bwd); n[a] = 0 when every N < 2^31 fits, and
 * every n[a] = 0 when hw->hbm_capacity is 0 (unknown).  Errors: those of fa_oom_seqlen. */
fa_status fa_report_oom(const fa_hw *hw, int64_t n[FA_NALGO]);

/* ---- long context ---- */

/* long_context.csv: per N = 4k, 16k, 64k, 256k, flash2 forward of one layer of model m (B = 1,
 * N_q = N_k = N, causal, the model's H, H_kv, d and dtype) as the fa2 kernel profile runs it on
 * hw (fa_report_kernel_pass: its tiles and time model, as the model tables), with full causal
 * attention and with the model's sliding window (window_left = W - 1, window_right = 0): HBM
 * bytes, matmul FLOPs (the softmax FLOPs left out: the windowed run's include the mask's) and the
 * time model's time of each. */
#define FA_REPORT_LONG_ROWS 4
typedef struct {
    int64_t N;
    uint64_t full_bytes, window_bytes;
    uint64_t full_flops, window_flops;
    double full_time_s, window_time_s;
    int timed;               /* 1: both times are the fa2 profile's time model; 0: rooflines (a GPU
                                whose profile gives no mma.sync rate, as the B200's) */
} fa_report_long_row;

/* Fills rows[0 .. *n), *n = FA_REPORT_LONG_ROWS.  Errors: FA_EINVAL when m has no sliding
 * window; those of fa_report_count (*n then counts the rows filled before it). */
fa_status fa_report_long_context(const fa_model *m, const fa_hw *hw, fa_report_long_row rows[FA_REPORT_LONG_ROWS],
                                 int *n);

/* ---- the kernels table ---- */

/* The profiles of the kernels table, in its order: eager, math, fa1, fa2, fa3, cudnn, fa4 (each on
 * the GPUs its tile table runs on: fa3 and cudnn on Hopper, fa4 on Blackwell). */
#define FA_REPORT_NKERNELS 7
extern const char *const fa_report_kernel_keys[FA_REPORT_NKERNELS];

/* One kernel on one GPU: profile fa_report_kernel_keys[key] on hw[hw], pass p of the shape. */
typedef struct {
    int key;                  /* index in fa_report_kernel_keys */
    int hw;                   /* index in the hw array */
    const fa_profile *profile;
    fa_occupancy occ;         /* the pass's kernel: the backward's for p = bwd, else the forward's */
    double blocks_run;        /* its thread blocks that share an SM: min(occ.occupancy, ceil(grid / SMs))
                                 (docs/time-model.md, section 3); 0 for the library GEMMs */
    double waves;             /* its grid's thread blocks / (SMs x blocks_run), fa_perf_result's waves:
                                 under 1 the grid fills a fraction of one wave; 0 for the library GEMMs */
    double time_s, tflops;    /* fa_perf_result's time_s, tflops */
    fa_pipe bound;            /* the busiest pipe (kernels.csv's busiest_pipe) */
    const char *sets;         /* what sets the time (fa_perf_result.sets): the kernels table's and
                                 kernels.csv's bound */
    int latency;              /* fa_perf_result's latency: 1 the launches, 2 a grid under one wave */
    int tail;                 /* fa_perf_result's tail: the table's "+ tail" (not in kernels.csv's bound) */
    double busy[FA_NPIPE];    /* each pipe's busy time, s */
    uint64_t dram_bytes;      /* estimated DRAM bytes */
} fa_report_kernel;

/* "launch" or "grid" when no pipe sets a predicted time (latency 1: the launches take half the
 * time; 2: a grid of less than one wave leaves SMs idle), else the pipe's name (tensor, smem,
 * exp, fp32, L2, DRAM). */
const char *fa_bound_name(int pipe, int latency);

/* For each of hw[0 .. nh) and each profile of fa_report_kernel_keys that has a tile row for the
 * GPU and shape s (fa_profile_tiles; the others, and those whose tiles do not fit the GPU's
 * shared memory at this head dim (FA_ENOSRAM: eager at d = 256), are left out), pass p
 * predicted with the profile's own tiles (fa_perf_predict); rows whose hardware profile lacks
 * the pipe rates (has_time 0) are left out too.  Fills rows[0 .. *n), GPU-major.  Errors:
 * FA_EINVAL for nh outside 1 .. FA_REPORT_MAX_HW, those of fa_perf_predict (*n then counts the
 * rows filled before it). */
fa_status fa_report_kernels(const fa_shape *s, const fa_hw *hw, int nh, fa_pass p,
                            fa_report_kernel rows[FA_REPORT_MAX_HW * FA_REPORT_NKERNELS], int *n);

/* ---- the papers ---- */

/* The papers' figures reproduced (fa_papers_reproduce): rows[i].hw points at a100, h100 or b200
 * of this struct, so it must not be copied while rows are used.  The b200 rows (FlashAttention-4's
 * Figure 4) are predictions only: no B200 was lent (sim/hw/b200.hw). */
typedef struct {
    fa_hw a100, h100, b200;
    fa_paper_row *rows; /* n rows, malloc'd: fa_report_papers_free */
    int n;
} fa_report_paper_set;

/* Loads the a100, h100 and b200 hardware profiles and reproduces every row of published (NULL:
 * fa_report_models_dir()/../measured/papers/published.csv, analysis/measured/papers/).  Errors:
 * those of fa_hw_load and fa_papers_reproduce (FA_EIO the file), FA_ENOMEM; on failure nothing
 * is left to free. */
fa_status fa_report_papers(const char *published, fa_report_paper_set *out);
void fa_report_papers_free(fa_report_paper_set *set);

/* 1 when row r continues the series of row prev (the same paper, figure, GPU, kernel, head dim,
 * mask, pass and unit: one line of the papers' table, one N after another), else 0. */
int fa_report_same_series(const fa_paper_row *prev, const fa_paper_row *r);

/* ---- the plots' data ---- */

/* hbm_vs_n_<stem>.csv: per N = 128, 256, ..., 2^20 (base's shape with N_q = N_k = N), the forward
 * HBM bytes of the three algorithms counted in the paper's model on hw (fa_report_count,
 * M = hw->sram_per_block), and the Theta bounds with constant 1 (fa_bound_pass_bytes) of
 * standard and of flash2; theta_window: flash2's bound with base's sliding window of w keys,
 * theta_flash * min(w, N) / N (N w d^2 e^2 / M a head), theta_flash without a window. */
#define FA_REPORT_N_ROWS 15 /* N = 128 .. 2^20 by powers of two, and the model's own N */
typedef struct {
    int64_t N;
    uint64_t bytes[FA_NALGO];
    double theta_standard, theta_flash, theta_window;
} fa_report_n_row;

/* Fills rows[0 .. *n): N = 128, 256, .. 2^20 (14 rows), and model_n in its place when it lies
 * between them and is no power of two (15 rows; model_n 0: none).  Errors: those of fa_report_count. */
fa_status fa_report_hbm_vs_n(const fa_shape *base, const fa_hw *hw, int64_t model_n, fa_report_n_row rows[FA_REPORT_N_ROWS],
                             int *n);

/* hbm_vs_sram.csv: per M = 48 KiB, then M * 5 / 4 (integer) up to 4 MiB, and M = N d e in its place
 * when it lies in that range and is none of them (N = min(N_q, N_k): where Theorem 2's range
 * d <= M <= N d ends and the plot's Θ line stops), the forward of shape s
 * counted in the paper's model with M (fa_report_count): flash2's tile B_r, the HBM bytes of the
 * three algorithms and flash2's Theta bound.  An M too small for 16 x 16 tiles (FA_ENOSRAM) is
 * left out. */
#define FA_REPORT_SRAM_ROWS 32
typedef struct {
    uint64_t M;
    int64_t block;
    uint64_t bytes[FA_NALGO];
    double theta_flash;
} fa_report_sram_row;

/* Fills rows[0 .. *n).  Errors: those of fa_report_count other than FA_ENOSRAM. */
fa_status fa_report_hbm_vs_sram(const fa_shape *s, const fa_hw *hw, fa_report_sram_row rows[FA_REPORT_SRAM_ROWS],
                                int *n);

/* hbm_vs_block.csv: square tiles B_r = B_c = B = 16, 32, ..., 512 while flash2's forward buffers
 * fit M = hw->sram_per_block (fa_sram_need), the forward of shape s with those tiles in the paper's
 * model (fa_run_algo, FA_TILES_EXPLICIT): HBM bytes and roofline time of the three algorithms. */
#define FA_REPORT_BLOCK_ROWS 32
typedef struct {
    int64_t block;
    uint64_t bytes[FA_NALGO];
    double time_s[FA_NALGO];
} fa_report_block_row;

/* Fills rows[0 .. *n).  Errors: those of fa_run_algo. */
fa_status fa_report_hbm_vs_block(const fa_shape *s, const fa_hw *hw, fa_report_block_row rows[FA_REPORT_BLOCK_ROWS],
                                 int *n);

#endif
