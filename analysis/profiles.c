/* profiles.c -- the kernel profiles (fa_perf.h): real kernels as fasim's time model sees them.
 *
 * Each profile says where its facts come from (the `source` field); docs/time-model.md has the
 * table with the code lines.  Buffer names are cpu_ref's: forward Q_i K_j V_j S_ij O_i m_i l_i,
 * backward K_j V_j dK_j dV_j Q_i dO_i L_i D_i S_ij dP_ij dQ_i (flash1 also O_i l_i m_i). */
#include "fa_perf.h"

#include <stdio.h>
#include <string.h>

/* Operand reads per K/V tile (fa_operand_reads): forward {Q, P} x {K, V}; backward GEMMs
 * S = QK^T, dP = dO V^T, dV += P^T dO, dK += dS^T Q, dQ += dS K. */
#define FWD(q, k, pp, v) {{q, pp, 0, 0, 0}, {k, v, 0, 0, 0}}
#define BWD(a0, b0, a1, b1, a2, b2, a3, b3, a4, b4) {{a0, a1, a2, a3, a4}, {b0, b1, b2, b3, b4}}
#define NT(t) .tiles = t, .ntiles = (int)(sizeof t / sizeof t[0])

/* The tile rows below give fa_tile_row's first eight fields positionally and leave out the last
 * four, dv_max (0: d_v bounded by d_max), local (0: any mask), fp8 (0: any dtype) and note (NULL),
 * except the rows that need them (FlashAttention-3's): -Wmissing-field-initializers
 * would flag every other row, so it is off in this file (the profile table itself uses designated
 * initializers, which it never flags). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const char REGS_FWD[] = "S_ij O_i m_i l_i";
static const char REGS_BWD[] = "S_ij dP_ij dK_j dV_j dQ_i L_i D_i";
/* FlashAttention-3's backward: dQ of a step goes through shared memory to a dQ-writer warp that
 * adds it to dQaccum (hopper/mainloop_bwd_sm90_tma_gmma_ws.hpp) */
static const char REGS_BWD_WS[] = "S_ij dP_ij dK_j dV_j L_i D_i";

/* FlashAttention-2 (Dao-AILab/flash-attention at 0251105a, csrc/flash_attn/src/
 * flash_fwd_launch_template.h, the kernels without dropout; the head dim rounds up to 32, 64, 96,
 * 128, 192, 256 (static_switch.h HEADDIM_SWITCH)): run_mha_fwd_hdim64/128:
 * Flash_fwd_kernel_traits<64, 128, 128, 4> and <128, 128, 64, 4> (hdim32 and hdim96 take the same
 * tiles); A100 and H100/H200 take the same branch (is_sm8x is sm86/89 only); hdim192: <192, 128,
 * 64, 8> on every GPU; hdim256: <256, 128, 64, 8> when the GPU has at least 2 x 256 x (128 + 2 x 64)
 * B = 128 KiB of shared memory per block and less than 4 x 256 x (64 + 2 x 64) B = 192 KiB per SM
 * -- the A100's 164 KiB (the source's comment: "For A100, we want to run with 128 x 64") -- else
 * <256, 64, 64, 4> (H100, H200, B200: 228 KiB, two blocks per SM); the arch-80 row stands for that
 * shared-memory test.  flash_bwd_launch_template.h run_mha_bwd_hdim64/128 with >= 144 KB of shared
 * memory per block: Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4> and <128, 64, 128, 8, 2, 4,
 * 2>; hdim192 and hdim256: <192|256, 64, 64, 8, ...> (both shared-memory branches).  PyTorch's
 * SDPA flash backend runs these kernels (Nsight Compute on the H200: <128, 128, 64, 4> at d = 128,
 * <64, 128, 128, 4> at d = 64). */
static const fa_tile_row fa2_tiles[] = {
    {FA_PASS_FWD, 0, 64, -1, 128, 128, 4, 255},  {FA_PASS_FWD, 0, 128, -1, 128, 64, 4, 255},
    {FA_PASS_FWD, 0, 192, -1, 128, 64, 8, 0},    {FA_PASS_FWD, 80, 256, -1, 128, 64, 8, 0},
    {FA_PASS_FWD, 0, 256, -1, 64, 64, 4, 0},
    {FA_PASS_BWD, 0, 64, -1, 128, 128, 8, 0},  {FA_PASS_BWD, 0, 128, -1, 64, 128, 8, 0},
    {FA_PASS_BWD, 0, 192, -1, 64, 64, 8, 0},   {FA_PASS_BWD, 0, 256, -1, 64, 64, 8, 0},
};
/* FlashAttention-1 (flash-attention v1.0.9, csrc/flash_attn/fmha_api.cpp: blocksize_c = 256 for
 * d <= 64, else 128, forward and backward; FMHA_kernel_traits<B_c, d, STEP = 16, 1, WARPS_N>:
 * 16 query rows a step, 4 warps along the keys (8 in the backward)).  A sequence of at most 128
 * keys (mha_fwd, mha_bwd: max_seqlen_k_ <= 128 gives max_seqlen_k = 128) runs the B_c = 128
 * kernel at d <= 64 too (fmha_fwd_hdim32.cu, _hdim64.cu, fmha_bwd_hdim*.cu: seqlen_k == 128). */
static const fa_tile_row fa1_tiles[] = {
    {FA_PASS_FWD, 0, 64, -1, 16, 128, 4, 0, .nk_max = 128}, {FA_PASS_FWD, 0, 64, -1, 16, 256, 4, 0},
    {FA_PASS_FWD, 0, 128, -1, 16, 128, 4, 0},
    {FA_PASS_BWD, 0, 64, -1, 16, 128, 8, 0, .nk_max = 128}, {FA_PASS_BWD, 0, 64, -1, 16, 256, 8, 0},
    {FA_PASS_BWD, 0, 128, -1, 16, 128, 8, 0},
};
/* FlashAttention-3: the forward tiles are Dao-AILab/flash-attention at 0251105a, hopper/tile_size.h
 * tile_size_fwd_sm90 (Return {kBlockM, kBlockN, MmaPV_is_RS, IntraWGOverlap}; its rules for every
 * row below are the same from 322bec97 on, its FP8 and windowed rules from its first commit,
 * 7a802796), with one row of the release the paper measured, 7f67966c (hopper/
 * flash_fwd_launch_template.h: d = 64 192 x 128, d = 128 128 x 176 without a causal mask and 128 x
 * 128 with one, d = 256 128 x 80; it takes d = 64, 128 and 256 in fp16/bf16 only, no window, no
 * FP8): at d = 64 without a mask 0251105a runs 192 x 192 (since 5e39b100), the release 192 x 128,
 * which the table keeps (the validation and the paper's reproduction; the row's note says so).
 * The release's d = 128 and d = 256 tiles are 0251105a's too.  Consumer warpgroups kBlockM / 64
 * (mainloop_fwd_sm90_tma_gmma_ws.hpp AtomLayoutQK) + 1 producer: 16 warps at B_r 192, 12 at 128.
 *   fp16/bf16 (element_size == 2): d <= 64: 192 x 128 with a causal mask or a sliding window
 * (use_blockN_128 = is_causal || is_local), else 192 x 192 (the release's 192 x 128 kept); d <= 96
 * (GPT-NeoX-20B, Phi-3-mini): 192 x 144, 192 x 128 with a window, P read by P V from shared memory
 * (MmaPV_is_RS false; the profile's placement keeps P in registers at every d); d <= 128: 128 x 176,
 * 128 x 128 with a causal mask or a window; d <= 192: 128 x 96 with a window, else 128 x 128 when
 * d_v <= 128 (DeepSeek's MLA; d_v apart from d since 2a204125), else 128 x 112; d 256 (Gemma): 128
 * x 64 with a window, else 128 x 80.
 *   FP8 (element_size == 1: sizeof(Element), fp8_e4m3; it writes O in bf16, which the profile,
 * counting O in the input dtype, does not take): d <= 64 192 x 160, d <=
 * 96 192 x 128, d <= 128 128 x 224, d <= 192 128 x 160, d 256 128 x 128 (128 x 64 with a window),
 * whatever the causal mask; V transposed in shared memory by the producer warpgroup
 * (Transpose_V: smem_v and smem_vt, fp8_vt_smem).
 * A window here is flash_api.cpp's is_local (tile_local).  Not told apart: paged KV (its non-TMA
 * tiles), the softcap (FP8 d <= 128: 128 x 192 with a softcap and a window; d <= 192: 128 x 128),
 * a column-major V (FP8 d <= 128: 128 x 192), d = 64 with d_v = 256 or 512 (128 x 96, 64 x 64).
 * Backward (hopper/flash_bwd_launch_template.h at 0251105a): d = 64 128 x 128, d = 96 64 x 128
 * with or without a mask (run_mha_bwd_hdim96), d = 128 80 x 128 (64 x 128 with a causal mask or a
 * window: Is_causal || Is_local), 2 + 1 warpgroups (7f67966c ran 64 x 128 at d = 128); d = 192
 * 64 x 96 with 3 MMA warpgroups + 1 producer = 16 warps; d = 256 64 x 64, which no FlashAttention-3
 * commit runs (7f67966c had no d = 256 backward; 0251105a runs 64 x 80 with one dO and one dS stage,
 * Stages_dO = Stages_dS = 1, which the profile's two-stage placement does not model; at 64 x 64
 * that placement needs 272 KiB, over a block's 227 KiB, so the time model refuses fa3's d = 256
 * backward).  FlashAttention-3 has no FP8 backward (flash_api.cpp mha_bwd: fp16 and bf16 only):
 * the backward rows take any dtype. */
