/* balance: load balancing between runqueues, sched_balance_rq (load_balance
 * before v6.10) and the three ways it is called (kernel/sched/fair.c, stored
 * ~v6.10; FACTS-2.md section 3 "Balancing" [S1, S5, S6, S7], FACTS.md §6 [A5]).
 *
 * Kept of the kernel:
 *  - sched_balance_rq on one domain for a destination CPU: should_we_balance
 *    (one CPU per local group balances: a newly idle CPU always; else the
 *    first idle CPU of the group, whole idle cores first since v6.6, else
 *    the group's first CPU), update_sd_lb_stats with group classification
 *    (has_spare, fully_busy, misfit_task, smt_balance since v6.6,
 *    asym_packing, imbalanced, overloaded) and update_sd_pick_busiest's
 *    tie-breaks, find_busiest_group's balanced/forced verdicts,
 *    calculate_imbalance (migrate_task, migrate_util, migrate_load,
 *    migrate_misfit; sibling_imbalance since v6.6; NUMA's allowance),
 *    find_busiest_queue, detach_tasks of queued tasks (affinity,
 *    task_hot against sysctl_sched_migration_cost 0.5 ms (never between SMT
 *    siblings) unless the domain failed more than cache_nice_tries times,
 *    at most one task when newly idle as under CONFIG_PREEMPTION, never
 *    emptying the source for an idle destination), the parent group's
 *    imbalance flag when affinity blocked a move, and active balance of a
 *    running task (asym packing, misfit, and a migrate_task imbalance
 *    failing more than cache_nice_tries + 2 times);
 *  - balance_interval per domain: sd_init's span weight in ms, times
 *    busy_factor on a busy CPU, whole jiffies minus one when busy, clamped to
 *    [1, HZ * nr_cpus / 10] jiffies; doubled up to max_interval when
 *    balanced, back to min_interval after a move;
 *  - periodic balance on a busy CPU's tick (trigger_load_balance, when
 *    rq->next_balance is due) and nohz idle balancing: a busy CPU's tick
 *    kicks an idle CPU (the first in nohz.idle_cpus_mask) when
 *    nohz.next_balance is due and it has >= 2 tasks, or an idle CPU of its
 *    asym-packing domain is preferred over it, or it runs a misfit task below
 *    the root domain's largest capacity, or its LLC has more than one busy
 *    CPU (nohz_balancer_kick); the kicked CPU balances every due idle CPU,
 *    then itself (_nohz_idle_balance);
 *  - newly idle balance (sched_balance_newidle): skipped unless some runqueue
 *    has >= 2 tasks (rd->overloaded) and rq->avg_idle covers the lowest
 *    domain's max_newidle_lb_cost; then up the domains while avg_idle covers
 *    the cost so far plus the next domain's, stopping at the first pull;
 *    avg_idle (1/8 moving average of idle periods, capped at twice
 *    max_idle_balance_cost) and max_newidle_lb_cost (decayed 253/256 per
 *    second) as the kernel keeps them;
 *  - asym packing by ITMT priority (SD_ASYM_PACKING): since v6.5
 *    (sched_use_asym_prio) a destination with busy SMT siblings does not
 *    pull and an SMT group is a source only with one busy CPU;
 *  - misfit (SD_ASYM_CPUCAPACITY, hybrids without SMT since v6.12): a running
 *    task failing the 1280/1024 fit test sets rq->misfit_task_load on its
 *    tick and is moved by active balance to a CPU of greater capacity.
 * Dropped: the cost of balancing in simulated time (a balance is instant;
 * for max_newidle_lb_cost a domain's balance is charged
 * BALANCE_COST_NS_PER_CPU per CPU it spans, an assumption, not a
 * measurement), the ILB CPU's own wake-up and IPI, the stop-machine delay of
 * active balance, LBF_DST_PINNED's retry with another destination, the
 * all-pinned retry without the busiest CPU, NUMA balancing
 * (migrate_degrades_locality), capacity reduced by RT/IRQ
 * (check_cpu_capacity), EAS and overutilization, blocked-load updates
 * (NOHZ_STATS_KICK), SD_SERIALIZE, and the asym packing rules of
 * v5.16-v6.4 for SMT (asym_smt_can_pull_tasks): there the lower sibling
 * priorities of itmt.c do that job. rd->overloaded is exact here (the count
 * of runqueues with >= 2 tasks) where the kernel clears it lazily. Tasks
 * that poll (KVM halt polling segments) are not moved while running. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/sched/fair_sg_cache.h"
#include "kernel/sched/isolation_run.h"
#include "kernel/sched/sched.h"
#include "util/container.h"
#include "util/xalloc.h"
#include "world.h"

#define SYSCTL_SCHED_MIGRATION_COST_NS 500000 /* sysctl_sched_migration_cost, 0.5 ms */
#define SYSCTL_SCHED_NR_MIGRATE 32            /* sysctl_sched_nr_migrate (PREEMPT_RT: 8) */
#define BALANCE_COST_NS_PER_CPU 100           /* cost of reading one runqueue: an estimate,
                                                * no measured source (feeds max_newidle_lb_cost) */
#define MAX_PINNED_INTERVAL_MS 512            /* balance_interval cap when all pinned */
#define NEWIDLE_COST_DECAY_NS SIM_NS_PER_S    /* max_newidle_lb_cost decays once per HZ */

/* 046a5a95c3b0 series (sched_use_asym_prio), fee1759e4f04 (smt_balance) and
 * 7ff1693236f5 (sibling_imbalance), b1bfeab9b002 (idle core balances):
 * constants, as they are compared on every balance. */
static const struct kversion asym_core_idle_since = { 6, 5, 0 };
static const struct kversion smt_balance_since = { 6, 6, 0 };

enum { LBF_ALL_PINNED = 1, LBF_SOME_PINNED = 2 };

struct lb_env {
    struct sched_domain *sd;
    struct sd_lb_state *lb;
    int dst_cpu, src_cpu;
    enum cpu_idle_type idle;
    double imbalance;
    enum migration_type migration_type;
    unsigned flags;
};

struct sd_lb_stats {
    const struct sched_group *busiest, *local;
    double total_load;
    unsigned long total_capacity;
    struct sg_stats busiest_stat, local_stat;
    double sum_util;            /* every group's group_util (update_idle_cpu_scan) */
    bool prefer_sibling;
    int busiest_cores, local_cores;
};

