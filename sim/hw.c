/* hw.c -- hardware profile files.
 *
 * The format (also in fa_hw.h and docs/conventions.md): one `key = value` a line, `#` comments
 * and blank lines ignored.  Parsing is strict so that a typo cannot pass unnoticed: an unknown
 * key, a key given twice, a key without a value, a fractional value for a byte or SM count, a
 * line longer than HW_LINE_MAX characters, a text value that does not fit its field, a
 * per-block SRAM larger than the per-SM SRAM, a number outside its key's range (KEYS below), an
 * l2_bytes whose sets do not split into l2_partitions, a number that is not decimal (0x10, inf)
 * and a `key` other than the --hw key the file was loaded for are each rejected with FA_EINVAL
 * and a message "FILE:LINE: ..." naming the key, the value and the limit. */
#include "fa_hw.h"
#include "fa_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FASIM_HW_DIR
#define FASIM_HW_DIR "sim/hw"
#endif

const char *const fa_hw_keys[] = {"a100", "h100", "h200", "b200", NULL};
static const char *const hw_files[] = {"a100-sxm4-80gb.hw", "h100-sxm5.hw", "h200-sxm.hw", "b200.hw", NULL};

enum { HW_LINE_MAX = 1022 }; /* characters a line may hold, without its newline */

/* The keys of a profile file, in the order fa_hw.h documents them, with the range a numeric
 * value must lie in (docs/conventions.md): wide enough for any GPU, narrow enough that a typo
 * (sms = 1e9) cannot make the L2 model allocate gigabytes or run for minutes.  l2_bytes has a
 * second rule, checked once the whole file is read: its sets of FA_HW_L2_WAYS lines of
 * FA_HW_L2_LINE bytes split evenly into l2_partitions. */
