/* fa_infer_impl.h -- internals shared by decode.c, paged.c and varlen.c (not a public header). */
#ifndef FA_INFER_IMPL_H
#define FA_INFER_IMPL_H

#include "fa_infer.h"

/* The state of one run of the inference kernel. */
typedef struct {
    const fa_shape *s;
    fa_blocks bk;
    fa_infer_opts opt;
    const fa_varlen *vl; /* NULL: a plain batch of s->batch identical sequences */
    int64_t g;           /* H / H_kv */
    int64_t hp;          /* query heads per thread block: g when packed, else 1 */
    int64_t pps;         /* pages per sequence, ceil(N_k / P) (paged) */
    int64_t program;     /* running thread-block number (for sinks) */
    fa_tensor Q, K, V, O, L, Op, Lp, BT;
    fa_buf Qi, Kj, Vj, S, Oi, m, l, bt; /* main kernel */
    fa_buf Ls, Os, Oc, Lc;              /* combine kernel */
} infer_eng;

/* One sequence: its tensors (row views for a varlen batch), lengths and shape. */
typedef struct {
    fa_tensor Q, K, V, O, L, Op, Lp;
    int64_t b;   /* batch index into the tensors (0 for a varlen batch) */
    int64_t seq; /* sequence number (row of the block table) */
    int64_t Nq, Nk;
    fa_shape sh; /* batch 1, seqlen_q = N_q, seqlen_k = N_k (may be 0) */
} infer_seq;

fa_status infer_seq_of(const infer_eng *E, int64_t b, infer_seq *q);
/* Creates O, LSE (and O_part, LSE_part when S > 1, with host arrays in numeric mode that the
 * caller frees) of B x H x N rows. */
fa_status infer_make_outputs(fa_mem *mem, infer_eng *E, int64_t B, int64_t N, double *O,
                             double *LSE, double **Op, double **Lp);
/* Runs the main kernel, then the combine when S > 1. */
fa_status infer_run(fa_mem *mem, infer_eng *E);

#endif
