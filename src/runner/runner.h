/* runner: a scenario's jobs (variant x replication x load point) on a thread
 * pool, gathered into the results model.
 *
 * Every job builds its own struct world from (seed, variant, replication, load
 * point) and writes only its own result slot, so output is byte-identical for
 * any --jobs and any execution order. For the same reason replications can be
 * added in batches (adaptive replications, ci_target_pct): replication r is
 * the same run whichever batch it falls in. Replication r of every variant
 * is offered the same work (common random numbers, world.h), so the results
 * are paired by replication (rpt_results.paired). */
#ifndef PMLAB_RUNNER_RUNNER_H
#define PMLAB_RUNNER_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "report/results.h"
#include "scenario/scenario.h"

struct runner_opts {
    int jobs;            /* worker threads; 0 = all online CPUs */
    int reps;            /* 0 = the scenario's (or its [quick] value) */
    bool seed_set;
    uint64_t seed;       /* overrides the scenario's when seed_set */
    bool quick;          /* run the scenario's [quick] configuration */
    bool progress;       /* one updating line on stderr */
    /* Say on stderr, once, when the runs' estimate (runner_eta_s) first
     * exceeds RUNNER_LONG_RUN_S (a warning: even where progress is off). */
    bool warn_long;
    /* Run only these variants (indices into the scenario, ascending); NULL =
     * all. Each keeps its own random streams, so its numbers are the ones it
     * has in a full run: any run can be reproduced alone. */
    const int *variants;
    int nvariants;
    /* The primary metric (--primary); NULL = the workload's headline
     * (wl_ops.primary_metric), or its first metric if it declares none. */
    const char *primary;
    /* Adaptive replications when > 0: after the first batch (reps), add
     * batches until, for every variant, the 95 % CI half-width of the primary
     * metric (see runner_primary_ci_pct) is under ci_target_pct % of its mean,
     * or max_reps is reached. Every variant gets the same count, so a run that
     * stops at n reports exactly what reps = n reports. */
    double ci_target_pct;
    int max_reps;        /* 0 = RUNNER_DEFAULT_MAX_REPS; only with ci_target_pct */
};

#define RUNNER_DEFAULT_MAX_REPS 50

struct runner_stats {
    int njobs;
    int reps;            /* replications per variant actually run */
    uint64_t nevents;    /* events handled over all jobs */
    double sim_s;        /* simulated time over all jobs, s */
    double wall_s;       /* elapsed time of the whole run */
};

/* Run s. Returns 0 with *out filled (free with rpt_results_free); -1 when a
 * job failed, with err = "variant V, replication R: why" of the first failed
 * job in job order; or RUNNER_BAD_PRIMARY when the first batch has no metric
 * named o->primary, with err saying so (the results are then not filled). */
#define RUNNER_BAD_PRIMARY (-2)
int runner_run(const struct scenario *s, const struct runner_opts *o, struct rpt_results *out,
               struct runner_stats *stats, char *err, size_t errsize);

/* What the progress line is drawn from: runs done of total, wall seconds
 * since the start, the wall seconds the finished runs took between them, and
 * the worker threads. */
struct runner_progress {
    int done, total, nthreads;
    double elapsed_s, done_wall_s;
};

/* The seconds the remaining runs will take: the mean wall time of a finished
 * run times the runs left, over the threads that still have one to run.
 * Negative while no run has finished: there is nothing to estimate from
 * yet (runs of one scenario differ by their variant's settings far less
 * than by the scenario, so the first runs are a fair sample). */
double runner_eta_s(const struct runner_progress *p);
/* "NAME: DONE/TOTAL runs, E s elapsed, ETA T" into buf; T is "after the
 * first run" while runner_eta_s is negative, else seconds, minutes, hours or
 * days. */
void runner_progress_line(const struct runner_progress *p, const char *name, char *buf,
                          size_t size);
/* An estimate beyond this is said before the run goes on (runner_opts.warn_long). */
#define RUNNER_LONG_RUN_S 3600.0
/* The warning for p, into buf; false (buf untouched) when runner_eta_s(p)
 * is unknown or at most RUNNER_LONG_RUN_S. */
bool runner_long_run_warning(const struct runner_progress *p, const char *name, char *buf,
                             size_t size);

/* The 95 % CI half-width of v's metric named primary in % of |mean|. 0 when
 * v has no such metric or no spread; INFINITY when the mean is 0 with
 * spread, there is no interval (one replication), or a value is not
 * finite. */
double runner_primary_ci_pct(const struct rpt_variant *v, const char *primary);

#endif
