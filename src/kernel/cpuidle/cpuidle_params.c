/* cpuidle core knobs (drivers/cpuidle/cpuidle.c, sysfs.c): turning cpuidle
 * off, choosing the governor, and the per-CPU per-state `disable` files.
 * Sources: FACTS.md §2 [C1, C2]. */
#include <stddef.h>

#include "kernel/params.h"

static const char *const cpuidle_governor_names[] = { "menu", "teo", "ladder", "haltpoll", NULL };

const struct kparam cpuidle_core_params[] = {
    {
        .name = "cpuidle.off", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 2147483647,
        .def = "0", .unit = "", .since = "2.6.37",
        .desc = "non-zero disables cpuidle: idle falls back to the architecture's default idle (HLT)",
    },
    {
        .name = "cpuidle.governor", .sysfs = "/sys/devices/system/cpu/cpuidle/current_governor",
        .sources = KPARAM_SRC_CMDLINE | KPARAM_SRC_SYSFS,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = cpuidle_governor_names,
        .def = "menu", .unit = "", .since = "5.0",
        .desc = "idle governor; when not given, the highest-rated one (menu 20, teo 19, ladder 10, haltpoll 9; ladder on periodic-tick kernels)",
    },
    {
        .name = "cpuidle.state_disable",
        .sysfs = "/sys/devices/system/cpu/cpu{cpu}/cpuidle/state{state}/disable",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_BOOL, .scope = KPARAM_PER_CPU_STATE,
        .def = "0", .unit = "", .since = "3.0",
        .desc = "1 keeps the governor from choosing this idle state on this CPU",
    },
    { .name = NULL },
};
