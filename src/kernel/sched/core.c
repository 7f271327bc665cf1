/* core: runqueues, wakeup placement and task execution, see sched.h. */
#include <stddef.h>
#include <stdlib.h>

#include "hw/cpu.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/fair_sg_cache.h"
#include "kernel/sched/isolation_run.h"
#include "kernel/sched/sched.h"
#include "kernel/tracepoints.h"
#include "util/xalloc.h"
#include "world.h"
#include "util/container.h"


#define SCHED_SIS_UTIL_SINCE "6.0"   /* 70fb5ccf2ebb [S4] */

static void sched_pick_next(struct world *w, int cpu);
static void sched_task_done(struct sim_event *ev, void *arg);

void task_init(struct task *t, task_done_fn done, int prev_cpu)
{
    *t = (struct task){ .done = done, .cpu = -1, .prev_cpu = prev_cpu, .avg_cpu = -1,
                        .recent_used_cpu = prev_cpu, .pin_cpu = -1, .speed = 1,
                        .exec_start_ns = -1, .vrt_stamp_ns = -1, .vrt_cpu = -1,
                        .util_est_cpu = -1 };
    sim_event_init(&t->done_ev, sched_task_done);
}

void task_set_affinity(struct task *t, int cpu)
{
    t->pin_cpu = cpu;
    t->cpus_mask = NULL;
    t->nr_cpus_allowed = cpu >= 0 ? 1 : 0;
    if (cpu >= 0)
        t->prev_cpu = cpu;
}

void task_set_cpus_allowed(struct task *t, const bool *mask, int ncpus)
{
    t->pin_cpu = -1;
    t->cpus_mask = mask;
    t->nr_cpus_allowed = 0;
    for (int cpu = 0; mask && cpu < ncpus; cpu++)
        t->nr_cpus_allowed += mask[cpu];
}

void task_set_scheduler(struct task *t, enum sched_policy policy, int rt_priority)
{
    t->policy = policy;
    t->rt_priority = policy == SCHED_POLICY_NORMAL ? 0 : rt_priority;
    t->rr_left_ns = 0;
}

bool task_allowed_on(const struct task *t, int cpu)
{
    if (t->pin_cpu >= 0)
        return t->pin_cpu == cpu;
    return !t->cpus_mask || t->cpus_mask[cpu];
}

bool sched_cpu_idle(const struct world *w, int cpu)
{
    return w->sched.nr_running[cpu] == 0;   /* no curr, nothing queued */
}

/* Make t (NULL: none) cpu's running task, keeping rq->nr_running. */
static void sched_set_curr(struct world *w, int cpu, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    w->sched.nr_running[cpu] += (t != NULL) - (c->curr != NULL);
    c->curr = t;
}

bool sched_single_task_running(const struct world *w, int cpu, const struct task *t)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    int others_queued = c->nr_queued - (t->cpu == cpu && c->curr != t);
    return (!c->curr || c->curr == t) && others_queued == 0;
}

/* t was queued on cpu: tell the task running there (task_rq_grew_fn). */
static void sched_rq_grew(struct world *w, int cpu, const struct task *t)
{
    struct task *curr = w->sched.cpu[cpu].curr;
    if (curr && curr != t && curr->rq_grew)
        curr->rq_grew(w, curr);
}

/* Completion time of a segment: work at speed, rounded up to whole ns so that
 * it never completes early. The round-up is ceil() done inline (at -O2 on
 * baseline x86-64 ceil is a libm call on every segment start and re-time):
 * truncation is ceil for x <= 0 and for whole x (every double from 2^52 up),
 * and one less than ceil for the rest, where the truncated value converts back
 * exactly and compares below x. Same integer as (sim_time_t)ceil(x). */
static sim_time_t sched_segment_end(sim_time_t now_ns, double work_ns, double speed)
{
    double ns = work_ns / speed;
    sim_time_t whole_ns = (sim_time_t)ns;
    return now_ns + whole_ns + ((double)whole_ns < ns);
}