typedef enum { K_TEXT, K_REAL, K_COUNT } key_kind; /* text, positive real, positive whole number */
static const struct {
    const char *name;
    key_kind kind;
    int optional;
    double lo, hi;     /* the range of a numeric value */
    const char *range; /* the range in words, for the message */
} KEYS[] = {
    {"name", K_TEXT, 0, 0, 0, NULL},
    {"key", K_TEXT, 0, 0, 0, NULL},
    {"hbm_bandwidth_bytes_per_s", K_REAL, 0, 1e9, 1e15, "1e9 to 1e15 bytes/s"},
    {"sram_per_sm_bytes", K_COUNT, 0, 1024, 0x1p30, "1024 to 1073741824 bytes (1 KiB to 1 GiB)"},
    {"sram_per_block_bytes", K_COUNT, 0, 1024, 0x1p30, "1024 to 1073741824 bytes (1 KiB to 1 GiB)"},
    {"sms", K_COUNT, 0, 1, 1024, "1 to 1024"},
    {"l2_bytes", K_COUNT, 0, FA_HW_L2_LINE * FA_HW_L2_WAYS, 0x1p30,
     "2048 to 1073741824 bytes (one set of 16 ways x 128-byte lines to 1 GiB)"},
    {"peak_fp16_flops", K_REAL, 0, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"peak_fp32_flops", K_REAL, 0, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"source", K_TEXT, 0, 0, 0, NULL},
    {"hbm_capacity_bytes", K_COUNT, 1, 0x1p20, 0x1p50,
     "1048576 to 1125899906842624 bytes (1 MiB to 1 PiB)"},
    {"l2_partitions", K_COUNT, 1, 1, 2, "1 or 2"},
    /* the machine model of the time model (docs/time-model.md): capacities and pipe rates */
    {"arch", K_COUNT, 1, 10, 200, "10 to 200 (compute capability x 10: 80 = sm_80, 90 = sm_90)"},
    {"clock_hz", K_REAL, 1, 1e8, 1e10, "1e8 to 1e10 Hz"},
    {"regs_per_sm", K_COUNT, 1, 1024, 0x1p20, "1024 to 1048576 32-bit registers"},
    {"regs_per_thread", K_COUNT, 1, 16, 1024, "16 to 1024 32-bit registers"},
    {"threads_per_sm", K_COUNT, 1, 32, 8192, "32 to 8192"},
    {"blocks_per_sm", K_COUNT, 1, 1, 64, "1 to 64"},
    {"mma_sync_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"mma_sync_clock_hz", K_REAL, 1, 1e8, 1e10, "1e8 to 1e10 Hz"},
    {"wgmma_clock_hz", K_REAL, 1, 1e8, 1e10, "1e8 to 1e10 Hz"},
    {"wgmma_clock_by_load", K_TEXT, 1, 0, 0, NULL},
    {"wgmma_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"wgmma_fp8_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"gemm_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"sgemm_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"fma_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"exp_per_s", K_REAL, 1, 1e9, 1e16, "1e9 to 1e16 exponentials/s"},
    {"smem_bytes_per_s", K_REAL, 1, 1e9, 1e16, "1e9 to 1e16 bytes/s"},
    {"l2_bytes_per_s", K_REAL, 1, 1e9, 1e16, "1e9 to 1e16 bytes/s"},
    {"dram_bytes_per_s", K_REAL, 1, 1e9, 1e15, "1e9 to 1e15 bytes/s"},
    {"dram_latency_s", K_REAL, 1, 1e-8, 1e-3, "1e-8 to 1e-3 s"},
    {"l2_latency_s", K_REAL, 1, 1e-9, 1e-3, "1e-9 to 1e-3 s"},
    {"wgmma_wait_cycles", K_REAL, 1, 1e-3, 1e4, "1e-3 to 1e4 SM clocks"},
    {"barrier_cycles", K_REAL, 1, 1e-3, 1e4, "1e-3 to 1e4 SM clocks"},
    {"launch_s", K_REAL, 1, 1e-8, 1e-2, "1e-8 to 1e-2 s"},
    {"tcgen05_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"tcgen05_fp8_flops", K_REAL, 1, 1e9, 1e18, "1e9 to 1e18 FLOP/s"},
    {"tmem_per_sm_bytes", K_COUNT, 1, 1024, 0x1p30, "1 KiB to 1 GiB"},
    {"pipes_source", K_TEXT, 1, 0, 0, NULL},
    /* the interconnect of the context-parallel level (docs/context-parallel.md) */
    /* warp instructions an SM issues a clock (its schedulers, one each) */
    {"issue_per_sm_clk", K_REAL, 1, 1, 64, "1 to 64 warp instructions per SM per clock"},
    {"nvlink_bytes_per_s", K_REAL, 1, 1e9, 1e13, "1e9 to 1e13 bytes/s (per direction)"},
    /* PyTorch's strided copy of a (B, H, N, d) tensor into (B, N, H, d) (kernels/torch_ops_bw.py) */
    {"transpose_copy_bytes_per_s", K_REAL, 1, 1e9, 1e15, "1e9 to 1e15 bytes/s (read + write)"},
    /* PyTorch's kernels of the math path (kernels/torch_ops_bw.py) */
    {"torch_softmax_bytes_per_s_by_n", K_TEXT, 1, 0, 0, NULL},
    {"torch_all_bytes_per_s_by_n", K_TEXT, 1, 0, 0, NULL},
    {"torch_select_bytes_per_s", K_REAL, 1, 1e9, 1e15, "1e9 to 1e15 bytes/s (read + write)"},
    {"torch_upcast_bytes_per_s", K_REAL, 1, 1e9, 1e15, "1e9 to 1e15 bytes/s (read + write)"},
    /* ldmatrix feeding mma.sync in one warp's prefetched stream: the share of the shorter pipe's
     * time not hidden, by the resident warps on each scheduler (ubench_pipes ldsm_mma rows) */
    {"ldsm_mma_overlap", K_TEXT, 1, 0, 0, NULL},
};
enum { NKEYS = (int)(sizeof KEYS / sizeof KEYS[0]) };
enum { NAME, KEY, HBM_BW, SRAM_SM, SRAM_BLOCK, SMS, L2_BYTES, PEAK16, PEAK32, SOURCE, HBM_CAP, L2_PARTS,
       ARCH, CLOCK, REGS_SM, REGS_THREAD, THREADS_SM, BLOCKS_SM, MMA_SYNC, MMA_SYNC_CLOCK, WGMMA_CLOCK, WGMMA_LOAD, WGMMA, WGMMA8, GEMM, SGEMM, FMA, EXP,
       SMEM_BW, L2_BW, DRAM_BW, DRAM_LAT, L2_LAT, WAIT_CYC, BAR_CYC, LAUNCH, TCGEN05, TCGEN05_8, TMEM, PIPES_SOURCE, ISSUE, NVLINK, TRANSPOSE, T_SOFTMAX, T_ALL, T_SELECT, T_UPCAST, LDSM_MMA };

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

/* The known keys as one comma-separated list, for the unknown-key message. */
static const char *key_list(void)
{
    static char buf[1024];
    size_t l = 0;
    for (int i = 0; i < NKEYS && l < sizeof buf; i++)
        l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", i ? ", " : "", KEYS[i].name);
    return buf;
}

/* Parses the value of numeric key idx: a positive finite decimal number; a whole one for byte
 * and SM counts; within the key's range (KEYS[idx].lo .. hi). */
static fa_status parse_num(const char *path, int line, int idx, const char *v, double *out)
{
    const char *k = KEYS[idx].name;
    char ex[FA_EXCERPT_SIZE]; /* the value as quoted: short and printable (the file may be binary) */
    const char *q = fa_excerpt(v, strlen(v), ex);
    if (v[0] == '-') /* a sign: out of every key's range, which it names as for a value too large */
        FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' is negative: it must lie in %s", path, line, k, q, KEYS[idx].range);
    if (!fa_is_decimal(v))
        FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' is not a decimal number (digits, an optional '.' and "
                "e exponent, e.g. 4.8e12; no hex, inf or nan; range %s)", path, line, k, q, KEYS[idx].range);
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *trim(end) != '\0' || !isfinite(x) || !(x > 0))
        FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' is not a positive finite number (range %s)", path, line, k, q,
                KEYS[idx].range);
    if (KEYS[idx].kind == K_COUNT && x != floor(x))
        FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' is not a whole number (%s)", path, line, k, q,
                idx == SMS ? "a count of SMs" : idx == L2_PARTS ? "a count of partitions" :
                idx >= ARCH ? "a count" : "a count of bytes");
    if (idx == L2_PARTS && x != 1 && x != 2)
        FA_FAIL(FA_EINVAL, "%s:%d: l2_partitions = '%s' is not 1 or 2", path, line, q);
    if (x < KEYS[idx].lo || x > KEYS[idx].hi)
        FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' is out of range: the limit is %s", path, line, k, q,
                KEYS[idx].range);
    *out = x;
    return FA_OK;
}

