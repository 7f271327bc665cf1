/* inference: paired t, Welch t and Holm against values worked out by
 * hand (the arithmetic is in the comments), so a change to any of them that
 * shifts a verdict fails here first. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_errno.h>
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "report/inference.h"
#include "report/results.h"

static void test_paired_t(void **state)
{
    (void)state;
    double a[5] = { 10, 12, 11, 13, 9 };
    double b[5] = { 11, 13.5, 11.5, 14, 10.5 };
    /* d = 1, 1.5, 0.5, 1, 1.5: mean 1.1, squared deviations .01 .16 .36 .01
     * .16 = .70, s_d^2 = .70 / 4 = .175, se = sqrt(.175 / 5) = .1870829,
     * t = 5.879747 on 4 df. t(0.975, 4) = 2.776445: half-width .5194250.
     * For 4 df, P(T > t) = 1/2 - (3/4) u (1 - u^2/3) with u = t / sqrt(t^2 +
     * 4) = .9467293: p = 2 x .0020905 = .0041811. */
    struct rpt_diff_test t;
    assert_int_equal(rpt_paired_t(a, b, 5, &t), 0);
    assert_float_equal(t.diff, 1.1, 1e-12);
    assert_float_equal(t.ci_lo, 1.1 - 0.5194250, 1e-6);
    assert_float_equal(t.ci_hi, 1.1 + 0.5194250, 1e-6);
    assert_float_equal(t.p_value, 0.0041811, 1e-6);
    assert_float_equal(t.df, 4, 0);
    /* The same samples unpaired (Welch, R: t.test(b, a)): the spread of
     * each side (s^2 = 2.5 and 2.45) swamps the difference. */
    assert_int_equal(rpt_welch_t(a, 5, b, 5, &t), 0);
    assert_float_equal(t.diff, 1.1, 1e-12);
    assert_true(t.p_value > 0.25 && t.ci_lo < 0);
}

static void test_paired_exact_and_undefined(void **state)
{
    (void)state;
    double a[3] = { 1, 2, 3 }, b[3] = { 2, 3, 4 }, nan3[3] = { 1, NAN, 3 };
    struct rpt_diff_test t;
    /* Every difference is 1: no spread, an exact difference. */
    assert_int_equal(rpt_paired_t(a, b, 3, &t), 0);
    assert_float_equal(t.p_value, 0, 0);
    assert_float_equal(t.ci_lo, 1, 1e-12);
    assert_float_equal(t.ci_hi, 1, 1e-12);
    /* Identical samples: no difference. */
    assert_int_equal(rpt_paired_t(a, a, 3, &t), 0);
    assert_float_equal(t.p_value, 1, 0);
    /* One pair, or a value that is not a number: no test. */
    assert_int_equal(rpt_paired_t(a, b, 1, &t), -1);
    assert_int_equal(rpt_paired_t(a, nan3, 3, &t), -1);
    assert_int_equal(rpt_welch_t(a, 1, b, 3, &t), -1);
}

static void test_welch_t(void **state)
{
    (void)state;
    double x[5] = { 10, 12, 11, 13, 9 };
    double y[5] = { 14, 15, 13, 16, 12 };
    /* diff 3, se = sqrt(2.5/5 + 2.5/5) = 1, df = 8, t = 3: p = 0.01707168,
     * CI = 3 -+ 2.306004 (R: t.test(y, x)). */
    struct rpt_diff_test t;
    assert_int_equal(rpt_welch_t(x, 5, y, 5, &t), 0);
    assert_float_equal(t.diff, 3, 1e-12);
    assert_float_equal(t.df, 8, 1e-9);
    assert_float_equal(t.p_value, 0.01707168, 1e-7);
    assert_float_equal(t.ci_lo, 3 - 2.306004, 1e-6);
    assert_float_equal(t.ci_hi, 3 + 2.306004, 1e-6);
}