static sim_time_t sched_bank_work(struct task *t, sim_time_t now);

/* The running task of cpu changes speed: bank the work done so far and move
 * its completion event (a reschedule, not a recomputation from the start). */
static void sched_retime(struct world *w, int cpu)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    struct task *t = c->curr;
    if (!t || c->waking || c->in_done)
        return;
    double speed = hw_thread_speed(&w->hw, cpu);
    if (speed == t->speed)
        return;
    sim_time_t from = sched_bank_work(t, w->q.now_ns);
    t->speed = speed;
    sim_event_reschedule(&w->q, &t->done_ev, sched_segment_end(from, t->work_ns, speed));
}

/* The running task's work done since its segment (re)started, taken off
 * t->work_ns; the segment then restarts at now, or later while an
 * interrupt handler holds the CPU (sched_irq_on_busy). Returns that start. */
static sim_time_t sched_bank_work(struct task *t, sim_time_t now)
{
    if (now <= t->seg_start_ns)
        return t->seg_start_ns;
    t->work_ns -= (double)(now - t->seg_start_ns) * t->speed;
    if (t->work_ns < 0)
        t->work_ns = 0;
    t->seg_start_ns = now;
    return now;
}

void sched_irq_on_busy(struct world *w, int cpu, sim_time_t ns)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    struct task *t = c->curr;
    if (ns <= 0 || !t || c->waking || c->in_done || c->in_wake_kernel || t->polling ||
        !sim_event_pending(&t->done_ev))
        return;
    c->nr_busy_irqs++;
    sim_time_t from = sched_bank_work(t, w->q.now_ns);
    t->seg_start_ns = from + ns;
    c->irq_until_ns = t->seg_start_ns;
    sim_event_reschedule(&w->q, &t->done_ev,
                         sched_segment_end(t->seg_start_ns, t->work_ns, t->speed));
}

void sched_core_speed_changed(struct world *w, int core)
{
    const struct hw_core *c = &w->machine->cores[core];
    for (int i = 0; i < c->nthreads; i++) {
        sched_retime(w, c->cpus[i]);
        sg_cache_cpu_changed(w, c->cpus[i]);   /* the PELT clock's new speed */
    }
}

void sched_task_finish_now(struct world *w, struct task *t)
{
    if (t->cpu < 0 || w->sched.cpu[t->cpu].curr != t || !sim_event_pending(&t->done_ev))
        return;
    sim_event_reschedule(&w->q, &t->done_ev, w->q.now_ns);
}

void sched_set_hw_mode(struct world *w, int cpu, int mode, int cstate)
{
    hw_thread_set_mode(&w->hw, cpu, (enum hw_thread_mode)mode, cstate, w->q.now_ns);
    /* The siblings' speed depends on this thread's state (hw_siblings_factor). */
    const struct hw_core *core = &w->machine->cores[w->machine->cpus[cpu].core];
    for (int i = 0; i < core->nthreads; i++)
        if (core->cpus[i] != cpu)
            sched_retime(w, core->cpus[i]);
}

/* Whether queued task t counts in cpu's rq->nr_running: an RT task on a
 * throttled rt_rq does not (sched_rt_rq_dequeue takes the rt_rq's tasks
 * off rq->nr_running, so the CPU is idle to every other rule). */
static int sched_task_counts(const struct sched_cpu *c, const struct task *t)
{
    return !(task_is_rt(t) && c->rt_throttled);
}

/* Queue t on cpu (its averages already say queued). */
static void sched_enqueue(struct world *w, int cpu, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    t->cpu = cpu;
    t->next = NULL;
    if (c->tail)
        c->tail->next = t;
    else
        c->head = t;
    c->tail = t;
    c->nr_queued++;
    c->nr_rt_queued += task_is_rt(t);
    w->sched.nr_running[cpu] += sched_task_counts(c, t);
    task_avg_move(w, t, cpu);
    fair_util_est_enqueue(w, t, cpu);
    rq_avg_sync(w, cpu);
    fair_tick_arm(w, cpu);
}

