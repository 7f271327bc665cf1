/* explain_isolation: what nohz_full=, isolcpus=, rcu_nocbs= and nosmt
 * resolved to (kernel/sched/isolation.h), in the kernel's CPU-list form and
 * with the lines the kernel logs while resolving them. Nothing is printed
 * for a variant that sets none of them. */
#include <stdio.h>
#include <string.h>

#include "hw/machine.h"
#include "kernel/sched/isolation.h"
#include "report/explain.h"

#define LIST_LEN 256

/* "2->0, 3->1": where the unbound timers of the CPUs outside kthread_cpus run. */
static void explain_timer_moves(const struct housekeeping *hk, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int cpu = 0; cpu < hk->ncpus && used < size; cpu++)
        if (hk->timer_cpu[cpu] != cpu && !hk->offline[cpu])
            used += (size_t)snprintf(buf + used, size - used, "%s%d->%d", used ? ", " : "", cpu,
                                     hk->timer_cpu[cpu]);
}

void explain_add_isolation(struct explain *x, const struct hw_machine *m,
                           const struct housekeeping *hk)
{
    if (!hk->any && !hk->nnotes)
        return;
    int n = hk->ncpus;
    char a[LIST_LEN], b[LIST_LEN];
    if (hk->nohz_full_any) {
        housekeeping_format(hk->nohz_full, n, a, sizeof a);
        explain_add(x, "isolation: nohz_full %s: the tick stops while one task runs; residual "
                       "1 Hz tick %s", a, hk->remote_tick ? "from a housekeeping CPU "
                       "(sched_tick_remote: no load balancing)" : "on the CPU itself "
                       "(scheduler_tick_max_deferment, before 4.17)");
    }
    if (hk->isolated_any) {
        housekeeping_format(hk->isolated, n, a, sizeof a);
        housekeeping_format(hk->in_domains, n, b, sizeof b);
        explain_add(x, "isolation: isolcpus domain %s: in no sched domain (no balancing, no "
                       "wake-up scan); tasks' default affinity %s", a, b);
    }
    housekeeping_format(hk->kthread_cpus, n, a, sizeof a);
    explain_timer_moves(hk, b, sizeof b);
    if (b[0])
        explain_add(x, "isolation: housekeeping CPUs %s run the unbound timers and background "
                       "threads; timers moved %s", a, b);
    if (hk->managed_any) {
        housekeeping_format(hk->managed_irq, n, a, sizeof a);
        explain_add(x, "isolation: isolcpus managed_irq %s: their background device interrupts "
                       "go to the housekeeping CPUs above ([device] sections keep their cpu)", a);
    }
    if (hk->rcu_nocb_any) {
        housekeeping_format(hk->rcu_nocb, n, a, sizeof a);
        explain_add(x, "isolation: rcu_nocbs %s (nohz_full's included): their RCU callbacks "
                       "run in rcuo kthreads on the kthread CPUs and hold no tick", a);
    }
    if (hk->offline_any) {
        housekeeping_format(hk->offline, n, a, sizeof a);
        explain_add(x, "isolation: SMT off: cpu %s offline, in the deepest C-state (%s on %s), "
                       "kernel IBRS %s", a, m->types[0].cstates[m->types[0].ncstates - 1].name,
                    m->types[0].name, hk->offline_ibrs ? "left set (before 6.7)" : "cleared (6.7+)");
    }
    for (int i = 0; i < hk->nnotes; i++)
        explain_add(x, "isolation: kernel: %s", hk->notes[i]);
}
