/* driver: the cpuidle driver registry, see driver.h. */
#include "kernel/cpuidle/driver.h"

#include <stdio.h>
#include <string.h>

extern const struct cpuidle_driver_ops intel_idle_driver_ops, acpi_idle_driver_ops,
    psci_idle_driver_ops;

const struct cpuidle_driver_ops *const cpuidle_drivers[] = {
    &intel_idle_driver_ops,
    &acpi_idle_driver_ops,
    &psci_idle_driver_ops,
    NULL,
};

int cpuidle_driver_probe(const struct hw_machine *m, const struct kparams *kp,
                         struct cpuidle_driver *drv, struct cpuidle_probe_result *r)
{
    memset(r, 0, sizeof *r);
    size_t len = 0;
    for (const struct cpuidle_driver_ops *const *d = cpuidle_drivers; *d; d++) {
        char why[CPUIDLE_WHY_LEN] = "";
        if ((*d)->probe(m, kp, drv, r->source, sizeof r->source, why, sizeof why) == 0)
            return 0;
        if (len < sizeof r->why_not)
            len += (size_t)snprintf(r->why_not + len, sizeof r->why_not - len, "%s%s",
                                    len ? "; " : "", why);
    }
    return -1;
}
