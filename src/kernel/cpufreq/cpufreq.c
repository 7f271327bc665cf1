/* cpufreq: the core of the policy layer, see cpufreq.h: driver binding,
 * per-CPU policies and their limits, the governor registry, the util hook
 * and the lazy tick, and resolving a core's frequency from its threads.
 * Follows v6.x drivers/cpufreq/cpufreq.c (cpufreq_init_policy,
 * cpufreq_set_policy, __cpufreq_driver_target) in what it decides. */
#include "kernel/cpufreq/cpufreq.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/sched/sched.h"
#include "kernel/tracepoints.h"
#include "util/xalloc.h"
#include "world.h"
#include "util/container.h"


#define CPUFREQ_STEP_KHZ 100000u   /* the P-state table: 100 MHz ratios */

/* The generic governors, in registry order. */
static const struct cpufreq_governor *const cpufreq_governors[] = {
    &cpufreq_gov_performance,
    &cpufreq_gov_powersave,
    &cpufreq_gov_schedutil,
    &cpufreq_gov_ondemand,
};
#define NGOVERNORS (sizeof cpufreq_governors / sizeof cpufreq_governors[0])

const struct cpufreq_governor *cpufreq_find_governor(const char *name)
{
    for (size_t i = 0; i < NGOVERNORS; i++)
        if (strcmp(cpufreq_governors[i]->name, name) == 0)
            return cpufreq_governors[i];
    return NULL;
}

/* cpufreq_parse_policy: the policy field a governor name stands for. */
static enum cpufreq_policy_kind cpufreq_parse_policy(const char *name)
{
    if (strcmp(name, "performance") == 0)
        return CPUFREQ_POLICY_PERFORMANCE;
    if (strcmp(name, "powersave") == 0)
        return CPUFREQ_POLICY_POWERSAVE;
    return CPUFREQ_POLICY_UNKNOWN;
}

static const char *cpufreq_knob_name(const struct kparams *kp, const char *knob, int64_t v)
{
    (void)kp;
    return kparam_find(knob)->choices[v];
}

/* The governor (name) cpu starts with: its last scaling_governor write before
 * setting index `before` (all of them when -1), else cpufreq.default_governor. */
static const char *cpufreq_initial_governor(const struct kparams *kp, int cpu, int before)
{
    const struct kparam *sg = kparam_find("scaling_governor");
    char cpu_s[16];
    snprintf(cpu_s, sizeof cpu_s, "%d", cpu);
    const char *name = NULL;
    int n = before < 0 ? kp->nset : before;
    for (int i = 0; i < n; i++) {
        const struct ksetting *s = &kp->set[i];
        if (s->param == sg && fnmatch(s->cpu_glob, cpu_s, 0) == 0)
            name = sg->choices[s->value];
    }
    if (name)
        return name;
    return cpufreq_knob_name(kp, "cpufreq.default_governor",
                             kparams_get(kp, "cpufreq.default_governor", 0, -1));
}

/* cpufreq_init_policy for setpolicy drivers: the named policy, or the
 * driver's own default (powersave, as intel_pstate without
 * CONFIG_CPU_FREQ_DEFAULT_GOV_PERFORMANCE) when the name is neither. */
static enum cpufreq_policy_kind cpufreq_setpolicy_kind(const char *name)
{
    enum cpufreq_policy_kind k = cpufreq_parse_policy(name);
    return k == CPUFREQ_POLICY_UNKNOWN ? CPUFREQ_POLICY_POWERSAVE : k;
}

