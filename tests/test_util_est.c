/* util_est (src/kernel/sched/fair_util_est.c): the sample rules by kernel
 * version replayed on their own (the ewma's quarter step, the 1 % margin,
 * fast-up, the capacity and contention skips, UTIL_AVG_UNCHANGED), then a
 * bursty task in a world: its estimate is the util it slept with, its
 * runqueue's sum holds it while it is enqueued, and after a long sleep
 * schedutil and the capacity fitness of a big.LITTLE wake-up see the
 * estimate, not the decayed util (none of it before v4.17 or with
 * NO_UTIL_EST). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

static const struct util_est_rules rules_v4_17 = { .enabled = true };
static const struct util_est_rules rules_v5_5 = { .enabled = true, .skip_over_capacity = true,
                                                  .fastup = true };
static const struct util_est_rules rules_v6_8 = { .enabled = true, .skip_over_capacity = true,
                                                  .fastup = true, .skip_contended = true,
                                                  .ewma_only = true };

/* One sample with the flag cleared first (util_avg recomputed since). */
static void sample(const struct util_est_rules *r, struct util_est *ue, unsigned dequeued,
                   unsigned long capacity, unsigned long runnable)
{
    ue->avg_unchanged = false;
    util_est_update(r, ue, dequeued, capacity, runnable);
}

static void test_ewma_v6_8(void **state)
{
    (void)state;
    struct util_est ue = { .ewma = 500 };
    sample(&rules_v6_8, &ue, 300, 1024, 300);
    assert_int_equal(ue.ewma, 450);          /* (3 x 500 + 300) / 4 */
    assert_true(ue.avg_unchanged);
    util_est_update(&rules_v6_8, &ue, 100, 1024, 100);
    assert_int_equal(ue.ewma, 450);          /* util_avg unchanged: no sample */
    sample(&rules_v6_8, &ue, 700, 1024, 700);
    assert_int_equal(ue.ewma, 700);          /* fast-up: an increase replaces it */
    sample(&rules_v6_8, &ue, 691, 1024, 691);
    assert_int_equal(ue.ewma, 700);          /* within 1 % (10): kept, flag set */
    assert_true(ue.avg_unchanged);
    sample(&rules_v6_8, &ue, 690, 1024, 690);
    assert_int_equal(ue.ewma, 697);          /* 10 away: (2100 + 690) / 4 = 697.5 */
    sample(&rules_v6_8, &ue, 500, 446, 500);
    assert_int_equal(ue.ewma, 697);          /* above a capacity-446 CPU: no sample */
    assert_false(ue.avg_unchanged);
    sample(&rules_v6_8, &ue, 400, 1024, 600);
    assert_int_equal(ue.ewma, 697);          /* waited behind others (runnable 600) */
    assert_true(ue.avg_unchanged);
    sample(&rules_v6_8, &ue, 400, 1024, 410);
    assert_int_equal(ue.ewma, 622);          /* runnable within 1 %: (2091 + 400) / 4 */
}

static void test_ewma_before_v6_8(void **state)
{
    (void)state;
    struct util_est ue = { .ewma = 300, .enqueued = 300 };
    sample(&rules_v4_17, &ue, 600, 1024, 600);
    assert_int_equal(ue.ewma, 375);          /* v4.17: increases are smoothed too */
    assert_int_equal(ue.enqueued, 600);      /* ... but the estimate is the sample */
    sample(&rules_v4_17, &ue, 380, 1024, 380);
    assert_int_equal(ue.enqueued, 600);      /* within 1 % of the ewma: dropped */
    assert_false(ue.avg_unchanged);          /* ... and the next dequeue samples again */
    sample(&rules_v4_17, &ue, 900, 446, 900);
    assert_int_equal(ue.ewma, 506);          /* no capacity skip before v5.1 */
    ue = (struct util_est){ .ewma = 300, .enqueued = 300 };
    sample(&rules_v5_5, &ue, 600, 1024, 600);
    assert_int_equal(ue.ewma, 600);          /* v5.5 fast-up */
    sample(&rules_v5_5, &ue, 200, 1024, 900);
    assert_int_equal(ue.ewma, 500);          /* no contention skip before v6.2 */
    assert_int_equal(ue.enqueued, 200);
}

