/* intel_idle module parameters (drivers/idle/intel_idle.c, FACTS.md §1).
 * The driver is built in, so they are given on the command line as
 * intel_idle.NAME=VALUE and are read-only (0444) in
 * /sys/module/intel_idle/parameters/NAME after boot: command line only here.
 * Versions: max_cstate predates every modelled kernel; no_acpi/use_acpi came
 * with the ACPI _CST support (v5.6), states_off v5.7, preferred_cstates v5.18,
 * force_irq_on v6.3 (Zijlstra's cpuidle/RCU series), ibrs_off v6.7. The
 * no_native and table= proposals are not modelled. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/params.h"

/* The kernel reads the two masks with kstrtouint(base 0): hex "0x..." works
 * too. Decimal falls back to the generic parse. */
static int intel_idle_parse_mask(const char *text, int64_t *out)
{
    if (strncmp(text, "0x", 2) != 0 && strncmp(text, "0X", 2) != 0)
        return 1;
    char *end;
    unsigned long long v = strtoull(text + 2, &end, 16);
    if (end == text + 2 || *end || v > UINT32_MAX)
        return 1;
    *out = (int64_t)v;
    return 0;
}

const struct kparam intel_idle_params[] = {
    {
        .name = "intel_idle.max_cstate", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 9,
        .def = "9", .unit = "", .since = NULL,
        .desc = "use only the first N states of the model's table (counted by position, unusable ones included); 0: intel_idle does not load. Shown read-only in /sys/module/intel_idle/parameters/max_cstate",
    },
    {
        .name = "intel_idle.states_off", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = UINT32_MAX,
        .def = "0", .unit = "bitmask", .since = "5.7",
        .desc = "bit i set: sysfs state i (0 = POLL) starts disabled (OFF, user may re-enable); read-only in /sys/module/intel_idle/parameters/states_off",
        .parse_special = intel_idle_parse_mask,
    },
    {
        .name = "intel_idle.preferred_cstates", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = UINT32_MAX,
        .def = "0", .unit = "bitmask", .since = "5.18",
        .desc = "choose within mutually exclusive states: on ADL, bit 1 (C1) without bit 2 (C1E) makes C1 usable, C1E unusable and clears C1E promotion; read-only in /sys/module/intel_idle/parameters/preferred_cstates",
        .parse_special = intel_idle_parse_mask,
    },
    {
        .name = "intel_idle.force_irq_on", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = "6.3",
        .desc = "testing aid: enter with IRQs on every state not taking the XSTATE or IBRS entry; read-only in /sys/module/intel_idle/parameters/force_irq_on",
    },
    {
        .name = "intel_idle.ibrs_off", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = "6.7",
        .desc = "with kernel IBRS, clear IBRS (SPEC_CTRL) around every state, not only deep ones, and enter all with IRQs off; read-only in /sys/module/intel_idle/parameters/ibrs_off",
    },
    {
        .name = "intel_idle.no_acpi", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = "5.6",
        .desc = "never read ACPI _CST (intel_idle then does not load on a model without a table; acpi_idle does); read-only in /sys/module/intel_idle/parameters/no_acpi",
    },
    {
        .name = "intel_idle.use_acpi", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = "5.6",
        .desc = "read _CST on any model with a table and start the states it omits disabled (no effect with no_acpi); read-only in /sys/module/intel_idle/parameters/use_acpi",
    },
    { .name = NULL },
};
