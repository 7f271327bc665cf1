/* Sweep grids and point seeds (sweep/sweep.h).
 *
 * Why a test: "any point re-run alone gives the same numbers" rests on the
 * point's seed depending on the point (its KEY=VALUE settings and the base
 * seed) and on nothing else -- not its index, the other values of its axis
 * or the order of the grid's values -- while different points and different
 * base seeds get different seeds. The grid's row-major order and the
 * replacement of an axis by a later --grid of the same key are checked too. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sweep/sweep.h"

static void grid(struct sweep_grid *g, const char *a, const char *b)
{
    char msg[200];
    memset(g, 0, sizeof *g);
    assert_int_equal(sweep_grid_add(g, a, msg, sizeof msg), 0);
    if (b)
        assert_int_equal(sweep_grid_add(g, b, msg, sizeof msg), 0);
}

static void test_row_major_points(void **state)
{
    (void)state;
    struct sweep_grid g;
    grid(&g, "workload.load=0.1, 0.5 ,0.9", "variant.*.kernel=6.8,6.12");
    assert_int_equal(sweep_grid_npoints(&g), 6);
    char *label = sweep_point_label(&g, 3);
    assert_string_equal(label, "workload.load=0.5 variant.*.kernel=6.12");
    free(label);
    int coords[SWEEP_MAX_AXES];
    sweep_point_coords(&g, 4, coords);
    assert_int_equal(coords[0], 2);
    assert_int_equal(coords[1], 0);
    char *desc = sweep_grid_describe(&g);
    assert_string_equal(desc, "workload.load=0.1,0.5,0.9 variant.*.kernel=6.8,6.12");
    free(desc);
    sweep_grid_free(&g);
}

static void test_seed_is_the_points(void **state)
{
    (void)state;
    struct sweep_grid big, alone, reordered;
    grid(&big, "workload.load=0.1,0.5,0.9", "variant.*.kernel=6.8,6.12");
    grid(&alone, "workload.load=0.9", "variant.*.kernel=6.12");
    grid(&reordered, "workload.load=0.9,0.1", "variant.*.kernel=6.12,6.8");
    uint64_t s = sweep_point_seed(&big, 5, 42); /* load 0.9, kernel 6.12 */
    assert_true(s == sweep_point_seed(&alone, 0, 42));
    assert_true(s == sweep_point_seed(&reordered, 0, 42));
    assert_true(s < UINT64_C(1) << 63);
    /* Every point of the big grid has its own seed; another base, another. */
    for (long p = 0; p < 6; p++)
        for (long q = p + 1; q < 6; q++)
            assert_true(sweep_point_seed(&big, p, 42) != sweep_point_seed(&big, q, 42));
    assert_true(s != sweep_point_seed(&big, 5, 43));
    sweep_grid_free(&big);
    sweep_grid_free(&alone);
    sweep_grid_free(&reordered);
}

static void test_grid_errors_and_replacement(void **state)
{
    (void)state;
    struct sweep_grid g;
    char msg[200];
    memset(&g, 0, sizeof g);
    assert_int_equal(sweep_grid_add(&g, "workload.load", msg, sizeof msg), -1);
    assert_int_equal(sweep_grid_add(&g, "load=0.1", msg, sizeof msg), -1);
    assert_int_equal(sweep_grid_add(&g, "workload.load=0.1,,0.2", msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "empty value"));
    assert_int_equal(sweep_grid_add(&g, "workload.load=0.1,0.1", msg, sizeof msg), -1);
    assert_int_equal(g.naxes, 0);
    assert_int_equal(sweep_grid_add(&g, "workload.load=0.1,0.2", msg, sizeof msg), 0);
    assert_int_equal(sweep_grid_add(&g, "workload.load=0.3", msg, sizeof msg), 0);
    assert_int_equal(g.naxes, 1);
    assert_int_equal(sweep_grid_npoints(&g), 1);
    sweep_grid_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_major_points),
        cmocka_unit_test(test_seed_is_the_points),
        cmocka_unit_test(test_grid_errors_and_replacement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
