/* explain: what the kernel returns for `pmlab explain` (struct idle_explain,
 * cpufreq_explain, itmt_explain) and the lines report/explain_*.c print from
 * it: disabled states and PM QoS limits per CPU, the no-driver reasons, CPUs
 * grouped by identical cpufreq settings and by ITMT priority. The whole
 * output is pinned by tests/cli/explain.sh's golden files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/idle.h"
#include "kernel/x86/itmt.h"
#include "report/explain.h"
#include "world.h"
#include "world_fixture.h"

/* The line of x that starts with prefix, or NULL. */
static const char *line_starting(const struct explain *x, const char *prefix)
{
    for (int i = 0; i < x->n; i++)
        if (strncmp(x->line[i], prefix, strlen(prefix)) == 0)
            return x->line[i];
    return NULL;
}

static void test_idle_states_and_qos(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, "/sys/devices/system/cpu/cpu[0-3]/cpuidle/state2/disable=1 "
                                "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us=20");
    struct idle_explain e;
    idle_explain(f->m, &f->kp, &e);
    assert_int_equal(e.mode, IDLE_MODE_CPUIDLE);
    assert_string_equal(e.governor, "menu");
    assert_int_equal(e.drv.state_count, 4);
    for (int cpu = 0; cpu < e.ncpus; cpu++) {
        assert_int_equal(e.state_disabled[2 * e.ncpus + cpu], cpu < 4);
        assert_false(e.state_disabled[1 * e.ncpus + cpu]);
        assert_int_equal(e.resume_latency_us[cpu], cpu == 1 ? 20 : 2147483647);
    }
    struct explain x = { 0 };
    explain_add_idle(&x, &e);
    assert_string_equal(line_starting(&x, "cpuidle state2:"),
                        "cpuidle state2: C1E  MWAIT 0x01   latency 10 us, residency 20 us, "
                        "mwait (IRQs off); DISABLED on cpus: 0-3; hardware SKX C1E exit 10 us");
    assert_non_null(strstr(line_starting(&x, "cpuidle: states from"), "compiled table 'skx'"));
    assert_non_null(strstr(line_starting(&x, "cpuidle state1:"), "disabled on cpus: none"));
    assert_true(explain_has(&x, "pm_qos: resume latency 0 (no constraint) on cpus 0,2-111"));
    assert_true(explain_has(&x, "pm_qos: resume latency 20 us on cpus 1"));
    explain_free(&x);
    idle_explain_free(&e);
    fx_free(f);
}

static void test_idle_no_driver(void **state)
{
    (void)state;
    struct fx *f = fx_new("cpuidle.off=1", NULL);
    struct idle_explain e;
    idle_explain(f->m, &f->kp, &e);
    assert_int_equal(e.mode, IDLE_MODE_HALT);
    assert_null(e.state_disabled);
    struct explain x = { 0 };
    explain_add_idle(&x, &e);
    assert_true(explain_has(&x, "cpuidle: no driver: cpuidle.off=1: default_idle (HLT)"));
    assert_null(line_starting(&x, "cpuidle state"));
    explain_free(&x);
    idle_explain_free(&e);
    fx_free(f);
}

static void test_cpufreq_groups(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL); /* the fixture's cpufreq.off=1 */
    struct cpufreq_explain e;
    cpufreq_explain(f->m, &f->kp, &e);
    assert_null(e.driver);
    struct explain x = { 0 };
    explain_add_cpufreq(&x, &e);
    assert_int_equal(x.n, 1);
    assert_string_equal(x.line[0], "cpufreq: no driver: every core at its base frequency");
    explain_free(&x);
    cpufreq_explain_free(&e);
    fx_free(f);

    /* CPUs 0 and 2 read alike, 1 and 3 alike: one line each, first CPU first. */
    struct cpufreq_explain_cpu cpu[4];
    for (int i = 0; i < 4; i++)
        cpu[i] = (struct cpufreq_explain_cpu){ .governor = i % 2 ? "performance" : "powersave",
                                               .min_khz = 800000, .max_khz = 4000000,
                                               .cpuinfo_min_khz = 800000,
                                               .cpuinfo_max_khz = 4000000, .epp = 128 };
    struct cpufreq_explain two = { .driver = "intel_pstate", .hwp = true, .ncpus = 4, .cpu = cpu };
    explain_add_cpufreq(&x, &two);
    assert_int_equal(x.n, 3);
    assert_string_equal(x.line[0], "cpufreq: driver intel_pstate, HWP on");
    assert_string_equal(x.line[1], "cpufreq cpus 0,2: governor powersave, scaling 800-4000 MHz "
                                   "(cpuinfo 800-4000), EPP 128");
    assert_string_equal(x.line[2], "cpufreq cpus 1,3: governor performance, scaling 800-4000 MHz "
                                   "(cpuinfo 800-4000), EPP 128");
    explain_free(&x);
    /* amd-pstate-epp is CPPC's autonomous selection, not HWP (issue 27 item 14). */
    struct cpufreq_explain amd = { .driver = "amd-pstate-epp", .hwp = true, .ncpus = 4,
                                   .cpu = cpu,
                                   .autonomous = "CPPC autonomous selection (active mode, EPP)" };
    explain_add_cpufreq(&x, &amd);
    assert_string_equal(x.line[0], "cpufreq: driver amd-pstate-epp, CPPC autonomous selection "
                                   "(active mode, EPP) on");
    explain_free(&x);
}

static void test_itmt_priority_runs(void **state)
{
    (void)state;
    int prio[] = { 60, 60, 35, 35, 60 };
    struct itmt_explain e = { .ncpus = 5, .ncppc = 5,
                              .itmt = { .capable = true, .enabled = true, .ncpus = 5,
                                        .prio = prio } };
    struct explain x = { 0 };
    explain_add_itmt(&x, &e);
    assert_true(explain_has(&x, "acpi_cppc: /sys/devices/system/cpu/cpu*/acpi_cppc present"));
    assert_true(explain_has(&x, "itmt: kernel.sched_itmt_enabled = 1"));
    assert_true(explain_has(&x, "itmt: priority by cpu: 0-1 60, 2-3 35, 4 60"));
    explain_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_states_and_qos),
        cmocka_unit_test(test_idle_no_driver),
        cmocka_unit_test(test_cpufreq_groups),
        cmocka_unit_test(test_itmt_priority_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
