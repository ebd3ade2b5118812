/* fp8.c -- FlashAttention-3's FP8 forward, emulated (fa_fp8.h): incoherent processing by a
 * randomized Walsh-Hadamard transform, block quantization to e4m3 with power-of-two scales,
 * and FlashAttention-2's forward (flash2.c) in the e4m3 numerics on the prepared inputs.
 * Sources: Shah et al. 2024, arXiv 2407.08608, section 3.3 (block quantization; incoherent
 * processing with M = diag(+-1) times a Hadamard matrix, after Chee et al. 2023 and Tseng et
 * al. 2024); the fast Walsh-Hadamard transform's butterfly (Fino and Algazi 1976). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_fp8.h"

#define FP8_M_BYTES ((size_t)1 << 40) /* SRAM large enough for any tile: numerics, not capacity */

uint64_t fa_fp8_splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

int fa_fp8_hadamard_sign(uint64_t seed, int i)
{
    return (fa_fp8_splitmix64(seed + (uint64_t)(int64_t)i) & 1) ? -1 : 1;
}

fa_status fa_fp8_hadamard(double *x, int64_t rows, int d, uint64_t seed)
{
    if (d < 1 || d > FA_FP8_HADAMARD_MAX_D || (d & (d - 1)) != 0)
        FA_FAIL(FA_EINVAL, "incoherent processing needs the head dim d to be a power of two in [1, %d]; "
                           "got d = %d", FA_FP8_HADAMARD_MAX_D, d);
    if (rows < 0) FA_FAIL(FA_EINVAL, "incoherent processing: rows = %lld must be >= 0", (long long)rows);
    if (rows > 0 && !x) FA_FAIL(FA_EINVAL, "incoherent processing: x is NULL");
    double s[FA_FP8_HADAMARD_MAX_D];
    for (int i = 0; i < d; i++) s[i] = fa_fp8_hadamard_sign(seed, i);
    const double norm = 1.0 / sqrt((double)d);
    for (int64_t r = 0; r < rows; r++) {
        double *v = x + r * d;
        for (int i = 0; i < d; i++) v[i] *= s[i]; /* x diag(s) */
        /* times H_d: log2(d) butterfly stages; stage h pairs entries h apart, (a, b) -> (a + b,
         * a - b), which is H_2d = [[H_d, H_d], [H_d, -H_d]] applied one bit of the index at a
         * time, so that entry j collects sum_i v_i (-1)^popcount(i & j) */
        for (int h = 1; h < d; h *= 2)
            for (int i0 = 0; i0 < d; i0 += 2 * h)
                for (int i = i0; i < i0 + h; i++) {
                    const double a = v[i], b = v[i + h];
                    v[i] = a + b;
                    v[i + h] = a - b;
                }
        for (int i = 0; i < d; i++) v[i] *= norm; /* / sqrt(d): M is orthogonal */
    }
    return FA_OK;
}

fa_status fa_fp8_quantize_blocks(double *x, int64_t nbh, int64_t n, int d, int rows_per_block, int *k_out)
{
    if (nbh < 0) FA_FAIL(FA_EINVAL, "block quantization: the slice count %lld must be >= 0", (long long)nbh);
    if (n < 0) FA_FAIL(FA_EINVAL, "block quantization: rows per slice n = %lld must be >= 0", (long long)n);
    if (d < 1) FA_FAIL(FA_EINVAL, "block quantization: row length d = %d must be >= 1", d);
    if (rows_per_block < 1)
        FA_FAIL(FA_EINVAL, "block quantization: rows per block = %d must be >= 1", rows_per_block);
    if (nbh > 0 && n > 0 && !x) FA_FAIL(FA_EINVAL, "block quantization: x is NULL");
    const int64_t nt = (n + rows_per_block - 1) / rows_per_block; /* blocks a slice */
    for (int64_t b = 0; b < nbh; b++)
        for (int64_t t = 0; t < nt; t++) {
            const int64_t r0 = t * rows_per_block, rows = n - r0 < rows_per_block ? n - r0 : rows_per_block;
            int k = 0;
            /* one block as one tensor: the same scale rule and rounding as the per-tensor path */
            fa_numerics_quantize(x + (b * n + r0) * d, rows * d, FA_FMT_E4M3, &k);
            if (k_out) k_out[b * nt + t] = k;
        }
    return FA_OK;
}

static int block_or_default(int b) { return b == 0 ? 128 : b; }

