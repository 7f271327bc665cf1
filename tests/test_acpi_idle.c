/* acpi_idle (kernel/acpi/processor_idle.c, FACTS-2.md §5): which driver
 * registers (intel_idle first, acpi_idle when it declines), the states built
 * from the firmware _CST per entry method, residency = latency x
 * latency_factor, max_cstate, nocst, idle=, sorting, and the bus-master rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "hw/machine.h"
#include "kernel/acpi/processor_idle.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/params.h"

#define US 1000

struct ai {
    struct hw_machine *m;
    struct kparams kp;
    struct cpuidle_driver drv;
    struct acpi_idle_info info;
    char msg[256];
};

static struct ai *ai_new(const char *machine, const char *kernel)
{
    struct ai *t = test_calloc(1, sizeof *t);
    struct diag d = { 0 };
    t->m = hw_machine_load(machine, &d);
    if (!t->m)
        fail_msg("%s", d.msg);
    kparams_init(&t->kp);
    if (kernel)
        assert_int_equal(kversion_parse(kernel, &t->kp.kernel), 0);
    return t;
}

static void ai_free(struct ai *t)
{
    kparams_destroy(&t->kp);
    hw_machine_free(t->m);
    test_free(t);
}

static void ai_set(struct ai *t, const char *name, const char *value)
{
    struct diag d = { 0 };
    if (kparams_set_cmdline(&t->kp, name, value, "test", 1, &d) != 0)
        fail_msg("%s", d.msg);
}

static int ai_init(struct ai *t)
{
    return acpi_idle_init(t->m, &t->kp, &t->drv, &t->info, t->msg, sizeof t->msg);
}

static void expect_state(const struct ai *t, int i, const char *name, const char *desc,
                         int64_t lat_us, int64_t res_us, enum cpuidle_enter_method enter)
{
    const struct cpuidle_state *s = &t->drv.states[i];
    assert_true(i < t->drv.state_count);
    assert_string_equal(s->name, name);
    assert_string_equal(s->desc, desc);
    assert_int_equal(s->exit_latency_ns, lat_us * US);
    assert_int_equal(s->target_residency_ns, res_us * US);
    assert_int_equal(s->enter, enter);
}

/* AMD: intel_idle declines (not Intel), acpi_idle registers from the _CST:
 * C1 FFH MWAIT, C2 the I/O port, residency twice the latency. */
static void test_amd_registry_and_states(void **state)
{
    (void)state;
    struct ai *t = ai_new("tests/data/machines/amd-cst.ini", NULL);
    struct cpuidle_probe_result r;
    assert_int_equal(cpuidle_driver_probe(t->m, &t->kp, &t->drv, &r), 0);
    assert_string_equal(t->drv.name, "acpi_idle");
    assert_non_null(strstr(r.source, "[firmware] cst_*"));
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(t->drv.state_count, 3);
    assert_int_equal(t->drv.states[0].enter, CPUIDLE_ENTER_POLL);
    expect_state(t, 1, "C1", "ACPI FFH MWAIT 0x0", 1, 2, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 2, "C2", "ACPI IOPORT 0x414", 400, 800, CPUIDLE_ENTER_IO);
    assert_int_equal(t->drv.states[2].io_port, 0x414);
    assert_int_equal(t->drv.states[2].flags, 0);    /* C2-type: TLB kept */
    ai_free(t);
}

static void test_latency_factor_max_cstate_nocst(void **state)
{
    (void)state;
    struct ai *t = ai_new("tests/data/machines/amd-cst.ini", NULL);
    ai_set(t, "processor.latency_factor", "3");
    assert_int_equal(ai_init(t), 0);
    expect_state(t, 2, "C2", "ACPI IOPORT 0x414", 400, 1200, CPUIDLE_ENTER_IO);
    ai_set(t, "processor.max_cstate", "1");
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    ai_set(t, "processor.max_cstate", "0");     /* reads as 1 */
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    ai_set(t, "processor.max_cstate", "8");
    ai_set(t, "processor.nocst", "1");          /* no _CST: C1 HLT only */
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    expect_state(t, 1, "C1", "ACPI HLT", 0, 0, CPUIDLE_ENTER_HLT);
    ai_free(t);
}

/* idle=halt and idle=poll keep acpi_idle out; idle=nomwait turns the FFH C1
 * into HLT and drops deeper FFH entries (the I/O C2 stays). */
static void test_idle_options(void **state)
{
    (void)state;
    struct ai *t = ai_new("tests/data/machines/amd-cst.ini", NULL);
    ai_set(t, "idle", "halt");
    assert_int_equal(ai_init(t), -ENODEV);
    assert_int_equal(t->drv.state_count, 0);
    assert_non_null(strstr(t->msg, "idle=halt"));
    ai_set(t, "idle", "nomwait");
    assert_int_equal(ai_init(t), 0);
    expect_state(t, 1, "C1", "ACPI HLT", 1, 2, CPUIDLE_ENTER_HLT);
    expect_state(t, 2, "C2", "ACPI IOPORT 0x414", 400, 800, CPUIDLE_ENTER_IO);
    ai_free(t);
}

