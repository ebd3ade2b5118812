/* formula.c -- closed-form HBM bytes, SRAM need, Theta bounds and the --blocks paper rule of the
 * forward pass (--blocks fit, which needs the backward's SRAM too, is in formula_bwd.c).
 * Derivations: docs/io-model.md.  These are computed from the formulas, never by running an
 * algorithm, so that tests/test_formula.c can prove counted == closed form.  A leaf: it calls
 * no other file of analysis/ (formula_bwd.c and io.c call it, never the reverse). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fa_analysis.h"

__extension__ typedef unsigned __int128 u128;

enum { TQ, TK, TV, TO, TS, TP, Tl, Tm, TLSE, Tmask };
const char *const fa_formula_tensor_names[FA_FORMULA_TENSORS] = {"Q", "K", "V", "O", "S",
                                                                 "P", "l", "m", "LSE", "mask"};

const char *fa_algo_name(fa_algo a)
{
    static const char *const n[] = {"standard", "flash1", "flash2"};
    return (a >= 0 && a < FA_NALGO) ? n[a] : "?";
}

fa_status fa_algo_parse(const char *s, fa_algo *a)
{
    for (int i = 0; i < FA_NALGO; i++)
        if (strcmp(s, fa_algo_name((fa_algo)i)) == 0) {
            *a = (fa_algo)i;
            return FA_OK;
        }
    FA_FAIL(FA_EINVAL, "--algo '%s' is not one of standard, flash1, flash2, all", s);
}


/* Accumulates per-head 128-bit sums, then scales by B*H and checks 64 bits. */
typedef struct {
    u128 r[FA_FORMULA_TENSORS], w[FA_FORMULA_TENSORS], mm;
} acc128;

/* On an overflow, names the count that overflowed in what (the caller's message) and returns
 * FA_EOVERFLOW with no message recorded (fa_ovf_limit calls it again at smaller N). */
static fa_status finish(const acc128 *a, const fa_shape *s, fa_formula *out, char *what, size_t n)
{
    u128 heads = (u128)s->batch * (u128)s->heads;
    u128 tr = 0, tw = 0;
    memset(out, 0, sizeof *out);
    for (int t = 0; t < FA_FORMULA_TENSORS; t++) {
        u128 r = a->r[t] * heads, w = a->w[t] * heads;
        if (r > UINT64_MAX || w > UINT64_MAX) {
            snprintf(what, n, "HBM bytes of tensor %s", fa_formula_tensor_names[t]);
            return FA_EOVERFLOW;
        }
        out->read[t] = (uint64_t)r;
        out->write[t] = (uint64_t)w;
        tr += r;
        tw += w;
    }
    u128 mm = a->mm * heads;
    if (mm > UINT64_MAX) snprintf(what, n, "matmul FLOPs");
    else if (tr > UINT64_MAX) snprintf(what, n, "HBM bytes read");
    else if (tw > UINT64_MAX) snprintf(what, n, "HBM bytes written");
    if (tr > UINT64_MAX || tw > UINT64_MAX || mm > UINT64_MAX) return FA_EOVERFLOW;
    out->read_bytes = (uint64_t)tr;
    out->write_bytes = (uint64_t)tw;
    out->matmul_flops = (uint64_t)mm;
    return FA_OK;
}

/* The largest B in [1, s's B) for which fits() holds at s's other sizes (the counts grow with B),
 * 0 when B = 1 overflows too. */
static int64_t ovf_batch(const fa_shape *s, int (*fits)(const fa_shape *t, const void *ctx), const void *ctx)
{
    fa_shape t = *s;
    t.batch = 1;
    if (!fits(&t, ctx)) return 0;
    int64_t lo = 1, hi = s->batch; /* fits(lo), not fits(hi) */
    while (hi - lo > 1) {
        t.batch = lo + (hi - lo) / 2;
        if (fits(&t, ctx)) lo = t.batch;
        else hi = t.batch;
    }
    return lo;
}

/* ": at these H, d and N = X they fit up to B = Y (...)" (pre: "; " after a first clause, else ": "). */
static void ovf_batch_text(const fa_shape *s, int (*fits)(const fa_shape *t, const void *ctx), const void *ctx,
                           const char *pre, char *buf, size_t n)
{
    const int64_t b = ovf_batch(s, fits, ctx);
    char nn[64];
    if (s->seqlen_q == s->seqlen_k) snprintf(nn, sizeof nn, "N = %lld", (long long)s->seqlen_q);
    else snprintf(nn, sizeof nn, "N_q = %lld, N_k = %lld", (long long)s->seqlen_q, (long long)s->seqlen_k);
    if (b > 0)
        snprintf(buf, n, "%sat these H, d and %s they fit up to B = %lld (use a smaller --batch or --heads)", pre, nn,
                 (long long)b);
    else
        snprintf(buf, n, "%sno B fits at these H, d and %s either (use a smaller --heads or --headdim)", pre, nn);
}

