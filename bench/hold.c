/* hold: the classic event-queue benchmark (BENCH-MODEL.md "hold") on
 * sim_eventq, so pmlab's engine can be compared with SimPy and ns-3 on the same
 * model. N events pending; each operation pops the earliest and schedules it
 * again at the popped time + Exp(1). Exp(1) is drawn with mean 1 ms in integral
 * ns (the queue's time type), which is the same distribution up to a 1e-6
 * rounding.
 *
 * The same loop also runs on a plain binary heap (bench/ref_binheap.h) in the
 * same process, because absolute rates on a shared 2-core machine drift from
 * run to run while the ratio of two queues measured side by side drifts much
 * less. For each N both queues are filled and warmed up from identical random
 * streams (same key, so the same Exp draws in the same order), then timed
 * rounds alternate, pmlab, binary heap, pmlab, ... and the best round of each
 * is reported. Both queues pop exactly the same sequence of times, which the
 * per-round checksums verify.
 *
 * Prints per N:
 *   BENCH eventq_hold_N<n> <Mops/s> Mops/s            pmlab's queue, best round
 *   BENCH binheap_hold_N<n> <Mops/s> Mops/s           reference heap, best round
 *   BENCH eventq_hold_vs_binheap_N<n> <ratio> x       the first over the second
 * and once BENCH hold_peak_rss. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "ref_binheap.h"
#include "sim/eventq.h"
#include "sim/rng.h"
#include "util/xalloc.h"

#define HOLD_MEAN_NS 1e6
#define HOLD_TIMED_OPS 10000000ULL
#define HOLD_ROUNDS 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static sim_time_t exp_ns(struct sim_rng *rng)
{
    return (sim_time_t)(sim_rng_exp(rng, HOLD_MEAN_NS) + 0.5);
}

/* ops hold operations on pmlab's queue; returns the sum of popped times so
 * the loop has a visible result. */
static sim_time_t hold_ops(struct sim_eventq *q, struct sim_rng *rng, uint64_t ops)
{
    sim_time_t sum_ns = 0;
    for (uint64_t i = 0; i < ops; i++) {
        struct sim_event *ev = sim_eventq_pop(q);
        sum_ns += q->now_ns;
        sim_event_schedule(q, ev, q->now_ns + exp_ns(rng));
    }
    return sum_ns;
}

/* The same loop on the reference binary heap. */
static sim_time_t hold_ops_binheap(struct ref_binheap *h, struct sim_rng *rng, uint64_t ops)
{
    sim_time_t sum_ns = 0;
    for (uint64_t i = 0; i < ops; i++) {
        struct ref_binheap_entry e = ref_binheap_pop(h);
        sum_ns += e.time;
        ref_binheap_push(h, e.time + exp_ns(rng), e.item);
    }
    return sum_ns;
}

static void run_hold(size_t n)
{
    struct sim_rng_key key = { .scenario_seed = 42, .stream = (uint32_t)n };
    struct sim_rng rng, ref_rng;
    sim_rng_init(&rng, &key);
    sim_rng_init(&ref_rng, &key);

    struct sim_eventq q;
    sim_eventq_init(&q);
    struct sim_event *evs = xcalloc(n, sizeof *evs);
    for (size_t i = 0; i < n; i++) {
        sim_event_init(&evs[i], NULL);
        sim_event_schedule(&q, &evs[i], exp_ns(&rng));
    }
    /* The reference heap's items point at events of its own, so both loops
     * carry a pointer to a distinct object per pending entry. */
    struct ref_binheap h;
    ref_binheap_init(&h);
    struct sim_event *ref_evs = xcalloc(n, sizeof *ref_evs);
    for (size_t i = 0; i < n; i++)
        ref_binheap_push(&h, exp_ns(&ref_rng), &ref_evs[i]);

    sim_time_t check = hold_ops(&q, &rng, 2 * (uint64_t)n);
    sim_time_t ref_check = hold_ops_binheap(&h, &ref_rng, 2 * (uint64_t)n);

    double best = 0.0, ref_best = 0.0;
    for (int r = 0; r < HOLD_ROUNDS; r++) {
        double t0 = now_s();
        check += hold_ops(&q, &rng, HOLD_TIMED_OPS);
        double t1 = now_s();
        ref_check += hold_ops_binheap(&h, &ref_rng, HOLD_TIMED_OPS);
        double t2 = now_s();
        double rate = (double)HOLD_TIMED_OPS / (t1 - t0) / 1e6;
        double ref_rate = (double)HOLD_TIMED_OPS / (t2 - t1) / 1e6;
        if (rate > best)
            best = rate;
        if (ref_rate > ref_best)
            ref_best = ref_rate;
    }

    printf("BENCH eventq_hold_N%zu %.1f Mops/s\n", n, best);
    printf("BENCH binheap_hold_N%zu %.1f Mops/s\n", n, ref_best);
    printf("BENCH eventq_hold_vs_binheap_N%zu %.2f x\n", n, best / ref_best);
    if (check != ref_check) /* both must pop the very same times */
        printf("# hold N%zu: checksums differ (%lld vs %lld)\n", n,
               (long long)check, (long long)ref_check);
    fflush(stdout);

    ref_binheap_destroy(&h);
    free(ref_evs);
    sim_eventq_destroy(&q);
    free(evs);
    sim_rng_destroy(&ref_rng);
    sim_rng_destroy(&rng);
}

int main(void)
{
    static const size_t sizes[] = { 64, 1024, 16384, 262144 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        run_hold(sizes[i]);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("BENCH hold_peak_rss %ld kB\n", ru.ru_maxrss);
    return 0;
}
