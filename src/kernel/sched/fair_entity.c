/* fair_entity: the fair class's order of running (kernel/sched/fair.c:
 * update_curr, place_entity, pick_eevdf / pick_next_entity,
 * wakeup_preempt_fair / check_preempt_wakeup, entity_tick).
 *
 * Every fair task is nice 0 (weight NICE_0_LOAD), so virtual time is time
 * on a CPU in ns and every average is a plain mean. The kernel version picks
 * the scheduler:
 *  - EEVDF (v6.6, 147f3efaa241): a task is eligible while its vruntime is at
 *    most the runqueue's average V (avg_vruntime, the running task included);
 *    the pick is the eligible task with the earliest virtual deadline
 *    (vruntime + base_slice when its slice starts). A waking task is placed
 *    at V minus the lag it had when it left (PLACE_LAG, lag clamped to the
 *    larger of two slices and a tick, and scaled by (n + 1) / n for the n
 *    tasks already there); a new task gets half a slice to its first
 *    deadline (PLACE_DEADLINE_INITIAL). At each tick the running task whose
 *    vruntime passed its deadline gets a new slice and, with others queued,
 *    the CPU picks again. A wake-up preempts when the pick with the wakee
 *    queued is the wakee; RUN_TO_PARITY keeps the running task until it is
 *    no longer eligible or its slice ends.
 *  - CFS before v6.6: the pick is the smallest vruntime; a waking task is
 *    placed no further back than half sched_latency behind min_vruntime
 *    (GENTLE_FAIR_SLEEPERS), a new one a slice ahead of it (START_DEBIT); a
 *    wake-up preempts when the running task's vruntime leads the wakee's by
 *    more than wakeup_granularity; at each tick the running task is switched
 *    out after its ideal slice (sched_latency shared by the runnable tasks,
 *    at least min_granularity each), or once past min_granularity when it
 *    leads the first queued task by more than that slice.
 * The tunables are scaled by 1 + ilog2(min(CPUs, 8)) (update_sysctl,
 * SCHED_TUNABLESCALING_LOG): base_slice 0.75 ms; sched_latency 6 ms,
 * min_granularity 0.75 ms, wakeup_granularity 1 ms.
 * Not modelled: nice levels and weights, cgroups (group entities), the
 * next/last buddies, v6.12's DELAY_DEQUEUE (a sleeping task keeps its lag
 * as in v6.6-6.11) and PREEMPT_SHORT (every task has the base slice), the
 * hrtick, and SCHED_IDLE/SCHED_BATCH. */
#include <stddef.h>

#include "kernel/sched/sched.h"
#include "kernel/time/tick_sched.h"
#include "util/container.h"
#include "world.h"

#define FAIR_EEVDF_SINCE "6.6"          /* 147f3efaa241 */
#define FAIR_BASE_SLICE_NS 750000LL     /* normalized_sysctl_sched_base_slice */
#define FAIR_LATENCY_NS 6000000LL       /* normalized_sysctl_sched_latency */
#define FAIR_MIN_GRAN_NS 750000LL       /* normalized_sysctl_sched_min_granularity */
#define FAIR_WAKEUP_GRAN_NS 1000000LL   /* normalized_sysctl_sched_wakeup_granularity */
#define FAIR_NR_LATENCY 8               /* sched_nr_latency: latency / min_granularity */

/* A tunable's written value (sched_params.c), else its scaled default. */
static sim_time_t fair_tunable(const struct world *w, const char *name, sim_time_t scaled_ns)
{
    int64_t v;
    return kparams_find_setting(w->kp, name, 0, -1, &v) ? v : scaled_ns;
}

void fair_entity_init(struct world *w)
{
    struct sched *s = &w->sched;
    int cpus = s->ncpus < 8 ? s->ncpus : 8;
    int log2 = 0;
    while ((1 << (log2 + 1)) <= cpus)
        log2++;
    sim_time_t factor = 1 + log2;
    s->eevdf = kversion_at_least(&w->kp->kernel, FAIR_EEVDF_SINCE);
    s->base_slice_ns = fair_tunable(w, "sched_base_slice_ns", FAIR_BASE_SLICE_NS * factor);
    s->sched_latency_ns = fair_tunable(w, "sched_latency_ns", FAIR_LATENCY_NS * factor);
    s->min_granularity_ns = fair_tunable(w, "sched_min_granularity_ns", FAIR_MIN_GRAN_NS * factor);
    s->wakeup_granularity_ns =
        fair_tunable(w, "sched_wakeup_granularity_ns", FAIR_WAKEUP_GRAN_NS * factor);
}