static void test_holm(void **state)
{
    (void)state;
    /* m = 4 tests (the NaN is not one). Ascending: .005 x 4 = .02; .01 x 3 =
     * .03; .03 x 2 = .06; .04 x 1 = .04, raised to .06 (step-down never
     * goes below an earlier step). R: p.adjust(c(.01, .04, .03, .005),
     * "holm") = .03 .06 .06 .02. */
    double p[5] = { 0.01, NAN, 0.04, 0.03, 0.005 }, adj[5];
    rpt_holm(p, 5, adj);
    assert_float_equal(adj[0], 0.03, 1e-12);
    assert_true(isnan(adj[1]));
    assert_float_equal(adj[2], 0.06, 1e-12);
    assert_float_equal(adj[3], 0.06, 1e-12);
    assert_float_equal(adj[4], 0.02, 1e-12);
    /* Capped at 1. */
    double q[2] = { 0.6, 0.9 }, qadj[2];
    rpt_holm(q, 2, qadj);
    assert_float_equal(qadj[0], 1, 0);
    assert_float_equal(qadj[1], 1, 0);
}

/* Fisher-Pitman on the Welch example's samples: of the C(10, 5) = 252
 * splits of the pooled values, 10 have a difference in means of magnitude
 * at least 3 (enumerated by hand-checked script: itertools.combinations),
 * so p = 10 / 252 exactly. The interval is the set of shifts the test
 * keeps (p >= .05), [0.5, 5.5] on a 0.001 grid. 1..4 against 5..8: only the
 * observed split and its mirror are as extreme, p = 2 / 70. */
static void test_perm_exact(void **state)
{
    (void)state;
    double x[5] = { 10, 12, 11, 13, 9 }, y[5] = { 14, 15, 13, 16, 12 };
    struct rpt_diff_test t;
    assert_int_equal(rpt_perm_test(x, 5, y, 5, 1, &t), 0);
    assert_float_equal(t.diff, 3, 1e-12);
    assert_float_equal(t.p_value, 10.0 / 252, 1e-12);
    assert_true(t.exact);
    assert_float_equal(t.rearrangements, 252, 0);
    assert_float_equal(t.p_min, 2.0 / 252, 1e-12);
    assert_float_equal(t.ci_lo, 0.5, 1e-6);
    assert_float_equal(t.ci_hi, 5.5, 1e-6);
    double a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 };
    assert_int_equal(rpt_perm_test(a, 4, b, 4, 1, &t), 0);
    assert_float_equal(t.p_value, 2.0 / 70, 1e-12);
    assert_int_equal(rpt_perm_test(a, 1, b, 4, 1, &t), -1);
}

/* Sign flips of the paired example's differences 1, 1.5, .5, 1, 1.5: all
 * positive, so only no flip and all flips reach |mean| 1.1: p = 2 / 32.
 * The t test gave .0042 on the same pairs; 5 pairs cannot do better than
 * .0625 without assuming normality, so no 95 % interval exists either.
 * Four pairs differing by exactly 350 (a constant metric that moved a
 * step): t called that exact (p = 0); sign flips say 2 / 16. */
static void test_signflip_exact(void **state)
{
    (void)state;
    double a[5] = { 10, 12, 11, 13, 9 }, b[5] = { 11, 13.5, 11.5, 14, 10.5 };
    struct rpt_diff_test t;
    assert_int_equal(rpt_signflip_test(a, b, 5, 1, &t), 0);
    assert_float_equal(t.diff, 1.1, 1e-12);
    assert_float_equal(t.p_value, 2.0 / 32, 1e-12);
    assert_float_equal(t.p_min, 2.0 / 32, 1e-12);
    assert_true(isinf(t.ci_lo) && t.ci_lo < 0 && isinf(t.ci_hi) && t.ci_hi > 0);
    double c[4] = { 17150, 17150, 17150, 17150 }, e[4] = { 17500, 17500, 17500, 17500 };
    assert_int_equal(rpt_signflip_test(c, e, 4, 1, &t), 0);
    assert_float_equal(t.p_value, 2.0 / 16, 1e-12);
    /* 20 pairs (2^20 > 10^5 sign sets): Monte-Carlo, the same for the same
     * seed; a clear shift still gives the smallest p the draws allow. */
    double f[20], g[20];
    for (int i = 0; i < 20; i++) {
        f[i] = 100 + i;
        g[i] = 110 + i + (i % 3) * 0.5;
    }
    struct rpt_diff_test t2;
    assert_int_equal(rpt_signflip_test(f, g, 20, 7, &t), 0);
    assert_int_equal(rpt_signflip_test(f, g, 20, 7, &t2), 0);
    assert_false(t.exact);
    assert_float_equal(t.rearrangements, RPT_PERM_DRAWS, 0);
    assert_float_equal(t.p_value, t2.p_value, 0);
    assert_true(t.p_value <= 2.0 / (RPT_PERM_DRAWS + 1));
    assert_true(t.ci_lo > 9 && t.ci_hi < 12);
}

