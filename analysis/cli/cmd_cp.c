/* cmd_cp.c -- context parallelism on the command line (docs/context-parallel.md):
 * `fasim io --cp P [--cp-scheme S]` (one shape, each scheme) and the report's section (Llama-3-70B's
 * attention, P = 1, 2, 4, 8, N = 128k .. 1M: cp.csv and the plot of time vs P). */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "cli.h"
#include "fa_cp.h"

/* The link's rate as the tables print it: "450 GB/s". */
static const char *link_text(const fa_hw *hw, char *buf, size_t n)
{
    if (hw->nvlink_bandwidth > 0) snprintf(buf, n, "%.4g GB/s per direction", hw->nvlink_bandwidth / 1e9);
    else snprintf(buf, n, "no nvlink_bytes_per_s in the profile");
    return buf;
}

static const char *bound_text(const fa_cp_result *r) { return r->P == 1 ? "compute" : r->link_bound ? "link" : "compute"; }

static const char *const CP_CSV_HEAD =
    "scheme,P,gpu,calls,merges,hbm_bytes,attn_bytes,merge_bytes,formula_equal,attn_flops,merge_flops,sent_bytes,"
    "recv_bytes,memory_bytes,compute_s,comm_s,time_s,speedup,bound,profile,hw,batch,heads,kv_heads,seqlen,d,d_v,dtype,"
    "causal\n";

/* the report's cp.csv: CP_CSV_HEAD's columns, then these two (docs/report-csv.md) */
static const char *const CP_REPORT_CSV_EXTRA = ",kv_model_bytes,fits\n";

static void csv_row(FILE *f, const fa_cp_result *r, double t1, const fa_hw *hw, const fa_shape *s, const char *extra)
{
    fprintf(f, "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6e,%.6e,%.6e,%.4f,%s,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
            ",%" PRId64 ",%" PRId64 ",%s,%d%s\n",
            fa_cp_scheme_name(r->scheme), r->P, r->gpu, r->calls, r->merges, r->hbm_bytes, r->attn_bytes, r->merge_bytes,
            r->counted < 0 ? "" : r->counted ? "yes" : "no", r->attn_flops, r->merge_flops, r->sent_bytes, r->recv_bytes,
            r->memory_bytes, r->compute_s, r->comm_s, r->time_s, t1 / r->time_s, bound_text(r), r->profile, hw->key,
            s->batch, s->heads, s->kv_heads, s->seqlen_q, s->d, s->d_v, fa_dtype_name(s->dtype),
            s->causal != FA_CAUSAL_NONE, extra ? extra : "");
}

static void table_head(FILE *f)
{
    fprintf(f, "%-10s %4s %4s %5s %6s %11s %10s %8s %10s %10s %10s %10s %10s %10s %10s %8s\n", "scheme", "P", "GPU",
            "calls", "merges", "HBM bytes", "of merges", "=formula", "sent", "received", "memory", "compute", "link", "time",
            "vs P=1", "bound");
}

static void table_row(FILE *f, const fa_cp_result *r, double t1)
{
    char b[8][32];
    fprintf(f, "%-10s %4" PRId64 " %4" PRId64 " %5" PRId64 " %6" PRId64 " %11s %10s %8s %10s %10s %10s %10s %10s %10s %9.2fx %8s\n",
            fa_cp_scheme_name(r->scheme), r->P, r->gpu, r->calls, r->merges, fa_fmt_bytes((double)r->hbm_bytes, b[0], 32),
            fa_fmt_bytes((double)r->merge_bytes, b[1], 32), r->counted < 0 ? "-" : r->counted ? "yes" : "NO",
            fa_fmt_bytes((double)r->sent_bytes, b[2], 32), fa_fmt_bytes((double)r->recv_bytes, b[3], 32),
            fa_fmt_bytes((double)r->memory_bytes, b[4], 32), fa_fmt_time(r->compute_s, b[5], 32),
            fa_fmt_time(r->comm_s, b[6], 32), fa_fmt_time(r->time_s, b[7], 32), t1 / r->time_s, bound_text(r));
}

static const char *const CP_NOTE =
    "(per GPU and per layer, forward.  GPU: the rank whose counts are shown, the one with the most HBM bytes\n"
    " (causal ring: the last, which works at every step).  HBM bytes: its local FlashAttention-2 calls (closed form,\n"
    " docs/io-model.md; =formula: the memory model's count of every call equals it) plus the LSE merges of the\n"
    " ring schemes (fp32 accumulator; 'of merges').  sent / received: NVLink bytes.  memory: its live attention\n"
    " tensors.  compute: the calls and merges on the critical path (the slowest GPU of each ring step); link:\n"
    " received bytes / the NVLink rate.  time: ring and zigzag overlap each step's transfer with its compute,\n"
    " max(compute, transfer) a step and the last step's compute alone; allgather and ulysses communicate, then\n"
    " compute (not pipelined).  bound: link when the transfers exceed the compute that can hide them.\n"
    " vs P=1: one GPU's time / this row's.  No multi-GPU run has measured any of it yet:\n"
    " docs/context-parallel.md.)\n";

