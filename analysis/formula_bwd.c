/* formula_bwd.c -- closed-form HBM bytes, SRAM need and Theorem 5's bound of the backward pass
 * and of a whole pass, HBM footprints, the out-of-memory sequence length, and --blocks fit.
 * Derivations: docs/io-model-backward.md.  The closed forms are computed from formulas, never by
 * running an algorithm, so that tests/test_backward.c can prove counted == closed form.  Calls
 * formula.c only (the forward's closed forms); io.c, which runs the algorithms (fa_bwd_run
 * included), calls this file, never the reverse. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fa_analysis.h"

__extension__ typedef unsigned __int128 u128;

enum { TQ, TK, TV, TO, TS, TP, Tl, Tm, TLSE, Tmask, TdO, TdP, TdS, TD, TdQ, TdQacc, TdK, TdV, TOpart, TLpart };
const char *const fa_pass_tensor_names[FA_PASS_TENSORS] = {
    "Q", "K", "V", "O", "S", "P", "l", "m", "LSE", "mask", "dO", "dP", "dS", "D", "dQ", "dQacc", "dK", "dV",
    "O_part", "LSE_part"};

const char *fa_pass_name(fa_pass p)
{
    static const char *const n[] = {"fwd", "bwd", "fwdbwd"};
    return (p >= 0 && p < FA_NPASS) ? n[p] : "?";
}

fa_status fa_pass_parse(const char *s, fa_pass *p)
{
    for (int i = 0; i < FA_NPASS; i++)
        if (strcmp(s, fa_pass_name((fa_pass)i)) == 0) {
            *p = (fa_pass)i;
            return FA_OK;
        }
    FA_FAIL(FA_EINVAL, "--pass '%s' is not one of fwd, bwd, fwdbwd", s);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Sums per query head (q) and per kv head (kv), scaled by B*H and B*H_kv at the end. */
typedef struct {
    u128 rq[FA_PASS_TENSORS], wq[FA_PASS_TENSORS], rkv[FA_PASS_TENSORS], wkv[FA_PASS_TENSORS];
    u128 mm; /* per query head */
} acc;

/* On an overflow, names the count in what and returns FA_EOVERFLOW with no message recorded
 * (fa_ovf_limit calls the count again at smaller N). */
static fa_status finish(const acc *a, const fa_shape *s, fa_pass_formula *out, char *what, size_t n)
{
    const u128 nq = (u128)s->batch * (u128)s->heads, nkv = (u128)s->batch * (u128)s->kv_heads;
    u128 tr = 0, tw = 0;
    memset(out, 0, sizeof *out);
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        /* a per-head term above 2^64 overflows anyway; below it, times B*H < 2^62 fits */
        int big = a->rq[t] > UINT64_MAX || a->wq[t] > UINT64_MAX || a->rkv[t] > UINT64_MAX ||
                  a->wkv[t] > UINT64_MAX;
        u128 r = big ? 0 : a->rq[t] * nq + a->rkv[t] * nkv,
             w = big ? 0 : a->wq[t] * nq + a->wkv[t] * nkv;
        if (big || r > UINT64_MAX || w > UINT64_MAX) {
            snprintf(what, n, "backward HBM bytes of tensor %s", fa_pass_tensor_names[t]);
            return FA_EOVERFLOW;
        }
        out->read[t] = (uint64_t)r;
        out->write[t] = (uint64_t)w;
        tr += r;
        tw += w;
    }
    u128 mm = a->mm > UINT64_MAX ? (u128)UINT64_MAX + 1 : a->mm * nq;
    if (mm > UINT64_MAX) snprintf(what, n, "backward matmul FLOPs");
    else if (tr > UINT64_MAX) snprintf(what, n, "backward HBM bytes read");
    else if (tw > UINT64_MAX) snprintf(what, n, "backward HBM bytes written");
    if (tr > UINT64_MAX || tw > UINT64_MAX || mm > UINT64_MAX) return FA_EOVERFLOW;
    out->read_bytes = (uint64_t)tr;
    out->write_bytes = (uint64_t)tw;
    out->matmul_flops = (uint64_t)mm;
    return FA_OK;
}

