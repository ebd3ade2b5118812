/* formula_decode.c -- closed forms of the inference kernels (cpu_ref/fa_infer.h): per thread
 * block of the main kernel and per row of the combine, summed; the wave time model; tile fit;
 * the best split count.  Derivations and worked numbers: docs/inference.md.  Nothing here runs a
 * kernel (the count-only run, fa_infer_io_run, is in io.c, which calls this file, never the
 * reverse), so tests can prove counted == closed form. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fa_analysis.h"

__extension__ typedef unsigned __int128 u128;

enum { IQ, IK, IV, IO, IL, IOP, ILP, IBT };
const char *const fa_infer_tensor_names[FA_INFER_TENSORS] = {
    "Q", "K", "V", "O", "LSE", "O_part", "LSE_part", "block_table"};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

typedef struct {
    u128 r[FA_INFER_TENSORS], w[FA_INFER_TENSORS], mm, oth;
    u128 programs, cprograms;
    uint64_t pbytes_max;
    double ptime_max, ctime;
} acc;

/* Time of one thread block that owns 1/sms of the machine (docs/inference.md, "wave model"): its
 * share of the sustained DRAM rate (dram_bytes_per_s, the rate the time model charges everywhere;
 * the datasheet's hbm_bandwidth when the profile gives none) and of the peaks. */
static double prog_time(const fa_hw *hw, const fa_shape *s, double bytes, double mm, double oth)
{
    if (!hw) return 0;
    double sms = hw->sms > 0 ? hw->sms : 1;
    double mm_peak = s->dtype == FA_DTYPE_FP32 ? hw->peak_fp32 : hw->peak_fp16;
    double bw = hw->dram_bandwidth > 0 ? hw->dram_bandwidth : hw->hbm_bandwidth;
    double tm = bytes * sms / bw, tc = (mm / mm_peak + oth / hw->peak_fp32) * sms;
    return tm > tc ? tm : tc;
}

