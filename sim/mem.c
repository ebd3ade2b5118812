/* mem.c -- the HBM/SRAM memory model: tensors, SRAM arena, counted transfers. */
#include "fa_sim.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct fa_mem {
    fa_mode mode;
    size_t capacity; /* M, bytes */
    size_t used;
    size_t reg_capacity; /* bytes of registers a thread block may hold (0: no register file) */
    size_t reg_used;
    char reg_names[FA_REG_NAMES_LEN]; /* " S_ij O_i m_i l_i ": buffers placed in registers */
    fa_counts counts;
    uint64_t weight_stack[FA_MAX_WEIGHT_DEPTH + 1];
    int weight_depth;
    int allow_merge;
    FILE *trace;
    uint64_t step;
    fa_sink_fn sink;
    void *sink_ctx;
    int64_t program;
    int kernel;
    fa_numerics num;
};

/* On overflow *out is left untouched, so a refused count never corrupts a counter. */
fa_status fa_u64_mul(uint64_t a, uint64_t b, uint64_t *out, const char *what)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        FA_FAIL(FA_EOVERFLOW, "%s overflows 64 bits (%" PRIu64 " x %" PRIu64 ")", what, a, b);
    *out = r;
    return FA_OK;
}

fa_status fa_u64_add(uint64_t a, uint64_t b, uint64_t *out, const char *what)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r))
        FA_FAIL(FA_EOVERFLOW, "%s overflows 64 bits (%" PRIu64 " + %" PRIu64 ")", what, a, b);
    *out = r;
    return FA_OK;
}

fa_mem *fa_mem_alloc(fa_mode mode, size_t sram_bytes)
{
    if (sram_bytes == 0) {
        fa_error(FA_EINVAL, __FILE__, __LINE__, "SRAM size M must be > 0 bytes");
        return NULL;
    }
    fa_mem *m = calloc(1, sizeof *m);
    if (!m) {
        fa_error(FA_ENOMEM, __FILE__, __LINE__, "out of host memory for the memory model");
        return NULL;
    }
    m->mode = mode;
    m->capacity = sram_bytes;
    m->weight_stack[0] = 1;
    m->allow_merge = 1;
    m->program = -1;
    return m;
}

void fa_mem_free(fa_mem *mem) { free(mem); }

fa_mode fa_mem_mode(const fa_mem *mem) { return mem->mode; }
size_t fa_mem_sram_capacity(const fa_mem *mem) { return mem->capacity; }
size_t fa_mem_sram_used(const fa_mem *mem) { return mem->used; }

void fa_mem_reset(fa_mem *mem)
{
    int n = mem->counts.n_tensors;
    for (int i = 0; i < n; i++) {
        fa_tensor_count *t = &mem->counts.tensor[i];
        t->read_bytes = t->write_bytes = t->loads = t->stores = 0;
    }
    mem->counts.hbm_read_bytes = mem->counts.hbm_write_bytes = 0;
    mem->counts.flops_matmul = mem->counts.flops_other = 0;
    mem->counts.rescale_steps = mem->counts.rescales = mem->counts.rescale_blocks = mem->counts.rescale_max = 0;
    mem->counts.sram_peak_bytes = mem->used;
    mem->counts.reg_peak_bytes = mem->reg_used;
    mem->step = 0;
}

const fa_counts *fa_mem_counts(const fa_mem *mem) { return &mem->counts; }

void fa_mem_set_trace(fa_mem *mem, FILE *f)
{
    mem->trace = f;
    if (f) fputs("step,tensor,direction,row0,rows,col0,cols,bytes,batch,head\n", f);
}

void fa_mem_set_numerics(fa_mem *mem, const fa_numerics *num)
{
    fa_numerics off = {0};
    mem->num = num ? *num : off;
}

const fa_numerics *fa_mem_numerics(const fa_mem *mem) { return &mem->num; }

void fa_mem_set_merge(fa_mem *mem, int allow) { mem->allow_merge = allow != 0; }

