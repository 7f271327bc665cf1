/* Scheduler and hardware physics on skx-2s: exit latency before a task runs,
 * SMT co-run slowdown with re-timing of a running segment, placement
 * preferring an idle core, idle=poll, and energy of an idle machine. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "world.h"

struct fixture {
    struct hw_machine *m;
    struct kparams kp;
    struct world w;
};

struct probe {
    struct task t;
    sim_time_t done_ns;
    int ran_on;
};

static void probe_done(struct world *w, struct task *t)
{
    struct probe *p = (struct probe *)t;
    p->done_ns = w->q.now_ns;
    p->ran_on = t->prev_cpu;
}

/* A world on skx-2s with cpuidle.off=1 (default_idle: HLT into C1) unless
 * cmdline_word is given (then word=poll, i.e. idle=poll). spectre_v2=retpoline
 * keeps kernel IBRS (and its sibling tax, tested in test_idle.c) out. */
static struct fixture *fixture_new(const char *cmdline_word)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load("machines/skx-2s.ini", &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    kparams_init(&f->kp);
    assert_int_equal(kparams_set_cmdline(&f->kp, "spectre_v2", "retpoline", "t", 1, &d), 0);
    if (cmdline_word)
        assert_int_equal(kparams_set_cmdline(&f->kp, cmdline_word, "poll", "t", 1, &d), 0);
    else
        assert_int_equal(kparams_set_cmdline(&f->kp, "cpuidle.off", "1", "t", 1, &d), 0);
    struct world_key key = { .seed = 1 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

static void fixture_free(struct fixture *f)
{
    world_destroy(&f->w);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

/* A wakeup of an idle CPU pays C1's exit latency (2 us on SKX) first. */
static void test_exit_latency_then_run(void **state)
{
    (void)state;
    struct fixture *f = fixture_new(NULL);
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 3);
    sched_wake_task(&f->w, &p.t, 10000);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(p.ran_on, 3);
    assert_int_equal(p.done_ns, 2000 + 10000);
    fixture_free(f);
}

/* cpu0 and cpu56 are siblings (split numbering). A runs alone from 2 us; B
 * starts on the sibling at 7 us, slowing both to 0.62; A finishes, B speeds
 * up again. Both segments are re-timed, not restarted. */
static void test_smt_corun_retime(void **state)
{
    (void)state;
    struct fixture *f = fixture_new(NULL);
    double k = hw_machine_calib(f->m, "smt_corun_factor");
    assert_int_equal(hw_thread_sibling(&f->w.hw, 0), 56);
    struct probe a = { 0 }, b = { 0 };
    task_init(&a.t, probe_done, 0);
    task_init(&b.t, probe_done, 56);
    sched_wake_task(&f->w, &a.t, 10000);
    world_run_until(&f->w, 5000);
    sched_wake_task(&f->w, &b.t, 10000);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(b.ran_on, 56);
    double a_end = 7000 + 5000 / k;                 /* 5 us left at speed k */
    double b_done_at_a_end = (a_end - 7000) * k;    /* B's work while co-running */
    double b_end = a_end + (10000 - b_done_at_a_end);
    assert_true(fabs((double)a.done_ns - a_end) <= 2);
    assert_true(fabs((double)b.done_ns - b_end) <= 3);
    fixture_free(f);
}

/* prev busy: the wakeup goes to a CPU of a fully idle core in the same
 * package, not to prev's idle sibling. */
static void test_placement_prefers_idle_core(void **state)
{
    (void)state;
    struct fixture *f = fixture_new(NULL);
    struct probe a = { 0 }, b = { 0 };
    task_init(&a.t, probe_done, 0);
    task_init(&b.t, probe_done, 0);
    sched_wake_task(&f->w, &a.t, 100000);
    sched_wake_task(&f->w, &b.t, 100000);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_int_equal(a.ran_on, 0);
    assert_int_not_equal(b.ran_on, 56);
    assert_int_equal(f->m->cpus[b.ran_on].package, 0);
    assert_int_equal(b.ran_on, 1);
    fixture_free(f);
}

/* idle=poll: no exit latency, and the polling sibling costs smt_poll_factor. */
static void test_idle_poll(void **state)
{
    (void)state;
    struct fixture *f = fixture_new("idle");
    double k = hw_machine_calib(f->m, "smt_poll_factor");
    struct probe p = { 0 };
    task_init(&p.t, probe_done, 3);
    sched_wake_task(&f->w, &p.t, 10000);
    world_run_until(&f->w, SIM_NS_PER_MS);
    assert_true(fabs((double)p.done_ns - 10000 / k) <= 1);
    fixture_free(f);
}

/* An idle machine for 1 ms: every core in C1, power = ncores x C1 power (up
 * to the few housekeeping-timer wakeups: ~8.5 per CPU per second). */
static void test_idle_energy(void **state)
{
    (void)state;
    struct fixture *f = fixture_new(NULL);
    world_measure_reset(&f->w);
    world_run_until(&f->w, SIM_NS_PER_MS);
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);
    double c1_w = f->m->types[0].cstates[0].core_power_mw / 1000.0;
    double core_w = rpt_set_get(&s, "core_watts")->value;
    assert_true(core_w >= f->m->ncores * c1_w && core_w < f->m->ncores * c1_w * 1.001);
    assert_float_equal(rpt_set_get(&s, "pkg_watts")->value - core_w,
                       f->m->packages * f->m->pkg_active_power_mw / 1000.0, 1e-9);
    assert_float_equal(rpt_set_get(&s, "core_residency.C1")->value, 100, 0.05);
    assert_float_equal(rpt_set_get(&s, "pkg_residency.PC6")->value, 0, 1e-12);
    assert_float_equal(rpt_set_get(&s, "busy_pct")->value, 0, 1e-12);
    assert_float_equal(rpt_set_get(&s, "residency.C1")->value, 100, 0.05);
    rpt_set_free(&s);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_latency_then_run),
        cmocka_unit_test(test_smt_corun_retime),
        cmocka_unit_test(test_placement_prefers_idle_core),
        cmocka_unit_test(test_idle_poll),
        cmocka_unit_test(test_idle_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
