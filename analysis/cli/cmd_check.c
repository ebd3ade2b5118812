/* cmd_check.c -- `fasim check`: its help and options, and which run they ask for: the tiled
 * algorithms in numeric mode (fp64 arithmetic) on random inputs against the fp64 reference (the
 * built-in suite or one shape: fa_check_suite, analysis/check.c, its rows printed by
 * cli_check_suite in cmd_numerics.c), the inference kernels (cmd_infer.c), or the numerics of
 * cmd_numerics.c. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_numerics.h"
#include "fa_check.h"
#include "fa_fp8.h"

static const char *const check_head =
    "usage: fasim check [shape options] [--algo ...] [--seed S] [--tol T] [--format table|csv|json]\n"
    "  Runs standard, flash1 and flash2 in numeric mode on random N(0,1) inputs (GSL mt19937,\n"
    "  --seed, default 42) and compares O (and LSE) with the fp64 reference computed directly.\n"
    "  Without shape options it runs a built-in suite of odd shapes (tails, N_q != N_k causal,\n"
    "  N = 1, d = 1, GQA, MQA).  Error: max|out - ref| (abs) and that over max|ref| (rel).\n"
    "  A configuration passes when rel <= --tol (default 1e-10).  Exit 1 if any fails.\n"
    "  The shape, mask and tile options are those of fasim io, but the default tiles are not a\n"
    "  kernel profile's: --blocks fit in the paper's one-SRAM model (fp64 check), 64 x 64 (--dtype;\n"
    "  128 x 128 with --fp8-quant or --hadamard); --seed also seeds the dropout;\n"
    "  --decode / --cu-seqlens check the inference kernels against the reference.\n"
    "low precision (docs/numerics.md): --dtype fp32|fp16|bf16|fp8_e4m3|fp8_e5m2 (fp8, e4m3: aliases of\n"
    "  fp8_e4m3; e5m2: of fp8_e5m2) runs every algorithm emulated in that precision beside naive\n"
    "  attention in it; verdict err <= 2 x naive err + atol, err = max|out - ref|, atol the dtype's\n"
    "  rounding floor (--pass bwd: the gradients, 3x; the .npy check of an external kernel: no\n"
    "  floor, the bound capped at 16 u max|ref|, u the dtype's unit roundoff);\n"
    "  --exp2 (log2 e folded into the scale), --acc fp32|fp64.  A row\n"
    "  gives the max error and the RMSE sqrt(mean (out - ref)^2) against the reference on the rounded\n"
    "  inputs, then both end to end: against the fp64 reference on the inputs before rounding\n"
    "  FP8 forward (FlashAttention-3's input preparation): --inputs outliers (0.1 % of the entries of\n"
    "  Q, K, V get an extra N(0, 10^2) term), and with --dtype fp8_e4m3 (forward only) --fp8-quant\n"
    "  tensor|block (one power-of-two scale per tensor, or per tile-sized block of rows; the tiles default\n"
    "  to 128 x 128 with either option) and --hadamard [--hadamard-seed S] (Q, K times diag(+-1) H_d /\n"
    "  sqrt(d) first; d a power of two <= 1024, a given shape)\n"
    "  --study DIR [--seqlen MAXN] [--headdim MAXD] [--seed S] [--no-plots] [--quiet]: error vs N, vs d\n"
    "  and with outliers, for all five dtypes (CSV + PNG; --no-plots: CSV only; progress on stderr\n"
    "  when it is a terminal; --quiet: no progress and no \"wrote\" line).  N = 16, 32, 64, ...: the\n"
    "  powers of two from 16 up to the largest <= MAXN (default 1024), at d = min(MAXD, 64);\n"
    "  d = 16, 32, ... <= MAXD (default 256) at N = min(MAXN, 256).  Limits: 16 <= MAXN <= 4096,\n"
    "  16 <= MAXD <= 1024.  The study takes no other option (exit 2 naming it)\n"
    "external kernels (docs/validate.md): --q q.npy --k k.npy --v v.npy --out o.npy [--lse lse.npy]\n"
    "  [--dout do.npy --dq dq.npy --dk dk.npy --dv dv.npy] [--layout bhnd|bnhd] [--bf16] [--dtype T]\n"
    "  [--causal] [--scale] [masks and score modifiers] [--format]: the shape comes from the files\n"
    "  (a shape option may repeat it; one that contradicts it: exit 2 naming both values); the masks\n"
    "  and modifiers apply to the reference and to naive attention (mask files: at the files' N_q,\n"
    "  N_k); --seed only with --dropout.  The rule is fixed and fasim runs none of its own\n"
    "  algorithms, so --algo, --tol, --pass (the backward is checked when --dout ... --dv are given),\n"
    "  --exp2, --acc, --hw, --sram, --block-r, --block-c, --blocks, --quiet and --save-npy are\n"
    "  refused (exit 2 naming the option).  --bf16 applies only to these files\n"
    "  --save-npy DIR [--dtype] [shape options] [--layout]: writes a sample problem as .npy files\n"
    "  (default H = 2, N = 128, bf16; without shape options --dtype runs a built-in suite of 6 shapes)\n"
    "options:\n";

/* The options each mode of check uses: --study takes only --seqlen, --headdim, --seed,
 * --no-plots and --quiet; with --q/--k/--v/--out files the options of fasim's own runs would be
 * ignored, so they are refused naming them and the reason.  Returns 0 or EXIT_USAGE (after one
 * message). */
