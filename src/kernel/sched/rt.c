/* rt: the real-time class, SCHED_FIFO and SCHED_RR (kernel/sched/rt.c,
 * kernel/sched/cpupri.c).
 *
 * What is kept:
 *  - class order (pick_next_task): a CPU runs its queued RT tasks before any
 *    fair one, the best priority first and, within one priority, in the order
 *    they were queued; a preempted RT task keeps its place at the front;
 *  - wake-up preemption (wakeup_preempt_rt, and the class check in
 *    wakeup_preempt): an RT task preempts a fair task at once, and a lower
 *    RT priority;
 *  - SCHED_RR's time slice, sched_rr_timeslice (RR_TIMESLICE, 100 ms), counted
 *    in ticks of running time (task_tick_rt): at its end the task goes to the
 *    back of its priority's queue when another task of that priority waits,
 *    and gets a new slice either way;
 *  - placement (select_task_rq_rt): the task's previous CPU unless that CPU
 *    runs an RT task of the same or a better priority (or one pinned there),
 *    then find_lowest_rq: the CPUs whose best RT priority (cpupri) is the
 *    lowest level below the task's, preferring the previous CPU, then the
 *    waker's CPU, then one of the lowest CPUs in the previous CPU's smallest
 *    domain, round robin (cpumask_any_and_distribute).
 * What is dropped: push and pull of queued RT tasks between CPUs
 * (push_rt_task, pull_rt_task: an RT task queued behind a better one waits
 * there), RT throttling (sched_rt_runtime_us: an RT task may take a whole
 * CPU), the capacity fitness of asymmetric-capacity CPUs
 * (rt_task_fits_capacity: on Arm big.LITTLE machines such as Juno an RT task
 * is placed without it; pmlab's x86 hybrids have capacity 1024 everywhere),
 * SCHED_DEADLINE and priority inheritance. */
#include <stddef.h>

#include "kernel/sched/sched.h"
#include "kernel/time/tick_sched.h"
#include "util/container.h"
#include "world.h"

#define MAX_RT_PRIO 100
#define FAIR_PRIO 120           /* DEFAULT_PRIO: nice 0 */

int task_prio(const struct task *t)
{
    return task_is_rt(t) ? MAX_RT_PRIO - 1 - t->rt_priority : FAIR_PRIO;
}

bool sched_rt_runnable(const struct world *w, int cpu)
{
    if (!w->sched.cpu)
        return false;   /* cpufreq starts before the scheduler: nothing runs yet */
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    return c->nr_rt_queued > 0 || (c->curr && task_is_rt(c->curr));
}

int sched_rt_highest_prio(const struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    int best = MAX_RT_PRIO;
    if (c->curr && task_is_rt(c->curr))
        best = task_prio(c->curr);
    for (const struct task *p = c->head; p && c->nr_rt_queued; p = p->next)
        if (task_is_rt(p) && task_prio(p) < best)
            best = task_prio(p);
    return best;
}

bool sched_rt_preempts(const struct world *w, int cpu, const struct task *t)
{
    const struct task *curr = w->sched.cpu[cpu].curr;
    return curr && task_is_rt(t) && task_prio(t) < task_prio(curr);
}

struct task *sched_rt_pick_queued(const struct world *w, int cpu)
{
    struct task *best = NULL;
    for (struct task *p = w->sched.cpu[cpu].head; p; p = p->next)
        if (task_is_rt(p) && (!best || task_prio(p) < task_prio(best)))
            best = p;
    return best;
}

/* cpupri_find's level of cpu (convert_prio): fair-only and idle CPUs share
 * the lowest (CPUPRI_NORMAL, since v5.11 the idle level is the same), an RT
 * CPU sits at its best RT priority. Lower numbers are lower levels here. */
static int cpupri_level(const struct world *w, int cpu)
{
    int prio = sched_rt_highest_prio(w, cpu);
    return prio >= MAX_RT_PRIO ? 0 : MAX_RT_PRIO - prio;
}

/* The lowest cpupri level below t's own that holds a CPU t may run on, or
 * -1 (cpupri_find). mask[ncpus] gets that level's allowed CPUs. */
static int cpupri_find(const struct world *w, const struct task *t, bool *mask)
{
    int ncpus = w->sched.ncpus, best = -1;
    int t_level = MAX_RT_PRIO - task_prio(t);
    for (int cpu = 0; cpu < ncpus; cpu++) {
        if (!task_allowed_on(t, cpu))
            continue;
        int level = cpupri_level(w, cpu);
        if (level < t_level && (best < 0 || level < best))
            best = level;
    }
    for (int cpu = 0; cpu < ncpus; cpu++)
        mask[cpu] = best >= 0 && task_allowed_on(t, cpu) && cpupri_level(w, cpu) == best;
    return best;
}

