/* ex.h -- exercise 06: the backward pass by recomputation from O and the logsumexp. */
#ifndef EX06_H
#define EX06_H

#include "fa_bwd.h"

/* Computes dQ, dK, dV of attention (no mask, H_kv = H) from the forward's inputs Q, K, V, its
 * output O and logsumexp LSE, and the incoming gradient dO, without any N_q x N_k tensor in HBM:
 * P_ij is recomputed on chip as exp(scale Q_i K_j^T - LSE_i).
 * The judge made the HBM tensors on mem (element size e, LSE fp32):
 *   Q, dQ (B, H, N_q, d)   K, dK (B, H, N_k, d)   V, dV (B, H, N_k, d_v)
 *   O, dO (B, H, N_q, d_v) LSE (B, H, N_q, 1)
 * dQ, dK and dV hold zeros on entry.  IO budget (docs/exercises/06-backward/README.md): K and V
 * read once, dK and dV written once and never read; Q, O, dO, LSE, dQ moved at most T_c times.
 * Return FA_OK or the status of the first call that failed. */
fa_status ex_flash_backward(fa_mem *mem, const fa_shape *s, fa_blocks bk, fa_tensor *Q,
                            fa_tensor *K, fa_tensor *V, fa_tensor *O, fa_tensor *LSE,
                            fa_tensor *dO, fa_tensor *dQ, fa_tensor *dK, fa_tensor *dV);

#endif
