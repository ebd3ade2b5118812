/* test_perf.c -- the time model (analysis/fa_perf.h): buffers placed in registers, occupancy,
 * each pipe's time and a whole prediction on hand-computed cases, the profiles' tile tables,
 * and the counts that placement must leave unchanged (docs/time-model.md). */
#include "testutil.h"
#include "fa_perf.h"

/* |a - b| <= tol, with both values in the failure message */
#define assert_near(a, b, tol)                                                                      \
    do {                                                                                            \
        double a_ = (a), b_ = (b);                                                                  \
        if (!(fabs(a_ - b_) <= (tol))) fail_msg("%s = %.12g, expected %.12g (+- %g)", #a, a_, b_, (double)(tol)); \
    } while (0)

/* A made-up GPU with round rates: one SM, no clock drop under tensor load. */
static fa_hw round_hw(void)
{
    fa_hw hw;
    memset(&hw, 0, sizeof hw);
    snprintf(hw.name, sizeof hw.name, "round");
    snprintf(hw.key, sizeof hw.key, "round");
    hw.sms = 1;
    hw.sram_per_sm = hw.sram_per_block = 232448;
    hw.l2_bytes = 1 << 24;
    hw.l2_partitions = 1;
    hw.hbm_bandwidth = 1e12;
    hw.peak_fp16 = 1e12;
    hw.peak_fp32 = 2e10;
    hw.arch = 90;
    hw.clock_hz = 1e9;
    hw.regs_per_sm = 65536;
    hw.regs_per_thread = 255;
    hw.threads_per_sm = 2048;
    hw.blocks_per_sm = 32;
    hw.mma_sync_flops = 1e12;
    hw.fma_flops = 2e10; /* 1e10 fp32 operations per second */
    hw.exp_per_s = 1e10;
    hw.smem_bandwidth = 1e11;
    hw.l2_bandwidth = 1e12;
    hw.dram_bandwidth = 1e12;
    hw.dram_latency_s = 1e-6;
    hw.launch_s = 2e-6;
    return hw;
}

static fa_shape bf16_shape(int64_t Nq, int64_t Nk, int64_t d)
{
    fa_shape s = fa_shape_default(Nq, d);
    s.seqlen_k = Nk;
    s.dtype = FA_DTYPE_BF16;
    return s;
}

/* The memory model charges the buffers a placement names to registers, the rest to SRAM. */
static void test_register_arena(void **st)
{
    (void)st;
    fa_mem *m = fa_mem_alloc(FA_MODE_COUNT, 4096);
    assert_non_null(m);
    assert_int_equal(fa_mem_set_registers(m, "S_ij O_i", 10000), FA_OK);
    fa_buf a, b, c;
    assert_int_equal(fa_sram_alloc(m, &a, "S_ij", 40, 40, 4), FA_OK); /* 6400 B of registers */
    assert_int_equal(fa_sram_alloc(m, &b, "K_j", 32, 32, 2), FA_OK);  /* 2048 B of SRAM */
    assert_int_equal(fa_sram_alloc(m, &c, "O_i", 31, 31, 4), FA_ENOSRAM); /* 3844 > 10000 - 6400 */
    assert_non_null(strstr(fa_last_error(), "registers"));
    assert_int_equal(fa_mem_counts(m)->reg_peak_bytes, 6400);
    assert_int_equal(fa_mem_counts(m)->sram_peak_bytes, 2048);
    assert_int_equal(fa_mem_sram_used(m), 2048);
    fa_sram_free(&a);
    assert_int_equal(fa_sram_alloc(m, &c, "O_i", 31, 31, 4), FA_OK); /* freed registers are reused */
    fa_sram_free(&b);
    fa_sram_free(&c);
    /* "S" is not "S_ij": whole words only */
    assert_int_equal(fa_mem_set_registers(m, "S", 100), FA_OK);
    assert_int_equal(fa_sram_alloc(m, &a, "S_ij", 40, 40, 1), FA_OK);
    assert_int_equal(fa_mem_counts(m)->reg_peak_bytes, 6400);
    fa_sram_free(&a);
    assert_int_equal(fa_mem_set_registers(m, "S_ij", 0), FA_EINVAL);
    fa_mem_free(m);
}

/* FlashAttention-2's forward at d = 128 with 128 x 64 tiles: Q_i, K_j, V_j in shared memory,
 * S_ij, O_i, m_i, l_i in registers; the bytes moved are those of the paper's model. */
static void test_placement_fa2(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(512, 512, 128);
    const fa_profile *p = fa_profile_find("fa2");
    assert_non_null(p);
    fa_io_result placed, paper;
    fa_blocks bk = {128, 64};
    assert_int_equal(fa_io_run_placed(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1, hw.sram_per_block, &hw, p, 128, NULL,
                                      &placed), FA_OK);
    assert_int_equal(placed.counts.sram_peak_bytes, 128 * 128 * 2 + 2 * 64 * 128 * 2); /* 65536 */
    assert_int_equal(placed.counts.reg_peak_bytes, 128 * 64 * 4 + 128 * 128 * 4 + 2 * 128 * 4); /* 99328 */
    assert_int_equal(fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &s, bk, 1 << 20, &hw, NULL, &paper), FA_OK);
    assert_int_equal(paper.counts.reg_peak_bytes, 0);
    assert_int_equal(paper.counts.sram_peak_bytes, 65536 + 99328);
    assert_int_equal(fa_counts_hbm_bytes(&placed.counts), fa_counts_hbm_bytes(&paper.counts));
    assert_int_equal(placed.counts.hbm_read_bytes, placed.formula.read_bytes);
    assert_int_equal(placed.counts.hbm_write_bytes, placed.formula.write_bytes);
    /* the same 128 x 64 tiles with every buffer in SRAM do not fit the H200's 227 KiB ... */
    assert_int_equal(fa_io_run(FA_PASS_FWD, FA_ALGO_FLASH2, &s, (fa_blocks){256, 128}, hw.sram_per_block, &hw,
                               NULL, &paper), FA_ENOSRAM);
    /* ... but fit with the kernel's placement (registers of 256 threads: 255 x 4 B each) */
    assert_int_equal(fa_io_run_placed(FA_PASS_FWD, FA_ALGO_FLASH2, &s, (fa_blocks){128, 128}, 1, hw.sram_per_block,
                                      &hw, p, 256, NULL, &placed), FA_OK);
}

static fa_occupancy occ_case(int threads, int regs, uint64_t smem)
{
    fa_occupancy o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    o.regs_per_thread = regs;
    o.smem_bytes = smem;
    return o;
}

/* Occupancy on hand-computed cases (65536 registers, 228 KiB, 2048 threads, 32 blocks per SM). */
static void test_occupancy(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    hw.sram_per_sm = 233472;
    /* 4 warps x 255 registers: 255 x 32 = 8160 -> 8192 a warp, 32768 a block: 2 by registers
     * (shared memory would allow 233472 / (65536 + 1024) = 3) */
    fa_occupancy o = occ_case(128, 255, 65536);
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_OK);
    assert_int_equal(o.occupancy, 2);
    assert_string_equal(o.limit, "registers");
    /* 8 warps x 64 registers = 16384 a block (4); 100000 B: 233472 / 101024 = 2 */
    o = occ_case(256, 64, 100000);
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_OK);
    assert_int_equal(o.occupancy, 2);
    assert_string_equal(o.limit, "shared memory");
    /* 1024 threads x 16 registers: 16384 a block (4); 2048 / 1024 = 2 threads-wise */
    o = occ_case(1024, 16, 1024);
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_OK);
    assert_int_equal(o.occupancy, 2);
    assert_string_equal(o.limit, "threads");
    /* 32 threads x 16 registers, 1 KiB: 65536 / 512 = 128, 2048 / 32 = 64, smem 114: the 32 blocks */
    o = occ_case(32, 16, 1024);
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_OK);
    assert_int_equal(o.occupancy, 32);
    assert_string_equal(o.limit, "blocks");
    /* warp specialization: 8 consumer warps of 240 and 4 producer warps of 24 registers:
     * 8 x 7680 + 4 x 768 = 64512 <= 65536: one block; 255 each would not fit */
    o = occ_case(384, 240, 100000);
    o.producer_warps = 4;
    o.producer_regs = 24;
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_OK);
    assert_int_equal(o.occupancy, 1);
    o = occ_case(384, 255, 100000);
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "98304 registers"));
    o = occ_case(128, 32, 232449);
    assert_int_equal(fa_occupancy_compute(&hw, &o), FA_ENOSRAM);
}

/* A synthetic profile's prediction equals its closed form (docs/time-model.md, worked example):
 * one SM, one thread block of 4 warps, 64 x 64 bf16 tiles, d = 64, N_q = 64, N_k = 320. */
static void test_prediction_closed_form(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(64, 320, 64);
    const fa_profile *p = fa_profile_find("fa2"); /* 4 warps, WARPS overlap, reads {Q 1, K 4, V 4} */
    fa_perf_result r;
    fa_blocks bk = {64, 64};
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_true(r.has_time);
    /* per tile: tensor 2 x 64 x 64 x 128 FLOP / 1e12 = 1.048576 us; smem 2 B x (64 x 64 Q + 4 x
     * 64 x 64 K + 4 x 64 x 64 V) = 73728 B / 1e11 = 0.73728 us; exp 4096 / 1e10 = 0.4096 us;
     * fp32 (4.5 x 4096 + 64 x 64) / 1e10 = 2.2528 us.  One warp per scheduler: G = 1.785856 us,
     * S = 2.6624 us; one block: tile = G + S = 4.448256 us.  Edges: 1 us latency + (Q_i 8192 +
     * O_i 8192 B at DRAM, K_j V_j 16384 B at L2, both 1e12 B/s here) = 1.032768 us.  5 tiles +
     * edges + one 2 us launch. */
    const double tile = 1.048576e-6 + 0.73728e-6 + 0.4096e-6 + 2.2528e-6;
    const double want = 5 * tile + 1.032768e-6 + 2e-6;
    assert_near(r.time_s, want, 1e-15);
    assert_near(r.busy[FA_PIPE_TENSOR], 5 * 1.048576e-6, 1e-15);
    assert_near(r.busy[FA_PIPE_SMEM], 5 * 0.73728e-6, 1e-15);
    assert_near(r.busy[FA_PIPE_EXP], 5 * 0.4096e-6, 1e-15);
    assert_near(r.busy[FA_PIPE_FP32], 5 * 2.2528e-6, 1e-15);
    assert_int_equal(r.bound, FA_PIPE_FP32);
    /* L2 -> SM: the two-level count (Q 8192 + K, V 40960 each + O 8192 + LSE 256) at 1e12 B/s */
    assert_near(r.busy[FA_PIPE_L2], 98560 / 1e12, 1e-18);
    assert_int_equal(r.ctas[0], 1);
    /* four such blocks (N_q = 256) on the one SM: they share it, so each one's tiles take the
     * SM's time 4 times over, and their edges' bytes share its bandwidth.  Occupancy by registers: S 64x64x4 +
     * O 64x64x4 + m, l: 33280 B / 128 threads / 4 B = 65 + 32 base -> 104 registers, 4 warps x
     * 3328 = 13312 a block: 4 fit; warps per scheduler 4; streams out of step: blocks of 4 warps
     * (one warp a scheduler) count 4 / 8 each, w_phase = 4 x 4 / 8 = 2 */
    s.seqlen_q = 256;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_int_equal(r.occ[0].regs_per_thread, 104);
    const double G4 = 1.048576e-6 + 0.73728e-6 / 4, S4 = 0.4096e-6 + 2.2528e-6;
    const double tile4 = S4 + G4 / 2;
    assert_near(r.k[0].w_phase, 2, 0);
    /* the four blocks' edges share the SM's bandwidth: 1 us + 4 x 32768 B / 1e12 B/s */
    assert_near(r.time_s, 4 * 5 * tile4 + 1.131072e-6 + 2e-6, 1e-15);
}

