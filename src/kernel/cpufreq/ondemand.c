/* ondemand: the sampling governor (drivers/cpufreq/cpufreq_ondemand.c and
 * cpufreq_governor.c, FACTS.md §5 [F1, F6]).
 *
 * Why: it predates scheduler utilisation and looks only at the CPU's load,
 * busy time over wall time since the last sample. Above up_threshold (80 %)
 * it jumps to the policy maximum, on the theory that a loaded CPU should
 * finish fast; below, it asks for a frequency proportional to the load
 * between cpuinfo min and max. Samples are taken from the util hook once the
 * sampling period has passed (as dbs_update_util_handler does), so an idle
 * CPU costs nothing.
 *
 * Defaults: up_threshold 80, sampling_down_factor 1, powersave_bias 0,
 * sampling period 1000 x the driver's transition latency; io_is_busy is
 * moot (no IO wait). Not modelled: micro-accounting's 95 % threshold, the
 * tunables as knobs, conservative. */
#include <stdint.h>

#include "kernel/cpufreq/cpufreq.h"
#include "world.h"

#define OD_UP_THRESHOLD 80
#define OD_LATENCY_MULTIPLIER 1000

struct od_policy {
    sim_time_t sampling_ns;
    sim_time_t last_ns;
    sim_time_t last_busy_ns;
};

/* od_update: the load since the last sample decides the next frequency. */
static void od_dbs_update(struct world *w, struct cpufreq_policy *p)
{
    struct od_policy *od = p->gov_data;
    const struct pelt_cpu *pc = &w->cpufreq.pelt[p->cpu];
    sim_time_t now = w->q.now_ns;
    sim_time_t wall = now - od->last_ns;
    if (wall < od->sampling_ns)
        return;
    sim_time_t busy = pc->busy_ns - od->last_busy_ns;
    od->last_ns = now;
    od->last_busy_ns = pc->busy_ns;
    unsigned load = (unsigned)(100 * busy / wall);
    if (load > OD_UP_THRESHOLD) {
        cpufreq_driver_target(w, p, p->max_khz);
        return;
    }
    uint32_t khz = p->cpuinfo_min_khz +
                   (uint32_t)((uint64_t)load * (p->cpuinfo_max_khz - p->cpuinfo_min_khz) / 100);
    cpufreq_driver_target(w, p, khz);
}

static void od_start(struct world *w, struct cpufreq_policy *p)
{
    struct od_policy *od = p->gov_data;
    od->sampling_ns = OD_LATENCY_MULTIPLIER * w->cpufreq.driver->transition_latency_ns;
    if (od->sampling_ns < w->cpufreq.tick_ns)
        od->sampling_ns = w->cpufreq.tick_ns;
    od->last_ns = w->q.now_ns;
    od->last_busy_ns = w->cpufreq.pelt[p->cpu].busy_ns;
}

static void od_limits(struct world *w, struct cpufreq_policy *p)
{
    /* Keep the current request within the new limits (cpufreq_policy_apply_limits). */
    cpufreq_driver_target(w, p, p->cur_khz ? p->cur_khz : p->min_khz);
}

const struct cpufreq_governor cpufreq_gov_ondemand = {
    .name = "ondemand",
    .data_size = sizeof(struct od_policy),
    .needs_util = true,
    .samples = true,
    .start = od_start,
    .limits = od_limits,
    .update = od_dbs_update,
};
