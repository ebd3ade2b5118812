/* fa_file.h -- input files: only a regular file is read, so that no reader of fasim (.npy
 * tensors, masks, --cu-seqlens files, model configs, hardware profiles, measured CSVs) can hang
 * on /dev/zero, a FIFO or a terminal, or grow without bound on /dev/urandom. */
#ifndef FA_FILE_H
#define FA_FILE_H

#include <stdio.h>

#include "fa_status.h"

/* FA_OK when path is a regular file, or does not exist (the caller's open then says so);
 * otherwise FA_EIO naming what ("mask file"), the path and what it is instead ("a directory",
 * "a character device", "a FIFO (a pipe)", ...).  stat(2) only: a FIFO is refused without
 * waiting for a writer. */
fa_status fa_check_regular(const char *path, const char *what);

/* Reads the next line of f into buf (cap >= 3 bytes; the newline kept, then a NUL).  Returns 1
 * a line, 0 at the end of the file, -1 a line longer than cap - 2 characters (before its
 * newline), -2 a line that holds a NUL byte (read whole: a text reader that looked only up to the
 * NUL would drop the rest of the line silently).  The text readers of hardware profiles and
 * measured CSVs use it. */
int fa_read_line(FILE *f, char *buf, size_t cap);

/* Whether v is a decimal number, [+-]digits[.digits][e[+-]digits] with at least one mantissa
 * digit: the one rule for real numbers fasim reads (hardware profiles, measured CSVs, the
 * command line's real values), where strtod alone would also take 0x1p-3, inf and nan. */
int fa_is_decimal(const char *v);

#endif
