/* sched: the part of the scheduler pmlab needs: per-CPU runqueues, task
 * placement, newly-idle pulling, and handing an empty CPU to the idle loop.
 *
 * What is kept of the kernel (kernel/sched/core.c and fair.c, v6.x):
 *  - sched domains and CPU capacities from the machine (topology.h);
 *  - placement by select_task_rq_fair (fair.c): a wakeup takes the fast path
 *    (wake_affine between the waker's CPU and the task's previous one, then
 *    select_idle_sibling in that CPU's LLC), a new task the slow path
 *    (sched_balance_find_dst_cpu down the domains); a task whose affinity
 *    allows one CPU goes there;
 *  - PELT-like per-CPU utilisation and load and per-task signals for those
 *    rules (fair.c says what of PELT is kept);
 *  - load balancing (balance.c): sched_balance_rq per domain, newly idle
 *    (gated by rd overload and avg_idle against the domains' newidle cost),
 *    periodic on a busy CPU's tick and nohz idle balancing by a kicked idle
 *    CPU, with asym packing (ITMT) and misfit moving running tasks;
 *  - a finishing task's done() runs while it is still current (a waker is
 *    current when it wakes);
 *  - the RT class (rt.c): SCHED_FIFO and SCHED_RR tasks run before fair
 *    ones, preempt them at wake-up, are placed by select_task_rq_rt and
 *    pushed and pulled between CPUs (push_rt_task, pull_rt_task);
 *  - the fair class's order (fair_entity.c): EEVDF from v6.6 (eligibility,
 *    virtual deadlines, lag), CFS's vruntime before, with wake-up
 *    preemption and slices ended at the tick; the running task is told when
 *    another is queued behind it (rq_grew), as a busy-wait loop reading
 *    single_task_running() would see;
 * What is dropped: nice levels and cgroups, NUMA
 * balancing (balance.c says what of the balancer is dropped), WF_SYNC
 * wakeups, EAS, and the cost
 * of a context switch on a busy CPU (a CPU woken from idle pays its wake-up
 * path: idle.h).
 *
 * Tasks are intrusive: a workload embeds struct task in its own objects. */
#ifndef PMLAB_KERNEL_SCHED_SCHED_H
#define PMLAB_KERNEL_SCHED_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/idle.h"
#include "kernel/sched/pelt.h"
#include "kernel/sched/topology.h"
#include "kernel/sched/uclamp.h"
#include "kernel/x86/itmt.h"
#include "sim/eventq.h"

struct world;
struct task;
struct sg_cache;

/* Called when a task's work is done. The task is asleep on return unless the
 * callback gave it more work with sched_wake_task(). */
typedef void (*task_done_fn)(struct world *w, struct task *t);
/* Called on the running task t when another task is queued on its CPU (a
 * wakeup or a migration). A kernel busy-wait loop that checks
 * single_task_running() or need_resched() sees this and stops (KVM halt
 * polling); the owner decides, e.g. with sched_task_finish_now(). */
typedef void (*task_rq_grew_fn)(struct world *w, struct task *t);

enum task_avg_state { TASK_AVG_SLEEPING, TASK_AVG_QUEUED, TASK_AVG_RUNNING };

/* se->avg.util_est (fair_util_est.c): what a fair task's util was at the end
 * of its recent activations, 0..1024. */
struct util_est {
    unsigned ewma;              /* the moving average (v6.8+: the whole util_est) */
    unsigned enqueued;          /* util_est.enqueued before v6.8: util_avg at the
                                 * last dequeue that took a sample */
    bool avg_unchanged;         /* UTIL_AVG_UNCHANGED: util_avg not recomputed
                                 * since that sample (no new sample is taken) */
};

/* A write to /sys/kernel/debug/sched/features (sched_params.c). */
enum sched_feat_write { SCHED_FEAT_UTIL_EST, SCHED_FEAT_NO_UTIL_EST, SCHED_FEAT_RT_RUNTIME_SHARE,
                        SCHED_FEAT_NO_RT_RUNTIME_SHARE, SCHED_FEAT_RT_PUSH_IPI,
                        SCHED_FEAT_NO_RT_PUSH_IPI };

struct kparams;
/* The variant's write to the features file (either path), a SCHED_FEAT_*. */
int64_t sched_feat_write(const struct kparams *kp);

/* Which rules of util_est_update the kernel version has (fair_util_est.c). */
struct util_est_rules {
    bool enabled;               /* v4.17+ with sched_feat(UTIL_EST) */
    bool fastup;                /* v5.5+: a higher sample replaces the ewma */
    bool skip_over_capacity;    /* v5.1+: no sample above the CPU's capacity */
    bool skip_contended;        /* v6.2+: runnable > util + 1 %: ewma kept */
    bool ewma_only;             /* v6.8+: one field, the ewma */
};

