/* isolation_run: what the housekeeping masks (isolation.h) do while a run
 * goes: adaptive ticks on nohz_full CPUs, where unbound timers and
 * interrupts land, the tasks' default affinity, offline SMT threads. Every
 * function is a no-op when no mask is set, so runs without these
 * parameters are what they were. */
#include "kernel/sched/isolation_run.h"

#include <stdlib.h>

#include "hw/cpu.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/sched.h"
#include "util/container.h"
#include "util/xalloc.h"
#include "world.h"

#define ISOL_RESIDUAL_TICK_NS SIM_NS_PER_S   /* HZ jiffies: at most 1 s between ticks */

static void isol_remote_tick(struct sim_event *ev, void *arg);

void isol_init(struct world *w)
{
    struct isol_sys *is = &w->isol;
    housekeeping_resolve(w->machine, w->kp, &is->hk);
    is->host_scope = (struct rpt_cpu_scope){ .cpus = is->hk.online, .prefix = "" };
    if (!is->hk.any)
        return;
    int n = w->machine->ncpus;
    is->cpu = xcalloc((size_t)n, sizeof *is->cpu);
    for (int cpu = 0; cpu < n; cpu++) {
        sim_event_init(&is->cpu[cpu].remote_tick_ev, isol_remote_tick);
        is->cpu[cpu].last_tick_ns = -ISOL_RESIDUAL_TICK_NS;
        /* sched_tick_start at CPU online: the remote tick work is queued
         * every HZ from then on, for each nohz_full CPU (v4.17+). */
        if (is->hk.nohz_full[cpu] && is->hk.remote_tick)
            sim_event_schedule(&w->q, &is->cpu[cpu].remote_tick_ev, ISOL_RESIDUAL_TICK_NS);
    }
}

void isol_destroy(struct world *w)
{
    free(w->isol.cpu);
    w->isol.cpu = NULL;
    housekeeping_destroy(&w->isol.hk);
}

int isol_online_ncpus(const struct world *w)
{
    int n = w->machine->ncpus;
    if (w->isol.hk.offline_any)
        for (int cpu = 0; cpu < w->machine->ncpus; cpu++)
            n -= w->isol.hk.offline[cpu];
    return n;
}

bool isol_cpu_offline(const struct world *w, int cpu)
{
    return w->isol.hk.offline_any && w->isol.hk.offline[cpu];
}

int isol_timer_cpu(const struct world *w, int cpu)
{
    return w->isol.hk.any ? w->isol.hk.timer_cpu[cpu] : cpu;
}

int isol_irq_cpu(const struct world *w, int cpu)
{
    return w->isol.hk.managed_any && w->isol.hk.managed_irq[cpu] ? w->isol.hk.timer_cpu[cpu] : cpu;
}

bool isol_in_nohz_idle_mask(const struct world *w, int cpu)
{
    const struct housekeeping *hk = &w->isol.hk;
    /* nohz_balance_enter_idle: not for a CPU outside HK_TYPE_SCHED
     * (nohz_full) nor one on the NULL domain (isolated, offline). */
    return !hk->any || (!hk->nohz_full[cpu] && hk->in_domains[cpu]);
}

/* can_stop_full_tick with sched_can_stop_tick (kernel/time/tick-sched.c,
 * kernel/sched/core.c): on a nohz_full CPU the tick can stop while no more
 * than one CFS task is runnable (all of pmlab's tasks are CFS; the other
 * dependencies, posix CPU timers, perf events, RCU, are not modelled). */
bool tick_nohz_full_stopped(const struct world *w, int cpu)
{
    const struct housekeeping *hk = &w->isol.hk;
    if (!hk->nohz_full_any || !hk->nohz_full[cpu])
        return false;
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    return c->curr && !c->waking && w->sched.nr_running[cpu] <= 1;
}

sim_time_t tick_nohz_full_next_ns(const struct world *w, int cpu, sim_time_t next_ns)
{
    if (!tick_nohz_full_stopped(w, cpu))
        return next_ns;
    if (w->isol.hk.remote_tick)
        return SIM_TIME_MAX;   /* sched_tick_remote stands in for it */
    /* scheduler_tick_max_deferment (before v4.17): a tick at least once a
     * second after the CPU's last one, on a tick boundary. */
    sim_time_t period = SIM_NS_PER_S / w->idle.hz;
    sim_time_t at = w->isol.cpu[cpu].last_tick_ns + ISOL_RESIDUAL_TICK_NS;
    at = (at + period - 1) / period * period;
    return at > next_ns ? at : next_ns;
}

