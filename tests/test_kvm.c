/* KVM halt polling: the per-vCPU window rules on scripted halts, the
 * version-keyed defaults, kvm_arch_no_poll (poll-control MSR and the
 * kvm-powersave-nopoll patch with a fake cpufreq answer), the guest haltpoll
 * governor, whole-world runs on adl-desktop, a halt poll yielding to another
 * host task on its CPU (skx-2s fixture), and bad [vm] sections. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kvm/kvm.h"
#include "scenario/scenario.h"
#include "world.h"
#include "world_fixture.h"

#define US 1000

/* One halt as kvm_vcpu_halt sees it: clamp to max, then adjust. */
static int64_t halt(const struct kvm_halt_poll_params *p, int64_t max_ns, int64_t window_ns,
                    int64_t halt_ns)
{
    if (window_ns > max_ns)
        window_ns = max_ns;
    return kvm_halt_poll_adjust(p, max_ns, window_ns, halt_ns);
}

static void test_window_grow_cap_shrink0(void **state)
{
    (void)state;
    struct kvm_halt_poll_params p = { 200000, 2, 10000, 0 }; /* pre-6.11 defaults */
    int64_t w = 0;
    /* Short halts grow from grow_start, doubling. */
    const int64_t grow[] = { 10000, 20000, 40000, 80000, 160000 };
    for (int i = 0; i < 5; i++) {
        w = halt(&p, 200000, w, 90 * US);
        assert_int_equal(w, grow[i]);
    }
    /* 90 us now fits the window: unchanged. */
    w = halt(&p, 200000, w, 90 * US);
    assert_int_equal(w, 160000);
    /* 190 us: grows past the limit, clamped at the next halt. */
    w = halt(&p, 200000, w, 190 * US);
    assert_int_equal(w, 320000);
    w = halt(&p, 200000, w, 190 * US);
    assert_int_equal(w, 200000);
    /* A halt at the limit or longer with shrink 0: reset. */
    w = halt(&p, 200000, w, 200 * US);
    assert_int_equal(w, 200000); /* h <= window: unchanged */
    w = halt(&p, 200000, w, 1000 * US);
    assert_int_equal(w, 0);
    /* A long halt with a closed window changes nothing. */
    w = halt(&p, 200000, w, 5000 * US);
    assert_int_equal(w, 0);
}

static void test_window_shrink2_and_reset(void **state)
{
    (void)state;
    struct kvm_halt_poll_params p = { 200000, 2, 10000, 2 };
    int64_t w = 200000;
    const int64_t seq[] = { 100000, 50000, 25000, 12500, 0 }; /* 6250 < grow_start -> 0 */
    for (int i = 0; i < 5; i++) {
        w = halt(&p, 200000, w, 2000 * US);
        assert_int_equal(w, seq[i]);
    }
    /* Per-VM limit 0 (or halt_poll_ns=0): the window is 0 whatever happens. */
    assert_int_equal(halt(&p, 0, 160000, 50 * US), 0);
    /* grow = 0 never grows. */
    struct kvm_halt_poll_params g0 = { 200000, 0, 10000, 2 };
    assert_int_equal(halt(&g0, 200000, 0, 50 * US), 0);
    assert_int_equal(grow_halt_poll_ns(&g0, 40000), 40000);
    assert_int_equal(shrink_halt_poll_ns(&p, 15000), 0);
    assert_int_equal(shrink_halt_poll_ns(&p, 30000), 15000);
}

static void test_params_by_version(void **state)
{
    (void)state;
    struct kparams kp;
    struct diag d = { 0 };
    struct kvm_halt_poll_params p;
    kparams_init(&kp);
    assert_int_equal(kversion_parse("6.10", &kp.kernel), 0);
    kvm_halt_poll_params_get(&kp, &p);
    assert_int_equal(p.halt_poll_ns, 200000);
    assert_int_equal(p.grow, 2);
    assert_int_equal(p.grow_start, 10000);
    assert_int_equal(p.shrink, 0);
    assert_int_equal(kversion_parse("6.11", &kp.kernel), 0);
    kvm_halt_poll_params_get(&kp, &p);
    assert_int_equal(p.shrink, 2);
    assert_int_equal(kparams_set_sysfs(&kp, "/sys/module/kvm/parameters/halt_poll_ns_shrink", "4",
                                       "t", 1, &d), 0);
    assert_int_equal(kparams_set_cmdline(&kp, "kvm.halt_poll_ns", "50000", "t", 2, &d), 0);
    kvm_halt_poll_params_get(&kp, &p);
    assert_int_equal(p.shrink, 4);
    assert_int_equal(p.halt_poll_ns, 50000);
    kparams_destroy(&kp);
}

static void test_no_poll_decide(void **state)
{
    (void)state;
    /* MSR bit 0 clear: no polling, whatever else. */
    assert_true(kvm_arch_no_poll_decide(0, false, false));
    assert_true(kvm_arch_no_poll_decide(0, true, false));
    /* MSR allows polling: only the patch under powersave stops it. */
    assert_false(kvm_arch_no_poll_decide(1, false, false));
    assert_false(kvm_arch_no_poll_decide(1, false, true));
    assert_false(kvm_arch_no_poll_decide(1, true, false));
    assert_true(kvm_arch_no_poll_decide(1, true, true));
}

