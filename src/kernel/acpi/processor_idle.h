/* processor_idle: acpi_idle, the ACPI processor driver's cpuidle driver
 * (drivers/acpi/processor_idle.c, FACTS-2.md §5).
 *
 * It registers when intel_idle did not: on AMD (and other non-Intel x86),
 * with intel_idle.max_cstate=0, or on an Intel model intel_idle cannot
 * describe. Its states come from the firmware _CST (kernel/acpi/cst.h), or
 * only C1 (HLT) with processor.nocst or without a _CST: pmlab has no FADT
 * P_BLK C2/C3 (the machine file does not describe them). */
#ifndef PMLAB_KERNEL_ACPI_PROCESSOR_IDLE_H
#define PMLAB_KERNEL_ACPI_PROCESSOR_IDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/machine.h"
#include "kernel/acpi/cst.h"
#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/params.h"

#define ACPI_PROCESSOR_MAX_POWER 8   /* the default processor.max_cstate */

/* What acpi_idle's init decided besides the state list. */
struct acpi_idle_info {
    bool bm_check;              /* C3-type entries check bus-master status (BM_STS) */
    /* The state (driver index) a C3-type entry demotes to on bus-master
     * activity: the deepest non-C3 state, 0 (POLL) meaning HLT when none. */
    int safe_state_index;
    bool bm_check_state[CPUIDLE_STATE_MAX]; /* the state does the BM_STS check */
    bool sorted;                /* the _CST latencies were out of order ("FW issue") */
    char source[CPUIDLE_SOURCE_LEN];
};

/* Build drv for m under kp (acpi_processor_power_init for the boot CPU).
 * Returns 0, or -ENODEV with msg when acpi_idle does not register (idle=poll
 * or idle=halt). drv and info are zeroed on failure. */
int acpi_idle_init(const struct hw_machine *m, const struct kparams *kp,
                   struct cpuidle_driver *drv, struct acpi_idle_info *info, char *msg,
                   size_t msgsize);

/* The state acpi_idle really enters when asked for idx (acpi_idle_enter):
 * a state with the bus-master check demotes to safe_state_index while bus
 * masters are active. pmlab's machines have no bus-master (DMA) activity
 * model, so runs always pass false; the rule is here for its tests. */
int acpi_idle_state_entered(const struct acpi_idle_info *info, int idx, bool bm_active);

#endif