/* Which samples the t test cannot judge. */
static void test_t_unsuited(void **state)
{
    (void)state;
    double level[4] = { 339.9, 339.9, 339.9, 339.9 }, next[4] = { 340.0, 340.0, 340.0, 340.0 };
    double two[4] = { 339.9, 340.0, 339.9, 340.0 }, spread[4] = { 339.87, 339.91, 339.92, 339.9 };
    double tie[4] = { 339.9, 340.0, 339.9, 340.1 };
    assert_true(rpt_sample_discrete(level, 4));   /* constant */
    assert_true(rpt_sample_discrete(two, 4));     /* two levels */
    assert_false(rpt_sample_discrete(tie, 4));    /* one tie: 3 distinct of 4 */
    assert_false(rpt_sample_discrete(spread, 4)); /* 4 distinct values */
    assert_false(rpt_sample_discrete(level, 1));
    assert_true(rpt_t_unsuited(level, 4, next, 4));
    assert_true(rpt_t_unsuited(spread, 4, level, 4));
    double u[4] = { 1, 2, 3, 4 }, w[4] = { 5, 6, 7, 8 }, v[4] = { 4, 3, 2, 1 };
    assert_false(rpt_t_unsuited(u, 4, w, 4));
    assert_true(rpt_t_unsuited(u, 4, v, 4)); /* pooled: 4 distinct of 8 */
}

/* A metric of one variant from its replications' values. */
static void metric_of(struct rpt_metric *m, const char *name, const char *unit,
                      enum rpt_better better, const double *v, int n)
{
    struct rpt_variant var = { 0 };
    struct rpt_metric_set sets[12] = { 0 };
    for (int i = 0; i < n; i++)
        rpt_set_put(&sets[i], name, unit, better, v[i]);
    rpt_variant_summarize(&var, sets, n);
    *m = var.metrics[0];
    for (int i = 0; i < n; i++)
        rpt_set_free(&sets[i]);
    free(var.metrics);
}

/* The verdict of b against a under the default thresholds (unpaired:
 * two seeds). */
static const char *verdict_of(const char *unit, enum rpt_better better, const double *a,
                              const double *b, int n, bool paired, struct rpt_comparison *c)
{
    struct rpt_metric ma, mb;
    metric_of(&ma, "m", unit, better, a, n);
    metric_of(&mb, "m", unit, better, b, n);
    rpt_compare_metric(&ma, &mb, paired, 1, &rpt_min_effect_default, c);
    free(ma.values);
    free(mb.values);
    return c->verdict;
}

/* The defect: ibrs-off against itself, seeds 2023 and 2024, 4 replications
 * each. pkg_watts at the RAPL limit sits on levels (338.5, 339.9, 340.0,
 * 340.1 W); each seed's 4 landed on one, a little jitter apart: Welch p =
 * 1e-4 on a +0.04 % change, called "worse". Two groups exactly on two
 * adjacent levels were worse still: no spread, "exact", p = 0. Neither is
 * worse now: the jittered ones are under the 0.5 % power threshold, the
 * exact ones get the permutation test (p = 2 / 70) and the threshold. */
