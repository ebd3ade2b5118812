/* cli.h -- the `fasim` command line: shared option parsing and output helpers. */
#ifndef FA_CLI_H
#define FA_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "fa_analysis.h"
#include "fa_perf.h"
#include "fa_outfile.h"
#include "fa_records.h"
#include "fa_run.h"

/* Exit statuses: 0 ok, 1 failure while running (or a failed check), 2 bad usage or input. */
enum { EXIT_OK = 0, EXIT_RUN = 1, EXIT_USAGE = 2 };

typedef enum { FMT_TABLE = 0, FMT_CSV = 1, FMT_JSON = 2 } out_format;
/* BLOCKS_PROFILE: each algorithm's kernel profile gives its tiles and placement (the default of
 * the commands that take --profile); the others are the paper's model (one SRAM of M). */
typedef enum {
    BLOCKS_FIT = FA_TILES_FIT,
    BLOCKS_PAPER = FA_TILES_PAPER,
    BLOCKS_EXPLICIT = FA_TILES_EXPLICIT,
    BLOCKS_PROFILE = FA_TILES_PROFILE
} blocks_rule;

#define CLI_MAX_SEQ 65536 /* sequences of --cu-seqlens */

/* The option table's ids (analysis/cli/options.c): the shared options, then those one command
 * owns (O_OWN and above: the command's parser callback sets them). */
enum {
    O_HELP = 1, O_ALGO, O_BATCH, O_HEADS, O_KV_HEADS, O_SEQLEN, O_SEQLEN_K, O_HEADDIM, O_HEADDIM_V, O_DTYPE,
    O_CAUSAL, O_SCALE, O_MODEL, O_HW, O_SRAM, O_BLOCK_R, O_BLOCK_C, O_BLOCKS, O_PROFILE, O_PASS, O_FORMAT,
    O_BREAKDOWN, O_TRACE, O_L2, O_OUT, O_QUIET, O_TOL, O_WINDOW, O_SOFTCAP, O_ALIBI, O_BLOCK_MASK, O_COL_MASK,
    O_DOC_MASK, O_MASK, O_DROPOUT, O_SEED, O_DECODE, O_KV_LEN, O_SPLITS, O_GQA, O_PAGE_SIZE, O_CU_SEQLENS,
    O_CU_SEQLENS_K, O_RESCALE_THRESHOLD, O_CP, O_CP_SCHEME,
    O_OWN = 100,
    O_VARY = O_OWN, O_MEASURED, O_NO_L2, O_KERNEL_PROFILE, O_OUT_DIR, O_DELAY, O_HEATMAP,
    O_R_MODEL, O_R_HW, O_R_SEQLEN, O_R_BATCH, O_R_PASS, O_R_OUT_DIR, O_R_NO_PLOTS, O_R_QUIET,
    O_C_Q, O_C_K, O_C_V, O_C_OUT, O_C_LSE, O_C_DOUT, O_C_DQ, O_C_DK, O_C_DV, O_C_LAYOUT, O_C_BF16, O_C_PASS, O_C_EXP2,
    O_C_ACC, O_C_STUDY, O_C_NO_PLOTS, O_C_SAVE_NPY, O_C_INPUTS, O_C_FP8_QUANT, O_C_HADAMARD, O_C_HADAMARD_SEED,
    O_NIDS = 200
};
/* The commands, one bit each (which commands take an option). */
enum { CMD_IO = 1, CMD_SWEEP = 2, CMD_CHECK = 4, CMD_COMPARE = 8, CMD_EXPLAIN = 16, CMD_ANIMATE = 32, CMD_REPORT = 64 };

