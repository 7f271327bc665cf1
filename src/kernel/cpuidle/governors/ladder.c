/* ladder: the step-by-step cpuidle governor of periodic-tick kernels
 * (drivers/cpuidle/governors/ladder.c), FACTS.md §3 [C9].
 *
 * Why it works this way
 * ---------------------
 * Without a tickless idle the CPU wakes at every tick, so the time to the next
 * timer is never more than a tick and predicting it buys little. ladder does
 * not predict at all: it treats the states as rungs and moves one rung at a
 * time based on how the last idle periods went in the current state.
 *
 *  - Going deeper is a bet, so it needs evidence: 4 periods in a row that
 *    outlasted the current state's exit latency (measured = residency minus
 *    that latency), and a next state that is enabled and within the latency
 *    limit. A disabled rung therefore stops the climb.
 *  - Going shallower is cheap insurance, so one short period (measured below
 *    the current state's exit latency) is enough.
 *  - A rule change wins over history: if the current state became disabled or
 *    its latency exceeds the limit, ladder drops at once to the deepest state
 *    that is allowed; a zero limit means state 0.
 *
 * POLL is not a rung: the ladder starts at the first state after POLL and
 * only uses POLL for a zero latency limit. From there the next select climbs
 * straight back (POLL has no promotion threshold).
 *
 * ladder never asks to keep the tick: on the kernels it is made for there is
 * no tick to stop, and with NOHZ it lets the core stop the tick whenever the
 * core would (stop_tick is left as given).
 *
 * A quirk kept on purpose: the kernel compares the signed measured time with
 * unsigned thresholds, so a period shorter than the state's exit latency
 * (measured < 0) counts as *long*: it advances promotion and never demotes.
 * pmlab compares the same way (ladder_longer_than).
 *
 * Where pmlab departs from the kernel: on an immediate demotion the kernel
 * takes the deepest state within the latency limit without checking that it
 * is enabled, so it can enter a disabled state for one period; pmlab skips
 * disabled states there. Like the kernel, it stays on the first rung even if
 * that rung itself is disabled. Follows the 2025 tree (unchanged for years). */
#include <stdint.h>
#include <string.h>

#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/governors/gov.h"

#define PROMOTION_COUNT 4
#define DEMOTION_COUNT 1

/* The first rung: state 1 when state 0 is POLL. */
static int ladder_first_idx(const struct cpuidle_driver *drv)
{
    return (drv->states[0].flags & CPUIDLE_FLAG_POLLING) ? 1 : 0;
}

/* a > b as the kernel evaluates a measured time against a threshold (s64
 * against u64): a negative measured time compares as a huge one. */
static bool ladder_longer_than(int64_t a_ns, int64_t b_ns)
{
    return (uint64_t)a_ns > (uint64_t)b_ns;
}

/* ladder_do_selection: leaving old_idx resets its counters. */
static int ladder_do_selection(struct cpuidle_device *dev, struct ladder_device *ldev,
                               int old_idx, int new_idx)
{
    ldev->states[old_idx].stats.promotion_count = 0;
    ldev->states[old_idx].stats.demotion_count = 0;
    dev->last_state_idx = new_idx;
    return new_idx;
}

/* The deepest enabled state below last_idx within the limit, else the first
 * rung (departure: the kernel does not check "enabled" here). */
static int ladder_deepest_allowed(const struct cpuidle_driver *drv,
                                  const struct cpuidle_device *dev, int last_idx, int first_idx)
{
    for (int i = last_idx - 1; i > first_idx; i--)
        if (cpuidle_state_enabled(drv, dev, i) &&
            drv->states[i].exit_latency_ns <= dev->latency_req_ns)
            return i;
    return first_idx;
}

/* A long period: count it, and climb after PROMOTION_COUNT in a row.
 * Returns the new state or -1 to stay. */
