/* intel_pstate: Intel's scaling driver (drivers/cpufreq/intel_pstate.c,
 * Documentation/admin-guide/pm/intel_pstate.rst; FACTS.md §5 [F4, F5]),
 * and the acpi-cpufreq stand-in that loads when it is disabled.
 *
 * Modes, as the driver chooses them at boot (v5.9 and later):
 *  - active ("intel_pstate"), the default with HWP: a setpolicy driver with
 *    its own "performance" and "powersave". With HWP, performance pins the
 *    HWP range to the maximum with EPP 0; powersave hands the hardware the
 *    policy's [min, max] and the EPP (firmware's, or sysfs
 *    energy_performance_preference) and the hardware chooses (hw/hwp.h).
 *    Without HWP (only with intel_pstate=no_hwp,active on those kernels;
 *    here: before v5.9 or intel_pstate=active on a part without HWP),
 *    powersave samples each CPU at most every 10 ms and asks for
 *    1.25 x turbo x C0 share (get_target_pstate).
 *  - passive ("intel_cpufreq"): serves the generic governors. With HWP
 *    schedutil's target (v5.11+, ->adjust_perf) is the HWP desired level
 *    over the policy's [min, max]; another governor's target is the HWP
 *    minimum with the policy max as the maximum (the target for the strict
 *    performance and powersave), so the hardware may go higher, and from
 *    v6.17 also the desired level (intel_cpufreq_hwp_request); without HWP
 *    it is the P-state. Default without HWP since v5.9 (also with no_hwp).
 *  - intel_pstate=disable: acpi-cpufreq loads instead (target driver over
 *    the ACPI P-states, every frequency up to base plus "turbo" as one
 *    state in which the hardware runs up to its turbo limit).
 * HWP availability follows the CPU model (X86_FEATURE_HWP, Skylake on).
 *
 * ITMT (FACTS.md §6 [A4, A6, F5]): each CPU's priority is its CPPC highest
 * performance; when that reads 0xFF (firmware's placeholder, overclocked
 * parts [A6]) the HWP_CAPABILITIES highest performance stands in, and since
 * a1ff59784b27 (v6.10) also when CPPC is missing altogether (no _CPC, or not
 * probed because _OSC did not ack CPPC v2). Once two CPUs differ, ITMT
 * support is set (kernel/x86/itmt.c). The 6.10 fallback's stable backports
 * (5.19+, 6.1) are not keyed: a variant that means one names 6.10. The 0xFF
 * case is applied on every kernel: FACTS.md does not date [A6].
 *
 * Left out: hwp_dynamic_boost, EPB without HWP, per_cpu_perf_limits,
 * hwp_only, the global max_perf_pct/min_perf_pct and no_turbo. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/acpi/cppc.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/sched.h"
#include "kernel/x86/itmt.h"
#include "util/xalloc.h"
#include "world.h"
#include "util/container.h"


#define INTEL_PSTATE_ITMT_HWP_SINCE "6.10"              /* a1ff59784b27 */
#define INTEL_PSTATE_HYBRID_CAPACITY_SINCE "6.12"       /* 929ebc93ccaa (FACTS-2 H3) */
#define INTEL_CPUFREQ_ADJUST_PERF_SINCE "5.11"          /* a365ab6b9dfb */
#define INTEL_CPUFREQ_DESIRED_SINCE "6.17"              /* 1cefe495cacb */
#define INTEL_PSTATE_SAMPLING_NS (10 * SIM_NS_PER_MS)      /* [F4]: at most every 10 ms */
#define INTEL_CPUFREQ_LATENCY_NS (20 * SIM_NS_PER_US)      /* INTEL_CPUFREQ_TRANSITION_LATENCY */
#define INTEL_CPUFREQ_DELAY_HWP_NS (5000 * SIM_NS_PER_US)  /* [F5] transition_delay_us, HWP */
#define INTEL_CPUFREQ_DELAY_NS (500 * SIM_NS_PER_US)       /* [F5] ... without HWP */
/* acpi-cpufreq: _PSS transition latency, typically 10 us on Intel boards
 * (estimate: firmware value, no single source). */
