/* pelt: per-entity load tracking in the kernel's fixed-point arithmetic
 * (kernel/sched/pelt.c and the table of kernel/sched/sched-pelt.h; the
 * engine since v4.12's three-segment rework, 05296e7535d6, unchanged in the
 * versions pmlab covers).
 *
 * Why the kernel's arithmetic and not exp2: time counts in 1024 ns units
 * (the kernel shifts ns right by 10) and whole 1024-unit periods, and a
 * signal decays by y per period with y^32 = 1/2, through a 32-entry table of
 * y^n x 2^32 and a right shift per 32 periods. An average only changes when
 * a period boundary passes, so reading a signal that was updated in the
 * current period costs nothing, and the values are those the kernel would
 * hold: util_avg = util_sum / divider with divider = LOAD_AVG_MAX - 1024 +
 * the part of the current period already summed.
 *
 * Owners call pelt_update_load_avg with the state their entity held since its last
 * update (the sums are lazy: updated when the state changes), and
 * pelt_avg_at to read the averages at a later time without changing them. */
#ifndef PMLAB_KERNEL_SCHED_PELT_H
#define PMLAB_KERNEL_SCHED_PELT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/eventq.h"

#define LOAD_AVG_PERIOD 32      /* periods per halving: y^32 = 1/2 */
#define LOAD_AVG_MAX 47742      /* 1024 x sum of y^n, n >= 0: the most a sum holds */
#define PELT_MIN_DIVIDER (LOAD_AVG_MAX - 1024)
#define PELT_PERIOD_UNITS 1024  /* 1024 ns units per period (1.048576 ms) */
#define PELT_UNIT_SHIFT 10      /* ns >> 10: the sums' time unit, 1024 ns */

/* struct sched_avg: one entity's (a task's or a runqueue's) signals. */
struct sched_avg {
    sim_time_t last_update_ns;  /* last_update_time, on the 1024 ns grid */
    uint64_t load_sum;          /* sum of load x time, decayed */
    uint32_t util_sum;          /* sum of 1024 x running time, decayed */
    uint32_t period_contrib;    /* 1024 ns units of the current period summed */
    unsigned long load_avg;     /* weight x load_sum / divider */
    unsigned long util_avg;     /* util_sum / divider, 0..1024 */
};

/* val x y^periods (decay_load); 0 past 63 halvings. */
uint64_t pelt_decay_load(uint64_t val, uint64_t periods);
/* The contribution of d1 (the end of the first period), periods - 1 full
 * periods and d3 (the start of the current one), in 1024 ns units each
 * decayed to now (__accumulate_pelt_segments). */
uint32_t pelt_accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3);
/* get_pelt_divider: what a sum is divided by to give its average. */
static inline uint32_t pelt_divider(const struct sched_avg *sa)
{
    return PELT_MIN_DIVIDER + sa->period_contrib;
}
/* Fold [last_update, now) with load (0: not runnable; a runqueue passes its
 * weight) and running into sa, then, if a period boundary passed, its
 * averages (load_avg from weight x load_sum). Returns whether they changed
 * (___update_load_sum then ___update_load_avg). */
bool pelt_update_load_avg_slow(struct sched_avg *sa, sim_time_t now_ns, unsigned long load,
                               bool running, unsigned long weight);
/* Inline for the common call that finds less than one 1024 ns unit since
 * the last update (a runqueue synced twice in one event): the kernel's
 * "delta >>= 10; if (!delta) return 0", without the call. */
static inline bool pelt_update_load_avg(struct sched_avg *sa, sim_time_t now_ns, unsigned long load,
                                        bool running, unsigned long weight)
{
    sim_time_t delta_ns = now_ns - sa->last_update_ns;
    if (delta_ns >= 0 && delta_ns < ((sim_time_t)1 << PELT_UNIT_SHIFT))
        return false;
    return pelt_update_load_avg_slow(sa, now_ns, load, running, weight);
}
/* Whether a period boundary passed since sa's last update: only then can
 * pelt_update_load_avg change its averages. */
