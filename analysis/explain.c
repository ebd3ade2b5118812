/* explain.c -- the forward closed form term by term (fa_explain.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fa_explain.h"
#include "fa_records.h"
#include "fa_run.h"

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
    return fa_explain_forward_split(a, s, bk, 1, out);
}

fa_status fa_explain_forward_split(fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, fa_fwd_terms *out)
{
    memset(out, 0, sizeof *out);
    if (splits < 1 || (splits > 1 && a != FA_ALGO_FLASH2))
        FA_FAIL(FA_EINVAL, "split-KV S = %lld: give S >= 1, and S > 1 only for flash2", (long long)splits);
    out->splits = splits;
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
        /* V_rows: query rows summed over all (i, j) visits (the row blocks that see key block j:
         * causal i_lo(j) .. T_r - 1, a window the band's) */
        uint64_t vrows = 0, kcols = 0;
        (void)T_r;
        for (int64_t j = 0; j < T_c; j++) {
            int64_t c0 = j * bk.block_c, cols = fa_tile_len(c0, s->seqlen_k, bk.block_c), nb, nrows;
            fa_q_span_sum(s, c0, cols, bk.block_r, &nb, &nrows);
            if (nb > 0) {
                vrows += (uint64_t)nrows;
                kcols += (uint64_t)cols;
            }
        }
        out->vrows = vrows, out->kcols = kcols;
        /* K_seen: the keys of the key blocks some row sees (N_k unless a mask leaves a block unseen) */
        const int seen = kcols != Nk;
        add(out, "K", "read", seen ? "K_seen*d*e" : "N_k*d*e", kcols * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, kcols, d, e);
        add(out, "V", "read", seen ? "K_seen*d_v*e" : "N_k*d_v*e", kcols * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, kcols, dv, e);
        add(out, "Q", "read", "V_rows*d*e", vrows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, vrows, d, e);
        add(out, "O", "read", "V_rows*d_v*e", vrows * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, vrows, dv, e);
        add(out, "O", "write", "(N_q + V_rows)*d_v*e", (Nq + vrows) * dv * e, "(%" PRIu64 " + %" PRIu64 ")*%" PRIu64 "*%" PRIu64, Nq, vrows, dv, e);
        add(out, "l", "read", "4*V_rows", 4 * vrows, "4*%" PRIu64, vrows);
        add(out, "l", "write", "4*(N_q + V_rows)", 4 * (Nq + vrows), "4*(%" PRIu64 " + %" PRIu64 ")", Nq, vrows);
        add(out, "m", "read", "4*V_rows", 4 * vrows, "4*%" PRIu64, vrows);
        add(out, "m", "write", "4*(N_q + V_rows)", 4 * (Nq + vrows), "4*(%" PRIu64 " + %" PRIu64 ")", Nq, vrows);
    } else {
        /* the keys of the tiles each row block visits (causal: its leading tiles, a window: the
         * band's; fa_kv_span_sum), the rows of the blocks that see a key */
        uint64_t qrows = 0, krows = 0;
        for (int64_t i = 0; i < T_r; i++) {
            int64_t r0 = i * bk.block_r, rows = fa_tile_len(r0, s->seqlen_q, bk.block_r), nt, nkeys;
            fa_kv_span_sum(s, r0, rows, bk.block_c, &nt, &nkeys);
            if (nt > 0) qrows += (uint64_t)rows;
            krows += (uint64_t)nkeys;
        }
        out->qrows = qrows, out->krows = krows;
        if (splits > 1) { /* FlashAttention-2's split-KV kernel, then its combine (docs/io-model.md, "Split-KV") */
            const uint64_t S = (uint64_t)splits, qs = (uint64_t)fa_split_q_rows(s, bk, splits);
            out->qsplit = qs;
            add(out, "Q", "read", "Q_rows*d*e", qs * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, qs, d, e);
            add(out, "K", "read", "K_rows*d*e", krows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, krows, d, e);
            add(out, "V", "read", "K_rows*d_v*e", krows * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, krows, dv, e);
            add(out, "O_part", "write", "S*N_q*d_v*4", S * Nq * dv * 4, "%" PRIu64 "*%" PRIu64 "*%" PRIu64 "*4", S, Nq, dv);
            add(out, "LSE_part", "write", "S*N_q*4", S * Nq * 4, "%" PRIu64 "*%" PRIu64 "*4", S, Nq);
            add(out, "O_part", "read", "S*N_q*d_v*4", S * Nq * dv * 4, "%" PRIu64 "*%" PRIu64 "*%" PRIu64 "*4", S, Nq, dv);
            add(out, "LSE_part", "read", "S*N_q*4", S * Nq * 4, "%" PRIu64 "*%" PRIu64 "*4", S, Nq);
        } else {
            /* a mask can leave row blocks that see no key and never load Q: the rows loaded are
             * Q_rows, defined in fa_explain_forward_text's line above the terms (N_q unmasked) */
            const int masked = s->window || s->causal != FA_CAUSAL_NONE;
            add(out, "Q", "read", masked ? "Q_rows*d*e" : "N_q*d*e", qrows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64,
                qrows, d, e);
            add(out, "K", "read", "K_rows*d*e", krows * d * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, krows, d, e);
            add(out, "V", "read", "K_rows*d_v*e", krows * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, krows, dv, e);
        }
        add(out, "O", "write", "N_q*d_v*e", Nq * dv * e, "%" PRIu64 "*%" PRIu64 "*%" PRIu64, Nq, dv, e);
        add(out, "LSE", "write", "4*N_q", 4 * Nq, "4*%" PRIu64, Nq);
    }
    for (int k = 0; k < out->n; k++) out->slice += out->t[k].value;
    return FA_OK;
}

