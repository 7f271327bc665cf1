/* The simulated machine's trace (trace/record.c, trace/tracedat_write.c):
 * what is recorded is what pmlab's own trace.dat reader (libtracecmd) reads
 * back, timestamps exact across a time-extend entry (a gap over 2^27 ns)
 * and across page boundaries, with the task names; the window and the size
 * limit drop what they should and say when. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/record.h"
#include "trace/trace.h"
#include "trace/tracedat_write.h"

static char *tmp_path(void)
{
    char *p = malloc(64);
    snprintf(p, 64, "/tmp/pmlab-test-trace-%ld.dat", (long)getpid());
    return p;
}

static void write_and_read(const struct trace_buf *b, struct trace_data *td)
{
    char *path = tmp_path();
    struct diag d = { 0 };
    assert_int_equal(tracedat_write(b, path, &d), 0);
    memset(td, 0, sizeof *td);
    if (trace_read(path, td, &d) != 0)
        fail_msg("%s", d.msg);
    unlink(path);
    free(path);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct trace_buf *b = trace_buf_new(2, 0, -1, 64 << 20);
    int32_t pid = trace_buf_new_pid(b, "worker");
    assert_int_equal(pid, 1);
    trace_buf_add(b, 0, 1000, TRACE_REC_CPU_FREQUENCY, 2000000, 0, 0);
    trace_buf_add(b, 0, 1000, TRACE_REC_CPU_IDLE, 2, 0, 0);
    trace_buf_add(b, 0, 5000, TRACE_REC_CPU_IDLE, TRACE_IDLE_EXIT_STATE, 0, 0);
    trace_buf_add(b, 0, 5200, TRACE_REC_SCHED_SWITCH, 0, (uint32_t)pid, 0 | 120 << 8 | 120 << 16);
    /* 300 ms later: more than the 27-bit delta holds */
    trace_buf_add(b, 0, 300 * 1000000LL + 7, TRACE_REC_SCHED_SWITCH, (uint32_t)pid, 0,
                  1 | 120 << 8 | 120 << 16);
    /* CPU 1: enough events for several pages */
    for (int i = 0; i < 2000; i++)
        trace_buf_add(b, 1, 10000 + 1000LL * i, TRACE_REC_CPU_IDLE,
                      i % 2 ? TRACE_IDLE_EXIT_STATE : 1, 1, 0);
    assert_true(b->bytes >= 3 * TRACE_PAGE_SIZE);
    struct trace_data td;
    write_and_read(b, &td);
    assert_int_equal(td.ncpus, 2);
    assert_int_equal(td.count[TRACE_EV_IDLE], 2002);
    assert_int_equal(td.count[TRACE_EV_FREQ], 1);
    assert_int_equal(td.count[TRACE_EV_SWITCH], 2);
    int found_late = 0, last_cpu1 = -1;
    uint64_t prev1 = 0;
    for (size_t i = 0; i < td.n; i++) {
        const struct trace_ev *e = &td.ev[i];
        if (e->kind == TRACE_EV_SWITCH && e->ts_ns == 300 * 1000000ULL + 7) {
            found_late = 1;
            assert_int_equal(e->pid, pid);   /* prev_pid */
            assert_int_equal(e->aux, 1);     /* prev_state: sleeping */
        }
        if (e->kind == TRACE_EV_FREQ)
            assert_int_equal(e->value, 2000000);
        if (e->cpu == 1 && e->kind == TRACE_EV_IDLE) {
            assert_true(e->ts_ns > prev1);
            prev1 = e->ts_ns;
            last_cpu1 = (int)e->value;
        }
    }
    assert_true(found_late);
    assert_int_equal(prev1, 10000 + 1000ULL * 1999);
    assert_int_equal(last_cpu1, TRACE_IDLE_EXIT);
    trace_data_free(&td);
    trace_buf_free(b);
}

/* Outside [start, end) nothing is kept; past max_bytes recording stops at
 * the first event that needed a new page, and says when. */
static void test_window_and_limit(void **state)
{
    (void)state;
    struct trace_buf *b = trace_buf_new(1, 1000, 2000, 64 << 20);
    assert_false(trace_buf_wants(b, 999));
    assert_true(trace_buf_wants(b, 1000));
    assert_false(trace_buf_wants(b, 2000));
    trace_buf_add(b, 0, 500, TRACE_REC_CPU_IDLE, 1, 0, 0);
    trace_buf_add(b, 0, 1500, TRACE_REC_CPU_IDLE, 1, 0, 0);
    trace_buf_add(b, 0, 2500, TRACE_REC_CPU_IDLE, 1, 0, 0);
    assert_int_equal(b->nrecs[TRACE_REC_CPU_IDLE], 1);
    trace_buf_free(b);

    b = trace_buf_new(1, 0, -1, 2 * TRACE_PAGE_SIZE);
    size_t per_page = TRACE_PAGE_DATA / trace_rec_bytes(TRACE_REC_CPU_IDLE);
    for (size_t i = 0; i < 3 * per_page; i++)
        trace_buf_add(b, 0, 100 + (sim_time_t)i, TRACE_REC_CPU_IDLE, 1, 0, 0);
    assert_int_equal(b->nrecs[TRACE_REC_CPU_IDLE], 2 * per_page);
    assert_int_equal(b->truncated_ns, 100 + (sim_time_t)(2 * per_page));
    assert_int_equal(b->bytes, 2 * TRACE_PAGE_SIZE);
    struct trace_data td;
    write_and_read(b, &td);
    assert_int_equal(td.count[TRACE_EV_IDLE], 2 * per_page);
    trace_data_free(&td);
    trace_buf_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_window_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
