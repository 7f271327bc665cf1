/* explain_idle: the idle lines of `pmlab explain`, printed from what the
 * kernel's idle code resolves (struct idle_explain, kernel/sched/idle.h): the
 * Spectre v2 mitigation, the tick, the cpuidle driver and governor with every
 * state (latency, residency, entry method, the CPUs it is disabled on, in
 * capitals when there are any), the states intel_idle.max_cstate removed,
 * and the PM QoS limits as their files read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/sched/idle.h"
#include "report/explain.h"
#include "util/cpulist.h"
#include "util/xalloc.h"

/* PM_QOS_RESUME_LATENCY_NO_CONSTRAINT (S32_MAX): pm_qos_resume_latency_us
 * reads "0" for it, and "n/a" for 0. */
#define EXPLAIN_QOS_NO_CONSTRAINT_US 2147483647

static const char *explain_enter_name(enum cpuidle_enter_method m)
{
    static const char *const names[] = {
        [CPUIDLE_ENTER_POLL] = "poll (IRQs on)",
        [CPUIDLE_ENTER_MWAIT] = "mwait (IRQs off)",
        [CPUIDLE_ENTER_MWAIT_IRQ] = "mwait (IRQs on)",
        [CPUIDLE_ENTER_MWAIT_IBRS] = "mwait, IBRS off (IRQs off)",
        [CPUIDLE_ENTER_MWAIT_XSTATE] = "mwait, XSTATE init (IRQs off)",
        [CPUIDLE_ENTER_HLT] = "hlt (IRQs on)",
        [CPUIDLE_ENTER_IO] = "I/O port read (IRQs off)",
        [CPUIDLE_ENTER_WFI] = "wfi (IRQs off)",
        [CPUIDLE_ENTER_PSCI] = "psci cpu_suspend (IRQs off)",
    };
    return names[m];
}

/* mask[ncpus] as a CPU list, "none" when empty; the caller frees it. */
static char *explain_cpus(const bool *mask, int ncpus)
{
    char *list = cpulist_format(mask, ncpus);
    if (list[0])
        return list;
    free(list);
    return xstrdup("none");
}

static void explain_idle_states(struct explain *x, const struct idle_explain *e)
{
    for (int i = 0; i < e->drv.state_count; i++) {
        const struct cpuidle_state *st = &e->drv.states[i];
        char *cpus = explain_cpus(e->state_disabled + (size_t)i * (size_t)e->ncpus, e->ncpus);
        /* A state disabled anywhere says so in capitals: the governor never
         * picks it there. */
        bool disabled = strcmp(cpus, "none") != 0;
        char hw[96] = "";
        const struct hw_cstate *h = e->hw_state[i];
        if (h)
            snprintf(hw, sizeof hw, "; hardware %s %s exit %lld us", e->hw_type, h->name,
                     (long long)(h->exit_latency_ns / 1000));
        explain_add(x, "cpuidle state%d: %-4s %-12s latency %lld us, residency %lld us, %s%s%s; "
                    "%s on cpus: %s%s", i, st->name, st->desc,
                    (long long)(st->exit_latency_ns / 1000),
                    (long long)(st->target_residency_ns / 1000), explain_enter_name(st->enter),
                    st->flags & CPUIDLE_FLAG_TLB_FLUSHED ? ", TLB flushed" :
                    st->flags & CPUIDLE_FLAG_TIMER_STOP ? ", local timer stops" : "",
                    st->flags & CPUIDLE_FLAG_OFF ? ", off by default" : "",
                    disabled ? "DISABLED" : "disabled", cpus, hw);
        free(cpus);
    }
    /* The kernel stops at max_cstate: the states after it are not in the
     * driver at all (no stateN directory), which a diff of the state list
     * alone would not show. */
    for (int i = 0; i < e->nremoved; i++)
        explain_add(x, "cpuidle REMOVED: %-4s beyond intel_idle.max_cstate=%d: not registered, "
                    "no sysfs stateN directory", e->removed[i], e->max_cstate);
}

/* Per-CPU resume-latency limits, grouped by value in order of first CPU. */
static void explain_idle_qos(struct explain *x, const struct idle_explain *e)
{
    explain_add(x, "pm_qos: /dev/cpu_dma_latency %lld us%s", (long long)e->cpu_dma_latency_us,
                e->cpu_dma_latency_set ? "" : " (default: no limit)");
    bool *same = xcalloc((size_t)e->ncpus, sizeof *same);
    for (int cpu = 0; cpu < e->ncpus; cpu++) {
        int64_t v = e->resume_latency_us[cpu];
        bool seen = false;
        for (int k = 0; k < cpu && !seen; k++)
            seen = e->resume_latency_us[k] == v;
        if (seen)
            continue;
        for (int k = 0; k < e->ncpus; k++)
            same[k] = e->resume_latency_us[k] == v;
        char *cpus = explain_cpus(same, e->ncpus);
        if (v == 0)
            explain_add(x, "pm_qos: resume latency n/a (no latency at all) on cpus %s", cpus);
        else if (v >= EXPLAIN_QOS_NO_CONSTRAINT_US)
            explain_add(x, "pm_qos: resume latency 0 (no constraint) on cpus %s", cpus);
        else
            explain_add(x, "pm_qos: resume latency %lld us on cpus %s", (long long)v, cpus);
        free(cpus);
    }
    free(same);
}

void explain_add_idle(struct explain *x, const struct idle_explain *e)
{
    explain_add(x, "spectre_v2: %s", e->spectre_v2);
    explain_add(x, "tick: CONFIG_HZ=%d, idle tick stop %s", e->hz,
                e->nohz ? "on (NO_HZ_IDLE)" : "off");
    if (e->mode == IDLE_MODE_CPUIDLE) {
        explain_add(x, "cpuidle: driver %s, governor %s", e->drv.name, e->governor);
        explain_add(x, "cpuidle: states from %s", e->driver_source);
        explain_idle_states(x, e);
    } else {
        explain_add(x, "cpuidle: no driver: %s", e->why_no_driver);
    }
    explain_idle_qos(x, e);
}
