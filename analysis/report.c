/* report.c -- the tables of `fasim report` (fa_report.h): the models, the three algorithms per
 * model and GPU, training, memory, long context, the kernels table, the papers and the plots'
 * data.  Computes only: analysis/cli/cmd_report.c prints and writes them. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fa_report.h"
#include "fa_run.h"

#ifndef FASIM_MODELS_DIR
#define FASIM_MODELS_DIR "analysis/models"
#endif

/* ---- the models ---- */

const char *fa_report_models_dir(void)
{
    const char *dir = getenv("FASIM_MODELS_DIR");
    return dir ? dir : FASIM_MODELS_DIR;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const fa_report_model *)a)->path, ((const fa_report_model *)b)->path);
}

fa_status fa_report_list_models(const char *dir, fa_report_model *ms, int max, int *n)
{
    *n = 0;
    if (!dir) dir = fa_report_models_dir();
    DIR *d = opendir(dir);
    if (!d) FA_FAIL(FA_EIO, "cannot open the models directory %s: %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        if (*n == max) {
            closedir(d);
            *n = 0;
            FA_FAIL(FA_EINVAL, "the models directory %s holds more than %d model files", dir, max);
        }
        snprintf(ms[*n].path, sizeof ms[*n].path, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    qsort(ms, (size_t)*n, sizeof *ms, cmp_path);
    return FA_OK;
}

void fa_report_stem(const char *path, char *out, size_t n)
{
    if (n == 0) return;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot) *dot = '\0';
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.'))
            *p = '_';
}

fa_status fa_report_model_load(fa_report_model *me)
{
    FA_TRY(fa_model_load(me->path, &me->m));
    fa_report_stem(me->path, me->stem, sizeof me->stem);
    return FA_OK;
}

fa_shape fa_report_model_shape(const fa_model *m, int64_t batch, int64_t seqlen)
{
    const int64_t N = seqlen > 0 ? seqlen : m->max_positions;
    fa_shape s = {.batch = batch, .heads = m->heads, .kv_heads = m->kv_heads, .seqlen_q = N, .seqlen_k = N,
                  .d = m->head_dim, .d_v = m->head_dim_v ? m->head_dim_v : m->head_dim, .scale = m->scale,
                  .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = m->dtype, .softcap = m->softcap};
    /* weights stored in float32 (Gemma-2's files): the FlashAttention kernels take fp16/bf16 */
    if (s.dtype == FA_DTYPE_FP32) s.dtype = FA_DTYPE_BF16;
    /* every layer windowed (e.g. Mistral-7B: W tokens); a model of two types: its full layers */
    const int all = m->n_sliding == m->layers || (m->n_sliding == 0 && m->layers <= 0);
    if (all && m->sliding_window > 0 && m->sliding_window < s.seqlen_k) {
        s.window = 1;
        s.window_left = m->sliding_window - 1;
        s.window_right = 0;
    }
    return s;
}

int fa_report_window_covers(const fa_model *m, int64_t seqlen_k)
{
    return m->n_sliding > 0 && m->sliding_window > 0 && m->sliding_window >= seqlen_k;
}

int fa_report_model_kinds(const fa_model *m, int64_t batch, int64_t seqlen, fa_shape s[2], int64_t layers[2])
{
    s[0] = fa_report_model_shape(m, batch, seqlen);
    layers[0] = m->layers;
    if (m->n_sliding == 0 || m->n_sliding == m->layers || fa_report_window_covers(m, s[0].seqlen_k)) return 1;
    layers[0] = m->layers - m->n_sliding;
    layers[1] = m->n_sliding;
    s[1] = s[0];
    s[1].window = 1;
    s[1].window_left = m->sliding_window - 1;
    s[1].window_right = 0;
    return 2;
}

int fa_report_plot_model(const fa_report_model *ms, int n)
{
    int ref = 0;
    for (int k = 0; k < n; k++)
        if (strstr(ms[k].stem, "llama")) ref = k;
    return ref;
}

int fa_report_window_model(const fa_report_model *ms, int n)
{
    for (int k = 0; k < n; k++)
        if (ms[k].m.sliding_window > 0 && ms[k].m.n_sliding == ms[k].m.layers) return k;
    return -1;
}

