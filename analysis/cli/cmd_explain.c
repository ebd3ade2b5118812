/* cmd_explain.c -- `fasim explain`: for one configuration, the derivation of every count with
 * the numbers filled in: T_r, T_c, each term of the closed form per tensor (docs/io-model.md,
 * docs/io-model-backward.md), their sum beside the bytes the memory model counted, and where the
 * Theta bound of Theorem 2 / 5 comes from. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fa_explain.h"

static const char *const explain_head =
    "usage: fasim explain [options]\n"
    "  Prints the derivation of the HBM bytes of each algorithm on one configuration: T_r, T_c,\n"
    "  each term of the closed form per tensor with the numbers filled in, their sum beside the\n"
    "  counted bytes, and the Theta bound with the constant the count carries; then the time\n"
    "  model's derivation for the algorithm's kernel (--profile).\n"
    "options (those of fasim io but --format, --breakdown, --trace, --l2, the masks of files and\n"
    "windows, and inference):\n";
static const char *const explain_tail =
    "--window, --block-mask, --col-mask, --doc-mask and --mask are not taken: explain derives the\n"
    "unmasked and the causal counts (see fasim io --breakdown for the others).\n"
    "Derivations: docs/io-model.md (forward), docs/io-model-backward.md (backward).\n";

/* The forward derivation's prose around the terms (fa_explain_forward). */
static void forward_prose(FILE *f, fa_algo a, const fa_shape *s, fa_blocks bk, const fa_fwd_terms *x)
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
        if (s->causal == FA_CAUSAL_NONE)
            fprintf(f, "  V_rows = query rows over all visits = T_c*N_q = %" PRId64 "*%" PRIu64 " = %" PRIu64 "\n", T_c, Nq, x->vrows);
        else
            fprintf(f, "  causal: key block j is visited by row blocks i_lo(j) .. T_r-1 (fa_q_tiles), so\n"
                       "  V_rows = sum_j (N_q - i_lo(j)*B_r) = %" PRIu64 " (instead of T_c*N_q = %" PRIu64 "),\n"
                       "  and only key blocks some row sees are loaded: %" PRIu64 " of %" PRIu64 " keys\n",
                    x->vrows, (uint64_t)T_c * Nq, x->kcols, Nk);
    } else {
        fprintf(f, "  FlashAttention-2 Alg. 1: outer loop over the T_r row blocks (Q_i loaded once, O_i, m_i, l_i on\n"
                   "  chip), inner loop over key blocks loading K_j, V_j; O_i and LSE_i stored once.\n");
        if (s->causal == FA_CAUSAL_NONE)
            fprintf(f, "  K_rows = keys loaded over all row blocks = T_r*N_k = %" PRId64 "*%" PRIu64 " = %" PRIu64 "\n", T_r, Nk, x->krows);
        else
            fprintf(f, "  causal: row block i visits n_visit(i) leading key blocks (fa_kv_tiles), so\n"
                       "  K_rows = sum_i min(N_k, n_visit(i)*B_c) = %" PRIu64 " (instead of T_r*N_k = %" PRIu64 ");\n"
                       "  Q rows loaded (blocks that see a key) = %" PRIu64 "\n",
                    x->krows, (uint64_t)T_r * Nk, x->qrows);
    }
}

static void bound_text(FILE *f, fa_pass p, fa_algo a, const fa_shape *s, const fa_io_result *r, fa_blocks bk)
{
    char b1[32];
    const double e = fa_dtype_bytes(s->dtype), M = (double)r->sram_bytes;
    const double tot = (double)fa_counts_hbm_bytes(&r->counts);
    const char *thm = p == FA_PASS_FWD ? "Theorem 2" : p == FA_PASS_BWD ? "Theorem 5" : "Theorems 2 + 5";
    if (a == FA_ALGO_STANDARD) {
        fprintf(f, "  Theta bound (%s, constant 1): B*H*(N_q*d + N_q*N_k)*e%s = %.0f B (%s)\n", thm,
                p == FA_PASS_FWDBWD ? ", once per pass" : "", r->bound_bytes, fa_fmt_bytes(r->bound_bytes, b1, sizeof b1));
        fprintf(f, "  counted / Theta = %.3g: the N_q*N_k terms (S, P written and read) carry the constant; they do\n"
                   "  not depend on M, so no SRAM size makes standard attention cheaper than Theta(N^2).\n", tot / r->bound_bytes);
    } else {
        fprintf(f, "  Theta bound (%s, constant 1): B*H*N_q*N_k*d^2*e^2/M%s = %" PRId64 "*%" PRId64 "*%" PRId64 "^2*%g^2/%.0f%s = %.1f B (%s)\n",
                thm, p == FA_PASS_FWDBWD ? ", once per pass" : "", s->seqlen_q, s->seqlen_k, s->d, e, M,
                s->batch * s->heads > 1 ? " (per head)" : "", r->bound_bytes, fa_fmt_bytes(r->bound_bytes, b1, sizeof b1));
        fprintf(f, "  where it comes from: the re-read term moves the other operand once per tile of the loop, about\n"
                   "  N_q*N_k*(d + d_v)*e / B bytes with B = %s = %" PRId64 "; the paper's proof lets B grow like\n"
                   "  M/(4*d*e) (Alg. 1 line 1), which turns it into Theta(N^2 d^2 e^2 / M).  Here B is limited by\n"
                   "  the fp32 S tile (4*B_r*B_c bytes), so counted / Theta = %.3g is the hidden constant.\n",
                a == FA_ALGO_FLASH2 ? "B_r" : "B_c", a == FA_ALGO_FLASH2 ? bk.block_r : bk.block_c, tot / r->bound_bytes);
    }
}

