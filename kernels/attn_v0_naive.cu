/* attn_v0_naive.cu -- version 0: standard attention (FlashAttention paper, Algorithm 0).
 *
 * What it does: three launches.  (1) S = scale * Q K^T with one cuBLAS strided-batched GEMM,
 * written to HBM as (B, H, N_q, N_k); (2) a softmax kernel, one thread block per row, that
 * reads S, applies the causal mask and writes P = softmax(S) over S in place, plus LSE;
 * (3) O = P V with a second GEMM.  S and P are materialized: the HBM traffic is
 * Theta(N d + N^2) (Theorem 2), which is why every later version is faster at large N.
 * In the low precision (bf16/fp16) S and P are stored in that dtype, as PyTorch's math
 * backend does; that run is the "low-precision naive" of the FlashAttention tolerance rule.
 * In fp32 it is the reference for large shapes, where the CPU fp64 oracle is too slow.
 *
 * GQA without copies: the `group = H / H_kv` query heads that share kv head hk are adjacent
 * in Q, so their rows form one (group * N_q, d) matrix; one GEMM per (b, hk) covers them.
 *
 * Compile: part of `make gpu` (kernels/kernels.mk).
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

#include "fa_kernels.h"

static cublasHandle_t g_blas;

extern "C" int fa_v0_init(void)
{
    if (g_blas) return 0;
    return cublasCreate(&g_blas) == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}

extern "C" void fa_v0_finish(void)
{
    if (g_blas) cublasDestroy(g_blas);
    g_blas = NULL;
}

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
template <typename T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ float from_f<float>(float x) { return x; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x)
{
    return __float2bfloat16(x);
}
template <> __device__ __forceinline__ __half from_f<__half>(float x) { return __float2half(x); }

/* Block-wide reduction of one float (max or sum) over 256 threads. */
template <bool IS_MAX> __device__ float block_reduce(float v, float *red)
{
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = IS_MAX ? fmaxf(v, w) : v + w;
    }
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* red may still be read by a previous reduction */
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = red[0];
    for (int w = 1; w < (int)(blockDim.x / 32); w++) v = IS_MAX ? fmaxf(v, red[w]) : v + red[w];
    return v;
}

/* One block per row r of S (B*H*N_q rows of N_k).  Keys j < lim are allowed, with
 * lim = N_k (no mask) or clamp(i + N_k - N_q + 1, 0, N_k) (bottom-right causal).
 * Writes P (masked entries 0) over S and LSE[r] (-inf for an empty row). */
template <typename T>
__global__ void __launch_bounds__(256) fa_v0_softmax_kernel(T *S, float *LSE, int N_q, int N_k,
                                                            int causal)
{
    __shared__ float red[32];
    const long long r = blockIdx.x;
    const int i = (int)(r % N_q);
    int lim = N_k;
    if (causal) {
        long long L = (long long)i + N_k - N_q + 1;
        lim = L < 0 ? 0 : (L > N_k ? N_k : (int)L);
    }
    T *row = S + r * (long long)N_k;
    float mx = -INFINITY;
    for (int j = threadIdx.x; j < lim; j += blockDim.x) mx = fmaxf(mx, to_f(row[j]));
    mx = block_reduce<true>(mx, red);
    float sum = 0.f;
    for (int j = threadIdx.x; j < lim; j += blockDim.x) sum += expf(to_f(row[j]) - mx);
    sum = block_reduce<false>(sum, red);
    const float inv = lim > 0 ? 1.f / sum : 0.f;
    for (int j = threadIdx.x; j < N_k; j += blockDim.x)
        row[j] = from_f<T>(j < lim ? expf(to_f(row[j]) - mx) * inv : 0.f);
    if (threadIdx.x == 0) LSE[r] = lim > 0 ? mx + logf(sum) : -INFINITY;
}

extern "C" cudaError_t fa_v0_forward(const fa_gpu_shape *s, fa_gpu_dtype dt, const void *Q,
                                     const void *K, const void *V, void *O, float *LSE,
                                     void *S_ws, cudaStream_t st)
{
    if (!g_blas) return cudaErrorNotReady;
    cudaDataType_t ty = dt == FA_GPU_FP32 ? CUDA_R_32F : dt == FA_GPU_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    const int group = s->H / s->H_kv;
    const int M = group * s->N_q; /* rows of the stacked Q of one kv head */
    const int batch = s->B * s->H_kv;
    const float alpha = s->scale, one = 1.f, zero = 0.f;
    if (cublasSetStream(g_blas, st) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
    /* Row-major S (M x N_k) = Q (M x d) K^T is column-major S^T = K^T(op T of col-major K) Q. */
    cublasStatus_t b = cublasGemmStridedBatchedEx(
        g_blas, CUBLAS_OP_T, CUBLAS_OP_N, s->N_k, M, s->d, &alpha, K, ty, s->d,
        (long long)s->N_k * s->d, Q, ty, s->d, (long long)M * s->d, &zero, S_ws, ty, s->N_k,
        (long long)M * s->N_k, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (b != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
    const unsigned rows = (unsigned)((long long)s->B * s->H * s->N_q);
    if (dt == FA_GPU_FP32)
        fa_v0_softmax_kernel<float><<<rows, 256, 0, st>>>((float *)S_ws, LSE, s->N_q, s->N_k, s->causal);
    else if (dt == FA_GPU_BF16)
        fa_v0_softmax_kernel<__nv_bfloat16>
            <<<rows, 256, 0, st>>>((__nv_bfloat16 *)S_ws, LSE, s->N_q, s->N_k, s->causal);
    else
        fa_v0_softmax_kernel<__half><<<rows, 256, 0, st>>>((__half *)S_ws, LSE, s->N_q, s->N_k, s->causal);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    /* Row-major O (M x d) = P (M x N_k) V (N_k x d) is column-major O^T = V^T P^T. */
    b = cublasGemmStridedBatchedEx(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, s->d, M, s->N_k, &one, V, ty,
                                   s->d, (long long)s->N_k * s->d, S_ws, ty, s->N_k,
                                   (long long)M * s->N_k, &zero, O, ty, s->d, (long long)M * s->d,
                                   batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return b == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}