#define ACPI_CPUFREQ_LATENCY_NS (10 * SIM_NS_PER_US)

/* Models with HWP (X86_FEATURE_HWP) among those pmlab has machines for or
 * may: Skylake and later. intel_pstate supports every model listed. */
static const char *const intel_pstate_hwp_models[] = {
    "SKYLAKE", "SKYLAKE_L", "SKYLAKE_X", "KABYLAKE", "KABYLAKE_L", "COMETLAKE",
    "COMETLAKE_L", "ICELAKE", "ICELAKE_L", "ICELAKE_X", "ICELAKE_D", "TIGERLAKE",
    "TIGERLAKE_L", "ALDERLAKE", "ALDERLAKE_L", "RAPTORLAKE", "RAPTORLAKE_P",
    "RAPTORLAKE_S", "METEORLAKE", "METEORLAKE_L", "SAPPHIRERAPIDS_X", "EMERALDRAPIDS_X",
    "GRANITERAPIDS_X", "SIERRAFOREST_X", NULL,
};

static bool intel_pstate_has_hwp(const struct hw_machine *m)
{
    for (int i = 0; intel_pstate_hwp_models[i]; i++)
        if (strcmp(m->cpu_model, intel_pstate_hwp_models[i]) == 0)
            return true;
    return false;
}

/* ---- active mode ------------------------------------------------------------ */

/* intel_pstate_set_policy: performance or powersave within the limits. */
static void intel_pstate_set_policy(struct world *w, struct cpufreq_policy *p)
{
    if (w->cpufreq.hwp) {
        intel_pstate_hwp_update_request(w, p);
        return;
    }
    if (p->policy == CPUFREQ_POLICY_PERFORMANCE)
        p->cur_khz = p->max_khz;
    else if (!p->cur_khz)
        p->cur_khz = p->min_khz;
    if (p->cur_khz < p->min_khz)
        p->cur_khz = p->min_khz;
    if (p->cur_khz > p->max_khz)
        p->cur_khz = p->max_khz;
    cpufreq_core_apply(w, p->core);
}

/* intel_pstate_update_util without HWP: at most every 10 ms, target =
 * 1.25 x the turbo P-state x the C0 share since the last sample. */
static void intel_pstate_update_util(struct world *w, struct cpufreq_policy *p)
{
    if (w->cpufreq.hwp) {
        intel_pstate_hwp_eval(w, p->core, false);
        return;
    }
    if (p->policy == CPUFREQ_POLICY_PERFORMANCE)
        return;
    sim_time_t now = w->q.now_ns;
    sim_time_t dt = now - p->last_sample_ns;
    if (dt < INTEL_PSTATE_SAMPLING_NS)
        return;
    sim_time_t c0 = hwp_thread_c0_ns(&w->hw, p->cpu, now);
    sim_time_t busy = c0 - p->sample_c0_ns;
    busy = busy < 0 ? 0 : busy > dt ? dt : busy;  /* counters restart with the window */
    p->last_sample_ns = now;
    p->sample_c0_ns = c0;
    double target = 1.25 * (double)p->cpuinfo_max_khz * (double)busy / (double)dt;
    uint32_t khz = target >= (double)p->max_khz ? p->max_khz : (uint32_t)target;
    p->cur_khz = cpufreq_resolve_khz(p, khz);
    cpufreq_core_apply(w, p->core);
}

static const struct cpufreq_driver intel_pstate_driver = {
    .name = "intel_pstate",
    .setpolicy = true,
    .set_policy = intel_pstate_set_policy,
    .update_util = intel_pstate_update_util,
};

/* ---- passive mode and acpi-cpufreq -------------------------------------- */

/* intel_cpufreq_target: with HWP the target is the HWP minimum and the policy
 * max the maximum; without, the P-state itself. */
void intel_cpufreq_target(struct world *w, struct cpufreq_policy *p, uint32_t khz)
{
    p->cur_khz = khz;
    if (w->cpufreq.hwp)
        intel_pstate_hwp_update_request(w, p);
    else
        cpufreq_core_apply(w, p->core);
}

