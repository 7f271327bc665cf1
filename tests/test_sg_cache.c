/* The fork slow path's group sums (src/kernel/sched/fair_sg_cache.c)
 * against a fresh rescan: a random sequence of wake-ups (enqueue, and a
 * move to the CPU the wake path picks), forks, completions (dequeue),
 * explicit migrations of running tasks, balancing and PELT periods passing
 * (runs of 0 to 3 ms), on skx-2s with intel_pstate (frequency changes move
 * the PELT clocks' speed) and with cpufreq off. After every step every span
 * of every level must give the sums a rescan gives, with the lazy PELT
 * reads a rescan does, and update_sg_wakeup_stats's sums for a task in any
 * state (asleep with signals on its CPU, queued, running, new) must be the
 * kernel loop's. Removing any one invalidation (an nr_running change, an
 * average's update, its lazy read, util_est, the frequency) fails it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/sched/fair_sg_cache.h"
#include "world_fixture.h"

#define NTASKS 48
#define NFORKS 400
#define NSTEPS 1500

struct rnd {
    uint64_t s;
};

/* splitmix64: the test's own stream, apart from the world's. */
static uint64_t rnd_next(struct rnd *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rnd_below(struct rnd *r, int n)
{
    return (int)(rnd_next(r) % (uint64_t)n);
}

struct mix {
    struct fx *f;
    struct probe t[NTASKS];
    struct probe forked[NFORKS];
    int nforked;
    struct rnd r;
};

/* Every span of every level: cached sums against a rescan after the lazy
 * reads a rescan does (rq_avg_now of each of its CPUs). */
static void check_spans(struct world *w, int step)
{
    const struct sched_topology *t = &w->sched.topo;
    for (int l = 0; l <= TL_NR; l++)
        for (int first = 0; first < t->ncpus; first++) {
            const struct sched_span *span = &t->spans[l * t->ncpus + first];
            if (!span->weight)
                continue;
            struct sg_cache_sums c = sg_cache_span_sums(w, span);
            for (int i = 0; i < span->weight; i++)
                (void)rq_avg_now(w, span->cpus[i]);
            struct sg_cache_sums r = sg_cache_span_rescan(w, span);
            if (c.load != r.load || c.util != r.util || c.nr_running != r.nr_running ||
                c.idle_cpus != r.idle_cpus)
                fail_msg("step %d, level %d span %d+%d: cached %llu/%llu/%d/%d, rescan "
                         "%llu/%llu/%d/%d", step, l, first, span->weight,
                         (unsigned long long)c.load, (unsigned long long)c.util, c.nr_running,
                         c.idle_cpus, (unsigned long long)r.load, (unsigned long long)r.util,
                         r.nr_running, r.idle_cpus);
        }
}

/* update_sg_wakeup_stats's sums for task p in each group of cpu0's
 * domains: cached against the kernel's loop. */
static void check_task_sums(struct world *w, const struct task *p, int step)
{
    int n;
    const struct sched_domain *d = sched_domains(&w->sched.topo, 0, &n);
    for (int l = 0; l < n; l++)
        for (int g = 0; g < d[l].ngroups; g++) {
            struct sg_stats c = { 0 }, r = { 0 };
            fair_sg_wakeup_sums(w, d[l].groups[g], p, &c);
            fair_sg_wakeup_sums_rescan(w, d[l].groups[g], p, &r);
            if (c.group_load != r.group_load || c.group_util != r.group_util ||
                c.sum_nr_running != r.sum_nr_running || c.idle_cpus != r.idle_cpus)
                fail_msg("step %d, domain %d group %d: task sums cached %.0f/%.0f/%d/%d, "
                         "rescan %.0f/%.0f/%d/%d", step, l, g, c.group_load, c.group_util,
                         c.sum_nr_running, c.idle_cpus, r.group_load, r.group_util,
                         r.sum_nr_running, r.idle_cpus);
        }
}

/* Work of 20 us to 3 ms, in ns. */
static double mix_work_ns(struct mix *m)
{
    return 20e3 + (double)rnd_below(&m->r, 3000) * 1e3;
}

static void mix_wake(struct mix *m)
{
    struct probe *p = &m->t[rnd_below(&m->r, NTASKS)];
    if (p->t.cpu < 0)
        sched_wake_task(&m->f->w, &p->t, mix_work_ns(m), rnd_below(&m->r, m->f->w.sched.ncpus));
}

static void mix_fork(struct mix *m)
{
    if (m->nforked == NFORKS)
        return;
    struct probe *p = &m->forked[m->nforked++];
    int parent = rnd_below(&m->r, m->f->w.sched.ncpus);
    task_init(&p->t, probe_done, parent);
    task_fork(&m->f->w, &p->t, mix_work_ns(m), parent);
}

/* A running task moved to an idle CPU (active balancing's move). */
static void mix_migrate(struct mix *m)
{
    struct world *w = &m->f->w;
    int src = rnd_below(&m->r, w->sched.ncpus), dst = rnd_below(&m->r, w->sched.ncpus);
    const struct sched_cpu *c = &w->sched.cpu[src];
    /* balance.c's running_movable, and an idle destination */
    if (src == dst || !c->curr || c->waking || c->in_done || c->curr->polling || c->head ||
        !sched_cpu_idle(w, dst) || w->sched.cpu[dst].waking || !task_allowed_on(c->curr, dst))
        return;
    sched_migrate_running(w, src, dst);
}

static void mix_step(struct mix *m)
{
    switch (rnd_below(&m->r, 5)) {
    case 0:
    case 1:
        mix_wake(m);
        break;
    case 2:
        mix_fork(m);
        break;
    case 3:
        mix_migrate(m);
        break;
    default:
        world_run_until(&m->f->w, m->f->w.q.now_ns + rnd_below(&m->r, 3000) * 1000);
        break;
    }
}

static void run_mix(const char *cmdline, bool cpufreq_off, uint64_t seed)
{
    struct mix *m = calloc(1, sizeof *m);
    m->f = fx_new_kernel_machine("machines/skx-2s.ini", "6.12", cmdline, NULL, cpufreq_off);
    m->r.s = seed;
    struct world *w = &m->f->w;
    /* skx-2s (112 CPUs) is below SG_CACHE_MIN_CPUS: build it by hand, on
     * the world as sched_init left it (no task yet). */
    assert_null(w->sched.sgc);
    sg_cache_build(w);
    for (int i = 0; i < NTASKS; i++)
        task_init(&m->t[i].t, probe_done, rnd_below(&m->r, w->sched.ncpus));
    check_spans(w, -1);
    for (int step = 0; step < NSTEPS; step++) {
        mix_step(m);
        check_spans(w, step);
        check_task_sums(w, &m->t[rnd_below(&m->r, NTASKS)].t, step);
    }
    /* the mix did what it says: forks, moves and many PELT periods */
    assert_true(m->nforked > 100);
    assert_true(w->sched.nr_migrations > 10);
    assert_true(w->q.now_ns > 300 * SIM_NS_PER_MS);
    world_run_until(w, w->q.now_ns + 20 * SIM_NS_PER_S);
    check_spans(w, NSTEPS);
    fx_free(m->f);
    free(m);
}

static void test_cache_matches_rescan_pstate(void **state)
{
    (void)state;
    run_mix("intel_pstate=active", false, 1);
}

static void test_cache_matches_rescan_fixed_freq(void **state)
{
    (void)state;
    run_mix(NULL, true, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_matches_rescan_pstate),
        cmocka_unit_test(test_cache_matches_rescan_fixed_freq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
