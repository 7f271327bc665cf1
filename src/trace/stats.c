/* stats: idlestat-like statistics of a trace's events (trace.h).
 *
 * Each CPU is followed through its cpu_idle events: an entry opens an idle
 * period in a state, the exit closes it (its residency), the time from an
 * exit to the next entry is busy. A CPU's state is unknown until its first
 * cpu_idle event (an exit first: it was idle since before the trace, in a
 * state the trace does not say) and again after events were lost on its
 * buffer, until its next entry: that time is counted as unknown, and an
 * idle period a loss cuts is dropped (lost_periods), not guessed.
 *
 * Above/below, against the given target residencies: a period shorter than
 * its state's target residency is "above" (the state was too deep); one long
 * enough for the next deeper state's is "below". The kernel's own counters
 * (cpuidle_reflect's accounting) also subtract the state's exit latency for
 * "below", which a table of residencies does not give; `trace whatif`, given
 * both, counts them exactly as the kernel does.
 *
 * The wake-up source of an idle exit is the first thing the CPU's own buffer
 * shows after it: a timer expiry, an IPI, a device interrupt, a wake-up, or
 * a task switched in with none of those recorded (task); nothing before the
 * next entry is unknown. Frequency residency is the time each CPU spent at
 * each cpu_frequency value (idle time included), from the CPU's first
 * frequency event (devlib's start-of-trace marker counts). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/results.h"
#include "trace/trace.h"
#include "util/xalloc.h"

enum { CPU_UNKNOWN = -2, CPU_BUSY = -1 };  /* else: idle in that state */

struct cpu_track {
    int state;             /* CPU_UNKNOWN, CPU_BUSY or the idle state */
    uint64_t since_ns;
    bool waking;           /* exited idle, source not seen yet */
    int64_t khz;           /* current frequency, 0 unknown */
    uint64_t khz_since_ns;
};

static void freq_add(struct trace_cpu_stats *c, int64_t khz, double ns)
{
    for (int i = 0; i < c->nfreq; i++) {
        if (c->freq[i].khz == khz) {
            c->freq[i].ns += ns;
            return;
        }
    }
    c->freq = xreallocarray(c->freq, (size_t)c->nfreq + 1, sizeof *c->freq);
    c->freq[c->nfreq++] = (struct trace_freq_time){ .khz = khz, .ns = ns };
}

/* Close the idle period of t (state s) at ts: residency, above/below. */
static void idle_close(const struct trace_stats *s, struct trace_cpu_stats *c, int st,
                       double res_ns)
{
    struct trace_state_stats *x = &c->st[st];
    x->min_ns = x->closed == 0 || res_ns < x->min_ns ? res_ns : x->min_ns;
    x->max_ns = res_ns > x->max_ns ? res_ns : x->max_ns;
    x->closed++;
    x->total_ns += res_ns;
    if (st >= s->nres)
        return;
    if (res_ns < (double)s->target_res_us[st] * 1000.0)
        x->above++;
    else if (st + 1 < s->nres && res_ns >= (double)s->target_res_us[st + 1] * 1000.0)
        x->below++;
}

/* Time from t's mark to ts goes to what t was doing. */
static void settle(struct trace_cpu_stats *c, struct cpu_track *t, uint64_t ts)
{
    double dt = (double)(ts - t->since_ns);
    if (t->state == CPU_BUSY)
        c->busy_ns += dt;
    else if (t->state == CPU_UNKNOWN)
        c->unknown_ns += dt;
    t->since_ns = ts;
}