/* The task's policy (include/uapi/linux/sched.h): fair (SCHED_OTHER) or RT. */
enum sched_policy { SCHED_POLICY_NORMAL, SCHED_POLICY_FIFO, SCHED_POLICY_RR };
#define SCHED_RT_PRIO_MAX 99        /* MAX_RT_PRIO - 1: the highest rt_priority */

struct task {
    struct sim_event done_ev;   /* completion of the current work segment */
    task_done_fn done;
    task_rq_grew_fn rq_grew;    /* NULL: nothing to do (task_init) */
    bool polling;               /* the segment spins (KVM halt polling): the CPU
                                 * is in C0 as POLL, not running work */
    enum sched_policy policy;   /* task_set_scheduler; NORMAL from task_init */
    int rt_priority;            /* 1..99 for FIFO and RR (higher runs first), else 0 */
    sim_time_t rr_left_ns;      /* SCHED_RR: what is left of its time slice */
    int cpu;                    /* CPU it is queued or running on, -1 if asleep */
    int prev_cpu;               /* task_cpu(): last CPU it ran on, or was forked on */
    int recent_used_cpu;        /* p->recent_used_cpu (select_idle_sibling) */
    /* Affinity (cpus_ptr): pin_cpu >= 0 allows that CPU only; else cpus_mask
     * (owned by the caller, [ncpus]) or, NULL, every CPU. */
    int pin_cpu;
    const bool *cpus_mask;
    int nr_cpus_allowed;        /* 0 = every CPU */
    /* wake_wide(): how often this task, as a waker, switches wakee. */
    const struct task *last_wakee;
    unsigned wakee_flips;
    sim_time_t wakee_flip_decay_ns;
    struct sched_avg avg;       /* se->avg (pelt.h): util over running, load over
                                 * runnable, both 0..1024 for a nice-0 task */
    struct util_est util_est;   /* se->avg.util_est */
    struct uclamp_se uclamp_req[UCLAMP_CNT]; /* p->uclamp_req (uclamp.c) */
    int util_est_cpu;           /* the runqueue whose util_est sum holds this
                                 * task's estimate (util_est_enqueue), -1 none */
    enum task_avg_state avg_state;
    int avg_cpu;                /* whose rq_clock_pelt avg's time is on (-1: none yet) */
    bool avg_new;               /* forked, not yet enqueued (no contribution anywhere) */
    double work_ns;             /* remaining work, ns on the reference core alone */
    double speed;               /* speed of the running segment (hw_thread_speed) */
    sim_time_t seg_start_ns;    /* start of the running segment */
    sim_time_t exec_start_ns;   /* se.exec_start: when it last started or stopped
                                 * running, -1 never ran (task_hot) */
    sim_time_t sum_exec_ns;     /* se.sum_exec_runtime: its time on a CPU so far, ns */
    /* The fair class's sched_entity (fair_entity.c), ns of virtual time
     * (nice 0: one per ns on a CPU). */
    sim_time_t vruntime, deadline; /* se->vruntime, se->deadline (EEVDF) */
    sim_time_t vlag;            /* se->vlag at its last dequeue (EEVDF) */
    sim_time_t vrt_stamp_ns;    /* running: when vruntime was last advanced, else -1 */
    sim_time_t picked_exec_ns;  /* se->prev_sum_exec_runtime: sum_exec_ns when picked */
    int vrt_cpu;                /* CFS: the runqueue whose min_vruntime vruntime is on */
    bool run_to_parity;         /* EEVDF: picked and not yet given a new slice
                                 * (set_next_entity's vlag = deadline) */
    struct task *next;          /* runqueue link */
    const char *comm;           /* its name in a trace (NULL: "task"; static text) */
    int32_t trace_pid;          /* its pid in the world's trace, 0 until first traced */
};

/* fair_server.c: a CPU's deadline server for its fair tasks (v6.12+). */
enum fair_server_next { FS_DEFER, FS_BOOST_END, FS_PERIOD_END };
struct fair_server {
    sim_time_t runtime_ns, period_ns; /* fair_server/cpuN/runtime, period */
    bool active;                /* dl_server_active: fair tasks since it started */
    bool boosting;              /* running the fair tasks ahead of the RT ones */
    sim_time_t deadline_ns;     /* the period's end */
    sim_time_t period_fair_ns;  /* fair_exec_ns when the period began */
    sim_time_t fair_exec_ns;    /* the CPU's fair running time, banked */
    sim_time_t fair_stamp_ns;   /* the running fair task's time is banked to here */
    enum fair_server_next next; /* what ev is for */
    struct sim_event ev;        /* dl_timer: zero laxity, boost end, period end */
    struct sim_event sync_ev;   /* the fair runqueue emptied or got a task */
};

/* rt.c: a root domain's RT_PUSH_IPI iterator (rd->rto_cpu, rto_loop,
 * rto_loop_next, rto_push_work). Root domain 0 holds the CPUs in sched
 * domains, 1 (def_root_domain) the isolated ones. */