#define FA3_D64_NOTE                                                                                                     \
    "d = 64 without a mask runs 192 x 128, the tile of FlashAttention-3's release 7f67966c (the one its paper "         \
    "measured); the rest of fa3's forward table is 0251105a's hopper/tile_size.h, which runs 192 x 192 here (since "    \
    "5e39b100; docs/time-model.md section 2)"
static const fa_tile_row fa3_tiles[] = {
    /* FP8 (0251105a tile_size_fwd_sm90, element_size == 1) */
    {FA_PASS_FWD, 90, 64, -1, 192, 160, 16, 160, .fp8 = 1},   {FA_PASS_FWD, 90, 96, -1, 192, 128, 16, 160, .fp8 = 1},
    {FA_PASS_FWD, 90, 128, -1, 128, 224, 12, 240, .fp8 = 1},  {FA_PASS_FWD, 90, 192, -1, 128, 160, 12, 240, .fp8 = 1},
    {FA_PASS_FWD, 90, 256, -1, 128, 64, 12, 240, .local = 1, .fp8 = 1},
    {FA_PASS_FWD, 90, 256, -1, 128, 128, 12, 240, .fp8 = 1},
    /* fp16/bf16 (0251105a element_size == 2; d = 64 without a mask: 7f67966c) */
    {FA_PASS_FWD, 90, 64, -1, 192, 128, 16, 160, .local = 1}, {FA_PASS_FWD, 90, 64, 1, 192, 128, 16, 160},
    {FA_PASS_FWD, 90, 64, 0, 192, 128, 16, 160, .note = FA3_D64_NOTE},
    {FA_PASS_FWD, 90, 96, -1, 192, 128, 16, 160, .local = 1}, {FA_PASS_FWD, 90, 96, -1, 192, 144, 16, 160},
    {FA_PASS_FWD, 90, 128, -1, 128, 128, 12, 240, .local = 1}, {FA_PASS_FWD, 90, 128, 0, 128, 176, 12, 240},
    {FA_PASS_FWD, 90, 128, 1, 128, 128, 12, 240},
    {FA_PASS_FWD, 90, 192, -1, 128, 96, 12, 240, .local = 1}, {FA_PASS_FWD, 90, 192, -1, 128, 128, 12, 240, .dv_max = 128},
    {FA_PASS_FWD, 90, 192, -1, 128, 112, 12, 240},
    {FA_PASS_FWD, 90, 256, -1, 128, 64, 12, 240, .local = 1}, {FA_PASS_FWD, 90, 256, -1, 128, 80, 12, 240},
    {FA_PASS_BWD, 90, 64, -1, 128, 128, 12, 240}, {FA_PASS_BWD, 90, 96, -1, 64, 128, 12, 240},
    {FA_PASS_BWD, 90, 128, -1, 64, 128, 12, 240, .local = 1}, {FA_PASS_BWD, 90, 128, 0, 80, 128, 12, 240},
    {FA_PASS_BWD, 90, 128, 1, 64, 128, 12, 240},  {FA_PASS_BWD, 90, 192, -1, 64, 96, 16, 160},
    /* no d = 256 backward row: 7f67966c has no d = 256 backward, and 0251105a's (64 x 80, one stage of
     * dO and of dS: tile_size_bwd_sm90) is a placement fasim does not model (its 64 x 64 with two stages
     * needs 272 KiB of shared memory) */
};
/* cuDNN's Hopper fused attention as Nsight Compute shows it (analysis/measured/h200/v5_bwd_ncu.csv:
 * grid (132, 1, 1), block (384, 1, 1) for its backward kernel): a persistent grid of one
 * thread block per SM, 384 threads (3 warpgroups), up to 227 KB of shared memory; its tiles are
 * not published: FlashAttention-3's d = 128 tile (128 x 128, 2 consumer warpgroups) assumed. */
static const fa_tile_row cudnn_tiles[] = {
    {FA_PASS_FWD, 90, 128, -1, 128, 128, 12, 0}, {FA_PASS_FWD, 90, 256, -1, 128, 64, 12, 0},
    {FA_PASS_BWD, 90, 128, -1, 64, 128, 12, 0}, {FA_PASS_BWD, 90, 256, -1, 64, 64, 12, 0},
};
/* PyTorch's math path and kernels/ v0: library GEMMs; the tiles only shape fasim's count of
 * the row-block GEMMs (cuBLAS's 128 x 128 thread-block tile). */
/* Standard attention's GEMMs run in a library (cuBLAS), whose shared memory does not grow with d;
 * fasim's standard algorithm holds Q_i and an fp32 O_i of B_r rows, so its stand-in tiles shrink
 * with d to fit M: 128 up to d = 128, 64 to 256 (Gemma, GPT-J), 32 to 512, 16 beyond. */
static const fa_tile_row math_tiles[] = {
    {FA_PASS_FWD, 0, 128, -1, 128, 128, 4, 0}, {FA_PASS_BWD, 0, 128, -1, 128, 128, 4, 0},
    {FA_PASS_FWD, 0, 256, -1, 64, 64, 4, 0},   {FA_PASS_BWD, 0, 256, -1, 64, 64, 4, 0},
    {FA_PASS_FWD, 0, 512, -1, 32, 32, 4, 0},   {FA_PASS_BWD, 0, 512, -1, 32, 32, 4, 0},
    {FA_PASS_FWD, 0, 1 << 20, -1, 16, 16, 4, 0}, {FA_PASS_BWD, 0, 1 << 20, -1, 16, 16, 4, 0},
};
/* kernels/ (read off the sources; registers from ptxas -v agree with Nsight Compute's
 * occupancy: docs/time-model.md, "Our kernels").  v1's thread block runs 4 Q blocks of one head:
 * it is timed as flash1 on 256-row slices (analysis/measured/h200/make_compare_input.py). */
