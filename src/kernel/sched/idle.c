/* idle: the per-CPU idle loop and the physics of idle entry and exit, see
 * idle.h. Follows v6.x: cpuidle_idle_call asking the governor with the sleep
 * length and delta_next (kernel/time/tick_sched.c), the governor's stop-tick
 * decision, the POLL state's time limit, PM QoS latency limits, and the
 * driver's entry method deciding IRQ state and IBRS handling (FACTS.md §1-2,
 * FACTS-2.md §1).
 *
 * Departures: the only timers are the tick, one housekeeping timer stream
 * and one deferrable timer per CPU, a workload's own hrtimers and a halted
 * vCPU's guest timer; the only interrupts besides them, task wake-up IPIs
 * and device interrupts (a busy CPU's handlers cost nothing); the SPEC_CTRL
 * write before MWAIT is not charged (it is off the wakeup's critical path); a tick on a polling CPU (idle=poll) costs nothing;
 * s2idle and TIMER_STOP broadcast are not modelled. */
#include "kernel/sched/idle.h"
#include "kernel/tracepoints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cpu.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/idle/intel_idle.h"
#include "kernel/irq/wakeup_chain.h"
#include "kernel/time/hrtimer.h"
#include "kernel/time/tick_sched.h"
#include "kernel/time/timer.h"
#include "kernel/x86/bugs.h"
#include "util/strutil.h"
#include "util/xalloc.h"
#include "world.h"
#include "util/container.h"


/* Mean interval between housekeeping timers on one CPU, ns, unless a
 * workload sets rates (idle_set_irq_rates). Calibrated to data/hosts/adl0
 * (idle i7-1260P, Fedora): /proc/interrupts LOC grew by ~8.5 per CPU per
 * second over 115 s, tick included; rpl0 shows ~4-5/s. */
#define IDLE_BG_TIMER_MEAN_NS (118 * SIM_NS_PER_MS)

/* PM QoS: the smaller of the global CPU latency limit and the CPU's resume
 * latency limit, both µs, as ns (cpuidle_governor_latency_req). */
static int64_t idle_latency_req_ns(const struct world *w, int cpu)
{
    int64_t global_us = kparams_get(w->kp, "cpu_dma_latency", cpu, -1);
    int64_t resume_us = kparams_get(w->kp, "pm_qos_resume_latency_us", cpu, -1);
    int64_t us = global_us < resume_us ? global_us : resume_us;
    return us * SIM_NS_PER_US;
}

static int idle_hz(const struct kparams *kp)
{
    static const int hz[] = { 100, 250, 300, 1000 }; /* tick_params CONFIG_HZ choices */
    return hz[kparams_get(kp, "CONFIG_HZ", 0, -1)];
}

static sim_time_t idle_tick_period_ns(const struct world *w)
{
    return SIM_NS_PER_S / idle_hz(w->kp);
}

/* Decide the idle mode the way the kernel does at boot: idle=poll, then
 * cpuidle.off or idle=halt/nomwait (no cpuidle driver: default_idle), then
 * the first registered cpuidle driver that loads on the machine (intel_idle,
 * then acpi_idle: kernel/cpuidle/driver.h). Fills drv when one registers, and
 * source (may be NULL) with where its states come from. */
static enum idle_mode idle_probe(const struct hw_machine *m, const struct kparams *kp,
                                 struct cpuidle_driver *drv, char *why, size_t whysize,
                                 char *source, size_t sourcesize)
{
    int64_t idle_opt = kparams_get(kp, "idle", 0, -1); /* "", poll, halt, nomwait */
    if (idle_opt == 1) {
        str_copy(why, whysize, "idle=poll: the CPUs spin");
        return IDLE_MODE_POLL;
    }
    if (kparams_get(kp, "cpuidle.off", 0, -1) != 0) {
        str_copy(why, whysize, "cpuidle.off=1: default_idle (HLT)");
        return IDLE_MODE_HALT;
    }
    struct cpuidle_probe_result r;
    if (cpuidle_driver_probe(m, kp, drv, &r) != 0) {
        str_copy(why, whysize, r.why_not);
        return IDLE_MODE_HALT;
    }
    if (source)
        str_copy(source, sourcesize, r.source);
    return IDLE_MODE_CPUIDLE;
}

int idle_validate(const struct hw_machine *m, const struct kparams *kp, const char *file,
                  struct diag *d)
{
    struct cpuidle_driver drv;
    char why[CPUIDLE_WHY_LEN] = "";
    memset(&drv, 0, sizeof drv);
    enum idle_mode mode = idle_probe(m, kp, &drv, why, sizeof why, NULL, 0);
    const struct kparam *gp = kparam_find("cpuidle.governor");
    for (int i = 0; i < kp->nset; i++) {
        const struct ksetting *s = &kp->set[i];
        if (s->param == gp && !cpuidle_find_governor(gp->choices[s->value]))
            return diag_error(d, file, s->line,
                              "cpuidle.governor=%s: pmlab models that governor only inside a "
                              "guest ([vm] guest_cpuidle = haltpoll)", gp->choices[s->value]);
    }
    const struct kparam *p = kparam_find("cpuidle.state_disable");
    for (int i = 0; i < kp->nset; i++) {
        const struct ksetting *s = &kp->set[i];
        if (s->param != p)
            continue;
        if (mode != IDLE_MODE_CPUIDLE)
            return diag_error(d, file, s->line,
                              "cpuidle state%d/disable: no cpuidle driver in this variant (%s), "
                              "so the file does not exist", s->state, why);
        if (s->state >= drv.state_count)
            return diag_error(d, file, s->line,
                              "cpuidle state%d/disable: %s has states 0..%d on %s", s->state,
                              drv.name, drv.state_count - 1, m->name);
    }
    return 0;
}

static bool idle_nohz(const struct kparams *kp)
{
    return kparams_get(kp, "CONFIG_NO_HZ_IDLE", 0, -1) && kparams_get(kp, "nohz", 0, -1);
}

static const struct cpuidle_governor *idle_pick_governor(const struct kparams *kp)
{
    if (kparams_is_set(kp, "cpuidle.governor")) {
        const struct kparam *p = kparam_find("cpuidle.governor");
        const char *name = p->choices[kparams_get(kp, "cpuidle.governor", 0, -1)];
        const struct cpuidle_governor *g = cpuidle_find_governor(name);
        if (g)
            return g;
    }
    return cpuidle_default_governor(idle_nohz(kp));
}

