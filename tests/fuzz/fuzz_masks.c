/* fuzz_masks.c -- libFuzzer harness of the mask files (analysis/masks.c): --block-mask,
 * --col-mask and --mask.  The first byte picks the reader and the shape (N_q, N_k in [1, 64]);
 * the rest is the file.  make fuzz; seeds tests/fuzz/masks/; results docs/validate.md. */
#include "fa_analysis.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const int which = data[0] % 3;
    const int64_t Nq = 1 + (data[0] >> 2) % 16 * 4, Nk = 1 + (data[0] >> 4) * 4;
    const char *p = fuzz_path(data + 1, size - 1);
    fa_mask_store m = {0};
    fa_status st = which == 0 ? fa_block_mask_load(p, Nq, Nk, &m)
                   : which == 1 ? fa_col_mask_load(p, Nq, Nk, &m) : fa_dense_mask_load(p, Nq, Nk, &m);
    fuzz_status_ok(st);
    fa_mask_store_free(&m);
    return 0;
}
