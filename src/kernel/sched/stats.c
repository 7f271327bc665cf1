/* stats: what the scheduler reports about where tasks ran (as
 * kernel/sched/stats.c keeps schedstats and /proc/PID/sched's
 * se.nr_migrations): task migrations per second, and on a hybrid machine
 * the busy share of each core type and the share of task run time on the
 * fastest type (pcore_share_pct), and the interrupts taken on busy CPUs
 * per CPU per second (busy_irqs_per_s), over the measurement window.
 *
 * Run time is the hardware threads' RUN time (hw/cpu.c): task segments plus
 * the kernel's wake-up path on CPUs woken from idle, polling excluded. The
 * fastest type is the one with the most work per second at its top
 * frequency (ipc_factor x max_mhz: the P-cores of a hybrid part). */
#include <stdio.h>

#include "kernel/sched/sched.h"
#include "world.h"

/* Interrupts taken while a task ran, all CPUs (sched_irq_on_busy). */
static uint64_t sched_busy_irqs(const struct world *w)
{
    uint64_t n = 0;
    for (int cpu = 0; cpu < w->sched.ncpus; cpu++)
        n += w->sched.cpu[cpu].nr_busy_irqs;
    return n;
}

void sched_measure_reset(struct world *w)
{
    w->sched.measure_start_ns = w->q.now_ns;
    w->sched.measure_migrations = w->sched.nr_migrations;
    w->sched.measure_busy_irqs = sched_busy_irqs(w);
}

static int fastest_type(const struct hw_machine *m)
{
    int best = 0;
    for (int ty = 1; ty < m->ntypes; ty++)
        if (m->types[ty].ipc_factor * m->types[ty].max_mhz >
            m->types[best].ipc_factor * m->types[best].max_mhz)
            best = ty;
    return best;
}

/* busy_pct.<TYPE> (C0 share of the type's CPU time, polling included, as
 * busy_pct) and pcore_share_pct. */
static void sched_collect_types(const struct world *w, double window_ns,
                                struct rpt_metric_set *out)
{
    const struct hw_machine *m = w->machine;
    int fast = fastest_type(m);
    double run_all = 0, run_fast = 0;
    for (int ty = 0; ty < m->ntypes; ty++) {
        double busy = 0;
        int ncpus = 0;
        for (int cpu = 0; cpu < m->ncpus; cpu++) {
            if (m->cores[m->cpus[cpu].core].type != ty)
                continue;
            const struct hw_thread *t = &w->hw.thr[cpu];
            busy += (double)(t->run_ns + t->poll_ns);
            run_all += (double)t->run_ns;
            run_fast += ty == fast ? (double)t->run_ns : 0;
            ncpus++;
        }
        char key[RPT_NAME_MAX];
        snprintf(key, sizeof key, "busy_pct.%s", m->types[ty].name);
        rpt_set_put(out, key, "%", RPT_NEUTRAL, ncpus ? 100.0 * busy / (window_ns * ncpus) : 0);
    }
    rpt_set_put(out, "pcore_share_pct", "%", RPT_NEUTRAL,
                run_all > 0 ? 100.0 * run_fast / run_all : 0);
}

void sched_collect_metrics(const struct world *w, struct rpt_metric_set *out)
{
    double window_ns = (double)(w->q.now_ns - w->sched.measure_start_ns);
    if (window_ns <= 0)
        return;
    rpt_set_put(out, "migrations_per_s", "1/s", RPT_NEUTRAL,
                (double)(w->sched.nr_migrations - w->sched.measure_migrations) /
                    (window_ns / SIM_NS_PER_S));
    rpt_set_put(out, "busy_irqs_per_s", "1/s", RPT_NEUTRAL,
                (double)(sched_busy_irqs(w) - w->sched.measure_busy_irqs) /
                    (window_ns / SIM_NS_PER_S) / w->sched.ncpus);
    if (w->machine->ntypes > 1)
        sched_collect_types(w, window_ns, out);
}
