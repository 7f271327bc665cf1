/* eventq: the discrete-event queue as an implicit 4-ary min-heap of the near
 * events plus a hashed timer wheel of the later ones, see eventq.h.
 *
 * The wheel (the kernel's timer_list wheel has the same purpose): a heap
 * holds every pending event due before horizon_ns, and the wheel every event
 * at or after it, hashed by firing time into EQ_WHEEL_BUCKETS buckets of
 * EQ_BUCKET_NS. When the heap runs empty the horizon moves on a bucket at a
 * time, moving that bucket's events of the current lap into the heap. So the
 * heap's earliest event is the queue's earliest and the (time, sequence) order
 * is exactly a single heap's; ticks, housekeeping and watchdog timers that are
 * re-armed or cancelled before they come near cost O(1) and keep the heap
 * short.
 *
 * The heap:
 *
 * Why this shape: each choice below was measured with bench/hold.c (million
 * hold ops/s, Exp draw included, N = 64 / 1024 / 16384 / 262144 pending, on
 * a 2-core EPYC VM; the large-N figure varies by +-15 % from run to run):
 *   binary heap, 24-byte entries (time, seq, ptr)    18.6 / 14.6 / 10.5 / 5.3
 *   4-ary, 24-byte entries                           20.2 / 14.3 / 10.3 / 5.1
 *   4-ary, 16-byte entries, cmov tournament          25.4 / 19.7 / 14.0 / 4.8
 *   ... + root hole                                  30.3 / 22.2 / 14.9 / 4.4
 *   ... + prefetch of the next level (this file)     30   / 22   / 16   / 9.5
 *   8-ary, same tricks                               26   / 14   /  9   / 6.4
 *
 * - 4-ary, not binary: half the levels, and the four children of a node are
 *   adjacent, so a level costs one or two cache lines instead of one per child.
 * - Entries are 16 bytes inline in the array, (when_ns, event pointer): the
 *   sift loops compare times without touching the events. The tie-breaking
 *   sequence number is read from the event only when two times are equal,
 *   which is rare, so it costs nothing on the common path; keeping it inline
 *   (24-byte entries) measured no faster for small heaps and 2x slower at
 *   262144 (more cache lines per level).
 * - The smallest of four children is found as a small tournament of
 *   conditional moves instead of branches: which child wins is random, so
 *   branches would mispredict at almost every level.
 * - While walking down, the four possible next child groups (64 contiguous
 *   bytes each) are prefetched, overlapping the cache misses of large heaps
 *   with the comparisons of the current level.
 * - Pop leaves the root empty ("root hole") instead of refilling it at once. A
 *   handler almost always schedules a new event right after its pop, and that
 *   event then drops into the hole with one sift-down, instead of a sift-down
 *   for the pop plus a sift-up for the schedule. Any other operation first
 *   closes the hole with the last entry, which is exactly what an eager pop
 *   would have done.
 *
 * Every move of an entry rewrites its event's slot, so the event stays a
 * stable handle for cancel and reschedule in O(log n). */
#include "sim/eventq.h"

#include <assert.h>

#include <stdlib.h>

#include "util/xalloc.h"

#if defined(__GNUC__)
#define EQ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EQ_PREFETCH(addr) __builtin_prefetch((const void *)(addr))
#else
#define EQ_UNLIKELY(x) (x)
#define EQ_PREFETCH(addr) ((void)(addr))
#endif

#define EQ_ARITY 4
#define EQ_INITIAL_CAP 64
#define EQ_CACHE_LINE 64
#define EQ_BUCKET_SHIFT 20                      /* a bucket spans 2^20 ns, ~1.05 ms */
#define EQ_BUCKET_NS ((sim_time_t)1 << EQ_BUCKET_SHIFT)
#define EQ_WHEEL_BUCKETS 256                    /* a lap: ~268 ms */
#define EQ_BUCKET_INITIAL_CAP 16
#define EQ_SLOT_WHEEL ((SIZE_MAX >> 1) + 1)     /* slot flag: on the wheel */

struct sim_eventq_entry {
    sim_time_t when_ns; /* copy of ev->when_ns, so sifting stays in the array */
    struct sim_event *ev;
};

/* Order by (time, insertion sequence). */
static inline int entry_before(const struct sim_eventq_entry *a,
                               const struct sim_eventq_entry *b)
{
    if (EQ_UNLIKELY(a->when_ns == b->when_ns))
        return a->ev->seq < b->ev->seq;
    return a->when_ns < b->when_ns;
}

static inline void entry_place(struct sim_eventq_entry *heap, size_t i,
                               struct sim_eventq_entry e)
{
    heap[i] = e;
    e.ev->slot = i;
}

