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
    "options (those of fasim io but --format, --breakdown, --trace, --l2, the masks of files, and\n"
    "inference):\n";
static const char *const explain_tail =
    "--block-mask, --col-mask, --doc-mask and --mask are not taken: explain derives the unmasked,\n"
    "the causal and the windowed (--window, or --model with a sliding window) counts (see fasim io\n"
    "--breakdown for the others).\n"
    "Derivations: docs/io-model.md (forward), docs/io-model-backward.md (backward).\n";

/* The time model's derivation for the algorithm's kernel profile (--profile, else the
 * algorithm's own) with the profile's tiles: every number of docs/time-model.md filled in. */
/* Returns 0, or EXIT_USAGE when the profile asked for by name (--profile) cannot run the
 * configuration (as fasim io refuses it); the algorithm's own kernel says why in a line instead. */
static int explain_time(FILE *f, const cli_opts *o, fa_algo a, const fa_blocks *given, uint64_t kernel_bytes)
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
    if (o->shape.dropout_p > 0 && strcmp(p->key, "math")) {
        char who[64];
        snprintf(who, sizeof who, "%s (%s)", fa_algo_name(a), p->key);
        io_dropout_note(f, "   ", &o->shape, who);
    }
    for (int k = 0; k < 2; k++) {
        if ((o->pass == FA_PASS_FWD && k) || (o->pass == FA_PASS_BWD && !k)) continue;
        const fa_perf_kernel *d = &r.k[k];
        const fa_occupancy *oc = &r.occ[k];
        if (p->algo == FA_ALGO_STANDARD) { /* library GEMMs and memory-bound kernels in turn */
            /* the launches the model charges: one a kernel (the backward's five kernels are two
             * lines below, its GEMMs and its memory-bound kernels) */
            const int nl = d->launches;
            fprintf(f, "   %s: %d kernels in turn, each the largest of its GEMM FLOPs / rate, its DRAM bytes / %sB/s "
                       "and its exponentials / %s exp/s, plus a %s launch%s (docs/time-model.md, \"Standard attention\"):\n",
                    k ? "backward" : "forward", nl, fa_fmt_si(o->hw.dram_bandwidth, b[0], 32),
                    fa_fmt_si(o->hw.exp_per_s, b[1], 32), fa_fmt_time(o->hw.launch_s, b[2], 32),
                    nl != r.nsteps[k] ? "; below in groups, their terms summed" : "");
            double kbytes = 0, kt = 0; /* the kernels' bytes (the DRAM estimate, DRAM est) and times */
            for (int i = 0; i < r.nsteps[k]; i++) {
                const fa_std_step *x = &r.steps[k][i];
                kbytes += x->bytes, kt += x->time;
                fprintf(f, "     %-42s", x->what);
                if (x->flops > 0) fprintf(f, " %sFLOP at %sFLOP/s;", fa_fmt_si(x->flops, b[0], 32), fa_fmt_si(x->rate, b[1], 32));
                fprintf(f, " %s", fa_fmt_bytes(x->bytes, b[2], 32));
                if (x->bw_src) fprintf(f, " at %sB/s (PyTorch's kernel: %s)", fa_fmt_si(x->bw, b[5], 32), x->bw_src);
                if (x->exps > 0) fprintf(f, "; %s exp", fa_fmt_si(x->exps, b[3], 32));
                fprintf(f, " -> %s\n", fa_fmt_time(x->time, b[4], 32));
            }
            fprintf(f, "     the %d kernels' bytes: %.0f B (%s), the time model's DRAM estimate (fasim io's DRAM est)\n",
                    nl, kbytes, fa_fmt_bytes(kbytes, b[0], 32));
            fprintf(f, "     launches %d x %s = %s; time = the kernels' %s + the launches = %s\n", nl,
                    fa_fmt_time(o->hw.launch_s, b[0], 32), fa_fmt_time(d->launch, b[1], 32), fa_fmt_time(kt, b[2], 32),
                    fa_fmt_time(d->time, b[3], 32));
            continue;
        }
        fprintf(f, "   %s kernel: tiles %" PRId64 " x %" PRId64 ", %d warps; shared memory %s, %d registers a thread: "
                   "%d block%s per SM (limit: %s), %.0f share%s an SM here%s\n",
                k ? "backward" : "forward", oc->blocks.block_r, oc->blocks.block_c, oc->warps,
                fa_fmt_bytes((double)oc->smem_bytes, b[0], 32), oc->regs_per_thread, oc->occupancy,
                oc->occupancy == 1 ? "" : "s", oc->limit ? oc->limit : "-", d->blocks_per_sm,
                d->blocks_per_sm == 1 ? "s" : "", !k && r.splits > 1 ? " (split-KV)" : "");
        /* an fp32 SIMT kernel's GEMMs run on the FMA units: its "tensor" term is the fp32 pipe's */
        const int simt = p->mma == FA_MMA_SIMT;
        fprintf(f, "     a tile: %s %sFLOP / (%sFLOP/s / %d SMs) = %s; smem %s = %s; exp %s = %s; fp32 %s ops = %s"
                   " (the non-tensor pipes at %.3f x the %.0f MHz their rates hold at = %.0f MHz)\n",
                simt ? "GEMMs on the FMA units (fp32 pipe; busy under fp32)" : "tensor", fa_fmt_si(d->mm, b[0], 32), fa_fmt_si(d->tensor_rate, b[1], 32), o->hw.sms, fa_fmt_time(d->t_tensor, b[2], 32),
                fa_fmt_bytes(d->smem, b[3], 32), fa_fmt_time(d->t_smem, b[4], 32), fa_fmt_si(d->exps, b[5], 32),
                fa_fmt_time(d->t_exp, b[6], 32), fa_fmt_si(d->alu, b[7], 32), fa_fmt_time(d->t_fp32, b[8], 32), d->clock_scale,
                o->hw.clock_hz / 1e6, d->clock_scale * o->hw.clock_hz / 1e6);
        if (d->load_clock_hz > 0) /* wgmma_clock_by_load (the hardware profile): the clock at this tensor load */
            fprintf(f, "     the clock at this load: the tensor pipe is busy %.1f %% of the time at the full-load clock %.0f MHz; "
                       "the GPU holds %.0f MHz at that load (wgmma_clock_by_load, docs/time-model.md section 1), so every "
                       "SM pipe above runs at %.0f MHz\n",
                    100 * d->load_duty, o->hw.wgmma_clock_hz / 1e6, d->load_clock_hz / 1e6, d->load_clock_hz / 1e6);
        if (d->inst > 0) /* issue slots (docs/time-model.md section 4): the softmax phase's floor */
            fprintf(f, "     issue slots: %.0f warp instructions a tile (the profile's count per score element x B_r x B_c; "
                       "Nsight Compute, analysis/measured/h200/s9_issue.csv, s10_issue.csv) / (%.0f a clock x %.0f MHz) = %s; exp + fp32 = %s%s\n",
                    d->inst, o->hw.issue_per_sm_clk, (d->load_clock_hz > 0 ? d->load_clock_hz : d->clock_scale * o->hw.clock_hz) / 1e6,
                    fa_fmt_time(d->t_issue, b[1], 32), fa_fmt_time(d->t_exp + d->t_fp32, b[2], 32),
                    d->t_issue > d->t_exp + d->t_fp32 ? ": S is the issue time" : ": S is exp + fp32");
        /* the overlap law's divisors, named (docs/time-model.md section 5) */
        const fa_overlap ovk = k ? p->overlap_bwd : p->overlap;
        char wph[224];
        if (ovk == FA_OVERLAP_NONE)
            snprintf(wph, sizeof wph, "w_phase = 1 (overlap policy none: nothing hides the shorter phase)");
        else if (ovk == FA_OVERLAP_WARPS && oc->warps < 8)
            snprintf(wph, sizeof wph, "w_phase = max(1, blocks per SM x warps / 8) = max(1, %.0f x %d / 8) = %.3g (policy warps: "
                     "other resident blocks fill the gaps; a block of one warp a scheduler counts warps / 8)",
                     d->blocks_per_sm, oc->warps, d->w_phase);
        else if (ovk == FA_OVERLAP_WARPS)
            snprintf(wph, sizeof wph, "w_phase = blocks per SM = %.0f (policy warps: other resident blocks fill the gaps)",
                     d->blocks_per_sm);
        else
            snprintf(wph, sizeof wph, "w_phase = consumer warpgroups x blocks per SM = %.0f x %.0f = %.3g (policy %s)",
                     d->blocks_per_sm > 0 ? d->w_phase / d->blocks_per_sm : 0, d->blocks_per_sm, d->w_phase,
                     ovk == FA_OVERLAP_PINGPONG ? "ping-pong" : "pipelined");
        char glaw[320]; /* G's law: the ldsm_mma microbenchmark's, or max + min / w_gemm (docs/time-model.md section 5) */
        if (d->ldsm_law)
            snprintf(glaw, sizeof glaw, "max + c x min of (tensor, smem) = %s, c = %.3g at w_gemm = blocks per SM x warps / 4 = "
                     "%.0f x %d / 4 = %.3g warps on each scheduler (ldsm_mma_overlap: ubench_pipes' ldmatrix -> mma.sync "
                     "stream, next fragment prefetched)",
                     fa_fmt_time(d->G, b[1], 32), d->c_gemm, d->blocks_per_sm, oc->warps, d->w_gemm);
        else
            snprintf(glaw, sizeof glaw, "max + min / w_gemm of (%s, smem) = %s, w_gemm = blocks per SM x warps / 4 = %.0f x %d / 4 "
                     "= %.3g (the resident warps on each of the SM's 4 schedulers)",
                     simt ? "FMA GEMMs" : "tensor", fa_fmt_time(d->G, b[1], 32), d->blocks_per_sm, oc->warps, d->w_gemm);
        fprintf(f, "     GEMM phase G = %s; softmax S = %s = %s\n", glaw, d->inst > 0 ? "max(exp + fp32, issue)" : "exp + fp32",
                fa_fmt_time(d->S, b[2], 32));
        const int waited = d->t_wait > 0; /* waits and barriers (docs/time-model.md section 5) */
        if (waited)
            fprintf(f, "     waits and barriers W: %d wgmma wait%s x %.3g + %d barrier%s x %.3g SM clocks (the kernel's code; "
                       "wgmma_wait_cycles, barrier_cycles) at %.0f MHz = %s a tile, which the stream's own work does not hide\n",
                    d->waits, d->waits == 1 ? "" : "s", o->hw.wgmma_wait_cycles, d->barriers, d->barriers == 1 ? "" : "s",
                    o->hw.barrier_cycles, d->clock_scale * o->hw.clock_hz / 1e6, fa_fmt_time(d->t_wait, b[5], 32));
        if (p->sync_loads) /* no prefetch: the tile's loads are a third phase */
            fprintf(f, "     loads L = L2 latency + the tile's share of the two-level bytes / (L2 bandwidth / SMs) = %s (not "
                       "prefetched); tile = the longest of L, G, S + the other two / w_phase%s = %s, %s (docs/time-model.md "
                       "section 5)\n", fa_fmt_time(d->t_load, b[4], 32), waited ? " + W / w_phase" : "",
                    fa_fmt_time(d->tile, b[3], 32), wph);
        else
            fprintf(f, "     tile = max(G, S) + min(G, S) / w_phase%s = %s, %s (docs/time-model.md section 5)\n",
                    waited ? " + W / w_phase" : "", fa_fmt_time(d->tile, b[3], 32), wph);
        if (d->S > d->G && d->w_phase > 1) /* the tile's longer phase, which bound names, not a single pipe */
            fprintf(f, "     the softmax phase is the longer one: S = exp %s + fp32 %s (one dependent chain a warpgroup) "
                       "exceeds G, so the tile is S + G / %.3g, whichever single pipe is the busiest\n",
                    fa_fmt_time(d->t_exp, b[1], 32), fa_fmt_time(d->t_fp32, b[2], 32), d->w_phase);
        if (r.ctas[k] > 0) { /* a block's slot time, the waves' unit (docs/time-model.md section 6) */
            const double per = d->tiles / (double)r.ctas[k];
            const int uniform = per == floor(per) && o->shape.causal == FA_CAUSAL_NONE && !o->shape.window && !p->persistent;
            const fa_overlap ov = k ? p->overlap_bwd : p->overlap;
            const char *ph = ov == FA_OVERLAP_PINGPONG ? " + G once (the ping-pong's exposed GEMM phase)"
                             : ov == FA_OVERLAP_PIPELINED ? " + S once (the pipeline's exposed softmax phase)" : "";
            fprintf(f, "     a block's slot: %.0f x (%s%.4g tiles x tile%s) + edges%s", d->blocks_per_sm,
                    uniform ? "" : "its tiles, on average ", per, d->once > 0 ? ph : "",
                    p->persistent ? " (persistent: the epilogue a block, the prologue once a slot)" : "");
            if (uniform)
                fprintf(f, " = %.0f x (%.0f x %s%s%s) + %s = %s; %.0f block%s in turn on the fullest slot (ceil(%.2f waves)): %s",
                        d->blocks_per_sm, per, fa_fmt_time(d->tile, b[1], 32), d->once > 0 ? " + " : "",
                        d->once > 0 ? fa_fmt_time(d->once, b[2], 32) : "",
                        fa_fmt_time(d->edge, b[3], 32), fa_fmt_time(d->blocks_per_sm * (per * d->tile + d->once) + d->edge, b[4], 32),
                        ceil(r.waves[k]), ceil(r.waves[k]) == 1 ? "" : "s", r.waves[k],
                        fa_fmt_time(ceil(r.waves[k]) * (d->blocks_per_sm * (per * d->tile + d->once) + d->edge), b[5], 32));
            else
                fprintf(f, "; the blocks list-scheduled in launch order on the SMs' slots");
            fprintf(f, " (docs/time-model.md section 6)\n");
        }
        fprintf(f, "     %.0f tile%s in %" PRId64 " thread block%s (%.2f waves), block edges %s: waves %s (every slot busy to the "
                   "end: %s); L2 %s, DRAM %s; small kernels %s, launches %s: time = max(waves, L2, DRAM) + small kernels + "
                   "launches = %s\n",
                d->tiles, d->tiles == 1 ? "" : "s", r.ctas[k], r.ctas[k] == 1 ? "" : "s", r.waves[k], fa_fmt_time(d->edge, b[4], 32), fa_fmt_time(d->makespan, b[5], 32),
                fa_fmt_time(d->fluid, b[6], 32), fa_fmt_time(d->t_l2, b[7], 32), fa_fmt_time(d->t_dram, b[8], 32),
                fa_fmt_time(d->extra, b[9], 32), fa_fmt_time(d->launch, b[1], 32), fa_fmt_time(d->time, b[2], 32));
        if (k && d->pre + d->post > 0) { /* the backward's small kernels, each at its rate (section 6) */
            fprintf(f, "     small kernels: pre-pass (O, dO read, D written, dQacc cleared) %s + post-pass (dQacc read, dQ "
                       "written) %s at %sB/s",
                    fa_fmt_time(d->pre, b[0], 32), fa_fmt_time(d->post, b[1], 32), fa_fmt_si(o->hw.dram_bandwidth, b[2], 32));
            if (d->copies > 0)
                fprintf(f, " + %d layout copies of dO and O into (B, N, H, d), %d x (read + write) x B*H*N_q*d_v*e = "
                           "%d x 2 x %" PRId64 "*%" PRId64 "*%" PRId64 "*%" PRId64 "*%d = %.0f B (%s, in the DRAM estimate), "
                           "%s at %sB/s (%s)", p->layout_copies_bwd, p->layout_copies_bwd, p->layout_copies_bwd,
                        o->shape.batch, o->shape.heads, o->shape.seqlen_q, o->shape.d_v, fa_dtype_bytes(o->shape.dtype),
                        d->copies_bytes, fa_fmt_bytes(d->copies_bytes, b[5], 32), fa_fmt_time(d->copies, b[3], 32),
                        fa_fmt_si(o->hw.transpose_copy_bandwidth > 0 ? o->hw.transpose_copy_bandwidth : o->hw.dram_bandwidth, b[4], 32),
                        o->hw.transpose_copy_bandwidth > 0 ? "transpose_copy_bytes_per_s" : "the DRAM rate: no transpose_copy_bytes_per_s");
            else if (p->layout_copies_bwd > 0) /* the framework copies nothing: the two layouts are one */
                fprintf(f, "; layout copies: none (%s: the (B, H, N, d) and (B, N, H, d) layouts coincide)",
                        o->shape.heads == 1 ? "H = 1" : "N_q = 1");
            fprintf(f, "\n");
        }
    }
    if (fa_profile_has_format(p) && o->pass == FA_PASS_FWD) /* the kernel's own formats, counted by the model */
        fprintf(f, "     the kernel's HBM bytes as the time model counted them: %" PRIu64 " B%s\n",
                fa_counts_hbm_bytes(&r.io.counts), !kernel_bytes ? ""
                : kernel_bytes == fa_counts_hbm_bytes(&r.io.counts) ? " (equal to the derivation above)"
                : " (DIFFERENT from the derivation above)");
    if (r.prepass_read_bytes)
        fprintf(f, "     pre-pass %s_prepass (V -> V^T, a kernel of its own): (%" PRIu64 " + %" PRIu64 ") B / %sB/s (the "
                   "DRAM copy rate) + a %s launch = %s, not in the time below\n", p->key, r.prepass_read_bytes,
                r.prepass_write_bytes, fa_fmt_si(o->hw.dram_bandwidth, b[0], 32), fa_fmt_time(o->hw.launch_s, b[1], 32),
                fa_fmt_time(r.prepass_s, b[2], 32));
    /* what sets the time, and the busiest pipe beside it where they differ (docs/time-model.md section 6) */
    const char *sets = r.sets ? r.sets : fa_pipe_name(r.bound);
    const char *what = p->algo == FA_ALGO_STANDARD ? "" /* its kernels in turn, each its largest term */
                       : !strcmp(sets, "softmax") ? " (the tile's softmax phase S, the longer one)"
                       : !strcmp(sets, "issue") ? " (the tile's softmax phase S, set by the issue slots, the longer one)"
                       : !strcmp(sets, "loads") ? " (the tile's loads, not prefetched)"
                       : !strcmp(sets, "L2") || !strcmp(sets, "DRAM") ? " (its bytes / rate exceed the waves)"
                       : p->algo != FA_ALGO_STANDARD ? " (the GEMM phase G, the tile's longer one)" : "";
    char busy[96] = "";
    if (!r.latency && strcmp(sets, fa_pipe_name(r.bound)))
        snprintf(busy, sizeof busy, "; the busiest pipe: %s, %s of the %s", fa_pipe_name(r.bound),
                 fa_fmt_time(r.busy[r.bound], b[1], 32), fa_fmt_time(r.time_s, b[2], 32));
    fprintf(f, "   time %s, %.1f TFLOP/s, bound by %s%s%s%s\n", fa_fmt_time(r.time_s, b[0], 32), r.tflops,
            r.latency == 1 ? "the launches (half the time or more)"
            : r.latency ? "the grid (under one wave: SMs idle, the pipes' averages below the time)"
                        : sets,
            r.latency ? "" : what, busy, r.tail && !r.latency ? " (the last wave's tail adds over 10 %)" : "");
    fa_io_result x = r.io; /* fasim io's notes on its DRAM est against HBM total, the same text */
    fa_perf_to_io(&r, &x);
    io_bytes_notes(f, "   ", &x, o->shape.dtype);
    return 0;
}

