/* cyclictest: the wake-up latency comes out of the idle path, not a formula.
 * A deeper state's samples are slower, the wult split accounts for every
 * sample, limiting the states removes the deep samples, and the governor
 * sees the thread's timer (a sleep shorter than C6's target residency never
 * gets C6). adl-desktop, cpufreq off, a short window. */
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

struct ct_result {
    struct rpt_metric_set m;
};

/* Run cyclictest with keys kv[n][2] under cmdline on adl-desktop, its
 * threads SCHED_FIFO 99 (cyclictest -p99, the usual run) unless kv says. */
static void ct_run(const char *cmdline, const char *const (*kv)[2], int n, struct rpt_metric_set *out)
{
    const struct wl_ops *ops = wl_find("cyclictest");
    assert_non_null(ops);
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct diag d = { 0 };
    assert_int_equal(wl_config_set(ops, cfg, "duration_ms", "100", "t", 1, &d), 0);
    assert_int_equal(wl_config_set(ops, cfg, "priority", "99", "t", 1, &d), 0);
    for (int i = 0; i < n; i++)
        if (wl_config_set(ops, cfg, kv[i][0], kv[i][1], "t", 1, &d) != 0)
            fail_msg("%s", d.msg);
    struct fx *f = fx_new_machine("machines/adl-desktop.ini", NULL, cmdline, NULL, NULL, 0);
    char msg[128];
    assert_int_equal(ops->run(&f->w, cfg, 0, out, msg, sizeof msg), 0);
    fx_free(f);
    free(cfg);
}

static double metric(const struct rpt_metric_set *m, const char *name)
{
    const struct rpt_metric_value *v = rpt_set_get(m, name);
    return v ? v->value : NAN;
}

static const struct rpt_series *series(const struct rpt_metric_set *m, const char *name)
{
    for (int i = 0; i < m->nseries; i++)
        if (strcmp(m->series[i].name, name) == 0)
            return &m->series[i];
    fail_msg("no series %s", name);
    return NULL;
}

/* Mean latency of state idx's samples (its wake_latency_by_cstate row). */
static double state_mean_us(const struct rpt_series *s, int idx)
{
    for (int r = 0; r < s->nrows; r++)
        if (s->rows[r * s->ncols] == idx)
            return s->rows[r * s->ncols + 3];
    fail_msg("no row for state %d", idx);
    return NAN;
}

/* Samples of a deeper state take longer: mean latency rises with the state
 * index over the states that have samples, and the deep ones exceed their
 * hardware exit latency's order (C6 > 50 us against C1E's few us). */
static void test_deeper_state_slower(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    ct_run("cpuidle.governor=menu", NULL, 0, &m);
    const struct rpt_series *s = series(&m, "wake_latency_by_cstate");
    double prev = -1;
    int with_samples = 0;
    for (int r = 0; r < s->nrows; r++) {
        const double *row = &s->rows[r * s->ncols];
        if (row[0] < 0 || row[1] == 0)
            continue; /* busy, or no samples */
        with_samples++;
        assert_true(row[3] > prev);
        prev = row[3];
    }
    assert_true(with_samples >= 2);
    assert_true(state_mean_us(s, 1) < 10);  /* C1E */
    assert_true(state_mean_us(s, 2) > 50);  /* C6 */
    assert_true(metric(&m, "lat_max_us") >= metric(&m, "lat_p99_us"));
    assert_true(metric(&m, "lat_p99_us") >= metric(&m, "lat_p50_us"));
    assert_true(metric(&m, "lat_p50_us") >= metric(&m, "lat_min_us"));
    rpt_set_free(&m);
}

/* wult's split accounts for every sample, and so does the histogram. */
static void test_split_sums_to_samples(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    ct_run("cpuidle.governor=teo", NULL, 0, &m);
    double samples = metric(&m, "samples");
    /* 24 threads (one per CPU) for 100 ms at 1 ms: about 2400 samples. */
    assert_true(samples > 2300 && samples <= 2400 + 24);
    const struct rpt_series *s = series(&m, "wake_latency_by_cstate");
    double n = 0, share = 0;
    for (int r = 0; r < s->nrows; r++) {
        n += s->rows[r * s->ncols + 1];
        share += s->rows[r * s->ncols + 2];
    }
    assert_true(n == samples);
    assert_true(fabs(share - 100) < 1e-9);
    const struct rpt_series *h = series(&m, "latency_hist");
    double in_hist = metric(&m, "hist_overflows");
    for (int r = 0; r < h->nrows; r++)
        in_hist += h->rows[r * h->ncols + 1];
    assert_true(in_hist == samples);
    rpt_set_free(&m);
}

