/* judge.c -- exercise 02: compares the predicted bytes of standard attention with the bytes the
 * memory model counts when fa_standard_forward runs (count-only mode), tensor by tensor: one
 * check per tensor (Q, K, V, S, P, O) of each of the four shapes, and one for a hidden shape drawn
 * anew each run (its expected bytes not shown): 25 checks whatever the submission returns. */
#include "judge.h"
#include "ex.h"

static const char *hint(const char *t)
{
    if (!strcmp(t, "K") || !strcmp(t, "V"))
        return "each row block Q_i (or P_i) streams all of K (or V) past it: T_r passes";
    if (!strcmp(t, "S")) return "the softmax kernel reads S twice when a row spans several tiles (T_c > 1), once otherwise";
    if (!strcmp(t, "P")) return "P is written by the softmax kernel and read once by the PV kernel";
    return "Q is read once per row block, O written once; remember the B*H slices and the element size";
}

static const char *const NAMES[6] = {"Q", "K", "V", "S", "P", "O"};

/* One case: the memory model's count of fa_standard_forward (r) and the submission's prediction (p,
 * all bits set where the counter failed); rw[t] points at p's entry for tensor NAMES[t]. */
static fa_status count_and_predict(const fa_shape *s, fa_blocks bk, fa_io_result *r, ex_standard_io *p,
                                   const ex_rw *rw[6])
{
    fa_status st = fa_io_run(FA_PASS_FWD, FA_ALGO_STANDARD, s, bk, 64u << 20, NULL, NULL, r);
    memset(p, 0xff, sizeof *p);
    if (!st) ex_standard_bytes(s, bk, p);
    rw[0] = &p->Q, rw[1] = &p->K, rw[2] = &p->V, rw[3] = &p->S, rw[4] = &p->P, rw[5] = &p->O;
    return st;
}

static void judge_one(fa_shape s, fa_blocks bk)
{
    char sh[160];
    judge_shape(&s, bk, sh, sizeof sh);
    fa_io_result r;
    ex_standard_io p;
    const ex_rw *rw[6];
    fa_status st = count_and_predict(&s, bk, &r, &p, rw);
    for (int t = 0; t < 6; t++) { /* one check per tensor, passed or failed: always six */
        if (st) {
            judge_check(0, "%s: %s: the counter failed: %s", sh, NAMES[t], fa_last_error());
            continue;
        }
        uint64_t cr = judge_read(&r.counts, NAMES[t]), cw = judge_written(&r.counts, NAMES[t]);
        if (rw[t]->read == cr && rw[t]->write == cw)
            judge_check(1, "%s: %s read %" PRIu64 ", written %" PRIu64 ", as counted", sh, NAMES[t], cr, cw);
        else
            judge_check(0, "%s: %s read %" PRIu64 ", written %" PRIu64 "; the counter says read %" PRIu64
                           ", written %" PRIu64 " (hint: %s)",
                        sh, NAMES[t], rw[t]->read, rw[t]->write, cr, cw, hint(NAMES[t]));
    }
}

/* The hidden case (judge_hidden_seed): a shape and tiles drawn anew each run; one check for all six
 * tensors, which shows the shape and which tensors are wrong but no expected number. */
static void hidden_case(void)
{
    const uint64_t seed = judge_hidden_seed();
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    static const int64_t ds[] = {16, 32, 48, 64, 80, 96, 128}, bs[] = {16, 32, 48, 64, 128};
    static const fa_dtype ts[] = {FA_DTYPE_FP16, FA_DTYPE_BF16, FA_DTYPE_FP32};
    fa_shape s = fa_shape_default(judge_draw(&st, 1, 700), ds[judge_draw(&st, 0, 6)]);
    s.seqlen_k = judge_draw(&st, 1, 700);
    s.d_v = ds[judge_draw(&st, 0, 6)];
    s.dtype = ts[judge_draw(&st, 0, 2)];
    s.kv_heads = judge_draw(&st, 1, 3);
    s.heads = s.kv_heads * judge_draw(&st, 1, 3);
    s.batch = judge_draw(&st, 1, 3);
    fa_blocks bk = {bs[judge_draw(&st, 0, 4)], bs[judge_draw(&st, 0, 4)]};
    char sh[160], bad[64] = "";
    judge_shape(&s, bk, sh, sizeof sh);
    fa_io_result r;
    ex_standard_io p;
    const ex_rw *rw[6];
    fa_status err = count_and_predict(&s, bk, &r, &p, rw);
    for (int t = 0; t < 6 && !err; t++)
        if (rw[t]->read != judge_read(&r.counts, NAMES[t]) || rw[t]->write != judge_written(&r.counts, NAMES[t])) {
            strcat(bad, *bad ? ", " : "");
            strcat(bad, NAMES[t]);
        }
    judge_check(!err && !*bad,
                "hidden case (drawn anew each run, seed %" PRIu64 "; EX_SEED=%" PRIu64 " repeats it): %s: %s%s", seed,
                seed, sh, err ? "the counter failed: " : *bad ? "your bytes differ from the counter's for " : "every tensor as counted",
                err ? fa_last_error() : *bad ? bad : "");
    if (*bad) printf("      (the counted bytes of the hidden case are not shown: derive them; the hints above apply)\n");
}

int main(void)
{
    fa_shape s = fa_shape_default(1024, 64);
    judge_one(s, (fa_blocks){64, 64}); /* the worked example of docs/io-model.md */
    s = fa_shape_default(64, 64);
    judge_one(s, (fa_blocks){64, 64}); /* one tile per row: one pass over S */
    s = fa_shape_default(300, 48);
    s.seqlen_k = 200;
    s.d_v = 32;
    s.dtype = FA_DTYPE_FP32;
    s.batch = 2;
    s.heads = 3;
    s.kv_heads = 3;
    judge_one(s, (fa_blocks){64, 32}); /* tails, N_q != N_k, d_v != d, fp32, B*H = 6 */
    s = fa_shape_default(512, 128);
    s.heads = 8;
    s.kv_heads = 2;
    s.dtype = FA_DTYPE_BF16;
    judge_one(s, (fa_blocks){128, 16}); /* GQA: does H_kv change the bytes? */
    hidden_case();
    return judge_verdict("02 (standard attention IO)");
}
