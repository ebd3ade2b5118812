/* ex.h -- exercise 05: causal tile skipping in the FlashAttention-2 forward. */
#ifndef EX05_H
#define EX05_H

#include <stdint.h>

#include "fa_attn.h"

/* The row block holds query rows [r0, r0 + rows) of shape s, whose mask is causal with either
 * anchor (fa_causal_offset(s) gives the diagonal: key j is allowed for row i iff
 * j <= i + offset).  Returns n: the loop over key blocks of width block_c visits blocks
 * 0 .. n-1 and skips the rest without loading them.  n must include every block holding a key
 * allowed for some row of the block, and no other; 0 when no row of the block sees any key;
 * never more than T_c = ceil(N_k / block_c). */
int64_t ex_kv_blocks_to_visit(const fa_shape *s, int64_t r0, int64_t rows, int64_t block_c);

#endif
