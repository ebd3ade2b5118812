/* explain.c -- the forward closed form term by term (fa_explain.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fa_explain.h"

static void add(fa_fwd_terms *x_, const char *tensor, const char *dir, const char *symbol, uint64_t value,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add(fa_fwd_terms *x_, const char *tensor, const char *dir, const char *symbol, uint64_t value,
                const char *fmt, ...)
{
    if (x_->n >= FA_EXPLAIN_TERMS) return;
    fa_term *x = &x_->t[x_->n++];
    x->tensor = tensor;
    x->dir = dir;
    x->symbol = symbol;
    x->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->numbers, sizeof x->numbers, fmt, ap);
    va_end(ap);
}

fa_status fa_explain_forward(fa_algo a, const fa_shape *s, fa_blocks bk, fa_fwd_terms *out)
{
    memset(out, 0, sizeof *out);
    if (bk.block_r < 1 || bk.block_c < 1) FA_FAIL(FA_EINVAL, "tiles %" PRId64 " x %" PRId64 ": both at least 1", bk.block_r, bk.block_c);
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k,
                   d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (a == FA_ALGO_STANDARD) {
        const uint64_t p = T_c == 1 ? 1 : 2;
        out->p = p;
        add(out, "Q", "read", "N_q*d*e", Nq * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, d, e);
        add(out, "K", "read", "T_r*N_k*d*e", (uint64_t)T_r * Nk * d * e, "%" PRId64 "*%" PRIu64 "*%" PRIu64 "*%" PRIu64, T_r, Nk, d, e);
        add(out, "S", "write", "N_q*N_k*e", Nq * Nk * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, Nk, e);
        add(out, "S", "read", "p*N_q*N_k*e", p * Nq * Nk * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64 "*%" PRIu64, p, Nq, Nk, e);
        add(out, "P", "write", "N_q*N_k*e", Nq * Nk * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, Nk, e);
        add(out, "P", "read", "N_q*N_k*e", Nq * Nk * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, Nk, e);
        add(out, "V", "read", "T_r*N_k*d_v*e", (uint64_t)T_r * Nk * dv * e, "%" PRId64 "*%" PRIu64 "*%" PRIu64 "*%" PRIu64, T_r, Nk, dv, e);
        add(out, "O", "write", "N_q*d_v*e", Nq * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, dv, e);
    } else if (a == FA_ALGO_FLASH1) {
        /* V_rows: query rows summed over all (i, j) visits */
        uint64_t vrows = 0, kcols = 0;
        for (int64_t j = 0; j < T_c; j++) {
            int64_t c0 = j * bk.block_c, cols = fa_tile_len(c0, s->seqlen_k, bk.block_c), lo, full;
            fa_q_tiles(s, c0, cols, bk.block_r, &lo, &full);
            if (lo < T_r) {
                vrows += Nq - (uint64_t)(lo * bk.block_r);
                kcols += (uint64_t)cols;
            }
        }
        out->vrows = vrows, out->kcols = kcols;
        add(out, "K", "read", "N_k*d*e", kcols * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, kcols, d, e);
        add(out, "V", "read", "N_k*d_v*e", kcols * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, kcols, dv, e);
        add(out, "Q", "read", "V_rows*d*e", vrows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, vrows, d, e);
        add(out, "O", "read", "V_rows*d_v*e", vrows * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, vrows, dv, e);
        add(out, "O", "write", "(N_q + V_rows)*d_v*e", (Nq + vrows) * dv * e, "(%" PRIu64 " + %" PRIu64 ")*%" PRIu64 "*%" PRIu64, Nq, vrows, dv, e);
        add(out, "l", "read", "4*V_rows", 4 * vrows, "4*%" PRIu64, vrows);
        add(out, "l", "write", "4*(N_q + V_rows)", 4 * (Nq + vrows), "4*(%" PRIu64 " + %" PRIu64 ")", Nq, vrows);
        add(out, "m", "read", "4*V_rows", 4 * vrows, "4*%" PRIu64, vrows);
        add(out, "m", "write", "4*(N_q + V_rows)", 4 * (Nq + vrows), "4*(%" PRIu64 " + %" PRIu64 ")", Nq, vrows);
    } else {
        uint64_t qrows = 0, krows = 0;
        for (int64_t i = 0; i < T_r; i++) {
            int64_t r0 = i * bk.block_r, rows = s->seqlen_q - r0 < bk.block_r ? s->seqlen_q - r0 : bk.block_r, nv, nf;
            fa_kv_tiles(s, r0, rows, bk.block_c, &nv, &nf);
            if (nv > 0) qrows += (uint64_t)rows;
            uint64_t k = (uint64_t)(nv * bk.block_c);
            krows += k < Nk ? k : Nk;
        }
        out->qrows = qrows, out->krows = krows;
        add(out, "Q", "read", "N_q*d*e", qrows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, qrows, d, e);
        add(out, "K", "read", "K_rows*d*e", krows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, krows, d, e);
        add(out, "V", "read", "K_rows*d_v*e", krows * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, krows, dv, e);
        add(out, "O", "write", "N_q*d_v*e", Nq * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, dv, e);
        add(out, "LSE", "write", "4*N_q", 4 * Nq, "4*%" PRIu64, Nq);
    }
    for (int k = 0; k < out->n; k++) out->slice += out->t[k].value;
    return FA_OK;
}

