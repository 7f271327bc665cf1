/* Load-balancing replays (src/kernel/sched/balance.c): a machine, a scripted
 * per-CPU load (tasks pinned to CPUs, run long enough for their averages to
 * build, some then released), and what sched_balance_rq decides or does, one
 * test per rule of FACTS-2.md section 3 "Balancing": group classification
 * (smt_balance since v6.6, asym_packing with ITMT), the imbalance type
 * (migrate_task inside an LLC, migrate_util across packages, migrate_load
 * between busy groups), a newly idle CPU pulling a queued task from the
 * busiest group, affinity and task_hot keeping a task where it is (but not
 * between SMT siblings), a CPU woken by a tick counting as idle, the SMT
 * level's one-core groups in sibling_imbalance, misfit
 * migration on asymmetric capacity (v6.12 hybrid without SMT), and the
 * periodic balance interval per domain; and the metrics of stats.c. Asym packing's pull to an idle
 * P-core and not to the idle sibling of a busy one is tests/test_cppc.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define LONG_NS (10 * SIM_NS_PER_S)
#define ITMT_OFF "/proc/sys/kernel/sched_itmt_enabled=0"

struct load {
    struct fx *f;
    struct probe busy[256];
    int nbusy;
};

static struct load *load_new(const char *machine, const char *kernel, const char *sysfs,
                             bool cpufreq)
{
    /* as fx_new_machine; cpufreq on where ITMT is wanted (intel_pstate sets
     * it up), off where a test times work (then every CPU runs at base) */
    struct load *l = calloc(1, sizeof *l);
    struct fx *f = l->f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load(machine, &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    fx_quiet_machine(f->m);
    kparams_init(&f->kp);
    assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    fx_apply(&f->kp, "CONFIG_HZ=250", kparams_set_config);
    fx_apply(&f->kp, cpufreq ? "cpuidle.off=1" : "cpuidle.off=1 cpufreq.off=1",
             kparams_set_cmdline);
    fx_apply(&f->kp, sysfs, kparams_set_sysfs);
    struct world_key key = { .seed = 3 };
    world_init(&f->w, f->m, &f->kp, &key);
    return l;
}

/* A task pinned to cpu with work_ns of work. */
static struct probe *load_pinned(struct load *l, int cpu, sim_time_t work_ns)
{
    struct probe *p = &l->busy[l->nbusy++];
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    sched_wake_task(&l->f->w, &p->t, (double)work_ns, cpu);
    return p;
}

static void load_run_to(struct load *l, sim_time_t t_ns)
{
    world_run_until(&l->f->w, t_ns);
}

static void load_free(struct load *l)
{
    fx_free(l->f);
    free(l);
}

/* rpl-h: P pair {2,3} runs two tasks, pair {4,5} one, E-module {8-11} five
 * (two on cpu8), cpu12 one. */
static struct load *hybrid_load(const char *kernel, const char *sysfs)
{
    struct load *l = load_new("machines/rpl-h.ini", kernel, sysfs, true);
    static const int cpus[] = { 2, 3, 4, 8, 8, 9, 10, 11, 12 };
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++)
        load_pinned(l, cpus[i], LONG_NS);
    load_run_to(l, 300 * SIM_NS_PER_MS);
    return l;
}

/* The MC groups of cpu0 on rpl-h, in ring order: {0,1} {2,3} {4,5} {6,7}
 * {8-11} {12-15}. */
enum { G_LOCAL, G_P23, G_P45, G_P67, G_E8, G_E12 };
#define MC 1

/* update_sg_lb_stats + group_classify: overloaded (more tasks than CPUs and
 * util over capacity), has_spare, fully_busy (an SMT pair running two), which
 * v6.6+ calls smt_balance when an idle CPU looks (fee1759e4f04); with ITMT an
 * E-module running one task is asym_packing for an idle P-CPU, but not for a
 * busy one. */
