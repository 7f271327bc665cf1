/* RT push and pull (kernel/sched/rt.c, cpupri.c): a queued RT task pushed
 * to a lower-priority CPU after a switch (the balance callback) and after a
 * wake-up (task_woken_rt), pulled by a CPU that lowers its priority, or,
 * with RT_PUSH_IPI (v4.6+, default), pushed by its own CPU from the IPI
 * that CPU sends, at the interrupt's cost; an equal-priority wakee that can
 * run nowhere else preempting a current task that can move
 * (check_preempt_equal_prio); offline CPUs out of cpupri; isolated CPUs in
 * their own root domain; select_task_rq_rt looking at the running task
 * only. skx-2s: CPUs 0-55 are the first threads of the cores, 56-111 their
 * SMT siblings (cpu2's is cpu58). The tasks that may move are allowed on a
 * few CPUs only, so that the lowest-priority CPU is known. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define US 1000LL
#define MS 1000000LL

#define NCPUS_MAX 256

struct cpuset {
    bool cpu[NCPUS_MAX];
};

static void probe_pinned(struct probe *p, int cpu, int prio)
{
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    task_set_scheduler(&p->t, SCHED_POLICY_FIFO, prio);
}

/* A FIFO task at prio that last ran on prev and may run on the CPUs of
 * list (-1 ends it), whose mask set holds. */
static void probe_on(struct fx *f, struct probe *p, struct cpuset *set, int prev, int prio,
                     const int *list)
{
    *set = (struct cpuset){ 0 };
    for (int i = 0; list[i] >= 0; i++)
        set->cpu[list[i]] = true;
    task_init(&p->t, probe_done, prev);
    task_set_cpus_allowed(&p->t, set->cpu, f->w.sched.ncpus);
    task_set_scheduler(&p->t, SCHED_POLICY_FIFO, prio);
}

/* The balance callback after a switch (set_next_task_rt -> push): A (50,
 * cpus 2-3) runs on cpu2; H (90, pinned to cpu2) wakes and preempts it;
 * when H starts, A is pushed to idle cpu3 and ends long before H. Without
 * the push A waits on cpu2 for H's 5 ms. */
static void test_push_after_switch(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe a = { 0 }, h = { 0 };
    struct cpuset sa;
    probe_on(f, &a, &sa, 2, 50, (const int[]){ 2, 3, -1 });
    probe_pinned(&h, 2, 90);
    sched_wake_task(&f->w, &a.t, 2.0 * MS, 2);
    world_run_until(&f->w, 1 * MS);
    assert_ptr_equal(f->w.sched.cpu[2].curr, &a.t);
    sched_wake_task(&f->w, &h.t, 5.0 * MS, 2);
    world_run_until(&f->w, 20 * MS);
    assert_int_equal(f->w.sched.nr_rt_preemptions, 1);
    assert_int_equal(f->w.sched.nr_rt_pushes, 1);
    assert_int_equal(a.ran_on, 3);
    /* about 1 ms left, from cpu3's wake-up on (an idle exit) */
    assert_true(a.done_ns < 2500 * US);
    assert_true(h.done_ns > 6 * MS);
    fx_free(f);
}

/* task_woken_rt pushes whatever waits, not only the wakee: B (50) is queued
 * on cpu2 behind H (90, pinned) while it could not move (pinned for its
 * wake-up, then allowed cpus 2-3); C (40, cpus 2 and 4, where cpu4 runs a
 * 95) wakes on cpu2 and must wait too, and its wake-up's push moves B to
 * cpu3, which runs a fair task. Without it B waits for H (5 ms). */