void isol_tick_ran(struct world *w, int cpu)
{
    if (!w->isol.hk.any)
        return;
    struct isol_cpu *ic = &w->isol.cpu[cpu];
    ic->nr_ticks++;
    ic->last_tick_ns = w->q.now_ns;
    /* the tick's timer softirq runs the deferrable timers that waited */
    idle_run_deferred_timers(w, cpu);
}

/* sched_tick_remote (v4.17+), queued on a housekeeping CPU every HZ: when
 * the nohz_full CPU's tick is stopped with a task running, its task_tick
 * (entity_tick's update_load_avg, which calls cpufreq_update_util, and
 * update_misfit_status); no load balancing. The kworker's own run on the
 * housekeeping CPU is not charged. */
static void isol_remote_tick(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct isol_cpu *ic = container_of(ev, struct isol_cpu, remote_tick_ev);
    int cpu = (int)(ic - w->isol.cpu);
    sim_event_schedule(&w->q, ev, w->q.now_ns + ISOL_RESIDUAL_TICK_NS);
    if (!tick_nohz_full_stopped(w, cpu))
        return;
    ic->nr_remote_ticks++;
    sched_update_misfit_status(w, cpu);
    cpufreq_update_util(w, cpu);
}

void tick_nohz_full_nr_changed(struct world *w, int cpu, int old_nr, int new_nr)
{
    const struct housekeeping *hk = &w->isol.hk;
    if (!hk->nohz_full_any || !hk->nohz_full[cpu] || old_nr >= 2 || new_nr < 2)
        return;
    /* sched_update_tick_dependency: a second runnable task sets
     * TICK_DEP_BIT_SCHED and kicks the CPU, whose tick restarts. */
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (!c->curr)
        return;
    sim_event_cancel(&w->q, &c->balance_ev);
    sched_balance_arm(w, cpu);
    cpufreq_tick_restart(w, cpu);
}

void isol_task_defaults(struct world *w, struct task *t)
{
    const struct housekeeping *hk = &w->isol.hk;
    if (!hk->isolated_any && !hk->offline_any)
        return;
    /* sched_init_smp: init runs on HK_TYPE_DOMAIN (and the active CPUs),
     * every task inherits it; an explicit affinity (taskset, a pinned
     * vCPU) is the user's. */
    if (t->pin_cpu < 0 && !t->cpus_mask)
        task_set_cpus_allowed(t, hk->in_domains, hk->ncpus);
}

void isol_park_offline(struct world *w, int cpu)
{
    /* mwait_play_dead: the deepest hardware C-state; kernel IBRS stays set
     * unless v6.7's offline path clears SPEC_CTRL first. */
    const struct hw_core_type *t = &w->machine->types[w->machine->cpus[cpu].type];
    hw_thread_set_ibrs(&w->hw, cpu, w->isol.hk.offline_ibrs && w->idle.kernel_ibrs);
    sched_set_hw_mode(w, cpu, HW_THREAD_IDLE, t->ncstates - 1);
}

void isol_collect_metrics(const struct world *w, sim_time_t window_ns,
                          struct rpt_metric_set *out)
{
    const struct housekeeping *hk = &w->isol.hk;
    if (!hk->nohz_full_any || window_ns <= 0)
        return;
    uint64_t ticks = 0, remote = 0;
    int n = 0;
    for (int cpu = 0; cpu < hk->ncpus; cpu++) {
        if (!hk->nohz_full[cpu])
            continue;
        n++;
        ticks += w->isol.cpu[cpu].nr_ticks - w->isol.cpu[cpu].base_ticks;
        remote += w->isol.cpu[cpu].nr_remote_ticks - w->isol.cpu[cpu].base_remote_ticks;
    }
    double cpu_s = (double)window_ns / SIM_NS_PER_S * n;
    rpt_set_put(out, "nohz_full_busy_ticks_per_s", "1/s", RPT_NEUTRAL, (double)ticks / cpu_s);
    rpt_set_put(out, "nohz_full_remote_ticks_per_s", "1/s", RPT_NEUTRAL, (double)remote / cpu_s);
}

void isol_measure_reset(struct world *w)
{
    if (!w->isol.hk.any)
        return;
    for (int cpu = 0; cpu < w->isol.hk.ncpus; cpu++) {
        w->isol.cpu[cpu].base_ticks = w->isol.cpu[cpu].nr_ticks;
        w->isol.cpu[cpu].base_remote_ticks = w->isol.cpu[cpu].nr_remote_ticks;
    }
}
