/* fabench_fp8.h -- fabench --fp8 (kernels/fabench_fp8.cu): the v5 FP8 forward beside the bf16 v5,
 * its accuracy against the fp64 oracle and fasim's fp8 emulation. */
#ifndef FABENCH_FP8_H
#define FABENCH_FP8_H
#include <stdio.h>

#include "fa_kernels.h"

/* fabench's CUDA check (fabench.cu, fabench_fp8.cu): a failed call prints its name, file and line,
 * and exits 1 */
#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "fabench: CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_),    \
                    __FILE__, __LINE__, cudaGetErrorString(e_));                              \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

typedef struct {
    int outliers;   /* 0: N(0,1) inputs; 1: N(0,1) + N(0,100) Bernoulli(0.001) */
    int per_block;  /* 1: a scale per 128-row block; 0: one per tensor */
    int hadamard;   /* incoherent processing of Q and K */
    unsigned long long hadamard_seed;
    int variant;    /* fa_v5_fp8_forward's variant */
    int same_as;    /* >= 0: O and LSE are compared bit for bit with this variant's (a difference is a failure) */
    int vs;         /* >= 0: this variant timed too, its launches interleaved with the other two (its own inputs) */
    int validate, time, warmup, reps;
} fabench_fp8_opts;

/* One shape: validation (when o->validate; the fp64 oracle runs on the host, so keep it small)
 * and timing (o->time).  Rows to csv (fabench's columns) and err_csv (accuracy), either may be
 * NULL.  Returns the number of failed validations; exits 2 on a shape v5_fp8 cannot run. */
int fabench_fp8_case(const fa_gpu_shape *s, const fabench_fp8_opts *o, unsigned long long seed, FILE *csv, FILE *err_csv);

#endif
