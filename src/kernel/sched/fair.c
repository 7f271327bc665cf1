/* fair: where a CFS/EEVDF task runs (kernel/sched/fair.c, stored ~v6.10;
 * FACTS-2.md section 3 [S1, S2, S4]).
 *
 * select_task_rq_fair walks the domains of the waking CPU upward. A wakeup
 * (SD_BALANCE_WAKE is set on no domain) stops at the first SD_WAKE_AFFINE
 * domain that also spans the task's previous CPU: if the waker and the
 * previous CPU differ, wake_affine picks between them (wake_affine_idle: an
 * idle waker sharing the LLC with prev hands over to prev if idle, else
 * takes it; else an idle prev; else wake_affine_weight compares the two
 * CPUs' load with the task moved, prev getting half of imbalance_pct as
 * bias), and select_idle_sibling then looks for an idle CPU around that
 * target: the target, prev and recent_used_cpu if idle and cache-affine
 * (and, with clusters, in the target's cluster), else an idle SMT sibling of
 * prev, else the LLC scan (select_idle_cpu: whole idle cores while the LLC
 * is known to have one, else idle CPUs up to SIS_UTIL's budget, the target's
 * cluster first since v6.8), and on asymmetric-capacity systems the first
 * idle CPU the task fits (select_idle_capacity). wake_wide stops the affine
 * step for M:N wakeup patterns wider than the LLC. A fork takes the slow path
 * from the highest SD_BALANCE_FORK domain (see sched_balance_find_dst_cpu).
 *
 * PELT (kernel/sched/pelt.c, in its fixed point: pelt.h), as far as these
 * rules read it: per CPU, util (running time) and load (nr_running x
 * NICE_0_LOAD); per task, util (running) and load (runnable), all on the
 * runqueue's clock_pelt (pelt.h's struct pelt_clock: running time scaled by
 * capacity/1024 and f/fmax, synced to the real clock while idle, with
 * lost_idle_time), so frequency- and capacity-invariant as the kernel's
 * (x86 frequency invariance since v5.7) for load as well as util. A task's
 * averages follow it to a new CPU's clock when it is enqueued there. A
 * runqueue's sums are brought up to date when its state changes and when a
 * rule reads them (at most once per period: the kernel's remote reads see
 * the value of the last tick or blocked-load update instead), a task's when
 * its state changes. A task that changes CPU takes its util and load with
 * it (migrate_task_rq_fair: removed from the old runqueue, attached to the
 * new one). util_est is fair_util_est.c's; its readers here take the
 * larger of util and estimate (task_util_est, cpu_util_cfs). Departures: no
 * runnable_avg apart from load, nice 0 for every task. A new task starts with load 1024 and
 * util half the spare capacity of its CPU (post_init_entity_util_avg).
 *
 * Also not modelled: WF_SYNC (no waker here asks for it), WF_CURRENT_CPU,
 * EAS (find_energy_efficient_cpu: x86 has no energy model in the versions
 * pmlab covers), uclamp, core scheduling, SCHED_IDLE tasks, the per-CPU
 * kthread stacking rule, SIS_PROP before v6.0 (the scan is then unlimited),
 * and the scan's own cost. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/cpuidle/cpuidle.h"

#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/fair_sg_cache.h"
#include "kernel/sched/isolation_run.h"
#include "kernel/sched/sched.h"
#include "world.h"

#define NICE_0_LOAD SCHED_CAPACITY_SCALE
#define FAIR_WAKEE_FLIP_DECAY_NS SIM_NS_PER_S   /* record_wakee: once per HZ jiffies */

/* ---- PELT ----------------------------------------------------------------- */

/* The state each signal held since its last update, as pelt.c takes it:
 * a runqueue sums its weight (nr_running x NICE_0_LOAD) and averages with
 * weight 1, a task sums 1 while runnable and averages with its weight
 * (__update_load_avg_cfs_rq, __update_load_avg_se). */
static unsigned long rq_pelt_load(const struct cfs_rq_avg *ra)
{
    return (unsigned long)ra->nr_running * NICE_0_LOAD;
}

static unsigned long task_pelt_load(const struct task *t)
{
    return t->avg_state != TASK_AVG_SLEEPING;
}

static unsigned long capacity_of(const struct world *w, int cpu)
{
    return w->sched.topo.capacity[cpu];
}

/* rq_clock_pelt of cpu now (pelt.h): its clock advanced at the runqueue's
 * state since the last sync, scaled by arch_scale_cpu_capacity (the CPU's
 * capacity) and arch_scale_freq_capacity (f/fmax, APERF/MPERF on x86). */
static sim_time_t rq_pelt_now(const struct world *w, int cpu)
{
    const struct cfs_rq_avg *ra = &w->sched.rq_avg[cpu];
    return pelt_clock_at(&w->sched.rq_clock[cpu], w->q.now_ns, ra->running,
                         (unsigned)capacity_of(w, cpu), arch_scale_freq_capacity(w, cpu));
}

/* An upper bound of rq_pelt_now without its arithmetic or another cache
 * line: the clock never runs faster than the real one (scales at most
 * 1024/1024) and lost idle time only holds it back, so a period that has
 * not ended by the real clock has not ended on the PELT clock. */
static sim_time_t rq_pelt_bound(const struct world *w)
{
    return w->q.now_ns;
}

void rq_clock_pelt_sync(struct world *w, int cpu)
{
    struct cfs_rq_avg *ra = &w->sched.rq_avg[cpu];
    pelt_clock_update(&w->sched.rq_clock[cpu], w->q.now_ns, ra->running,
                      (unsigned)capacity_of(w, cpu), arch_scale_freq_capacity(w, cpu));
}

/* The first real time, now or later, at which a read (rq_avg) finds that
 * a period ended on cpu's PELT clock and so changes its averages: the
 * clock reaching the period's end (pelt_period_ended), at the clock's
 * state, speed and capacity now. */
