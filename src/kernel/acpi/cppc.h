/* cppc: ACPI CPPC (Collaborative Processor Performance Control) probing,
 * drivers/acpi/cppc_acpi.c, FACTS.md §6 [A1, A2, A3].
 *
 * Whether the kernel reads a CPU's _CPC object (and so creates
 * /sys/devices/system/cpu/cpuN/acpi_cppc and answers cppc_get_perf_caps) is a
 * pure function of the machine's firmware and the variant's kernel, so it is
 * computed on demand, never stored. */
#ifndef PMLAB_KERNEL_ACPI_CPPC_H
#define PMLAB_KERNEL_ACPI_CPPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/machine.h"
#include "kernel/params.h"

/* The named patch of the Rainbolt V3 proposal (not merged) [A3]. */
#define ACPI_IGNORE_OSC_CPPC_PATCH "acpi-ignore-osc-cppc-bit"

struct cppc_perf_caps {
    uint32_t highest_perf;
};

/* acpi_cppc_processor_probe: whether the kernel parses cpu's _CPC. When it
 * does not, why (if why is not NULL) says so in a few words. */
bool acpi_cppc_processor_probe(const struct hw_machine *m, const struct kparams *kp, int cpu,
                               char *why, size_t whysize);

/* cppc_get_perf_caps: 0 with caps filled, or -1 when CPPC was not probed on
 * cpu (the kernel's -ENODEV). */
int cppc_get_perf_caps(const struct hw_machine *m, const struct kparams *kp, int cpu,
                       struct cppc_perf_caps *caps);

#endif
