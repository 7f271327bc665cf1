/* CPU isolation (src/kernel/sched/isolation.c, isolation_run.c) on an
 * i5-13500H (rpl-h: P-core threads 0-7, siblings adjacent; E-cores 8-15):
 * the boot parameters' parsing and the kernel's resolution rules
 * (housekeeping_setup, tick_nohz_init, rcu_init_nohz, SMT control); the
 * tick stopping with one task on a nohz_full CPU and running on a
 * housekeeping one, the residual tick by version; no balancing onto and
 * no wake-up placement on an isolated CPU; housekeeping timers and the
 * background threads kept off nohz_full CPUs; nosmt siblings never
 * running. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/sched/isolation.h"
#include "world_fixture.h"

#define RPL "machines/rpl-h.ini"

static struct fx *isol_new_calib(const char *kernel, const char *cmdline,
                                 const struct hw_calib *calib, int n)
{
    struct fx *f = fx_new_machine(RPL, "CONFIG_HZ=250", cmdline, NULL, calib, n);
    assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    world_destroy(&f->w);
    struct world_key key = { .seed = 3 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

static struct fx *isol_new(const char *kernel, const char *cmdline)
{
    return isol_new_calib(kernel, cmdline, NULL, 0);
}

static void run_for(struct fx *f, sim_time_t ns)
{
    world_run_until(&f->w, f->w.q.now_ns + ns);
}

/* A pinned task with 10 s of work on cpu. */
static void busy_on(struct fx *f, struct probe *p, int cpu)
{
    task_init(&p->t, probe_done, cpu);
    task_set_affinity(&p->t, cpu);
    sched_wake_task(&f->w, &p->t, 10.0 * SIM_NS_PER_S, cpu);
}

static bool has_note(const struct housekeeping *hk, const char *text)
{
    for (int i = 0; i < hk->nnotes; i++)
        if (strstr(hk->notes[i], text))
            return true;
    return false;
}

static char *mask_text(const bool *mask, int n, char *buf, size_t size)
{
    housekeeping_format(mask, n, buf, size);
    return buf;
}

/* Values are checked as they are parsed (flags, list syntax) and against
 * the machine (kparams_check_cpus: FILE:LINE, the CPU out of range). */
static void test_params_parse(void **state)
{
    (void)state;
    struct kparams kp;
    struct diag d = { 0 };
    kparams_init(&kp);
    assert_int_equal(kparams_set_cmdline(&kp, "isolcpus", "domain,managed_irq,2-5", "s.ini", 3, &d), 0);
    assert_int_equal(kparams_set_cmdline(&kp, "nohz_full", "2-5", "s.ini", 3, &d), 0);
    assert_int_not_equal(kparams_set_cmdline(&kp, "isolcpus", "nohz_full,2", "s.ini", 4, &d), 0);
    assert_non_null(strstr(d.msg, "'nohz_full' is not a flag"));
    d = (struct diag){ 0 };
    assert_int_not_equal(kparams_set_cmdline(&kp, "rcu_nocbs", "2-x", "s.ini", 5, &d), 0);
    d = (struct diag){ 0 };
    assert_int_equal(kparams_set_cmdline(&kp, "nosmt", "force", "s.ini", 6, &d), 0);
    assert_int_equal(kparams_check_cpus(&kp, 16, "s.ini", &d), 0);
    assert_int_equal(kparams_set_cmdline(&kp, "nohz_full", "2-40", "s.ini", 7, &d), 0);
    d = (struct diag){ 0 };
    assert_int_not_equal(kparams_check_cpus(&kp, 16, "s.ini", &d), 0);
    assert_non_null(strstr(d.msg, "s.ini:7"));
    assert_non_null(strstr(d.msg, "nohz_full=2-40"));
    kparams_destroy(&kp);
}

/* The kernel's resolution: the boot CPU leaves nohz_full but not the
 * housekeeping masks; nohz_full implies rcu_nocbs; isolcpus without flags
 * is domain; isolcpus=nohz must match nohz_full; managed_irq from 5.6;
 * nosmt takes the P-cores' second threads. */
