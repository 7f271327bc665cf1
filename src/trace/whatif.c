/* whatif: a trace's own idle periods through another cpuidle governor and
 * idle table (trace.h), beside what the real governor chose.
 *
 * Each closed idle period of the trace (entry to exit, in the state the real
 * governor chose) is replayed on its CPU as the kernel's idle loop does it
 * (sched/idle.c): fill the device, select(), account the period with
 * cpuidle_account() at its observed length, reflect(). The period's length
 * is a fact of the recording (what woke the CPU is not the governor's
 * choice), so the what-if changes which state, not when the CPU woke; the
 * real choices go through the same accounting, so above/below are counted
 * by the kernel's rule for both.
 *
 * What the governor is told is only what the trace records about timers,
 * never the period's length (which would make every governor an oracle:
 * "above 0.0 %"). The sleep length the timer subsystem gives at idle entry
 * (tick_nohz_get_sleep_length: the next timer event on the CPU) is taken as
 * the time from the entry to the next timer expiry the trace records on that
 * CPU (timer:hrtimer_expire_entry, timer_expire_entry, irq_vectors:
 * local_timer_entry, the tick included), capped by the tick period (the tick
 * is taken as running, at the given HZ: the next tick is at most a period
 * away). It is exact when a timer ends the period and later than the period
 * when an interrupt or a wake-up ends it, as on the real system. A CPU with
 * no timer expiry after the entry in the trace (timer events not recorded,
 * or the end of the file) is told the tick period; the output counts those.
 * No PM QoS limit. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cpuidle/cpuidle.h"
#include "trace/trace.h"
#include "util/xalloc.h"

struct whatif_cpu {
    struct cpuidle_device real, sim;
    int open_state;        /* idle state of the open period, -1 none or unknown */
    uint64_t since_ns;
    int64_t sleep_ns;      /* the open period's time to the next recorded timer, -1 none */
};

/* For every event i, the time from it to the next timer expiry the trace
 * records on its CPU at or after it ([td->n], -1 where there is none): one
 * pass from the end. */
static int64_t *whatif_next_timer(const struct trace_data *td)
{
    int64_t *next = xcalloc(td->n + 1, sizeof *next);
    uint64_t *last = xcalloc((size_t)td->ncpus, sizeof *last);
    bool *seen = xcalloc((size_t)td->ncpus, sizeof *seen);
    for (size_t i = td->n; i-- > 0;) {
        const struct trace_ev *e = &td->ev[i];
        next[i] = -1;
        if (e->cpu < 0 || e->cpu >= td->ncpus)
            continue;
        if (e->kind == TRACE_EV_TIMER) {
            last[e->cpu] = e->ts_ns;
            seen[e->cpu] = true;
        }
        if (seen[e->cpu])
            next[i] = (int64_t)(last[e->cpu] - e->ts_ns);
    }
    free(last);
    free(seen);
    return next;
}

static void whatif_dev_init(struct cpuidle_device *dev, const struct trace_whatif_opts *o,
                            int cpu, bool with_gov)
{
    memset(dev, 0, sizeof *dev);
    dev->cpu = cpu;
    dev->kernel = &o->kernel;
    dev->tick_period_ns = 1000000000LL / o->hz;
    dev->latency_req_ns = INT64_MAX;
    dev->next_timer_ns = INT64_MAX;
    if (with_gov) {
        dev->governor_data = xcalloc(1, o->gov->data_size ? o->gov->data_size : 1);
        o->gov->enable(&o->drv, dev);
    }
}

/* One closed period of length len_ns that the real governor spent in
 * state real_idx, entered with sleep_ns to the next recorded timer (-1:
 * none recorded): the governor's choice for it, both accounted. */
static void whatif_period(const struct trace_whatif_opts *o, struct whatif_cpu *c, int real_idx,
                          int64_t len_ns, int64_t sleep_ns)
{
    struct cpuidle_device *dev = &c->sim;
    int64_t tick_ns = dev->tick_period_ns;
    dev->next_timer_ns = sleep_ns >= 0 && sleep_ns < tick_ns ? sleep_ns : tick_ns;
    dev->delta_tick_ns = dev->next_timer_ns;
    dev->tick_stopped = false;
    bool stop_tick = true;
    int idx = o->gov->select(&o->drv, dev, &stop_tick);
    /* A kept tick ends a longer period at the tick: the governor learns of
     * that, as woke_by_tick (the length stays the recorded one). */
    dev->woke_by_tick = !stop_tick && len_ns >= dev->tick_period_ns;
    dev->poll_time_limit = false;
    cpuidle_account(&o->drv, dev, idx, len_ns, false);
    if (o->gov->reflect)
        o->gov->reflect(dev, idx);
    if (real_idx < o->drv.state_count)
        cpuidle_account(&o->drv, &c->real, real_idx, len_ns, false);
}

/* A timer expiry this soon after a period's end is what ended it (the
 * handler runs just after the idle exit event). */
#define WHATIF_TIMER_SLOP_NS 20000

