/* Sched domain construction (src/kernel/sched/topology.c), replayed against
 * what /sys/kernel/debug/sched/domains shows on the real parts (FACTS-2.md
 * section 4): the i5-13500H's P-thread SMT{2} -> MC{16} and E-core CLS{4} ->
 * MC{16}, no CLS on hybrids before v6.6, SD_CLUSTER from v6.8, ITMT's
 * SD_ASYM_PACKING per level and version, a two-socket Xeon's SMT -> MC ->
 * NUMA, an EPYC's MC per CCD under PKG, group flags after degenerate levels go, and v6.12's asymmetric
 * capacity on a hybrid without SMT. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/sched/topology.h"
#include "kernel/x86/itmt.h"

struct topo_fx {
    struct hw_machine *m;
    struct kparams kp;
    struct itmt it;
    struct sched_topology t;
};

/* Build machine path's domains for kernel version kernel; itmt forces
 * kernel.sched_itmt_enabled = 1 with priorities from each core type's HWP
 * highest performance (else what the variant's drivers give: none on rpl-h
 * before 6.10). */
static struct topo_fx *topo_new(const char *path, const char *kernel, bool itmt)
{
    struct topo_fx *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load(path, &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    kparams_init(&f->kp);
    assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    itmt_resolve(f->m, &f->kp, &f->it);
    if (itmt) {
        for (int cpu = 0; cpu < f->m->ncpus; cpu++)
            f->it.prio[cpu] = (int)f->m->types[f->m->cpus[cpu].type].hwp_highest_perf;
        f->it.capable = f->it.enabled = true;
    }
    sched_topology_build(f->m, &f->kp, &f->it, &f->t);
    return f;
}

static void topo_free(struct topo_fx *f)
{
    sched_topology_destroy(&f->t);
    itmt_destroy(&f->it);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

/* cpu's domains as "NAME{weight}:ngroups" joined by " -> ". */
static void chain_text(const struct topo_fx *f, int cpu, char *buf, size_t size)
{
    int n;
    const struct sched_domain *d = sched_domains(&f->t, cpu, &n);
    size_t used = 0;
    buf[0] = '\0';
    for (int l = 0; l < n; l++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s{%d}:%d", l ? " -> " : "",
                                 sched_tl_name(d[l].tl, &f->kp.kernel), d[l].span->weight,
                                 d[l].ngroups);
}

static void assert_chain(const struct topo_fx *f, int cpu, const char *want)
{
    char got[256];
    chain_text(f, cpu, got, sizeof got);
    assert_string_equal(got, want);
}

static const struct sched_domain *dom(const struct topo_fx *f, int cpu, int level)
{
    int n;
    const struct sched_domain *d = sched_domains(&f->t, cpu, &n);
    assert_true(level < n);
    return &d[level];
}

/* i5-13500H, v6.9 without ITMT (seed 003 unpatched): FACTS-2 section 4. */
static void test_rpl_h_domains(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("machines/rpl-h.ini", "6.9", false);
    for (int cpu = 0; cpu < 8; cpu++)
        assert_chain(f, cpu, "SMT{2}:2 -> MC{16}:6");
    for (int cpu = 8; cpu < 16; cpu++)
        assert_chain(f, cpu, "CLS{4}:4 -> MC{16}:6");
    /* MC's groups start at the CPU's own: P-pairs of 2, E-modules of 4 */
    const struct sched_domain *mc = dom(f, 12, 1);
    static const int first[6] = { 12, 0, 2, 4, 6, 8 };
    for (int g = 0; g < 6; g++)
        assert_int_equal(mc->groups[g]->span->first, first[g]);
    assert_int_equal(mc->groups[0]->span->weight, 4);
    assert_int_equal(mc->groups[1]->span->weight, 2);
    assert_int_equal(mc->imbalance_pct, 117);
    assert_int_equal(dom(f, 0, 0)->imbalance_pct, 110);
    assert_int_equal(mc->min_interval_ms, 16);
    assert_int_equal(mc->max_interval_ms, 32);
    unsigned base = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE |
                    SD_PREFER_SIBLING;
    assert_int_equal(dom(f, 0, 0)->flags, base | SD_SHARE_CPUCAPACITY | SD_SHARE_LLC);
    assert_int_equal(dom(f, 8, 0)->flags, base | SD_CLUSTER | SD_SHARE_LLC);
    assert_int_equal(mc->flags, base | SD_SHARE_LLC);
    assert_int_equal(f->t.llc_size[5], 16);
    assert_true(f->t.cluster_active);
    assert_true(cpus_share_resources(&f->t, 8, 11));
    assert_false(cpus_share_resources(&f->t, 8, 12));
    assert_false(cpus_share_resources(&f->t, 0, 8));
    /* a P-thread keeps no cluster domain: its share id is the LLC's */
    assert_true(cpus_share_resources(&f->t, 0, 2));
    assert_true(cpus_share_cache(&f->t, 0, 15));
    topo_free(f);
}

/* Group flags: an MC group carries its child domain's flags; a P-pair's,
 * after CLS went degenerate under it, the SMT domain's (no SD_CLUSTER); the
 * E-core CLS groups lose theirs with the degenerate SMT base. */
static void test_group_flags(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("machines/rpl-h.ini", "6.9", false);
    assert_true(dom(f, 8, 1)->groups[0]->flags & SD_CLUSTER);
    assert_false(dom(f, 0, 1)->groups[0]->flags & SD_CLUSTER);
    assert_true(dom(f, 0, 1)->groups[0]->flags & SD_SHARE_CPUCAPACITY);
    for (int g = 0; g < 4; g++)
        assert_int_equal(dom(f, 9, 0)->groups[g]->flags, 0);
    topo_free(f);
}

/* Clusters by version: none on hybrids before v6.6 (cabdc3a8475b): MC's
 * groups are then P-pairs and single E-cores; v6.6 and v6.7 build CLS
 * without the SD_CLUSTER flag (v6.8), so no cluster is active. */
static void test_cluster_versions(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("machines/rpl-h.ini", "6.5", false);
    assert_chain(f, 0, "SMT{2}:2 -> MC{16}:12");
    assert_chain(f, 8, "MC{16}:12");
    assert_false(f->t.cluster_active);
    topo_free(f);
    f = topo_new("machines/rpl-h.ini", "6.6", false);
    assert_chain(f, 8, "CLS{4}:4 -> MC{16}:6");
    assert_false(dom(f, 8, 0)->flags & SD_CLUSTER);
    assert_false(f->t.cluster_active);
    assert_true(cpus_share_resources(&f->t, 8, 12));   /* no cluster: the LLC's id */
    topo_free(f);
    f = topo_new("machines/rpl-h.ini", "6.8", false);
    assert_true(dom(f, 8, 0)->flags & SD_CLUSTER);
    assert_true(f->t.cluster_active);
    topo_free(f);
}

/* ITMT: SD_ASYM_PACKING on CLS and MC; on SMT only before v6.5
 * (995998ebdebd); the group's asym_prefer_cpu is its highest priority. */
static void test_itmt_flags(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("machines/rpl-h.ini", "6.10", true);
    assert_false(dom(f, 0, 0)->flags & SD_ASYM_PACKING);
    assert_true(dom(f, 0, 1)->flags & SD_ASYM_PACKING);
    assert_true(dom(f, 8, 0)->flags & SD_ASYM_PACKING);
    topo_free(f);
    f = topo_new("machines/rpl-h.ini", "6.4", true);
    assert_true(dom(f, 0, 0)->flags & SD_ASYM_PACKING);
    assert_chain(f, 8, "MC{16}:12");
    topo_free(f);
}

/* Two Xeon 8180s (split numbering): SMT{2} -> MC{56} -> NUMA{112}; CLS,
 * PKG and NODE have the span below them and go. NUMA: no prefer-sibling,
 * serialized, overlapping groups, imb_numa_nr = 56 / 8 (one LLC per node). */
static void test_skx_numa(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("machines/skx-2s.ini", "6.7", false);
    assert_chain(f, 0, "SMT{2}:2 -> MC{56}:28 -> NUMA{112}:2");
    assert_chain(f, 111, "SMT{2}:2 -> MC{56}:28 -> NUMA{112}:2");
    assert_true(sched_span_test_cpu(dom(f, 0, 0)->span, 56));
    const struct sched_domain *numa = dom(f, 0, 2);
    assert_int_equal(numa->flags, SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK |
                                      SD_WAKE_AFFINE | SD_SERIALIZE | SD_OVERLAP | SD_NUMA);
    assert_int_equal(numa->cache_nice_tries, 2);
    assert_int_equal(numa->imb_numa_nr, 7);
    assert_int_equal(f->t.llc_size[0], 56);
    assert_false(cpus_share_cache(&f->t, 0, 28));
    assert_false(f->t.cluster_active);
    topo_free(f);
}

/* Two EPYC 9354s, an L3 per 4-core CCD (llc_groups): SMT{2} -> MC{8} ->
 * PKG{64} -> NUMA{128}. MC spans the CCD, so PKG is not degenerate (8 CCD
 * groups); NODE has PKG's span and goes. The first domain above the LLC
 * (PKG) gets imb_numa_nr = its 8 LLCs; select_idle_sibling's LLC is 8. */
static void test_genoa_llc(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("machines/epyc-genoa-2s.ini", "6.12", false);
    assert_chain(f, 0, "SMT{2}:2 -> MC{8}:4 -> PKG{64}:8 -> NUMA{128}:2");
    assert_chain(f, 127, "SMT{2}:2 -> MC{8}:4 -> PKG{64}:8 -> NUMA{128}:2");
    const struct sched_domain *mc = dom(f, 68, 1);
    assert_int_equal(mc->tl, TL_MC);
    assert_true(sched_span_test_cpu(mc->span, 4) && sched_span_test_cpu(mc->span, 7) &&
                sched_span_test_cpu(mc->span, 71));
    assert_false(sched_span_test_cpu(mc->span, 8) || sched_span_test_cpu(mc->span, 3));
    assert_true(dom(f, 0, 1)->flags & SD_SHARE_LLC);
    assert_false(dom(f, 0, 2)->flags & SD_SHARE_LLC);
    assert_int_equal(dom(f, 0, 2)->imb_numa_nr, 8);
    assert_int_equal(f->t.llc_size[0], 8);
    assert_int_equal(f->t.llc_id[70], 4);
    assert_true(cpus_share_cache(&f->t, 4, 68));
    assert_false(cpus_share_cache(&f->t, 3, 4));
    assert_true(highest_flag_domain(&f->t, 5, SD_SHARE_LLC) == dom(f, 5, 1));
    topo_free(f);
}

/* v6.12 on a hybrid without SMT: capacity = 1024 x HWP highest perf / the
 * highest (E: 35 / 60), SD_ASYM_CPUCAPACITY(_FULL) on MC, which then clears
 * SD_PREFER_SIBLING below it; ITMT is not set up. v6.11: all 1024, ITMT. */
static void test_hybrid_capacity(void **state)
{
    (void)state;
    struct topo_fx *f = topo_new("tests/data/machines/hybrid-nosmt.ini", "6.12", false);
    assert_int_equal(f->t.capacity[0], 1024);
    assert_int_equal(f->t.capacity[4], 35 * 1024 / 60);
    assert_true(f->t.asym_cpucapacity);
    assert_false(f->it.capable);
    assert_chain(f, 0, "MC{12}:6");
    assert_chain(f, 4, "CLS{4}:4 -> MC{12}:6");
    unsigned asym = SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL;
    assert_int_equal(dom(f, 4, 1)->flags & asym, asym);
    assert_false(dom(f, 4, 0)->flags & (asym | SD_PREFER_SIBLING));
    assert_int_equal(dom(f, 4, 1)->groups[0]->max_capacity, 597);
    assert_int_equal(dom(f, 4, 1)->groups[2]->max_capacity, 1024);
    topo_free(f);
    f = topo_new("tests/data/machines/hybrid-nosmt.ini", "6.11", false);
    assert_false(f->t.asym_cpucapacity);
    assert_int_equal(f->t.capacity[4], 1024);
    assert_true(f->it.capable);
    topo_free(f);
}

/* Names as debugfs shows them by version. */
static void test_names(void **state)
{
    (void)state;
    struct kversion k;
    char buf[256];
    kversion_parse("6.6", &k);
    assert_string_equal(sched_tl_name(TL_PKG, &k), "DIE");
    sched_flags_text(SD_WAKE_AFFINE | SD_SHARE_LLC, &k, buf, sizeof buf);
    assert_string_equal(buf, "SD_WAKE_AFFINE SD_SHARE_PKG_RESOURCES");
    kversion_parse("6.9", &k);
    assert_string_equal(sched_tl_name(TL_PKG, &k), "PKG");
    sched_flags_text(SD_WAKE_AFFINE | SD_SHARE_LLC, &k, buf, sizeof buf);
    assert_string_equal(buf, "SD_WAKE_AFFINE SD_SHARE_LLC");
}

/* Whether b is in tl->mask(a), from the machine's fields as the kernel's
 * masks define them (the core, the L2 group, the LLC group, the package;
 * NUMA: all; TL_NR: a alone), independent of how topology.c stores spans. */
static bool mask_has(const struct hw_machine *m, int tl, int a, int b)
{
    switch (tl) {
    case TL_SMT: return m->cpus[a].core == m->cpus[b].core;
    case TL_CLS: return m->l2_group[a] == m->l2_group[b];
    case TL_MC: return m->llc_group[a] == m->llc_group[b];
    case TL_PKG:
    case TL_NODE: return m->cpus[a].package == m->cpus[b].package;
    case TL_NUMA: return true;
    default: return a == b;
    }
}

/* Every level's span of every CPU holds exactly the CPUs of its mask, by
 * sched_span_test_cpu and by its cpus[] (ascending, from its first CPU), on
 * a two-package SMT Xeon, an EPYC with an LLC per CCD, and a hybrid with
 * SMT P-cores and E-core clusters. */
static void test_span_membership(void **state)
{
    (void)state;
    const char *paths[] = { "machines/skx-2s.ini", "machines/epyc-genoa-2s.ini",
                            "machines/rpl-h.ini" };
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        struct topo_fx *f = topo_new(paths[p], "6.12", false);
        int n = f->t.ncpus;
        for (int tl = 0; tl <= TL_NR; tl++)
            for (int a = 0; a < n; a++) {
                int first = f->t.span_first[tl * n + a];
                const struct sched_span *s = &f->t.spans[tl * n + first];
                int weight = 0;
                for (int b = 0; b < n; b++) {
                    bool want = mask_has(f->m, tl, a, b);
                    assert_int_equal(sched_span_test_cpu(s, b), want);
                    if (want)
                        assert_int_equal(s->cpus[weight++], b);
                }
                assert_int_equal(s->weight, weight);
                assert_int_equal(s->first, s->cpus[0]);
            }
        topo_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rpl_h_domains),
        cmocka_unit_test(test_group_flags),
        cmocka_unit_test(test_cluster_versions),
        cmocka_unit_test(test_itmt_flags),
        cmocka_unit_test(test_skx_numa),
        cmocka_unit_test(test_genoa_llc),
        cmocka_unit_test(test_hybrid_capacity),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_span_membership),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