/* The device-tree state of type t whose arm,psci-suspend-param is param, or -1. */
static int idle_psci_hw_state(const struct hw_core_type *t, uint32_t param)
{
    for (int k = 0; k < t->ncstates; k++)
        if (t->cstates[k].dt_state && t->cstates[k].psci_suspend_param == param)
            return k;
    return -1;
}

/* The hardware C-state a driver state puts cpu in: found by MWAIT hint; a
 * hint the machine file lacks falls back to the next shallower state's, and
 * POLL/HLT-type states to the shallowest. */
static int idle_hw_state_of(const struct world *w, int cpu, int i)
{
    const struct idle_sys *is = &w->idle;
    enum cpuidle_enter_method em = is->drv.states[i].enter;
    if (i == 0 || em == CPUIDLE_ENTER_HLT || em == CPUIDLE_ENTER_WFI)
        return 0;
    if (em == CPUIDLE_ENTER_PSCI) {
        /* The device-tree state with that power_state (psci_idle). */
        int k = idle_psci_hw_state(&w->machine->types[w->machine->cpus[cpu].type],
                                   is->drv.states[i].psci_suspend_param);
        return k >= 0 ? k : 0;
    }
    if (is->drv.states[i].enter == CPUIDLE_ENTER_IO) {
        /* acpi_idle's port read: the state whose io_port it names. */
        const struct hw_core_type *t = &w->machine->types[w->machine->cpus[cpu].type];
        for (int k = 0; k < t->ncstates; k++)
            if (t->cstates[k].io_port == is->drv.states[i].io_port)
                return k;
        return is->hw_cstate[cpu * CPUIDLE_STATE_MAX + i - 1];
    }
    uint32_t hint = is->drv.states[i].mwait_hint;
    int hw = hw_cstate_by_hint(&w->hw, cpu, hint);
    if (hw >= 0)
        return hw;
    /* Sub-state hints (0x21) select the same major C-state (bits 7:4). */
    const struct hw_core_type *t = &w->machine->types[w->machine->cpus[cpu].type];
    for (int k = t->ncstates - 1; k >= 0; k--)
        if (t->cstates[k].mwait_hint >> 4 == hint >> 4)
            return k;
    return is->hw_cstate[cpu * CPUIDLE_STATE_MAX + i - 1];
}

/* Per-CPU device: disable flags (driver OFF default, then sysfs), hardware
 * state of each driver state, latency limit, governor data. */
static void idle_init_device(struct world *w, int cpu)
{
    struct idle_sys *is = &w->idle;
    struct cpuidle_device *dev = &is->dev[cpu];
    dev->cpu = cpu;
    dev->kernel = &w->kp->kernel;
    dev->tick_period_ns = is->tick_period_ns;
    dev->latency_req_ns = idle_latency_req_ns(w, cpu);
    dev->governor_data = is->gov_data + (size_t)cpu * is->gov->data_size;
    for (int i = 0; i < is->drv.state_count; i++) {
        /* OFF states start disabled; a sysfs write decides either way. */
        int64_t v;
        bool off = (is->drv.states[i].flags & CPUIDLE_FLAG_OFF) != 0;
        if (kparams_find_setting(w->kp, "cpuidle.state_disable", cpu, i, &v))
            off = v != 0;
        dev->states_usage[i].disable = off;
        is->hw_cstate[cpu * CPUIDLE_STATE_MAX + i] = idle_hw_state_of(w, cpu, i);
    }
    is->gov->enable(&is->drv, dev);
}

static void idle_tick_fired(struct sim_event *ev, void *arg);
static void idle_poll_limit(struct sim_event *ev, void *arg);
static void idle_timer_fired(struct sim_event *ev, void *arg);
static void idle_device_fired(struct sim_event *ev, void *arg);
static void idle_timer_arm(struct world *w, int cpu);
static void idle_defer_start(struct world *w, int cpu);
static void idle_defer_fired(struct sim_event *ev, void *arg);
static void idle_defer_arm(struct world *w, int cpu, sim_time_t period_ns);

void idle_init(struct world *w)
{
    struct idle_sys *is = &w->idle;
    int n = w->machine->ncpus;
    memset(is, 0, sizeof *is);
    is->tick_period_ns = idle_tick_period_ns(w);
    is->nohz = idle_nohz(w->kp);
    is->kernel_ibrs = x86_kernel_ibrs_active(w->machine, w->kp);
    is->spec_ctrl_write_ns = (sim_time_t)hw_machine_calib(w->machine, "spec_ctrl_write_ns");
    is->irq_off_exit_ns = (sim_time_t)hw_machine_calib(w->machine, "irq_off_exit_ns");
    is->wake_irq_ns = (sim_time_t)hw_machine_calib(w->machine, "wake_irq_ns");
    is->wake_switch_ns = (sim_time_t)hw_machine_calib(w->machine, "wake_switch_ns");
    is->softirq_ns = (sim_time_t)hw_machine_calib(w->machine, "softirq_ns");
    is->hz = idle_hz(w->kp);
    is->hk_hrtimer_share = hw_machine_calib(w->machine, "bg_hrtimer_share");
    is->hk_slack_ns = (sim_time_t)hw_machine_calib(w->machine, "bg_timer_slack_ns");
    double defer_hz = hw_machine_calib(w->machine, "bg_deferrable_hz");
    is->defer_period_ns = defer_hz > 0 ? (sim_time_t)((double)SIM_NS_PER_S / defer_hz) : 0;
    is->cpu = xcalloc((size_t)n, sizeof *is->cpu);
    is->mode = idle_probe(w->machine, w->kp, &is->drv, is->why_no_driver,
                          sizeof is->why_no_driver, NULL, 0);
    for (int cpu = 0; cpu < n; cpu++) {
        sim_event_init(&is->cpu[cpu].tick_ev, idle_tick_fired);
        sim_event_init(&is->cpu[cpu].poll_ev, idle_poll_limit);
        sim_event_init(&is->cpu[cpu].timer_ev, idle_timer_fired);
        sim_event_init(&is->cpu[cpu].device_ev, idle_device_fired);
        sim_event_init(&is->cpu[cpu].defer_ev, idle_defer_fired);
        is->cpu[cpu].timer_mean_ns = (double)IDLE_BG_TIMER_MEAN_NS;
        is->cpu[cpu].state = -1;
        is->cpu[cpu].wl_timer_ns = SIM_TIME_MAX;
        is->cpu[cpu].guest_timer_ns = SIM_TIME_MAX;
        if (isol_cpu_offline(w, cpu))
            continue;   /* an offline thread has no timers */
        idle_timer_arm(w, cpu);
        idle_defer_start(w, cpu);
    }
    if (is->mode != IDLE_MODE_CPUIDLE)
        return;
    is->gov = idle_pick_governor(w->kp);
    is->dev = xcalloc((size_t)n, sizeof *is->dev);
    is->gov_data = xcalloc((size_t)n, is->gov->data_size ? is->gov->data_size : 1);
    is->hw_cstate = xcalloc((size_t)n * CPUIDLE_STATE_MAX, sizeof *is->hw_cstate);
    for (int cpu = 0; cpu < n; cpu++)
        idle_init_device(w, cpu);
}

