/* cpufreq and intel_pstate knobs (drivers/cpufreq/cpufreq.c, intel_pstate.c):
 * filled in with the cpufreq model. */
#include <stddef.h>

#include "kernel/params.h"

const struct kparam cpufreq_params[] = {
    { .name = NULL },
};
