/* replay: a recorded trace's tasks (src/trace/replay.h) run again on the
 * simulated machine, so a recorded pattern can be A/B-tested against any
 * knob.
 *
 * Each task of the trace (not the idle task) is a simulated task:
 *  - a run burst is work, not time: a burst recorded on trace CPU c is the
 *    work machine CPU cpu_map[c] does in the recorded time running alone at
 *    its core type's top frequency (wl_cpu_top_speed, as rt-app's
 *    calibration), with the recorded time scaled by the recorded frequency
 *    over that CPU's top recorded one (`work = frequency`, the default) or
 *    not (`work = wall`). It takes longer on a slower core type, at a lower
 *    frequency or beside a busy SMT sibling. A burst runs to completion
 *    (pmlab has no preemption): the recorded slices between preemptions are
 *    one burst;
 *  - a sleep woken by a timer replays as an hrtimer of the recorded length
 *    on the task's CPU, which the cpuidle governor sees in its sleep length;
 *    one woken by a device interrupt as a sleep of the recorded length that
 *    the governor cannot foresee, ended by an interrupt on the recorded CPU
 *    (mapped);
 *  - a sleep whose waker the trace does not say (no wake-up events, as in a
 *    trace recorded without sched_wakeup/sched_waking) replays as
 *    `unknown_wake` says. menu and teo take the next timer event as the
 *    sleep length (tick_nohz_get_sleep_length: the nearest hrtimer or timer
 *    wheel expiry, or the tick while it runs), so a timer they see and a
 *    wake-up they do not are different idle periods to them. `irq` (the
 *    default): a wake-up the governor cannot foresee, ended by an interrupt
 *    on the task's own CPU, as for a task woken by I/O or another CPU; the
 *    governor's sleep length is the tick or a housekeeping timer and it
 *    predicts only from its history. `timer`: an hrtimer of the recorded
 *    length on the task's CPU, as for a periodic task sleeping on a timer
 *    (an rt-app task, a clock_nanosleep loop): the governor's
 *    sleep length is the recorded sleep, as for a recorded timer wake-up;
 *  - a wake-up by another task replays as a dependency: the wakee sleeps
 *    until the waker reaches that point of its own sequence (from the
 *    waker's CPU), however long that takes here; a fork starts the child
 *    from the parent's CPU (select_task_rq_fair's fork path);
 *  - tasks present when the trace starts wake at their first recorded time
 *    with their first CPU as the previous one, and are placed by the
 *    scheduler like any wake-up; `pin = recorded` pins each burst to the
 *    mapped CPU it was recorded on instead;
 *  - device interrupts that woke no task are arrivals on their mapped CPU at
 *    their recorded time: they end the CPU's idle period if it idles (the
 *    handler's cost is not modelled; counted with the housekeeping timers'
 *    wake-ups).
 * `loop = N` runs the trace N times: a task present at the start begins
 * iteration k at k x the trace's span (or when its iteration k-1 ends, if
 * later); a forked task at its parent's fork; a dependency waits for the
 * waker's same iteration.
 *
 * Metrics: completion_ms (when the last task ended its last iteration)
 * beside recorded_completion_ms (when the recorded tasks were done in the
 * last run of the trace: (loop - 1) x span + the last task's end) and
 * completion_ratio, their ratio; busy_ms (the replayed
 * bursts' time on a CPU, se.sum_exec_runtime's share) beside recorded_busy_ms (loop x
 * the trace's on-CPU time, as wall time) and busy_ratio, wu_lat_avg_us,
 * wu_lat_p99_us, wu_lat_max_us (a wake-up, timer or dependency, to the task
 * running), with recorded_wu_lat_avg_us when the trace has wake-up events;
 * then the machine and idle metrics of the whole run.
 *
 * The trace's tasks are every task it recorded, kworkers and daemon
 * threads included, so the machine's own wake-up chains
 * (kernel/irq/wakeup_chain.h) are off during a replay: they would run the
 * recorded background a second time. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hist.h"
#include "trace/replay.h"
#include "util/container.h"
#include "util/strutil.h"
#include "util/xalloc.h"
#include "workload/workload.h"
#include "world.h"

struct replay_config {
    struct wl_file *trace;     /* struct trace_model */
    char cpu_map[WL_TEXT_MAX]; /* machine CPU of each trace CPU, "" identity */
    char pin[WL_TEXT_MAX];     /* "none" or "recorded" */
    char work[WL_TEXT_MAX];    /* "frequency" or "wall" */
    char unknown_wake[WL_TEXT_MAX]; /* "irq" or "timer": a sleep of unknown waker */
    int64_t loop;              /* runs of the trace */
    double timeout_x;          /* the run fails beyond this many recorded spans */
};

