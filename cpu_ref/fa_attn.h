/* fa_attn.h -- attention problems and the CPU algorithms written against the memory model.
 *
 * Layout (all tensors row-major, contiguous):
 *   Q   (B, H,    N_q, d)      K (B, H_kv, N_k, d)      V (B, H_kv, N_k, d_v)
 *   O   (B, H,    N_q, d_v)    LSE, l, m (B, H, N_q)   fp32 in HBM (4 bytes)
 * GQA/MQA: query head h reads kv head h / (H / H_kv).
 * Scale: 1/sqrt(d) unless fa_shape.scale > 0.
 * Causal (bottom-right anchor, the default): key j is allowed for query row i iff
 *   j <= i + N_k - N_q.   With N_q = 2, N_k = 5:   row 0: x x x x .    row 1: x x x x x
 *                          With N_q = 5, N_k = 2:   rows 0-2: none, row 3: x .  row 4: x x
 * Top-left anchor (PyTorch is_causal): j <= i.
 * A row with no allowed key outputs O = 0 and LSE = -inf; no NaN anywhere.
 * Storage sizes: Q, K, V, O, S, P use the element size of the dtype; statistics are fp32.
 * Arithmetic is fp64 unless the memory model carries numerics (fa_mem_set_numerics): then the
 * algorithms emulate a low precision through the hooks of fa_numerics.h (fp32 accumulation, P
 * rounded before P V, stored tensors rounded by fa_store; docs/numerics.md).  Counts never
 * depend on it.
 */
#ifndef FA_ATTN_H
#define FA_ATTN_H

#include <stdint.h>

#include "fa_sim.h"

typedef enum { FA_CAUSAL_NONE = 0, FA_CAUSAL_BOTTOM_RIGHT = 1, FA_CAUSAL_TOP_LEFT = 2 } fa_causal;
typedef enum {
    FA_DTYPE_FP32 = 0,
    FA_DTYPE_FP16 = 1,
    FA_DTYPE_BF16 = 2,
    FA_DTYPE_E4M3 = 3, /* OCP FP8 E4M3 */
    FA_DTYPE_E5M2 = 4  /* OCP FP8 E5M2 */
} fa_dtype;

/* ---- dtypes and shapes (cpu_ref/shape.c) ---- */

/* Bytes per element of a dtype in HBM (fp32: 4, fp16/bf16: 2, fp8: 1). */
int fa_dtype_bytes(fa_dtype t);
const char *fa_dtype_name(fa_dtype t);
/* Parses "fp32", "fp16", "bf16", "fp8_e4m3" (or "fp8", "e4m3"), "fp8_e5m2" (or "e5m2").
 * Errors: FA_EINVAL naming the value. */
fa_status fa_dtype_parse(const char *s, fa_dtype *t);
/* The number format of a dtype (fa_precision.h). */
fa_format fa_dtype_format(fa_dtype t);

/* Block-sparse mask (FlashAttention Proposition 4): bits[i * n_c + j] = 1 when the block of
 * query rows [i*block_r, ...) x keys [j*block_c, ...) is computed, 0 when it is masked out.
 * n_r = ceil(N_q / block_r), n_c = ceil(N_k / block_c).  Shared by every batch and head. */
typedef struct {
    int64_t block_r, block_c;
    int64_t n_r, n_c;
    const uint8_t *bits;
} fa_block_mask;

/* FlashMask-style column-wise sparse mask: for key column j the query rows in
 * [lo1[j], hi1[j]) and in [lo2[j], hi2[j]) are masked (empty when lo >= hi).  Two ranges per
 * column express causal document masking (rows of later documents, and rows above the
 * diagonal) and shared-prefix masks.  Arrays of N_k entries; shared by every batch and head. */
typedef struct {
    const int32_t *lo1, *hi1, *lo2, *hi2;
} fa_col_mask;