/* Set while fa_ovf_limit's test runs: a count it calls that overflows leaves its own message
 * without the limit, not a search inside the search. */
static _Thread_local int ovf_searching;

static void ovf_search(const fa_shape *s, int (*fits)(const fa_shape *t, const void *ctx), const void *ctx, char *buf,
                       size_t n);

void fa_ovf_limit(const fa_shape *s, int (*fits)(const fa_shape *t, const void *ctx), const void *ctx, char *buf,
                  size_t n)
{
    buf[0] = '\0';
    if (ovf_searching) return;
    ovf_searching = 1;
    ovf_search(s, fits, ctx, buf, n);
    ovf_searching = 0;
}

static void ovf_search(const fa_shape *s, int (*fits)(const fa_shape *t, const void *ctx), const void *ctx, char *buf,
                       size_t n)
{
    if (s->block_mask || s->col_mask || s->dense_mask) { /* mask arrays sized to this N: only B can change */
        ovf_batch_text(s, fits, ctx, ": the mask fixes N; ", buf, n);
        return;
    }
    fa_shape t = *s;
    const int both = s->seqlen_q == s->seqlen_k;
    int64_t *v = both ? &t.seqlen_k : s->seqlen_k > s->seqlen_q ? &t.seqlen_k : &t.seqlen_q;
    int64_t lo = 1, hi = *v; /* fits(lo), not fits(hi) */
    *v = 1;
    if (both) t.seqlen_q = 1;
    if (!fits(&t, ctx)) { /* B (or H, d) is what overflows: the largest B at the N given */
        ovf_batch_text(s, fits, ctx, ": no N fits at these B, H, d; ", buf, n);
        return;
    }
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        *v = mid;
        if (both) t.seqlen_q = mid;
        if (fits(&t, ctx)) lo = mid;
        else hi = mid;
    }
    if (both)
        snprintf(buf, n, ": at these B, H, d they fit up to N = %lld (use a smaller --seqlen, --batch or --heads)",
                 (long long)lo);
    else
        snprintf(buf, n, ": at these B, H, d and %s = %lld they fit up to %s = %lld (use a smaller %s, --batch or "
                 "--heads)", v == &t.seqlen_k ? "N_q" : "N_k", (long long)(v == &t.seqlen_k ? t.seqlen_q : t.seqlen_k),
                 v == &t.seqlen_k ? "N_k" : "N_q", (long long)lo, v == &t.seqlen_k ? "N_k" : "N_q");
}

static fa_status formula(fa_algo a, const fa_shape *s, fa_blocks bk, fa_formula *out, char *what, size_t n);

typedef struct {
    fa_algo a;
    fa_blocks bk;
} fwd_ctx;

static int fwd_fits(const fa_shape *t, const void *ctx)
{
    const fwd_ctx *c = ctx;
    fa_formula f;
    char w[64] = "";
    return !(formula(c->a, t, c->bk, &f, w, sizeof w) == FA_EOVERFLOW && w[0]);
}

