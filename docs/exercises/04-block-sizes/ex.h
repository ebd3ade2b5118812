/* ex.h -- exercise 04: choose B_r and B_c for an SRAM of M bytes, and predict the HBM bytes. */
#ifndef EX04_H
#define EX04_H

#include <stdint.h>

#include "fa_attn.h"

/* Tiles for fa_flash2_forward on shape s (no mask) with an SRAM of M bytes:
 *  - B_r and B_c are multiples of 16 (>= 16), as tensor-core tiles are;
 *  - the seven buffers of docs/io-model.md section 7 fit:
 *        B_r d e + B_c d e + B_c d_v e + 4 B_r B_c + 4 B_r d_v + 8 B_r <= M;
 *  - among all such tiles, they give the fewest HBM bytes. */
fa_blocks ex_choose_blocks(const fa_shape *s, uint64_t M);

/* Predicts the HBM bytes (read + written, all B x H slices) of fa_flash2_forward on s with tiles
 * bk: the closed form of docs/io-model.md section 4, which you derive again. */
uint64_t ex_flash2_bytes(const fa_shape *s, fa_blocks bk);

#endif
