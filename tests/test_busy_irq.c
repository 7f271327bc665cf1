/* Interrupts on a busy CPU (sched_irq_on_busy, kernel/sched/core.c): the
 * tick's handler and a device's or timer's handler with its softirqs run
 * in the running task's time, so a CPU-bound task finishes later by their
 * cost; a nohz_full CPU with one task takes no tick and loses nothing; an
 * RT wake-up that preempts waits for a handler already running. On rpl-h
 * at HZ 250 with cpufreq off (exact timings at base frequency) and no
 * background interrupts unless a test adds them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define RPL "machines/rpl-h.ini"
#define WORK_NS (100 * SIM_NS_PER_MS)

static struct fx *busy_new(const char *cmdline, const struct hw_calib *calib, int n)
{
    struct fx *f = fx_new_machine(RPL, "CONFIG_HZ=250", cmdline, NULL, calib, n);
    for (int cpu = 0; cpu < f->m->ncpus; cpu++)
        idle_set_irq_rates(&f->w, cpu, 0, 0);
    return f;
}

/* A task pinned to cpu with WORK_NS of work on the reference core. */
static void run_pinned(struct fx *f, struct probe *p, int cpu)
{
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    sched_wake_task(&f->w, &p->t, (double)WORK_NS, cpu);
}

/* The same 100 ms task on CPU 1 and on CPU 2 (two idle P-cores): without
 * nohz_full both take about 25 ticks and finish together. */
static void test_tick_handlers_symmetric(void **state)
{
    (void)state;
    struct fx *f = busy_new(NULL, NULL, 0);
    struct probe a = { 0 }, b = { 0 };
    run_pinned(f, &a, 2);
    run_pinned(f, &b, 1);
    world_run_until(&f->w, f->w.q.now_ns + 2 * WORK_NS);
    uint64_t ia = f->w.sched.cpu[2].nr_busy_irqs, ib = f->w.sched.cpu[1].nr_busy_irqs;
    assert_in_range(ia, 24, 26);
    assert_in_range(ib, 24, 26);
    sim_time_t gap = b.done_ns - a.done_ns;
    sim_time_t want = ((sim_time_t)ib - (sim_time_t)ia) * f->w.idle.wake_irq_ns;
    assert_true(gap >= want - 2 && gap <= want + 2);
    fx_free(f);
}

/* nohz_full=2-3: the only task on CPU 2 runs without a tick (the residual
 * one is sched_tick_remote's, on a housekeeping CPU), so nothing is taken
 * from it; the same task on housekeeping CPU 1 finishes later by exactly
 * its ticks' handlers (wake_irq_ns each). */
static void test_nohz_full_takes_no_tick(void **state)
{
    (void)state;
    struct fx *f = busy_new("nohz_full=2-3", NULL, 0);
    struct probe a = { 0 }, b = { 0 };
    run_pinned(f, &a, 2);
    run_pinned(f, &b, 1);
    world_run_until(&f->w, f->w.q.now_ns + 2 * WORK_NS);
    assert_int_equal(f->w.sched.cpu[2].nr_busy_irqs, 0);
    uint64_t ib = f->w.sched.cpu[1].nr_busy_irqs;
    assert_in_range(ib, 24, 26);
    sim_time_t gap = b.done_ns - a.done_ns;
    sim_time_t want = (sim_time_t)ib * f->w.idle.wake_irq_ns;
    assert_true(gap >= want - 2 && gap <= want + 2);
    fx_free(f);
}

/* A device interrupt on the busy CPU: its handler and the softirq it
 * raised (wake_irq_ns + softirq_ns) delay the running task by their sum. */
static void test_device_irq_on_busy_cpu(void **state)
{
    (void)state;
    const struct hw_calib calib[] = { { "softirq_ns", 3000 } };
    struct fx *f = busy_new("nohz_full=2-3", calib, 1);   /* no tick to confound */
    struct probe p = { 0 };
    run_pinned(f, &p, 2);
    world_run_until(&f->w, f->w.q.now_ns + 10 * SIM_NS_PER_MS);
    sim_time_t before = p.t.done_ev.when_ns;
    idle_device_interrupt(&f->w, 2);
    sim_time_t after = p.t.done_ev.when_ns;
    assert_true(after - before >= f->w.idle.wake_irq_ns + 3000 - 1 &&
                after - before <= f->w.idle.wake_irq_ns + 3000 + 1);
    assert_int_equal(f->w.sched.cpu[2].nr_busy_irqs, 1);
    fx_free(f);
}

/* An RT wake-up that preempts a fair task while a 20 us handler runs
 * starts after the handler, the interrupt and the switch. */
static void test_rt_preemption_waits_for_handler(void **state)
{
    (void)state;
    struct fx *f = busy_new("nohz_full=2-3", NULL, 0);
    struct probe fair = { 0 }, rt = { 0 };
    run_pinned(f, &fair, 2);
    world_run_until(&f->w, f->w.q.now_ns + 10 * SIM_NS_PER_MS);
    sched_irq_on_busy(&f->w, 2, 20 * SIM_NS_PER_US);
    task_init(&rt.t, probe_done, 2);
    task_set_affinity(&rt.t, 2);
    task_set_scheduler(&rt.t, SCHED_POLICY_FIFO, 50);
    sim_time_t woke = f->w.q.now_ns;
    sched_wake_task(&f->w, &rt.t, 1.0, 2);
    world_run_until(&f->w, woke + SIM_NS_PER_MS);
    sim_time_t want = woke + 20 * SIM_NS_PER_US + f->w.idle.wake_irq_ns + f->w.idle.wake_switch_ns;
    assert_true(rt.done_ns >= want && rt.done_ns <= want + 2);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tick_handlers_symmetric),
        cmocka_unit_test(test_nohz_full_takes_no_tick),
        cmocka_unit_test(test_device_irq_on_busy_cpu),
        cmocka_unit_test(test_rt_preemption_waits_for_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
