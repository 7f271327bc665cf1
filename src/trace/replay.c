/* trace replay model: extraction of tasks, bursts and wake-ups (replay.h). */
#define _GNU_SOURCE /* tdestroy */
#include "trace/replay.h"

#include <inttypes.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* sched_switch's prev_state is the task's state index bit
 * (__trace_sched_switch_state, include/trace/events/sched.h, v4.14+: the
 * TASK_REPORT bits 0x01..0x40 and TASK_REPORT_IDLE 0x80), or TASK_REPORT_MAX
 * (0x100) for a preemption; 0 or only bits above 0xff is runnable ("R",
 * "R+"). Older kernels' raw states keep S and D in the same low bits. */
#define TRACE_STATE_SLEEP_MASK 0xff

enum tk_state { TK_RUNNING, TK_RUNNABLE, TK_SLEEPING };

/* Extraction state of one task (the model keeps only trace_task). */
struct tk {
    enum tk_state st;
    int64_t since_ns;        /* SLEEPING: since */
    int64_t burst_ns;        /* the open burst: wall ns on CPU, and its work */
    double burst_work_ns;
    int wake_step;           /* the step whose recorded latency the next switch-in ends, -1 */
    int64_t wake_ns;
    bool exiting;
};

struct xcpu {
    int curr;                /* task running, -1 idle or unknown */
    int64_t seg_ns;          /* when curr's unbanked time starts */
    int64_t first_ns;        /* the CPU's first event */
    int64_t khz;             /* current frequency, 0 unknown */
    enum trace_ev_kind last_intr; /* last interrupt-like event (TRACE_EV_NKINDS: none) */
    long last_irq;           /* its arrival index (IRQ), -1 */
};

/* A pid's current task: a node of the extraction's tsearch(3) tree. */
struct xpid {
    int32_t pid;
    int task;                /* -1: it exited, the pid is free for a new task */
};

struct extract {
    const struct trace_data *td;
    struct trace_model *m;
    struct tk *tk;           /* [m->ntasks] */
    int tk_cap;
    struct xcpu *cpu;
    void *pids;              /* struct xpid by pid */
    bool *irq_woke;          /* [nirq]: the arrival woke a task */
    size_t irq_cap;
    enum trace_ev_kind wake_kind;
    int64_t now_ns;          /* the event being read, from the trace's start */
};

/* ---- pid -> task ------------------------------------------------------------ */

static int xpid_cmp(const void *a, const void *b)
{
    int32_t x = ((const struct xpid *)a)->pid, y = ((const struct xpid *)b)->pid;
    return (x > y) - (x < y);
}

static void map_put(struct extract *x, int32_t pid, int task)
{
    struct xpid *node = xmalloc(sizeof *node);
    *node = (struct xpid){ .pid = pid, .task = task };
    struct xpid **found = tsearch(node, &x->pids, xpid_cmp);
    if (!found)
        abort(); /* tsearch's only failure is memory, as xmalloc's */
    if (*found != node) {
        (*found)->task = task;
        free(node);
    }
}

static int map_get(const struct extract *x, int32_t pid)
{
    struct xpid key = { .pid = pid };
    struct xpid *const *found = tfind(&key, &x->pids, xpid_cmp);
    return found ? (*found)->task : -1;
}

/* ---- tasks and steps -------------------------------------------------------- */

static int task_new(struct extract *x, int32_t pid, int64_t start_ns, enum tk_state st)
{
    struct trace_model *m = x->m;
    if (m->ntasks == x->tk_cap) {
        x->tk_cap = x->tk_cap ? 2 * x->tk_cap : 16;
        m->task = xreallocarray(m->task, (size_t)x->tk_cap, sizeof *m->task);
        x->tk = xreallocarray(x->tk, (size_t)x->tk_cap, sizeof *x->tk);
    }
    int i = m->ntasks++;
    struct trace_task *t = &m->task[i];
    *t = (struct trace_task){ .pid = pid, .first_cpu = -1, .start_ns = start_ns, .parent = -1 };
    snprintf(t->comm, sizeof t->comm, "%s", trace_comm_of(x->td, pid));
    x->tk[i] = (struct tk){ .st = st, .since_ns = start_ns, .wake_step = -1 };
    map_put(x, pid, i);
    return i;
}

/* pid's task, made if the trace has not shown it yet (or only before it
 * exited): first seen at start_ns in state st. */
