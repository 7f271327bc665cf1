/* isolation_run: the housekeeping masks at run time (isolation.h says what
 * each does); w->isol. */
#ifndef PMLAB_KERNEL_SCHED_ISOLATION_RUN_H
#define PMLAB_KERNEL_SCHED_ISOLATION_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/isolation.h"
#include "sim/eventq.h"
#include "sim/metrics.h"

struct world;
struct task;
struct rpt_metric_set;

struct isol_cpu {
    struct sim_event remote_tick_ev; /* sched_tick_remote's work for this CPU (v4.17+) */
    sim_time_t last_tick_ns;    /* the CPU's last busy tick (rq->last_sched_tick) */
    uint64_t nr_ticks;          /* busy ticks that ran on the CPU */
    uint64_t nr_remote_ticks;   /* remote ticks that found its tick stopped */
    uint64_t base_ticks, base_remote_ticks; /* at the measurement's start */
};

struct isol_sys {
    struct housekeeping hk;
    struct rpt_cpu_scope host_scope; /* the online CPUs, plain metric names */
    struct isol_cpu *cpu;       /* [ncpus], NULL when no mask is set */
};

void isol_init(struct world *w);
void isol_destroy(struct world *w);
/* The CPUs online (per-CPU rates are per online CPU). */
int isol_online_ncpus(const struct world *w);
/* nosmt: cpu is an offline secondary thread. */
bool isol_cpu_offline(const struct world *w, int cpu);
/* Where cpu's unbound timers run (get_nohz_timer_target), and its
 * background device interrupts (managed_irq): cpu itself unless isolated. */
int isol_timer_cpu(const struct world *w, int cpu);
int isol_irq_cpu(const struct world *w, int cpu);
/* Whether cpu enters nohz.idle_cpus_mask when idle. */
bool isol_in_nohz_idle_mask(const struct world *w, int cpu);
/* The tick of nohz_full cpu is stopped now: one task runs there. */
bool tick_nohz_full_stopped(const struct world *w, int cpu);
/* When cpu's next busy tick comes, next_ns if its tick runs: the residual
 * tick's time before v4.17, SIM_TIME_MAX since (none on the CPU). */
sim_time_t tick_nohz_full_next_ns(const struct world *w, int cpu, sim_time_t next_ns);
/* A busy tick ran on cpu (sched_tick): counted, deferrable timers run. */
void isol_tick_ran(struct world *w, int cpu);
/* cpu's runqueue went from old_nr to new_nr tasks: a second one restarts
 * a stopped tick. */
void tick_nohz_full_nr_changed(struct world *w, int cpu, int old_nr, int new_nr);
/* Give t with no affinity of its own the default one (HK_TYPE_DOMAIN). */
void isol_task_defaults(struct world *w, struct task *t);
/* Put offline thread cpu in its place: the deepest C-state, for good. */
void isol_park_offline(struct world *w, int cpu);
/* nohz_full_busy_ticks_per_s, nohz_full_remote_ticks_per_s (per nohz_full
 * CPU per second), only when nohz_full= is in effect. */
void isol_collect_metrics(const struct world *w, sim_time_t window_ns,
                          struct rpt_metric_set *out);
void isol_measure_reset(struct world *w);

#endif
