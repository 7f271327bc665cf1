/* The RT class (kernel/sched/rt.c): an RT wake-up preempts a fair task and a
 * lower RT priority but not a better one, the class order of a CPU's queue,
 * SCHED_RR's 100 ms slices against SCHED_FIFO's run to completion,
 * select_task_rq_rt's move to the lowest-priority CPU nearest the previous
 * one, the balancer leaving RT tasks alone, schedutil's maximum for a
 * runnable RT task, RT throttling before 6.12 (by version, knob and
 * RT_RUNTIME_SHARE) and the fair server from 6.12 (deferred to zero
 * laxity). skx-2s: cpu0 and cpu56 are SMT siblings, CPUs 0-27 and 56-83 one
 * package (LLC). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define US 1000LL
#define MS 1000000LL

static void probe_pinned(struct probe *p, int cpu, enum sched_policy policy, int prio)
{
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    task_set_scheduler(&p->t, policy, prio);
}

/* A fair task runs 10 ms on cpu3; a task woken there at 2 ms with 5 us of
 * work: as SCHED_FIFO it runs at once (after the interrupt and the
 * switch); as a fair task it waits for the running task's slice. */
static void test_rt_preempts_fair(void **state)
{
    (void)state;
    for (int rt = 0; rt <= 1; rt++) {
        struct fx *f = fx_new(NULL, NULL);
        struct probe big = { 0 }, small = { 0 };
        probe_pinned(&big, 3, SCHED_POLICY_NORMAL, 0);
        probe_pinned(&small, 3, rt ? SCHED_POLICY_FIFO : SCHED_POLICY_NORMAL, 50);
        sched_wake_task(&f->w, &big.t, 10.0 * MS, 3);
        world_run_until(&f->w, 2 * MS);
        sim_time_t woken = f->w.q.now_ns;
        sched_wake_task(&f->w, &small.t, 5.0 * US, 3);
        world_run_until(&f->w, 30 * MS);
        assert_true(big.done_ns > 0 && small.done_ns > 0);
        if (rt) {
            assert_true(small.done_ns - woken < 10 * US);
            assert_true(small.done_ns < big.done_ns);
            assert_int_equal(f->w.sched.nr_rt_preemptions, 1);
        } else {
            /* EEVDF: it waits for the running task's slice to end. */
            assert_true(small.done_ns - woken > 500 * US);
            assert_int_equal(f->w.sched.nr_rt_preemptions, 0);
        }
        fx_free(f);
    }
}

/* An RT task at priority 50 runs; one woken at 80 preempts it, one at 20
 * (or 50: same priority, FIFO) waits for it. */
static void test_rt_priority_order(void **state)
{
    (void)state;
    const int prios[] = { 80, 50, 20 };
    for (int i = 0; i < 3; i++) {
        struct fx *f = fx_new(NULL, NULL);
        struct probe running = { 0 }, woken = { 0 };
        probe_pinned(&running, 3, SCHED_POLICY_FIFO, 50);
        probe_pinned(&woken, 3, SCHED_POLICY_FIFO, prios[i]);
        sched_wake_task(&f->w, &running.t, 1.0 * MS, 3);
        world_run_until(&f->w, 200 * US);
        sched_wake_task(&f->w, &woken.t, 5.0 * US, 3);
        world_run_until(&f->w, 10 * MS);
        bool preempted = prios[i] > 50;
        assert_int_equal(woken.done_ns < running.done_ns, preempted);
        assert_int_equal(f->w.sched.nr_rt_preemptions, preempted);
        fx_free(f);
    }
}

/* A queue holding a fair task first and an RT task behind it runs the RT
 * one first (pick_next_task's class order): both woken onto an idle CPU in
 * that order. */
