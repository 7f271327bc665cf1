/* menu: the cpuidle governor of tickless kernels (drivers/cpuidle/governors/
 * menu.c), FACTS.md §3 [C5, C6, C11].
 *
 * Why it works this way
 * ---------------------
 * A deeper idle state saves more power only if the CPU stays in it long enough
 * to pay back the cost of getting in and out (its target residency), and only
 * if waking from it is fast enough for whoever waits on the CPU (its exit
 * latency against the PM QoS limit). The limit is given; the idle duration has
 * to be guessed. menu makes two guesses and believes the smaller:
 *
 *  - From the clock. The next timer is a hard upper bound on the idle period,
 *    but interrupts and IPIs usually come first. How much earlier depends on
 *    the order of magnitude: a 500 ms timer is almost never reached, a 50 µs
 *    one usually is. So menu keeps one running ratio "measured / timer"
 *    (the correction factor, 1.0 = 8192) per decade of timer distance, and
 *    scales the timer by it. The factor is a decaying average: each update
 *    keeps 7/8 of the old value.
 *
 *  - From the recent past. Some wakeups recur at a fixed rate that has nothing
 *    to do with timers (interrupt mitigation, a mouse, a periodic network
 *    peer). If the last 8 idle periods agree (small spread, or a spread small
 *    next to their mean), their mean is the guess. One or two stray samples
 *    are dropped first, from whichever side is farther from the mean; once
 *    only 6 are left without agreement, menu has no pattern and says "long".
 *
 * Reading the next timer costs time, so when the history alone predicts less
 * than 15 µs menu does not ask: the result could only confirm a shallow state.
 *
 * The tick matters twice. With the tick running, a shallow pick is harmless:
 * the tick wakes the CPU and menu gets another chance, so menu keeps the tick
 * whenever it expects to wake before it anyway, and then never picks a state
 * the tick would cut short. With the tick already stopped, a shallow pick may
 * strand the CPU in that state until the next timer, so menu then trusts the
 * timer rather than a short history. POLL is a special case: spinning burns
 * power, so a real state whose residency is tiny (< 15 µs) and fits before the
 * timer beats it.
 *
 * After each wakeup menu compares what happened with what it predicted. A tick
 * wakeup while the timer was more than a tick away says nothing about the
 * workload (the tick was only kept as a safety net), so it counts as a long
 * idle (45 ms); a POLL that ran out its limit counts as reaching the timer.
 * Otherwise the measured time minus the exit latency is what the workload
 * allowed (or half of it, when the period barely covered the latency).
 *
 * Versions (keyed by dev->kernel)
 * -------------------------------
 * Current form: linux-next 2025 [C5], i.e. v6.19 for the POLL rule's 15 µs cap
 * (Aboorva Devarajan's patch, "applied as 6.19 material").
 * Before 779b1a1cb13a (v6.17; in 6.12.44 together with 38f83090f515): when the
 * tick runs, the prediction also caps the latency limit, and exit latency is
 * checked only for states that fit, so with the tick stopped menu could return
 * a state above the QoS limit (the bug that commit fixed).
 * 38f83090f515 (v6.13, 6.12.44) removed the iowait split: 12 buckets and the
 * latency cap prediction / (1 + 10 x nr_iowaiters) [C11]. cpuidle_device has
 * no iowait count, so pmlab runs older kernels as if no task were in iowait,
 * where the old code equals the 6.13-6.16 form above. Not modelled: the
 * 2026 stopped-tick refinement [C12], and the short-lived "avoid discarding
 * useful information" typical-interval variant (85975daeaa4d, reverted). */
#include <limits.h>
#include <string.h>

#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/governors/gov.h"
#include "kernel/kversion.h"

#define RESOLUTION 1024u
#define DECAY 8u
#define MAX_INTERESTING_NS (50000 * NSEC_PER_USEC)
/* What a tick wakeup counts as when the timer was farther than a tick. */
#define TICK_WAKEUP_MEASURED_NS (9 * MAX_INTERESTING_NS / 10)

/* Versions compared on every select: constants, not strings to parse. */
static const struct kversion menu_latency_first_since = { 6, 17, 0 };
static const struct kversion menu_poll_capped_since = { 6, 19, 0 };

/* 779b1a1cb13a: exit latency checked before residency, no latency cap. */
static bool menu_latency_checked_first(const struct kversion *k)
{
    if (!k || kversion_cmp(k, &menu_latency_first_since) >= 0)
        return true;
    return k->major == 6 && k->minor == 12 && k->sub >= 44;
}