/* One attention problem. */
typedef struct {
    int64_t batch;    /* B */
    int64_t heads;    /* H, query heads */
    int64_t kv_heads; /* H_kv, divides H (H_kv == H: MHA, 1: MQA) */
    int64_t seqlen_q; /* N_q */
    int64_t seqlen_k; /* N_k */
    int64_t d;        /* head dimension of Q and K (d_qk) */
    int64_t d_v;      /* head dimension of V and O */
    double scale;     /* softmax scale; <= 0 means 1/sqrt(d) */
    fa_causal causal;
    fa_dtype dtype;
    /* ---- masks and score modifiers (all off when zero) ----
     * Order of score operations: scale -> softcap -> ALiBi bias -> mask -> softmax. */
    int window;                       /* 1: sliding window on (bottom-right anchor): key j is
                                         allowed for row i iff
                                         i + N_k - N_q - window_left <= j <= i + N_k - N_q + window_right */
    int64_t window_left;              /* < 0: unbounded on the left */
    int64_t window_right;             /* < 0: unbounded on the right; (W-1, 0) = W-token causal */
    double softcap;                   /* > 0: S = softcap * tanh(S / softcap) after the scale */
    int alibi;                        /* 1: add -slope_h * |i + N_k - N_q - j| */
    const double *alibi_slopes;       /* H slopes (fp32 values); NULL: 2^(-8 (h + 1) / H) */
    const fa_block_mask *block_mask;  /* NULL: none */
    const fa_col_mask *col_mask;      /* NULL: none */
    double dropout_p;                 /* in [0, 1): P_ij is dropped with probability p and the
                                         kept ones scaled by 1/(1 - p), before P V */
    uint64_t dropout_seed;            /* the keep mask is Philox4x32-10 of (seed; i, j, b H + h) */
    const uint8_t *dense_mask;        /* NULL: none; else N_q x N_k bytes, 1 = allowed; the
                                         IO-expensive path: every visited tile loads its mask
                                         tile from HBM and no tile can be skipped by it */
    /* ---- algorithm options (flash2 forward only; other algorithms ignore them) ---- */
    double rescale_threshold;         /* tau >= 0, log2 units: FlashAttention-4's conditional
                                         rescaling (fa_tile_online_softmax_cond); 0: rescale O_i,
                                         l_i on every tile (FlashAttention-2) */
} fa_shape;

/* Tile sizes: B_r rows of Q per tile, B_c rows of K/V per tile. */
typedef struct {
    int64_t block_r; /* B_r */
    int64_t block_c; /* B_c */
} fa_blocks;

/* A shape with B = H = H_kv = 1, N_q = N_k = n, d_v = d, fp16, no mask. */
fa_shape fa_shape_default(int64_t n, int64_t d);

/* Checks a shape: every size >= 1, H a multiple of H_kv, sizes below 2^31 per dimension.
 * Errors: FA_EINVAL with a message naming the value and the limit. */
fa_status fa_shape_check(const fa_shape *s);

/* Checks tile sizes: B_r >= 1 and B_c >= 1 (rows of Q and of K/V per tile; whether the tiles
 * fit M is the SRAM allocator's check).  Errors: FA_EINVAL naming both values. */
fa_status fa_blocks_check(fa_blocks bk);

/* The scale actually used (1/sqrt(d) unless s->scale > 0). */
double fa_shape_scale(const fa_shape *s);

/* ---- masks, score modifiers and dropout (cpu_ref/modifiers.c) ---- */

/* Offset of the causal diagonal: key j allowed for row i iff j <= i + offset. */
int64_t fa_causal_offset(const fa_shape *s);

/* 1 if key j is allowed for query row i (causal, window, block, column and dense masks). */
int fa_mask_allowed(const fa_shape *s, int64_t i, int64_t j);

/* 1 if the shape has any mask (then outer tile loops cannot merge rows in count-only mode). */
int fa_has_mask(const fa_shape *s);

/* Dropout's keep bit of P_ij for (batch b, query head h): a pure function of (seed, b, h, i, j),
 * the same in the forward and the backward.  1 when dropout is off. */
int fa_dropout_keep(const fa_shape *s, int64_t b, int64_t h, int64_t i, int64_t j);

/* Philox4x32-10 (Salmon et al. 2011, "Parallel random numbers: as easy as 1, 2, 3"): the
 * counter-based generator FlashAttention's dropout draws from.  out[4] from ctr[4], key[2]. */
void fa_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The ALiBi slope of query head h (0 when ALiBi is off). */
double fa_alibi_slope(const fa_shape *s, int64_t h);

/* The score of (h, i, j) from the raw dot product q_i . k_j: scale -> softcap -> ALiBi, or -inf
 * when masked.  *dscore (if non-NULL) receives d score / d dot (scale * (1 - tanh^2) with a
 * softcap, the scale otherwise; 0 when masked). */
double fa_score(const fa_shape *s, int64_t h, int64_t i, int64_t j, double dot, double *dscore);

/* ---- tile spans: classes, spans, runs (cpu_ref/spans.c) ---- */

