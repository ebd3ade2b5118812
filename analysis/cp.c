/* cp.c -- context parallelism: attention over P GPUs as local FlashAttention-2 calls (the
 * single-GPU model of fa_perf.h), LSE merges and NVLink transfers.  Every count and time is
 * derived in docs/context-parallel.md; the section named beside each piece below is that page's. */
#include "fa_cp.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *const SCHEME_NAMES[FA_CP_NSCHEME] = {"ring", "zigzag", "allgather", "ulysses"};

const char *fa_cp_scheme_name(fa_cp_scheme s)
{
    return (int)s >= 0 && s < FA_CP_NSCHEME ? SCHEME_NAMES[s] : "?";
}

fa_status fa_cp_scheme_parse(const char *text, fa_cp_scheme *out)
{
    for (int i = 0; i < FA_CP_NSCHEME; i++)
        if (text && !strcmp(text, SCHEME_NAMES[i])) {
            *out = (fa_cp_scheme)i;
            return FA_OK;
        }
    FA_FAIL(FA_EINVAL, "unknown context-parallel scheme '%s' (known: ring, zigzag, allgather, ulysses)",
            text ? text : "");
}

/* 1 when the scheme places the queries in the zigzag chunks r and 2P-1-r (docs, "Layouts"). */
static int zigzag_layout(const fa_shape *s, fa_cp_scheme sc)
{
    return sc == FA_CP_ZIGZAG || (sc == FA_CP_ALLGATHER && s->causal != FA_CAUSAL_NONE);
}

fa_status fa_cp_check(const fa_shape *s, int64_t P, fa_cp_scheme sc)
{
    if ((int)sc < 0 || sc >= FA_CP_NSCHEME)
        FA_FAIL(FA_EINVAL, "context-parallel scheme %d is not one of ring, zigzag, allgather, ulysses", (int)sc);
    if (P < 1 || P > FA_CP_MAX_P)
        FA_FAIL(FA_EINVAL, "P = %" PRId64 " GPUs is out of range: the limit is 1 to %d", P, FA_CP_MAX_P);
    FA_TRY(fa_shape_check(s));
    if (s->seqlen_q != s->seqlen_k)
        FA_FAIL(FA_EINVAL, "context parallelism splits one sequence: N_q = %" PRId64 " must equal N_k = %" PRId64
                " (self-attention)", s->seqlen_q, s->seqlen_k);
    if (s->window || s->block_mask || s->col_mask || s->dense_mask)
        FA_FAIL(FA_EINVAL, "context parallelism is modelled for full and causal attention only (no --window, "
                "--block-mask, --col-mask, --doc-mask or --mask)");
    if (P == 1) return FA_OK; /* one GPU: the single-GPU call, any N */
    const int64_t N = s->seqlen_q;
    if (zigzag_layout(s, sc)) {
        if (N % (2 * P))
            FA_FAIL(FA_EINVAL, "%s: N = %" PRId64 " is not a multiple of 2P = %" PRId64 " (GPU r holds the chunks r "
                    "and 2P-1-r of N/(2P) tokens)", fa_cp_scheme_name(sc), N, 2 * P);
    } else if (N % P) {
        FA_FAIL(FA_EINVAL, "%s: N = %" PRId64 " is not a multiple of P = %" PRId64 " (each GPU holds N/P tokens)",
                fa_cp_scheme_name(sc), N, P);
    }
    if (sc == FA_CP_ULYSSES) {
        if (s->heads % P)
            FA_FAIL(FA_EINVAL, "ulysses: H = %" PRId64 " query heads is not a multiple of P = %" PRId64
                    " (each GPU computes H/P heads)", s->heads, P);
        if (s->kv_heads % P)
            FA_FAIL(FA_EINVAL, "ulysses: H_kv = %" PRId64 " kv heads is not a multiple of P = %" PRId64
                    " (each GPU takes H_kv/P of them; replicating kv heads is not modelled): the limit is P <= %"
                    PRId64 " dividing H_kv", s->kv_heads, P, s->kv_heads);
    }
    return FA_OK;
}

/* ---- the closed forms (docs/context-parallel.md) ---- */