/* intel_idle.max_cstate=0 on Raptor Lake-H: acpi_idle takes the reference
 * _CST (all FFH), C3-type flushes the TLB and, on Intel, checks bus masters:
 * on activity C3 demotes to the deepest non-C3 state, C2. */
static void test_intel_max_cstate_0_and_bus_master(void **state)
{
    (void)state;
    struct ai *t = ai_new("machines/rpl-h.ini", NULL);
    ai_set(t, "intel_idle.max_cstate", "0");
    struct cpuidle_probe_result r;
    assert_int_equal(cpuidle_driver_probe(t->m, &t->kp, &t->drv, &r), 0);
    assert_string_equal(t->drv.name, "acpi_idle");
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(t->drv.state_count, 4);
    expect_state(t, 1, "C1", "ACPI FFH MWAIT 0x0", 1, 2, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 2, "C2", "ACPI FFH MWAIT 0x21", 127, 254, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C3", "ACPI FFH MWAIT 0x60", 1048, 2096, CPUIDLE_ENTER_MWAIT);
    assert_int_equal(t->drv.states[3].flags, CPUIDLE_FLAG_TLB_FLUSHED);
    assert_true(t->info.bm_check);
    assert_int_equal(t->info.safe_state_index, 2);
    assert_int_equal(acpi_idle_state_entered(&t->info, 3, true), 2);
    assert_int_equal(acpi_idle_state_entered(&t->info, 3, false), 3);
    assert_int_equal(acpi_idle_state_entered(&t->info, 2, true), 2);
    ai_set(t, "processor.bm_check_disable", "1");
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(acpi_idle_state_entered(&t->info, 3, true), 3);
    ai_free(t);
}

/* bm_check on AMD: Zen (family >= 0x17) from 5.16 only. */
static void test_amd_bm_check_versions(void **state)
{
    (void)state;
    struct ai *t = ai_new("tests/data/machines/amd-cst.ini", "5.15");
    assert_int_equal(ai_init(t), 0);
    assert_false(t->info.bm_check);
    assert_int_equal(kversion_parse("6.1", &t->kp.kernel), 0);
    assert_int_equal(ai_init(t), 0);
    assert_true(t->info.bm_check);
    t->m->cpu_family = 0x10;
    assert_int_equal(ai_init(t), 0);
    assert_false(t->info.bm_check);
    ai_free(t);
}

/* Out-of-order latencies are sorted; an FFH entry whose hint the CPU has no
 * sub-states for is dropped (deeper than C1) or runs as HLT (C1). */
static void test_sort_and_ffh_probe(void **state)
{
    (void)state;
    struct ai *t = ai_new("tests/data/machines/amd-cst.ini", NULL);
    struct hw_firmware *fw = &t->m->fw;
    fw->ncst = fw->ncst_latency = 3;
    fw->cst_method[0] = HW_CST_FFH, fw->cst_mwait_hint[0] = 0x00, fw->cst_latency_us[0] = 1;
    fw->cst_method[1] = HW_CST_SYSTEM_IO, fw->cst_mwait_hint[1] = 0x415, fw->cst_latency_us[1] = 500;
    fw->cst_method[2] = HW_CST_SYSTEM_IO, fw->cst_mwait_hint[2] = 0x414, fw->cst_latency_us[2] = 100;
    assert_int_equal(ai_init(t), 0);
    assert_true(t->info.sorted);
    expect_state(t, 2, "C2", "ACPI IOPORT 0x414", 100, 200, CPUIDLE_ENTER_IO);
    expect_state(t, 3, "C3", "ACPI IOPORT 0x415", 500, 1000, CPUIDLE_ENTER_IO);
    fw->cst_method[1] = HW_CST_FFH, fw->cst_mwait_hint[1] = 0x60;  /* no C10 on this CPU */
    fw->cst_mwait_hint[0] = 0x50;                                  /* nor C9: C1 as HLT */
    assert_int_equal(ai_init(t), 0);
    assert_int_equal(t->drv.state_count, 3);
    expect_state(t, 1, "C1", "ACPI HLT", 1, 2, CPUIDLE_ENTER_HLT);
    expect_state(t, 2, "C2", "ACPI IOPORT 0x414", 100, 200, CPUIDLE_ENTER_IO);
    ai_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amd_registry_and_states),
        cmocka_unit_test(test_latency_factor_max_cstate_nocst),
        cmocka_unit_test(test_idle_options),
        cmocka_unit_test(test_intel_max_cstate_0_and_bus_master),
        cmocka_unit_test(test_amd_bm_check_versions),
        cmocka_unit_test(test_sort_and_ffh_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
