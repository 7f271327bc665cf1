/* rng: reproducible random streams on GSL.
 *
 * Every run draws from its own streams, each seeded from a hash of
 * (scenario seed, variant index, replication, load point, stream id); the
 * world keys its workload streams with variant 0 for every variant (common
 * random numbers, world.h). So any run
 * can be reproduced alone, runs are independent of the order the thread pool
 * executes them in, and two parts of one run (arrivals, service times) do not
 * share a stream, so changing one does not shift the other. */
#ifndef PMLAB_SIM_RNG_H
#define PMLAB_SIM_RNG_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

struct sim_rng_key {
    uint64_t scenario_seed;
    uint32_t variant;     /* index of the variant in the scenario */
    uint32_t replication;
    uint32_t load_point;  /* index of the load point (0 when there is one) */
    uint32_t stream;      /* which stream of the run (see each user) */
};

struct sim_rng {
    gsl_rng *r;
    /* Draw record (tests): while rec is set, every draw's result is stored
     * in rec[nrec++] until nrec == caprec. */
    double *rec;
    int nrec, caprec;
};

/* Mix a key into the seed of one stream (splitmix64-style finaliser over every
 * field, so neighbouring keys give unrelated seeds). */
uint64_t sim_rng_seed_of(const struct sim_rng_key *key);

/* Create the stream for key. Free with sim_rng_destroy. */
void sim_rng_init(struct sim_rng *rng, const struct sim_rng_key *key);
void sim_rng_destroy(struct sim_rng *rng);

/* Record the results of the next cap draws into buf[cap] (owned by the
 * caller, who reads rng->nrec of them); buf NULL stops recording. For tests
 * that check what a stream handed out, e.g. that two variants drew the same
 * workload. */
void sim_rng_record(struct sim_rng *rng, double *buf, int cap);

/* Uniform on [0, 1). */
double sim_rng_uniform(struct sim_rng *rng);
/* Exponential with the given mean (any unit; the result has that unit). */
double sim_rng_exp(struct sim_rng *rng, double mean);
/* Lognormal with the given mean and coefficient of variation (stddev/mean).
 * cv <= 0 returns mean without drawing, so callers need no special case. */
double sim_rng_lognormal_mean_cv(struct sim_rng *rng, double mean, double cv);

/* A lognormal's parameters solved once from (mean, cv), for a workload that
 * draws from the same distribution on every event: the log, log1p and sqrt
 * of sim_rng_lognormal_mean_cv are paid at set-up, not per draw. */
struct sim_lognormal {
    double mean;    /* returned as is when constant */
    double mu;      /* E log X */
    double sigma;   /* stddev of log X */
    bool constant;  /* cv <= 0: no draw */
};

/* Solve (mean, cv) as sim_rng_lognormal_mean_cv does, with the same
 * arithmetic, so that sim_rng_lognormal(rng, &ln) returns the very doubles
 * sim_rng_lognormal_mean_cv(rng, mean, cv) would. */
void sim_lognormal_init(struct sim_lognormal *ln, double mean, double cv);
/* One draw from ln (none if ln is constant: its mean). */
double sim_rng_lognormal(struct sim_rng *rng, const struct sim_lognormal *ln);
/* Uniform integer in [0, n). */
uint64_t sim_rng_below(struct sim_rng *rng, uint64_t n);

#endif