/* Class of the tile rows [r0, r0+rows) x keys [c0, c0+cols). */
typedef enum { FA_TILE_SKIP = 0, FA_TILE_PARTIAL = 1, FA_TILE_FULL = 2 } fa_tile_class;
fa_tile_class fa_tile_classify(const fa_shape *s, int64_t r0, int64_t rows, int64_t c0,
                               int64_t cols);

/* For the row block [r0, r0+rows): the number of K/V tiles of width B_c a row block visits
 * (tiles 0 .. n_visit-1 hold at least one allowed key) and the number of leading tiles in
 * which every key is allowed for every row (n_full <= n_visit).  Without a mask both are T_c. */
void fa_kv_tiles(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *n_visit,
                 int64_t *n_full);

/* For the key tile [c0, c0+cols): the first row block (of height B_r) that has an allowed key in
 * it (T_r if none), and the first row block from which on every row allows every key of it. */
void fa_q_tiles(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *i_lo,
                int64_t *i_full);

/* The K/V tiles row block [r0, r0+rows) may visit: [*lo, *hi), of which those in
 * [*full_lo, *full_hi) are FULL; the others must be classified (fa_tile_classify) and may be
 * SKIP.  Without a mask: lo = full_lo = 0, hi = full_hi = T_c. */
void fa_kv_span(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *lo,
                int64_t *hi, int64_t *full_lo, int64_t *full_hi);

/* The row blocks that may visit key tile [c0, c0+cols): [*lo, *hi), FULL in
 * [*full_lo, *full_hi), as fa_kv_span. */
void fa_q_span(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *lo,
               int64_t *hi, int64_t *full_lo, int64_t *full_hi);

/* Over the tiles row block [r0, r0+rows) visits (not SKIP): how many (*tiles) and how many keys
 * they hold (*keys); the FULL region is summed in closed form.  Used by the closed forms. */
void fa_kv_span_sum(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c, int64_t *tiles,
                    int64_t *keys);
/* Over the row blocks that visit key tile [c0, c0+cols): how many and how many query rows. */
void fa_q_span_sum(const fa_shape *s, int64_t c0, int64_t cols, int64_t block_r, int64_t *blocks,
                   int64_t *qrows);

/* ---- tile iterators (cpu_ref/spans.c): the count-only machinery of the tiled loops ----
 * A tiled loop visits identical slices (the (b, h) pairs of a tensor, or the g query heads of a
 * GQA group) and in each the tiles t in [lo, hi) of one axis: row blocks i of B_r rows, or K/V
 * tiles j of B_c keys.  An iterator yields the visits, so that a loop body is the paper's lines:
 *     fa_status st = FA_OK;
 *     for (fa_tile_iter j = fa_iter_kv(mem, s, r0, rows, B_c); fa_iter_next(&j, &st);)
 *         ... K_j, V_j: keys [j.x0, j.x0 + j.len) ...
 *     FA_TRY(st);
 * Yields: the slice (b, h), the tile t, its first row or key x0 and its length len (B, or the
 * shorter tail), in order: slice by slice (b major), tiles ascending.  Tiles the mask leaves
 * SKIP (fa_tile_classify) are never yielded.
 * Weights: where fa_mem_may_merge(mem) (count-only mode, no trace, no sink), the slices are one
 * visit (b = h = 0) of weight (number of slices), and a run of w identical tiles (it.w = w) is one
 * visit, tile t, of weight w: inside a span's FULL core the tiles up to the tail tile (a run of
 * its own); with merge = 0 every tile is its own run.  Otherwise every slice and tile is visited
 * and w = 1.  fa_iter_next pushes the weight of the visit it yields (fa_mem_push_weight, only
 * weights above 1; the slices' weight with the first visit) and pops it on the next call.
 * Errors: fa_iter_next returns 0 when the tiles are done, or when *st is not FA_OK on entry (a
 * body that failed into *st ends the loop, its weights popped); a weight that cannot be pushed
 * is stored in *st (FA_EINVAL, FA_EOVERFLOW).  A body that returns early (FA_TRY) leaves its
 * weights pushed: every algorithm's entry point restores the depth (fa_mem_restore_weight). */
