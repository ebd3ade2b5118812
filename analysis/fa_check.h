/* fa_check.h -- numerical checks: fasim's tiled algorithms in fp64 and in emulated low precision
 * against the fp64 reference, an external kernel's tensors (.npy) against the same rule, a
 * sample problem written as .npy files, and the points of the error studies.  What `fasim check`
 * runs (analysis/check.c); the command line only chooses the shapes and prints the rows.
 *
 * Layouts as fa_attn.h: Q (B, H, N_q, d), K (B, H_kv, N_k, d), V (B, H_kv, N_k, d_v),
 * O (B, H, N_q, d_v), LSE (B, H, N_q).  Inputs are N(0, 1) from a GSL mt19937 generator, drawn
 * Q, then K, then V (then dO), so a seed reproduces a run.  Errors are absolute (max |out - ref|
 * over all elements) unless named relative.  Tolerance rules: docs/numerics.md (the fp64 check
 * and the FlashAttention test rule max|out - ref| <= 2 max|naive - ref|, gradients 3x) and
 * docs/validate.md (external tensors).
 */
#ifndef FA_CHECK_H
#define FA_CHECK_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "fa_analysis.h"
#include "fa_npy.h"

/* Numeric mode keeps every tensor in host memory: the work B H N_q N_k (d + d_v) of a check is
 * at most FA_CHECK_WORK_LIMIT, and standard (naive) attention, which holds S and P, at most
 * FA_CHECK_SP_LIMIT elements B H N_q N_k. */
#define FA_CHECK_WORK_LIMIT 2e10
#define FA_CHECK_SP_LIMIT ((int64_t)1 << 25)

/* ---- errors between two arrays ---- */

/* The fp64 check's error: max |a_i - b_i| over the pairs, with NaN propagating (a NaN makes the
 * result NaN) and an infinity on either side required to match exactly (else the result is
 * +inf at once).  *maxref (if non-NULL) receives max |b_i| over the finite pairs; it is left
 * unchanged when the result is +inf from mismatched infinities. */
double fa_check_abs_diff(const double *a, const double *b, int64_t n, double *maxref);

/* The low-precision error of a against the reference b. */
typedef struct {
    double abs;    /* max |a_i - b_i|: 0 where both are NaN or the same infinity, +inf where only
                      one is NaN or the infinities differ */
    double maxref; /* max |b_i| over the finite b_i */
    int64_t at;    /* the index of the first element reaching abs (0 when abs = 0) */
    double rmse;   /* sqrt(mean_i e_i^2), e_i the elementwise errors of abs (0 for n = 0; +inf
                      when one is +inf) */
} fa_err;

fa_err fa_err_of(const double *a, const double *b, int64_t n);

/* abs / maxref (abs when maxref = 0): the error relative to the largest reference value. */
double fa_err_rel(fa_err e);

/* FA_OK when numeric mode may run shape s: its work B H N_q N_k (d + d_v) is at most
 * FA_CHECK_WORK_LIMIT and, when need_sp (naive attention runs), B H N_q N_k is at most
 * FA_CHECK_SP_LIMIT.  Errors: FA_EINVAL naming the value and the limit. */
fa_status fa_check_size(const fa_shape *s, int need_sp);

/* ---- the built-in suites of odd shapes ---- */

typedef struct {
    int64_t batch, heads, kv_heads, seqlen_q, seqlen_k, d, d_v;
    fa_causal causal;
    int64_t block_r, block_c;
} fa_check_case;

/* fp64: N = 1, d = 1, tails, N_q != N_k causal (both anchors), GQA 8/2, MQA 4/1 (9 cases);
 * low precision: the same kinds and long rows of 512 (6 cases). */
extern const fa_check_case fa_check_suite_fp64[];
extern const int fa_check_suite_fp64_n;
extern const fa_check_case fa_check_suite_lowprec[];
extern const int fa_check_suite_lowprec_n;

/* Sets the seven dimensions of *s from c, and its causal mask too unless keep_causal. */
void fa_check_case_shape(const fa_check_case *c, fa_shape *s, int keep_causal);

/* ---- the fp64 check (fasim check) ---- */