void trace_whatif_run(const struct trace_data *td, const struct trace_whatif_opts *o,
                      struct trace_whatif *out)
{
    memset(out, 0, sizeof *out);
    out->ncpus = td->ncpus;
    out->nstates = o->drv.state_count;
    out->cpu = xcalloc((size_t)td->ncpus, sizeof *out->cpu);
    struct whatif_cpu *c = xcalloc((size_t)td->ncpus, sizeof *c);
    for (int i = 0; i < td->ncpus; i++) {
        whatif_dev_init(&c[i].real, o, i, false);
        whatif_dev_init(&c[i].sim, o, i, true);
        c[i].open_state = -1;
    }
    int64_t *next_timer = whatif_next_timer(td);
    for (size_t i = 0; i < td->n; i++) {
        const struct trace_ev *e = &td->ev[i];
        if (e->cpu < 0 || e->cpu >= td->ncpus)
            continue;
        struct whatif_cpu *wc = &c[e->cpu];
        if (e->kind == TRACE_EV_LOST) {
            wc->open_state = -1; /* the period it cut is not known */
            continue;
        }
        if (e->kind != TRACE_EV_IDLE)
            continue;
        if (wc->open_state >= 0) {
            int64_t len_ns = (int64_t)(e->ts_ns - wc->since_ns);
            whatif_period(o, wc, wc->open_state, len_ns, wc->sleep_ns);
            out->periods++;
            out->no_timer += wc->sleep_ns < 0;
            out->timer_ended += wc->sleep_ns >= 0 && wc->sleep_ns <= len_ns + WHATIF_TIMER_SLOP_NS;
            if (wc->open_state >= o->drv.state_count)
                out->beyond_table++;
        }
        wc->open_state = e->value >= 0 ? (int)e->value : -1;
        wc->since_ns = e->ts_ns;
        wc->sleep_ns = next_timer[i];
    }
    free(next_timer);
    for (int i = 0; i < td->ncpus; i++) {
        for (int s = 0; s < o->drv.state_count; s++) {
            out->cpu[i].real[s] = c[i].real.states_usage[s];
            out->cpu[i].sim[s] = c[i].sim.states_usage[s];
        }
        free(c[i].sim.governor_data);
    }
    free(c);
}

void trace_whatif_free(struct trace_whatif *w)
{
    free(w->cpu);
    memset(w, 0, sizeof *w);
}

static void whatif_totals(const struct cpuidle_state_usage *u, int n, uint64_t *entries,
                          uint64_t *above, uint64_t *below)
{
    for (int s = 0; s < n; s++) {
        *entries += u[s].usage;
        *above += u[s].above;
        *below += u[s].below;
    }
}

void trace_whatif_print(FILE *out, const struct trace_data *td, const struct trace_whatif_opts *o,
                        const struct trace_whatif *w)
{
    fprintf(out, "trace %s: %d CPUs; what-if governor %s, HZ %d, %d states\n", td->path,
            td->ncpus, o->gov->name, o->hz, o->drv.state_count);
    if (o->table_from)
        fprintf(out, "table: %s\n", o->table_from);
    fprintf(out, "told: sleep length = time from idle entry to the next timer expiry the trace "
            "records on the CPU (timer:hrtimer_expire_entry, timer_expire_entry, "
            "local_timer_entry), at most the tick period (%.3f ms at HZ %d); never the "
            "period's length\n", 1e3 / o->hz, o->hz);
    fprintf(out, "told: of %" PRIu64 " periods, %" PRIu64 " ended by a recorded timer (told "
            "about their length), %" PRIu64 " ended earlier, %" PRIu64 " with no timer "
            "recorded after their entry (told the tick period)\n", w->periods, w->timer_ended,
            w->periods - w->timer_ended - w->no_timer, w->no_timer);
    fprintf(out, "approximated: tick running (never stopped); no PM QoS limit; the periods keep "
            "their recorded lengths\n");
    if (td->dropped[0])
        fprintf(out, "dropped: the file ends early: %s\n", td->dropped);
    if (w->beyond_table)
        fprintf(out, "note: %" PRIu64 " real periods in states beyond the table: in the what-if, "
                "not in the real columns\n", w->beyond_table);
    fprintf(out, "\n%-4s %-6s %10s %10s %12s %12s %8s %8s %8s %8s\n", "CPU", "state",
            "real_hits", "whatif", "real_ms", "whatif_ms", "r_above", "w_above", "r_below",
            "w_below");
    uint64_t re = 0, ra = 0, rb = 0, we = 0, wa = 0, wb = 0;
    for (int c = 0; c < w->ncpus; c++) {
        for (int s = 0; s < w->nstates; s++) {
            const struct cpuidle_state_usage *r = &w->cpu[c].real[s], *x = &w->cpu[c].sim[s];
            if (!r->usage && !x->usage)
                continue;
            fprintf(out, "%-4d %-6s %10" PRIu64 " %10" PRIu64 " %12.3f %12.3f %8" PRIu64
                    " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n", c, o->drv.states[s].name,
                    r->usage, x->usage, (double)r->time_ns / 1e6, (double)x->time_ns / 1e6,
                    r->above, x->above, r->below, x->below);
        }
        whatif_totals(w->cpu[c].real, w->nstates, &re, &ra, &rb);
        whatif_totals(w->cpu[c].sim, w->nstates, &we, &wa, &wb);
    }
    fprintf(out, "\nall CPUs: real %" PRIu64 " periods, above %.1f %%, below %.1f %%; %s %" PRIu64
            " periods, above %.1f %%, below %.1f %%\n", re, re ? 100.0 * (double)ra / (double)re : 0,
            re ? 100.0 * (double)rb / (double)re : 0, o->gov->name, we,
            we ? 100.0 * (double)wa / (double)we : 0, we ? 100.0 * (double)wb / (double)we : 0);
    fprintf(out, "energy: not computed (the table gives no state powers)\n");
}
