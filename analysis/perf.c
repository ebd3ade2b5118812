/* perf.c -- placement, occupancy and the time model of the GPU's pipes (fa_perf.h).
 *
 * Every term is derived in docs/time-model.md; the kernel profiles are in profiles.c. */
#include "fa_perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fa_pipe_name(fa_pipe p)
{
    static const char *const n[FA_NPIPE] = {"tensor", "smem", "exp", "fp32", "L2", "DRAM"};
    return (unsigned)p < FA_NPIPE ? n[p] : "?";
}

/* ---- occupancy ---- */

fa_status fa_occupancy_compute(const fa_hw *hw, fa_occupancy *o)
{
    if (!hw->regs_per_sm || !hw->threads_per_sm || !hw->blocks_per_sm || !hw->regs_per_thread)
        FA_FAIL(FA_EINVAL, "hardware profile %s has no regs_per_sm, regs_per_thread, threads_per_sm or "
                "blocks_per_sm: occupancy needs them (docs/conventions.md, hardware profiles)", hw->key);
    const uint64_t reserved = 1024; /* shared memory the driver reserves per block (sm_80, sm_90) */
    int warps = (o->threads + 31) / 32, pw = o->producer_warps;
    /* registers are allocated per warp in units of 256 (8 per thread) */
    uint64_t regs_block = (uint64_t)(warps - pw) * (uint64_t)(((o->regs_per_thread * 32 + 255) / 256) * 256) +
                          (uint64_t)pw * (uint64_t)(((o->producer_regs * 32 + 255) / 256) * 256);
    if (regs_block > (uint64_t)hw->regs_per_sm)
        FA_FAIL(FA_EINVAL, "a thread block of %d threads x %d registers needs %llu registers, over the %d of an SM",
                o->threads, o->regs_per_thread, (unsigned long long)regs_block, hw->regs_per_sm);
    if (o->smem_bytes > hw->sram_per_block)
        FA_FAIL(FA_ENOSRAM, "a thread block needs %llu B of shared memory, over the %llu B a block may use on %s",
                (unsigned long long)o->smem_bytes, (unsigned long long)hw->sram_per_block, hw->name);
    if (o->threads > hw->threads_per_sm)
        FA_FAIL(FA_EINVAL, "a thread block of %d threads exceeds the %d threads of an SM", o->threads, hw->threads_per_sm);
    int by_regs = regs_block ? (int)((uint64_t)hw->regs_per_sm / regs_block) : hw->blocks_per_sm;
    int by_smem = (int)(hw->sram_per_sm / (o->smem_bytes + reserved));
    int by_threads = hw->threads_per_sm / o->threads;
    int occ = hw->blocks_per_sm;
    if (by_threads < occ) occ = by_threads;
    if (by_smem < occ) occ = by_smem;
    if (by_regs < occ) occ = by_regs;
    /* what limits it: each resource that allows no more than occ (a tie names each: cutting one alone
     * gains no block), else the blocks-per-SM limit */
    static const char *const limit[8] = {"blocks", "threads", "shared memory", "shared memory, threads", "registers",
                                         "registers, threads", "registers, shared memory",
                                         "registers, shared memory, threads"};
    o->limit = limit[4 * (by_regs == occ) + 2 * (by_smem == occ) + (by_threads == occ)];
    if (occ < 1) occ = 1;
    o->occupancy = occ;
    return FA_OK;
}

/* ---- per-tile work ---- */

/* fp32 ALU issue slots (at the FFMA rate) per score beside the exp (docs/time-model.md, "fp32"):
 * forward: the row max (FMNMX, at half the FFMA rate: 2 slots, ubench_pipes.cu fmax_f32), the
 * FFMA of the exp argument (scale and max folded), the row-sum add, half a paired bf16
 * conversion; backward: the FFMA of the exp argument, dP - D, P o (dP - D), two half
 * conversions (P and dS). */
#define ALU_PER_SCORE_FWD 4.5
#define ALU_PER_SCORE_BWD 4.0

typedef struct {
    double mm;    /* tensor FLOPs */
    double exps;  /* exponentials */
    double alu;   /* fp32 operations (one lane-instruction = 1) */
    double smem;  /* shared-memory bytes read by the GEMMs and written for P/dS copies */
} tile_work;

static tile_work tile_work_of(const fa_profile *p, int bwd, const fa_shape *s, fa_blocks bk)
{
    const double Br = (double)bk.block_r, Bc = (double)bk.block_c, d = (double)s->d, dv = (double)s->d_v;
    const double e = fa_dtype_bytes(s->dtype);
    tile_work w = {0, 0, 0, 0};
    w.exps = Br * Bc;
    if (!bwd) {
        /* a fraction f of the exponentials on the FMA pipe (FA_PERF_POLY_EXP_OPS slots each), the
         * rest on the exp unit; the O_i rescale by exp(m_old - m_new), B_r d_v FMULs, on the
         * (1 - skip) of the tiles that still rescale */
        const double f = fa_profile_exp_poly_frac(p, s->d), skip = p->rescale_skip;
        const double poly = p->exp_poly_ops > 0 ? p->exp_poly_ops : FA_PERF_POLY_EXP_OPS;
        w.mm = 2 * Br * Bc * (d + dv);
        w.exps = Br * Bc * (1 - f);
        w.alu = Br * Bc * (ALU_PER_SCORE_FWD + f * poly) + Br * dv * (1 - skip);
        const fa_operand_reads *r = &p->reads_fwd;
        w.smem = e * (r->a[0] * Br * d + r->b[0] * Bc * d + r->a[1] * Br * Bc + r->b[1] * Bc * dv);
    } else {
        w.mm = 2 * Br * Bc * (3 * d + 2 * dv);
        w.alu = Br * Bc * ALU_PER_SCORE_BWD;
        const fa_operand_reads *r = &p->reads_bwd;
        const double A[FA_PERF_GEMMS] = {Br * d, Br * dv, Bc * Br, Bc * Br, Br * Bc};  /* Q, dO, P^T, dS^T, dS */
        const double Bm[FA_PERF_GEMMS] = {Bc * d, Bc * dv, Br * dv, Br * d, Bc * d};  /* K, V, dO, Q, K */
        for (int g = 0; g < FA_PERF_GEMMS; g++) w.smem += e * (r->a[g] * A[g] + r->b[g] * Bm[g]);
        if (p->smem_copies_bwd) w.smem += 2 * e * Br * Bc; /* P and dS written for the transposed GEMMs */
        if (p->ds_smem_bwd) w.smem += e * Br * Bc;          /* dS alone (P stays in registers) */
        if (p->dq_smem_bwd) w.smem += 4 * Br * d;           /* dQ_i's fp32 tile for the reduce-add */
    }
    if (p->mma == FA_MMA_SIMT) { /* fp32 SIMT GEMMs: per k step a thread reads t + t operands for t x t FMAs */
        double t = p->simt_tile > 0 ? p->simt_tile : 1;
        w.smem = w.mm / 2 * 4.0 * 2.0 / t;
    }
    return w;
}

/* 1 when dtype t's name is a word of the space-separated list (fa_profile.dtypes). */
static int dtype_listed(const char *list, fa_dtype t)
{
    const char *name = fa_dtype_name(t);
    const size_t n = strlen(name);
    for (const char *w = list; *w;) {
        w += strspn(w, " ");
        const size_t l = strcspn(w, " ");
        if (l == n && !strncmp(w, name, n)) return 1;
        w += l;
    }
    return 0;
}

/* The rate of the profile's MMA pipe on hw (FLOP/s); *rate = 0 and *why says so when hw does not
 * give it.  Errors: FA_EINVAL for a dtype the kernel's instruction family does not take and for
 * the paper's profile (no kernel). */
static fa_status tensor_rate(const fa_profile *p, const fa_shape *s, const fa_hw *hw, double *rate, char *why,
                             size_t why_len)
{
    const char *key = NULL;
    double r = 0;
    if (p->dtypes && !dtype_listed(p->dtypes, s->dtype))
        FA_FAIL(FA_EINVAL, "profile %s takes --dtype %s only (the kernel's input format), not %s", p->key, p->dtypes,
                fa_dtype_name(s->dtype));
    int fp8 = s->dtype == FA_DTYPE_E4M3 || s->dtype == FA_DTYPE_E5M2;
    const int fp32 = s->dtype == FA_DTYPE_FP32;
    if (fp32 && (p->mma == FA_MMA_SYNC || p->mma == FA_MMA_WGMMA || p->mma == FA_MMA_TCGEN05))
        FA_FAIL(FA_EINVAL, "profile %s is a %s kernel (fp16/bf16%s inputs), not one for fp32: --dtype bf16, or an "
                "fp32 kernel (--profile v1, v2) or --profile paper", p->key,
                p->mma == FA_MMA_SYNC ? "mma.sync" : p->mma == FA_MMA_WGMMA ? "wgmma" : "tcgen05",
                p->mma != FA_MMA_SYNC ? ", fp8" : "");
    if (fp8 && p->mma == FA_MMA_SYNC)
        FA_FAIL(FA_EINVAL, "profile %s is an mma.sync kernel (fp16/bf16 inputs): fp8 runs on wgmma (--profile fa3, "
                "cudnn) or --profile paper", p->key);
    if (fp8 && p->mma == FA_MMA_LIBRARY && p->std_ops != FA_STD_V0) /* v0: its own refusal (kernels/ dtypes) */
        FA_FAIL(FA_EINVAL, "profile %s: PyTorch's %s takes fp32, fp16 or bf16, not fp8 (torch.matmul and softmax have "
                "no float8 kernels; a float8 GEMM is torch._scaled_mm, another op): --profile paper counts it", p->key,
                p->std_ops == FA_STD_TORCH_MATH ? "math path" : "eager attention");
    switch (p->mma) {
    case FA_MMA_SIMT: r = hw->fma_flops, key = "fma_flops"; break;
    case FA_MMA_SYNC: r = hw->mma_sync_flops, key = "mma_sync_flops"; break;
    case FA_MMA_WGMMA:
        if (fp8) r = hw->wgmma_fp8_flops, key = "wgmma_fp8_flops";
        else r = hw->wgmma_flops, key = "wgmma_flops";
        break;
    case FA_MMA_TCGEN05:
        if (fp8) r = hw->tcgen05_fp8_flops, key = "tcgen05_fp8_flops";
        else r = hw->tcgen05_flops, key = "tcgen05_flops";
        break;
    case FA_MMA_LIBRARY: /* cuBLAS: tensor cores for 16-bit inputs; fp32 (PyTorch's math path
                            computes 16-bit inputs in fp32) on the FMA pipe, no TF32 */
        if (fp32 || p->std_ops == FA_STD_TORCH_MATH) {
            r = hw->sgemm_flops > 0 ? hw->sgemm_flops : hw->fma_flops, key = "sgemm_flops or fma_flops";
        } else {
            r = hw->gemm_flops, key = "gemm_flops";
        }
        break;
    default: FA_FAIL(FA_EINVAL, "profile %s has no kernel to time (the paper's abstract model)", p->key);
    }
    static const char *const pipe[] = {"", "fp32 FMA", "mma.sync", "wgmma", "library GEMMs", "tcgen05"};
    *rate = r > 0 ? r : 0;
    if (!(r > 0) && why)
        snprintf(why, why_len, "profile %s runs on %s, whose rate hardware profile %s does not give (no %s)", p->key,
                 pipe[p->mma], hw->key, key);
    return FA_OK;
}

