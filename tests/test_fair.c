/* Task placement replays (src/kernel/sched/fair.c): a machine, a scripted
 * per-CPU load (tasks pinned to CPUs, run long enough for their averages to
 * build), then the CPU the kernel's rule picks for a task waking from a given
 * CPU, one test per rule of FACTS-2.md section 3: an idle previous CPU,
 * wake_affine pulling to the waker's LLC (and not when the waker is loaded),
 * the idle-core scan skipping a core with a busy sibling, an idle SMT sibling
 * when no idle core is left, recent_used_cpu, the cluster-first scan (v6.8),
 * and SIS_UTIL ending the scan on a loaded LLC (v6.0); and for a fork, the
 * slow path: an idle hybrid laptop (E-module first since v6.6, a P-core
 * before), the NUMA allowance and a busy local package, the CPU in the group
 * (shallowest idle state, then most recently idled). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define LONG_NS (10 * SIM_NS_PER_S)

struct load {
    struct fx *f;
    struct probe busy[128];
    int nbusy;
};

static struct load *load_new_with(const char *machine, const char *kernel, const char *cmdline,
                                  const char *sysfs)
{
    struct load *l = calloc(1, sizeof *l);
    l->f = fx_new_machine(machine, "CONFIG_HZ=250", cmdline, sysfs, NULL, 0);
    assert_int_equal(kversion_parse(kernel, &l->f->kp.kernel), 0);
    /* rebuild the world for this kernel version */
    world_destroy(&l->f->w);
    struct world_key key = { .seed = 3 };
    world_init(&l->f->w, l->f->m, &l->f->kp, &key);
    return l;
}

static struct load *load_new(const char *machine, const char *kernel)
{
    return load_new_with(machine, kernel, NULL, NULL);
}

/* Keep cpu busy (a pinned task with work for 10 s). */
static void load_busy(struct load *l, int cpu)
{
    struct probe *p = &l->busy[l->nbusy++];
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    sched_wake_task(&l->f->w, &p->t, LONG_NS, cpu);
}

static void load_run(struct load *l, sim_time_t ns)
{
    world_run_until(&l->f->w, l->f->w.q.now_ns + ns);
}

static void load_free(struct load *l)
{
    fx_free(l->f);
    free(l);
}

/* Where a task that last ran on prev goes when woken from waker. */
static int wake_from(struct load *l, int prev, int waker)
{
    struct task t;
    task_init(&t, probe_done, prev);
    return select_task_rq_fair(&l->f->w, &t, waker, false);
}

/* A runqueue's PELT signals as the kernel holds them (pelt.c): whole
 * numbers, saturating just under 1024 for a CPU that always runs, standing
 * still within a 1024 us period, halving over 32 periods (33.55 ms) of
 * idle. cpu5 runs a pinned task for 2 s, then idles. */
static void test_rq_pelt_signals(void **state)
{
    (void)state;
    const sim_time_t period_ns = 1024 * 1024;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    struct probe p = { .done_ns = 0 };
    task_init(&p.t, probe_done, 5);
    task_set_affinity(&p.t, 5);
    sched_wake_task(&l->f->w, &p.t, 2.0 * SIM_NS_PER_S, 5);
    load_run(l, SIM_NS_PER_S);
    struct sched_avg busy = rq_avg_now(&l->f->w, 5);
    assert_true(busy.util_avg >= 1000 && busy.util_avg < 1024);
    assert_true((double)busy.util_avg == floor((double)busy.util_avg));
    assert_true((double)busy.load_avg == floor((double)busy.load_avg));
    while (!p.done_ns)
        load_run(l, SIM_NS_PER_MS);   /* until the task ends; cpu5 idles since */
    double u0 = (double)rq_avg_now(&l->f->w, 5).util_avg;
    assert_true(u0 > 0);
    load_run(l, 1);
    assert_true((double)rq_avg_now(&l->f->w, 5).util_avg == u0);
    load_run(l, 32 * period_ns - 1);
    assert_true(fabs((double)rq_avg_now(&l->f->w, 5).util_avg - u0 / 2) <= 1);
    load_free(l);
}

/* migrate_task_rq_fair: a task that ran 200 ms on cpu5 and is woken on
 * cpu9 takes its util with it: cpu5's util drops by the task's (to about 0:
 * it was cpu5's only task), cpu9's gains it, without waiting 32 ms per
 * halving. */