sim_time_t rq_avg_change_ns(const struct world *w, int cpu)
{
    const struct cfs_rq_avg *ra = &w->sched.rq_avg[cpu];
    if (pelt_period_ended(&ra->avg, rq_pelt_now(w, cpu)))
        return w->q.now_ns;
    sim_time_t end = ra->avg.last_update_ns +
                     ((sim_time_t)(PELT_PERIOD_UNITS - ra->avg.period_contrib) << PELT_UNIT_SHIFT);
    return pelt_clock_reach_ns(&w->sched.rq_clock[cpu], w->q.now_ns, ra->running,
                               (unsigned)capacity_of(w, cpu), arch_scale_freq_capacity(w, cpu), end);
}

/* The CPU goes idle after its last update (pick_next_task_idle ->
 * update_idle_rq_clock_pelt): a full util_sum's clock lag is lost idle time. */
void rq_avg_sync(struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    struct cfs_rq_avg *ra = &w->sched.rq_avg[cpu];
    rq_clock_pelt_sync(w, cpu);
    pelt_update_load_avg(&ra->avg, rq_clock_pelt(&w->sched.rq_clock[cpu]), rq_pelt_load(ra),
                         ra->running, 1);
    /* cfs_rq: the fair tasks only (an RT task's time is rq->avg_rt's). */
    bool running = c->curr != NULL && !task_is_rt(c->curr);
    if (ra->running && !running)
        pelt_clock_enter_idle(&w->sched.rq_clock[cpu], w->q.now_ns, ra->avg.util_sum);
    ra->running = running;
    int old_fair = ra->nr_running;
    ra->nr_running = running + c->nr_queued - c->nr_rt_queued;
    fair_server_nr_changed(w, cpu, old_fair, ra->nr_running);
    /* add_nr_running / sub_nr_running (every class): every change comes here */
    int old_nr = ra->nr_total;
    ra->nr_total = w->sched.nr_running[cpu];
    if (old_nr != ra->nr_total) {
        sched_balance_nr_changed(w, old_nr, ra->nr_total);
        tick_nohz_full_nr_changed(w, cpu, old_nr, ra->nr_total);
    }
    /* The fork path's group sums (fair_sg_cache.h): every change of cpu's
     * nr_running, averages, PELT clock state and util_est sum is followed
     * by this sync, so this one call keeps them; rq_avg_remove (after it),
     * the frequency (sched_core_speed_changed) and the lazy read (the
     * cache's own catch-up) are the others. */
    sg_cache_cpu_changed(w, cpu);
}

/* The CPU whose PELT clock t's averages are on: where they were last
 * synced, else (never synced) the CPU it last ran on; -1 if none. */
static int task_pelt_cpu(const struct task *t)
{
    return t->avg_cpu >= 0 ? t->avg_cpu : t->prev_cpu;
}

/* The PELT time t's averages are on: its CPU's clock, or the real clock. */
static sim_time_t task_pelt_now(const struct world *w, const struct task *t)
{
    int cpu = task_pelt_cpu(t);
    return cpu >= 0 ? rq_pelt_now(w, cpu) : w->q.now_ns;
}

/* t's averages folded up to now_ns on their clock; a recomputed util_avg
 * allows util_est a new sample (cfs_se_util_change clears
 * UTIL_AVG_UNCHANGED). */
static void task_pelt_update(struct task *t, sim_time_t now_ns)
{
    if (pelt_update_load_avg(&t->avg, now_ns, task_pelt_load(t),
                             t->avg_state == TASK_AVG_RUNNING, NICE_0_LOAD))
        t->util_est.avg_unchanged = false;
}

static void task_avg_fold(struct world *w, struct task *t)
{
    task_pelt_update(t, task_pelt_now(w, t));
}

/* remove_entity_load_avg: the old runqueue loses a leaving task's util and
 * load (the kernel subtracts them at that runqueue's next update,
 * update_cfs_rq_load_avg's "removed" part; here at once), neither below 0
 * and the sums no lower than the averages allow. */
static void rq_avg_remove(struct world *w, int cpu, const struct sched_avg *ta)
{
    rq_avg_sync(w, cpu);
    struct sched_avg *sa = &w->sched.rq_avg[cpu].avg;
    uint64_t divider = pelt_divider(sa);
    sa->util_avg = sa->util_avg > ta->util_avg ? sa->util_avg - ta->util_avg : 0;
    uint64_t util_sum = sa->util_sum, util_r = ta->util_avg * divider;
    util_sum = util_sum > util_r ? util_sum - util_r : 0;
    uint64_t util_floor = (uint64_t)sa->util_avg * PELT_MIN_DIVIDER;
    sa->util_sum = (uint32_t)(util_sum > util_floor ? util_sum : util_floor);
    sa->load_avg = sa->load_avg > ta->load_avg ? sa->load_avg - ta->load_avg : 0;
    uint64_t load_r = ta->load_avg * divider, load_floor = sa->load_avg * PELT_MIN_DIVIDER;
    sa->load_sum = sa->load_sum > load_r ? sa->load_sum - load_r : 0;
    if (sa->load_sum < load_floor)
        sa->load_sum = load_floor;
    sg_cache_cpu_changed(w, cpu);
}

/* attach_entity_load_avg: t's averages join cpu's runqueue on its grid and
 * are added to the runqueue's. */
static void rq_avg_attach(struct world *w, int cpu, struct task *t)
{
    rq_avg_sync(w, cpu);
    struct sched_avg *sa = &w->sched.rq_avg[cpu].avg;
    pelt_attach(&t->avg, sa, NICE_0_LOAD);
    sa->util_avg += t->avg.util_avg;
    uint64_t util_sum = (uint64_t)sa->util_sum + t->avg.util_sum;
    sa->util_sum = (uint32_t)(util_sum < UINT32_MAX ? util_sum : UINT32_MAX);
    sa->load_avg += t->avg.load_avg;
    sa->load_sum += NICE_0_LOAD * t->avg.load_sum;
}

/* A fair task changing CPU (migrate_task_rq_fair): its averages brought up
 * to its old CPU's clock (sync_entity_load_avg), removed from that
 * runqueue, and attached to the new one on its grid. An RT task's averages
 * are in no fair runqueue: they only move to the new CPU's clock. */