static const struct cpufreq_driver intel_cpufreq_hwp_driver = {
    .name = "intel_cpufreq",
    .transition_latency_ns = INTEL_CPUFREQ_LATENCY_NS,
    .transition_delay_ns = INTEL_CPUFREQ_DELAY_HWP_NS,
    .target = intel_cpufreq_target,
};

static const struct cpufreq_driver intel_cpufreq_driver = {
    .name = "intel_cpufreq",
    .transition_latency_ns = INTEL_CPUFREQ_LATENCY_NS,
    .transition_delay_ns = INTEL_CPUFREQ_DELAY_NS,
    .target = intel_cpufreq_target,
};

const struct cpufreq_driver acpi_cpufreq_driver = {
    .name = "acpi-cpufreq",
    .transition_latency_ns = ACPI_CPUFREQ_LATENCY_NS,
    .target = intel_cpufreq_target,   /* same effect without HWP: the P-state */
};

const struct cpufreq_driver *intel_pstate_probe(const struct hw_machine *m,
                                                const struct kparams *kp, bool *hwp)
{
    *hwp = false;
    if (kparams_get(kp, "cpufreq.off", 0, -1) != 0)
        return NULL;
    if (strcmp(m->vendor, "intel") != 0)
        return NULL;
    enum intel_pstate_opt opt = (enum intel_pstate_opt)kparams_get(kp, "intel_pstate", 0, -1);
    if (opt == INTEL_PSTATE_OPT_DISABLE)
        return &acpi_cpufreq_driver;
    *hwp = intel_pstate_has_hwp(m) && opt != INTEL_PSTATE_OPT_NO_HWP;
    bool passive;
    if (opt == INTEL_PSTATE_OPT_ACTIVE)
        passive = false;
    else if (opt == INTEL_PSTATE_OPT_PASSIVE)
        passive = true;
    else  /* default; no_hwp: passive without HWP since v5.9 */
        passive = !*hwp && kversion_at_least(&kp->kernel, "5.9");
    if (!passive)
        return &intel_pstate_driver;
    return *hwp ? &intel_cpufreq_hwp_driver : &intel_cpufreq_driver;
}

/* ---- ITMT priorities --------------------------------------------------------- */

uint32_t intel_pstate_hwp_highest_perf(const struct hw_machine *m, int cpu)
{
    const struct hw_core_type *t = &m->types[m->cpus[cpu].type];
    return t->hwp_highest_perf ? t->hwp_highest_perf : t->max_mhz / 100;
}

/* intel_pstate_set_itmt_prio: cpu's priority, or -1 when the driver sets
 * none (CPPC missing on a kernel without the HWP fallback, or no HWP). */
static int intel_pstate_set_itmt_prio(const struct hw_machine *m, const struct kparams *kp,
                                      bool hwp, int cpu)
{
    struct cppc_perf_caps caps;
    int ret = cppc_get_perf_caps(m, kp, cpu, &caps);
    if (ret == 0 && caps.highest_perf != HW_CPPC_MAX_PERF)
        return (int)caps.highest_perf;
    if (!hwp)
        return -1;
    if (ret != 0 && !kversion_at_least(&kp->kernel, INTEL_PSTATE_ITMT_HWP_SINCE))
        return -1;
    return (int)intel_pstate_hwp_highest_perf(m, cpu);
}

/* FACTS-2.md section 4 [H3]: capacity-aware scheduling instead of ITMT on
 * hybrids, except with SMT, "because the capacity of SMT threads is not
 * deterministic even approximately" (sched_smt_active(); intel_pstate=no_cas
 * is not modelled). */
