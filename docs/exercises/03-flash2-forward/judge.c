/* judge.c -- exercise 03: runs the student's FlashAttention-2 forward in numeric mode on the
 * memory model, compares O and LSE with the fp64 reference, and holds its HBM traffic to the
 * optimum of FlashAttention-2's loop order for the given tiles: Q once, K and V T_r times,
 * O and LSE written once.  The traffic is judged only when O and LSE are right. */
#include "judge.h"
#include "ex.h"

/* Reports the traffic of tensor t against the optimum, in passes over the tensor; judged only
 * when O and LSE of the case are right (judge_budget). */
static void io_check(const char *sh, int done, const char *not_done, const fa_counts *c, const char *t, int write,
                     uint64_t once, uint64_t want_passes, const char *why)
{
    uint64_t got = write ? judge_written(c, t) : judge_read(c, t);
    char times[32];
    judge_times(times, sizeof times, (double)got / (double)once);
    judge_budget(done, not_done, got == want_passes * once, why,
                 "%s: your loop %s %s %s; the optimum for these blocks is %" PRIu64, sh,
                 write ? "writes" : "reads", t, times, want_passes);
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
    const uint64_t M = fa_sram_need(FA_ALGO_FLASH2, &s, bk);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M);
    const int e = fa_dtype_bytes(s.dtype);
    fa_tensor tQ, tK, tV, tO, tL;
    fa_tensor_make(mem, &tQ, "Q", s.batch, s.heads, s.seqlen_q, s.d, e, Q);
    fa_tensor_make(mem, &tK, "K", s.batch, s.kv_heads, s.seqlen_k, s.d, e, K);
    fa_tensor_make(mem, &tV, "V", s.batch, s.kv_heads, s.seqlen_k, s.d_v, e, V);
    fa_tensor_make(mem, &tO, "O", s.batch, s.heads, s.seqlen_q, s.d_v, e, O);
    fa_tensor_make(mem, &tL, "LSE", s.batch, s.heads, s.seqlen_q, 1, 4, L);
    fa_status st = ex_flash2_forward(mem, &s, bk, &tQ, &tK, &tV, &tO, &tL);
    /* the same seven checks whether or not the call succeeded: an error fails the first and
     * leaves the budgets not judged */
    int ok = 0;
    if (st) {
        judge_check(0, "%s: ex_flash2_forward returned '%s': %s -- %s", sh, fa_strerror(st), fa_last_error(),
                    st == FA_ENOSRAM ? "M is exactly the seven buffers of io-model.md section 7 (fa_sram_need): "
                                       "allocate each once, before the loops, and free each at the end"
                                     : "every fa_load / fa_store must stay inside the tensor and fit its buffer");
        fa_clear_error();
    } else {
        double eo = judge_maxerr(O, Oref, no), el = judge_maxerr(L, Lref, nl);
        ok = eo <= 1e-10 && el <= 1e-10;
        judge_check(ok, "%s: O and LSE agree with the fp64 reference (max error |out - ref| / max(1, |ref|): O %.3g, LSE %.3g; tolerance 1e-10)%s",
                    sh, eo, el, ok ? "" : " -- did every row block get its rescale by 1/l and LSE = m + log l?");
    }
    {
        const char *nj = st ? "ex_flash2_forward returned an error" : "O and LSE of this case are wrong";
        judge_budget(ok, nj, fa_mem_sram_used(mem) == 0, NULL,
                     "%s: every SRAM buffer freed (%zu bytes still allocated)", sh, fa_mem_sram_used(mem));
        const fa_counts *c = fa_mem_counts(mem);
        const uint64_t BH = (uint64_t)(s.batch * s.heads), T_r = (uint64_t)fa_cdiv(s.seqlen_q, bk.block_r);
        const uint64_t q1 = BH * (uint64_t)(s.seqlen_q * s.d) * e, k1 = BH * (uint64_t)(s.seqlen_k * s.d) * e,
                       v1 = BH * (uint64_t)(s.seqlen_k * s.d_v) * e, o1 = BH * (uint64_t)(s.seqlen_q * s.d_v) * e,
                       l1 = BH * (uint64_t)s.seqlen_q * 4;
        io_check(sh, ok, nj, c, "Q", 0, q1, 1, "load Q_i once per row block, before the loop over key blocks");
        io_check(sh, ok, nj, c, "K", 0, k1, T_r, "each row block needs all of K exactly once (counted over all query heads)");
        io_check(sh, ok, nj, c, "V", 0, v1, T_r, "each row block needs all of V exactly once (counted over all query heads)");
        io_check(sh, ok, nj, c, "O", 1, o1, 1, "keep O_i on chip across the key blocks and store it once at the end");
        io_check(sh, ok, nj, c, "O", 0, o1, 0, "FlashAttention-2 never reads O back: it stays in SRAM");
        io_check(sh, ok, nj, c, "LSE", 1, l1, 1, "store LSE_i = m_i + log l_i once per row block");
    }
    fa_mem_free(mem);
    free(Q); free(K); free(V); free(O); free(L); free(Oref); free(Lref);
}

int main(void)
{
    fa_shape s = fa_shape_default(256, 32);
    run_case(s, (fa_blocks){64, 64}, 11); /* T_r = T_c = 4 */
    s = fa_shape_default(100, 16);
    s.seqlen_k = 150;
    s.d_v = 24;
    run_case(s, (fa_blocks){32, 32}, 21); /* tails on both sides, d_v != d */
    s = fa_shape_default(64, 16);
    s.batch = 2;
    s.heads = 4;
    s.kv_heads = 2;
    s.dtype = FA_DTYPE_FP32;
    run_case(s, (fa_blocks){16, 32}, 31); /* batch, GQA, fp32 */
    return judge_verdict("03 (FlashAttention-2 forward)");
}
