/* fuzz_hw.c -- libFuzzer harness of the hardware profiles (sim/hw.c fa_hw_load_file: the
 * "key = value" files of sim/hw/).  make fuzz; seeds tests/fuzz/hw/ (the three profiles). */
#include "fa_hw.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fa_hw hw;
    fuzz_status_ok(fa_hw_load_file(fuzz_path(data, size), &hw));
    return 0;
}
