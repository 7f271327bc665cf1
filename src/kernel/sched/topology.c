/* topology: sched domains, groups and CPU capacities, see topology.h.
 *
 * Built as build_sched_domains does it, for one root domain of every CPU:
 *  1. per CPU, each level of the x86 table in turn (sd_init: the default
 *     behaviour flags SD_BALANCE_NEWIDLE|EXEC|FORK, SD_WAKE_AFFINE and
 *     SD_PREFER_SIBLING, the level's topology flags, asymmetric capacity
 *     where the span holds CPUs of different capacity, then imbalance_pct
 *     110 for SMT, 117 with cache_nice_tries 1 for LLC levels, NUMA
 *     cache_nice_tries 2 with SD_SERIALIZE and no SD_PREFER_SIBLING [S6]),
 *     stopping at the first level that spans every CPU;
 *  2. groups: a level's groups are the spans of its child level (single CPUs
 *     at the bottom), each group carrying its child domain's flags;
 *  3. the NUMA imbalance allowance (imb_numa_nr) from the first domain above
 *     the LLC: nr_llcs there, or its weight / 8 with one LLC per node;
 *  4. cpu_attach_domain per CPU: a parent that is degenerate for this CPU
 *     (sd_parent_degenerate: one CPU, or the child's span and only flags that
 *     need groups it does not have) is dropped, its SD_PREFER_SIBLING moved
 *     down and the next level's local group given the child's flags (Chen
 *     Yu, "sched/topology: Propagate sched_group flags of the degenerate
 *     domain", tip Jul 2023); then a degenerate base domain goes and its
 *     parent's groups lose their flags.
 *
 * Flags per level on x86 (FACTS-2.md section 4, ITMT = SD_ASYM_PACKING when
 * kernel.sched_itmt_enabled is 1):
 *   SMT  SD_SHARE_CPUCAPACITY | SD_SHARE_LLC, + ITMT before v6.5 (995998ebdebd)
 *   CLS  SD_CLUSTER (the flag exists since v6.8, with the cluster-first wake-up
 *        scan [S4]) | SD_SHARE_LLC | ITMT; x86 has the level since v5.16, but
 *        not on hybrids until v6.6 (cabdc3a8475b, 17953249bf02 [H1])
 *   MC   SD_SHARE_LLC | ITMT
 *   PKG  ITMT on hybrids since v6.5 (044f0e27dec6, restored for v6.6 by
 *        108af4b4bd38 [S7]), on every x86 since e1bc02646527 (~v6.14, not
 *        verified [H4])
 *   NODE none; NUMA SD_NUMA (+ SD_OVERLAP, SD_SERIALIZE)
 *
 * Capacities [H3]: SCHED_CAPACITY_SCALE on every x86 CPU, except that since
 * v6.12 (5a9d10145a54, 929ebc93ccaa) intel_pstate scales them by HWP highest
 * performance on a hybrid part without SMT (then SD_ASYM_CPUCAPACITY and no
 * ITMT; intel_pstate.c decides). */
#include "kernel/sched/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/isolation.h"
#include "kernel/x86/itmt.h"
#include "util/cpulist.h"
#include "util/xalloc.h"

#define TOPO_CLS_SINCE "5.16"          /* x86 cluster level ("sched: Add cluster scheduler level for x86") */
#define TOPO_CLS_HYBRID_SINCE "6.6"    /* 17953249bf02 [H1] */
#define TOPO_SD_CLUSTER_SINCE "6.8"    /* cpus_share_resources series [S4] */
#define TOPO_SMT_NO_ASYM_SINCE "6.5"   /* 995998ebdebd [S7] */
#define TOPO_PKG_ASYM_HYBRID_SINCE "6.5" /* 044f0e27dec6, 108af4b4bd38 [S7] */
#define TOPO_PKG_ASYM_ALL_SINCE "6.14" /* e1bc02646527 [H4], not verified */
#define TOPO_PKG_NAME_SINCE "6.7"      /* f577cd57bfaa: DIE -> PKG [H2] */
#define TOPO_SHARE_LLC_NAME_SINCE "6.9" /* 54de44274703 [H2] */