struct rt_root_domain {
    int rto_cpu;                /* the CPU the push IPI is at, -1 none */
    unsigned rto_loop, rto_loop_next;
    struct sim_event push_ev;   /* the IPI's arrival at rto_cpu */
};
#define RT_NR_ROOT_DOMAINS 2

struct sched_cpu {
    struct task *curr;          /* running task, or NULL */
    struct task *head, *tail;   /* queued tasks, FIFO */
    int nr_queued;
    bool waking;                /* leaving an idle state to run a task */
    bool in_done;               /* curr's segment ended and its done() runs: it is
                                 * still current, but has no work to re-time or move */
    struct sim_event wake_ev;   /* end of the exit latency, then of the wake-up path */
    sim_time_t wake_kernel_ns;  /* wake-up path software still to run after the exit */
    bool in_wake_kernel;        /* running it (busy, no task yet) */
    struct sim_event balance_ev; /* next scheduler tick while busy (balance.c) */
    /* balance.c: the runqueue's balancing state. */
    sim_time_t next_balance_ns; /* rq->next_balance, in whole ticks */
    sim_time_t newidle_stamp_ns; /* rq->idle_stamp: newly idle since, -1 not */
    double avg_idle_ns;         /* rq->avg_idle */
    double max_idle_balance_cost_ns; /* rq->max_idle_balance_cost */
    double misfit_task_load;    /* rq->misfit_task_load, 0 none */
    bool nohz_idle;             /* in nohz.idle_cpus_mask */
    bool in_newidle;            /* running sched_balance_newidle: a task moved
                                 * here is queued, not woken for */
    bool had_task;              /* ran a task since it last went idle */
    sim_time_t idle_stamp_ns;   /* rq->idle_stamp: when it last went idle after a task */
    struct task idle_task;      /* the idle task as a waker (record_wakee from an
                                 * interrupt on an idle CPU) */
    int nr_rt_queued;           /* RT tasks queued (the pick looks past the fair ones) */
    struct sim_event rr_ev;     /* end of the running SCHED_RR task's slice (rt.c) */
    /* rt.c's RT throttling: this CPU's rt_rq bandwidth. */
    sim_time_t rt_time_ns;      /* rt_rq->rt_time: RT running time this period */
    sim_time_t rt_runtime_ns;   /* rt_rq->rt_runtime (borrowed with RT_RUNTIME_SHARE) */
    sim_time_t rt_stamp_ns;     /* the running RT task's time is banked up to here */
    bool rt_throttled;          /* rt_rq->rt_throttled: its RT tasks wait, and
                                 * count in no rq->nr_running */
    struct sim_event rt_throttle_ev; /* the tick at which the running RT task
                                      * passes its runtime (update_curr_rt) */
    struct fair_server fs;      /* fair_server.c */
    struct sim_event slice_ev;  /* next tick while fair tasks share the CPU (fair_entity.c) */
    sim_time_t min_vruntime;    /* cfs_rq->min_vruntime */
    sim_time_t irq_until_ns;    /* an interrupt handler runs over curr until then */
    bool prev_runnable;         /* the task it last stopped running stays runnable
                                 * (preempted or moved), for sched_switch's prev_state */
    uint64_t nr_busy_irqs;      /* interrupts taken while a task ran (sched_irq_on_busy) */
    unsigned uclamp_max_idle;   /* uclamp.c: the uclamp_max an empty runqueue keeps */
};

/* cfs_rq->avg of one CPU (fair.c): util over running time, load over
 * nr_running x 1024, and the state the sums hold since their last update.
 * One array apart from sched_cpu: the fork slow path and the balancer read
 * every CPU's, and a read folds the time since the last update into the
 * sums (the lazy update), so readers with a const world reach it through
 * the pointer. */
struct cfs_rq_avg {
    struct sched_avg avg;       /* on sched.rq_clock[cpu]'s time (rq_clock_pelt) */
    int nr_running;             /* fair tasks queued or running since avg.last_update_ns */
    bool running;               /* a fair task ran since avg.last_update_ns */
    int nr_total;               /* rq->nr_running, every class, as last seen */
    unsigned util_est;          /* cfs_rq->avg.util_est: the estimates of its
                                 * enqueued fair tasks, summed */
};

/* sd_llc_shared: what the CPUs of one LLC share, by llc id (first CPU). */
struct sched_llc_shared {
    bool has_idle_cores;        /* set when a core goes fully idle, cleared by a
                                 * wake-up scan that found none */
    int nr_idle_scan;           /* SIS_UTIL: CPUs a wake-up scan may look at, as the
                                 * LLC's last periodic balance left it */
};