/* The memory column of one row with its numbers: fa_cp_memory_bytes's formula (docs/context-parallel.md,
 * "Memory per GPU"), bytes a token q = H d e, kv = H_kv (d + d_v) e, o = H d_v e, lse = 4 H, n = N / P. */
static void memory_line(FILE *f, const fa_shape *s, const fa_cp_result *r, int first)
{
    const uint64_t e = (uint64_t)fa_dtype_bytes(s->dtype), B = (uint64_t)s->batch, N = (uint64_t)s->seqlen_q;
    const uint64_t H = (uint64_t)s->heads, Hkv = (uint64_t)s->kv_heads, d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    const uint64_t q = H * d * e, kv = Hkv * (d + dv) * e, o = H * dv * e, lse = 4 * H, P = (uint64_t)r->P;
    const uint64_t n = P > 0 ? N / P : N;
    char b[32];
    fa_fmt_bytes((double)r->memory_bytes, b, sizeof b);
    if (first)
        fprintf(f, "memory (docs/context-parallel.md, \"Memory per GPU\"), with the bytes a token q = H d e = %" PRIu64
                   ", kv = H_kv (d + d_v) e = %" PRIu64 ", o = H d_v e = %" PRIu64 ", lse = 4 H = %" PRIu64 "%s:\n", q, kv, o,
                lse, P > 1 ? " and n = N/P" : "");
    fprintf(f, "  %s: ", P <= 1 ? "P = 1, every scheme" : fa_cp_scheme_name(r->scheme));
    if (P <= 1)
        fprintf(f, "one GPU, Q, K, V, O and LSE of all N tokens: B N (q + kv + o + lse) = %" PRIu64 " x %" PRIu64 " x (%" PRIu64
                   " + %" PRIu64 " + %" PRIu64 " + %" PRIu64 ")", B, N, q, kv, o, lse);
    else if (r->scheme == FA_CP_RING || r->scheme == FA_CP_ZIGZAG)
        fprintf(f, "Q, two K/V buffers (computed on, arriving), O, the fp32 O_acc and two LSE of its n tokens: "
                   "B n (q + 2 kv + o + 4 H d_v + 2 lse) = %" PRIu64 " x %" PRIu64 " x (%" PRIu64 " + 2 x %" PRIu64 " + %" PRIu64
                   " + %" PRIu64 " + 2 x %" PRIu64 ")", B, n, q, kv, o, H * dv * 4, lse);
    else if (r->scheme == FA_CP_ALLGATHER)
        fprintf(f, "Q, O, LSE of its n tokens and the gathered K/V of all N: B (n q + N kv + n o + n lse) = %" PRIu64
                   " x (%" PRIu64 " x %" PRIu64 " + %" PRIu64 " x %" PRIu64 " + %" PRIu64 " x %" PRIu64 " + %" PRIu64 " x %" PRIu64 ")",
                B, n, q, N, kv, n, o, n, lse);
    else
        fprintf(f, "Q, K, V and O in both layouts (n tokens of all H heads before the all-to-all, N tokens of H/P "
                   "heads after: n (q + kv + o) bytes each) and the LSE of H/P heads over N tokens: B (2 n (q + kv + o) + "
                   "N lse / P) = %" PRIu64 " x (2 x %" PRIu64 " x (%" PRIu64 " + %" PRIu64 " + %" PRIu64 ") + %" PRIu64 " x %" PRIu64
                   " / %" PRIu64 ")", B, n, q, kv, o, N, lse, P);
    fprintf(f, " = %" PRIu64 " B (%s)\n", r->memory_bytes, b);
}

