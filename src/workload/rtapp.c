/* rtapp: run an rt-app use case (rtapp.h, rt-app's doc/tutorial.txt) on the
 * simulated machine.
 *
 * Each instance of each task is a thread forked from the launch CPU and
 * placed by the kernel (select_task_rq_fair); "cpus" is its affinity, as
 * [workload] affinity is for the other workloads (a task without "cpus"
 * gets [workload] affinity). A phase's "cpus" applies from its start; a
 * thread whose CPU it excludes sleeps and is woken where the kernel puts it
 * (the migration set_cpus_allowed_ptr forces).
 *
 * Events, as rt-app runs them:
 *  - run: work, not time: rt-app calibrates a busy loop on the calibration
 *    CPU (global.calibration, "CPU0" by default), where that loop runs at the
 *    top frequency a busy core gets; so `run t` is the work that CPU does in
 *    t us at its core type's single-core turbo (max_mhz without turbo bins).
 *    It takes longer on a slower core type or at a lower frequency. An
 *    integer calibration (ns per loop) is taken as measured on CPU0: `run t`
 *    is floor(t * 1000 / ns) loops of that many ns there;
 *  - runtime: busy for t us of wall time, whatever the speed;
 *  - sleep: clock_nanosleep for t us; timer: sleep to the timer's next
 *    period (the first use sets its reference to now; relative mode moves a
 *    missed reference to now, absolute keeps it). Both are hrtimers on the
 *    thread's CPU that the cpuidle governor sees (idle_set_wl_timer), and
 *    their expiry wakes the thread through the kernel's wake-up path;
 *  - suspend/resume, barrier, lock/unlock, wait/signal/broad: the thread
 *    sleeps on a wait queue (FIFO) and the thread that releases it wakes it
 *    from its own CPU; a resume or signal with nobody waiting is lost, as a
 *    condition variable's is; yield: the thread goes behind the others
 *    queued on its CPU.
 * Timers are per thread (as with rt-app's "unique" refs: a ref shared by
 * several instances in rt-app is separate here). SCHED_FIFO and SCHED_RR
 * threads run in the RT class (kernel/sched/rt.c) at their priority, rt-app's
 * default 10 when none is given; SCHED_OTHER, SCHED_IDLE and SCHED_DEADLINE
 * run as fair tasks at nice 0 (pmlab has no nice levels and no deadline
 * class; the parser warns about the last two).
 *
 * Metrics, as rt-app's log reports them, per task (task.NAME.*) and over all
 * tasks (the timer ones for tasks with a timer event): wu_lat (activation latency, timer expiry to the thread running:
 * avg, p99, max, us), slack (timer expiry minus the time the thread reached
 * the timer event: avg, us, negative when late), missed_pct (timer events
 * whose expiry had already passed), run_avg_us (wall time of a phase
 * iteration's run and runtime events), activations (timer events), loops
 * (phase iterations, rt-app's log rows); then the machine and idle metrics. Counted from the end of warmup_ms. */
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
#include "workload/rtapp.h"
#include "workload/workload.h"
#include "world.h"

struct rtapp_config {
    struct wl_file *file;   /* the use case (struct rtapp_prog) */
    double warmup_ms;       /* discarded start, ms */
    double duration_ms;     /* window, ms; 0 = the file's global.duration */
};

