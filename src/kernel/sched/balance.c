/* balance: asym packing, the part of the kernel's load balancer that acts on
 * ITMT priorities (kernel/sched/fair.c, SD_ASYM_PACKING; FACTS.md §6 [A5]).
 *
 * Why it matters: without priorities a lone running task is never moved, as
 * every x86 CPU has the same capacity before v6.12; with them, work drifts to
 * the highest-priority idle CPUs (on a hybrid part, the P-cores).
 *
 * Kept of the kernel:
 *  - the busy-CPU check on every scheduler tick (CONFIG_HZ): in the kernel,
 *    nohz_balancer_kick() sees an idle CPU that sched_asym_prefer()s over
 *    this one and kicks an idle CPU to balance, which then pulls the running
 *    task by active balance. Modelled as the move itself, at the tick;
 *  - newly idle balancing: a CPU with nothing to run pulls the running task
 *    of the lowest-priority busy CPU below it (asym_active_balance);
 *  - the destination: the highest-priority idle CPU (lowest number on ties);
 *    since v6.5 only a fully idle core packs (sched_use_asym_prio), so an
 *    idle SMT sibling of a busy core does not pull; before, the lower
 *    sibling priorities (itmt.c) did the same job.
 * Dropped: the ILB CPU's own cost and the kick IPI, balance intervals and
 * busy_factor (the real pull may come a few ticks later), migration cost and
 * cache hotness (task_hot), the stop-machine delay of active balance, misfit
 * and SMT-spreading balancing (group_smt_balance). Tasks that poll (KVM
 * halt polling segments) and tasks pinned to one CPU are never moved. */
#include <stdbool.h>
#include <stddef.h>

#include "kernel/sched/sched.h"
#include "world.h"
#include "util/container.h"


/* 046a5a95c3b0 series: sched_use_asym_prio. A constant, not a string: it is
 * compared for every candidate CPU of every balance tick. */
static const struct kversion sched_asym_core_idle_since = { 6, 5, 0 };

static int sched_prio(const struct world *w, int cpu)
{
    return w->sched.itmt.prio[cpu];
}

/* Whether idle cpu may receive work by asym packing (see top). */
static bool sched_asym_dst_ok(const struct world *w, int cpu)
{
    if (!sched_cpu_idle(w, cpu))
        return false;
    if (kversion_cmp(&w->kp->kernel, &sched_asym_core_idle_since) >= 0)
        return sched_core_is_idle(w, cpu);
    return true;
}

/* Whether the task running on cpu may be moved: it runs work (not a poll)
 * and its affinity is not this one CPU. */
static bool sched_asym_movable(const struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    return c->curr && !c->waking && !c->in_done && !c->curr->polling &&
           c->curr->nr_cpus_allowed != 1;
}

int sched_asym_find_dst(const struct world *w, int src)
{
    int best = -1;
    for (int cpu = 0; cpu < w->sched.ncpus; cpu++) {
        if (cpu == src || sched_prio(w, cpu) <= sched_prio(w, src) || !sched_asym_dst_ok(w, cpu) ||
            !task_allowed_on(w->sched.cpu[src].curr, cpu))
            continue;
        if (best < 0 || sched_prio(w, cpu) > sched_prio(w, best))
            best = cpu;
    }
    return best;
}

void sched_balance_arm(struct world *w, int cpu)
{
    struct sim_event *ev = &w->sched.cpu[cpu].balance_ev;
    if (!w->sched.asym_packing || sim_event_pending(ev))
        return;
    sim_time_t period = w->idle.tick_period_ns;
    sim_event_schedule(&w->q, ev, (w->q.now_ns / period + 1) * period);
}

void sched_balance_tick(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct sched_cpu *c = container_of(ev, struct sched_cpu, balance_ev);
    int cpu = (int)(c - w->sched.cpu);
    if (!sched_asym_movable(w, cpu))
        return;   /* no longer busy: sched_start re-arms */
    int dst = sched_asym_find_dst(w, cpu);
    if (dst >= 0)
        sched_migrate_running(w, cpu, dst);
    if (c->curr)
        sched_balance_arm(w, cpu);
}

bool sched_balance_newidle(struct world *w, int cpu)
{
    if (kversion_cmp(&w->kp->kernel, &sched_asym_core_idle_since) >= 0) {
        int sib = hw_thread_sibling(&w->hw, cpu);
        if (sib >= 0 && !sched_cpu_idle(w, sib))
            return false;
    }
    int src = -1;
    for (int k = 0; k < w->sched.ncpus; k++) {
        if (k == cpu || !sched_asym_movable(w, k) || sched_prio(w, k) >= sched_prio(w, cpu) ||
            !task_allowed_on(w->sched.cpu[k].curr, cpu))
            continue;
        if (src < 0 || sched_prio(w, k) < sched_prio(w, src))
            src = k;
    }
    if (src < 0)
        return false;
    sched_pull_running(w, src, cpu);
    return true;
}