static int task_of(struct extract *x, int32_t pid, int64_t start_ns, enum tk_state st)
{
    int i = map_get(x, pid);
    return i >= 0 ? i : task_new(x, pid, start_ns, st);
}

static struct trace_step *step_add(struct extract *x, int task, enum trace_step_kind kind)
{
    struct trace_model *m = x->m;
    struct trace_task *t = &m->task[task];
    t->end_ns = x->now_ns;
    m->end_ns = x->now_ns > m->end_ns ? x->now_ns : m->end_ns;
    if (t->nsteps == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->step = xreallocarray(t->step, (size_t)t->cap, sizeof *t->step);
    }
    struct trace_step *s = &t->step[t->nsteps++];
    *s = (struct trace_step){ .kind = kind, .cpu = -1, .peer = -1, .peer_step = -1,
                              .lat_ns = -1 };
    return s;
}

/* The work of wall_ns on cpu at its current frequency (replay.h). */
static double slice_work(const struct extract *x, int cpu, int64_t wall_ns)
{
    int64_t top = x->m->top_khz[cpu], khz = x->cpu[cpu].khz;
    if (top <= 0 || khz <= 0)
        return (double)wall_ns;
    return (double)wall_ns * (double)khz / (double)top;
}

/* Credit cpu's running task with its time up to ts. */
static void bank(struct extract *x, int cpu, int64_t ts)
{
    struct xcpu *c = &x->cpu[cpu];
    if (c->curr >= 0 && ts > c->seg_ns) {
        struct tk *k = &x->tk[c->curr];
        k->burst_ns += ts - c->seg_ns;
        k->burst_work_ns += slice_work(x, cpu, ts - c->seg_ns);
    }
    c->seg_ns = ts;
}

/* End task's open burst (run on trace CPU cpu) as a RUN step. */
static void burst_close(struct extract *x, int task, int cpu)
{
    struct tk *k = &x->tk[task];
    if (k->burst_ns <= 0)
        return;
    struct trace_step *s = step_add(x, task, TRACE_STEP_RUN);
    s->ns = k->burst_ns;
    s->work_ns = k->burst_work_ns;
    s->cpu = cpu;
    x->m->nbursts++;
    x->m->busy_ns += (double)k->burst_ns;
    x->m->work_ns += k->burst_work_ns;
    k->burst_ns = 0;
    k->burst_work_ns = 0;
}

/* ---- events ----------------------------------------------------------------- */

static void on_switch_out(struct extract *x, int cpu, int64_t ts, int32_t pid, int64_t state)
{
    struct xcpu *c = &x->cpu[cpu];
    int p = map_get(x, pid);
    if (p < 0 || x->tk[p].st != TK_RUNNING || c->curr != p) {
        /* Running since before the CPU's first event (or across lost
         * events): its slice is counted from there. */
        int64_t from = p < 0 ? c->first_ns : ts;
        p = task_of(x, pid, from, TK_RUNNING);
        x->m->task[p].first_cpu = x->m->task[p].first_cpu < 0 ? cpu : x->m->task[p].first_cpu;
        x->tk[p].burst_ns += ts - from;
        x->tk[p].burst_work_ns += slice_work(x, cpu, ts - from);
    }
    c->curr = -1;
    struct tk *k = &x->tk[p];
    if ((state & TRACE_STATE_SLEEP_MASK) == 0) {
        k->st = TK_RUNNABLE; /* preempted: the burst goes on when it runs again */
        return;
    }
    burst_close(x, p, cpu);
    k->st = TK_SLEEPING;
    k->since_ns = ts;
    if (k->exiting) {
        x->m->task[p].exited = true;
        map_put(x, pid, -1);
    }
}

static void on_switch_in(struct extract *x, int cpu, int64_t ts, int32_t pid)
{
    struct xcpu *c = &x->cpu[cpu];
    int n = task_of(x, pid, ts, TK_RUNNABLE);
    struct tk *k = &x->tk[n];
    struct trace_task *t = &x->m->task[n];
    if (k->st == TK_SLEEPING) {
        /* Woken without a wake-up event (none recorded, or lost). */
        struct trace_step *s = step_add(x, n, TRACE_STEP_SLEEP);
        s->ns = ts - k->since_ns;
        s->waker = TRACE_WAKER_UNKNOWN;
        x->m->nwake[TRACE_WAKER_UNKNOWN]++;
    } else if (k->wake_step >= 0) {
        t->step[k->wake_step].lat_ns = ts - k->wake_ns;
    }
    k->wake_step = -1;
    if (t->first_cpu < 0)
        t->first_cpu = cpu;
    if (c->curr >= 0 && c->curr != n)
        x->tk[c->curr].st = TK_RUNNABLE; /* its switch-out was lost */
    k->st = TK_RUNNING;
    c->curr = n;
    c->seg_ns = ts;
    t->nslices++;
    x->m->nslices++;
}

