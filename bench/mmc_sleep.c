/* mmc_sleep: the "mmc-sleep" reference model of BENCH-MODEL.md on sim_eventq.
 *
 * Why this model: it is the smallest one with the shape of pmlab's real work
 * (CPUs that go idle, arm a timer, sleep, and pay an exit latency on wakeup),
 * with known answers, so it measures the engine's speed on realistic event
 * mixes (including real cancels of idle timers) and checks it is right at the
 * same time.
 *
 * Model: c = 16 servers, one FIFO, Exp service (mean 100 us), Poisson
 * arrivals at 0.7 c / 100 us. A server finding the FIFO empty idles and arms a
 * 20 us timer; if it expires the server sleeps. An arrival takes the most
 * recently idled server, else wakes a sleeper (50 us, job bound to it), else
 * waits. All servers start asleep; the run stops at the 2,000,000th completion.
 * Each server embeds its three events (completion, idle timer, wake); the
 * arrival process is one more event. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/eventq.h"
#include "sim/hist.h"
#include "sim/rng.h"
#include "util/xalloc.h"

#define N_SERVERS 16
#define SERVICE_MEAN_NS 100000.0
#define ARRIVAL_MEAN_NS (SERVICE_MEAN_NS / (0.7 * N_SERVERS))
#define IDLE_TIMER_NS (20 * SIM_NS_PER_US)
#define WAKE_LATENCY_NS (50 * SIM_NS_PER_US)
#define STOP_COMPLETIONS 2000000ULL

#define container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

enum server_state { SRV_ASLEEP, SRV_WAKING, SRV_BUSY, SRV_IDLE };

struct server {
    struct sim_event done;       /* service completion */
    struct sim_event idle_timer; /* idle long enough: go to sleep */
    struct sim_event woken;      /* exit latency over: start the bound job */
    enum server_state state;
    sim_time_t job_arrival_ns;   /* arrival time of the job served or bound */
    sim_time_t asleep_since_ns;
    struct server *idle_prev, *idle_next; /* idle list, most recent first */
};

/* Arrival times of waiting jobs: a ring buffer that doubles when full, so its
 * memory is bounded by the longest queue seen. */
struct job_fifo {
    sim_time_t *arrival_ns;
    size_t head, count, cap;
};

struct model {
    struct sim_eventq q;
    struct sim_event arrival;
    struct server srv[N_SERVERS];
    struct server *idle_head;
    struct server *sleepers[N_SERVERS]; /* stack of sleeping servers */
    size_t n_sleepers;
    struct job_fifo fifo;
    struct sim_rng arrival_rng, service_rng;
    struct sim_hist resp;
    uint64_t arrivals, completions, timer_expiries, wakeups;
    sim_time_t asleep_ns;   /* total server time asleep, closed intervals */
    bool stop;
};

static void fifo_push(struct job_fifo *f, sim_time_t arrival_ns)
{
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        sim_time_t *a = xreallocarray(NULL, cap, sizeof *a);
        for (size_t i = 0; i < f->count; i++)
            a[i] = f->arrival_ns[(f->head + i) % f->cap];
        free(f->arrival_ns);
        f->arrival_ns = a;
        f->head = 0;
        f->cap = cap;
    }
    f->arrival_ns[(f->head + f->count) % f->cap] = arrival_ns;
    f->count++;
}

static sim_time_t fifo_pop(struct job_fifo *f)
{
    sim_time_t t = f->arrival_ns[f->head];
    f->head = (f->head + 1) % f->cap;
    f->count--;
    return t;
}

static sim_time_t exp_ns(struct sim_rng *rng, double mean_ns)
{
    return (sim_time_t)(sim_rng_exp(rng, mean_ns) + 0.5);
}

static void idle_push(struct model *m, struct server *s)
{
    s->idle_prev = NULL;
    s->idle_next = m->idle_head;
    if (m->idle_head)
        m->idle_head->idle_prev = s;
    m->idle_head = s;
}

static void idle_remove(struct model *m, struct server *s)
{
    if (s->idle_prev)
        s->idle_prev->idle_next = s->idle_next;
    else
        m->idle_head = s->idle_next;
    if (s->idle_next)
        s->idle_next->idle_prev = s->idle_prev;
}

static void start_service(struct model *m, struct server *s, sim_time_t arrival_ns)
{
    s->state = SRV_BUSY;
    s->job_arrival_ns = arrival_ns;
    sim_event_schedule(&m->q, &s->done, m->q.now_ns + exp_ns(&m->service_rng, SERVICE_MEAN_NS));
}

static void go_to_sleep(struct model *m, struct server *s)
{
    s->state = SRV_ASLEEP;
    s->asleep_since_ns = m->q.now_ns;
    m->sleepers[m->n_sleepers++] = s;
}

