/* cmd_infer.c -- the inference side of `fasim io`, `check`, `sweep` and `report`: KV-cache
 * decoding (--decode --kv-len --splits --gqa --page-size) and variable-length batches
 * (--cu-seqlens, --cu-seqlens-k).  Kernels: cpu_ref/fa_infer.h; counts and the wave time model:
 * docs/inference.md. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fa_inference.h"

/* ---- the variants of one configuration (fa_infer_variants) ---- */

/* The request of the options: their tiles (--blocks paper refused), splits, pages, GQA modes. */
static fa_status request_of(const cli_opts *o, fa_infer_req *q, fa_blocks *bk)
{
    if (o->blocks == BLOCKS_PAPER)
        FA_FAIL(FA_EINVAL, "--blocks paper is Algorithm 1's rule: use --blocks fit or --block-r/--block-c "
                           "with --decode and --cu-seqlens");
    bk->block_r = o->block_r;
    bk->block_c = o->block_c;
    *q = (fa_infer_req){.vl = o->varlen ? &o->vl : NULL, .decode = o->decode, .gqa = o->gqa, .splits = o->splits,
                        .splits_auto = o->splits_auto, .page_size = o->paged ? o->page_size : 0,
                        .blocks = o->blocks == BLOCKS_EXPLICIT ? bk : NULL, .M = o->sram, .hw = &o->hw};
    return FA_OK;
}

/* Runs every variant the options ask for.  Returns an fa_status. */
static fa_status run_variants(const cli_opts *o, fa_infer_variant *v, int *n)
{
    fa_infer_req q;
    fa_blocks bk;
    *n = 0;
    FA_TRY(request_of(o, &q, &bk));
    return fa_infer_variants(&o->shape, &q, v, n);
}

/* The varlen batch of the options (NULL: decoding), as the records take it. */
static const fa_varlen *vl_of(const cli_opts *o) { return o->varlen ? &o->vl : NULL; }

static void describe(FILE *f, const cli_opts *o)
{
    const fa_shape *s = &o->shape;
    char mb[32];
    const char *mask = s->causal == FA_CAUSAL_NONE ? "no mask" : s->causal == FA_CAUSAL_BOTTOM_RIGHT ? "causal (bottom-right)" : "causal (top-left)";
    if (o->varlen)
        fprintf(f, "varlen batch: %" PRId64 " sequences, %" PRId64 " query rows, %" PRId64 " keys in all",
                o->vl.nseq, s->seqlen_q, s->seqlen_k);
    else
        fprintf(f, "decoding: B=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64 "%s", s->batch, s->seqlen_q,
                s->seqlen_k, o->paged ? "" : " (contiguous KV cache)");
    if (o->paged) fprintf(f, " (paged, P = %" PRId64 " tokens)", o->page_size);
    fprintf(f, " | H=%" PRId64 " H_kv=%" PRId64 " d=%" PRId64 " d_v=%" PRId64 " %s, %s | %s, M = %" PRIu64 " B (%s), %d SMs\n",
            s->heads, s->kv_heads, s->d, s->d_v, fa_dtype_name(s->dtype), mask, o->hw.name, o->sram,
            fa_fmt_bytes((double)o->sram, mb, sizeof mb), o->hw.sms);
}

/* `fasim io --cu-seqlens ... --pass bwd|fwdbwd`: the varlen backward (fa_varlen_backward) beside
 * its closed form, and the forward (split-free, as the backward needs O and LSE) when fwdbwd. */
