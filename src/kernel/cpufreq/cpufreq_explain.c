/* cpufreq_explain: what `pmlab explain` shows of cpufreq: scaling driver,
 * HWP, and per CPU the governor (or intel_pstate policy), EPP and scaling
 * limits, as the cpufreq sysfs files of each CPU would show them.
 * Built from a world set up exactly as a run sets it up, so explain cannot
 * disagree with what runs. */
#include <stdlib.h>
#include <string.h>

#include "kernel/cpufreq/cpufreq.h"
#include "util/xalloc.h"
#include "world.h"

void cpufreq_explain(const struct hw_machine *m, const struct kparams *kp,
                     struct cpufreq_explain *e)
{
    struct world w;
    struct world_key key = { 0 };
    memset(e, 0, sizeof *e);
    world_init(&w, m, kp, &key);
    if (!w.cpufreq.active) {
        world_destroy(&w);
        return;
    }
    e->driver = w.cpufreq.driver->name;
    e->hwp = w.cpufreq.hwp;
    e->autonomous = w.cpufreq.driver->autonomous;
    e->ncpus = m->ncpus;
    e->cpu = xcalloc((size_t)m->ncpus, sizeof *e->cpu);
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        const struct cpufreq_policy *p = &w.cpufreq.policy[cpu];
        e->cpu[cpu] = (struct cpufreq_explain_cpu){
            .governor = cpufreq_governor_name(&w, cpu),
            .min_khz = p->min_khz,
            .max_khz = p->max_khz,
            .cpuinfo_min_khz = p->cpuinfo_min_khz,
            .cpuinfo_max_khz = p->cpuinfo_max_khz,
            /* What the hardware is asked for (intel_pstate_hwp_update_request),
             * not the setting it may override. */
            .epp = p->hwp_req.epp,
            .epp_pinned = p->hwp_req.epp != p->epp,
        };
    }
    world_destroy(&w);
}

void cpufreq_explain_free(struct cpufreq_explain *e)
{
    free(e->cpu);
    memset(e, 0, sizeof *e);
}
