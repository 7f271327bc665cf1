/* runner: thread pool over a scenario's jobs, see runner.h.
 *
 * Workers take the next job index from an atomic counter; results land in a
 * slot per job. Replications are then combined over load points and summarised
 * per variant in a fixed order, which is what makes the output independent of
 * scheduling. */
#include "runner/runner.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/strutil.h"
#include "util/xalloc.h"
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
    const void *wl_cfg;
    uint64_t seed;
    int *vsel;                 /* [nvar] scenario index of each variant run */
    int nvar;
    int reps, npoints, njobs;
    struct job_slot *slot;
    atomic_int next;
    atomic_int done;
};

static void job_decode(const struct pool *p, int j, int *variant, int *rep, int *point)
{
    *point = j % p->npoints;
    *rep = (j / p->npoints) % p->reps;
    *variant = j / (p->npoints * p->reps);
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
    struct job_slot *slot = &p->slot[j];
    if (s->wl->run(&w, p->wl_cfg, point, &slot->metrics, slot->msg, sizeof slot->msg) != 0)
        slot->failed = true;
    slot->nevents = w.nevents;
    slot->sim_ns = w.q.now_ns;
    world_destroy(&w);
}

static void *pool_worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        int j = atomic_fetch_add(&p->next, 1);
        if (j >= p->njobs)
            return NULL;
        job_run(p, j);
        atomic_fetch_add(&p->done, 1);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait for the workers, drawing the progress line while they run. */
static void pool_wait(struct pool *p, pthread_t *tids, int nthreads, bool progress, double t0)
{
    while (progress && atomic_load(&p->done) < p->njobs) {
        int done = atomic_load(&p->done);
        double el = now_s() - t0;
        double eta = done > 0 ? el * (p->njobs - done) / done : 0;
        fprintf(stderr, "\r%s: %d/%d runs, %.1f s elapsed, ETA %.0f s   ", p->s->name, done,
                p->njobs, el, eta);
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(tids[i], NULL);
    if (progress)
        fprintf(stderr, "\r%*s\r", 70, "");
}

static int pool_run(struct pool *p, int nthreads, bool progress)
{
    double t0 = now_s();
    if (nthreads > p->njobs)
        nthreads = p->njobs;
    pthread_t *tids = xcalloc((size_t)nthreads, sizeof *tids);
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tids[started], NULL, pool_worker, p) != 0)
            break;
    if (started == 0)
        pool_worker(p); /* no thread could start: run everything here */
    pool_wait(p, tids, started, progress, t0);
    free(tids);
    return 0;
}

/* One replication's metrics: the workload combines its load points. */
static void runner_combine(const struct pool *p, int v, int rep, struct rpt_metric_set *out)
{
    const struct job_slot *first = &p->slot[(v * p->reps + rep) * p->npoints];
    if (p->s->wl->combine) {
        struct rpt_metric_set *pts = xcalloc((size_t)p->npoints, sizeof *pts);
        for (int i = 0; i < p->npoints; i++)
            pts[i] = first[i].metrics;
        p->s->wl->combine(p->wl_cfg, pts, p->npoints, out);
        free(pts);
    } else {
        rpt_set_copy(out, &first[0].metrics);
    }
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
        for (int rep = 0; rep < p->reps; rep++)
            runner_combine(p, v, rep, &sets[rep]);
        rpt_variant_summarize(rv, sets, p->reps);
        for (int rep = 0; rep < p->reps; rep++)
            rpt_set_free(&sets[rep]);
    }
    free(sets);
    rpt_compare_all(r);
}

static int runner_first_failure(const struct pool *p, char *err, size_t errsize)
{
    for (int j = 0; j < p->njobs; j++) {
        if (!p->slot[j].failed)
            continue;
        int v, rep, point;
        job_decode(p, j, &v, &rep, &point);
        snprintf(err, errsize, "variant %s, replication %d, load point %d: %s",
                 p->s->variants[p->vsel[v]].name, rep, point, p->slot[j].msg);
        return -1;
    }
    return 0;
}

int runner_run(const struct scenario *s, const struct runner_opts *o, struct rpt_results *out,
               struct runner_stats *stats, char *err, size_t errsize)
{
    struct pool p = { .s = s };
    p.wl_cfg = o->quick ? s->wl_cfg_quick : s->wl_cfg;
    p.seed = o->seed_set ? o->seed : s->seed;
    p.reps = o->reps > 0 ? o->reps : o->quick ? s->quick_replications : s->replications;
    p.npoints = s->wl->nload_points ? s->wl->nload_points(p.wl_cfg) : 1;
    p.nvar = o->variants ? o->nvariants : s->nvariants;
    p.vsel = xcalloc((size_t)p.nvar, sizeof *p.vsel);
    for (int i = 0; i < p.nvar; i++)
        p.vsel[i] = o->variants ? o->variants[i] : i;
    p.njobs = p.nvar * p.reps * p.npoints;
    p.slot = xcalloc((size_t)p.njobs, sizeof *p.slot);
    int nthreads = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1)
        nthreads = 1;
    double t0 = now_s();
    pool_run(&p, nthreads, o->progress);
    int rc = runner_first_failure(&p, err, errsize);
    memset(out, 0, sizeof *out);
    if (rc == 0) {
        runner_gather(&p, out);
        out->quick = o->quick;
    }
    stats->njobs = p.njobs;
    stats->nevents = 0;
    stats->sim_s = 0;
    for (int j = 0; j < p.njobs; j++) {
        stats->nevents += p.slot[j].nevents;
        stats->sim_s += (double)p.slot[j].sim_ns / SIM_NS_PER_S;
        rpt_set_free(&p.slot[j].metrics);
    }
    stats->wall_s = now_s() - t0;
    free(p.slot);
    free(p.vsel);
    return rc;
}
