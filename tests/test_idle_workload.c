/* The idle workload: the interrupt rates given come out of the idle loop
 * (per CPU where a list says so, the same everywhere for one value), the
 * default keeps pmlab's background timer rate, device interrupts surprise
 * the governor where timers do not, and bad rates are refused.
 * adl-desktop (24 CPUs), cpufreq off. */
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

#define IW_WINDOW_S 10.0

/* Run the idle workload with keys kv[n][2] (10 s window, no warm-up) on
 * adl-desktop; the world stays for the caller to read (fx_free it). */
static struct fx *iw_run(const char *const (*kv)[2], int n, struct rpt_metric_set *out)
{
    const struct wl_ops *ops = wl_find("idle");
    assert_non_null(ops);
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct diag d = { 0 };
    assert_int_equal(wl_config_set(ops, cfg, "duration_ms", "10000", "t", 1, &d), 0);
    assert_int_equal(wl_config_set(ops, cfg, "warmup_ms", "0", "t", 1, &d), 0);
    for (int i = 0; i < n; i++)
        if (wl_config_set(ops, cfg, kv[i][0], kv[i][1], "t", 1, &d) != 0)
            fail_msg("%s", d.msg);
    struct fx *f = fx_new_machine("machines/adl-desktop.ini", NULL, "", NULL, NULL, 0);
    const char *bad = NULL;
    char msg[200];
    assert_int_equal(wl_config_check_cpus(ops, cfg, f->m->ncpus, &bad, msg, sizeof msg), 0);
    assert_int_equal(ops->run(&f->w, cfg, 0, out, msg, sizeof msg), 0);
    free(cfg);
    return f;
}

static double timer_hz_of(const struct fx *f, int cpu)
{
    return (double)f->w.idle.cpu[cpu].nr_timer_irqs / IW_WINDOW_S;
}

/* A per-CPU list: CPU 0 at 50/s, CPU 1 none, the rest at 5/s, each within
 * Poisson noise (4 standard deviations); one device rate for all. */
static void test_per_cpu_rates(void **state)
{
    (void)state;
    char list[512] = "50 0";
    for (int cpu = 2; cpu < 24; cpu++)
        strcat(list, " 5");
    const char *const kv[][2] = { { "timer_hz", list }, { "device_hz", "20" } };
    struct rpt_metric_set m = { 0 };
    struct fx *f = iw_run(kv, 2, &m);
    assert_true(fabs(timer_hz_of(f, 0) - 50) < 4 * sqrt(50 / IW_WINDOW_S));
    assert_int_equal(f->w.idle.cpu[1].nr_timer_irqs, 0);
    double rest = 0;
    uint64_t dev = 0;
    for (int cpu = 2; cpu < 24; cpu++)
        rest += timer_hz_of(f, cpu) / 22;
    for (int cpu = 0; cpu < 24; cpu++)
        dev += f->w.idle.cpu[cpu].nr_device_irqs;
    assert_true(fabs(rest - 5) < 4 * sqrt(5 / IW_WINDOW_S / 22));
    assert_true(fabs((double)dev / IW_WINDOW_S / 24 - 20) < 4 * sqrt(20 / IW_WINDOW_S / 24));
    assert_true(fabs(fx_set_metric(&m, "device_irqs_per_s") - 20) < 4 * sqrt(20 / IW_WINDOW_S / 24));
    /* LOC counts the timers and any tick that woke an idle CPU. */
    double timers = (50 + 22 * rest) / 24;
    assert_true(fx_set_metric(&m, "loc_per_s") >= timers - 0.5);
    fx_free(f);
    rpt_set_free(&m);
}

/* timer_hz unset: pmlab's background, one timer per 118 ms (8.47/s). */
static void test_default_rate(void **state)
{
    (void)state;
    struct rpt_metric_set m = { 0 };
    struct fx *f = iw_run(NULL, 0, &m);
    double all = 0;
    for (int cpu = 0; cpu < 24; cpu++)
        all += timer_hz_of(f, cpu) / 24;
    assert_true(fabs(all - 1000.0 / 118) < 4 * sqrt(8.47 / IW_WINDOW_S / 24));
    assert_true(fx_set_metric(&m, "device_irqs_per_s") == 0);
    fx_free(f);
    rpt_set_free(&m);
}

