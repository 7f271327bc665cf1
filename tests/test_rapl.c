/* test_rapl: the per-package energy counters (src/hw/cpu.c), and package
 * power limits (src/hw/rapl.c and its cpufreq hook) on
 * tests/data/machines/rapl-test.ini: four cores that draw 62 W at their
 * 4 GHz maximum, PL1 30 W, PL2 45 W, tau 0.2 s. Four tasks keep every core
 * busy under the performance governor, so without limits the package draws
 * 62 W; with them it must hold PL2 over short windows at first, then settle
 * at PL1 once the average over tau has reached it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define RAPL_TEST_MACHINE "tests/data/machines/rapl-test.ini"
#define NTASKS 4

/* The test machine under the performance governor, with its [rapl] limits
 * or (limits = false) without any. */
static struct fx *rfx_new(bool limits)
{
    struct fx *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load(RAPL_TEST_MACHINE, &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    if (!limits)
        f->m->rapl = (struct hw_power_limits){ 0 };
    kparams_init(&f->kp);
    fx_apply(&f->kp, "cpufreq.default_governor=performance", kparams_set_cmdline);
    struct world_key key = { .seed = 5 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

static void spin_done(struct world *w, struct task *t)
{
    (void)w;
    (void)t;
}

/* Start NTASKS tasks with far more work than any test runs. */
static void start_load(struct fx *f, struct task *tasks)
{
    for (int i = 0; i < NTASKS; i++) {
        task_init(&tasks[i], spin_done, i);
        sched_wake_task(&f->w, &tasks[i], 1000.0 * SIM_NS_PER_S, i);
    }
}

/* Mean package power over the next window_ns, W. */
static double run_window_w(struct fx *f, sim_time_t window_ns)
{
    sim_time_t t0 = f->w.q.now_ns;
    double e0 = hw_pkg_energy_mw_ns(&f->w.hw, 0, t0);
    world_run_until(&f->w, t0 + window_ns);
    double e1 = hw_pkg_energy_mw_ns(&f->w.hw, 0, f->w.q.now_ns);
    return (e1 - e0) / (double)window_ns / 1000.0;
}

/* The per-package energy counters add up to the machine's energy, and the
 * package that ran the work used more. skx-2s, 20 ms of work on cpu0. */
static void test_pkg_energy_counters(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe pr = { 0 };
    task_init(&pr.t, probe_done, 0);
    sched_wake_task(&f->w, &pr.t, 20.0 * SIM_NS_PER_MS, pr.t.prev_cpu);
    world_run_until(&f->w, 50 * SIM_NS_PER_MS);
    assert_true(pr.done_ns > 0);
    double e0 = hw_pkg_energy_mw_ns(&f->w.hw, 0, f->w.q.now_ns);
    double e1 = hw_pkg_energy_mw_ns(&f->w.hw, 1, f->w.q.now_ns);
    assert_true(e0 > e1 && e1 > 0);
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);   /* the window started at time 0 */
    double watts = rpt_set_get(&s, "pkg_watts")->value;
    rpt_set_free(&s);
    assert_float_equal((e0 + e1) / (50.0 * SIM_NS_PER_MS) / 1000.0, watts, watts * 1e-9);
    fx_free(f);
}

/* Without limits nothing is clamped: 62 W at 4 GHz throughout. */
static void test_unlimited(void **state)
{
    (void)state;
    struct fx *f = rfx_new(false);
    struct task tasks[NTASKS];
    start_load(f, tasks);
    world_run_until(&f->w, 100 * SIM_NS_PER_MS);
    world_measure_reset(&f->w);
    assert_float_equal(run_window_w(f, 1 * SIM_NS_PER_S), 62.0, 0.1);
    for (int c = 0; c < f->m->ncores; c++)
        assert_int_equal(f->w.hw.core_mhz[c], 4000);
    assert_float_equal(fx_metric(f, "rapl_throttle_pct"), 0.0, 0);
    fx_free(f);
}

/* The first tau: turbo up to PL2, never far above it in any 10 ms window
 * (after the first, which may exceed it: "for up to 10 ms"), and not far
 * below either: the budget allows PL2 while the average is under PL1. */
static void test_pl2_bounds_short_windows(void **state)
{
    (void)state;
    struct fx *f = rfx_new(true);
    struct task tasks[NTASKS];
    start_load(f, tasks);
    world_run_until(&f->w, 20 * SIM_NS_PER_MS);
    double lo = 1e9, hi = 0;
    for (int i = 0; i < 15; i++) {  /* 20 .. 170 ms: the average stays below PL1 */
        double w = run_window_w(f, 10 * SIM_NS_PER_MS);
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
    }
    assert_true(hi <= 45.0 * 1.02);
    assert_true(lo >= 45.0 * 0.85);
    assert_true(f->w.cpufreq.rapl.pkg[0].avg_mw < 30000);
    fx_free(f);
}

/* Sustained: after several tau the package power and the controller's
 * average sit at PL1 within a few %, and the limit holds the cores below the
 * 4 GHz the governor asks for all along. */
static void test_pl1_settles(void **state)
{
    (void)state;
    struct fx *f = rfx_new(true);
    struct task tasks[NTASKS];
    start_load(f, tasks);
    world_run_until(&f->w, 5 * 200 * SIM_NS_PER_MS);
    world_measure_reset(&f->w);
    double w = run_window_w(f, 3 * 200 * SIM_NS_PER_MS);
    assert_true(fabs(w - 30.0) <= 30.0 * 0.03);
    assert_true(fabs(f->w.cpufreq.rapl.pkg[0].avg_mw - 30000) <= 30000 * 0.03);
    assert_float_equal(fx_metric(f, "pkg_watts"), w, 1e-6);
    assert_true(fx_metric(f, "rapl_throttle_pct") > 99.0);
    for (int c = 0; c < f->m->ncores; c++) {
        assert_true(f->w.hw.core_mhz[c] < 4000);
        assert_int_equal(f->w.cpufreq.rapl.want_mhz[c], 4000);
    }
    fx_free(f);
}

/* Back under the limits, the ceiling is lifted: once the tasks are done the
 * idle package is far below budget and the cores return to what the
 * governor chose; the throttled time stops growing. */
static void test_recovers(void **state)
{
    (void)state;
    struct fx *f = rfx_new(true);
    struct task tasks[NTASKS];
    for (int i = 0; i < NTASKS; i++) {   /* ~0.5 s at the clamped frequencies */
        task_init(&tasks[i], spin_done, i);
        sched_wake_task(&f->w, &tasks[i], 0.8 * SIM_NS_PER_S, i);
    }
    world_run_until(&f->w, 400 * SIM_NS_PER_MS);
    const struct hw_rapl_pkg *pp = &f->w.cpufreq.rapl.pkg[0];
    assert_true(pp->ceiling_mhz[0] > 0 && pp->nclamped == NTASKS);
    world_run_until(&f->w, 800 * SIM_NS_PER_MS);
    for (int i = 0; i < NTASKS; i++)
        assert_false(sim_event_pending(&tasks[i].done_ev));
    assert_int_equal(pp->ceiling_mhz[0], 0);
    assert_int_equal(pp->nclamped, 0);
    for (int c = 0; c < f->m->ncores; c++)
        assert_int_equal(f->w.hw.core_mhz[c], 4000);
    world_measure_reset(&f->w);
    world_run_until(&f->w, 900 * SIM_NS_PER_MS);
    assert_float_equal(fx_metric(f, "rapl_throttle_pct"), 0.0, 0);
    fx_free(f);
}

/* ---- package states: depth limit and exit power (src/hw/cpu.c) ---------- */

#define PKG_LIMIT_MACHINE "tests/data/machines/pkg-limit.ini"

/* tests/data/machines/pkg-limit.ini's hardware with every thread idle in C6
 * at time 1 us: the package in PC6. */
static struct hw_machine *pkg_idle(struct hw_state *hw)
{
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load(PKG_LIMIT_MACHINE, &d);
    if (!m)
        fail_msg("%s", d.msg);
    hw_state_init(hw, m);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        hw_thread_set_mode(hw, cpu, HW_THREAD_IDLE, hw_cstate_index(&m->types[0], "C6"), 1000);
    return m;
}

/* A depth limit holds the package at the state named while set, and only
 * then: PC6 (200 mW) without it, PC3 (400 mW) under a PC3 limit, PC6 again
 * once it is lifted. */
static void test_pkg_depth_limit(void **state)
{
    (void)state;
    struct hw_state hw;
    struct hw_machine *m = pkg_idle(&hw);
    assert_int_equal(hw.pkg[0].pkgstate, 2);
    assert_float_equal(hw.pkg[0].power_mw, 200, 0);
    hw_pkg_set_depth_limit(&hw, 0, 1, 2000);
    assert_int_equal(hw.pkg[0].pkgstate, 1);
    assert_float_equal(hw.pkg[0].power_mw, 400, 0);
    hw_pkg_set_depth_limit(&hw, 0, m->npkgstates - 1, 3000);
    assert_int_equal(hw.pkg[0].pkgstate, 2);
    assert_float_equal(hw.pkg[0].power_mw, 200, 0);
    /* 1 us in PC6, 1 us in PC3, then PC6 again. */
    assert_int_equal(hw.pkg[0].pkgstate_ns[1], 1000);
    hw_state_destroy(&hw);
    hw_machine_free(m);
}

/* Leaving PC6: until a core runs, the package draws PC6's 200 mW plus half
 * the way to PC0's 1000 mW (exit_ramp_ratio 0.5), not PC0's; the waking
 * core C6's 5 mW plus half the way to C1's 500 mW. Once the thread runs,
 * both draw their active power. */
static void test_exit_power(void **state)
{
    (void)state;
    struct hw_state hw;
    struct hw_machine *m = pkg_idle(&hw);
    int c6 = hw_cstate_index(&m->types[0], "C6");
    hw_thread_set_mode(&hw, 0, HW_THREAD_WAKE, c6, 2000);
    assert_int_equal(hw.pkg[0].pkgstate, -1);
    assert_float_equal(hw.pkg[0].power_mw, 200 + 0.5 * (1000 - 200), 1e-9);
    assert_float_equal(hw.core[0].power_mw, 5 + 0.5 * (500 - 5), 1e-9);
    hw_thread_set_mode(&hw, 0, HW_THREAD_RUN, 0, 3000);
    assert_float_equal(hw.pkg[0].power_mw, 1000, 0);
    assert_float_equal(hw.core[0].power_mw, hw_core_active_power_mw(&m->types[0], 2000), 1e-9);
    /* Back to idle and out again, now from PC3 under a limit: PC3's power
     * is where the exit starts. */
    hw_thread_set_mode(&hw, 0, HW_THREAD_IDLE, c6, 4000);
    hw_pkg_set_depth_limit(&hw, 0, 1, 4000);
    assert_int_equal(hw.pkg[0].pkgstate, 1);
    hw_thread_set_mode(&hw, 1, HW_THREAD_WAKE, c6, 5000);
    assert_float_equal(hw.pkg[0].power_mw, 400 + 0.5 * (1000 - 400), 1e-9);
    hw_state_destroy(&hw);
    hw_machine_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pkg_energy_counters),
        cmocka_unit_test(test_unlimited),
        cmocka_unit_test(test_pl2_bounds_short_windows),
        cmocka_unit_test(test_pl1_settles),
        cmocka_unit_test(test_recovers),
        cmocka_unit_test(test_pkg_depth_limit),
        cmocka_unit_test(test_exit_power),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
