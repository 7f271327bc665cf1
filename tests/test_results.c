/* Summaries and comparisons: Student-t CIs, Welch's test against values
 * computed independently (R: t.test(x, y) with var.equal = FALSE), paired
 * comparisons, Holm's adjustment inside a variant's family of metrics, no
 * verdict below two replications, near-zero baselines shown as differences.
 * The arithmetic of each expectation is in tests/test_inference.c or here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_errno.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cells.h"
#include "report/results.h"

static void fill(struct rpt_metric *m, const char *name, enum rpt_better better, double *v, int n)
{
    struct rpt_variant var = { 0 };
    struct rpt_metric_set sets[8] = { 0 };
    for (int i = 0; i < n; i++)
        rpt_set_put(&sets[i], name, "u", better, v[i]);
    rpt_variant_summarize(&var, sets, n);
    *m = var.metrics[0];
    for (int i = 0; i < n; i++)
        rpt_set_free(&sets[i]);
    free(var.metrics);
}

static void test_ci(void **state)
{
    (void)state;
    double x[5] = { 10, 12, 11, 13, 9 };
    struct rpt_metric m;
    fill(&m, "a", RPT_HIGHER_BETTER, x, 5);
    assert_float_equal(m.mean, 11.0, 1e-12);
    assert_float_equal(m.stddev, sqrt(2.5), 1e-12);
    /* t(0.975, 4) = 2.776445; half = 2.776445 * 1.581139 / sqrt(5) = 1.963243 */
    assert_float_equal(m.ci_hi - m.mean, 1.963243, 1e-5);
    free(m.values);
}

static void fill_unit(struct rpt_metric *m, const char *unit, double *v, int n)
{
    struct rpt_variant var = { 0 };
    struct rpt_metric_set sets[8] = { 0 };
    for (int i = 0; i < n; i++)
        rpt_set_put(&sets[i], "m", unit, RPT_NEUTRAL, v[i]);
    rpt_variant_summarize(&var, sets, n);
    *m = var.metrics[0];
    for (int i = 0; i < n; i++)
        rpt_set_free(&sets[i]);
    free(var.metrics);
}

/* Bounded quantities (issue 27 item 10): a share's and a latency's t
 * interval cut at 0 and 100 %; the mean, and the half-width --ci-target
 * reads, stay the t interval's. Unknown units and out-of-range values get
 * no cut. */
static void test_ci_cut_to_range(void **state)
{
    (void)state;
    double share[5] = { 0.1, 0.2, 0.0, 5.0, 0.1 }; /* mean 1.08, sd 2.1937, half 2.7239 */
    struct rpt_metric m;
    fill_unit(&m, "%", share, 5);
    assert_float_equal(m.mean, 1.08, 1e-12);
    assert_float_equal(m.half_width, 2.776445 * sqrt(4.807) / sqrt(5), 1e-4);
    assert_float_equal(m.ci_lo, 0, 0);
    assert_float_equal(m.ci_hi, m.mean + m.half_width, 1e-12);
    assert_true(m.ci_cut);
    free(m.values);
    double full[3] = { 100, 99, 100 };
    fill_unit(&m, "%", full, 3);
    assert_float_equal(m.ci_hi, 100, 0);
    assert_true(m.ci_cut && m.ci_lo < m.mean);
    free(m.values);
    double lat[3] = { 0.5, 9, 0.4 };
    fill_unit(&m, "us", lat, 3);
    assert_float_equal(m.ci_lo, 0, 0);
    free(m.values);
    fill_unit(&m, "u", lat, 3); /* no known range */
    assert_true(m.ci_lo < 0 && !m.ci_cut);
    free(m.values);
    double neg[3] = { -1, 2, 0.5 }; /* a value the unit says cannot be: no claim */
    fill_unit(&m, "us", neg, 3);
    assert_true(m.ci_lo < 0 && !m.ci_cut);
    free(m.values);
    double ok[5] = { 10, 12, 11, 13, 9 };
    fill_unit(&m, "us", ok, 5);
    assert_false(m.ci_cut);
    assert_float_equal(m.ci_hi - m.mean, 1.963243, 1e-5);
    free(m.values);
}

