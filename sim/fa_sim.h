/* fa_sim.h -- the instrumented two-level memory model: HBM tensors, an SRAM arena of M bytes,
 * tile transfers that count bytes, FLOP counters, count-only mode and a transfer trace.
 *
 * The model knows nothing of attention.  An algorithm (cpu_ref/) creates its HBM tensors,
 * allocates its on-chip buffers from the SRAM arena, and moves 2-D tiles between them only
 * through fa_load() and fa_store(); tile operations report their FLOPs through
 * fa_count_flops().  Every transfer is counted per tensor and direction in 64-bit counters
 * that refuse to overflow.
 *
 * Two modes run the same algorithm code:
 *  - FA_MODE_NUMERIC: tensors and buffers hold fp64 data, transfers copy it.
 *  - FA_MODE_COUNT: no data at all; transfers and tile operations only count.  Counts are
 *    identical to numeric mode (tests/test_cpu_ref.c proves it).  In this mode an algorithm
 *    may visit a run of w identical tiles once under fa_mem_push_weight(mem, w); every count
 *    made meanwhile is multiplied by w.  That is what makes N = 1M cost only a few loop
 *    iterations; fa_mem_may_merge() says when it is allowed (count-only, no trace).
 *
 * Units: bytes for memory, FLOPs (one multiply or add = 1; a fused multiply-add = 2).
 */
#ifndef FA_SIM_H
#define FA_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fa_precision.h"
#include "fa_status.h"

#define FA_MAX_TENSORS 24
#define FA_NAME_LEN 16
#define FA_MAX_WEIGHT_DEPTH 8
#define FA_REG_NAMES_LEN 256

typedef enum { FA_MODE_NUMERIC = 0, FA_MODE_COUNT = 1 } fa_mode;

/* Per-tensor HBM traffic. */
typedef struct {
    char name[FA_NAME_LEN];
    uint64_t read_bytes;  /* bytes moved HBM -> SRAM */
    uint64_t write_bytes; /* bytes moved SRAM -> HBM */
    uint64_t loads;       /* number of tile loads */
    uint64_t stores;      /* number of tile stores */
} fa_tensor_count;

/* Everything the model measured during one run. */
typedef struct {
    uint64_t hbm_read_bytes;  /* sum of read_bytes over tensors */
    uint64_t hbm_write_bytes; /* sum of write_bytes over tensors */
    uint64_t flops_matmul;    /* 2*m*n*k per tile product */
    uint64_t flops_other;     /* scale, max, exp, sum, rescale: see docs/io-model.md */
    size_t sram_peak_bytes;   /* largest simultaneous SRAM (shared-memory) use, bytes */
    size_t reg_peak_bytes;    /* largest simultaneous use of the register arena, bytes (0 without
                                 a placement, fa_mem_set_registers) */
    /* accumulator rescales of an online softmax (fa_count_rescales): steps = tile steps that ran
       one (row block x K/V tile), rescales = those in which some row moved its running max and
       rescaled its accumulator, blocks = row blocks, rescale_max = most rescales of one block */
    uint64_t rescale_steps, rescales, rescale_blocks, rescale_max;
    int n_tensors;
    fa_tensor_count tensor[FA_MAX_TENSORS];
} fa_counts;

/* An HBM tensor: a named 4-D view (B, H, N, D) with strides in elements. */
typedef struct {
    char name[FA_NAME_LEN];
    int64_t shape[4];  /* (batch, heads, rows N, cols D) */
    int64_t stride[4]; /* elements */
    int elem_bytes;    /* bytes per element in HBM (2 for fp16/bf16, 4 for fp32) */
    double *data;      /* fp64 values in numeric mode, NULL in count-only mode */
    int id;            /* index into fa_counts.tensor */
    int64_t row_base;  /* a row view (fa_tensor_view_rows): row r of the view is row
                          row_base + r of the tensor; 0 for a whole tensor */
} fa_tensor;

typedef struct fa_mem fa_mem;

/* An on-chip buffer of rows x cols elements allocated from the SRAM arena. */
typedef struct {
    char name[FA_NAME_LEN];
    int64_t rows, cols; /* capacity in elements; data is row-major with leading dim cols */
    int elem_bytes;     /* bytes per element on chip (fp32 accumulators: 4) */
    size_t bytes;       /* rows * cols * elem_bytes */
    int in_regs;        /* 1: charged to the register arena (fa_mem_set_registers), 0: SRAM */
    double *data;       /* NULL in count-only mode */
    fa_mem *mem;
} fa_buf;

