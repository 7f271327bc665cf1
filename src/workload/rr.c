/* rr: an open-loop request/response server, the simplest workload that
 * exercises the whole path (arrivals, wakeups, placement, idle exits, SMT
 * co-running, power) end to end.
 *
 * Requests arrive as a Poisson process. Each is handled by a new thread
 * forked on the CPU its interrupt landed on (uniform over CPUs, as RSS
 * spreads flows) and placed by the kernel's fork rule; it runs a lognormal
 * service time and completes. Response time = completion - arrival. The
 * offered load is given as a share of the machine's physical cores: arrival
 * rate = load x cores / mean service time, so SMT's extra throughput is
 * headroom and load < 1 is stable on an SMT machine.
 *
 * Metrics: throughput_rps, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us,
 * offered_rps, then the machine and idle metrics of world_collect_metrics;
 * the series latency_cdf holds the response-time distribution. Throughput
 * and latencies count only the requests that arrive in the measurement
 * window (after warmup_ms) and complete before it ends; throughput is their
 * number over duration_ms, offered_rps the number that arrived in the
 * window over duration_ms (the served and offered rates: a variant serving
 * much less than offered is saturated, see wl_ops.offered_metric). A run whose requests in flight exceed max_inflight is
 * overloaded and fails (exit status 1). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hist.h"
#include "sim/steady.h"
#include "util/xalloc.h"
#include "workload/workload.h"
#include "world.h"
#include "util/container.h"


struct rr_config {
    double load;            /* offered work / physical cores, 0..1 */
    double service_us;      /* mean service time on the reference core, us */
    double service_cv;      /* coefficient of variation of the service time */
    double warmup_ms;       /* discarded start of the run, ms */
    double duration_ms;     /* measurement window, ms */
    int64_t max_inflight;   /* requests in flight before the run counts as overloaded */
};

struct rr_req {
    struct task task;
    sim_time_t arrival_ns;
    struct rr_req *next_free;
};

struct rr_run {
    struct world *w;
    const struct rr_config *cfg;
    struct rr_req *pool, *free_list;
    int64_t inflight;
    double mean_gap_ns;
    sim_time_t measure_start_ns; /* end of the warm-up: requests from here on count */
    uint64_t completed;          /* completions of requests that arrived in the window */
    uint64_t arrived;            /* requests that arrived in the window */
    struct sim_hist *lat;
    struct sim_steady steady;    /* response times over the whole run, for MSER-5 */
    bool overloaded;
    struct sim_event arrival_ev, warmup_ev;
};