static bool fair_task(const struct task *t)
{
    return t && !task_is_rt(t);
}

/* The running task of cpu if it is a fair one. */
static struct task *fair_curr(const struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    return fair_task(c->curr) ? c->curr : NULL;
}

void fair_update_curr(struct world *w, int cpu)
{
    struct task *t = fair_curr(w, cpu);
    if (!t || t->vrt_stamp_ns < 0)
        return;
    t->vruntime += w->q.now_ns - t->vrt_stamp_ns;
    t->vrt_stamp_ns = w->q.now_ns;
    /* update_min_vruntime: monotonic, at most the smallest vruntime. EEVDF
     * reads it only to place a task on an empty runqueue, where any base
     * will do: it follows the running task while it runs alone, without a
     * scan of the queue at every update. */
    struct sched_cpu *c = &w->sched.cpu[cpu];
    sim_time_t v = t->vruntime;
    if (w->sched.eevdf) {
        if (c->nr_queued == c->nr_rt_queued && v > c->min_vruntime)
            c->min_vruntime = v;
        return;
    }
    for (const struct task *p = c->head; p; p = p->next)
        if (fair_task(p) && p->vruntime < v)
            v = p->vruntime;
    if (v > c->min_vruntime)
        c->min_vruntime = v;
}

/* The sum of cpu's fair tasks' vruntimes (running and queued, except skip)
 * over a base, and their number: what avg_vruntime and entity_eligible
 * read (the kernel's avg_vruntime / avg_load), one scan per decision. */
struct fair_sum {
    sim_time_t base, sum;
    int n;
};

static struct fair_sum fair_sum_of(const struct world *w, int cpu, const struct task *skip)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    struct fair_sum fs = { 0, 0, 0 };
    if (fair_task(c->curr) && c->curr != skip) {
        fs.base = c->curr->vruntime;
        fs.n = 1;
    }
    for (const struct task *p = c->head; p; p = p->next) {
        if (!fair_task(p) || p == skip)
            continue;
        if (fs.n == 0)
            fs.base = p->vruntime;
        fs.sum += p->vruntime - fs.base;
        fs.n++;
    }
    return fs;
}

/* avg_vruntime: the mean vruntime of fs's tasks rounded down (fs.n > 0). */
static sim_time_t fair_avg_vruntime(const struct fair_sum *fs)
{
    sim_time_t q = fs->sum / fs->n;
    if (fs->sum % fs->n != 0 && fs->sum < 0)
        q--;   /* floor, as the kernel's division of a negative average */
    return fs->base + q;
}

/* entity_eligible: t's vruntime at most the average of the tasks in fs
 * with t among them: the sum of (v_i - v_t) is not negative. t's own term
 * is 0, so t need not be counted in fs (a wakee not queued yet). */
static bool fair_eligible(const struct fair_sum *fs, const struct task *t)
{
    return fs->sum - (sim_time_t)fs->n * (t->vruntime - fs->base) >= 0;
}

/* The lag limit (entity_lag): the larger of two slices and a tick. */
static sim_time_t fair_lag_limit(const struct world *w)
{
    sim_time_t two_slices = 2 * w->sched.base_slice_ns;
    return two_slices > w->idle.tick_period_ns ? two_slices : w->idle.tick_period_ns;
}

void fair_dequeue_entity(struct world *w, int cpu, struct task *t)
{
    if (!fair_task(t))
        return;
    t->vrt_stamp_ns = -1;
    if (!w->sched.eevdf)
        return;   /* CFS: vruntime stays on cpu's min_vruntime (vrt_cpu) */
    struct fair_sum fs = fair_sum_of(w, cpu, t);
    int n = fs.n;
    sim_time_t v = n ? fair_avg_vruntime(&fs) : 0;
    /* V with t counted: the others' mean moved by t's share. */
    sim_time_t all = n ? v + (t->vruntime - v) / (n + 1) : t->vruntime;
    sim_time_t lag = all - t->vruntime, limit = fair_lag_limit(w);
    t->vlag = lag > limit ? limit : lag < -limit ? -limit : lag;
}

