/* file.c -- input files must be regular files (fa_file.h). */
#include <ctype.h>
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

int fa_read_line(FILE *f, char *buf, size_t cap)
{
    size_t n = 0;
    int c = EOF, nul = 0;
    while ((c = getc(f)) != EOF) {
        if (n + 1 == cap) { /* full: only the end of the file may follow */
            ungetc(c, f);
            buf[n] = '\0';
            return -1;
        }
        if (c == '\0') nul = 1;
        buf[n++] = (char)c;
        if (c == '\n') break;
    }
    buf[n] = '\0';
    if (n == 0) return 0;
    return nul ? -2 : 1;
}

int fa_is_decimal(const char *v)
{
    const char *p = v;
    int digits = 0;
    if (*p == '+' || *p == '-') p++;
    while (isdigit((unsigned char)*p)) p++, digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++) digits++;
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return 0;
        while (isdigit((unsigned char)*p)) p++;
    }
    return *p == '\0';
}