static void test_rt_picked_before_fair(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe fair = { 0 }, rt = { 0 };
    probe_pinned(&fair, 5, SCHED_POLICY_NORMAL, 0);
    probe_pinned(&rt, 5, SCHED_POLICY_FIFO, 10);
    sched_wake_task(&f->w, &fair.t, 100.0 * US, 5);
    sched_wake_task(&f->w, &rt.t, 100.0 * US, 5);
    world_run_until(&f->w, 10 * MS);
    assert_true(rt.done_ns > 0 && fair.done_ns > 0);
    assert_true(rt.done_ns < fair.done_ns);
    fx_free(f);
}

/* Two tasks of one RT priority on one CPU, 250 ms of work each, A first.
 * SCHED_FIFO: A runs to completion, then B. SCHED_RR: they take turns of
 * RR_TIMESLICE (100 ms at HZ 1000: 100 ticks), so A ends after 100 + 100 +
 * 100 + 100 + 50 ms and B 50 ms later. */
static void test_rr_slices(void **state)
{
    (void)state;
    for (int rr = 0; rr <= 1; rr++) {
        struct fx *f = fx_new(NULL, NULL);
        enum sched_policy pol = rr ? SCHED_POLICY_RR : SCHED_POLICY_FIFO;
        struct probe a = { 0 }, b = { 0 };
        probe_pinned(&a, 2, pol, 30);
        probe_pinned(&b, 2, pol, 30);
        assert_int_equal(f->w.sched.rr_timeslice_ns, 100 * MS);
        sched_wake_task(&f->w, &a.t, 250.0 * MS, 2);
        sched_wake_task(&f->w, &b.t, 250.0 * MS, 2);
        world_run_until(&f->w, 2000 * MS);
        sim_time_t a_ms = a.done_ns / MS, b_ms = b.done_ns / MS;
        if (rr) {
            assert_int_equal(a_ms, 450);
            assert_int_equal(b_ms, 500);
        } else {
            assert_int_equal(a_ms, 250);
            assert_int_equal(b_ms, 500);
        }
        fx_free(f);
    }
}

/* select_task_rq_rt: an RT task whose previous CPU (0) runs a better RT
 * task moves to the lowest-priority CPUs; cpu56 (cpu0's sibling) runs a
 * lower RT task, so the task goes to an idle CPU of cpu0's package, not to
 * 56; with cpu0 running only a fair task it stays on cpu0 and preempts it. */
static void test_rt_placement(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe hog0 = { 0 }, hog56 = { 0 }, p = { 0 };
    probe_pinned(&hog0, 0, SCHED_POLICY_FIFO, 90);
    probe_pinned(&hog56, 56, SCHED_POLICY_FIFO, 10);
    task_init(&p.t, probe_done, 0);
    task_set_scheduler(&p.t, SCHED_POLICY_FIFO, 50);
    sched_wake_task(&f->w, &hog0.t, 50.0 * MS, 0);
    sched_wake_task(&f->w, &hog56.t, 50.0 * MS, 56);
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &p.t, 10.0 * US, 0);
    world_run_until(&f->w, 2 * MS);
    assert_true(p.done_ns > 0);
    assert_int_not_equal(p.ran_on, 0);
    assert_int_not_equal(p.ran_on, 56);
    assert_int_equal(f->w.machine->cpus[p.ran_on].package, f->w.machine->cpus[0].package);
    fx_free(f);

    f = fx_new(NULL, NULL);
    struct probe fair0 = { 0 }, q = { 0 };
    probe_pinned(&fair0, 0, SCHED_POLICY_NORMAL, 0);
    task_init(&q.t, probe_done, 0);
    task_set_scheduler(&q.t, SCHED_POLICY_FIFO, 50);
    sched_wake_task(&f->w, &fair0.t, 50.0 * MS, 0);
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &q.t, 10.0 * US, 0);
    world_run_until(&f->w, 2 * MS);
    assert_int_equal(q.ran_on, 0);
    assert_int_equal(f->w.sched.nr_rt_preemptions, 1);
    fx_free(f);
}

