/* test_device: a platform device that holds the package shallow while it is
 * active (src/hw/device.c, src/world_devices.c) on
 * tests/data/machines/pkg-limit.ini: two SMT cores with C1 and C6 and
 * package states PC2, PC3 and PC6, all from core C6. Idle, its CPUs sit in C6
 * and the package in PC6; a device declared with pkg_limit = PC3 keeps it at
 * PC3 while it interrupts and lets it back to PC6 active_ms after its last
 * interrupt. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "world_devices.h"
#include "world_fixture.h"

#define PKG_LIMIT_MACHINE "tests/data/machines/pkg-limit.ini"

/* The test machine with one device on cpu0 at irq_hz, limit (an index,
 * -1: none), active 50 ms after each interrupt; measured from 50 ms. */
static struct fx *dfx_new(struct hw_device_config *dev, double irq_hz, int limit)
{
    struct fx *f = fx_new_machine(PKG_LIMIT_MACHINE, NULL, NULL, NULL, NULL, 0);
    hw_device_config_init(dev, "dev0", 1);
    dev->cpu = 0;
    dev->irq_hz = irq_hz;
    dev->pkg_limit = limit;
    dev->active_ms = 50;
    world_devices_create(&f->w, dev, 1);
    world_run_until(&f->w, 50 * SIM_NS_PER_MS);
    world_measure_reset(&f->w);
    return f;
}

/* Active (500 interrupts/s: a gap of 50 ms has odds of e^-25): never in
 * PC6, mostly in PC3. Then the device stops: 50 ms after its last interrupt
 * the package goes back to PC6 and PC3 is never entered again. */
static void test_device_holds_package(void **state)
{
    (void)state;
    struct hw_device_config dev;
    struct fx *f = dfx_new(&dev, 500, 1);
    world_run_until(&f->w, 550 * SIM_NS_PER_MS);
    assert_float_equal(fx_metric(f, "pkg_residency.PC6"), 0, 0);
    assert_true(fx_metric(f, "pkg_residency.PC3") > 50);
    assert_int_equal(f->w.hw.pkg[0].depth_limit, 1);
    dev.irq_hz = 0;   /* its next interrupt is the last */
    world_run_until(&f->w, 620 * SIM_NS_PER_MS);
    assert_int_equal(f->w.hw.pkg[0].depth_limit, f->m->npkgstates - 1);
    world_measure_reset(&f->w);
    world_run_until(&f->w, 1120 * SIM_NS_PER_MS);
    assert_float_equal(fx_metric(f, "pkg_residency.PC3"), 0, 0);
    assert_true(fx_metric(f, "pkg_residency.PC6") > 50);
    fx_free(f);
}

/* The same interrupts from a device without a limit: the package reaches
 * PC6 between them, and never sits in PC3. */
static void test_device_without_limit(void **state)
{
    (void)state;
    struct hw_device_config dev;
    struct fx *f = dfx_new(&dev, 500, -1);
    world_run_until(&f->w, 550 * SIM_NS_PER_MS);
    assert_float_equal(fx_metric(f, "pkg_residency.PC3"), 0, 0);
    assert_true(fx_metric(f, "pkg_residency.PC6") > 50);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_holds_package),
        cmocka_unit_test(test_device_without_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