/* ldsm_mma_overlap on the worked example (fa2: mma.sync, 4 warps; one block on the one SM, one
 * warp a scheduler): with the points 1:0.2 2:0.064 4:0.068 the GEMM phase is G = max + 0.2 min =
 * 1.048576 + 0.2 x 0.73728 = 1.196032 us instead of max + min / 1; tile = G + S = 1.196032 +
 * 2.6624 us.  Four blocks (N_q = 256; 4 warps a scheduler): c = 0.068, G4 = 1.048576 + 0.068 x
 * 0.73728 = 1.098711 us, tile4 = S4 + G4 / 2 (w_phase = 4 x 4 / 8).  The backward keeps the
 * law (its GEMM phase is not the microbenchmark's stream); h200 carries the three points. */
static void test_ldsm_mma_overlap(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    hw.ldsm_overlap_n = 3;
    const double w[] = {1, 2, 4}, c[] = {0.2, 0.064, 0.068};
    for (int i = 0; i < 3; i++) hw.ldsm_overlap_w[i] = w[i], hw.ldsm_overlap_c[i] = c[i];
    fa_shape s = bf16_shape(64, 320, 64);
    const fa_profile *p = fa_profile_find("fa2");
    fa_perf_result r;
    fa_blocks bk = {64, 64};
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_int_equal(r.k[0].ldsm_law, 1);
    assert_near(r.k[0].c_gemm, 0.2, 0);
    assert_near(r.k[0].G, 1.196032e-6, 1e-18);
    assert_near(r.time_s, 5 * (1.196032e-6 + 2.6624e-6) + 1.032768e-6 + 2e-6, 1e-15);
    s.seqlen_q = 256;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_near(r.k[0].c_gemm, 0.068, 0);
    const double G4 = 1.048576e-6 + 0.068 * 0.73728e-6, S4 = 0.4096e-6 + 2.2528e-6;
    assert_near(r.k[0].G, G4, 1e-18);
    assert_near(r.time_s, 4 * 5 * (S4 + G4 / 2) + 1.131072e-6 + 2e-6, 1e-15);
    /* the backward: the same with and without the points */
    fa_hw law = hw;
    law.ldsm_overlap_n = 0;
    fa_perf_result b0, b1;
    assert_int_equal(fa_perf_predict(p, FA_PASS_BWD, &s, &hw, &bk, &b0), FA_OK);
    assert_int_equal(fa_perf_predict(p, FA_PASS_BWD, &s, &law, &bk, &b1), FA_OK);
    assert_int_equal(b0.k[0].ldsm_law, 0);
    assert_near(b0.time_s, b1.time_s, 0);
    fa_hw h200;
    assert_int_equal(fa_hw_load("h200", NULL, &h200), FA_OK);
    assert_int_equal(h200.ldsm_overlap_n, 3);
    assert_near(h200.ldsm_overlap_c[0], 0.202, 0);
    assert_near(h200.ldsm_overlap_w[2], 4, 0);
}

/* FlashAttention-4's profile parameters, by hand on the worked example's machine and tiles
 * (64 x 64 bf16, d = 64, N_q = 64, N_k = 320, 5 tiles): with exp_poly_frac = 0.5 the exp unit does
 * half of the 4096 exponentials, 2048 / 1e10 = 0.2048 us a tile, and the fp32 pipe takes
 * (4.5 + 0.5 x 10) x 4096 + 64 x 64 = 43008 slots / 1e10 = 4.3008 us; with rescale_skip = 1 as
 * well the B_r d_v = 4096 rescale FMULs go: 38912 / 1e10 = 3.8912 us; rescale_skip = 0.25 alone:
 * 4.5 x 4096 + 0.75 x 4096 = 21504 -> 2.1504 us, exp 0.4096 us as without.  exp_poly_ops = 7 (a
 * packed-f32x2 polynomial): (4.5 + 0.5 x 7) x 4096 + 4096 = 36864 -> 3.6864 us.  The tensor and
 * smem pipes do not change, and tile = G + S (one block: WARPS overlap, w = 1). */
static void test_fa4_parameters(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(64, 320, 64);
    fa_profile p = *fa_profile_find("fa2");
    fa_perf_result r;
    fa_blocks bk = {64, 64};
    const double t_tc = 1.048576e-6, t_sm = 0.73728e-6;
    const struct { double f, skip, ops, exp, fp32; } c[] = {
        {0.5, 0, 0, 0.2048e-6, 4.3008e-6}, {0.5, 1, 0, 0.2048e-6, 3.8912e-6},
        {0, 0.25, 0, 0.4096e-6, 2.1504e-6}, {0.5, 0, 7, 0.2048e-6, 3.6864e-6},
        {0, 0, 0, 0.4096e-6, 2.2528e-6}, /* the worked example itself */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        p.exp_poly_frac = c[i].f, p.rescale_skip = c[i].skip, p.exp_poly_ops = c[i].ops;
        assert_int_equal(fa_perf_predict(&p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
        assert_near(r.k[0].t_exp, c[i].exp, 1e-18);
        assert_near(r.k[0].t_fp32, c[i].fp32, 1e-18);
        assert_near(r.busy[FA_PIPE_EXP], 5 * c[i].exp, 1e-15);
        assert_near(r.busy[FA_PIPE_FP32], 5 * c[i].fp32, 1e-15);
        assert_near(r.busy[FA_PIPE_TENSOR], 5 * t_tc, 1e-15);
        assert_near(r.busy[FA_PIPE_SMEM], 5 * t_sm, 1e-15);
        assert_near(r.time_s, 5 * (t_tc + t_sm + c[i].exp + c[i].fp32) + 1.032768e-6 + 2e-6, 1e-15);
    }
    /* the backward keeps every exponential on the exp unit (the parameters are the forward's) */
    fa_perf_result b0, b1;
    p.exp_poly_frac = 0, p.rescale_skip = 0;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &b0), FA_OK);
    p.exp_poly_frac = 0.5, p.rescale_skip = 1;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &b1), FA_OK);
    assert_near(b1.busy[FA_PIPE_EXP], b0.busy[FA_PIPE_EXP], 0);
    assert_near(b1.busy[FA_PIPE_FP32], b0.busy[FA_PIPE_FP32], 0);
}

/* v5_exp2poly, v5_cresc and v5_fa4 are v5 but for their parameters: the exp split by head dim
 * (6 of 16 n8 blocks of B_c = 128 at d = 64, 7 of 20 of B_c = 160 at d = 128: kernels/
 * attn_v5_fa3.cu variants 7-9), 11 slots a polynomial exponential, 0.9 of the rescales skipped. */
static void test_v5_variants(void **st)
{
    (void)st;
    const fa_profile *v5 = fa_profile_find("v5"), *e = fa_profile_find("v5_exp2poly"), *c = fa_profile_find("v5_cresc");
    const fa_profile *b = fa_profile_find("v5_fa4");
    assert_non_null(v5), assert_non_null(e), assert_non_null(c), assert_non_null(b);
    assert_near(fa_profile_exp_poly_frac(e, 64), 0.375, 0);
    assert_near(fa_profile_exp_poly_frac(e, 128), 0.35, 0);
    assert_near(fa_profile_exp_poly_frac(b, 64), 0.375, 0);
    assert_near(fa_profile_exp_poly_frac(b, 128), 0.35, 0);
    assert_near(fa_profile_exp_poly_frac(c, 64), 0, 0);
    assert_near(fa_profile_exp_poly_frac(v5, 128), 0, 0);
    assert_near(fa_profile_exp_poly_frac(fa_profile_find("fa4"), 128), 0.4, 0); /* no table: the scalar */
    assert_near(e->exp_poly_ops, 11, 0);
    assert_near(b->exp_poly_ops, 11, 0);
    assert_near(c->rescale_skip, 0.9, 0);
    assert_near(b->rescale_skip, 0.9, 0);
    const fa_profile *all[3] = {e, c, b};
    for (int i = 0; i < 3; i++) {
        fa_profile z = *v5, y = *all[i];
        /* compare field by field what v5 sets (the struct's padding is not a field) */
        memset(y.exp_poly_by_d, 0, sizeof y.exp_poly_by_d);
        y.exp_poly_ops = 0, y.rescale_skip = 0;
        assert_int_equal(y.algo, z.algo), assert_int_equal(y.mma, z.mma);
        assert_int_equal(y.overlap, z.overlap), assert_int_equal(y.overlap_bwd, z.overlap_bwd);
        assert_string_equal(y.regs_fwd, z.regs_fwd);
        assert_int_equal(y.stages, z.stages), assert_int_equal(y.persistent, z.persistent);
        assert_int_equal(y.heavy_first, z.heavy_first), assert_int_equal(y.base_regs, z.base_regs);
        assert_int_equal(y.producer_warps, z.producer_warps), assert_int_equal(y.producer_regs, z.producer_regs);
        assert_near(y.exp_poly_frac, 0, 0);
        assert_true(y.tiles == z.tiles && y.ntiles == z.ntiles);
    }
}

/* exp_poly_by_d picks the fraction by head dim; the pipes of the worked example's tile (64 x 64,
 * d = 64, one SM of the round machine) by hand: f = 0.375, p = 11 slots:
 *   exp  = (1 - 0.375) 4096 / 1e10 = 0.256 us
 *   fp32 = ((4.5 + 0.375 x 11) 4096 + 64 x 64) / 1e10 = (35328 + 4096) / 1e10 = 3.9424 us
 * and at d = 128 (no entry but d <= 64: the scalar exp_poly_frac, 0 here) the MUFU count is whole. */
