/* gov: what the cpuidle governors share (drivers/cpuidle/governors/gov.h),
 * plus each governor's per-CPU data.
 *
 * The per-CPU structs live here, not in the .c files, for one reason: the
 * replay tests (tests/test_governors.c) check the statistics a governor keeps
 * (menu's correction factors and interval history, teo's hits and intercepts,
 * ladder's promotion counts) after every scripted idle period. Nothing else
 * should read them: the core only knows data_size and hands the block to the
 * governor through dev->governor_data. */
#ifndef PMLAB_KERNEL_CPUIDLE_GOVERNORS_GOV_H
#define PMLAB_KERNEL_CPUIDLE_GOVERNORS_GOV_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/cpuidle/cpuidle.h"

#ifndef NSEC_PER_USEC
#define NSEC_PER_USEC 1000LL
#endif

/* Idle periods shorter than this count as "short": menu trusts its own
 * history instead of asking for the next timer when it predicts no more than
 * this, and teo does the same when its candidate state is shallower than this
 * (FACTS.md §3 [C6]). */
#define RESIDENCY_THRESHOLD_NS (15 * NSEC_PER_USEC)

/* ---- menu (menu.c) ---- */

#define MENU_BUCKETS 6
#define MENU_INTERVALS 8

struct menu_device {
    bool needs_update;          /* an idle period ended since the last select */
    bool tick_wakeup;           /* ... and the tick ended it */
    bool poll_wakeup;           /* ... and POLL ended it at its time limit */
    int64_t next_timer_ns;      /* sleep length seen by the last select; INT64_MAX
                                 * when select did not read it */
    int bucket;                 /* correction-factor bucket used by the last select */
    unsigned correction_factor[MENU_BUCKETS]; /* 8192 = 1.0 */
    unsigned intervals_us[MENU_INTERVALS];    /* measured idle periods, a ring */
    int interval_ptr;           /* next slot of intervals_us */
    int64_t predicted_ns;       /* the last prediction, before the walk adjusts it
                                 * (kept for tests and traces; menu does not reuse it) */
    /* dev->kernel's version rules, resolved once by enable (the kernel of a
     * run does not change), since select asks them on every call: */
    bool latency_first;         /* 779b1a1cb13a: latency checked first, no cap */
    bool poll_capped;           /* v6.19: POLL yields only to states < 15 µs */
};

/* ---- teo (teo.c) ---- */

struct teo_bin {
    unsigned intercepts;        /* woke (non-timer) in this bin, earlier than the timer bin */
    unsigned hits;              /* woke in the same bin as the timer */
};

struct teo_cpu {
    int64_t sleep_length_ns;    /* timer distance read by the last select; INT64_MAX if unread */
    struct teo_bin state_bins[CPUIDLE_STATE_MAX];
    unsigned total;             /* decayed count of all wakeups */
    unsigned tick_intercepts;   /* wakeups that count for the tick rule (teo.c) */
    unsigned short_idles;       /* wakeups after less than RESIDENCY_THRESHOLD_NS */
    bool artificial_wakeup;     /* a safety net (POLL limit, tick) ended the last period */
    bool needs_update;          /* an idle period ended since the last select */
};

/* ---- ladder (ladder.c) ---- */

struct ladder_device_state {
    struct {
        unsigned promotion_count;   /* consecutive long periods needed to go deeper */
        unsigned demotion_count;    /* short periods needed to go shallower */
        int64_t promotion_time_ns;  /* "long" means measured > this */
        int64_t demotion_time_ns;   /* "short" means measured < this */
    } threshold;
    struct {
        unsigned promotion_count;
        unsigned demotion_count;
    } stats;
};

struct ladder_device {
    struct ladder_device_state states[CPUIDLE_STATE_MAX];
};

#endif
