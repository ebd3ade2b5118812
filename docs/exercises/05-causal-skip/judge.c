/* judge.c -- exercise 05: a FlashAttention-2 forward (written here against sim/) visits only
 * the key blocks the student's function names.  The outputs must match the fp64 reference
 * (skipping too much loses keys), and K must be read no more than fasim's flash2 reads it
 * (skipping too little wastes IO) -- judged only when the outputs are right: skipping every
 * block reads no K at all. */
#include "judge.h"
#include "ex.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* FlashAttention-2 forward of slice (0, 0) visiting key blocks 0 .. n(i)-1 of row block i. */
static fa_status forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *Q, fa_tensor *K,
                         fa_tensor *V, fa_tensor *O, fa_tensor *L, int *bad_n, int64_t *bad_i, int64_t *bad_v)
{
    const int e = fa_dtype_bytes(s->dtype);
    const int64_t Br = bk.block_r, Bc = bk.block_c, d = s->d, dv = s->d_v;
    const int64_t T_r = fa_cdiv(s->seqlen_q, Br), T_c = fa_cdiv(s->seqlen_k, Bc);
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
    for (int64_t i = 0; i < T_r; i++) {
        const int64_t r0 = i * Br, rows = MIN(Br, s->seqlen_q - r0);
        int64_t n = ex_kv_blocks_to_visit(s, r0, rows, Bc);
        if (n < 0 || n > T_c) { /* reported once by the caller: the count of checks stays fixed */
            if (!*bad_n) {
                *bad_i = i;
                *bad_v = n;
            }
            ++*bad_n;
            n = n < 0 ? 0 : T_c;
        }
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t c = 0; c < dv; c++) Oi.data[r * dv + c] = 0;
            m.data[r] = -INFINITY;
            l.data[r] = 0;
        }
        if (n > 0) TRY(fa_load(mem, Q, 0, 0, r0, rows, 0, d, &Qi));
        for (int64_t j = 0; j < n; j++) {
            const int64_t c0 = j * Bc, cols = MIN(Bc, s->seqlen_k - c0);
            TRY(fa_load(mem, K, 0, 0, c0, cols, 0, d, &Kj));
            TRY(fa_load(mem, V, 0, 0, c0, cols, 0, dv, &Vj));
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
        TRY(fa_store(mem, O, 0, 0, r0, rows, 0, dv, &Oi));
        TRY(fa_store(mem, L, 0, 0, r0, rows, 0, 1, &m));
    }
done:
    fa_sram_free(&Qi); fa_sram_free(&Kj); fa_sram_free(&Vj); fa_sram_free(&S);
    fa_sram_free(&Oi); fa_sram_free(&m); fa_sram_free(&l);
    return st;
#undef TRY
}

