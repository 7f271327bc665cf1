/* Tick configuration (kernel/time): the build-time tick rate CONFIG_HZ, the
 * idle tick stop (CONFIG_NO_HZ_IDLE) and its boot switch nohz=. The tick period
 * bounds how long a CPU sleeps in a shallow state when the tick is not stopped
 * (FACTS.md §2 [C1]). */
#include <stddef.h>

#include "kernel/params.h"

static const char *const hz_choices[] = { "100", "250", "300", "1000", NULL };

const struct kparam tick_params[] = {
    {
        .name = "CONFIG_HZ", .sources = KPARAM_SRC_CONFIG,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = hz_choices,
        .def = "250", .unit = "Hz", .since = NULL,
        .desc = "periodic tick rate (Debian and the kernel's default config: 250)",
    },
    {
        .name = "CONFIG_NO_HZ_IDLE", .sources = KPARAM_SRC_CONFIG,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "y", .unit = "", .since = "3.10",
        .desc = "tickless idle: the tick may be stopped on idle CPUs (n: periodic tick, ladder governor by default)",
    },
    {
        .name = "nohz", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "on", .unit = "", .since = "2.6.21",
        .desc = "nohz=off keeps the tick running on idle CPUs even with CONFIG_NO_HZ_IDLE",
    },
    { .name = NULL },
};