static const fa_tile_row v1_tiles[] = {{FA_PASS_FWD, 0, 128, -1, 64, 64, 8, 128}};
static const fa_tile_row v2_tiles[] = {{FA_PASS_FWD, 0, 64, -1, 64, 64, 8, 80}, {FA_PASS_FWD, 0, 128, -1, 64, 64, 8, 128}};
static const fa_tile_row v3_tiles[] = {{FA_PASS_FWD, 0, 64, -1, 128, 64, 8, 128},
                                       {FA_PASS_FWD, 0, 128, -1, 128, 64, 8, 187},
                                       {FA_PASS_BWD, 0, 64, -1, 64, 128, 8, 248},
                                       {FA_PASS_BWD, 0, 128, -1, 64, 128, 8, 255}};
static const fa_tile_row v3_bwd_bc64_tiles[] = {{FA_PASS_BWD, 0, 64, -1, 64, 64, 4, 240}, {FA_PASS_BWD, 0, 128, -1, 64, 64, 4, 255}};
static const fa_tile_row v3_mt2_tiles[] = {{FA_PASS_FWD, 0, 64, -1, 128, 64, 4, 231}, {FA_PASS_FWD, 0, 128, -1, 128, 64, 4, 255}};
static const fa_tile_row v3_mt2_bc32_tiles[] = {{FA_PASS_FWD, 0, 64, -1, 128, 32, 4, 181}, {FA_PASS_FWD, 0, 128, -1, 128, 32, 4, 251}};
static const fa_tile_row v3_br256_tiles[] = {{FA_PASS_FWD, 0, 64, -1, 256, 64, 8, 219}, {FA_PASS_FWD, 0, 128, -1, 256, 64, 8, 255}};
static const fa_tile_row v4_tiles[] = {{FA_PASS_FWD, 90, 64, -1, 128, 128, 8, 189}, {FA_PASS_FWD, 90, 128, -1, 128, 128, 8, 216}};
/* v5 (kernels/attn_v5_fa3.cu, v5_pick): d = 64 three consumer warpgroups (16 warps with the
 * producer) of 64 rows x B_c 128; d = 128 two (12 warps), 128 x 160 */
/* regs: the consumers' setmaxnreg count (V5Regs: 232 with two consumer warpgroups, 160 with three; the
 * producer 32) */
static const fa_tile_row v5_tiles[] = {{FA_PASS_FWD, 90, 64, -1, 192, 128, 16, 160}, {FA_PASS_FWD, 90, 128, -1, 128, 160, 12, 232}};
/* FlashAttention-4's forward on sm_100 (Dao-AILab/flash-attention at 0251105a, flash_attn/cute/
 * flash_fwd_sm100.py): two Q tiles of 128 rows per CTA (q_stage 2), B_c 128, d = 128; 16 warps
 * (two softmax warpgroups, a correction warpgroup, MMA, load and epilogue warps); registers per
 * thread: softmax 192, correction 80, the rest 512 - 2 x 192 - 80 = 48 (the tuning table): 128 on
 * average (the regs column), the 4 "other" warps as producers of 48 */
static const fa_tile_row fa4_tiles[] = {{FA_PASS_FWD, 100, 128, -1, 256, 128, 16, 128}};
/* v5 backward (kernels/attn_v5_bwd.cu, v5_bwd_dispatch and launch_v5_bwd): B_c = V5B_BC = 128 keys
 * a thread block, B_r 128 queries a step at d = 64 and 64 at d = 128; 384 threads = 12 warps (a
 * producer warpgroup of 40 registers after setmaxnreg, two consumer warpgroups of 232: V5BRegs) */
static const fa_tile_row v5_bwd_tiles[] = {{FA_PASS_BWD, 90, 64, -1, 128, 128, 12, 232},
                                           {FA_PASS_BWD, 90, 128, -1, 64, 128, 12, 232}};
/* v5_fp8 (kernels/attn_v5_fp8.cu; measured on the H200: s8_fp8_*, s9_fp8_*, s10_fp8_* files):
 * d = 128 only (the profile's d_min 128), two consumer warpgroups of 64 query rows (B_r 128) and a producer
 * warpgroup: 12 warps; B_c 128 (wgmma m64n128k32; the K/V scale blocks are 128 rows, so a tile has one
 * scale).  Registers: 168 a thread at launch (ptxas -v, Nsight Compute), setmaxnreg 32 for the producer
 * and 232 for the consumers (S 64 + O 64 + P 16 accumulator registers, Fp8Regs), no spills; regs: the consumers' 232. */
static const fa_tile_row v5_fp8_tiles[] = {{FA_PASS_FWD, 90, 128, -1, 128, 128, 12, 232}};
static const fa_tile_row v4_bc64_tiles[] = {{FA_PASS_FWD, 90, 64, -1, 128, 64, 8, 113}, {FA_PASS_FWD, 90, 128, -1, 128, 64, 8, 128}};

