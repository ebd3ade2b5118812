/* judge.c -- exercise 04: the chosen tiles must be multiples of 16 that fit M and reach the
 * fewest HBM bytes any such tiles reach (the judge tries them all with the counter), and the
 * predicted bytes must equal the counted bytes.  Tiles that do not fit M fail at once; the
 * check that they fit counts as a PASS only for tiles that also reach the fewest bytes. */
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

static void run_case(fa_shape s, uint64_t M)
{
    char sh[200], hdr[240];
    fa_blocks bk = ex_choose_blocks(&s, M);
    judge_shape(&s, bk, sh, sizeof sh);
    snprintf(hdr, sizeof hdr, "M = %" PRIu64 " B, %s", M, sh);
    if (bk.block_r < 16 || bk.block_c < 16 || bk.block_r % 16 || bk.block_c % 16) {
        judge_check(0, "%s: tiles must be positive multiples of 16", hdr);
        return;
    }
    uint64_t need = fa_sram_need(FA_ALGO_FLASH2, &s, bk);
    if (need > M) {
        judge_check(0, "%s: the buffers need %" PRIu64 " B of SRAM (M = %" PRIu64 ")", hdr, need, M);
        return;
    }
    /* the best any multiple-of-16 tiles can do (beyond 16 ceil(N/16) nothing changes) */
    uint64_t best = UINT64_MAX, mine = 0;
    fa_blocks arg = {0, 0};
    for (int64_t r = 16; r <= 16 * fa_cdiv(s.seqlen_q, 16); r += 16)
        for (int64_t c = 16; c <= 16 * fa_cdiv(s.seqlen_k, 16); c += 16) {
            fa_blocks t = {r, c};
            uint64_t b;
            if (fa_sram_need(FA_ALGO_FLASH2, &s, t) > M) break; /* need grows with c */
            if (counted(&s, t, &b) == 0 && b < best) {
                best = b;
                arg = t;
            }
        }
    counted(&s, bk, &mine);
    judge_check(mine == best,
                "%s: your tiles move %" PRIu64 " B; the fewest any tiles that fit can move is %" PRIu64
                " B (e.g. %" PRId64 " x %" PRId64 ")%s",
                hdr, mine, best, arg.block_r, arg.block_c,
                mine == best ? "" : " -- which tile side does the K/V term depend on, and what does the other one cost?");
    /* small tiles always fit: the SRAM budget counts only for tiles that reach the fewest bytes */
    judge_budget(mine == best, "your tiles do not reach the fewest bytes", 1, NULL,
                 "%s: the buffers need %" PRIu64 " B of SRAM (M = %" PRIu64 ")", hdr, need, M);
    uint64_t pred = ex_flash2_bytes(&s, bk);
    judge_check(pred == mine, "%s: predicted %" PRIu64 " B, counted %" PRIu64 " B", hdr, pred, mine);
    fa_blocks sq = {64, 64};
    uint64_t c64;
    counted(&s, sq, &c64);
    pred = ex_flash2_bytes(&s, sq);
    judge_check(pred == c64, "%s, with 64 x 64 tiles: predicted %" PRIu64 " B, counted %" PRIu64 " B", hdr, pred, c64);
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
    return judge_verdict("04 (block sizes)");
}
