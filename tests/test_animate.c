/* test_animate.c -- `fasim animate`'s logic (analysis/fa_animate.h): the transfers of a 2 x 2-tile
 * forward counted by hand (flash2 14, flash1 38, in their order), the heatmap's per-tile counts
 * equal to their closed forms (flash1 reads each Q tile T_c times, flash2 once; causal: flash2
 * reads key tile j T_r - j times), the last frame's cumulative bytes equal to the memory model's
 * per-tensor counts (fa_io_run), the boxes and colours of chosen frames, and the errors. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "fa_animate.h"

#define M_BIG ((uint64_t)1 << 20)

static fa_shape shape(int64_t nq, int64_t nk, int64_t d, fa_causal causal)
{
    fa_shape s = {.batch = 1, .heads = 1, .kv_heads = 1, .seqlen_q = nq, .seqlen_k = nk, .d = d, .d_v = d,
                  .scale = 0, .causal = causal, .dtype = FA_DTYPE_FP16};
    return s;
}

static void expect_transfer(const fa_anim_transfer *t, const char *tensor, int write, int64_t row0, uint64_t bytes)
{
    assert_string_equal(t->tensor, tensor);
    assert_int_equal(t->write, write);
    assert_int_equal(t->row0, row0);
    assert_int_equal(t->bytes, bytes);
}

/* N = 128, d = 64, 64 x 64 tiles (T_r = T_c = 2), fp16: a tile of Q, K, V, O is 64 * 64 * 2 =
 * 8192 B, one of l, m, LSE 64 * 4 = 256 B. */
static void test_record_by_hand(void **state)
{
    (void)state;
    fa_shape s = shape(128, 128, 64, FA_CAUSAL_NONE);
    fa_blocks bk = {64, 64};
    fa_anim_record r;
    /* flash2 (FA2 Alg. 1): per row block i, Q_i, then K_j, V_j for j = 0, 1, then O_i and LSE_i */
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH2, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(r.n, 2 * (1 + 2 * 2 + 2));
    static const char *const f2[7] = {"Q", "K", "V", "K", "V", "O", "LSE"};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 7; k++) {
            int64_t row0 = k == 0 || k >= 5 ? 64 * i : 64 * ((k - 1) / 2);
            expect_transfer(&r.t[7 * i + k], f2[k], k >= 5, row0, k == 6 ? 256 : 8192);
        }
    assert_int_equal(r.bytes, 12 * 8192 + 2 * 256);
    fa_anim_record_free(&r);
    /* flash1 (FA1 Alg. 1): line 2 writes O, l, m of both row blocks (6); then per key block j,
     * K_j and V_j, and per row block Q_i, O_i, l_i, m_i read and O_i, l_i, m_i written */
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH1, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(r.n, 3 * 2 + 2 * (2 + 2 * (4 + 3)));
    expect_transfer(&r.t[0], "O", 1, 0, 8192);
    expect_transfer(&r.t[1], "l", 1, 0, 256);
    expect_transfer(&r.t[5], "m", 1, 64, 256);
    expect_transfer(&r.t[6], "K", 0, 0, 8192);
    expect_transfer(&r.t[7], "V", 0, 0, 8192);
    expect_transfer(&r.t[8], "Q", 0, 0, 8192);
    expect_transfer(&r.t[22], "K", 0, 64, 8192);
    expect_transfer(&r.t[37], "m", 1, 64, 256);
    fa_anim_record_free(&r);
    /* only slice (0, 0): B = 2, H = 3 record the same transfers */
    s.batch = 2;
    s.heads = s.kv_heads = 3;
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH2, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(r.n, 14);
    fa_anim_record_free(&r);
}

/* Counts of every tile of a heatmap row against want(t). */
static void expect_row(const fa_anim_heat *h, int tensor, int write, int64_t n, int64_t (*want)(int64_t t, const fa_anim_heat *h))
{
    for (int64_t t = 0; t < FA_ANIM_MAX_TILES; t++)
        assert_int_equal(h->n[tensor][write][t], t < n ? want(t, h) : 0);
}
static int64_t zero(int64_t t, const fa_anim_heat *h) { (void)t, (void)h; return 0; }
static int64_t one(int64_t t, const fa_anim_heat *h) { (void)t, (void)h; return 1; }
static int64_t tc(int64_t t, const fa_anim_heat *h) { (void)t; return h->t_c; }
static int64_t tc1(int64_t t, const fa_anim_heat *h) { (void)t; return h->t_c + 1; }
static int64_t tr(int64_t t, const fa_anim_heat *h) { (void)t; return h->t_r; }
static int64_t tr_minus(int64_t t, const fa_anim_heat *h) { return h->t_r - t; }
static int64_t plus1(int64_t t, const fa_anim_heat *h) { (void)h; return t + 1; }
static int64_t plus2(int64_t t, const fa_anim_heat *h) { (void)h; return t + 2; }