/* Copies text value v into a field of n bytes; too long is an error, not a silent cut. */
static fa_status set_text(const char *path, int line, int idx, const char *v, char *dst, size_t n)
{
    char ex[FA_EXCERPT_SIZE];
    if (strlen(v) >= n)
        FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' is %zu characters long (limit %zu)", path, line,
                KEYS[idx].name, fa_excerpt(v, strlen(v), ex), strlen(v), n - 1);
    memcpy(dst, v, strlen(v) + 1);
    return FA_OK;
}

/* Parses one `key = value` line s (trimmed, not a comment) into hw; seen[] holds the line each
 * key was first given on. */
/* An "x:y x:y ..." value of at most FA_HW_LOAD_POINTS pairs, x increasing: what each pair may be and
 * how the messages name its parts. */
typedef struct {
    const char *form;           /* "duty:hz with 0 < duty <= 1 (e.g. 0.81:1.732e9)" */
    double x_lo, x_hi;          /* x in (x_lo, x_hi] when x_open, else [x_lo, x_hi] */
    int x_open;
    const char *y_what;         /* "clock is not in 1e8 to 1e10 Hz" */
    double y_lo, y_hi;          /* y in [y_lo, y_hi] */
    const char *x_plural;       /* "duties" */
} pair_spec;

