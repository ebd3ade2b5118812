/* fa_papers.h -- the FlashAttention papers' published figures, reproduced by the time model.
 *
 * Reads analysis/measured/papers/published.csv (each number with its paper, figure and page)
 * and predicts every row fasim has a kernel profile for:
 *  - FlashAttention (Dao et al. 2022, arXiv 2205.14135) Figure 2 left: HBM reads + writes (GB)
 *    and runtime (ms) of standard attention (profile math) and FlashAttention (fa1), GPT-2
 *    medium attention (B = 64, H = 16, N = 1024, d = 64, fp16, no mask: the figure's runtime is
 *    the full shape's FLOPs at FlashAttention-1's 30-50 % of peak), forward + backward, A100;
 *    the GB rows are set beside fasim's estimated DRAM bytes (the paper measured the device's
 *    memory traffic); the two-level count is in l2_bytes;
 *  - FlashAttention-2 (Dao 2023, arXiv 2307.08691) Figure 4: forward + backward TFLOP/s on the
 *    A100 (fa2, fa1, math), the benchmark shapes (hidden 2048, 16k tokens), d = 64 and 128;
 *  - FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608) Figures 5 and 6: forward and
 *    backward TFLOP/s on the H100 (fa3, cudnn, fa2, math);
 *  - FlashAttention-4 (Zadouri et al. 2026, arXiv 2603.05451) Figure 4: forward TFLOP/s on the
 *    B200, d = 128, its shape (32k tokens: B = 32768 / N, hidden 2048, bf16); only FA4 (fa4) is
 *    timed: the figure's FA2, Triton, Gluon and cuDNN have no B200 profile here, and Figure 5
 *    (d = 192, d_v = 128) no fa4 tile.  No B200 was lent: every b200 row is a prediction.
 * Units: as the paper's (GB = 1e9 bytes, ms, TFLOP/s by the FlashAttention-2 convention). */
#ifndef FA_PAPERS_H
#define FA_PAPERS_H

#include "fa_perf.h"

typedef struct {
    char source[48], figure[24], kernel[32], unit[12];
    const fa_profile *profile;
    const fa_hw *hw;
    fa_pass pass;
    int64_t d, N;
    int causal;
    double published, predicted, ratio; /* ratio = predicted / published */
    double time_s, dram_bytes, l2_bytes;
} fa_paper_row;

/* Fills rows[0 .. *n_rows) (at most max_rows) from the published file, with a100 for the A100
 * figures, h100 for the H100 ones and b200 for the B200 ones.  Errors: FA_EIO (the file),
 * FA_EINVAL (a hardware profile without pipe rates), those of fa_perf_predict. */
fa_status fa_papers_reproduce(const char *published, const fa_hw *a100, const fa_hw *h100, const fa_hw *b200,
                              fa_paper_row *rows, int max_rows, int *n_rows);

#endif