/* A delta's interval stops where the variant's mean would leave the range:
 * a share from 90 % cannot move below -90 pp (-100 %) or above +10 pp. */
static void test_delta_cut_to_range(void **state)
{
    (void)state;
    double a[3] = { 90, 95, 85 }, b[3] = { 1, 60, 2 };
    struct rpt_metric ma, mb;
    fill_unit(&ma, "%", a, 3);
    fill_unit(&mb, "%", b, 3);
    struct rpt_comparison c;
    rpt_compare_metric(&ma, &mb, false, 0, NULL, &c);
    assert_float_equal(c.delta, 21 - 90, 1e-12);
    assert_float_equal(c.ci_lo, -90, 1e-12);
    assert_float_equal(c.ci_lo_pct, -100, 1e-12);
    assert_true(c.ci_cut && c.ci_hi <= 10 && !c.constant);
    free(ma.values);
    free(mb.values);
}

/* A constant metric says so: no "± 0.00", no [-inf, +inf]; a cut interval
 * is shown by its ends. */
static void test_cells_constant_and_cut(void **state)
{
    (void)state;
    double k[3] = { 12, 12, 12 }, l[3] = { 10, 10, 10 }, share[5] = { 0.1, 0.2, 0.0, 5.0, 0.1 };
    struct rpt_metric a, b, sh;
    fill_unit(&a, "us", k, 3);
    fill_unit(&b, "us", l, 3);
    fill_unit(&sh, "%", share, 5);
    char buf[96], delta[48], ci[96], p[24], padj[24];
    rpt_cell_mean_ci(&a, buf, sizeof buf);
    assert_string_equal(buf, "12.00 constant (3)");
    rpt_cell_mean_ci(&sh, buf, sizeof buf);
    assert_string_equal(buf, "1.08 [0.00, 3.80] (5)");
    struct rpt_comparison c;
    rpt_compare_metric(&a, &b, true, 0, NULL, &c);
    rpt_cell_delta(&c, delta, sizeof delta, ci, sizeof ci, p, padj, sizeof p);
    assert_string_equal(delta, "-16.67%");
    assert_string_equal(ci, "constant (3)");
    free(a.values);
    free(b.values);
    free(sh.values);
}

static void test_welch(void **state)
{
    (void)state;
    double x[5] = { 10, 12, 11, 13, 9 };
    double y[5] = { 14, 15, 13, 16, 12 };
    struct rpt_metric a, b;
    fill(&a, "thr", RPT_HIGHER_BETTER, x, 5);
    fill(&b, "thr", RPT_HIGHER_BETTER, y, 5);
    struct rpt_comparison c;
    rpt_compare_metric(&a, &b, false, 0, NULL, &c);
    /* diff 3, se = sqrt(2.5/5 + 2.5/5) = 1, df = 8, t = 3:
     * p = 0.01707168, CI = 3 -+ 2.306004 */
    assert_float_equal(c.delta_pct, 3.0 / 11 * 100, 1e-9);
    assert_float_equal(c.p_value, 0.01707168, 1e-6);
    assert_float_equal(c.ci_lo_pct, (3 - 2.306004) / 11 * 100, 1e-4);
    assert_float_equal(c.ci_hi_pct, (3 + 2.306004) / 11 * 100, 1e-4);
    assert_string_equal(c.verdict, "better");
    /* The same change on a lower-is-better metric is worse. */
    a.better = b.better = RPT_LOWER_BETTER;
    rpt_compare_metric(&a, &b, false, 0, NULL, &c);
    assert_string_equal(c.verdict, "worse");
    a.better = b.better = RPT_NEUTRAL;
    rpt_compare_metric(&a, &b, false, 0, NULL, &c);
    assert_string_equal(c.verdict, "higher");
    free(a.values);
    free(b.values);
}

static void test_noise(void **state)
{
    (void)state;
    double x[4] = { 10, 12, 11, 13 };
    double y[4] = { 11, 12, 10, 13.2 };
    struct rpt_metric a, b;
    fill(&a, "m", RPT_LOWER_BETTER, x, 4);
    fill(&b, "m", RPT_LOWER_BETTER, y, 4);
    struct rpt_comparison c;
    rpt_compare_metric(&a, &b, false, 0, NULL, &c);
    assert_string_equal(c.verdict, "noise");
    assert_true(c.ci_lo_pct < 0 && c.ci_hi_pct > 0);
    assert_true(c.p_value > 0.05);
    free(a.values);
    free(b.values);
}

