/* isolation: the housekeeping masks a variant's nohz_full=, isolcpus=,
 * rcu_nocbs= and nosmt (or smt/control) leave, as kernel/sched/isolation.c
 * housekeeping_setup, kernel/time/tick-sched.c tick_nohz_init,
 * kernel/rcu/tree_nocb.h rcu_init_nohz and kernel/cpu.c's SMT control
 * resolve them at boot; a pure function of the machine and the settings.
 *
 * What each mask does in pmlab (the callers say where):
 *  - nohz_full (tick_nohz_full_mask): the tick of a CPU running exactly one
 *    task stops (sched_can_stop_tick; only CFS tasks exist here); the
 *    residual 1 Hz tick runs on the CPU itself before v4.17
 *    (scheduler_tick_max_deferment), from a housekeeping CPU's workqueue
 *    since (sched_tick_remote: task_tick only, no load balancing); the CPU
 *    is not in nohz.idle_cpus_mask (HK_TYPE_SCHED), so no idle balancing
 *    is done for it or by it;
 *  - isolated (not in HK_TYPE_DOMAIN): in no sched domain (no balancing
 *    onto or from it, no wake-up scan reaches it), out of every task's
 *    default affinity (sched_init_smp moves init to HK_TYPE_DOMAIN);
 *  - either of the two: the CPU's unbound timers (the housekeeping timer
 *    stream, get_nohz_timer_target: HK_TYPE_TIMER) run on timer_cpu[cpu],
 *    and the background threads (kworkers, daemons: HK_TYPE_KTHREAD, WQ)
 *    run on the kthread CPUs;
 *  - managed_irq: the background device interrupts of the CPU go to
 *    timer_cpu[cpu] too (irq_do_set_affinity: a managed interrupt's
 *    housekeeping CPUs when its mask has any);
 *  - rcu_nocb: the CPU's RCU callbacks run in its rcuo kthread on the
 *    kthread CPUs and do not hold its tick (kernel/rcu/tree.h);
 *  - offline (nosmt): each core's threads after its first never run, sit
 *    in the deepest hardware C-state (mwait_play_dead) with kernel IBRS
 *    cleared from v6.7 (8c7a9b1bb450), set before; no sched domain, no
 *    timer, no idle loop. */
#ifndef PMLAB_KERNEL_SCHED_ISOLATION_H
#define PMLAB_KERNEL_SCHED_ISOLATION_H

#include <stdbool.h>

#include "hw/machine.h"
#include "kernel/params.h"

#define HK_NOTES_MAX 6
#define HK_NOTE_LEN 240

struct housekeeping {
    int ncpus;
    bool *nohz_full;      /* [ncpus] tick_nohz_full_mask */
    bool *isolated;       /* [ncpus] not in HK_TYPE_DOMAIN */
    bool *managed_irq;    /* [ncpus] not in HK_TYPE_MANAGED_IRQ */
    bool *rcu_nocb;       /* [ncpus] rcu_nocb_mask */
    bool *offline;        /* [ncpus] SMT secondaries taken down */
    bool *noise_isolated; /* [ncpus] not in HK_TYPE_TIMER/KTHREAD/WQ (nohz_full= or
                           * isolcpus=nohz; the boot CPU stays here even when
                           * tick_nohz_init clears it from nohz_full) */
    bool *online;         /* [ncpus] not offline */
    bool *in_domains;     /* [ncpus] online and not isolated: build_sched_domains' map */
    bool *kthread_cpus;   /* [ncpus] online, not isolated, not noise-isolated */
    int *timer_cpu;       /* [ncpus] where cpu's unbound timers (and with managed_irq
                           * its device interrupts) run: itself if it may */
    bool any;             /* some mask differs from "every CPU" */
    bool nohz_full_any, isolated_any, offline_any, rcu_nocb_any, managed_any;
    bool remote_tick;     /* v4.17+: residual tick from a housekeeping CPU */
    bool offline_ibrs;    /* an offline thread keeps kernel IBRS set (before v6.7) */
    int nnotes;
    char notes[HK_NOTES_MAX][HK_NOTE_LEN]; /* what the kernel logs resolving them */
};

void housekeeping_resolve(const struct hw_machine *m, const struct kparams *kp,
                          struct housekeeping *hk);
void housekeeping_destroy(struct housekeeping *hk);

/* The CPUs of a's mask in the kernel's list format into buf ("" none). */
void housekeeping_format(const bool *mask, int ncpus, char *buf, size_t size);

#endif
