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
#define NT(t) t, (int)(sizeof t / sizeof t[0])

static const char REGS_FWD[] = "S_ij O_i m_i l_i";
static const char REGS_BWD[] = "S_ij dP_ij dK_j dV_j dQ_i L_i D_i";

/* FlashAttention-2 (csrc/flash_attn/src/flash_fwd_launch_template.h, run_mha_fwd_hdim64/128;
 * flash_bwd_launch_template.h run_mha_bwd_hdim64/128): H100/H200 take the sm80 branch (not
 * sm8x) with 227 KiB of shared memory per block. */
static const fa_tile_row fa2_tiles[] = {
    {FA_PASS_FWD, 0, 64, 128, 128, 4},  {FA_PASS_FWD, 0, 128, 128, 64, 4},
    {FA_PASS_FWD, 0, 256, 64, 64, 4},
    {FA_PASS_BWD, 0, 64, 128, 128, 8},  {FA_PASS_BWD, 0, 128, 64, 128, 8},
    {FA_PASS_BWD, 0, 256, 64, 64, 8},
};
/* FlashAttention-1 (flash-attention v1 csrc/flash_attn/fmha_api.cpp: blocksize_c 256 for
 * d <= 64, 128 above; kernel traits STEP = 16 query rows per step, 4 warps along the keys). */
static const fa_tile_row fa1_tiles[] = {
    {FA_PASS_FWD, 0, 64, 16, 256, 4}, {FA_PASS_FWD, 0, 128, 16, 128, 4},
    {FA_PASS_BWD, 0, 64, 16, 256, 8}, {FA_PASS_BWD, 0, 128, 16, 128, 8},
};
/* FlashAttention-3 (hopper/tile_size.h tile_size_fwd_sm90 / tile_size_bwd_sm90, bf16): warps =
 * consumer warpgroups x 4 + one producer warpgroup. */
static const fa_tile_row fa3_tiles[] = {
    {FA_PASS_FWD, 90, 64, 192, 128, 16}, {FA_PASS_FWD, 90, 128, 128, 128, 12},
    {FA_PASS_FWD, 90, 256, 128, 80, 12},
    {FA_PASS_BWD, 90, 64, 128, 128, 12}, {FA_PASS_BWD, 90, 128, 64, 128, 12},
    {FA_PASS_BWD, 90, 256, 64, 64, 12},
};
/* cuDNN's Hopper fused attention as Nsight Compute shows it (FACTS.md): a persistent grid of one
 * thread block per SM, 384 threads (3 warpgroups), up to 227 KB of shared memory; the tile sizes
 * are not published: 128 x 128 assumed, as FlashAttention-3's d = 128 tile. */
static const fa_tile_row cudnn_tiles[] = {
    {FA_PASS_FWD, 90, 128, 128, 128, 12}, {FA_PASS_FWD, 90, 256, 128, 64, 12},
    {FA_PASS_BWD, 90, 128, 64, 128, 12}, {FA_PASS_BWD, 90, 256, 64, 64, 12},
};
/* PyTorch's math path and kernels/ v0: library GEMMs; the tiles only shape fasim's count of
 * the row-block GEMMs (cuBLAS's 128 x 128 CTA tile). */
static const fa_tile_row math_tiles[] = {
    {FA_PASS_FWD, 0, 1 << 20, 128, 128, 4}, {FA_PASS_BWD, 0, 1 << 20, 128, 128, 4},
};
/* kernels/ (read off the sources; ptxas -v for registers: docs/time-model.md) */
static const fa_tile_row v1_tiles[] = {{FA_PASS_FWD, 0, 128, 64, 64, 8}};
static const fa_tile_row v2_tiles[] = {{FA_PASS_FWD, 0, 128, 64, 64, 8}};
static const fa_tile_row v3_tiles[] = {{FA_PASS_FWD, 0, 128, 128, 64, 8},
                                       {FA_PASS_BWD, 0, 128, 64, 128, 8}};
static const fa_tile_row v3_mt2_tiles[] = {{FA_PASS_FWD, 0, 128, 128, 64, 4}};
static const fa_tile_row v3_mt2_bc32_tiles[] = {{FA_PASS_FWD, 0, 128, 128, 32, 4}};
static const fa_tile_row v3_br256_tiles[] = {{FA_PASS_FWD, 0, 128, 256, 64, 8}};
static const fa_tile_row v4_tiles[] = {{FA_PASS_FWD, 90, 128, 128, 128, 8}};
static const fa_tile_row v4_bc64_tiles[] = {{FA_PASS_FWD, 90, 128, 128, 64, 8}};

