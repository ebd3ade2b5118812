/* fuzz_npy.c -- libFuzzer harness for the .npy reader (analysis/npy.c): every input must be
 * either parsed or refused with FA_EINVAL, with no crash, leak or undefined behaviour.
 *   make fuzz                       (clang -fsanitize=fuzzer,address,undefined; FUZZ_SECONDS=60 by default)
 * Seeds: tests/fuzz/npy/.  Results: docs/validate.md. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fa_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fa_npy a;
    /* the last byte chooses whether 16-bit integer data is bfloat16 */
    int bf16 = size > 0 && (data[size - 1] & 1);
    fa_status st = fa_npy_parse(data, size, "fuzz.npy", bf16, &a);
    if (st == FA_OK) {
        volatile double sink = 0;
        for (int64_t i = 0; i < a.n; i++) sink += a.data[i];
        (void)sink;
    } else if (st != FA_EINVAL && st != FA_ENOMEM) {
        abort();
    }
    fa_npy_free(&a);
    return 0;
}
