/* poll_state: the core's state 0 (drivers/cpuidle/poll_state.c, FACTS.md §2
 * [C4]). POLL spins with interrupts on and advertises polling so wakers skip
 * the IPI; it ends at need_resched or when its time limit elapses, which the
 * governors treat as an artificial wakeup. */
#include <stdint.h>
#include <stdio.h>

#include "kernel/cpuidle/cpuidle.h"

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

int64_t cpuidle_poll_limit_ns(const struct cpuidle_driver *drv, const struct cpuidle_device *dev)
{
    if (dev->poll_limit_ns)
        return dev->poll_limit_ns;
    for (int i = 1; i < drv->state_count; i++)
        if (cpuidle_state_enabled(drv, dev, i))
            return drv->states[i].target_residency_ns;
    return dev->tick_period_ns;
}
