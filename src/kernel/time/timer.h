/* timer: the timer wheel's rounding of a timer_list expiry
 * (kernel/time/timer.c: calc_wheel_index, calc_index), FACTS-3.md §3.
 *
 * The wheel keeps LVL_DEPTH levels of 64 buckets; level n's buckets are
 * 8^n jiffies wide (LVL_CLK_SHIFT 3). A timer goes to the first level whose
 * range holds its distance from the base clock (delta < LVL_START(n + 1) =
 * 63 << 3n jiffies) and its expiry is moved to the start of the next bucket
 * of that level: strictly after the requested jiffy, rounded up to the
 * level's granularity (a timer never fires early; one 130 jiffies away is
 * rounded to a multiple of 8). The expiry the idle code sees
 * (get_next_timer_interrupt) and the one at which the timer runs are that
 * rounded bucket expiry. Timers beyond the last level are capped at
 * WHEEL_TIMEOUT_MAX. Deferrable timers (TIMER_DEFERRABLE) use the same
 * rounding in their own base (BASE_DEF); that base is left out of the next
 * timer an idle CPU programs, and its timers run from the timer softirq of
 * the next tick that happens anyway. */
#ifndef PMLAB_KERNEL_TIME_TIMER_H
#define PMLAB_KERNEL_TIME_TIMER_H

#include <stdint.h>

/* LVL_DEPTH: 9 levels for HZ > 100, 8 for HZ = 100. */
int timer_wheel_depth(int hz);
/* The bucket expiry, in jiffies, of a timer armed for jiffy expires when
 * the base clock is clk (clk <= expires; an expiry already past goes to the
 * current bucket: clk). */
uint64_t timer_wheel_bucket_expiry(uint64_t clk, uint64_t expires, int hz);
/* The time a timer armed at now_ns with a timeout of timeout_ns fires: the
 * caller's jiffies (timeout rounded up to whole jiffies, as
 * msecs_to_jiffies does, from the current jiffy), then the wheel's rounding.
 * tick_period_ns is one jiffy. */
int64_t timer_wheel_expiry_ns(int64_t now_ns, int64_t timeout_ns, int64_t tick_period_ns, int hz);

#endif