fa_status fa_explain_run(const fa_run_config *c, fa_algo a, fa_blocks *bk, fa_io_result *r, char *rule, size_t n,
                         fa_tile_rule *used)
{
    fa_tile_rule dummy;
    if (!used) used = &dummy;
    const fa_profile *prof = c->profile ? c->profile : fa_profile_default(a);
    /* the kernel profile's tiles, counted as fasim io counts them (fa_run_algo: each pass's own
     * tiles, FlashAttention-2's split-KV where its rule splits); a kernel that cannot run the
     * shape falls back to the paper's model below */
    if (c->rule == FA_TILES_PROFILE && prof->tiles && prof->algo == a) {
        fa_run_config pc = *c;
        pc.profile = prof;
        if (fa_run_algo(&pc, a, NULL, r) == FA_OK && r->profile[0]) {
            *bk = c->pass == FA_PASS_BWD ? r->blocks_bwd : r->blocks;
            snprintf(rule, n, "the %s profile's tile table", prof->key); /* as fasim io */
            *used = FA_TILES_PROFILE;
            return FA_OK;
        }
    }
    fa_clear_error();
    fa_run_config paper = *c; /* the paper's model: no table (or none that runs here) is --blocks fit */
    if (paper.rule == FA_TILES_PROFILE) paper.rule = FA_TILES_FIT;
    *used = paper.rule;
    snprintf(rule, n, "%s", paper.rule == FA_TILES_EXPLICIT ? "--block-r/--block-c"
                            : paper.rule == FA_TILES_PAPER  ? "--blocks paper" : "--blocks fit");
    uint64_t over = 0;
    fa_status st = fa_run_tiles(&paper, bk, &over);
    return st ? st : fa_io_run(c->pass, a, &c->shape, *bk, c->sram + over, &c->hw, NULL, r);
}

