/* world: set-up, teardown and the event loop of one run, see world.h. */
#include "world.h"

#include <string.h>

#include "world_check.h"

bool world_stream_common(enum world_stream s)
{
    return s != WORLD_STREAM_TIMERS;
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
    idle_init(w);
    cpufreq_init(w);
    sched_init(w);
    kvm_init(w);
    world_check_init(w);
}

void world_destroy(struct world *w)
{
    world_check_destroy(w);
    kvm_destroy(w);
    sched_destroy(w);
    cpufreq_destroy(w);
    idle_destroy(w);
    hw_state_destroy(&w->hw);
    for (int s = 0; s < WORLD_NSTREAMS; s++)
        sim_rng_destroy(&w->rng[s]);
    sim_eventq_destroy(&w->q);
}

void world_measure_reset(struct world *w)
{
    hw_measure_reset(&w->hw, w->q.now_ns);
    hw_rapl_measure_reset(&w->cpufreq.rapl, w->q.now_ns);
    idle_measure_reset(w, w->q.now_ns);
    sched_measure_reset(w);
    kvm_measure_reset(w);
    world_check_measure_reset(w);
}

void world_collect_metrics(struct world *w, struct rpt_metric_set *out)
{
    hw_collect_metrics(&w->hw, w->q.now_ns, out);
    hw_rapl_collect_metrics(&w->cpufreq.rapl, w->q.now_ns, out);
    idle_collect_metrics(w, w->q.now_ns, &rpt_scope_host, out);
    sched_collect_metrics(w, out);
    kvm_collect_metrics(w, out);
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
        sim_eventq_pop(&w->q);
        w->nevents++;
        ev->fn(ev, w);
        world_check_event(w); /* nothing outside the invariant build */
    }
    /* Time advances to the end even when the queue ran dry before it. */
    if (w->q.now_ns < end_ns)
        w->q.now_ns = end_ns;
}
