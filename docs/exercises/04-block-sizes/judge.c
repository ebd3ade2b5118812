/* judge.c -- exercise 04: the chosen tiles must be multiples of 16 that fit M and reach the
 * fewest HBM bytes any such tiles reach (the judge tries them all with the counter), and the
 * predicted bytes must equal the counted bytes.  Four checks a case whatever the tiles (tiles
 * that do not fit M fail the first two; the check that they fit counts as a PASS only for tiles
 * that also reach the fewest bytes), and one hidden case drawn anew each run: 4 x 4 + 1 = 17. */
#include "judge.h"
#include "ex.h"

static int counted(const fa_shape *s, fa_blocks bk, uint64_t *bytes)
{
    fa_io_result r;
    if (fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, s, bk, fa_sram_need(FA_ALGO_FLASH2, s, bk), NULL, NULL, &r))
        return -1;
    *bytes = fa_counts_hbm_bytes(&r.counts);
    return 0;
}

/* The fewest bytes any multiple-of-16 tiles that fit M reach (beyond 16 ceil(N/16) nothing
 * changes), and one pair that reaches them. */
static uint64_t fewest(const fa_shape *s, uint64_t M, fa_blocks *arg)
{
    uint64_t best = UINT64_MAX;
    for (int64_t r = 16; r <= 16 * fa_cdiv(s->seqlen_q, 16); r += 16)
        for (int64_t c = 16; c <= 16 * fa_cdiv(s->seqlen_k, 16); c += 16) {
            fa_blocks t = {r, c};
            uint64_t b;
            if (fa_sram_need(FA_ALGO_FLASH2, s, t) > M) break; /* need grows with c */
            if (counted(s, t, &b) == 0 && b < best) {
                best = b;
                *arg = t;
            }
        }
    return best;
}

static const char *const fit_hint = "fa_sram_need: 4 B_r B_c bytes of S plus the B_r d and B_c d buffers must fit M";
static const char *const pred_hint = "Q, O and LSE move once; K and V once per row block (T_r = ceil(N_q / B_r) "
                                     "times), counted for each of the B H query heads";

/* Four checks a case, whatever the tiles: they reach the fewest bytes; they fit M (judged once
 * they reach the fewest bytes, or when they do not fit); the prediction for them; the prediction
 * for 64 x 64 tiles. */
static void run_case(fa_shape s, uint64_t M)
{
    char sh[200], hdr[240], sq_sh[200], sq_hdr[240];
    fa_blocks bk = ex_choose_blocks(&s, M);
    judge_shape(&s, bk, sh, sizeof sh);
    snprintf(hdr, sizeof hdr, "M = %" PRIu64 " B, %s", M, sh);
    const int valid = bk.block_r >= 16 && bk.block_c >= 16 && bk.block_r % 16 == 0 && bk.block_c % 16 == 0;
    const uint64_t need = valid ? fa_sram_need(FA_ALGO_FLASH2, &s, bk) : 0;
    const int fits = valid && need <= M;
    fa_blocks arg = {0, 0};
    const uint64_t best = fewest(&s, M, &arg);
    uint64_t mine = 0;
    if (valid) counted(&s, bk, &mine);
    if (!valid)
        judge_check(0, "%s: tiles must be positive multiples of 16 -- the tensor cores' shapes; try 16, 32, ...", hdr);
    else if (!fits)
        judge_check(0, "%s: your tiles do not fit M, so they reach no count -- see the SRAM check below", hdr);
    else
        judge_check(mine == best,
                    "%s: your tiles move %" PRIu64 " B; the fewest any tiles that fit can move is %" PRIu64
                    " B (e.g. %" PRId64 " x %" PRId64 ")%s",
                    hdr, mine, best, arg.block_r, arg.block_c,
                    mine == best ? "" : " -- which tile side does the K/V term depend on, and what does the other one cost?");
    /* small tiles always fit: the SRAM budget counts for tiles that reach the fewest bytes, and
     * against tiles that do not fit */
    judge_budget(valid && (!fits || mine == best), !valid ? "your tiles are not multiples of 16" : "your tiles do not reach the fewest bytes",
                 fits, fit_hint, "%s: the buffers need %" PRIu64 " B of SRAM (M = %" PRIu64 ")", hdr, need, M);
    if (!valid) {
        judge_budget(0, "your tiles are not multiples of 16", 0, NULL, "%s: your prediction for your tiles", hdr);
    } else {
        uint64_t pred = ex_flash2_bytes(&s, bk);
        judge_check(pred == mine, "%s: predicted %" PRIu64 " B, counted %" PRIu64 " B%s%s", hdr, pred, mine,
                    pred == mine ? "" : " -- ", pred == mine ? "" : pred_hint);
    }
    fa_blocks sq = {64, 64};
    judge_shape(&s, sq, sq_sh, sizeof sq_sh); /* this check's own tiles, not the ones chosen */
    snprintf(sq_hdr, sizeof sq_hdr, "M = %" PRIu64 " B, %s", M, sq_sh);
    uint64_t c64 = 0;
    counted(&s, sq, &c64);
    uint64_t pred = ex_flash2_bytes(&s, sq);
    judge_check(pred == c64, "%s: predicted %" PRIu64 " B, counted %" PRIu64 " B%s%s", sq_hdr, pred, c64,
                pred == c64 ? "" : " -- ", pred == c64 ? "" : pred_hint);
}