void idle_destroy(struct world *w)
{
    free(w->idle.cpu);
    free(w->idle.dev);
    free(w->idle.gov_data);
    free(w->idle.hw_cstate);
    memset(&w->idle, 0, sizeof w->idle);
}

/* cpuidle stateN/disable of cpu: the variant's write, else the driver's default. */
static bool idle_state_disabled_on(const struct kparams *kp, const struct cpuidle_driver *drv,
                                   int state, int cpu)
{
    int64_t v;
    if (kparams_find_setting(kp, "cpuidle.state_disable", cpu, state, &v))
        return v != 0;
    return (drv->states[state].flags & CPUIDLE_FLAG_OFF) != 0;
}

/* The hardware state of core type t a driver state enters: the machine
 * file's state with its MWAIT hint, else the deepest with the same major
 * C-state (sub-state hints such as 0x21), else none; HLT and I/O-port
 * entries (no hint) and POLL enter the shallowest. The same rule as
 * idle_hw_state_of, for the boot CPU only. */
static const struct hw_cstate *idle_explain_hw_state(const struct hw_core_type *t,
                                                     const struct cpuidle_state *s, int i)
{
    if (i == 0 && s->enter != CPUIDLE_ENTER_WFI)
        return NULL;
    if (s->enter == CPUIDLE_ENTER_HLT || s->enter == CPUIDLE_ENTER_WFI)
        return &t->cstates[0];
    if (s->enter == CPUIDLE_ENTER_PSCI) {
        int k = idle_psci_hw_state(t, s->psci_suspend_param);
        return k >= 0 ? &t->cstates[k] : NULL;
    }
    if (s->enter == CPUIDLE_ENTER_IO) {
        for (int k = 0; k < t->ncstates; k++)
            if (t->cstates[k].io_port == s->io_port)
                return &t->cstates[k];
        return NULL;
    }
    for (int k = 0; k < t->ncstates; k++)
        if (t->cstates[k].mwait_hint == s->mwait_hint)
            return &t->cstates[k];
    for (int k = t->ncstates - 1; k >= 0; k--)
        if (t->cstates[k].mwait_hint >> 4 == s->mwait_hint >> 4)
            return &t->cstates[k];
    return NULL;
}

/* The states intel_idle.max_cstate left out of intel_idle's list, for
 * explain: asked of intel_idle itself (a pure function of machine and
 * knobs); none when intel_idle did not load and acpi_idle registered. */
static void idle_explain_removed(const struct hw_machine *m, const struct kparams *kp,
                                 struct idle_explain *e)
{
    struct cpuidle_driver scratch;
    struct intel_idle_info info;
    char why[CPUIDLE_WHY_LEN];
    memset(&scratch, 0, sizeof scratch);
    if (intel_idle_init(m, kp, &scratch, &info, why, sizeof why) != 0)
        return;   /* intel_idle registers first whenever it loads */
    e->max_cstate = info.max_cstate;
    e->nremoved = info.nremoved;
    memcpy(e->removed, info.removed, sizeof e->removed);
}

void idle_explain(const struct hw_machine *m, const struct kparams *kp, struct idle_explain *e)
{
    memset(e, 0, sizeof *e);
    /* arm64's Spectre-v2 handling (CSV2, branch predictor hardening) is not
     * modelled; the x86 selection would name a mitigation it does not use. */
    e->spectre_v2 = hw_machine_is_arm(m)
                        ? "not modelled on Arm"
                        : spectre_v2_mitigation_name(x86_spectre_v2_select_mitigation(m, kp));
    e->hz = idle_hz(kp);
    e->nohz = idle_nohz(kp);
    e->mode = idle_probe(m, kp, &e->drv, e->why_no_driver, sizeof e->why_no_driver,
                         e->driver_source, sizeof e->driver_source);
    e->ncpus = m->ncpus;
    if (e->mode == IDLE_MODE_CPUIDLE) {
        idle_explain_removed(m, kp, e);
        e->governor = idle_pick_governor(kp)->name;
        const struct hw_core_type *t = &m->types[m->cpus[0].type];
        e->hw_type = t->name;
        for (int i = 0; i < e->drv.state_count; i++)
            e->hw_state[i] = idle_explain_hw_state(t, &e->drv.states[i], i);
        e->state_disabled = xcalloc((size_t)e->drv.state_count * (size_t)m->ncpus,
                                    sizeof *e->state_disabled);
        for (int i = 0; i < e->drv.state_count; i++)
            for (int cpu = 0; cpu < m->ncpus; cpu++)
                e->state_disabled[i * m->ncpus + cpu] = idle_state_disabled_on(kp, &e->drv, i, cpu);
    }
    e->cpu_dma_latency_us = kparams_get(kp, "cpu_dma_latency", 0, -1);
    e->cpu_dma_latency_set = kparams_is_set(kp, "cpu_dma_latency");
    e->resume_latency_us = xcalloc((size_t)m->ncpus, sizeof *e->resume_latency_us);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        e->resume_latency_us[cpu] = kparams_get(kp, "pm_qos_resume_latency_us", cpu, -1);
}