/* ---- small helpers ----------------------------------------------------------- */

static bool at_least(const struct world *w, const struct kversion *v)
{
    return kversion_cmp(&w->kp->kernel, v) >= 0;
}

static struct sd_lb_state *sd_state(const struct world *w, const struct sched_domain *sd)
{
    return &w->sched.balance.sd[sd - w->sched.topo.sd];
}

static bool *group_imbalance(const struct world *w, const struct sched_group *g)
{
    return &w->sched.balance.group_imbalance[g - w->sched.topo.grp];
}

static unsigned long capacity_of(const struct world *w, int cpu)
{
    return w->sched.topo.capacity[cpu];
}

/* capacity_greater: more than ~5 % larger. */
static bool capacity_greater(unsigned long a, unsigned long b)
{
    return a * 1024 > b * 1078;
}

static bool sched_asym_prefer(const struct world *w, int a, int b)
{
    return w->sched.itmt.prio[a] > w->sched.itmt.prio[b];
}

/* is_core_idle: every SMT sibling of cpu other than cpu itself idles. */
static bool core_siblings_idle(const struct world *w, int cpu)
{
    const struct sched_span *smt = w->sched.topo.smt[cpu];
    for (int i = 0; i < smt->weight; i++)
        if (smt->cpus[i] != cpu && !sched_cpu_idle(w, smt->cpus[i]))
            return false;
    return true;
}

/* sched_use_asym_prio (v6.5+): cpu may use its priority for asym packing in
 * sd unless it is an SMT thread whose siblings are busy. */
static bool sched_use_asym_prio(const struct world *w, const struct sched_domain *sd, int cpu)
{
    if (!at_least(w, &asym_core_idle_since) || !w->sched.topo.smt_active)
        return true;
    return (sd->flags & SD_SHARE_CPUCAPACITY) || core_siblings_idle(w, cpu);
}

static bool sched_asym(const struct world *w, const struct sched_domain *sd, int dst, int src)
{
    return sched_use_asym_prio(w, sd, dst) && sched_asym_prefer(w, dst, src);
}

static sim_time_t tick_ns(const struct world *w)
{
    return w->idle.tick_period_ns;
}

/* jiffies now, as a time in ns (whole ticks). */
static sim_time_t jiffies_ns(const struct world *w)
{
    return w->q.now_ns / tick_ns(w) * tick_ns(w);
}

/* get_sd_balance_interval, in ns (whole jiffies). */
static sim_time_t sd_balance_interval_compute_ns(const struct world *w,
                                                 const struct sched_domain *sd, bool cpu_busy)
{
    double ms = sd_state(w, sd)->balance_interval_ms;
    if (cpu_busy)
        ms *= sd->busy_factor;
    sim_time_t tick = tick_ns(w);
    long jiffies = (long)ceil(ms * SIM_NS_PER_MS / (double)tick);   /* msecs_to_jiffies */
    if (cpu_busy)
        jiffies--;   /* keep levels' periods from being multiples of each other */
    long max_jiffies = (long)(SIM_NS_PER_S / tick) * w->sched.ncpus / 10;
    if (jiffies > max_jiffies)
        jiffies = max_jiffies;
    if (jiffies < 1)
        jiffies = 1;
    return jiffies * tick;
}

/* sd_balance_interval_compute_ns through the domain's memo (sd_lb_state). */
static sim_time_t sd_balance_interval_ns(const struct world *w, const struct sched_domain *sd,
                                         bool cpu_busy)
{
    struct sd_lb_state *lb = sd_state(w, sd);
    if (lb->interval_memo_ms[cpu_busy] != lb->balance_interval_ms) {
        lb->interval_memo_ms[cpu_busy] = lb->balance_interval_ms;
        lb->interval_memo_ns[cpu_busy] = sd_balance_interval_compute_ns(w, sd, cpu_busy);
    }
    return lb->interval_memo_ns[cpu_busy];
}

/* update_newidle_cost with cost 0: the once-per-second decay. */
static void sd_decay_newidle_cost(const struct world *w, struct sd_lb_state *lb)
{
    while (w->q.now_ns > lb->next_decay_max_lb_cost_ns) {
        lb->max_newidle_lb_cost_ns = lb->max_newidle_lb_cost_ns * 253 / 256;
        lb->next_decay_max_lb_cost_ns += NEWIDLE_COST_DECAY_NS;
    }
}

/* ---- statistics (update_sd_lb_stats) ------------------------------------------- */

static bool rq_is_idle(const struct world *w, int cpu)
{
    return sched_cpu_idle(w, cpu);
}

/* sg->cores (init_sched_groups_capacity, 7ff1693236f5): the SMT cores the
 * group touches, each counted at its first CPU in the group, so that a lone
 * second sibling is one core too. */
static bool first_sibling_in(const struct world *w, const struct sched_span *span, int cpu)
{
    const struct sched_span *smt = w->sched.topo.smt[cpu];
    for (int k = 0; k < smt->weight && smt->cpus[k] < cpu; k++)
        if (sched_span_test_cpu(span, smt->cpus[k]))
            return false;
    return true;
}

static int group_cores(const struct world *w, const struct sched_group *g)
{
    int cores = 0;
    for (int i = 0; i < g->span->weight; i++)
        cores += first_sibling_in(w, g->span, g->span->cpus[i]);
    return cores;
}

static enum group_type group_classify(const struct lb_env *env, const struct world *w,
                                      const struct sched_group *g, const struct sg_stats *sgs)
{
    if (group_is_overloaded(env->sd->imbalance_pct, sgs))
        return group_overloaded;
    if (*group_imbalance(w, g))
        return group_imbalanced;
    if (sgs->group_asym_packing)
        return group_asym_packing;
    if (sgs->group_smt_balance)
        return group_smt_balance;
    if (sgs->group_misfit_task_load > 0)
        return group_misfit_task;
    if (!group_has_capacity(env->sd->imbalance_pct, sgs))
        return group_fully_busy;
    return group_has_spare;
}

/* sched_group_asym (v6.5+): an SMT group is an asym source only with exactly
 * one busy CPU; then its preferred CPU against the destination. */
