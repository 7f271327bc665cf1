/* test_hist: histogram percentiles against exact order statistics.
 *
 * Why these samples: latencies in pmlab run from a few ns (a POLL exit) to
 * seconds (an SLA window), so the bucket arithmetic is checked across the
 * whole range, on heavy-tailed (lognormal), flat (uniform) and exponential
 * data, against the nearest-rank order statistic of the sorted raw samples. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "sim/hist.h"
#include "sim/rng.h"

#define N_SAMPLES 200000
#define MAX_REL_ERR 0.005 /* half a bucket is < 0.4 %; the requirement is 1 % */

static const double percentiles[] = {
    0.001, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100,
};

static int cmp_time(const void *a, const void *b)
{
    sim_time_t x = *(const sim_time_t *)a, y = *(const sim_time_t *)b;
    return (x > y) - (x < y);
}

static sim_time_t exact_percentile(const sim_time_t *sorted, size_t n, double p)
{
    double r = ceil(p / 100.0 * (double)n);
    size_t rank = r < 1.0 ? 1 : (size_t)r;
    return sorted[rank - 1];
}

static void assert_close(double got, sim_time_t want)
{
    if (want < SIM_HIST_SUB) { /* exact buckets */
        assert_true(got == (double)want);
        return;
    }
    double rel = fabs(got - (double)want) / (double)want;
    if (rel > MAX_REL_ERR)
        fail_msg("percentile %.1f vs exact %lld: relative error %.4f", got,
                 (long long)want, rel);
}

/* Fill a histogram with the samples and compare every listed percentile. */
static void check_samples(sim_time_t *v, size_t n)
{
    struct sim_hist *h = malloc(sizeof *h);
    assert_non_null(h);
    sim_hist_init(h);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sim_hist_add(h, v[i]);
        sum += (double)v[i];
    }
    qsort(v, n, sizeof *v, cmp_time);
    assert_int_equal(h->count, n);
    assert_int_equal(h->min_ns, v[0]);
    assert_int_equal(h->max_ns, v[n - 1]);
    assert_true(fabs(sim_hist_mean(h) - sum / (double)n) <= 1e-9 * sum / (double)n);
    for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++)
        assert_close(sim_hist_percentile(h, percentiles[i]),
                     exact_percentile(v, n, percentiles[i]));
    free(h);
}

enum dist { DIST_LOGNORMAL, DIST_UNIFORM, DIST_EXP, DIST_LOGUNIFORM };

static sim_time_t draw(struct sim_rng *rng, enum dist d)
{
    double x = 0;
    switch (d) {
    case DIST_LOGNORMAL: /* median 30 us, spanning ~1 ns .. 100 s */
        x = sim_rng_lognormal_mean_cv(rng, 1e6, 30.0);
        break;
    case DIST_UNIFORM: /* 1 ns .. 100 s */
        x = 1.0 + sim_rng_uniform(rng) * 1e11;
        break;
    case DIST_EXP: /* mean 1 s */
        x = sim_rng_exp(rng, 1e9);
        break;
    case DIST_LOGUNIFORM: /* equal weight on every decade 1 ns .. 100 s */
        x = pow(10.0, sim_rng_uniform(rng) * 11.0);
        break;
    }
    if (x > 1e11)
        x = 1e11;
    return (sim_time_t)(x + 0.5);
}

static void check_dist(enum dist d)
{
    struct sim_rng_key key = { .scenario_seed = 7, .stream = (uint32_t)d };
    struct sim_rng rng;
    sim_rng_init(&rng, &key);
    sim_time_t *v = malloc(N_SAMPLES * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < N_SAMPLES; i++)
        v[i] = draw(&rng, d);
    check_samples(v, N_SAMPLES);
    free(v);
    sim_rng_destroy(&rng);
}

static void test_lognormal(void **state)
{
    (void)state;
    check_dist(DIST_LOGNORMAL);
}

static void test_uniform(void **state)
{
    (void)state;
    check_dist(DIST_UNIFORM);
}

static void test_exponential(void **state)
{
    (void)state;
    check_dist(DIST_EXP);
}

static void test_loguniform(void **state)
{
    (void)state;
    check_dist(DIST_LOGUNIFORM);
}

