/* cyclictest: wake-up latency of periodic timers, as rt-tests' cyclictest
 * measures it, with wult's split of it by the C-state the CPU was in.
 *
 * Each thread sleeps until an absolute hrtimer expiry (clock_nanosleep with
 * TIMER_ABSTIME, cyclictest's default; relative = 1 is its -r), then reads
 * the clock: its latency is the time from the expiry to that read, i.e. to
 * the first instruction the woken thread runs. Thread i's interval is
 * interval_us + i x distance_us (-i, -d). With pin = 1 (-a) thread i is bound
 * to the i-th CPU of the workload's affinity (every CPU without one), round
 * robin, as cyclictest -a -t does; with pin = 0 the kernel places it within
 * the affinity (select_task_rq_fair). threads = 0 starts one thread per CPU
 * of the affinity (-S / --smp).
 *
 * Nothing here models the latency: the timer's hrtimer is armed on the
 * CPU the thread last ran on and the cpuidle governor sees it in its sleep
 * length (idle_set_wl_timer), the expiry wakes the thread through the
 * kernel's wake-up path (sched_wake_task), and what that costs is the
 * machine's: the idle state's hardware exit latency, the interrupt and the
 * switch to the task (wake_irq_ns, wake_switch_ns) and the caches the state
 * lost (sched/idle.c, core.c). With `priority` (-p) the threads are
 * SCHED_FIFO at that priority (kernel/sched/rt.c): a thread woken onto a
 * CPU running a fair task preempts it at once; without it (0, cyclictest
 * without -p) they are SCHED_OTHER and wait for the running task's segment.
 *
 * wult's view: each sample is filed under the idle state the CPU had
 * requested when the timer fired (wult's ReqCState: the cpuidle state the
 * governor chose, by its sysfs name), or "busy" when the CPU was not idle,
 * HLT/POLL without a cpuidle driver.
 *
 * Metrics: lat_min_us, lat_avg_us, lat_p50_us, lat_p99_us, lat_max_us,
 * samples, overruns (expiries already past when the thread re-armed),
 * hist_overflows; per state wake_share.<STATE> (% of samples); then
 * world_collect_metrics. Series: latency_hist (1 us buckets up to
 * hist_max_us, as cyclictest -h prints) and wake_latency_by_cstate (one row
 * per state: samples, share, mean, p50, p99, max). A state's latency is a
 * series row, not a metric: a state without samples in a run has none, and
 * a metric must have a value in every run to be compared. Samples count from
 * the end of the warm-up. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/time/hrtimer.h"
#include "report/explain.h"
#include "sim/hist.h"
#include "util/container.h"
#include "util/xalloc.h"
#include "workload/workload.h"
#include "world.h"

struct ct_config {
    double interval_us;     /* -i: base timer interval, us */
    double distance_us;     /* -d: interval increment per thread, us */
    int64_t threads;        /* -t: threads; 0 = one per CPU of the affinity (-S) */
    int64_t pin;            /* -a: 1 binds thread i to one CPU, 0 lets the kernel place it */
    int64_t priority;       /* -p: SCHED_FIFO priority, 0 = SCHED_OTHER (no -p) */
    int64_t relative;       /* -r: 1 relative timers (next = wake-up + interval) */
    double hist_max_us;     /* -h: histogram range, us (1 us buckets) */
    double warmup_ms;       /* discarded start, ms */
    double duration_ms;     /* measurement window, ms */
};