typedef struct {
    int64_t b, h;    /* the slice: batch and head (query head, or head of the GQA group) */
    int64_t t;       /* the tile: row block i or K/V tile j */
    int64_t x0, len; /* its first row or key and its length */
    int64_t w;       /* this visit stands for tiles t .. t + w - 1 */
    /* private */
    fa_mem *mem;
    const fa_shape *s;          /* classifies the tiles outside the core (NULL: none is SKIP) */
    int kv;                     /* 1: K/V tiles of the row block [f0, f0 + flen); 0: row blocks */
    int64_t f0, flen, n, B;     /* ... of the key tile [f0, f0 + flen); the axis: length, tile */
    int64_t lo, hi, full_lo, full_hi; /* the span and its FULL core (runs merge in it) */
    int64_t heads, slices, slice, sw; /* heads per batch; slices visited, the current; weight */
    int phase, pushed;          /* 0: not started, 1: visiting, 2: done; a tile weight pushed */
} fa_tile_iter;

/* The tiles of [0, n) in tiles of B (row blocks, or K/V tiles without a span) of each of the
 * batch x heads slices; merge = 0: no runs (a mask makes tiles differ). */
fa_tile_iter fa_iter_rows(fa_mem *mem, int64_t batch, int64_t heads, int64_t n, int64_t B,
                          int merge);
/* The batch x heads slices alone (t = 0, one tile each). */
fa_tile_iter fa_iter_slices(fa_mem *mem, int64_t batch, int64_t heads);
/* The K/V tiles (of B_c keys) row block [r0, r0 + rows) sees: fa_kv_span, SKIP tiles left out. */
fa_tile_iter fa_iter_kv(fa_mem *mem, const fa_shape *s, int64_t r0, int64_t rows, int64_t Bc);
/* The same tiles cut to the chunk [t0, t1) of K/V tiles (a split-KV thread block's share). */
fa_tile_iter fa_iter_kv_chunk(fa_mem *mem, const fa_shape *s, int64_t r0, int64_t rows, int64_t Bc,
                              int64_t t0, int64_t t1);
/* The row blocks (of B_r rows) of each of `heads` query heads that see the key tile
 * [c0, c0 + cols): fa_q_span, SKIP blocks left out. */
fa_tile_iter fa_iter_q(fa_mem *mem, const fa_shape *s, int64_t heads, int64_t c0, int64_t cols,
                       int64_t Br);
/* The tiles [lo, hi) of [0, n) in tiles of B, none SKIP, of which [lo, full_hi) merge. */
fa_tile_iter fa_iter_span(fa_mem *mem, int64_t n, int64_t B, int64_t lo, int64_t hi,
                          int64_t full_hi);
/* 1 if a fresh iterator will yield nothing (no tile of its span has an allowed key). */
int fa_iter_empty(const fa_tile_iter *it);
/* Advances to the next visit (see above); 1 if there is one. */
int fa_iter_next(fa_tile_iter *it, fa_status *st);

/* ceil(a / b) for a >= 0, b > 0. */
static inline int64_t fa_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Length of the tile that starts at x0 on an axis of length n with tile size B: B, or the
 * shorter tail. */
static inline int64_t fa_tile_len(int64_t x0, int64_t n, int64_t B) { return n - x0 < B ? n - x0 : B; }

/* ---- tile operations (cpu_ref/tile_ops.c); every one counts its FLOPs ---- */

/* C[m x n] (+)= A[m x k] * B[n x k]^T; lda/ldb/ldc are leading dimensions. 2mnk FLOPs. */
fa_status fa_tile_matmul_abt(fa_mem *mem, double *C, int64_t ldc, const double *A, int64_t lda,
                             const double *B, int64_t ldb, int64_t m, int64_t n, int64_t k,
                             int accumulate);
/* C[m x n] (+)= A[m x k] * B[k x n].  2mnk FLOPs. */
fa_status fa_tile_matmul_ab(fa_mem *mem, double *C, int64_t ldc, const double *A, int64_t lda,
                            const double *B, int64_t ldb, int64_t m, int64_t n, int64_t k,
                            int accumulate);
/* S *= scale (m*n FLOPs), then S = -inf where the mask forbids (r0+i, c0+j) when the tile
 * is partial (masking counts no FLOPs: it is a comparison and a select). */
fa_status fa_tile_scale_mask(fa_mem *mem, const fa_shape *s, double *S, int64_t lds, int64_t r0,
                             int64_t rows, int64_t c0, int64_t cols, double scale);
/* The scores of a tile from its raw products Q_i K_j^T (in S, in place): scale -> softcap ->
 * ALiBi (query head h) -> mask (-inf), as fa_score.  The buffer F (if non-NULL) receives the
 * derivative d score / d raw product (for the backward).  FLOPs (other) per element: 1 (scale)
 * + 3 (softcap) + 2 (ALiBi) + 3 (softcap derivative, when F is given); masking counts none. */
