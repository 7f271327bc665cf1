/* jbb: the SPECjbb2015 metrics from an RT curve (VALIDATION.md §2's worked
 * example, the first-failure rule, the SLA floor), the step pass rule, and
 * short runs on rpl-h: a rising RT curve, critical-jOPS below max-jOPS, and
 * the same metrics for the same key. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload.h"
#include "world.h"
#include "world_fixture.h"

/* The pure scoring interface of src/workload/jbb.c (exported for this test;
 * keep in step with it). */
#define JBB_NSLA 5
struct jbb_step {
    double ir_jops, processed_jops, p50_ms, p90_ms, p99_ms;
    int pass;
};
struct jbb_score {
    double max_jops, critical_jops;
    double sla_jops[JBB_NSLA];
    int sla_unmet, npass;
};
bool jbb_step_pass(int64_t injected, int64_t processed, double tolerance_pct);
void jbb_score_curve(const struct jbb_step *steps, int n, struct jbb_score *out);

static struct jbb_step step(double ir, double p99_ms, int pass)
{
    struct jbb_step s = { .ir_jops = ir, .processed_jops = ir, .p99_ms = p99_ms, .pass = pass };
    return s;
}

/* VALIDATION.md §2: HBIR 12000, max-jOPS 11640, per-SLA 1789, 2588, 2848,
 * 3080, 3428 -> critical-jOPS 2684. The curve puts each per-SLA rate at the
 * last step meeting that SLA, with passing steps up to 11640 and the first
 * failure at 11760 (1 % steps of 12000 above 3428). */
static void test_validation_example(void **state)
{
    (void)state;
    struct jbb_step c[128];
    int n = 0;
    c[n++] = step(1200, 5, 1);
    c[n++] = step(1789, 9.9, 1);
    c[n++] = step(2588, 25, 1);     /* meets 25 exactly */
    c[n++] = step(2848, 49, 1);
    c[n++] = step(3080, 74, 1);
    c[n++] = step(3428, 100, 1);
    for (double ir = 3600; ir <= 11640; ir += 120)
        c[n++] = step(ir, 150 + ir / 100, 1);
    c[n++] = step(11760, 900, 0);
    c[n++] = step(11880, 40, 1);    /* after the first failure: ignored */
    struct jbb_score sc;
    jbb_score_curve(c, n, &sc);
    assert_true(fabs(sc.max_jops - 11640) < 1e-9);
    const double want[JBB_NSLA] = { 1789, 2588, 2848, 3080, 3428 };
    for (int s = 0; s < JBB_NSLA; s++)
        assert_true(fabs(sc.sla_jops[s] - want[s]) < 1e-9);
    assert_int_equal(sc.sla_unmet, 0);
    assert_int_equal((int)lround(sc.critical_jops), 2684);
}

/* max-jOPS is the last passing step before the first failure, not a later
 * passing step, and SLAs only count steps before the first failure. */
static void test_max_before_first_failure(void **state)
{
    (void)state;
    struct jbb_step c[] = {
        step(100, 5, 1), step(200, 20, 1), step(300, 60, 1), step(400, 90, 0),
        step(500, 8, 1), step(600, 8, 1),
    };
    struct jbb_score sc;
    jbb_score_curve(c, 6, &sc);
    assert_int_equal(sc.npass, 3);
    assert_true(sc.max_jops == 300);
    assert_true(sc.sla_jops[0] == 100);   /* 10 ms: the later 8 ms steps do not count */
    assert_true(sc.sla_jops[1] == 200);
    assert_true(sc.sla_jops[2] == 200);
    assert_true(sc.sla_jops[3] == 300);
    assert_true(sc.sla_jops[4] == 300);
    double want = exp((log(100) + 2 * log(200) + 2 * log(300)) / 5);
    assert_true(fabs(sc.critical_jops - want) < 1e-9);
}

/* An SLA no passing step meets takes the first step's IR (and is counted);
 * a curve whose first step fails scores 0. */
