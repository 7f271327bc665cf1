/* runner: thread pool over a scenario's jobs, see runner.h.
 *
 * Workers take the next job index from an atomic counter; results land in a
 * slot per job. Replications are then combined over load points and summarised
 * per variant in a fixed order, which is what makes the output independent of
 * scheduling.
 *
 * Slots are stored replication-major ((rep, variant, point)), so a batch of
 * added replications is a contiguous tail of job indices: the slot array
 * grows by realloc and a batch is just the range [next, njobs). */
#include "runner/runner.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cpulist.h"
#include "world_devices.h"
#include "util/strutil.h"
#include "util/version.h"
#include "util/xalloc.h"
#include "kernel/kvm/kvm.h"
#include "trace/tracedat_write.h"
#include "world.h"

struct job_slot {
    struct rpt_metric_set metrics;
    uint64_t nevents;
    sim_time_t sim_ns;
    bool failed;
    char msg[256];
};

struct pool {
    const struct scenario *s;
    bool quick;                /* the [quick] configurations */
    uint64_t seed;
    int *vsel;                 /* [nvar] scenario index of each variant run */
    int nvar;
    int reps, npoints;
    int njobs;                 /* reps * nvar * npoints: the end of the current batch */
    struct job_slot *slot;     /* [njobs], replication-major */
    atomic_int next;
    atomic_int done;
    atomic_llong done_wall_ns; /* wall time the finished jobs took, summed */
    bool warned_long;          /* runner_long_run_warning said once */
};

static int job_index(const struct pool *p, int variant, int rep, int point)
{
    return (rep * p->nvar + variant) * p->npoints + point;
}

static void job_decode(const struct pool *p, int j, int *variant, int *rep, int *point)
{
    *point = j % p->npoints;
    *variant = (j / p->npoints) % p->nvar;
    *rep = j / (p->npoints * p->nvar);
}

/* --trace: replication 0 of each variant, first load point, is traced. */
static void job_trace_begin(const struct scenario *s, struct world *w, int rep, int point)
{
    if (!s->trace_dir || rep != 0 || point != 0)
        return;
    w->trace = trace_buf_new(s->machine->ncpus, SIM_TIME_MAX, -1,
                             (size_t)s->trace_max_mib << 20);
    w->trace_window_ns[0] = s->trace_window_ms[0] * SIM_NS_PER_MS;
    w->trace_window_ns[1] = s->trace_window_ms[1] < 0 ? -1 : s->trace_window_ms[1] * SIM_NS_PER_MS;
}

/* The line a written trace gets on stderr: its events by type (what
 * trace-cmd report will count), size and window; and where it stopped if
 * it reached the size limit (that line even with --quiet). */
static void job_trace_report(const struct scenario *s, const struct trace_buf *b, const char *path)
{
    if (b->truncated_ns >= 0)
        fprintf(stderr, "pmlab run: %s: stopped at %.6f s of simulated time, the %lld MiB limit "
                        "(--trace-max-mib, [report] trace_max_mib)\n",
                path, (double)b->truncated_ns / SIM_NS_PER_S, (long long)s->trace_max_mib);
    if (s->trace_quiet)
        return;
    char counts[256];
    size_t at = 0;
    uint64_t all = 0;
    for (int t = 0; t < TRACE_REC_NTYPES; t++) {
        at += (size_t)snprintf(counts + at, sizeof counts - at, "%s%s %llu", t ? ", " : "",
                               trace_rec_name((enum trace_rec_type)t), (unsigned long long)b->nrecs[t]);
        all += b->nrecs[t];
    }
    fprintf(stderr, "pmlab run: trace %s: %llu events (%s), %.1f MiB\n", path,
            (unsigned long long)all, counts, (double)b->bytes / (1 << 20));
}

/* Write the trace as DIR/VARIANT.dat; a truncated one says where it stopped. */
static void job_trace_end(const struct scenario *s, struct world *w, int v, struct job_slot *slot)
{
    if (!w->trace)
        return;
    char *path = xasprintf("%s/%s.dat", s->trace_dir, s->variants[v].name);
    struct diag d = { 0 };
    if (tracedat_write(w->trace, path, &d) != 0) {
        size_t n = strlen(d.msg) < sizeof slot->msg - 1 ? strlen(d.msg) : sizeof slot->msg - 1;
        memcpy(slot->msg, d.msg, n);
        slot->msg[n] = '\0';
        slot->failed = true;
    } else {
        job_trace_report(s, w->trace, path);
    }
    free(path);
    trace_buf_free(w->trace);
    w->trace = NULL;
}

