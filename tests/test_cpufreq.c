/* cpufreq on adl-desktop (8 P-cores with SMT: cpu0/cpu1 share core 0; 8
 * E-cores cpu16..23): driver and mode selection, the governors' decisions,
 * limits, the HWP model's monotonicity, PELT numbers, and what powersave vs
 * performance does to run time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "world.h"
#include "quiet_machine.h"

struct cfx {
    struct hw_machine *m;
    struct kparams kp;
    struct world w;
};

static void cfx_apply(struct kparams *kp, const char *text,
                      int (*set)(struct kparams *, const char *, const char *, const char *, int,
                                 struct diag *))
{
    struct cmdline c;
    char msg[128];
    struct diag d = { 0 };
    assert_int_equal(cmdline_split(text ? text : "", &c, msg, sizeof msg), 0);
    for (int i = 0; i < c.nargs; i++)
        if (set(kp, c.args[i].name, c.args[i].value, "v.ini", i + 1, &d) != 0)
            fail_msg("%s", d.msg);
    cmdline_free(&c);
}

/* Settings only (for cpufreq_validate), on adl-desktop. */
static struct cfx *cfx_settings(const char *kernel, const char *cmdline, const char *sysfs)
{
    struct cfx *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load("machines/adl-desktop.ini", &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    fx_quiet_machine(f->m);
    kparams_init(&f->kp);
    if (kernel)
        assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    cfx_apply(&f->kp, cmdline, kparams_set_cmdline);
    cfx_apply(&f->kp, sysfs, kparams_set_sysfs);
    return f;
}

static struct cfx *cfx_new(const char *kernel, const char *cmdline, const char *sysfs)
{
    struct cfx *f = cfx_settings(kernel, cmdline, sysfs);
    struct world_key key = { .seed = 7 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

static void cfx_free(struct cfx *f)
{
    if (f->w.machine)
        world_destroy(&f->w);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

struct probe {
    struct task t;
    sim_time_t done_ns;
};

static void probe_done(struct world *w, struct task *t)
{
    ((struct probe *)t)->done_ns = w->q.now_ns;
}

/* ---- PELT ------------------------------------------------------------------ */

/* cpu's PELT state as the scheduler would leave it: running (a task, only
 * its address is read) or idle (NULL) from now, at f/fmax = quarters / 4. */
static void pelt_set(struct cfx *f, int cpu, sim_time_t now_ns, struct task *running,
                     int quarters)
{
    struct world *w = &f->w;
    const struct hw_machine *m = w->machine;
    int core = m->cpus[cpu].core;
    w->q.now_ns = now_ns;
    pelt_update(w, cpu);
    w->hw.core_mhz[core] = m->types[m->cores[core].type].max_mhz * (uint32_t)quarters / 4;
    w->sched.cpu[cpu].curr = running;
    pelt_update(w, cpu);
}

static unsigned long pelt_util_at(struct cfx *f, int cpu, sim_time_t now_ns)
{
    f->w.q.now_ns = now_ns;
    pelt_sync(&f->w, cpu);
    return f->w.cpufreq.pelt[cpu].avg.util_avg;
}

/* The CPU signal of kernel/sched/pelt.h: the PELT clock runs at f/fmax
 * (cap_scale in 1024ths) while busy and catches up at idle, so 10 ms of
 * work at fmax then idle equals 20 ms at fmax / 2 then idle, to the unit;
 * 32 periods (33.55 ms) of running from 0 give half of 1024; a CPU
 * that never idles at fmax / 4 still climbs to 1024, and when it then idles
 * with a full util_sum the clock's lag is lost idle time, not decay. */
static void test_pelt_cpu(void **state)
{
    (void)state;
    const sim_time_t ms = SIM_NS_PER_MS, period_ns = 1024 * 1024;
    assert_int_equal(pelt_clock_advance(0, 32 * ms, 512), 16 * ms);
    struct cfx *f = cfx_new(NULL, "intel_pstate=passive", NULL);
    struct task busy;
    f->w.cpufreq.pelt[0] = f->w.cpufreq.pelt[1] = f->w.cpufreq.pelt[2] = (struct pelt_cpu){ 0 };

    pelt_set(f, 0, 0, &busy, 4);
    unsigned long u32 = pelt_util_at(f, 0, 32 * period_ns);
    assert_in_range(u32, 511, 513);

    pelt_set(f, 1, 0, &busy, 4);
    pelt_set(f, 1, 10 * ms, NULL, 4);
    pelt_set(f, 2, 0, &busy, 2);
    pelt_set(f, 2, 20 * ms, NULL, 2);
    unsigned long fast = pelt_util_at(f, 1, 40 * ms), slow = pelt_util_at(f, 2, 40 * ms);
    assert_true(fast > 100);
    assert_int_equal(slow, fast);

    f->w.cpufreq.pelt[0] = (struct pelt_cpu){ 0 };
    pelt_set(f, 0, 0, &busy, 1);
    assert_true(pelt_util_at(f, 0, 4000 * ms) >= 1020);
    pelt_set(f, 0, 4000 * ms, NULL, 1);
    assert_int_equal(f->w.cpufreq.pelt[0].clock.lost_idle_ns, 3000 * ms);
    assert_true(pelt_util_at(f, 0, 4001 * ms) >= 1000);
    f->w.sched.cpu[0].curr = NULL;
    cfx_free(f);
}

/* fair.c's signals on the runqueue's invariant clock (kernel/sched/pelt.h
 * struct pelt_clock): cpu runs t (NULL: idles) from now at f/fmax =
 * quarters / 4, both signals folded first. */
static void fair_set(struct cfx *f, int cpu, sim_time_t now_ns, struct task *t, int quarters)
{
    struct world *w = &f->w;
    const struct hw_machine *m = w->machine;
    int core = m->cpus[cpu].core;
    w->q.now_ns = now_ns;
    rq_avg_sync(w, cpu);
    if (t) {
        t->cpu = cpu;
        task_avg_sync(w, t, TASK_AVG_RUNNING);
    }
    w->hw.core_mhz[core] = m->types[m->cores[core].type].max_mhz * (uint32_t)quarters / 4;
    w->sched.cpu[cpu].curr = t;
    rq_avg_sync(w, cpu);
}

/* A task running from 0 for 64 periods at fmax/2 on a P-core has the util
 * 32 periods at fmax give (~512), its runqueue too; on an E-core at fmax
 * (capacity C = 600) 1024 x (1 - 2^(-2C/1024)) = 570; an idle gap then decays it
 * on the real clock (the 32-period lag counted as idle: a quarter at 96). */
static void test_fair_invariant(void **state)
{
    (void)state;
    const sim_time_t period_ns = 1024 * 1024;
    struct cfx *f = cfx_new(NULL, "intel_pstate=passive", NULL);
    struct world *w = &f->w;
    struct task p, e;
    task_init(&p, probe_done, 2);
    task_init(&e, probe_done, 16);
    /* adl-desktop's default kernel gives every CPU 1024 (v6.12 only on a
     * hybrid without SMT): set the E-core's as that rule would */
    w->sched.topo.capacity[16] = 600;
    fair_set(f, 2, 0, &p, 2);
    fair_set(f, 16, 0, &e, 4);
    w->q.now_ns = 64 * period_ns;
    assert_in_range(task_avg_now(w, &p).util_avg, 511, 513);
    assert_in_range(rq_avg_now(w, 2).util_avg, 511, 513);
    double cap = (double)w->sched.topo.capacity[16];
    double want = 1024 * (1 - pow(2, -2 * cap / 1024));
    assert_in_range((unsigned long)want, 569, 571);
    unsigned long lo = (unsigned long)want - 3, hi = (unsigned long)want + 3;
    assert_in_range(task_avg_now(w, &e).util_avg, lo, hi);
    assert_in_range(rq_avg_now(w, 16).util_avg, lo, hi);
    p.cpu = -1;
    task_avg_sync(w, &p, TASK_AVG_SLEEPING);
    fair_set(f, 2, 64 * period_ns, NULL, 2);
    w->q.now_ns = 96 * period_ns;
    assert_in_range(task_avg_now(w, &p).util_avg, 127, 129);
    assert_in_range(rq_avg_now(w, 2).util_avg, 127, 129);
    w->sched.cpu[16].curr = NULL;
    cfx_free(f);
}

/* ---- mode selection ---------------------------------------------------------- */

static void test_modes(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, NULL, NULL);
    assert_true(f->w.cpufreq.active);
    assert_string_equal(f->w.cpufreq.driver->name, "intel_pstate");
    assert_true(f->w.cpufreq.hwp);
    assert_true(cpufreq_cpu_is_powersave(&f->w, 0));
    assert_string_equal(cpufreq_governor_name(&f->w, 0), "powersave");
    assert_int_equal(f->w.cpufreq.policy[0].epp, 0x80);
    cfx_free(f);

    f = cfx_new(NULL, "cpufreq.default_governor=performance", NULL);
    assert_false(cpufreq_cpu_is_powersave(&f->w, 0));
    cfx_free(f);

    f = cfx_new(NULL, "intel_pstate=passive", NULL);
    assert_string_equal(f->w.cpufreq.driver->name, "intel_cpufreq");
    assert_true(f->w.cpufreq.hwp);
    assert_string_equal(cpufreq_governor_name(&f->w, 3), "schedutil");
    assert_false(cpufreq_cpu_is_powersave(&f->w, 3));
    cfx_free(f);

    f = cfx_new(NULL, "intel_pstate=passive",
                "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor=powersave");
    assert_true(cpufreq_cpu_is_powersave(&f->w, 3));
    assert_int_equal(f->w.hw.core_mhz[1], 800);
    cfx_free(f);

    /* no_hwp: passive without HWP since v5.9, active before. */
    f = cfx_new(NULL, "intel_pstate=no_hwp", NULL);
    assert_string_equal(f->w.cpufreq.driver->name, "intel_cpufreq");
    assert_false(f->w.cpufreq.hwp);
    cfx_free(f);
    f = cfx_new("5.4", "intel_pstate=no_hwp", NULL);
    assert_string_equal(f->w.cpufreq.driver->name, "intel_pstate");
    assert_false(f->w.cpufreq.hwp);
    assert_true(cpufreq_cpu_is_powersave(&f->w, 0));
    cfx_free(f);

    f = cfx_new(NULL, "intel_pstate=disable", NULL);
    assert_string_equal(f->w.cpufreq.driver->name, "acpi-cpufreq");
    cfx_free(f);

    f = cfx_new(NULL, "cpufreq.off=1", NULL);
    assert_false(f->w.cpufreq.active);
    assert_false(cpufreq_cpu_is_powersave(&f->w, 0));
    assert_int_equal(f->w.hw.core_mhz[0], 3200);
    cfx_free(f);
}

/* Which governors each mode offers, as scenario validation and a run-time
 * scaling_governor write see it. */
static void test_validate_and_offer(void **state)
{
    (void)state;
    struct diag d = { 0 };
    struct cfx *f = cfx_settings(NULL, NULL,
                                 "/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor=schedutil");
    assert_int_equal(cpufreq_validate(f->m, &f->kp, "v.ini", &d), -1);
    assert_non_null(strstr(d.msg, "v.ini:1:"));
    assert_non_null(strstr(d.msg, "Invalid argument"));
    cfx_free(f);

    d = (struct diag){ 0 };
    f = cfx_settings(NULL, "intel_pstate=passive",
                     "/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor=ondemand");
    assert_int_equal(cpufreq_validate(f->m, &f->kp, "v.ini", &d), 0);
    cfx_free(f);

    f = cfx_settings(NULL, NULL, "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor=performance "
                                 "/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference=power");
    assert_int_equal(cpufreq_validate(f->m, &f->kp, "v.ini", &d), -1);
    assert_non_null(strstr(d.msg, "v.ini:2:"));
    assert_non_null(strstr(d.msg, "Device or resource busy"));
    cfx_free(f);

    d = (struct diag){ 0 };
    f = cfx_settings(NULL, "intel_pstate=no_hwp",
                     "/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference=power");
    assert_int_equal(cpufreq_validate(f->m, &f->kp, "v.ini", &d), -1);
    assert_non_null(strstr(d.msg, "does not exist"));
    cfx_free(f);

    /* Run-time switching: active offers only its two policies. */
    f = cfx_new(NULL, NULL, NULL);
    assert_int_equal(cpufreq_set_governor(&f->w, 0, "schedutil"), -1);
    assert_int_equal(cpufreq_set_governor(&f->w, 0, "performance"), 0);
    assert_false(cpufreq_cpu_is_powersave(&f->w, 0));
    cfx_free(f);
}

/* ---- limits and switching ----------------------------------------------- */

static void test_limits_and_switching(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, "intel_pstate=passive cpufreq.default_governor=performance",
                            "/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq=2000000 "
                            "/sys/devices/system/cpu/cpu1/cpufreq/scaling_max_freq=2000000 "
                            "/sys/devices/system/cpu/cpu2/cpufreq/scaling_max_freq=100 "
                            "/sys/devices/system/cpu/cpu2/cpufreq/scaling_min_freq=3000000");
    struct cpufreq_policy *p = &f->w.cpufreq.policy[0];
    assert_int_equal(p->max_khz, 2000000);
    assert_int_equal(p->cpuinfo_max_khz, 5200000);
    world_run_until(&f->w, 5 * SIM_NS_PER_MS);
    assert_int_equal(f->w.hw.core_mhz[0], 2000);        /* below base: honoured */
    /* Clamped to cpuinfo_min; the minimum yields to the maximum. */
    assert_int_equal(f->w.cpufreq.policy[2].max_khz, 800000);
    assert_int_equal(f->w.cpufreq.policy[2].min_khz, 800000);
    /* Core 2 (another P-core) runs at the turbo limit for 0-1 active cores. */
    assert_int_equal(f->w.hw.core_mhz[2], 5100);
    /* Switch core 2's threads to powersave, then schedutil. */
    assert_int_equal(cpufreq_set_governor(&f->w, 4, "powersave"), 0);
    assert_int_equal(cpufreq_set_governor(&f->w, 5, "powersave"), 0);
    assert_int_equal(f->w.hw.core_mhz[2], 800);
    assert_true(cpufreq_cpu_is_powersave(&f->w, 4));
    assert_int_equal(cpufreq_set_governor(&f->w, 4, "schedutil"), 0);
    assert_true(f->w.cpufreq.track_util);
    assert_string_equal(cpufreq_governor_name(&f->w, 4), "schedutil");
    cfx_free(f);

