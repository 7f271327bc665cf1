/* idle: a machine with nothing to run, as `sleep 120` leaves it while
 * turbostat and /proc/interrupts are sampled (stats-collect's idle runs in
 * tests/data/hosts/).
 *
 * No task runs. What wakes the CPUs is their background: per CPU, the
 * housekeeping timers (the kernel's and the daemons' hrtimers and timer-wheel
 * timers) and the device interrupts routed to it, each a Poisson stream at
 * the rate given, per second. Both go into the idle loop's own background
 * path (kernel/sched/idle.c, idle_set_irq_rates): a timer is a known future
 * event, so the governor sees it in its sleep length
 * (tick_nohz_get_sleep_length), while a device interrupt is not announced
 * and cuts an idle period short of what the governor predicted. The periodic
 * tick comes on top, on idle CPUs whose governor kept it running.
 *
 * Rates as /proc/interrupts gives them (pmlab import fills both from a
 * snapshot): timer_hz is the LOC row's rate (it counts the tick too, so
 * where the tick keeps running the model sees a little more than the host
 * did), device_hz the numbered IRQ lines' sum per CPU. IPIs (RES, CAL, TLB)
 * are left out: each wakes a CPU to run something, and there is nothing to
 * run here. Either key takes one value for every CPU or a list of one per
 * CPU; timer_hz unset keeps pmlab's default background (one timer every
 * 118 ms per CPU, IDLE_BG_TIMER_MEAN_NS, calibrated to adl0).
 *
 * Metrics: world_collect_metrics (residency, above/below, busy_pct,
 * pkg_watts, ...) and, mean per CPU over the window, loc_per_s (housekeeping
 * timers plus the ticks that woke an idle CPU: what LOC would count) and
 * device_irqs_per_s. */
#include <stddef.h>
#include <stdint.h>

#include "util/container.h"
#include "workload/workload.h"
#include "world.h"

struct idle_wl_config {
    struct wl_cpu_values timer_hz;  /* housekeeping timer interrupts per s, per CPU */
    struct wl_cpu_values device_hz; /* device interrupts per s, per CPU */
    double warmup_ms;               /* discarded start, ms */
    double duration_ms;             /* measurement window, ms */
};

static const struct wl_param idle_wl_params[] = {
    { "timer_hz", WL_PARAM_CPU_VALUES, offsetof(struct idle_wl_config, timer_hz), 0, 100000, "",
      "housekeeping timer interrupts per second (/proc/interrupts LOC); unset: pmlab's "
      "default, one per 118 ms" },
    { "device_hz", WL_PARAM_CPU_VALUES, offsetof(struct idle_wl_config, device_hz), 0, 100000,
      "0", "device interrupts per second (/proc/interrupts numbered lines)" },
    /* An idle machine costs a few hundred events per simulated second: a
     * long window is cheap and gives the rare shallow states some entries. */
    { "warmup_ms", WL_PARAM_DOUBLE, offsetof(struct idle_wl_config, warmup_ms), 0, 1e6, "1000",
      "simulated warm-up discarded before measuring, ms" },
    { "duration_ms", WL_PARAM_DOUBLE, offsetof(struct idle_wl_config, duration_ms), 1, 1e7,
      "20000", "simulated measurement window, ms" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

struct idle_wl_run {
    struct world *w;
    struct sim_event warmup_ev;
};

static void idle_wl_warmup_done(struct sim_event *ev, void *arg)
{
    (void)ev;
    world_measure_reset(arg);
}

/* Interrupts per CPU per second over the window, from the idle loop's counts. */
static void idle_wl_collect_irqs(const struct world *w, sim_time_t window_ns,
                                 struct rpt_metric_set *out)
{
    uint64_t loc = 0, dev = 0, ipi = 0, hk = 0;
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++) {
        const struct idle_cpu *ic = &w->idle.cpu[cpu];
        loc += ic->nr_timer_irqs + ic->nr_wake[IDLE_WAKE_TICK];
        hk += ic->nr_timer_irqs + ic->nr_coalesced;
        dev += ic->nr_device_irqs;
        ipi += ic->nr_ipis;
    }
    double cpu_s = (double)window_ns / SIM_NS_PER_S * isol_online_ncpus(w);
    rpt_set_put(out, "loc_per_s", "1/s", RPT_NEUTRAL, (double)loc / cpu_s);
    rpt_set_put(out, "hk_timers_per_s", "1/s", RPT_NEUTRAL, (double)hk / cpu_s);
    rpt_set_put(out, "device_irqs_per_s", "1/s", RPT_NEUTRAL, (double)dev / cpu_s);
    rpt_set_put(out, "wake_ipis_per_s", "1/s", RPT_NEUTRAL, (double)ipi / cpu_s);
}

static int idle_wl_run_point(struct world *w, const void *cfgp, int load_point,
                             struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point, (void)msg, (void)msgsize;
    const struct idle_wl_config *cfg = cfgp;
    struct idle_wl_run run = { .w = w };
    w->wl_state = &run;
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++)
        idle_set_irq_rates(w, cpu, wl_cpu_value(&cfg->timer_hz, cpu, -1),
                           wl_cpu_value(&cfg->device_hz, cpu, 0));
    sim_time_t measure_start_ns = (sim_time_t)(cfg->warmup_ms * SIM_NS_PER_MS);
    sim_time_t window_ns = (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS);
    sim_event_init(&run.warmup_ev, idle_wl_warmup_done);
    sim_event_schedule(&w->q, &run.warmup_ev, measure_start_ns);
    world_run_until(w, measure_start_ns + window_ns);
    world_collect_metrics(w, out);
    idle_wl_collect_irqs(w, window_ns, out);
    w->wl_state = NULL;
    return 0;
}

const struct wl_ops wl_idle_ops = {
    .name = "idle",
    .desc = "nothing to run: per-CPU housekeeping timers and device interrupts at given rates",
    .primary_metric = "pkg_watts",
    .params = idle_wl_params,
    .config_size = sizeof(struct idle_wl_config),
    .run = idle_wl_run_point,
};
