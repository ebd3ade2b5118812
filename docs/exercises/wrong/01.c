/* Planted mistake for exercise 01: the old sum is not rescaled when the max grows
 * (the most common slip).  The judge must reject it. */
#include <math.h>

#include "ex.h"

ex_state ex_softmax_init(void)
{
    ex_state s = {-INFINITY, 0.0};
    return s;
}

static double ex(double x, double m) { return x == -INFINITY ? 0.0 : exp(x - m); }

ex_state ex_softmax_update(ex_state s, const double *x, int64_t n)
{
    double m = s.m;
    for (int64_t k = 0; k < n; k++)
        if (x[k] > m) m = x[k];
    double l = s.l; /* BUG: should be s.l * exp(s.m - m) */
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
