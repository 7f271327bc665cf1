/* fair_util_est: the estimated utilisation of fair tasks (kernel/sched/fair.c:
 * util_est_update, util_est_enqueue, util_est_dequeue, _task_util_est;
 * v4.17, 7f65ea42eb00 and d519329f72a6).
 *
 * Why: PELT's util_avg decays while a task sleeps, so a task that runs 8 ms
 * every 100 ms wakes with a third of the util it had when it went to sleep,
 * and schedutil and the capacity checks would see a small task just when a
 * big one starts. util_est remembers the util a task had at the end of its
 * recent activations (a sample at each dequeue for sleep, an ewma of them
 * with weight 1/4, UTIL_EST_WEIGHT_SHIFT 2) and the readers take the larger
 * of the estimate and the current util: task_util_est for the task's
 * fitness on a CPU, and for a runqueue the sum of its enqueued tasks'
 * estimates against its util_avg (cpu_util_cfs).
 *
 * The rules of a sample, by kernel version:
 *  - v4.17: no sample while util_avg has not been recomputed since the last
 *    one (UTIL_AVG_UNCHANGED: set with a sample, cleared when a PELT period
 *    boundary recomputes the task's averages), none when it is within 1 %
 *    (UTIL_EST_MARGIN, 1024 / 100) of the ewma; else the ewma moves a
 *    quarter of the way to it;
 *  - v5.1 (10a35e6812aa): none above the CPU's capacity (no idle time, so
 *    the sample would overestimate the task);
 *  - v5.5 (b8c96361402a, UTIL_EST_FASTUP): a sample above the ewma replaces
 *    it; only decreases are smoothed;
 *  - v6.2 (50181c0cff31): a sample smaller than runnable_avg by more than
 *    1 % (the task waited behind others) leaves the ewma as it is;
 *  - v6.8 (11137d384996, 7736ae5572eb): util_est is the ewma alone (no
 *    .enqueued, so the estimate is the ewma), fast-up always on.
 * The knob: /sys/kernel/debug/sched/features takes NO_UTIL_EST (sched_feat
 * UTIL_EST, default on), then no sample is taken and the runqueue's sum
 * stays 0.
 * Departures: before v5.13 (68d7a190682a) the UNCHANGED flag was the low bit
 * of util_est.enqueued and leaked into _task_util_est (an estimate one
 * higher at most): pmlab keeps it apart; v6.16's reordering of the capacity
 * check (f2d650618bc7) and v6.12's delayed dequeue are not modelled; a
 * task's runnable_avg is its load_avg (every task is nice 0). */
#include <stddef.h>

#include "kernel/sched/fair_sg_cache.h"
#include "kernel/sched/sched.h"
#include "world.h"

#define UTIL_EST_SINCE "4.17"               /* 7f65ea42eb00 */
#define UTIL_EST_CAPACITY_SKIP_SINCE "5.1"  /* 10a35e6812aa */
#define UTIL_EST_FASTUP_SINCE "5.5"         /* b8c96361402a */
#define UTIL_EST_RUNNABLE_SKIP_SINCE "6.2"  /* 50181c0cff31 */
#define UTIL_EST_EWMA_ONLY_SINCE "6.8"      /* 11137d384996 */
#define UTIL_EST_WEIGHT_SHIFT 2             /* a new sample weighs 1/4 */
#define UTIL_EST_MARGIN (SCHED_CAPACITY_SCALE / 100)

void fair_util_est_init(struct world *w)
{
    const struct kversion *k = &w->kp->kernel;
    int64_t feat = sched_feat_write(w->kp);
    w->sched.util_est = (struct util_est_rules){
        .enabled = kversion_at_least(k, UTIL_EST_SINCE) && feat != SCHED_FEAT_NO_UTIL_EST,
        .skip_over_capacity = kversion_at_least(k, UTIL_EST_CAPACITY_SKIP_SINCE),
        .fastup = kversion_at_least(k, UTIL_EST_FASTUP_SINCE),
        .skip_contended = kversion_at_least(k, UTIL_EST_RUNNABLE_SKIP_SINCE),
        .ewma_only = kversion_at_least(k, UTIL_EST_EWMA_ONLY_SINCE),
    };
}

