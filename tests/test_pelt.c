/* test_pelt: the PELT engine (src/kernel/sched/pelt.c) against the kernel's
 * own numbers (kernel/sched/pelt.c, sched-pelt.h).
 *
 * Why: util and load steer placement, balancing and schedutil; the kernel
 * computes them in fixed point on a 1024 us grid, so the values pmlab shows
 * should be those integers: y^n from the 32-entry table, a halving every 32
 * periods, a signal that saturates at the LOAD_AVG_MAX-derived maximum and
 * averages that only move when a period ends. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "kernel/sched/pelt.h"

#define PERIOD_NS ((sim_time_t)PELT_PERIOD_UNITS << PELT_UNIT_SHIFT)   /* 1,048,576 ns */

/* y^n x 2^32 within one unit of the exact 0.5^(n/32) x 2^32 (the table),
 * y^32 exactly a halving, and the kernel's cut-off after 63 halvings. */
static void test_decay_table(void **state)
{
    (void)state;
    const uint64_t one = (uint64_t)1 << 32;
    for (unsigned n = 0; n < 2 * LOAD_AVG_PERIOD; n++) {
        double exact = ldexp(pow(0.5, n / 32.0), 32);
        double got = (double)pelt_decay_load(one, n);
        assert_true(fabs(got - exact) <= 1.0 + exact * 1e-9);
    }
    assert_int_equal(pelt_decay_load(one, 32), pelt_decay_load(one >> 1, 0));
    assert_int_equal(pelt_decay_load(UINT64_MAX, LOAD_AVG_PERIOD * 63 + 1), 0);
    /* the kernel's values: y^32 of LOAD_AVG_MAX is 23871 x (2^32-1)/2^32 */
    assert_int_equal(pelt_decay_load(LOAD_AVG_MAX, 32), 23870);
    assert_int_equal(pelt_decay_load(1024, 1), 1002);   /* runnable_avg_yN_sum[1] */
}

/* Values above 2^32 keep their top bits (mul_u64_u32_shr): a runqueue's
 * load_sum holds nr_running x 1024 x LOAD_AVG_MAX. */
static void test_decay_wide(void **state)
{
    (void)state;
    uint64_t big = (uint64_t)1000 * 1024 * LOAD_AVG_MAX;
    /* y^32 = (1/2) x (2^32 - 1) / 2^32: x - ceil(x / 2^32) of the halved x */
    uint64_t half = big >> 1;
    assert_int_equal(pelt_decay_load(big, 32), half - ((half + 0xffffffffu) >> 32));
}

/* Full periods contribute 1024 x sum y^k: one full period between d1 and
 * d3 gives d1 y^2 + 1024 y + d3 (in the kernel's rounding), and very long runs reach LOAD_AVG_MAX. */
static void test_segments(void **state)
{
    (void)state;
    assert_int_equal(pelt_accumulate_segments(1, 0, 0), 0);
    /* 1024 y = 1002.0, but the kernel's c2 = LOAD_AVG_MAX - LOAD_AVG_MAX y^2
     * - 1024 rounds to 1001 (45717 for the decayed maximum) */
    assert_int_equal(pelt_decay_load(LOAD_AVG_MAX, 2), 45717);
    assert_int_equal(pelt_accumulate_segments(2, 0, 0), 1001);
    assert_int_equal(pelt_accumulate_segments(2, 1024, 0), pelt_decay_load(1024, 2) + 1001);
    uint32_t all = pelt_accumulate_segments(LOAD_AVG_PERIOD * 64, 0, 1024);
    assert_true(all >= LOAD_AVG_MAX - 2 && all <= LOAD_AVG_MAX);
}

/* A CPU that always runs converges to the kernel's maximum: util_sum at
 * most 1024 x LOAD_AVG_MAX, util_avg within a few units of 1024 and never
 * above it (util_avg = util_sum / divider). */
static void test_converges(void **state)
{
    (void)state;
    struct sched_avg sa = { 0 };
    for (sim_time_t t = 0; t <= 2 * 1000 * 1000 * 1000; t += 997 * 1000)
        pelt_update_load_avg(&sa, t, 1024, true, 1);
    assert_true(sa.util_sum <= 1024u * LOAD_AVG_MAX);
    assert_true(sa.util_avg >= 1020 && sa.util_avg <= 1024);
    assert_true(sa.load_avg >= 1020 && sa.load_avg <= 1024);
}