bool intel_pstate_hybrid_capacity(const struct hw_machine *m, const struct kparams *kp,
                                  unsigned long *capacity)
{
    bool hwp;
    const struct cpufreq_driver *drv = intel_pstate_probe(m, kp, &hwp);
    if (!drv || !hwp || strcmp(drv->name, "acpi-cpufreq") == 0 || m->ntypes < 2 ||
        m->threads_per_core > 1 || !kversion_at_least(&kp->kernel, INTEL_PSTATE_HYBRID_CAPACITY_SINCE))
        return false;
    uint32_t max_perf = 0;
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        if (intel_pstate_hwp_highest_perf(m, cpu) > max_perf)
            max_perf = intel_pstate_hwp_highest_perf(m, cpu);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        capacity[cpu] = (unsigned long)intel_pstate_hwp_highest_perf(m, cpu) * 1024 / max_perf;
    return true;
}

void intel_pstate_itmt_init(const struct hw_machine *m, const struct kparams *kp, bool hwp,
                            struct itmt *it)
{
    unsigned long *cap = xcalloc((size_t)m->ncpus, sizeof *cap);
    bool cas = intel_pstate_hybrid_capacity(m, kp, cap);
    free(cap);
    if (cas) {
        snprintf(it->why, sizeof it->why, "intel_pstate: hybrid without SMT, CPU capacities "
                 "scaled instead (v6.12, 929ebc93ccaa)");
        return;
    }
    int min_perf = -1, max_perf = -1;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        int perf = intel_pstate_set_itmt_prio(m, kp, hwp, cpu);
        if (perf < 0)
            continue;
        sched_set_itmt_core_prio(m, &kp->kernel, it, perf, cpu);
        if (min_perf < 0 || perf < min_perf)
            min_perf = perf;
        if (perf > max_perf)
            max_perf = perf;
    }
    if (max_perf > min_perf) {
        sched_set_itmt_support(it);
        return;
    }
    char why[96];
    if (max_perf < 0 && !acpi_cppc_processor_probe(m, kp, 0, why, sizeof why))
        snprintf(it->why, sizeof it->why, "intel_pstate: no CPPC (%s)%s", why,
                 hwp ? " and no HWP fallback before 6.10 (a1ff59784b27)" : " and no HWP");
    else
        snprintf(it->why, sizeof it->why, "intel_pstate: every CPU has the same highest "
                 "performance");
}

/* ---- HWP: the OS side writes requests, the hardware side chooses ---------- */

/* The core honours the most demanding of its threads' requests (hw/hwp.h);
 * threads whose request is not written yet (boot) do not count. */
static void intel_pstate_hwp_combine(struct world *w, int core)
{
    const struct cpufreq_sys *cs = &w->cpufreq;
    struct cpufreq_hwp_core *hcs = &cs->hwp_core[core];
    const struct hw_core *c = &w->machine->cores[core];
    struct hwp_request req[HW_MAX_SMT];
    int nreq = 0;
    for (int i = 0; i < c->nthreads; i++)
        if (cs->policy[c->cpus[i]].hwp_req.max_mhz)
            req[nreq++] = cs->policy[c->cpus[i]].hwp_req;
    hcs->nreq = nreq;
    if (nreq)
        hcs->req = hwp_core_request(req, nreq);
    hcs->sat_nolimit_mhz = hcs->sat_limit_mhz = 0;
}

/* hwp_select_mhz for the core's filtered busy share, the turbo limit of the
 * active cores applied when it can bind (it costs a look at the package). A
 * saturated filter gives an answer that depends on the request and the limit
 * only: memoised per core. */