static void heat(fa_algo a, const fa_shape *s, fa_blocks bk, fa_anim_heat *h)
{
    fa_anim_record r;
    assert_int_equal(fa_anim_record_pass(a, s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(fa_anim_heatmap(&r, s, bk, h), FA_OK);
    fa_anim_record_free(&r);
}

static void test_heatmap_closed_form(void **state)
{
    (void)state;
    /* N_q = 180 (tiles 64, 64, 52: T_r = 3), N_k = 250 (64, 64, 64, 58: T_c = 4) */
    fa_shape s = shape(180, 250, 32, FA_CAUSAL_NONE);
    fa_blocks bk = {64, 64};
    fa_anim_heat h;
    heat(FA_ALGO_FLASH1, &s, bk, &h);
    assert_int_equal(h.t_r, 3);
    assert_int_equal(h.t_c, 4);
    expect_row(&h, FA_ANIM_Q, 0, 3, tc);  /* Q_i once per key block */
    expect_row(&h, FA_ANIM_K, 0, 4, one); /* K_j, V_j once */
    expect_row(&h, FA_ANIM_V, 0, 4, one);
    expect_row(&h, FA_ANIM_O, 0, 3, tc);  /* O_i read per key block ... */
    expect_row(&h, FA_ANIM_O, 1, 3, tc1); /* ... written per key block and by line 2 */
    expect_row(&h, FA_ANIM_Q, 1, 3, zero);
    expect_row(&h, FA_ANIM_L, 0, 3, tc);  /* l_i, m_i as O_i: read per key block (line 8) ... */
    expect_row(&h, FA_ANIM_M, 0, 3, tc);
    expect_row(&h, FA_ANIM_L, 1, 3, tc1); /* ... written per key block (line 13) and by line 2 */
    expect_row(&h, FA_ANIM_M, 1, 3, tc1);
    expect_row(&h, FA_ANIM_LSE, 1, 3, zero); /* no logsumexp */
    expect_row(&h, FA_ANIM_LSE, 0, 3, zero);
    heat(FA_ALGO_FLASH2, &s, bk, &h);
    expect_row(&h, FA_ANIM_Q, 0, 3, one); /* Q_i once */
    expect_row(&h, FA_ANIM_K, 0, 4, tr);  /* K_j, V_j once per row block */
    expect_row(&h, FA_ANIM_V, 0, 4, tr);
    expect_row(&h, FA_ANIM_O, 0, 3, zero);
    expect_row(&h, FA_ANIM_O, 1, 3, one);
    expect_row(&h, FA_ANIM_LSE, 1, 3, one); /* LSE_i written once */
    expect_row(&h, FA_ANIM_LSE, 0, 3, zero);
    for (int w = 0; w < 2; w++) { /* l and m never leave the chip */
        expect_row(&h, FA_ANIM_L, w, 3, zero);
        expect_row(&h, FA_ANIM_M, w, 3, zero);
    }
    /* causal, N_q = N_k = 256, 64 x 64 tiles: row block i visits key blocks 0..i */
    s = shape(256, 256, 64, FA_CAUSAL_BOTTOM_RIGHT);
    heat(FA_ALGO_FLASH2, &s, bk, &h);
    expect_row(&h, FA_ANIM_Q, 0, 4, one);
    expect_row(&h, FA_ANIM_K, 0, 4, tr_minus); /* 4, 3, 2, 1 */
    expect_row(&h, FA_ANIM_V, 0, 4, tr_minus);
    heat(FA_ALGO_FLASH1, &s, bk, &h);
    expect_row(&h, FA_ANIM_Q, 0, 4, plus1); /* 1, 2, 3, 4 */
    expect_row(&h, FA_ANIM_K, 0, 4, one);
    expect_row(&h, FA_ANIM_O, 1, 4, plus2); /* 2, 3, 4, 5 */
    expect_row(&h, FA_ANIM_L, 0, 4, plus1); /* l, m follow O: 1, 2, 3, 4 read, 2, 3, 4, 5 written */
    expect_row(&h, FA_ANIM_M, 1, 4, plus2);
    /* the rows of the picture and of heatmap.csv, in order */
    int p, w;
    const char *name;
    assert_int_equal(fa_anim_heat_row(5, &p, &w, &name), 0);
    assert_int_equal(p, FA_ANIM_L);
    assert_int_equal(w, 0);
    assert_string_equal(name, "l read");
    assert_int_equal(fa_anim_heat_row(9, &p, &w, &name), 0);
    assert_int_equal(p, FA_ANIM_LSE);
    assert_int_equal(w, 1);
    assert_string_equal(name, "LSE write");
    assert_int_equal(fa_anim_heat_row(FA_ANIM_HEAT_ROWS, &p, &w, &name), -1);
    assert_int_equal(fa_anim_heat_row(-1, &p, &w, &name), -1);
}

/* The last frame's cumulative bytes per tensor are the memory model's counts of the pass
 * (B = H = 1: the slice is the whole run), and ymax their largest. */
static void test_cumulative_bytes(void **state)
{
    (void)state;
    const fa_algo algos[3] = {FA_ALGO_STANDARD, FA_ALGO_FLASH1, FA_ALGO_FLASH2};
    for (int causal = 0; causal < 2; causal++)
        for (int k = 0; k < 3; k++) {
            fa_shape s = shape(200, 130, 32, causal ? FA_CAUSAL_BOTTOM_RIGHT : FA_CAUSAL_NONE);
            fa_blocks bk = {64, 48};
            fa_anim_record r;
            fa_anim_frames F;
            assert_int_equal(fa_anim_record_pass(algos[k], &s, bk, M_BIG, &r), FA_OK);
            assert_int_equal(fa_anim_frames_make(algos[k], &s, bk, &r, &F), FA_OK);
            assert_int_equal(F.n, r.n);
            assert_int_equal(F.t_r, 4);
            assert_int_equal(F.t_c, 3);
            assert_int_equal(F.n_tiles, 3 * 4 + 2 * 3 + 4 * 3);
            fa_io_result io;
            assert_int_equal(fa_io_run(FA_PASS_FWD, algos[k], &s, bk, M_BIG, NULL, NULL, &io), FA_OK);
            const fa_anim_frame *last = &F.frame[F.n - 1];
            uint64_t sum = 0, max = 1;
            for (int b = 0; b < FA_ANIM_NTENSOR; b++) {
                uint64_t rd = 0, wr = 0;
                for (int t = 0; t < io.counts.n_tensors; t++)
                    if (!strcmp(io.counts.tensor[t].name, fa_anim_tensor_names[b])) {
                        rd = io.counts.tensor[t].read_bytes;
                        wr = io.counts.tensor[t].write_bytes;
                    }
                assert_int_equal(last->cum[b][0], rd);
                assert_int_equal(last->cum[b][1], wr);
                sum += rd + wr;
                max = rd > max ? rd : max;
                max = wr > max ? wr : max;
            }
            assert_int_equal(sum, io.counts.hbm_read_bytes + io.counts.hbm_write_bytes);
            assert_int_equal(sum, r.bytes);
            assert_true(F.ymax == (double)max);
            /* the bytes only grow, by the frame's transfer */
            for (int f = 1; f < F.n; f++) {
                uint64_t d = 0;
                for (int b = 0; b < FA_ANIM_NTENSOR; b++)
                    d += F.frame[f].cum[b][0] + F.frame[f].cum[b][1] - F.frame[f - 1].cum[b][0] - F.frame[f - 1].cum[b][1];
                assert_int_equal(d, r.t[f].bytes);
            }
            fa_anim_frames_free(&F);
            fa_anim_record_free(&r);
        }
}

static void expect_box(const fa_anim_tile *t, double x, double y, int colour)
{
    assert_true(t->x == x);
    assert_true(t->y == y);
    assert_true(t->w == 0.45 && t->h == 0.45);
    assert_int_equal(t->colour, colour);
}

/* flash2, 2 x 2 tiles, causal: the boxes of a frame are Q (2), K (2), V (2), O (2), LSE (2), then
 * the score grid (0,0) (0,1) (1,0) (1,1). */
static void test_frames(void **state)
{
    (void)state;
    fa_shape s = shape(128, 128, 64, FA_CAUSAL_BOTTOM_RIGHT);
    fa_blocks bk = {64, 64};
    fa_anim_record r;
    fa_anim_frames F;
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH2, &s, bk, M_BIG, &r), FA_OK);
    /* causal: row block 0 skips key block 1: Q0 K0 V0 O0 LSE0, Q1 K0 V0 K1 V1 O1 LSE1 */
    assert_int_equal(r.n, 12);
    assert_int_equal(fa_anim_frames_make(FA_ALGO_FLASH2, &s, bk, &r, &F), FA_OK);
    assert_int_equal(F.n_tiles, 14);
    const fa_anim_tile *t0 = F.tile, *t2 = F.tile + 2 * 14, *t3 = F.tile + 3 * 14;
    assert_string_equal(F.frame[0].caption, "step 1/12: read Q_1 (row block 1 of 2; 8192 B)");
    expect_box(&t0[0], 0.5, -0.5, FA_ANIM_READ);                  /* Q0 being read */
    expect_box(&t0[1], 0.5, -1.5, FA_ANIM_IDLE);
    expect_box(&t0[2], 1.6 + 0.5, -0.5, FA_ANIM_IDLE);            /* K0 */
    expect_box(&t0[8], 6.4 + 0.5, -0.5, FA_ANIM_IDLE);            /* LSE0 */
    expect_box(&t0[10], 8.5, -0.5, FA_ANIM_IDLE);                 /* score (0,0) */
    expect_box(&t0[11], 9.5, -0.5, FA_ANIM_SKIP);                 /* (0,1): above the diagonal */
    expect_box(&t0[13], 9.5, -1.5, FA_ANIM_IDLE);
    assert_true(F.frame[0].cum[0][0] == 8192 && F.frame[0].cum[1][0] == 0);
    assert_string_equal(F.frame[2].caption, "step 3/12: read V_1 (key block 1 of 2; 8192 B)");
    expect_box(&t2[0], 0.5, -0.5, FA_ANIM_SRAM);                  /* Q0 in SRAM */
    expect_box(&t2[2], 2.1, -0.5, FA_ANIM_SRAM);                  /* K0 in SRAM */
    expect_box(&t2[4], 3.2 + 0.5, -0.5, FA_ANIM_READ);            /* V0 being read */
    expect_box(&t2[10], 8.5, -0.5, FA_ANIM_COMP);                 /* S_00 computed */
    assert_string_equal(F.frame[3].caption, "step 4/12: write O_1 (row block 1 of 2; 8192 B)");
    expect_box(&t3[6], 4.8 + 0.5, -0.5, FA_ANIM_WRITE);
    const fa_anim_tile *t4 = F.tile + 4 * 14;
    expect_box(&t4[6], 5.3, -0.5, FA_ANIM_DONE);                  /* O0 written before */
    assert_string_equal(F.frame[4].caption, "step 5/12: write LSE_1 (row block 1 of 2; 256 B)");
    assert_true(F.frame[11].cum[8][1] == 2 * 256); /* LSE written twice */
    /* a read replaces its column's tile in SRAM in its own frame: K1's read leaves K0 in HBM only
     * (V0 still in SRAM), V1's read V0 (K1 now in SRAM) */
    const fa_anim_tile *t8 = F.tile + 8 * 14, *t9 = F.tile + 9 * 14;
    assert_string_equal(F.frame[8].caption, "step 9/12: read K_2 (key block 2 of 2; 8192 B)");
    expect_box(&t8[2], 2.1, -0.5, FA_ANIM_IDLE); /* K0: replaced, not in SRAM */
    expect_box(&t8[3], 2.1, -1.5, FA_ANIM_READ); /* K1 being read */
    expect_box(&t8[4], 3.7, -0.5, FA_ANIM_SRAM); /* V0 still in SRAM */
    expect_box(&t8[1], 0.5, -1.5, FA_ANIM_SRAM); /* Q1 */
    assert_string_equal(F.frame[9].caption, "step 10/12: read V_2 (key block 2 of 2; 8192 B)");
    expect_box(&t9[4], 3.7, -0.5, FA_ANIM_IDLE); /* V0: replaced */
    expect_box(&t9[5], 3.7, -1.5, FA_ANIM_READ); /* V1 being read */
    expect_box(&t9[3], 2.1, -1.5, FA_ANIM_SRAM); /* K1 */
    for (int f = 0; f < F.n; f++) { /* at most one tile of a column in SRAM or being read */
        const fa_anim_tile *t = F.tile + (size_t)f * 14;
        for (int q = 0; q < 5; q++) {
            int held = 0;
            for (int k = 0; k < 2; k++) held += t[2 * q + k].colour == FA_ANIM_SRAM || t[2 * q + k].colour == FA_ANIM_READ;
            assert_true(held <= 1);
        }
    }
    fa_anim_frames_free(&F);
    fa_anim_record_free(&r);

    /* standard: S and P tiles in the score grid, S_i,j in the caption (i, j from 1) */
    s = shape(128, 128, 32, FA_CAUSAL_NONE);
    assert_int_equal(fa_anim_record_pass(FA_ALGO_STANDARD, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(fa_anim_frames_make(FA_ALGO_STANDARD, &s, bk, &r, &F), FA_OK);
    /* Q0 K0 S00 K1 S01 Q1 K0 S10 K1 S11, then S and P row by row, then P, V and O */
    assert_int_equal(r.n, 32);
    const fa_anim_tile *g2 = F.tile + 2 * 14 + 10, *g3 = F.tile + 3 * 14 + 10, *g4 = F.tile + 4 * 14 + 10;
    assert_string_equal(F.frame[2].caption, "step 3/32: write S_1,1 (score tile i = 1, j = 1; 8192 B)");
    expect_box(&g2[0], 8.5, -0.5, FA_ANIM_WRITE);
    expect_box(&g3[0], 8.5, -0.5, FA_ANIM_SDONE); /* S_00 written (its own colour, not flash's computed) */
    assert_string_equal(F.frame[4].caption, "step 5/32: write S_1,2 (score tile i = 1, j = 2; 8192 B)");
    expect_box(&g4[1], 9.5, -0.5, FA_ANIM_WRITE);
    assert_string_equal(F.frame[9].caption, "step 10/32: write S_2,2 (score tile i = 2, j = 2; 8192 B)");
    /* the QK^T kernel holds Q1 and K1 to its end; the softmax kernel (its first transfer, S_00
     * read) starts with its own buffers: no tile of Q or K in SRAM (docs/io-model.md section 7) */
    expect_box(&F.tile[9 * 14 + 1], 0.5, -1.5, FA_ANIM_SRAM);  /* Q1 */
    expect_box(&F.tile[9 * 14 + 3], 2.1, -1.5, FA_ANIM_SRAM);  /* K1 */
    assert_string_equal(F.frame[10].caption, "step 11/32: read S_1,1 (score tile i = 1, j = 1; 8192 B)");
    for (int k = 0; k < 4; k++) assert_int_equal(F.tile[10 * 14 + k].colour, FA_ANIM_IDLE); /* Q0 Q1 K0 K1 */
    assert_int_not_equal(r.t[10].kernel, r.t[9].kernel);
    assert_string_equal(F.frame[12].caption, "step 13/32: read S_1,1 (score tile i = 1, j = 1; 8192 B)");
    expect_box(&F.tile[12 * 14 + 10], 8.5, -0.5, FA_ANIM_READ);
    assert_string_equal(F.frame[13].caption, "step 14/32: write P_1,1 (score tile i = 1, j = 1; 8192 B)");
    expect_box(&F.tile[14 * 14 + 10], 8.5, -0.5, FA_ANIM_PDONE); /* P_00 written */
    expect_box(&F.tile[14 * 14 + 11], 9.5, -0.5, FA_ANIM_READ);  /* S_01 read again */
    const fa_anim_tile *last = F.tile + 31 * 14;
    for (int k = 10; k < 14; k++) assert_int_equal(last[k].colour, FA_ANIM_PDONE);
    assert_string_equal(F.frame[31].caption, "step 32/32: write O_2 (row block 2 of 2; 4096 B)");
    assert_int_equal(last[7].colour, FA_ANIM_WRITE); /* O1 */
    assert_int_equal(last[6].colour, FA_ANIM_DONE);  /* O0 */
    fa_anim_frames_free(&F);
    fa_anim_record_free(&r);
}

/* FlashAttention-1 computes S_ij after Algorithm 1 line 8 loads Q_i, O_i, l_i and m_i: the score tile
 * turns computed at m_i's read, not at Q_i's (frames by caption; the score grid is the frame's last
 * T_r x T_c boxes, S_11 the first of them) */
static void test_flash1_computed_after_loads(void **state)
{
    (void)state;
    fa_shape s = shape(128, 128, 64, FA_CAUSAL_NONE);
    fa_blocks bk = {64, 64};
    fa_anim_record r;
    fa_anim_frames F;
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH1, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(fa_anim_frames_make(FA_ALGO_FLASH1, &s, bk, &r, &F), FA_OK);
    int fq = -1, fm = -1;
    for (int f = 0; f < F.n; f++) {
        if (fq < 0 && strstr(F.frame[f].caption, ": read Q_1 ")) fq = f;
        if (fm < 0 && strstr(F.frame[f].caption, ": read m_1 ")) fm = f;
    }
    assert_true(fq >= 0 && fm > fq);
    const fa_anim_tile *score_q = F.tile + (size_t)fq * F.n_tiles + F.n_tiles - 4;
    const fa_anim_tile *score_m = F.tile + (size_t)fm * F.n_tiles + F.n_tiles - 4;
    assert_true(score_q->x == 8.5 && score_q->y == -0.5);
    assert_int_equal(score_q->colour, FA_ANIM_IDLE); /* Q_1 read: S_11 not yet computed */
    assert_int_equal(score_m->colour, FA_ANIM_COMP); /* m_1 read, the last load: S_11 computed */
    fa_anim_frames_free(&F);
    fa_anim_record_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    fa_shape s = shape(1024, 2048, 64, FA_CAUSAL_NONE);
    fa_blocks bk = {64, 64};
    assert_int_equal(fa_anim_check_tiles(&s, bk), FA_EINVAL);
    assert_string_equal(fa_last_error(), "animate draws at most 16 x 16 tiles; T_r = 16, T_c = 32 "
                                         "(use larger --block-r/--block-c or a shorter --seqlen)");
    bk.block_c = 128;
    assert_int_equal(fa_anim_check_tiles(&s, bk), FA_OK);
    fa_anim_heat h;
    fa_anim_record none = {0};
    assert_int_equal(fa_anim_heatmap(&none, &s, (fa_blocks){32, 128}, &h), FA_EINVAL);
    /* 16 x 16 tiles of flash1: 3 * 16 + 16 * (2 + 16 * 7) = 1872 transfers, more than 400 frames */
    s = shape(256, 256, 64, FA_CAUSAL_NONE);
    bk = (fa_blocks){16, 16};
    fa_anim_record r;
    fa_anim_frames F;
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH1, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(r.n, 1872);
    assert_int_equal(fa_anim_frames_make(FA_ALGO_FLASH1, &s, bk, &r, &F), FA_EINVAL);
    assert_string_equal(fa_last_error(), "flash1 makes 1872 transfers on this shape; animate draws at most 400 "
                                         "frames (use fewer tiles: larger --block-r/--block-c)");
    assert_null(F.tile);
    fa_anim_frames_free(&F);
    fa_anim_record_free(&r);
    /* tiles that do not fit M: the pass's error, nothing recorded to leak */
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH2, &s, (fa_blocks){64, 64}, 1024, &r), FA_ENOSRAM);
    fa_anim_record_free(&r);
    assert_int_equal(r.n, 0);
}

