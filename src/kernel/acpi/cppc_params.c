/* ACPI CPPC knobs: the early parameter of the Rainbolt V3 patch (linux-acpi,
 * 18-20 Jun 2024; not merged), FACTS.md §6 [A3]. */
#include <stddef.h>

#include "kernel/acpi/cppc.h"
#include "kernel/params.h"

const struct kparam acpi_cppc_params[] = {
    {
        .name = "ignore_osc_cppc_bit", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = NULL, .patch = ACPI_IGNORE_OSC_CPPC_PATCH,
        .desc = "probe _CPC even when _OSC did not acknowledge CPPC v2 (cpc_supported_by_cpu forced true)",
    },
    { .name = NULL },
};
