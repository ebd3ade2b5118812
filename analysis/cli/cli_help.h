/* cli_help.h -- the option blocks that several commands' --help texts share, as string literals
 * to concatenate into each command's help (one wording per option).  Every option a command's
 * parser accepts appears in its --help; tests/cli_test_hw_help.sh checks that by probing each
 * command with every option the sources name. */
#ifndef FA_CLI_HELP_H
#define FA_CLI_HELP_H

/* --algo */
#define CLI_HELP_ALGO \
    "  --algo standard|flash1|flash2|all   algorithms (comma list allowed; default all)\n"

/* the shape (OPT_SHAPE, without the masks) */
#define CLI_HELP_SHAPE \
    "  --batch B --heads H --kv-heads H_kv  (default 1, 1, H)\n" \
    "  --seqlen N_q --seqlen-k N_k          (default 1024, N_q)\n" \
    "  --headdim d --headdim-v d_v          (default 64, d)\n" \
    "  --dtype fp32|fp16|bf16|fp8_e4m3|fp8_e5m2  element size of Q,K,V,O,S,P (default fp16;\n" \
    "                                       fp8 and e4m3 are aliases of fp8_e4m3, e5m2 of fp8_e5m2)\n" \
    "  --causal[=bottom-right|top-left]     causal mask (default anchor bottom-right)\n" \
    "  --scale X                            softmax scale (default 1/sqrt(d))\n"

/* the masks and score modifiers (OPT_SHAPE; docs/variants.md) */
#define CLI_HELP_MASKS \
    "masks and score modifiers (docs/variants.md):\n" \
    "  --window L,R                         sliding window: keys c-L..c+R of row i, c = i + N_k - N_q\n" \
    "                                       (-1: unbounded on that side)\n" \
    "  --softcap C                          S <- C tanh(S / C) after the scale\n" \
    "  --alibi                              ALiBi bias -slope_h |i + N_k - N_q - j|\n" \
    "  --block-mask FILE                    block-sparse mask: \"block_r block_c\", then rows of 0/1\n" \
    "  --col-mask FILE                      FlashMask column mask: N_k lines \"lo1 hi1 [lo2 hi2]\"\n" \
    "  --doc-mask L1,L2,...                 causal mask of packed documents (sum of L = N_q = N_k)\n" \
    "  --mask FILE                          dense 0/1 mask, N_q rows of N_k (read from HBM too)\n" \
    "  --dropout p --seed S                 dropout probability p in [0, 1), Philox seed (default 42)\n"

/* the hardware and the tiles (OPT_HW) */
#define CLI_HELP_HW \
    "  --hw a100|h100|h200                  hardware profile (default h200; files in sim/hw or\n" \
    "                                       $FASIM_HW_DIR, docs/conventions.md)\n" \
    "  --sram BYTES                         SRAM size M (KiB/MiB suffixes; default: the\n" \
    "                                       profile's shared memory per thread block)\n" \
    "  --block-r B_r --block-c B_c          explicit tile sizes\n" \
    "  --blocks fit|paper                   tile rule in the paper's model (fit: largest multiple of\n" \
    "                                       16; the default where --profile is not taken)\n"

/* kernel profiles and the time model (OPT_PROFILE; docs/time-model.md) */
#define CLI_HELP_PROFILE \
    "  --profile KEY                        the kernel whose tiles, placement (registers or shared\n" \
    "                                       memory) and pipes the time model uses: fa2, fa1, fa3,\n" \
    "                                       cudnn, math, v0 ... v4_bc64, or paper (the paper's model:\n" \
    "                                       every buffer in one SRAM of M, tiles by --blocks fit).\n" \
    "                                       Default: each algorithm's kernel (standard: math, flash1:\n" \
    "                                       fa1, flash2: fa2) with its tile table; --blocks or\n" \
    "                                       --block-r/--block-c count in the paper's model\n" \
    "                                       (--blocks fit with --profile KEY: KEY's tile table)\n"

/* inference (OPT_INFER; docs/inference.md) */
#define CLI_HELP_INFER \
    "inference (docs/inference.md):\n" \
    "  --decode --kv-len N                  KV-cache decoding: N_q = --seqlen (default 1), N_k = N\n" \
    "  --splits S|auto                      split-KV chunks (Flash-Decoding; default auto)\n" \
    "  --gqa per-head|packed|both           loop order for GQA decoding (default both)\n" \
    "  --page-size P                        paged KV cache (PagedAttention), P tokens a page\n" \
    "  --cu-seqlens LIST|FILE [--cu-seqlens-k LIST|FILE]  variable-length batch (0,5,5,37,...)\n"

#endif
