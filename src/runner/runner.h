/* runner: a scenario's jobs (variant x replication x load point) on a thread
 * pool, gathered into the results model.
 *
 * Every job builds its own struct world from (seed, variant, replication, load
 * point) and writes only its own result slot, so output is byte-identical for
 * any --jobs and any execution order. */
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
    /* Run only these variants (indices into the scenario, ascending); NULL =
     * all. Each keeps its own random streams, so its numbers are the ones it
     * has in a full run: any run can be reproduced alone. */
    const int *variants;
    int nvariants;
};

struct runner_stats {
    int njobs;
    uint64_t nevents;    /* events handled over all jobs */
    double sim_s;        /* simulated time over all jobs, s */
    double wall_s;       /* elapsed time of the whole run */
};

/* Run s. Returns 0 with *out filled (free with rpt_results_free), or -1 when a
 * job failed, with err = "variant V, replication R: why" of the first failed
 * job in job order (the results are then not filled). */
int runner_run(const struct scenario *s, const struct runner_opts *o, struct rpt_results *out,
               struct runner_stats *stats, char *err, size_t errsize);

#endif
