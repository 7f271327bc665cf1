/* world_check: invariants checked after every event, see world_check.h. The
 * checks recompute each quantity their own way from the raw state (they do
 * not call the functions they check). */
#include "world_check.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/xalloc.h"
#include "world.h"

#ifdef PMLAB_INVARIANTS

struct world_check {
    sim_time_t last_now_ns;
    double *pkg_energy;          /* [packages] last energy counter seen */
    bool *open_at_reset;         /* [ncpus] in a cpuidle state at the last reset */
};

static void check_fail(const struct world *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void check_fail(const struct world *w, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "pmlab: invariant violated at %lld ns (event %llu): ", (long long)w->q.now_ns,
            (unsigned long long)w->nevents);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void world_check_init(struct world *w)
{
    struct world_check *c = xcalloc(1, sizeof *c);
    c->pkg_energy = xcalloc((size_t)w->machine->packages, sizeof *c->pkg_energy);
    c->open_at_reset = xcalloc((size_t)w->machine->ncpus, sizeof *c->open_at_reset);
    w->check = c;
}

void world_check_destroy(struct world *w)
{
    struct world_check *c = w->check;
    if (!c)
        return;
    free(c->pkg_energy);
    free(c->open_at_reset);
    free(c);
    w->check = NULL;
}

/* busy + poll + idle + waking (+ the current mode so far) = window length. */
static void check_thread_time(const struct world *w, int cpu)
{
    const struct hw_state *hw = &w->hw;
    const struct hw_thread *t = &hw->thr[cpu];
    const struct hw_core_type *type = &w->machine->types[w->machine->cpus[cpu].type];
    sim_time_t sum = t->run_ns + t->poll_ns + t->wake_ns + (w->q.now_ns - t->since_ns);
    for (int s = 0; s < type->ncstates; s++)
        sum += t->cstate_ns[s];
    sim_time_t elapsed = w->q.now_ns - hw->measure_start_ns;
    if (sum != elapsed || t->since_ns > w->q.now_ns)
        check_fail(w, "cpu %d: busy %lld + poll %lld + idle + waking %lld ns (+ current) = %lld, "
                   "but %lld ns have elapsed", cpu, (long long)t->run_ns, (long long)t->poll_ns,
                   (long long)t->wake_ns, (long long)sum, (long long)elapsed);
}

/* The shallowest C-state core's threads ask for, -1 if one is awake. */
static int check_core_asks(const struct world *w, const struct hw_core *core)
{
    int want = HW_MAX_CSTATES;
    for (int i = 0; i < core->nthreads; i++) {
        const struct hw_thread *t = &w->hw.thr[core->cpus[i]];
        int s = t->mode == HW_THREAD_IDLE ? t->cstate : -1;
        want = s < want ? s : want;
    }
    return want;
}

/* Whether core asks for a cluster state (domain = cluster). */
static bool check_core_votes(const struct world *w, const struct hw_core *core)
{
    int s = check_core_asks(w, core);
    return s >= 0 && w->machine->types[core->type].cstates[s].cluster_domain;
}

/* The core's threads by mode, which hw_thread_set_mode keeps as they change. */
static void check_core_counts(const struct world *w, int c)
{
    const struct hw_core *core = &w->machine->cores[c];
    const struct hw_core_state *cs = &w->hw.core[c];
    int awake = 0, run = 0, poll = 0;
    for (int i = 0; i < core->nthreads; i++) {
        enum hw_thread_mode md = w->hw.thr[core->cpus[i]].mode;
        awake += md != HW_THREAD_IDLE;
        run += md == HW_THREAD_RUN;
        poll += md == HW_THREAD_POLL;
    }
    if (cs->nawake != awake || cs->nrun != run || cs->npoll != poll)
        check_fail(w, "core %d counts %d awake, %d running, %d polling threads; there are "
                   "%d, %d, %d", c, cs->nawake, cs->nrun, cs->npoll, awake, run, poll);
}

/* A lapsed HWP evaluation chain (intel_pstate.c, "lapsed chains") is exact
 * only while its core runs a task and, if it relies on its package's run
 * count, while that count (a lower bound) reaches the cores from which the
 * turbo limit is the last bin. Recounted here from the threads' modes. */
static void check_hwp_lapse(const struct world *w, int c)
{
    const struct hw_machine *m = w->machine;
    const struct cpufreq_hwp_core *h = &w->cpufreq.hwp_core[c];
    if (!w->cpufreq.hwp || !h->lapsed)
        return;
    if (w->hw.core[c].nrun == 0)
        check_fail(w, "core %d's HWP chain lapsed while no thread of it runs a task", c);
    if (!h->lapse_on_count)
        return;
    const struct hw_core *core = &m->cores[c];
    const struct hw_core_type *t = &m->types[core->type];
    int running = 0;
    for (int k = 0; k < m->ncores; k++)
        running += m->cores[k].package == core->package && m->cores[k].type == core->type &&
                   w->hw.core[k].nrun > 0;
    int counted = w->cpufreq.hwp_running_cores[core->package * m->ntypes + core->type];
    int steady = t->nturbo;  /* active cores from which the bins stop falling */
    while (steady > 1 && t->turbo_mhz[steady - 2] == t->turbo_mhz[t->nturbo - 1])
        steady--;
    if (counted > running || counted < steady)
        check_fail(w, "core %d's HWP chain lapsed on a run count of %d (recount %d, needs %d)",
                   c, counted, running, steady);
}

/* A core: the shallowest C-state of its threads, active if one is awake; a
 * cluster state only when every core of its cluster asks for one, else the
 * deepest core state below it (hw/cpu.h). */
static void check_core_state(const struct world *w, int c)
{
    const struct hw_machine *m = w->machine;
    const struct hw_core *core = &m->cores[c];
    int want = check_core_asks(w, core);
    if (check_core_votes(w, core)) {
        bool all = true;
        for (int k = 0; k < m->ncores; k++)
            if (m->l2_group[m->cores[k].cpus[0]] == m->l2_group[core->cpus[0]])
                all &= check_core_votes(w, &m->cores[k]);
        while (!all && want > 0 && m->types[core->type].cstates[want].cluster_domain)
            want--;
    }
    if (w->hw.core[c].cstate != want)
        check_fail(w, "core %d is in C-state %d, its threads allow %d", c, w->hw.core[c].cstate,
                   want);
    check_core_counts(w, c);
    check_hwp_lapse(w, c);
}

/* A package: the deepest package state every core of it and the platform's
 * depth limit allow, -1 if none. */
static void check_pkg_state(const struct world *w, int pkg)
{
    const struct hw_machine *m = w->machine;
    int want = -1;
    for (int p = w->hw.pkg[pkg].depth_limit; p >= 0 && want < 0; p--) {
        bool all = true;
        for (int c = 0; c < m->ncores && all; c++) {
            if (m->cores[c].package != pkg)
                continue;
            int need = w->hw.pkg_core_cstate[m->cores[c].type * HW_MAX_PKGSTATES + p];
            int cs = w->hw.core[c].cstate;
            all = need >= 0 && cs >= need;
        }
        if (all)
            want = p;
    }
    if (w->hw.pkg[pkg].pkgstate != want)
        check_fail(w, "package %d is in package state %d, its cores allow %d", pkg,
                   w->hw.pkg[pkg].pkgstate, want);
    /* The active-core counters the turbo bins read (kept incrementally). */
    for (int t = 0; t < m->ntypes; t++) {
        int active = 0;
        for (int c = 0; c < m->ncores; c++)
            active += m->cores[c].package == pkg && m->cores[c].type == t &&
                      w->hw.core[c].cstate < 0;
        if (hw_pkg_active_cores(&w->hw, pkg, t) != active)
            check_fail(w, "package %d counts %d active cores of type %d, there are %d", pkg,
                       hw_pkg_active_cores(&w->hw, pkg, t), t, active);
    }
}

static void check_energy(struct world *w)
{
    struct world_check *c = w->check;
    if (w->hw.power_mw < 0 || w->hw.core_power_mw < 0)
        check_fail(w, "negative power: %g mW (cores %g mW)", w->hw.power_mw, w->hw.core_power_mw);
    for (int p = 0; p < w->machine->packages; p++) {
        double e = hw_pkg_energy_mw_ns(&w->hw, p, w->q.now_ns);
        if (e < c->pkg_energy[p])
            check_fail(w, "package %d energy went from %g to %g mW ns", p, c->pkg_energy[p], e);
        c->pkg_energy[p] = e;
    }
}

/* cpuidle usage grew by the entries the idle loop counted and closed. */
static void check_idle_counters(struct world *w, int cpu)
{
    struct world_check *c = w->check;
    const struct idle_cpu *ic = &w->idle.cpu[cpu];
    const struct cpuidle_device *dev = &w->idle.dev[cpu];
    bool open = ic->in_idle && ic->state >= 0;
    uint64_t grown = 0;
    for (int i = 0; i < w->idle.drv.state_count; i++) {
        const struct cpuidle_state_usage *u = &dev->states_usage[i];
        if (u->above > u->usage || u->below > u->usage)
            check_fail(w, "cpu %d state %d: above %llu or below %llu exceeds usage %llu", cpu, i,
                       (unsigned long long)u->above, (unsigned long long)u->below,
                       (unsigned long long)u->usage);
        grown += u->usage - ic->base[i].usage;
    }
    uint64_t closed = ic->nr_entries + c->open_at_reset[cpu] - open;
    if (grown != closed)
        check_fail(w, "cpu %d: cpuidle usage grew by %llu, the idle loop entered %llu times "
                   "(%s now)", cpu, (unsigned long long)grown,
                   (unsigned long long)ic->nr_entries, open ? "in a state" : "not idle");
}

void world_check_measure_reset(struct world *w)
{
    /* Entries open now were counted before the window and close inside it. */
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++)
        w->check->open_at_reset[cpu] = w->idle.cpu[cpu].in_idle && w->idle.cpu[cpu].state >= 0;
}