static const struct wl_param rr_params[] = {
    { "load", WL_PARAM_DOUBLE, offsetof(struct rr_config, load), 0.001, 0.999, "0.5",
      "offered work as a share of the physical cores" },
    { "service_us", WL_PARAM_DOUBLE, offsetof(struct rr_config, service_us), 0.1, 1e6, "50",
      "mean service time on the reference core (type 0 at base frequency), us" },
    { "service_cv", WL_PARAM_DOUBLE, offsetof(struct rr_config, service_cv), 0, 10, "1",
      "coefficient of variation of the lognormal service time (0 = constant)" },
    { "warmup_ms", WL_PARAM_DOUBLE, offsetof(struct rr_config, warmup_ms), 0, 1e6, "50",
      "simulated warm-up discarded before measuring, ms" },
    { "duration_ms", WL_PARAM_DOUBLE, offsetof(struct rr_config, duration_ms), 0.1, 1e7, "500",
      "simulated measurement window, ms" },
    { "max_inflight", WL_PARAM_INT, offsetof(struct rr_config, max_inflight), 1, 1e7, "65536",
      "requests in flight beyond which the run fails as overloaded" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

/* Whole-run struct recovered from a member event. */
static struct rr_run *rr_of_arrival(struct sim_event *ev)
{
    return container_of(ev, struct rr_run, arrival_ev);
}

static void rr_request_done(struct world *w, struct task *t)
{
    struct rr_req *req = container_of(t, struct rr_req, task);
    struct rr_run *run = w->wl_state;
    sim_steady_add(&run->steady, w->q.now_ns, (double)(w->q.now_ns - req->arrival_ns));
    if (req->arrival_ns >= run->measure_start_ns) {
        sim_hist_add(run->lat, w->q.now_ns - req->arrival_ns);
        run->completed++;
    }
    req->next_free = run->free_list;
    run->free_list = req;
    run->inflight--;
}

static double rr_service_ns(struct rr_run *run)
{
    double mean_ns = run->cfg->service_us * 1000.0;
    return sim_rng_lognormal_mean_cv(&run->w->rng[WORLD_STREAM_SERVICE], mean_ns,
                                     run->cfg->service_cv);
}

static void rr_arrival(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rr_run *run = rr_of_arrival(ev);
    struct rr_req *req = run->free_list;
    if (!req) {
        run->overloaded = true;
        return; /* stop arriving; the run reports the failure */
    }
    run->free_list = req->next_free;
    run->inflight++;
    req->arrival_ns = w->q.now_ns;
    /* The request's interrupt lands on a CPU RSS chose (uniform over CPUs,
     * the NIC's choice, not the scheduler's); a new thread is forked there
     * to serve it, and the kernel places it. */
    run->arrived += req->arrival_ns >= run->measure_start_ns;
    int irq_cpu = (int)sim_rng_below(&w->rng[WORLD_STREAM_IRQ], (uint64_t)w->machine->ncpus);
    task_init(&req->task, rr_request_done, irq_cpu);
    wl_task_affinity(w, &req->task);
    task_fork(w, &req->task, rr_service_ns(run), irq_cpu);
    double gap = sim_rng_exp(&w->rng[WORLD_STREAM_ARRIVAL], run->mean_gap_ns);
    sim_event_schedule(&w->q, &run->arrival_ev, w->q.now_ns + 1 + (sim_time_t)gap);
}

static void rr_warmup_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    (void)ev;
    world_measure_reset(w);
}

/* The response-time distribution as a series of (percentile, latency):
 * every percent, then the tail, for CDF plots. */
static void rr_collect_cdf(const struct sim_hist *lat, struct rpt_metric_set *out)
{
    static const char *const cols[] = { "pct", "latency_us" };
    static const double tail[] = { 99.5, 99.9, 99.99 };
    for (int p = 1; p <= 102; p++) {
        double pct = p <= 99 ? p : tail[p - 100];
        double row[2] = { pct, sim_hist_percentile_us(lat, pct) };
        rpt_set_series_row(out, "latency_cdf", cols, 2, row);
    }
}

static void rr_collect(struct rr_run *run, struct rpt_metric_set *out)
{
    struct world *w = run->w;
    double window_s = run->cfg->duration_ms / 1000.0;
    rpt_set_put(out, "throughput_rps", "req/s", RPT_HIGHER_BETTER, (double)run->completed / window_s);
    rpt_set_put(out, "lat_mean_us", "us", RPT_LOWER_BETTER, sim_hist_mean_us(run->lat));
    rpt_set_put(out, "lat_p50_us", "us", RPT_LOWER_BETTER, sim_hist_percentile_us(run->lat, 50));
    rpt_set_put(out, "lat_p99_us", "us", RPT_LOWER_BETTER, sim_hist_percentile_us(run->lat, 99));
    rpt_set_put(out, "lat_p999_us", "us", RPT_LOWER_BETTER,
                sim_hist_percentile_us(run->lat, 99.9));
    rpt_set_put(out, "offered_rps", "req/s", RPT_NEUTRAL, (double)run->arrived / window_s);
    world_collect_metrics(w, out);
    rr_collect_cdf(run->lat, out);
    wl_put_steady_state(out, sim_steady_end_ns(&run->steady, SIM_STEADY_MEAN),
                        run->measure_start_ns);
}

static int rr_run_point(struct world *w, const void *cfgp, int load_point,
                        struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point;
    const struct rr_config *cfg = cfgp;
    struct rr_run run = { .w = w, .cfg = cfg };
    run.pool = xcalloc((size_t)cfg->max_inflight, sizeof *run.pool);
    for (int64_t i = cfg->max_inflight - 1; i >= 0; i--) {
        run.pool[i].next_free = run.free_list;
        run.free_list = &run.pool[i];
    }
    run.lat = xmalloc(sizeof *run.lat);
    sim_hist_init(run.lat);
    run.mean_gap_ns = cfg->service_us * 1000.0 / (cfg->load * w->machine->ncores);
    w->wl_state = &run;
    sim_event_init(&run.arrival_ev, rr_arrival);
    sim_event_init(&run.warmup_ev, rr_warmup_done);
    /* The window starts when the warm-up ends, so warm-up requests are never
     * counted, and lasts duration_ms, the throughput's denominator. Without
     * a warm-up the reset still runs before the first arrival: both are at
     * 0 and ties go in insertion order. */
    run.measure_start_ns = (sim_time_t)(cfg->warmup_ms * SIM_NS_PER_MS);
    sim_time_t end_ns = run.measure_start_ns + (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS);
    sim_steady_init(&run.steady, 0, end_ns);
    sim_event_schedule(&w->q, &run.warmup_ev, run.measure_start_ns);
    sim_event_schedule(&w->q, &run.arrival_ev, 0);
    world_run_until(w, end_ns);
    int rc = 0;
    if (run.overloaded) {
        snprintf(msg, msgsize, "overloaded: more than %lld requests in flight (load %.3g too high "
                 "for this machine and variant, or raise max_inflight)",
                 (long long)cfg->max_inflight, cfg->load);
        rc = -1;
    } else {
        rr_collect(&run, out);
    }
    w->wl_state = NULL;
    sim_steady_destroy(&run.steady);
    free(run.lat);
    free(run.pool);
    return rc;
}

const struct wl_ops wl_rr_ops = {
    .name = "rr",
    .desc = "open-loop request/response server: Poisson arrivals, lognormal service",
    .primary_metric = "lat_p99_us",
    .offered_metric = "offered_rps",
    .served_metric = "throughput_rps",
    .params = rr_params,
    .config_size = sizeof(struct rr_config),
    .nload_points = NULL,
    .run = rr_run_point,
    .combine = NULL,
};
