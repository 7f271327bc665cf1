/* The fair class's order (kernel/sched/fair.c, src/kernel/sched/fair_entity.c)
 * by kernel version: EEVDF from v6.6, CFS before. On skx-2s (112 CPUs, so
 * the tunables are scaled by 4: base_slice 3 ms; sched_latency 24 ms,
 * min_granularity 3 ms, wakeup_granularity 4 ms), one CPU shared by tasks
 * pinned to it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define US 1000LL
#define MS 1000000LL

/* skx-2s running kernel version `kernel`, with sysfs writes (NULL: none). */
static struct fx *fx_new_kernel_sysfs(const char *kernel, const char *sysfs)
{
    return fx_new_kernel_machine("machines/skx-2s.ini", kernel, NULL, sysfs, true);
}

static struct fx *fx_new_kernel(const char *kernel)
{
    return fx_new_kernel_sysfs(kernel, NULL);
}

static void probe_on(struct probe *p, int cpu)
{
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
}

/* The tunables and which scheduler each version runs. */
static void test_tunables(void **state)
{
    (void)state;
    struct fx *f = fx_new_kernel("6.6");
    assert_true(f->w.sched.eevdf);
    assert_int_equal(f->w.sched.base_slice_ns, 3 * MS);
    fx_free(f);
    f = fx_new_kernel("6.5");
    assert_false(f->w.sched.eevdf);
    assert_int_equal(f->w.sched.sched_latency_ns, 24 * MS);
    assert_int_equal(f->w.sched.min_granularity_ns, 3 * MS);
    assert_int_equal(f->w.sched.wakeup_granularity_ns, 4 * MS);
    fx_free(f);
    /* Written values replace the scaled defaults; the RR slice is rounded
     * up to whole ticks (10 ms at 250 Hz: 3 jiffies). */
    f = fx_new_kernel_sysfs("6.6", "/sys/kernel/debug/sched/base_slice_ns=1000000 "
                                   "/proc/sys/kernel/sched_rr_timeslice_ms=10");
    assert_int_equal(f->w.sched.base_slice_ns, 1 * MS);
    assert_int_equal(f->w.sched.rr_timeslice_ns, 12 * MS);
    fx_free(f);
}

/* A 5 us task woken at 2 ms onto a CPU whose task (10 ms of work) started at
 * 0. EEVDF: the running task is eligible and within its first slice
 * (RUN_TO_PARITY), so the wakee waits for the tick at which that slice
 * (3 ms) is over, then runs ahead of it (an earlier deadline). CFS: the
 * running task leads the wakee by 2 ms, less than wakeup_granularity, and
 * its ideal slice (12 ms) outlasts its work: the wakee waits to the end. */
static void test_wakee_waits_for_slice(void **state)
{
    (void)state;
    for (int eevdf = 0; eevdf <= 1; eevdf++) {
        struct fx *f = fx_new_kernel(eevdf ? "6.6" : "6.1");
        struct probe big = { 0 }, small = { 0 };
        probe_on(&big, 3);
        probe_on(&small, 3);
        sched_wake_task(&f->w, &big.t, 10.0 * MS, 3);
        world_run_until(&f->w, 2 * MS);
        sched_wake_task(&f->w, &small.t, 5.0 * US, 3);
        world_run_until(&f->w, 30 * MS);
        sim_time_t tick = f->w.idle.tick_period_ns;
        if (eevdf) {
            assert_true(small.done_ns >= 3 * MS);
            assert_true(small.done_ns < 3 * MS + tick + 50 * US);
            assert_true(small.done_ns < big.done_ns);
            assert_int_equal(f->w.sched.nr_slice_preemptions, 1);
        } else {
            assert_true(small.done_ns > big.done_ns);
        }
        assert_int_equal(f->w.sched.nr_preemptions, 0);
        fx_free(f);
    }
}

