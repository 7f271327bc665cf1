/* rtapp: the reader takes rt-app's grammar and names what is wrong; the
 * workload runs it by rt-app's rules (run is work and stretches on a slower
 * core, runtime is wall time, timers keep their period and count misses,
 * barriers and suspend/resume synchronise threads, locks exclude) on
 * adl-desktop with cpufreq off (every core at its base frequency). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload/rtapp.h"
#include "workload/workload.h"
#include "world_fixture.h"

static struct rtapp_prog *parse_ok(const char *json)
{
    struct diag d = { 0 };
    struct rtapp_prog *p = rtapp_parse(json, strlen(json), "t.json", false, &d);
    if (!p)
        fail_msg("%s", d.msg);
    return p;
}

static void parse_fails(const char *json, const char *want)
{
    struct diag d = { 0 };
    struct rtapp_prog *p = rtapp_parse(json, strlen(json), "t.json", false, &d);
    if (p)
        fail_msg("parsed: %s", json);
    if (!strstr(d.msg, want))
        fail_msg("'%s' lacks '%s'", d.msg, want);
}

static void test_grammar(void **state)
{
    (void)state;
    struct rtapp_prog *p = parse_ok(
        "{ \"global\": { \"duration\": 3, \"calibration\": \"CPU2\", \"ftrace\": \"none\" },\n"
        "  \"tasks\": {\n"
        "    \"a\": { \"instance\": 3, \"cpus\": [1, 4], \"policy\": \"SCHED_FIFO\",\n"
        "           \"priority\": 10, \"loop\": 5, \"phases\": {\n"
        "      \"p0\": { \"loop\": 2, \"runtime\": 7, \"run1\": 8, \"sleep\": 9 },\n"
        "      \"p1\": { \"cpus\": [2], \"timer0\": { \"ref\": \"t\", \"period\": 100,\n"
        "                                          \"mode\": \"absolute\" },\n"
        "               \"barrier\": \"b\", \"resume\": \"b2\", \"unknown\": 1 } } },\n"
        "    \"b2\": { \"suspend\": \"b2\", \"lock\": \"m\",\n"
        "              \"wait\": { \"ref\": \"c\", \"mutex\": \"m\" }, \"unlock\": \"m\",\n"
        "              \"signal\": \"c\", \"broad\": \"c\", \"yield\": \"\" } } }\n");
    assert_int_equal(p->duration_s, 3);
    assert_int_equal(p->calib_cpu, 2);
    assert_int_equal(p->ntasks, 2);
    const struct rtapp_task *a = &p->task[0];
    assert_string_equal(a->name, "a");
    assert_int_equal(a->instance, 3);
    assert_int_equal(a->loop, 5);
    assert_string_equal(a->policy, "SCHED_FIFO");
    assert_int_equal(a->ncpus, 2);
    assert_int_equal(a->nph, 2);
    /* File order; "runtime" is not a "run". */
    assert_int_equal(a->ph[0].loop, 2);
    assert_int_equal(a->ph[0].nev, 3);
    assert_int_equal(a->ph[0].ev[0].type, RTAPP_RUNTIME);
    assert_int_equal(a->ph[0].ev[1].type, RTAPP_RUN);
    assert_int_equal(a->ph[0].ev[1].usec, 8);
    assert_int_equal(a->ph[0].ev[2].type, RTAPP_SLEEP);
    assert_int_equal(a->ph[1].ncpus, 1);
    assert_int_equal(a->ph[1].nev, 3); /* "unknown" ignored */
    assert_int_equal(a->ph[1].ev[0].type, RTAPP_TIMER);
    assert_true(a->ph[1].ev[0].absolute);
    assert_int_equal(a->ph[1].ev[0].usec, 100);
    assert_int_equal(a->ph[1].ev[2].type, RTAPP_RESUME);
    assert_int_equal(a->ph[1].ev[2].ref, 1); /* task b2, defined later */
    const struct rtapp_task *b = &p->task[1];
    assert_int_equal(b->nph, 1); /* events in the task object: one phase */
    assert_int_equal(b->ph[0].nev, 7);
    assert_int_equal(b->ph[0].ev[2].type, RTAPP_WAIT);
    assert_int_equal(b->loop, -1);
    rtapp_free(p);
}

