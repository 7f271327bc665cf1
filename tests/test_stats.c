/* test_stats: online statistics against direct two-pass computation.
 *
 * Why: the report layer's confidence intervals rest on these numbers, so the
 * one-pass results are compared with the plain textbook formulas on data where
 * those are exact, including data with a large offset, where a naive one-pass
 * formula would lose its digits. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "sim/stats.h"

static void two_pass(const double *x, size_t n, double *mean, double *var)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *var = ss / (double)(n - 1);
}

static void check_against_two_pass(const double *x, size_t n, double rel_tol)
{
    struct sim_stat s;
    sim_stat_init(&s);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        sim_stat_add(&s, x[i]);
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    double mean, var;
    two_pass(x, n, &mean, &var);
    assert_int_equal(s.n, n);
    assert_true(fabs(s.mean - mean) <= rel_tol * fabs(mean));
    assert_true(fabs(sim_stat_variance(&s) - var) <= rel_tol * var);
    assert_true(fabs(sim_stat_stddev(&s) - sqrt(var)) <= rel_tol * sqrt(var));
    assert_true(s.min == lo);
    assert_true(s.max == hi);
}

static void test_small_exact(void **state)
{
    (void)state;
    /* mean 5, squared deviations 9+1+1+9+0+4 = 24 over n-1 = 5 */
    const double x[] = { 2, 4, 6, 8, 5, 3 };
    struct sim_stat s;
    sim_stat_init(&s);
    for (size_t i = 0; i < 6; i++)
        sim_stat_add(&s, x[i]);
    assert_true(fabs(s.mean - 28.0 / 6.0) < 1e-12);
    check_against_two_pass(x, 6, 1e-12);
}

static void test_pseudo_random(void **state)
{
    (void)state;
    enum { N = 10000 };
    static double x[N];
    uint64_t r = 99;
    for (size_t i = 0; i < N; i++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (double)(r >> 11) / 9007199254740992.0 * 50.0 - 10.0;
    }
    check_against_two_pass(x, N, 1e-10);
}

/* A large offset with a small spread: the sum-of-squares formula fails here
 * (1e9^2 = 1e18 leaves no digits for a variance near 1). */
static void test_large_offset(void **state)
{
    (void)state;
    enum { N = 1000 };
    static double x[N];
    for (size_t i = 0; i < N; i++)
        x[i] = 1e9 + (double)(i % 7) - 3.0;
    check_against_two_pass(x, N, 1e-6);
}

static void test_few_samples(void **state)
{
    (void)state;
    struct sim_stat s;
    sim_stat_init(&s);
    assert_int_equal(s.n, 0);
    assert_true(sim_stat_variance(&s) == 0.0);
    sim_stat_add(&s, 3.5);
    assert_true(s.mean == 3.5);
    assert_true(sim_stat_variance(&s) == 0.0); /* n < 2 */
    assert_true(s.min == 3.5 && s.max == 3.5);
    sim_stat_add(&s, 5.5);
    assert_true(fabs(sim_stat_variance(&s) - 2.0) < 1e-12);
}

/* Value 2 on [100, 400), 5 on [400, 500), 0 on [500, 1100):
 * integral 600 + 500 + 0 = 1100 over 1000 ns. */
static void test_tavg_integral(void **state)
{
    (void)state;
    struct sim_tavg a;
    sim_tavg_init(&a, 100, 2.0);
    assert_true(sim_tavg_mean(&a, 100) == 2.0); /* no time passed */
    assert_true(fabs(sim_tavg_mean(&a, 250) - 2.0) < 1e-12);
    sim_tavg_set(&a, 400, 5.0);
    sim_tavg_set(&a, 500, 0.0);
    assert_true(fabs(sim_tavg_mean(&a, 500) - 1100.0 / 400.0) < 1e-12);
    assert_true(fabs(sim_tavg_mean(&a, 1100) - 1100.0 / 1000.0) < 1e-12);
    /* Two changes at the same instant: the zero-length value adds nothing. */
    sim_tavg_set(&a, 1100, 9.0);
    sim_tavg_set(&a, 1100, 1.0);
    assert_true(fabs(sim_tavg_mean(&a, 2100) - 2100.0 / 2000.0) < 1e-12);
}

static void test_tavg_reset(void **state)
{
    (void)state;
    struct sim_tavg a;
    sim_tavg_init(&a, 0, 10.0);
    sim_tavg_set(&a, 1000, 4.0);
    sim_tavg_reset(&a, 1500); /* warm-up over: keeps the current value 4 */
    assert_int_equal(a.start_ns, 1500);
    assert_true(a.integral == 0.0);
    assert_true(sim_tavg_mean(&a, 1500) == 4.0);
    sim_tavg_set(&a, 2000, 1.0); /* 4 x 500 */
    assert_true(fabs(sim_tavg_mean(&a, 3500) - (2000.0 + 1500.0) / 2000.0) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_exact),
        cmocka_unit_test(test_pseudo_random),
        cmocka_unit_test(test_large_offset),
        cmocka_unit_test(test_few_samples),
        cmocka_unit_test(test_tavg_integral),
        cmocka_unit_test(test_tavg_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
