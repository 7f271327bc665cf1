/* test_governors: replays of scripted idle periods through menu, teo and
 * ladder, one test per documented rule (FACTS.md §3), and the core's POLL
 * time limit that the governors' POLL choices run into (FACTS-2.md §2).
 *
 * The harness plays the core's part exactly as kernel/sched/idle.c does it:
 * fill the device (timer distance, time to the tick, tick state, latency
 * limit), call select(), account the period with cpuidle_account() (a scripted
 * residency), set what ended it (tick, POLL time limit) and call reflect(). A
 * period the driver rejected gets no reflect(), as in the kernel.
 *
 * Every expected number below is worked out by hand in the comment next to
 * it, from the rules in the governor files; tests assert exact indices,
 * stop_tick values and the governors' statistics (gov.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/governors/gov.h"
#include "kernel/kversion.h"

extern const struct cpuidle_governor menu_governor, teo_governor, ladder_governor;

#define US 1000LL
#define MS 1000000LL
#define NO_LIMIT INT64_MAX

/* ---- driver tables ---- */

static void drv_add(struct cpuidle_driver *drv, const char *name, int64_t lat_us,
                    int64_t res_us, unsigned flags)
{
    struct cpuidle_state *s = &drv->states[drv->state_count++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->exit_latency_ns = lat_us * US;
    s->target_residency_ns = res_us * US;
    s->flags = flags;
    s->enter = CPUIDLE_ENTER_MWAIT;
}

struct state_spec {
    const char *name;
    int64_t lat_us, res_us;
    unsigned flags;
};

/* POLL, then n states. */
static void drv_poll_table(struct cpuidle_driver *drv, const struct state_spec *spec, int n)
{
    cpuidle_poll_state_init(drv);
    drv->state_count = 1;
    for (int i = 0; i < n; i++)
        drv_add(drv, spec[i].name, spec[i].lat_us, spec[i].res_us, spec[i].flags);
}

#define TLB CPUIDLE_FLAG_TLB_FLUSHED /* FACTS.md §1 tables' abbreviation */

/* SKX (FACTS.md §1): POLL, C1 2/2, C1E 10/20, C6 133/600 µs. */
static void skx_table(struct cpuidle_driver *drv)
{
    static const struct state_spec skx[] = { { "C1", 2, 2, 0 }, { "C1E", 10, 20, 0 },
                                             { "C6", 133, 600, TLB } };
    drv_poll_table(drv, skx, 3);
}

/* ADL desktop as the kernel registers it (C1 is UNUSABLE, so absent):
 * POLL, C1E 2/4, C6 220/600, C8 280/800, C10 680/2000 µs. */
static void adl_table(struct cpuidle_driver *drv)
{
    static const struct state_spec adl[] = { { "C1E", 2, 4, 0 }, { "C6", 220, 600, TLB },
                                             { "C8", 280, 800, TLB }, { "C10", 680, 2000, TLB } };
    drv_poll_table(drv, adl, 4);
}

/* ICX (FACTS.md §1): POLL, C1 1/1, C1E 4/4, C6 170/600 µs. */
static void icx_table(struct cpuidle_driver *drv)
{
    static const struct state_spec icx[] = { { "C1", 1, 1, 0 }, { "C1E", 4, 4, 0 },
                                             { "C6", 170, 600, TLB } };
    drv_poll_table(drv, icx, 3);
}

/* SKX with intel_idle.max_cstate=1: POLL and C1 2/2 µs only. */
static void skx_max_cstate_1_table(struct cpuidle_driver *drv)
{
    skx_table(drv);
    drv->state_count = 2;
}

/* A driver without POLL: state 0 is a real state. */
static void nopoll_table(struct cpuidle_driver *drv)
{
    drv_add(drv, "C1", 1, 1, 0);
    drv_add(drv, "C6", 100, 400, 0);
}

/* ---- the replay harness ---- */

struct fixture {
    struct cpuidle_driver drv;
    struct cpuidle_device dev;
    const struct cpuidle_governor *gov;
    struct kversion kernel;
};

/* One scripted idle period. delta_tick_ns 0 = derived: the timer distance
 * with the tick stopped, else the nearer of timer and one tick. */
struct step {
    int64_t next_timer_ns;
    int64_t delta_tick_ns;
    bool tick_stopped;
    int64_t latency_req_ns;
    int64_t residency_ns;
    bool woke_by_tick;
    bool poll_time_limit;
    bool rejected;
};

struct result {
    int idx;
    bool stop_tick;
};

static struct step step_of(int64_t next_timer_ns, int64_t residency_ns)
{
    return (struct step){ .next_timer_ns = next_timer_ns, .latency_req_ns = NO_LIMIT,
                          .residency_ns = residency_ns };
}

static struct fixture *fixture_new(const struct cpuidle_governor *gov,
                                   void (*table)(struct cpuidle_driver *), int64_t tick_ns,
                                   const char *kernel)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    table(&f->drv);
    assert_int_equal(kversion_parse(kernel, &f->kernel), 0);
    f->gov = gov;
    f->dev.kernel = &f->kernel;
    f->dev.tick_period_ns = tick_ns;
    f->dev.latency_req_ns = NO_LIMIT;
    f->dev.next_timer_ns = INT64_MAX;
    f->dev.governor_data = calloc(1, gov->data_size);
    assert_non_null(f->dev.governor_data);
    assert_int_equal(gov->enable(&f->drv, &f->dev), 0);
    return f;
}

static void fixture_free(struct fixture *f)
{
    free(f->dev.governor_data);
    free(f);
}

