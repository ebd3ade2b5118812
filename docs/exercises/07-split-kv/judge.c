/* judge.c -- exercise 07: provides ex_partial_forward (kernel 1 of split-KV decoding), runs the
 * student's split + merge in numeric mode on the memory model, compares O and LSE with the fp64
 * reference, and holds K, V to one read per query head and the partials to one write and one
 * read -- the traffic judged only when O and LSE are right. */
#include "judge.h"
#include "ex.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

fa_status ex_partial_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, const ex_decode_tensors *t,
                             int64_t b, int64_t h, int64_t p, int64_t j_begin, int64_t j_end)
{
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v, Nq = s->seqlen_q;
    const int64_t hk = h / (s->heads / s->kv_heads), T_c = fa_cdiv(s->seqlen_k, Bc);
    if (j_begin < 0 || j_end > T_c || j_begin > j_end || p < 0 || (p + 1) * Nq > t->Opart->shape[2])
        FA_FAIL(FA_EINVAL, "ex_partial_forward: split %lld with key blocks [%lld, %lld) is outside 0 .. T_c = %lld "
                           "or beyond the partial rows", (long long)p, (long long)j_begin, (long long)j_end, (long long)T_c);
    fa_buf Qi = {0}, Kj = {0}, Vj = {0}, S = {0}, Oi = {0}, m = {0}, l = {0};
    fa_status st = FA_OK;
#define TRY(x) do { if ((st = (x)) != FA_OK) goto done; } while (0)
    TRY(fa_sram_alloc(mem, &Qi, "Q_i", Br, d, e));
    TRY(fa_sram_alloc(mem, &Kj, "K_j", Bc, d, e));
    TRY(fa_sram_alloc(mem, &Vj, "V_j", Bc, dv, e));
    TRY(fa_sram_alloc(mem, &S, "S_ij", Br, Bc, 4));
    TRY(fa_sram_alloc(mem, &Oi, "O_i", Br, dv, 4));
    TRY(fa_sram_alloc(mem, &m, "m_i", Br, 1, 4));
    TRY(fa_sram_alloc(mem, &l, "l_i", Br, 1, 4));
    for (int64_t r0 = 0; r0 < Nq; r0 += Br) {
        const int64_t rows = MIN(Br, Nq - r0);
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t c = 0; c < dv; c++) Oi.data[r * dv + c] = 0;
            m.data[r] = -INFINITY;
            l.data[r] = 0;
        }
        if (j_end > j_begin) TRY(fa_load(mem, t->Q, b, h, r0, rows, 0, d, &Qi));
        for (int64_t j = j_begin; j < j_end; j++) {
            const int64_t c0 = j * Bc, cols = MIN(Bc, s->seqlen_k - c0);
            if (fa_tile_classify(s, r0, rows, c0, cols) == FA_TILE_SKIP) continue;
            TRY(fa_load(mem, t->K, b, hk, c0, cols, 0, d, &Kj));
            TRY(fa_load(mem, t->V, b, hk, c0, cols, 0, dv, &Vj));
            TRY(fa_tile_matmul_abt(mem, S.data, Bc, Qi.data, d, Kj.data, d, rows, cols, d, 0));
            TRY(fa_tile_scale_mask(mem, s, S.data, Bc, r0, rows, c0, cols, fa_shape_scale(s)));
            TRY(fa_tile_online_softmax(mem, S.data, Bc, m.data, l.data, Oi.data, dv, rows, cols, dv));
            TRY(fa_tile_matmul_ab(mem, Oi.data, dv, S.data, Bc, Vj.data, dv, rows, dv, cols, 1));
        }
        for (int64_t r = 0; r < rows; r++) {
            double lr = l.data[r];
            for (int64_t c = 0; c < dv; c++) Oi.data[r * dv + c] = lr > 0 ? Oi.data[r * dv + c] / lr : 0.0;
            m.data[r] = lr > 0 ? m.data[r] + log(lr) : -INFINITY;
        }
        TRY(fa_store(mem, t->Opart, b, h, p * Nq + r0, rows, 0, dv, &Oi));
        TRY(fa_store(mem, t->LSEpart, b, h, p * Nq + r0, rows, 0, 1, &m));
    }
done:
    fa_sram_free(&Qi); fa_sram_free(&Kj); fa_sram_free(&Vj); fa_sram_free(&S);
    fa_sram_free(&Oi); fa_sram_free(&m); fa_sram_free(&l);
    return st;
#undef TRY
}

