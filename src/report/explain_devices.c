/* explain_devices: the machine's package states and the scenario's platform
 * devices ([device NAME], hw/device.h), with the package-depth limit each
 * holds while active. */
#include <stdio.h>

#include "hw/device.h"
#include "hw/machine.h"
#include "report/explain.h"
#include "sim/time.h"

void explain_add_pkgstates(struct explain *x, const struct hw_machine *m)
{
    for (int i = 0; i < m->npkgstates; i++) {
        const struct hw_pkgstate *p = &m->pkgstates[i];
        explain_add(x, "package state %s: when every core is in %s or deeper and the platform "
                       "allows it; exit +%g us, %g mW", p->name, p->core_cstate,
                    (double)p->exit_latency_ns / SIM_NS_PER_US, p->pkg_power_mw);
    }
}

void explain_add_devices(struct explain *x, const struct hw_machine *m,
                         const struct hw_device_config *dev, int n)
{
    for (int i = 0; i < n; i++) {
        const struct hw_device_config *d = &dev[i];
        if (d->pkg_limit >= 0)
            explain_add(x, "device %s: %g interrupts/s on cpu%d; package-depth limit %s while "
                           "active (until %g ms after its latest interrupt)", d->name, d->irq_hz,
                        d->cpu, m->pkgstates[d->pkg_limit].name, d->active_ms);
        else
            explain_add(x, "device %s: %g interrupts/s on cpu%d; no package-depth limit", d->name,
                        d->irq_hz, d->cpu);
    }
}