    /* Active performance pins the HWP range to the (lowered) maximum. */
    f = cfx_new(NULL, "cpufreq.default_governor=performance",
                "/sys/devices/system/cpu/cpu[0-1]/cpufreq/scaling_max_freq=2500000");
    assert_int_equal(f->w.cpufreq.policy[0].hwp_req.min_mhz, 2500);
    assert_int_equal(f->w.cpufreq.policy[0].hwp_req.epp, 0);
    assert_int_equal(f->w.hw.core_mhz[0], 2500);
    cfx_free(f);
}

/* ---- schedutil ------------------------------------------------------------ */

static void su_step(struct cfx *f, struct cpufreq_policy *p, sim_time_t ms, double util)
{
    f->w.q.now_ns = ms * SIM_NS_PER_MS;
    f->w.cpufreq.pelt[p->cpu].avg.util_avg = (unsigned long)util;
    cpufreq_gov_schedutil.update(&f->w, p);
}

static void test_schedutil_freq(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, "intel_pstate=passive", NULL);
    struct cpufreq_policy *p = &f->w.cpufreq.policy[0];
    assert_ptr_equal(p->gov, &cpufreq_gov_schedutil);
    /* HWP passive: rate limit = transition_delay_us 5000. */
    assert_int_equal(cpufreq_rate_limit_ns(f->w.cpufreq.driver, &f->kp.kernel), 5 * SIM_NS_PER_MS);
    f->w.idle.cpu[0].idle_calls++;
    su_step(f, p, 10, 512);            /* 1.25 x 5.2 GHz x 0.5 = 3.25 -> 3.3 GHz */
    assert_int_equal(p->cur_khz, 3300000);
    assert_int_equal(p->hwp_req.desired_mhz, 3300);   /* adjust_perf: the desired level */
    assert_int_equal(p->hwp_req.min_mhz, 800);
    f->w.idle.cpu[0].idle_calls++;
    su_step(f, p, 12, 1024);           /* within 5 ms of the last change */
    assert_int_equal(p->cur_khz, 3300000);
    f->w.idle.cpu[0].idle_calls++;
    su_step(f, p, 16, 1024);           /* 6.5 GHz, clamped to max */
    assert_int_equal(p->cur_khz, 5200000);
    su_step(f, p, 22, 100);            /* not idle since: no decrease */
    assert_int_equal(p->cur_khz, 5200000);
    f->w.idle.cpu[0].idle_calls++;
    su_step(f, p, 28, 100);            /* 0.63 GHz -> the minimum */
    assert_int_equal(p->cur_khz, 800000);
    f->w.idle.cpu[0].idle_calls++;
    su_step(f, p, 34, 300);            /* 1.904 GHz -> 2.0 GHz */
    assert_int_equal(p->cur_khz, 2000000);
    cfx_free(f);
}

/* The first wake-up after an idle period may lower the frequency: a task's
 * dequeue updates schedutil before its CPU's idle loop counts the idle entry
 * (tick_nohz_idle_stop_tick: idle_calls), so the wake-up's update sees the
 * CPU idle since (sugov_cpu_is_busy false) and takes the decayed util. */
static void test_schedutil_lowers_after_idle(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, "intel_pstate=passive", NULL);
    struct cpufreq_policy *p = &f->w.cpufreq.policy[0];
    struct probe a = { 0 }, b = { 0 };
    task_init(&a.t, probe_done, 0);
    task_set_affinity(&a.t, 0);
    sched_wake_task(&f->w, &a.t, 100.0 * SIM_NS_PER_MS, 0);
    while (!a.done_ns && f->w.q.now_ns < SIM_NS_PER_S)
        world_run_until(&f->w, f->w.q.now_ns + SIM_NS_PER_MS);
    assert_true(a.done_ns > 0);
    uint32_t busy_khz = p->cur_khz;
    uint64_t calls = f->w.idle.cpu[0].idle_calls;
    world_run_until(&f->w, a.done_ns + 100 * SIM_NS_PER_MS);   /* 100 ms idle: util decays */
    assert_true(f->w.idle.cpu[0].idle_calls > calls || f->w.idle.cpu[0].tick_stopped);
    task_init(&b.t, probe_done, 0);
    task_set_affinity(&b.t, 0);
    sched_wake_task(&f->w, &b.t, 10.0 * SIM_NS_PER_MS, 0);
    world_run_until(&f->w, f->w.q.now_ns + 2 * SIM_NS_PER_MS);
    assert_true(busy_khz >= 2500000);
    assert_true(p->cur_khz < busy_khz / 2);
    cfx_free(f);
}

