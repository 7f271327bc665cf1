/* test_eventq: the event queue against a reference model.
 *
 * Why a reference: a heap bug (a wrong slot after a move, a hole left open)
 * shows up as a wrong order only after particular operation sequences, so
 * thousands of random schedule/cancel/reschedule/peek/pop operations are
 * checked step by step against the obviously correct answer: a linear scan for
 * the smallest (when_ns, seq) among the events the model says are pending. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim/eventq.h"

/* The reference model's view of one event. */
struct ref_event {
    struct sim_event ev;
    int pending;
    sim_time_t when_ns;
    uint64_t seq;
};

struct ref_model {
    struct ref_event *evs;
    size_t n;
    size_t pending;
    uint64_t next_seq;
    uint64_t rand_state;
};

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t rand_below(struct ref_model *m, uint64_t n)
{
    return xorshift(&m->rand_state) % n;
}

static struct ref_event *ref_min(struct ref_model *m)
{
    struct ref_event *best = NULL;
    for (size_t i = 0; i < m->n; i++) {
        struct ref_event *r = &m->evs[i];
        if (!r->pending)
            continue;
        if (!best || r->when_ns < best->when_ns ||
            (r->when_ns == best->when_ns && r->seq < best->seq))
            best = r;
    }
    return best;
}

static void ref_schedule(struct ref_model *m, struct sim_eventq *q, struct ref_event *r,
                         sim_time_t when_ns, int reschedule)
{
    if (reschedule)
        sim_event_reschedule(q, &r->ev, when_ns);
    else
        sim_event_schedule(q, &r->ev, when_ns);
    if (!r->pending)
        m->pending++;
    r->pending = 1;
    r->when_ns = when_ns;
    r->seq = m->next_seq++;
    assert_int_equal(r->ev.seq, r->seq);
    assert_int_equal(r->ev.when_ns, when_ns);
}

static void ref_pop(struct ref_model *m, struct sim_eventq *q)
{
    struct ref_event *want = ref_min(m);
    struct sim_event *got = sim_eventq_pop(q);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_ptr_equal(got, &want->ev);
    assert_false(sim_event_pending(got));
    assert_int_equal(q->now_ns, want->when_ns);
    want->pending = 0;
    m->pending--;
}

static void ref_step(struct ref_model *m, struct sim_eventq *q, sim_time_t spread_ns)
{
    struct ref_event *r = &m->evs[rand_below(m, m->n)];
    /* A narrow time spread makes equal times (the FIFO rule) common. */
    sim_time_t when_ns = q->now_ns + (sim_time_t)rand_below(m, (uint64_t)spread_ns);
    switch (rand_below(m, 6)) {
    case 0:
    case 1:
        if (!r->pending)
            ref_schedule(m, q, r, when_ns, 0);
        break;
    case 2:
        ref_schedule(m, q, r, when_ns, 1);
        break;
    case 3:
        sim_event_cancel(q, &r->ev);
        if (r->pending)
            m->pending--;
        r->pending = 0;
        break;
    case 4: {
        struct ref_event *want = ref_min(m);
        assert_ptr_equal(sim_eventq_peek(q), want ? &want->ev : NULL);
        break;
    }
    default:
        ref_pop(m, q);
        break;
    }
    assert_int_equal(q->count, m->pending);
    assert_int_equal(sim_event_pending(&r->ev), r->pending);
}

static void run_random(uint64_t seed, size_t n_events, size_t ops, sim_time_t spread_ns)
{
    struct ref_model m = { .n = n_events, .rand_state = seed };
    m.evs = calloc(n_events, sizeof *m.evs);
    assert_non_null(m.evs);
    for (size_t i = 0; i < n_events; i++)
        sim_event_init(&m.evs[i].ev, NULL);
    struct sim_eventq q;
    sim_eventq_init(&q);
    for (size_t i = 0; i < ops; i++)
        ref_step(&m, &q, spread_ns);
    while (m.pending)
        ref_pop(&m, &q);
    assert_int_equal(q.count, 0);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
    free(m.evs);
}

static void test_random_small(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 8; seed++)
        run_random(seed * 0x9e3779b97f4a7c15ULL, 40, 20000, 8);
}

static void test_random_large(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++)
        run_random(seed * 0x2545f4914f6cdd1dULL + 7, 1500, 30000, 100000);
}

/* Spreads from microseconds to seconds: events go to the heap and to the
 * timer wheel, move between them, wait whole laps of the wheel and cross
 * empty laps (the horizon's jump). */
static void test_random_wheel(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        run_random(seed * 0x9e3779b97f4a7c15ULL + 3, 300, 20000, 3000000);      /* 3 ms */
        run_random(seed * 0x2545f4914f6cdd1dULL + 5, 300, 20000, 600000000);    /* 0.6 s */
        run_random(seed * 0x9e3779b97f4a7c15ULL + 9, 40, 5000, 20000000000LL);  /* 20 s */
    }
}