static void test_util_moves_with_task(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    struct probe p = { .done_ns = 0 };
    task_init(&p.t, probe_done, 5);
    task_set_affinity(&p.t, 5);
    sched_wake_task(&l->f->w, &p.t, 200.0 * SIM_NS_PER_MS, 5);
    while (!p.done_ns)
        load_run(l, SIM_NS_PER_MS);
    unsigned long task_util = task_avg_now(&l->f->w, &p.t).util_avg;
    unsigned long cpu5_before = rq_avg_now(&l->f->w, 5).util_avg;
    /* frequency-invariant: at base of a higher turbo ceiling, below 1024 */
    assert_true(task_util > 100 && cpu5_before + 20 >= task_util);
    task_set_affinity(&p.t, 9);
    sched_wake_task(&l->f->w, &p.t, 1.0 * SIM_NS_PER_MS, 9);
    assert_true(rq_avg_now(&l->f->w, 5).util_avg + task_util <= cpu5_before + 20);
    assert_true(rq_avg_now(&l->f->w, 5).util_avg < 20);
    assert_true(rq_avg_now(&l->f->w, 9).util_avg + 20 >= task_util);
    load_free(l);
}

/* An idle previous CPU keeps its task: neither an interrupt on another idle
 * CPU of its LLC (wake_affine_idle hands over to an idle prev) nor a busy
 * waker there pulls it. */
static void test_prev_idle(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    assert_int_equal(wake_from(l, 5, 10), 5);
    load_busy(l, 10);
    load_run(l, SIM_NS_PER_MS);
    assert_int_equal(wake_from(l, 5, 10), 5);
    load_free(l);
}

/* wake_affine_weight: prev (package 1) busy for 100 ms, the waker on idle
 * package 0: the waker's side is lighter, so the target is the waker's CPU
 * and the task runs there. With two tasks on the waker's CPU its load
 * outweighs prev's even with prev's imbalance_pct bias, and the task stays
 * in prev's LLC. */
static void test_wake_affine_waker_llc(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    load_busy(l, 30);
    load_run(l, 100 * SIM_NS_PER_MS);
    assert_int_equal(wake_from(l, 30, 0), 0);
    load_free(l);
    l = load_new("machines/skx-2s.ini", "6.6");
    load_busy(l, 30);
    load_busy(l, 0);
    load_busy(l, 0);
    load_run(l, 100 * SIM_NS_PER_MS);
    int cpu = wake_from(l, 30, 0);
    assert_int_equal(l->f->m->cpus[cpu].package, 1);
    load_free(l);
}

/* select_idle_core: prev = target = cpu0 busy and cpu57 (cpu1's sibling)
 * busy: the scan from cpu1 skips core {1,57} and takes cpu2, a wholly idle
 * core, not prev's idle sibling 56. */
static void test_idle_core_skips_busy_sibling(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    load_busy(l, 0);
    load_busy(l, 57);
    load_run(l, SIM_NS_PER_MS);
    assert_int_equal(wake_from(l, 0, 0), 2);
    load_free(l);
}

/* No idle core recorded in the LLC: select_idle_smt takes prev's idle
 * sibling before any scan. */
static void test_idle_smt_sibling(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    load_busy(l, 0);
    load_run(l, SIM_NS_PER_MS);
    l->f->w.sched.llc[0].has_idle_cores = false;
    assert_int_equal(wake_from(l, 0, 0), 56);
    load_free(l);
}

/* recent_used_cpu: prev busy, the CPU the task used before idle and in the
 * same LLC: it goes back there (not to the first idle core of the scan). */
static void test_recent_used_cpu(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    load_busy(l, 0);
    load_run(l, SIM_NS_PER_MS);
    struct task t;
    task_init(&t, probe_done, 0);
    t.recent_used_cpu = 20;
    assert_int_equal(select_task_rq_fair(&l->f->w, &t, 0, false), 20);
    assert_int_equal(t.recent_used_cpu, 0);   /* prev becomes the recent one */
    load_free(l);
}

/* Cluster-first scan (v6.8, 8881e1639f1f): E-core 9 busy with 10 and 11 in
 * its module: the scan looks at module 8-11 first (from 10, wrapping) and
 * takes 8. v6.6 has CLS but no SD_CLUSTER, so the LLC scan from 10 takes
 * 12, the other module. */