/* What passive mode writes to IA32_HWP_REQUEST for a target, by version:
 * schedutil from v5.11 (->adjust_perf) the desired level over the policy's
 * range, before it the target as the minimum; another governor the target
 * as the minimum, and from v6.17 as the desired level too. The hardware
 * runs at a desired level whatever the load and EPP; a minimum alone lets
 * a busy core climb to the EPP's ceiling. */
static void test_passive_hwp_request(void **state)
{
    (void)state;
    struct {
        const char *kernel, *gov;
        uint32_t min_mhz, desired_mhz;
    } c[] = {
        { "5.10", "schedutil", 3300, 0 },
        { "6.12", "schedutil", 800, 3300 },
        { "6.12", "ondemand", 3300, 0 },
        { "6.17", "ondemand", 3300, 3300 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char sysfs[96];
        snprintf(sysfs, sizeof sysfs, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor=%s",
                 c[i].gov);
        struct cfx *f = cfx_new(c[i].kernel, "intel_pstate=passive", sysfs);
        struct cpufreq_policy *p = &f->w.cpufreq.policy[0];
        p->cur_khz = 3300000;
        intel_pstate_hwp_update_request(&f->w, p);
        assert_int_equal(p->hwp_req.min_mhz, c[i].min_mhz);
        assert_int_equal(p->hwp_req.desired_mhz, c[i].desired_mhz);
        assert_int_equal(p->hwp_req.max_mhz, p->max_khz / 1000);
        cfx_free(f);
    }
    struct cfx *f = cfx_settings(NULL, NULL, NULL);
    struct hwp_params prm;
    hwp_params_init(&prm, f->m);
    const struct hw_core_type *t = &f->m->types[0];
    struct hwp_request want = { .min_mhz = 800, .max_mhz = 5200, .desired_mhz = 1500, .epp = 128 };
    struct hwp_request floor = { .min_mhz = 1500, .max_mhz = 5200, .epp = 128 };
    assert_int_equal(hwp_select_mhz(&prm, t, 1.0, &want, UINT32_MAX), 1500);
    assert_int_equal(hwp_select_mhz(&prm, t, 0.0, &want, UINT32_MAX), 1500);
    assert_true(hwp_select_mhz(&prm, t, 1.0, &floor, UINT32_MAX) > 4000);
    want.desired_mhz = 6000;            /* above the maximum: the maximum */
    assert_int_equal(hwp_select_mhz(&prm, t, 0.0, &want, 4000), 4000);
    struct hwp_request pair[2] = { want, floor };
    pair[0].desired_mhz = 1200;
    pair[1].desired_mhz = 2100;         /* SMT: the most demanding thread */
    assert_int_equal(hwp_core_request(pair, 2).desired_mhz, 2100);
    cfx_free(f);
}

static void test_rate_limits(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, "intel_pstate=no_hwp", NULL);
    assert_int_equal(cpufreq_rate_limit_ns(f->w.cpufreq.driver, &f->kp.kernel), 500000);
    cfx_free(f);
    f = cfx_new(NULL, "intel_pstate=disable", NULL);
    const struct cpufreq_driver *acpi = f->w.cpufreq.driver;
    struct kversion k;
    kversion_parse("6.1", &k);
    assert_int_equal(cpufreq_rate_limit_ns(acpi, &k), 10 * SIM_NS_PER_MS);
    kversion_parse("6.10", &k);
    assert_int_equal(cpufreq_rate_limit_ns(acpi, &k), 2 * SIM_NS_PER_MS);
    kversion_parse("6.12", &k);
    assert_int_equal(cpufreq_rate_limit_ns(acpi, &k), 15 * SIM_NS_PER_US);
    cfx_free(f);
}

