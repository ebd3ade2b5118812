/* args.c -- the options resolved (defaults, --model, mask files, the inference options), the
 * configuration handed to analysis/run.c, output files, and small output helpers. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fa_inference.h"


/* The inference options against the others, and their defaults (before cli_resolve's):
 * --decode takes N_k from --kv-len and N_q = 1; --cu-seqlens gives the varlen batch's shape. */
static int resolve_infer(cli_opts *o)
{
    fa_shape *s = &o->shape;
    if (o->n_cu[1] >= 0 && !o->varlen) return cli_usage("--cu-seqlens-k needs --cu-seqlens");
    if (!o->decode && !o->varlen) {
        if (o->kv_len) return cli_usage("--kv-len needs --decode");
        if (o->splits || o->splits_auto) return cli_usage("--splits needs --decode or --cu-seqlens");
        if (o->paged) return cli_usage("--page-size needs --decode");
        if (o->gqa) return cli_usage("--gqa needs --decode or --cu-seqlens");
        return 0;
    }
    if (s->window || s->alibi || s->softcap > 0 || s->dropout_p > 0 || o->block_mask_path ||
        o->col_mask_path || o->n_docs > 0 || o->dense_mask_path)
        return cli_usage("--decode and --cu-seqlens support the causal mask only (not --window, --alibi, --softcap, "
                   "--dropout or mask files)");
    if (o->trace_path) return cli_usage("--trace is for the classic algorithms, not --decode or --cu-seqlens");
    if (o->l2) return cli_usage("--l2 is for the classic algorithms, not --decode or --cu-seqlens");
    if (o->algo_given)
        return cli_usage("--algo does not apply to --decode or --cu-seqlens (their kernel is FlashAttention-2's)");
    if (o->decode && o->pass != FA_PASS_FWD)
        return cli_usage("decoding is inference: it has no backward (drop --pass)");
    if (o->model_path && s->seqlen_q < 0) s->seqlen_q = o->decode ? 1 : -1; /* not max_positions */
    if (o->decode && o->varlen) return cli_usage("--decode and --cu-seqlens exclude each other (use one)");
    if (o->decode) {
        if (!o->kv_len) return cli_usage("--decode needs --kv-len N (the number of cached keys)");
        if (s->seqlen_k > 0) return cli_usage("--decode takes N_k from --kv-len, not --seqlen-k");
        if (s->seqlen_q < 0) s->seqlen_q = 1;
        s->seqlen_k = o->kv_len;
        return 0;
    }
    if (o->paged) return cli_usage("--page-size is for --decode (a varlen batch reads contiguous K/V)");
    if (o->kv_len) return cli_usage("--kv-len needs --decode (a varlen batch takes key lengths from --cu-seqlens-k)");
    fa_status st = fa_varlen_resolve(s, o->cu[0], o->n_cu[0], o->n_cu[1] >= 0 ? o->cu[1] : NULL, o->n_cu[1], &o->vl);
    return st ? cli_fail(st) : 0; /* the offsets are checked (fa_varlen_check) by every run, after the defaults */
}

int cli_resolve(cli_opts *o)
{
    fa_shape *s = &o->shape;
    int rci = resolve_infer(o); /* --decode, --cu-seqlens: before the defaults */
    if (rci) return rci;
    fa_model m;
    if (o->model_path) {
        fa_status st = fa_model_load(o->model_path, &m);
        if (st) return cli_fail(st);
    }
    fa_shape_fill(s, o->model_path ? &m : NULL);
    static fa_mask_store masks; /* the arrays live until the process ends */
    fa_status st = fa_masks_load(s, o->block_mask_path, o->col_mask_path, o->doc_len, o->n_docs, o->dense_mask_path, &masks);
    if (st) return cli_fail(st);
    st = fa_shape_check(s);
    if (st) return cli_fail(st);
    st = fa_hw_load(o->hw_key, NULL, &o->hw);
    if (st) return cli_fail(st);
    if (o->sram == 0) o->sram = o->hw.sram_per_block;
    return 0;
}

fa_run_config cli_config(const cli_opts *o)
{
    fa_run_config c = {.shape = o->shape, .pass = o->pass, .hw = o->hw, .sram = o->sram, .rule = (fa_tile_rule)o->blocks,
                       .block_r = o->block_r, .block_c = o->block_c, .profile = o->profile};
    return c;
}

fa_status cli_blocks(const cli_opts *o, fa_blocks *bk, uint64_t *overflow)
{
    fa_run_config c = cli_config(o);
    return fa_run_tiles(&c, bk, overflow);
}

fa_status cli_run(const cli_opts *o, fa_algo a, FILE *trace, fa_io_result *r)
{
    fa_run_config c = cli_config(o);
    return fa_run_algo(&c, a, trace, r);
}

int cli_open(cli_file *cf, const char *path)
{
    fa_status st = fa_outfile_open(cf, path);
    return st ? cli_fail(st) : 0;
}

int cli_commit(cli_file *cf)
{
    if (!fa_outfile_commit(cf)) return 0;
    fprintf(stderr, "fasim: %s\n", fa_last_error()); /* a write failed while running: exit 1 */
    fa_clear_error();
    return EXIT_RUN;
}

void cli_abort(cli_file *cf) { fa_outfile_abort(cf); }

void cli_describe(FILE *f, const cli_opts *o, const fa_shape *s)
{
    char mb[32], mt[256];
    const char *mask = fa_mask_text(s, 0, mt, sizeof mt);
    fprintf(f, "B=%" PRId64 " H=%" PRId64 " H_kv=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64
               " d=%" PRId64 " d_v=%" PRId64 " %s, %s | %s, M = %" PRIu64 " B (%s)\n",
            s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v,
            fa_dtype_name(s->dtype), mask, o->hw.name, o->sram, fa_fmt_bytes((double)o->sram, mb, sizeof mb));
}
