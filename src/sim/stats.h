/* stats: online statistics.
 *
 * sim_stat: count, mean and variance of a stream of samples by Welford's method
 * (numerically stable, one pass, O(1) memory).
 * sim_tavg: the time-weighted average of a piecewise-constant quantity (a queue
 * length, a power draw): call sim_tavg_set at each change. */
#ifndef PMLAB_SIM_STATS_H
#define PMLAB_SIM_STATS_H

#include <stdint.h>

#include "sim/time.h"

struct sim_stat {
    uint64_t n;
    double mean;
    double m2;    /* sum of squared deviations from the mean */
    double min, max; /* +inf and -inf while n == 0 */
};

void sim_stat_init(struct sim_stat *s);
void sim_stat_add(struct sim_stat *s, double x);
/* Sample variance (n - 1 denominator); 0 when n < 2. */
double sim_stat_variance(const struct sim_stat *s);
double sim_stat_stddev(const struct sim_stat *s);

struct sim_tavg {
    sim_time_t start_ns;   /* when averaging began */
    sim_time_t last_ns;    /* time of the last change */
    double value;          /* current value */
    double integral;       /* sum of value * dt (value-units x ns) up to last_ns */
};

/* Start averaging at t0_ns with initial value v0. */
void sim_tavg_init(struct sim_tavg *a, sim_time_t t0_ns, double v0);
/* The quantity changes to v at now_ns (now_ns >= last change). */
void sim_tavg_set(struct sim_tavg *a, sim_time_t now_ns, double v);
/* Average over [start, now_ns]; the current value if no time has passed. */
double sim_tavg_mean(const struct sim_tavg *a, sim_time_t now_ns);
/* Restart averaging at now_ns keeping the current value (end of warm-up). */
void sim_tavg_reset(struct sim_tavg *a, sim_time_t now_ns);

#endif