static bool sched_group_asym(const struct lb_env *env, const struct world *w,
                             const struct sched_group *g, const struct sg_stats *sgs)
{
    if (at_least(w, &asym_core_idle_since) && (g->flags & SD_SHARE_CPUCAPACITY) &&
        sgs->group_weight - sgs->idle_cpus != 1)
        return false;
    return sched_asym(w, env->sd, env->dst_cpu, g->asym_prefer_cpu);
}

/* The kernel's loop over the group's CPUs for the sums (each read
 * bringing that CPU's averages up to date): the invariants build's
 * cross-check of the cached sums. */
static void sg_lb_sums_rescan(const struct world *w, const struct sched_group *g,
                              struct sg_stats *sgs)
{
    for (int i = 0; i < g->span->weight; i++) {
        int cpu = g->span->cpus[i];
        struct sched_avg a = rq_avg_now(w, cpu);
        int nr = rq_nr_running(w, cpu);
        sgs->group_load += a.load_avg;
        sgs->group_util += cpu_util_cfs(w, cpu);
        sgs->sum_nr_running += nr;
        if (!nr && rq_is_idle(w, cpu))
            sgs->idle_cpus++;
    }
}

/* The group's load, util, nr_running and idle CPUs: fair_sg_cache.h's
 * sums, the same integers as the kernel's loop (sg_lb_sums_rescan) with
 * the same lazy reads of the averages. */
static void sg_lb_sums(const struct world *w, const struct sched_group *g, struct sg_stats *sgs)
{
    if (!w->sched.sgc) {
        sgs->group_load = sgs->group_util = 0;
        sgs->sum_nr_running = sgs->idle_cpus = 0;
        sg_lb_sums_rescan(w, g, sgs);
        return;
    }
    sg_cache_read_stats(w, g->span, sgs);
#ifdef PMLAB_INVARIANTS
    struct sg_stats fresh = { 0 };
    sg_lb_sums_rescan(w, g, &fresh);
    sg_cache_check_stats(w, "balance group", g->span, sgs, &fresh);
#else
    (void)sg_lb_sums_rescan;
#endif
}

static void update_sg_lb_stats(const struct lb_env *env, const struct world *w,
                               const struct sched_group *g, bool local, struct sg_stats *sgs)
{
    *sgs = (struct sg_stats){ 0 };
    sg_lb_sums(w, g, sgs);
    for (int i = 0; (env->sd->flags & SD_ASYM_CPUCAPACITY) && i < g->span->weight; i++) {
        double misfit = w->sched.cpu[g->span->cpus[i]].misfit_task_load;
        if (misfit > sgs->group_misfit_task_load)
            sgs->group_misfit_task_load = misfit;
    }
    sgs->group_runnable = sgs->group_load;   /* nice-0 tasks only: runnable = load */
    sgs->group_capacity = g->capacity;
    sgs->group_weight = g->span->weight;
    if (!local && (env->sd->flags & SD_ASYM_PACKING) && env->idle != CPU_NOT_IDLE &&
        sgs->sum_nr_running && sched_group_asym(env, w, g, sgs))
        sgs->group_asym_packing = true;
    /* smt_balance (v6.6+): an SMT core running more than one task while an
     * idle CPU looks for work. */
    if (at_least(w, &smt_balance_since) && env->idle != CPU_NOT_IDLE &&
        (g->flags & SD_SHARE_CPUCAPACITY) && sgs->sum_nr_running > 1)
        sgs->group_smt_balance = true;
    sgs->group_type = group_classify(env, w, g, sgs);
    sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / (double)sgs->group_capacity;
}

/* update_sd_pick_busiest: whether sg (sgs) is busier than the busiest so far. */
static bool update_sd_pick_busiest(const struct lb_env *env, const struct world *w,
                                   const struct sd_lb_stats *sds, const struct sched_group *sg,
                                   const struct sg_stats *sgs)
{
    const struct sg_stats *busiest = &sds->busiest_stat;
    if (!sgs->sum_nr_running)
        return false;
    /* misfit: only to a destination of more capacity with spare room */
    if (sgs->group_type == group_misfit_task &&
        (!capacity_greater(capacity_of(w, env->dst_cpu), sg->max_capacity) ||
         sds->local_stat.group_type != group_has_spare))
        return false;
    if (!sds->busiest)
        goto pick;
    if (sgs->group_type > busiest->group_type)
        return true;
    if (sgs->group_type < busiest->group_type)
        return false;
    switch (sgs->group_type) {
    case group_overloaded:
        if (sgs->avg_load <= busiest->avg_load)
            return false;
        break;
    case group_imbalanced:
        return false;   /* the first one found */
    case group_asym_packing:
        if (sched_asym_prefer(w, sg->asym_prefer_cpu, sds->busiest->asym_prefer_cpu))
            return false;   /* the lowest priority is the busiest */
        break;
    case group_misfit_task:
        if (sgs->group_misfit_task_load < busiest->group_misfit_task_load)
            return false;
        break;
    case group_smt_balance:
    case group_fully_busy:
        if (sgs->group_type == group_fully_busy || (!sgs->idle_cpus && !busiest->idle_cpus)) {
            if (sgs->avg_load < busiest->avg_load)
                return false;
            break;
        }
        /* an SMT group with idle CPUs compares as has_spare */
        __attribute__((fallthrough));
    case group_has_spare:
        if (sgs->idle_cpus > busiest->idle_cpus)
            return false;
        if (sgs->idle_cpus == busiest->idle_cpus && sgs->sum_nr_running <= busiest->sum_nr_running)
            return false;
        break;
    }
pick:
    /* asymmetric capacity: do not pull a non-overloaded group's work to a
     * smaller CPU */
    if ((env->sd->flags & SD_ASYM_CPUCAPACITY) && sgs->group_type <= group_fully_busy &&
        capacity_greater(capacity_of(w, env->dst_cpu), sg->min_capacity))
        return false;
    return true;
}