int cp_io(const cli_opts *o)
{
    if (!o->given[O_CP]) return cli_usage("--cp-scheme needs --cp P (the number of GPUs)");
    if (o->decode || o->varlen)
        return cli_usage("--cp splits one training sequence: leave out --decode and --cu-seqlens");
    if (o->pass != FA_PASS_FWD)
        return cli_usage("--cp models the forward pass only (--pass %s is not modelled yet)", fa_pass_name(o->pass));
    if (o->algo_given && (o->n_algos != 1 || o->algos[0] != FA_ALGO_FLASH2))
        return cli_usage("--cp runs FlashAttention-2 calls on each GPU: leave out --algo or give --algo flash2");
    if (o->trace_path || o->l2 || o->breakdown)
        return cli_usage("--cp takes no --trace, --l2 or --breakdown (they describe one GPU's kernel)");
    fa_cp_config c = {.shape = o->shape, .hw = o->hw, .profile = o->profile, .P = o->cp, .count = 1};
    fa_cp_result r[FA_CP_NSCHEME], one;
    int n = 0, nna = 0;
    /* every scheme unless --cp-scheme names one: a scheme this shape does not admit (ulysses with H
     * or H_kv not a multiple of P, zigzag with N not a multiple of 2P) is reported as not
     * applicable and the others run; a scheme named by --cp-scheme that cannot run is exit 2, and
     * so is a shape no scheme admits (the first scheme's reason) */
    char na[FA_CP_NSCHEME][400];
    for (int k = 0; k < FA_CP_NSCHEME; k++) {
        if (o->cp_scheme >= 0 && k != o->cp_scheme) continue;
        c.scheme = (fa_cp_scheme)k;
        fa_status st = fa_cp_predict(&c, &r[n]);
        if (st && (o->cp_scheme >= 0 || st != FA_EINVAL)) return cli_fail(st);
        if (st) {
            snprintf(na[nna++], sizeof na[0], "%s", fa_last_error());
            fa_clear_error();
            continue;
        }
        n++;
    }
    if (n == 0) return cli_usage("%s", na[0]); /* no scheme runs: the first one's reason */
    c.P = 1, c.scheme = FA_CP_RING;
    fa_status st = fa_cp_predict(&c, &one);
    if (st) return cli_fail(st);
    if (o->format == FMT_CSV) { /* the rows that ran; a scheme not applicable is named on stderr */
        for (int k = 0; k < nna; k++) fprintf(stderr, "fasim: note: not applicable, no row: %s\n", na[k]);
        fputs(CP_CSV_HEAD, stdout);
        for (int k = 0; k < n; k++) csv_row(stdout, &r[k], one.time_s, &o->hw, &o->shape, NULL);
        return 0;
    }
    if (o->format == FMT_JSON) {
        json_t *arr = json_array();
        for (int k = 0; k < n; k++) {
            const fa_cp_result *x = &r[k];
            json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, "
                                                 "s:f, s:f, s:f, s:f, s:s, s:s, s:s, s:b}",
                "scheme", fa_cp_scheme_name(x->scheme), "P", (json_int_t)x->P, "gpu", (json_int_t)x->gpu,
                "calls", (json_int_t)x->calls, "merges", (json_int_t)x->merges, "hbm_bytes", (json_int_t)x->hbm_bytes,
                "attn_bytes", (json_int_t)x->attn_bytes, "merge_bytes", (json_int_t)x->merge_bytes,
                "formula_equal", json_boolean(x->counted == 1), "attn_flops", (json_int_t)x->attn_flops,
                "merge_flops", (json_int_t)x->merge_flops, "sent_bytes", (json_int_t)x->sent_bytes,
                "recv_bytes", (json_int_t)x->recv_bytes, "memory_bytes", (json_int_t)x->memory_bytes,
                "compute_s", x->compute_s, "comm_s", x->comm_s, "time_s", x->time_s, "speedup", one.time_s / x->time_s,
                "bound", bound_text(x), "profile", x->profile, "hw", o->hw.key, "applicable", 1));
        }
        for (int k = 0; k < nna; k++) { /* "ulysses: H = 1 query heads is not a multiple of P = 2 (...)" */
            char sch[16] = "";
            sscanf(na[k], "%15[a-z]", sch);
            json_array_append_new(arr, json_pack("{s:s, s:I, s:b, s:s}", "scheme", sch, "P", (json_int_t)o->cp,
                                                 "applicable", 0, "reason", na[k]));
        }
        cli_dump_json(arr, stdout);
        json_decref(arr);
        return 0;
    }
    char lk[64];
    printf("context parallelism, one layer's forward over P = %" PRId64 " GPU%s | ", o->cp, o->cp == 1 ? "" : "s");
    cli_describe(stdout, o, &o->shape);
    printf("each GPU: %s, NVLink %s | local calls: flash2 as the %s kernel profile (docs/time-model.md)\n", o->hw.name,
           link_text(&o->hw, lk, sizeof lk), one.profile);
    table_head(stdout);
    for (int k = 0; k < n; k++) table_row(stdout, &r[k], one.time_s);
    for (int k = 0; k < nna; k++) { /* the scheme's name leads its reason */
        char sch[16] = "";
        sscanf(na[k], "%15[a-z]", sch);
        printf("%-10s %4" PRId64 "  not applicable: %s\n", sch, o->cp, na[k] + strlen(sch) + (na[k][strlen(sch)] == ':' ? 2 : 0));
    }
    printf("one GPU (P = 1): HBM %s, memory %s, time %s%s\n", fa_fmt_bytes((double)one.hbm_bytes, lk, sizeof lk),
           fa_fmt_bytes((double)one.memory_bytes, (char[32]){0}, 32), fa_fmt_time(one.time_s, (char[32]){0}, 32),
           one.has_time ? "" : " (roofline: the profile has no pipe rates)");
    fputs(CP_NOTE, stdout);
    for (int k = 0; k < (o->cp > 1 ? n : 1); k++) memory_line(stdout, &o->shape, &r[k], k == 0); /* the memory column, derived */
    for (int k = 0; k < n; k++) /* the ring's buffers can outweigh the split: say why (once) */
        if ((r[k].scheme == FA_CP_RING || r[k].scheme == FA_CP_ZIGZAG) && r[k].P > 1 && r[k].memory_bytes >= one.memory_bytes) {
            printf("(memory: %s and zigzag keep, for their N/P tokens, Q, two K/V buffers (the one computed on and the one\n"
                   " arriving), O, an fp32 accumulator O_acc and two LSE -- q + 2 kv + o + 4 H d_v + 2 lse bytes a token\n"
                   " against one GPU's q + kv + o + lse for all N (docs/context-parallel.md, \"Memory per GPU\"); the second\n"
                   " K/V buffer and O_acc make up for the split, so here P = %" PRId64 " needs no less memory than one GPU;\n"
                   " at fp16/bf16 with d = d_v (4 H d_v = q + o) P = 2 needs exactly one GPU's, and P = 4 half of it.)\n",
                   fa_cp_scheme_name(r[k].scheme), r[k].P);
            break;
        }
    return 0;
}

