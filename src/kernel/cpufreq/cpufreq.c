/* cpufreq: the policy layer, see cpufreq.h. This file holds the core; with
 * no driver registered the cores keep their base frequency. */
#include "kernel/cpufreq/cpufreq.h"

#include <string.h>

#include "world.h"

void cpufreq_init(struct world *w)
{
    memset(&w->cpufreq, 0, sizeof w->cpufreq);
}

void cpufreq_destroy(struct world *w)
{
    memset(&w->cpufreq, 0, sizeof w->cpufreq);
}

void cpufreq_update_util(struct world *w, int cpu)
{
    (void)w;
    (void)cpu;
}

bool cpufreq_cpu_is_powersave(const struct world *w, int cpu)
{
    (void)w;
    (void)cpu;
    return false;
}
