/* rr: an open-loop request/response server, the simplest workload that
 * exercises the whole path (arrivals, wakeups, placement, idle exits, SMT
 * co-running, power) end to end.
 *
 * Requests arrive as a Poisson process; each one's interrupt lands on a CPU
 * RSS picks (uniform over CPUs, as RSS spreads flows). Two servers:
 *
 * - server = fork: each request is handled by a new thread forked on the
 *   interrupt's CPU and placed by the kernel's fork rule (the fork slow
 *   path, find_idlest_group over the NUMA domain: faithful, and a cost that
 *   grows with the machine); it runs a lognormal service time and exits.
 * - server = pool: `threads` persistent workers (default one per CPU),
 *   forked once from WL_LAUNCH_CPU as a server's main thread starts its pool
 *   (netserver, memcached, nginx workers, thread-pool RPC servers do not fork
 *   per request). A request's interrupt wakes a sleeping worker from its CPU,
 *   so the kernel's wake path places it (wake_affine between the interrupt's
 *   CPU and the worker's previous one, select_idle_sibling within the LLC);
 *   which worker is workload/pool.h's rule, the most recently slept (LIFO,
 *   as epoll_wait's exclusive waiters). With every worker busy, the request
 *   waits in a FIFO, and a worker that finishes takes the oldest and goes on
 *   where it is. The pool is jbb's (workload/pool.h).
 *
 * Response time = completion - arrival (queueing included). The
 * offered load is given as a share of the machine's physical cores: arrival
 * rate = load x cores / mean service time, so SMT's extra throughput is
 * headroom and load < 1 is stable on an SMT machine.
 *
 * Metrics: throughput_rps, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us,
 * offered_rps, with server = pool pool_wait_pct (the share of the window's
 * requests that found every worker busy and waited), then the machine and
 * idle metrics of world_collect_metrics; the series latency_cdf holds the
 * response-time distribution. Throughput and latencies count only the
 * requests that arrive in the measurement window (after warmup_ms) and
 * complete before it ends; throughput is their number over duration_ms,
 * offered_rps the number that arrived in the window over duration_ms (the
 * served and offered rates: a variant serving much less than offered is
 * saturated, see wl_ops.offered_metric). A run whose requests in flight
 * exceed max_inflight is overloaded and fails (exit status 1). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/exit.h"
#include "sim/hist.h"
#include "sim/steady.h"
#include "util/xalloc.h"
#include "workload/pool.h"
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
    char server[WL_TEXT_MAX]; /* "fork" or "pool" */
    int64_t threads;        /* server = pool: worker threads, 0 = one per CPU */
};

struct rr_req {
    struct task task;       /* server = fork: the request's own thread */
    sim_time_t arrival_ns;
    double service_ns;      /* server = pool: its work, drawn on arrival */
    struct rr_req *next_free;
};

/* server = pool: a persistent worker thread. */
struct rr_worker {
    struct task task;
    struct rr_req *req;     /* request it serves, NULL while asleep */
};