int fa_report_owns_file(const char *name)
{
    static const char *const fixed[] = {"report.csv", "kernels.csv", "papers.csv", "decode.csv", "long_context.csv",
                                        "cp.csv", "cp_time_vs_p.png", "memory_vs_n.csv", "memory_vs_n.png",
                                        "hbm_vs_sram.csv", "hbm_vs_sram.png", "hbm_vs_block.csv", "hbm_vs_block.png"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(name, fixed[i])) return 1;
    const char *pre = "hbm_vs_n_";
    const size_t np = strlen(pre), n = strlen(name);
    if (n <= np + 4 || strncmp(name, pre, np) != 0 || strchr(name, '/')) return 0;
    return !strcmp(name + n - 4, ".csv") || !strcmp(name + n - 4, ".png");
}

int fa_report_owns_temporary(const char *name, long *pid)
{
    const char *t = strstr(name, ".tmp.");
    if (!t) return 0;
    for (const char *u; (u = strstr(t + 1, ".tmp.")) != NULL;) t = u; /* the last ".tmp." */
    const char *digits = t + 5;
    const size_t nd = strlen(digits);
    if (nd == 0 || nd > 9 || digits[0] == '0' || strspn(digits, "0123456789") != nd) return 0;
    char own[256];
    const size_t l = (size_t)(t - name);
    if (l == 0 || l >= sizeof own) return 0;
    memcpy(own, name, l);
    own[l] = '\0';
    if (!fa_report_owns_file(own)) return 0;
    *pid = strtol(digits, NULL, 10);
    return 1;
}

/* ---- the hardware ---- */

const char *const fa_report_default_hw[FA_REPORT_MAX_HW] = {"a100", "h100", "h200"};

fa_status fa_report_load_hw(const char *const *keys, int nh, fa_hw hw[FA_REPORT_MAX_HW], int *n)
{
    *n = 0;
    if (!keys || nh == 0) keys = fa_report_default_hw, nh = FA_REPORT_MAX_HW;
    if (nh < 0 || nh > FA_REPORT_MAX_HW)
        FA_FAIL(FA_EINVAL, "%d hardware profiles: the report compares 1 to %d", nh, FA_REPORT_MAX_HW);
    for (int h = 0; h < nh; h++) {
        FA_TRY(fa_hw_load(keys[h], NULL, &hw[h]));
        for (int g = 0; g < h; g++)
            if (!strcmp(hw[g].key, hw[h].key)) FA_FAIL(FA_EINVAL, "--hw %s given twice (each profile once)", hw[h].key);
    }
    *n = nh;
    return FA_OK;
}

/* ---- running an algorithm ---- */

fa_status fa_report_kernel_pass(fa_pass p, fa_algo a, const fa_shape *s, const fa_hw *hw, fa_io_result *r)
{
    fa_perf_result pr;
    FA_TRY(fa_perf_predict(fa_profile_default(a), p, s, hw, NULL, &pr));
    *r = pr.io;
    fa_perf_to_io(&pr, r);
    r->sram_bytes = hw->sram_per_block;
    return FA_OK;
}

fa_status fa_report_count(fa_pass p, fa_algo a, const fa_shape *s, uint64_t M, const fa_hw *hw, fa_io_result *r)
{
    fa_run_config c = {.shape = *s, .pass = p, .hw = *hw, .sram = M, .rule = FA_TILES_FIT,
                       .profile = fa_profile_find("paper")};
    return fa_run_algo(&c, a, NULL, r);
}

double fa_report_time(const fa_io_result *r) { return r->has_perf ? r->perf_time_s : r->time_s; }

double fa_report_tflops(const fa_io_result *r)
{
    return r->has_perf ? r->perf_tflops : r->nominal_flops / r->time_s / 1e12;
}

const char *fa_bound_name(int pipe, int latency)
{
    return latency == 1 ? "launch" : latency ? "grid" : fa_pipe_name((fa_pipe)pipe);
}

const char *fa_report_bound(const fa_io_result *r)
{
    if (r->has_perf && r->perf_sets && !r->perf_latency) return r->perf_sets; /* what sets the time */
    if (r->has_perf) return fa_bound_name(r->perf_bound, r->perf_latency);
    return r->time_compute_s > r->time_memory_s ? "compute" : "memory";
}

