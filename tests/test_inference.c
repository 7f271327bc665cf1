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

#include "report/inference.h"

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

int main(void)
{
    gsl_set_error_handler_off(); /* as src/main.c does */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paired_t),   cmocka_unit_test(test_paired_exact_and_undefined),
        cmocka_unit_test(test_welch_t),    cmocka_unit_test(test_holm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
