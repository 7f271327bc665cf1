/* amd-pstate driver binding (kernel/cpufreq/amd_pstate.c, FACTS-2.md §6):
 * which cpufreq driver an AMD machine gets by amd_pstate=, kernel version
 * and FADT PM profile, and whether the platform chooses (active, guided);
 * and its preferred core (v6.9+): CPPC highest performance as ITMT
 * priority, amd_prefcore=disable, the v6.9 and v6.12 detection rules. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "hw/machine.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/params.h"
#include "kernel/sched/topology.h"
#include "kernel/x86/itmt.h"

struct ap {
    struct hw_machine *m;
    struct kparams kp;
};

static struct ap *ap_new(const char *kernel)
{
    struct ap *t = test_calloc(1, sizeof *t);
    struct diag d = { 0 };
    t->m = hw_machine_load("machines/epyc-genoa-2s.ini", &d);
    if (!t->m)
        fail_msg("%s", d.msg);
    kparams_init(&t->kp);
    assert_int_equal(kversion_parse(kernel, &t->kp.kernel), 0);
    return t;
}

static void ap_free(struct ap *t)
{
    kparams_destroy(&t->kp);
    hw_machine_free(t->m);
    test_free(t);
}

static void ap_set(struct ap *t, const char *name, const char *value)
{
    struct diag d = { 0 };
    if (kparams_set_cmdline(&t->kp, name, value, "test", 1, &d) != 0)
        fail_msg("%s", d.msg);
}

static void expect_driver(struct ap *t, const char *name, bool want_hwp)
{
    bool hwp = !want_hwp;
    const struct cpufreq_driver *d = cpufreq_probe_driver(t->m, &t->kp, &hwp);
    assert_non_null(d);
    assert_string_equal(d->name, name);
    assert_int_equal(hwp, want_hwp);
}

/* Server FADT profile: acpi-cpufreq unless amd_pstate= names a mode. */
static void test_modes_on_server(void **state)
{
    (void)state;
    struct ap *t = ap_new("6.12");
    assert_string_equal(t->m->fw.pm_profile, "enterprise_server");
    expect_driver(t, "acpi-cpufreq", false);
    ap_set(t, "amd_pstate", "passive");
    expect_driver(t, "amd-pstate", false);
    ap_set(t, "amd_pstate", "guided");
    expect_driver(t, "amd-pstate", true);
    ap_set(t, "amd_pstate", "active");
    expect_driver(t, "amd-pstate-epp", true);
    ap_set(t, "amd_pstate", "disable");
    expect_driver(t, "acpi-cpufreq", false);
    ap_free(t);
}

/* A desktop profile: active by default from 6.5, nothing by default before. */
static void test_default_by_version(void **state)
{
    (void)state;
    struct ap *t = ap_new("6.5");
    strcpy(t->m->fw.pm_profile, "desktop");
    expect_driver(t, "amd-pstate-epp", true);
    assert_int_equal(kversion_parse("6.4", &t->kp.kernel), 0);
    expect_driver(t, "acpi-cpufreq", false);
    assert_int_equal(kversion_parse("5.15", &t->kp.kernel), 0);
    expect_driver(t, "acpi-cpufreq", false);
    strcpy(t->m->fw.pm_profile, "unspecified");
    assert_int_equal(kversion_parse("6.12", &t->kp.kernel), 0);
    expect_driver(t, "acpi-cpufreq", false);
    ap_free(t);
}

/* Give every CPU of t's machine a _CPC highest performance: best for the
 * threads of core 0 (CPUs 0 and 64 on Genoa), rest for the others. */
static void ap_rank(struct ap *t, uint32_t best, uint32_t rest)
{
    t->m->fw.ncpc = t->m->ncpus;
    for (int cpu = 0; cpu < t->m->ncpus; cpu++)
        t->m->fw.cpc_highest_perf[cpu] = t->m->cpus[cpu].core == 0 ? best : rest;
}

static struct itmt ap_itmt(struct ap *t)
{
    struct itmt it;
    itmt_resolve(t->m, &t->kp, &it);
    return it;
}

/* v6.12, amd-pstate active: core 0 ranked 236, the others 196 -> ITMT
 * capable and on, each CPU's priority its highest perf (siblings equal). */
