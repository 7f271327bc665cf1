/* RCU's boot parameters (kernel/rcu/tree.c module parameters, rcutree.*). */
#include <stddef.h>

#include "kernel/params.h"

const struct kparam rcu_params[] = {
    {
        .name = "rcutree.jiffies_till_first_fqs", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = -1, .max = 2147483647,
        .def = "-1", .unit = "jiffies", .since = "3.10",
        .desc = "jiffies from a grace period's start to its first force-quiescent-state scan, "
                "which ends it on a mostly idle machine (values above HZ are HZ); -1: "
                "1 + (HZ > 250) + (HZ > 500) + CPUs / 256, as the kernel computes it",
    },
    { .name = NULL },
};
