/* fa_compare.h -- what `fasim compare --measured FILE` computes, without the printing: a CSV of
 * measured kernels read and checked row by row, fasim's prediction of each row (the two-level
 * count, the L2 model, the time model of docs/time-model.md) and the summary of the ratios
 * fasim / measured.  analysis/compare.c; the command line (analysis/cli/cmd_compare.c) parses the
 * options and prints.  Units: bytes, milliseconds (the file's and the predicted times).
 *
 * Errors follow fa_status.h: every failure returns a status and records a message; the messages
 * about the file start "FILE:LINE: " (line 1 is the header) and name the column, the value and
 * the limit.  FA_EINVAL for bad content (the command line's exit status 2), FA_EIO when the file
 * cannot be opened, FA_ENOMEM, and the statuses of the runs (fa_io_run, fa_perf_predict).
 *
 * The file (`fasim compare --help` says the same): a header naming the columns in any order, then
 * one row per kernel and shape; blank lines and lines starting with '#' are skipped.
 *   kernel, B (or batch), H (or heads), N_q (or N, seqlen_q, seqlen), d (or headdim): required;
 *   H_kv (kv_heads), N_k (seqlen_k), d_v, causal (0/1), dtype (fp32/fp16/bf16/fp8_e4m3/fp8_e5m2),
 *   algo (standard/flash1/flash2), block_r, block_c, blocks_per_sm (1..32), profile (a kernel
 *   profile key), pass (fwd/bwd), ms (or time_ms), dram_read_bytes (dram__bytes_read.sum),
 *   dram_write_bytes (dram__bytes_write.sum), l2_read_bytes (l1tex__m_xbar2l1tex_read_bytes.sum),
 *   l2_write_bytes (l1tex__m_l1tex2xbar_write_bytes.sum): optional.
 * The benchmark CSVs of kernels/fabench.cu and kernels/compare_sdpa.py (--csv: kernel,B,H,H_kv,
 * N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass) are read as they are: tflops, gbps and
 * max_err are accepted and not read; their pass column holds the validation's verdict (PASS,
 * FAIL, CONS, ref, skip) rather than fwd/bwd -- the pass then comes from the kernel name, and a
 * ref or skip row (not timed, ms nan) is left out (fa_cmp_untimed counts them).
 * Each column once, under one of its names (case-sensitive); any other name is an error; a UTF-8
 * byte order mark before the header is skipped.  Every row has the header's number of fields
 * (at most FA_CMP_MAXCOL; a line at most FA_CMP_MAXLINE - 2 characters before its newline);
 * a field may be in double quotes (no quote or comma inside).  B, H, N, d, H_kv, N_k, d_v: whole
 * numbers 1..2^31-1 ("4096", "4096.0", "4.096e3"); block_r, block_c: 1..2^20, both or neither;
 * ms finite and > 0; the byte counts finite and >= 0.  An empty field of an optional column is
 * the column left out.  A carriage return is allowed only at the end of a line (CRLF files). */
#ifndef FA_COMPARE_H
#define FA_COMPARE_H

#include <stdint.h>

#include "fa_analysis.h"
#include "fa_perf.h"

#define FA_CMP_MAXCOL 64     /* columns of the header, at most */
#define FA_CMP_MAXLINE 8192  /* a line of the file: FA_CMP_MAXLINE - 2 characters at most */

/* A measured file being read (analysis/compare.c). */
typedef struct fa_cmp_reader fa_cmp_reader;

/* One measured row, checked, with every default filled in. */
typedef struct {
    const char *file;   /* the path given to fa_cmp_open (the reader's copy) */
    int line;           /* its line in the file (the header is line 1) */
    const char *kernel; /* the kernel column, non-empty; both strings live until the next
                           fa_cmp_next or fa_cmp_close */
    fa_shape shape;     /* B, H, H_kv (default H), N_q, N_k (default N_q), d, d_v (default d);
                           causal 1 = FA_CAUSAL_BOTTOM_RIGHT; dtype default bf16; default scale;
                           fa_shape_check passed */
    fa_algo algo;       /* the algo column; else the profile's loop when the row's profile is a
                           kernel (not "paper"); else from the kernel name: v0..., sdpa_math ->
                           standard, v1... -> flash1, anything else flash2 */
    const fa_profile *profile; /* the profile column; else from the kernel name (fa_cmp_kernel_profile);
                                  else fa_profile_default(algo).  A kernel profile runs algo */
    fa_pass pass;       /* FA_PASS_FWD or FA_PASS_BWD: the pass column, else from the kernel name */
    int guessed;        /* 1: neither the profile column nor the kernel name names a profile (a kernel
                           fasim does not know, or a typo): profile is the algo's default */
    int prepass;        /* 1: the row times the profile's V -> V^T pre-pass (a kernel name KEY_prepass of a
                           profile with one: v5_fp8_prepass), a forward-side kernel of its own */
    fa_blocks blocks;   /* block_r x block_c; {0, 0} when the row gives neither */
    int blocks_per_sm;  /* the kernel's occupancy, 1..32; 0 when not given */
    double ms;          /* measured time, ms; NAN when the column is absent or the field empty */
    double dram_read_bytes, dram_write_bytes, l2_read_bytes, l2_write_bytes; /* NAN likewise */
} fa_cmp_row;

