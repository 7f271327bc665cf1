/* driver: the cpuidle driver registry (drivers/cpuidle/driver.c).
 *
 * The kernel registers one cpuidle driver for all CPUs: the first to call
 * cpuidle_register_driver() wins and later ones get -EBUSY. On x86 intel_idle
 * (a device initcall) comes first; acpi_idle registers from the ACPI
 * processor driver when intel_idle did not (not an Intel CPU, a model
 * without table or usable _CST, intel_idle.max_cstate=0) (FACTS-2.md §5).
 * On Arm device-tree machines neither loads (no x86, no ACPI processor
 * objects) and psci_idle registers (drivers/cpuidle/cpuidle-psci.c).
 * Each driver is an ops struct tried in that order. */
#ifndef PMLAB_KERNEL_CPUIDLE_DRIVER_H
#define PMLAB_KERNEL_CPUIDLE_DRIVER_H

#include <stddef.h>

#include "hw/machine.h"
#include "kernel/cpuidle/cpuidle.h"
#include "kernel/params.h"

#define CPUIDLE_SOURCE_LEN 320
#define CPUIDLE_WHY_LEN 256

/* What a driver's probe reports besides its states. */
struct cpuidle_probe_result {
    char source[CPUIDLE_SOURCE_LEN]; /* where the states' numbers come from */
    char why_not[CPUIDLE_WHY_LEN];   /* each driver that declined, and why */
};

struct cpuidle_driver_ops {
    const char *name;
    /* Build drv (POLL first, OFF flags set) for m under kp. Returns 0 when
     * the driver registers, else a negative errno with why (as the kernel
     * would log it) and drv zeroed. source: where the numbers come from. */
    int (*probe)(const struct hw_machine *m, const struct kparams *kp,
                 struct cpuidle_driver *drv, char *source, size_t sourcesize, char *why,
                 size_t whysize);
};

/* Registered drivers in registration order, NULL-terminated. */
extern const struct cpuidle_driver_ops *const cpuidle_drivers[];

/* The driver the kernel ends up with on m: the first in cpuidle_drivers that
 * loads. Returns 0 with drv and r->source, or -1 when none does (r->why_not
 * lists each driver's reason, "; "-separated). */
int cpuidle_driver_probe(const struct hw_machine *m, const struct kparams *kp,
                         struct cpuidle_driver *drv, struct cpuidle_probe_result *r);

#endif