/* Everything the common options describe.  -1 means "not given". */
typedef struct {
    fa_shape shape;
    int algos[FA_NALGO];  /* which algorithms to run */
    int n_algos;
    char hw_key[16];
    fa_hw hw;
    uint64_t sram;        /* M in bytes (0: from the hardware profile) */
    int64_t block_r, block_c;
    blocks_rule blocks;
    out_format format;
    int breakdown;
    const char *trace_path;
    const char *model_path;
    const char *out_path;
    unsigned long seed;
    double tol;
    int quiet;
    int l2;               /* --l2: predict DRAM bytes with the L2 model */
    fa_pass pass;         /* --pass fwd|bwd|fwdbwd */
    /* inference (cmd_infer.c; docs/inference.md); 0 = not given */
    int decode;           /* --decode: KV-cache decoding, N_q = --seqlen (default 1) */
    int64_t kv_len;       /* --kv-len N_k */
    int64_t splits;       /* --splits S */
    int splits_auto;      /* --splits auto */
    int64_t page_size;    /* --page-size P */
    int paged;            /* --page-size given */
    int gqa;              /* --gqa: 0 both, 1 per-head, 2 packed */
    int varlen;           /* --cu-seqlens given */
    const int64_t *cu[2]; /* --cu-seqlens, --cu-seqlens-k offsets (NULL: not given) */
    int64_t n_cu[2];      /* their counts (-1: not given) */
    fa_varlen vl;         /* the varlen batch (cli_resolve, with --cu-seqlens) */
    const char *block_mask_path; /* --block-mask FILE */
    const char *col_mask_path;   /* --col-mask FILE */
    const char *dense_mask_path; /* --mask FILE */
    int64_t doc_len[256];        /* --doc-mask L1,L2,... */
    int n_docs;
    int algo_given;              /* --algo was on the command line */
    const fa_profile *profile;   /* --profile KEY; NULL: each algorithm's own (fa_profile_default) */
    int64_t cp;                  /* --cp P: context parallelism over P GPUs (0: not given) */
    int cp_scheme;               /* --cp-scheme (an fa_cp_scheme; -1: every scheme) */
    unsigned char given[O_NIDS]; /* given[id]: the option was on the command line */
    char model_note[512];        /* --model: what of the config the shape takes as the report does
                                    (fp32 counted in bf16, the sliding window), or "" */
} cli_opts;

/* A command's parser of the options it owns (ids O_OWN and above): ctx is the command's, val
 * the value (NULL: none).  Returns 0 or EXIT_USAGE (message printed). */
typedef int (*cli_own_fn)(void *ctx, cli_opts *o, int id, const char *name, const char *val);

/* Parses argv[2..argc) of command argv[1] through the option table and getopt_long: the shared
 * options into o (defaults first, cli_defaults), the command's own through own (may be NULL when
 * it has none).  Refuses options the command does not take, abbreviations, words that are not
 * options and "--".  Then settles the tile rule (--blocks, --block-r/--block-c, a profile's
 * table) and the algorithms.  Returns 0 or EXIT_USAGE (message printed). */
int cli_parse_cmd(int argc, char **argv, cli_opts *o, cli_own_fn own, void *ctx);
/* The defaults of every option (-1: not given). */
void cli_defaults(cli_opts *o);
/* 1 when command cmd ("io", ...) takes option name (without "--"). */
int cli_takes(const char *cmd, const char *name);
/* Calls fn for every option command cmd takes: its name and argument kind (0 a flag, 1 a
 * value, 2 an optional value). */
void cli_option_names(const char *cmd, void (*fn)(const char *name, int takes_value, void *ctx), void *ctx);
/* The name (without "--") of option id as command cmd spells it ("?" when it takes none). */
const char *cli_option_name(const char *cmd, int id);
/* 1 when argv[2..) holds --help or -h and no word that is neither an option nor an option's value
 * (then the command parses, and its parser refuses the word: "fasim io --help extra" is exit 2). */
int cli_wants_help(int argc, char **argv);
/* Prints a command's help: head, the table's lines of the options it takes (in table order,
 * with the group headings), tail. */
void cli_help(FILE *f, const char *cmd, const char *head, const char *tail);
/* Prints "fasim: " + cli_where + the formatted message and a newline to stderr; returns
 * EXIT_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parses a positive finite number (option opt's value).  Returns 0 or EXIT_USAGE (printed). */
int cli_positive(const char *opt, const char *val, double *out);
/* A byte size: digits and an optional suffix B, KiB/K, MiB/M, GiB (powers of 1024), KB, MB, GB
 * (powers of 1000).  Errors: FA_EINVAL for a blank, no digits, an unknown suffix, or more than
 * 64 bits. */
fa_status cli_parse_bytes(const char *text, uint64_t *out);

/* Resolves defaults after parsing: model file, hardware profile, M, shape check.
 * Returns 0 or EXIT_USAGE (message printed). */
int cli_resolve(cli_opts *o);

/* The configuration the options describe (analysis/fa_run.h), and fa_run_tiles / fa_run_algo on
 * it: the tiles of the options' rule, and the pass of algorithm a counted and timed. */
fa_run_config cli_config(const cli_opts *o);
fa_status cli_blocks(const cli_opts *o, fa_blocks *bk, uint64_t *overflow);
fa_status cli_run(const cli_opts *o, fa_algo a, FILE *trace, fa_io_result *r);

/* Parses a positive 64-bit integer option value; prints "<opt>: ..." on error. */
int cli_int(const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out);

