/* formula_varlen_bwd.c -- closed form of the varlen backward (fa_varlen_backward): the sum of
 * FlashAttention-2 backward's closed form over the sequences, plus the dQ = 0 stores of a
 * sequence with queries and no keys (docs/inference.md, "Varlen backward"). */
#include <string.h>

#include "fa_analysis.h"
#include "fa_infer.h"

fa_status fa_formula_varlen_bwd(const fa_shape *s, fa_blocks bk, const fa_varlen *vl,
                                fa_pass_formula *out)
{
    FA_TRY(fa_varlen_check(s, vl));
    memset(out, 0, sizeof *out);
    int dq = -1;
    for (int t = 0; t < FA_PASS_TENSORS; t++)
        if (strcmp(fa_pass_tensor_names[t], "dQ") == 0) dq = t;
    for (int64_t b = 0; b < vl->nseq; b++) {
        const int64_t nq = vl->cu_q[b + 1] - vl->cu_q[b], nk = vl->cu_k[b + 1] - vl->cu_k[b];
        if (nq == 0) continue;
        fa_pass_formula f;
        memset(&f, 0, sizeof f);
        if (nk == 0) { /* dQ = 0 stored, H x nq x d in the dtype */
            uint64_t w;
            FA_TRY(fa_u64_mul((uint64_t)(s->heads * nq * s->d), (uint64_t)fa_dtype_bytes(s->dtype), &w,
                              "closed-form bytes"));
            f.write[dq] = w;
            f.write_bytes = w;
        } else {
            fa_shape sb = *s;
            sb.seqlen_q = nq;
            sb.seqlen_k = nk;
            FA_TRY(fa_formula_bwd_bytes(FA_ALGO_FLASH2, &sb, bk, &f));
        }
        for (int t = 0; t < FA_PASS_TENSORS; t++) {
            FA_TRY(fa_u64_add(out->read[t], f.read[t], &out->read[t], "closed-form bytes"));
            FA_TRY(fa_u64_add(out->write[t], f.write[t], &out->write[t], "closed-form bytes"));
        }
        FA_TRY(fa_u64_add(out->read_bytes, f.read_bytes, &out->read_bytes, "closed-form bytes"));
        FA_TRY(fa_u64_add(out->write_bytes, f.write_bytes, &out->write_bytes, "closed-form bytes"));
        FA_TRY(fa_u64_add(out->matmul_flops, f.matmul_flops, &out->matmul_flops, "matmul FLOPs"));
    }
    return FA_OK;
}