/* balance.c: per-domain and machine-wide balancing state. */
struct sd_lb_state {
    double balance_interval_ms; /* sd->balance_interval */
    sim_time_t last_balance_ns; /* sd->last_balance, in whole ticks */
    int nr_balance_failed;
    double max_newidle_lb_cost_ns;
    sim_time_t next_decay_max_lb_cost_ns;
    /* get_sd_balance_interval's last answer for an idle [0] and a busy [1]
     * CPU, in ns, and the balance_interval_ms it was computed from (0: none):
     * it is asked for at every balance of every level and changes only when
     * the interval doubles or resets. */
    double interval_memo_ms[2];
    sim_time_t interval_memo_ns[2];
};

struct sched_balance {
    struct sd_lb_state *sd;     /* [ncpus * TL_NR], as topo.sd */
    bool *group_imbalance;      /* [(TL_NR + 1) * ncpus], as topo.grp: sgc->imbalance */
    int nohz_nr_cpus;           /* nohz.nr_cpus */
    sim_time_t nohz_next_balance_ns; /* nohz.next_balance */
    int *llc_nr_busy;           /* [ncpus] by llc id: sd_llc_shared->nr_busy_cpus */
    unsigned long max_cpu_capacity; /* rd->max_cpu_capacity */
    bool *env_cpus;             /* [ncpus] scratch: lb_env.cpus */
};

struct sched {
    struct sched_cpu *cpu;      /* [ncpus] */
    struct cfs_rq_avg *rq_avg;  /* [ncpus] */
    int *nr_running;            /* [ncpus] rq->nr_running: curr (if any) plus queued
                                 * tasks; apart from sched_cpu so that idle checks of
                                 * other CPUs (a sibling, a wake-up scan) read one
                                 * small array, not a cache line per CPU */
    /* [ncpus] rq->clock_pelt (pelt.h): capacity- and frequency-scaled
     * running time; apart from rq_avg, which the scans over every CPU read,
     * to keep those entries small */
    struct pelt_clock *rq_clock;
    struct sg_cache *sgc;       /* fair_sg_cache.h: the fork slow path's group sums */
    int ncpus;
    uint64_t nr_wakeups, nr_idle_wakeups;
    uint64_t nr_pulls;          /* queued tasks moved by sched_balance_rq */
    uint64_t nr_preemptions;    /* running fair tasks preempted by a fair wake-up */
    uint64_t nr_slice_preemptions; /* running fair tasks switched out at a tick */
    uint64_t nr_migrations;     /* tasks that changed CPU after running (se.nr_migrations) */
    uint64_t measure_migrations; /* nr_migrations at the window's start (stats.c) */
    uint64_t measure_busy_irqs;  /* the CPUs' nr_busy_irqs summed, then (stats.c) */
    sim_time_t measure_start_ns;
    int nr_rq_overloaded;       /* runqueues with nr_running >= 2 (rd->overloaded) */
    struct sched_balance balance; /* balance.c */
    struct itmt itmt;           /* priorities and kernel.sched_itmt_enabled */
    struct sched_topology topo; /* sched domains and CPU capacities (topology.c) */
    struct sched_llc_shared *llc; /* [ncpus], by llc id */
    bool sis_util;              /* v6.0+: SIS_UTIL limits the idle-CPU scan */
    bool *scan_mask;            /* [ncpus] select_rq_mask: a wake-up scan's CPUs */
    bool asym_packing;          /* SD_ASYM_PACKING in effect: ITMT capable and enabled */
    uint64_t nr_asym_migrations; /* running tasks moved by active balance */
    uint64_t nr_rt_preemptions; /* running tasks preempted by a higher-priority RT wake-up */
    /* rt.c: push and pull of queued RT tasks. */
    bool rt_push_ipi;           /* sched_feat(RT_PUSH_IPI), v4.6+ */
    struct rt_root_domain rt_rd[RT_NR_ROOT_DOMAINS];
    uint64_t nr_rt_pushes;      /* queued RT tasks moved by push_rt_task */
    uint64_t nr_rt_pulls;       /* queued RT tasks moved by pull_rt_task */
    uint64_t nr_rt_push_ipis;   /* RT_PUSH_IPI irq works run (IPIs sent) */
    uint64_t nr_rt_equal_preemptions; /* check_preempt_equal_prio reschedules */
    int *rt_distribute_prev;    /* [ncpus] per calling CPU: cpumask_any_distribute's
                                 * last answer (find_lowest_rq, rt.c) */
    sim_time_t rr_timeslice_ns; /* sched_rr_timeslice: RR_TIMESLICE, 100 ms in jiffies */
    bool eevdf;                 /* v6.6+: EEVDF, else CFS (fair_entity.c) */
    sim_time_t base_slice_ns;   /* sysctl_sched_base_slice, scaled (EEVDF) */
    sim_time_t sched_latency_ns, min_granularity_ns, wakeup_granularity_ns; /* CFS, scaled */
    struct util_est_rules util_est; /* fair_util_est.c */
    /* rt.c: def_rt_bandwidth (RT throttling before v6.12). */
    bool rt_bandwidth;          /* throttling on: before 6.12, a finite runtime */
    bool rt_runtime_share;      /* sched_feat(RT_RUNTIME_SHARE) */
    sim_time_t rt_period_ns, rt_runtime_def_ns; /* sched_rt_period_us, sched_rt_runtime_us */
    struct sim_event rt_period_ev; /* rt_b->rt_period_timer */
    uint64_t nr_rt_throttled;   /* times an rt_rq was throttled */
    bool fair_server;           /* v6.12+: fair_server.c */
    uint64_t nr_fair_server_boosts; /* times a fair server ran fair tasks over RT */
    struct uclamp_sys uclamp;   /* uclamp.c */
};

