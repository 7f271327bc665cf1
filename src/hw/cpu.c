/* cpu: per-thread physical state, speed and energy, see cpu.h.
 *
 * Frequencies: until a cpufreq model drives them, every core type runs at its
 * base frequency (what firmware leaves when no cpufreq driver loads). */
#include "hw/cpu.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void hw_state_init(struct hw_state *hw, const struct hw_machine *m)
{
    memset(hw, 0, sizeof *hw);
    hw->m = m;
    hw->thr = xcalloc((size_t)m->ncpus, sizeof *hw->thr);
    hw->core = xcalloc((size_t)m->ncores, sizeof *hw->core);
    hw->freq_mhz = xcalloc((size_t)m->ntypes, sizeof *hw->freq_mhz);
    hw->smt_corun_factor = hw_machine_calib(m, "smt_corun_factor");
    hw->smt_poll_factor = hw_machine_calib(m, "smt_poll_factor");
    for (int t = 0; t < m->ntypes; t++)
        hw->freq_mhz[t] = m->types[t].base_mhz;
    /* Every thread starts idle in its shallowest hardware state. */
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        hw->thr[cpu].mode = HW_THREAD_IDLE;
        hw->thr[cpu].cstate = 0;
    }
    for (int c = 0; c < m->ncores; c++) {
        const struct hw_core_type *t = &m->types[m->cores[c].type];
        hw->core[c].power_mw = t->ncstates > 0 ? t->cstates[0].core_power_mw : 0;
        hw->core_power_mw += hw->core[c].power_mw;
    }
}

void hw_state_destroy(struct hw_state *hw)
{
    free(hw->thr);
    free(hw->core);
    free(hw->freq_mhz);
    memset(hw, 0, sizeof *hw);
}

static bool hw_thread_awake(const struct hw_thread *t)
{
    return t->mode != HW_THREAD_IDLE;
}

/* A core's power: active at its type's frequency when any thread is awake,
 * else the power of the shallowest C-state among its threads. */
static double hw_core_power_mw(const struct hw_state *hw, const struct hw_core *core)
{
    const struct hw_core_type *t = &hw->m->types[core->type];
    int shallowest = HW_MAX_CSTATES;
    for (int i = 0; i < core->nthreads; i++) {
        const struct hw_thread *th = &hw->thr[core->cpus[i]];
        if (hw_thread_awake(th))
            return hw_core_active_power_mw(t, hw->freq_mhz[core->type]);
        if (th->cstate < shallowest)
            shallowest = th->cstate;
    }
    return t->cstates[shallowest].core_power_mw;
}

static void hw_energy_advance(struct hw_state *hw, sim_time_t now_ns)
{
    hw->core_energy_mw_ns += hw->core_power_mw * (double)(now_ns - hw->power_since_ns);
    hw->power_since_ns = now_ns;
}

/* Add the time spent in the current mode up to now_ns to its accumulator. */
static void hw_thread_account(struct hw_thread *t, sim_time_t now_ns)
{
    sim_time_t dt = now_ns - t->since_ns;
    switch (t->mode) {
    case HW_THREAD_RUN:
        t->run_ns += dt;
        break;
    case HW_THREAD_POLL:
        t->poll_ns += dt;
        break;
    case HW_THREAD_IDLE:
        t->cstate_ns[t->cstate] += dt;
        break;
    case HW_THREAD_WAKE:
        t->wake_ns += dt;
        break;
    }
    t->since_ns = now_ns;
}

void hw_thread_set_mode(struct hw_state *hw, int cpu, enum hw_thread_mode mode, int cstate,
                        sim_time_t now_ns)
{
    struct hw_thread *t = &hw->thr[cpu];
    hw_thread_account(t, now_ns);
    t->mode = mode;
    if (mode == HW_THREAD_IDLE || mode == HW_THREAD_WAKE)
        t->cstate = cstate;
    int c = hw->m->cpus[cpu].core;
    struct hw_core_state *core = &hw->core[c];
    double p = hw_core_power_mw(hw, &hw->m->cores[c]);
    if (p != core->power_mw) {
        hw_energy_advance(hw, now_ns);
        hw->core_power_mw += p - core->power_mw;
        core->power_mw = p;
    }
}

int hw_thread_sibling(const struct hw_state *hw, int cpu)
{
    /* pmlab models at most two threads per core (HW_MAX_SMT). */
    const struct hw_core *core = &hw->m->cores[hw->m->cpus[cpu].core];
    if (core->nthreads < 2)
        return -1;
    return core->cpus[0] == cpu ? core->cpus[1] : core->cpus[0];
}

