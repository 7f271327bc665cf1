/* uclamp: utilization clamping, the performance hints a task (or the
 * system) gives the scheduler and schedutil: a task's util is seen as at
 * least uclamp_min and at most uclamp_max, 0..1024 (kernel/sched/core.c
 * uclamp_*, kernel/sched/sched.h uclamp_rq_get; Documentation/scheduler/
 * sched-util-clamp.rst). v5.3 with CONFIG_UCLAMP_TASK.
 *
 * What is kept:
 *  - a task's request (sched_setattr with SCHED_FLAG_UTIL_CLAMP_MIN/MAX, as
 *    rt-app's util_min/util_max), else the default: uclamp_min 0 for fair
 *    tasks and sched_util_clamp_min_rt_default (1024; a fixed 1024 before
 *    v5.9) for RT ones, uclamp_max 1024;
 *  - the system limits sched_util_clamp_min and sched_util_clamp_max: a
 *    request above them counts as the limit (uclamp_eff_get);
 *  - the runqueue's clamp: the largest effective value among its runnable
 *    tasks, per clamp; with none, uclamp_min 0 and uclamp_max the value of
 *    the task that left last (uclamp_idle_value, UCLAMP_FLAG_IDLE), so the
 *    frequency request when a CPU empties still honours its cap;
 *  - sched_uclamp_used (v5.9, 46609ce22703): until a task sets a clamp or a
 *    sysctl is written, the scheduler behaves as without uclamp (an RT
 *    task asks for the maximum frequency; placement ignores clamps); before
 *    v5.9 uclamp is always in use once built;
 *  - where it is read: schedutil (effective_cpu_util and, from v6.8,
 *    sugov_effective_cpu_perf: cpufreq/schedutil.c) and placement on
 *    asymmetric-capacity machines (util_fits_cpu, fair.c).
 * What is dropped: cgroup clamps (cpu.uclamp.min/max: pmlab has no
 * cgroups), the clamp buckets (the kernel keeps a bucket's value at the
 * largest of the tasks that entered it until it empties; pmlab takes the
 * exact largest of the runnable tasks), and EAS, which pmlab does not model. */
#ifndef PMLAB_KERNEL_SCHED_UCLAMP_H
#define PMLAB_KERNEL_SCHED_UCLAMP_H

#include <stdbool.h>

enum uclamp_id { UCLAMP_MIN, UCLAMP_MAX, UCLAMP_CNT };

#define UCLAMP_SCALE 1024u      /* SCHED_CAPACITY_SCALE */

/* p->uclamp_req[]: what sched_setattr asked for. */
struct uclamp_se {
    unsigned value;             /* 0..1024 */
    bool user_defined;          /* set by sched_setattr; else the default applies */
};

/* The kernel's uclamp state for a world. */
struct uclamp_sys {
    bool built;                 /* CONFIG_UCLAMP_TASK on a v5.3+ kernel */
    bool used;                  /* sched_uclamp_used (always, when built, before v5.9) */
    unsigned sys_value[UCLAMP_CNT]; /* sched_util_clamp_min, sched_util_clamp_max */
    unsigned rt_min_default;    /* sched_util_clamp_min_rt_default (1024 before v5.9) */
    bool fits_v6_2;             /* util_fits_cpu's uclamp rules (48d5e9daa8b7) */
    bool perf_v6_8;             /* sugov_effective_cpu_perf (9c0b4bb7f630) */
    bool capped_skips_busy;     /* v5.18: uclamp_rq_is_capped lifts schedutil's
                                 * busy filter (7a17e1db1265) */
};

struct world;
struct task;
struct kparams;
struct diag;

/* The variant's uclamp rules and sysctls (from sched_init). */
void uclamp_init(struct world *w);
/* The same resolved from the variant alone (explain). */
void uclamp_resolve(const struct kparams *kp, struct uclamp_sys *u);
/* Whether the variant writes a uclamp sysctl or sets CONFIG_UCLAMP_TASK. */
bool uclamp_sysctl_written(const struct kparams *kp);
/* The sysctl writes in the variant's order, each checked as the kernel's
 * handler checks it (sysctl_sched_uclamp_handler: uclamp_min above
 * uclamp_max is refused with EINVAL): errors name the refused write's line. */
int uclamp_validate(const struct kparams *kp, const char *file, struct diag *d);
/* sched_setattr(SCHED_FLAG_UTIL_CLAMP_MIN/MAX) on t: util_min and util_max
 * 0..1024, or -1 to leave that clamp as it is. False (and nothing set)
 * where the kernel refuses it: no uclamp (EOPNOTSUPP), or the request's
 * min above its max (EINVAL). */
bool task_set_uclamp(struct world *w, struct task *t, int util_min, int util_max);
/* uclamp_eff_value: the clamp t runs with. */
unsigned uclamp_eff_value(const struct world *w, const struct task *t, enum uclamp_id id);
/* uclamp_rq_get: cpu's runqueue clamp. */
unsigned uclamp_rq_get(const struct world *w, int cpu, enum uclamp_id id);
/* t leaves cpu's runqueue (sleep or migration): the value an empty
 * runqueue keeps for uclamp_max. */
void uclamp_rq_dec(struct world *w, int cpu, const struct task *t);
/* uclamp_is_used. */
static inline bool uclamp_is_used(const struct uclamp_sys *u)
{
    return u->built && u->used;
}

#endif