void sched_init(struct world *w);
void sched_destroy(struct world *w);

/* Initialise a sleeping task that last ran on prev_cpu (for tests and
 * replays: a workload's tasks come from task_fork). */
void task_init(struct task *t, task_done_fn done, int prev_cpu);
/* Restrict t to one CPU (cpu >= 0) or allow every CPU (-1), as
 * sched_setaffinity to one CPU (pinning a vCPU thread) does. */
void task_set_affinity(struct task *t, int cpu);
/* Restrict t to the CPUs of mask[ncpus] (NULL: every CPU), as taskset -c
 * does; mask is the caller's and must outlive the task. */
void task_set_cpus_allowed(struct task *t, const bool *mask, int ncpus);
/* sched_setscheduler: t runs as policy, at rt_priority 1..99 for FIFO and RR
 * (ignored for NORMAL). Call while t sleeps. */
void task_set_scheduler(struct task *t, enum sched_policy policy, int rt_priority);
static inline bool task_is_rt(const struct task *t)
{
    return t->policy != SCHED_POLICY_NORMAL;
}
/* Whether t's affinity allows cpu. */
bool task_allowed_on(const struct task *t, int cpu);
/* try_to_wake_up: give sleeping task t work_ns of work and make it runnable
 * on the CPU select_task_rq picks. waker_cpu is the CPU whose code wakes it:
 * the CPU of the running task that wakes it (a task continuing from its own
 * done() stays where it is), or the CPU a timer or device interrupt ran on. */
void sched_wake_task(struct world *w, struct task *t, double work_ns, int waker_cpu);
/* wake_up_new_task: t (task_init'ed, never run) was forked by a task running
 * on parent_cpu; it gets work_ns of work (0: it starts and sleeps at once)
 * and a CPU from the fork slow path. */
void task_fork(struct world *w, struct task *t, double work_ns, int parent_cpu);
/* End t's running segment now, as if its work were done (a halt-poll loop
 * that saw its event); t's done() runs at once. No-op if t is not running. */
void sched_task_finish_now(struct world *w, struct task *t);
/* An interrupt on busy cpu: its handler and the softirqs it raised run for
 * ns in the running task's time (the task's segment ends ns later; a
 * wake-up preemption waits for the handler). Nothing when no task runs
 * its work (the idle paths charge their own interrupts). */
void sched_irq_on_busy(struct world *w, int cpu, sim_time_t ns);
/* core's frequency changed: re-time the running work of its threads. */
void sched_core_speed_changed(struct world *w, int core);
/* Whether cpu has nothing running or queued: the kernel's
 * available_idle_cpu() (idle_cpu(), no vCPU preemption on bare metal). A CPU
 * leaving an idle state for a tick, a timer or the POLL limit is idle: it
 * runs the idle task (rq->curr == rq->idle) with nothing queued; a CPU woken
 * for a task has it queued. */
bool sched_cpu_idle(const struct world *w, int cpu);
/* single_task_running() as t sees it on cpu: no task other than t is running
 * or queued there (t itself may be running, queued or just off the CPU). */
bool sched_single_task_running(const struct world *w, int cpu, const struct task *t);

/* Change cpu's hardware mode and re-time the running segment of its SMT
 * sibling, whose speed depends on it (DESIGN.md §3). Every mode change of a
 * thread goes through here. */
void sched_set_hw_mode(struct world *w, int cpu, int mode, int cstate);

/* End cpu's idle period for reason why (a tick or the POLL limit; task
 * wakeups come through sched_wake_task). After the exit latency the CPU runs
 * a queued task or goes idle again. */
void sched_idle_wakeup(struct world *w, int cpu, enum idle_wake why);

/* rt_rq_is_runnable: an RT task is queued or running on cpu (schedutil then
 * asks for the maximum frequency). */
bool sched_rt_runnable(const struct world *w, int cpu);

/* ---- for balance.c ---------------------------------------------------------- */

/* Move the task running on src (its work so far banked) to idle CPU dst; src
 * runs its next task or idles. */
void sched_migrate_running(struct world *w, int src, int dst);
/* The same for dst awake and choosing its next task (newly idle): t starts
 * on dst now, without an idle exit. */
void sched_pull_running(struct world *w, int src, int dst);
/* Whether cpu's core has nothing running, queued or waking on any thread. */
bool sched_core_is_idle(const struct world *w, int cpu);

