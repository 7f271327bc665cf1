/* rcu/tree: callbacks, grace periods and their hold on the tick; see
 * tree.h for the rules and their sources. */
#include "kernel/rcu/tree.h"

#include <stdlib.h>

#include "hw/machine.h"
#include "kernel/time/timer.h"
#include "sim/metrics.h"
#include "util/container.h"
#include "util/xalloc.h"
#include "world.h"

/* RCU_JIFFIES_TILL_FORCE_QS and RCU_JIFFIES_FQS_DIV (kernel/rcu/tree.h). */
#define RCU_JIFFIES_FQS_DIV 256

int64_t rcu_jiffies_till_first_fqs(int hz, int ncpus)
{
    return 1 + (hz > 250) + (hz > 500) + ncpus / RCU_JIFFIES_FQS_DIV;
}

static struct rcu_data *rcu_rdp(struct world *w, int cpu)
{
    return &w->rcu.rdp[cpu];
}

static uint32_t rcu_n_cbs(const struct rcu_data *rdp)
{
    return rdp->n_done + rdp->n_wait + rdp->n_next_ready + rdp->n_next;
}

/* The grace period a callback queued now must wait for: the next to start
 * (rcu_seq_snap: a running one may have started before the callback). */
static uint64_t rcu_seq_snap(const struct rcu_sys *r)
{
    return r->completed + (r->gp_active ? 2 : 1);
}

/* rcu_start_this_gp: start grace period completed + 1 now, or record that
 * one is needed after the running one. It ends when the first FQS scan
 * runs: the GP kthread waits jiffies_till_first_fqs jiffies with
 * swait_event_idle_timeout, a timer-wheel timeout, which fires one jiffy
 * after the requested one (timer.h). */
static void rcu_start_gp(struct world *w, uint64_t seq)
{
    struct rcu_sys *r = &w->rcu;
    if (seq <= r->completed + (r->gp_active ? 1 : 0))
        return;
    if (r->gp_active) {
        r->gp_needed = true;
        return;
    }
    r->gp_active = true;
    sim_event_schedule(&w->q, &r->gp_end_ev,
                       timer_wheel_expiry_ns(w->q.now_ns, r->gp_ns, r->tick_period_ns, r->hz));
}

/* rcu_advance_cbs: callbacks whose grace period has completed are done. */
static void rcu_advance_cbs(const struct rcu_sys *r, struct rcu_data *rdp)
{
    if (rdp->n_wait && rdp->wait_seq <= r->completed) {
        rdp->n_done += rdp->n_wait;
        rdp->n_wait = rdp->n_next_ready;
        rdp->wait_seq = rdp->next_ready_seq;
        rdp->n_next_ready = 0;
    }
    if (rdp->n_wait && rdp->wait_seq <= r->completed) {
        rdp->n_done += rdp->n_wait;
        rdp->n_wait = 0;
    }
}

/* rcu_accelerate_cbs: give the unassigned callbacks the grace period they
 * need, merging with a segment that already waits for it. Returns that
 * sequence number, 0 when there were none. */
static uint64_t rcu_accelerate_cbs(const struct rcu_sys *r, struct rcu_data *rdp)
{
    if (!rdp->n_next)
        return 0;
    uint64_t seq = rcu_seq_snap(r);
    if (!rdp->n_wait || rdp->wait_seq == seq) {
        rdp->n_wait += rdp->n_next;
        rdp->wait_seq = seq;
    } else {
        rdp->n_next_ready += rdp->n_next;
        rdp->next_ready_seq = seq;
    }
    rdp->n_next = 0;
    return seq;
}

static void rcu_nocb_kthread_done(struct world *w, struct task *t);
static void rcu_gp_end(struct sim_event *ev, void *arg);

static double rcu_calib(const struct world *w, const char *key)
{
    return hw_machine_calib(w->machine, key);
}