int cpufreq_validate(const struct hw_machine *m, const struct kparams *kp, const char *file,
                     struct diag *d)
{
    bool hwp;
    const struct cpufreq_driver *drv = cpufreq_probe_driver(m, kp, &hwp);
    const struct kparam *sg = kparam_find("scaling_governor");
    const struct kparam *epp = kparam_find("energy_performance_preference");
    for (int i = 0; i < kp->nset; i++) {
        const struct ksetting *s = &kp->set[i];
        if (s->param != sg && s->param != epp && s->param->sysfs &&
            strstr(s->param->sysfs, "/cpufreq/") && !drv)
            return diag_error(d, file, s->line, "%s: no cpufreq driver in this variant "
                              "(cpufreq.off), so the file does not exist", s->param->name);
        if (s->param == sg) {
            const char *name = sg->choices[s->value];
            if (!drv)
                return diag_error(d, file, s->line, "scaling_governor: no cpufreq driver in "
                                  "this variant (cpufreq.off), so the file does not exist");
            if (drv->setpolicy && cpufreq_parse_policy(name) == CPUFREQ_POLICY_UNKNOWN)
                return diag_error(d, file, s->line, "scaling_governor=%s: %s (active mode) "
                                  "offers only performance and powersave; the write fails "
                                  "with Invalid argument (use intel_pstate=passive for the "
                                  "generic governors)", name, drv->name);
        }
        if (s->param != epp)
            continue;
        if (!drv)
            return diag_error(d, file, s->line, "energy_performance_preference: no cpufreq "
                              "driver in this variant, so the file does not exist");
        if (!hwp)
            return diag_error(d, file, s->line, "energy_performance_preference: HWP is not "
                              "in use (driver %s), so the file does not exist", drv->name);
        if (!drv->setpolicy)
            continue;
        for (int cpu = 0; cpu < m->ncpus; cpu++) {
            char cpu_s[16];
            snprintf(cpu_s, sizeof cpu_s, "%d", cpu);
            if (fnmatch(s->cpu_glob, cpu_s, 0) != 0)
                continue;
            if (cpufreq_setpolicy_kind(cpufreq_initial_governor(kp, cpu, i)) ==
                CPUFREQ_POLICY_PERFORMANCE)
                return diag_error(d, file, s->line, "energy_performance_preference on cpu%d: "
                                  "intel_pstate's performance policy pins EPP to 0; the write "
                                  "fails with Device or resource busy", cpu);
        }
    }
    return 0;
}

/* Driver binding in initcall order: intel_pstate claims Intel CPUs,
 * amd-pstate AMD ones when it loads; acpi-cpufreq takes any x86 CPU left
 * (it needs _PSS, which every modelled firmware has). */
const struct cpufreq_driver *cpufreq_probe_driver(const struct hw_machine *m,
                                                  const struct kparams *kp, bool *hwp)
{
    *hwp = false;
    if (kparams_get(kp, "cpufreq.off", 0, -1) != 0)
        return NULL;
    if (hw_machine_is_arm(m))
        return scpi_cpufreq_probe(m);
    const struct cpufreq_driver *d = intel_pstate_probe(m, kp, hwp);
    if (!d)
        d = amd_pstate_probe(m, kp, hwp);
    return d ? d : &acpi_cpufreq_driver;
}

/* RELATION_L over the OPPs within [min_khz, max_khz]. */
static uint32_t cpufreq_resolve_opp_khz(const struct cpufreq_policy *p, uint32_t khz)
{
    uint32_t best = 0;
    for (int i = 0; i < p->nopp; i++) {
        uint32_t f = p->opp_mhz[i] * 1000;
        if (f < p->min_khz || f > p->max_khz)
            continue;
        best = f;
        if (f >= khz)
            return f;
    }
    return best ? best : p->min_khz;
}

uint32_t cpufreq_resolve_khz(const struct cpufreq_policy *p, uint32_t khz)
{
    if (p->nopp > 0)
        return cpufreq_resolve_opp_khz(p, khz < p->min_khz ? p->min_khz : khz);
    uint64_t f = ((uint64_t)khz + CPUFREQ_STEP_KHZ - 1) / CPUFREQ_STEP_KHZ * CPUFREQ_STEP_KHZ;
    if (f > p->max_khz)
        f = p->max_khz;
    if (f < p->min_khz)
        f = p->min_khz;
    return (uint32_t)f;
}

sim_time_t cpufreq_rate_limit_ns(const struct cpufreq_driver *drv, const struct kversion *k)
{
    if (drv->transition_delay_ns)
        return drv->transition_delay_ns;
    sim_time_t lat = drv->transition_latency_ns;
    /* FACTS.md §5 [F3]: latency x 1000 capped at 10 ms; the cap cut to 2 ms
     * (Feb 2024, v6.9); then latency x 1.5 (v6.12) re-capped at 10 ms. */
    sim_time_t ns;
    if (kversion_at_least(k, "6.12"))
        ns = lat * 3 / 2;
    else
        ns = lat * 1000;
    sim_time_t cap = kversion_at_least(k, "6.9") && !kversion_at_least(k, "6.12")
                         ? 2 * SIM_NS_PER_MS : 10 * SIM_NS_PER_MS;
    return ns < cap ? ns : cap;
}

/* Whether a thread of core has a task set running whose segment is not
 * timed yet (the scheduler calls the util hook from inside sched_start):
 * re-timing it now would bank work it never did. */
