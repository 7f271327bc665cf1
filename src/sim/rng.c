/* rng: reproducible GSL streams keyed by (seed, variant, replication, load
 * point, stream), see rng.h.
 *
 * Why the seeding is not just gsl_rng_set(): GSL's mt19937 keeps only the low
 * 32 bits of its seed, so with K streams in a sweep two of them would share a
 * sequence with probability about K^2 / 2^33 (1 % at K = 10^4). Instead the
 * 64-bit key hash drives a splitmix64 sequence that fills all 624 words of the
 * Mersenne Twister state, so distinct streams coincide only if their 64-bit
 * seeds do (K^2 / 2^65). GSL does not publish the mt19937 state layout, so we
 * check its size first and fall back to the 32-bit gsl_rng_set() if a future
 * GSL changed it (runs stay deterministic either way). */
#include "sim/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#define MT_WORDS 624

/* The layout of GSL's mt_state_t (rng/mt.c, unchanged since GSL 1.0). */
struct gsl_mt_state {
    unsigned long mt[MT_WORDS];
    int mti;
};

/* splitmix64 (Steele, Lea, Flood 2014): a Weyl step then a bijective
 * finaliser, so every input bit affects every output bit. */
static uint64_t splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t sim_rng_seed_of(const struct sim_rng_key *key)
{
    /* Absorb one field per round: the state after each round is a bijective
     * function of the previous state xor the field, so keys that differ in any
     * field give unrelated seeds. */
    const uint64_t fields[] = {
        key->scenario_seed,
        key->variant,
        key->replication,
        key->load_point,
        key->stream,
    };
    uint64_t h = 0x706d6c6162ULL; /* "pmlab" */
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        h ^= fields[i];
        h = splitmix64_next(&h);
    }
    return h;
}

/* Fill the whole twister state from a 64-bit seed. */
static void mt_seed_full(gsl_rng *r, uint64_t seed)
{
    struct gsl_mt_state *st = gsl_rng_state(r);
    uint64_t x = seed;
    for (int i = 0; i < MT_WORDS; i++)
        st->mt[i] = (unsigned long)(splitmix64_next(&x) & 0xffffffffULL);
    st->mt[0] |= 0x80000000UL; /* guarantee a non-zero state, as MT's own seeding does */
    st->mti = MT_WORDS;        /* regenerate the block on the first draw */
}

void sim_rng_init(struct sim_rng *rng, const struct sim_rng_key *key)
{
    uint64_t seed = sim_rng_seed_of(key);
    sim_rng_record(rng, NULL, 0);
    rng->r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng->r) {
        fprintf(stderr, "pmlab: out of memory allocating a random stream\n");
        abort();
    }
    gsl_rng_set(rng->r, (unsigned long)seed);
    if (gsl_rng_size(rng->r) == sizeof(struct gsl_mt_state))
        mt_seed_full(rng->r, seed);
}

void sim_rng_destroy(struct sim_rng *rng)
{
    gsl_rng_free(rng->r);
    rng->r = NULL;
}

void sim_rng_record(struct sim_rng *rng, double *buf, int cap)
{
    rng->rec = buf;
    rng->nrec = 0;
    rng->caprec = buf ? cap : 0;
}

/* x, recorded if recording (a well-predicted branch beside a GSL draw). */
static double rng_out(struct sim_rng *rng, double x)
{
    if (rng->rec && rng->nrec < rng->caprec)
        rng->rec[rng->nrec++] = x;
    return x;
}

double sim_rng_uniform(struct sim_rng *rng)
{
    return rng_out(rng, gsl_rng_uniform(rng->r));
}

double sim_rng_exp(struct sim_rng *rng, double mean)
{
    /* Inversion, as gsl_ran_exponential does, but with log(1 - u) instead of
     * log1p(-u): u is a multiple of 2^-32, so 1 - u is exact and both give the
     * same value, while log() is about twice as fast (this draw is on the
     * hot path of every workload). */
    return rng_out(rng, -mean * log(1.0 - gsl_rng_uniform(rng->r)));
}

void sim_lognormal_init(struct sim_lognormal *ln, double mean, double cv)
{
    *ln = (struct sim_lognormal){ .mean = mean, .constant = cv <= 0.0 };
    if (ln->constant)
        return;
    /* For X = exp(N(mu, sigma^2)): E X = exp(mu + sigma^2/2) and
     * CV^2 = exp(sigma^2) - 1, solved for mu and sigma. */
    double sigma2 = log1p(cv * cv);
    ln->mu = log(mean) - sigma2 / 2.0;
    ln->sigma = sqrt(sigma2);
}

double sim_rng_lognormal(struct sim_rng *rng, const struct sim_lognormal *ln)
{
    if (ln->constant)
        return ln->mean;
    return rng_out(rng, gsl_ran_lognormal(rng->r, ln->mu, ln->sigma));
}

double sim_rng_lognormal_mean_cv(struct sim_rng *rng, double mean, double cv)
{
    struct sim_lognormal ln;
    sim_lognormal_init(&ln, mean, cv);
    return sim_rng_lognormal(rng, &ln);
}

/* 64 random bits from two 32-bit mt19937 outputs. */
static uint64_t draw_u64(struct sim_rng *rng)
{
    uint64_t hi = gsl_rng_get(rng->r) & 0xffffffffULL;
    uint64_t lo = gsl_rng_get(rng->r) & 0xffffffffULL;
    return hi << 32 | lo;
}

uint64_t sim_rng_below(struct sim_rng *rng, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t x;
    if (n <= 0xffffffffULL) {
        x = gsl_rng_uniform_int(rng->r, (unsigned long)n);
    } else {
        /* Beyond the generator's 32 bits: rejection on 64-bit draws, accepting
         * only below the largest multiple of n so every residue is equally
         * likely. */
        uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        do
            x = draw_u64(rng);
        while (x >= limit);
        x %= n;
    }
    rng_out(rng, (double)x);
    return x;
}