/* ---- HWP model ------------------------------------------------------------ */

static void test_hwp_monotone(void **state)
{
    (void)state;
    struct cfx *f = cfx_settings(NULL, NULL, NULL);
    struct hwp_params prm;
    hwp_params_init(&prm, f->m);
    const struct hw_core_type *t = &f->m->types[0];
    struct hwp_request r = { .min_mhz = 800, .max_mhz = 5200 };
    for (int epp = 0; epp <= 255; epp += 5) {
        uint32_t prev_busy = 0;
        for (double busy = 0; busy <= 1.0001; busy += 0.05) {
            r.epp = epp;
            uint32_t f0 = hwp_select_mhz(&prm, t, busy, &r, 5100);
            assert_true(f0 >= prev_busy);                  /* monotone in load */
            assert_true(f0 >= 800 && f0 <= 5100);
            if (epp > 0) {
                r.epp = epp - 5;
                assert_true(hwp_select_mhz(&prm, t, busy, &r, 5100) >= f0); /* in EPP */
            }
            prev_busy = f0;
        }
    }
    r.epp = 0;
    assert_int_equal(hwp_select_mhz(&prm, t, 0.01, &r, 5100), 5100);   /* race to max */
    r.epp = 255;
    assert_int_equal(hwp_select_mhz(&prm, t, 1.0, &r, 5100), 3200);    /* EPP 255: base */
    r.epp = 0x80;
    assert_int_equal(hwp_select_mhz(&prm, t, 0.6, &r, 4900), 4900);    /* turbo limit */
    assert_int_equal(hwp_select_mhz(&prm, t, 0.0, &r, 4900), 800);
    /* The core honours its most demanding thread. */
    struct hwp_request two[2] = { { 800, 3000, 0, 200 }, { 1200, 2000, 0, 100 } };
    struct hwp_request c = hwp_core_request(two, 2);
    assert_int_equal(c.min_mhz, 1200);
    assert_int_equal(c.max_mhz, 3000);
    assert_int_equal(c.epp, 100);
    cfx_free(f);
}

