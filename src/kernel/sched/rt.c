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
 *    runs an RT task of the same or a better priority (or one pinned there;
 *    the running task only, as upstream: one queued there is the push's),
 *    then find_lowest_rq: the CPUs of the previous CPU's root domain whose
 *    best RT priority (cpupri) is the lowest level below the task's,
 *    preferring the previous CPU, then the waker's CPU, then one of the
 *    lowest CPUs in the previous CPU's smallest domain, round robin
 *    (cpumask_any_and_distribute);
 *  - push and pull of queued RT tasks (push_rt_task after task_woken_rt and
 *    after a switch to an RT task, pull_rt_task from balance_rt when a
 *    CPU's RT task sleeps, and from v4.6 RT_PUSH_IPI's IPI chain through
 *    the overloaded CPUs instead of the pull, each IPI costing wake_irq_ns
 *    on the CPU it interrupts), check_preempt_equal_prio, and the root
 *    domains: offline CPUs in none, isolcpus=domain CPUs together in
 *    def_root_domain; the section before SCHED_RR says what of it is kept;
 *  - RT throttling before v6.12 (sched_rt_runtime_us of sched_rt_period_us,
 *    RT_RUNTIME_SHARE by version), at the end of this file; from v6.12
 *    the fair server instead (fair_server.c).
 * What is dropped: the capacity fitness of asymmetric-capacity CPUs
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
    return (c->nr_rt_queued > 0 && !c->rt_throttled) || (c->curr && task_is_rt(c->curr));
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
    return (curr && task_is_rt(t) && !w->sched.cpu[cpu].rt_throttled &&
            task_prio(t) < task_prio(curr)) ||
           sched_rt_preempts_equal(w, cpu, t);
}

/* Whether t may run on one CPU only (p->nr_cpus_allowed == 1). */
static bool rt_task_pinned(const struct task *t)
{
    return t->pin_cpu >= 0 || t->nr_cpus_allowed == 1;
}

/* The root domain of cpu (rq->rd), -1 when it is offline. The CPUs in
 * sched domains share root domain 0. isolcpus=domain CPUs get no domain:
 * cpu_attach_domain(NULL, &def_root_domain, cpu) puts them all together in
 * def_root_domain, 1 here, with its own cpupri and rto_mask. An offline
 * CPU (nosmt, smt/control=off) has left cpupri (rq_offline_rt sets
 * CPUPRI_INVALID) and its rq is not online: it neither pushes nor pulls. */
