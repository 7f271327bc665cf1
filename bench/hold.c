/* hold: the classic event-queue benchmark (BENCH-MODEL.md "hold") on
 * sim_eventq, so pmlab's engine can be compared with SimPy and ns-3 on the same
 * model. N events pending; each operation pops the earliest and schedules it
 * again at the popped time + Exp(1). Exp(1) is drawn with mean 1 ms in integral
 * ns (the queue's time type), which is the same distribution up to a 1e-6
 * rounding. Prints "BENCH eventq_hold_N<n> <Mops/s> Mops/s" per N. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/eventq.h"
#include "sim/rng.h"
#include "util/xalloc.h"

#define HOLD_MEAN_NS 1e6
#define HOLD_TIMED_OPS 10000000ULL

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

/* ops hold operations; returns the sum of popped times so the loop has a
 * visible result. */
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

static void run_hold(size_t n)
{
    struct sim_rng_key key = { .scenario_seed = 42, .stream = (uint32_t)n };
    struct sim_rng rng;
    sim_rng_init(&rng, &key);
    struct sim_eventq q;
    sim_eventq_init(&q);
    struct sim_event *evs = xcalloc(n, sizeof *evs);
    for (size_t i = 0; i < n; i++) {
        sim_event_init(&evs[i], NULL);
        sim_event_schedule(&q, &evs[i], exp_ns(&rng));
    }
    hold_ops(&q, &rng, 2 * (uint64_t)n);

    double t0 = now_s();
    sim_time_t check = hold_ops(&q, &rng, HOLD_TIMED_OPS);
    double dt = now_s() - t0;

    printf("BENCH eventq_hold_N%zu %.1f Mops/s\n", n, (double)HOLD_TIMED_OPS / dt / 1e6);
    if (check < 0) /* keeps the result live; never true */
        printf("# unexpected checksum\n");
    sim_eventq_destroy(&q);
    free(evs);
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