/* A power-limited GPU lowers its clock while the tensor cores run flat out (ubench_pipes.cu:
 * mma.sync at 1815 MHz, wgmma at 1620 MHz on the H200, the other pipes at 1963-1980 MHz): the
 * kernel's exp unit, fp32 ALU and shared memory run at its MMA family's clock. */
static double clock_scale(const fa_profile *p, const fa_hw *hw)
{
    double c = p->mma == FA_MMA_SYNC ? hw->mma_sync_clock_hz : p->mma == FA_MMA_WGMMA ? hw->wgmma_clock_hz : 0;
    return c > 0 && hw->clock_hz > 0 ? c / hw->clock_hz : 1.0;
}

/* Two pipes' work a and b, each in w instruction streams that are independent of one another
 * (resident warps out of step): the longer one's time plus 1/w of the shorter one's, the part no
 * other stream covers (docs/time-model.md, "Overlap"; w = 1: a + b, w large: max(a, b)). */
static double overlap2(double a, double b, double w)
{
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi + lo / (w > 1 ? w : 1);
}

/* The instruction streams per warp scheduler whose softmax and GEMM phases are out of step: a
 * barrier every tile keeps the warps of one thread block in step, so with WARPS only the
 * resident thread blocks are; PINGPONG and PIPELINED keep two streams per thread block apart
 * (two consumer warpgroups; softmax of tile j beside the GEMM of tile j + 1); NONE: one. */
/* The streams whose GEMM and softmax phases are out of step on an SM: one per resident block
 * (warps), and for ping-pong and the pipelined policy one per consumer warpgroup of each block --
 * the warpgroups that take turns (kernels/attn_v5_fa3.cu: named barriers in round robin over its
 * two or three consumers; FlashAttention-3 likewise, three at d = 64): the warps that are not
 * producer warps, in fours; two when the profile names no producer. */
static double phase_streams(fa_overlap ov, int occupancy, const fa_occupancy *oc)
{
    const int consumers = oc->producer_warps > 0 ? (oc->warps - oc->producer_warps) / 4 : 2;
    switch (ov) {
    case FA_OVERLAP_NONE: return 1;
    case FA_OVERLAP_WARPS: { /* a block of fewer than 8 warps (one warp a scheduler) counts
                                 warps / 8 of a stream (docs/time-model.md section 5) */
        const double w = occupancy * (oc->warps < 8 ? oc->warps : 8) / 8.0;
        return w > 1 ? w : 1;
    }
    default: return (double)(consumers > 1 ? consumers : 2) * occupancy;
    }
}

/* ---- the waves of thread blocks over the SMs (list scheduling) ---- */

typedef struct {
    double *t;
    int n;
} heap;

static void heap_push(heap *h, double v)
{
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->t[p] <= v) break;
        h->t[i] = h->t[p];
        i = p;
    }
    h->t[i] = v;
}

static double heap_pop(heap *h)
{
    double top = h->t[0], v = h->t[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->t[c + 1] < h->t[c]) c++;
        if (h->t[c] >= v) break;
        h->t[i] = h->t[c];
        i = c;
    }
    if (h->n > 0) h->t[i] = v;
    return top;
}

/* Thread blocks above this count are scheduled as a fluid (sum / slots + the longest). */
#define SCHED_LIMIT ((int64_t)1 << 22)

/* The makespan of `count` thread blocks whose durations repeat with period `period` (dur[k] for
 * block k mod period, in launch order) on `slots` concurrent slots; each slot takes the next
 * block when it frees.  Errors: FA_ENOMEM. */
static fa_status makespan(const double *dur, int64_t period, int64_t count, int64_t slots, double *out,
                          double *fluid)
{
    double maxd = 0, sum = 0;
    int uniform = 1;
    for (int64_t k = 0; k < period; k++) {
        if (dur[k] > maxd) maxd = dur[k];
        if (dur[k] != dur[0]) uniform = 0;
        sum += dur[k];
    }
    *fluid = sum * ((double)count / (double)period) / (double)slots; /* every slot busy to the end */
    if (uniform) {
        *out = (double)((count + slots - 1) / slots) * dur[0];
        return FA_OK;
    }
    if (count > SCHED_LIMIT) {
        *out = *fluid + maxd;
        return FA_OK;
    }
    int64_t n = slots < count ? slots : count;
    heap h = {malloc((size_t)n * sizeof(double)), 0};
    if (!h.t) FA_FAIL(FA_ENOMEM, "out of host memory for %lld scheduling slots", (long long)n);
    double end = 0;
    for (int64_t k = 0; k < count; k++) {
        double t0 = h.n < n ? 0 : heap_pop(&h);
        double t1 = t0 + dur[k % period];
        if (t1 > end) end = t1;
        heap_push(&h, t1);
    }
    free(h.t);
    *out = end;
    return FA_OK;
}

/* ---- DRAM: the L2 captures re-reads whose working set fits (docs/time-model.md, "DRAM") ---- */

/* Bytes of tensor `name` of shape s in profile p's formats (0 when unknown: then it is never
 * counted as reusable). */
static uint64_t tensor_size(const char *name, const fa_shape *s, const fa_profile *p)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    const uint64_t eo = p->o_bytes > 0 ? (uint64_t)p->o_bytes : e; /* O's element (v5_fp8: bf16) */
    const uint64_t BH = (uint64_t)s->batch * (uint64_t)s->heads, BHk = (uint64_t)s->batch * (uint64_t)s->kv_heads;
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k, d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    static const char *const q_like[] = {"Q", "dQ"}, *const o_like[] = {"O", "dO"};
    for (int i = 0; i < 2; i++) {
        if (!strcmp(name, q_like[i])) return BH * Nq * d * e;
        if (!strcmp(name, o_like[i])) return BH * Nq * dv * (i ? e : eo);
    }
    if (p->scale_rows > 0) { /* one int32 exponent per scale_rows rows */
        const uint64_t S = (uint64_t)p->scale_rows;
        if (!strcmp(name, "Q_scale")) return BH * ((Nq + S - 1) / S) * 4;
        if (!strcmp(name, "K_scale") || !strcmp(name, "V_scale")) return BHk * ((Nk + S - 1) / S) * 4;
    }
    if (!strcmp(name, "K") || !strcmp(name, "dK")) return BHk * Nk * d * e;
    if (!strcmp(name, "V") || !strcmp(name, "dV")) return BHk * Nk * dv * e;
    if (!strcmp(name, "LSE") || !strcmp(name, "D") || !strcmp(name, "l") || !strcmp(name, "m")) return BH * Nq * 4;
    if (!strcmp(name, "dQacc")) return BH * Nq * d * 4;
    return 0;
}

/* The reused tensors of each loop order and pass, and the bytes one head (or kv head) of them
 * holds: the working set that must stay in L2 while the thread blocks that re-read it run. */
static double reuse_per_head(const fa_profile *p, int bwd, const fa_shape *s)
{
    const fa_algo a = p->algo;
    const double e = fa_dtype_bytes(s->dtype), Nq = (double)s->seqlen_q, Nk = (double)s->seqlen_k;
    const double d = (double)s->d, dv = (double)s->d_v;
    /* K and V (the fp8 kernel: V^T and the two scale vectors) */
    const double scales = p->scale_rows > 0 ? 8 * ceil(Nk / p->scale_rows) : 0;
    if (a == FA_ALGO_FLASH2) return bwd ? Nq * (d * e + dv * e + 8 + 4 * d) : Nk * (d + dv) * e + scales;
    if (a == FA_ALGO_FLASH1) return bwd ? Nq * (d * e + 2 * dv * e + d * e + 12) : Nq * (d * e + dv * e + 8);
    return 0;
}

static uint64_t compulsory(const fa_counts *c, const fa_shape *s, const fa_profile *p)
{
    uint64_t sum = 0;
    for (int t = 0; t < c->n_tensors; t++) {
        const fa_tensor_count *x = &c->tensor[t];
        uint64_t sz = tensor_size(x->name, s, p);
        if (!sz) sz = UINT64_MAX; /* S, P, masks: no reuse to capture */
        sum += (x->read_bytes < sz ? x->read_bytes : sz) + (x->write_bytes < sz ? x->write_bytes : sz);
    }
    return sum;
}

/* ---- one pass ---- */

typedef struct {
    double time, makespan, launch;
    double fluid; /* the makespan if every slot stayed busy to the end (no tail) */
    fa_perf_kernel d; /* the derivation */
    double busy[FA_NPIPE];
    int64_t ctas;
    double waves;
    uint64_t dram, comp;
} pass_time;

/* The K/V tiles row block i visits, j = *first .. *first + n - 1 (n returned): FlashAttention-2
 * skips the tiles above the causal diagonal and outside a sliding window (the band
 * [i + N_k - N_q - left, i + N_k - N_q + right] of the rows' keys).  Other masks: every tile. */
static int64_t row_span(const fa_shape *s, fa_blocks bk, int64_t i, int64_t *first)
{
    const int64_t Tc = fa_cdiv(s->seqlen_k, bk.block_c);
    int64_t r0 = i * bk.block_r, r1 = (i + 1) * bk.block_r;
    if (r1 > s->seqlen_q) r1 = s->seqlen_q;
    int64_t lo = 0, hi = s->seqlen_k - 1; /* the keys some row of the block may see */
    if (s->causal != FA_CAUSAL_NONE) {
        int64_t k = r1 - 1 + fa_causal_offset(s);
        if (k < hi) hi = k;
    }
    if (s->window) {
        const int64_t c = s->seqlen_k - s->seqlen_q;
        if (s->window_right >= 0 && r1 - 1 + c + s->window_right < hi) hi = r1 - 1 + c + s->window_right;
        if (s->window_left >= 0 && r0 + c - s->window_left > lo) lo = r0 + c - s->window_left;
    }
    *first = 0;
    if (hi < lo || hi < 0) return 0;
    *first = lo / bk.block_c;
    int64_t n = hi / bk.block_c - *first + 1;
    return n < Tc - *first ? n : Tc - *first;
}

static int64_t row_tiles(const fa_shape *s, fa_blocks bk, int64_t i)
{
    int64_t first;
    return row_span(s, bk, i, &first);
}

static fa_status time_flash_at(const fa_profile *p, int bwd, const fa_shape *s, const fa_hw *hw,
                               fa_blocks bk, int splits, const fa_occupancy *oc, const fa_counts *c, pass_time *pt);

/* The SM clock a power-limited GPU holds while its tensor pipe is busy `duty` of the time: the
 * hardware profile's wgmma_clock_by_load points, linear between them, the end points' clocks
 * outside them (docs/time-model.md, section 1). */
double fa_hw_wgmma_clock_at(const fa_hw *hw, double duty)
{
    const int n = hw->wgmma_load_n;
    if (n <= 0) return hw->wgmma_clock_hz;
    if (duty <= hw->wgmma_load_duty[0]) return hw->wgmma_load_hz[0];
    for (int i = 1; i < n; i++)
        if (duty <= hw->wgmma_load_duty[i]) {
            const double d0 = hw->wgmma_load_duty[i - 1], d1 = hw->wgmma_load_duty[i];
            return hw->wgmma_load_hz[i - 1] + (hw->wgmma_load_hz[i] - hw->wgmma_load_hz[i - 1]) * (duty - d0) / (d1 - d0);
        }
    return hw->wgmma_load_hz[n - 1];
}

