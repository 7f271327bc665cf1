/* libFuzzer target: trace statistics and the what-if replay on an arbitrary
 * event list (8 bytes an event: time step, CPU, kind, value), the part of
 * `pmlab trace` that is pmlab's own; the trace.dat decoding is libtracecmd's,
 * and tests/cli/trace.sh covers the truncated-file repair on a real file. */
#define _GNU_SOURCE /* memfd_create, in fuzz_common.h */
#include "fuzz_common.h"
#include "trace/trace.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct trace_data td;
    memset(&td, 0, sizeof td);
    td.ncpus = 4;
    uint64_t ts = 1000;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        const uint8_t *p = data + i;
        ts += (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16;
        int cpu = p[3] % 5 - (p[3] % 5 == 4 ? 5 : 0); /* now and then out of range */
        enum trace_ev_kind kind = (enum trace_ev_kind)(p[4] % TRACE_EV_NKINDS);
        int64_t value = (int16_t)(p[5] | p[6] << 8);
        if (kind == TRACE_EV_IDLE && p[7] & 1)
            value = TRACE_IDLE_EXIT;
        if (td.n == 0)
            td.first_ts_ns = ts;
        td.last_ts_ns = ts;
        trace_add(&td, ts, cpu, kind, value);
    }
    const int64_t res[] = { 1, 20, 300, 2000 }, lat[] = { 1, 10, 100, 1000 };
    struct trace_stats s;
    trace_stats_compute(&td, res, 4, &s);
    FILE *null = fopen("/dev/null", "w");
    if (null)
        trace_stats_print(null, &td, &s);
    trace_stats_free(&s);
    static const char *const govs[] = { "menu", "teo", "ladder" };
    struct trace_whatif_opts o = { .gov = cpuidle_find_governor(govs[size % 3]), .hz = 250 };
    kversion_parse("6.12", &o.kernel);
    o.drv.state_count = 4;
    for (int i = 0; i < 4; i++) {
        o.drv.states[i].target_residency_ns = res[i] * 1000;
        o.drv.states[i].exit_latency_ns = lat[i] * 1000;
    }
    struct trace_whatif w;
    trace_whatif_run(&td, &o, &w);
    if (null) {
        trace_whatif_print(null, &td, &o, &w);
        fclose(null);
    }
    trace_whatif_free(&w);
    trace_data_free(&td);
    return 0;
}
