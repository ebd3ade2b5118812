/* decode.c -- the inference kernel of fa_infer.h: FlashAttention-2 (Dao 2023, Alg. 1) per
 * sequence, with split-KV chunks (Flash-Decoding) and their combine kernel, GQA-packed row
 * blocks and paged K/V.  Entry points: fa_decode_forward, fa_paged_forward (paged.c),
 * fa_varlen_forward (varlen.c).  Counts and their closed forms: docs/inference.md. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fa_infer_impl.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

fa_infer_opts fa_infer_opts_default(void)
{
    fa_infer_opts o = {.splits = 1, .pack_gqa = 0, .page_size = 0};
    return o;
}

uint64_t fa_combine_flops_per_row(int64_t S, int64_t dv)
{
    return 4u * (uint64_t)S + 2u + (uint64_t)S * (2u + 2u * (uint64_t)dv);
}

/* log sum_s exp(lse[s * stride]) around the max; -inf when every term is -inf. */
static double lse_sum(int64_t n, const double *lse, int64_t stride)
{
    double m = -INFINITY;
    for (int64_t k = 0; k < n; k++)
        if (lse[k * stride] > m) m = lse[k * stride];
    if (m == -INFINITY) return -INFINITY;
    double sum = 0;
    for (int64_t k = 0; k < n; k++) sum += fa_exp_guarded(lse[k * stride], m);
    return m + log(sum);
}

void fa_lse_merge(int64_t n, const double *lse, const double *O_parts, int64_t ld, int64_t dv,
                  double *O, double *lse_out)
{
    double L = lse_sum(n, lse, 1);
    for (int64_t c = 0; c < dv; c++) O[c] = 0;
    for (int64_t k = 0; k < n; k++) {
        double w = fa_exp_guarded(lse[k], L); /* 0 for an empty partial, also when L = -inf */
        if (w == 0) continue;
        for (int64_t c = 0; c < dv; c++) O[c] += w * O_parts[k * ld + c];
    }
    *lse_out = L;
}

fa_status fa_infer_opts_check(const fa_shape *s, fa_blocks bk, const fa_infer_opts *opt,
                              const fa_varlen *vl)
{
    FA_TRY(fa_blocks_check(bk));
    if (opt->pack_gqa != 0 && opt->pack_gqa != 1)
        FA_FAIL(FA_EINVAL, "pack_gqa = %d must be 0 or 1", opt->pack_gqa);
    int64_t T_c = 0;
    if (vl) {
        for (int64_t b = 0; b < vl->nseq; b++) {
            int64_t t = fa_cdiv(vl->cu_k[b + 1] - vl->cu_k[b], bk.block_c);
            if (t > T_c) T_c = t;
        }
    } else {
        T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    }
    if (opt->splits < 1 || opt->splits > T_c)
        FA_FAIL(FA_EINVAL,
                "splits = %" PRId64 " must be between 1 and the number of key blocks T_c = "
                "ceil(N_k / B_c) = %" PRId64 " (B_c = %" PRId64 ")",
                opt->splits, T_c, bk.block_c);
    if (opt->page_size < 0)
        FA_FAIL(FA_EINVAL, "page size = %" PRId64 " must be >= 1", opt->page_size);
    if (opt->page_size > 0 && bk.block_c % opt->page_size != 0 && opt->page_size % bk.block_c != 0)
        FA_FAIL(FA_EINVAL,
                "page size P = %" PRId64 " and key block B_c = %" PRId64 ": one must divide the "
                "other (a key tile covers whole pages or lies inside one page)",
                opt->page_size, bk.block_c);
    return FA_OK;
}

/* A buffer whose row 0 is row r of b (a load at a row offset inside an SRAM tile). */
static fa_buf rows_at(const fa_buf *b, int64_t r)
{
    fa_buf x = *b;
    x.data = b->data ? b->data + r * b->cols : NULL;
    x.rows = b->rows - r;
    return x;
}

/* Moves the packed rows [p0, p0 + rows) of head group grp between t and buf (columns
 * [col0, col0 + cols)).  One head per program: one tile.  Packed heads: packed row p is row
 * i = p / hp of query head grp hp + p % hp, one transfer per row (a gather / scatter). */
static fa_status move_rows(fa_mem *mem, const infer_eng *E, fa_tensor *t, int64_t b,
                           int64_t grp, int64_t p0, int64_t rows, int64_t col0, int64_t cols,
                           fa_buf *buf, int write)
{
    if (E->hp == 1)
        return write ? fa_store(mem, t, b, grp, p0, rows, col0, cols, buf)
                     : fa_load(mem, t, b, grp, p0, rows, col0, cols, buf);
    for (int64_t r = 0; r < rows; r++) {
        int64_t p = p0 + r, i = p / E->hp, h = grp * E->hp + p % E->hp;
        fa_buf x = rows_at(buf, r);
        FA_TRY(write ? fa_store(mem, t, b, h, i, 1, col0, cols, &x)
                     : fa_load(mem, t, b, h, i, 1, col0, cols, &x));
    }
    return FA_OK;
}