uint64_t fa_cp_link_bytes(const fa_shape *s, int64_t P, fa_cp_scheme sc)
{
    if (P <= 1) return 0;
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), B = (uint64_t)s->batch, n = (uint64_t)(s->seqlen_q / P);
    const uint64_t H = (uint64_t)s->heads, Hkv = (uint64_t)s->kv_heads, d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    if (sc == FA_CP_ULYSSES) /* "Ulysses": of each of Q, K, V, O a GPU keeps 1/P of its shard */
        return (uint64_t)(P - 1) * B * n * ((H / (uint64_t)P) * (d + dv) + (Hkv / (uint64_t)P) * (d + dv)) * e;
    /* ring, zigzag: (P-1) steps, one K/V chunk each; allgather: the P-1 chunks of the others */
    return (uint64_t)(P - 1) * B * n * Hkv * (d + dv) * e;
}

uint64_t fa_cp_merge_bytes(const fa_shape *s, int64_t rows)
{
    /* "Merge": read O_acc (fp32), O_s (e), LSE_acc, LSE_s (fp32); write O_acc, LSE_acc */
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    return (uint64_t)s->batch * (uint64_t)s->heads * (uint64_t)rows * ((uint64_t)s->d_v * (8 + e) + 12);
}

/* The accumulator's fp32 start from step 0's O (read e, write 4) and the final cast back (read 4,
 * write e): B H R d_v (4 + e) each. */
static uint64_t cast_bytes(const fa_shape *s, int64_t rows)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    return (uint64_t)s->batch * (uint64_t)s->heads * (uint64_t)rows * (uint64_t)s->d_v * (4 + e);
}

static uint64_t merge_flops(const fa_shape *s, int64_t rows)
{
    return (uint64_t)s->batch * (uint64_t)s->heads * (uint64_t)rows * (3 * (uint64_t)s->d_v + 8);
}

uint64_t fa_cp_memory_bytes(const fa_shape *s, int64_t P, fa_cp_scheme sc)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), B = (uint64_t)s->batch, N = (uint64_t)s->seqlen_q;
    const uint64_t H = (uint64_t)s->heads, Hkv = (uint64_t)s->kv_heads, d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t q = H * d * e, kv = Hkv * (d + dv) * e, o = H * dv * e, lse = 4 * H; /* bytes per token */
    if (P <= 1) return B * N * (q + kv + o + lse);
    const uint64_t n = N / (uint64_t)P;
    switch (sc) {
    case FA_CP_RING: case FA_CP_ZIGZAG: /* Q, two K/V buffers, O_s, O_acc (fp32), LSE_s, LSE_acc */
        return B * n * (q + 2 * kv + o + H * dv * 4 + 2 * lse);
    case FA_CP_ALLGATHER: /* Q, the gathered K/V of all N tokens, O, LSE */
        return B * (n * q + N * kv + n * o + n * lse);
    case FA_CP_ULYSSES: /* Q, K, V and O in both layouts, LSE of H/P heads over N tokens */
        return B * (2 * n * (q + kv + o) + N * lse / (uint64_t)P);
    default: return 0;
    }
}

/* ---- the local calls ---- */

typedef struct {
    uint64_t bytes, flops;
    double t;
} call_cost;

typedef struct {
    const fa_cp_config *c;
    const fa_profile *prof;
    int has_time, counted; /* every call so far */
    char key[16];
} call_ctx;

/* One FlashAttention-2 forward of nq queries against nk keys on `heads` (kv_heads) heads of the
 * layer's shape, bottom-right causal when causal (the queries are the last nq of the nk
 * positions): its closed-form bytes and matmul FLOPs, its time-model time. */
static fa_status call(call_ctx *x, int64_t heads, int64_t kv_heads, int64_t nq, int64_t nk, int causal, call_cost *out)
{
    fa_shape s = x->c->shape;
    s.heads = heads, s.kv_heads = kv_heads, s.seqlen_q = nq, s.seqlen_k = nk;
    s.causal = causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
    fa_perf_result pr;
    if (x->c->count) FA_TRY(fa_perf_predict_counted(x->prof, FA_PASS_FWD, &s, &x->c->hw, NULL, &pr));
    else FA_TRY(fa_perf_predict(x->prof, FA_PASS_FWD, &s, &x->c->hw, NULL, &pr));
    out->bytes = pr.io.formula.read_bytes + pr.io.formula.write_bytes;
    out->flops = pr.io.formula.matmul_flops;
    out->t = pr.has_time ? pr.time_s : pr.io.time_s;
    x->has_time &= pr.has_time != 0;
    if (x->c->count) x->counted &= fa_counts_hbm_bytes(&pr.io.counts) == out->bytes;
    return FA_OK;
}