/* A kernel profile's own HBM formats (fa_profile o_bytes, scale_rows, v_prepass) beside fasim's
 * algorithm's count: docs/io-model.md, "An FP8 forward kernel", with the numbers filled in. */
static fa_status explain_formats(FILE *f, const fa_profile *p, const fa_shape *s, fa_blocks bk, uint64_t algo_bytes,
                                 uint64_t *kernel_bytes)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), BH = (uint64_t)(s->batch * s->heads);
    const uint64_t Nq = (uint64_t)s->seqlen_q, Nk = (uint64_t)s->seqlen_k, dv = (uint64_t)s->d_v;
    uint64_t extra = 0, ql = 0, kvl = 0;
    fprintf(f, "  the %s kernel's formats (docs/io-model.md, \"An FP8 forward kernel\"), per slice:\n", p->key);
    if (p->o_bytes > 0 && (uint64_t)p->o_bytes != e) {
        const uint64_t o = (uint64_t)p->o_bytes, v = Nq * dv * (o - e);
        char num[64];
        snprintf(num, sizeof num, "%" PRIu64 "*%" PRIu64 "*(%" PRIu64 " - %" PRIu64 ")", Nq, dv, o, e);
        fprintf(f, "    %-7s %-5s %-22s = %-24s = %15" PRIu64 "   (O in %" PRIu64 "-byte elements, beyond e)\n", "O",
                "write", "N_q*d_v*(o - e)", num, v, o);
        extra += v * BH;
    }
    if (p->scale_rows > 0) {
        FA_TRY(fa_formula_flash2_loads(s, bk, &ql, &kvl));
        const uint64_t q = ql / BH, kv = kvl / BH;
        fprintf(f, "    %-7s %-5s %-22s = 4*%-22" PRIu64 " = %15" PRIu64 "\n", "Q_scale", "read", "4*(row blocks loaded)", q, 4 * q);
        fprintf(f, "    %-7s %-5s %-22s = 4*%-22" PRIu64 " = %15" PRIu64 "\n", "K_scale", "read", "4*(K/V tiles loaded)", kv, 4 * kv);
        fprintf(f, "    %-7s %-5s %-22s = 4*%-22" PRIu64 " = %15" PRIu64 "\n", "V_scale", "read", "4*(K/V tiles loaded)", kv, 4 * kv);
        fprintf(f, "            (one int32 exponent per %d rows, read with each tile: the tiles divide %d)\n",
                p->scale_rows, p->scale_rows);
        extra += 4 * (ql + 2 * kvl);
    }
    char b[32];
    fprintf(f, "  the kernel moves %" PRIu64 " + %" PRIu64 " = %" PRIu64 " B (%s)\n", algo_bytes, extra, algo_bytes + extra,
            fa_fmt_bytes((double)(algo_bytes + extra), b, sizeof b));
    *kernel_bytes = algo_bytes + extra;
    if (p->v_prepass) {
        const uint64_t n = (uint64_t)(s->batch * s->kv_heads) * Nk * dv * e;
        fprintf(f, "  pre-pass %s_prepass, a kernel of its own: V read and V^T written once, B*H_kv*N_k*d_v*e = "
                   "%" PRId64 "*%" PRId64 "*%" PRIu64 "*%" PRIu64 "*%" PRIu64 " = %" PRIu64 " B each way; the kernel reads V^T "
                   "(the V rows above) in V's place\n", p->key, s->batch, s->kv_heads, Nk, dv, e, n);
    }
    return FA_OK;
}