static fa_status parse_pairs(const char *path, int line, const char *key, const char *v, const pair_spec *sp, double *xs,
                             double *ys, int *out_n)
{
    char ex[FA_EXCERPT_SIZE];
    const char *q = fa_excerpt(v, strlen(v), ex);
    int n = 0;
    const char *p = v;
    while (*p) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (n == FA_HW_LOAD_POINTS)
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s' has more than %d points", path, line, key, q, FA_HW_LOAD_POINTS);
        /* each number of the point decimal, as a scalar key's (no hex, inf or nan: fa_is_decimal) */
        char tok[2][64];
        const size_t lx = strcspn(p, ":"), ly = p[lx] == ':' ? strcspn(p + lx + 1, " \t\r\n\v\f") : 0;
        if (p[lx] != ':' || lx == 0 || ly == 0 || lx >= sizeof tok[0] || ly >= sizeof tok[1])
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s': point %d is not %s", path, line, key, q, n + 1, sp->form);
        memcpy(tok[0], p, lx), tok[0][lx] = '\0';
        memcpy(tok[1], p + lx + 1, ly), tok[1][ly] = '\0';
        if (!fa_is_decimal(tok[0]) || !fa_is_decimal(tok[1]))
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s': point %d ('%s:%s') is not two decimal numbers (digits, an optional "
                    "'.' and e exponent; no hex, inf or nan): %s", path, line, key, q, n + 1, tok[0], tok[1], sp->form);
        char *end;
        errno = 0;
        const double x = strtod(p, &end);
        if (errno || end == p || *end != ':' || !isfinite(x) || (sp->x_open ? !(x > sp->x_lo) : x < sp->x_lo) || x > sp->x_hi)
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s': point %d is not %s", path, line, key, q, n + 1, sp->form);
        p = end + 1;
        errno = 0;
        const double y = strtod(p, &end);
        if (errno || end == p || (*end && !isspace((unsigned char)*end)) || !isfinite(y) || y < sp->y_lo || y > sp->y_hi)
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s': point %d's %s", path, line, key, q, n + 1, sp->y_what);
        if (n > 0 && !(x > xs[n - 1]))
            FA_FAIL(FA_EINVAL, "%s:%d: %s = '%s': the %s must increase (point %d: %g after %g)", path, line, key, q,
                    sp->x_plural, n + 1, x, xs[n - 1]);
        xs[n] = x;
        ys[n] = y;
        n++;
        p = end;
    }
    if (n == 0) FA_FAIL(FA_EINVAL, "%s:%d: %s has no points", path, line, key);
    *out_n = n;
    return FA_OK;
}

/* wgmma_clock_by_load = "duty:hz duty:hz ...": the SM clock (Hz, 1e8 to 1e10) the GPU holds while
 * the tensor pipe is busy that share (0 < duty <= 1, increasing) of a wgmma kernel's time, from
 * kernels/ubench_pipes.cu's wgmma_duty rows (docs/time-model.md, section 1). */
static fa_status parse_load_curve(const char *path, int line, const char *v, fa_hw *hw)
{
    static const pair_spec sp = {"duty:hz with 0 < duty <= 1 (e.g. 0.81:1.732e9)", 0, 1, 1,
                                 "clock is not in 1e8 to 1e10 Hz", 1e8, 1e10, "duties"};
    return parse_pairs(path, line, "wgmma_clock_by_load", v, &sp, hw->wgmma_load_duty, hw->wgmma_load_hz, &hw->wgmma_load_n);
}

/* ldsm_mma_overlap = "w:c w:c ...": a forward mma.sync kernel's GEMM phase takes max + c min of its
 * tensor and shared-memory times, c by its w_gemm, the resident warps on each scheduler (w,
 * increasing, 0.25 to 64; c in [0, 1]); kernels/ubench_pipes.cu's ldsm_mma rows (docs/time-model.md,
 * section 5). */