typedef struct {
    fa_algo algo;
    double abs_o;   /* max |O - O_ref| (fa_check_abs_diff) */
    double rel_o;   /* abs_o / max |O_ref| (abs_o when O_ref is 0) */
    double abs_lse; /* max |LSE - LSE_ref|; 0 for standard, which computes no LSE */
    int pass;       /* rel_o <= tol and abs_lse <= tol max(1, max |LSE_ref|), neither NaN */
    /* the run's accumulator rescales (fa_counts; flash2 with --rescale-threshold: data-dependent) */
    uint64_t rescales, rescale_steps, rescale_blocks, rescale_max;
} fa_check_row;

/* Draws Q, K, V from rng, computes O_ref and LSE_ref with fa_reference_forward, then runs each
 * of algos[0 .. n_algos) with fa_run_forward in numeric mode (fp64 arithmetic) on tiles bk with
 * an SRAM of M bytes, its outputs poisoned with NaN first (every element must be written), and
 * fills rows[k] for algos[k].  *n_rows counts the rows filled, also on an error (the rows before
 * the failing algorithm stay valid).  Errors: FA_EINVAL (the work is over FA_CHECK_WORK_LIMIT,
 * or standard's S and P over FA_CHECK_SP_LIMIT, both before any run of that algorithm),
 * FA_ENOMEM, and those of the algorithms (FA_ENOSRAM when bk does not fit M). */
fa_status fa_check_fp64(const fa_shape *s, fa_blocks bk, uint64_t M, const fa_algo *algos,
                        int n_algos, double tol, gsl_rng *rng, fa_check_row *rows, int *n_rows);

/* ---- low precision: emulated dtype vs naive attention in the dtype ---- */

typedef struct {
    int exp2;  /* log2(e) folded into the scale, exp2 in the softmax (fa_numerics.exp2) */
    int acc64; /* accumulate in fp64 instead of fp32 */
    int bwd;   /* check dQ, dK, dV (the forward, then the backward) instead of O */
    /* the inputs and their preparation (docs/numerics.md, "FP8 forward"); all 0: N(0, 1) inputs
     * rounded to the dtype per tensor */
    int outliers;           /* each entry of Q, K, V is N(0, 1) plus, with probability 0.001, an
                               independent N(0, 10^2) term (FlashAttention-3, Shah et al. 2024,
                               section 4.3); dO stays N(0, 1) */
    int fp8_prep;           /* 1: Q, K, V prepared by fa_fp8_prepare (e4m3 only, forward only) */
    int fp8_block;          /* with fp8_prep: one scale per block of the tiles' B_r (Q) and B_c
                               (K, V) rows; 0: per tensor */
    int hadamard;           /* with fp8_prep: incoherent processing of Q and K first */
    uint64_t hadamard_seed; /* its signs' seed (fa_fp8_hadamard_sign) */
} fa_lowprec_opts;

typedef struct {
    fa_algo algo;
    const char *tensor; /* "O", or "dQ", "dK", "dV" */
    fa_err err;         /* the algorithm against the fp64 reference */
    fa_err naive;       /* naive attention (standard, default numerics of the dtype) against it */
    fa_err e2e;         /* the algorithm against the fp64 reference on the original inputs (before
                           rounding, quantization and rotation): the end-to-end error, the one
                           FlashAttention-3's Table 3 reports (as RMSE) */
    double ratio;       /* err.abs / naive.abs; +inf when naive is exact and err is not, 0 when
                           both are exact */
    double factor;      /* 2 (O) or 3 (gradients) */
    double atol;        /* the rounding floor of the dtype at the tensor's magnitude (fa_check_atol) */
    int pass;           /* err.abs <= factor naive.abs + atol (FlashAttention's tests' rule) */
    int by_floor;       /* 1: it passes only with atol (err.abs > factor naive.abs): the ratio measured
                           noise at the rounding level, not the algorithm */
} fa_lowprec_row;

/* FlashAttention's tests' floor (Dao-AILab/flash-attention tests/test_flash_attn.py and
 * hopper/test_flash_attn.py: fwd_atol = 2 (out_ref + 0.3 - 0.3 - out_ref).abs().max(), the same for
 * dq_atol, dk_atol, dv_atol): 2 max_i |fl(fl(r_i + 0.3) - 0.3) - r_i| with r = ref rounded to format f
 * and fl the rounding to f -- twice the rounding error of the dtype at the magnitude of the tensor
 * (at least at 0.3), so that on a tiny problem, where both errors sit at that level, their ratio
 * does not decide.  ref: n values. */
double fa_check_atol(const double *ref, int64_t n, fa_format f);