/* A placement list "S_ij O_i m_i l_i" as "S_ij, O_i, m_i, l_i" into buf. */
static const char *comma_list(const char *names, char *buf, size_t n)
{
    size_t k = 0;
    for (const char *p = names; *p && k + 3 < n; p++) {
        if (*p == ' ') buf[k++] = ',';
        buf[k++] = *p;
    }
    buf[k] = '\0';
    return buf;
}

/* The prose of the backward's loops, with its paper lines (docs/io-model-backward.md, 4-6). */
static void backward_text(FILE *f, fa_algo a)
{
    if (a == FA_ALGO_STANDARD)
        fprintf(f, "  FlashAttention Alg. 3 (standard attention backward), five kernels in turn: dV = P^T dO (line 1),\n"
                   "  dP = dO V^T (line 2), dS = P o (dP - D) (line 3), dQ = dS K (line 4), dK = dS^T Q (line 5);\n"
                   "  P, dP and dS are N_q x N_k matrices in HBM.\n");
    else if (a == FA_ALGO_FLASH1)
        fprintf(f, "  FlashAttention Alg. 4: dQ = 0 written to HBM (line 5); outer loop over the T_c key blocks (K_j,\n"
                   "  V_j loaded once, line 7; dK_j, dV_j on chip, line 8), inner loop over row blocks loading Q_i,\n"
                   "  O_i, dO_i, dQ_i, l_i, m_i (line 10) and writing dQ_i back on every visit (line 21); dK_j, dV_j\n"
                   "  written once (line 24).\n");
    else
        fprintf(f, "  FlashAttention-2 Alg. 2 as FlashAttention-2's three kernels: D = rowsum(dO o O) and dQacc = 0\n"
                   "  written first (lines 3-4); outer loop over the T_c key blocks (K_j, V_j loaded once, line 6;\n"
                   "  dK_j, dV_j on chip, line 7), inner loop over row blocks loading Q_i, dO_i, L_i, D_i (line 9)\n"
                   "  and reading and writing dQacc_i (fp32) on every visit (line 15); dK_j, dV_j written once\n"
                   "  (line 18); dQ = dQacc converted last.\n");
}