/* The time model's derivation for the algorithm's kernel profile (--profile, else the
 * algorithm's own) with the profile's tiles: every number of docs/time-model.md filled in. */
static int g_profile_tiles; /* no tiles given: take the kernel profile's (cmd_explain) */

/* Returns 0, or EXIT_USAGE when the profile asked for by name (--profile) cannot run the
 * configuration (as fasim io refuses it); the algorithm's own kernel says why in a line instead. */
static int explain_time(FILE *f, const cli_opts *o, fa_algo a, const fa_blocks *given)
{
    const fa_profile *p = o->profile ? o->profile : fa_profile_default(a);
    fa_perf_result r;
    memset(&r, 0, sizeof r);
    if (p->mma == FA_MMA_NONE) {
        fprintf(f, "  time model: --profile paper is the abstract model, it has no kernel to time\n");
        return 0;
    }
    if (p->algo != a) {
        fprintf(f, "  time model: profile %s is a %s kernel, not %s\n", p->key, fa_algo_name(p->algo), fa_algo_name(a));
        return 0;
    }
    fa_status st = fa_perf_predict(p, o->pass, &o->shape, &o->hw, given, &r);
    if (st || !r.has_time) {
        const char *why = st ? fa_last_error() : r.why;
        if (o->profile) {
            fprintf(stderr, "fasim: --profile %s cannot time this configuration: %s\n", p->key, why[0] ? why : fa_strerror(st));
            fa_clear_error();
            return EXIT_USAGE;
        }
        fprintf(f, "  time model: profile %s cannot be timed here: %s\n", p->key, why[0] ? why : fa_strerror(st));
        fa_clear_error();
        return 0;
    }
    char b[10][32];
    fprintf(f, "  time model, profile %s (%s) on %s (docs/time-model.md):\n", p->key, p->name, o->hw.name);
    for (int k = 0; k < 2; k++) {
        if ((o->pass == FA_PASS_FWD && k) || (o->pass == FA_PASS_BWD && !k)) continue;
        const fa_perf_kernel *d = &r.k[k];
        const fa_occupancy *oc = &r.occ[k];
        if (p->algo == FA_ALGO_STANDARD) { /* library GEMMs and memory-bound kernels in turn */
            fprintf(f, "   %s: %d kernels in turn, each the largest of its GEMM FLOPs / rate, its DRAM bytes / %s B/s "
                       "and its exponentials / %s per s, plus a %s launch (docs/time-model.md, \"Standard attention\"):\n",
                    k ? "backward" : "forward", r.nsteps[k], fa_fmt_si(o->hw.dram_bandwidth, b[0], 32),
                    fa_fmt_si(o->hw.exp_per_s, b[1], 32), fa_fmt_time(o->hw.launch_s, b[2], 32));
            for (int i = 0; i < r.nsteps[k]; i++) {
                const fa_std_step *x = &r.steps[k][i];
                fprintf(f, "     %-42s", x->what);
                if (x->flops > 0) fprintf(f, " %s FLOP at %s FLOP/s;", fa_fmt_si(x->flops, b[0], 32), fa_fmt_si(x->rate, b[1], 32));
                fprintf(f, " %s", fa_fmt_bytes(x->bytes, b[2], 32));
                if (x->exps > 0) fprintf(f, "; %s exp", fa_fmt_si(x->exps, b[3], 32));
                fprintf(f, " -> %s\n", fa_fmt_time(x->time, b[4], 32));
            }
            continue;
        }
        fprintf(f, "   %s kernel: tiles %" PRId64 " x %" PRId64 ", %d warps; shared memory %s, %d registers a thread: "
                   "%d block%s per SM (limit: %s), %.0f share%s an SM here%s\n",
                k ? "backward" : "forward", oc->blocks.block_r, oc->blocks.block_c, oc->warps,
                fa_fmt_bytes((double)oc->smem_bytes, b[0], 32), oc->regs_per_thread, oc->occupancy,
                oc->occupancy == 1 ? "" : "s", oc->limit ? oc->limit : "-", d->blocks_per_sm,
                d->blocks_per_sm == 1 ? "s" : "", !k && r.splits > 1 ? " (split-KV)" : "");
        fprintf(f, "     a tile: tensor %s FLOP / (%s FLOP/s / %d SMs) = %s; smem %s B = %s; exp %s = %s; fp32 %s ops = %s"
                   " (the non-tensor pipes at %.3f x their clock)\n",
                fa_fmt_si(d->mm, b[0], 32), fa_fmt_si(d->tensor_rate, b[1], 32), o->hw.sms, fa_fmt_time(d->t_tensor, b[2], 32),
                fa_fmt_si(d->smem, b[3], 32), fa_fmt_time(d->t_smem, b[4], 32), fa_fmt_si(d->exps, b[5], 32),
                fa_fmt_time(d->t_exp, b[6], 32), fa_fmt_si(d->alu, b[7], 32), fa_fmt_time(d->t_fp32, b[8], 32), d->clock_scale);
        fprintf(f, "     GEMM phase G = max + min / %.3g of (tensor, smem) = %s; softmax S = exp + fp32 = %s; "
                   "tile = max(G, S) + min(G, S) / %.3g = %s\n",
                d->w_gemm, fa_fmt_time(d->G, b[1], 32), fa_fmt_time(d->S, b[2], 32), d->w_phase, fa_fmt_time(d->tile, b[3], 32));
        fprintf(f, "     %.0f tiles in %" PRId64 " thread blocks (%.2f waves), block edges %s: waves %s (every slot busy to the "
                   "end: %s); L2 %s, DRAM %s; small kernels %s, launches %s: %s\n",
                d->tiles, r.ctas[k], r.waves[k], fa_fmt_time(d->edge, b[4], 32), fa_fmt_time(d->makespan, b[5], 32),
                fa_fmt_time(d->fluid, b[6], 32), fa_fmt_time(d->t_l2, b[7], 32), fa_fmt_time(d->t_dram, b[8], 32),
                fa_fmt_time(d->extra, b[9], 32), fa_fmt_time(d->launch, b[1], 32), fa_fmt_time(d->time, b[2], 32));
    }
    fprintf(f, "   time %s, %.1f TFLOP/s, bound by %s%s\n", fa_fmt_time(r.time_s, b[0], 32), r.tflops,
            r.latency == 1 ? "the launches (half the time or more)"
            : r.latency ? "the grid (under one wave: SMs idle, the pipes' averages below the time)"
                        : fa_pipe_name(r.bound),
            r.tail && !r.latency ? " (the last wave's tail adds over 10 %)" : "");
    return 0;
}

