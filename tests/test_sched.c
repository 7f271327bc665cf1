/* Scheduler and hardware physics on skx-2s: exit latency before a task runs,
 * SMT co-run slowdown with re-timing of a running segment, placement
 * preferring an idle core, affinity to one CPU, the running task told of
 * tasks queued behind it, idle=poll, and energy of an idle machine. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "world_fixture.h"

/* skx-2s with cpuidle.off=1 (default_idle: HLT into C1), or idle=poll when
 * poll is true. spectre_v2=retpoline keeps kernel IBRS (and its sibling tax,
 * tested in test_idle.c) out. */
/* Wake-up path software at round values: the interrupt (IPI) 1 us, the
 * switch to the woken task 0.5 us. */
#define WAKE_IRQ_NS 1000
#define WAKE_SWITCH_NS 500
#define WAKE_KERNEL_NS (WAKE_IRQ_NS + WAKE_SWITCH_NS)
#define C1_EXIT_NS 2000

static const struct hw_calib wake_calib[] = {
    { "wake_irq_ns", WAKE_IRQ_NS },
    { "wake_switch_ns", WAKE_SWITCH_NS },
};

static struct fx *fixture_new(bool poll)
{
    return fx_new_calib(poll ? "spectre_v2=retpoline idle=poll"
                             : "spectre_v2=retpoline cpuidle.off=1",
                        NULL, wake_calib, 2);
}

/* A wakeup of an idle CPU pays C1's exit latency (2 us on SKX) first, then
 * the IPI and the switch to the task. */
static void test_exit_latency_then_run(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 3);
    sched_wake_task(&f->w, &p.t, 10000, p.t.prev_cpu);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(p.ran_on, 3);
    assert_int_equal(p.done_ns, C1_EXIT_NS + WAKE_KERNEL_NS + 10000);
    fx_free(f);
}

/* cpu0 and cpu56 are siblings (split numbering). A runs alone from 3.5 us;
 * B is woken on the sibling at 5 us: its exit (to 7 us) leaves A alone, its
 * wake-up path (to 8.5 us) already runs beside A, slowing A to 0.62; B then
 * runs at 0.62 until A finishes and speeds up again. Both segments are
 * re-timed, not restarted. */
static void test_smt_corun_retime(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    double k = hw_machine_calib(f->m, "smt_corun_factor");
    assert_int_equal(hw_thread_sibling(&f->w.hw, 0), 56);
    struct probe a = { 0 }, b = { 0 };
    task_init(&a.t, probe_done, 0);
    task_init(&b.t, probe_done, 56);
    sched_wake_task(&f->w, &a.t, 10000, a.t.prev_cpu);
    world_run_until(&f->w, 5000);
    sched_wake_task(&f->w, &b.t, 10000, b.t.prev_cpu);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(b.ran_on, 56);
    double a_start = C1_EXIT_NS + WAKE_KERNEL_NS;
    double b_kernel = 5000 + C1_EXIT_NS, b_start = b_kernel + WAKE_KERNEL_NS;
    double a_end = b_kernel + (10000 - (b_kernel - a_start)) / k;
    double b_done_at_a_end = (a_end - b_start) * k; /* B's work while co-running */
    double b_end = a_end + (10000 - b_done_at_a_end);
    assert_true(fabs((double)a.done_ns - a_end) <= 2);
    assert_true(fabs((double)b.done_ns - b_end) <= 3);
    fx_free(f);
}

/* SMT4 (tests/data/machines/smt4.ini, core 0 = CPUs 0-3): cpu0's speed with
 * n of its core's threads running is smt_corun_factor per doubling of n (1,
 * k, k^log2(3), k^2), so four busy threads give the core 4 k^2 = 1.54x one;
 * a polling sibling costs smt_poll_factor as on SMT2. */
static void test_smt4_corun(void **state)
{
    (void)state;
    struct fx *f = fx_new_machine("tests/data/machines/smt4.ini", NULL, "cpuidle.off=1", NULL,
                                  NULL, 0);
    struct hw_state *hw = &f->w.hw;
    double k = hw_machine_calib(f->m, "smt_corun_factor");
    double poll = hw_machine_calib(f->m, "smt_poll_factor");
    for (int cpu = 0; cpu < 4; cpu++)
        hw->thr[cpu].mode = HW_THREAD_IDLE;
    hw->thr[0].mode = HW_THREAD_RUN;
    double alone = hw_thread_speed(hw, 0);
    const double want[] = { 1, k, pow(k, log2(3)), k * k };
    for (int n = 2; n <= 4; n++) {
        hw->thr[n - 1].mode = HW_THREAD_RUN;
        assert_float_equal(hw_thread_speed(hw, 0) / alone, want[n - 1], 1e-12);
    }
    hw->thr[3].mode = HW_THREAD_POLL;
    assert_float_equal(hw_thread_speed(hw, 0) / alone, pow(k, log2(3)) * poll, 1e-12);
    fx_free(f);
}

