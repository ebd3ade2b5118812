/* fa_hw.h -- hardware profiles (the .hw files in sim/hw): bandwidths, SRAM sizes and peak FLOP rates.
 *
 * A profile file holds `key = value` lines, blank lines and `#` comments (docs/conventions.md,
 * "Hardware profiles").  Required keys: name, key, hbm_bandwidth_bytes_per_s, sram_per_sm_bytes,
 * sram_per_block_bytes, sms, l2_bytes, peak_fp16_flops, peak_fp32_flops, source; optional:
 * hbm_capacity_bytes, l2_partitions (1 or 2, default 1: the L2 model's partitions,
 * docs/l2-model.md), and the time model's machine (docs/time-model.md): arch, clock_hz,
 * regs_per_sm, regs_per_thread, threads_per_sm, blocks_per_sm, mma_sync_flops, mma_sync_clock_hz,
 * wgmma_clock_hz, wgmma_flops,
 * wgmma_fp8_flops, gemm_flops, sgemm_flops, fma_flops, exp_per_s, smem_bytes_per_s, l2_bytes_per_s,
 * dram_bytes_per_s, dram_latency_s, l2_latency_s, wgmma_wait_cycles, barrier_cycles, launch_s, tcgen05_flops, tcgen05_fp8_flops,
 * tmem_per_sm_bytes, pipes_source, and the interconnect of context parallelism
 * (docs/context-parallel.md): nvlink_bytes_per_s, and transpose_copy_bytes_per_s (PyTorch's
 * layout copy, docs/time-model.md section 6) (each range in sim/hw.c's table and
 * docs/conventions.md).  Units: bytes, bytes/s, FLOP/s; byte counts, sms and l2_partitions are
 * whole numbers.  Ranges: hbm_bandwidth_bytes_per_s 1e9..1e15; sram_per_sm_bytes and
 * sram_per_block_bytes 1 KiB..1 GiB; sms 1..1024; l2_bytes 2048..1 GiB, its sets (l2_bytes /
 * (FA_HW_L2_WAYS x FA_HW_L2_LINE), rounded down) a multiple of l2_partitions; peak_fp16_flops
 * and peak_fp32_flops 1e9..1e18; hbm_capacity_bytes 1 MiB..1 PiB.  Parsing is strict: an unknown
 * or repeated key, a key without a value, a value out of its range, a line over 1022
 * characters, a text value too long for its field (name 47, key 15, source 255 characters) or
 * sram_per_block_bytes > sram_per_sm_bytes is an error naming FILE:LINE.
 */
#ifndef FA_HW_H
#define FA_HW_H

#include <stdint.h>

#include "fa_status.h"

/* The L2 model's geometry (analysis/io.c builds its cache from these): 128-byte lines, 16 ways.
 * The profile loader checks l2_bytes against them. */
enum { FA_HW_L2_LINE = 128, FA_HW_L2_WAYS = 16 };
/* the most points of wgmma_clock_by_load (the SM clock as a function of the tensor load) */
enum { FA_HW_LOAD_POINTS = 8 };