static void update_sd_lb_stats(const struct lb_env *env, const struct world *w,
                               struct sd_lb_stats *sds)
{
    const struct sched_domain *sd = env->sd;
    *sds = (struct sd_lb_stats){ .local = sd->groups[0] };
    int child_flags = sd->groups[0]->flags;
    sds->prefer_sibling = (child_flags & SD_PREFER_SIBLING) != 0;
    /* The local group's statistics first: the busiest pick reads them. */
    update_sg_lb_stats(env, w, sds->local, true, &sds->local_stat);
    sds->total_load = sds->local_stat.group_load;
    sds->total_capacity = sds->local_stat.group_capacity;
    sds->sum_util = sds->local_stat.group_util;
    for (int i = 1; i < sd->ngroups; i++) {
        const struct sched_group *g = sd->groups[i];
        struct sg_stats sgs;
        update_sg_lb_stats(env, w, g, false, &sgs);
        if (update_sd_pick_busiest(env, w, sds, g, &sgs)) {
            sds->busiest = g;
            sds->busiest_stat = sgs;
        }
        sds->total_load += sgs.group_load;
        sds->total_capacity += sgs.group_capacity;
        sds->sum_util += sgs.group_util;
    }
    if (sds->busiest) {
        sds->busiest_cores = group_cores(w, sds->busiest);
        sds->local_cores = group_cores(w, sds->local);
    }
}

/* ---- find_busiest_group / calculate_imbalance ------------------------------------ */

/* sibling_imbalance (v6.6+): tasks to move so that running tasks per core
 * even out between groups of different core counts; before, half the gap. */
static double sibling_imbalance(const struct lb_env *env, const struct world *w,
                                const struct sd_lb_stats *sds)
{
    const struct sg_stats *b = &sds->busiest_stat, *l = &sds->local_stat;
    if (env->idle == CPU_NOT_IDLE || !b->sum_nr_running)
        return 0;
    long nb = b->sum_nr_running, nl = l->sum_nr_running;
    if (!at_least(w, &smt_balance_since) || sds->busiest_cores == sds->local_cores)
        return nb > nl ? (double)(nb - nl) : 0;
    long cl = sds->local_cores, cb = sds->busiest_cores;
    long imb = cl * nb - cb * nl;
    imb = imb > 0 ? imb : 0;
    imb = (2 * imb + cl + cb) / (cl + cb);
    if (imb <= 1 && nl == 0 && nb > 1)
        imb = 2;
    return (double)imb;
}

static void calculate_imbalance(struct lb_env *env, const struct world *w,
                                struct sd_lb_stats *sds)
{
    struct sg_stats *local = &sds->local_stat, *busiest = &sds->busiest_stat;
    switch (busiest->group_type) {
    case group_misfit_task:
        if (env->sd->flags & SD_ASYM_CPUCAPACITY) {
            env->migration_type = migrate_misfit;
            env->imbalance = 1;
        } else {
            env->migration_type = migrate_load;
            env->imbalance = busiest->group_misfit_task_load;
        }
        return;
    case group_asym_packing:
        env->migration_type = migrate_task;
        env->imbalance = busiest->sum_nr_running;
        return;
    case group_smt_balance:
    case group_imbalanced:
        env->migration_type = migrate_task;
        env->imbalance = 1;
        return;
    default:
        break;
    }
    if (local->group_type == group_has_spare) {
        if (busiest->group_type > group_fully_busy && !(env->sd->flags & SD_SHARE_LLC)) {
            /* fill the local group's spare capacity */
            env->migration_type = migrate_util;
            double cap = (double)local->group_capacity;
            env->imbalance = (cap > local->group_util ? cap : local->group_util) - local->group_util;
            if (env->idle != CPU_NOT_IDLE && env->imbalance == 0) {
                env->migration_type = migrate_task;
                env->imbalance = 1;
            }
            return;
        }
        env->migration_type = migrate_task;
        if (busiest->group_weight == 1 || sds->prefer_sibling) {
            env->imbalance = sibling_imbalance(env, w, sds);
        } else {
            int gap = local->idle_cpus - busiest->idle_cpus;
            env->imbalance = gap > 0 ? gap : 0;
        }
        if (env->sd->flags & SD_NUMA)
            env->imbalance = adjust_numa_imbalance((int)env->imbalance, local->sum_nr_running + 1,
                                                   env->sd->imb_numa_nr);
        env->imbalance = (double)((long)env->imbalance >> 1);
        return;
    }
    double sds_avg_load = sds->total_load * SCHED_CAPACITY_SCALE / (double)sds->total_capacity;
    if (local->group_type < group_overloaded && local->avg_load >= busiest->avg_load) {
        env->imbalance = 0;
        return;
    }
    env->migration_type = migrate_load;
    double from_busiest = (busiest->avg_load - sds_avg_load) * (double)busiest->group_capacity;
    double to_local = (sds_avg_load - local->avg_load) * (double)local->group_capacity;
    double imb = (from_busiest < to_local ? from_busiest : to_local) / SCHED_CAPACITY_SCALE;
    env->imbalance = imb > 0 ? imb : 0;
}

/* sched_balance_find_src_group (find_busiest_group): the busiest group of
 * env->sd, or NULL when the domain is balanced; env->imbalance set. */
static const struct sched_group *find_busiest_group(struct lb_env *env, const struct world *w,
                                                    struct sd_lb_stats *sds)
{
    update_sd_lb_stats(env, w, sds);
    if (!sds->busiest)
        return NULL;
    const struct sg_stats *busiest = &sds->busiest_stat, *local = &sds->local_stat;
    if (busiest->group_type == group_misfit_task || busiest->group_type == group_asym_packing ||
        busiest->group_type == group_imbalanced)
        goto force_balance;
    if (local->group_type > busiest->group_type)
        return NULL;
    if (local->group_type == group_overloaded) {
        double sds_avg = sds->total_load * SCHED_CAPACITY_SCALE / (double)sds->total_capacity;
        if (local->avg_load >= busiest->avg_load || local->avg_load >= sds_avg ||
            100 * busiest->avg_load <= env->sd->imbalance_pct * local->avg_load)
            return NULL;
    }
    if (sds->prefer_sibling && local->group_type == group_has_spare) {
        bool uneven = at_least(w, &smt_balance_since)
                          ? sibling_imbalance(env, w, sds) > 1
                          : busiest->sum_nr_running > local->sum_nr_running + 1;
        if (uneven)
            goto force_balance;
    }
    if (busiest->group_type != group_overloaded) {
        if (env->idle == CPU_NOT_IDLE)
            return NULL;   /* a busy CPU does not pull from a group that is not overloaded */
        if (busiest->group_type == group_smt_balance &&
            (sds->busiest->flags & SD_SHARE_CPUCAPACITY) &&
            !(sds->local->flags & SD_SHARE_CPUCAPACITY))
            goto force_balance;   /* smt_vs_nonsmt_groups */
        if (busiest->group_weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1)
            return NULL;
        if (busiest->sum_nr_running == 1)
            return NULL;
    }
force_balance:
    calculate_imbalance(env, w, sds);
    return env->imbalance > 0 ? sds->busiest : NULL;
}