void idle_explain_free(struct idle_explain *e)
{
    free(e->state_disabled);
    free(e->resume_latency_us);
    memset(e, 0, sizeof *e);
}

/* Entry methods that leave interrupts off while idle: the interrupt that
 * wakes the CPU is handled only after the idle exit path (FACTS.md §1). */
static bool idle_irqs_off(enum cpuidle_enter_method m)
{
    return m == CPUIDLE_ENTER_MWAIT || m == CPUIDLE_ENTER_MWAIT_IBRS ||
           m == CPUIDLE_ENTER_MWAIT_XSTATE || m == CPUIDLE_ENTER_IO ||
           m == CPUIDLE_ENTER_WFI || m == CPUIDLE_ENTER_PSCI;
}

/* Fold the current period's time since acct_since_ns into its state's total. */
static void idle_acct_close(struct idle_sys *is, int cpu, sim_time_t now_ns)
{
    struct idle_cpu *ic = &is->cpu[cpu];
    if (ic->in_idle && ic->state >= 0)
        ic->state_time_ns[ic->state] += now_ns - ic->acct_since_ns;
    ic->acct_since_ns = now_ns;
}

/* The next housekeeping timer that will interrupt cpu: its own stream's,
 * and those of CPUs whose unbound timers run here (isol_timer_cpu). */
static sim_time_t idle_next_hk_timer_ns(const struct world *w, int cpu)
{
    sim_time_t next = SIM_TIME_MAX;
    for (int s = w->isol.hk.any ? 0 : cpu; s < (w->isol.hk.any ? w->machine->ncpus : cpu + 1); s++) {
        const struct sim_event *ev = &w->idle.cpu[s].timer_ev;
        if (isol_timer_cpu(w, s) == cpu && sim_event_pending(ev) && ev->when_ns < next)
            next = ev->when_ns;
    }
    return next;
}

/* What the timer subsystem tells the governor (tick_nohz_get_sleep_length):
 * the next timer as if the tick were stopped, and the time to the event the
 * device holds now (FACTS-2.md §1). */
/* cpu's next timer other than the tick: housekeeping, the workload's, and
 * a halted vCPU's LAPIC timer (an hrtimer here); SIM_TIME_MAX none. */
static sim_time_t idle_next_timer_ns(const struct world *w, int cpu)
{
    const struct idle_cpu *ic = &w->idle.cpu[cpu];
    /* A CPU without housekeeping timers (a rate of 0) has none queued. */
    sim_time_t hk_ns = idle_next_hk_timer_ns(w, cpu);
    sim_time_t next_ns = ic->wl_timer_ns < hk_ns ? ic->wl_timer_ns : hk_ns;
    next_ns = ic->guest_timer_ns < next_ns ? ic->guest_timer_ns : next_ns;
    /* tick_nohz_next_event: a CPU RCU needs (callbacks queued) takes its
     * next event as one tick after the last jiffy, so its tick is kept. */
    if (rcu_needs_cpu(w, cpu)) {
        sim_time_t tick = tick_next_ns(w->q.now_ns, w->idle.tick_period_ns);
        next_ns = tick < next_ns ? tick : next_ns;
    }
    return next_ns;
}

/* Returns the next timer (absolute), for the tick decision that follows. */
static sim_time_t idle_fill_timers(struct world *w, int cpu)
{
    struct idle_sys *is = &w->idle;
    struct cpuidle_device *dev = &is->dev[cpu];
    struct tick_sched_view v = {
        .now_ns = w->q.now_ns,
        .tick_period_ns = is->tick_period_ns,
        .next_timer_ns = idle_next_timer_ns(w, cpu),
        .can_stop_tick = is->nohz,
        .tick_stopped = is->cpu[cpu].tick_stopped,
    };
    dev->tick_stopped = v.tick_stopped;
    dev->next_timer_ns = tick_nohz_get_sleep_length(&v, &dev->delta_tick_ns);
    return v.next_timer_ns;
}

/* The next tick boundary after now_ns (tick_next_ns), dividing only when now
 * has left the period of the last boundary found: simulated time never goes
 * back, and within [jiffy, jiffy + period) the boundary below now is jiffy,
 * so most idle entries of a tick period share one division. (Negative times,
 * which C's division rounds the other way, always divide.) */
static sim_time_t idle_next_tick_ns(struct idle_sys *is, sim_time_t now_ns)
{
    if (now_ns <= 0 || now_ns < is->jiffy_ns || now_ns - is->jiffy_ns >= is->tick_period_ns)
        is->jiffy_ns = tick_last_jiffy_ns(now_ns, is->tick_period_ns);
    return is->jiffy_ns + is->tick_period_ns;
}

/* After select: stop the tick if the governor let us and the kernel can
 * (tick_nohz_idle_stop_tick), else arm the next tick. The kernel keeps a
 * running tick when the next timer is due within a tick of the last jiffy
 * (tick_nohz_next_event returns 0: tick_nohz_retain_tick). A stopped tick
 * stays stopped until a task runs (tick_nohz_idle_exit), whatever the
 * governor says on later entries of the same idle spell (FACTS-2.md §1). */
static void idle_tick_decide(struct world *w, int cpu, bool stop_tick, sim_time_t next_timer_ns)
{
    struct idle_sys *is = &w->idle;
    struct idle_cpu *ic = &is->cpu[cpu];
    /* kernel/sched/idle.c calls tick_nohz_idle_stop_tick when the governor
     * lets the tick stop or it already is, and that counts idle_calls
     * (__tick_nohz_idle_stop_tick); a kept tick (tick_nohz_idle_retain_tick)
     * does not. This runs after the cpufreq update of the task's dequeue. */
    if (is->nohz && (stop_tick || ic->tick_stopped))
        ic->idle_calls++;
    if (is->nohz && stop_tick &&
        !tick_nohz_retains_tick(w->q.now_ns, is->tick_period_ns, next_timer_ns, ic->tick_stopped))
        ic->tick_stopped = true;
    /* A stopped tick is reprogrammed for the next jiffy while RCU needs
     * the CPU (tick_nohz_stop_tick at tick_nohz_next_event's expiry). */
    if (!ic->tick_stopped || rcu_needs_cpu(w, cpu))
        sim_event_schedule(&w->q, &ic->tick_ev, idle_next_tick_ns(is, w->q.now_ns));
    ic->nr_entries++;
    ic->nr_tick_stopped += ic->tick_stopped;
}

