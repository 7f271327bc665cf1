/* Seed 003 mechanisms on rpl-h: when the kernel probes _CPC (kernel version,
 * _OSC ack, the Rainbolt patch and its parameter), where ITMT priorities come
 * from (CPPC, HWP fallback since 6.10, 0xFF), sibling priorities by version,
 * placement with and without ITMT, the balancer's pull, and the machine
 * file's [firmware] errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/acpi/cppc.h"
#include "kernel/x86/itmt.h"
#include "util/xalloc.h"
#include "world_fixture.h"

static struct hw_machine *rpl_load(void)
{
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load("machines/rpl-h.ini", &d);
    if (!m)
        fail_msg("%s", d.msg);
    fx_quiet_machine(m);
    return m;
}

/* Kernel settings: version, optional patch, command line. */
static void kp_make(struct kparams *kp, const char *kernel, const char *patch, const char *cmdline)
{
    kparams_init(kp);
    assert_int_equal(kversion_parse(kernel, &kp->kernel), 0);
    if (patch) {
        kp->patches = xreallocarray(NULL, 1, sizeof *kp->patches);
        kp->patches[kp->npatches++] = xstrdup(patch);
    }
    fx_apply(kp, cmdline, kparams_set_cmdline);
}

static bool probed(struct hw_machine *m, const char *kernel, const char *patch,
                   const char *cmdline)
{
    struct kparams kp;
    kp_make(&kp, kernel, patch, cmdline);
    bool r = acpi_cppc_processor_probe(m, &kp, 0, NULL, 0);
    kparams_destroy(&kp);
    return r;
}

/* 7feec7430edd: without the v2 ack, _CPC is read before 5.18.11 only; the
 * patch's parameter (and only with the patch) restores it; an ack or an AMD
 * CPU needs nothing. */
static void test_probe_rule(void **state)
{
    (void)state;
    struct hw_machine *m = rpl_load();
    assert_true(probed(m, "5.18", NULL, NULL));
    assert_false(probed(m, "5.18.11", NULL, NULL));
    assert_false(probed(m, "6.9", NULL, NULL));
    assert_false(probed(m, "6.9", ACPI_IGNORE_OSC_CPPC_PATCH, NULL));
    assert_true(probed(m, "6.9", ACPI_IGNORE_OSC_CPPC_PATCH, "ignore_osc_cppc_bit"));
    /* The parameter alone: a warning, no effect. */
    struct kparams kp;
    kp_make(&kp, "6.9", NULL, "ignore_osc_cppc_bit");
    assert_int_equal(kp.nwarnings, 1);
    assert_non_null(strstr(kp.warnings[0], "Unknown kernel command line parameters"));
    assert_false(acpi_cppc_processor_probe(m, &kp, 0, NULL, 0));
    kparams_destroy(&kp);
    m->fw.osc_cppc_v2 = true;
    assert_true(probed(m, "6.9", NULL, NULL));
    m->fw.osc_cppc_v2 = false;
    strcpy(m->vendor, "amd");
    assert_true(probed(m, "6.9", NULL, NULL));
    strcpy(m->vendor, "intel");
    m->fw.ncpc = 0;   /* no _CPC at all */
    assert_false(probed(m, "5.10", NULL, NULL));
    hw_machine_free(m);
}

static void itmt_of(struct hw_machine *m, const char *kernel, const char *patch,
                    const char *cmdline, struct itmt *it)
{
    struct kparams kp;
    kp_make(&kp, kernel, patch, cmdline);
    itmt_resolve(m, &kp, it);
    kparams_destroy(&kp);
}

/* a1ff59784b27: 6.9 without CPPC has no ITMT; 6.10 takes HWP highest (P 60,
 * E 35); with the patch, CPPC's values; 0xFF reads as HWP on any kernel. */
static void test_hwp_fallback(void **state)
{
    (void)state;
    struct hw_machine *m = rpl_load();
    struct itmt it;
    itmt_of(m, "6.9", NULL, NULL, &it);
    assert_false(it.capable);
    assert_int_equal(it.prio[0], 0);
    itmt_destroy(&it);
    itmt_of(m, "6.10", NULL, NULL, &it);
    assert_true(it.capable && it.enabled);
    assert_int_equal(it.prio[0], 60);
    assert_int_equal(it.prio[8], 35);
    itmt_destroy(&it);
    itmt_of(m, "6.9", ACPI_IGNORE_OSC_CPPC_PATCH, "ignore_osc_cppc_bit", &it);
    assert_true(it.capable);
    assert_int_equal(it.prio[7], 60);
    assert_int_equal(it.prio[15], 35);
    itmt_destroy(&it);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        m->fw.cpc_highest_perf[cpu] = HW_CPPC_MAX_PERF;
    itmt_of(m, "6.9", ACPI_IGNORE_OSC_CPPC_PATCH, "ignore_osc_cppc_bit", &it);
    assert_true(it.capable);
    assert_int_equal(it.prio[0], 60);
    itmt_destroy(&it);
    /* No intel_pstate: nobody sets priorities. */
    itmt_of(m, "6.10", NULL, "intel_pstate=disable", &it);
    assert_false(it.capable);
    itmt_destroy(&it);
    hw_machine_free(m);
}

/* Siblings: p*2/i before 5.16, p*2/i^2 until 6.5, p since; E-cores (one
 * thread) get p*2 before 6.5 (smp_num_siblings is system-wide). */
