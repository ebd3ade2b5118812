/* fa_bwd.h -- the attention backward pass: an fp64 reference and three tiled algorithms written
 * against the memory model (sim/), plus the tile operations they add.
 *
 * Definitions (per query head, S and P of the forward, fa_attn.h for masks and layout):
 *   S = tau Q K^T (masked entries -inf),  P = softmax(S) row-wise,  O = P V,  tau = fa_shape_scale
 *   given dO = dL/dO (B, H, N_q, d_v):
 *   dV = P^T dO                    (N_k, d_v)
 *   dP = dO V^T                    (N_q, N_k)
 *   D_i = sum_j P_ij dP_ij = rowsum(dO_i o O_i)          (N_q)
 *   dS = P o (dP - D)              (N_q, N_k)   (o: elementwise product)
 *   dQ = tau dS K                  (N_q, d)
 *   dK = tau dS^T Q                (N_k, d)
 * GQA/MQA: kv head hk is read by query heads hk*g .. hk*g+g-1 (g = H / H_kv), so dK and dV of
 * kv head hk sum the contributions of those g query heads.  A row with no allowed key has
 * P = 0, so dQ = 0 for it and it adds nothing to dK, dV; no NaN anywhere.
 *
 * Layout of the gradients: dQ like Q (B, H, N_q, d), dK like K (B, H_kv, N_k, d), dV like V
 * (B, H_kv, N_k, d_v), dO like O (B, H, N_q, d_v).  In HBM they use the element size of the
 * dtype; FlashAttention-2's dQ accumulator "dQacc" and the row vector D are fp32 (4 bytes).
 * Every algorithm writes every element of dQ, dK and dV (callers need not zero them).
 *
 * Loop order for GQA, in all three tiled backwards: a K/V tile of kv head hk is loaded once and
 * its dK_j, dV_j accumulate on chip over the g query heads that read it (the g heads' row blocks
 * form one longer inner loop).  Derivations of every count: docs/io-model-backward.md.
 */
#ifndef FA_BWD_H
#define FA_BWD_H

#include "fa_attn.h"

/* ---- tile operations added for the backward (cpu_ref/tile_ops.c); each counts its FLOPs ---- */

/* C[m x n] (+)= A[k x m]^T * B[k x n]; lda, ldb, ldc are leading dimensions. 2mnk FLOPs. */
fa_status fa_tile_matmul_atb(fa_mem *mem, double *C, int64_t ldc, const double *A, int64_t lda,
                             const double *B, int64_t ldb, int64_t m, int64_t n, int64_t k,
                             int accumulate);

/* Sets every element of a cap_rows x ld buffer X outside its top-left rows x cols to v: the pad
 * of a tail tile (no FLOPs).  The backward recompute pads S with -inf so that P = 0 there. */
void fa_tile_pad(double *X, int64_t ld, int64_t cap_rows, int64_t rows, int64_t cols, double v);

/* P recomputed from the logsumexp (FlashAttention-2 bwd, Alg. 2 line 11): for r < rows,
 * P[r] = exp(S[r] - L[r]) in place; a masked score (-inf) gives exactly 0, also when the whole
 * row is masked and L[r] = -inf.  Pad rows/columns up to cap_rows x lds must hold -inf
 * (fa_tile_pad) and become 0.  FLOPs (other): 2*rows*cols. */
fa_status fa_tile_exp_lse(fa_mem *mem, double *S, int64_t lds, int64_t cap_rows, const double *L,
                          int64_t rows, int64_t cols);

/* D[r] = sum_c A[r, c] * B[r, c] for r < rows (D_i = rowsum(dO_i o O_i), FlashAttention
 * Alg. 4 line 19).  FLOPs (other): 2*rows*cols. */
fa_status fa_tile_rowdot(fa_mem *mem, double *D, const double *A, int64_t lda, const double *B,
                         int64_t ldb, int64_t rows, int64_t cols);

/* dS = P o (dP - D) in place of dP (FlashAttention Alg. 4 line 20), then dS *= scale when
 * scale != 1.  FLOPs (other): 2*rows*cols, plus rows*cols when scaled. */
fa_status fa_tile_dsoftmax(fa_mem *mem, double *dP, int64_t ldp, const double *P, int64_t ldpp,
                           const double *D, int64_t rows, int64_t cols, double scale);