static void run_case(fa_shape s, fa_blocks bk, uint64_t seed)
{
    char sh[160];
    judge_shape(&s, bk, sh, sizeof sh);
    const int64_t nq = fa_numel_q(&s), nk = fa_numel_k(&s), nv = fa_numel_v(&s), no = fa_numel_o(&s),
                  nl = fa_numel_stats(&s);
    double *Q = judge_alloc(nq), *K = judge_alloc(nk), *V = judge_alloc(nv), *O = judge_alloc(no),
           *L = judge_alloc(nl), *Oref = judge_alloc(no), *Lref = judge_alloc(nl);
    judge_fill(Q, nq, seed, 2.3);
    judge_fill(K, nk, seed + 1, 2.3);
    judge_fill(V, nv, seed + 2, 1.7);
    fa_reference_forward(&s, Q, K, V, Oref, Lref);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, fa_sram_need(FA_ALGO_FLASH2, &s, bk));
    const int e = fa_dtype_bytes(s.dtype);
    fa_tensor tQ, tK, tV, tO, tL;
    fa_tensor_make(mem, &tQ, "Q", 1, 1, s.seqlen_q, s.d, e, Q);
    fa_tensor_make(mem, &tK, "K", 1, 1, s.seqlen_k, s.d, e, K);
    fa_tensor_make(mem, &tV, "V", 1, 1, s.seqlen_k, s.d_v, e, V);
    fa_tensor_make(mem, &tO, "O", 1, 1, s.seqlen_q, s.d_v, e, O);
    fa_tensor_make(mem, &tL, "LSE", 1, 1, s.seqlen_q, 1, 4, L);
    int bad_n = 0;
    int64_t bad_i = 0, bad_v = 0;
    fa_status st = forward(mem, &s, bk, &tQ, &tK, &tV, &tO, &tL, &bad_n, &bad_i, &bad_v);
    /* two checks a case, whatever ex_kv_blocks_to_visit returns */
    int ok = 0;
    if (st) {
        judge_check(0, "%s: the loop failed: %s", sh, fa_last_error());
        fa_clear_error();
    } else if (bad_n) {
        judge_check(0, "%s: ex_kv_blocks_to_visit returned %" PRId64 " for row block %" PRId64 " (%d row block%s in all), "
                       "outside 0 .. T_c = %" PRId64 " -- it counts key blocks from the first: 0 skips them all, T_c visits all",
                    sh, bad_v, bad_i, bad_n, bad_n == 1 ? "" : "s", fa_cdiv(s.seqlen_k, bk.block_c));
    } else {
        double eo = judge_maxerr(O, Oref, no), el = judge_maxerr(L, Lref, nl);
        ok = eo <= 1e-10 && el <= 1e-10;
        judge_check(ok, "%s: O and LSE agree with the fp64 reference (max error |out - ref| / max(1, |ref|): O %.3g, LSE %.3g)%s", sh, eo, el,
                    ok ? "" : " -- a skipped block held a key some row of the block may see");
    }
    {
        fa_io_result r; /* fasim's own flash2 skips exactly the blocks with no allowed key */
        fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, fa_sram_need(FA_ALGO_FLASH2, &s, bk), NULL, NULL, &r);
        const fa_counts *c = fa_mem_counts(mem);
        int kb = fa_counts_find(c, "K"), kr = fa_counts_find(&r.counts, "K");
        uint64_t mine = kb < 0 ? 0 : c->tensor[kb].loads, best = kr < 0 ? 0 : r.counts.tensor[kr].loads;
        uint64_t all = (uint64_t)(fa_cdiv(s.seqlen_q, bk.block_r) * fa_cdiv(s.seqlen_k, bk.block_c));
        judge_budget(ok, st || bad_n ? "the loop did not run to its end" : "O and LSE of this case are wrong (a skipped block held an allowed key)", mine <= best,
                     "skip the blocks that lie entirely above the diagonal",
                     "%s: your loop loads %" PRIu64 " K tile%s; %" PRIu64 " of the %" PRIu64 " tiles hold an allowed key",
                     sh, mine, mine == 1 ? "" : "s", best, all);
    }
    fa_mem_free(mem);
    free(Q); free(K); free(V); free(O); free(L); free(Oref); free(Lref);
}

int main(void)
{
    fa_shape s = fa_shape_default(256, 32);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    run_case(s, (fa_blocks){64, 64}, 5);   /* square: 10 of 16 tiles */
    s.seqlen_q = 100;
    s.seqlen_k = 300;
    run_case(s, (fa_blocks){32, 48}, 6);   /* N_q < N_k: the diagonal is shifted right */
    s.seqlen_q = 300;
    s.seqlen_k = 100;
    run_case(s, (fa_blocks){32, 32}, 7);   /* N_q > N_k: the first rows see no key at all */
    s.causal = FA_CAUSAL_TOP_LEFT;
    s.seqlen_q = 100;
    s.seqlen_k = 300;
    run_case(s, (fa_blocks){16, 64}, 8);   /* top-left anchor */
    s = fa_shape_default(5, 4);
    s.seqlen_k = 2;
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    run_case(s, (fa_blocks){2, 2}, 9);     /* the 5 x 2 example of docs/io-model.md */
    return judge_verdict("05 (causal tile skipping)");
}
