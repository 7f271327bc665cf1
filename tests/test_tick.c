/* The tick and the sleep length (FACTS-2.md §1): tick_nohz_get_sleep_length
 * rules, and the idle loop on a simulated machine stopping the tick when the
 * next timer is far (never with nohz=off), menu's tick-wakeup rule and teo's
 * tick_intercepts taking part in a run. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/cpuidle/governors/gov.h"
#include "kernel/time/tick_sched.h"
#include "world_fixture.h"

#define TICK_NS 4000000 /* HZ=250 */

static int64_t sleep_len(int64_t now, int64_t timer, bool can_stop, bool stopped, int64_t *next)
{
    struct tick_sched_view v = { .now_ns = now, .tick_period_ns = TICK_NS, .next_timer_ns = timer,
                                 .can_stop_tick = can_stop, .tick_stopped = stopped };
    return tick_nohz_get_sleep_length(&v, next);
}

/* Tick running, timer far: the governor sees the timer, delta_next the tick. */
static void test_sleep_length_sees_past_tick(void **state)
{
    (void)state;
    int64_t next;
    assert_int_equal(sleep_len(1000000, 50000000, true, false, &next), 49000000);
    assert_int_equal(next, 3000000);
}

/* nohz=off: both are the nearer of tick and timer. */
static void test_sleep_length_nohz_off(void **state)
{
    (void)state;
    int64_t next;
    assert_int_equal(sleep_len(1000000, 50000000, false, false, &next), 3000000);
    assert_int_equal(next, 3000000);
    assert_int_equal(sleep_len(1000000, 2000000, false, false, &next), 1000000);
    assert_int_equal(next, 1000000);
}

/* A timer within one tick of the last jiffy is left to the running tick:
 * delta_next is returned (timers at 6.5 and 8 ms are within 4 ms of the
 * jiffy at 4 ms; one at 8.5 ms is not, and the governor sees it). */
static void test_sleep_length_timer_within_tick(void **state)
{
    (void)state;
    int64_t next;
    assert_int_equal(sleep_len(5000000, 6500000, true, false, &next), 1500000);
    assert_int_equal(next, 1500000);
    assert_int_equal(sleep_len(5000000, 8500000, true, false, &next), 3500000);
    assert_int_equal(next, 3000000);
    assert_int_equal(sleep_len(5000000, 8000000, true, false, &next), 3000000);
    assert_int_equal(next, 3000000);
}

/* Tick stopped: the device holds the timer; both are the timer. */
static void test_sleep_length_tick_stopped(void **state)
{
    (void)state;
    int64_t next;
    assert_int_equal(sleep_len(5000000, 6500000, true, true, &next), 1500000);
    assert_int_equal(next, 1500000);
    assert_int_equal(sleep_len(5000000, 90000000, true, true, &next), 85000000);
    assert_int_equal(next, 85000000);
}

/* A timer already due gives 0, never a negative length. */
static void test_sleep_length_never_negative(void **state)
{
    (void)state;
    int64_t next;
    assert_int_equal(sleep_len(5000000, 4000000, true, true, &next), 0);
    assert_int_equal(next, 0);
}

static double idle_machine_tick_stopped_pct(const char *cmdline)
{
    struct fx *f = fx_new(cmdline, NULL);
    world_run_until(&f->w, 100 * SIM_NS_PER_MS);
    world_measure_reset(&f->w);
    world_run_until(&f->w, 2 * SIM_NS_PER_S);
    double pct = fx_metric(f, "tick_stopped_pct");
    fx_free(f);
    return pct;
}

/* tick_nohz_next_event's rule: a running tick is kept when the next timer
 * is due within one tick of the last jiffy (the tick serves it); a timer
 * further away lets it stop; a stopped tick stays stopped. */
static void test_tick_retained_for_near_timer(void **state)
{
    (void)state;
    assert_true(tick_nohz_retains_tick(5000000, TICK_NS, 7000000, false));
    assert_true(tick_nohz_retains_tick(5000000, TICK_NS, 8000000, false));
    assert_false(tick_nohz_retains_tick(5000000, TICK_NS, 8000001, false));
    assert_false(tick_nohz_retains_tick(5000000, TICK_NS, 7000000, true));
    assert_false(tick_nohz_retains_tick(5000000, TICK_NS, INT64_MAX, false));
}

/* The idle loop applies it: default_idle (cpuidle.off=1) asks to stop the
 * tick on every entry, but with the workload's next timer 1 ms away the
 * tick keeps running; 20 ms away it stops. */
static bool tick_stopped_with_timer_in(sim_time_t timer_in_ns)
{
    struct fx *f = fx_new("cpuidle.off=1", NULL);
    world_run_until(&f->w, 10 * SIM_NS_PER_MS + 100 * SIM_NS_PER_US);
    struct probe p;
    task_init(&p.t, probe_done, 3);
    task_set_affinity(&p.t, 3);
    idle_set_wl_timer(&f->w, 3, f->w.q.now_ns + timer_in_ns);
    sched_wake_task(&f->w, &p.t, 1000, 3);
    world_run_until(&f->w, f->w.q.now_ns + 500 * SIM_NS_PER_US);
    assert_true(p.done_ns > 0 && f->w.idle.cpu[3].in_idle);
    bool stopped = f->w.idle.cpu[3].tick_stopped;
    fx_free(f);
    return stopped;
}