/* What the files animate writes hold: heatmap.csv's rows for flash2 on N_q = 180, N_k = 250
 * (T_r = 3, T_c = 4: K_j read 3 times, O_i and LSE_i written once, l and m never moved;
 * 3 + 4 + 4 + 3 + 3 lines for Q, K, V, O, then 5 x 3 for l read .. LSE write = 32), and the
 * three .dat files of the 12 frames of test_frames' causal run (14 boxes, 2 caption lines and
 * FA_ANIM_NTENSOR byte lines a frame, each block ended by two blank lines). */
static int lines_of(const char *buf)
{
    int n = 0;
    for (; *buf; buf++) n += *buf == '\n';
    return n;
}

static void test_files(void **state)
{
    (void)state;
    fa_shape s = shape(180, 250, 32, FA_CAUSAL_NONE);
    fa_blocks bk = {64, 64};
    fa_anim_heat h;
    heat(FA_ALGO_FLASH2, &s, bk, &h);
    assert_int_equal(fa_anim_heat_tiles(&h, FA_ANIM_K), 4);
    assert_int_equal(fa_anim_heat_tiles(&h, FA_ANIM_O), 3);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const fa_algo a = FA_ALGO_FLASH2;
    fa_anim_heat_csv(f, &h, &a, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(lines_of(buf), 1 + 32);
    const char *head = "algo,row,tile,count,transfer\nflash2,1,1,1,Q read\n";
    assert_true(!strncmp(buf, head, strlen(head)));
    assert_non_null(strstr(buf, "\nflash2,2,4,3,K read\n"));    /* K_4 (tile 4, from 1): once per row block */
    assert_non_null(strstr(buf, "\nflash2,4,3,0,O read\n"));    /* O is not read back */
    assert_non_null(strstr(buf, "\nflash2,5,3,1,O write\n"));   /* O_3 written once */
    assert_non_null(strstr(buf, "\nflash2,7,2,0,l write\n"));   /* l_2 never written to HBM */
    assert_non_null(strstr(buf, "\nflash2,10,3,1,LSE write\n")); /* LSE_3 written once */
    free(buf);

    s = shape(128, 128, 64, FA_CAUSAL_BOTTOM_RIGHT);
    fa_anim_record r;
    fa_anim_frames F;
    assert_int_equal(fa_anim_record_pass(FA_ALGO_FLASH2, &s, bk, M_BIG, &r), FA_OK);
    assert_int_equal(fa_anim_frames_make(FA_ALGO_FLASH2, &s, bk, &r, &F), FA_OK);
    char *bt = NULL, *bl = NULL, *bb = NULL;
    size_t lt, ll, lb;
    FILE *ft = open_memstream(&bt, &lt), *fl = open_memstream(&bl, &ll), *fb = open_memstream(&bb, &lb);
    assert_int_equal(fa_anim_write_dat(ft, fl, fb, &F), 0);
    assert_int_equal(fclose(ft) | fclose(fl) | fclose(fb), 0);
    assert_int_equal(lines_of(bt), 12 * (14 + 2));
    assert_int_equal(lines_of(bl), 12 * (2 + 2));
    assert_int_equal(lines_of(bb), 12 * (FA_ANIM_NTENSOR + 2));
    assert_non_null(strstr(bl, "0 0.9 \"step 1/12: read Q_1 (row block 1 of 2; 8192 B)\"\n"));
    assert_true(!strncmp(bb, "0 Q 8192 0\n", strlen("0 Q 8192 0\n"))); /* after frame 1: Q_0 read */
    free(bt), free(bl), free(bb);
    fa_anim_frames_free(&F);
    fa_anim_record_free(&r);
}

/* animate's choices before it records: the tiles (4 x 4 by default: ceil(256 / 4) = 64,
 * ceil(100 / 4) = 25), the algorithms drawn, and the SRAM check on 64 x 64 tiles, d = 64, fp16:
 * flash1 and flash2 hold Q_i, K_j, V_j (3 x 64 x 64 x 2 = 24576 B), S_ij and O_i in fp32 (2 x 16384)
 * and m_i, l_i (512): 57856 B; standard's largest kernel P_ij, V_j, O_i 16384 + 8192 + 16384 = 40960 B. */
static void test_choices(void **state)
{
    (void)state;
    fa_run_config c;
    memset(&c, 0, sizeof c);
    c.shape = shape(256, 100, 64, FA_CAUSAL_NONE);
    c.sram = 70000;
    fa_blocks bk;
    uint64_t M = 0;
    assert_int_equal(fa_anim_tiles(&c, 0, &bk, &M), FA_OK);
    assert_true(bk.block_r == 64 && bk.block_c == 25 && M == 70000);
    c.rule = FA_TILES_EXPLICIT, c.block_r = 32, c.block_c = 50;
    assert_int_equal(fa_anim_tiles(&c, 1, &bk, &M), FA_OK);
    assert_true(bk.block_r == 32 && bk.block_c == 50 && M == 70000);
    c.block_r = 8; /* T_r = 32: more than animate draws */
    assert_int_equal(fa_anim_tiles(&c, 1, &bk, &M), FA_EINVAL);
    assert_non_null(strstr(fa_last_error(), "T_r = 32, T_c = 2"));
    /* the algorithms */
    fa_algo a[2];
    int n = -1;
    assert_int_equal(fa_anim_algos(1, 0, FA_ALGO_STANDARD, a, &n), FA_OK);
    assert_true(n == 2 && a[0] == FA_ALGO_FLASH1 && a[1] == FA_ALGO_FLASH2);
    assert_int_equal(fa_anim_algos(1, 3, FA_ALGO_STANDARD, a, &n), FA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(fa_anim_algos(1, 1, FA_ALGO_FLASH1, a, &n), FA_EINVAL);
    assert_string_equal(fa_last_error(), "--heatmap compares flash1 and flash2; leave out --algo");
    assert_int_equal(fa_anim_algos(0, 0, FA_ALGO_STANDARD, a, &n), FA_OK);
    assert_true(n == 1 && a[0] == FA_ALGO_FLASH2);
    assert_int_equal(fa_anim_algos(0, 1, FA_ALGO_STANDARD, a, &n), FA_OK);
    assert_true(n == 1 && a[0] == FA_ALGO_STANDARD);
    assert_int_equal(fa_anim_algos(0, 2, FA_ALGO_STANDARD, a, &n), FA_EINVAL);
    assert_string_equal(fa_last_error(), "animate draws one algorithm: --algo flash1, flash2 or standard");
    /* the SRAM: exactly the need fits, a byte less does not */
    const fa_shape s = shape(256, 256, 64, FA_CAUSAL_NONE);
    const fa_algo both[2] = {FA_ALGO_FLASH1, FA_ALGO_FLASH2}, std = FA_ALGO_STANDARD;
    const fa_blocks b64 = {64, 64};
    assert_int_equal(fa_anim_check_sram(both, 2, &s, b64, 57856, 1), FA_OK);
    assert_int_equal(fa_anim_check_sram(both, 2, &s, b64, 57855, 0), FA_ENOSRAM);
    assert_non_null(strstr(fa_last_error(), "flash1's tiles B_r = 64, B_c = 64 need 57856 B (56.5 KiB) of SRAM, "
                                            "more than M = 57855 B (56.5 KiB); by default 4 x 4 tiles (use smaller"));
    assert_int_equal(fa_anim_check_sram(both + 1, 1, &s, b64, 57855, 1), FA_ENOSRAM);
    assert_non_null(strstr(fa_last_error(), "flash2's tiles"));
    assert_null(strstr(fa_last_error(), "by default"));
    assert_int_equal(fa_anim_check_sram(&std, 1, &s, b64, 40960, 1), FA_OK);
    assert_int_equal(fa_anim_check_sram(&std, 1, &s, b64, 40959, 1), FA_ENOSRAM);
    fa_clear_error();
}

/* An earlier run's frames past this run's last: frames 4, 5, 6 of a 6-frame run removed after a
 * 3-frame one; it stops at a gap (8 stays) and at a frame that is a directory (after 10). */
static void touch(const char *dir, int f)
{
    char path[300];
    snprintf(path, sizeof path, "%s/frame_%04d.png", dir, f);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
}

static int has_frame(const char *dir, int f)
{
    char path[300];
    snprintf(path, sizeof path, "%s/frame_%04d.png", dir, f);
    return access(path, F_OK) == 0;
}

static void test_remove_stale(void **state)
{
    (void)state;
    char dir[] = "/tmp/fasim_anim_XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (int f = 1; f <= 6; f++) touch(dir, f);
    touch(dir, 8);
    assert_int_equal(fa_anim_remove_stale(dir, 3), 3);
    assert_true(has_frame(dir, 3) && !has_frame(dir, 4) && !has_frame(dir, 6) && has_frame(dir, 8));
    assert_int_equal(fa_anim_remove_stale(dir, 8), 0);
    touch(dir, 9);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/frame_0010.png", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    touch(dir, 11);
    assert_int_equal(fa_anim_remove_stale(dir, 8), 1); /* 9; 10 is a directory */
    assert_true(has_frame(dir, 8) && !has_frame(dir, 9) && has_frame(dir, 10) && has_frame(dir, 11));
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_by_hand),
        cmocka_unit_test(test_heatmap_closed_form),
        cmocka_unit_test(test_cumulative_bytes),
        cmocka_unit_test(test_frames), cmocka_unit_test(test_flash1_computed_after_loads),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_remove_stale),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