/* Half-life: 32 idle periods (33.55 ms, not 32 ms) halve the signal. */
static void test_half_life(void **state)
{
    (void)state;
    struct sched_avg sa = { 0 };
    pelt_update_load_avg(&sa, 4 * 1000 * 1000 * 1000LL, 1024, true, 1);
    sim_time_t t0 = sa.last_update_ns;
    unsigned long u0 = sa.util_avg;
    struct sched_avg half = pelt_avg_at(&sa, t0 + 32 * PERIOD_NS, 0, false, 1);
    assert_true(labs((long)half.util_avg - (long)u0 / 2) <= 1);
    /* a millisecond short of 32 periods, more than half is left */
    struct sched_avg early = pelt_avg_at(&sa, t0 + 32 * PERIOD_NS - 1000 * 1000, 0, false, 1);
    assert_true(early.util_avg > u0 / 2 + 5);
}

/* Averages move only when a 1024 x 1024 ns period ends: 1 ns before the
 * boundary they are as they were, at it they decay. */
static void test_period_boundary(void **state)
{
    (void)state;
    struct sched_avg sa = { 0 };
    pelt_update_load_avg(&sa, 100 * PERIOD_NS, 1024, true, 1);   /* on a boundary */
    assert_int_equal(sa.period_contrib, 0);
    unsigned long u0 = sa.util_avg;
    assert_true(u0 > 0);
    struct sched_avg before = pelt_avg_at(&sa, 101 * PERIOD_NS - 1, 0, false, 1);
    assert_int_equal(before.util_avg, u0);
    assert_false(pelt_period_ended(&sa, 101 * PERIOD_NS - 1));
    assert_true(pelt_period_ended(&sa, 101 * PERIOD_NS));
    struct sched_avg after = pelt_avg_at(&sa, 101 * PERIOD_NS, 0, false, 1);
    /* one period decayed, none of the next one summed: divider is the minimum */
    assert_int_equal(after.util_avg, pelt_decay_load(sa.util_sum, 1) / PELT_MIN_DIVIDER);
    assert_true(after.util_avg < u0);
    /* the update itself: no change within the period, a change at its end */
    struct sched_avg upd = sa;
    assert_false(pelt_update_load_avg(&upd, 101 * PERIOD_NS - 1, 0, false, 1));
    assert_int_equal(upd.util_avg, u0);
    assert_true(pelt_update_load_avg(&upd, 101 * PERIOD_NS, 0, false, 1));
    assert_int_equal(upd.util_avg, after.util_avg);
}

/* Time is summed in 1024 ns units: the remainder waits for the next update
 * (last_update_time advances by whole units only). */
static void test_unit_grid(void **state)
{
    (void)state;
    struct sched_avg sa = { 0 };
    assert_false(pelt_update_load_avg(&sa, 1023, 1024, true, 1));
    assert_int_equal(sa.last_update_ns, 0);
    pelt_update_load_avg(&sa, 3000, 1024, true, 1);
    assert_int_equal(sa.last_update_ns, 2048);
    assert_int_equal(sa.period_contrib, 2);
    assert_int_equal(sa.util_sum, 2 * 1024);
}

/* load_avg = weight x load_sum / divider, whether that product fits in 32
 * bits (a task, or a runqueue of a few tasks) or not (200 tasks queued):
 * the quotient is the 64-bit division's. */
static void test_load_avg_wide(void **state)
{
    (void)state;
    struct sched_avg rq = { 0 }, se = { 0 };
    for (sim_time_t t = 0; t <= 1000 * 1000 * 1000; t += 997 * 1000) {
        pelt_update_load_avg(&rq, t, 200 * 1024, true, 1);
        pelt_update_load_avg(&se, t, 1, true, 1024);
    }
    assert_true(rq.load_sum > UINT32_MAX);
    assert_int_equal(rq.load_avg, rq.load_sum / pelt_divider(&rq));
    assert_true(rq.load_avg >= 200 * 1020 && rq.load_avg <= 200 * 1030);
    assert_true(1024 * se.load_sum <= UINT32_MAX);
    assert_int_equal(se.load_avg, 1024 * se.load_sum / pelt_divider(&se));
    assert_true(se.load_avg >= 1020 && se.load_avg <= 1024);
}

