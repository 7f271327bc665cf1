/* rcu/tree: RCU callbacks and grace periods as far as they shape the idle
 * path: a CPU with callbacks queued keeps its tick, and the callbacks run
 * on it (RCU_SOFTIRQ) or, on a CPU named in rcu_nocbs=, in an rcuo kthread
 * on another CPU (kernel/rcu/tree.c, tree_nocb.h; FACTS-3.md §2).
 *
 * The rules modelled, all kernel versions pmlab runs (3.10+):
 *  - call_rcu queues on the calling CPU (the callbacks pmlab has: a thread's
 *    exit frees its task_struct and its struct pid after a grace period,
 *    kernel/exit.c put_task_struct_rcu_user, kernel/pid.c free_pid).
 *  - rcu_needs_cpu: a CPU whose callback list is not empty and not
 *    offloaded keeps its tick; tick_nohz_next_event then takes the next
 *    event as one tick after the last jiffy (kernel/time/tick-sched.c), so
 *    a running tick is retained and a stopped one fires at the next jiffy.
 *  - A grace period is requested from the CPU's own tick (rcu_pending ->
 *    rcu_core -> rcu_accelerate_cbs -> rcu_start_this_gp): call_rcu itself
 *    starts none. Callbacks queued while one runs wait for the next, which
 *    starts as soon as that one ends (rcu_gp_cleanup's needgp).
 *  - A grace period ends at the first force-quiescent-state scan, which the
 *    GP kthread runs after waiting jiffies_till_first_fqs jiffies on a
 *    timer-wheel timeout (one jiffy more: the wheel never fires early):
 *    idle CPUs are in an extended quiescent state that only that scan
 *    notes, and CPUs that run tasks report theirs at their tick before it. jiffies_till_first_fqs = RCU_JIFFIES_TILL_FORCE_QS (1 +
 *    (HZ > 250) + (HZ > 500)) + nr_cpu_ids / RCU_JIFFIES_FQS_DIV (256)
 *    (rcu_init_geometry), unless rcutree.jiffies_till_first_fqs is given.
 *  - The CPU notices the end at its next tick and invokes the callbacks
 *    that are done in RCU_SOFTIRQ (rcu_do_batch), in the time of the tick's
 *    interrupt.
 *  - rcu_nocbs= (and nohz_full=, which implies it): call_rcu on an
 *    offloaded CPU wakes its rcuo kthread when the list was empty
 *    (__call_rcu_nocb_wake); the kthread requests the grace period at once
 *    and, when it ends, invokes the callbacks; rcu_needs_cpu is false.
 *
 * Departures: the grace-period kthread's own wake-ups (its FQS timer, the
 * cleanup) are not simulated; a nocb group's rcuog and the per-CPU rcuoc
 * are one kthread per offloaded CPU; CONFIG_RCU_FAST_NO_HZ (default n,
 * removed in v5.17) and CONFIG_RCU_LAZY (v6.2, default n) are taken as
 * not set; callbacks the guest kernel queues are not modelled. */
#ifndef PMLAB_KERNEL_RCU_TREE_H
#define PMLAB_KERNEL_RCU_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/sched.h"
#include "sim/eventq.h"

struct world;
struct rpt_metric_set;

/* Callbacks a thread's exit queues: delayed_put_task_struct and
 * delayed_put_pid (a thread shares its creds, files and mm). */
#define RCU_CBS_PER_THREAD_EXIT 2

/* One CPU's callback list in the segments of rcu_segcblist: done (grace
 * period over, not yet invoked), waiting for grace period wait_seq, for
 * next_seq, and not yet assigned one. Sequence numbers count grace periods
 * from 1. */
struct rcu_data {
    uint32_t n_done, n_wait, n_next_ready, n_next;
    uint64_t wait_seq, next_ready_seq;
    bool offloaded;               /* rcu_nocb_mask */
    struct task nocb_kthread;     /* rcuo: offloaded CPUs only */
    bool nocb_awake;              /* woken, not yet done */
    bool nocb_invoke;             /* its run invokes callbacks (else it requests a GP) */
    uint32_t nocb_n;              /* callbacks that run invokes */
    /* Counters since the measurement start. */
    uint64_t nr_queued, nr_invoked, nr_ticks_held;
};

struct rcu_sys {
    struct rcu_data *rdp;         /* [ncpus] */
    int ncpus;
    uint64_t completed;           /* grace periods completed */
    bool gp_active;               /* grace period completed + 1 running */
    bool gp_needed;               /* callbacks wait for completed + 2 */
    int64_t gp_ns;                /* jiffies_till_first_fqs, in ns */
    int64_t tick_period_ns;
    int hz;                       /* CONFIG_HZ */
    double cb_ns;                 /* one callback's run, ns on the reference core */
    double kthread_run_ns;        /* an rcuo kthread's run to request a GP, ns */
    struct sim_event gp_end_ev;
    uint64_t nr_gps;              /* grace periods ended in the window */
};

/* Set up w->rcu (after isolation, idle and sched are set up). */
void rcu_init(struct world *w);
void rcu_destroy(struct world *w);
/* jiffies_till_first_fqs for hz and ncpus unless the boot parameter sets it. */
int64_t rcu_jiffies_till_first_fqs(int hz, int ncpus);
/* call_rcu on cpu, n callbacks (from code running there). */
void call_rcu(struct world *w, int cpu, uint32_t n);
/* rcu_needs_cpu: cpu holds callbacks that keep its tick. */
bool rcu_needs_cpu(const struct world *w, int cpu);
/* The RCU work of cpu's tick (rcu_sched_clock_irq and the RCU_SOFTIRQ it
 * raises): request a grace period, move finished ones' callbacks to done,
 * invoke them. Returns the CPU time it takes, ns. idle: the tick woke an
 * idle CPU whose tick RCU held (counted). */
int64_t rcu_sched_clock_irq(struct world *w, int cpu, bool idle);
void rcu_measure_reset(struct world *w);
/* rcu_gps_per_s, rcu_callbacks_per_s and rcu_held_ticks_per_s. */
void rcu_collect_metrics(const struct world *w, sim_time_t window_ns, struct rpt_metric_set *out);

#endif
