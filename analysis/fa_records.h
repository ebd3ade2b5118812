/* fa_records.h -- the words and the machine-readable records fasim writes: a shape's masks in
 * words, human-readable sizes, counts and times, one CSV field, and the CSV row and JSON object
 * of each kind of result (a pass of an algorithm, an inference kernel, a check's row, a
 * comparison's row).  The command line (analysis/cli/) chooses and prints them; their columns are
 * defined here, once (analysis/records.c).
 *
 * Conventions of every record: byte counts are bytes, times seconds (compare's ms columns
 * excepted), "causal" is none, bottom-right or top-left; a JSON byte count above 2^63 - 1 is a
 * real (jansson's integers are signed 64-bit).  The JSON functions return a new object (NULL only
 * when jansson runs out of memory); the caller owns it. */
#ifndef FA_RECORDS_H
#define FA_RECORDS_H

#include <jansson.h>
#include <stdio.h>

#include "fa_analysis.h"
#include "fa_check.h"
#include "fa_compare.h"
#include "fa_inference.h"
#include "fa_report.h"

/* A leading column of a record: sweep's varied values, report's model and layers. */
typedef struct {
    const char *name;
    char value[32];
} fa_col;

/* ---- words and units ---- */

/* The masks and score modifiers of s in words, comma-separated in this order: causal (anchor),
 * window (L, R), block-sparse B_rxB_c, column mask, dense mask, softcap C, ALiBi, dropout p;
 * "no mask" when there is none.  exact: softcap and dropout with as many digits as they need to
 * read back as the same double (at least %g's six: "softcap 0.9999999999999", not "softcap 1");
 * else %g.  Writes at most n bytes (cut, still terminated).  Returns buf. */
const char *fa_mask_text(const fa_shape *s, int exact, char *buf, size_t n);

/* As fa_mask_text with exact digits, but "none" when s has no mask and no modifier (the check
 * records' "causal" field).  Returns buf. */
const char *fa_mask_name(const fa_shape *s, char *buf, size_t n);

/* Human-readable sizes, counts and times into buf (n bytes; returns buf):
 *   fa_fmt_bytes: powers of 1024 with 4 significant digits ("12.6 MiB", "1 KiB", "512 B",
 *     "0.5 B"); a value that would print as 1024 of a unit moves to the next ("1 MiB").
 *   fa_fmt_si: powers of 1000, 4 digits ("3.2 G", "999", "1 K").
 *   fa_fmt_time: seconds as s, ms, us or ns, 4 digits ("1.5 ms"). */
const char *fa_fmt_bytes(double bytes, char *buf, size_t n);
const char *fa_fmt_si(double x, char *buf, size_t n);
const char *fa_fmt_time(double seconds, char *buf, size_t n);

/* ---- CSV and JSON pieces ---- */

/* Writes s to f as one CSV field (RFC 4180): as it is, or in double quotes (a quote doubled)
 * when it holds a comma, a quote or a line break. */
void fa_csv_field(FILE *f, const char *s);

/* 1 when cols (a CSV header line) has a column named name, else 0: a leading column the record
 * has already (sweep's batch, heads, splits) is not written twice. */
int fa_csv_has_col(const char *cols, const char *name);

/* Sets batch (as given: a varlen batch writes 1), heads, kv_heads, seqlen_q, seqlen_k, d, d_v of
 * s on the JSON object j, in that order. */
void fa_json_shape(json_t *j, const fa_shape *s, int64_t batch);

/* ---- a pass of an algorithm (fasim io, sweep, report.csv) ---- */

/* The CSV header (the n_extra leading columns not already among the record's, the record's
 * columns, with breakdown the read and write bytes of every tensor of fa_pass_tensor_names) and
 * the rows of r[0..n) on shape s and hardware hw_key. */
void fa_io_csv(FILE *f, const fa_shape *s, const char *hw_key, int breakdown, const fa_io_result *r, int n,
               const fa_col *extra, int n_extra, int header);

/* Appends one JSON object per result r[0..n) to the array arr: the n_extra leading columns (a
 * number as a number, a whole one as an integer), the counts, the closed form, the time models
 * (time_model only when the kernel profile ran) and the bytes per tensor. */
void fa_io_json(json_t *arr, const fa_shape *s, const char *hw_key, const fa_io_result *r, int n,
                const fa_col *extra, int n_extra);

/* ---- inference kernels (fasim io / sweep --decode, --cu-seqlens) ---- */

/* The CSV header of the inference rows, after the n leading columns cols[] not already among
 * them. */
void fa_infer_csv_header(FILE *f, const fa_col *cols, int n);
/* One CSV row of variant x on shape s (vl: the varlen batch, NULL for decoding) on hardware
 * hw_key, after the leading columns' values. */
void fa_infer_csv_row(FILE *f, const fa_shape *s, const fa_varlen *vl, const char *hw_key, const fa_infer_variant *x,
                      const fa_col *cols, int n);
/* The JSON object of the same row (a leading column's value that reads as a number is a JSON
 * real), with the bytes per tensor. */
json_t *fa_infer_json(const fa_shape *s, const fa_varlen *vl, const char *hw_key, const fa_infer_variant *x,
                      const fa_col *cols, int n);

/* The varlen backward's record (fasim io --cu-seqlens --pass bwd|fwdbwd) of r, a result of
 * fa_varlen_bwd_io for pass p on a batch of nseq sequences: algo varlen_flash2, the pass, nseq,
 * the tiles, the HBM bytes read, written and both (the two passes with fwdbwd), the backward's
 * closed form (bytes read + written) and whether the backward's count equals it (CSV 1 or 0,
 * JSON formula_match true or false); JSON adds the backward's SRAM peak (sram_peak_bytes). */