static bool cpufreq_core_starting(const struct world *w, const struct hw_core *c)
{
    for (int i = 0; i < c->nthreads; i++) {
        const struct sched_cpu *sc = &w->sched.cpu[c->cpus[i]];
        if (sc->curr && !sc->waking && !sim_event_pending(&sc->curr->done_ev))
            return true;
    }
    return false;
}

static void cpufreq_apply_deferred(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    int core = (int)(ev - w->cpufreq.apply_ev);
    cpufreq_set_core_mhz(w, core, w->cpufreq.apply_mhz[core]);
}

void cpufreq_set_core_mhz(struct world *w, int core, uint32_t want_mhz)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    const struct hw_core *c = &w->machine->cores[core];
    if (sim_event_pending(&cs->apply_ev[core])) {
        cs->apply_mhz[core] = want_mhz;
        return;
    }
    uint32_t mhz = hw_rapl_clamp(&cs->rapl, core, want_mhz, w->q.now_ns);
    if (w->hw.core_mhz[core] == mhz)
        return;
    if (w->sched.cpu && cpufreq_core_starting(w, c)) {
        cs->apply_mhz[core] = want_mhz;
        sim_event_schedule(&w->q, &cs->apply_ev[core], w->q.now_ns);
        return;
    }
    if (w->cpufreq.track_util)
        for (int i = 0; i < c->nthreads; i++)
            pelt_sync(w, c->cpus[i]);
    if (w->sched.rq_avg)   /* fair.c's signals: their clocks too */
        for (int i = 0; i < c->nthreads; i++)
            rq_clock_pelt_sync(w, c->cpus[i]);
    hw_core_set_mhz(&w->hw, core, mhz, w->q.now_ns);
    tp_cpu_frequency(w, core, mhz);
    if (w->sched.cpu)   /* NULL while the world is being built */
        sched_core_speed_changed(w, core);
}

void cpufreq_core_apply(struct world *w, int core)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    if (cs->hwp) {
        intel_pstate_hwp_eval(w, core, true);
        return;
    }
    const struct hw_machine *m = w->machine;
    const struct hw_core *c = &m->cores[core];
    const struct hw_core_type *t = &m->types[c->type];
    uint32_t khz = 0;
    for (int i = 0; i < c->nthreads; i++)
        if (cs->policy[c->cpus[i]].cur_khz > khz)
            khz = cs->policy[c->cpus[i]].cur_khz;
    if (!khz)
        return;
    uint32_t mhz = khz / 1000;
    /* Above the lowest turbo bin the active cores' limit may bind. */
    if (t->nturbo > 0 && mhz > t->turbo_mhz[t->nturbo - 1]) {
        uint32_t lim = hw_core_turbo_limit_mhz(&w->hw, core);
        if (mhz > lim)
            mhz = lim;
    }
    cpufreq_set_core_mhz(w, core, mhz);
}

void cpufreq_driver_target(struct world *w, struct cpufreq_policy *p, uint32_t khz)
{
    if (khz > p->max_khz)
        khz = p->max_khz;
    if (khz < p->min_khz)
        khz = p->min_khz;
    w->cpufreq.driver->target(w, p, khz);
}

/* Whether p wants the util hook and the tick while busy. */
static bool cpufreq_policy_samples(const struct cpufreq_sys *cs, const struct cpufreq_policy *p)
{
    if (cs->driver->setpolicy)
        return !cs->hwp && p->policy == CPUFREQ_POLICY_POWERSAVE;
    return p->gov->samples;
}

/* Recompute which hooks run after a policy changed; PELT restarts from the
 * scheduler's state when it is turned on. */
static void cpufreq_update_hooks(struct world *w)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    bool track = false, hook = cs->hwp;
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++) {
        const struct cpufreq_policy *p = &cs->policy[cpu];
        hook |= cpufreq_policy_samples(cs, p);
        track |= !cs->driver->setpolicy && p->gov->needs_util;
    }
    if (track && !cs->track_util) {
        for (int cpu = 0; cpu < w->machine->ncpus; cpu++) {
            pelt_init(&cs->pelt[cpu], w->q.now_ns);
            cs->pelt[cpu].running = w->sched.cpu && w->sched.cpu[cpu].curr;
        }
    }
    cs->track_util = track;
    cs->util_hook = hook;
}

void cpufreq_tick_arm(struct world *w, int cpu)
{
    struct cpufreq_policy *p = &w->cpufreq.policy[cpu];
    if (!w->sched.cpu[cpu].curr || sim_event_pending(&p->tick_ev))
        return;
    /* a nohz_full CPU's stopped tick calls no util hook (isolation_run.h) */
    sim_time_t at = tick_nohz_full_next_ns(w, cpu, w->q.now_ns + w->cpufreq.tick_ns);
    if (at != SIM_TIME_MAX)
        sim_event_schedule(&w->q, &p->tick_ev, at);
}