static void test_resolve(void **state)
{
    (void)state;
    char buf[64];
    struct fx *f = isol_new("6.9", "nohz_full=0-3 rcu_nocbs=8");
    const struct housekeeping *hk = &f->w.isol.hk;
    assert_string_equal(mask_text(hk->nohz_full, 16, buf, sizeof buf), "1-3");
    assert_string_equal(mask_text(hk->noise_isolated, 16, buf, sizeof buf), "0-3");
    assert_string_equal(mask_text(hk->rcu_nocb, 16, buf, sizeof buf), "1-3,8");
    assert_string_equal(mask_text(hk->kthread_cpus, 16, buf, sizeof buf), "4-15");
    assert_string_equal(mask_text(hk->isolated, 16, buf, sizeof buf), "");
    assert_true(has_note(hk, "Clearing 0 from nohz_full"));
    fx_free(f);

    f = isol_new("6.9", "isolcpus=2-3");
    hk = &f->w.isol.hk;
    assert_string_equal(mask_text(hk->isolated, 16, buf, sizeof buf), "2-3");
    assert_false(hk->nohz_full_any);
    fx_free(f);

    f = isol_new("6.9", "isolcpus=nohz,domain,2-3 nohz_full=4-5");
    hk = &f->w.isol.hk;
    assert_string_equal(mask_text(hk->nohz_full, 16, buf, sizeof buf), "2-3");
    assert_true(has_note(hk, "nohz_full= must match isolcpus="));
    fx_free(f);

    f = isol_new("5.4", "isolcpus=managed_irq,domain,2-3");
    hk = &f->w.isol.hk;
    assert_false(hk->managed_any);
    assert_true(has_note(hk, "no managed_irq flag"));
    fx_free(f);

    f = isol_new("6.9", "nosmt");
    hk = &f->w.isol.hk;
    assert_string_equal(mask_text(hk->offline, 16, buf, sizeof buf), "1,3,5,7");
    fx_free(f);
}

/* can_stop_full_tick: one task on nohz_full CPU 4 runs without a tick
 * (v6.9: the residual tick is sched_tick_remote's, once a second, from a
 * housekeeping CPU), a task on housekeeping CPU 1 keeps its 250 Hz tick;
 * a second task on CPU 4 restarts its tick. Before v4.17 CPU 4 takes the
 * residual tick itself, once a second (scheduler_tick_max_deferment). */
static void test_tick_stops_with_one_task(void **state)
{
    (void)state;
    struct fx *f = isol_new("6.9", "nohz_full=4-7");
    struct probe a, b, c;
    busy_on(f, &a, 4);
    busy_on(f, &b, 1);
    run_for(f, 2 * SIM_NS_PER_S);
    const struct isol_cpu *ic = f->w.isol.cpu;
    assert_int_equal(ic[4].nr_ticks, 0);
    assert_in_range(ic[4].nr_remote_ticks, 1, 2);
    assert_in_range(ic[1].nr_ticks, 495, 501);
    busy_on(f, &c, 4);
    run_for(f, SIM_NS_PER_S);
    assert_in_range(ic[4].nr_ticks, 245, 251);
    fx_free(f);

    f = isol_new("4.14", "nohz_full=4-7");
    busy_on(f, &a, 4);
    run_for(f, 3 * SIM_NS_PER_S);
    assert_in_range(f->w.isol.cpu[4].nr_ticks, 2, 3);
    assert_int_equal(f->w.isol.cpu[4].nr_remote_ticks, 0);
    fx_free(f);
}

/* isolcpus=8-15 (the E-cores): no domain of theirs, none of anyone's
 * spans them; twelve tasks allowed everywhere, woken from CPU 0, crowd
 * the P-threads and are never balanced onto the idle E-cores; a task
 * allowed only CPU 9 goes there. */
