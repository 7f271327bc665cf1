/* explain_itmt: the CPPC and ITMT lines of `pmlab explain`, printed from
 * struct itmt_explain (kernel/x86/itmt.h): acpi_cppc in sysfs, the
 * kernel.sched_itmt_enabled sysctl, the priorities by CPU, and on AMD
 * amd-pstate's preferred-core state. */
#include <stdio.h>

#include "kernel/x86/itmt.h"
#include "report/explain.h"

/* "0-7 60, 8-15 35": CPUs grouped into runs of equal priority. */
static void explain_itmt_prio(const struct itmt *it, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < it->ncpus && used < size;) {
        int b = a;
        while (b + 1 < it->ncpus && it->prio[b + 1] == it->prio[a])
            b++;
        int n = b > a ? snprintf(buf + used, size - used, "%s%d-%d %d", used ? ", " : "", a, b,
                                 it->prio[a])
                      : snprintf(buf + used, size - used, "%s%d %d", used ? ", " : "", a,
                                 it->prio[a]);
        if (n < 0)
            break;
        used += (size_t)n;
        a = b + 1;
    }
}

void explain_add_itmt(struct explain *x, const struct itmt_explain *e)
{
    if (e->ncppc == e->ncpus)
        explain_add(x, "acpi_cppc: /sys/devices/system/cpu/cpu*/acpi_cppc present");
    else
        explain_add(x, "acpi_cppc: absent on %d of %d cpus: %s", e->ncpus - e->ncppc, e->ncpus,
                    e->cppc_why);
    const struct itmt *it = &e->itmt;
    if (it->capable)
        explain_add(x, "itmt: kernel.sched_itmt_enabled = %d", it->enabled);
    else
        explain_add(x, "itmt: not capable (no /proc/sys/kernel/sched_itmt_enabled): %s", it->why);
    char prio[512];
    explain_itmt_prio(it, prio, sizeof prio);
    explain_add(x, "itmt: priority by cpu: %s", prio);
    if (it->amd_pstate)
        explain_add(x, "amd-pstate: /sys/devices/system/cpu/amd_pstate/prefcore: %s%s",
                    it->capable ? "enabled" : "disabled",
                    it->capable ? " (cpu*/cpufreq/amd_pstate_prefcore_ranking: the priorities "
                                  "above)" : "");
}
