/* options.c -- the command line's one option table: every option of every command, the
 * commands that take it, its argument, and its help line.  Parsing goes through getopt_long
 * (with exact names: no abbreviations), so `--opt=value` and `--opt value` both work for every
 * option that takes a value, an option a command does not use is refused with the command's
 * name, and each command's --help lists exactly the options it takes (cli_help). */
#define _GNU_SOURCE /* getopt_long */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fa_file.h"
#include "fa_cp.h"
#include "fa_inference.h"

/* stdout carries help text: a closed pipe ends it quietly (cli_stdout_failed, in args.c, asks;
 * kept here, below args.c, so that the help printers here call no file that calls them) */
static int stdout_help;
void cli_stdout_is_help(void) { stdout_help = 1; }
int cli_stdout_help(void) { return stdout_help; }

char cli_where[256];

int cli_fail(fa_status s)
{
    const char *msg = fa_last_error();
    fprintf(stderr, "fasim: %s%s\n", cli_where, msg[0] ? msg : fa_strerror(s));
    /* bad input (including an unreadable input file) is 2; anything else that fails is 1 */
    return (s == FA_EINVAL || s == FA_ENOSRAM || s == FA_EOVERFLOW || s == FA_EIO) ? EXIT_USAGE : EXIT_RUN;
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fasim: %s", cli_where);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return EXIT_USAGE;
}

/* The commands (argv[1]) by bit. */
static const char *const CMD_NAMES[] = {"io", "sweep", "check", "compare", "explain", "animate", "report"};

#define SHAPE_CMDS (CMD_IO | CMD_SWEEP | CMD_CHECK | CMD_EXPLAIN | CMD_ANIMATE)
#define HW_CMDS (CMD_IO | CMD_SWEEP | CMD_CHECK | CMD_EXPLAIN | CMD_ANIMATE | CMD_COMPARE)
#define INFER_CMDS (CMD_IO | CMD_SWEEP | CMD_CHECK)
#define MASK_CMDS (SHAPE_CMDS & ~CMD_EXPLAIN) /* explain derives the unmasked, causal and windowed counts */

/* An option's argument: none (a flag; "--flag=x" is refused by its setter), a value, or an
 * optional value ("--causal", "--causal=top-left" or "--causal top-left"). */
enum { A_FLAG, A_VALUE, A_OPTIONAL };

/* One row of the table.  name NULL: a heading line of the help (printed before the first
 * following option a command takes).  help NULL: the option shares the line of the row
 * above. */
typedef struct {
    const char *name;
    int arg;
    unsigned cmds;
    int id;
    const char *help;
} cli_option;