static inline size_t parent_of(size_t i)
{
    return (i - 1) / EQ_ARITY;
}

static inline size_t first_child_of(size_t i)
{
    return EQ_ARITY * i + 1;
}

/* Index of the earlier of entries a and b (compiles to a conditional move). */
static inline size_t earlier(const struct sim_eventq_entry *heap, size_t a, size_t b)
{
    return entry_before(&heap[b], &heap[a]) ? b : a;
}

/* The earliest child among first..min(first + 4, len) - 1 (first < len).
 *
 * On a full group it also hints the children of all four candidates: 16
 * consecutive entries, four cache lines, one of which the next level will
 * read. Near the bottom they lie past the array's end, which is harmless for
 * a prefetch (it never faults); the addresses are formed as integers so that
 * no out-of-bounds pointer is created. (They are written here on purpose:
 * moved into a static helper, GCC 12 -O2 dropped them from this file and the
 * 262144-event hold ran 30 % slower; after any change here, check that the
 * assembly still has four prefetcht0.) */
static inline size_t min_child(const struct sim_eventq_entry *heap, size_t first, size_t len)
{
    if (first + EQ_ARITY <= len) {
        uintptr_t next = (uintptr_t)heap + first_child_of(first) * sizeof *heap;
        EQ_PREFETCH(next);
        EQ_PREFETCH(next + EQ_CACHE_LINE);
        EQ_PREFETCH(next + 2 * EQ_CACHE_LINE);
        EQ_PREFETCH(next + 3 * EQ_CACHE_LINE);
        size_t a = earlier(heap, first, first + 1);
        size_t b = earlier(heap, first + 2, first + 3);
        return earlier(heap, a, b);
    }
    size_t best = first;
    for (size_t c = first + 1; c < len; c++)
        best = earlier(heap, best, c);
    return best;
}

/* Put e into the empty slot i, moving it up past later parents. */
static void sift_up(struct sim_eventq_entry *heap, size_t i, struct sim_eventq_entry e)
{
    while (i > 0) {
        size_t p = parent_of(i);
        if (!entry_before(&e, &heap[p]))
            break;
        entry_place(heap, i, heap[p]);
        i = p;
    }
    entry_place(heap, i, e);
}

/* Put e into the empty slot i of a heap of len entries (slot i included),
 * moving it down past earlier children. */
static void sift_down(struct sim_eventq_entry *heap, size_t len, size_t i,
                      struct sim_eventq_entry e)
{
    for (;;) {
        size_t first = first_child_of(i);
        if (first >= len)
            break;
        size_t c = min_child(heap, first, len);
        if (!entry_before(&heap[c], &e))
            break;
        entry_place(heap, i, heap[c]);
        i = c;
    }
    entry_place(heap, i, e);
}

/* Fill an empty root with e, which came from the bottom of the heap: walk the
 * hole down to a leaf along the earliest children without comparing against
 * e, then let e climb back, which it rarely does far (Floyd's trick: saves a
 * comparison per level). */
static void fill_root(struct sim_eventq_entry *heap, size_t len, struct sim_eventq_entry e)
{
    size_t i = 0;
    for (;;) {
        size_t first = first_child_of(i);
        if (first >= len)
            break;
        size_t c = min_child(heap, first, len);
        entry_place(heap, i, heap[c]);
        i = c;
    }
    sift_up(heap, i, e);
}

void sim_event_init(struct sim_event *ev, sim_event_fn fn)
{
    ev->when_ns = 0;
    ev->seq = 0;
    ev->slot = SIM_EVENT_IDLE;
    ev->fn = fn;
}

void sim_eventq_init(struct sim_eventq *q)
{
    q->heap = NULL;
    q->heap_len = 0;
    q->cap = 0;
    q->count = 0;
    q->next_seq = 0;
    q->now_ns = 0;
    q->root_hole = false;
    q->horizon_ns = EQ_BUCKET_NS;
    q->wheel = NULL;
    q->wheel_count = 0;
}

void sim_eventq_destroy(struct sim_eventq *q)
{
    free(q->heap);
    if (q->wheel)
        for (size_t b = 0; b < EQ_WHEEL_BUCKETS; b++)
            free(q->wheel[b].ev);
    free(q->wheel);
    sim_eventq_init(q);
}

/* ---- the near heap ---- */

static void grow(struct sim_eventq *q)
{
    size_t cap = q->cap ? 2 * q->cap : EQ_INITIAL_CAP;
    q->heap = xreallocarray(q->heap, cap, sizeof *q->heap);
    q->cap = cap;
}