static int varlen_bwd_io(const cli_opts *o)
{
    if (o->splits > 1 || o->splits_auto)
        return cli_usage("split-KV is a forward (inference) scheme: drop --splits with --pass bwd");
    if (o->blocks == BLOCKS_PAPER)
        return cli_usage("--blocks paper is Algorithm 1's rule: use --blocks fit or --block-r/--block-c");
    const fa_blocks given = {o->block_r, o->block_c};
    fa_varlen_bwd_io_result res;
    fa_status st = fa_varlen_bwd_io(o->pass, &o->shape, &o->vl, o->blocks == BLOCKS_EXPLICIT ? &given : NULL, o->sram,
                                    &o->hw, &res);
    if (st) return cli_fail(st);
    if (o->format == FMT_JSON) {
        json_t *arr = json_array();
        json_array_append_new(arr, fa_varlen_bwd_json(o->pass, o->vl.nseq, &res));
        cli_dump_json(arr, stdout);
        json_decref(arr);
        return 0;
    }
    if (o->format == FMT_CSV) {
        fputs(fa_varlen_bwd_csv_header, stdout);
        fa_varlen_bwd_csv_row(stdout, o->pass, o->vl.nseq, &res);
        return 0;
    }
    const fa_blocks bk = res.blocks;
    const uint64_t rd = res.read_bytes, wr = res.write_bytes;
    char b[4][32];
    describe(stdout, o);
    printf("varlen FlashAttention-2 %s, %" PRId64 " sequences, B_r = %" PRId64 ", B_c = %" PRId64 ": HBM read %s, written %s, "
           "total %s; backward = closed form: %s; SRAM peak %s\n",
           o->pass == FA_PASS_BWD ? "backward" : "forward + backward", o->vl.nseq, bk.block_r, bk.block_c,
           fa_fmt_bytes((double)rd, b[0], 32), fa_fmt_bytes((double)wr, b[1], 32), fa_fmt_bytes((double)(rd + wr), b[2], 32),
           res.formula_match ? "yes" : "NO", fa_fmt_bytes((double)res.bwd.sram_peak_bytes, b[3], 32));
    return 0;
}