/* The fair balancer leaves a queued RT task where it is: an RT task queued
 * behind a better RT task on cpu4 (both allowed everywhere, the better one
 * running) is not pulled by the idle CPUs; it runs on cpu4 after it. The
 * newly idle and periodic balancers would move a fair task there. */
static void test_balance_skips_rt(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe first = { 0 }, second = { 0 };
    probe_pinned(&first, 4, SCHED_POLICY_FIFO, 60);
    task_init(&second.t, probe_done, 4);
    task_set_scheduler(&second.t, SCHED_POLICY_FIFO, 60);
    sched_wake_task(&f->w, &first.t, 20.0 * MS, 4);
    world_run_until(&f->w, 100 * US);
    /* Pinned for its placement only: queued on cpu4 behind the first. */
    task_set_affinity(&second.t, 4);
    sched_wake_task(&f->w, &second.t, 1.0 * MS, 4);
    task_set_affinity(&second.t, -1);
    world_run_until(&f->w, 100 * MS);
    assert_int_equal(second.ran_on, 4);
    assert_true(second.done_ns > first.done_ns);
    fx_free(f);
}

/* adl-desktop with intel_pstate passive, whose default governor is schedutil. */
static struct fx *fx_new_schedutil(void)
{
    struct fx *f = fx_new_kernel_machine("machines/adl-desktop.ini", NULL, "intel_pstate=passive",
                                         NULL, false);
    assert_string_equal(cpufreq_governor_name(&f->w, 7), "schedutil");
    return f;
}

/* schedutil asks for the maximum while an RT task runs, though its util is
 * low (a 50 us task every 10 ms); a fair task of the same shape stays low. */
static void test_schedutil_rt_max(void **state)
{
    (void)state;
    for (int rt = 0; rt <= 1; rt++) {
        struct fx *f = fx_new_schedutil();
        struct probe p = { 0 };
        probe_pinned(&p, 7, rt ? SCHED_POLICY_FIFO : SCHED_POLICY_NORMAL, 50);
        uint32_t max_khz = f->w.cpufreq.policy[7].max_khz;
        uint32_t seen_khz = 0;
        for (int i = 0; i < 50; i++) {
            sched_wake_task(&f->w, &p.t, 50.0 * US, 7);
            world_run_until(&f->w, f->w.q.now_ns + 20 * US);
            uint32_t cur = f->w.cpufreq.policy[7].cur_khz;
            seen_khz = cur > seen_khz ? cur : seen_khz;
            world_run_until(&f->w, f->w.q.now_ns + 10 * MS);
        }
        if (rt)
            assert_int_equal(seen_khz, max_khz);
        else
            assert_true(seen_khz < max_khz);
        fx_free(f);
    }
}

/* Time t has run so far, its current run included. */
static sim_time_t ran_ns(const struct fx *f, const struct task *t)
{
    bool running = t->cpu >= 0 && f->w.sched.cpu[t->cpu].curr == t;
    return t->sum_exec_ns + (running ? f->w.q.now_ns - t->exec_start_ns : 0);
}

/* RT throttling: a SCHED_FIFO hog and a fair task share cpu3 for 1.2 s.
 * Before 6.12 the hog runs 950 ms of the period (to the tick after), then
 * its rt_rq is throttled and the fair task runs until the period timer
 * gives the runtime back; with RT_RUNTIME_SHARE (default before 5.10) the
 * hog borrows the other CPUs' unused runtime and is never throttled; nor
 * with sched_rt_runtime_us=-1 or the whole period. From 6.12 the fair
 * server runs the fair task for 50 ms at its zero-laxity time, 950 ms
 * after the fair task arrived, and not at all with runtime 0. */
/* skx-2s running kernel with sysfs writes, and on cpu3 a SCHED_FIFO 50 hog
 * (3 s of work) and a fair task (500 ms), both asleep. */