void fa_explain_forward_text(FILE *f, fa_algo a, const fa_shape *s, fa_blocks bk, const fa_fwd_terms *x)
{
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k;
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    if (a == FA_ALGO_STANDARD) {
        fprintf(f, "  three kernels (S = scale QK^T, P = softmax(S), O = PV), each tiled B_r x B_c; no tile is\n"
                   "  skipped, masked or not.  p = %" PRIu64 ": the softmax reads S %s.\n",
                x->p, x->p == 1 ? "once (a row fits one tile, T_c = 1)" : "twice (max and sum, then normalise: T_c > 1)");
    } else if (a == FA_ALGO_FLASH1) {
        fprintf(f, "  FlashAttention Alg. 1: O, l, m initialised in HBM (line 2); outer loop over the T_c key\n"
                   "  blocks (K_j, V_j loaded once, line 6); inner loop over row blocks loading Q_i, O_i, l_i, m_i\n"
                   "  and storing O_i, l_i, m_i on every visit (lines 8, 12, 13).\n");
        if (s->window)
            fprintf(f, "  window (keys c-%" PRId64 " .. c+%" PRId64 " of row i, c = i + N_k - N_q%s): key block j (B_c = %" PRId64
                       " keys) is\n"
                       "  visited only by the row blocks (B_r = %" PRId64 " rows) whose band reaches one of its keys (fa_q_span_sum),\n"
                       "  so V_rows = query rows loaded over all visits, summed over the T_c = %" PRId64 " key blocks = %" PRIu64 "\n"
                       "  (instead of T_c*N_q = %" PRIu64 " without the window); %s%" PRIu64 " of %" PRIu64 " keys\n",
                    s->window_left, s->window_right, s->causal != FA_CAUSAL_NONE ? "; and causal" : "", bk.block_c,
                    bk.block_r, T_c, x->vrows, (uint64_t)T_c * Nq,
                    x->kcols == Nk ? "every key block is seen by some row, K and V are read once: "
                                   : "only the key blocks some row sees are loaded: K_seen = ", x->kcols, Nk);
        else if (s->causal == FA_CAUSAL_NONE)
            fprintf(f, "  V_rows = query rows over all visits = T_c*N_q = %" PRId64 "*%" PRIu64 " = %" PRIu64 "\n", T_c, Nq, x->vrows);
        else
            fprintf(f, "  causal: key block j is visited by row blocks i_lo(j) .. T_r-1 (fa_q_span_sum), so\n"
                       "  V_rows = sum_j (N_q - i_lo(j)*B_r) = %" PRIu64 " (instead of T_c*N_q = %" PRIu64 "),\n"
                       "  and only key blocks some row sees are loaded: %s%" PRIu64 " of %" PRIu64 " keys\n",
                    x->vrows, (uint64_t)T_c * Nq, x->kcols != Nk ? "K_seen = " : "", x->kcols, Nk);
    } else {
        if (x->splits > 1)
            fprintf(f, "  FlashAttention-2's split-KV kernel (flash_fwd_splitkv_kernel): the key tiles of each row block in\n"
                       "  S = %" PRId64 " chunks of ceil(T_c/S) = %" PRId64 " tiles, one thread block per (row block, chunk); each runs\n"
                       "  FlashAttention-2 Alg. 1 lines 4-13 over its chunk (Q_i loaded once per chunk that has a tile,\n"
                       "  O_i, m_i, l_i on chip) and stores its partial O_i and LSE_i in fp32 (O_part, LSE_part); a\n"
                       "  combine kernel reads every partial back and stores O and LSE (lines 14-15, merged by their LSE).\n"
                       "  Q_rows = query rows loaded over all (row block, chunk) blocks = %" PRIu64 "\n",
                    x->splits, fa_cdiv(T_c, x->splits), x->qsplit);
        else
            fprintf(f, "  FlashAttention-2 Alg. 1: outer loop over the T_r row blocks (Q_i loaded once, O_i, m_i, l_i on\n"
                       "  chip), inner loop over key blocks loading K_j, V_j; O_i and LSE_i stored once.\n");
        /* the Q term's Q_rows (split-KV: its own Q_rows above, the count here only a remark) */
        const int split = x->splits > 1;
        const char *qdef = split ? "Q rows loaded (blocks that see a key) = " : "Q_rows = query rows loaded (blocks that see a key) = ";
        if (s->window)
            fprintf(f, "  window (keys c-%" PRId64 " .. c+%" PRId64 " of row i, c = i + N_k - N_q%s): row block i visits the key\n"
                       "  blocks of its rows' band (fa_kv_span_sum), so K_rows = the keys of those blocks summed over i\n"
                       "  = %" PRIu64 " (instead of T_r*N_k = %" PRIu64 ");%s%s%" PRIu64 "\n",
                    s->window_left, s->window_right, s->causal != FA_CAUSAL_NONE ? "; and causal" : "", x->krows,
                    (uint64_t)T_r * Nk, split ? " " : "\n  ", qdef, x->qrows);
        else if (s->causal == FA_CAUSAL_NONE)
            fprintf(f, "  K_rows = keys loaded over all row blocks = T_r*N_k = %" PRId64 "*%" PRIu64 " = %" PRIu64 "\n", T_r, Nk, x->krows);
        else
            fprintf(f, "  causal: row block i visits n_visit(i) leading key blocks (fa_kv_span_sum), so\n"
                       "  K_rows = sum_i min(N_k, n_visit(i)*B_c) = %" PRIu64 " (instead of T_r*N_k = %" PRIu64 ");\n"
                       "  %s%" PRIu64 "\n",
                    x->krows, (uint64_t)T_r * Nk, qdef, x->qrows);
    }
}

