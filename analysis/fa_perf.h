/* fa_perf.h -- kernel profiles, placement and occupancy, and the time model of the GPU's pipes.
 *
 * Three parts stay apart (shared/DESIGN.md, "The model of the machine"; derivations in
 * docs/time-model.md):
 *  - the hardware (fa_hw.h): capacities and the rate of each pipe, from datasheets and the
 *    microbenchmark kernels/ubench_pipes.cu (its output in analysis/measured/h200/ubench.csv);
 *  - a kernel profile (fa_profile, below): what a real kernel does -- loop order, its tile table
 *    by pass, GPU and head dim, warps, which buffers live in registers, the MMA instruction
 *    family, which GEMM operands it reads from shared memory and how many warps read each, and
 *    how its softmax overlaps its GEMMs;
 *  - the cost (fa_perf_predict): the profile's tiles placed on the hardware -- registers and
 *    shared memory per thread block, occupancy, waves of thread blocks over the SMs, each pipe's
 *    busy time, and the time with the pipe that bounds it.
 * The paper's abstract model (one SRAM of M for every buffer; Dao et al. 2022, Theorem 2) is the
 * profile "paper": it has no tile table (tiles come from --blocks fit) and no kernel, so it
 * predicts no time beyond the roofline of fasim io.
 *
 * Units: seconds, bytes, FLOPs (FMA = 2), exponentials; rates per second for the whole GPU.
 */
#ifndef FA_PERF_H
#define FA_PERF_H

#include "fa_analysis.h"

/* The MMA instruction family a kernel's GEMMs run on (the pipe and its rate in fa_hw). */
typedef enum {
    FA_MMA_NONE = 0,  /* the paper's abstract model: no kernel */
    FA_MMA_SIMT,      /* fp32 FMA on the CUDA cores (fa_hw.fma_flops) */
    FA_MMA_SYNC,      /* mma.sync m16n8k16 (sm_80 tensor cores; fa_hw.mma_sync_flops) */
    FA_MMA_WGMMA,     /* wgmma.mma_async (sm_90; fa_hw.wgmma_flops, fp8: wgmma_fp8_flops) */
    FA_MMA_LIBRARY,   /* separate library GEMM kernels (cuBLAS; fa_hw.gemm_flops): standard attention */
    FA_MMA_TCGEN05    /* tcgen05.mma (sm_100: accumulators in tensor memory; fa_hw.tcgen05_flops,
                         fp8: tcgen05_fp8_flops) */
} fa_mma;

/* How a kernel's softmax (the exp unit and the fp32 ALU, time S of a tile at the SM's rates)
 * overlaps its GEMMs (tensor cores and shared-memory operand loads, time G): a tile takes
 * max(G, S) + min(G, S) / w, where w counts the instruction streams per warp scheduler whose
 * phases are out of step (docs/time-model.md, "Overlap"):
 *   NONE       w = 1                  (nothing hides the shorter phase)
 *   WARPS      w = blocks per SM      (a barrier per tile keeps one block's warps in step; the
 *                                      other resident blocks fill the gaps)
 *   PINGPONG   w = 2 x blocks per SM  (two consumer warpgroups alternate GEMM and softmax;
 *                                      one GEMM of the first tile is exposed per thread block)
 *   PIPELINED  w = 2 x blocks per SM  (softmax of tile j beside the GEMM of tile j + 1 in one
 *                                      warpgroup; one softmax exposed per thread block)  */
typedef enum { FA_OVERLAP_NONE = 0, FA_OVERLAP_WARPS, FA_OVERLAP_PINGPONG, FA_OVERLAP_PIPELINED } fa_overlap;

/* The kernels a standard-attention profile (FA_MMA_LIBRARY) launches (docs/time-model.md,
 * "Standard attention"):
 *   THREE       GEMM S = Q K^T, one softmax kernel, GEMM O = P V, S and P in the input dtype
 *               (the FlashAttention papers' PyTorch baseline); the backward as one GEMM term and
 *               one memory term
 *   V0          kernels/ v0: the same three, its softmax reading only the keys the causal mask
 *               allows (attn_v0_naive.cu)
 *   TORCH_MATH  PyTorch's SDPA math backend (torch >= 2.5, aten/src/ATen/native/transformers/
 *               attention.cpp, _scaled_dot_product_attention_math): fp16/bf16 inputs cast to
 *               fp32 (allow_fp16_bf16_reduction_math_sdp = False, the default), Q and K^T
 *               scaled by sqrt(scale), fp32 GEMMs without TF32, the causal mask built as an
 *               N_q x N_k fp32 tensor and added, _safe_softmax (softmax, isneginf, all, where),
 *               the casts of O and of the probabilities back to the input dtype */