void cpufreq_tick_restart(struct world *w, int cpu)
{
    struct cpufreq_policy *p = &w->cpufreq.policy[cpu];
    if (!w->cpufreq.util_hook || !cpufreq_policy_samples(&w->cpufreq, p))
        return;
    sim_event_cancel(&w->q, &p->tick_ev);
    cpufreq_tick_arm(w, cpu);
}

static void cpufreq_policy_hook(struct world *w, struct cpufreq_policy *p)
{
    const struct cpufreq_driver *drv = w->cpufreq.driver;
    if (drv->setpolicy) {
        if (drv->update_util)
            drv->update_util(w, p);
    } else if (p->gov->update) {
        p->gov->update(w, p);
    }
}

void cpufreq_update_util(struct world *w, int cpu)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    if (!cs->util_hook)
        return;
    /* A lapsed HWP chain must see a thread stop running; the active drivers'
     * hook reaches intel_pstate_hwp_eval, which looks itself. */
    if (cs->hwp && !cs->driver->setpolicy)
        intel_pstate_hwp_track(w, w->machine->cpus[cpu].core);
    if (cs->track_util)
        pelt_update(w, cpu);
    struct cpufreq_policy *p = &cs->policy[cpu];
    cpufreq_policy_hook(w, p);
    if (cpufreq_policy_samples(cs, p))
        cpufreq_tick_arm(w, cpu);
}

/* The scheduler tick on a busy CPU: the kernel calls the util hook from it. */
static void cpufreq_tick(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct cpufreq_policy *p = container_of(ev, struct cpufreq_policy, tick_ev);
    struct cpufreq_sys *cs = &w->cpufreq;
    if (!cpufreq_policy_samples(cs, p))
        return;
    if (cs->track_util)
        pelt_update(w, p->cpu);
    cpufreq_policy_hook(w, p);
    cpufreq_tick_arm(w, p->cpu);
}

/* Limits and EPP of cpu from the machine and the variant's sysfs writes. */
static void cpufreq_policy_init(struct world *w, struct cpufreq_policy *p, int cpu)
{
    const struct hw_machine *m = w->machine;
    const struct hw_core_type *t = &m->types[m->cpus[cpu].type];
    p->cpu = cpu;
    p->core = m->cpus[cpu].core;
    p->cpuinfo_min_khz = t->min_mhz * 1000;
    p->cpuinfo_max_khz = t->max_mhz * 1000;
    p->base_khz = t->base_mhz * 1000;
    p->opp_mhz = t->nopp ? t->opp_mhz : NULL;
    p->nopp = t->nopp;
    int64_t v;
    p->min_khz = p->cpuinfo_min_khz;
    p->max_khz = p->cpuinfo_max_khz;
    if (kparams_find_setting(w->kp, "scaling_min_freq", cpu, -1, &v))
        p->min_khz = (uint32_t)v;
    if (kparams_find_setting(w->kp, "scaling_max_freq", cpu, -1, &v))
        p->max_khz = (uint32_t)v;
    /* The kernel clamps writes to the cpuinfo range; with freq QoS a
     * minimum above the maximum yields to it. */
    if (p->min_khz < p->cpuinfo_min_khz)
        p->min_khz = p->cpuinfo_min_khz;
    if (p->max_khz > p->cpuinfo_max_khz)
        p->max_khz = p->cpuinfo_max_khz;
    if (p->max_khz < p->cpuinfo_min_khz)
        p->max_khz = p->cpuinfo_min_khz;
    if (p->min_khz > p->max_khz)
        p->min_khz = p->max_khz;
    p->epp = (int)kparams_get(w->kp, "energy_performance_preference", cpu, -1);
    p->gov_data = w->cpufreq.gov_data + (size_t)cpu * w->cpufreq.gov_data_stride;
    sim_event_init(&p->tick_ev, cpufreq_tick);
}

static void cpufreq_policy_start(struct world *w, struct cpufreq_policy *p)
{
    if (w->cpufreq.driver->setpolicy)
        w->cpufreq.driver->set_policy(w, p);
    else
        p->gov->start(w, p);
}

