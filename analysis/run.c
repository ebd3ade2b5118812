/* run.c -- one algorithm's pass on a configuration: the tile rule, the counts, the time model
 * of its kernel profile (fa_run.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fa_run.h"

fa_status fa_run_tiles(const fa_run_config *o, fa_blocks *bk, uint64_t *overflow)
{
    *overflow = 0;
    switch (o->rule) {
    case FA_TILES_EXPLICIT:
        bk->block_r = o->block_r;
        bk->block_c = o->block_c;
        return FA_OK;
    case FA_TILES_PAPER: {
        fa_blocks_paper(&o->shape, o->sram, bk, overflow);
        uint64_t need = 0; /* the pass's largest buffers decide the overflow */
        for (int a = 0; a < FA_NALGO; a++) {
            uint64_t n = fa_sram_need_pass(o->pass, (fa_algo)a, &o->shape, *bk);
            if (n > need) need = n;
        }
        *overflow = need > o->sram ? need - o->sram : 0;
        return FA_OK;
    }
    case FA_TILES_FIT: return fa_blocks_fit_pass(o->pass, &o->shape, o->sram, bk);
    case FA_TILES_PROFILE: /* per algorithm (fa_run_algo); the FlashAttention-2 forward tiles otherwise */
        {
            const fa_tile_row *row;
            const fa_profile *p = o->profile ? o->profile : fa_profile_default(FA_ALGO_FLASH2);
            return fa_profile_tiles(p, o->pass == FA_PASS_BWD ? FA_PASS_BWD : FA_PASS_FWD, o->hw.arch,
                                    &o->shape, bk, &row);
        }
    }
    return FA_EINVAL;
}

fa_status fa_run_algo(const fa_run_config *o, fa_algo a, FILE *trace, fa_io_result *r)
{
    const fa_profile *prof = o->profile ? o->profile : fa_profile_default(a);
    fa_perf_result pr;
    char why[200] = "";
    if (o->rule == FA_TILES_PROFILE && prof->tiles) {
        fa_hw hw = o->hw; /* --sram: the shared memory a thread block may use */
        hw.sram_per_block = o->sram;
        if (hw.sram_per_sm < o->sram) hw.sram_per_sm = o->sram;
        fa_status st = fa_perf_predict_counted(prof, o->pass, &o->shape, &hw, NULL, &pr);
        if (st && !o->profile && (st == FA_EINVAL || st == FA_ENOSRAM)) {
            /* the algorithm's kernel cannot run this shape (no tile for this d or dtype, tiles
             * that do not fit): count it in the paper's model, and say why */
            snprintf(why, sizeof why, "%s; counted in the paper's model (--blocks fit)", fa_last_error());
            fa_clear_error();
            fa_run_config fit = *o;
            fit.rule = FA_TILES_FIT;
            fit.profile = fa_profile_find("paper");
            FA_TRY(fa_run_algo(&fit, a, trace, r));
            snprintf(r->perf_note, sizeof r->perf_note, "%s", why);
            return FA_OK;
        }
        FA_TRY(st);
        *r = pr.io;
        fa_perf_to_io(&pr, r);
        r->sram_bytes = o->sram;
        if (trace) { /* the transfers again, into the trace (one pass: one set of tiles) */
            if (o->pass == FA_PASS_FWDBWD)
                FA_FAIL(FA_EINVAL, "--trace with --pass fwdbwd needs one set of tiles: the %s profile's "
                        "forward and backward tiles differ (give --block-r/--block-c, or trace each pass)", prof->key);
            fa_io_result t;
            FA_TRY(fa_io_run_placed(o->pass, a, &o->shape, pr.occ[o->pass == FA_PASS_BWD].blocks,
                                    o->pass == FA_PASS_BWD ? 1 : pr.splits, o->sram, &o->hw, prof,
                                    pr.occ[o->pass == FA_PASS_BWD].threads, trace, &t));
        }
        return FA_OK;
    }
    fa_blocks bk;
    uint64_t over;
    FA_TRY(fa_run_tiles(o, &bk, &over));
    if (o->rule == FA_TILES_EXPLICIT && prof->mma == FA_MMA_NONE) { /* the paper's one SRAM: say which option */
        const uint64_t need = fa_sram_need_pass(o->pass, a, &o->shape, bk);
        if (need > o->sram)
            FA_FAIL(FA_ENOSRAM, "--block-r %" PRId64 " --block-c %" PRId64 ": %s's buffers on these tiles need %" PRIu64
                    " B of SRAM, over the limit M = %" PRIu64 " B (--sram, default the hardware profile's shared memory "
                    "per block); --blocks fit picks the largest tiles that fit", bk.block_r, bk.block_c, fa_algo_name(a),
                    need, (uint64_t)o->sram);
    }
    FA_TRY(fa_io_run(o->pass, a, &o->shape, bk, o->sram + over, &o->hw, trace, r));
    /* M grew for the pass's largest buffers; this algorithm's own may fit */
    r->sram_overflow = over && r->sram_need > o->sram ? r->sram_need - o->sram : 0;
    if (prof->mma == FA_MMA_NONE) return FA_OK; /* the paper's model: the roofline alone */
    fa_status st = fa_perf_predict_counted(prof, o->pass, &o->shape, &o->hw, &bk, &pr);
    if (st && o->profile) return st; /* asked for: say why it cannot be timed */
    if (!st) {
        fa_perf_to_io(&pr, r);
        r->blocks_bwd = bk;
    } else { /* these tiles do not fit the kernel (registers, shared memory): the roofline alone */
        snprintf(r->perf_note, sizeof r->perf_note, "%s on %" PRId64 " x %" PRId64 " tiles: %s", prof->key, bk.block_r,
                 bk.block_c, fa_last_error());
        fa_clear_error();
    }
    return FA_OK;
}