/* The totals of one GPU: its bytes and FLOPs. */
typedef struct {
    uint64_t attn_bytes, merge_bytes, attn_flops, merge_flops;
    int64_t calls, merges;
} gpu_sum;

static void add_call(gpu_sum *g, const call_cost *k, int64_t times)
{
    g->attn_bytes += (uint64_t)times * k->bytes;
    g->attn_flops += (uint64_t)times * k->flops;
    g->calls += times;
}

static void add_merges(gpu_sum *g, const fa_shape *s, int64_t rows, int64_t times)
{
    g->merge_bytes += (uint64_t)times * fa_cp_merge_bytes(s, rows);
    g->merge_flops += (uint64_t)times * merge_flops(s, rows);
    g->merges += times;
}

/* Keeps the GPU with the most HBM bytes (the first of equals). */
static void keep_busiest(fa_cp_result *r, const gpu_sum *g, int64_t rank, int first)
{
    if (!first && g->attn_bytes + g->merge_bytes <= r->hbm_bytes) return;
    r->gpu = rank;
    r->attn_bytes = g->attn_bytes, r->merge_bytes = g->merge_bytes, r->hbm_bytes = g->attn_bytes + g->merge_bytes;
    r->attn_flops = g->attn_flops, r->merge_flops = g->merge_flops;
    r->calls = g->calls, r->merges = g->merges;
}