extern const char fa_varlen_bwd_csv_header[];
void fa_varlen_bwd_csv_row(FILE *f, fa_pass p, int64_t nseq, const fa_varlen_bwd_io_result *r);
json_t *fa_varlen_bwd_json(fa_pass p, int64_t nseq, const fa_varlen_bwd_io_result *r);

/* ---- checks (fasim check) ---- */

/* The fp64 check's header and its row of one algorithm on shape s with tiles bk.  Errors that
 * are NaN or infinite are JSON null; standard attention has no LSE ("n/a" in the table, null in
 * JSON). */
extern const char fa_check_csv_header[];
void fa_check_csv_row(FILE *f, const fa_shape *s, fa_blocks bk, const fa_check_row *r);
json_t *fa_check_json(const fa_shape *s, fa_blocks bk, const fa_check_row *r);

/* The low-precision check's header and row (lo: the run's options: --exp2, --acc, --inputs,
 * --fp8-quant, --hadamard).  Columns: algo, tensor, dtype, the shape, causal, exp2 (0/1), acc
 * (fp32/fp64), inputs (normal/outliers), fp8_quant (tensor/block), hadamard (0/1),
 * hadamard_seed, then max_abs_err, max_rel_err, rmse (sqrt(mean (out - ref)^2)), naive_abs_err,
 * ratio, atol against the fp64 reference on the rounded (prepared) inputs, then
 * e2e_max_abs_err and e2e_rmse against the fp64 reference on the original inputs, and the
 * verdict.  JSON: the same keys (exp2, hadamard as booleans), infinite errors null. */
extern const char fa_lowprec_csv_header[];
void fa_lowprec_csv_row(FILE *f, const fa_shape *s, const fa_lowprec_opts *lo, const fa_lowprec_row *r);
json_t *fa_lowprec_json(const fa_shape *s, const fa_lowprec_opts *lo, const fa_lowprec_row *r);

/* The external tensors' check: header and the row of one tensor (its file quoted as a CSV field). */
extern const char fa_ext_csv_header[];
void fa_ext_csv_row(FILE *f, const fa_ext_row *r);
json_t *fa_ext_json(const fa_ext_row *r);

/* The inference kernels' check: header and the row of variant v judged by r. */
extern const char fa_infer_check_csv_header[];
void fa_infer_check_csv_row(FILE *f, const fa_infer_variant *v, const fa_infer_check_row *r);
json_t *fa_infer_check_json(const fa_infer_variant *v, const fa_infer_check_row *r);

/* ---- comparison with measurements (fasim compare) ---- */

/* The header and the row of measured row w beside prediction p (an unknown number, NAN: nan in
 * CSV, null in JSON; blocks_per_sm empty / null without the L2 replay). */
extern const char fa_cmp_csv_header[];
void fa_cmp_csv_row(FILE *f, const fa_cmp_row *w, const fa_cmp_pred *p);
json_t *fa_cmp_json(const fa_cmp_row *w, const fa_cmp_pred *p);

/* ---- the files of fasim report (fa_report.h's tables, header line first) ---- */

/* report.csv: for each model k of models[0 .. nm), layer type t and GPU h of hw[0 .. nh), the
 * records of rows[k].r[t][h] (fa_io_csv, the algorithms whose kernel ran, on rows[k].s[t],
 * hw[h].key) after the leading columns model (the file's stem) and layers (of that type); the
 * header once, first. */
void fa_report_csv(FILE *f, const fa_report_model *models, const fa_report_rows *rows, int nm, const fa_hw *hw, int nh);
/* hbm_vs_n_<model>.csv: N, the three algorithms' HBM bytes, the Theta lines of standard and flash. */
void fa_report_n_csv(FILE *f, const fa_report_n_row *rows, int n);
/* hbm_vs_sram.csv: M (bytes), flash2's tile, the three algorithms' HBM bytes, flash2's Theta. */
void fa_report_sram_csv(FILE *f, const fa_report_sram_row *rows, int n);
/* hbm_vs_block.csv: B_r = B_c, then flash1, flash2, standard bytes and roofline times (s). */
void fa_report_block_csv(FILE *f, const fa_report_block_row *rows, int n);
/* memory_vs_n.csv: N, each algorithm's training-step HBM peak, and capacity_<key> of hw[0..nh)
 * (bytes; the same on every row, for the plot's horizontal lines). */
void fa_report_mem_csv(FILE *f, const fa_report_mem_row *rows, int n, const fa_hw *hw, int nh);
/* long_context.csv: N, the window (tokens), then full and windowed bytes, FLOPs and times. */
void fa_report_long_csv(FILE *f, const fa_report_long_row *rows, int n, int64_t window);
/* kernels.csv: the header, and the row of kernel x of model stem on hardware hw (x's GPU), timed on
 * shape s (its layer type: full, or sliding when s has a window; its mask in words). */
extern const char fa_report_kernels_csv_header[];
void fa_report_kernel_csv_row(FILE *f, const char *stem, const fa_hw *hw, fa_pass p, const fa_shape *s,
                              const fa_report_kernel *x);
/* papers.csv: each published figure's point beside the time model's (fa_paper_row). */
void fa_report_papers_csv(FILE *f, const fa_paper_row *rows, int n);
/* decode.csv: per batch, KV length and variant (per-head, packed, packed-split) of table t. */
void fa_decode_table_csv(FILE *f, const fa_decode_table *t);

#endif