static struct fx *hog_and_fair(const char *kernel, const char *sysfs, struct probe *hog,
                               struct probe *fair)
{
    struct fx *f = fx_new_kernel_machine("machines/skx-2s.ini", kernel, NULL, sysfs, true);
    probe_pinned(hog, 3, SCHED_POLICY_FIFO, 50);
    probe_pinned(fair, 3, SCHED_POLICY_NORMAL, 0);
    return f;
}

static sim_time_t throttled_fair_ns(const char *kernel, const char *sysfs, uint64_t *throttles,
                                    uint64_t *boosts)
{
    struct probe hog = { 0 }, fair = { 0 };
    struct fx *f = hog_and_fair(kernel, sysfs, &hog, &fair);
    sched_wake_task(&f->w, &hog.t, 3000.0 * MS, 3);
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &fair.t, 500.0 * MS, 3);
    world_run_until(&f->w, 790 * MS);
    assert_int_equal(ran_ns(f, &fair.t), 0);   /* deferred (or throttled) to the end */
    world_run_until(&f->w, 1200 * MS);
    sim_time_t got = ran_ns(f, &fair.t);
    *throttles = f->w.sched.nr_rt_throttled;
    *boosts = f->w.sched.nr_fair_server_boosts;
    if (got > 0)   /* throttled once, then the hog runs again */
        assert_ptr_equal(f->w.sched.cpu[3].curr, &hog.t);
    fx_free(f);
    return got;
}

static void test_rt_throttling(void **state)
{
    (void)state;
    uint64_t n, b;
    sim_time_t ns = throttled_fair_ns("6.6", NULL, &n, &b);
    assert_int_equal(n, 1);
    assert_in_range(ns, 45 * MS, 50 * MS);   /* 1 s - 950 ms, less the tick it took */
    ns = throttled_fair_ns("5.4", "/sys/kernel/debug/sched_features=NO_RT_RUNTIME_SHARE", &n, &b);
    assert_in_range(ns, 45 * MS, 50 * MS);
    ns = throttled_fair_ns("6.6", "/proc/sys/kernel/sched_rt_runtime_us=800000", &n, &b);
    assert_in_range(ns, 195 * MS, 200 * MS);
    ns = throttled_fair_ns("6.12", NULL, &n, &b);
    assert_int_equal(n, 0);
    assert_int_equal(b, 1);
    assert_in_range(ns, 49 * MS, 50 * MS);
    ns = throttled_fair_ns("6.12", "/sys/kernel/debug/sched/fair_server/cpu3/runtime=200000000",
                           &n, &b);
    assert_in_range(ns, 199 * MS, 200 * MS);
    const char *none[][2] = { { "5.4", NULL },
                              { "6.6", "/proc/sys/kernel/sched_rt_runtime_us=-1" },
                              { "6.6", "/proc/sys/kernel/sched_rt_runtime_us=1000000" },
                              { "6.12", "/sys/kernel/debug/sched/fair_server/cpu3/runtime=0" } };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(throttled_fair_ns(none[i][0], none[i][1], &n, &b), 0);
        assert_int_equal(n + b, 0);
    }
}

/* 6.12: fair time used before the hog came moves the zero-laxity time on:
 * the fair task ran 20 ms, so the server runs it the last 30 ms of its
 * period (970-1000 ms), not from 950 ms. */
static void test_fair_server_zero_laxity(void **state)
{
    (void)state;
    struct probe hog = { 0 }, fair = { 0 };
    struct fx *f = hog_and_fair("6.12", NULL, &hog, &fair);
    sched_wake_task(&f->w, &fair.t, 500.0 * MS, 3);
    world_run_until(&f->w, 20 * MS);
    sched_wake_task(&f->w, &hog.t, 3000.0 * MS, 3);
    world_run_until(&f->w, 965 * MS);
    assert_in_range(ran_ns(f, &fair.t), 19 * MS, 20 * MS);
    world_run_until(&f->w, 1200 * MS);
    assert_in_range(ran_ns(f, &fair.t), 49 * MS, 50 * MS);
    assert_int_equal(f->w.sched.nr_fair_server_boosts, 1);
    fx_free(f);
}