static uint32_t intel_pstate_hwp_select(struct world *w, int core)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    struct cpufreq_hwp_core *hcs = &cs->hwp_core[core];
    const struct hw_core_type *t = &w->machine->types[w->machine->cores[core].type];
    double busy = hcs->hc.busy_avg;
    uint32_t top_turbo_mhz = t->nturbo > 0 ? t->turbo_mhz[t->nturbo - 1] : UINT32_MAX;
    if (!hwp_busy_saturated(&cs->hwp_prm, busy, &hcs->req)) {
        uint32_t mhz = hwp_select_mhz(&cs->hwp_prm, t, busy, &hcs->req, UINT32_MAX);
        if (mhz > top_turbo_mhz)
            mhz = hwp_select_mhz(&cs->hwp_prm, t, busy, &hcs->req,
                                 hw_core_turbo_limit_mhz(&w->hw, core));
        return mhz;
    }
    if (!hcs->sat_nolimit_mhz)
        hcs->sat_nolimit_mhz = hwp_saturated_mhz(&cs->hwp_prm, t, &hcs->req, UINT32_MAX);
    if (hcs->sat_nolimit_mhz <= top_turbo_mhz)
        return hcs->sat_nolimit_mhz;
    uint32_t limit_mhz = hw_core_turbo_limit_mhz(&w->hw, core);
    if (hcs->sat_limit_mhz != limit_mhz) {
        hcs->sat_limit_mhz = limit_mhz;
        hcs->sat_mhz = hwp_saturated_mhz(&cs->hwp_prm, t, &hcs->req, limit_mhz);
    }
    return hcs->sat_mhz;
}

/* Passive mode's request for the governor's target (intel_cpufreq_hwp_update).
 * schedutil from v5.11 goes through ->adjust_perf (a365ab6b9dfb,
 * intel_cpufreq_adjust_perf): the policy minimum as the floor (pmlab has no
 * deadline bandwidth to raise it), the target as the desired level, the
 * policy maximum. The other governors (->target, intel_cpufreq_update_pstate)
 * set the target as the minimum, the policy maximum (the target itself for
 * strict governors [F4]), and from v6.17 (1cefe495cacb) the target as the
 * desired level too; before, no desired level, so the hardware may go above
 * the target. */
static void intel_cpufreq_hwp_request(const struct world *w, const struct cpufreq_policy *p,
                                      struct hwp_request *r)
{
    uint32_t target_mhz = (p->cur_khz ? p->cur_khz : p->min_khz) / 1000;
    const struct kversion *k = &w->kp->kernel;
    if (p->gov == &cpufreq_gov_schedutil && kversion_at_least(k, INTEL_CPUFREQ_ADJUST_PERF_SINCE)) {
        r->min_mhz = p->min_khz / 1000;
        r->desired_mhz = target_mhz;
        return;
    }
    r->min_mhz = target_mhz;
    if (p->gov && p->gov->strict_target)
        r->max_mhz = r->min_mhz;
    if (kversion_at_least(k, INTEL_CPUFREQ_DESIRED_SINCE))
        r->desired_mhz = target_mhz;
}

void intel_pstate_hwp_update_request(struct world *w, struct cpufreq_policy *p)
{
    struct hwp_request *r = &p->hwp_req;
    const struct cpufreq_driver *drv = w->cpufreq.driver;
    r->max_mhz = p->max_khz / 1000;
    r->desired_mhz = 0;
    r->epp = p->epp;
    if (drv->setpolicy && p->policy == CPUFREQ_POLICY_PERFORMANCE) {
        r->min_mhz = r->max_mhz;   /* [F4]: range pinned to the max, EPP 0 */
        r->epp = 0;
    } else if (drv->setpolicy) {
        r->min_mhz = p->min_khz / 1000;
    } else {
        intel_cpufreq_hwp_request(w, p, r);
    }
    intel_pstate_hwp_combine(w, p->core);
    intel_pstate_hwp_eval(w, p->core, true);
}

/* ---- lapsed chains ----------------------------------------------------------
 *
 * Why: on a busy server most evaluations find the core in C0 since the last
 * one, its filter saturated and its turbo limit where it was, and choose the
 * frequency it already runs at; they are a quarter of all events. Such a
 * chain is not queued ("lapses") while that is known to stay so, and its
 * evaluations are replayed, from the elapsed time alone and bit for bit
 * (hwp_core_sample_c0), when it may stop being so:
 *  - the core stays in C0: one of its threads runs a task, and a thread
 *    stops running only where the scheduler then calls its util hook at the
 *    same instant (sched_pick_next going idle, sched_start of a polling
 *    task), which replays the chain when none runs any more (a thread that
 *    starts running unseen, in the wake-up kernel path, is only not counted);
 *  - the filter stays saturated (hwp_busy_stays_saturated), so the choice
 *    depends on the request and the turbo limit only;
 *  - the request changes only through intel_pstate_hwp_eval (which replays
 *    first); the package power ceiling reaches the core without it, but by
 *    re-applying the choice the chain would make again;
 *  - the turbo limit cannot bind (the saturated choice is at or under the
 *    all-core bin), or at least as many cores of the package and type run a
 *    task (and so are active) as the bin table needs to reach its last bin:
 *    when that count drops below, the package's lapsed chains are replayed;
 *  - a measurement restart replays every chain (the counters restart).
 * Evaluations fire after every other event of their instant, by core
 * (intel_pstate_hwp_arm), so a replayed chain is queued again with the very
 * key it would have had. */

