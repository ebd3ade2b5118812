/* fabench_fp8.cu -- fabench --fp8: the v5 FP8 forward (attn_v5_fp8.cu) beside the bf16 v5 on the
 * same inputs, timed in the same process, and its accuracy against cpu_ref's fp64 oracle beside
 * the bf16 v5's and beside fasim's fp8 emulation of the same inputs (cpu_ref/fa_fp8.h:
 * fa_fp8_forward, the same block quantization, Hadamard signs and P scaling as the kernel).
 *
 * Inputs (fp32, drawn on the device from splitmix64 + Box-Muller, deterministic in the seed):
 *   normal:   every entry of Q, K, V ~ N(0, 1);
 *   outliers: N(0, 1) + N(0, 100) Bernoulli(0.001) -- 0.1 % of the entries get an extra
 *             N(0, 10^2) term, the FlashAttention-3 paper's numerical-error inputs (section 4.3).
 * The bf16 v5 gets them rounded to bf16; the fp8 kernel gets them through fa_v5_fp8_prepare
 * (optional Hadamard, then e4m3 with one power-of-two scale per 128-row block or per tensor); the
 * oracle and the emulation get the fp32 values themselves.
 * Error of O: RMSE = sqrt(mean (O - O_ref)^2) and max |O - O_ref| over all elements; LSE: max.
 * Validation (small shapes, where the oracle runs): the kernel passes when its RMSE and its max
 * error are each at most 2x the emulation's (the rule of the other kernels, with fasim's emulation
 * as the baseline) and nothing is NaN.
 * Timing: CUDA events, warmup then the median of reps, of the attention kernel alone (the
 * pre-pass is timed apart: in a model, Q, K, V arrive quantized; V^T is the pre-pass's own cost).
 * TFLOP/s by the FlashAttention-2 convention, 4 B H N_q N_k d (halved when causal). */
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "fa_kernels.h"
#include "fabench_fp8.h"
#include "fa_rng.cuh"
extern "C" {
#include "fa_attn.h"
#if __has_include("fa_fp8.h")
#include "fa_fp8.h"
#define FABENCH_HAVE_EMU 1
#else
#define FABENCH_HAVE_EMU 0
#endif
}

/* x ~ N(0,1) (+ N(0,100) with probability 0.001 when outliers); lo: x rounded to bf16 */
__global__ void fp8b_gen(float *x, __nv_bfloat16 *lo, long long n, uint64_t seed, int outliers)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const uint64_t r = fa_splitmix64(seed ^ fa_splitmix64((uint64_t)i));
        float z = fa_normal_of(r);
        if (outliers) {
            const uint64_t r2 = fa_splitmix64(r ^ 0xA5A5A5A5A5A5A5A5ull), r3 = fa_splitmix64(r2);
            if ((r2 >> 11) * (1.0 / 9007199254740992.0) < 0.001) z += 10.f * fa_normal_of(r3);
        }
        x[i] = z;
        lo[i] = __float2bfloat16_rn(z);
    }
}
__global__ void fp8b_to_f32(const __nv_bfloat16 *x, float *y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = __bfloat162float(x[i]);
}

namespace {
struct Err {
    double rmse, max_o, max_l;
    int nan;
};
Err error_of(const std::vector<float> &O, const std::vector<float> &L, const std::vector<double> &Oref,
             const std::vector<double> &Lref)
{
    Err e = {0, 0, 0, 0};
    double ss = 0;
    for (size_t i = 0; i < O.size(); i++) {
        if (isnan(O[i])) e.nan = 1;
        const double d = (double)O[i] - Oref[i];
        ss += d * d;
        e.max_o = std::max(e.max_o, fabs(d));
    }
    e.rmse = sqrt(ss / (double)O.size());
    for (size_t i = 0; i < L.size(); i++) {
        if (isnan(L[i])) e.nan = 1;
        if (isinf(Lref[i]) || isinf(L[i])) {
            if (isinf(Lref[i]) != isinf(L[i])) e.nan = 1;
            continue;
        }
        e.max_l = std::max(e.max_l, fabs((double)L[i] - Lref[i]));
    }
    return e;
}
double median_ms(std::vector<float> &ms)
{
    std::sort(ms.begin(), ms.end());
    const size_t n = ms.size();
    return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}
} // namespace