/* ---- in a world ---------------------------------------------------------- */

#define SLEEP_NS (300 * SIM_NS_PER_MS)

/* A task that runs bursts and records the util it ends each with: the
 * sample util_est_update takes right after done() returns. */
struct burster {
    struct task t;
    unsigned last_util;
};

static void burster_done(struct world *w, struct task *t)
{
    (void)w;
    ((struct burster *)t)->last_util = (unsigned)t->avg.util_avg;
}

/* b, pinned on cpu, runs burst_ns of work and sleeps SLEEP_NS, n times; it
 * is left asleep. */
static void bursts(struct fx *f, struct burster *b, int cpu, sim_time_t burst_ns, int n)
{
    if (b->t.done != burster_done)
        task_init(&b->t, burster_done, cpu);
    task_set_affinity(&b->t, cpu);
    for (int i = 0; i < n; i++) {
        sched_wake_task(&f->w, &b->t, (double)burst_ns, cpu);
        world_run_until(&f->w, f->w.q.now_ns + SLEEP_NS);
        assert_int_equal(b->t.cpu, -1);
    }
}

#define BURST_NS (40 * SIM_NS_PER_MS)

/* The estimate is the util a burst ends with (fast-up from 0 on the first,
 * within 1 % or replaced by the next equal bursts), the runqueue holds it
 * only while the task is enqueued, and after the sleep the task's util has
 * decayed under it. */
static void test_sleep_samples(void **state)
{
    (void)state;
    struct fx *f = fx_new_kernel_machine("machines/skx-2s.ini", "6.12", NULL, NULL, true);
    struct burster b = { 0 };
    bursts(f, &b, 3, BURST_NS, 1);
    unsigned est = b.t.util_est.ewma;
    assert_int_equal(est, b.last_util);
    assert_in_range(est, 300, 700);
    assert_true(b.t.util_est.avg_unchanged);
    /* Longer bursts: util_avg was recomputed while the task ran (the flag
     * cleared), so the larger sample replaces the ewma. */
    bursts(f, &b, 3, 2 * BURST_NS, 1);
    assert_true(b.last_util > est + 100);
    assert_int_equal(b.t.util_est.ewma, b.last_util);
    bursts(f, &b, 3, 2 * BURST_NS, 1);
    assert_in_range(b.t.util_est.ewma, b.last_util, b.last_util + 9);
    est = b.t.util_est.ewma;
    assert_int_equal(task_util_est_only(&f->w, &b.t), est);
    assert_true(task_avg_now(&f->w, &b.t).util_avg < 10);   /* 300 ms: 2^-9.4 */
    assert_int_equal(task_util_est(&f->w, &b.t), est);
    assert_int_equal(sched_cpu_util_est(&f->w, 3), 0);
    sched_wake_task(&f->w, &b.t, BURST_NS, 3);
    assert_int_equal(sched_cpu_util_est(&f->w, 3), est);
    assert_true(cpu_util_cfs(&f->w, 3) >= est);
    fx_free(f);
    /* Without UTIL_EST (the feature, or a kernel before v4.17): no sample. */
    const char *off[][2] = { { "6.12", "/sys/kernel/debug/sched/features=NO_UTIL_EST" },
                             { "4.16", NULL } };
    for (int i = 0; i < 2; i++) {
        f = fx_new_kernel_machine("machines/skx-2s.ini", off[i][0], NULL, off[i][1], true);
        b = (struct burster){ 0 };
        bursts(f, &b, 3, BURST_NS, 3);
        assert_int_equal(b.t.util_est.ewma, 0);
        assert_int_equal(task_util_est(&f->w, &b.t), task_avg_now(&f->w, &b.t).util_avg);
        sched_wake_task(&f->w, &b.t, BURST_NS, 3);
        assert_int_equal(sched_cpu_util_est(&f->w, 3), 0);
        fx_free(f);
    }
}