static const struct wl_param rtapp_params[] = {
    { "file", WL_PARAM_FILE, offsetof(struct rtapp_config, file), 0, 0, "",
      "rt-app JSON use case, relative to the scenario's directory" },
    { "warmup_ms", WL_PARAM_DOUBLE, offsetof(struct rtapp_config, warmup_ms), 0, 1e6, "0",
      "simulated start discarded before measuring, ms" },
    { "duration_ms", WL_PARAM_DOUBLE, offsetof(struct rtapp_config, duration_ms), 0, 1e7, "0",
      "measurement window, ms; 0 = the file's global.duration" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

/* A bound on events a thread runs without simulated time passing: beyond
 * it the use case spins at one instant (only lost wake-ups can do that once
 * the loader has checked every phase takes time). */
#define RTAPP_MAX_STEPS_PER_INSTANT 100000

enum rt_state { RT_RUNNING, RT_SLEEPING, RT_BLOCKED, RT_MOVING, RT_DONE };
enum rt_wake { RT_WAKE_SLEEP, RT_WAKE_TIMER, RT_WAKE_MOVE };

struct rt_thread {
    struct task task;
    const struct rtapp_task *def;
    int tidx;                   /* task index in the program */
    enum rt_state state;
    bool started, entered;      /* delay done; the current phase's affinity applied */
    int phase, ev;              /* position: phase, next event */
    int64_t phase_iter, thread_iter;
    struct sim_event wake_ev;   /* sleep or timer expiry, or a move */
    enum rt_wake wake_kind;
    int wake_cpu;               /* CPU the hrtimer is armed on, -1 none */
    sim_time_t wake_ns;         /* when the hrtimer fires: its hard expiry */
    sim_time_t requested_ns;    /* the expiry the thread asked for (its soft expiry) */
    bool timer_woken;           /* running after a timer: record wu_lat */
    sim_time_t expiry_ns;       /* that timer's expiry */
    struct sim_event runtime_ev; /* end of a runtime event */
    bool in_run;                /* a run or runtime event is executing */
    sim_time_t run_start_ns, iter_run_ns;
    sim_time_t *timer_next_ns;  /* [nres]: each timer's next expiry, -1 unused */
    bool *mask;                 /* [ncpus] current affinity */
    int wait_mutex;             /* wait: mutex to take back when signalled */
    struct rt_thread *next_wait; /* wait queue link */
    sim_time_t last_step_ns;
    int64_t steps_at_instant;
};

struct rt_queue {
    struct rt_thread *head, *tail;
    struct rt_thread *owner;    /* mutex */
    int arrived, users;         /* barrier */
};

struct rt_stats {
    struct sim_hist wu_lat;
    double slack_sum_ns, run_sum_ns;
    uint64_t ntimer, nmissed, niter;
};

struct rt_run {
    struct world *w;
    const struct rtapp_prog *prog;
    struct rt_thread *thr;
    int nthreads;
    struct rt_queue *q;         /* [nres] */
    struct rt_stats *st;        /* [ntasks] */
    double calib_speed;         /* reference work per ns of run */
    sim_time_t measure_start_ns;
    const struct rt_thread *refused; /* first thread whose uclamp request failed */
    int refused_phase;          /* its phase, -1 the thread's own request */
    const struct rt_thread *stuck;
    struct sim_event warmup_ev;
};

static const struct rtapp_prog *rt_prog(const struct rtapp_config *cfg)
{
    return cfg->file->data;
}

/* ---- hrtimers ------------------------------------------------------------ */

static void rt_sync_cpu_timer(struct rt_run *run, int cpu)
{
    sim_time_t first = SIM_TIME_MAX;
    for (int i = 0; i < run->nthreads; i++)
        if (run->thr[i].wake_cpu == cpu && run->thr[i].wake_ns < first)
            first = run->thr[i].wake_ns;
    idle_set_wl_timer(run->w, cpu, first);
}

/* Sleep until when_ns on an hrtimer of the thread's CPU (it is in done()). */
static void rt_sleep_until(struct rt_run *run, struct rt_thread *th, sim_time_t when_ns,
                           enum rt_wake kind)
{
    /* clock_nanosleep: a SCHED_OTHER thread's sleep gets the default 50 us
     * of slack, an RT one's none (hrtimer_sleep_slack_ns); the device fires
     * at the hard expiry. wu_lat still counts from the requested expiry. */
    th->requested_ns = when_ns;
    if (kind != RT_WAKE_MOVE)
        when_ns = hrtimer_range(when_ns, hrtimer_sleep_slack_ns(task_is_rt(&th->task))).hard_ns;
    th->state = RT_SLEEPING;
    th->wake_kind = kind;
    th->wake_ns = when_ns;
    th->wake_cpu = th->task.prev_cpu;
    sim_event_schedule(&run->w->q, &th->wake_ev, when_ns);
    rt_sync_cpu_timer(run, th->wake_cpu);
}

/* Wake a blocked thread from cpu (the waker's, or the timer's). */
static void rt_wake(struct world *w, struct rt_thread *th, int cpu)
{
    th->state = RT_RUNNING;
    sched_wake_task(w, &th->task, 0, cpu);
}

static void rt_wake_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rt_thread *th = container_of(ev, struct rt_thread, wake_ev);
    struct rt_run *run = w->wl_state;
    int cpu = th->wake_cpu;
    if (th->wake_kind == RT_WAKE_MOVE) {
        /* No timer: the thread is moved off its CPU (rt_enter_phase). */
        rt_wake(w, th, th->task.prev_cpu);
        return;
    }
    th->wake_cpu = -1;
    th->wake_ns = SIM_TIME_MAX;
    rt_sync_cpu_timer(run, cpu);
    th->timer_woken = th->wake_kind == RT_WAKE_TIMER;
    th->expiry_ns = th->requested_ns;
    rt_wake(w, th, cpu);
}

/* ---- wait queues ----------------------------------------------------------- */

static void rt_enqueue(struct rt_queue *q, struct rt_thread *th)
{
    th->next_wait = NULL;
    if (q->tail)
        q->tail->next_wait = th;
    else
        q->head = th;
    q->tail = th;
    th->state = RT_BLOCKED;
}

static struct rt_thread *rt_dequeue(struct rt_queue *q)
{
    struct rt_thread *th = q->head;
    if (th) {
        q->head = th->next_wait;
        if (!q->head)
            q->tail = NULL;
    }
    return th;
}

static int rt_cpu(const struct rt_thread *th)
{
    return th->task.prev_cpu;
}

/* Release mutex m held by th: the first waiter takes it and wakes. */
static void rt_unlock(struct rt_run *run, struct rt_thread *th, int m)
{
    struct rt_queue *q = &run->q[m];
    if (q->owner != th)
        return; /* not held: pthread_mutex_unlock's EPERM, nothing happens */
    q->owner = rt_dequeue(q);
    if (q->owner)
        rt_wake(run->w, q->owner, rt_cpu(th));
}

/* A waiter of a condition is signalled: it takes its mutex back, or queues
 * for it. */
static void rt_signalled(struct rt_run *run, struct rt_thread *waiter, int cpu)
{
    struct rt_queue *m = &run->q[waiter->wait_mutex];
    if (!m->owner) {
        m->owner = waiter;
        rt_wake(run->w, waiter, cpu);
    } else {
        rt_enqueue(m, waiter);
    }
}

/* ---- events ---------------------------------------------------------------- */

static void rt_start_work(struct rt_run *run, struct rt_thread *th, double work_ns)
{
    th->in_run = true;
    th->run_start_ns = run->w->q.now_ns;
    sched_wake_task(run->w, &th->task, work_ns, rt_cpu(th));
}

/* Reference work of `run usec` (see the top of the file). */
static double rt_run_work(const struct rt_run *run, int64_t usec)
{
    double ns = (double)usec * 1000.0;
    int64_t per_loop = run->prog->calib_ns_per_loop;
    if (per_loop > 0)
        ns = floor(ns / (double)per_loop) * (double)per_loop;
    return ns * run->calib_speed;
}

static void rt_runtime_over(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rt_thread *th = container_of(ev, struct rt_thread, runtime_ev);
    struct task *t = &th->task;
    if (t->cpu >= 0 && w->sched.cpu[t->cpu].curr == t)
        sched_task_finish_now(w, t);
    else
        t->work_ns = 0; /* queued: it ends as soon as it runs */
}

/* Timer event e: sleep to its next expiry, or go on if it has passed. True
 * if the thread sleeps. */
static bool rt_timer(struct rt_run *run, struct rt_thread *th, const struct rtapp_event *e)
{
    sim_time_t now = run->w->q.now_ns;
    sim_time_t period = (sim_time_t)e->usec * 1000;
    sim_time_t *next = &th->timer_next_ns[e->ref];
    *next = *next < 0 ? now + period : *next + period;
    if (now >= run->measure_start_ns) {
        struct rt_stats *st = &run->st[th->tidx];
        st->ntimer++;
        st->slack_sum_ns += (double)(*next - now);
        st->nmissed += *next <= now;
    }
    if (*next > now) {
        rt_sleep_until(run, th, *next, RT_WAKE_TIMER);
        return true;
    }
    if (!e->absolute)
        *next = now; /* relative: the reference moves to the late end */
    return false;
}

static void rt_resume(struct rt_run *run, struct rt_thread *th, int task)
{
    struct rt_queue *q = &run->q[run->prog->nres + task]; /* suspend queues follow */
    for (struct rt_thread *s; (s = rt_dequeue(q));)
        rt_wake(run->w, s, rt_cpu(th));
}

static bool rt_barrier(struct rt_run *run, struct rt_thread *th, int b)
{
    struct rt_queue *q = &run->q[b];
    if (q->arrived + 1 < q->users) {
        q->arrived++;
        rt_enqueue(q, th);
        return true;
    }
    q->arrived = 0;
    for (struct rt_thread *s; (s = rt_dequeue(q));)
        rt_wake(run->w, s, rt_cpu(th));
    return false;
}

/* Execute e; true if the thread stops here (runs work or sleeps). */
static bool rt_event(struct rt_run *run, struct rt_thread *th, const struct rtapp_event *e)
{
    struct world *w = run->w;
    struct rt_queue *q = e->ref >= 0 && e->type != RTAPP_RESUME ? &run->q[e->ref] : NULL;
    switch (e->type) {
    case RTAPP_RUN:
        rt_start_work(run, th, rt_run_work(run, e->usec));
        return true;
    case RTAPP_RUNTIME:
        /* Busy until the wall-clock end, whatever the speed: more work than
         * the slowest CPU could finish, cut at the end. */
        rt_start_work(run, th, (double)e->usec * 1000.0 * 1000.0 + 1e6);
        sim_event_schedule(&w->q, &th->runtime_ev, w->q.now_ns + (sim_time_t)e->usec * 1000);
        return true;
    case RTAPP_SLEEP:
        if (e->usec == 0)
            return false;
        rt_sleep_until(run, th, w->q.now_ns + (sim_time_t)e->usec * 1000, RT_WAKE_SLEEP);
        return true;
    case RTAPP_TIMER:
        return rt_timer(run, th, e);
    case RTAPP_SUSPEND:
        rt_enqueue(&run->q[run->prog->nres + th->tidx], th);
        return true;
    case RTAPP_RESUME:
        rt_resume(run, th, e->ref);
        return false;
    case RTAPP_BARRIER:
        return rt_barrier(run, th, e->ref);
    case RTAPP_YIELD:
        th->state = RT_RUNNING;
        sched_wake_task(w, &th->task, 0, rt_cpu(th)); /* behind the CPU's queued tasks */
        return true;
    case RTAPP_LOCK:
        if (!q->owner) {
            q->owner = th;
            return false;
        }
        rt_enqueue(q, th);
        return true;
    case RTAPP_UNLOCK:
        rt_unlock(run, th, e->ref);
        return false;
    case RTAPP_WAIT:
        th->wait_mutex = e->mutex;
        rt_unlock(run, th, e->mutex);
        rt_enqueue(q, th);
        return true;
    case RTAPP_SIGNAL:
    case RTAPP_BROAD:
        for (struct rt_thread *s; (s = rt_dequeue(q));) {
            rt_signalled(run, s, rt_cpu(th));
            if (e->type == RTAPP_SIGNAL)
                break;
        }
        return false;
    }
    return false;
}

/* ---- phases ---------------------------------------------------------------- */

/* The affinity from the current phase on: its cpus, else the task's, else
 * [workload] affinity. Changes th->mask; true if it changed. */
static bool rt_apply_affinity(struct rt_run *run, struct rt_thread *th)
{
    const struct world *w = run->w;
    int n = w->machine->ncpus;
    const struct rtapp_phase *ph = &th->def->ph[th->phase];
    const int *cpus = ph->cpus ? ph->cpus : th->def->cpus;
    int ncpus = ph->cpus ? ph->ncpus : th->def->ncpus;
    bool *want = xcalloc((size_t)n, sizeof *want);
    for (int c = 0; c < n; c++)
        want[c] = !cpus && (!w->wl_affinity || w->wl_affinity[c]);
    for (int i = 0; cpus && i < ncpus; i++)
        want[cpus[i]] = true;
    bool changed = memcmp(want, th->mask, (size_t)n * sizeof *want) != 0;
    memcpy(th->mask, want, (size_t)n * sizeof *want);
    free(want);
    if (changed)
        task_set_cpus_allowed(&th->task, th->mask, n);
    return changed;
}

/* sched_setattr with the util clamps rt-app was given (-1: that one
 * unchanged; both -1: no call). A refused call makes rt-app exit: the
 * thread stops and the run fails, naming it. False if refused. */
static bool rt_apply_uclamp(struct rt_run *run, struct rt_thread *th, int64_t util_min,
                            int64_t util_max, int phase)
{
    if (util_min < 0 && util_max < 0)
        return true;
    if (task_set_uclamp(run->w, &th->task, (int)util_min, (int)util_max))
        return true;
    if (!run->refused) {
        run->refused = th;
        run->refused_phase = phase;
    }
    th->state = RT_DONE;
    return false;
}

/* Entering a phase: its util clamps and affinity; a thread on a CPU it
 * excludes moves (it sleeps and is woken where the kernel places it). True
 * if it moves or stops. */
static bool rt_enter_phase(struct rt_run *run, struct rt_thread *th)
{
    const struct rtapp_phase *ph = &th->def->ph[th->phase];
    if (!rt_apply_uclamp(run, th, ph->util_min, ph->util_max, th->phase))
        return true;
    if (!rt_apply_affinity(run, th) || task_allowed_on(&th->task, rt_cpu(th)))
        return false;
    th->state = RT_MOVING;
    th->wake_kind = RT_WAKE_MOVE;
    sim_event_schedule(&run->w->q, &th->wake_ev, run->w->q.now_ns);
    return true;
}

/* The last event of a phase iteration ran: count it, go to the next
 * iteration, phase or thread loop. True if the thread has finished. */
static bool rt_end_iteration(struct rt_run *run, struct rt_thread *th)
{
    if (run->w->q.now_ns >= run->measure_start_ns) {
        struct rt_stats *st = &run->st[th->tidx];
        st->niter++;
        st->run_sum_ns += (double)th->iter_run_ns;
    }
    th->iter_run_ns = 0;
    th->ev = 0;
    if (++th->phase_iter < th->def->ph[th->phase].loop)
        return false;
    th->phase_iter = 0;
    th->entered = false;
    if (++th->phase < th->def->nph)
        return false;
    th->phase = 0;
    if (th->def->loop < 0 || ++th->thread_iter < th->def->loop)
        return false;
    th->state = RT_DONE;
    return true;
}

/* Whether th has run too many events at this instant (the run then fails). */
static bool rt_spinning(struct rt_run *run, struct rt_thread *th)
{
    sim_time_t now = run->w->q.now_ns;
    if (now != th->last_step_ns) {
        th->last_step_ns = now;
        th->steps_at_instant = 0;
    }
    if (++th->steps_at_instant <= RTAPP_MAX_STEPS_PER_INSTANT)
        return false;
    if (!run->stuck)
        run->stuck = th;
    th->state = RT_DONE;
    return true;
}

/* Run th's events from where it is until it runs work or blocks. */
static void rt_step(struct rt_run *run, struct rt_thread *th)
{
    th->state = RT_RUNNING;
    for (;;) {
        if (rt_spinning(run, th))
            return;
        if (!th->entered) {
            th->entered = true;
            if (rt_enter_phase(run, th))
                return;
        }
        const struct rtapp_phase *ph = &th->def->ph[th->phase];
        if (th->ev == ph->nev) {
            if (rt_end_iteration(run, th))
                return;
            continue;
        }
        if (rt_event(run, th, &ph->ev[th->ev++]))
            return;
    }
}

/* The thread's segment ended (work done, or it woke and runs). */
static void rt_thread_ran(struct world *w, struct task *t)
{
    struct rt_thread *th = container_of(t, struct rt_thread, task);
    struct rt_run *run = w->wl_state;
    sim_time_t now = w->q.now_ns;
    if (th->in_run) {
        th->in_run = false;
        th->iter_run_ns += now - th->run_start_ns;
        sim_event_cancel(&w->q, &th->runtime_ev);
    }
    if (th->timer_woken) {
        th->timer_woken = false;
        if (th->expiry_ns >= run->measure_start_ns)
            sim_hist_add(&run->st[th->tidx].wu_lat, now - th->expiry_ns);
    }
    if (th->state == RT_DONE)
        return;     /* refused its uclamp request at the start (rt_apply_uclamp) */
    if (!th->started) {
        th->started = true;
        if (th->def->delay_us > 0) {
            rt_sleep_until(run, th, now + th->def->delay_us * 1000, RT_WAKE_SLEEP);
            return;
        }
    }
    rt_step(run, th);
}

/* ---- run ------------------------------------------------------------------- */

static void rt_warmup_done(struct sim_event *ev, void *arg)
{
    (void)ev;
    world_measure_reset(arg);
}

/* Users of each barrier: the threads whose task names it. */
static void rt_count_barrier_users(struct rt_run *run)
{
    const struct rtapp_prog *p = run->prog;
    for (int t = 0; t < p->ntasks; t++) {
        const struct rtapp_task *task = &p->task[t];
        for (int r = 0; r < p->nres; r++) {
            bool uses = false;
            for (int k = 0; k < task->nph; k++)
                for (int e = 0; e < task->ph[k].nev; e++)
                    uses |= task->ph[k].ev[e].type == RTAPP_BARRIER && task->ph[k].ev[e].ref == r;
            run->q[r].users += uses ? (int)task->instance : 0;
        }
    }
}


/* sched_setscheduler as rt-app calls it for the task's policy and priority:
 * an RT policy without a priority gets rt-app's default, 10. */
static enum sched_policy rt_policy_of(const struct rtapp_task *def)
{
    if (strcmp(def->policy, "SCHED_FIFO") == 0)
        return SCHED_POLICY_FIFO;
    if (strcmp(def->policy, "SCHED_RR") == 0)
        return SCHED_POLICY_RR;
    return SCHED_POLICY_NORMAL;
}

static int rt_priority_of(const struct rtapp_task *def)
{
    return def->priority > 0 ? (int)def->priority : RTAPP_RT_DEFAULT_PRIO;
}

static void rt_apply_policy(struct task *t, const struct rtapp_task *def)
{
    task_set_scheduler(t, rt_policy_of(def), rt_priority_of(def));
}
static void rt_start_threads(struct rt_run *run)
{
    struct world *w = run->w;
    const struct rtapp_prog *p = run->prog;
    int n = 0;
    for (int t = 0; t < p->ntasks; t++)
        n += (int)p->task[t].instance;
    run->thr = xcalloc((size_t)(n ? n : 1), sizeof *run->thr);
    run->nthreads = n;
    int i = 0;
    for (int t = 0; t < p->ntasks; t++) {
        for (int64_t k = 0; k < p->task[t].instance; k++, i++) {
            struct rt_thread *th = &run->thr[i];
            th->def = &p->task[t];
            th->tidx = t;
            th->wake_cpu = -1;
            th->wake_ns = SIM_TIME_MAX;
            th->last_step_ns = -1;
            th->timer_next_ns = xcalloc((size_t)(p->nres ? p->nres : 1), sizeof *th->timer_next_ns);
            for (int r = 0; r < p->nres; r++)
                th->timer_next_ns[r] = -1;
            th->mask = xcalloc((size_t)w->machine->ncpus, sizeof *th->mask);
            sim_event_init(&th->wake_ev, rt_wake_fired);
            sim_event_init(&th->runtime_ev, rt_runtime_over);
            task_init(&th->task, rt_thread_ran, WL_LAUNCH_CPU);
            th->task.comm = "rt-app";
            rt_apply_policy(&th->task, th->def);
            rt_apply_uclamp(run, th, th->def->util_min, th->def->util_max, -1);
            th->phase = 0;
            rt_apply_affinity(run, th);  /* the first phase's from the fork on */
            th->entered = false;
        }
    }
    /* rt-app's main thread creates them in file order. */
    for (i = 0; i < n; i++)
        task_fork(w, &run->thr[i].task, 0, WL_LAUNCH_CPU);
}

/* Whether task t (every task: NULL) has an event of type a or b: a task
 * without timers reports no timer metrics (they would be empty in every
 * run, not just this one). */
static bool rt_has_event(const struct rtapp_prog *p, const struct rtapp_task *t,
                         enum rtapp_ev_type a, enum rtapp_ev_type b)
{
    for (int i = 0; i < p->ntasks; i++) {
        const struct rtapp_task *task = &p->task[i];
        if (t && task != t)
            continue;
        for (int k = 0; k < task->nph; k++)
            for (int e = 0; e < task->ph[k].nev; e++)
                if (task->ph[k].ev[e].type == a || task->ph[k].ev[e].type == b)
                    return true;
    }
    return false;
}

static void rt_put_task_metrics(struct rpt_metric_set *out, const struct rtapp_prog *p,
                                const struct rtapp_task *t, const char *prefix,
                                const struct rt_stats *st)
{
    char name[RPT_NAME_MAX];
    /* The totals always (wu_lat_p99_us is the primary metric). */
    bool timers = !t || rt_has_event(p, t, RTAPP_TIMER, RTAPP_TIMER);
    bool runs = !t || rt_has_event(p, t, RTAPP_RUN, RTAPP_RUNTIME);
    struct { const char *suffix, *unit; enum rpt_better better; bool put; double v; } m[] = {
        { "wu_lat_avg_us", "us", RPT_LOWER_BETTER, timers, sim_hist_mean_us(&st->wu_lat) },
        { "wu_lat_p99_us", "us", RPT_LOWER_BETTER, timers,
          sim_hist_percentile_us(&st->wu_lat, 99) },
        { "wu_lat_max_us", "us", RPT_LOWER_BETTER, timers,
          st->wu_lat.count ? (double)st->wu_lat.max_ns / 1000.0 : NAN },
        { "slack_avg_us", "us", RPT_HIGHER_BETTER, timers,
          st->ntimer ? st->slack_sum_ns / (double)st->ntimer / 1000.0 : NAN },
        { "missed_pct", "%", RPT_LOWER_BETTER, timers,
          st->ntimer ? 100.0 * (double)st->nmissed / (double)st->ntimer : NAN },
        { "activations", "", RPT_NEUTRAL, timers, (double)st->ntimer },
        { "run_avg_us", "us", RPT_LOWER_BETTER, runs,
          st->niter ? st->run_sum_ns / (double)st->niter / 1000.0 : NAN },
        { "loops", "", RPT_NEUTRAL, true, (double)st->niter },
    };
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
        if (!m[i].put)
            continue;
        snprintf(name, sizeof name, "%s%s", prefix, m[i].suffix);
        rpt_set_put(out, name, m[i].unit, m[i].better, m[i].v);
    }
}