/* Unlink t from cpu's queue; prev is the task before it (NULL: t is the head). */
static void sched_unlink(struct world *w, int cpu, struct task *prev, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (prev)
        prev->next = t->next;
    else
        c->head = t->next;
    if (c->tail == t)
        c->tail = prev;
    c->nr_queued--;
    c->nr_rt_queued -= task_is_rt(t);
    w->sched.nr_running[cpu] -= sched_task_counts(c, t);
    t->next = NULL;
    rq_avg_sync(w, cpu);
}

/* pick_next_task: the queued task to run next, by class (an RT one, rt.c,
 * else the fair pick, fair_entity.c), unlinked. */
static struct task *sched_dequeue(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    struct task *t = c->nr_rt_queued && !c->rt_throttled ? sched_rt_pick_queued(w, cpu)
                                                         : fair_pick_queued(w, cpu);
    if (!t)
        return NULL;
    struct task *prev = NULL;
    for (struct task *p = c->head; p != t; p = p->next)
        prev = p;
    sched_unlink(w, cpu, prev, t);
    return t;
}

bool sched_core_is_idle(const struct world *w, int cpu)
{
    const struct hw_core *core = &w->machine->cores[w->machine->cpus[cpu].core];
    for (int i = 0; i < core->nthreads; i++)
        if (!sched_cpu_idle(w, core->cpus[i]))
            return false;
    return true;
}

/* select_fallback_rq: an allowed online CPU of cpu's package, else any
 * allowed online one, else (nosmt: only offline CPUs allowed) an online CPU
 * near cpu (the kernel then logs "no longer affine to cpuN"). */
static int sched_fallback_cpu(const struct world *w, const struct task *t, int cpu)
{
    const struct hw_machine *m = w->machine;
    int any = -1;
    for (int i = 0; i < m->ncpus; i++) {
        if (!task_allowed_on(t, i) || isol_cpu_offline(w, i))
            continue;
        if (m->cpus[i].package == m->cpus[cpu].package)
            return i;
        any = any < 0 ? i : any;
    }
    return any >= 0 ? any : isol_timer_cpu(w, cpu);
}

/* cpu, unless it is offline (nosmt): then the fallback. */
static int sched_online_cpu(const struct world *w, const struct task *t, int cpu)
{
    return isol_cpu_offline(w, cpu) ? sched_fallback_cpu(w, t, cpu) : cpu;
}

/* select_task_rq: a task allowed on one CPU goes there, others where the
 * fair class says (fair.c), corrected to an allowed CPU. */
static int select_task_rq(struct world *w, struct task *t, int cpu, bool fork)
{
    isol_task_defaults(w, t);
    if (t->pin_cpu >= 0)
        return sched_online_cpu(w, t, t->pin_cpu);
    if (t->nr_cpus_allowed == 1)
        return sched_fallback_cpu(w, t, cpu);
    int dst = task_is_rt(t) ? select_task_rq_rt(w, t, cpu) : select_task_rq_fair(w, t, cpu, fork);
    return task_allowed_on(t, dst) ? sched_online_cpu(w, t, dst) : sched_fallback_cpu(w, t, dst);
}

/* The hardware exit is over: account the idle period, then run the kernel's
 * wake-up path (busy, at active power) if it costs anything, then a task or
 * idle again. */
static void sched_wake_hw_done(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    idle_exit_end(w, cpu);
    if (c->wake_kernel_ns == 0) {
        sched_pick_next(w, cpu);
        return;
    }
    c->in_wake_kernel = true;
    sched_set_hw_mode(w, cpu, HW_THREAD_RUN, 0);
    sim_event_schedule(&w->q, &c->wake_ev, w->q.now_ns + c->wake_kernel_ns);
}