/* Far events are exact too: equal times on the wheel keep their FIFO order,
 * and a lone event many laps ahead is found without visiting each bucket. */
static void test_wheel_far_order(void **state)
{
    (void)state;
    enum { N = 50 };
    struct sim_event evs[N], near;
    struct sim_eventq q;
    sim_eventq_init(&q);
    sim_event_init(&near, NULL);
    for (int i = 0; i < N; i++) {
        sim_event_init(&evs[i], NULL);
        sim_event_schedule(&q, &evs[i], 5000000000LL + (i % 5)); /* 5 s, 5 times */
    }
    sim_event_schedule(&q, &near, 10);
    sim_event_reschedule(&q, &evs[0], 5000000000LL + 4); /* to the back of its time */
    assert_ptr_equal(sim_eventq_pop(&q), &near);
    for (int t = 0; t < 5; t++)
        for (int i = t == 0 ? 5 : t; i < N; i += 5)
            assert_ptr_equal(sim_eventq_pop(&q), &evs[i]);
    assert_ptr_equal(sim_eventq_pop(&q), &evs[0]);
    assert_int_equal(q.now_ns, 5000000000LL + 4);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

/* A bucket the horizon has drained gives its capacity back (issue 27 item
 * 14): 4096 events crowding one far bucket, then all popped, leave the wheel
 * holding no more than its initial few slots per bucket (was: 4096 kept). */
static void test_wheel_bucket_shrinks(void **state)
{
    (void)state;
    enum { N = 4096 };
    struct sim_event *evs = calloc(N, sizeof *evs);
    struct sim_eventq q;
    sim_eventq_init(&q);
    for (int i = 0; i < N; i++) {
        sim_event_init(&evs[i], NULL);
        sim_event_schedule(&q, &evs[i], 500000000LL + i); /* one ~1 ms bucket, 0.5 s on */
    }
    for (int i = 0; i < N; i++)
        assert_non_null(sim_eventq_pop(&q));
    size_t most = 0;
    for (int b = 0; b < 256; b++)
        most = q.wheel[b].cap > most ? q.wheel[b].cap : most;
    assert_true(most <= 16);
    sim_eventq_destroy(&q);
    free(evs);
}

/* Ties: events at one time fire in the order they were scheduled, and a
 * reschedule to the same time moves the event to the back. */
static void test_fifo_equal_times(void **state)
{
    (void)state;
    enum { N = 100 };
    struct sim_event evs[N];
    struct sim_eventq q;
    sim_eventq_init(&q);
    for (int i = 0; i < N; i++) {
        sim_event_init(&evs[i], NULL);
        sim_event_schedule(&q, &evs[i], 500);
    }
    sim_event_reschedule(&q, &evs[0], 500);
    for (int i = 1; i < N; i++)
        assert_ptr_equal(sim_eventq_pop(&q), &evs[i]);
    assert_ptr_equal(sim_eventq_pop(&q), &evs[0]);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

/* "Last" events fire after every ordinary event of their time, even one
 * queued after them (near in the heap and far on the wheel), and among
 * themselves by rank, not by when they were queued. */
static void test_last_after_ordinary(void **state)
{
    (void)state;
    const sim_time_t times[] = { 500, 500 + 300 * ((sim_time_t)1 << 20) };
    for (int k = 0; k < 2; k++) {
        struct sim_event last[3], ord[2], later;
        struct sim_eventq q;
        sim_eventq_init(&q);
        for (int i = 0; i < 3; i++)
            sim_event_init(&last[i], NULL);
        sim_event_init(&ord[0], NULL);
        sim_event_init(&ord[1], NULL);
        sim_event_init(&later, NULL);
        sim_event_schedule_last(&q, &last[2], times[k], 7);
        sim_event_schedule(&q, &ord[0], times[k]);
        sim_event_schedule_last(&q, &last[0], times[k], 2);
        sim_event_schedule(&q, &later, times[k] + 1);
        sim_event_schedule_last(&q, &last[1], times[k], 5);
        sim_event_schedule(&q, &ord[1], times[k]);
        assert_ptr_equal(sim_eventq_pop(&q), &ord[0]);
        assert_ptr_equal(sim_eventq_pop(&q), &ord[1]);
        for (int i = 0; i < 3; i++)
            assert_ptr_equal(sim_eventq_pop(&q), &last[i]);
        assert_ptr_equal(sim_eventq_pop(&q), &later);
        assert_null(sim_eventq_pop(&q));
        sim_eventq_destroy(&q);
    }
}

static void test_cancel_not_pending(void **state)
{
    (void)state;
    struct sim_event a, b;
    struct sim_eventq q;
    sim_eventq_init(&q);
    sim_event_init(&a, NULL);
    sim_event_init(&b, NULL);
    sim_event_cancel(&q, &a); /* never scheduled */
    assert_int_equal(q.count, 0);
    sim_event_schedule(&q, &a, 10);
    sim_event_schedule(&q, &b, 20);
    assert_ptr_equal(sim_eventq_pop(&q), &a);
    sim_event_cancel(&q, &a); /* already fired */
    assert_int_equal(q.count, 1);
    sim_event_cancel(&q, &b);
    sim_event_cancel(&q, &b); /* twice */
    assert_int_equal(q.count, 0);
    assert_false(sim_event_pending(&b));
    assert_null(sim_eventq_peek(&q));
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

static void test_pop_advances_now(void **state)
{
    (void)state;
    struct sim_event a, b;
    struct sim_eventq q;
    sim_eventq_init(&q);
    sim_event_init(&a, NULL);
    sim_event_init(&b, NULL);
    assert_int_equal(q.now_ns, 0);
    sim_event_schedule(&q, &b, 300);
    sim_event_schedule(&q, &a, 120);
    assert_ptr_equal(sim_eventq_peek(&q), &a);
    assert_int_equal(q.now_ns, 0); /* peek does not advance */
    assert_ptr_equal(sim_eventq_pop(&q), &a);
    assert_int_equal(q.now_ns, 120);
    assert_ptr_equal(sim_eventq_peek(&q), &b); /* peek with the root empty */
    assert_ptr_equal(sim_eventq_pop(&q), &b);
    assert_int_equal(q.now_ns, 300);
    assert_null(sim_eventq_pop(&q));
    assert_int_equal(q.now_ns, 300); /* empty pop leaves time alone */
    sim_eventq_destroy(&q);
}

static void test_reschedule_not_pending(void **state)
{
    (void)state;
    struct sim_event a;
    struct sim_eventq q;
    sim_eventq_init(&q);
    sim_event_init(&a, NULL);
    sim_event_reschedule(&q, &a, 42);
    assert_true(sim_event_pending(&a));
    assert_int_equal(q.count, 1);
    sim_event_reschedule(&q, &a, 7); /* pending: moves, not duplicated */
    assert_int_equal(q.count, 1);
    assert_ptr_equal(sim_eventq_pop(&q), &a);
    assert_int_equal(q.now_ns, 7);
    assert_null(sim_eventq_pop(&q));
    sim_eventq_destroy(&q);
}

static void handler(struct sim_event *ev, void *arg)
{
    (void)ev;
    (*(int *)arg)++;
}

static void test_init_sets_handler(void **state)
{
    (void)state;
    struct sim_event a;
    int calls = 0;
    sim_event_init(&a, handler);
    assert_false(sim_event_pending(&a));
    a.fn(&a, &calls);
    assert_int_equal(calls, 1);
}

/* Memory stays bounded by the most events ever pending at once: repeated
 * fill/drain cycles return count to 0 and never grow the array again. */
static void test_memory_bounded(void **state)
{
    (void)state;
    enum { MAX_PENDING = 1000 };
    static struct sim_event evs[MAX_PENDING];
    struct sim_eventq q;
    sim_eventq_init(&q);
    size_t cap_after_first = 0;
    uint64_t s = 12345;
    for (int cycle = 0; cycle < 50; cycle++) {
        for (int i = 0; i < MAX_PENDING; i++) {
            sim_event_init(&evs[i], NULL);
            sim_event_schedule(&q, &evs[i], q.now_ns + (sim_time_t)(xorshift(&s) % 1000));
        }
        for (int i = 0; i < MAX_PENDING / 2; i++)
            sim_event_cancel(&q, &evs[xorshift(&s) % MAX_PENDING]);
        while (sim_eventq_pop(&q))
            ;
        assert_int_equal(q.count, 0);
        if (cycle == 0)
            cap_after_first = q.cap;
        assert_int_equal(q.cap, cap_after_first);
    }
    assert_true(q.cap >= MAX_PENDING);
    assert_true(q.cap < 2 * MAX_PENDING);
    /* A hold pattern (pop, schedule) at a constant population does not grow. */
    for (int i = 0; i < MAX_PENDING; i++)
        sim_event_schedule(&q, &evs[i], q.now_ns + i);
    for (int i = 0; i < 100000; i++) {
        struct sim_event *ev = sim_eventq_pop(&q);
        sim_event_schedule(&q, ev, q.now_ns + (sim_time_t)(xorshift(&s) % 5000));
    }
    assert_int_equal(q.count, MAX_PENDING);
    assert_int_equal(q.cap, cap_after_first);
    sim_eventq_destroy(&q);
    assert_null(q.heap);
    assert_int_equal(q.cap, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_large),
        cmocka_unit_test(test_random_wheel),
        cmocka_unit_test(test_wheel_far_order),
        cmocka_unit_test(test_fifo_equal_times),
        cmocka_unit_test(test_last_after_ordinary),
        cmocka_unit_test(test_cancel_not_pending),
        cmocka_unit_test(test_pop_advances_now),
        cmocka_unit_test(test_reschedule_not_pending),
        cmocka_unit_test(test_init_sets_handler),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_wheel_bucket_shrinks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