/* A wgmma kernel on a GPU whose profile has wgmma_clock_by_load: timed at the full-load clock
 * (wgmma_clock_hz, the rate wgmma_flops was measured at) first; the tensor pipe's share of that
 * time (busy / makespan, which the clock does not change) gives the clock the GPU holds at that
 * load, and the kernel is timed again with every SM pipe at it (wgmma rates scaled by clock /
 * wgmma_clock_hz; DRAM, L2 and latencies as they are).  No constant is fitted: the points are
 * ubench_pipes' wgmma_duty rows. */
static fa_status time_flash(const fa_profile *p, int bwd, const fa_shape *s, const fa_hw *hw,
                            fa_blocks bk, int splits, const fa_occupancy *oc, const fa_counts *c, pass_time *pt)
{
    FA_TRY(time_flash_at(p, bwd, s, hw, bk, splits, oc, c, pt));
    if (p->mma != FA_MMA_WGMMA || hw->wgmma_load_n <= 0 || !(hw->wgmma_clock_hz > 0) || !(pt->makespan > 0)) return FA_OK;
    const double duty = pt->busy[FA_PIPE_TENSOR] / pt->makespan;
    const double hz = fa_hw_wgmma_clock_at(hw, duty > 1 ? 1 : duty), f = hz / hw->wgmma_clock_hz;
    fa_hw h2 = *hw;
    h2.wgmma_clock_hz = hz;
    h2.wgmma_flops *= f;
    h2.wgmma_fp8_flops *= f;
    h2.wgmma_load_n = 0;
    FA_TRY(time_flash_at(p, bwd, s, &h2, bk, splits, oc, c, pt));
    pt->d.load_duty = duty;
    pt->d.load_clock_hz = hz;
    return FA_OK;
}

static fa_status time_flash_at(const fa_profile *p, int bwd, const fa_shape *s, const fa_hw *hw,
                               fa_blocks bk, int splits, const fa_occupancy *oc, const fa_counts *c, pass_time *pt)
{
    double tc_rate; /* predict checked every rate this needs (r->has_time) */
    FA_TRY(tensor_rate(p, s, hw, &tc_rate, NULL, 0));
    const double sms = hw->sms;
    const double kc = clock_scale(p, hw); /* the other pipes at the tensor pipe's clock */
    tile_work w = tile_work_of(p, bwd, s, bk);
    double t_tc = w.mm / (tc_rate / sms), t_sm = w.smem / (kc * hw->smem_bandwidth / sms);
    double t_ex = w.exps / (kc * hw->exp_per_s / sms), t_alu = w.alu / (kc * hw->fma_flops / 2 / sms);
    /* GEMM phase: tensor cores and the operand loads of all resident warps (a warp's MMAs wait for
     * its loads; other warps fill the gap); softmax phase: exp unit and fp32 ALU, in one warp's
     * dependent chain (max -> exp -> sum); then the two phases, out of step across streams */
    const int64_t Tr = fa_cdiv(s->seqlen_q, bk.block_r), Tc = fa_cdiv(s->seqlen_k, bk.block_c);
    const int64_t heads = s->batch * s->heads;
    /* blocks that share an SM: the block scheduler spreads a grid over every SM before it
     * doubles up, so a grid of fewer blocks than SMs x occupancy runs fewer per SM */
    const int64_t grid = heads * (p->algo == FA_ALGO_FLASH2 ? (bwd ? Tc : Tr * splits) : 1);
    int64_t per_sm = (grid + hw->sms - 1) / hw->sms;
    const double occ = per_sm < oc->occupancy ? (double)per_sm : (double)oc->occupancy;
    const fa_overlap ov = bwd ? p->overlap_bwd : p->overlap;
    double wsched = occ * oc->warps / 4.0; /* resident warps per scheduler */
    double G = overlap2(t_tc, t_sm, wsched), S = t_ex + t_alu;
    /* a forward mma.sync kernel on a GPU with ldsm_mma_overlap: each warp's ldmatrix stream runs
     * ahead of its mma.sync (the next fragment prefetched), and the microbenchmark of that stream
     * gives the share c of the shorter pipe left over, by the resident warps a scheduler (one
     * block of 8 warps and two of 4 give the same c: ldsm_mma_w8, ldsm_mma_w4x2; docs/time-model.md
     * section 5; the backward's chain of five dependent GEMMs keeps the law) */
    double c_gemm = -1;
    if (p->mma == FA_MMA_SYNC && !bwd && hw->ldsm_overlap_n > 0) {
        c_gemm = fa_hw_rate_by_len(hw->ldsm_overlap_w, hw->ldsm_overlap_c, hw->ldsm_overlap_n, wsched);
        G = (t_tc > t_sm ? t_tc : t_sm) + c_gemm * (t_tc > t_sm ? t_sm : t_tc);
    }
    /* issue slots: the softmax phase (every instruction but the GEMMs', which a wgmma issues in a
     * few slots) cannot take less than its warp instructions at the schedulers' issue rate, at
     * the clock the other pipes run at; charged where the profile's count was measured */
    const double inst = fa_profile_inst_per_elem(p, bwd, s->d) * (double)bk.block_r * (double)bk.block_c;
    const double t_iss = inst > 0 && hw->issue_per_sm_clk > 0 && hw->clock_hz > 0
                             ? inst / (hw->issue_per_sm_clk * kc * hw->clock_hz) : 0;
    if (t_iss > S) S = t_iss;
    double tile = overlap2(G, S, phase_streams(ov, (int)occ, oc));
    double t_load = 0;
    if (p->sync_loads) { /* a third phase: the tile's loads (and stores), not prefetched: a tile's
                            share of the two-level bytes at the SM's share of L2, after its latency */
        double visited = 0; /* the tiles of the whole grid, whichever loop visits them */
        for (int64_t i = 0; i < Tr; i++) visited += (double)row_tiles(s, bk, i);
        visited *= (double)heads;
        const double lat = hw->l2_latency_s > 0 ? hw->l2_latency_s : hw->dram_latency_s;
        if (visited > 0)
            t_load = lat + (double)fa_counts_hbm_bytes(c) / visited / (hw->l2_bandwidth / sms);
        double hi = G > S ? G : S;
        if (t_load > hi) hi = t_load;
        tile = hi + (G + S + t_load - hi) / phase_streams(ov, (int)occ, oc);
    }
    /* waits and barriers (docs/time-model.md section 5, "Waits and barriers"): a stream that waits
     * for the GEMM it just issued, or meets a barrier, idles for the latency beyond the pipes'
     * time; out-of-step streams (w_phase) fill it as they fill the shorter phase.  A ping-pong or
     * pipelined schedule places the other warpgroup's work in exactly those waits: not charged */
    const int n_wait = bwd ? p->waits_bwd : p->waits_fwd, n_bar = bwd ? p->barriers_bwd : p->barriers_fwd;
    double t_wait = 0;
    if ((ov == FA_OVERLAP_NONE || ov == FA_OVERLAP_WARPS) && hw->clock_hz > 0) {
        const double cyc = n_wait * hw->wgmma_wait_cycles + n_bar * hw->barrier_cycles;
        t_wait = cyc / (kc * hw->clock_hz);
        tile += t_wait / phase_streams(ov, (int)occ, oc);
    }
    double once = ov == FA_OVERLAP_PINGPONG ? G : ov == FA_OVERLAP_PIPELINED ? S : 0;
    /* a block's prologue and epilogue, which no compute of its own hides: the first load's
     * latency; the block's own input tile (Q_i; backward K_j, V_j), read once from DRAM, and its
     * output tile (O_i; dK_j, dV_j) at its SM's share of the DRAM bandwidth; its first shared
     * tiles (K_j, V_j; backward Q_i, dO_i), which other blocks of the head bring into L2, at its
     * share of the L2 bandwidth; the blocks that share an SM start and end together (waves) and
     * split its share */
    const double e = fa_dtype_bytes(s->dtype);
    const double own = e * (bwd ? (double)bk.block_c * (s->d + s->d_v) : (double)bk.block_r * s->d);
    const double shared = e * (bwd ? (double)bk.block_r * (s->d + s->d_v) : (double)bk.block_c * (s->d + s->d_v));
    const double eo = p->o_bytes > 0 ? p->o_bytes : e; /* O's element in HBM (v5_fp8: bf16) */
    const double out = bwd ? e * (double)bk.block_c * (s->d + s->d_v) : eo * (double)bk.block_r * s->d_v;
    const double prologue = hw->dram_latency_s + occ * (own / (hw->dram_bandwidth / sms) + shared / (hw->l2_bandwidth / sms));
    const double epilogue = occ * out / (hw->dram_bandwidth / sms);
    const double edge = prologue + epilogue;
    int64_t period, per_head;
    double *dur = NULL;
    double tiles_total = 0;
    /* thread blocks of one head in launch order and the tiles each visits */
    if (p->algo == FA_ALGO_FLASH2) {
        per_head = bwd ? Tc : Tr * splits;
        period = per_head;
        dur = malloc((size_t)period * sizeof *dur);
        if (!dur) FA_FAIL(FA_ENOMEM, "out of host memory for %lld thread blocks", (long long)period);
        if (!bwd) { /* split-KV: split q of row block i takes the tiles [q cs, (q + 1) cs) it sees,
                       the blocks row block fastest, then split (FlashAttention-2's grid) */
            const int64_t cs = fa_cdiv(Tc, splits);
            for (int64_t q = 0; q < splits; q++)
                for (int64_t k = 0; k < Tr; k++) {
                    int64_t i = p->heavy_first ? Tr - 1 - k : k, j0, n = row_span(s, bk, i, &j0);
                    int64_t a = j0 > q * cs ? j0 : q * cs, b = j0 + n < (q + 1) * cs ? j0 + n : (q + 1) * cs;
                    dur[q * Tr + k] = b > a ? (double)(b - a) : 0;
                }
        } else { /* column block j visits the row blocks whose last visible key reaches it: row
                    block i adds one tile to columns 0 .. n_i - 1 (a difference array) */
            for (int64_t j = 0; j < Tc; j++) dur[j] = 0;
            for (int64_t i = 0; i < Tr; i++) {
                int64_t j0, n = row_span(s, bk, i, &j0);
                if (n > 0) dur[j0] += 1;
                if (n > 0 && j0 + n < Tc) dur[j0 + n] -= 1;
            }
            for (int64_t j = 1; j < Tc; j++) dur[j] += dur[j - 1];
            /* launch order: column block j = blockIdx.x ascending in every profiled backward
             * (kernels/attn_v3_bwd_tc.cu kb = blockIdx.x; FlashAttention-2 flash_bwd_kernel.h
             * n_block = blockIdx.x; FlashAttention-3 SingleTileSchedulerBwd M_idx = blockIdx.x),
             * which under the causal mask is already heaviest first: column 0 is seen by every
             * row block.  heavy_first is the forward's row order; it does not reverse this. */
        }
    } else { /* flash1: one thread block per head visits every tile of the head */
        per_head = 1;
        period = 1;
        dur = malloc(sizeof *dur);
        if (!dur) FA_FAIL(FA_ENOMEM, "out of host memory");
        double n = 0;
        for (int64_t i = 0; i < Tr; i++) n += (double)row_tiles(s, bk, i);
        dur[0] = n;
    }
    for (int64_t k = 0; k < period; k++) tiles_total += dur[k];
    tiles_total *= (double)heads;
    for (int64_t k = 0; k < period; k++) /* a slot's time: its share of the SM, and its edges */
        dur[k] = occ * (dur[k] * tile + (dur[k] > 0 ? once : 0)) + (p->persistent ? epilogue : edge);
    pt->ctas = heads * per_head;
    int64_t slots = (int64_t)hw->sms * (int64_t)occ;
    pt->waves = (double)pt->ctas / (double)slots;
    fa_status st = makespan(dur, period, pt->ctas, slots, &pt->makespan, &pt->fluid);
    free(dur);
    if (st) return st;
    if (p->persistent) { /* a persistent kernel's producer warps load the next work unit's tiles
                            while the consumers compute: one prologue a slot; the consumers still
                            write each unit's output tile */
        pt->makespan += prologue;
        pt->fluid += prologue;
    }

    pt->d = (fa_perf_kernel){.mm = w.mm, .exps = w.exps, .alu = w.alu, .smem = w.smem, .tensor_rate = tc_rate,
                             .clock_scale = kc, .t_tensor = t_tc, .t_smem = t_sm, .t_exp = t_ex, .t_fp32 = t_alu,
                             .inst = inst, .t_issue = t_iss,
                             .w_gemm = wsched, .c_gemm = c_gemm, .ldsm_law = c_gemm >= 0, .w_phase = phase_streams(ov, (int)occ, oc), .G = G, .S = S, .tile = tile,
                             .waits = n_wait, .barriers = n_bar, .t_wait = t_wait,
                             .t_load = t_load,
                             .edge = edge, .once = once, .tiles = tiles_total, .blocks_per_sm = occ, .makespan = pt->makespan,
                             .fluid = pt->fluid};
    pt->busy[FA_PIPE_TENSOR] = tiles_total * t_tc / sms;
    pt->busy[FA_PIPE_SMEM] = tiles_total * t_sm / sms;
    pt->busy[FA_PIPE_EXP] = tiles_total * t_ex / sms;
    pt->busy[FA_PIPE_FP32] = tiles_total * t_alu / sms;
    if (p->mma == FA_MMA_SIMT) { /* fp32 SIMT GEMMs (v1, v2) run on the FMA units, not the tensor cores: their
                                    busy time is the fp32 pipe's, as math's SGEMMs (a label only: the tile
                                    time above, and so the kernel's, is the same) */
        pt->busy[FA_PIPE_FP32] += pt->busy[FA_PIPE_TENSOR];
        pt->busy[FA_PIPE_TENSOR] = 0;
    }
    /* split-KV: the counts hold both kernels; the combine's (O_part, LSE_part read, O and LSE
     * written) run after the split kernel, at DRAM speed (below), the rest is the split kernel's */
    fa_counts main_c = *c;
    uint64_t combine_bytes = 0;
    if (splits > 1)
        for (int t = 0; t < main_c.n_tensors; t++) {
            fa_tensor_count *x = &main_c.tensor[t];
            const int part = !strcmp(x->name, "O_part") || !strcmp(x->name, "LSE_part");
            const int result = !strcmp(x->name, "O") || !strcmp(x->name, "LSE");
            if (part) combine_bytes += x->read_bytes, main_c.hbm_read_bytes -= x->read_bytes, x->read_bytes = 0;
            if (result) combine_bytes += x->write_bytes, main_c.hbm_write_bytes -= x->write_bytes, x->write_bytes = 0;
        }
    c = &main_c;
    /* L2 -> SM: the two-level count; DRAM: re-reads captured by the L2 when their working set fits */
    uint64_t l2 = fa_counts_hbm_bytes(c);
    if (bwd && p->dq_reduce) { /* the reduction happens in the L2: the main loop's dQacc reads (all
                                  but the post-pass's one read of the accumulator) never leave it */
        const int t = fa_counts_find(c, "dQacc");
        const uint64_t post = (uint64_t)(s->batch * s->heads) * (uint64_t)s->seqlen_q * (uint64_t)s->d * 4;
        if (t >= 0 && c->tensor[t].read_bytes > post) l2 -= c->tensor[t].read_bytes - post;
    }
    pt->comp = compulsory(c, s, p);
    double l2_eff = (double)hw->l2_bytes / (hw->l2_partitions > 1 ? hw->l2_partitions : 1);
    double per = reuse_per_head(p, bwd, s), live;
    if (p->algo == FA_ALGO_FLASH2) { /* heads whose blocks are resident at once, + the next one */
        double group = bwd ? 1.0 : (double)(s->heads / s->kv_heads);
        live = ceil((double)slots / ((double)per_head * group)) + 1;
        double maxlive = bwd ? (double)heads : (double)(s->batch * s->kv_heads);
        if (live > maxlive) live = maxlive;
    } else {
        live = (double)(slots < heads ? slots : heads);
    }
    double ws = live * per, hit = ws > 0 ? (l2_eff >= ws ? 1.0 : l2_eff / ws) : 1.0;
    double dram = (double)pt->comp + ((double)l2 - (double)pt->comp) * (1 - hit);
    if (dram < (double)pt->comp) dram = (double)pt->comp;
    pt->dram = (uint64_t)dram + combine_bytes; /* the combine's bytes all reach DRAM */
    pt->busy[FA_PIPE_L2] = (double)l2 / hw->l2_bandwidth;
    pt->busy[FA_PIPE_DRAM] = dram / hw->dram_bandwidth;
    /* the FlashAttention-2 backward's two small kernels: D = rowsum(dO o O) and dQacc -> dQ;
     * split-KV: the combine kernel, its bytes (the partials read back, O and LSE written) at
     * DRAM speed (the split kernel's partial writes are in its counts above: compulsory) */
    int kernels = 1;
    double extra = 0;
    if (splits > 1) {
        extra = (double)combine_bytes / hw->dram_bandwidth;
        kernels = 2;
    }
    if (bwd && p->algo == FA_ALGO_FLASH2) { /* the pre-pass reads O_i, dO_i, writes D_i and clears
                                                dQacc (FlashAttention-2 flash_bwd_preprocess_kernel.h
                                                compute_dot_do_o<Clear_dQaccum = true>, cuDNN's
                                                compute_dot_do_o, kernels/ v3's and v5's pre kernels);
                                                the post-pass reads dQacc and writes dQ */
        const double rows = (double)heads * (double)s->seqlen_q;
        pt->d.pre = rows * (2 * s->d_v * e + 4 + 4 * s->d) / hw->dram_bandwidth;
        pt->d.post = rows * s->d * (4 + e) / hw->dram_bandwidth;
        extra = pt->d.pre + pt->d.post;
        kernels = 3;
        if (p->layout_copies_bwd > 0 && s->heads > 1 && s->seqlen_q > 1) { /* the framework's layout
                                                copies of dO and O, each read and written once */
            const double rate = hw->transpose_copy_bandwidth > 0 ? hw->transpose_copy_bandwidth : hw->dram_bandwidth;
            pt->d.copies_bytes = p->layout_copies_bwd * 2.0 * rows * s->d_v * e;
            pt->d.copies = pt->d.copies_bytes / rate;
            extra += pt->d.copies;
            /* their bytes reach DRAM as the call's own (not the algorithm's: the counts, HBM total,
               leave them out), so the DRAM estimate holds them beside the time it charges them */
            pt->dram += (uint64_t)pt->d.copies_bytes;
            kernels += p->layout_copies_bwd;
        }
    }
    double t = pt->makespan;
    if (pt->busy[FA_PIPE_L2] > t) t = pt->busy[FA_PIPE_L2];
    if (pt->busy[FA_PIPE_DRAM] > t) t = pt->busy[FA_PIPE_DRAM];
    pt->launch = kernels * hw->launch_s;
    pt->time = t + extra + pt->launch;
    pt->d.t_l2 = pt->busy[FA_PIPE_L2];
    pt->d.t_dram = pt->busy[FA_PIPE_DRAM];
    pt->d.extra = extra;
    pt->d.launch = pt->launch;
    pt->d.launches = kernels;
    pt->d.time = pt->time;
    /* what sets the time (a label: the time is the same) -- the largest of the three terms above;
     * the waves' by the tile's longer phase */
    if (t > pt->makespan && pt->busy[FA_PIPE_L2] >= pt->busy[FA_PIPE_DRAM]) pt->d.sets = "L2";
    else if (t > pt->makespan) pt->d.sets = "DRAM";
    else if (t_load > G && t_load > S) pt->d.sets = "loads";
    else if (S > G) pt->d.sets = t_iss >= S ? "issue" : "softmax";
    else pt->d.sets = p->mma == FA_MMA_SIMT ? "fp32" : t_tc >= t_sm ? "tensor" : "smem";
    return FA_OK;
}

