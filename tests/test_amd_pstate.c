/* amd-pstate driver binding (kernel/cpufreq/amd_pstate.c, FACTS-2.md §6):
 * which cpufreq driver an AMD machine gets by amd_pstate=, kernel version
 * and FADT PM profile, and whether the platform chooses (active, guided). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "hw/machine.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/params.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes_on_server),
        cmocka_unit_test(test_default_by_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