void fa_explain_bound_text(FILE *f, fa_pass p, fa_algo a, const fa_shape *s, const fa_io_result *r, fa_blocks bk,
                           fa_tile_rule rule, const char *tiles_from)
{
    char b1[32];
    const double e = fa_dtype_bytes(s->dtype), M = (double)r->sram_bytes;
    const double tot = (double)fa_counts_hbm_bytes(&r->counts);
    const char *thm = p == FA_PASS_FWD ? "Theorem 2" : p == FA_PASS_BWD ? "Theorem 5" : "Theorems 2 + 5";
    double comp;
    const int in_range = fa_theta_in_range(p, s, r->sram_bytes, &comp);
    const int64_t Nmin = s->seqlen_q < s->seqlen_k ? s->seqlen_q : s->seqlen_k;
    char bc[32];
#define RANGE_NOTE()                                                                                                  \
    if (!in_range)                                                                                                    \
        fprintf(f, "  M = %.0f B is outside %s's range d <= M <= N d (in bytes d e = %.0f to N d e = %.0f, N = min(N_q, N_k)\n" \
                   "  = %" PRId64 "): the Theta expression is no lower bound there; every algorithm moves the\n  compulsory bytes, %s once, " \
                   "%.0f B (%s): counted / compulsory = %.3g\n",                                                     \
                M, thm, (double)s->d * e, (double)Nmin * (double)s->d * e, Nmin,                                       \
                p == FA_PASS_FWD ? "Q, K, V, O" : p == FA_PASS_BWD ? "Q, K, V, O, dO, dQ, dK, dV" : "each pass's tensors", \
                comp, fa_fmt_bytes(comp, bc, sizeof bc), tot / comp)
    if (a == FA_ALGO_STANDARD) {
        fprintf(f, "  Theta bound (%s, constant 1): B*H*(N_q*d + N_q*N_k)*e%s = %.0f B (%s)\n", thm,
                p == FA_PASS_FWDBWD ? ", once per pass" : "", r->bound_bytes, fa_fmt_bytes(r->bound_bytes, b1, sizeof b1));
        RANGE_NOTE();
        fprintf(f, "  counted / Theta = %.3g: the N_q*N_k terms (%s written and read) carry the constant; they do\n"
                   "  not depend on M, so no SRAM size makes standard attention cheaper than Theta(N^2).\n", tot / r->bound_bytes,
                p == FA_PASS_FWD ? "S, P" : p == FA_PASS_BWD ? "P, dP, dS" : "S, P; P, dP, dS");
    } else {
        char bh[32] = ""; /* the B*H factor written out, so that the product is the printed total */
        if (s->batch * s->heads > 1) snprintf(bh, sizeof bh, "%" PRId64 "*", s->batch * s->heads);
        fprintf(f, "  Theta bound (%s, constant 1): B*H*N_q*N_k*d^2*e^2/M%s = %s%" PRId64 "*%" PRId64 "*%" PRId64 "^2*%g^2/%.0f = %.1f B (%s)\n",
                thm, p == FA_PASS_FWDBWD ? ", once per pass" : "", bh, s->seqlen_q, s->seqlen_k, s->d, e, M,
                r->bound_bytes, fa_fmt_bytes(r->bound_bytes, b1, sizeof b1));
        RANGE_NOTE();
        /* the tile of the outer loop's re-reads: flash2's forward re-reads K, V once per row block
         * (B_r); flash1, and every backward, re-read the row blocks' tensors once per key block (B_c) */
        const fa_blocks bb = r->blocks_bwd.block_r ? r->blocks_bwd : bk; /* the backward's tiles */
        const int both = p == FA_PASS_FWDBWD && (a == FA_ALGO_FLASH2 || bb.block_c != bk.block_c);
        const char *bn = both ? "B" : a == FA_ALGO_FLASH2 && p == FA_PASS_FWD ? "B_r" : "B_c";
        char bdesc[96];
        if (both)
            snprintf(bdesc, sizeof bdesc, "B = %s = %" PRId64 " in the forward, B = B_c = %" PRId64 " in the backward",
                     a == FA_ALGO_FLASH2 ? "B_r" : "B_c", a == FA_ALGO_FLASH2 ? bk.block_r : bk.block_c, bb.block_c);
        else
            snprintf(bdesc, sizeof bdesc, "B = %s = %" PRId64, bn,
                     a == FA_ALGO_FLASH2 && p == FA_PASS_FWD ? bk.block_r : p == FA_PASS_BWD ? bb.block_c : bk.block_c);
        /* the block sizes the proofs use: FlashAttention's Algorithm 1 line 1 (forward, Theorem 2)
         * and Algorithm 4 line 2 (backward, Theorem 5), B_c = ceil(M/4d) */
        fprintf(f, "  where it comes from: the re-read term moves the other operand once per tile of the loop, about\n"
                   "  N_q*N_k*(d + d_v)*e / B bytes with %s; the paper's proof lets B grow like\n"
                   "  M/(4*d*e) (FlashAttention %s), which turns it into Theta(N^2 d^2 e^2 / M).  ",
                bdesc, p == FA_PASS_FWD ? "Alg. 1 line 1" : p == FA_PASS_BWD ? "Alg. 4 line 2" : "Alg. 1 line 1, Alg. 4 line 2");
        const double kv = tot / r->bound_bytes;
        char k[32]; /* as io's total/Θ column: no exponent below 10^8 */
        snprintf(k, sizeof k, kv < 1000 ? "%.3g" : kv < 1e8 ? "%.0f" : "%.3g", kv);
        const char *hidden = in_range ? "is the hidden constant" : "is no constant of the algorithm (outside the range)";
        /* how B was chosen, so what the constant means (issue 18: given tiles are not "limited") */
        switch (rule) {
        case FA_TILES_EXPLICIT:
            fprintf(f, "Here the tiles were given\n"
                       "  (--block-r/--block-c), not chosen to fill M: they need %" PRIu64 " of M = %" PRIu64 " B, so\n"
                       "  counted / Theta = %s %s (a larger %s that fits M lowers it).\n",
                    r->sram_need, r->sram_bytes, k, in_range ? "is the constant of these tiles" : "is no constant (outside the range)", bn);
            break;
        case FA_TILES_PAPER:
            fprintf(f, "Here the tiles follow that line\n"
                       "  (--blocks paper: B_c = ceil(M/(4*d*e)), B_r = min(B_c, d), each at most N), so counted / Theta\n"
                       "  = %s %s.\n", k, hidden);
            break;
        case FA_TILES_PROFILE:
            if (tiles_from)
                fprintf(f, "Here the tiles are the kernel\n"
                           "  profile's (its tile table: the tiles %s runs,\n"
                           "  not sized to M), so counted / Theta = %s %s.\n", tiles_from, k, hidden);
            else
                fprintf(f, "Here the tiles are the kernel\n"
                           "  profile's (its tile table: the tiles the real kernel runs, not sized to M), so counted / Theta\n"
                           "  = %s %s.\n", k, hidden);
            break;
        default: {
            /* the largest tiles that fit M: which of the need's terms takes most of it at these
             * tiles, the fp32 score tiles (B_r*B_c) or the B*d buffers (at d = 64 the
             * B*d terms outweigh 4 B^2 while B < 2(2de + d_v e + 4 d_v + 8) / 4, about 162) */
            const uint64_t nf = p == FA_PASS_BWD ? 0 : fa_sram_need(a, s, bk);
            const uint64_t nb = p == FA_PASS_FWD ? 0 : fa_sram_need_bwd(a, s, bb);
            const int bw = nb > nf; /* the backward's buffers are the peak */
            const fa_blocks t = bw ? bb : bk;
            const uint64_t need = bw ? nb : nf, sq = (bw ? 8u : 4u) * (uint64_t)t.block_r * (uint64_t)t.block_c;
            const uint64_t rest = need > sq ? need - sq : 0;
            fprintf(f, "Here B is limited by\n"
                       "  the SRAM budget: at these tiles the %sneed, %" PRIu64 " B of M = %" PRIu64 " B, is %s = %" PRIu64
                       " B\n  and %" PRIu64 " B of the B*d buffers and row vectors (%s): %s the larger part;\n"
                       "  counted / Theta = %s %s.\n",
                    p == FA_PASS_FWDBWD ? (bw ? "backward's " : "forward's ") : "", need, r->sram_bytes,
                    bw ? "the fp32 S/P and dP/dS tiles' 8*B_r*B_c" : "the fp32 S tile's 4*B_r*B_c", sq, rest,
                    bw ? "K_j, V_j, Q_i, dO_i, dK_j, dV_j, dQ_i, ..." : "Q_i, K_j, V_j, O_i, m_i, l_i",
                    sq > rest ? (bw ? "the score tiles are" : "the S tile is") : "the B*d terms are", k, hidden);
        }
        }
    }
#undef RANGE_NOTE
}
