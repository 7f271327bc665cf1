/* cpu: per-thread, per-core and per-package physical state, speed and
 * energy, see cpu.h.
 *
 * Frequencies: each core starts at its type's base frequency (what firmware
 * leaves when no cpufreq driver loads); the cpufreq layer sets them. */
#include "hw/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Whether a core of type t in C-state cs (-1: active) allows package state p. */
static bool hw_core_allows_pkgstate(const struct hw_state *hw, int t, int cs, int p)
{
    int need = hw->pkg_core_cstate[t * HW_MAX_PKGSTATES + p];
    return cs >= 0 && need >= 0 && cs >= need;
}

/* Package states are nested when, for every core type, each deeper package
 * state needs a core state at least as deep as the shallower one's (and a
 * state the type has): then a core that allows state q allows every p < q,
 * and the package's state is simply the deepest one every core allows. The
 * shipped machines are; for any other file cpu.c falls back to the scan. */
static bool hw_pkgstates_nested(const struct hw_state *hw)
{
    const struct hw_machine *m = hw->m;
    for (int t = 0; t < m->ntypes; t++) {
        const int *need = &hw->pkg_core_cstate[t * HW_MAX_PKGSTATES];
        for (int p = 1; p < m->npkgstates; p++)
            if (need[p] >= 0 && (need[p - 1] < 0 || need[p - 1] > need[p]))
                return false;
    }
    return true;
}

static void hw_resolve_pkgstates(struct hw_state *hw)
{
    const struct hw_machine *m = hw->m;
    hw->pkg_core_cstate = xcalloc((size_t)m->ntypes * HW_MAX_PKGSTATES, sizeof(int));
    for (int t = 0; t < m->ntypes; t++)
        for (int p = 0; p < m->npkgstates; p++)
            hw->pkg_core_cstate[t * HW_MAX_PKGSTATES + p] =
                hw_cstate_index(&m->types[t], m->pkgstates[p].core_cstate);
    hw->pkgstates_nested = hw_pkgstates_nested(hw);
    hw->pkg_type_active = xcalloc((size_t)m->packages * (size_t)m->ntypes, sizeof(int));
    hw->pkg_ncores = xcalloc((size_t)m->packages, sizeof(int));
    hw->pkg_cores_ready = xcalloc((size_t)m->packages * HW_MAX_PKGSTATES, sizeof(int));
    /* Every core starts active (hw_state_init). */
    for (int c = 0; c < m->ncores; c++) {
        hw->pkg_type_active[m->cores[c].package * m->ntypes + m->cores[c].type]++;
        hw->pkg_ncores[m->cores[c].package]++;
    }
}

/* Core c of package pkg goes from C-state from to to (-1: active): update the
 * package's counters. */
static void hw_pkg_count_core(struct hw_state *hw, const struct hw_core *core, int from, int to)
{
    const struct hw_machine *m = hw->m;
    int *active = &hw->pkg_type_active[core->package * m->ntypes + core->type];
    *active += (to < 0) - (from < 0);
    int *ready = &hw->pkg_cores_ready[core->package * HW_MAX_PKGSTATES];
    for (int p = 0; p < m->npkgstates; p++)
        ready[p] += hw_core_allows_pkgstate(hw, core->type, to, p) -
                    hw_core_allows_pkgstate(hw, core->type, from, p);
}

/* Widest frequency range (MHz) tabulated per core type: 64 K entries,
 * 512 KiB; real parts span a few thousand MHz. */
#define HW_ACTIVE_TABLE_MAX_MHZ 65536u

/* Tabulate hw_core_active_power_mw over each core type's range: the same
 * function at every MHz, so a lookup returns exactly what a call would. */
