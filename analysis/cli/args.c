/* args.c -- the options resolved (defaults, --model, mask files, the inference options), the
 * configuration handed to analysis/run.c, output files, and small output helpers. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fa_inference.h"


/* The inference options against the others, and their defaults (fa_infer_resolve; before
 * cli_resolve's): --decode takes N_k from --kv-len and N_q = 1; --cu-seqlens gives the varlen
 * batch's shape. */
static int resolve_infer(cli_opts *o)
{
    const fa_infer_args a = {.decode = o->decode, .varlen = o->varlen, .cu_k = o->n_cu[1] >= 0, .kv_len = o->kv_len,
                             .splits = o->splits || o->splits_auto, .paged = o->paged,
                             .gqa = o->gqa || o->given[O_GQA], /* given at all: --gqa both needs them too */
                             .mask_files = o->block_mask_path || o->col_mask_path || o->n_docs > 0 || o->dense_mask_path,
                             .trace = o->trace_path != NULL, .l2 = o->l2, .algo_given = o->algo_given,
                             .model_given = o->model_path != NULL, .pass = o->pass};
    fa_status st = fa_infer_resolve(&a, &o->shape);
    if (!st && o->varlen) /* the offsets are checked (fa_varlen_check) by every run, after the defaults */
        st = fa_varlen_resolve(&o->shape, o->cu[0], o->n_cu[0], o->n_cu[1] >= 0 ? o->cu[1] : NULL, o->n_cu[1], &o->vl);
    return st ? cli_fail(st) : 0;
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
    const int dtype_given = (int)s->dtype >= 0;
    fa_shape_fill(s, o->model_path ? &m : NULL);
    o->model_note[0] = '\0';
    if (o->model_path) { /* the model's rows as fasim report counts them (fa_report_model_shape) */
        size_t k = 0;
        const size_t n = sizeof o->model_note;
        if (!dtype_given && m.dtype_default)
            k += (size_t)snprintf(o->model_note + k, n - k, "no torch_dtype in the config: counted in fp16, fasim's "
                                  "default (Transformers loads it in torch's default fp32; --dtype to count another)");
        if (!dtype_given && m.dtype == FA_DTYPE_FP32) {
            s->dtype = FA_DTYPE_BF16; /* the FlashAttention kernels take fp16/bf16 */
            k += (size_t)snprintf(o->model_note + k, n - k, "the model is published in fp32; counted in bf16 as "
                                  "fasim report does (the FlashAttention kernels take fp16/bf16; --dtype fp32 to count fp32)");
        }
        if (m.note[0] && k < n) /* the class's defaults taken, another family's keys ignored */
            k += (size_t)snprintf(o->model_note + k, n - k, "%s%s", k ? "; " : "", m.note);
        if (m.scale_note[0] && !o->given[O_SCALE] && k < n) /* DeepSeek-V2: two implementations, two scales */
            k += (size_t)snprintf(o->model_note + k, n - k, "%sscale 1/sqrt(d) = %.6g, as Transformers' "
                                  "DeepseekV2Attention uses; %s (--scale to take that; it changes no count)",
                                  k ? "; " : "", 1 / sqrt((double)m.head_dim), m.scale_note);
        const int all = m.n_sliding == m.layers || (m.n_sliding == 0 && m.layers <= 0);
        if (m.sliding_window > 0 && m.sliding_window < s->seqlen_k && !o->given[O_WINDOW] && k < n) {
            if (all && s->causal != FA_CAUSAL_NONE) {
                s->window = 1, s->window_left = m.sliding_window - 1, s->window_right = 0;
                k += (size_t)snprintf(o->model_note + k, n - k, "%severy layer attends to a %" PRId64 "-token sliding "
                                      "window: counted with --window %" PRId64 ",0, as fasim report does", k ? "; " : "",
                                      m.sliding_window, m.sliding_window - 1);
            } else if (all) {
                k += (size_t)snprintf(o->model_note + k, n - k, "%severy layer attends causally to a %" PRId64 "-token "
                                      "sliding window, which applies with --causal (counted without: no mask)", k ? "; " : "",
                                      m.sliding_window);
            } else {
                k += (size_t)snprintf(o->model_note + k, n - k, "%s%" PRId64 " of %" PRId64 " layers attend to a %" PRId64
                                      "-token sliding window; counted: a full-attention layer, as fasim report's kernels "
                                      "table (--window %" PRId64 ",0 for a sliding one)", k ? "; " : "", m.n_sliding,
                                      m.layers, m.sliding_window, m.sliding_window - 1);
            }
        }
    }
    /* a kv-heads taken from the model file, not from the command line: say where it came from */
    if (o->model_path && !o->given[O_KV_HEADS] && s->heads >= 1 && s->kv_heads >= 1 && s->heads % s->kv_heads != 0)
        return cli_fail(fa_error(FA_EINVAL, __FILE__, __LINE__,
                                 "heads = %" PRId64 " is not a multiple of kv-heads = %" PRId64 ", the model's, from --model %s "
                                 "(give --kv-heads too, a divisor of %" PRId64 ")",
                                 s->heads, s->kv_heads, o->model_path, s->heads));
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

int cli_stdout_failed(const char *then)
{
    static int said; /* one message, whoever finds the failure first (a command, then main) */
    /* the error of an earlier failed write, when nothing since replaced it: stdio keeps only the
     * flag, and the flush below has nothing left to write when that write emptied the buffer */
    const int e0 = errno == EPIPE || errno == ENOSPC || errno == EIO || errno == EFBIG ? errno : 0;
    errno = 0;
    const int flush_bad = fflush(stdout) != 0;
    const int e = flush_bad && errno ? errno : e0;
    if (!flush_bad && !ferror(stdout)) return 0;
    if (cli_stdout_help() && e == EPIPE) return 0; /* help into a reader that stopped (head -3): done */
    if (!said++)
        fprintf(stderr, "fasim: cannot write standard output: %s%s\n",
                e ? strerror(e) : "an earlier write failed (a closed pipe or a full disk)", then ? then : "");
    return 1;
}

void cli_describe(FILE *f, const cli_opts *o, const fa_shape *s)
{
    char mb[32], mt[256], mt2[384], sc[48] = "";
    const char *mask = fa_mask_text(s, 0, mt, sizeof mt);
    char *cm = strstr(mt, "column mask");
    if (o->n_docs > 0 && s->col_mask && cm) { /* --doc-mask: the mask asked for, and how fasim builds it */
        snprintf(mt2, sizeof mt2, "%.*sdocument mask of %d documents (built as a FlashMask column mask)%s",
                 (int)(cm - mt), mt, o->n_docs, cm + strlen("column mask"));
        mask = mt2;
    }
    /* a scale other than the default 1/sqrt(d) (--scale, or the model's: Gemma's
     * query_pre_attn_scalar, DeepSeek-V3's mscale); it changes no count */
    if (s->scale > 0 && fabs(s->scale * sqrt((double)s->d) - 1) > 1e-12)
        snprintf(sc, sizeof sc, ", scale %.6g (not 1/sqrt(d))", s->scale);
    fprintf(f, "B=%" PRId64 " H=%" PRId64 " H_kv=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64
               " d=%" PRId64 " d_v=%" PRId64 " %s, %s%s | %s, M = %" PRIu64 " B (%s)\n",
            s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v,
            fa_dtype_name(s->dtype), mask, sc, o->hw.name, o->sram, fa_fmt_bytes((double)o->sram, mb, sizeof mb));
}
