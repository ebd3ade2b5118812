/* testutil.h -- helpers shared by the cmocka suites: GSL random inputs, algorithm runners. */
#ifndef FA_TESTUTIL_H
#define FA_TESTUTIL_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>

#include "fa_analysis.h"

/* Inputs and outputs of one problem in numeric mode. */
typedef struct {
    fa_shape s;
    double *Q, *K, *V;        /* random inputs, N(0, 1) scaled by 1.7 ("high entropy") */
    double *O_ref, *LSE_ref;  /* fp64 reference */
} problem;

/* One test shape with its tile sizes (fp16, default scale): the odd-shape tables of
 * test_cpu_ref.c and test_backward.c. */
typedef struct {
    int64_t B, H, Hkv, Nq, Nk, d, dv, Br, Bc;
    fa_causal causal;
} cfg;

static inline fa_shape shape_of(const cfg *c)
{
    fa_shape s = {.batch = c->B, .heads = c->H, .kv_heads = c->Hkv, .seqlen_q = c->Nq,
                  .seqlen_k = c->Nk, .d = c->d, .d_v = c->dv, .scale = 0, .causal = c->causal,
                  .dtype = FA_DTYPE_FP16};
    return s;
}

static inline double *tu_alloc(int64_t n)
{
    double *p = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    assert_non_null(p);
    return p;
}

static inline void tu_fill(gsl_rng *r, double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) x[i] = 1.7 * gsl_ran_gaussian(r, 1.0);
}

static inline void problem_init(problem *p, const fa_shape *s, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    p->s = *s;
    p->Q = tu_alloc(fa_numel_q(s));
    p->K = tu_alloc(fa_numel_k(s));
    p->V = tu_alloc(fa_numel_v(s));
    tu_fill(r, p->Q, fa_numel_q(s));
    tu_fill(r, p->K, fa_numel_k(s));
    tu_fill(r, p->V, fa_numel_v(s));
    p->O_ref = tu_alloc(fa_numel_o(s));
    p->LSE_ref = tu_alloc(fa_numel_stats(s));
    assert_int_equal(fa_reference_forward(s, p->Q, p->K, p->V, p->O_ref, p->LSE_ref), FA_OK);
    gsl_rng_free(r);
}

static inline void problem_free(problem *p)
{
    free(p->Q);
    free(p->K);
    free(p->V);
    free(p->O_ref);
    free(p->LSE_ref);
}

/* max |a - b| / max(1, |b|) elementwise; infinities must match exactly; NaN fails. */
static inline double tu_max_rel(const double *a, const double *b, int64_t n)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i])) return INFINITY;
        if (isinf(a[i]) || isinf(b[i])) {
            if (a[i] != b[i]) return INFINITY;
            continue;
        }
        double e = fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i]));
        if (e > worst) worst = e;
    }
    return worst;
}

/* Runs algorithm a in numeric mode (fa_run_forward); fills O, LSE (NaN for standard) and the counts. */
static inline fa_status tu_run_numeric(fa_algo a, const problem *p, fa_blocks bk, uint64_t M,
                                       double *O, double *LSE, fa_counts *counts)
{
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M);
    assert_non_null(mem);
    fa_status st = fa_run_forward(a, mem, &p->s, bk, p->Q, p->K, p->V, O, LSE);
    if (counts) *counts = *fa_mem_counts(mem);
    fa_mem_free(mem);
    return st;
}

/* Runs pass p of algorithm a in count-only mode (merge: allow run merging). */
static inline fa_status tu_run_pass_count(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk,
                                          uint64_t M, int merge, fa_counts *counts)
{
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, M);
    assert_non_null(mem);
    fa_mem_set_merge(mem, merge);
    fa_status st = fa_run_pass(p, a, mem, s, bk);
    if (counts) *counts = *fa_mem_counts(mem);
    fa_mem_free(mem);
    return st;
}

/* The forward of tu_run_pass_count. */
static inline fa_status tu_run_count(fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M,
                                     int merge, fa_counts *counts)
{
    return tu_run_pass_count(FA_PASS_FWD, a, s, bk, M, merge, counts);
}

/* Counts pass p of algorithm a (count-only, merged runs, M = 1 GiB) and asserts that every
 * counted tensor has a closed-form name and that bytes per tensor, the totals, the matmul FLOPs
 * and the SRAM peak equal the closed forms of analysis/.  The counts go to *out if non-NULL. */
static inline void tu_assert_counts_match_formula(fa_pass p, fa_algo a, const fa_shape *s,
                                                  fa_blocks bk, fa_counts *out)
{
    fa_io_result r;
    if (fa_io_run(p, a, s, bk, 1u << 30, NULL, NULL, &r)) fail_msg("%s", fa_last_error());
    const fa_counts *c = &r.counts;
    for (int i = 0; i < c->n_tensors; i++) {
        int found = 0;
        for (int t = 0; t < FA_PASS_TENSORS; t++) found |= strcmp(c->tensor[i].name, fa_pass_tensor_names[t]) == 0;
        if (!found) fail_msg("tensor %s is not in fa_pass_tensor_names", c->tensor[i].name);
    }
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        int id = fa_counts_find(c, fa_pass_tensor_names[t]);
        uint64_t rd = id < 0 ? 0 : c->tensor[id].read_bytes, wr = id < 0 ? 0 : c->tensor[id].write_bytes;
        if (rd != r.formula.read[t] || wr != r.formula.write[t])
            fail_msg("%s %s B=%lld H=%lld Hkv=%lld Nq=%lld Nk=%lld d=%lld dv=%lld Br=%lld Bc=%lld causal=%d "
                     "tensor %s: counted r=%llu w=%llu, formula r=%llu w=%llu",
                     fa_algo_name(a), fa_pass_name(p), (long long)s->batch, (long long)s->heads,
                     (long long)s->kv_heads, (long long)s->seqlen_q, (long long)s->seqlen_k, (long long)s->d,
                     (long long)s->d_v, (long long)bk.block_r, (long long)bk.block_c, (int)s->causal,
                     fa_pass_tensor_names[t], (unsigned long long)rd, (unsigned long long)wr,
                     (unsigned long long)r.formula.read[t], (unsigned long long)r.formula.write[t]);
    }
    assert_int_equal(c->hbm_read_bytes, r.formula.read_bytes);
    assert_int_equal(c->hbm_write_bytes, r.formula.write_bytes);
    assert_int_equal(c->flops_matmul, r.formula.matmul_flops);
    assert_int_equal(c->sram_peak_bytes, r.sram_need);
    if (out) *out = *c;
}

/* Asserts two count records are identical, tensor by tensor. */
static inline void tu_assert_counts_equal(const fa_counts *a, const fa_counts *b)
{
    assert_int_equal(a->hbm_read_bytes, b->hbm_read_bytes);
    assert_int_equal(a->hbm_write_bytes, b->hbm_write_bytes);
    assert_int_equal(a->flops_matmul, b->flops_matmul);
    assert_int_equal(a->flops_other, b->flops_other);
    assert_int_equal(a->sram_peak_bytes, b->sram_peak_bytes);
    assert_int_equal(a->n_tensors, b->n_tensors);
    for (int i = 0; i < a->n_tensors; i++) {
        assert_string_equal(a->tensor[i].name, b->tensor[i].name);
        assert_int_equal(a->tensor[i].read_bytes, b->tensor[i].read_bytes);
        assert_int_equal(a->tensor[i].write_bytes, b->tensor[i].write_bytes);
        assert_int_equal(a->tensor[i].loads, b->tensor[i].loads);
        assert_int_equal(a->tensor[i].stores, b->tensor[i].stores);
    }
}

#endif