static void test_sla_floor_and_no_pass(void **state)
{
    (void)state;
    struct jbb_step c[] = { step(100, 30, 1), step(200, 40, 1), step(300, 200, 0) };
    struct jbb_score sc;
    jbb_score_curve(c, 3, &sc);
    assert_int_equal(sc.sla_unmet, 2);
    assert_true(sc.sla_jops[0] == 100 && sc.sla_jops[1] == 100);
    assert_true(sc.sla_jops[2] == 200 && sc.max_jops == 200);

    struct jbb_step bad[] = { step(100, 5, 0), step(200, 5, 1) };
    jbb_score_curve(bad, 2, &sc);
    assert_true(sc.max_jops == 0 && sc.critical_jops == 0);
    assert_int_equal(sc.npass, 0);
}

/* A step fails when fewer transactions are processed than injected, beyond
 * the tolerance. */
static void test_step_pass_rule(void **state)
{
    (void)state;
    assert_true(jbb_step_pass(1000, 1000, 0));
    assert_false(jbb_step_pass(1000, 999, 0));
    assert_true(jbb_step_pass(1000, 990, 1));
    assert_false(jbb_step_pass(1000, 989, 1));
    assert_true(jbb_step_pass(0, 0, 1));
}

/* ---- Short runs on rpl-h (16 CPUs) ---- */

struct fixture {
    struct hw_machine *m;
    struct kparams kp;
    const struct wl_ops *ops;
    void *cfg;
};

static struct fixture *fixture_new(void)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load("machines/rpl-h.ini", &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    kparams_init(&f->kp);
    f->ops = wl_find("jbb");
    assert_non_null(f->ops);
    f->cfg = calloc(1, f->ops->config_size);
    wl_config_defaults(f->ops, f->cfg);
    /* A coarse, short curve: 4 % steps, short windows. */
    static const char *const quick[][2] = {
        { "step_pct", "4" }, { "settle_ms", "300" }, { "measure_ms", "600" },
        { "hbir_probe_ms", "600" }, { "hbir_iters", "3" },
    };
    for (size_t i = 0; i < sizeof quick / sizeof quick[0]; i++)
        assert_int_equal(wl_config_set(f->ops, f->cfg, quick[i][0], quick[i][1], "t", 1, &d), 0);
    char msg[128];
    assert_int_equal(f->ops->validate(f->cfg, msg, sizeof msg), 0);
    return f;
}

