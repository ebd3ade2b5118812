/* io.c -- count-only runs of an algorithm (forward, backward, a pass, the L2 replay, the
 * inference kernels) with their closed form, bound and roofline time.  It calls the closed forms
 * of formula.c, formula_bwd.c and formula_decode.c; they never call this file. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_analysis.h"
#include "fa_l2.h"
#include "fa_numerics.h"

void fa_io_times(fa_io_result *r, const fa_shape *s, const fa_hw *hw)
{
    r->time_compute_s = r->time_memory_s = r->time_s = 0;
    if (!hw) return;
    double mm_peak = s->dtype == FA_DTYPE_FP32 ? hw->peak_fp32 : hw->peak_fp16;
    r->time_compute_s = (double)r->counts.flops_matmul / mm_peak +
                        (double)r->counts.flops_other / hw->peak_fp32;
    r->time_memory_s = (double)fa_counts_hbm_bytes(&r->counts) / hw->hbm_bandwidth;
    r->time_s = r->time_compute_s > r->time_memory_s ? r->time_compute_s : r->time_memory_s;
}

typedef struct {
    fa_pass p;
    fa_algo a;
    fa_blocks bk;
    int64_t splits;
    uint64_t M;
} run_ctx;

/* The count-only run of shape t keeps its counts within 64 bits (fa_ovf_limit's test). */
static int run_fits(const fa_shape *t, const void *ctx)
{
    const run_ctx *c = ctx;
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, (size_t)c->M);
    if (!mem) return 1;
    fa_status st = fa_run_pass_split(c->p, c->a, mem, t, c->bk, c->splits);
    fa_mem_free(mem);
    fa_clear_error();
    return st != FA_EOVERFLOW;
}

/* A count-only run that overflowed (the closed form fit: its FLOPs beyond the matmuls, the
 * softmax's) told with the shape and, as the closed form's messages do, the largest N (or B) that
 * fits (fa_ovf_limit, which runs the count again at smaller sizes).  Under a mask a flash1 or
 * flash2 count takes time with every row block, so the search is left out there and the message
 * says what to reduce. */
