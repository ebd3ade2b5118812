/* ex.h -- exercise 02: the HBM traffic of standard attention, by hand. */
#ifndef EX02_H
#define EX02_H

#include <stdint.h>

#include "fa_attn.h"

typedef struct {
    uint64_t read;  /* bytes HBM -> SRAM */
    uint64_t write; /* bytes SRAM -> HBM */
} ex_rw;

/* Bytes moved per tensor, summed over all B x H (batch, query head) slices. */
typedef struct {
    ex_rw Q, K, V, S, P, O;
} ex_standard_io;

/* Predicts the bytes fa_standard_forward (cpu_ref/standard.c) moves on shape s with tiles bk.
 * s has no mask; N_q, N_k need not be multiples of the tiles; e = fa_dtype_bytes(s->dtype). */
void ex_standard_bytes(const fa_shape *s, fa_blocks bk, ex_standard_io *out);

#endif