static void on_idle(const struct trace_stats *s, struct trace_cpu_stats *c, struct cpu_track *t,
                    const struct trace_ev *e)
{
    if (e->value == TRACE_IDLE_EXIT) {
        if (t->state >= 0)
            idle_close(s, c, t->state, (double)(e->ts_ns - t->since_ns));
        else
            settle(c, t, e->ts_ns); /* unknown (or a repeated exit) up to here */
        t->state = CPU_BUSY;
        t->since_ns = e->ts_ns;
        t->waking = true;
        return;
    }
    if (e->value < 0 || e->value >= TRACE_MAX_STATES)
        return;
    if (t->state >= 0) /* entry without exit: the previous period ends here */
        idle_close(s, c, t->state, (double)(e->ts_ns - t->since_ns));
    else
        settle(c, t, e->ts_ns);
    if (t->waking)
        c->wake[TRACE_WAKE_UNKNOWN]++;
    t->waking = false;
    int st = (int)e->value;
    c->st[st].hits++;
    c->nstates = st + 1 > c->nstates ? st + 1 : c->nstates;
    t->state = st;
    t->since_ns = e->ts_ns;
}

static void on_freq(struct trace_cpu_stats *c, struct cpu_track *t, const struct trace_ev *e)
{
    freq_add(c, t->khz, (double)(e->ts_ns - t->khz_since_ns));
    t->khz = e->value;
    t->khz_since_ns = e->ts_ns;
}

static void on_source(struct trace_cpu_stats *c, struct cpu_track *t, enum trace_wake_src src)
{
    if (!t->waking)
        return;
    t->waking = false;
    c->wake[src]++;
}

static void on_lost(struct trace_cpu_stats *c, struct cpu_track *t, uint64_t ts)
{
    if (t->state >= 0)
        c->lost_periods++;
    else
        settle(c, t, ts);
    t->state = CPU_UNKNOWN;
    t->since_ns = ts;
    t->waking = false;
}

void trace_stats_compute(const struct trace_data *td, const int64_t *target_res_us, int nres,
                         struct trace_stats *out)
{
    memset(out, 0, sizeof *out);
    out->ncpus = td->ncpus;
    out->cpu = xcalloc((size_t)td->ncpus, sizeof *out->cpu);
    out->nres = nres < TRACE_MAX_STATES ? nres : TRACE_MAX_STATES;
    for (int i = 0; i < out->nres; i++)
        out->target_res_us[i] = target_res_us[i];
    out->span_ns = td->n ? (double)(td->last_ts_ns - td->first_ts_ns) : 0;
    struct cpu_track *tr = xcalloc((size_t)td->ncpus, sizeof *tr);
    for (int c = 0; c < td->ncpus; c++)
        tr[c] = (struct cpu_track){ .state = CPU_UNKNOWN, .since_ns = td->first_ts_ns,
                                    .khz_since_ns = td->first_ts_ns };
    for (size_t i = 0; i < td->n; i++) {
        const struct trace_ev *e = &td->ev[i];
        if (e->cpu < 0 || e->cpu >= td->ncpus)
            continue;
        struct trace_cpu_stats *c = &out->cpu[e->cpu];
        struct cpu_track *t = &tr[e->cpu];
        switch (e->kind) {
        case TRACE_EV_IDLE: on_idle(out, c, t, e); break;
        case TRACE_EV_FREQ: on_freq(c, t, e); break;
        case TRACE_EV_TIMER: on_source(c, t, TRACE_WAKE_TIMER); break;
        case TRACE_EV_IPI: on_source(c, t, TRACE_WAKE_IPI); break;
        case TRACE_EV_IRQ: on_source(c, t, TRACE_WAKE_IRQ); break;
        case TRACE_EV_WAKEUP: on_source(c, t, TRACE_WAKE_TASK); break;
        case TRACE_EV_SWITCH:
            if (e->value != 0)
                on_source(c, t, TRACE_WAKE_TASK);
            break;
        case TRACE_EV_LOST: on_lost(c, t, e->ts_ns); break;
        case TRACE_EV_FORK: case TRACE_EV_EXIT: case TRACE_EV_WAKING: /* replay's */
        case TRACE_EV_NKINDS: break;
        }
    }
    /* The end: busy and unknown time up to the last event; an open idle
     * period is not a residency (its exit is not in the trace). */
    for (int c = 0; c < td->ncpus; c++) {
        if (tr[c].state < 0)
            settle(&out->cpu[c], &tr[c], td->last_ts_ns);
        freq_add(&out->cpu[c], tr[c].khz, (double)(td->last_ts_ns - tr[c].khz_since_ns));
    }
    free(tr);
}

