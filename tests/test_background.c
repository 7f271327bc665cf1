/* The machine's background (FACTS-3.md §1-3): the timer wheel's rounding,
 * hrtimer ranges, deferrable timers, slack coalescing with the tick, the
 * wake-up chains background interrupts start, and remote wake-ups of
 * MWAIT-idle CPUs without an IPI. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/time/hrtimer.h"
#include "kernel/time/timer.h"
#include "world_fixture.h"

#define MS SIM_NS_PER_MS
#define US SIM_NS_PER_US

/* calc_wheel_index: level 0 (under 63 jiffies) fires one jiffy after the
 * requested one; level 1 (63..503) rounds up to the next multiple of 8,
 * level 2 (504..4031) of 64, always strictly after the requested jiffy. */
static void test_wheel_bucket_expiry(void **state)
{
    (void)state;
    assert_int_equal(timer_wheel_bucket_expiry(0, 10, 1000), 11);
    assert_int_equal(timer_wheel_bucket_expiry(0, 62, 1000), 63);
    assert_int_equal(timer_wheel_bucket_expiry(0, 63, 1000), 64);
    assert_int_equal(timer_wheel_bucket_expiry(0, 100, 1000), 104);
    assert_int_equal(timer_wheel_bucket_expiry(0, 104, 1000), 112);
    assert_int_equal(timer_wheel_bucket_expiry(0, 600, 1000), 640);
    /* The level follows the distance from the base clock, not the expiry. */
    assert_int_equal(timer_wheel_bucket_expiry(1000, 1010, 1000), 1011);
    /* Past expiries go to the current bucket. */
    assert_int_equal(timer_wheel_bucket_expiry(50, 40, 1000), 50);
    /* Beyond the last level: capped at WHEEL_TIMEOUT_MAX (HZ=100: 8 levels,
     * cutoff 63 << 21, last granularity 1 << 21). */
    uint64_t cap = (63ull << 21) - (1ull << 21);
    assert_int_equal(timer_wheel_bucket_expiry(0, 1ull << 40, 100), ((cap >> 21) + 1) << 21);
    assert_int_equal(timer_wheel_depth(100), 8);
    assert_int_equal(timer_wheel_depth(250), 9);
}

/* A 118 ms timeout armed at 2.5 ms with HZ=1000: jiffy 2 + 118 = 120 is 118
 * jiffies away (level 1), so it fires at jiffy 128: 128 ms. At HZ=250 the
 * same timeout is 30 jiffies (level 0): jiffy 0 + 30, fired at 31 = 124 ms. */
static void test_wheel_expiry_ns(void **state)
{
    (void)state;
    assert_int_equal(timer_wheel_expiry_ns(2500 * US, 118 * MS, MS, 1000), 128 * MS);
    assert_int_equal(timer_wheel_expiry_ns(2500 * US, 118 * MS, 4 * MS, 250), 124 * MS);
}

static void test_hrtimer_range(void **state)
{
    (void)state;
    struct hrtimer_range r = hrtimer_range(10 * MS, HRTIMER_DEFAULT_SLACK_NS);
    assert_int_equal(r.soft_ns, 10 * MS);
    assert_int_equal(r.hard_ns, 10 * MS + 50 * US);
    assert_false(hrtimer_expired_by(&r, 10 * MS - 1));
    assert_true(hrtimer_expired_by(&r, 10 * MS + 20 * US));
    r = hrtimer_range(5 * MS, -3);
    assert_int_equal(r.hard_ns, 5 * MS);
}

/* An idle skx-2s with no housekeeping timers on cpu 4, which idles with its
 * tick stopped; cpu 4's deferrable timer (1 Hz) expires at some point in
 * the first second, but nothing wakes the CPU for it: it waits. */
static void test_deferrable_waits_for_a_wakeup(void **state)
{
    (void)state;
    const struct hw_calib calib[] = { { "bg_deferrable_hz", 1 } };
    struct fx *f = fx_new_calib(NULL, NULL, calib, 1);
    for (int cpu = 0; cpu < f->m->ncpus; cpu++)
        idle_set_irq_rates(&f->w, cpu, 0, 0);
    world_run_until(&f->w, 1500 * MS);
    const struct idle_cpu *ic = &f->w.idle.cpu[4];
    assert_true(ic->tick_stopped);
    assert_true(ic->defer_pending);
    assert_int_equal(ic->nr_deferred_runs, 0);
    uint64_t wakes = ic->nr_wake[IDLE_WAKE_TICK] + ic->nr_wake[IDLE_WAKE_TIMER];
    /* A device interrupt wakes it: the deferrable timer runs then. */
    idle_set_irq_rates(&f->w, 4, 0, 1000);
    world_run_until(&f->w, 1600 * MS);
    assert_false(ic->defer_pending);
    assert_true(ic->nr_deferred_runs >= 1);
    assert_int_equal(ic->nr_wake[IDLE_WAKE_TICK] + ic->nr_wake[IDLE_WAKE_TIMER], wakes);
    fx_free(f);
}

/* A busy CPU runs its deferrable timer when it expires. */
static void test_deferrable_runs_on_busy_cpu(void **state)
{
    (void)state;
    const struct hw_calib calib[] = { { "bg_deferrable_hz", 10 } };
    struct fx *f = fx_new_calib(NULL, NULL, calib, 1);
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 3);
    task_set_affinity(&p.t, 3);
    sched_wake_task(&f->w, &p.t, 500.0 * MS, 3);
    world_run_until(&f->w, 400 * MS);
    const struct idle_cpu *ic = &f->w.idle.cpu[3];
    /* 10 Hz for ~0.4 s busy, first phase anywhere in the first 100 ms. */
    assert_true(ic->nr_deferred_runs >= 3 && ic->nr_deferred_runs <= 4);
    assert_false(ic->defer_pending);
    fx_free(f);
}