static void test_exp_poly_by_d(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(64, 320, 64);
    fa_profile p = *fa_profile_find("fa2");
    p.exp_poly_by_d[0].d_max = 64, p.exp_poly_by_d[0].frac = 0.375;
    p.exp_poly_ops = FA_PERF_POLY_EXP_OPS_V5;
    fa_blocks bk = {64, 64};
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_near(r.k[0].exps, 2560, 1e-9);
    assert_near(r.k[0].t_exp, 0.256e-6, 1e-18);
    assert_near(r.k[0].t_fp32, 3.9424e-6, 1e-18);
    s = bf16_shape(64, 320, 128);
    assert_int_equal(fa_perf_predict(&p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_near(r.k[0].exps, 4096, 1e-9);
}

/* The backward fields of kernels/ v5_bwd by hand, on the round machine (one SM, smem 1e11 B/s,
 * L2 1e12 B/s), fa2's backward with its P and dS copies off, 64 x 64 bf16 tiles, d = 64,
 * N_q = 64, N_k = 320 (one row block, T_c = 5 column blocks, 5 tiles):
 *   ds_smem_bwd = 2: shared memory + 2 x 2 x 64 x 64 = 16384 B; the pipe + 8192 B a tile
 *                    (one dS written) = + 81.92 ns;
 *   dq_smem_bwd = 1: + 4 x 64 x 64 = 16384 B and + 16384 B a tile = + 163.84 ns;
 *   stat_copies_bwd = 24: + 23 x (L_i, D_i: 2 x 4 x 64 B) = 11776 B;
 *   dq_reduce = 1: the L2 pipe loses the main loop's dQacc reads, 5 tiles x 4 x 64 x 64 B =
 *                  81920 B = 81.92 ns at 1e12 B/s (the post-pass still reads dQacc once). */
static void test_v5_bwd_fields(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(64, 320, 64);
    fa_profile p = *fa_profile_find("fa2");
    p.smem_copies_bwd = 0;
    fa_blocks bk = {64, 64};
    fa_perf_result r0, r1;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &r0), FA_OK);
    p.ds_smem_bwd = 2;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &r1), FA_OK);
    assert_int_equal(r1.occ[1].smem_bytes - r0.occ[1].smem_bytes, 16384);
    assert_near(r1.k[1].smem - r0.k[1].smem, 8192, 0);
    assert_near(r1.k[1].t_smem - r0.k[1].t_smem, 81.92e-9, 1e-18);
    p.ds_smem_bwd = 0, p.dq_smem_bwd = 1;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &r1), FA_OK);
    assert_int_equal(r1.occ[1].smem_bytes - r0.occ[1].smem_bytes, 16384);
    assert_near(r1.k[1].t_smem - r0.k[1].t_smem, 163.84e-9, 1e-18);
    p.dq_smem_bwd = 0, p.stat_copies_bwd = 24;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &r1), FA_OK);
    assert_int_equal(r1.occ[1].smem_bytes - r0.occ[1].smem_bytes, 11776);
    assert_near(r1.k[1].t_smem, r0.k[1].t_smem, 0);
    p.stat_copies_bwd = 0, p.dq_reduce = 1;
    assert_int_equal(fa_perf_predict(&p, FA_PASS_BWD, &s, &hw, &bk, &r1), FA_OK);
    assert_near(r0.busy[FA_PIPE_L2] - r1.busy[FA_PIPE_L2], 81.92e-9, 1e-18);
    assert_near(r1.busy[FA_PIPE_TENSOR], r0.busy[FA_PIPE_TENSOR], 0);
    /* the forward is untouched by the backward's fields */
    assert_int_equal(fa_perf_predict(&p, FA_PASS_FWD, &s, &hw, &bk, &r1), FA_OK);
    fa_profile q = *fa_profile_find("fa2");
    q.smem_copies_bwd = 0;
    assert_int_equal(fa_perf_predict(&q, FA_PASS_FWD, &s, &hw, &bk, &r0), FA_OK);
    assert_near(r1.time_s, r0.time_s, 0);
}

/* The first line of `path` that holds `needle`, or NULL: the kernels' sources, read as text. */
static char *src_line(const char *path, const char *needle, char *buf, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *hit = NULL;
    while (fgets(buf, n, f))
        if (strstr(buf, needle)) {
            hit = buf;
            break;
        }
    fclose(f);
    return hit;
}

/* The v5_bwd profiles' tile table is the kernel's (kernels/attn_v5_bwd.cu, read here):
 * FA_V5B_D(64, 128) and FA_V5B_D(128, 64) (B_r by head dim), V5B_BC = 128, 384 threads = 12
 * warps, setmaxnreg 40 / 232 (V5BRegs); the v5 forward variants' splits are variants 7 and 9's
 * EMU over B_c / 8 (attn_v5_fa3.cu launch_v5<64, 3, 128, ..., 6, ...>, <128, 2, 160, ..., 7, ...>). */