/* The unit roundoff of format f: 2^-53, 2^-24, 2^-11, 2^-8, 2^-4, 2^-3 (fp64 ... e5m2). */
double fa_unit_roundoff(fa_format f);

/* The precision check of the dtype s->dtype (docs/numerics.md): draws Q, K, V, dO from rng
 * (N(0, 1), or with lo->outliers Q, K, V entry by entry a gaussian, a uniform and, when the
 * uniform is below 0.001, a second gaussian of standard deviation 10), computes the fp64
 * reference on them (the end-to-end reference of row.e2e), rounds them to the dtype's storage
 * format (per tensor; with lo->fp8_prep fa_fp8_prepare on tiles bk, dO per tensor), and computes
 * on the rounded (prepared) inputs the fp64 reference (fa_reference_forward, or
 * fa_reference_backward when lo->bwd), naive attention (standard on tiles bk with the dtype's
 * default numerics) and each algorithm of algos with the dtype's numerics as lo modifies them
 * (an SRAM of 2^40 bytes: precision, not capacity).  Fills one row per algorithm and tensor (1
 * tensor, 3 with lo->bwd), in that order; *n_rows counts the rows filled, also on an error.
 * Errors: FA_EINVAL (fa_check_size with naive attention; lo->fp8_prep with a dtype other than
 * e4m3 or with lo->bwd; those of fa_fp8_prepare), FA_ENOMEM, those of the algorithms. */
fa_status fa_check_lowprec(const fa_shape *s, fa_blocks bk, const fa_algo *algos, int n_algos,
                           const fa_lowprec_opts *lo, gsl_rng *rng, fa_lowprec_row *rows,
                           int *n_rows);

/* ---- a run of the check: the built-in suite or one configuration ---- */

/* What fa_check_suite runs, and the caller's two parts of it. */
typedef struct {
    int lowprec;            /* 0: fa_check_fp64 with tol; 1: fa_check_lowprec with lo, in the shape's dtype */
    const fa_algo *algos;   /* the algorithms, n_algos of them */
    int n_algos;
    double tol;
    fa_lowprec_opts lo;
    unsigned long seed;     /* one mt19937 seeded once: each configuration draws after the one before */
    /* Settles configuration *s before it runs (the caller's defaults and mask files) with its tiles
     * *bk (on entry the suite case's, {0, 0} for the given shape) and, for the fp64 check, the SRAM
     * *M (bytes; 0 on entry).  Returns 0, or a nonzero value that ends the run there. */
    int (*prepare)(void *ctx, fa_shape *s, fa_blocks *bk, uint64_t *M);
    /* Each row in order, on configuration s with tiles bk: r64 (fp64) or rlp (lowprec), the other NULL. */
    void (*row)(void *ctx, const fa_shape *s, fa_blocks bk, const fa_check_row *r64, const fa_lowprec_row *rlp);
    void *ctx;
} fa_check_suite_req;

/* The check of fasim check: given alone when it names any of the seven dimensions (one > 0),
 * else each case of the built-in suite (fa_check_suite_fp64, or _lowprec when q->lowprec) on
 * given's masks and modifiers with the case's dimensions and tiles (its causal mask unless given
 * has one, fa_check_case_shape).  Configuration by configuration: q->prepare, the check, q->row for
 * each row filled.  *stopped receives prepare's nonzero value (nothing after it runs; FA_OK is
 * returned), *any_fail 1 when a row failed (every configuration still runs).  Errors: FA_ENOMEM,
 * those of fa_check_fp64 / fa_check_lowprec (the run ends after the rows filled before the
 * error are reported). */
fa_status fa_check_suite(const fa_check_suite_req *q, const fa_shape *given, int *stopped, int *any_fail);

/* ---- external tensors (.npy; docs/validate.md) ---- */

enum {
    FA_EXT_Q, FA_EXT_K, FA_EXT_V, FA_EXT_O, FA_EXT_LSE, FA_EXT_DO, FA_EXT_DQ, FA_EXT_DK, FA_EXT_DV,
    FA_EXT_N
};

