/* flash2.c -- FlashAttention-2 forward (Dao 2023, arXiv 2307.08691, Algorithm 1).
 *
 * Outer loop over row blocks Q_i (one thread block each on a GPU), inner loop over K_j, V_j.
 * O_i stays unnormalised in SRAM; one final rescale by diag(l_i)^-1; only the logsumexp
 * LSE_i = m_i + log(l_i) goes to HBM.  HBM traffic per (batch, head), without a mask:
 *   Q once, K and V T_r times, O and LSE once  (docs/io-model.md, "flash2").
 * fa_flash2_forward_split: FlashAttention-2's split-KV kernel on the same loop (each row block's
 * key tiles in S chunks, one thread block each, writing fp32 partials) and its combine kernel
 * (docs/io-model.md, "Split-KV"). */
#include <math.h>
#include <stdlib.h>

#include "fa_attn.h"
#include "fa_infer.h"
#include "fa_numerics.h"

typedef struct {
    fa_buf Qi, Kj, Vj, S, O, m, l;
    fa_mask_io mk; /* dense mask tiles, when there is one */
} flash2_bufs;

static void free_bufs(flash2_bufs *b)
{
    fa_sram_free(&b->Qi);
    fa_sram_free(&b->Kj);
    fa_sram_free(&b->Vj);
    fa_sram_free(&b->S);
    fa_sram_free(&b->O);
    fa_sram_free(&b->m);
    fa_sram_free(&b->l);
    fa_mask_io_free(&b->mk);
}

static fa_status alloc_bufs(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash2_bufs *b)
{
    const int e = fa_dtype_bytes(s->dtype);
    FA_TRY(fa_sram_alloc(mem, &b->Qi, "Q_i", bk.block_r, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &b->Kj, "K_j", bk.block_c, s->d, e));
    FA_TRY(fa_sram_alloc(mem, &b->Vj, "V_j", bk.block_c, s->d_v, e));
    FA_TRY(fa_sram_alloc(mem, &b->S, "S_ij", bk.block_r, bk.block_c, 4));
    FA_TRY(fa_sram_alloc(mem, &b->O, "O_i", bk.block_r, s->d_v, 4));
    FA_TRY(fa_sram_alloc(mem, &b->m, "m_i", bk.block_r, 1, 4));
    FA_TRY(fa_sram_alloc(mem, &b->l, "l_i", bk.block_r, 1, 4));
    FA_TRY(fa_mask_io_init(mem, s, bk, &b->mk));
    return FA_OK;
}

/* Where a row block's results go: O and LSE (no split), or split q's columns of O_part and
 * LSE_part (chunk q of the key tiles: [q chunk, (q + 1) chunk)). */
typedef struct {
    fa_tensor *O, *LSE;  /* (B, H, N_q, d_v) in the dtype, (B, H, N_q) fp32 */
    fa_tensor *Op, *Lp;  /* split-KV: (B, H, N_q, S d_v), (B, H, N_q, S), fp32 */
    int64_t splits, chunk;
} flash2_out;

/* One row block Q_i of slice (b, h), over the key tiles of split q: FlashAttention-2
 * Algorithm 1 lines 4-15 (every tile with one split). */