static void rt_collect(struct rt_run *run, struct rpt_metric_set *out)
{
    const struct rtapp_prog *p = run->prog;
    struct rt_stats *all = xcalloc(1, sizeof *all);
    sim_hist_init(&all->wu_lat);
    for (int t = 0; t < p->ntasks; t++) {
        const struct rt_stats *st = &run->st[t];
        sim_hist_merge(&all->wu_lat, &st->wu_lat);
        all->slack_sum_ns += st->slack_sum_ns;
        all->run_sum_ns += st->run_sum_ns;
        all->ntimer += st->ntimer;
        all->nmissed += st->nmissed;
        all->niter += st->niter;
    }
    rt_put_task_metrics(out, p, NULL, "", all);
    free(all);
    for (int t = 0; t < p->ntasks; t++) {
        char prefix[RPT_NAME_MAX];
        snprintf(prefix, sizeof prefix, "task.%s.", p->task[t].metric_name);
        rt_put_task_metrics(out, p, &p->task[t], prefix, &run->st[t]);
    }
    world_collect_metrics(run->w, out);
}

/* CPUs the file names that the machine lacks: the run fails, naming them. */
static int rt_check_cpus(const struct rtapp_prog *p, const struct hw_machine *m, char *msg,
                         size_t msgsize)
{
    if (p->max_cpu < m->ncpus)
        return 0;
    snprintf(msg, msgsize, "%s: CPU %d (in cpus or calibration) is not on %s (CPUs 0-%d)",
             p->path, p->max_cpu, m->name, m->ncpus - 1);
    return -1;
}