/* v6.19: POLL gives way only to states shorter than RESIDENCY_THRESHOLD_NS. */
static bool menu_poll_rule_capped(const struct kversion *k)
{
    return !k || kversion_cmp(k, &menu_poll_capped_since) >= 0;
}

/* Decades of timer distance: <10 µs, <100 µs, <1 ms, <10 ms, <100 ms, more. */
static int menu_which_bucket(int64_t duration_ns)
{
    int64_t bound_ns = 10 * NSEC_PER_USEC;
    int bucket = 0;
    while (bucket < MENU_BUCKETS - 1 && duration_ns >= bound_ns) {
        bucket++;
        bound_ns *= 10;
    }
    return bucket;
}

static void menu_update_intervals(struct menu_device *data, unsigned interval_us)
{
    data->intervals_us[data->interval_ptr++] = interval_us;
    if (data->interval_ptr >= MENU_INTERVALS)
        data->interval_ptr = 0;
}

/* Mean and variance (µs, µs²) of the samples strictly inside (lo, hi); the
 * sample count goes to *n, the extremes to *min, *max. Unsigned arithmetic
 * wraps exactly as the kernel's does for absurd (UINT_MAX-sized) samples. */
static void menu_interval_stats(const struct menu_device *data, uint64_t lo, uint64_t hi,
                                uint64_t *avg, uint64_t *variance, unsigned *n,
                                unsigned *min, unsigned *max)
{
    uint64_t sum = 0, sum_sq = 0;
    *n = 0;
    *min = UINT_MAX;
    *max = 0;
    for (int i = 0; i < MENU_INTERVALS; i++) {
        uint64_t v = data->intervals_us[i];
        if ((lo != UINT64_MAX && v <= lo) || v >= hi)
            continue;
        (*n)++;
        sum += v;
        sum_sq += v * v;
        if (v > *max)
            *max = (unsigned)v;
        if (v < *min)
            *min = (unsigned)v;
    }
    *avg = *n ? sum / *n : 0;
    *variance = *n ? sum_sq / *n - *avg * *avg : 0;
}

/* get_typical_interval: the mean of the recent idle periods if they agree
 * (variance <= 400 µs², or mean² > 36 x variance with at least 6 samples),
 * dropping outliers one side at a time; UINT_MAX (no pattern) otherwise. */
static unsigned menu_typical_interval_us(const struct menu_device *data)
{
    uint64_t lo = UINT64_MAX; /* "no lower bound" */
    uint64_t hi = UINT_MAX;
    for (;;) {
        uint64_t avg, variance;
        unsigned n, min, max;
        menu_interval_stats(data, lo, hi, &avg, &variance, &n, &min, &max);
        if (max == 0)
            return UINT_MAX;
        if (variance <= UINT64_MAX / 36 &&
            ((avg * avg > variance * 36 && n * 4 >= MENU_INTERVALS * 3) || variance <= 400))
            return (unsigned)avg;
        if (n * 4 <= MENU_INTERVALS * 3)
            return UINT_MAX;
        if (avg - min > max - avg)
            lo = min;
        else
            hi = max;
    }
}

/* The timer distance scaled by the bucket's factor, in µs rounded to nearest.
 * Saturates instead of overflowing for "no timer" (INT64_MAX). */
static uint64_t menu_scaled_timer_us(int64_t next_timer_ns, unsigned factor)
{
    const uint64_t unit = (uint64_t)RESOLUTION * DECAY * NSEC_PER_USEC;
    uint64_t t = (uint64_t)next_timer_ns;
    if (factor && t > (UINT64_MAX - unit / 2) / factor)
        return t / unit * factor;
    return (unit / 2 + t * factor) / unit;
}

/* The predicted idle duration. Reads the next timer only when the history
 * predicts more than RESIDENCY_THRESHOLD_NS; sets data->next_timer_ns,
 * data->bucket and *delta_tick_ns (half a tick when the timer is not read). */
static int64_t menu_predict(const struct cpuidle_device *dev, struct menu_device *data,
                            int64_t *delta_tick_ns)
{
    int64_t predicted_ns = (int64_t)menu_typical_interval_us(data) * NSEC_PER_USEC;
    if (predicted_ns <= RESIDENCY_THRESHOLD_NS) {
        data->next_timer_ns = INT64_MAX;
        data->bucket = MENU_BUCKETS - 1;
        *delta_tick_ns = dev->tick_period_ns / 2;
        return predicted_ns;
    }
    bool negative = dev->next_timer_ns < 0;
    data->next_timer_ns = negative ? 0 : dev->next_timer_ns;
    *delta_tick_ns = negative ? 0 : dev->delta_tick_ns;
    data->bucket = menu_which_bucket(data->next_timer_ns);
    uint64_t timer_us = menu_scaled_timer_us(data->next_timer_ns,
                                             data->correction_factor[data->bucket]);
    if (timer_us < (uint64_t)predicted_ns / NSEC_PER_USEC)
        predicted_ns = (int64_t)timer_us * NSEC_PER_USEC;
    return predicted_ns;
}

