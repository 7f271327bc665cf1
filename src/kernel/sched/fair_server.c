/* fair_server: v6.12's deadline server for fair tasks (kernel/sched/fair.c
 * fair_server_init, kernel/sched/deadline.c dl_server_*; 63ba8422f876 the
 * server, a110a81c52a9 deferred, 5f6bd380c7bd in place of RT throttling).
 *
 * Why: RT throttling stopped RT tasks after 950 ms of every second even with
 * nothing else to run. From 6.12 each CPU has instead a SCHED_DEADLINE
 * reservation for its fair tasks, runtime 50 ms every period of 1 s
 * (/sys/kernel/debug/sched/fair_server/cpuN/{runtime,period}), that only
 * acts when fair tasks starve: it starts when the CPU's fair runqueue gets a
 * task, deferred to its zero-laxity time (the deadline less the runtime
 * left); any fair running time meanwhile uses its runtime up. At that time,
 * with runtime left, it runs the fair tasks ahead of the RT ones for the
 * runtime left (pmlab: the CPU's rt_rq is held as if throttled), then waits
 * for the deadline and starts a new period if fair tasks are still there.
 * It stops when the fair runqueue empties; a restart within the period
 * keeps the period's deadline and what was used of its runtime unless the
 * runtime left over the time left would overrun the server's bandwidth
 * (the CBS wake-up rule, update_dl_entity's dl_entity_overflow): then a
 * new period starts with the whole runtime, so a restart late in the
 * period does not run the fair tasks over RT at once for the old
 * runtime. (Later kernels keep the deadline for a deferred server and cut
 * the runtime to the bandwidth's share of the time left instead, the
 * revised wake-up rule for dl_defer entities; not modelled.) An RT hog and a
 * fair task on one CPU therefore share each second 950/50 as with RT
 * throttling, measured from when the fair task arrived, and a lone hog is
 * never stopped. Not modelled: admission control against
 * sched_rt_runtime_us, v6.12's scaling of the server's runtime by
 * frequency and capacity (fixed later, fc975cfb3639), DL tasks. */
#include <stddef.h>

#include "kernel/sched/sched.h"
#include "util/container.h"
#include "world.h"

#define FAIR_SERVER_SINCE "6.12"

void fair_server_init(struct world *w)
{
    struct sched *s = &w->sched;
    s->fair_server = kversion_at_least(&w->kp->kernel, FAIR_SERVER_SINCE);
    for (int cpu = 0; cpu < s->ncpus; cpu++) {
        struct fair_server *fs = &s->cpu[cpu].fs;
        *fs = (struct fair_server){
            .runtime_ns = kparams_get(w->kp, "fair_server_runtime_ns", cpu, -1),
            .period_ns = kparams_get(w->kp, "fair_server_period_ns", cpu, -1),
        };
        sim_event_init(&fs->ev, fair_server_timer);
        sim_event_init(&fs->sync_ev, fair_server_sync);
    }
}

/* The fair tasks' running time on cpu so far. */
static sim_time_t fair_exec_now(const struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    bool fair_running = c->curr && !task_is_rt(c->curr);
    return c->fs.fair_exec_ns + (fair_running ? w->q.now_ns - c->fs.fair_stamp_ns : 0);
}

void fair_server_task_start(struct world *w, int cpu, const struct task *t)
{
    if (w->sched.fair_server && !task_is_rt(t))
        w->sched.cpu[cpu].fs.fair_stamp_ns = w->q.now_ns;
}

void fair_server_task_stop(struct world *w, int cpu, const struct task *t)
{
    struct fair_server *fs = &w->sched.cpu[cpu].fs;
    if (w->sched.fair_server && !task_is_rt(t))
        fs->fair_exec_ns += w->q.now_ns - fs->fair_stamp_ns;
}

/* What is left of the period's runtime. */
static sim_time_t fs_runtime_left(const struct world *w, int cpu)
{
    const struct fair_server *fs = &w->sched.cpu[cpu].fs;
    return fs->runtime_ns - (fair_exec_now(w, cpu) - fs->period_fair_ns);
}

/* Arm the zero-laxity timer, or the period's end if nothing is left. */
static void fs_arm(struct world *w, int cpu)
{
    struct fair_server *fs = &w->sched.cpu[cpu].fs;
    sim_time_t left = fs_runtime_left(w, cpu);
    fs->next = left > 0 ? FS_DEFER : FS_PERIOD_END;
    sim_time_t at = left > 0 ? fs->deadline_ns - left : fs->deadline_ns;
    sim_event_schedule(&w->q, &fs->ev, at > w->q.now_ns ? at : w->q.now_ns);
}

