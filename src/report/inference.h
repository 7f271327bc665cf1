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
 *   1979, "A simple sequentially rejective multiple test procedure").
 *
 * t quantiles and tail probabilities come from GSL. GSL's error handler is
 * switched off once at start-up (src/main.c), so a domain error returns NaN
 * here instead of aborting; every result is checked with isfinite. */
#ifndef PMLAB_REPORT_INFERENCE_H
#define PMLAB_REPORT_INFERENCE_H

/* The two-sided 95 % level every interval and test uses. */
#define RPT_ALPHA 0.05

/* An estimate of mean(b) - mean(a) with its 95 % interval and test. */
struct rpt_diff_test {
    double diff;             /* the estimate */
    double ci_lo, ci_hi;     /* 95 % CI of the difference */
    double p_value;          /* two-sided, against a difference of 0 */
    double df;               /* degrees of freedom of the t distribution */
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

#endif
