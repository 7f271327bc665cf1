/* uclamp (src/kernel/sched/uclamp.c and its readers): a task's clamps and
 * the system limits, the runqueue's max aggregation and what an empty one
 * keeps, schedutil's request by version (the clamps before the 1.25
 * headroom before v6.8, after it from v6.8; RT's default boost; the busy
 * filter lifted for a capped runqueue from v5.18), the sysctl handler's
 * refusal, and the capacity fitness of a boosted task on big.LITTLE. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

#define CPU 3

/* A task pinned on CPU that runs long enough for every check. */
static void start_task(struct fx *f, struct probe *p, enum sched_policy pol, int util_min,
                       int util_max)
{
    task_init(&p->t, probe_done, CPU);
    task_set_affinity(&p->t, CPU);
    if (pol != SCHED_POLICY_NORMAL)
        task_set_scheduler(&p->t, pol, 50);
    if (util_min >= 0 || util_max >= 0)
        assert_true(task_set_uclamp(&f->w, &p->t, util_min, util_max));
    sched_wake_task(&f->w, &p->t, 10.0 * SIM_NS_PER_S, CPU);
}

/* schedutil's request on CPU for a CPU util of util: time jumps past the
 * rate limit with nothing else run (no tick refreshes the signal), and the
 * CPU counts as idle since the last request unless busy. */
static uint32_t su_khz(struct fx *f, double util, bool busy)
{
    struct cpufreq_policy *p = &f->w.cpufreq.policy[CPU];
    f->w.q.now_ns += 20 * SIM_NS_PER_MS;
    if (!busy)
        f->w.idle.cpu[CPU].idle_calls++;
    f->w.cpufreq.pelt[CPU].avg.util_avg = (unsigned long)util;
    cpufreq_gov_schedutil.update(&f->w, p);
    return p->cur_khz;
}

static uint32_t khz_of(struct fx *f, double share_of_fmax)
{
    const struct cpufreq_policy *p = &f->w.cpufreq.policy[CPU];
    double want = share_of_fmax * (double)p->cpuinfo_max_khz;
    return cpufreq_resolve_khz(p, want >= p->max_khz ? p->max_khz : (uint32_t)want);
}

static struct fx *su_world(const char *kernel, const char *sysfs)
{
    struct fx *f = fx_new_kernel_machine("machines/skx-2s.ini", kernel, "intel_pstate=passive",
                                         sysfs, false);
    assert_ptr_equal(f->w.cpufreq.policy[CPU].gov, &cpufreq_gov_schedutil);
    return f;
}

/* A cap of 512 on a saturated CPU: half of fmax from v6.8 (the headroom,
 * then the cap), 1.25 x half before; no cap: the maximum. */
static void test_max_caps_frequency(void **state)
{
    (void)state;
    const char *kernels[] = { "6.12", "6.6" };
    const double want[] = { 0.5, 1.25 * 0.5 };
    for (int k = 0; k < 2; k++) {
        struct fx *f = su_world(kernels[k], NULL);
        struct probe p;
        start_task(f, &p, SCHED_POLICY_NORMAL, -1, 512);
        world_run_until(&f->w, f->w.q.now_ns + SIM_NS_PER_MS);
        assert_ptr_equal(f->w.sched.cpu[CPU].curr, &p.t);
        assert_int_equal(uclamp_rq_get(&f->w, CPU, UCLAMP_MAX), 512);
        assert_int_equal(su_khz(f, 1024, false), khz_of(f, want[k]));
        assert_true(su_khz(f, 1024, false) < f->w.cpufreq.policy[CPU].max_khz);
        fx_free(f);
    }
    struct fx *f = su_world("6.12", NULL);
    struct probe p;
    start_task(f, &p, SCHED_POLICY_NORMAL, -1, -1);
    world_run_until(&f->w, f->w.q.now_ns + SIM_NS_PER_MS);
    assert_false(uclamp_is_used(&f->w.sched.uclamp));
    assert_int_equal(su_khz(f, 1024, false), f->w.cpufreq.policy[CPU].max_khz);
    fx_free(f);
}