static void test_bad_files(void **state)
{
    (void)state;
    parse_fails("{ \"tasks\": {\n \"a\": { \"run\": 1, }\n} }", "t.json:2:");
    parse_fails("{ \"tasks\": { \"a\": {\n \"run\": 1,\n \"run\": 2 } } }",
                "t.json:3: duplicate object key");
    parse_fails("{ \"global\": {} }", "no \"tasks\"");
    parse_fails("{ \"tasks\": { \"a\": { \"run\": -5 } } }", "t.json: tasks.a.run: -5 is out of range");
    parse_fails("{ \"tasks\": { \"a\": { \"run\": 1, \"resume\": \"zz\" } } }",
                "tasks.a.resume: resume 'zz': no such task");
    parse_fails("{ \"tasks\": { \"a\": { \"timer\": { \"period\": 5 } } } }", "needs \"ref\"");
    parse_fails("{ \"tasks\": { \"a\": { \"yield\": \"\" } } }", "no event that takes time");
    parse_fails("{ \"tasks\": { \"a\": { \"policy\": \"SCHED_X\", \"run\": 1 } } }",
                "unknown policy");
    parse_fails("{ \"global\": { \"calibration\": \"GPU0\" }, \"tasks\": { \"a\": { \"run\": 1 } } }",
                "expected \"CPUn\"");
    parse_fails("{ \"tasks\": { \"a\": { \"cpus\": [], \"run\": 1 } } }", "non-empty array");
}

/* Run json for window_ms on adl-desktop under cmdline; metrics into out. */
static int run_json(const char *json, const char *cmdline, double window_ms,
                    struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    char path[] = "/tmp/pmlab-test-rtapp-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    const struct wl_ops *ops = wl_find("rtapp");
    assert_non_null(ops);
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct diag d = { 0 };
    char dur[32];
    snprintf(dur, sizeof dur, "%g", window_ms);
    if (wl_config_set(ops, cfg, "file", path, "t.ini", 1, &d) != 0 ||
        wl_config_set(ops, cfg, "duration_ms", dur, "t.ini", 2, &d) != 0)
        fail_msg("%s", d.msg);
    unlink(path);
    assert_int_equal(ops->validate(cfg, msg, msgsize), 0);
    struct fx *f = fx_new_machine("machines/adl-desktop.ini", NULL, cmdline, NULL, NULL, 0);
    int rc = ops->run(&f->w, cfg, 0, out, msg, msgsize);
    fx_free(f);
    wl_config_release(ops, cfg);
    free(cfg);
    return rc;
}

static void run_ok(const char *json, const char *cmdline, double window_ms,
                   struct rpt_metric_set *out)
{
    char msg[300];
    if (run_json(json, cmdline, window_ms, out, msg, sizeof msg) != 0)
        fail_msg("%s", msg);
}

/* run is work calibrated on CPU0 at its single-core turbo: at base
 * frequency (cpufreq off) it takes turbo/base longer there, longer still on
 * an E-core; runtime is wall time anywhere. */
static void test_run_stretches_runtime_does_not(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    run_ok("{ \"tasks\": {\n"
           " \"p\": { \"cpus\": [0], \"run\": 1000, \"sleep\": 4000 },\n"
           " \"e\": { \"cpus\": [16], \"run\": 1000, \"sleep\": 4000 },\n"
           " \"pr\": { \"cpus\": [2], \"runtime\": 1000, \"sleep\": 4000 },\n"
           " \"er\": { \"cpus\": [18], \"runtime\": 1000, \"sleep\": 4000 } } }",
           "", 200, &m);
    double p = fx_set_metric(&m, "task.p.run_avg_us"), e = fx_set_metric(&m, "task.e.run_avg_us");
    /* adl-desktop P: base 3200 MHz, one-core turbo bin 5100 MHz: 1000 us of
     * work at 5100 MHz takes 1593.75 us at 3200 MHz. */
    assert_true(fabs(p - 1000 * 5100.0 / 3200.0) < 1);
    assert_true(e > p * 1.2);
    assert_true(fabs(fx_set_metric(&m, "task.pr.run_avg_us") - 1000) < 1);
    assert_true(fabs(fx_set_metric(&m, "task.er.run_avg_us") - 1000) < 1);
    rpt_set_free(&m);
}

/* A timer keeps its period: activations = window / period; a run longer
 * than the period misses every one, with negative slack. */
static void test_timer_period_and_misses(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    run_ok("{ \"tasks\": {\n"
           " \"ok\": { \"run\": 500, \"timer\": { \"ref\": \"a\", \"period\": 2000 } },\n"
           " \"late\": { \"run\": 3000, \"timer\": { \"ref\": \"b\", \"period\": 2000 } } } }",
           "", 100, &m);
    assert_true(fabs(fx_set_metric(&m, "task.ok.activations") - 50) <= 1);
    assert_true(fx_set_metric(&m, "task.ok.missed_pct") == 0);
    assert_true(fx_set_metric(&m, "task.ok.slack_avg_us") > 0);
    assert_true(fx_set_metric(&m, "task.ok.wu_lat_avg_us") > 0);
    assert_true(fx_set_metric(&m, "task.late.missed_pct") > 90);
    assert_true(fx_set_metric(&m, "task.late.slack_avg_us") < 0);
    rpt_set_free(&m);
}

/* Activation latency comes from the idle path: limiting the states to
 * POLL and C1E cuts it (SCHED_FIFO threads: their sleeps have no slack).
 * The same threads as SCHED_OTHER sleep with the default 50 us of timer
 * slack (hrtimer_nanosleep), which wu_lat counts from the requested expiry. */
