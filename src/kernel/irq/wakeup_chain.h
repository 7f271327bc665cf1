/* wakeup_chain: the work a background interrupt sets going on a real
 * machine, beyond its own handler (FACTS-3.md §1-2).
 *
 * On an idle host the interrupts are few (adl0: ~12.7 per CPU per second)
 * but the idle entries are three to four times as many (~43): an interrupt
 * starts a burst. Its handler and softirq (kernel/softirq.c irq_exit ->
 * invoke_softirq: TIMER, NET_RX, BLOCK, RCU) queue work for a kworker
 * (kernel/workqueue.c) or wake the thread that waits for the timer or the
 * device; that thread talks to another (a daemon's request and reply, a
 * work item queueing the next), each hand-off a task wake-up through the
 * scheduler's wake path, and the CPU a task leaves goes idle for as long as
 * its peer runs. A hand-off to an idle CPU that waits in MWAIT or POLL needs
 * no interrupt: the waker sets need_resched in the monitored flags word
 * (kernel/sched/core.c set_nr_if_polling, send_call_function_single_ipi),
 * so those idle periods end with no count in /proc/interrupts.
 *
 * The model: each CPU has one background thread (a kworker or the daemon
 * thread its timers and interrupts wake; unbound, placed by the
 * scheduler like any task). A housekeeping timer or device interrupt on cpu
 * wakes cpu's thread with probability wake_share; the thread runs and then
 * exchanges messages with a peer (another CPU's thread, chosen at random):
 * each message a wake-up of the other and the sender's sleep, the number of
 * messages geometric with mean msgs_per_irq, each run exponential with mean
 * run_ns. The periodic tick starts no chain (its handler wakes nobody
 * unless a timer expired, which is a housekeeping timer here).
 *
 * Parameters are machine calibration keys (hw_machine_calib):
 * bg_wake_share, bg_msgs_per_irq, bg_run_ns; softirq_ns is charged by the
 * idle loop's wake-up path (sched/idle.c). */
#ifndef PMLAB_KERNEL_IRQ_WAKEUP_CHAIN_H
#define PMLAB_KERNEL_IRQ_WAKEUP_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/sched.h"

struct world;

struct wchain_thread {
    struct task task;
    struct wchain_thread *peer;     /* the thread it exchanges them with */
    bool awake;                     /* woken and not yet asleep again */
};

struct wchain_sys {
    struct wchain_thread *thr;      /* [ncpus], thread i's first home is CPU i */
    int nthreads;
    double wake_share;              /* share of background interrupts that wake a thread */
    double msgs_per_irq;            /* mean messages per chain (geometric, >= 0) */
    double run_ns;                  /* mean run per wake-up, ns on the reference core */
    /* Counters since the measurement start. */
    uint64_t nr_chains, nr_msgs;
};

/* Set up w->wchain from the machine's calibration keys (after sched_init). */
void wchain_init(struct world *w);
void wchain_destroy(struct world *w);
/* A housekeeping timer or device interrupt ran on cpu: maybe start a chain
 * (waking cpu's background thread through the scheduler's wake path). */
void wchain_irq(struct world *w, int cpu);
/* No chains from now on: for a workload whose own tasks are the machine's
 * background (a replayed trace records its kworkers and daemons). */
void wchain_disable(struct world *w);
void wchain_measure_reset(struct world *w);
/* bg_chains_per_s and bg_wakeups_per_s, per CPU over the window. */
struct rpt_metric_set;
void wchain_collect_metrics(const struct world *w, sim_time_t window_ns,
                            struct rpt_metric_set *out);

#endif
