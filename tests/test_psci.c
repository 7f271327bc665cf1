/* psci_idle and device-tree idle states on Arm (kernel/cpuidle/cpuidle_psci.c,
 * dt_idle_states.c) and the cluster-state coordination of the hardware
 * (hw/cpu.c): the registered latency is entry + exit, the residency the DT's
 * min-residency; psci_idle registers on Arm machines and never on x86; a
 * cluster state takes effect only when every core of the cluster asks for it
 * (PSCI platform coordination), else the core gets the core state;
 * scpi-cpufreq runs each cluster at one OPP. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/machine.h"
#include "kernel/cpuidle/cpuidle_psci.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/cpuidle/dt_idle_states.h"
#include "kernel/idle/intel_idle.h"
#include "kernel/params.h"
#include "kernel/sched/topology.h"
#include "kernel/x86/itmt.h"
#include "world_fixture.h"

#define US 1000

static struct hw_machine *load(const char *path)
{
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load(path, &d);
    if (!m)
        fail_msg("%s", d.msg);
    return m;
}

/* dt_idle_states: exit latency = entry-latency-us + exit-latency-us,
 * residency = min-residency-us, local-timer-stop -> TIMER_STOP. */
static void test_dt_entry_plus_exit(void **state)
{
    (void)state;
    struct hw_cstate c = { .name = "cpu-sleep-0", .dt_state = true,
                           .entry_latency_ns = 300 * US, .exit_latency_ns = 1200 * US,
                           .min_residency_ns = 2000 * US, .local_timer_stop = true };
    struct cpuidle_state s;
    dt_idle_state_init(&s, &c);
    assert_string_equal(s.name, "cpu-sleep-0");
    assert_int_equal(s.exit_latency_ns, 1500 * US);
    assert_int_equal(s.target_residency_ns, 2000 * US);
    assert_true(s.flags & CPUIDLE_FLAG_TIMER_STOP);
    c.entry_latency_ns = 40 * US;
    c.local_timer_stop = false;
    dt_idle_state_init(&s, &c);
    assert_int_equal(s.exit_latency_ns, 1240 * US);
    assert_false(s.flags & CPUIDLE_FLAG_TIMER_STOP);
}

static int probe(const struct hw_machine *m, struct cpuidle_driver *drv,
                 struct cpuidle_probe_result *r)
{
    struct kparams kp;
    kparams_init(&kp);
    int rc = cpuidle_driver_probe(m, &kp, drv, r);
    kparams_destroy(&kp);
    return rc;
}

/* On juno-r0 the registry ends at psci_idle (intel_idle and acpi_idle
 * decline), with WFI and the DT's two states as Juno r0's sysfs shows. */
static void test_psci_on_juno(void **state)
{
    (void)state;
    struct hw_machine *m = load("machines/juno-r0.ini");
    struct cpuidle_driver drv;
    struct cpuidle_probe_result r;
    assert_int_equal(probe(m, &drv, &r), 0);
    assert_string_equal(drv.name, "psci_idle");
    assert_non_null(strstr(r.source, "psci, from DT"));
    assert_int_equal(drv.state_count, 3);
    static const char *const names[] = { "WFI", "cpu-sleep-0", "cluster-sleep-0" };
    static const int64_t lat_us[] = { 1, 1500, 1500 }, res_us[] = { 1, 2000, 2500 };
    for (int i = 0; i < 3; i++) {
        assert_string_equal(drv.states[i].name, names[i]);
        assert_int_equal(drv.states[i].exit_latency_ns, lat_us[i] * US);
        assert_int_equal(drv.states[i].target_residency_ns, res_us[i] * US);
        assert_false(drv.states[i].flags & CPUIDLE_FLAG_POLLING);
    }
    assert_int_equal(drv.states[0].enter, CPUIDLE_ENTER_WFI);
    assert_int_equal(drv.states[2].enter, CPUIDLE_ENTER_PSCI);
    assert_int_equal(drv.states[2].psci_suspend_param, 0x1010000);
    struct diag d = { 0 };
    assert_int_equal(intel_idle_check_machine(m, &d), 0);
    hw_machine_free(m);
}

/* x86 machines never get psci_idle: the registry picks intel_idle or
 * acpi_idle, and psci_idle itself declines. */