static fa_status row_block(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash2_bufs *B,
                           fa_tensor *Q, fa_tensor *K, fa_tensor *V, const flash2_out *out,
                           int64_t b, int64_t h, int64_t i, int64_t q)
{
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    const int64_t hk = h / (s->heads / s->kv_heads);
    const int64_t r0 = i * Br, rows = fa_tile_len(r0, s->seqlen_q, Br), T_r = fa_cdiv(s->seqlen_q, Br);
    const int64_t S = out->splits;
    /* the K/V tiles this row block sees (of its split's chunk) */
    fa_tile_iter j = S > 1 ? fa_iter_kv_chunk(mem, s, r0, rows, Bc, q * out->chunk, (q + 1) * out->chunk)
                           : fa_iter_kv(mem, s, r0, rows, Bc);
    /* one thread block per (batch, head, row block) on a GPU; split-KV: per (batch, head, split,
     * row block), row blocks fastest (FlashAttention-2's grid: m_block, n_split_idx, b h) */
    fa_mem_set_program(mem, ((b * s->heads + h) * S + q) * T_r + i);

    /* line 5: O_i = 0, l_i = 0, m_i = -inf on chip */
    if (B->O.data)
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t c = 0; c < dv; c++) B->O.data[r * dv + c] = 0;
            B->l.data[r] = 0;
            B->m.data[r] = -INFINITY;
        }
    if (!fa_iter_empty(&j)) /* line 4: a row block that sees no key loads nothing */
        FA_TRY(fa_load(mem, Q, b, h, r0, rows, 0, d, &B->Qi));
    fa_status st = FA_OK;
    uint64_t steps = 0, rescales = 0; /* this row block's tile steps and rescales */
    while (fa_iter_next(&j, &st)) { /* line 6 */
        const int64_t c0 = j.x0, cols = j.len;
        FA_TRY(fa_load(mem, K, b, hk, c0, cols, 0, d, &B->Kj)); /* line 7 */
        FA_TRY(fa_load(mem, V, b, hk, c0, cols, 0, dv, &B->Vj));
        /* line 8: S_ij = Q_i K_j^T, then scale, softcap, ALiBi and the mask */
        FA_TRY(fa_tile_matmul_abt(mem, B->S.data, Bc, B->Qi.data, d, B->Kj.data, d, rows, cols,
                                  d, 0));
        FA_TRY(fa_mask_io_load(mem, &B->mk, r0, rows, c0, cols));
        FA_TRY(fa_tile_scores(mem, s, h, B->S.data, Bc, NULL, r0, rows, c0, cols));
        fa_tile_num_scores(mem, B->S.data, Bc, rows, cols); /* emulated precision */
        /* line 9: m_new, P~_ij = exp(S_ij - m_new), l_new; line 10 begins: O_i *= exp(m_old - m_new) */
        int rescaled = 1; /* tau > 0: only where m grows by more than tau (FlashAttention-4) */
        FA_TRY(fa_tile_online_softmax_cond(mem, B->S.data, Bc, B->m.data, B->l.data, B->O.data, dv,
                                           rows, cols, dv, s->rescale_threshold, &rescaled));
        steps += (uint64_t)j.w; /* a merged run of j.w identical tiles (count-only mode) */
        if (rescaled) rescales += (uint64_t)j.w;
        fa_tile_round_p(mem, B->S.data, Bc, rows, cols); /* P in the dtype, as the kernel */
        /* dropout (FlashAttention Alg. 2 line 14): l_i keeps the undropped sum, P V the dropped P */
        FA_TRY(fa_tile_dropout(mem, s, b, h, B->S.data, Bc, r0, rows, c0, cols));
        /* line 10: O_i += P~_ij V_j */
        FA_TRY(fa_tile_matmul_ab(mem, B->O.data, dv, B->S.data, Bc, B->Vj.data, dv, rows, dv,
                                 cols, 1));
    }
    FA_TRY(st);
    FA_TRY(fa_count_rescales(mem, steps, rescales)); /* weighted by the row blocks this one stands for */
    /* with tau > 0, m_i may be stale: the exponentials used the same m_i, so O_i / l_i is exact */
    /* line 12: O_i = diag(l_i)^-1 O_i;  line 13: L_i = m_i + log(l_i) (rows*dv + 2*rows FLOPs) */
    FA_TRY(fa_count_flops(mem, 0, (uint64_t)rows * (uint64_t)dv + 2u * (uint64_t)rows));
    if (B->O.data)
        for (int64_t r = 0; r < rows; r++) {
            double l = B->l.data[r];
            for (int64_t c = 0; c < dv; c++) B->O.data[r * dv + c] = l != 0 ? B->O.data[r * dv + c] / l : 0.0;
            B->m.data[r] = l != 0 ? fa_num_lse(mem, B->m.data[r], l) : -INFINITY; /* m_i now holds L_i */
        }
    if (S > 1) { /* split-KV: the chunk's partial, normalised over its keys, and its LSE, fp32 */
        FA_TRY(fa_store(mem, out->Op, b, h, r0, rows, q * dv, dv, &B->O));
        return fa_store(mem, out->Lp, b, h, r0, rows, q, 1, &B->m);
    }
    FA_TRY(fa_store(mem, out->O, b, h, r0, rows, 0, dv, &B->O));  /* line 14 */
    FA_TRY(fa_store(mem, out->LSE, b, h, r0, rows, 0, 1, &B->m)); /* line 15 */
    return FA_OK;
}