fa_status fa_cp_predict(const fa_cp_config *c, fa_cp_result *r)
{
    memset(r, 0, sizeof *r);
    const fa_shape *s = &c->shape;
    const int64_t P = c->P, N = s->seqlen_q, H = s->heads, Hkv = s->kv_heads;
    FA_TRY(fa_cp_check(s, P, c->scheme));
    if (P > 1 && !(c->hw.nvlink_bandwidth > 0))
        FA_FAIL(FA_EINVAL, "hardware profile %s gives no nvlink_bytes_per_s: the context-parallel time needs the "
                "NVLink bandwidth per direction (docs/conventions.md, \"Hardware profiles\")", c->hw.key);
    call_ctx x = {.c = c, .prof = c->profile ? c->profile : fa_profile_default(FA_ALGO_FLASH2), .has_time = 1, .counted = 1};
    r->scheme = c->scheme, r->P = P;
    snprintf(r->profile, sizeof r->profile, "%s", x.prof->key);
    const int causal = s->causal != FA_CAUSAL_NONE;
    const double dram = c->hw.dram_bandwidth > 0 ? c->hw.dram_bandwidth : c->hw.hbm_bandwidth;
    const double link = c->hw.nvlink_bandwidth;
    r->sent_bytes = r->recv_bytes = fa_cp_link_bytes(s, P, c->scheme);
    r->memory_bytes = fa_cp_memory_bytes(s, P, c->scheme);
    r->comm_s = P > 1 ? (double)r->recv_bytes / link : 0;
    gpu_sum g = {0};
    if (P == 1) { /* "One GPU": the single-GPU call, nothing moves */
        call_cost k;
        FA_TRY(call(&x, H, Hkv, N, N, causal, &k));
        add_call(&g, &k, 1);
        keep_busiest(r, &g, 0, 1);
        r->compute_s = r->time_s = k.t;
    } else if (c->scheme == FA_CP_RING || c->scheme == FA_CP_ZIGZAG) {
        const int64_t n = N / P, h = n / 2; /* a GPU's tokens; zigzag: one chunk */
        const int zz = c->scheme == FA_CP_ZIGZAG && causal;
        call_cost diag, full, A, Bk;
        double c_step[FA_CP_MAX_P]; /* the slowest GPU's compute of each step */
        const double t_x = (double)((uint64_t)s->batch * (uint64_t)n * (uint64_t)Hkv * (uint64_t)(s->d + s->d_v) *
                                    (uint64_t)fa_dtype_bytes(s->dtype)) / link; /* one K/V chunk */
        const double t_merge_n = (double)fa_cp_merge_bytes(s, n) / dram, t_merge_h = (double)fa_cp_merge_bytes(s, h) / dram;
        const double t_init = (double)cast_bytes(s, n) / dram; /* and the final cast alike */
        if (zz) { /* "Zigzag": step 0 causal on its 2 chunks; then q 2c x k c (A) or q c x kv 2c (B) */
            FA_TRY(call(&x, H, Hkv, n, n, 1, &diag));
            FA_TRY(call(&x, H, Hkv, n, h, 0, &A));
            FA_TRY(call(&x, H, Hkv, h, n, 0, &Bk));
            for (int64_t rk = 0; rk < P; rk++) {
                gpu_sum gr = {0};
                add_call(&gr, &diag, 1);
                add_call(&gr, &A, rk);
                add_call(&gr, &Bk, P - 1 - rk);
                add_merges(&gr, s, n, rk);
                add_merges(&gr, s, h, P - 1 - rk);
                gr.merge_bytes += 2 * cast_bytes(s, n);
                keep_busiest(r, &gr, rk, rk == 0);
            }
            c_step[0] = diag.t + t_init;
            const double ta = A.t + t_merge_n, tb = Bk.t + t_merge_h;
            for (int64_t st = 1; st < P; st++) c_step[st] = ta > tb ? ta : tb; /* both kinds run at every step */
        } else { /* "Ring": step 0 on the own chunk (causal: the diagonal), then full chunks */
            FA_TRY(call(&x, H, Hkv, n, n, causal, &diag));
            full = diag;
            if (causal) FA_TRY(call(&x, H, Hkv, n, n, 0, &full));
            /* causal: GPU r computes steps 0..r (the chunks at or below its own); the busiest is P-1 */
            for (int64_t rk = 0; rk < P; rk++) {
                gpu_sum gr = {0};
                const int64_t later = causal ? rk : P - 1;
                add_call(&gr, &diag, 1);
                add_call(&gr, &full, later);
                add_merges(&gr, s, n, later);
                gr.merge_bytes += 2 * cast_bytes(s, n);
                keep_busiest(r, &gr, rk, rk == 0);
            }
            c_step[0] = diag.t + t_init;
            for (int64_t st = 1; st < P; st++) c_step[st] = full.t + t_merge_n; /* GPU P-1 works at every step */
        }
        /* "Overlap": transfer s+1 runs during step s's compute; the last step has none to hide */
        double t = 0, hide = 0;
        for (int64_t st = 0; st + 1 < P; st++) {
            t += c_step[st] > t_x ? c_step[st] : t_x;
            hide += c_step[st];
        }
        t += c_step[P - 1] + t_init; /* and the final cast */
        r->compute_s = hide + c_step[P - 1] + t_init;
        r->time_s = t;
        r->link_bound = r->comm_s > hide;
    } else if (c->scheme == FA_CP_ALLGATHER) {
        const int64_t n = N / P, h = n / 2;
        double worst = 0;
        for (int64_t rk = 0; rk < P; rk++) {
            gpu_sum gr = {0};
            double t = 0;
            call_cost k1, k2;
            if (causal) { /* "All-gather": chunks r and 2P-1-r against the keys up to their ends */
                FA_TRY(call(&x, H, Hkv, h, (rk + 1) * h, 1, &k1));
                FA_TRY(call(&x, H, Hkv, h, (2 * P - rk) * h, 1, &k2));
                add_call(&gr, &k1, 1);
                add_call(&gr, &k2, 1);
                t = k1.t + k2.t;
            } else {
                FA_TRY(call(&x, H, Hkv, n, N, 0, &k1));
                add_call(&gr, &k1, 1);
                t = k1.t;
            }
            if (t > worst) worst = t;
            keep_busiest(r, &gr, rk, rk == 0);
            if (!causal) break; /* every GPU alike */
        }
        r->compute_s = worst;
        r->time_s = r->comm_s + worst; /* not pipelined: the gather completes before the calls */
        r->link_bound = r->comm_s > worst;
    } else { /* "Ulysses": H/P heads over all N tokens */
        call_cost k;
        FA_TRY(call(&x, H / P, Hkv / P, N, N, causal, &k));
        add_call(&g, &k, 1);
        keep_busiest(r, &g, 0, 1);
        r->compute_s = k.t;
        r->time_s = r->comm_s + k.t; /* all-to-all, the call, all-to-all: each waits for the one before */
        r->link_bound = r->comm_s > k.t;
    }
    r->has_time = x.has_time;
    r->counted = c->count ? x.counted : -1;
    return FA_OK;
}