#define H_SHAPE_BHK "  --batch B --heads H --kv-heads H_kv  (default 1, 1, H)\n"
static const cli_option TABLE[] = {
    {"algo", A_VALUE, SHAPE_CMDS & ~CMD_ANIMATE, O_ALGO, "  --algo standard|flash1|flash2|all   algorithms (comma list allowed; default all)\n"},
    {"algo", A_VALUE, CMD_ANIMATE, O_ALGO, "  --algo standard|flash1|flash2        the algorithm drawn (default flash2)\n"},
    {"batch", A_VALUE, SHAPE_CMDS, O_BATCH, H_SHAPE_BHK},
    {"heads", A_VALUE, SHAPE_CMDS, O_HEADS, NULL},
    {"kv-heads", A_VALUE, SHAPE_CMDS, O_KV_HEADS, NULL},
    {"seqlen", A_VALUE, SHAPE_CMDS & ~CMD_ANIMATE, O_SEQLEN, "  --seqlen N_q --seqlen-k N_k          (default 1024, N_q)\n"},
    {"seqlen", A_VALUE, CMD_ANIMATE, O_SEQLEN, "  --seqlen N_q --seqlen-k N_k          (default 256, N_q)\n"},
    {"seqlen-k", A_VALUE, SHAPE_CMDS, O_SEQLEN_K, NULL},
    {"headdim", A_VALUE, SHAPE_CMDS, O_HEADDIM, "  --headdim d --headdim-v d_v          (default 64, d)\n"},
    {"headdim-v", A_VALUE, SHAPE_CMDS, O_HEADDIM_V, NULL},
    {"dtype", A_VALUE, SHAPE_CMDS & ~CMD_CHECK, O_DTYPE,
     "  --dtype fp32|fp16|bf16|fp8_e4m3|fp8_e5m2  element size of Q,K,V,O,S,P (default fp16;\n"
     "                                       fp8 and e4m3 are aliases of fp8_e4m3, e5m2 of fp8_e5m2)\n"},
    {"dtype", A_VALUE, CMD_CHECK, O_DTYPE,
     "  --dtype fp32|fp16|bf16|fp8_e4m3|fp8_e5m2  emulate every algorithm in that precision (fp8 and\n"
     "                                       e4m3 are aliases of fp8_e4m3, e5m2 of fp8_e5m2); without\n"
     "                                       it check runs fp64 throughout against the fp64 reference\n"
     "                                       (the tiles of --blocks fit still sized for fp16's 2 B)\n"},
    {"causal", A_OPTIONAL, SHAPE_CMDS, O_CAUSAL,
     "  --causal[=bottom-right|top-left]     causal mask (default anchor bottom-right)\n"},
    {"scale", A_VALUE, SHAPE_CMDS, O_SCALE, "  --scale X                            softmax scale (default 1/sqrt(d))\n"},
    {"model", A_VALUE, CMD_IO | CMD_SWEEP | CMD_EXPLAIN, O_MODEL,
     "  --model FILE                         heads, kv heads, head dim, dtype, N from a config.json\n"},
    {"hw", A_VALUE, HW_CMDS, O_HW,
     "  --hw a100|h100|h200|b200             hardware profile (default h200; files in sim/hw or\n"
     "                                       $FASIM_HW_DIR, docs/conventions.md; b200: datasheet\n"
     "                                       figures only, no B200 measured here: its times are\n"
     "                                       predictions)\n"},
    {"sram", A_VALUE, HW_CMDS, O_SRAM,
     "  --sram BYTES                         SRAM size M, a whole number of bytes or of a unit:\n"
     "                                       K = KiB = 1024, M = MiB, GiB binary; KB = 1000,\n"
     "                                       MB, GB decimal (default: the profile's shared\n"
     "                                       memory per thread block)\n"},
    {"block-r", A_VALUE, CMD_IO | CMD_EXPLAIN, O_BLOCK_R, "  --block-r B_r --block-c B_c          explicit tile sizes, counted in the paper's model, and\n"
     "                                       the time model times each kernel on them\n"},
    {"block-c", A_VALUE, CMD_IO | CMD_EXPLAIN, O_BLOCK_C, NULL},
    /* check runs the algorithms numerically: the tiles set the order of the sums, nothing is timed */
    {"block-r", A_VALUE, CMD_CHECK, O_BLOCK_R, "  --block-r B_r --block-c B_c          the tiles every algorithm (and --decode's kernels) runs\n"
     "                                       on numerically: they set the blocked order of its sums,\n"
     "                                       hence its rounding, and with --fp8-quant block the\n"
     "                                       quantization blocks; no HBM count, no time model\n"},
    {"block-c", A_VALUE, CMD_CHECK, O_BLOCK_C, NULL},
    /* animate draws the tiles of one slice */
    {"block-r", A_VALUE, CMD_ANIMATE, O_BLOCK_R, "  --block-r B_r --block-c B_c          the tiles drawn: one frame per transfer of a B_r x B_c\n"
     "                                       tile, the heatmap's cells per tile (T_r, T_c at most 16\n"
     "                                       each); nothing is timed\n"},
    {"block-c", A_VALUE, CMD_ANIMATE, O_BLOCK_C, NULL},
    /* sweep counts in the paper's model only: no time model to time the tiles */
    {"block-r", A_VALUE, CMD_SWEEP, O_BLOCK_R, "  --block-r B_r --block-c B_c          explicit tile sizes, counted in the paper's model (sweep\n"
     "                                       runs no time model: time_s is the roofline)\n"},
    {"block-c", A_VALUE, CMD_SWEEP, O_BLOCK_C, NULL},
    /* compare takes its tiles from the file: it names these options in its refusal */
    {"block-r", A_VALUE, CMD_COMPARE, O_BLOCK_R, NULL},
    {"block-c", A_VALUE, CMD_COMPARE, O_BLOCK_C, NULL},
    {"blocks", A_VALUE, CMD_IO | CMD_EXPLAIN, O_BLOCKS,
     "  --blocks fit|paper                   tile rule in the paper's model (fit: the largest multiples\n"
     "                                       of 16 that fit M; paper: Algorithm 1 line 1), counted in\n"
     "                                       the paper's model as --block-r/--block-c are, except fit\n"
     "                                       with --profile KEY: KEY's tile table; without it and\n"
     "                                       --block-r/--block-c, the kernel profile's tile table\n"},
    {"blocks", A_VALUE, CMD_SWEEP | CMD_CHECK, O_BLOCKS,
     "  --blocks fit|paper                   tile rule in the paper's model (fit: the largest multiples\n"
     "                                       of 16 that fit M, the default; paper: Algorithm 1 line 1)\n"},
    {"blocks", A_VALUE, CMD_ANIMATE, O_BLOCKS,
     "  --blocks fit|paper                   tile rule in the paper's model (fit: the largest multiples\n"
     "                                       of 16 that fit M; paper: Algorithm 1 line 1); the default\n"
     "                                       (no --blocks, --block-r, --block-c): 4 x 4 tiles,\n"
     "                                       B_r = ceil(N_q / 4), B_c = ceil(N_k / 4)\n"},
    {"blocks", A_VALUE, CMD_COMPARE, O_BLOCKS,
     "  --blocks fit                         a row without block_r, block_c whose profile has no tile\n"
     "                                       table: the largest tiles that fit M (paper is refused)\n"},
    {"profile", A_VALUE, CMD_IO | CMD_EXPLAIN, O_PROFILE,
     "  --profile KEY                        the kernel whose tiles, placement (registers or shared\n"
     "                                       memory) and pipes the time model uses (keys: the list\n"
     "                                       below), or paper (the paper's model: every buffer in\n"
     "                                       one SRAM of M, tiles by --blocks fit).\n"
     "                                       Default: each algorithm's kernel (standard: eager,\n"
     "                                       flash1: fa1, flash2: fa2) with its tile table; --blocks or\n"
     "                                       --block-r/--block-c count in the paper's model, and the\n"
     "                                       time model times each kernel on those tiles, except\n"
     "                                       --blocks fit with --profile KEY: KEY's tile table (fa2\n"
     "                                       on a grid too small for the GPU: FlashAttention-2's\n"
     "                                       split-KV kernel, counted and timed as such)\n"},
    {"pass", A_VALUE, CMD_IO | CMD_SWEEP | CMD_EXPLAIN, O_PASS,
     "  --pass fwd|bwd|fwdbwd                forward, backward (recomputation), or both (default fwd)\n"},
    {"format", A_VALUE, CMD_IO | CMD_CHECK | CMD_COMPARE, O_FORMAT,
     "  --format table|csv|json              output format (default table)\n"},
    {"format", A_VALUE, CMD_SWEEP, O_FORMAT, "  --format csv|json                    output format (default csv)\n"},
    {"breakdown", A_FLAG, CMD_IO | CMD_SWEEP, O_BREAKDOWN, "  --breakdown                          bytes per tensor\n"},
    {"trace", A_VALUE, CMD_IO, O_TRACE, "  --trace FILE                         CSV of every transfer (one algorithm only)\n"},
    {"l2", A_FLAG, CMD_IO | CMD_SWEEP, O_L2,
     "  --l2                                 also predict DRAM bytes with the L2 model (thread\n"
     "                                       blocks in waves over the SMs, the profile's L2)\n"},
    {"out", A_VALUE, CMD_SWEEP, O_OUT, "  --out FILE                           write the result to FILE (default stdout); its folder\n"
                                                  "                                       must exist (it is not created)\n"},
    {"quiet", A_FLAG, CMD_SWEEP, O_QUIET, "  --quiet                              no progress line on a terminal's stderr\n"},
    /* sweep */
    {"vary", A_VALUE, CMD_SWEEP, O_VARY, NULL},
    /* check: tolerance, external tensors, low precision, studies */
    {"tol", A_VALUE, CMD_CHECK, O_TOL, "  --tol T                              fp64 check: a configuration passes when rel <= T (1e-10)\n"},
    {"q", A_VALUE, CMD_CHECK, O_C_Q, "  --q FILE --k FILE --v FILE --out FILE  an external kernel's tensors (.npy; docs/validate.md)\n"},
    {"k", A_VALUE, CMD_CHECK, O_C_K, NULL},
    {"v", A_VALUE, CMD_CHECK, O_C_V, NULL},
    {"out", A_VALUE, CMD_CHECK, O_C_OUT, NULL},
    {"lse", A_VALUE, CMD_CHECK, O_C_LSE, "  --lse FILE --dout FILE --dq FILE --dk FILE --dv FILE  its LSE and its gradients\n"},
    {"dout", A_VALUE, CMD_CHECK, O_C_DOUT, NULL},
    {"dq", A_VALUE, CMD_CHECK, O_C_DQ, NULL},
    {"dk", A_VALUE, CMD_CHECK, O_C_DK, NULL},
    {"dv", A_VALUE, CMD_CHECK, O_C_DV, NULL},
    {"layout", A_VALUE, CMD_CHECK, O_C_LAYOUT, "  --layout bhnd|bnhd                   the .npy files' layout (default bhnd)\n"},
    {"bf16", A_FLAG, CMD_CHECK, O_C_BF16, "  --bf16                               16-bit integer .npy data holds bfloat16 bits\n"},
    {"pass", A_VALUE, CMD_CHECK, O_C_PASS, "  --pass fwd|bwd                       bwd: check the gradients too (with --dtype; 3x rule)\n"},
    {"exp2", A_FLAG, CMD_CHECK, O_C_EXP2, "  --exp2                               log2(e) folded into the scale, exp2 in the softmax\n"},
    {"acc", A_VALUE, CMD_CHECK, O_C_ACC, "  --acc fp32|fp64                      the emulation's accumulator (default fp32)\n"},
    {"inputs", A_VALUE, CMD_CHECK, O_C_INPUTS,
     "  --inputs normal|outliers             with --dtype: Q, K, V entries N(0,1) (default), or N(0,1) plus,\n"
     "                                       for 0.1 % of them, an extra N(0, 10^2) term (FlashAttention-3)\n"},
    {"fp8-quant", A_VALUE, CMD_CHECK, O_C_FP8_QUANT,
     "  --fp8-quant tensor|block             with --dtype fp8_e4m3: one power-of-two scale per tensor, or per\n"
     "                                       block of B_r x d (Q) and B_c x d (K, V) rows, the tiles (default\n"
     "                                       128 x 128 with a shape; --block-r/--block-c)\n"},
    {"hadamard", A_FLAG, CMD_CHECK, O_C_HADAMARD,
     "  --hadamard [--hadamard-seed S]       with --dtype fp8_e4m3: incoherent processing, Q and K times\n"
     "                                       diag(+-1) H_d / sqrt(d) before quantizing (d a power of two;\n"
     "                                       signs from SplitMix64 of S + i, default S = 0)\n"},
    {"hadamard-seed", A_VALUE, CMD_CHECK, O_C_HADAMARD_SEED, NULL},
    {"study", A_VALUE, CMD_CHECK, O_C_STUDY, "  --study DIR                          the error study: CSV + PNG (see above); DIR is created\n"
                                                     "                                       if missing (its parent must exist)\n"},
    {"no-plots", A_FLAG, CMD_CHECK, O_C_NO_PLOTS, "  --no-plots                           with --study: the CSVs only\n"},
    {"quiet", A_FLAG, CMD_CHECK, O_QUIET,
     "  --quiet                              with --study, --dtype or --save-npy: no progress and no\n"
     "                                       \"wrote\" line\n"},
    {"save-npy", A_VALUE, CMD_CHECK, O_C_SAVE_NPY, "  --save-npy DIR                       write a sample problem as .npy files (DIR created if\n"
     "                                       missing; its parent must exist)\n"},
    /* compare */
    {"measured", A_VALUE, CMD_COMPARE, O_MEASURED,
     "  --measured FILE                      the CSV of measured kernels (required; columns above)\n"},
    {"no-l2", A_FLAG, CMD_COMPARE, O_NO_L2,
     "  --no-l2                              skip the L2 model's replay (DRAM columns '-')\n"},
    {"kernel-profile", A_VALUE, CMD_COMPARE, O_KERNEL_PROFILE,
     "  --kernel-profile KERNEL=PROFILE[,...]  time the rows of kernel KERNEL (the kernel column, exactly)\n"
     "                                       with PROFILE instead of the one its name stands for (a file\n"
     "                                       measured before a kernel changed: v5_bwd=v5_bwd_cfg0,\n"
     "                                       v5_bwd_det=v5_bwd_cfg0 -- a KEY_det row is its own kernel);\n"
     "                                       at most 8, each naming a row of the file; given once\n"},
    /* animate */
    {"out-dir", A_VALUE, CMD_ANIMATE, O_OUT_DIR, "  --out-dir DIR                        where the frames go (required; created if missing,\n"
                                                       "                                       its parent must exist)\n"},
    {"delay", A_VALUE, CMD_ANIMATE, O_DELAY, "  --delay CENTISECONDS                 GIF frame delay (1 to 1000, default 40)\n"},
    {"heatmap", A_FLAG, CMD_ANIMATE, O_HEATMAP,
     "  --heatmap                            reads and writes per tile, flash1 vs flash2 (no frames)\n"},
    /* report: its own meanings (several models and GPUs; N per model) */
    {"model", A_VALUE, CMD_REPORT, O_R_MODEL, "  --model FILE                         a model's config.json (repeatable; default: analysis/models/)\n"},
    {"hw", A_VALUE, CMD_REPORT, O_R_HW, "  --hw a100|h100|h200|b200             a hardware profile (repeatable; default a100, h100, h200;\n"
     "                                       b200: datasheet figures only, its times are predictions)\n"},
    {"seqlen", A_VALUE, CMD_REPORT, O_R_SEQLEN, "  --seqlen N                           N for every model (default: its max_position_embeddings)\n"},
    {"batch", A_VALUE, CMD_REPORT, O_R_BATCH, "  --batch B                            (default 1)\n"},
    {"pass", A_VALUE, CMD_REPORT, O_R_PASS, "  --pass fwd|bwd|fwdbwd                the pass of the tables (default fwd)\n"},
    {"out-dir", A_VALUE, CMD_REPORT, O_R_OUT_DIR, "  --out-dir DIR                        where the CSV and plots go (default build/report;\n"
                                                      "                                       created if missing, its parent must exist)\n"},
    {"no-plots", A_FLAG, CMD_REPORT, O_R_NO_PLOTS, "  --no-plots                           the CSVs only, no PNG (no gnuplot)\n"},
    {"quiet", A_FLAG, CMD_REPORT, O_R_QUIET, "  --quiet                              nothing on stdout (no tables, no \"wrote\" lines): the\n"
     "                                       files only (errors still go to stderr)\n"},
    {NULL, 0, SHAPE_CMDS, 0, "masks and score modifiers (docs/variants.md):\n"},
    {"window", A_VALUE, SHAPE_CMDS, O_WINDOW,
     "  --window L,R                         sliding window: keys c-L..c+R of row i, c = i + N_k - N_q\n"
     "                                       (-1: unbounded on that side)\n"},
    {"softcap", A_VALUE, SHAPE_CMDS, O_SOFTCAP, "  --softcap C                          S <- C tanh(S / C) after the scale\n"},
    {"alibi", A_FLAG, SHAPE_CMDS, O_ALIBI, "  --alibi                              ALiBi bias -slope_h |i + N_k - N_q - j|\n"},
    {"block-mask", A_VALUE, MASK_CMDS, O_BLOCK_MASK,
     "  --block-mask FILE                    block-sparse mask: \"block_r block_c\", then rows of 0/1\n"},
    {"col-mask", A_VALUE, MASK_CMDS, O_COL_MASK,
     "  --col-mask FILE                      FlashMask column mask: N_k lines \"lo1 hi1 [lo2 hi2]\"\n"},
    {"doc-mask", A_VALUE, MASK_CMDS, O_DOC_MASK,
     "  --doc-mask L1,L2,...                 causal mask of packed documents (sum of L = N_q = N_k), built as\n"
     "                                       a FlashMask column mask (CSV and JSON: mask \"column mask\")\n"},
    {"mask", A_VALUE, MASK_CMDS, O_MASK,
     "  --mask FILE                          dense 0/1 mask, N_q rows of N_k (read from HBM too)\n"},
    {"dropout", A_VALUE, SHAPE_CMDS, O_DROPOUT,
     "  --dropout p --seed S                 dropout probability p in [0, 1), Philox seed (default 42;\n"
     "                                       --seed without --dropout: check only, the inputs' seed)\n"},
    {"seed", A_VALUE, SHAPE_CMDS, O_SEED, NULL},
    {"rescale-threshold", A_VALUE, SHAPE_CMDS & ~CMD_ANIMATE, O_RESCALE_THRESHOLD,
     "  --rescale-threshold T                flash2: rescale O, l only when m grows by > T (log2;\n"
     "                                       FlashAttention-4: 8; default 0 = every tile)\n"},
    {NULL, 0, INFER_CMDS, 0, "inference (docs/inference.md):\n"},
    {"decode", A_FLAG, INFER_CMDS, O_DECODE,
     "  --decode --kv-len N                  KV-cache decoding: N_q = --seqlen (default 1), N_k = N\n"},
    {"kv-len", A_VALUE, INFER_CMDS, O_KV_LEN, NULL},
    {"splits", A_VALUE, INFER_CMDS, O_SPLITS, "  --splits S|auto                      split-KV chunks (Flash-Decoding; default auto)\n"},
    {"gqa", A_VALUE, INFER_CMDS, O_GQA, "  --gqa per-head|packed|both           loop order for GQA decoding (default both)\n"},
    {"page-size", A_VALUE, INFER_CMDS, O_PAGE_SIZE, "  --page-size P                        paged KV cache (PagedAttention), P tokens a page\n"},
    {"cu-seqlens", A_VALUE, INFER_CMDS, O_CU_SEQLENS,
     "  --cu-seqlens LIST|FILE [--cu-seqlens-k LIST|FILE]  variable-length batch (0,5,5,37,...)\n"},
    {"cu-seqlens-k", A_VALUE, INFER_CMDS, O_CU_SEQLENS_K, NULL},
    {NULL, 0, CMD_IO, 0, "context parallelism (docs/context-parallel.md):\n"},
    {"cp", A_VALUE, CMD_IO, O_CP,
     "  --cp P                               one layer's forward over P GPUs (1 to 1024): per-GPU HBM\n"
     "                                       bytes, NVLink bytes, memory and time of each scheme\n"},
    {"cp-scheme", A_VALUE, CMD_IO, O_CP_SCHEME,
     "  --cp-scheme ring|zigzag|allgather|ulysses  one scheme (default: all four)\n"},
    {"help", A_FLAG, ~0u, O_HELP, NULL}, /* and -h: each command prints its help before parsing */
};
enum { NTABLE = (int)(sizeof TABLE / sizeof TABLE[0]) };

