/* powersave: the generic governor that asks for the lowest frequency the
 * policy allows, at start and at every limit change
 * (drivers/cpufreq/cpufreq_powersave.c, FACTS.md §5 [F1]). Not to be
 * confused with intel_pstate's active-mode "powersave" policy, which scales
 * with load (intel_pstate.c); both count as powersave for
 * cpufreq_cpu_is_powersave(). */
#include "kernel/cpufreq/cpufreq.h"

static void cpufreq_gov_powersave_limits(struct world *w, struct cpufreq_policy *p)
{
    cpufreq_driver_target(w, p, p->min_khz);
}

const struct cpufreq_governor cpufreq_gov_powersave = {
    .name = "powersave",
    .strict_target = true,
    .start = cpufreq_gov_powersave_limits,
    .limits = cpufreq_gov_powersave_limits,
};