/* sched_balance_find_src_rq (find_busiest_queue). */
static int find_busiest_queue(const struct lb_env *env, const struct world *w,
                              const struct sched_group *g)
{
    int busiest = -1, busiest_nr = 0;
    double busiest_load = 0, busiest_util = 0;
    unsigned long busiest_cap = 1;
    for (int i = 0; i < g->span->weight; i++) {
        int cpu = g->span->cpus[i];
        if (!w->sched.balance.env_cpus[cpu])
            continue;
        int nr = rq_nr_running(w, cpu);
        if (!nr)
            continue;
        unsigned long cap = capacity_of(w, cpu);
        if ((env->sd->flags & SD_ASYM_CPUCAPACITY) &&
            !capacity_greater(capacity_of(w, env->dst_cpu), cap) && nr == 1)
            continue;   /* a lone task on a CPU no smaller than the destination */
        if ((env->sd->flags & SD_ASYM_PACKING) && sched_use_asym_prio(w, env->sd, cpu) &&
            sched_asym_prefer(w, cpu, env->dst_cpu) && nr == 1)
            continue;   /* a lone task already on a preferred CPU */
        struct sched_avg a = rq_avg_now(w, cpu);
        switch (env->migration_type) {
        case migrate_load:
            if (nr == 1 && a.load_avg > env->imbalance)
                break;
            if (a.load_avg * (double)busiest_cap > busiest_load * (double)cap) {
                busiest_load = a.load_avg;
                busiest_cap = cap;
                busiest = cpu;
            }
            break;
        case migrate_util: {
            double util = cpu_util_cfs(w, cpu);
            if (nr > 1 && util > busiest_util) {
                busiest_util = util;
                busiest = cpu;
            }
            break;
        }
        case migrate_task:
            if (nr > busiest_nr) {
                busiest_nr = nr;
                busiest = cpu;
            }
            break;
        case migrate_misfit:
            if (w->sched.cpu[cpu].misfit_task_load > busiest_load) {
                busiest_load = w->sched.cpu[cpu].misfit_task_load;
                busiest = cpu;
            }
            break;
        }
    }
    return busiest;
}

/* ---- moving tasks ------------------------------------------------------------------ */

/* task_hot: it ran less than sysctl_sched_migration_cost ago, unless the
 * domain is an SMT core, whose siblings share its caches (ec73240b1627,
 * v5.10). */
static bool task_hot(const struct lb_env *env, const struct world *w, const struct task *p)
{
    if (env->sd->flags & SD_SHARE_CPUCAPACITY)
        return false;
    return p->exec_start_ns >= 0 &&
           w->q.now_ns - p->exec_start_ns < SYSCTL_SCHED_MIGRATION_COST_NS;
}

static bool can_migrate_task(struct lb_env *env, const struct world *w, const struct task *p)
{
    if (task_is_rt(p))
        return false;   /* detach_tasks walks the cfs_tasks list only */
    if (!task_allowed_on(p, env->dst_cpu)) {
        env->flags |= LBF_SOME_PINNED;
        return false;
    }
    env->flags &= ~(unsigned)LBF_ALL_PINNED;
    return !task_hot(env, w, p) || env->lb->nr_balance_failed > env->sd->cache_nice_tries;
}

/* detach_tasks + attach_tasks: move queued tasks of src to dst while the
 * imbalance lasts. Returns how many moved. */
static int detach_tasks(struct lb_env *env, struct world *w)
{
    int moved = 0, loops = 0;
    int loop_max = rq_nr_running(w, env->src_cpu);
    loop_max = loop_max < SYSCTL_SCHED_NR_MIGRATE ? loop_max : SYSCTL_SCHED_NR_MIGRATE;
    struct task *prev = NULL, *p = w->sched.cpu[env->src_cpu].head;
    while (p && env->imbalance > 0 && loops++ < loop_max) {
        struct task *next = p->next;
        if (env->idle != CPU_NOT_IDLE && rq_nr_running(w, env->src_cpu) <= 1)
            break;   /* do not empty the source for an idle destination */
        bool take = can_migrate_task(env, w, p);
        double load = task_avg_now(w, p).load_avg, util = task_util_est(w, p);
        if (take) {
            switch (env->migration_type) {
            case migrate_load:
                load = load > 1 ? load : 1;
                if (ldexp(load, -(env->lb->nr_balance_failed < 30 ? env->lb->nr_balance_failed : 30)) >
                    env->imbalance)
                    take = false;
                else
                    env->imbalance -= load;
                break;
            case migrate_util:
                if (util > env->imbalance)
                    take = false;
                else
                    env->imbalance -= util;
                break;
            case migrate_task:
                env->imbalance -= 1;
                break;
            case migrate_misfit:
                if (task_fits_cpu(w, p, env->src_cpu))
                    take = false;
                else
                    env->imbalance = 0;
                break;
            }
        }
        if (take) {
            sched_move_queued(w, env->src_cpu, prev, p, env->dst_cpu);
            moved++;
            if (env->idle == CPU_NEWLY_IDLE)
                break;   /* CONFIG_PREEMPTION: one task, then run it */
        } else {
            prev = p;
        }
        p = next;
    }
    return moved;
}

/* need_active_balance: the running task itself should move. */
static bool need_active_balance(const struct lb_env *env, const struct world *w)
{
    const struct sched_domain *sd = env->sd;
    if (env->idle != CPU_NOT_IDLE && (sd->flags & SD_ASYM_PACKING) &&
        sched_use_asym_prio(w, sd, env->dst_cpu) &&
        (sched_asym_prefer(w, env->dst_cpu, env->src_cpu) ||
         !sched_use_asym_prio(w, sd, env->src_cpu)))
        return true;   /* asym_active_balance */
    if (env->migration_type == migrate_task &&
        env->lb->nr_balance_failed > sd->cache_nice_tries + 2)
        return true;   /* imbalanced_active_balance */
    return env->migration_type == migrate_misfit;
}