void cpufreq_init(struct world *w)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    const struct hw_machine *m = w->machine;
    memset(cs, 0, sizeof *cs);
    cs->apply_ev = xcalloc((size_t)m->ncores, sizeof *cs->apply_ev);
    cs->apply_mhz = xcalloc((size_t)m->ncores, sizeof *cs->apply_mhz);
    for (int c = 0; c < m->ncores; c++)
        sim_event_init(&cs->apply_ev[c], cpufreq_apply_deferred);
    cpufreq_power_limit_init(w);
    cs->driver = cpufreq_probe_driver(m, w->kp, &cs->hwp);
    if (!cs->driver)
        return;
    cs->active = true;
    static const int hz[] = { 100, 250, 300, 1000 }; /* tick_params CONFIG_HZ choices */
    cs->tick_ns = SIM_NS_PER_S / hz[kparams_get(w->kp, "CONFIG_HZ", 0, -1)];
    int n = m->ncpus;
    for (size_t i = 0; i < NGOVERNORS; i++)
        if (cpufreq_governors[i]->data_size > cs->gov_data_stride)
            cs->gov_data_stride = cpufreq_governors[i]->data_size;
    cs->policy = xcalloc((size_t)n, sizeof *cs->policy);
    cs->pelt = xcalloc((size_t)n, sizeof *cs->pelt);
    cs->gov_data = xcalloc((size_t)n, cs->gov_data_stride ? cs->gov_data_stride : 1);
    if (cs->hwp) {
        hwp_params_init(&cs->hwp_prm, m);
        cs->hwp_core = xcalloc((size_t)m->ncores, sizeof *cs->hwp_core);
        cs->hwp_running_cores = xcalloc((size_t)m->packages * (size_t)m->ntypes, sizeof(int));
        cs->hwp_pos_ns = -1;
        for (int c = 0; c < m->ncores; c++)
            sim_event_init(&cs->hwp_core[c].eval_ev, intel_pstate_hwp_timer);
    }
    for (int cpu = 0; cpu < n; cpu++) {
        struct cpufreq_policy *p = &cs->policy[cpu];
        cpufreq_policy_init(w, p, cpu);
        pelt_init(&cs->pelt[cpu], w->q.now_ns);
        const char *name = cpufreq_initial_governor(w->kp, cpu, -1);
        if (cs->driver->setpolicy)
            p->policy = cpufreq_setpolicy_kind(name);
        else
            p->gov = cpufreq_find_governor(name);
    }
    cpufreq_update_hooks(w);
    for (int cpu = 0; cpu < n; cpu++)
        cpufreq_policy_start(w, &cs->policy[cpu]);
}

void cpufreq_destroy(struct world *w)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    cpufreq_power_limit_destroy(w);
    free(cs->policy);
    free(cs->pelt);
    free(cs->gov_data);
    free(cs->hwp_core);
    free(cs->hwp_running_cores);
    free(cs->apply_ev);
    free(cs->apply_mhz);
    memset(cs, 0, sizeof *cs);
}

int cpufreq_set_governor(struct world *w, int cpu, const char *name)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    if (!cs->active)
        return -1;
    struct cpufreq_policy *p = &cs->policy[cpu];
    if (cs->driver->setpolicy) {
        enum cpufreq_policy_kind k = cpufreq_parse_policy(name);
        if (k == CPUFREQ_POLICY_UNKNOWN)
            return -1;
        p->policy = k;
    } else {
        const struct cpufreq_governor *g = cpufreq_find_governor(name);
        if (!g)
            return -1;
        p->gov = g;
        memset(p->gov_data, 0, cs->gov_data_stride);
    }
    sim_event_cancel(&w->q, &p->tick_ev);
    cpufreq_update_hooks(w);
    cpufreq_policy_start(w, p);
    if (cpufreq_policy_samples(cs, p) && w->sched.cpu)
        cpufreq_tick_arm(w, cpu);
    return 0;
}

const char *cpufreq_governor_name(const struct world *w, int cpu)
{
    const struct cpufreq_sys *cs = &w->cpufreq;
    if (!cs->active)
        return "";
    const struct cpufreq_policy *p = &cs->policy[cpu];
    if (cs->driver->setpolicy)
        return p->policy == CPUFREQ_POLICY_PERFORMANCE ? "performance" : "powersave";
    return p->gov->name;
}

bool cpufreq_cpu_is_powersave(const struct world *w, int cpu)
{
    const struct cpufreq_sys *cs = &w->cpufreq;
    if (!cs->active)
        return false;
    const struct cpufreq_policy *p = &cs->policy[cpu];
    if (cs->driver->setpolicy)
        return p->policy == CPUFREQ_POLICY_POWERSAVE;
    return p->gov == &cpufreq_gov_powersave;
}
