/* tracepoints: the simulated kernel's tracepoints, see tracepoints.h. */
#include "kernel/tracepoints.h"

#include "kernel/sched/idle.h"

/* The task's pid in the trace, given at its first event. */
static int32_t tp_pid(struct world *w, struct task *t)
{
    if (!t)
        return 0;
    if (t->trace_pid == 0)
        t->trace_pid = trace_buf_new_pid(w->trace, t->comm);
    return t->trace_pid;
}

/* The kernel's prio as sched_switch and sched_wakeup print it: 120 for a
 * nice-0 fair task, 99 - rt_priority for an RT one (MAX_RT_PRIO - 1 -
 * sched_priority), 120 for the idle task. */
static uint32_t tp_prio(const struct task *t)
{
    if (!t || !task_is_rt(t))
        return 120;
    return (uint32_t)(SCHED_RT_PRIO_MAX - t->rt_priority);
}

void tp_cpu_idle_slow(struct world *w, int cpu, uint32_t state)
{
    trace_buf_add(w->trace, cpu, w->q.now_ns, TRACE_REC_CPU_IDLE, state, (uint32_t)cpu, 0);
}

void tp_cpu_frequency_slow(struct world *w, int core, uint32_t mhz)
{
    const struct hw_core *c = &w->machine->cores[core];
    for (int i = 0; i < c->nthreads; i++)
        trace_buf_add(w->trace, c->cpus[i], w->q.now_ns, TRACE_REC_CPU_FREQUENCY, mhz * 1000u,
                      (uint32_t)c->cpus[i], 0);
}

void tp_sched_switch_slow(struct world *w, int cpu, struct task *next, bool prev_sleeps)
{
    struct trace_cpu_buf *cb = &w->trace->cpu[cpu];
    if (!trace_buf_wants(w->trace, w->q.now_ns)) {
        cb->curr_pid = next ? next->trace_pid : 0;   /* pid 0 until it is traced */
        cb->curr_prio = tp_prio(next);
        return;
    }
    int32_t next_pid = next ? tp_pid(w, next) : 0;   /* swapper/N, pid 0 */
    if (next_pid == cb->curr_pid)
        return;
    /* a: prev pid, b: next pid, c: prev_state | prev prio << 8 | next prio << 16 */
    uint32_t state = prev_sleeps && cb->curr_pid != 0 ? 1u : 0u;   /* the idle task is R */
    trace_buf_add(w->trace, cpu, w->q.now_ns, TRACE_REC_SCHED_SWITCH, (uint32_t)cb->curr_pid,
                  (uint32_t)next_pid, state | cb->curr_prio << 8 | tp_prio(next) << 16);
    cb->curr_pid = next_pid;
    cb->curr_prio = tp_prio(next);
}

void tp_sched_wakeup_slow(struct world *w, struct task *t, int target_cpu, int waker_cpu,
                          bool fork)
{
    if (!trace_buf_wants(w->trace, w->q.now_ns))
        return;
    trace_buf_add(w->trace, waker_cpu, w->q.now_ns,
                  fork ? TRACE_REC_SCHED_WAKEUP_NEW : TRACE_REC_SCHED_WAKEUP,
                  (uint32_t)tp_pid(w, t), (uint32_t)target_cpu, tp_prio(t));
}

void tp_window_begin(struct world *w)
{
    struct trace_buf *b = w->trace;
    if (!b)
        return;
    sim_time_t now = w->q.now_ns;
    b->start_ns = now + w->trace_window_ns[0];
    b->end_ns = w->trace_window_ns[1] < 0 ? -1 : now + w->trace_window_ns[1];
    if (w->trace_window_ns[0] > 0)
        return;   /* a later start: the trace begins with whatever happens then */
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++) {
        const struct idle_cpu *ic = &w->idle.cpu[cpu];
        struct task *curr = w->sched.cpu[cpu].curr;
        b->cpu[cpu].curr_pid = 0;   /* the idle task, until shown otherwise */
        b->cpu[cpu].curr_prio = 120;
        if (curr)
            tp_sched_switch_slow(w, cpu, curr, false);
        trace_buf_add(b, cpu, now, TRACE_REC_CPU_FREQUENCY,
                      w->hw.core_mhz[w->machine->cpus[cpu].core] * 1000u, (uint32_t)cpu, 0);
        if (ic->in_idle && ic->state >= 0)
            trace_buf_add(b, cpu, now, TRACE_REC_CPU_IDLE, (uint32_t)ic->state, (uint32_t)cpu, 0);
    }
}