void trace_stats_free(struct trace_stats *s)
{
    for (int c = 0; c < s->ncpus; c++)
        free(s->cpu[c].freq);
    free(s->cpu);
    memset(s, 0, sizeof *s);
}

/* ---- report ------------------------------------------------------------------ */

static void print_events(FILE *out, const struct trace_data *td, const struct trace_stats *s)
{
    static const char *const names[TRACE_EV_LOST + 1] = {
        "cpu_idle", "cpu_frequency", "sched_switch", "sched_wakeup", "irq_handler_entry",
        "ipi", "timer expiry", "lost-event marks",
    };
    fprintf(out, "trace %s: %d CPUs, %.3f ms, %" PRIu64 " records\n", td->path, td->ncpus,
            s->span_ns / 1e6, td->nrecords);
    fprintf(out, "events:");
    for (int k = 0; k < TRACE_EV_LOST; k++) {
        uint64_t n = td->count[k] - (k == TRACE_EV_FREQ ? td->ndevlib_freq : 0);
        fprintf(out, " %s %" PRIu64 "%s", names[k], n, k < TRACE_EV_LOST - 1 ? "," : "\n");
    }
    if (td->ndevlib_freq)
        fprintf(out, "initial frequencies: %" PRIu64 " devlib cpu_frequency_devlib markers\n",
                td->ndevlib_freq);
    if (td->dropped[0])
        fprintf(out, "dropped: the file ends early: %s\n", td->dropped);
    if (td->nlost)
        fprintf(out, "dropped: %" PRIu64 " events lost by the ring buffers (idle periods they cut "
                "are not counted)\n", td->nlost);
    if (!td->count[TRACE_EV_TIMER] && !td->count[TRACE_EV_IPI] && !td->count[TRACE_EV_IRQ] &&
        !td->count[TRACE_EV_WAKEUP])
        fprintf(out, "note: no timer, ipi, irq or sched_wakeup events: wake-up sources are only "
                "'task' (a task ran) or 'unknown'; record with -e timer -e ipi -e irq "
                "-e sched:sched_wakeup for them\n");
    if (s->nres == 0)
        fprintf(out, "note: no idle table (--target-residency-us): above/below not counted\n");
}

static void print_states(FILE *out, const struct trace_stats *s)
{
    fprintf(out, "\n%-4s %-5s %8s %8s %12s %10s %10s %10s %7s %7s\n", "CPU", "state", "hits",
            "closed", "total_ms", "avg_us", "min_us", "max_us", "above", "below");
    for (int c = 0; c < s->ncpus; c++) {
        const struct trace_cpu_stats *cs = &s->cpu[c];
        for (int st = 0; st < cs->nstates; st++) {
            const struct trace_state_stats *x = &cs->st[st];
            if (!x->hits)
                continue;
            double avg = x->closed ? x->total_ns / (double)x->closed / 1e3 : NAN;
            fprintf(out, "%-4d %-5d %8" PRIu64 " %8" PRIu64 " %12.3f %10.1f %10.1f %10.1f", c, st,
                    x->hits, x->closed, x->total_ns / 1e6, avg, x->closed ? x->min_ns / 1e3 : NAN,
                    x->closed ? x->max_ns / 1e3 : NAN);
            if (st < s->nres)
                fprintf(out, " %7" PRIu64 " %7" PRIu64 "\n", x->above, x->below);
            else
                fprintf(out, " %7s %7s\n", "-", "-");
        }
    }
}