static void test_push_on_wakeup(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe h = { 0 }, top4 = { 0 }, b = { 0 }, c = { 0 }, fair3 = { 0 };
    struct cpuset sb, sc;
    probe_pinned(&h, 2, 90);
    probe_pinned(&top4, 4, 95);   /* busy until after H */
    task_init(&fair3.t, probe_done, 3);
    task_set_affinity(&fair3.t, 3);
    sched_wake_task(&f->w, &h.t, 5.0 * MS, 2);
    sched_wake_task(&f->w, &top4.t, 10.0 * MS, 4);
    sched_wake_task(&f->w, &fair3.t, 10.0 * MS, 3);
    world_run_until(&f->w, 1 * MS);
    probe_on(f, &b, &sb, 2, 50, (const int[]){ 2, 3, -1 });
    task_set_affinity(&b.t, 2);
    sched_wake_task(&f->w, &b.t, 100.0 * US, 2);
    task_set_cpus_allowed(&b.t, sb.cpu, f->w.sched.ncpus);
    world_run_until(&f->w, 1100 * US);
    assert_int_equal(b.t.cpu, 2);
    assert_int_equal(f->w.sched.nr_rt_pushes, 0);
    probe_on(f, &c, &sc, 2, 40, (const int[]){ 2, 4, -1 });
    sched_wake_task(&f->w, &c.t, 100.0 * US, 2);
    assert_int_equal(c.t.cpu, 2);
    assert_int_equal(f->w.sched.nr_rt_pushes, 1);
    assert_int_equal(b.t.cpu, 3);
    world_run_until(&f->w, 20 * MS);
    assert_int_equal(b.ran_on, 3);
    assert_true(b.done_ns < 1300 * US);   /* preempts the fair task at once */
    assert_int_equal(c.ran_on, 2);
    assert_true(c.done_ns > h.done_ns);
    fx_free(f);
}

struct pull_run {
    sim_time_t b_done_ns, h_done_ns, m_done_ns;
    int b_ran_on;
    uint64_t pulls, pushes, ipis, busy_irqs2;
};

/* H (90) runs 5 ms pinned on cpu2, M (80) 1 ms pinned on cpu3; B (50,
 * cpus 2-3) wakes at 100 us and waits on cpu2 (cpu3 runs a better task).
 * When M sleeps cpu3 lowers its priority. */
static struct pull_run pull_case(const char *kernel, const char *sysfs)
{
    struct fx *f = fx_new_kernel_machine("machines/skx-2s.ini", kernel, NULL, sysfs, true);
    struct probe h = { 0 }, m = { 0 }, b = { 0 };
    struct cpuset sb;
    probe_pinned(&h, 2, 90);
    probe_pinned(&m, 3, 80);
    probe_on(f, &b, &sb, 2, 50, (const int[]){ 2, 3, -1 });
    sched_wake_task(&f->w, &h.t, 5.0 * MS, 2);
    sched_wake_task(&f->w, &m.t, 2.0 * MS, 3);
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &b.t, 100.0 * US, 2);
    world_run_until(&f->w, 1100 * US);
    assert_int_equal(b.t.cpu, 2);
    uint64_t irqs0 = f->w.sched.cpu[2].nr_busy_irqs;
    world_run_until(&f->w, 20 * MS);
    struct pull_run r = { .b_done_ns = b.done_ns, .h_done_ns = h.done_ns, .b_ran_on = b.ran_on,
                          .pulls = f->w.sched.nr_rt_pulls, .pushes = f->w.sched.nr_rt_pushes,
                          .ipis = f->w.sched.nr_rt_push_ipis,
                          .busy_irqs2 = f->w.sched.cpu[2].nr_busy_irqs - irqs0 };
    r.m_done_ns = m.done_ns;
    assert_true(m.done_ns > 2 * MS && m.done_ns < 2500 * US);
    fx_free(f);
    return r;
}

/* Without RT_PUSH_IPI cpu3 pulls B as it picks (no IPI, B starts at once
 * on cpu3); so on 4.5, before the feature. With it (the default) cpu3
 * sends an IPI: cpu2 takes the interrupt over H (wake_irq_ns: H ends that
 * much later) and pushes B, which must then wake cpu3 from the idle state
 * it entered meanwhile: B ends later. */