const fa_profile fa_profiles[] = {
    {.key = "paper", .name = "the paper's abstract model: every buffer in one SRAM of M (Theorem 2)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_NONE, .stages = 1,
     .source = "Dao et al. 2022 (arXiv 2205.14135) Algorithm 1 and Theorem 2; tiles from --blocks fit"},
    /* FlashAttention-2: S, P, acc_o, row max and sum in registers; Q, K, V in shared memory, Q
     * re-read by each warp (its rows) every tile, K and V by all 4 warps (kernel_traits.h,
     * flash_fwd_kernel.h); backward: dK, dV, S, dP in registers, 2 Q buffers, dO, K, V, P and dS
     * in shared memory; warp grids AtomLayoutMSdP x (8 / it) etc. give the operand reads */
#define FA2_KERNELS                                                                                                      \
    .algo = FA_ALGO_FLASH2, .mma = FA_MMA_SYNC, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS,              \
    .regs_fwd = REGS_FWD, .regs_bwd = REGS_BWD, .stages = 1, .smem_copies_bwd = 1, .base_regs = 32, .split_kv = 1,         \
    .ngroups_swap = 1,                                                                                                   \
    .reads_fwd = FWD(1, 4, 0, 4), .reads_bwd = BWD(2, 4, 2, 4, 2, 4, 2, 4, 2, 4), NT(fa2_tiles),                \
    .barriers_fwd = 2, .barriers_bwd = 3
#define FA2_SOURCE                                                                                                       \
    "Dao-AILab/flash-attention csrc/flash_attn/src: flash_fwd_launch_template.h, flash_bwd_launch_template.h, "          \
    "kernel_traits.h, flash_fwd_kernel.h, flash_bwd_kernel.h"
    {.key = "fa2", .name = "FlashAttention-2 (CUDA; the kernels PyTorch's flash backend runs on H100/H200)", FA2_KERNELS,
     .source = FA2_SOURCE},
    /* the same kernels as PyTorch's SDPA flash backend calls them on (B, H, N, d) tensors (kernels/
     * compare_sdpa.py's layout, the `sdpa_flash` rows of fasim compare): before the backward it makes
     * two strided copies into FlashAttention-2's (B, N, H, d) layout (torch.profiler: two
     * direct_copy_kernel launches a call, none when H = 1; s10_sdpa_breakdown.csv) */
    {.key = "sdpa_flash", .name = "PyTorch SDPA's flash backend on (B, H, N, d) tensors: fa2's kernels, two layout copies before the backward",
     FA2_KERNELS, .layout_copies_bwd = 2, .torch_sdpa = 1,
     .source = FA2_SOURCE "; torch.profiler of torch 2.11 SDPA (analysis/measured/h200/s10_sdpa_breakdown.csv)"},
    /* FlashAttention-1: one thread block per (batch, head); K_j, V_j in shared memory, Q_i steps
     * of 16 rows read by all 4 warps (each warp owns B_c / 4 keys); S in registers; O_i, l_i, m_i
     * through HBM every step (fp32 o_tmp) */
    {.key = "fa1", .name = "FlashAttention-1 (the paper's CUDA kernel, fmha)", .algo = FA_ALGO_FLASH1,
     .mma = FA_MMA_SYNC, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD, .regs_bwd = "S_ij dP_ij dK_j dV_j",
     .stages = 1, .smem_copies_bwd = 1, .base_regs = 32, .reads_fwd = FWD(4, 1, 0, 1),
     .reads_bwd = BWD(8, 1, 8, 1, 1, 8, 1, 8, 1, 1), NT(fa1_tiles),
     .source = "flash-attention v1.0.9 csrc/flash_attn/fmha_api.cpp, src/fmha/kernel_traits.h, "
               "fmha_fprop_kernel_1xN.h, fmha_dgrad_kernel_1xN_loop.h"},
    /* FlashAttention-3: TMA producer warpgroup, 2 (3 at d = 64 and 96) consumer warpgroups, wgmma from
     * shared memory (the tensor cores read Q, K, V there: in the wgmma rate), P in registers,
     * two-stage K/V, ping-pong between consumer warpgroups and softmax/GEMM overlap inside one
     * (the forward; fasim times the backward without ping-pong: overlap_bwd); persistent,
     * causal tiles heaviest first */
    {.key = "fa3", .no_alibi_dropout = 1, .name = "FlashAttention-3 (Hopper: TMA, wgmma, warp specialization, ping-pong)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD,
     .regs_bwd = REGS_BWD_WS, .stages = 2, .smem_copies_bwd = 1, .persistent = 1, .heavy_first = 1,
     .base_regs = 24, .producer_warps = 4, .producer_regs = 24, .fp8_vt_smem = 1, NT(fa3_tiles),
     .tiles_from = "FlashAttention-3 at 0251105a",
     /* a backward step's waits (S; dP; dV before dQ's issue; dQ before dK's) and barriers (dS written;
        the dQ tile free): hopper/mainloop_bwd_sm90_tma_gmma_ws.hpp bwd_step */
     .waits_bwd = 4, .barriers_bwd = 2,
     .source = "Shah et al. 2024 (arXiv 2407.08608) Sec. 3 (warp specialization, ping-pong, intra-warpgroup overlap); Dao-AILab/flash-attention hopper/ at 0251105a (tile_size.h, flash_bwd_launch_template.h) and 7f67966c (the paper's release: d = 64 without a mask)"},
    {.key = "cudnn", .name = "cuDNN fused attention on Hopper (as Nsight Compute sees it)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD,
     .regs_bwd = REGS_BWD_WS, .stages = 2, .smem_copies_bwd = 1, .persistent = 1, .heavy_first = 0,
     .base_regs = 24, .producer_warps = 4, .producer_regs = 24, NT(cudnn_tiles),
     /* warp instructions per score element, Nsight Compute at B 4, N 4096, non-causal
        (analysis/measured/h200/s9_issue.csv: smsp__inst_executed.sum / (tiles x B_r x B_c)) */
     .inst_by_d = {{64, 0.2575, 0.5727}, {128, 0.2901, 0.6959}},
     /* closed source: its backward's waits and barriers assumed to be FlashAttention-3's */
     .waits_bwd = 4, .barriers_bwd = 2,
     .source = "Nsight Compute on the lent H200 (analysis/measured/h200/v5_bwd_ncu.csv): 132 x 384 threads, persistent; tiles assumed; causal row blocks lightest first, head by head (s15_sched.csv: docs/time-model.md section 6)"},
    /* PyTorch's SDPA math backend: fp16/bf16 computed in fp32, composite ops (fa_std_ops) */
    {.key = "math", .name = "PyTorch's SDPA math backend (standard attention in fp32: casts, GEMM, mask, safe softmax, GEMM)",
     .algo = FA_ALGO_STANDARD, .mma = FA_MMA_LIBRARY, .stages = 1, .std_ops = FA_STD_TORCH_MATH, NT(math_tiles),
     .source = "torch.nn.functional.scaled_dot_product_attention with SDPBackend.MATH: "
               "aten/src/ATen/native/transformers/attention.cpp (_scaled_dot_product_attention_math, _safe_softmax), "
               "torch 2.5-2.11; kernel list checked with kernels/math_ops.py and Nsight Compute"},
    /* the FlashAttention papers' PyTorch baseline: S and P in the input dtype */
    {.key = "eager", .name = "standard attention in eager PyTorch, input dtype (the FlashAttention papers' baseline)",
     .algo = FA_ALGO_STANDARD, .mma = FA_MMA_LIBRARY, .stages = 1, .std_ops = FA_STD_THREE, NT(math_tiles),
     .source = "Dao-AILab/flash-attention benchmarks (attention_pytorch: baddbmm, softmax, einsum in fp16/bf16)"},
    {.key = "v0", .no_alibi_dropout = 1, .name = "kernels/ v0: cuBLAS S = QK^T, softmax kernel, cuBLAS O = PV",
     .algo = FA_ALGO_STANDARD, .mma = FA_MMA_LIBRARY, .stages = 1, .std_ops = FA_STD_V0, NT(math_tiles),
     .source = "kernels/attn_v0_naive.cu (two cublasGemmStridedBatchedEx, one softmax kernel)"},
    /* v1, v2: fp32 SIMT, 8 warps as a 16 x 16 thread grid, 4 x 4 register tiles of S; every warp
     * reads all of K and V from shared memory (v1: Q, O, l, m through HBM each step) */
    {.key = "v1", .no_alibi_dropout = 1, .name = "kernels/ v1: FlashAttention-1 loop order, fp32 SIMT", .algo = FA_ALGO_FLASH1,
     .mma = FA_MMA_SIMT, .overlap = FA_OVERLAP_NONE, .overlap_bwd = FA_OVERLAP_NONE, .regs_fwd = "O_i m_i l_i", .stages = 1, .base_regs = 32,
     .simt_tile = 4, .sync_loads = 1, NT(v1_tiles), .barriers_fwd = 3, /* the inner step's three __syncthreads */
     .source = "kernels/attn_v1_flash1.cu, kernels/simt_tile.cuh"},
    {.key = "v2", .no_alibi_dropout = 1, .name = "kernels/ v2: FlashAttention-2 loop order, fp32 SIMT", .algo = FA_ALGO_FLASH2,
     .mma = FA_MMA_SIMT, .overlap = FA_OVERLAP_NONE, .overlap_bwd = FA_OVERLAP_NONE, .regs_fwd = "O_i m_i l_i", .stages = 1, .base_regs = 32,
     .simt_tile = 4, .sync_loads = 1, NT(v2_tiles), .barriers_fwd = 3,
     .source = "kernels/attn_v2_flash2.cu, kernels/simt_tile.cuh"},
    /* v3: each warp 16 (v3) or 32 (mt2, br256) query rows: its Q rows and all of K and V by
     * ldmatrix every tile; K, V two-stage cp.async; causal row blocks heaviest first */
    {.key = "v3", .no_alibi_dropout = 1, .name = "kernels/ v3: FlashAttention-2 on mma.sync (ldmatrix, cp.async, swizzle)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_SYNC, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD,
     .regs_bwd = "S_ij dP_ij dK_j dV_j", .stages = 2, .heavy_first = 1, .base_regs = 32,
     .reads_fwd = FWD(1, 8, 0, 8), .reads_bwd = BWD(8, 1, 8, 1, 0, 8, 0, 8, 3, 4), NT(v3_tiles),
     .barriers_fwd = 2, .barriers_bwd = 2,
     .source = "kernels/attn_v3_flash2_tc.cu, kernels/attn_v3_bwd_tc.cu (v3_bwd: dQ by fp32 atomics)"},
    {.key = "v3_bwd_bc64", .no_alibi_dropout = 1, .name = "kernels/ v3_bwd_bc64 (4 warps, B_c 64, two blocks per SM)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_SYNC, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_bwd = "S_ij dP_ij dK_j dV_j",
     .stages = 2, .heavy_first = 1, .base_regs = 32, .reads_bwd = BWD(4, 1, 4, 1, 0, 4, 0, 4, 2, 4),
     NT(v3_bwd_bc64_tiles), .barriers_bwd = 2,
     .source = "kernels/attn_v3_bwd_tc.cu"},
    {.key = "v3_mt2", .no_alibi_dropout = 1, .name = "kernels/ v3_mt2 (4 warps of 32 rows)", .algo = FA_ALGO_FLASH2, .mma = FA_MMA_SYNC,
     .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD, .stages = 2, .heavy_first = 1, .base_regs = 32,
     .reads_fwd = FWD(1, 4, 0, 4), NT(v3_mt2_tiles), .barriers_fwd = 2,
     .source = "kernels/attn_v3_flash2_tc.cu"},
    {.key = "v3_mt2_bc32", .no_alibi_dropout = 1, .name = "kernels/ v3_mt2_bc32 (B_c 32)", .algo = FA_ALGO_FLASH2, .mma = FA_MMA_SYNC,
     .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD, .stages = 2, .heavy_first = 1, .base_regs = 32,
     .reads_fwd = FWD(1, 4, 0, 4), NT(v3_mt2_bc32_tiles), .barriers_fwd = 2,
     .source = "kernels/attn_v3_flash2_tc.cu"},
    {.key = "v3_br256", .no_alibi_dropout = 1, .name = "kernels/ v3_br256 (B_r 256, 8 warps)", .algo = FA_ALGO_FLASH2, .mma = FA_MMA_SYNC,
     .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD, .stages = 2, .heavy_first = 1, .base_regs = 32,
     .reads_fwd = FWD(1, 8, 0, 8), NT(v3_br256_tiles), .barriers_fwd = 2,
     .source = "kernels/attn_v3_flash2_tc.cu"},
    /* v4: two warpgroups of 64 rows; wgmma reads Q, K, V from 128-byte-swizzled shared memory
     * (in the wgmma rate), P from registers; no warp specialization */
    {.key = "v4", .no_alibi_dropout = 1, .name = "kernels/ v4: FlashAttention-2 forward on wgmma (B_c 128)", .algo = FA_ALGO_FLASH2,
     .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD, .stages = 2, .heavy_first = 1,
     .base_regs = 32, NT(v4_tiles), /* a tile: wg_wait<0> for S and for O += P V, one __syncthreads */
     .waits_fwd = 2, .barriers_fwd = 1,
     .source = "kernels/attn_v4_wgmma.cu"},
    {.key = "v4_bc64", .no_alibi_dropout = 1, .name = "kernels/ v4_bc64 (B_c 64, two blocks per SM)", .algo = FA_ALGO_FLASH2,
     .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS, .regs_fwd = REGS_FWD, .stages = 2, .heavy_first = 1,
     .base_regs = 32, NT(v4_bc64_tiles), .waits_fwd = 2, .barriers_fwd = 1,
     .source = "kernels/attn_v4_wgmma.cu"},
    /* v5: FlashAttention-3's forward structure: a TMA producer warpgroup (32 registers), consumer
     * warpgroups reading Q, K, V by wgmma from shared memory, P in registers, two-stage K/V,
     * ping-pong turns and the softmax under the previous tile's P V, a persistent grid taking
     * units from a ticket counter, causal row blocks heaviest first (forward only) */
    {.key = "v5", .no_alibi_dropout = 1, .name = "kernels/ v5: FlashAttention-3 structure (TMA, warp specialization, ping-pong, persistent)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_fwd = REGS_FWD, .stages = 2, .persistent = 1, .heavy_first = 1, .base_regs = 24, .producer_warps = 4,
     .producer_regs = 32, NT(v5_tiles),
     .inst_by_d = {{64, 0.2415, 0}, {128, 0.2638, 0}}, /* s9_issue.csv, as cudnn's */
     .source = "kernels/attn_v5_fa3.cu (v5_pick)"},
    /* v5 with FlashAttention-4's ideas (kernels/attn_v5_fa3.cu variants 7, 8, 9: v5_exp2poly,
     * v5_cresc, v5_fa4): identical to v5 but for the parameters named -- the fraction of the
     * exponentials computed by exp2_fma (tc_common.cuh) on the FMA pipe: softmax_m16's EMU of a
     * row's NB = B_c / 8 n8 blocks, 6 of 16 at d = 64 (B_c 128: 0.375), 7 of 20 at d = 128 (B_c
     * 160: 0.35), each FA_PERF_POLY_EXP_OPS_V5 = 11 slots (7 on the FMA pipe, 2 ALU ops at half
     * rate); rescale_skip, the fraction of the O_i rescales conditional rescaling (tau = 8, O *=
     * alpha skipped for a warp whose 16 rows all keep their max) skips: on N(0, 1) inputs fasim
     * check --rescale-threshold 8 counts one rescale per row block of T_c tiles (1 - 1/T_c
     * skipped: 0.97 at N = 4k, B_c 128), 0.9 is taken for the kernel's measured shapes
     * (FlashAttention-4's authors report about ten times fewer rescales; an assumption, not a fit) */
    {.key = "v5_exp2poly", .no_alibi_dropout = 1, .name = "kernels/ v5 with 3/8 (d = 64) or 7/20 (d = 128) of the exponentials as an FMA polynomial (FlashAttention-4)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_fwd = REGS_FWD, .stages = 2, .persistent = 1, .heavy_first = 1, .base_regs = 24, .producer_warps = 4,
     .producer_regs = 32, .exp_poly_by_d = {{64, 6.0 / 16}, {128, 7.0 / 20}}, .exp_poly_ops = FA_PERF_POLY_EXP_OPS_V5,
     NT(v5_tiles),
     .source = "kernels/attn_v5_fa3.cu (v5_pick variant 7: EMU 6 of 16, 7 of 20; tc_common.cuh softmax_m16), kernels/tc_common.cuh exp2_fma"},
    {.key = "v5_cresc", .no_alibi_dropout = 1, .name = "kernels/ v5 with conditional rescaling, threshold 8 (FlashAttention-4)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_fwd = REGS_FWD, .stages = 2, .persistent = 1, .heavy_first = 1, .base_regs = 24, .producer_warps = 4,
     .producer_regs = 32, .rescale_skip = 0.9, NT(v5_tiles),
     .source = "kernels/attn_v5_fa3.cu (v5_pick variant 8, tc_common.cuh softmax_m16 CR, TAU = 8); flash_attn/cute/softmax.py SoftmaxSm100 rescale_threshold"},
    {.key = "v5_fa4", .no_alibi_dropout = 1, .name = "kernels/ v5 with both: the exp split and conditional rescaling (FlashAttention-4)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_fwd = REGS_FWD, .stages = 2, .persistent = 1, .heavy_first = 1, .base_regs = 24, .producer_warps = 4,
     .producer_regs = 32, .exp_poly_by_d = {{64, 6.0 / 16}, {128, 7.0 / 20}}, .exp_poly_ops = FA_PERF_POLY_EXP_OPS_V5,
     .rescale_skip = 0.9, NT(v5_tiles),
     .source = "kernels/attn_v5_fa3.cu (v5_pick variant 9: EMU 6 of 16, 7 of 20, CR), kernels/tc_common.cuh exp2_fma"},
    /* v5_fp8: v5's FlashAttention-3 structure in FP8 (FlashAttention-3 paper, Sec. 3.3) -- a TMA
     * producer warpgroup (32 registers, as v5) and two ping-ponging consumer warpgroups; S = Q K^T
     * and O += P V both on wgmma m64n128k32 e4m3 x e4m3 -> fp32 (wgmma_fp8_flops; Q, K, V^T read
     * by the tensor cores from shared memory, P from registers after scaling by 2^8 and
     * cvt.rn.satfinite.e4m3x2.f32: one cvt per 2 scores, in place of v5's cvt.rn.bf16x2 -- the same
     * fp32-pipe slots, ALU_PER_SCORE_FWD; the 2^8 folded into the exponent's FFMA); one ex2 per
     * score as v5; two-stage K / V^T ring.  Overlap: the ping-pong between the two consumers only --
     * within a consumer ptxas (CUDA 13.0) schedules the wait for its own P V before its softmax (SASS;
     * also with P's A registers kept allocated), so a softmax runs under the other
     * consumer's GEMMs, as the ping-pong law
     * (max(G, S) + min(G, S) / 2) assumes; one thread block per (row block, head, batch), not
     * persistent, causal row blocks heaviest first (v5_unit's order).  HBM: Q, K, V^T in e4m3 (1
     * byte), O in bf16 (o_bytes 2), LSE fp32, one int32 scale exponent per 128 rows of Q, K and V
     * (scale_rows) read with each tile, and V^T written by a transpose pre-pass (v_prepass) */
    {.key = "v5_fp8", .no_alibi_dropout = 1, .name = "kernels/ v5_fp8: v5 in FP8 e4m3 (per-block scales, V^T pre-pass, O in bf16)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_fwd = REGS_FWD, .stages = 2, .heavy_first = 1, .base_regs = 24, .producer_warps = 4,
     .producer_regs = 32, .dtypes = "fp8_e4m3", .o_bytes = 2, .scale_rows = 128, .v_prepass = 1, .d_min = 128, NT(v5_fp8_tiles),
     .source = "kernels/attn_v5_fp8.cu (built on attn_v5_fa3.cu, PERS = 0); "
               "Shah et al. 2024 (arXiv 2407.08608) Sec. 3.3"},
/* the v5 backward's placement and tiles (kernels/attn_v5_bwd.cu), shared by its configurations */
#define V5_BWD_KERNEL                                                                                                   \
    .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS,        \
    .regs_bwd = "S_ij dP_ij dK_j dV_j dQ_i", .stages = 2, .ds_smem_bwd = 2, .dq_smem_bwd = 1, .dq_reduce = 1,          \
    .stat_copies_bwd = 24, .base_regs = 24, .producer_warps = 4, .producer_regs = 40, NT(v5_bwd_tiles),             \
    .waits_bwd = 3, .barriers_bwd = 2
    /* v5's backward (kernels/attn_v5_bwd.cu): a block per K/V block of 128 keys (grid T_c x H_kv x
     * B, key block fastest: launched in index order), every GEMM a wgmma -- S^T = K Q^T and dP^T =
     * V dO^T from shared memory (SS), dV += P^T dO and dK += dS^T Q with P^T, dS^T from registers
     * (RS), dQ = dS K from shared memory -- so no operand load is issued by the threads (reads 0, as
     * the other wgmma profiles).  Registers: S^T / P^T, dP^T / dS^T, dK_j, dV_j and the dQ
     * accumulator; shared memory: K_j, V_j, Q_i and dO_i in a 2-stage TMA ring, dS^T in 2 buffers
     * (the only B_r x B_c tile written: P stays in registers), dQ_i's fp32 tile that one producer
     * warp adds to dQacc with one cp.reduce.async.bulk a step (the L2 does the add), LSE_i and D_i
     * in 3 copies per consumer warp (24).  Overlap: the two consumer warpgroups meet at a named
     * barrier every step (both halves of dS^T before the dQ GEMM): in step, no ping-pong, one
     * block per SM -- WARPS; inside a warpgroup the exponentials run under dP^T's wgmma and the
     * dS^T store under dV/dK's, which the law does not count.  Pre-pass D = rowsum(dO o O) and
     * post-pass dQacc -> dQ: the flash2 backward's two small kernels.  The instruction counts are the
     * default build's (CFG V5B_CUTS: v5_bwd_lean's cuts plus the mask only on the tiles that
     * cross it, dS^T by stmatrix, LSE_i / D_i rows advanced; s10_issue.csv): 0.5499 at d = 128, 0.3467
     * at d = 64, against 0.9542 and 0.6155 of the build without cuts, v5_bwd_cfg0 (s9_issue.csv).
     * At d = 128 the default also takes LSE_i, D_i with the Q_i, dO_i stage (one copy a stage, not
     * 3 per consumer warp: V5B_LDTMA) and alternates two dQ tiles (V5B_DQ2; attn_v5_bwd.cu): the
     * profile keeps the d = 64 placement (24 copies, one dQ tile), which overstates its shared memory
     * by about 11 KB at d = 128 -- the occupancy (one block an SM) is the same -- and its instruction
     * count is V5B_CUTS's, not re-measured; its sweep (s11_final_sweep128.csv) is predicted within
     * 15 % on every row. */
    {.key = "v5_bwd", .no_alibi_dropout = 1, .name = "kernels/ v5_bwd: FlashAttention-3 backward structure (TMA, wgmma, dQ by TMA reduce-add)",
     V5_BWD_KERNEL,
     .inst_by_d = {{64, 0, 0.3467}, {128, 0, 0.5499}}, /* s10_issue.csv, as cudnn's */
     .source = "kernels/attn_v5_bwd.cu (v5_bwd_dispatch, launch_v5_bwd, V5BRegs, fa_v5_bwd_kernel)"},
    /* v5_bwd_lean: v5_bwd with its operand descriptors advanced from one per operand and step and
     * no integer division per step without GQA (kernels/attn_v5_bwd.cu CFG V5B_DINC | V5B_NODIV,
     * fabench v5_bwd_lean), without the default's other cuts: the same tiles, placement and GEMMs,
     * 20 % fewer instructions at d = 128 than v5_bwd_cfg0 (s9_issue.csv); the default (v5_bwd)
     * issues 28 % fewer than this one */
    {.key = "v5_bwd_lean", .no_alibi_dropout = 1, .name = "kernels/ v5_bwd_lean: v5_bwd with descriptors advanced and no division per step only (CFG 48)",
     V5_BWD_KERNEL,
     .inst_by_d = {{64, 0, 0.5305}, {128, 0, 0.7643}}, /* s9_issue.csv */
     .source = "kernels/attn_v5_bwd.cu (variant 8: CFG V5B_DINC | V5B_NODIV)"},
    /* v5_bwd_cfg0: v5_bwd built with none of the instruction cuts (CFG 0: the v5_bwd rows of the
     * measured files v5_bwd_sweep.csv, s8_v5_bwd_sweep.csv, s9_bwd_*: `fasim compare --kernel-profile
     * v5_bwd=v5_bwd_cfg0`); its counts are Nsight Compute's of that binary (s9_issue.csv) */
    {.key = "v5_bwd_cfg0", .no_alibi_dropout = 1, .name = "kernels/ v5_bwd_cfg0: v5_bwd without its instruction cuts (CFG 0; v5_bwd_sweep.csv's, s8_*, s9_bwd_* v5_bwd rows)",
     V5_BWD_KERNEL,
     .inst_by_d = {{64, 0, 0.6155}, {128, 0, 0.9542}}, /* s9_issue.csv */
     .source = "kernels/attn_v5_bwd.cu built with CFG 0 (fabench v5_bwd in those files)"},
    /* v5_bwd_pers: the same kernel on a persistent grid (min(units, SMs) blocks taking units
     * blockIdx.x + k gridDim.x): the next unit's K_j, V_j load while the consumers finish.  Its
     * instruction counts (and v5_bwd_atomic's) were measured on builds without the instruction cuts,
     * which these variants run too: not re-counted */
    {.key = "v5_bwd_pers", .no_alibi_dropout = 1, .name = "kernels/ v5_bwd_pers: v5_bwd on a persistent grid",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_bwd = "S_ij dP_ij dK_j dV_j dQ_i", .stages = 2, .ds_smem_bwd = 2, .dq_smem_bwd = 1, .dq_reduce = 1,
     .stat_copies_bwd = 24, .persistent = 1, .base_regs = 24, .producer_warps = 4, .producer_regs = 40,
     NT(v5_bwd_tiles), .inst_by_d = {{64, 0, 0.6136}, {128, 0, 0.9524}}, /* s9_issue.csv */
     .waits_bwd = 3, .barriers_bwd = 2,
     .source = "kernels/attn_v5_bwd.cu (variant 2, PERS)"},
    /* v5_bwd_atomic: dQ_i added by the consumers' fp32 atomics straight from the wgmma accumulator
     * (atomic_add_tile: red.global at the L2), no shared dQ tile; the atomics' issue cost is in its
     * instruction count (inst_by_d) */
    {.key = "v5_bwd_atomic", .no_alibi_dropout = 1, .name = "kernels/ v5_bwd_atomic: v5_bwd with dQ by fp32 atomics from the consumers",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_WGMMA, .overlap = FA_OVERLAP_WARPS, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_bwd = "S_ij dP_ij dK_j dV_j dQ_i", .stages = 2, .ds_smem_bwd = 2, .dq_reduce = 1,
     .stat_copies_bwd = 24, .base_regs = 24, .producer_warps = 4, .producer_regs = 40, NT(v5_bwd_tiles),
     .inst_by_d = {{64, 0, 0.7152}, {128, 0, 1.1594}}, /* s9_issue.csv: the atomics issue */
     /* no dQ tile: no dQ-empty barrier */
     .waits_bwd = 3, .barriers_bwd = 1,
     .source = "kernels/attn_v5_bwd.cu (variant 1, RED = false: atomic_add_tile)"},
    /* FlashAttention-4 (B200): tcgen05.mma with S and O in tensor memory (charged to the register
     * arena, which stands for registers + TMEM here), softmax warpgroups ping-ponging over the two Q
     * tiles, 40 % of the exponentials on the FMA units (d = 128 non-causal: ex2_emu_freq 10,
     * ex2_emu_res 4; causal 16: 25 %, not modelled apart), the polynomial on packed f32x2 FMAs
     * (ex2_emulation_2: 3 FFMA2 + 3 FADD2 for two values, 2 FMNMX slots and 2 integer ops per
     * value: 7 slots), rescale threshold 8 (rescale_skip 0.9 as v5_cresc, assumed); the 2-CTA MMA
     * mode and the correction warpgroup's own pipe are not modelled */
    {.key = "fa4", .no_alibi_dropout = 1, .name = "FlashAttention-4 (Blackwell sm_100: tcgen05, TMEM, exp2 emulation, conditional rescaling)",
     .algo = FA_ALGO_FLASH2, .mma = FA_MMA_TCGEN05, .overlap = FA_OVERLAP_PINGPONG, .overlap_bwd = FA_OVERLAP_WARPS,
     .regs_fwd = REGS_FWD, .stages = 2, .persistent = 1, .heavy_first = 1, .base_regs = 24, .producer_warps = 4,
     .producer_regs = 48, .exp_poly_frac = 0.4, .exp_poly_ops = 7, .rescale_skip = 0.9, NT(fa4_tiles),
     .source = "Zadouri et al. 2026 (arXiv 2603.05451); Dao-AILab/flash-attention at 0251105a flash_attn/cute/flash_fwd_sm100.py, softmax.py, utils.py"},
};
const int fa_nprofiles = (int)(sizeof fa_profiles / sizeof fa_profiles[0]);