typedef struct {
    char name[48];                /* "H200-SXM" */
    char key[16];                 /* "h200", the --hw spelling */
    double hbm_bandwidth;         /* bytes/s */
    uint64_t sram_per_sm;         /* bytes of shared memory per SM */
    uint64_t sram_per_block;      /* bytes a thread block may use: the default M */
    int sms;                      /* streaming multiprocessors */
    uint64_t l2_bytes;            /* L2 capacity */
    double peak_fp16;             /* dense fp16/bf16 tensor FLOP/s */
    double peak_fp32;             /* fp32 FLOP/s (non-tensor) */
    uint64_t hbm_capacity;        /* bytes of device memory (optional key; 0 = unknown) */
    int l2_partitions;            /* L2 partitions, 1 or 2 (optional key; default 1) */
    char source[256];
    /* ---- the time model's machine (optional keys; 0 = not given; docs/time-model.md) ---- */
    int arch;                     /* compute capability x 10 (80: A100, 90: H100/H200) */
    double clock_hz;              /* SM clock the pipe rates below hold at, Hz */
    int regs_per_sm;              /* 32-bit registers per SM (65536) */
    int regs_per_thread;          /* most registers a thread may have (255) */
    int threads_per_sm;           /* resident threads per SM (2048) */
    int blocks_per_sm;            /* resident thread blocks per SM (32) */
    double mma_sync_flops;        /* mma.sync m16n8k16 fp16/bf16 -> fp32, FLOP/s, whole GPU */
    double mma_sync_clock_hz;     /* the SM clock while mma.sync runs flat out (0: clock_hz) */
    double wgmma_clock_hz;        /* the SM clock while wgmma runs flat out (0: clock_hz) */
    int wgmma_load_n;             /* points of wgmma_clock_by_load (0: none: every wgmma kernel at
                                     wgmma_clock_hz) */
    double wgmma_load_duty[FA_HW_LOAD_POINTS]; /* the tensor pipe's share of a kernel's time, increasing in (0, 1] */
    double wgmma_load_hz[FA_HW_LOAD_POINTS];   /* the SM clock the GPU holds at that share (power-limited) */
    int ldsm_overlap_n;           /* points of ldsm_mma_overlap (0: none: the law's max + min / w_gemm) */
    double ldsm_overlap_w[FA_HW_LOAD_POINTS];  /* resident warps on each scheduler (w_gemm = blocks/SM x warps / 4), increasing */
    double ldsm_overlap_c[FA_HW_LOAD_POINTS];  /* the share of the shorter GEMM-phase pipe not hidden */
    double wgmma_flops;           /* wgmma fp16/bf16 -> fp32 (0: the GPU has none) */
    double wgmma_fp8_flops;       /* wgmma e4m3 -> fp32 (0: none) */
    double gemm_flops;            /* a library GEMM (cuBLAS bf16, large square), FLOP/s */
    double sgemm_flops;           /* a library fp32 GEMM without TF32 (cuBLAS, large square;
                                     0: fma_flops), FLOP/s */
    double fma_flops;             /* fp32 FMA pipe (FMA = 2 FLOP), FLOP/s */
    double exp_per_s;             /* ex2.approx.f32 (the MUFU unit), exponentials/s */
    double smem_bandwidth;        /* shared memory (ldmatrix) bytes/s, whole GPU */
    double l2_bandwidth;          /* L2 -> SM bytes/s, whole GPU */
    double dram_bandwidth;        /* sustained DRAM bytes/s (read + write) */
    double dram_latency_s;        /* one dependent DRAM load, s */
    double wgmma_wait_cycles;     /* a wgmma.wait_group for a commit group the warpgroup just issued:
                                     SM clocks beyond the group's tensor time (ubench_pipes
                                     wgmma_latency_kK; 0: not measured, no wait charged) */
    double barrier_cycles;        /* a __syncthreads / bar.sync of a 256-thread block whose warps
                                     arrive together, SM clocks (ubench_pipes syncthreads_256; 0: none) */
    double l2_latency_s;          /* one dependent load that hits L2, s (0: dram_latency_s) */
    double launch_s;              /* one kernel launch (back to back), s */
    double tcgen05_flops;         /* tcgen05.mma fp16/bf16 -> fp32 (sm_100; 0: the GPU has none) */
    double tcgen05_fp8_flops;     /* tcgen05.mma e4m3 -> fp32 (0: none) */
    uint64_t tmem_per_sm;         /* tensor memory per SM, bytes (sm_100: 256 KiB; 0: none) */
    char pipes_source[256];       /* where the pipe rates come from */
    double issue_per_sm_clk;      /* warp instructions the SM's schedulers issue a clock, together (4
                                     on A100, H100, H200, B200: four schedulers, one a clock; 0 = not
                                     given: no issue-slot bound) */
    double nvlink_bandwidth;      /* NVLink bytes/s one GPU sends (and, at the same time, receives)
                                     to its peers, per direction (optional key nvlink_bytes_per_s;
                                     0 = not given: no context-parallel time) */
    double transpose_copy_bandwidth; /* bytes/s (read + write) of PyTorch's strided copy of a
                                     (B, H, N, d) tensor into (B, N, H, d) layout, x.transpose(1,
                                     2).contiguous() (optional key transpose_copy_bytes_per_s;
                                     0 = not given: dram_bytes_per_s) */
    /* the DRAM bytes/s (read + write) PyTorch's own kernels reach on synthetic fp32 tensors of 1 GiB
       (kernels/torch_ops_bw.py), used by the math profile's kernels of those ops (0 = not given:
       dram_bytes_per_s): softmax by row length (torch_softmax_bytes_per_s_by_n, N:rate pairs, the
       entry of the largest N <= the row's N_k, else the first), where / masked_fill_ with a
       broadcast bool operand (torch_select_bytes_per_s), the row reduction all(dim = -1)
       (torch_all_bytes_per_s_by_n), the bf16 -> fp32 cast (torch_upcast_bytes_per_s) */
    int torch_softmax_n, torch_all_n;
    double torch_softmax_len[FA_HW_LOAD_POINTS], torch_softmax_bw[FA_HW_LOAD_POINTS];
    double torch_all_len[FA_HW_LOAD_POINTS], torch_all_bw[FA_HW_LOAD_POINTS];
    double torch_select_bandwidth, torch_upcast_bandwidth;
} fa_hw;

/* The rate of table (len, bw, n) at row length x: the entry of the largest len <= x, else the
 * first; 0 when n is 0.  len: row lengths (elements, increasing, as parse_pairs checked them), bw:
 * bytes/s; the torch_*_by_n keys (kernels/torch_ops_bw.py).  No errors. */
double fa_hw_rate_by_len(const double *len, const double *bw, int n, double x);

/* Reads a profile file.  Errors: FA_EIO (cannot open or read), FA_EINVAL (a missing, unknown,
 * repeated or bad key or value; the message names FILE:LINE, the key, the value and the limit). */
fa_status fa_hw_load_file(const char *path, fa_hw *hw);

/* Loads profile `key` ("a100", "h100", "h200", "b200") from directory dir (NULL or "": the built-in
 * FASIM_HW_DIR, overridable with the environment variable FASIM_HW_DIR; set but empty counts as
 * unset).  The file's `key` line must equal `key`.
 * Errors: FA_EINVAL for an unknown key (the message lists the known ones), a bad file or a file
 * whose `key` differs (FILE:LINE), FA_EIO. */
fa_status fa_hw_load(const char *key, const char *dir, fa_hw *hw);

/* The keys of the shipped profiles, NULL-terminated. */
extern const char *const fa_hw_keys[];

#endif