fa_status fa_formula_bytes(fa_algo a, const fa_shape *s, fa_blocks bk, fa_formula *out)
{
    char what[64] = "", lim[320];
    fa_status st = formula(a, s, bk, out, what, sizeof what);
    if (st != FA_EOVERFLOW || !what[0]) return st;
    const fwd_ctx c = {a, bk};
    fa_ovf_limit(s, fwd_fits, &c, lim, sizeof lim);
    FA_FAIL(FA_EOVERFLOW, "%s's closed-form %s exceed 64 bits for " FA_OVF_DIMS "%s", fa_algo_name(a), what,
            FA_OVF_ARGS(s), lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

static fa_status formula(fa_algo a, const fa_shape *s, fa_blocks bk, fa_formula *out, char *what, size_t n)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    const u128 Nq = (u128)s->seqlen_q, Nk = (u128)s->seqlen_k, d = (u128)s->d,
               dv = (u128)s->d_v, e = (u128)fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
    acc128 A;
    memset(&A, 0, sizeof A);

    switch (a) {
    case FA_ALGO_STANDARD: {
        /* (1) S = Q K^T: Q once, K once per row block, S written once */
        A.r[TQ] = Nq * d * e;
        A.r[TK] = (u128)T_r * Nk * d * e;
        A.w[TS] = Nq * Nk * e;
        /* (2) softmax: S read once (T_c = 1) or twice, P written once */
        A.r[TS] = (T_c > 1 ? 2 : 1) * Nq * Nk * e;
        A.w[TP] = Nq * Nk * e;
        /* (3) O = P V: P once, V once per row block, O written once */
        A.r[TP] = Nq * Nk * e;
        A.r[TV] = (u128)T_r * Nk * dv * e;
        A.w[TO] = Nq * dv * e;
        A.mm = 2 * Nq * Nk * (d + dv);
        if (s->dense_mask) A.r[Tmask] = Nq * Nk; /* kernel (1) reads every mask tile */
        break;
    }
    case FA_ALGO_FLASH2: {
        if (!fa_has_mask(s)) {
            A.r[TQ] = Nq * d * e;
            A.r[TK] = (u128)T_r * Nk * d * e;
            A.r[TV] = (u128)T_r * Nk * dv * e;
            A.mm = 2 * Nq * Nk * (d + dv);
        } else {
            /* row block i reads the keys of the tiles it visits (not SKIP under the mask) */
            for (int64_t i = 0; i < T_r; i++) {
                int64_t r0 = i * Br, rows = fa_tile_len(r0, s->seqlen_q, Br), nt, nkeys;
                fa_kv_span_sum(s, r0, rows, Bc, &nt, &nkeys);
                u128 keys = (u128)nkeys;
                if (nt > 0) A.r[TQ] += (u128)rows * d * e;
                A.r[TK] += keys * d * e;
                A.r[TV] += keys * dv * e;
                A.mm += 2 * (u128)rows * keys * (d + dv);
                if (s->dense_mask) A.r[Tmask] += (u128)rows * keys; /* a mask tile per visit */
            }
        }
        A.w[TO] = Nq * dv * e;
        A.w[TLSE] = Nq * 4;
        break;
    }
    case FA_ALGO_FLASH1: {
        /* line 2: O, l, m initialised in HBM */
        A.w[TO] = Nq * dv * e;
        A.w[Tl] = A.w[Tm] = Nq * 4;
        u128 visits = 0; /* sum over K tiles j of the query rows that visit it */
        if (!fa_has_mask(s)) {
            A.r[TK] = Nk * d * e;
            A.r[TV] = Nk * dv * e;
            visits = (u128)T_c * Nq;
            A.mm = 2 * Nq * Nk * (d + dv);
        } else {
            for (int64_t j = 0; j < T_c; j++) {
                int64_t c0 = j * Bc, cols = fa_tile_len(c0, s->seqlen_k, Bc), nb, nrows;
                fa_q_span_sum(s, c0, cols, Br, &nb, &nrows);
                if (nb == 0) continue; /* nobody sees this tile: not loaded */
                u128 rows = (u128)nrows;
                A.r[TK] += (u128)cols * d * e;
                A.r[TV] += (u128)cols * dv * e;
                visits += rows;
                A.mm += 2 * rows * (u128)cols * (d + dv);
                if (s->dense_mask) A.r[Tmask] += rows * (u128)cols;
            }
        }
        /* lines 8, 12, 13 on every visit: read Q_i, O_i, l_i, m_i; write O_i, l_i, m_i */
        A.r[TQ] = visits * d * e;
        A.r[TO] = visits * dv * e;
        A.r[Tl] = A.r[Tm] = visits * 4;
        A.w[TO] += visits * dv * e;
        A.w[Tl] += visits * 4;
        A.w[Tm] += visits * 4;
        break;
    }
    default: FA_FAIL(FA_EINVAL, "unknown algorithm %d", (int)a);
    }
    return finish(&A, s, out, what, n);
}

/* flash2's tile loads of s; 1 when either exceeds 64 bits. */
static int flash2_loads(const fa_shape *s, fa_blocks bk, uint64_t *q_loads, uint64_t *kv_loads)
{
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    u128 q = 0, kv = 0;
    if (!fa_has_mask(s)) {
        q = (u128)T_r;
        kv = (u128)T_r * (u128)T_c;
    } else {
        for (int64_t i = 0; i < T_r; i++) { /* the loop of the flash2 closed form above */
            int64_t r0 = i * bk.block_r, rows = fa_tile_len(r0, s->seqlen_q, bk.block_r), nt, nkeys;
            fa_kv_span_sum(s, r0, rows, bk.block_c, &nt, &nkeys);
            if (nt > 0) q++;
            kv += (u128)nt;
        }
    }
    const u128 heads = (u128)s->batch * (u128)s->heads;
    q *= heads;
    kv *= heads;
    if (q > UINT64_MAX || kv > UINT64_MAX) return 1;
    *q_loads = (uint64_t)q;
    *kv_loads = (uint64_t)kv;
    return 0;
}

static int loads_fit(const fa_shape *t, const void *ctx)
{
    uint64_t q, kv;
    return !flash2_loads(t, *(const fa_blocks *)ctx, &q, &kv);
}

fa_status fa_formula_flash2_loads(const fa_shape *s, fa_blocks bk, uint64_t *q_loads, uint64_t *kv_loads)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    if (!flash2_loads(s, bk, q_loads, kv_loads)) return FA_OK;
    char lim[320];
    fa_ovf_limit(s, loads_fit, &bk, lim, sizeof lim);
    FA_FAIL(FA_EOVERFLOW, "flash2 tile loads exceed 64 bits for " FA_OVF_DIMS "%s", FA_OVF_ARGS(s),
            lim[0] ? lim : " (use a smaller --seqlen, --batch or --heads)");
}