static void job_run(struct pool *p, int j)
{
    int sel, rep, point;
    job_decode(p, j, &sel, &rep, &point);
    int v = p->vsel[sel];
    const struct scenario *s = p->s;
    struct world w;
    struct world_key key = {
        .seed = p->seed, .variant = (uint32_t)v, .replication = (uint32_t)rep,
        .load_point = (uint32_t)point,
    };
    world_init(&w, s->machine, &s->variants[v].kp, &key);
    kvm_create_vms(&w, s->vms, s->nvms);
    world_devices_create(&w, s->devices, s->ndevices);
    w.report_cpus = s->report_cpus;
    w.report_per_cpu = s->report_per_cpu;
    w.interval_ns = (sim_time_t)s->report_interval_ms * SIM_NS_PER_MS;
    w.wl_affinity = s->wl_affinity;
    struct job_slot *slot = &p->slot[j];
    job_trace_begin(s, &w, rep, point);
    if (s->wl->run(&w, scenario_wl_cfg(s, v, p->quick), point, &slot->metrics, slot->msg, sizeof slot->msg) != 0)
        slot->failed = true;
    if (!slot->failed)
        job_trace_end(s, &w, v, slot);
    trace_buf_free(w.trace);
    slot->nevents = w.nevents;
    slot->sim_ns = w.q.now_ns;
    world_destroy(&w);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *pool_worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        int j = atomic_fetch_add(&p->next, 1);
        if (j >= p->njobs)
            return NULL;
        double t = now_s();
        job_run(p, j);
        atomic_fetch_add(&p->done_wall_ns, (long long)((now_s() - t) * 1e9));
        atomic_fetch_add(&p->done, 1);
    }
}

double runner_eta_s(const struct runner_progress *p)
{
    if (p->done <= 0)
        return -1;
    int left = p->total - p->done;
    int threads = p->nthreads < left ? p->nthreads : left;
    if (left <= 0 || threads < 1)
        return 0;
    return p->done_wall_s / p->done * left / threads;
}

/* s seconds as "42 s", "12 min", "3.5 h", "40 days". */
static void runner_duration_text(double s, char *buf, size_t size)
{
    if (s < 120)
        snprintf(buf, size, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, size, "%.0f min", s / 60);
    else if (s < 3 * 86400)
        snprintf(buf, size, "%.1f h", s / 3600);
    else
        snprintf(buf, size, "%.0f days", s / 86400);
}

void runner_progress_line(const struct runner_progress *p, const char *name, char *buf,
                          size_t size)
{
    double eta = runner_eta_s(p);
    char when[32] = "after the first run";
    if (eta >= 0)
        runner_duration_text(eta, when, sizeof when);
    snprintf(buf, size, "%s: %d/%d runs, %.1f s elapsed, ETA %s", name, p->done, p->total,
             p->elapsed_s, when);
}

bool runner_long_run_warning(const struct runner_progress *p, const char *name, char *buf,
                             size_t size)
{
    double eta = runner_eta_s(p);
    if (!(eta > RUNNER_LONG_RUN_S))
        return false;
    char when[32];
    runner_duration_text(eta, when, sizeof when);
    snprintf(buf, size, "pmlab run: warning: %s: at %.3g s a run, the %d runs left will take "
             "about %s more on %d threads; --quick, fewer --reps or a --variant subset is "
             "shorter (Ctrl-C stops: outputs keep their previous contents)", name,
             p->done_wall_s / p->done, p->total - p->done, when, p->nthreads);
    return true;
}

static struct runner_progress pool_progress(const struct pool *p, int nthreads, double t0)
{
    return (struct runner_progress){
        .done = atomic_load(&p->done), .total = p->njobs, .nthreads = nthreads,
        .elapsed_s = now_s() - t0, .done_wall_s = (double)atomic_load(&p->done_wall_ns) / 1e9,
    };
}