static void test_group_classification(void **state)
{
    (void)state;
    struct load *l = hybrid_load("6.10", ITMT_OFF);
    struct world *w = &l->f->w;
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_LOCAL, CPU_IDLE), group_has_spare);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_P23, CPU_IDLE), group_smt_balance);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_P23, CPU_NOT_IDLE), group_fully_busy);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_P45, CPU_IDLE), group_has_spare);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_E8, CPU_IDLE), group_overloaded);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_E12, CPU_IDLE), group_has_spare);
    load_free(l);
    l = hybrid_load("6.5", ITMT_OFF);
    assert_int_equal(sched_balance_group_type(&l->f->w, 0, MC, G_P23, CPU_IDLE), group_fully_busy);
    load_free(l);
    l = hybrid_load("6.10", NULL);
    w = &l->f->w;
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_E12, CPU_IDLE), group_asym_packing);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_E12, CPU_NOT_IDLE), group_has_spare);
    assert_int_equal(sched_balance_group_type(w, 0, MC, G_E8, CPU_IDLE), group_overloaded);
    load_free(l);
}

/* calculate_imbalance: an idle P-CPU and the overloaded E-module in one LLC
 * -> migrate_task, sibling_imbalance (v6.6+, 1 core vs 4: 5 tasks -> 3,
 * halved: 1)
 * from the runqueue with most tasks; across packages (NUMA, no SD_SHARE_LLC)
 * an overloaded remote package -> migrate_util, the local spare capacity;
 * a busy CPU whose group is fully busy -> migrate_load. */
static void test_imbalance_type(void **state)
{
    (void)state;
    struct load *l = hybrid_load("6.10", ITMT_OFF);
    struct lb_verdict v;
    sched_balance_verdict(&l->f->w, 0, MC, CPU_IDLE, &v);
    assert_int_equal(v.busiest_first, 8);
    assert_int_equal(v.busiest_type, group_overloaded);
    assert_int_equal(v.migration_type, migrate_task);
    assert_true(v.imbalance == 1);
    assert_int_equal(v.busiest_cpu, 8);
    load_free(l);
    /* three more on cpu9 (8 in the module): per core, not per group: 1 x 8
     * against 4 x 0 -> (2 x 8 + 5) / 5 = 4, halved: 2 (a plain task gap
     * would give 8 / 2 = 4) */
    l = hybrid_load("6.10", ITMT_OFF);
    for (int i = 0; i < 3; i++)
        load_pinned(l, 9, LONG_NS);
    load_run_to(l, 600 * SIM_NS_PER_MS);
    sched_balance_verdict(&l->f->w, 0, MC, CPU_IDLE, &v);
    assert_int_equal(v.migration_type, migrate_task);
    assert_true(v.imbalance == 2);
    load_free(l);
    /* Every CPU busy, cpu8 with four more: 20 tasks of load 1024 on 16 CPUs.
     * cpu0's fully busy group (avg_load 1024) against the overloaded
     * E-module (2048): migrate_load, the smaller of what the module has over
     * the average (1280) and what cpu0's group lacks: (1280 - 1024) x 2. */
    l = load_new("machines/rpl-h.ini", "6.10", ITMT_OFF, true);
    for (int cpu = 0; cpu < 16; cpu++)
        load_pinned(l, cpu, LONG_NS);
    for (int i = 0; i < 4; i++)
        load_pinned(l, 8, LONG_NS);
    load_run_to(l, SIM_NS_PER_S);
    sched_balance_verdict(&l->f->w, 0, MC, CPU_NOT_IDLE, &v);
    assert_int_equal(v.local_type, group_fully_busy);
    assert_int_equal(v.busiest_first, 8);
    assert_int_equal(v.busiest_type, group_overloaded);
    assert_int_equal(v.migration_type, migrate_load);
    assert_true(v.imbalance > 480 && v.imbalance < 520);
    assert_int_equal(v.busiest_cpu, 8);
    load_free(l);

    l = load_new("machines/skx-2s.ini", "6.10", NULL, false);
    for (int cpu = 0; cpu < l->f->m->ncpus; cpu++) {
        if (l->f->m->cpus[cpu].package != 1)
            continue;
        load_pinned(l, cpu, LONG_NS);
        load_pinned(l, cpu, LONG_NS);
    }
    load_run_to(l, 300 * SIM_NS_PER_MS);
    int n;
    sched_domains(&l->f->w.sched.topo, 0, &n);
    sched_balance_verdict(&l->f->w, 0, n - 1, CPU_IDLE, &v);
    assert_int_equal(l->f->m->cpus[v.busiest_first].package, 1);
    assert_int_equal(v.busiest_type, group_overloaded);
    assert_int_equal(v.migration_type, migrate_util);
    assert_true(v.imbalance > 50 * 1024);   /* 56 idle CPUs of spare capacity */
    load_free(l);
}