typedef enum { FA_STD_THREE = 0, FA_STD_V0, FA_STD_TORCH_MATH } fa_std_ops;

/* One row of a profile's tile table: the first row whose pass, arch, d_max (and dv_max) and mask
 * match is used. */
typedef struct {
    fa_pass pass;   /* FA_PASS_FWD or FA_PASS_BWD */
    int arch;       /* the GPU's compute capability x 10 this row is for; 0: any */
    int d_max;      /* the row applies when d <= d_max */
    int causal;     /* -1: either; 0: without a causal mask only; 1: with one only */
    int block_r, block_c;
    int warps;      /* warps per thread block */
    int regs;       /* registers per thread as compiled (ptxas -v, Nsight Compute); 0: derived
                       from the placement (fa_occupancy) */
    int dv_max;     /* the row applies when d_v <= dv_max; 0: when d_v <= d_max (FlashAttention-3's
                       d <= 192 tile depends on d_v apart from d) */
    int local;      /* 1: the row applies only to a sliding window as FlashAttention-3 classes one
                       (hopper/flash_api.cpp: a window edge shorter than the sequence, left of a
                       causal mask or either side without one: is_local); 0: to any mask (a
                       local row before it takes the windowed shapes) */
    int fp8;        /* 1: the row applies only to 1-byte inputs (fp8_e4m3, fp8_e5m2: FlashAttention-3's
                       tile_size_fwd_sm90 element_size == 1 branch); 0: to any dtype (an fp8 row
                       before it takes FP8) */
    int nk_max;     /* the row applies when N_k <= nk_max; 0: at any N_k (FlashAttention-1's short-sequence
                       kernels, fmha_api.cpp: max_seqlen_k <= 128 runs B_c = 128) */
    const char *note; /* NULL, or where this row's tiles come from when that is not the rest of the
                       table's source (another commit of the kernel): fasim io and explain print it
                       as a note: line whenever the row's tiles are used */
} fa_tile_row;

/* Where the GEMM operands of one K/V tile step come from: for each operand, how many warps of
 * the thread block read the whole operand tile from shared memory (0: it is in registers).
 * Forward (2 GEMMs): S = Q K^T, O += P V: {Q, K}, {P, V}.  Backward (5 GEMMs, FlashAttention-2
 * Algorithm 2, the backward's loop body): S = Q K^T, dP = dO V^T, dV += P^T dO, dK += dS^T Q, dQ += dS K. */
#define FA_PERF_GEMMS 5
typedef struct {
    unsigned char a[FA_PERF_GEMMS], b[FA_PERF_GEMMS];
} fa_operand_reads;