/* A thread of core runs a task (hw/cpu.c keeps the count by mode). */
static bool intel_pstate_hwp_core_runs(const struct world *w, int core)
{
    return w->hw.core[core].nrun > 0;
}

/* Active cores of t's kind from which the turbo limit is the last bin. */
static int intel_pstate_hwp_steady_cores(const struct hw_core_type *t)
{
    int k = t->nturbo;
    while (k > 1 && t->turbo_mhz[k - 2] == t->turbo_mhz[t->nturbo - 1])
        k--;
    return k;
}

static int *intel_pstate_hwp_running(struct world *w, int core)
{
    const struct hw_core *c = &w->machine->cores[core];
    return &w->cpufreq.hwp_running_cores[c->package * w->machine->ntypes + c->type];
}

/* Whether core's chain, at a lapsed evaluation due at when_ns, has fired it
 * by now: earlier instants have; at this instant evaluations fire after the
 * others, by core, and the one being handled marks how far they got. */
static bool intel_pstate_hwp_fired(const struct world *w, int core, sim_time_t when_ns)
{
    const struct cpufreq_sys *cs = &w->cpufreq;
    return when_ns < w->q.now_ns ||
           (when_ns == w->q.now_ns && cs->hwp_pos_ns == when_ns && core < cs->hwp_pos_core);
}

/* Replay the lapsed evaluations that have fired and queue the next. */
static void intel_pstate_hwp_resume(struct world *w, int core)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    struct cpufreq_hwp_core *hcs = &cs->hwp_core[core];
    hcs->lapsed = false;
    sim_time_t when = hcs->hc.last_ns + cs->hwp_prm.eval_ns;
    while (intel_pstate_hwp_fired(w, core, when)) {
        hwp_core_sample_c0(&hcs->hc, &cs->hwp_prm, when);
        when += cs->hwp_prm.eval_ns;
    }
    sim_event_schedule_last(&w->q, &hcs->eval_ev, when, (uint32_t)core);
}

/* Resume the chains of core's package and type that relied on its count. */
static void intel_pstate_hwp_resume_package(struct world *w, int core)
{
    const struct hw_machine *m = w->machine;
    const struct hw_core *c = &m->cores[core];
    for (int o = 0; o < m->ncores; o++) {
        const struct cpufreq_hwp_core *h = &w->cpufreq.hwp_core[o];
        if (h->lapsed && h->lapse_on_count && m->cores[o].package == c->package &&
            m->cores[o].type == c->type)
            intel_pstate_hwp_resume(w, o);
    }
}

void intel_pstate_hwp_track(struct world *w, int core)
{
    struct cpufreq_hwp_core *hcs = &w->cpufreq.hwp_core[core];
    bool runs = intel_pstate_hwp_core_runs(w, core);
    if (runs != hcs->running) {
        hcs->running = runs;
        int *n = intel_pstate_hwp_running(w, core);
        *n += runs ? 1 : -1;
        const struct hw_core_type *t = &w->machine->types[w->machine->cores[core].type];
        if (!runs && *n + 1 == intel_pstate_hwp_steady_cores(t))
            intel_pstate_hwp_resume_package(w, core);
    }
    if (hcs->lapsed && !runs)
        intel_pstate_hwp_resume(w, core);
}

