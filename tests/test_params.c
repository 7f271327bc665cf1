/* Knob registry and kernel command-line rules. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/kversion.h"
#include "kernel/params.h"

/* Every registered default must parse (kparam_default aborts otherwise), every
 * sysfs path must use placeholders matching its scope. */
static void test_registry_consistent(void **state)
{
    (void)state;
    int n = 0;
    for (const struct kparam *const *t = kparam_tables; *t; t++) {
        for (const struct kparam *p = *t; p->name; p++, n++) {
            (void)kparam_default(p);
            assert_non_null(p->desc);
            assert_true(p->sources != 0);
            if (p->sysfs) {
                bool has_cpu = strstr(p->sysfs, "{cpu}") != NULL;
                bool has_state = strstr(p->sysfs, "{state}") != NULL;
                assert_int_equal(has_cpu, p->scope != KPARAM_GLOBAL);
                assert_int_equal(has_state, p->scope == KPARAM_PER_CPU_STATE);
            }
            assert_ptr_equal(kparam_find(p->name), p);
        }
    }
    assert_true(n >= 9);
}

static void test_dash_underscore(void **state)
{
    (void)state;
    assert_non_null(kparam_find("cpuidle.off"));
    assert_non_null(kparam_find("cpu_dma_latency"));
    assert_ptr_equal(kparam_find("cpu-dma_latency"), kparam_find("cpu_dma_latency"));
    assert_null(kparam_find("cpuidle-off")); /* '.' is not a '-' */
    assert_null(kparam_find("cpuidle.of"));
}

static void test_cmdline_split(void **state)
{
    (void)state;
    struct cmdline c;
    char msg[128];
    assert_int_equal(cmdline_split("  a=1 b \"c=x y\" d=\"p q\"  -- init stuff", &c, msg, sizeof msg), 0);
    assert_int_equal(c.nargs, 4);
    assert_string_equal(c.args[0].name, "a");
    assert_string_equal(c.args[0].value, "1");
    assert_string_equal(c.args[1].name, "b");
    assert_null(c.args[1].value);
    assert_string_equal(c.args[2].name, "c");
    assert_string_equal(c.args[2].value, "x y");
    assert_string_equal(c.args[3].value, "p q");
    assert_string_equal(c.rest, "init stuff");
    cmdline_free(&c);
    assert_int_equal(cmdline_split("a=\"open", &c, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "unterminated quote"));
    assert_int_equal(cmdline_split("", &c, msg, sizeof msg), 0);
    assert_int_equal(c.nargs, 0);
    cmdline_free(&c);
    /* A piece after the one that held "--" is init's whole (issue 27). */
    assert_int_equal(cmdline_split_more("  idle=poll x ", true, &c, msg, sizeof msg), 0);
    assert_int_equal(c.nargs, 0);
    assert_string_equal(c.rest, "idle=poll x ");
    cmdline_free(&c);
    assert_int_equal(cmdline_split_more("idle=poll", false, &c, msg, sizeof msg), 0);
    assert_int_equal(c.nargs, 1);
    assert_null(c.rest);
    cmdline_free(&c);
}

/* The vocabulary of kernel-parameters.txt (issue 27): real parameters pmlab
 * does not model are known, with the file's families of names; typos and
 * init's words are not. */
static void test_vocab(void **state)
{
    (void)state;
    static const char *const known[] = { "reboot", "swiotlb", "rdinit", "nomodule",
                                         "processor.ignore_ppc", "kvm.tdp_mmu",
                                         "sysctl.vm.swappiness", "usbcore.async_probe",
                                         "db9.dev2", "S", "nohz-full", "acpi.debug_layer" };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!kparam_vocab_known(known[i]))
            fail_msg("'%s' is a kernel parameter", known[i]);
    static const char *const unknown[] = { "splash", "BOOT_IMAGE", "cpuidle.govenor", "sysctl",
                                           "sysctlx.a", "async_probe", "db9.dev4", "rebot" };
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        if (kparam_vocab_known(unknown[i]))
            fail_msg("'%s' is not a kernel parameter", unknown[i]);
    struct kparams kp;
    kparams_init(&kp);
    struct diag d = { 0 };
    assert_int_equal(kparams_set_cmdline(&kp, "reboot", "k", "f", 2, &d), 0);
    assert_int_equal(kp.nwarnings, 1);
    assert_non_null(strstr(kp.warnings[0], "f:2: note: reboot=k: a kernel parameter, known but "
                                           "not modelled by pmlab; ignored"));
    assert_int_equal(kparams_set_cmdline(&kp, "cpuidle.govenor", "teo", "f", 3, &d), -1);
    assert_non_null(strstr(d.msg, "did you mean cpuidle.governor?"));
    kparams_destroy(&kp);
}