/* cpumask_any_and_distribute(mask, span) for a call on this_cpu: the first
 * CPU of both after this_cpu's previous answer, wrapping; -1 if none. */
static int rt_any_distribute(struct world *w, int this_cpu, const bool *mask,
                             const struct sched_span *span)
{
    int ncpus = w->sched.ncpus;
    int *prev = &w->sched.rt_distribute_prev[this_cpu];
    for (int k = 1; k <= ncpus; k++) {
        int cpu = (*prev + k) % ncpus;
        if (mask[cpu] && (!span || sched_span_test_cpu(span, cpu))) {
            *prev = cpu;
            return cpu;
        }
    }
    return -1;
}

/* find_lowest_rq for t, whose previous CPU is task_cpu, woken from this_cpu. */
static int find_lowest_rq(struct world *w, struct task *t, int task_cpu, int this_cpu)
{
    bool *mask = w->sched.scan_mask;
    if (t->nr_cpus_allowed == 1 || t->pin_cpu >= 0)
        return -1;
    if (cpupri_find(w, t, mask) < 0)
        return -1;
    if (mask[task_cpu])
        return task_cpu;
    if (!mask[this_cpu])
        this_cpu = -1;
    const struct sched_topology *topo = &w->sched.topo;
    for (int l = 0; l < topo->nr_sd[task_cpu]; l++) {
        const struct sched_domain *sd = &topo->sd[task_cpu * TL_NR + l];
        if (!(sd->flags & SD_WAKE_AFFINE))
            continue;
        if (this_cpu >= 0 && sched_span_test_cpu(sd->span, this_cpu))
            return this_cpu;
        int best = rt_any_distribute(w, task_cpu, mask, sd->span);
        if (best >= 0)
            return best;
    }
    if (this_cpu >= 0)
        return this_cpu;
    return rt_any_distribute(w, task_cpu, mask, NULL);
}

int select_task_rq_rt(struct world *w, struct task *t, int waker_cpu)
{
    int cpu = t->prev_cpu >= 0 ? t->prev_cpu : waker_cpu;
    const struct task *curr = w->sched.cpu[cpu].curr;
    bool busy_rt = curr && curr != t && task_is_rt(curr) &&
                   (curr->nr_cpus_allowed == 1 || curr->pin_cpu >= 0 ||
                    task_prio(curr) <= task_prio(t));
    /* A CPU with an RT task of this or a better priority queued is as taken
     * as one running it: the kernel would queue t there and push it away at
     * once (task_woken_rt -> push_rt_tasks), which pmlab does not model. */
    bool queued_rt = sched_rt_highest_prio(w, cpu) <= task_prio(t) && curr != t;
    if (!busy_rt && !queued_rt)
        return cpu;
    int target = find_lowest_rq(w, t, cpu, waker_cpu);
    if (target >= 0 && task_prio(t) < sched_rt_highest_prio(w, target))
        return target;
    return cpu;
}

/* ---- SCHED_RR ---------------------------------------------------------------- */

void sched_rr_start(struct world *w, int cpu, struct task *t)
{
    if (t->policy != SCHED_POLICY_RR)
        return;
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (t->rr_left_ns <= 0)
        t->rr_left_ns = w->sched.rr_timeslice_ns;
    /* task_tick_rt counts the slice down at each tick the task is running. */
    sim_time_t tick_ns = w->idle.tick_period_ns;
    sim_time_t end = w->q.now_ns + t->rr_left_ns;
    sim_event_schedule(&w->q, &c->rr_ev, tick_next_ns(end - 1, tick_ns));
}

void sched_rr_stop(struct world *w, int cpu, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (t->policy != SCHED_POLICY_RR || !sim_event_pending(&c->rr_ev))
        return;
    t->rr_left_ns -= w->q.now_ns - t->exec_start_ns;
    sim_event_cancel(&w->q, &c->rr_ev);
}

/* Whether a task of t's priority other than t is queued on cpu. */
static bool rr_peer_queued(const struct world *w, int cpu, const struct task *t)
{
    for (const struct task *p = w->sched.cpu[cpu].head; p; p = p->next)
        if (task_is_rt(p) && task_prio(p) == task_prio(t))
            return true;
    return false;
}

void sched_rr_slice_end(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct sched_cpu *c = container_of(ev, struct sched_cpu, rr_ev);
    int cpu = (int)(c - w->sched.cpu);
    struct task *t = c->curr;
    if (!t || t->policy != SCHED_POLICY_RR)
        return;
    t->rr_left_ns = w->sched.rr_timeslice_ns;
    if (rr_peer_queued(w, cpu, t) && !c->in_done && !c->waking)
        sched_requeue_curr(w, cpu);
    else
        sched_rr_start(w, cpu, t);
}