void sched_idle_wakeup(struct world *w, int cpu, enum idle_wake why)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    c->waking = true;
    sim_time_t lat = idle_exit_begin(w, cpu, why, &c->wake_kernel_ns);
    if (lat == 0)
        sched_wake_hw_done(w, cpu); /* polling: no exit latency */
    else
        sim_event_schedule(&w->q, &c->wake_ev, w->q.now_ns + lat);
}

/* A task was queued on idle cpu: wake it. Caches lost in the idle state are
 * refilled by the task that runs first. */
static void sched_kick(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    const struct hw_thread *th = &w->hw.thr[cpu];
    if (th->mode == HW_THREAD_IDLE)
        c->head->work_ns += (double)hw_thread_refill_ns(&w->hw, cpu);
    w->sched.nr_idle_wakeups++;
    sched_idle_wakeup(w, cpu, IDLE_WAKE_IPI);
}

static void sched_start(struct world *w, int cpu, struct task *t);

/* Whether woken t (placed on cpu) preempts cpu's running task now. The
 * running task must be running its work (not its done(), not the wake-up
 * path: t is then queued and picked by class) and not spin (a halt-polling
 * loop sees the new task itself: rq_grew). Then an RT task preempts a fair
 * one or a lower RT priority (rt.c), and a fair task a fair one as
 * wakeup_preempt_fair decides (fair_entity.c). */
bool sched_curr_interruptible(const struct sched_cpu *c)
{
    const struct task *curr = c->curr;
    return curr && !c->waking && !c->in_done && !c->in_wake_kernel && !curr->polling &&
           sim_event_pending(&curr->done_ev);
}

static bool sched_can_preempt(struct world *w, int cpu, const struct task *t)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    const struct task *curr = c->curr;
    if (!sched_curr_interruptible(c))
        return false;
    if (task_is_rt(curr) || task_is_rt(t))
        return sched_rt_preempts(w, cpu, t);
    return fair_wakeup_preempt(w, cpu, t);
}

/* cpu's running task stops running: its work so far banked, its segment's
 * end cancelled, its run time counted; cpu has no current task. */
static struct task *sched_take_curr(struct world *w, int cpu)
{
    struct task *t = w->sched.cpu[cpu].curr;
    sim_time_t now = w->q.now_ns;
    fair_update_curr(w, cpu);
    t->vrt_stamp_ns = -1;
    sched_bank_work(t, now);
    sim_event_cancel(&w->q, &t->done_ev);
    sched_rr_stop(w, cpu, t);
    sched_rt_bw_stop(w, cpu, t);
    fair_server_task_stop(w, cpu, t);
    t->sum_exec_ns += now - t->exec_start_ns;
    t->exec_start_ns = now;
    sched_set_curr(w, cpu, NULL);
    w->sched.cpu[cpu].prev_runnable = true;   /* preempted or moved: still runnable */
    return t;
}

/* Put cpu's running task back at the head of its queue, its work so far
 * banked (a preempted RT task keeps its place at the front of its
 * priority, as enqueue_task_rt with ENQUEUE_HEAD). */
static void sched_put_prev_head(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    struct task *p = sched_take_curr(w, cpu);
    task_avg_sync(w, p, TASK_AVG_QUEUED);
    p->next = c->head;
    c->head = p;
    if (!c->tail)
        c->tail = p;
    c->nr_queued++;
    c->nr_rt_queued += task_is_rt(p);
    w->sched.nr_running[cpu] += sched_task_counts(c, p);
}

/* Move queued task t (the tail, or anywhere) to the head of c's queue. */
static void sched_queue_to_head(struct sched_cpu *c, struct task *t)
{
    struct task *prev = NULL;
    for (struct task *p = c->head; p != t; p = p->next)
        prev = p;
    if (!prev)
        return;
    prev->next = t->next;
    if (c->tail == t)
        c->tail = prev;
    t->next = c->head;
    c->head = t;
}