static void test_set_put_replaces(void **state)
{
    (void)state;
    struct rpt_metric_set s = { 0 };
    rpt_set_put(&s, "x", "W", RPT_LOWER_BETTER, 1);
    rpt_set_put(&s, "y", "W", RPT_LOWER_BETTER, 2);
    rpt_set_put(&s, "x", "W", RPT_LOWER_BETTER, 3);
    assert_int_equal(s.n, 2);
    assert_float_equal(rpt_set_get(&s, "x")->value, 3, 0);
    assert_null(rpt_set_get(&s, "z"));
    rpt_set_free(&s);
}

static void test_series_gathered_per_rep(void **state)
{
    (void)state;
    static const char *const cols[] = { "ir", "p99_us" };
    struct rpt_metric_set sets[2] = { 0 }, copy = { 0 };
    for (int r = 0; r < 2; r++) {
        rpt_set_put(&sets[r], "m", "", RPT_NEUTRAL, r);
        for (int i = 0; i < 40; i++) {
            double row[2] = { i, 100.0 * r + i };
            rpt_set_series_row(&sets[r], "rt_curve", cols, 2, row);
        }
    }
    rpt_set_copy(&copy, &sets[1]);
    assert_int_equal(rpt_set_series(&copy, "rt_curve")->nrows, 40);
    struct rpt_variant v = { 0 };
    rpt_variant_summarize(&v, sets, 2);
    assert_int_equal(v.nseries, 1);
    assert_string_equal(v.series[0].name, "rt_curve");
    assert_int_equal(v.series[0].nreps, 2);
    assert_string_equal(v.series[0].rep[1].cols[1], "p99_us");
    assert_float_equal(v.series[0].rep[1].rows[2 * 39 + 1], 139, 0);
    struct rpt_results r = { .variants = &v, .nvariants = 1 };
    struct rpt_variant *heap = calloc(1, sizeof *heap);
    *heap = v;
    r.variants = heap;
    rpt_results_free(&r);
    rpt_set_free(&copy);
    rpt_set_free(&sets[0]);
    rpt_set_free(&sets[1]);
}

/* A results model of two variants with metrics names[k] (the same unit
 * and direction) valued base[k][rep] and var[k][rep]. */
static void two_variants(struct rpt_results *r, int nmetrics, const char *const *names,
                         const char *unit, enum rpt_better better, const double *base,
                         const double *var, int reps, bool paired)
{
    memset(r, 0, sizeof *r);
    r->paired = paired;
    r->nvariants = 2;
    r->variants = calloc(2, sizeof *r->variants);
    for (int v = 0; v < 2; v++) {
        struct rpt_metric_set sets[8] = { 0 };
        const double *x = v ? var : base;
        for (int k = 0; k < nmetrics; k++)
            for (int i = 0; i < reps; i++)
                rpt_set_put(&sets[i], names[k], unit, better, x[k * reps + i]);
        r->variants[v].name = strdup(v ? "var" : "base");
        rpt_variant_summarize(&r->variants[v], sets, reps);
        for (int i = 0; i < reps; i++)
            rpt_set_free(&sets[i]);
    }
    rpt_compare_all(r);
}

/* Paired: the per-replication differences 1, 1.5, .5, 1, 1.5 (mean 1.1 on a
 * base mean of 11): +10 %, CI 1.1 -+ .519425 = [5.2780, 14.7220] % of 11,
 * p = .0041811 (test_inference.c), although each side spreads by ~1.6. */