static fa_status run(fa_mem *mem, const fa_shape *s, fa_blocks bk, flash2_bufs *B, fa_tensor *Q,
                     fa_tensor *K, fa_tensor *V, const flash2_out *out)
{
    fa_status st = FA_OK;
    if (out->splits == 1) {
        /* line 3: for 1 <= i <= T_r, every (batch, head); parallel over row blocks on a GPU */
        for (fa_tile_iter i = fa_iter_rows(mem, s->batch, s->heads, s->seqlen_q, bk.block_r,
                                           !fa_has_mask(s));
             fa_iter_next(&i, &st);)
            FA_TRY(row_block(mem, s, bk, B, Q, K, V, out, i.b, i.h, i.t, 0));
        return st;
    }
    /* split-KV: every (batch, head), split q, row block i, in FlashAttention-2's launch order */
    for (fa_tile_iter sl = fa_iter_slices(mem, s->batch, s->heads); fa_iter_next(&sl, &st);)
        for (int64_t q = 0; q < out->splits; q++)
            for (fa_tile_iter i = fa_iter_rows(mem, 1, 1, s->seqlen_q, bk.block_r, !fa_has_mask(s));
                 fa_iter_next(&i, &st);)
                FA_TRY(row_block(mem, s, bk, B, Q, K, V, out, sl.b, sl.h, i.t, q));
    return st;
}

int64_t fa_split_combine_rows(const fa_shape *s)
{
    /* flash_fwd_launch_template.h, run_mha_fwd_splitkv_dispatch: kBlockM = kHeadDim % 128 == 0 ?
     * 4 : (kHeadDim % 64 == 0 ? 8 : 16), kHeadDim the head dim rounded up to a multiple of 32 */
    const int64_t d = s->d > s->d_v ? s->d : s->d_v, hd = fa_cdiv(d, 32) * 32;
    return hd % 128 == 0 ? 4 : hd % 64 == 0 ? 8 : 16;
}

/* The combine kernel: every (batch, head) and block of fa_split_combine_rows rows merges the S
 * partials of its rows into O and LSE (fa_split_combine). */
static fa_status combine(fa_mem *mem, const fa_shape *s, const flash2_out *out)
{
    const int64_t S = out->splits, R = fa_split_combine_rows(s), Tm = fa_cdiv(s->seqlen_q, R);
    fa_buf Ls = {0}, Os = {0}, Oc = {0}, Lc = {0};
    fa_status st = fa_sram_alloc(mem, &Ls, "LSE_s", R, S, 4);
    if (!st) st = fa_sram_alloc(mem, &Os, "O_s", R, s->d_v, 4);
    if (!st) st = fa_sram_alloc(mem, &Oc, "O_c", R, s->d_v, 4);
    if (!st) st = fa_sram_alloc(mem, &Lc, "LSE_c", R, 1, 4);
    fa_mem_kernel_barrier(mem); /* after every split's partial */
    const fa_split_bufs cb = {&Ls, &Os, &Oc, &Lc};
    for (fa_tile_iter i = fa_iter_rows(mem, s->batch, s->heads, s->seqlen_q, R, 1); !st && fa_iter_next(&i, &st);) {
        fa_mem_set_program(mem, (i.b * s->heads + i.h) * Tm + i.t);
        st = fa_split_combine(mem, S, s->d_v, out->Op, out->Lp, out->O, out->LSE, i.b, i.h, i.x0, i.len, &cb);
    }
    fa_sram_free(&Ls);
    fa_sram_free(&Os);
    fa_sram_free(&Oc);
    fa_sram_free(&Lc);
    return st;
}