/* The sequence of kernels of a standard-attention profile, each timed alone: the largest of its
 * GEMM FLOPs at rate g, its DRAM bytes and its exponentials, plus a launch (docs/time-model.md,
 * "Standard attention"). */
typedef struct {
    pass_time *pt;
    const fa_hw *hw;
    fa_std_step *steps;
    int *n;
    fa_pipe gemm; /* the pipe the GEMMs run on: tensor cores, or the FMA units (SGEMM, no TF32) */
} std_seq;

/* bytes at rate bw (> 0: PyTorch's measured kernel for the op, named src; else dram_bytes_per_s) */
static void std_step_bw(std_seq *q, const char *what, double flops, double g, double bytes, double exps, double bw,
                        const char *src)
{
    const fa_hw *hw = q->hw;
    if (!(bw > 0)) bw = hw->dram_bandwidth, src = NULL;
    double tf = flops > 0 && g > 0 ? flops / g : 0, tb = bytes / bw;
    double te = exps > 0 && hw->exp_per_s > 0 ? exps / hw->exp_per_s : 0;
    double t = fmax(tf, fmax(tb, te));
    q->pt->busy[q->gemm] += tf;
    q->pt->busy[FA_PIPE_DRAM] += tb;
    q->pt->busy[FA_PIPE_EXP] += te;
    q->pt->makespan += t;
    q->pt->launch += hw->launch_s;
    q->pt->d.launches++;
    q->pt->dram += (uint64_t)bytes;
    if (*q->n < FA_PERF_STD_STEPS) {
        fa_std_step *x = &q->steps[(*q->n)++];
        x->what = what, x->flops = flops, x->rate = g, x->bytes = bytes, x->exps = exps, x->time = t;
        x->bw = bw, x->bw_src = src;
    }
}

static void std_step(std_seq *q, const char *what, double flops, double g, double bytes, double exps)
{
    std_step_bw(q, what, flops, g, bytes, exps, 0, NULL);
}