int fabench_fp8_case(const fa_gpu_shape *s, const fabench_fp8_opts *o, unsigned long long seed, FILE *csv, FILE *err_csv)
{
    const char *why = fa_v5_fp8_check(s);
    if (why) {
        fprintf(stderr, "fabench: %s\n", why);
        exit(2);
    }
    const size_t nq = (size_t)s->B * s->H * s->N_q * s->d, nk = (size_t)s->B * s->H_kv * s->N_k * s->d;
    const size_t nl = (size_t)s->B * s->H * s->N_q;
    float *Qf, *Kf, *Vf, *Of, *L8, *Lb;
    __nv_bfloat16 *Qb, *Kb, *Vb, *O8, *Ob;
    CK(cudaMalloc(&Qf, nq * 4));
    CK(cudaMalloc(&Kf, nk * 4));
    CK(cudaMalloc(&Vf, nk * 4));
    CK(cudaMalloc(&Of, nq * 4));
    CK(cudaMalloc(&L8, nl * 4));
    CK(cudaMalloc(&Lb, nl * 4));
    CK(cudaMalloc(&Qb, nq * 2));
    CK(cudaMalloc(&Kb, nk * 2));
    CK(cudaMalloc(&Vb, nk * 2));
    CK(cudaMalloc(&O8, nq * 2));
    CK(cudaMalloc(&Ob, nq * 2));
    fp8b_gen<<<2048, 256>>>(Qf, Qb, (long long)nq, seed + 1, o->outliers);
    fp8b_gen<<<2048, 256>>>(Kf, Kb, (long long)nk, seed + 2, o->outliers);
    fp8b_gen<<<2048, 256>>>(Vf, Vb, (long long)nk, seed + 3, o->outliers);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    fa_fp8_bufs fb, fbv = {};
    CK(fa_v5_fp8_alloc(s, &fb));
    fb.kv_blk = fa_v5_fp8_kv_block(o->variant); /* 64-row K/V scale blocks for variants 10, 11 */
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0, 0));
    CK(fa_v5_fp8_prepare(s, Qf, Kf, Vf, o->per_block, o->hadamard, o->hadamard_seed, &fb, 0));
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    float prep_ms = 0;
    CK(cudaEventElapsedTime(&prep_ms, e0, e1));
    __nv_bfloat16 *Ov = NULL;
    float *Lv = NULL;
    if (o->vs >= 0 && o->time) { /* the compared variant on its own quantized copy (its scale blocks may differ) */
        CK(fa_v5_fp8_alloc(s, &fbv));
        fbv.kv_blk = fa_v5_fp8_kv_block(o->vs);
        CK(fa_v5_fp8_prepare(s, Qf, Kf, Vf, o->per_block, o->hadamard, o->hadamard_seed, &fbv, 0));
        CK(cudaMalloc(&Ov, nq * 2));
        CK(cudaMalloc(&Lv, nl * 4));
    }

    auto run8 = [&]() { CK(fa_v5_fp8_forward(s, o->variant, &fb, O8, L8, 0)); };
    auto runv = [&]() { CK(fa_v5_fp8_forward(s, o->vs, &fbv, Ov, Lv, 0)); };
    auto runb = [&]() { CK(fa_gpu_forward(FA_K_V5, s, FA_GPU_BF16, Qb, Kb, Vb, Ob, Lb, NULL, 0)); };
    auto fetch = [&](const __nv_bfloat16 *Od, const float *Ld, std::vector<float> &O, std::vector<float> &L) {
        fp8b_to_f32<<<1024, 256>>>(Od, Of, (long long)nq);
        CK(cudaGetLastError());
        O.resize(nq);
        L.resize(nl);
        CK(cudaMemcpy(O.data(), Of, nq * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(L.data(), Ld, nl * 4, cudaMemcpyDeviceToHost));
    };
    const char *inputs = o->outliers ? "outliers" : "normal", *quant = o->per_block ? "block" : "tensor";
    int failures = 0;
    const char *pass = "skip";
    double err8 = NAN;
    /* the fp64 oracle and the emulation run on the host: only shapes of at most 6e8 B H N_q N_k d
     * (as fabench's is_small); a larger validated shape is an error, not hours of CPU */
    if (o->validate && (double)s->B * s->H * s->N_q * s->N_k * s->d > 6e8) {
        fprintf(stderr, "fabench: --fp8 validates against the fp64 oracle on the host: B H N_q N_k d = %.3g is above 6e8 "
                        "(pass --no-validate)\n", (double)s->B * s->H * s->N_q * s->N_k * s->d);
        exit(2);
    }
    if (o->validate) {
        CK(cudaMemset(O8, 0xFF, nq * 2));
        CK(cudaMemset(L8, 0xFF, nl * 4));
        CK(cudaMemset(Ob, 0xFF, nq * 2));
        CK(cudaMemset(Lb, 0xFF, nl * 4));
        run8();
        runb();
        CK(cudaDeviceSynchronize());
        std::vector<float> O_8, L_8, O_b, L_b;
        fetch(O8, L8, O_8, L_8);
        fetch(Ob, Lb, O_b, L_b);
        std::vector<float> hq(nq), hk(nk), hv(nk);
        CK(cudaMemcpy(hq.data(), Qf, nq * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hk.data(), Kf, nk * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hv.data(), Vf, nk * 4, cudaMemcpyDeviceToHost));
        std::vector<double> dq(hq.begin(), hq.end()), dk(hk.begin(), hk.end()), dv(hv.begin(), hv.end());
        std::vector<double> Oref(nq), Lref(nl);
        fa_shape fs = fa_shape_default(s->N_q, s->d);
        fs.batch = s->B;
        fs.heads = s->H;
        fs.kv_heads = s->H_kv;
        fs.seqlen_q = s->N_q;
        fs.seqlen_k = s->N_k;
        fs.d = fs.d_v = s->d;
        fs.scale = s->scale;
        fs.causal = s->causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        fs.dtype = FA_DTYPE_E4M3;
        if (fa_reference_forward(&fs, dq.data(), dk.data(), dv.data(), Oref.data(), Lref.data()) != FA_OK) {
            fprintf(stderr, "fabench: fa_reference_forward: %s\n", fa_last_error());
            exit(1);
        }
        const Err k8 = error_of(O_8, L_8, Oref, Lref), kb = error_of(O_b, L_b, Oref, Lref);
        Err em = {NAN, NAN, NAN, 0};
#if FABENCH_HAVE_EMU
        {
            std::vector<double> Oe(nq), Le(nl);
            fa_fp8_opts fo;
            memset(&fo, 0, sizeof fo);
            fo.per_block = o->per_block;
            fo.block_r = 128;
            fo.block_c = fb.kv_blk; /* the emulation tiles B_c with the kernel's K/V scale blocks */
            fo.hadamard = o->hadamard;
            fo.seed = o->hadamard_seed;
            if (fa_fp8_forward(&fs, dq.data(), dk.data(), dv.data(), &fo, Oe.data(), Le.data()) != FA_OK) {
                fprintf(stderr, "fabench: fa_fp8_forward: %s\n", fa_last_error());
                exit(1);
            }
            std::vector<float> Of_(Oe.begin(), Oe.end()), Lf_(Le.begin(), Le.end());
            em = error_of(Of_, Lf_, Oref, Lref);
        }
        const int ok = !k8.nan && k8.rmse <= 2 * em.rmse && k8.max_o <= 2 * em.max_o && k8.max_l <= 2 * em.max_l + 1e-3;
        pass = ok ? "PASS" : "FAIL";
#else
        /* no emulation linked: a bound relative to O's own size (N(0,1) inputs give rms(O) ~ sqrt(e / N_k);
         * a zero O or a wrong V^T order errs by about rms(O), fp8 by ~5 % of it) */
        double ss = 0;
        for (size_t i = 0; i < nq; i++) ss += Oref[i] * Oref[i];
        const double rms_ref = sqrt(ss / (double)nq);
        const int ok = !k8.nan && k8.rmse <= 0.25 * rms_ref && k8.max_l <= 0.1;
        pass = ok ? "SANE" : "FAIL";
#endif
        if (!ok) failures++;
        err8 = k8.max_o;
        fprintf(stderr,
                "  fp8 check (%s inputs, %s scales, hadamard %d): v5_fp8 rmse %.3e max %.3e lse %.3e | emulation rmse %.3e "
                "max %.3e lse %.3e | v5 bf16 rmse %.3e max %.3e lse %.3e  %s\n",
                inputs, quant, o->hadamard, k8.rmse, k8.max_o, k8.max_l, em.rmse, em.max_o, em.max_l, kb.rmse, kb.max_o,
                kb.max_l, pass);
        if (err_csv) {
            const Err *rows[3] = {&k8, &em, &kb};
            const char *names[3] = {"v5_fp8", "fasim_emulation", "v5_bf16"};
            for (int r = 0; r < 3; r++)
                fprintf(err_csv, "%d,%d,%d,%d,%d,%d,%d,%s,%s,%d,%s,%.4e,%.4e,%.4e\n", s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d,
                        s->causal, inputs, quant, o->hadamard, names[r], rows[r]->rmse, rows[r]->max_o, rows[r]->max_l);
            fflush(err_csv);
        }
    }
    if (o->same_as >= 0) { /* bit-for-bit against another variant on the same quantized inputs */
        std::vector<uint16_t> Oa(nq), Ob_(nq);
        std::vector<uint32_t> La(nl), Lb_(nl);
        CK(cudaMemset(O8, 0xFF, nq * 2));
        CK(cudaMemset(L8, 0xFF, nl * 4));
        run8();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(Oa.data(), O8, nq * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(La.data(), L8, nl * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemset(O8, 0xFF, nq * 2));
        CK(cudaMemset(L8, 0xFF, nl * 4));
        CK(fa_v5_fp8_forward(s, o->same_as, &fb, O8, L8, 0));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(Ob_.data(), O8, nq * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(Lb_.data(), L8, nl * 4, cudaMemcpyDeviceToHost));
        size_t dO = 0, dL = 0;
        for (size_t i = 0; i < nq; i++) dO += Oa[i] != Ob_[i];
        for (size_t i = 0; i < nl; i++) dL += La[i] != Lb_[i];
        fprintf(stderr, "  fp8 bits: variant %d vs %d: O %zu of %zu differ, LSE %zu of %zu differ  %s\n", o->variant, o->same_as,
                dO, nq, dL, nl, dO || dL ? "DIFFER" : "SAME");
        if (dO || dL) failures++;
    }
    if (o->time) {
        std::vector<float> t8(o->reps), tb(o->reps), tv(o->reps);
        for (int i = 0; i < o->warmup; i++) {
            run8(), runb();
            if (Ov) runv();
        }
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < o->reps; i++) { /* interleaved: the two (three) see the same clocks */
            if (Ov) {
                CK(cudaEventRecord(e0, 0));
                runv();
                CK(cudaEventRecord(e1, 0));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&tv[i], e0, e1));
            }
            CK(cudaEventRecord(e0, 0));
            run8();
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&t8[i], e0, e1));
            CK(cudaEventRecord(e0, 0));
            runb();
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&tb[i], e0, e1));
        }
        const double ms8 = median_ms(t8), msb = median_ms(tb);
        const double flops = 4.0 * s->B * s->H * (double)s->N_q * s->N_k * s->d * (s->causal ? 0.5 : 1);
        const double tf8 = flops / (ms8 * 1e-3) / 1e12, tfb = flops / (msb * 1e-3) / 1e12;
        const double by8 = 1.0 * nq + 2.0 * nk + 2.0 * nq + 4.0 * nl, byb = 2.0 * (nq + 2 * nk + nq) + 4.0 * nl;
        printf("v5_fp8  B %2d H %2d H_kv %2d N_q %5d N_k %5d d %3d causal %d fp8   %9.3f ms  %7.1f TFLOP/s  (v5 bf16 %9.3f ms "
               "%7.1f TFLOP/s)  fp8/bf16 %.3f  pre-pass %.3f ms  %s\n",
               s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d, s->causal, ms8, tf8, msb, tfb, tf8 / tfb, prep_ms, pass);
        double msv = NAN, tfv = NAN;
        if (Ov) {
            msv = median_ms(tv);
            tfv = flops / (msv * 1e-3) / 1e12;
            printf("v5_fp8  variant %d beside it: %9.3f ms  %7.1f TFLOP/s  fp8/bf16 %.3f  variant %d / variant %d %.3f\n", o->vs, msv,
                   tfv, tfv / tfb, o->variant, o->vs, tf8 / tfv);
        }
        fflush(stdout);
        if (csv) {
            fprintf(csv, "v5_fp8,%d,%d,%d,%d,%d,%d,%d,fp8_e4m3,%.5f,%.2f,%.1f,%.3e,%s\n", s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d,
                    s->causal, ms8, tf8, by8 / (ms8 * 1e-3) / 1e9, err8, pass);
            fprintf(csv, "v5,%d,%d,%d,%d,%d,%d,%d,bf16,%.5f,%.2f,%.1f,nan,skip\n", s->B, s->H, s->H_kv, s->N_q, s->N_k, s->d,
                    s->causal, msb, tfb, byb / (msb * 1e-3) / 1e9);
            if (Ov)
                fprintf(csv, "v5_fp8_vs,%d,%d,%d,%d,%d,%d,%d,fp8_e4m3,%.5f,%.2f,%.1f,nan,skip\n", s->B, s->H, s->H_kv, s->N_q, s->N_k,
                        s->d, s->causal, msv, tfv, by8 / (msv * 1e-3) / 1e9);
            fflush(csv);
        }
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    fa_v5_fp8_free(&fb);
    if (Ov) {
        fa_v5_fp8_free(&fbv);
        CK(cudaFree(Ov));
        CK(cudaFree(Lv));
    }
    CK(cudaFree(Qf));
    CK(cudaFree(Kf));
    CK(cudaFree(Vf));
    CK(cudaFree(Of));
    CK(cudaFree(L8));
    CK(cudaFree(Lb));
    CK(cudaFree(Qb));
    CK(cudaFree(Kb));
    CK(cudaFree(Vb));
    CK(cudaFree(O8));
    CK(cudaFree(Ob));
    return failures;
}