int fa_mem_may_merge(const fa_mem *mem)
{
    return mem->mode == FA_MODE_COUNT && mem->allow_merge && mem->trace == NULL && mem->sink == NULL;
}

void fa_mem_set_sink(fa_mem *mem, fa_sink_fn fn, void *ctx)
{
    mem->sink = fn;
    mem->sink_ctx = ctx;
}

void fa_mem_set_program(fa_mem *mem, int64_t program) { mem->program = program; }

void fa_mem_kernel_barrier(fa_mem *mem) { mem->kernel++; }

static uint64_t weight(const fa_mem *mem) { return mem->weight_stack[mem->weight_depth]; }

fa_status fa_mem_push_weight(fa_mem *mem, uint64_t w)
{
    if (w == 0) FA_FAIL(FA_EINVAL, "run weight must be >= 1");
    if (mem->weight_depth >= FA_MAX_WEIGHT_DEPTH)
        FA_FAIL(FA_EINVAL, "run weights nested deeper than %d", FA_MAX_WEIGHT_DEPTH);
    uint64_t p = 0;
    FA_TRY(fa_u64_mul(weight(mem), w, &p, "run weight"));
    mem->weight_stack[++mem->weight_depth] = p;
    return FA_OK;
}

void fa_mem_pop_weight(fa_mem *mem)
{
    if (mem->weight_depth > 0) mem->weight_depth--;
}

int fa_mem_weight_depth(const fa_mem *mem) { return mem->weight_depth; }

void fa_mem_restore_weight(fa_mem *mem, int depth)
{
    if (depth >= 0 && depth <= mem->weight_depth) mem->weight_depth = depth;
}

static fa_status tensor_make(fa_mem *mem, fa_tensor *t, const char *name, int64_t B, int64_t H,
                             int64_t N, int64_t D, int elem_bytes, double *data, int meta);

fa_status fa_tensor_make(fa_mem *mem, fa_tensor *t, const char *name, int64_t B, int64_t H,
                         int64_t N, int64_t D, int elem_bytes, double *data)
{
    return tensor_make(mem, t, name, B, H, N, D, elem_bytes, data, 0);
}

fa_status fa_tensor_make_meta(fa_mem *mem, fa_tensor *t, const char *name, int64_t B, int64_t H,
                              int64_t N, int64_t D, int elem_bytes)
{
    return tensor_make(mem, t, name, B, H, N, D, elem_bytes, NULL, 1);
}

static fa_status tensor_make(fa_mem *mem, fa_tensor *t, const char *name, int64_t B, int64_t H,
                             int64_t N, int64_t D, int elem_bytes, double *data, int meta)
{
    if (B <= 0 || H <= 0 || N <= 0 || D <= 0 || elem_bytes <= 0)
        FA_FAIL(FA_EINVAL, "tensor %s: shape (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                ") x %d B must be positive", name, B, H, N, D, elem_bytes);
    if (!meta && (mem->mode == FA_MODE_NUMERIC) != (data != NULL))
        FA_FAIL(FA_EINVAL, "tensor %s: data must be given in numeric mode only", name);
    int64_t nd, hnd, bhnd;
    if (__builtin_mul_overflow(N, D, &nd) || __builtin_mul_overflow(H, nd, &hnd) ||
        __builtin_mul_overflow(B, hnd, &bhnd))
        FA_FAIL(FA_EOVERFLOW, "tensor %s: shape (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                ") has more than 2^63 - 1 elements: its size overflows 64 bits", name, B, H, N, D);
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->shape[0] = B;
    t->shape[1] = H;
    t->shape[2] = N;
    t->shape[3] = D;
    t->stride[3] = 1;
    t->stride[2] = D;
    t->stride[1] = nd;
    t->stride[0] = hnd;
    t->elem_bytes = elem_bytes;
    t->data = data;
    int id = fa_counts_find(&mem->counts, t->name);
    if (id < 0) {
        if (mem->counts.n_tensors >= FA_MAX_TENSORS)
            FA_FAIL(FA_EINVAL, "more than %d HBM tensors", FA_MAX_TENSORS);
        id = mem->counts.n_tensors++;
        snprintf(mem->counts.tensor[id].name, FA_NAME_LEN, "%s", t->name);
    }
    t->id = id;
    return FA_OK;
}