/* Wait for the workers, drawing the progress line while they run and
 * saying once when the estimate passes RUNNER_LONG_RUN_S. */
static void pool_wait(struct pool *p, pthread_t *tids, int nthreads, const struct runner_opts *o,
                      double t0)
{
    bool watch = o->progress || o->warn_long;
    while (watch && atomic_load(&p->done) < p->njobs) {
        struct runner_progress pr = pool_progress(p, nthreads, t0);
        char line[512];
        if (o->warn_long && !p->warned_long && runner_long_run_warning(&pr, p->s->name, line,
                                                                       sizeof line)) {
            fprintf(stderr, "%s%s\n", o->progress ? "\r" : "", line);
            p->warned_long = true;
        }
        if (o->progress) {
            runner_progress_line(&pr, p->s->name, line, sizeof line);
            fprintf(stderr, "\r%s   ", line);
        }
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(tids[i], NULL);
    if (o->progress)
        fprintf(stderr, "\r%*s\r", 90, "");
}

/* Grow the pool to reps replications: the new jobs, [old njobs, new njobs),
 * are the next batch. */
static void pool_grow(struct pool *p, int reps)
{
    int first = p->njobs;
    p->reps = reps;
    p->njobs = reps * p->nvar * p->npoints;
    p->slot = xreallocarray(p->slot, (size_t)p->njobs, sizeof *p->slot);
    memset(p->slot + first, 0, (size_t)(p->njobs - first) * sizeof *p->slot);
    atomic_store(&p->next, first);
}

/* Run the pending batch on up to nthreads threads. */
static int pool_run(struct pool *p, int nthreads, const struct runner_opts *o, double t0)
{
    int pending = p->njobs - atomic_load(&p->next);
    if (nthreads > pending)
        nthreads = pending;
    pthread_t *tids = xcalloc((size_t)nthreads, sizeof *tids);
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tids[started], NULL, pool_worker, p) != 0)
            break;
    if (started == 0)
        pool_worker(p); /* no thread could start: run everything here */
    pool_wait(p, tids, started, o, t0);
    free(tids);
    return 0;
}

/* One replication's metrics: the workload combines its load points. */
static void runner_combine(const struct pool *p, int v, int rep, struct rpt_metric_set *out)
{
    const struct job_slot *first = &p->slot[job_index(p, v, rep, 0)];
    if (p->s->wl->combine) {
        struct rpt_metric_set *pts = xcalloc((size_t)p->npoints, sizeof *pts);
        for (int i = 0; i < p->npoints; i++)
            pts[i] = first[i].metrics;
        p->s->wl->combine(scenario_wl_cfg(p->s, p->vsel[v], p->quick), pts, p->npoints, out);
        free(pts);
    } else {
        rpt_set_copy(out, &first[0].metrics);
    }
}

/* The scenario's [measured] values, for the reports to set beside the
 * predictions. */
static void runner_gather_measured(const struct scenario *s, struct rpt_results *r)
{
    if (s->nmeasured == 0)
        return;
    r->measured = xcalloc((size_t)s->nmeasured, sizeof *r->measured);
    r->nmeasured = s->nmeasured;
    for (int i = 0; i < s->nmeasured; i++) {
        snprintf(r->measured[i].metric, sizeof r->measured[i].metric, "%s", s->measured[i].metric);
        r->measured[i].value = s->measured[i].value;
    }
}

/* What the run was (scenario_load's config_text, the --set texts, the
 * binary's commit). */
static void runner_gather_config(const struct scenario *s, struct rpt_results *r)
{
    r->config_text = xstrdup(s->config_text ? s->config_text : "");
    snprintf(r->config_sha256, sizeof r->config_sha256, "%s", s->config_sha256);
    r->nsets = s->nsets;
    r->sets = xcalloc((size_t)s->nsets + 1, sizeof *r->sets);
    for (int i = 0; i < s->nsets; i++)
        r->sets[i] = xstrdup(s->sets[i]);
    r->commit = xstrdup(pmlab_git_commit());
}