/* The saturated shortcut (intel_pstate's per-core memo) is hwp_select_mhz
 * itself wherever the filter is saturated, and is used nowhere else. */
static void test_hwp_saturated_shortcut(void **state)
{
    (void)state;
    struct cfx *f = cfx_settings(NULL, NULL, NULL);
    struct hwp_params prm;
    hwp_params_init(&prm, f->m);
    const struct hw_core_type *t = &f->m->types[0];
    int saturated = 0, not_saturated = 0;
    for (int epp = 0; epp <= 255; epp += 3)
        for (uint32_t min = 400; min <= 3600; min += 1100)
            for (uint32_t limit = 3000; limit <= 5300; limit += 700)
                for (double busy = 0; busy <= 1.0001; busy += 1.0 / 64) {
                    struct hwp_request r = { .min_mhz = min, .max_mhz = 5200, .epp = epp };
                    uint32_t want = hwp_select_mhz(&prm, t, busy, &r, limit);
                    if (hwp_busy_saturated(&prm, busy, &r)) {
                        saturated++;
                        assert_int_equal(hwp_saturated_mhz(&prm, t, &r, limit), want);
                        assert_int_equal(hwp_select_mhz(&prm, t, 1.0, &r, limit), want);
                    } else {
                        not_saturated++;
                        /* only below sat = busy_full x EPP / 255 */
                        assert_true(busy < prm.busy_full * epp / 255.0 + 1e-12);
                    }
                }
    assert_true(saturated > 0 && not_saturated > 0);
    struct hwp_request r = { .min_mhz = 800, .max_mhz = 5200, .epp = 0x80 };
    assert_false(hwp_busy_saturated(&prm, 0.25, &r));   /* sat = 128/255 */
    assert_true(hwp_busy_saturated(&prm, 0.51, &r));
    r.epp = 0;
    assert_false(hwp_busy_saturated(&prm, 0.0, &r));    /* EPP 0: any load races */
    assert_true(hwp_busy_saturated(&prm, 1e-9, &r));
    cfx_free(f);
}