/* Flags that only mean something with two groups or more
 * (SD_DEGENERATE_GROUPS_MASK: every SDF_NEEDS_GROUPS flag). */
#define SD_DEGENERATE_GROUPS_MASK (~0u & ~SD_WAKE_AFFINE)

static const char *const sd_flag_names[SD_FLAG_CNT] = {
    "SD_BALANCE_NEWIDLE", "SD_BALANCE_EXEC", "SD_BALANCE_FORK", "SD_BALANCE_WAKE",
    "SD_WAKE_AFFINE", "SD_ASYM_CPUCAPACITY", "SD_ASYM_CPUCAPACITY_FULL",
    "SD_SHARE_CPUCAPACITY", "SD_CLUSTER", "SD_SHARE_LLC", "SD_SERIALIZE", "SD_ASYM_PACKING",
    "SD_PREFER_SIBLING", "SD_OVERLAP", "SD_NUMA",
};

const char *sched_tl_name(enum sched_tl tl, const struct kversion *k)
{
    static const char *const names[TL_NR] = { "SMT", "CLS", "MC", "PKG", "NODE", "NUMA" };
    if (tl == TL_PKG && !kversion_at_least(k, TOPO_PKG_NAME_SINCE))
        return "DIE";
    return names[tl];
}

void sched_flags_text(unsigned flags, const struct kversion *k, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int b = 0; b < SD_FLAG_CNT && used < size; b++) {
        if (!(flags & (1u << b)))
            continue;
        const char *name = sd_flag_names[b];
        if ((1u << b) == SD_SHARE_LLC && !kversion_at_least(k, TOPO_SHARE_LLC_NAME_SINCE))
            name = "SD_SHARE_PKG_RESOURCES";
        int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* ---- the levels ------------------------------------------------------------- */

/* Which levels the kernel builds on m, and their topology flags. */
struct topo_desc {
    bool level[TL_NR];
    unsigned tl_flags[TL_NR];
    const bool *in_domains;     /* [ncpus] the CPUs the domains are built over */
    int nr_in_domains;
};

static void topo_describe(const struct hw_machine *m, const struct kversion *k, bool itmt,
                          struct topo_desc *td)
{
    bool hybrid = m->ntypes > 1;
    unsigned asym = itmt ? SD_ASYM_PACKING : 0;
    memset(td, 0, sizeof *td);
    td->level[TL_SMT] = td->level[TL_MC] = td->level[TL_PKG] = true;
    td->level[TL_CLS] = kversion_at_least(k, TOPO_CLS_SINCE) &&
                        (!hybrid || kversion_at_least(k, TOPO_CLS_HYBRID_SINCE));
    td->level[TL_NODE] = td->level[TL_NUMA] = m->packages > 1;
    td->tl_flags[TL_SMT] = SD_SHARE_CPUCAPACITY | SD_SHARE_LLC |
                           (kversion_at_least(k, TOPO_SMT_NO_ASYM_SINCE) ? 0 : asym);
    td->tl_flags[TL_CLS] = SD_SHARE_LLC | asym |
                           (kversion_at_least(k, TOPO_SD_CLUSTER_SINCE) ? SD_CLUSTER : 0);
    td->tl_flags[TL_MC] = SD_SHARE_LLC | asym;
    if (kversion_at_least(k, TOPO_PKG_ASYM_ALL_SINCE) ||
        (hybrid && kversion_at_least(k, TOPO_PKG_ASYM_HYBRID_SINCE)))
        td->tl_flags[TL_PKG] = asym;
    td->tl_flags[TL_NUMA] = SD_NUMA | SD_OVERLAP;
}

/* The value tl->mask groups CPUs by: the core, the L2 group, the LLC group
 * (cpu_coregroup_mask: cpu_llc_shared_mask on x86), the package (package
 * and node alike here), or nothing (NUMA: everything); TL_NR: the CPU. All
 * are below ncpus (machine-wide core index, first CPU of a group, package). */
static int topo_mask_key(const struct hw_machine *m, int tl, int cpu)
{
    switch (tl) {
    case TL_SMT: return m->cpus[cpu].core;
    case TL_CLS: return m->l2_group[cpu];
    case TL_MC: return m->llc_group[cpu];
    case TL_PKG:
    case TL_NODE: return m->cpus[cpu].package;
    case TL_NUMA: return 0;
    default: break;
    }
    return cpu;
}

/* Storage slot of a per-level, per-first-CPU object; level TL_NR holds the
 * single-CPU spans that the bottom level's groups are. */
static int topo_slot(const struct sched_topology *t, int tl, int first)
{
    return tl * t->ncpus + first;
}

/* Every span of level tl in one pass over the CPUs (O(ncpus), not a scan
 * per CPU): each CPU's span_first (cpumask_first of tl->mask(cpu)) is the
 * first CPU seen with its key; then each span's CPUs, ascending.
 * key_first is [ncpus] scratch. */
static void topo_build_spans(const struct hw_machine *m, struct sched_topology *t, int tl,
                             const bool *in_domains, int *key_first)
{
    int n = t->ncpus;
    int *first = &t->span_first[(size_t)tl * (size_t)n];
    for (int k = 0; k < n; k++)
        key_first[k] = -1;
    for (int cpu = 0; cpu < n; cpu++) {
        int key = topo_mask_key(m, tl, cpu);
        /* A CPU outside the domains' map (isolcpus=domain, offline) spans
         * itself alone at every level: all its levels are degenerate and it
         * is in no other CPU's spans (build_sched_domains over
         * housekeeping_cpumask(HK_TYPE_DOMAIN) and the active CPUs). */
        if (!in_domains[cpu]) {
            first[cpu] = cpu;
            t->spans[topo_slot(t, tl, cpu)].weight++;
            continue;
        }
        if (key_first[key] < 0)
            key_first[key] = cpu;
        first[cpu] = key_first[key];
        t->spans[topo_slot(t, tl, first[cpu])].weight++;
    }
    for (int cpu = 0; cpu < n; cpu++) {
        struct sched_span *s = &t->spans[topo_slot(t, tl, cpu)];
        if (!s->weight)
            continue;
        s->first = cpu;
        s->cpus = xcalloc((size_t)s->weight, sizeof *s->cpus);
        s->level_first = first;
        s->weight = 0;
    }
    for (int cpu = 0; cpu < n; cpu++) {
        struct sched_span *s = &t->spans[topo_slot(t, tl, first[cpu])];
        s->cpus[s->weight++] = cpu;
    }
}

/* The span of level tl (TL_NR: cpu alone) holding cpu: one lookup. */
static const struct sched_span *topo_span(const struct sched_topology *t, int tl, int cpu)
{
    return &t->spans[topo_slot(t, tl, t->span_first[(size_t)tl * (size_t)t->ncpus + (size_t)cpu])];
}

/* ---- capacities ------------------------------------------------------------- */

/* Arm (drivers/base/arch_topology.c, topology_normalize_cpu_scale): with
 * capacity-dmips-mhz on every CPU, a CPU's capacity is its dmips-per-MHz
 * times its highest frequency once cpufreq has a policy for it (the DT
 * value alone without a driver), scaled so the biggest is 1024: on Juno r0
 * 1024 x 850 MHz x 578 / (1100 MHz x 1024) = 446 for the A53s. */
static void topo_arch_capacity(const struct hw_machine *m, const struct kparams *kp,
                               unsigned long *capacity)
{
    bool hwp;
    bool freq = cpufreq_probe_driver(m, kp, &hwp) != NULL;
    uint64_t scale = 0;
    for (int i = 0; i < m->ntypes; i++) {
        if (!m->types[i].capacity_dmips_mhz)
            return;   /* a CPU without it: every capacity stays 1024 */
        uint64_t raw = (uint64_t)m->types[i].capacity_dmips_mhz * (freq ? m->types[i].max_mhz : 1);
        scale = raw > scale ? raw : scale;
    }
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        const struct hw_core_type *ct = &m->types[m->cpus[cpu].type];
        uint64_t raw = (uint64_t)ct->capacity_dmips_mhz * (freq ? ct->max_mhz : 1);
        capacity[cpu] = (unsigned long)((raw * SCHED_CAPACITY_SCALE) / scale);
    }
}