void task_avg_move(struct world *w, struct task *t, int cpu)
{
    if (t->avg_new || t->avg_cpu == cpu || t->avg_cpu < 0) {
        if (!t->avg_new && t->avg_cpu < 0)
            task_avg_fold(w, t);
        t->avg_cpu = cpu;
        return;
    }
    int old = t->avg_cpu;
    sim_time_t from = rq_pelt_now(w, old), to = rq_pelt_now(w, cpu);
    task_pelt_update(t, from);
    t->avg_cpu = cpu;
    if (task_is_rt(t)) {
        t->avg.last_update_ns += to - from;
        return;
    }
    rq_avg_remove(w, old, &t->avg);
    rq_avg_attach(w, cpu, t);
}

/* A new task's averages were set by fair_post_init_util, which also put
 * its sums on its runqueue's grid (attach_entity_load_avg). A running
 * task's util accrues on its CPU's clock. */
void task_avg_sync(struct world *w, struct task *t, enum task_avg_state s)
{
    if (!t->avg_new) {
        task_avg_fold(w, t);
        if (t->cpu >= 0)
            task_avg_move(w, t, t->cpu);
    }
    t->avg_new = false;
    t->avg_state = s;
}

/* cpu's averages, brought up to now if a period ended (see rq_avg_now);
 * a pointer, so the scans over every CPU copy nothing. */
static const struct sched_avg *rq_avg(const struct world *w, int cpu)
{
    struct cfs_rq_avg *ra = &w->sched.rq_avg[cpu];
    if (!pelt_period_ended(&ra->avg, rq_pelt_bound(w)))
        return &ra->avg;   /* no boundary even by the real clock: nothing to do */
    sim_time_t now = rq_pelt_now(w, cpu);
    if (pelt_period_ended(&ra->avg, now))
        pelt_update_load_avg(&ra->avg, now, rq_pelt_load(ra), ra->running, 1);
    return &ra->avg;
}

struct sched_avg rq_avg_now(const struct world *w, int cpu)
{
    return *rq_avg(w, cpu);
}

struct sched_avg task_avg_now(const struct world *w, const struct task *t)
{
    if (t->avg_new)
        return t->avg;
    int cpu = task_pelt_cpu(t);
    if (cpu >= 0 && !pelt_period_ended(&t->avg, rq_pelt_bound(w)))
        return t->avg;   /* see rq_avg */
    return pelt_avg_at(&t->avg, task_pelt_now(w, t), task_pelt_load(t),
                       t->avg_state == TASK_AVG_RUNNING, NICE_0_LOAD);
}

/* Whether p contributes to cpu's signals (task_cpu(p) == cpu, not new). */
static bool task_on_cpu_signals(const struct task *p, int cpu)
{
    return p && !p->avg_new && p->prev_cpu == cpu;
}

/* cpu_util(cpu, p, -1): util without p's contribution, at least the
 * estimates of the tasks enqueued there without p's (UTIL_EST: a sleeping
 * p's estimate is in no sum), capped at capacity. */
static double cpu_util_without(const struct world *w, int cpu, const struct task *p)
{
    double util = (double)rq_avg(w, cpu)->util_avg;
    if (task_on_cpu_signals(p, cpu)) {
        util -= task_avg_now(w, p).util_avg;
        util = util < 0 ? 0 : util;
    }
    double est = (double)sched_cpu_util_est(w, cpu);
    if (p && p->util_est_cpu == cpu) {
        est -= task_util_est_only(w, p);
        est = est < 0 ? 0 : est;
    }
    util = util > est ? util : est;
    double cap = (double)capacity_of(w, cpu);
    return util < cap ? util : cap;
}

double cpu_util_cfs(const struct world *w, int cpu)
{
    return cpu_util_without(w, cpu, NULL);
}

double task_util_est(const struct world *w, const struct task *t)
{
    double util = (double)task_avg_now(w, t).util_avg, est = task_util_est_only(w, t);
    return util > est ? util : est;
}

static double cpu_load_without(const struct world *w, int cpu, const struct task *p)
{
    double load = (double)rq_avg(w, cpu)->load_avg;
    if (task_on_cpu_signals(p, cpu)) {
        load -= task_avg_now(w, p).load_avg;
        load = load < 0 ? 0 : load;
    }
    return load;
}

/* fits_capacity: util within 80 % of capacity (the 1280/1024 margin). */
bool util_fits_cpu(const struct world *w, double util, int cpu)
{
    return util * 1280 < (double)capacity_of(w, cpu) * 1024;
}

/* util_fits_cpu with the task's clamps (v6.2, 48d5e9daa8b7): 1 fits, 0
 * does not, -1 fits but the uclamp_min boost does not (a CPU smaller than
 * the boost asks for). util fits as it is, or because uclamp_max caps it
 * at or below this CPU's capacity (except a cap of 1024 on a 1024 CPU).
 * Before v6.2 the util was clamped first (uclamp_task_util) and
 * fits_capacity decided. Without uclamp in use the clamps are ignored. */
static int task_fits_cpu_level(const struct world *w, const struct task *p, int cpu)
{
    double util = task_util_est(w, p);
    const struct uclamp_sys *u = &w->sched.uclamp;
    if (!uclamp_is_used(u))
        return util_fits_cpu(w, util, cpu);
    unsigned lo = uclamp_eff_value(w, p, UCLAMP_MIN), hi = uclamp_eff_value(w, p, UCLAMP_MAX);
    if (!u->fits_v6_2) {
        double clamped = util < lo ? lo : util > hi ? hi : util;
        return util_fits_cpu(w, clamped, cpu);
    }
    unsigned long cap = capacity_of(w, cpu);
    bool fits = util_fits_cpu(w, util, cpu);
    bool cap_is_max = cap == UCLAMP_SCALE && hi == UCLAMP_SCALE;
    fits = fits || (!cap_is_max && hi <= cap);
    if (lo > hi)
        lo = hi;
    if (fits && util < lo && lo > cap)
        return -1;
    return fits;
}

bool task_fits_cpu(const struct world *w, const struct task *p, int cpu)
{
    return task_fits_cpu_level(w, p, cpu) > 0;
}

