/* fa_file.h -- input files: only a regular file is read, so that no reader of fasim (.npy
 * tensors, masks, --cu-seqlens files, model configs, hardware profiles, measured CSVs) can hang
 * on /dev/zero, a FIFO or a terminal, or grow without bound on /dev/urandom. */
#ifndef FA_FILE_H
#define FA_FILE_H

#include "fa_status.h"

/* FA_OK when path is a regular file, or does not exist (the caller's open then says so);
 * otherwise FA_EIO naming what ("mask file"), the path and what it is instead ("a directory",
 * "a character device", "a FIFO (a pipe)", ...).  stat(2) only: a FIFO is refused without
 * waiting for a writer. */
fa_status fa_check_regular(const char *path, const char *what);

#endif