/* A newly idle CPU pulls a queued task from the busiest group: cpu2 runs A
 * with B queued (SMT pair, smt_balance), cpu8 runs D with E queued (an
 * E-module with spare CPUs, has_spare); when cpu0's task ends it takes B,
 * at once (no tick in between). */
static void test_newidle_pulls_from_busiest(void **state)
{
    (void)state;
    struct load *l = load_new("machines/rpl-h.ini", "6.10", ITMT_OFF, false);
    load_pinned(l, 2, LONG_NS);
    struct probe *b = load_pinned(l, 2, LONG_NS);
    load_pinned(l, 8, LONG_NS);
    struct probe *e = load_pinned(l, 8, LONG_NS);
    struct probe *c = load_pinned(l, 0, SIM_NS_PER_MS);
    load_run_to(l, 900 * SIM_NS_PER_US);
    task_set_affinity(&b->t, -1);
    task_set_affinity(&e->t, -1);
    load_run_to(l, 1100 * SIM_NS_PER_US);
    assert_true(c->done_ns > 0);
    assert_int_equal(b->t.cpu, 0);
    assert_ptr_equal(l->f->w.sched.cpu[0].curr, &b->t);
    assert_int_equal(e->t.cpu, 8);
    assert_int_equal(l->f->w.sched.nr_pulls, 1);
    load_free(l);
}

/* can_migrate_task: a queued task whose affinity excludes the newly idle CPU
 * stays; so does one that ran less than sysctl_sched_migration_cost (0.5
 * ms) ago (task_hot), until it has been off the CPU longer than that. */
static void pulled_when_idle_at(sim_time_t c_work_ns, const bool *mask, bool want_pulled)
{
    struct load *l = load_new("machines/rpl-h.ini", "6.10", ITMT_OFF, false);
    struct probe *b = load_pinned(l, 2, 10 * SIM_NS_PER_US);   /* B runs first, briefly */
    load_pinned(l, 2, LONG_NS);
    load_pinned(l, 0, c_work_ns);
    load_run_to(l, 100 * SIM_NS_PER_US);
    assert_true(b->done_ns > 0);
    sched_wake_task(&l->f->w, &b->t, (double)LONG_NS, 2);   /* queued behind A */
    if (mask)
        task_set_cpus_allowed(&b->t, mask, l->f->m->ncpus);
    else
        task_set_affinity(&b->t, -1);
    load_run_to(l, c_work_ns + 50 * SIM_NS_PER_US);
    assert_int_equal(b->t.cpu, want_pulled ? 0 : 2);
    load_free(l);
}

static void test_affinity_and_task_hot(void **state)
{
    (void)state;
    bool mask[16] = { 0 };
    mask[2] = mask[4] = true;
    pulled_when_idle_at(800 * SIM_NS_PER_US, NULL, true);   /* cold: pulled */
    pulled_when_idle_at(800 * SIM_NS_PER_US, mask, false);  /* not allowed on cpu0 */
    pulled_when_idle_at(300 * SIM_NS_PER_US, NULL, false);  /* hot: off cpu2 < 0.5 ms */
}

/* idle_cpu(): a CPU that a tick woke from idle runs the idle task with
 * nothing queued, so it is idle to placement and balancing. Every CPU of
 * rpl-h but cpu13 has just started a pinned task (low util: every group has
 * spare capacity); cpu13 is leaving its idle state for a tick when cpu8
 * forks. The fork slow path leaves cpu8's E-module for the group with an
 * idle CPU, {12-15}, and the child lands on cpu13, which runs it once out,
 * without a second wake-up; were cpu13 not idle, no group would have an
 * idle CPU and the child would stay in cpu8's busy module. */
