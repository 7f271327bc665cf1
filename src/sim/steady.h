/* steady: where a run's warm-up transient ends, by MSER-5.
 *
 * A run starts from an empty, idle machine: no queue, CPUs in deep idle
 * states, governors without history, frequencies at their floor. What it
 * measures before that start-up transient has died out is not the system in
 * steady state, and a warm-up that is too short moves answers beyond their
 * intervals (issue 12: the p99 change of max_cstate=2 was -10.3 % with 60 ms
 * windows, -2.8 % at 200 ms, noise at 1000 ms). So workloads record their
 * output over the whole run (warm-up included) in fixed time bins, and MSER-5
 * says where the transient ends; the report warns when that is after the
 * configured warm-up.
 *
 * MSER-5 (White 1997, "An effective truncation heuristic for bias reduction
 * in simulation output"; White, Cobb & Spratt 2000): form batch means of 5
 * observations Z_1..Z_k and truncate the d first batches that minimise
 * MSER(d) = sum_{i>d} (Z_i - mean_d)^2 / (k - d)^2, the squared standard
 * error of the mean of what is kept, over d < k/2. Hoad, Robinson & Davies
 * (2010, "Automating warm-up length estimation") found it the most reliable
 * of the automatic methods they compared. */
#ifndef PMLAB_SIM_STEADY_H
#define PMLAB_SIM_STEADY_H

#include <stdint.h>

#include "sim/time.h"

/* MSER-5 on x[n] (observations in time order): the truncation point in
 * observations (5 d), or -1 when there are fewer than 4 batches (20
 * observations) or a value is not finite. A point near n/2 says the series
 * may never have settled. */
int sim_mser5(const double *x, int n);

/* An output of one run in SIM_STEADY_BINS bins of equal time. */
#define SIM_STEADY_BINS 1000
struct sim_steady {
    sim_time_t start_ns, bin_ns;
    double *sum;             /* [SIM_STEADY_BINS] */
    uint64_t *count;         /* [SIM_STEADY_BINS] */
};

/* What a bin's observation is. */
enum sim_steady_series {
    SIM_STEADY_MEAN,         /* the mean of the values added in it (bins with none left out) */
    SIM_STEADY_COUNT,        /* how many were added: a rate */
};

/* Bins over [start_ns, end_ns). Free with sim_steady_destroy. */
void sim_steady_init(struct sim_steady *s, sim_time_t start_ns, sim_time_t end_ns);
void sim_steady_destroy(struct sim_steady *s);
/* An observation x at t_ns (outside the bins: ignored). */
void sim_steady_add(struct sim_steady *s, sim_time_t t_ns, double x);
/* Where the transient ends by MSER-5 on the bins, in ns from start_ns, or -1
 * when there are too few observations. */
sim_time_t sim_steady_end_ns(const struct sim_steady *s, enum sim_steady_series what);

#endif