static void idle_cpuidle_enter(struct world *w, int cpu)
{
    struct idle_sys *is = &w->idle;
    struct idle_cpu *ic = &is->cpu[cpu];
    struct cpuidle_device *dev = &is->dev[cpu];
    sim_time_t now = w->q.now_ns;
    sim_time_t next_timer_ns = idle_fill_timers(w, cpu);
    bool stop_tick = true;
    int idx = is->gov->select(&is->drv, dev, &stop_tick);
    idle_tick_decide(w, cpu, stop_tick, next_timer_ns);
    const struct cpuidle_state *st = &is->drv.states[idx];
    tp_cpu_idle(w, cpu, (uint32_t)idx);
    ic->state = idx;
    ic->in_idle = true;
    ic->entered_ns = ic->acct_since_ns = now;
    dev->poll_time_limit = false;
    dev->woke_by_tick = false;
    /* Kernel IBRS stays set in idle unless the state clears SPEC_CTRL. */
    hw_thread_set_ibrs(&w->hw, cpu, is->kernel_ibrs && st->enter != CPUIDLE_ENTER_MWAIT_IBRS);
    if (st->enter == CPUIDLE_ENTER_POLL) {
        sched_set_hw_mode(w, cpu, HW_THREAD_POLL, 0);
        sim_event_schedule(&w->q, &ic->poll_ev, now + cpuidle_poll_limit_ns(&is->drv, dev));
    } else {
        sched_set_hw_mode(w, cpu, HW_THREAD_IDLE, is->hw_cstate[cpu * CPUIDLE_STATE_MAX + idx]);
    }
}

void idle_enter(struct world *w, int cpu)
{
    struct idle_sys *is = &w->idle;
    struct idle_cpu *ic = &is->cpu[cpu];
    tp_sched_switch(w, cpu, NULL, true);
    if (is->mode == IDLE_MODE_CPUIDLE) {
        idle_cpuidle_enter(w, cpu);
        return;
    }
    ic->in_idle = true;
    ic->state = -1;
    ic->entered_ns = w->q.now_ns;
    hw_thread_set_ibrs(&w->hw, cpu, is->kernel_ibrs);
    if (is->mode == IDLE_MODE_POLL) {
        /* cpu_idle_poll keeps the tick; its handler does not end the spin
         * (need_resched stays clear), so it is not an event here. */
        ic->nr_entries++;
        sched_set_hw_mode(w, cpu, HW_THREAD_POLL, 0);
    } else {
        /* default_idle: the tick is stopped unconditionally when it can be. */
        idle_tick_decide(w, cpu, true, idle_next_timer_ns(w, cpu));
        sched_set_hw_mode(w, cpu, HW_THREAD_IDLE, 0);
    }
}

/* Kernel code the CPU runs after the hardware exit and before it goes on:
 * the cpuidle exit path when the state was entered with IRQs off and an
 * interrupt waits behind it, the SPEC_CTRL restore of the IBRS-off entry,
 * the interrupt that woke it (none for a polling CPU woken by need_resched
 * or POLL's own limit, nor for an MWAIT woken through its monitor), the
 * softirqs that interrupt raised and, when a task was woken onto it, the
 * switch to that task (FACTS-2.md §7, FACTS-3.md §2). hw_poll: the CPU
 * spun in POLL (nothing to restore); irq: an interrupt ended the period. */
static sim_time_t idle_exit_kernel_ns(const struct idle_sys *is, const struct idle_cpu *ic,
                                      enum idle_wake why, bool hw_poll, bool irq)
{
    sim_time_t ns = 0;
    if (is->mode == IDLE_MODE_CPUIDLE && ic->state >= 0 && !hw_poll) {
        enum cpuidle_enter_method m = is->drv.states[ic->state].enter;
        if (m == CPUIDLE_ENTER_MWAIT_IBRS)
            ns += is->spec_ctrl_write_ns;
        if (irq && idle_irqs_off(m))
            ns += is->irq_off_exit_ns;
    }
    if (irq)
        ns += is->wake_irq_ns;
    /* irq_exit runs the softirqs a housekeeping timer or a device raised
     * (kernel/softirq.c invoke_softirq: TIMER, NET_RX, BLOCK, RCU). */
    if (why == IDLE_WAKE_TIMER || why == IDLE_WAKE_DEVICE)
        ns += is->softirq_ns;
    if (why == IDLE_WAKE_IPI)
        ns += is->wake_switch_ns;
    return ns;
}

/* Whether a task woken onto cpu needs an IPI to end its idle period. A CPU
 * that waits in POLL or in MWAIT has TIF_POLLING_NRFLAG set (poll_idle, and
 * mwait_idle_with_hints' current_set_polling_and_test), and MWAIT monitors
 * the thread's flags word: the waker only sets need_resched there
 * (kernel/sched/core.c set_nr_and_not_polling, set_nr_if_polling) and the
 * write ends the wait, with no interrupt. HLT, an I/O-port read, WFI and
 * PSCI leave the flag clear: they need the IPI. */
static bool idle_wake_needs_ipi(const struct idle_sys *is, const struct idle_cpu *ic,
                                bool polling)
{
    if (polling)
        return false;
    if (is->mode != IDLE_MODE_CPUIDLE || ic->state < 0)
        return true;
    enum cpuidle_enter_method m = is->drv.states[ic->state].enter;
    return m != CPUIDLE_ENTER_MWAIT && m != CPUIDLE_ENTER_MWAIT_IRQ &&
           m != CPUIDLE_ENTER_MWAIT_IBRS && m != CPUIDLE_ENTER_MWAIT_XSTATE;
}

