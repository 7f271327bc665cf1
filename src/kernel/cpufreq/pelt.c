/* pelt: per-CPU utilisation as the scheduler's PELT computes it
 * (kernel/sched/pelt.c and pelt.h), for the governors that read it
 * (schedutil).
 *
 * Why: schedutil sets f = 1.25 x fmax x util / max (FACTS.md §5 [F2]), so
 * what matters is the utilisation signal: the runqueue's util_avg in the
 * kernel's fixed point (kernel/sched/pelt.h here: 1024 us periods, y^32 =
 * 1/2), frequency-invariant (x86 scales by APERF/MPERF since v5.7) the way
 * the kernel does it since v5.1 (23127296889f): the signal runs on the
 * runqueue's own clock, clock_pelt, which advances by f/fmax of the running
 * time (update_rq_clock_pelt, cap_scale) and is set to the real clock while
 * the CPU idles, so the time it fell behind while running is decayed as
 * idle time. The same work thus gives the same util at any frequency when
 * there is idle time. A CPU whose util_sum is full when it goes idle had no
 * idle time to lose: the gap is kept as lost_idle_time and taken off the
 * clock from then on (update_idle_rq_clock_pelt), so a CPU that never idles
 * still climbs to 1024, slowly at low f.
 *
 * The clock and its rules are kernel/sched/pelt.h's struct pelt_clock,
 * which fair.c's signals run on too.
 *
 * Departures: one signal per CPU (the rq's CFS util_avg, kept apart from
 * fair.c's: this one is not capacity-invariant, and both are kept so that
 * schedutil's signal is unchanged), no per-task signals,
 * no RT/DL/IRQ parts (util_est is the scheduler's, which schedutil reads
 * beside this signal); the capacity of each CPU is its own
 * maximum (util relative to its fmax). The CPU's state comes from the
 * scheduler at every busy/idle transition, the only times it changes, and
 * is folded again before any frequency change. */
#include "kernel/cpufreq/cpufreq.h"
#include "world.h"

void pelt_init(struct pelt_cpu *pc, sim_time_t now_ns)
{
    *pc = (struct pelt_cpu){ .avg = { .last_update_ns = now_ns }, .clock = pelt_clock_new(now_ns) };
}

unsigned arch_scale_freq_capacity(const struct world *w, int cpu)
{
    const struct hw_machine *m = w->machine;
    int core = m->cpus[cpu].core;
    uint64_t scale = (uint64_t)w->hw.core_mhz[core] * 1024 / m->types[m->cores[core].type].max_mhz;
    return scale < 1024 ? (unsigned)scale : 1024;
}

/* The clock runs at f/fmax only: this signal's capacity is the CPU's own. */
void pelt_sync(struct world *w, int cpu)
{
    struct pelt_cpu *pc = &w->cpufreq.pelt[cpu];
    sim_time_t dt = pelt_clock_update(&pc->clock, w->q.now_ns, pc->running, SCHED_CAPACITY_SCALE,
                                      arch_scale_freq_capacity(w, cpu));
    if (dt <= 0)
        return;
    if (pc->running)
        pc->busy_ns += dt;
    pelt_update_load_avg(&pc->avg, rq_clock_pelt(&pc->clock),
                         pc->running ? SCHED_CAPACITY_SCALE : 0, pc->running, 1);
}

void pelt_update(struct world *w, int cpu)
{
    struct pelt_cpu *pc = &w->cpufreq.pelt[cpu];
    pelt_sync(w, cpu);
    bool running = w->sched.cpu[cpu].curr != NULL;
    if (pc->running && !running)
        pelt_clock_enter_idle(&pc->clock, w->q.now_ns, pc->avg.util_sum);
    pc->running = running;
}