/* Loads K_j, V_j (keys [c0, c0 + cols) of kv head hk of sequence q): contiguous, or page by
 * page through the block table (its entries for the tile's pages first). */
static fa_status load_kv(fa_mem *mem, infer_eng *E, const infer_seq *q, int64_t hk, int64_t c0,
                         int64_t cols)
{
    const int64_t d = E->s->d, dv = E->s->d_v, P = E->opt.page_size;
    if (P == 0) {
        FA_TRY(fa_load(mem, &q->K, q->b, hk, c0, cols, 0, d, &E->Kj));
        return fa_load(mem, &q->V, q->b, hk, c0, cols, 0, dv, &E->Vj);
    }
    const int64_t pg0 = c0 / P, pg1 = (c0 + cols - 1) / P;
    FA_TRY(fa_load(mem, &E->BT, q->seq, 0, pg0, pg1 - pg0 + 1, 0, 1, &E->bt));
    for (int64_t pg = pg0; pg <= pg1; pg++) {
        int64_t phys = E->bt.data ? (int64_t)E->bt.data[pg - pg0] : q->seq * E->pps + pg;
        int64_t k0 = c0 > pg * P ? c0 : pg * P, k1 = min64(c0 + cols, (pg + 1) * P);
        fa_buf kx = rows_at(&E->Kj, k0 - c0), vx = rows_at(&E->Vj, k0 - c0);
        FA_TRY(fa_load(mem, &q->K, phys, hk, k0 - pg * P, k1 - k0, 0, d, &kx));
        FA_TRY(fa_load(mem, &q->V, phys, hk, k0 - pg * P, k1 - k0, 0, dv, &vx));
    }
    return FA_OK;
}

/* One thread block: packed row block i of head group grp of sequence q, key chunk sp.
 * FlashAttention-2 Alg. 1 lines 4-15 over the chunk's tiles. */
static fa_status program(fa_mem *mem, infer_eng *E, infer_seq *q, int64_t grp, int64_t i,
                         int64_t sp)
{
    const fa_shape *s = E->s;
    const int64_t Br = E->bk.block_r, Bc = E->bk.block_c, d = s->d, dv = s->d_v, hp = E->hp;
    const int64_t S = E->opt.splits, hk = grp * hp / E->g;
    const int64_t R = hp * q->Nq, p0 = i * Br, rows = min64(Br, R - p0);
    const int64_t T_c = fa_cdiv(q->Nk, Bc), chunk = fa_cdiv(T_c, S);
    const int64_t lo = min64(sp * chunk, T_c), hi = min64(T_c, lo + chunk);
    const int64_t imin = p0 / hp, imax = (p0 + rows - 1) / hp;
    const double scale = fa_shape_scale(s);
    int64_t n_visit = 0, n_full = 0;
    if (q->Nk > 0) fa_kv_tiles(&q->sh, imin, imax - imin + 1, Bc, &n_visit, &n_full);
    /* the chunk's tiles some row of the block sees (causal); runs merge where every row sees all */
    fa_tile_iter j = fa_iter_span(mem, q->Nk, Bc, lo, min64(hi, n_visit), min64(hi, n_full));
    fa_mem_set_program(mem, E->program++);

    if (E->Oi.data) /* line 5: O_i = 0, l_i = 0, m_i = -inf on chip */
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t c = 0; c < dv; c++) E->Oi.data[r * dv + c] = 0;
            E->l.data[r] = 0;
            E->m.data[r] = -INFINITY;
        }
    if (!fa_iter_empty(&j)) /* line 4: Q_i (a row block with no tile in this chunk loads nothing) */
        FA_TRY(move_rows(mem, E, &q->Q, q->b, grp, p0, rows, 0, d, &E->Qi, 0));
    fa_status st = FA_OK;
    while (fa_iter_next(&j, &st)) { /* line 6, over this chunk's tiles */
        const int64_t c0 = j.x0, cols = j.len;
        FA_TRY(load_kv(mem, E, q, hk, c0, cols)); /* line 7 */
        FA_TRY(fa_tile_matmul_abt(mem, E->S.data, Bc, E->Qi.data, d, E->Kj.data, d, rows, cols,
                                  d, 0)); /* line 8: S_ij = Q_i K_j^T, then scale and mask */
        FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)cols)); /* scale */
        if (E->S.data)
            for (int64_t r = 0; r < rows; r++)
                for (int64_t c = 0; c < cols; c++) {
                    double *x = &E->S.data[r * Bc + c];
                    *x = fa_mask_allowed(&q->sh, (p0 + r) / hp, c0 + c) ? *x * scale : -INFINITY;
                }
        FA_TRY(fa_tile_online_softmax(mem, E->S.data, Bc, E->m.data, E->l.data, E->Oi.data, dv,
                                      rows, cols, dv)); /* line 9, and line 10's rescale */
        /* line 10: O_i += P~_ij V_j */
        FA_TRY(fa_tile_matmul_ab(mem, E->Oi.data, dv, E->S.data, Bc, E->Vj.data, dv, rows, dv,
                                 cols, 1));
    }
    FA_TRY(st);
    /* lines 12-13: O_i = diag(l_i)^-1 O_i, L_i = m_i + log l_i (empty rows: 0 and -inf) */
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)dv + 2u * (uint64_t)rows));
    if (E->Oi.data)
        for (int64_t r = 0; r < rows; r++) {
            double l = E->l.data[r];
            for (int64_t c = 0; c < dv; c++)
                E->Oi.data[r * dv + c] = l > 0 ? E->Oi.data[r * dv + c] / l : 0.0;
            E->m.data[r] = l > 0 ? E->m.data[r] + log(l) : -INFINITY;
        }
    if (S == 1) { /* lines 14-15 */
        FA_TRY(move_rows(mem, E, &q->O, q->b, grp, p0, rows, 0, dv, &E->Oi, 1));
        return move_rows(mem, E, &q->L, q->b, grp, p0, rows, 0, 1, &E->m, 1);
    }
    /* the chunk's partial: O_s (normalised over the chunk) and LSE_s, fp32 */
    FA_TRY(move_rows(mem, E, &q->Op, q->b, grp, p0, rows, sp * dv, dv, &E->Oi, 1));
    return move_rows(mem, E, &q->Lp, q->b, grp, p0, rows, sp, 1, &E->m, 1);
}