static const struct wl_param replay_params[] = {
    { "trace", WL_PARAM_FILE, offsetof(struct replay_config, trace), 0, 0, "",
      "trace-cmd trace.dat (or .dat.gz) to replay, relative to the scenario's directory" },
    { "cpu_map", WL_PARAM_TEXT, offsetof(struct replay_config, cpu_map), 0, 0, "",
      "machine CPU of trace CPU 0, 1, ... (e.g. 8-13 or 0,2,4); empty: the same numbers, "
      "when the counts match" },
    { "pin", WL_PARAM_TEXT, offsetof(struct replay_config, pin), 0, 0, "none",
      "none: the scheduler places the tasks; recorded: each burst on its recorded CPU (mapped)" },
    { "work", WL_PARAM_TEXT, offsetof(struct replay_config, work), 0, 0, "frequency",
      "a burst's work: frequency (recorded time x recorded/top recorded frequency) or wall" },
    { "unknown_wake", WL_PARAM_TEXT, offsetof(struct replay_config, unknown_wake), 0, 0, "irq",
      "a sleep the trace does not say what woke: irq (a wake-up the cpuidle governor cannot "
      "foresee) or timer (an hrtimer of the recorded length, in the governor's sleep length)" },
    { "loop", WL_PARAM_INT, offsetof(struct replay_config, loop), 1, 1e6, "1",
      "runs of the trace, back to back" },
    { "timeout_x", WL_PARAM_DOUBLE, offsetof(struct replay_config, timeout_x), 1, 1e4, "20",
      "the run fails when the replay takes longer than this many times the recorded time" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

/* Simulated time run at once while waiting for the replay to end, ns: the
 * metrics' window ends at most this long after the last task does. */
#define REPLAY_CHUNK_NS (100 * SIM_NS_PER_US)

enum rp_state { RP_UNSTARTED, RP_ACTIVE, RP_SLEEPING, RP_WAITING, RP_IDLE_ITER, RP_FINISHED };

struct rp_task {
    struct task task;
    const struct trace_task *def;
    enum rp_state st;
    int iter, pos;             /* iteration, next step */
    int pending_forks;         /* forks of later iterations while this one runs */
    bool forked_once;
    struct sim_event wake_ev;  /* end of a sleep, or an iteration's start */
    int timer_cpu;             /* CPU of the hrtimer armed for it, -1 none */
    sim_time_t timer_ns;
    int irq_cpu;               /* a sleep without a timer: the ending interrupt's CPU, -1
                                * the task's own */
    bool woken;                /* running after a wake-up: record its latency */
    sim_time_t woken_ns;
    bool in_burst;
    sim_time_t burst_exec_ns;  /* its sum_exec_ns when the burst began */
};

struct rp_run {
    struct world *w;
    const struct replay_config *cfg;
    const struct trace_model *m;
    bool unknown_timer;        /* unknown_wake = timer */
    int *map;                  /* [m->ncpus] machine CPU of each trace CPU */
    struct rp_task *t;
    int ntasks, nfinished;
    sim_time_t span_ns, completion_ns;
    double busy_ns;
    struct sim_hist wu_lat;
    size_t next_irq;           /* arrivals: next index, iteration */
    int irq_iter;
    struct sim_event irq_ev;
};

static const struct trace_model *rp_model(const struct replay_config *cfg)
{
    return cfg->trace->data;
}

/* ---- cpu_map ------------------------------------------------------------------ */

/* "8-13" or "0,2,4" (ranges ascending or descending) into map[n]; -1 with msg. */
static int rp_parse_map(const char *text, int n, int machine_ncpus, int *map, char *msg,
                        size_t msgsize)
{
    int k = 0;
    for (const char *p = text; *p;) {
        char item[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            return snprintf(msg, msgsize, "'%s': expected CPU numbers or ranges A-B, comma-"
                            "separated", text), -1;
        memcpy(item, p, len);
        item[len] = 0;
        p += len + (p[len] == ',');
        char *dash = strchr(item + 1, '-');
        if (dash)
            *dash = 0;
        int64_t a, b;
        if (str_to_i64(item, &a) != 0 || (dash && str_to_i64(dash + 1, &b) != 0))
            return snprintf(msg, msgsize, "'%s': expected CPU numbers or ranges A-B", text), -1;
        if (!dash)
            b = a;
        for (int64_t c = a;; c += a <= b ? 1 : -1) {
            if (c < 0 || c >= machine_ncpus)
                return snprintf(msg, msgsize, "CPU %lld is not on the machine (CPUs 0-%d)",
                                (long long)c, machine_ncpus - 1), -1;
            if (k == n)
                return snprintf(msg, msgsize, "'%s' names more CPUs than the trace's %d", text,
                                n), -1;
            map[k++] = (int)c;
            if (c == b)
                break;
        }
    }
    if (k != n)
        return snprintf(msg, msgsize, "'%s' names %d CPUs; the trace has %d (one machine CPU "
                        "per trace CPU, in order)", text, k, n), -1;
    return 0;
}

/* map[m->ncpus] from cfg for machine mc; -1 with *key and msg. */
static int rp_build_map(const struct replay_config *cfg, const struct hw_machine *mc, int *map,
                        const char **key, char *msg, size_t msgsize)
{
    const struct trace_model *m = rp_model(cfg);
    *key = "cpu_map";
    if (cfg->cpu_map[0])
        return rp_parse_map(cfg->cpu_map, m->ncpus, mc->ncpus, map, msg, msgsize);
    if (m->ncpus != mc->ncpus) {
        *key = "trace";
        return snprintf(msg, msgsize, "%s was recorded on %d CPUs and machine %s has %d: give "
                        "cpu_map = the machine CPU of each trace CPU (e.g. cpu_map = 0-%d)",
                        m->path, m->ncpus, mc->name, mc->ncpus,
                        (m->ncpus < mc->ncpus ? m->ncpus : mc->ncpus) - 1), -1;
    }
    for (int c = 0; c < m->ncpus; c++)
        map[c] = c;
    return 0;
}

static int replay_check_machine(const void *cfgp, const struct hw_machine *mc, const char **key,
                                char *msg, size_t msgsize)
{
    const struct replay_config *cfg = cfgp;
    int *map = xcalloc((size_t)rp_model(cfg)->ncpus, sizeof *map);
    int rc = rp_build_map(cfg, mc, map, key, msg, msgsize);
    free(map);
    return rc;
}

/* ---- tasks ---------------------------------------------------------------------- */

static void rp_sync_timer(struct rp_run *run, int cpu)
{
    sim_time_t first = SIM_TIME_MAX;
    for (int i = 0; i < run->ntasks; i++)
        if (run->t[i].timer_cpu == cpu && run->t[i].timer_ns < first)
            first = run->t[i].timer_ns;
    idle_set_wl_timer(run->w, cpu, first);
}

/* The machine CPU of the next burst from step pos on (-1 none). */
static int rp_next_burst_cpu(const struct rp_run *run, const struct rp_task *tk)
{
    for (int s = tk->pos; s < tk->def->nsteps; s++)
        if (tk->def->step[s].kind == TRACE_STEP_RUN && tk->def->step[s].cpu >= 0)
            return run->map[tk->def->step[s].cpu];
    return -1;
}

/* pin = recorded: the next burst's CPU is the only one allowed. */
static void rp_pin(const struct rp_run *run, struct rp_task *tk)
{
    if (strcmp(run->cfg->pin, "recorded") != 0)
        return;
    int cpu = rp_next_burst_cpu(run, tk);
    if (cpu >= 0)
        task_set_affinity(&tk->task, cpu);
}

/* Wake tk (asleep) from waker_cpu; its done() runs when it is on a CPU. */
static void rp_wake(struct rp_run *run, struct rp_task *tk, int waker_cpu, bool measure)
{
    tk->st = RP_ACTIVE;
    tk->woken = measure;
    tk->woken_ns = run->w->q.now_ns;
    rp_pin(run, tk);
    sched_wake_task(run->w, &tk->task, 0, waker_cpu);
}

/* Sleep until when_ns; an hrtimer on the task's CPU when the governor
 * could know it (timer), else a wake-up from wake_cpu it cannot foresee. */
static void rp_sleep_until(struct rp_run *run, struct rp_task *tk, sim_time_t when_ns,
                           bool timer, int wake_cpu)
{
    tk->st = RP_SLEEPING;
    tk->timer_cpu = timer ? tk->task.prev_cpu : -1;
    tk->timer_ns = timer ? when_ns : SIM_TIME_MAX;
    tk->irq_cpu = timer ? -1 : wake_cpu;
    sim_event_schedule(&run->w->q, &tk->wake_ev, when_ns);
    if (timer)
        rp_sync_timer(run, tk->timer_cpu);
}

static void rp_wake_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rp_task *tk = container_of(ev, struct rp_task, wake_ev);
    struct rp_run *run = w->wl_state;
    int cpu;
    if (tk->timer_cpu >= 0) {
        cpu = tk->timer_cpu;
        tk->timer_cpu = -1;
        tk->timer_ns = SIM_TIME_MAX;
        rp_sync_timer(run, cpu);
    } else {
        cpu = tk->irq_cpu >= 0 ? tk->irq_cpu : tk->task.prev_cpu;
    }
    rp_wake(run, tk, cpu >= 0 ? cpu : WL_LAUNCH_CPU, true);
}

/* Whether tk's WAIT step s (peer K, K's step ps) is satisfied: K has
 * passed its WAKE step in tk's iteration, or is further on. */
static bool rp_wait_done(const struct rp_run *run, const struct rp_task *tk,
                         const struct trace_step *s)
{
    const struct rp_task *k = &run->t[s->peer];
    return k->st == RP_FINISHED || k->iter > tk->iter ||
           (k->iter == tk->iter && k->pos > s->peer_step);
}

static void rp_start_iteration(struct rp_run *run, struct rp_task *tk, int parent_cpu);

/* tk's child c is forked from cpu. */
static void rp_fork(struct rp_run *run, struct rp_task *c, int cpu)
{
    if (c->st == RP_FINISHED)
        return;
    if (c->st != RP_UNSTARTED && c->st != RP_IDLE_ITER) {
        c->pending_forks++;
        return;
    }
    rp_start_iteration(run, c, cpu);
}

/* The last task ended: the replay's completion. */
static void rp_finished(struct rp_run *run, struct rp_task *tk)
{
    tk->st = RP_FINISHED;
    if (++run->nfinished == run->ntasks)
        run->completion_ns = run->w->q.now_ns;
}

/* tk ran its last step of an iteration (it is on a CPU, in its done()). */
static void rp_end_iteration(struct rp_run *run, struct rp_task *tk)
{
    tk->pos = 0;
    if (++tk->iter >= run->cfg->loop) {
        rp_finished(run, tk);
        return;
    }
    if (tk->def->parent >= 0) {
        tk->st = RP_IDLE_ITER;
        if (tk->pending_forks > 0) {
            tk->pending_forks--;
            tk->st = RP_ACTIVE; /* goes on at once */
        }
        return;
    }
    sim_time_t next = (sim_time_t)tk->iter * run->span_ns + tk->def->start_ns;
    if (next > run->w->q.now_ns)
        rp_sleep_until(run, tk, next, true, -1);
}

/* Whether SLEEP step s replays as an hrtimer the governor sees: a recorded
 * timer wake-up, or an unknown one with unknown_wake = timer. */
static bool rp_sleep_on_timer(const struct rp_run *run, const struct trace_step *s)
{
    return s->waker == TRACE_WAKER_TIMER ||
           (s->waker == TRACE_WAKER_UNKNOWN && run->unknown_timer);
}

/* Run tk's steps from pos until it runs work or sleeps (it is current). */
static void rp_step(struct rp_run *run, struct rp_task *tk)
{
    struct world *w = run->w;
    const struct trace_task *d = tk->def;
    int cpu = tk->task.prev_cpu;
    while (tk->st == RP_ACTIVE) {
        if (tk->pos == d->nsteps) {
            rp_end_iteration(run, tk);
            continue; /* on at once, or asleep until the next iteration */
        }
        const struct trace_step *s = &d->step[tk->pos];
        switch (s->kind) {
        case TRACE_STEP_RUN: {
            tk->pos++;
            double wall = strcmp(run->cfg->work, "wall") == 0 ? (double)s->ns : s->work_ns;
            int rec = s->cpu >= 0 ? run->map[s->cpu] : cpu;
            tk->in_burst = true;
            tk->burst_exec_ns = tk->task.sum_exec_ns;
            sched_wake_task(w, &tk->task, wall * wl_cpu_top_speed(w->machine, rec), cpu);
            return;
        }
        case TRACE_STEP_SLEEP:
            tk->pos++;
            if (s->ns > 0) {
                bool timer = rp_sleep_on_timer(run, s);
                int from = s->waker == TRACE_WAKER_IRQ && s->cpu >= 0 ? run->map[s->cpu] : -1;
                rp_sleep_until(run, tk, w->q.now_ns + s->ns, timer, from);
                return;
            }
            break;
        case TRACE_STEP_WAIT:
            if (!rp_wait_done(run, tk, s)) {
                tk->st = RP_WAITING;
                return;
            }
            tk->pos++;
            break;
        case TRACE_STEP_WAKE: {
            tk->pos++;
            struct rp_task *k = &run->t[s->peer];
            if (k->st == RP_WAITING && k->iter == tk->iter && k->pos == s->peer_step)
                rp_wake(run, k, cpu, true);
            break;
        }
        case TRACE_STEP_FORK:
            tk->pos++;
            rp_fork(run, &run->t[s->peer], cpu);
            break;
        }
    }
}

/* tk's segment ended: a burst done, or it woke and runs. */
static void rp_task_ran(struct world *w, struct task *t)
{
    struct rp_task *tk = container_of(t, struct rp_task, task);
    struct rp_run *run = w->wl_state;
    if (tk->in_burst) {
        /* Its time on a CPU, not queued behind another task. */
        tk->in_burst = false;
        run->busy_ns += (double)(t->sum_exec_ns - tk->burst_exec_ns);
    }
    if (tk->woken) {
        tk->woken = false;
        sim_hist_add(&run->wu_lat, w->q.now_ns - tk->woken_ns);
    }
    rp_step(run, tk);
}

/* Iteration start: tasks of the trace's start wake at their recorded time,
 * forked ones when forked (from parent_cpu). */
static void rp_start_iteration(struct rp_run *run, struct rp_task *tk, int parent_cpu)
{
    tk->st = RP_ACTIVE;
    tk->pos = 0;
    if (!tk->forked_once && tk->def->parent >= 0) {
        tk->forked_once = true;
        rp_pin(run, tk);
        task_fork(run->w, &tk->task, 0, parent_cpu);
        return;
    }
    rp_wake(run, tk, parent_cpu, false);
}

static void rp_root_start(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rp_task *tk = container_of(ev, struct rp_task, wake_ev);
    struct rp_run *run = w->wl_state;
    sim_event_init(&tk->wake_ev, rp_wake_fired);
    rp_start_iteration(run, tk, tk->task.prev_cpu);
}

/* ---- interrupts ------------------------------------------------------------------- */

static void rp_irq_arm(struct rp_run *run)
{
    const struct trace_model *m = run->m;
    if (run->next_irq == m->nirq) {
        run->next_irq = 0;
        if (++run->irq_iter >= run->cfg->loop)
            return;
    }
    if (m->nirq == 0)
        return;
    sim_time_t at = (sim_time_t)run->irq_iter * run->span_ns + m->irq[run->next_irq].at_ns;
    sim_event_schedule(&run->w->q, &run->irq_ev, at > run->w->q.now_ns ? at : run->w->q.now_ns);
}

/* A device interrupt on its mapped CPU: an idle CPU wakes (idle.c's
 * housekeeping timers do the same), a busy one runs the handler unmodelled. */
static void rp_irq_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct rp_run *run = container_of(ev, struct rp_run, irq_ev);
    int cpu = run->map[run->m->irq[run->next_irq++].cpu];
    if (w->idle.cpu[cpu].in_idle && !w->sched.cpu[cpu].waking)
        sched_idle_wakeup(w, cpu, IDLE_WAKE_TIMER);
    if (run->nfinished < run->ntasks)
        rp_irq_arm(run);
}

/* ---- run --------------------------------------------------------------------------- */

static void rp_start(struct rp_run *run)
{
    struct world *w = run->w;
    const struct trace_model *m = run->m;
    run->ntasks = m->ntasks;
    run->t = xcalloc((size_t)(m->ntasks ? m->ntasks : 1), sizeof *run->t);
    for (int i = 0; i < m->ntasks; i++) {
        struct rp_task *tk = &run->t[i];
        tk->def = &m->task[i];
        tk->timer_cpu = -1;
        tk->timer_ns = SIM_TIME_MAX;
        tk->irq_cpu = -1;
        int first = tk->def->first_cpu >= 0 ? run->map[tk->def->first_cpu] : WL_LAUNCH_CPU;
        task_init(&tk->task, rp_task_ran, first);
        tk->task.comm = "replay";
        wl_task_affinity(w, &tk->task);
        if (tk->def->parent >= 0) {
            sim_event_init(&tk->wake_ev, rp_wake_fired);
            continue;
        }
        sim_event_init(&tk->wake_ev, rp_root_start);
        sim_event_schedule(&w->q, &tk->wake_ev, tk->def->start_ns);
    }
    sim_event_init(&run->irq_ev, rp_irq_fired);
    rp_irq_arm(run);
}

static void rp_collect(struct rp_run *run, struct rpt_metric_set *out)
{
    const struct trace_model *m = run->m;
    /* The recorded tasks were done at end_ns of the last run of the trace. */
    double recorded_ns = (double)(run->cfg->loop - 1) * (double)run->span_ns + (double)m->end_ns;
    double rec_busy_ns = (double)run->cfg->loop * m->busy_ns;
    rpt_set_put(out, "completion_ms", "ms", RPT_LOWER_BETTER, (double)run->completion_ns / 1e6);
    rpt_set_put(out, "recorded_completion_ms", "ms", RPT_NEUTRAL, recorded_ns / 1e6);
    rpt_set_put(out, "completion_ratio", "", RPT_LOWER_BETTER,
                recorded_ns > 0 ? (double)run->completion_ns / recorded_ns : NAN);
    rpt_set_put(out, "busy_ms", "ms", RPT_NEUTRAL, run->busy_ns / 1e6);
    rpt_set_put(out, "recorded_busy_ms", "ms", RPT_NEUTRAL, rec_busy_ns / 1e6);
    rpt_set_put(out, "busy_ratio", "", RPT_LOWER_BETTER,
                rec_busy_ns > 0 ? run->busy_ns / rec_busy_ns : NAN);
    rpt_set_put(out, "wu_lat_avg_us", "us", RPT_LOWER_BETTER, sim_hist_mean_us(&run->wu_lat));
    rpt_set_put(out, "wu_lat_p99_us", "us", RPT_LOWER_BETTER,
                sim_hist_percentile_us(&run->wu_lat, 99));
    rpt_set_put(out, "wu_lat_max_us", "us", RPT_LOWER_BETTER,
                run->wu_lat.count ? (double)run->wu_lat.max_ns / 1000.0 : NAN);
    double lat_sum = 0;
    int nlat = 0;
    for (int t = 0; t < m->ntasks; t++)
        for (int s = 0; s < m->task[t].nsteps; s++)
            if (m->task[t].step[s].lat_ns >= 0) {
                lat_sum += (double)m->task[t].step[s].lat_ns;
                nlat++;
            }
    if (nlat)
        rpt_set_put(out, "recorded_wu_lat_avg_us", "us", RPT_NEUTRAL, lat_sum / nlat / 1000.0);
    world_collect_metrics(run->w, out);
}

static void rp_free_run(struct rp_run *run)
{
    for (int i = 0; i < run->ntasks; i++)
        sim_event_cancel(&run->w->q, &run->t[i].wake_ev);
    sim_event_cancel(&run->w->q, &run->irq_ev);
    free(run->t);
    free(run->map);
}

static int replay_run_point(struct world *w, const void *cfgp, int load_point,
                            struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point;
    const struct replay_config *cfg = cfgp;
    struct rp_run run = { .w = w, .cfg = cfg, .m = rp_model(cfg),
                          .unknown_timer = strcmp(cfg->unknown_wake, "timer") == 0 };
    run.map = xcalloc((size_t)run.m->ncpus, sizeof *run.map);
    const char *key;
    if (rp_build_map(cfg, w->machine, run.map, &key, msg, msgsize) != 0) {
        free(run.map);
        return -1;
    }
    run.span_ns = run.m->span_ns > 0 ? run.m->span_ns : 1;
    sim_hist_init(&run.wu_lat);
    w->wl_state = &run;
    wchain_disable(w);
    world_measure_reset(w);
    rp_start(&run);
    sim_time_t limit = (sim_time_t)(cfg->timeout_x * (double)cfg->loop * (double)run.span_ns);
    while (run.nfinished < run.ntasks && w->q.now_ns < limit)
        world_run_until(w, w->q.now_ns + REPLAY_CHUNK_NS);
    int rc = 0;
    if (run.nfinished < run.ntasks) {
        snprintf(msg, msgsize, "%s: the replay did not end within timeout_x = %g times the "
                 "recorded %.3f ms (%d of %d tasks done)", run.m->path, cfg->timeout_x,
                 (double)cfg->loop * (double)run.span_ns / 1e6, run.nfinished, run.ntasks);
        rc = -1;
    } else {
        rp_collect(&run, out);
    }
    w->wl_state = NULL;
    rp_free_run(&run);
    return rc;
}

static int replay_validate(const void *cfgp, char *msg, size_t msgsize)
{
    const struct replay_config *cfg = cfgp;
    if (!cfg->trace)
        return snprintf(msg, msgsize, "replay needs 'trace = FILE' (a trace-cmd trace.dat)"), -1;
    if (strcmp(cfg->pin, "none") != 0 && strcmp(cfg->pin, "recorded") != 0)
        return snprintf(msg, msgsize, "pin = %s: expected none or recorded", cfg->pin), -1;
    if (strcmp(cfg->work, "frequency") != 0 && strcmp(cfg->work, "wall") != 0)
        return snprintf(msg, msgsize, "work = %s: expected frequency or wall", cfg->work), -1;
    if (strcmp(cfg->unknown_wake, "irq") != 0 && strcmp(cfg->unknown_wake, "timer") != 0)
        return snprintf(msg, msgsize, "unknown_wake = %s: expected irq or timer",
                        cfg->unknown_wake), -1;
    if (rp_model(cfg)->ntasks == 0)
        return snprintf(msg, msgsize, "%s: no task ran in the trace (only the idle task)",
                        cfg->trace->path), -1;
    return 0;
}

static void *replay_load_file(const char *path, struct diag *d)
{
    struct trace_model *m = xcalloc(1, sizeof *m);
    if (trace_model_load(path, m, d) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

static void replay_free_file(void *data)
{
    trace_model_free(data);
    free(data);
}

const struct wl_ops wl_replay_ops = {
    .name = "replay",
    .desc = "a trace-cmd recording's tasks: bursts as work, sleeps, wake-up dependencies, "
            "interrupts",
    .primary_metric = "wu_lat_p99_us",
    .params = replay_params,
    .config_size = sizeof(struct replay_config),
    .validate = replay_validate,
    .check_machine = replay_check_machine,
    .run = replay_run_point,
    .load_file = replay_load_file,
    .free_file = replay_free_file,
};