int infer_io(const cli_opts *o)
{
    if (o->varlen && o->pass != FA_PASS_FWD) return varlen_bwd_io(o);
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n = 0;
    fa_status st = run_variants(o, v, &n);
    if (st) return cli_fail(st);
    /* --gqa both (the default) at H = H_kv: a group of one query head, so the packed kernel is the
     * per-head one, row for row; its rows are left out (--gqa packed still prints them) */
    int one_group = o->gqa == 0 && o->shape.heads == o->shape.kv_heads;
    for (int i = 0; i < n && one_group; i++) { /* left out only when every packed row equals its per-head one */
        if (!v[i].opt.pack_gqa) continue;
        int same = 0;
        for (int j = 0; j < n && !same; j++)
            same = !v[j].opt.pack_gqa && v[j].opt.splits == v[i].opt.splits &&
                   v[j].r.blocks.block_r == v[i].r.blocks.block_r && v[j].r.blocks.block_c == v[i].r.blocks.block_c &&
                   v[j].r.counts.hbm_read_bytes == v[i].r.counts.hbm_read_bytes &&
                   v[j].r.counts.hbm_write_bytes == v[i].r.counts.hbm_write_bytes && v[j].r.time_s == v[i].r.time_s;
        one_group = same;
    }
    if (one_group) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (!v[i].opt.pack_gqa) v[m++] = v[i];
        n = m;
    }
    if (o->format == FMT_CSV) {
        fa_infer_csv_header(stdout, NULL, 0);
        for (int i = 0; i < n; i++) fa_infer_csv_row(stdout, &o->shape, vl_of(o), o->hw.key, &v[i], NULL, 0);
        return 0;
    }
    if (o->format == FMT_JSON) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++) json_array_append_new(arr, fa_infer_json(&o->shape, vl_of(o), o->hw.key, &v[i], NULL, 0));
        cli_dump_json(arr, stdout);
        json_decref(arr);
        return 0;
    }
    describe(stdout, o);
    printf("%-13s %5s %5s %5s %9s %11s %11s %11s %8s %11s %11s %8s %10s %9s %11s %11s\n", "kernel", "S",
           "B_r", "B_c", "blocks", "HBM read", "HBM write", "HBM total", "=formula", "partials", "block tbl",
           "FLOP/B", "SRAM peak", "waves", "time(wave)", "roofline");
    for (int i = 0; i < n; i++) {
        const fa_infer_result *r = &v[i].r;
        char b[8][32], sb[16];
        snprintf(sb, sizeof sb, "%" PRId64 "%s", r->opt.splits, v[i].auto_split ? "*" : "");
        double waves = ceil((double)r->formula.programs_main / (o->hw.sms > 0 ? o->hw.sms : 1));
        printf("%-13s %5s %5" PRId64 " %5" PRId64 " %9" PRIu64 " %11s %11s %11s %8s %11s %11s %8.1f %10s %9.0f %11s %11s\n",
               v[i].name, sb, r->blocks.block_r, r->blocks.block_c, r->formula.programs_main,
               fa_fmt_bytes((double)r->counts.hbm_read_bytes, b[0], 32), fa_fmt_bytes((double)r->counts.hbm_write_bytes, b[1], 32),
               fa_fmt_bytes((double)fa_counts_hbm_bytes(&r->counts), b[2], 32), fa_infer_formula_match(r) ? "yes" : "NO",
               fa_fmt_bytes((double)r->formula.partial_bytes, b[3], 32),
               fa_fmt_bytes((double)fa_counts_read_of(&r->counts, "block_table"), b[4], 32), r->intensity,
               fa_fmt_bytes((double)r->counts.sram_peak_bytes, b[5], 32), waves, fa_fmt_time(r->time_s, b[6], 32),
               fa_fmt_time(r->time_roofline_s, b[7], 32));
    }
    for (int i = 0; i + 1 < n; i++)
        if (v[i].opt.pack_gqa == v[i + 1].opt.pack_gqa && v[i + 1].opt.splits > 1) {
            char t1[32], t2[32];
            printf("%s: split-KV S = %" PRId64 "%s: %" PRIu64 " -> %" PRIu64 " thread blocks on %d SMs, %s -> %s (%.2fx), "
                   "partials add %.2f%% bytes\n", v[i].name, v[i + 1].opt.splits, v[i + 1].auto_split ? " (auto)" : "",
                   v[i].r.formula.programs_main, v[i + 1].r.formula.programs_main, o->hw.sms,
                   fa_fmt_time(v[i].r.time_s, t1, 32), fa_fmt_time(v[i + 1].r.time_s, t2, 32),
                   v[i].r.time_s / v[i + 1].r.time_s,
                   100.0 * (double)v[i + 1].r.formula.partial_bytes / (double)fa_counts_hbm_bytes(&v[i].r.counts));
        }
    if (o->varlen && n > 0) { /* what padding every sequence to the longest would move */
        fa_shape p;
        fa_infer_result pr;
        if (fa_varlen_padded(&o->shape, &o->vl, v[0].r.blocks, o->sram, &o->hw, &p, &pr) == FA_OK) {
            char t1[32];
            /* "packed" is GQA packing here (the varlen-packed row); the sequences end to end are "concatenated" */
            printf("padded to %" PRId64 " x (N_q = %" PRId64 ", N_k = %" PRId64 "), FlashAttention-2 would move %s (%.2fx the "
                   "unpadded, concatenated batch: the %s row)\n",
                   o->vl.nseq, p.seqlen_q, p.seqlen_k, fa_fmt_bytes((double)fa_counts_hbm_bytes(&pr.counts), t1, 32),
                   (double)fa_counts_hbm_bytes(&pr.counts) / (double)fa_counts_hbm_bytes(&v[0].r.counts), v[0].name);
        }
    }
    if (one_group)
        printf("(no %s row: H = H_kv = %" PRId64 ", so GQA packing groups one query head per kv head and the packed kernel "
               "is the %s row's, byte for byte; --gqa packed prints it)\n", o->varlen ? "varlen-packed" : "packed",
               o->shape.heads, o->varlen ? "varlen" : "per-head");
    int any_auto = 0;
    for (int i = 0; i < n; i++) any_auto |= v[i].auto_split;
    printf("(S: the key tiles cut into S chunks, split-KV%s; blocks: the main kernel's thread blocks; partials: the fp32 "
           "partial outputs O_part, LSE_part the chunks write and the combine reads back, 8 B H N_q S (d_v + 1) bytes, in "
           "HBM total; block tbl: the paged cache's block table read, int32 page numbers (0 B: a contiguous cache); "
           "waves: ceil(thread blocks / SMs); time(wave) = waves x slowest thread block, plus the combine, each block "
           "with 1/%d of the GPU (of the peaks and the sustained %.3g TB/s, dram_bytes_per_s); roofline: max(FLOPs / peak, HBM total / %.3g TB/s, "
           "the datasheet HBM bandwidth, the whole GPU's whatever the grid); docs/inference.md)\n",
           any_auto ? " (a '*', e.g. 4*: S chosen by the wave model, --splits auto)" : "", o->hw.sms > 0 ? o->hw.sms : 1,
           (o->hw.dram_bandwidth > 0 ? o->hw.dram_bandwidth : o->hw.hbm_bandwidth) / 1e12, o->hw.hbm_bandwidth / 1e12);
    {
        char tl[32];
        /* the wave model next to the time model: what time(wave) leaves out, and which to read */
        printf("(time(wave) is the wave model's, for comparing these kernels with each other (split or not, per head or "
               "packed, paged): it charges no kernel launch -- add the profile's launch_s = %s a kernel, one at S = 1 and "
               "two (main + combine) with a split -- nor the L2; for one kernel's predicted time take the time model, "
               "fasim io --seqlen N_q --seqlen-k N_k --algo flash2 (the fa2 profile's pipes, the L2, the tail and %s a "
               "launch); docs/inference.md, \"Two decoding time models\")\n",
               fa_fmt_time(o->hw.launch_s, tl, 32), tl);
    }
    if (o->shape.d == 576 && o->shape.d_v == 512) { /* reader25 item 8: MLA's latent cache, V inside K's rows */
        const int64_t e = fa_dtype_bytes(o->shape.dtype), g = o->shape.heads / o->shape.kv_heads;
        printf("note: d = 576, d_v = 512 is MLA's latent shape: in its cache (FlashMLA, flash_mla_with_kvcache) V is the "
               "first 512 columns of each 576-wide K row, so a block reads a token's %" PRId64 " B once, where fasim "
               "counts K and V apart, (576 + 512) e = %" PRId64 " B: the K, V bytes above are 1088 / 576 = 1.89x FlashMLA's "
               "for the same row blocks (FlashMLA also runs 64-row blocks: ceil(%" PRId64 " / 64) = %" PRId64
               " a kv head); docs/inference.md\n",
               576 * e, 1088 * e, g * o->shape.seqlen_q, fa_cdiv(g * o->shape.seqlen_q, 64));
    }
    if (o->breakdown) {
        printf("\nper tensor (bytes):\n%-13s %5s %-12s %16s %16s %12s %12s\n", "kernel", "S", "tensor", "read", "written", "loads", "stores");
        for (int i = 0; i < n; i++)
            for (int t = 0; t < v[i].r.counts.n_tensors; t++) {
                const fa_tensor_count *c = &v[i].r.counts.tensor[t];
                printf("%-13s %5" PRId64 " %-12s %16" PRIu64 " %16" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", v[i].name,
                       v[i].r.opt.splits, c->name, c->read_bytes, c->write_bytes, c->loads, c->stores);
            }
    }
    return 0;
}