static struct result select_only(struct fixture *f, const struct step *s)
{
    struct cpuidle_device *dev = &f->dev;
    dev->next_timer_ns = s->next_timer_ns;
    dev->tick_stopped = s->tick_stopped;
    dev->latency_req_ns = s->latency_req_ns;
    if (s->delta_tick_ns)
        dev->delta_tick_ns = s->delta_tick_ns;
    else if (s->tick_stopped || s->next_timer_ns < dev->tick_period_ns)
        dev->delta_tick_ns = s->next_timer_ns;
    else
        dev->delta_tick_ns = dev->tick_period_ns;
    struct result r = { .stop_tick = true };
    r.idx = f->gov->select(&f->drv, dev, &r.stop_tick);
    assert_in_range(r.idx, 0, f->drv.state_count - 1);
    return r;
}

/* The core's side after the state returns: account, then reflect. */
static void finish_period(struct fixture *f, int idx, const struct step *s)
{
    cpuidle_account(&f->drv, &f->dev, idx, s->residency_ns, s->rejected);
    if (s->rejected)
        return;
    f->dev.woke_by_tick = s->woke_by_tick;
    f->dev.poll_time_limit = s->poll_time_limit;
    if (f->gov->reflect)
        f->gov->reflect(&f->dev, idx);
}

static struct result run_step(struct fixture *f, const struct step *s)
{
    struct result r = select_only(f, s);
    finish_period(f, r.idx, s);
    return r;
}

static void assert_result(struct result r, int idx, bool stop_tick)
{
    assert_int_equal(r.idx, idx);
    assert_int_equal(r.stop_tick, stop_tick);
}

/* ---- menu ---- */

static struct menu_device *menu_data(struct fixture *f)
{
    return f->dev.governor_data;
}

/* Put eight samples in menu's history, as if measured, with no pending
 * update (and a non-zero last residency, so no "rejected" sample is added). */
static void menu_seed(struct fixture *f, const unsigned v[MENU_INTERVALS])
{
    struct menu_device *data = menu_data(f);
    memcpy(data->intervals_us, v, sizeof data->intervals_us);
    data->interval_ptr = 0;
    data->needs_update = false;
    f->dev.last_residency_ns = 1;
}

static struct fixture *menu_skx(void)
{
    return fixture_new(&menu_governor, skx_table, 4 * MS, "6.19");
}

/* Buckets are decades of the timer distance; factors start at 1.0 (8192);
 * the first select records an unusable sample (nothing measured yet). */
static void test_menu_bucket_by_timer(void **state)
{
    (void)state;
    const int64_t timers_ns[MENU_BUCKETS] = { 5 * US, 50 * US, 500 * US, 5 * MS, 50 * MS,
                                              500 * MS };
    for (int b = 0; b < MENU_BUCKETS; b++) {
        struct fixture *f = menu_skx();
        struct step s = step_of(timers_ns[b], 0);
        select_only(f, &s);
        assert_int_equal(menu_data(f)->bucket, b);
        assert_int_equal(menu_data(f)->correction_factor[b], 8192);
        assert_int_equal(menu_data(f)->intervals_us[0], UINT_MAX);
        assert_int_equal(menu_data(f)->interval_ptr, 1);
        fixture_free(f);
    }
}

/* A history that predicts <= 15 µs: the timer is not read (a 1 µs timer
 * would have forced POLL), next timer = infinite, last bucket. Typical 10 µs:
 * C1 (2 µs) fits, C1E (20 µs) does not; tick kept. */
static void test_menu_skips_timer_for_short_history(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    const unsigned v[MENU_INTERVALS] = { 10, 10, 10, 10, 10, 10, 10, 10 };
    menu_seed(f, v);
    struct step s = step_of(1 * US, 0);
    assert_result(select_only(f, &s), 1, false);
    assert_int_equal(menu_data(f)->next_timer_ns, INT64_MAX);
    assert_int_equal(menu_data(f)->bucket, MENU_BUCKETS - 1);
    assert_int_equal(menu_data(f)->predicted_ns, 10 * US);
    fixture_free(f);
}

/* Low variance: {100,102,98,101,99,100,103,97}: mean 100, E[x²] = 80028/8 =
 * 10003, variance 3 <= 400 -> 100 µs. Picks C1E (20 <= 100 < 600), keeps the
 * tick (100 µs < 4 ms). Spread but mean² > 36 var: {1000,1100,900,1000,1050,
 * 950,1000,1000}: variance 3125, 1e6 > 112500 -> 1 ms -> C6, tick kept.
 * Only the variance rule: {10,30 x4}: mean 20, variance 100 <= 400 but
 * 400 < 36 x 100 -> 20 µs (more than 15 µs: the timer is read) -> C1E. */
static void test_menu_typical_interval_accepts(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    const unsigned tight[MENU_INTERVALS] = { 100, 102, 98, 101, 99, 100, 103, 97 };
    menu_seed(f, tight);
    struct step s = step_of(50 * MS, 0);
    assert_result(select_only(f, &s), 2, false);
    assert_int_equal(menu_data(f)->predicted_ns, 100 * US);

    const unsigned ratio[MENU_INTERVALS] = { 1000, 1100, 900, 1000, 1050, 950, 1000, 1000 };
    menu_seed(f, ratio);
    assert_result(select_only(f, &s), 3, false);
    assert_int_equal(menu_data(f)->predicted_ns, 1 * MS);

    const unsigned small[MENU_INTERVALS] = { 10, 30, 10, 30, 10, 30, 10, 30 };
    menu_seed(f, small);
    assert_result(select_only(f, &s), 2, false);
    assert_int_equal(menu_data(f)->predicted_ns, 20 * US);
    assert_int_equal(menu_data(f)->next_timer_ns, 50 * MS);
    fixture_free(f);
}

