/* world_devices: a run's platform devices ([device NAME] sections, see
 * hw/device.h): their interrupts on the kernel's idle path and the package
 * depth limit their activity holds. */
#ifndef PMLAB_WORLD_DEVICES_H
#define PMLAB_WORLD_DEVICES_H

#include "hw/device.h"

struct world;

/* Create the devices of cfg[n] in w and queue their first interrupts (none
 * for n = 0). The configurations must outlive the world. */
void world_devices_create(struct world *w, const struct hw_device_config *cfg, int n);
void world_devices_destroy(struct world *w);

#endif