int fa_profile_has_format(const fa_profile *p) { return p->o_bytes > 0 || p->scale_rows > 0 || p->v_prepass; }

/* The refusal of profile p (a tile table for another GPU) on a GPU of compute capability arch x 10. */
static fa_status arch_fail(const fa_profile *p, int arch)
{
    FA_FAIL(FA_EINVAL, "profile %s runs on sm_%d (%s); the hardware profile is sm_%d%s", p->key, p->tiles[0].arch,
            p->tiles[0].arch >= 100 ? "Blackwell: tcgen05" : "Hopper: wgmma", arch, arch ? "" : " (it gives no arch)");
}

fa_status fa_profile_check_arch(const fa_profile *p, int arch)
{
    if (!p->tiles || p->ntiles <= 0) return FA_OK;
    for (int i = 0; i < p->ntiles; i++)
        if (!p->tiles[i].arch || p->tiles[i].arch == arch) return FA_OK;
    return arch_fail(p, arch);
}

fa_status fa_profile_check_shape(const fa_profile *p, const fa_shape *s)
{
    /* FlashAttention-3 (hopper/flash_attn_interface.py flash_attn_func at 0251105a), FlashAttention-4
     * (flash_attn/cute/interface.py) and kernels/ take no ALiBi slopes and no dropout_p */
    if (p->no_alibi_dropout && (s->alibi || s->dropout_p > 0))
        FA_FAIL(FA_EINVAL, "profile %s: the kernel takes no %s (%s): --profile fa2 or cudnn times a kernel that does",
                p->key, s->alibi ? "ALiBi slopes" : "dropout",
                !strcmp(p->key, "fa3") ? "FlashAttention-3's flash_attn_func has no alibi_slopes or dropout_p"
                : !strcmp(p->key, "fa4") ? "FlashAttention-4's interface has no alibi_slopes or dropout_p"
                                         : "kernels/ implement neither: kernels/README.md");
    if (!p->torch_sdpa) return FA_OK;
    /* aten/src/ATen/native/transformers/cuda/sdp_utils.cpp, use_flash_attention's constraints */
    if (s->causal != FA_CAUSAL_NONE && s->seqlen_q != s->seqlen_k)
        FA_FAIL(FA_EINVAL, "profile %s: PyTorch's SDPA does not send is_causal with N_q != N_k to its flash backend "
                "(N_q = %lld, N_k = %lld; sdp_utils.cpp, check_flash_causal_non_square_seqlens): --profile fa2 times "
                "FlashAttention-2's own API, whose causal mask is anchored bottom-right", p->key,
                (long long)s->seqlen_q, (long long)s->seqlen_k);
    if (s->d_v != s->d)
        FA_FAIL(FA_EINVAL, "profile %s: PyTorch's SDPA sends its flash backend only Q, K, V of one head dim, not d = %lld, "
                "d_v = %lld (sdp_utils.cpp, check_head_dim_size_flash): --profile fa2 counts d_v != d as given",
                p->key, (long long)s->d, (long long)s->d_v);
    const char *what = s->window ? "a sliding window" : s->softcap > 0 ? "a softcap" : s->alibi ? "ALiBi"
                       : s->block_mask ? "a block mask" : s->col_mask ? "a column mask" : s->dense_mask ? "a dense mask" : NULL;
    if (what)
        FA_FAIL(FA_EINVAL, "profile %s: PyTorch's SDPA has no argument for %s (as an attn_mask its flash backend refuses "
                "it: sdp_utils.cpp, check_for_attn_mask): --profile fa2 times FlashAttention-2's own API", p->key, what);
    return FA_OK;
}