/* asym_fits_cpu: on symmetric systems every CPU fits. */
static bool asym_fits_cpu(const struct world *w, const struct task *p, int cpu)
{
    return !w->sched.topo.asym_cpucapacity || task_fits_cpu(w, p, cpu);
}

/* ---- wake_wide / wake_affine ---------------------------------------------- */

/* The task whose code runs on cpu: its current task, or its idle task. */
static struct task *cpu_current(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    return c->curr ? c->curr : &c->idle_task;
}

static void record_wakee(struct world *w, struct task *curr, const struct task *p)
{
    if (w->q.now_ns > curr->wakee_flip_decay_ns + FAIR_WAKEE_FLIP_DECAY_NS) {
        curr->wakee_flips >>= 1;
        curr->wakee_flip_decay_ns = w->q.now_ns;
    }
    if (curr->last_wakee != p) {
        curr->last_wakee = p;
        curr->wakee_flips++;
    }
}

/* M:N wakeups wider than the LLC: spread instead of pulling to the waker. */
static bool wake_wide(const struct world *w, const struct task *curr, const struct task *p,
                      int cpu)
{
    unsigned master = curr->wakee_flips, slave = p->wakee_flips;
    unsigned factor = (unsigned)w->sched.topo.llc_size[cpu];
    if (master < slave) {
        unsigned tmp = master;
        master = slave;
        slave = tmp;
    }
    return !(slave < factor || master < slave * factor);
}

static int wake_affine_idle(const struct world *w, int this_cpu, int prev_cpu)
{
    if (sched_cpu_idle(w, this_cpu) && cpus_share_cache(&w->sched.topo, this_cpu, prev_cpu))
        return sched_cpu_idle(w, prev_cpu) ? prev_cpu : this_cpu;
    if (sched_cpu_idle(w, prev_cpu))
        return prev_cpu;
    return -1;
}

/* WA_BIAS: prev's side is weighted by half of imbalance_pct. */
static int wake_affine_weight(const struct world *w, const struct sched_domain *sd,
                              const struct task *p, int this_cpu, int prev_cpu)
{
    double task_load = task_avg_now(w, p).load_avg;
    double this_eff = (rq_avg_now(w, this_cpu).load_avg + task_load) * 100 *
                      (double)capacity_of(w, prev_cpu);
    double prev_eff = (rq_avg_now(w, prev_cpu).load_avg - task_load) *
                      (100 + (sd->imbalance_pct - 100) / 2) * (double)capacity_of(w, this_cpu);
    return this_eff < prev_eff ? this_cpu : -1;
}

static int wake_affine(const struct world *w, const struct sched_domain *sd,
                       const struct task *p, int this_cpu, int prev_cpu)
{
    int target = wake_affine_idle(w, this_cpu, prev_cpu);
    if (target < 0)
        target = wake_affine_weight(w, sd, p, this_cpu, prev_cpu);
    return target == this_cpu ? this_cpu : prev_cpu;
}

/* ---- select_idle_sibling -------------------------------------------------- */

/* cpus[]: span of sd and p's affinity, the scan's working mask. Only the
 * span's entries are set: the scan reads no other. */
static bool *sis_mask(struct world *w, const struct sched_span *span, const struct task *p)
{
    bool *cpus = w->sched.scan_mask;
    for (int i = 0; i < span->weight; i++)
        cpus[span->cpus[i]] = task_allowed_on(p, span->cpus[i]);
    return cpus;
}

/* for_each_cpu_wrap(cpu, span, start): span's CPUs from the first at or
 * after start, wrapping around; *i counts from 0 to span->weight. Scans
 * walk the span, not the machine, so their cost is the LLC's size. */