static void runner_gather(const struct pool *p, struct rpt_results *r)
{
    const struct scenario *s = p->s;
    r->scenario = xstrdup(s->name);
    r->description = xstrdup(s->description ? s->description : "");
    r->machine = xstrdup(s->machine->name);
    r->machine_desc = xstrdup(s->machine->description);
    r->seed = p->seed;
    r->reps = p->reps;
    r->paired = true; /* common random numbers (world.h) */
    r->cpus = s->report_cpus ? cpulist_format(s->report_cpus, s->machine->ncpus) : NULL;
    runner_gather_config(s, r);
    r->nvariants = p->nvar;
    r->variants = xcalloc((size_t)p->nvar, sizeof *r->variants);
    struct rpt_metric_set *sets = xcalloc((size_t)p->reps, sizeof *sets);
    for (int v = 0; v < p->nvar; v++) {
        const struct scenario_variant *sv = &s->variants[p->vsel[v]];
        struct rpt_variant *rv = &r->variants[v];
        rv->name = xstrdup(sv->name);
        rv->kernel = xstrdup(sv->kernel ? sv->kernel : "");
        rv->patches = xstrdup(sv->patches ? sv->patches : "");
        rv->cmdline = xstrdup(sv->cmdline ? sv->cmdline : "");
        rv->sysfs = xstrdup(sv->sysfs ? sv->sysfs : "");
        rv->config = xstrdup(sv->config ? sv->config : "");
        rv->workload = sv->workload ? xstrdup(sv->workload) : NULL;
        rv->settings = xstrdup(sv->config_text ? sv->config_text : "");
        for (int rep = 0; rep < p->reps; rep++)
            runner_combine(p, v, rep, &sets[rep]);
        rpt_variant_summarize(rv, sets, p->reps);
        for (int rep = 0; rep < p->reps; rep++)
            rpt_set_free(&sets[rep]);
    }
    free(sets);
    if (s->wl->offered_metric && s->wl->served_metric)
        rpt_mark_saturation(r, s->wl->offered_metric, s->wl->served_metric);
    rpt_check_warmup(r);
    r->min_effect = s->min_effect;
    rpt_compare_all(r);
    runner_gather_measured(s, r);
}

/* The first failed job in (variant, replication, load point) order, so the
 * message does not depend on the storage order or on scheduling. */
static int runner_first_failure(const struct pool *p, char *err, size_t errsize)
{
    for (int v = 0; v < p->nvar; v++)
        for (int rep = 0; rep < p->reps; rep++)
            for (int point = 0; point < p->npoints; point++) {
                const struct job_slot *slot = &p->slot[job_index(p, v, rep, point)];
                if (!slot->failed)
                    continue;
                snprintf(err, errsize, "variant %s, replication %d, load point %d: %s",
                         p->s->variants[p->vsel[v]].name, rep, point, slot->msg);
                return -1;
            }
    return 0;
}

double runner_primary_ci_pct(const struct rpt_variant *v, const char *primary)
{
    const struct rpt_metric *m = primary ? rpt_variant_metric(v, primary) : NULL;
    if (!m)
        return 0;
    double half = m->half_width; /* the precision, not the range's cut */
    if (!isfinite(half) || !isfinite(m->mean))
        return INFINITY;
    if (half == 0)
        return 0;
    return m->mean != 0 ? 100.0 * half / fabs(m->mean) : INFINITY;
}

/* r->primary: --primary if given, which the run must report; else the
 * workload's headline, else its first metric. */
static int runner_set_primary(const struct scenario *s, const struct runner_opts *o,
                              struct rpt_results *r, char *err, size_t errsize)
{
    const struct rpt_variant *base = &r->variants[0];
    const char *name = o->primary ? o->primary : s->wl->primary_metric;
    if (o->primary && !rpt_variant_metric(base, o->primary)) {
        snprintf(err, errsize, "--primary: the %s workload reports no metric '%s' (its headline "
                 "is %s)", s->wl->name, o->primary,
                 s->wl->primary_metric ? s->wl->primary_metric : "its first metric");
        return RUNNER_BAD_PRIMARY;
    }
    if (!name || !rpt_variant_metric(base, name))
        name = base->nmetrics ? base->metrics[0].name : NULL;
    r->primary = name ? xstrdup(name) : NULL;
    return 0;
}

