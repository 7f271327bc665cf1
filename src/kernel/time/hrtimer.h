/* hrtimer: a high-resolution timer's expiry range and the interrupt that
 * expires it (kernel/time/hrtimer.c), FACTS-3.md §3.
 *
 * An hrtimer has a soft expiry (the earliest it may run) and a hard one
 * (soft + slack: hrtimer_set_expires_range_ns). The clock-event device is
 * programmed for the earliest hard expiry of the CPU's timers, and every
 * local timer interrupt runs the queue (__hrtimer_run_queues), expiring each
 * timer whose soft expiry has passed: timers within their slack of another
 * timer's interrupt ride on it and cost no interrupt of their own. A
 * user-space sleep (nanosleep, poll, epoll_wait, select) gets the task's
 * timer_slack_ns, 50 us unless set (init/init_task.c; prctl
 * PR_SET_TIMERSLACK), and none for RT and deadline tasks (kernel/time/
 * hrtimer.c hrtimer_nanosleep); kernel hrtimers usually have none. */
#ifndef PMLAB_KERNEL_TIME_HRTIMER_H
#define PMLAB_KERNEL_TIME_HRTIMER_H

#include <stdbool.h>
#include <stdint.h>

#define HRTIMER_DEFAULT_SLACK_NS 50000  /* init_task.timer_slack_ns */

struct hrtimer_range {
    int64_t soft_ns;   /* _softexpires: the earliest it may run */
    int64_t hard_ns;   /* node.expires: when the device must fire for it */
};

/* hrtimer_set_expires_range_ns: soft at expires_ns, hard slack_ns later. */
struct hrtimer_range hrtimer_range(int64_t expires_ns, int64_t slack_ns);
/* The slack of a user-space sleep (hrtimer_nanosleep): the task's
 * timer_slack_ns (the default here: pmlab has no PR_SET_TIMERSLACK), none
 * for an RT task. */
static inline int64_t hrtimer_sleep_slack_ns(bool rt_task)
{
    return rt_task ? 0 : HRTIMER_DEFAULT_SLACK_NS;
}
/* Whether a local timer interrupt at now_ns expires t (its soft expiry has passed). */
bool hrtimer_expired_by(const struct hrtimer_range *t, int64_t now_ns);

#endif