static void free_main(infer_eng *E)
{
    fa_sram_free(&E->Qi);
    fa_sram_free(&E->Kj);
    fa_sram_free(&E->Vj);
    fa_sram_free(&E->S);
    fa_sram_free(&E->Oi);
    fa_sram_free(&E->m);
    fa_sram_free(&E->l);
    fa_sram_free(&E->bt);
}

static fa_status alloc_main(fa_mem *mem, infer_eng *E)
{
    const fa_shape *s = E->s;
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = E->bk.block_r, Bc = E->bk.block_c;
    FA_TRY(fa_sram_alloc(mem, &E->Qi, "Q_i", Br, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &E->Kj, "K_j", Bc, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &E->Vj, "V_j", Bc, s->d_v, e));
    FA_TRY(fa_sram_alloc(mem, &E->S, "S_ij", Br, Bc, 4));
    FA_TRY(fa_sram_alloc(mem, &E->Oi, "O_i", Br, s->d_v, 4));
    FA_TRY(fa_sram_alloc(mem, &E->m, "m_i", Br, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &E->l, "l_i", Br, 1, 4));
    if (E->opt.page_size > 0)
        FA_TRY(fa_sram_alloc(mem, &E->bt, "bt_j", fa_cdiv(Bc, E->opt.page_size), 1, 4));
    return FA_OK;
}

/* The sequences: a plain batch's are identical (slices: one visit of weight B when merging), a
 * varlen batch's differ (tiles of one, never merged); sequence number seq(it). */
static fa_tile_iter seqs(fa_mem *mem, const infer_eng *E)
{
    return E->vl ? fa_iter_rows(mem, 1, 1, E->vl->nseq, 1, 0) : fa_iter_slices(mem, E->s->batch, 1);
}
static int64_t seq(const infer_eng *E, const fa_tile_iter *it) { return E->vl ? it->t : it->b; }

static fa_status main_kernel(fa_mem *mem, infer_eng *E)
{
    const int64_t G = E->s->heads / E->hp;
    fa_status st = FA_OK;
    for (fa_tile_iter sq = seqs(mem, E); fa_iter_next(&sq, &st);) {
        infer_seq q;
        FA_TRY(infer_seq_of(E, seq(E, &sq), &q));
        if (q.Nq == 0) continue; /* no output rows: nothing to do */
        /* every head group of a sequence counts the same; parallel over row blocks and chunks */
        for (fa_tile_iter i = fa_iter_rows(mem, 1, G, E->hp * q.Nq, E->bk.block_r,
                                           E->s->causal == FA_CAUSAL_NONE);
             fa_iter_next(&i, &st);)
            for (int64_t sp = 0; sp < E->opt.splits; sp++) /* the key chunks */
                FA_TRY(program(mem, E, &q, i.h, i.t, sp));
    }
    return st;
}