/* Outliers go from the side farther from the mean. {100 x7, 5000}: mean 712,
 * 712-100 < 5000-712 -> drop 5000 -> 100 µs. {1000 x7, 1}: mean 875,
 * 875-1 > 1000-875 -> drop 1 -> 1000 µs (dropping the largest instead
 * would leave the single 1 µs sample and predict 1 µs). */
static void test_menu_typical_interval_drops_outliers(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(50 * MS, 0);
    const unsigned high[MENU_INTERVALS] = { 100, 100, 100, 5000, 100, 100, 100, 100 };
    menu_seed(f, high);
    assert_result(select_only(f, &s), 2, false);
    assert_int_equal(menu_data(f)->predicted_ns, 100 * US);

    const unsigned low[MENU_INTERVALS] = { 1000, 1000, 1, 1000, 1000, 1000, 1000, 1000 };
    menu_seed(f, low);
    assert_result(select_only(f, &s), 3, false);
    assert_int_equal(menu_data(f)->predicted_ns, 1 * MS);
    fixture_free(f);
}

/* {10,1000,20,2000,30,3000,40,4000}: drop 4000, then 3000; with 6 left,
 * variance 567577 fails both tests -> no pattern, predict the timer: 50 ms
 * -> C6, and the tick may stop. */
static void test_menu_typical_interval_gives_up(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    const unsigned v[MENU_INTERVALS] = { 10, 1000, 20, 2000, 30, 3000, 40, 4000 };
    menu_seed(f, v);
    struct step s = step_of(50 * MS, 0);
    assert_result(select_only(f, &s), 3, true);
    assert_int_equal(menu_data(f)->predicted_ns, 50 * MS);
    fixture_free(f);
}

/* Timer 2 ms (bucket 3), C6 entered, 500 µs residency: measured = 500 - 133 =
 * 367 µs; factor = 8192 - 8192/8 + 1024 x 367000 / 2000000 = 7168 + 187 =
 * 7355. The next prediction: (4096000 + 2e6 x 7355) / 8192000 = 1796 µs
 * (history has no pattern: {367, 0 x6} after UINT_MAX is excluded). */
static void test_menu_correction_factor_update(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(2 * MS, 500 * US);
    assert_result(run_step(f, &s), 3, false);
    assert_result(select_only(f, &s), 3, false);
    assert_int_equal(menu_data(f)->correction_factor[3], 7355);
    assert_int_equal(menu_data(f)->intervals_us[1], 367);
    assert_int_equal(menu_data(f)->interval_ptr, 2);
    assert_int_equal(menu_data(f)->predicted_ns, 1796 * US);
    fixture_free(f);
}

/* Woken by the tick with the timer 100 ms away: counts as 45 ms.
 * factor[5] = 7168 + 1024 x 45 / 100 = 7168 + 460 = 7628. */
static void test_menu_update_tick_wakeup(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(100 * MS, 4 * MS);
    s.woke_by_tick = true;
    run_step(f, &s);
    select_only(f, &s);
    assert_int_equal(menu_data(f)->intervals_us[1], 45000);
    assert_int_equal(menu_data(f)->correction_factor[5], 7628);
    fixture_free(f);
}

/* POLL (latency limit 0) ended by its time limit: measured = the timer
 * distance, 500 µs: factor[2] = 7168 + 1024 = 8192 (20 µs would give 7208). */
static void test_menu_update_poll_limit(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(500 * US, 20 * US);
    s.latency_req_ns = 0;
    s.poll_time_limit = true;
    assert_result(run_step(f, &s), 0, false);
    select_only(f, &s);
    assert_int_equal(menu_data(f)->intervals_us[1], 500);
    assert_int_equal(menu_data(f)->correction_factor[2], 8192);
    fixture_free(f);
}

/* C6 for 200 µs <= 2 x 133: measured = half = 100 µs;
 * factor[3] = 7168 + 1024 x 100000 / 2000000 = 7168 + 51 = 7219. */
static void test_menu_update_half_residency(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(2 * MS, 200 * US);
    assert_result(run_step(f, &s), 3, false);
    select_only(f, &s);
    assert_int_equal(menu_data(f)->intervals_us[1], 100);
    assert_int_equal(menu_data(f)->correction_factor[3], 7219);
    fixture_free(f);
}

/* Timer 200 ms: 1 ms idle -> 867 µs -> factor[5] = 7168 + 4 = 7172; then
 * 150 ms idle (>= 50 ms) -> + 1024: 7172 - 896 + 1024 = 7300. */
static void test_menu_update_long_idle(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(200 * MS, 1 * MS);
    run_step(f, &s);
    s.residency_ns = 150 * MS;
    run_step(f, &s);
    assert_int_equal(menu_data(f)->correction_factor[5], 7172);
    select_only(f, &s);
    assert_int_equal(menu_data(f)->correction_factor[5], 7300);
    assert_int_equal(menu_data(f)->intervals_us[2], 149867);
    fixture_free(f);
}

/* A rejected period is not reflected: the next select records an unusable
 * sample instead of updating the factor again. */
static void test_menu_rejected_period(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(2 * MS, 500 * US);
    run_step(f, &s);
    struct step rej = s;
    rej.rejected = true;
    run_step(f, &rej);
    select_only(f, &s);
    assert_int_equal(menu_data(f)->intervals_us[1], 367);
    assert_int_equal(menu_data(f)->intervals_us[2], UINT_MAX);
    assert_int_equal(menu_data(f)->correction_factor[3], 7355);
    fixture_free(f);
}