static int span_wrap_first(const struct sched_span *span, int start)
{
    int lo = 0, hi = span->weight;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (span->cpus[mid] < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == span->weight ? 0 : lo;
}

static int span_wrap_cpu(const struct sched_span *span, int first, int i)
{
    int k = first + i;
    return span->cpus[k < span->weight ? k : k - span->weight];
}

static const struct sched_span *smt_mask(const struct world *w, int cpu)
{
    return w->sched.topo.smt[cpu];
}

static void set_idle_cores(struct world *w, int cpu, bool val)
{
    w->sched.llc[w->sched.topo.llc_id[cpu]].has_idle_cores = val;
}

/* Whether core (cpu's SMT siblings) is wholly idle; remembers the first idle
 * thread in *idle_cpu and drops the core from cpus if not. */
static int select_idle_core(const struct world *w, int core, bool *cpus, int *idle_cpu)
{
    const struct sched_span *smt = smt_mask(w, core);
    bool idle = true;
    for (int i = 0; i < smt->weight; i++) {
        int cpu = smt->cpus[i];
        if (!sched_cpu_idle(w, cpu)) {
            idle = false;
            if (*idle_cpu == -1)
                continue;
            break;
        }
        if (*idle_cpu == -1 && cpus[cpu])
            *idle_cpu = cpu;
    }
    if (idle)
        return core;
    for (int i = 0; i < smt->weight; i++)
        cpus[smt->cpus[i]] = false;
    return -1;
}

/* An idle SMT sibling of target inside sd. */
static int select_idle_smt(const struct world *w, const struct task *p,
                           const struct sched_domain *sd, int target)
{
    const struct sched_span *smt = smt_mask(w, target);
    for (int i = 0; i < smt->weight; i++) {
        int cpu = smt->cpus[i];
        if (cpu != target && task_allowed_on(p, cpu) && sched_span_test_cpu(sd->span, cpu) &&
            sched_cpu_idle(w, cpu))
            return cpu;
    }
    return -1;
}

/* One step of the LLC scan at cpu: an idle core (has_idle_core) or an idle
 * CPU within the budget *nr. Returns the CPU to take, -1 to go on, -2 to stop
 * with *idle_cpu (the budget ran out, or an idle CPU was found). */
static int sic_step(const struct world *w, int cpu, bool has_idle_core, bool *cpus, int *nr,
                    int *idle_cpu)
{
    if (has_idle_core) {
        int i = select_idle_core(w, cpu, cpus, idle_cpu);
        return i >= 0 ? i : -1;
    }
    if (--*nr <= 0) {
        *idle_cpu = -1;
        return -2;
    }
    if (sched_cpu_idle(w, cpu)) {
        *idle_cpu = cpu;
        return -2;
    }
    return -1;
}

/* Scan the LLC domain for an idle core, else an idle CPU (select_idle_cpu). */
static int select_idle_cpu(struct world *w, const struct task *p, const struct sched_domain *sd,
                           bool has_idle_core, int target)
{
    int idle_cpu = -1, nr = INT32_MAX;
    bool *cpus = sis_mask(w, sd->span, p);
    if (w->sched.sis_util) {
        nr = fair_nr_idle_scan(w, target) + 1;
        if (nr == 1)
            return -1;   /* an overloaded LLC is unlikely to have an idle CPU */
    }
    const struct sched_group *sg = sd->groups[0];
    if (w->sched.topo.cluster_active && (sg->flags & SD_CLUSTER)) {
        int first = span_wrap_first(sg->span, target + 1);
        for (int k = 0; k < sg->span->weight; k++) {
            int cpu = span_wrap_cpu(sg->span, first, k);
            if (!cpus[cpu])
                continue;
            int r = sic_step(w, cpu, has_idle_core, cpus, &nr, &idle_cpu);
            if (r >= 0)
                return r;
            if (r == -2)
                return idle_cpu;
        }
        for (int i = 0; i < sg->span->weight; i++)
            cpus[sg->span->cpus[i]] = false;
    }
    int first = span_wrap_first(sd->span, target + 1);
    for (int k = 0; k < sd->span->weight; k++) {
        int cpu = span_wrap_cpu(sd->span, first, k);
        if (!cpus[cpu])
            continue;
        int r = sic_step(w, cpu, has_idle_core, cpus, &nr, &idle_cpu);
        if (r >= 0)
            return r;
        if (r == -2)
            break;
    }
    if (has_idle_core)
        set_idle_cores(w, target, false);
    return idle_cpu;
}

/* Asymmetric capacity: the first idle CPU p fits, else the best of the
 * rest: one that fits all but p's uclamp_min boost before one that does
 * not fit, the biggest at the same level. */
static int select_idle_capacity(struct world *w, const struct task *p,
                                const struct sched_domain *sd, int target)
{
    unsigned long best_cap = 0;
    int best_cpu = -1, best_fits = 0, first = span_wrap_first(sd->span, target);
    for (int k = 0; k < sd->span->weight; k++) {
        int cpu = span_wrap_cpu(sd->span, first, k);
        if (!task_allowed_on(p, cpu) || !sched_cpu_idle(w, cpu))
            continue;
        int fits = task_fits_cpu_level(w, p, cpu);
        if (fits > 0)
            return cpu;
        unsigned long cap = capacity_of(w, cpu);
        if (fits < best_fits || (fits == best_fits && cap > best_cap)) {
            best_cap = cap;
            best_cpu = cpu;
            best_fits = fits;
        }
    }
    return best_cpu;
}

/* An idle CPU cache-affine to target, prev or recent_used_cpu first. */
static int select_idle_sibling(struct world *w, struct task *p, int prev, int target)
{
    const struct sched_topology *t = &w->sched.topo;
    int prev_aff = -1;
    if (sched_cpu_idle(w, target) && asym_fits_cpu(w, p, target))
        return target;
    if (prev != target && cpus_share_cache(t, prev, target) && sched_cpu_idle(w, prev) &&
        asym_fits_cpu(w, p, prev)) {
        if (!t->cluster_active || cpus_share_resources(t, prev, target))
            return prev;
        prev_aff = prev;
    }
    int recent = p->recent_used_cpu;
    p->recent_used_cpu = prev;
    if (recent >= 0 && recent != prev && recent != target && cpus_share_cache(t, recent, target) &&
        sched_cpu_idle(w, recent) && task_allowed_on(p, recent) && asym_fits_cpu(w, p, recent)) {
        if (!t->cluster_active || cpus_share_resources(t, recent, target))
            return recent;
    } else {
        recent = -1;
    }
    if (t->asym_cpucapacity) {
        const struct sched_domain *sd = highest_flag_domain(t, target, SD_ASYM_CPUCAPACITY);
        if (sd) {
            int i = select_idle_capacity(w, p, sd, target);
            return i >= 0 ? i : target;
        }
    }
    const struct sched_domain *sd = highest_flag_domain(t, target, SD_SHARE_LLC);
    if (!sd)
        return target;
    bool has_idle_core = false;
    if (t->smt_active) {
        has_idle_core = w->sched.llc[t->llc_id[target]].has_idle_cores;
        if (!has_idle_core && cpus_share_cache(t, prev, target)) {
            int i = select_idle_smt(w, p, sd, prev);
            if (i >= 0)
                return i;
        }
    }
    int i = select_idle_cpu(w, p, sd, has_idle_core, target);
    if (i >= 0)
        return i;
    if (prev_aff >= 0)
        return prev_aff;
    if (recent >= 0)
        return recent;
    return target;
}

/* ---- SIS_UTIL --------------------------------------------------------------- */

/* The SIS_UTIL scan budget a wake-up in cpu's LLC reads (select_idle_cpu:
 * sd_llc_shared->nr_idle_scan). It starts at the LLC's weight, what the
 * last periodic balance of a machine idle before the run leaves there. */
int fair_nr_idle_scan(const struct world *w, int cpu)
{
    const struct sched_topology *t = &w->sched.topo;
    if (!highest_flag_domain(t, cpu, SD_SHARE_LLC))
        return w->sched.ncpus;
    return w->sched.llc[t->llc_id[cpu]].nr_idle_scan;
}

/* update_idle_cpu_scan (kernel/sched/fair.c, called at the end of
 * update_sd_lb_stats): nr = llc_weight x (1 - (x x pct)^2 / 10000 / 1024)
 * with x the LLC's summed util per CPU, so the scan shrinks as the LLC
 * fills and stops at 85 % (100 / imbalance_pct 117). Only periodic
 * balancing (the busy tick or nohz idle balancing, not CPU_NEWLY_IDLE,
 * which runs far more often) of a domain that is dst's LLC writes it. */
void fair_update_idle_cpu_scan(struct world *w, int dst, const struct sched_domain *sd,
                               uint64_t sum_util, enum cpu_idle_type idle)
{
    const struct sched_topology *t = &w->sched.topo;
    if (!w->sched.sis_util || idle == CPU_NEWLY_IDLE || sd->span->weight != t->llc_size[dst] ||
        !highest_flag_domain(t, dst, SD_SHARE_LLC))
        return;
    uint64_t llc_weight = (uint64_t)t->llc_size[dst];
    uint64_t x = sum_util / llc_weight, pct = (uint64_t)sd->imbalance_pct;
    uint64_t tmp = x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE);
    tmp = tmp < SCHED_CAPACITY_SCALE ? tmp : SCHED_CAPACITY_SCALE;
    uint64_t y = (SCHED_CAPACITY_SCALE - tmp) * llc_weight / SCHED_CAPACITY_SCALE;
    w->sched.llc[t->llc_id[dst]].nr_idle_scan = (int)y;
}