fa_status fa_mem_set_registers(fa_mem *mem, const char *names, size_t capacity)
{
    if (!names || !*names) {
        mem->reg_names[0] = '\0';
        mem->reg_capacity = 0;
        return FA_OK;
    }
    if (strlen(names) + 3 > sizeof mem->reg_names)
        FA_FAIL(FA_EINVAL, "register placement list '%.40s...' is %zu characters (limit %zu)", names,
                strlen(names), sizeof mem->reg_names - 3);
    if (capacity == 0) FA_FAIL(FA_EINVAL, "register placement of '%s' with a register file of 0 bytes", names);
    snprintf(mem->reg_names, sizeof mem->reg_names, " %s ", names);
    mem->reg_capacity = capacity;
    return FA_OK;
}

/* 1 when buffer `name` is placed in registers (a word of the placement list). */
static int in_registers(const fa_mem *mem, const char *name)
{
    char key[FA_NAME_LEN + 2];
    if (!mem->reg_names[0]) return 0;
    snprintf(key, sizeof key, " %s ", name);
    return strstr(mem->reg_names, key) != NULL;
}

fa_status fa_sram_alloc(fa_mem *mem, fa_buf *buf, const char *name, int64_t rows, int64_t cols,
                        int elem_bytes)
{
    memset(buf, 0, sizeof *buf);
    if (rows <= 0 || cols <= 0 || elem_bytes <= 0)
        FA_FAIL(FA_EINVAL, "SRAM buffer %s: %" PRId64 " x %" PRId64 " x %d B must be positive",
                name, rows, cols, elem_bytes);
    uint64_t bytes = 0;
    FA_TRY(fa_u64_mul((uint64_t)rows, (uint64_t)cols, &bytes, "SRAM buffer size"));
    FA_TRY(fa_u64_mul(bytes, (uint64_t)elem_bytes, &bytes, "SRAM buffer size"));
    const int regs = in_registers(mem, name);
    if (regs && bytes > mem->reg_capacity - mem->reg_used)
        FA_FAIL(FA_ENOSRAM,
                "register buffer %s (%" PRId64 " x %" PRId64 " x %d B = %" PRIu64
                " B) does not fit the thread block's registers: %zu B in use of %zu B",
                name, rows, cols, elem_bytes, bytes, mem->reg_used, mem->reg_capacity);
    if (!regs && bytes > mem->capacity - mem->used)
        FA_FAIL(FA_ENOSRAM,
                "SRAM buffer %s (%" PRId64 " x %" PRId64 " x %d B = %" PRIu64
                " B) does not fit: %zu B in use, M = %zu B",
                name, rows, cols, elem_bytes, bytes, mem->used, mem->capacity);
    if (mem->mode == FA_MODE_NUMERIC) {
        buf->data = calloc((size_t)rows * (size_t)cols, sizeof(double));
        if (!buf->data) FA_FAIL(FA_ENOMEM, "out of host memory for SRAM buffer %s", name);
    }
    snprintf(buf->name, sizeof buf->name, "%s", name);
    buf->rows = rows;
    buf->cols = cols;
    buf->elem_bytes = elem_bytes;
    buf->bytes = (size_t)bytes;
    buf->mem = mem;
    buf->in_regs = regs;
    if (regs) {
        mem->reg_used += (size_t)bytes;
        if (mem->reg_used > mem->counts.reg_peak_bytes) mem->counts.reg_peak_bytes = mem->reg_used;
    } else {
        mem->used += (size_t)bytes;
        if (mem->used > mem->counts.sram_peak_bytes) mem->counts.sram_peak_bytes = mem->used;
    }
    return FA_OK;
}