static void test_tick_woken_cpu_is_idle(void **state)
{
    (void)state;
    struct load *l = load_new("machines/rpl-h.ini", "6.10", ITMT_OFF, false);
    struct world *w = &l->f->w;
    for (int cpu = 0; cpu < 16; cpu++)
        if (cpu != 13)
            load_pinned(l, cpu, LONG_NS);
    load_run_to(l, SIM_NS_PER_MS);
    sched_idle_wakeup(w, 13, IDLE_WAKE_TICK);
    assert_true(w->sched.cpu[13].waking);
    assert_true(sched_cpu_idle(w, 13));
    uint64_t kicks = w->sched.nr_idle_wakeups;
    struct probe child = { 0 };
    task_init(&child.t, probe_done, 8);
    task_fork(w, &child.t, (double)SIM_NS_PER_MS, 8);
    assert_int_equal(child.t.cpu, 13);
    assert_int_equal(w->sched.nr_idle_wakeups, kicks);   /* no IPI: it is on its way out */
    load_run_to(l, SIM_NS_PER_MS + 100 * SIM_NS_PER_US);
    assert_ptr_equal(w->sched.cpu[13].curr, &child.t);
    load_free(l);
}

/* task_hot: SMT siblings share their caches, so a task that ran on cpu2
 * less than 0.5 ms ago is not cache hot for cpu3 (ec73240b1627, v5.10):
 * cpu3, newly idle when its own task ends (~0.25 ms), takes it at the SMT
 * level; cpu0, another core, does not (test_affinity_and_task_hot). */
static void test_smt_sibling_not_cache_hot(void **state)
{
    (void)state;
    struct load *l = load_new("machines/rpl-h.ini", "6.10", ITMT_OFF, false);
    struct probe *b = load_pinned(l, 2, 10 * SIM_NS_PER_US);   /* B runs first, briefly */
    load_pinned(l, 2, LONG_NS);
    struct probe *c = load_pinned(l, 3, 150 * SIM_NS_PER_US);
    load_run_to(l, 100 * SIM_NS_PER_US);
    assert_true(b->done_ns > 0);
    sched_wake_task(&l->f->w, &b->t, (double)LONG_NS, 2);   /* queued behind A */
    task_set_affinity(&b->t, -1);
    load_run_to(l, 450 * SIM_NS_PER_US);
    assert_true(c->done_ns > 0 && c->done_ns < 500 * SIM_NS_PER_US);   /* B still hot then */
    assert_int_equal(b->t.cpu, 3);
    load_free(l);
}

/* sibling_imbalance counts a group's cores as init_sched_groups_capacity
 * does (sg->cores: the SMT cores it touches), so each single-CPU group of
 * the SMT level is one core. cpu2 idle, its sibling cpu3 running three:
 * equal cores, imbalance 3 - 0 = 3, halved: 1. */
static void test_smt_group_cores(void **state)
{
    (void)state;
    struct load *l = load_new("machines/rpl-h.ini", "6.10", ITMT_OFF, false);
    for (int i = 0; i < 3; i++)
        load_pinned(l, 3, LONG_NS);
    load_run_to(l, 300 * SIM_NS_PER_MS);
    struct lb_verdict v;
    sched_balance_verdict(&l->f->w, 2, 0, CPU_IDLE, &v);
    assert_int_equal(v.busiest_first, 3);
    assert_int_equal(v.migration_type, migrate_task);
    assert_true(v.imbalance == 1);
    load_free(l);
}

/* Misfit (v6.12, hybrid without SMT: capacities differ, no ITMT): a task
 * that keeps running on an E-core (capacity 597) outgrows it (util over
 * 80 % of 597) and is moved to an idle P-core by active balance; on v6.11
 * (all 1024, ITMT off here) it stays. */