static int rt_rd_of(const struct world *w, int cpu)
{
    const struct housekeeping *hk = &w->isol.hk;
    if (isol_cpu_offline(w, cpu))
        return -1;
    return hk->isolated_any && hk->isolated[cpu] ? 1 : 0;
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

/* Whether cpu is in root domain rd's cpupri and t may run there. */
static bool cpupri_candidate(const struct world *w, const struct task *t, int rd, int cpu)
{
    return rd >= 0 && rt_rd_of(w, cpu) == rd && task_allowed_on(t, cpu);
}

/* The lowest cpupri level below t's own that holds a CPU of root domain
 * rd that t may run on, or -1 (cpupri_find). mask[ncpus] (NULL: none
 * wanted) gets that level's allowed CPUs. */
static int cpupri_find(const struct world *w, const struct task *t, int rd, bool *mask)
{
    int ncpus = w->sched.ncpus, best = -1;
    int t_level = MAX_RT_PRIO - task_prio(t);
    for (int cpu = 0; cpu < ncpus; cpu++) {
        if (!cpupri_candidate(w, t, rd, cpu))
            continue;
        int level = cpupri_level(w, cpu);
        if (level < t_level && (best < 0 || level < best))
            best = level;
    }
    for (int cpu = 0; mask && cpu < ncpus; cpu++)
        mask[cpu] = best >= 0 && cpupri_candidate(w, t, rd, cpu) && cpupri_level(w, cpu) == best;
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

/* find_lowest_rq for t, whose previous CPU is task_cpu, woken from this_cpu
 * (or pushed by it): in task_cpu's root domain. */
static int find_lowest_rq(struct world *w, const struct task *t, int task_cpu, int this_cpu)
{
    bool *mask = w->sched.scan_mask;
    if (rt_task_pinned(t))
        return -1;
    if (cpupri_find(w, t, rt_rd_of(w, task_cpu), mask) < 0)
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

/* select_task_rq_rt: only the running task counts (rq->curr); an RT task
 * of this or a better priority queued there is no reason to look further,
 * as task_woken_rt's push moves t on if it must wait behind it. */
int select_task_rq_rt(struct world *w, struct task *t, int waker_cpu)
{
    int cpu = t->prev_cpu >= 0 ? t->prev_cpu : waker_cpu;
    const struct task *curr = w->sched.cpu[cpu].curr;
    bool busy_rt = curr && curr != t && task_is_rt(curr) &&
                   (rt_task_pinned(curr) || task_prio(curr) <= task_prio(t));
    if (!busy_rt)
        return cpu;
    int target = find_lowest_rq(w, t, cpu, waker_cpu);
    if (target >= 0 && task_prio(t) < sched_rt_highest_prio(w, target))
        return target;
    return cpu;
}

/* ---- push and pull (rt.c's SMP part, v6.x) ----------------------------------
 *
 * Why: placement sees only a CPU's running task, so an RT task can end up
 * queued behind a better (or equal) one while some other CPU runs nothing
 * as important. Push moves such a queued task to the lowest-priority CPU
 * that would run it at once; pull has a CPU that lowers its priority (its
 * RT task went to sleep) take the best such task waiting elsewhere.
 *
 * A task is pushable when it is queued (not running) and may run on more
 * than one CPU (enqueue_pushable_task); a CPU with a pushable task is
 * overloaded (in rd->rto_mask; the rule since v6.7, 612f769edd06; before,
 * a CPU with two RT tasks of which one could move, not modelled: pmlab
 * uses the newer rule for every version). pmlab computes both from the
 * queues when asked instead of keeping the plist and the mask. Not kept:
 * migrate_disable, RT_GROUP_SCHED, switched_from_rt and prio_changed_rt
 * (a policy changes only while its task sleeps), throttled rt_rqs in
 * cpupri, and find_lowest_rq's this_cpu in a wake-up's push is the
 * wakee's CPU (the kernel's is the waker's). */

/* Whether t sits on a runqueue waiting and may be moved. */
static bool rt_task_pushable(const struct task *t)
{
    return task_is_rt(t) && !rt_task_pinned(t);
}

/* pick_next_pushable_task (dst -1) / pick_highest_pushable_task(rq, dst):
 * cpu's queued pushable task of the best priority, the first queued of it,
 * that may run on dst; NULL if none. */
static struct task *rt_pick_pushable(const struct world *w, int cpu, int dst)
{
    struct task *best = NULL;
    for (struct task *p = w->sched.cpu[cpu].head; p; p = p->next)
        if (rt_task_pushable(p) && (dst < 0 || task_allowed_on(p, dst)) &&
            (!best || task_prio(p) < task_prio(best)))
            best = p;
    return best;
}

/* rq->rt.overloaded: cpu is online and has a pushable task. */
static bool rt_overloaded(const struct world *w, int cpu)
{
    return w->sched.cpu[cpu].nr_rt_queued > 0 && rt_rd_of(w, cpu) >= 0 &&
           rt_pick_pushable(w, cpu, -1) != NULL;
}

/* push_rt_task: move cpu's next pushable task to the lowest-priority CPU
 * (find_lowest_rq, this_cpu = cpu) if that one runs something of a lower
 * priority; false when nothing moved. A pushable task better than the
 * running one runs here instead (resched_curr): not pushed. */
static bool push_rt_task(struct world *w, int cpu)
{
    const struct task *curr = w->sched.cpu[cpu].curr;
    struct task *next = rt_pick_pushable(w, cpu, -1);
    if (!next || rt_rd_of(w, cpu) < 0)
        return false;
    if (!curr || task_prio(next) < task_prio(curr))
        return false;   /* curr NULL: the CPU is on its way to pick it */
    int dst = find_lowest_rq(w, next, cpu, cpu);
    /* find_lock_lowest_rq: the target must still run a lower priority. */
    if (dst < 0 || dst == cpu || sched_rt_highest_prio(w, dst) <= task_prio(next))
        return false;
    w->sched.nr_rt_pushes++;
    sched_rt_move_queued(w, cpu, next, dst, false);
    return true;
}

/* push_rt_tasks: push while a push moves a task (each takes one off cpu). */
static void push_rt_tasks(struct world *w, int cpu)
{
    while (push_rt_task(w, cpu))
        ;
}

void sched_rt_task_woken(struct world *w, int cpu, const struct task *t)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    const struct task *curr = c->curr;
    /* task_woken_rt: t waits (not running, curr not about to be switched
     * out: pmlab's pending preemption is in_wake_kernel) behind an RT task
     * that is pinned or at least as good. A better t runs next here. */
    if (!rt_task_pushable(t) || !curr || !task_is_rt(curr) || c->in_wake_kernel || c->waking)
        return;
    if (task_prio(t) < task_prio(curr))
        return;
    if (rt_task_pinned(curr) || task_prio(curr) <= task_prio(t))
        push_rt_tasks(w, cpu);
}

void sched_rt_switched_to(struct world *w, int cpu, const struct task *t)
{
    (void)t;
    /* set_next_task_rt -> rt_queue_push_tasks: a balance callback when the
     * CPU has pushable tasks (the one just switched out among them). */
    if (rt_overloaded(w, cpu))
        push_rt_tasks(w, cpu);
}

/* The first CPU of root domain rd's rto_mask after cpu (-1: from the
 * start), -1 if none (cpumask_next). */
static int rto_mask_next(const struct world *w, int rd, int cpu)
{
    for (int i = cpu + 1; i < w->sched.ncpus; i++)
        if (rt_rd_of(w, i) == rd && rt_overloaded(w, i))
            return i;
    return -1;
}

/* rto_next_cpu: the iterator's next CPU, scanning rto_mask again while
 * rto_loop_next moved since the scan began (a CPU lowered its priority
 * meanwhile); -1 ends the chain. */
static int rto_next_cpu(struct world *w, int rd)
{
    struct rt_root_domain *r = &w->sched.rt_rd[rd];
    for (;;) {
        r->rto_cpu = rto_mask_next(w, rd, r->rto_cpu);
        if (r->rto_cpu >= 0)
            return r->rto_cpu;
        if (r->rto_loop == r->rto_loop_next)
            return -1;
        r->rto_loop = r->rto_loop_next;
    }
}

/* irq_work_queue_on(&rd->rto_push_work, rd->rto_cpu) at time at_ns. */
static void rto_push_ipi_send(struct world *w, int rd, sim_time_t at_ns)
{
    sim_event_schedule(&w->q, &w->sched.rt_rd[rd].push_ev, at_ns);
}

/* tell_cpu_to_push: start the IPI chain, or (it runs: rto_cpu set) make
 * it scan the mask once more. */
static void tell_cpu_to_push(struct world *w, int rd)
{
    struct rt_root_domain *r = &w->sched.rt_rd[rd];
    r->rto_loop_next++;
    if (r->rto_cpu >= 0)
        return;
    if (rto_next_cpu(w, rd) >= 0)
        rto_push_ipi_send(w, rd, w->q.now_ns);
}

/* rto_push_irq_work_func on rd's rto_cpu: the IPI's handler runs over the
 * task there (wake_irq_ns, the machine's interrupt entry, handler and
 * exit), pushes what that CPU can push, and sends the IPI on to the next
 * overloaded CPU when it is done. */
void sched_rt_push_irq_work(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rt_root_domain *r = container_of(ev, struct rt_root_domain, push_ev);
    int rd = (int)(r - w->sched.rt_rd);
    int cpu = r->rto_cpu;
    w->sched.nr_rt_push_ipis++;
    sched_irq_on_busy(w, cpu, w->idle.wake_irq_ns);
    if (rt_overloaded(w, cpu))
        push_rt_tasks(w, cpu);
    if (rto_next_cpu(w, rd) >= 0)
        rto_push_ipi_send(w, rd, w->q.now_ns + w->idle.wake_irq_ns);
}

/* pull_rt_task for this_cpu, choosing its next task: from each other
 * overloaded CPU of its root domain the best pushable task allowed here
 * that beats what this CPU would run, unless it beats that CPU's running
 * task (it is about to run there). With RT_PUSH_IPI (v4.6+) the
 * overloaded CPUs push instead, one IPI after the other. */
static void pull_rt_task(struct world *w, int this_cpu)
{
    int rd = rt_rd_of(w, this_cpu), ncpus = w->sched.ncpus, count = 0;
    for (int cpu = 0; cpu < ncpus; cpu++)
        count += rt_rd_of(w, cpu) == rd && rt_overloaded(w, cpu);
    if (!count || (count == 1 && rt_overloaded(w, this_cpu)))
        return;
    if (w->sched.rt_push_ipi) {
        tell_cpu_to_push(w, rd);
        return;
    }
    for (int cpu = 0; cpu < ncpus; cpu++) {
        if (cpu == this_cpu || rt_rd_of(w, cpu) != rd || !rt_overloaded(w, cpu))
            continue;
        struct task *p = rt_pick_pushable(w, cpu, this_cpu);
        if (!p || task_prio(p) >= sched_rt_highest_prio(w, this_cpu))
            continue;
        const struct task *src_curr = w->sched.cpu[cpu].curr;
        if (!src_curr || task_prio(p) < task_prio(src_curr))
            continue;
        w->sched.nr_rt_pulls++;
        sched_rt_move_queued(w, cpu, p, this_cpu, true);
    }
}

void sched_rt_balance(struct world *w, int cpu, const struct task *prev)
{
    /* balance_rt -> need_pull_rt_task: an online CPU whose sleeping RT
     * task leaves it at a lower priority (its best queued RT task worse,
     * or fair or idle next). */
    if (rt_rd_of(w, cpu) >= 0 && sched_rt_highest_prio(w, cpu) > task_prio(prev))
        pull_rt_task(w, cpu);
}

bool sched_rt_preempts_equal(const struct world *w, int cpu, const struct task *t)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    const struct task *curr = c->curr;
    if (!curr || !task_is_rt(curr) || !task_is_rt(t) || c->rt_throttled ||
        task_prio(t) != task_prio(curr))
        return false;
    /* check_preempt_equal_prio: useless when curr cannot move; when t can
     * go elsewhere, let push or pull place it. */
    int rd = rt_rd_of(w, cpu);
    if (rt_task_pinned(curr) || cpupri_find(w, curr, rd, NULL) < 0)
        return false;
    return rt_task_pinned(t) || cpupri_find(w, t, rd, NULL) < 0;
}

#define RT_PUSH_IPI_SINCE "4.6"   /* b6366f048e0c, sched_feat default true */

void sched_rt_push_init(struct world *w)
{
    struct sched *s = &w->sched;
    int64_t feat = sched_feat_write(w->kp);
    s->rt_push_ipi = kversion_at_least(&w->kp->kernel, RT_PUSH_IPI_SINCE) &&
                     feat != SCHED_FEAT_NO_RT_PUSH_IPI;
    for (int rd = 0; rd < RT_NR_ROOT_DOMAINS; rd++) {
        s->rt_rd[rd] = (struct rt_root_domain){ .rto_cpu = -1 };
        sim_event_init(&s->rt_rd[rd].push_ev, sched_rt_push_irq_work);
    }
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

/* ---- RT throttling (rt_bandwidth) --------------------------------------------
 *
 * Before v6.12 each CPU's RT tasks may run sched_rt_runtime_us (950 ms) of
 * every sched_rt_period_us (1 s), so that a runaway RT task leaves fair
 * tasks (and kworkers) some time. update_curr_rt adds an RT task's running
 * time to its rt_rq's rt_time at every tick and when it stops; past the
 * runtime the rt_rq is throttled (sched_rt_runtime_exceeded): its tasks
 * leave rq->nr_running and the CPU runs fair tasks or idles. One period
 * timer for all CPUs (do_sched_rt_period_timer), started when an RT task
 * runs after the timer went quiet, takes a runtime off each rt_time and
 * unthrottles an rt_rq back under its runtime; it stops when no CPU has RT
 * time or tasks. With RT_RUNTIME_SHARE (on before v5.10, 2586af1ac187) a
 * CPU past its runtime first borrows (balance_runtime) a 1/weight share of
 * each other CPU's unused runtime, up to the whole period, which then
 * never throttles; without it every rt_rq gets its own runtime back at
 * each period (f3d133ee0a17). v6.12 (5f6bd380c7bd) removed the throttling
 * (without RT_GROUP_SCHED) for the fair server, a deadline server giving
 * starving fair tasks 50 ms a second (fair_server.c). Also not modelled: the timer's view of a running
 * task's time since its last tick (banked at the timer here), throttled
 * CPUs in cpupri, RT_GROUP_SCHED. */

#define RT_BANDWIDTH_UNTIL "6.12"   /* 5f6bd380c7bd: no default RT bandwidth */
#define RT_RUNTIME_SHARE_OFF_SINCE "5.10"

void sched_rt_bw_init(struct world *w)
{
    struct sched *s = &w->sched;
    int64_t period_us = kparams_get(w->kp, "sched_rt_period_us", 0, -1);
    int64_t runtime_us = kparams_get(w->kp, "sched_rt_runtime_us", 0, -1);
    int64_t feat = sched_feat_write(w->kp);
    s->rt_period_ns = period_us * SIM_NS_PER_US;
    s->rt_runtime_def_ns = runtime_us * SIM_NS_PER_US;
    /* RUNTIME_INF (-1), or a runtime of the whole period: never exceeded. */
    s->rt_bandwidth = !kversion_at_least(&w->kp->kernel, RT_BANDWIDTH_UNTIL) && runtime_us >= 0 &&
                      runtime_us < period_us;
    s->rt_runtime_share = !kversion_at_least(&w->kp->kernel, RT_RUNTIME_SHARE_OFF_SINCE);
    if (feat == SCHED_FEAT_RT_RUNTIME_SHARE || feat == SCHED_FEAT_NO_RT_RUNTIME_SHARE)
        s->rt_runtime_share = feat == SCHED_FEAT_RT_RUNTIME_SHARE;
    sim_event_init(&s->rt_period_ev, sched_rt_period_timer);
    for (int cpu = 0; cpu < s->ncpus; cpu++)
        s->cpu[cpu].rt_runtime_ns = s->rt_runtime_def_ns;
}

bool sched_rt_throttled(const struct world *w, int cpu)
{
    return w->sched.cpu[cpu].rt_throttled;
}

/* update_curr_rt: bank the running RT task's time since the last bank. */
static void rt_bank(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    c->rt_time_ns += w->q.now_ns - c->rt_stamp_ns;
    c->rt_stamp_ns = w->q.now_ns;
}

/* do_balance_runtime: borrow from every other CPU 1/weight of its unused
 * runtime, until this one has the whole period. */
static void rt_balance_runtime(struct world *w, int cpu)
{
    struct sched *s = &w->sched;
    struct sched_cpu *c = &s->cpu[cpu];
    if (!s->rt_runtime_share || c->rt_time_ns <= c->rt_runtime_ns)
        return;
    for (int i = 0; i < s->ncpus && c->rt_runtime_ns < s->rt_period_ns; i++) {
        struct sched_cpu *o = &s->cpu[i];
        sim_time_t diff = o->rt_runtime_ns - o->rt_time_ns;
        if (i == cpu || diff <= 0)
            continue;
        diff /= s->ncpus;
        if (c->rt_runtime_ns + diff > s->rt_period_ns)
            diff = s->rt_period_ns - c->rt_runtime_ns;
        o->rt_runtime_ns -= diff;
        c->rt_runtime_ns += diff;
    }
}

/* sched_rt_runtime_exceeded: throttle cpu's rt_rq if past its runtime. */
static bool rt_runtime_exceeded(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (c->rt_throttled)
        return true;
    if (c->rt_runtime_ns >= w->sched.rt_period_ns)
        return false;
    rt_balance_runtime(w, cpu);
    if (c->rt_runtime_ns >= w->sched.rt_period_ns || c->rt_time_ns <= c->rt_runtime_ns)
        return false;
    w->sched.nr_rt_throttled++;
    sched_rt_set_throttled(w, cpu, true);
    return true;
}

/* The tick at which the running RT task's rt_time passes the runtime:
 * task_tick_rt's update_curr_rt sees it there. */
static void rt_arm_throttle_check(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    sim_time_t left = c->rt_runtime_ns - c->rt_time_ns;
    if (c->rt_runtime_ns >= w->sched.rt_period_ns)
        return;   /* the whole period (borrowed): never exceeded */
    sim_time_t at = w->q.now_ns + (left > 0 ? left : 0);
    sim_event_schedule(&w->q, &c->rt_throttle_ev, tick_next_ns(at, w->idle.tick_period_ns));
}

void sched_rt_bw_start(struct world *w, int cpu, struct task *t)
{
    struct sched *s = &w->sched;
    if (!s->rt_bandwidth || !task_is_rt(t))
        return;
    s->cpu[cpu].rt_stamp_ns = w->q.now_ns;
    if (!sim_event_pending(&s->rt_period_ev))   /* start_rt_bandwidth */
        sim_event_schedule(&w->q, &s->rt_period_ev, w->q.now_ns + s->rt_period_ns);
    rt_arm_throttle_check(w, cpu);
}

void sched_rt_bw_stop(struct world *w, int cpu, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (!w->sched.rt_bandwidth || !task_is_rt(t))
        return;
    rt_bank(w, cpu);
    sim_event_cancel(&w->q, &c->rt_throttle_ev);
    rt_runtime_exceeded(w, cpu);   /* the caller is switching tasks anyway */
}

void sched_rt_throttle_check(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct sched_cpu *c = container_of(ev, struct sched_cpu, rt_throttle_ev);
    int cpu = (int)(c - w->sched.cpu);
    if (!c->curr || !task_is_rt(c->curr))
        return;
    rt_bank(w, cpu);
    if (!sched_curr_interruptible(c)) {
        /* switching anyway: sched_rt_bw_stop will account it; else try at
         * the next tick */
        sim_event_schedule(&w->q, ev, tick_next_ns(w->q.now_ns, w->idle.tick_period_ns));
        return;
    }
    if (rt_runtime_exceeded(w, cpu))
        sched_resched_curr(w, cpu);
    else
        rt_arm_throttle_check(w, cpu);
}

/* One CPU's part of do_sched_rt_period_timer; returns whether it keeps the
 * timer busy (RT time left or RT tasks). */
static bool rt_period_cpu(struct world *w, int cpu)
{
    struct sched *s = &w->sched;
    struct sched_cpu *c = &s->cpu[cpu];
    bool running = c->curr && task_is_rt(c->curr);
    if (!s->rt_runtime_share)
        c->rt_runtime_ns = s->rt_runtime_def_ns;
    if (running)
        rt_bank(w, cpu);
    int nr_rt = c->nr_rt_queued + running;
    if (!c->rt_time_ns)
        return nr_rt > 0;
    if (c->rt_throttled)
        rt_balance_runtime(w, cpu);
    sim_time_t cut = c->rt_runtime_ns < c->rt_time_ns ? c->rt_runtime_ns : c->rt_time_ns;
    c->rt_time_ns -= cut;
    if (c->rt_throttled && c->rt_time_ns < c->rt_runtime_ns)
        sched_rt_set_throttled(w, cpu, false);
    if (running && c->curr && task_is_rt(c->curr))
        rt_arm_throttle_check(w, cpu);
    return c->rt_time_ns > 0 || nr_rt > 0;
}

void sched_rt_period_timer(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    bool busy = false;
    for (int cpu = 0; cpu < w->sched.ncpus; cpu++)
        busy |= rt_period_cpu(w, cpu);
    if (busy)
        sim_event_schedule(&w->q, ev, w->q.now_ns + w->sched.rt_period_ns);
}
