/* fabench.cu -- validates and times fasim's GPU attention kernels (kernels/attn_v*.cu).
 *
 *   fabench --check                    odd shapes (N_q != N_k, causal both ways, GQA, MQA, tails)
 *                                      against cpu_ref's fp64 oracle fa_reference_forward
 *   fabench --sweep [--csv FILE]       the FlashAttention-2 benchmark: hidden 2048 (H = 2048/d),
 *                                      B * N = 16k tokens, N = 512..16k, d = 64, 128, causal 0/1;
 *                                      each shape validated against v0 in fp32, then timed
 *   fabench --shape B,H,H_kv,N_q,N_k,d,causal   one shape (validated against v0 fp32 or, when
 *                                      small, fp64), then timed
 *   options: --kernels v0,v0_low,v1,v2,v3,v3_mt2,v3_mt2_bc32,v3_br256,v3_lazy,v3_bc128,
 *                      v3_mt2_bc48,v4,v4_bc64,v5,v5_bc128,v5_bc176,v5_wg3,v5_nopp,v5_pers,v5_pers_wg3,v5_pers_bc160,
 *                      v5_exp2poly,v5_cresc,v5_fa4 (v4*, v5*: sm_90a)
 *            --dtype bf16|fp16   --reps R (default 20)   --help
 *            --warmup W   --n 512,1024   --d 64,128   --causal 0,1   --no-validate   --no-time
 *            --csv FILE   --seed S
 *            --bwd-kernels v3_bwd,v3_bwd_occ2   time only these backward configurations (the
 *                    deterministic one still runs first, untimed, as the reference)
 *            --bwd   the v3 backward instead of the forwards: v3_bwd_det (deterministic, B_c 128),
 *                    v3_bwd (dQ by fp32 atomics, B_c 128), v3_bwd_bc64 (atomics, B_c 64),
 *                    v3_bwd_occ2 (d = 64 only: queries in halves, two blocks per SM),
 *                    v3_bwd_ma (v3_bwd with the mask on every element also without a
 *                    causal mask: a comparison), v5_bwd (attn_v5_bwd.cu, sm_90a: wgmma, TMA,
 *                    dQ by the TMA reduce-add), v5_bwd_det (dQ added in key-block order),
 *                    v5_bwd_atomic (dQ by fp32 atomics), v5_bwd_pers (v5_bwd on a persistent
 *                    grid), v5_bwd_s0, _s1r, _s1p, _s2pr(_det), _dinc(_det), _lean(_det), _qrot, _dq2(_det), _qd, _dqk(_det), _cuts(_det) (v5_bwd's
 *                    step schedules and issue cuts: attn_v5_bwd.cu's header comment), on O
 *                    and LSE from the v3_mt2 forward.  Small shapes
 *                    are checked against an fp64 backward written here (dense, row by row);
 *                    the tolerance is 3x the error of the same computation with S, P, O, dP,
 *                    dS and the gradients rounded to the low dtype (the naive baseline).  Large
 *                    shapes: the atomic runs must agree with the deterministic one within 2% of
 *                    max|grad| ("CONS"; the deterministic row then reads "ref").  A deterministic
 *                    configuration is also run twice and must give the same bits.
 *
 * Validation (the FlashAttention test rule): out_ref is the fp64 oracle (small shapes) or v0
 * in fp32 (large shapes), on the very same inputs (drawn in fp32, rounded to the low dtype,
 * so every kernel sees identical values); out_naive is v0 run in the low precision (S and P
 * stored in bf16/fp16, as PyTorch's math backend does).  A low-precision kernel passes when
 *   max|out - out_ref| <= 2 * max|out_naive - out_ref|
 * (the same for LSE; both with a floor of 1e-5, for shapes where the naive run is exact,
 * e.g. N_k = 1).  fp32 kernels pass when max|out - out_ref| <=
 * max(2 * max|v0_fp32 - ref64|, 1e-5) on small shapes and <= 1e-4 against v0 fp32 on large
 * ones.  NaN anywhere, or an LSE of -inf where the reference has none (or the reverse), fails.
 * Inputs are fresh N(0, 1) draws for every shape; O and LSE are poisoned (all bits 1 = NaN)
 * before every validated run, so an unwritten element fails.
 * Timing: CUDA events around each launch, `warmup` launches first, median of `reps`.
 * TFLOP/s by the FlashAttention-2 convention 4 B H N_q N_k d (halved when causal); GB/s counts
 * the minimum bytes: Q, K, V read once, O and LSE written once.
 * Exit status: 0 all passed, 1 a validation failed or CUDA failed, 2 bad usage.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "fa_kernels.h"
#include "fabench_fp8.h"
#include "fa_rng.cuh"
#include "tc_common.cuh"
extern "C" {
#include "fa_attn.h"
}

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "fabench: %s%s%s (fabench --help)\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

/* ---------------- input generation (device) ---------------- */

/* f[i] ~ N(0,1) rounded to the low dtype; lo[i] the low copy, f[i] its exact fp32 value. */
template <typename T>
__global__ void gen_inputs(float *f, T *lo, long long n, uint64_t seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        uint64_t r = fa_splitmix64(seed ^ fa_splitmix64((uint64_t)i));
        T t = (T)fa_normal_of(r);
        lo[i] = t;
        f[i] = (float)t;
    }
}

template <typename T> __global__ void to_f32(const T *x, float *y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = (float)x[i];
}

/* ---------------- options ---------------- */

typedef struct {
    int kernels[FA_K_COUNT];
    int default_kernels; /* no --kernels: drop those the device cannot run (v4 off Hopper) */
    int nk;
    int many; /* --check, --sweep: a kernel that cannot run one of the shapes skips it (noted);
                 so does a default kernel in any mode */
    fa_gpu_dtype low;
    int reps, warmup, validate, time, bwd;
    char bwd_only[256]; /* empty: every backward configuration */
    const char *csv;
    unsigned long long seed;
    std::vector<int> ns, ds, causals;
} opts;

static int parse_kernel(const char *s)
{
    for (int k = 0; k < FA_K_COUNT; k++)
        if (strcmp(s, fa_kernel_name((fa_kernel_id)k)) == 0) return k;
    return -1;
}

/* A comma-separated list of integers in [0, 2^31 - 1]: no empty item, no trailing comma. */
#define FP8_VARIANT_HELP                                                                                 \
    "--fp8-variant wants 0 (2 stages, the default), 1 (3 stages), 2 (2 stages, exp split), 3 (the eighth session's " \
    "kernel) or 4-9 (the tenth session's: 4 fuse, 5 fuse + rows, 6 overhead, 7 the ninth session's LEAN, 8 rows + P V " \
    "overlap, 9 P V overlap) or 10, 11 (the twelfth session's three consumers with 64-key turns and 64-row K/V scale " \
    "blocks: 2 and 3 stages)"
static std::vector<int> parse_ints(const char *s, const char *what)
{
    std::vector<int> v;
    const char *p = s;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9') usage_error(what, s); /* no sign, no blank, no empty item */
        long x = strtol(p, &end, 10);
        if (end == p || x < 0 || x > 0x7fffffff) usage_error(what, s);
        v.push_back((int)x);
        p = end;
        if (*p == ',') p++;
        else if (*p) usage_error(what, s);
        else break;
    }
    return v;
}

/* The backward configurations fabench runs (names for --bwd-kernels and the CSV), the
 * deterministic one first: the others are checked against it when the shape is too large for
 * the fp64 reference. */
