/* Robustness of the results model (issue 13): names longer than the model
 * holds, values at the edges of a double, NaN replications. Each case crashed
 * or aborted before its fix; run under ASan by `make test`. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/results.h"

#define LONG_NAME "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* A name too long to store is cut; looking it up again must find that entry,
 * not add one per put (which overran rpt_variant_summarize's arrays). */
static void test_long_names_stored_once(void **state)
{
    (void)state;
    static const char *const cols[] = { "x" };
    struct rpt_metric_set sets[2] = { 0 };
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 3; k++) {
            rpt_set_put(&sets[r], LONG_NAME, "u", RPT_NEUTRAL, k);
            double row[1] = { k };
            rpt_set_series_row(&sets[r], LONG_NAME, cols, 1, row);
        }
    assert_int_equal(sets[0].n, 1);
    assert_int_equal(sets[0].nseries, 1);
    assert_int_equal(sets[0].series[0].nrows, 3);
    assert_non_null(rpt_set_get(&sets[0], LONG_NAME));
    struct rpt_results r = { .nvariants = 1 };
    r.variants = calloc(1, sizeof *r.variants);
    rpt_variant_summarize(&r.variants[0], sets, 2);
    assert_int_equal(r.variants[0].nmetrics, 1);
    assert_int_equal(r.variants[0].metrics[0].n, 2);
    assert_int_equal(r.variants[0].series[0].nreps, 2);
    rpt_results_free(&r);
    rpt_set_free(&sets[0]);
    rpt_set_free(&sets[1]);
}

static void metric(struct rpt_metric *m, const double *v, int n)
{
    memset(m, 0, sizeof *m);
    strcpy(m->name, "m");
    m->better = RPT_HIGHER_BETTER;
    m->values = (double *)v;
    m->n = n;
    double sum = 0, ss = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    m->mean = sum / n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m->mean) * (v[i] - m->mean);
    m->stddev = sqrt(ss / (n - 1));
}

/* Variances near 1e-320 made the Welch-Satterthwaite df 0/0: GSL's default
 * handler aborted on it, and with the handler off the interval was
 * unbounded. The df from each side's share of the variance is finite. */
static void test_welch_tiny_values(void **state)
{
    (void)state;
    static const double a[] = { 1e-160, 2e-160 }, b[] = { 1e-160, 3e-160 };
    struct rpt_metric ma, mb;
    metric(&ma, a, 2);
    metric(&mb, b, 2);
    struct rpt_comparison c;
    rpt_compare_metric(&ma, &mb, false, 0, NULL, &c);
    assert_int_equal(c.test, RPT_TEST_WELCH);
    assert_true(isfinite(c.ci_lo) && isfinite(c.ci_hi) && c.ci_lo < 0 && c.ci_hi > 0);
    assert_true(c.p_value > 0.05 && c.p_value < 1);
    assert_string_equal(c.verdict, "noise");
}

/* A side without usable values has no CI, no p-value and no verdict (it was
 * "worse" with p = 0), paired or not. */
static void test_nan_no_verdict(void **state)
{
    (void)state;
    static const double a[] = { 1, 2, 3 }, b[] = { NAN, NAN }, c3[] = { 1, NAN, 3 };
    struct rpt_metric ma, mb, mc;
    metric(&ma, a, 3);
    metric(&mb, b, 2);
    metric(&mc, c3, 3);
    struct rpt_comparison c;
    rpt_compare_metric(&ma, &mb, false, 0, NULL, &c);
    assert_string_equal(c.verdict, "n/a");
    assert_true(isnan(c.p_value));
    rpt_compare_metric(&mb, &ma, false, 0, NULL, &c);
    assert_string_equal(c.verdict, "n/a");
    rpt_compare_metric(&ma, &mc, true, 0, NULL, &c);
    assert_string_equal(c.verdict, "n/a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_names_stored_once),
        cmocka_unit_test(test_welch_tiny_values),
        cmocka_unit_test(test_nan_no_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