/* t preempts cpu's running task (sched_can_preempt), which goes back to the
 * queue and resumes when the pick finds it again. The CPU first runs the
 * interrupt that brought the wake-up (the timer's or the reschedule IPI)
 * and the switch (wake_irq_ns + wake_switch_ns, as on an idle CPU's wake-up
 * path), then picks: t, by class and the fair order. */
static void sched_preempt_curr(struct world *w, int cpu, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    bool equal_rt = task_is_rt(t) && task_prio(t) == task_prio(c->curr);
    sched_put_prev_head(w, cpu);
    if (task_is_rt(t))
        w->sched.nr_rt_preemptions++;
    else
        w->sched.nr_preemptions++;
    sched_enqueue(w, cpu, t);
    /* check_preempt_equal_prio's requeue_task_rt(rq, p, 1): the wakee goes
     * ahead of the current task, which stays at the head of its priority
     * in the kernel's list, so that the pick finds the wakee. */
    if (equal_rt) {
        sched_queue_to_head(c, t);
        w->sched.nr_rt_equal_preemptions++;
    }
    c->in_wake_kernel = true;
    /* An interrupt handler already running finishes first. */
    sim_time_t from = c->irq_until_ns > w->q.now_ns ? c->irq_until_ns : w->q.now_ns;
    sim_event_schedule(&w->q, &c->wake_ev, from + w->idle.wake_irq_ns + w->idle.wake_switch_ns);
}

void sched_resched_curr(struct world *w, int cpu)
{
    sched_put_prev_head(w, cpu);
    sched_pick_next(w, cpu);
}

void sched_rt_set_throttled(struct world *w, int cpu, bool throttled)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (c->rt_throttled == throttled)
        return;
    c->rt_throttled = throttled;
    if (!c->nr_rt_queued)
        return;   /* rq->nr_running is as it was */
    w->sched.nr_running[cpu] += throttled ? -c->nr_rt_queued : c->nr_rt_queued;
    rq_avg_sync(w, cpu);
    if (throttled)
        return;
    /* sched_rt_rq_enqueue: the RT tasks run now; a CPU between tasks or
     * leaving an idle state picks them when it gets there. */
    if (!c->curr && !c->waking && !c->in_wake_kernel)
        sched_kick(w, cpu);
    else if (c->curr && !task_is_rt(c->curr) && sched_curr_interruptible(c))
        sched_resched_curr(w, cpu);
}

void sched_requeue_curr(struct world *w, int cpu)
{
    struct task *p = sched_take_curr(w, cpu);
    task_avg_sync(w, p, TASK_AVG_QUEUED);
    sched_enqueue(w, cpu, p);
    sched_pick_next(w, cpu);
}

/* Queue t (its averages say queued) on cpu, placed as `how` says, and wake
 * cpu if it idles; a CPU already leaving its idle state (for a tick or
 * timer) runs t when it is out, as the kernel's idle loop finds
 * need_resched set. */
static void sched_activate(struct world *w, struct task *t, int cpu, enum fair_enqueue how)
{
    fair_update_curr(w, cpu);
    fair_place_entity(w, cpu, t, how);
    bool was_idle = sched_cpu_idle(w, cpu) && !w->sched.cpu[cpu].waking;
    if (!was_idle && sched_can_preempt(w, cpu, t)) {
        sched_preempt_curr(w, cpu, t);
        return;
    }
    sched_enqueue(w, cpu, t);
    if (was_idle) {
        sched_kick(w, cpu);
        return;
    }
    sched_rq_grew(w, cpu, t);
    /* ttwu_do_activate's task_woken (wake-ups and wake_up_new_task). */
    if (task_is_rt(t) && (how == FAIR_ENQUEUE_WAKEUP || how == FAIR_ENQUEUE_INITIAL))
        sched_rt_task_woken(w, cpu, t);
}

