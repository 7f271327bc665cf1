/* itmt: Intel Turbo Boost Max 3.0 / ITMT scheduler support
 * (arch/x86/kernel/itmt.c) and the per-CPU priorities intel_pstate gives it,
 * FACTS.md §6 [A5, A6, F5], or amd-pstate's preferred core since v6.9
 * (FACTS-2.md §6 [D1, D4]; kernel/cpufreq/amd_pstate.c).
 *
 * A driver sets a priority per CPU (sched_set_itmt_core_prio) and, once two
 * CPUs differ, declares the system ITMT capable (sched_set_itmt_support): the
 * sysctl kernel.sched_itmt_enabled appears, set to 1, and the scheduler packs
 * work toward high-priority CPUs (SD_ASYM_PACKING; kernel/sched/balance.c).
 * Like the rest of a variant's boot, the outcome is a pure function of the
 * machine and the kernel settings: itmt_resolve computes it. */
#ifndef PMLAB_KERNEL_X86_ITMT_H
#define PMLAB_KERNEL_X86_ITMT_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/machine.h"
#include "kernel/params.h"
#include "util/diag.h"

struct itmt {
    bool capable;         /* sched_itmt_capable */
    bool enabled;         /* sysctl_sched_itmt_enabled */
    int ncpus;
    int *prio;            /* [ncpus] sched_core_priority, 0 where none was set */
    char why[256];        /* when not capable: why, in a few words */
    bool amd_pstate;      /* amd-pstate was the driver asked (preferred core) */
};

/* Resolve ITMT for kp on m into it (prio allocated; free with itmt_destroy):
 * the cpufreq driver's priorities, support, and a sysctl write. */
void itmt_resolve(const struct hw_machine *m, const struct kparams *kp, struct itmt *it);
void itmt_destroy(struct itmt *it);

/* sched_set_itmt_core_prio: set the priority of core_cpu's core from its
 * highest performance prio_perf. How SMT siblings share it depends on k (see
 * itmt.c). */
void sched_set_itmt_core_prio(const struct hw_machine *m, const struct kversion *k,
                              struct itmt *it, int prio_perf, int core_cpu);
/* sched_set_itmt_support: the system is ITMT capable; the sysctl defaults to 1. */
void sched_set_itmt_support(struct itmt *it);

/* Check a variant's write to /proc/sys/kernel/sched_itmt_enabled: the file
 * exists only on an ITMT-capable system. 0, or -1 with d = "file:line: ...". */
int itmt_validate(const struct hw_machine *m, const struct kparams *kp, const char *file,
                  struct diag *d);

/* What `pmlab explain` shows of CPPC and ITMT (report/explain_itmt.c prints
 * it): whether acpi_cppc appears in sysfs, the sysctl, each CPU's priority. */
struct itmt_explain {
    int ncpus;
    int ncppc;               /* CPUs with /sys/devices/system/cpu/cpuN/acpi_cppc */
    char cppc_why[128];      /* when ncppc < ncpus: why the probe failed */
    struct itmt itmt;
};
/* Fill e for kp on m (free with itmt_explain_free). */
void itmt_explain(const struct hw_machine *m, const struct kparams *kp, struct itmt_explain *e);
void itmt_explain_free(struct itmt_explain *e);

#endif