void intel_pstate_hwp_measure_reset(struct world *w)
{
    if (!w->cpufreq.hwp)
        return;
    for (int c = 0; c < w->machine->ncores; c++)
        if (w->cpufreq.hwp_core[c].lapsed)
            intel_pstate_hwp_resume(w, c);
}

/* Whether the chain of core, evaluated just now, may lapse (see above);
 * *on_count: only while its package's run count holds. */
static bool intel_pstate_hwp_may_lapse(struct world *w, int core, bool *on_count)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    struct cpufreq_hwp_core *hcs = &cs->hwp_core[core];
    const struct hw_core_type *t = &w->machine->types[w->machine->cores[core].type];
    if (!hcs->running || !hwp_busy_stays_saturated(&hcs->hc, &cs->hwp_prm, &hcs->req))
        return false;
    *on_count = false;
    if (t->nturbo == 0 || (hcs->sat_nolimit_mhz && hcs->sat_nolimit_mhz <= t->turbo_mhz[t->nturbo - 1]))
        return true;
    *on_count = true;
    return *intel_pstate_hwp_running(w, core) >= intel_pstate_hwp_steady_cores(t);
}

/* The next evaluation, eval_ns after the last. It fires after every other
 * event of its instant (the hardware samples the instant's outcome), cores in
 * index order: the order of a tie then does not depend on when the chain was
 * armed. Right after an evaluation the chain may lapse instead. */
static void intel_pstate_hwp_arm(struct world *w, int core, bool evaluated)
{
    struct cpufreq_hwp_core *hcs = &w->cpufreq.hwp_core[core];
    if (w->hw.core[core].cstate >= 0 || sim_event_pending(&hcs->eval_ev))
        return;
    sim_time_t when = hcs->hc.last_ns + w->cpufreq.hwp_prm.eval_ns;
    if (when < w->q.now_ns)
        when = w->q.now_ns;
    if (evaluated && intel_pstate_hwp_may_lapse(w, core, &hcs->lapse_on_count)) {
        hcs->lapsed = true;
        return;
    }
    sim_event_schedule_last(&w->q, &hcs->eval_ev, when, (uint32_t)core);
}

void intel_pstate_hwp_eval(struct world *w, int core, bool force)
{
    struct cpufreq_sys *cs = &w->cpufreq;
    struct cpufreq_hwp_core *hcs = &cs->hwp_core[core];
    sim_time_t now = w->q.now_ns;
    /* The util hook's calls keep the running count (a forced evaluation
     * replays a lapsed chain anyway, and a thread that runs unseen only
     * goes uncounted). */
    if (!force)
        intel_pstate_hwp_track(w, core);
    if (hcs->lapsed) {
        /* Too soon (the lapsed evaluation due now, if any, has fired)
         * changes nothing; anything else sees the chain as queued. */
        sim_time_t due = hcs->hc.last_ns + cs->hwp_prm.eval_ns;
        sim_time_t since_due = now - due;
        bool at_due = since_due >= 0 && since_due % cs->hwp_prm.eval_ns == 0 &&
                      !intel_pstate_hwp_fired(w, core, now);
        if (!force && !at_due)
            return;
        intel_pstate_hwp_resume(w, core);
    }
    if (!force && now - hcs->hc.last_ns < cs->hwp_prm.eval_ns) {
        intel_pstate_hwp_arm(w, core, false);
        return;
    }
    if (hcs->nreq == 0)
        return;
    hwp_core_sample(&hcs->hc, &cs->hwp_prm, &w->hw, core, now);
    uint32_t mhz = intel_pstate_hwp_select(w, core);
    cpufreq_set_core_mhz(w, core, mhz);
    intel_pstate_hwp_arm(w, core, true);
}

void intel_pstate_hwp_timer(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct cpufreq_hwp_core *hcs = container_of(ev, struct cpufreq_hwp_core, eval_ev);
    int core = (int)(hcs - w->cpufreq.hwp_core);
    w->cpufreq.hwp_pos_ns = w->q.now_ns;
    w->cpufreq.hwp_pos_core = core;
    intel_pstate_hwp_eval(w, core, true);
}
