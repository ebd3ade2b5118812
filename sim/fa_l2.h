/* fa_l2.h -- a third memory level: an L2 cache between HBM (DRAM) and the SMs' SRAM.
 *
 * The two-level model counts what moves between SRAM and the level above it.  On a GPU that
 * level is the L2 cache (60 MiB on the H200), and only L2 misses and dirty evictions reach
 * DRAM.  This model replays an algorithm's transfers (it is an fa_mem sink) the way a GPU runs
 * them: the programs (thread blocks) of a kernel are launched in order, `slots` at a time
 * (SMs x blocks per SM); the running ones issue their transfers round-robin, one tile each in
 * turn, and a finished one is replaced by the next program.  Each tile touches its cache lines
 * (row segments of the tensor's contiguous layout) in a set-associative LRU cache,
 * write-back and write-allocate, optionally split in two partitions (fa_l2_set_partitions).  DRAM reads = missed lines; DRAM writes = dirty lines evicted
 * or left at the end.  docs/l2-model.md explains the assumptions and where they break.
 */
#ifndef FA_L2_H
#define FA_L2_H

#include <stdint.h>

#include "fa_sim.h"

typedef struct fa_l2 fa_l2;

typedef struct {
    uint64_t l2_read_bytes;   /* SRAM <- L2: the two-level model's HBM read bytes */
    uint64_t l2_write_bytes;  /* SRAM -> L2 */
    uint64_t dram_read_bytes; /* L2 <- DRAM: missed lines x line size */
    uint64_t dram_write_bytes;/* L2 -> DRAM: dirty lines evicted or flushed at the end */
    uint64_t accesses, misses;/* line accesses and misses */
    int64_t programs;         /* thread blocks replayed */
    int64_t max_grid;         /* thread blocks of the largest kernel (at most that many run at once) */
    int slots;                /* concurrent thread blocks */
    int sample;               /* 1: every line simulated; f: every f-th set, counts scaled by f */
} fa_l2_result;

/* An L2 of capacity_bytes with lines of line_bytes and `ways` ways per set, replaying with
 * `slots` concurrent programs.  max_transfers bounds the recorded transfers (memory).
 * Returns NULL on bad sizes or no memory (last error set). */
fa_l2 *fa_l2_alloc(uint64_t capacity_bytes, int line_bytes, int ways, int slots,
                   uint64_t max_transfers);
void fa_l2_free(fa_l2 *l2);

/* Splits the L2 into `parts` partitions (1, the default, or 2 as on the A100, H100 and H200),
 * each with half the sets.  A line lives in its home partition (fixed by its address); the
 * thread block in slot s runs on an SM next to partition s mod parts; a read of a line homed
 * on the far side leaves a read-only copy in the near partition (docs/l2-model.md).  Call
 * before the replay.  Errors: FA_EINVAL for another count or sets that do not split. */
fa_status fa_l2_set_partitions(fa_l2 *l2, int parts);

/* The sink to pass to fa_mem_set_sink(mem, fa_l2_sink, l2). */
void fa_l2_sink(void *l2, const fa_transfer *t);

/* Replays the recorded transfers and fills r.  Errors: FA_EINVAL if more than max_transfers
 * were recorded (the message says how many), FA_ENOMEM. */
fa_status fa_l2_run(fa_l2 *l2, fa_l2_result *r);

#endif