/* 6.12: a restart late in the period starts a new one. F1 arrives at 1 ms
 * (deadline 1001 ms), runs 30 ms of its 50 ms from its zero-laxity time
 * (951 ms) and leaves; F2 arrives at 991 ms with 20 ms of runtime left and
 * 10 ms to the deadline: 20/10 overruns 50/1000 (dl_entity_overflow), so
 * a new period begins (deadline 1991 ms, deferred to 1941 ms) and the hog
 * keeps cpu3 until then; keeping the old deadline would run F2 over the
 * hog at once, for 20 ms. */
static void test_fair_server_late_restart(void **state)
{
    (void)state;
    struct probe hog = { 0 }, f1 = { 0 }, f2 = { 0 };
    struct fx *f = hog_and_fair("6.12", NULL, &hog, &f1);
    task_init(&f2.t, probe_done, 3);
    task_set_affinity(&f2.t, 3);
    sched_wake_task(&f->w, &hog.t, 3000.0 * MS, 3);
    world_run_until(&f->w, 1 * MS);
    sched_wake_task(&f->w, &f1.t, 30.0 * MS, 3);
    world_run_until(&f->w, 991 * MS);
    assert_true(f1.done_ns > 980 * MS && f1.done_ns < 982 * MS);
    sched_wake_task(&f->w, &f2.t, 100.0 * MS, 3);
    world_run_until(&f->w, 1500 * MS);
    assert_int_equal(ran_ns(f, &f2.t), 0);
    assert_int_equal(f->w.sched.nr_fair_server_boosts, 1);
    assert_ptr_equal(f->w.sched.cpu[3].curr, &hog.t);
    world_run_until(&f->w, 2000 * MS);
    assert_int_equal(f->w.sched.nr_fair_server_boosts, 2);
    assert_in_range(ran_ns(f, &f2.t), 49 * MS, 50 * MS);
    fx_free(f);
}

/* Alone, a throttled hog leaves its CPU idle for the rest of each period
 * before 6.12; the fair server (6.12) leaves it alone. */
static void test_rt_throttling_idles(void **state)
{
    (void)state;
    for (int fs = 0; fs < 2; fs++) {
        struct fx *f = fx_new_kernel_machine("machines/skx-2s.ini", fs ? "6.12" : "6.6", NULL,
                                             NULL, true);
        struct probe hog = { 0 };
        probe_pinned(&hog, 3, SCHED_POLICY_FIFO, 50);
        sched_wake_task(&f->w, &hog.t, 3000.0 * MS, 3);
        world_run_until(&f->w, 2100 * MS);
        assert_int_equal(f->w.sched.nr_rt_throttled, fs ? 0 : 2);
        sim_time_t ran = ran_ns(f, &hog.t);
        if (fs)   /* all but its wake-up */
            assert_in_range(ran, 2099 * MS, 2100 * MS);
        else      /* 950 + 950 + 100 ms, + 2 ticks */
            assert_in_range(ran, 2000 * MS, 2000 * MS + 10 * MS);
        assert_ptr_equal(f->w.sched.cpu[3].curr, &hog.t);
        fx_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rt_preempts_fair),
        cmocka_unit_test(test_rt_priority_order),
        cmocka_unit_test(test_rt_picked_before_fair),
        cmocka_unit_test(test_rr_slices),
        cmocka_unit_test(test_rt_placement),
        cmocka_unit_test(test_balance_skips_rt),
        cmocka_unit_test(test_schedutil_rt_max),
        cmocka_unit_test(test_rt_throttling),
        cmocka_unit_test(test_rt_throttling_idles),
        cmocka_unit_test(test_fair_server_zero_laxity),
        cmocka_unit_test(test_fair_server_late_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