/* schedutil at the start of a burst after a long sleep: 1.25 x fmax x the
 * estimate (the CPU's own util has decayed to nothing), raised from the
 * minimum a short task's run left. */
static void test_schedutil_sees_estimate(void **state)
{
    (void)state;
    uint32_t khz[2];
    unsigned est = 0;
    for (int on = 0; on < 2; on++) {
        struct fx *f = fx_new_kernel_machine("machines/skx-2s.ini", "6.12", "intel_pstate=passive",
                                             on ? NULL : "/sys/kernel/debug/sched/features=NO_UTIL_EST",
                                             false);
        struct cpufreq_policy *pol = &f->w.cpufreq.policy[3];
        assert_ptr_equal(pol->gov, &cpufreq_gov_schedutil);
        struct burster b = { 0 };
        bursts(f, &b, 3, BURST_NS, 3);
        if (on)
            est = b.t.util_est.ewma;
        /* A short task on the CPU meanwhile: its idle entry lets schedutil
         * lower the frequency that the end of the burst left (not busy). */
        struct probe tiny;
        task_init(&tiny.t, probe_done, 3);
        task_set_affinity(&tiny.t, 3);
        sched_wake_task(&f->w, &tiny.t, SIM_NS_PER_MS, 3);
        world_run_until(&f->w, f->w.q.now_ns + SLEEP_NS);
        assert_int_equal(pol->cur_khz, pol->min_khz);
        sched_wake_task(&f->w, &b.t, BURST_NS, 3);
        world_run_until(&f->w, f->w.q.now_ns + 200 * SIM_NS_PER_US);
        assert_ptr_equal(f->w.sched.cpu[3].curr, &b.t);
        khz[on] = pol->cur_khz;
        if (on) {
            double want = 1.25 * (double)pol->cpuinfo_max_khz * est / 1024;
            assert_int_equal(khz[on], cpufreq_resolve_khz(pol, (uint32_t)want));
        }
        fx_free(f);
    }
    assert_in_range(est, 300, 800);
    assert_int_equal(khz[0], 1000000);       /* without it, the minimum */
    assert_true(khz[1] >= khz[0] + 1000000);
}

/* big.LITTLE (Juno r0, capacity 578 for the A53s without a cpufreq driver):
 * a task whose estimate does not fit an A53 (above 80 % of 578 = 462)
 * wakes on a big CPU although its decayed util would fit, as
 * select_idle_sibling's asym_fits_cpu and select_idle_capacity read
 * task_util_est; without UTIL_EST it stays on the A53. The task ran its
 * bursts on an A57 and is then given an A53 as its previous CPU. */
static void test_capacity_fitness_reads_estimate(void **state)
{
    (void)state;
    int placed[2];
    for (int on = 0; on < 2; on++) {
        struct fx *f = fx_new_kernel_machine("machines/juno-r0.ini", "6.12", NULL,
                                             on ? NULL : "/sys/kernel/debug/sched/features=NO_UTIL_EST",
                                             true);
        assert_true(f->w.sched.topo.asym_cpucapacity);
        assert_int_equal(f->w.sched.topo.capacity[3], 578);
        struct burster b = { 0 };
        bursts(f, &b, 1, 4 * BURST_NS, 1);
        task_set_affinity(&b.t, -1);
        b.t.prev_cpu = 3;
        assert_true(task_avg_now(&f->w, &b.t).util_avg < 10);
        if (on)
            assert_true(task_util_est(&f->w, &b.t) > 462);
        placed[on] = select_task_rq_fair(&f->w, &b.t, 3, false);
        fx_free(f);
    }
    assert_int_equal(placed[0], 3);
    assert_int_equal(placed[1], 1);   /* select_idle_capacity: the first that fits from 3 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ewma_v6_8),
        cmocka_unit_test(test_ewma_before_v6_8),
        cmocka_unit_test(test_sleep_samples),
        cmocka_unit_test(test_schedutil_sees_estimate),
        cmocka_unit_test(test_capacity_fitness_reads_estimate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
