/* RCU callbacks and grace periods (kernel/rcu/tree.h): the grace period's
 * length by HZ and CPU count, a CPU with callbacks keeping its tick until
 * they run, callbacks queued during a grace period waiting for the next,
 * and rcu_nocbs= moving them to an rcuo kthread elsewhere. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/exit.h"
#include "world_fixture.h"

#define MS SIM_NS_PER_MS
#define RPL "machines/rpl-h.ini"   /* 16 CPUs */

/* rpl-h at HZ=250 (a 4 ms tick, jiffies_till_first_fqs 1) on kernel 6.9. */
static struct fx *rcu_new(const char *cmdline)
{
    struct fx *f = fx_new_machine(RPL, "CONFIG_HZ=250", cmdline, NULL, NULL, 0);
    assert_int_equal(kversion_parse("6.9", &f->kp.kernel), 0);
    world_destroy(&f->w);
    struct world_key key = { .seed = 3 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

/* A thread that runs once and exits (release_task). */
static void exiter_done(struct world *w, struct task *t)
{
    release_task(w, t);
}

static void exit_on(struct fx *f, struct task *t, int cpu, double work_ns)
{
    task_init(t, exiter_done, cpu);
    task_set_affinity(t, cpu);
    sched_wake_task(&f->w, t, work_ns, cpu);
}

/* rcu_init_geometry: 1 + (HZ > 250) + (HZ > 500) + nr_cpu_ids / 256. */
static void test_jiffies_till_first_fqs(void **state)
{
    (void)state;
    assert_int_equal(rcu_jiffies_till_first_fqs(250, 112), 1);
    assert_int_equal(rcu_jiffies_till_first_fqs(300, 16), 2);
    assert_int_equal(rcu_jiffies_till_first_fqs(1000, 16), 3);
    assert_int_equal(rcu_jiffies_till_first_fqs(1000, 512), 5);
    struct fx *f = rcu_new(NULL);
    assert_int_equal(f->w.rcu.gp_ns, 4 * MS);
    fx_free(f);
    /* The boot parameter sets it, capped at HZ jiffies. */
    f = rcu_new("rcutree.jiffies_till_first_fqs=7");
    assert_int_equal(f->w.rcu.gp_ns, 28 * MS);
    fx_free(f);
    f = rcu_new("rcutree.jiffies_till_first_fqs=100000");
    assert_int_equal(f->w.rcu.gp_ns, 250 * 4 * MS);
    fx_free(f);
}

/* A thread exits on idle CPU 4 at ~1 ms: its two callbacks keep CPU 4's
 * tick. The tick at 4 ms requests the grace period; its FQS timeout of one
 * jiffy fires a jiffy late, at 12 ms; the tick at 12 or 16 ms invokes
 * them, and then the tick stops. Without the exit the idle CPU stops its
 * tick at once. */
static void test_callbacks_keep_the_tick(void **state)
{
    (void)state;
    struct fx *f = rcu_new(NULL);
    struct task t;
    exit_on(f, &t, 4, 1.0 * MS);
    world_run_until(&f->w, 6 * MS);
    const struct rcu_data *rdp = &f->w.rcu.rdp[4];
    assert_true(rcu_needs_cpu(&f->w, 4));
    assert_true(f->w.rcu.gp_active);
    assert_int_equal(rdp->n_wait, 2);
    assert_int_equal(rdp->wait_seq, 1);
    assert_int_equal(rdp->nr_invoked, 0);
    world_run_until(&f->w, 12 * MS - 1);
    assert_int_equal(rdp->nr_invoked, 0);
    assert_true(f->w.rcu.gp_active);
    world_run_until(&f->w, 17 * MS);
    assert_int_equal(rdp->nr_invoked, 2);
    assert_false(rcu_needs_cpu(&f->w, 4));
    assert_int_equal(f->w.rcu.completed, 1);
    uint64_t ticks = f->w.idle.cpu[4].nr_wake[IDLE_WAKE_TICK];
    assert_in_range(ticks, 3, 4);
    assert_in_range(rdp->nr_ticks_held, 3, 4);
    world_run_until(&f->w, 1000 * MS);
    assert_int_equal(f->w.idle.cpu[4].nr_wake[IDLE_WAKE_TICK], ticks);
    fx_free(f);

    f = rcu_new(NULL);
    struct probe p;
    task_init(&p.t, probe_done, 4);
    task_set_affinity(&p.t, 4);
    sched_wake_task(&f->w, &p.t, 1.0 * MS, 4);
    world_run_until(&f->w, 1000 * MS);
    assert_int_equal(f->w.idle.cpu[4].nr_wake[IDLE_WAKE_TICK], 0);
    assert_int_equal(f->w.rcu.rdp[4].nr_queued, 0);
    fx_free(f);
}

/* rcu_accelerate_cbs: a callback queued while grace period 1 runs needs
 * grace period 2 (rcu_seq_snap), which starts when 1 ends (needgp); each
 * batch is invoked after its own. */
static void test_callback_during_gp_waits_for_the_next(void **state)
{
    (void)state;
    struct fx *f = rcu_new(NULL);
    struct world *w = &f->w;
    struct rcu_data *rdp = &w->rcu.rdp[5];
    /* CPU 5 runs a task: its busy tick (every 4 ms) drives RCU. */
    struct probe p;
    task_init(&p.t, probe_done, 5);
    task_set_affinity(&p.t, 5);
    sched_wake_task(w, &p.t, 100.0 * MS, 5);
    call_rcu(w, 5, 1);
    assert_int_equal(rcu_sched_clock_irq(w, 5, false), 0);
    assert_true(w->rcu.gp_active);
    assert_int_equal(rdp->wait_seq, 1);
    call_rcu(w, 5, 3);
    rcu_sched_clock_irq(w, 5, false);
    assert_int_equal(rdp->n_wait, 1);
    assert_int_equal(rdp->n_next_ready, 3);
    assert_int_equal(rdp->next_ready_seq, 2);
    assert_true(w->rcu.gp_needed);
    /* Grace period 1 runs from 0 to 8 ms (jiffy 0 + 1, a jiffy late),
     * grace period 2 from 8 to 16 ms. */
    world_run_until(w, 8 * MS - 1);
    assert_int_equal(w->rcu.completed, 0);
    world_run_until(w, 16 * MS - 1);
    assert_int_equal(w->rcu.completed, 1);
    assert_true(w->rcu.gp_active);
    assert_int_equal(rdp->nr_invoked, 1);
    world_run_until(w, 21 * MS);
    assert_int_equal(w->rcu.completed, 2);
    assert_int_equal(rdp->nr_invoked, 4);
    assert_false(w->rcu.gp_active);
    assert_false(rcu_needs_cpu(w, 5));
    fx_free(f);
}

/* nohz_full=4-7 implies rcu_nocbs=4-7: a thread's exit on CPU 4 wakes
 * CPU 4's rcuo kthread on a housekeeping CPU, which requests the grace
 * period; CPU 4 keeps no tick for it; the kthread runs the callbacks there
 * when the grace period ends. */
static void test_nocb_callbacks_run_elsewhere(void **state)
{
    (void)state;
    struct fx *f = rcu_new("nohz_full=4-7");
    struct task t;
    exit_on(f, &t, 4, 1.0 * MS);
    world_run_until(&f->w, 1000 * MS);
    const struct rcu_data *rdp = &f->w.rcu.rdp[4];
    assert_true(rdp->offloaded);
    assert_false(rcu_needs_cpu(&f->w, 4));
    assert_int_equal(rdp->nr_queued, 2);
    assert_int_equal(rdp->nr_invoked, 2);
    assert_int_equal(rdp->nr_ticks_held, 0);
    assert_int_equal(f->w.idle.cpu[4].nr_wake[IDLE_WAKE_TICK], 0);
    int ran_on = rdp->nocb_kthread.prev_cpu;
    assert_true(ran_on < 4 || ran_on > 7);
    assert_int_equal(f->w.rcu.completed, 1);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jiffies_till_first_fqs),
        cmocka_unit_test(test_callbacks_keep_the_tick),
        cmocka_unit_test(test_callback_during_gp_waits_for_the_next),
        cmocka_unit_test(test_nocb_callbacks_run_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