/* intel_idle.max_cstate=2 leaves POLL and C1E: no deep-state samples, and
 * every latency within a C1E exit and the wake-up path. */
static void test_max_cstate_removes_deep_samples(void **state)
{
    (void)state;
    struct rpt_metric_set deep = { 0 }, shallow = { 0 };
    ct_run("cpuidle.governor=menu", NULL, 0, &deep);
    ct_run("cpuidle.governor=menu intel_idle.max_cstate=2", NULL, 0, &shallow);
    assert_true(metric(&deep, "wake_share.C6") + metric(&deep, "wake_share.C8") > 10);
    assert_true(isnan(metric(&shallow, "wake_share.C6")));
    assert_true(metric(&shallow, "wake_share.POLL") + metric(&shallow, "wake_share.C1E") +
                    metric(&shallow, "wake_share.busy") == 100);
    assert_true(metric(&shallow, "lat_max_us") < 10);
    assert_true(metric(&shallow, "lat_avg_us") < metric(&deep, "lat_avg_us") / 5);
    rpt_set_free(&deep);
    rpt_set_free(&shallow);
}

/* clock_nanosleep's timer slack: SCHED_OTHER threads (no -p) get the
 * default 50 us (hrtimer_nanosleep), so no sample is under it; SCHED_FIFO
 * threads get none. POLL and C1E only, so the exit adds a few us at most. */
static void test_timer_slack_without_rt(void **state)
{
    (void)state;
    static const char *const other[][2] = { { "priority", "0" } };
    struct rpt_metric_set fifo = { 0 }, fair = { 0 };
    ct_run("intel_idle.max_cstate=2", NULL, 0, &fifo);
    ct_run("intel_idle.max_cstate=2", other, 1, &fair);
    assert_true(metric(&fifo, "lat_max_us") < 10);
    assert_true(metric(&fair, "lat_min_us") >= 50);
    assert_true(metric(&fair, "lat_max_us") < 60);
    rpt_set_free(&fifo);
    rpt_set_free(&fair);
}

/* The governor sees the thread's timer: a 300 us sleep is shorter than C6's
 * 600 us target residency, so neither governor ever picks C6 or deeper. */
static void test_governor_sees_timer(void **state)
{
    (void)state;
    static const char *const kv[][2] = { { "interval_us", "300" } };
    const char *govs[] = { "cpuidle.governor=menu", "cpuidle.governor=teo" };
    for (int g = 0; g < 2; g++) {
        struct rpt_metric_set m = { 0 };
        ct_run(govs[g], kv, 1, &m);
        assert_true(metric(&m, "samples") > 1000);
        assert_true(metric(&m, "wake_share.C6") == 0);
        assert_true(metric(&m, "wake_share.C8") == 0);
        assert_true(metric(&m, "wake_share.C10") == 0);
        rpt_set_free(&m);
    }
}

/* Pinned threads on the CPUs of the affinity: two threads at 1 ms and
 * 1.5 ms (distance) give the expected sample counts. */
static void test_threads_and_distance(void **state)
{
    (void)state;
    static const char *const kv[][2] = { { "threads", "2" }, { "distance_us", "500" },
                                         { "warmup_ms", "0" } };
    struct rpt_metric_set m = { 0 };
    ct_run("cpuidle.governor=menu", kv, 3, &m);
    /* The threads start a few us in (fork and wake-up), so in 100 ms the
     * 1 ms thread sees 99 expiries and the 1.5 ms one 66. */
    assert_true(metric(&m, "samples") == 99 + 66);
    rpt_set_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deeper_state_slower),
        cmocka_unit_test(test_split_sums_to_samples),
        cmocka_unit_test(test_max_cstate_removes_deep_samples),
        cmocka_unit_test(test_governor_sees_timer),
        cmocka_unit_test(test_timer_slack_without_rt),
        cmocka_unit_test(test_threads_and_distance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