/* nohz=off keeps the tick on every idle CPU; housekeeping hrtimers with a
 * 4 ms slack (one tick at HZ=250) mostly ride on a tick: they expire at the
 * tick's interrupt, with no interrupt of their own. Without slack, none do. */
static uint64_t coalesced_with_slack(double slack_ns, uint64_t *timer_irqs)
{
    const struct hw_calib calib[] = { { "bg_timer_slack_ns", slack_ns } };
    struct fx *f = fx_new_calib("nohz=off", NULL, calib, 1);
    world_run_until(&f->w, 2000 * MS);
    uint64_t c = 0, t = 0;
    for (int cpu = 0; cpu < f->m->ncpus; cpu++) {
        c += f->w.idle.cpu[cpu].nr_coalesced;
        t += f->w.idle.cpu[cpu].nr_timer_irqs;
    }
    *timer_irqs = t;
    fx_free(f);
    return c;
}

static void test_slack_coalesces_with_tick(void **state)
{
    (void)state;
    uint64_t irqs_slack, irqs_exact;
    uint64_t c_slack = coalesced_with_slack(4.0 * MS, &irqs_slack);
    uint64_t c_exact = coalesced_with_slack(0, &irqs_exact);
    assert_int_equal(c_exact, 0);
    assert_true(c_slack > 0);
    /* Nearly every one: a timer's slack of one tick always holds a tick. */
    assert_true(c_slack > 10 * irqs_slack);
}

/* The wake-up chain: with every background interrupt waking its CPU's
 * thread and 3 hand-offs per chain on average, an idle machine has about
 * (1 + 3) idle entries per housekeeping timer, the chains' wake-ups of
 * other CPUs need no IPI (the targets wait in MWAIT), and the threads'
 * runs show up as busy time. */
static void test_wakeup_chain(void **state)
{
    (void)state;
    const struct hw_calib calib[] = {
        { "bg_wake_share", 1 }, { "bg_msgs_per_irq", 3 }, { "bg_run_ns", 20000 },
    };
    struct fx *f = fx_new_calib(NULL, NULL, calib, 3);
    for (int cpu = 0; cpu < f->m->ncpus; cpu++)
        idle_set_irq_rates(&f->w, cpu, 50, 0);
    world_run_until(&f->w, 500 * MS);
    world_measure_reset(&f->w);
    world_run_until(&f->w, 4500 * MS);
    double chains = fx_metric(f, "bg_chains_per_s");
    double wakeups = fx_metric(f, "bg_wakeups_per_s");
    assert_true(chains > 45 && chains < 55);
    /* 1 + 3 wake-ups a chain, fewer when the peer is already awake. */
    assert_true(wakeups > 3.5 * chains && wakeups < 4.1 * chains);
    uint64_t entries = 0, timers = 0, ipis = 0;
    for (int cpu = 0; cpu < f->m->ncpus; cpu++) {
        entries += f->w.idle.cpu[cpu].nr_entries;
        timers += f->w.idle.cpu[cpu].nr_timer_irqs;
        ipis += f->w.idle.cpu[cpu].nr_ipis;
    }
    assert_true((double)entries > 3.3 * (double)timers);
    assert_int_equal(ipis, 0);
    /* ~4 runs of 20 us per chain at 50 chains/s: 0.4 % busy; at most ~1 %
     * with a C6 exit's cache refill (28 us) and the wake-up path (~3 us)
     * added to each run. */
    double busy = fx_metric(f, "busy_pct");
    assert_true(busy > 0.35 && busy < 1.0);
    fx_free(f);
}

/* bg_wake_share 0: no chains; the same interrupts give one entry each. */
static void test_wakeup_chain_off(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    for (int cpu = 0; cpu < f->m->ncpus; cpu++)
        idle_set_irq_rates(&f->w, cpu, 50, 0);
    world_run_until(&f->w, 2000 * MS);
    assert_int_equal(f->w.wchain.nr_chains, 0);
    assert_true(fx_metric(f, "bg_wakeups_per_s") == 0);
    fx_free(f);
}

/* A task woken onto a CPU that halts (idle=halt: default_idle's HLT clears
 * TIF_POLLING_NRFLAG) needs the IPI; onto one in an intel_idle MWAIT
 * state it does not. */
static uint64_t ipis_for_remote_wakeup(const char *cmdline)
{
    struct fx *f = fx_new(cmdline, NULL);
    world_run_until(&f->w, 50 * MS);
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 5);
    task_set_affinity(&p.t, 5);
    sched_wake_task(&f->w, &p.t, 10.0 * US, 0);
    world_run_until(&f->w, 60 * MS);
    assert_true(p.done_ns > 0);
    uint64_t n = f->w.idle.cpu[5].nr_ipis;
    fx_free(f);
    return n;
}

static void test_remote_wakeup_ipi_rule(void **state)
{
    (void)state;
    assert_int_equal(ipis_for_remote_wakeup(NULL), 0);
    assert_int_equal(ipis_for_remote_wakeup("idle=halt"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wheel_bucket_expiry),
        cmocka_unit_test(test_wheel_expiry_ns),
        cmocka_unit_test(test_hrtimer_range),
        cmocka_unit_test(test_deferrable_waits_for_a_wakeup),
        cmocka_unit_test(test_deferrable_runs_on_busy_cpu),
        cmocka_unit_test(test_slack_coalesces_with_tick),
        cmocka_unit_test(test_wakeup_chain),
        cmocka_unit_test(test_wakeup_chain_off),
        cmocka_unit_test(test_remote_wakeup_ipi_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