/* The scores the mask allows, of B H N_q N_k (bottom-right anchor, the one kernels/ v0 uses). */
static double allowed_scores(const fa_shape *s)
{
    const double heads = (double)(s->batch * s->heads);
    if (s->causal == FA_CAUSAL_NONE) return heads * (double)s->seqlen_q * (double)s->seqlen_k;
    const int64_t nq = s->seqlen_q, nk = s->seqlen_k, off = s->causal == FA_CAUSAL_TOP_LEFT ? 0 : nk - nq;
    double sum = 0; /* row i keeps keys j <= i + off: clamp(i + off + 1, 0, N_k) of them */
    int64_t lo = -off - 1 > 0 ? -off - 1 : 0; /* rows before lo keep none */
    int64_t full = nk - off - 1; /* rows from here on keep all N_k */
    if (full < lo) full = lo;
    if (full > nq) full = nq;
    if (lo < full) sum += (double)(full - lo) * (double)(lo + full - 1) / 2 + (double)(full - lo) * (double)(off + 1);
    if (full < nq) sum += (double)(nq - full) * (double)nk;
    return heads * sum;
}

static const char T_SOFTMAX[] = "torch_softmax_bytes_per_s_by_n", T_ALL[] = "torch_all_bytes_per_s_by_n",
                  T_SELECT[] = "torch_select_bytes_per_s", T_UPCAST[] = "torch_upcast_bytes_per_s";

/* PyTorch's SDPA math backend (fa_std_ops TORCH_MATH), forward and the autograd backward, as
 * the kernels its composite ops launch; e the input element size, fp32 compute. */
static void torch_math(std_seq *q, int bwd, const fa_shape *s, double g)
{
    const fa_hw *hw = q->hw;
    const double e = (double)fa_dtype_bytes(s->dtype), f = 4;
    const int up = e < 4;
    const double BH = (double)(s->batch * s->heads), BHkv = (double)(s->batch * s->kv_heads);
    const double Nq = (double)s->seqlen_q, Nk = (double)s->seqlen_k, d = (double)s->d, dv = (double)s->d_v;
    const double nq = BH * Nq * d, nk = BHkv * Nk * d, nv = BHkv * Nk * dv, no = BH * Nq * dv;
    const double n = BH * Nq * Nk, rows = BH * Nq, m2 = Nq * Nk;
    const int gqa = s->kv_heads < s->heads;
    const double nkx = gqa ? BH * Nk * d : nk, nvx = gqa ? BH * Nk * dv : nv;
    const int causal = s->causal != FA_CAUSAL_NONE, drop = s->dropout_p > 0;
    /* PyTorch's own kernels of these ops at their measured rates (0: dram_bytes_per_s) */
    const double smx = fa_hw_rate_by_len(hw->torch_softmax_len, hw->torch_softmax_bw, hw->torch_softmax_n, Nk);
    const double all = fa_hw_rate_by_len(hw->torch_all_len, hw->torch_all_bw, hw->torch_all_n, Nk);
    const double sel = hw->torch_select_bandwidth, upcast = hw->torch_upcast_bandwidth;
    if (!bwd) {
        if (up) {
            std_step_bw(q, "Q to fp32", 0, g, (e + f) * nq, 0, upcast, T_UPCAST);
            std_step_bw(q, "K to fp32", 0, g, (e + f) * nk, 0, upcast, T_UPCAST);
            std_step_bw(q, "V to fp32", 0, g, (e + f) * nv, 0, upcast, T_UPCAST);
        }
        std_step(q, "Q * sqrt(scale)", 0, g, 2 * f * nq, 0);
        std_step(q, "K^T * sqrt(scale)", 0, g, 2 * f * nk, 0);
        if (gqa) {
            std_step(q, "K repeat_interleave (GQA)", 0, g, f * (nk + nkx), 0);
            std_step(q, "V repeat_interleave (GQA)", 0, g, f * (nv + nvx), 0);
        }
        std_step(q, "GEMM S = Q K^T (fp32)", 2 * n * d, g, f * (nq + nkx + n), 0);
        if (causal) { /* ones(L, S, bool).tril(), zeros_like(fp32).masked_fill_(logical_not, -inf) */
            std_step(q, "mask: ones (bool)", 0, g, m2, 0);
            std_step(q, "mask: tril", 0, g, 2 * m2, 0);
            std_step(q, "mask: zeros_like (fp32)", 0, g, f * m2, 0);
            std_step(q, "mask: logical_not", 0, g, 2 * m2, 0);
            std_step_bw(q, "mask: masked_fill_ -inf", 0, g, (2 * f + 1) * m2, 0, sel, T_SELECT);
            /* the N_q x N_k mask is broadcast over the B H slices: read once when it fits L2 */
            const double mask = f * m2 <= (double)hw->l2_bytes ? f * m2 : f * n;
            std_step(q, "S += mask", 0, g, 2 * f * n + mask, 0);
        }
        std_step_bw(q, "softmax", 0, g, 2 * f * n, n, smx, T_SOFTMAX);
        std_step(q, "_safe_softmax: isneginf", 0, g, (f + 1) * n, 0);
        std_step_bw(q, "_safe_softmax: all (rows)", 0, g, n + rows, 0, all, T_ALL);
        std_step_bw(q, "_safe_softmax: where", 0, g, 2 * f * n + rows, 0, sel, T_SELECT);
        if (drop) std_step(q, "dropout", 0, g, (2 * f + 1) * n, 0);
        std_step(q, "GEMM O = P V (fp32)", 2 * n * dv, g, f * (n + nvx + no), 0);
        if (up) {
            std_step(q, "O to the input dtype", 0, g, (f + e) * no, 0);
            std_step(q, "P to the input dtype (the second output)", 0, g, (f + e) * n, 0);
        }
        return;
    }
    /* autograd through the same ops (the probabilities saved by the forward, in fp32) */
    if (up) std_step_bw(q, "dO to fp32", 0, g, (e + f) * no, 0, upcast, T_UPCAST);
    std_step(q, "GEMM dP = dO V^T (fp32)", 2 * n * dv, g, f * (no + nvx + n), 0);
    std_step(q, "GEMM dV = P^T dO (fp32)", 2 * n * dv, g, f * (n + no + nvx), 0);
    if (drop) std_step(q, "dropout backward", 0, g, (2 * f + 1) * n, 0);
    std_step_bw(q, "where backward", 0, g, 2 * f * n + rows, 0, sel, T_SELECT);
    std_step(q, "softmax backward", 0, g, 3 * f * n, 0);
    std_step(q, "GEMM dQ = dS K (fp32)", 2 * n * d, g, f * (n + nkx + nq), 0);
    std_step(q, "GEMM dK = dS^T Q (fp32)", 2 * n * d, g, f * (n + nq + nkx), 0);
    if (gqa) {
        std_step(q, "dK sum over the group (GQA)", 0, g, f * (nkx + nk), 0);
        std_step(q, "dV sum over the group (GQA)", 0, g, f * (nvx + nv), 0);
    }
    std_step(q, "dQ * sqrt(scale)", 0, g, 2 * f * nq, 0);
    std_step(q, "dK * sqrt(scale)", 0, g, 2 * f * nk, 0);
    if (up) {
        std_step(q, "dQ to the input dtype", 0, g, (f + e) * nq, 0);
        std_step(q, "dK to the input dtype", 0, g, (f + e) * nk, 0);
        std_step(q, "dV to the input dtype", 0, g, (f + e) * nv, 0);
    }
}

/* The pipe standard attention's library GEMMs run on: cuBLAS on fp32 (and PyTorch's math path,
 * fp32 whatever the input) is SGEMM on the FMA units (tensor_rate): its GEMM time is the fp32
 * pipe's, not the tensor cores' (a label only: each step's time is the same). */
static fa_pipe std_gemm_pipe(const fa_profile *p, const fa_shape *s)
{
    return p->mma == FA_MMA_LIBRARY && (s->dtype == FA_DTYPE_FP32 || p->std_ops == FA_STD_TORCH_MATH) ? FA_PIPE_FP32
                                                                                                       : FA_PIPE_TENSOR;
}

/* Standard attention (PyTorch's math path, the papers' PyTorch baseline, kernels/ v0): library
 * GEMMs and memory-bound kernels in turn, each bounded by its compute or its DRAM bytes
 * (docs/time-model.md, "Standard attention"). */
static fa_status time_standard(const fa_profile *p, int bwd, const fa_shape *s, const fa_hw *hw,
                               const fa_counts *c, pass_time *pt, fa_std_step *steps, int *nsteps)
{
    double g; /* predict checked every rate this needs (r->has_time) */
    FA_TRY(tensor_rate(p, s, hw, &g, NULL, 0));
    const double scores = (double)(s->batch * s->heads) * (double)s->seqlen_q * (double)s->seqlen_k;
    double bytes = (double)fa_counts_hbm_bytes(c);
#define T(name, rw) (fa_counts_find(c, name) >= 0 ? (double)c->tensor[fa_counts_find(c, name)].rw : 0.0)
    pt->ctas = 0;
    pt->waves = 0;
    pt->comp = compulsory(c, s, p);
    pt->dram = 0;
    *nsteps = 0;
    std_seq q = {pt, hw, steps, nsteps, std_gemm_pipe(p, s)};
    if (p->std_ops == FA_STD_TORCH_MATH) {
        torch_math(&q, bwd, s, g);
    } else if (!bwd) {
        const double e = (double)fa_dtype_bytes(s->dtype);
        double mm1 = scores * 2 * (double)s->d, mm2 = scores * 2 * (double)s->d_v;
        double b1 = T("Q", read_bytes) + T("K", read_bytes) + (T("S", write_bytes) < scores * e ? T("S", write_bytes) : scores * e);
        double b3 = T("P", read_bytes) + T("V", read_bytes) + T("O", write_bytes);
        double b2 = bytes - b1 - b3;
        if (p->std_ops == FA_STD_V0 && s->causal != FA_CAUSAL_NONE) /* reads only the allowed keys */
            b2 -= (1 - allowed_scores(s) / scores) * fmin(T("S", read_bytes), scores * e);
        std_step(&q, "GEMM S = Q K^T", mm1, g, b1, 0);
        std_step(&q, "softmax", 0, g, b2, scores);
        std_step(&q, "GEMM O = P V", mm2, g, b3, 0);
    } else {
        double mm = (double)c->flops_matmul;
        std_step(&q, "GEMMs (dV, dP, dQ, dK)", mm, g, 0, 0);
        std_step(&q, "memory-bound kernels (P, dP, dS through DRAM)", 0, g, bytes, 0);
        pt->launch += 3 * hw->launch_s; /* five kernels in all */
        pt->d.launches += 3;
    }
#undef T
    pt->time = pt->makespan + pt->launch;
    pt->d.launch = pt->launch, pt->d.time = pt->time; /* the pass's launches, as explain prints them */
    return FA_OK;
}