uint64_t fa_sram_need(fa_algo a, const fa_shape *s, fa_blocks bk)
{
    const uint64_t Br = (uint64_t)bk.block_r, Bc = (uint64_t)bk.block_c, d = (uint64_t)s->d,
                   dv = (uint64_t)s->d_v, e = (uint64_t)fa_dtype_bytes(s->dtype);
    const uint64_t mk = s->dense_mask ? Br * Bc : 0; /* the dense mask tile, 1 byte each */
    if (a == FA_ALGO_STANDARD) {
        uint64_t k1 = Br * d * e + Bc * d * e + 4 * Br * Bc + mk;  /* Q_i, K_j, S_ij */
        uint64_t k2 = 4 * Br * Bc + 8 * Br;                   /* S_ij, m_i, l_i */
        uint64_t k3 = 4 * Br * Bc + Bc * dv * e + 4 * Br * dv; /* P_ij, V_j, O_i */
        uint64_t mx = k1 > k2 ? k1 : k2;
        return mx > k3 ? mx : k3;
    }
    /* Q_i, K_j, V_j in the dtype; S_ij, O_i (accumulator), m_i, l_i in fp32 */
    return Br * d * e + Bc * d * e + Bc * dv * e + 4 * Br * Bc + 4 * Br * dv + 8 * Br + mk;
}

double fa_bound_bytes(fa_algo a, const fa_shape *s, uint64_t M)
{
    double BH = (double)s->batch * (double)s->heads, Nq = (double)s->seqlen_q,
           Nk = (double)s->seqlen_k, d = (double)s->d, e = fa_dtype_bytes(s->dtype);
    if (a == FA_ALGO_STANDARD) return BH * (Nq * d + Nq * Nk) * e;
    return BH * Nq * Nk * d * d * e * e / (double)M;
}

int fa_theta_in_range(fa_pass p, const fa_shape *s, uint64_t M, double *compulsory)
{
    const double e = fa_dtype_bytes(s->dtype), d = (double)s->d, dv = (double)s->d_v, B = (double)s->batch;
    const double fwd = B * e * ((double)s->heads * (double)s->seqlen_q * (d + dv) +
                                (double)s->kv_heads * (double)s->seqlen_k * (d + dv));
    if (compulsory) *compulsory = p == FA_PASS_FWD ? fwd : p == FA_PASS_BWD ? 2 * fwd : 3 * fwd;
    const double N = (double)(s->seqlen_q < s->seqlen_k ? s->seqlen_q : s->seqlen_k);
    return (double)M >= d * e && (double)M <= N * d * e;
}

void fa_blocks_paper(const fa_shape *s, uint64_t M, fa_blocks *out, uint64_t *overflow)
{
    uint64_t Mel = M / (uint64_t)fa_dtype_bytes(s->dtype); /* M in elements */
    int64_t b = (int64_t)((Mel + 4 * (uint64_t)s->d - 1) / (4 * (uint64_t)s->d));
    if (b < 1) b = 1;
    /* a tile longer than the sequence holds nothing more: clamp to N_k and N_q */
    out->block_c = b < s->seqlen_k ? b : s->seqlen_k;
    int64_t br = b < s->d ? b : s->d;
    out->block_r = br < s->seqlen_q ? br : s->seqlen_q;
    uint64_t need = fa_sram_need(FA_ALGO_FLASH1, s, *out);
    *overflow = need > M ? need - M : 0;
}