int infer_sweep_point(const cli_opts *o, FILE *f, json_t *json_arr, const fa_col *cols, int n_cols, int header)
{
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n = 0;
    fa_status st = run_variants(o, v, &n);
    if (st) return cli_fail(st);
    if (header && !json_arr) fa_infer_csv_header(f, cols, n_cols);
    for (int i = 0; i < n; i++)
        if (json_arr) json_array_append_new(json_arr, fa_infer_json(&o->shape, vl_of(o), o->hw.key, &v[i], cols, n_cols));
        else fa_infer_csv_row(f, &o->shape, vl_of(o), o->hw.key, &v[i], cols, n_cols);
    return 0;
}

/* ---- check: the inference kernels in numeric mode against the fp64 reference ---- */

/* `fasim check --cu-seqlens ... --pass bwd|fwdbwd`: the varlen backward against the per-sequence
 * fp64 reference backward (relative to the largest reference gradient, as the forward check). */
static int varlen_bwd_check(cli_opts *o)
{
    const fa_blocks given = {o->block_r, o->block_c};
    fa_varlen_bwd_check_result r;
    fa_status st = fa_varlen_bwd_check(&o->shape, &o->vl, o->blocks == BLOCKS_EXPLICIT ? &given : NULL, o->sram,
                                       o->seed, o->tol, &r);
    if (st) return cli_fail(st);
    if (o->format == FMT_JSON)
        printf("[{\"kernel\": \"varlen_flash2\", \"pass\": \"bwd\", \"dq_rel_err\": %.6e, \"dk_rel_err\": %.6e, "
               "\"dv_rel_err\": %.6e, \"pass_check\": %s}]\n", r.rel[0], r.rel[1], r.rel[2], r.pass ? "true" : "false");
    else
        printf("varlen FlashAttention-2 backward, %" PRId64 " sequences, B_r = %" PRId64 ", B_c = %" PRId64
               ": dQ rel %.3e, dK rel %.3e, dV rel %.3e  %s\n", o->vl.nseq, r.blocks.block_r, r.blocks.block_c,
               r.rel[0], r.rel[1], r.rel[2], r.pass ? "PASS" : "FAIL");
    return r.pass ? 0 : EXIT_RUN;
}