static const struct {
    const char *name;
    int ver;     /* 3: fa_v3_backward, 5: fa_v5_backward (sm_90a) */
    int det, bc; /* the deterministic and block_c (v3) or variant (v5) arguments */
} k_bwd_cfg[] = {{"v3_bwd_det", 3, 1, 128},
                 {"v3_bwd", 3, 0, 128},
                 {"v3_bwd_bc64", 3, 0, 64},
                 {"v3_bwd_occ2", 3, 0, 128 | FA_BWD_OCC2},
                 {"v3_bwd_ma", 3, 0, 128 | FA_BWD_MASKALL},
                 {"v5_bwd", 5, 0, 0},
                 {"v5_bwd_det", 5, 1, 0},
                 {"v5_bwd_atomic", 5, 0, 1},
                 {"v5_bwd_pers", 5, 0, 2},
                 {"v5_bwd_s0", 5, 0, 3},
                 {"v5_bwd_s1r", 5, 0, 4},
                 {"v5_bwd_s1p", 5, 0, 5},
                 {"v5_bwd_s2pr", 5, 0, 6},
                 {"v5_bwd_s2pr_det", 5, 1, 6},
                 {"v5_bwd_dinc", 5, 0, 7},
                 {"v5_bwd_dinc_det", 5, 1, 7},
                 {"v5_bwd_lean", 5, 0, 8},
                 {"v5_bwd_lean_det", 5, 1, 8},
                 {"v5_bwd_qrot", 5, 0, 9},
                 {"v5_bwd_dq2", 5, 0, 10},
                 {"v5_bwd_dq2_det", 5, 1, 10},
                 {"v5_bwd_qd", 5, 0, 11},
                 {"v5_bwd_dqk", 5, 0, 12},
                 {"v5_bwd_dqk_det", 5, 1, 12},
                 {"v5_bwd_cuts", 5, 0, 13},
                 {"v5_bwd_cuts_det", 5, 1, 13}};
static const int k_nbwd = (int)(sizeof k_bwd_cfg / sizeof k_bwd_cfg[0]);

/* fabench writes its CSV to PATH.tmp.PID and renames it to PATH when the run ends normally (with
 * or without validation failures); a CUDA error or a signal-free exit before that removes it. */
static char g_csv_tmp[4096];
static const char *g_csv_path;
static void csv_cleanup(void)
{
    if (g_csv_tmp[0]) remove(g_csv_tmp);
}

/* ---------------- one case: validate, then time ---------------- */

typedef struct {
    double err_o, err_lse;
    int nan, inf_mismatch;
} errs;

static FILE *g_csv;
static int g_failures;

/* max errors of (O, LSE) on the host (fp32 copies) against the reference (doubles) */
static errs compare(const float *O, const float *L, const double *Oref, const double *Lref,
                    size_t no, size_t nl)
{
    errs e = {0, 0, 0, 0};
    for (size_t i = 0; i < no; i++) {
        if (isnan(O[i]) || isinf(O[i])) {
            e.nan++;
            continue;
        }
        double d = fabs(O[i] - Oref[i]);
        if (d > e.err_o) e.err_o = d;
    }
    for (size_t i = 0; i < nl; i++) {
        if (isnan(L[i])) {
            e.nan++;
            continue;
        }
        int a = isinf(L[i]) != 0, b = isinf(Lref[i]) != 0;
        if (a || b) {
            if (!(a && b && L[i] < 0 && Lref[i] < 0)) e.inf_mismatch++;
            continue;
        }
        double d = fabs(L[i] - Lref[i]);
        if (d > e.err_lse) e.err_lse = d;
    }
    return e;
}

struct bufs {
    float *Qf, *Kf, *Vf, *Of, *Lse;
    void *Ql, *Kl, *Vl, *Ol, *ws;
    size_t ws_bytes;
};

static void run_one(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype low, bufs *b,
                    cudaStream_t st)
{
    int is_low = fa_kernel_dtype(k, low) != FA_GPU_FP32;
    CK(fa_gpu_forward(k, s, low, is_low ? b->Ql : b->Qf, is_low ? b->Kl : b->Kf,
                      is_low ? b->Vl : b->Vf, is_low ? b->Ol : (void *)b->Of, b->Lse, b->ws, st));
}

/* Runs kernel k on poisoned outputs and copies O (as fp32) and LSE to the host. */
static void run_fetch(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype low, bufs *b,
                      std::vector<float> &O, std::vector<float> &L)
{
    size_t no = (size_t)s->B * s->H * s->N_q * s->d, nl = (size_t)s->B * s->H * s->N_q;
    int is_low = fa_kernel_dtype(k, low) != FA_GPU_FP32;
    CK(cudaMemset(b->Of, 0xFF, no * 4));
    CK(cudaMemset(b->Ol, 0xFF, no * 2));
    CK(cudaMemset(b->Lse, 0xFF, nl * 4));
    run_one(k, s, low, b, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (is_low) {
        if (low == FA_GPU_BF16)
            to_f32<__nv_bfloat16><<<1024, 256>>>((const __nv_bfloat16 *)b->Ol, b->Of, (long long)no);
        else
            to_f32<__half><<<1024, 256>>>((const __half *)b->Ol, b->Of, (long long)no);
        CK(cudaGetLastError());
    }
    O.resize(no);
    L.resize(nl);
    CK(cudaMemcpy(O.data(), b->Of, no * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(L.data(), b->Lse, nl * 4, cudaMemcpyDeviceToHost));
}

static double time_kernel(fa_kernel_id k, const fa_gpu_shape *s, fa_gpu_dtype low, bufs *b,
                          int warmup, int reps)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < warmup; i++) run_one(k, s, low, b, 0);
    CK(cudaDeviceSynchronize());
    std::vector<float> ms(reps);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(e0, 0));
        run_one(k, s, low, b, 0);
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(ms.begin(), ms.end());
    return reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

static int is_small(const fa_gpu_shape *s)
{
    return (double)s->B * s->H * s->N_q * s->N_k * s->d <= 6e8;
}

