/* libFuzzer target: a trace.dat file (or a .gz of one) read as `pmlab trace`
 * and a replay scenario's `trace =` read it: pmlab's checks of the layout
 * (src/trace/tracedat_check.c), the cut-file repair, the gzip cap, then
 * libtracecmd and libtraceevent in a child process and in this one; the
 * statistics of what was read. Seeds: a cut-down copy of the Juno trace
 * (tests/fuzz/README.md). PMLAB_FUZZ_IN_PROCESS=1 skips the child, so that
 * the libraries' own code gives coverage and their crashes on input that
 * passed the checks show (bugs to report upstream, or checks to add). */
#define _GNU_SOURCE /* memfd_create, in fuzz_common.h */
#include "fuzz_common.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    const char *inproc = getenv("PMLAB_FUZZ_IN_PROCESS");
    struct trace_read_opts o = { .max_uncompressed = 64u << 20,
                                 .in_process = inproc && *inproc == '1' };
    struct trace_data td;
    struct diag d = { 0 };
    enum trace_need need = size % 2 ? TRACE_NEED_SCHED : TRACE_NEED_IDLE;
    if (trace_read_with(path, need, &o, &td, &d) == 0) {
        struct trace_stats s;
        const int64_t res[] = { 1, 20, 300 };
        trace_stats_compute(&td, res, 3, &s);
        trace_stats_free(&s);
    } else if (!d.set || !strstr(d.msg, path)) {
        abort(); /* a failure must say what and where */
    }
    trace_data_free(&td);
    close(fd);
    return 0;
}