/* fair.c: select_task_rq_fair for t waking (fork false) from waker_cpu or
 * forked on it; the CPU t should be queued on. */
int select_task_rq_fair(struct world *w, struct task *t, int waker_cpu, bool fork);
/* PELT (pelt.h): fold cpu's [last update, now) and take its new state;
 * the same for a task entering state s. Call after every change. */
void rq_avg_sync(struct world *w, int cpu);
void task_avg_sync(struct world *w, struct task *t, enum task_avg_state s);
/* t's averages move to cpu's PELT clock (enqueue on cpu). */
void task_avg_move(struct world *w, struct task *t, int cpu);
/* When a read of cpu's averages next changes them (a PELT period ends on
 * its clock), at its state now: fair_sg_cache.c's bound. */
sim_time_t rq_avg_change_ns(const struct world *w, int cpu);
/* update_rq_clock: advance cpu's PELT clock to now at its state, speed and
 * capacity so far (before the speed changes). */
void rq_clock_pelt_sync(struct world *w, int cpu);
/* post_init_entity_util_avg: a new task's util from cpu's spare capacity. */
void fair_post_init_util(struct world *w, struct task *p, int cpu);
/* cpu went idle after running a task: idle_stamp, has_idle_cores. */
void fair_cpu_went_idle(struct world *w, int cpu);
/* The SIS_UTIL scan budget of cpu's LLC (sd_llc_shared->nr_idle_scan). */
int fair_nr_idle_scan(const struct world *w, int cpu);

/* Shared by fair.c's slow path and balance.c: group types, lowest pulling
 * priority first (enum group_type), and a group's statistics (sg_lb_stats
 * and sg_wakeup_stats in one). */
enum group_type {
    group_has_spare,
    group_fully_busy,
    group_misfit_task,
    group_smt_balance,
    group_asym_packing,
    group_imbalanced,
    group_overloaded,
};

struct sg_stats {
    double avg_load, group_load, group_util, group_runnable;
    unsigned long group_capacity;
    int group_weight, sum_nr_running, idle_cpus;
    bool misfit;                /* wakeup: p fits no CPU of the group */
    double group_misfit_task_load; /* balance: largest rq->misfit_task_load */
    bool group_asym_packing, group_smt_balance;
    enum group_type group_type;
};

int rq_nr_running(const struct world *w, int cpu);
/* update_sg_wakeup_stats's sums for group without p (group_load,
 * group_util, sum_nr_running, idle_cpus; the rest of sgs untouched): from
 * fair_sg_cache.h's sums, what the fork path reads, or by the kernel's loop
 * over the group's CPUs, the cross-check of tests and of the invariants
 * build. Both bring the averages they read up to date as a rescan does. */
void fair_sg_wakeup_sums(const struct world *w, const struct sched_group *group,
                         const struct task *p, struct sg_stats *sgs);
void fair_sg_wakeup_sums_rescan(const struct world *w, const struct sched_group *group,
                                const struct task *p, struct sg_stats *sgs);
bool group_is_overloaded(int imbalance_pct, const struct sg_stats *sgs);
bool group_has_capacity(int imbalance_pct, const struct sg_stats *sgs);
int adjust_numa_imbalance(int imbalance, int dst_running, int imb_numa_nr);
/* cpu's and t's averages now. rq_avg_now brings cpu's sums up to now (the
 * update a read does, at most once per 1024 us period; only the rounding
 * of later values depends on it); task_avg_now leaves t as it is. */
struct sched_avg rq_avg_now(const struct world *w, int cpu);
struct sched_avg task_avg_now(const struct world *w, const struct task *t);
/* fits_capacity: util within 80 % of cpu's capacity. */
bool util_fits_cpu(const struct world *w, double util, int cpu);
/* task_fits_cpu: t's util fits cpu, with its uclamp clamps where uclamp is
 * in use (fair.c). */
bool task_fits_cpu(const struct world *w, const struct task *t, int cpu);
/* cpu_util_cfs: cpu's util, at least its enqueued tasks' estimates
 * (UTIL_EST), at most its capacity. */
double cpu_util_cfs(const struct world *w, int cpu);
/* task_util_est: t's util now, at least its estimate. */
double task_util_est(const struct world *w, const struct task *t);

/* fair_util_est.c: util_est (kernel/sched/fair.c). */
void fair_util_est_init(struct world *w);
/* util_est_update's rule: the sample a task leaves when it sleeps with util
 * `dequeued` on a CPU of `capacity`, its runnable average `runnable`. */
void util_est_update(const struct util_est_rules *r, struct util_est *ue, unsigned dequeued,
                     unsigned long capacity, unsigned long runnable);
/* _task_util_est: t's estimate alone. */
unsigned task_util_est_only(const struct world *w, const struct task *t);
/* t's estimate joins cpu's sum (util_est_enqueue; leaves its old one's
 * first), or leaves its runqueue's (util_est_dequeue), taking a sample when
 * t goes to sleep. Fair tasks only; no-op without UTIL_EST. */
