/* teo: the timer-events-oriented cpuidle governor (drivers/cpuidle/governors/
 * teo.c, 2025 form), FACTS.md §3 [C6, C7].
 *
 * Why it works this way
 * ---------------------
 * On most machines timers are by far the commonest reason a CPU wakes up, and
 * the next timer can be known in advance. So teo starts from the assumption
 * that the CPU sleeps until its next timer (the "sleep length"), and asks the
 * recent past only one question: how often did something else wake it first,
 * early enough to have made a shallower state the right choice?
 *
 * To count that, the time axis is cut into bins at the states' target
 * residencies (bin i = [residency i, residency i+1)). After each wakeup the
 * measured idle time and the sleep length each fall into a bin. Same bin: a
 * "hit" (the timer, or something near it, ended the sleep). Earlier bin: an
 * "intercept" in the measured bin (something else cut the sleep short).
 * Counts decay by 1/8 per wakeup and each event adds 1024, so they describe
 * roughly the last few dozen wakeups.
 *
 * Selection starts from the deepest enabled state. If intercepts that ended
 * before it outweigh everything that reached it (2 x intercepts > the rest),
 * teo walks down and settles where the intercepts below the candidate are
 * mostly accounted for: that is the deepest state the idle time exceeded in
 * most of the cut-short cases. The latency limit caps the result.
 *
 * Reading the sleep length costs time. If the pick is shallow (< 15 µs, or
 * POLL) and most recent idles were that short anyway (or the latency limit
 * forces shallow states), the answer cannot get shallower, so teo returns
 * without reading the timer and keeps the tick. Otherwise it reads the timer
 * and steps down to a state that fits before it.
 *
 * The tick: if wakeups that came before the tick without a timer to cause
 * them are most of the traffic (> 5/8), and the pick is shallower than a
 * tick, the CPU will most likely wake before the tick anyway: teo keeps it
 * running (stopping it costs more than it saves), and generally whenever it
 * expects to wake before the tick.
 *
 * Two wakeups teach nothing about the workload and count as "slept until the
 * timer": POLL ending at its time limit, and the tick firing while the timer
 * was more than a tick away (the tick had only been kept as a safety net).
 *
 * Versions (keyed by dev->kernel): the 2025 form, except for what counts
 * toward the tick rule (teo_tick_intercept):
 *  - before 6.14 (6.12's teo.c): every intercept, where a timer at least a
 *    tick away (with the deepest state below a tick) sits in an extra bin
 *    beyond the deepest one: all wakeups before the tick that no timer caused;
 *  - 6.14 to 6.18: d619b5cc6780 ("Simplify counting events used for tick
 *    management") meant the same but tested measured >= TICK_NSEC: intercepts
 *    at least a tick long, the reverse;
 *  - 6.19 on: R. Wysocki, "teo: Fix tick_intercepts handling in teo_update()"
 *    (linux-pm, 16 Nov 2025, for 6.19 and stable; the merge not verified):
 *    intercepts no longer than a tick.
 * Not modelled: 6.12's other early-return rules (before 6.14 the short_idles
 * test did not exist: a pick under 15 us kept the tick when state 0 polls),
 * the util-awareness threshold (early 2023 to its June 2024 revert [C8]) and
 * the 6.4-era "recent intercepts" rule [C7-old]. */
#include <stdint.h>
#include <string.h>

#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/governors/gov.h"
#include "kernel/kversion.h"

/* A latency limit below this forces shallow states whatever the timer says. */
#define LATENCY_THRESHOLD_NS (RESIDENCY_THRESHOLD_NS / 2)
#define PULSE 1024u
#define DECAY_SHIFT 3

static const struct kversion teo_tick_intercepts_since = { 6, 14, 0 };   /* d619b5cc6780 */
static const struct kversion teo_tick_intercepts_fixed_since = { 6, 19, 0 };

/* The measured idle time of the period that ended, INT64_MAX for an
 * artificial wakeup; counts it in short_idles when short. */
static int64_t teo_measured_ns(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                               struct teo_cpu *cpu_data)
{
    if (cpu_data->artificial_wakeup)
        return INT64_MAX;
    int64_t lat_ns = drv->states[dev->last_state_idx].exit_latency_ns;
    int64_t measured_ns = dev->last_residency_ns;
    /* The exit latency is rarely paid in full: take half of it. */
    if (measured_ns >= lat_ns) {
        measured_ns -= lat_ns / 2;
        if (measured_ns < RESIDENCY_THRESHOLD_NS)
            cpu_data->short_idles += PULSE;
    } else {
        measured_ns /= 2;
        cpu_data->short_idles += PULSE;
    }
    return measured_ns;
}

/* Whether the period counts toward tick_intercepts (see Versions above);
 * intercept: it was an intercept in the state bins. NULL kernel: the newest. */