void sched_wake_task(struct world *w, struct task *t, double work_ns, int waker_cpu)
{
    t->work_ns = work_ns;
    if (t->prev_cpu < 0)
        t->prev_cpu = waker_cpu;   /* never ran: as if it last ran where it is woken */
    /* The current task continuing from its own done(): it stays. */
    bool continues = t->prev_cpu >= 0 && w->sched.cpu[t->prev_cpu].curr == t;
    int cpu = continues ? t->prev_cpu : select_task_rq(w, t, waker_cpu, false);
    task_avg_sync(w, t, TASK_AVG_QUEUED);
    w->sched.nr_wakeups++;
    if (!continues)
        tp_sched_wakeup(w, t, cpu, waker_cpu, false);
    sched_activate(w, t, cpu, continues ? FAIR_ENQUEUE_RESTORE : FAIR_ENQUEUE_WAKEUP);
}

void task_fork(struct world *w, struct task *t, double work_ns, int parent_cpu)
{
    t->work_ns = work_ns;
    t->prev_cpu = t->recent_used_cpu = parent_cpu;
    t->avg = (struct sched_avg){ .load_avg = SCHED_CAPACITY_SCALE };  /* init_entity_runnable_average */
    t->util_est = (struct util_est){ 0 };
    t->avg_new = true;
    t->avg_state = TASK_AVG_SLEEPING;
    int cpu = select_task_rq(w, t, parent_cpu, true);
    fair_post_init_util(w, t, cpu);
    task_avg_sync(w, t, TASK_AVG_QUEUED);
    w->sched.nr_wakeups++;
    tp_sched_wakeup(w, t, cpu, parent_cpu, true);
    sched_activate(w, t, cpu, FAIR_ENQUEUE_INITIAL);
}

static void sched_start(struct world *w, int cpu, struct task *t)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    if (t->exec_start_ns >= 0 && t->prev_cpu != cpu)
        w->sched.nr_migrations++;
    t->exec_start_ns = w->q.now_ns;
    fair_set_next(w, cpu, t);
    sched_rr_start(w, cpu, t);
    sched_rt_bw_start(w, cpu, t);
    fair_server_task_start(w, cpu, t);
    sched_balance_nohz_exit(w, cpu);
    tp_sched_switch(w, cpu, t, !c->prev_runnable);
    c->prev_runnable = false;
    sched_set_curr(w, cpu, t);
    c->had_task = true;
    t->cpu = cpu;
    t->prev_cpu = cpu;
    task_avg_sync(w, t, TASK_AVG_RUNNING);
    fair_util_est_enqueue(w, t, cpu);   /* pulled while running: not queued first */
    rq_avg_sync(w, cpu);
    idle_task_runs(w, cpu);
    sched_set_hw_mode(w, cpu, t->polling ? HW_THREAD_POLL : HW_THREAD_RUN, 0);
    t->speed = hw_thread_speed(&w->hw, cpu);
    t->seg_start_ns = w->q.now_ns;
    sim_event_schedule(&w->q, &t->done_ev, sched_segment_end(w->q.now_ns, t->work_ns, t->speed));
    /* After the segment is set up, so a frequency change re-times it. */
    cpufreq_update_util(w, cpu);
    sched_balance_arm(w, cpu);
    fair_tick_arm(w, cpu);
    if (task_is_rt(t))
        sched_rt_switched_to(w, cpu, t);   /* the balance callback after the switch */
}

static void sched_pick_next(struct world *w, int cpu)
{
    struct sched_cpu *c = &w->sched.cpu[cpu];
    c->waking = false;
    struct task *t = sched_dequeue(w, cpu);
    if (!t && sched_balance_newidle(w, cpu)) {
        if (c->curr)
            return;   /* it pulled a running task (active balance) */
        t = sched_dequeue(w, cpu);
    }
    if (t) {
        sched_start(w, cpu, t);
        return;
    }
    fair_cpu_went_idle(w, cpu);
    sched_balance_nohz_enter(w, cpu);
    idle_enter(w, cpu);
    cpufreq_update_util(w, cpu);
}

/* Take the running task off cpu, its work so far banked; cpu's state is left
 * to the caller (it must pick its next task). */