/* The combine kernel: per (sequence, query head, row block of B_r rows) read LSE_part (rows x S)
 * and the S partial O tiles, write O and LSE. */
static fa_status combine_kernel(fa_mem *mem, infer_eng *E)
{
    const fa_shape *s = E->s;
    const int64_t Br = E->bk.block_r, S = E->opt.splits, dv = s->d_v;
    FA_TRY(fa_sram_alloc(mem, &E->Ls, "LSE_s", Br, S, 4));
    FA_TRY(fa_sram_alloc(mem, &E->Os, "O_s", Br, dv, 4));
    FA_TRY(fa_sram_alloc(mem, &E->Oc, "O_c", Br, dv, 4));
    FA_TRY(fa_sram_alloc(mem, &E->Lc, "LSE_c", Br, 1, 4));
    fa_mem_kernel_barrier(mem);
    E->program = 0;
    fa_status st = FA_OK;
    for (fa_tile_iter sq = seqs(mem, E); fa_iter_next(&sq, &st);) {
        infer_seq q;
        FA_TRY(infer_seq_of(E, seq(E, &sq), &q));
        if (q.Nq == 0) continue;
        for (fa_tile_iter i = fa_iter_rows(mem, 1, s->heads, q.Nq, Br, 1); fa_iter_next(&i, &st);) {
            fa_mem_set_program(mem, E->program++);
            fa_split_bufs cb = {&E->Ls, &E->Os, &E->Oc, &E->Lc};
            FA_TRY(fa_split_combine(mem, S, dv, &q.Op, &q.Lp, &q.O, &q.L, q.b, i.h, i.x0, i.len, &cb));
        }
    }
    return st;
}

fa_status fa_split_combine(fa_mem *mem, int64_t S, int64_t dv, fa_tensor *Op, fa_tensor *Lp, fa_tensor *O,
                           fa_tensor *L, int64_t b, int64_t h, int64_t r0, int64_t rows, const fa_split_bufs *x)
{
    FA_TRY(fa_load(mem, Lp, b, h, r0, rows, 0, S, x->Ls));
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (4u * (uint64_t)S + 2u)));
    if (x->Ls->data)
        for (int64_t r = 0; r < rows; r++) {
            x->Lc->data[r] = lse_sum(S, x->Ls->data + r * S, 1);
            for (int64_t c = 0; c < dv; c++) x->Oc->data[r * dv + c] = 0;
        }
    for (int64_t sp = 0; sp < S; sp++) {
        FA_TRY(fa_load(mem, Op, b, h, r0, rows, sp * dv, dv, x->Os));
        FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (2u + 2u * (uint64_t)dv)));
        if (x->Os->data)
            for (int64_t r = 0; r < rows; r++) {
                double wt = fa_exp_guarded(x->Ls->data[r * S + sp], x->Lc->data[r]);
                if (wt == 0) continue; /* an empty partial (0, -inf) adds nothing */
                for (int64_t c = 0; c < dv; c++) x->Oc->data[r * dv + c] += wt * x->Os->data[r * dv + c];
            }
    }
    FA_TRY(fa_store(mem, O, b, h, r0, rows, 0, dv, x->Oc));
    return fa_store(mem, L, b, h, r0, rows, 0, 1, x->Lc);
}

fa_status infer_run(fa_mem *mem, infer_eng *E)
{
    const fa_shape *s = E->s;
    E->g = s->heads / s->kv_heads;
    E->hp = E->opt.pack_gqa ? E->g : 1;
    E->program = 0;
    int depth = fa_mem_weight_depth(mem);
    fa_status st = alloc_main(mem, E);
    if (st == FA_OK) st = main_kernel(mem, E);
    fa_mem_restore_weight(mem, depth);
    free_main(E);
    if (st == FA_OK && E->opt.splits > 1) {
        st = combine_kernel(mem, E);
        fa_mem_restore_weight(mem, depth);
    }
    fa_sram_free(&E->Ls);
    fa_sram_free(&E->Os);
    fa_sram_free(&E->Oc);
    fa_sram_free(&E->Lc);
    return st;
}

