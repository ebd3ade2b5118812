/* fa_run.h -- running one algorithm's pass as the command line asks for it: the tile rule (the
 * paper's fit or paper rule, explicit tiles, or a kernel profile's tile table), the counts in the
 * memory model, and the time model of the kernel profile.  The one home of "run algorithm a on
 * this configuration" for fasim io, sweep, explain and animate (docs/time-model.md, section 2). */
#ifndef FA_RUN_H
#define FA_RUN_H

#include <stdio.h>

#include "fa_analysis.h"
#include "fa_perf.h"

/* How the tiles are chosen. */
typedef enum {
    FA_TILES_FIT = 0,      /* the paper's model: the largest multiples of 16 that fit M (fa_blocks_fit_pass) */
    FA_TILES_PAPER = 1,    /* Algorithm 1 line 1's B_c = ceil(M / 4d), B_r = min(B_c, d); M grows to fit */
    FA_TILES_EXPLICIT = 2, /* block_r x block_c as given */
    FA_TILES_PROFILE = 3   /* each algorithm's kernel profile's tile table (fa_profile_tiles) */
} fa_tile_rule;

/* One configuration: the shape, the pass, the GPU and M, the tile rule, and the kernel profile
 * (NULL: each algorithm's own, fa_profile_default). */
typedef struct {
    fa_shape shape;
    fa_pass pass;
    fa_hw hw;
    uint64_t sram;          /* M, bytes (the shared memory a thread block may use) */
    fa_tile_rule rule;
    int64_t block_r, block_c; /* FA_TILES_EXPLICIT */
    const fa_profile *profile;
} fa_run_config;

/* The tiles of configuration c (FA_TILES_PROFILE: the FlashAttention-2 profile's, or c->profile's,
 * for c->pass).  FA_TILES_PAPER fills *overflow with the bytes the pass's largest buffers need
 * beyond M (0 otherwise).  Errors: those of fa_blocks_fit_pass (FA_ENOSRAM: no tile fits M) and
 * fa_profile_tiles (FA_EINVAL: no row for the shape). */
fa_status fa_run_tiles(const fa_run_config *c, fa_blocks *bk, uint64_t *overflow);

/* Counts pass c->pass of algorithm a and predicts its time with the kernel profile
 * (docs/time-model.md): FA_TILES_PROFILE takes the profile's tile table and placement (when the
 * algorithm's own kernel cannot run the shape -- no tile row for d, a dtype it does not take,
 * tiles that do not fit -- the pass is counted in the paper's model with --blocks fit and
 * r->perf_note says why); the other rules count in the paper's model and time the profile on
 * those tiles.  trace: optional CSV sink of every transfer (one set of tiles: refused for
 * fwdbwd with a profile whose forward and backward tiles differ).  Fills r (r->has_perf when the
 * time model ran).  Errors: those of fa_io_run and fa_perf_predict, FA_EINVAL as above. */
fa_status fa_run_algo(const fa_run_config *c, fa_algo a, FILE *trace, fa_io_result *r);

/* Adds the L2 model's DRAM bytes (fa_io_l2) to r, a result of fa_run_algo(c, a): one set of
 * tiles replayed, the forward's (the backward's for bwd), with M grown to the pass's SRAM need
 * in the paper's placement (a kernel's register buffers may exceed M; the bytes do not depend on
 * where the buffers live) and the kernel's occupancy of that pass.  Errors: FA_EINVAL for fwdbwd
 * with a profile whose forward and backward tiles differ (nothing replayed), those of fa_io_l2. */
fa_status fa_run_l2(const fa_run_config *c, fa_algo a, fa_io_result *r);

/* Counts pass c->pass of algorithm a in the paper's model alone (no time model: fasim sweep's
 * point) on the tiles of c's rule (fa_run_tiles; FA_TILES_PROFILE is not for it), M grown by the
 * paper rule's overflow (r->sram_overflow, bytes); with l2 also the L2 model's DRAM bytes of that
 * run (fa_io_l2 at the same M, the occupancy estimated).  Errors: those of fa_run_tiles, fa_io_run
 * and fa_io_l2. */
fa_status fa_run_counts(const fa_run_config *c, fa_algo a, int l2, fa_io_result *r);

/* The transfers a --trace file may hold: about 8 per tile, B H T_r T_c on the tiles of c's rule. */
#define FA_TRACE_LIMIT 50000000.0

/* FA_OK when a trace of configuration c stays within FA_TRACE_LIMIT.  Errors: those of
 * fa_run_tiles; FA_EINVAL "--trace would hold about 1.2e+08 transfers (limit 50000000): use a
 * smaller shape". */
fa_status fa_run_trace_check(const fa_run_config *c);

#endif