static sim_time_t rt_window_ns(const struct rtapp_config *cfg)
{
    if (cfg->duration_ms > 0)
        return (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS);
    return (sim_time_t)rt_prog(cfg)->duration_s * 1000 * SIM_NS_PER_MS;
}

/* Why the kernel refused the first failed uclamp request, as rt-app's
 * exit would leave it to the user. */
static void rt_refused_msg(const struct rt_run *run, char *msg, size_t msgsize)
{
    const struct rt_thread *th = run->refused;
    const struct uclamp_sys *u = &run->w->sched.uclamp;
    char where[RPT_NAME_MAX * 2];
    if (run->refused_phase < 0)
        snprintf(where, sizeof where, "tasks.%s", th->def->name);
    else
        snprintf(where, sizeof where, "tasks.%s, phase %d", th->def->name, run->refused_phase + 1);
    if (!u->built)
        snprintf(msg, msgsize, "%s: %s: sched_setattr's util clamps fail with EOPNOTSUPP (uclamp "
                 "needs kernel 5.3 or later with CONFIG_UCLAMP_TASK=y); rt-app exits",
                 run->prog->path, where);
    else
        snprintf(msg, msgsize, "%s: %s: sched_setattr refuses a util_min above the task's "
                 "util_max (EINVAL); rt-app exits", run->prog->path, where);
}

