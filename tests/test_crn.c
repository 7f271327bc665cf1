/* Common random numbers: replication r of every variant is offered the same
 * work (world.h), so the variants' difference is paired.
 *
 * Why a test: a paired interval is only valid if the pairs really share the
 * workload's draws; a stream keyed by the variant by mistake would leave the
 * intervals computed as if paired while the pairs were independent. Two
 * variants as different as possible (menu vs idle=poll: every idle period,
 * wakeup and busy time differs) run the rr workload; the first draws of
 * every workload stream, and so the arrival times, must be identical, and
 * the system's timer stream and the runs' outcomes must not be. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "workload/workload.h"
#include "world_fixture.h"

#define NREC 2000

static const enum world_stream workload_streams[] = {
    WORLD_STREAM_ARRIVAL, WORLD_STREAM_SERVICE, WORLD_STREAM_WAKE_CPU,
};

struct crn_run {
    struct kparams kp;
    struct world w;
    double rec[WORLD_NSTREAMS][NREC];
    int nrec[WORLD_NSTREAMS];
    double busy_pct;
};

/* Run rr (20 ms window after 5 ms warm-up, load 0.3) as variant `variant`,
 * replication `rep`, with kernel command line cmdline, recording the first
 * NREC draws of every stream. */
static struct crn_run *crn_run_rr(const struct hw_machine *m, const char *cmdline,
                                  uint32_t variant, uint32_t rep)
{
    struct crn_run *c = calloc(1, sizeof *c);
    kparams_init(&c->kp);
    fx_apply(&c->kp, cmdline, kparams_set_cmdline);
    struct world_key key = { .seed = 5, .variant = variant, .replication = rep };
    world_init(&c->w, m, &c->kp, &key);
    for (int s = 0; s < WORLD_NSTREAMS; s++)
        sim_rng_record(&c->w.rng[s], c->rec[s], NREC);

    const struct wl_ops *rr = wl_find("rr");
    assert_non_null(rr);
    void *cfg = calloc(1, rr->config_size);
    wl_config_defaults(rr, cfg);
    struct diag d = { 0 };
    assert_int_equal(wl_config_set(rr, cfg, "duration_ms", "20", "t", 1, &d), 0);
    assert_int_equal(wl_config_set(rr, cfg, "warmup_ms", "5", "t", 1, &d), 0);
    assert_int_equal(wl_config_set(rr, cfg, "load", "0.3", "t", 1, &d), 0);
    struct rpt_metric_set out = { 0 };
    char msg[256];
    assert_int_equal(rr->run(&c->w, cfg, 0, &out, msg, sizeof msg), 0);
    c->busy_pct = rpt_set_get(&out, "busy_pct")->value;
    rpt_set_free(&out);
    free(cfg);
    for (int s = 0; s < WORLD_NSTREAMS; s++)
        c->nrec[s] = c->w.rng[s].nrec;
    return c;
}

static void crn_free(struct crn_run *c)
{
    world_destroy(&c->w);
    kparams_destroy(&c->kp);
    free(c);
}

/* Arrival k of rr is at sum over i < k of (1 + floor(gap_i)) ns (rr_arrival). */
static void arrival_times(const double *gaps, int n, sim_time_t *at)
{
    sim_time_t t = 0;
    for (int k = 0; k < n; k++) {
        at[k] = t;
        t += 1 + (sim_time_t)gaps[k];
    }
}

/* Group set-up: skx-2s, shared read-only by the tests as the runner's worlds
 * share it. */
static int crn_setup(void **state)
{
    struct diag d = { 0 };
    *state = hw_machine_load("machines/skx-2s.ini", &d);
    return *state ? 0 : -1;
}

static int crn_teardown(void **state)
{
    hw_machine_free(*state);
    return 0;
}

static void test_variants_share_the_workload(void **state)
{
    const struct hw_machine *m = *state;
    struct crn_run *a = crn_run_rr(m, "", 0, 0);
    struct crn_run *b = crn_run_rr(m, "idle=poll", 1, 0);

    /* The runs differ: idle=poll keeps every CPU busy polling. */
    assert_true(b->busy_pct > 90 && a->busy_pct < 60);

    /* 20 + 5 ms at 0.3 x 56 cores / 50 us is ~8400 arrivals: the whole
     * record of every workload stream is used, and is the same. */
    for (size_t i = 0; i < sizeof workload_streams / sizeof workload_streams[0]; i++) {
        enum world_stream s = workload_streams[i];
        assert_int_equal(a->nrec[s], NREC);
        assert_int_equal(b->nrec[s], NREC);
        assert_memory_equal(a->rec[s], b->rec[s], sizeof a->rec[s]);
    }
    static sim_time_t at_a[NREC], at_b[NREC];
    arrival_times(a->rec[WORLD_STREAM_ARRIVAL], NREC, at_a);
    arrival_times(b->rec[WORLD_STREAM_ARRIVAL], NREC, at_b);
    assert_memory_equal(at_a, at_b, sizeof at_a);
    assert_true(at_a[NREC - 1] > 5 * SIM_NS_PER_MS); /* into the measurement window */

    /* The housekeeping timers are the system's: each variant its own. */
    assert_true(a->nrec[WORLD_STREAM_TIMERS] > 10 && b->nrec[WORLD_STREAM_TIMERS] > 10);
    assert_true(a->rec[WORLD_STREAM_TIMERS][0] != b->rec[WORLD_STREAM_TIMERS][0]);

    crn_free(a);
    crn_free(b);
}

/* Replications stay independent: replication 1 draws another workload. */
static void test_replications_differ(void **state)
{
    const struct hw_machine *m = *state;
    struct crn_run *a = crn_run_rr(m, "", 0, 0);
    struct crn_run *b = crn_run_rr(m, "", 0, 1);
    for (size_t i = 0; i < sizeof workload_streams / sizeof workload_streams[0]; i++) {
        enum world_stream s = workload_streams[i];
        assert_true(a->rec[s][0] != b->rec[s][0] || a->rec[s][1] != b->rec[s][1]);
    }
    crn_free(a);
    crn_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_share_the_workload),
        cmocka_unit_test(test_replications_differ),
    };
    return cmocka_run_group_tests(tests, crn_setup, crn_teardown);
}