static void test_cluster_scan(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++) {
        struct load *l = load_new("machines/rpl-h.ini", v == 0 ? "6.9" : "6.6");
        load_busy(l, 9);
        load_busy(l, 10);
        load_busy(l, 11);
        load_run(l, SIM_NS_PER_MS);
        assert_int_equal(wake_from(l, 9, 9), v == 0 ? 8 : 12);
        load_free(l);
    }
}

/* SIS_UTIL (v6.0, 70fb5ccf2ebb): 50 of package 0's 56 CPUs busy for 300 ms
 * put the LLC's util above 85 %, the scan budget drops to 0 and the task
 * stays on its busy prev though CPUs 78-83 are idle; v5.19 scans and finds
 * one. */
static void test_sis_util_cuts_scan(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++) {
        struct load *l = load_new("machines/skx-2s.ini", v == 0 ? "6.6" : "5.19");
        for (int i = 0; i < 50; i++)
            load_busy(l, i < 28 ? i : i + 28);   /* cpus 0-27 and 56-77 */
        load_run(l, 300 * SIM_NS_PER_MS);
        int cpu = wake_from(l, 0, 0);
        if (v == 0) {
            assert_int_equal(fair_nr_idle_scan(&l->f->w, 0), 0);
            assert_int_equal(cpu, 0);
        } else {
            assert_true(sched_cpu_idle(&l->f->w, cpu));
            assert_int_equal(l->f->m->cpus[cpu].package, 0);
        }
        load_free(l);
    }
}

/* update_idle_cpu_scan runs where the kernel runs it (update_sd_lb_stats
 * in periodic balancing of the LLC domain), not on wake-ups: with the LLC
 * loaded above 85 % a budget set back to the LLC's 56 CPUs stays 56 through
 * a wake-up (which scans and finds idle CPU 78-83), and the next periodic
 * balances within a second bring it back to 0; a newly idle balance of the
 * LLC leaves it. */
static void test_sis_util_updated_by_periodic_balance(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    for (int i = 0; i < 50; i++)
        load_busy(l, i < 28 ? i : i + 28);   /* cpus 0-27 and 56-77 */
    load_run(l, 300 * SIM_NS_PER_MS);
    struct world *w = &l->f->w;
    assert_int_equal(fair_nr_idle_scan(w, 0), 0);
    w->sched.llc[0].nr_idle_scan = 56;
    int cpu = wake_from(l, 0, 0);
    assert_true(sched_cpu_idle(w, cpu));
    assert_int_equal(fair_nr_idle_scan(w, 0), 56);
    int n;
    const struct sched_domain *d = sched_domains(&w->sched.topo, 78, &n);
    const struct sched_domain *llc = &d[n - 2];   /* SMT, MC, NUMA: MC is the LLC */
    assert_int_equal(llc->span->weight, 56);
    fair_update_idle_cpu_scan(w, 78, llc, 50 * 1024, CPU_NEWLY_IDLE);
    assert_int_equal(fair_nr_idle_scan(w, 0), 56);
    load_run(l, SIM_NS_PER_S);
    assert_int_equal(fair_nr_idle_scan(w, 0), 0);
    load_free(l);
}

/* Where a task forked by a task running on parent goes. */
static int fork_from(struct load *l, int parent)
{
    struct task t;
    task_init(&t, probe_done, parent);
    t.avg_new = true;
    t.avg.load_avg = SCHED_CAPACITY_SCALE;
    return select_task_rq_fair(&l->f->w, &t, parent, true);
}

/* Fork on an idle i5-13500H (FACTS-2 section 4, consequence): the parent
 * runs on cpu0; MC's groups are four P-pairs (2 idle, 1 for the parent's)
 * and two E-modules (4 idle): the first E-module wins, its first CPU, and
 * CLS{8-11} keeps it there. With ITMT the same (the slow path reads no
 * priority). Before v6.6 (no clusters) the groups are P-pairs against
 * single E-cores, and a P-core wins. */