static fa_status run_overflow(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M)
{
    char w[400], lim[320] = "";
    snprintf(w, sizeof w, "%s", fa_last_error());
    if (a == FA_ALGO_STANDARD || !fa_has_mask(s)) {
        const run_ctx c = {p, a, bk, splits, M};
        fa_ovf_limit(s, run_fits, &c, lim, sizeof lim);
    }
    FA_FAIL(FA_EOVERFLOW, "%s %s's count: %s for " FA_OVF_DIMS "%s", fa_algo_name(a), fa_pass_name(p), w,
            FA_OVF_ARGS(s), lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

fa_status fa_run_forward(fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                         const double *K, const double *V, double *O, double *LSE)
{
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    const int64_t ns = numeric ? fa_numel_stats(s) : 0;
    switch (a) {
    case FA_ALGO_STANDARD: {
        fa_status st = fa_standard_forward(mem, s, bk, Q, K, V, O);
        for (int64_t i = 0; LSE && i < ns; i++) LSE[i] = NAN; /* standard stores no statistic */
        return st;
    }
    case FA_ALGO_FLASH1: {
        double *l = NULL, *m = NULL;
        if (numeric && (!(l = malloc((size_t)ns * sizeof *l)) || !(m = malloc((size_t)ns * sizeof *m)))) {
            free(l);
            FA_FAIL(FA_ENOMEM, "out of host memory for l and m");
        }
        fa_status st = fa_flash1_forward(mem, s, bk, Q, K, V, O, l, m);
        for (int64_t i = 0; !st && LSE && i < ns; i++) LSE[i] = fa_num_lse(mem, m[i], l[i]);
        free(l);
        free(m);
        return st;
    }
    case FA_ALGO_FLASH2: {
        double *L = LSE;
        if (numeric && !L && !(L = malloc((size_t)ns * sizeof *L))) FA_FAIL(FA_ENOMEM, "out of host memory for LSE");
        fa_status st = fa_flash2_forward(mem, s, bk, Q, K, V, O, L);
        if (L != LSE) free(L);
        return st;
    }
    default: FA_FAIL(FA_EINVAL, "unknown algorithm %d", (int)a);
    }
}

fa_status fa_bwd_run(fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk)
{
    switch (a) {
    case FA_ALGO_STANDARD:
        return fa_standard_backward(mem, s, bk, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    case FA_ALGO_FLASH1:
        return fa_flash1_backward(mem, s, bk, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL);
    case FA_ALGO_FLASH2:
        return fa_flash2_backward(mem, s, bk, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL);
    default: FA_FAIL(FA_EINVAL, "unknown algorithm %d", (int)a);
    }
}

fa_status fa_run_pass(fa_pass p, fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk)
{
    return fa_run_pass_split(p, a, mem, s, bk, 1);
}

fa_status fa_run_pass_split(fa_pass p, fa_algo a, fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t splits)
{
    if (splits < 1 || (splits > 1 && a != FA_ALGO_FLASH2))
        FA_FAIL(FA_EINVAL, "split-KV S = %lld: give S >= 1, and S > 1 only for flash2 (FlashAttention-2's split kernel)",
                (long long)splits);
    fa_status st = FA_OK;
    if (p != FA_PASS_BWD)
        st = splits > 1 ? fa_flash2_forward_split(mem, s, bk, splits, NULL, NULL, NULL, NULL, NULL)
                        : fa_run_forward(a, mem, s, bk, NULL, NULL, NULL, NULL, NULL);
    if (!st && p == FA_PASS_FWDBWD) fa_mem_kernel_barrier(mem); /* backward after forward */
    if (!st && p != FA_PASS_FWD) st = fa_bwd_run(a, mem, s, bk);
    return st;
}

/* The replay's cap on the tile transfers it records. */
#define FA_L2_TRANSFERS ((uint64_t)1 << 26)

typedef run_ctx l2_ctx;

/* The tile transfers (loads + stores of every tensor) of the count-only run of t, merged: cheap. */
static fa_status l2_transfers(const l2_ctx *c, const fa_shape *t, uint64_t *n)
{
    fa_mem *cm = fa_mem_alloc(FA_MODE_COUNT, (size_t)c->M);
    if (!cm) return FA_ENOMEM;
    fa_status st = fa_run_pass_split(c->p, c->a, cm, t, c->bk, c->splits);
    const fa_counts *k = fa_mem_counts(cm);
    *n = 0;
    for (int i = 0; st == FA_OK && i < k->n_tensors; i++) *n += k->tensor[i].loads + k->tensor[i].stores;
    fa_mem_free(cm);
    return st;
}

/* t's transfers are within the replay's cap (fa_ovf_limit's test for the --l2 message). */
static int l2_fits(const fa_shape *t, const void *ctx)
{
    uint64_t n;
    fa_status st = l2_transfers(ctx, t, &n);
    fa_clear_error();
    return st == FA_OK && n <= FA_L2_TRANSFERS;
}

fa_status fa_io_l2(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M,
                   const fa_hw *hw, int blocks_per_sm, fa_io_result *r)
{
    if (blocks_per_sm < 0 || blocks_per_sm > 32)
        FA_FAIL(FA_EINVAL, "blocks per SM %d: give 1 to 32 (0 = estimate from the SRAM need)", blocks_per_sm);
    uint64_t need = fa_sram_need_pass(p, a, s, bk);
    uint64_t per_sm = need ? hw->sram_per_sm / need : 1;
    if (per_sm < 1) per_sm = 1;
    if (per_sm > 32) per_sm = 32;
    if (blocks_per_sm > 0) per_sm = (uint64_t)blocks_per_sm;
    int slots = hw->sms * (int)per_sm;
    /* The replay records every transfer: count them first (count-only, merged: cheap) and
     * refuse at once when there are too many. */
    const uint64_t limit = FA_L2_TRANSFERS;
    const l2_ctx lc = {p, a, bk, splits, M};
    uint64_t n = 0;
    fa_status st0 = l2_transfers(&lc, s, &n);
    if (st0 == FA_EOVERFLOW) return run_overflow(p, a, s, bk, splits, M);
    if (st0) return st0;
    if (n > limit) {
        char lim[320];
        fa_ovf_limit(s, l2_fits, &lc, lim, sizeof lim);
        FA_FAIL(FA_EINVAL, "--l2 replays every tile transfer: %s %s has %llu tile transfers, over the limit of %llu "
                "tile transfers for " FA_OVF_DIMS "%s", fa_algo_name(a), fa_pass_name(p), (unsigned long long)n,
                (unsigned long long)limit, FA_OVF_ARGS(s),
                lim[0] ? lim : " (use a smaller shape: fewer heads, a shorter N or larger tiles)");
    }
    fa_l2 *l2 = fa_l2_alloc(hw->l2_bytes, FA_HW_L2_LINE, FA_HW_L2_WAYS, slots, limit);
    if (!l2) /* the profile's l2_bytes was checked at load (sim/hw.c): only memory is left */
        FA_FAIL(FA_ENOMEM, "--l2: out of host memory for an L2 of %llu bytes and %llu transfers",
                (unsigned long long)hw->l2_bytes, (unsigned long long)limit);
    fa_status stp = fa_l2_set_partitions(l2, hw->l2_partitions > 1 ? hw->l2_partitions : 1);
    if (stp) {
        fa_l2_free(l2);
        return stp;
    }
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, (size_t)M);
    if (!mem) {
        fa_l2_free(l2);
        return FA_ENOMEM;
    }
    fa_mem_set_sink(mem, fa_l2_sink, l2);
    fa_status st = fa_run_pass_split(p, a, mem, s, bk, splits);
    fa_l2_result lr;
    if (st == FA_OK) st = fa_l2_run(l2, &lr);
    fa_mem_free(mem);
    fa_l2_free(l2);
    if (st) return st;
    r->has_l2 = 1;
    r->dram_read_bytes = lr.dram_read_bytes;
    r->dram_write_bytes = lr.dram_write_bytes;
    r->l2_slots = lr.slots;
    r->l2_max_grid = lr.max_grid;
    r->l2_partitions = hw->l2_partitions > 1 ? hw->l2_partitions : 1;
    return FA_OK;
}

fa_status fa_io_run(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, uint64_t M,
                    const fa_hw *hw, FILE *trace, fa_io_result *r)
{
    return fa_io_run_regs(p, a, s, bk, 1, M, hw, NULL, 0, trace, r);
}

fa_status fa_io_run_regs(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M,
                         const fa_hw *hw, const char *regs, size_t reg_capacity, FILE *trace,
                         fa_io_result *r)
{
    memset(r, 0, sizeof *r);
    r->pass = p;
    r->algo = a;
    r->blocks = bk;
    r->sram_bytes = M;
    r->splits = p == FA_PASS_BWD ? 1 : (int)splits;
    FA_TRY(fa_formula_pass_bytes(p, a, s, bk, p == FA_PASS_BWD ? 1 : splits, &r->formula));
    FA_TRY(fa_hbm_footprint(a, s, &r->footprint));
    if (p != FA_PASS_BWD) FA_TRY(fa_footprint_split(&r->footprint, s, splits));
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, (size_t)M);
    if (!mem) return FA_ENOMEM;
    if (trace) fa_mem_set_trace(mem, trace);
    fa_status st = fa_mem_set_registers(mem, regs, reg_capacity);
    if (st == FA_OK) st = fa_run_pass_split(p, a, mem, s, bk, splits);
    if (st == FA_OK) r->counts = *fa_mem_counts(mem);
    fa_mem_free(mem);
    if (st == FA_EOVERFLOW) return run_overflow(p, a, s, bk, splits, M);
    if (st) return st;
    r->sram_need = fa_sram_need_pass(p, a, s, bk);
    r->bound_bytes = fa_bound_pass_bytes(p, a, s, M);
    double f = 2.0 * (double)s->batch * (double)s->heads * (double)s->seqlen_q *
               (double)s->seqlen_k * (double)(s->d + s->d_v);
    if (s->causal != FA_CAUSAL_NONE) f /= 2;
    r->nominal_flops = f * (p == FA_PASS_FWD ? 1.0 : p == FA_PASS_BWD ? 2.5 : 3.5);
    uint64_t bytes = fa_counts_hbm_bytes(&r->counts);
    r->intensity = bytes ? (double)(r->counts.flops_matmul + r->counts.flops_other) / (double)bytes : 0;
    fa_io_times(r, s, hw);
    return FA_OK;
}

void fa_io_result_add(fa_io_result *a, const fa_io_result *b)
{
    fa_counts *c = &a->counts;
    c->hbm_read_bytes += b->counts.hbm_read_bytes;
    c->hbm_write_bytes += b->counts.hbm_write_bytes;
    c->flops_matmul += b->counts.flops_matmul;
    c->flops_other += b->counts.flops_other;
    c->rescale_steps += b->counts.rescale_steps;
    c->rescales += b->counts.rescales;
    c->rescale_blocks += b->counts.rescale_blocks;
    if (b->counts.rescale_max > c->rescale_max) c->rescale_max = b->counts.rescale_max;
    if (b->counts.sram_peak_bytes > c->sram_peak_bytes) c->sram_peak_bytes = b->counts.sram_peak_bytes;
    if (b->counts.reg_peak_bytes > c->reg_peak_bytes) c->reg_peak_bytes = b->counts.reg_peak_bytes;
    for (int t = 0; t < b->counts.n_tensors; t++) {
        const fa_tensor_count *x = &b->counts.tensor[t];
        int id = fa_counts_find(c, x->name);
        if (id < 0 && c->n_tensors < FA_MAX_TENSORS) {
            id = c->n_tensors++;
            memset(&c->tensor[id], 0, sizeof c->tensor[id]);
            snprintf(c->tensor[id].name, FA_NAME_LEN, "%s", x->name);
        }
        if (id < 0) continue;
        c->tensor[id].read_bytes += x->read_bytes;
        c->tensor[id].write_bytes += x->write_bytes;
        c->tensor[id].loads += x->loads;
        c->tensor[id].stores += x->stores;
    }
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        a->formula.read[t] += b->formula.read[t];
        a->formula.write[t] += b->formula.write[t];
    }
    a->formula.read_bytes += b->formula.read_bytes;
    a->formula.write_bytes += b->formula.write_bytes;
    a->formula.matmul_flops += b->formula.matmul_flops;
    a->nominal_flops += b->nominal_flops;
    a->bound_bytes += b->bound_bytes;
    if (b->sram_need > a->sram_need) a->sram_need = b->sram_need;
    uint64_t bytes = fa_counts_hbm_bytes(c);
    a->intensity = bytes ? (double)(c->flops_matmul + c->flops_other) / (double)bytes : 0;
}

