/* explain_cpufreq: the cpufreq lines of `pmlab explain`, printed from what
 * the kernel's cpufreq code resolves (struct cpufreq_explain,
 * kernel/cpufreq/cpufreq.h): the scaling driver and HWP, then one line per
 * group of CPUs whose sysfs files read the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cpufreq/cpufreq.h"
#include "report/explain.h"
#include "util/cpulist.h"
#include "util/xalloc.h"

/* One CPU's cpufreq line, without the CPU number. */
static void explain_cpufreq_cpu(const struct cpufreq_explain *e, int cpu, char *buf, size_t size)
{
    const struct cpufreq_explain_cpu *c = &e->cpu[cpu];
    int n = snprintf(buf, size, "governor %s, scaling %u-%u MHz (cpuinfo %u-%u)",
                     c->governor ? c->governor : "?", c->min_khz / 1000, c->max_khz / 1000,
                     c->cpuinfo_min_khz / 1000, c->cpuinfo_max_khz / 1000);
    if (e->hwp && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", EPP %d%s", c->epp,
                 c->epp_pinned ? " (pinned by the performance policy)" : "");
}

void explain_add_cpufreq(struct explain *x, const struct cpufreq_explain *e)
{
    if (!e->driver) {
        explain_add(x, "cpufreq: no driver: every core at its base frequency");
        return;
    }
    if (e->hwp)
        explain_add(x, "cpufreq: driver %s, %s on", e->driver,
                    e->autonomous ? e->autonomous : "HWP");
    else
        explain_add(x, "cpufreq: driver %s", e->driver);
    /* Group CPUs with identical lines: "cpus 0-15: ...", in order of first CPU. */
    char line[256], other[256];
    bool *done = xcalloc((size_t)e->ncpus, sizeof *done);
    bool *same = xcalloc((size_t)e->ncpus, sizeof *same);
    for (int cpu = 0; cpu < e->ncpus; cpu++) {
        if (done[cpu])
            continue;
        explain_cpufreq_cpu(e, cpu, line, sizeof line);
        for (int k = 0; k < e->ncpus; k++) {
            explain_cpufreq_cpu(e, k, other, sizeof other);
            same[k] = strcmp(line, other) == 0;
            done[k] |= same[k];
        }
        char *cpus = cpulist_format(same, e->ncpus);
        explain_add(x, "cpufreq cpus %s: %s", cpus, line);
        free(cpus);
    }
    free(same);
    free(done);
}
