/* acpi_idle's parameters (drivers/acpi/processor_idle.c, FACTS-2.md §5):
 * module "processor", built in, so given as processor.NAME=VALUE on the
 * command line. latency_factor is writable at runtime (0644) but is read when
 * the states are set up, so only its boot value matters; the others are
 * read-only. */
#include <stdint.h>

#include "kernel/params.h"

const struct kparam acpi_processor_idle_params[] = {
    {
        .name = "processor.max_cstate", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 9,
        .def = "8", .unit = "", .since = NULL,
        .desc = "acpi_idle's deepest C-state (C1 = 1; 0 reads as 1); intel_idle ignores it",
    },
    {
        .name = "processor.nocst", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = NULL,
        .desc = "acpi_idle ignores _CST (pmlab then has C1 HLT only: no FADT P_BLK states)",
    },
    {
        .name = "processor.latency_factor", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 1, .max = 1000,
        .def = "2", .unit = "", .since = NULL,
        .desc = "acpi_idle: each state's target residency is its latency times this",
    },
    {
        .name = "processor.bm_check_disable", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = NULL,
        .desc = "acpi_idle: C3-type states skip the bus-master activity check",
    },
    { .name = NULL },
};