/* prev busy: the wakeup goes to a CPU of a fully idle core in the same
 * package, not to prev's idle sibling. */
static void test_placement_prefers_idle_core(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    struct probe a = { 0 }, b = { 0 };
    task_init(&a.t, probe_done, 0);
    task_init(&b.t, probe_done, 0);
    sched_wake_task(&f->w, &a.t, 100000, a.t.prev_cpu);
    sched_wake_task(&f->w, &b.t, 100000, b.t.prev_cpu);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(a.ran_on, 0);
    assert_int_not_equal(b.ran_on, 56);
    assert_int_equal(f->m->cpus[b.ran_on].package, 0);
    assert_int_equal(b.ran_on, 1);
    fx_free(f);
}

/* Affinity to one CPU: a second task pinned to busy cpu0 queues there instead
 * of going to an idle core, and cpu1 going newly idle does not pull it. */
static void test_pinned_task_waits_for_its_cpu(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    struct probe a = { 0 }, b = { 0 }, c = { 0 };
    task_init(&a.t, probe_done, 0);
    task_init(&b.t, probe_done, 0);
    task_init(&c.t, probe_done, 1);
    task_set_affinity(&a.t, 0);
    task_set_affinity(&b.t, 0);
    assert_true(task_allowed_on(&b.t, 0));
    assert_false(task_allowed_on(&b.t, 1));
    sched_wake_task(&f->w, &a.t, 100000, a.t.prev_cpu);
    sched_wake_task(&f->w, &b.t, 100000, b.t.prev_cpu);
    sched_wake_task(&f->w, &c.t, 10000, c.t.prev_cpu);   /* cpu1 idles again at 13.5 us */
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(c.ran_on, 1);
    assert_int_equal(c.done_ns, C1_EXIT_NS + WAKE_KERNEL_NS + 10000);
    assert_int_equal(b.ran_on, 0);
    assert_int_equal(b.done_ns, C1_EXIT_NS + WAKE_KERNEL_NS + 100000 + 100000);
    assert_int_equal(f->w.sched.nr_pulls, 0);
    fx_free(f);
}

struct watcher {
    struct probe p;
    int told;       /* rq_grew calls */
};

static void watcher_rq_grew(struct world *w, struct task *t)
{
    (void)w;
    ((struct watcher *)t)->told++;
}

/* The running task's rq_grew hook hears of every task queued on its CPU, by
 * a wakeup or a migration, and of nothing else: not a wakeup of an idle CPU,
 * not a task queued elsewhere. single_task_running() follows the queue. */
static void test_running_task_told_of_queued(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    struct watcher a = { 0 };
    struct probe b = { 0 }, c = { 0 };
    task_init(&a.p.t, probe_done, 0);
    a.p.t.rq_grew = watcher_rq_grew;
    task_set_affinity(&a.p.t, 0);
    task_init(&b.t, probe_done, 0);
    task_set_affinity(&b.t, 0);
    task_init(&c.t, probe_done, 1);
    sched_wake_task(&f->w, &a.p.t, 100000, a.p.t.prev_cpu);
    assert_true(sched_single_task_running(&f->w, 0, &a.p.t));
    assert_false(sched_single_task_running(&f->w, 0, &b.t));
    world_run_until(&f->w, 10000);     /* a runs on cpu0 from 3.5 us */
    sched_wake_task(&f->w, &c.t, 50000, c.t.prev_cpu); /* onto idle cpu1 */
    world_run_until(&f->w, 20000);
    assert_int_equal(a.told, 0);
    assert_true(sched_single_task_running(&f->w, 0, &a.p.t));
    sched_wake_task(&f->w, &b.t, 10000, b.t.prev_cpu);
    assert_int_equal(a.told, 1);
    assert_false(sched_single_task_running(&f->w, 0, &a.p.t));
    assert_true(sched_single_task_running(&f->w, 1, &c.t));
    sched_migrate_running(&f->w, 1, 0); /* c queued behind a too */
    assert_int_equal(a.told, 2);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(a.p.done_ns, C1_EXIT_NS + WAKE_KERNEL_NS + 100000); /* the hook only listens */
    assert_int_equal(c.ran_on, 0);
    fx_free(f);
}

/* idle=poll: no exit latency and no IPI (the poller sees need_resched), only
 * the switch; the polling sibling costs smt_poll_factor. */
