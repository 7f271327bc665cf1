/* test_rapl: the per-package energy counters (src/hw/cpu.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_fixture.h"

/* The per-package energy counters add up to the machine's energy, and the
 * package that ran the work used more. skx-2s, 20 ms of work on cpu0. */
static void test_pkg_energy_counters(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, NULL);
    struct probe pr = { 0 };
    task_init(&pr.t, probe_done, 0);
    sched_wake_task(&f->w, &pr.t, 20.0 * SIM_NS_PER_MS);
    world_run_until(&f->w, 50 * SIM_NS_PER_MS);
    assert_true(pr.done_ns > 0);
    double e0 = hw_pkg_energy_mw_ns(&f->w.hw, 0, f->w.q.now_ns);
    double e1 = hw_pkg_energy_mw_ns(&f->w.hw, 1, f->w.q.now_ns);
    assert_true(e0 > e1 && e1 > 0);
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);   /* the window started at time 0 */
    double watts = rpt_set_get(&s, "pkg_watts")->value;
    rpt_set_free(&s);
    assert_float_equal((e0 + e1) / (50.0 * SIM_NS_PER_MS) / 1000.0, watts, watts * 1e-9);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pkg_energy_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
