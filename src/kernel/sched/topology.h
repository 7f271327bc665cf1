/* topology: sched domains and groups built from the machine's topology, and
 * the CPU capacities they carry (kernel/sched/topology.c and the x86 level
 * table of arch/x86/kernel/smpboot.c; FACTS-2.md section 4 [H1-H4, S6, S7]).
 *
 * Each CPU gets a chain of domains, bottom up: SMT (the threads of a core),
 * CLS (the CPUs sharing an L2, the machine file's l2_groups), MC (the CPUs
 * sharing the LLC, its llc_groups: an L3 per CCD on AMD Zen; default the
 * package), PKG (the package; "DIE" before v6.7), and on a machine with
 * more than one package NODE and NUMA. A domain's groups are its child
 * level's spans. Levels that add nothing are dropped per CPU as
 * cpu_attach_domain does (a one-CPU span; a parent with the child's span and
 * no flag of its own), so an i5-13500H P-thread keeps SMT{2} -> MC{16} and
 * an E-core CLS{4} -> MC{16} (before v6.6 x86 built no CLS level on hybrids:
 * MC then has single E-cores as groups). The result is a pure function of the
 * machine, the kernel version and ITMT (SD_ASYM_PACKING is set where
 * sysctl_sched_itmt_enabled is 1).
 *
 * An EPYC package with 8 CCDs keeps SMT{2} -> MC{the CCD} -> PKG{package}:
 * PKG is no longer degenerate once the package holds several LLCs.
 *
 * Model departures: no sub-NUMA clustering (NPS1 on EPYC: a node is a
 * package, so x86's rule dropping PKG when a package holds several nodes,
 * x86_has_numa_in_package, never applies); every remote node is one hop
 * away (SLIT distance 21, below
 * node_reclaim_distance 30, so NUMA levels keep SD_BALANCE_FORK/EXEC and
 * SD_WAKE_AFFINE); no cpusets or run-time CPU hotplug: one root domain
 * over the online CPUs outside isolcpus=domain (isolation.h); each CPU left
 * out has no domain (the NULL domain) and is in no other CPU's spans. */
#ifndef PMLAB_KERNEL_SCHED_TOPOLOGY_H
#define PMLAB_KERNEL_SCHED_TOPOLOGY_H

#include <stdbool.h>

#include "hw/machine.h"
#include "kernel/params.h"

struct itmt;

/* include/linux/sched/sd_flags.h, in its bit order (v6.9 names). */
enum {
    SD_BALANCE_NEWIDLE = 1u << 0,
    SD_BALANCE_EXEC = 1u << 1,
    SD_BALANCE_FORK = 1u << 2,
    SD_BALANCE_WAKE = 1u << 3,
    SD_WAKE_AFFINE = 1u << 4,
    SD_ASYM_CPUCAPACITY = 1u << 5,
    SD_ASYM_CPUCAPACITY_FULL = 1u << 6,
    SD_SHARE_CPUCAPACITY = 1u << 7,
    SD_CLUSTER = 1u << 8,
    SD_SHARE_LLC = 1u << 9,         /* SD_SHARE_PKG_RESOURCES before v6.9 */
    SD_SERIALIZE = 1u << 10,
    SD_ASYM_PACKING = 1u << 11,
    SD_PREFER_SIBLING = 1u << 12,
    SD_OVERLAP = 1u << 13,
    SD_NUMA = 1u << 14,
};
#define SD_FLAG_CNT 15

#define SCHED_CAPACITY_SCALE 1024

/* The topology levels of x86 (x86_topology) plus the NUMA levels
 * sched_init_numa appends. */
enum sched_tl { TL_SMT, TL_CLS, TL_MC, TL_PKG, TL_NODE, TL_NUMA, TL_NR };

/* A set of CPUs one level groups together (tl->mask(cpu)); levels partition
 * the CPUs here, so a span is shared by all its CPUs, and which span of a
 * level holds a CPU is named by that span's first CPU: membership needs no
 * mask per span (which would take ncpus x ncpus per level). */
struct sched_span {
    int weight;
    int first;                  /* cpumask_first */
    int *cpus;                  /* [weight], ascending */
    const int *level_first;     /* [ncpus]: per CPU, the first CPU of its span at
                                 * this span's level (sched_topology::span_first) */
};