static void test_sibling_prio(void **state)
{
    (void)state;
    struct hw_machine *m = rpl_load();
    static const struct { const char *k; int p0, p1, e; } want[] = {
        { "5.15", 120, 60, 70 }, { "6.4", 120, 30, 70 }, { "6.5", 60, 60, 35 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct itmt it;
        itmt_of(m, want[i].k, ACPI_IGNORE_OSC_CPPC_PATCH, "ignore_osc_cppc_bit", &it);
        assert_int_equal(it.prio[0], want[i].p0);
        assert_int_equal(it.prio[1], want[i].p1);
        assert_int_equal(it.prio[8], want[i].e);
        itmt_destroy(&it);
    }
    hw_machine_free(m);
}

/* An rpl-h world for kernel (cpufreq as the kernel loads it: intel_pstate). */
static struct fx *rpl_world(const char *kernel, const char *cmdline, const char *sysfs)
{
    struct fx *f = calloc(1, sizeof *f);
    f->m = rpl_load();
    kp_make(&f->kp, kernel, NULL, cmdline);
    fx_apply(&f->kp, sysfs, kparams_set_sysfs);
    struct world_key key = { .seed = 3 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

/* A single task born on an E-core (cpu12): with ITMT the tick moves it to the
 * best idle P-core within a tick (4 ms at HZ=250); without, it stays. */
static void test_placement(void **state)
{
    (void)state;
    static const struct { const char *kernel, *sysfs; bool moves; } cases[] = {
        { "6.10", NULL, true },
        { "6.9", NULL, false },
        { "6.10", "/proc/sys/kernel/sched_itmt_enabled=0", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fx *f = rpl_world(cases[i].kernel, NULL, cases[i].sysfs);
        struct probe p = { 0 };
        task_init(&p.t, probe_done, 12);
        sched_wake_task(&f->w, &p.t, 50.0 * SIM_NS_PER_MS, p.t.prev_cpu);
        world_run_until(&f->w, SIM_NS_PER_S);
        assert_true(p.done_ns > 0);
        assert_int_equal(f->m->cpus[p.ran_on].type, cases[i].moves ? 0 : 1);
        assert_int_equal(f->w.sched.nr_asym_migrations > 0, cases[i].moves);
        fx_free(f);
    }
}

/* Asym packing through nohz idle balancing: one thread of each P-core busy,
 * a task on E-core cpu9. When core 0 goes wholly idle, the busy CPUs' ticks
 * kick an idle balancer and cpu0 pulls the E task by active balance once
 * its MC domain is due (16 ms after boot, idle interval), not when it goes
 * newly idle (nothing is overloaded); the idle siblings
 * of busy P-cores (cpu3, 5, 7) never pull (v6.5+, sched_use_asym_prio).
 * HLT only (1 us exits), so no CPU is still waking when the E task comes. */
static void test_asym_pull_to_idle_core(void **state)
{
    (void)state;
    struct fx *f = rpl_world("6.10", "cpuidle.off=1", NULL);
    struct probe ps[4] = { 0 }, e = { 0 };
    for (int i = 0; i < 4; i++) {
        task_init(&ps[i].t, probe_done, 2 * i);
        /* cpu0 finishes first */
        sched_wake_task(&f->w, &ps[i].t, (i == 0 ? 1.0 : 40.0) * SIM_NS_PER_MS,
                        ps[i].t.prev_cpu);
    }
    world_run_until(&f->w, 100 * SIM_NS_PER_US);
    task_init(&e.t, probe_done, 9);
    sched_wake_task(&f->w, &e.t, 30.0 * SIM_NS_PER_MS, e.t.prev_cpu);
    world_run_until(&f->w, 200 * SIM_NS_PER_US);
    assert_int_equal(e.t.cpu, 9);
    assert_int_equal(f->w.sched.nr_asym_migrations, 0);
    /* cpu0 going newly idle at 1 ms does not pull it: no runqueue has two
     * tasks (rd->overloaded), so sched_balance_newidle does not look */
    world_run_until(&f->w, 2 * SIM_NS_PER_MS);
    assert_true(ps[0].done_ns > 0);
    assert_int_equal(e.t.cpu, 9);
    world_run_until(&f->w, SIM_NS_PER_S);
    assert_int_equal(e.ran_on, 0);
    assert_int_equal(f->w.sched.nr_asym_migrations, 1);
    fx_free(f);
}

/* [firmware] errors name the line. */
static void expect_load_error(const char *edit_from, const char *edit_to, const char *want)
{
    FILE *in = fopen("machines/rpl-h.ini", "r");
    assert_non_null(in);
    char path[] = "/tmp/pmlab-cppc-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    char line[512];
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, edit_from, strlen(edit_from)) == 0) {
            fputs(edit_to, out);
            continue;
        }
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load(path, &d);
    unlink(path);
    assert_null(m);
    if (!strstr(d.msg, want))
        fail_msg("got '%s', want '%s'", d.msg, want);
}

static void test_firmware_errors(void **state)
{
    (void)state;
    /* Drop the E-core continuation line: 8 values for 16 CPUs. */
    expect_load_error("    35 35 35", "", "cpc_highest_perf lists 8 values but the machine has 16 CPUs");
    expect_load_error("cpc_highest_perf", "cpc_highest_perf = 60 60 60 60 60 60 60 0x100\n",
                      "cpc_highest_perf = 0x100 is out of range [0, 255]");
    expect_load_error("osc_cppc_v2", "osc_cppc_v2 = maybe\n", "not a boolean");
    expect_load_error("hwp_guaranteed_perf = 33", "hwp_guaranteed_perf = 61\n",
                      "need hwp_lowest_perf <= hwp_guaranteed_perf <= hwp_highest_perf");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_rule),
        cmocka_unit_test(test_hwp_fallback),
        cmocka_unit_test(test_sibling_prio),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_asym_pull_to_idle_core),
        cmocka_unit_test(test_firmware_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