sim_time_t idle_exit_begin(struct world *w, int cpu, enum idle_wake why, sim_time_t *kernel_ns)
{
    struct idle_sys *is = &w->idle;
    struct idle_cpu *ic = &is->cpu[cpu];
    ic->wake = why;
    ic->nr_wake[why]++;
    sim_event_cancel(&w->q, &ic->tick_ev);
    sim_event_cancel(&w->q, &ic->poll_ev);
    sim_time_t lat = hw_thread_exit_latency_ns(&w->hw, cpu);
    bool hw_poll = w->hw.thr[cpu].mode == HW_THREAD_POLL;
    bool irq = why == IDLE_WAKE_TICK || why == IDLE_WAKE_TIMER || why == IDLE_WAKE_DEVICE ||
               (why == IDLE_WAKE_IPI && idle_wake_needs_ipi(is, ic, hw_poll));
    ic->nr_ipis += why == IDLE_WAKE_IPI && irq;
    *kernel_ns = idle_exit_kernel_ns(is, ic, why, hw_poll, irq);
    /* The tick's RCU work: rcu_sched_clock_irq and RCU_SOFTIRQ's callbacks. */
    if (why == IDLE_WAKE_TICK)
        *kernel_ns += rcu_sched_clock_irq(w, cpu, true);
    if (lat == 0)
        return 0; /* polling: it sees the work at once */
    /* Leaving idle runs kernel code, with kernel IBRS set. */
    hw_thread_set_ibrs(&w->hw, cpu, is->kernel_ibrs);
    sched_set_hw_mode(w, cpu, HW_THREAD_WAKE, w->hw.thr[cpu].cstate);
    return lat;
}

void idle_exit_end(struct world *w, int cpu)
{
    struct idle_sys *is = &w->idle;
    struct idle_cpu *ic = &is->cpu[cpu];
    if (is->mode == IDLE_MODE_CPUIDLE && ic->state >= 0) {
        struct cpuidle_device *dev = &is->dev[cpu];
        int idx = ic->state;
        idle_acct_close(is, cpu, w->q.now_ns);
        tp_cpu_idle(w, cpu, TRACE_IDLE_EXIT_STATE);
        dev->poll_time_limit = ic->wake == IDLE_WAKE_POLL_LIMIT;
        dev->woke_by_tick = ic->wake == IDLE_WAKE_TICK;
        cpuidle_account(&is->drv, dev, idx, w->q.now_ns - ic->entered_ns, false);
        if (is->gov->reflect)
            is->gov->reflect(dev, idx);
    }
    ic->in_idle = false;
    ic->state = -1;
    /* The CPU is out of idle: its tick runs again and with it the
     * deferrable timers that expired meanwhile. */
    idle_run_deferred_timers(w, cpu);
}

void idle_set_wl_timer(struct world *w, int cpu, sim_time_t when_ns)
{
    w->idle.cpu[cpu].wl_timer_ns = when_ns;
}

void idle_set_guest_timer(struct world *w, int cpu, sim_time_t when_ns)
{
    w->idle.cpu[cpu].guest_timer_ns = when_ns;
}

uint64_t tick_nohz_get_idle_calls_cpu(const struct world *w, int cpu)
{
    return w->idle.cpu[cpu].idle_calls;
}

void idle_task_runs(struct world *w, int cpu)
{
    w->idle.cpu[cpu].tick_stopped = false;
}

/* The tick's interrupt on cpu runs the hrtimer queue and the timer wheel's
 * softirq (kernel/time/hrtimer.c __hrtimer_run_queues, timer.c
 * run_timer_softirq): a housekeeping timer whose soft expiry has passed
 * expires with it, at no interrupt of its own (slack coalescing), and a
 * deferrable timer waiting for a tick runs. */
static void idle_tick_runs_timers(struct world *w, int cpu)
{
    int first = w->isol.hk.any ? 0 : cpu, last = w->isol.hk.any ? w->machine->ncpus : cpu + 1;
    for (int s = first; s < last; s++) {
        struct idle_cpu *ic = &w->idle.cpu[s];
        if (isol_timer_cpu(w, s) != cpu || !sim_event_pending(&ic->timer_ev) ||
            !hrtimer_expired_by(&ic->hk_range, w->q.now_ns))
            continue;
        sim_event_cancel(&w->q, &ic->timer_ev);
        w->idle.cpu[cpu].nr_coalesced++;
        idle_timer_arm(w, s);
        wchain_irq(w, cpu);
    }
    idle_run_deferred_timers(w, cpu);
}

static void idle_tick_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct idle_cpu *ic = container_of(ev, struct idle_cpu, tick_ev);
    int cpu = (int)(ic - w->idle.cpu);
    sched_idle_wakeup(w, cpu, IDLE_WAKE_TICK);
    idle_tick_runs_timers(w, cpu);
}

/* Queue a background interrupt ev an exponential gap of mean mean_ns
 * (stream s) from now: a Poisson stream; none for a mean of 0. */
static void idle_bg_arm(struct world *w, struct sim_event *ev, double mean_ns,
                        enum world_stream s)
{
    if (mean_ns <= 0)
        return;
    double gap = sim_rng_exp(&w->rng[s], mean_ns);
    sim_event_schedule(&w->q, ev, w->q.now_ns + 1 + (sim_time_t)gap);
}

/* The next housekeeping timer of cpu, an exponential gap away: a share
 * hk_hrtimer_share are user-space sleeps (hrtimers with the default 50 us
 * slack: the device fires at the hard expiry), the rest kernel timer-wheel
 * timers, whose expiry the wheel rounds up (timer.h). Either way the
 * governor sees the expiry the device is programmed for. The slack is the
 * machine's bg_timer_slack_ns (HRTIMER_DEFAULT_SLACK_NS unless set). */
static void idle_timer_arm(struct world *w, int cpu)
{
    struct idle_sys *is = &w->idle;
    struct idle_cpu *ic = &is->cpu[cpu];
    if (ic->timer_mean_ns <= 0)
        return;
    struct sim_rng *r = &w->rng[WORLD_STREAM_TIMERS];
    sim_time_t now = w->q.now_ns;
    /* The requested expiries are the Poisson stream; rounding only delays
     * each one, so the stream keeps its rate. */
    /* A stream faster than its timers can fire (gaps under the wheel's
     * granularity) falls behind: it starts afresh, with no backlog. */
    if (ic->hk_req_ns < now - (sim_time_t)(4 * ic->timer_mean_ns))
        ic->hk_req_ns = now;
    ic->hk_req_ns += 1 + (sim_time_t)sim_rng_exp(r, ic->timer_mean_ns);
    sim_time_t gap = ic->hk_req_ns > now ? ic->hk_req_ns - now : 0;
    /* A share of 0 or 1 draws nothing: the gaps stay those of one stream. */
    bool hrtimer = is->hk_hrtimer_share >= 1 ||
                   (is->hk_hrtimer_share > 0 && sim_rng_uniform(r) < is->hk_hrtimer_share);
    if (hrtimer)
        ic->hk_range = hrtimer_range(now + gap, is->hk_slack_ns);
    else
        ic->hk_range = hrtimer_range(timer_wheel_expiry_ns(now, gap, is->tick_period_ns, is->hz), 0);
    sim_event_schedule(&w->q, &ic->timer_ev, ic->hk_range.hard_ns);
}