typedef struct {
    const char *key;            /* the --profile spelling: "fa2", "v3", ... */
    const char *name;           /* "FlashAttention-2 (CUDA, sm80 kernels)" */
    fa_algo algo;               /* the loop order: standard, flash1, flash2 */
    fa_mma mma;
    fa_overlap overlap;         /* the forward's */
    fa_overlap overlap_bwd;     /* the backward's */
    const char *regs_fwd;       /* forward buffers kept in registers (cpu_ref names, e.g. "S_ij O_i m_i l_i") */
    const char *regs_bwd;       /* backward buffers kept in registers */
    int stages;                 /* K/V (forward) or Q/dO (backward) tile buffers in shared memory
                                   (2: double buffering); 1 = as the algorithm allocates them */
    int smem_copies_bwd;        /* 1: P and dS are also written to shared memory (in the input
                                   dtype) for the transposed GEMMs of the backward */
    int ds_smem_bwd;            /* backward kernels that keep P in registers (dV += P^T dO by an RS
                                   wgmma) and stage only dS: the dS buffers of B_r x B_c in the
                                   input dtype in shared memory (2: double-buffered), one written a
                                   tile (e B_r B_c bytes on the shared-memory pipe); 0: none (or
                                   both P and dS: smem_copies_bwd) */
    int dq_smem_bwd;            /* 1: the backward stores dQ_i (B_r x d, fp32) into a shared tile
                                   every tile for a TMA reduce-add (4 B_r d bytes of shared memory,
                                   written a tile by the consumers: 4 B_r d bytes on the pipe) */
    int dq_reduce;              /* 1: dQ_i is added to dQacc by a reduction in the L2 (TMA
                                   cp.reduce.async.bulk, red / atomicAdd): the SM sends the tile and
                                   the L2 does the read-modify-write, so the main loop's dQacc reads
                                   do not cross SM <-> L2 (they leave the L2 pipe's bytes) */
    int stat_copies_bwd;        /* copies of L_i and D_i (B_r fp32 each) the backward keeps in
                                   shared memory when they are not in registers (0 or 1: one, the
                                   SRAM arena's; kernels/ v5_bwd: 3 per consumer warp, 24) */
    int persistent;             /* 1: one wave of SMs x occupancy thread blocks schedules the tiles */
    int heavy_first;            /* 1: causal row blocks with the most tiles run first */
    int sync_loads;             /* 1: the kernel loads each tile's operands (and, FlashAttention-1
                                   order, its O_i, l_i, m_i) without prefetching: the load is a
                                   third phase of the tile (kernels/ v1, v2) */
    int no_alibi_dropout;       /* 1: the kernel takes neither ALiBi slopes nor dropout (FlashAttention-3
                                   and -4, kernels/): --alibi and --dropout refused (fa_profile_check_shape) */
    int torch_sdpa;             /* 1: reached through PyTorch's scaled_dot_product_attention, which
                                   sends its flash backend only what sdp_utils.cpp admits
                                   (fa_profile_check_shape) */
    int ngroups_swap;           /* 1: a forward of one query row (N_q = 1) with H > H_kv runs as
                                   H / H_kv rows of H_kv heads (fa_profile_ngroups_swap) */
    int split_kv;               /* 1: a forward whose grid would not fill the GPU splits the keys
                                   across thread blocks and combines (FlashAttention-2's
                                   num_splits_heuristic, fa_split_kv_heuristic) */
    int base_regs;              /* registers per thread beside the placed buffers (addresses,
                                   indices, loop state, operand fragments in flight) */
    int producer_warps;         /* warp-specialized kernels: warps that only issue the TMA loads
                                   (they give their registers to the consumers: setmaxnreg) */
    int producer_regs;          /* registers per producer thread (FlashAttention-3: 24) */
    int simt_tile;              /* SIMT kernels: each thread computes a t x t register tile of a
                                   GEMM, reading t + t fp32 operands from shared memory per k */
    fa_operand_reads reads_fwd, reads_bwd;
    /* What a consumer stream waits on in a tile besides its pipes, read from the kernel's code
       (docs/time-model.md section 5, "Waits and barriers"): wgmma.wait_group instructions that wait
       for a GEMM the stream just issued (each exposes the wgmma pipeline's latency beyond its
       tensor time: hw wgmma_wait_cycles) and block or named barriers (__syncthreads, bar.sync:
       hw barrier_cycles), forward and backward.  Charged where nothing schedules other work into
       them -- the overlap policies none and warps, / w_phase; a ping-pong or pipelined schedule
       exists to fill them; 0: none or not counted */
    int waits_fwd, waits_bwd, barriers_fwd, barriers_bwd;
    /* FlashAttention-4's two softmax ideas (Zadouri et al. 2026, arXiv 2603.05451; forward only;
       docs/time-model.md, "Exponentials on the FMA units, skipped rescales"): */
    double exp_poly_frac;       /* fraction of the exponentials computed by a polynomial on the fp32
                                   FMA pipe (FA_PERF_POLY_EXP_OPS issue slots each) instead of the
                                   exp unit; 0: all on MUFU */
    struct { int d_max; double frac; } exp_poly_by_d[4]; /* exp_poly_frac by head dim: the first
                                   entry with d <= d_max (d_max 0 ends the list; none: exp_poly_frac) --
                                   kernels/ v5's split is a whole number of n8 blocks of B_c, so its
                                   fraction changes with the tile (fa_profile_exp_poly_frac) */
    struct { int d_max; double fwd, bwd; } inst_by_d[3]; /* warp instructions the SM issues per score
                                   element of a tile (all its warps: producer and consumer), forward
                                   and backward, by head dim (the first entry with d <= d_max; d_max 0
                                   ends the list; 0: not measured): Nsight Compute's
                                   smsp__inst_executed.sum over the tiles x B_r x B_c the model counts,
                                   at B 4, N 4096, non-causal (kernels/run_issue_ncu.sh,
                                   analysis/measured/h200/s9_issue.csv).  The softmax phase takes at least
                                   their issue time (fa_perf_kernel.t_issue; docs/time-model.md section 4,
                                   "Issue slots") -- an instruction count, not a time */
    double exp_poly_ops;        /* fp32 issue slots per polynomial exponential (0: FA_PERF_POLY_EXP_OPS) */
    double rescale_skip;        /* fraction of the O_i rescales (B_r d_v FMULs a tile) skipped by
                                   conditional rescaling (fasim check --rescale-threshold counts them) */
    fa_std_ops std_ops;         /* standard attention: the kernels it launches */
    /* The kernel's HBM formats where they differ from fasim's algorithm, which stores every
       tensor in the dtype (docs/io-model.md, "An FP8 forward kernel"; forward, flash2 only): */
    const char *dtypes;         /* the --dtype values the kernel takes (fa_dtype_name spellings,
                                   space-separated); NULL: any its MMA family takes */
    int o_bytes;                /* bytes per element of O in HBM (kernels/ v5_fp8: 2, bf16); 0: the
                                   dtype's */
    int scale_rows;             /* > 0: Q, K and V each carry one int32 scale exponent per scale_rows
                                   rows (a power of two per block), read with every tile loaded: one
                                   per tile, so the tiles must divide scale_rows (or be the whole,
                                   clamped sequence) */
    int v_prepass;              /* 1: the kernel reads V as V^T (d_v x N_k per kv head), written by a
                                   separate transpose kernel that reads V and writes V^T once per kv
                                   head: the pre-pass, counted and timed apart (fa_perf_result
                                   prepass_*; fasim compare's kernel name KEY_prepass) */
    int fp8_vt_smem;            /* 1: with 1-byte inputs the forward also keeps V_j transposed in
                                   shared memory: `stages` more buffers of B_c x d_v (FlashAttention-3's
                                   Transpose_V, its TensorStorageTransposeV: smem_v beside smem_vt, the
                                   producer warpgroup transposing each V tile TMA loads) */
    const char *tiles_from;     /* whose tiles the table holds, for fasim explain ("the tiles X runs");
                                   NULL: "the real kernel" */
    int layout_copies_bwd;      /* (B, H, N_q, d_v) tensors the framework copies into (B, N, H, d)
                                   layout before the backward when H > 1 and N_q > 1 (PyTorch's
                                   flash backend on (B, H, N, d) inputs: dO and O, 2; seen in
                                   torch.profiler, analysis/measured/h200/s10_sdpa_breakdown.csv),
                                   each read and written once at transpose_copy_bytes_per_s;
                                   their bytes in the DRAM estimate, not in the counts */
    const fa_tile_row *tiles;   /* NULL: --blocks fit (the paper's model) */
    int d_min;                  /* the tile rows apply only when d >= d_min and d_v >= d_min too; 0: any
                                   d up to a row's d_max (kernels/ v5_fp8 is built for d = 128 alone) */
    int ntiles;
    const char *source;         /* where each fact comes from */
} fa_profile;

