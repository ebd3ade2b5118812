/* numerics.c -- the low-precision hooks of the algorithms (fa_numerics.h) and the guarded
 * exponential they default to (fa_exp_guarded, fa_attn.h).  Calls go one way: the tile
 * operations (tile_ops.c) and the algorithms call these hooks; nothing here calls back. */
#include <math.h>

#include "fa_attn.h"
#include "fa_numerics.h"

double fa_exp_guarded(double x, double m)
{
    /* Only the exponent is guarded: a masked score (-inf) contributes exactly 0, also while
     * the running max is still -inf (no real score seen yet). */
    if (x == -INFINITY) return 0.0;
    return exp(x - m);
}

fa_format fa_num_acc(const fa_mem *mem)
{
    const fa_numerics *nu = fa_mem_numerics(mem);
    return nu->on ? nu->acc : FA_FMT_FP64;
}

double fa_num_exp(const fa_mem *mem, double x, double m)
{
    const fa_numerics *nu = fa_mem_numerics(mem);
    if (!nu->on) return fa_exp_guarded(x, m);
    if (x == -INFINITY) return 0.0;
    double arg = fa_round(x - m, nu->acc);
    return fa_round(nu->exp2 ? exp2(arg) : exp(arg), nu->acc);
}

double fa_num_lse(const fa_mem *mem, double m, double l)
{
    if (l == 0) return -INFINITY;
    return fa_mem_numerics(mem)->exp2 ? m * FA_LN2 + log(l) : m + log(l);
}

void fa_tile_num_scores(const fa_mem *mem, double *S, int64_t lds, int64_t rows, int64_t cols)
{
    const fa_numerics *nu = fa_mem_numerics(mem);
    if (!S || !nu->on) return;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double *x = S + i * lds + j;
            *x = fa_round(nu->exp2 ? *x * FA_LOG2E : *x, nu->acc);
        }
}

void fa_tile_round_p(const fa_mem *mem, double *P, int64_t ldp, int64_t rows, int64_t cols)
{
    const fa_numerics *nu = fa_mem_numerics(mem);
    if (!P || !nu->on || nu->p == FA_FMT_FP64) return;
    const int k = nu->p_scale_log2;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double *x = P + i * ldp + j;
            *x = k ? ldexp(fa_round(ldexp(*x, k), nu->p), -k) : fa_round(*x, nu->p);
        }
}