/* 1 when text has a blank (space, tab, newline ...) anywhere: option values are refused with
 * one rather than trimmed, by every number parser alike. */
static int has_blank(const char *text)
{
    for (const char *p = text; *p; p++)
        if (isspace((unsigned char)*p)) return 1;
    return 0;
}

int cli_int(const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out)
{
    if (!val) return cli_usage("%s needs a value", opt);
    const char *why = has_blank(val) ? " (digits only: no blanks)" : "";
    errno = 0;
    char *end = (char *)val;
    long long v = *why || !(*val >= '0' && *val <= '9') ? 0 : strtoll(val, &end, 10);
    if (end == val || errno == ERANGE || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "fasim: %s = '%s' must be an integer in [%" PRId64 ", %" PRId64 "]%s\n", opt, val, lo,
                hi, why);
        return EXIT_USAGE;
    }
    *out = v;
    return 0;
}

int cli_positive(const char *opt, const char *val, double *out)
{
    if (!val) return cli_usage("%s needs a value", opt);
    errno = 0;
    char *end = (char *)val;
    double v = has_blank(val) ? 0 : strtod(val, &end);
    if (has_blank(val) || !fa_is_decimal(val) || errno || end == val || *end != '\0' || !isfinite(v) || v <= 0) {
        fprintf(stderr, "fasim: %s = '%s' is not a positive finite number%s\n", opt, val,
                has_blank(val) ? " (no blanks)" : "");
        return EXIT_USAGE;
    }
    *out = v;
    return 0;
}

