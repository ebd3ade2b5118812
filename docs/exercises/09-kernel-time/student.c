/* Exercise 09 -- the time of a tile from the GPU's pipes.  See README.md.
 * Judge: make exercise EX=09 */
#include "ex.h"

double ex_pipe_time(double work, double rate_per_s_gpu, int sms)
{
    /* TODO: what rate does one SM get? */
    return 0;
}

double ex_overlap(double a, double b, double w)
{
    /* TODO: which phase is exposed, and how much of the other do w streams hide? */
    return 0;
}

double ex_tile_time(const ex_kernel *k, const fa_hw *hw)
{
    /* TODO: the four pipes (tensor, smem, exp, fp32) with ex_pipe_time -- at which clock do the
     * last three run? -- then the GEMM phase (the law, or the ldsm_mma points where hw has them?),
     * the softmax phase, and the tile with ex_overlap (how many streams between the phases?) */
    return 0;
}

double ex_tflops(const ex_kernel *k, const fa_hw *hw)
{
    /* TODO: FLOPs of one tile, every SM busy */
    return 0;
}

const char *ex_bound(const ex_kernel *k, const fa_hw *hw)
{
    /* TODO: "gemm" or "softmax" */
    return NULL;
}
