/* paged.c -- decoding through a paged KV cache (PagedAttention, Kwon et al. 2023): K and V
 * live in a pool of pages of P tokens; a block table maps each sequence's logical pages to
 * physical ones.  The kernel is decode.c's; only the K/V tile loads change (page by page, after
 * the tile's block-table entries).  Counts: docs/inference.md, "Paged KV cache". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fa_infer_impl.h"

fa_status fa_paged_forward(fa_mem *mem, const fa_shape *s, fa_blocks bk,
                           const fa_infer_opts *opt, const int32_t *block_table,
                           int64_t num_pages, const double *Q, const double *K_cache,
                           const double *V_cache, double *O, double *LSE)
{
    FA_TRY(fa_shape_check(s));
    if (!opt || opt->page_size < 1)
        FA_FAIL(FA_EINVAL, "page size = %" PRId64 " must be >= 1 for a paged KV cache",
                opt ? opt->page_size : (int64_t)0);
    FA_TRY(fa_infer_opts_check(s, bk, opt, NULL));
    const int numeric = fa_mem_mode(mem) == FA_MODE_NUMERIC;
    if (numeric && (!Q || !K_cache || !V_cache || !O || !LSE || !block_table))
        FA_FAIL(FA_EINVAL, "paged: numeric mode needs Q, the K/V caches, the block table, O, LSE");
    const int64_t P = opt->page_size, pps = fa_cdiv(s->seqlen_k, P);
    if (num_pages == 0 && !numeric) num_pages = s->batch * pps;
    if (num_pages < 1) FA_FAIL(FA_EINVAL, "paged: num_pages = %" PRId64 " must be >= 1", num_pages);
    const int e = fa_dtype_bytes(s->dtype);
    infer_eng E;
    memset(&E, 0, sizeof E);
    E.s = s;
    E.bk = bk;
    E.opt = *opt;
    E.pps = pps;
    double *bt = NULL, *Op = NULL, *Lp = NULL;
    fa_status st = FA_OK;
    if (numeric) { /* the memory model holds doubles: the int32 entries as values */
        bt = malloc((size_t)(s->batch * pps) * sizeof *bt);
        if (!bt) FA_FAIL(FA_ENOMEM, "out of host memory for the block table");
        for (int64_t k = 0; k < s->batch * pps && !st; k++) {
            if (block_table[k] < 0 || block_table[k] >= num_pages)
                st = fa_error(FA_EINVAL, __FILE__, __LINE__,
                              "block_table[%" PRId64 "][%" PRId64 "] = %d is not a page in [0, %" PRId64 ")",
                              k / pps, k % pps, (int)block_table[k], num_pages);
            bt[k] = block_table[k];
        }
    }
    if (!st) st = fa_tensor_make(mem, &E.Q, "Q", s->batch, s->heads, s->seqlen_q, s->d, e,
                                 numeric ? (double *)Q : NULL);
    if (!st) st = fa_tensor_make(mem, &E.K, "K", num_pages, s->kv_heads, P, s->d, e,
                                 numeric ? (double *)K_cache : NULL);
    if (!st) st = fa_tensor_make(mem, &E.V, "V", num_pages, s->kv_heads, P, s->d_v, e,
                                 numeric ? (double *)V_cache : NULL);
    if (!st) st = fa_tensor_make(mem, &E.BT, "block_table", s->batch, 1, pps, 1, 4, bt);
    if (!st) st = infer_make_outputs(mem, &E, s->batch, s->seqlen_q, O, LSE, &Op, &Lp);
    if (!st) st = infer_run(mem, &E);
    free(bt);
    free(Op);
    free(Lp);
    return st;
}
