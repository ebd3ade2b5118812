/* fuzz_measured.c -- libFuzzer harness of the measured CSVs (compare --measured,
 * analysis/compare.c: fa_cmp_open, then fa_cmp_next to the end or the first refused row).
 * make fuzz; seeds tests/fuzz/measured/. */
#include "fa_compare.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fa_cmp_reader *r = NULL;
    fa_status st = fa_cmp_open(fuzz_path(data, size), &r);
    fuzz_status_ok(st);
    if (st) return 0;
    fa_cmp_row row;
    int got = 1;
    for (int rows = 0; got && st == FA_OK && rows < 100000; rows++) st = fa_cmp_next(r, &row, &got);
    fuzz_status_ok(st);
    fa_cmp_close(r);
    return 0;
}