static struct task *sched_detach_running(struct world *w, int cpu)
{
    struct task *t = sched_take_curr(w, cpu);
    fair_dequeue_entity(w, cpu, t);
    t->prev_cpu = cpu;
    t->cpu = -1;
    task_avg_sync(w, t, TASK_AVG_QUEUED);
    fair_util_est_dequeue(w, t, false);
    uclamp_rq_dec(w, cpu, t);
    rq_avg_sync(w, cpu);
    w->sched.nr_asym_migrations++;
    return t;
}

void sched_migrate_running(struct world *w, int src, int dst)
{
    struct task *t = sched_detach_running(w, src);
    /* src first, while t is on no runqueue, so src cannot pull it back. */
    sched_pick_next(w, src);
    sched_activate(w, t, dst, FAIR_ENQUEUE_MIGRATED);
}

/* deactivate_task, set_task_cpu, activate_task for queued t; dst_picking:
 * dst is choosing its next task, t is only queued there. */
static void sched_move_queued_task(struct world *w, int src, struct task *prev, struct task *t,
                                   int dst, bool dst_picking)
{
    fair_dequeue_entity(w, src, t);
    fair_util_est_dequeue(w, t, false);
    sched_unlink(w, src, prev, t);
    uclamp_rq_dec(w, src, t);
    if (dst_picking) {
        fair_place_entity(w, dst, t, FAIR_ENQUEUE_MIGRATED);
        sched_enqueue(w, dst, t);   /* dst is choosing its next task: no wake-up */
    } else {
        sched_activate(w, t, dst, FAIR_ENQUEUE_MIGRATED);
    }
}

void sched_move_queued(struct world *w, int src, struct task *prev, struct task *t, int dst)
{
    w->sched.nr_pulls++;
    sched_move_queued_task(w, src, prev, t, dst, w->sched.cpu[dst].in_newidle);
}

void sched_rt_move_queued(struct world *w, int src, struct task *t, int dst, bool dst_picking)
{
    struct task *prev = NULL;
    for (struct task *p = w->sched.cpu[src].head; p != t; p = p->next)
        prev = p;
    sched_move_queued_task(w, src, prev, t, dst, dst_picking);
}

void sched_pull_running(struct world *w, int src, int dst)
{
    struct task *t = sched_detach_running(w, src);
    fair_place_entity(w, dst, t, FAIR_ENQUEUE_MIGRATED);
    sched_start(w, dst, t);
    sched_pick_next(w, src);
}

static void sched_wake_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct sched_cpu *c = container_of(ev, struct sched_cpu, wake_ev);
    int cpu = (int)(c - w->sched.cpu);
    if (!c->in_wake_kernel) {
        sched_wake_hw_done(w, cpu);
        return;
    }
    c->in_wake_kernel = false;
    sched_pick_next(w, cpu);
}

/* A segment ends. done() runs while t is still current on cpu, as a task
 * that wakes another does so before it sleeps: the CPU is busy to the
 * wakee's placement. If done() gives t more work, t goes on here (it never
 * slept); otherwise cpu picks its next task or idles. */
static void sched_task_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct task *t = container_of(ev, struct task, done_ev);
    int cpu = t->cpu;
    struct sched_cpu *c = &w->sched.cpu[cpu];
    fair_update_curr(w, cpu);
    t->work_ns = 0;
    t->cpu = -1;
    t->prev_cpu = cpu;
    sched_rr_stop(w, cpu, t);
    sched_rt_bw_stop(w, cpu, t);
    fair_server_task_stop(w, cpu, t);
    t->sum_exec_ns += w->q.now_ns - t->exec_start_ns;
    t->exec_start_ns = w->q.now_ns;
    task_avg_sync(w, t, TASK_AVG_SLEEPING);
    c->in_done = true;
    t->done(w, t);
    c->in_done = false;
    if (t->cpu < 0) {
        fair_dequeue_entity(w, cpu, t);   /* it sleeps: its lag, while still counted */
        fair_util_est_dequeue(w, t, true);
        uclamp_rq_dec(w, cpu, t);
    }
    t->vrt_stamp_ns = -1;
    sched_set_curr(w, cpu, NULL);
    rq_avg_sync(w, cpu);
    if (c->waking)
        return;
    if (task_is_rt(t) && t->cpu < 0)
        sched_rt_balance(w, cpu, t);   /* balance_rt: it slept, cpu may pull */
    sched_pick_next(w, cpu);
}