static void test_idle_poll(void **state)
{
    (void)state;
    struct fx *f = fixture_new(true);
    double k = hw_machine_calib(f->m, "smt_poll_factor");
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 3);
    sched_wake_task(&f->w, &p.t, 10000, p.t.prev_cpu);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_true(fabs((double)p.done_ns - (WAKE_SWITCH_NS + 10000 / k)) <= 1);
    fx_free(f);
}

/* An idle machine for 1 ms: every core in C1, power = ncores x C1 power (up
 * to the few housekeeping-timer wakeups: ~8.5 per CPU per second). */
static void test_idle_energy(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    world_measure_reset(&f->w);
    world_run_until(&f->w, SIM_NS_PER_MS);
    double c1_w = f->m->types[0].cstates[0].core_power_mw / 1000.0;
    double core_w = fx_metric(f, "core_watts");
    assert_true(core_w >= f->m->ncores * c1_w && core_w < f->m->ncores * c1_w * 1.001);
    assert_float_equal(fx_metric(f, "pkg_watts") - core_w,
                       f->m->packages * f->m->pkg_active_power_mw / 1000.0, 1e-9);
    assert_float_equal(fx_metric(f, "core_residency.C1"), 100, 0.05);
    assert_float_equal(fx_metric(f, "pkg_residency.PC6"), 0, 1e-12);
    /* Busy: only the timers' interrupts (1 us each). */
    assert_true(fx_metric(f, "busy_pct") < 0.01);
    assert_float_equal(fx_metric(f, "residency.C1"), 100, 0.05);
    fx_free(f);
}

/* A task whose completion wakes another: the waker is still current while
 * its done() runs, so the wakee (whose last CPU is the waker's) goes to an
 * idle core instead of queueing on the busy CPU or landing on it as if it
 * were idle. */
struct chain {
    struct probe p;
    struct probe *next;
};

static void chain_done(struct world *w, struct task *t)
{
    struct chain *c = (struct chain *)t;
    probe_done(w, t);
    assert_int_equal(w->sched.cpu[t->prev_cpu].curr, t);
    assert_false(sched_cpu_idle(w, t->prev_cpu));
    sched_wake_task(w, &c->next->t, 10000, c->next->t.prev_cpu);
}

static void test_waker_is_current_in_done(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    struct chain a = { 0 };
    struct probe b = { 0 };
    task_init(&a.p.t, chain_done, 5);
    task_init(&b.t, probe_done, 5);
    a.next = &b;
    sched_wake_task(&f->w, &a.p.t, 10000, a.p.t.prev_cpu);
    uint64_t idle_wakeups = f->w.sched.nr_idle_wakeups;
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(a.p.ran_on, 5);
    assert_int_not_equal(b.ran_on, 5);
    assert_int_not_equal(b.ran_on, hw_thread_sibling(&f->w.hw, 5));
    /* b's CPU was woken from idle (exit, IPI, switch), not cpu5. */
    assert_int_equal(f->w.sched.nr_idle_wakeups, idle_wakeups + 1);
    assert_int_equal(b.done_ns, a.p.done_ns + C1_EXIT_NS + WAKE_KERNEL_NS + 10000);
    fx_free(f);
}

/* A task that gives itself more work from its own done() goes on where it
 * ran: it never slept, so nothing is placed and no CPU is woken. */
struct repeater {
    struct probe p;
    int left;
};

static void repeater_done(struct world *w, struct task *t)
{
    struct repeater *r = (struct repeater *)t;
    probe_done(w, t);
    if (--r->left > 0)
        sched_wake_task(w, t, 10000, t->prev_cpu);
}

static void test_self_rewake_stays(void **state)
{
    (void)state;
    struct fx *f = fixture_new(false);
    struct repeater r = { .left = 3 };
    task_init(&r.p.t, repeater_done, 7);
    sched_wake_task(&f->w, &r.p.t, 10000, r.p.t.prev_cpu);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(r.p.ran_on, 7);
    assert_int_equal(r.p.done_ns, C1_EXIT_NS + WAKE_KERNEL_NS + 3 * 10000);
    assert_int_equal(f->w.sched.nr_idle_wakeups, 1);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_latency_then_run),
        cmocka_unit_test(test_smt_corun_retime),
        cmocka_unit_test(test_smt4_corun),
        cmocka_unit_test(test_placement_prefers_idle_core),
        cmocka_unit_test(test_pinned_task_waits_for_its_cpu),
        cmocka_unit_test(test_running_task_told_of_queued),
        cmocka_unit_test(test_idle_poll),
        cmocka_unit_test(test_idle_energy),
        cmocka_unit_test(test_waker_is_current_in_done),
        cmocka_unit_test(test_self_rewake_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