static int explain_one(FILE *f, const cli_opts *o, fa_algo a)
{
    const fa_shape *s = &o->shape;
    fa_blocks bk;
    uint64_t over = 0;
    fa_status st;
    fa_io_result r;
    const fa_profile *prof = o->profile ? o->profile : fa_profile_default(a);
    const fa_tile_row *row;
    const char *rule = o->blocks == BLOCKS_EXPLICIT ? "--block-r/--block-c" : o->blocks == BLOCKS_PAPER ? "--blocks paper" : "--blocks fit";
    char rule_buf[64];
    if (g_profile_tiles && o->pass != FA_PASS_FWDBWD && prof->tiles && prof->algo == a &&
        fa_profile_tiles(prof, o->pass, o->hw.arch, s, &bk, &row) == FA_OK &&
        fa_io_run_placed(o->pass, a, s, bk, o->sram, &o->hw, prof, row->warps * 32, NULL, &r) == FA_OK) {
        snprintf(rule_buf, sizeof rule_buf, "the %s profile's tile table", prof->key); /* as fasim io */
        rule = rule_buf;
    } else {
        fa_clear_error();
        if ((st = cli_blocks(o, &bk, &over))) return cli_fail(st);
        if ((st = fa_io_run(o->pass, a, s, bk, o->sram + over, &o->hw, NULL, &r))) return cli_fail(st);
    }
    char b1[32], b2[32];
    const uint64_t BH = (uint64_t)(s->batch * s->heads);
    const int64_t T_r = fa_cdiv(s->seqlen_q, bk.block_r), T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    fprintf(f, "== %s, %s pass\n", fa_algo_name(a), fa_pass_name(o->pass));
    fprintf(f, "  B_r = %" PRId64 ", B_c = %" PRId64 " (%s); SRAM need %" PRIu64 " B of M = %" PRIu64 " B%s\n", bk.block_r,
            bk.block_c, rule, r.sram_need, r.sram_bytes,
            r.counts.reg_peak_bytes ? " in the paper's model (the kernel keeps S, O, m, l in registers)" : "");
    fprintf(f, "  T_r = ceil(N_q/B_r) = ceil(%" PRId64 "/%" PRId64 ") = %" PRId64 ", T_c = ceil(N_k/B_c) = ceil(%" PRId64 "/%" PRId64
               ") = %" PRId64 ", e = %d B (%s), B*H = %" PRIu64 " slices\n",
            s->seqlen_q, bk.block_r, T_r, s->seqlen_k, bk.block_c, T_c, fa_dtype_bytes(s->dtype), fa_dtype_name(s->dtype), BH);
    uint64_t total = 0;
    if (o->pass == FA_PASS_FWD) {
        fa_fwd_terms x;
        if ((st = fa_explain_forward(a, s, bk, &x))) return cli_fail(st);
        forward_prose(f, a, s, bk, &x);
        fprintf(f, "  per slice:\n");
        for (int k = 0; k < x.n; k++)
            fprintf(f, "    %-4s %-5s  %-22s = %-26s = %15" PRIu64 "\n", x.t[k].tensor, x.t[k].dir, x.t[k].symbol,
                    x.t[k].numbers, x.t[k].value);
        const uint64_t slice = x.slice;
        total = slice * BH;
        fprintf(f, "  sum per slice = %" PRIu64 " B; times B*H = %" PRIu64 ": %" PRIu64 " B (%s)\n", slice, BH, total,
                fa_fmt_bytes((double)total, b1, sizeof b1));
    } else {
        fprintf(f, "  per tensor, the closed form of docs/io-model-backward.md (sections 4-6):\n");
        for (int k = 0; k < FA_PASS_TENSORS; k++) {
            if (!r.formula.read[k] && !r.formula.write[k]) continue;
            fprintf(f, "    %-6s read %15" PRIu64 "  written %15" PRIu64 "\n", fa_pass_tensor_names[k], r.formula.read[k], r.formula.write[k]);
        }
        total = r.formula.read_bytes + r.formula.write_bytes;
        fprintf(f, "  sum: %" PRIu64 " B (%s)\n", total, fa_fmt_bytes((double)total, b1, sizeof b1));
    }
    uint64_t counted = fa_counts_hbm_bytes(&r.counts);
    fprintf(f, "  counted by the memory model: %" PRIu64 " B (%s) -- %s\n", counted, fa_fmt_bytes((double)counted, b2, sizeof b2),
            counted == total ? "equal to the sum" : "DIFFERENT from the sum");
    bound_text(f, o->pass, a, s, &r, bk);
    int rt = explain_time(f, o, a, o->blocks == BLOCKS_EXPLICIT ? &bk : NULL);
    if (rt) return rt;
    fputc('\n', f);
    if (counted != total)
        fprintf(stderr, "fasim: explain: the derivation (%llu B) and the memory model's count (%llu B) differ\n",
                (unsigned long long)total, (unsigned long long)counted);
    return counted == total ? 0 : EXIT_RUN;
}

