/* The per-CPU view (turbostat --cpu): with report_cpus set, a world reports
 * the per-thread metrics again over those CPUs as cpus.*; over every CPU they
 * are the host-wide numbers to the bit (one code path), and a busy pinned
 * task shows as ~100 % busy on its CPU and ~1/ncpus of that host-wide. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world_fixture.h"

/* skx-2s, menu on intel_idle: a world with cpuidle states. */
static struct fx *fixture_new(const char *cmdline)
{
    return fx_new(cmdline ? cmdline : "spectre_v2=retpoline", NULL);
}

/* A task pinned to cpu that runs for the whole window: woken at 0, the window
 * is [100 us, 1.1 ms], its work lasts 10 ms. */
static void run_pinned_busy(struct fx *f, struct probe *p, int cpu)
{
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    sched_wake_task(&f->w, &p->t, 10 * SIM_NS_PER_MS, p->t.prev_cpu);
    world_run_until(&f->w, 100 * SIM_NS_PER_US);
    world_measure_reset(&f->w);
    world_run_until(&f->w, 1100 * SIM_NS_PER_US);
}

static void test_busy_pinned_cpu(void **state)
{
    (void)state;
    struct fx *f = fixture_new(NULL);
    int ncpus = f->m->ncpus;
    bool *cpus = calloc((size_t)ncpus, sizeof *cpus);
    cpus[2] = true;
    f->w.report_cpus = cpus;
    struct probe p = { 0 };
    run_pinned_busy(f, &p, 2);
    assert_float_equal(fx_metric(f, "cpus.busy_pct"), 100, 1e-9);
    assert_float_equal(fx_metric(f, "cpus.poll_pct"), 0, 1e-12);
    assert_float_equal(fx_metric(f, "cpus.avg_mhz"), fx_metric(f, "cpus.bzy_mhz"), 1e-6);
    for (int s = 0; s < f->w.idle.drv.state_count; s++) {
        char name[RPT_NAME_MAX];
        snprintf(name, sizeof name, "cpus.residency.%s", f->w.idle.drv.states[s].name);
        assert_float_equal(fx_metric(f, name), 0, 1e-12);
    }
    /* cpu2 never entered idle in the window: no entries to count; the idle
     * CPUs stop their tick on most entries (nohz). */
    assert_float_equal(fx_metric(f, "cpus.tick_stopped_pct"), 0, 0);
    assert_float_equal(fx_metric(f, "cpus.above_pct"), 0, 0);
    assert_true(fx_metric(f, "tick_stopped_pct") > 50);
    /* Host-wide: cpu2's 100 % over all CPUs, plus the other CPUs' timer
     * interrupts (a few per CPU in 1 ms, about 1 us each). */
    double host = fx_metric(f, "busy_pct");
    assert_true(host >= 100.0 / ncpus && host < 100.0 / ncpus + 0.05);
    /* No per-CPU name for core, package and power quantities. */
    assert_true(isnan(fx_metric(f, "cpus.pkg_watts")));
    assert_true(isnan(fx_metric(f, "cpus.core_residency.C6")));
    assert_true(isnan(fx_metric(f, "cpus.pkg_residency.PC6")));
    /* The other CPUs idle: over them, almost no busy time. */
    memset(cpus, 1, (size_t)ncpus * sizeof *cpus);
    cpus[2] = false;
    assert_true(fx_metric(f, "cpus.busy_pct") < 0.05);
    assert_float_equal(fx_metric(f, "busy_pct"), host, 0);
    fx_free(f);
    free(cpus);
}

/* Every host-wide per-thread metric, and its cpus.* twin over all CPUs. */
static void check_all_cpus_equal_host(struct fx *f)
{
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);
    int twins = 0;
    for (int i = 0; i < s.n; i++) {
        const char *name = s.m[i].name;
        if (strncmp(name, RPT_CPUS_PREFIX, strlen(RPT_CPUS_PREFIX)) != 0)
            continue;
        const struct rpt_metric_value *host = rpt_set_get(&s, name + strlen(RPT_CPUS_PREFIX));
        if (!host)
            fail_msg("%s has no host-wide twin", name);
        if (memcmp(&host->value, &s.m[i].value, sizeof host->value) != 0)
            fail_msg("%s = %.17g, %s = %.17g", name, s.m[i].value, host->name, host->value);
        twins++;
    }
    /* busy, poll, avg/bzy MHz, tick, above/below and a residency per state */
    assert_true(twins >= 8);
    rpt_set_free(&s);
}

static void test_all_cpus_is_host(void **state)
{
    (void)state;
    static const char *const cmdlines[] = { "spectre_v2=retpoline",
                                            "spectre_v2=retpoline cpuidle.off=1",
                                            "spectre_v2=retpoline idle=poll" };
    for (size_t c = 0; c < sizeof cmdlines / sizeof cmdlines[0]; c++) {
        struct fx *f = fixture_new(cmdlines[c]);
        bool *cpus = malloc((size_t)f->m->ncpus * sizeof *cpus);
        memset(cpus, 1, (size_t)f->m->ncpus * sizeof *cpus);
        f->w.report_cpus = cpus;
        struct probe p = { 0 };
        run_pinned_busy(f, &p, 5);
        check_all_cpus_equal_host(f);
        fx_free(f);
        free(cpus);
    }
}

/* Without report_cpus, no cpus.* metric. */
static void test_no_cpus_no_metrics(void **state)
{
    (void)state;
    struct fx *f = fixture_new(NULL);
    struct probe p = { 0 };
    run_pinned_busy(f, &p, 2);
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);
    for (int i = 0; i < s.n; i++)
        assert_int_not_equal(strncmp(s.m[i].name, RPT_CPUS_PREFIX, strlen(RPT_CPUS_PREFIX)), 0);
    rpt_set_free(&s);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_pinned_cpu),
        cmocka_unit_test(test_all_cpus_is_host),
        cmocka_unit_test(test_no_cpus_no_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
