/* ex.h -- exercise 08: why FlashAttention-1's loop order costs more IO than FlashAttention-2's. */
#ifndef EX08_H
#define EX08_H

#include <stdint.h>

#include "fa_attn.h"

typedef struct {
    uint64_t read;  /* bytes HBM -> SRAM */
    uint64_t write; /* bytes SRAM -> HBM */
} ex_rw;

/* Bytes per tensor, all B x H slices.  Tensors an algorithm does not use stay 0:
 * flash1 uses Q, K, V, O, l, m; flash2 uses Q, K, V, O, LSE.  l, m, LSE are fp32 (4 bytes). */
typedef struct {
    ex_rw Q, K, V, O, l, m, LSE;
} ex_flash_io;

/* The HBM bytes of fa_flash1_forward (FlashAttention Alg. 1, literally) and fa_flash2_forward
 * on shape s (no mask; tails allowed) with tiles bk -- derived by you, checked against the
 * counter. */
void ex_flash1_io(const fa_shape *s, fa_blocks bk, ex_flash_io *out);
void ex_flash2_io(const fa_shape *s, fa_blocks bk, ex_flash_io *out);

/* With B_r = block_r for both algorithms, the smallest B_c (a multiple of 16, at most
 * 16 ceil(N_k / 16)) for which flash1 moves fewer HBM bytes in total than flash2, or 0 if there
 * is none.  Ignore SRAM capacity here.  Use your two functions. */
int64_t ex_crossover_block_c(const fa_shape *s, int64_t block_r);

#endif
