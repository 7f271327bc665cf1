/* Scheduler tunables (kernel/sched/fair.c, rt.c; the debugfs files of
 * kernel/sched/debug.c). Written values are taken as they are: the kernel's
 * own defaults are scaled by 1 + ilog2(min(CPUs, 8)) (update_sysctl), a write
 * replaces the scaled value. */
#include <stddef.h>

#include "kernel/params.h"
#include "kernel/sched/sched.h"

/* Writes to the features file that pmlab models, by enum sched_feat_write. */
static const char *const sched_feat_choices[] = { "UTIL_EST", "NO_UTIL_EST", "RT_RUNTIME_SHARE",
                                                  "NO_RT_RUNTIME_SHARE", "RT_PUSH_IPI",
                                                  "NO_RT_PUSH_IPI", NULL };

const struct kparam sched_params[] = {
    {
        .name = "sched_base_slice_ns", .sysfs = "/sys/kernel/debug/sched/base_slice_ns",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 100000, .max = 1000000000, .def = "3000000", .unit = "ns", .since = "6.6",
        .desc = "EEVDF's slice: a task's virtual deadline is this far past the start of its "
                "slice (default 0.75 ms scaled by 1 + ilog2(min(CPUs, 8)): 3 ms from 8 CPUs)",
    },
    {
        .name = "sched_latency_ns", .sysfs = "/sys/kernel/debug/sched/latency_ns",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 100000, .max = 1000000000, .def = "24000000", .unit = "ns", .since = "5.13",
        .desc = "CFS (before 6.6): the period the runnable tasks share (default 6 ms scaled: "
                "24 ms from 8 CPUs); ignored by EEVDF",
    },
    {
        .name = "sched_min_granularity_ns",
        .sysfs = "/sys/kernel/debug/sched/min_granularity_ns",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 100000, .max = 1000000000, .def = "3000000", .unit = "ns", .since = "5.13",
        .desc = "CFS (before 6.6): the shortest slice (default 0.75 ms scaled: 3 ms from 8 "
                "CPUs); ignored by EEVDF",
    },
    {
        .name = "sched_wakeup_granularity_ns",
        .sysfs = "/sys/kernel/debug/sched/wakeup_granularity_ns",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 0, .max = 1000000000, .def = "4000000", .unit = "ns", .since = "5.13",
        .desc = "CFS (before 6.6): a woken task preempts when the running one leads it by "
                "more than this (default 1 ms scaled: 4 ms from 8 CPUs); ignored by EEVDF",
    },
    {
        .name = "sched_rr_timeslice_ms", .sysfs = "/proc/sys/kernel/sched_rr_timeslice_ms",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 1, .max = 100000, .def = "100", .unit = "ms", .since = "3.9",
        .desc = "SCHED_RR's time slice (RR_TIMESLICE, rounded to whole ticks)",
    },
    {
        .name = "sched_features", .sysfs = "/sys/kernel/debug/sched/features",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL,
        .choices = sched_feat_choices, .def = "UTIL_EST", .since = "5.13",
        .desc = "a scheduler feature switched by name, NO_ to clear it (one write per variant): "
                "UTIL_EST (v4.17, on) lets schedutil and the capacity checks see a task's util at "
                "the end of its recent runs; RT_RUNTIME_SHARE (on before 5.10, off since; gone with "
                "RT throttling in 6.12) lets a CPU's RT tasks borrow unused RT runtime of the "
                "others; RT_PUSH_IPI (v4.6, on) has a CPU that lowers its priority send an IPI "
                "through the RT-overloaded CPUs, each pushing its waiting RT tasks, instead of "
                "pulling them itself (before 5.13 the file was /sys/kernel/debug/sched_features)",
    },
    {
        .name = "sched_features_legacy", .sysfs = "/sys/kernel/debug/sched_features",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL,
        .choices = sched_feat_choices, .def = "UTIL_EST", .since = "2.6.24",
        .desc = "sched_features where it was before 5.13 (debugfs' sched_features; pmlab also "
                "takes it on later kernels)",
    },
    {
        .name = "sched_rt_period_us", .sysfs = "/proc/sys/kernel/sched_rt_period_us",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 1, .max = 2147483647, .def = "1000000", .unit = "us", .since = "2.6.25",
        .desc = "RT throttling's period: each CPU's RT tasks may run sched_rt_runtime_us of "
                "it (before 6.12; from 6.12 the fair server, fair_server_*, does instead)",
    },
    {
        .name = "sched_rt_runtime_us", .sysfs = "/proc/sys/kernel/sched_rt_runtime_us",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = -1, .max = 2147483647, .def = "950000", .unit = "us", .since = "2.6.25",
        .desc = "RT tasks' time per sched_rt_period_us on each CPU before they are throttled "
                "and fair tasks (or idle) get the rest; -1, or the period itself: no limit "
                "(before 6.12; from 6.12 only an admission bound, not modelled)",
    },
    {
        .name = "fair_server_runtime_ns",
        .sysfs = "/sys/kernel/debug/sched/fair_server/cpu{cpu}/runtime",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_PER_CPU,
        .min = 0, .max = 1000000000, .def = "50000000", .unit = "ns", .since = "6.12",
        .desc = "the fair tasks' guaranteed time per fair_server period on this CPU when RT "
                "tasks would starve them, given at the end of the period (0: none)",
    },
    {
        .name = "fair_server_period_ns",
        .sysfs = "/sys/kernel/debug/sched/fair_server/cpu{cpu}/period",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_PER_CPU,
        .min = 100000, .max = 4000000000, .def = "1000000000", .unit = "ns", .since = "6.12",
        .desc = "the fair server's period on this CPU",
    },
    {
        .name = "CONFIG_UCLAMP_TASK", .sources = KPARAM_SRC_CONFIG,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "y", .unit = "", .since = "5.3",
        .desc = "utilization clamping for RT and fair tasks (uclamp): y here, as common "
                "distribution configs build it (the Kconfig default is n); n: sched_setattr's "
                "util clamps fail with EOPNOTSUPP and the sysctls do not exist",
    },
    {
        .name = "sched_util_clamp_min", .sysfs = "/proc/sys/kernel/sched_util_clamp_min",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 0, .max = 1024, .def = "1024", .unit = "", .since = "5.3",
        .desc = "the highest uclamp_min any task gets (a larger request counts as this); "
                "0..1024, not above sched_util_clamp_max",
    },
    {
        .name = "sched_util_clamp_max", .sysfs = "/proc/sys/kernel/sched_util_clamp_max",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 0, .max = 1024, .def = "1024", .unit = "", .since = "5.3",
        .desc = "the highest uclamp_max any task gets: caps every task's util as schedutil "
                "and placement see it; 0..1024, not below sched_util_clamp_min",
    },
    {
        .name = "sched_util_clamp_min_rt_default",
        .sysfs = "/proc/sys/kernel/sched_util_clamp_min_rt_default",
        .sources = KPARAM_SRC_SYSFS, .type = KPARAM_INT, .scope = KPARAM_GLOBAL,
        .min = 0, .max = 1024, .def = "1024", .unit = "", .since = "5.9",
        .desc = "uclamp_min of RT tasks that set none (1024: RT runs at the highest "
                "frequency under schedutil); a write that changes it turns uclamp on",
    },
    { .name = NULL },
};

int64_t sched_feat_write(const struct kparams *kp)
{
    if (kparams_is_set(kp, "sched_features_legacy"))
        return kparams_get(kp, "sched_features_legacy", 0, -1);
    return kparams_get(kp, "sched_features", 0, -1);
}