static void rt_free_run(struct rt_run *run)
{
    for (int i = 0; i < run->nthreads; i++) {
        sim_event_cancel(&run->w->q, &run->thr[i].wake_ev);
        sim_event_cancel(&run->w->q, &run->thr[i].runtime_ev);
        free(run->thr[i].timer_next_ns);
        free(run->thr[i].mask);
    }
    free(run->thr);
    free(run->q);
    free(run->st);
}

static int rtapp_run_point(struct world *w, const void *cfgp, int load_point,
                           struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point;
    const struct rtapp_config *cfg = cfgp;
    const struct rtapp_prog *p = rt_prog(cfg);
    if (rt_check_cpus(p, w->machine, msg, msgsize) != 0)
        return -1;
    struct rt_run run = { .w = w, .prog = p };
    run.calib_speed = wl_cpu_top_speed(w->machine, p->calib_ns_per_loop > 0 ? 0 : p->calib_cpu);
    run.q = xcalloc((size_t)(p->nres + p->ntasks), sizeof *run.q);  /* then suspend queues */
    run.st = xcalloc((size_t)p->ntasks, sizeof *run.st);
    for (int t = 0; t < p->ntasks; t++)
        sim_hist_init(&run.st[t].wu_lat);
    rt_count_barrier_users(&run);
    w->wl_state = &run;
    run.measure_start_ns = (sim_time_t)(cfg->warmup_ms * SIM_NS_PER_MS);
    sim_event_init(&run.warmup_ev, rt_warmup_done);
    sim_event_schedule(&w->q, &run.warmup_ev, run.measure_start_ns);
    rt_start_threads(&run);
    world_run_until(w, run.measure_start_ns + rt_window_ns(cfg));
    int rc = 0;
    if (run.refused) {
        rt_refused_msg(&run, msg, msgsize);
        rc = -1;
    } else if (run.stuck) {
        const struct rt_thread *th = run.stuck;
        snprintf(msg, msgsize, "%s: tasks.%s: %d events at one instant without time passing "
                 "(a lost resume or signal, or a barrier that is always complete?)",
                 p->path, th->def->name, RTAPP_MAX_STEPS_PER_INSTANT);
        rc = -1;
    } else {
        rt_collect(&run, out);
    }
    w->wl_state = NULL;
    rt_free_run(&run);
    return rc;
}