static void test_v5_bwd_tiles(void **st)
{
    (void)st;
    const char *src = "kernels/attn_v5_bwd.cu";
    char line[512];
    int bc = 0, br64 = 0, br128 = 0, prod = 0, cons = 0, threads = 0;
    assert_non_null(src_line(src, "V5B_BC = ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "V5B_BC = "), "V5B_BC = %d", &bc), 1);
    assert_non_null(src_line(src, "if (s->d == 64) return FA_V5B_D(64, ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "FA_V5B_D(64, "), "FA_V5B_D(64, %d", &br64), 1);
    assert_non_null(src_line(src, "if (s->d == 128) return FA_V5B_D(128, ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "FA_V5B_D(128, "), "FA_V5B_D(128, %d", &br128), 1);
    assert_non_null(src_line(src, "static constexpr int producer = ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "producer = "), "producer = %d, consumer = %d", &prod, &cons), 2);
    assert_non_null(src_line(src, "kern<<<grid, ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "kern<<<grid, "), "kern<<<grid, %d", &threads), 1);
    static const char *const keys[] = {"v5_bwd", "v5_bwd_pers", "v5_bwd_atomic"};
    for (int k = 0; k < 3; k++) {
        const fa_profile *p = fa_profile_find(keys[k]);
        assert_non_null(p);
        assert_int_equal(p->mma, FA_MMA_WGMMA);
        assert_int_equal(p->producer_warps, 4);
        assert_int_equal(p->producer_regs, prod);
        const fa_tile_row *row;
        fa_blocks bk;
        fa_shape s = bf16_shape(4096, 4096, 64);
        assert_int_equal(fa_profile_tiles(p, FA_PASS_BWD, 90, &s, &bk, &row), FA_OK);
        assert_int_equal(bk.block_r, br64);
        assert_int_equal(bk.block_c, bc);
        assert_int_equal(row->warps * 32, threads);
        assert_int_equal(row->regs, cons);
        s.d = s.d_v = 128;
        assert_int_equal(fa_profile_tiles(p, FA_PASS_BWD, 90, &s, &bk, &row), FA_OK);
        assert_int_equal(bk.block_r, br128);
        assert_int_equal(bk.block_c, bc);
        assert_int_equal(row->warps * 32, threads);
        assert_int_equal(fa_profile_tiles(p, FA_PASS_FWD, 90, &s, &bk, &row), FA_EINVAL); /* a backward only */
        fa_clear_error();
        assert_int_equal(fa_profile_tiles(p, FA_PASS_BWD, 80, &s, &bk, &row), FA_EINVAL); /* sm_90a only */
        fa_clear_error();
    }
    assert_int_equal(fa_profile_find("v5_bwd_pers")->persistent, 1);
    assert_int_equal(fa_profile_find("v5_bwd")->persistent, 0);
    assert_int_equal(fa_profile_find("v5_bwd")->dq_smem_bwd, 1);
    assert_int_equal(fa_profile_find("v5_bwd_atomic")->dq_smem_bwd, 0);
    /* placed on the H200 these tiles take the kernel's shared memory less its barriers and its
     * 1 KiB alignment pad, (2 B_c d + 2 x 2 B_r d + 2 B_c B_r) 2 + 4 B_r d + 48 x 4 B_r
     * (launch_v5_bwd's `bytes`), and one block per SM: 128 x 40 + 256 x 232 = 64512 registers */
    fa_hw h200_hw;
    assert_int_equal(fa_hw_load("h200", NULL, &h200_hw), FA_OK);
    const fa_hw *h200 = &h200_hw;
    const int64_t dd[2] = {64, 128}, brs[2] = {br64, br128};
    for (int i = 0; i < 2; i++) {
        fa_shape s = bf16_shape(4096, 4096, dd[i]);
        s.batch = 4, s.heads = s.kv_heads = 16;
        fa_perf_result r;
        assert_int_equal(fa_perf_predict(fa_profile_find("v5_bwd"), FA_PASS_BWD, &s, h200, NULL, &r), FA_OK);
        const int64_t d = dd[i], Br = brs[i], Bc = bc;
        assert_int_equal(r.occ[1].smem_bytes, (2 * Bc * d + 4 * Br * d + 2 * Bc * Br) * 2 + 4 * Br * d + 48 * 4 * Br);
        assert_int_equal(r.occ[1].occupancy, 1);
        assert_int_equal(r.occ[1].regs_per_thread, cons);
    }
    /* the forward variants' splits, as built */
    const char *fwd = "kernels/attn_v5_fa3.cu";
    int emu64 = 0, emu128 = 0, bc64 = 0, bc128 = 0;
    assert_non_null(src_line(fwd, "if (variant == 7) return launch_v5<64, 3, ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "launch_v5<64, 3, "), "launch_v5<64, 3, %d, true, true, T, %d", &bc64, &emu64), 2);
    assert_non_null(src_line(fwd, "if (variant == 7) return launch_v5<128, 2, ", line, sizeof line));
    assert_int_equal(sscanf(strstr(line, "launch_v5<128, 2, "), "launch_v5<128, 2, %d, true, true, T, %d", &bc128, &emu128), 2);
    assert_near(fa_profile_exp_poly_frac(fa_profile_find("v5_exp2poly"), 64), (double)emu64 / (bc64 / 8), 0);
    assert_near(fa_profile_exp_poly_frac(fa_profile_find("v5_exp2poly"), 128), (double)emu128 / (bc128 / 8), 0);
    const fa_tile_row *row;
    fa_blocks bk;
    fa_shape s = bf16_shape(4096, 4096, 128);
    assert_int_equal(fa_profile_tiles(fa_profile_find("v5_exp2poly"), FA_PASS_FWD, 90, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, bc128);
    s.d = s.d_v = 64;
    assert_int_equal(fa_profile_tiles(fa_profile_find("v5_exp2poly"), FA_PASS_FWD, 90, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, bc64);
}

/* Each pipe's rate comes from the hardware profile, named when missing. */
static void test_missing_pipe(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(128, 128, 64);
    fa_perf_result r;
    hw.wgmma_flops = 0;
    assert_int_equal(fa_perf_predict(fa_profile_find("v4"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_false(r.has_time); /* counts and placement only */
    assert_int_equal(fa_perf_predict(fa_profile_find("paper"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "abstract model"));
}

/* The tile tables: FlashAttention-2's by head dim, FlashAttention-3's by head dim and mask, clamped to N. */
static void test_tile_tables(void **st)
{
    (void)st;
    const fa_tile_row *row;
    fa_blocks bk;
    fa_shape s = bf16_shape(4096, 4096, 64);
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa2"), FA_PASS_FWD, 90, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_r, 128);
    assert_int_equal(bk.block_c, 128);
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa2"), FA_PASS_BWD, 80, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_r, 128);
    assert_int_equal(row->warps, 8);
    s.d = s.d_v = 128;
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa2"), FA_PASS_FWD, 90, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, 64);
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa3"), FA_PASS_FWD, 90, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, 176);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa3"), FA_PASS_FWD, 90, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, 128);
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa3"), FA_PASS_FWD, 80, &s, &bk, &row), FA_EINVAL);
    /* FlashAttention-3 at d = 96 (hopper/tile_size.h `headdim <= 96`): 192 x 144 with or without
     * a causal mask, 192 x 128 under a window flash_api.cpp calls local (a left edge under
     * N_k - 1 beside the causal mask; either edge without one), 16 warps; backward 64 x 128, 12 */
    const fa_profile *fa3 = fa_profile_find("fa3");
    fa_shape w = bf16_shape(4096, 4096, 96);
    for (int c = 0; c < 2; c++) {
        w.causal = c ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        w.window = 0;
        assert_int_equal(fa_profile_tiles(fa3, FA_PASS_FWD, 90, &w, &bk, &row), FA_OK);
        assert_int_equal(bk.block_r, 192);
        assert_int_equal(bk.block_c, 144);
        assert_int_equal(row->warps, 16);
        assert_int_equal(fa_profile_tiles(fa3, FA_PASS_BWD, 90, &w, &bk, &row), FA_OK);
        assert_int_equal(bk.block_r, 64);
        assert_int_equal(bk.block_c, 128);
        assert_int_equal(row->warps, 12);
        w.window = 1, w.window_left = 2046, w.window_right = c ? 0 : 2046;
        assert_int_equal(fa_profile_tiles(fa3, FA_PASS_FWD, 90, &w, &bk, &row), FA_OK);
        assert_int_equal(bk.block_c, 128);
        assert_int_equal(row->warps, 16);
        w.window_left = w.window_right = 4095; /* edges as long as the sequence: no window */
        assert_int_equal(fa_profile_tiles(fa3, FA_PASS_FWD, 90, &w, &bk, &row), FA_OK);
        assert_int_equal(bk.block_c, 144);
    }
    w.causal = FA_CAUSAL_NONE, w.window_left = -1, w.window_right = 0; /* (-1, 0): causal to FA3 */
    assert_int_equal(fa_profile_tiles(fa3, FA_PASS_FWD, 90, &w, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, 144);
    w.d = w.d_v = 64; /* d = 64: 192 x 128 with a window (0251105a's use_blockN_128) as without one (the release's) */
    w.window_left = 100, w.window_right = 100;
    assert_int_equal(fa_profile_tiles(fa3, FA_PASS_FWD, 90, &w, &bk, &row), FA_OK);
    assert_int_equal(bk.block_c, 128);
    /* FlashAttention-3 at 0251105a, hopper/tile_size.h tile_size_fwd_sm90: the sliding-window
     * (is_local) tiles at every d -- d <= 64 {192, 128}, d <= 96 {192, 128}, d <= 128 {128, 128},
     * d <= 192 {128, 96} (whatever d_v), d 256 {128, 64} -- and the FP8 (element_size == 1) ones,
     * whatever the mask: {192, 160}, {192, 128}, {128, 224}, {128, 160}, {128, 128} ({128, 64} with a
     * window); warps kBlockM / 64 + 1 warpgroups.  The d = 64 row without a mask stays the release
     * 7f67966c's 192 x 128 and carries a note; the others carry none. */
    static const struct { int d, dv, fp8, causal, win, br, bc, warps, noted; } fa3_rows[] = {
        {64, 64, 0, 0, 1, 192, 128, 16, 0},   {96, 96, 0, 1, 1, 192, 128, 16, 0},  {128, 128, 0, 0, 1, 128, 128, 12, 0},
        {128, 128, 0, 1, 1, 128, 128, 12, 0}, {192, 128, 0, 1, 1, 128, 96, 12, 0}, {192, 192, 0, 0, 1, 128, 96, 12, 0},
        {256, 256, 0, 1, 1, 128, 64, 12, 0},  {256, 256, 0, 0, 0, 128, 80, 12, 0}, {192, 128, 0, 0, 0, 128, 128, 12, 0},
        {64, 64, 0, 0, 0, 192, 128, 16, 1},   {64, 64, 0, 1, 0, 192, 128, 16, 0},
        {64, 64, 1, 0, 0, 192, 160, 16, 0},   {64, 64, 1, 1, 1, 192, 160, 16, 0},  {96, 96, 1, 0, 0, 192, 128, 16, 0},
        {128, 128, 1, 0, 0, 128, 224, 12, 0}, {128, 128, 1, 1, 0, 128, 224, 12, 0}, {128, 128, 1, 0, 1, 128, 224, 12, 0},
        {192, 192, 1, 0, 0, 128, 160, 12, 0}, {192, 128, 1, 1, 1, 128, 160, 12, 0}, {256, 256, 1, 0, 0, 128, 128, 12, 0},
        {256, 256, 1, 1, 0, 128, 128, 12, 0}, {256, 256, 1, 1, 1, 128, 64, 12, 0},
    };
    for (size_t i = 0; i < sizeof fa3_rows / sizeof fa3_rows[0]; i++) {
        fa_shape x = bf16_shape(8192, 8192, fa3_rows[i].d);
        x.d_v = fa3_rows[i].dv;
        if (fa3_rows[i].fp8) x.dtype = FA_DTYPE_E4M3;
        x.causal = fa3_rows[i].causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
        if (fa3_rows[i].win) x.window = 1, x.window_left = 511, x.window_right = fa3_rows[i].causal ? 0 : 511;
        assert_int_equal(fa_profile_tiles(fa3, FA_PASS_FWD, 90, &x, &bk, &row), FA_OK);
        assert_int_equal(bk.block_r, fa3_rows[i].br);
        assert_int_equal(bk.block_c, fa3_rows[i].bc);
        assert_int_equal(row->warps, fa3_rows[i].warps);
        assert_int_equal(row->note != NULL, fa3_rows[i].noted);
    }
    /* FP8 shared memory: Q_i and 2 stages of K_j, V_j and V_j^T (Transpose_V: smem_v beside smem_vt),
     * 1 byte an element: at d = 128, 128 x 224: 128 d + 2 x 3 x 224 d = 188416 B, under the H200's
     * 227 KiB a block; bf16 on the same tiles has no V^T (2 x (128 d + 2 x 2 x 224 d) would not fit) */
    {
        fa_hw h200;
        assert_int_equal(fa_hw_load("h200", NULL, &h200), FA_OK);
        fa_shape x = bf16_shape(8192, 8192, 128);
        x.heads = x.kv_heads = 16;
        x.dtype = FA_DTYPE_E4M3;
        fa_perf_result pr;
        assert_int_equal(fa_perf_predict(fa3, FA_PASS_FWD, &x, &h200, NULL, &pr), FA_OK);
        assert_int_equal(pr.occ[0].blocks.block_c, 224);
        assert_int_equal(pr.occ[0].smem_bytes, 128 * 128 + 2 * 3 * 224 * 128);
        x.d = x.d_v = 256; /* 128 x 128: 128 d + 2 x 3 x 128 d = 229376 B */
        assert_int_equal(fa_perf_predict(fa3, FA_PASS_FWD, &x, &h200, NULL, &pr), FA_OK);
        assert_int_equal(pr.occ[0].smem_bytes, 128 * 256 + 2 * 3 * 128 * 256);
        x.dtype = FA_DTYPE_BF16; /* bf16 at d = 256: 128 x 80, (128 d + 2 x 2 x 80 d) 2 = 229376 B, no V^T */
        assert_int_equal(fa_perf_predict(fa3, FA_PASS_FWD, &x, &h200, NULL, &pr), FA_OK);
        assert_int_equal(pr.occ[0].blocks.block_c, 80);
        assert_int_equal(pr.occ[0].smem_bytes, (128 * 256 + 2 * 2 * 80 * 256) * 2);
    }
    /* its backward at d = 128: 64 x 128 with a causal mask or a window (run_mha_bwd_hdim128:
     * Is_causal || Is_local), else 80 x 128 */
    w = bf16_shape(8192, 8192, 128);
    assert_int_equal(fa_profile_tiles(fa3, FA_PASS_BWD, 90, &w, &bk, &row), FA_OK);
    assert_int_equal(bk.block_r, 80);
    w.window = 1, w.window_left = w.window_right = 100;
    assert_int_equal(fa_profile_tiles(fa3, FA_PASS_BWD, 90, &w, &bk, &row), FA_OK);
    assert_int_equal(bk.block_r, 64);
    assert_int_equal(bk.block_c, 128);
    s.seqlen_q = 40; /* the kernel's tile whatever N_q: FlashAttention-2's 128 rows (the counts move 40) */
    assert_int_equal(fa_profile_tiles(fa_profile_find("fa2"), FA_PASS_FWD, 80, &s, &bk, &row), FA_OK);
    assert_int_equal(bk.block_r, 128);
    const fa_profile *p;
    assert_int_equal(fa_profile_parse("fa9", &p), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "fa2"));
}

/* Causal: the blocks of the diagonal do half the tiles; the prediction's tensor busy time is
 * the visited tiles', and the grid's imbalance shows as a tail. */
static void test_causal_tiles(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(512, 512, 64);
    const fa_profile *p = fa_profile_find("fa2");
    fa_blocks bk = {64, 64};
    fa_perf_result full, causal;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &full), FA_OK);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &causal), FA_OK);
    /* 8 x 8 tiles, 36 visited (1 + 2 + ... + 8) */
    assert_near(causal.busy[FA_PIPE_TENSOR] / full.busy[FA_PIPE_TENSOR], 36.0 / 64.0, 1e-12);
}

/* The backward's launch order: column block j = blockIdx.x ascending (kernels/attn_v3_bwd_tc.cu),
 * heaviest first under the causal mask.  v3's tiles at d = 64 are 64 x 128: at N = 1024 column j
 * sees the row blocks i >= 2j, 16 - 2j tiles (16, 14, ..., 2).  On 4 SMs, one block each, the
 * first four take 16, 14, 12, 10; then 8 joins the 10, 6 the 12, 4 the 14, 2 the 16: every slot
 * ends at 18 tiles and two edges.  (Launched lightest first it would end at 8 + 16 = 24.) */
static void test_bwd_launch_order(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    hw.sms = 4;
    fa_shape s = bf16_shape(1024, 1024, 64);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(fa_profile_find("v3"), FA_PASS_BWD, &s, &hw, NULL, &r), FA_OK);
    const fa_perf_kernel *k = &r.k[1];
    assert_true(k->blocks_per_sm == 1);
    assert_near(k->tiles, 72, 1e-9); /* 16 + 14 + ... + 2 */
    assert_near(k->makespan, 18 * k->tile + 2 * k->edge, 1e-9 * k->makespan);
}

/* Ping-pong streams: one per consumer warpgroup of a block (the warps that are not producer
 * warps, in fours): FlashAttention-3 and v5 at d = 64 have 16 warps, 4 of them the producer, so
 * three consumers take turns (w_phase 3); at d = 128 12 warps, two.  The tile is then
 * max(G, S) + min(G, S) / w_phase. */
static void test_pingpong_streams(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const char *keys[2] = {"fa3", "v5"};
    for (int k = 0; k < 2; k++) {
        fa_shape s = bf16_shape(4096, 4096, 64);
        s.batch = 4, s.heads = 32, s.kv_heads = 32;
        fa_perf_result r;
        assert_int_equal(fa_perf_predict(fa_profile_find(keys[k]), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
        assert_true(r.k[0].w_phase == 3);
        const double hi = fmax(r.k[0].G, r.k[0].S), lo = fmin(r.k[0].G, r.k[0].S);
        assert_near(r.k[0].tile, hi + lo / 3, 1e-12 * hi);
        s = bf16_shape(4096, 4096, 128);
        s.batch = 4, s.heads = 16, s.kv_heads = 16;
        assert_int_equal(fa_perf_predict(fa_profile_find(keys[k]), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
        assert_true(r.k[0].w_phase == 2);
    }
}

/* Standard attention's stand-in tiles shrink with d so that its Q_i and fp32 O_i fit M: 128 up to
 * d = 128, 64 to 256, 32 to 512, 16 beyond (the eager profile timed Gemma-2's d = 256 not at all
 * before: "O_i (128 x 256 x 4 B) does not fit"). */
static void test_math_tiles_by_d(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const int64_t ds[4] = {128, 256, 512, 1024}, want[4] = {128, 64, 32, 16};
    for (int k = 0; k < 4; k++) {
        fa_shape s = bf16_shape(1024, 1024, ds[k]);
        fa_perf_result r;
        assert_int_equal(fa_perf_predict(fa_profile_find("eager"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
        assert_int_equal(r.io.blocks.block_r, want[k]);
        assert_int_equal(r.io.blocks.block_c, want[k]);
        assert_true(r.time_s > 0);
    }
}

/* Standard attention's launches: eager runs three kernels forward (GEMM, softmax, GEMM) and five
 * backward (docs/time-model.md, "Standard attention"); each charges one launch_s, and the count is
 * what explain prints. */
static void test_std_launches(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    fa_shape s = bf16_shape(1024, 1024, 64);
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(fa_profile_find("eager"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_int_equal(r.k[0].launches, 3);
    assert_near(r.k[0].launch, 3 * hw.launch_s, 1e-18);
    assert_int_equal(fa_perf_predict(fa_profile_find("eager"), FA_PASS_BWD, &s, &hw, NULL, &r), FA_OK);
    assert_int_equal(r.k[1].launches, 5);
    assert_near(r.k[1].launch, 5 * hw.launch_s, 1e-18);
}

/* The pipes each profile's model charges (fa_perf_result.pipes, the tables' '-' for the others,
 * issue 18): standard's library kernels their GEMMs' pipe, exp and DRAM -- eager's GEMMs on the
 * tensor cores, math's (SGEMM) on fp32 --, a fused kernel all six; an unmodelled pipe's busy time
 * is 0, a modelled one's positive here. */
static void test_modelled_pipes(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    fa_shape s = bf16_shape(1024, 1024, 64);
    const struct { const char *key; unsigned pipes; } want[] = {
        {"eager", 1u << FA_PIPE_TENSOR | 1u << FA_PIPE_EXP | 1u << FA_PIPE_DRAM},
        {"math", 1u << FA_PIPE_FP32 | 1u << FA_PIPE_EXP | 1u << FA_PIPE_DRAM},
        {"v0", 1u << FA_PIPE_TENSOR | 1u << FA_PIPE_EXP | 1u << FA_PIPE_DRAM},
        {"fa2", (1u << FA_NPIPE) - 1}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        fa_perf_result r;
        assert_int_equal(fa_perf_predict(fa_profile_find(want[k].key), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
        assert_int_equal(r.pipes, want[k].pipes);
        for (int q = 0; q < FA_NPIPE; q++)
            if (!(r.pipes >> q & 1)) assert_true(r.busy[q] == 0);
            else assert_true(r.busy[q] > 0);
        fa_io_result io = r.io;
        fa_perf_to_io(&r, &io);
        assert_int_equal(io.perf_pipes, want[k].pipes);
    }
}

/* The H200 profile: FlashAttention-2 at d = 64 is slower in TFLOP/s than at d = 128 (the exp
 * unit and fp32 work per score do not shrink with d), and v4 (wgmma) faster than v3 (mma.sync). */
static void test_h200_orders(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    fa_perf_result r64, r128, v3, v4;
    fa_shape s = bf16_shape(4096, 4096, 64);
    s.batch = 4;
    s.heads = s.kv_heads = 32;
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, &s, &hw, NULL, &r64), FA_OK);
    s.d = s.d_v = 128;
    s.heads = s.kv_heads = 16;
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, &s, &hw, NULL, &r128), FA_OK);
    assert_true(r64.tflops < r128.tflops);
    assert_int_equal(fa_perf_predict(fa_profile_find("v3_mt2"), FA_PASS_FWD, &s, &hw, NULL, &v3), FA_OK);
    assert_int_equal(fa_perf_predict(fa_profile_find("v4_bc64"), FA_PASS_FWD, &s, &hw, NULL, &v4), FA_OK);
    assert_true(v4.time_s < v3.time_s);
    assert_int_equal(r128.occ[0].occupancy, 2); /* 255 registers x 128 threads */
    assert_int_equal(v3.occ[0].occupancy, 2);
}

/* FlashAttention-2's split-KV rule (flash_api.cpp num_splits_heuristic) on hand-computed cases. */
static void test_split_kv(void **st)
{
    (void)st;
    const fa_profile *p = fa_profile_find("fa2");
    fa_blocks bk = {0, 0};
    /* B = 1, H = 1, N = 4096, d = 128: 64 row blocks of 64 on 2 x 132 slots (64 < 0.8 x 264);
     * 32 key blocks of 128; efficiency 64 q / 264 / ceil(64 q / 264): q = 3 -> 0.727, q = 4 ->
     * 0.970 = the best (also q = 8, 12, 16): the first within 0.85 of it is 4 */
    fa_shape s = bf16_shape(4096, 4096, 128);
    assert_int_equal(fa_split_kv_heuristic(p, &s, 132, &bk), 4);
    assert_int_equal(bk.block_r, 64);
    assert_int_equal(bk.block_c, 128);
    /* H = 2, d = 64: 128 row blocks, 16 key blocks of 256: q = 2 -> 256 / 264 = 0.970 */
    s = bf16_shape(4096, 4096, 64);
    s.heads = s.kv_heads = 2;
    assert_int_equal(fa_split_kv_heuristic(p, &s, 132, &bk), 2);
    assert_int_equal(bk.block_c, 256);
    /* enough blocks (H = 4: 256 >= 211): no split, tiles untouched */
    s.heads = s.kv_heads = 4;
    bk = (fa_blocks){7, 7};
    assert_int_equal(fa_split_kv_heuristic(p, &s, 132, &bk), 1);
    assert_int_equal(bk.block_r, 7);
    assert_int_equal(fa_split_kv_heuristic(fa_profile_find("v3"), &s, 132, &bk), 1); /* no split_kv */
    /* the prediction takes the split kernel: 4 splits x 64 row blocks = 256 blocks */
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    s = bf16_shape(4096, 4096, 128);
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_int_equal(r.splits, 4);
    assert_int_equal(r.ctas[0], 256);
}

/* PyTorch's math path (TORCH_MATH): the kernels its composite ops launch, each the largest of
 * its GEMM FLOPs, DRAM bytes and exponentials at the hardware's rates, plus a launch. */
static void test_math_sequence(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    hw.sgemm_flops = 1e12;
    fa_shape s = bf16_shape(64, 64, 64); /* B = H = 1: nq = nk = nv = no = n = 4096, 64 rows */
    const fa_profile *p = fa_profile_find("math");
    assert_non_null(p);
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_true(r.has_time);
    /* bytes at 1e12 B/s (ps): casts Q, K, V (2 + 4) x 4096 = 24576 each; Q and K^T scaled 8 x
     * 4096 = 32768 each; GEMMs 2 x 4096 x 64 FLOP = 524288 ps each (their 4 x 3 x 4096 B take
     * less); softmax 4096 exp / 1e10 = 409600 ps (its 32768 B less); isneginf 5 x 4096 = 20480;
     * all 4096 + 64 = 4160; where 8 x 4096 + 64 = 32832; O and P back to bf16 6 x 4096 each */
    const double ps = 3 * 24576. + 2 * 32768. + 2 * 524288. + 409600 + 20480 + 4160 + 32832 + 2 * 24576.;
    assert_int_equal(r.nsteps[0], 13);
    assert_near(r.time_s, ps * 1e-12 + 13 * 2e-6, 1e-15);
    /* fp32 GEMMs without TF32: SGEMM on the FMA units, the fp32 pipe's time, none the tensor cores' */
    assert_near(r.busy[FA_PIPE_FP32], 2 * 524288e-12, 1e-18);
    assert_near(r.busy[FA_PIPE_TENSOR], 0, 0);
    assert_int_equal(r.bound, FA_PIPE_FP32);
    assert_near(r.busy[FA_PIPE_EXP], 409600e-12, 1e-18);
    /* causal: the mask built once (ones 1, tril 2, zeros 4, logical_not 2, masked_fill 9 bytes a
     * score: 18 x 4096) and added (8 x 4096 + the mask 4 x 4096, which fits L2): 6 more kernels */
    s.causal = FA_CAUSAL_TOP_LEFT;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_int_equal(r.nsteps[0], 19);
    assert_near(r.time_s, (ps + 18 * 4096. + 12 * 4096.) * 1e-12 + 19 * 2e-6, 1e-15);
    /* a mask larger than the L2 is read again for every (batch, head) slice */
    hw.l2_bytes = 8192;
    s.heads = s.kv_heads = 2;
    fa_perf_result r2;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r2), FA_OK);
    assert_true(r2.nsteps[0] == 19 && !strcmp(r2.steps[0][11].what, "S += mask"));
    assert_near(r2.steps[0][11].bytes, 8 * 8192. + 4 * 8192., 1e-9);
    /* fp8 is not a math-path dtype */
    s.dtype = FA_DTYPE_E4M3;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r2), FA_EINVAL);
    fa_clear_error();
}

/* kernels/ v0's softmax reads only the keys the causal mask allows: its DRAM bytes fall short
 * of the three-kernel baseline's by (1 - allowed / scores) x the S reads. */
static void test_v0_causal_reads(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    hw.gemm_flops = 1e12;
    const fa_profile *v0 = fa_profile_find("v0"), *eager = fa_profile_find("eager");
    assert_non_null(v0);
    assert_non_null(eager);
    /* N_q = 48, N_k = 64, 3072 scores, S read 6144 B: bottom-right row i keeps min(i + 17, 64)
     * keys (1944 in all), top-left i + 1 (1176) */
    const struct { fa_causal c; double less; } cases[] = {
        {FA_CAUSAL_NONE, 0}, {FA_CAUSAL_BOTTOM_RIGHT, 6144 - 6144 * 1944. / 3072}, {FA_CAUSAL_TOP_LEFT, 6144 - 6144 * 1176. / 3072}};
    for (int i = 0; i < 3; i++) {
        fa_shape s = bf16_shape(48, 64, 64);
        s.causal = cases[i].c;
        fa_perf_result a, b;
        assert_int_equal(fa_perf_predict(v0, FA_PASS_FWD, &s, &hw, NULL, &a), FA_OK);
        assert_int_equal(fa_perf_predict(eager, FA_PASS_FWD, &s, &hw, NULL, &b), FA_OK);
        assert_int_equal(b.nsteps[0], 3);
        assert_near((double)b.dram_bytes - (double)a.dram_bytes, cases[i].less, 1.0);
    }
}

/* Predicts pass p of prof on s twice, by fa_perf_predict (a, the count-free path) and by
 * fa_perf_predict_counted (b, the whole count-only run): 0 when the profile has no such pass. */
static int predict_both(const fa_profile *prof, fa_pass p, const fa_shape *s, const fa_hw *hw, fa_perf_result *a,
                        fa_perf_result *b)
{
    if (fa_perf_predict(prof, p, s, hw, NULL, a) != FA_OK) {
        fa_clear_error();
        return 0;
    }
    assert_int_equal(fa_perf_predict_counted(prof, p, s, hw, NULL, b), FA_OK);
    return 1;
}

/* The count-free path of fa_perf_predict (closed-form bytes and matmul FLOPs, one head counted for
 * the softmax FLOPs) gives the whole count-only run's counts and time on causal, GQA, N_q != N_k,
 * window and softcap shapes (issue 18: report.csv's flops_other was 0 on that path). */
static void test_counted_equals_closed(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("a100", NULL, &hw), FA_OK);
    const char *keys[] = {"eager", "fa1", "fa2"};
    for (int c = 0; c < 5; c++)
        for (int k = 0; k < 3; k++)
            for (int pass = 0; pass < 2; pass++) {
                fa_shape s = fa_shape_default(1000, 64);
                s.batch = 2;
                s.heads = 8;
                s.kv_heads = c == 1 ? 2 : 8;
                s.causal = c == 4 ? FA_CAUSAL_NONE : FA_CAUSAL_BOTTOM_RIGHT;
                if (c == 2) s.seqlen_k = 1500;
                if (c == 3) s.window = 1, s.window_left = 255, s.window_right = 0;
                if (c == 4) s.softcap = 30;
                const fa_pass p = pass ? FA_PASS_BWD : FA_PASS_FWD;
                const fa_profile *prof = fa_profile_find(keys[k]);
                fa_perf_result a, b;
                if (!predict_both(prof, p, &s, &hw, &a, &b)) continue; /* no such kernel pass */
                assert_true(a.io.counts.flops_other > 0);
                if (a.io.counts.flops_other != b.io.counts.flops_other)
                    fail_msg("case %d %s pass %d: other %llu vs %llu", c, keys[k], pass,
                             (unsigned long long)a.io.counts.flops_other, (unsigned long long)b.io.counts.flops_other);
                assert_true(a.io.counts.flops_matmul == b.io.counts.flops_matmul);
                assert_true(fa_counts_hbm_bytes(&a.io.counts) == fa_counts_hbm_bytes(&b.io.counts));
                assert_near(a.io.time_s, b.io.time_s, 1e-15);
                assert_near(a.time_s, b.time_s, 1e-15);
            }
}

/* A causal pass at N far beyond the tiles counts its softmax FLOPs at four smaller N and extends
 * them as a quadratic in the periods of lcm(B_r, B_c) (docs/time-model.md, "Counting at large N"):
 * on every kernel profile family (B_r != B_c among them), with tails, N_k > N_q, N_k < N_q, the
 * top-left diagonal, GQA and conditional rescaling (tau = 8), the extended count equals the whole
 * count-only run's, and the extension was taken (count_periods > 0). */
static void test_causal_extension_exact(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const char *keys[] = {"fa1", "fa2", "fa3", "cudnn", "v3", "v3_mt2", "v5", "v5_cresc", "v5_fa4", "v5_bwd", "v5_bwd_atomic"};
    const struct { int64_t nq, nk, kvh; fa_causal c; double tau; } cases[] = {
        {4133, 4133, 2, FA_CAUSAL_BOTTOM_RIGHT, 0}, {5000, 6537, 2, FA_CAUSAL_BOTTOM_RIGHT, 0},
        {6537, 5000, 2, FA_CAUSAL_BOTTOM_RIGHT, 0}, {5000, 6537, 2, FA_CAUSAL_TOP_LEFT, 0},
        {4096, 4096, 1, FA_CAUSAL_BOTTOM_RIGHT, 0}, {4133, 4133, 2, FA_CAUSAL_BOTTOM_RIGHT, 8}};
    int extended = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            for (int pass = 0; pass < 2; pass++) {
                fa_shape s = fa_shape_default(cases[c].nq, 128);
                s.seqlen_k = cases[c].nk;
                s.heads = 2;
                s.kv_heads = cases[c].kvh;
                s.causal = cases[c].c;
                s.rescale_threshold = cases[c].tau; /* FlashAttention-4's conditional rescaling */
                s.dtype = FA_DTYPE_BF16;
                const fa_pass p = pass ? FA_PASS_BWD : FA_PASS_FWD;
                const fa_profile *prof = fa_profile_find(keys[k]);
                fa_perf_result a, b;
                if (!predict_both(prof, p, &s, &hw, &a, &b)) continue; /* no such kernel pass */
                if (a.io.counts.flops_other != b.io.counts.flops_other)
                    fail_msg("case %zu %s pass %d (tiles %lld x %lld, %lld periods): other %llu vs %llu", c, keys[k],
                             pass, (long long)a.io.blocks.block_r, (long long)a.io.blocks.block_c,
                             (long long)a.count_periods[pass], (unsigned long long)a.io.counts.flops_other,
                             (unsigned long long)b.io.counts.flops_other);
                assert_true(a.io.counts.sram_peak_bytes == b.io.counts.sram_peak_bytes);
                assert_true(a.io.counts.reg_peak_bytes == b.io.counts.reg_peak_bytes);
                assert_int_equal(b.count_periods[pass], 0);
                extended += a.count_periods[pass] > 0;
                assert_near(a.time_s, b.time_s, 1e-12 * b.time_s);
            }
    assert_true(extended >= 40);
}

/* The bytes of one tensor of a count, 0 when it has none. */
static uint64_t tensor_read(const fa_counts *c, const char *name)
{
    int t = fa_counts_find(c, name);
    return t < 0 ? 0 : c->tensor[t].read_bytes;
}
static uint64_t tensor_written(const fa_counts *c, const char *name)
{
    int t = fa_counts_find(c, name);
    return t < 0 ? 0 : c->tensor[t].write_bytes;
}

/* FlashAttention-2's decoding with GQA (fa_profile_ngroups_swap; flash_api.cpp's
 * seqlenq_ngroups_swapped): N_q = 1, H = 32, H_kv = 8, N_k = 32768, d = 128, fp16 runs as N_q = 4
 * rows of 8 heads, so K and V are read once a K,V head: 8 x 32768 x 128 x 2 = 67108864 B each
 * (not 4x that), and its prediction is the swapped shape's; MHA, a window, dropout, d = 100 (not a
 * multiple of 8), ALiBi and the top-left diagonal keep the shape, as does the backward. */
static void test_ngroups_swap(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const fa_profile *fa2 = fa_profile_find("fa2");
    fa_shape s = fa_shape_default(1, 128), w;
    s.seqlen_k = 32768;
    s.heads = 32;
    s.kv_heads = 8;
    s.dtype = FA_DTYPE_FP16;
    assert_int_equal(fa_profile_ngroups_swap(fa2, &s, &w), 1);
    assert_int_equal(w.seqlen_q, 4);
    assert_int_equal(w.heads, 8);
    assert_int_equal(w.kv_heads, 8);
    fa_perf_result a, b;
    assert_int_equal(fa_perf_predict_counted(fa2, FA_PASS_FWD, &s, &hw, NULL, &a), FA_OK);
    assert_int_equal(a.ngroups_swapped, 1);
    assert_true(tensor_read(&a.io.counts, "K") == 67108864u);
    assert_true(tensor_read(&a.io.counts, "V") == 67108864u);
    assert_int_equal(fa_perf_predict_counted(fa2, FA_PASS_FWD, &w, &hw, NULL, &b), FA_OK);
    assert_int_equal(b.ngroups_swapped, 0);
    assert_near(a.time_s, b.time_s, 1e-15);
    assert_true(fa_counts_hbm_bytes(&a.io.counts) == fa_counts_hbm_bytes(&b.io.counts));
    s.causal = FA_CAUSAL_BOTTOM_RIGHT; /* one row sees every key: FlashAttention-2 drops the mask */
    assert_int_equal(fa_profile_ngroups_swap(fa2, &s, &w), 1);
    assert_int_equal(w.causal, FA_CAUSAL_NONE);
    const fa_profile *v3 = fa_profile_find("v3"); /* fasim's own kernels do not swap */
    assert_int_equal(fa_profile_ngroups_swap(v3, &s, &w), 0);
    for (int c = 0; c < 6; c++) {
        fa_shape x = s;
        if (c == 0) x.kv_heads = 32;
        if (c == 1) x.window = 1, x.window_left = 1023, x.window_right = 0;
        if (c == 2) x.dropout_p = 0.1;
        if (c == 3) x.d = x.d_v = 100;
        if (c == 4) x.alibi = 1;
        if (c == 5) x.causal = FA_CAUSAL_TOP_LEFT;
        assert_int_equal(fa_profile_ngroups_swap(fa2, &x, &w), 0);
    }
    fa_perf_result c;
    assert_int_equal(fa_perf_predict_counted(fa2, FA_PASS_BWD, &s, &hw, NULL, &c), FA_OK);
    assert_int_equal(c.ngroups_swapped, 0);
}


/* kernels/ v5_fp8's HBM bytes (docs/io-model.md, "An FP8 forward kernel") against their closed form
 * by hand, B = 2, H = 4, H_kv = 2, N_q = N_k = 1000, d = 128, e = 1 (e4m3), tiles 128 x 128: T_r =
 * T_c = 8, the last tile 104 rows.  Per head without a mask: Q N d = 128000; K and V^T T_r N d =
 * 1024000 each; O in bf16 2 N d = 256000; LSE 4 N = 4000; the scales 4 T_r = 32 (Q) and 4 T_r T_c
 * = 256 (K, V): 2436544 B, x B H = 8: 19492352.  Causal (bottom-right, N_q = N_k): row block i
 * visits tiles 0..i, 36 in all, keys 128 (1 + ... + 7) + 1000 = 4584: K = V = 4584 x 128 = 586752,
 * K and V scales 4 x 36 = 144: 1561824 B a head, 12494592 in all.  The V -> V^T pre-pass: B H_kv
 * N d e = 2 x 2 x 1000 x 128 = 512000 B read and as many written, apart.  Both the closed-form path
 * and the count-only run (whose scale bytes are 4 x the memory model's tile loads) give them. */
static void test_v5_fp8_bytes(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const fa_profile *p = fa_profile_find("v5_fp8");
    assert_non_null(p);
    assert_int_equal(p->mma, FA_MMA_WGMMA);
    assert_int_equal(p->overlap, FA_OVERLAP_PINGPONG);
    assert_int_equal(p->persistent, 0);
    assert_int_equal(p->o_bytes, 2);
    assert_int_equal(p->scale_rows, 128);
    assert_true(fa_profile_has_format(p));
    assert_false(fa_profile_has_format(fa_profile_find("v5")));
    static const struct { int causal; uint64_t q, k, o, lse, qs, ks, total; } want[2] = {
        {0, 128000, 1024000, 256000, 4000, 32, 256, 19492352},
        {1, 128000, 586752, 256000, 4000, 32, 144, 12494592},
    };
    for (int c = 0; c < 2; c++)
        for (int counted = 0; counted < 2; counted++) {
            fa_shape s = fa_shape_default(1000, 128);
            s.dtype = FA_DTYPE_E4M3;
            s.batch = 2, s.heads = 4, s.kv_heads = 2;
            s.causal = want[c].causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE;
            fa_perf_result r;
            assert_int_equal((counted ? fa_perf_predict_counted : fa_perf_predict)(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
            const fa_counts *k = &r.io.counts;
            assert_int_equal(r.io.blocks.block_r, 128);
            assert_int_equal(r.io.blocks.block_c, 128);
            assert_int_equal(tensor_read(k, "Q"), 8 * want[c].q);
            assert_int_equal(tensor_read(k, "K"), 8 * want[c].k);
            assert_int_equal(tensor_read(k, "V"), 8 * want[c].k);
            assert_int_equal(tensor_written(k, "O"), 8 * want[c].o);
            assert_int_equal(tensor_written(k, "LSE"), 8 * want[c].lse);
            assert_int_equal(tensor_read(k, "Q_scale"), 8 * want[c].qs);
            assert_int_equal(tensor_read(k, "K_scale"), 8 * want[c].ks);
            assert_int_equal(tensor_read(k, "V_scale"), 8 * want[c].ks);
            assert_int_equal(fa_counts_hbm_bytes(k), want[c].total);
            assert_int_equal(r.io.formula.read_bytes + r.io.formula.write_bytes, want[c].total);
            assert_int_equal(r.io.formula.read_bytes, k->hbm_read_bytes);
            assert_int_equal(r.io.formula.write_bytes, k->hbm_write_bytes);
            assert_int_equal(r.prepass_read_bytes, 512000);
            assert_int_equal(r.prepass_write_bytes, 512000);
        }
    /* the closed form of the tile loads itself (docs/io-model.md): 8 x (8, 64) and 8 x (8, 36) */
    fa_shape s = fa_shape_default(1000, 128);
    s.batch = 2, s.heads = 4, s.kv_heads = 2;
    uint64_t ql, kvl;
    assert_int_equal(fa_formula_flash2_loads(&s, (fa_blocks){128, 128}, &ql, &kvl), FA_OK);
    assert_int_equal(ql, 64);
    assert_int_equal(kvl, 512);
    s.causal = FA_CAUSAL_BOTTOM_RIGHT;
    assert_int_equal(fa_formula_flash2_loads(&s, (fa_blocks){128, 128}, &ql, &kvl), FA_OK);
    assert_int_equal(kvl, 288);
}

/* v5_fp8's predicted time on the H200 equals the time model's closed form (docs/time-model.md,
 * "v5_fp8"), computed here from the h200 profile's constants: B = 1, H = 33, N = 1024, d = 128,
 * e4m3, no mask -- 8 x 8 tiles a head, 264 thread blocks of one row block (not persistent), one per
 * SM (registers), 2 waves on 132 SMs.  A 128 x 128 tile: tensor 2 x 128 x 128 x 256 FLOP at
 * wgmma_fp8_flops / SMs; exp 128^2 and fp32 4.5 x 128^2 + 128 x 128 (the rescale) at the wgmma clock's
 * share (wgmma_clock_hz / clock_hz) of exp_per_s and fma_flops / 2; G = tensor (the operands are the
 * tensor cores' own reads), S = exp + fp32, ping-pong of two consumers: tile = max + min / 2.  A
 * block: 8 tiles + one G exposed + its edges (DRAM latency, Q_i 128 x 128 x 1 B at DRAM / SMs, K_j and
 * V^T_j 2 x 128 x 128 x 1 B at L2 / SMs, O_i 128 x 128 x 2 B in bf16 at DRAM / SMs); time = 2 blocks'
 * time + one launch (the L2 and DRAM bounds are lower: checked).  The pre-pass: 2 x B H_kv N d B at
 * dram_bytes_per_s + a launch. */
static void test_v5_fp8_time(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    hw.wgmma_load_n = 0; /* the closed form at the full-load clock (the load clock: test_wgmma_clock_by_load) */
    fa_shape s = fa_shape_default(1024, 128);
    s.dtype = FA_DTYPE_E4M3;
    s.batch = 1, s.heads = s.kv_heads = 33;
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(fa_profile_find("v5_fp8"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_true(r.has_time);
    const double sms = hw.sms, kc = hw.wgmma_clock_hz / hw.clock_hz;
    const double t_tc = 2.0 * 128 * 128 * 256 / (hw.wgmma_fp8_flops / sms);
    const double t_ex = 128.0 * 128 / (kc * hw.exp_per_s / sms);
    const double t_alu = (4.5 * 128 * 128 + 128.0 * 128) / (kc * hw.fma_flops / 2 / sms);
    const double G = t_tc, S = t_ex + t_alu;
    const double tile = fmax(G, S) + fmin(G, S) / 2;
    const double edge = hw.dram_latency_s + 128.0 * 128 / (hw.dram_bandwidth / sms) +
                        2.0 * 128 * 128 / (hw.l2_bandwidth / sms) + 2.0 * 128 * 128 / (hw.dram_bandwidth / sms);
    const double block = 8 * tile + G + edge;
    assert_near(r.k[0].t_tensor, t_tc, 1e-18);
    assert_near(r.k[0].t_exp, t_ex, 1e-18);
    assert_near(r.k[0].t_fp32, t_alu, 1e-18);
    assert_near(r.k[0].tile, tile, 1e-18);
    assert_near(r.k[0].edge, edge, 1e-18);
    assert_int_equal(r.occ[0].occupancy, 1);
    assert_int_equal(r.ctas[0], 264);
    assert_true(r.busy[FA_PIPE_L2] < 2 * block && r.busy[FA_PIPE_DRAM] < 2 * block);
    assert_near(r.time_s, 2 * block + hw.launch_s, 1e-15);
    /* the numbers, for docs/time-model.md: 645.0 ns, 638.3 ns, 438.3 ns; tile 1.3991 us */
    assert_near(t_tc, 644.97e-9, 0.01e-9);
    assert_near(t_ex, 638.33e-9, 0.01e-9);
    assert_near(t_alu, 438.32e-9, 0.01e-9);
    assert_near(r.time_s, 32.63e-6, 0.01e-6);
    /* TFLOP/s by the FlashAttention-2 convention: 4 B H N^2 d / time */
    assert_near(r.tflops, 4.0 * 33 * 1024 * 1024 * 128 / r.time_s / 1e12, 1e-9);
    const double pre = 2.0 * 33 * 1024 * 128 / hw.dram_bandwidth + hw.launch_s;
    assert_near(r.prepass_s, pre, 1e-18);
    assert_int_equal(r.prepass_read_bytes, 33 * 1024 * 128);
}

/* wgmma_clock_by_load (h200-sxm.hw: 0.23:1.800e9 0.43:1.786e9 0.59:1.793e9 0.81:1.732e9 1.0:1.603e9):
 * the clock by hand between and beyond the points, and a wgmma kernel timed at the clock of its
 * tensor share at the full-load clock: every SM pipe's time scaled by wgmma_clock_hz / that clock. */
static void test_wgmma_clock_by_load(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    assert_int_equal(hw.wgmma_load_n, 5);
    assert_near(fa_hw_wgmma_clock_at(&hw, 0.1), 1.800e9, 1);         /* below the first point: its clock */
    assert_near(fa_hw_wgmma_clock_at(&hw, 0.7), 1.7625e9, 1);        /* 1.793 + (1.732 - 1.793) 0.11 / 0.22 */
    assert_near(fa_hw_wgmma_clock_at(&hw, 0.9), 1.732e9 - 0.129e9 * 0.09 / 0.19, 1);
    assert_near(fa_hw_wgmma_clock_at(&hw, 1.0), 1.603e9, 1);
    fa_hw full = hw;
    full.wgmma_load_n = 0;
    assert_near(fa_hw_wgmma_clock_at(&full, 0.5), full.wgmma_clock_hz, 0); /* no points: the full-load clock */
    fa_shape s = fa_shape_default(4096, 128);
    s.dtype = FA_DTYPE_BF16;
    s.batch = 4, s.heads = s.kv_heads = 16;
    fa_perf_result r0, r1;
    const fa_profile *p = fa_profile_find("v5");
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &full, NULL, &r0), FA_OK);
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r1), FA_OK);
    const double duty = r0.k[0].t_tensor * r0.k[0].tiles / hw.sms / r0.k[0].makespan;
    assert_near(r1.k[0].load_duty, duty, 1e-12);
    const double hz = fa_hw_wgmma_clock_at(&hw, duty), f = hz / hw.wgmma_clock_hz;
    assert_near(r1.k[0].load_clock_hz, hz, 1e-3);
    assert_true(hz > hw.wgmma_clock_hz); /* a partial load: a higher clock */
    assert_near(r1.k[0].t_tensor, r0.k[0].t_tensor / f, 1e-15);
    assert_near(r1.k[0].t_exp, r0.k[0].t_exp / f, 1e-15);
    assert_near(r1.k[0].t_fp32, r0.k[0].t_fp32 / f, 1e-15);
    assert_near(r1.k[0].tile, r0.k[0].tile / f, 1e-15);
    assert_near(r0.k[0].load_duty, 0, 0); /* not applied without points */
    /* mma.sync kernels keep mma_sync_clock_hz: the curve is wgmma's */
    fa_perf_result a, b;
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, &s, &full, NULL, &a), FA_OK);
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, &s, &hw, NULL, &b), FA_OK);
    assert_near(a.time_s, b.time_s, 0);
}

/* Issue slots: the softmax phase of a profile with measured instruction counts takes at least
 * inst / (issue_per_sm_clk x the SM clock); v5_bwd at d = 128 (0.5499 warp instructions per score
 * element, s10_issue.csv) on 64 x 128 tiles: 4504.8 instructions, 1126.2 clocks at 1620 MHz (the
 * full-load clock: no load points here) = 0.6952 us, longer than its exp + fp32 time, so S is it
 * and the serial tile is G + S.  Without the count, or without issue_per_sm_clk, S is exp + fp32. */
static void test_issue_slots(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    assert_near(hw.issue_per_sm_clk, 4, 0);
    hw.wgmma_load_n = 0;
    const fa_profile *p = fa_profile_find("v5_bwd");
    assert_near(fa_profile_inst_per_elem(p, 1, 64), 0.3467, 0);
    assert_near(fa_profile_inst_per_elem(p, 1, 128), 0.5499, 0);
    assert_near(fa_profile_inst_per_elem(p, 1, 256), 0, 0); /* beyond the table: not measured */
    assert_near(fa_profile_inst_per_elem(p, 0, 128), 0, 0); /* a backward kernel: no forward count */
    fa_shape s = fa_shape_default(4096, 128);
    s.dtype = FA_DTYPE_BF16;
    s.batch = 4, s.heads = s.kv_heads = 16;
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(p, FA_PASS_BWD, &s, &hw, NULL, &r), FA_OK);
    const fa_perf_kernel *k = &r.k[1];
    assert_near(k->inst, 0.5499 * 64 * 128, 1e-9);
    assert_near(k->t_issue, 0.5499 * 64 * 128 / (4 * 1.62e9), 1e-15);
    assert_near(k->t_issue, 6.9518e-7, 1e-10);
    assert_true(k->t_issue > k->t_exp + k->t_fp32);
    assert_near(k->S, k->t_issue, 0);
    /* one block an SM, in step: nothing hides S, nor the step's 3 wgmma waits and 2 barriers
     * (3 x 58.8 + 2 x 28.2 = 232.8 clocks at 1620 MHz = 143.7 ns) */
    assert_int_equal(k->waits, 3);
    assert_int_equal(k->barriers, 2);
    assert_near(k->t_wait, 232.8 / 1.62e9, 1e-15);
    assert_near(k->tile, k->G + k->S + k->t_wait, 1e-15);
    fa_profile q = *p; /* the same kernel without a count */
    memset(q.inst_by_d, 0, sizeof q.inst_by_d);
    fa_perf_result r2;
    assert_int_equal(fa_perf_predict(&q, FA_PASS_BWD, &s, &hw, NULL, &r2), FA_OK);
    assert_near(r2.k[1].t_issue, 0, 0);
    assert_near(r2.k[1].S, k->t_exp + k->t_fp32, 1e-15);
    fa_hw h0 = hw; /* a machine without the issue rate */
    h0.issue_per_sm_clk = 0;
    assert_int_equal(fa_perf_predict(p, FA_PASS_BWD, &s, &h0, NULL, &r2), FA_OK);
    assert_near(r2.k[1].S, k->t_exp + k->t_fp32, 1e-15);
}

/* Waits and barriers (docs/time-model.md section 5): v4_bc64's tile waits twice for its own wgmma
 * and meets one __syncthreads (kernels/attn_v4_wgmma.cu): 2 x 58.8 + 28.2 = 145.8 SM clocks.  Alone
 * on an SM (B = H = 1, N = 4096: 32 blocks on 132 SMs; w_phase 1) the whole of it adds to the tile;
 * with two blocks an SM (B 4, H 16: w_phase 2) half; a ping-pong profile (v5's forward) is not
 * charged; a machine without the two constants (a100) charges nothing. */
static void test_waits_barriers(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    assert_near(hw.wgmma_wait_cycles, 58.8, 0);
    assert_near(hw.barrier_cycles, 28.2, 0);
    hw.wgmma_load_n = 0; /* every SM pipe at the full-load clock, 1620 MHz */
    const fa_profile *p = fa_profile_find("v4_bc64");
    fa_shape s = fa_shape_default(4096, 64);
    s.dtype = FA_DTYPE_BF16;
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    const fa_perf_kernel *k = &r.k[0];
    assert_int_equal(k->waits, 2);
    assert_int_equal(k->barriers, 1);
    assert_near(k->w_phase, 1, 0);
    assert_near(k->t_wait, 145.8 / 1.62e9, 1e-15);
    assert_near(k->tile, k->G + k->S + k->t_wait, 1e-15);
    s.batch = 4, s.heads = s.kv_heads = 16;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_near(k->w_phase, 2, 0);
    const double hi = k->G > k->S ? k->G : k->S, lo = k->G > k->S ? k->S : k->G;
    assert_near(k->tile, hi + lo / 2 + k->t_wait / 2, 1e-15);
    fa_profile q = *p; /* the same kernel with nothing to wait on */
    q.waits_fwd = q.barriers_fwd = 0;
    fa_perf_result r2;
    assert_int_equal(fa_perf_predict(&q, FA_PASS_FWD, &s, &hw, NULL, &r2), FA_OK);
    assert_near(r2.k[0].t_wait, 0, 0);
    assert_near(r2.k[0].tile, k->tile - k->t_wait / 2, 1e-15);
    q.overlap = FA_OVERLAP_PINGPONG; /* a ping-pong schedule fills the waits: not charged */
    q.waits_fwd = 2, q.barriers_fwd = 1;
    assert_int_equal(fa_perf_predict(&q, FA_PASS_FWD, &s, &hw, NULL, &r2), FA_OK);
    assert_near(r2.k[0].t_wait, 0, 0);
    fa_hw a100;
    assert_int_equal(fa_hw_load("a100", NULL, &a100), FA_OK);
    assert_near(a100.wgmma_wait_cycles + a100.barrier_cycles, 0, 0);
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, &s, &a100, NULL, &r2), FA_OK);
    assert_near(r2.k[0].t_wait, 0, 0);
}

/* The flash2 backward's small kernels by hand on the round machine: the pre-pass reads O and dO,
 * writes D and clears dQacc; the post-pass reads dQacc and writes dQ; sdpa_flash adds PyTorch's two
 * layout copies of dO and O when H > 1, at transpose_copy_bytes_per_s (else DRAM's rate). */
static void test_bwd_small_kernels(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    fa_shape s = bf16_shape(256, 256, 64);
    s.heads = s.kv_heads = 2; /* rows = B H N_q = 512 */
    fa_perf_result r, c;
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_BWD, &s, &hw, NULL, &r), FA_OK);
    /* pre: 512 x (2 x 64 x 2 + 4 + 4 x 64) = 264192 B; post: 512 x 64 x (4 + 2) = 196608 B; at 1e12 B/s */
    assert_near(r.k[1].pre, 264192e-12, 1e-18);
    assert_near(r.k[1].post, 196608e-12, 1e-18);
    assert_near(r.k[1].copies, 0, 0);
    assert_near(r.k[1].extra, 460800e-12, 1e-18);
    assert_near(r.k[1].launch, 3 * 2e-6, 1e-18);
    hw.transpose_copy_bandwidth = 5e11;
    assert_int_equal(fa_perf_predict(fa_profile_find("sdpa_flash"), FA_PASS_BWD, &s, &hw, NULL, &c), FA_OK);
    /* two copies, each 512 x 64 x 2 B read and written: 262144 B at 5e11 B/s = 524.288 ns */
    assert_near(c.k[1].copies, 524.288e-9, 1e-18);
    assert_near(c.k[1].extra, r.k[1].extra + 524.288e-9, 1e-18);
    assert_near(c.k[1].launch, 5 * 2e-6, 1e-18);
    assert_near(c.time_s, r.time_s + 524.288e-9 + 2 * 2e-6, 1e-15);
    hw.transpose_copy_bandwidth = 0; /* not measured: DRAM's rate */
    assert_int_equal(fa_perf_predict(fa_profile_find("sdpa_flash"), FA_PASS_BWD, &s, &hw, NULL, &c), FA_OK);
    assert_near(c.k[1].copies, 262144e-12, 1e-18);
    s.heads = s.kv_heads = 1; /* one head: (B, H, N, d) is (B, N, H, d), nothing to copy */
    assert_int_equal(fa_perf_predict(fa_profile_find("sdpa_flash"), FA_PASS_BWD, &s, &hw, NULL, &c), FA_OK);
    assert_near(c.k[1].copies, 0, 0);
    assert_near(c.k[1].launch, 3 * 2e-6, 1e-18);
    /* the forward has no copies: sdpa_flash's forward is fa2's */
    assert_int_equal(fa_perf_predict(fa_profile_find("sdpa_flash"), FA_PASS_FWD, &s, &hw, NULL, &c), FA_OK);
    assert_int_equal(fa_perf_predict(fa_profile_find("fa2"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    assert_near(c.time_s, r.time_s, 0);
}

/* The math profile's softmax, all, where and casts at PyTorch's measured kernel rates where the
 * hardware profile gives them: the softmax's rate is the table entry of the largest N <= N_k. */
static void test_math_torch_rates(void **st)
{
    (void)st;
    fa_hw hw = round_hw();
    hw.sgemm_flops = 1e12;
    const double len[3] = {512, 1024, 4096}, bw[3] = {4e11, 2e11, 1e11};
    assert_near(fa_hw_rate_by_len(len, bw, 3, 100), 4e11, 0);  /* below the first: the first */
    assert_near(fa_hw_rate_by_len(len, bw, 3, 1024), 2e11, 0);
    assert_near(fa_hw_rate_by_len(len, bw, 3, 4000), 2e11, 0);
    assert_near(fa_hw_rate_by_len(len, bw, 3, 1 << 20), 1e11, 0);
    assert_near(fa_hw_rate_by_len(len, bw, 0, 4096), 0, 0);
    memcpy(hw.torch_softmax_len, len, sizeof len), memcpy(hw.torch_softmax_bw, bw, sizeof bw);
    hw.torch_softmax_n = 3;
    hw.torch_select_bandwidth = 5e11;
    fa_shape s = bf16_shape(64, 1024, 64); /* n = 65536 scores, 64 rows */
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(fa_profile_find("math"), FA_PASS_FWD, &s, &hw, NULL, &r), FA_OK);
    const fa_std_step *smx = NULL, *wh = NULL, *all = NULL;
    for (int i = 0; i < r.nsteps[0]; i++) {
        if (!strcmp(r.steps[0][i].what, "softmax")) smx = &r.steps[0][i];
        if (!strcmp(r.steps[0][i].what, "_safe_softmax: where")) wh = &r.steps[0][i];
        if (!strcmp(r.steps[0][i].what, "_safe_softmax: all (rows)")) all = &r.steps[0][i];
    }
    assert_true(smx && wh && all);
    /* softmax: 8 x 65536 B at 2e11 B/s (N_k = 1024) = 2.62144 us against 65536 exp / 1e10 = 6.5536 us */
    assert_near(smx->bw, 2e11, 0);
    assert_near(smx->time, fmax(8 * 65536. / 2e11, 65536. / 1e10), 1e-18);
    assert_string_equal(smx->bw_src, "torch_softmax_bytes_per_s_by_n");
    assert_near(wh->time, (8 * 65536. + 64) / 5e11, 1e-18);
    assert_near(all->bw, 1e12, 0); /* no table: DRAM's rate */
    assert_null(all->bw_src);
}

/* A kernel of one architecture is refused on another (the message names both), with or without tiles. */
static void test_check_arch(void **st)
{
    (void)st;
    assert_int_equal(fa_profile_check_arch(fa_profile_find("v4"), 90), FA_OK);
    assert_int_equal(fa_profile_check_arch(fa_profile_find("v4"), 80), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "profile v4 runs on sm_90 (Hopper: wgmma); the hardware profile is sm_80"));
    assert_int_equal(fa_profile_check_arch(fa_profile_find("fa4"), 90), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "profile fa4 runs on sm_100 (Blackwell: tcgen05)"));
    assert_int_equal(fa_profile_check_arch(fa_profile_find("paper"), 80), FA_OK); /* no tile table */
    fa_hw hw;
    assert_int_equal(fa_hw_load("a100", NULL, &hw), FA_OK);
    fa_shape s = fa_shape_default(1024, 64);
    fa_blocks bk = {64, 64};
    fa_perf_result r;
    assert_int_equal(fa_perf_predict(fa_profile_find("fa3"), FA_PASS_FWD, &s, &hw, &bk, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "profile fa3 runs on sm_90"));
}

/* v5_fp8 refuses what its kernel cannot run, naming the value: another dtype, d != 128, tiles that
 * do not divide the scale blocks, a backward. */
static void test_v5_fp8_refusals(void **st)
{
    (void)st;
    fa_hw hw;
    assert_int_equal(fa_hw_load("h200", NULL, &hw), FA_OK);
    const fa_profile *p = fa_profile_find("v5_fp8");
    fa_perf_result r;
    fa_shape s = fa_shape_default(1024, 128);
    s.dtype = FA_DTYPE_BF16;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "takes --dtype fp8_e4m3 only"));
    assert_non_null(strstr(fa_last_error(), "not bf16"));
    s.dtype = FA_DTYPE_E5M2;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "not fp8_e5m2"));
    s = fa_shape_default(1024, 64);
    s.dtype = FA_DTYPE_E4M3;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "head dim d = 64, d_v = 64 (its kernels take d = d_v = 128 only)"));
    fa_blocks bk = {128, 128}; /* given tiles do not lift the head dim */
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_EINVAL);
    s.d = s.d_v = 256;
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, NULL, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "d = 256"));
    s.d = s.d_v = 128;
    bk = (fa_blocks){96, 128};
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "must divide 128 rows, not B_r x B_c = 96 x 128"));
    bk = (fa_blocks){64, 64}; /* tiles that divide the scale block: two tiles a block, one exponent each */
    assert_int_equal(fa_perf_predict(p, FA_PASS_FWD, &s, &hw, &bk, &r), FA_OK);
    assert_int_equal(tensor_read(&r.io.counts, "K_scale"), 4 * 16 * 16);
    assert_int_equal(fa_perf_predict(p, FA_PASS_BWD, &s, &hw, NULL, &r), FA_EINVAL);
    fa_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_arena),   cmocka_unit_test(test_placement_fa2),
        cmocka_unit_test(test_occupancy),        cmocka_unit_test(test_prediction_closed_form),
        cmocka_unit_test(test_fa4_parameters),
        cmocka_unit_test(test_v5_variants),      cmocka_unit_test(test_exp_poly_by_d),
        cmocka_unit_test(test_v5_bwd_fields),    cmocka_unit_test(test_v5_bwd_tiles),
        cmocka_unit_test(test_missing_pipe),     cmocka_unit_test(test_tile_tables),
        cmocka_unit_test(test_causal_tiles), cmocka_unit_test(test_bwd_launch_order), cmocka_unit_test(test_pingpong_streams), cmocka_unit_test(test_math_tiles_by_d), cmocka_unit_test(test_modelled_pipes), cmocka_unit_test(test_h200_orders),
        cmocka_unit_test(test_split_kv),         cmocka_unit_test(test_math_sequence),
        cmocka_unit_test(test_v0_causal_reads),  cmocka_unit_test(test_counted_equals_closed),
        cmocka_unit_test(test_causal_extension_exact), cmocka_unit_test(test_ngroups_swap),
        cmocka_unit_test(test_v5_fp8_bytes),     cmocka_unit_test(test_v5_fp8_time),
        cmocka_unit_test(test_v5_fp8_refusals),  cmocka_unit_test(test_wgmma_clock_by_load),
        cmocka_unit_test(test_issue_slots), cmocka_unit_test(test_waits_barriers), cmocka_unit_test(test_std_launches), cmocka_unit_test(test_check_arch),
        cmocka_unit_test(test_bwd_small_kernels), cmocka_unit_test(test_math_torch_rates), cmocka_unit_test(test_ldsm_mma_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
