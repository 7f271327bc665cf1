/* performance: the generic governor that asks for the highest frequency
 * the policy allows, once at start and again at every limit change
 * (drivers/cpufreq/cpufreq_performance.c, FACTS.md §5 [F1]). It never
 * looks at load, so it needs no hook and no tick. */
#include "kernel/cpufreq/cpufreq.h"

static void cpufreq_gov_performance_limits(struct world *w, struct cpufreq_policy *p)
{
    cpufreq_driver_target(w, p, p->max_khz);
}

const struct cpufreq_governor cpufreq_gov_performance = {
    .name = "performance",
    .strict_target = true,
    .start = cpufreq_gov_performance_limits,
    .limits = cpufreq_gov_performance_limits,
};