static void run_case(const fa_gpu_shape *s, const opts *o_all)
{
    opts o_run = *o_all; /* the kernels that can run this shape */
    const opts *o = &o_run;
    o_run.nk = 0;
    static unsigned long long case_no = 0;
    case_no++;
    const fa_gpu_dtype low = o->low;
    const char *lowname = low == FA_GPU_BF16 ? "bf16" : "fp16";
    size_t nq = (size_t)s->B * s->H * s->N_q * s->d, nk = (size_t)s->B * s->H_kv * s->N_k * s->d;
    size_t nl = (size_t)s->B * s->H * s->N_q;
    for (int i = 0; i < o_all->nk; i++) {
        const char *why = fa_gpu_check((fa_kernel_id)o_all->kernels[i], s);
        const char *arch = fa_gpu_arch_check((fa_kernel_id)o_all->kernels[i]);
        if (why && !o_all->default_kernels && (!o_all->many || arch)) {
            fprintf(stderr, "fabench: %s: %s\n", fa_kernel_name((fa_kernel_id)o_all->kernels[i]), why);
            exit(2);
        }
        if (why) printf("  skip %s on this shape: %s\n", fa_kernel_name((fa_kernel_id)o_all->kernels[i]), why);
        else o_run.kernels[o_run.nk++] = o_all->kernels[i];
    }
    bufs b;
    memset(&b, 0, sizeof b);
    CK(cudaMalloc(&b.Qf, nq * 4));
    CK(cudaMalloc(&b.Kf, nk * 4));
    CK(cudaMalloc(&b.Vf, nk * 4));
    CK(cudaMalloc(&b.Of, nq * 4));
    CK(cudaMalloc(&b.Lse, nl * 4));
    CK(cudaMalloc(&b.Ql, nq * 2));
    CK(cudaMalloc(&b.Kl, nk * 2));
    CK(cudaMalloc(&b.Vl, nk * 2));
    CK(cudaMalloc(&b.Ol, nq * 2));
    size_t ws = 0;
    int need_ref = o->validate;
    for (int i = 0; i < o->nk; i++)
        ws = std::max(ws, fa_gpu_workspace_bytes((fa_kernel_id)o->kernels[i], s, low));
    if (need_ref) ws = std::max(ws, fa_gpu_workspace_bytes(FA_K_V0, s, low));
    if (ws) CK(cudaMalloc(&b.ws, ws));
    b.ws_bytes = ws;

    uint64_t seed = o->seed * 1000003ull + case_no * 7919ull;
    if (low == FA_GPU_BF16) {
        gen_inputs<__nv_bfloat16><<<2048, 256>>>(b.Qf, (__nv_bfloat16 *)b.Ql, (long long)nq, seed + 1);
        gen_inputs<__nv_bfloat16><<<2048, 256>>>(b.Kf, (__nv_bfloat16 *)b.Kl, (long long)nk, seed + 2);
        gen_inputs<__nv_bfloat16><<<2048, 256>>>(b.Vf, (__nv_bfloat16 *)b.Vl, (long long)nk, seed + 3);
    } else {
        gen_inputs<__half><<<2048, 256>>>(b.Qf, (__half *)b.Ql, (long long)nq, seed + 1);
        gen_inputs<__half><<<2048, 256>>>(b.Kf, (__half *)b.Kl, (long long)nk, seed + 2);
        gen_inputs<__half><<<2048, 256>>>(b.Vf, (__half *)b.Vl, (long long)nk, seed + 3);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    /* ---- references ---- */
    const int small = is_small(s);
    std::vector<double> Oref, Lref;
    double naive_o = 0, naive_l = 0, v0f_o = 0; /* errors of v0_low and v0 vs the reference */
    std::vector<float> O, L;
    if (need_ref) {
        if (small) {
            std::vector<float> hq(nq), hk(nk), hv(nk);
            CK(cudaMemcpy(hq.data(), b.Qf, nq * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hk.data(), b.Kf, nk * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hv.data(), b.Vf, nk * 4, cudaMemcpyDeviceToHost));
            std::vector<double> dq(hq.begin(), hq.end()), dk(hk.begin(), hk.end()),
                dv(hv.begin(), hv.end());
            Oref.resize(nq);
            Lref.resize(nl);
            fa_shape fs = fa_shape_default(s->N_q, s->d);
            fs.batch = s->B;
            fs.heads = s->H;
            fs.kv_heads = s->H_kv;
            fs.seqlen_q = s->N_q;
            fs.seqlen_k = s->N_k;
            fs.d = fs.d_v = s->d;
            fs.scale = s->scale;
            fs.causal = s->causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
            fs.dtype = low == FA_GPU_BF16 ? FA_DTYPE_BF16 : FA_DTYPE_FP16;
            if (fa_reference_forward(&fs, dq.data(), dk.data(), dv.data(), Oref.data(),
                                     Lref.data()) != FA_OK) {
                fprintf(stderr, "fabench: fa_reference_forward: %s\n", fa_last_error());
                exit(1);
            }
            run_fetch(FA_K_V0, s, low, &b, O, L);
            errs e = compare(O.data(), L.data(), Oref.data(), Lref.data(), nq, nl);
            v0f_o = e.nan || e.inf_mismatch ? INFINITY : e.err_o;
        } else {
            run_fetch(FA_K_V0, s, low, &b, O, L);
            Oref.assign(O.begin(), O.end());
            Lref.assign(L.begin(), L.end());
        }
        run_fetch(FA_K_V0_LOW, s, low, &b, O, L);
        errs e = compare(O.data(), L.data(), Oref.data(), Lref.data(), nq, nl);
        naive_o = e.err_o;
        naive_l = e.err_lse;
        if (e.nan || e.inf_mismatch) {
            fprintf(stderr, "fabench: the low-precision naive v0 gave NaN or wrong -inf rows\n");
            naive_o = naive_l = INFINITY;
        }
    }

    /* ---- each kernel ---- */
    for (int i = 0; i < o->nk; i++) {
        fa_kernel_id k = (fa_kernel_id)o->kernels[i];
        int is_low = fa_kernel_dtype(k, low) != FA_GPU_FP32;
        double err = NAN;
        const char *pass = "skip";
        if (need_ref) {
            run_fetch(k, s, low, &b, O, L);
            errs e = compare(O.data(), L.data(), Oref.data(), Lref.data(), nq, nl);
            double tol_o, tol_l;
            if (is_low) {
                tol_o = fmax(2 * naive_o, 1e-5);
                tol_l = fmax(2 * naive_l, 1e-5);
            } else if (small) {
                tol_o = fmax(2 * v0f_o, 1e-5);
                tol_l = 1e-4;
            } else {
                tol_o = 1e-4;
                tol_l = 1e-4;
            }
            int ok = !e.nan && !e.inf_mismatch && e.err_o <= tol_o && e.err_lse <= tol_l;
            err = e.err_o;
            if (!small && k == FA_K_V0) pass = "ref";
            else pass = ok ? "PASS" : "FAIL";
            if (!ok) g_failures++;
            fprintf(stderr,
                    "  check %-7s err_O %.3e (tol %.3e) err_LSE %.3e (tol %.3e) nan %d "
                    "inf-mismatch %d  %s  [ref: %s]\n",
                    fa_kernel_name(k), e.err_o, tol_o, e.err_lse, tol_l, e.nan, e.inf_mismatch,
                    pass, small ? "fp64 cpu_ref" : "v0 fp32");
        }
        double ms = NAN;
        if (o->time) ms = time_kernel(k, s, low, &b, o->warmup, o->reps);
        double flops = 4.0 * s->B * s->H * (double)s->N_q * s->N_k * s->d * (s->causal ? 0.5 : 1);
        int eb = is_low ? 2 : 4;
        double bytes = (2.0 * nq + 2.0 * nk) * eb + 4.0 * nl;
        double tf = flops / (ms * 1e-3) / 1e12, gbps = bytes / (ms * 1e-3) / 1e9;
        const char *dname = is_low ? lowname : "fp32";
        printf("%-7s B %2d H %2d H_kv %2d N_q %5d N_k %5d d %3d causal %d %-4s  %9.3f ms  "
               "%7.1f TFLOP/s  %7.1f GB/s  err %.2e  %s\n",
               fa_kernel_name(k), s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d, s->causal, dname,
               ms, tf, gbps, err, pass);
        fflush(stdout);
        if (g_csv) {
            fprintf(g_csv, "%s,%d,%d,%d,%d,%d,%d,%d,%s,%.5f,%.2f,%.1f,%.3e,%s\n",
                    fa_kernel_name(k), s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d, s->causal,
                    dname, ms, tf, gbps, err, pass);
            fflush(g_csv);
        }
    }
    CK(cudaFree(b.Qf));
    CK(cudaFree(b.Kf));
    CK(cudaFree(b.Vf));
    CK(cudaFree(b.Of));
    CK(cudaFree(b.Lse));
    CK(cudaFree(b.Ql));
    CK(cudaFree(b.Kl));
    CK(cudaFree(b.Vl));
    CK(cudaFree(b.Ol));
    if (b.ws) CK(cudaFree(b.ws));
}

/* ---------------- backward (v3) ---------------- */

static double round_low(double x, fa_gpu_dtype low)
{
    if (low == FA_GPU_BF16) return (double)__bfloat162float(__float2bfloat16((float)x));
    return (double)__half2float(__float2half((float)x));
}

/* fp64 gradients of O = softmax(scale Q K^T + mask) V for the upstream gradient dO
 * (FlashAttention-2 Alg. 2 written densely, one query row at a time): g[0..2] = dQ, dK, dV.
 * gn[0..2]: the same computed as a naive low-precision implementation would (S, P, O, dP, dS
 * and the outputs rounded to the low dtype), the baseline of the tolerance rule. */
static void ref_backward(const fa_gpu_shape *s, fa_gpu_dtype low, const float *Q, const float *K,
                         const float *V, const float *dO, std::vector<double> g[3],
                         std::vector<double> gn[3])
{
    const int d = s->d, Nq = s->N_q, Nk = s->N_k, group = s->H / s->H_kv;
    const double scale = s->scale;
    size_t nq = (size_t)s->B * s->H * Nq * d, nk = (size_t)s->B * s->H_kv * Nk * d;
    for (int t = 0; t < 3; t++) {
        g[t].assign(t == 0 ? nq : nk, 0.0);
        gn[t].assign(t == 0 ? nq : nk, 0.0);
    }
    std::vector<double> p(Nk), pn(Nk), o(d), on(d);
    for (int b = 0; b < s->B; b++)
        for (int h = 0; h < s->H; h++) {
            const int hk = h / group;
            const size_t qo = ((size_t)b * s->H + h) * Nq * d, ko = ((size_t)b * s->H_kv + hk) * Nk * d;
            for (int i = 0; i < Nq; i++) {
                const float *q = Q + qo + (size_t)i * d, *go = dO + qo + (size_t)i * d;
                int lim = Nk;
                if (s->causal) {
                    long long L = (long long)i + Nk - Nq + 1;
                    lim = L < 0 ? 0 : (L > Nk ? Nk : (int)L);
                }
                if (lim == 0) continue; /* empty row: every gradient contribution is 0 */
                double mx = -INFINITY, mxn = -INFINITY;
                for (int j = 0; j < lim; j++) {
                    const float *k = K + ko + (size_t)j * d;
                    double dot = 0;
                    for (int c = 0; c < d; c++) dot += (double)q[c] * k[c];
                    p[j] = scale * dot;
                    pn[j] = round_low(scale * dot, low);
                    mx = fmax(mx, p[j]);
                    mxn = fmax(mxn, pn[j]);
                }
                double l = 0, ln = 0;
                for (int j = 0; j < lim; j++) {
                    p[j] = exp(p[j] - mx);
                    pn[j] = exp(pn[j] - mxn);
                    l += p[j];
                    ln += pn[j];
                }
                for (int c = 0; c < d; c++) o[c] = on[c] = 0;
                for (int j = 0; j < lim; j++) {
                    p[j] /= l;
                    pn[j] = round_low(pn[j] / ln, low);
                    const float *v = V + ko + (size_t)j * d;
                    for (int c = 0; c < d; c++) {
                        o[c] += p[j] * v[c];
                        on[c] += pn[j] * v[c];
                    }
                }
                double D = 0, Dn = 0;
                for (int c = 0; c < d; c++) {
                    D += (double)go[c] * o[c];
                    Dn += (double)go[c] * round_low(on[c], low);
                }
                for (int j = 0; j < lim; j++) {
                    const float *k = K + ko + (size_t)j * d, *v = V + ko + (size_t)j * d;
                    double dp = 0;
                    for (int c = 0; c < d; c++) dp += (double)go[c] * v[c];
                    const double ds = p[j] * (dp - D);
                    const double dsn = round_low(pn[j] * (round_low(dp, low) - Dn), low);
                    for (int c = 0; c < d; c++) {
                        g[0][qo + (size_t)i * d + c] += scale * ds * k[c];
                        gn[0][qo + (size_t)i * d + c] += scale * dsn * k[c];
                        g[1][ko + (size_t)j * d + c] += scale * ds * q[c];
                        gn[1][ko + (size_t)j * d + c] += scale * dsn * q[c];
                        g[2][ko + (size_t)j * d + c] += p[j] * go[c];
                        gn[2][ko + (size_t)j * d + c] += pn[j] * go[c];
                    }
                }
            }
        }
    for (int t = 0; t < 3; t++)
        for (double &x : gn[t]) x = round_low(x, low);
}

static double max_abs_diff(const float *a, const double *b, size_t n, int *bad)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) {
            (*bad)++;
            continue;
        }
        m = fmax(m, fabs(a[i] - b[i]));
    }
    return m;
}