void fair_place_entity(struct world *w, int cpu, struct task *t, enum fair_enqueue how)
{
    if (!fair_task(t) || how == FAIR_ENQUEUE_RESTORE)
        return;
    struct sched_cpu *c = &w->sched.cpu[cpu];
    t->vrt_stamp_ns = -1;
    if (!w->sched.eevdf) {
        /* migrate_task_rq_fair / enqueue_entity: vruntime moves from the old
         * runqueue's min_vruntime to the new one's, both as they are now. */
        sim_time_t min = c->min_vruntime, v = t->vruntime;
        if (t->vrt_cpu >= 0 && t->vrt_cpu != cpu)
            v += min - w->sched.cpu[t->vrt_cpu].min_vruntime;
        t->vrt_cpu = cpu;
        if (how == FAIR_ENQUEUE_INITIAL) {
            int n = fair_sum_of(w, cpu, NULL).n;
            sim_time_t period = n + 1 > FAIR_NR_LATENCY ? (n + 1) * w->sched.min_granularity_ns
                                                        : w->sched.sched_latency_ns;
            sim_time_t start = min + period / (n + 1);   /* START_DEBIT: sched_vslice */
            v = v > start ? v : start;
        } else if (how == FAIR_ENQUEUE_WAKEUP) {
            sim_time_t floor = min - w->sched.sched_latency_ns / 2; /* GENTLE_FAIR_SLEEPERS */
            v = v > floor ? v : floor;
        }
        t->vruntime = v;
        return;
    }
    struct fair_sum fs = fair_sum_of(w, cpu, t);
    int n = fs.n;
    sim_time_t V = n ? fair_avg_vruntime(&fs) : 0;
    sim_time_t lag = 0;
    if (n > 0 && how != FAIR_ENQUEUE_INITIAL)
        lag = t->vlag * (n + 1) / n;
    t->vruntime = n > 0 ? V - lag : c->min_vruntime;
    sim_time_t vslice = w->sched.base_slice_ns;
    if (how == FAIR_ENQUEUE_INITIAL)
        vslice /= 2;   /* PLACE_DEADLINE_INITIAL */
    t->deadline = t->vruntime + vslice;
}

/* pick_eevdf among cpu's queued fair tasks (the running one already put
 * back): the eligible one with the earliest deadline, the first queued on a
 * tie; none eligible (rounding), the smallest vruntime. */
static struct task *fair_pick_eevdf(const struct world *w, int cpu, const struct fair_sum *fs)
{
    struct task *best = NULL, *first = NULL;
    for (struct task *p = w->sched.cpu[cpu].head; p; p = p->next) {
        if (!fair_task(p))
            continue;
        if (!first || p->vruntime < first->vruntime)
            first = p;
        if (fair_eligible(fs, p) && (!best || p->deadline < best->deadline))
            best = p;
    }
    return best ? best : first;
}

/* pick_next_entity under CFS: the smallest vruntime, first queued on a tie. */
static struct task *fair_pick_cfs(const struct world *w, int cpu)
{
    struct task *best = NULL;
    for (struct task *p = w->sched.cpu[cpu].head; p; p = p->next)
        if (fair_task(p) && (!best || p->vruntime < best->vruntime))
            best = p;
    return best;
}

struct task *fair_pick_queued(const struct world *w, int cpu)
{
    if (!w->sched.eevdf)
        return fair_pick_cfs(w, cpu);
    struct fair_sum fs = fair_sum_of(w, cpu, NULL);
    return fair_pick_eevdf(w, cpu, &fs);
}

void fair_set_next(struct world *w, int cpu, struct task *t)
{
    (void)cpu;
    if (!fair_task(t))
        return;
    t->vrt_stamp_ns = w->q.now_ns;
    t->picked_exec_ns = t->sum_exec_ns;
    t->run_to_parity = true;   /* set_next_entity: vlag = deadline */
}