static void on_switch(struct extract *x, const struct trace_ev *e, int64_t ts)
{
    bank(x, e->cpu, ts);
    if (e->pid > 0)
        on_switch_out(x, e->cpu, ts, e->pid, e->aux);
    else
        x->cpu[e->cpu].curr = -1;
    if (e->value > 0 && e->value <= INT32_MAX)
        on_switch_in(x, e->cpu, ts, (int32_t)e->value);
}

/* What woke a task from an event on cpu with context flags ctx: *waker the
 * task, when a task did. */
static enum trace_waker wake_cause(const struct extract *x, int cpu, int64_t ctx, int wakee,
                                   int *waker)
{
    const struct xcpu *c = &x->cpu[cpu];
    *waker = -1;
    if (ctx & (TRACE_CTX_HARDIRQ | TRACE_CTX_SOFTIRQ))
        return c->last_intr == TRACE_EV_TIMER ? TRACE_WAKER_TIMER
               : c->last_intr == TRACE_EV_IRQ ? TRACE_WAKER_IRQ
                                              : TRACE_WAKER_UNKNOWN;
    if (c->curr < 0 || c->curr == wakee)
        return TRACE_WAKER_UNKNOWN;
    *waker = c->curr;
    return TRACE_WAKER_TASK;
}

static void on_wakeup(struct extract *x, const struct trace_ev *e, int64_t ts)
{
    if (e->pid <= 0)
        return;
    int w = map_get(x, e->pid);
    if (w < 0) {
        task_new(x, e->pid, ts, TK_RUNNABLE);
        return;
    }
    struct tk *k = &x->tk[w];
    if (k->st != TK_SLEEPING)
        return; /* already runnable: nothing to wake */
    int waker;
    enum trace_waker why = wake_cause(x, e->cpu, e->aux, w, &waker);
    int64_t slept = ts - k->since_ns;
    if (why == TRACE_WAKER_TASK) {
        /* The waker's burst so far is a step of its own; the wake-up
         * follows it. */
        bank(x, e->cpu, ts);
        burst_close(x, waker, e->cpu);
        struct trace_step *wk = step_add(x, waker, TRACE_STEP_WAKE);
        wk->peer = w;
        wk->peer_step = x->m->task[w].nsteps;
        struct trace_step *s = step_add(x, w, TRACE_STEP_WAIT);
        s->peer = waker;
        s->peer_step = x->m->task[waker].nsteps - 1;
        s->ns = slept;
        s->waker = why;
    } else {
        struct trace_step *s = step_add(x, w, TRACE_STEP_SLEEP);
        s->ns = slept;
        s->waker = why;
        s->cpu = why == TRACE_WAKER_IRQ ? e->cpu : -1;
        if (why == TRACE_WAKER_IRQ && x->cpu[e->cpu].last_irq >= 0)
            x->irq_woke[x->cpu[e->cpu].last_irq] = true;
    }
    x->m->nwake[why]++;
    k->st = TK_RUNNABLE;
    k->wake_step = x->m->task[w].nsteps - 1;
    k->wake_ns = ts;
}

static void on_fork(struct extract *x, const struct trace_ev *e, int64_t ts)
{
    if (e->value <= 0 || e->value > INT32_MAX)
        return;
    int parent = x->cpu[e->cpu].curr;
    if (parent >= 0 && x->m->task[parent].pid != e->pid)
        parent = -1;
    int child = task_new(x, (int32_t)e->value, ts, TK_RUNNABLE);
    x->m->nforks++;
    if (parent < 0)
        return; /* the parent never seen running: the child starts on its own */
    bank(x, e->cpu, ts);
    burst_close(x, parent, e->cpu);
    struct trace_step *s = step_add(x, parent, TRACE_STEP_FORK);
    s->peer = child;
    x->m->task[child].parent = parent;
}