/* ---- per model and GPU ---- */

static fa_status check_nh(int nh)
{
    if (nh < 1 || nh > FA_REPORT_MAX_HW)
        FA_FAIL(FA_EINVAL, "%d hardware profiles: the report compares 1 to %d", nh, FA_REPORT_MAX_HW);
    return FA_OK;
}

fa_status fa_report_model_rows(const fa_model *m, int64_t batch, int64_t seqlen, fa_pass p, const fa_hw *hw, int nh,
                               fa_report_rows *out)
{
    FA_TRY(check_nh(nh));
    memset(out, 0, sizeof *out);
    out->nkind = fa_report_model_kinds(m, batch, seqlen, out->s, out->layers);
    for (int h = 0; h < nh; h++)
        for (int a = 0; a < FA_NALGO; a++) {
            out->ran_all[h][a] = 1;
            for (int k = 0; k < out->nkind; k++) {
                fa_io_result *r = &out->r[k][h][a];
                fa_status st = fa_report_kernel_pass(p, (fa_algo)a, &out->s[k], &hw[h], r);
                if ((st == FA_EINVAL || st == FA_ENOSRAM) && a != FA_ALGO_FLASH2) { /* no such kernel */
                    snprintf(out->why[k][h][a], sizeof out->why[0][0][0], "%s", fa_last_error());
                    fa_clear_error();
                    memset(r, 0, sizeof *r);
                    r->algo = (fa_algo)a;
                    out->ran_all[h][a] = 0;
                    continue;
                }
                if (st) { /* name the model, its table and its shape: the message below may quote one head's */
                    char why[512];
                    snprintf(why, sizeof why, "%s", fa_last_error());
                    fa_clear_error();
                    const fa_shape *t = &out->s[k];
                    FA_FAIL(st, "model %s, its table's %s row on %s (B = %" PRId64 ", H = %" PRId64 ", H_kv = %" PRId64
                            ", N = %" PRId64 ", d = %" PRId64 ", d_v = %" PRId64 "): %s", m->name, fa_algo_name((fa_algo)a),
                            hw[h].name, t->batch, t->heads, t->kv_heads, t->seqlen_q, t->d, t->d_v, why);
                }
                out->ran[k][h][a] = 1;
                out->total_bytes[h][a] += (double)out->layers[k] * (double)fa_counts_hbm_bytes(&r->counts);
                out->total_time_s[h][a] += (double)out->layers[k] * fa_report_time(r);
            }
        }
    return FA_OK;
}

/* ---- training ---- */

fa_shape fa_report_training_shape(void)
{
    fa_shape s = {.batch = 64, .heads = 16, .kv_heads = 16, .seqlen_q = 1024, .seqlen_k = 1024,
                  .d = 64, .d_v = 64, .scale = 0, .causal = FA_CAUSAL_BOTTOM_RIGHT,
                  .dtype = FA_DTYPE_FP16};
    return s;
}

fa_status fa_report_training(const fa_hw *hw, fa_io_result r[FA_NPASS][FA_NALGO])
{
    const fa_shape s = fa_report_training_shape();
    for (int p = 0; p < FA_NPASS; p++)
        for (int a = 0; a < FA_NALGO; a++) FA_TRY(fa_report_kernel_pass((fa_pass)p, (fa_algo)a, &s, hw, &r[p][a]));
    return FA_OK;
}

/* The training step's peak of algorithm a at N_q = N_k = N. */
static fa_status training_peak(fa_algo a, int64_t N, uint64_t *peak)
{
    fa_shape t = fa_report_training_shape();
    t.seqlen_q = t.seqlen_k = N;
    fa_footprint fp;
    FA_TRY(fa_hbm_footprint(a, &t, &fp));
    *peak = fa_footprint_peak(&fp, FA_PASS_FWDBWD);
    return FA_OK;
}