static fa_status parse_ldsm_overlap(const char *path, int line, const char *v, fa_hw *hw)
{
    static const pair_spec sp = {"warps:c with 0.25 <= warps <= 64 (e.g. 2:0.064)", 0.25, 64, 0,
                                 "c is not in 0 to 1", 0, 1, "warp counts"};
    return parse_pairs(path, line, "ldsm_mma_overlap", v, &sp, hw->ldsm_overlap_w, hw->ldsm_overlap_c, &hw->ldsm_overlap_n);
}

/* "N:rate N:rate ...": row lengths increasing, 1 to 2^40, rates 1e9 to 1e15 bytes/s */
static fa_status parse_rate_table(const char *path, int line, const char *key, const char *v, double *len, double *bw,
                                  int *out_n)
{
    static const pair_spec sp = {"N:bytes_per_s with 1 <= N <= 2^40 (e.g. 4096:2.52e12)", 1, 0x1p40, 0,
                                 "rate is not in 1e9 to 1e15 bytes/s", 1e9, 1e15, "row lengths"};
    return parse_pairs(path, line, key, v, &sp, len, bw, out_n);
}

double fa_hw_rate_by_len(const double *len, const double *bw, int n, double x)
{
    if (n <= 0) return 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (len[i] <= x) k = i;
    return bw[k];
}

static fa_status parse_line(const char *path, int line, char *s, int *seen, fa_hw *hw)
{
    char *eq = strchr(s, '=');
    char ex[FA_EXCERPT_SIZE]; /* quoted text: short and printable (the file may be binary) */
    if (!eq) FA_FAIL(FA_EINVAL, "%s:%d: expected key = value, got '%s'", path, line, fa_excerpt(s, strlen(s), ex));
    *eq = '\0';
    char *k = trim(s), *v = trim(eq + 1);
    if (*k == '\0') FA_FAIL(FA_EINVAL, "%s:%d: expected key = value, got no key before '='", path, line);
    int idx = -1;
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(k, KEYS[i].name) == 0) idx = i;
    if (idx < 0)
        FA_FAIL(FA_EINVAL, "%s:%d: unknown key '%s' (known: %s; notes go in # comments)", path, line,
                fa_excerpt(k, strlen(k), ex), key_list());
    if (seen[idx])
        FA_FAIL(FA_EINVAL, "%s:%d: key %s given twice (first on line %d)", path, line, k, seen[idx]);
    seen[idx] = line;
    if (*v == '\0') FA_FAIL(FA_EINVAL, "%s:%d: key %s has no value", path, line, k);
    if (idx == NAME) return set_text(path, line, idx, v, hw->name, sizeof hw->name);
    if (idx == KEY) return set_text(path, line, idx, v, hw->key, sizeof hw->key);
    if (idx == SOURCE) return set_text(path, line, idx, v, hw->source, sizeof hw->source);
    if (idx == PIPES_SOURCE) return set_text(path, line, idx, v, hw->pipes_source, sizeof hw->pipes_source);
    if (idx == WGMMA_LOAD) return parse_load_curve(path, line, v, hw);
    if (idx == LDSM_MMA) return parse_ldsm_overlap(path, line, v, hw);
    if (idx == T_SOFTMAX) return parse_rate_table(path, line, KEYS[idx].name, v, hw->torch_softmax_len, hw->torch_softmax_bw, &hw->torch_softmax_n);
    if (idx == T_ALL) return parse_rate_table(path, line, KEYS[idx].name, v, hw->torch_all_len, hw->torch_all_bw, &hw->torch_all_n);
    double x = 0;
    FA_TRY(parse_num(path, line, idx, v, &x));
    switch (idx) {
    case HBM_BW: hw->hbm_bandwidth = x; break;
    case SRAM_SM: hw->sram_per_sm = (uint64_t)x; break;
    case SRAM_BLOCK: hw->sram_per_block = (uint64_t)x; break;
    case SMS: hw->sms = (int)x; break;
    case L2_BYTES: hw->l2_bytes = (uint64_t)x; break;
    case PEAK16: hw->peak_fp16 = x; break;
    case PEAK32: hw->peak_fp32 = x; break;
    case HBM_CAP: hw->hbm_capacity = (uint64_t)x; break;
    case L2_PARTS: hw->l2_partitions = (int)x; break;
    case ARCH: hw->arch = (int)x; break;
    case CLOCK: hw->clock_hz = x; break;
    case REGS_SM: hw->regs_per_sm = (int)x; break;
    case REGS_THREAD: hw->regs_per_thread = (int)x; break;
    case THREADS_SM: hw->threads_per_sm = (int)x; break;
    case BLOCKS_SM: hw->blocks_per_sm = (int)x; break;
    case MMA_SYNC: hw->mma_sync_flops = x; break;
    case MMA_SYNC_CLOCK: hw->mma_sync_clock_hz = x; break;
    case WGMMA_CLOCK: hw->wgmma_clock_hz = x; break;
    case WGMMA: hw->wgmma_flops = x; break;
    case WGMMA8: hw->wgmma_fp8_flops = x; break;
    case TCGEN05: hw->tcgen05_flops = x; break;
    case TCGEN05_8: hw->tcgen05_fp8_flops = x; break;
    case TMEM: hw->tmem_per_sm = (uint64_t)x; break;
    case GEMM: hw->gemm_flops = x; break;
    case SGEMM: hw->sgemm_flops = x; break;
    case FMA: hw->fma_flops = x; break;
    case EXP: hw->exp_per_s = x; break;
    case SMEM_BW: hw->smem_bandwidth = x; break;
    case L2_BW: hw->l2_bandwidth = x; break;
    case DRAM_BW: hw->dram_bandwidth = x; break;
    case DRAM_LAT: hw->dram_latency_s = x; break;
    case L2_LAT: hw->l2_latency_s = x; break;
    case WAIT_CYC: hw->wgmma_wait_cycles = x; break;
    case BAR_CYC: hw->barrier_cycles = x; break;
    case LAUNCH: hw->launch_s = x; break;
    case ISSUE: hw->issue_per_sm_clk = x; break;
    case NVLINK: hw->nvlink_bandwidth = x; break;
    case TRANSPOSE: hw->transpose_copy_bandwidth = x; break;
    case T_SELECT: hw->torch_select_bandwidth = x; break;
    case T_UPCAST: hw->torch_upcast_bandwidth = x; break;
    default: break;
    }
    return FA_OK;
}

