/* dt_idle_states: see dt_idle_states.h.
 *
 * Why entry + exit: the binding's exit-latency-us is the time to leave the
 * state once in it, but a wake-up may arrive while the CPU is still entering
 * it, so the worst case the governor must respect is the sum
 * (init_state_node, "default to entry+exit latencies as defined in idle
 * states bindings"; a wakeup-latency-us property would replace the sum, and
 * pmlab's machine files do not take one). min-residency-us already includes
 * the entry and exit cost by the binding's definition, so it is the target
 * residency as it stands. Followed since v3.17 (Lorenzo Pieralisi, 2014). */
#include "kernel/cpuidle/dt_idle_states.h"

#include <stdio.h>
#include <string.h>

void dt_idle_state_init(struct cpuidle_state *s, const struct hw_cstate *c)
{
    memset(s, 0, sizeof *s);
    /* The state's name is the DT node's name, its desc the optional
     * idle-state-name, else the node's name too; both cut to the sysfs
     * buffers (CPUIDLE_NAME_LEN, CPUIDLE_DESC_LEN) as the kernel's copy does. */
    snprintf(s->name, sizeof s->name, "%.*s", (int)sizeof s->name - 1, c->name);
    snprintf(s->desc, sizeof s->desc, "%.*s", (int)sizeof s->desc - 1, c->name);
    s->exit_latency_ns = c->entry_latency_ns + c->exit_latency_ns;
    s->target_residency_ns = c->min_residency_ns;
    s->flags = c->local_timer_stop ? CPUIDLE_FLAG_TIMER_STOP : 0;
}