struct rr_run {
    struct world *w;
    const struct rr_config *cfg;
    struct rr_req *req, *free_list; /* [max_inflight] request slots */
    int64_t inflight;
    bool use_pool;               /* server = pool */
    struct wl_pool pool;         /* its sleeping workers and waiting requests */
    struct rr_worker *worker;    /* [nworkers] */
    int nworkers;
    double mean_gap_ns;
    struct sim_lognormal service; /* service time, ns of reference work */
    sim_time_t measure_start_ns; /* end of the warm-up: requests from here on count */
    uint64_t completed;          /* completions of requests that arrived in the window */
    uint64_t arrived;            /* requests that arrived in the window */
    uint64_t waited;             /* of those, requests that found every worker busy */
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
    { "server", WL_PARAM_TEXT, offsetof(struct rr_config, server), 0, 0, "fork",
      "fork: a new thread per request; pool: persistent worker threads woken per request" },
    { "threads", WL_PARAM_INT, offsetof(struct rr_config, threads), 0, 1e5, "0",
      "server = pool: worker threads (0 = one per CPU)" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

/* Whole-run struct recovered from a member event. */
static struct rr_run *rr_of_arrival(struct sim_event *ev)
{
    return container_of(ev, struct rr_run, arrival_ev);
}

static double rr_service_ns(struct rr_run *run)
{
    return sim_rng_lognormal(&run->w->rng[WORLD_STREAM_SERVICE], &run->service);
}

/* req is complete now: record its response time and free its slot. */
static void rr_request_complete(struct world *w, struct rr_run *run, struct rr_req *req)
{
    sim_steady_add(&run->steady, w->q.now_ns, (double)(w->q.now_ns - req->arrival_ns));
    if (req->arrival_ns >= run->measure_start_ns) {
        sim_hist_add(run->lat, w->q.now_ns - req->arrival_ns);
        run->completed++;
    }
    req->next_free = run->free_list;
    run->free_list = req;
    run->inflight--;
}

/* server = fork: the request's thread finished its work (and exits). */
static void rr_request_done(struct world *w, struct task *t)
{
    release_task(w, t);
    rr_request_complete(w, w->wl_state, container_of(t, struct rr_req, task));
}

/* server = pool: worker wk serves req, woken from waker_cpu (the request's
 * interrupt, or its own CPU when it goes on from its done()). */
static void rr_worker_serve(struct world *w, struct rr_worker *wk, struct rr_req *req,
                            int waker_cpu)
{
    wk->req = req;
    sched_wake_task(w, &wk->task, req->service_ns, waker_cpu);
}

/* A worker is free (started, or done with a request): take the oldest
 * waiting request, or sleep until a request wakes it. */
static void rr_worker_next(struct world *w, struct rr_run *run, struct rr_worker *wk)
{
    if (run->pool.q_len > 0) {
        rr_worker_serve(w, wk, &run->req[wl_pool_queue_pop(&run->pool)], wk->task.prev_cpu);
        return;
    }
    wk->req = NULL;
    wl_pool_sleep(&run->pool, (int32_t)(wk - run->worker));
}

static void rr_worker_done(struct world *w, struct task *t)
{
    struct rr_run *run = w->wl_state;
    struct rr_worker *wk = container_of(t, struct rr_worker, task);
    rr_request_complete(w, run, wk->req);
    rr_worker_next(w, run, wk);
}

/* A worker ran its (empty) start: from now on it serves requests. */
static void rr_worker_started(struct world *w, struct task *t)
{
    t->done = rr_worker_done;
    rr_worker_next(w, w->wl_state, container_of(t, struct rr_worker, task));
}

/* The server's main thread, started from WL_LAUNCH_CPU, creates the
 * workers at time 0; the kernel places each (the fork slow path, once per
 * worker). Requests arriving before a worker has started wait in the FIFO. */
static void rr_pool_start(struct rr_run *run)
{
    struct world *w = run->w;
    for (int i = 0; i < run->nworkers; i++) {
        struct task *t = &run->worker[i].task;
        wl_task_spawn_named(w, t, "rr-worker", rr_worker_started, 0, WL_LAUNCH_CPU);
    }
}

/* server = pool: the request's interrupt on irq_cpu wakes a sleeping worker,
 * or the request waits for one. Its work is drawn now, in arrival order, as
 * fork draws it (the size is the request's, whoever serves it). */
static void rr_pool_dispatch(struct world *w, struct rr_run *run, struct rr_req *req, int irq_cpu)
{
    req->service_ns = rr_service_ns(run);
    int32_t i = wl_pool_wake_one(&run->pool);
    if (i != WL_POOL_NONE)
        rr_worker_serve(w, &run->worker[i], req, irq_cpu);
    else
        wl_pool_queue_push(&run->pool, (int32_t)(req - run->req));
    run->waited += i == WL_POOL_NONE && req->arrival_ns >= run->measure_start_ns;
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
     * the NIC's choice, not the scheduler's). server = fork: a new thread
     * is forked there to serve it, and the kernel places it; pool: it wakes
     * a worker from there. */
    run->arrived += req->arrival_ns >= run->measure_start_ns;
    int irq_cpu = (int)sim_rng_below(&w->rng[WORLD_STREAM_IRQ], (uint64_t)w->machine->ncpus);
    if (run->use_pool)
        rr_pool_dispatch(w, run, req, irq_cpu);
    else
        wl_task_spawn_named(w, &req->task, "rr-request", rr_request_done, rr_service_ns(run),
                            irq_cpu);
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
    if (run->use_pool)
        rpt_set_put(out, "pool_wait_pct", "%", RPT_LOWER_BETTER,
                    run->arrived ? 100.0 * (double)run->waited / (double)run->arrived : 0);
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
    sim_lognormal_init(&run.service, cfg->service_us * 1000.0, cfg->service_cv);
    run.req = xcalloc((size_t)cfg->max_inflight, sizeof *run.req);
    for (int64_t i = cfg->max_inflight - 1; i >= 0; i--) {
        run.req[i].next_free = run.free_list;
        run.free_list = &run.req[i];
    }
    run.use_pool = strcmp(cfg->server, "pool") == 0;
    if (run.use_pool) {
        run.nworkers = cfg->threads > 0 ? (int)cfg->threads : w->machine->ncpus;
        run.worker = xcalloc((size_t)run.nworkers, sizeof *run.worker);
        wl_pool_init(&run.pool, run.nworkers, cfg->max_inflight);
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
    if (run.use_pool)
        rr_pool_start(&run);
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
    if (run.use_pool) {
        wl_pool_destroy(&run.pool);
        free(run.worker);
    }
    free(run.req);
    return rc;
}

static int rr_validate(const void *cfgp, char *msg, size_t msgsize)
{
    const struct rr_config *cfg = cfgp;
    bool pool = strcmp(cfg->server, "pool") == 0;
    if (!pool && strcmp(cfg->server, "fork") != 0)
        return snprintf(msg, msgsize, "server = %s: expected fork or pool", cfg->server), -1;
    if (!pool && cfg->threads != 0)
        return snprintf(msg, msgsize, "threads = %lld: only server = pool has worker threads",
                        (long long)cfg->threads), -1;
    return 0;
}

const struct wl_ops wl_rr_ops = {
    .name = "rr",
    .desc = "open-loop request/response server: Poisson arrivals, lognormal service",
    .primary_metric = "lat_p99_us",
    .offered_metric = "offered_rps",
    .served_metric = "throughput_rps",
    .params = rr_params,
    .config_size = sizeof(struct rr_config),
    .validate = rr_validate,
    .nload_points = NULL,
    .run = rr_run_point,
    .combine = NULL,
};