static void test_pull_and_push_ipi(void **state)
{
    (void)state;
    const char *no_ipi = "/sys/kernel/debug/sched/features=NO_RT_PUSH_IPI";
    struct pull_run pull = pull_case(NULL, no_ipi);
    assert_int_equal(pull.pulls, 1);
    assert_int_equal(pull.pushes, 0);
    assert_int_equal(pull.ipis, 0);
    assert_int_equal(pull.b_ran_on, 3);
    assert_true(pull.b_done_ns - pull.m_done_ns < 105 * US);   /* at once: 100 us of work */
    struct pull_run old = pull_case("4.5", NULL);
    assert_int_equal(old.pulls, 1);
    assert_int_equal(old.ipis, 0);

    struct pull_run ipi = pull_case(NULL, NULL);
    assert_int_equal(ipi.pulls, 0);
    assert_int_equal(ipi.pushes, 1);
    /* cpu2's IPI pushes B to cpu3, which B leaves overloaded while cpu3
     * leaves its idle state: the chain goes on to cpu3 (nothing to push: B
     * is its next task), twice, as rto_loop_next moved once since the
     * iterator's last loop (rto_next_cpu scans the mask again). */
    assert_int_equal(ipi.ipis, 3);
    assert_int_equal(ipi.b_ran_on, 3);
    assert_true(ipi.b_done_ns - ipi.m_done_ns < 1 * MS);
    assert_true(ipi.b_done_ns > pull.b_done_ns);   /* cpu3 went idle meanwhile */
    assert_int_equal(ipi.busy_irqs2, pull.busy_irqs2 + 1);
    struct fx *f = fx_new(NULL, NULL);
    sim_time_t irq_ns = f->w.idle.wake_irq_ns;
    fx_free(f);
    assert_true(irq_ns > 0);
    assert_int_equal(ipi.h_done_ns - pull.h_done_ns, irq_ns);
}

/* check_preempt_equal_prio: A (50, cpus 2-3) runs on cpu2, cpu3 idles; P
 * (50) pinned to cpu2 wakes there. P can run nowhere else and A can, so P
 * preempts A, which is pushed to cpu3 when P starts. A P that may also run
 * on cpu3 is placed there instead; a pinned A is not preempted (P waits). */
static void test_equal_prio_preempt(void **state)
{
    (void)state;
    for (int c = 0; c < 3; c++) {
        struct fx *f = fx_new(NULL, NULL);
        struct probe a = { 0 }, p = { 0 };
        struct cpuset sa, sp;
        if (c == 2)
            probe_pinned(&a, 2, 50);
        else
            probe_on(f, &a, &sa, 2, 50, (const int[]){ 2, 3, -1 });
        if (c == 1)
            probe_on(f, &p, &sp, 2, 50, (const int[]){ 2, 3, -1 });
        else
            probe_pinned(&p, 2, 50);
        sched_wake_task(&f->w, &a.t, 2.0 * MS, 2);
        world_run_until(&f->w, 1 * MS);
        sched_wake_task(&f->w, &p.t, 50.0 * US, 2);
        world_run_until(&f->w, 20 * MS);
        uint64_t eq = f->w.sched.nr_rt_equal_preemptions;
        switch (c) {
        case 0:
            assert_int_equal(eq, 1);
            assert_int_equal(p.ran_on, 2);
            assert_true(p.done_ns < 1100 * US);
            assert_int_equal(a.ran_on, 3);
            assert_int_equal(f->w.sched.nr_rt_pushes, 1);
            break;
        case 1:
            assert_int_equal(eq, 0);
            assert_int_equal(p.ran_on, 3);
            assert_int_equal(a.ran_on, 2);
            assert_int_equal(f->w.sched.nr_rt_preemptions, 0);
            break;
        default:
            assert_int_equal(eq, 0);
            assert_true(p.done_ns > a.done_ns);
            break;
        }
        fx_free(f);
    }
}