/* An external kernel's tensors, loaded by fa_ext_load; fa_ext_free frees them (also after an error). */
typedef struct {
    const char *path[FA_EXT_N]; /* NULL: not given */
    fa_npy a[FA_EXT_N];         /* the files' data, converted exactly to fp64 */
    int64_t dims[FA_EXT_N][4];  /* (B, H, N, D) of Q, K, V, O and, with the backward, dO .. dV */
    int bnhd;                   /* the files are (B, N, H, d); else (B, H, N, d) */
    int bwd;                    /* dO, dQ, dK, dV given: the backward is checked too */
    fa_shape shape;             /* from the files, the given shape's masks and scale, dtype the
                                   baseline's; a caller may change the masks (mask files) */
    fa_format format;           /* naive attention's precision: the dtype given, else Q's format
                                   (fp32 for fp64 files) */
} fa_ext;

/* Reads the files path[0 .. FA_EXT_N) (q, k, v and out required; lse optional; dout, dq, dk, dv
 * all or none; bf16: 16-bit integer data holds bfloat16 bits), takes (B, H, N, D) of each in the
 * layout (2-D (N, D), 3-D without B), and the shape B, H, H_kv, N_q, N_k, d, d_v from q, k, v.
 * given: the shape options (-1 or 0: not given); a dimension given must equal the files', and its
 * causal mask, scale, masks and modifiers are kept (causal -1: none).  dtype_given: naive
 * attention runs in given->dtype.  Errors: FA_EINVAL (a file missing from the list, a bad file,
 * a contradiction or a mismatch of the shapes, naming the files), FA_EIO, FA_ENOMEM. */
fa_status fa_ext_load(const char *const path[FA_EXT_N], int bnhd, int bf16, const fa_shape *given,
                      int dtype_given, fa_ext *x);

typedef struct {
    int tensor;          /* FA_EXT_O, FA_EXT_LSE, FA_EXT_DQ, FA_EXT_DK or FA_EXT_DV */
    const char *name;    /* "O", "LSE", "dQ", "dK", "dV" */
    const char *path;    /* its file */
    fa_err err;          /* the file's values against the fp64 reference (err.at: flat index in
                            the file) */
    fa_err naive;        /* naive attention in x->format against the reference */
    double bound;        /* factor naive.abs, factor 2 (O, LSE) or 3 (gradients), at most cap */
    double cap;          /* O and gradients: 16 u max|ref| (u the unit roundoff of x->format): a
                            correct kernel errs by a few roundings of its dtype, so a baseline whose
                            own error is beyond that (a collapsed baseline) cannot stretch the bound;
                            LSE: +inf */
    int capped;          /* 1: the cap, not factor naive.abs, set the bound */
    const char *why;     /* a failure the numbers alone do not explain: NaN in the file, an output
                            that overflowed, naive attention that overflowed (no bound); NULL */
    double out, ref;     /* the file's value and the reference at err.at */
    char index[96];      /* err.at as the file's indices, "(0, 5, 0, 5)" */
    char shape_text[96]; /* the file's shape, "(1, 33, 2, 8)" */
    int pass;            /* err.abs <= bound, the bound finite, err not NaN */
} fa_ext_row;

/* The check of docs/validate.md on x->shape: the fp64 reference on the inputs as given, naive
 * attention in x->format (standard on 64 x 64 tiles with that format's default numerics; its LSE
 * from the scores rounded to the storage format, summed in fp32), and a row per output given (O,
 * LSE, dQ, dK, dV in that order, at most 5).  Errors: FA_EINVAL (the shape, fa_check_size, a
 * non-finite input), FA_ENOMEM, those of the algorithms. */
fa_status fa_ext_check(fa_ext *x, fa_ext_row *rows, int *n_rows);

/* Frees what fa_ext_load read (x may be zeroed). */
void fa_ext_free(fa_ext *x);

/* "(B, N, H, d)" or "(B, H, N, d)". */
const char *fa_ext_layout_name(int bnhd);

/* ---- a sample problem (--save-npy) ---- */

/* Writes a sample problem of shape s to the directory dir (created if needed): Q, K, V, dO drawn
 * from a mt19937 generator seeded with seed and rounded to s->dtype, O, LSE, dQ, dK, dV from
 * fasim's flash2 (64 x 64 tiles) in that dtype's numerics as lo modifies them; files q, k, v, o,
 * do, dq, dk, dv .npy in s->dtype (layout (B, N, H, d) when bnhd) and lse.npy (B, H, N_q) fp32.
 * Errors: FA_EINVAL (an fp8 dtype, fa_check_size), FA_EIO (dir cannot be created or is a file,
 * a file cannot be written: "cannot write DIR/q.npy: No space left on device", nothing left
 * behind), FA_ENOMEM.  *write_failed (when not NULL) is 1 when the failure came while writing, after
 * every output was opened (a run's failure, not the input's), else 0. */