void fair_util_est_enqueue(struct world *w, struct task *t, int cpu);
void fair_util_est_dequeue(struct world *w, struct task *t, bool sleep);
/* cfs_rq->avg.util_est of cpu (0 without UTIL_EST): schedutil's reader. */
unsigned long sched_cpu_util_est(const struct world *w, int cpu);

/* balance.c: load balancing (sched_balance_rq). */
enum cpu_idle_type { CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE };
/* fair.c, from balance.c's sched_balance_rq once update_sd_lb_stats has
 * summed sd's util (sum_util, the groups' clamped util): the SIS_UTIL
 * budget of dst's LLC when sd is that LLC and the balance is periodic
 * (update_idle_cpu_scan). */
void fair_update_idle_cpu_scan(struct world *w, int dst, const struct sched_domain *sd,
                               uint64_t sum_util, enum cpu_idle_type idle);
enum migration_type { migrate_load, migrate_util, migrate_task, migrate_misfit };
void sched_balance_init(struct world *w);
void sched_balance_destroy(struct world *w);
/* cpu started a task: arm its scheduler tick (trigger_load_balance). */
void sched_balance_arm(struct world *w, int cpu);
void sched_balance_tick(struct sim_event *ev, void *arg);
/* update_misfit_status: rq->misfit_task_load from cpu's running task (the
 * tick's task_tick_fair). */
void sched_update_misfit_status(struct world *w, int cpu);
/* cpu found nothing to run (sched_balance_newidle). True if it pulled a task:
 * a queued one is then at the head of cpu's queue, a running one already
 * runs on cpu. */
bool sched_balance_newidle(struct world *w, int cpu);
/* cpu enters (or leaves) the idle loop with its tick stopped: nohz idle. */
void sched_balance_nohz_enter(struct world *w, int cpu);
void sched_balance_nohz_exit(struct world *w, int cpu);
/* The runqueue of cpu changed from old_nr to new_nr running tasks. */
void sched_balance_nr_changed(struct world *w, int old_nr, int new_nr);

/* stats.c: the measurement window starts now; add migrations_per_s and, on
 * hybrid machines, busy_pct.<TYPE> and pcore_share_pct to out. */
struct rpt_metric_set;
void sched_measure_reset(struct world *w);
void sched_collect_metrics(const struct world *w, struct rpt_metric_set *out);

/* For replay tests: what sched_balance_rq would decide for dst on its
 * domain `level` (0: the lowest) without moving anything or asking
 * should_we_balance; the type of group `group` (0: dst's own) there; a
 * domain's balance interval (get_sd_balance_interval) for dst idle or busy. */
struct lb_verdict {
    enum group_type local_type, busiest_type;
    int busiest_first;          /* first CPU of the busiest group, -1: balanced */
    int busiest_cpu;            /* find_busiest_queue's runqueue, -1: none */
    enum migration_type migration_type;
    double imbalance;
};
void sched_balance_verdict(struct world *w, int dst, int level, enum cpu_idle_type idle,
                           struct lb_verdict *v);
enum group_type sched_balance_group_type(const struct world *w, int dst, int level, int group,
                                         enum cpu_idle_type idle);
sim_time_t sched_balance_interval_ns(const struct world *w, int cpu, int level, bool busy);

/* rt.c: the RT class. prio as the kernel numbers it (p->prio): 0 the highest
 * RT priority .. 99 the lowest, 120 a fair task. */
int task_prio(const struct task *t);
/* select_task_rq_rt: the CPU RT task t should be queued on, waking from
 * waker_cpu (or forked on it). */
int select_task_rq_rt(struct world *w, struct task *t, int waker_cpu);
/* rq->rt.highest_prio.curr of cpu: the best prio of its queued or running RT
 * tasks, 100 (MAX_RT_PRIO) if none. */
int sched_rt_highest_prio(const struct world *w, int cpu);
/* wakeup_preempt for t queued on cpu: whether t should run before cpu's
 * current task (an RT task over a fair one, a higher RT priority over a
 * lower, or an equal one as check_preempt_equal_prio says). */
bool sched_rt_preempts(const struct world *w, int cpu, const struct task *t);
/* check_preempt_equal_prio: RT t, of the running RT task's priority on cpu,
 * preempts it because t can run nowhere else and the current task can
 * (t then goes ahead of it in the queue, and the current one is pushed). */
bool sched_rt_preempts_equal(const struct world *w, int cpu, const struct task *t);
/* Push and pull (rt.c): task_woken_rt for RT t just queued on cpu by a
 * wake-up; the balance callback after cpu switched to RT task t
 * (set_next_task_rt); balance_rt as cpu, whose RT task prev went to
 * sleep, picks its next task (a pull, or RT_PUSH_IPI's IPI chain). */
