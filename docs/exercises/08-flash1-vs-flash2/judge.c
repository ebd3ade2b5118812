/* judge.c -- exercise 08: the derived per-tensor bytes of flash1 and flash2 must equal the
 * counted ones, and the crossover block size must be the one the counter finds: one check per
 * tensor (Q, K, V, O, l, m, LSE) of each algorithm on each of two shapes, one per crossover and
 * one for a hidden shape drawn anew each run (its expected bytes not shown): 2 x 2 x 7 + 3 + 1 = 32
 * checks whatever the submission returns. */
#include "judge.h"
#include "ex.h"

static uint64_t count_total(fa_algo a, const fa_shape *s, fa_blocks bk, fa_counts *out)
{
    fa_io_result r;
    if (fa_io_run(FA_PASS_FWD, a, s, bk, 256u << 20, NULL, NULL, &r)) return 0;
    if (out) *out = r.counts;
    return fa_counts_hbm_bytes(&r.counts);
}

/* A hint for a wrong tensor of flash1 or flash2 (FlashAttention Algorithm 1; io-model.md
 * sections 3 and 4). */
static const char *hint(const char *algo, const char *t)
{
    const int f1 = !strcmp(algo, "flash1");
    if (!strcmp(t, "Q")) return f1 ? "flash1 loads Q_i on each of the T_c passes of its outer loop" : "flash2 loads each Q_i once";
    if (!strcmp(t, "K") || !strcmp(t, "V"))
        return f1 ? "flash1's outer loop loads each K_j, V_j once" : "each row block streams all of K and V: T_r passes";
    if (!strcmp(t, "O"))
        return f1 ? "O_i is loaded and stored on each of the T_c passes, and line 2 writes O once more at the start"
                  : "O_i stays on chip across the key blocks: written once, never read";
    if (!strcmp(t, "l") || !strcmp(t, "m"))
        return f1 ? "like O: T_c loads and stores plus line 2's write -- and l, m are fp32, 4 bytes a row"
                  : "flash2 keeps l and m on chip: they never move";
    return f1 ? "flash1 (Algorithm 1) writes no LSE" : "LSE is written once, fp32: 4 bytes a row";
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
            judge_budget(moving_ok, "none of this algorithm's other tensors is right yet", ok, hint(algo, names[t]),
                         "%s %s: %s read %" PRIu64 ", written %" PRIu64 " (counted: it never moves)", algo, sh, names[t],
                         rw[t]->read, rw[t]->write);
        else if (ok)
            judge_check(1, "%s %s: %s read %" PRIu64 ", written %" PRIu64 ", as counted", algo, sh, names[t], cr, cw);
        else
            judge_check(0, "%s %s: %s: you said read %" PRIu64 ", written %" PRIu64 "; counted read %" PRIu64
                           ", written %" PRIu64 " -- %s",
                        algo, sh, names[t], rw[t]->read, rw[t]->write, cr, cw, hint(algo, names[t]));
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
                " on (you said %" PRId64 ")%s",
                s.seqlen_q, s.d, block_r, want, got,
                got == want ? "" : " -- the smallest multiple of 16 where flash1's total is below flash2's (hint 3)");
}

/* The hidden case (judge_hidden_seed): a shape and tiles drawn anew each run; one check for the
 * 14 tensors of both algorithms, which shows the shape and the wrong tensors but no expected number. */
static void hidden_case(void)
{
    const uint64_t seed = judge_hidden_seed();
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    static const int64_t ds[] = {16, 32, 48, 64, 96, 128}, bs[] = {16, 32, 48, 64, 128};
    static const fa_dtype ts[] = {FA_DTYPE_FP16, FA_DTYPE_BF16, FA_DTYPE_FP32};
    fa_shape s = fa_shape_default(judge_draw(&st, 1, 700), ds[judge_draw(&st, 0, 5)]);
    s.seqlen_k = judge_draw(&st, 1, 700);
    s.d_v = ds[judge_draw(&st, 0, 5)];
    s.dtype = ts[judge_draw(&st, 0, 2)];
    s.heads = s.kv_heads = judge_draw(&st, 1, 3);
    s.batch = judge_draw(&st, 1, 3);
    fa_blocks bk = {bs[judge_draw(&st, 0, 4)], bs[judge_draw(&st, 0, 4)]};
    char sh[160], bad[256] = "";
    judge_shape(&s, bk, sh, sizeof sh);
    const char *names[] = {"Q", "K", "V", "O", "l", "m", "LSE"};
    for (int a = 0; a < 2; a++) {
        fa_counts c;
        memset(&c, 0, sizeof c);
        count_total(a ? FA_ALGO_FLASH2 : FA_ALGO_FLASH1, &s, bk, &c);
        ex_flash_io p;
        memset(&p, 0xff, sizeof p);
        if (a) ex_flash2_io(&s, bk, &p);
        else ex_flash1_io(&s, bk, &p);
        const ex_rw *rw[] = {&p.Q, &p.K, &p.V, &p.O, &p.l, &p.m, &p.LSE};
        for (int t = 0; t < 7; t++)
            if (rw[t]->read != judge_read(&c, names[t]) || rw[t]->write != judge_written(&c, names[t])) {
                strcat(bad, *bad ? ", " : "");
                strcat(bad, a ? "flash2 " : "flash1 ");
                strcat(bad, names[t]);
            }
    }
    judge_check(!*bad, "hidden case (drawn anew each run, seed %" PRIu64 "; EX_SEED=%" PRIu64 " repeats it): %s: %s%s%s",
                seed, seed, sh, *bad ? "your bytes differ from the counter's for " : "every tensor as counted", bad,
                *bad ? " (the counted bytes are not shown: derive them; the hints above apply)" : "");
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
    hidden_case();
    return judge_verdict("08 (flash1 vs flash2)");
}
