/* tick_sched: the sleep length handed to cpuidle governors, see tick_sched.h.
 * Follows v6.x tick-sched.c [T1]. RCU's hold on the tick (rcu_needs_cpu)
 * comes in through the caller's next timer (sched/idle.c). Departures:
 * irq_work and pending softirqs never hold the tick, and the timekeeping CPU's max-deferment cap is not applied; the
 * caller hands in one "next timer", the earliest of the CPU's timer-wheel
 * (already rounded, kernel/time/timer.h) and hrtimer expiries. */
#include "kernel/time/tick_sched.h"

int64_t tick_last_jiffy_ns(int64_t now_ns, int64_t tick_period_ns)
{
    return now_ns / tick_period_ns * tick_period_ns;
}

int64_t tick_next_ns(int64_t now_ns, int64_t tick_period_ns)
{
    return tick_last_jiffy_ns(now_ns, tick_period_ns) + tick_period_ns;
}

static int64_t tick_clamp0(int64_t ns)
{
    return ns < 0 ? 0 : ns; /* callers cope with negative values by clamping [T1, T6] */
}

int64_t tick_nohz_get_sleep_length(const struct tick_sched_view *v, int64_t *delta_next_ns)
{
    int64_t to_timer_ns = tick_clamp0(v->next_timer_ns - v->now_ns);
    /* The device holds the earliest event: the tick's while it runs. */
    int64_t delta_next = to_timer_ns;
    if (!v->tick_stopped) {
        int64_t to_tick_ns = tick_next_ns(v->now_ns, v->tick_period_ns) - v->now_ns;
        if (to_tick_ns < delta_next)
            delta_next = to_tick_ns;
    }
    *delta_next_ns = delta_next;
    if (!v->can_stop_tick)
        return delta_next;
    /* tick_nohz_next_event: a timer due within a tick of the last jiffies
     * update while the tick still runs is left to the tick (returns 0, and
     * the caller falls back to delta_next). */
    if (tick_nohz_retains_tick(v->now_ns, v->tick_period_ns, v->next_timer_ns, v->tick_stopped))
        return delta_next;
    return to_timer_ns;
}

bool tick_nohz_retains_tick(int64_t now_ns, int64_t tick_period_ns, int64_t next_timer_ns,
                            bool tick_stopped)
{
    int64_t basemono_ns = tick_last_jiffy_ns(now_ns, tick_period_ns);
    return !tick_stopped && next_timer_ns - basemono_ns <= tick_period_ns;
}
