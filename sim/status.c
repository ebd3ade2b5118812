/* status.c -- error codes and the last-error message. */
#include "fa_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[1024];

const char *fa_strerror(fa_status s)
{
    switch (s) {
    case FA_OK: return "success";
    case FA_EINVAL: return "invalid argument";
    case FA_ENOSRAM: return "SRAM capacity exceeded";
    case FA_EOVERFLOW: return "64-bit counter overflow";
    case FA_ENOMEM: return "out of host memory";
    case FA_EIO: return "input/output error";
    case FA_EFAIL: return "check failed";
    }
    return "unknown status";
}

const char *fa_last_error(void) { return last_msg; }

void fa_clear_error(void) { last_msg[0] = '\0'; }

fa_status fa_error(fa_status s, const char *file, int line, const char *fmt, ...)
{
    (void)file;
    (void)line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof last_msg, fmt, ap);
    va_end(ap);
    return s;
}

const char *fa_excerpt(const char *s, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0;
    int k = 0;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int w = c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 4;
        if (k + w > FA_EXCERPT_CHARS) break;
        if (w == 1) {
            out[k++] = (char)c;
        } else {
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hex[c >> 4];
            out[k++] = hex[c & 15];
        }
    }
    if (i < n) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}