#define DIM_MAX ((int64_t)INT32_MAX)

/* the suffixes cli_parse_bytes takes, as its messages list them (its table below) */
#define BYTE_SUFFIXES "B, KiB or K, MiB or M, GiB (powers of 1024), KB, MB, GB (powers of 1000)"

fa_status cli_parse_bytes(const char *text, uint64_t *out)
{
    const char *p = text;
    for (const char *q = text; *q; q++) /* refused, not trimmed: as every integer of the command line */
        if (isspace((unsigned char)*q))
            FA_FAIL(FA_EINVAL, "byte size '%s' has a blank: give the digits and the suffix alone, e.g. 227KiB", text);
    if (!isdigit((unsigned char)*p))
        FA_FAIL(FA_EINVAL, "'%s' is not a byte size (a whole number of bytes, or of a unit with its suffix: "
                BYTE_SUFFIXES ")", text);
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) { /* as --scale and the integers: decimal digits only */
        errno = 0;
        char *hx;
        unsigned long long h = strtoull(p + 2, &hx, 16);
        if (hx != p + 2 && *hx == '\0' && errno != ERANGE)
            FA_FAIL(FA_EINVAL, "byte size '%s' is hexadecimal, which is not accepted: give it in decimal (%s = %llu), "
                    "with or without a suffix: " BYTE_SUFFIXES, text, text, h);
        FA_FAIL(FA_EINVAL, "byte size '%s' is not accepted: hexadecimal is not read; give a decimal whole number with "
                "or without a suffix: " BYTE_SUFFIXES, text);
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE) FA_FAIL(FA_EINVAL, "byte size '%s' exceeds 64 bits", text);
    if (*end == '.' || *end == ',')
        FA_FAIL(FA_EINVAL, "byte size '%s' has a fraction: fractions are not taken, the value must be a whole "
                "number of bytes or of its unit (e.g. 1536 or 1536B for 1.5KiB)", text);
    static const struct {
        const char *suf;
        uint64_t mul;
    } sufs[] = {{"", 1},     {"B", 1},        {"KiB", 1024},         {"MiB", 1024 * 1024}, {"GiB", 1024ull * 1024 * 1024},
                {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000ull}, {"K", 1024},          {"M", 1024 * 1024}};
    for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++) {
        if (strcmp(end, sufs[i].suf) == 0) {
            uint64_t r;
            if (__builtin_mul_overflow((uint64_t)v, sufs[i].mul, &r)) FA_FAIL(FA_EINVAL, "byte size '%s' exceeds 64 bits", text);
            *out = r;
            return FA_OK;
        }
    }
    FA_FAIL(FA_EINVAL, "'%s' has an unknown size suffix '%s' (use " BYTE_SUFFIXES ")", text, end);
}