static void test_paired_comparison(void **state)
{
    (void)state;
    static const char *const names[] = { "thr" };
    double a[5] = { 10, 12, 11, 13, 9 }, b[5] = { 11, 13.5, 11.5, 14, 10.5 };
    struct rpt_results r;
    two_variants(&r, 1, names, "ops", RPT_HIGHER_BETTER, a, b, 5, true);
    assert_int_equal(r.ncmp, 1);
    const struct rpt_comparison *c = &r.cmp[0];
    assert_int_equal(c->test, RPT_TEST_PAIRED);
    assert_int_equal(c->n_base, 5);
    assert_float_equal(c->delta, 1.1, 1e-12);
    assert_float_equal(c->delta_pct, 10, 1e-9);
    assert_float_equal(c->ci_lo_pct, (1.1 - 0.519425) / 11 * 100, 1e-4);
    assert_float_equal(c->ci_hi_pct, (1.1 + 0.519425) / 11 * 100, 1e-4);
    assert_float_equal(c->p_value, 0.0041811, 1e-6);
    assert_float_equal(c->p_adjusted, c->p_value, 0); /* a family of one */
    assert_false(c->absolute);
    assert_string_equal(c->verdict, "better");
    assert_string_equal(rpt_test_name(c->test), "paired-t");
    rpt_results_free(&r);
    /* The same values unpaired: Welch, noise. */
    two_variants(&r, 1, names, "ops", RPT_HIGHER_BETTER, a, b, 5, false);
    assert_int_equal(r.cmp[0].test, RPT_TEST_WELCH);
    assert_string_equal(r.cmp[0].verdict, "noise");
    rpt_results_free(&r);
}

/* A quantized metric: every pair differs by exactly 2 while each side
 * spreads (10, 12, 14 against 12, 14, 16). The paired variance is 0, which
 * would claim p = 0; Welch uses the spread: diff 2, se = sqrt(4/3 + 4/3) =
 * 1.632993, t = 1.224745 on 4 df, p = .2878 (R: t.test(b, a)). A metric
 * with no spread on either side was called an exact difference (p = 0,
 * "worse"); 3 pairs are all the evidence there is, and sign flips give p =
 * 2 / 2^3 = .25: no verdict, and no 95 % interval (3 pairs cannot reach p <
 * .05 without a distributional assumption). */
static void test_paired_degenerate(void **state)
{
    (void)state;
    static const char *const names[] = { "p99" };
    double a[3] = { 10, 12, 14 }, b[3] = { 12, 14, 16 };
    struct rpt_results r;
    two_variants(&r, 1, names, "us", RPT_LOWER_BETTER, a, b, 3, true);
    assert_int_equal(r.cmp[0].test, RPT_TEST_WELCH);
    assert_float_equal(r.cmp[0].p_value, 0.2878, 1e-4);
    assert_string_equal(r.cmp[0].verdict, "noise");
    rpt_results_free(&r);
    double c[3] = { 10, 10, 10 }, e[3] = { 12, 12, 12 };
    two_variants(&r, 1, names, "us", RPT_LOWER_BETTER, c, e, 3, true);
    assert_int_equal(r.cmp[0].test, RPT_TEST_SIGNFLIP);
    assert_string_equal(rpt_test_name(r.cmp[0].test), "sign-flip");
    assert_float_equal(r.cmp[0].p_value, 0.25, 1e-12);
    /* Three pairs cannot bound a sign-flip interval; a latency cannot fall
     * below 0, so its lower end is -10 us (-100 %) from the baseline's 10. */
    assert_float_equal(r.cmp[0].ci_lo, -10, 1e-12);
    assert_float_equal(r.cmp[0].ci_lo_pct, -100, 1e-12);
    assert_true(isinf(r.cmp[0].ci_hi) && r.cmp[0].ci_cut && r.cmp[0].constant);
    assert_string_equal(r.cmp[0].verdict, "noise");
    rpt_results_free(&r);
}

/* Holm inside a variant: k metrics all with the paired p = .0041811 above
 * adjust to k p. Eleven give .04599 < .05 (better); twelve give .05017
 * (noise), although each alone is significant. */
static void test_holm_family(void **state)
{
    (void)state;
    static const char *const names[] = { "m0", "m1", "m2", "m3", "m4",  "m5",
                                         "m6", "m7", "m8", "m9", "m10", "m11" };
    double a[12 * 5], b[12 * 5];
    static const double a1[5] = { 10, 12, 11, 13, 9 }, b1[5] = { 11, 13.5, 11.5, 14, 10.5 };
    for (int k = 0; k < 12; k++)
        for (int i = 0; i < 5; i++)
            a[k * 5 + i] = a1[i], b[k * 5 + i] = b1[i];
    for (int k = 11; k <= 12; k++) {
        struct rpt_results r;
        two_variants(&r, k, names, "ops", RPT_HIGHER_BETTER, a, b, 5, true);
        assert_int_equal(r.ncmp, k);
        for (int i = 0; i < k; i++) {
            assert_float_equal(r.cmp[i].p_value, 0.0041811, 1e-6);
            assert_float_equal(r.cmp[i].p_adjusted, k * 0.0041811, 1e-5);
            assert_string_equal(r.cmp[i].verdict, k == 11 ? "better" : "noise");
        }
        rpt_results_free(&r);
    }
}

