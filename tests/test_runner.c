/* Runner: jobs over variant x replication x load point, combine() over load
 * points, and results independent of the number of threads and of which
 * variants run. Uses a test-only workload whose metric is a draw from the
 * job's own random stream. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"
#include "world.h"

struct fake_cfg {
    int npoints;
};

static int fake_npoints(const void *cfg)
{
    return ((const struct fake_cfg *)cfg)->npoints;
}

/* Metric "draw": a uniform from the job's arrival stream plus 10 x load point,
 * so both the stream and the point index are visible in the result. */
static int fake_run(struct world *w, const void *cfg, int point, struct rpt_metric_set *out,
                    char *msg, size_t msgsize)
{
    (void)cfg, (void)msg, (void)msgsize;
    double u = sim_rng_uniform(&w->rng[WORLD_STREAM_ARRIVAL]);
    rpt_set_put(out, "draw", "", RPT_HIGHER_BETTER, 10.0 * point + u);
    rpt_set_put(out, "timer", "", RPT_NEUTRAL, sim_rng_uniform(&w->rng[WORLD_STREAM_TIMERS]));
    return 0;
}

static void fake_combine(const void *cfg, const struct rpt_metric_set *pts, int n,
                         struct rpt_metric_set *out)
{
    (void)cfg;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += rpt_set_get(&pts[i], "draw")->value;
    rpt_set_put(out, "sum", "", RPT_HIGHER_BETTER, sum);
    rpt_set_put(out, "points", "", RPT_NEUTRAL, n);
    rpt_set_put(out, "timer", "", RPT_NEUTRAL, rpt_set_get(&pts[0], "timer")->value);
}

static const struct wl_param fake_params[] = { { NULL, 0, 0, 0, 0, NULL, NULL } };
static const struct wl_ops fake_ops = {
    .name = "fake", .desc = "test", .primary_metric = "sum", .params = fake_params,
    .config_size = sizeof(struct fake_cfg),
    .nload_points = fake_npoints, .run = fake_run, .combine = fake_combine,
};

static struct scenario *fake_scenario(struct fake_cfg *cfg, int nvariants)
{
    struct scenario *s = calloc(1, sizeof *s);
    struct diag d = { 0 };
    s->machine = hw_machine_load("machines/rpl-h.ini", &d);
    if (!s->machine)
        fail_msg("%s", d.msg);
    strcpy(s->name, "fake");
    s->seed = 99;
    s->replications = 4;
    s->wl = &fake_ops;
    s->wl_cfg = s->wl_cfg_quick = cfg;
    s->nvariants = nvariants;
    s->variants = calloc((size_t)nvariants, sizeof *s->variants);
    for (int v = 0; v < nvariants; v++) {
        snprintf(s->variants[v].name, sizeof s->variants[v].name, "v%d", v);
        kparams_init(&s->variants[v].kp);
    }
    return s;
}

static void fake_free(struct scenario *s)
{
    for (int v = 0; v < s->nvariants; v++)
        kparams_destroy(&s->variants[v].kp);
    free(s->variants);
    hw_machine_free(s->machine);
    free(s);
}

static void run_ok(const struct scenario *s, struct runner_opts *o, struct rpt_results *r)
{
    struct runner_stats st;
    char err[256];
    assert_int_equal(runner_run(s, o, r, &st, err, sizeof err), 0);
}

static void test_points_combined_and_thread_independent(void **state)
{
    (void)state;
    struct fake_cfg cfg = { .npoints = 3 };
    struct scenario *s = fake_scenario(&cfg, 3);
    struct runner_opts o1 = { .jobs = 1 }, o2 = { .jobs = 2 };
    struct rpt_results r1, r2;
    run_ok(s, &o1, &r1);
    run_ok(s, &o2, &r2);
    assert_int_equal(r1.nvariants, 3);
    assert_int_equal(r1.reps, 4);
    for (int v = 0; v < 3; v++) {
        const struct rpt_metric *a = rpt_variant_metric(&r1.variants[v], "sum");
        const struct rpt_metric *b = rpt_variant_metric(&r2.variants[v], "sum");
        assert_int_equal(a->n, 4);
        assert_float_equal(rpt_variant_metric(&r1.variants[v], "points")->mean, 3, 0);
        for (int rep = 0; rep < 4; rep++) {
            /* 0 + 10 + 20 plus three uniforms in [0, 1). */
            assert_true(a->values[rep] >= 30 && a->values[rep] < 33);
            assert_memory_equal(&a->values[rep], &b->values[rep], sizeof(double));
            if (rep > 0)
                assert_true(a->values[rep] != a->values[rep - 1]);
        }
    }
    /* Common random numbers: the workload's (arrival) stream is the same in
     * every variant, the system's (timers) is each variant's own. */
    for (int rep = 0; rep < 4; rep++) {
        assert_memory_equal(&rpt_variant_metric(&r1.variants[0], "sum")->values[rep],
                            &rpt_variant_metric(&r1.variants[1], "sum")->values[rep],
                            sizeof(double));
        assert_true(rpt_variant_metric(&r1.variants[0], "timer")->values[rep] !=
                    rpt_variant_metric(&r1.variants[1], "timer")->values[rep]);
    }
    assert_int_equal(r1.ncmp, 2 * 3);
    rpt_results_free(&r1);
    rpt_results_free(&r2);
    fake_free(s);
}

