/* Calibration overrides for tests: fx_set_calib sets one key of a loaded
 * machine, fx_quiet_machine turns the machine's background activity off.
 * Header-only, for test programs with or without world_fixture.h. */
#ifndef PMLAB_TESTS_QUIET_MACHINE_H
#define PMLAB_TESTS_QUIET_MACHINE_H

#include <assert.h>
#include <string.h>

#include "hw/machine.h"

static inline void fx_set_calib(struct hw_machine *m, const char *key, double v)
{
    for (int i = 0; i < m->ncalib; i++)
        if (strcmp(m->calib[i].key, key) == 0)
            return (void)(m->calib[i].value = v);
    assert(m->ncalib < HW_MAX_CALIB);
    strcpy(m->calib[m->ncalib].key, key);
    m->calib[m->ncalib++].value = v;
}

/* A quiet machine for tests that pin one policy's timings: no wake-up
 * chains, softirq time or deferrable timers after background interrupts,
 * and housekeeping timers exact (hrtimers without slack rounding to the
 * wheel). The background model has tests of its own, which set these keys
 * back through the calibration overrides. */
static inline void fx_quiet_machine(struct hw_machine *m)
{
    fx_set_calib(m, "bg_wake_share", 0);
    fx_set_calib(m, "softirq_ns", 0);
    fx_set_calib(m, "bg_deferrable_hz", 0);
    fx_set_calib(m, "bg_hrtimer_share", 1);
    fx_set_calib(m, "bg_timer_slack_ns", 0);
}

#endif