/* X[r, c] *= a for the top-left rows x cols.  FLOPs (other): rows*cols. */
fa_status fa_tile_scale(fa_mem *mem, double *X, int64_t ldx, int64_t rows, int64_t cols, double a);

/* A row-block kernel of unfused (standard) attention, for query head (b, h): C = X Y^T tile by
 * tile, with X of shape (B, H, N_q, n) (Q or dO), Y of shape (B, H_kv, N_k, n) at the kv head
 * of h (K or V), C of shape (B, H, N_q, N_k) (S or dP).  Per Q block i (a thread block): load
 * X_i once, then for each K/V block j load Y_j, C_ij = X_i Y_j^T (fp32 in SRAM), post-process
 * and store C_ij.  scores = 1: C is S, so the scale, the masks and score modifiers
 * (fa_tile_scores, with any mask tiles they read) and the emulated precision apply; scores = 0:
 * C is dP, multiplied by the dropout mask.  names: the SRAM buffers of X_i, Y_j, C_ij.
 * Sources: Dao et al. 2022, Algorithm 0 line 1 (S = Q K^T) and Algorithm 3 line 2
 * (dP = dO V^T).  Errors: FA_ENOMEM (the tiles do not fit M), FA_EINVAL from the loads and
 * stores, those of the mask files. */
fa_status fa_std_rows_abt(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *X, fa_tensor *Y,
                          fa_tensor *C, int64_t n, const char *const names[3], int64_t b, int64_t h,
                          int scores);

/* The row-block GEMM kernel of unfused (standard) attention, for query head (b, h):
 * C = a * A B with A of shape (B, H, N_q, N_k) (P or dS), B of shape (B, H_kv, N_k, n) read at
 * the kv head of h (V or K), C of shape (B, H, N_q, n) (O or dQ).  Per Q block i (a thread
 * block, B_r rows): for each K/V block j load A_ij (B_r x B_c, fp32 in SRAM) and B_j (B_c x n,
 * the dtype), C_i += A_ij B_j; then C_i *= a when a > 0, and store C_i.  drop: A is P, so the
 * dropout mask and the rounding of the P operand to the dtype apply to A_ij before the product.
 * names: the SRAM buffers of A_ij, B_j, C_i.  Sources: Dao et al. 2022, Algorithm 0 line 3
 * (O = P V) and Algorithm 3 line 4 (dQ = dS K; here times tau = a).  Errors: FA_ENOMEM (the three tiles do not
 * fit M), FA_EINVAL from fa_load/fa_store. */
fa_status fa_std_rows_gemm(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *A, fa_tensor *Bm,
                           fa_tensor *C, int64_t n, double a, const char *const names[3], int64_t b,
                           int64_t h, int drop);

/* Zeroes a numeric buffer (no effect on a count-only one). */
void fa_buf_zero(fa_buf *b);

/* The inner step of a backward pass for row block i of query head (b, h) against the K/V tile
 * [c0, c0 + cols) already on chip; ctx is the algorithm's own state. */
typedef fa_status (*fa_bwd_step_fn)(fa_mem *mem, void *ctx, int64_t b, int64_t h, int64_t i,
                                    int64_t c0, int64_t cols);

/* What the K/V-tile loop of fa_bwd_kv_slice works on. */
typedef struct {
    fa_tensor *K, *V, *dK, *dV;  /* (B, H_kv, N_k, d) and (B, H_kv, N_k, d_v) in HBM */
    fa_buf *Kj, *Vj, *dKj, *dVj; /* B_c x d, B_c x d_v tiles in SRAM; dK_j, dV_j in fp32 */
    int program_per_tile;        /* 1: a thread block per K/V tile (FlashAttention-2's main
                                    kernel); 0: the caller set one per kv head (FlashAttention-1) */
    fa_bwd_step_fn step;
    void *ctx;
} fa_bwd_kv_loop;

/* The outer loop of the FlashAttention backward passes for kv head (b, hk) (Dao et al. 2022
 * Alg. 4 lines 6-9 and 24; Dao 2023 Alg. 2 lines 5-8 and 18): for every K/V tile j, dK_j = dV_j
 * = 0 on chip; if some row block may see the tile (the causal / window / key-length span,
 * fa_q_span), K_j and V_j are loaded once and step() runs for every query head of the GQA group
 * and every row block with an allowed key in the tile; dK_j, dV_j are stored (0 for a tile no row
 * may see, which is never loaded).  Equal tiles and heads are merged with weights in count-only
 * mode.  Errors: whatever the loads, the stores and step() return. */