double hw_thread_speed(const struct hw_state *hw, int cpu)
{
    const struct hw_machine *m = hw->m;
    int type = m->cpus[cpu].type;
    const struct hw_core_type *t = &m->types[type];
    double speed = t->ipc_factor / m->types[0].ipc_factor * (double)hw->freq_mhz[type] /
                   (double)m->types[0].base_mhz;
    int sib = hw_thread_sibling(hw, cpu);
    if (sib >= 0) {
        enum hw_thread_mode sm = hw->thr[sib].mode;
        if (sm == HW_THREAD_RUN)
            speed *= hw->smt_corun_factor;
        else if (sm == HW_THREAD_POLL)
            speed *= hw->smt_poll_factor;
    }
    return speed;
}

sim_time_t hw_thread_exit_latency_ns(const struct hw_state *hw, int cpu)
{
    const struct hw_thread *t = &hw->thr[cpu];
    if (t->mode != HW_THREAD_IDLE)
        return 0;
    return hw->m->types[hw->m->cpus[cpu].type].cstates[t->cstate].exit_latency_ns;
}

sim_time_t hw_thread_refill_ns(const struct hw_state *hw, int cpu)
{
    const struct hw_thread *t = &hw->thr[cpu];
    const struct hw_cstate *cs = &hw->m->types[hw->m->cpus[cpu].type].cstates[t->cstate];
    return cs->flushes_caches ? cs->refill_ns : 0;
}

void hw_measure_reset(struct hw_state *hw, sim_time_t now_ns)
{
    hw_energy_advance(hw, now_ns);
    hw->core_energy_mw_ns = 0;
    hw->measure_start_ns = now_ns;
    for (int cpu = 0; cpu < hw->m->ncpus; cpu++) {
        struct hw_thread *t = &hw->thr[cpu];
        t->since_ns = now_ns;
        t->run_ns = t->poll_ns = t->wake_ns = 0;
        memset(t->cstate_ns, 0, sizeof t->cstate_ns);
    }
}

/* residency.<name>: share of all CPUs' time in each hardware C-state, summed
 * by name over core types, in %. */
static void hw_collect_residency(const struct hw_state *hw, double cpu_time_ns,
                                 struct rpt_metric_set *out)
{
    const struct hw_machine *m = hw->m;
    for (int ty = 0; ty < m->ntypes; ty++) {
        for (int s = 0; s < m->types[ty].ncstates; s++) {
            const char *name = m->types[ty].cstates[s].name;
            double ns = 0;
            for (int cpu = 0; cpu < m->ncpus; cpu++)
                for (int s2 = 0; s2 < m->types[m->cpus[cpu].type].ncstates; s2++)
                    if (strcmp(m->types[m->cpus[cpu].type].cstates[s2].name, name) == 0)
                        ns += (double)hw->thr[cpu].cstate_ns[s2];
            char key[RPT_NAME_MAX];
            snprintf(key, sizeof key, "residency.%s", name);
            rpt_set_put(out, key, "%", RPT_NEUTRAL, 100.0 * ns / cpu_time_ns);
        }
    }
}

void hw_collect_metrics(struct hw_state *hw, sim_time_t now_ns, struct rpt_metric_set *out)
{
    const struct hw_machine *m = hw->m;
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        hw_thread_account(&hw->thr[cpu], now_ns);
    hw_energy_advance(hw, now_ns);
    double window_ns = (double)(now_ns - hw->measure_start_ns);
    double cpu_time_ns = window_ns * m->ncpus;
    double run = 0, poll = 0, mhz_ns = 0;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        const struct hw_thread *t = &hw->thr[cpu];
        run += (double)t->run_ns;
        poll += (double)t->poll_ns;
        mhz_ns += (double)(t->run_ns + t->poll_ns) * hw->freq_mhz[m->cpus[cpu].type];
    }
    double core_w = window_ns > 0 ? hw->core_energy_mw_ns / window_ns / 1000.0 : 0;
    /* Package C-states are not modelled yet: every package draws its active
     * uncore power throughout. */
    double pkg_w = core_w + m->packages * m->pkg_active_power_mw / 1000.0;
    rpt_set_put(out, "pkg_watts", "W", RPT_LOWER_BETTER, pkg_w);
    rpt_set_put(out, "core_watts", "W", RPT_LOWER_BETTER, core_w);
    /* Busy% as turbostat reports it (C0 time, polling included). */
    rpt_set_put(out, "busy_pct", "%", RPT_NEUTRAL, 100.0 * (run + poll) / cpu_time_ns);
    rpt_set_put(out, "poll_pct", "%", RPT_NEUTRAL, 100.0 * poll / cpu_time_ns);
    /* Avg_MHz as turbostat: cycles in C0 over all elapsed time. */
    rpt_set_put(out, "avg_mhz", "MHz", RPT_NEUTRAL, mhz_ns / cpu_time_ns);
    rpt_set_put(out, "residency.POLL", "%", RPT_NEUTRAL, 100.0 * poll / cpu_time_ns);
    hw_collect_residency(hw, cpu_time_ns, out);
}