/* ---- the report's section ---- */

int cp_report(FILE *csv, int quiet, const fa_hw *hw)
{
    /* Llama-3-70B's attention (its config.json: num_attention_heads 64, num_key_value_heads 8,
     * hidden_size 8192 / 64 = head dim 128, bf16, 80 layers): one layer, B = 1, causal */
    fa_shape s = fa_shape_default(1, 128);
    s.heads = 64, s.kv_heads = 8, s.dtype = FA_DTYPE_BF16, s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    static const int64_t NS[] = {131072, 262144, 524288, 1048576}, PS[] = {1, 2, 4, 8};
    fprintf(csv, "%.*s%s", (int)strlen(CP_CSV_HEAD) - 1, CP_CSV_HEAD, CP_REPORT_CSV_EXTRA);
    int oom_rows = 0, same_mem = 0; /* same_mem: ring at P = 2 holds as much as one GPU */
    int one_timed = 1;              /* every P = 1 call had the time model (else: rooflines) */
    char prof_key[16] = "";
    char cap[32];
    fa_fmt_bytes((double)hw->hbm_capacity, cap, sizeof cap);
    if (!quiet) {
        char lk[64];
        printf("== context parallelism: Llama-3-70B's attention (H = 64, H_kv = 8, d = 128, bf16, causal, B = 1), one\n"
               "   layer's forward (x 80 per model pass) over P GPUs of %s, NVLink %s; predicted, not measured\n",
               hw->name, link_text(hw, lk, sizeof lk));
    }
    for (size_t i = 0; i < sizeof NS / sizeof NS[0]; i++) {
        s.seqlen_q = s.seqlen_k = NS[i];
        fa_cp_config c = {.shape = s, .hw = *hw, .P = 1, .scheme = FA_CP_RING};
        fa_cp_result one;
        fa_status st = fa_cp_predict(&c, &one);
        if (st) return cli_fail(st);
        one_timed &= one.has_time;
        snprintf(prof_key, sizeof prof_key, "%s", one.profile);
        if (i == 0 && !quiet) /* a profile without the time model here: the column says roofline */
            printf("%8s %-10s %4s %11s %10s %10s %12s %10s %10s %8s\n", "N", "scheme", "P", "HBM/GPU", "sent/GPU",
                   "memory/GPU", "K,V x 80/GPU", one.has_time ? "time" : "roofline", "vs P=1", "bound");
        for (int k = 0; k < FA_CP_NSCHEME; k++)
            for (size_t j = 0; j < sizeof PS / sizeof PS[0]; j++) {
                c.scheme = (fa_cp_scheme)k, c.P = PS[j];
                fa_cp_result r;
                if ((st = fa_cp_predict(&c, &r))) return cli_fail(st);
                /* the K and V a GPU keeps for the whole model: 80 layers of its share */
                const uint64_t kv80 = 80ull * 2 * (uint64_t)NS[i] / (uint64_t)PS[j] * 8 * 128 * 2;
                const int fits = !hw->hbm_capacity || kv80 <= hw->hbm_capacity;
                char extra[64];
                if (hw->hbm_capacity)
                    snprintf(extra, sizeof extra, ",%" PRIu64 ",%d", kv80, fits);
                else
                    snprintf(extra, sizeof extra, ",%" PRIu64 ",", kv80);
                csv_row(csv, &r, one.time_s, hw, &s, extra);
                if (k == FA_CP_RING && r.P == 2 && r.memory_bytes == one.memory_bytes) same_mem = 1;
                if (quiet) continue;
                oom_rows += !fits;
                char b[5][32];
                printf("%8" PRId64 " %-10s %4" PRId64 " %11s %10s %10s %12s %10s %9.2fx %8s%s\n", NS[i],
                       fa_cp_scheme_name(r.scheme), r.P, fa_fmt_bytes((double)r.hbm_bytes, b[0], 32),
                       fa_fmt_bytes((double)r.sent_bytes, b[1], 32), fa_fmt_bytes((double)r.memory_bytes, b[2], 32),
                       fa_fmt_bytes((double)kv80, b[3], 32), fa_fmt_time(r.time_s, b[4], 32), one.time_s / r.time_s,
                       bound_text(&r), fits ? "" : "  out of memory");
            }
    }
    if (!quiet) {
        printf("(per GPU; one layer except 'K,V x 80/GPU', the K and V of all 80 layers a GPU holds for its N/P tokens\n"
               " (allgather gathers one layer's at a time).  time: the layer's forward, the slowest GPU; the columns of\n"
               " fasim io --cp and the derivations: docs/context-parallel.md.  No multi-GPU machine has measured these.\n"
               " bound: link when the bytes sent over NVLink take longer than the compute (ring, zigzag: the P - 1\n"
               " transfers against the steps that hide them; allgather: the gather against the calls; ulysses: the\n"
               " all-to-alls against the call), else compute; P = 1 sends nothing (docs/context-parallel.md).\n"
               " memory/GPU, with n = N/P tokens a GPU and the bytes a token q = H d e, kv = H_kv (d + d_v) e, o = H d_v e,\n"
               " lse = 4 H: ring and zigzag B n (q + 2 kv + o + 4 H d_v + 2 lse), allgather B (n q + N kv + n o + n lse),\n"
               " ulysses B (2 n (q + kv + o) + N lse / P) -- Q, K, V, O in both layouts of its all-to-all and the LSE of\n"
               " H/P heads over all N; P = 1: B N (q + kv + o + lse) (fasim io --cp P prints each with its numbers).\n");
        if (hw->hbm_capacity)
            printf(" \"out of memory\" (cp.csv: fits = 0, %d rows here): the 80 layers' K,V of a GPU's share alone exceed its\n"
                   " %s, the model's weights and activations not counted; the row is what the layer would cost.\n",
                   oom_rows, cap);
        else
            printf(" No row is judged \"out of memory\": %s's memory is unknown (no hbm_capacity_bytes in its profile;\n"
                   " cp.csv leaves fits empty).\n", hw->name);
        if (!one_timed)
            printf(" time: the roofline, max(FLOPs / peak, bytes / bandwidth), of each local call -- not the time model:\n"
                   " the %s kernel profile has no pipe rates on %s (no mma.sync rate: docs/conventions.md,\n"
                   " \"Hardware profiles\"), and 'vs P=1' compares rooflines with rooflines.\n", prof_key, hw->name);
        if (same_mem)
            printf(" memory/GPU: ring and zigzag keep, for their N/P tokens, Q, two K/V buffers (the one computed on and\n"
                   " the one arriving), O, an fp32 accumulator O_acc and two LSE -- q + 2 kv + o + 4 H d_v + 2 lse bytes a\n"
                   " token against one GPU's q + kv + o + lse for all N; at bf16 with d = d_v, 4 H d_v = q + o, so the\n"
                   " second buffer and O_acc make up for the split: P = 2 needs exactly P = 1's memory, P = 4 half of it\n"
                   " (docs/context-parallel.md, \"Memory per GPU\").\n");
        printf(")\n\n");
    }
    return 0;
}