fa_status fa_io_run_placed(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M,
                           const fa_hw *hw, const fa_profile *prof, int threads, FILE *trace,
                           fa_io_result *r)
{
    const char *regs = NULL;
    if (prof && prof->tiles) regs = p == FA_PASS_BWD ? prof->regs_bwd : prof->regs_fwd;
    if (!regs || !*regs || !hw || !hw->regs_per_thread) return fa_io_run_regs(p, a, s, bk, splits, M, hw, NULL, 0, trace, r);
    /* the register arena: what the block's threads may hold (beyond it a kernel spills) */
    size_t cap = (size_t)(threads - 32 * prof->producer_warps) * (size_t)hw->regs_per_thread * 4;
    return fa_io_run_regs(p, a, s, bk, splits, M, hw, regs, cap, trace, r);
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* One K,V head's group (shape g) counted for the time model.  Under a causal mask alone, at N far
 * beyond the tiles, the count is not run over every row block: growing N_q and N_k together by
 * L = lcm(B_r, B_c) inserts one more period of the diagonal's pattern between the top rows and the
 * bottom-right corner, which are unchanged, and the period's rows visit L / B_c more FULL tiles
 * each, all alike, so the softmax FLOPs are a quadratic in the number of periods t (their second
 * difference the FULL tiles' FLOPs added).  They are counted at four sizes N - t L ... N - (t - 3) L
 * well past the edges, the quadratic through the first three checked on the fourth (and the peaks
 * equal on all four), and evaluated at t; a shape where the check fails is run whole.  Split-KV
 * (its chunks follow T_c) and every other mask are run whole. */
static fa_status group_run(fa_pass kp, const fa_profile *prof, const fa_shape *g, fa_blocks bk, int64_t splits,
                           const fa_hw *hw, int threads, fa_io_result *out, int64_t *periods)
{
    *periods = 0;
    const int64_t L = bk.block_r / gcd64(bk.block_r, bk.block_c) * bk.block_c;
    const int64_t off = g->seqlen_k > g->seqlen_q ? g->seqlen_k - g->seqlen_q : g->seqlen_q - g->seqlen_k;
    const int64_t base = 8 * L + off, n = g->seqlen_q < g->seqlen_k ? g->seqlen_q : g->seqlen_k;
    if (g->causal == FA_CAUSAL_NONE || splits != 1 || n < base + 8 * L)
        return fa_io_run_placed(kp, prof->algo, g, bk, splits, hw->sram_per_block, hw, prof, threads, NULL, out);
    const int64_t t = (n - base) / L; /* periods taken off N for the smallest of the four counts */
    fa_io_result r[4];
    for (int k = 0; k < 4; k++) {
        fa_shape a = *g;
        a.seqlen_q -= (t - k) * L;
        a.seqlen_k -= (t - k) * L;
        if (fa_io_run_placed(kp, prof->algo, &a, bk, splits, hw->sram_per_block, hw, prof, threads, NULL, &r[k])) {
            fa_clear_error(); /* whatever a smaller N refuses, the shape itself answers for */
            return fa_io_run_placed(kp, prof->algo, g, bk, splits, hw->sram_per_block, hw, prof, threads, NULL, out);
        }
    }
    const int64_t y0 = (int64_t)r[0].counts.flops_other, y1 = (int64_t)r[1].counts.flops_other,
                  y2 = (int64_t)r[2].counts.flops_other, y3 = (int64_t)r[3].counts.flops_other;
    const int64_t d1 = y1 - y0, d2 = y2 - 2 * y1 + y0;
    int same = y3 == y0 + 3 * d1 + 3 * d2;
    for (int k = 1; k < 4; k++)
        same = same && r[k].counts.sram_peak_bytes == r[0].counts.sram_peak_bytes &&
               r[k].counts.reg_peak_bytes == r[0].counts.reg_peak_bytes;
    __int128 y = (__int128)y0 + (__int128)t * d1 + (__int128)t * (t - 1) / 2 * d2;
    /* not the quadratic, or beyond 64 bits: count the shape whole (which fails as it always did,
     * naming the first total that overflows) */
    if (!same || y < 0 || y > (__int128)UINT64_MAX)
        return fa_io_run_placed(kp, prof->algo, g, bk, splits, hw->sram_per_block, hw, prof, threads, NULL, out);
    *out = r[0];
    out->counts.flops_other = (uint64_t)y;
    *periods = t;
    return FA_OK;
}

/* The softmax FLOPs of shape t counted as pass_counts_of counts them (one K,V head's group,
 * group_run, times B H_kv) fit 64 bits: the test fa_ovf_limit bisects on for an overflow of them,
 * or of the group's own counts.  The group (B = 1) does not change with B: its count is kept for
 * the last N asked. */
typedef struct {
    fa_pass kp;
    const fa_profile *prof;
    fa_blocks bk;
    int64_t splits;
    const fa_hw *hw;
    int threads;
    int64_t nq, nk; /* the group counted last (0: none) */
    fa_status st;
    uint64_t flops;
} softmax_ctx;

static int softmax_fits(const fa_shape *t, const void *ctx)
{
    softmax_ctx *c = (softmax_ctx *)ctx;
    if (c->nq != t->seqlen_q || c->nk != t->seqlen_k) {
        fa_shape g = *t;
        g.batch = g.kv_heads = 1;
        g.heads = t->kv_heads > 0 ? t->heads / t->kv_heads : 1;
        fa_io_result r;
        int64_t periods;
        c->st = group_run(c->kp, c->prof, &g, c->bk, c->splits, c->hw, c->threads, &r, &periods);
        c->flops = r.counts.flops_other;
        c->nq = t->seqlen_q;
        c->nk = t->seqlen_k;
        fa_clear_error();
    }
    if (c->st == FA_EOVERFLOW) return 0;
    if (c->st != FA_OK) return 1; /* refused for another reason: not this limit's to say */
    const uint64_t heads = (uint64_t)t->batch * (uint64_t)(t->kv_heads > 0 ? t->kv_heads : 1);
    return c->flops <= UINT64_MAX / heads;
}

/* An overflow of the softmax FLOPs, or in the count of one K,V head's group (the shape c of
 * pass_counts_of: B = 1, H = H / H_kv; its message what, "COUNT ... for B = ..." or without the
 * shape), told with the whole shape s, the sizes the user gave, and the largest N (or B) that fits
 * there (fa_ovf_limit), as io's closed-form messages do.  The closed form, checked before, fits. */
static fa_status softmax_failure(const char *what, fa_pass kp, const fa_profile *prof, const fa_shape *s,
                                 fa_blocks bk, int64_t splits, const fa_hw *hw, int threads)
{
    char w[512], lim[320];
    snprintf(w, sizeof w, "%s", what);
    char *shape = strstr(w, " for B = ");
    if (shape) *shape = 0;
    softmax_ctx c = {kp, prof, bk, splits, hw, threads, 0, 0, FA_OK, 0};
    fa_ovf_limit(s, softmax_fits, &c, lim, sizeof lim);
    FA_FAIL(FA_EOVERFLOW, "%s for " FA_OVF_DIMS "%s", w, FA_OVF_ARGS(s),
            lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

/* The counts of one kernel's pass with the profile's placement.  Without masks beyond causal
 * and without score modifiers the closed form (analysis/formula*.c, equal to the counts:
 * tests/test_formula.c, test_backward.c) gives the bytes and matmul FLOPs at once, and a
 * count-only run of one K,V head's query heads over the whole N gives the placement's peaks and
 * the softmax FLOPs (times B H_kv: tests/test_perf.c checks them against the whole run); otherwise the whole
 * count-only run. */
static fa_status pass_counts_of(fa_pass kp, const fa_profile *prof, const fa_shape *s, fa_blocks bk, int64_t splits,
                                const fa_hw *hw, int threads, int counted, fa_io_result *io, int *run,
                                int64_t *periods)
{
    *periods = 0;
    const int plain = !counted && !s->window && !s->block_mask && !s->col_mask && !s->dense_mask && !(s->dropout_p > 0) &&
                      !(s->softcap > 0) && !s->alibi;
    *run = 1;
    if (!plain || (s->seqlen_q <= 2 * bk.block_r && s->seqlen_k <= 2 * bk.block_c && s->batch * s->heads <= 1))
        return fa_io_run_placed(kp, prof->algo, s, bk, splits, hw->sram_per_block, hw, prof, threads, NULL, io);
    *run = 0;
    /* the closed form first: of the whole shape's totals it overflows first (its matmul FLOPs or
     * bytes before the softmax FLOPs), and says so with the largest N that fits, as io does */
    fa_pass_formula form;
    FA_TRY(fa_formula_pass_bytes(kp, prof->algo, s, bk, splits, &form));
    /* one K,V head's group of query heads over the whole N: its softmax FLOPs (scale, max, exp,
     * sum, rescale, the backward's sums over the group; the closed form has only the matmuls)
     * times B H_kv are the shape's, as the whole run counts them (every group does the same work:
     * no ALiBi or masks here), and its peaks are the shape's */
    fa_shape c = *s;
    c.batch = c.kv_heads = 1;
    c.heads = s->kv_heads > 0 ? s->heads / s->kv_heads : 1;
    fa_io_result small;
    fa_status st = group_run(kp, prof, &c, bk, splits, hw, threads, &small, periods);
    if (st == FA_EOVERFLOW) return softmax_failure(fa_last_error(), kp, prof, s, bk, splits, hw, threads);
    if (st != FA_OK) return st;
    const uint64_t heads = (uint64_t)s->batch * (uint64_t)(s->kv_heads > 0 ? s->kv_heads : 1);
    if (small.counts.flops_other > UINT64_MAX / heads)
        return softmax_failure("softmax FLOPs exceed 64 bits", kp, prof, s, bk, splits, hw, threads);
    memset(io, 0, sizeof *io);
    io->pass = kp;
    io->algo = prof->algo;
    io->blocks = bk;
    io->sram_bytes = hw->sram_per_block;
    io->splits = (int)splits;
    io->formula = form;
    FA_TRY(fa_hbm_footprint(prof->algo, s, &io->footprint));
    if (kp != FA_PASS_BWD) FA_TRY(fa_footprint_split(&io->footprint, s, splits));
    fa_counts *k = &io->counts;
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        if (!io->formula.read[t] && !io->formula.write[t]) continue;
        fa_tensor_count *x = &k->tensor[k->n_tensors++];
        snprintf(x->name, FA_NAME_LEN, "%s", fa_pass_tensor_names[t]);
        x->read_bytes = io->formula.read[t];
        x->write_bytes = io->formula.write[t];
    }
    k->hbm_read_bytes = io->formula.read_bytes;
    k->hbm_write_bytes = io->formula.write_bytes;
    k->flops_matmul = io->formula.matmul_flops;
    k->flops_other = small.counts.flops_other * heads;
    k->sram_peak_bytes = small.counts.sram_peak_bytes;
    k->reg_peak_bytes = small.counts.reg_peak_bytes;
    io->sram_need = fa_sram_need_pass(kp, prof->algo, s, bk);
    io->bound_bytes = fa_bound_pass_bytes(kp, prof->algo, s, hw->sram_per_block);
    double f = 2.0 * (double)s->batch * (double)s->heads * (double)s->seqlen_q * (double)s->seqlen_k *
               (double)(s->d + s->d_v);
    if (s->causal != FA_CAUSAL_NONE) f /= 2;
    io->nominal_flops = f * (kp == FA_PASS_FWD ? 1.0 : 2.5);
    uint64_t bytes = fa_counts_hbm_bytes(k);
    io->intensity = bytes ? (double)(k->flops_matmul + k->flops_other) / (double)bytes : 0;
    fa_io_times(io, s, hw);
    return FA_OK;
}

/* Adds bytes to tensor `name` of counts c (a new entry when it has none) and to c's totals. */
static fa_status counts_add(fa_counts *c, const char *name, uint64_t read, uint64_t loads)
{
    int t = fa_counts_find(c, name);
    if (t < 0) {
        if (c->n_tensors >= FA_MAX_TENSORS) FA_FAIL(FA_EINVAL, "more than %d tensors counted", FA_MAX_TENSORS);
        t = c->n_tensors++;
        memset(&c->tensor[t], 0, sizeof c->tensor[t]);
        snprintf(c->tensor[t].name, FA_NAME_LEN, "%s", name);
    }
    c->tensor[t].read_bytes += read;
    c->tensor[t].loads += loads;
    c->hbm_read_bytes += read;
    return FA_OK;
}

/* The kernel's HBM formats (fa_profile o_bytes, scale_rows; docs/io-model.md, "An FP8 forward
 * kernel") laid on the counts of fasim's algorithm, whose tensors are all in the dtype: O's
 * stores at o_bytes an element, and one int32 scale exponent of Q, K and V read with every tile of
 * them loaded (tiles that divide scale_rows: one block each), Q_scale, K_scale and V_scale.  The
 * loads are the memory model's where it ran (run: counts from a count-only run), else the closed
 * form's (fa_formula_flash2_loads), which io->formula takes in both cases: in a run, =formula
 * checks the one against the other.  Forward, flash2 only (the profiles with formats). */
static fa_status kernel_format(const fa_profile *p, fa_pass kp, const fa_shape *s, fa_blocks bk, int run,
                               fa_io_result *io)
{
    if (!p->o_bytes && !p->scale_rows) return FA_OK;
    if (kp != FA_PASS_FWD || p->algo != FA_ALGO_FLASH2)
        FA_FAIL(FA_EINVAL, "profile %s: its HBM formats are those of a flash2 forward kernel", p->key);
    fa_counts *c = &io->counts;
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    if (p->o_bytes > 0 && (uint64_t)p->o_bytes != e) { /* O written at o_bytes an element */
        const int t = fa_counts_find(c, "O"), f = 3; /* fa_pass_tensor_names[3] = "O" */
        if (t >= 0) {
            const uint64_t w = c->tensor[t].write_bytes / e * (uint64_t)p->o_bytes;
            c->hbm_write_bytes += w - c->tensor[t].write_bytes;
            c->tensor[t].write_bytes = w;
        }
        const uint64_t wf = io->formula.write[f] / e * (uint64_t)p->o_bytes;
        io->formula.write_bytes += wf - io->formula.write[f];
        io->formula.write[f] = wf;
    }
    if (p->scale_rows > 0) {
        const int64_t S = p->scale_rows;
        const int64_t tr = fa_cdiv(s->seqlen_q, bk.block_r), tc = fa_cdiv(s->seqlen_k, bk.block_c);
        /* a tile of B rows starting at a multiple of B lies in one scale block when B divides S, or
         * when it is the only tile and the sequence fits one block */
        const int q_one = S % bk.block_r == 0 || (tr == 1 && s->seqlen_q <= S);
        const int k_one = S % bk.block_c == 0 || (tc == 1 && s->seqlen_k <= S);
        if (!q_one || !k_one)
            FA_FAIL(FA_EINVAL, "profile %s reads one scale exponent of Q, K and V per %d rows with each tile: its tiles "
                    "must divide %d rows, not B_r x B_c = %" PRId64 " x %" PRId64, p->key, p->scale_rows, p->scale_rows,
                    bk.block_r, bk.block_c);
        uint64_t ql, kvl;
        FA_TRY(fa_formula_flash2_loads(s, bk, &ql, &kvl));
        uint64_t lq = ql, lk = kvl, lv = kvl;
        if (run) { /* the memory model's tile loads */
            const int tq = fa_counts_find(c, "Q"), tk = fa_counts_find(c, "K"), tv = fa_counts_find(c, "V");
            lq = tq >= 0 ? c->tensor[tq].loads : 0;
            lk = tk >= 0 ? c->tensor[tk].loads : 0;
            lv = tv >= 0 ? c->tensor[tv].loads : 0;
        }
        FA_TRY(counts_add(c, "Q_scale", 4 * lq, lq));
        FA_TRY(counts_add(c, "K_scale", 4 * lk, lk));
        FA_TRY(counts_add(c, "V_scale", 4 * lv, lv));
        io->formula.read_bytes += 4 * (ql + 2 * kvl);
    }
    const uint64_t bytes = fa_counts_hbm_bytes(c);
    io->intensity = bytes ? (double)(c->flops_matmul + c->flops_other) / (double)bytes : 0;
    return FA_OK;
}

static fa_status pass_counts(fa_pass kp, const fa_profile *prof, const fa_shape *s, fa_blocks bk, int64_t splits,
                             const fa_hw *hw, int threads, int counted, fa_io_result *io, int64_t *periods)
{
    int run;
    FA_TRY(pass_counts_of(kp, prof, s, bk, splits, hw, threads, counted, io, &run, periods));
    FA_TRY(kernel_format(prof, kp, s, bk, run, io));
    fa_io_times(io, s, hw);
    return FA_OK;
}

static fa_status place(const fa_profile *p, int bwd, const fa_shape *s, const fa_hw *hw, fa_blocks bk,
                       int warps, int compiled_regs, const fa_counts *c, fa_occupancy *o)
{
    const int64_t e = fa_dtype_bytes(s->dtype);
    o->blocks = bk;
    o->warps = warps;
    o->threads = warps * 32;
    o->reg_bytes = c->reg_peak_bytes;
    o->producer_warps = p->producer_warps;
    o->producer_regs = p->producer_regs;
    const int consumers = (warps - p->producer_warps) * 32; /* the threads that hold the buffers */
    uint64_t smem = c->sram_peak_bytes;
    if (p->stages > 1) /* more tile buffers than the algorithm allocates: K_j, V_j (fwd); Q_i, dO_i (bwd) */
        smem += (uint64_t)(p->stages - 1) *
                (uint64_t)(bwd ? bk.block_r * (s->d + s->d_v) * e : bk.block_c * (s->d + s->d_v) * e);
    if (!bwd && p->fp8_vt_smem && e == 1) /* V_j^T beside V_j, each stage (FlashAttention-3's Transpose_V) */
        smem += (uint64_t)(p->stages > 1 ? p->stages : 1) * (uint64_t)(bk.block_c * s->d_v * e);
    if (bwd && p->smem_copies_bwd) smem += (uint64_t)(2 * bk.block_r * bk.block_c * e);
    if (bwd && p->ds_smem_bwd > 0) smem += (uint64_t)p->ds_smem_bwd * (uint64_t)(bk.block_r * bk.block_c * e);
    if (bwd && p->dq_smem_bwd) smem += (uint64_t)(4 * bk.block_r * s->d);
    if (bwd && p->stat_copies_bwd > 1) /* L_i, D_i: the arena holds one copy of each */
        smem += (uint64_t)(p->stat_copies_bwd - 1) * (uint64_t)(2 * 4 * bk.block_r);
    o->smem_bytes = smem;
    int regs = (int)((o->reg_bytes + 4 * (uint64_t)consumers - 1) / (4 * (uint64_t)consumers)) + p->base_regs;
    regs = (regs + 7) / 8 * 8; /* the estimate as allocated: 8 a thread (fa_occupancy_compute rounds each warp's) */
    if (compiled_regs > 0) regs = compiled_regs; /* as the compiler allocated them (the tile row), printed as is */
    o->spill_regs = 0;
    if (regs > hw->regs_per_thread) o->spill_regs = regs - hw->regs_per_thread, regs = hw->regs_per_thread;
    o->regs_per_thread = regs;
    return fa_occupancy_compute(hw, o);
}

static fa_status predict(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw,
                         const fa_blocks *bk_in, int counted, fa_perf_result *r);

int fa_split_kv_heuristic(const fa_profile *prof, const fa_shape *s, int sms, fa_blocks *bk)
{
    if (!prof->split_kv || prof->algo != FA_ALGO_FLASH2) return 1;
    const int64_t block_n = s->d <= 64 ? 256 : s->d <= 128 ? 128 : 64;
    const int64_t m_blocks = fa_cdiv(s->seqlen_q, 64), n_blocks = fa_cdiv(s->seqlen_k, block_n);
    const double work = (double)(s->batch * s->heads) * (double)m_blocks, slots = 2.0 * sms;
    if (work >= 0.8 * slots) return 1; /* enough blocks to (almost) fill the GPU */
    int64_t max_splits = 128;
    if (max_splits > 2 * sms) max_splits = 2 * sms;
    if (max_splits > n_blocks) max_splits = n_blocks;
    double eff[129] = {0}, best = 0;
    for (int64_t q = 1; q <= max_splits; q++) {
        /* a count whose blocks per split equal the previous count's is that count again */
        if (q > 1 && fa_cdiv(n_blocks, q) == fa_cdiv(n_blocks, q - 1)) continue;
        double waves = work * (double)q / slots;
        eff[q] = waves / ceil(waves);
        if (eff[q] > best) best = eff[q];
    }
    for (int64_t q = 1; q <= max_splits; q++) {
        if (eff[q] > 0 && eff[q] >= 0.85 * best) {
            if (q > 1) {
                bk->block_r = 64; /* kBlockM = 64 for every head dim, whatever N_q (see above) */
                bk->block_c = block_n;
            }
            return (int)q;
        }
    }
    return 1;
}

fa_status fa_perf_predict(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw,
                          const fa_blocks *bk_in, fa_perf_result *r)
{
    return predict(prof, p, s, hw, bk_in, 0, r);
}

fa_status fa_perf_predict_counted(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw,
                                  const fa_blocks *bk_in, fa_perf_result *r)
{
    return predict(prof, p, s, hw, bk_in, 1, r);
}

int fa_profile_ngroups_swap(const fa_profile *p, const fa_shape *s, fa_shape *out)
{
    if (!p->ngroups_swap || s->seqlen_q != 1 || s->kv_heads <= 0 || s->heads <= s->kv_heads || s->window ||
        s->dropout_p > 0 || s->d % 8 || s->alibi || s->causal == FA_CAUSAL_TOP_LEFT || s->block_mask ||
        s->col_mask || s->dense_mask)
        return 0;
    *out = *s;
    out->seqlen_q = s->heads / s->kv_heads;
    out->heads = s->kv_heads;
    out->causal = FA_CAUSAL_NONE;
    return 1;
}

static fa_status predict(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw,
                         const fa_blocks *bk_in, int counted, fa_perf_result *r)
{
    memset(r, 0, sizeof *r);
    r->profile = prof;
    r->pass = p;
    r->splits = 1;
    if (prof->mma == FA_MMA_NONE)
        FA_FAIL(FA_EINVAL, "profile %s is the paper's abstract model (one SRAM of M): it has no kernel to "
                "time; give a kernel profile (--profile fa2, fa1, fa3, cudnn, math, v0 ... v4)", prof->key);
    FA_TRY(fa_profile_check_arch(prof, hw->arch)); /* with or without explicit tiles */
    FA_TRY(fa_profile_check_shape(prof, s));
    /* the time model needs the pipes: without them only the counts and occupancy are filled */
    double rate = 0;
    char no_rate[160] = "";
    FA_TRY(tensor_rate(prof, s, hw, &rate, no_rate, sizeof no_rate));
    const struct { double v; const char *key; int flash_only; } keys[] = {
        {rate, NULL, 0}, {hw->exp_per_s, "exp_per_s", 0}, {hw->fma_flops, "fma_flops", 0},
        {hw->dram_bandwidth, "dram_bytes_per_s", 0}, {hw->launch_s, "launch_s", 0},
        {hw->smem_bandwidth, "smem_bytes_per_s", 1}, {hw->l2_bandwidth, "l2_bytes_per_s", 1},
        {hw->dram_latency_s, "dram_latency_s", 1}, {hw->regs_per_sm, "regs_per_sm", 1},
        {hw->regs_per_thread, "regs_per_thread", 1}, {hw->threads_per_sm, "threads_per_sm", 1},
        {hw->blocks_per_sm, "blocks_per_sm", 1}};
    r->has_time = 1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && r->has_time; i++) {
        if (keys[i].flash_only && prof->algo == FA_ALGO_STANDARD) continue;
        if (keys[i].v > 0) continue;
        r->has_time = 0;
        if (keys[i].key) snprintf(r->why, sizeof r->why, "hardware profile %s has no %s", hw->key, keys[i].key);
        else snprintf(r->why, sizeof r->why, "%s", no_rate);
    }
    const int has_occ = hw->regs_per_sm > 0 && hw->regs_per_thread > 0 && hw->threads_per_sm > 0 &&
                        hw->blocks_per_sm > 0;
    double total = 0, launch = 0, mk = 0, fluid = 0;
    for (int k = 0; k < 2; k++) {
        int bwd = k == 1;
        if ((p == FA_PASS_FWD && bwd) || (p == FA_PASS_BWD && !bwd)) continue;
        fa_pass kp = bwd ? FA_PASS_BWD : FA_PASS_FWD;
        fa_shape swapped; /* the shape this pass's kernel runs: FlashAttention-2's decoding with GQA */
        const fa_shape *ks = s;
        if (!bwd && fa_profile_ngroups_swap(prof, s, &swapped)) ks = &swapped, r->ngroups_swapped = 1;
        fa_blocks bk;
        static const fa_tile_row none = {FA_PASS_FWD, 0, 0, -1, 0, 0, 4, 0, 0, 0, 0, 0, NULL};
        const fa_tile_row *row = &none;
        fa_tile_row local_row; /* a row changed for these tiles (no static: fa_perf_predict is reentrant) */
        if (bk_in && (prof->mma == FA_MMA_SYNC || prof->mma == FA_MMA_WGMMA || prof->mma == FA_MMA_TCGEN05) &&
            (bk_in->block_r % 16 || bk_in->block_c % 16))
            FA_FAIL(FA_EINVAL, "profile %s runs tensor-core tiles of multiples of 16 rows and keys, not B_r x B_c = %lld x "
                    "%lld (--profile paper counts any tiles)", prof->key, (long long)bk_in->block_r,
                    (long long)bk_in->block_c);
        if (bk_in) { /* the given tiles with the profile's warps (4 when its table has no row); the
                        registers are derived from the placement of these tiles */
            fa_blocks table;
            bk = *bk_in;
            if (prof->tiles && prof->d_min > 0) /* a kernel built for one head dim: no other d, whatever the tiles */
                FA_TRY(fa_profile_tiles(prof, kp, hw->arch, ks, &table, &row));
            if (!prof->tiles || fa_profile_tiles(prof, kp, hw->arch, ks, &table, &row)) row = &none, fa_clear_error();
            if (row->block_r != bk.block_r || row->block_c != bk.block_c) {
                local_row = *row;
                local_row.regs = 0;
                row = &local_row;
            }
        } else {
            FA_TRY(fa_profile_tiles(prof, kp, hw->arch, ks, &bk, &row));
        }
        int splits = 1;
        if (!bk_in && !bwd && prof->split_kv && !(ks->dropout_p > 0) && hw->sms > 0) {
            splits = fa_split_kv_heuristic(prof, ks, hw->sms, &bk);
            if (splits > 1) { /* the split kernel's tiles; its registers from the placement */
                local_row = *row;
                local_row.block_r = (int)bk.block_r, local_row.block_c = (int)bk.block_c;
                local_row.warps = 4, local_row.regs = 0;
                row = &local_row;
            }
        }
        if (!bwd) r->splits = splits; /* the forward's (fwdbwd: the backward never splits) */
        const int warps = row->warps;
        fa_io_result io;
        FA_TRY(pass_counts(kp, prof, ks, bk, bwd ? 1 : splits, hw, warps * 32, counted, &io, &r->count_periods[k]));
        pass_time pt;
        memset(&pt, 0, sizeof pt);
        r->occ[k].blocks = bk;
        r->occ[k].warps = warps;
        if (prof->algo == FA_ALGO_STANDARD) {
            if (r->has_time) FA_TRY(time_standard(prof, bwd, ks, hw, &io.counts, &pt, r->steps[k], &r->nsteps[k]));
        } else {
            if (has_occ) FA_TRY(place(prof, bwd, ks, hw, bk, warps, row->regs, &io.counts, &r->occ[k]));
            if (r->has_time && has_occ) FA_TRY(time_flash(prof, bwd, ks, hw, bk, bwd ? 1 : splits, &r->occ[k], &io.counts, &pt));
        }
        if (k == 0 || p == FA_PASS_BWD) r->io = io;
        else fa_io_result_add(&r->io, &io); /* fwdbwd: the backward's counts beside the forward's */
        r->k[k] = pt.d;
        r->ctas[k] = pt.ctas;
        r->waves[k] = pt.waves;
        r->dram_bytes += pt.dram;
        r->compulsory_bytes += pt.comp;
        for (int q = 0; q < FA_NPIPE; q++) r->busy[q] += pt.busy[q];
        total += pt.time;
        launch += pt.launch;
        mk += pt.makespan;
        fluid += pt.ctas ? pt.fluid : pt.makespan;
    }
    if (prof->v_prepass && p != FA_PASS_BWD) { /* V -> V^T, a kernel of its own (fa_perf_result) */
        uint64_t n = 1;
        FA_TRY(fa_u64_mul(n, (uint64_t)s->batch, &n, "pre-pass bytes"));
        FA_TRY(fa_u64_mul(n, (uint64_t)s->kv_heads, &n, "pre-pass bytes"));
        FA_TRY(fa_u64_mul(n, (uint64_t)s->seqlen_k, &n, "pre-pass bytes"));
        FA_TRY(fa_u64_mul(n, (uint64_t)s->d_v, &n, "pre-pass bytes"));
        FA_TRY(fa_u64_mul(n, (uint64_t)fa_dtype_bytes(s->dtype), &n, "pre-pass bytes"));
        r->prepass_read_bytes = r->prepass_write_bytes = n;
        /* a copy's bytes at the copy's measured rate (dram_bytes_per_s: read + written), one launch */
        if (r->has_time) r->prepass_s = 2.0 * (double)n / hw->dram_bandwidth + hw->launch_s;
    }
    r->io.pass = p;
    fa_io_times(&r->io, s, hw); /* the roofline of the summed counts, beside the model */
    /* the pipes the model charges: std_step charges the GEMMs' pipe, exp and DRAM only */
    r->pipes = prof->algo == FA_ALGO_STANDARD
                   ? (1u << std_gemm_pipe(prof, s)) | (1u << FA_PIPE_EXP) | (1u << FA_PIPE_DRAM)
                   : (1u << FA_NPIPE) - 1;
    r->has_time = r->has_time && (prof->algo == FA_ALGO_STANDARD || has_occ);
    r->time_s = total;
    r->launch_s = launch;
    r->makespan_s = mk;
    int b = 0;
    for (int q = 1; q < FA_NPIPE; q++)
        if (r->busy[q] > r->busy[b]) b = q;
    r->bound = (fa_pipe)b;
    r->sets = fa_pipe_name(r->bound); /* standard attention: its busiest pipe */
    if (prof->algo != FA_ALGO_STANDARD) { /* the kernel of the longer time (fwdbwd: of the two) */
        const int k = p == FA_PASS_BWD || (p == FA_PASS_FWDBWD && r->k[1].time > r->k[0].time);
        if (r->k[k].sets) r->sets = r->k[k].sets;
    }
    r->tail = r->makespan_s > 1.1 * fluid;
    /* TFLOP/s by the FlashAttention-2 convention where it holds (no mask, or causal with N_q = N_k:
     * nominal FLOPs); with other masks the matmul FLOPs of the tiles FlashAttention-2 visits at
     * these tiles (the nominal count ignores what a window or an offset diagonal skips).  Standard
     * attention computes every tile whatever the mask: its own count would make a window raise its
     * TFLOP/s, so its work is the same FlashAttention-2 count (the useful work of the shape). */
    const int plain = !s->window && !s->block_mask && !s->col_mask && !s->dense_mask &&
                      (s->causal == FA_CAUSAL_NONE || s->seqlen_q == s->seqlen_k);
    double work = plain ? r->io.nominal_flops : (double)r->io.counts.flops_matmul;
    if (!plain && prof->algo == FA_ALGO_STANDARD) {
        fa_io_result f2;
        if (fa_io_run(p, FA_ALGO_FLASH2, s, r->io.blocks, UINT64_MAX, NULL, NULL, &f2) == FA_OK)
            work = (double)f2.counts.flops_matmul;
        else fa_clear_error();
    }
    r->tflops = r->time_s > 0 ? work / r->time_s / 1e12 : 0;
    /* not a pipe: the launches take half the time, or a grid smaller than one wave leaves SMs idle
     * (the pipes' busy times are averages over every SM) */
    r->latency = 0;
    if (r->launch_s >= 0.5 * r->time_s) r->latency = 1;
    else if (r->time_s > 2 * r->busy[b] && ((p != FA_PASS_BWD && r->waves[0] > 0 && r->waves[0] < 1) ||
                                            (p != FA_PASS_FWD && r->waves[1] > 0 && r->waves[1] < 1)))
        r->latency = 2;
    return FA_OK;
}

void fa_perf_to_io(const fa_perf_result *pr, fa_io_result *r)
{
    snprintf(r->profile, sizeof r->profile, "%s", pr->profile->key);
    r->has_perf = pr->has_time;
    r->blocks_bwd = pr->occ[1].blocks;
    r->perf_time_s = pr->time_s;
    r->perf_bound = (int)pr->bound;
    r->perf_sets = pr->sets;
    r->perf_tail = pr->tail;
    for (int q = 0; q < FA_NPIPE; q++) r->perf_busy[q] = pr->busy[q];
    r->perf_tflops = pr->tflops;
    r->perf_pipes = pr->pipes;
    r->perf_latency = pr->latency;
    r->splits = pr->splits;
    r->ngroups_swapped = pr->ngroups_swapped;
    snprintf(r->perf_note, sizeof r->perf_note, "%s", pr->has_time ? "" : pr->why);
    r->dram_est_bytes = pr->dram_bytes;
    r->dram_comp_bytes = pr->compulsory_bytes;
    r->layout_copy_bytes = (uint64_t)pr->k[1].copies_bytes;
    r->prepass_read_bytes = pr->prepass_read_bytes;
    r->prepass_write_bytes = pr->prepass_write_bytes;
    r->prepass_time_s = pr->prepass_s;
    for (int k = 0; k < 2; k++) {
        r->occupancy[k] = pr->occ[k].occupancy;
        r->blocks_run[k] = pr->k[k].blocks_per_sm;
        r->regs_per_thread[k] = pr->occ[k].regs_per_thread;
        r->smem_per_block[k] = pr->occ[k].smem_bytes;
        r->warps[k] = pr->occ[k].warps;
        r->occ_limit[k] = pr->occ[k].limit;
    }
}
