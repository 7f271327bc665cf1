/* inifile: INI files through inih, with line numbers for every callback.
 *
 * inih (Debian's libinih) is built without line numbers in its handler, so we
 * feed it through our own line reader and track the line there. The reader also
 * sees section headers before inih does, which lets callers reject unknown or
 * duplicate sections even when they hold no keys.
 *
 * Syntax accepted (inih's defaults): `[section]`, `key = value`, comments
 * starting with ';' or '#', inline comments after " ;", and continuation lines:
 * an indented line after a key adds another value to that key
 * (continuation = true). A `key = value` line longer than INIFILE_LINE_MAX
 * (inih's buffer) is handed over in pieces, cut at blanks outside double
 * quotes, the later ones as continuation lines with the same line number (a
 * pasted /proc/cmdline); any other line that long, or one that cannot be cut,
 * is an error. A UTF-8 BOM is skipped; a NUL byte is an error. */
#ifndef PMLAB_UTIL_INIFILE_H
#define PMLAB_UTIL_INIFILE_H

#include <stdbool.h>

#include "util/diag.h"

#define INIFILE_LINE_MAX 199 /* inih's INI_MAX_LINE (200) less the NUL */

struct inifile_ops {
    /* A `[name]` header at `line`. Return 0, or -1 after diag_error(). */
    int (*section)(void *ctx, const char *name, int line, struct diag *d);
    /* `key = value` in `section` at `line`; continuation is true for an
     * indented line that continues the previous key. Return 0 or -1. */
    int (*key)(void *ctx, const char *section, const char *key, const char *value,
               bool continuation, int line, struct diag *d);
};

/* Parse `path`. Returns 0, or -1 with d set to "path:line: message" (a missing
 * or unreadable file is "path: cannot open: reason"). */
int inifile_parse(const char *path, const struct inifile_ops *ops, void *ctx, struct diag *d);

#endif