/* State 0 will be used whatever the walk finds: one state, a zero latency
 * limit, or (state 0 enabled and) state 1 ruled out by timer or latency. */
static bool menu_state0_only(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                             const struct menu_device *data)
{
    if (drv->state_count <= 1 || dev->latency_req_ns == 0)
        return true;
    if (!cpuidle_state_enabled(drv, dev, 0))
        return false;
    return data->next_timer_ns < drv->states[1].target_residency_ns ||
           dev->latency_req_ns < drv->states[1].exit_latency_ns;
}

/* A real state beats POLL when it is cheap (< 15 µs from v6.19), fits before
 * the timer and (older kernels) is within the latency limit. */
static bool menu_poll_gives_way(const struct cpuidle_driver *drv, const struct menu_device *data,
                                int idx, int i, int64_t latency_req_ns)
{
    const struct cpuidle_state *s = &drv->states[i];
    if (!(drv->states[idx].flags & CPUIDLE_FLAG_POLLING))
        return false;
    if (data->poll_capped && s->target_residency_ns >= RESIDENCY_THRESHOLD_NS)
        return false;
    if (!data->latency_first && s->exit_latency_ns > latency_req_ns)
        return false;
    return s->target_residency_ns <= data->next_timer_ns;
}

/* The walk's state when a deeper state i does not fit the prediction: sets
 * *done when the pick is final (tick already stopped), else may lower the
 * prediction (tick kept). */
static int menu_deeper_misses(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                              int idx, int i, int64_t delta_tick_ns, int64_t *predicted_ns,
                              bool *done)
{
    int64_t tick_ns = dev->tick_period_ns;
    if (*predicted_ns < tick_ns)
        return idx;
    if (!dev->tick_stopped) {
        /* Shallow is safe with the tick on: it will wake us to look again. */
        *predicted_ns = drv->states[idx].target_residency_ns;
        return idx;
    }
    /* Tick stopped: do not get stuck in a shallow state until the timer. */
    *done = true;
    if (drv->states[idx].target_residency_ns < tick_ns &&
        drv->states[i].target_residency_ns <= delta_tick_ns)
        return i;
    return idx;
}

/* Walk the enabled states upward and take the deepest one that fits the
 * prediction and the latency limit (see menu_deeper_misses for the rest). */
static int menu_walk(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                     const struct menu_device *data, int64_t latency_req_ns,
                     int64_t delta_tick_ns, int64_t *predicted_ns, bool *done)
{
    int idx = -1;
    *done = false;
    for (int i = 0; i < drv->state_count; i++) {
        const struct cpuidle_state *s = &drv->states[i];
        if (!cpuidle_state_enabled(drv, dev, i))
            continue;
        if (idx == -1)
            idx = i; /* the first enabled state is the fallback */
        if (data->latency_first && s->exit_latency_ns > latency_req_ns)
            break;
        if (s->target_residency_ns <= *predicted_ns) {
            if (s->exit_latency_ns > latency_req_ns)
                break;
            idx = i;
            continue;
        }
        if (menu_poll_gives_way(drv, data, idx, i, latency_req_ns)) {
            *predicted_ns = s->target_residency_ns;
            return i;
        }
        return menu_deeper_misses(drv, dev, idx, i, delta_tick_ns, predicted_ns, done);
    }
    return idx == -1 ? 0 : idx;
}

/* Keep the tick for POLL or when we expect to wake before it, and then do not
 * pick a state whose residency the tick (or timer) would cut short. */
static int menu_keep_tick(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                          int idx, int64_t predicted_ns, int64_t delta_tick_ns, bool *stop_tick)
{
    bool poll = drv->states[idx].flags & CPUIDLE_FLAG_POLLING;
    if (dev->tick_stopped || (!poll && predicted_ns >= dev->tick_period_ns))
        return idx;
    *stop_tick = false;
    if (idx == 0 || drv->states[idx].target_residency_ns <= delta_tick_ns)
        return idx;
    for (int i = idx - 1; i >= 0; i--) {
        if (!cpuidle_state_enabled(drv, dev, i))
            continue;
        idx = i;
        if (drv->states[i].target_residency_ns <= delta_tick_ns)
            break;
    }
    return idx;
}

