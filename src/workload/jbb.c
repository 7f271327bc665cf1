/* jbb: a SPECjbb2015-like Java business server, with its RT curve and the
 * max-jOPS / critical-jOPS metrics (VALIDATION.md §2).
 *
 * What SPECjbb2015 measures. A controller injects business transactions
 * (purchases, inventory updates, reports) at an injection rate IR, in jOPS =
 * transactions per second, open loop: the injectors do not wait for answers.
 * It first finds the high-bound injection rate (HBIR) the system sustains,
 * then climbs the RT curve: IR = 1 %, 2 %, ... of HBIR, each step with a settle
 * period and a measurement window that records the 99th-percentile response
 * time. A step fails when the system processes fewer transactions than were
 * injected. max-jOPS is the IR of the last passing step before the first
 * failure; critical-jOPS the geometric mean, over the SLAs 10, 25, 50, 75 and
 * 100 ms, of the highest IR whose p99 meets the SLA.
 *
 * What is modelled, and why.
 *
 * 1. A transaction is a chain of `segments` work segments run by a pool of
 *    worker threads (tasks, one per CPU by default). After each segment the
 *    transaction is handed to another worker: to a sleeping one if there is
 *    any (the hand-off wakes it, so an idle CPU's exit latency and the
 *    scheduler's placement are on the critical path of every hop), otherwise
 *    to the pool's FIFO queue, which busy workers drain. Segment work is
 *    lognormal (mean `segment_us` of reference-core work, cv `segment_cv`), so
 *    a thread's speed -- frequency, core type, what its SMT sibling is doing
 *    -- sets the service time. The JVM's main thread (on WL_LAUNCH_CPU)
 *    forks the workers and GC threads and the kernel places them; a request's
 *    network interrupt lands on a CPU RSS picks (uniform) and wakes a worker
 *    from there, a hand-off wakes the next from the finishing worker's CPU. This is the backend of SPECjbb in miniature:
 *    requests fan through thread pools (the real one uses fork/join pools and
 *    several tiers), and the controller's injectors are an arrival process.
 *    Injection is Poisson at rate IR.
 *
 * 2. Response times of 10-100 ms: stop-the-world garbage collection. With
 *    segments of a millisecond, queueing alone would not push p99 past 10 ms
 *    until the machine saturates, and critical-jOPS would equal max-jOPS. On
 *    real machines it is about half (58958 vs 116408 in seed 000), because a
 *    JVM stops every thread for young-generation collections, and the
 *    requests that arrive meanwhile queue and then drain through every hop of
 *    their chain. The model is the generational hypothesis:
 *      - a collection starts after every `gc_every_tx_per_cpu` x CPUs
 *        completed transactions (the eden fills at a rate proportional to the
 *        transaction rate; a tuned heap is sized with the machine);
 *      - at a safepoint every worker finishes its segment and parks; then
 *        `gc_threads` GC threads (default: HotSpot's ParallelGCThreads rule)
 *        share the collection's work in chunks of `gc_chunk_us` (work
 *        stealing), so the pause ends when the work is done at the speed the
 *        machine gives them;
 *      - the work is a fixed part (`gc_fixed_us_per_cpu` x CPUs: roots, card
 *        table, thread stacks) plus `gc_live_us` per live transaction: one
 *        completed less than `gc_live_ms` ago (business data -- receipts,
 *        baskets -- is retained for a while and must be copied out of eden),
 *        or one in flight, by the share of its segments done (it builds its
 *        data as it runs; a request waiting for its first worker holds only
 *        the request).
 *    The live set grows with IR (Little's law), so pauses lengthen as the
 *    load rises. A pause's backlog drains in the CPU time the workers have
 *    to spare; once the machine saturates it does not, the part-done backlog
 *    is live at the next pause, and the step collapses: the RT curve ends
 *    at saturation, as SPECjbb's does, where the processed rate falls short
 *    of the requested one. p99 is close to the longest pauses of a window, so it
 *    climbs through 10 ... 100 ms over the middle of the curve, in windows of
 *    a second or two, which keeps a full RT curve within the speed budget.
 *    The defaults (`segment_us`, GC constants) were chosen to put the
 *    baseline critical-jOPS / max-jOPS ratio of skx-2s near the seed's 0.506;
 *    that ratio, not any per-variant number, is what they were fitted to
 *    (`gc_fixed_us_per_cpu` last, for issue 26: docs/workload-jbb.md,
 *    "Calibration").
 *    Nothing here depends on the kernel variant: differences between variants
 *    come from the machine and kernel models only.
 *
 * 3. HBIR search: from an estimate of the machine's capacity, double the rate
 *    until a probe fails, then bisect `hbir_iters` times; HBIR is the highest
 *    passing probe. Each probe starts from an empty system. With
 *    `preset_hbir_jops` the search is skipped and the curve is built from
 *    that rate, as SPECjbb's FIXED_RT controller (specjbb.controller.preset.ir)
 *    does.
 *
 * 4. RT curve: step k injects at k x `step_pct` % of HBIR for `settle_ms`,
 *    then measures for `measure_ms`. Transactions injected in the window are
 *    tagged; a tagged transaction counts as processed if it completes before
 *    the end of the next step's settle period (so a pause at the window edge
 *    is not mistaken for overload), and its response time (completion -
 *    injection) goes to the step's histogram; one still running then enters
 *    with its age at that moment, a lower bound. A step passes when at least
 *    (100 - `tolerance_pct`) % of its tagged transactions were processed. The
 *    curve stops at the first failing step (or after `max_steps`).
 *
 * Metrics: max_jops, critical_jops (jOPS, higher better), hbir_jops, the
 * per-SLA rates sla<N>_jops, gc_pause_ms_mean and gc_pct over the curve, and
 * the machine and idle metrics of world_collect_metrics from the start of the first
 * measurement window to the end of the curve (settle periods included). The
 * RT curve is the series "rt_curve". An SLA that no passing step meets
 * contributes the lowest step's IR to critical-jOPS (a floor, counted in
 * sla_unmet), so one bad SLA lowers the score instead of zeroing it.
 *
 * Dropped from SPECjbb2015: transaction types and their mix, multiple JVM
 * groups and their inter-JVM traffic, the controller's own load, settling
 * detection (fixed settle time instead), old-generation and full GCs, JIT
 * warm-up, memory bandwidth and NUMA. Everything is one JVM with one heap.
 *
 * Memory is bounded: `max_inflight` transaction slots and a queue of the
 * same size, allocated once; an arrival that finds no free slot is dropped
 * and counts as not processed, which fails its step. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hist.h"
#include "util/xalloc.h"
#include "workload/pool.h"
#include "workload/workload.h"
#include "world.h"
#include "util/container.h"


#define JBB_NSLA 5
#define JBB_LIVE_BUCKETS 16
#define JBB_NO_TX (-1)

static const double jbb_sla_ms[JBB_NSLA] = { 10, 25, 50, 75, 100 };

struct jbb_config {
    int64_t segments;          /* work segments per transaction (hand-offs + 1) */
    double segment_us;         /* mean work of a segment, us on the reference core */
    double segment_cv;         /* lognormal coefficient of variation (0 = constant) */
    int64_t workers;           /* worker threads, 0 = one per CPU */
    double gc_every_tx_per_cpu; /* completed transactions between collections, per CPU */
    double gc_fixed_us_per_cpu; /* fixed work of a collection per CPU, us of reference work */
    double gc_live_us;         /* copy work per live transaction, us */
    double gc_live_ms;         /* how long a completed transaction's data stays live, ms */
    int64_t gc_threads;        /* parallel GC threads, 0 = HotSpot's ParallelGCThreads */
    double gc_chunk_us;        /* unit of GC work a thread takes at a time, us */
    double step_pct;           /* RT-curve step, % of HBIR */
    int64_t max_steps;         /* RT-curve steps at most */
    double settle_ms;          /* settle period of each step, ms */
    double measure_ms;         /* measurement window of each step, ms */
    double hbir_probe_ms;      /* measurement window of an HBIR probe, ms */
    int64_t hbir_iters;        /* bisection iterations of the HBIR search */
    double preset_hbir_jops;   /* HBIR given instead of searched (0 = search), jOPS */
    double tolerance_pct;      /* unprocessed share of a window that still passes, % */
    int64_t max_inflight;      /* transaction slots (pool size) */
};