static const struct wl_param ct_params[] = {
    { "interval_us", WL_PARAM_DOUBLE, offsetof(struct ct_config, interval_us), 10, 1e7, "1000",
      "timer interval of the first thread, us (cyclictest -i)" },
    { "distance_us", WL_PARAM_DOUBLE, offsetof(struct ct_config, distance_us), 0, 1e7, "0",
      "interval added per further thread, us (cyclictest -d)" },
    { "threads", WL_PARAM_INT, offsetof(struct ct_config, threads), 0, 1024, "0",
      "measuring threads; 0 = one per CPU of the affinity (cyclictest -S)" },
    { "pin", WL_PARAM_INT, offsetof(struct ct_config, pin), 0, 1, "1",
      "1: thread i bound to the i-th CPU of the affinity, round robin (cyclictest -a); "
      "0: placed by the kernel" },
    { "priority", WL_PARAM_INT, offsetof(struct ct_config, priority), 0, 99, "0",
      "SCHED_FIFO priority 1-99 of the threads (cyclictest -p); 0 = SCHED_OTHER, as "
      "cyclictest without -p" },
    { "relative", WL_PARAM_INT, offsetof(struct ct_config, relative), 0, 1, "0",
      "1: relative timers, the next expiry an interval after the wake-up (cyclictest -r)" },
    { "hist_max_us", WL_PARAM_DOUBLE, offsetof(struct ct_config, hist_max_us), 1, 100000, "200",
      "histogram range, us, 1 us buckets (cyclictest -h); beyond it: hist_overflows" },
    { "warmup_ms", WL_PARAM_DOUBLE, offsetof(struct ct_config, warmup_ms), 0, 1e6, "20",
      "simulated warm-up discarded before measuring, ms" },
    { "duration_ms", WL_PARAM_DOUBLE, offsetof(struct ct_config, duration_ms), 1, 1e7, "500",
      "simulated measurement window, ms" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

/* Sample classes: the driver's states 0 .. CPUIDLE_STATE_MAX - 1, then: */
enum { CT_CLASS_BUSY = CPUIDLE_STATE_MAX, CT_CLASS_NOIDLE_DRV, CT_NCLASSES };

struct ct_thread {
    struct task task;
    struct sim_event timer_ev;  /* the thread's hrtimer */
    int timer_cpu;              /* CPU the hrtimer is armed on, -1 none */
    sim_time_t interval_ns;
    sim_time_t expiry_ns;       /* expiry being waited for or just served */
    sim_time_t hard_ns;         /* its hard expiry: expiry_ns + the sleep's slack */
    int cls;                    /* the CPU's state when it fired */
    bool started;
};

struct ct_run {
    struct world *w;
    const struct ct_config *cfg;
    struct ct_thread *thr;
    int nthreads;
    sim_time_t measure_start_ns;
    struct sim_hist *lat;               /* all samples */
    struct sim_hist *by_class;          /* [CT_NCLASSES] */
    uint64_t *hist_us;                  /* [hist_buckets] */
    int hist_buckets;
    uint64_t hist_overflows, overruns;
    struct sim_event warmup_ev;
};

/* The earliest hrtimer of this workload armed on cpu, for the governor. */
static void ct_sync_cpu_timer(struct ct_run *run, int cpu)
{
    sim_time_t first = SIM_TIME_MAX;
    for (int i = 0; i < run->nthreads; i++) {
        const struct ct_thread *th = &run->thr[i];
        if (th->timer_cpu == cpu && th->hard_ns < first)
            first = th->hard_ns;
    }
    idle_set_wl_timer(run->w, cpu, first);
}

/* hrtimer_start on the CPU the thread last ran on (the hrtimer base of the
 * current CPU: the thread arms it just before it sleeps). clock_nanosleep
 * gives a SCHED_OTHER thread the default 50 us of slack and an RT one none
 * (hrtimer_sleep_slack_ns): the device fires at the hard expiry, which the
 * governor sees; the latency still counts from the requested expiry, as
 * cyclictest's does. An interrupt of the same CPU inside the slack would
 * expire it earlier: not modelled here (the tick on a busy CPU is not an
 * event in pmlab). */
static void ct_arm(struct ct_run *run, struct ct_thread *th, sim_time_t expiry_ns)
{
    th->expiry_ns = expiry_ns;
    th->hard_ns = hrtimer_range(expiry_ns, hrtimer_sleep_slack_ns(task_is_rt(&th->task))).hard_ns;
    th->timer_cpu = th->task.prev_cpu;
    sim_event_schedule(&run->w->q, &th->timer_ev, th->hard_ns);
    ct_sync_cpu_timer(run, th->timer_cpu);
}

/* The class of cpu's state now: the cpuidle state it requested, busy, or
 * idle without a cpuidle driver. */
static int ct_class_of(const struct world *w, int cpu)
{
    const struct idle_cpu *ic = &w->idle.cpu[cpu];
    if (!ic->in_idle)
        return CT_CLASS_BUSY;
    return ic->state >= 0 ? ic->state : CT_CLASS_NOIDLE_DRV;
}

static void ct_timer_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct ct_thread *th = container_of(ev, struct ct_thread, timer_ev);
    struct ct_run *run = w->wl_state;
    int cpu = th->timer_cpu;
    th->cls = ct_class_of(w, cpu);
    th->timer_cpu = -1;
    ct_sync_cpu_timer(run, cpu);
    /* hrtimer_wakeup: the expiry interrupt on cpu wakes the sleeper; the
     * thread's first code (the return from clock_nanosleep) is its segment
     * of no work, which the kernel stretches by the cache refill. */
    sched_wake_task(w, &th->task, 0, cpu);
}

static void ct_record(struct ct_run *run, const struct ct_thread *th, sim_time_t lat_ns)
{
    sim_hist_add(run->lat, lat_ns);
    sim_hist_add(&run->by_class[th->cls], lat_ns);
    int64_t bucket = lat_ns / 1000;
    if (bucket >= run->hist_buckets)
        run->hist_overflows++;
    else
        run->hist_us[bucket]++;
}

/* The thread runs: first its start, then after each expiry. It reads the
 * clock, files the sample and sleeps until the next expiry. */
static void ct_thread_ran(struct world *w, struct task *t)
{
    struct ct_thread *th = container_of(t, struct ct_thread, task);
    struct ct_run *run = w->wl_state;
    sim_time_t now = w->q.now_ns;
    if (!th->started) {
        th->started = true;
        ct_arm(run, th, now + th->interval_ns);
        return;
    }
    if (th->expiry_ns >= run->measure_start_ns)
        ct_record(run, th, now - th->expiry_ns);
    sim_time_t next = run->cfg->relative ? now + th->interval_ns : th->expiry_ns + th->interval_ns;
    while (next <= now) {
        /* An absolute expiry already past: clock_nanosleep returns at once;
         * counted as an overrun and skipped to the next future one. */
        run->overruns++;
        next += th->interval_ns;
    }
    ct_arm(run, th, next);
}

static void ct_warmup_done(struct sim_event *ev, void *arg)
{
    (void)ev;
    world_measure_reset(arg);
}

/* The CPUs the threads may use: the workload's affinity, else all; online
 * ones only (cyclictest -S: one thread per online CPU; nosmt). */
static int ct_allowed_cpus(const struct world *w, int *cpus)
{
    int n = 0;
    for (int cpu = 0; cpu < w->machine->ncpus; cpu++)
        if ((!w->wl_affinity || w->wl_affinity[cpu]) && !isol_cpu_offline(w, cpu))
            cpus[n++] = cpu;
    return n;
}

static void ct_start_threads(struct ct_run *run)
{
    struct world *w = run->w;
    int *cpus = xcalloc((size_t)w->machine->ncpus, sizeof *cpus);
    int ncpus = ct_allowed_cpus(w, cpus);
    run->nthreads = run->cfg->threads > 0 ? (int)run->cfg->threads : ncpus;
    run->thr = xcalloc((size_t)run->nthreads, sizeof *run->thr);
    for (int i = 0; i < run->nthreads; i++) {
        struct ct_thread *th = &run->thr[i];
        th->timer_cpu = -1;
        th->expiry_ns = th->hard_ns = SIM_TIME_MAX;
        th->interval_ns = (sim_time_t)((run->cfg->interval_us + i * run->cfg->distance_us) * 1000.0);
        sim_event_init(&th->timer_ev, ct_timer_fired);
        task_init(&th->task, ct_thread_ran, WL_LAUNCH_CPU);
        th->task.comm = "cyclictest";
        if (run->cfg->priority > 0)
            task_set_scheduler(&th->task, SCHED_POLICY_FIFO, (int)run->cfg->priority);
        if (run->cfg->pin)
            task_set_affinity(&th->task, cpus[i % ncpus]);
        else
            wl_task_affinity(w, &th->task);
    }
    for (int i = 0; i < run->nthreads; i++)
        task_fork(w, &run->thr[i].task, 0, WL_LAUNCH_CPU);
    free(cpus);
}

static const char *ct_class_name(const struct world *w, int cls)
{
    if (cls == CT_CLASS_BUSY)
        return "busy";
    if (cls == CT_CLASS_NOIDLE_DRV)
        return w->idle.mode == IDLE_MODE_POLL ? "POLL" : "HLT";
    return w->idle.drv.states[cls].name;
}

/* wult's view: every state the CPU could have been in, with its share. */
static void ct_collect_by_class(const struct ct_run *run, struct rpt_metric_set *out)
{
    static const char *const cols[] = { "state", "samples", "share_pct", "mean_us",
                                        "p50_us", "p99_us", "max_us" };
    const struct world *w = run->w;
    int ndrv = w->idle.mode == IDLE_MODE_CPUIDLE ? w->idle.drv.state_count : 0;
    for (int cls = 0; cls < CT_NCLASSES; cls++) {
        if (cls >= ndrv && cls < CT_CLASS_BUSY)
            continue;
        if (cls == CT_CLASS_NOIDLE_DRV && w->idle.mode == IDLE_MODE_CPUIDLE)
            continue;
        const struct sim_hist *h = &run->by_class[cls];
        double share = run->lat->count ? 100.0 * (double)h->count / (double)run->lat->count : 0;
        char name[RPT_NAME_MAX];
        snprintf(name, sizeof name, "wake_share.%s", ct_class_name(w, cls));
        rpt_set_put(out, name, "%", RPT_NEUTRAL, share);
        double row[7] = { cls == CT_CLASS_BUSY ? -1 : cls == CT_CLASS_NOIDLE_DRV ? -2 : cls,
                          (double)h->count, share, sim_hist_mean_us(h),
                          sim_hist_percentile_us(h, 50), sim_hist_percentile_us(h, 99),
                          h->count ? (double)h->max_ns / 1000.0 : NAN };
        rpt_set_series_row(out, "wake_latency_by_cstate", cols, 7, row);
    }
}

static void ct_collect(struct ct_run *run, struct rpt_metric_set *out)
{
    static const char *const hcols[] = { "latency_us", "samples" };
    const struct sim_hist *h = run->lat;
    rpt_set_put(out, "lat_min_us", "us", RPT_LOWER_BETTER,
                h->count ? (double)h->min_ns / 1000.0 : NAN);
    rpt_set_put(out, "lat_avg_us", "us", RPT_LOWER_BETTER, sim_hist_mean_us(h));
    rpt_set_put(out, "lat_p50_us", "us", RPT_LOWER_BETTER, sim_hist_percentile_us(h, 50));
    rpt_set_put(out, "lat_p99_us", "us", RPT_LOWER_BETTER, sim_hist_percentile_us(h, 99));
    rpt_set_put(out, "lat_max_us", "us", RPT_LOWER_BETTER,
                h->count ? (double)h->max_ns / 1000.0 : NAN);
    rpt_set_put(out, "samples", "", RPT_NEUTRAL, (double)h->count);
    rpt_set_put(out, "overruns", "", RPT_LOWER_BETTER, (double)run->overruns);
    rpt_set_put(out, "hist_overflows", "", RPT_LOWER_BETTER, (double)run->hist_overflows);
    ct_collect_by_class(run, out);
    world_collect_metrics(run->w, out);
    for (int b = 0; b < run->hist_buckets; b++) {
        double row[2] = { b, (double)run->hist_us[b] };
        rpt_set_series_row(out, "latency_hist", hcols, 2, row);
    }
}

static int ct_run_point(struct world *w, const void *cfgp, int load_point,
                        struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point, (void)msg, (void)msgsize;
    const struct ct_config *cfg = cfgp;
    struct ct_run run = { .w = w, .cfg = cfg };
    run.lat = xmalloc(sizeof *run.lat);
    sim_hist_init(run.lat);
    run.by_class = xcalloc(CT_NCLASSES, sizeof *run.by_class);
    for (int i = 0; i < CT_NCLASSES; i++)
        sim_hist_init(&run.by_class[i]);
    run.hist_buckets = (int)ceil(cfg->hist_max_us);
    run.hist_us = xcalloc((size_t)run.hist_buckets, sizeof *run.hist_us);
    w->wl_state = &run;
    run.measure_start_ns = (sim_time_t)(cfg->warmup_ms * SIM_NS_PER_MS);
    sim_time_t end_ns = run.measure_start_ns + (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS);
    sim_event_init(&run.warmup_ev, ct_warmup_done);
    sim_event_schedule(&w->q, &run.warmup_ev, run.measure_start_ns);
    ct_start_threads(&run);
    world_run_until(w, end_ns);
    ct_collect(&run, out);
    for (int i = 0; i < run.nthreads; i++)
        sim_event_cancel(&w->q, &run.thr[i].timer_ev);
    w->wl_state = NULL;
    free(run.thr);
    free(run.hist_us);
    free(run.by_class);
    free(run.lat);
    return 0;
}

static void ct_explain(const void *cfg_, struct explain *x)
{
    const struct ct_config *cfg = cfg_;
    if (cfg->priority > 0)
        explain_add(x, "workload: measuring threads SCHED_FIFO priority %lld (RT class, cyclictest -p %lld)",
                    (long long)cfg->priority, (long long)cfg->priority);
    else
        explain_add(x, "workload: measuring threads SCHED_OTHER (fair class, nice 0; cyclictest without -p)");
}

const struct wl_ops wl_cyclictest_ops = {
    .name = "cyclictest",
    .desc = "periodic timers on chosen CPUs: wake-up latency, histogram, split by C-state (wult)",
    .primary_metric = "lat_p99_us",
    .params = ct_params,
    .config_size = sizeof(struct ct_config),
    .run = ct_run_point,
    .explain = ct_explain,
};