static void topo_capacities(const struct hw_machine *m, const struct kparams *kp,
                            struct sched_topology *t)
{
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        t->capacity[cpu] = SCHED_CAPACITY_SCALE;
    if (hw_machine_is_arm(m))
        topo_arch_capacity(m, kp, t->capacity);
    else
        intel_pstate_hybrid_capacity(m, kp, t->capacity);
    for (int cpu = 1; cpu < m->ncpus; cpu++)
        t->asym_cpucapacity |= t->capacity[cpu] != t->capacity[0];
}

/* asym_cpu_capacity_classify: SD_ASYM_CPUCAPACITY if span holds more than
 * one capacity, _FULL as well if it holds every capacity of the machine. */
static unsigned topo_asym_classify(const struct sched_topology *t, const bool *in_domains,
                                   const struct sched_span *s)
{
    bool mixed = false, all = true;
    for (int i = 0; i < s->weight; i++)
        mixed |= t->capacity[s->cpus[i]] != t->capacity[s->first];
    if (!mixed)
        return 0;
    for (int cpu = 0; cpu < t->ncpus && all; cpu++) {
        if (!in_domains[cpu])
            continue;   /* asym_cpu_capacity_scan reads the domains' CPUs */
        bool found = false;
        for (int i = 0; i < s->weight && !found; i++)
            found = t->capacity[s->cpus[i]] == t->capacity[cpu];
        all = found;
    }
    return SD_ASYM_CPUCAPACITY | (all ? SD_ASYM_CPUCAPACITY_FULL : 0);
}

