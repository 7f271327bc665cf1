/* cppc: when the kernel reads _CPC, see cppc.h.
 *
 * The rule, by kernel version [A1]:
 *  - before 7feec7430edd (v5.19, stable 5.18.11): _CPC is parsed whenever
 *    the processor object has one;
 *  - since: only when the final _OSC acknowledged CPPC v2 (bit 6), or when
 *    cpc_supported_by_cpu() says the CPU itself implements CPPC (AMD and
 *    Hygon parts with the CPPC feature; modelled as any AMD/Hygon machine);
 *  - the Rainbolt patch (ACPI_IGNORE_OSC_CPPC_PATCH) adds the early parameter
 *    ignore_osc_cppc_bit, which makes cpc_supported_by_cpu() true [A3]. The
 *    parameter without the patch is ignored with the kernel's warning by the
 *    params layer, so it needs no case here.
 * Left out: the bit-5 (CPPC v1) ack, _CPC revisions and register kinds, and
 * the PCC mailbox; only HighestPerformance is modelled. */
#include "kernel/acpi/cppc.h"

#include <stdio.h>
#include <string.h>

/* 7feec7430edd landed in v5.19 and was backported to 5.18.11 [A1]. */
#define CPPC_OSC_V2_REQUIRED_SINCE "5.18.11"

static void cppc_why(char *why, size_t size, const char *text)
{
    if (why)
        snprintf(why, size, "%s", text);
}

/* cpc_supported_by_cpu: the CPU vendor's own CPPC, or the patch's parameter. */
static bool cpc_supported_by_cpu(const struct hw_machine *m, const struct kparams *kp)
{
    if (strcmp(m->vendor, "amd") == 0 || strcmp(m->vendor, "hygon") == 0)
        return true;
    return kparams_has_patch(kp, ACPI_IGNORE_OSC_CPPC_PATCH) &&
           kparams_get(kp, "ignore_osc_cppc_bit", 0, -1) != 0;
}

bool acpi_cppc_processor_probe(const struct hw_machine *m, const struct kparams *kp, int cpu,
                               char *why, size_t whysize)
{
    if (cpu < 0 || cpu >= m->fw.ncpc) {
        cppc_why(why, whysize, "firmware has no _CPC");
        return false;
    }
    if (!kversion_at_least(&kp->kernel, CPPC_OSC_V2_REQUIRED_SINCE) || m->fw.osc_cppc_v2 ||
        cpc_supported_by_cpu(m, kp))
        return true;
    cppc_why(why, whysize, "_OSC did not acknowledge CPPC v2 (7feec7430edd)");
    return false;
}

int cppc_get_perf_caps(const struct hw_machine *m, const struct kparams *kp, int cpu,
                       struct cppc_perf_caps *caps)
{
    if (!acpi_cppc_processor_probe(m, kp, cpu, NULL, 0))
        return -1;
    caps->highest_perf = m->fw.cpc_highest_perf[cpu];
    return 0;
}