static fa_status check(const fa_shape *s, fa_blocks bk)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    return FA_OK;
}

/* The K/V loop of flash1/flash2 backward: per kv head, the K/V bytes of the visited tiles;
 * per query head, the number of query rows visits (sum over K tiles of the rows that visit it)
 * and the matmul FLOPs 2 rows cols (3d + 2d_v) of every visited tile. */
static void kv_loop(const fa_shape *s, fa_blocks bk, acc *A, u128 *visits)
{
    const u128 d = (u128)s->d, dv = (u128)s->d_v, e = (u128)fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_c = fa_cdiv(s->seqlen_k, Bc);
    if (!fa_has_mask(s)) {
        A->rkv[TK] = (u128)s->seqlen_k * d * e;
        A->rkv[TV] = (u128)s->seqlen_k * dv * e;
        *visits = (u128)T_c * (u128)s->seqlen_q;
        A->mm = 2 * (u128)s->seqlen_q * (u128)s->seqlen_k * (3 * d + 2 * dv);
        return;
    }
    *visits = 0;
    for (int64_t j = 0; j < T_c; j++) {
        int64_t c0 = j * Bc, cols = min64(Bc, s->seqlen_k - c0), nb, nrows;
        fa_q_span_sum(s, c0, cols, Br, &nb, &nrows);
        if (nb == 0) continue; /* nobody sees this tile: not loaded */
        u128 rows = (u128)nrows;
        A->rkv[TK] += (u128)cols * d * e;
        A->rkv[TV] += (u128)cols * dv * e;
        *visits += rows;
        A->mm += 2 * rows * (u128)cols * (3 * d + 2 * dv);
        if (s->dense_mask) A->rq[Tmask] += rows * (u128)cols; /* a mask tile per visit */
    }
}

static fa_status bwd_formula(fa_algo a, const fa_shape *s, fa_blocks bk, fa_pass_formula *out, char *what, size_t n);

typedef struct {
    fa_algo a;
    fa_blocks bk;
} bwd_ctx;

static int bwd_fits(const fa_shape *t, const void *ctx)
{
    const bwd_ctx *c = ctx;
    fa_pass_formula f;
    char w[64] = "";
    return !(bwd_formula(c->a, t, c->bk, &f, w, sizeof w) == FA_EOVERFLOW && w[0]);
}