/* one backward run of configuration ci */
static cudaError_t bwd_run(int ci, const fa_gpu_shape *s, fa_gpu_dtype low, const void *Q, const void *K,
                           const void *V, const void *O, const void *dO, const float *Lse, void *dQ, void *dK,
                           void *dV, float *ws)
{
    if (k_bwd_cfg[ci].ver == 5)
        return fa_v5_backward(s, low, k_bwd_cfg[ci].det, k_bwd_cfg[ci].bc, Q, K, V, O, dO, Lse, dQ, dK, dV, ws, 0);
    return fa_v3_backward(s, low, k_bwd_cfg[ci].det, k_bwd_cfg[ci].bc, Q, K, V, O, dO, Lse, dQ, dK, dV, ws, 0);
}

static void run_bwd_case(const fa_gpu_shape *s, const opts *o)
{
    static unsigned long long case_no = 0;
    case_no++;
    const fa_gpu_dtype low = o->low;
    const char *lowname = low == FA_GPU_BF16 ? "bf16" : "fp16";
    const char *why = fa_gpu_check(FA_K_V3, s);
    if (why) {
        fprintf(stderr, "fabench: v3_bwd: %s\n", why);
        exit(2);
    }
    size_t nq = (size_t)s->B * s->H * s->N_q * s->d, nk = (size_t)s->B * s->H_kv * s->N_k * s->d;
    size_t nl = (size_t)s->B * s->H * s->N_q;
    float *Qf, *Kf, *Vf, *dOf, *Lse, *ws, *tmp;
    void *Q, *K, *V, *dO, *O, *dQ, *dK, *dV;
    CK(cudaMalloc(&Qf, nq * 4));
    CK(cudaMalloc(&Kf, nk * 4));
    CK(cudaMalloc(&Vf, nk * 4));
    CK(cudaMalloc(&dOf, nq * 4));
    CK(cudaMalloc(&tmp, std::max(nq, nk) * 4));
    CK(cudaMalloc(&Lse, nl * 4));
    CK(cudaMalloc(&Q, nq * 2));
    CK(cudaMalloc(&K, nk * 2));
    CK(cudaMalloc(&V, nk * 2));
    CK(cudaMalloc(&dO, nq * 2));
    CK(cudaMalloc(&O, nq * 2));
    CK(cudaMalloc(&dQ, nq * 2));
    CK(cudaMalloc(&dK, nk * 2));
    CK(cudaMalloc(&dV, nk * 2));
    CK(cudaMalloc(&ws, std::max(fa_v3_bwd_workspace_bytes(s), fa_v5_bwd_workspace_bytes(s))));
    const int have_v5 = fa_gpu_arch_check(FA_K_V5) == NULL;
    uint64_t seed = o->seed * 2000003ull + case_no * 104729ull;
    float *fs[4] = {Qf, Kf, Vf, dOf};
    void *ls[4] = {Q, K, V, dO};
    size_t ns[4] = {nq, nk, nk, nq};
    for (int t = 0; t < 4; t++) {
        if (low == FA_GPU_BF16)
            gen_inputs<__nv_bfloat16><<<2048, 256>>>(fs[t], (__nv_bfloat16 *)ls[t], (long long)ns[t], seed + t);
        else
            gen_inputs<__half><<<2048, 256>>>(fs[t], (__half *)ls[t], (long long)ns[t], seed + t);
    }
    CK(cudaGetLastError());
    CK(fa_v3_forward(s, low, 1, Q, K, V, O, Lse, 0)); /* O and LSE for the backward */
    CK(cudaDeviceSynchronize());

    const int small = is_small(s);
    std::vector<double> g[3], gn[3];
    if (o->validate && small) {
        std::vector<float> hq(nq), hk(nk), hv(nk), hdo(nq);
        CK(cudaMemcpy(hq.data(), Qf, nq * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hk.data(), Kf, nk * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hv.data(), Vf, nk * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hdo.data(), dOf, nq * 4, cudaMemcpyDeviceToHost));
        ref_backward(s, low, hq.data(), hk.data(), hv.data(), hdo.data(), g, gn);
    }
    std::vector<float> got[2][3]; /* [0]: the first configuration, [1]: the current one */
    void *outs[3] = {dQ, dK, dV};
    const char *gname[3] = {"dQ", "dK", "dV"};
    for (int ci = 0; ci < k_nbwd; ci++) { /* k_bwd_cfg: the deterministic one first */
        const int det = k_bwd_cfg[ci].det, bc = k_bwd_cfg[ci].bc, slot = ci == 0 ? 0 : 1;
        const char *kname = k_bwd_cfg[ci].name;
        if ((bc & FA_BWD_OCC2) && s->d != 64) continue;
        if (k_bwd_cfg[ci].ver == 5 && !have_v5) continue;
        int selected = 1;
        if (o->bwd_only[0]) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", o->bwd_only);
            selected = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
                if (!strcmp(t, kname)) selected = 1;
        }
        if (!selected && ci != 0) continue;
        const int timed_here = selected;
        double err = NAN;
        const char *pass = "skip";
        if (o->validate) {
            for (int t = 0; t < 3; t++) CK(cudaMemset(outs[t], 0xFF, ns[t] * 2));
            CK(bwd_run(ci, s, low, Q, K, V, O, dO, Lse, dQ, dK, dV, ws));
            CK(cudaDeviceSynchronize());
            int ok = 1;
            if (det) { /* deterministic: a second run gives the same bits */
                std::vector<unsigned char> first[3];
                for (int t = 0; t < 3; t++) {
                    first[t].resize(ns[t] * 2);
                    CK(cudaMemcpy(first[t].data(), outs[t], ns[t] * 2, cudaMemcpyDeviceToHost));
                }
                CK(bwd_run(ci, s, low, Q, K, V, O, dO, Lse, dQ, dK, dV, ws));
                CK(cudaDeviceSynchronize());
                for (int t = 0; t < 3; t++) {
                    std::vector<unsigned char> again(ns[t] * 2);
                    CK(cudaMemcpy(again.data(), outs[t], ns[t] * 2, cudaMemcpyDeviceToHost));
                    const int same = again == first[t];
                    fprintf(stderr, "  check %-11s %s bitwise repeatable: %s\n", kname, gname[t], same ? "yes" : "NO");
                    if (!same) ok = 0;
                }
            }
            err = 0;
            for (int t = 0; t < 3; t++) {
                if (low == FA_GPU_BF16)
                    to_f32<__nv_bfloat16><<<1024, 256>>>((const __nv_bfloat16 *)outs[t], tmp, (long long)ns[t]);
                else
                    to_f32<__half><<<1024, 256>>>((const __half *)outs[t], tmp, (long long)ns[t]);
                CK(cudaGetLastError());
                got[slot][t].resize(ns[t]);
                CK(cudaMemcpy(got[slot][t].data(), tmp, ns[t] * 4, cudaMemcpyDeviceToHost));
                int bad = 0;
                double e, tol;
                if (small) {
                    e = max_abs_diff(got[slot][t].data(), g[t].data(), ns[t], &bad);
                    int b2 = 0;
                    double en = max_abs_diff(std::vector<float>(gn[t].begin(), gn[t].end()).data(),
                                             g[t].data(), ns[t], &b2);
                    tol = fmax(3 * en, 1e-5);
                    fprintf(stderr, "  check %-11s %s err %.3e (tol 3 x naive %.3e) nonfinite %d\n",
                            kname, gname[t], e, tol, bad);
                } else { /* large: the two modes must agree (no fp64 reference at this size) */
                    std::vector<double> other(got[0][t].begin(), got[0][t].end());
                    e = max_abs_diff(got[slot][t].data(), other.data(), ns[t], &bad);
                    double mx = 0;
                    for (double x : other) mx = fmax(mx, fabs(x));
                    tol = 2e-2 * mx;
                    fprintf(stderr, "  check %-11s %s |this - det| %.3e (tol %.3e) nonfinite %d\n",
                            kname, gname[t], e, tol, bad);
                }
                err = fmax(err, e);
                if (bad || !(e <= tol)) ok = 0;
            }
            pass = small ? (ok ? "PASS" : "FAIL") : ci == 0 ? "ref" : (ok ? "CONS" : "FAIL");
            if (!ok) g_failures++;
        }
        double ms = NAN;
        if (o->time && timed_here) {
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            for (int i = 0; i < o->warmup; i++)
                CK(bwd_run(ci, s, low, Q, K, V, O, dO, Lse, dQ, dK, dV, ws));
            CK(cudaDeviceSynchronize());
            std::vector<float> t(o->reps);
            for (int i = 0; i < o->reps; i++) {
                CK(cudaEventRecord(e0, 0));
                CK(bwd_run(ci, s, low, Q, K, V, O, dO, Lse, dQ, dK, dV, ws));
                CK(cudaEventRecord(e1, 0));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&t[i], e0, e1));
            }
            std::sort(t.begin(), t.end());
            ms = o->reps % 2 ? t[o->reps / 2] : 0.5 * (t[o->reps / 2 - 1] + t[o->reps / 2]);
            CK(cudaEventDestroy(e0));
            CK(cudaEventDestroy(e1));
        }
        double flops = 2.5 * 4.0 * s->B * s->H * (double)s->N_q * s->N_k * s->d * (s->causal ? 0.5 : 1);
        /* minimum bytes: Q, O, dO, K, V and LSE read once; dQ, dK, dV written once */
        double bytes = (4.0 * nq + 4.0 * nk) * 2 + 4.0 * nl;
        double tf = flops / (ms * 1e-3) / 1e12, gbps = bytes / (ms * 1e-3) / 1e9;
        printf("%-11s B %2d H %2d H_kv %2d N_q %5d N_k %5d d %3d causal %d %-4s  %9.3f ms  "
               "%7.1f TFLOP/s  %7.1f GB/s  err %.2e  %s\n",
               kname, s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d, s->causal, lowname, ms, tf, gbps,
               err, pass);
        fflush(stdout);
        if (g_csv) {
            fprintf(g_csv, "%s,%d,%d,%d,%d,%d,%d,%d,%s,%.5f,%.2f,%.1f,%.3e,%s\n", kname, s->B, s->H,
                    s->H_kv, s->N_q, s->N_k, s->d, s->causal, lowname, ms, tf, gbps, err, pass);
            fflush(g_csv);
        }
    }
    void *all[] = {Qf, Kf, Vf, dOf, tmp, Lse, Q, K, V, dO, O, dQ, dK, dV, ws};
    for (void *p : all) CK(cudaFree(p));
}