static void print_cpus(FILE *out, const struct trace_stats *s)
{
    fprintf(out, "\n%-4s %10s %6s %10s %8s | wake-ups: %6s %6s %6s %6s %7s\n", "CPU", "busy_ms",
            "busy%", "unknown_ms", "lost", "timer", "ipi", "irq", "task", "unknown");
    for (int c = 0; c < s->ncpus; c++) {
        const struct trace_cpu_stats *cs = &s->cpu[c];
        fprintf(out, "%-4d %10.3f %6.2f %10.3f %8" PRIu64 " |           %6" PRIu64 " %6" PRIu64
                " %6" PRIu64 " %6" PRIu64 " %7" PRIu64 "\n", c, cs->busy_ns / 1e6,
                s->span_ns > 0 ? 100 * cs->busy_ns / s->span_ns : 0, cs->unknown_ns / 1e6,
                cs->lost_periods, cs->wake[TRACE_WAKE_TIMER], cs->wake[TRACE_WAKE_IPI],
                cs->wake[TRACE_WAKE_IRQ], cs->wake[TRACE_WAKE_TASK], cs->wake[TRACE_WAKE_UNKNOWN]);
    }
}

static int freq_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct trace_freq_time *)a)->khz, y = ((const struct trace_freq_time *)b)->khz;
    return (x > y) - (x < y);
}

static void print_freqs(FILE *out, const struct trace_stats *s)
{
    fprintf(out, "\n%-4s %10s %12s %7s\n", "CPU", "freq_khz", "time_ms", "time%");
    for (int c = 0; c < s->ncpus; c++) {
        struct trace_cpu_stats *cs = &s->cpu[c];
        qsort(cs->freq, (size_t)cs->nfreq, sizeof *cs->freq, freq_cmp);
        for (int i = 0; i < cs->nfreq; i++) {
            if (cs->freq[i].ns <= 0)
                continue;
            char khz[24];
            if (cs->freq[i].khz > 0)
                snprintf(khz, sizeof khz, "%" PRId64, cs->freq[i].khz);
            else
                snprintf(khz, sizeof khz, "unknown");
            fprintf(out, "%-4d %10s %12.3f %7.2f\n", c, khz, cs->freq[i].ns / 1e6,
                    s->span_ns > 0 ? 100 * cs->freq[i].ns / s->span_ns : 0);
        }
    }
}

void trace_stats_print(FILE *out, const struct trace_data *td, const struct trace_stats *s)
{
    print_events(out, td, s);
    print_states(out, s);
    print_cpus(out, s);
    print_freqs(out, s);
}

/* ---- JSON (--format json) ------------------------------------------------------ */

/* A residency in ms or us, null when no period closed. */
static json_t *json_time(double ns, double unit_ns, bool known)
{
    return known ? json_real(ns / unit_ns) : json_null();
}

static json_t *json_event_counts(const struct trace_data *td)
{
    static const char *const keys[TRACE_EV_LOST] = {
        "cpu_idle", "cpu_frequency", "sched_switch", "sched_wakeup", "irq_handler_entry",
        "ipi", "timer_expiry",
    };
    json_t *o = json_object();
    for (int k = 0; k < TRACE_EV_LOST; k++) {
        uint64_t n = td->count[k] - (k == TRACE_EV_FREQ ? td->ndevlib_freq : 0);
        json_object_set_new(o, keys[k], json_integer((json_int_t)n));
    }
    json_object_set_new(o, "devlib_frequency_markers", json_integer((json_int_t)td->ndevlib_freq));
    json_object_set_new(o, "lost", json_integer((json_int_t)td->nlost));
    return o;
}