/* A boost of 768 on a light task: 0.75 of fmax from v6.8, 1.25 x 0.75
 * before; the light util alone asks for far less. */
static void test_min_boosts_frequency(void **state)
{
    (void)state;
    const char *kernels[] = { "6.12", "6.6" };
    const double want[] = { 0.75, 1.25 * 0.75 };
    for (int k = 0; k < 2; k++) {
        struct fx *f = su_world(kernels[k], NULL);
        struct probe p;
        start_task(f, &p, SCHED_POLICY_NORMAL, 768, -1);
        world_run_until(&f->w, f->w.q.now_ns + SIM_NS_PER_MS);
        assert_int_equal(su_khz(f, 100, false), khz_of(f, want[k]));
        assert_true(khz_of(f, want[k]) > khz_of(f, 1.25 * 100 / 1024) + 1000000);
        fx_free(f);
    }
}

/* An RT task asks for the maximum: without uclamp in use, and with it
 * through RT's default uclamp_min of 1024; sched_util_clamp_min_rt_default=0
 * (v5.9) lets it run at its util; before v5.9 the default boost is fixed. */
static void test_rt_default_boost(void **state)
{
    (void)state;
    struct {
        const char *kernel, *sysfs;
        double want;            /* share of fmax; 0: the maximum */
    } c[] = {
        { "6.12", NULL, 0 },
        { "6.12", "/proc/sys/kernel/sched_util_clamp_min_rt_default=0", 1.25 * 200 / 1024 },
        { "6.12", "/proc/sys/kernel/sched_util_clamp_min_rt_default=1024", 0 },
        { "5.4", NULL, 0 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct fx *f = su_world(c[i].kernel, c[i].sysfs);
        struct probe p;
        start_task(f, &p, SCHED_POLICY_FIFO, -1, -1);
        world_run_until(&f->w, f->w.q.now_ns + SIM_NS_PER_MS);
        assert_ptr_equal(f->w.sched.cpu[CPU].curr, &p.t);
        uint32_t want = c[i].want > 0 ? khz_of(f, c[i].want) : f->w.cpufreq.policy[CPU].max_khz;
        assert_int_equal(su_khz(f, 200, false), want);
        fx_free(f);
    }
    /* Before v5.9 uclamp is in use from boot and RT's boost is the maximum. */
    struct fx *f = su_world("5.4", NULL);
    assert_true(uclamp_is_used(&f->w.sched.uclamp));
    assert_int_equal(f->w.sched.uclamp.rt_min_default, 1024);
    fx_free(f);
}

/* The runqueue's clamp is the largest of its runnable tasks', per clamp;
 * empty, it keeps uclamp_max of the task that left last, and uclamp_min 0. */
static void test_rq_aggregation(void **state)
{
    (void)state;
    struct fx *f = su_world("6.12", NULL);
    struct probe a, b;
    task_init(&a.t, probe_done, CPU);
    task_init(&b.t, probe_done, CPU);
    task_set_affinity(&a.t, CPU);
    task_set_affinity(&b.t, CPU);
    assert_true(task_set_uclamp(&f->w, &a.t, 200, 300));
    assert_true(task_set_uclamp(&f->w, &b.t, 0, 600));
    sched_wake_task(&f->w, &a.t, 3.0 * SIM_NS_PER_MS, CPU);
    sched_wake_task(&f->w, &b.t, 1.0 * SIM_NS_PER_MS, CPU);
    world_run_until(&f->w, f->w.q.now_ns + 100 * SIM_NS_PER_US);
    assert_int_equal(f->w.sched.nr_running[CPU], 2);
    assert_int_equal(uclamp_rq_get(&f->w, CPU, UCLAMP_MIN), 200);
    assert_int_equal(uclamp_rq_get(&f->w, CPU, UCLAMP_MAX), 600);
    world_run_until(&f->w, f->w.q.now_ns + 50 * SIM_NS_PER_MS);
    assert_true(a.done_ns > 0 && b.done_ns > 0 && a.done_ns != b.done_ns);
    assert_int_equal(f->w.sched.nr_running[CPU], 0);
    assert_int_equal(uclamp_rq_get(&f->w, CPU, UCLAMP_MIN), 0);
    assert_int_equal(uclamp_rq_get(&f->w, CPU, UCLAMP_MAX), a.done_ns > b.done_ns ? 300 : 600);
    fx_free(f);
}

/* sched_util_clamp_min/max bound every task's effective clamp (a larger
 * request counts as the limit), RT's default boost included. */
static void test_system_limits(void **state)
{
    (void)state;
    struct fx *f = su_world("6.12", "/proc/sys/kernel/sched_util_clamp_min=100 "
                                     "/proc/sys/kernel/sched_util_clamp_max=400");
    assert_true(uclamp_is_used(&f->w.sched.uclamp));
    struct task t, rt;
    task_init(&t, NULL, 0);
    task_init(&rt, NULL, 0);
    task_set_scheduler(&rt, SCHED_POLICY_FIFO, 10);
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MIN), 0);
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MAX), 400);
    assert_int_equal(uclamp_eff_value(&f->w, &rt, UCLAMP_MIN), 100);
    assert_true(task_set_uclamp(&f->w, &t, 300, 600));
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MIN), 100);
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MAX), 400);
    fx_free(f);
}