static bool teo_tick_intercept(const struct cpuidle_driver *drv,
                               const struct cpuidle_device *dev,
                               const struct teo_cpu *cpu_data, int64_t measured_ns,
                               bool intercept)
{
    int64_t tick_ns = dev->tick_period_ns;
    const struct kversion *k = dev->kernel;
    if (k && kversion_cmp(k, &teo_tick_intercepts_since) < 0) {
        int64_t deepest_ns = drv->states[drv->state_count - 1].target_residency_ns;
        if (deepest_ns < tick_ns && cpu_data->sleep_length_ns >= tick_ns)
            return measured_ns < tick_ns;   /* the timer's bin is the extra one */
        return intercept;
    }
    if (!intercept)
        return false;
    if (k && kversion_cmp(k, &teo_tick_intercepts_fixed_since) < 0)
        return measured_ns >= tick_ns;
    return measured_ns <= tick_ns;
}

/* teo_update: decay every metric, then record the period as a hit in the
 * sleep length's bin or an intercept in the measured bin. */
static void teo_update(const struct cpuidle_driver *drv, struct cpuidle_device *dev)
{
    struct teo_cpu *cpu_data = dev->governor_data;
    int idx_timer = 0, idx_duration = 0;

    cpu_data->short_idles -= cpu_data->short_idles >> DECAY_SHIFT;
    int64_t measured_ns = teo_measured_ns(drv, dev, cpu_data);

    for (int i = 0; i < drv->state_count; i++) {
        struct teo_bin *bin = &cpu_data->state_bins[i];
        bin->hits -= bin->hits >> DECAY_SHIFT;
        bin->intercepts -= bin->intercepts >> DECAY_SHIFT;
        int64_t residency_ns = drv->states[i].target_residency_ns;
        if (residency_ns <= cpu_data->sleep_length_ns) {
            idx_timer = i;
            if (residency_ns <= measured_ns)
                idx_duration = i;
        }
    }

    cpu_data->tick_intercepts -= cpu_data->tick_intercepts >> DECAY_SHIFT;
    bool intercept = idx_timer != idx_duration;
    if (intercept)
        cpu_data->state_bins[idx_duration].intercepts += PULSE;
    else
        cpu_data->state_bins[idx_timer].hits += PULSE;
    if (teo_tick_intercept(drv, dev, cpu_data, measured_ns, intercept))
        cpu_data->tick_intercepts += PULSE;
    cpu_data->total -= cpu_data->total >> DECAY_SHIFT;
    cpu_data->total += PULSE;
}

/* With the tick stopped, only states at least a tick deep are acceptable. */
static bool teo_state_ok(const struct cpuidle_driver *drv, const struct cpuidle_device *dev, int i)
{
    return !dev->tick_stopped || drv->states[i].target_residency_ns >= dev->tick_period_ns;
}

/* The deepest enabled state below state_idx whose residency fits duration_ns,
 * else the shallowest enabled one below it, else state_idx. */
static int teo_find_shallower_state(const struct cpuidle_driver *drv,
                                    const struct cpuidle_device *dev, int state_idx,
                                    int64_t duration_ns)
{
    for (int i = state_idx - 1; i >= 0; i--) {
        if (!cpuidle_state_enabled(drv, dev, i))
            continue;
        state_idx = i;
        if (drv->states[i].target_residency_ns <= duration_ns)
            break;
    }
    return state_idx;
}

/* One pass over the states: the candidate (deepest enabled), the first
 * enabled one, the deepest within the latency limit, and the sums of the
 * metrics of the bins below the candidate. */
struct teo_scan {
    int idx;                    /* -1 if no state is enabled */
    int idx0;
    int constraint_idx;
    unsigned idx_intercept_sum;
    unsigned idx_hit_sum;
};

static struct teo_scan teo_scan_states(const struct cpuidle_driver *drv,
                                       const struct cpuidle_device *dev,
                                       const struct teo_cpu *cpu_data)
{
    struct teo_scan r = { .idx = cpuidle_state_enabled(drv, dev, 0) ? 0 : -1 };
    unsigned intercept_sum = 0, hit_sum = 0;
    for (int i = 1; i < drv->state_count; i++) {
        intercept_sum += cpu_data->state_bins[i - 1].intercepts;
        hit_sum += cpu_data->state_bins[i - 1].hits;
        if (!cpuidle_state_enabled(drv, dev, i))
            continue;
        if (r.idx < 0)
            r.idx0 = i;
        r.idx = i;
        if (drv->states[i].exit_latency_ns <= dev->latency_req_ns)
            r.constraint_idx = i;
        r.idx_intercept_sum = intercept_sum;
        r.idx_hit_sum = hit_sum;
    }
    return r;
}

/* The intercepts rule: walk down from the candidate to the first state where
 * the intercepts between it and the candidate exceed half of all intercepts
 * below the candidate, skipping states too shallow for a stopped tick. */
static int teo_intercepts_rule(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                               const struct teo_cpu *cpu_data, const struct teo_scan *scan)
{
    int idx = scan->idx;
    if (2 * scan->idx_intercept_sum <= cpu_data->total - scan->idx_hit_sum)
        return idx;
    int first_suitable_idx = idx;
    unsigned intercept_sum = 0;
    for (int i = idx - 1; i >= 0; i--) {
        intercept_sum += cpu_data->state_bins[i].intercepts;
        if (2 * intercept_sum > scan->idx_intercept_sum) {
            if (teo_state_ok(drv, dev, i) && cpuidle_state_enabled(drv, dev, i))
                return i;
            return first_suitable_idx;
        }
        if (!cpuidle_state_enabled(drv, dev, i))
            continue;
        if (teo_state_ok(drv, dev, i)) {
            first_suitable_idx = i; /* deep enough; a better one may follow */
            continue;
        }
        if (first_suitable_idx == idx)
            break; /* only shallower, unsuitable states remain */
    }
    return idx;
}

