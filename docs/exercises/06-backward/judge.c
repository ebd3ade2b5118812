/* judge.c -- exercise 06: runs the student's backward in numeric mode on the memory model,
 * compares dQ, dK, dV with the fp64 reference backward, and holds its traffic to the budget of
 * FlashAttention's backward loop order: K, V read once; dK, dV written once, never read; the
 * row-side tensors moved at least once and at most T_c times.  The budgets are judged only when
 * the gradients are right (judge_budget): a loop that does nothing reads nothing. */
#include "judge.h"
#include "ex.h"

/* Passes over tensor t (bytes / once) must lie in [lo, hi]: lo is the fewest any correct
 * solution needs, so doing nothing is no way to stay within the budget.  Judged only when the
 * gradients of the case are right (judge_budget). */
static void budget(const char *sh, int done, const fa_counts *c, const char *t, int write, uint64_t once,
                   uint64_t lo, uint64_t hi, const char *why)
{
    uint64_t got = write ? judge_written(c, t) : judge_read(c, t);
    char want[64];
    if (lo == hi) snprintf(want, sizeof want, "exactly %" PRIu64, hi);
    else if (lo == 0) snprintf(want, sizeof want, "at most %" PRIu64, hi);
    else snprintf(want, sizeof want, "%" PRIu64 " to %" PRIu64, lo, hi);
    char times[32];
    judge_times(times, sizeof times, (double)got / (double)once);
    judge_budget(done, "dQ, dK, dV of this case are wrong", got >= lo * once && got <= hi * once,
                 got < lo * once ? "fewer than any correct loop: move tiles only with fa_load and fa_store" : why,
                 "%s: your loop %s %s %s; the budget is %s", sh, write ? "writes" : "reads", t, times, want);
}

