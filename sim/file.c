/* file.c -- input files must be regular files (fa_file.h). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fa_file.h"

fa_status fa_check_regular(const char *path, const char *what)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode)) return FA_OK;
    const mode_t m = sb.st_mode;
    const char *kind = S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
                     : S_ISFIFO(m) ? "a FIFO (a pipe)" : S_ISSOCK(m) ? "a socket" : "not a regular file";
    FA_FAIL(FA_EIO, "%s %s is %s, not a regular file: give a file", what, path, kind);
}