/* ---- the fork/exec slow path (sched_balance_find_dst_cpu) ------------------ */

/* The slow path classifies into has_spare, fully_busy, misfit_task and
 * overloaded only (enum group_type and struct sg_stats: sched.h). */
int rq_nr_running(const struct world *w, int cpu)
{
    return w->sched.nr_running[cpu];
}

bool group_is_overloaded(int imbalance_pct, const struct sg_stats *sgs)
{
    if (sgs->sum_nr_running <= sgs->group_weight)
        return false;
    if ((double)sgs->group_capacity * 100 < sgs->group_util * imbalance_pct)
        return true;
    return (double)sgs->group_capacity * imbalance_pct < sgs->group_runnable * 100;
}

bool group_has_capacity(int imbalance_pct, const struct sg_stats *sgs)
{
    if (sgs->sum_nr_running < sgs->group_weight)
        return true;
    if ((double)sgs->group_capacity * imbalance_pct < sgs->group_runnable * 100)
        return false;
    return (double)sgs->group_capacity * 100 > sgs->group_util * imbalance_pct;
}

/* What update_sg_wakeup_stats adds for one CPU of the group, p left out
 * (the kernel's loop body). */
static void sg_wakeup_add_cpu(const struct world *w, int cpu, const struct task *p,
                              struct sg_stats *sgs)
{
    sgs->group_load += cpu_load_without(w, cpu, p);
    sgs->group_util += cpu_util_without(w, cpu, p);
    int nr = rq_nr_running(w, cpu) - (p->cpu == cpu);
    sgs->sum_nr_running += nr;
    if (!nr && sched_cpu_idle(w, cpu))
        sgs->idle_cpus++;
}

/* The same taken out again as the cache holds it (p-independent). */
static void sg_wakeup_sub_cached(const struct world *w, int cpu, struct sg_stats *sgs)
{
    const struct sg_cache_cpu *c = &w->sched.sgc->cpu[cpu];
    sgs->group_load -= (double)c->load;
    sgs->group_util -= (double)c->util;
    sgs->sum_nr_running -= c->nr;
    sgs->idle_cpus -= c->nr == 0;
}

/* Whether p's own signals or count make cpu's part differ from the
 * cache's: its averages there, its util_est there, or it is queued there. */
static bool sg_wakeup_touches(const struct task *p, int cpu)
{
    return task_on_cpu_signals(p, cpu) || p->util_est_cpu == cpu || p->cpu == cpu;
}

/* The group's load, util, nr_running and idle CPUs without p: the cached
 * sums (fair_sg_cache.h: the same integers the kernel's loop adds), with
 * the CPUs p touches (at most three) taken as the loop takes them. */
void fair_sg_wakeup_sums(const struct world *w, const struct sched_group *group,
                         const struct task *p, struct sg_stats *sgs)
{
    if (!w->sched.sgc) {
        fair_sg_wakeup_sums_rescan(w, group, p, sgs);
        return;
    }
    sg_cache_read_stats(w, group->span, sgs);
    int touched[3] = { p->prev_cpu, p->util_est_cpu, p->cpu };
    for (int k = 0; k < 3; k++) {
        int cpu = touched[k];
        /* p's own fields first: a fork touches no CPU, and the span test
         * is a cache miss per group on a large machine */
        if (cpu < 0 || !sg_wakeup_touches(p, cpu) || (k > 0 && cpu == touched[0]) ||
            (k > 1 && cpu == touched[1]) || !sched_span_test_cpu(group->span, cpu))
            continue;
        sg_wakeup_sub_cached(w, cpu, sgs);
        sg_wakeup_add_cpu(w, cpu, p, sgs);
    }
}

void fair_sg_wakeup_sums_rescan(const struct world *w, const struct sched_group *group,
                                const struct task *p, struct sg_stats *sgs)
{
    sgs->group_load = sgs->group_util = 0;
    sgs->sum_nr_running = sgs->idle_cpus = 0;
    for (int i = 0; i < group->span->weight; i++)
        sg_wakeup_add_cpu(w, group->span->cpus[i], p, sgs);
}

/* The invariants build checks every fork's sums against the rescan. */
static void sg_wakeup_cross_check(const struct world *w, const struct sched_group *group,
                                  const struct task *p, const struct sg_stats *sgs)
{
#ifdef PMLAB_INVARIANTS
    if (!w->sched.sgc)
        return;
    struct sg_stats fresh;
    fair_sg_wakeup_sums_rescan(w, group, p, &fresh);
    sg_cache_check_stats(w, "group", group->span, sgs, &fresh);
#else
    (void)w, (void)group, (void)p, (void)sgs;
#endif
}

/* update_sg_wakeup_stats: the group as it would be without p. Runnable
 * equals load here (nice-0 tasks only). The sums come from the cache
 * (fair_sg_wakeup_sums), not from a loop over the group's CPUs. */