static void run_case(fa_shape s, fa_blocks bk, uint64_t seed)
{
    char sh[160];
    judge_shape(&s, bk, sh, sizeof sh);
    const int64_t nq = fa_numel_q(&s), nk = fa_numel_k(&s), nv = fa_numel_v(&s), no = fa_numel_o(&s),
                  nl = fa_numel_stats(&s);
    double *Q = judge_alloc(nq), *K = judge_alloc(nk), *V = judge_alloc(nv), *O = judge_alloc(no),
           *L = judge_alloc(nl), *dO = judge_alloc(no), *dQ = judge_alloc(nq), *dK = judge_alloc(nk),
           *dV = judge_alloc(nv), *rQ = judge_alloc(nq), *rK = judge_alloc(nk), *rV = judge_alloc(nv);
    judge_fill(Q, nq, seed, 2.1);
    judge_fill(K, nk, seed + 1, 2.1);
    judge_fill(V, nv, seed + 2, 1.3);
    judge_fill(dO, no, seed + 3, 1.1);
    fa_reference_forward(&s, Q, K, V, O, L);
    fa_reference_backward(&s, Q, K, V, dO, rQ, rK, rV);
    const uint64_t M = 2 * fa_sram_need_bwd(FA_ALGO_FLASH1, &s, bk);
    fa_mem *mem = fa_mem_alloc(FA_MODE_NUMERIC, M);
    const int e = fa_dtype_bytes(s.dtype);
    fa_tensor tQ, tK, tV, tO, tL, tdO, tdQ, tdK, tdV;
    fa_tensor_make(mem, &tQ, "Q", s.batch, s.heads, s.seqlen_q, s.d, e, Q);
    fa_tensor_make(mem, &tK, "K", s.batch, s.heads, s.seqlen_k, s.d, e, K);
    fa_tensor_make(mem, &tV, "V", s.batch, s.heads, s.seqlen_k, s.d_v, e, V);
    fa_tensor_make(mem, &tO, "O", s.batch, s.heads, s.seqlen_q, s.d_v, e, O);
    fa_tensor_make(mem, &tL, "LSE", s.batch, s.heads, s.seqlen_q, 1, 4, L);
    fa_tensor_make(mem, &tdO, "dO", s.batch, s.heads, s.seqlen_q, s.d_v, e, dO);
    fa_tensor_make(mem, &tdQ, "dQ", s.batch, s.heads, s.seqlen_q, s.d, e, dQ);
    fa_tensor_make(mem, &tdK, "dK", s.batch, s.heads, s.seqlen_k, s.d, e, dK);
    fa_tensor_make(mem, &tdV, "dV", s.batch, s.heads, s.seqlen_k, s.d_v, e, dV);
    fa_status st = ex_flash_backward(mem, &s, bk, &tQ, &tK, &tV, &tO, &tL, &tdO, &tdQ, &tdK, &tdV);
    /* the same checks whether or not the call succeeded: an error fails the first and leaves the
     * budgets not judged */
    int ok = 0;
    if (st) {
        judge_check(0, "%s: ex_flash_backward returned '%s': %s -- %s", sh, fa_strerror(st), fa_last_error(),
                    st == FA_ENOSRAM ? "M is twice the SRAM need of the backward's buffers: allocate each once and "
                                       "free each at the end"
                                     : "every fa_load / fa_store must stay inside the tensor and fit its buffer");
        fa_clear_error();
    } else {
        double eq = judge_maxerr(dQ, rQ, nq), ek = judge_maxerr(dK, rK, nk), ev = judge_maxerr(dV, rV, nv);
        ok = eq <= 1e-9 && ek <= 1e-9 && ev <= 1e-9;
        judge_check(ok, "%s: dQ, dK, dV agree with the fp64 reference (max error |out - ref| / max(1, |ref|): %.3g, %.3g, %.3g; tolerance 1e-9)%s",
                    sh, eq, ek, ev, ok ? "" : " -- check P = exp(S - L), D = rowsum(dO o O) and where the scale enters");
    }
    {
        judge_budget(ok, "dQ, dK, dV of this case are wrong", fa_mem_sram_used(mem) == 0, NULL,
                     "%s: every SRAM buffer freed (%zu bytes still allocated)", sh, fa_mem_sram_used(mem));
        const fa_counts *c = fa_mem_counts(mem);
        const uint64_t BH = (uint64_t)(s.batch * s.heads), T_c = (uint64_t)fa_cdiv(s.seqlen_k, bk.block_c);
        const uint64_t q1 = BH * (uint64_t)(s.seqlen_q * s.d) * e, k1 = BH * (uint64_t)(s.seqlen_k * s.d) * e,
                       v1 = BH * (uint64_t)(s.seqlen_k * s.d_v) * e, o1 = BH * (uint64_t)(s.seqlen_q * s.d_v) * e,
                       l1 = BH * (uint64_t)s.seqlen_q * 4;
        const char *kv = "put the loop over K/V blocks outside: K_j, V_j stay on chip while every row block passes";
        const char *dkv = "accumulate dK_j, dV_j on chip over the inner loop and store them once";
        budget(sh, ok, c, "K", 0, k1, 1, 1, kv);
        budget(sh, ok, c, "V", 0, v1, 1, 1, kv);
        budget(sh, ok, c, "dK", 1, k1, 1, 1, dkv);
        budget(sh, ok, c, "dV", 1, v1, 1, 1, dkv);
        budget(sh, ok, c, "dK", 0, k1, 0, 0, dkv);
        budget(sh, ok, c, "dV", 0, v1, 0, 0, dkv);
        const char *row = "one visit per (i, j) tile at most";
        budget(sh, ok, c, "Q", 0, q1, 1, T_c, row);
        budget(sh, ok, c, "O", 0, o1, 1, T_c, row);
        budget(sh, ok, c, "dO", 0, o1, 1, T_c, row);
        budget(sh, ok, c, "LSE", 0, l1, 1, T_c, row);
        budget(sh, ok, c, "dQ", 0, q1, 0, T_c, row);
        budget(sh, ok, c, "dQ", 1, q1, 1, T_c, row);
    }
    fa_mem_free(mem);
    double *all[] = {Q, K, V, O, L, dO, dQ, dK, dV, rQ, rK, rV};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) free(all[k]);
}

int main(void)
{
    fa_shape s = fa_shape_default(128, 16);
    s.heads = s.kv_heads = 2;
    run_case(s, (fa_blocks){32, 32}, 3);
    s = fa_shape_default(70, 16);
    s.seqlen_k = 90;
    s.d_v = 8;
    run_case(s, (fa_blocks){32, 16}, 4); /* tails, N_q != N_k, d_v != d */
    s = fa_shape_default(48, 8);
    s.batch = 2;
    s.dtype = FA_DTYPE_FP32;
    run_case(s, (fa_blocks){16, 16}, 5);
    return judge_verdict("06 (backward by recomputation)");
}
