/* cpuidle_psci: psci_idle, the cpuidle driver of Arm machines with PSCI
 * firmware and device-tree idle states (drivers/cpuidle/cpuidle-psci.c,
 * v5.4 and later; before, arm64's cpuidle-arm.c did the same with the same
 * table).
 *
 * The table: state 0 is the architectural WFI, the driver's own ("WFI",
 * exit latency 1 us, target residency 1 us, the ARM_CPUIDLE_WFI_STATE the
 * Arm drivers share), entered with cpu_do_idle; then the states the CPU's
 * cpu-idle-states property lists, parsed by dt_init_idle_driver
 * (dt_idle_states.c), each entered by PSCI CPU_SUSPEND with its
 * arm,psci-suspend-param. pmlab's machine files hold the device tree's
 * idle-states node as [cstate TYPE NAME] sections (docs/machine-files.md).
 *
 * Cluster states: modelled in PSCI's platform-coordinated mode, the mode of
 * a device tree that lists the cluster state among each CPU's
 * cpu-idle-states and gives the CPUs no power-domains (Juno r0): the kernel
 * lets each CPU ask for the cluster state on its own and the firmware
 * powers the cluster down only when all of its CPUs asked (hw/cpu.h has the
 * rule). OS-initiated mode (power-domains, domain-idle-states, the last CPU
 * chosen by genpd, cpuidle-psci-domain.c) is not modelled.
 *
 * Departures: the kernel registers one driver per CPU (each built from that
 * CPU's cpu-idle-states); pmlab registers one for all, so every core type
 * must list the same states (psci_idle_check_machine), as the kernel's
 * idle_state_valid requires within one driver's CPUs. The states' power
 * figures do not reach the driver (the kernel's power_usage is unused). */
#include "kernel/cpuidle/cpuidle_psci.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cpuidle/dt_idle_states.h"
#include "kernel/params.h"
#include "kernel/cpuidle/driver.h"
#include "sim/time.h"

/* ARM_CPUIDLE_WFI_STATE: latency and residency 1 us. */
#define PSCI_WFI_LATENCY_NS (1 * SIM_NS_PER_US)

static void psci_wfi_state(struct cpuidle_state *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "WFI");
    snprintf(s->desc, sizeof s->desc, "ARM WFI");
    s->exit_latency_ns = PSCI_WFI_LATENCY_NS;
    s->target_residency_ns = PSCI_WFI_LATENCY_NS;
    s->enter = CPUIDLE_ENTER_WFI;
}

int psci_idle_init(const struct hw_machine *m, struct cpuidle_driver *drv, char *source,
                   size_t sourcesize, char *why, size_t whysize)
{
    memset(drv, 0, sizeof *drv);
    if (!hw_machine_is_arm(m)) {
        snprintf(why, whysize, "psci_idle: not loaded: not an Arm CPU (vendor %s)", m->vendor);
        return -ENODEV;
    }
    const struct hw_core_type *t = &m->types[m->cpus[0].type];
    snprintf(drv->name, sizeof drv->name, "psci_idle");
    psci_wfi_state(&drv->states[0]);
    drv->state_count = 1;
    for (int i = 1; i < t->ncstates && drv->state_count < CPUIDLE_STATE_MAX; i++) {
        struct cpuidle_state *s = &drv->states[drv->state_count++];
        dt_idle_state_init(s, &t->cstates[i]);
        s->enter = CPUIDLE_ENTER_PSCI;
        s->psci_suspend_param = t->cstates[i].psci_suspend_param;
    }
    snprintf(source, sourcesize,
             "psci, from DT: WFI, then the idle-states of cpu-idle-states (machine file "
             "[cstate %s ...]): latency = entry-latency-us + exit-latency-us, residency = "
             "min-residency-us (dt_idle_states.c); cluster states platform-coordinated (the "
             "cluster powers down when all its CPUs ask)", t->name);
    return 0;
}

/* Whether DT states a and b are the same node as far as the driver sees. */
static bool psci_same_dt_state(const struct hw_cstate *a, const struct hw_cstate *b)
{
    return strcmp(a->name, b->name) == 0 && a->psci_suspend_param == b->psci_suspend_param &&
           a->entry_latency_ns == b->entry_latency_ns &&
           a->exit_latency_ns == b->exit_latency_ns &&
           a->min_residency_ns == b->min_residency_ns &&
           a->local_timer_stop == b->local_timer_stop;
}

int psci_idle_check_machine(const struct hw_machine *m, struct diag *d)
{
    if (!hw_machine_is_arm(m))
        return 0;
    const struct hw_core_type *t0 = &m->types[0];
    for (int t = 1; t < m->ntypes; t++) {
        const struct hw_core_type *t1 = &m->types[t];
        bool same = t1->ncstates == t0->ncstates;
        for (int i = 1; same && i < t0->ncstates; i++)
            same = psci_same_dt_state(&t0->cstates[i], &t1->cstates[i]);
        if (!same)
            return diag_error(d, m->path, m->vendor_line,
                              "core types %s and %s list different device-tree idle states; "
                              "pmlab registers one psci_idle driver for all CPUs, so their "
                              "[cstate] names, psci_suspend_param, latencies, residency and "
                              "local_timer_stop must match (per-CPU drivers are not modelled)",
                              t0->name, t1->name);
    }
    return 0;
}

/* The registry's view of psci_idle (kernel/cpuidle/driver.h). */
static int psci_idle_probe(const struct hw_machine *m, const struct kparams *kp,
                           struct cpuidle_driver *drv, char *source, size_t sourcesize, char *why,
                           size_t whysize)
{
    (void)kp;
    return psci_idle_init(m, drv, source, sourcesize, why, whysize);
}

const struct cpuidle_driver_ops psci_idle_driver_ops = {
    .name = "psci_idle",
    .probe = psci_idle_probe,
};