static int ladder_consider_promotion(const struct cpuidle_driver *drv, struct cpuidle_device *dev,
                                     struct ladder_device *ldev, int last_idx,
                                     int64_t last_residency_ns)
{
    struct ladder_device_state *last_state = &ldev->states[last_idx];
    if (last_idx >= drv->state_count - 1 || !cpuidle_state_enabled(drv, dev, last_idx + 1) ||
        !ladder_longer_than(last_residency_ns, last_state->threshold.promotion_time_ns) ||
        drv->states[last_idx + 1].exit_latency_ns > dev->latency_req_ns)
        return -1;
    last_state->stats.promotion_count++;
    last_state->stats.demotion_count = 0;
    if (last_state->stats.promotion_count < last_state->threshold.promotion_count)
        return -1;
    return ladder_do_selection(dev, ldev, last_idx, last_idx + 1);
}

/* A short period: count it, and step down after DEMOTION_COUNT.
 * Returns the new state or -1 to stay. */
static int ladder_consider_demotion(struct cpuidle_device *dev, struct ladder_device *ldev,
                                    int last_idx, int first_idx, int64_t last_residency_ns)
{
    struct ladder_device_state *last_state = &ldev->states[last_idx];
    if (last_idx <= first_idx ||
        !ladder_longer_than(last_state->threshold.demotion_time_ns, last_residency_ns))
        return -1;
    last_state->stats.demotion_count++;
    last_state->stats.promotion_count = 0;
    if (last_state->stats.demotion_count < last_state->threshold.demotion_count)
        return -1;
    return ladder_do_selection(dev, ldev, last_idx, last_idx - 1);
}

static int ladder_select_state(const struct cpuidle_driver *drv, struct cpuidle_device *dev,
                               bool *stop_tick)
{
    (void)stop_tick; /* never keeps the tick, see above */
    struct ladder_device *ldev = dev->governor_data;
    int last_idx = dev->last_state_idx;
    int first_idx = ladder_first_idx(drv);

    if (dev->latency_req_ns == 0)
        return ladder_do_selection(dev, ldev, last_idx, 0);

    int64_t last_residency_ns =
        dev->last_residency_ns - drv->states[last_idx].exit_latency_ns;
    int next = ladder_consider_promotion(drv, dev, ldev, last_idx, last_residency_ns);
    if (next >= 0)
        return next;

    if (last_idx > first_idx && (!cpuidle_state_enabled(drv, dev, last_idx) ||
                                 drv->states[last_idx].exit_latency_ns > dev->latency_req_ns))
        return ladder_do_selection(dev, ldev, last_idx,
                                   ladder_deepest_allowed(drv, dev, last_idx, first_idx));

    next = ladder_consider_demotion(dev, ldev, last_idx, first_idx, last_residency_ns);
    return next >= 0 ? next : last_idx;
}

/* ladder_reflect: the state actually entered is the rung we are on (state 0
 * only counts when ladder chose it, which ladder_do_selection recorded). */
static void ladder_reflect(struct cpuidle_device *dev, int index)
{
    if (index > 0)
        dev->last_state_idx = index;
}

/* ladder_enable_device: thresholds from each state's exit latency; the
 * deepest state has no promotion threshold, the first rung no demotion one. */
static int ladder_enable_device(const struct cpuidle_driver *drv, struct cpuidle_device *dev)
{
    struct ladder_device *ldev = dev->governor_data;
    int first_idx = ladder_first_idx(drv);
    memset(ldev, 0, sizeof *ldev);
    dev->last_state_idx = first_idx;
    for (int i = first_idx; i < drv->state_count; i++) {
        struct ladder_device_state *ls = &ldev->states[i];
        ls->threshold.promotion_count = PROMOTION_COUNT;
        ls->threshold.demotion_count = DEMOTION_COUNT;
        if (i < drv->state_count - 1)
            ls->threshold.promotion_time_ns = drv->states[i].exit_latency_ns;
        if (i > first_idx)
            ls->threshold.demotion_time_ns = drv->states[i].exit_latency_ns;
    }
    return 0;
}

const struct cpuidle_governor ladder_governor = {
    .name = "ladder",
    .rating = 10,
    .data_size = sizeof(struct ladder_device),
    .enable = ladder_enable_device,
    .select = ladder_select_state,
    .reflect = ladder_reflect,
};