/* Adds one sequence of N_q query rows and N_k keys, weighted by `copies` identical sequences. */
static void add_seq(acc *A, const fa_shape *s, fa_blocks bk, const fa_infer_opts *o, int64_t Nq,
                    int64_t Nk, u128 copies, const fa_hw *hw)
{
    if (Nq == 0) return;
    const u128 d = (u128)s->d, dv = (u128)s->d_v, e = (u128)fa_dtype_bytes(s->dtype);
    const int64_t g = s->heads / s->kv_heads, hp = o->pack_gqa ? g : 1, G = s->heads / hp;
    const int64_t Br = bk.block_r, Bc = bk.block_c, S = o->splits, P = o->page_size;
    const int64_t R = hp * Nq, T_r = fa_cdiv(R, Br), T_c = fa_cdiv(Nk, Bc), chunk = fa_cdiv(T_c, S);
    const u128 w = copies * (u128)G; /* identical head groups */
    fa_shape sh = *s;
    sh.batch = 1;
    sh.seqlen_q = Nq;
    sh.seqlen_k = Nk;
    for (int64_t i = 0; i < T_r; i++) {
        const int64_t p0 = i * Br, rows = min64(Br, R - p0);
        const int64_t imin = p0 / hp, imax = (p0 + rows - 1) / hp;
        int64_t nv = 0, nf = 0;
        if (Nk > 0) fa_kv_tiles(&sh, imin, imax - imin + 1, Bc, &nv, &nf);
        for (int64_t sp = 0; sp < S; sp++) {
            const int64_t lo = min64(sp * chunk, T_c), hi = min64(T_c, lo + chunk);
            const int64_t hie = min64(hi, nv), v = hie > lo ? hie - lo : 0;
            const u128 keys = v ? (u128)(min64(Nk, hie * Bc) - lo * Bc) : 0, r = (u128)rows;
            u128 q = v ? r * d * e : 0, bt = 0;
            if (P > 0 && v) {
                int tail = hie == T_c;
                u128 full = (u128)(v - tail);
                bt = 4 * (full * (u128)fa_cdiv(Bc, P) + (tail ? (u128)fa_cdiv(Nk - (T_c - 1) * Bc, P) : 0));
            }
            u128 mm = 2 * r * keys * (d + dv);
            u128 oth = 5 * r * keys + (u128)v * r * (5 + dv) + r * (dv + 2);
            u128 wo = S == 1 ? r * dv * e : r * dv * 4, wl = r * 4;
            A->r[IQ] += w * q;
            A->r[IK] += w * keys * d * e;
            A->r[IV] += w * keys * dv * e;
            A->r[IBT] += w * bt;
            A->w[S == 1 ? IO : IOP] += w * wo;
            A->w[S == 1 ? IL : ILP] += w * wl;
            A->mm += w * mm;
            A->oth += w * oth;
            A->programs += w;
            u128 pb = q + keys * (d + dv) * e + bt + wo + wl;
            if (pb > A->pbytes_max) A->pbytes_max = (uint64_t)pb;
            double t = prog_time(hw, s, (double)pb, (double)mm, (double)oth);
            if (t > A->ptime_max) A->ptime_max = t;
        }
    }
    if (S > 1) { /* combine: per query head and row, read S partials, write O and LSE */
        const u128 Hw = copies * (u128)s->heads, n = (u128)Nq;
        A->r[ILP] += Hw * n * (u128)S * 4;
        A->r[IOP] += Hw * n * (u128)S * dv * 4;
        A->w[IO] += Hw * n * dv * e;
        A->w[IL] += Hw * n * 4;
        A->oth += Hw * n * (u128)fa_combine_flops_per_row(S, s->d_v);
        A->cprograms += Hw * (u128)fa_cdiv(Nq, Br);
        int64_t rows = min64(Br, Nq);
        double cb = (double)rows * (double)S * 4.0 * (1.0 + (double)s->d_v) +
                    (double)rows * ((double)s->d_v * (double)e + 4.0);
        double t = prog_time(hw, s, cb, 0, (double)rows * (double)fa_combine_flops_per_row(S, s->d_v));
        if (t > A->ctime) A->ctime = t;
    }
}

static uint64_t sram_main(const fa_shape *s, fa_blocks bk, int64_t P)
{
    const uint64_t Br = (uint64_t)bk.block_r, Bc = (uint64_t)bk.block_c, d = (uint64_t)s->d,
                   dv = (uint64_t)s->d_v, e = (uint64_t)fa_dtype_bytes(s->dtype);
    uint64_t m = Br * d * e + Bc * d * e + Bc * dv * e + 4 * Br * Bc + 4 * Br * dv + 8 * Br;
    return P > 0 ? m + 4 * (uint64_t)fa_cdiv(bk.block_c, P) : m;
}

static uint64_t sram_combine(const fa_shape *s, fa_blocks bk, int64_t S)
{
    if (S <= 1) return 0;
    return 4 * (uint64_t)bk.block_r * ((uint64_t)S + 2 * (uint64_t)s->d_v + 1);
}

static fa_status infer_formula(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt, const fa_varlen *vl,
                               const fa_hw *hw, fa_infer_formula *out, char *what, size_t n);

typedef struct {
    fa_blocks bk;
    const fa_infer_opts *opt;
    const fa_hw *hw;
} infer_ctx;

static int infer_fits(const fa_shape *t, const void *ctx)
{
    const infer_ctx *c = ctx;
    fa_infer_formula f;
    char w[64] = "";
    return !(infer_formula(t, c->bk, c->opt, NULL, c->hw, &f, w, sizeof w) == FA_EOVERFLOW && w[0]);
}

