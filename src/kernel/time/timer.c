/* timer: the timer wheel's bucket expiry, see timer.h. Written from
 * kernel/time/timer.c's header comment and calc_wheel_index (v4.8's wheel
 * rework, 500462a9de65; the +1 form of calc_index since v5.12). */
#include "kernel/time/timer.h"

#define LVL_CLK_SHIFT 3   /* each level's granularity is 8x the one below */
#define LVL_BITS 6        /* 64 buckets a level */
#define LVL_SIZE (1u << LVL_BITS)

int timer_wheel_depth(int hz)
{
    return hz > 100 ? 9 : 8;
}

static unsigned lvl_shift(int lvl)
{
    return (unsigned)lvl * LVL_CLK_SHIFT;
}

/* LVL_START(n): the first distance, in jiffies, that no longer fits below level n. */
static uint64_t lvl_start(int n)
{
    return (uint64_t)(LVL_SIZE - 1) << ((unsigned)(n - 1) * LVL_CLK_SHIFT);
}

/* calc_index: the start of the next bucket of level lvl after expires. */
static uint64_t bucket_after(uint64_t expires, int lvl)
{
    return ((expires >> lvl_shift(lvl)) + 1) << lvl_shift(lvl);
}

uint64_t timer_wheel_bucket_expiry(uint64_t clk, uint64_t expires, int hz)
{
    if (expires < clk)
        return clk;
    int depth = timer_wheel_depth(hz);
    uint64_t delta = expires - clk;
    for (int lvl = 0; lvl < depth - 1; lvl++)
        if (delta < lvl_start(lvl + 1))
            return bucket_after(expires, lvl);
    /* WHEEL_TIMEOUT_CUTOFF: LVL_START(depth); beyond it, capped at
     * WHEEL_TIMEOUT_MAX = CUTOFF - LVL_GRAN(depth - 1). */
    uint64_t cutoff = lvl_start(depth);
    if (delta >= cutoff)
        expires = clk + cutoff - ((uint64_t)1 << lvl_shift(depth - 1));
    return bucket_after(expires, depth - 1);
}

int64_t timer_wheel_expiry_ns(int64_t now_ns, int64_t timeout_ns, int64_t tick_period_ns, int hz)
{
    if (now_ns < 0 || tick_period_ns <= 0)
        return now_ns + (timeout_ns > 0 ? timeout_ns : 0);
    uint64_t clk = (uint64_t)(now_ns / tick_period_ns);
    uint64_t timeout_j = timeout_ns > 0
                             ? (uint64_t)((timeout_ns + tick_period_ns - 1) / tick_period_ns)
                             : 0;
    uint64_t bucket = timer_wheel_bucket_expiry(clk, clk + timeout_j, hz);
    return (int64_t)bucket * tick_period_ns;
}
