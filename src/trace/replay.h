/* trace replay model: the tasks of a recorded trace as sequences of steps a
 * simulation can run again (the replay workload, src/workload/replay.c).
 *
 * From sched_switch, sched_wakeup(_new) or sched_waking, sched_process_fork
 * and sched_process_exit (and irq_handler_entry, hrtimer_expire_entry for
 * what woke a task), per task (pid, comm; swapper, pid 0, is the idle task,
 * not a task):
 *  - its run bursts: on-CPU time from a switch-in to the switch-out that
 *    blocks it (a switch-out in state R, a preemption, does not end the
 *    burst: pmlab runs a burst to completion), as wall time and as work:
 *    each slice's wall time times the recorded CPU's frequency over the
 *    highest frequency the trace shows on that CPU (cpu_frequency events
 *    and devlib's start markers), i.e. ns at that CPU's top recorded
 *    frequency; before a CPU's first frequency event, and on a trace
 *    without them, the top is assumed. The core types' speeds (big vs
 *    LITTLE IPC) are not known from a trace and are not scaled for;
 *  - its sleeps: from a blocking switch-out to its wake-up (the wake-up
 *    event, else the next switch-in) and what woke it: another task (a
 *    wake-up dependency: the waker's WAKE step and the wakee's WAIT), an
 *    interrupt handler (context flags of the event: a timer if the last
 *    interrupt event on that CPU was a timer expiry, a device interrupt if
 *    an irq_handler_entry, else unknown), or unknown (no wake-up events);
 *  - forks: the parent's FORK step starts the child;
 *  - the first CPU it ran on, and its start (first seen runnable).
 * Device interrupts that woke no task are arrivals on their CPU. Timer
 * expiries that woke no task are the kernel's own housekeeping, which pmlab
 * models itself (sched/idle.c), and IPIs are the scheduler's, which pmlab's
 * scheduler sends itself: neither is kept. */
#ifndef PMLAB_TRACE_REPLAY_H
#define PMLAB_TRACE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"
#include "util/diag.h"

enum trace_step_kind {
    TRACE_STEP_RUN,    /* a burst on the CPU */
    TRACE_STEP_SLEEP,  /* asleep for the recorded time (woken by a timer, interrupt, unknown) */
    TRACE_STEP_WAIT,   /* asleep until task peer reaches its WAKE step peer_step */
    TRACE_STEP_WAKE,   /* wake task peer (its WAIT step peer_step) */
    TRACE_STEP_FORK,   /* start task peer */
};

enum trace_waker {
    TRACE_WAKER_TIMER, TRACE_WAKER_IRQ, TRACE_WAKER_TASK, TRACE_WAKER_UNKNOWN,
    TRACE_WAKER_N,
};

struct trace_step {
    enum trace_step_kind kind;
    int64_t ns;            /* RUN: recorded wall ns on CPU; SLEEP, WAIT: recorded ns asleep */
    double work_ns;        /* RUN: ns at the recorded CPU's top recorded frequency */
    enum trace_waker waker; /* SLEEP, WAIT: what woke it */
    int cpu;               /* RUN: trace CPU of its last slice; SLEEP: the waking
                            * interrupt's trace CPU (IRQ), else -1 */
    int peer, peer_step;   /* WAIT, WAKE, FORK: see the kinds */
    int64_t lat_ns;        /* SLEEP, WAIT: recorded wake-up to switch-in, ns; -1 unknown */
};

struct trace_task {
    int32_t pid;
    char comm[TRACE_COMM_LEN];
    int first_cpu;         /* trace CPU it first ran on, -1 never ran */
    int64_t start_ns;      /* from the trace's start: first seen runnable or running */
    int64_t end_ns;        /* from the trace's start: the event that ended its last step */
    int parent;            /* the task whose FORK step starts it, -1: it starts at start_ns */
    bool exited;           /* sched_process_exit, then its last switch-out */
    struct trace_step *step;
    int nsteps, cap;
    int nslices;           /* switch-ins */
};

struct trace_arrival {
    int64_t at_ns;         /* from the trace's start */
    int cpu;               /* trace CPU */
};

struct trace_model {
    char *path;
    int ncpus;
    int64_t span_ns;       /* first to last event */
    int64_t end_ns;        /* the latest task end_ns: when the recorded tasks were done */
    struct trace_task *task;
    int ntasks;
    struct trace_arrival *irq; /* device interrupts that woke no task, time order */
    size_t nirq;
    uint64_t nslices, nbursts, nforks, nexits, nwake[TRACE_WAKER_N];
    double busy_ns, work_ns; /* every task's recorded on-CPU wall ns, and its work */
    int64_t *top_khz;      /* [ncpus]: highest recorded frequency, 0 unknown */
    const char *wake_event; /* "sched_waking", "sched_wakeup" or NULL: none recorded */
    uint64_t nlost;        /* events the ring buffers lost (bursts around them approximate) */
};

/* The model of td. -1 with d = "PATH: ..." when it has no sched_switch event. */
int trace_model_extract(const struct trace_data *td, struct trace_model *m, struct diag *d);
/* Read path (trace_read_need TRACE_NEED_SCHED) and extract; -1 with d. */
int trace_model_load(const char *path, struct trace_model *m, struct diag *d);
void trace_model_free(struct trace_model *m);
/* One line per task (pid, comm, first CPU, bursts, busy, sleeps by waker)
 * after a summary, for `pmlab trace tasks`. */
void trace_model_print(FILE *out, const struct trace_model *m);

#endif