fa_status fa_infer_io_run(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                          const fa_varlen *vl, uint64_t M, const fa_hw *hw, fa_infer_result *r)
{
    memset(r, 0, sizeof *r);
    r->opt = *opt;
    r->blocks = bk;
    r->sram_bytes = M;
    FA_TRY(fa_infer_formula_bytes(s, bk, opt, vl, hw, &r->formula));
    fa_mem *mem = fa_mem_alloc(FA_MODE_COUNT, (size_t)M);
    if (!mem) return FA_ENOMEM;
    fa_status st;
    if (vl) st = fa_varlen_forward(mem, s, bk, opt, vl, NULL, NULL, NULL, NULL, NULL);
    else if (opt->page_size > 0)
        st = fa_paged_forward(mem, s, bk, opt, NULL, 0, NULL, NULL, NULL, NULL, NULL);
    else st = fa_decode_forward(mem, s, bk, opt, NULL, NULL, NULL, NULL, NULL);
    if (st == FA_OK) r->counts = *fa_mem_counts(mem);
    fa_mem_free(mem);
    if (st) return st;
    uint64_t bytes = fa_counts_hbm_bytes(&r->counts);
    r->intensity = bytes ? (double)(r->counts.flops_matmul + r->counts.flops_other) / (double)bytes : 0;
    fa_infer_times(r, s, hw);
    return FA_OK;
}