void sched_init(struct world *w)
{
    struct sched *s = &w->sched;
    s->ncpus = w->machine->ncpus;
    s->cpu = xcalloc((size_t)s->ncpus, sizeof *s->cpu);
    s->rq_avg = xcalloc((size_t)s->ncpus, sizeof *s->rq_avg);
    s->nr_running = xcalloc((size_t)s->ncpus, sizeof *s->nr_running);
    s->rq_clock = xcalloc((size_t)s->ncpus, sizeof *s->rq_clock);
    for (int cpu = 0; cpu < s->ncpus; cpu++) {
        sim_event_init(&s->cpu[cpu].wake_ev, sched_wake_done);
        sim_event_init(&s->cpu[cpu].balance_ev, sched_balance_tick);
        sim_event_init(&s->cpu[cpu].rr_ev, sched_rr_slice_end);
        sim_event_init(&s->cpu[cpu].rt_throttle_ev, sched_rt_throttle_check);
        sim_event_init(&s->cpu[cpu].slice_ev, fair_tick);
        task_init(&s->cpu[cpu].idle_task, NULL, cpu);
        if (isol_cpu_offline(w, cpu))
            isol_park_offline(w, cpu);
        else
            idle_enter(w, cpu);
    }
    itmt_resolve(w->machine, w->kp, &s->itmt);
    s->asym_packing = s->itmt.capable && s->itmt.enabled;
    sched_topology_build(w->machine, w->kp, &s->itmt, &s->topo);
    s->sis_util = kversion_at_least(&w->kp->kernel, SCHED_SIS_UTIL_SINCE);
    s->scan_mask = xcalloc((size_t)s->ncpus, sizeof *s->scan_mask);
    s->llc = xcalloc((size_t)s->ncpus, sizeof *s->llc);
    s->rt_distribute_prev = xcalloc((size_t)s->ncpus, sizeof *s->rt_distribute_prev);
    /* RR_TIMESLICE: 100 ms in whole jiffies (100 * HZ / 1000). */
    /* RR_TIMESLICE (100 ms), or sched_rr_timeslice_ms, in whole jiffies
     * (msecs_to_jiffies rounds up). */
    int hz = w->idle.hz > 0 ? w->idle.hz : 1000;
    int64_t rr_ms = kparams_get(w->kp, "sched_rr_timeslice_ms", 0, -1);
    s->rr_timeslice_ns = (sim_time_t)((rr_ms * hz + 999) / 1000) * w->idle.tick_period_ns;
    fair_entity_init(w);
    fair_util_est_init(w);
    sched_rt_bw_init(w);
    sched_rt_push_init(w);
    fair_server_init(w);
    uclamp_init(w);
    sched_balance_init(w);
    for (int cpu = 0; cpu < s->ncpus; cpu++)
        s->llc[cpu] = (struct sched_llc_shared){ .has_idle_cores = true,
                                                 .nr_idle_scan = s->topo.llc_size[cpu] };
    sg_cache_init(w);
}

void sched_destroy(struct world *w)
{
    free(w->sched.cpu);
    w->sched.cpu = NULL;
    free(w->sched.llc);
    free(w->sched.rq_avg);
    free(w->sched.nr_running);
    free(w->sched.rq_clock);
    sg_cache_destroy(w);
    free(w->sched.scan_mask);
    free(w->sched.rt_distribute_prev);
    sched_balance_destroy(w);
    itmt_destroy(&w->sched.itmt);
    sched_topology_destroy(&w->sched.topo);
}