/* menu_update: learn from the idle period that ended (FACTS.md §3 update). */
static void menu_update(const struct cpuidle_driver *drv, struct cpuidle_device *dev)
{
    struct menu_device *data = dev->governor_data;
    const struct cpuidle_state *target = &drv->states[dev->last_state_idx];
    int64_t measured_ns;

    if (data->tick_wakeup && data->next_timer_ns > dev->tick_period_ns)
        measured_ns = TICK_WAKEUP_MEASURED_NS;
    else if ((target->flags & CPUIDLE_FLAG_POLLING) && data->poll_wakeup)
        measured_ns = data->next_timer_ns;
    else if (dev->last_residency_ns > 2 * target->exit_latency_ns)
        measured_ns = dev->last_residency_ns - target->exit_latency_ns;
    else
        measured_ns = dev->last_residency_ns / 2;
    if (measured_ns > data->next_timer_ns)
        measured_ns = data->next_timer_ns; /* the factor never exceeds 1.0 */

    unsigned factor = data->correction_factor[data->bucket];
    factor -= factor / DECAY;
    if (data->next_timer_ns > 0 && measured_ns < MAX_INTERESTING_NS)
        factor += (unsigned)((uint64_t)RESOLUTION * (uint64_t)measured_ns /
                             (uint64_t)data->next_timer_ns);
    else
        factor += RESOLUTION; /* idle that long counts as a perfect prediction */
    data->correction_factor[data->bucket] = factor;

    int64_t measured_us = measured_ns / NSEC_PER_USEC;
    /* The kernel truncates to 32 bits here; saturate instead. */
    menu_update_intervals(data, measured_us > UINT_MAX ? UINT_MAX : (unsigned)measured_us);
}

static int menu_select(const struct cpuidle_driver *drv, struct cpuidle_device *dev,
                       bool *stop_tick)
{
    struct menu_device *data = dev->governor_data;
    int64_t latency_req_ns = dev->latency_req_ns;
    int64_t delta_tick_ns;
    bool done;

    if (data->needs_update) {
        menu_update(drv, dev);
        data->needs_update = false;
    } else if (!dev->last_residency_ns) {
        /* The driver refused the last state (or nothing ran yet): record an
         * unusable sample so stale history is not trusted. */
        menu_update_intervals(data, UINT_MAX);
    }

    int64_t predicted_ns = menu_predict(dev, data, &delta_tick_ns);
    data->predicted_ns = predicted_ns;
    if (menu_state0_only(drv, dev, data)) {
        *stop_tick = !(drv->states[0].flags & CPUIDLE_FLAG_POLLING);
        return 0;
    }
    if (dev->tick_stopped && predicted_ns < dev->tick_period_ns)
        predicted_ns = data->next_timer_ns;
    else if (!dev->tick_stopped && !data->latency_first &&
             latency_req_ns > predicted_ns)
        latency_req_ns = predicted_ns;

    int idx = menu_walk(drv, dev, data, latency_req_ns, delta_tick_ns, &predicted_ns, &done);
    if (done)
        return idx;
    return menu_keep_tick(drv, dev, idx, predicted_ns, delta_tick_ns, stop_tick);
}

/* menu_reflect: note what ended the period; the update runs at the next
 * select, as in the kernel, to keep the wakeup path short. */
static void menu_reflect(struct cpuidle_device *dev, int index)
{
    struct menu_device *data = dev->governor_data;
    dev->last_state_idx = index;
    data->needs_update = true;
    data->tick_wakeup = dev->woke_by_tick;
    data->poll_wakeup = dev->poll_time_limit;
}

/* menu_enable_device: empty history, every factor 1.0; the version rules of
 * dev->kernel. */
static int menu_enable_device(const struct cpuidle_driver *drv, struct cpuidle_device *dev)
{
    (void)drv;
    struct menu_device *data = dev->governor_data;
    memset(data, 0, sizeof *data);
    data->latency_first = menu_latency_checked_first(dev->kernel);
    data->poll_capped = menu_poll_rule_capped(dev->kernel);
    for (int i = 0; i < MENU_BUCKETS; i++)
        data->correction_factor[i] = RESOLUTION * DECAY;
    return 0;
}

const struct cpuidle_governor menu_governor = {
    .name = "menu",
    .rating = 20,
    .data_size = sizeof(struct menu_device),
    .enable = menu_enable_device,
    .select = menu_select,
    .reflect = menu_reflect,
};