/* Opens the measured file at path and reads its header.  Errors: FA_EIO when it cannot be
 * opened ("cannot open measured file PATH: <errno text>"); FA_EINVAL when path is a directory,
 * the file is empty, or the header is too long, has more than FA_CMP_MAXCOL columns, an unnamed
 * column, a name twice, two names of one column (N_q and N), a name compare does not know (the
 * message lists the accepted ones), a carriage return inside, or lacks a required column;
 * FA_ENOMEM.  On success *out is to be closed with fa_cmp_close. */
fa_status fa_cmp_open(const char *path, fa_cmp_reader **out);

/* Reads the next row into *row: *got = 1, or *got = 0 at the end of the file.  Errors (FILE:LINE
 * named): FA_EINVAL for a line too long, a field count unlike the header's, an empty required
 * field, a value out of its column's range, an unknown dtype, algo, profile or pass (fwdbwd
 * included), a kernel KEY_prepass whose profile has no pre-pass (or with pass bwd), a profile
 * that runs another algorithm than the row's algo, block_r without block_c
 * or the reverse, a shape fa_shape_check refuses (H not a multiple of H_kv), and, at the end, a
 * file with a header and no rows ("measured file PATH has a header but no rows"), or whose rows
 * are all a benchmark's untimed ref or skip rows ("... has no timed rows ..."). */
fa_status fa_cmp_next(fa_cmp_reader *r, fa_cmp_row *row, int *got);

/* Times the rows whose kernel column is exactly kernel with profile prof instead of the one the
 * name stands for (a file measured before the kernel changed); call before the first
 * fa_cmp_next.  Errors: FA_EINVAL for more than FA_CMP_MAXMAP kernels, an empty or over-long
 * kernel name, or a kernel given twice (the message names it); fa_cmp_next fails at the end of the
 * file when a mapped kernel named no row (the message lists the file's kernels). */
#define FA_CMP_MAXMAP 8
fa_status fa_cmp_map(fa_cmp_reader *r, const char *kernel, const fa_profile *prof);

/* The rows left out so far: a benchmark CSV's rows whose pass field is ref or skip (not timed). */
int fa_cmp_untimed(const fa_cmp_reader *r);
/* kernels/ v1 rows given in a head's shape (N_q > 256): *sliced read as the kernel's 256-row query
 * slices (N_q / 256 heads of 256 rows sharing the head's K and V), *left left out (causal, or N_q
 * not a multiple of 256: no slice-as-head form) */
void fa_cmp_v1_rows(const fa_cmp_reader *r, int *sliced, int *left);

/* Closes the file and frees r (NULL: nothing). */
void fa_cmp_close(fa_cmp_reader *r);

/* The kernel profile a measured kernel's name stands for: a kernel profile's key itself ("v3",
 * "v4_bc64"), PyTorch's SDPA backends (sdpa_flash -> sdpa_flash: fa2's kernels as SDPA calls
 * them, sdpa_cudnn -> cudnn, sdpa_math -> math), v0_low -> v0, the v3 backward configurations (v3_bwd, v3_bwd_det, v3_bwd_occ2 -> v3;
 * v3_bwd_bc64), KEY_prepass -> KEY (the pre-pass of a kernel that has one, fa_cmp_row.prepass:
 * v5_fp8_prepass -> v5_fp8).  *bwd = 1 for a backward (a name ending in _bwd or starting v3_bwd),
 * else 0.
 * NULL when the name names no kernel profile (then the algorithm's own). */
const fa_profile *fa_cmp_kernel_profile(const char *kernel, int *bwd);