static void fixture_free(struct fixture *f)
{
    free(f->cfg);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

static void run_once(struct fixture *f, uint64_t seed, struct rpt_metric_set *out)
{
    struct world w;
    struct world_key key = { .seed = seed };
    world_init(&w, f->m, &f->kp, &key);
    char msg[256] = "";
    int rc = f->ops->run(&w, f->cfg, 0, out, msg, sizeof msg);
    world_destroy(&w);
    if (rc != 0)
        fail_msg("%s", msg);
}

/* The RT curve climbs to a failure near HBIR; p99 rises with the load (the
 * upper steps well above the first ones); critical < max <= HBIR-ish. */
static void test_rt_curve_shape(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    struct rpt_metric_set out = { 0 };
    run_once(f, 11, &out);
    const struct rpt_series *c = rpt_set_series(&out, "rt_curve");
    assert_non_null(c);
    assert_int_equal(c->ncols, 6);
    assert_string_equal(c->cols[4], "p99_ms");
    int n = c->nrows;
    assert_true(n >= 10);
    const double *first = &c->rows[0], *last = &c->rows[(n - 1) * 6];
    assert_true(last[5] == 0);                           /* ends at its first failure */
    for (int i = 0; i < n - 1; i++)
        assert_true(c->rows[i * 6 + 5] == 1);
    double hbir = fx_set_metric(&out, "hbir_jops"), max = fx_set_metric(&out, "max_jops");
    double crit = fx_set_metric(&out, "critical_jops");
    assert_true(max >= 0.6 * hbir && max <= 1.6 * hbir);
    assert_true(crit > 0.2 * max && crit < 0.9 * max);
    /* p99: the mean of the top quarter of passing steps far above the
     * bottom quarter's (monotone-ish, rising near HBIR). */
    int q = (n - 1) / 4;
    double lo = 0, hi = 0;
    for (int i = 0; i < q; i++) {
        lo += c->rows[i * 6 + 4];
        hi += c->rows[(n - 2 - i) * 6 + 4];
    }
    assert_true(hi > 4 * lo);
    assert_true(first[4] < 30);                         /* light load: little queueing */
    assert_true(c->rows[(n - 2) * 6 + 4] > 50);         /* the last passing step queues */
    /* processed follows requested on passing steps */
    for (int i = 0; i < n - 1; i++) {
        double ir = c->rows[i * 6], done = c->rows[i * 6 + 1];
        assert_true(fabs(done - ir) < 0.25 * ir + 50);
    }
    assert_true(fx_set_metric(&out, "busy_pct") > 0);
    rpt_set_free(&out);
    fixture_free(f);
}

/* Common random numbers that pair: every transaction's segment works are
 * drawn at its arrival (jbb_draw_segments), so the service stream holds
 * `segments` draws per arrival (one IRQ-CPU draw each) whatever the
 * workers did; drawn at each segment's start instead, the in-flight
 * transactions at the end would lack theirs. */
static void test_segments_drawn_at_arrival(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    struct world w;
    struct world_key key = { .seed = 7 };
    world_init(&w, f->m, &f->kp, &key);
    enum { CAP_SERVICE = 1 << 22, CAP_IRQ = 1 << 20 };
    double *svc = malloc(CAP_SERVICE * sizeof *svc), *irq = malloc(CAP_IRQ * sizeof *irq);
    sim_rng_record(&w.rng[WORLD_STREAM_SERVICE], svc, CAP_SERVICE);
    sim_rng_record(&w.rng[WORLD_STREAM_IRQ], irq, CAP_IRQ);
    struct rpt_metric_set out = { 0 };
    char msg[256] = "";
    assert_int_equal(f->ops->run(&w, f->cfg, 0, &out, msg, sizeof msg), 0);
    int nsvc = w.rng[WORLD_STREAM_SERVICE].nrec, nirq = w.rng[WORLD_STREAM_IRQ].nrec;
    assert_true(nirq > 1000 && nirq < CAP_IRQ && nsvc < CAP_SERVICE);
    assert_int_equal(nsvc, 4 * nirq);   /* segments = 4, the default */
    rpt_set_free(&out);
    world_destroy(&w);
    free(svc);
    free(irq);
    fixture_free(f);
}

/* Same key, same numbers: every metric and every curve cell. */
static void test_deterministic(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    struct rpt_metric_set a = { 0 }, b = { 0 };
    run_once(f, 5, &a);
    run_once(f, 5, &b);
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++) {
        assert_string_equal(a.m[i].name, b.m[i].name);
        assert_memory_equal(&a.m[i].value, &b.m[i].value, sizeof(double));
    }
    const struct rpt_series *ca = rpt_set_series(&a, "rt_curve"), *cb = rpt_set_series(&b, "rt_curve");
    assert_int_equal(ca->nrows, cb->nrows);
    assert_memory_equal(ca->rows, cb->rows, sizeof(double) * (size_t)(ca->nrows * ca->ncols));
    rpt_set_free(&a);
    rpt_set_free(&b);
    fixture_free(f);
}

/* ---- The request path on skx-2s: wake-ups are in the response time ---- */

/* p50 response time (ms) of one RT step at 100 jOPS on skx-2s with the
 * variant's command line: constant segments, no GC, HBIR preset (no
 * search), cpufreq off (every core at base frequency, so turbo bins do not
 * differ between the variants), so what differs is the idle path. */