static void on_irq(struct extract *x, const struct trace_ev *e, int64_t ts)
{
    struct trace_model *m = x->m;
    struct xcpu *c = &x->cpu[e->cpu];
    c->last_intr = e->kind;
    if (e->kind != TRACE_EV_IRQ)
        return;
    if (m->nirq == x->irq_cap) {
        x->irq_cap = x->irq_cap ? 2 * x->irq_cap : 64;
        m->irq = xreallocarray(m->irq, x->irq_cap, sizeof *m->irq);
        x->irq_woke = xreallocarray(x->irq_woke, x->irq_cap, sizeof *x->irq_woke);
    }
    c->last_irq = (long)m->nirq;
    x->irq_woke[m->nirq] = false;
    m->irq[m->nirq++] = (struct trace_arrival){ .at_ns = ts, .cpu = e->cpu };
}

static void on_event(struct extract *x, const struct trace_ev *e)
{
    int64_t ts = (int64_t)(e->ts_ns - x->td->first_ts_ns);
    x->now_ns = ts;
    switch (e->kind) {
    case TRACE_EV_FREQ:
        bank(x, e->cpu, ts);
        x->cpu[e->cpu].khz = e->value;
        break;
    case TRACE_EV_SWITCH: on_switch(x, e, ts); break;
    case TRACE_EV_WAKEUP:
    case TRACE_EV_WAKING:
        if (e->kind == x->wake_kind)
            on_wakeup(x, e, ts);
        break;
    case TRACE_EV_FORK: on_fork(x, e, ts); break;
    case TRACE_EV_EXIT: {
        int t = e->pid > 0 ? map_get(x, e->pid) : -1;
        if (t >= 0)
            x->tk[t].exiting = true;
        x->m->nexits++;
        break;
    }
    case TRACE_EV_IRQ:
    case TRACE_EV_TIMER:
    case TRACE_EV_IPI: on_irq(x, e, ts); break;
    case TRACE_EV_IDLE:
    case TRACE_EV_LOST:
    case TRACE_EV_NKINDS: break;
    }
}

/* ---- model ------------------------------------------------------------------ */

/* Each CPU's first event and highest frequency. */
static void scan_cpus(struct extract *x)
{
    const struct trace_data *td = x->td;
    for (size_t i = td->n; i-- > 0;) {
        const struct trace_ev *e = &td->ev[i];
        if (e->cpu < 0 || e->cpu >= td->ncpus)
            continue;
        x->cpu[e->cpu].first_ns = (int64_t)(e->ts_ns - td->first_ts_ns);
        if (e->kind == TRACE_EV_FREQ && e->value > x->m->top_khz[e->cpu])
            x->m->top_khz[e->cpu] = e->value;
    }
}

/* Device interrupts that woke no task: the arrivals (in time order). */
static void keep_bare_irqs(struct extract *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->m->nirq; i++)
        if (!x->irq_woke[i])
            x->m->irq[n++] = x->m->irq[i];
    x->m->nirq = n;
}

int trace_model_extract(const struct trace_data *td, struct trace_model *m, struct diag *d)
{
    memset(m, 0, sizeof *m);
    m->path = xstrdup(td->path ? td->path : "trace");
    m->ncpus = td->ncpus > 0 ? td->ncpus : 1;
    m->span_ns = td->n ? (int64_t)(td->last_ts_ns - td->first_ts_ns) : 0;
    m->top_khz = xcalloc((size_t)m->ncpus, sizeof *m->top_khz);
    m->nlost = td->nlost;
    if (!td->count[TRACE_EV_SWITCH])
        return diag_error(d, m->path, 0, "no sched:sched_switch events recorded: a replay needs "
                          "them (trace-cmd record -e sched:sched_switch -e sched:sched_wakeup "
                          "-e sched:sched_process_fork ...; pmlab trace tasks --help)");
    struct extract x = { .td = td, .m = m };
    x.cpu = xcalloc((size_t)m->ncpus, sizeof *x.cpu);
    for (int c = 0; c < m->ncpus; c++)
        x.cpu[c] = (struct xcpu){ .curr = -1, .last_intr = TRACE_EV_NKINDS, .last_irq = -1 };
    /* sched_waking fires on the waker's CPU; sched_wakeup may fire on the
     * wakee's (a queued remote wake-up, ttwu_queue_wakelist), so waking
     * names the waker better when both are there. */
    x.wake_kind = td->count[TRACE_EV_WAKING] ? TRACE_EV_WAKING : TRACE_EV_WAKEUP;
    m->wake_event = td->count[TRACE_EV_WAKING]  ? "sched_waking"
                    : td->count[TRACE_EV_WAKEUP] ? "sched_wakeup"
                                                 : NULL;
    scan_cpus(&x);
    for (size_t i = 0; i < td->n; i++)
        if (td->ev[i].cpu >= 0 && td->ev[i].cpu < m->ncpus)
            on_event(&x, &td->ev[i]);
    x.now_ns = m->span_ns;
    for (int c = 0; c < m->ncpus; c++) {
        bank(&x, c, m->span_ns);
        if (x.cpu[c].curr >= 0)
            burst_close(&x, x.cpu[c].curr, c);
    }
    for (int t = 0; t < m->ntasks; t++)
        if (x.tk[t].burst_ns > 0) /* preempted at the end: its CPU is unknown */
            burst_close(&x, t, m->task[t].first_cpu);
    keep_bare_irqs(&x);
    free(x.tk);
    free(x.cpu);
    tdestroy(x.pids, free);
    free(x.irq_woke);
    return 0;
}

