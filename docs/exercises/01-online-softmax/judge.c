/* judge.c -- exercise 01: checks the online-softmax state against a direct fp64 logsumexp.  The
 * checks on empty states (which a function that does nothing passes) count only once the same
 * function is right on ordinary numbers. */
#include "judge.h"
#include "ex.h"

/* logsumexp of x[0..n) by the definition (two passes), -inf when every x is -inf. */
static double lse_direct(const double *x, int64_t n, double *mx)
{
    double m = -INFINITY, s = 0;
    for (int64_t k = 0; k < n; k++) m = fmax(m, x[k]);
    *mx = m;
    if (m == -INFINITY) return -INFINITY;
    for (int64_t k = 0; k < n; k++) s += exp(x[k] - m);
    return m + log(s);
}

static double lse_state(ex_state s) { return s.l > 0 ? s.m + log(s.l) : -INFINITY; }

/* Compares a state with the direct logsumexp of x[0..n); returns whether it agrees.  An empty
 * stream is judged only once `done` (the update or merge works on ordinary numbers): a function
 * that does nothing keeps the empty state and would pass vacuously (judge_budget). */
static int check_state(const char *what, ex_state st, const double *x, int64_t n, int done)
{
    double mx, want = lse_direct(x, n, &mx), got = lse_state(st);
    if (isnan(st.m) || isnan(st.l)) {
        judge_check(0, "%s: the state holds NaN (m = %g, l = %g); guard exp(-inf - (-inf))", what, st.m, st.l);
        return 0;
    }
    if (st.m != mx) {
        judge_check(0, "%s: m = %.17g but the largest number seen is %.17g", what, st.m, mx);
        return 0;
    }
    int ok = (isinf(want) && isinf(got) && want < 0 && got < 0 && st.l == 0) ||
             fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want));
    judge_budget(done, "the same function is wrong on ordinary numbers (see above)", ok,
                 "when the max grows, the old l must be multiplied by exp(m_old - m_new)",
                 "%s: logsumexp m + log l = %.15g, expected %.15g", what, got, want);
    return ok && done;
}

static ex_state stream(const double *x, int64_t n, int64_t chunk)
{
    ex_state s = ex_softmax_init();
    for (int64_t k = 0; k < n; k += chunk) s = ex_softmax_update(s, x + k, n - k < chunk ? n - k : chunk);
    return s;
}

int main(void)
{
    enum { N = 200 };
    double x[N], big[N], masked[N], rising[N];
    judge_fill(x, N, 1, 3.7);
    judge_fill(big, N, 2, 40.0);
    for (int k = 0; k < N; k++) big[k] += 800.0; /* exp(800) overflows a double */
    judge_fill(masked, N, 3, 2.9);
    for (int k = 0; k < N; k++)
        if (k % 3 == 0 || (k >= 50 && k < 90)) masked[k] = -INFINITY;
    for (int k = 0; k < N; k++) rising[k] = 0.05 * k; /* the max grows at every number */

    ex_state e = ex_softmax_init();
    judge_check(e.m == -INFINITY && e.l == 0, "init: m = -inf, l = 0 (got m = %g, l = %g)", e.m, e.l);

    int upd = check_state("one chunk of 200", stream(x, N, N), x, N, 1);
    upd &= check_state("chunks of 7", stream(x, N, 7), x, N, 1);
    check_state("one number at a time", stream(x, N, 1), x, N, 1);
    check_state("rising numbers, chunks of 16 (the max grows every chunk)", stream(rising, N, 16), rising, N, 1);
    check_state("numbers near 800, chunks of 16 (no overflow)", stream(big, N, 16), big, N, 1);
    check_state("masked scores (-inf), chunks of 10 (some chunks fully masked)", stream(masked, N, 10), masked, N, 1);
    double ninf[5] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    check_state("a stream of only -inf stays empty", stream(ninf, 5, 2), ninf, 5, upd);

    /* merging two partial states, split at several points */
    int64_t cuts[] = {0, 1, 37, 100, 199, 200};
    int mrg = 1;
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        int64_t k = cuts[c];
        char what[96];
        snprintf(what, sizeof what, "merge of [0,%" PRId64 ") and [%" PRId64 ",200) of rising numbers", k, k);
        int ok = check_state(what, ex_softmax_merge(stream(rising, k, 9), stream(rising + k, N - k, 9)), rising, N, 1);
        if (k > 0 && k < N) mrg &= ok; /* the cuts 0 and 200 merge with the empty state */
    }
    check_state("merge(b, a) of two halves near 800", ex_softmax_merge(stream(big + 100, 100, 8), stream(big, 100, 8)), big, N, 1);
    check_state("merge of masked halves", ex_softmax_merge(stream(masked, 100, 10), stream(masked + 100, 100, 10)), masked, N, 1);
    ex_state b = stream(x, N, 13);
    ex_state m1 = ex_softmax_merge(ex_softmax_init(), b), m2 = ex_softmax_merge(b, ex_softmax_init());
    judge_budget(upd, "the update is wrong on ordinary numbers (see above)",
                 m1.m == b.m && fabs(m1.l - b.l) <= 1e-14 * b.l && m2.m == b.m && fabs(m2.l - b.l) <= 1e-14 * b.l, NULL,
                 "the empty state is an identity of merge (got l = %g and %g, want %g)", m1.l, m2.l, b.l);
    ex_state z = ex_softmax_merge(ex_softmax_init(), ex_softmax_init());
    judge_budget(mrg, "the merge is wrong on ordinary numbers (see above)", z.m == -INFINITY && z.l == 0, NULL,
                 "merge of two empty states is empty, no NaN (got m = %g, l = %g)", z.m, z.l);
    return judge_verdict("01 (online softmax)");
}