/* The sysctl handler refuses a write that leaves uclamp_min above
 * uclamp_max, as the values stand when it is written: lowering the max
 * below the default min of 1024 fails until the min is lowered first. The
 * error names the refused write. */
static void test_sysctl_refused(void **state)
{
    (void)state;
    struct {
        const char *first, *second;
        int bad_line;           /* 0: both accepted */
    } c[] = {
        { "sched_util_clamp_min=800", "sched_util_clamp_max=500", 11 },
        { "sched_util_clamp_max=500", "sched_util_clamp_min=100", 10 },
        { "sched_util_clamp_min=500", "sched_util_clamp_max=500", 0 },
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        struct kparams kp;
        kparams_init(&kp);
        struct diag d = { 0 };
        const char *w[2] = { c[k].first, c[k].second };
        for (int i = 0; i < 2; i++) {
            char path[96];
            const char *eq = strchr(w[i], '=');
            snprintf(path, sizeof path, "/proc/sys/kernel/%.*s", (int)(eq - w[i]), w[i]);
            assert_int_equal(kparams_set_sysfs(&kp, path, eq + 1, "v.ini", 10 + i, &d), 0);
        }
        if (!c[k].bad_line) {
            assert_int_equal(uclamp_validate(&kp, "v.ini", &d), 0);
        } else {
            char where[32];
            snprintf(where, sizeof where, "v.ini:%d:", c[k].bad_line);
            assert_int_equal(uclamp_validate(&kp, "v.ini", &d), -1);
            assert_non_null(strstr(d.msg, where));
            assert_non_null(strstr(d.msg, "EINVAL"));
        }
        kparams_destroy(&kp);
    }
    /* Without CONFIG_UCLAMP_TASK the files do not exist. */
    struct kparams kp;
    kparams_init(&kp);
    struct diag d = { 0 };
    assert_int_equal(kparams_set_config(&kp, "CONFIG_UCLAMP_TASK", "n", "v.ini", 2, &d), 0);
    assert_int_equal(kparams_set_sysfs(&kp, "/proc/sys/kernel/sched_util_clamp_min", "0", "v.ini",
                                       3, &d), 0);
    assert_int_equal(uclamp_validate(&kp, "v.ini", &d), -1);
    assert_non_null(strstr(d.msg, "v.ini:3: /proc/sys/kernel/sched_util_clamp_min: no such file"));
    kparams_destroy(&kp);
}