fa_status fa_report_memory_vs_n(fa_report_mem_row rows[FA_REPORT_MEM_ROWS], int *n)
{
    *n = 0;
    for (int64_t N = 256; N <= 262144 && *n < FA_REPORT_MEM_ROWS; N *= 2) {
        fa_report_mem_row *row = &rows[*n];
        row->N = N;
        for (int a = 0; a < FA_NALGO; a++) FA_TRY(training_peak((fa_algo)a, N, &row->peak[a]));
        (*n)++;
    }
    return FA_OK;
}

fa_status fa_report_memory_ratio(double *at_2k, double *at_4k)
{
    uint64_t s2, f2, s4, f4;
    FA_TRY(training_peak(FA_ALGO_STANDARD, 2048, &s2));
    FA_TRY(training_peak(FA_ALGO_FLASH2, 2048, &f2));
    FA_TRY(training_peak(FA_ALGO_STANDARD, 4096, &s4));
    FA_TRY(training_peak(FA_ALGO_FLASH2, 4096, &f4));
    *at_2k = (double)s2 / (double)f2;
    *at_4k = (double)s4 / (double)f4;
    return FA_OK;
}

fa_status fa_report_oom(const fa_hw *hw, int64_t n[FA_NALGO])
{
    const fa_shape s = fa_report_training_shape();
    for (int a = 0; a < FA_NALGO; a++) n[a] = 0;
    for (int a = 0; a < FA_NALGO && hw->hbm_capacity; a++)
        FA_TRY(fa_oom_seqlen((fa_algo)a, &s, FA_PASS_FWDBWD, hw->hbm_capacity, &n[a]));
    return FA_OK;
}

/* ---- long context ---- */

fa_status fa_report_long_context(const fa_model *m, const fa_hw *hw, fa_report_long_row rows[FA_REPORT_LONG_ROWS],
                                 int *n)
{
    *n = 0;
    if (m->sliding_window <= 0) FA_FAIL(FA_EINVAL, "model %s has no sliding window", m->name);
    for (int64_t N = 4096; N <= 262144 && *n < FA_REPORT_LONG_ROWS; N *= 4) {
        fa_shape s = {.batch = 1, .heads = m->heads, .kv_heads = m->kv_heads, .seqlen_q = N, .seqlen_k = N,
                      .d = m->head_dim, .d_v = m->head_dim, .causal = FA_CAUSAL_BOTTOM_RIGHT, .dtype = m->dtype};
        fa_shape w = s;
        w.window = 1;
        w.window_left = m->sliding_window - 1;
        w.window_right = 0;
        fa_io_result rf, rw;
        /* the fa2 kernel profile's tiles and time model, as the model tables (the paper's model's
         * roofline here was 2x faster than the kernel's own table) */
        FA_TRY(fa_report_kernel_pass(FA_PASS_FWD, FA_ALGO_FLASH2, &s, hw, &rf));
        FA_TRY(fa_report_kernel_pass(FA_PASS_FWD, FA_ALGO_FLASH2, &w, hw, &rw));
        fa_report_long_row *row = &rows[*n];
        row->N = N;
        row->full_bytes = fa_counts_hbm_bytes(&rf.counts);
        row->window_bytes = fa_counts_hbm_bytes(&rw.counts);
        /* the matmul FLOPs only: the windowed run's softmax FLOPs include the mask's, and adding
         * them made the window cost more than none at N = w */
        row->full_flops = rf.counts.flops_matmul;
        row->window_flops = rw.counts.flops_matmul;
        row->full_time_s = fa_report_time(&rf);
        row->window_time_s = fa_report_time(&rw);
        row->timed = rf.has_perf && rw.has_perf;
        (*n)++;
    }
    return FA_OK;
}

/* ---- the kernels table ---- */

const char *const fa_report_kernel_keys[FA_REPORT_NKERNELS] = {"eager", "math", "fa1", "fa2", "fa3", "cudnn", "fa4"};