/* Every thread of core c in mode md (C-state 0 when idle), at time 0. */
static void set_core_mode(struct hw_state *hw, int c, enum hw_thread_mode md)
{
    const struct hw_core *core = &hw->m->cores[c];
    for (int i = 0; i < core->nthreads; i++)
        hw_thread_set_mode(hw, core->cpus[i], md, 0, 0);
}

/* Turbo bins count active cores of the core's own type (P-cores and E-cores
 * have separate ratio-limit MSRs): 8 busy P-cores leave one busy E-core at the
 * E-cores' 1-core bin. */
static void test_turbo_bins_per_type(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, NULL, NULL);
    struct hw_state *hw = &f->w.hw;
    /* Through the threads' modes: hw keeps the active-core counts as cores
     * change state. Cores 0-7 P, 8 the first E. */
    for (int c = 0; c < f->m->ncores; c++)
        set_core_mode(hw, c, c <= 8 ? HW_THREAD_RUN : HW_THREAD_IDLE);
    assert_int_equal(f->m->cores[8].type, 1);
    assert_int_equal(hw_pkg_active_cores(hw, 0, 0), 8);
    assert_int_equal(hw_pkg_active_cores(hw, 0, 1), 1);
    assert_int_equal(hw_core_turbo_limit_mhz(hw, 0), 4900);   /* P, 8 active */
    assert_int_equal(hw_core_turbo_limit_mhz(hw, 8), 3900);   /* E, 1 active */
    for (int c = 9; c < f->m->ncores; c++)
        set_core_mode(hw, c, HW_THREAD_RUN);
    assert_int_equal(hw_core_turbo_limit_mhz(hw, 8), 3700);   /* E, 8 active */
    cfx_free(f);
}

