/* diag: first-error recording, see diag.h. */
#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int diag_error(struct diag *d, const char *file, int line, const char *fmt, ...)
{
    if (!d || d->set)
        return -1;
    int n = 0;
    /* A path too long to leave room for the message keeps its end, which
     * names the file: "...dir/file.ini:12: what is wrong". */
    size_t keep = sizeof d->msg / 2;
    const char *cut = file && strlen(file) > keep ? "..." : "";
    if (*cut)
        file += strlen(file) - keep;
    if (file && line > 0)
        n = snprintf(d->msg, sizeof d->msg, "%s%s:%d: ", cut, file, line);
    else if (file)
        n = snprintf(d->msg, sizeof d->msg, "%s%s: ", cut, file);
    if (n < 0 || (size_t)n >= sizeof d->msg)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
    va_end(ap);
    d->set = true;
    return -1;
}