/* exp2_fma (tc_common.cuh) on every fp32 bit pattern of [-125, 8] against exp2 in fp64: the
 * largest relative error (as the bits of a non-negative float, so atomicMax orders them), and
 * how many arguments in [-2^30, -125) did not give 0 */
__global__ void exp2_fma_scan(unsigned *worst, unsigned *nonzero)
{
    const uint32_t neg_end = 0xC2FA0000u, pos_end = 0x41000000u; /* -125, 8 */
    const uint64_t n_neg = neg_end - 0x80000000u + 1, n = n_neg + pos_end + 1;
    unsigned w = 0, nz = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t b = i < n_neg ? 0x80000000u + (uint32_t)i : (uint32_t)(i - n_neg);
        const float x = __uint_as_float(b);
        const double ref = exp2((double)x);
        const float e = (float)(fabs((double)exp2_fma(x) - ref) / ref);
        w = max(w, __float_as_uint(e));
        const float xs = -125.0001f - (float)(i % 4096) * 0.25f; /* below the range: 0 */
        nz += exp2_fma(xs) != 0.0f || exp2_fma(-INFINITY) != 0.0f;
    }
    atomicMax(worst, w);
    atomicAdd(nonzero, nz);
}

/* fabench --check: the FMA-pipe exp2 of v5_exp2poly / v5_fa4 within FA_EXP2P_MAX_REL_ERR on the
 * whole range the softmax uses (the CPU test covers a stride of it, tests/test_exp2poly.c) */