/* State 0 shortcut: timer below C1's residency, a zero limit, a limit below
 * C1's latency -> POLL with the tick kept; a non-POLL state 0 lets the tick
 * stop. */
static void test_menu_poll_shortcut(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(1 * US, 0);
    assert_result(select_only(f, &s), 0, false);
    s = step_of(10 * MS, 0);
    s.latency_req_ns = 0;
    assert_result(select_only(f, &s), 0, false);
    s.latency_req_ns = 1 * US;
    assert_result(select_only(f, &s), 0, false);
    fixture_free(f);

    f = fixture_new(&menu_governor, nopoll_table, 4 * MS, "6.19");
    s.latency_req_ns = 0;
    assert_result(select_only(f, &s), 0, true);
    fixture_free(f);
}

/* POLL gives way to a state under 15 µs that fits before the timer: history
 * 1 µs -> C1 (2 µs) instead of POLL. With C1 disabled and a 12 µs history
 * the next is C1E (20 µs): v6.19 stays in POLL; 6.12 (no 15 µs cap, and
 * C1E's 10 µs latency within the 12 µs prediction cap) takes C1E. */
static void test_menu_poll_exception(void **state)
{
    (void)state;
    const unsigned one[MENU_INTERVALS] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    const unsigned twelve[MENU_INTERVALS] = { 12, 12, 12, 12, 12, 12, 12, 12 };
    struct step s = step_of(10 * MS, 0);
    struct fixture *f = menu_skx();
    menu_seed(f, one);
    assert_result(select_only(f, &s), 1, false);
    assert_int_equal(menu_data(f)->next_timer_ns, INT64_MAX);
    f->dev.states_usage[1].disable = true;
    menu_seed(f, twelve);
    assert_result(select_only(f, &s), 0, false);
    fixture_free(f);

    f = fixture_new(&menu_governor, skx_table, 4 * MS, "6.12");
    f->dev.states_usage[1].disable = true;
    menu_seed(f, twelve);
    assert_result(select_only(f, &s), 2, false);
    fixture_free(f);
}

/* Tick decisions with the tick running. Timer 2 ms but the tick in 300 µs:
 * C6 does not fit before the tick -> C1E, tick kept. Timer 50 ms -> C6, tick
 * may stop. ADL, HZ=1000, timer 1.5 ms: C8 fits, C10 (2 ms) does not and the
 * prediction is past the tick -> prediction = C8's 800 µs < tick -> keep. */
static void test_menu_tick_decision(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    struct step s = step_of(2 * MS, 0);
    s.delta_tick_ns = 300 * US;
    assert_result(select_only(f, &s), 2, false);
    s = step_of(50 * MS, 0);
    assert_result(select_only(f, &s), 3, true);
    fixture_free(f);

    f = fixture_new(&menu_governor, adl_table, 1 * MS, "6.19");
    s = step_of(1500 * US, 0);
    assert_result(select_only(f, &s), 3, false);
    assert_int_equal(menu_data(f)->predicted_ns, 1500 * US);
    fixture_free(f);
}

/* Tick already stopped and history says 100 µs: menu uses the timer (10 ms)
 * instead -> C6 (with the tick running the same history gives C1E, see
 * test_menu_typical_interval_accepts). ADL, tick stopped, prediction 1.5 ms:
 * C8 is shallower than a tick and C10 fits before the 3 ms timer -> C10. */
static void test_menu_tick_stopped(void **state)
{
    (void)state;
    struct fixture *f = menu_skx();
    const unsigned v[MENU_INTERVALS] = { 100, 100, 100, 100, 100, 100, 100, 100 };
    menu_seed(f, v);
    struct step s = step_of(10 * MS, 0);
    s.tick_stopped = true;
    assert_result(select_only(f, &s), 3, true);
    fixture_free(f);

    const unsigned w[MENU_INTERVALS] = { 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500 };
    f = fixture_new(&menu_governor, adl_table, 1 * MS, "6.19");
    menu_seed(f, w);
    s = step_of(3 * MS, 0);
    s.tick_stopped = true;
    assert_result(select_only(f, &s), 4, true);
    fixture_free(f);
}

/* Same stopped-tick case with a 300 µs limit: since 779b1a1cb13a (v6.17,
 * 6.12.44) C10 (680 µs) is ruled out -> C8; v6.12.0 returns C10 anyway. */
static void test_menu_versions_latency_with_stopped_tick(void **state)
{
    (void)state;
    const unsigned w[MENU_INTERVALS] = { 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500 };
    const char *kernels[] = { "6.19", "6.17", "6.12.44", "6.12" };
    const int want[] = { 3, 3, 3, 4 };
    for (int k = 0; k < 4; k++) {
        struct fixture *f = fixture_new(&menu_governor, adl_table, 1 * MS, kernels[k]);
        menu_seed(f, w);
        struct step s = step_of(3 * MS, 0);
        s.tick_stopped = true;
        s.latency_req_ns = 300 * US;
        assert_result(select_only(f, &s), want[k], true);
        fixture_free(f);
    }
}

/* ---- teo ---- */

static struct teo_cpu *teo_data(struct fixture *f)
{
    return f->dev.governor_data;
}

static struct fixture *teo_skx(void)
{
    return fixture_new(&teo_governor, skx_table, 4 * MS, "6.19");
}