static const struct wl_param jbb_params[] = {
    { "segments", WL_PARAM_INT, offsetof(struct jbb_config, segments), 1, 64, "4",
      "work segments per transaction; each after the first is a hand-off to another worker" },
    { "segment_us", WL_PARAM_DOUBLE, offsetof(struct jbb_config, segment_us), 1, 1e5, "800",
      "mean work of a segment on the reference core, us" },
    { "segment_cv", WL_PARAM_DOUBLE, offsetof(struct jbb_config, segment_cv), 0, 10, "0.5",
      "coefficient of variation of the lognormal segment work (0 = constant)" },
    { "workers", WL_PARAM_INT, offsetof(struct jbb_config, workers), 0, 1e5, "0",
      "worker threads (0 = one per CPU)" },
    { "gc_every_tx_per_cpu", WL_PARAM_DOUBLE, offsetof(struct jbb_config, gc_every_tx_per_cpu),
      0, 1e7, "54", "completed transactions between young collections, per CPU (eden sized "
      "with the machine; 0 = no GC)" },
    { "gc_fixed_us_per_cpu", WL_PARAM_DOUBLE, offsetof(struct jbb_config, gc_fixed_us_per_cpu),
      0, 1e7, "5600", "fixed work of a collection (roots, card table, stacks) per CPU, us of "
      "reference-core work" },
    { "gc_live_us", WL_PARAM_DOUBLE, offsetof(struct jbb_config, gc_live_us), 0, 1e6, "2000",
      "copy work per live transaction, us of reference-core work" },
    { "gc_live_ms", WL_PARAM_DOUBLE, offsetof(struct jbb_config, gc_live_ms), 0, 1e5, "100",
      "how long a completed transaction's data stays live, ms" },
    { "gc_threads", WL_PARAM_INT, offsetof(struct jbb_config, gc_threads), 0, 4096, "0",
      "parallel GC threads (0 = HotSpot ParallelGCThreads: n <= 8 ? n : 8 + (n-8)*5/8)" },
    { "gc_chunk_us", WL_PARAM_DOUBLE, offsetof(struct jbb_config, gc_chunk_us), 10, 1e6, "2000",
      "GC work a thread takes at a time (work-stealing unit), us" },
    { "step_pct", WL_PARAM_DOUBLE, offsetof(struct jbb_config, step_pct), 0.1, 50, "1",
      "RT-curve step, % of HBIR" },
    { "max_steps", WL_PARAM_INT, offsetof(struct jbb_config, max_steps), 1, 10000, "200",
      "RT-curve steps at most (the curve normally ends at its first failure)" },
    { "settle_ms", WL_PARAM_DOUBLE, offsetof(struct jbb_config, settle_ms), 1, 1e6, "1000",
      "settle period of each step, ms (also the grace a window's transactions get)" },
    { "measure_ms", WL_PARAM_DOUBLE, offsetof(struct jbb_config, measure_ms), 1, 1e7, "1500",
      "measurement window of each RT-curve step, ms" },
    { "hbir_probe_ms", WL_PARAM_DOUBLE, offsetof(struct jbb_config, hbir_probe_ms), 1, 1e7,
      "1500", "measurement window of an HBIR probe, ms" },
    { "hbir_iters", WL_PARAM_INT, offsetof(struct jbb_config, hbir_iters), 0, 30, "5",
      "bisection iterations of the HBIR search" },
    { "preset_hbir_jops", WL_PARAM_DOUBLE, offsetof(struct jbb_config, preset_hbir_jops), 0,
      1e9, "0", "HBIR to build the RT curve from, skipping the search (SPECjbb's FIXED_RT "
      "controller with specjbb.controller.preset.ir); 0 = search for it" },
    { "tolerance_pct", WL_PARAM_DOUBLE, offsetof(struct jbb_config, tolerance_pct), 0, 50, "1",
      "share of a window's transactions that may go unprocessed in a passing step, %" },
    { "max_inflight", WL_PARAM_INT, offsetof(struct jbb_config, max_inflight), 16, 1e7, "65536",
      "transaction slots; an arrival finding none is dropped (not processed)" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

/* ---- The metrics of an RT curve (pure; exported for tests/test_jbb.c) ---- */

struct jbb_step {
    double ir_jops;          /* requested injection rate */
    double processed_jops;   /* tagged transactions processed / window */
    double p50_ms, p90_ms, p99_ms;
    int pass;
};

struct jbb_score {
    double max_jops, critical_jops;
    double sla_jops[JBB_NSLA];   /* highest passing IR meeting each SLA (or the floor) */
    int sla_unmet;               /* SLAs no passing step met */
    int npass;                   /* passing steps before the first failure */
};

bool jbb_step_pass(int64_t injected, int64_t processed, double tolerance_pct);
void jbb_score_curve(const struct jbb_step *steps, int n, struct jbb_score *out);

/* Whether a window with `injected` tagged transactions, of which `processed`
 * completed in time, passes: processed >= (1 - tolerance) x injected. A
 * window with nothing injected passes (there was nothing to fall short of). */
bool jbb_step_pass(int64_t injected, int64_t processed, double tolerance_pct)
{
    return (double)processed >= (1.0 - tolerance_pct / 100.0) * (double)injected;
}

/* Score steps[n] (in curve order). max-jOPS is the IR of the last passing
 * step before the first failure (0 if the first step fails). For each SLA,
 * the highest IR among those passing steps whose p99 meets it; an SLA none
 * meets takes the first step's IR as a floor (and counts in sla_unmet).
 * critical-jOPS is the geometric mean of the five (0 if no step passes). */
void jbb_score_curve(const struct jbb_step *steps, int n, struct jbb_score *out)
{
    memset(out, 0, sizeof *out);
    while (out->npass < n && steps[out->npass].pass)
        out->npass++;
    if (out->npass == 0)
        return;
    out->max_jops = steps[out->npass - 1].ir_jops;
    double log_sum = 0;
    for (int s = 0; s < JBB_NSLA; s++) {
        double best = 0;
        for (int i = 0; i < out->npass; i++)
            if (steps[i].p99_ms <= jbb_sla_ms[s] && steps[i].ir_jops > best)
                best = steps[i].ir_jops;
        if (best == 0) {
            best = steps[0].ir_jops;
            out->sla_unmet++;
        }
        out->sla_jops[s] = best;
        log_sum += log(best);
    }
    out->critical_jops = exp(log_sum / JBB_NSLA);
}

/* ---- Run state ---- */

struct jbb_tx {
    sim_time_t inject_ns;
    int32_t next_free;       /* free-list link, JBB_NO_TX at the end */
    int16_t segs_done;
    bool active;
    bool tagged;             /* injected in the open measurement window */
};

struct jbb_worker {
    struct task task;
    int32_t tx;              /* transaction whose segment it runs, JBB_NO_TX if parked */
};

struct jbb_gc_thread {
    struct task task;
};

enum jbb_gc_phase { JBB_GC_OFF, JBB_GC_SAFEPOINT, JBB_GC_RUNNING };

struct jbb_gc {
    enum jbb_gc_phase phase;
    struct jbb_gc_thread *thr;      /* [nthreads] */
    int nthreads, active;
    int64_t every_tx;               /* completions between collections (0 = none) */
    double fixed_ns;                /* fixed work of a collection, reference ns */
    int64_t since_tx;               /* completions since the last collection */
    int64_t chunks_left;
    double chunk_ns;
    sim_time_t start_ns;
    /* Completions per bucket of gc_live_ms / JBB_LIVE_BUCKETS, for the live set. */
    int64_t live_count[JBB_LIVE_BUCKETS];
    int64_t live_epoch[JBB_LIVE_BUCKETS];
    sim_time_t live_bucket_ns;
    /* Totals since the start of the RT curve's measurement. */
    uint64_t npauses;
    sim_time_t pause_ns;
};

/* The open (or pending) measurement window. */
struct jbb_window {
    int64_t injected, processed;
    struct sim_hist *rt;            /* response times of tagged transactions */
};

struct jbb_run {
    struct world *w;
    const struct jbb_config *cfg;
    struct jbb_tx *tx;              /* [max_inflight] */
    double *seg_ns;                 /* [max_inflight][segments]: each slot's segment work,
                                     * ns on the reference core, drawn at its arrival */
    int32_t tx_free;
    int64_t inflight;
    int64_t inflight_segs_done;     /* segments done, over the transactions in flight */
    struct wl_pool pool;            /* parked workers, transactions waiting for one */
    struct jbb_worker *worker;      /* [nworkers] */
    int nworkers, nbusy;
    int nstarted;                   /* threads that ran their start (jbb_start_threads) */
    double ir_jops;                 /* current injection rate, 0 = stopped */
    struct sim_lognormal segment;   /* segment work, ns (segment_us, segment_cv) */
    bool tagging;
    struct sim_event arrival_ev;
    struct jbb_gc gc;
    struct jbb_window win;
    struct jbb_step *steps;
    int nsteps;
};

/* ---- Transactions and the worker pool ---- */

static struct jbb_tx *jbb_tx_alloc(struct jbb_run *run)
{
    int32_t i = run->tx_free;
    if (i == JBB_NO_TX)
        return NULL;
    struct jbb_tx *t = &run->tx[i];
    run->tx_free = t->next_free;
    t->active = true;
    t->segs_done = 0;
    run->inflight++;
    return t;
}

static void jbb_tx_release(struct jbb_run *run, struct jbb_tx *t)
{
    run->inflight_segs_done -= t->segs_done;
    t->active = false;
    t->tagged = false;
    t->next_free = run->tx_free;
    run->tx_free = (int32_t)(t - run->tx);
    run->inflight--;
}

/* Common random numbers that pair (Law & Kelton 11.2: synchronise the
 * streams): a transaction's segment works are drawn when it arrives, all
 * of them, in arrival order, so the k-th transaction of replication r has
 * the same work in every variant whatever order the workers then take the
 * segments in. A transaction that finds no free slot (dropped) still
 * consumes its draws, so the ones after it keep their pairing. */
static void jbb_draw_segments(struct jbb_run *run, int32_t tx)
{
    struct sim_rng *rng = &run->w->rng[WORLD_STREAM_SERVICE];
    int64_t n = run->cfg->segments;
    for (int64_t k = 0; k < n; k++) {
        double ns = sim_rng_lognormal(rng, &run->segment);
        if (tx != JBB_NO_TX)
            run->seg_ns[(int64_t)tx * n + k] = ns;
    }
}

/* Start worker wk (asleep) on the next segment of transaction tx, woken
 * from waker_cpu. */
static void jbb_worker_start(struct jbb_run *run, struct jbb_worker *wk, int32_t tx, int waker_cpu)
{
    wk->tx = tx;
    run->nbusy++;
    double work_ns = run->seg_ns[(int64_t)tx * run->cfg->segments + run->tx[tx].segs_done];
    sched_wake_task(run->w, &wk->task, work_ns, waker_cpu);
}

/* Give transaction tx's next segment to a parked worker, or queue it. While a
 * collection is pending or running, everything queues. */
static void jbb_dispatch(struct jbb_run *run, int32_t tx, int waker_cpu)
{
    int32_t i = run->gc.phase == JBB_GC_OFF ? wl_pool_wake_one(&run->pool) : WL_POOL_NONE;
    if (i != WL_POOL_NONE)
        jbb_worker_start(run, &run->worker[i], tx, waker_cpu);
    else
        wl_pool_queue_push(&run->pool, tx);
}

static void jbb_worker_park(struct jbb_run *run, struct jbb_worker *wk)
{
    wk->tx = JBB_NO_TX;
    wl_pool_sleep(&run->pool, (int32_t)(wk - run->worker));
}

/* Wake parked workers for queued transactions (after a collection). */
static void jbb_workers_resume(struct jbb_run *run, int waker_cpu)
{
    while (run->pool.nsleeping > 0 && run->pool.q_len > 0) {
        struct jbb_worker *wk = &run->worker[wl_pool_wake_one(&run->pool)];
        jbb_worker_start(run, wk, wl_pool_queue_pop(&run->pool), waker_cpu);
    }
}

/* ---- Garbage collection ---- */

static void jbb_gc_begin(struct jbb_run *run, int waker_cpu);

/* Transactions whose data is live now, in transactions' worth of data: one
 * completed within gc_live_ms (bucketed to gc_live_ms / JBB_LIVE_BUCKETS)
 * counts whole; one in flight counts by the share of its segments done,
 * since a transaction allocates its data as it runs: a request still
 * waiting for its first worker holds only the request (a few objects, taken
 * as nothing), not the baskets and receipts its segments will build. */
static double jbb_live_tx(const struct jbb_run *run, sim_time_t now_ns)
{
    const struct jbb_gc *gc = &run->gc;
    double live = (double)run->inflight_segs_done / (double)run->cfg->segments;
    if (gc->live_bucket_ns <= 0)
        return live;
    int64_t epoch = now_ns / gc->live_bucket_ns;
    for (int b = 0; b < JBB_LIVE_BUCKETS; b++)
        if (epoch - gc->live_epoch[b] < JBB_LIVE_BUCKETS)
            live += (double)gc->live_count[b];
    return live;
}

static void jbb_live_note_completion(struct jbb_run *run, sim_time_t now_ns)
{
    struct jbb_gc *gc = &run->gc;
    if (gc->live_bucket_ns <= 0)
        return;
    int64_t epoch = now_ns / gc->live_bucket_ns;
    int b = (int)(epoch % JBB_LIVE_BUCKETS);
    if (gc->live_epoch[b] != epoch) {
        gc->live_epoch[b] = epoch;
        gc->live_count[b] = 0;
    }
    gc->live_count[b]++;
}

/* A transaction completed: count it towards the next collection. */
static void jbb_gc_note_completion(struct jbb_run *run)
{
    struct jbb_gc *gc = &run->gc;
    jbb_live_note_completion(run, run->w->q.now_ns);
    if (gc->every_tx <= 0 || gc->phase != JBB_GC_OFF)
        return;
    if (++gc->since_tx < gc->every_tx)
        return;
    gc->since_tx = 0;
    gc->phase = JBB_GC_SAFEPOINT;
    gc->start_ns = run->w->q.now_ns;
}

/* The safepoint is reached when no worker runs a segment. */
static void jbb_gc_check_safepoint(struct jbb_run *run, int waker_cpu)
{
    if (run->gc.phase == JBB_GC_SAFEPOINT && run->nbusy == 0)
        jbb_gc_begin(run, waker_cpu);
}

static void jbb_gc_thread_done(struct world *w, struct task *t)
{
    struct jbb_run *run = w->wl_state;
    struct jbb_gc *gc = &run->gc;
    if (gc->chunks_left > 0) {
        gc->chunks_left--;
        sched_wake_task(w, t, gc->chunk_ns, t->prev_cpu);
        return;
    }
    if (--gc->active > 0)
        return;
    gc->phase = JBB_GC_OFF;
    gc->npauses++;
    gc->pause_ns += w->q.now_ns - gc->start_ns;
    jbb_workers_resume(run, t->prev_cpu);
}

/* Every worker is parked: size the collection by the live set and start the
 * GC threads, each taking chunks until the work is gone. */
static void jbb_gc_begin(struct jbb_run *run, int waker_cpu)
{
    struct jbb_gc *gc = &run->gc;
    const struct jbb_config *cfg = run->cfg;
    double work_ns = gc->fixed_ns +
                     cfg->gc_live_us * 1e3 * jbb_live_tx(run, run->w->q.now_ns);
    int64_t chunks = (int64_t)ceil(work_ns / gc->chunk_ns);
    if (chunks < 1) {
        gc->phase = JBB_GC_OFF;
        jbb_workers_resume(run, waker_cpu);
        return;
    }
    gc->phase = JBB_GC_RUNNING;
    gc->active = chunks < gc->nthreads ? (int)chunks : gc->nthreads;
    gc->chunks_left = chunks - gc->active;
    for (int i = 0; i < gc->active; i++)
        sched_wake_task(run->w, &gc->thr[i].task, gc->chunk_ns, waker_cpu);
}

/* ---- Transactions: completion, hand-off, injection ---- */

static void jbb_tx_complete(struct jbb_run *run, struct jbb_tx *t)
{
    if (t->tagged) {
        run->win.processed++;
        sim_hist_add(run->win.rt, run->w->q.now_ns - t->inject_ns);
    }
    jbb_tx_release(run, t);
    jbb_gc_note_completion(run);
}

/* Worker segment done: hand the transaction on (or complete it), then take
 * queued work, or park. */
static void jbb_worker_done(struct world *w, struct task *task)
{
    struct jbb_run *run = w->wl_state;
    struct jbb_worker *wk = container_of(task, struct jbb_worker, task);
    struct jbb_tx *t = &run->tx[wk->tx];
    run->nbusy--;
    t->segs_done++;
    run->inflight_segs_done++;
    if (t->segs_done >= run->cfg->segments)
        jbb_tx_complete(run, t);
    else
        jbb_dispatch(run, wk->tx, task->prev_cpu);
    if (run->gc.phase == JBB_GC_OFF && run->pool.q_len > 0) {
        jbb_worker_start(run, wk, wl_pool_queue_pop(&run->pool), task->prev_cpu);
        return;
    }
    jbb_worker_park(run, wk);
    jbb_gc_check_safepoint(run, task->prev_cpu);
}

static void jbb_schedule_arrival(struct jbb_run *run)
{
    struct world *w = run->w;
    double gap_ns = sim_rng_exp(&w->rng[WORLD_STREAM_ARRIVAL], 1e9 / run->ir_jops);
    sim_event_reschedule(&w->q, &run->arrival_ev, w->q.now_ns + 1 + (sim_time_t)gap_ns);
}

static void jbb_arrival(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct jbb_run *run = container_of(ev, struct jbb_run, arrival_ev);
    struct jbb_tx *t = jbb_tx_alloc(run);
    jbb_draw_segments(run, t ? (int32_t)(t - run->tx) : JBB_NO_TX);
    if (run->tagging)
        run->win.injected++;
    if (t) {
        t->inject_ns = w->q.now_ns;
        t->tagged = run->tagging;
        /* The request arrives by network: its interrupt lands on a CPU
         * RSS chose (uniform over CPUs), which wakes the worker. */
        int irq_cpu = (int)sim_rng_below(&w->rng[WORLD_STREAM_IRQ],
                                         (uint64_t)w->machine->ncpus);
        jbb_dispatch(run, (int32_t)(t - run->tx), irq_cpu);
    }
    jbb_schedule_arrival(run);
}

/* Set the injection rate (0 stops injection). Poisson arrivals are
 * memoryless, so the next arrival is simply redrawn at the new rate. */
static void jbb_set_rate(struct jbb_run *run, double ir_jops)
{
    run->ir_jops = ir_jops;
    if (ir_jops > 0)
        jbb_schedule_arrival(run);
    else
        sim_event_cancel(&run->w->q, &run->arrival_ev);
}

/* ---- Measurement windows ---- */

static void jbb_run_for(struct jbb_run *run, double ms)
{
    world_run_until(run->w, run->w->q.now_ns + (sim_time_t)(ms * SIM_NS_PER_MS));
}

static void jbb_window_open(struct jbb_run *run)
{
    run->win.injected = run->win.processed = 0;
    sim_hist_init(run->win.rt);
    run->tagging = true;
}

/* Close the books of the pending window into st: tagged transactions still
 * running enter the histogram with their age (a lower bound) and are
 * untagged. */
static void jbb_window_finalize(struct jbb_run *run, double ir_jops, double window_ms,
                                struct jbb_step *st)
{
    sim_time_t now = run->w->q.now_ns;
    for (int64_t i = 0; i < run->cfg->max_inflight; i++) {
        struct jbb_tx *t = &run->tx[i];
        if (t->active && t->tagged) {
            sim_hist_add(run->win.rt, now - t->inject_ns);
            t->tagged = false;
        }
    }
    const struct sim_hist *h = run->win.rt;
    st->ir_jops = ir_jops;
    st->processed_jops = (double)run->win.processed / (window_ms / 1000.0);
    st->p50_ms = sim_hist_percentile(h, 50) / 1e6;
    st->p90_ms = sim_hist_percentile(h, 90) / 1e6;
    st->p99_ms = sim_hist_percentile(h, 99) / 1e6;
    st->pass = jbb_step_pass(run->win.injected, run->win.processed, run->cfg->tolerance_pct);
}

/* Stop injecting and run until the system is empty and no collection is
 * under way (bounded: an overloaded probe's backlog drains at capacity). */
static void jbb_drain(struct jbb_run *run)
{
    jbb_set_rate(run, 0);
    for (int i = 0; i < 100000 && (run->inflight > 0 || run->gc.phase != JBB_GC_OFF); i++)
        jbb_run_for(run, 10);
}

/* One HBIR probe at ir_jops from an empty system: settle, window, grace. */
static bool jbb_probe(struct jbb_run *run, double ir_jops)
{
    const struct jbb_config *cfg = run->cfg;
    struct jbb_step st;
    jbb_set_rate(run, ir_jops);
    jbb_run_for(run, cfg->settle_ms);
    jbb_window_open(run);
    jbb_run_for(run, cfg->hbir_probe_ms);
    run->tagging = false;
    jbb_run_for(run, cfg->settle_ms);
    jbb_window_finalize(run, ir_jops, cfg->hbir_probe_ms, &st);
    jbb_drain(run);
    return st.pass;
}

/* A first guess of the capacity: every CPU busy at the reference speed with
 * SMT halving nothing; only the starting point of the doubling. */
static double jbb_capacity_guess(const struct jbb_run *run)
{
    double tx_ns = (double)run->cfg->segments * run->cfg->segment_us * 1000.0;
    return 0.5 * (double)run->w->machine->ncpus * 1e9 / tx_ns;
}

/* HBIR: double until a probe fails (halve until one passes if the first
 * fails), then bisect. Returns the highest passing rate (0 if none). */
static double jbb_hbir_search(struct jbb_run *run)
{
    double lo = 0, hi = jbb_capacity_guess(run);
    for (int i = 0; i < 20; i++) {
        if (!jbb_probe(run, hi))
            break;
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; lo == 0 && i < 20; i++) {
        hi /= 2;
        if (jbb_probe(run, hi))
            lo = hi, hi *= 2;
    }
    if (lo == 0)
        return 0;
    for (int64_t i = 0; i < run->cfg->hbir_iters; i++) {
        double mid = 0.5 * (lo + hi);
        if (jbb_probe(run, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The RT curve: steps of step_pct of HBIR, each settle then window. A
 * window's grace is the next step's settle period, after which the window is
 * finalized; the curve stops at the first failing step. The machine metrics
 * are reset at the start of the first window. */
static void jbb_rt_curve(struct jbb_run *run, double hbir_jops)
{
    const struct jbb_config *cfg = run->cfg;
    run->steps = xcalloc((size_t)cfg->max_steps, sizeof *run->steps);
    double prev_ir = 0;
    for (int64_t k = 1; k <= cfg->max_steps; k++) {
        double ir = hbir_jops * cfg->step_pct / 100.0 * (double)k;
        jbb_set_rate(run, ir);
        jbb_run_for(run, cfg->settle_ms);
        if (k > 1) {
            struct jbb_step *st = &run->steps[run->nsteps++];
            jbb_window_finalize(run, prev_ir, cfg->measure_ms, st);
            if (!st->pass)
                return;
        } else {
            world_measure_reset(run->w);
            run->gc.npauses = 0;
            run->gc.pause_ns = 0;
        }
        jbb_window_open(run);
        jbb_run_for(run, cfg->measure_ms);
        run->tagging = false;
        prev_ir = ir;
    }
    jbb_run_for(run, cfg->settle_ms);
    jbb_window_finalize(run, prev_ir, cfg->measure_ms, &run->steps[run->nsteps++]);
}

/* ---- Set-up, metrics, teardown ---- */

/* A new JVM thread ran its (empty) start and parks: from now on it runs the
 * pool's or the collector's work. */
static void jbb_worker_started(struct world *w, struct task *t)
{
    struct jbb_run *run = w->wl_state;
    t->done = jbb_worker_done;
    run->nstarted++;
}

static void jbb_gc_thread_started(struct world *w, struct task *t)
{
    struct jbb_run *run = w->wl_state;
    t->done = jbb_gc_thread_done;
    run->nstarted++;
}

/* The JVM's main thread (started from WL_LAUNCH_CPU) creates the workers,
 * then the GC threads; the kernel places each (the fork slow path) and each
 * parks at once. The run starts once all have. */
static void jbb_start_threads(struct jbb_run *run)
{
    struct world *w = run->w;
    for (int i = 0; i < run->nworkers; i++) {
        struct task *t = &run->worker[i].task;
        wl_task_spawn(w, t, jbb_worker_started, 0, WL_LAUNCH_CPU);
    }
    for (int i = 0; i < run->gc.nthreads; i++) {
        struct task *t = &run->gc.thr[i].task;
        wl_task_spawn(w, t, jbb_gc_thread_started, 0, WL_LAUNCH_CPU);
    }
    while (run->nstarted < run->nworkers + run->gc.nthreads)
        world_run_until(w, w->q.now_ns + SIM_NS_PER_MS);
}

/* HotSpot's default ParallelGCThreads for n CPUs. */
static int jbb_default_gc_threads(int ncpus)
{
    return ncpus <= 8 ? ncpus : 8 + (ncpus - 8) * 5 / 8;
}

static void jbb_setup(struct jbb_run *run, struct world *w, const struct jbb_config *cfg)
{
    memset(run, 0, sizeof *run);
    run->w = w;
    run->cfg = cfg;
    sim_lognormal_init(&run->segment, cfg->segment_us * 1000.0, cfg->segment_cv);
    int ncpus = w->machine->ncpus;
    run->tx = xcalloc((size_t)cfg->max_inflight, sizeof *run->tx);
    run->seg_ns = xcalloc((size_t)(cfg->max_inflight * cfg->segments), sizeof *run->seg_ns);
    run->tx_free = JBB_NO_TX;
    for (int64_t i = cfg->max_inflight - 1; i >= 0; i--) {
        run->tx[i].next_free = run->tx_free;
        run->tx_free = (int32_t)i;
    }
    run->nworkers = cfg->workers > 0 ? (int)cfg->workers : ncpus;
    run->worker = xcalloc((size_t)run->nworkers, sizeof *run->worker);
    wl_pool_init(&run->pool, run->nworkers, cfg->max_inflight);
    /* Parked in reverse so that worker 0 is woken first. */
    for (int i = run->nworkers - 1; i >= 0; i--)
        jbb_worker_park(run, &run->worker[i]);
    struct jbb_gc *gc = &run->gc;
    gc->nthreads = cfg->gc_threads > 0 ? (int)cfg->gc_threads : jbb_default_gc_threads(ncpus);
    gc->thr = xcalloc((size_t)gc->nthreads, sizeof *gc->thr);
    gc->every_tx = llround(cfg->gc_every_tx_per_cpu * ncpus);
    gc->fixed_ns = cfg->gc_fixed_us_per_cpu * 1000.0 * ncpus;
    gc->chunk_ns = cfg->gc_chunk_us * 1000.0;
    gc->live_bucket_ns = (sim_time_t)(cfg->gc_live_ms * SIM_NS_PER_MS / JBB_LIVE_BUCKETS);
    for (int b = 0; b < JBB_LIVE_BUCKETS; b++)
        gc->live_epoch[b] = INT64_MIN / 2;
    run->win.rt = xmalloc(sizeof *run->win.rt);
    sim_hist_init(run->win.rt);
    sim_event_init(&run->arrival_ev, jbb_arrival);
    w->wl_state = run;
    jbb_start_threads(run);
}

static void jbb_teardown(struct jbb_run *run)
{
    run->w->wl_state = NULL;
    free(run->win.rt);
    free(run->gc.thr);
    wl_pool_destroy(&run->pool);
    free(run->worker);
    free(run->tx);
    free(run->seg_ns);
    free(run->steps);
}

static void jbb_put_curve(const struct jbb_run *run, struct rpt_metric_set *out)
{
    static const char *const cols[] = { "ir_jops", "processed_jops", "p50_ms", "p90_ms",
                                        "p99_ms", "pass" };
    for (int i = 0; i < run->nsteps; i++) {
        const struct jbb_step *s = &run->steps[i];
        double row[] = { s->ir_jops, s->processed_jops, s->p50_ms, s->p90_ms, s->p99_ms,
                         s->pass };
        rpt_set_series_row(out, "rt_curve", cols, 6, row);
    }
}

static void jbb_collect(struct jbb_run *run, double hbir_jops, struct rpt_metric_set *out)
{
    struct jbb_score sc;
    jbb_score_curve(run->steps, run->nsteps, &sc);
    rpt_set_put(out, "max_jops", "jOPS", RPT_HIGHER_BETTER, sc.max_jops);
    rpt_set_put(out, "critical_jops", "jOPS", RPT_HIGHER_BETTER, sc.critical_jops);
    rpt_set_put(out, "hbir_jops", "jOPS", RPT_NEUTRAL, hbir_jops);
    for (int s = 0; s < JBB_NSLA; s++) {
        char name[RPT_NAME_MAX];
        snprintf(name, sizeof name, "sla%d_jops", (int)jbb_sla_ms[s]);
        rpt_set_put(out, name, "jOPS", RPT_HIGHER_BETTER, sc.sla_jops[s]);
    }
    rpt_set_put(out, "sla_unmet", "", RPT_LOWER_BETTER, sc.sla_unmet);
    const struct jbb_gc *gc = &run->gc;
    double span_ns = (double)(run->w->q.now_ns - run->w->hw.measure_start_ns);
    rpt_set_put(out, "gc_pause_ms_mean", "ms", RPT_LOWER_BETTER,
                gc->npauses ? (double)gc->pause_ns / (double)gc->npauses / 1e6 : 0);
    rpt_set_put(out, "gc_pct", "%", RPT_LOWER_BETTER,
                span_ns > 0 ? 100.0 * (double)gc->pause_ns / span_ns : 0);
    world_collect_metrics(run->w, out);
    jbb_put_curve(run, out);
}

static int jbb_validate(const void *cfgp, char *msg, size_t msgsize)
{
    const struct jbb_config *cfg = cfgp;
    if (cfg->max_inflight > INT32_MAX)
        return snprintf(msg, msgsize, "max_inflight must fit in 32 bits"), -1;
    return 0;
}

static int jbb_run_job(struct world *w, const void *cfgp, int load_point,
                       struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point;
    const struct jbb_config *cfg = cfgp;
    struct jbb_run run;
    jbb_setup(&run, w, cfg);
    double hbir = cfg->preset_hbir_jops > 0 ? cfg->preset_hbir_jops : jbb_hbir_search(&run);
    int rc = 0;
    if (hbir <= 0) {
        snprintf(msg, msgsize, "jbb: no injection rate passed the HBIR search (the machine "
                 "cannot sustain even the lowest probe)");
        rc = -1;
    } else {
        jbb_rt_curve(&run, hbir);
        jbb_collect(&run, hbir, out);
    }
    jbb_teardown(&run);
    return rc;
}

const struct wl_ops wl_jbb_ops = {
    .name = "jbb",
    .desc = "SPECjbb2015-like: HBIR search, RT curve, max-jOPS and critical-jOPS",
    .primary_metric = "critical_jops",
    .params = jbb_params,
    .config_size = sizeof(struct jbb_config),
    .validate = jbb_validate,
    .nload_points = NULL,
    .run = jbb_run_job,
    .combine = NULL,
};