fa_status fa_fp8_prepare(const fa_shape *s, double *Q, double *K, double *V, const fa_fp8_opts *o)
{
    if (!s || !o) FA_FAIL(FA_EINVAL, "fp8 forward: the shape and the options must not be NULL");
    FA_TRY(fa_shape_check(s));
    if (o->block_r < 0 || o->block_c < 0)
        FA_FAIL(FA_EINVAL, "fp8 forward: block sizes B_r = %d, B_c = %d must be >= 1 (0: 128)", o->block_r, o->block_c);
    if (!Q || !K || !V) FA_FAIL(FA_EINVAL, "fp8 forward: Q, K and V must not be NULL");
    const int br = block_or_default(o->block_r), bc = block_or_default(o->block_c);
    const int64_t nq = fa_numel_q(s), nk = fa_numel_k(s), nv = fa_numel_v(s);
    if (o->hadamard) { /* step 1: Q M and K M, the same M for both */
        if (s->d > FA_FP8_HADAMARD_MAX_D || (s->d & (s->d - 1)) != 0)
            FA_FAIL(FA_EINVAL, "--hadamard (incoherent processing) needs the head dim d to be a power of two in "
                               "[1, %d]; got d = %lld", FA_FP8_HADAMARD_MAX_D, (long long)s->d);
        FA_TRY(fa_fp8_hadamard(Q, nq / s->d, (int)s->d, o->seed));
        FA_TRY(fa_fp8_hadamard(K, nk / s->d, (int)s->d, o->seed));
    }
    if (!o->per_block) { /* step 2, one scale per tensor */
        fa_numerics_quantize(Q, nq, FA_FMT_E4M3, NULL);
        fa_numerics_quantize(K, nk, FA_FMT_E4M3, NULL);
        fa_numerics_quantize(V, nv, FA_FMT_E4M3, NULL);
        return FA_OK;
    }
    /* step 2, one scale per B_r x d block of Q and per B_c x d (B_c x d_v) block of K (V); the
     * shape check bounds d and d_v below 2^31 */
    FA_TRY(fa_fp8_quantize_blocks(Q, s->batch * s->heads, s->seqlen_q, (int)s->d, br, NULL));
    FA_TRY(fa_fp8_quantize_blocks(K, s->batch * s->kv_heads, s->seqlen_k, (int)s->d, bc, NULL));
    FA_TRY(fa_fp8_quantize_blocks(V, s->batch * s->kv_heads, s->seqlen_k, (int)s->d_v, bc, NULL));
    return FA_OK;
}

static double *copy_of(const double *x, int64_t n)
{
    double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
    if (y && n > 0) memcpy(y, x, (size_t)n * sizeof *y);
    return y;
}

fa_status fa_fp8_forward(const fa_shape *s, const double *Q, const double *K, const double *V,
                         const fa_fp8_opts *o, double *O, double *LSE)
{
    if (!s || !o) FA_FAIL(FA_EINVAL, "fp8 forward: the shape and the options must not be NULL");
    FA_TRY(fa_shape_check(s));
    if (!Q || !K || !V || !O || !LSE) FA_FAIL(FA_EINVAL, "fp8 forward: Q, K, V, O and LSE must not be NULL");
    fa_shape se = *s;
    se.dtype = FA_DTYPE_E4M3; /* 1-byte Q, K, V, O; O stored in bf16 by the e4m3 numerics */
    double *q = copy_of(Q, fa_numel_q(s)), *k = copy_of(K, fa_numel_k(s)), *v = copy_of(V, fa_numel_v(s));
    fa_status st = q && k && v ? FA_OK : fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the fp8 inputs");
    if (!st) st = fa_fp8_prepare(&se, q, k, v, o); /* steps 1 and 2 */
    fa_mem *mem = NULL;
    if (!st && !(mem = fa_mem_alloc(FA_MODE_NUMERIC, FP8_M_BYTES))) st = FA_ENOMEM;
    if (!st) { /* step 3: FlashAttention-2 on the prepared inputs, not quantized again */
        const fa_numerics nu = fa_numerics_for(FA_FMT_E4M3);
        fa_mem_set_numerics(mem, &nu);
        const fa_blocks bk = {block_or_default(o->block_r), block_or_default(o->block_c)};
        st = fa_flash2_forward(mem, &se, bk, q, k, v, O, LSE);
    }
    fa_mem_free(mem);
    free(q);
    free(k);
    free(v);
    return st;
}
