/* poll_state: the core's state 0 (drivers/cpuidle/poll_state.c, FACTS.md §2
 * [C4]). POLL spins with interrupts on and advertises polling so wakers skip
 * the IPI; it ends at need_resched or when its time limit elapses, which the
 * governors treat as an artificial wakeup.
 *
 * The limit is the kernel's cpuidle_poll_time() (drivers/cpuidle/cpuidle.c),
 * keyed by dev->kernel as FACTS-2.md §2 gives its history. Departures: before
 * v4.17 POLL had no limit at all; pmlab runs those kernels with v4.17's. The
 * kernel caches the result in dev->poll_limit_ns until a sysfs write; pmlab
 * recomputes it per POLL entry, which gives the same value because a run's
 * disable flags never change. */
#include <stdint.h>
#include <stdio.h>

#include "kernel/cpuidle/cpuidle.h"
#include "kernel/kversion.h"

void cpuidle_poll_state_init(struct cpuidle_driver *drv)
{
    struct cpuidle_state *s = &drv->states[0];
    snprintf(s->name, sizeof s->name, "POLL");
    snprintf(s->desc, sizeof s->desc, "CPUIDLE CORE POLL IDLE");
    s->exit_latency_ns = 0;
    s->target_residency_ns = 0;
    s->flags = CPUIDLE_FLAG_POLLING;
    s->enter = CPUIDLE_ENTER_POLL;
    s->mwait_hint = 0;
}

/* Which rule cpuidle_poll_time() follows (FACTS-2.md §2 [P1-P3]). The
 * versions are compared as numbers, not parsed from text: this runs on every
 * POLL entry. */
enum cpuidle_poll_rule {
    CPUIDLE_POLL_FIXED,         /* v4.17 (612f1a22f067): TICK_NSEC/16 */
    CPUIDLE_POLL_FIRST_STATE,   /* v5.5 and 5.4.4 (36fcb4292473): the first enabled
                                 * state's residency, else TICK_NSEC */
    CPUIDLE_POLL_FLOOR_CAP,     /* v5.11 (7a25759eaa04): the first enabled state with
                                 * residency >= CPUIDLE_POLL_MIN, capped at
                                 * CPUIDLE_POLL_MAX = TICK_NSEC/16, else the cap */
};

static const struct kversion cpuidle_poll_first_state_since = { 5, 4, 4 };
static const struct kversion cpuidle_poll_floor_cap_since = { 5, 11, 0 };

/* CPUIDLE_POLL_MIN, ns: 7a25759eaa04's guess at one ping-pong round trip
 * (perf bench sched pipe); a state shallower than that does not cut the
 * polling short. */
#define CPUIDLE_POLL_MIN_NS 10000

static enum cpuidle_poll_rule cpuidle_poll_rule_of(const struct kversion *k)
{
    if (!k || kversion_cmp(k, &cpuidle_poll_floor_cap_since) >= 0)
        return CPUIDLE_POLL_FLOOR_CAP;
    if (kversion_cmp(k, &cpuidle_poll_first_state_since) >= 0)
        return CPUIDLE_POLL_FIRST_STATE;
    return CPUIDLE_POLL_FIXED;
}

/* First enabled non-POLL state with target residency >= min_ns, or -1. */
static int cpuidle_poll_first_state(const struct cpuidle_driver *drv,
                                    const struct cpuidle_device *dev, int64_t min_ns)
{
    for (int i = 1; i < drv->state_count; i++)
        if (cpuidle_state_enabled(drv, dev, i) && drv->states[i].target_residency_ns >= min_ns)
            return i;
    return -1;
}

int64_t cpuidle_poll_limit_ns(const struct cpuidle_driver *drv, const struct cpuidle_device *dev)
{
    if (dev->poll_limit_ns)
        return dev->poll_limit_ns;
    int64_t max_ns = dev->tick_period_ns / 16; /* CPUIDLE_POLL_MAX = TICK_NSEC/16 */
    int i;
    switch (cpuidle_poll_rule_of(dev->kernel)) {
    case CPUIDLE_POLL_FIXED:
        return max_ns;
    case CPUIDLE_POLL_FIRST_STATE:
        i = cpuidle_poll_first_state(drv, dev, 0);
        return i < 0 ? dev->tick_period_ns : drv->states[i].target_residency_ns;
    case CPUIDLE_POLL_FLOOR_CAP:
        break;
    }
    i = cpuidle_poll_first_state(drv, dev, CPUIDLE_POLL_MIN_NS);
    if (i < 0 || drv->states[i].target_residency_ns > max_ns)
        return max_ns;
    return drv->states[i].target_residency_ns;
}
