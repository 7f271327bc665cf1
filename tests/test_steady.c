/* steady: MSER-5 on synthetic series with a known transient (the arithmetic
 * is in the comments), and the binned output workloads feed it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "sim/steady.h"

/* A step transient: 100 observations at 10, then +1, -1, +1 ... around 0.
 * Batch means of 5: twenty of 10, then +.2, -.2, ... (5 is odd). From d =
 * 20 on, MSER(d) = sum (Z - mean)^2 / (k - d)^2 ~ .04 / (k - d), smallest at
 * d = 20: the truncation is exactly the 100 transient observations. */
static void test_mser5_step(void **state)
{
    (void)state;
    static double x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = i < 100 ? 10 : (i % 2 ? -1 : 1);
    assert_int_equal(sim_mser5(x, 1000), 100);
    /* No transient: nothing to truncate (MSER(0) = .04 / 200 is the least). */
    for (int i = 0; i < 1000; i++)
        x[i] = i % 2 ? -1 : 1;
    assert_int_equal(sim_mser5(x, 1000), 0);
}

/* A decaying transient 20 exp(-i/50) over noise of amplitude 1: the
 * transient is under the noise after 50 ln 20 = 150 observations, so the
 * truncation falls past most of it and well before the half. */
static void test_mser5_decay(void **state)
{
    (void)state;
    static double x[2000];
    for (int i = 0; i < 2000; i++)
        x[i] = 20 * exp(-i / 50.0) + sin(i * 2.3999632); /* golden-angle noise */
    int d = sim_mser5(x, 2000);
    assert_true(d >= 100 && d <= 300);
    assert_int_equal(d % 5, 0);
}

/* A large level with a small spread (a throughput of ~1e6 varying by 1):
 * the running variance must not cancel into noise. */
static void test_mser5_large_mean(void **state)
{
    (void)state;
    static double x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = 1e6 + (i < 50 ? 50 : (i % 2 ? -1 : 1));
    assert_int_equal(sim_mser5(x, 1000), 50);
}

static void test_mser5_too_short(void **state)
{
    (void)state;
    double x[20] = { 0 };
    assert_int_equal(sim_mser5(x, 19), -1);
    assert_int_equal(sim_mser5(x, 20), 0);
    x[3] = NAN;
    assert_int_equal(sim_mser5(x, 20), -1);
}

/* Bins: 1000 over 0..100 ms are 100 us each. Means: 300 bins (30 ms) at a
 * latency of 500, then 50 and 150 alternating (one bin empty); counts: 4 per
 * bin for 20 ms, then 1 and 2 alternating. */
static void test_steady_bins(void **state)
{
    (void)state;
    struct sim_steady s;
    sim_steady_init(&s, 0, 100 * SIM_NS_PER_MS);
    assert_int_equal(s.bin_ns, 100 * SIM_NS_PER_US);
    for (int b = 0; b < 1000; b++) {
        if (b == 507)
            continue; /* an empty bin: left out of the means */
        sim_time_t t = b * s.bin_ns + 10;
        double v = b < 300 ? 500 : (b % 2 ? 50 : 150);
        sim_steady_add(&s, t, v);
        sim_steady_add(&s, t + 1, v);
    }
    sim_steady_add(&s, 100 * SIM_NS_PER_MS, 1e9); /* past the end: ignored */
    assert_int_equal(sim_steady_end_ns(&s, SIM_STEADY_MEAN), 30 * SIM_NS_PER_MS);
    sim_steady_destroy(&s);

    sim_steady_init(&s, 0, 100 * SIM_NS_PER_MS);
    for (int b = 0; b < 1000; b++)
        for (int k = 0; k < (b < 200 ? 4 : 1 + b % 2); k++)
            sim_steady_add(&s, b * s.bin_ns, 1);
    assert_int_equal(sim_steady_end_ns(&s, SIM_STEADY_COUNT), 20 * SIM_NS_PER_MS);
    sim_steady_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mser5_step),       cmocka_unit_test(test_mser5_decay),
        cmocka_unit_test(test_mser5_large_mean), cmocka_unit_test(test_mser5_too_short),
        cmocka_unit_test(test_steady_bins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