static double low_load_p50_ms(const char *cmdline)
{
    struct fx *f = fx_new_machine("machines/skx-2s.ini", NULL, cmdline, NULL, NULL, 0);
    const struct wl_ops *ops = wl_find("jbb");
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    static const char *const set[][2] = {
        { "segment_cv", "0" }, { "gc_every_tx_per_cpu", "0" }, { "preset_hbir_jops", "10000" },
        { "step_pct", "1" }, { "max_steps", "1" }, { "settle_ms", "200" }, { "measure_ms", "1000" },
    };
    struct diag d = { 0 };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        assert_int_equal(wl_config_set(ops, cfg, set[i][0], set[i][1], "t", 1, &d), 0);
    struct rpt_metric_set out = { 0 };
    char msg[256] = "";
    assert_int_equal(ops->run(&f->w, cfg, 0, &out, msg, sizeof msg), 0);
    const struct rpt_series *c = rpt_set_series(&out, "rt_curve");
    assert_int_equal(c->nrows, 1);
    assert_true(c->rows[5] == 1);
    double p50 = c->rows[2];
    rpt_set_free(&out);
    free(cfg);
    fx_free(f);
    return p50;
}

/* A transaction's response time includes its workers' wake-ups: at 100 jOPS
 * on 112 CPUs every hop (the default 4 segments: the request's wake-up and 3
 * hand-offs) wakes an idle CPU, so with C6 allowed (menu picks it for these
 * long idle periods) each hop pays C6's exit (92 us, more when the package
 * was in PC6) and cache refill (22 us) instead of C1's 2 us. The C6 machine
 * is slower by about 4 x (92 - 2) us: at least 0.9 of that, at most two such
 * exits plus refills per hop. spectre_v2=off on both: with kernel IBRS a
 * thread idling in C1 keeps IBRS set and slows its busy sibling, while C6 is
 * entered with IBRS cleared (intel_idle's CPUIDLE_FLAG_IBRS), which would
 * make the C1-only machine the slower one for a reason other than wake-up. */
static void test_wakeup_in_response_time(void **state)
{
    (void)state;
    const double hops = 4;
    double c1 = low_load_p50_ms("spectre_v2=off intel_idle.max_cstate=1");
    double c6 = low_load_p50_ms("spectre_v2=off");
    double per_hop_us = (c6 - c1) * 1000.0 / hops;
    print_message("p50 C1 only %.4f ms, C6 allowed %.4f ms: %.1f us per hop\n", c1, c6, per_hop_us);
    assert_true(c1 > 3.2 && c1 < 3.4);          /* 4 x 800 us at base, plus wake paths */
    assert_true(per_hop_us > 0.9 * (92 - 2));
    assert_true(per_hop_us < 2 * (92 + 22));
}

/* Every default parses and passes validation; bad values are refused. */
static void test_params(void **state)
{
    (void)state;
    const struct wl_ops *ops = wl_find("jbb");
    assert_non_null(ops);
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    char msg[128];
    assert_int_equal(ops->validate(cfg, msg, sizeof msg), 0);
    struct diag d = { 0 };
    assert_int_equal(wl_config_set(ops, cfg, "step_pct", "0", "f.ini", 3, &d), -1);
    assert_int_equal(wl_config_set(ops, cfg, "segments", "2.5", "f.ini", 3, &d), -1);
    assert_int_equal(wl_config_set(ops, cfg, "no_such_key", "1", "f.ini", 3, &d), -1);
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validation_example),
        cmocka_unit_test(test_max_before_first_failure),
        cmocka_unit_test(test_sla_floor_and_no_pass),
        cmocka_unit_test(test_step_pass_rule),
        cmocka_unit_test(test_rt_curve_shape),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_segments_drawn_at_arrival),
        cmocka_unit_test(test_wakeup_in_response_time),
        cmocka_unit_test(test_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