static void update_sg_wakeup_stats(const struct world *w, const struct sched_domain *sd,
                                   const struct sched_group *group, const struct task *p,
                                   struct sg_stats *sgs)
{
    *sgs = (struct sg_stats){ .misfit = (sd->flags & SD_ASYM_CPUCAPACITY) != 0 };
    fair_sg_wakeup_sums(w, group, p, sgs);
    sg_wakeup_cross_check(w, group, p, sgs);
    for (int i = 0; sgs->misfit && i < group->span->weight; i++)
        if (task_fits_cpu(w, p, group->span->cpus[i]))
            sgs->misfit = false;
    sgs->group_runnable = sgs->group_load;
    sgs->group_capacity = group->capacity;
    sgs->group_weight = group->span->weight;
    if (group_is_overloaded(sd->imbalance_pct, sgs))
        sgs->group_type = group_overloaded;
    else if (sgs->misfit)
        sgs->group_type = group_misfit_task;
    else if (!group_has_capacity(sd->imbalance_pct, sgs))
        sgs->group_type = group_fully_busy;
    else
        sgs->group_type = group_has_spare;
    if (sgs->group_type == group_fully_busy || sgs->group_type == group_overloaded)
        sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / (double)sgs->group_capacity;
}

/* Whether group (sgs) is idler than the idlest so far: a lower type; same
 * type: lower avg_load (busy), more capacity (misfit), more idle CPUs then
 * less util (has_spare, 3edecfef0285). */
static bool update_pick_idlest(const struct sched_group *idlest,
                               const struct sg_stats *idlest_sgs,
                               const struct sched_group *group, const struct sg_stats *sgs)
{
    if (sgs->group_type != idlest_sgs->group_type)
        return sgs->group_type < idlest_sgs->group_type;
    switch (sgs->group_type) {
    case group_overloaded:
    case group_fully_busy:
        return idlest_sgs->avg_load > sgs->avg_load;
    case group_misfit_task:
        return idlest->max_capacity < group->max_capacity;
    case group_has_spare:
        if (idlest_sgs->idle_cpus != sgs->idle_cpus)
            return idlest_sgs->idle_cpus < sgs->idle_cpus;
        return idlest_sgs->group_util > sgs->group_util;
    case group_smt_balance:
    case group_asym_packing:
    case group_imbalanced:
        break;   /* not used in the slow wakeup path */
    }
    return false;
}

/* Whether p may run on some CPU of span (cpumask_intersects with cpus_ptr).
 * A task allowed everywhere needs no look at the span (at 1,792 CPUs the
 * span of each of a fork's groups is a cache miss). */
static bool span_allowed(const struct sched_span *span, const struct task *p)
{
    if (p->pin_cpu < 0 && !p->cpus_mask)
        return true;
    for (int i = 0; i < span->weight; i++)
        if (task_allowed_on(p, span->cpus[i]))
            return true;
    return false;
}

/* adjust_numa_imbalance: up to imb_numa_nr running, a gap of 2 idle CPUs is
 * tolerated to keep the task near its wakeup source. */
int adjust_numa_imbalance(int imbalance, int dst_running, int imb_numa_nr)
{
    if (dst_running > imb_numa_nr)
        return imbalance;
    return imbalance <= 2 ? 0 : imbalance;
}

/* Local versus idlest group of the same type: whether to stay local. */
static bool stay_local(const struct sched_domain *sd, const struct task *p,
                       const struct sched_group *local, const struct sg_stats *l,
                       const struct sched_group *idlest, const struct sg_stats *i)
{
    double imbalance = (double)NICE_0_LOAD * (sd->imbalance_pct - 100) / 100;
    switch (l->group_type) {
    case group_overloaded:
    case group_fully_busy:
        if ((sd->flags & SD_NUMA) && i->avg_load + imbalance >= l->avg_load)
            return true;
        if (i->avg_load >= l->avg_load + imbalance)
            return true;
        return 100 * l->avg_load <= sd->imbalance_pct * i->avg_load;
    case group_misfit_task:
        return local->max_capacity >= idlest->max_capacity;
    case group_has_spare:
        if (sd->flags & SD_NUMA) {
            int allowed = 0;
            for (int k = 0; k < local->span->weight; k++)
                allowed += task_allowed_on(p, local->span->cpus[k]);
            int imb_numa_nr = allowed < sd->imb_numa_nr ? allowed : sd->imb_numa_nr;
            int gap = l->idle_cpus - i->idle_cpus;
            if (!adjust_numa_imbalance(gap < 0 ? -gap : gap, l->sum_nr_running + 1, imb_numa_nr))
                return true;
        }
        return l->idle_cpus >= i->idle_cpus;
    case group_smt_balance:
    case group_asym_packing:
    case group_imbalanced:
        return true;
    }
    return true;
}

/* sched_balance_find_dst_group: the idlest group of sd if p should move
 * there from this_cpu's (local) group, else NULL. */
static const struct sched_group *sched_balance_find_dst_group(const struct world *w,
                                                              const struct sched_domain *sd,
                                                              const struct task *p, int this_cpu)
{
    const struct sched_group *idlest = NULL, *local = NULL;
    struct sg_stats local_sgs = { 0 }, idlest_sgs = { .avg_load = 1e300,
                                                            .group_type = group_overloaded };
    for (int g = 0; g < sd->ngroups; g++) {
        const struct sched_group *group = sd->groups[g];
        if (!span_allowed(group->span, p))
            continue;
        struct sg_stats sgs;
        update_sg_wakeup_stats(w, sd, group, p, &sgs);
        if (sched_span_test_cpu(group->span, this_cpu)) {
            local = group;
            local_sgs = sgs;
        } else if (update_pick_idlest(idlest, &idlest_sgs, group, &sgs)) {
            idlest = group;
            idlest_sgs = sgs;
        }
    }
    if (!idlest)
        return NULL;
    if (!local)
        return idlest;
    if (local_sgs.group_type != idlest_sgs.group_type)
        return local_sgs.group_type < idlest_sgs.group_type ? NULL : idlest;
    return stay_local(sd, p, local, &local_sgs, idlest, &idlest_sgs) ? NULL : idlest;
}

