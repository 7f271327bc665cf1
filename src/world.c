/* world: set-up, teardown and the event loop of one run, see world.h. */
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/tracepoints.h"
#include "world_check.h"
#include "world_devices.h"

bool world_stream_common(enum world_stream s)
{
    return s != WORLD_STREAM_TIMERS && s != WORLD_STREAM_KERNEL_WORK;
}

/* Host-wide metrics cover the online CPUs (every one unless SMT is off). */
static const struct rpt_cpu_scope *world_host_scope(const struct world *w)
{
    return w->isol.hk.offline_any ? &w->isol.host_scope : &rpt_scope_host;
}

void world_init(struct world *w, const struct hw_machine *m, const struct kparams *kp,
                const struct world_key *key)
{
    memset(w, 0, sizeof *w);
    w->machine = m;
    w->kp = kp;
    sim_eventq_init(&w->q);
    for (int s = 0; s < WORLD_NSTREAMS; s++) {
        /* A common stream is keyed as variant 0's, so the first variant's
         * numbers are what they were before streams were shared. */
        struct sim_rng_key rk = {
            .scenario_seed = key->seed,
            .variant = world_stream_common((enum world_stream)s) ? 0 : key->variant,
            .replication = key->replication, .load_point = key->load_point,
            .stream = (uint32_t)s,
        };
        sim_rng_init(&w->rng[s], &rk);
    }
    hw_state_init(&w->hw, m);
    isol_init(w);
    w->hw.online = w->isol.hk.offline_any ? w->isol.hk.online : NULL;
    idle_init(w);
    cpufreq_init(w);
    rcu_init(w);    /* before sched_init: its CPUs enter idle */
    sched_init(w);
    wchain_init(w);
    kvm_init(w);
    world_check_init(w);
}

void world_destroy(struct world *w)
{
    rpt_set_free(&w->sample_prev);
    rpt_set_free(&w->samples);
    world_check_destroy(w);
    world_devices_destroy(w);
    kvm_destroy(w);
    rcu_destroy(w);
    wchain_destroy(w);
    sched_destroy(w);
    cpufreq_destroy(w);
    idle_destroy(w);
    isol_destroy(w);
    hw_state_destroy(&w->hw);
    for (int s = 0; s < WORLD_NSTREAMS; s++)
        sim_rng_destroy(&w->rng[s]);
    sim_eventq_destroy(&w->q);
}

void world_measure_reset(struct world *w)
{
    intel_pstate_hwp_measure_reset(w);   /* before the counters restart */
    hw_measure_reset(&w->hw, w->q.now_ns);
    hw_rapl_measure_reset(&w->cpufreq.rapl, w->q.now_ns);
    idle_measure_reset(w, w->q.now_ns);
    sched_measure_reset(w);
    kvm_measure_reset(w);
    wchain_measure_reset(w);
    rcu_measure_reset(w);
    isol_measure_reset(w);
    world_check_measure_reset(w);
    tp_window_begin(w);
    if (w->interval_ns > 0) {
        rpt_set_free(&w->sample_prev);
        rpt_set_free(&w->samples);
        w->sample_prev_ns = w->q.now_ns;
        w->sample_next_ns = w->q.now_ns + w->interval_ns;
    }
}

/* The value of metric name over the last interval from its cumulative
 * values (window shares and rates, weighted by time): (cur T - prev Tp) /
 * (T - Tp). */
static double world_interval_value(const struct world *w, const struct rpt_metric_set *cur,
                                   const char *name, double t_ns, double tp_ns)
{
    const struct rpt_metric_value *c = rpt_set_get(cur, name), *p = rpt_set_get(&w->sample_prev, name);
    double prev = p ? p->value * tp_ns : 0;
    return c ? (c->value * t_ns - prev) / (t_ns - tp_ns) : 0;
}

/* Bzy_MHz over the last interval: cycles in C0 over C0 time, each the
 * difference of the cumulative ones; with no C0 time, the cumulative value
 * (the idle cores' clock, as the metric reports then). */
static double world_interval_bzy(const struct world *w, const struct rpt_metric_set *cur,
                                 double t_ns, double tp_ns)
{
    const struct rpt_metric_value *busy = rpt_set_get(cur, "busy_pct"), *mhz = rpt_set_get(cur, "bzy_mhz");
    const struct rpt_metric_value *pbusy = rpt_set_get(&w->sample_prev, "busy_pct");
    const struct rpt_metric_value *pmhz = rpt_set_get(&w->sample_prev, "bzy_mhz");
    double c0 = busy->value * t_ns - (pbusy ? pbusy->value * tp_ns : 0);
    double cycles = busy->value * t_ns * mhz->value -
                    (pbusy ? pbusy->value * tp_ns * pmhz->value : 0);
    return c0 > 1e-9 * t_ns ? cycles / c0 : mhz->value;
}

/* One sample at time at_ns (the queue's time moved there; no event lies
 * between): the window's metrics so far, minus those of the last sample,
 * as a row of turbostat's columns. */