/* With a root hole the array holds heap_len + 1 slots, slot 0 empty: move the
 * last entry into it, as an eager pop would have. */
static void close_hole(struct sim_eventq *q)
{
    if (!q->root_hole)
        return;
    q->root_hole = false;
    fill_root(q->heap, q->heap_len, q->heap[q->heap_len]);
}

static void heap_insert(struct sim_eventq *q, struct sim_event *ev)
{
    struct sim_eventq_entry e = { ev->when_ns, ev };
    if (q->root_hole) {
        q->root_hole = false;
        q->heap_len++;
        sift_down(q->heap, q->heap_len, 0, e);
        return;
    }
    if (q->heap_len == q->cap)
        grow(q);
    sift_up(q->heap, q->heap_len++, e);
}

/* Take the entry at slot i out (no root hole open) and refill the slot with
 * the last entry, moved up or down as its key requires. */
static void heap_remove_at(struct sim_eventq *q, size_t i)
{
    struct sim_eventq_entry *heap = q->heap;
    struct sim_eventq_entry last = heap[--q->heap_len];
    if (i == q->heap_len)
        return;
    if (i > 0 && entry_before(&last, &heap[parent_of(i)]))
        sift_up(heap, i, last);
    else
        sift_down(heap, q->heap_len, i, last);
}

/* ---- the wheel ---- */

static struct sim_eventq_bucket *bucket_of(struct sim_eventq *q, sim_time_t when_ns)
{
    return &q->wheel[((uint64_t)when_ns >> EQ_BUCKET_SHIFT) & (EQ_WHEEL_BUCKETS - 1)];
}

static void wheel_insert(struct sim_eventq *q, struct sim_event *ev)
{
    if (EQ_UNLIKELY(!q->wheel))
        q->wheel = xcalloc(EQ_WHEEL_BUCKETS, sizeof *q->wheel);
    struct sim_eventq_bucket *b = bucket_of(q, ev->when_ns);
    if (b->count == b->cap) {
        b->cap = b->cap ? 2 * b->cap : EQ_BUCKET_INITIAL_CAP;
        b->ev = xreallocarray(b->ev, b->cap, sizeof *b->ev);
    }
    ev->slot = EQ_SLOT_WHEEL | b->count;
    b->ev[b->count++] = ev;
    q->wheel_count++;
}

/* Remove the entry at position pos of bucket b: the bucket's last entry
 * takes its place (order within a bucket does not matter). */
static void bucket_remove_at(struct sim_eventq *q, struct sim_eventq_bucket *b, size_t pos)
{
    struct sim_event *last = b->ev[--b->count];
    b->ev[pos] = last;
    last->slot = EQ_SLOT_WHEEL | pos;
    q->wheel_count--;
}

/* A bucket the horizon has drained gives back what it holds beyond twice its
 * events: each bucket fills when its lap's events cluster in it (a hold
 * model at N = 262144 with 1 ms mean gaps put ~100 k in every bucket in
 * turn), and a capacity kept from then on made the wheel hold its largest
 * lap in every bucket (169 MB peak RSS in bench/hold, 256 buckets). */
static void bucket_shrink(struct sim_eventq_bucket *b)
{
    if (b->cap <= EQ_BUCKET_INITIAL_CAP || b->count > b->cap / 4)
        return;
    size_t cap = 2 * b->count > EQ_BUCKET_INITIAL_CAP ? 2 * b->count : EQ_BUCKET_INITIAL_CAP;
    b->ev = xreallocarray(b->ev, cap, sizeof *b->ev);
    b->cap = cap;
}

/* Move the horizon one bucket on: the events of the bucket that fall before
 * the new horizon go to the heap; those of a later lap stay. Returns how many
 * moved. */
static size_t wheel_advance(struct sim_eventq *q)
{
    sim_time_t next = q->horizon_ns + EQ_BUCKET_NS;
    struct sim_eventq_bucket *b = bucket_of(q, q->horizon_ns);
    size_t moved = 0;
    for (size_t pos = 0; pos < b->count;) {
        struct sim_event *ev = b->ev[pos];
        if (ev->when_ns >= next) {
            pos++;
            continue;
        }
        bucket_remove_at(q, b, pos);
        heap_insert(q, ev);
        moved++;
    }
    bucket_shrink(b);
    q->horizon_ns = next;
    return moved;
}

/* The horizon's bucket holding the earliest event of the wheel (a scan, only
 * after a whole lap found nothing: every pending event is more than a lap
 * ahead). */
