/* tick_sched: what the timer subsystem tells the cpuidle governor about the
 * coming idle period (kernel/time/tick-sched.c tick_nohz_get_sleep_length),
 * FACTS-2.md §1 [T1, T4].
 *
 * Since v4.17 the idle loop asks the governor first and stops the tick only
 * afterwards, so the governor needs two numbers:
 *  - the sleep length: time to the next timer event *as if the tick were
 *    stopped*, which is what a deep state must fit before;
 *  - delta_next: time to the event the clock-event device holds now, the
 *    nearer of the next tick and the next timer while the tick runs, the next
 *    timer once it is stopped. A governor that keeps the tick sleeps at most
 *    that long.
 * When the tick cannot be stopped (nohz off) the two are the same. */
#ifndef PMLAB_KERNEL_TIME_TICK_SCHED_H
#define PMLAB_KERNEL_TIME_TICK_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/* One CPU's timer view at idle entry. Times are absolute simulated ns. */
struct tick_sched_view {
    int64_t now_ns;           /* idle-entry timestamp */
    int64_t tick_period_ns;   /* TICK_NSEC */
    int64_t next_timer_ns;    /* next timer of the CPU other than the tick */
    bool can_stop_tick;       /* NO_HZ_IDLE and nohz=on (can_stop_idle_tick) */
    bool tick_stopped;        /* already stopped in this idle spell */
};

/* The start of the tick period containing now (the last jiffies update). */
int64_t tick_last_jiffy_ns(int64_t now_ns, int64_t tick_period_ns);
/* The next periodic tick after now. */
int64_t tick_next_ns(int64_t now_ns, int64_t tick_period_ns);

/* tick_nohz_get_sleep_length: returns the sleep length (ns from now) and
 * stores delta_next (ns from now) in *delta_next_ns. Rule [T1]: when the tick
 * cannot be stopped, the sleep length is delta_next; a timer within one tick
 * of the last jiffies update while the tick runs also gives delta_next (the
 * tick would serve it anyway); otherwise the next timer. Both are >= 0. */
int64_t tick_nohz_get_sleep_length(const struct tick_sched_view *v, int64_t *delta_next_ns);

/* Whether tick_nohz_idle_stop_tick keeps a running tick although the
 * governor let it stop: tick_nohz_next_event finds the next timer within
 * one tick of the last jiffies update and returns 0, and the tick is
 * retained (tick_nohz_retain_tick); it serves that timer. A stopped tick
 * stays stopped. Times as in the view (absolute ns). */
bool tick_nohz_retains_tick(int64_t now_ns, int64_t tick_period_ns, int64_t next_timer_ns,
                            bool tick_stopped);

#endif
