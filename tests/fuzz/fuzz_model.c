/* fuzz_model.c -- libFuzzer harness of the model configs (--model, analysis/model.c
 * fa_model_load: a HuggingFace config.json through jansson).  make fuzz; seeds tests/fuzz/model/. */
#include "fa_analysis.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fa_model m;
    fa_status st = fa_model_load(fuzz_path(data, size), &m);
    fuzz_status_ok(st);
    if (st == FA_OK && (m.heads < 1 || m.kv_heads < 1 || m.head_dim < 1 || m.heads % m.kv_heads)) abort();
    return 0;
}