/* fp32-pipe issue slots of one exponential computed as FlashAttention-4's polynomial (Dao-AILab/
 * flash-attention at 0251105a, flash_attn/cute/utils.py ex2_emulation, poly_degree 3): the clamp
 * FMNMX (2 slots: half the FFMA rate, as in the row max), three FADD of the range reduction
 * (round down, back, the fraction), three FFMA of the degree-3 Horner polynomial for 2^frac, and the
 * SHL and integer add that put the integer part in the exponent -- 10 slots, every one charged to the
 * fp32 pipe at the FFMA rate (the two integer ops may issue elsewhere: an upper bound). */
#define FA_PERF_POLY_EXP_OPS 10.0

/* fp32-pipe issue slots of one exponential as kernels/tc_common.cuh's exp2_fma (the v5 variants
 * v5_exp2poly, v5_fa4): three FADD (x + 1.5 2^23 rounded down, its integer part back, the fraction),
 * three FFMA (Horner) and one IMAD (the integer part into the exponent field) on the FMA pipe -- 7
 * slots -- and an FSETP and an FSEL (x < -125 gives 0) on the ALU pipe, which runs at half the
 * FFMA rate (ubench fmax_f32, as the row max's FMNMX: 2 slots each) -- 7 + 2 x 2 = 11 slots. */