static void test_prefcore_ranking(void **state)
{
    (void)state;
    struct ap *t = ap_new("6.12");
    ap_set(t, "amd_pstate", "active");
    ap_rank(t, 236, 196);
    struct itmt it = ap_itmt(t);
    assert_true(it.capable && it.enabled);
    assert_int_equal(it.prio[0], 236);
    assert_int_equal(it.prio[64], 236);
    assert_int_equal(it.prio[1], 196);
    assert_int_equal(it.prio[127], 196);
    itmt_destroy(&it);
    ap_set(t, "amd_pstate", "passive");   /* every mode ranks */
    it = ap_itmt(t);
    assert_true(it.capable);
    assert_int_equal(it.prio[0], 236);
    itmt_destroy(&it);
    ap_free(t);
}

/* amd_prefcore=disable: no priorities, no sysctl; acpi-cpufreq (the server
 * default) sets none either. */
static void test_prefcore_disable(void **state)
{
    (void)state;
    struct ap *t = ap_new("6.12");
    ap_rank(t, 236, 196);
    struct itmt it = ap_itmt(t);
    assert_false(it.capable);              /* acpi-cpufreq */
    itmt_destroy(&it);
    ap_set(t, "amd_pstate", "active");
    ap_set(t, "amd_prefcore", "disable");
    it = ap_itmt(t);
    assert_false(it.capable);
    assert_int_equal(it.prio[0], 0);
    assert_non_null(strstr(it.why, "amd_prefcore=disable"));
    itmt_destroy(&it);
    ap_free(t);
}

/* Version gate: none before v6.9; v6.9-6.11 any CPU below 255 counts (even
 * when all are equal), 255 everywhere is no ranking; v6.12 needs two
 * different values. */
static void test_prefcore_versions(void **state)
{
    (void)state;
    struct ap *t = ap_new("6.8");
    ap_set(t, "amd_pstate", "active");
    ap_rank(t, 236, 196);
    struct itmt it = ap_itmt(t);
    assert_false(it.capable);
    itmt_destroy(&it);
    assert_int_equal(kversion_parse("6.9", &t->kp.kernel), 0);
    it = ap_itmt(t);
    assert_true(it.capable);
    itmt_destroy(&it);
    ap_rank(t, 196, 196);
    it = ap_itmt(t);
    assert_true(it.capable);
    assert_int_equal(it.prio[5], 196);
    itmt_destroy(&it);
    ap_rank(t, 255, 255);
    it = ap_itmt(t);
    assert_false(it.capable);
    itmt_destroy(&it);
    ap_rank(t, 196, 196);
    assert_int_equal(kversion_parse("6.12", &t->kp.kernel), 0);
    it = ap_itmt(t);
    assert_false(it.capable);
    assert_non_null(strstr(it.why, "same highest performance"));
    itmt_destroy(&it);
    ap_free(t);
}

/* The ranking feeds asym packing: SD_ASYM_PACKING on Genoa's MC (the CCD)
 * and, from ~v6.14 (e1bc02646527), on PKG across CCDs; the CCD group's
 * asym_prefer_cpu is the best-ranked CPU. */
static void test_prefcore_asym_packing(void **state)
{
    (void)state;
    struct ap *t = ap_new("6.12");
    ap_set(t, "amd_pstate", "active");
    ap_rank(t, 236, 196);
    t->m->fw.cpc_highest_perf[6] = t->m->fw.cpc_highest_perf[70] = 241;
    struct itmt it = ap_itmt(t);
    struct sched_topology topo;
    sched_topology_build(t->m, &t->kp, &it, &topo);
    int n;
    const struct sched_domain *d = sched_domains(&topo, 5, &n);
    assert_int_equal(n, 4);
    assert_true(d[1].flags & SD_ASYM_PACKING);           /* MC */
    assert_false(d[2].flags & SD_ASYM_PACKING);          /* PKG before 6.14 */
    assert_int_equal(d[1].groups[0]->span->first, 5);
    assert_int_equal(d[2].groups[0]->asym_prefer_cpu, 6);  /* its CCD: 6 ranks 241 */
    assert_int_equal(d[2].groups[7]->asym_prefer_cpu, 0);  /* CCD 0: core 0 ranks 236 */
    sched_topology_destroy(&topo);
    assert_int_equal(kversion_parse("6.14", &t->kp.kernel), 0);
    sched_topology_build(t->m, &t->kp, &it, &topo);
    d = sched_domains(&topo, 5, &n);
    assert_true(d[2].flags & SD_ASYM_PACKING);
    sched_topology_destroy(&topo);
    itmt_destroy(&it);
    ap_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes_on_server),
        cmocka_unit_test(test_default_by_version),
        cmocka_unit_test(test_prefcore_ranking),
        cmocka_unit_test(test_prefcore_disable),
        cmocka_unit_test(test_prefcore_versions),
        cmocka_unit_test(test_prefcore_asym_packing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