static void test_misfit(void **state)
{
    (void)state;
    static const struct { const char *kernel, *sysfs; bool moves; } cases[] = {
        { "6.12", NULL, true },
        { "6.11", ITMT_OFF, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct load *l = load_new("tests/data/machines/hybrid-nosmt.ini", cases[i].kernel,
                                  cases[i].sysfs, true);
        struct probe p = { 0 };
        task_init(&p.t, probe_done, 4);
        sched_wake_task(&l->f->w, &p.t, (double)SIM_NS_PER_S, 4);
        load_run_to(l, 10 * SIM_NS_PER_MS);
        assert_int_equal(p.t.cpu, 4);
        load_run_to(l, 200 * SIM_NS_PER_MS);
        assert_int_equal(p.t.cpu < 4, cases[i].moves);
        assert_int_equal(l->f->w.sched.nr_asym_migrations, cases[i].moves);
        load_free(l);
    }
}

/* get_sd_balance_interval: sd_init's span weight in ms, x busy_factor 16
 * when busy, in whole jiffies (HZ=250: 4 ms), one less when busy. rpl-h
 * cpu0: SMT{2} 2 ms -> 1 jiffy idle, 32 ms -> 7 jiffies busy; MC{16} 16 ms
 * -> 4 jiffies, 256 ms -> 63 busy. skx-2s NUMA{112}: 112 ms -> 28 jiffies
 * idle, 1792 ms -> 447 busy (under the HZ x 112 / 10 = 2800 clamp). */
static void test_balance_interval(void **state)
{
    (void)state;
    struct load *l = load_new("machines/rpl-h.ini", "6.10", NULL, false);
    const struct world *w = &l->f->w;
    assert_int_equal(sched_balance_interval_ns(w, 0, 0, false), 4 * SIM_NS_PER_MS);
    assert_int_equal(sched_balance_interval_ns(w, 0, 0, true), 28 * SIM_NS_PER_MS);
    assert_int_equal(sched_balance_interval_ns(w, 0, MC, false), 16 * SIM_NS_PER_MS);
    assert_int_equal(sched_balance_interval_ns(w, 0, MC, true), 252 * SIM_NS_PER_MS);
    /* A balanced domain's interval doubles (32 ms: 8 jiffies; 512 ms busy:
     * 127); the answer follows, whatever was asked before. */
    int nd;
    struct sched_domain *d = sched_domains(&l->f->w.sched.topo, 0, &nd);
    l->f->w.sched.balance.sd[&d[MC] - l->f->w.sched.topo.sd].balance_interval_ms *= 2;
    assert_int_equal(sched_balance_interval_ns(w, 0, MC, false), 32 * SIM_NS_PER_MS);
    assert_int_equal(sched_balance_interval_ns(w, 0, MC, true), 508 * SIM_NS_PER_MS);
    assert_int_equal(sched_balance_interval_ns(w, 0, 0, false), 4 * SIM_NS_PER_MS);
    load_free(l);
    l = load_new("machines/skx-2s.ini", "6.10", NULL, false);
    int n;
    sched_domains(&l->f->w.sched.topo, 0, &n);
    assert_int_equal(sched_balance_interval_ns(&l->f->w, 0, n - 1, false), 112 * SIM_NS_PER_MS);
    assert_int_equal(sched_balance_interval_ns(&l->f->w, 0, n - 1, true), 1788 * SIM_NS_PER_MS);
    load_free(l);
}

/* stats.c: one task on E-core cpu12 for 100 ms; asym packing moves it to a
 * P-core at the first due MC balance (16 ms): one migration in 0.1 s, and
 * about 84 % of its run time on the P-cores. */
static void test_sched_metrics(void **state)
{
    (void)state;
    struct load *l = load_new("machines/rpl-h.ini", "6.10", NULL, true);
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 12);
    sched_wake_task(&l->f->w, &p.t, (double)SIM_NS_PER_S, 12);
    load_run_to(l, 100 * SIM_NS_PER_MS);
    struct rpt_metric_set out = { 0 };
    world_collect_metrics(&l->f->w, &out);
    assert_true(rpt_set_get(&out, "migrations_per_s")->value == 10);
    double share = rpt_set_get(&out, "pcore_share_pct")->value;
    if (share < 80 || share > 86)
        fail_msg("pcore_share_pct %g, on cpu %d, P run %lld E run %lld", share, p.t.cpu, (long long)l->f->w.hw.thr[0].run_ns, (long long)l->f->w.hw.thr[12].run_ns);
    assert_non_null(rpt_set_get(&out, "busy_pct.E"));
    assert_true(rpt_set_get(&out, "busy_pct.P")->value > 0);
    rpt_set_free(&out);
    load_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_classification),
        cmocka_unit_test(test_imbalance_type),
        cmocka_unit_test(test_newidle_pulls_from_busiest),
        cmocka_unit_test(test_affinity_and_task_hot),
        cmocka_unit_test(test_tick_woken_cpu_is_idle),
        cmocka_unit_test(test_smt_sibling_not_cache_hot),
        cmocka_unit_test(test_smt_group_cores),
        cmocka_unit_test(test_misfit),
        cmocka_unit_test(test_balance_interval),
        cmocka_unit_test(test_sched_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
