/* intel_idle: the native cpuidle driver for Intel CPUs (drivers/idle/intel_idle.c).
 *
 * It only describes states: from the per-model static table (or, for a model
 * it does not know, from the firmware's ACPI _CST) it builds the driver's state
 * list once at boot, with each state's flags, its disabled-by-default mark and
 * its entry method. The rules and the kernel version followed are in
 * intel_idle.c; the numbers in FACTS.md §1. */
#ifndef PMLAB_KERNEL_IDLE_INTEL_IDLE_H
#define PMLAB_KERNEL_IDLE_INTEL_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/machine.h"
#include "kernel/acpi/cst.h"
#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/params.h"

/* Driver-private state flags, kept in cpuidle_state.flags as the kernel keeps
 * them (same bit numbers as drivers/idle/intel_idle.c). */
#define INTEL_IDLE_FLAG_IRQ_ENABLE    (1u << 14) /* enter with IRQs on */
#define INTEL_IDLE_FLAG_ALWAYS_ENABLE (1u << 15) /* enabled even if _CST omits it */
#define INTEL_IDLE_FLAG_IBRS          (1u << 16) /* may idle with IBRS off (kernel IBRS) */
#define INTEL_IDLE_FLAG_INIT_XSTATE   (1u << 17) /* reset AMX state before MWAIT */
#define INTEL_IDLE_FLAG_PARTIAL_HINT_MATCH (1u << 18) /* match _CST by major C-state */

/* What the driver does with C1E promotion (bit 1 of MSR_IA32_POWER_CTL) on each
 * CPU it brings up. */
enum intel_idle_c1e_promotion {
    C1E_PROMOTION_PRESERVE, /* leave the firmware's setting */
    C1E_PROMOTION_ENABLE,   /* set: hardware turns C1 requests into C1E */
    C1E_PROMOTION_DISABLE,  /* clear: C1 and C1E stay distinct */
};

/* What intel_idle_init decided besides the state list. */
struct intel_idle_info {
    const char *table;      /* static table used ("skx", "adl", ...), or "acpi" (_CST) */
    bool kernel_ibrs;       /* X86_FEATURE_KERNEL_IBRS */
    bool smt_active;        /* sched_smt_active(): SPEC_CTRL is toggled only then */
    bool acpi_cst_read;     /* the _CST was read (use_acpi model/knob, or no table) */
    enum intel_idle_c1e_promotion c1e_promotion;
    /* The OFF flag of each state: sysfs `disable` starts at 1 (user may clear). */
    bool off_by_default[CPUIDLE_STATE_MAX];
    /* The usable states intel_idle.max_cstate (max_cstate) left out of the
     * driver: they have no sysfs directory at all. */
    int max_cstate;
    int nremoved;
    char removed[CPUIDLE_STATE_MAX][CPUIDLE_NAME_LEN];
    /* Where the state list's latencies and residencies come from, for
     * `pmlab explain`: the kernel's table for the model (the machine file's
     * [cstate] numbers are then only the hardware's exit times), or the
     * firmware _CST (the file's [firmware] cst_* or pmlab's reference set). */
    char source[CPUIDLE_SOURCE_LEN];
};

/* Build drv for machine m under the variant's knobs (intel_idle_init). Returns
 * 0 when the driver registers: drv holds POLL plus the usable states and info
 * is filled. Returns a negative errno when it does not load, with msg saying
 * why as the kernel would log it: any idle= option (-ENODEV), max_cstate=0
 * (-EPERM; acpi_idle then registers, kernel/acpi/processor_idle.c), a
 * non-Intel CPU, or a model without a table and without a usable _CST
 * (-ENODEV). drv and info are zeroed on failure. */
int intel_idle_init(const struct hw_machine *m, const struct kparams *kp,
                    struct cpuidle_driver *drv, struct intel_idle_info *info, char *msg,
                    size_t msgsize);

/* The firmware _CST of m (see intel_idle.c): the machine file's [firmware]
 * cst_* keys when given, else for ALDERLAKE* and RAPTORLAKE* the Intel
 * reference C1/C6/C10 set, else none. Returns a short phrase naming which,
 * for messages ("machine file [firmware] cst_*"). */
const char *intel_idle_firmware_cst(const struct hw_machine *m, struct acpi_cst *cst);

/* Whether intel_idle has a static table for cpu_model on kernel kv. */
bool intel_idle_model_has_table(const char *cpu_model, const struct kversion *kv);

/* Check m's vendor and, for Intel, that intel_idle can describe its idle
 * states: a model with a static table or a known firmware _CST, or any model
 * when the machine file gives its _CST ([firmware] cst_*; the kernel's ACPI
 * fallback). A typo such as SKYLAKE_XX otherwise ran silently on HLT with no
 * cpuidle driver. Returns 0, or -1 with d = "MACHINE:LINE: ..." listing the
 * known models. */
int intel_idle_check_machine(const struct hw_machine *m, struct diag *d);

#endif