fa_status fa_flash2_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const double *Q,
                            const double *K, const double *V, double *O, double *LSE)
{
    return fa_flash2_forward_split(mem, s, bk, 1, Q, K, V, O, LSE);
}

fa_status fa_flash2_forward_split(fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t splits,
                                  const double *Q, const double *K, const double *V, double *O,
                                  double *LSE)
{
    FA_TRY(fa_shape_check(s));
    FA_TRY(fa_blocks_check(bk));
    const int64_t T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (splits < 1 || splits > T_c)
        FA_FAIL(FA_EINVAL, "split-KV: splits = %lld must be between 1 and T_c = ceil(N_k / B_c) = %lld (B_c = %lld)",
                (long long)splits, (long long)T_c, (long long)bk.block_c);
    int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K || !V || !O || !LSE))
        FA_FAIL(FA_EINVAL, "flash2: numeric mode needs Q, K, V, O and LSE");
    const int e = fa_dtype_bytes(s->dtype);
    fa_tensor tQ, tK, tV, tO, tL;
    FA_TRY(fa_tensor_make(mem, &tQ, "Q", s->batch, s->heads, s->seqlen_q, s->d, e,
                          numeric ? (double *)Q : NULL));
    FA_TRY(fa_tensor_make(mem, &tK, "K", s->batch, s->kv_heads, s->seqlen_k, s->d, e,
                          numeric ? (double *)K : NULL));
    FA_TRY(fa_tensor_make(mem, &tV, "V", s->batch, s->kv_heads, s->seqlen_k, s->d_v, e,
                          numeric ? (double *)V : NULL));
    FA_TRY(fa_tensor_make(mem, &tO, "O", s->batch, s->heads, s->seqlen_q, s->d_v, e,
                          numeric ? O : NULL));
    FA_TRY(fa_tensor_make(mem, &tL, "LSE", s->batch, s->heads, s->seqlen_q, 1, 4,
                          numeric ? LSE : NULL));
    flash2_out out = {.O = &tO, .LSE = &tL, .splits = splits, .chunk = fa_cdiv(T_c, splits)};
    fa_tensor tOp, tLp;
    double *Op = NULL, *Lp = NULL;
    if (splits > 1) { /* FlashAttention-2's oaccum and softmax_lseaccum (fp32) */
        const size_t rows = (size_t)(s->batch * s->heads * s->seqlen_q);
        if (numeric && (!(Op = calloc(rows * (size_t)(splits * s->d_v), sizeof *Op)) ||
                        !(Lp = calloc(rows * (size_t)splits, sizeof *Lp)))) {
            free(Op);
            FA_FAIL(FA_ENOMEM, "flash2: out of host memory for the split-KV partials");
        }
        fa_status sp = fa_tensor_make(mem, &tOp, "O_part", s->batch, s->heads, s->seqlen_q, splits * s->d_v, 4, Op);
        if (!sp) sp = fa_tensor_make(mem, &tLp, "LSE_part", s->batch, s->heads, s->seqlen_q, splits, 4, Lp);
        if (sp) {
            free(Op);
            free(Lp);
            return sp;
        }
        out.Op = &tOp, out.Lp = &tLp;
    }
    flash2_bufs B = {0};
    int depth = fa_mem_weight_depth(mem);
    fa_status st = alloc_bufs(mem, s, bk, &B);
    if (st == FA_OK) st = run(mem, s, bk, &B, &tQ, &tK, &tV, &out);
    fa_mem_restore_weight(mem, depth);
    free_bufs(&B);
    if (st == FA_OK && splits > 1) {
        st = combine(mem, s, &out);
        fa_mem_restore_weight(mem, depth);
    }
    free(Op);
    free(Lp);
    return st;
}
