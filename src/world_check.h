/* world_check: the invariant-checking build (`make check-invariants`,
 * -DPMLAB_INVARIANTS).
 *
 * Why: the model's numbers are sums of time and energy split across
 * thread, core, package and idle-state accumulators updated at thousands of
 * places; a slip in one (a mode change that forgets to account, a package
 * state left stale) makes every residency or watt figure quietly wrong
 * rather than failing. In this build the event loop checks after every
 * event, for the whole machine:
 *  - time: for every CPU, busy + poll + idle (every C-state) + waking time,
 *    plus the part of the current mode not yet accounted, equals the time
 *    since the measurement window began;
 *  - energy: no package's energy counter ever decreases, no power is
 *    negative;
 *  - events: simulated time never goes backwards and no event is scheduled
 *    in the past (sim_event_schedule checks that part);
 *  - C-states: a core is in the shallowest state of its threads (active if
 *    one is awake) and counts its awake, running and polling threads
 *    right, a package in the deepest package state all its cores allow;
 *  - idle counters: each CPU's cpuidle usage counters grew by exactly the
 *    idle entries the idle loop counted and has closed (an entry open at the
 *    window's start counts once it closes), and no state's above or below
 *    count exceeds its usage.
 * A violation prints what, where and when, and aborts. Other builds compile
 * none of this (world_check_event is not called). */
#ifndef PMLAB_WORLD_CHECK_H
#define PMLAB_WORLD_CHECK_H

struct world;

#ifdef PMLAB_INVARIANTS
/* Set up w->check (world_init). */
void world_check_init(struct world *w);
void world_check_destroy(struct world *w);
/* The measurement window starts now (world_measure_reset, after the reset). */
void world_check_measure_reset(struct world *w);
/* Check every invariant after the event just handled; aborts on a violation. */
void world_check_event(struct world *w);
#else
static inline void world_check_init(struct world *w) { (void)w; }
static inline void world_check_destroy(struct world *w) { (void)w; }
static inline void world_check_measure_reset(struct world *w) { (void)w; }
static inline void world_check_event(struct world *w) { (void)w; }
#endif

#endif
