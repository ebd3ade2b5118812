/* fa_dispatch.cu -- one entry point over the numbered kernels: names, shape checks, workspace
 * sizes and fa_gpu_forward.  See fa_kernels.h. */
#include <stdio.h>

#include "fa_kernels.h"

static const char *const k_names[FA_K_COUNT] = {"v0", "v0_low", "v1", "v2", "v3", "v3_mt2", "v3_mt2_bc32", "v3_br256",
                                                         "v3_lazy", "v3_bc128", "v3_mt2_bc48",
                                                         "v4", "v4_bc64", "v5", "v5_bc176", "v5_wg3", "v5_nopp", "v5_pers", "v5_pers_wg3", "v5_bc128", "v5_pers_bc160",
                                                         "v5_exp2poly", "v5_cresc", "v5_fa4"};

extern "C" const char *fa_kernel_name(fa_kernel_id k)
{
    return k >= 0 && k < FA_K_COUNT ? k_names[k] : "?";
}

extern "C" fa_gpu_dtype fa_kernel_dtype(fa_kernel_id k, fa_gpu_dtype low)
{
    return (k == FA_K_V0_LOW || k == FA_K_V3 || k == FA_K_V3_MT2 || k == FA_K_V3_MT2_BC32 ||
            k == FA_K_V3_BR256 || k == FA_K_V3_LAZY || k == FA_K_V3_BC128 ||
            k == FA_K_V3_MT2_BC48 || k == FA_K_V4 || k == FA_K_V4_BC64 || k >= FA_K_V5)
               ? low : FA_GPU_FP32;
}

extern "C" const char *fa_gpu_arch_check(fa_kernel_id k)
{
    static char msg[160];
    if (k != FA_K_V4 && k != FA_K_V4_BC64 && k < FA_K_V5) return NULL;
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return "no CUDA device";
    if (major != 9 || minor != 0) {
        snprintf(msg, sizeof msg, "needs a Hopper GPU (sm_90a: wgmma); this device is sm_%d%d",
                 major, minor);
        return msg;
    }
    return NULL;
}

extern "C" const char *fa_gpu_check(fa_kernel_id k, const fa_gpu_shape *s)
{
    const char *why = fa_gpu_check_shape(k, s);
    return why ? why : fa_gpu_arch_check(k);
}

extern "C" const char *fa_gpu_check_shape(fa_kernel_id k, const fa_gpu_shape *s)
{
    static char msg[256];
    if (k < 0 || k >= FA_K_COUNT) return "unknown kernel";
    if (s->B < 1 || s->H < 1 || s->H_kv < 1 || s->N_q < 1 || s->N_k < 1 || s->d < 1) {
        snprintf(msg, sizeof msg, "every size must be >= 1 (B %d H %d H_kv %d N_q %d N_k %d d %d)",
                 s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d);
        return msg;
    }
    if (s->H % s->H_kv != 0) {
        snprintf(msg, sizeof msg, "H = %d is not a multiple of H_kv = %d", s->H, s->H_kv);
        return msg;
    }
    if (s->causal != 0 && s->causal != 1) return "causal must be 0 (none) or 1 (bottom-right)";
    if (!(s->scale > 0.f)) return "scale must be > 0";
    if (s->B > 65535 || s->H > 65535) return "B and H must be <= 65535 (grid limits)";
    if (k != FA_K_V0 && k != FA_K_V0_LOW && s->d != 64 && s->d != 128) {
        snprintf(msg, sizeof msg, "head dim %d is not supported by %s (only 64 and 128)", s->d,
                 fa_kernel_name(k));
        return msg;
    }
    if ((k == FA_K_V5_WG3 || k == FA_K_V5_PERS_WG3) && s->d != 64)
        return "runs d = 64 only (three consumer warpgroups at d = 128 would not fit their registers)";
    if (k == FA_K_V5_PERS_BC160 && s->d != 128) return "runs d = 128 only";
    if ((k == FA_K_V0 || k == FA_K_V0_LOW) &&
        (long long)s->B * s->H * s->N_q > 0x7fffffffLL)
        return "v0: B * H * N_q must be < 2^31 (one softmax block per row)";
    return NULL;
}