fa_status fa_run_l2(const fa_run_config *c, fa_algo a, fa_io_result *r)
{
    const fa_blocks bk = c->pass == FA_PASS_BWD && r->blocks_bwd.block_r ? r->blocks_bwd : r->blocks;
    if (c->pass == FA_PASS_FWDBWD && r->blocks_bwd.block_r &&
        (r->blocks_bwd.block_r != bk.block_r || r->blocks_bwd.block_c != bk.block_c))
        FA_FAIL(FA_EINVAL, "--l2 with --pass fwdbwd replays one set of tiles: the %s profile's forward and backward "
                           "tiles differ (give --block-r/--block-c, or one pass)", r->profile);
    const uint64_t need = fa_sram_need_pass(c->pass, a, &c->shape, bk);
    return fa_io_l2(c->pass, a, &c->shape, bk, c->pass == FA_PASS_BWD ? 1 : (r->splits > 1 ? r->splits : 1),
                    need > r->sram_bytes ? need : r->sram_bytes, &c->hw, r->occupancy[c->pass == FA_PASS_BWD], r);
}

fa_status fa_run_counts(const fa_run_config *c, fa_algo a, int l2, fa_io_result *r)
{
    fa_blocks bk;
    uint64_t over;
    FA_TRY(fa_run_tiles(c, &bk, &over));
    FA_TRY(fa_io_run(c->pass, a, &c->shape, bk, c->sram + over, &c->hw, NULL, r));
    if (l2) FA_TRY(fa_io_l2(c->pass, a, &c->shape, bk, 1, c->sram + over, &c->hw, 0, r));
    r->sram_overflow = over && r->sram_need > c->sram ? r->sram_need - c->sram : 0;
    return FA_OK;
}

fa_status fa_run_trace_check(const fa_run_config *c)
{
    fa_blocks bk;
    uint64_t over;
    FA_TRY(fa_run_tiles(c, &bk, &over));
    const double tiles = (double)c->shape.batch * (double)c->shape.heads * (double)fa_cdiv(c->shape.seqlen_q, bk.block_r) *
                         (double)fa_cdiv(c->shape.seqlen_k, bk.block_c);
    if (tiles * 8 > FA_TRACE_LIMIT)
        FA_FAIL(FA_EINVAL, "--trace would hold about %.3g transfers (limit %.0f): use a smaller shape", tiles * 8,
                FA_TRACE_LIMIT);
    return FA_OK;
}