static void hw_tabulate_active_power(struct hw_state *hw)
{
    const struct hw_machine *m = hw->m;
    hw->active_mw_by_mhz = xcalloc((size_t)m->ntypes, sizeof *hw->active_mw_by_mhz);
    for (int ty = 0; ty < m->ntypes; ty++) {
        const struct hw_core_type *t = &m->types[ty];
        if (t->max_mhz < t->min_mhz || t->max_mhz - t->min_mhz >= HW_ACTIVE_TABLE_MAX_MHZ)
            continue;
        size_t n = (size_t)(t->max_mhz - t->min_mhz) + 1;
        double *tab = xcalloc(n, sizeof *tab);
        for (size_t i = 0; i < n; i++)
            tab[i] = hw_core_active_power_mw(t, t->min_mhz + (uint32_t)i);
        hw->active_mw_by_mhz[ty] = tab;
    }
}

/* hw_core_active_power_mw(type ty, mhz), from the table when there is one
 * (a frequency outside the range clamps to it, as the function does). */
static double hw_active_power_lookup(const struct hw_state *hw, int ty, uint32_t mhz)
{
    const struct hw_core_type *t = &hw->m->types[ty];
    const double *tab = hw->active_mw_by_mhz[ty];
    if (!tab)
        return hw_core_active_power_mw(t, mhz);
    uint32_t f = mhz < t->min_mhz ? t->min_mhz : mhz > t->max_mhz ? t->max_mhz : mhz;
    return tab[f - t->min_mhz];
}

void hw_state_init(struct hw_state *hw, const struct hw_machine *m)
{
    memset(hw, 0, sizeof *hw);
    hw->m = m;
    hw->thr = xcalloc((size_t)m->ncpus, sizeof *hw->thr);
    hw->core = xcalloc((size_t)m->ncores, sizeof *hw->core);
    hw->pkg = xcalloc((size_t)m->packages, sizeof *hw->pkg);
    hw->core_mhz = xcalloc((size_t)m->ncores, sizeof *hw->core_mhz);
    hw->smt_corun_factor = hw_machine_calib(m, "smt_corun_factor");
    hw->smt_poll_factor = hw_machine_calib(m, "smt_poll_factor");
    hw->ibrs_sibling_factor = hw_machine_calib(m, "ibrs_sibling_factor");
    hw->poll_power_ratio = hw_machine_calib(m, "poll_power_ratio");
    hw->exit_ramp_ratio = hw_machine_calib(m, "exit_ramp_ratio");
    hw_resolve_pkgstates(hw);
    hw_tabulate_active_power(hw);
    for (int t = 0; t < m->ntypes; t++)
        for (int k = 0; k < m->types[t].ncstates; k++)
            hw->cluster_states |= m->types[t].cstates[k].cluster_domain;
    for (int c = 0; c < m->ncores; c++)
        hw->core_mhz[c] = m->types[m->cores[c].type].base_mhz;
    /* Every thread starts awake and polling-free in C0 ("running" nothing);
     * the idle loop puts each into its idle state at time 0. */
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        hw->thr[cpu].mode = HW_THREAD_RUN;
    for (int c = 0; c < m->ncores; c++) {
        const struct hw_core_type *t = &m->types[m->cores[c].type];
        hw->core[c].cstate = -1;
        hw->core[c].exit_from = -1;
        hw->core[c].nawake = hw->core[c].nrun = m->cores[c].nthreads;
        hw->core[c].power_mw = hw_core_active_power_mw(t, hw->core_mhz[c]);
        hw->core_power_mw += hw->core[c].power_mw;
    }
    for (int p = 0; p < m->packages; p++) {
        hw->pkg[p].pkgstate = -1;
        hw->pkg[p].exit_from = -1;
        hw->pkg[p].depth_limit = m->npkgstates - 1;
        hw->pkg[p].power_mw = m->pkg_active_power_mw;
        hw->pkg[p].total_mw = m->pkg_active_power_mw;
    }
    for (int c = 0; c < m->ncores; c++) {
        hw->pkg[m->cores[c].package].total_mw += hw->core[c].power_mw;
        hw->pkg[m->cores[c].package].ncores_c0++;
    }
    hw->power_mw = hw->core_power_mw + m->packages * m->pkg_active_power_mw;
}