/* The next deferrable timer of cpu: periodic at defer_period_ns (as
 * vmstat_update re-queues itself), on the wheel's rounding, from now. */
static void idle_defer_arm(struct world *w, int cpu, sim_time_t period_ns)
{
    struct idle_sys *is = &w->idle;
    if (period_ns <= 0)
        return;
    sim_time_t at = timer_wheel_expiry_ns(w->q.now_ns, period_ns, is->tick_period_ns, is->hz);
    sim_event_schedule(&w->q, &is->cpu[cpu].defer_ev, at);
}

/* A deferrable timer of cpu runs (from a timer softirq): its work item
 * wakes the CPU's kworker, and it queues itself again. */
static void idle_defer_run(struct world *w, int cpu)
{
    struct idle_cpu *ic = &w->idle.cpu[cpu];
    ic->defer_pending = false;
    ic->nr_deferred_runs++;
    idle_defer_arm(w, cpu, w->idle.defer_period_ns);
    wchain_irq(w, cpu);
}

/* The first deferrable expiry: a phase uniform over one period. */
static void idle_defer_start(struct world *w, int cpu)
{
    sim_time_t period_ns = w->idle.defer_period_ns;
    if (period_ns <= 0)
        return;
    double phase = sim_rng_uniform(&w->rng[WORLD_STREAM_TIMERS]);
    idle_defer_arm(w, cpu, 1 + (sim_time_t)(phase * (double)period_ns));
}

void idle_run_deferred_timers(struct world *w, int cpu)
{
    if (w->idle.cpu[cpu].defer_pending)
        idle_defer_run(w, cpu);
}

/* A deferrable timer's expiry (BASE_DEF, kernel/time/timer.c): nothing
 * programs the device for it, so an idle CPU does not wake; it runs from
 * the next timer softirq that happens anyway (a busy CPU's next tick,
 * taken as now; an idle CPU's next tick or wake-up). */
static void idle_defer_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct idle_cpu *ic = container_of(ev, struct idle_cpu, defer_ev);
    int cpu = (int)(ic - w->idle.cpu);
    /* a nohz_full CPU whose tick is stopped waits for its next tick too */
    if (ic->in_idle || tick_nohz_full_stopped(w, cpu))
        ic->defer_pending = true;
    else
        idle_defer_run(w, cpu);
}

static void idle_device_arm(struct world *w, int cpu)
{
    struct idle_cpu *ic = &w->idle.cpu[cpu];
    idle_bg_arm(w, &ic->device_ev, ic->device_mean_ns, WORLD_STREAM_DEVICE_IRQ);
}

/* A background interrupt on cpu: it wakes the CPU if it is idle; a busy
 * CPU runs the handler and the softirqs it raised (irq_exit) in its
 * running task's time, as an idle CPU does on its way out (wake_irq_ns +
 * softirq_ns, idle_exit_kernel_ns). */
static void idle_bg_irq(struct world *w, int cpu, enum idle_wake why)
{
    if (w->idle.cpu[cpu].in_idle) {
        if (!w->sched.cpu[cpu].waking)
            sched_idle_wakeup(w, cpu, why);
        return;
    }
    sched_irq_on_busy(w, cpu, w->idle.wake_irq_ns + w->idle.softirq_ns);
}

void idle_set_irq_rates(struct world *w, int cpu, double timer_hz, double device_hz)
{
    struct idle_cpu *ic = &w->idle.cpu[cpu];
    if (timer_hz >= 0)
        ic->timer_mean_ns = timer_hz > 0 ? (double)SIM_NS_PER_S / timer_hz : 0;
    ic->device_mean_ns = device_hz > 0 ? (double)SIM_NS_PER_S / device_hz : 0;
    ic->hk_req_ns = w->q.now_ns;
    sim_event_cancel(&w->q, &ic->timer_ev);
    sim_event_cancel(&w->q, &ic->device_ev);
    if (isol_cpu_offline(w, cpu))
        return;
    idle_timer_arm(w, cpu);
    idle_device_arm(w, cpu);
}

/* A housekeeping timer: the next one is armed, then it interrupts, on the
 * CPU the stream's unbound timers run on (itself unless it is nohz_full or
 * isolated: get_nohz_timer_target). */
static void idle_timer_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct idle_cpu *ic = container_of(ev, struct idle_cpu, timer_ev);
    int stream = (int)(ic - w->idle.cpu), cpu = isol_timer_cpu(w, stream);
    w->idle.cpu[cpu].nr_timer_irqs++;
    idle_timer_arm(w, stream);
    idle_bg_irq(w, cpu, IDLE_WAKE_TIMER);
    wchain_irq(w, cpu);
}

void idle_device_interrupt(struct world *w, int cpu)
{
    w->idle.cpu[cpu].nr_device_irqs++;
    idle_bg_irq(w, cpu, IDLE_WAKE_DEVICE);
    wchain_irq(w, cpu);
}

/* A device interrupt: like a timer's, except that nothing told the governor
 * it was coming (it is in no sleep length). */
static void idle_device_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct idle_cpu *ic = container_of(ev, struct idle_cpu, device_ev);
    int cpu = (int)(ic - w->idle.cpu);
    idle_device_arm(w, cpu);
    /* isolcpus=managed_irq: a managed interrupt's housekeeping CPU */
    idle_device_interrupt(w, isol_irq_cpu(w, cpu));
}

static void idle_poll_limit(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct idle_cpu *ic = container_of(ev, struct idle_cpu, poll_ev);
    sched_idle_wakeup(w, (int)(ic - w->idle.cpu), IDLE_WAKE_POLL_LIMIT);
}