static inline bool pelt_period_ended(const struct sched_avg *sa, sim_time_t now_ns)
{
    sim_time_t delta_ns = now_ns - sa->last_update_ns;
    return delta_ns < 0 ||
           ((uint64_t)delta_ns >> PELT_UNIT_SHIFT) + sa->period_contrib >= PELT_PERIOD_UNITS;
}
/* The averages (load_avg, util_avg) pelt_update_load_avg would leave in sa at
 * now_ns, sa itself unchanged: what a reader sees. The sums and the grid of
 * the copy are up to date only if a period boundary passed. */
struct sched_avg pelt_avg_at(const struct sched_avg *sa, sim_time_t now_ns, unsigned long load,
                             bool running, unsigned long weight);
/* Set the sums from the averages, on the grid of the runqueue avg rq it
 * joins (attach_entity_load_avg): a new task's post-init signals. */
void pelt_attach(struct sched_avg *sa, const struct sched_avg *rq, unsigned long weight);

/* rq->clock_pelt (kernel/sched/pelt.h, since v5.1, 23127296889f): the time
 * a runqueue's signals and those of its entities run on. While a task runs
 * it advances by the running time x capacity/1024 x f/fmax
 * (update_rq_clock_pelt: two cap_scale steps, integer as in the kernel), so
 * that the same work adds the same util at any speed; while the CPU idles it
 * is set to the real clock, so the lag is decayed as idle time. A runqueue
 * whose util_sum is full when it goes idle had no idle time: the lag is kept
 * as lost_idle_time and subtracted from then on (update_idle_rq_clock_pelt).
 * The signals read rq_clock_pelt = clock_pelt - lost_idle_time. Both load
 * and util of an entity and of its runqueue accrue on this clock (fair.c's
 * update_load_avg passes cfs_rq_clock_pelt to __update_load_avg_se and
 * update_cfs_rq_load_avg), so both are invariant. */
struct pelt_clock {
    sim_time_t clock_pelt_ns;   /* rq->clock_pelt */
    sim_time_t lost_idle_ns;    /* rq->lost_idle_time */
    sim_time_t last_update_ns;  /* real time (clock_task) of the last advance */
};

/* The clock after dt_ns of running at scale / 1024 (cap_scale). */
static inline sim_time_t pelt_clock_advance(sim_time_t clock_pelt_ns, sim_time_t dt_ns,
                                            unsigned scale)
{
    return clock_pelt_ns + (sim_time_t)(((uint64_t)dt_ns * scale) >> 10);
}
/* rq_clock_pelt: what the signals read. */
static inline sim_time_t rq_clock_pelt(const struct pelt_clock *c)
{
    return c->clock_pelt_ns - c->lost_idle_ns;
}
/* A clock that reads now_ns (a CPU idle from the start). */
static inline struct pelt_clock pelt_clock_new(sim_time_t now_ns)
{
    return (struct pelt_clock){ .clock_pelt_ns = now_ns, .last_update_ns = now_ns };
}
/* update_rq_clock_pelt: advance c to now_ns, the CPU having run a task
 * (running) at cap_scale x freq_scale / 1024^2 of its fastest since the
 * last advance, else idled. Returns the real time that passed (0 if none). */
sim_time_t pelt_clock_update(struct pelt_clock *c, sim_time_t now_ns, bool running,
                             unsigned cap_scale, unsigned freq_scale);
/* rq_clock_pelt as pelt_clock_update would leave it at now_ns, c unchanged. */
sim_time_t pelt_clock_at(const struct pelt_clock *c, sim_time_t now_ns, bool running,
                         unsigned cap_scale, unsigned freq_scale);
/* The earliest real time t >= now_ns at which pelt_clock_at(c, t, running,
 * cap_scale, freq_scale) reaches target_ns (the inverse of the clock's two
 * truncating scale steps, exact), INT64_MAX if it never does (a zero
 * scale). Valid while c and the scales stay as they are: a reader that
 * caches it must recompute it when either changes. */
sim_time_t pelt_clock_reach_ns(const struct pelt_clock *c, sim_time_t now_ns, bool running,
                               unsigned cap_scale, unsigned freq_scale, sim_time_t target_ns);
/* update_idle_rq_clock_pelt: the CPU goes idle at now_ns with its runqueue's
 * util_sum (c already advanced to now_ns). */
void pelt_clock_enter_idle(struct pelt_clock *c, sim_time_t now_ns, uint32_t util_sum);

#endif