/* ---- building --------------------------------------------------------------- */

/* sd_init of level tl over span s, groups not yet set. */
static void topo_sd_init(const struct topo_desc *td, const struct sched_topology *t,
                         enum sched_tl tl, const struct sched_span *s, struct sched_domain *sd)
{
    memset(sd, 0, sizeof *sd);
    sd->tl = tl;
    sd->span = s;
    sd->min_interval_ms = s->weight;
    sd->max_interval_ms = 2 * s->weight;
    sd->busy_factor = 16;
    sd->imbalance_pct = 117;
    sd->flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE |
                SD_PREFER_SIBLING | td->tl_flags[tl] | topo_asym_classify(t, td->in_domains, s);
    if (sd->flags & SD_SHARE_CPUCAPACITY) {
        sd->imbalance_pct = 110;
    } else if (sd->flags & SD_SHARE_LLC) {
        sd->cache_nice_tries = 1;
    } else if (sd->flags & SD_NUMA) {
        sd->cache_nice_tries = 2;
        sd->flags &= ~SD_PREFER_SIBLING;
        sd->flags |= SD_SERIALIZE;
    } else {
        sd->cache_nice_tries = 1;
    }
}

/* The group of a level-tl domain whose span is c, carrying flags. */
static struct sched_group *topo_group(struct sched_topology *t, int tl, const struct sched_span *c,
                                      unsigned flags, const struct itmt *it)
{
    struct sched_group *g = &t->grp[topo_slot(t, tl, c->first)];
    if (g->span)
        return g;
    g->span = c;
    g->flags = flags;
    g->min_capacity = ~0ul;
    g->asym_prefer_cpu = c->first;
    for (int i = 0; i < c->weight; i++) {
        int cpu = c->cpus[i];
        unsigned long cap = t->capacity[cpu];
        g->capacity += cap;
        g->min_capacity = cap < g->min_capacity ? cap : g->min_capacity;
        g->max_capacity = cap > g->max_capacity ? cap : g->max_capacity;
        if (it && it->prio[cpu] > it->prio[g->asym_prefer_cpu])
            g->asym_prefer_cpu = cpu;
    }
    return g;
}

/* The levels built (bottom up) and, per level and span, the domain before
 * any CPU drops a level (sd_init, groups in ascending order, imb_numa_nr). */
struct topo_build {
    int nlv;
    enum sched_tl lv[TL_NR];
    struct sched_domain *proto;   /* [TL_NR * ncpus] by level and span's first CPU */
};