/* attach: sums from averages on the runqueue's grid. */
static void test_attach(void **state)
{
    (void)state;
    struct sched_avg rq = { .last_update_ns = 5 * PERIOD_NS + 3072, .period_contrib = 3 };
    struct sched_avg se = { .util_avg = 300, .load_avg = 1024 };
    pelt_attach(&se, &rq, 1024);
    assert_int_equal(se.last_update_ns, rq.last_update_ns);
    assert_int_equal(se.period_contrib, 3);
    assert_int_equal(se.util_sum, 300 * (PELT_MIN_DIVIDER + 3));
    assert_int_equal(se.load_sum, PELT_MIN_DIVIDER + 3);
}

/* ---- the invariant clock (struct pelt_clock) --------------------------------- */

/* A runqueue whose one task runs or not (running) from now on, its signal
 * on rq_clock_pelt; cap and freq (1024ths) are those of the step just ended. */
struct rq_sim {
    struct pelt_clock c;
    struct sched_avg a;
    bool running;
};

static void rq_step(struct rq_sim *r, sim_time_t now_ns, bool running, unsigned cap, unsigned freq)
{
    pelt_clock_update(&r->c, now_ns, r->running, cap, freq);
    pelt_update_load_avg(&r->a, rq_clock_pelt(&r->c), r->running, r->running, 1);
    if (r->running && !running)
        pelt_clock_enter_idle(&r->c, now_ns, r->a.util_sum);
    r->running = running;
}

/* The clock runs at capacity x f/fmax while busy: 64 periods of running at
 * fmax/2, or on a CPU of capacity 512, give what 32 periods at fmax give,
 * to the unit: ~512, where the plain signal would be ~768; at fmax on a
 * full-capacity CPU the signal climbs to 1024 as before. */
static void test_invariant_scaling(void **state)
{
    (void)state;
    struct rq_sim half_f = { .running = true }, half_cap = { .running = true },
                  full = { .running = true };
    rq_step(&half_f, 64 * PERIOD_NS, true, 1024, 512);
    rq_step(&half_cap, 64 * PERIOD_NS, true, 512, 1024);
    rq_step(&full, 32 * PERIOD_NS, true, 1024, 1024);
    assert_int_equal(rq_clock_pelt(&half_f.c), 32 * PERIOD_NS);
    assert_in_range(full.a.util_avg, 511, 513);
    assert_int_equal(half_f.a.util_avg, full.a.util_avg);
    assert_int_equal(half_cap.a.util_avg, full.a.util_avg);
    struct rq_sim quarter = { .running = true };   /* capacity 512 at fmax/2 */
    rq_step(&quarter, 128 * PERIOD_NS, true, 512, 512);
    assert_int_equal(quarter.a.util_avg, full.a.util_avg);
    rq_step(&full, 1000 * PERIOD_NS, true, 1024, 1024);
    assert_true(full.a.util_avg >= 1020);
}

/* The same work, the same util: 10 ms of running at fmax/2 then 10 ms idle,
 * 50 times, leaves the signal 5 ms at fmax then 15 ms idle leaves, exactly
 * (the clock's lag is decayed as idle time), ~256; the plain signal of
 * 10 ms busy in 20 would be ~512. */
static void test_invariant_duty_cycle(void **state)
{
    (void)state;
    const sim_time_t ms = 1000000;
    struct rq_sim slow = { 0 }, fast = { 0 }, plain = { 0 };
    for (int k = 0; k < 50; k++) {
        sim_time_t t0 = k * 20 * ms;
        rq_step(&slow, t0, true, 1024, 512);
        rq_step(&fast, t0, true, 1024, 1024);
        rq_step(&plain, t0, true, 1024, 1024);
        rq_step(&slow, t0 + 10 * ms, false, 1024, 512);
        rq_step(&fast, t0 + 5 * ms, false, 1024, 1024);
        rq_step(&plain, t0 + 10 * ms, false, 1024, 1024);
    }
    rq_step(&slow, 1000 * ms, false, 1024, 512);
    rq_step(&fast, 1000 * ms, false, 1024, 1024);
    rq_step(&plain, 1000 * ms, false, 1024, 1024);
    assert_int_equal(slow.a.util_avg, fast.a.util_avg);
    assert_int_equal(slow.a.util_sum, fast.a.util_sum);
    assert_in_range(slow.a.util_avg, 200, 300);
    assert_in_range(plain.a.util_avg, 430, 530);
    assert_int_equal(slow.c.lost_idle_ns, 0);
}