/* rq->nr_running, kept apart from the runqueue for the idle checks, counts
 * its running task and its queue. */
static void check_nr_running(const struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    int want = c->nr_queued + (c->curr != NULL) - (c->rt_throttled ? c->nr_rt_queued : 0);
    if (w->sched.nr_running[cpu] != want)
        check_fail(w, "cpu %d: nr_running %d, but %d queued and %s running", cpu,
                   w->sched.nr_running[cpu], c->nr_queued, c->curr ? "a task" : "none");
}

/* Every CPU, core and package. */
static void check_all(struct world *w)
{
    const struct hw_machine *m = w->machine;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        check_thread_time(w, cpu);
        check_nr_running(w, cpu);
        if (w->idle.dev)
            check_idle_counters(w, cpu);
    }
    for (int core = 0; core < m->ncores; core++)
        check_core_state(w, core);
    for (int p = 0; p < m->packages; p++)
        check_pkg_state(w, p);
}

/* What the event changed: a thread's accumulators, mode, core and package
 * state change only together with its since_ns, which then equals now; an
 * untouched CPU's sums stay right as time advances (the current mode's share
 * grows with it). */
static void check_touched(struct world *w)
{
    const struct hw_machine *m = w->machine;
    unsigned pkgs = 0;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        if (w->hw.thr[cpu].since_ns != w->q.now_ns)
            continue;
        check_thread_time(w, cpu);
        if (w->idle.dev)
            check_idle_counters(w, cpu);
        int core = m->cpus[cpu].core;
        check_core_state(w, core);
        pkgs |= 1u << (m->cores[core].package % 32);
    }
    for (int p = 0; p < m->packages; p++)
        if (pkgs & (1u << (p % 32)))
            check_pkg_state(w, p);
}

/* A full check every this many events catches what an event did to a CPU it
 * did not otherwise touch (a write to the wrong thread's accumulator). */
#define CHECK_FULL_EVERY 64

void world_check_event(struct world *w)
{
    struct world_check *c = w->check;
    if (w->q.now_ns < c->last_now_ns)
        check_fail(w, "time went back from %lld ns", (long long)c->last_now_ns);
    c->last_now_ns = w->q.now_ns;
    if (w->nevents % CHECK_FULL_EVERY == 0)
        check_all(w);
    else
        check_touched(w);
    check_energy(w);
}

#endif /* PMLAB_INVARIANTS */