/* The --cpus view is a family of its own: eleven host-wide metrics and
 * eleven cpus.* ones, all at p = .0041811, adjust to 11 p = .04599 each, not
 * 22 p; so asking for the view changes no host-wide verdict. */
static void test_holm_cpus_view_family(void **state)
{
    (void)state;
    const char *names[22];
    char buf[22][16];
    double a[22 * 5], b[22 * 5];
    static const double a1[5] = { 10, 12, 11, 13, 9 }, b1[5] = { 11, 13.5, 11.5, 14, 10.5 };
    for (int k = 0; k < 22; k++) {
        snprintf(buf[k], sizeof buf[k], "%sm%d", k < 11 ? "" : RPT_CPUS_PREFIX, k % 11);
        names[k] = buf[k];
        for (int i = 0; i < 5; i++)
            a[k * 5 + i] = a1[i], b[k * 5 + i] = b1[i];
    }
    struct rpt_results r;
    two_variants(&r, 22, names, "ops", RPT_HIGHER_BETTER, a, b, 5, true);
    assert_int_equal(r.ncmp, 22);
    for (int i = 0; i < 22; i++) {
        assert_float_equal(r.cmp[i].p_adjusted, 11 * 0.0041811, 1e-5);
        assert_string_equal(r.cmp[i].verdict, "better");
    }
    rpt_results_free(&r);
}

/* One replication: a mean but no interval, no test, no verdict. */
static void test_one_replication(void **state)
{
    (void)state;
    static const char *const names[] = { "thr" };
    double a[1] = { 100 }, b[1] = { 97.2 };
    struct rpt_results r;
    two_variants(&r, 1, names, "ops", RPT_HIGHER_BETTER, a, b, 1, true);
    const struct rpt_metric *m = rpt_variant_metric(&r.variants[0], "thr");
    assert_float_equal(m->mean, 100, 0);
    assert_true(isnan(m->ci_lo) && isnan(m->ci_hi));
    const struct rpt_comparison *c = &r.cmp[0];
    assert_int_equal(c->test, RPT_TEST_NONE);
    assert_float_equal(c->delta_pct, -2.8, 1e-9);
    assert_true(isnan(c->ci_lo_pct) && isnan(c->p_value) && isnan(c->p_adjusted));
    assert_string_equal(c->verdict, "n/a");
    rpt_results_free(&r);
}

/* Near-zero baselines: a share of .0002 % going to 71.3 % is +71.3
 * percentage points, not +35,650,000 %; a count from 0 is a difference in
 * its unit; a share of 50 % stays relative. */
static void test_near_zero_baseline(void **state)
{
    (void)state;
    static const char *const share[] = { "poll_pct" }, *const count[] = { "sla_unmet" };
    double a[3] = { 0.0001, 0.0002, 0.0003 }, b[3] = { 71.2999, 71.3, 71.3001 };
    struct rpt_results r;
    two_variants(&r, 1, share, "%", RPT_NEUTRAL, a, b, 3, true);
    const struct rpt_comparison *c = &r.cmp[0];
    assert_true(c->absolute);
    assert_string_equal(c->delta_unit, "pp");
    assert_float_equal(c->delta, 71.2998, 1e-9);
    assert_float_equal(c->ci_lo, c->delta, 1e-9); /* every difference is 71.2998 */
    assert_string_equal(c->verdict, "higher");
    rpt_results_free(&r);

    double z[3] = { 0, 0, 0 }, one[3] = { 1, 0, 2 };
    two_variants(&r, 1, count, "", RPT_LOWER_BETTER, z, one, 3, true);
    assert_true(r.cmp[0].absolute);
    assert_string_equal(r.cmp[0].delta_unit, "");
    assert_true(isnan(r.cmp[0].delta_pct));
    assert_float_equal(r.cmp[0].delta, 1, 1e-12);
    rpt_results_free(&r);

    double half[3] = { 49, 50, 51 }, more[3] = { 54, 55, 56 };
    two_variants(&r, 1, share, "%", RPT_NEUTRAL, half, more, 3, true);
    assert_false(r.cmp[0].absolute);
    assert_string_equal(r.cmp[0].delta_unit, "%");
    assert_float_equal(r.cmp[0].delta_pct, 10, 1e-9);
    rpt_results_free(&r);
}

