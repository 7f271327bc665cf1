/* pelt: per-CPU utilisation in the manner of the scheduler's PELT
 * (kernel/sched/pelt.c), for the governors that read it (schedutil).
 *
 * Why: schedutil sets f = 1.25 x fmax x util / max (FACTS.md §5 [F2]), so
 * what matters is the utilisation signal: a geometric average of running
 * time with a 32 ms half-life (y^32 = 1/2), frequency-invariant (x86 scales
 * by APERF/MPERF since v5.7). Invariance works as the kernel's clock_pelt
 * does: running time at f advances the signal's clock by only f/fmax of it
 * (the work done), and idle time is decayed in real time, the clock having
 * caught up at idle entry. So the same work gives the same util at any
 * frequency when there is idle time, and a CPU with no idle time at all
 * still climbs to 1024 (slowly at low f), which lets schedutil escape a
 * frequency too low for the load.
 *
 * Departures: time is continuous (the kernel sums 1024 us periods; the
 * difference is under one period's worth); one signal per CPU (the rq's
 * CFS util_avg), no per-task signals, no util_est, no RT/DL/IRQ parts; the
 * capacity of each CPU is its own maximum (util relative to its fmax). The
 * CPU's state comes from the scheduler at every busy/idle transition, the
 * only times it changes, and is folded again before any frequency change. */
#include <math.h>

#include "kernel/cpufreq/cpufreq.h"
#include "world.h"

void pelt_init(struct pelt_cpu *pc, sim_time_t now_ns)
{
    pc->util_avg = 0;
    pc->last_update_ns = now_ns;
    pc->busy_ns = 0;
    pc->idle_calls = 0;
    pc->running = false;
}

double pelt_decay(double util, sim_time_t dt_ns, bool running, double scale)
{
    if (dt_ns <= 0)
        return util;
    double t = (double)dt_ns * (running ? scale : 1.0);
    double keep = exp2(-t / (double)PELT_HALFLIFE_NS);
    double u = util * keep;
    if (running)
        u += PELT_SCALE * (1 - keep);
    return u;
}

void pelt_sync(struct world *w, int cpu)
{
    struct pelt_cpu *pc = &w->cpufreq.pelt[cpu];
    sim_time_t now = w->q.now_ns;
    sim_time_t dt = now - pc->last_update_ns;
    if (dt <= 0)
        return;
    double scale = 0;
    if (pc->running) {
        const struct hw_machine *m = w->machine;
        int core = m->cpus[cpu].core;
        scale = (double)w->hw.core_mhz[core] / m->types[m->cores[core].type].max_mhz;
        if (scale > 1)
            scale = 1;
        pc->busy_ns += dt;
    }
    pc->util_avg = pelt_decay(pc->util_avg, dt, pc->running, scale);
    pc->last_update_ns = now;
}

void pelt_update(struct world *w, int cpu)
{
    struct pelt_cpu *pc = &w->cpufreq.pelt[cpu];
    pelt_sync(w, cpu);
    bool running = w->sched.cpu[cpu].curr != NULL;
    if (pc->running && !running)
        pc->idle_calls++;
    pc->running = running;
}
