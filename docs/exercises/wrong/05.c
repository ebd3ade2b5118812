/* Planted mistake for exercise 05: decides with the FIRST row of the block, so the keys only
 * later rows see are skipped -- wrong numbers.  The judge must reject it. */
#include "ex.h"

int64_t ex_kv_blocks_to_visit(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c)
{
    (void)rows;
    const int64_t T_c = fa_cdiv(s->seqlen_k, block_c);
    const int64_t last_key = r0 + fa_causal_offset(s); /* BUG: r0 + rows - 1 + offset */
    if (last_key < 0) return 0;
    const int64_t n = last_key / block_c + 1;
    return n < T_c ? n : T_c;
}