static sim_time_t wheel_earliest_bucket_ns(const struct sim_eventq *q)
{
    sim_time_t best = INT64_MAX;
    for (size_t i = 0; i < EQ_WHEEL_BUCKETS; i++)
        for (size_t k = 0; k < q->wheel[i].count; k++)
            if (q->wheel[i].ev[k]->when_ns < best)
                best = q->wheel[i].ev[k]->when_ns;
    return (sim_time_t)((uint64_t)best >> EQ_BUCKET_SHIFT << EQ_BUCKET_SHIFT);
}

/* With the heap empty, move the horizon on until the heap has an event (or
 * the wheel is empty too). */
static void refill_heap(struct sim_eventq *q)
{
    size_t empty_advances = 0;
    while (q->heap_len == 0 && q->wheel_count > 0) {
        if (wheel_advance(q) == 0 && ++empty_advances == EQ_WHEEL_BUCKETS) {
            q->horizon_ns = wheel_earliest_bucket_ns(q);
            empty_advances = 0;
        }
    }
}

/* ---- the interface ---- */

/* Queue ev at (when_ns, seq). */
static void eventq_insert(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns,
                          uint64_t seq)
{
    /* Never in the past (checked in the assertion and invariant builds). */
    assert(when_ns >= q->now_ns);
    ev->when_ns = when_ns;
    ev->seq = seq;
    q->count++;
    if (when_ns < q->horizon_ns)
        heap_insert(q, ev);
    else
        wheel_insert(q, ev);
}

void sim_event_schedule(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns)
{
    eventq_insert(q, ev, when_ns, q->next_seq++);
}

/* The sequence numbers of ordinary events stay below SIM_EVENT_SEQ_LAST (2^63
 * schedules are never reached), so a "last" key sorts after all of them at
 * the same time, and by rank among its own kind. */
void sim_event_schedule_last(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns,
                             uint32_t rank)
{
    eventq_insert(q, ev, when_ns, SIM_EVENT_SEQ_LAST | rank);
}

void sim_event_cancel(struct sim_eventq *q, struct sim_event *ev)
{
    if (!sim_event_pending(ev))
        return;
    q->count--;
    if (ev->slot & EQ_SLOT_WHEEL) {
        bucket_remove_at(q, bucket_of(q, ev->when_ns), ev->slot & ~EQ_SLOT_WHEEL);
        ev->slot = SIM_EVENT_IDLE;
        return;
    }
    close_hole(q); /* may move ev */
    size_t i = ev->slot;
    ev->slot = SIM_EVENT_IDLE;
    heap_remove_at(q, i);
}

/* A pending event in the heap that stays in the heap is moved where it is:
 * its key changes to (when_ns, a new sequence), and it sifts up if that key
 * is now earlier than its parent's, down otherwise. One sift instead of a
 * removal (a sift of the last entry) plus an insertion (another sift). The
 * pop order is the same either way, since keys are unique and totally
 * ordered. Any other move is a cancel plus a schedule (O(1) on the wheel). */
void sim_event_reschedule(struct sim_eventq *q, struct sim_event *ev, sim_time_t when_ns)
{
    if (!sim_event_pending(ev) || (ev->slot & EQ_SLOT_WHEEL) || when_ns >= q->horizon_ns) {
        sim_event_cancel(q, ev);
        sim_event_schedule(q, ev, when_ns);
        return;
    }
    assert(when_ns >= q->now_ns);
    close_hole(q);
    size_t i = ev->slot;
    ev->when_ns = when_ns;
    ev->seq = q->next_seq++;
    struct sim_eventq_entry e = { when_ns, ev };
    if (i > 0 && entry_before(&e, &q->heap[parent_of(i)]))
        sift_up(q->heap, i, e);
    else
        sift_down(q->heap, q->heap_len, i, e);
}

struct sim_event *sim_eventq_peek(struct sim_eventq *q)
{
    if (!q->heap_len)
        refill_heap(q);
    if (!q->heap_len)
        return NULL;
    if (!q->root_hole)
        return q->heap[0].ev;
    /* The earliest event is the earliest child of the empty root. */
    return q->heap[min_child(q->heap, 1, q->heap_len + 1)].ev;
}

struct sim_event *sim_eventq_pop(struct sim_eventq *q)
{
    close_hole(q);
    if (!q->heap_len)
        refill_heap(q);
    if (!q->heap_len)
        return NULL;
    struct sim_event *ev = q->heap[0].ev;
    ev->slot = SIM_EVENT_IDLE;
    q->now_ns = q->heap[0].when_ns;
    q->heap_len--;
    q->count--;
    q->root_hole = q->heap_len > 0;
    return ev;
}
