/* ITMT knobs (arch/x86/kernel/itmt.c, since v4.10), FACTS.md §6 [A5]. */
#include <stddef.h>

#include "kernel/params.h"

const struct kparam itmt_params[] = {
    {
        .name = "sched_itmt_enabled", .sysfs = "/proc/sys/kernel/sched_itmt_enabled",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 1,
        .def = "1", .unit = "", .since = "4.10",
        .desc = "scheduler packs work toward high-priority (ITMT) CPUs; the file exists only on ITMT-capable systems, where it starts at 1",
    },
    { .name = NULL },
};