double fa_profile_inst_per_elem(const fa_profile *p, int bwd, int64_t d)
{
    const int n = (int)(sizeof p->inst_by_d / sizeof p->inst_by_d[0]);
    for (int i = 0; i < n && p->inst_by_d[i].d_max > 0; i++)
        if (d <= p->inst_by_d[i].d_max) return bwd ? p->inst_by_d[i].bwd : p->inst_by_d[i].fwd;
    return 0;
}

double fa_profile_exp_poly_frac(const fa_profile *p, int64_t d)
{
    const int n = (int)(sizeof p->exp_poly_by_d / sizeof p->exp_poly_by_d[0]);
    for (int i = 0; i < n && p->exp_poly_by_d[i].d_max > 0; i++)
        if (d <= p->exp_poly_by_d[i].d_max) return p->exp_poly_by_d[i].frac;
    return p->exp_poly_frac;
}

const fa_profile *fa_profile_find(const char *key)
{
    for (int i = 0; i < fa_nprofiles; i++)
        if (!strcmp(fa_profiles[i].key, key)) return &fa_profiles[i];
    return NULL;
}

fa_status fa_profile_parse(const char *key, const fa_profile **out)
{
    const fa_profile *p = fa_profile_find(key);
    if (!p) {
        char list[512];
        size_t l = 0;
        for (int i = 0; i < fa_nprofiles; i++)
            l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", fa_profiles[i].key);
        FA_FAIL(FA_EINVAL, "unknown kernel profile '%s' (known: %s)", key, list);
    }
    *out = p;
    return FA_OK;
}