int cmd_explain(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "explain", explain_head, explain_tail);
        return 0;
    }
    cli_opts o;
    int rc = cli_parse_cmd(argc, argv, &o, NULL, NULL);
    /* no tiles given: the algorithm's kernel profile's tiles, as fasim io (one pass; fwdbwd and
     * a profile without a row for the shape: --blocks fit) */
    g_profile_tiles = !rc && o.blocks == BLOCKS_PROFILE;
    if (!rc && o.blocks == BLOCKS_PROFILE) o.blocks = BLOCKS_FIT;
    if (rc || (rc = cli_resolve(&o))) return rc;
    fa_blocks bk;
    uint64_t over;
    fa_status st = cli_blocks(&o, &bk, &over);
    if (st) return cli_fail(st);
    /* everything is computed before anything is printed: a failure leaves stdout empty */
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (!mf) return cli_fail(FA_ENOMEM);
    fprintf(mf, "%s | ", o.pass == FA_PASS_FWD ? "forward pass" : o.pass == FA_PASS_BWD ? "backward pass" : "forward + backward");
    cli_describe(mf, &o, &o.shape);
    fputc('\n', mf);
    int worst = 0;
    for (int k = 0; k < o.n_algos && worst != EXIT_USAGE; k++) {
        int r = explain_one(mf, &o, (fa_algo)o.algos[k]);
        if (r > worst || r == EXIT_USAGE) worst = r;
    }
    fclose(mf);
    if (worst != EXIT_USAGE) fwrite(buf, 1, len, stdout);
    free(buf);
    return worst;
}
