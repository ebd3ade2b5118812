/* fuzz_cu_seqlens.c -- libFuzzer harness of --cu-seqlens (analysis/infer.c,
 * fa_cu_seqlens_parse): the first byte picks a list given on the command line (the rest as a C
 * string) or a file (the rest as its bytes).  make fuzz; seeds tests/fuzz/cu_seqlens/. */
#include <string.h>

#include "fa_inference.h"
#include "fuzz_file.h"

enum { MAX_SEQ = 4096 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static int64_t cu[MAX_SEQ + 1];
    int64_t n = -1;
    fa_status st;
    if (data[0] & 1) {
        char *text = malloc(size);
        if (!text) return 0;
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        /* a list that names no file: a text with a '/' could name one */
        st = strchr(text, '/') || !*text ? FA_OK : fa_cu_seqlens_parse("--cu-seqlens", text, cu, MAX_SEQ, &n);
        free(text);
    } else {
        st = fa_cu_seqlens_parse("--cu-seqlens", fuzz_path(data + 1, size - 1), cu, MAX_SEQ, &n);
    }
    fuzz_status_ok(st);
    if (st == FA_OK && n != -1 && (n < 2 || n > MAX_SEQ + 1)) abort(); /* the documented count */
    return 0;
}
