/* cpufreq: CPU frequency scaling (drivers/cpufreq/), the policy layer that
 * sets each core's frequency in the simulated hardware.
 *
 * The scheduler calls cpufreq_update_util() whenever a CPU's state changes
 * (a task starts running on it, or it goes idle), like the kernel's
 * cpufreq_update_util() hook; the governor or the driver (intel_pstate's own
 * algorithms, or HWP in hardware) decides frequencies from there or from its
 * own periodic work. A frequency change goes to hw_core_set_mhz() followed by
 * sched_core_speed_changed() so running work is re-timed.
 *
 * Without a cpufreq driver every core stays at its base frequency. */
#ifndef PMLAB_KERNEL_CPUFREQ_CPUFREQ_H
#define PMLAB_KERNEL_CPUFREQ_CPUFREQ_H

#include <stdbool.h>

#include "report/results.h"

struct world;

struct cpufreq_sys {
    bool active;            /* a cpufreq driver is registered */
};

void cpufreq_init(struct world *w);
void cpufreq_destroy(struct world *w);
/* cpu started running a task or went idle at w->q.now_ns. */
void cpufreq_update_util(struct world *w, int cpu);
/* Whether cpu's policy is "powersave" in the sense of the kernel's policy
 * field: intel_pstate active powersave, or the generic powersave governor. */
bool cpufreq_cpu_is_powersave(const struct world *w, int cpu);

#endif