/* A busy core's HWP chain lapses while its evaluations could change nothing
 * (intel_pstate.c, "lapsed chains"), and still moves the core to a new turbo
 * limit at the first evaluation at or after the change, on its grid: five
 * busy P-cores (the 4.9 GHz bin: a lapse relies on the run count) until one
 * goes idle (4 active: 5.0 GHz). */
static void test_hwp_lapse_turbo_change(void **state)
{
    (void)state;
    struct cfx *f = cfx_new(NULL, NULL, NULL);
    struct world *w = &f->w;
    struct probe pr[5] = { 0 };
    for (int i = 0; i < 5; i++) {
        task_init(&pr[i].t, probe_done, 2 * i);            /* cpu 2i: core i */
        task_set_affinity(&pr[i].t, 2 * i);
        sched_wake_task(w, &pr[i].t, (i == 4 ? 40.0 : 200.0) * SIM_NS_PER_MS, 2 * i);
    }
    world_run_until(w, 20 * SIM_NS_PER_MS);
    const struct cpufreq_hwp_core *h0 = &w->cpufreq.hwp_core[0];
    for (int c = 0; c < 5; c++)
        assert_true(w->cpufreq.hwp_core[c].lapsed && w->cpufreq.hwp_core[c].lapse_on_count);
    assert_int_equal(w->hw.core_mhz[0], 4900);
    sim_time_t grid_ns = h0->hc.last_ns, eval_ns = w->cpufreq.hwp_prm.eval_ns;
    /* Instant by instant until core 0 moves: the limit moved first. */
    sim_time_t lim_ns = -1, mhz_ns = -1;
    while (mhz_ns < 0 && w->q.now_ns < 150 * SIM_NS_PER_MS) {
        world_run_until(w, sim_eventq_peek(&w->q)->when_ns);
        if (lim_ns < 0 && hw_core_turbo_limit_mhz(&w->hw, 0) != 4900)
            lim_ns = w->q.now_ns;
        if (w->hw.core_mhz[0] != 4900)
            mhz_ns = w->q.now_ns;
    }
    assert_true(pr[4].done_ns > 0 && lim_ns >= pr[4].done_ns);
    assert_int_equal(hw_core_turbo_limit_mhz(&w->hw, 0), 5000);
    assert_int_equal(w->hw.core_mhz[0], 5000);
    sim_time_t first = grid_ns + (lim_ns - grid_ns + eval_ns - 1) / eval_ns * eval_ns;
    assert_int_equal(mhz_ns, first);
    assert_false(h0->lapsed);   /* 4 running cores: the count no longer holds */
    cfx_free(f);
}

/* ---- end to end: frequency shows in run time and power ------------------- */

/* 20 ms of reference work on cpu0 with its sibling idle. *irq_ns: the
 * time the interrupts taken on cpu0 while it ran (the ticks, a timer)
 * added to it (sched_irq_on_busy: wake_irq_ns each here, softirq_ns being
 * 0 on the quiet machine). */