fa_status fa_check_save_sample(const char *dir, const fa_shape *s, int bnhd, unsigned long seed,
                               const fa_lowprec_opts *lo, int *write_failed);

/* ---- the error studies (--study; docs/numerics.md) ---- */

/* The study's sizes: every point runs the fp64 reference twice, naive attention (which holds
 * N x N scores) and four tiled algorithms in emulated precision, for five dtypes, so the N
 * sweep costs O(N_max^2 d) and the d sweep O(256^2 d_max).  At the limits it takes minutes
 * (N = 4096: about 4 min on one core). */
#define FA_STUDY_MAX_N 4096
#define FA_STUDY_MAX_D 1024
#define FA_STUDY_ALGOS 4  /* standard, flash1, flash2, flash2_exp2 */
#define FA_STUDY_DTYPES 5 /* fp32, fp16, bf16, fp8_e4m3, fp8_e5m2 */
#define FA_STUDY_MAX_POINTS 64

/* FA_OK when 16 <= maxn <= FA_STUDY_MAX_N and 16 <= maxd <= FA_STUDY_MAX_D.  Errors: FA_EINVAL
 * naming the option over its limit. */
fa_status fa_study_limits(int64_t maxn, int64_t maxd);

typedef struct {
    fa_dtype dtype;
    int64_t N, d;       /* N_q = N_k = N, d = d_v, one head */
    double magnitude;   /* part 2: 1, 4, ..., 1024, the outliers' size (1: none); 0 otherwise */
    unsigned long seed; /* the inputs' seed */
} fa_study_pt;

/* The points of a part of the study, dtype by dtype (fp32, fp16, bf16, fp8_e4m3, fp8_e5m2):
 * part 0 (error vs N): N = 16, 32, ... <= maxn at d = min(maxd, 64), seed + N; part 1 (vs d):
 * d = 16, 32, ... <= maxd at N = min(maxn, 256), seed + d; part 2 (outliers): magnitude
 * 1, 4, ..., 1024 at those N and d, seed.  Returns how many it wrote (at most max_pts). */
int fa_study_points(int part, int64_t maxn, int64_t maxd, unsigned long seed, fa_study_pt *pts,
                    int max_pts);

typedef struct {
    const char *algo;   /* standard, flash1, flash2, flash2_exp2 */
    double abs;         /* max |out - ref|, ref: fp64 reference on the rounded inputs */
    double rel;         /* abs / max |ref| */
    double naive_abs;   /* naive attention's (standard with the default numerics) abs */
    double ratio;       /* abs / naive_abs (0 when naive_abs = 0) */
    double e2e_rel;     /* the error against the fp64 reference on the unrounded inputs, relative */
} fa_study_row;

/* One point: Q, K, V of N(0, 1) (with 8 entries of K set to +-magnitude when it is > 1, as the
 * outliers of LLM activations), the fp64 reference before and after rounding the inputs to the
 * dtype, naive attention and the four algorithms in the dtype's numerics (flash2_exp2: exp2 on)
 * on min(N, 64)-square tiles.  Fills rows[0 .. FA_STUDY_ALGOS).  Errors: FA_ENOMEM, those of the
 * algorithms. */
fa_status fa_study_point(const fa_study_pt *pt, fa_study_row rows[FA_STUDY_ALGOS]);

/* Part part (0, 1, 2: error vs N, vs d, with outliers) of the study as CSV on f: the header
 * "LEAD,dtype,algo,seqlen,d,max_abs_err,rel_err,naive_abs_err,ratio_to_naive,end_to_end_rel_err"
 * (LEAD fixed_d, fixed_n or outlier), then for each point of fa_study_points(part, maxn, maxd,
 * seed) in order one row per algorithm of fa_study_point: LEAD's value (the point's d, its N, or
 * its magnitude as %g), the dtype's name, the algorithm, N, d, then the errors (%.6e).  progress
 * (NULL: none) gets "\rstudy: DTYPE N = 16" (d = .., outlier ..) before each point runs.  A write
 * error on f is left for the caller to find (ferror).  Errors: those of fa_study_point (the rows
 * before the failing point are written). */
fa_status fa_study_csv(FILE *f, int part, int64_t maxn, int64_t maxd, unsigned long seed, FILE *progress);

#endif
