/* wakeup_chain: background threads woken by interrupts, and the hand-offs
 * between them, see wakeup_chain.h.
 *
 * Departures: the threads are nice-0 CFS tasks of one kind (a kworker and a
 * daemon thread behave alike here); what they run is busy time only (no
 * cache or memory effect); a chain ends when its peer is already awake (the
 * message would find it running; it is not queued for later). */
#include "kernel/irq/wakeup_chain.h"

#include <stdlib.h>

#include "sim/metrics.h"
#include "util/container.h"
#include "util/xalloc.h"
#include "world.h"

static struct wchain_thread *wchain_of(struct task *t)
{
    return container_of(t, struct wchain_thread, task);
}

static double wchain_run_ns(struct world *w)
{
    return sim_rng_exp(&w->rng[WORLD_STREAM_KERNEL_WORK], w->wchain.run_ns);
}

/* Wake th to run once, from code running on waker_cpu. */
static void wchain_wake(struct world *w, struct wchain_thread *th, int waker_cpu)
{
    th->awake = true;
    sched_wake_task(w, &th->task, wchain_run_ns(w), waker_cpu);
}

/* A thread has run: with probability msgs/(1 + msgs) it hands off to its
 * peer (a geometric number of messages of mean msgs_per_irq), then sleeps.
 * It runs in done(), so the waker is still current on its CPU. */
static void wchain_thread_done(struct world *w, struct task *t)
{
    struct wchain_sys *wc = &w->wchain;
    struct wchain_thread *th = wchain_of(t);
    th->awake = false;
    double p_more = wc->msgs_per_irq / (1.0 + wc->msgs_per_irq);
    struct wchain_thread *peer = th->peer;
    th->peer = NULL;
    if (!peer || peer->awake || sim_rng_uniform(&w->rng[WORLD_STREAM_KERNEL_WORK]) >= p_more)
        return;
    peer->peer = th;
    wc->nr_msgs++;
    wchain_wake(w, peer, t->prev_cpu);
}

/* With nohz_full= or isolcpus= the threads are unbound kthreads and
 * daemons kept to the housekeeping CPUs (HK_TYPE_KTHREAD and WQ for
 * kthreads and unbound workqueues; user daemons by the CPUAffinity a
 * tuned setup gives them, which pmlab takes for granted): a thread of an
 * isolated CPU stands for work that runs elsewhere. */
static void wchain_housekeeping(struct world *w)
{
    const struct housekeeping *hk = &w->isol.hk;
    if (!hk->any)
        return;
    for (int i = 0; i < w->wchain.nthreads; i++) {
        struct task *t = &w->wchain.thr[i].task;
        task_set_cpus_allowed(t, hk->kthread_cpus, hk->ncpus);
        if (!hk->kthread_cpus[i])
            t->prev_cpu = t->recent_used_cpu = isol_timer_cpu(w, i);
    }
}

void wchain_init(struct world *w)
{
    struct wchain_sys *wc = &w->wchain;
    int n = w->machine->ncpus;
    wc->wake_share = hw_machine_calib(w->machine, "bg_wake_share");
    wc->msgs_per_irq = hw_machine_calib(w->machine, "bg_msgs_per_irq");
    wc->run_ns = hw_machine_calib(w->machine, "bg_run_ns");
    wc->nthreads = n;
    wc->thr = xcalloc((size_t)n, sizeof *wc->thr);
    /* Fair tasks: on a busy CPU the fair class decides whether they preempt
     * the running task (wakeup_preempt_fair, sched/fair_entity.c). */
    for (int i = 0; i < n; i++) {
        task_init(&wc->thr[i].task, wchain_thread_done, i);
        wc->thr[i].task.comm = "kworker";
    }
    wchain_housekeeping(w);
}

void wchain_destroy(struct world *w)
{
    free(w->wchain.thr);
    w->wchain.thr = NULL;
}

/* The peer of a chain started by cpu's thread: another thread, uniformly. */
static struct wchain_thread *wchain_pick_peer(struct world *w, int self)
{
    struct wchain_sys *wc = &w->wchain;
    if (wc->nthreads < 2)
        return NULL;
    int k = (int)(sim_rng_uniform(&w->rng[WORLD_STREAM_KERNEL_WORK]) * (wc->nthreads - 1));
    if (k >= wc->nthreads - 1)
        k = wc->nthreads - 2;
    return &wc->thr[k >= self ? k + 1 : k];
}

void wchain_irq(struct world *w, int cpu)
{
    struct wchain_sys *wc = &w->wchain;
    if (wc->wake_share <= 0 || !wc->thr)
        return;
    struct wchain_thread *th = &wc->thr[cpu];
    if (th->awake)
        return;   /* already woken: the new work item joins what it runs */
    if (wc->wake_share < 1 && sim_rng_uniform(&w->rng[WORLD_STREAM_KERNEL_WORK]) >= wc->wake_share)
        return;
    wc->nr_chains++;
    th->peer = wchain_pick_peer(w, cpu);
    wchain_wake(w, th, cpu);
}

void wchain_disable(struct world *w)
{
    w->wchain.wake_share = 0;
}

void wchain_measure_reset(struct world *w)
{
    w->wchain.nr_chains = w->wchain.nr_msgs = 0;
}

void wchain_collect_metrics(const struct world *w, sim_time_t window_ns,
                            struct rpt_metric_set *out)
{
    double cpu_s = (double)window_ns / SIM_NS_PER_S * isol_online_ncpus(w);
    if (cpu_s <= 0)
        return;
    const struct wchain_sys *wc = &w->wchain;
    rpt_set_put(out, "bg_chains_per_s", "1/s", RPT_NEUTRAL, (double)wc->nr_chains / cpu_s);
    rpt_set_put(out, "bg_wakeups_per_s", "1/s", RPT_NEUTRAL,
                (double)(wc->nr_chains + wc->nr_msgs) / cpu_s);
}