static void test_psci_never_on_x86(void **state)
{
    (void)state;
    static const char *const x86[] = { "machines/skx-2s.ini", "machines/epyc-genoa-2s.ini",
                                       "tests/data/machines/minimal.ini" };
    for (size_t i = 0; i < sizeof x86 / sizeof x86[0]; i++) {
        struct hw_machine *m = load(x86[i]);
        struct cpuidle_driver drv;
        struct cpuidle_probe_result r;
        if (probe(m, &drv, &r) == 0)
            assert_string_not_equal(drv.name, "psci_idle");
        char src[CPUIDLE_SOURCE_LEN], why[CPUIDLE_WHY_LEN] = "";
        assert_int_equal(psci_idle_init(m, &drv, src, sizeof src, why, sizeof why), -ENODEV);
        assert_non_null(strstr(why, "not an Arm CPU"));
        hw_machine_free(m);
    }
}

/* One driver for all CPUs: clusters whose DT states differ are refused. */
static void test_psci_types_must_match(void **state)
{
    (void)state;
    struct hw_machine *m = load("tests/data/machines/arm-types-differ.ini");
    struct diag d = { 0 };
    assert_int_equal(intel_idle_check_machine(m, &d), -1);
    assert_non_null(strstr(d.msg, "arm-types-differ.ini:6: core types B and L list different"));
    hw_machine_free(m);
}

/* ---- cluster coordination (hw/cpu.c) ------------------------------------ */

enum { WFI, CPU_SLEEP, CLUSTER_SLEEP };

static void idle(struct hw_state *hw, int cpu, int st, sim_time_t now)
{
    hw_thread_set_mode(hw, cpu, HW_THREAD_IDLE, st, now);
}

static int core_state(const struct hw_state *hw, int cpu)
{
    return hw->core[hw->m->cpus[cpu].core].cstate;
}

/* The A57 cluster (cpu1-2): cpu1 asking for cluster-sleep-0 alone gets
 * cpu-sleep-0 (power, exit latency and refill of that state); when cpu2
 * asks too, both are in cluster-sleep-0; when cpu2 wakes, cpu1 falls back.
 * The A53 cluster is untouched throughout. */
static void test_cluster_state_needs_all_cpus(void **state)
{
    (void)state;
    struct hw_machine *m = load("machines/juno-r0.ini");
    struct hw_state hw;
    hw_state_init(&hw, m);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        idle(&hw, cpu, WFI, 0);
    const struct hw_core_type *a57 = &m->types[m->cpus[1].type];
    idle(&hw, 1, CLUSTER_SLEEP, 10);
    assert_int_equal(hw.thr[1].cstate, CLUSTER_SLEEP);      /* what the kernel asked */
    assert_int_equal(core_state(&hw, 1), CPU_SLEEP);        /* what the firmware did */
    assert_true(hw.core[m->cpus[1].core].power_mw == a57->cstates[CPU_SLEEP].core_power_mw);
    assert_int_equal(hw_thread_refill_ns(&hw, 1), a57->cstates[CPU_SLEEP].refill_ns);
    idle(&hw, 2, CPU_SLEEP, 20);                            /* a core state: no vote */
    assert_int_equal(core_state(&hw, 1), CPU_SLEEP);
    idle(&hw, 2, CLUSTER_SLEEP, 30);
    assert_int_equal(core_state(&hw, 1), CLUSTER_SLEEP);
    assert_int_equal(core_state(&hw, 2), CLUSTER_SLEEP);
    assert_true(hw.core[m->cpus[1].core].power_mw == a57->cstates[CLUSTER_SLEEP].core_power_mw);
    assert_int_equal(hw_thread_refill_ns(&hw, 1), a57->cstates[CLUSTER_SLEEP].refill_ns);
    assert_int_equal(hw_thread_exit_latency_ns(&hw, 1), 1200 * US);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        if (m->cpus[cpu].type != m->cpus[1].type)
            assert_int_equal(core_state(&hw, cpu), WFI);
    hw_thread_set_mode(&hw, 2, HW_THREAD_RUN, 0, 40);
    assert_int_equal(core_state(&hw, 1), CPU_SLEEP);
    assert_int_equal(hw.core[m->cpus[1].core].cstate_ns[CLUSTER_SLEEP], 10);
    /* The A53 cluster needs all four of 0,3,4,5. */
    idle(&hw, 0, CLUSTER_SLEEP, 50);
    idle(&hw, 3, CLUSTER_SLEEP, 50);
    idle(&hw, 4, CLUSTER_SLEEP, 50);
    assert_int_equal(core_state(&hw, 0), CPU_SLEEP);
    idle(&hw, 5, CLUSTER_SLEEP, 60);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        if (m->cpus[cpu].type != m->cpus[1].type)
            assert_int_equal(core_state(&hw, cpu), CLUSTER_SLEEP);
    hw_state_destroy(&hw);
    hw_machine_free(m);
}