static void check_exp2_fma(void)
{
    unsigned *d, h[2];
    CK(cudaMalloc(&d, 2 * sizeof(unsigned)));
    CK(cudaMemset(d, 0, 2 * sizeof(unsigned)));
    exp2_fma_scan<<<1024, 256>>>(d, d + 1);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    float w;
    memcpy(&w, &h[0], sizeof w);
    const int ok = w <= FA_EXP2P_MAX_REL_ERR && h[1] == 0;
    fprintf(stderr, "exp2_fma: every fp32 in [-125, 8]: max rel err %.3e (bound %.1e), nonzero below -125: %u  %s\n",
            (double)w, FA_EXP2P_MAX_REL_ERR, h[1], ok ? "PASS" : "FAIL");
    if (!ok) g_failures++;
}

static fa_gpu_shape mk(int B, int H, int Hkv, int Nq, int Nk, int d, int causal)
{
    fa_gpu_shape s = {B, H, Hkv, Nq, Nk, d, causal, (float)(1.0 / sqrt((double)d))};
    return s;
}

int main(int argc, char **argv)
{
    opts o;
    o.nk = 0;
    o.many = 0;
    o.default_kernels = 0;
    o.low = FA_GPU_BF16;
    o.reps = 20;
    o.warmup = 3;
    o.validate = 1;
    o.bwd = 0;
    o.bwd_only[0] = 0;
    o.time = 1;
    o.csv = NULL;
    o.seed = 20261129ull;
    o.ns = {512, 1024, 2048, 4096, 8192, 16384};
    o.ds = {64, 128};
    o.causals = {0, 1};
    int mode = 0; /* 1 check, 2 sweep, 3 shape */
    int fp8 = 0, fp8_set = 0; /* --fp8 and whether an fp8-only option was given */
    fabench_fp8_opts f8;
    memset(&f8, 0, sizeof f8);
    f8.per_block = 1;
    f8.hadamard_seed = 12345;
    f8.same_as = -1;
    f8.vs = -1;
    const char *err_csv_path = NULL;
    fa_gpu_shape one = mk(1, 1, 1, 1, 1, 64, 0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDVAL()                                                        \
    do {                                                                 \
        if (!val) usage_error("missing value after", a);                 \
        i++;                                                             \
    } while (0)
        if (!strcmp(a, "--check") || !strcmp(a, "--sweep")) {
            const int m = a[2] == 'c' ? 1 : 2;
            if (mode && mode != m) usage_error("say only one of --check, --sweep, --shape", a);
            mode = m;
        }
        else if (!strcmp(a, "--shape")) {
            NEEDVAL();
            if (mode && mode != 3) usage_error("say only one of --check, --sweep, --shape", a);
            std::vector<int> v = parse_ints(val, "--shape wants 7 integers in [0, 2^31 - 1]: B,H,H_kv,N_q,N_k,d,causal");
            if (v.size() != 7) usage_error("--shape wants 7 integers in [0, 2^31 - 1]: B,H,H_kv,N_q,N_k,d,causal", val);
            one = mk(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
            mode = 3;
        } else if (!strcmp(a, "--kernels")) {
            NEEDVAL();
            o.nk = 0;
            for (const char *t = val;;) { /* empty items ("", "a,,b", "a,") are errors */
                const char *c = strchr(t, ',');
                const size_t len = c ? (size_t)(c - t) : strlen(t);
                char name[64];
                if (len == 0 || len >= sizeof name) usage_error("--kernels wants a comma-separated list of kernel names", val);
                memcpy(name, t, len);
                name[len] = 0;
                const int k = parse_kernel(name);
                if (k < 0) usage_error("unknown kernel (v0, v0_low, v1, v2, v3, v3_mt2, v3_mt2_bc32, v3_br256, v3_lazy, v3_bc128, v3_mt2_bc48, v4, v4_bc64, v5, v5_bc128, v5_bc176, v5_wg3, v5_nopp, v5_pers, v5_pers_wg3, v5_pers_bc160, v5_exp2poly, v5_cresc, v5_fa4)", name);
                if (o.nk >= FA_K_COUNT) usage_error("--kernels lists more kernels than there are", val);
                o.kernels[o.nk++] = k;
                if (!c) break;
                t = c + 1;
            }
        } else if (!strcmp(a, "--dtype")) {
            NEEDVAL();
            if (!strcmp(val, "bf16")) o.low = FA_GPU_BF16;
            else if (!strcmp(val, "fp16")) o.low = FA_GPU_FP16;
            else usage_error("--dtype must be bf16 or fp16", val);
        } else if (!strcmp(a, "--reps")) {
            NEEDVAL();
            std::vector<int> r = parse_ints(val, "--reps wants one integer >= 1");
            if (r.size() != 1 || r[0] < 1) usage_error("--reps wants one integer >= 1", val);
            o.reps = r[0];
        } else if (!strcmp(a, "--warmup")) {
            NEEDVAL();
            std::vector<int> w = parse_ints(val, "--warmup wants one integer >= 0");
            if (w.size() != 1) usage_error("--warmup wants one integer >= 0", val);
            o.warmup = w[0];
        } else if (!strcmp(a, "--n")) {
            NEEDVAL();
            o.ns = parse_ints(val, "--n wants a list of lengths >= 1");
            for (int n : o.ns)
                if (n < 1) usage_error("--n wants a list of lengths >= 1", val);
        } else if (!strcmp(a, "--d")) {
            NEEDVAL();
            o.ds = parse_ints(val, "--d wants a list of head dims (64 or 128)");
            for (int d : o.ds)
                if (d != 64 && d != 128) usage_error("--d wants a list of head dims (64 or 128)", val);
        } else if (!strcmp(a, "--causal")) {
            NEEDVAL();
            o.causals = parse_ints(val, "--causal wants a list of 0 and 1");
            for (int c : o.causals)
                if (c > 1) usage_error("--causal wants a list of 0 and 1", val);
        } else if (!strcmp(a, "--csv")) {
            NEEDVAL();
            o.csv = val;
        } else if (!strcmp(a, "--seed")) {
            NEEDVAL();
            std::vector<int> sd = parse_ints(val, "--seed wants one integer in [0, 2^31 - 1]");
            if (sd.size() != 1) usage_error("--seed wants one integer in [0, 2^31 - 1]", val);
            o.seed = (unsigned long long)sd[0];
        } else if (!strcmp(a, "--fp8")) fp8 = 1;
        else if (!strcmp(a, "--hadamard")) f8.hadamard = 1, fp8_set = 1;
        else if (!strcmp(a, "--inputs")) {
            NEEDVAL();
            if (!strcmp(val, "normal")) f8.outliers = 0;
            else if (!strcmp(val, "outliers")) f8.outliers = 1;
            else usage_error("--inputs must be normal or outliers", val);
            fp8_set = 1;
        } else if (!strcmp(a, "--fp8-quant")) {
            NEEDVAL();
            if (!strcmp(val, "block")) f8.per_block = 1;
            else if (!strcmp(val, "tensor")) f8.per_block = 0;
            else usage_error("--fp8-quant must be block or tensor", val);
            fp8_set = 1;
        } else if (!strcmp(a, "--fp8-variant")) {
            NEEDVAL();
            std::vector<int> v = parse_ints(val, FP8_VARIANT_HELP);
            if (v.size() != 1 || v[0] > 11) usage_error(FP8_VARIANT_HELP, val);
            f8.variant = v[0];
            fp8_set = 1;
        } else if (!strcmp(a, "--fp8-same")) {
            NEEDVAL();
            std::vector<int> v = parse_ints(val, "--fp8-same wants one variant, 0..11");
            if (v.size() != 1 || v[0] > 11) usage_error("--fp8-same wants one variant, 0..11", val);
            f8.same_as = v[0];
            fp8_set = 1;
        } else if (!strcmp(a, "--fp8-vs")) {
            NEEDVAL();
            std::vector<int> v = parse_ints(val, "--fp8-vs wants one variant, 0..11");
            if (v.size() != 1 || v[0] > 11) usage_error("--fp8-vs wants one variant, 0..11", val);
            f8.vs = v[0];
            fp8_set = 1;
        } else if (!strcmp(a, "--fp8-err-csv")) {
            NEEDVAL();
            err_csv_path = val;
            fp8_set = 1;
        } else if (!strcmp(a, "--no-validate")) o.validate = 0;
        else if (!strcmp(a, "--no-time")) o.time = 0;
        else if (!strcmp(a, "--bwd")) o.bwd = 1;
        else if (!strcmp(a, "--bwd-kernels")) {
            NEEDVAL();
            if (strlen(val) >= sizeof o.bwd_only) usage_error("--bwd-kernels: list too long", val);
            for (const char *t = val;;) {
                const char *c = strchr(t, ',');
                const size_t len = c ? (size_t)(c - t) : strlen(t);
                bool known = false;
                for (const auto &c : k_bwd_cfg) known = known || (strlen(c.name) == len && !strncmp(c.name, t, len));
                if (!known) usage_error("--bwd-kernels wants names from v3_bwd_det, v3_bwd, v3_bwd_bc64, v3_bwd_occ2, v3_bwd_ma, v5_bwd, v5_bwd_det, v5_bwd_atomic, v5_bwd_pers, v5_bwd_s0, v5_bwd_s1r, v5_bwd_s1p, v5_bwd_s2pr, v5_bwd_s2pr_det, v5_bwd_dinc, v5_bwd_dinc_det, v5_bwd_lean, v5_bwd_lean_det, v5_bwd_qrot, v5_bwd_dq2, v5_bwd_dq2_det, v5_bwd_qd, v5_bwd_dqk, v5_bwd_dqk_det, v5_bwd_cuts, v5_bwd_cuts_det", val);
                if (!c) break;
                t = c + 1;
            }
            snprintf(o.bwd_only, sizeof o.bwd_only, "%s", val);
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("fabench: validates and times fasim's GPU attention kernels\n"
                   "  fabench --check [--bwd]                 odd shapes vs the fp64 oracle\n"
                   "  fabench --sweep [--bwd] [--csv FILE]    the FlashAttention-2 benchmark shapes\n"
                   "  fabench --shape B,H,H_kv,N_q,N_k,d,causal [--bwd]\n"
                   "options: --kernels LIST  --bwd-kernels LIST  --dtype bf16|fp16  --reps R (default 20)\n"
                   "         --warmup W (default 3)  --n LIST  --d 64,128  --causal 0,1  --no-validate\n"
                   "         --no-time  --csv FILE  --seed S\n"
                   "  fabench --fp8 --check|--sweep|--shape ...  the v5 FP8 forward (d = 128) beside the bf16 v5:\n"
                   "         --inputs normal|outliers  --fp8-quant block|tensor  --hadamard  --fp8-variant 0..11\n"
                   "         --fp8-same V (O and LSE must be the bits of variant V on the same inputs)\n"
                   "         --fp8-vs V (variant V timed too, interleaved with the other two: CSV kernel v5_fp8_vs)\n"
                   "         --fp8-err-csv FILE (accuracy rows; validation runs the fp64 oracle on the host)\n"
                   "kernels: v0 v0_low v1 v2 v3 v3_mt2 v3_mt2_bc32 v3_br256 v3_lazy v3_bc128 v3_mt2_bc48\n"
                   "         v4 v4_bc64 v5 v5_bc128 v5_bc176 v5_wg3 v5_nopp v5_pers v5_pers_wg3 v5_pers_bc160\n"
                   "         v5_exp2poly v5_cresc v5_fa4\n"
                   "         (v4*, v5*: sm_90a only);\n"
                   "         backward: v3_bwd_det v3_bwd v3_bwd_bc64\n"
                   "         v3_bwd_occ2 (d = 64) v3_bwd_ma v5_bwd v5_bwd_det\n"
                   "         v5_bwd_atomic v5_bwd_pers v5_bwd_s0 v5_bwd_s1r v5_bwd_s1p\n"
                   "         v5_bwd_s2pr v5_bwd_s2pr_det v5_bwd_dinc v5_bwd_dinc_det\n"
                   "         v5_bwd_lean v5_bwd_lean_det v5_bwd_qrot v5_bwd_dq2\n"
                   "         v5_bwd_dq2_det v5_bwd_qd v5_bwd_dqk v5_bwd_dqk_det v5_bwd_cuts\n"
                   "         v5_bwd_cuts_det (v5: sm_90a)\n"
                   "details: the comment at the top of kernels/fabench.cu\n");
            return 0;
        }
        else usage_error("unknown option", a);
#undef NEEDVAL
    }
    if (!mode) usage_error("say --check, --sweep or --shape B,H,H_kv,N_q,N_k,d,causal", NULL);
    if (fp8_set && !fp8) usage_error("--inputs, --fp8-quant, --hadamard, --fp8-variant, --fp8-same, --fp8-vs and --fp8-err-csv need --fp8", NULL);
    if (fp8 && (o.bwd || o.nk)) usage_error("--fp8 runs the v5 FP8 forward and the bf16 v5: no --bwd, no --kernels", NULL);
    if (fp8 && mode == 3 && one.d != 128) usage_error("--fp8: v5_fp8 runs d = 128 only", NULL);
    if (fp8 && mode == 3 && fa_v5_fp8_check(&one)) usage_error(fa_v5_fp8_check(&one), NULL);
    if (fp8) o.ds = {128};
    if (o.bwd_only[0] && !o.bwd) usage_error("--bwd-kernels needs --bwd", o.bwd_only);
    if (o.csv) { /* refuse an unusable path before the GPU starts; written to PATH.tmp.PID */
        FILE *t;
        snprintf(g_csv_tmp, sizeof g_csv_tmp, "%s.tmp.%ld", o.csv, (long)getpid());
        if (strlen(o.csv) + 24 >= sizeof g_csv_tmp || !(t = fopen(g_csv_tmp, "w"))) {
            g_csv_tmp[0] = 0;
            fprintf(stderr, "fabench: cannot write --csv %s\n", o.csv);
            return 2;
        }
        g_csv = t;
        g_csv_path = o.csv;
        atexit(csv_cleanup);
        struct stat st;
        if (stat(o.csv, &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "fabench: --csv %s is a directory\n", o.csv);
            exit(2);
        }
        fprintf(g_csv, "kernel,B,H,H_kv,N_q,N_k,d,causal,dtype,ms,tflops,gbps,max_err,pass\n");
    }
    if (o.nk == 0) {
        const int all[] = {FA_K_V0, FA_K_V0_LOW, FA_K_V1, FA_K_V2, FA_K_V3, FA_K_V3_MT2, FA_K_V3_MT2_BC32,
                           FA_K_V3_BR256, FA_K_V3_LAZY, FA_K_V3_BC128, FA_K_V3_MT2_BC48,
                           FA_K_V4, FA_K_V4_BC64, FA_K_V5, FA_K_V5_BC128, FA_K_V5_BC176, FA_K_V5_WG3, FA_K_V5_NOPP, FA_K_V5_PERS,
                           FA_K_V5_PERS_WG3, FA_K_V5_PERS_BC160, FA_K_V5_EXP2POLY, FA_K_V5_CRESC, FA_K_V5_FA4};
        for (int k : all) o.kernels[o.nk++] = k;
        o.default_kernels = 1;
    }
    if (mode == 2 || mode == 3) {
        for (int d : o.ds)
            if (mode == 2 && 2048 % d) usage_error("--d must divide 2048 in a sweep", NULL);
        for (int n : o.ns)
            if (mode == 2 && (n < 1 || 16384 % n)) usage_error("--n must divide 16384 in a sweep", NULL);
    }
    if (mode == 3 && !fp8) { /* reject a bad shape before touching the GPU (--fp8: fa_v5_fp8_check) */
        for (int i = 0; i < o.nk && !o.bwd; i++) { /* --bwd runs none of the forwards */
            const char *why = fa_gpu_check_shape((fa_kernel_id)o.kernels[i], &one);
            if (why) {
                fprintf(stderr, "fabench: %s: %s\n", fa_kernel_name((fa_kernel_id)o.kernels[i]), why);
                return 2;
            }
        }
        if (o.bwd && one.d != 64 && strstr(o.bwd_only, "v3_bwd_occ2"))
            usage_error("v3_bwd_occ2 runs d = 64 only", o.bwd_only);
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        fprintf(stderr, "fabench: no CUDA device\n");
        return 1;
    }
    if (o.default_kernels) {
        int n = 0;
        for (int i = 0; i < o.nk; i++) {
            const char *why = fa_gpu_arch_check((fa_kernel_id)o.kernels[i]);
            if (why) fprintf(stderr, "fabench: skipping %s: %s\n", fa_kernel_name((fa_kernel_id)o.kernels[i]), why);
            else o.kernels[n++] = o.kernels[i];
        }
        o.nk = n;
    }
    for (int i = 0; i < o.nk; i++) { /* kernels named with --kernels must run on this device */
        const char *why = fa_gpu_arch_check((fa_kernel_id)o.kernels[i]);
        if (why) {
            fprintf(stderr, "fabench: %s: %s\n", fa_kernel_name((fa_kernel_id)o.kernels[i]), why);
            return 2;
        }
    }
    if (fa_gpu_init() != 0) {
        fprintf(stderr, "fabench: cuBLAS initialisation failed\n");
        return 1;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    fprintf(stderr, "fabench: %s, %d SMs, L2 %d MiB, smem/block opt-in %zu KiB, cc %d.%d\n", p.name,
            p.multiProcessorCount, p.l2CacheSize >> 20, p.sharedMemPerBlockOptin >> 10, p.major,
            p.minor);
    if (fp8) {
        FILE *ec = NULL;
        if (err_csv_path) {
            if (!(ec = fopen(err_csv_path, "w"))) {
                fprintf(stderr, "fabench: cannot write --fp8-err-csv %s\n", err_csv_path);
                return 2;
            }
            fprintf(ec, "B,H,H_kv,N_q,N_k,d,causal,inputs,quant,hadamard,kernel,rmse,max_err,lse_max_err\n");
        }
        f8.validate = o.validate;
        f8.time = o.time && o.reps > 0;
        f8.warmup = o.warmup;
        f8.reps = o.reps;
        std::vector<fa_gpu_shape> shapes;
        if (mode == 1) {
            const int odd[][7] = {{1, 2, 2, 113, 203, 128, 0}, {1, 2, 1, 203, 113, 128, 1}, {1, 8, 1, 1, 239, 128, 1},
                                  {1, 3, 3, 1023, 1024, 128, 1}, {2, 4, 4, 256, 512, 128, 0}, {1, 2, 2, 300, 77, 128, 0},
                                  {1, 4, 2, 1024, 1024, 128, 0}};
            for (auto &sh : odd) shapes.push_back(mk(sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], sh[6]));
            f8.time = 0;
        } else if (mode == 2) {
            for (int c : o.causals)
                for (int n : o.ns) shapes.push_back(mk(16384 / n, 16, 16, n, n, 128, c));
        } else {
            shapes.push_back(one);
        }
        unsigned long long case_no = 0;
        for (auto &sh : shapes) {
            fprintf(stderr, "shape B %d H %d H_kv %d N_q %d N_k %d d %d causal %d\n", sh.B, sh.H, sh.H_kv, sh.N_q, sh.N_k, sh.d,
                    sh.causal);
            g_failures += fabench_fp8_case(&sh, &f8, o.seed * 1000003ull + (++case_no) * 7919ull, g_csv, ec);
        }
        if (ec && fclose(ec) != 0) {
            fprintf(stderr, "fabench: cannot write --fp8-err-csv %s\n", err_csv_path);
            return 2;
        }
    } else if (mode == 1) {
        if (!o.bwd) check_exp2_fma();
        /* odd shapes: (B, H, H_kv, N_q, N_k, d, causal) */
        const int shapes[][7] = {
            {1, 2, 2, 113, 203, 64, 0},  {1, 2, 2, 113, 203, 64, 1},  {1, 2, 1, 203, 113, 128, 1},
            {2, 4, 2, 128, 128, 64, 1},  {1, 8, 1, 1, 239, 128, 1},   {1, 2, 2, 239, 1, 64, 1},
            {1, 3, 3, 1023, 1024, 128, 1}, {2, 4, 4, 256, 512, 128, 0}, {1, 6, 2, 77, 300, 64, 1},
            {1, 4, 1, 1024, 1023, 64, 1}, {1, 2, 2, 300, 77, 128, 0}};
        o.time = o.time && o.reps > 0;
        o.many = 1;
        for (auto &sh : shapes) {
            fa_gpu_shape s = mk(sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], sh[6]);
            fprintf(stderr, "shape B %d H %d H_kv %d N_q %d N_k %d d %d causal %d\n", s.B, s.H,
                    s.H_kv, s.N_q, s.N_k, s.d, s.causal);
            if (o.bwd) run_bwd_case(&s, &o);
            else run_case(&s, &o);
        }
    } else if (mode == 2) {
        o.many = 1;
        for (int d : o.ds)
            for (int c : o.causals)
                for (int n : o.ns) {
                    fa_gpu_shape s = mk(16384 / n, 2048 / d, 2048 / d, n, n, d, c);
                    fprintf(stderr, "shape B %d H %d N %d d %d causal %d\n", s.B, s.H, n, d, c);
                    if (o.bwd) run_bwd_case(&s, &o);
                    else run_case(&s, &o);
                }
    } else {
        if (o.bwd) run_bwd_case(&one, &o);
        else run_case(&one, &o);
    }
    if (g_csv) {
        if (fclose(g_csv) != 0 || rename(g_csv_tmp, g_csv_path) != 0) {
            fprintf(stderr, "fabench: cannot write --csv %s\n", g_csv_path);
            return 2;
        }
        g_csv_tmp[0] = 0; /* committed: nothing for csv_cleanup to remove */
    }
    fa_gpu_finish();
    fprintf(stderr, "fabench: %d validation failure(s)\n", g_failures);
    return g_failures ? 1 : 0;
}
