/* judge.h -- helpers shared by the exercise judges (docs/exercises/NN-name/judge.c).
 *
 * A judge links the student's file (or a reference solution, or a planted wrong one) against
 * libfasim, runs it on a few shapes, and prints one line per check:
 *     PASS  what was checked
 *     FAIL  what was checked: what went wrong, and a hint
 *     SKIP  a budget check not judged, because the output it budgets is wrong (judge_budget)
 * then a verdict.  Exit status 0 when every check passed, 1 otherwise (a FAIL or a SKIP).  A judge
 * records the same checks for every submission (a check that fails still prints one line and
 * counts once), so the verdict's total does not depend on what the submission returns. */
#ifndef EX_JUDGE_H
#define EX_JUDGE_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fa_analysis.h"

static int judge_pass_n, judge_fail_n, judge_skip_n;

/* Records one check: ok != 0 is a PASS.  The message is printf-style. */
static inline void judge_check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s  ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (ok) judge_pass_n++;
    else judge_fail_n++;
}

/* Records a check that budgets work the code must have done: "at most k reads of X", "every
 * SRAM buffer freed", "the tiles fit M".  Such a check holds vacuously for code that does nothing
 * (a stub reads K 0 times, within any budget), so it is judged only when `done` says the work
 * was done -- the output of the same case is right.  Then it is a PASS (ok != 0) or a FAIL,
 * followed by " -- hint" when hint is not NULL; otherwise it prints
 *     SKIP  what was checked -- not judged: <not_done>
 * and counts as not passed.  The message is printf-style; it should show the measured number. */
static inline void judge_budget(int done, const char *not_done, int ok, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s  ", !done ? "SKIP" : ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    if (!done) printf(" -- not judged: %s", not_done ? not_done : "the output of this case is wrong");
    else if (!ok && hint) printf(" -- %s", hint);
    printf("\n");
    va_end(ap);
    if (!done) judge_skip_n++;
    else if (ok) judge_pass_n++;
    else judge_fail_n++;
}

/* Prints the verdict and returns the exit status. */
static inline int judge_verdict(const char *exercise)
{
    if (judge_fail_n == 0 && judge_skip_n == 0) {
        printf("exercise %s: all %d checks passed -- solved.\n", exercise, judge_pass_n);
        return 0;
    }
    printf("exercise %s: %d of %d checks passed, %d failed", exercise, judge_pass_n,
           judge_pass_n + judge_fail_n + judge_skip_n, judge_fail_n);
    if (judge_skip_n) printf(", %d not judged until their output is right", judge_skip_n);
    printf(" -- not yet (read the FAIL lines above).\n");
    return 1;
}

/* Deterministic "high entropy" inputs (xorshift64*, uniform in (-scale, scale)). */
static inline void judge_fill(double *x, int64_t n, uint64_t seed, double scale)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    for (int64_t i = 0; i < n; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        double u = (double)((s * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0; /* [0,1) */
        x[i] = scale * (2 * u - 1);
    }
}

/* The hidden case: a shape drawn anew on every run, so that a file which prints back the expected
 * numbers of the fixed cases (every FAIL line shows them) does not pass.  The seed is the
 * environment's EX_SEED when set (to reproduce a run), else the time and the process id; the
 * judge prints it, and the shape, but never the hidden case's expected values. */
static inline uint64_t judge_hidden_seed(void)
{
    const char *e = getenv("EX_SEED");
    if (e && *e) return strtoull(e, NULL, 10);
    uint64_t t = (uint64_t)time(NULL), p = (uint64_t)getpid();
    return (t * 0x9E3779B97F4A7C15ull ^ p * 0xC2B2AE3D27D4EB4Full) % 1000000007ull;
}

/* A draw uniform in lo .. hi (inclusive) from the xorshift64* state *s. */
static inline int64_t judge_draw(uint64_t *s, int64_t lo, int64_t hi)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return lo + (int64_t)(((*s * 0x2545F4914F6CDD1Dull) >> 11) % (uint64_t)(hi - lo + 1));
}

static inline double *judge_alloc(int64_t n)
{
    double *p = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (!p) {
        fprintf(stderr, "judge: out of memory\n");
        exit(2);
    }
    return p;
}

/* "once" for a count of 1, else "%.4g times" (a count of passes over a tensor, maybe fractional) into
 * buf of n bytes. */
static inline void judge_times(char *buf, size_t n, double x)
{
    if (x == 1) snprintf(buf, n, "once");
    else snprintf(buf, n, "%.4g times", x);
}

/* Largest |a - b| relative to max(1, |b|); inf when a NaN shows up or signs of infinity differ. */
static inline double judge_maxerr(const double *a, const double *b, int64_t n)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isinf(a[i]) && isinf(b[i]) && (a[i] > 0) == (b[i] > 0)) continue;
        double e = fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i]));
        if (isnan(e)) return INFINITY;
        if (e > worst) worst = e;
    }
    return worst;
}

/* Bytes read / written of tensor `name` in a counts record (0 if it never moved). */
static inline uint64_t judge_read(const fa_counts *c, const char *name)
{
    int k = fa_counts_find(c, name);
    return k < 0 ? 0 : c->tensor[k].read_bytes;
}
static inline uint64_t judge_written(const fa_counts *c, const char *name)
{
    int k = fa_counts_find(c, name);
    return k < 0 ? 0 : c->tensor[k].write_bytes;
}

/* A shape printed as fasim io's header does, "B=.. H=.. H_kv=.. N_q=.. N_k=.. d=.. d_v=.. dtype,
 * tiles B_r x B_c" (H_kv always: a GQA case says so). */
static inline const char *judge_shape(const fa_shape *s, fa_blocks bk, char *buf, size_t n)
{
    snprintf(buf, n, "B=%" PRId64 " H=%" PRId64 " H_kv=%" PRId64 " N_q=%" PRId64 " N_k=%" PRId64 " d=%" PRId64
             " d_v=%" PRId64 " %s%s, tiles %" PRId64 "x%" PRId64,
             s->batch, s->heads, s->kv_heads, s->seqlen_q, s->seqlen_k, s->d, s->d_v, fa_dtype_name(s->dtype),
             s->causal == FA_CAUSAL_NONE ? "" : s->causal == FA_CAUSAL_BOTTOM_RIGHT ? " causal"
                                                                                    : " causal(top-left)",
             bk.block_r, bk.block_c);
    return buf;
}

#endif
