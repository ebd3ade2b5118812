/* fa_fp8.h -- the FP8 forward of FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608, section
 * 3.3 "Low-precision with FP8"), emulated: the input preparation of an FP8 kernel (incoherent
 * processing, block quantization) and FlashAttention-2's forward in fasim's e4m3 numerics on the
 * prepared inputs.  docs/numerics.md, "FP8 forward: block quantization and incoherent processing".
 *
 * The three steps, in the order fa_fp8_forward runs them on copies of Q, K, V:
 *   1. incoherent processing (optional): every row x (length d, a power of two) of Q and of K
 *      becomes x M with M = diag(s) H_d / sqrt(d), H_d the Sylvester Walsh-Hadamard matrix
 *      (H[i][j] = (-1)^popcount(i & j)) and s_i = +-1 from fa_fp8_hadamard_sign(seed, i), the
 *      same signs for every row of Q and K.  M is orthogonal, so (Q M)(K M)^T = Q K^T: the
 *      scores, and so the attention output, do not change, but an outlier coordinate is spread
 *      over all d coordinates before the rounding to e4m3.  V is not rotated.
 *   2. quantization to e4m3 with power-of-two scales: per tensor (fa_numerics_quantize), or per
 *      block -- Q per (batch, head) in blocks of B_r consecutive rows, K and V per (batch, kv
 *      head) in blocks of B_c rows, all d (d_v) columns, each block with its own scale
 *      (fa_fp8_quantize_blocks).  The arrays hold the dequantized values.
 *   3. fa_flash2_forward with fa_numerics_for(FA_FMT_E4M3) on tiles B_r x B_c: fp32
 *      accumulation, P scaled by 2^8 and rounded to e4m3 before P V (l from the unrounded P),
 *      O stored in bf16, LSE in fp32.
 *
 * Layouts as fa_attn.h: Q (B, H, N_q, d), K (B, H_kv, N_k, d), V (B, H_kv, N_k, d_v),
 * O (B, H, N_q, d_v), LSE (B, H, N_q), all row-major fp64 arrays.  C and C++ (extern "C").
 */
#ifndef FA_FP8_H
#define FA_FP8_H

#include <stdint.h>

#include "fa_attn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest d fa_fp8_hadamard accepts. */
#define FA_FP8_HADAMARD_MAX_D 1024

/* SplitMix64 (Steele, Lea and Flood 2014; the constants of Vigna's splitmix64.c), one step from
 * x: x += 0x9E3779B97F4A7C15; x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9;
 * x = (x ^ (x >> 27)) * 0x94D049BB133111EB; return x ^ (x >> 31), in uint64 arithmetic.
 * fa_fp8_splitmix64(0) = 0xE220A8397B1DCDAF. */
uint64_t fa_fp8_splitmix64(uint64_t x);

/* The sign s_i of incoherent processing: -1 when splitmix64(seed + i) is odd, else +1
 * (seed + i in uint64 arithmetic, wrapping).  Seed 0 gives s_0..s_3 = -1, -1, +1, -1. */
int fa_fp8_hadamard_sign(uint64_t seed, int i);

/* Incoherent processing of `rows` rows of length d in place: row x (x[r*d .. r*d + d)) becomes
 * x'_j = sum_i x_i s_i (-1)^popcount(i & j) / sqrt(d), s_i = fa_fp8_hadamard_sign(seed, i),
 * by the fast Walsh-Hadamard transform (d log2 d additions a row, then one multiply an entry),
 * in fp64.  x: rows * d values (may be NULL when rows = 0).
 * Errors: FA_EINVAL when d is not a power of two in [1, FA_FP8_HADAMARD_MAX_D] or rows < 0
 * (the message names the value and the limit), or x is NULL with rows > 0. */
fa_status fa_fp8_hadamard(double *x, int64_t rows, int d, uint64_t seed);

/* Block quantization to e4m3 in place.  x is (nbh, n, d) row-major: nbh slices of n rows of d
 * values.  Each slice is split into blocks of rows_per_block consecutive rows (the last block of
 * a slice may be shorter: n mod rows_per_block rows) and each block is quantized as
 * fa_numerics_quantize(block, rows * d, FA_FMT_E4M3, &k) does a whole tensor: k the largest
 * integer with amax * 2^k <= 448 over the block's finite values (k = 0 for an all-zero block),
 * every value multiplied by 2^k, rounded to e4m3 (nearest even, saturating at +-448), multiplied
 * by 2^-k.  k_out (NULL: not wanted) receives k of block t of slice b at k_out[b * T + t],
 * T = ceil(n / rows_per_block): nbh * T ints.
 * Errors: FA_EINVAL when nbh < 0, n < 0, d < 1 or rows_per_block < 1 (naming the value), or x
 * is NULL with values to quantize. */
fa_status fa_fp8_quantize_blocks(double *x, int64_t nbh, int64_t n, int d, int rows_per_block,
                                 int *k_out);

/* How fa_fp8_forward prepares its inputs. */
typedef struct fa_fp8_opts {
    int per_block;    /* 1: one scale per block of B_r rows of Q, B_c rows of K and V (per
                         (batch, head) / (batch, kv head)); 0: one scale per tensor */
    int block_r;      /* B_r: rows of Q a tile (and a quantization block); 0: 128 */
    int block_c;      /* B_c: rows of K, V a tile (and a quantization block); 0: 128 */
    int hadamard;     /* 1: incoherent processing of Q and K first (d a power of two <= 1024) */
    uint64_t seed;    /* the signs' seed (fa_fp8_hadamard_sign) */
} fa_fp8_opts;

/* Steps 1 and 2 above on Q, K, V in place (shape s; V only quantized): the inputs fa_fp8_forward
 * hands to FlashAttention-2.  Tiles and blocks: o->block_r x o->block_c (0: 128).
 * Errors: FA_EINVAL (fa_shape_check; a negative block size; with o->hadamard, d not a power of
 * two <= 1024; a NULL argument). */
fa_status fa_fp8_prepare(const fa_shape *s, double *Q, double *K, double *V, const fa_fp8_opts *o);

/* FlashAttention-3's FP8 forward, emulated: fa_fp8_prepare on copies of Q, K, V (the inputs are
 * not modified), then fa_flash2_forward on tiles B_r x B_c with fa_numerics_for(FA_FMT_E4M3)
 * (step 3 above) into O (B, H, N_q, d_v) and LSE (B, H, N_q).  s->dtype is ignored: the run is
 * e4m3 (1-byte Q, K, V, O in the memory model's counts).  s's masks, scale and modifiers apply
 * as in fa_flash2_forward.  The fp64 reference to judge O against is the caller's, on the
 * original inputs (fa_reference_forward).
 * Errors: those of fa_fp8_prepare, FA_ENOMEM, those of fa_flash2_forward. */
fa_status fa_fp8_forward(const fa_shape *s, const double *Q, const double *K, const double *V,
                         const fa_fp8_opts *o, double *O, double *LSE);

#ifdef __cplusplus
}
#endif

#endif