static struct sched_domain *topo_proto(const struct topo_build *b, const struct sched_topology *t,
                                       int l, const struct sched_span *s)
{
    return &b->proto[topo_slot(t, b->lv[l], s->first)];
}

static void topo_build_protos(const struct hw_machine *m, const struct topo_desc *td,
                              struct sched_topology *t, struct topo_build *b)
{
    b->nlv = 0;
    for (int tl = 0; tl < TL_NR; tl++) {
        if (!td->level[tl])
            continue;
        b->lv[b->nlv] = (enum sched_tl)tl;
        bool spans_all = false;
        for (int cpu = 0; cpu < m->ncpus; cpu++) {
            const struct sched_span *s = topo_span(t, tl, cpu);
            struct sched_domain *sd = topo_proto(b, t, b->nlv, s);
            spans_all |= s->weight == td->nr_in_domains;
            if (sd->span)
                continue;
            topo_sd_init(td, t, (enum sched_tl)tl, s, sd);
            /* Don't attempt to spread across CPUs of different capacities. */
            if ((sd->flags & SD_ASYM_CPUCAPACITY) && b->nlv > 0)
                for (int i = 0; i < s->weight; i++)
                    topo_proto(b, t, b->nlv - 1, topo_span(t, b->lv[b->nlv - 1], s->cpus[i]))
                        ->flags &= ~SD_PREFER_SIBLING;
        }
        b->nlv++;
        if (spans_all)
            break;   /* build_sched_domains stops at a level spanning every CPU */
    }
}

/* Groups of one proto domain at level index l: the child level's spans
 * (single CPUs at the bottom), with the child domain's flags. */
static void topo_proto_groups(struct sched_topology *t, const struct topo_build *b,
                              const struct itmt *it, int l, struct sched_domain *sd)
{
    sd->groups = xcalloc((size_t)sd->span->weight, sizeof *sd->groups);
    for (int i = 0; i < sd->span->weight; i++) {
        int cpu = sd->span->cpus[i];
        const struct sched_span *c = topo_span(t, l > 0 ? (int)b->lv[l - 1] : TL_NR, cpu);
        if (c->first != cpu)
            continue;   /* ascending: each child span at its first CPU */
        unsigned flags = l > 0 ? topo_proto(b, t, l - 1, c)->flags : 0;
        sd->groups[sd->ngroups++] = topo_group(t, sd->tl, c, flags, it);
    }
}

/* imb_numa_nr: on the first domain above the LLC, the LLCs it spans (or an
 * eighth of its CPUs with one LLC); above it, that times the multiple of the
 * first NUMA domain's span. */
static void topo_imb_numa(struct sched_topology *t, const struct topo_build *b, int cpu)
{
    int imb = 0, imb_span = 1;
    for (int l = 0; l < b->nlv; l++) {
        struct sched_domain *sd = topo_proto(b, t, l, topo_span(t, b->lv[l], cpu));
        const struct sched_domain *child =
            l > 0 ? topo_proto(b, t, l - 1, topo_span(t, b->lv[l - 1], cpu)) : NULL;
        if (!(sd->flags & SD_SHARE_LLC) && child && (child->flags & SD_SHARE_LLC)) {
            int nr_llcs = sd->span->weight / child->span->weight;
            imb = nr_llcs == 1 ? sd->span->weight >> 3 : nr_llcs;
            imb = imb < 1 ? 1 : imb;
            sd->imb_numa_nr = imb;
            imb_span = sd->span->weight;
            for (int u = l + 1; u < b->nlv; u++) {
                const struct sched_domain *p =
                    topo_proto(b, t, u, topo_span(t, b->lv[u], cpu));
                if (p->flags & SD_NUMA) {
                    imb_span = p->span->weight;
                    break;
                }
            }
        } else {
            int factor = sd->span->weight / imb_span;
            sd->imb_numa_nr = imb * (factor < 1 ? 1 : factor);
        }
    }
}

/* ---- attaching: dropping what adds nothing ------------------------------------ */