static int explain_one(FILE *f, const cli_opts *o, fa_algo a)
{
    const fa_shape *s = &o->shape;
    fa_blocks bk;
    fa_status st;
    fa_io_result r;
    char rule[64];
    const fa_run_config c = cli_config(o);
    fa_tile_rule used;
    if ((st = fa_explain_run(&c, a, &bk, &r, rule, sizeof rule, &used))) return cli_fail(st);
    char b1[32], b2[32];
    const uint64_t BH = (uint64_t)(s->batch * s->heads);
    /* the passes' tiles: fwdbwd with a kernel profile runs each pass on its own (as fasim io) */
    const int two = o->pass == FA_PASS_FWDBWD && used == FA_TILES_PROFILE;
    const fa_blocks pbk[2] = {bk, two ? r.blocks_bwd : bk};
    const int splits = o->pass != FA_PASS_BWD && r.splits > 1 ? r.splits : 1;
    const fa_profile *prof = o->profile ? o->profile : fa_profile_default(a);
    fprintf(f, "== %s, %s pass\n", fa_algo_name(a), fa_pass_name(o->pass));
    char regs[2][96] = {"", ""};
    if (r.counts.reg_peak_bytes && used == FA_TILES_PROFILE) /* the profile's placement of each pass */
        for (int k = 0; k < 2; k++) {
            if ((o->pass == FA_PASS_FWD && k) || (o->pass == FA_PASS_BWD && !k)) continue;
            const char *l = k ? prof->regs_bwd : prof->regs_fwd;
            if (l && *l) comma_list(l, regs[k], sizeof regs[k]);
        }
    char where[256] = "";
    if (regs[0][0] && regs[1][0])
        snprintf(where, sizeof where, " in the paper's model (in registers: the forward kernel keeps %s, the backward "
                                      "kernel %s)", regs[0], regs[1]);
    else if (regs[0][0] || regs[1][0])
        snprintf(where, sizeof where, " in the paper's model (the kernel keeps %s in registers)", regs[0][0] ? regs[0] : regs[1]);
    const uint64_t M = o->sram; /* the M asked for (--blocks paper may run on an enlarged one: r.sram_bytes) */
    if (two)
        fprintf(f, "  forward B_r = %" PRId64 ", B_c = %" PRId64 "; backward B_r = %" PRId64 ", B_c = %" PRId64
                   " (%s); SRAM need %" PRIu64 " B of M = %" PRIu64 " B%s\n",
                pbk[0].block_r, pbk[0].block_c, pbk[1].block_r, pbk[1].block_c, rule, r.sram_need, M, where);
    else
        fprintf(f, "  B_r = %" PRId64 ", B_c = %" PRId64 " (%s%s); SRAM need %" PRIu64 " B of M = %" PRIu64 " B%s\n",
                bk.block_r, bk.block_c, rule, splits > 1 ? ", its split-KV kernel's" : "", r.sram_need, M, where);
    char tiles_from[160] = ""; /* whose tiles, for the bound's text (fa_explain_bound_text) */
    if (used == FA_TILES_PROFILE) { /* a tile row from another commit of the kernel (fasim io's note) */
        char who[64];
        snprintf(who, sizeof who, "%s (%s)", fa_algo_name(a), prof->key);
        const int dated = io_tile_row_notes(f, "  ", who, prof, o->pass, o->hw.arch, s, pbk[0], pbk[1]);
        if (prof->tiles_from)
            snprintf(tiles_from, sizeof tiles_from, "%s%s", prof->tiles_from,
                     dated ? " (but for the row the note above dates)" : "");
    }
    if (r.sram_need > M) { /* what a need beyond M means (issue 18) */
        const uint64_t over = r.sram_need - M;
        if (used == FA_TILES_PROFILE)
            fprintf(f, "  the need exceeds M by %" PRIu64 " B (%.1f%%): in the paper's model, every buffer in one SRAM of M, "
                       "these tiles do not fit (its --blocks fit would take smaller ones); the kernel runs them because "
                       "it keeps the buffers named above in registers: its shared memory, %" PRIu64 " B, is within M\n",
                    over, 100.0 * (double)over / (double)M, (uint64_t)r.counts.sram_peak_bytes);
        else
            fprintf(f, "  the need exceeds M by %" PRIu64 " B (%.1f%%): these tiles do not fit M%s; counted, as fasim io "
                       "counts them, with the SRAM enlarged to fit, M' = %" PRIu64 " B, which the Theta bound below "
                       "divides by\n", over, 100.0 * (double)over / (double)M,
                    used == FA_TILES_PAPER ? " (--blocks paper sizes B_c = ceil(M/(4*d*e)) for the Q, K, V, O tiles, "
                                             "without the fp32 S tile and the statistics)" : "", r.sram_bytes);
    }
    if (splits > 1) /* fa_split_kv_heuristic, FlashAttention-2's num_splits_heuristic */
        fprintf(f, "  split-KV: B*H*ceil(N_q/64) = %" PRId64 " row blocks of 64 would not fill 0.8 x 2 x %d SMs, so the %s\n"
                   "  profile runs FlashAttention-2's split-KV rule (num_splits_heuristic): S = %d splits, 64 x %" PRId64 " tiles\n",
                s->batch * s->heads * fa_cdiv(s->seqlen_q, 64), o->hw.sms, prof->key, splits, bk.block_c);
    for (int k = 0; k < 1 + two; k++) {
        const int64_t T_r = fa_cdiv(s->seqlen_q, pbk[k].block_r), T_c = fa_cdiv(s->seqlen_k, pbk[k].block_c);
        fprintf(f, "  %sT_r = ceil(N_q/B_r) = ceil(%" PRId64 "/%" PRId64 ") = %" PRId64 ", T_c = ceil(N_k/B_c) = ceil(%" PRId64 "/%" PRId64
                   ") = %" PRId64 ", e = %d B (%s), B*H = %" PRIu64 " slice%s\n",
                two ? (k ? "backward: " : "forward: ") : "", s->seqlen_q, pbk[k].block_r, T_r, s->seqlen_k, pbk[k].block_c,
                T_c, fa_dtype_bytes(s->dtype), fa_dtype_name(s->dtype), BH, BH == 1 ? "" : "s");
    }
    const int64_t T_c = fa_cdiv(s->seqlen_k, bk.block_c);
    uint64_t total = 0;
    if (o->pass == FA_PASS_FWD) {
        fa_fwd_terms x;
        if ((st = fa_explain_forward_split(a, s, bk, splits, &x))) return cli_fail(st);
        fa_explain_forward_text(f, a, s, bk, &x);
        fprintf(f, "  per slice:\n");
        for (int k = 0; k < x.n; k++)
            fprintf(f, "    %-*s %-5s  %-22s = %-26s = %15" PRIu64 "\n", splits > 1 ? 8 : 4, x.t[k].tensor, x.t[k].dir,
                    x.t[k].symbol, x.t[k].numbers, x.t[k].value);
        const uint64_t slice = x.slice;
        total = slice * BH;
        fprintf(f, "  sum per slice = %" PRIu64 " B; times B*H = %" PRIu64 ": %" PRIu64 " B (%s)\n", slice, BH, total,
                fa_fmt_bytes((double)total, b1, sizeof b1));
    } else {
        if (o->pass == FA_PASS_FWDBWD) {
            fa_fwd_terms x; /* the forward's loops, then the backward's */
            if ((st = fa_explain_forward_split(a, s, bk, splits, &x))) return cli_fail(st);
            fa_explain_forward_text(f, a, s, bk, &x);
        }
        backward_text(f, a);
        fprintf(f, "  per tensor, the closed form of %s:\n",
                o->pass == FA_PASS_FWDBWD ? "docs/io-model.md (forward) and docs/io-model-backward.md (sections 4-6), "
                                            "both passes summed"
                                          : "docs/io-model-backward.md (sections 4-6)");
        for (int k = 0; k < FA_PASS_TENSORS; k++) {
            if (!r.formula.read[k] && !r.formula.write[k]) continue;
            fprintf(f, "    %-6s read %15" PRIu64 "  written %15" PRIu64 "\n", fa_pass_tensor_names[k], r.formula.read[k], r.formula.write[k]);
        }
        total = r.formula.read_bytes + r.formula.write_bytes;
        fprintf(f, "  sum: %" PRIu64 " B (%s)\n", total, fa_fmt_bytes((double)total, b1, sizeof b1));
    }
    uint64_t counted = fa_counts_hbm_bytes(&r.counts);
    const fa_profile *kp = o->profile ? o->profile : fa_profile_default(a);
    uint64_t kernel_bytes = 0; /* the kernel's own formats' total (0: no formats derived) */
    const int formats = o->pass == FA_PASS_FWD && a == FA_ALGO_FLASH2 && kp->algo == a && fa_profile_has_format(kp) &&
                        used == FA_TILES_PROFILE;
    if (!formats)
        fprintf(f, "  counted by the memory model: %" PRIu64 " B (%s) -- %s\n", counted, fa_fmt_bytes((double)counted, b2, sizeof b2),
                counted == total ? "equal to the sum" : "DIFFERENT from the sum");
    if (o->given[O_RESCALE_THRESHOLD] && a == FA_ALGO_FLASH2 && o->pass == FA_PASS_FWD && r.counts.rescale_blocks)
        /* FlashAttention-4's conditional rescaling (fa_shape.rescale_threshold, docs/variants.md) */
        fprintf(f, "  rescales of O_i, l_i (threshold %g): %" PRIu64 " of %" PRIu64 " tile steps = %.2f per row block "
                   "(T_r B H = %" PRIu64 " row blocks): the count-only bound, every visited tile (T_c = %" PRId64
                   " a row block without a mask), which increasing scores reach; on N(0, 1) inputs fasim check "
                   "--rescale-threshold counts the data-dependent number\n",
                s->rescale_threshold, r.counts.rescales, r.counts.rescale_steps,
                (double)r.counts.rescales / (double)r.counts.rescale_blocks, r.counts.rescale_blocks, T_c);
    if (formats) { /* the count is the kernel's (its formats included, as fasim io counts it): beside the kernel's sum */
        if ((st = explain_formats(f, kp, s, bk, total, &kernel_bytes))) return cli_fail(st);
        total = kernel_bytes;
        fprintf(f, "  counted by the memory model: %" PRIu64 " B (%s) -- %s\n", counted, fa_fmt_bytes((double)counted, b2, sizeof b2),
                counted == total ? "equal to the kernel's sum" : "DIFFERENT from the kernel's sum");
    }
    fa_explain_bound_text(f, o->pass, a, s, &r, bk, used, tiles_from[0] ? tiles_from : NULL);
    int rt = explain_time(f, o, a, o->blocks == BLOCKS_EXPLICIT ? &bk : NULL, kernel_bytes);
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
    if (rc || (rc = cli_resolve(&o))) return rc;
    /* no tiles given: the algorithm's kernel profile's tiles, as fasim io (fa_explain_run); the
     * paper's tiles must fit M, the fallback where a profile cannot run */
    fa_run_config c = cli_config(&o);
    if (c.rule == FA_TILES_PROFILE) c.rule = FA_TILES_FIT;
    fa_blocks bk;
    uint64_t over;
    fa_status st = fa_run_tiles(&c, &bk, &over);
    if (st) return cli_fail(st);
    /* everything is computed before anything is printed: a failure leaves stdout empty */
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (!mf) return cli_fail(FA_ENOMEM);
    fprintf(mf, "%s | ", o.pass == FA_PASS_FWD ? "forward pass" : o.pass == FA_PASS_BWD ? "backward pass" : "forward + backward");
    cli_describe(mf, &o, &o.shape);
    if (o.model_note[0]) fprintf(mf, "note: --model %s: %s\n", o.model_path, o.model_note);
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