/* The hidden case (judge_hidden_seed): a shape and M drawn anew each run; one check, which shows
 * the shape and what went wrong but no expected number. */
static void hidden_case(void)
{
    const uint64_t seed = judge_hidden_seed();
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    static const int64_t ds[] = {32, 48, 64, 96, 128};
    static const fa_dtype ts[] = {FA_DTYPE_FP16, FA_DTYPE_BF16, FA_DTYPE_FP32};
    fa_shape s = fa_shape_default(judge_draw(&st, 16, 1500), ds[judge_draw(&st, 0, 4)]);
    s.seqlen_k = judge_draw(&st, 16, 1500);
    s.dtype = ts[judge_draw(&st, 0, 2)];
    s.kv_heads = judge_draw(&st, 1, 3);
    s.heads = s.kv_heads * judge_draw(&st, 1, 3);
    s.batch = judge_draw(&st, 1, 2);
    const uint64_t lo = fa_sram_need(FA_ALGO_FLASH2, &s, (fa_blocks){16, 16});
    const uint64_t M = lo + (uint64_t)judge_draw(&st, 0, 200000);
    char sh[200];
    fa_blocks bk = ex_choose_blocks(&s, M);
    judge_shape(&s, bk, sh, sizeof sh);
    const int valid = bk.block_r >= 16 && bk.block_c >= 16 && bk.block_r % 16 == 0 && bk.block_c % 16 == 0;
    const int fits = valid && fa_sram_need(FA_ALGO_FLASH2, &s, bk) <= M;
    fa_blocks arg;
    uint64_t mine = 0, best = fewest(&s, M, &arg);
    if (valid) counted(&s, bk, &mine);
    const int pred_ok = valid && ex_flash2_bytes(&s, bk) == mine;
    judge_check(fits && mine == best && pred_ok,
                "hidden case (drawn anew each run, seed %" PRIu64 "; EX_SEED=%" PRIu64 " repeats it): M = %" PRIu64
                " B, %s: %s",
                seed, seed, M, sh,
                !valid ? "the tiles are not multiples of 16"
                : !fits ? "the tiles do not fit M"
                : mine != best ? "the tiles do not reach the fewest bytes (the number is not shown: derive it)"
                : !pred_ok ? "the prediction differs from the count (the count is not shown: derive it)"
                           : "tiles and prediction right");
}

int main(void)
{
    fa_shape s = fa_shape_default(4096, 64);
    run_case(s, 232448); /* H100/H200 shared memory per block */
    s = fa_shape_default(2048, 128);
    s.heads = s.kv_heads = 4;
    run_case(s, 166912); /* A100 */
    s = fa_shape_default(1000, 64);
    s.dtype = FA_DTYPE_FP32;
    s.seqlen_k = 700;
    run_case(s, 48 * 1024);
    s = fa_shape_default(64, 64);
    run_case(s, 232448); /* one row block is enough */
    hidden_case();
    return judge_verdict("04 (block sizes)");
}