void rcu_init(struct world *w)
{
    struct rcu_sys *r = &w->rcu;
    int n = w->machine->ncpus;
    r->ncpus = n;
    r->rdp = xcalloc((size_t)n, sizeof *r->rdp);
    r->tick_period_ns = w->idle.tick_period_ns;
    r->hz = w->idle.hz;
    int64_t j = kparams_get(w->kp, "rcutree.jiffies_till_first_fqs", 0, -1);
    if (j < 0)
        j = rcu_jiffies_till_first_fqs(w->idle.hz, n);
    if (j > w->idle.hz)
        j = w->idle.hz;   /* param_set_first_fqs_jiffies caps it at HZ */
    r->gp_ns = j * r->tick_period_ns;
    r->cb_ns = rcu_calib(w, "rcu_callback_ns");
    r->kthread_run_ns = rcu_calib(w, "rcu_kthread_run_ns");
    sim_event_init(&r->gp_end_ev, rcu_gp_end);
    const struct housekeeping *hk = &w->isol.hk;
    for (int cpu = 0; cpu < n; cpu++) {
        struct rcu_data *rdp = &r->rdp[cpu];
        rdp->offloaded = hk->rcu_nocb_any && hk->rcu_nocb[cpu];
        if (!rdp->offloaded)
            continue;
        /* rcuo kthreads run where kthreads may (housekeeping_affine,
         * HK_TYPE_RCU; with rcu_nocbs= alone that is every CPU). */
        task_init(&rdp->nocb_kthread, rcu_nocb_kthread_done, cpu);
        rdp->nocb_kthread.comm = "rcuo";
        if (hk->any)
            task_set_cpus_allowed(&rdp->nocb_kthread, hk->kthread_cpus, hk->ncpus);
        if (hk->any && !hk->kthread_cpus[cpu])
            rdp->nocb_kthread.prev_cpu = rdp->nocb_kthread.recent_used_cpu = isol_timer_cpu(w, cpu);
    }
}

void rcu_destroy(struct world *w)
{
    free(w->rcu.rdp);
    w->rcu.rdp = NULL;
}

bool rcu_needs_cpu(const struct world *w, int cpu)
{
    if (!w->rcu.rdp)
        return false;   /* a world without RCU (partial test fixtures) */
    const struct rcu_data *rdp = &w->rcu.rdp[cpu];
    return !rdp->offloaded && rcu_n_cbs(rdp) > 0;
}

/* Wake cpu's rcuo kthread from waker_cpu: to request a grace period for
 * what call_rcu queued, or (invoke) to run the callbacks that are done. */
static void rcu_nocb_wake(struct world *w, int cpu, bool invoke, int waker_cpu)
{
    struct rcu_data *rdp = rcu_rdp(w, cpu);
    if (rdp->nocb_awake)
        return;   /* it is running: it sees the new callbacks when it is done */
    rdp->nocb_awake = true;
    rdp->nocb_invoke = invoke;
    rdp->nocb_n = invoke ? rdp->n_done : 0;
    double ns = invoke ? rdp->nocb_n * w->rcu.cb_ns : w->rcu.kthread_run_ns;
    sched_wake_task(w, &rdp->nocb_kthread, ns, waker_cpu);
}

/* The rcuo kthread has run: it invoked its callbacks, or it requested the
 * grace period (nocb_gp_wait) and sleeps until it ends. Work that came in
 * meanwhile wakes it again. */
static void rcu_nocb_kthread_done(struct world *w, struct task *t)
{
    struct rcu_sys *r = &w->rcu;
    int cpu = (int)(container_of(t, struct rcu_data, nocb_kthread) - r->rdp);
    struct rcu_data *rdp = &r->rdp[cpu];
    rdp->nocb_awake = false;
    if (rdp->nocb_invoke) {
        rdp->n_done -= rdp->nocb_n;
        rdp->nr_invoked += rdp->nocb_n;
    } else {
        rcu_start_gp(w, rcu_accelerate_cbs(r, rdp));
    }
    rcu_advance_cbs(r, rdp);
    if (rdp->n_done)
        rcu_nocb_wake(w, cpu, true, t->prev_cpu);
    else if (rdp->n_next)
        rcu_nocb_wake(w, cpu, false, t->prev_cpu);
}