/* Whether src's running task can be moved now: it runs work (not a poll or
 * its done()), and it is not pinned to src alone. */
static bool running_movable(const struct world *w, int src)
{
    const struct sched_cpu *c = &w->sched.cpu[src];
    return c->curr && !c->waking && !c->in_done && !c->curr->polling && !task_is_rt(c->curr);
}

/* The cpu stopper's active_load_balance_cpu_stop, without its delay: a
 * queued task of src if one may go (hotness ignored), else its running one. */
static bool active_balance(struct lb_env *env, struct world *w)
{
    int src = env->src_cpu, dst = env->dst_cpu;
    struct task *prev = NULL;
    for (struct task *p = w->sched.cpu[src].head; p; prev = p, p = p->next) {
        if (!task_is_rt(p) && task_allowed_on(p, dst)) {
            sched_move_queued(w, src, prev, p, dst);
            return true;
        }
    }
    if (!running_movable(w, src))
        return false;
    if (env->idle == CPU_NEWLY_IDLE)
        sched_pull_running(w, src, dst);
    else if (sched_cpu_idle(w, dst))
        sched_migrate_running(w, src, dst);
    else
        return false;
    return true;
}

/* sched_balance_rq: balance domain sd for dst. True if a task moved to it;
 * *continue_balancing is cleared when dst is not the CPU that balances this
 * domain for its group. */
static bool sched_balance_rq(struct world *w, int dst, struct sched_domain *sd,
                             enum cpu_idle_type idle, bool *continue_balancing);

static bool should_we_balance(const struct lb_env *env, const struct world *w)
{
    if (env->idle == CPU_NEWLY_IDLE)
        return rq_nr_running(w, env->dst_cpu) == 0;
    const struct sched_group *g = env->sd->groups[0];
    int first_idle = -1;
    bool core_first = at_least(w, &smt_balance_since) && w->sched.topo.smt_active;
    for (int i = 0; i < g->span->weight; i++) {
        int cpu = g->span->cpus[i];
        if (!rq_is_idle(w, cpu))
            continue;
        if (!core_first || core_siblings_idle(w, cpu))
            return cpu == env->dst_cpu;
        if (first_idle < 0)
            first_idle = cpu;
    }
    if (first_idle >= 0)
        return first_idle == env->dst_cpu;
    return g->span->first == env->dst_cpu;   /* group_balance_cpu */
}

static bool sched_balance_rq(struct world *w, int dst, struct sched_domain *sd,
                             enum cpu_idle_type idle, bool *continue_balancing)
{
    struct sd_lb_state *lb = sd_state(w, sd);
    struct lb_env env = { .sd = sd, .lb = lb, .dst_cpu = dst, .src_cpu = -1, .idle = idle };
    struct sd_lb_stats sds;
    const struct sched_domain *parent = NULL;
    int n;
    struct sched_domain *d = sched_domains(&w->sched.topo, dst, &n);
    if (sd - d + 1 < n)
        parent = sd + 1;
    bool moved = false;
    if (!should_we_balance(&env, w)) {
        *continue_balancing = false;
        goto out_balanced;
    }
    const struct sched_group *busiest_g = find_busiest_group(&env, w, &sds);
    /* group_util sums whole util values: the cast is exact */
    fair_update_idle_cpu_scan(w, dst, sd, (uint64_t)sds.sum_util, idle);
    if (!busiest_g)
        goto out_balanced;
    for (int i = 0; i < busiest_g->span->weight; i++)
        w->sched.balance.env_cpus[busiest_g->span->cpus[i]] = true;
    int src = find_busiest_queue(&env, w, busiest_g);
    for (int i = 0; i < busiest_g->span->weight; i++)
        w->sched.balance.env_cpus[busiest_g->span->cpus[i]] = false;
    if (src < 0)
        goto out_balanced;
    env.src_cpu = src;
    env.flags = LBF_ALL_PINNED;
    if (rq_nr_running(w, src) > 1) {
        moved = detach_tasks(&env, w) > 0;
        if (parent && (env.flags & LBF_SOME_PINNED) && env.imbalance > 0)
            *group_imbalance(w, parent->groups[0]) = true;
    }
    if (!moved) {
        if (idle != CPU_NEWLY_IDLE)
            lb->nr_balance_failed++;
        if (need_active_balance(&env, w)) {
            const struct task *curr = w->sched.cpu[src].curr;
            if (curr && !task_allowed_on(curr, dst)) {
                env.flags |= LBF_ALL_PINNED;
                goto out_one_pinned;
            }
            moved = active_balance(&env, w);
            lb->nr_balance_failed = 0;
        }
    } else {
        lb->nr_balance_failed = 0;
    }
    lb->balance_interval_ms = sd->min_interval_ms;
    return moved;
out_balanced:
    if (parent && !(env.flags & LBF_ALL_PINNED))
        *group_imbalance(w, parent->groups[0]) = false;
    lb->nr_balance_failed = 0;
out_one_pinned:
    if (idle == CPU_NEWLY_IDLE)
        return false;
    if (((env.flags & LBF_ALL_PINNED) && lb->balance_interval_ms < MAX_PINNED_INTERVAL_MS) ||
        lb->balance_interval_ms < sd->max_interval_ms)
        lb->balance_interval_ms *= 2;
    return false;
}

/* ---- periodic and nohz idle balancing ------------------------------------------------ */

/* sched_balance_domains (rebalance_domains): each due domain of cpu, bottom
 * up; cpu's next_balance from the domains' next due times. */
