/* rapl: package power limits, the power control unit's side of RAPL PL1/PL2
 * (FACTS-2.md §8, with the machine's limits from its [rapl] section).
 *
 * What the hardware promises: the package power averaged over the "Turbo Time
 * Parameter" tau stays at or below PL1, and the power over a short window at
 * or below PL2, which "may be exceeded for up to 10 ms" [R1]. The average is
 * "a moving average of energy" [R1]; the SDM says the processor places its
 * time windows with an exponentially weighted algorithm. How the PCU turns
 * that into frequencies is not published, so pmlab uses this small model:
 *
 *   counter   each package integrates its power exactly (hw_pkg_energy_mw_ns,
 *             MSR_PKG_ENERGY_STATUS); the controller reads it at every
 *             evaluation, so no power change between evaluations is missed.
 *   averages  two exponentially weighted averages of the package power,
 *             folded in at each evaluation with the mean power since the
 *             previous one: over tau for PL1, over 10 ms for PL2 (PL2 "may be
 *             exceeded for up to 10 ms" [R1]). Both start at 0: the machine
 *             was idle before the run.
 *   period    one evaluation every 10 ms while the package is not clamped, so
 *             a burst may pass PL2 for up to one such interval, and every
 *             1 ms while it is.
 *   budget    the power the package may draw now. An average with time
 *             constant w moves at (power - avg) / w, so the power
 *             avg + (limit - avg) x w / payback brings it to its limit within
 *             the payback time (5 ms, estimate: a few control periods, short
 *             enough to hold each average at its limit, long enough that the
 *             ceiling loop below settles between corrections; a faster payback
 *             made it oscillate). The budget is the lower of the two limits'.
 *             Far below PL1 the PL2 budget binds (turbo "while there is
 *             budget"); once the PL1 average reaches PL1 the package holds PL1,
 *             and power drawn above a limit is paid back soon after.
 *   ceiling   one frequency ceiling per core type of the package, in 100 MHz
 *             bins. Mean power of the last interval above the budget: every
 *             type's ceiling goes to its current highest frequency times
 *             budget / power, at least one bin down, never below min_mhz.
 *             Power below the budget by more than 3 % (estimate: a little
 *             less than one bin adds at all-core turbo on adl-desktop and
 *             rpl-h, 3.5 %, two bins on skx-2s's flatter curve; the ceiling
 *             then settles between two bins and dithers as the averages
 *             require, rather than every period): the ceiling rises by
 *             the same ratio, at least one bin, and is lifted at max_mhz. A
 *             proportional step in frequency converges because package power
 *             rises slower than f^2.
 *
 * A core then runs at min(what cpufreq/HWP chose, its type's ceiling): the
 * cpufreq layer's choice already includes the turbo limit. The share of time
 * during which the ceiling held some core of a package below that choice is
 * rapl_throttle_pct (what MSR_PKG_PERF_STATUS counts: time below the
 * OS-requested P-state); an idle core's last choice counts too.
 *
 * Left out: PL4 and PL3, the clamp bits (the limits may always go below the
 * OS request, including below base), per-domain limits (PP0, DRAM, psys),
 * thermal throttling, and how the PCU shares the budget between P- and
 * E-cores (here the same ratio). */
#ifndef PMLAB_HW_RAPL_H
#define PMLAB_HW_RAPL_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/cpu.h"
#include "hw/machine.h"
#include "sim/metrics.h"
#include "sim/time.h"

#define HW_RAPL_CLAMPED_EVAL_NS (1 * SIM_NS_PER_MS)  /* control period while clamped */
#define HW_RAPL_FREE_EVAL_NS (10 * SIM_NS_PER_MS)    /* ... and while not: PL2's 10 ms */
#define HW_RAPL_PL2_WINDOW_NS (10 * SIM_NS_PER_MS)   /* [R1]: PL2 may be exceeded for 10 ms */
#define HW_RAPL_PAYBACK_NS (5 * SIM_NS_PER_MS)       /* estimate: budget's payback time */

/* The controller's state for one package. */
struct hw_rapl_pkg {
    double avg_mw;                 /* PL1 average: EWMA of package power over tau */
    double avg2_mw;                /* PL2 average: EWMA over HW_RAPL_PL2_WINDOW_NS */
    double last_mw;                /* mean power of the last evaluation interval */
    double energy_mw_ns;           /* energy counter at the last evaluation */
    sim_time_t last_ns;            /* last evaluation */
    uint32_t ceiling_mhz[HW_MAX_CORE_TYPES]; /* per core type; 0: not limited */
    int nclamped;                  /* cores whose chosen frequency is above the ceiling */
    sim_time_t clamped_since_ns;   /* when nclamped last became non-zero */
    sim_time_t clamped_ns;         /* time with nclamped > 0 since the measurement start */
};

struct hw_rapl {
    const struct hw_machine *m;
    bool enabled;                  /* the machine file has [rapl] */
    struct hw_rapl_pkg *pkg;       /* [packages] */
    uint32_t *want_mhz;            /* [ncores]: what cpufreq/HWP chose, before the ceiling */
    sim_time_t measure_start_ns;
};

/* Set up for machine m, whose cores start at hw's frequencies. Without
 * limits only `enabled` (false) is set and nothing is allocated. */
void hw_rapl_init(struct hw_rapl *r, const struct hw_machine *m, const struct hw_state *hw);
void hw_rapl_destroy(struct hw_rapl *r);

/* Evaluate package pkg at now_ns: fold the energy since the last evaluation
 * into the averages and move the ceilings (see top). Returns true when a
 * ceiling changed: the caller then re-applies want_mhz of the package's cores
 * through hw_rapl_clamp. */
bool hw_rapl_eval(struct hw_rapl *r, const struct hw_state *hw, int pkg, sim_time_t now_ns);
/* When package pkg wants its next evaluation after one at now_ns. */
sim_time_t hw_rapl_next_eval_ns(const struct hw_rapl *r, int pkg, sim_time_t now_ns);

/* The frequency core runs at when cpufreq/HWP chooses want_mhz: want_mhz
 * capped by its package's ceiling for its type. Records the choice and the
 * throttled time. want_mhz itself when the machine has no limits. */
uint32_t hw_rapl_clamp(struct hw_rapl *r, int core, uint32_t want_mhz, sim_time_t now_ns);

/* Start the measurement window at now_ns (throttled time from zero). */
void hw_rapl_measure_reset(struct hw_rapl *r, sim_time_t now_ns);
/* rapl_throttle_pct of the window so far: share of package time during which
 * the ceiling held some core below its chosen frequency (0 without limits). */
void hw_rapl_collect_metrics(const struct hw_rapl *r, sim_time_t now_ns,
                             struct rpt_metric_set *out);

#endif