fa_status infer_seq_of(const infer_eng *E, int64_t b, infer_seq *q)
{
    memset(q, 0, sizeof *q);
    q->seq = b;
    q->sh = *E->s;
    q->sh.batch = 1;
    if (!E->vl) {
        q->b = b;
        q->Nq = E->s->seqlen_q;
        q->Nk = E->s->seqlen_k;
        q->Q = E->Q, q->K = E->K, q->V = E->V, q->O = E->O, q->L = E->L, q->Op = E->Op, q->Lp = E->Lp;
        return FA_OK;
    }
    const int64_t q0 = E->vl->cu_q[b], k0 = E->vl->cu_k[b];
    q->b = 0;
    q->Nq = E->vl->cu_q[b + 1] - q0;
    q->Nk = E->vl->cu_k[b + 1] - k0;
    q->sh.seqlen_q = q->Nq;
    q->sh.seqlen_k = q->Nk;
    if (q->Nq > 0) {
        FA_TRY(fa_tensor_view_rows(&E->Q, q0, q->Nq, &q->Q));
        FA_TRY(fa_tensor_view_rows(&E->O, q0, q->Nq, &q->O));
        FA_TRY(fa_tensor_view_rows(&E->L, q0, q->Nq, &q->L));
        if (E->opt.splits > 1) {
            FA_TRY(fa_tensor_view_rows(&E->Op, q0, q->Nq, &q->Op));
            FA_TRY(fa_tensor_view_rows(&E->Lp, q0, q->Nq, &q->Lp));
        }
    }
    if (q->Nk > 0) {
        FA_TRY(fa_tensor_view_rows(&E->K, k0, q->Nk, &q->K));
        FA_TRY(fa_tensor_view_rows(&E->V, k0, q->Nk, &q->V));
    }
    return FA_OK;
}

fa_status infer_make_outputs(fa_mem *mem, infer_eng *E, int64_t B, int64_t N, double *O,
                             double *LSE, double **Op, double **Lp)
{
    const fa_shape *s = E->s;
    const int e = fa_dtype_bytes(s->dtype), numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    const int64_t S = E->opt.splits;
    *Op = *Lp = NULL;
    FA_TRY(fa_tensor_make(mem, &E->O, "O", B, s->heads, N, s->d_v, e, numeric ? O : NULL));
    FA_TRY(fa_tensor_make(mem, &E->L, "LSE", B, s->heads, N, 1, 4, numeric ? LSE : NULL));
    if (S == 1) return FA_OK;
    if (numeric) {
        *Op = calloc((size_t)(B * s->heads * N * S * s->d_v), sizeof(double));
        *Lp = calloc((size_t)(B * s->heads * N * S), sizeof(double));
        if (!*Op || !*Lp) FA_FAIL(FA_ENOMEM, "out of host memory for the split-KV partials");
    }
    FA_TRY(fa_tensor_make(mem, &E->Op, "O_part", B, s->heads, N, S * s->d_v, 4, *Op));
    return fa_tensor_make(mem, &E->Lp, "LSE_part", B, s->heads, N, S, 4, *Lp);
}

fa_status fa_decode_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk,
                            const fa_infer_opts *opt, const double *Q, const double *K,
                            const double *V, double *O, double *LSE)
{
    FA_TRY(fa_shape_check(s));
    fa_infer_opts o = opt ? *opt : fa_infer_opts_default();
    if (o.page_size != 0)
        FA_FAIL(FA_EINVAL, "fa_decode_forward reads contiguous K/V: use fa_paged_forward for "
                           "page size %" PRId64, o.page_size);
    FA_TRY(fa_infer_opts_check(s, bk, &o, NULL));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !LSE))
        FA_FAIL(FA_EINVAL, "decode: numeric mode needs Q, K, V, O and LSE");
    const int e = fa_dtype_bytes(s->dtype);
    infer_eng E;
    memset(&E, 0, sizeof E);
    E.s = s;
    E.bk = bk;
    E.opt = o;
    double *Op = NULL, *Lp = NULL;
    fa_status st = fa_tensor_make(mem, &E.Q, "Q", s->batch, s->heads, s->seqlen_q, s->d, e,
                                  numeric ? (double *)Q : NULL);
    if (!st) st = fa_tensor_make(mem, &E.K, "K", s->batch, s->kv_heads, s->seqlen_k, s->d, e,
                                 numeric ? (double *)K : NULL);
    if (!st) st = fa_tensor_make(mem, &E.V, "V", s->batch, s->kv_heads, s->seqlen_k, s->d_v, e,
                                 numeric ? (double *)V : NULL);
    if (!st) st = infer_make_outputs(mem, &E, s->batch, s->seqlen_q, O, LSE, &Op, &Lp);
    if (!st) st = infer_run(mem, &E);
    free(Op);
    free(Lp);
    return st;
}