static void test_bare_bool_and_errors(void **state)
{
    (void)state;
    struct kparams kp;
    struct diag d = { 0 };
    kparams_init(&kp);
    assert_int_equal(kparams_get(&kp, "nohz", 0, -1), 1);
    assert_int_equal(kparams_set_cmdline(&kp, "nohz", "off", "f", 3, &d), 0);
    assert_int_equal(kparams_get(&kp, "nohz", 0, -1), 0);
    assert_int_equal(kparams_set_cmdline(&kp, "nohz", NULL, "f", 3, &d), 0); /* bare = true */
    assert_int_equal(kparams_get(&kp, "nohz", 0, -1), 1);
    assert_int_equal(kparams_set_cmdline(&kp, "cpuidle.off", "x", "f", 4, &d), -1);
    assert_string_equal(d.msg, "f:4: cpuidle.off: expected an integer, got 'x'");
    /* A sysfs-only knob is not a command-line parameter. */
    struct diag d2 = { 0 };
    assert_int_equal(kparams_set_cmdline(&kp, "cpu_dma_latency", "0", "f", 5, &d2), -1);
    assert_non_null(strstr(d2.msg, "unknown kernel parameter"));
    kparams_destroy(&kp);
}

static void test_sysfs_match(void **state)
{
    (void)state;
    char glob[32];
    int st = -2;
    const struct kparam *p = kparam_find_sysfs("/sys/devices/system/cpu/cpu1[0-9]/cpuidle/state3/disable",
                                               glob, sizeof glob, &st);
    assert_non_null(p);
    assert_string_equal(p->name, "cpuidle.state_disable");
    assert_string_equal(glob, "1[0-9]");
    assert_int_equal(st, 3);
    assert_null(kparam_find_sysfs("/sys/devices/system/cpu/cpu1/cpuidle/state3/disabled", glob,
                                  sizeof glob, &st));
    assert_null(kparam_find_sysfs("/sys/devices/system/cpu/cpu1/cpuidle/state99/disable", glob,
                                  sizeof glob, &st));
    p = kparam_find_sysfs("/dev/cpu_dma_latency", glob, sizeof glob, &st);
    assert_non_null(p);
    assert_int_equal(st, -1);
}

static void test_pm_qos_resume_values(void **state)
{
    (void)state;
    const struct kparam *p = kparam_find("pm_qos_resume_latency_us");
    int64_t v;
    char msg[64];
    assert_int_equal(kparam_parse_value(p, "n/a", &v, msg, sizeof msg), 0);
    assert_int_equal(v, 0);
    assert_int_equal(kparam_parse_value(p, "0", &v, msg, sizeof msg), 0);
    assert_int_equal(v, 2147483647);
    assert_int_equal(kparam_parse_value(p, "50", &v, msg, sizeof msg), 0);
    assert_int_equal(v, 50);
    assert_int_equal(kparam_parse_value(p, "-5", &v, msg, sizeof msg), -1);
}

static void test_kversion(void **state)
{
    (void)state;
    struct kversion a, b;
    assert_int_equal(kversion_parse("6.12.44", &a), 0);
    assert_int_equal(kversion_parse("6.7-rc3", &b), 0);
    assert_true(kversion_cmp(&a, &b) > 0);
    assert_true(kversion_at_least(&b, "6.7"));
    assert_false(kversion_at_least(&b, "6.7.1"));
    assert_int_equal(kversion_parse("6.x", &a), -1);
    assert_int_equal(kversion_parse("", &a), -1);
    assert_int_equal(kversion_parse("1.0", &a), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_consistent), cmocka_unit_test(test_dash_underscore),
        cmocka_unit_test(test_cmdline_split),       cmocka_unit_test(test_vocab),       cmocka_unit_test(test_bare_bool_and_errors),
        cmocka_unit_test(test_sysfs_match),         cmocka_unit_test(test_pm_qos_resume_values),
        cmocka_unit_test(test_kversion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