static void run_case(fa_shape s, fa_blocks bk, int64_t n_splits, uint64_t seed)
{
    char sh[160], hdr[200];
    judge_shape(&s, bk, sh, sizeof sh);
    snprintf(hdr, sizeof hdr, "%s, %" PRId64 " splits of T_c = %" PRId64, sh, n_splits, fa_cdiv(s.seqlen_k, bk.block_c));
    const int64_t nq = fa_numel_q(&s), nk = fa_numel_k(&s), nv = fa_numel_v(&s), no = fa_numel_o(&s),
                  nl = fa_numel_stats(&s);
    double *Q = judge_alloc(nq), *K = judge_alloc(nk), *V = judge_alloc(nv), *O = judge_alloc(no),
           *L = judge_alloc(nl), *Oref = judge_alloc(no), *Lref = judge_alloc(nl),
           *Op = judge_alloc(no * n_splits), *Lp = judge_alloc(nl * n_splits);
    judge_fill(Q, nq, seed, 2.9);
    judge_fill(K, nk, seed + 1, 2.9);
    judge_fill(V, nv, seed + 2, 1.7);
    fa_reference_forward(&s, Q, K, V, Oref, Lref);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, 2 * fa_sram_need(FA_ALGO_FLASH2, &s, bk)); /* kernel 1 or the merge */
    const int e = fa_dtype_bytes(s.dtype);
    fa_tensor tQ, tK, tV, tO, tL, tOp, tLp;
    fa_tensor_make(mem, &tQ, "Q", s.batch, s.heads, s.seqlen_q, s.d, e, Q);
    fa_tensor_make(mem, &tK, "K", s.batch, s.kv_heads, s.seqlen_k, s.d, e, K);
    fa_tensor_make(mem, &tV, "V", s.batch, s.kv_heads, s.seqlen_k, s.d_v, e, V);
    fa_tensor_make(mem, &tO, "O", s.batch, s.heads, s.seqlen_q, s.d_v, e, O);
    fa_tensor_make(mem, &tL, "LSE", s.batch, s.heads, s.seqlen_q, 1, 4, L);
    fa_tensor_make(mem, &tOp, "Opart", s.batch, s.heads, n_splits * s.seqlen_q, s.d_v, 4, Op);
    fa_tensor_make(mem, &tLp, "LSEpart", s.batch, s.heads, n_splits * s.seqlen_q, 1, 4, Lp);
    ex_decode_tensors t = {&tQ, &tK, &tV, &tO, &tL, &tOp, &tLp};
    fa_status st = ex_split_kv_decode(mem, &s, bk, n_splits, &t);
    /* the same checks whether or not the call succeeded: an error fails the first and leaves the
     * budgets not judged */
    int ok = 0;
    if (st) {
        judge_check(0, "%s: ex_split_kv_decode returned '%s': %s -- %s", hdr, fa_strerror(st), fa_last_error(),
                    st == FA_ENOSRAM ? "M is twice flash2's SRAM need (kernel 1's buffers or the merge's): free "
                                       "kernel 1's before the merge allocates"
                                     : "every fa_load / fa_store must stay inside the tensor and fit its buffer");
        fa_clear_error();
    } else {
        double eo = judge_maxerr(O, Oref, no), el = judge_maxerr(L, Lref, nl);
        ok = eo <= 1e-10 && el <= 1e-10;
        judge_check(ok, "%s: O and LSE agree with the fp64 reference (max error |out - ref| / max(1, |ref|): O %.3g, LSE %.3g)%s", hdr, eo, el,
                    ok ? "" : " -- weigh each split by exp(LSE_p - LSE); a split with LSE_p = -inf weighs 0");
    }
    {
        const char *nj = st ? "ex_split_kv_decode returned an error" : "O and LSE of this case are wrong";
        judge_budget(ok, nj, fa_mem_sram_used(mem) == 0, NULL, "%s: every SRAM buffer freed", hdr);
        const fa_counts *c = fa_mem_counts(mem);
        fa_io_result r; /* fasim's flash2 reads each K tile a row block needs exactly once */
        fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, fa_sram_need(FA_ALGO_FLASH2, &s, bk), NULL, NULL, &r);
        uint64_t k_mine = judge_read(c, "K"), k_best = judge_read(&r.counts, "K");
        judge_budget(ok, nj, k_mine == k_best, "every key block must belong to exactly one split",
                     "%s: K read %" PRIu64 " B; one pass per query head is %" PRIu64 " B", hdr, k_mine, k_best);
        const uint64_t part = (uint64_t)(s.batch * s.heads * n_splits * s.seqlen_q * s.d_v) * 4;
        uint64_t pw = judge_written(c, "Opart"), pr = judge_read(c, "Opart");
        const double tw = (double)pw / (double)part, tr = (double)pr / (double)part;
        judge_budget(ok, nj, pw == part && pr == part, NULL,
                     "%s: partial outputs written %.3g time%s and read %.3g time%s; the optimum is once each", hdr,
                     tw, tw == 1 ? "" : "s", tr, tr == 1 ? "" : "s");
        uint64_t ow = judge_written(c, "O"), o1 = (uint64_t)no * (uint64_t)e;
        const double to = (double)ow / (double)o1;
        judge_budget(ok, nj, ow == o1, NULL, "%s: O written %.3g time%s; the optimum is once", hdr, to, to == 1 ? "" : "s");
    }
    fa_mem_free(mem);
    double *all[] = {Q, K, V, O, L, Oref, Lref, Op, Lp};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) free(all[k]);
}

int main(void)
{
    fa_shape s = fa_shape_default(1, 64); /* one new token against a long cache */
    s.seqlen_k = 1000;
    s.batch = 2;
    s.heads = 4;
    s.kv_heads = 2;
    run_case(s, (fa_blocks){16, 64}, 4, 41);
    run_case(s, (fa_blocks){16, 64}, 3, 42);   /* T_c = 16 does not divide into 3 */
    run_case(s, (fa_blocks){16, 64}, 20, 43);  /* more splits than key blocks: empty splits */
    s = fa_shape_default(4, 32);               /* 4 tokens (speculative decoding), causal */
    s.seqlen_k = 201;
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    run_case(s, (fa_blocks){16, 4}, 51, 44);   /* the last split: rows 0-2 see none of its keys */
    return judge_verdict("07 (split-KV decoding)");
}