fa_status fa_formula_bwd_bytes(fa_algo a, const fa_shape *s, fa_blocks bk, fa_pass_formula *out)
{
    char what[64] = "", lim[320];
    fa_status st = bwd_formula(a, s, bk, out, what, sizeof what);
    if (st != FA_EOVERFLOW || !what[0]) return st;
    const bwd_ctx c = {a, bk};
    fa_ovf_limit(s, bwd_fits, &c, lim, sizeof lim);
    FA_FAIL(FA_EOVERFLOW, "%s's closed-form %s exceed 64 bits for " FA_OVF_DIMS "%s", fa_algo_name(a), what,
            FA_OVF_ARGS(s), lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

static fa_status bwd_formula(fa_algo a, const fa_shape *s, fa_blocks bk, fa_pass_formula *out, char *what, size_t n)
{
    FA_TRY(check(s, bk));
    const u128 Nq = (u128)s->seqlen_q, Nk = (u128)s->seqlen_k, d = (u128)s->d,
               dv = (u128)s->d_v, e = (u128)fa_dtype_bytes(s->dtype);
    const u128 T_r = (u128)fa_cdiv(s->seqlen_q, bk.block_r),
               T_c = (u128)fa_cdiv(s->seqlen_k, bk.block_c);
    acc A;
    memset(&A, 0, sizeof A);
    /* every algorithm writes each dK, dV element once per kv head */
    A.wkv[TdK] = Nk * d * e;
    A.wkv[TdV] = Nk * dv * e;

    switch (a) {
    case FA_ALGO_STANDARD: {
        const u128 nn = Nq * Nk * e, passes = T_c > 1 ? 2 : 1;
        /* (1) dV = P^T dO: P once, dO once per K/V block */
        A.rq[TP] = nn;
        A.rq[TdO] = T_c * Nq * dv * e;
        /* (2) dP = dO V^T: dO once, V once per row block, dP written */
        A.rq[TdO] += Nq * dv * e;
        A.rq[TV] = T_r * Nk * dv * e;
        A.wq[TdP] = nn;
        /* (3) dS: P and dP once (T_c = 1) or twice, dS written */
        A.rq[TP] += passes * nn;
        A.rq[TdP] = passes * nn;
        A.wq[TdS] = nn;
        /* (4) dQ = tau dS K: dS once, K once per row block, dQ written */
        A.rq[TdS] = nn;
        A.rq[TK] = T_r * Nk * d * e;
        A.wq[TdQ] = Nq * d * e;
        /* (5) dK = tau dS^T Q: dS once, Q once per K/V block */
        A.rq[TdS] += nn;
        A.rq[TQ] = T_c * Nq * d * e;
        A.mm = 2 * Nq * Nk * (2 * d + 2 * dv);
        break;
    }
    case FA_ALGO_FLASH1: {
        u128 visits;
        kv_loop(s, bk, &A, &visits);
        A.wq[TdQ] = Nq * d * e; /* line 5: dQ = 0 in HBM */
        /* line 10 on every visit: Q_i, O_i, dO_i, dQ_i, l_i, m_i; line 21: dQ_i written */
        A.rq[TQ] = visits * d * e;
        A.rq[TO] = visits * dv * e;
        A.rq[TdO] = visits * dv * e;
        A.rq[TdQ] = visits * d * e;
        A.rq[Tl] = A.rq[Tm] = visits * 4;
        A.wq[TdQ] += visits * d * e;
        break;
    }
    case FA_ALGO_FLASH2: {
        u128 visits;
        kv_loop(s, bk, &A, &visits);
        /* pre-pass: dO, O read once; D and dQacc = 0 written once (fp32) */
        A.rq[TdO] = Nq * dv * e;
        A.rq[TO] = Nq * dv * e;
        A.wq[TD] = Nq * 4;
        A.wq[TdQacc] = Nq * d * 4;
        /* main, every visit: Q_i, dO_i, L_i, D_i read; dQacc_i read and written */
        A.rq[TQ] = visits * d * e;
        A.rq[TdO] += visits * dv * e;
        A.rq[TLSE] = visits * 4;
        A.rq[TD] = visits * 4;
        A.rq[TdQacc] = visits * d * 4;
        A.wq[TdQacc] += visits * d * 4;
        /* post-pass: dQacc read once, dQ written once in the dtype */
        A.rq[TdQacc] += Nq * d * 4;
        A.wq[TdQ] = Nq * d * e;
        break;
    }
    default: FA_FAIL(FA_EINVAL, "unknown algorithm %d", (int)a);
    }
    return finish(&A, s, out, what, n);
}

static fa_status add_formula(fa_pass_formula *acc_f, const fa_pass_formula *f)
{
    for (int t = 0; t < FA_PASS_TENSORS; t++) {
        FA_TRY(fa_u64_add(acc_f->read[t], f->read[t], &acc_f->read[t], "closed-form bytes"));
        FA_TRY(fa_u64_add(acc_f->write[t], f->write[t], &acc_f->write[t], "closed-form bytes"));
    }
    FA_TRY(fa_u64_add(acc_f->read_bytes, f->read_bytes, &acc_f->read_bytes, "closed-form bytes"));
    FA_TRY(fa_u64_add(acc_f->write_bytes, f->write_bytes, &acc_f->write_bytes, "closed-form bytes"));
    FA_TRY(fa_u64_add(acc_f->matmul_flops, f->matmul_flops, &acc_f->matmul_flops, "matmul FLOPs"));
    return FA_OK;
}

/* 1 if the K/V tiles [t0, t1) hold a tile row block [r0, r0 + rows) visits (not SKIP). */
static int chunk_visited(const fa_shape *s, int64_t r0, int64_t rows, int64_t Bc, int64_t t0, int64_t t1)
{
    int64_t lo, hi, fl, fh;
    fa_kv_span(s, r0, rows, Bc, &lo, &hi, &fl, &fh);
    if (t0 < lo) t0 = lo;
    if (t1 > hi) t1 = hi;
    if (t0 >= t1) return 0;
    if (t0 < fh && fl < t1 && fl < fh) return 1; /* a FULL tile of the core */
    for (int64_t t = t0; t < t1; t++)
        if (fa_tile_classify(s, r0, rows, t * Bc, fa_tile_len(t * Bc, s->seqlen_k, Bc)) != FA_TILE_SKIP) return 1;
    return 0;
}

/* FlashAttention-2's split-KV forward beyond the unsplit one (docs/io-model.md, "Split-KV"):
 * row block i loads Q_i once per chunk with a visited tile (n_i chunks) instead of once, every
 * split writes its fp32 partial (O_part: d_v values a row, LSE_part: one) and the combine reads
 * them all back; K, V, O and LSE move as without the split. */
/* Per slice: the query rows the split kernel loads (row block i's rows once per chunk with a
 * visited tile) in *split, and those the unsplit kernel loads (once per row block that sees a
 * key) in *once. */
static void q_rows(const fa_shape *s, fa_blocks bk, int64_t S, int64_t *split, int64_t *once)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c, T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
    const int64_t c = fa_cdiv(T_c, S);
    *split = *once = 0;
    for (int64_t i = 0; i < T_r; i++) {
        const int64_t r0 = i * Br, rows = fa_tile_len(r0, s->seqlen_q, Br);
        int64_t n = 0;
        for (int64_t q = 0; q < S; q++) n += chunk_visited(s, r0, rows, Bc, q * c, (q + 1) * c);
        *split += n * rows;
        if (n > 0) *once += rows;
    }
}

int64_t fa_split_q_rows(const fa_shape *s, fa_blocks bk, int64_t splits)
{
    int64_t split, once;
    q_rows(s, bk, splits, &split, &once);
    return split;
}

static fa_status split_terms(const fa_shape *s, fa_blocks bk, int64_t S, fa_pass_formula *out)
{
    const u128 e = (u128)fa_dtype_bytes(s->dtype), d = (u128)s->d, dv = (u128)s->d_v, Nq = (u128)s->seqlen_q;
    acc A;
    memset(&A, 0, sizeof A);
    int64_t split, once;
    q_rows(s, bk, S, &split, &once);
    A.rq[TQ] = (u128)(split - once) * d * e; /* the unsplit count has Q_i once */
    A.wq[TOpart] = A.rq[TOpart] = (u128)S * Nq * dv * 4;
    A.wq[TLpart] = A.rq[TLpart] = (u128)S * Nq * 4;
    fa_pass_formula x;
    char what[64];
    if (finish(&A, s, &x, what, sizeof what))
        FA_FAIL(FA_EOVERFLOW, "split-KV S = %lld: the partials' closed-form %s exceed 64 bits for " FA_OVF_SHAPE,
                (long long)S, what, FA_OVF_ARGS(s));
    return add_formula(out, &x);
}

/* pass_bytes's status for an overflow of the split partials or of the passes' sum, whose
 * messages fa_formula_pass_bytes completes (not a status that leaves this file) */
#define FA_EOVERFLOW_SUM ((fa_status)1000)

static fa_status pass_bytes(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits,
                            fa_pass_formula *out)
{
    if (p < 0 || p >= FA_NPASS) FA_FAIL(FA_EINVAL, "unknown pass %d", (int)p);
    if (splits < 1 || (splits > 1 && a != FA_ALGO_FLASH2))
        FA_FAIL(FA_EINVAL, "split-KV S = %lld: give S >= 1, and S > 1 only for flash2 (FlashAttention-2's split kernel)",
                (long long)splits);
    memset(out, 0, sizeof *out);
    if (p != FA_PASS_BWD) {
        fa_formula f;
        FA_TRY(fa_formula_bytes(a, s, bk, &f));
        for (int t = 0; t < FA_FORMULA_TENSORS; t++) {
            out->read[t] = f.read[t];
            out->write[t] = f.write[t];
        }
        out->read_bytes = f.read_bytes;
        out->write_bytes = f.write_bytes;
        out->matmul_flops = f.matmul_flops;
        if (splits > 1) FA_TRY(split_terms(s, bk, splits, out) ? FA_EOVERFLOW_SUM : FA_OK);
    }
    if (p != FA_PASS_FWD) {
        fa_pass_formula b;
        FA_TRY(fa_formula_bwd_bytes(a, s, bk, &b));
        if (add_formula(out, &b)) return FA_EOVERFLOW_SUM;
    }
    return FA_OK;
}

typedef struct {
    fa_pass p;
    fa_algo a;
    fa_blocks bk;
    int64_t splits;
} pass_ctx;

/* The closed form of pass c->p of shape t, and the fwd + bwd sum, stay within 64 bits (fa_ovf_limit's
 * test, as formula.c's fwd_fits and io.c's run_fits for their own totals). */
static int pass_fits(const fa_shape *t, const void *ctx)
{
    const pass_ctx *c = ctx;
    fa_pass_formula f;
    fa_status st = pass_bytes(c->p, c->a, t, c->bk, c->splits, &f);
    fa_clear_error();
    return st != FA_EOVERFLOW && st != FA_EOVERFLOW_SUM;
}

fa_status fa_formula_pass_bytes(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits,
                                fa_pass_formula *out)
{
    fa_status st = pass_bytes(p, a, s, bk, splits, out);
    if (st != FA_EOVERFLOW_SUM) return st;
    /* the split-KV partials, or the forward's and backward's totals added (fwdbwd), overflowed:
     * their message told with the shape and the limit, as the one closed form's are */
    char w[400], lim[320];
    snprintf(w, sizeof w, "%s", fa_last_error());
    char *shape = strstr(w, " for B = ");
    if (shape) *shape = 0;
    const pass_ctx c = {p, a, bk, splits};
    fa_ovf_limit(s, pass_fits, &c, lim, sizeof lim);
    FA_FAIL(FA_EOVERFLOW, "%s %s's closed form: %s for " FA_OVF_DIMS "%s", fa_algo_name(a), fa_pass_name(p), w,
            FA_OVF_ARGS(s), lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

uint64_t fa_sram_need_bwd(fa_algo a, const fa_shape *s, fa_blocks bk)
{
    const uint64_t Br = (uint64_t)bk.block_r, Bc = (uint64_t)bk.block_c, d = (uint64_t)s->d,
                   dv = (uint64_t)s->d_v, e = (uint64_t)fa_dtype_bytes(s->dtype);
    /* K_j, V_j in the dtype; dK_j, dV_j accumulators in fp32 */
    const uint64_t kv = Bc * d * e + Bc * dv * e + 4 * Bc * d + 4 * Bc * dv;
    /* the dense mask tile (1 byte each) and, under a softcap, the derivative tile (fp32) */
    const uint64_t extra = (s->dense_mask ? Br * Bc : 0) + (s->softcap > 0 ? 4 * Br * Bc : 0);
    switch (a) {
    case FA_ALGO_STANDARD: {
        uint64_t k1 = 4 * Br * Bc + Br * dv * e + 4 * Bc * dv; /* P_ij, dO_i, dV_j */
        uint64_t k2 = Br * dv * e + Bc * dv * e + 4 * Br * Bc; /* dO_i, V_j, dP_ij */
        uint64_t k3 = 8 * Br * Bc + 4 * Br;                    /* P_ij, dP_ij, D_i */
        uint64_t k4 = 4 * Br * Bc + Bc * d * e + 4 * Br * d;   /* dS_ij, K_j, dQ_i */
        uint64_t k5 = 4 * Br * Bc + Br * d * e + 4 * Bc * d;   /* dS_ij, Q_i, dK_j */
        uint64_t m = max3(k1, k2, k3);
        return max3(m, k4, k5);
    }
    case FA_ALGO_FLASH1:
        /* Q_i, O_i, dO_i (dtype), dQ_i (fp32), l_i, m_i, D_i, S_ij/P_ij, dP_ij/dS_ij */
        return kv + Br * d * e + 2 * Br * dv * e + 4 * Br * d + 12 * Br + 8 * Br * Bc + extra;
    case FA_ALGO_FLASH2: {
        uint64_t pre = 2 * Br * dv * e + 4 * Br + 4 * Br * d; /* dO_i, O_i, D_i, dQ_i */
        /* Q_i, dO_i (dtype), L_i, D_i, S_ij/P_ij, dP_ij/dS_ij, dQ_i (fp32) */
        uint64_t main = kv + Br * d * e + Br * dv * e + 8 * Br + 8 * Br * Bc + 4 * Br * d + extra;
        uint64_t post = 4 * Br * d; /* dQacc_i */
        return max3(pre, main, post);
    }
    default: return 0;
    }
}

uint64_t fa_sram_need_pass(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk)
{
    uint64_t f = p == FA_PASS_BWD ? 0 : fa_sram_need(a, s, bk);
    uint64_t b = p == FA_PASS_FWD ? 0 : fa_sram_need_bwd(a, s, bk);
    return f > b ? f : b;
}

double fa_bound_bwd_bytes(fa_algo a, const fa_shape *s, uint64_t M)
{
    /* Theorem 5 states the orders of Theorem 2 for the backward pass. */
    return fa_bound_bytes(a, s, M);
}

double fa_bound_pass_bytes(fa_pass p, fa_algo a, const fa_shape *s, uint64_t M)
{
    double f = p == FA_PASS_BWD ? 0 : fa_bound_bytes(a, s, M);
    double b = p == FA_PASS_FWD ? 0 : fa_bound_bwd_bytes(a, s, M);
    return f + b;
}

/* ---- memory footprint ---- */

typedef struct {
    u128 inputs, output, stats, saved, fwd_peak, bwd_peak, peak;
} foot128;

static u128 max128(u128 a, u128 b) { return a > b ? a : b; }

/* Saturating 128-bit arithmetic: footprints at N near 2^31 with B*H near 2^62 exceed 2^128. */
static const u128 U128_MAX = ~(u128)0;
static u128 sadd(u128 a, u128 b) { return a > U128_MAX - b ? U128_MAX : a + b; }
static u128 smul(u128 a, u128 b) { return (a != 0 && b > U128_MAX / a) ? U128_MAX : a * b; }

static void footprint128(fa_algo a, const fa_shape *s, foot128 *f)
{
    const u128 nq = (u128)s->batch * (u128)s->heads, nkv = (u128)s->batch * (u128)s->kv_heads;
    const u128 Nq = (u128)s->seqlen_q, Nk = (u128)s->seqlen_k, d = (u128)s->d,
               dv = (u128)s->d_v, e = (u128)fa_dtype_bytes(s->dtype);
    /* every size < 2^31 and nq < 2^62: each product below fits, only the sums saturate */
    const u128 Q = smul(nq * Nq, d * e), K = smul(nkv * Nk, d * e), V = smul(nkv * Nk, dv * e),
               O = smul(nq * Nq, dv * e), NN = smul(nq * Nq, Nk * e), row4 = smul(nq * Nq, 4),
               acc4 = smul(nq * Nq, d * 4);
    /* gradients have the shapes of their tensors */
    const u128 dO = O, dQ = Q, dK = K, dV = V;
    f->inputs = sadd(sadd(Q, K), V);
    f->output = O;
    switch (a) {
    case FA_ALGO_STANDARD:
        f->stats = NN; /* P */
        /* forward: kernel 2 holds S and P, kernel 3 holds P and O (S freed) */
        f->fwd_peak = sadd(sadd(f->inputs, NN), max128(NN, O));
        break;
    case FA_ALGO_FLASH1: f->stats = sadd(row4, row4); break; /* l, m */
    default: f->stats = row4; break;                         /* LSE */
    }
    f->saved = sadd(sadd(f->inputs, f->output), f->stats);
    if (a != FA_ALGO_STANDARD) f->fwd_peak = f->saved;
    u128 b = sadd(f->saved, dO);
    switch (a) {
    case FA_ALGO_STANDARD:
        /* steps 1-3 hold dV, dP, dS; steps 4-5 hold dV, dS, dQ, dK (dP freed) */
        f->bwd_peak = sadd(sadd(sadd(b, dV), NN), max128(NN, sadd(dQ, dK)));
        break;
    case FA_ALGO_FLASH1: f->bwd_peak = sadd(sadd(sadd(b, dQ), dK), dV); break;
    default:
        /* main holds D and dQacc; the post-pass holds dQacc and dQ (D freed) */
        f->bwd_peak = sadd(sadd(sadd(sadd(b, dK), dV), acc4), max128(row4, dQ));
        break;
    }
    f->peak = max128(f->fwd_peak, f->bwd_peak);
}

static int foot_fits(const fa_shape *t, const void *ctx)
{
    foot128 g;
    footprint128(*(const fa_algo *)ctx, t, &g);
    return g.peak <= UINT64_MAX;
}

fa_status fa_hbm_footprint(fa_algo a, const fa_shape *s, fa_footprint *f)
{
    FA_TRY(fa_shape_check(s));
    if (a < 0 || a >= FA_NALGO) FA_FAIL(FA_EINVAL, "unknown algorithm %d", (int)a);
    foot128 g;
    footprint128(a, s, &g);
    if (g.peak > UINT64_MAX) {
        char lim[320];
        fa_ovf_limit(s, foot_fits, &a, lim, sizeof lim);
        FA_FAIL(FA_EOVERFLOW, "HBM footprint of %s exceeds 64 bits for " FA_OVF_DIMS "%s", fa_algo_name(a),
                FA_OVF_ARGS(s), lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
    }
    f->inputs = (uint64_t)g.inputs;
    f->output = (uint64_t)g.output;
    f->stats = (uint64_t)g.stats;
    f->saved = (uint64_t)g.saved;
    f->fwd_peak = (uint64_t)g.fwd_peak;
    f->bwd_peak = (uint64_t)g.bwd_peak;
    f->peak = (uint64_t)g.peak;
    return FA_OK;
}

/* The split-KV forward's footprint of t (flash2, S splits) fits 64 bits. */
static int split_foot_fits(const fa_shape *t, const void *ctx)
{
    const int64_t S = *(const int64_t *)ctx;
    foot128 g;
    footprint128(FA_ALGO_FLASH2, t, &g);
    const u128 part = (u128)4 * (u128)t->batch * (u128)t->heads * (u128)t->seqlen_q * (u128)S * (u128)(t->d_v + 1);
    return g.peak <= UINT64_MAX && g.saved + part <= UINT64_MAX;
}

fa_status fa_footprint_split(fa_footprint *f, const fa_shape *s, int64_t splits)
{
    if (splits <= 1) return FA_OK;
    const u128 part = (u128)4 * (u128)s->batch * (u128)s->heads * (u128)s->seqlen_q * (u128)splits *
                      (u128)(s->d_v + 1);
    const u128 fwd = (u128)f->saved + part;
    if (fwd > UINT64_MAX) {
        char lim[320];
        fa_ovf_limit(s, split_foot_fits, &splits, lim, sizeof lim);
        FA_FAIL(FA_EOVERFLOW, "HBM footprint of the split-KV forward (S = %lld) exceeds 64 bits for " FA_OVF_DIMS "%s",
                (long long)splits, FA_OVF_ARGS(s), lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
    }
    if (fwd > f->fwd_peak) f->fwd_peak = (uint64_t)fwd;
    if (f->fwd_peak > f->peak) f->peak = f->fwd_peak;
    return FA_OK;
}

uint64_t fa_footprint_peak(const fa_footprint *f, fa_pass p)
{
    return p == FA_PASS_FWD ? f->fwd_peak : p == FA_PASS_BWD ? f->bwd_peak : f->peak;
}

static u128 peak_at(fa_algo a, const fa_shape *s, fa_pass p, int64_t n)
{
    fa_shape t = *s;
    t.seqlen_q = t.seqlen_k = n;
    foot128 g;
    footprint128(a, &t, &g);
    return p == FA_PASS_FWD ? g.fwd_peak : p == FA_PASS_BWD ? g.bwd_peak : g.peak;
}

fa_status fa_oom_seqlen(fa_algo a, const fa_shape *s, fa_pass p, uint64_t hbm_bytes,
                        int64_t *n_out)
{
    FA_TRY(fa_shape_check(s));
    if (a < 0 || a >= FA_NALGO) FA_FAIL(FA_EINVAL, "unknown algorithm %d", (int)a);
    if (p < 0 || p >= FA_NPASS) FA_FAIL(FA_EINVAL, "unknown pass %d", (int)p);
    if (hbm_bytes == 0) FA_FAIL(FA_EINVAL, "HBM capacity must be > 0 bytes");
    const int64_t hi_n = ((int64_t)1 << 31) - 1;
    if (peak_at(a, s, p, hi_n) <= (u128)hbm_bytes) {
        *n_out = 0;
        return FA_OK;
    }
    /* the footprint grows with N: find the first N whose peak exceeds the capacity */
    int64_t lo = 0, hi = hi_n; /* peak(lo) fits (or lo = 0), peak(hi) does not */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (peak_at(a, s, p, mid) > (u128)hbm_bytes) hi = mid;
        else lo = mid;
    }
    *n_out = hi;
    return FA_OK;
}

/* ---- --blocks fit: a pass's rule, and the forward's (fa_blocks_fit) ---- */

fa_status fa_blocks_fit_pass(fa_pass p, const fa_shape *s, uint64_t M, fa_blocks *out)
{
    int64_t best = 0;
    for (int64_t B = 16; B <= ((int64_t)1 << 20); B += 16) {
        fa_blocks t = {B, B};
        int fits = 1;
        for (int a = 0; a < FA_NALGO; a++) fits &= fa_sram_need_pass(p, (fa_algo)a, s, t) <= M;
        if (!fits) break;
        best = B;
    }
    if (best == 0) {
        fa_blocks t = {16, 16};
        uint64_t need = 0;
        for (int a = 0; a < FA_NALGO; a++) {
            uint64_t n = fa_sram_need_pass(p, (fa_algo)a, s, t);
            if (n > need) need = n;
        }
        FA_FAIL(FA_ENOSRAM,
                "SRAM M = %llu B is too small for the smallest tile of the %s pass: B_r = B_c = 16 "
                "with d = %lld, d_v = %lld needs %llu B",
                (unsigned long long)M, fa_pass_name(p), (long long)s->d, (long long)s->d_v,
                (unsigned long long)need);
    }
    int64_t cq = fa_cdiv(s->seqlen_q, 16) * 16, ck = fa_cdiv(s->seqlen_k, 16) * 16;
    out->block_r = best < cq ? best : cq;
    out->block_c = best < ck ? best : ck;
    return FA_OK;
}

fa_status fa_blocks_fit(const fa_shape *s, uint64_t M, fa_blocks *out)
{
    return fa_blocks_fit_pass(FA_PASS_FWD, s, M, out);
}