const fa_profile fa_profiles[] = {
    {"paper", "the paper's abstract model: every buffer in one SRAM of M (Theorem 2)", FA_ALGO_FLASH2,
     FA_MMA_NONE, FA_OVERLAP_NONE, NULL, NULL, 1, 0, 0, 0, 0, 0, FWD(0, 0, 0, 0),
     BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NULL, 0,
     "Dao et al. 2022 (arXiv 2205.14135) Algorithm 1 and Theorem 2; tiles from --blocks fit"},
    {"fa2", "FlashAttention-2 (CUDA, sm80 kernels; also what H100/H200 run)", FA_ALGO_FLASH2, FA_MMA_SYNC,
     FA_OVERLAP_WARPS, REGS_FWD, REGS_BWD, 1, 1, 0, 0, 32, 0, FWD(1, 4, 0, 4),
     BWD(4, 2, 4, 2, 2, 4, 2, 4, 2, 4), NT(fa2_tiles),
     "Dao-AILab/flash-attention csrc/flash_attn/src: flash_fwd_launch_template.h, "
     "flash_bwd_launch_template.h, kernel_traits.h (S, P, acc_o, row max/sum in registers; Q, K, V "
     "in shared memory, Q re-read per tile)"},
    {"fa1", "FlashAttention-1 (the paper's CUDA kernel, fmha)", FA_ALGO_FLASH1, FA_MMA_SYNC, FA_OVERLAP_WARPS,
     REGS_FWD, "S_ij dP_ij dK_j dV_j", 1, 1, 0, 0, 32, 0, FWD(4, 1, 0, 1),
     BWD(2, 4, 2, 4, 4, 2, 4, 2, 4, 2), NT(fa1_tiles),
     "flash-attention v1.0 csrc/flash_attn/fmha_api.cpp (blocksize_c), src/fmha/kernel_traits.h, "
     "fmha_fprop_kernel_1xN.h (one thread block per head: K/V outer, 16-row Q steps inner)"},
    {"fa3", "FlashAttention-3 (Hopper: TMA, wgmma, warp specialization, ping-pong)", FA_ALGO_FLASH2,
     FA_MMA_WGMMA, FA_OVERLAP_PINGPONG, REGS_FWD, REGS_BWD, 2, 1, 1, 1, 24, 0, FWD(0, 0, 0, 0),
     BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(fa3_tiles),
     "Shah et al. 2024 (arXiv 2407.08608) Sec. 3.1-3.2; Dao-AILab/flash-attention hopper/tile_size.h"},
    {"cudnn", "cuDNN fused attention on Hopper (as Nsight Compute sees it)", FA_ALGO_FLASH2, FA_MMA_WGMMA,
     FA_OVERLAP_PINGPONG, REGS_FWD, REGS_BWD, 2, 1, 1, 1, 24, 0, FWD(0, 0, 0, 0),
     BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(cudnn_tiles),
     "Nsight Compute on the lent H200 (shared/FACTS.md): 132 x 384 threads, persistent; tiles assumed"},
    {"math", "PyTorch's math path (standard attention: GEMM, softmax, GEMM)", FA_ALGO_STANDARD,
     FA_MMA_LIBRARY, FA_OVERLAP_NONE, NULL, NULL, 1, 0, 0, 0, 0, 0, FWD(0, 0, 0, 0),
     BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(math_tiles), "torch.nn.functional.scaled_dot_product_attention, SDPBackend.MATH"},
    {"v0", "kernels/ v0: cuBLAS S = QK^T, softmax kernel, cuBLAS O = PV", FA_ALGO_STANDARD, FA_MMA_LIBRARY,
     FA_OVERLAP_NONE, NULL, NULL, 1, 0, 0, 0, 0, 0, FWD(0, 0, 0, 0), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
     NT(math_tiles), "kernels/attn_v0_naive.cu"},
    {"v1", "kernels/ v1: FlashAttention-1 loop order, fp32 SIMT", FA_ALGO_FLASH1, FA_MMA_SIMT,
     FA_OVERLAP_NONE, REGS_FWD, NULL, 1, 0, 0, 0, 32, 4, FWD(1, 1, 1, 1), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
     NT(v1_tiles), "kernels/attn_v1_flash1.cu, kernels/simt_tile.cuh"},
    {"v2", "kernels/ v2: FlashAttention-2 loop order, fp32 SIMT", FA_ALGO_FLASH2, FA_MMA_SIMT,
     FA_OVERLAP_NONE, REGS_FWD, NULL, 1, 0, 0, 0, 32, 4, FWD(1, 1, 1, 1), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
     NT(v2_tiles), "kernels/attn_v2_flash2.cu, kernels/simt_tile.cuh"},
    {"v3", "kernels/ v3: FlashAttention-2 on mma.sync (ldmatrix, cp.async, swizzle)", FA_ALGO_FLASH2,
     FA_MMA_SYNC, FA_OVERLAP_WARPS, REGS_FWD, REGS_BWD, 2, 1, 0, 0, 32, 0, FWD(0, 4, 0, 4),
     BWD(4, 2, 4, 2, 2, 4, 2, 4, 2, 4), NT(v3_tiles), "kernels/attn_v3_flash2_tc.cu, attn_v3_bwd_tc.cu"},
    {"v3_mt2", "kernels/ v3_mt2", FA_ALGO_FLASH2, FA_MMA_SYNC, FA_OVERLAP_WARPS, REGS_FWD, NULL, 2, 0, 0, 0,
     32, 0, FWD(0, 4, 0, 4), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(v3_mt2_tiles), "kernels/attn_v3_flash2_tc.cu"},
    {"v3_mt2_bc32", "kernels/ v3_mt2_bc32", FA_ALGO_FLASH2, FA_MMA_SYNC, FA_OVERLAP_WARPS, REGS_FWD, NULL, 2,
     0, 0, 0, 32, 0, FWD(0, 4, 0, 4), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(v3_mt2_bc32_tiles),
     "kernels/attn_v3_flash2_tc.cu"},
    {"v3_br256", "kernels/ v3_br256", FA_ALGO_FLASH2, FA_MMA_SYNC, FA_OVERLAP_WARPS, REGS_FWD, NULL, 2, 0, 0,
     0, 32, 0, FWD(0, 8, 0, 8), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(v3_br256_tiles),
     "kernels/attn_v3_flash2_tc.cu"},
    {"v4", "kernels/ v4: FlashAttention-2 forward on wgmma", FA_ALGO_FLASH2, FA_MMA_WGMMA, FA_OVERLAP_WARPS,
     REGS_FWD, NULL, 2, 0, 0, 0, 32, 0, FWD(0, 0, 0, 0), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(v4_tiles),
     "kernels/attn_v4_wgmma.cu"},
    {"v4_bc64", "kernels/ v4_bc64", FA_ALGO_FLASH2, FA_MMA_WGMMA, FA_OVERLAP_WARPS, REGS_FWD, NULL, 2, 0, 0,
     0, 32, 0, FWD(0, 0, 0, 0), BWD(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), NT(v4_bc64_tiles), "kernels/attn_v4_wgmma.cu"},
};
const int fa_nprofiles = (int)(sizeof fa_profiles / sizeof fa_profiles[0]);

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
    return fa_profile_find(a == FA_ALGO_STANDARD ? "math" : a == FA_ALGO_FLASH1 ? "fa1" : "fa2");
}

fa_status fa_profile_tiles(const fa_profile *p, fa_pass pass, int arch, const fa_shape *s,
                           fa_blocks *bk, int *warps)
{
    if (!p->tiles)
        FA_FAIL(FA_EINVAL, "profile %s has no tile table (tiles come from --blocks fit or --block-r/--block-c)", p->key);
    for (int i = 0; i < p->ntiles; i++) {
        const fa_tile_row *t = &p->tiles[i];
        if (t->pass != pass || (t->arch && t->arch != arch) || s->d > t->d_max || s->d_v > t->d_max) continue;
        int64_t cq = fa_cdiv(s->seqlen_q, 16) * 16, ck = fa_cdiv(s->seqlen_k, 16) * 16;
        bk->block_r = t->block_r < cq ? t->block_r : cq;
        bk->block_c = t->block_c < ck ? t->block_c : ck;
        *warps = t->warps;
        return FA_OK;
    }
    FA_FAIL(FA_EINVAL, "profile %s has no %s tile for head dim d = %lld, d_v = %lld on sm_%d%s", p->key,
            fa_pass_name(pass), (long long)s->d, (long long)s->d_v, arch,
            arch ? "" : " (the hardware profile gives no arch)");
}
