/* Exercise 08 -- FlashAttention-1 vs FlashAttention-2 loop order, derived and checked.
 * See README.md.  Judge: make exercise EX=08 */
#include <string.h>

#include "ex.h"

void ex_flash1_io(const fa_shape *s, fa_blocks bk, ex_flash_io *out)
{
    memset(out, 0, sizeof *out);
    /* TODO: Algorithm 1 of the FlashAttention paper, line by line (lines 2, 6, 8, 12, 13). */
    (void)s;
    (void)bk;
}

void ex_flash2_io(const fa_shape *s, fa_blocks bk, ex_flash_io *out)
{
    memset(out, 0, sizeof *out);
    /* TODO: FlashAttention-2's forward: which tensor is re-read, and how often? */
    (void)s;
    (void)bk;
}

int64_t ex_crossover_block_c(const fa_shape *s, int64_t block_r)
{
    /* TODO: try B_c = 16, 32, ... with your two functions. */
    (void)s;
    (void)block_r;
    return 0;
}