static void test_fork_idle_hybrid(void **state)
{
    (void)state;
    static const struct { const char *kernel; bool itmt; int cpu; } cases[] = {
        { "6.9", false, 8 }, { "6.10", true, 8 }, { "6.5", false, 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* no cpuidle: no idle state to prefer, ties go to the first CPU */
        struct load *l = load_new_with("machines/rpl-h.ini", cases[i].kernel,
                                       "cpuidle.off=1 cpufreq.off=0", NULL);
        assert_int_equal(l->f->w.sched.asym_packing, cases[i].itmt);
        load_busy(l, 0);
        load_run(l, SIM_NS_PER_MS);
        assert_int_equal(fork_from(l, 0), cases[i].cpu);
        load_free(l);
    }
}

/* Fork on two sockets from busy cpu0: the NUMA level tolerates a gap of
 * idle CPUs while few tasks run locally (imb_numa_nr 7), so the task stays
 * in package 0, on an idle core (cpu1), not on the parent's sibling. With 8
 * tasks in package 0 the allowance is gone and it goes to package 1. */
static void test_fork_local_group_busy(void **state)
{
    (void)state;
    struct load *l = load_new("machines/skx-2s.ini", "6.6");
    load_busy(l, 0);
    load_run(l, SIM_NS_PER_MS);
    assert_int_equal(fork_from(l, 0), 1);
    load_free(l);
    l = load_new("machines/skx-2s.ini", "6.6");
    for (int cpu = 0; cpu < 8; cpu++)
        load_busy(l, cpu);
    load_run(l, SIM_NS_PER_MS);
    assert_int_equal(l->f->m->cpus[fork_from(l, 0)].package, 1);
    load_free(l);
}

/* sched_balance_find_dst_group_cpu: in the chosen E-module, the CPU whose
 * idle state exits fastest (cpu11, deep states disabled); without cpuidle
 * (no state to compare), the most recently idled: with the parent on E-core
 * 12, module 8-11 (4 idle) beats the parent's (3), and of its CPUs cpu10 ran
 * last. */
static void test_fork_group_cpu(void **state)
{
    (void)state;
    struct load *l = load_new_with("machines/rpl-h.ini", "6.9", NULL,
                                   "/sys/devices/system/cpu/cpu11/cpuidle/state2/disable=1 "
                                   "/sys/devices/system/cpu/cpu11/cpuidle/state3/disable=1");
    load_busy(l, 0);
    load_run(l, 20 * SIM_NS_PER_MS);
    assert_int_equal(fork_from(l, 0), 11);
    load_free(l);
    l = load_new_with("machines/rpl-h.ini", "6.9", "cpuidle.off=1", NULL);
    struct probe a, b;
    task_init(&a.t, probe_done, 9);
    task_init(&b.t, probe_done, 10);
    sched_wake_task(&l->f->w, &a.t, 100000, 9);
    sched_wake_task(&l->f->w, &b.t, 200000, 10);
    load_busy(l, 12);
    load_run(l, SIM_NS_PER_MS);
    assert_int_equal(fork_from(l, 12), 10);
    load_free(l);
}

/* update_pick_idlest (3edecfef0285): two E-modules with 4 idle CPUs each,
 * the one that ran a task recently has more util: the other one wins. The
 * fork comes 2 ms in, past the first PELT period end (1.05 ms): util_avg
 * only moves when a period ends. */
static void test_fork_util_tie(void **state)
{
    (void)state;
    struct load *l = load_new_with("machines/rpl-h.ini", "6.9", "cpuidle.off=1", NULL);
    struct probe a;
    task_init(&a.t, probe_done, 9);
    sched_wake_task(&l->f->w, &a.t, 100000, 9);
    load_busy(l, 0);
    load_run(l, 2 * SIM_NS_PER_MS);
    assert_int_equal(fork_from(l, 0), 12);
    load_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rq_pelt_signals),
        cmocka_unit_test(test_prev_idle),
        cmocka_unit_test(test_wake_affine_waker_llc),
        cmocka_unit_test(test_idle_core_skips_busy_sibling),
        cmocka_unit_test(test_idle_smt_sibling),
        cmocka_unit_test(test_recent_used_cpu),
        cmocka_unit_test(test_cluster_scan),
        cmocka_unit_test(test_sis_util_cuts_scan),
        cmocka_unit_test(test_sis_util_updated_by_periodic_balance),
        cmocka_unit_test(test_fork_idle_hybrid),
        cmocka_unit_test(test_fork_local_group_busy),
        cmocka_unit_test(test_fork_group_cpu),
        cmocka_unit_test(test_fork_util_tie),
        cmocka_unit_test(test_util_moves_with_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