/* Reads profile file path; when want_key is not NULL, its `key` must be want_key. */
static fa_status load_file(const char *path, const char *want_key, fa_hw *hw)
{
    FA_TRY(fa_check_regular(path, "hardware profile"));
    FILE *f = fopen(path, "r");
    if (!f) FA_FAIL(FA_EIO, "cannot open hardware profile %s: %s", path, strerror(errno));
    memset(hw, 0, sizeof *hw);
    int seen[NKEYS] = {0};
    char line[HW_LINE_MAX + 2]; /* the characters, the newline, the NUL */
    int lineno = 0;
    fa_status st = FA_OK;
    int got;
    while (st == FA_OK && (got = fa_read_line(f, line, sizeof line)) != 0) {
        lineno++;
        if (got == -1) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:%d: line longer than %d characters (the limit)",
                          path, lineno, HW_LINE_MAX);
            break;
        }
        if (got == -2) {
            st = fa_error(FA_EINVAL, __FILE__, __LINE__, "%s:%d: a NUL byte ('\\x00'): a hardware profile is text, not binary",
                          path, lineno);
            break;
        }
        char *s = trim(line);
        if (*s == '\0' || *s == '#') continue;
        st = parse_line(path, lineno, s, seen, hw);
    }
    if (st == FA_OK && ferror(f)) st = fa_error(FA_EIO, __FILE__, __LINE__, "cannot read hardware profile %s", path);
    fclose(f);
    if (st) return st;
    for (int i = 0; i < NKEYS; i++)
        if (!KEYS[i].optional && !seen[i]) FA_FAIL(FA_EINVAL, "%s: missing key %s", path, KEYS[i].name);
    if (hw->sram_per_block > hw->sram_per_sm)
        FA_FAIL(FA_EINVAL, "%s:%d: sram_per_block_bytes = %llu exceeds sram_per_sm_bytes = %llu (line %d): a "
                "thread block cannot use more shared memory than its SM has",
                path, seen[SRAM_BLOCK], (unsigned long long)hw->sram_per_block,
                (unsigned long long)hw->sram_per_sm, seen[SRAM_SM]);
    if (hw->l2_partitions == 0) hw->l2_partitions = 1;
    const uint64_t set_bytes = (uint64_t)FA_HW_L2_LINE * FA_HW_L2_WAYS;
    const uint64_t sets = hw->l2_bytes / set_bytes, parts = (uint64_t)hw->l2_partitions;
    if (sets % parts) {
        char where[32] = "the default";
        if (seen[L2_PARTS]) snprintf(where, sizeof where, "line %d", seen[L2_PARTS]);
        FA_FAIL(FA_EINVAL, "%s:%d: l2_bytes = %llu makes %llu set%s of %d ways x %d-byte lines, which do "
                "not split into l2_partitions = %llu (%s): the L2 model takes l2_bytes / %llu sets, rounded down, and they must "
                "split evenly (a multiple of %llu bytes does)", path, seen[L2_BYTES],
                (unsigned long long)hw->l2_bytes, (unsigned long long)sets, sets == 1 ? "" : "s", FA_HW_L2_WAYS,
                FA_HW_L2_LINE,
                (unsigned long long)parts, where, (unsigned long long)set_bytes, (unsigned long long)(set_bytes * parts));
    }
    if ((hw->mma_sync_clock_hz > 0 || hw->wgmma_clock_hz > 0) && !(hw->clock_hz > 0))
        FA_FAIL(FA_EINVAL, "%s: mma_sync_clock_hz / wgmma_clock_hz need clock_hz (the clock the other rates hold at)", path);
    if (hw->mma_sync_clock_hz > hw->clock_hz || hw->wgmma_clock_hz > hw->clock_hz)
        FA_FAIL(FA_EINVAL, "%s:%d: %s = %g Hz exceeds clock_hz = %g Hz (line %d): a tensor pipe's clock under load is at "
                "most the clock the other pipes' rates were measured at", path,
                hw->mma_sync_clock_hz > hw->clock_hz ? seen[MMA_SYNC_CLOCK] : seen[WGMMA_CLOCK],
                hw->mma_sync_clock_hz > hw->clock_hz ? "mma_sync_clock_hz" : "wgmma_clock_hz",
                hw->mma_sync_clock_hz > hw->clock_hz ? hw->mma_sync_clock_hz : hw->wgmma_clock_hz, hw->clock_hz, seen[CLOCK]);
    if (want_key && strcmp(hw->key, want_key) != 0)
        FA_FAIL(FA_EINVAL, "%s:%d: key = '%s' differs from the profile requested, --hw %s (this file is "
                "read for %s only; the key must be '%s')", path, seen[KEY], hw->key, want_key, want_key,
                want_key);
    return FA_OK;
}

fa_status fa_hw_load_file(const char *path, fa_hw *hw) { return load_file(path, NULL, hw); }

fa_status fa_hw_load(const char *key, const char *dir, fa_hw *hw)
{
    if (!dir) dir = getenv("FASIM_HW_DIR");
    if (!dir || !*dir) dir = FASIM_HW_DIR; /* FASIM_HW_DIR= (set but empty) counts as unset */
    for (int i = 0; fa_hw_keys[i]; i++) {
        if (strcmp(key, fa_hw_keys[i]) == 0) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, hw_files[i]);
            return load_file(path, fa_hw_keys[i], hw);
        }
    }
    FA_FAIL(FA_EINVAL, "unknown hardware profile '%s' (known: a100, h100, h200, b200)", key);
}