static void test_haltpoll_governor(void **state)
{
    (void)state;
    struct haltpoll_params p = { 200000, 2, 2, 50000, true };
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 0, 30 * US), 50000);
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 50000, 30 * US), 50000);
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 50000, 80 * US), 100000);
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 150000, 180 * US), 200000);
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 200000, 500 * US), 100000);
    p.allow_shrink = false;
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 200000, 500 * US), 200000);
    p.allow_shrink = true;
    p.shrink = 0;
    assert_int_equal(haltpoll_adjust_poll_limit(&p, 200000, 500 * US), 0);
}

/* ---- whole-world runs: one vCPU on adl-desktop, an interrupt every gap ---- */

struct vmfx {
    struct hw_machine *m;
    struct kparams kp;
    struct world w;
    struct kvm_guest_work gw;
    struct sim_event tick;
    sim_time_t gap_ns;
    struct kvm_vcpu *v;
    int done;
};

static bool fake_powersave(const struct world *w, int cpu)
{
    (void)w;
    (void)cpu;
    return true;
}

static bool fake_performance(const struct world *w, int cpu)
{
    (void)w;
    (void)cpu;
    return false;
}

static void vm_work_done(struct world *w, struct kvm_guest_work *gw)
{
    (void)w;
    struct vmfx *f = (struct vmfx *)((char *)gw - offsetof(struct vmfx, gw));
    f->done++;
}

/* An "I/O completion" for the vCPU every gap_ns. */
static void vm_tick(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct vmfx *f = (struct vmfx *)((char *)ev - offsetof(struct vmfx, tick));
    f->gw.work_ns = 5000;
    f->gw.fn = vm_work_done;
    kvm_vcpu_post(w, f->v, &f->gw, kvm_vcpu_cpu(f->v));
    sim_event_schedule(&w->q, &f->tick, w->q.now_ns + f->gap_ns);
}