fa_status fa_tile_scores(fa_mem *mem, const fa_shape *s, int64_t h, double *S, int64_t lds,
                         fa_buf *F, int64_t r0, int64_t rows, int64_t c0, int64_t cols);

/* Dropout on a tile of P (or of dP in the backward): X_ij *= keep(b, h, r0+i, c0+j) / (1 - p).
 * FLOPs (other): rows*cols when p > 0 (the multiply; the random bits are not FLOPs). */
fa_status fa_tile_dropout(fa_mem *mem, const fa_shape *s, int64_t b, int64_t h, double *X,
                          int64_t ldx, int64_t r0, int64_t rows, int64_t c0, int64_t cols);

/* X *= F elementwise on the top-left rows x cols.  FLOPs (other): rows*cols. */
fa_status fa_tile_mul(fa_mem *mem, double *X, int64_t ldx, const double *F, int64_t ldf,
                      int64_t rows, int64_t cols);

/* Sets S = -inf where the mask forbids (no FLOPs). */
void fa_tile_mask(const fa_mem *mem, const fa_shape *s, double *S, int64_t lds, int64_t r0,
                  int64_t rows, int64_t c0, int64_t cols);

/* exp(x - m) with the guard for fully masked rows: 0 when x == -inf (m may be -inf too).
 * Defined in numerics.c: the default of the hook fa_num_exp (fa_numerics.h). */
double fa_exp_guarded(double x, double m);

/* FlashAttention-2 online-softmax step (Dao 2023, Alg. 1 line 9 and the rescale that opens
 * line 10) on one S tile, S_ij = Q_i K_j^T already computed (line 8) and scaled and masked:
 * for each row r: m_new = max(m[r], rowmax S[r]); P[r] = exp(S[r] - m_new) in place;
 * l[r] = exp(m[r] - m_new) l[r] + rowsum P[r]; O[r] *= exp(m[r] - m_new); m[r] = m_new.
 * The rest of line 10, O_i += P~_ij V_j, is the caller's product (fa_tile_matmul_ab).
 * FLOPs (other): 4*rows*cols + 5*rows + rows*dv.  See docs/io-model.md. */
fa_status fa_tile_online_softmax(fa_mem *mem, double *S, int64_t lds, double *m, double *l,
                                 double *O, int64_t ldo, int64_t rows, int64_t cols, int64_t dv);

/* fa_tile_online_softmax with FlashAttention-4's conditional rescaling (Zadouri et al. 2026,
 * arXiv 2603.05451; Dao-AILab/flash-attention flash_attn/cute/softmax.py, SoftmaxSm100
 * update_row_max, rescale_threshold = 8.0 for 16-bit inputs): a row whose max grows by at most
 * tau in log2 units ((m_new - m_old) log2(e) <= tau; scores already in log2 units with the
 * numerics' exp2) keeps its stale max: P = exp(S - m_old) <= 2^tau, l and O are not rescaled.
 * Otherwise, and on a row's first real score, m, l and O move to the new max as FA-2 does.  The
 * final O / l and LSE = m + log l use the same stale max, so the result is exact.  tau = 0 is
 * fa_tile_online_softmax exactly (every tile rescales).  *rescaled (if non-NULL) receives 1 when
 * some row rescaled (tau = 0: always; count-only mode, which sees no scores: always -- the upper
 * bound), else 0.  FLOPs: the unconditional count of fa_tile_online_softmax in every case (a
 * count must not depend on data: the skipped multiplies are what *rescaled reports).
 * Errors: FA_EINVAL for tau < 0 or not finite; FA_EOVERFLOW. */
fa_status fa_tile_online_softmax_cond(fa_mem *mem, double *S, int64_t lds, double *m, double *l,
                                      double *O, int64_t ldo, int64_t rows, int64_t cols, int64_t dv,
                                      double tau, int *rescaled);

/* The dense mask's HBM side (cpu_ref/modifiers.c; the IO-expensive path): with s->dense_mask
 * set, a counted tensor "mask" (N_q x N_k bytes) and a B_r x B_c byte buffer in SRAM; every tile
 * that applies the mask loads its mask tile first.  Without a dense mask every call is a no-op. */
typedef struct {
    fa_tensor t;
    fa_buf buf;
    int on;
} fa_mask_io;
fa_status fa_mask_io_init(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_mask_io *m);
fa_status fa_mask_io_load(fa_mem *mem, fa_mask_io *m, int64_t r0, int64_t rows, int64_t c0,
                          int64_t cols);