static void test_selected_variant_reproduces(void **state)
{
    (void)state;
    struct fake_cfg cfg = { .npoints = 2 };
    struct scenario *s = fake_scenario(&cfg, 3);
    int only[1] = { 2 };
    struct runner_opts all = { .jobs = 2 }, one = { .jobs = 1, .variants = only, .nvariants = 1 };
    struct rpt_results ra, r1;
    run_ok(s, &all, &ra);
    run_ok(s, &one, &r1);
    assert_int_equal(r1.nvariants, 1);
    assert_string_equal(r1.variants[0].name, "v2");
    assert_memory_equal(rpt_variant_metric(&ra.variants[2], "sum")->values,
                        rpt_variant_metric(&r1.variants[0], "sum")->values, 4 * sizeof(double));
    assert_int_equal(r1.ncmp, 0);
    rpt_results_free(&ra);
    rpt_results_free(&r1);
    fake_free(s);
}

static void test_seed_override(void **state)
{
    (void)state;
    struct fake_cfg cfg = { .npoints = 1 };
    struct scenario *s = fake_scenario(&cfg, 1);
    struct runner_opts a = { .jobs = 1 }, b = { .jobs = 1, .seed_set = true, .seed = 100 };
    struct rpt_results ra, rb;
    run_ok(s, &a, &ra);
    run_ok(s, &b, &rb);
    assert_int_equal(ra.seed, 99);
    assert_int_equal(rb.seed, 100);
    assert_true(ra.variants[0].metrics[0].values[0] != rb.variants[0].metrics[0].values[0]);
    rpt_results_free(&ra);
    rpt_results_free(&rb);
    fake_free(s);
}

/* The primary metric: the workload's headline, --primary's choice, or bad
 * input when the run has no such metric. */
static void test_primary_metric(void **state)
{
    (void)state;
    struct fake_cfg cfg = { .npoints = 1 };
    struct scenario *s = fake_scenario(&cfg, 2);
    struct runner_opts o = { .jobs = 1, .reps = 2 };
    struct rpt_results r;
    run_ok(s, &o, &r);
    assert_string_equal(r.primary, "sum");
    rpt_results_free(&r);
    o.primary = "points";
    run_ok(s, &o, &r);
    assert_string_equal(r.primary, "points");
    rpt_results_free(&r);
    o.primary = "nosuch";
    struct runner_stats st;
    char err[256];
    assert_int_equal(runner_run(s, &o, &r, &st, err, sizeof err), RUNNER_BAD_PRIMARY);
    assert_string_equal(err, "--primary: the fake workload reports no metric 'nosuch' (its "
                             "headline is sum)");
    fake_free(s);
    /* Each shipped workload's headline, as its benchmark quotes it. */
    static const char *const headline[][2] = {
        { "jbb", "critical_jops" }, { "rr", "lat_p99_us" },       { "fio", "read_mbps" },
        { "netrr", "trans_per_s" }, { "compute", "single_score" },
    };
    for (size_t i = 0; i < sizeof headline / sizeof headline[0]; i++)
        assert_string_equal(wl_find(headline[i][0])->primary_metric, headline[i][1]);
}

/* Progress (issue 27 item 12): no estimate before a run has finished (was
 * "ETA 0 s"), then the finished runs' mean wall time over the runs left and
 * the threads; a warning once the estimate passes an hour. */
static void test_progress_eta(void **state)
{
    (void)state;
    char line[256];
    struct runner_progress p = { .done = 0, .total = 2000, .nthreads = 2, .elapsed_s = 8 };
    assert_true(runner_eta_s(&p) < 0);
    runner_progress_line(&p, "x", line, sizeof line);
    assert_string_equal(line, "x: 0/2000 runs, 8.0 s elapsed, ETA after the first run");
    assert_false(runner_long_run_warning(&p, "x", line, sizeof line));
    p = (struct runner_progress){ .done = 4, .total = 2000, .nthreads = 2, .elapsed_s = 10,
                                  .done_wall_s = 20 };
    /* 5 s a run, 1996 runs left, 2 threads: 4990 s */
    assert_float_equal(runner_eta_s(&p), 4990, 1e-9);
    runner_progress_line(&p, "x", line, sizeof line);
    assert_string_equal(line, "x: 4/2000 runs, 10.0 s elapsed, ETA 83 min");
    assert_true(runner_long_run_warning(&p, "x", line, sizeof line));
    assert_non_null(strstr(line, "warning: x: at 5 s a run, the 1996 runs left will take about "
                                 "83 min more on 2 threads"));
    /* The last run on its own: one thread's worth, not two. */
    p = (struct runner_progress){ .done = 3, .total = 4, .nthreads = 2, .done_wall_s = 3 };
    assert_float_equal(runner_eta_s(&p), 1, 1e-12);
    assert_false(runner_long_run_warning(&p, "x", line, sizeof line));
    p = (struct runner_progress){ .done = 1, .total = 1001, .nthreads = 1, .done_wall_s = 300 };
    runner_progress_line(&p, "x", line, sizeof line);
    assert_string_equal(line, "x: 1/1001 runs, 0.0 s elapsed, ETA 3 days");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_combined_and_thread_independent),
        cmocka_unit_test(test_selected_variant_reproduces),
        cmocka_unit_test(test_seed_override),
        cmocka_unit_test(test_primary_metric),
        cmocka_unit_test(test_progress_eta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