/* Replications for the next batch of an adaptive run, or 0 to stop. The CI
 * half-width shrinks about as 1/sqrt(n), so the count that would just meet
 * the target is n * (worst / target)^2; at most doubling keeps one noisy
 * early estimate from overshooting, and at least one more makes progress.
 * The choice depends only on results, never on --jobs or timing. */
static int runner_next_reps(const struct runner_opts *o, const struct rpt_results *r, int reps,
                            int max_reps)
{
    if (o->ci_target_pct <= 0 || reps >= max_reps)
        return 0;
    double worst = 0;
    for (int v = 0; v < r->nvariants; v++) {
        double pct = runner_primary_ci_pct(&r->variants[v], r->primary);
        if (pct > worst)
            worst = pct;
    }
    if (worst < o->ci_target_pct)
        return 0;
    double ratio = worst / o->ci_target_pct;
    double want = ratio < 2 ? ceil(reps * ratio * ratio) : 2.0 * reps;
    int next = want > 2.0 * reps ? 2 * reps : (int)want;
    if (next <= reps)
        next = reps + 1;
    return next < max_reps ? next : max_reps;
}

/* Replications of the first batch, and the most an adaptive run may reach. */
static void runner_rep_bounds(const struct scenario *s, const struct runner_opts *o, int *first,
                              int *max_reps)
{
    *first = o->reps > 0 ? o->reps : o->quick ? s->quick_replications : s->replications;
    *max_reps = *first;
    if (o->ci_target_pct <= 0)
        return;
    *max_reps = o->max_reps > 0 ? o->max_reps : RUNNER_DEFAULT_MAX_REPS;
    if (*first > *max_reps)
        *first = *max_reps;
    if (*first < 2 && *max_reps >= 2)
        *first = 2; /* a CI needs two replications */
}

static void runner_fill_stats(const struct pool *p, double t0, struct runner_stats *stats)
{
    stats->njobs = p->njobs;
    stats->reps = p->reps;
    stats->nevents = 0;
    stats->sim_s = 0;
    for (int j = 0; j < p->njobs; j++) {
        stats->nevents += p->slot[j].nevents;
        stats->sim_s += (double)p->slot[j].sim_ns / SIM_NS_PER_S;
    }
    stats->wall_s = now_s() - t0;
}

int runner_run(const struct scenario *s, const struct runner_opts *o, struct rpt_results *out,
               struct runner_stats *stats, char *err, size_t errsize)
{
    struct pool p = { .s = s };
    p.quick = o->quick;
    p.seed = o->seed_set ? o->seed : s->seed;
    /* Every variant has the same number of load points: a variant's
     * workload keys change how hard it is driven, not how often. */
    p.npoints = s->wl->nload_points ? s->wl->nload_points(scenario_wl_cfg(s, 0, o->quick)) : 1;
    p.nvar = o->variants ? o->nvariants : s->nvariants;
    p.vsel = xcalloc((size_t)p.nvar, sizeof *p.vsel);
    for (int i = 0; i < p.nvar; i++)
        p.vsel[i] = o->variants ? o->variants[i] : i;
    int nthreads = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1)
        nthreads = 1;
    int reps, max_reps;
    runner_rep_bounds(s, o, &reps, &max_reps);
    double t0 = now_s();
    int rc;
    memset(out, 0, sizeof *out);
    for (;;) {
        pool_grow(&p, reps);
        pool_run(&p, nthreads, o, t0);
        rc = runner_first_failure(&p, err, errsize);
        if (rc != 0)
            break;
        runner_gather(&p, out);
        out->quick = o->quick;
        rc = runner_set_primary(s, o, out, err, errsize);
        if (rc != 0) {
            rpt_results_free(out);
            break;
        }
        reps = runner_next_reps(o, out, p.reps, max_reps);
        if (reps == 0)
            break;
        rpt_results_free(out);
    }
    runner_fill_stats(&p, t0, stats);
    for (int j = 0; j < p.njobs; j++)
        rpt_set_free(&p.slot[j].metrics);
    free(p.slot);
    free(p.vsel);
    return rc;
}