void fa_mask_io_free(fa_mask_io *m);

/* ---- algorithms ---- */

/* fp64 reference, no memory model: O = softmax(scale Q K^T + mask) V, LSE = log sum exp.
 * Shapes as in the header comment; LSE may be NULL.  Errors: FA_EINVAL (shape). */
fa_status fa_reference_forward(const fa_shape *s, const double *Q, const double *K,
                               const double *V, double *O, double *LSE);

/* Standard attention (FlashAttention paper, Algorithm 0) as three kernels, each tiled under
 * M with the same B_r x B_c tiles: (1) S = scale Q K^T written to HBM; (2) P = softmax(S)
 * (masked) written to HBM, with two passes over S when a row does not fit one tile (N_k > B_c);
 * (3) O = P V.  S and P are (B, H, N_q, N_k) in the dtype.  No tile is skipped (the
 * unfused baseline materializes all of S and P, as PyTorch's math backend does).
 * Numeric mode: Q, K, V, O non-NULL; count-only mode: all NULL.
 * Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_standard_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                              const double *K, const double *V, double *O);

/* FlashAttention Algorithm 1 (Dao et al. 2022), literally: O, l, m initialised in HBM; outer
 * loop over K_j, V_j; inner loop over Q_i that loads Q_i, O_i, l_i, m_i and writes O_i, l_i,
 * m_i back every step.  Fully masked tiles are skipped (not loaded).  O (B,H,N_q,d_v),
 * l and m (B,H,N_q) as in line 13 (rows with no key: l = 0, m = -inf, O = 0).
 * Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_flash1_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                            const double *K, const double *V, double *O, double *l, double *m);

/* FlashAttention-2 forward (Dao 2023, Algorithm 1): outer loop over Q_i, inner over K_j, V_j;
 * O_i kept unnormalised on chip, one final rescale by diag(l)^-1, LSE_i = m_i + log l_i stored.
 * Row blocks with no allowed key load nothing and store O = 0, LSE = -inf.
 * s->rescale_threshold > 0: FlashAttention-4's conditional rescaling (fa_tile_online_softmax_cond).
 * Every row block reports its rescales to the memory model (fa_count_rescales): steps = the K/V
 * tiles it visits (T_c without a mask), rescales = the tiles in which some row of it rescaled;
 * with tau = 0 and in count-only mode rescales = steps.
 * Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_flash2_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                            const double *K, const double *V, double *O, double *LSE);

/* FlashAttention-2's split-KV forward (flash_fwd_splitkv_kernel + its combine kernel, the
 * kernel PyTorch's flash backend runs when a grid of row blocks would not fill the GPU):
 * row block i's key tiles (those fa_iter_kv yields) in S chunks of c = ceil(T_c / S) tiles,
 * chunk q = [q c, (q + 1) c); one thread block per (batch, head, chunk, row block) runs
 * Algorithm 1 lines 4-13 over its chunk (Q_i loaded only when the chunk has a tile) and stores
 * its partial O_q (normalised over the chunk) and LSE_q, fp32, in
 *   O_part   (B, H, N_q, S * d_v)   chunk q in columns [q d_v, (q+1) d_v)
 *   LSE_part (B, H, N_q, S)
 * (a chunk with no tile or no allowed key stores the merge's identity O_q = 0, LSE_q = -inf).
 * The combine kernel then reads every partial, fa_split_combine_rows rows a thread block, and
 * writes O and LSE (fa_split_combine).  S = 1 is fa_flash2_forward exactly.  Numerically
 * O and LSE equal fa_flash2_forward's to rounding.  Errors: FA_EINVAL (S < 1 or S > T_c), and
 * those of fa_flash2_forward. */
fa_status fa_flash2_forward_split(fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t splits,
                                  const double *Q, const double *K, const double *V, double *O,
                                  double *LSE);

/* Rows a thread block of the split-KV combine kernel merges: 4, 8 or 16 as the head dim
 * rounded to 32 is a multiple of 128, of 64, or neither (FlashAttention-2's kBlockM). */
int64_t fa_split_combine_rows(const fa_shape *s);

/* Number of elements of each tensor of a shape (cpu_ref/shape.c). */
int64_t fa_numel_q(const fa_shape *s);
int64_t fa_numel_k(const fa_shape *s);
int64_t fa_numel_v(const fa_shape *s);
int64_t fa_numel_o(const fa_shape *s);
int64_t fa_numel_stats(const fa_shape *s);

#endif
