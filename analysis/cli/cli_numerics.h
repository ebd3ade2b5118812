/* cli_numerics.h -- `fasim check` in low precision (--dtype), on an external kernel's tensors
 * (--q --k --v --out ...), and the error studies (--study DIR): their options and output in
 * analysis/cli/cmd_numerics.c, the checks in analysis/check.c (fa_check.h). */
#ifndef FA_CLI_NUMERICS_H
#define FA_CLI_NUMERICS_H

#include <stdint.h>

#include "cli.h"

typedef struct {
    const char *q, *k, *v, *out, *lse, *dout, *dq, *dk, *dv; /* external tensors (.npy) */
    int bnhd;             /* --layout bnhd: files are (B, N, H, d); default (B, H, N, d) */
    int bf16;             /* --bf16: 16-bit integer .npy data holds bfloat16 bits */
    int exp2;             /* --exp2: log2(e) folded into the scale, exp2 in the softmax */
    int acc64;            /* --acc fp64: accumulate in fp64 instead of fp32 */
    int acc_given;        /* --acc on the command line (it needs --dtype) */
    int bwd;              /* --pass bwd: check the gradients too */
    const char *study;    /* --study DIR: error-study CSVs and plots */
    const char *save_npy; /* --save-npy DIR: write a sample problem as .npy files */
    int no_plots;         /* --no-plots (with --study) */
    int dtype_given;      /* --dtype on the command line: emulate that precision */
    int layout_given;     /* --layout bhnd|bnhd on the command line */
    int outliers;         /* --inputs outliers: N(0,1) + N(0,100) Bernoulli(0.001) entries */
    int inputs_given;     /* --inputs on the command line */
    int fp8_block;        /* --fp8-quant block: one scale per tile-sized block */
    int fp8_quant_given;  /* --fp8-quant on the command line */
    int hadamard;         /* --hadamard: incoherent processing of Q and K */
    uint64_t hadamard_seed;   /* --hadamard-seed S (default 0) */
    int hadamard_seed_given;  /* --hadamard-seed on the command line */
} num_opts;

/* The option table's parser of check's own options (ids O_C_*: the tensors, --layout, --bf16,
 * --pass, --exp2, --acc, --study, --no-plots, --save-npy, --inputs, --fp8-quant, --hadamard,
 * --hadamard-seed) into the num_opts at ctx.  Returns 0 or
 * EXIT_USAGE (message printed). */
int cli_numerics_take(void *ctx, cli_opts *o, int id, const char *name, const char *val);

/* 1 when the options ask for a low-precision, external, study or save run. */
int cli_numerics_wanted(const num_opts *no);

/* 1 when the options name an external kernel's tensors (--q --k --v --out --lse --dout ...). */
int cli_numerics_external(const num_opts *no);

/* fasim check on fasim's algorithms: the fp64 check (no NULL) or, with no, the emulated --dtype
 * (fa_check_suite: the built-in suite without shape options), its rows printed in o->format.
 * Exit status 0, 1 (a row failed) or 2 (bad usage or input). */
int cli_check_suite(const cli_opts *o, const num_opts *no);

/* Runs it on the parsed options o.  Exit status 0, 1 (a check failed) or 2 (bad usage or
 * input). */
int cmd_check_numerics(cli_opts *o, const num_opts *no);

#endif