int infer_check(cli_opts *o)
{
    int rc = cli_resolve(o);
    if (rc) return rc;
    if (o->varlen && o->pass != FA_PASS_FWD) return varlen_bwd_check(o);
    const fa_shape *s = &o->shape;
    fa_status st = fa_infer_check_size(s, o->varlen);
    if (st) return cli_fail(st);
    fa_infer_variant v[FA_INFER_MAX_VARIANTS];
    int n = 0;
    fa_infer_req q;
    fa_blocks bk;
    if ((st = request_of(o, &q, &bk)) || (st = fa_infer_variants(s, &q, v, &n))) /* the options' variants */
        return cli_fail(st);
    fa_infer_check_result res;
    st = fa_infer_check_run(s, &q, v, n, o->seed, o->tol, &res);
    if (res.ready && o->format == FMT_CSV)
        fputs(fa_infer_check_csv_header, stdout);
    else if (res.ready && o->format == FMT_TABLE)
        describe(stdout, o);
    json_t *arr = json_array();
    int any_fail = 0;
    for (int i = 0; i < res.n; i++) {
        const fa_infer_opts *op = &v[i].opt;
        const fa_blocks b = v[i].r.blocks;
        const fa_infer_check_row *r = &res.row[i];
        any_fail |= !r->pass;
        if (o->format == FMT_TABLE)
            printf("%-13s S=%-4" PRId64 " P=%-4" PRId64 " B_r=%-4" PRId64 " B_c=%-4" PRId64 "  abs %.3e  rel %.3e  lse %.3e  %s\n",
                   v[i].name, op->splits, op->page_size, b.block_r, b.block_c, r->abs_o, r->rel_o, r->abs_lse,
                   r->pass ? "PASS" : "FAIL");
        else if (o->format == FMT_CSV)
            fa_infer_check_csv_row(stdout, &v[i], r);
        else
            json_array_append_new(arr, fa_infer_check_json(&v[i], r));
    }
    if (!st && o->format == FMT_JSON) {
        cli_dump_json(arr, stdout);
    }
    json_decref(arr);
    if (st) return cli_fail(st);
    if (any_fail) {
        fprintf(stderr, "fasim check: FAILED (tolerance %.1e)\n", o->tol);
        return EXIT_RUN;
    }
    if (o->format == FMT_TABLE) printf("all passed (rel <= %.1e of max |O_ref| and lse <= %.1e x max(1, max |LSE_ref|))\n", o->tol, o->tol);
    return 0;
}

/* ---- report: the decoding table ---- */