fa_status fa_report_kernels(const fa_shape *s, const fa_hw *hw, int nh, fa_pass p,
                            fa_report_kernel rows[FA_REPORT_MAX_HW * FA_REPORT_NKERNELS], int *n)
{
    *n = 0;
    FA_TRY(check_nh(nh));
    const fa_pass kp = p == FA_PASS_BWD ? FA_PASS_BWD : FA_PASS_FWD; /* the kernel whose tiles are shown */
    for (int h = 0; h < nh; h++)
        for (int i = 0; i < FA_REPORT_NKERNELS; i++) {
            const fa_profile *prof = fa_profile_find(fa_report_kernel_keys[i]);
            if (!prof) FA_FAIL(FA_EINVAL, "no kernel profile %s", fa_report_kernel_keys[i]);
            fa_blocks bk;
            const fa_tile_row *tr;
            if (fa_profile_tiles(prof, kp, hw[h].arch, s, &bk, &tr)) { /* not on this GPU */
                fa_clear_error();
                continue;
            }
            fa_perf_result pr;
            fa_status st = fa_perf_predict(prof, p, s, &hw[h], NULL, &pr);
            if (st == FA_ENOSRAM) { /* its tiles do not fit this GPU's shared memory at this d: left out */
                fa_clear_error();
                continue;
            }
            FA_TRY(st);
            if (!pr.has_time) continue;
            fa_report_kernel *row = &rows[*n];
            row->key = i;
            row->hw = h;
            row->profile = prof;
            row->occ = pr.occ[kp == FA_PASS_BWD];
            row->blocks_run = pr.k[kp == FA_PASS_BWD].blocks_per_sm;
            row->waves = row->occ.occupancy ? pr.waves[kp == FA_PASS_BWD] : 0;
            row->time_s = pr.time_s;
            row->tflops = pr.tflops;
            row->bound = pr.bound;
            row->sets = pr.sets;
            row->latency = pr.latency;
            row->tail = pr.tail;
            for (int q = 0; q < FA_NPIPE; q++) row->busy[q] = pr.busy[q];
            row->dram_bytes = pr.dram_bytes;
            (*n)++;
        }
    return FA_OK;
}

/* ---- the papers ---- */

fa_status fa_report_papers(const char *published, fa_report_paper_set *out)
{
    enum { MAXR = 1024 };
    char path[1200];
    if (!published) {
        snprintf(path, sizeof path, "%s/../measured/papers/published.csv", fa_report_models_dir());
        published = path;
    }
    out->rows = NULL;
    out->n = 0;
    FA_TRY(fa_hw_load("a100", NULL, &out->a100));
    FA_TRY(fa_hw_load("h100", NULL, &out->h100));
    FA_TRY(fa_hw_load("b200", NULL, &out->b200));
    fa_paper_row *rows = malloc(MAXR * sizeof *rows);
    if (!rows) FA_FAIL(FA_ENOMEM, "out of host memory");
    int n = 0;
    fa_status st = fa_papers_reproduce(published, &out->a100, &out->h100, &out->b200, rows, MAXR, &n);
    if (st) {
        free(rows);
        return st;
    }
    out->rows = rows;
    out->n = n;
    return FA_OK;
}

void fa_report_papers_free(fa_report_paper_set *set)
{
    free(set->rows);
    set->rows = NULL;
    set->n = 0;
}

int fa_report_same_series(const fa_paper_row *prev, const fa_paper_row *r)
{
    return !strcmp(r->source, prev->source) && !strcmp(r->figure, prev->figure) && r->hw == prev->hw &&
           !strcmp(r->kernel, prev->kernel) && r->d == prev->d &&
           r->causal == prev->causal && r->pass == prev->pass && !strcmp(r->unit, prev->unit);
}

/* ---- the plots' data ---- */