/* update_deadline: past its deadline the running task gets a new slice. */
static void fair_update_deadline(const struct world *w, struct task *t)
{
    if (t->vruntime < t->deadline)
        return;
    t->deadline = t->vruntime + w->sched.base_slice_ns;
    t->run_to_parity = false;
}

bool fair_wakeup_preempt(struct world *w, int cpu, const struct task *t)
{
    struct task *curr = fair_curr(w, cpu);
    if (!curr || !fair_task(t))
        return false;
    fair_update_curr(w, cpu);
    if (!w->sched.eevdf)
        return curr->vruntime - t->vruntime > w->sched.wakeup_granularity_ns;
    /* update_curr: a running task past its deadline gets a new slice and,
     * with another task there, the CPU picks again (t among them). */
    bool renewed = curr->vruntime >= curr->deadline;
    fair_update_deadline(w, curr);
    if (renewed)
        return true;
    /* pick_eevdf with t queued: RUN_TO_PARITY keeps an eligible curr. The
     * average counts t too (t is not queued yet: its term is added). */
    struct fair_sum fs = fair_sum_of(w, cpu, NULL);
    fs.sum += t->vruntime - fs.base;
    fs.n++;
    bool curr_eligible = fair_eligible(&fs, curr);
    if (curr_eligible && curr->run_to_parity)
        return false;
    if (!fair_eligible(&fs, t))
        return false;
    if (curr_eligible && curr->deadline <= t->deadline)
        return false;
    for (const struct task *p = w->sched.cpu[cpu].head; p; p = p->next)
        if (fair_task(p) && p != t && p->deadline < t->deadline && fair_eligible(&fs, p))
            return false;
    return true;
}

/* The fair tasks queued on cpu besides the running one. */
static int fair_nr_queued(const struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    return c->nr_queued - c->nr_rt_queued;
}

/* check_preempt_tick (CFS): whether the running task's slice is over. */
static bool fair_cfs_slice_over(const struct world *w, int cpu, const struct task *curr)
{
    int n = fair_nr_queued(w, cpu) + 1;
    sim_time_t period = n > FAIR_NR_LATENCY ? n * w->sched.min_granularity_ns
                                            : w->sched.sched_latency_ns;
    sim_time_t ideal = period / n, ran = curr->sum_exec_ns + (w->q.now_ns - curr->exec_start_ns) -
                                         curr->picked_exec_ns;
    if (ran > ideal)
        return true;
    if (ran < w->sched.min_granularity_ns)
        return false;
    const struct task *first = fair_pick_cfs(w, cpu);
    return first && curr->vruntime - first->vruntime > ideal;
}

/* Whether cpu's running fair task should give way at this tick. */
static bool fair_tick_resched(struct world *w, int cpu, struct task *curr)
{
    fair_update_curr(w, cpu);
    if (!w->sched.eevdf)
        return fair_cfs_slice_over(w, cpu, curr);
    bool renewed = curr->vruntime >= curr->deadline;
    fair_update_deadline(w, curr);
    if (!renewed)
        return false;
    /* resched: the pick with curr back among the queued ones. */
    struct fair_sum fs = fair_sum_of(w, cpu, NULL);
    const struct task *next = fair_pick_eevdf(w, cpu, &fs);
    return next && (!fair_eligible(&fs, curr) || next->deadline < curr->deadline);
}

void fair_tick_arm(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (sim_event_pending(&c->slice_ev) || !fair_curr(w, cpu) || fair_nr_queued(w, cpu) == 0)
        return;
    sim_event_schedule(&w->q, &c->slice_ev, tick_next_ns(w->q.now_ns, w->idle.tick_period_ns));
}

void fair_tick(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct sched_cpu *c = container_of(ev, struct sched_cpu, slice_ev);
    int cpu = (int)(c - w->sched.cpu);
    struct task *curr = fair_curr(w, cpu);
    if (!curr || c->waking || c->in_done || c->in_wake_kernel || curr->polling ||
        !sim_event_pending(&curr->done_ev))
        return;
    if (fair_nr_queued(w, cpu) > 0 && fair_tick_resched(w, cpu, curr)) {
        w->sched.nr_slice_preemptions++;
        sched_requeue_curr(w, cpu);
        return;
    }
    fair_tick_arm(w, cpu);
}
