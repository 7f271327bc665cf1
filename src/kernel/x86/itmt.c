/* itmt: ITMT support and priorities, see itmt.h.
 *
 * SMT siblings, by kernel version [A5, FACTS.md §6]: the core's priority
 * p (its highest performance) was given to the i-th sibling (i = 1, 2) as
 * p x smp_num_siblings / i until v5.16, then p x smp_num_siblings / i^2
 * ("Decrease further the priorities of SMT siblings", so that second threads
 * come after every other core's first), and since v6.5 (046a5a95c3b0) every
 * sibling gets p: the balancer itself prefers fully idle cores.
 * smp_num_siblings is system-wide, so on a hybrid part the E-cores (one
 * thread) get p x 2 before v6.5 as well.
 *
 * Left out: ITMT on parts with Turbo Boost Max 3.0 favoured cores read from
 * anywhere but CPPC/HWP, and v6.12's switch of SMT-less hybrids to asymmetric
 * capacity [A7] (rpl-h and adl-desktop have SMT, so ITMT still applies). */
#include "kernel/x86/itmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/acpi/cppc.h"
#include "kernel/cpufreq/cpufreq.h"
#include "util/xalloc.h"

#define ITMT_SIBLINGS_SQUARED_SINCE "5.16"  /* "Decrease further ...", tip Oct 2021 */
#define ITMT_SIBLINGS_EQUAL_SINCE "6.5"     /* 046a5a95c3b0 */

void sched_set_itmt_core_prio(const struct hw_machine *m, const struct kversion *k,
                              struct itmt *it, int prio_perf, int core_cpu)
{
    const struct hw_core *core = &m->cores[m->cpus[core_cpu].core];
    int smp_num_siblings = m->threads_per_core;
    for (int t = 0; t < core->nthreads; t++) {
        int i = t + 1, prio = prio_perf;
        if (!kversion_at_least(k, ITMT_SIBLINGS_EQUAL_SINCE))
            prio = prio_perf * smp_num_siblings /
                   (kversion_at_least(k, ITMT_SIBLINGS_SQUARED_SINCE) ? i * i : i);
        it->prio[core->cpus[t]] = prio;
    }
}

void sched_set_itmt_support(struct itmt *it)
{
    it->capable = true;
    it->enabled = true;
}

void itmt_resolve(const struct hw_machine *m, const struct kparams *kp, struct itmt *it)
{
    memset(it, 0, sizeof *it);
    it->ncpus = m->ncpus;
    it->prio = xcalloc((size_t)m->ncpus, sizeof *it->prio);
    bool hwp;
    const struct cpufreq_driver *drv = intel_pstate_probe(m, kp, &hwp);
    const struct cpufreq_driver *amd = drv ? NULL : cpufreq_probe_driver(m, kp, &hwp);
    if (amd && amd != &acpi_cpufreq_driver) {
        it->amd_pstate = true;
        amd_pstate_prefcore_init(m, kp, it);
    } else if (!drv || drv == &acpi_cpufreq_driver) {
        snprintf(it->why, sizeof it->why, "no intel_pstate or amd-pstate driver to set "
                 "priorities");
        return;
    } else {
        intel_pstate_itmt_init(m, kp, hwp, it);
    }
    int64_t v;
    if (it->capable && kparams_find_setting(kp, "sched_itmt_enabled", 0, -1, &v))
        it->enabled = v != 0;
}

void itmt_destroy(struct itmt *it)
{
    free(it->prio);
    it->prio = NULL;
}

int itmt_validate(const struct hw_machine *m, const struct kparams *kp, const char *file,
                  struct diag *d)
{
    int line = 0;
    for (int i = 0; i < kp->nset; i++)
        if (strcmp(kp->set[i].param->name, "sched_itmt_enabled") == 0)
            line = kp->set[i].line;
    if (!line)
        return 0;
    struct itmt it;
    itmt_resolve(m, kp, &it);
    int rc = 0;
    if (!it.capable)
        rc = diag_error(d, file, line,
                        "/proc/sys/kernel/sched_itmt_enabled: No such file or directory (the "
                        "sysctl exists only on an ITMT-capable system; here: %s)", it.why);
    itmt_destroy(&it);
    return rc;
}

void itmt_explain(const struct hw_machine *m, const struct kparams *kp, struct itmt_explain *e)
{
    memset(e, 0, sizeof *e);
    e->ncpus = m->ncpus;
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        e->ncppc += acpi_cppc_processor_probe(m, kp, cpu, e->cppc_why, sizeof e->cppc_why);
    itmt_resolve(m, kp, &e->itmt);
}

void itmt_explain_free(struct itmt_explain *e)
{
    itmt_destroy(&e->itmt);
}