static void test_wu_lat_follows_idle_state(void **state)
{
    (void)state;
    const char *json = "{ \"tasks\": { \"t\": { \"instance\": 4, \"run\": 100,"
                       " \"policy\": \"SCHED_FIFO\","
                       " \"timer\": { \"ref\": \"x\", \"period\": 10000 } } } }";
    const char *fair = "{ \"tasks\": { \"t\": { \"instance\": 4, \"run\": 100,"
                       " \"timer\": { \"ref\": \"x\", \"period\": 10000 } } } }";
    struct rpt_metric_set deep = { 0 }, shallow = { 0 }, slack = { 0 };
    run_ok(json, "cpuidle.governor=menu", 200, &deep);
    run_ok(json, "cpuidle.governor=menu intel_idle.max_cstate=2", 200, &shallow);
    run_ok(fair, "cpuidle.governor=menu intel_idle.max_cstate=2", 200, &slack);
    assert_true(fx_set_metric(&deep, "wu_lat_avg_us") > 50);
    assert_true(fx_set_metric(&shallow, "wu_lat_avg_us") < 10);
    assert_true(fx_set_metric(&slack, "wu_lat_avg_us") >= 50);
    assert_true(fx_set_metric(&slack, "wu_lat_avg_us") < 60);
    rpt_set_free(&deep);
    rpt_set_free(&shallow);
    rpt_set_free(&slack);
}

/* A barrier holds the fast thread to the slow one's pace; suspend waits for
 * the resumes; a lock serialises two threads' critical sections. */
static void test_synchronisation(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    run_ok("{ \"tasks\": {\n"
           " \"fast\": { \"run\": 100, \"sleep\": 1000, \"barrier\": \"b\" },\n"
           " \"slow\": { \"run\": 100, \"sleep\": 9000, \"barrier\": \"b\" },\n"
           " \"waker\": { \"run\": 100, \"timer\": { \"ref\": \"w\", \"period\": 5000 },"
           "              \"resume\": \"sleeper\" },\n"
           " \"sleeper\": { \"suspend\": \"\", \"run\": 100 },\n"
           " \"l1\": { \"cpus\": [4], \"lock\": \"m\", \"runtime\": 3000, \"unlock\": \"m\","
           "           \"sleep\": 10 },\n"
           " \"l2\": { \"cpus\": [6], \"lock\": \"m\", \"runtime\": 3000, \"unlock\": \"m\","
           "           \"sleep\": 10 } } }",
           "", 100, &m);
    double fast = fx_set_metric(&m, "task.fast.loops"), slow = fx_set_metric(&m, "task.slow.loops");
    assert_true(slow >= 9 && slow <= 11);
    assert_true(fabs(fast - slow) <= 1);
    assert_true(fabs(fx_set_metric(&m, "task.sleeper.loops") - fx_set_metric(&m, "task.waker.loops")) <= 1);
    /* 100 ms of 3 ms critical sections, one at a time: about 33, not 66. */
    double locked = fx_set_metric(&m, "task.l1.loops") + fx_set_metric(&m, "task.l2.loops");
    assert_true(locked >= 30 && locked <= 34);
    rpt_set_free(&m);
}

/* A phase's cpus move the thread: it runs its P-core phase at the P-core's
 * speed and its E-core phase slower, alternating. */
static void test_phase_cpus_move(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 }, p = { 0 };
    run_ok("{ \"tasks\": { \"mover\": { \"phases\": {\n"
           " \"big\": { \"cpus\": [2], \"run\": 1000, \"sleep\": 1000 },\n"
           " \"little\": { \"cpus\": [16], \"run\": 1000, \"sleep\": 1000 } } } } }",
           "", 100, &m);
    run_ok("{ \"tasks\": { \"mover\": { \"cpus\": [2], \"run\": 1000, \"sleep\": 1000 } } }",
           "", 100, &p);
    double moved = fx_set_metric(&m, "task.mover.run_avg_us"), pinned = fx_set_metric(&p, "task.mover.run_avg_us");
    assert_true(fx_set_metric(&m, "task.mover.loops") > 20);
    assert_true(moved > pinned * 1.1);
    rpt_set_free(&m);
    rpt_set_free(&p);
}

/* A CPU the machine lacks fails the run, naming it. */
static void test_cpu_not_on_machine(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    char msg[300];
    assert_int_equal(run_json("{ \"tasks\": { \"a\": { \"cpus\": [99], \"run\": 1 } } }", "", 10,
                              &m, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "CPU 99"));
    rpt_set_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_run_stretches_runtime_does_not),
        cmocka_unit_test(test_timer_period_and_misses),
        cmocka_unit_test(test_wu_lat_follows_idle_state),
        cmocka_unit_test(test_synchronisation),
        cmocka_unit_test(test_phase_cpus_move),
        cmocka_unit_test(test_cpu_not_on_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