/* Sets one of the shared options (ids below O_OWN) from its value (NULL: none given).
 * Returns 0 or EXIT_USAGE (message printed). */
static int set_shared(cli_opts *o, int id, const char *name, const char *val)
{
    int64_t v;
    switch (id) {
    case O_BATCH: case O_HEADS: case O_KV_HEADS: case O_SEQLEN: case O_SEQLEN_K: case O_HEADDIM: case O_HEADDIM_V:
        if (cli_int(name, val, 1, DIM_MAX, &v)) return EXIT_USAGE;
        if (id == O_BATCH) o->shape.batch = v;
        else if (id == O_HEADS) o->shape.heads = v;
        else if (id == O_KV_HEADS) o->shape.kv_heads = v;
        else if (id == O_SEQLEN) o->shape.seqlen_q = v;
        else if (id == O_SEQLEN_K) o->shape.seqlen_k = v;
        else if (id == O_HEADDIM) o->shape.d = v;
        else o->shape.d_v = v;

        return 0;
    case O_CAUSAL:
        if (!val || strcmp(val, "bottom-right") == 0) o->shape.causal = FA_CAUSAL_BOTTOM_RIGHT;
        else if (strcmp(val, "top-left") == 0) o->shape.causal = FA_CAUSAL_TOP_LEFT;
        else return cli_usage("--causal=%s: use --causal, --causal=bottom-right or --causal=top-left", val);
        return 0;
    case O_WINDOW: {
        long long L, R;
        char junk;
        if (!val || has_blank(val) || strchr(val, '+') || sscanf(val, "%lld,%lld%c", &L, &R, &junk) != 2 ||
            L < -1 || R < -1 || (L < 0 && R < 0))
            return cli_usage("--window '%s' must read LEFT,RIGHT: integers >= -1 (-1: unbounded), one of them >= 0",
                             val ? val : "");
        if (L > INT32_MAX || R > INT32_MAX)
            return cli_usage("--window '%s': %s = %lld exceeds %d (the largest window side taken)", val,
                             L > INT32_MAX ? "LEFT" : "RIGHT", L > INT32_MAX ? L : R, INT32_MAX);
        if (0)
            return cli_usage("--window '%s' must read LEFT,RIGHT: integers >= -1 (-1: unbounded), one of them >= 0",
                             val ? val : "");
        o->shape.window = 1;
        o->shape.window_left = L;
        o->shape.window_right = R;
        return 0;
    }
    case O_SOFTCAP: return cli_positive(name, val, &o->shape.softcap);
    case O_SCALE: return cli_positive(name, val, &o->shape.scale);
    case O_ALIBI: o->shape.alibi = 1; return 0;
    case O_BLOCK_MASK: case O_COL_MASK: case O_MASK:
        if (id == O_BLOCK_MASK) o->block_mask_path = val;
        else if (id == O_COL_MASK) o->col_mask_path = val;
        else o->dense_mask_path = val;
        return 0;
    case O_DOC_MASK: {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s", val);
        size_t bl = strlen(buf);
        if (buf[0] == ',' || buf[bl - 1] == ',' || strstr(buf, ",,")) return cli_usage("--doc-mask '%s' has an empty item", val);
        o->n_docs = 0;
        for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (o->n_docs >= 256) return cli_usage("--doc-mask: at most 256 documents");
            if (cli_int("--doc-mask", t, 1, INT32_MAX, &o->doc_len[o->n_docs])) return EXIT_USAGE;
            o->n_docs++;
        }
        return 0;
    }
    case O_DTYPE: {
        fa_dtype t;
        if (fa_dtype_parse(val, &t)) return cli_fail(FA_EINVAL);
        o->shape.dtype = t;
        return 0;
    }
    case O_ALGO:
        o->algo_given = 1;
        if (strcmp(val, "all") == 0) {
            for (int k = 0; k < FA_NALGO; k++) o->algos[k] = k;
            o->n_algos = FA_NALGO;
        } else { /* a comma-separated list is accepted too */
            char buf[128];
            snprintf(buf, sizeof buf, "%s", val);
            size_t bl = strlen(buf);
            if (!bl || buf[0] == ',' || buf[bl - 1] == ',' || strstr(buf, ",,"))
                return cli_usage("--algo '%s' has an empty item", val);
            o->n_algos = 0;
            for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                fa_algo al;
                if (!strcmp(t, "all")) /* 'all' is a whole value, not a list item */
                    return cli_usage("--algo '%s': 'all' stands alone (or list the algorithms)", val);
                if (fa_algo_parse(t, &al)) return cli_fail(FA_EINVAL);
                for (int q = 0; q < o->n_algos; q++)
                    if (o->algos[q] == (int)al)
                        return cli_usage("--algo '%s' names %s twice (name each algorithm once)", val, t);
                if (o->n_algos < FA_NALGO) o->algos[o->n_algos++] = al;
            }
            if (o->n_algos == 0) return cli_usage("--algo '%s' names no algorithm", val);
        }
        return 0;
    case O_HW:
        snprintf(o->hw_key, sizeof o->hw_key, "%s", val);
        if (strlen(val) >= sizeof o->hw_key) return cli_usage("unknown hardware profile '%s' (known: a100, h100, h200, b200)", val);
        return 0;
    case O_SRAM:
        if (cli_parse_bytes(val, &o->sram)) {
            fprintf(stderr, "fasim: --sram: %s\n", fa_last_error());
            return EXIT_USAGE;
        }
        if (o->sram == 0) return cli_usage("--sram = '%s' must be > 0 bytes", val);
        if (o->sram > (1ull << 40)) /* beyond any chip by far; the bound's arithmetic degrades */
            return cli_usage("--sram = '%s' is above the limit of 1 TiB", val);

        return 0;
    case O_BLOCK_R: case O_BLOCK_C:
        if (cli_int(name, val, 1, 1 << 20, &v)) return EXIT_USAGE;
        if (id == O_BLOCK_R) o->block_r = v;
        else o->block_c = v;
        return 0;
    case O_BLOCKS:
        if (strcmp(val, "fit") == 0) o->blocks = BLOCKS_FIT;
        else if (strcmp(val, "paper") == 0) o->blocks = BLOCKS_PAPER;
        else return cli_usage("--blocks '%s' is not one of fit, paper", val);

        return 0;
    case O_PROFILE:
        if (fa_profile_parse(val, &o->profile)) return cli_fail(FA_EINVAL);
        return 0;
    case O_FORMAT:
        if (strcmp(val, "table") == 0) o->format = FMT_TABLE;
        else if (strcmp(val, "csv") == 0) o->format = FMT_CSV;
        else if (strcmp(val, "json") == 0) o->format = FMT_JSON;
        else return cli_usage("--format '%s' is not one of table, csv, json", val);

        return 0;
    case O_MODEL: /* one model config (fasim report, its own option, takes several) */
        if (o->model_path)
            return strcmp(o->model_path, val) ? cli_usage("--model given twice ('%s', then '%s'): give one model config "
                                                          "(only fasim report takes several)", o->model_path, val)
                                              : cli_usage("--model %s given twice (give it once)", val);
        o->model_path = val;
        return 0;
    case O_TRACE:
        o->trace_path = val;
        return 0;
    case O_BREAKDOWN: o->breakdown = 1; return 0;
    case O_OUT:
        o->out_path = val;
        return 0;
    case O_DROPOUT: {
        char *end = NULL;
        double p = val && !has_blank(val) ? strtod(val, &end) : -1;
        if (!val || has_blank(val) || !fa_is_decimal(val) || end == val || *end != '\0' || !(p >= 0 && p < 1))
            return cli_usage("--dropout '%s' must be a probability p in [0, 1)", val ? val : "");
        o->shape.dropout_p = p;
        return 0;
    }
    case O_RESCALE_THRESHOLD: {
        char *end = NULL;
        double t = val && !has_blank(val) ? strtod(val, &end) : -1;
        if (!val || has_blank(val) || !fa_is_decimal(val) || end == val || *end != '\0' || !(t >= 0 && isfinite(t)))
            return cli_usage("--rescale-threshold '%s' must be a finite number >= 0 (log2 units)", val ? val : "");
        o->shape.rescale_threshold = t;
        return 0;
    }
    case O_SEED:
        if (cli_int(name, val, 0, INT32_MAX, &v)) return EXIT_USAGE;
        o->seed = (unsigned long)v;
        o->shape.dropout_seed = (uint64_t)v;
        return 0;
    case O_TOL: return cli_positive(name, val, &o->tol);
    case O_PASS:
        if (fa_pass_parse(val, &o->pass)) return cli_fail(FA_EINVAL);
        return 0;
    case O_L2: o->l2 = 1; return 0;
    case O_CP: return cli_int(name, val, 1, FA_CP_MAX_P, &o->cp);
    case O_CP_SCHEME: {
        fa_cp_scheme sc;
        if (fa_cp_scheme_parse(val, &sc)) return cli_fail(FA_EINVAL);
        o->cp_scheme = (int)sc;
        return 0;
    }
    case O_QUIET: o->quiet = 1; return 0;
    case O_DECODE: o->decode = 1; return 0;
    case O_KV_LEN: case O_SPLITS: case O_GQA: case O_PAGE_SIZE: case O_CU_SEQLENS: case O_CU_SEQLENS_K: {
        /* a missing value: the next argument is another option (`--gqa --kv-heads 8`) */
        if (val[0] == '-' && val[1] == '-')
            return cli_usage("%s needs a value%s (got the option '%s')", name, id == O_GQA ? ": per-head, packed or both" : "",
                             val);
        if (id == O_KV_LEN) return cli_int(name, val, 1, INT32_MAX, &o->kv_len);
        if (id == O_SPLITS) {
            o->splits_auto = !strcmp(val, "auto");
            o->splits = 0;
            return o->splits_auto ? 0 : cli_int(name, val, 1, INT32_MAX, &o->splits);
        }
        if (id == O_PAGE_SIZE) {
            if (!strcmp(val, "0")) return cli_usage("--page-size 0: a page holds at least one token (1 to 2147483647)");
            if (cli_int(name, val, 1, INT32_MAX, &v)) return EXIT_USAGE;
            o->page_size = v;
            o->paged = 1;
            return 0;
        }
        if (id == O_GQA) {
            if (!strcmp(val, "both")) o->gqa = 0;
            else if (!strcmp(val, "per-head")) o->gqa = 1;
            else if (!strcmp(val, "packed")) o->gqa = 2;
            else return cli_usage("--gqa '%s' is not one of per-head, packed, both", val);
            return 0;
        }
        const int which = id == O_CU_SEQLENS_K; /* the offsets live until the process ends */
        static int64_t cu[2][CLI_MAX_SEQ + 1];
        fa_status st = fa_cu_seqlens_parse(name, val, cu[which], CLI_MAX_SEQ, &o->n_cu[which]);
        if (st) return cli_fail(st);
        o->cu[which] = cu[which];
        if (!which) o->varlen = 1;
        return 0;
    }
    }
    return cli_usage("%s: no parser (an entry of the option table without a case)", name);
}

