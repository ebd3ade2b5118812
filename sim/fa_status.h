/* fa_status.h -- error codes and the last-error message of fasim.
 *
 * Every public fasim function returns an fa_status (FA_OK == 0 on success) and never exits.
 * On failure it also records a human-readable message naming the offending value and the
 * limit it broke; fa_last_error() returns it until the next failure overwrites it.
 * The command line maps FA_EINVAL, FA_ENOSRAM and FA_EOVERFLOW to exit status 2 (bad input)
 * and everything else to exit status 1 (failure while running).
 */
#ifndef FA_STATUS_H
#define FA_STATUS_H

#include <stddef.h>

typedef enum {
    FA_OK = 0,
    FA_EINVAL = 1,    /* invalid argument: a shape, a flag, a file's content */
    FA_ENOSRAM = 2,   /* an SRAM allocation does not fit in the arena of M bytes */
    FA_EOVERFLOW = 3, /* a 64-bit byte or FLOP counter would overflow */
    FA_ENOMEM = 4,    /* host memory allocation failed */
    FA_EIO = 5,       /* a file could not be read or written */
    FA_EFAIL = 6      /* a check failed (numerical validation) */
} fa_status;

/* A short constant description of a status code ("invalid argument", ...). */
const char *fa_strerror(fa_status s);

/* The message recorded by the most recent failure (empty string if none). */
const char *fa_last_error(void);

/* Records a printf-style message for status s and returns s.  Used by FA_FAIL. */
fa_status fa_error(fa_status s, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the message and returns the status from the calling function. */
#define FA_FAIL(status, ...) return fa_error((status), __FILE__, __LINE__, __VA_ARGS__)

/* Propagates a non-OK status from a call. */
#define FA_TRY(call)                          \
    do {                                      \
        fa_status fa_try_s_ = (call);         \
        if (fa_try_s_ != FA_OK) return fa_try_s_; \
    } while (0)

/* Clears the last-error message. */
void fa_clear_error(void);

/* A short printable excerpt of the n bytes at s, for messages that quote a file's content:
 * bytes outside printable ASCII (and the backslash) are written \xNN, and the excerpt stops
 * at FA_EXCERPT_CHARS characters with "..." when the text goes on.  out holds FA_EXCERPT_SIZE
 * bytes; returns out. */
#define FA_EXCERPT_CHARS 40
#define FA_EXCERPT_SIZE (FA_EXCERPT_CHARS + 8)
const char *fa_excerpt(const char *s, size_t n, char *out);

#endif