static int rtapp_validate(const void *cfgp, char *msg, size_t msgsize)
{
    const struct rtapp_config *cfg = cfgp;
    if (!cfg->file)
        return snprintf(msg, msgsize, "rtapp needs 'file = USE_CASE.json'"), -1;
    if (cfg->duration_ms <= 0 && rt_prog(cfg)->duration_s <= 0)
        return snprintf(msg, msgsize, "%s has no global.duration: set duration_ms",
                        cfg->file->path), -1;
    return 0;
}

/* The CPUs the use case names must be the machine's: checked when the
 * scenario loads (exit 2 at the file's line), not after other variants ran. */
static int rtapp_check_machine(const void *cfgp, const struct hw_machine *m, const char **key,
                               char *msg, size_t msgsize)
{
    const struct rtapp_config *cfg = cfgp;
    if (!cfg->file)
        return 0;
    *key = "file";
    return rt_check_cpus(rt_prog(cfg), m, msg, msgsize);
}

static void *rtapp_load_file(const char *path, struct diag *d)
{
    return rtapp_load(path, d);
}

static void rtapp_free_file(void *data)
{
    rtapp_free(data);
}

/* The util clamps rt-app asks for: at the thread's start and per phase. */
static void rtapp_explain_uclamp(const struct rtapp_task *t, struct explain *x)
{
    if (t->util_min >= 0 || t->util_max >= 0)
        explain_add(x, "workload: task %s: sched_setattr util_min %lld, util_max %lld at its "
                       "start (-1: unchanged; uclamp)", t->name, (long long)t->util_min,
                    (long long)t->util_max);
    for (int k = 0; k < t->nph; k++)
        if (t->ph[k].util_min >= 0 || t->ph[k].util_max >= 0)
            explain_add(x, "workload: task %s: phase %d sets util_min %lld, util_max %lld "
                           "(-1: unchanged; uclamp)", t->name, k + 1,
                        (long long)t->ph[k].util_min, (long long)t->ph[k].util_max);
}

