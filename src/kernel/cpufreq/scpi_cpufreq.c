/* scpi_cpufreq: scpi-cpufreq (drivers/cpufreq/scpi-cpufreq.c), the scaling
 * driver of Arm boards whose System Control Processor runs DVFS over SCPI,
 * as Juno does (each CPU node's clocks = <&scpi_dvfs N>).
 *
 * What it does in the kernel, and here: the OPPs come from the SCP's DVFS
 * table (the machine file's [core_type] opp_mhz); the CPUs sharing a clock
 * domain share one policy (scpi_get_sharing_cpus: on Juno the cluster, the
 * machine's l2_groups group), so a cluster runs at one frequency; a request
 * is resolved to an OPP (CPUFREQ_RELATION_L) and handed to the SCP. The
 * generic governors serve it; schedutil is the default
 * (cpufreq.default_governor).
 *
 * Departure, the shared policy: the kernel's schedutil on a shared policy
 * takes the highest utilisation over the policy's CPUs at each update
 * (sugov_next_freq_shared); pmlab keeps one policy and one schedutil per
 * CPU, and this driver runs the cluster at the highest of its CPUs' latest
 * requests. That is the same frequency while the CPUs' requests are fresh;
 * an idle CPU's last request holds until its next update, where the
 * kernel's would fall with its decaying blocked utilisation. Per-CPU limits
 * (scaling_max_freq) of one cluster are not merged into one either.
 *
 * Transition latency: what the SCP reports (scpi_ops->get_transition_latency)
 * is not published for Juno; SCPI_LATENCY_NS is an estimate (a mailbox round
 * trip to the SCP plus a PLL and regulator change, of the order of 1 ms),
 * which sets schedutil's rate limit (cpufreq_rate_limit_ns). */
#include "kernel/cpufreq/cpufreq.h"
#include "world.h"

#define SCPI_LATENCY_NS (1 * SIM_NS_PER_MS)  /* estimate, see above */

/* The frequency the cluster of cpu runs at: the highest request of its
 * CPUs, set on every core of it. */
static void scpi_cluster_apply(struct world *w, int cpu)
{
    const struct hw_machine *m = w->machine;
    int cluster = m->l2_group[cpu];
    uint32_t khz = 0;
    for (int c = 0; c < m->ncpus; c++)
        if (m->l2_group[c] == cluster && w->cpufreq.policy[c].cur_khz > khz)
            khz = w->cpufreq.policy[c].cur_khz;
    if (!khz)
        return;
    for (int core = 0; core < m->ncores; core++)
        if (m->l2_group[m->cores[core].cpus[0]] == cluster)
            cpufreq_set_core_mhz(w, core, khz / 1000);
}

/* scpi_cpufreq_set_target, reached through __cpufreq_driver_target: the
 * OPP at or above the request (RELATION_L), for the whole cluster. */
static void scpi_cpufreq_target(struct world *w, struct cpufreq_policy *p, uint32_t khz)
{
    p->cur_khz = cpufreq_resolve_khz(p, khz);
    scpi_cluster_apply(w, p->cpu);
}

static const struct cpufreq_driver scpi_cpufreq_driver = {
    .name = "scpi-cpufreq",
    .transition_latency_ns = SCPI_LATENCY_NS,
    .target = scpi_cpufreq_target,
};

const struct cpufreq_driver *scpi_cpufreq_probe(const struct hw_machine *m)
{
    if (!hw_machine_is_arm(m))
        return NULL;
    for (int t = 0; t < m->ntypes; t++)
        if (m->types[t].nopp == 0)
            return NULL;   /* no DVFS table: the kernel gets no OPPs, no driver */
    return &scpi_cpufreq_driver;
}
