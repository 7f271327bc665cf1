/* power_limit: the timer of the package power-limit controller (hw/rapl.h)
 * and what a new ceiling does to the package's cores.
 *
 * The controller is hardware, but a frequency change must re-time the work
 * running on the core, which is the scheduler's job; so, as for HWP's
 * evaluation timer, the event lives on this side and a ceiling reaches the
 * cores through cpufreq_set_core_mhz, with each core's last choice. One
 * evaluation per package every 10 ms, every 1 ms while it is clamped
 * (hw_rapl_next_eval_ns); a machine without limits has no events. */
#include <stdlib.h>

#include "kernel/cpufreq/cpufreq.h"
#include "util/xalloc.h"
#include "world.h"

static void cpufreq_power_limit_timer(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct cpufreq_sys *cs = &w->cpufreq;
    int pkg = (int)(ev - cs->rapl_ev);
    sim_time_t now = w->q.now_ns;
    if (hw_rapl_eval(&cs->rapl, &w->hw, pkg, now)) {
        const struct hw_machine *m = w->machine;
        for (int c = 0; c < m->ncores; c++)
            if (m->cores[c].package == pkg)
                cpufreq_set_core_mhz(w, c, cs->rapl.want_mhz[c]);
    }
    sim_event_schedule(&w->q, ev, hw_rapl_next_eval_ns(&cs->rapl, pkg, now));
}

void cpufreq_power_limit_init(struct world *w)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    const struct hw_machine *m = w->machine;
    hw_rapl_init(&cs->rapl, m, &w->hw);
    if (!cs->rapl.enabled)
        return;
    cs->rapl_ev = xcalloc((size_t)m->packages, sizeof *cs->rapl_ev);
    for (int p = 0; p < m->packages; p++) {
        sim_event_init(&cs->rapl_ev[p], cpufreq_power_limit_timer);
        sim_event_schedule(&w->q, &cs->rapl_ev[p], hw_rapl_next_eval_ns(&cs->rapl, p, w->q.now_ns));
    }
}

void cpufreq_power_limit_destroy(struct world *w)
{
    /* The queue goes with the world: the pending events are not cancelled
     * (other subsystems' events in it are already freed). */
    struct cpufreq_sys *cs = &w->cpufreq;
    free(cs->rapl_ev);
    cs->rapl_ev = NULL;
    hw_rapl_destroy(&cs->rapl);
}