static void rtapp_explain(const void *cfg, struct explain *x)
{
    const struct rtapp_prog *p = rt_prog(cfg);
    for (int i = 0; i < p->ntasks; i++) {
        const struct rtapp_task *t = &p->task[i];
        if (rt_policy_of(t) != SCHED_POLICY_NORMAL)
            explain_add(x, "workload: task %s (%lld thread%s): %s priority %d (RT class)", t->name,
                        (long long)t->instance, t->instance == 1 ? "" : "s", t->policy,
                        rt_priority_of(t));
        else
            explain_add(x, "workload: task %s (%lld thread%s): %s%s (fair class, nice 0)", t->name,
                        (long long)t->instance, t->instance == 1 ? "" : "s", t->policy,
                        strcmp(t->policy, "SCHED_OTHER") == 0 ? "" : ", run as SCHED_OTHER");
        rtapp_explain_uclamp(t, x);
    }
}

const struct wl_ops wl_rtapp_ops = {
    .name = "rtapp",
    .desc = "an rt-app JSON use case: tasks, phases, run/sleep/timer events; latency, slack, misses",
    .primary_metric = "wu_lat_p99_us",
    .params = rtapp_params,
    .config_size = sizeof(struct rtapp_config),
    .validate = rtapp_validate,
    .check_machine = rtapp_check_machine,
    .run = rtapp_run_point,
    .load_file = rtapp_load_file,
    .free_file = rtapp_free_file,
    .explain = rtapp_explain,
};