static struct vmfx *vmfx_new_host(const char *kernel, bool patch, enum kvm_guest_idle gi,
                                  kvm_cpu_is_powersave_fn ps, sim_time_t gap_ns,
                                  bool shallow_host)
{
    struct vmfx *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load("machines/adl-desktop.ini", &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    fx_quiet_machine(f->m);
    kparams_init(&f->kp);
    assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    if (patch) {
        f->kp.patches = calloc(1, sizeof *f->kp.patches);
        f->kp.patches[0] = strdup("kvm-powersave-nopoll");
        f->kp.npatches = 1;
    }
    /* Host C-states up to C1E: these tests pin the halt-polling window
     * rules, and a halt that ends in a C10 + PC10 exit (680 us on this
     * machine) would be longer than every window (test_deep_host_idle). */
    struct diag d2 = { 0 };
    if (shallow_host)
        assert_int_equal(kparams_set_cmdline(&f->kp, "intel_idle.max_cstate", "2", "t", 1, &d2), 0);
    struct world_key key = { .seed = 7 };
    world_init(&f->w, f->m, &f->kp, &key);
    struct kvm_vm_config c;
    kvm_vm_config_init(&c, "g", 1);
    c.guest_idle = gi;
    /* No guest timers of its own: these tests pin the window rules on the
     * gaps vm_tick makes (the guest-timer tests have their own fixture). */
    c.guest_timer_hz = 0;
    c.npin = 1;
    c.pin[0] = 2;
    kvm_create_vms(&f->w, &c, 1);
    f->w.kvm.cpu_is_powersave = ps;
    f->v = kvm_get_vcpu(&f->w, 0, 0);
    f->gap_ns = gap_ns;
    sim_event_init(&f->tick, vm_tick);
    sim_event_schedule(&f->w.q, &f->tick, 1000);
    return f;
}

static struct vmfx *vmfx_new(const char *kernel, bool patch, enum kvm_guest_idle gi,
                             kvm_cpu_is_powersave_fn ps, sim_time_t gap_ns)
{
    return vmfx_new_host(kernel, patch, gi, ps, gap_ns, true);
}

static double vmfx_run(struct vmfx *f, const char *metric)
{
    world_run_until(&f->w, 5 * SIM_NS_PER_MS);
    world_measure_reset(&f->w);
    world_run_until(&f->w, 25 * SIM_NS_PER_MS);
    struct rpt_metric_set out = { 0 };
    world_collect_metrics(&f->w, &out);
    const struct rpt_metric_value *m = rpt_set_get(&out, metric);
    assert_non_null(m);
    double v = m->value;
    rpt_set_free(&out);
    return v;
}

static void vmfx_free(struct vmfx *f)
{
    world_destroy(&f->w);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

static void test_world_polls_short_gaps(void **state)
{
    (void)state;
    /* 100 us between interrupts: inside the 200 us limit, polling succeeds,
     * and the vCPU's host CPU spins about (100 - 5) / 100 of the time. */
    struct vmfx *f = vmfx_new("6.0", false, KVM_GUEST_IDLE_HALT, fake_powersave, 100 * US);
    double kvm_poll = vmfx_run(f, "kvm_poll_pct");
    double ncpus = f->m->ncpus;
    assert_true(kvm_poll * ncpus > 85 && kvm_poll * ncpus < 96);
    assert_true(f->v->halt_poll_ns >= 100000);
    assert_true(f->done > 200);
    struct rpt_metric_set out = { 0 };
    world_collect_metrics(&f->w, &out);
    assert_true(rpt_set_get(&out, "halt_poll_success_pct")->value > 99);
    assert_true(rpt_set_get(&out, "poll_pct")->value >= 0.98 * kvm_poll);
    rpt_set_free(&out);
    vmfx_free(f);
}

/* kvm_poll_pct over chosen CPUs (--cpus): the vCPU's halt polling counts on
 * its CPU (2), in % of that CPU's time, and on no other. */
static void test_world_poll_per_cpu(void **state)
{
    (void)state;
    struct vmfx *f = vmfx_new("6.0", false, KVM_GUEST_IDLE_HALT, fake_powersave, 100 * US);
    bool *cpus = calloc((size_t)f->m->ncpus, sizeof *cpus);
    cpus[2] = true;
    f->w.report_cpus = cpus;
    double host = vmfx_run(f, "kvm_poll_pct");
    struct rpt_metric_set out = { 0 };
    world_collect_metrics(&f->w, &out);
    double on2 = rpt_set_get(&out, "cpus.kvm_poll_pct")->value;
    assert_float_equal(on2, host * f->m->ncpus, 1e-9);
    assert_true(on2 > 85);
    assert_true(rpt_set_get(&out, "cpus.poll_pct")->value >= 0.98 * on2);
    cpus[2] = false;
    cpus[3] = true;
    world_collect_metrics(&f->w, &out);
    assert_float_equal(rpt_set_get(&out, "cpus.kvm_poll_pct")->value, 0, 0);
    rpt_set_free(&out);
    vmfx_free(f);
    free(cpus);
}

/* The same 100 us gaps with every host C-state allowed: the vCPU's CPU idles
 * with the tick stopped and the next timer far, so menu picks C10 and the
 * package reaches PC10; a halt then lasts at least that exit (159 + 521 us),
 * longer than halt_poll_ns, and with shrink 0 (6.0) each such halt shuts the
 * window again: polling never settles in. */
static void test_deep_host_idle(void **state)
{
    (void)state;
    struct vmfx *f = vmfx_new_host("6.0", false, KVM_GUEST_IDLE_HALT, fake_powersave, 100 * US,
                                   false);
    double kvm_poll = vmfx_run(f, "kvm_poll_pct") * f->m->ncpus;
    assert_true(kvm_poll < 50);
    assert_true(f->done < 200);
    vmfx_free(f);
}

static void test_world_long_gaps_close_window(void **state)
{
    (void)state;
    /* 1 ms between interrupts: every halt is longer than the limit, so with
     * shrink 0 the window stays shut after the first miss. */
    struct vmfx *f = vmfx_new("6.0", false, KVM_GUEST_IDLE_HALT, fake_performance, 1000 * US);
    assert_true(vmfx_run(f, "kvm_poll_pct") < 0.01);
    assert_int_equal(f->v->halt_poll_ns, 0);
    vmfx_free(f);
}

static void test_patch_needs_powersave(void **state)
{
    (void)state;
    /* With the patch: no polling under powersave ... */
    struct vmfx *f = vmfx_new("6.0", true, KVM_GUEST_IDLE_HALT, fake_powersave, 100 * US);
    assert_true(vmfx_run(f, "kvm_poll_pct") == 0);
    assert_int_equal(f->v->halt_attempted_poll, 0);
    assert_true(f->v->halt_wakeups > 100);
    vmfx_free(f);
    /* ... and polling as before under performance. */
    f = vmfx_new("6.0", true, KVM_GUEST_IDLE_HALT, fake_performance, 100 * US);
    assert_true(vmfx_run(f, "kvm_poll_pct") > 3);
    vmfx_free(f);
    /* The real cpufreq answer: whatever it says, the patch follows it. */
    f = vmfx_new("6.0", true, KVM_GUEST_IDLE_HALT, cpufreq_cpu_is_powersave, 100 * US);
    bool ps = cpufreq_cpu_is_powersave(&f->w, 2);
    double poll = vmfx_run(f, "kvm_poll_pct");
    assert_true(ps ? poll == 0 : poll > 3);
    vmfx_free(f);
}

static void test_msr_poll_control(void **state)
{
    (void)state;
    /* The guest haltpoll driver clears the MSR: the host never polls; the
     * guest polls itself instead (still POLL time on the host CPU). */
    struct vmfx *f = vmfx_new("6.12", false, KVM_GUEST_IDLE_HALTPOLL, fake_performance, 100 * US);
    assert_int_equal(f->v->msr_poll_control, 0);
    double kvm_poll = vmfx_run(f, "kvm_poll_pct");
    assert_true(kvm_poll == 0);
    assert_int_equal(f->v->halt_attempted_poll, 0);
    struct rpt_metric_set out = { 0 };
    world_collect_metrics(&f->w, &out);
    /* The guest window starts at guest_halt_poll_grow_start (50 us) and stays
     * there: the halt after each 50 us poll lasts ~45 us, not longer than the
     * window, so it never grows. Half of each 100 us gap is spent polling. */
    double poll_cpus = rpt_set_get(&out, "poll_pct")->value * f->m->ncpus;
    assert_true(poll_cpus > 45 && poll_cpus < 55);
    assert_int_equal(f->v->guest_poll_limit_ns, 50000);
    rpt_set_free(&out);
    vmfx_free(f);
}

static void test_per_vm_limit(void **state)
{
    (void)state;
    /* KVM_CAP_HALT_POLL = 50 us: 100 us gaps no longer fit, nothing polls. */
    struct vmfx *f = vmfx_new("6.0", false, KVM_GUEST_IDLE_HALT, fake_performance, 100 * US);
    f->v->kvm->cfg.halt_poll_ns = 50000;
    assert_true(vmfx_run(f, "kvm_poll_pct") * f->m->ncpus < 10);
    assert_true(f->v->halt_poll_ns <= 50000);
    vmfx_free(f);
}

/* ---- a halt poll stops when another task is runnable on its CPU ---- */

#define YIELD_CPU 2
#define YIELD_LIMIT_NS 1000000 /* kvm.halt_poll_ns: the VM's limit */

struct yieldfx {
    struct fx *f;
    struct kvm_vcpu *v;
    struct kvm_guest_work gw;
    struct probe p;
};

static void yield_work_done(struct world *w, struct kvm_guest_work *gw)
{
    (void)w;
    (void)gw;
}

/* Guest work of work_ns for the vCPU now (an interrupt if it is halted). */
static void yield_post(struct yieldfx *y, double work_ns)
{
    y->gw = (struct kvm_guest_work){ .work_ns = work_ns, .fn = yield_work_done };
    kvm_vcpu_post(&y->f->w, y->v, &y->gw, kvm_vcpu_cpu(y->v));
}

/* skx-2s at base frequency (kernel 6.12: shrink 2, limit 1 ms), one vCPU
 * with guest idle gi pinned to YIELD_CPU with window_ns, woken at 0 by guest
 * work of work_ns; a sleeping probe task pinned to the same CPU. */
static void yield_setup(struct yieldfx *y, enum kvm_guest_idle gi, int64_t window_ns,
                        double work_ns)
{
    memset(y, 0, sizeof *y);
    y->f = fx_new("kvm.halt_poll_ns=1000000", NULL);
    struct kvm_vm_config c;
    kvm_vm_config_init(&c, "g", 1);
    c.npin = 1;
    c.pin[0] = YIELD_CPU;
    c.guest_idle = gi;
    kvm_create_vms(&y->f->w, &c, 1);
    y->v = kvm_get_vcpu(&y->f->w, 0, 0);
    y->v->halt_poll_ns = window_ns; /* as if it had grown there */
    task_init(&y->p.t, probe_done, YIELD_CPU);
    task_set_affinity(&y->p.t, YIELD_CPU);
    yield_post(y, work_ns);
}

/* Run until the vCPU is in state st (at most 1 ms, 1 us steps): its wakeup
 * from the host C-state takes what the idle governor chose. */
static void yield_run_to(struct yieldfx *y, enum kvm_vcpu_state st)
{
    struct world *w = &y->f->w;
    sim_time_t end_ns = w->q.now_ns + 1000 * US;
    while (y->v->state != st && w->q.now_ns < end_ns)
        world_run_until(w, w->q.now_ns + US);
    assert_int_equal(y->v->state, st);
}

/* The probe's 10 us of work, run from start_ns without a wait: the end of
 * its segment at the speed it ran. */
static sim_time_t yield_probe_end(const struct yieldfx *y, sim_time_t start_ns)
{
    return start_ns + (sim_time_t)ceil(10.0 * US / y->p.t.speed);
}

/* A vCPU polls with a 1 ms window (the limit) or a 500 us one; a
 * task is woken onto its CPU probe_ns into the halt and the guest's interrupt
 * comes irq_ns into it. The kernel stops the poll at the wakeup
 * (kvm_vcpu_can_poll), the task runs at once (the CPU is in C0: no exit
 * latency), the vCPU blocks, and the halt counts as a failed poll whose
 * window is adjusted from the whole halt h: want_window_ns. */
static void yield_case(int64_t window_ns, sim_time_t probe_ns, sim_time_t irq_ns,
                       int64_t want_window_ns)
{
    struct yieldfx y;
    yield_setup(&y, KVM_GUEST_IDLE_HALT, window_ns, 5 * US);
    yield_run_to(&y, KVM_VCPU_HALT_POLL);
    sim_time_t halt_ns = y.v->halt_start_ns, wake_ns = halt_ns + probe_ns;
    world_run_until(&y.f->w, wake_ns);
    sched_wake_task(&y.f->w, &y.p.t, 10 * US, y.p.t.prev_cpu);
    world_run_until(&y.f->w, wake_ns + 50 * US);
    /* The probe ran from its wakeup, not after the window. */
    assert_int_equal(y.p.ran_on, YIELD_CPU);
    assert_int_equal(y.p.done_ns, yield_probe_end(&y, wake_ns));
    assert_int_equal(y.v->state, KVM_VCPU_BLOCKED);
    assert_int_equal(y.v->halt_poll_ns_total, probe_ns);
    /* The interrupt wakes the blocked thread; the halt is over when it is
     * back in the guest, so h is irq_ns plus the CPU's wakeup. */
    world_run_until(&y.f->w, halt_ns + irq_ns);
    yield_post(&y, 5 * US);
    world_run_until(&y.f->w, halt_ns + irq_ns + 200 * US);
    /* The vCPU has halted again after the interrupt's work and polls with
     * the adjusted window. */
    assert_int_equal(y.v->state, KVM_VCPU_HALT_POLL);
    assert_int_equal(y.v->halts, 2);
    assert_int_equal(y.v->halt_attempted_poll, 2);
    assert_int_equal(y.v->halt_successful_poll, 0);
    assert_int_equal(y.v->halt_wakeups, 2); /* the setup's and the interrupt's */
    assert_int_equal(y.v->halt_poll_ns, want_window_ns);
    fx_free(y.f);
}

static void test_poll_yields_window_kept(void **state)
{
    (void)state;
    /* h ~ 400 us <= window 1 ms: unchanged, though the poll failed. */
    yield_case(YIELD_LIMIT_NS, 100 * US, 400 * US, YIELD_LIMIT_NS);
}

static void test_poll_yields_window_shrinks(void **state)
{
    (void)state;
    /* h ~ 1.5 ms > limit 1 ms: shrink, 1 ms / 2. */
    yield_case(YIELD_LIMIT_NS, 100 * US, 1500 * US, YIELD_LIMIT_NS / 2);
}

static void test_poll_yields_window_grows(void **state)
{
    (void)state;
    /* Window 500 us, h ~ 700 us < limit: grow x2 to 1 ms. The poll itself
     * lasted 100 us; the rule reads the whole halt. */
    yield_case(YIELD_LIMIT_NS / 2, 100 * US, 700 * US, YIELD_LIMIT_NS);
}

static void test_poll_not_started_behind_queued_task(void **state)
{
    (void)state;
    /* The probe is queued while the vCPU runs 50 us of guest work (no
     * preemption: it waits). At the HLT the thread is not alone on its CPU,
     * so the poll loop stops after its first check: no poll time, the probe
     * runs at once, the vCPU blocks, and an interrupt inside the window
     * finds it blocked (a failed poll). */
    struct yieldfx y;
    yield_setup(&y, KVM_GUEST_IDLE_HALT, YIELD_LIMIT_NS, 50 * US);
    yield_run_to(&y, KVM_VCPU_RUN);
    sched_wake_task(&y.f->w, &y.p.t, 10 * US, y.p.t.prev_cpu);
    yield_run_to(&y, KVM_VCPU_BLOCKED);
    world_run_until(&y.f->w, y.f->w.q.now_ns + 100 * US);
    sim_time_t halt_ns = y.v->halt_start_ns;
    assert_int_equal(y.p.done_ns, yield_probe_end(&y, halt_ns));
    assert_int_equal(y.v->state, KVM_VCPU_BLOCKED);
    assert_int_equal(y.v->halts, 1);
    assert_int_equal(y.v->halt_attempted_poll, 1);
    assert_int_equal(y.v->halt_poll_ns_total, 0);
    yield_post(&y, 5 * US);
    yield_run_to(&y, KVM_VCPU_HALT_POLL);
    /* The next halt is alone on the CPU and polls; the blocked one failed
     * and, at h ~ 100 us <= 1 ms, kept its window. */
    assert_int_equal(y.v->halts, 2);
    assert_int_equal(y.v->halt_attempted_poll, 2);
    assert_int_equal(y.v->halt_successful_poll, 0);
    assert_int_equal(y.v->halt_wakeups, 2);
    assert_int_equal(y.v->halt_poll_ns, YIELD_LIMIT_NS);
    fx_free(y.f);
}

static void test_guest_poll_keeps_cpu(void **state)
{
    (void)state;
    /* Guest haltpoll polling is guest mode, not KVM's loop: pmlab does not
     * preempt it, so a task woken onto its CPU waits for the guest's window
     * to run out. */
    struct yieldfx y;
    yield_setup(&y, KVM_GUEST_IDLE_HALTPOLL, 0, 5 * US); /* the MSR stops host polling */
    yield_run_to(&y, KVM_VCPU_GUEST_POLL);
    /* The first halt (born halted, ~120 us) grew the window from 0 to
     * guest_halt_poll_grow_start. */
    sim_time_t poll_ns = y.v->idle_start_ns, wake_ns = poll_ns + 10 * US;
    int64_t limit_ns = y.v->guest_poll_limit_ns;
    assert_int_equal(limit_ns, 50 * US);
    world_run_until(&y.f->w, wake_ns);
    sched_wake_task(&y.f->w, &y.p.t, 10 * US, y.p.t.prev_cpu);
    world_run_until(&y.f->w, poll_ns + 200 * US);
    assert_int_equal(y.p.done_ns, yield_probe_end(&y, poll_ns + limit_ns));
    fx_free(y.f);
}


/* ---- the guest's timers ---- */

#define GT_CPU 2

/* adl-desktop, kernel 6.0, host C-states up to C1E, one vCPU pinned to
 * GT_CPU whose [vm] keys are c's (VM halt_poll_ns limit 2 ms unless set), no
 * host housekeeping timers on GT_CPU (so its sleep length is the guest's
 * alone) and no guest work but what a test posts. */
struct gtfx {
    struct hw_machine *m;
    struct kparams kp;
    struct world w;
    struct kvm_vcpu *v;
    struct kvm_guest_work gw;
};

static void gt_work_done(struct world *w, struct kvm_guest_work *gw)
{
    (void)w;
    (void)gw;
}

static struct gtfx *gtfx_new(const struct kvm_vm_config *c)
{
    struct gtfx *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load("machines/adl-desktop.ini", &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    kparams_init(&f->kp);
    assert_int_equal(kversion_parse("6.0", &f->kp.kernel), 0);
    assert_int_equal(kparams_set_cmdline(&f->kp, "intel_idle.max_cstate", "2", "t", 1, &d), 0);
    struct world_key key = { .seed = 7 };
    world_init(&f->w, f->m, &f->kp, &key);
    idle_set_irq_rates(&f->w, GT_CPU, 0, 0);
    struct kvm_vm_config cc = *c;
    cc.npin = 1;
    cc.pin[0] = GT_CPU;
    kvm_create_vms(&f->w, &cc, 1);
    f->v = kvm_get_vcpu(&f->w, 0, 0);
    return f;
}

/* A [vm] config with the guest timer keys given. */
static struct kvm_vm_config gt_config(bool nohz, int hz, double own_hz)
{
    struct kvm_vm_config c;
    kvm_vm_config_init(&c, "g", 1);
    c.guest_nohz = nohz;
    c.guest_hz = hz;
    c.guest_timer_hz = own_hz;
    c.guest_timer_pattern = KVM_GUEST_TIMER_PERIODIC;
    c.halt_poll_ns = 2 * SIM_NS_PER_MS;
    return c;
}

static void gtfx_post(struct gtfx *f, double work_ns)
{
    f->gw = (struct kvm_guest_work){ .work_ns = work_ns, .fn = gt_work_done };
    kvm_vcpu_post(&f->w, f->v, &f->gw, kvm_vcpu_cpu(f->v));
}

/* Run in 1 us steps until the vCPU is in state st (at most 20 ms). */
static void gtfx_run_to(struct gtfx *f, enum kvm_vcpu_state st)
{
    sim_time_t end_ns = f->w.q.now_ns + 20 * SIM_NS_PER_MS;
    while (f->v->state != st && f->w.q.now_ns < end_ns)
        world_run_until(&f->w, f->w.q.now_ns + US);
    assert_int_equal(f->v->state, st);
}

static void gtfx_free(struct gtfx *f)
{
    world_destroy(&f->w);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

static void test_guest_timer_in_host_sleep_length(void **state)
{
    (void)state;
    /* A guest ticking at 1000 Hz (no nohz): while its vCPU is blocked, the
     * next tick is an hrtimer on the vCPU's CPU and the host governor's
     * sleep length there ends at it (arch/x86/kvm/x86.c vcpu_block ->
     * kvm_lapic_switch_to_sw_timer). Without it the CPU has no timer. */
    struct kvm_vm_config c = gt_config(false, 1000, 0);
    struct gtfx *f = gtfx_new(&c);
    world_run_until(&f->w, 2500 * US);
    while (f->v->state != KVM_VCPU_BLOCKED || !f->w.idle.cpu[GT_CPU].in_idle)
        world_run_until(&f->w, f->w.q.now_ns + US);
    sim_time_t now = f->w.q.now_ns;
    sim_time_t next_tick = (now / SIM_NS_PER_MS + 1) * SIM_NS_PER_MS;
    assert_int_equal(f->v->sw_timer_cpu, GT_CPU);
    assert_int_equal(f->w.idle.cpu[GT_CPU].guest_timer_ns, next_tick);
    /* The governor was told a sleep length ending at the guest's tick. */
    assert_true(f->w.idle.dev[GT_CPU].next_timer_ns > 0);
    assert_true(f->w.idle.dev[GT_CPU].next_timer_ns <= SIM_NS_PER_MS);
    assert_int_equal(f->w.idle.cpu[GT_CPU].entered_ns + f->w.idle.dev[GT_CPU].next_timer_ns,
                     next_tick);
    /* Running guest work, the timer is the hypervisor timer: no host hrtimer. */
    gtfx_post(f, 3000.0 * US);
    gtfx_run_to(f, KVM_VCPU_RUN);
    assert_int_equal(f->v->sw_timer_cpu, -1);
    assert_int_equal(f->w.idle.cpu[GT_CPU].guest_timer_ns, SIM_TIME_MAX);
    gtfx_free(f);
}

static void test_guest_timer_wakes_vcpu_into_poll_window(void **state)
{
    (void)state;
    /* Nothing but the guest's 1 ms tick wakes the vCPU: each expiry kicks
     * it (apic_timer_fn -> kvm_vcpu_kick), the guest runs its timer
     * interrupt and halts again. Each halt (~1 ms, under the VM's 2 ms
     * limit) grows the window until it covers the next tick, and then the
     * polls succeed (kvm_vcpu_halt). */
    struct kvm_vm_config c = gt_config(false, 1000, 0);
    struct gtfx *f = gtfx_new(&c);
    world_run_until(&f->w, 40 * SIM_NS_PER_MS);
    assert_true(f->v->guest_timer_wakeups >= 38);
    assert_true(f->v->guest_timer_wakeups <= 41);
    assert_true(f->v->halts >= 38);
    assert_true(f->v->halt_poll_ns >= SIM_NS_PER_MS);
    assert_true(f->v->halt_successful_poll >= 20);
    /* Guest nohz and an idle guest: the tick is stopped and nothing wakes it. */
    struct kvm_vm_config c2 = gt_config(true, 1000, 0);
    struct gtfx *g = gtfx_new(&c2);
    world_run_until(&g->w, 40 * SIM_NS_PER_MS);
    assert_int_equal(g->v->guest_timer_wakeups, 0);
    assert_int_equal(g->v->halt_poll_ns, 0);
    gtfx_free(g);
    gtfx_free(f);
}

static void test_guest_own_timers_wake_nohz_guest(void **state)
{
    (void)state;
    /* A nohz guest's own timers (500/s, periodic) still expire while its
     * tick is stopped: each is a host hrtimer while halted and a wake-up. */
    struct kvm_vm_config c = gt_config(true, 1000, 500);
    struct gtfx *f = gtfx_new(&c);
    world_run_until(&f->w, 40 * SIM_NS_PER_MS);
    assert_true(f->v->guest_timer_wakeups >= 19);
    assert_true(f->v->guest_timer_wakeups <= 20);
    assert_false(f->v->guest_tick_running);
    gtfx_free(f);
}

static void test_guest_nohz_stops_tick_on_idle(void **state)
{
    (void)state;
    /* nohz guest: busy, its tick runs (tick_nohz_idle_exit); at the HLT
     * default_idle stops it (cpuidle_idle_call: tick_nohz_idle_stop_tick),
     * and the host CPU sees no guest timer. */
    struct kvm_vm_config c = gt_config(true, 1000, 0);
    struct gtfx *f = gtfx_new(&c);
    world_run_until(&f->w, 1000 * US);
    assert_false(f->v->guest_tick_running);
    gtfx_post(f, 10000.0 * US);
    gtfx_run_to(f, KVM_VCPU_RUN);
    assert_true(f->v->guest_tick_running);
    assert_true(sim_event_pending(&f->v->guest_timer_ev));
    while (f->v->state == KVM_VCPU_RUN || f->v->state == KVM_VCPU_WAKING ||
           f->v->head != NULL)
        world_run_until(&f->w, f->w.q.now_ns + US);
    assert_false(f->v->guest_tick_running);
    assert_false(sim_event_pending(&f->v->guest_timer_ev));
    assert_int_equal(f->w.idle.cpu[GT_CPU].guest_timer_ns, SIM_TIME_MAX);
    /* The busy period (10 ms of reference-core work) saw ticks: interrupts in the guest, no wake-ups. */
    assert_true(f->v->guest_timer_irqs >= 2);
    assert_int_equal(f->v->guest_timer_wakeups, 0);
    gtfx_free(f);
}

static void test_guest_keeps_tick_for_near_timer(void **state)
{
    (void)state;
    /* nohz guest whose own timers come every 0.5 ms: at each HLT the next
     * one is due within a guest tick of its last jiffy, so the guest's
     * tick_nohz_next_event keeps the tick (as the host's does) and the
     * host CPU sees the guest's next tick or timer, never more than 1 ms
     * away. With timers 20 ms apart the tick stops at the HLT. */
    for (int near = 1; near >= 0; near--) {
        struct kvm_vm_config c = gt_config(true, 1000, near ? 2000 : 50);
        struct gtfx *f = gtfx_new(&c);
        world_run_until(&f->w, 1000 * US);
        gtfx_post(f, 3000.0 * US);
        gtfx_run_to(f, KVM_VCPU_RUN);
        assert_true(f->v->guest_tick_running);
        while (f->v->state == KVM_VCPU_RUN || f->v->state == KVM_VCPU_WAKING ||
               f->v->head != NULL)
            world_run_until(&f->w, f->w.q.now_ns + US);
        assert_int_equal(f->v->guest_tick_running, near);
        if (near)
            assert_true(f->w.idle.cpu[GT_CPU].guest_timer_ns - f->w.q.now_ns <= SIM_NS_PER_MS);
        gtfx_free(f);
    }
}

static void test_guest_timer_past_deadline_fires_now(void **state)
{
    (void)state;
    /* Own timers every 1 us (more than a [vm] section allows, to be sure):
     * the next comes due while the vCPU is still on its way back from the
     * last wake-up, before its handler re-arms the LAPIC. The handler's past
     * deadline fires at once (as a TSC deadline written in the past does);
     * it is never queued behind the clock (eventq_insert asserts it in the
     * assertion builds). */
    struct kvm_vm_config c = gt_config(true, 1000, 1e6);
    struct gtfx *f = gtfx_new(&c);
    for (sim_time_t t = US; t <= 2 * SIM_NS_PER_MS; t += US) {
        world_run_until(&f->w, t);
        const struct sim_event *ev = &f->v->guest_timer_ev;
        assert_true(!sim_event_pending(ev) || ev->when_ns >= f->w.q.now_ns);
    }
    assert_true(f->v->guest_timer_irqs > 50);
    gtfx_free(f);
}

static void test_guest_haltpoll_poll_keeps_tick(void **state)
{
    (void)state;
    /* The guest haltpoll governor clears stop_tick when it polls
     * (haltpoll_select): the tick runs on through the guest's poll. */
    struct kvm_vm_config c = gt_config(true, 1000, 0);
    c.guest_idle = KVM_GUEST_IDLE_HALTPOLL;
    struct gtfx *f = gtfx_new(&c);
    world_run_until(&f->w, 1000 * US);
    f->v->guest_poll_limit_ns = 200 * US; /* as if it had grown there */
    gtfx_post(f, 10.0 * US);
    gtfx_run_to(f, KVM_VCPU_GUEST_POLL);
    assert_true(f->v->guest_tick_running);
    gtfx_free(f);
}

/* ---- [vm] sections ---- */

static struct scenario *load_text(const char *text, struct diag *d, char *path, size_t size)
{
    snprintf(path, size, "/tmp/pmlab-test-kvm-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    struct scenario_load_opts o = { .machine_dirs = "machines" };
    struct scenario *s = scenario_load(path, &o, d);
    unlink(path);
    return s;
}

static void expect_error(const char *vm_section, int line, const char *text)
{
    char buf[2048], path[64], prefix[128];
    snprintf(buf, sizeof buf,
             "[scenario]\nmachine = adl-desktop\n[workload]\ntype = fio\n[variant a]\n%s",
             vm_section);
    struct diag d = { 0 };
    struct scenario *s = load_text(buf, &d, path, sizeof path);
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    if (s || strncmp(d.msg, prefix, strlen(prefix)) != 0 || !strstr(d.msg, text))
        fail_msg("expected '%s...%s', got '%s'", prefix, text, d.msg);
    scenario_free(s);
}

static void test_bad_vm_sections(void **state)
{
    (void)state;
    expect_error("[vm g]\nvcpus = 2\npin = 0,99\n", 6, "CPU 99 does not exist");
    expect_error("[vm g]\nvcpus = 30\n", 6, "30 vCPUs on 24 host CPUs");
    expect_error("[vm g]\nvcpus = 4\npin = 0,0,2,2\n", 6, "4 vCPUs on 2 host CPUs");
    expect_error("[vm g]\nvcpus = 4\npin = 0-2\n", 6, "pin lists 3 CPUs for 4 vCPUs");
    expect_error("[vm g]\nvcpus = 2\nfrequency = 3\n", 8, "unknown key 'frequency' in [vm]");
    expect_error("[vm g]\nguest_cpuidle = menu\n", 7, "is not one of: halt haltpoll");
    expect_error("[vm g]\npin = 0-x\n", 7, "not a CPU list");
    expect_error("[vm g]\n[vm g]\n", 7, "duplicate vm 'g'");
    expect_error("[vm]\n", 6, "[vm] needs a name");
    expect_error("[vm g]\nguest_hz = 200\n", 7, "guest_hz: expected 100, 250, 300 or 1000");
    expect_error("[vm g]\nguest_nohz = maybe\n", 7, "guest_nohz: expected yes or no");
    expect_error("[vm g]\nguest_timer_hz = -1\n", 7, "guest_timer_hz: expected timers per second");
    expect_error("[vm g]\nguest_timer_hz = nan\n", 7, "guest_timer_hz: expected timers per second");
    expect_error("[vm g]\nguest_timer_pattern = bursty\n", 7, "is not one of: poisson periodic");
    expect_error("[vm g]\nguest_timer_irq_us = x\n", 7, "guest_timer_irq_us: expected microseconds");
}

static void test_good_vm_section(void **state)
{
    (void)state;
    char path[64];
    struct diag d = { 0 };
    struct scenario *s = load_text(
        "[scenario]\nmachine = adl-desktop\n[workload]\ntype = fio\n[variant a]\n"
        "[vm big]\nvcpus = 4\npin = 0,0,2,2\novercommit = yes\nguest_cpuidle = haltpoll\n"
        "halt_poll_ns = 50000\nguest_halt_poll_ns = 400000\n"
        "guest_hz = 250\nguest_nohz = no\nguest_timer_hz = 20.5\nguest_timer_pattern = periodic\n"
        "guest_timer_irq_us = 3\n",
        &d, path, sizeof path);
    if (!s)
        fail_msg("%s", d.msg);
    assert_int_equal(s->nvms, 1);
    assert_string_equal(s->vms[0].name, "big");
    assert_int_equal(s->vms[0].nvcpus, 4);
    assert_int_equal(s->vms[0].npin, 4);
    assert_int_equal(s->vms[0].pin[3], 2);
    assert_int_equal(s->vms[0].guest_idle, KVM_GUEST_IDLE_HALTPOLL);
    assert_int_equal(s->vms[0].halt_poll_ns, 50000);
    assert_int_equal(s->vms[0].guest_halt_poll_ns, 400000);
    assert_int_equal(s->vms[0].guest_hz, 250);
    assert_false(s->vms[0].guest_nohz);
    assert_true(s->vms[0].guest_timer_hz == 20.5);
    assert_int_equal(s->vms[0].guest_timer_pattern, KVM_GUEST_TIMER_PERIODIC);
    assert_true(s->vms[0].guest_timer_irq_us == 3.0);
    scenario_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_grow_cap_shrink0),
        cmocka_unit_test(test_window_shrink2_and_reset),
        cmocka_unit_test(test_params_by_version),
        cmocka_unit_test(test_no_poll_decide),
        cmocka_unit_test(test_haltpoll_governor),
        cmocka_unit_test(test_world_polls_short_gaps),
        cmocka_unit_test(test_world_long_gaps_close_window),
        cmocka_unit_test(test_deep_host_idle),
        cmocka_unit_test(test_patch_needs_powersave),
        cmocka_unit_test(test_msr_poll_control),
        cmocka_unit_test(test_per_vm_limit),
        cmocka_unit_test(test_poll_yields_window_kept),
        cmocka_unit_test(test_poll_yields_window_shrinks),
        cmocka_unit_test(test_poll_yields_window_grows),
        cmocka_unit_test(test_poll_not_started_behind_queued_task),
        cmocka_unit_test(test_guest_poll_keeps_cpu),
        cmocka_unit_test(test_bad_vm_sections),
        cmocka_unit_test(test_good_vm_section),
        cmocka_unit_test(test_world_poll_per_cpu),
        cmocka_unit_test(test_guest_timer_in_host_sleep_length),
        cmocka_unit_test(test_guest_timer_wakes_vcpu_into_poll_window),
        cmocka_unit_test(test_guest_own_timers_wake_nohz_guest),
        cmocka_unit_test(test_guest_nohz_stops_tick_on_idle),
        cmocka_unit_test(test_guest_keeps_tick_for_near_timer),
        cmocka_unit_test(test_guest_haltpoll_poll_keeps_tick),
        cmocka_unit_test(test_guest_timer_past_deadline_fires_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