void fa_sram_free(fa_buf *buf)
{
    if (!buf->mem) return;
    if (buf->in_regs) buf->mem->reg_used -= buf->bytes;
    else buf->mem->used -= buf->bytes;
    free(buf->data);
    memset(buf, 0, sizeof *buf);
}

static fa_status check_tile(const fa_tensor *t, int64_t b, int64_t h, int64_t row0, int64_t rows,
                            int64_t col0, int64_t cols, const fa_buf *buf)
{
    if (b < 0 || b >= t->shape[0] || h < 0 || h >= t->shape[1] || row0 < 0 || rows <= 0 ||
        rows > t->shape[2] - row0 || col0 < 0 || cols <= 0 || cols > t->shape[3] - col0)
        FA_FAIL(FA_EINVAL,
                "tile (%" PRId64 ",%" PRId64 ") rows [%" PRId64 ", +%" PRId64 ") cols [%" PRId64
                ", +%" PRId64 ") leaves tensor %s of shape (%" PRId64 ", %" PRId64 ", %" PRId64
                ", %" PRId64 ")",
                b, h, row0, rows, col0, cols, t->name, t->shape[0], t->shape[1], t->shape[2],
                t->shape[3]);
    if (rows > buf->rows || cols > buf->cols)
        FA_FAIL(FA_EINVAL, "tile %" PRId64 " x %" PRId64 " of %s exceeds SRAM buffer %s (%" PRId64
                " x %" PRId64 ")", rows, cols, t->name, buf->name, buf->rows, buf->cols);
    return FA_OK;
}

static fa_status count_transfer(fa_mem *mem, const fa_tensor *t, int write, int64_t b, int64_t h,
                                int64_t row0, int64_t rows, int64_t col0, int64_t cols)
{
    uint64_t bytes = 0, wbytes = 0;
    FA_TRY(fa_u64_mul((uint64_t)rows * (uint64_t)cols, (uint64_t)t->elem_bytes, &bytes,
                      "tile bytes"));
    FA_TRY(fa_u64_mul(bytes, weight(mem), &wbytes, "HBM byte count"));
    fa_tensor_count *c = &mem->counts.tensor[t->id];
    /* all three sums are checked before any is stored: a refused transfer counts nothing */
    uint64_t *tb = write ? &c->write_bytes : &c->read_bytes;
    uint64_t *hb = write ? &mem->counts.hbm_write_bytes : &mem->counts.hbm_read_bytes;
    uint64_t *nt = write ? &c->stores : &c->loads;
    const char *what = write ? "HBM write bytes" : "HBM read bytes";
    uint64_t tb2 = 0, hb2 = 0, nt2 = 0;
    FA_TRY(fa_u64_add(*tb, wbytes, &tb2, what));
    FA_TRY(fa_u64_add(*hb, wbytes, &hb2, what));
    FA_TRY(fa_u64_add(*nt, weight(mem), &nt2, write ? "store count" : "load count"));
    *tb = tb2;
    *hb = hb2;
    *nt = nt2;
    if (mem->trace)
        fprintf(mem->trace, "%" PRIu64 ",%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                ",%" PRIu64 ",%" PRId64 ",%" PRId64 "\n",
                mem->step, t->name, write ? "write" : "read", t->row_base + row0, rows, col0, cols,
                bytes, b, h);
    if (mem->sink) {
        fa_transfer tr = {.step = mem->step, .tensor = t, .write = write, .b = b, .h = h,
                          .row0 = t->row_base + row0, .rows = rows, .col0 = col0, .cols = cols, .bytes = bytes,
                          .program = mem->program, .kernel = mem->kernel};
        mem->sink(mem->sink_ctx, &tr);
    }
    mem->step++;
    return FA_OK;
}