static void test_isolcpus_no_balance(void **state)
{
    (void)state;
    struct fx *f = isol_new("6.9", "isolcpus=8-15");
    const struct sched_topology *t = &f->w.sched.topo;
    for (int cpu = 0; cpu < 16; cpu++) {
        int n;
        const struct sched_domain *d = sched_domains(t, cpu, &n);
        if (cpu >= 8) {
            assert_int_equal(n, 0);
            continue;
        }
        for (int l = 0; l < n; l++)
            for (int i = 0; i < d[l].span->weight; i++)
                assert_true(d[l].span->cpus[i] < 8);
    }
    bool all[16];
    for (int i = 0; i < 16; i++)
        all[i] = true;
    struct probe p[12];
    for (int i = 0; i < 12; i++) {
        task_init(&p[i].t, probe_done, 0);
        task_set_cpus_allowed(&p[i].t, all, 16);
        sched_wake_task(&f->w, &p[i].t, 2.0 * SIM_NS_PER_S, 0);
    }
    run_for(f, SIM_NS_PER_S);
    for (int i = 0; i < 12; i++)
        assert_true(p[i].t.prev_cpu < 8);
    for (int cpu = 8; cpu < 16; cpu++)
        assert_int_equal(f->w.idle.cpu[cpu].nr_wake[IDLE_WAKE_IPI], 0);
    bool only9[16] = { [9] = true };
    struct probe q;
    task_init(&q.t, probe_done, 0);
    task_set_cpus_allowed(&q.t, only9, 16);
    sched_wake_task(&f->w, &q.t, SIM_NS_PER_MS, 0);
    assert_int_equal(q.t.cpu, 9);
    fx_free(f);
}

/* Idle machine, nohz_full=8-15: the housekeeping timers of CPUs 8-15 fire
 * on CPUs 0-7 (as many in all), no background thread runs there, no task
 * wakes them. */
static void test_housekeeping_off_nohz_full(void **state)
{
    (void)state;
    uint64_t irqs[2] = { 0, 0 };
    const struct hw_calib bg[] = { { "bg_wake_share", 0.5 }, { "bg_deferrable_hz", 1 } };
    for (int v = 0; v < 2; v++) {
        struct fx *f = isol_new_calib("6.9", v ? "nohz_full=8-15" : NULL, bg, 2);
        run_for(f, 4 * SIM_NS_PER_S);
        for (int cpu = 0; cpu < 16; cpu++) {
            irqs[v] += f->w.idle.cpu[cpu].nr_timer_irqs;
            if (v && cpu >= 8) {
                assert_int_equal(f->w.idle.cpu[cpu].nr_timer_irqs, 0);
                assert_int_equal(f->w.idle.cpu[cpu].nr_wake[IDLE_WAKE_IPI], 0);
            }
        }
        for (int i = 0; v && i < f->w.wchain.nthreads; i++)
            assert_true(f->w.wchain.thr[i].task.prev_cpu < 8);
        assert_true(f->w.wchain.nr_chains > 0);
        fx_free(f);
    }
    /* the same Poisson streams, delivered elsewhere */
    assert_int_equal(irqs[0], irqs[1]);
}

/* nosmt: the P-cores' second threads never run a task, stay in the
 * deepest C-state, leave the domains (no SMT level: sched_smt_present off);
 * a task pinned to offline CPU 3 runs on an online one. */
