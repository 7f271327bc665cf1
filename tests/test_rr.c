/* rr's servers: server = pool hands requests to `threads` persistent
 * workers, each request woken once through the kernel's wake path, and
 * queues them when every worker is busy; server = fork (the default) forks a
 * thread per request. adl-desktop (16 cores, 24 CPUs), cpufreq off. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workload/workload.h"
#include "world_fixture.h"

#define RR_WINDOW_MS 500.0
#define RR_OFFERED_RPS 6400.0   /* load 0.02 x 16 cores / 50 us */

static void *rr_config(const char *const (*kv)[2], int n)
{
    const struct wl_ops *ops = wl_find("rr");
    assert_non_null(ops);
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct diag d = { 0 };
    for (int i = 0; i < n; i++)
        if (wl_config_set(ops, cfg, kv[i][0], kv[i][1], "t", 1, &d) != 0)
            fail_msg("%s", d.msg);
    return cfg;
}

/* Run rr with keys kv[n][2] after constant requests of 50 us of reference
 * work at load 0.02 (RR_OFFERED_RPS), the whole run measured; the world
 * stays for the caller (fx_free it). With cpufreq off the CPUs run below
 * the reference speed: a request takes about 170 us. */
static struct fx *rr_run(const char *const (*kv)[2], int n, struct rpt_metric_set *out)
{
    const char *const base[][2] = { { "load", "0.02" }, { "service_cv", "0" },
                                    { "warmup_ms", "0" }, { "duration_ms", "500" } };
    const char *all[8][2];
    memcpy(all, base, sizeof base);
    if (n > 0)
        memcpy(all[4], kv, (size_t)n * sizeof *kv);
    void *cfg = rr_config((const char *const (*)[2])all, 4 + n);
    const struct wl_ops *ops = wl_find("rr");
    char msg[200];
    assert_int_equal(ops->validate(cfg, msg, sizeof msg), 0);
    struct fx *f = fx_new_machine("machines/adl-desktop.ini", NULL, "", NULL, NULL, 0);
    if (ops->run(&f->w, cfg, 0, out, msg, sizeof msg) != 0)
        fail_msg("%s", msg);
    free(cfg);
    return f;
}

/* Requests over the window, from a rate in req/s. */
static double rr_count(const struct rpt_metric_set *m, const char *name)
{
    return fx_set_metric(m, name) * RR_WINDOW_MS / 1000.0;
}

/* At this load one worker per CPU always finds a sleeping worker (the
 * response is the service time); two workers are about 55 % busy (6,400/s x
 * 170 us / 2), so by Erlang C about 40 % of the requests find both busy and
 * wait (the mean response hardly moves here: busier CPUs exit shallower
 * idle states). Every request is one wake-up of a
 * worker and only the two workers were forked: the wake-ups are 2 + the
 * requests started, between those completed and those that arrived. */
static void test_pool_queues(void **state)
{
    (void)state;
    const char *const per_cpu[][2] = { { "server", "pool" } };
    struct rpt_metric_set m0 = { 0 };
    struct fx *f = rr_run(per_cpu, 1, &m0);
    assert_true(fx_set_metric(&m0, "pool_wait_pct") < 0.5);
    rpt_set_free(&m0);
    fx_free(f);
    const char *const two[][2] = { { "server", "pool" }, { "threads", "2" } };
    struct rpt_metric_set m = { 0 };
    f = rr_run(two, 2, &m);
    double wait = fx_set_metric(&m, "pool_wait_pct");
    assert_true(wait > 20 && wait < 70);
    assert_true(fabs(fx_set_metric(&m, "throughput_rps") / RR_OFFERED_RPS - 1) < 0.05);
    double wakeups = (double)f->w.sched.nr_wakeups - 2;
    assert_true(wakeups >= rr_count(&m, "throughput_rps") - 0.5);
    assert_true(wakeups <= rr_count(&m, "offered_rps") + 0.5);
    rpt_set_free(&m);
    fx_free(f);
}

/* One worker serves one request at a time: at 32,000/s (load 0.1) of 50 us
 * of reference work it would need to run faster than 1.5 x the reference
 * core, so the waiting requests overflow max_inflight. */
static void test_pool_one_thread_overloads(void **state)
{
    (void)state;
    const struct wl_ops *ops = wl_find("rr");
    const char *const kv[][2] = { { "server", "pool" }, { "threads", "1" },
                                  { "load", "0.1" }, { "service_cv", "0" },
                                  { "max_inflight", "64" } };
    void *cfg = rr_config(kv, 5);
    struct fx *f = fx_new_machine("machines/adl-desktop.ini", NULL, "", NULL, NULL, 0);
    struct rpt_metric_set m = { 0 };
    char msg[200];
    assert_int_equal(ops->run(&f->w, cfg, 0, &m, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "overloaded"));
    rpt_set_free(&m);
    free(cfg);
    fx_free(f);
}

/* The default forks one thread per request: a wake-up (wake_up_new_task)
 * for each arrival, no pool metric. */
static void test_fork_default(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    struct fx *f = rr_run(NULL, 0, &m);
    assert_null(rpt_set_get(&m, "pool_wait_pct"));
    assert_true(fabs((double)f->w.sched.nr_wakeups - rr_count(&m, "offered_rps")) < 0.5);
    rpt_set_free(&m);
    fx_free(f);
}

static void test_validate(void **state)
{
    (void)state;
    const struct wl_ops *ops = wl_find("rr");
    char msg[200];
    const char *const bad_server[][2] = { { "server", "prefork" } };
    void *cfg = rr_config(bad_server, 1);
    assert_int_equal(ops->validate(cfg, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "expected fork or pool"));
    free(cfg);
    const char *const fork_threads[][2] = { { "threads", "4" } };
    cfg = rr_config(fork_threads, 1);
    assert_int_equal(ops->validate(cfg, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "only server = pool"));
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_queues),
        cmocka_unit_test(test_pool_one_thread_overloads),
        cmocka_unit_test(test_fork_default),
        cmocka_unit_test(test_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