/* The same wake-up rate as device interrupts instead of timers: the
 * governor no longer sees the wake-up coming, so more of its choices are
 * too deep (above) and less time goes to the deepest state. */
static void test_device_irqs_unannounced(void **state)
{
    (void)state;
    const char *const timers[][2] = { { "timer_hz", "300" }, { "device_hz", "0" } };
    const char *const devices[][2] = { { "timer_hz", "0" }, { "device_hz", "300" } };
    struct rpt_metric_set mt = { 0 }, md = { 0 };
    fx_free(iw_run(timers, 2, &mt));
    fx_free(iw_run(devices, 2, &md));
    assert_true(fx_set_metric(&md, "above_pct") > fx_set_metric(&mt, "above_pct") + 1);
    rpt_set_free(&mt);
    rpt_set_free(&md);
}

/* idle_entries_per_s and usage_pct.<state> are the cpuidle usage counters'
 * growth, as sysfs after minus before gives them on a host: entries per CPU
 * per second of the window (about one per interrupt), and each
 * state's share of them, adding up to 100. */
static void test_idle_entries(void **state)
{
    (void)state;
    const char *const kv[][2] = { { "timer_hz", "50" }, { "device_hz", "5" } };
    struct rpt_metric_set m = { 0 };
    struct fx *f = iw_run(kv, 2, &m);
    const struct idle_sys *is = &f->w.idle;
    uint64_t all = 0, per_state[CPUIDLE_STATE_MAX] = { 0 };
    for (int cpu = 0; cpu < 24; cpu++)
        for (int i = 0; i < is->drv.state_count; i++) {
            uint64_t u = is->dev[cpu].states_usage[i].usage - is->cpu[cpu].base[i].usage;
            per_state[i] += u;
            all += u;
        }
    double entries = fx_set_metric(&m, "idle_entries_per_s");
    assert_true(fabs(entries - (double)all / IW_WINDOW_S / 24) < 1e-9 * entries);
    /* About one entry per interrupt: one that lands while its CPU is awake
     * for another starts none. */
    double irqs = fx_set_metric(&m, "loc_per_s") + fx_set_metric(&m, "device_irqs_per_s");
    assert_true(entries > 0.9 * irqs && entries < 1.1 * irqs);
    double sum = 0;
    char key[RPT_NAME_MAX];
    for (int i = 0; i < is->drv.state_count; i++) {
        snprintf(key, sizeof key, "usage_pct.%s", is->drv.states[i].name);
        double pct = fx_set_metric(&m, key);
        assert_true(fabs(pct - 100.0 * (double)per_state[i] / (double)all) < 1e-9);
        sum += pct;
    }
    assert_true(fabs(sum - 100) < 1e-9);
    fx_free(f);
    rpt_set_free(&m);
}

/* A negative rate, a word that is no number, a list of the wrong length. */
static void test_bad_rates(void **state)
{
    (void)state;
    const struct wl_ops *ops = wl_find("idle");
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct diag d = { 0 };
    assert_int_equal(wl_config_set(ops, cfg, "timer_hz", "-1", "f.ini", 7, &d), -1);
    assert_non_null(strstr(d.msg, "f.ini:7:"));
    d = (struct diag){ 0 };
    assert_int_equal(wl_config_set(ops, cfg, "device_hz", "1 x 2", "f.ini", 8, &d), -1);
    assert_non_null(strstr(d.msg, "value 2"));
    assert_int_equal(wl_config_set(ops, cfg, "timer_hz", "1 2 3", "f.ini", 9, &d), 0);
    const char *bad = NULL;
    char msg[200];
    assert_int_equal(wl_config_check_cpus(ops, cfg, 24, &bad, msg, sizeof msg), -1);
    assert_string_equal(bad, "timer_hz");
    assert_int_equal(wl_config_check_cpus(ops, cfg, 3, &bad, msg, sizeof msg), 0);
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_cpu_rates),
        cmocka_unit_test(test_default_rate),
        cmocka_unit_test(test_device_irqs_unannounced),
        cmocka_unit_test(test_bad_rates),
        cmocka_unit_test(test_idle_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