/* Allocates a memory model with an SRAM arena of sram_bytes (M, in bytes).
 * Returns NULL (and sets the last error) if sram_bytes is 0 or host memory runs out. */
fa_mem *fa_mem_alloc(fa_mode mode, size_t sram_bytes);
void fa_mem_free(fa_mem *mem);

fa_mode fa_mem_mode(const fa_mem *mem);
size_t fa_mem_sram_capacity(const fa_mem *mem);
size_t fa_mem_sram_used(const fa_mem *mem);

/* Zeroes all counters and the peak (tensors registered later start from zero too). */
void fa_mem_reset(fa_mem *mem);

/* The counts so far (peak SRAM included). */
const fa_counts *fa_mem_counts(const fa_mem *mem);

/* Sends every transfer from now on to f as CSV (header written here):
 *   step,tensor,direction,row0,rows,col0,cols,bytes,batch,head
 * direction is "read" (HBM -> SRAM) or "write".  Pass NULL to stop tracing.
 * Tracing disables run merging so that every tile transfer appears. */
void fa_mem_set_trace(fa_mem *mem, FILE *f);

/* One tile transfer, as a sink sees it (fa_mem_set_sink). */
typedef struct {
    uint64_t step;           /* sequence number of the transfer in this run */
    const fa_tensor *tensor; /* the HBM tensor (shape, strides, element size, name) */
    int write;               /* 1: SRAM -> HBM, 0: HBM -> SRAM */
    int64_t b, h, row0, rows, col0, cols;
    uint64_t bytes;          /* rows * cols * elem_bytes */
    int64_t program;         /* thread block (fa_mem_set_program), -1 before the first */
    int kernel;              /* kernel index (fa_mem_kernel_barrier increments it) */
} fa_transfer;

typedef void (*fa_sink_fn)(void *ctx, const fa_transfer *t);

/* Sends every transfer to fn(ctx, ...) (NULL: none).  Like a trace, a sink disables run
 * merging.  The L2 model (fa_l2.h) is such a sink. */
void fa_mem_set_sink(fa_mem *mem, fa_sink_fn fn, void *ctx);

/* Marks the start of the work of one thread block (program) of the current kernel: on a GPU
 * the programs of a kernel run concurrently in waves over the SMs.  Algorithms call it; it
 * changes no count. */
void fa_mem_set_program(fa_mem *mem, int64_t program);

/* Marks the end of a kernel: every program of the next kernel starts after all of this one. */
void fa_mem_kernel_barrier(fa_mem *mem);

/* Sets the numerics (fa_precision.h): where the algorithms round, emulating a low precision.
 * The default (never set, or on = 0) is plain fp64.  fa_store rounds what it writes to the
 * tensor's storage format when numerics are on; counts never change.  fa_mem_numerics returns
 * the current setting (never NULL). */
void fa_mem_set_numerics(fa_mem *mem, const fa_numerics *num);
const fa_numerics *fa_mem_numerics(const fa_mem *mem);

/* Allows or forbids run merging in count-only mode (allowed by default). */
void fa_mem_set_merge(fa_mem *mem, int allow);

/* 1 when an algorithm may visit a run of identical tiles once with a weight. */
int fa_mem_may_merge(const fa_mem *mem);

/* Multiplies every count until the matching pop by w >= 1 (nested pushes multiply).
 * Errors: FA_EINVAL if w == 0 or the stack is full, FA_EOVERFLOW if the product overflows. */
fa_status fa_mem_push_weight(fa_mem *mem, uint64_t w);
void fa_mem_pop_weight(fa_mem *mem);

/* Depth of the weight stack, and a way back to it (algorithms restore it on every exit). */
int fa_mem_weight_depth(const fa_mem *mem);
void fa_mem_restore_weight(fa_mem *mem, int depth);

/* Creates HBM tensor `name` of shape (B, H, N, D), contiguous, elem_bytes per element.
 * data must hold B*H*N*D doubles in numeric mode and be NULL in count-only mode.
 * Tensors with the same name share one counter.
 * Errors: FA_EINVAL (bad shape, data/mode mismatch, too many tensors), FA_EOVERFLOW (more
 * than 2^63 - 1 elements). */
fa_status fa_tensor_make(fa_mem *mem, fa_tensor *t, const char *name, int64_t B, int64_t H,
                         int64_t N, int64_t D, int elem_bytes, double *data);