static void test_nosmt_siblings_never_run(void **state)
{
    (void)state;
    struct fx *f = isol_new("6.9", "nosmt");
    const struct sched_topology *t = &f->w.sched.topo;
    assert_false(t->smt_active);
    int n;
    const struct sched_domain *d = sched_domains(t, 0, &n);
    assert_true(n >= 1);
    assert_int_not_equal(d[0].tl, TL_SMT);
    assert_int_equal(t->nr_sd[1], 0);
    struct probe p[12], q;
    for (int i = 0; i < 12; i++) {
        task_init(&p[i].t, probe_done, 0);
        sched_wake_task(&f->w, &p[i].t, 0.5 * SIM_NS_PER_S, 0);
    }
    task_init(&q.t, probe_done, 3);
    task_set_affinity(&q.t, 3);
    sched_wake_task(&f->w, &q.t, SIM_NS_PER_MS, 0);
    assert_int_not_equal(q.t.cpu, 3);
    run_for(f, SIM_NS_PER_S);
    const int deepest = f->m->types[f->m->cpus[1].type].ncstates - 1;
    for (int cpu = 1; cpu < 8; cpu += 2) {
        for (int k = 0; k < IDLE_WAKE_NR; k++)
            assert_int_equal(f->w.idle.cpu[cpu].nr_wake[k], 0);
        assert_int_equal(f->w.hw.thr[cpu].mode, HW_THREAD_IDLE);
        assert_int_equal(f->w.hw.thr[cpu].cstate, deepest);
    }
    for (int i = 0; i < 12; i++)
        assert_true(p[i].t.prev_cpu >= 8 || p[i].t.prev_cpu % 2 == 0);
    fx_free(f);
}

/* mitigations=auto,nosmt (v5.2): Skylake-SP has the L1TF and MDS bugs, so
 * the kernel turns SMT off as nosmt does (every second thread offline);
 * Raptor Lake has neither and keeps SMT; v5.1 has no such option. */
static int offline_count(const char *machine, const char *kernel, const char *cmdline)
{
    struct fx *f = fx_new_machine(machine, NULL, cmdline, NULL, NULL, 0);
    assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    struct housekeeping hk;
    housekeeping_resolve(f->m, &f->kp, &hk);
    int n = 0;
    for (int cpu = 0; cpu < f->m->ncpus; cpu++)
        n += hk.offline[cpu];
    if (n)
        assert_true(has_note(&hk, "mitigations=auto,nosmt"));
    housekeeping_destroy(&hk);
    fx_free(f);
    return n;
}

static void test_mitigations_auto_nosmt(void **state)
{
    (void)state;
    const char *skx = "machines/skx-2s.ini";
    assert_int_equal(offline_count(skx, "6.9", "mitigations=auto,nosmt"), 56);
    assert_int_equal(offline_count(skx, "6.9", "mitigations=auto"), 0);
    assert_int_equal(offline_count(skx, "5.1", "mitigations=auto,nosmt"), 0);
    assert_int_equal(offline_count(RPL, "6.9", "mitigations=auto,nosmt"), 0);
}

/* An offline thread with kernel IBRS (spectre_v2=ibrs on Skylake-SP)
 * keeps SPEC_CTRL set before v6.7 and slows its busy sibling; v6.7
 * (8c7a9b1bb450) clears it before play_dead. */
static void test_nosmt_offline_ibrs(void **state)
{
    (void)state;
    double speed[2];
    for (int v = 0; v < 2; v++) {
        struct fx *f = fx_new_machine("machines/skx-2s.ini", NULL, "spectre_v2=ibrs nosmt", NULL,
                                      NULL, 0);
        assert_int_equal(kversion_parse(v ? "6.7" : "6.6", &f->kp.kernel), 0);
        world_destroy(&f->w);
        struct world_key key = { .seed = 3 };
        world_init(&f->w, f->m, &f->kp, &key);
        int sib = f->m->cores[0].cpus[1];
        assert_true(f->w.isol.hk.offline[sib]);
        assert_int_equal(f->w.hw.thr[sib].ibrs_set, v == 0);
        struct probe p;
        busy_on(f, &p, f->m->cores[0].cpus[0]);
        run_for(f, SIM_NS_PER_MS);
        speed[v] = hw_thread_speed(&f->w.hw, f->m->cores[0].cpus[0]);
        fx_free(f);
    }
    assert_true(speed[0] < speed[1]);   /* ibrs_sibling_factor before 6.7 only */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_parse),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_tick_stops_with_one_task),
        cmocka_unit_test(test_isolcpus_no_balance),
        cmocka_unit_test(test_housekeeping_off_nohz_full),
        cmocka_unit_test(test_mitigations_auto_nosmt),
        cmocka_unit_test(test_nosmt_siblings_never_run),
        cmocka_unit_test(test_nosmt_offline_ibrs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
