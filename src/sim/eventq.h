/* eventq: the discrete-event queue.
 *
 * Events are intrusive, like the kernel's hrtimers: the caller embeds a
 * struct sim_event in its own object (a CPU, a request, a timer) and the queue
 * keeps a pointer to it plus its position, so the event itself is the stable
 * handle. Events due within about a millisecond sit in a heap; later ones
 * (ticks, housekeeping and watchdog timers, HWP evaluations) on a hashed timer
 * wheel, as the kernel keeps its timer_list timers, where schedule and cancel
 * are O(1). Heap operations are O(log n) in the near events only. Cancel
 * removes the entry at once (no lazy deletion, so memory stays bounded by the
 * pending count).
 *
 * Order: by time, then by insertion sequence (every schedule or reschedule takes
 * the next sequence number), so simultaneous events fire in the order they were
 * scheduled and a run is deterministic. An event queued with
 * sim_event_schedule_last fires after every ordinary event of its time (and
 * such events by their rank): for a sampler whose result must not depend on
 * when it was armed relative to the events of the same instant. */
#ifndef PMLAB_SIM_EVENTQ_H
#define PMLAB_SIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_event;
/* Handler called by the owner's loop after sim_eventq_pop(); arg is whatever
 * the loop passes (usually the struct world). */
typedef void (*sim_event_fn)(struct sim_event *ev, void *arg);

#define SIM_EVENT_IDLE SIZE_MAX /* slot value of an event that is not queued */

struct sim_event {
    sim_time_t when_ns;  /* firing time, valid while pending */
    uint64_t seq;        /* tie-breaker: insertion order */
    size_t slot;         /* index in the heap, SIM_EVENT_IDLE if not pending */
    sim_event_fn fn;     /* handler; the queue never calls it itself */
};

struct sim_eventq_entry; /* private to eventq.c */

/* One bucket of the wheel: its events in no particular order. */
struct sim_eventq_bucket {
    struct sim_event **ev;
    size_t count, cap;
};

struct sim_eventq {
    struct sim_eventq_entry *heap; /* near events, implementation-defined layout */
    size_t heap_len;               /* events in the heap */
    size_t cap;
    size_t count;                  /* pending events, heap and wheel */
    uint64_t next_seq;
    sim_time_t now_ns;             /* time of the last popped event */
    bool root_hole;                /* private: the last pop left slot 0 empty for
                                      the next schedule to fill (see eventq.c) */
    /* Private: events at or after horizon_ns wait on a hashed timer wheel
     * (buckets of ~1 ms by firing time) and enter the heap when the horizon
     * reaches their bucket; see eventq.c. */
    sim_time_t horizon_ns;
    struct sim_eventq_bucket *wheel; /* [EQ_WHEEL_BUCKETS], NULL until used */
    size_t wheel_count;
};

/* Initialise an event so it can be scheduled: not pending, handler fn. */
void sim_event_init(struct sim_event *ev, sim_event_fn fn);
static inline bool sim_event_pending(const struct sim_event *ev)
{
    return ev->slot != SIM_EVENT_IDLE;
}

void sim_eventq_init(struct sim_eventq *q);
/* Free the queue's storage. Pending events are simply forgotten (they belong to
 * the caller). */
void sim_eventq_destroy(struct sim_eventq *q);

/* Queue ev (which must not be pending) to fire at when_ns >= q->now_ns. */
void sim_event_schedule(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns);
/* Move ev to when_ns, whether or not it is pending; it takes a new sequence.
 * A pending near event that stays near moves in place (one sift). */
void sim_event_reschedule(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns);
/* Queue ev (which must not be pending) to fire at when_ns >= q->now_ns after
 * every event queued with sim_event_schedule for when_ns, whenever those were
 * queued, and among events queued with this call for the same time in
 * increasing rank (ranks of pending events at one time must differ). */
void sim_event_schedule_last(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns,
                             uint32_t rank);
#define SIM_EVENT_SEQ_LAST ((uint64_t)1 << 63) /* seq of sim_event_schedule_last events */
/* Remove ev if it is pending; a no-op otherwise. */
void sim_event_cancel(struct sim_eventq *q, struct sim_event *ev);

/* The earliest pending event, or NULL; does not remove it (it may move
 * events from the wheel to the heap, which changes no order). */
struct sim_event *sim_eventq_peek(struct sim_eventq *q);
/* Remove and return the earliest pending event (NULL if none) and advance
 * q->now_ns to its time. The event is no longer pending when returned, so its
 * handler may schedule it again. */
struct sim_event *sim_eventq_pop(struct sim_eventq *q);

#endif
