/* judge.c -- exercise 08: the derived per-tensor bytes of flash1 and flash2 must equal the
 * counted ones, and the crossover block size must be the one the counter finds: one check per
 * tensor (Q, K, V, O, l, m, LSE) of each algorithm on each of two shapes and one per crossover,
 * 2 x 2 x 7 + 3 = 31 checks whatever the submission returns. */
#include "judge.h"
#include "ex.h"

static uint64_t count_total(fa_algo a, const fa_shape *s, fa_blocks bk, fa_counts *out)
{
    fa_io_result r;
    if (fa_io_run(FA_PASS_FWD, a, s, bk, 256u << 20, NULL, NULL, &r)) return 0;
    if (out) *out = r.counts;
    return fa_counts_hbm_bytes(&r.counts);
}

static void compare(const char *algo, const char *sh, const ex_flash_io *p, const fa_counts *c)
{
    const char *names[] = {"Q", "K", "V", "O", "l", "m", "LSE"};
    const ex_rw *rw[] = {&p->Q, &p->K, &p->V, &p->O, &p->l, &p->m, &p->LSE};
    /* a tensor that moves no byte (flash1's LSE, flash2's l and m) matches a stub's zeros: it is
     * judged (judge_budget) once one of the algorithm's moving tensors is right */
    int moving_ok = 0;
    for (int t = 0; t < 7; t++) {
        uint64_t cr = judge_read(c, names[t]), cw = judge_written(c, names[t]);
        moving_ok |= (cr || cw) && rw[t]->read == cr && rw[t]->write == cw;
    }
    for (int t = 0; t < 7; t++) { /* one check per tensor, passed, failed or not judged: always seven */
        uint64_t cr = judge_read(c, names[t]), cw = judge_written(c, names[t]);
        const int ok = rw[t]->read == cr && rw[t]->write == cw;
        if (!cr && !cw)
            judge_budget(moving_ok, "none of this algorithm's other tensors is right yet", ok, NULL,
                         "%s %s: %s read %" PRIu64 ", written %" PRIu64 " (counted: it never moves)", algo, sh, names[t],
                         rw[t]->read, rw[t]->write);
        else if (ok)
            judge_check(1, "%s %s: %s read %" PRIu64 ", written %" PRIu64 ", as counted", algo, sh, names[t], cr, cw);
        else
            judge_check(0, "%s %s: %s read %" PRIu64 ", written %" PRIu64 "; counted read %" PRIu64 ", written %" PRIu64,
                        algo, sh, names[t], rw[t]->read, rw[t]->write, cr, cw);
    }
}

static void run_case(fa_shape s, fa_blocks bk)
{
    char sh[160];
    judge_shape(&s, bk, sh, sizeof sh);
    fa_counts c1, c2;
    count_total(FA_ALGO_FLASH1, &s, bk, &c1);
    count_total(FA_ALGO_FLASH2, &s, bk, &c2);
    ex_flash_io p;
    memset(&p, 0xff, sizeof p);
    ex_flash1_io(&s, bk, &p);
    compare("flash1", sh, &p, &c1);
    memset(&p, 0xff, sizeof p);
    ex_flash2_io(&s, bk, &p);
    compare("flash2", sh, &p, &c2);
}

static void crossover(fa_shape s, int64_t block_r)
{
    int64_t want = 0;
    for (int64_t c = 16; c <= 16 * fa_cdiv(s.seqlen_k, 16) && !want; c += 16) {
        fa_blocks bk = {block_r, c};
        if (count_total(FA_ALGO_FLASH1, &s, bk, NULL) < count_total(FA_ALGO_FLASH2, &s, bk, NULL)) want = c;
    }
    int64_t got = ex_crossover_block_c(&s, block_r);
    judge_check(got == want,
                "N = %" PRId64 ", d = %" PRId64 ", B_r = %" PRId64 ": flash1 beats flash2 from B_c = %" PRId64
                " on (you said %" PRId64 ")",
                s.seqlen_q, s.d, block_r, want, got);
}

int main(void)
{
    fa_shape s = fa_shape_default(1024, 64);
    run_case(s, (fa_blocks){64, 64}); /* the worked example of docs/io-model.md */
    s = fa_shape_default(300, 48);
    s.seqlen_k = 500;
    s.d_v = 32;
    s.batch = 2;
    s.heads = s.kv_heads = 3;
    s.dtype = FA_DTYPE_FP32;
    run_case(s, (fa_blocks){64, 48}); /* tails, N_q != N_k, fp32 */
    s = fa_shape_default(4096, 64);
    crossover(s, 64);
    s = fa_shape_default(8192, 128);
    crossover(s, 128);
    s = fa_shape_default(2048, 64);
    crossover(s, 16);
    return judge_verdict("08 (flash1 vs flash2)");
}
