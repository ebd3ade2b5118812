/* Reference solution of exercise 05: the last row of the block sees the most keys, up to key
 * r0 + rows - 1 + offset; every block up to the one holding that key has an allowed key. */
#include "ex.h"

int64_t ex_kv_blocks_to_visit(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c)
{
    const int64_t T_c = fa_cdiv(s->seqlen_k, block_c);
    const int64_t last_key = r0 + rows - 1 + fa_causal_offset(s);
    if (last_key < 0) return 0; /* no row of the block sees any key */
    const int64_t n = last_key / block_c + 1;
    return n < T_c ? n : T_c;
}