/* Every value from 0 to 2^44 ns lands in a bucket whose midpoint is within
 * half a bucket: a value v between 0 and the top makes the median v's own
 * bucket with no clamping to min/max. */
static void test_bucket_sweep(void **state)
{
    (void)state;
    struct sim_hist *h = malloc(sizeof *h);
    assert_non_null(h);
    for (double x = 1.0; x < 1.7e13; x = x * 1.003 + 1.0) {
        sim_time_t v = (sim_time_t)x;
        sim_hist_init(h);
        sim_hist_add(h, 0);
        sim_hist_add(h, v);
        sim_hist_add(h, INT64_MAX);
        assert_close(sim_hist_percentile(h, 50), v);
    }
    free(h);
}

static void test_merge_equals_adding_all(void **state)
{
    (void)state;
    struct sim_hist *a = malloc(sizeof *a), *b = malloc(sizeof *b), *all = malloc(sizeof *all);
    assert_true(a && b && all);
    sim_hist_init(a);
    sim_hist_init(b);
    sim_hist_init(all);
    struct sim_rng_key key = { .scenario_seed = 11 };
    struct sim_rng rng;
    sim_rng_init(&rng, &key);
    for (int i = 0; i < 50000; i++) {
        sim_time_t v = draw(&rng, DIST_LOGUNIFORM);
        sim_hist_add(i % 3 ? a : b, v);
        sim_hist_add(all, v);
    }
    sim_hist_merge(a, b);
    assert_int_equal(a->count, all->count);
    assert_int_equal(a->min_ns, all->min_ns);
    assert_int_equal(a->max_ns, all->max_ns);
    assert_true(fabs(a->sum_ns - all->sum_ns) <= 1e-12 * all->sum_ns);
    assert_memory_equal(a->bucket, all->bucket, sizeof a->bucket);
    for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++)
        assert_true(sim_hist_percentile(a, percentiles[i]) ==
                    sim_hist_percentile(all, percentiles[i]));
    /* Merging an empty histogram changes nothing. */
    sim_hist_init(b);
    sim_hist_merge(a, b);
    assert_int_equal(a->count, all->count);
    assert_int_equal(a->min_ns, all->min_ns);
    sim_rng_destroy(&rng);
    free(a);
    free(b);
    free(all);
}

static void test_empty(void **state)
{
    (void)state;
    struct sim_hist h;
    sim_hist_init(&h);
    assert_int_equal(h.count, 0);
    assert_true(sim_hist_percentile(&h, 50) == 0.0);
    assert_true(sim_hist_percentile(&h, 100) == 0.0);
    assert_true(sim_hist_mean(&h) == 0.0);
}

static void test_zero_and_negative(void **state)
{
    (void)state;
    struct sim_hist h;
    sim_hist_init(&h);
    sim_hist_add(&h, 0);
    sim_hist_add(&h, -5); /* below 1 ns counts as 0 */
    assert_int_equal(h.count, 2);
    assert_int_equal(h.bucket[0], 2);
    assert_int_equal(h.min_ns, 0);
    assert_true(sim_hist_percentile(&h, 1) == 0.0);
    assert_true(sim_hist_percentile(&h, 100) == 0.0);
    assert_true(sim_hist_mean(&h) == 0.0);
}

static void test_very_large(void **state)
{
    (void)state;
    struct sim_hist h;
    sim_hist_init(&h);
    sim_hist_add(&h, 1000);
    sim_hist_add(&h, (sim_time_t)1 << 50);
    sim_hist_add(&h, INT64_MAX);
    assert_int_equal(h.bucket[SIM_HIST_BUCKETS - 1], 2); /* overflow bucket */
    assert_int_equal(h.max_ns, INT64_MAX);
    /* The overflow bucket reports the true maximum. */
    assert_true(sim_hist_percentile(&h, 100) == (double)INT64_MAX);
    assert_close(sim_hist_percentile(&h, 33), 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lognormal),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_exponential),
        cmocka_unit_test(test_loguniform),
        cmocka_unit_test(test_bucket_sweep),
        cmocka_unit_test(test_merge_equals_adding_all),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_zero_and_negative),
        cmocka_unit_test(test_very_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