static void on_arrival(struct sim_event *ev, void *arg)
{
    struct model *m = arg;
    sim_time_t now_ns = m->q.now_ns;
    m->arrivals++;
    sim_event_schedule(&m->q, ev, now_ns + exp_ns(&m->arrival_rng, ARRIVAL_MEAN_NS));
    if (m->idle_head) {
        struct server *s = m->idle_head;
        idle_remove(m, s);
        sim_event_cancel(&m->q, &s->idle_timer);
        start_service(m, s, now_ns);
    } else if (m->n_sleepers) {
        struct server *s = m->sleepers[--m->n_sleepers];
        m->asleep_ns += now_ns - s->asleep_since_ns;
        s->state = SRV_WAKING;
        s->job_arrival_ns = now_ns;
        sim_event_schedule(&m->q, &s->woken, now_ns + WAKE_LATENCY_NS);
    } else {
        fifo_push(&m->fifo, now_ns);
    }
}

static void on_done(struct sim_event *ev, void *arg)
{
    struct model *m = arg;
    struct server *s = container_of(ev, struct server, done);
    sim_hist_add(&m->resp, m->q.now_ns - s->job_arrival_ns);
    if (++m->completions == STOP_COMPLETIONS) {
        m->stop = true;
        return;
    }
    if (m->fifo.count) {
        start_service(m, s, fifo_pop(&m->fifo));
        return;
    }
    s->state = SRV_IDLE;
    idle_push(m, s);
    sim_event_schedule(&m->q, &s->idle_timer, m->q.now_ns + IDLE_TIMER_NS);
}

static void on_idle_timer(struct sim_event *ev, void *arg)
{
    struct model *m = arg;
    struct server *s = container_of(ev, struct server, idle_timer);
    m->timer_expiries++;
    idle_remove(m, s);
    go_to_sleep(m, s);
}

static void on_woken(struct sim_event *ev, void *arg)
{
    struct model *m = arg;
    struct server *s = container_of(ev, struct server, woken);
    m->wakeups++;
    start_service(m, s, s->job_arrival_ns);
}

static void model_init(struct model *m)
{
    *m = (struct model){ 0 };
    sim_eventq_init(&m->q);
    sim_hist_init(&m->resp);
    struct sim_rng_key key = { .scenario_seed = 1, .stream = 0 };
    sim_rng_init(&m->arrival_rng, &key);
    key.stream = 1;
    sim_rng_init(&m->service_rng, &key);
    sim_event_init(&m->arrival, on_arrival);
    for (size_t i = 0; i < N_SERVERS; i++) {
        struct server *s = &m->srv[i];
        sim_event_init(&s->done, on_done);
        sim_event_init(&s->idle_timer, on_idle_timer);
        sim_event_init(&s->woken, on_woken);
        go_to_sleep(m, s);
    }
    sim_event_schedule(&m->q, &m->arrival, exp_ns(&m->arrival_rng, ARRIVAL_MEAN_NS));
}

static void model_destroy(struct model *m)
{
    sim_eventq_destroy(&m->q);
    sim_rng_destroy(&m->arrival_rng);
    sim_rng_destroy(&m->service_rng);
    free(m->fifo.arrival_ns);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    struct model *m = xmalloc(sizeof *m);
    model_init(m);

    double t0 = now_s();
    while (!m->stop) {
        struct sim_event *ev = sim_eventq_pop(&m->q);
        ev->fn(ev, m);
    }
    double dt = now_s() - t0;

    sim_time_t end_ns = m->q.now_ns;
    for (size_t i = 0; i < m->n_sleepers; i++)
        m->asleep_ns += end_ns - m->sleepers[i]->asleep_since_ns;
    uint64_t events = m->arrivals + m->completions + m->timer_expiries + m->wakeups;
    double sleep_fraction = (double)m->asleep_ns / ((double)N_SERVERS * (double)end_ns);

    printf("BENCH mmc_sleep_events_per_s %.0f events/s\n", (double)events / dt);
    printf("BENCH mmc_sleep_model_events %llu events\n", (unsigned long long)events);
    printf("BENCH mmc_sleep_mean_resp_us %.2f us\n", sim_hist_mean(&m->resp) / 1e3);
    printf("BENCH mmc_sleep_p99_resp_us %.1f us\n", sim_hist_percentile(&m->resp, 99) / 1e3);
    printf("BENCH mmc_sleep_sleep_fraction %.4f fraction\n", sleep_fraction);
    printf("BENCH mmc_sleep_completions %llu jobs\n", (unsigned long long)m->completions);

    model_destroy(m);
    free(m);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("BENCH mmc_sleep_peak_rss %ld kB\n", ru.ru_maxrss);
    return 0;
}
