/* cpuidle: the core's accounting of an idle period (cpuidle_enter_state in
 * drivers/cpuidle/cpuidle.c, FACTS.md §2 [C1, C2]). The idle loop itself, which
 * needs the simulated machine, is in kernel/sched/idle.c. */
#include "kernel/cpuidle/cpuidle.h"

/* above: the period was shorter than the state's target residency while a
 * shallower enabled state existed (the governor went too deep). below: even
 * after the exit latency the period would have fit the next deeper enabled
 * state (the governor was too shallow). */
void cpuidle_account(const struct cpuidle_driver *drv, struct cpuidle_device *dev, int idx,
                     int64_t residency_ns, bool rejected)
{
    struct cpuidle_state_usage *u = &dev->states_usage[idx];
    dev->last_state_idx = idx;
    if (rejected) {
        u->rejected++;
        dev->last_residency_ns = 0;
        return;
    }
    dev->last_residency_ns = residency_ns;
    u->usage++;
    u->time_ns += residency_ns;
    const struct cpuidle_state *s = &drv->states[idx];
    if (residency_ns < s->target_residency_ns) {
        for (int i = idx - 1; i >= 0; i--) {
            if (cpuidle_state_enabled(drv, dev, i)) {
                u->above++;
                break;
            }
        }
        return;
    }
    for (int i = idx + 1; i < drv->state_count; i++) {
        if (!cpuidle_state_enabled(drv, dev, i))
            continue;
        if (residency_ns - s->exit_latency_ns >= drv->states[i].target_residency_ns)
            u->below++;
        break;
    }
}