int trace_model_load(const char *path, struct trace_model *m, struct diag *d)
{
    struct trace_data td;
    memset(m, 0, sizeof *m);
    int rc = trace_read_need(path, TRACE_NEED_SCHED, &td, d);
    if (rc == 0)
        rc = trace_model_extract(&td, m, d);
    trace_data_free(&td);
    if (rc != 0)
        trace_model_free(m);
    return rc;
}

void trace_model_free(struct trace_model *m)
{
    for (int t = 0; t < m->ntasks; t++)
        free(m->task[t].step);
    free(m->task);
    free(m->irq);
    free(m->top_khz);
    free(m->path);
    memset(m, 0, sizeof *m);
}

void trace_model_print(FILE *out, const struct trace_model *m)
{
    fprintf(out, "trace %s: %d CPUs, %.3f ms\n", m->path, m->ncpus, (double)m->span_ns / 1e6);
    fprintf(out, "tasks %d, slices %" PRIu64 ", bursts %" PRIu64 ", busy %.3f ms (work %.3f ms "
            "at each CPU's top recorded frequency), forks %" PRIu64 ", exits %" PRIu64 "\n",
            m->ntasks, m->nslices, m->nbursts, m->busy_ns / 1e6, m->work_ns / 1e6, m->nforks,
            m->nexits);
    fprintf(out, "wake-ups: task %" PRIu64 ", timer %" PRIu64 ", interrupt %" PRIu64
            ", unknown %" PRIu64 " (from %s); device interrupts that woke no task %zu\n",
            m->nwake[TRACE_WAKER_TASK], m->nwake[TRACE_WAKER_TIMER], m->nwake[TRACE_WAKER_IRQ],
            m->nwake[TRACE_WAKER_UNKNOWN],
            m->wake_event ? m->wake_event
                          : "no wake-up events: every sleep replays as timed, as unknown_wake says",
            m->nirq);
    if (m->nlost)
        fprintf(out, "lost: %" PRIu64 " events (bursts and sleeps around them approximate)\n",
                m->nlost);
    fprintf(out, "%7s  %-16s %4s %9s %7s %7s %11s %7s %7s\n", "pid", "comm", "cpu", "start_ms",
            "slices", "bursts", "busy_ms", "sleeps", "waits");
    for (int i = 0; i < m->ntasks; i++) {
        const struct trace_task *t = &m->task[i];
        int nb = 0, ns = 0, nw = 0;
        double busy = 0;
        for (int s = 0; s < t->nsteps; s++) {
            nb += t->step[s].kind == TRACE_STEP_RUN;
            busy += t->step[s].kind == TRACE_STEP_RUN ? (double)t->step[s].ns : 0;
            ns += t->step[s].kind == TRACE_STEP_SLEEP;
            nw += t->step[s].kind == TRACE_STEP_WAIT;
        }
        fprintf(out, "%7d  %-16s %4d %9.3f %7d %7d %11.3f %7d %7d\n", t->pid,
                t->comm[0] ? t->comm : "?", t->first_cpu, (double)t->start_ns / 1e6, t->nslices,
                nb, busy / 1e6, ns, nw);
    }
}
