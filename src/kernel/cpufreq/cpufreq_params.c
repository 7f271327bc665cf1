/* cpufreq and intel_pstate knobs (drivers/cpufreq/cpufreq.c, intel_pstate.c,
 * Documentation/admin-guide/pm/cpufreq.rst and intel_pstate.rst; FACTS.md §5).
 * Frequencies are in kHz, as sysfs shows them. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/params.h"

/* Governors pmlab models; userspace and conservative are not. */
static const char *const cpufreq_gov_names[] = {
    "performance", "powersave", "schedutil", "ondemand", NULL,
};

/* Keep in order with enum intel_pstate_opt; "" is "not given". */
static const char *const intel_pstate_opts[] = {
    "", "active", "passive", "no_hwp", "disable", NULL,
};

/* amd_pstate= (FACTS-2.md §6); keep in order with enum amd_pstate_mode. */
static const char *const amd_pstate_opts[] = {
    "", "disable", "passive", "active", "guided", NULL,
};

/* amd_prefcore= (v6.9, f3a052391822): "disable" is its one value. */
static const char *const amd_prefcore_opts[] = { "", "disable", NULL };

/* The EPP strings the sysfs file accepts [F4]; "default" restores the
 * firmware's value, 0x80 on the modelled parts. */
static int cpufreq_parse_epp(const char *text, int64_t *out)
{
    static const struct { const char *name; int epp; } names[] = {
        { "default", 0x80 }, { "performance", 0x00 }, { "balance_performance", 0x80 },
        { "balance_power", 0xC0 }, { "power", 0xFF },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(text, names[i].name) == 0) {
            *out = names[i].epp;
            return 0;
        }
    }
    return 1;
}

const struct kparam cpufreq_params[] = {
    {
        .name = "cpufreq.off", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 2147483647,
        .def = "0", .unit = "", .since = NULL,
        .desc = "non-zero: no cpufreq driver registers; every core stays at the frequency firmware left (base)",
    },
    {
        .name = "cpufreq.default_governor", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = cpufreq_gov_names,
        .def = "schedutil", .unit = "", .since = "5.9",
        .desc = "governor of new policies (x86 intel_pstate default config: schedutil); with intel_pstate active only performance/powersave mean anything, others leave its default powersave",
    },
    {
        .name = "intel_pstate", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = intel_pstate_opts,
        .def = "", .unit = "", .since = NULL,
        .desc = "active (default with HWP), passive (intel_cpufreq + generic governors; default without HWP since 5.9), no_hwp, disable (acpi-cpufreq)",
    },
    {
        .name = "amd_pstate", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = amd_pstate_opts,
        .def = "", .unit = "", .since = "6.1",
        .desc = "AMD: passive (amd-pstate + generic governors), active (amd-pstate-epp, 6.3+), guided (platform picks above the governor's target, 6.4+), disable (acpi-cpufreq); unset: active from 6.5 unless the FADT PM profile is unspecified or a server",
    },
    {
        .name = "amd_prefcore", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = amd_prefcore_opts,
        .def = "", .unit = "", .since = "6.9",
        .desc = "AMD: disable turns amd-pstate's preferred core off (no ITMT priorities from CPPC highest performance, no asym packing); unset: on where firmware ranks cores",
    },
    {
        .name = "scaling_governor", .sysfs = "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_ENUM, .scope = KPARAM_PER_CPU, .choices = cpufreq_gov_names,
        .def = "powersave", .unit = "", .since = NULL,
        .desc = "the CPU's governor (intel_pstate active: its own performance or powersave policy); when not written, cpufreq.default_governor",
    },
    {
        .name = "scaling_min_freq", .sysfs = "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_min_freq",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_PER_CPU, .min = 0, .max = 10000000,
        .def = "0", .unit = "kHz", .since = NULL,
        .desc = "lowest frequency the policy may use, clamped to cpuinfo_min/max_freq; when not written, cpuinfo_min_freq",
    },
    {
        .name = "scaling_max_freq", .sysfs = "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_max_freq",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_PER_CPU, .min = 0, .max = 10000000,
        .def = "0", .unit = "kHz", .since = NULL,
        .desc = "highest frequency the policy may use, clamped to cpuinfo_min/max_freq; when not written, cpuinfo_max_freq (max turbo)",
    },
    {
        .name = "energy_performance_preference",
        .sysfs = "/sys/devices/system/cpu/cpu{cpu}/cpufreq/energy_performance_preference",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_PER_CPU, .min = 0, .max = 255,
        .def = "balance_performance", .unit = "", .since = "4.10",
        .desc = "HWP EPP: performance (0), balance_performance (0x80), balance_power (0xC0), power (0xFF), default, or 0-255; default: firmware's (0x80)",
        .parse_special = cpufreq_parse_epp,
    },
    { .name = NULL },
};
