/* diag: the first error of an operation, as "FILE:LINE: message".
 *
 * Loaders and parsers never print or exit: they record the first problem in a
 * struct diag owned by the caller and return -1 (or NULL). The CLI prints
 * diag.msg and exits with status 2. Keeping the error in a caller-owned object
 * (not errno-like globals) is what lets runs and loads go in parallel. */
#ifndef PMLAB_UTIL_DIAG_H
#define PMLAB_UTIL_DIAG_H

#include <stdbool.h>

#define DIAG_MSG_MAX 512

struct diag {
    bool set;                 /* an error was recorded */
    char msg[DIAG_MSG_MAX];   /* "FILE:LINE: what is wrong" (or "FILE: ..." when line is 0) */
};

/* Record an error unless one is already recorded (the first one wins, since
 * later errors are usually consequences of it). file may be NULL; line 0 means
 * "no line". Always returns -1 so callers can write `return diag_error(...)`. */
int diag_error(struct diag *d, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
