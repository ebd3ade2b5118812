/* Exercise 02 -- the IO of standard attention by hand.  See README.md.
 * Judge: make exercise EX=02 */
#include <string.h>

#include "ex.h"

void ex_standard_bytes(const fa_shape *s, fa_blocks bk, ex_standard_io *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype);
    const uint64_t T_r = (uint64_t)fa_cdiv(s->seqlen_q, bk.block_r);
    const uint64_t T_c = (uint64_t)fa_cdiv(s->seqlen_k, bk.block_c);
    (void)e;
    (void)T_r;
    (void)T_c;
    /* TODO: kernel 1 (S = QK^T), kernel 2 (P = softmax S), kernel 3 (O = PV).
     * Count per (batch, head) slice, then multiply by B*H. */
}