fa_status fa_infer_formula_bytes(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                                 const fa_varlen *vl, const fa_hw *hw, fa_infer_formula *out)
{
    char what[64] = "", lim[320] = "";
    fa_status st = infer_formula(s, bk, opt, vl, hw, out, what, sizeof what);
    if (st != FA_EOVERFLOW || !what[0]) return st;
    const infer_ctx c = {bk, opt, hw};
    if (!vl) fa_ovf_limit(s, infer_fits, &c, lim, sizeof lim);
    FA_FAIL(FA_EOVERFLOW, "closed-form %s exceed 64 bits for " FA_OVF_DIMS "%s", what, FA_OVF_ARGS(s),
            lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

static fa_status infer_formula(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt, const fa_varlen *vl,
                               const fa_hw *hw, fa_infer_formula *out, char *what, size_t n)
{
    FA_TRY(vl ? fa_varlen_check(s, vl) : fa_shape_check(s));
    FA_TRY(fa_infer_opts_check(s, bk, opt, vl));
    acc A;
    memset(&A, 0, sizeof A);
    if (vl)
        for (int64_t b = 0; b < vl->nseq; b++)
            add_seq(&A, s, bk, opt, vl->cu_q[b + 1] - vl->cu_q[b], vl->cu_k[b + 1] - vl->cu_k[b], 1, hw);
    else
        add_seq(&A, s, bk, opt, s->seqlen_q, s->seqlen_k, (u128)s->batch, hw);
    memset(out, 0, sizeof *out);
    u128 tr = 0, tw = 0;
    for (int t = 0; t < FA_INFER_TENSORS; t++) {
        if (A.r[t] > UINT64_MAX || A.w[t] > UINT64_MAX) {
            snprintf(what, n, "HBM bytes of tensor %s", fa_infer_tensor_names[t]);
            return FA_EOVERFLOW;
        }
        out->read[t] = (uint64_t)A.r[t];
        out->write[t] = (uint64_t)A.w[t];
        tr += A.r[t];
        tw += A.w[t];
    }
    if (A.mm > UINT64_MAX) snprintf(what, n, "matmul FLOPs");
    else if (A.oth > UINT64_MAX) snprintf(what, n, "softmax FLOPs");
    else if (A.programs > UINT64_MAX) snprintf(what, n, "kernel programs");
    else if (tr > UINT64_MAX || tw > UINT64_MAX || tr + tw > UINT64_MAX) snprintf(what, n, "HBM bytes");
    if (tr > UINT64_MAX || tw > UINT64_MAX || A.mm > UINT64_MAX || A.oth > UINT64_MAX ||
        A.programs > UINT64_MAX || tr + tw > UINT64_MAX)
        return FA_EOVERFLOW;
    out->read_bytes = (uint64_t)tr;
    out->write_bytes = (uint64_t)tw;
    out->matmul_flops = (uint64_t)A.mm;
    out->other_flops = (uint64_t)A.oth;
    out->partial_bytes = out->read[IOP] + out->write[IOP] + out->read[ILP] + out->write[ILP];
    uint64_t sm = sram_main(s, bk, opt->page_size), sc = sram_combine(s, bk, opt->splits);
    out->sram_need = sm > sc ? sm : sc;
    out->programs_main = (uint64_t)A.programs;
    out->programs_combine = (uint64_t)A.cprograms;
    out->prog_bytes_max = A.pbytes_max;
    out->prog_time_max_s = A.ptime_max;
    out->combine_prog_time_s = A.ctime;
    return FA_OK;
}

/* The largest divisor of P that is <= B (P < B: the largest multiple of P that is <= B). */
static int64_t page_fit(int64_t B, int64_t P)
{
    if (P <= 0) return B;
    if (P <= B) return B / P * P;
    for (int64_t c = B; c > 1; c--)
        if (P % c == 0) return c;
    return 1;
}

fa_status fa_infer_blocks_fit(const fa_shape *s, const fa_infer_opts *opt, const fa_varlen *vl,
                              uint64_t M, fa_blocks *out)
{
    int64_t Nq = s->seqlen_q, Nk = s->seqlen_k;
    if (vl) {
        Nq = Nk = 1;
        for (int64_t b = 0; b < vl->nseq; b++) {
            Nq = vl->cu_q[b + 1] - vl->cu_q[b] > Nq ? vl->cu_q[b + 1] - vl->cu_q[b] : Nq;
            Nk = vl->cu_k[b + 1] - vl->cu_k[b] > Nk ? vl->cu_k[b + 1] - vl->cu_k[b] : Nk;
        }
    }
    const int64_t hp = opt->pack_gqa ? s->heads / s->kv_heads : 1;
    const int64_t cq = fa_cdiv(hp * Nq, 16) * 16, ck = fa_cdiv(Nk, 16) * 16;
    int64_t best = 0;
    fa_blocks bb = {0, 0};
    for (int64_t B = 16; B <= 128; B += 16) { /* at most 128, as FlashAttention-2's kernels */
        fa_blocks t = {B < cq ? B : cq, page_fit(B < ck ? B : ck, opt->page_size)};
        if (sram_main(s, t, opt->page_size) > M) break;
        best = B;
        bb = t;
        if (B >= cq && B >= ck) break; /* larger tiles change nothing */
    }
    if (best == 0)
        FA_FAIL(FA_ENOSRAM, "SRAM M = %llu B is too small for 16 x 16 tiles with d = %lld, d_v = %lld",
                (unsigned long long)M, (long long)s->d, (long long)s->d_v);
    *out = bb;
    return FA_OK;
}

void fa_infer_times(fa_infer_result *r, const fa_shape *s, const fa_hw *hw)
{
    r->time_roofline_s = r->time_main_s = r->time_combine_s = r->time_s = 0;
    if (!hw) return;
    double mm_peak = s->dtype == FA_DTYPE_FP32 ? hw->peak_fp32 : hw->peak_fp16;
    double tc = (double)r->counts.flops_matmul / mm_peak + (double)r->counts.flops_other / hw->peak_fp32;
    double tm = (double)fa_counts_hbm_bytes(&r->counts) / hw->hbm_bandwidth;
    r->time_roofline_s = tc > tm ? tc : tm;
    double sms = hw->sms > 0 ? hw->sms : 1;
    r->time_main_s = ceil((double)r->formula.programs_main / sms) * r->formula.prog_time_max_s;
    r->time_combine_s = ceil((double)r->formula.programs_combine / sms) * r->formula.combine_prog_time_s;
    r->time_s = r->time_main_s + r->time_combine_s;
}

fa_status fa_infer_best_splits(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                               const fa_varlen *vl, uint64_t M, const fa_hw *hw, int64_t *S)
{
    int64_t T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (vl) {
        T_c = 1;
        for (int64_t b = 0; b < vl->nseq; b++) {
            int64_t t = fa_cdiv(vl->cu_k[b + 1] - vl->cu_k[b], bk.block_c);
            if (t > T_c) T_c = t;
        }
    }
    int64_t hi = T_c < 128 ? T_c : 128, best = 1;
    double best_t = INFINITY, t[129];
    int64_t top = hi;
    hi = 0;
    for (int64_t k = 1; k <= top; k++) {
        fa_infer_opts o = *opt;
        o.splits = k;
        if (sram_combine(s, bk, k) > M) break;
        fa_infer_result r;
        memset(&r, 0, sizeof r);
        FA_TRY(fa_infer_formula_bytes(s, bk, &o, vl, hw, &r.formula));
        r.counts.hbm_read_bytes = r.formula.read_bytes; /* for the roofline term only */
        r.counts.hbm_write_bytes = r.formula.write_bytes;
        fa_infer_times(&r, s, hw);
        t[k] = r.time_s;
        if (r.time_s < best_t) best_t = r.time_s;
        hi = k;
    }
    /* the smallest S within 5% of the fastest: what the model leaves out (a second launch,
     * the combine's latency) favours fewer splits */
    for (int64_t k = hi; k >= 1; k--)
        if (t[k] <= 1.05 * best_t) best = k;
    *S = best;
    return FA_OK;
}