/* The ewma a quarter of the way from ewma to sample (ewma x 3/4 + sample /
 * 4, rounded down as the kernel's shifts do). */
static unsigned util_est_ewma_step(unsigned ewma, unsigned sample)
{
    return (unsigned)((((unsigned long)ewma << UTIL_EST_WEIGHT_SHIFT) - ewma + sample) >>
                      UTIL_EST_WEIGHT_SHIFT);
}

static bool util_est_within_margin(unsigned a, unsigned b)
{
    unsigned diff = a > b ? a - b : b - a;
    return diff < UTIL_EST_MARGIN;
}

/* v6.8+: the ewma is all there is. */
static void util_est_update_ewma_only(const struct util_est_rules *r, struct util_est *ue,
                                      unsigned dequeued, unsigned long capacity,
                                      unsigned long runnable)
{
    unsigned ewma = ue->ewma;
    if (ewma > dequeued && ewma - dequeued >= UTIL_EST_MARGIN) {
        if (dequeued > capacity)
            return;
        if (!r->skip_contended || dequeued + UTIL_EST_MARGIN >= runnable)
            ewma = util_est_ewma_step(ewma, dequeued);
    } else if (ewma <= dequeued) {
        ewma = dequeued;
    }
    ue->ewma = ewma;
    ue->avg_unchanged = true;
}

/* v4.17 to v6.7: the sample is kept as .enqueued beside the ewma. A sample
 * within the margin of the ewma is dropped (nothing stored), as is one
 * above the capacity. */
static void util_est_update_enqueued(const struct util_est_rules *r, struct util_est *ue,
                                     unsigned dequeued, unsigned long capacity,
                                     unsigned long runnable)
{
    if (r->fastup && ue->ewma < dequeued) {
        ue->ewma = dequeued;
    } else {
        if (util_est_within_margin(dequeued, ue->ewma))
            return;
        if (r->skip_over_capacity && dequeued > capacity)
            return;
        if (!r->skip_contended || dequeued + UTIL_EST_MARGIN >= runnable)
            ue->ewma = util_est_ewma_step(ue->ewma, dequeued);
    }
    ue->enqueued = dequeued;
    ue->avg_unchanged = true;
}

void util_est_update(const struct util_est_rules *r, struct util_est *ue, unsigned dequeued,
                     unsigned long capacity, unsigned long runnable)
{
    if (!r->enabled || ue->avg_unchanged)
        return;
    if (r->ewma_only)
        util_est_update_ewma_only(r, ue, dequeued, capacity, runnable);
    else
        util_est_update_enqueued(r, ue, dequeued, capacity, runnable);
}

unsigned task_util_est_only(const struct world *w, const struct task *t)
{
    const struct util_est *ue = &t->util_est;
    if (w->sched.util_est.ewma_only)
        return ue->ewma;
    return ue->ewma > ue->enqueued ? ue->ewma : ue->enqueued;
}

void fair_util_est_enqueue(struct world *w, struct task *t, int cpu)
{
    if (!w->sched.util_est.enabled || task_is_rt(t) || t->util_est_cpu == cpu)
        return;
    if (t->util_est_cpu >= 0) {
        int old = t->util_est_cpu;
        fair_util_est_dequeue(w, t, false);
        sg_cache_cpu_changed(w, old);   /* no rq_avg_sync of old follows */
    }
    w->sched.rq_avg[cpu].util_est += task_util_est_only(w, t);
    t->util_est_cpu = cpu;
}

void fair_util_est_dequeue(struct world *w, struct task *t, bool sleep)
{
    int cpu = t->util_est_cpu;
    if (cpu < 0)
        return;
    unsigned *sum = &w->sched.rq_avg[cpu].util_est, est = task_util_est_only(w, t);
    *sum -= est < *sum ? est : *sum;
    t->util_est_cpu = -1;
    /* The sample reads the averages the dequeue just brought up to date. */
    if (sleep)
        util_est_update(&w->sched.util_est, &t->util_est, (unsigned)t->avg.util_avg,
                        w->sched.topo.capacity[cpu], t->avg.load_avg);
}

unsigned long sched_cpu_util_est(const struct world *w, int cpu)
{
    if (!w->sched.rq_avg || !w->sched.util_est.enabled)
        return 0;
    return w->sched.rq_avg[cpu].util_est;
}