#define FA_PERF_POLY_EXP_OPS_V5 11.0

/* FA_OK when profile p has no tile table or some row of it runs on a GPU of compute capability
 * arch x 10 (a row's arch 0: any).  Errors: FA_EINVAL naming the profile, the sm_ it runs on and
 * the hardware profile's (fa_perf_predict refuses with it whether or not tiles are given). */
fa_status fa_profile_check_arch(const fa_profile *p, int arch);

/* FA_EINVAL, naming the rule and the value, for a shape profile p's caller never sends its kernel:
 * a torch_sdpa profile (sdpa_flash) with the causal flag and N_q != N_k (PyTorch's
 * check_flash_causal_non_square_seqlens), d_v != d (check_head_dim_size_flash), or a window,
 * softcap, ALiBi, block, column or dense mask (SDPA has no such argument; as attn_mask its flash
 * backend refuses it: check_for_attn_mask).  FA_OK otherwise (and for every other profile). */
fa_status fa_profile_check_shape(const fa_profile *p, const fa_shape *s);
/* Warp instructions per score element profile p issues in pass bwd (0 forward, 1 backward) at
 * head dim d (inst_by_d; 0: not measured). */
double fa_profile_inst_per_elem(const fa_profile *p, int bwd, int64_t d);
/* The fraction of the exponentials profile p computes with the polynomial at head dim d
 * (exp_poly_by_d, else exp_poly_frac). */
double fa_profile_exp_poly_frac(const fa_profile *p, int64_t d);

/* 1 when profile p's kernel stores some tensor in another format than fasim's algorithm counts
 * (o_bytes, scale_rows) or runs a pre-pass (v_prepass): its bytes are then fa_perf_predict's
 * (r->io), not those of fa_io_run. */
int fa_profile_has_format(const fa_profile *p);

/* The built-in profiles, and a lookup by key (NULL when unknown). */
extern const fa_profile fa_profiles[];
extern const int fa_nprofiles;
const fa_profile *fa_profile_find(const char *key);
/* Parses a --profile value.  Errors: FA_EINVAL naming the value and the known keys. */
fa_status fa_profile_parse(const char *key, const fa_profile **out);
/* The profile an algorithm's rows use by default: standard -> "eager" (standard attention in
 * its input dtype, what fasim counts),
 * flash1 -> "fa1" (the FlashAttention-1 kernel), flash2 -> "fa2" (FlashAttention-2). */
const fa_profile *fa_profile_default(fa_algo a);

/* The tile row of profile p for pass (FA_PASS_FWD or FA_PASS_BWD) on a GPU of compute
 * capability arch x 10, head dim d and mask (*row; the first row that matches); its tiles in bk,
 * clamped to 16 ceil(N / 16) like --blocks fit.
 * Errors: FA_EINVAL when the profile has no tile table or no row for (pass, arch, d). */
fa_status fa_profile_tiles(const fa_profile *p, fa_pass pass, int arch, const fa_shape *s,
                           fa_blocks *bk, const fa_tile_row **row);

/* The pipes whose busy time the model reports. */
typedef enum {
    FA_PIPE_TENSOR = 0, /* the MMA family's pipe (fp32 FMA for SIMT kernels) */
    FA_PIPE_SMEM,       /* shared-memory operand loads (ldmatrix / ld.shared) */
    FA_PIPE_EXP,        /* the exp unit (MUFU ex2) */
    FA_PIPE_FP32,       /* fp32 ALU: max, scale, sums, conversions, rescale */
    FA_PIPE_L2,         /* L2 -> SM bytes */
    FA_PIPE_DRAM,       /* DRAM bytes (estimated, docs/time-model.md "DRAM") */
    FA_NPIPE
} fa_pipe;
/* The pipe's name as the tables print it ("tensor", "smem", "exp", "fp32", "L2", "DRAM"; "?"
 * for a value out of range). */
const char *fa_pipe_name(fa_pipe p);