/* ---- scpi-cpufreq: one frequency per cluster, OPPs only ------------------ */

static uint32_t cpu_mhz(const struct fx *f, int cpu)
{
    return f->w.hw.core_mhz[f->m->cpus[cpu].core];
}

static void test_scpi_cluster_policy(void **state)
{
    (void)state;
    struct fx *f = fx_new_machine("machines/juno-r0.ini", NULL,
                                  "cpufreq.off=0 cpufreq.default_governor=powersave", NULL,
                                  NULL, 0);
    struct world *w = &f->w;
    assert_string_equal(w->cpufreq.driver->name, "scpi-cpufreq");
    for (int cpu = 0; cpu < 6; cpu++)
        assert_int_equal(cpu_mhz(f, cpu), 450);
    /* cpu1 (A57) asks for 700 MHz: the OPP at or above is 800, for both A57s. */
    cpufreq_driver_target(w, &w->cpufreq.policy[1], 700000);
    assert_int_equal(w->cpufreq.policy[1].cur_khz, 800000);
    assert_int_equal(cpu_mhz(f, 1), 800);
    assert_int_equal(cpu_mhz(f, 2), 800);
    /* The cluster runs at its CPUs' highest request. */
    cpufreq_driver_target(w, &w->cpufreq.policy[2], 950000);
    assert_int_equal(cpu_mhz(f, 1), 950);
    cpufreq_driver_target(w, &w->cpufreq.policy[2], 450000);
    assert_int_equal(cpu_mhz(f, 1), 800);
    assert_int_equal(cpu_mhz(f, 2), 800);
    /* The A53 cluster (0,3-5) is another policy: untouched, then its own OPPs. */
    for (int cpu = 0; cpu < 6; cpu += cpu == 0 ? 3 : 1)
        assert_int_equal(cpu_mhz(f, cpu), 450);
    cpufreq_driver_target(w, &w->cpufreq.policy[4], 600000);
    for (int cpu = 0; cpu < 6; cpu += cpu == 0 ? 3 : 1)
        assert_int_equal(cpu_mhz(f, cpu), 700);
    assert_int_equal(cpu_mhz(f, 1), 800);
    fx_free(f);
}

/* arch_topology: capacity = capacity-dmips-mhz x max frequency, the biggest
 * 1024: the A53s 446 with scpi-cpufreq, 578 (dmips alone) without a driver. */
static void test_arm_capacity(void **state)
{
    (void)state;
    static const struct { const char *cmdline; unsigned long a53; } cases[] = {
        { "", 446 },
        { "cpufreq.off=1", 578 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct hw_machine *m = load("machines/juno-r0.ini");
        struct kparams kp;
        kparams_init(&kp);
        fx_apply(&kp, cases[i].cmdline, kparams_set_cmdline);
        struct itmt it;
        struct sched_topology t;
        itmt_resolve(m, &kp, &it);
        sched_topology_build(m, &kp, &it, &t);
        for (int cpu = 0; cpu < 6; cpu++)
            assert_int_equal(t.capacity[cpu], cpu == 1 || cpu == 2 ? 1024 : cases[i].a53);
        assert_true(t.asym_cpucapacity);
        sched_topology_destroy(&t);
        itmt_destroy(&it);
        kparams_destroy(&kp);
        hw_machine_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dt_entry_plus_exit),
        cmocka_unit_test(test_psci_on_juno),
        cmocka_unit_test(test_psci_never_on_x86),
        cmocka_unit_test(test_psci_types_must_match),
        cmocka_unit_test(test_cluster_state_needs_all_cpus),
        cmocka_unit_test(test_scpi_cluster_policy),
        cmocka_unit_test(test_arm_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