/* Idle decays on the real clock: 64 periods at fmax/2 (~512, a 32-period
 * lag) then 32 periods idle: 64 periods of decay since the running ended in
 * PELT time, a quarter, ~128. */
static void test_invariant_idle_decay(void **state)
{
    (void)state;
    struct rq_sim r = { .running = true };
    rq_step(&r, 64 * PERIOD_NS, false, 1024, 512);
    assert_in_range(r.a.util_avg, 511, 513);
    assert_int_equal(r.c.lost_idle_ns, 0);
    rq_step(&r, 96 * PERIOD_NS, false, 1024, 512);
    assert_in_range(r.a.util_avg, 127, 129);
}

/* lost_idle_time: a CPU that never idles at fmax/4 still fills its signal;
 * when it idles with a full util_sum, the clock's 3 s lag is not idle time
 * (2 periods later the signal has lost only those periods' ~4 %), and
 * idle time after that decays as usual. */
static void test_invariant_lost_idle(void **state)
{
    (void)state;
    const sim_time_t ms = 1000000;
    struct rq_sim r = { .running = true };
    rq_step(&r, 4000 * ms, false, 1024, 256);
    assert_true(r.a.util_avg >= 1020);
    assert_int_equal(r.c.lost_idle_ns, 3000 * ms);
    assert_int_equal(rq_clock_pelt(&r.c), 1000 * ms);
    rq_step(&r, 4000 * ms + 2 * PERIOD_NS, false, 1024, 256);
    assert_true(r.a.util_avg >= 950);   /* two periods' decay, not 3 s */
    unsigned long before = r.a.util_avg;
    rq_step(&r, 4000 * ms + 34 * PERIOD_NS, false, 1024, 256);
    assert_in_range(r.a.util_avg, before / 2 - 2, before / 2 + 1);
}

/* pelt_clock_reach_ns is the exact inverse of pelt_clock_at: at the time
 * it returns the clock has reached the target and one ns earlier it had
 * not, for running clocks at any capacity and frequency scale (both
 * truncating steps), idle clocks with lost idle time, and targets already
 * reached (now). A random walk over 20,000 clocks. */
static void test_clock_reach_exact(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        struct pelt_clock c = { .clock_pelt_ns = (sim_time_t)(x >> 44),
                                .lost_idle_ns = (sim_time_t)((x >> 20) & 0xffff) * (i & 1) };
        c.last_update_ns = c.clock_pelt_ns + (sim_time_t)((x >> 8) & 0xfffff);
        sim_time_t now = c.last_update_ns + (sim_time_t)((x >> 30) & 0x3ffff);
        bool running = (x >> 3) & 1;
        unsigned cap = 1 + (unsigned)((x >> 12) % 1024), f = 1 + (unsigned)((x >> 24) % 1024);
        sim_time_t target = rq_clock_pelt(&c) + (sim_time_t)((x >> 40) % 3000000) - 1000;
        sim_time_t t = pelt_clock_reach_ns(&c, now, running, cap, f, target);
        assert_true(t >= now);
        assert_true(pelt_clock_at(&c, t, running, cap, f) >= target);
        if (t > now)
            assert_true(pelt_clock_at(&c, t - 1, running, cap, f) < target);
    }
    /* a zero frequency scale never gets there */
    struct pelt_clock c = pelt_clock_new(0);
    assert_true(pelt_clock_reach_ns(&c, 10, true, 1024, 0, 1000000) == INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decay_table),
        cmocka_unit_test(test_decay_wide),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_converges),
        cmocka_unit_test(test_half_life),
        cmocka_unit_test(test_period_boundary),
        cmocka_unit_test(test_unit_grid),
        cmocka_unit_test(test_attach),
        cmocka_unit_test(test_load_avg_wide),
        cmocka_unit_test(test_invariant_scaling),
        cmocka_unit_test(test_invariant_duty_cycle),
        cmocka_unit_test(test_invariant_idle_decay),
        cmocka_unit_test(test_invariant_lost_idle),
        cmocka_unit_test(test_clock_reach_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