/* Placement and occupancy of one kernel of a profile (docs/time-model.md, "Occupancy"). */
typedef struct {
    fa_blocks blocks;
    int warps, threads;
    uint64_t smem_bytes;  /* shared memory per thread block (the SRAM arena's peak, extra stages,
                             P/dS copies) */
    uint64_t reg_bytes;   /* the register arena's peak (buffers placed in registers) */
    int regs_per_thread;  /* reg_bytes / 4 / (consumer) threads + base_regs, rounded up to 8, at
                             most the limit (beyond it the rest spills: spill_regs) */
    int producer_warps;   /* warps of producer_regs registers each (0: every warp alike) */
    int producer_regs;
    int spill_regs;       /* registers per thread beyond the limit (0: none) */
    int occupancy;        /* thread blocks per SM */
    const char *limit;    /* what limits occupancy: "registers", "shared memory", "threads", "blocks" */
} fa_occupancy;

/* Computes the occupancy of thread blocks of `threads` threads holding smem_bytes of shared
 * memory and regs_per_thread registers (producer_warps of them producer_regs) on hw:
 * min(regs_per_sm / (registers per block, each warp's rounded up to 256), sram_per_sm / (smem + 1 KiB reserved per block),
 * threads_per_sm / threads, blocks_per_sm).  Fills occupancy and limit of o.
 * Errors: FA_EINVAL when the block does not fit one SM (naming the resource and both values)
 * or hw has no regs_per_sm / threads_per_sm / blocks_per_sm. */
fa_status fa_occupancy_compute(const fa_hw *hw, fa_occupancy *o);

/* The derivation of one kernel's time (fasim explain prints it; docs/time-model.md): a tile's
 * work and each pipe's time for it at the SM's rates, the overlap, the waves. */
typedef struct {
    double mm, exps, alu, smem;      /* a tile's tensor FLOPs, exponentials on the exp unit, fp32 ops
                                        (polynomial exponentials included), smem bytes */
    double tensor_rate, clock_scale; /* the MMA family's rate (FLOP/s, GPU) and the other pipes' clock factor */
    double load_duty, load_clock_hz; /* wgmma_clock_by_load applied: the tensor pipe's share of the time at the
                                        full-load clock and the clock it gives (0, 0: not applied) */
    double t_tensor, t_smem, t_exp, t_fp32; /* their times on one SM, s */
    double inst, t_issue;            /* warp instructions a tile issues (inst_by_d x B_r x B_c; 0: not
                                        measured) and their issue time on one SM at issue_per_sm_clk, s */
    double w_gemm, w_phase;          /* streams that overlap inside the GEMM phase, and across phases */
    double c_gemm;                   /* with ldsm_law: G = max + c_gemm min */
    int ldsm_law;                    /* 1: G from ldsm_mma_overlap; 0: max + min / w_gemm */
    double G, S, tile;               /* GEMM phase, softmax phase, the tile (fa_overlap) */
    int waits, barriers;             /* the profile's waits and barriers a tile (this pass) */
    double t_wait;                   /* their latency a tile, s: (waits x wgmma_wait_cycles + barriers x
                                        barrier_cycles) / the SM clock; tile holds t_wait / w_phase of it
                                        (0: not charged: ping-pong / pipelined, or no constants) */
    double t_load;                   /* a kernel without prefetch (sync_loads): its third phase L, the
                                        tile's loads; 0 otherwise */
    double edge;                     /* a block's prologue + epilogue, s */
    double once;                     /* the phase a block leaves exposed once, s: G (ping-pong), S (pipelined), 0 */
    const char *sets;                /* what sets the kernel's time: "L2" or "DRAM" when its bound is the
                                        largest, else the waves' tile: its longer phase, "softmax" (S),
                                        "loads" (a kernel without prefetch) or G's busier pipe ("tensor",
                                        "smem"; "fp32" for SIMT GEMMs) -- docs/time-model.md section 6 */
    double tiles;                    /* tiles visited over the whole grid */
    double blocks_per_sm;            /* blocks that share an SM (occupancy, or fewer for a small grid) */
    double makespan, fluid;          /* the waves' time, and with every slot busy to the end */
    double t_l2, t_dram, extra, launch, time; /* L2 and DRAM bounds, small kernels, launches, total */
    int launches;                    /* the kernel launches in launch (launch = launches x hw launch_s) */
    double pre, post, copies;   /* the flash2 backward's small kernels (in extra), s: the pre-pass (D
                                   and the dQacc clear), the post-pass (dQacc -> dQ), the framework's
                                   layout copies (layout_copies_bwd) */
    double copies_bytes;        /* those copies' bytes, read + written (in the DRAM estimate, not
                                   in the counts: the framework's, not the algorithm's) */
} fa_perf_kernel;