static void test_discrete_levels_not_worse(void **state)
{
    (void)state;
    struct rpt_comparison c;
    const double seed2023[4] = { 339.898519783503, 339.91341209339845, 339.9212994601909,
                                 339.86741727480404 };
    const double seed2024[4] = { 340.03688563707937, 340.05664015722067, 340.01837103309595,
                                 340.0655252875252 };
    assert_string_equal(verdict_of("W", RPT_LOWER_BETTER, seed2023, seed2024, 4, false, &c),
                        "negligible");
    assert_int_equal(c.test, RPT_TEST_WELCH);
    assert_true(c.p_value < 1e-3); /* significant: the threshold is what holds it back */
    const double level[4] = { 339.9, 339.9, 339.9, 339.9 }, next[4] = { 340.0, 340.0, 340.0, 340.0 };
    assert_string_not_equal(verdict_of("W", RPT_LOWER_BETTER, level, next, 4, false, &c), "worse");
    assert_int_equal(c.test, RPT_TEST_PERMUTATION);
    assert_float_equal(c.p_value, 2.0 / 70, 1e-12);
}

/* The threshold by class: power and throughput 0.5 %, latency 2 %, other
 * none; a significant change under it is negligible, over it judged. */
static void test_min_effect(void **state)
{
    (void)state;
    struct rpt_comparison c;
    const double base[4] = { 1000, 1001, 999, 1000.5 };
    double up03[4], up06[4], up3[4];
    for (int i = 0; i < 4; i++) {
        up03[i] = base[i] * 1.003 + (i % 2) * 0.1;
        up06[i] = base[i] * 1.006 + (i % 2) * 0.1;
        up3[i] = base[i] * 1.03 + (i % 2) * 0.1;
    }
    assert_string_equal(verdict_of("W", RPT_LOWER_BETTER, base, up03, 4, true, &c), "negligible");
    assert_true(c.p_value < 0.05);
    assert_int_equal(c.effect_class, RPT_EFFECT_POWER);
    assert_float_equal(c.min_effect_pct, 0.5, 0);
    assert_string_equal(verdict_of("W", RPT_LOWER_BETTER, base, up06, 4, true, &c), "worse");
    assert_string_equal(verdict_of("jOPS", RPT_HIGHER_BETTER, base, up03, 4, true, &c),
                        "negligible");
    assert_int_equal(c.effect_class, RPT_EFFECT_THROUGHPUT);
    assert_string_equal(verdict_of("jOPS", RPT_HIGHER_BETTER, base, up06, 4, true, &c), "better");
    assert_string_equal(verdict_of("us", RPT_LOWER_BETTER, base, up06, 4, true, &c), "negligible");
    assert_int_equal(c.effect_class, RPT_EFFECT_LATENCY);
    assert_string_equal(verdict_of("us", RPT_LOWER_BETTER, base, up3, 4, true, &c), "worse");
    assert_string_equal(verdict_of("%", RPT_NEUTRAL, base, up03, 4, true, &c), "higher");
    assert_int_equal(c.effect_class, RPT_EFFECT_OTHER);
    /* No thresholds (NULL): p alone, as before. */
    struct rpt_metric ma, mb;
    metric_of(&ma, "m", "W", RPT_LOWER_BETTER, base, 4);
    metric_of(&mb, "m", "W", RPT_LOWER_BETTER, up03, 4);
    rpt_compare_metric(&ma, &mb, true, 1, NULL, &c);
    assert_string_equal(c.verdict, "worse");
    free(ma.values);
    free(mb.values);
}

/* A clear large effect is still called, on the t test: ibrs-off's
 * critical-jOPS gain (+10 %) over 4 paired replications. */
static void test_large_effect_called(void **state)
{
    (void)state;
    struct rpt_comparison c;
    const double ibrs[4] = { 9800, 10150, 9975, 9915 }, off[4] = { 10850, 11200, 10990, 10920 };
    assert_string_equal(verdict_of("jOPS", RPT_HIGHER_BETTER, ibrs, off, 4, true, &c), "better");
    assert_int_equal(c.test, RPT_TEST_PAIRED);
    assert_true(c.delta_pct > 9);
}

int main(void)
{
    gsl_set_error_handler_off(); /* as src/main.c does */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paired_t),   cmocka_unit_test(test_paired_exact_and_undefined),
        cmocka_unit_test(test_welch_t),    cmocka_unit_test(test_holm),
        cmocka_unit_test(test_perm_exact), cmocka_unit_test(test_signflip_exact),
        cmocka_unit_test(test_t_unsuited), cmocka_unit_test(test_discrete_levels_not_worse),
        cmocka_unit_test(test_min_effect), cmocka_unit_test(test_large_effect_called),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