static void fs_new_period(struct world *w, int cpu)
{
    struct fair_server *fs = &w->sched.cpu[cpu].fs;
    fs->deadline_ns = w->q.now_ns + fs->period_ns;
    fs->period_fair_ns = fair_exec_now(w, cpu);
    fs_arm(w, cpu);
}

static void fs_unboost(struct world *w, int cpu)
{
    struct fair_server *fs = &w->sched.cpu[cpu].fs;
    if (!fs->boosting)
        return;
    fs->boosting = false;
    sched_rt_set_throttled(w, cpu, false);
}

/* dl_entity_overflow at a restart: the runtime left over the time left to
 * the deadline is more than the server's bandwidth (runtime per period;
 * its relative deadline is its period). Both products stay below 2^63:
 * runtime <= 1 s and period <= 4 s, in ns. */
static bool fs_overflow(const struct world *w, int cpu)
{
    const struct fair_server *fs = &w->sched.cpu[cpu].fs;
    sim_time_t left = fs_runtime_left(w, cpu);
    return (fs->deadline_ns - w->q.now_ns) * fs->runtime_ns < fs->period_ns * left;
}

/* dl_server_start / dl_server_stop at the fair runqueue's 0 <-> 1 edges. */
void fair_server_sync(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct fair_server *fs = container_of(ev, struct fair_server, sync_ev);
    struct sched_cpu *c = container_of(fs, struct sched_cpu, fs);
    int cpu = (int)(c - w->sched.cpu);
    bool has_fair = w->sched.rq_avg[cpu].nr_running > 0;
    if (has_fair == fs->active)
        return;
    fs->active = has_fair;
    if (!has_fair) {
        sim_event_cancel(&w->q, &fs->ev);
        fs_unboost(w, cpu);
    } else if (w->q.now_ns >= fs->deadline_ns || fs_overflow(w, cpu)) {
        /* update_dl_entity: a deadline passed, or the runtime left would
         * overrun the bandwidth before it (a restart late in the period),
         * starts a new period with the whole runtime, deferred again. */
        fs_new_period(w, cpu);
    } else {
        fs_arm(w, cpu);
    }
}

void fair_server_nr_changed(struct world *w, int cpu, int old_nr, int new_nr)
{
    struct fair_server *fs = &w->sched.cpu[cpu].fs;
    if (!w->sched.fair_server || fs->runtime_ns <= 0 || (old_nr > 0) == (new_nr > 0))
        return;
    /* after the change that caused it, as the scheduler's own calls run */
    if (!sim_event_pending(&fs->sync_ev))
        sim_event_schedule(&w->q, &fs->sync_ev, w->q.now_ns);
}

/* The zero-laxity time: run the fair tasks over RT for the runtime left.
 * Fair time used meanwhile moves the zero-laxity time on (dl_server_timer
 * forwards the timer; its 1 ms minimum step is not modelled). */
static void fs_boost(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    struct fair_server *fs = &c->fs;
    sim_time_t left = fs_runtime_left(w, cpu);
    if (left <= 0 || w->q.now_ns < fs->deadline_ns - left) {
        fs_arm(w, cpu);
        return;
    }
    fs->boosting = true;
    w->sched.nr_fair_server_boosts++;
    sched_rt_set_throttled(w, cpu, true);
    if (c->curr && task_is_rt(c->curr) && sched_curr_interruptible(c))
        sched_resched_curr(w, cpu);
    fs->next = FS_BOOST_END;
    sim_event_schedule(&w->q, &fs->ev, w->q.now_ns + left);
}

void fair_server_timer(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct fair_server *fs = container_of(ev, struct fair_server, ev);
    struct sched_cpu *c = container_of(fs, struct sched_cpu, fs);
    int cpu = (int)(c - w->sched.cpu);
    switch (fs->next) {
    case FS_DEFER:
        fs_boost(w, cpu);
        break;
    case FS_BOOST_END:
        fs_unboost(w, cpu);
        fs_arm(w, cpu);
        break;
    case FS_PERIOD_END:
        fs_new_period(w, cpu);
        break;
    }
}