/* The SM clock (Hz) that hw's wgmma_clock_by_load gives at a tensor-pipe share duty of a kernel's
 * time (linear between its points, the end points' clocks beyond them); wgmma_clock_hz when the
 * profile has no such points.  docs/time-model.md, section 1. */
double fa_hw_wgmma_clock_at(const fa_hw *hw, double duty);

/* One kernel of a standard-attention profile's sequence: its GEMM FLOPs at `rate`, its DRAM
 * bytes, its exponentials, and its time (the largest of the three at the GPU's rates). */
#define FA_PERF_STD_STEPS 40
typedef struct {
    const char *what;  /* "GEMM S = Q K^T (fp32)", "softmax", ... */
    double flops, rate, bytes, exps, time;
    double bw;         /* the bytes' rate, B/s: dram_bytes_per_s, or the measured rate of PyTorch's
                          kernel for this op (fa_hw torch_*), which bw_src then names */
    const char *bw_src;
} fa_std_step;

/* The prediction of one pass (fwd, bwd or fwdbwd = the sum) of a profile on a shape and GPU. */
typedef struct {
    fa_perf_kernel k[2];     /* [0] forward, [1] backward: the derivation (when in the pass) */
    fa_std_step steps[2][FA_PERF_STD_STEPS]; /* standard attention: the kernels of each pass */
    int nsteps[2];
    const fa_profile *profile;
    fa_pass pass;
    int has_time;            /* 0: hw lacks a pipe rate the model needs (only counts, occupancy) */
    char why[160];           /* when has_time is 0: which key is missing */
    int latency;             /* not a pipe: 1 the launches take half the time ("launch"), 2 a grid
                                of less than one wave leaves SMs idle ("grid") */
    int splits;              /* the forward's split-KV count (1: none) */
    int ngroups_swapped;     /* 1: the forward ran as fa_profile_ngroups_swap's shape */
    int64_t count_periods[2]; /* > 0: a causal pass's softmax FLOPs counted at four smaller N and
                                extended by this many periods of lcm(B_r, B_c) (exact: a quadratic
                                in the periods; docs/time-model.md, "Counting at large N"); 0:
                                counted whole */
    fa_occupancy occ[2];     /* [0] forward kernel, [1] backward kernel (when in the pass) */
    fa_io_result io;         /* the two-level counts with the profile's tiles and placement
                                (fwdbwd: both passes; the forward's tiles in io.blocks) */
    int64_t ctas[2];         /* thread blocks of the main kernel of each pass */
    double waves[2];         /* ctas / (SMs x occupancy) */
    uint64_t dram_bytes;     /* estimated DRAM bytes (docs/time-model.md, "DRAM"), with the backward's
                                layout copies (k[1].copies_bytes) */
    uint64_t compulsory_bytes; /* every tensor read and written once */
    double busy[FA_NPIPE];   /* each pipe's busy time, s (summed over SMs / SMs) */
    unsigned pipes;          /* the pipes the model charges, bit 1 << fa_pipe: all six for a fused
                                kernel; standard attention's library kernels only their GEMMs' pipe
                                (tensor, or fp32 for SGEMM), exp and DRAM -- the others' busy time
                                is 0 because they are not modelled, the tables print '-' */
    double makespan_s;       /* the waves of thread blocks over the SMs, with prologue latency */
    double launch_s;         /* kernel launches */
    double time_s;           /* the prediction */
    fa_pipe bound;           /* the pipe with the largest busy time */
    const char *sets;        /* what sets the time (fa_perf_kernel.sets of the longer kernel; standard
                                attention: its bound pipe's name); the tables' "bound" column */
    int tail;                /* 1 when the last wave's tail (a grid that does not fill whole waves,
                                causal imbalance) adds over 10 % to the waves' time */
    /* the V -> V^T pre-pass of a profile with v_prepass (0 otherwise): not in time_s, io or busy
       (a kernel of its own, which fabench times apart): its bytes, read V and written V^T once,
       B H_kv N_k d_v e each, at the DRAM copy rate, plus a launch */
    uint64_t prepass_read_bytes, prepass_write_bytes;
    double prepass_s;
    double tflops;           /* nominal FLOPs (FlashAttention-2 convention) / time_s / 1e12; with a
                                window, block, column or dense mask or an offset causal diagonal
                                the matmul FLOPs of the tiles FlashAttention-2 visits (for standard
                                attention too, which computes every tile: the useful work) */
} fa_perf_result;