void sched_rt_task_woken(struct world *w, int cpu, const struct task *t);
void sched_rt_switched_to(struct world *w, int cpu, const struct task *t);
void sched_rt_balance(struct world *w, int cpu, const struct task *prev);
void sched_rt_push_init(struct world *w);
void sched_rt_push_irq_work(struct sim_event *ev, void *arg);
/* The first queued RT task of cpu's best RT priority, NULL if none. */
struct task *sched_rt_pick_queued(const struct world *w, int cpu);
/* RT throttling (rt_bandwidth): RT task t starts running on cpu / stops
 * (its time banked); the period timer and the runtime check. */
void sched_rt_bw_init(struct world *w);
void sched_rt_bw_start(struct world *w, int cpu, struct task *t);
void sched_rt_bw_stop(struct world *w, int cpu, struct task *t);
void sched_rt_period_timer(struct sim_event *ev, void *arg);
void sched_rt_throttle_check(struct sim_event *ev, void *arg);
/* Whether cpu's rt_rq is throttled: its RT tasks may not run. */
bool sched_rt_throttled(const struct world *w, int cpu);
/* fair_server.c (v6.12+): a fair task t starts or stops running on cpu
 * (the server's runtime is fair running time); cpu's fair runqueue went
 * from old_nr to new_nr tasks (rq_avg_sync); the server's timers. */
void fair_server_init(struct world *w);
void fair_server_task_start(struct world *w, int cpu, const struct task *t);
void fair_server_task_stop(struct world *w, int cpu, const struct task *t);
void fair_server_nr_changed(struct world *w, int cpu, int old_nr, int new_nr);
void fair_server_timer(struct sim_event *ev, void *arg);
void fair_server_sync(struct sim_event *ev, void *arg);
/* SCHED_RR: arm (start) or bank and cancel (stop) the running task's slice. */
void sched_rr_start(struct world *w, int cpu, struct task *t);
void sched_rr_stop(struct world *w, int cpu, struct task *t);
void sched_rr_slice_end(struct sim_event *ev, void *arg);

/* fair_entity.c: the fair class's order. How a task joins a runqueue
 * (enqueue_entity's flags): woken from sleep, new (forked), moved by the
 * balancer, or back from being the running one (no placement). */
enum fair_enqueue { FAIR_ENQUEUE_WAKEUP, FAIR_ENQUEUE_INITIAL, FAIR_ENQUEUE_MIGRATED,
                    FAIR_ENQUEUE_RESTORE };
void fair_entity_init(struct world *w);
/* update_curr: the running fair task's vruntime up to now. */
void fair_update_curr(struct world *w, int cpu);
/* place_entity for t joining cpu (before it is queued). */
void fair_place_entity(struct world *w, int cpu, struct task *t, enum fair_enqueue how);
/* t leaves cpu (sleeps or moves; still counted there): its lag. */
void fair_dequeue_entity(struct world *w, int cpu, struct task *t);
/* The fair task cpu runs next of its queued ones (pick_eevdf / leftmost). */
struct task *fair_pick_queued(const struct world *w, int cpu);
/* set_next_entity: t starts running on cpu. */
void fair_set_next(struct world *w, int cpu, struct task *t);
/* wakeup_preempt_fair: whether fair t, placed on cpu, should preempt the
 * running fair task now. */
bool fair_wakeup_preempt(struct world *w, int cpu, const struct task *t);
/* The scheduler tick while fair tasks share cpu (entity_tick). */
void fair_tick_arm(struct world *w, int cpu);
void fair_tick(struct sim_event *ev, void *arg);

/* core.c, for rt.c: put cpu's running task back at the tail of its queue and
 * run the next one (requeue_task_rt at the end of an RR slice). */
void sched_requeue_curr(struct world *w, int cpu);
/* core.c, for rt.c's throttling: cpu's running task goes back to the head
 * of its queue and cpu picks again (resched_curr). */
void sched_resched_curr(struct world *w, int cpu);
/* Throttle or unthrottle cpu's rt_rq: its queued RT tasks leave or join
 * rq->nr_running; unthrottled, they run now (the CPU woken, or its fair
 * task switched out). */
void sched_rt_set_throttled(struct world *w, int cpu, bool throttled);
/* Whether c's running task is running its work and may be switched out
 * now (not in its done(), not spinning, not behind a wake-up path). */
bool sched_curr_interruptible(const struct sched_cpu *c);

/* core.c, for balance.c: move queued task t (on src, after prev in its queue,
 * NULL if head) to dst's queue; dst wakes if it idles. */
void sched_move_queued(struct world *w, int src, struct task *prev, struct task *t, int dst);
/* core.c, for rt.c's push and pull: move queued RT task t from src to dst;
 * dst_picking: dst is choosing its next task (the pull), t is only queued
 * there, else dst wakes or is preempted as a wake-up would (the push's
 * resched_curr(lowest_rq)). */
void sched_rt_move_queued(struct world *w, int src, struct task *t, int dst, bool dst_picking);

#endif
