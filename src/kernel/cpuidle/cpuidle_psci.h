/* cpuidle_psci: the cpuidle driver of Arm machines whose firmware speaks
 * PSCI (drivers/cpuidle/cpuidle-psci.c), with its states from the device
 * tree (dt_idle_states.h). See cpuidle_psci.c for what is modelled. */
#ifndef PMLAB_KERNEL_CPUIDLE_CPUIDLE_PSCI_H
#define PMLAB_KERNEL_CPUIDLE_CPUIDLE_PSCI_H

#include <stddef.h>

#include "hw/machine.h"
#include "kernel/cpuidle/cpuidle.h"
#include "util/diag.h"

/* Build psci_idle's table for m into drv: WFI, then the device-tree states
 * of cpu0's core type. Returns 0, or -ENODEV with why when m is not an Arm
 * machine (PSCI is Arm's firmware interface). source: where the numbers
 * come from, for explain. */
int psci_idle_init(const struct hw_machine *m, struct cpuidle_driver *drv, char *source,
                   size_t sourcesize, char *why, size_t whysize);

/* What an Arm machine file must satisfy for psci_idle: every core type
 * lists the same device-tree states (pmlab registers one driver for all
 * CPUs). Returns 0 (also for non-Arm machines), or -1 with d set. */
int psci_idle_check_machine(const struct hw_machine *m, struct diag *d);

#endif
