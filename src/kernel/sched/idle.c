/* idle: what an empty CPU does (kernel/sched/idle.c do_idle).
 *
 * Until the cpuidle core and its drivers are modelled, every configuration
 * behaves as the kernel does without a cpuidle driver (cpuidle.off=1, or no
 * driver registered): the architecture's default_idle, which on x86 is HLT, so
 * the thread requests the shallowest hardware C-state (C1). idle=poll spins
 * instead (cpu_idle_poll), keeping the core in C0 and waking without an IPI or
 * exit latency. */
#include <string.h>

#include "hw/cpu.h"
#include "kernel/sched/sched.h"
#include "world.h"

enum sched_idle_mode sched_idle_mode_of(const struct world *w)
{
    /* x86_idle_params choices: "", "poll", "halt", "nomwait". */
    return kparams_get(w->kp, "idle", 0, 0) == 1 ? SCHED_IDLE_POLL : SCHED_IDLE_HALT;
}

void sched_idle_enter(struct world *w, int cpu)
{
    if (w->sched.idle_mode == SCHED_IDLE_POLL)
        sched_set_hw_mode(w, cpu, HW_THREAD_POLL, 0);
    else
        sched_set_hw_mode(w, cpu, HW_THREAD_IDLE, 0);
}
