/* hrtimer: expiry ranges, see hrtimer.h (kernel/time/hrtimer.c
 * hrtimer_set_expires_range_ns and __hrtimer_run_queues' soft-expiry test,
 * since v2.6.28's range timers, 654c8e0b1c62). */
#include "kernel/time/hrtimer.h"

struct hrtimer_range hrtimer_range(int64_t expires_ns, int64_t slack_ns)
{
    return (struct hrtimer_range){
        .soft_ns = expires_ns,
        .hard_ns = expires_ns + (slack_ns > 0 ? slack_ns : 0),
    };
}

bool hrtimer_expired_by(const struct hrtimer_range *t, int64_t now_ns)
{
    return t->soft_ns <= now_ns;
}
