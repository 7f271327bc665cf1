/* inference: the statistical procedures behind pmlab's verdicts, as pure
 * functions of arrays so each can be checked against hand-computed values.
 *
 * - rpt_paired_t: the t interval on per-replication differences, for runs
 *   that share their random numbers (common random numbers make replication
 *   r of two variants a matched pair; Law & Kelton, "Simulation Modeling and
 *   Analysis", 5th ed., sections 10.2.1 and 11.2);
 * - rpt_welch_t: Welch's unequal-variance t test with Welch-Satterthwaite
 *   degrees of freedom, for independent samples (Welch 1947);
 * - rpt_holm: Holm's step-down adjustment of a family of p-values (Holm
 *   1979, "A simple sequentially rejective multiple test procedure");
 * - rpt_perm_test, rpt_signflip_test: exact permutation tests of a
 *   difference in means, unpaired (Fisher-Pitman) and paired (sign flips),
 *   with the interval got by inverting the test, for samples a t test cannot
 *   judge (rpt_t_unsuited).
 *
 * t quantiles and tail probabilities come from GSL. GSL's error handler is
 * switched off once at start-up (src/main.c), so a domain error returns NaN
 * here instead of aborting; every result is checked with isfinite. */
#ifndef PMLAB_REPORT_INFERENCE_H
#define PMLAB_REPORT_INFERENCE_H

#include <stdbool.h>
#include <stdint.h>

/* The two-sided 95 % level every interval and test uses. */
#define RPT_ALPHA 0.05

/* An estimate of mean(b) - mean(a) with its 95 % interval and test. */
struct rpt_diff_test {
    double diff;             /* the estimate */
    double ci_lo, ci_hi;     /* 95 % CI of the difference */
    double p_value;          /* two-sided, against a difference of 0 */
    double df;               /* degrees of freedom of the t distribution; NaN for a
                              * permutation test */
    /* Permutation tests: how many rearrangements of the data were weighed
     * (every one when exact, else the Monte-Carlo draws), and the smallest p
     * the design can give (2 / C(n_a + n_b, n_a) for 4 + 4 unpaired, 2 / 2^n
     * for n pairs: a p under the level is out of reach when this is not). */
    double rearrangements;
    bool exact;
    double p_min;
};

/* Paired t on d[i] = b[i] - a[i], i < n: diff = mean d, CI = diff +- t(0.975,
 * n-1) s_d / sqrt(n), p = 2 P(T_{n-1} > |diff| / (s_d / sqrt(n))). With no
 * spread (s_d = 0) the difference is exact: p = 0 if diff != 0, else 1, and
 * the CI is [diff, diff]. Returns 0, or -1 (out untouched) when n < 2 or a
 * value is not finite. */
int rpt_paired_t(const double *a, const double *b, int n, struct rpt_diff_test *out);

/* Welch's t of b[nb] against a[na]: se^2 = s_a^2/n_a + s_b^2/n_b, df by
 * Welch-Satterthwaite. No spread on either side: exact, as rpt_paired_t.
 * Returns 0, or -1 when n_a < 2, n_b < 2 or a value is not finite. */
int rpt_welch_t(const double *a, int na, const double *b, int nb, struct rpt_diff_test *out);

/* Holm's step-down adjustment: with p sorted ascending, p_(1) <= ... <=
 * p_(m), adj_(i) = max over j <= i of min(1, (m - j + 1) p_(j)), written
 * back in the input order. Rejecting where adj < alpha controls the
 * family-wise error rate at alpha under any dependence between the tests.
 * NaN entries are not tests: they are skipped (and stay NaN), and m counts
 * the others. */
void rpt_holm(const double *p, int n, double *adj);

/* A sample a t test cannot judge: the test rests on each group's spread
 * estimating the population's, which a metric on a few discrete levels (a
 * percentile on histogram buckets, a score on the RT curve's steps, a
 * constant) does not give: a group of 4 on one level has spread 0, and the
 * t statistic is then as large as the gap between two levels makes it.
 * True when ties dominate: no more distinct values than half of n (so a
 * constant sample of 2 or more, and 12 replications on 3 levels, are; 4
 * replications with one tie are not). */
bool rpt_sample_discrete(const double *x, int n);
/* Two independent samples a t test cannot judge: either is discrete, or
 * the pooled sample is. */
bool rpt_t_unsuited(const double *a, int na, const double *b, int nb);

/* Exact enumeration up to this many rearrangements; above it, this many
 * Monte-Carlo draws from a stream seeded by the caller (so a result is a
 * pure function of the data and the seed). 10^4 draws put the Monte-Carlo
 * p of a true p of 0.05 within +-0.0044 (two standard errors). */
#define RPT_PERM_EXACT_MAX 100000
#define RPT_PERM_DRAWS 10000

/* Fisher-Pitman permutation test of mean(b) - mean(a): p is the share of
 * the C(n_a + n_b, n_b) splits of the pooled values into groups of n_a and
 * n_b whose difference in means is at least as large in magnitude as the
 * observed one (Good, "Permutation, Parametric, and Bootstrap Tests of
 * Hypotheses", 3rd ed., ch. 3). Exact when the splits number at most
 * RPT_PERM_EXACT_MAX; else RPT_PERM_DRAWS random splits and p = (1 + hits) /
 * (1 + draws) (Phipson and Smyth 2010, "Permutation p-values should never
 * be zero"). The 95 % interval is every shift delta whose test of (a, b -
 * delta) has p >= RPT_ALPHA (inverting the test: Tritchler 1984, "On
 * inverting permutation tests"; Ernst 2004, "Permutation methods: a basis
 * for exact inference"), unbounded (+-INFINITY) when no p under the level
 * is possible. Assumes only that the two samples are exchangeable under no
 * difference. Returns 0, or -1 (out untouched) when n_a < 2, n_b < 2 or a
 * value is not finite. */
int rpt_perm_test(const double *a, int na, const double *b, int nb, uint64_t seed,
                  struct rpt_diff_test *out);
/* The paired analogue on d[i] = b[i] - a[i]: p over the 2^n sign
 * assignments of the d[i] (each pair's difference is as likely either way
 * under no difference), exact up to RPT_PERM_EXACT_MAX, else Monte-Carlo as
 * above; the interval by inversion. Returns 0, or -1 when n < 2 or a value
 * is not finite. */
int rpt_signflip_test(const double *a, const double *b, int n, uint64_t seed,
                      struct rpt_diff_test *out);

#endif