/* A counted tensor that holds no data in either mode (a mask or an index table whose content
 * the algorithm reads from the host): loads and stores count bytes and copy nothing. */
fa_status fa_tensor_make_meta(fa_mem *mem, fa_tensor *t, const char *name, int64_t B, int64_t H,
                              int64_t N, int64_t D, int elem_bytes);

/* A view of rows [row0, row0 + rows) of every (batch, head) slice of t (sim/view.c): the view
 * shares t's data, strides and counter (bytes count under t's name), its shape[2] is rows, and
 * a tile at view row r is tensor row row0 + r.  Traces and sinks see tensor rows.  Views of
 * views add their offsets.  Used for packed variable-length batches (cu_seqlens).
 * Errors: FA_EINVAL if rows < 1 or the rows leave t. */
fa_status fa_tensor_view_rows(const fa_tensor *t, int64_t row0, int64_t rows, fa_tensor *view);

/* Places buffers in registers, as a real kernel does: every later fa_sram_alloc of a buffer
 * whose name is a word of `names` (space-separated, e.g. "S_ij O_i m_i l_i") is charged to a
 * register arena of `capacity` bytes (a thread block's register file: threads x registers per
 * thread x 4 B) instead of the SRAM arena of M.  NULL or "" restores the paper's abstract model
 * (Dao et al. 2022, Theorem 2: every on-chip buffer in one SRAM of M).  Peak use of each arena is
 * recorded (fa_counts.sram_peak_bytes, reg_peak_bytes).
 * Errors: FA_EINVAL if the list is longer than FA_REG_NAMES_LEN - 3 characters or capacity is 0. */
fa_status fa_mem_set_registers(fa_mem *mem, const char *names, size_t capacity);

/* Allocates buffer `name` of rows x cols elements of elem_bytes from the SRAM arena (or from the
 * register arena when fa_mem_set_registers placed `name` there).
 * Errors: FA_ENOSRAM if used + rows*cols*elem_bytes > M, or beyond the register arena for a
 * register buffer (the message names the buffer, its size, the bytes in use and the capacity); FA_ENOMEM; FA_EINVAL for a non-positive size. */
fa_status fa_sram_alloc(fa_mem *mem, fa_buf *buf, const char *name, int64_t rows, int64_t cols,
                        int elem_bytes);

/* Returns a buffer's bytes to the arena (buffers are freed in any order). */
void fa_sram_free(fa_buf *buf);

/* Loads the tile rows [row0, row0+rows) x cols [col0, col0+cols) of slice (b, h) of t into
 * buf (at its top-left corner) and counts rows*cols*t->elem_bytes read bytes.
 * Errors: FA_EINVAL if the tile leaves the tensor or the buffer; FA_EOVERFLOW. */
fa_status fa_load(fa_mem *mem, const fa_tensor *t, int64_t b, int64_t h, int64_t row0,
                  int64_t rows, int64_t col0, int64_t cols, fa_buf *buf);

/* Stores the top-left rows x cols of buf to the tile of t; counts written bytes. */
fa_status fa_store(fa_mem *mem, fa_tensor *t, int64_t b, int64_t h, int64_t row0, int64_t rows,
                   int64_t col0, int64_t cols, const fa_buf *buf);

/* Adds FLOPs performed by a tile operation (times the current weight).
 * Errors: FA_EOVERFLOW. */
fa_status fa_count_flops(fa_mem *mem, uint64_t matmul, uint64_t other);

/* Adds one row block's accumulator rescales: `steps` tile steps, `rescales` of them rescaled
 * (each times the current weight: the block stands for that many identical blocks), one block
 * (times the weight), and rescale_max = max(rescale_max, rescales).  The algorithm says what a
 * rescale is (cpu_ref/flash2.c); the model only counts.  Errors: FA_EOVERFLOW. */
fa_status fa_count_rescales(fa_mem *mem, uint64_t steps, uint64_t rescales);

/* Checked 64-bit helpers (return FA_EOVERFLOW with a message naming `what`). */
fa_status fa_u64_mul(uint64_t a, uint64_t b, uint64_t *out, const char *what);
fa_status fa_u64_add(uint64_t a, uint64_t b, uint64_t *out, const char *what);

/* Total HBM bytes of a counts record (read + write), saturating at UINT64_MAX. */
uint64_t fa_counts_hbm_bytes(const fa_counts *c);

/* Index of the tensor counter called name, or -1. */
int fa_counts_find(const fa_counts *c, const char *name);

#endif