/* Predicts pass p of profile prof on shape s on hw.  bk: tiles (NULL: the profile's tile table).
 * When hw lacks the pipe rates (a user's profile without them) only the counts and occupancy are
 * filled and has_time is 0.  Errors: FA_EINVAL (no time model for the "paper" profile,
 * a pipe rate missing from hw naming the key, no tile row), FA_ENOSRAM (the tiles' shared-memory
 * or register buffers do not fit), and those of fa_io_run. */
fa_status fa_perf_predict(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw,
                          const fa_blocks *bk, fa_perf_result *r);

/* fa_perf_predict with every count from a count-only run of the memory model (fa_perf_predict
 * takes the bytes and matmul FLOPs from the closed form where it covers the shape: the same
 * numbers, tests/test_formula.c, in O(1); fasim io uses this one to set counts beside formulas). */
fa_status fa_perf_predict_counted(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw,
                                  const fa_blocks *bk, fa_perf_result *r);

/* FlashAttention-2's split-KV rule for its forward (csrc/flash_attn/flash_api.cpp,
 * set_params_splitkv and num_splits_heuristic): with w = B H ceil(N_q / 64) row blocks of 64 on
 * 2 x sms slots, no split when w >= 0.8 x slots; otherwise the smallest split count q (at most
 * min(128, 2 sms, n), n = ceil(N_k / 256) at d <= 64, ceil(N_k / 128) at d <= 128, counts with the
 * same blocks per split as q - 1 skipped) whose wave efficiency w q / slots / ceil(w q / slots)
 * is at least 0.85 of the best.  When q > 1, bk receives the split kernel's tiles (64 x 256 or
 * 64 x 128, clamped to N).  1 for profiles without split_kv. */
int fa_split_kv_heuristic(const fa_profile *prof, const fa_shape *s, int sms, fa_blocks *bk);

/* FlashAttention-2's forward on one query row of H > H_kv heads (decoding with GQA or MQA): its
 * API reshapes Q from (B, 1, H, d) to (B, H / H_kv, H_kv, d) and runs N_q = H / H_kv rows of H_kv
 * heads, so each K,V head's keys are read by one row block instead of by each of the group's H /
 * H_kv heads (Dao-AILab/flash-attention csrc/flash_attn/flash_api.cpp, mha_fwd and
 * mha_fwd_kvcache: seqlenq_ngroups_swapped, when N_q = 1, H > H_kv, no window, no dropout, d a
 * multiple of 8, no ALiBi; N_q = 1 drops the causal mask, which FlashAttention-2 anchors
 * bottom-right).  Returns 1 and writes that shape to *out (B, H_kv, H_kv, N_q = H / H_kv, no mask)
 * for a profile with ngroups_swap on such a shape (fasim's top-left diagonal and its block,
 * column and dense masks, which FlashAttention-2 does not have, are left as they are: 0). */
int fa_profile_ngroups_swap(const fa_profile *p, const fa_shape *s, fa_shape *out);

/* Copies a prediction's summary into the fields of its io result that the command line prints
 * (fa_io_result: profile, has_perf, perf_*, dram_est_bytes, occupancy, ...). */
void fa_perf_to_io(const fa_perf_result *pr, fa_io_result *r);

/* Runs pass p of algorithm a like fa_io_run, with the buffers of profile prof placed in
 * registers (prof NULL or "paper": every buffer in one SRAM of M); splits > 1: flash2's forward
 * split-KV (fa_io_run_regs).  Errors: as fa_io_run. */
fa_status fa_io_run_placed(fa_pass p, fa_algo a, const fa_shape *s, fa_blocks bk, int64_t splits, uint64_t M,
                           const fa_hw *hw, const fa_profile *prof, int threads, FILE *trace,
                           fa_io_result *r);

#endif