static unsigned cmd_bit(const char *cmd)
{
    for (int i = 0; i < (int)(sizeof CMD_NAMES / sizeof CMD_NAMES[0]); i++)
        if (!strcmp(cmd, CMD_NAMES[i])) return 1u << i;
    return 0;
}

void cli_defaults(cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->shape = fa_shape_default(-1, -1);
    o->shape.batch = o->shape.heads = o->shape.kv_heads = -1;
    o->shape.seqlen_q = o->shape.seqlen_k = o->shape.d = o->shape.d_v = -1;
    o->shape.dtype = (fa_dtype)-1;
    o->block_r = o->block_c = -1;
    o->blocks = BLOCKS_FIT;
    o->n_algos = 0;
    snprintf(o->hw_key, sizeof o->hw_key, "h200");
    o->seed = 42;
    o->shape.dropout_seed = 42;
    o->tol = 1e-10;
    o->n_cu[0] = o->n_cu[1] = -1;
    o->cp_scheme = -1;
}

int cli_takes(const char *cmd, const char *name)
{
    unsigned bit = cmd_bit(cmd);
    for (int i = 0; i < NTABLE; i++)
        if (TABLE[i].name && (TABLE[i].cmds & bit) && !strcmp(TABLE[i].name, name)) return 1;
    return 0;
}

