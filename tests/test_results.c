/* Summaries and comparisons: Student-t CIs and Welch's test against values
 * computed independently (R: t.test(x, y) with var.equal = FALSE). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void test_welch(void **state)
{
    (void)state;
    double x[5] = { 10, 12, 11, 13, 9 };
    double y[5] = { 14, 15, 13, 16, 12 };
    struct rpt_metric a, b;
    fill(&a, "thr", RPT_HIGHER_BETTER, x, 5);
    fill(&b, "thr", RPT_HIGHER_BETTER, y, 5);
    struct rpt_comparison c;
    rpt_compare_metric(&a, &b, &c);
    /* diff 3, se = sqrt(2.5/5 + 2.5/5) = 1, df = 8, t = 3:
     * p = 0.01707168, CI = 3 -+ 2.306004 */
    assert_float_equal(c.delta_pct, 3.0 / 11 * 100, 1e-9);
    assert_float_equal(c.p_value, 0.01707168, 1e-6);
    assert_float_equal(c.ci_lo_pct, (3 - 2.306004) / 11 * 100, 1e-4);
    assert_float_equal(c.ci_hi_pct, (3 + 2.306004) / 11 * 100, 1e-4);
    assert_string_equal(c.verdict, "better");
    /* The same change on a lower-is-better metric is worse. */
    a.better = b.better = RPT_LOWER_BETTER;
    rpt_compare_metric(&a, &b, &c);
    assert_string_equal(c.verdict, "worse");
    a.better = b.better = RPT_NEUTRAL;
    rpt_compare_metric(&a, &b, &c);
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
    rpt_compare_metric(&a, &b, &c);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ci), cmocka_unit_test(test_welch), cmocka_unit_test(test_noise),
        cmocka_unit_test(test_set_put_replaces), cmocka_unit_test(test_series_gathered_per_rep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