static void world_sample(struct world *w, sim_time_t at_ns)
{
    w->q.now_ns = at_ns;
    struct rpt_metric_set cur = { 0 };
    hw_collect_metrics(&w->hw, at_ns, &cur);
    idle_collect_metrics(w, at_ns, world_host_scope(w), &cur);
    double t = (double)(at_ns - w->hw.measure_start_ns), tp = (double)(w->sample_prev_ns - w->hw.measure_start_ns);
    const char *cols[RPT_SERIES_MAX_COLS] = { "time_ms", "busy_pct", "bzy_mhz" };
    double row[RPT_SERIES_MAX_COLS] = { t / SIM_NS_PER_MS, world_interval_value(w, &cur, "busy_pct", t, tp),
                                        world_interval_bzy(w, &cur, t, tp) };
    int n = 3;
    static const char *const shares[] = { "residency.", "pkg_residency." }; /* turbostat's order */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < cur.n && n < RPT_SERIES_MAX_COLS - 2; i++)
            if (strncmp(cur.m[i].name, shares[k], strlen(shares[k])) == 0) {
                cols[n] = cur.m[i].name;
                row[n++] = world_interval_value(w, &cur, cur.m[i].name, t, tp);
            }
    cols[n] = "pkg_watts";
    row[n++] = world_interval_value(w, &cur, "pkg_watts", t, tp);
    cols[n] = "core_watts";
    row[n++] = world_interval_value(w, &cur, "core_watts", t, tp);
    rpt_set_series_row(&w->samples, "interval", cols, n, row);
    rpt_set_free(&w->sample_prev);
    w->sample_prev = cur;
    w->sample_prev_ns = at_ns;
    w->sample_next_ns = at_ns + w->interval_ns;
}

/* Every sample due before limit_ns (the next event's time, or just past
 * the end of world_run_until): taken between events, so the model sees the
 * same events in the same order whether it is sampled or not. */
static void world_samples_before(struct world *w, sim_time_t limit_ns)
{
    while (w->interval_ns > 0 && w->sample_next_ns > 0 && w->sample_next_ns < limit_ns)
        world_sample(w, w->sample_next_ns);
}

/* One row of series name of out: first (named first_col), then turbostat's
 * per-thread columns over the CPUs of mask (Busy%, Bzy_MHz, the cpuidle
 * states' residency, as turbostat shows per CPU), gathered by the same code
 * as the host-wide metrics into a scratch set. */
static void world_series_row(struct world *w, const bool *mask, const char *name,
                             const char *first_col, double first, struct rpt_metric_set *out)
{
    const struct rpt_cpu_scope sc = { .cpus = mask, .prefix = "" };
    struct rpt_metric_set one = { 0 };
    hw_collect_cpu_metrics(&w->hw, w->q.now_ns, &sc, &one);
    idle_collect_metrics(w, w->q.now_ns, &sc, &one);
    const char *cols[RPT_SERIES_MAX_COLS] = { first_col, "busy_pct", "bzy_mhz" };
    double row[RPT_SERIES_MAX_COLS] = { first, rpt_set_get(&one, "busy_pct")->value,
                                        rpt_set_get(&one, "bzy_mhz")->value };
    int n = 3;
    for (int i = 0; i < one.n && n < RPT_SERIES_MAX_COLS; i++)
        if (strncmp(one.m[i].name, "residency.", 10) == 0) {
            cols[n] = one.m[i].name;
            row[n++] = one.m[i].value;
        }
    rpt_set_series_row(out, name, cols, n, row);
    rpt_set_free(&one);
}

/* turbostat's per-CPU rows (series per_cpu, one row per CPU) and, on a
 * hybrid, one row per core type (series per_type.<TYPE>: its CPUs
 * together). */
static void world_collect_per_cpu(struct world *w, struct rpt_metric_set *out)
{
    const struct hw_machine *m = w->machine;
    bool *mask = calloc((size_t)m->ncpus, sizeof *mask);
    if (!mask)
        return;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        mask[cpu] = true;
        world_series_row(w, mask, "per_cpu", "cpu", cpu, out);
        mask[cpu] = false;
    }
    for (int t = 0; m->ntypes > 1 && t < m->ntypes; t++) {
        int n = 0;
        for (int cpu = 0; cpu < m->ncpus; cpu++)
            n += mask[cpu] = m->cpus[cpu].type == t;
        char name[RPT_NAME_MAX];
        snprintf(name, sizeof name, "per_type.%s", m->types[t].name);
        world_series_row(w, mask, name, "cpus", n, out);
    }
    free(mask);
}

void world_collect_metrics(struct world *w, struct rpt_metric_set *out)
{
    hw_collect_metrics(&w->hw, w->q.now_ns, out);
    hw_rapl_collect_metrics(&w->cpufreq.rapl, w->q.now_ns, out);
    idle_collect_metrics(w, w->q.now_ns, world_host_scope(w), out);
    sched_collect_metrics(w, out);
    wchain_collect_metrics(w, w->q.now_ns - w->idle.measure_start_ns, out);
    rcu_collect_metrics(w, w->q.now_ns - w->idle.measure_start_ns, out);
    isol_collect_metrics(w, w->q.now_ns - w->idle.measure_start_ns, out);
    kvm_collect_metrics(w, out);
    if (w->report_per_cpu)
        world_collect_per_cpu(w, out);
    if (w->samples.nseries > 0)
        rpt_set_copy(out, &w->samples);
    if (!w->report_cpus)
        return;
    /* turbostat --cpu: the per-thread quantities again, over the chosen CPUs. */
    const struct rpt_cpu_scope cpus = { .cpus = w->report_cpus, .prefix = RPT_CPUS_PREFIX };
    hw_collect_cpu_metrics(&w->hw, w->q.now_ns, &cpus, out);
    idle_collect_metrics(w, w->q.now_ns, &cpus, out);
    kvm_collect_poll(w, &cpus, out);
}

void world_run_until(struct world *w, sim_time_t end_ns)
{
    for (;;) {
        struct sim_event *ev = sim_eventq_peek(&w->q);
        if (!ev || ev->when_ns > end_ns)
            break;
        world_samples_before(w, ev->when_ns);
        sim_eventq_pop(&w->q);
        w->nevents++;
        ev->fn(ev, w);
        world_check_event(w); /* nothing outside the invariant build */
    }
    world_samples_before(w, end_ns + 1);
    /* Time advances to the end even when the queue ran dry before it. */
    if (w->q.now_ns < end_ns)
        w->q.now_ns = end_ns;
}