static sim_time_t run_probe_irq(const char *cmdline, const char *sysfs, double *watts,
                                sim_time_t *irq_ns)
{
    struct cfx *f = cfx_new(NULL, cmdline, sysfs);
    struct probe pr = { 0 };
    task_init(&pr.t, probe_done, 0);
    world_measure_reset(&f->w);
    sched_wake_task(&f->w, &pr.t, 20.0 * SIM_NS_PER_MS, pr.t.prev_cpu);
    world_run_until(&f->w, 200 * SIM_NS_PER_MS);
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);
    *watts = rpt_set_get(&s, "core_watts")->value;
    rpt_set_free(&s);
    sim_time_t t = pr.done_ns;
    *irq_ns = (sim_time_t)f->w.sched.cpu[0].nr_busy_irqs * f->w.idle.wake_irq_ns;
    cfx_free(f);
    return t;
}

static sim_time_t run_probe(const char *cmdline, const char *sysfs, double *watts)
{
    sim_time_t irq_ns;
    return run_probe_irq(cmdline, sysfs, watts, &irq_ns);
}

static void test_speed_and_power(void **state)
{
    (void)state;
    double w_perf, w_hwp, w_hwp_power, w_gen, w_off;
    sim_time_t perf = run_probe("cpufreq.default_governor=performance", NULL, &w_perf);
    sim_time_t hwp = run_probe(NULL, NULL, &w_hwp);
    sim_time_t hwp_power = run_probe(NULL, "/sys/devices/system/cpu/cpu[0-1]/cpufreq/"
                                           "energy_performance_preference=power", &w_hwp_power);
    sim_time_t gen_irq_ns, off_irq_ns;
    sim_time_t gen = run_probe_irq("intel_pstate=passive cpufreq.default_governor=powersave",
                                   NULL, &w_gen, &gen_irq_ns);
    sim_time_t off = run_probe_irq("cpufreq.off=1", NULL, &w_off, &off_irq_ns);
    /* the ticks' handlers while it ran: one per 4 ms tick */
    assert_int_equal(off_irq_ns, 5 * 1500);
    /* Every run starts with C10's exit: the core's 159 us plus PC8's 142 us
     * (at time 0 the package is in PC8, some CPUs having picked C8 first),
     * then the cache refill (28 us at base). */
    sim_time_t exit_us = 159 + 142;
    sim_time_t wake = (exit_us + 28) * SIM_NS_PER_US;
    assert_true(llabs(off - (wake + 20 * SIM_NS_PER_MS + off_irq_ns)) < 5 * SIM_NS_PER_US);
    /* performance: the 1-core turbo bin (5.1 GHz) once the hardware has
     * re-evaluated (within hwp_eval_us); 4.9 GHz before (all cores were
     * active at boot). */
    assert_true(llabs(perf - (wake + (sim_time_t)(20e6 * 3200 / 5100))) < 100 * SIM_NS_PER_US);
    /* generic powersave (strict target): 800 MHz throughout, 4x base's time
     * for the work and the refill. */
    assert_true(llabs(gen - (exit_us + 4 * (20000 + 28)) * SIM_NS_PER_US - gen_irq_ns) <
                5 * SIM_NS_PER_US);
    /* HWP powersave ramps up: between performance and the generic powersave;
     * EPP power is slower (capped at base). */
    assert_true(perf < hwp && hwp < hwp_power && hwp_power < gen);
    assert_true(hwp_power > off);
    /* Energy per work: higher frequency costs the cores more power while
     * busy. (Package power need not follow: the uncore stays up while any
     * core is awake, so the 800 MHz run, 4x longer, can cost the package
     * more: race to idle.) */
    assert_true(w_perf > w_off && w_off > w_gen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pelt_cpu),
        cmocka_unit_test(test_fair_invariant),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_validate_and_offer),
        cmocka_unit_test(test_limits_and_switching),
        cmocka_unit_test(test_schedutil_freq),
        cmocka_unit_test(test_schedutil_lowers_after_idle),
        cmocka_unit_test(test_passive_hwp_request),
        cmocka_unit_test(test_rate_limits),
        cmocka_unit_test(test_hwp_monotone),
        cmocka_unit_test(test_hwp_saturated_shortcut),
        cmocka_unit_test(test_turbo_bins_per_type),
        cmocka_unit_test(test_hwp_lapse_turbo_change),
        cmocka_unit_test(test_speed_and_power),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