/* Prints "fasim: <msg>" for status s to stderr and returns the exit status it maps to. */
int cli_fail(fa_status s);

/* Where a message arises, printed after "fasim: " by cli_fail and the checks of cli_parse and
 * cli_resolve: "at seqlen = 512: " while fasim sweep checks or runs a point; empty otherwise. */
extern char cli_where[256];

/* fa_outfile_open / _commit / _abort with the command line's messages: open returns 0 or
 * EXIT_USAGE, commit 0 or EXIT_RUN (a failed write while running). */
typedef fa_outfile cli_file; /* analysis/fa_outfile.h */
int cli_open(cli_file *cf, const char *path);
int cli_commit(cli_file *cf);
void cli_abort(cli_file *cf);

/* 1 when standard output could not take what was printed (a closed pipe -- SIGPIPE is ignored,
 * main.c -- or a full disk): flushed first; the message "fasim: cannot write standard output:
 * WHY" + then is printed once (then: "" or "; ..." naming what was not done).  The caller exits
 * EXIT_RUN, as main does for a failure it finds at the end.  After cli_stdout_is_help, a closed
 * pipe (EPIPE) is no failure: 0, no message (fasim help io | head -3 exits 0, as common tools do);
 * a full disk still is. */
int cli_stdout_failed(const char *then);

/* What stdout carries is help text (--help, fasim help CMD, --version), not data: a reader that
 * stops early is no error (cli_stdout_failed). */
void cli_stdout_is_help(void);
int cli_stdout_help(void); /* 1 after cli_stdout_is_help */

/* One line describing the configuration (shape, dtype, mask, hardware, M). */
void cli_describe(FILE *f, const cli_opts *o, const fa_shape *s);

/* Commands. */
int cmd_io(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* Inference (cmd_infer.c): the io, check, sweep and report parts of --decode / --cu-seqlens
 * (their options are checked and resolved by cli_resolve). */
int infer_io(const cli_opts *o);
/* fasim io --cp P [--cp-scheme S] (cmd_cp.c; docs/context-parallel.md): per-GPU HBM bytes, link bytes,
 * memory and time of each scheme.  Returns an exit status. */
int cp_io(const cli_opts *o);
/* The report's context-parallel section: its table on stdout (unless quiet), its rows to csv (cp.csv). */
int cp_report(FILE *csv, int quiet, const fa_hw *hw);
int infer_check(cli_opts *o);
int infer_sweep_point(const cli_opts *o, FILE *f, json_t *json_arr, const fa_col *cols, int n_cols, int header);
int infer_report(FILE *csv, int quiet, const fa_hw *hw, int nh); /* writes decode.csv to csv */
int cmd_explain(int argc, char **argv); /* cmd_explain.c */
int cmd_animate(int argc, char **argv); /* cmd_animate.c */

/* The time model's section of the table: per algorithm its profile, tiles, placement and
 * occupancy per kernel, each pipe's busy time, the estimated DRAM bytes, the time and its bound;
 * or one line naming the paper's model when no profile ran. */
void io_write_model(FILE *f, const cli_opts *o, const fa_io_result *r, int n);
/* With --dropout: that the time model times the kernel profiles named in `who` ("flash2 (fa2)",
 * ...) as without dropout (docs/time-model.md, "Dropout"), one line after `lead`. */
void io_dropout_note(FILE *f, const char *lead, const fa_shape *s, const char *who);
/* The notes reconciling a row's DRAM est with its HBM total (standard's profile kernels; a profile's
 * layout copies), each line led by lead: fasim io under its table, fasim explain (output.c). */
void io_bytes_notes(FILE *f, const char *lead, const fa_io_result *x, fa_dtype dtype);
/* The note of each tile row (fa_tile_row.note: a row from another commit of the kernel than the
 * rest of its table) that profile p's pass(es) ran on -- fwd and bwd the tiles used, a row's note
 * printed only when its tiles are those -- each line led by lead and naming who ("flash2 (fa3)"):
 * fasim io under its table, fasim explain under its tiles (output.c).  Returns the notes printed. */
int io_tile_row_notes(FILE *f, const char *lead, const char *who, const fa_profile *p, fa_pass pass, int arch,
                       const fa_shape *s, fa_blocks fwd, fa_blocks bwd);
void io_write_table(FILE *f, const cli_opts *o, const fa_shape *s, const fa_io_result *r, int n);
/* Writes the JSON array arr to f, indented by 2, reals with 10 significant digits, and a newline. */
void cli_dump_json(const json_t *arr, FILE *f);

#endif