const fa_profile *fa_profile_default(fa_algo a)
{
    return fa_profile_find(a == FA_ALGO_STANDARD ? "eager" : a == FA_ALGO_FLASH1 ? "fa1" : "fa2");
}

/* 1 when shape s has a sliding window as FlashAttention-3 classes one (hopper/flash_api.cpp at
 * 0251105a, mha_fwd): a window edge at least N_k - 1 (left) or N_q - 1 (right) wide is none; a
 * causal mask sets the right edge to 0; is_causal = no left edge and a right edge of 0; is_local =
 * some edge and not is_causal (a causal mask with a left edge, or a window without a mask). */
static int tile_local(const fa_shape *s)
{
    if (!s->window) return 0;
    int64_t wl = s->window_left, wr = s->window_right;
    if (wl >= s->seqlen_k - 1) wl = -1;
    if (wr >= s->seqlen_q - 1) wr = -1;
    if (s->causal != FA_CAUSAL_NONE) wr = 0;
    const int is_causal = wl < 0 && wr == 0;
    return (wl >= 0 || wr >= 0) && !is_causal;
}

fa_status fa_profile_tiles(const fa_profile *p, fa_pass pass, int arch, const fa_shape *s,
                           fa_blocks *bk, const fa_tile_row **row)
{
    if (!p->tiles)
        FA_FAIL(FA_EINVAL, "profile %s has no tile table (tiles come from --blocks fit or --block-r/--block-c)", p->key);
    /* fasim's own kernels (a profile whose source is kernels/) are built for d = d_v = 64 and 128 only:
     * fabench refuses other head dims (kernels/README.md, "Conventions"), so no time is predicted for them */
    const int own = p->source && !strncmp(p->source, "kernels/", 8);
    if (own && ((s->d != 64 && s->d != 128) || s->d_v != s->d))
        FA_FAIL(FA_EINVAL, "profile %s is fasim's kernel %.*s, built for head dims d = d_v = 64 and 128 only, not d = %lld, "
                "d_v = %lld (kernels/README.md; --profile fa2, fa3 or cudnn time other head dims)", p->key,
                (int)strcspn(p->source, " ,;"), p->source, (long long)s->d, (long long)s->d_v);
    /* ... and for the input formats fabench builds them in: the SIMT kernels (v1, v2) in fp32, the
     * tensor-core ones in fp16 and bf16 (v5_fp8 names its own: fa_profile.dtypes), v0 in any but fp8 */
    const int fp8 = s->dtype == FA_DTYPE_E4M3 || s->dtype == FA_DTYPE_E5M2, fp32 = s->dtype == FA_DTYPE_FP32;
    if (own && !p->dtypes &&
        ((p->mma == FA_MMA_SIMT && !fp32) || ((p->mma == FA_MMA_SYNC || p->mma == FA_MMA_WGMMA) && (fp8 || fp32)) || fp8))
        FA_FAIL(FA_EINVAL, "profile %s is fasim's kernel %.*s, built for --dtype %s only, not %s (kernels/README.md)", p->key,
                (int)strcspn(p->source, " ,;"), p->source,
                p->mma == FA_MMA_SIMT ? "fp32" : p->mma == FA_MMA_LIBRARY ? "fp32, fp16 or bf16" : "fp16 or bf16",
                fa_dtype_name(s->dtype));
    const int fa3 = !strcmp(p->key, "fa3");
    if (fa3 && s->dtype == FA_DTYPE_E5M2)
        FA_FAIL(FA_EINVAL, "profile fa3: FlashAttention-3 takes fp16, bf16 and fp8_e4m3 (hopper/flash_api.cpp at 0251105a, "
                "mha_fwd's q_type check), not --dtype fp8_e5m2");
    if (fa3 && fp8 && pass == FA_PASS_BWD)
        FA_FAIL(FA_EINVAL, "profile fa3: FlashAttention-3 has no FP8 backward (hopper/flash_api.cpp at 0251105a, mha_bwd: "
                "fp16 and bf16 only), not --dtype %s; --pass fwd times its FP8 forward", fa_dtype_name(s->dtype));
    if (fa3 && pass == FA_PASS_BWD && s->d > 192 && s->d <= 256)
        FA_FAIL(FA_EINVAL, "profile fa3 has no backward tile for d = %lld: FlashAttention-3 at 0251105a runs d = 256's "
                "backward at 64 x 80 with one dO and one dS stage (tile_size_bwd_sm90), a placement the profile does not "
                "model (its two-stage 64 x 64 needs 272 KiB of shared memory, over a block's 227 KiB); --pass fwd, or "
                "--profile fa2 for the backward", (long long)s->d);
    const int causal = s->causal != FA_CAUSAL_NONE, local = tile_local(s);
    for (int i = 0; i < p->ntiles; i++) {
        const fa_tile_row *t = &p->tiles[i];
        if (t->pass != pass || (t->arch && t->arch != arch) || s->d > t->d_max ||
            s->d_v > (t->dv_max ? t->dv_max : t->d_max) || s->d < p->d_min || s->d_v < p->d_min ||
            (t->causal >= 0 && t->causal != causal) || (t->local && !local) || (t->fp8 && !fp8) ||
            (t->nk_max && s->seqlen_k > t->nk_max))
            continue;
        /* the kernel's tiles whatever N: a kernel allocates and computes its whole B_r x B_c tile
         * (FlashAttention-2's split kernel runs 64 query rows for one decoding row); the counts
         * move only the rows and keys there are */
        bk->block_r = t->block_r;
        bk->block_c = t->block_c;
        *row = t;
        return FA_OK;
    }
    int pass_rows = 0, arch_rows = 0, dmax = 0;
    const int dmin = p->d_min;
    for (int i = 0; i < p->ntiles; i++) {
        const fa_tile_row *t = &p->tiles[i];
        if (t->pass != pass) continue;
        pass_rows++;
        if (t->arch && t->arch != arch) continue;
        arch_rows++;
        if (t->d_max > dmax) dmax = t->d_max;
    }
    if (!pass_rows)
        FA_FAIL(FA_EINVAL, "profile %s has no %s kernel (it is a %s-only kernel)", p->key,
                pass == FA_PASS_BWD ? "backward" : "forward", pass == FA_PASS_BWD ? "forward" : "backward");
    if (!arch_rows) return arch_fail(p, arch);
    char range[64]; /* the head dims the table covers */
    if (dmin <= 1) snprintf(range, sizeof range, "d <= %d", dmax);
    else if (dmin == dmax) snprintf(range, sizeof range, "d = d_v = %d only", dmax);
    else snprintf(range, sizeof range, "%d <= d <= %d", dmin, dmax);
    FA_FAIL(FA_EINVAL, "profile %s has no %s tile for head dim d = %lld, d_v = %lld (its kernels take %s)", p->key,
            fa_pass_name(pass), (long long)s->d, (long long)s->d_v, range);
}