static void sched_balance_domains(struct world *w, int cpu, enum cpu_idle_type idle)
{
    int n;
    struct sched_domain *d = sched_domains(&w->sched.topo, cpu, &n);
    sim_time_t now = jiffies_ns(w), next = now + 60 * SIM_NS_PER_S;
    bool cont = true;
    for (int l = 0; l < n; l++) {
        struct sd_lb_state *lb = sd_state(w, &d[l]);
        sd_decay_newidle_cost(w, lb);
        if (!cont)
            break;
        sim_time_t interval = sd_balance_interval_ns(w, &d[l], idle != CPU_IDLE);
        if (now >= lb->last_balance_ns + interval) {
            if (sched_balance_rq(w, cpu, &d[l], idle, &cont))
                idle = sched_cpu_idle(w, cpu) ? CPU_IDLE : CPU_NOT_IDLE;
            lb->last_balance_ns = now;
            interval = sd_balance_interval_ns(w, &d[l], idle != CPU_IDLE);
        }
        if (lb->last_balance_ns + interval < next)
            next = lb->last_balance_ns + interval;
    }
    w->sched.cpu[cpu].next_balance_ns = next;
}

/* nohz_balancer_kick: whether busy cpu's tick should kick an idle CPU to
 * balance on behalf of the idle ones. */
static bool nohz_balancer_kick(const struct world *w, int cpu)
{
    const struct sched_balance *b = &w->sched.balance;
    if (b->nohz_nr_cpus == 0 || w->q.now_ns < b->nohz_next_balance_ns)
        return false;
    if (rq_nr_running(w, cpu) >= 2)
        return true;
    const struct sched_topology *t = &w->sched.topo;
    const struct sched_domain *sd = highest_flag_domain(t, cpu, SD_ASYM_PACKING);
    if (sd) {
        for (int i = 0; i < sd->span->weight; i++) {
            int k = sd->span->cpus[i];
            if (w->sched.cpu[k].nohz_idle && sched_asym(w, sd, k, cpu))
                return true;
        }
    }
    if (lowest_flag_domain(t, cpu, SD_ASYM_CPUCAPACITY)) {
        /* check_misfit_status; with asymmetric capacity the LLC test is not
         * made */
        return w->sched.cpu[cpu].misfit_task_load > 0 && capacity_of(w, cpu) < b->max_cpu_capacity;
    }
    return b->llc_nr_busy[t->llc_id[cpu]] > 1;
}

/* find_new_ilb: the first nohz-idle CPU other than the kicker that is idle. */
static int find_new_ilb(const struct world *w, int kicker)
{
    for (int cpu = 0; cpu < w->sched.ncpus; cpu++)
        if (cpu != kicker && w->sched.cpu[cpu].nohz_idle && sched_cpu_idle(w, cpu))
            return cpu;
    return -1;
}

/* _nohz_idle_balance on ilb: every due nohz-idle CPU after it, then itself. */
static void nohz_idle_balance(struct world *w, int ilb)
{
    struct sched_balance *b = &w->sched.balance;
    int ncpus = w->sched.ncpus;
    sim_time_t now = w->q.now_ns, next = now + 60 * SIM_NS_PER_S;
    for (int k = 1; k <= ncpus; k++) {
        int cpu = ilb + k < ncpus ? ilb + k : ilb + k - ncpus;   /* (ilb + k) % ncpus */
        struct sched_cpu *c = &w->sched.cpu[cpu];
        if (!c->nohz_idle || !sched_cpu_idle(w, cpu))
            continue;
        if (now >= c->next_balance_ns)
            sched_balance_domains(w, cpu, CPU_IDLE);
        if (c->next_balance_ns < next)
            next = c->next_balance_ns;
    }
    b->nohz_next_balance_ns = next;
}

void sched_balance_arm(struct world *w, int cpu)
{
    struct sim_event *ev = &w->sched.cpu[cpu].balance_ev;
    if (sim_event_pending(ev))
        return;
    sim_time_t period = tick_ns(w);
    sim_time_t at = tick_nohz_full_next_ns(w, cpu, (w->q.now_ns / period + 1) * period);
    if (at != SIM_TIME_MAX)
        sim_event_schedule(&w->q, ev, at);
}

/* update_misfit_status for cpu's running task. */
void sched_update_misfit_status(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    c->misfit_task_load = 0;
    if (!w->sched.topo.asym_cpucapacity || !c->curr || task_is_rt(c->curr))
        return;
    struct sched_avg a = task_avg_now(w, c->curr);
    if (!task_fits_cpu(w, c->curr, cpu))
        c->misfit_task_load = a.load_avg > 1 ? a.load_avg : 1;
}

/* sched_tick on a busy CPU: the tick's interrupt (its handler runs in the
 * running task's time: update_process_times, sched_tick; wake_irq_ns, the
 * machine's cost of one interrupt), misfit status, then
 * trigger_load_balance. */
void sched_balance_tick(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct sched_cpu *c = container_of(ev, struct sched_cpu, balance_ev);
    int cpu = (int)(c - w->sched.cpu);
    if (!c->curr || c->waking)
        return;   /* no longer busy: sched_start re-arms */
    sched_irq_on_busy(w, cpu, w->idle.wake_irq_ns + rcu_sched_clock_irq(w, cpu, false));
    isol_tick_ran(w, cpu);
    sched_update_misfit_status(w, cpu);
    if (!c->in_done && w->q.now_ns >= c->next_balance_ns)
        sched_balance_domains(w, cpu, CPU_NOT_IDLE);
    if (nohz_balancer_kick(w, cpu)) {
        int ilb = find_new_ilb(w, cpu);
        if (ilb >= 0)
            nohz_idle_balance(w, ilb);
    }
    if (c->curr)
        sched_balance_arm(w, cpu);
}

/* ---- newly idle balance -------------------------------------------------------------- */

bool sched_balance_newidle(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    c->newidle_stamp_ns = w->q.now_ns;
    c->misfit_task_load = 0;
    int n;
    struct sched_domain *d = sched_domains(&w->sched.topo, cpu, &n);
    if (n == 0)
        return false;
    if (w->sched.nr_rq_overloaded == 0 || c->avg_idle_ns < sd_state(w, &d[0])->max_newidle_lb_cost_ns)
        return false;
    double curr_cost = 0;
    bool pulled = false, cont = true;
    c->in_newidle = true;
    for (int l = 0; l < n && !pulled && cont; l++) {
        struct sd_lb_state *lb = sd_state(w, &d[l]);
        sd_decay_newidle_cost(w, lb);
        if (c->avg_idle_ns < curr_cost + lb->max_newidle_lb_cost_ns)
            break;
        if (!(d[l].flags & SD_BALANCE_NEWIDLE))
            continue;
        pulled = sched_balance_rq(w, cpu, &d[l], CPU_NEWLY_IDLE, &cont);
        double cost = (double)d[l].span->weight * BALANCE_COST_NS_PER_CPU;
        if (cost > lb->max_newidle_lb_cost_ns) {
            lb->max_newidle_lb_cost_ns = cost;
            lb->next_decay_max_lb_cost_ns = w->q.now_ns + NEWIDLE_COST_DECAY_NS;
        }
        curr_cost += cost;
    }
    c->in_newidle = false;
    if (curr_cost > c->max_idle_balance_cost_ns)
        c->max_idle_balance_cost_ns = curr_cost;
    if (pulled)
        c->newidle_stamp_ns = -1;
    return pulled;
}