fa_status fa_load(fa_mem *mem, const fa_tensor *t, int64_t b, int64_t h, int64_t row0,
                  int64_t rows, int64_t col0, int64_t cols, fa_buf *buf)
{
    FA_TRY(check_tile(t, b, h, row0, rows, col0, cols, buf));
    FA_TRY(count_transfer(mem, t, 0, b, h, row0, rows, col0, cols));
    if (t->data && buf->data) {
        const double *src = t->data + b * t->stride[0] + h * t->stride[1];
        for (int64_t r = 0; r < rows; r++)
            memcpy(buf->data + r * buf->cols, src + (t->row_base + row0 + r) * t->stride[2] + col0,
                   (size_t)cols * sizeof(double));
    }
    return FA_OK;
}

fa_status fa_store(fa_mem *mem, fa_tensor *t, int64_t b, int64_t h, int64_t row0, int64_t rows,
                   int64_t col0, int64_t cols, const fa_buf *buf)
{
    FA_TRY(check_tile(t, b, h, row0, rows, col0, cols, buf));
    FA_TRY(count_transfer(mem, t, 1, b, h, row0, rows, col0, cols));
    if (t->data && buf->data) {
        double *dst = t->data + b * t->stride[0] + h * t->stride[1];
        for (int64_t r = 0; r < rows; r++)
            memcpy(dst + (t->row_base + row0 + r) * t->stride[2] + col0, buf->data + r * buf->cols,
                   (size_t)cols * sizeof(double));
        if (mem->num.on) { /* the tensor's storage format: fp32 statistics, else the dtype */
            fa_format f = t->elem_bytes == 4 ? FA_FMT_FP32 : t->elem_bytes == 8 ? FA_FMT_FP64
                                                                                : mem->num.store;
            for (int64_t r = 0; r < rows; r++)
                fa_round_array(dst + (row0 + r) * t->stride[2] + col0, cols, f);
        }
    }
    return FA_OK;
}

fa_status fa_count_flops(fa_mem *mem, uint64_t matmul, uint64_t other)
{
    uint64_t a = 0, o = 0, sa = 0, so = 0;
    FA_TRY(fa_u64_mul(matmul, weight(mem), &a, "matmul FLOP count"));
    FA_TRY(fa_u64_mul(other, weight(mem), &o, "FLOP count"));
    FA_TRY(fa_u64_add(mem->counts.flops_matmul, a, &sa, "matmul FLOP count"));
    FA_TRY(fa_u64_add(mem->counts.flops_other, o, &so, "FLOP count"));
    mem->counts.flops_matmul = sa;
    mem->counts.flops_other = so;
    return FA_OK;
}

fa_status fa_count_rescales(fa_mem *mem, uint64_t steps, uint64_t rescales)
{
    uint64_t w = weight(mem), s = 0, r = 0, b = 0;
    FA_TRY(fa_u64_mul(steps, w, &s, "rescale step count"));
    FA_TRY(fa_u64_mul(rescales, w, &r, "rescale count"));
    FA_TRY(fa_u64_add(mem->counts.rescale_steps, s, &s, "rescale step count"));
    FA_TRY(fa_u64_add(mem->counts.rescales, r, &r, "rescale count"));
    FA_TRY(fa_u64_add(mem->counts.rescale_blocks, w, &b, "row block count"));
    mem->counts.rescale_steps = s;
    mem->counts.rescales = r;
    mem->counts.rescale_blocks = b;
    if (rescales > mem->counts.rescale_max) mem->counts.rescale_max = rescales;
    return FA_OK;
}

uint64_t fa_counts_hbm_bytes(const fa_counts *c)
{
    uint64_t s;
    if (__builtin_add_overflow(c->hbm_read_bytes, c->hbm_write_bytes, &s)) return UINT64_MAX;
    return s;
}

int fa_counts_find(const fa_counts *c, const char *name)
{
    for (int i = 0; i < c->n_tensors; i++)
        if (strncmp(c->tensor[i].name, name, FA_NAME_LEN) == 0) return i;
    return -1;
}