static bool sd_degenerate(const struct sched_domain *sd)
{
    if (sd->span->weight == 1)
        return true;
    if ((sd->flags & SD_DEGENERATE_GROUPS_MASK) && sd->ngroups > 1)
        return false;
    return !(sd->flags & SD_WAKE_AFFINE);
}

static bool sd_parent_degenerate(const struct sched_domain *sd, const struct sched_domain *parent)
{
    if (sd_degenerate(parent))
        return true;
    if (sd->span->weight != parent->span->weight)
        return false;
    for (int i = 0; i < sd->span->weight; i++)
        if (!sched_span_test_cpu(parent->span, sd->span->cpus[i]))
            return false;
    unsigned pflags = parent->flags;
    if (parent->ngroups == 1)
        pflags &= ~SD_DEGENERATE_GROUPS_MASK;
    return !(~sd->flags & pflags);
}

/* The group ring of sd as cpu sees it: from cpu's own group, wrapping. */
static void topo_rotate_groups(struct sched_domain *sd, int cpu)
{
    struct sched_group **ring = xcalloc((size_t)sd->ngroups, sizeof *ring);
    int local = 0;
    for (int i = 0; i < sd->ngroups; i++)
        if (sched_span_test_cpu(sd->groups[i]->span, cpu))
            local = i;
    for (int i = 0; i < sd->ngroups; i++)
        ring[i] = sd->groups[(local + i) % sd->ngroups];
    sd->groups = ring;
}

/* cpu_attach_domain: cpu's chain from the protos, degenerate levels out. */
static void topo_attach(struct sched_topology *t, const struct topo_build *b, int cpu)
{
    struct sched_domain *d = &t->sd[cpu * TL_NR];
    int n = 0;
    for (int l = 0; l < b->nlv; l++) {
        d[n] = *topo_proto(b, t, l, topo_span(t, b->lv[l], cpu));
        topo_rotate_groups(&d[n], cpu);
        n++;
    }
    for (int i = 0; i + 1 < n;) {
        if (!sd_parent_degenerate(&d[i], &d[i + 1])) {
            i++;
            continue;
        }
        if (i + 2 < n)
            d[i + 2].groups[0]->flags = d[i].flags;
        if (d[i + 1].flags & SD_PREFER_SIBLING)
            d[i].flags |= SD_PREFER_SIBLING;
        free(d[i + 1].groups);
        memmove(&d[i + 1], &d[i + 2], (size_t)(n - i - 2) * sizeof *d);
        n--;
    }
    if (n > 0 && sd_degenerate(&d[0])) {
        free(d[0].groups);
        memmove(&d[0], &d[1], (size_t)(n - 1) * sizeof *d);
        n--;
        for (int g = 0; n > 0 && g < d[0].ngroups; g++)
            d[0].groups[g]->flags = 0;
    }
    t->nr_sd[cpu] = n;
}

/* SDF_SHARED_CHILD flags: once a domain lacks one, no parent has it. */
#define SD_SHARED_CHILD_MASK (SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | \
                              SD_BALANCE_WAKE | SD_WAKE_AFFINE | SD_SHARE_CPUCAPACITY | \
                              SD_SHARE_LLC)

const struct sched_domain *highest_flag_domain(const struct sched_topology *t, int cpu, unsigned f)
{
    int n;
    const struct sched_domain *d = sched_domains(t, cpu, &n), *hsd = NULL;
    for (int i = 0; i < n; i++) {
        if ((d[i].flags & f) == f) {
            hsd = &d[i];
            continue;
        }
        if (f & SD_SHARED_CHILD_MASK)
            break;
    }
    return hsd;
}

const struct sched_domain *lowest_flag_domain(const struct sched_topology *t, int cpu, unsigned f)
{
    int n;
    const struct sched_domain *d = sched_domains(t, cpu, &n);
    for (int i = 0; i < n; i++)
        if ((d[i].flags & f) == f)
            return &d[i];
    return NULL;
}

