/* schedutil: frequency from the scheduler's utilisation
 * (kernel/sched/cpufreq_schedutil.c, FACTS.md §5 [F1, F2, F3]).
 *
 * Why it works: with frequency-invariant utilisation, util/max is the share
 * of the CPU's full speed the work needs; asking for 1.25 x fmax x util/max
 * leaves 20 % headroom (the tipping point: a CPU busier than 80 % at its
 * frequency pushes util past the point where the next request is higher),
 * so a CPU that saturates climbs until it no longer does. Requests go out at
 * most once per rate limit (the driver's transition_delay_us, else derived
 * from its transition latency), except when the limits changed. A CPU that
 * has not been idle since the last update is not slowed down: its util may
 * be low only because it ran slowly, and dropping the frequency then would
 * feed on itself.
 *
 * Every policy is single-CPU here, as intel_pstate and acpi-cpufreq make
 * them, so this is sugov_update_single. Left out: the IO-wait boost (pmlab's
 * tasks do not sleep on IO as such), the runnable boost of
 * cpu_util_cfs_boost and DL/IRQ utilisation. HWP passive mode's
 * adjust_perf path (sugov_update_single_perf) is this one: its performance
 * level reaches intel_pstate.c as the target frequency, rounded up to a
 * whole ratio as intel_cpufreq_adjust_perf rounds it, and becomes the HWP
 * desired level there. */
#include <stdint.h>

#include "kernel/cpufreq/cpufreq.h"
#include "world.h"

struct sugov_policy {
    sim_time_t rate_limit_ns;
    sim_time_t last_freq_update_ns;
    uint32_t next_freq_khz;
    bool need_freq_update;      /* limits changed: bypass the rate limit */
    uint64_t saved_idle_calls;
};

static bool sugov_should_update_freq(const struct sugov_policy *sg, sim_time_t now)
{
    if (sg->need_freq_update)
        return true;
    return now - sg->last_freq_update_ns >= sg->rate_limit_ns;
}

/* Not idle since the last call: sugov_cpu_is_busy (updates the snapshot).
 * "Idle" is the tick code's count of idle entries that stopped (or tried to
 * stop) the tick, read at the update: a task's dequeue updates before its
 * CPU enters the idle loop, so the next wake-up sees the idle period. */
static bool sugov_cpu_is_busy(struct sugov_policy *sg, uint64_t idle_calls)
{
    bool busy = idle_calls == sg->saved_idle_calls;
    sg->saved_idle_calls = idle_calls;
    return busy;
}

/* sugov_get_util's CFS part (cpu_util_cfs_boost, v4.17's a07630b8b2c1):
 * the runqueue's util, at least the estimates of its enqueued tasks
 * (util_est, fair_util_est.c), relative to this CPU's own capacity as
 * pelt_cpu's signal is. */
static double sugov_cfs_util(const struct world *w, int cpu, const struct pelt_cpu *pc)
{
    double util = (double)pc->avg.util_avg;
    double est = (double)sched_cpu_util_est(w, cpu);
    if (est > 0) {
        est = est * PELT_SCALE / (double)w->sched.topo.capacity[cpu];
        util = util > est ? util : est;
    }
    return util < PELT_SCALE ? util : PELT_SCALE;
}

/* effective_cpu_util and the clamps, as the util get_next_freq scales.
 * Without uclamp in use a runnable RT task asks for the maximum. With it,
 * the CPU's util (the RT tasks' running time is in pmlab's one signal, as
 * util_cfs + cpu_util_rt) is clamped by the runqueue's uclamp_min and
 * uclamp_max (RT's default uclamp_min of 1024 again asks for the maximum):
 * before v6.8 the clamped util gets the 1.25 headroom (uclamp_rq_util_with,
 * then map_util_perf in get_next_freq), from v6.8 the headroom comes first
 * and the clamps bound the result (sugov_effective_cpu_perf: a cap of 512
 * asks for half of fmax, not 1.25 x half). */