void idle_measure_reset(struct world *w, sim_time_t now_ns)
{
    struct idle_sys *is = &w->idle;
    is->measure_start_ns = now_ns;
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++) {
        struct idle_cpu *ic = &is->cpu[cpu];
        idle_acct_close(is, cpu, now_ns);
        memset(ic->state_time_ns, 0, sizeof ic->state_time_ns);
        ic->nr_entries = ic->nr_tick_stopped = 0;
        ic->nr_timer_irqs = ic->nr_device_irqs = ic->nr_ipis = 0;
        ic->nr_coalesced = ic->nr_deferred_runs = 0;
        memset(ic->nr_wake, 0, sizeof ic->nr_wake);
        if (is->dev)
            memcpy(ic->base, is->dev[cpu].states_usage, sizeof ic->base);
    }
}

/* A cpuidle state's name with the longest prefix must fit a scoped metric name. */
_Static_assert(sizeof "above_pct." - 1 + CPUIDLE_NAME_LEN <= RPT_SCOPED_NAME_MAX,
               "above_pct.<state> does not fit with the cpus. prefix");

/* idle_entries_per_s: cpuidle entries (every state's usage growth) per CPU
 * per second of sc's CPUs, and usage_pct.<state>: each state's share of
 * them, as sysfs usage after minus before gives them on a host. */
static void idle_put_entries(const struct idle_sys *is, const uint64_t *usage, uint64_t all,
                             double cpu_s, const struct rpt_cpu_scope *sc,
                             struct rpt_metric_set *out)
{
    rpt_scope_put(out, sc, "idle_entries_per_s", "1/s", RPT_NEUTRAL,
                  cpu_s > 0 ? (double)all / cpu_s : 0);
    char key[RPT_NAME_MAX];
    for (int i = 0; i < is->drv.state_count; i++) {
        snprintf(key, sizeof key, "usage_pct.%s", is->drv.states[i].name);
        rpt_scope_put(out, sc, key, "%", RPT_NEUTRAL,
                      all ? 100.0 * (double)usage[i] / (double)all : 0);
    }
}

/* Per-state residency (share of the time of sc's CPUs), above/below shares
 * per state and overall, from the counters' growth since the measurement
 * start. */
static void idle_collect_cpuidle(struct world *w, sim_time_t now_ns,
                                 const struct rpt_cpu_scope *sc, struct rpt_metric_set *out)
{
    struct idle_sys *is = &w->idle;
    int n = w->machine->ncpus;
    double cpu_time_ns = (double)(now_ns - is->measure_start_ns) * rpt_scope_ncpus(sc, n);
    uint64_t all_usage = 0, all_above = 0, all_below = 0, state_usage[CPUIDLE_STATE_MAX];
    char key[RPT_NAME_MAX];
    for (int cpu = 0; cpu < n; cpu++)
        idle_acct_close(is, cpu, now_ns);
    for (int i = 0; i < is->drv.state_count; i++) {
        double t = 0;
        uint64_t usage = 0, above = 0, below = 0;
        for (int cpu = 0; cpu < n; cpu++) {
            if (!rpt_scope_has(sc, cpu))
                continue;
            const struct cpuidle_state_usage *u = &is->dev[cpu].states_usage[i];
            const struct cpuidle_state_usage *b = &is->cpu[cpu].base[i];
            t += (double)is->cpu[cpu].state_time_ns[i];
            usage += u->usage - b->usage;
            above += u->above - b->above;
            below += u->below - b->below;
        }
        const char *name = is->drv.states[i].name;
        snprintf(key, sizeof key, "residency.%s", name);
        rpt_scope_put(out, sc, key, "%", RPT_NEUTRAL, 100.0 * t / cpu_time_ns);
        snprintf(key, sizeof key, "above_pct.%s", name);
        rpt_scope_put(out, sc, key, "%", RPT_NEUTRAL,
                      usage ? 100.0 * (double)above / (double)usage : 0);
        snprintf(key, sizeof key, "below_pct.%s", name);
        rpt_scope_put(out, sc, key, "%", RPT_NEUTRAL,
                      usage ? 100.0 * (double)below / (double)usage : 0);
        state_usage[i] = usage;
        all_usage += usage;
        all_above += above;
        all_below += below;
    }
    rpt_scope_put(out, sc, "above_pct", "%", RPT_NEUTRAL,
                  all_usage ? 100.0 * (double)all_above / (double)all_usage : 0);
    rpt_scope_put(out, sc, "below_pct", "%", RPT_NEUTRAL,
                  all_usage ? 100.0 * (double)all_below / (double)all_usage : 0);
    double cpu_s = (double)(now_ns - is->measure_start_ns) / SIM_NS_PER_S * rpt_scope_ncpus(sc, n);
    idle_put_entries(is, state_usage, all_usage, cpu_s, sc, out);
}

/* tick_stopped_pct: share of the idle entries of sc's CPUs after which the
 * tick was stopped (the governor let it stop, or it already was). */
static void idle_collect_tick(const struct world *w, const struct rpt_cpu_scope *sc,
                              struct rpt_metric_set *out)
{
    uint64_t entries = 0, stopped = 0;
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++) {
        if (!rpt_scope_has(sc, cpu))
            continue;
        entries += w->idle.cpu[cpu].nr_entries;
        stopped += w->idle.cpu[cpu].nr_tick_stopped;
    }
    rpt_scope_put(out, sc, "tick_stopped_pct", "%", RPT_NEUTRAL,
                  entries ? 100.0 * (double)stopped / (double)entries : 0);
}

void idle_collect_metrics(struct world *w, sim_time_t now_ns, const struct rpt_cpu_scope *sc,
                          struct rpt_metric_set *out)
{
    idle_collect_tick(w, sc, out);
    if (w->idle.mode == IDLE_MODE_CPUIDLE) {
        idle_collect_cpuidle(w, now_ns, sc, out);
        return;
    }
    /* No cpuidle states: what the hardware threads did. */
    const struct rpt_metric_value *poll = rpt_scope_get(out, sc, "poll_pct");
    rpt_scope_put(out, sc, "residency.POLL", "%", RPT_NEUTRAL, poll ? poll->value : 0);
    hw_collect_thread_residency(&w->hw, now_ns, sc, out);
}