void cli_help(FILE *f, const char *cmd, const char *head, const char *tail)
{
    if (f == stdout) cli_stdout_is_help();
    unsigned bit = cmd_bit(cmd);
    fputs(head, f);
    for (int i = 0; i < NTABLE; i++) {
        const cli_option *t = &TABLE[i];
        if (!(t->cmds & bit) || !t->help) continue;
        if (!t->name) { /* a heading, when an option of its group follows */
            int any = 0;
            for (int j = i + 1; j < NTABLE && TABLE[j].name; j++) any |= (TABLE[j].cmds & bit) != 0;
            if (!any) continue;
        }
        fputs(t->help, f);
        if (t->id == O_PROFILE) { /* the keys, from the profile table itself */
            const char *ind = "                                       ";
            size_t col = (size_t)fprintf(f, "%skeys:", ind);
            for (int k = 0; k < fa_nprofiles; k++) {
                const size_t w = strlen(fa_profiles[k].key) + (k + 1 < fa_nprofiles ? 1 : 0);
                if (col + 1 + w > 96) col = (size_t)fprintf(f, "\n%s     ", ind) - 1;
                col += (size_t)fprintf(f, " %s%s", fa_profiles[k].key, k + 1 < fa_nprofiles ? "," : "");
            }
            fputc('\n', f);
        }
    }
    fputs(tail, f);
}

/* The refusal of a word that is not one of command cmd's options: an option of another
 * command is named as such, anything else is unknown. */
static int refuse(const char *tok, const char *cmd)
{
    char name[64];
    size_t len = strncmp(tok, "--", 2) == 0 ? strcspn(tok + 2, "=") : 0;
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), tok + 2);
    for (int i = 0; len && i < NTABLE; i++)
        if (TABLE[i].name && !strcmp(TABLE[i].name, name))
            return cli_usage("--%s is not an option of fasim %s (see fasim %s --help)", name, cmd, cmd);
    return cli_usage("unknown or incomplete option '%s' (see fasim %s --help)", tok, cmd);
}

/* What option id's value is in the message of a missing one ("--NAME needs a file"); *empty 1
 * when an empty value (--NAME=) is missing too (a path, a list, a range), *path 1 for a file or
 * directory (or offsets, which may be a file).  Checked for every option that takes a value
 * before its parser runs. */
static const char *needs(int id, int *empty, int *path)
{
    *empty = *path = 1;
    switch (id) {
    case O_MODEL: case O_TRACE: case O_OUT: case O_BLOCK_MASK: case O_COL_MASK: case O_MASK: case O_MEASURED:
    case O_R_MODEL: return "a file";
    case O_C_Q: case O_C_K: case O_C_V: case O_C_OUT: case O_C_LSE: case O_C_DOUT: case O_C_DQ: case O_C_DK:
    case O_C_DV: return "a .npy file";
    case O_OUT_DIR: case O_R_OUT_DIR: case O_C_STUDY: case O_C_SAVE_NPY: return "a directory";
    case O_CU_SEQLENS: case O_CU_SEQLENS_K: *empty = 0; return "a value";
    }
    *path = 0;
    if (id == O_DOC_MASK) return "document lengths L1,L2,...";
    if (id == O_VARY) return "NAME=RANGE (see fasim sweep --help)";
    if (id == O_KERNEL_PROFILE) return "KERNEL=PROFILE pairs";
    *empty = 0;
    return id == O_GQA ? "a value: per-head, packed or both" : id == O_R_HW ? "a profile (a100, h100, h200, b200)"
         : id == O_R_PASS ? "fwd, bwd or fwdbwd" : "a value";
}

