/* bench.c -- CPU benchmarks for `make bench` (never run by `make test`).
 *  1. count-only: standard, flash1, flash2 at N = 1M, d = 128 on the H200 profile (median of 9)
 *  2. numeric: flash2 forward at N = 4096, d = 64, one head, beside standard on the same input,
 *     as GFLOP/s of counted FLOPs, with the ratio measured in the same run.
 *  3. count-only forward + backward of the three algorithms at N = 1M, d = 128.
 *  4. numeric backward (flash2, flash1, standard) at N = 4096, d = 64, one head.
 *  5. the time model (fa_perf_predict) of every kernel profile, forward + backward where the
 *     profile has both, at N = 1M, d = 128, causal and not (median of 9). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fa_analysis.h"
#include "fa_perf.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fa_hw hw, hw_b200;
    if (fa_hw_load("b200", NULL, &hw_b200)) {
        fprintf(stderr, "bench: %s\n", fa_last_error());
        return 1;
    }
    if (fa_hw_load("h200", NULL, &hw)) {
        fprintf(stderr, "bench: %s\n", fa_last_error());
        return 1;
    }
    /* 1. count-only at N = 1M */
    fa_shape s = fa_shape_default(1 << 20, 128);
    for (int causal = 0; causal < 2; causal++) {
        s.causal = causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        double t[9];
        for (int rep = 0; rep < 9; rep++) {
            double t0 = now();
            for (int a = 0; a < FA_NALGO; a++) {
                fa_blocks bk;
                fa_io_result r;
                if (fa_blocks_fit(&s, hw.sram_per_block, &bk) ||
                    fa_io_run(FA_PASS_FWD, (fa_algo)a, &s, bk, hw.sram_per_block, &hw, NULL, &r)) {
                    fprintf(stderr, "bench: %s\n", fa_last_error());
                    return 1;
                }
            }
            t[rep] = now() - t0;
        }
        qsort(t, 9, sizeof t[0], cmp);
        printf("count-only  all 3 algorithms  N=1048576 d=128 %-9s  median %8.3f ms  (min %.3f, max %.3f)\n",
               causal ? "causal" : "no mask", t[4] * 1e3, t[0] * 1e3, t[8] * 1e3);
    }
    /* 2. numeric at N = 4096, d = 64, one head */
    fa_shape n = fa_shape_default(4096, 64);
    int64_t nq = fa_numel_q(&n);
    double *Q = malloc(sizeof(double) * (size_t)nq), *K = malloc(sizeof(double) * (size_t)nq),
           *V = malloc(sizeof(double) * (size_t)nq), *O = malloc(sizeof(double) * (size_t)nq),
           *L = malloc(sizeof(double) * 4096);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (int64_t i = 0; i < nq; i++) {
        Q[i] = gsl_ran_gaussian(rng, 1);
        K[i] = gsl_ran_gaussian(rng, 1);
        V[i] = gsl_ran_gaussian(rng, 1);
    }
    fa_blocks bk;
    fa_blocks_fit(&n, hw.sram_per_block, &bk);
    double gf[2];
    const char *names[2] = {"flash2", "standard"};
    for (int k = 0; k < 2; k++) {
        double best = 1e30, flops = 0;
        for (int rep = 0; rep < 3; rep++) {
            fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, hw.sram_per_block);
            double t0 = now();
            fa_status st = k == 0 ? fa_flash2_forward(mem, &n, bk, Q, K, V, O, L)
                                  : fa_standard_forward(mem, &n, bk, Q, K, V, O);
            double dt = now() - t0;
            if (st) {
                fprintf(stderr, "bench: %s\n", fa_last_error());
                return 1;
            }
            const fa_counts *c = fa_mem_counts(mem);
            flops = (double)(c->flops_matmul + c->flops_other);
            fa_mem_free(mem);
            if (dt < best) best = dt;
        }
        gf[k] = flops / best / 1e9;
        printf("numeric     %-9s N=4096 d=64 one head, B_r=B_c=%lld  best of 3 %8.1f ms  %6.2f GFLOP/s\n",
               names[k], (long long)bk.block_r, best * 1e3, gf[k]);
    }
    printf("numeric     flash2 / standard GFLOP/s ratio (same run): %.2fx\n", gf[0] / gf[1]);

    /* 3. count-only forward + backward at N = 1M */
    s.causal = FA_CAUSAL_NONE;
    for (int causal = 0; causal < 2; causal++) {
        s.causal = causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        double t[5];
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            for (int a = 0; a < FA_NALGO; a++) {
                fa_blocks bkp;
                fa_io_result r;
                if (fa_blocks_fit_pass(FA_PASS_FWDBWD, &s, hw.sram_per_block, &bkp) ||
                    fa_io_run(FA_PASS_FWDBWD, (fa_algo)a, &s, bkp, hw.sram_per_block, &hw, NULL, &r)) {
                    fprintf(stderr, "bench: %s\n", fa_last_error());
                    return 1;
                }
            }
            t[rep] = now() - t0;
        }
        qsort(t, 5, sizeof t[0], cmp);
        printf("count-only  fwd+bwd, 3 algorithms N=1048576 d=128 %-9s  median %8.3f ms\n",
               causal ? "causal" : "no mask", t[2] * 1e3);
    }

    /* 4. numeric backward at N = 4096, d = 64, one head (forward outputs as inputs) */
    double *dO = malloc(sizeof(double) * (size_t)nq), *dQ = malloc(sizeof(double) * (size_t)nq),
           *dK = malloc(sizeof(double) * (size_t)nq), *dV = malloc(sizeof(double) * (size_t)nq),
           *P = malloc(sizeof(double) * 4096 * 4096), *l = malloc(sizeof(double) * 4096),
           *m = malloc(sizeof(double) * 4096);
    for (int64_t i = 0; i < nq; i++) dO[i] = gsl_ran_gaussian(rng, 1);
    fa_blocks bb;
    fa_blocks_fit_pass(FA_PASS_BWD, &n, hw.sram_per_block, &bb);
    fa_reference_probs(&n, Q, K, P);
    const char *bn[3] = {"flash2", "flash1", "standard"};
    double bgf[3];
    for (int k = 0; k < 3; k++) {
        fa_mem *fm = fa_mem_alloc(FA_MODE_NUMERIC, hw.sram_per_block);
        if (k == 0) fa_flash2_forward(fm, &n, bb, Q, K, V, O, L);
        else if (k == 1) fa_flash1_forward(fm, &n, bb, Q, K, V, O, l, m);
        fa_mem_free(fm);
        fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, hw.sram_per_block);
        double t0 = now();
        fa_status st = k == 0 ? fa_flash2_backward(mem, &n, bb, Q, K, V, O, L, dO, dQ, dK, dV)
                       : k == 1 ? fa_flash1_backward(mem, &n, bb, Q, K, V, O, l, m, dO, dQ, dK, dV)
                                : fa_standard_backward(mem, &n, bb, Q, K, V, P, dO, dQ, dK, dV);
        double dt = now() - t0;
        if (st) {
            fprintf(stderr, "bench: %s\n", fa_last_error());
            return 1;
        }
        const fa_counts *c = fa_mem_counts(mem);
        bgf[k] = (double)(c->flops_matmul + c->flops_other) / dt / 1e9;
        printf("numeric     %-9s backward N=4096 d=64 one head, B_r=B_c=%lld  %8.1f ms  %6.2f GFLOP/s\n", bn[k],
               (long long)bb.block_r, dt * 1e3, bgf[k]);
        fa_mem_free(mem);
    }
    printf("numeric     backward flash2 / standard GFLOP/s ratio (same run): %.2fx\n", bgf[0] / bgf[2]);
    /* 5. the time model of every profile at N = 1M */
    for (int causal = 0; causal < 2; causal++) {
        fa_shape ps = fa_shape_default(1 << 20, 128);
        ps.dtype = FA_DTYPE_BF16;
        ps.causal = causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        double t[9];
        int np = 0;
        for (int rep = 0; rep < 9; rep++) {
            double t0 = now();
            np = 0;
            for (int i = 0; i < fa_nprofiles; i++) {
                const fa_profile *p = &fa_profiles[i];
                if (p->mma == FA_MMA_NONE) continue;
                /* each kernel in an input format it is built for: the SIMT kernels (v1, v2) in fp32 */
                ps.dtype = p->mma == FA_MMA_SIMT ? FA_DTYPE_FP32 : FA_DTYPE_BF16;
                if (p->dtypes && !strstr(p->dtypes, "bf16")) { /* a kernel of one input format (v5_fp8: e4m3) */
                    char first[32];
                    snprintf(first, sizeof first, "%s", p->dtypes);
                    first[strcspn(first, " ")] = '\0';
                    if (fa_dtype_parse(first, &ps.dtype)) {
                        fprintf(stderr, "bench: %s: %s\n", p->key, fa_last_error());
                        return 1;
                    }
                }
                fa_blocks tb;
                const fa_tile_row *row;
                /* the H200, or the B200 for a Blackwell kernel (fa4): every profile is timed somewhere */
                const fa_hw *h = &hw;
                if (fa_profile_tiles(p, FA_PASS_FWD, hw.arch, &ps, &tb, &row) &&
                    fa_profile_tiles(p, FA_PASS_BWD, hw.arch, &ps, &tb, &row))
                    h = &hw_b200;
                fa_pass pass = fa_profile_tiles(p, FA_PASS_BWD, h->arch, &ps, &tb, &row) ? FA_PASS_FWD : FA_PASS_FWDBWD;
                if (pass == FA_PASS_FWDBWD && fa_profile_tiles(p, FA_PASS_FWD, h->arch, &ps, &tb, &row)) pass = FA_PASS_BWD;
                fa_perf_result pr;
                if (fa_perf_predict(p, pass, &ps, h, NULL, &pr)) {
                    fprintf(stderr, "bench: %s: %s\n", p->key, fa_last_error());
                    return 1;
                }
                np++;
            }
            t[rep] = now() - t0;
        }
        qsort(t, 9, sizeof t[0], cmp);
        printf("time model  %d kernel profiles (H200; fa4 on the B200) N=1048576 d=128 %-9s  median %8.3f ms  (min %.3f, max %.3f)\n", np,
               causal ? "causal" : "no mask", t[4] * 1e3, t[0] * 1e3, t[8] * 1e3);
    }
    free(dO);
    free(dQ);
    free(dK);
    free(dV);
    free(P);
    free(l);
    free(m);
    gsl_rng_free(rng);
    free(Q);
    free(K);
    free(V);
    free(O);
    free(L);
    return 0;
}
