/* Exercise 07 -- split-KV decoding and the LSE merge.  See README.md.
 * Judge: make exercise EX=07 */
#include <math.h>

#include "ex.h"

fa_status ex_split_kv_decode(fa_mem *mem, const fa_shape *s, fa_blocks bk, int64_t n_splits,
                             const ex_decode_tensors *t)
{
    /* TODO 1: for every (b, h) and every split p = 0 .. n_splits-1, choose its key blocks
     *         [j_begin, j_end) and call ex_partial_forward(mem, s, bk, t, b, h, p, j_begin, j_end).
     * TODO 2: for every (b, h) and row block of N_q: allocate SRAM buffers (fa_sram_alloc),
     *         load each split's O_p tile (rows p * N_q + r0 .. of t->Opart) and LSE_p, merge them
     *         as in exercise 01, store O and LSE (fa_store), free the buffers. */
    (void)mem; (void)s; (void)bk; (void)n_splits; (void)t;
    return FA_OK;
}
