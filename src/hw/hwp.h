/* hwp: the hardware side of Intel HWP (Hardware P-states, "Speed Shift"):
 * how a core picks its own frequency within the range the OS requests.
 *
 * The OS writes IA32_HWP_REQUEST per logical CPU: minimum, maximum and
 * desired performance and an energy-performance preference (EPP, 0 = favour
 * performance ... 255 = favour energy), FACTS.md §5 [F4, F5]. How the power
 * control unit turns that and the load into a frequency is not documented,
 * so pmlab uses a small explicit model with its constants in the machine
 * file's [calibration] (all estimates):
 *
 *   busy   = the core's C0 share (any thread running or polling), filtered
 *            exponentially with time constant hwp_window_us: what an activity
 *            window of a few ms sees. Polling counts: to the hardware a
 *            spinning thread is load.
 *   ceil   = the highest frequency the EPP allows: the request's maximum
 *            (and the turbo limit for the active cores) up to EPP 0x80
 *            (balance_performance), falling linearly to
 *            hwp_epp255_ceiling_ratio x base at EPP 255.
 *   sat    = hwp_busy_full x EPP/255: the busy share at which the core
 *            reaches ceil. EPP 0 races to ceil at any load.
 *   f      = min + (ceil - min) x min(1, busy / sat), rounded up to the
 *            100 MHz ratio step and clamped to [min, ceil].
 * So f never rises with EPP and never falls with load. The hardware
 * re-evaluates every hwp_eval_us while the core is in C0 (and whenever the
 * OS touches the core); an idle core keeps its last choice.
 *
 * A non-zero desired performance turns autonomous selection off: the core
 * runs at the desired level, clamped to [min, max] and the turbo limit.
 *
 * The SMT threads of a core each have a request; the core honours the most
 * demanding: the highest minimum, maximum and desired level, the lowest EPP. */
#ifndef PMLAB_HW_HWP_H
#define PMLAB_HW_HWP_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/cpu.h"
#include "hw/machine.h"
#include "sim/time.h"

/* What one logical CPU asks for (IA32_HWP_REQUEST), in MHz. */
struct hwp_request {
    uint32_t min_mhz, max_mhz;
    uint32_t desired_mhz;     /* 0: autonomous; else the core runs there (within
                               * min, max and the turbo limit), EPP and load aside */
    int epp;                  /* 0..255 */
};

/* Model constants, from the machine's [calibration]. */
struct hwp_params {
    double window_ns;         /* hwp_window_us: busy filter time constant */
    sim_time_t eval_ns;       /* hwp_eval_us: re-evaluation period in C0 */
    double busy_full;         /* hwp_busy_full: busy share reaching ceil at EPP 255 */
    double epp255_ceiling_ratio; /* hwp_epp255_ceiling_ratio: ceil at EPP 255 / base */
    double eval_keep;         /* the filter's weight on the old value after one
                                 eval_ns period (the usual interval), computed once */
};

/* Per-core hardware state of the control loop. */
struct hwp_core {
    double busy_avg;          /* filtered C0 share, 0..1 */
    sim_time_t last_ns;       /* last evaluation */
    sim_time_t c0_last_ns;    /* the core's C0 counter then */
    sim_time_t epoch_ns;      /* hw measure_start_ns the counter was read in */
};

void hwp_params_init(struct hwp_params *prm, const struct hw_machine *m);

/* The core's C0 time counter (like APERF/MPERF without the clock): ns the
 * core spent awake since hw's measurement start, up to now_ns. */
sim_time_t hwp_core_c0_ns(const struct hw_state *hw, int core, sim_time_t now_ns);
/* One logical CPU's time running or polling since hw's measurement start (its
 * MPERF, in ns), up to now_ns. */
sim_time_t hwp_thread_c0_ns(const struct hw_state *hw, int cpu, sim_time_t now_ns);

/* Fold the core's C0 share since the last call into hc->busy_avg. */
void hwp_core_sample(struct hwp_core *hc, const struct hwp_params *prm,
                     const struct hw_state *hw, int core, sim_time_t now_ns);

/* hwp_core_sample at now_ns for a core that stayed in C0 from the last sample
 * to now_ns, with no measurement restart in between: the same result, bit for
 * bit, from the elapsed time alone (the counters may have moved on since
 * now_ns). For evaluations replayed after the fact. */
void hwp_core_sample_c0(struct hwp_core *hc, const struct hwp_params *prm, sim_time_t now_ns);
/* Whether hc->busy_avg is saturated under r (hwp_busy_saturated) and stays so
 * through any number of further samples of eval_ns each in C0. */
bool hwp_busy_stays_saturated(const struct hwp_core *hc, const struct hwp_params *prm,
                              const struct hwp_request *r);

/* The combined request of a core's threads (see top). */
struct hwp_request hwp_core_request(const struct hwp_request *thread_req, int nthreads);

/* The frequency the hardware picks for a core of type t with filtered busy
 * share busy under request r, with turbo_limit_mhz the highest frequency the
 * active cores allow. Pure: the model of the file's comment. */
uint32_t hwp_select_mhz(const struct hwp_params *prm, const struct hw_core_type *t,
                        double busy, const struct hwp_request *r, uint32_t turbo_limit_mhz);

/* Whether busy is at or past the saturation share of request r (sat above):
 * then hwp_select_mhz's answer no longer depends on busy and equals
 * hwp_saturated_mhz(). */
bool hwp_busy_saturated(const struct hwp_params *prm, double busy, const struct hwp_request *r);
/* hwp_select_mhz at a saturated busy share (the same arithmetic, bit for bit). */
uint32_t hwp_saturated_mhz(const struct hwp_params *prm, const struct hw_core_type *t,
                           const struct hwp_request *r, uint32_t turbo_limit_mhz);

/* Round mhz up to the 100 MHz ratio step. */
uint32_t hwp_ratio_round_up(uint32_t mhz);

#endif
