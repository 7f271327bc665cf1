/* explain_uclamp: the uclamp line of `pmlab explain`, printed from struct
 * uclamp_sys (kernel/sched/uclamp.h): the /proc/sys/kernel limits, whether
 * uclamp is in use from the start, and the version's rules. */
#include "kernel/sched/uclamp.h"
#include "report/explain.h"

void explain_add_uclamp(struct explain *x, const struct uclamp_sys *u)
{
    if (!u->built) {
        explain_add(x, "uclamp: not built (kernel before 5.3, or CONFIG_UCLAMP_TASK=n): "
                       "util clamps fail with EOPNOTSUPP");
        return;
    }
    explain_add(x, "uclamp: sched_util_clamp_min %u, sched_util_clamp_max %u, RT tasks' default "
                   "uclamp_min %u; %s", u->sys_value[UCLAMP_MIN], u->sys_value[UCLAMP_MAX],
                u->rt_min_default,
                u->used ? "in use from boot" : "in use once a task sets a clamp");
    explain_add(x, "uclamp: schedutil %s; placement on asymmetric CPUs: %s",
                u->perf_v6_8 ? "bounds the 1.25 x util request by the clamps (v6.8+)"
                             : "clamps util, then adds the 1.25 headroom (before v6.8)",
                u->fits_v6_2 ? "util_fits_cpu with the clamps (v6.2+)"
                             : "the clamped util must fit (before v6.2)");
}