/* nosmt: cpu58 (cpu2's sibling) is offline and not in cpupri. B (50, cpus
 * 2 and 58) waits on cpu2 behind H (90, pinned) and runs there after it;
 * it is never pushed to the offline CPU. */
static void test_offline_not_in_cpupri(void **state)
{
    (void)state;
    struct fx *f = fx_new("nosmt", NULL);
    assert_true(isol_cpu_offline(&f->w, 58));
    struct probe h = { 0 }, b = { 0 };
    struct cpuset sb;
    probe_pinned(&h, 2, 90);
    probe_on(f, &b, &sb, 2, 50, (const int[]){ 2, 58, -1 });
    sched_wake_task(&f->w, &h.t, 2.0 * MS, 2);
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &b.t, 100.0 * US, 2);
    world_run_until(&f->w, 20 * MS);
    assert_int_equal(f->w.sched.nr_rt_pushes, 0);
    assert_int_equal(b.ran_on, 2);
    assert_true(b.done_ns > h.done_ns);
    fx_free(f);
}

/* isolcpus=4-5: the isolated CPUs share def_root_domain, apart from the
 * CPUs in domains. B (50) waking on cpu4 behind H (90, pinned) goes to
 * idle cpu5 when allowed (cpus 2, 4, 5), but with cpus 2 and 4 it waits
 * on cpu4: idle cpu2 is in the other root domain's cpupri. */
static void test_isolated_root_domain(void **state)
{
    (void)state;
    for (int with5 = 0; with5 <= 1; with5++) {
        struct fx *f = fx_new("isolcpus=4-5", NULL);
        struct probe h = { 0 }, b = { 0 };
        struct cpuset sb;
        probe_pinned(&h, 4, 90);
        if (with5)
            probe_on(f, &b, &sb, 4, 50, (const int[]){ 2, 4, 5, -1 });
        else
            probe_on(f, &b, &sb, 4, 50, (const int[]){ 2, 4, -1 });
        sched_wake_task(&f->w, &h.t, 2.0 * MS, 4);
        world_run_until(&f->w, 1 * MS);
        sched_wake_task(&f->w, &b.t, 100.0 * US, 4);
        world_run_until(&f->w, 20 * MS);
        assert_int_equal(b.ran_on, with5 ? 5 : 4);
        fx_free(f);
    }
}

/* select_task_rq_rt looks at the running task only: cpu2 is leaving idle
 * for Q (90, pinned), queued there; B (50, cpus 2-3) waking with cpu2 as
 * its previous CPU is queued on cpu2 too, and pushed to cpu3 when Q starts
 * (the balance callback). */
static void test_select_sees_curr_only(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe q = { 0 }, b = { 0 };
    struct cpuset sb;
    probe_pinned(&q, 2, 90);
    probe_on(f, &b, &sb, 2, 50, (const int[]){ 2, 3, -1 });
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &q.t, 1.0 * MS, 2);
    assert_true(f->w.sched.cpu[2].waking);
    sched_wake_task(&f->w, &b.t, 100.0 * US, 2);
    assert_int_equal(b.t.cpu, 2);
    assert_int_equal(f->w.sched.nr_rt_pushes, 0);
    world_run_until(&f->w, 20 * MS);
    assert_int_equal(f->w.sched.nr_rt_pushes, 1);
    assert_int_equal(b.ran_on, 3);
    assert_true(b.done_ns < q.done_ns);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_after_switch),
        cmocka_unit_test(test_push_on_wakeup),
        cmocka_unit_test(test_pull_and_push_ipi),
        cmocka_unit_test(test_equal_prio_preempt),
        cmocka_unit_test(test_offline_not_in_cpupri),
        cmocka_unit_test(test_isolated_root_domain),
        cmocka_unit_test(test_select_sees_curr_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
