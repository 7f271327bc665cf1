/* tracepoints: where the simulated kernel fires the tracepoints the real
 * one has (power:cpu_idle, power:cpu_frequency, sched:sched_switch,
 * sched:sched_wakeup, sched:sched_wakeup_new), into the world's trace
 * (trace/record.h). Each is one pointer test when the world is not traced. */
#ifndef PMLAB_KERNEL_TRACEPOINTS_H
#define PMLAB_KERNEL_TRACEPOINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "world.h"

void tp_cpu_idle_slow(struct world *w, int cpu, uint32_t state);
void tp_cpu_frequency_slow(struct world *w, int core, uint32_t mhz);
void tp_sched_switch_slow(struct world *w, int cpu, struct task *next, bool prev_sleeps);
void tp_sched_wakeup_slow(struct world *w, struct task *t, int target_cpu, int waker_cpu,
                          bool fork);
/* The window starts: each CPU's state and frequency now, as a trace
 * started on a running system shows them at its first events. */
void tp_window_begin(struct world *w);

/* cpuidle_enter_state: state index entered; TRACE_IDLE_EXIT_STATE on exit. */
static inline void tp_cpu_idle(struct world *w, int cpu, uint32_t state)
{
    if (w->trace)
        tp_cpu_idle_slow(w, cpu, state);
}

/* The frequency of core's CPUs became mhz. */
static inline void tp_cpu_frequency(struct world *w, int core, uint32_t mhz)
{
    if (w->trace)
        tp_cpu_frequency_slow(w, core, mhz);
}

/* __schedule: cpu switches to next (NULL: its idle task); prev_sleeps: the
 * task it leaves blocked (else it was preempted and stays runnable). */
static inline void tp_sched_switch(struct world *w, int cpu, struct task *next, bool prev_sleeps)
{
    if (w->trace)
        tp_sched_switch_slow(w, cpu, next, prev_sleeps);
}

/* ttwu_do_activate / wake_up_new_task: t queued on target_cpu by code on
 * waker_cpu. */
static inline void tp_sched_wakeup(struct world *w, struct task *t, int target_cpu,
                                   int waker_cpu, bool fork)
{
    if (w->trace)
        tp_sched_wakeup_slow(w, t, target_cpu, waker_cpu, fork);
}

#endif