/* update_top_cache_domain and the static keys. */
static void topo_cache_ids(struct sched_topology *t, int cpu)
{
    const struct sched_domain *llc = highest_flag_domain(t, cpu, SD_SHARE_LLC);
    t->llc_id[cpu] = llc ? llc->span->first : cpu;
    t->llc_size[cpu] = llc ? llc->span->weight : 1;
    const struct sched_domain *cls = lowest_flag_domain(t, cpu, SD_CLUSTER);
    t->share_id[cpu] = cls ? cls->span->first : t->llc_id[cpu];
    t->cluster_active |= cls != NULL;
}

void sched_topology_build(const struct hw_machine *m, const struct kparams *kp,
                          const struct itmt *it, struct sched_topology *t)
{
    memset(t, 0, sizeof *t);
    int n = t->ncpus = m->ncpus;
    size_t slots = (size_t)(TL_NR + 1) * (size_t)n;
    t->spans = xcalloc(slots, sizeof *t->spans);
    t->grp = xcalloc(slots, sizeof *t->grp);
    t->sd = xcalloc((size_t)n * TL_NR, sizeof *t->sd);
    t->nr_sd = xcalloc((size_t)n, sizeof *t->nr_sd);
    t->capacity = xcalloc((size_t)n, sizeof *t->capacity);
    t->llc_id = xcalloc((size_t)n, sizeof *t->llc_id);
    t->llc_size = xcalloc((size_t)n, sizeof *t->llc_size);
    t->share_id = xcalloc((size_t)n, sizeof *t->share_id);
    t->smt = xcalloc((size_t)n, sizeof *t->smt);
    t->span_first = xcalloc(slots, sizeof *t->span_first);
    struct housekeeping hk;
    housekeeping_resolve(m, kp, &hk);
    int *key_first = xcalloc((size_t)n, sizeof *key_first);
    for (int tl = 0; tl <= TL_NR; tl++)
        topo_build_spans(m, t, tl, hk.in_domains, key_first);
    free(key_first);
    for (int cpu = 0; cpu < n; cpu++)
        t->smt[cpu] = topo_span(t, TL_SMT, cpu);
    t->smt_active = false;   /* sched_smt_present: a core with two threads in the domains */
    for (int cpu = 0; cpu < n; cpu++)
        t->smt_active |= t->smt[cpu]->weight > 1;
    topo_capacities(m, kp, t);
    struct topo_desc td;
    topo_describe(m, &kp->kernel, it && it->capable && it->enabled, &td);
    td.in_domains = hk.in_domains;
    for (int cpu = 0; cpu < n; cpu++)
        td.nr_in_domains += hk.in_domains[cpu];
    struct topo_build b = { .proto = xcalloc(slots, sizeof *b.proto) };
    topo_build_protos(m, &td, t, &b);
    for (int l = 0; l < b.nlv; l++)
        for (int cpu = 0; cpu < n; cpu++) {
            struct sched_domain *sd = topo_proto(&b, t, l, topo_span(t, b.lv[l], cpu));
            if (sd->span->first == cpu)
                topo_proto_groups(t, &b, it, l, sd);
        }
    for (int cpu = 0; cpu < n; cpu++)
        topo_imb_numa(t, &b, cpu);
    for (int cpu = 0; cpu < n; cpu++)
        topo_attach(t, &b, cpu);
    for (int cpu = 0; cpu < n; cpu++)
        topo_cache_ids(t, cpu);
    for (size_t i = 0; i < slots; i++)
        free(b.proto[i].groups);
    free(b.proto);
    housekeeping_destroy(&hk);
}

void sched_topology_destroy(struct sched_topology *t)
{
    if (!t->spans)
        return;
    size_t slots = (size_t)(TL_NR + 1) * (size_t)t->ncpus;
    for (size_t i = 0; i < slots; i++)
        free(t->spans[i].cpus);
    for (int cpu = 0; cpu < t->ncpus; cpu++)
        for (int l = 0; l < t->nr_sd[cpu]; l++)
            free(t->sd[cpu * TL_NR + l].groups);
    free(t->spans);
    free(t->grp);
    free(t->sd);
    free(t->nr_sd);
    free(t->capacity);
    free(t->llc_id);
    free(t->llc_size);
    free(t->share_id);
    free(t->smt);
    free(t->span_first);
    memset(t, 0, sizeof *t);
}