fa_status fa_bwd_kv_slice(fa_mem *mem, const fa_shape *s, fa_blocks bk, const fa_bwd_kv_loop *L,
                          int64_t b, int64_t hk);

/* ---- algorithms ---- */

/* fp64 reference backward, no memory model: recomputes P from Q, K by the definition (no
 * stored statistic), then dV, dP, D = rowsum(P o dP), dS, dQ, dK directly, row by row.
 * Independent of every tiled algorithm.  Errors: FA_EINVAL (shape, NULL array), FA_ENOMEM. */
fa_status fa_reference_backward(const fa_shape *s, const double *Q, const double *K,
                                const double *V, const double *dO, double *dQ, double *dK,
                                double *dV);

/* fp64 probabilities P = softmax(tau Q K^T + mask), (B, H, N_q, N_k); rows with no allowed key
 * are 0.  This is the P standard attention keeps in HBM for its backward.
 * Errors: FA_EINVAL, FA_ENOMEM. */
fa_status fa_reference_probs(const fa_shape *s, const double *Q, const double *K, double *P);

/* Standard attention backward, FlashAttention paper (Dao et al. 2022) Algorithm 3, as five
 * kernels each tiled under M with B_r x B_c tiles:
 *   (1) dV = P^T dO     (2) dP = dO V^T -> HBM     (3) dS = P o (dP - D), D_i = sum_j P_ij dP_ij,
 *       dS -> HBM (two passes over P and dP when a row spans several tiles, N_k > B_c)
 *   (4) dQ = tau dS K   (5) dK = tau dS^T Q.
 * P (B, H, N_q, N_k) is read back from HBM; dP and dS are materialised in the dtype.  No tile is
 * skipped (the unfused baseline, as the standard forward).  Numeric mode: all arrays non-NULL;
 * count-only mode: all NULL.  Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_standard_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                               const double *K, const double *V, const double *P,
                               const double *dO, double *dQ, double *dK, double *dV);

/* FlashAttention backward, Algorithm 4 of Dao et al. 2022, literally: dQ = 0 initialised in HBM
 * (line 5); outer loop over K_j, V_j (dK_j, dV_j accumulate in SRAM, written once, line 24);
 * inner loop loads Q_i, O_i, dO_i, dQ_i, l_i, m_i (line 10), recomputes
 * P_ij = diag(l_i)^-1 exp(S_ij - m_i) (line 13), D_i = rowsum(dO_i o O_i) (line 19) and writes
 * dQ_i back every inner step (line 21).  l, m: (B, H, N_q) from fa_flash1_forward.  Causal:
 * tiles with no allowed key are skipped (not loaded); a K/V tile no row sees gets dK_j = dV_j = 0
 * stored without loading anything.  Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_flash1_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                             const double *K, const double *V, const double *O,
                             const double *l, const double *m, const double *dO, double *dQ,
                             double *dK, double *dV);

/* FlashAttention-2 backward (Dao 2023, Algorithm 2) as FlashAttention-2's three kernels:
 *   pre-pass (line 4): D = rowsum(dO o O) -> HBM (fp32), dQacc = 0 -> HBM (fp32, line 3);
 *   main (lines 5-19): outer loop over K_j, V_j, inner over Q_i loading Q_i, dO_i, LSE_i, D_i;
 *       P_ij = exp(S_ij - LSE_i); dQacc_i read-modify-written in fp32 every inner step (line 15,
 *       atomic adds on a GPU); dK_j, dV_j written once per outer step;
 *   post-pass: dQ = dQacc converted to the dtype.
 * The paper's line 9 also lists O_i, which nothing reads once D is in HBM: it is not loaded.
 * LSE: (B, H, N_q) from fa_flash2_forward (-inf for rows with no key).  Causal skipping and
 * skipped K/V tiles as in fa_flash1_backward.
 * Errors: FA_EINVAL, FA_ENOSRAM, FA_EOVERFLOW, FA_ENOMEM. */
fa_status fa_flash2_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                             const double *K, const double *V, const double *O,
                             const double *LSE, const double *dO, double *dQ, double *dK,
                             double *dV);

#endif
