/* ex.h -- exercise 03: the tile loop of the FlashAttention-2 forward, written against sim/. */
#ifndef EX03_H
#define EX03_H

#include "fa_attn.h"

/* Computes O = softmax(scale Q K^T) V and LSE (no mask) with FlashAttention-2's loop order:
 * for every (batch b, head h) and every row block i: load Q_i once, stream K_j, V_j past it
 * with the online softmax, store O_i and LSE_i once.
 * The judge made the HBM tensors on mem:
 *   Q (B, H, N_q, d)   K (B, H_kv, N_k, d)   V (B, H_kv, N_k, d_v)
 *   O (B, H, N_q, d_v) LSE (B, H, N_q, 1)  -- query head h reads kv head h / (H / H_kv).
 * Move tiles only with fa_load / fa_store, into buffers from fa_sram_alloc; the SRAM arena holds
 * exactly what the seven buffers Q_i, K_j, V_j, S_ij, O_i, m_i, l_i need.
 * Return FA_OK, or the status of the first call that failed. */
fa_status ex_flash2_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *Q,
                            fa_tensor *K, fa_tensor *V, fa_tensor *O, fa_tensor *LSE);

#endif