/* Bins on SKX: [0,2), [2,20), [20,600), [600,inf) µs.
 * 1: timer 10 ms, 9 ms in C6 -> measured 9 ms - 66.5 µs, same bin as the
 *    timer: hit in bin 3. total 1024.
 * 2: 50 µs in C6 (< 133 latency) -> measured 25 µs, short idle; bin 2 vs
 *    timer bin 3: intercept in bin 2. hits[3] 896, total 1920.
 * 3: intercepts below C6 = 1024, 2 x 1024 > 1920 - 0 -> walk down: at C1E
 *    the intercepts cover > half -> C1E; timer 10 ms; the intercept came
 *    before the tick (a tick intercept on 6.19), but 1024 is not over 5/8
 *    of 1920: the tick may stop. */
static void test_teo_bookkeeping_and_intercepts_rule(void **state)
{
    (void)state;
    struct fixture *f = teo_skx();
    struct teo_cpu *d = teo_data(f);
    struct step s = step_of(10 * MS, 9 * MS);
    assert_result(run_step(f, &s), 3, true);
    s.residency_ns = 50 * US;
    assert_result(run_step(f, &s), 3, true);
    assert_int_equal(d->state_bins[3].hits, 1024);
    assert_int_equal(d->total, 1024);
    assert_int_equal(d->short_idles, 0);

    assert_result(select_only(f, &s), 2, true);
    assert_int_equal(d->state_bins[3].hits, 896);
    assert_int_equal(d->state_bins[2].intercepts, 1024);
    assert_int_equal(d->state_bins[2].hits, 0);
    assert_int_equal(d->total, 1920);
    assert_int_equal(d->short_idles, 1024);
    assert_int_equal(d->tick_intercepts, 1024);
    assert_int_equal(d->sleep_length_ns, 10 * MS);
    fixture_free(f);
}