int infer_report(FILE *csv, int quiet, const fa_hw *hw, int nh)
{
    const fa_hw *ph = &hw[nh - 1];
    static fa_decode_table t;
    fa_status st = fa_decode_table_run(ph, &t);
    if (st) return cli_fail(st);
    fa_decode_table_csv(csv, &t);
    if (quiet) return 0;
    printf("== decoding: Llama-3-8B attention (H = 32, H_kv = 8, d = 128, bf16), one layer, one new token (N_q = 1) on %s "
           "(%d SMs); time: wave model, docs/inference.md\n", ph->name, ph->sms);
    printf("%5s %7s | %-28s | %-28s | %-34s | %7s %7s\n", "", "", "per head, no split", "GQA-packed, no split",
           "GQA-packed, split-KV (best S)", "split", "packed");
    printf("%5s %7s | %10s %6s %10s | %10s %6s %10s | %4s %10s %7s %10s | %7s %7s\n", "batch", "kv-len", "HBM", "FLOP/B",
           "time", "HBM", "FLOP/B", "time", "S", "HBM", "+part.", "time", "gain", "gain");
    for (int ib = 0; ib < FA_DECODE_NB; ib++)
        for (int ik = 0; ik < FA_DECODE_NKV; ik++) {
            const fa_infer_result *a = &t.r[ib][ik][0], *p = &t.r[ib][ik][1], *x = &t.r[ib][ik][2];
            char b[9][32];
            printf("%5" PRId64 " %7" PRId64 " | %10s %6.2f %10s | %10s %6.2f %10s | %4" PRId64 " %10s %6.2f%% %10s | %6.2fx %6.2fx\n",
                   t.batch[ib], t.kv_len[ik], fa_fmt_bytes((double)fa_counts_hbm_bytes(&a->counts), b[0], 32), a->intensity,
                   fa_fmt_time(a->time_s, b[1], 32), fa_fmt_bytes((double)fa_counts_hbm_bytes(&p->counts), b[2], 32), p->intensity,
                   fa_fmt_time(p->time_s, b[3], 32), t.best_splits[ib][ik], fa_fmt_bytes((double)fa_counts_hbm_bytes(&x->counts), b[4], 32),
                   100.0 * (double)x->formula.partial_bytes / (double)fa_counts_hbm_bytes(&p->counts), fa_fmt_time(x->time_s, b[5], 32),
                   p->time_s / x->time_s, a->time_s / p->time_s);
        }
    double slow1 = 1; /* batch 1: the packed no-split time / the per-head one, at its largest */
    for (int ib = 0; ib < FA_DECODE_NB; ib++)
        for (int ik = 0; ik < FA_DECODE_NKV && t.batch[ib] == 1; ik++)
            if (t.r[ib][ik][1].time_s / t.r[ib][ik][0].time_s > slow1) slow1 = t.r[ib][ik][1].time_s / t.r[ib][ik][0].time_s;
    /* batch 1, 1024 keys: the best split's wave time, and with its launches */
    const fa_infer_result *x1 = &t.r[0][0][2];
    char lb[3][32];
    printf("(S: the number of splits of the KV sequence, the one of the wave model's fastest time (1: no split);\n"
           " +part.: the partial outputs O_part and LSE_part written by the S splits and read back by the combine\n"
           " kernel (decode.csv: partial_bytes), as a share of the packed no-split HBM bytes.  The split's other\n"
           " extra bytes are Q's, read once per split (S - 1 more reads of B x H x d x 2 B: 56 KiB at batch 1, S = 8),\n"
           " so split HBM = packed HBM + partial_bytes + (S - 1) x Q.\n"
           " split gain: packed no split / packed best split; packed gain: per head / packed, both without split.\n"
           " Per head, each of the 4 query heads of a group reads the group's K/V: 4x the bytes, 1/4 the intensity.\n"
           " The split gains rest on the wave model's assumption that a thread block gets 1/%d of the DRAM rate (the\n"
           " sustained %.3g TB/s the time model charges everywhere, dram_bytes_per_s, not the datasheet's %.3g):\n"
           " batch 1's 8 blocks then use 8 of %d SMs' share and S-way splitting multiplies it by S.  A real SM can\n"
           " pull more than that share, so measured gains are smaller.  The times leave out kernel launches:\n"
           " the profile's launch_s is %s a kernel, one at S = 1, two (main + combine) with a split, so\n"
           " batch %" PRId64 "'s %s at %" PRId64 " keys is %s with them.  This table compares the decoding options\n"
           " with each other; for one kernel's predicted time (launches, the L2, the kernel profile's pipes) take\n"
           " the time model's fasim io --seqlen 1 --seqlen-k N --algo flash2 (docs/inference.md, \"Two decoding\n"
           " time models\").\n"
           " At batch 1 per head and packed take nearly the same time in this model: each thread block\n"
           " streams one group's K and V at its 1/%d share either way, and a packed block reads and writes the Q\n"
           " and O rows of 4 query heads instead of 1, so packed is up to %.1f %% slower (packed gain %.2fx); the\n"
           " 4x fewer bytes show at batch 64 (docs/inference.md).)\n\n",
           ph->sms, (ph->dram_bandwidth > 0 ? ph->dram_bandwidth : ph->hbm_bandwidth) / 1e12, ph->hbm_bandwidth / 1e12, ph->sms,
           fa_fmt_time(ph->launch_s, lb[0], 32), t.batch[0], fa_fmt_time(x1->time_s, lb[1], 32), t.kv_len[0],
           fa_fmt_time(x1->time_s + (t.best_splits[0][0] > 1 ? 2 : 1) * ph->launch_s, lb[2], 32),
           ph->sms, 100.0 * (slow1 - 1), 1 / slow1);
    return 0;
}