void hw_state_destroy(struct hw_state *hw)
{
    free(hw->thr);
    free(hw->core);
    free(hw->pkg);
    free(hw->core_mhz);
    free(hw->pkg_core_cstate);
    free(hw->pkg_type_active);
    free(hw->pkg_ncores);
    free(hw->pkg_cores_ready);
    for (int t = 0; hw->active_mw_by_mhz && t < hw->m->ntypes; t++)
        free(hw->active_mw_by_mhz[t]);
    free(hw->active_mw_by_mhz);
    memset(hw, 0, sizeof *hw);
}

static void hw_energy_advance(struct hw_state *hw, sim_time_t now_ns)
{
    double dt = (double)(now_ns - hw->power_since_ns);
    hw->energy_mw_ns += hw->power_mw * dt;
    hw->core_energy_mw_ns += hw->core_power_mw * dt;
    hw->power_since_ns = now_ns;
}

/* Add the time spent in the current mode up to now_ns to its accumulator;
 * C0 time also integrates the core's frequency (for Avg_MHz/Bzy_MHz). */
static void hw_thread_account(struct hw_thread *t, uint32_t core_mhz, sim_time_t now_ns)
{
    sim_time_t dt = now_ns - t->since_ns;
    switch (t->mode) {
    case HW_THREAD_RUN:
        t->run_ns += dt;
        t->c0_mhz_ns += (double)dt * core_mhz;
        break;
    case HW_THREAD_POLL:
        t->poll_ns += dt;
        t->c0_mhz_ns += (double)dt * core_mhz;
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

/* The core's C-state: the shallowest requested by its threads, -1 if any
 * thread is awake (the core's count says so without reading them). */
static int hw_core_cstate_of(const struct hw_state *hw, const struct hw_core *core,
                             const struct hw_core_state *cs)
{
    if (cs->nawake > 0)
        return -1;
    int shallowest = HW_MAX_CSTATES;
    for (int i = 0; i < core->nthreads; i++) {
        const struct hw_thread *th = &hw->thr[core->cpus[i]];
        if (th->cstate < shallowest)
            shallowest = th->cstate;
    }
    return shallowest;
}

/* Whether state st (-1: active) of type t powers its cluster down. */
static bool hw_cstate_is_cluster(const struct hw_core_type *t, int st)
{
    return st >= 0 && t->cstates[st].cluster_domain;
}

/* The cluster (l2_groups group, by its first CPU) core belongs to. */
static int hw_core_cluster(const struct hw_machine *m, const struct hw_core *core)
{
    return m->l2_group[core->cpus[0]];
}

/* Whether every core of the cluster votes for a cluster state (cpu.h). */
static bool hw_cluster_all_vote(const struct hw_state *hw, int cluster)
{
    const struct hw_machine *m = hw->m;
    for (int c = 0; c < m->ncores; c++)
        if (hw_core_cluster(m, &m->cores[c]) == cluster && !hw->core[c].cluster_vote)
            return false;
    return true;
}

/* The state a core that asks for st is in: st, unless st is a cluster state
 * that not every core of the cluster asks for; then the deepest core state
 * below it (platform coordination, cpu.h). */
static int hw_core_coordinated(const struct hw_state *hw, const struct hw_core *core, int st)
{
    const struct hw_core_type *t = &hw->m->types[core->type];
    if (!hw_cstate_is_cluster(t, st) || hw_cluster_all_vote(hw, hw_core_cluster(hw->m, core)))
        return st;
    while (st > 0 && t->cstates[st].cluster_domain)
        st--;
    return st;
}

/* The package's state: the deepest package state whose core C-state every
 * core has reached and the platform allows (depth_limit), -1 if none. With
 * nested states that is the deepest one all of the package's cores allow,
 * from the counters; otherwise a scan. */
static int hw_pkg_state_of(const struct hw_state *hw, int pkg)
{
    const struct hw_machine *m = hw->m;
    int deepest = hw->pkg[pkg].depth_limit;
    if (hw->pkgstates_nested) {
        const int *ready = &hw->pkg_cores_ready[pkg * HW_MAX_PKGSTATES];
        int st = deepest;
        while (st >= 0 && ready[st] < hw->pkg_ncores[pkg])
            st--;
        return st;
    }
    int best = deepest;
    for (int c = 0; c < m->ncores && best >= 0; c++) {
        if (m->cores[c].package != pkg)
            continue;
        int cs = hw->core[c].cstate;
        const int *need = &hw->pkg_core_cstate[m->cores[c].type * HW_MAX_PKGSTATES];
        while (best >= 0 && (cs < 0 || need[best] < 0 || cs < need[best]))
            best--;
    }
    return best;
}

static void hw_pkg_energy_advance(struct hw_pkg_state *ps, sim_time_t now_ns)
{
    ps->energy_mw_ns += ps->total_mw * (double)(now_ns - ps->energy_since_ns);
    ps->energy_since_ns = now_ns;
}

double hw_pkg_energy_mw_ns(const struct hw_state *hw, int package, sim_time_t now_ns)
{
    const struct hw_pkg_state *ps = &hw->pkg[package];
    return ps->energy_mw_ns + ps->total_mw * (double)(now_ns - ps->energy_since_ns);
}

/* Set the power in *slot (a core's or package pkg's uncore) to p at now. */
static void hw_power_change(struct hw_state *hw, int pkg, double *slot, double p, bool core,
                            sim_time_t now)
{
    if (p == *slot)
        return;
    hw_energy_advance(hw, now);
    hw_pkg_energy_advance(&hw->pkg[pkg], now);
    hw->pkg[pkg].total_mw += p - *slot;
    hw->power_mw += p - *slot;
    if (core)
        hw->core_power_mw += p - *slot;
    *slot = p;
}

/* The power of a core or package leaving a state that draws left_mw, on its
 * way to one that draws to_mw. A package exit restores voltage, PLLs and
 * memory out of self-refresh before the cores get clocks; a core exit
 * powers the core back up with its clocks gated. Neither runs code, so
 * neither draws its active power for the whole exit latency: the model
 * charges the state being left plus the ramp, exit_ramp_ratio of the way to
 * the destination (0.5: power rising linearly over the exit). That shape is
 * an estimate: no source gives the power profile of an exit. */
static double hw_exit_power_mw(const struct hw_state *hw, double left_mw, double to_mw)
{
    return left_mw + hw->exit_ramp_ratio * (to_mw - left_mw);
}

/* Uncore power of package ps: its package state's; while it leaves one
 * (exit_from, until a core runs or polls) the exit's; else PC0's. */
static double hw_pkg_power_mw(const struct hw_state *hw, const struct hw_pkg_state *ps)
{
    const struct hw_machine *m = hw->m;
    if (ps->pkgstate >= 0)
        return m->pkgstates[ps->pkgstate].pkg_power_mw;
    if (ps->exit_from >= 0 && ps->ncores_c0 == 0)
        return hw_exit_power_mw(hw, m->pkgstates[ps->exit_from].pkg_power_mw,
                                m->pkg_active_power_mw);
    return m->pkg_active_power_mw;
}

static void hw_pkg_update(struct hw_state *hw, int pkg, sim_time_t now_ns)
{
    struct hw_pkg_state *ps = &hw->pkg[pkg];
    int st = hw_pkg_state_of(hw, pkg);
    if (st != ps->pkgstate) {
        if (ps->pkgstate >= 0)
            ps->pkgstate_ns[ps->pkgstate] += now_ns - ps->since_ns;
        /* Woken out of a package state: the exit starts; a limit moving
         * the package to a shallower state is no exit. */
        ps->exit_from = st < 0 ? ps->pkgstate : -1;
        ps->pkgstate = st;
        ps->since_ns = now_ns;
    }
    if (ps->ncores_c0 > 0)
        ps->exit_from = -1;
    hw_power_change(hw, pkg, &ps->power_mw, hw_pkg_power_mw(hw, ps), false, now_ns);
}

void hw_pkg_set_depth_limit(struct hw_state *hw, int pkg, int deepest, sim_time_t now_ns)
{
    int last = hw->m->npkgstates - 1;
    hw->pkg[pkg].depth_limit = deepest < last ? deepest : last;
    hw_pkg_update(hw, pkg, now_ns);
}

/* Power of an awake core (some thread not idle) at its current frequency:
 * active if a thread runs; else, if a thread spins, the PAUSE-loop share of
 * active (poll_power_ratio: the SDM says PAUSE "greatly reduces" a spin
 * loop's power, not by how much); else every awake thread is still in its
 * hardware exit, powering up with clocks gated: the state it left plus the
 * ramp towards its shallowest C-state (C1, clock-gated at operating
 * voltage), hw_exit_power_mw. Charging full active power for an exit made
 * deep states look dear (issue 10), and charging C1's for the whole exit
 * still overcharged the deep ones (issue 24). */
static double hw_core_awake_power_mw(const struct hw_state *hw, const struct hw_core_state *cs,
                                     const struct hw_core_type *t)
{
    if (cs->nrun > 0)
        return cs->active_mw;
    if (cs->npoll > 0)
        return cs->active_mw * hw->poll_power_ratio;
    double to_mw = t->cstates[0].core_power_mw;
    if (cs->exit_from < 0)
        return to_mw;
    return hw_exit_power_mw(hw, t->cstates[cs->exit_from].core_power_mw, to_mw);
}

static void hw_core_update(struct hw_state *hw, int c, sim_time_t now_ns);

/* Core c's vote changed: the other cores of its cluster may go into the
 * cluster state, or out of it. */
static void hw_cluster_revote(struct hw_state *hw, int c, sim_time_t now_ns)
{
    const struct hw_machine *m = hw->m;
    int cluster = hw_core_cluster(m, &m->cores[c]);
    for (int k = 0; k < m->ncores; k++)
        if (k != c && hw_core_cluster(m, &m->cores[k]) == cluster)
            hw_core_update(hw, k, now_ns);
}

static void hw_core_update(struct hw_state *hw, int c, sim_time_t now_ns)
{
    const struct hw_core *core = &hw->m->cores[c];
    struct hw_core_state *cs = &hw->core[c];
    const struct hw_core_type *t = &hw->m->types[core->type];
    int st = hw_core_cstate_of(hw, core, cs);
    if (hw->cluster_states) {
        bool vote = hw_cstate_is_cluster(t, st);
        bool revote = vote != cs->cluster_vote;
        cs->cluster_vote = vote;
        st = hw_core_coordinated(hw, core, st);
        if (revote)
            hw_cluster_revote(hw, c, now_ns);
    }
    if (st < 0 && cs->cstate >= 0)
        cs->exit_from = cs->cstate;
    /* Active power depends only on the frequency: cache it per core. */
    if (st < 0 && cs->active_mhz != hw->core_mhz[c]) {
        cs->active_mhz = hw->core_mhz[c];
        cs->active_mw = hw_active_power_lookup(hw, core->type, cs->active_mhz);
    }
    double p = st < 0 ? hw_core_awake_power_mw(hw, cs, t)
                      : t->cstates[st].core_power_mw;
    hw_power_change(hw, core->package, &cs->power_mw, p, true, now_ns);
    if (st == cs->cstate)
        return;
    if (cs->cstate >= 0)
        cs->cstate_ns[cs->cstate] += now_ns - cs->since_ns;
    hw_pkg_count_core(hw, core, cs->cstate, st);
    cs->cstate = st;
    cs->since_ns = now_ns;
    hw_pkg_update(hw, core->package, now_ns);
}

void hw_thread_set_mode(struct hw_state *hw, int cpu, enum hw_thread_mode mode, int cstate,
                        sim_time_t now_ns)
{
    struct hw_thread *t = &hw->thr[cpu];
    int c = hw->m->cpus[cpu].core;
    struct hw_core_state *cs = &hw->core[c];
    hw_thread_account(t, hw->core_mhz[c], now_ns);
    bool was_c0 = cs->nrun + cs->npoll > 0;
    cs->nawake += (mode != HW_THREAD_IDLE) - (t->mode != HW_THREAD_IDLE);
    cs->nrun += (mode == HW_THREAD_RUN) - (t->mode == HW_THREAD_RUN);
    cs->npoll += (mode == HW_THREAD_POLL) - (t->mode == HW_THREAD_POLL);
    t->mode = mode;
    if (mode == HW_THREAD_IDLE || mode == HW_THREAD_WAKE)
        t->cstate = cstate;
    bool is_c0 = cs->nrun + cs->npoll > 0;
    int pkg = hw->m->cores[c].package;
    hw->pkg[pkg].ncores_c0 += is_c0 - was_c0;
    hw_core_update(hw, c, now_ns);
    /* A core that starts running ends its package's exit. */
    if (is_c0 != was_c0)
        hw_pkg_update(hw, pkg, now_ns);
}

void hw_core_set_mhz(struct hw_state *hw, int c, uint32_t mhz, sim_time_t now_ns)
{
    const struct hw_core *core = &hw->m->cores[c];
    if (hw->core_mhz[c] == mhz)
        return;
    for (int i = 0; i < core->nthreads; i++)
        hw_thread_account(&hw->thr[core->cpus[i]], hw->core_mhz[c], now_ns);
    hw->core_mhz[c] = mhz;
    hw_core_update(hw, c, now_ns);
}

/* Turbo ratio limits count active cores of the core's own type: on hybrid
 * parts the P-cores' bins (MSR_TURBO_RATIO_LIMIT) and the E-cores' bins
 * (MSR_SECONDARY_TURBO_RATIO_LIMIT, see data/hosts/adl0) are separate. */
uint32_t hw_core_turbo_limit_mhz(const struct hw_state *hw, int c)
{
    const struct hw_core *core = &hw->m->cores[c];
    const struct hw_core_type *t = &hw->m->types[core->type];
    if (t->nturbo == 0)
        return t->max_mhz;
    int active = hw_pkg_active_cores(hw, core->package, core->type);
    int bin = active < 1 ? 0 : active > t->nturbo ? t->nturbo - 1 : active - 1;
    return t->turbo_mhz[bin];
}

void hw_thread_set_ibrs(struct hw_state *hw, int cpu, bool ibrs_set)
{
    hw->thr[cpu].ibrs_set = ibrs_set;
}

/* The state idle thread cpu is really in: its core's when cluster states
 * coordinate it (and the core is idle), else the one it asked for. */
static int hw_thread_coordinated_cstate(const struct hw_state *hw, int cpu)
{
    int core_st = hw->core[hw->m->cpus[cpu].core].cstate;
    return hw->cluster_states && core_st >= 0 ? core_st : hw->thr[cpu].cstate;
}

sim_time_t hw_thread_exit_latency_ns(const struct hw_state *hw, int cpu)
{
    const struct hw_thread *t = &hw->thr[cpu];
    if (t->mode != HW_THREAD_IDLE)
        return 0;
    const struct hw_machine *m = hw->m;
    int st = hw_thread_coordinated_cstate(hw, cpu);
    sim_time_t lat = m->types[m->cpus[cpu].type].cstates[st].exit_latency_ns;
    int ps = hw->pkg[m->cpus[cpu].package].pkgstate;
    if (ps >= 0)
        lat += m->pkgstates[ps].exit_latency_ns;
    return lat;
}

sim_time_t hw_thread_refill_ns(const struct hw_state *hw, int cpu)
{
    const struct hw_thread *t = &hw->thr[cpu];
    int st = t->mode == HW_THREAD_IDLE ? hw_thread_coordinated_cstate(hw, cpu) : t->cstate;
    const struct hw_cstate *cs = &hw->m->types[hw->m->cpus[cpu].type].cstates[st];
    return cs->flushes_caches ? cs->refill_ns : 0;
}

int hw_cstate_by_hint(const struct hw_state *hw, int cpu, uint32_t mwait_hint)
{
    const struct hw_core_type *t = &hw->m->types[hw->m->cpus[cpu].type];
    for (int i = 0; i < t->ncstates; i++)
        if (t->cstates[i].mwait_hint == mwait_hint)
            return i;
    return -1;
}

void hw_measure_reset(struct hw_state *hw, sim_time_t now_ns)
{
    const struct hw_machine *m = hw->m;
    hw_energy_advance(hw, now_ns);
    hw->energy_mw_ns = hw->core_energy_mw_ns = 0;
    hw->measure_start_ns = now_ns;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        struct hw_thread *t = &hw->thr[cpu];
        t->since_ns = now_ns;
        t->run_ns = t->poll_ns = t->wake_ns = 0;
        t->c0_mhz_ns = 0;
        memset(t->cstate_ns, 0, sizeof t->cstate_ns);
    }
    for (int c = 0; c < m->ncores; c++) {
        hw->core[c].since_ns = now_ns;
        memset(hw->core[c].cstate_ns, 0, sizeof hw->core[c].cstate_ns);
    }
    for (int p = 0; p < m->packages; p++) {
        hw->pkg[p].since_ns = now_ns;
        memset(hw->pkg[p].pkgstate_ns, 0, sizeof hw->pkg[p].pkgstate_ns);
    }
}

/* Close every open interval at now_ns so the accumulators are complete. */
static void hw_account_all(struct hw_state *hw, sim_time_t now_ns)
{
    const struct hw_machine *m = hw->m;
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        hw_thread_account(&hw->thr[cpu], hw->core_mhz[m->cpus[cpu].core], now_ns);
    for (int c = 0; c < m->ncores; c++) {
        struct hw_core_state *cs = &hw->core[c];
        if (cs->cstate >= 0)
            cs->cstate_ns[cs->cstate] += now_ns - cs->since_ns;
        cs->since_ns = now_ns;
    }
    for (int p = 0; p < m->packages; p++) {
        struct hw_pkg_state *ps = &hw->pkg[p];
        if (ps->pkgstate >= 0)
            ps->pkgstate_ns[ps->pkgstate] += now_ns - ps->since_ns;
        ps->since_ns = now_ns;
    }
    hw_energy_advance(hw, now_ns);
}

/* Sum of accumulators over things whose state name is `name`, across types:
 * the cores, or the threads of scope sc. */
static double hw_sum_by_name(const struct hw_state *hw, const char *name, bool per_core,
                             const struct rpt_cpu_scope *sc)
{
    const struct hw_machine *m = hw->m;
    double ns = 0;
    int n = per_core ? m->ncores : m->ncpus;
    for (int i = 0; i < n; i++) {
        if (!per_core && !rpt_scope_has(sc, i))
            continue;
        int type = per_core ? m->cores[i].type : m->cpus[i].type;
        int k = hw_cstate_index(&m->types[type], name);
        if (k >= 0)
            ns += (double)(per_core ? hw->core[i].cstate_ns[k] : hw->thr[i].cstate_ns[k]);
    }
    return ns;
}

/* Per hardware C-state: residency.<name> of threads (share of CPU time) and
 * core_residency.<name> (turbostat CPU%cN: share of core time); per package
 * state pkg_residency.<name> (Pkg%pcN). Names shared by several core types
 * are reported once. */
static void hw_collect_residency(const struct hw_state *hw, double window_ns,
                                 struct rpt_metric_set *out)
{
    const struct hw_machine *m = hw->m;
    char key[RPT_NAME_MAX];
    for (int ty = 0; ty < m->ntypes; ty++) {
        for (int s = 0; s < m->types[ty].ncstates; s++) {
            const char *name = m->types[ty].cstates[s].name;
            snprintf(key, sizeof key, "core_residency.%s", name);
            if (rpt_set_get(out, key))
                continue;
            rpt_set_put(out, key, "%", RPT_NEUTRAL,
                        100.0 * hw_sum_by_name(hw, name, true, &rpt_scope_host) /
                            (window_ns * m->ncores));
        }
    }
    for (int p = 0; p < m->npkgstates; p++) {
        double ns = 0;
        for (int k = 0; k < m->packages; k++)
            ns += (double)hw->pkg[k].pkgstate_ns[p];
        snprintf(key, sizeof key, "pkg_residency.%s", m->pkgstates[p].name);
        rpt_set_put(out, key, "%", RPT_NEUTRAL, 100.0 * ns / (window_ns * m->packages));
    }
}

/* A thread's state name with the longest prefix must fit a scoped metric name. */
_Static_assert(sizeof "residency." - 1 + HW_NAME_MAX <= RPT_SCOPED_NAME_MAX,
               "residency.<hw state> does not fit with the cpus. prefix");

void hw_collect_thread_residency(const struct hw_state *hw, sim_time_t now_ns,
                                 const struct rpt_cpu_scope *sc, struct rpt_metric_set *out)
{
    const struct hw_machine *m = hw->m;
    double cpu_time_ns = (double)(now_ns - hw->measure_start_ns) * rpt_scope_ncpus(sc, m->ncpus);
    char key[RPT_NAME_MAX];
    for (int ty = 0; ty < m->ntypes; ty++) {
        for (int s = 0; s < m->types[ty].ncstates; s++) {
            const char *name = m->types[ty].cstates[s].name;
            snprintf(key, sizeof key, "residency.%s", name);
            if (!rpt_scope_get(out, sc, key))
                rpt_scope_put(out, sc, key, "%", RPT_NEUTRAL,
                              100.0 * hw_sum_by_name(hw, name, false, sc) / cpu_time_ns);
        }
    }
}

/* turbostat's per-thread columns over the threads of sc: Busy% (C0 time,
 * polling included), the polling share, Avg_MHz (cycles in C0 over all
 * elapsed time) and Bzy_MHz (over C0 time). */
static void hw_collect_threads(const struct hw_state *hw, double window_ns,
                               const struct rpt_cpu_scope *sc, struct rpt_metric_set *out)
{
    const struct hw_machine *m = hw->m;
    double cpu_time_ns = window_ns * rpt_scope_ncpus(sc, m->ncpus);
    double run = 0, poll = 0, mhz_ns = 0;
    int first = -1;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        if (!rpt_scope_has(sc, cpu))
            continue;
        const struct hw_thread *t = &hw->thr[cpu];
        run += (double)t->run_ns;
        poll += (double)t->poll_ns;
        mhz_ns += t->c0_mhz_ns;
        first = first < 0 ? cpu : first;
    }
    rpt_scope_put(out, sc, "busy_pct", "%", RPT_NEUTRAL, 100.0 * (run + poll) / cpu_time_ns);
    rpt_scope_put(out, sc, "poll_pct", "%", RPT_NEUTRAL, 100.0 * poll / cpu_time_ns);
    rpt_scope_put(out, sc, "avg_mhz", "MHz", RPT_NEUTRAL, mhz_ns / cpu_time_ns);
    rpt_scope_put(out, sc, "bzy_mhz", "MHz", RPT_NEUTRAL,
                  run + poll > 0 ? mhz_ns / (run + poll) : hw->core_mhz[m->cpus[first].core]);
}

void hw_collect_metrics(struct hw_state *hw, sim_time_t now_ns, struct rpt_metric_set *out)
{
    hw_account_all(hw, now_ns);
    double window_ns = (double)(now_ns - hw->measure_start_ns);
    double to_w = window_ns > 0 ? 1.0 / window_ns / 1000.0 : 0;
    rpt_set_put(out, "pkg_watts", "W", RPT_LOWER_BETTER, hw->energy_mw_ns * to_w);
    rpt_set_put(out, "core_watts", "W", RPT_LOWER_BETTER, hw->core_energy_mw_ns * to_w);
    const struct rpt_cpu_scope host = { .cpus = hw->online, .prefix = "" };
    hw_collect_threads(hw, window_ns, &host, out);
    hw_collect_residency(hw, window_ns, out);
}

void hw_collect_cpu_metrics(struct hw_state *hw, sim_time_t now_ns,
                            const struct rpt_cpu_scope *sc, struct rpt_metric_set *out)
{
    hw_account_all(hw, now_ns);
    hw_collect_threads(hw, (double)(now_ns - hw->measure_start_ns), sc, out);
}