void call_rcu(struct world *w, int cpu, uint32_t n)
{
    struct rcu_data *rdp = rcu_rdp(w, cpu);
    bool was_empty = rcu_n_cbs(rdp) == 0;
    rdp->n_next += n;
    rdp->nr_queued += n;
    /* __call_rcu_nocb_wake: the first callback on an empty list wakes the
     * rcuo kthread; a non-offloaded CPU waits for its tick. */
    if (rdp->offloaded && was_empty)
        rcu_nocb_wake(w, cpu, false, cpu);
}

/* rcu_gp_cleanup: the grace period is over; start the next one if
 * callbacks wait for it, and wake the rcuo kthreads that have callbacks
 * done (rcu_nocb_gp_cleanup). Other CPUs notice at their next tick. */
static void rcu_gp_end(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rcu_sys *r = container_of(ev, struct rcu_sys, gp_end_ev);
    r->completed++;
    r->gp_active = false;
    r->nr_gps++;
    if (r->gp_needed) {
        r->gp_needed = false;
        rcu_start_gp(w, r->completed + 1);
    }
    for (int cpu = 0; cpu < r->ncpus; cpu++) {
        struct rcu_data *rdp = &r->rdp[cpu];
        if (!rdp->offloaded || !rdp->n_wait)
            continue;
        rcu_advance_cbs(r, rdp);
        if (rdp->n_done)
            rcu_nocb_wake(w, cpu, true, isol_timer_cpu(w, cpu));
    }
}

int64_t rcu_sched_clock_irq(struct world *w, int cpu, bool idle)
{
    struct rcu_sys *r = &w->rcu;
    struct rcu_data *rdp = rcu_rdp(w, cpu);
    if (rdp->offloaded || rcu_n_cbs(rdp) == 0)
        return 0;
    rdp->nr_ticks_held += idle;
    /* rcu_core: note finished grace periods, ask for the one the new
     * callbacks need, invoke what is done (rcu_do_batch). */
    rcu_advance_cbs(r, rdp);
    rcu_start_gp(w, rcu_accelerate_cbs(r, rdp));
    if (rdp->n_next_ready)
        rcu_start_gp(w, rdp->next_ready_seq);
    uint32_t n = rdp->n_done;
    rdp->n_done = 0;
    rdp->nr_invoked += n;
    return (int64_t)(n * r->cb_ns);
}

void rcu_measure_reset(struct world *w)
{
    struct rcu_sys *r = &w->rcu;
    r->nr_gps = 0;
    for (int cpu = 0; cpu < r->ncpus; cpu++)
        r->rdp[cpu].nr_queued = r->rdp[cpu].nr_invoked = r->rdp[cpu].nr_ticks_held = 0;
}

void rcu_collect_metrics(const struct world *w, sim_time_t window_ns, struct rpt_metric_set *out)
{
    const struct rcu_sys *r = &w->rcu;
    double s = (double)window_ns / SIM_NS_PER_S, cpu_s = s * isol_online_ncpus(w);
    if (cpu_s <= 0)
        return;
    uint64_t queued = 0, held = 0;
    for (int cpu = 0; cpu < r->ncpus; cpu++) {
        queued += r->rdp[cpu].nr_queued;
        held += r->rdp[cpu].nr_ticks_held;
    }
    rpt_set_put(out, "rcu_gps_per_s", "1/s", RPT_NEUTRAL, (double)r->nr_gps / s);
    rpt_set_put(out, "rcu_callbacks_per_s", "1/s", RPT_NEUTRAL, (double)queued / cpu_s);
    rpt_set_put(out, "rcu_held_ticks_per_s", "1/s", RPT_NEUTRAL, (double)held / cpu_s);
}