/* Saturation: served below offered by more than 5 % (means). */
static void test_saturation(void **state)
{
    (void)state;
    static const char *const names[] = { "offered", "served" };
    /* base serves 95.0 % of 1000 (not saturated: the bound itself); var
     * serves 94.9 % of 1000. */
    double a[4] = { 1000, 1000, 950, 950 }, b[4] = { 1000, 1000, 949, 949 };
    struct rpt_results r;
    two_variants(&r, 2, names, "1/s", RPT_NEUTRAL, a, b, 2, true);
    rpt_mark_saturation(&r, "offered", "served");
    assert_false(r.variants[0].saturated);
    assert_true(r.variants[1].saturated);
    assert_float_equal(r.variants[1].offered, 1000, 0);
    assert_float_equal(r.variants[1].served, 949, 0);
    assert_string_equal(r.served_metric, "served");
    rpt_mark_saturation(&r, "offered", "nosuch"); /* not an open-loop pair: unmarked */
    assert_false(r.variants[1].saturated);
    rpt_results_free(&r);
}

/* The warm-up check: MSER-5's end of the transient, mean over the
 * replications that had enough observations, against the warm-up. */
static void test_warmup_check(void **state)
{
    (void)state;
    static const char *const cols[] = { "mser5_ms", "warmup_ms" };
    static const double mser[2][3] = { { 8, 9, 16 }, { 2, 3, -1 } }; /* means 11, 2.5 */
    struct rpt_results r = { .nvariants = 2 };
    r.variants = calloc(2, sizeof *r.variants);
    for (int v = 0; v < 2; v++) {
        struct rpt_metric_set sets[3] = { 0 };
        for (int i = 0; i < 3; i++) {
            double row[2] = { mser[v][i], 10 };
            rpt_set_put(&sets[i], "m", "", RPT_NEUTRAL, i);
            rpt_set_series_row(&sets[i], "steady_state", cols, 2, row);
        }
        r.variants[v].name = strdup(v ? "b" : "a");
        rpt_variant_summarize(&r.variants[v], sets, 3);
        for (int i = 0; i < 3; i++)
            rpt_set_free(&sets[i]);
    }
    rpt_check_warmup(&r);
    assert_true(r.variants[0].warmup_short);
    assert_float_equal(r.variants[0].transient_ms, 11, 1e-12);
    assert_float_equal(r.variants[0].warmup_ms, 10, 0);
    assert_false(r.variants[1].warmup_short);
    assert_float_equal(r.variants[1].transient_ms, 2.5, 1e-12);
    /* A saturated variant is not flagged: it never settles. */
    r.variants[0].saturated = true;
    rpt_check_warmup(&r);
    assert_false(r.variants[0].warmup_short);
    rpt_results_free(&r);
}

int main(void)
{
    gsl_set_error_handler_off(); /* as src/main.c does */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ci), cmocka_unit_test(test_welch), cmocka_unit_test(test_noise),
        cmocka_unit_test(test_set_put_replaces), cmocka_unit_test(test_series_gathered_per_rep),
        cmocka_unit_test(test_paired_comparison), cmocka_unit_test(test_holm_family),
        cmocka_unit_test(test_holm_cpus_view_family), cmocka_unit_test(test_paired_degenerate),
        cmocka_unit_test(test_one_replication), cmocka_unit_test(test_near_zero_baseline),
        cmocka_unit_test(test_ci_cut_to_range), cmocka_unit_test(test_delta_cut_to_range),
        cmocka_unit_test(test_cells_constant_and_cut),
        cmocka_unit_test(test_saturation),       cmocka_unit_test(test_warmup_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