/* fasim's prediction of one row. */
typedef struct {
    fa_blocks blocks;   /* the tiles: the row's, else its kernel profile's tile table for the
                           pass and hw->arch, else --blocks fit on M (fa_blocks_fit) */
    int blocks_from_table; /* 1: from the profile's tile table */
    uint64_t sram;      /* M the count ran with: the given M, raised to fasim's SRAM need of the
                           tiles (a kernel keeps its fp32 S_ij, O_i, m_i, l_i in registers) */
    fa_io_result io;    /* the two-level count (fa_io_run), with the L2 fields when l2 is 1 */
    int timed;          /* 1: the time model predicted the time (a kernel profile, hw with its
                           pipe rates) */
    fa_perf_result perf; /* fa_perf_predict's result (filled when the profile is a kernel) */
    int l2;             /* 1: the L2 model replayed the row (fa_io_l2) */
    int blocks_per_sm;  /* thread blocks per SM the L2 model replayed; 0 without it */
    int model_blocks_per_sm; /* the time model's occupancy of the row's pass; 0 when not timed */
    double pred_l2_bytes;   /* SRAM<->L2 bytes: the two-level count's HBM bytes */
    double pred_dram_bytes; /* DRAM bytes of the L2 model; NAN without it */
    double pred_ms;     /* predicted time, ms: the time model's (a pre-pass row: the pre-pass's, its
                           bytes in pred_l2_bytes, no L2 replay); else the roofline
                           max(compute time, bytes / hbm_bandwidth) with the L2 model's DRAM bytes
                           when there are some, else the two-level bytes */
    const char *bound;  /* what sets the time, as fasim io's bound column says it: the time model's
                           sets label (fa_perf_result.sets: L2, DRAM, loads, issue, softmax,
                           tensor, smem, fp32), "launch" or "grid" when latency sets it, a
                           pre-pass row "DRAM"; untimed: the roofline's "compute" or "memory" */
    const char *busiest; /* the busiest pipe of the time model (fa_pipe_name(perf.bound)); "-"
                           where untimed; may differ from bound */
    int tail;           /* 1: the last wave's tail adds over 10 % (fa_perf_result.tail; io's " + tail") */
    double meas_l2_bytes;   /* l2_read_bytes + l2_write_bytes (NAN unless both are given) */
    double meas_dram_bytes; /* dram_read_bytes + dram_write_bytes (likewise) */
    double meas_ms;     /* the row's ms */
} fa_cmp_pred;

/* Predicts row on hw with SRAM M (the command line: --sram, else hw->sram_per_block).  The tiles
 * Q_i, K_j, V_j in the dtype, (B_r d + B_c d + B_c d_v) e bytes, must fit M when they come from
 * the row or a tile table; the time model runs for a kernel profile (hw's SRAM raised to M if
 * smaller); the L2 model (use_l2 1) only for a row with both DRAM byte counts, with the row's
 * blocks_per_sm, else the time model's occupancy (1..32), else estimated from the SRAM need; a
 * run the L2 model refuses (over 2^26 transfers) leaves l2 0.  Errors (FILE:LINE named):
 * FA_EINVAL for tiles over M ("tiles B_r x B_c = ... do not fit SRAM: ..."), and those of
 * fa_profile_tiles, fa_blocks_fit, fa_io_run, fa_perf_predict and fa_io_l2 (FA_ENOSRAM,
 * FA_EOVERFLOW, FA_ENOMEM). */
fa_status fa_cmp_predict(const fa_cmp_row *row, const fa_hw *hw, uint64_t M, int use_l2,
                         fa_cmp_pred *out);

/* The ratio pred / meas; NAN where either is NAN or meas is not > 0. */
double fa_cmp_ratio(double pred, double meas);

/* The quantities of the summary, and the limits of |fasim / measured - 1| they are checked
 * against (issue 13's validation): time 15 %, SRAM<->L2 bytes 10 %, DRAM bytes 20 %. */
typedef enum { FA_CMP_TIME = 0, FA_CMP_L2 = 1, FA_CMP_DRAM = 2, FA_CMP_NQTY = 3 } fa_cmp_qty;
extern const double fa_cmp_limit[FA_CMP_NQTY];

/* The errors |fasim / measured - 1| of the rows with both numbers, per quantity: the first
 * FA_CMP_SUMMARY_MAX of them.  Zero-initialise ({0}) before the first fa_cmp_summary_add. */
#define FA_CMP_SUMMARY_MAX 4096
typedef struct {
    double err[FA_CMP_NQTY][FA_CMP_SUMMARY_MAX];
    int n[FA_CMP_NQTY];
} fa_cmp_summary;

/* Adds a row's prediction: each quantity whose ratio (fa_cmp_ratio) is a number. */
void fa_cmp_summary_add(fa_cmp_summary *m, const fa_cmp_pred *p);

/* One quantity of the summary. */
typedef struct {
    int rows;       /* rows with both numbers (at most FA_CMP_SUMMARY_MAX) */
    int full;       /* 1 when rows == FA_CMP_SUMMARY_MAX: later rows were left out */
    int within;     /* rows with |ratio - 1| <= limit */
    double limit;   /* fa_cmp_limit[q] */
    double median;  /* median |ratio - 1| (the mean of the middle two for an even count); 0 when
                       rows is 0 */
    double largest; /* largest |ratio - 1|; 0 when rows is 0 */
} fa_cmp_stat;

/* The statistics of quantity q (sorts m->err[q] in place). */
fa_cmp_stat fa_cmp_summary_stat(fa_cmp_summary *m, fa_cmp_qty q);

#endif