fa_status fa_report_hbm_vs_n(const fa_shape *base, const fa_hw *hw, int64_t model_n, fa_report_n_row rows[FA_REPORT_N_ROWS],
                             int *n)
{
    *n = 0;
    const int64_t top = (int64_t)1 << 20;
    /* the model's own N between the powers of two (DeepSeek's 163840): the N the plot's key quotes */
    const int extra = model_n >= 128 && model_n <= top && (model_n & (model_n - 1)) != 0;
    for (int64_t N = 128, done = !extra; N <= top && *n < FA_REPORT_N_ROWS;) {
        if (!done && model_n < N) N = model_n, done = 1;
        fa_shape s = *base;
        s.seqlen_q = s.seqlen_k = N;
        fa_io_result r[FA_NALGO];
        for (int a = 0; a < FA_NALGO; a++)
            FA_TRY(fa_report_count(FA_PASS_FWD, (fa_algo)a, &s, hw->sram_per_block, hw, &r[a]));
        fa_report_n_row *row = &rows[*n];
        row->N = N;
        for (int a = 0; a < FA_NALGO; a++) row->bytes[a] = fa_counts_hbm_bytes(&r[a].counts);
        row->theta_standard = r[FA_ALGO_STANDARD].bound_bytes;
        row->theta_flash = r[FA_ALGO_FLASH2].bound_bytes;
        const int64_t w = s.window && s.window_left >= 0 ? s.window_left + 1 : 0; /* keys a query sees */
        row->theta_window = w > 0 && w < N ? row->theta_flash * (double)w / (double)N : row->theta_flash;
        (*n)++;
        N = (N & (N - 1)) ? ((int64_t)1 << (64 - __builtin_clzll((unsigned long long)N))) : N * 2; /* next power of two */
    }
    return FA_OK;
}

fa_status fa_report_hbm_vs_sram(const fa_shape *s, const fa_hw *hw, fa_report_sram_row rows[FA_REPORT_SRAM_ROWS],
                                int *n)
{
    *n = 0;
    /* M = N d e (N = min(N_q, N_k)), where Theorem 2's range d <= M <= N d ends and the plot's Θ
     * line stops: sampled too, in its place, so that the line reaches it */
    const uint64_t mthm = (uint64_t)(s->seqlen_q < s->seqlen_k ? s->seqlen_q : s->seqlen_k) * (uint64_t)s->d *
                          (uint64_t)fa_dtype_bytes(s->dtype);
    int mthm_done = mthm < 48 * 1024 || mthm > 4u * 1024 * 1024;
    for (uint64_t Mk = 48 * 1024; (Mk <= 4u * 1024 * 1024 || !mthm_done) && *n < FA_REPORT_SRAM_ROWS;) {
        uint64_t M = Mk;
        if (!mthm_done && (mthm <= Mk || Mk > 4u * 1024 * 1024)) {
            M = mthm;
            mthm_done = 1;
            if (mthm == Mk) Mk = Mk * 5 / 4;
        } else
            Mk = Mk * 5 / 4;
        fa_io_result r[FA_NALGO];
        fa_status st = FA_OK;
        for (int a = 0; a < FA_NALGO && !st; a++) st = fa_report_count(FA_PASS_FWD, (fa_algo)a, s, M, hw, &r[a]);
        if (st == FA_ENOSRAM) continue; /* too small for 16 x 16 tiles at this d */
        FA_TRY(st);
        fa_report_sram_row *row = &rows[*n];
        row->M = M;
        row->block = r[FA_ALGO_FLASH2].blocks.block_r;
        for (int a = 0; a < FA_NALGO; a++) row->bytes[a] = fa_counts_hbm_bytes(&r[a].counts);
        row->theta_flash = r[FA_ALGO_FLASH2].bound_bytes;
        (*n)++;
    }
    return FA_OK;
}

fa_status fa_report_hbm_vs_block(const fa_shape *s, const fa_hw *hw, fa_report_block_row rows[FA_REPORT_BLOCK_ROWS],
                                 int *n)
{
    *n = 0;
    const uint64_t M = hw->sram_per_block;
    fa_run_config c = {.shape = *s, .pass = FA_PASS_FWD, .hw = *hw, .sram = M, .rule = FA_TILES_EXPLICIT,
                       .profile = fa_profile_find("paper")};
    for (int64_t B = 16; B <= 512 && *n < FA_REPORT_BLOCK_ROWS; B += 16) {
        fa_blocks bk = {B, B};
        if (fa_sram_need(FA_ALGO_FLASH2, s, bk) > M) break;
        c.block_r = c.block_c = B;
        fa_report_block_row *row = &rows[*n];
        row->block = B;
        for (int a = 0; a < FA_NALGO; a++) {
            fa_io_result r;
            FA_TRY(fa_run_algo(&c, (fa_algo)a, NULL, &r));
            row->bytes[a] = fa_counts_hbm_bytes(&r.counts);
            row->time_s[a] = r.time_s;
        }
        (*n)++;
    }
    return FA_OK;
}
