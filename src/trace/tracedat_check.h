/* tracedat_check: pmlab's own check of a trace.dat's layout, before
 * libtracecmd and libtraceevent read it.
 *
 * Why: those libraries trust the file. Fuzzed files crashed them (SIGSEGV
 * in tracecmd_close via tracecmd_open_fd, SIGFPE and SIGSEGV in
 * libtraceevent, overflows in tep_parse_printk_formats: issue 27). Every
 * section's size and count is checked against the file and sane bounds,
 * the texts they parse (event formats, kallsyms, printk formats, saved
 * command lines) are checked to be text of the shape they expect, event
 * fields lie within a page, options the library reads as structures
 * (instances, host/guest) are refused, and every ring-buffer page's events
 * stay within its commit. What passes and still crashes the library is a
 * library bug (tracedat.c reads in a child first, so pmlab reports it). */
#ifndef PMLAB_TRACE_TRACEDAT_CHECK_H
#define PMLAB_TRACE_TRACEDAT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

struct tracedat_layout {
    int ncpus;
    int long_size;       /* bytes: 4 or 8 */
    uint32_t page_size;  /* bytes: a power of two */
    size_t fly_at;       /* offset of the flyrecord table (per CPU: offset, size) */
};

/* Check buf[len], the whole file at path, as a little-endian trace-cmd
 * trace.dat of file version 6. A CPU's data that runs past the end (a file
 * cut short) is not an error: the pages present are checked. 0 with *lay,
 * or -1 with d = "PATH: what is wrong at byte N". */
int tracedat_check(const unsigned char *buf, size_t len, const char *path,
                   struct tracedat_layout *lay, struct diag *d);

#endif
