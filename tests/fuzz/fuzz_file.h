/* fuzz_file.h -- for the libFuzzer harnesses of fasim's path-based readers: the input is written
 * to one temporary regular file per process and its path handed to the reader, which must parse
 * it or refuse it with FA_EINVAL / FA_EIO / FA_ENOMEM (any other status aborts: a crash). */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fa_status.h"

/* The path of a file that holds exactly data[0, size). */
static const char *fuzz_path(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fasim_fuzz_%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) abort();
    return path;
}

/* A reader's status must be one of its documented ones. */
static void fuzz_status_ok(fa_status st)
{
    if (st != FA_OK && st != FA_EINVAL && st != FA_EIO && st != FA_ENOMEM) abort();
}

#endif