static int mode_options_ok(const cli_opts *o, const num_opts *no)
{
    if (no->study) {
        static const int ok[] = {O_C_STUDY, O_SEQLEN, O_HEADDIM, O_SEED, O_C_NO_PLOTS, O_QUIET};
        for (int id = 1; id < O_NIDS; id++) {
            int fine = !o->given[id];
            for (size_t k = 0; !fine && k < sizeof ok / sizeof ok[0]; k++) fine = ok[k] == id;
            if (!fine)
                return cli_usage("check --study does not use --%s (the study takes only --seqlen MAXN, --headdim MAXD, "
                                 "--seed S, --no-plots and --quiet; see fasim check --help)", cli_option_name("check", id));
        }
        return 0;
    }
    if (no->save_npy && !cli_numerics_external(no)) { /* a sample problem: no check runs */
        static const int unused[] = {O_ALGO, O_TOL, O_FORMAT, O_C_PASS, O_HW, O_SRAM, O_BLOCK_R, O_BLOCK_C, O_BLOCKS,
                                     O_C_INPUTS, O_C_FP8_QUANT, O_C_HADAMARD, O_C_HADAMARD_SEED};
        for (size_t k = 0; k < sizeof unused / sizeof unused[0]; k++)
            if (o->given[unused[k]])
                return cli_usage("check --save-npy does not use --%s (it writes fasim's flash2 on a sample problem in "
                                 "--dtype and runs no check; see fasim check --help)", cli_option_name("check", unused[k]));
        return 0;
    }
    if (!cli_numerics_external(no)) return 0;
    static const char *const no_algos = "fasim runs none of its own algorithms on your tensors",
                             *const own_runs = "it applies to fasim's own runs, not to external tensors",
                             *const baseline = "naive attention runs in the files' precision or --dtype, as a kernel's baseline";
    static const struct {
        int id;
        const char *why;
    } refused[] = {
        {O_ALGO, no_algos}, {O_TOL, "the verdict is max|out - ref| <= 2 x max|naive - ref|, gradients 3x"},
        {O_C_PASS, "the backward is checked when --dout, --dq, --dk and --dv are given"},
        {O_C_EXP2, baseline}, {O_C_ACC, baseline}, {O_HW, own_runs}, {O_SRAM, own_runs}, {O_BLOCK_R, own_runs},
        {O_BLOCK_C, own_runs}, {O_BLOCKS, own_runs}, {O_QUIET, own_runs}, {O_C_SAVE_NPY, own_runs},
        {O_C_NO_PLOTS, own_runs}, {O_C_INPUTS, "the inputs are the files"}, {O_C_FP8_QUANT, own_runs},
        {O_C_HADAMARD, own_runs}, {O_C_HADAMARD_SEED, own_runs},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
        if (o->given[refused[k].id])
            return cli_usage("check with --q/--k/--v/--out files does not use --%s (%s; see fasim check --help)",
                             cli_option_name("check", refused[k].id), refused[k].why);
    if (o->given[O_SEED] && !o->given[O_DROPOUT])
        return cli_usage("check with --q/--k/--v/--out files uses --seed only for --dropout (the inputs are "
                         "the files); add --dropout p or drop --seed");
    return 0;
}

/* --inputs, --fp8-quant, --hadamard and --hadamard-seed, the FP8 study's options (docs/numerics.md,
 * "FP8 forward"): --inputs with any --dtype, the other three only with --dtype fp8_e4m3 and the
 * forward, --hadamard on a given shape whose d is a power of two <= 1024.  Returns 0 or
 * EXIT_USAGE (after one message naming the option). */
static int fp8_options_ok(const cli_opts *o, const num_opts *no)
{
    const int prep = no->fp8_quant_given || no->hadamard || no->hadamard_seed_given;
    if (!prep && !no->inputs_given) return 0;
    const char *opt = no->fp8_quant_given ? "fp8-quant" : no->hadamard ? "hadamard" : no->hadamard_seed_given ? "hadamard-seed"
                    : "inputs";
    if (!no->dtype_given)
        return cli_usage("check --%s needs --dtype (%s)", opt,
                         prep ? "fp8_e4m3: it prepares the inputs of the FP8 forward" : "it draws the inputs of the low-precision check");
    if (prep && o->shape.dtype != FA_DTYPE_E4M3)
        return cli_usage("check --%s applies only to --dtype fp8_e4m3 (the FP8 forward's input preparation), not --dtype %s", opt,
                         fa_dtype_name(o->shape.dtype));
    if (no->hadamard_seed_given && !no->hadamard) return cli_usage("check --hadamard-seed needs --hadamard");
    if (prep && no->bwd) return cli_usage("check --%s prepares the inputs of the FP8 forward only; drop --pass bwd", opt);
    if (!no->hadamard) return 0;
    const int custom = o->shape.batch > 0 || o->shape.heads > 0 || o->shape.kv_heads > 0 || o->shape.seqlen_q > 0 ||
                       o->shape.seqlen_k > 0 || o->shape.d > 0 || o->shape.d_v > 0;
    if (!custom)
        return cli_usage("check --hadamard needs a shape whose head dim d is a power of two (e.g. --seqlen 1024 --headdim 128): "
                         "the built-in suite has d = 59");
    const int64_t d = o->shape.d > 0 ? o->shape.d : 64;
    if (d > FA_FP8_HADAMARD_MAX_D || (d & (d - 1)) != 0)
        return cli_usage("check --hadamard needs the head dim d to be a power of two in [1, %d]; got --headdim %" PRId64,
                         FA_FP8_HADAMARD_MAX_D, d);
    return 0;
}

int cmd_check(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        cli_help(stdout, "check", check_head, "");
        return 0;
    }
    cli_opts o;
    num_opts no; /* --dtype, external tensors, studies: cmd_numerics.c */
    memset(&no, 0, sizeof no);
    int rc = cli_parse_cmd(argc, argv, &o, cli_numerics_take, &no);
    if (rc) return rc;
    no.dtype_given = o.given[O_DTYPE];
    if ((rc = mode_options_ok(&o, &no))) return rc;
    if ((rc = fp8_options_ok(&o, &no))) return rc;
    if ((o.block_r > 0) != (o.block_c > 0)) return cli_usage("give both --block-r and --block-c");
    if (no.bf16 && !cli_numerics_external(&no))
        return cli_usage("check --bf16 applies only to .npy files (--q --k --v --out ...: 16-bit data holds "
                         "bfloat16 bits); to emulate bf16 use --dtype bf16");
    if (no.layout_given && !cli_numerics_external(&no) && !no.save_npy)
        return cli_usage("check --layout applies only to .npy files (--q --k --v --out ..., or --save-npy DIR)");
    if (no.no_plots && !no.study)
        return cli_usage("check --no-plots applies only to --study DIR (the error study); drop it or add --study");
    /* --cu-seqlens ... --pass bwd: the varlen backward, not the numerics path */
    const int varlen_args = o.given[O_CU_SEQLENS] || o.given[O_CU_SEQLENS_K], decode_args = o.given[O_DECODE];
    int only_pass = no.bwd && !no.dtype_given && !no.q && !no.k && !no.v && !no.out && !no.study &&
                    !no.save_npy && !no.exp2 && !no.lse && !no.dout;
    const int numerics = cli_numerics_wanted(&no) && !(varlen_args && only_pass);
    if (numerics && (varlen_args || decode_args || o.given[O_KV_LEN] || o.given[O_SPLITS] || o.given[O_GQA] ||
                     o.given[O_PAGE_SIZE]))
        return cli_usage("low-precision emulation (--dtype, --exp2, --acc, .npy files, --study) does not "
                         "support the inference options (--decode, --cu-seqlens, --kv-len, --splits, --gqa, --page-size); "
                         "drop one of them");
    if (numerics) return cmd_check_numerics(&o, &no);
    if (o.given[O_QUIET]) return cli_usage("check --quiet applies to --study, --dtype and --save-npy runs");
    if (no.bwd) o.pass = FA_PASS_BWD;
    if (o.decode || o.varlen) return infer_check(&o);
    return cli_check_suite(&o, NULL);
}