static void test_idle_loop_keeps_tick_for_near_timer(void **state)
{
    (void)state;
    assert_false(tick_stopped_with_timer_in(1 * SIM_NS_PER_MS));
    assert_true(tick_stopped_with_timer_in(20 * SIM_NS_PER_MS));
}

/* An idle machine's only wakeups are housekeeping timers ~118 ms apart: on a
 * nohz kernel almost every idle entry stops the tick, with either governor;
 * with nohz=off none does, and the tick wakes each CPU every period. */
static void test_idle_machine_stops_tick(void **state)
{
    (void)state;
    assert_true(idle_machine_tick_stopped_pct(NULL) > 90);
    assert_true(idle_machine_tick_stopped_pct("cpuidle.governor=teo") > 90);
    assert_float_equal(idle_machine_tick_stopped_pct("nohz=off"), 0, 0);
    struct fx *f = fx_new("nohz=off", NULL);
    world_run_until(&f->w, 100 * SIM_NS_PER_MS);
    /* 25 ticks at 250 Hz, each a wakeup, plus a timer or two. */
    assert_true(f->w.idle.cpu[3].nr_wake[IDLE_WAKE_TICK] >= 24);
    fx_free(f);
}

/* A task pinned to one CPU, woken every period_ns for work_ns, until stop_ns. */
struct ticker {
    struct probe p;
    struct sim_event ev;
    struct world *w;
    sim_time_t period_ns, stop_ns;
    double work_ns;
};

static void ticker_fire(struct sim_event *ev, void *arg)
{
    struct ticker *k = (struct ticker *)((char *)ev - offsetof(struct ticker, ev));
    struct world *w = arg;
    if (k->p.t.cpu < 0)
        sched_wake_task(w, &k->p.t, k->work_ns, k->p.t.prev_cpu);
    if (w->q.now_ns + k->period_ns < k->stop_ns)
        sim_event_schedule(&w->q, &k->ev, w->q.now_ns + k->period_ns);
}

static void ticker_start(struct fx *f, struct ticker *k, int cpu, sim_time_t period_ns,
                         sim_time_t stop_ns)
{
    memset(k, 0, sizeof *k);
    task_init(&k->p.t, probe_done, cpu);
    task_set_affinity(&k->p.t, cpu);
    k->period_ns = period_ns;
    k->stop_ns = stop_ns;
    k->work_ns = 5000;
    sim_event_init(&k->ev, ticker_fire);
    sim_event_schedule(&f->w.q, &k->ev, f->w.q.now_ns + period_ns);
}

/* menu: 100 us wakeups for 20 ms teach it short idles, so it keeps the tick.
 * When they stop, the tick wakes the CPU while the timer is far away; each
 * such wakeup counts as a 45 ms idle (the tick-wakeup rule), the history
 * stops agreeing and menu lets the tick stop. */
static void test_menu_tick_wakeup_rule(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct ticker k;
    ticker_start(f, &k, 2, 100 * SIM_NS_PER_US, 20 * SIM_NS_PER_MS);
    world_run_until(&f->w, 20 * SIM_NS_PER_MS);
    assert_false(f->w.idle.cpu[2].tick_stopped);
    uint64_t ticks0 = f->w.idle.cpu[2].nr_wake[IDLE_WAKE_TICK];
    world_run_until(&f->w, 100 * SIM_NS_PER_MS);
    const struct menu_device *md = f->w.idle.dev[2].governor_data;
    int long_samples = 0;
    for (int i = 0; i < MENU_INTERVALS; i++)
        long_samples += md->intervals_us[i] == 45000;
    assert_true(long_samples >= 1);
    assert_true(f->w.idle.cpu[2].tick_stopped);
    /* A handful of tick wakeups, not one every 4 ms for 80 ms. */
    assert_true(f->w.idle.cpu[2].nr_wake[IDLE_WAKE_TICK] - ticks0 <= 10);
    fx_free(f);
}

/* teo on adl-desktop at HZ=1000: wakeups every 1.5 ms with the next timer far
 * away are intercepts at least a tick long (timer bin C10, duration bin C8):
 * tick_intercepts builds up. */
static void test_teo_tick_intercepts(void **state)
{
    (void)state;
    struct fx *f = fx_new_machine("machines/adl-desktop.ini", "CONFIG_HZ=1000",
                                  "cpuidle.governor=teo", NULL, NULL, 0);
    struct ticker k;
    ticker_start(f, &k, 4, 1500 * SIM_NS_PER_US, 60 * SIM_NS_PER_MS);
    world_run_until(&f->w, 60 * SIM_NS_PER_MS);
    const struct teo_cpu *tc = f->w.idle.dev[4].governor_data;
    assert_true(tc->tick_intercepts > tc->total / 2);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_length_sees_past_tick),
        cmocka_unit_test(test_sleep_length_nohz_off),
        cmocka_unit_test(test_sleep_length_timer_within_tick),
        cmocka_unit_test(test_sleep_length_tick_stopped),
        cmocka_unit_test(test_sleep_length_never_negative),
        cmocka_unit_test(test_tick_retained_for_near_timer),
        cmocka_unit_test(test_idle_loop_keeps_tick_for_near_timer),
        cmocka_unit_test(test_idle_machine_stops_tick),
        cmocka_unit_test(test_menu_tick_wakeup_rule),
        cmocka_unit_test(test_teo_tick_intercepts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
