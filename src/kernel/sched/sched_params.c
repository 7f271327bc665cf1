/* Scheduler tunables (kernel/sched/fair.c, rt.c; the debugfs files of
 * kernel/sched/debug.c). Written values are taken as they are: the kernel's
 * own defaults are scaled by 1 + ilog2(min(CPUs, 8)) (update_sysctl), a write
 * replaces the scaled value. */
#include <stddef.h>

#include "kernel/params.h"
#include "kernel/sched/sched.h"

/* Writes to the features file that pmlab models, by enum sched_feat_write. */
static const char *const sched_feat_choices[] = { "UTIL_EST", "NO_UTIL_EST", NULL };

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
                "the end of its recent runs (before 5.13 the file was /sys/kernel/debug/"
                "sched_features)",
    },
    { .name = NULL },
};
