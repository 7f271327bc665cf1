/* explain_topology: the sched_domain lines of `pmlab explain`, from the
 * domains the kernel built (kernel/sched/topology.c): one tree per kind of
 * CPU, as /sys/kernel/debug/sched/domains/cpuN/domainM/{name,flags} shows
 * it, with spans and groups, then the CPU capacities and the LLC/cluster
 * summary. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/kversion.h"
#include "kernel/sched/topology.h"
#include "report/explain.h"
#include "util/cpulist.h"
#include "util/xalloc.h"


/* "0-3,8" of span s. */
static char *topo_span_text(const struct sched_span *s, int ncpus)
{
    bool *mask = xcalloc((size_t)ncpus, sizeof *mask);
    for (int i = 0; i < s->weight; i++)
        mask[s->cpus[i]] = true;
    char *text = cpulist_format(mask, ncpus);
    free(mask);
    return text;
}

/* Weight of the group holding cpu, then of the others in ascending order
 * of their first CPU: a domain's shape, whatever group it starts from. */
static int topo_group_shape(const struct sched_domain *sd, int i)
{
    if (i == 0)
        return sd->groups[0]->span->weight;
    int rank = 0;   /* the i-th smallest first CPU among the other groups */
    for (int g = 1; g < sd->ngroups; g++) {
        int below = 0;
        for (int h = 1; h < sd->ngroups; h++)
            below += sd->groups[h]->span->first < sd->groups[g]->span->first;
        if (below == i - 1)
            rank = g;
    }
    return sd->groups[rank]->span->weight;
}

/* Whether cpus a and b have the same shape of domain tree: levels, flags,
 * span and group weights, capacity. */
static bool topo_same_kind(const struct sched_topology *t, int a, int b)
{
    int na, nb;
    const struct sched_domain *da = sched_domains(t, a, &na), *db = sched_domains(t, b, &nb);
    if (na != nb || t->capacity[a] != t->capacity[b])
        return false;
    for (int l = 0; l < na; l++) {
        if (da[l].tl != db[l].tl || da[l].flags != db[l].flags ||
            da[l].span->weight != db[l].span->weight || da[l].ngroups != db[l].ngroups)
            return false;
        for (int g = 0; g < da[l].ngroups; g++)
            if (topo_group_shape(&da[l], g) != topo_group_shape(&db[l], g))
                return false;
    }
    return true;
}

static void topo_explain_cpu(const struct sched_topology *t, const struct kversion *k, int cpu,
                             struct explain *x)
{
    int n;
    const struct sched_domain *d = sched_domains(t, cpu, &n);
    for (int l = 0; l < n; l++) {
        char flags[512], groups[512];
        sched_flags_text(d[l].flags, k, flags, sizeof flags);
        size_t used = 0;
        groups[0] = '\0';
        for (int g = 0; g < d[l].ngroups && used < sizeof groups; g++) {
            char *s = topo_span_text(d[l].groups[g]->span, t->ncpus);
            int w = snprintf(groups + used, sizeof groups - used, "%s{%s}", g ? " " : "", s);
            free(s);
            used += w > 0 ? (size_t)w : 0;
        }
        char *span = topo_span_text(d[l].span, t->ncpus);
        explain_add(x, "sched_domain:   cpu%d/domain%d/name %s: span %s, groups %s", cpu, l,
                    sched_tl_name(d[l].tl, k), span, groups);
        explain_add(x, "sched_domain:   cpu%d/domain%d/flags %s", cpu, l, flags);
        free(span);
    }
    if (n == 0)
        explain_add(x, "sched_domain:   cpu%d has no domain", cpu);
}

/* "1024 on 0-7, 597 on 8-15": each capacity and the CPUs that have it. */
static void topo_capacity_text(const struct sched_topology *t, char *buf, size_t size)
{
    bool *mask = xcalloc((size_t)t->ncpus, sizeof *mask);
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < t->ncpus && used < size; a++) {
        bool seen = false;
        for (int b = 0; b < a; b++)
            seen |= t->capacity[b] == t->capacity[a];
        if (seen)
            continue;
        for (int cpu = 0; cpu < t->ncpus; cpu++)
            mask[cpu] = t->capacity[cpu] == t->capacity[a];
        char *cpus = cpulist_format(mask, t->ncpus);
        int w = snprintf(buf + used, size - used, "%s%lu on %s", used ? ", " : "", t->capacity[a],
                         cpus);
        free(cpus);
        used += w > 0 ? (size_t)w : 0;
    }
    free(mask);
}

void explain_add_topology(struct explain *x, const struct sched_topology *tp,
                          const struct kversion *k)
{
    int ncpus = tp->ncpus;
    explain_add(x, "sched_domain: /sys/kernel/debug/sched/domains/, one CPU of each kind:");
    bool *done = xcalloc((size_t)ncpus, sizeof *done), *kind = xcalloc((size_t)ncpus, 1);
    for (int cpu = 0; cpu < ncpus; cpu++) {
        if (done[cpu])
            continue;
        for (int o = 0; o < ncpus; o++) {
            kind[o] = !done[o] && topo_same_kind(tp, cpu, o);
            done[o] = done[o] || kind[o];
        }
        char *cpus = cpulist_format(kind, ncpus);
        explain_add(x, "sched_domain: cpus %s, like cpu%d:", cpus, cpu);
        free(cpus);
        topo_explain_cpu(tp, k, cpu, x);
    }
    char cap[256];
    topo_capacity_text(tp, cap, sizeof cap);
    explain_add(x, "sched_domain: cpu_capacity (arch_scale_cpu_capacity): %s%s", cap,
                tp->asym_cpucapacity ? " (asymmetric: misfit and select_idle_capacity)" : "");
    int nllc = 0;
    for (int cpu = 0; cpu < ncpus; cpu++)
        nllc += tp->llc_id[cpu] == cpu;
    explain_add(x, "sched_domain: LLC of cpu0: %d cpus, %d LLC%s in all (select_idle_sibling "
                "scans one); clusters %s", tp->llc_size[0], nllc, nllc == 1 ? "" : "s",
                tp->cluster_active ? "active (cluster-first wake-up scan)" : "inactive");
    free(kind);
    free(done);
}