/* CFS: a task that slept long is placed half a sched_latency (12 ms) behind
 * min_vruntime (GENTLE_FAIR_SLEEPERS); woken at 20 ms onto a CPU whose task
 * has run 20 ms, it leads by 12 ms > wakeup_granularity and preempts at
 * once (after the interrupt and the switch). */
static void test_cfs_sleeper_preempts(void **state)
{
    (void)state;
    struct fx *f = fx_new_kernel("6.1");
    struct probe big = { 0 }, small = { 0 };
    probe_on(&big, 3);
    probe_on(&small, 3);
    sched_wake_task(&f->w, &big.t, 50.0 * MS, 3);
    world_run_until(&f->w, 20 * MS);
    sim_time_t woken = f->w.q.now_ns;
    fair_update_curr(&f->w, 3);
    sim_time_t min_vruntime = f->w.sched.cpu[3].min_vruntime;
    assert_int_equal(min_vruntime, big.t.vruntime);
    sched_wake_task(&f->w, &small.t, 5.0 * US, 3);
    assert_int_equal(small.t.vruntime, min_vruntime - 12 * MS);
    world_run_until(&f->w, 100 * MS);
    assert_true(small.done_ns - woken < 20 * US);
    assert_int_equal(f->w.sched.nr_preemptions, 1);
    fx_free(f);
}

/* Two 30 ms tasks woken together on one CPU share it: neither runs to
 * completion first (that would end the first at 30 ms). EEVDF switches at
 * every tick past a 3 ms slice (skx-2s ticks at 250 Hz: every 4 ms), CFS
 * at the first tick past a 12 ms ideal slice (16 ms). */
static void test_cpu_shared_by_slices(void **state)
{
    (void)state;
    for (int eevdf = 0; eevdf <= 1; eevdf++) {
        struct fx *f = fx_new_kernel(eevdf ? "6.6" : "6.1");
        struct probe a = { 0 }, b = { 0 };
        probe_on(&a, 2);
        probe_on(&b, 2);
        sched_wake_task(&f->w, &a.t, 30.0 * MS, 2);
        sched_wake_task(&f->w, &b.t, 30.0 * MS, 2);
        world_run_until(&f->w, 200 * MS);
        sim_time_t first = a.done_ns < b.done_ns ? a.done_ns : b.done_ns;
        sim_time_t last = a.done_ns > b.done_ns ? a.done_ns : b.done_ns;
        assert_int_equal(f->w.idle.tick_period_ns, 4 * MS);
        assert_true(first > 44 * MS);
        assert_true(last < 61 * MS);
        uint64_t switches = f->w.sched.nr_slice_preemptions;
        if (eevdf)
            assert_in_range(switches, 12, 15);   /* every tick */
        else
            assert_in_range(switches, 2, 3);     /* every 16 ms */
        fx_free(f);
    }
}

/* EEVDF's lag: a task that leaves having run less than its share (V above
 * its vruntime) comes back ahead of V by that lag, scaled by (n + 1) / n;
 * one that leaves having run more comes back behind. The lag is bounded by
 * two slices (6 ms here). */
static void test_eevdf_lag(void **state)
{
    (void)state;
    struct fx *f = fx_new_kernel("6.6");
    struct task t;
    task_init(&t, NULL, 4);
    struct probe hog = { 0 };
    probe_on(&hog, 4);
    sched_wake_task(&f->w, &hog.t, 100.0 * MS, 4);
    world_run_until(&f->w, 10 * MS);
    fair_update_curr(&f->w, 4);
    t.vlag = 1 * MS;
    fair_place_entity(&f->w, 4, &t, FAIR_ENQUEUE_WAKEUP);
    assert_int_equal(t.vruntime, hog.t.vruntime - 2 * MS);   /* lag x (1 + 1) / 1 */
    assert_int_equal(t.deadline, t.vruntime + 3 * MS);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tunables),
        cmocka_unit_test(test_wakee_waits_for_slice),
        cmocka_unit_test(test_cfs_sleeper_preempts),
        cmocka_unit_test(test_cpu_shared_by_slices),
        cmocka_unit_test(test_eevdf_lag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
