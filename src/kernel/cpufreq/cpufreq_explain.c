/* cpufreq_explain: the cpufreq lines of `pmlab explain`: scaling driver,
 * HWP, and per group of CPUs the governor (or intel_pstate policy), EPP and
 * scaling limits, as the cpufreq sysfs files of each CPU would show them.
 * Built from a world set up exactly as a run sets it up, so explain cannot
 * disagree with what runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cpufreq/cpufreq.h"
#include "report/explain.h"
#include "world.h"

/* One CPU's cpufreq line, without the CPU number. */
static void cpufreq_explain_cpu(const struct world *w, int cpu, char *buf, size_t size)
{
    const struct cpufreq_policy *p = &w->cpufreq.policy[cpu];
    const char *gov = cpufreq_governor_name(w, cpu);
    int n = snprintf(buf, size, "governor %s, scaling %u-%u MHz (cpuinfo %u-%u)", gov ? gov : "?",
                     p->min_khz / 1000, p->max_khz / 1000, p->cpuinfo_min_khz / 1000,
                     p->cpuinfo_max_khz / 1000);
    if (w->cpufreq.hwp && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", EPP %d", p->epp);
}

void cpufreq_explain(const struct hw_machine *m, const struct kparams *kp, struct explain *x);
void cpufreq_explain(const struct hw_machine *m, const struct kparams *kp, struct explain *x)
{
    struct world w;
    struct world_key key = { 0 };
    world_init(&w, m, kp, &key);
    if (!w.cpufreq.active) {
        explain_add(x, "cpufreq: no driver: every core at its base frequency");
        world_destroy(&w);
        return;
    }
    explain_add(x, "cpufreq: driver %s%s", w.cpufreq.driver->name,
                w.cpufreq.hwp ? ", HWP on" : "");
    /* Group CPUs with identical lines: "cpus 0-15: ...". */
    char line[256], other[256];
    bool *done = calloc((size_t)m->ncpus, sizeof *done);
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        if (done[cpu])
            continue;
        cpufreq_explain_cpu(&w, cpu, line, sizeof line);
        char cpus[256] = "";
        size_t used = 0;
        for (int k = cpu; k < m->ncpus; k++) {
            cpufreq_explain_cpu(&w, k, other, sizeof other);
            if (done[k] || strcmp(line, other) != 0)
                continue;
            done[k] = true;
            int last = k;
            while (last + 1 < m->ncpus && !done[last + 1]) {
                cpufreq_explain_cpu(&w, last + 1, other, sizeof other);
                if (strcmp(line, other) != 0)
                    break;
                done[++last] = true;
            }
            int n = last > k ? snprintf(cpus + used, sizeof cpus - used, "%s%d-%d", used ? "," : "", k, last)
                             : snprintf(cpus + used, sizeof cpus - used, "%s%d", used ? "," : "", k);
            used += n > 0 && (size_t)n < sizeof cpus - used ? (size_t)n : 0;
            k = last;
        }
        explain_add(x, "cpufreq cpus %s: %s", cpus, line);
    }
    free(done);
    world_destroy(&w);
}