/* cpumask_test_cpu(cpu, span): cpu's span at s's level is s. */
static inline bool sched_span_test_cpu(const struct sched_span *s, int cpu)
{
    return s->level_first[cpu] == s->first;
}

/* struct sched_group: a child span of a domain, shared by every CPU whose
 * domain has it, as the kernel shares groups. */
struct sched_group {
    const struct sched_span *span;
    unsigned flags;             /* sched_group::flags: the child domain's */
    unsigned long capacity;     /* sum of its CPUs' capacities */
    unsigned long min_capacity, max_capacity;
    int asym_prefer_cpu;        /* its highest-priority CPU (ITMT) */
};

/* One CPU's domain at one surviving level. */
struct sched_domain {
    enum sched_tl tl;
    unsigned flags;
    const struct sched_span *span;
    struct sched_group **groups; /* [ngroups], from the CPU's own group on, as
                                  * the kernel's sd->groups ring runs */
    int ngroups;
    int imbalance_pct;
    int cache_nice_tries;
    int busy_factor;
    int min_interval_ms, max_interval_ms; /* balance interval bounds */
    int imb_numa_nr;            /* NUMA: tasks allowed before balancing idle counts */
};

struct sched_topology {
    int ncpus;
    struct sched_domain *sd;    /* [ncpus * TL_NR]; cpu's are sd[cpu * TL_NR + 0 ..] */
    int *nr_sd;                 /* [ncpus] surviving domains, bottom up */
    unsigned long *capacity;    /* [ncpus] arch_scale_cpu_capacity */
    bool asym_cpucapacity;      /* sched_asym_cpucapacity: capacities differ */
    bool cluster_active;        /* sched_cluster_active: some CPU kept a CLS domain */
    bool smt_active;            /* sched_smt_present */
    int *llc_id, *llc_size;     /* [ncpus] sd_llc_id, sd_llc_size */
    int *share_id;              /* [ncpus] sd_share_id (cluster, else LLC) */
    const struct sched_span **smt; /* [ncpus] cpu_smt_mask */
    /* storage */
    struct sched_span *spans;   /* [(TL_NR + 1) * ncpus], by level and first CPU;
                                 * level TL_NR: each CPU alone */
    int *span_first;            /* [(TL_NR + 1) * ncpus]: by level and CPU, the first
                                 * CPU of the level's span holding it */
    struct sched_group *grp;    /* [(TL_NR + 1) * ncpus], by level and group's first CPU */
};

/* Build the domains of every CPU of m for kernel settings kp and ITMT state
 * it. Free with sched_topology_destroy. */
void sched_topology_build(const struct hw_machine *m, const struct kparams *kp,
                          const struct itmt *it, struct sched_topology *topo);
void sched_topology_destroy(struct sched_topology *topo);

/* cpu's domains, bottom up ([0] is rq->sd), and their count. */
static inline struct sched_domain *sched_domains(const struct sched_topology *t, int cpu, int *n)
{
    *n = t->nr_sd[cpu];
    return &t->sd[cpu * TL_NR];
}

/* The highest domain of cpu with every flag of f (highest_flag_domain), or
 * NULL; lowest_flag_domain the lowest. */
const struct sched_domain *highest_flag_domain(const struct sched_topology *t, int cpu, unsigned f);
const struct sched_domain *lowest_flag_domain(const struct sched_topology *t, int cpu, unsigned f);

/* cpus_share_cache (same sd_llc_id) and cpus_share_resources (same
 * sd_share_id: the same cluster where clusters exist). */
static inline bool cpus_share_cache(const struct sched_topology *t, int a, int b)
{
    return t->llc_id[a] == t->llc_id[b];
}
static inline bool cpus_share_resources(const struct sched_topology *t, int a, int b)
{
    return t->share_id[a] == t->share_id[b];
}

/* The domain's name as the kernel of version k calls it (SMT, CLS, MC,
 * PKG or DIE, NODE, NUMA). */
const char *sched_tl_name(enum sched_tl tl, const struct kversion *k);
/* The flags as /sys/kernel/debug/sched/domains/cpuN/domainM/flags prints
 * them for kernel k (names separated by spaces). */
void sched_flags_text(unsigned flags, const struct kversion *k, char *buf, size_t size);
/* `pmlab explain` prints the domains built here: report/explain_topology.c. */

#endif
