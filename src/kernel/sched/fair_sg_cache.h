/* fair_sg_cache: the per-group sums the fork slow path reads, kept up to
 * date instead of recomputed at every fork.
 *
 * Why: sched_balance_find_dst_group (fair.c) asks update_sg_wakeup_stats
 * for every group of every SD_BALANCE_FORK domain, and the kernel sums the
 * group's CPUs there each time: at 1,792 CPUs each fork read every CPU's
 * PELT averages, util_est and nr_running. Those inputs change far less
 * often than forks happen (a CPU's averages at enqueue, dequeue, migration
 * and once per 1.048576 ms PELT period), so pmlab keeps, per span (a
 * group's CPUs), the sums of each CPU's p-independent part (load_avg,
 * util clamped as cpu_util_without, nr_running, idle), changed by delta
 * whenever one input of one CPU changes (sg_cache_cpu_changed), and
 * fair.c corrects the few CPUs the forking task itself touches. This is a
 * simulator's shortcut, not a kernel rule: the answer is the kernel's
 * rescan to the bit (the values are integers, so the double sums do not
 * depend on the order).
 *
 * The lazy PELT read: a rescan brings every CPU it reads up to date when a
 * period boundary passed on its PELT clock (fair.c's rq_avg), and later
 * values round differently if that read is skipped. So each CPU also keeps
 * the real time its averages next change when read (its PELT clock
 * reaching the period end: pelt_clock_reach_ns), each span the least of
 * its CPUs' (a lower bound: it only falls between scans), and a reader
 * first reads, in each group it looks at whose bound passed, exactly the
 * CPUs whose time has come: the same CPUs the rescan would have changed.
 *
 * Owner: struct sched (sched.sgc); allocated by sg_cache_init once the
 * topology and the runqueue arrays exist, on machines of at least
 * SG_CACHE_MIN_CPUS CPUs; NULL before and on smaller machines (the hooks
 * then do nothing, and the readers scan every CPU as the kernel does). */
#ifndef PMLAB_KERNEL_SCHED_FAIR_SG_CACHE_H
#define PMLAB_KERNEL_SCHED_FAIR_SG_CACHE_H

/* Machines below this many CPUs scan instead (sg_cache_init). */
#define SG_CACHE_MIN_CPUS 256

#include <stdint.h>

#include "sim/eventq.h"

struct world;
struct sched_span;

/* One CPU's part of every sum, as last seen. */
struct sg_cache_cpu {
    uint64_t load;              /* cfs_rq->avg.load_avg */
    uint64_t util;              /* cpu_util_without(cpu, NULL) from the raw averages */
    int nr;                     /* rq->nr_running */
    sim_time_t change_ns;       /* when a read of its averages would next change them */
};

/* One span's sums (indexed as topo.spans: level x ncpus + first CPU). */
struct sg_cache_span {
    uint64_t load, util;
    int nr_running, idle_cpus;  /* sum of nr_running; CPUs with nothing running */
    sim_time_t min_change_ns;   /* <= the least change_ns of its CPUs */
};

struct sg_cache {
    int ncpus, nslots;
    struct sg_cache_cpu *cpu;   /* [ncpus] */
    struct sg_cache_span *span; /* [nslots] */
};

/* The sums of span as a fresh rescan would find them now. */
struct sg_cache_sums {
    uint64_t load, util;
    int nr_running, idle_cpus;
};

/* Build the cache from the current state (after sched_init's topology and
 * runqueue arrays); sg_cache_destroy frees it. */
void sg_cache_init(struct world *w);
/* The cache whatever the machine's size (sg_cache_init's work; tests). */
void sg_cache_build(struct world *w);
void sg_cache_destroy(struct world *w);
/* One of cpu's inputs changed (its averages or PELT clock, its util_est
 * sum, its nr_running, its core's frequency): take its new parts into
 * every span holding it. Reads the raw state only (no lazy update). A
 * const world: the lazy read in fair.c's rq_avg calls it. */
void sg_cache_cpu_changed(const struct world *w, int cpu);
/* span's sums now: first the lazy reads a rescan would do (CPUs whose
 * averages change when read now). */
struct sg_cache_sums sg_cache_span_sums(const struct world *w, const struct sched_span *span);
/* The same sums by a rescan of span's CPUs, without the lazy reads (the
 * cross-check of tests and of the invariants build). */
struct sg_cache_sums sg_cache_span_rescan(const struct world *w, const struct sched_span *span);
/* The span's cached sums into sgs' group_load, group_util, sum_nr_running
 * and idle_cpus (its other fields untouched). */
struct sg_stats;
void sg_cache_read_stats(const struct world *w, const struct sched_span *span,
                         struct sg_stats *sgs);
/* The invariants build's check: what (a fork's group, a balancer's group)
 * read from the cache, cached, against the rescan's fresh sums; a
 * difference aborts, naming the group's span and both sums. */
struct sg_stats;
void sg_cache_check_stats(const struct world *w, const char *what, const struct sched_span *span,
                          const struct sg_stats *cached, const struct sg_stats *fresh);

#endif