/* ---- for replay tests ------------------------------------------------------------------ */

static struct sched_domain *domain_at(const struct world *w, int cpu, int level)
{
    int n;
    struct sched_domain *d = sched_domains(&w->sched.topo, cpu, &n);
    return level < n ? &d[level] : NULL;
}

void sched_balance_verdict(struct world *w, int dst, int level, enum cpu_idle_type idle,
                           struct lb_verdict *v)
{
    struct sched_domain *sd = domain_at(w, dst, level);
    struct lb_env env = { .sd = sd, .lb = sd_state(w, sd), .dst_cpu = dst, .idle = idle };
    struct sd_lb_stats sds;
    const struct sched_group *g = find_busiest_group(&env, w, &sds);
    *v = (struct lb_verdict){ .local_type = sds.local_stat.group_type,
                              .busiest_type = sds.busiest_stat.group_type,
                              .busiest_first = g ? g->span->first : -1, .busiest_cpu = -1,
                              .migration_type = env.migration_type, .imbalance = env.imbalance };
    if (!g)
        return;
    for (int i = 0; i < g->span->weight; i++)
        w->sched.balance.env_cpus[g->span->cpus[i]] = true;
    v->busiest_cpu = find_busiest_queue(&env, w, g);
    for (int i = 0; i < g->span->weight; i++)
        w->sched.balance.env_cpus[g->span->cpus[i]] = false;
}

enum group_type sched_balance_group_type(const struct world *w, int dst, int level, int group,
                                         enum cpu_idle_type idle)
{
    struct sched_domain *sd = domain_at(w, dst, level);
    struct lb_env env = { .sd = sd, .lb = sd_state(w, sd), .dst_cpu = dst, .idle = idle };
    struct sg_stats sgs;
    update_sg_lb_stats(&env, w, sd->groups[group], group == 0, &sgs);
    return sgs.group_type;
}

sim_time_t sched_balance_interval_ns(const struct world *w, int cpu, int level, bool busy)
{
    return sd_balance_interval_ns(w, domain_at(w, cpu, level), busy);
}

/* ---- bookkeeping ---------------------------------------------------------------------- */

void sched_balance_nohz_enter(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (c->nohz_idle || !isol_in_nohz_idle_mask(w, cpu))
        return;
    c->nohz_idle = true;
    w->sched.balance.nohz_nr_cpus++;
    w->sched.balance.llc_nr_busy[w->sched.topo.llc_id[cpu]]--;
}

void sched_balance_nohz_exit(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    /* ttwu_do_activate's avg_idle update, for a CPU that went newly idle */
    if (c->newidle_stamp_ns >= 0) {
        double delta = (double)(w->q.now_ns - c->newidle_stamp_ns);
        c->avg_idle_ns += (delta - c->avg_idle_ns) / 8;
        if (c->avg_idle_ns > 2 * c->max_idle_balance_cost_ns)
            c->avg_idle_ns = 2 * c->max_idle_balance_cost_ns;
        c->newidle_stamp_ns = -1;
    }
    if (!c->nohz_idle)
        return;
    c->nohz_idle = false;
    w->sched.balance.nohz_nr_cpus--;
    w->sched.balance.llc_nr_busy[w->sched.topo.llc_id[cpu]]++;
}

void sched_balance_nr_changed(struct world *w, int old_nr, int new_nr)
{
    w->sched.nr_rq_overloaded += (new_nr >= 2) - (old_nr >= 2);
}

void sched_balance_init(struct world *w)
{
    struct sched *s = &w->sched;
    struct sched_balance *b = &s->balance;
    int ncpus = s->ncpus;
    b->sd = xcalloc((size_t)ncpus * TL_NR, sizeof *b->sd);
    b->group_imbalance = xcalloc((size_t)(TL_NR + 1) * (size_t)ncpus, sizeof *b->group_imbalance);
    b->llc_nr_busy = xcalloc((size_t)ncpus, sizeof *b->llc_nr_busy);
    b->env_cpus = xcalloc((size_t)ncpus, sizeof *b->env_cpus);
    b->nohz_nr_cpus = 0;   /* every CPU starts idle (sched_init) */
    for (int cpu = 0; cpu < ncpus; cpu++) {
        struct sched_cpu *c = &s->cpu[cpu];
        c->nohz_idle = isol_in_nohz_idle_mask(w, cpu);
        b->nohz_nr_cpus += c->nohz_idle;
        c->newidle_stamp_ns = -1;
        c->avg_idle_ns = 2.0 * SYSCTL_SCHED_MIGRATION_COST_NS;
        c->max_idle_balance_cost_ns = SYSCTL_SCHED_MIGRATION_COST_NS;
        if (capacity_of(w, cpu) > b->max_cpu_capacity)
            b->max_cpu_capacity = capacity_of(w, cpu);
        int n;
        const struct sched_domain *d = sched_domains(&s->topo, cpu, &n);
        for (int l = 0; l < n; l++)
            *sd_state(w, &d[l]) = (struct sd_lb_state){
                .balance_interval_ms = d[l].min_interval_ms,
                .next_decay_max_lb_cost_ns = NEWIDLE_COST_DECAY_NS,
            };
    }
}

void sched_balance_destroy(struct world *w)
{
    struct sched_balance *b = &w->sched.balance;
    free(b->sd);
    free(b->group_imbalance);
    free(b->llc_nr_busy);
    free(b->env_cpus);
    *b = (struct sched_balance){ 0 };
}