/* Decay: x - x/8 + 1024 per update: 1024, 1920, 2704, 3390. */
static void test_teo_decay(void **state)
{
    (void)state;
    struct fixture *f = teo_skx();
    struct teo_cpu *d = teo_data(f);
    const unsigned want[] = { 1024, 1920, 2704, 3390 };
    struct step s = step_of(10 * MS, 9 * MS);
    run_step(f, &s);
    for (int i = 0; i < 4; i++) {
        assert_result(run_step(f, &s), 3, true);
        assert_int_equal(d->total, want[i]);
        assert_int_equal(d->state_bins[3].hits, want[i]);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(d->state_bins[i].hits + d->state_bins[i].intercepts, 0);
    fixture_free(f);
}

/* 10 µs in C6 -> measured 5 µs: a short idle and an intercept in bin 1. Next:
 * the intercepts rule picks C1 (2 µs < 15 µs) and short idles dominate
 * (2 x 1024 >= 1024): returned with the tick kept, timer not read (it says
 * 1 µs, which would have forced POLL). */
static void test_teo_short_idle_rule(void **state)
{
    (void)state;
    struct fixture *f = teo_skx();
    struct teo_cpu *d = teo_data(f);
    struct step s = step_of(10 * MS, 10 * US);
    run_step(f, &s);
    s = step_of(1 * US, 0);
    assert_result(select_only(f, &s), 1, false);
    assert_int_equal(d->state_bins[1].intercepts, 1024);
    assert_int_equal(d->short_idles, 1024);
    assert_int_equal(d->sleep_length_ns, INT64_MAX);
    fixture_free(f);
}

/* The latency cap. After one C6 hit: limit 5 µs -> C1 (deepest with latency
 * <= 5), and a limit < 7.5 µs skips the timer and keeps the tick; limit
 * 50 µs -> C1E, timer read. */
static void test_teo_latency_constraint(void **state)
{
    (void)state;
    struct fixture *f = teo_skx();
    struct step s = step_of(10 * MS, 9 * MS);
    run_step(f, &s);
    s.latency_req_ns = 5 * US;
    assert_result(select_only(f, &s), 1, false);
    assert_int_equal(teo_data(f)->sleep_length_ns, INT64_MAX);
    s.latency_req_ns = 50 * US;
    assert_result(select_only(f, &s), 2, true);
    assert_int_equal(teo_data(f)->sleep_length_ns, 10 * MS);
    fixture_free(f);
}

/* A tick wakeup with the timer 10 ms away, or POLL's time limit, counts as
 * "slept until the timer": a hit in the timer's bin, no short idle, even
 * though only 100 µs passed. reflect consumes poll_time_limit. A tick
 * wakeup with the timer within a tick (3 ms < 4 ms) is genuine: 100 µs in C6
 * -> 33.5 µs, an intercept in bin 2. */
static void test_teo_artificial_wakeups(void **state)
{
    (void)state;
    struct fixture *f = teo_skx();
    struct teo_cpu *d = teo_data(f);
    struct step s = step_of(10 * MS, 100 * US);
    s.woke_by_tick = true;
    run_step(f, &s);
    assert_true(d->artificial_wakeup);
    s.woke_by_tick = false;
    s.poll_time_limit = true;
    run_step(f, &s);
    assert_false(f->dev.poll_time_limit);
    assert_int_equal(d->state_bins[3].hits, 1024);
    s.poll_time_limit = false;
    select_only(f, &s);
    assert_int_equal(d->state_bins[3].hits, 1920);
    assert_int_equal(d->state_bins[2].intercepts, 0);
    assert_int_equal(d->short_idles, 0);
    fixture_free(f);

    f = teo_skx();
    d = teo_data(f);
    s = step_of(3 * MS, 100 * US);
    s.woke_by_tick = true;
    assert_result(run_step(f, &s), 3, false);
    assert_false(d->artificial_wakeup);
    select_only(f, &s);
    assert_int_equal(d->state_bins[2].intercepts, 1024);
    assert_int_equal(d->state_bins[3].hits, 0);
    fixture_free(f);
}

/* ADL, HZ=1000. 1.5 ms in C10 with the timer 10 ms away: measured 1.16 ms,
 * bin C8 (intercept), longer than a tick. On 6.14-6.18 (d619b5cc6780's
 * reversed test) that is a tick intercept; next: C8 by the intercepts rule,
 * its residency below a tick and tick intercepts (1024) > 5/8 of total
 * (640): keep the tick. On 6.19 (the fix: intercepts no longer than a tick)
 * it is not, and the tick may stop. */
static void test_teo_tick_intercepts_keep_tick(void **state)
{
    (void)state;
    static const struct { const char *kernel; unsigned tick_intercepts; bool stop_tick; } cases[] = {
        { "6.18", 1024, false },
        { "6.19", 0, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fixture *f = fixture_new(&teo_governor, adl_table, 1 * MS, cases[i].kernel);
        struct teo_cpu *d = teo_data(f);
        struct step s = step_of(10 * MS, 1500 * US);
        assert_result(run_step(f, &s), 4, true);
        assert_result(select_only(f, &s), 3, cases[i].stop_tick);
        assert_int_equal(d->state_bins[3].intercepts, 1024);
        assert_int_equal(d->tick_intercepts, cases[i].tick_intercepts);
        assert_int_equal(d->total, 1024);
        fixture_free(f);
    }
}

/* 6.12's tick rule (before 6.14): on SKX the deepest state (C6, 600 us) is
 * shorter than a tick (4 ms), so a timer at least a tick away sits in an
 * extra bin beyond C6 and every wakeup before the tick counts. 1.5 ms in C6
 * with the timer 10 ms away (measured 1.43 ms): a hit in C6's bin for the
 * state rule, but a tick intercept; next: C6 (no intercepts below it), and
 * tick intercepts (1024) > 5/8 of total: keep the tick. On 6.19 the same
 * period is no intercept at all and the tick stops. A wakeup after the tick
 * (5 ms) counts on no version. */
static void test_teo_tick_rule_6_12(void **state)
{
    (void)state;
    static const struct { const char *kernel; int64_t residency_ns; unsigned tick_intercepts;
                          bool stop_tick; } cases[] = {
        { "6.12", 1500 * US, 1024, false },
        { "6.19", 1500 * US, 0, true },
        { "6.12", 5 * MS, 0, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fixture *f = fixture_new(&teo_governor, skx_table, 4 * MS, cases[i].kernel);
        struct teo_cpu *d = teo_data(f);
        struct step s = step_of(10 * MS, cases[i].residency_ns);
        assert_result(run_step(f, &s), 3, true);
        assert_result(select_only(f, &s), 3, cases[i].stop_tick);
        assert_int_equal(d->state_bins[3].hits, 1024);
        assert_int_equal(d->tick_intercepts, cases[i].tick_intercepts);
        fixture_free(f);
    }
}

/* ---- ladder ---- */

static struct ladder_device *ladder_data(struct fixture *f)
{
    return f->dev.governor_data;
}

static struct fixture *ladder_skx(void)
{
    return fixture_new(&ladder_governor, skx_table, 4 * MS, "6.19");
}

/* The ladder starts on C1 (POLL is no rung). The first select already counts
 * as long (nothing measured: 0 - 2 µs < 0, and the kernel compares it
 * unsigned). Then C1 -> C1E after the count reaches 4, and C1E -> C6 only
 * after 4 periods longer than C1E's 10 µs latency. The tick is never kept. */
static void test_ladder_promotion_after_four(void **state)
{
    (void)state;
    struct fixture *f = ladder_skx();
    struct ladder_device *l = ladder_data(f);
    struct step s = step_of(4 * MS, 1 * MS);
    assert_result(run_step(f, &s), 1, true);
    assert_int_equal(l->states[1].stats.promotion_count, 1);
    assert_result(run_step(f, &s), 1, true);
    assert_result(run_step(f, &s), 1, true);
    assert_result(run_step(f, &s), 2, true);
    assert_int_equal(l->states[1].stats.promotion_count, 0);
    for (unsigned n = 1; n <= 3; n++) {
        assert_result(run_step(f, &s), 2, true);
        assert_int_equal(l->states[2].stats.promotion_count, n);
    }
    assert_result(run_step(f, &s), 3, true);
    assert_int_equal(l->states[2].stats.promotion_count, 0);
    fixture_free(f);
}

/* On C6: 100 µs (< 133 µs latency: negative, compared unsigned) does not
 * demote - the kernel quirk; 200 µs (measured 67 < 133) demotes at once. */
static void test_ladder_demotion_after_one(void **state)
{
    (void)state;
    struct fixture *f = ladder_skx();
    f->dev.last_state_idx = 3;
    f->dev.last_residency_ns = 1 * MS;
    struct step s = step_of(4 * MS, 100 * US);
    assert_result(run_step(f, &s), 3, true);
    s.residency_ns = 200 * US;
    assert_result(run_step(f, &s), 3, true);
    assert_result(select_only(f, &s), 2, true);
    fixture_free(f);
}

/* A zero limit -> POLL; with the limit gone, the next select climbs straight
 * back to C1 (POLL has no promotion threshold). */
static void test_ladder_latency_zero(void **state)
{
    (void)state;
    struct fixture *f = ladder_skx();
    struct step s = step_of(4 * MS, 50 * US);
    s.latency_req_ns = 0;
    assert_result(run_step(f, &s), 0, true);
    s.latency_req_ns = NO_LIMIT;
    assert_result(select_only(f, &s), 1, true);
    fixture_free(f);
}

/* On C6: a 50 µs limit or disabling C6 drops to C1E at once; with C1E also
 * disabled, pmlab drops to C1 (the kernel would return the disabled C1E). */
static void test_ladder_immediate_demotion(void **state)
{
    (void)state;
    struct step s = step_of(4 * MS, 1 * MS);
    for (int c = 0; c < 3; c++) {
        struct fixture *f = ladder_skx();
        f->dev.last_state_idx = 3;
        f->dev.last_residency_ns = 1 * MS;
        s.latency_req_ns = c == 0 ? 50 * US : NO_LIMIT;
        f->dev.states_usage[3].disable = c >= 1;
        f->dev.states_usage[2].disable = c == 2;
        assert_result(select_only(f, &s), c == 2 ? 1 : 2, true);
        fixture_free(f);
    }
}

/* ---- the core's POLL time limit (cpuidle_poll_time) ---- */

struct poll_dev {
    struct cpuidle_driver drv;
    struct cpuidle_device dev;
    struct kversion kernel;
};

/* table on kernel (NULL: none given, the newest rule) at CONFIG_HZ=hz, with
 * the states in mask disabled. */
static void poll_dev_init(struct poll_dev *p, void (*table)(struct cpuidle_driver *),
                          const char *kernel, int hz, unsigned disabled_mask)
{
    memset(p, 0, sizeof *p);
    table(&p->drv);
    if (kernel) {
        assert_int_equal(kversion_parse(kernel, &p->kernel), 0);
        p->dev.kernel = &p->kernel;
    }
    p->dev.tick_period_ns = (1000000000LL + hz / 2) / hz; /* TICK_NSEC */
    for (int i = 0; i < p->drv.state_count; i++)
        p->dev.states_usage[i].disable = (disabled_mask >> i) & 1u;
}

static int64_t poll_limit(void (*table)(struct cpuidle_driver *), const char *kernel, int hz,
                          unsigned disabled_mask)
{
    struct poll_dev p;
    poll_dev_init(&p, table, kernel, hz, disabled_mask);
    return cpuidle_poll_limit_ns(&p.drv, &p.dev);
}

/* SKX at HZ=250 (TICK_NSEC/16 = 250 µs) through the rule's history: v4.17 a
 * fixed TICK_NSEC/16; v5.5 (and 5.4.4) C1's 2 µs, the first enabled state;
 * v5.11 skips C1 (2 µs < the 10 µs floor) and takes C1E's 20 µs. */
static void test_poll_limit_versions_skx(void **state)
{
    (void)state;
    const struct {
        const char *kernel;
        int64_t limit_ns;
    } cases[] = {
        { "4.17", 250 * US }, { "5.4", 250 * US },  { "5.4.3", 250 * US }, { "5.4.4", 2 * US },
        { "5.5", 2 * US },    { "5.10.200", 2 * US }, { "5.11", 20 * US }, { "6.12", 20 * US },
        { NULL, 20 * US },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        assert_int_equal(poll_limit(skx_table, cases[c].kernel, 250, 0), cases[c].limit_ns);
}

/* Other tables and disabled states, at HZ=250 (TICK_NSEC/16 = 250 µs). */
static void test_poll_limit_tables(void **state)
{
    (void)state;
    const struct {
        void (*table)(struct cpuidle_driver *);
        const char *kernel;
        unsigned disabled_mask;
        int64_t limit_ns;
    } cases[] = {
        /* ICX and ADL: every shallow state is below 10 µs and C6 (600 µs) is
         * above the cap; v5.10 polled for ICX C1's 1 µs or ADL C1E's 4 µs
         * (ADL's C1 is unusable). */
        { icx_table, "6.12", 0, 250 * US },
        { adl_table, "6.12", 0, 250 * US },
        { icx_table, "5.10", 0, 1 * US },
        { adl_table, "5.10", 0, 4 * US },
        /* intel_idle.max_cstate=1 leaves C1 (2 µs) alone: the cap, or C1. */
        { skx_max_cstate_1_table, "6.12", 0, 250 * US },
        { skx_max_cstate_1_table, "5.10", 0, 2 * US },
        /* Every non-POLL state disabled in sysfs: the cap, or a whole tick. */
        { skx_table, "6.12", 0xe, 250 * US },
        { skx_table, "5.10", 0xe, 4 * MS },
        /* C1E disabled: v5.11+ moves on to C6, capped; C1 disabled: v5.10
         * takes C1E. */
        { skx_table, "6.12", 0x4, 250 * US },
        { skx_table, "5.10", 0x2, 20 * US },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        assert_int_equal(poll_limit(cases[c].table, cases[c].kernel, 250, cases[c].disabled_mask),
                         cases[c].limit_ns);
}

/* Each CONFIG_HZ (FACTS-2.md §1 table). ADL on v6.12: C6's 600 µs against a
 * cap of 625, 250, 208.333 or 62.5 µs, so HZ=100 polls 600 µs. Nothing
 * enabled: v6.12 the cap, v5.10 TICK_NSEC, v4.17 the cap whatever the table. */
static void test_poll_limit_each_hz(void **state)
{
    (void)state;
    const struct {
        int hz;
        int64_t tick_ns, cap_ns, adl_ns;
    } cases[] = {
        { 100, 10 * MS, 625000, 600 * US },
        { 250, 4 * MS, 250000, 250 * US },
        { 300, 3333333, 208333, 208333 },
        { 1000, 1 * MS, 62500, 62500 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int hz = cases[c].hz;
        assert_int_equal(poll_limit(adl_table, "6.12", hz, 0), cases[c].adl_ns);
        assert_int_equal(poll_limit(adl_table, "6.12", hz, 0x1e), cases[c].cap_ns);
        assert_int_equal(poll_limit(adl_table, "5.10", hz, 0x1e), cases[c].tick_ns);
        assert_int_equal(poll_limit(adl_table, "4.17", hz, 0), cases[c].cap_ns);
    }
}

/* A limit the governor set (haltpoll's per-CPU window) is returned as is on
 * every version, above the cap or below the floor alike. */
static void test_poll_limit_governor_set(void **state)
{
    (void)state;
    const char *kernels[] = { "4.17", "5.10", "6.12" };
    const int64_t limits_ns[] = { 3 * US, 50 * US, 1 * MS };
    for (int k = 0; k < 3; k++) {
        for (int l = 0; l < 3; l++) {
            struct poll_dev p;
            poll_dev_init(&p, skx_table, kernels[k], 250, 0);
            p.dev.poll_limit_ns = limits_ns[l];
            assert_int_equal(cpuidle_poll_limit_ns(&p.drv, &p.dev), limits_ns[l]);
        }
    }
}

/* ---- invariants for all three ---- */

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random periods, limits, tick states and disabled states (never state 0, nor
 * ladder's first rung, whose disabling ladder ignores like the kernel): the
 * pick is always enabled and within the latency limit. */
static void check_invariants(const struct cpuidle_governor *gov,
                             void (*table)(struct cpuidle_driver *), int64_t tick_ns)
{
    const int64_t limits_ns[] = { 0, 5 * US, 50 * US, 250 * US, 1 * MS, NO_LIMIT };
    struct fixture *f = fixture_new(gov, table, tick_ns, "6.19");
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int n = 0; n < 5000; n++) {
        for (int i = 2; i < f->drv.state_count; i++)
            f->dev.states_usage[i].disable = xorshift(&x) % 4 == 0;
        struct step s = step_of((int64_t)(1 + xorshift(&x) % 20) * (int64_t)(1 + xorshift(&x) % 5000) * US, 0);
        s.latency_req_ns = limits_ns[xorshift(&x) % 6];
        s.tick_stopped = xorshift(&x) % 3 == 0;
        s.residency_ns = (int64_t)(xorshift(&x) % (uint64_t)s.next_timer_ns) + 1;
        s.woke_by_tick = xorshift(&x) % 5 == 0;
        struct result r = select_only(f, &s);
        assert_true(cpuidle_state_enabled(&f->drv, &f->dev, r.idx));
        assert_true(f->drv.states[r.idx].exit_latency_ns <= s.latency_req_ns);
        s.poll_time_limit = r.idx == 0 && xorshift(&x) % 2 == 0;
        finish_period(f, r.idx, &s);
    }
    fixture_free(f);
}

static void test_invariants(void **state)
{
    (void)state;
    const struct cpuidle_governor *govs[] = { &menu_governor, &teo_governor, &ladder_governor };
    for (int g = 0; g < 3; g++) {
        check_invariants(govs[g], skx_table, 4 * MS);
        check_invariants(govs[g], adl_table, 1 * MS);
    }
}

static void test_registration(void **state)
{
    (void)state;
    assert_string_equal(menu_governor.name, "menu");
    assert_int_equal(menu_governor.rating, 20);
    assert_string_equal(teo_governor.name, "teo");
    assert_int_equal(teo_governor.rating, 19);
    assert_string_equal(ladder_governor.name, "ladder");
    assert_int_equal(ladder_governor.rating, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registration),
        cmocka_unit_test(test_poll_limit_versions_skx),
        cmocka_unit_test(test_poll_limit_tables),
        cmocka_unit_test(test_poll_limit_each_hz),
        cmocka_unit_test(test_poll_limit_governor_set),
        cmocka_unit_test(test_menu_bucket_by_timer),
        cmocka_unit_test(test_menu_skips_timer_for_short_history),
        cmocka_unit_test(test_menu_typical_interval_accepts),
        cmocka_unit_test(test_menu_typical_interval_drops_outliers),
        cmocka_unit_test(test_menu_typical_interval_gives_up),
        cmocka_unit_test(test_menu_correction_factor_update),
        cmocka_unit_test(test_menu_update_tick_wakeup),
        cmocka_unit_test(test_menu_update_poll_limit),
        cmocka_unit_test(test_menu_update_half_residency),
        cmocka_unit_test(test_menu_update_long_idle),
        cmocka_unit_test(test_menu_rejected_period),
        cmocka_unit_test(test_menu_poll_shortcut),
        cmocka_unit_test(test_menu_poll_exception),
        cmocka_unit_test(test_menu_tick_decision),
        cmocka_unit_test(test_menu_tick_stopped),
        cmocka_unit_test(test_menu_versions_latency_with_stopped_tick),
        cmocka_unit_test(test_teo_bookkeeping_and_intercepts_rule),
        cmocka_unit_test(test_teo_decay),
        cmocka_unit_test(test_teo_short_idle_rule),
        cmocka_unit_test(test_teo_latency_constraint),
        cmocka_unit_test(test_teo_artificial_wakeups),
        cmocka_unit_test(test_teo_tick_intercepts_keep_tick),
        cmocka_unit_test(test_teo_tick_rule_6_12),
        cmocka_unit_test(test_ladder_promotion_after_four),
        cmocka_unit_test(test_ladder_demotion_after_one),
        cmocka_unit_test(test_ladder_latency_zero),
        cmocka_unit_test(test_ladder_immediate_demotion),
        cmocka_unit_test(test_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