static double sugov_effective_util(const struct world *w, int cpu, const struct pelt_cpu *pc)
{
    const struct uclamp_sys *u = &w->sched.uclamp;
    if (!uclamp_is_used(u))
        return sched_rt_runnable(w, cpu) ? PELT_SCALE : sugov_cfs_util(w, cpu, pc);
    double util = sugov_cfs_util(w, cpu, pc);
    double lo = uclamp_rq_get(w, cpu, UCLAMP_MIN), hi = uclamp_rq_get(w, cpu, UCLAMP_MAX);
    if (!u->perf_v6_8) {
        if (lo >= hi)
            return lo;
        return util < lo ? lo : util > hi ? hi : util;
    }
    double perf = 1.25 * util;
    if (perf > hi)
        perf = hi;
    if (perf < lo)
        perf = lo;
    return perf / 1.25;
}

/* uclamp_rq_is_capped (v5.18, 7a17e1db1265): the runqueue's uclamp_max
 * holds its util down, so the "busy" filter must not keep the frequency
 * up (a busy capped task would otherwise never slow down). */
static bool sugov_rq_is_capped(const struct world *w, int cpu, const struct pelt_cpu *pc)
{
    const struct uclamp_sys *u = &w->sched.uclamp;
    if (!uclamp_is_used(u) || !u->capped_skips_busy)
        return false;
    unsigned hi = uclamp_rq_get(w, cpu, UCLAMP_MAX);
    return hi != UCLAMP_SCALE && sugov_cfs_util(w, cpu, pc) >= hi;
}

/* get_next_freq: 1.25 x fmax x util / max, resolved to the table. */
static uint32_t sugov_get_next_freq(const struct cpufreq_policy *p, double util)
{
    double f = 1.25 * (double)p->cpuinfo_max_khz * util / PELT_SCALE;
    uint32_t khz = f >= (double)p->max_khz ? p->max_khz : (uint32_t)f;
    return cpufreq_resolve_khz(p, khz);
}

static void sugov_update_single(struct world *w, struct cpufreq_policy *p)
{
    struct sugov_policy *sg = p->gov_data;
    const struct pelt_cpu *pc = &w->cpufreq.pelt[p->cpu];
    sim_time_t now = w->q.now_ns;
    if (!sugov_should_update_freq(sg, now))
        return;
    bool busy = !sg->need_freq_update && !sugov_rq_is_capped(w, p->cpu, pc) &&
                sugov_cpu_is_busy(sg, tick_nohz_get_idle_calls_cpu(w, p->cpu));
    uint32_t next = sugov_get_next_freq(p, sugov_effective_util(w, p->cpu, pc));
    if (busy && next < sg->next_freq_khz)
        next = sg->next_freq_khz;
    if (next == sg->next_freq_khz && !sg->need_freq_update)
        return;
    sg->need_freq_update = false;
    sg->next_freq_khz = next;
    sg->last_freq_update_ns = now;
    cpufreq_driver_target(w, p, next);
}

static void sugov_start(struct world *w, struct cpufreq_policy *p)
{
    struct sugov_policy *sg = p->gov_data;
    sg->rate_limit_ns = cpufreq_rate_limit_ns(w->cpufreq.driver, &w->kp->kernel);
    sg->last_freq_update_ns = 0;
    sg->next_freq_khz = 0;
    sg->need_freq_update = true;
    sg->saved_idle_calls = tick_nohz_get_idle_calls_cpu(w, p->cpu);
    sugov_update_single(w, p);
}

static void sugov_limits(struct world *w, struct cpufreq_policy *p)
{
    struct sugov_policy *sg = p->gov_data;
    sg->need_freq_update = true;
    sugov_update_single(w, p);
}

const struct cpufreq_governor cpufreq_gov_schedutil = {
    .name = "schedutil",
    .data_size = sizeof(struct sugov_policy),
    .needs_util = true,
    .samples = true,
    .start = sugov_start,
    .limits = sugov_limits,
    .update = sugov_update_single,
};
