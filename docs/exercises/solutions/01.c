/* Reference solution of exercise 01 (online softmax). */
#include <math.h>

#include "ex.h"

ex_state ex_softmax_init(void)
{
    ex_state s = {-INFINITY, 0.0};
    return s;
}

/* exp(x - m), 0 when x is -inf (then m may be -inf too: never form -inf - -inf). */
static double ex(double x, double m) { return x == -INFINITY ? 0.0 : exp(x - m); }

ex_state ex_softmax_update(ex_state s, const double *x, int64_t n)
{
    double m = s.m;
    for (int64_t k = 0; k < n; k++)
        if (x[k] > m) m = x[k];
    double l = s.l * ex(s.m, m); /* rescale what was summed against the old max */
    for (int64_t k = 0; k < n; k++) l += ex(x[k], m);
    ex_state r = {m, l};
    return r;
}

ex_state ex_softmax_merge(ex_state a, ex_state b)
{
    double m = a.m > b.m ? a.m : b.m;
    ex_state r = {m, a.l * ex(a.m, m) + b.l * ex(b.m, m)};
    return r;
}