extern "C" size_t fa_gpu_workspace_bytes(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype dt)
{
    size_t rows = (size_t)s->B * s->H * s->N_q;
    if (k == FA_K_V0) return rows * (size_t)s->N_k * 4;
    if (k == FA_K_V0_LOW) return rows * (size_t)s->N_k * 2;
    if (k == FA_K_V1) return rows * 2 * 4;
    (void)dt;
    return 0;
}

extern "C" int fa_gpu_init(void) { return fa_v0_init(); }
extern "C" void fa_gpu_finish(void) { fa_v0_finish(); }

extern "C" cudaError_t fa_gpu_forward(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype dt,
                                      const void *Q, const void *K, const void *V, void *O,
                                      float *LSE, void *ws, cudaStream_t st)
{
    switch (k) {
    case FA_K_V0: return fa_v0_forward(s, FA_GPU_FP32, Q, K, V, O, LSE, ws, st);
    case FA_K_V0_LOW: return fa_v0_forward(s, dt, Q, K, V, O, LSE, ws, st);
    case FA_K_V1:
        return fa_v1_forward(s, (const float *)Q, (const float *)K, (const float *)V, (float *)O,
                             LSE, (float *)ws, st);
    case FA_K_V2:
        return fa_v2_forward(s, (const float *)Q, (const float *)K, (const float *)V, (float *)O,
                             LSE, st);
    case FA_K_V3: return fa_v3_forward(s, dt, 0, Q, K, V, O, LSE, st);
    case FA_K_V3_MT2: return fa_v3_forward(s, dt, 1, Q, K, V, O, LSE, st);
    case FA_K_V3_MT2_BC32: return fa_v3_forward(s, dt, 2, Q, K, V, O, LSE, st);
    case FA_K_V3_BR256: return fa_v3_forward(s, dt, 3, Q, K, V, O, LSE, st);
    case FA_K_V3_LAZY: return fa_v3_forward(s, dt, 4, Q, K, V, O, LSE, st);
    case FA_K_V3_BC128: return fa_v3_forward(s, dt, 6, Q, K, V, O, LSE, st);
    case FA_K_V3_MT2_BC48: return fa_v3_forward(s, dt, 7, Q, K, V, O, LSE, st);
    case FA_K_V4: return fa_v4_forward(s, dt, 0, Q, K, V, O, LSE, st);
    case FA_K_V4_BC64: return fa_v4_forward(s, dt, 1, Q, K, V, O, LSE, st);
    case FA_K_V5: return fa_v5_forward(s, dt, -1, Q, K, V, O, LSE, st);
    case FA_K_V5_BC128: return fa_v5_forward(s, dt, 0, Q, K, V, O, LSE, st);
    case FA_K_V5_PERS_BC160: return fa_v5_forward(s, dt, 6, Q, K, V, O, LSE, st);
    case FA_K_V5_BC176: return fa_v5_forward(s, dt, 1, Q, K, V, O, LSE, st);
    case FA_K_V5_WG3: return fa_v5_forward(s, dt, 2, Q, K, V, O, LSE, st);
    case FA_K_V5_NOPP: return fa_v5_forward(s, dt, 3, Q, K, V, O, LSE, st);
    case FA_K_V5_PERS: return fa_v5_forward(s, dt, 4, Q, K, V, O, LSE, st);
    case FA_K_V5_PERS_WG3: return fa_v5_forward(s, dt, 5, Q, K, V, O, LSE, st);
    case FA_K_V5_EXP2POLY: return fa_v5_forward(s, dt, 7, Q, K, V, O, LSE, st);
    case FA_K_V5_CRESC: return fa_v5_forward(s, dt, 8, Q, K, V, O, LSE, st);
    case FA_K_V5_FA4: return fa_v5_forward(s, dt, 9, Q, K, V, O, LSE, st);
    default: return cudaErrorInvalidValue;
    }
}