/* sched_setattr's refusals: no uclamp before v5.3 (EOPNOTSUPP), a min
 * above the max, given or current (EINVAL); a refusal changes nothing. */
static void test_setattr_refused(void **state)
{
    (void)state;
    struct fx *f = su_world("5.2", NULL);
    struct task t;
    task_init(&t, NULL, 0);
    assert_false(f->w.sched.uclamp.built);
    assert_false(task_set_uclamp(&f->w, &t, 100, -1));
    fx_free(f);
    f = su_world("6.12", NULL);
    task_init(&t, NULL, 0);
    assert_false(task_set_uclamp(&f->w, &t, 800, 500));
    assert_false(t.uclamp_req[UCLAMP_MIN].user_defined);
    assert_false(uclamp_is_used(&f->w.sched.uclamp));
    assert_true(task_set_uclamp(&f->w, &t, 500, -1));
    assert_false(task_set_uclamp(&f->w, &t, -1, 400));
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MAX), 1024);
    assert_true(task_set_uclamp(&f->w, &t, -1, 700));
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MIN), 500);
    assert_int_equal(uclamp_eff_value(&f->w, &t, UCLAMP_MAX), 700);
    fx_free(f);
}

/* A busy CPU keeps its frequency (sugov_cpu_is_busy) unless its runqueue
 * is capped by uclamp_max, from v5.18: a task capped while it runs slows
 * down at once there, and only after an idle period before. */
static void test_capped_lifts_busy_filter(void **state)
{
    (void)state;
    const char *kernels[] = { "6.12", "5.15" };
    for (int k = 0; k < 2; k++) {
        struct fx *f = su_world(kernels[k], NULL);
        struct probe p;
        start_task(f, &p, SCHED_POLICY_NORMAL, -1, -1);
        world_run_until(&f->w, f->w.q.now_ns + SIM_NS_PER_MS);
        uint32_t top = f->w.cpufreq.policy[CPU].max_khz;
        assert_int_equal(su_khz(f, 1024, false), top);
        assert_true(task_set_uclamp(&f->w, &p.t, -1, 256));
        uint32_t busy = su_khz(f, 1024, true);
        if (k == 0)
            assert_int_equal(busy, khz_of(f, 0.25));
        else
            assert_int_equal(busy, top);
        fx_free(f);
    }
}

/* big.LITTLE (Juno r0): a light task boosted to uclamp_min 1024 wakes on
 * an A57 (an A53 fits its util but not its boost: util_fits_cpu's -1 from
 * v6.2; before, the clamped util fits no A53); unboosted it stays on the
 * A53 it last ran on. */
static void test_boost_places_on_big(void **state)
{
    (void)state;
    const char *kernels[] = { "6.12", "6.1" };
    for (int k = 0; k < 2; k++) {
        for (int boost = 0; boost < 2; boost++) {
            struct fx *f = fx_new_kernel_machine("machines/juno-r0.ini", kernels[k], NULL, NULL,
                                                 true);
            assert_true(f->w.sched.topo.asym_cpucapacity);
            struct task t;
            task_init(&t, NULL, 3);
            if (boost)
                assert_true(task_set_uclamp(&f->w, &t, 1024, -1));
            int cpu = select_task_rq_fair(&f->w, &t, 3, false);
            if (boost)
                assert_true(cpu == 1 || cpu == 2);
            else
                assert_int_equal(cpu, 3);
            fx_free(f);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_caps_frequency),
        cmocka_unit_test(test_min_boosts_frequency),
        cmocka_unit_test(test_rt_default_boost),
        cmocka_unit_test(test_rq_aggregation),
        cmocka_unit_test(test_system_limits),
        cmocka_unit_test(test_sysctl_refused),
        cmocka_unit_test(test_setattr_refused),
        cmocka_unit_test(test_capped_lifts_busy_filter),
        cmocka_unit_test(test_boost_places_on_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