static json_t *json_state(int st, const struct trace_state_stats *x, bool table)
{
    bool closed = x->closed > 0;
    json_t *o = json_object();
    json_object_set_new(o, "state", json_integer(st));
    json_object_set_new(o, "hits", json_integer((json_int_t)x->hits));
    json_object_set_new(o, "closed", json_integer((json_int_t)x->closed));
    json_object_set_new(o, "total_ms", json_real(x->total_ns / 1e6));
    json_object_set_new(o, "avg_us", json_time(closed ? x->total_ns / (double)x->closed : 0, 1e3,
                                               closed));
    json_object_set_new(o, "min_us", json_time(x->min_ns, 1e3, closed));
    json_object_set_new(o, "max_us", json_time(x->max_ns, 1e3, closed));
    json_object_set_new(o, "above", table ? json_integer((json_int_t)x->above) : json_null());
    json_object_set_new(o, "below", table ? json_integer((json_int_t)x->below) : json_null());
    return o;
}

static json_t *json_cpu(int c, const struct trace_stats *s)
{
    static const char *const src[TRACE_WAKE_NSRC] = { "timer", "ipi", "irq", "task", "unknown" };
    const struct trace_cpu_stats *cs = &s->cpu[c];
    json_t *o = json_object(), *states = json_array(), *wake = json_object(), *freq = json_array();
    json_object_set_new(o, "cpu", json_integer(c));
    json_object_set_new(o, "busy_ms", json_real(cs->busy_ns / 1e6));
    json_object_set_new(o, "unknown_ms", json_real(cs->unknown_ns / 1e6));
    json_object_set_new(o, "lost_periods", json_integer((json_int_t)cs->lost_periods));
    for (int st = 0; st < cs->nstates; st++)
        json_array_append_new(states, json_state(st, &cs->st[st], st < s->nres));
    for (int w = 0; w < TRACE_WAKE_NSRC; w++)
        json_object_set_new(wake, src[w], json_integer((json_int_t)cs->wake[w]));
    for (int i = 0; i < cs->nfreq; i++)
        if (cs->freq[i].ns > 0)
            json_array_append_new(freq, json_pack("{s:o, s:f}", "khz", cs->freq[i].khz > 0 ?
                                  json_integer(cs->freq[i].khz) : json_null(),
                                  "time_ms", cs->freq[i].ns / 1e6));
    json_object_set_new(o, "states", states);
    json_object_set_new(o, "wakeups", wake);
    json_object_set_new(o, "frequencies", freq);
    return o;
}

/* Entries per state over all CPUs: what `trace-cmd report | grep cpu_idle`
 * counts by state= (make validate compares them). */
static json_t *json_state_hits(const struct trace_stats *s)
{
    uint64_t hits[TRACE_MAX_STATES] = { 0 };
    int n = 0;
    for (int c = 0; c < s->ncpus; c++)
        for (int st = 0; st < s->cpu[c].nstates; st++) {
            hits[st] += s->cpu[c].st[st].hits;
            if (st + 1 > n)
                n = st + 1;
        }
    json_t *a = json_array();
    for (int st = 0; st < n; st++)
        json_array_append_new(a, json_integer((json_int_t)hits[st]));
    return a;
}

int trace_stats_json(FILE *out, const struct trace_data *td, const struct trace_stats *s)
{
    json_t *root = json_object(), *cpus = json_array();
    json_object_set_new(root, "pmlab", json_string(PMLAB_VERSION));
    json_object_set_new(root, "trace", json_string(td->path));
    json_object_set_new(root, "ncpus", json_integer(td->ncpus));
    json_object_set_new(root, "span_ms", json_real(s->span_ns / 1e6));
    json_object_set_new(root, "records", json_integer((json_int_t)td->nrecords));
    json_object_set_new(root, "events", json_event_counts(td));
    json_object_set_new(root, "dropped", json_string(td->dropped));
    json_object_set_new(root, "state_hits", json_state_hits(s));
    for (int c = 0; c < s->ncpus; c++)
        json_array_append_new(cpus, json_cpu(c, s));
    json_object_set_new(root, "cpus", cpus);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    fputc('\n', out);
    json_decref(root);
    return rc;
}