/* Whether the tick may be stopped for state idx given the expected idle
 * duration; when it may not, keep the pick within the time to the tick. */
static int teo_tick_decision(const struct cpuidle_driver *drv, const struct cpuidle_device *dev,
                             int idx, int idx0, int64_t duration_ns, int64_t delta_tick_ns,
                             bool *stop_tick)
{
    bool poll = drv->states[idx].flags & CPUIDLE_FLAG_POLLING;
    if ((!poll && duration_ns >= dev->tick_period_ns) || dev->tick_stopped)
        return idx;
    if (idx > idx0 && drv->states[idx].target_residency_ns > delta_tick_ns)
        idx = teo_find_shallower_state(drv, dev, idx, delta_tick_ns);
    *stop_tick = false;
    return idx;
}

/* After the pick is known not to be trivially shallow: read the sleep length,
 * step down to fit it, and decide on the tick. */
static int teo_fit_sleep_length(const struct cpuidle_driver *drv, struct cpuidle_device *dev,
                                struct teo_cpu *cpu_data, int idx, int idx0, bool *stop_tick)
{
    int64_t duration_ns = dev->next_timer_ns;
    cpu_data->sleep_length_ns = duration_ns;
    if (idx == 0) {
        *stop_tick = false;
        return 0;
    }
    if (drv->states[idx].target_residency_ns > duration_ns) {
        int i = teo_find_shallower_state(drv, dev, idx, duration_ns);
        if (teo_state_ok(drv, dev, i))
            idx = i;
    }
    unsigned total = cpu_data->total;
    if (drv->states[idx].target_residency_ns < dev->tick_period_ns &&
        cpu_data->tick_intercepts > total / 2 + total / 8)
        duration_ns = dev->tick_period_ns / 2; /* long intercepts dominate */
    return teo_tick_decision(drv, dev, idx, idx0, duration_ns, dev->delta_tick_ns, stop_tick);
}

static int teo_select(const struct cpuidle_driver *drv, struct cpuidle_device *dev,
                      bool *stop_tick)
{
    struct teo_cpu *cpu_data = dev->governor_data;

    if (cpu_data->needs_update) {
        teo_update(drv, dev);
        cpu_data->needs_update = false;
    }
    /* Unless read below, the next wakeup cannot be told from a timer one. */
    cpu_data->sleep_length_ns = INT64_MAX;

    struct teo_scan scan = { .idx = -1 };
    if (drv->state_count >= 2)
        scan = teo_scan_states(drv, dev, cpu_data);
    if (scan.idx < 0) {
        *stop_tick = false; /* no choice (or nothing enabled): state 0 */
        return 0;
    }
    if (scan.idx == scan.idx0) {
        /* One enabled state: use it, keeping the tick if it is shallow. */
        return teo_tick_decision(drv, dev, scan.idx, scan.idx0,
                                 drv->states[scan.idx].target_residency_ns,
                                 dev->tick_period_ns / 2, stop_tick);
    }

    int idx = teo_intercepts_rule(drv, dev, cpu_data, &scan);
    if (idx > scan.constraint_idx)
        idx = scan.constraint_idx;

    bool shallow = idx == 0 || drv->states[idx].target_residency_ns < RESIDENCY_THRESHOLD_NS;
    if (shallow && (2 * cpu_data->short_idles >= cpu_data->total ||
                    dev->latency_req_ns < LATENCY_THRESHOLD_NS)) {
        *stop_tick = false; /* shallow either way: skip reading the timer */
        return idx;
    }
    return teo_fit_sleep_length(drv, dev, cpu_data, idx, scan.idx0, stop_tick);
}

/* teo_reflect: mark the period for teo_update and tell artificial wakeups
 * (POLL time limit; tick while the timer was farther than a tick) apart. */
static void teo_reflect(struct cpuidle_device *dev, int index)
{
    struct teo_cpu *cpu_data = dev->governor_data;
    dev->last_state_idx = index;
    cpu_data->needs_update = true;
    cpu_data->artificial_wakeup =
        dev->poll_time_limit ||
        (dev->woke_by_tick && cpu_data->sleep_length_ns > dev->tick_period_ns);
    dev->poll_time_limit = false; /* consumed, as the kernel's teo does */
}

static int teo_enable_device(const struct cpuidle_driver *drv, struct cpuidle_device *dev)
{
    (void)drv;
    memset(dev->governor_data, 0, sizeof(struct teo_cpu));
    return 0;
}

const struct cpuidle_governor teo_governor = {
    .name = "teo",
    .rating = 19,
    .data_size = sizeof(struct teo_cpu),
    .enable = teo_enable_device,
    .select = teo_select,
    .reflect = teo_reflect,
};
