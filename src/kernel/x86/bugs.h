/* bugs: the part of the kernel's Spectre v2 mitigation choice
 * (arch/x86/kernel/cpu/bugs.c) that changes idle behaviour: whether the kernel
 * runs with IBRS set on kernel entry (X86_FEATURE_KERNEL_IBRS). With legacy
 * IBRS the bit covers the whole core, so an idle SMT thread sitting in the
 * kernel slows its busy sibling unless intel_idle clears SPEC_CTRL around
 * MWAIT (FACTS.md §7). */
#ifndef PMLAB_KERNEL_X86_BUGS_H
#define PMLAB_KERNEL_X86_BUGS_H

#include <stdbool.h>

#include "hw/machine.h"
#include "kernel/params.h"

/* The Spectre v2 mitigation the kernel ends up with (enum spectre_v2_mitigation). */
enum spectre_v2_mitigation {
    SPECTRE_V2_NONE,
    SPECTRE_V2_RETPOLINE,
    SPECTRE_V2_LFENCE,
    SPECTRE_V2_EIBRS,
    SPECTRE_V2_EIBRS_RETPOLINE,
    SPECTRE_V2_EIBRS_LFENCE,
    SPECTRE_V2_IBRS,
};

/* What the kernel reports in /sys/devices/system/cpu/vulnerabilities/spectre_v2
 * for mode, e.g. "Mitigation: IBRS". */
const char *spectre_v2_mitigation_name(enum spectre_v2_mitigation mode);

/* The mitigation chosen for machine m under the variant's command line
 * (spectre_v2=, nospectre_v2, mitigations=, retbleed=) and kernel version.
 * Never fails: options the kernel would refuse fall back to auto as it does. */
enum spectre_v2_mitigation x86_spectre_v2_select_mitigation(const struct hw_machine *m,
                                                           const struct kparams *kp);

/* Whether X86_FEATURE_KERNEL_IBRS is set: the chosen mitigation is IBRS
 * (legacy IBRS toggled on kernel entry and exit). */
bool x86_kernel_ibrs_active(const struct hw_machine *m, const struct kparams *kp);

/* Whether mitigations=auto,nosmt turns SMT off on m (cpu_smt_disable, as the
 * nosmt parameter does): from v5.2, on an Intel part with the L1TF and MDS
 * bugs (the Haswell to Kaby/Coffee Lake generations, Skylake-SP). */
bool x86_mitigations_disable_smt(const struct hw_machine *m, const struct kparams *kp);

#endif