int cli_parse_cmd(int argc, char **argv, cli_opts *o, cli_own_fn own_fn, void *ctx)
{
    const char *cmd = argv[1];
    const unsigned bit = cmd_bit(cmd);
    cli_defaults(o);
    /* getopt_long's table: the rows this command takes */
    struct option lo[NTABLE + 1];
    int id_of[NTABLE], arg_of[NTABLE], n = 0;
    for (int i = 0; i < NTABLE; i++)
        if (TABLE[i].name && (TABLE[i].cmds & bit)) {
            lo[n] = (struct option){TABLE[i].name, TABLE[i].arg == A_VALUE ? required_argument : optional_argument, NULL, 1000 + n};
            id_of[n] = TABLE[i].id, arg_of[n] = TABLE[i].arg;
            n++;
        }
    lo[n] = (struct option){NULL, 0, NULL, 0};
    opterr = 0;
    optind = 0; /* glibc: start over (commands may parse twice) */
    const int ac = argc - 1;
    char **av = argv + 1; /* av[0] = the command: getopt's program name */
    for (;;) {
        int at = optind ? optind : 1, li = -1;
        int c = getopt_long(ac, av, "+:h", lo, &li);
        if (c == -1) break;
        const char *tok = av[at];
        if (c == 'h') continue; /* -h: the commands print their help before parsing */
        int k = c - 1000;
        if (c == '?' || c == ':' || k < 0 || k >= n) {
            /* an unknown option, or one whose value is missing at the end */
            if (c == ':' && optopt >= 1000 && optopt - 1000 < n) {
                k = optopt - 1000; /* glibc: the option's val */
            } else {
                return refuse(tok, cmd);
            }
        }
        /* exact names only: getopt_long also takes unique prefixes */
        size_t len = strcspn(tok + 2, "=");
        if (strncmp(tok, "--", 2) != 0 || strlen(lo[k].name) != len || strncmp(tok + 2, lo[k].name, len) != 0)
            return refuse(tok, cmd);
        const char *val = c == ':' ? NULL : optarg;
        int empty, path;
        const char *what = needs(id_of[k], &empty, &path);
        if (arg_of[k] == A_VALUE && (!val || (empty && !*val))) /* the parsers see a value */
            return cli_usage("--%s needs %s", lo[k].name, what);
        /* a file or directory given as the next word that is another option: its value is missing
         * (`--out --quiet` would otherwise write a file named --quiet; --out=--quiet is a path) */
        if (val && val == av[optind - 1] && strchr(tok, '=') == NULL && path && !strncmp(val, "--", 2))
            return cli_usage("--%s needs a value (got the option '%s'; --%s=%s names a path of that name)", lo[k].name, val,
                             lo[k].name, val);
        if (arg_of[k] == A_FLAG && val)
            return cli_usage("--%s takes no value (got '%s')", lo[k].name, val);
        if (arg_of[k] == A_OPTIONAL && !val && optind < ac && strncmp(av[optind], "--", 2) != 0)
            val = av[optind++]; /* "--causal top-left" */
        char name[80];
        snprintf(name, sizeof name, "--%s", lo[k].name);
        int rc;
        o->given[id_of[k]] = 1;
        if (id_of[k] == O_HELP) rc = 0;
        else if (id_of[k] >= O_OWN) rc = own_fn ? own_fn(ctx, o, id_of[k], name, val) : cli_usage("%s: no parser", name);
        else if (id_of[k] == O_ALGO && (bit & CMD_ANIMATE) && strcmp(val, "standard") && strcmp(val, "flash1") &&
                 strcmp(val, "flash2")) /* animate draws one algorithm: no list, no all */
            rc = cli_usage("--algo '%s' is not one of standard, flash1, flash2 (animate draws one algorithm)", val);
        else rc = set_shared(o, id_of[k], name, val);
        if (rc) return rc;
    }
    if ((optind > 1 && !strcmp(av[optind - 1], "--")) || (optind < ac && !strcmp(av[optind], "--")))
        return cli_usage("'--' ends nothing here: fasim %s takes options only (see fasim %s --help)", cmd, cmd);
    if (optind < ac) /* a word that is not an option */
        return cli_usage("unexpected argument '%s': fasim %s takes options only (see fasim %s --help)", av[optind], cmd, cmd);
    /* --seed seeds the dropout mask only, except in check, whose own inputs it also draws (check
     * with files refuses it alone too: cmd_check.c); a seed that changes nothing is refused */
    if (o->given[O_SEED] && !o->given[O_DROPOUT] && !(bit & CMD_CHECK))
        return cli_usage("%s uses --seed only as the dropout mask's seed (its counts do not depend on it): "
                         "add --dropout p or drop --seed", cmd);
    /* --rescale-threshold is flash2's (FlashAttention-4's conditional rescaling): with only standard
     * or flash1 chosen it would change nothing, so it is refused like a --seed without --dropout */
    int has_flash2 = 0;
    for (int q = 0; q < o->n_algos; q++) has_flash2 |= o->algos[q] == (int)FA_ALGO_FLASH2;
    if (o->given[O_RESCALE_THRESHOLD] && o->algo_given && !has_flash2)
        return cli_usage("--rescale-threshold applies to flash2 only (FlashAttention-4's conditional rescaling); "
                         "--algo has no flash2: add it or drop --rescale-threshold");
    /* the decode and varlen kernels are FlashAttention-2's split-KV ones, without conditional
     * rescaling: refused like --window, --alibi, --softcap there (fa_infer_resolve) */
    if (o->given[O_RESCALE_THRESHOLD] && (o->decode || o->given[O_CU_SEQLENS]))
        return cli_usage("--rescale-threshold is not modelled with %s (its kernel is FlashAttention-2's "
                         "split-KV one, without conditional rescaling): drop --rescale-threshold",
                         o->decode ? "--decode" : "--cu-seqlens");
    /* the tiles: --blocks, --block-r/--block-c, a kernel profile's table */
    const int takes_profile = cli_takes(cmd, "profile");
    if (o->block_r > 0 || o->block_c > 0) {
        if (o->given[O_BLOCKS]) return cli_usage("--blocks and --block-r/--block-c exclude each other");
        /* sweep may vary the other; check and compare first refuse tiles where they take none */
        if ((o->block_r < 0 || o->block_c < 0) && !(bit & (CMD_SWEEP | CMD_CHECK | CMD_COMPARE)))
            return cli_usage("give both --block-r and --block-c");
        o->blocks = BLOCKS_EXPLICIT;
    }
    const int paper = o->profile && o->profile->mma == FA_MMA_NONE;
    if (takes_profile && !o->given[O_BLOCKS] && o->blocks != BLOCKS_EXPLICIT && !paper) o->blocks = BLOCKS_PROFILE;
    /* --blocks fit with a kernel profile: the tiles that kernel fits, its tile table */
    if (takes_profile && o->given[O_BLOCKS] && o->blocks == BLOCKS_FIT && o->profile && !paper) o->blocks = BLOCKS_PROFILE;
    if (o->profile && !paper) { /* a kernel profile runs its own loop order */
        for (int k = 0; k < o->n_algos; k++)
            if (o->algos[k] != (int)o->profile->algo)
                return cli_usage("--profile %s is a %s kernel: leave out --algo or give --algo %s", o->profile->key,
                                 fa_algo_name(o->profile->algo), fa_algo_name(o->profile->algo));
        if (o->n_algos == 0) o->algos[o->n_algos++] = (int)o->profile->algo;
    }
    if (o->n_algos == 0) {
        for (int k = 0; k < FA_NALGO; k++) o->algos[k] = k;
        o->n_algos = FA_NALGO;
    }
    return 0;
}

int cli_wants_help(int argc, char **argv)
{
    /* --help prints the help unless a word is no option nor an option's value ("io --help extra"):
     * then the parser refuses that word (exit 2), as it does without --help.  The values are
     * skipped as cli_parse_cmd takes them: the next word of a value option written without '=',
     * of an optional-value option when it does not start with "--". */
    const unsigned bit = argc > 1 ? cmd_bit(argv[1]) : 0;
    int help = 0, stray = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || !a[2]) {
            stray = 1;
            continue;
        }
        if (strchr(a, '=')) continue;
        for (int k = 0; k < NTABLE; k++)
            if (TABLE[k].name && (TABLE[k].cmds & bit) && !strcmp(TABLE[k].name, a + 2)) {
                if (i + 1 < argc && (TABLE[k].arg == A_VALUE ||
                                     (TABLE[k].arg == A_OPTIONAL && strncmp(argv[i + 1], "--", 2) != 0)))
                    i++;
                break;
            }
    }
    return help && !stray;
}

const char *cli_option_name(const char *cmd, int id)
{
    unsigned bit = cmd_bit(cmd);
    for (int i = 0; i < NTABLE; i++)
        if (TABLE[i].name && TABLE[i].id == id && (TABLE[i].cmds & bit)) return TABLE[i].name;
    return "?";
}

void cli_option_names(const char *cmd, void (*fn)(const char *name, int takes_value, void *ctx), void *ctx)
{
    unsigned bit = cmd_bit(cmd);
    for (int i = 0; i < NTABLE; i++)
        if (TABLE[i].name && (TABLE[i].cmds & bit)) fn(TABLE[i].name, TABLE[i].arg, ctx);
}