/* Exit latency of the cpuidle state cpu is in (idle_get_state), -1 if none. */
static int64_t idle_state_exit_ns(const struct world *w, int cpu)
{
    int state = w->idle.mode == IDLE_MODE_CPUIDLE ? w->idle.cpu[cpu].state : -1;
    return state >= 0 ? w->idle.drv.states[state].exit_latency_ns : -1;
}

/* sched_balance_find_dst_group_cpu: the idle CPU in the shallowest state,
 * ties to the most recently idled; none idle: the least loaded. */
static int sched_balance_find_dst_group_cpu(const struct world *w, const struct sched_group *g,
                                            const struct task *p, int this_cpu)
{
    int64_t min_exit = INT64_MAX;
    /* Every CPU idle since the run began counts as idled at time 0 (on a
     * real machine every CPU has run something since boot). */
    sim_time_t latest_idle = -1;
    double min_load = 1e300;
    int least_loaded = this_cpu, shallowest = -1;
    if (g->span->weight == 1)
        return g->span->first;
    for (int i = 0; i < g->span->weight; i++) {
        int cpu = g->span->cpus[i];
        if (!task_allowed_on(p, cpu))
            continue;
        if (sched_cpu_idle(w, cpu)) {
            int64_t exit_ns = idle_state_exit_ns(w, cpu);
            sim_time_t stamp = w->sched.cpu[cpu].idle_stamp_ns;
            if (exit_ns >= 0 && exit_ns < min_exit) {
                min_exit = exit_ns;
                latest_idle = stamp;
                shallowest = cpu;
            } else if ((exit_ns < 0 || exit_ns == min_exit) && stamp > latest_idle) {
                latest_idle = stamp;
                shallowest = cpu;
            }
        } else if (shallowest == -1) {
            double load = (double)rq_avg(w, cpu)->load_avg;
            if (load < min_load) {
                min_load = load;
                least_loaded = cpu;
            }
        }
    }
    return shallowest != -1 ? shallowest : least_loaded;
}

/* Descend from sd: pick a group, a CPU in it, then go on in that CPU's
 * highest sd_flag domain below the current span. */
static int sched_balance_find_dst_cpu(const struct world *w, const struct sched_domain *sd,
                                      const struct task *p, int cpu, int prev_cpu, unsigned sd_flag)
{
    const struct sched_topology *t = &w->sched.topo;
    int new_cpu = cpu, n;
    if (!span_allowed(sd->span, p))
        return prev_cpu;
    const struct sched_domain *base = sched_domains(t, cpu, &n);
    while (sd) {
        const struct sched_domain *child = sd > base ? sd - 1 : NULL;
        if (!(sd->flags & sd_flag)) {
            sd = child;
            continue;
        }
        const struct sched_group *group = sched_balance_find_dst_group(w, sd, p, cpu);
        if (!group) {
            sd = child;
            continue;
        }
        new_cpu = sched_balance_find_dst_group_cpu(w, group, p, cpu);
        if (new_cpu == cpu) {
            sd = child;
            continue;
        }
        cpu = new_cpu;
        int weight = sd->span->weight;
        sd = NULL;
        base = sched_domains(t, cpu, &n);
        for (int l = 0; l < n && weight > base[l].span->weight; l++)
            if (base[l].flags & sd_flag)
                sd = &base[l];
    }
    return new_cpu;
}

/* ---- select_task_rq_fair ------------------------------------------------------ */

/* post_init_entity_util_avg: half the CPU's spare capacity, or the task's
 * share of the runqueue's util by weight if that is less; then the sums
 * from the averages on the runqueue's grid, as attach_entity_load_avg does
 * at the enqueue that follows. Integer arithmetic as in the kernel. */
void fair_post_init_util(struct world *w, struct task *p, int cpu)
{
    struct sched_avg rq = rq_avg_now(w, cpu);
    long cap = ((long)capacity_of(w, cpu) - (long)rq.util_avg) / 2;
    p->avg.util_avg = 0;
    if (cap > 0) {
        unsigned long util = rq.util_avg ? rq.util_avg * NICE_0_LOAD / (rq.load_avg + 1)
                                         : (unsigned long)cap;
        p->avg.util_avg = util < (unsigned long)cap ? util : (unsigned long)cap;
    }
    pelt_attach(&p->avg, &rq, NICE_0_LOAD);
    p->avg_cpu = cpu;
}

void fair_cpu_went_idle(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (!c->had_task)
        return;
    c->had_task = false;
    c->idle_stamp_ns = w->q.now_ns;
    /* __update_idle_core: the core is now wholly idle */
    const struct sched_span *smt = smt_mask(w, cpu);
    for (int i = 0; i < smt->weight; i++)
        if (!sched_cpu_idle(w, smt->cpus[i]))
            return;
    set_idle_cores(w, cpu, true);
}

int select_task_rq_fair(struct world *w, struct task *p, int cpu, bool fork)
{
    int prev_cpu = p->prev_cpu, new_cpu = prev_cpu, n;
    unsigned sd_flag = fork ? SD_BALANCE_FORK : SD_BALANCE_WAKE;
    bool want_affine = false;
    if (!fork) {
        struct task *curr = cpu_current(w, cpu);
        record_wakee(w, curr, p);
        want_affine = !wake_wide(w, curr, p, cpu) && task_allowed_on(p, cpu);
    }
    const struct sched_domain *d = sched_domains(&w->sched.topo, cpu, &n), *sd = NULL;
    for (int l = 0; l < n; l++) {
        const struct sched_domain *tmp = &d[l];
        if (want_affine && (tmp->flags & SD_WAKE_AFFINE) && sched_span_test_cpu(tmp->span, prev_cpu)) {
            if (cpu != prev_cpu)
                new_cpu = wake_affine(w, tmp, p, cpu, prev_cpu);
            sd = NULL;
            break;
        }
        if (tmp->flags & sd_flag)
            sd = tmp;
        else if (!want_affine)
            break;
    }
    if (sd)
        return sched_balance_find_dst_cpu(w, sd, p, cpu, prev_cpu, sd_flag);
    if (!fork)
        return select_idle_sibling(w, p, prev_cpu, new_cpu);
    return new_cpu;
}
