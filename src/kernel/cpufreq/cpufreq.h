/* cpufreq: CPU frequency scaling (drivers/cpufreq/), the policy layer that
 * sets each core's frequency in the simulated hardware.
 *
 * As in the kernel there is one driver and, per logical CPU, one policy
 * (intel_pstate and acpi-cpufreq give every CPU its own policy; policy->cpus
 * is that CPU). A driver either has its own algorithms, chosen by the policy
 * field (intel_pstate active: "performance" or "powersave"), or serves the
 * generic governors (performance, powersave, schedutil, ondemand), each an
 * ops struct found by name. FACTS.md §5.
 *
 * A core runs at what its threads' policies resolve to: the highest request
 * of its threads (the hardware honours the most demanding SMT thread), or
 * with HWP the hardware's own choice within the combined request (hw/hwp.h).
 * Every change goes through cpufreq_core_apply(): hw_core_set_mhz() then
 * sched_core_speed_changed() so running work is re-timed.
 *
 * Triggers, without per-millisecond events on idle CPUs: the scheduler calls
 * cpufreq_update_util() at every busy/idle transition of a CPU, like the
 * kernel's hook; a CPU that stays busy gets a lazy per-CPU tick (the
 * scheduler tick, which calls the same hook in the kernel), armed only while
 * it runs and only for governors that sample; HWP cores get a lazy
 * re-evaluation timer while in C0, which lapses while it could not change the
 * frequency and is replayed exactly (intel_pstate.c, "lapsed chains").
 *
 * Package power limits (hw/rapl.h) cap what the policies resolve to: every
 * change passes the package's ceiling in cpufreq_set_core_mhz, and the
 * controller's evaluation timer (power_limit.c) re-applies the package's
 * choices when the ceiling moves.
 *
 * Without a driver (cpufreq.off=1) every core stays at its base frequency,
 * unless a power limit holds it lower. */
#ifndef PMLAB_KERNEL_CPUFREQ_CPUFREQ_H
#define PMLAB_KERNEL_CPUFREQ_CPUFREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hwp.h"
#include "hw/machine.h"
#include "hw/rapl.h"
#include "kernel/params.h"
#include "kernel/sched/pelt.h"
#include "sim/eventq.h"
#include "util/diag.h"

struct world;
struct cpufreq_policy;
struct itmt;

/* The policy field of setpolicy drivers (include/linux/cpufreq.h). */
enum cpufreq_policy_kind {
    CPUFREQ_POLICY_UNKNOWN,
    CPUFREQ_POLICY_POWERSAVE,
    CPUFREQ_POLICY_PERFORMANCE,
};

/* intel_pstate= on the command line (Documentation/admin-guide/pm/intel_pstate.rst). */
enum intel_pstate_opt {
    INTEL_PSTATE_OPT_NONE,      /* not given */
    INTEL_PSTATE_OPT_ACTIVE,
    INTEL_PSTATE_OPT_PASSIVE,
    INTEL_PSTATE_OPT_NO_HWP,
    INTEL_PSTATE_OPT_DISABLE,
};

/* A generic governor: it only decides; the core and the driver act. */
struct cpufreq_governor {
    const char *name;
    size_t data_size;           /* per-policy state the core allocates, zeroed */
    bool needs_util;            /* reads PELT utilisation (pelt.c) */
    bool samples;               /* wants the util hook and the tick while busy */
    bool strict_target;         /* CPUFREQ_GOV_STRICT_TARGET: the target is also the
                                 * maximum (HWP passive may not go above it) */
    /* Start on a policy, and react to a change of its limits. */
    void (*start)(struct world *w, struct cpufreq_policy *p);
    void (*limits)(struct world *w, struct cpufreq_policy *p);
    /* The util hook: p's CPU changed state or ticked at w->q.now_ns. */
    void (*update)(struct world *w, struct cpufreq_policy *p);
};

/* A scaling driver. */
struct cpufreq_driver {
    const char *name;           /* scaling_driver: "intel_pstate", "intel_cpufreq", ... */
    /* What the hardware's own frequency selection is called on this
     * platform when it is on (cpufreq_sys.hwp), as explain shows it: "HWP"
     * on Intel, CPPC's autonomous selection on AMD (amd-pstate's active and
     * guided modes); NULL: "HWP". */
    const char *autonomous;
    bool setpolicy;             /* own algorithms chosen by the policy field */
    sim_time_t transition_latency_ns; /* cpuinfo_transition_latency */
    sim_time_t transition_delay_ns;   /* transition_delay_us, 0 when unset */
    /* setpolicy drivers: apply the policy field and limits. */
    void (*set_policy)(struct world *w, struct cpufreq_policy *p);
    /* setpolicy drivers: the util hook (NULL when the hardware decides). */
    void (*update_util)(struct world *w, struct cpufreq_policy *p);
    /* target drivers: request khz (already within the policy limits). */
    void (*target)(struct world *w, struct cpufreq_policy *p, uint32_t khz);
};

struct cpufreq_policy {
    int cpu;
    int core;
    uint32_t cpuinfo_min_khz, cpuinfo_max_khz, base_khz;
    uint32_t min_khz, max_khz;  /* scaling_min_freq, scaling_max_freq */
    uint32_t cur_khz;           /* what the driver last asked for */
    const uint32_t *opp_mhz;    /* the core type's OPP table (Arm), ascending; NULL: 100 MHz
                                 * ratios */
    int nopp;
    enum cpufreq_policy_kind policy;           /* setpolicy drivers */
    const struct cpufreq_governor *gov;        /* target drivers */
    void *gov_data;
    int epp;                    /* energy_performance_preference (HWP) */
    struct hwp_request hwp_req; /* this CPU's HWP request (HWP only) */
    sim_time_t last_sample_ns;  /* intel_pstate without HWP: last sample */
    sim_time_t sample_c0_ns;    /* ... and the CPU's C0 counter then */
    struct sim_event tick_ev;   /* the scheduler tick while busy (sampling governors) */
};

/* Per-CPU utilisation tracking (pelt.c): the CPU's util_avg on its
 * frequency-invariant PELT clock (rq->clock_pelt). */
struct pelt_cpu {
    struct sched_avg avg;       /* util_avg 0..PELT_SCALE (kernel/sched/pelt.h) */
    struct pelt_clock clock;    /* rq->clock_pelt at f/fmax (kernel/sched/pelt.h) */
    sim_time_t busy_ns;         /* total time running a task */
    bool running;
};

#define PELT_SCALE 1024.0       /* SCHED_CAPACITY_SCALE */

struct cpufreq_hwp_core {
    struct hwp_core hc;         /* the hardware's control-loop state */
    struct sim_event eval_ev;   /* next re-evaluation while in C0 */
    /* The core's combined request (hwp_core_request of its threads' written
     * requests; nreq 0 until one is written), kept when a thread's request
     * is written so that an evaluation reads no per-CPU policy. */
    struct hwp_request req;
    int nreq;
    /* hwp_saturated_mhz(req) without a turbo limit and at sat_limit_mhz
     * (0: not computed since req last changed), so a core whose filter is
     * saturated does not redo the arithmetic at every evaluation. */
    uint32_t sat_nolimit_mhz, sat_limit_mhz, sat_mhz;
    /* Lapsed: the evaluations at hc.last_ns + k x eval_ns are not queued but
     * known to change nothing but the filter (intel_pstate.c, "lapsed
     * chains"), and are replayed when the core's state may change. */
    bool lapsed;
    bool lapse_on_count;   /* ... relying on the run count of its package */
    bool running;          /* a thread ran a task at the core's last look */
};

struct cpufreq_sys {
    bool active;                /* a cpufreq driver is registered */
    const struct cpufreq_driver *driver;
    bool hwp;                   /* HWP enabled (intel_pstate with HWP) */
    bool util_hook;             /* something consumes cpufreq_update_util() */
    bool track_util;            /* PELT is maintained */
    sim_time_t tick_ns;         /* scheduler tick period */
    struct cpufreq_policy *policy;     /* [ncpus] */
    unsigned char *gov_data;           /* [ncpus * max governor data_size] */
    size_t gov_data_stride;
    struct pelt_cpu *pelt;             /* [ncpus] */
    /* [ncores]: a change that arrived while a thread's task was being
     * started (its segment not yet timed) is applied by this event at the
     * same instant, after the start completes. */
    struct sim_event *apply_ev;
    uint32_t *apply_mhz;
    struct hwp_params hwp_prm;
    struct cpufreq_hwp_core *hwp_core; /* [ncores] when hwp */
    /* [packages x ntypes] when hwp: cores of the package and type whose
     * running flag is set, a lower bound on the active cores there. */
    int *hwp_running_cores;
    /* The HWP evaluation being handled (its time and core), for a replay at
     * the same instant: evaluations fire last in an instant, by core. */
    sim_time_t hwp_pos_ns;
    int hwp_pos_core;
    struct hw_rapl rapl;               /* package power limits (power_limit.c) */
    struct sim_event *rapl_ev;         /* [packages] when limited: next evaluation */
};

/* ---- for the scenario loader and the world -------------------------------- */

/* Check a variant's cpufreq settings against what its kernel builds on m:
 * a scaling_governor the driver does not offer, EPP writes without HWP or
 * under active performance. Returns 0, or -1 with d = "file:line: ..." and
 * what the sysfs write would return. */
int cpufreq_validate(const struct hw_machine *m, const struct kparams *kp, const char *file,
                     struct diag *d);

void cpufreq_init(struct world *w);
void cpufreq_destroy(struct world *w);
/* cpu started running a task or went idle at w->q.now_ns. */
void cpufreq_update_util(struct world *w, int cpu);
/* Whether cpu's policy is "powersave" in the sense of the kernel's policy
 * field: intel_pstate active powersave, or the generic powersave governor. */
bool cpufreq_cpu_is_powersave(const struct world *w, int cpu);
/* Switch cpu's governor at run time, as a write to scaling_governor: 0, or -1
 * (the write's EINVAL) when the driver does not offer it. */
int cpufreq_set_governor(struct world *w, int cpu, const char *name);
/* The name shown in scaling_governor for cpu ("" without a driver). */
const char *cpufreq_governor_name(const struct world *w, int cpu);

/* What a variant's cpufreq settings resolve to, for `pmlab explain`
 * (report/explain_cpufreq.c prints it): the scaling driver, HWP, and per CPU
 * what its cpufreq sysfs files read. */
struct cpufreq_explain_cpu {
    const char *governor;       /* scaling_governor (the policy, for a setpolicy driver) */
    uint32_t min_khz, max_khz;  /* scaling_min_freq, scaling_max_freq */
    uint32_t cpuinfo_min_khz, cpuinfo_max_khz;
    int epp;                    /* the EPP of the HWP request the model uses, with HWP */
    bool epp_pinned;            /* the performance policy pins it to 0, whatever the
                                 * energy_performance_preference setting [F4] */
};
struct cpufreq_explain {
    const char *driver;         /* NULL: no driver, every core at its base frequency */
    bool hwp;
    const char *autonomous;     /* the driver's name for it (cpufreq_driver.autonomous) */
    int ncpus;
    struct cpufreq_explain_cpu *cpu; /* [ncpus], with a driver */
};
/* Fill e for kp on m from a world set up exactly as a run sets it up, so
 * explain cannot disagree with what runs (cpu allocated; free with
 * cpufreq_explain_free). */
void cpufreq_explain(const struct hw_machine *m, const struct kparams *kp,
                     struct cpufreq_explain *e);
void cpufreq_explain_free(struct cpufreq_explain *e);

/* ---- for governors and drivers --------------------------------------------- */

/* Registry of generic governors, by name; NULL if unknown. */
const struct cpufreq_governor *cpufreq_find_governor(const char *name);
extern const struct cpufreq_governor cpufreq_gov_performance;
extern const struct cpufreq_governor cpufreq_gov_powersave;
extern const struct cpufreq_governor cpufreq_gov_schedutil;
extern const struct cpufreq_governor cpufreq_gov_ondemand;

/* __cpufreq_driver_target: clamp khz to p's limits and hand it to the driver. */
void cpufreq_driver_target(struct world *w, struct cpufreq_policy *p, uint32_t khz);
/* Resolve core's frequency from its threads' requests and set it (see top). */
void cpufreq_core_apply(struct world *w, int core);
/* Run core at want_mhz, or at its package's power-limit ceiling when that is
 * lower: PELT folded first, then hw, then the scheduler re-times running
 * work. No-op when unchanged. */
void cpufreq_set_core_mhz(struct world *w, int core, uint32_t want_mhz);
/* Arm cpu's tick if it is busy and the tick is not pending. */
void cpufreq_tick_arm(struct world *w, int cpu);
/* A nohz_full CPU's tick restarts (a second task): its util hook's tick
 * comes one period from now again. */
void cpufreq_tick_restart(struct world *w, int cpu);
/* Lowest frequency of the table at or above khz, within the policy's
 * limits: the OPP table when the policy has one (cpufreq_driver_resolve_freq,
 * CPUFREQ_RELATION_L: the highest valid OPP when none is at or above), else
 * 100 MHz steps. */
uint32_t cpufreq_resolve_khz(const struct cpufreq_policy *p, uint32_t khz);
/* The schedutil rate limit for the registered driver and kernel (FACTS.md §5 [F3]). */
sim_time_t cpufreq_rate_limit_ns(const struct cpufreq_driver *drv, const struct kversion *k);

/* intel_pstate.c: pick the driver for machine m and kernel settings kp (NULL
 * without one, *hwp set when HWP is enabled), and the governors it offers. */
const struct cpufreq_driver *intel_pstate_probe(const struct hw_machine *m,
                                                const struct kparams *kp, bool *hwp);
/* The target hook intel_cpufreq and acpi-cpufreq share: with HWP (or CPPC
 * autonomy) the target is the request's minimum and the policy max its
 * maximum; without, the P-state itself. */
void intel_cpufreq_target(struct world *w, struct cpufreq_policy *p, uint32_t khz);
/* acpi-cpufreq (drivers/cpufreq/acpi-cpufreq.c): the _PSS P-states, on Intel
 * with intel_pstate=disable and on AMD when amd-pstate does not load. */
extern const struct cpufreq_driver acpi_cpufreq_driver;

/* amd_pstate.c: amd-pstate on AMD/Hygon machines (NULL when it does not
 * load; *hwp set when the platform chooses the frequency: active, guided). */
const struct cpufreq_driver *amd_pstate_probe(const struct hw_machine *m,
                                              const struct kparams *kp, bool *hwp);
/* amd-pstate preferred core (v6.9+): each CPU's CPPC highest performance as
 * its ITMT priority and ITMT support, unless amd_prefcore=disable or the
 * firmware ranks no cores; it->why says why not. Called when amd-pstate
 * (any mode) is the driver. */
void amd_pstate_prefcore_init(const struct hw_machine *m, const struct kparams *kp,
                              struct itmt *it);
/* scpi_cpufreq.c: scpi-cpufreq on Arm machines whose core types give an
 * OPP table (NULL otherwise). */
const struct cpufreq_driver *scpi_cpufreq_probe(const struct hw_machine *m);
/* The driver the kernel ends up with on m (intel_pstate, amd-pstate, else
 * acpi-cpufreq on any x86; scpi-cpufreq on Arm, none without OPPs), NULL
 * with cpufreq.off; *hwp as above. */
const struct cpufreq_driver *cpufreq_probe_driver(const struct hw_machine *m,
                                                  const struct kparams *kp, bool *hwp);

/* ITMT priorities of every CPU of m for kp, and support when they differ
 * (intel_pstate_set_itmt_prio); hwp as intel_pstate_probe set it. */
void intel_pstate_itmt_init(const struct hw_machine *m, const struct kparams *kp, bool hwp,
                            struct itmt *it);
/* HWP_CAPABILITIES highest performance of cpu (max_mhz / 100 when the
 * machine file gives none). */
uint32_t intel_pstate_hwp_highest_perf(const struct hw_machine *m, int cpu);
/* hybrid_init_cpu_capacity_scaling (v6.12): on a hybrid part without SMT
 * with intel_pstate and HWP, set capacity[cpu] to SCHED_CAPACITY_SCALE x its
 * HWP highest performance / the highest of all, and return true (ITMT is then
 * not used); otherwise leave capacity alone and return false. */
bool intel_pstate_hybrid_capacity(const struct hw_machine *m, const struct kparams *kp,
                                  unsigned long *capacity);
/* HWP request of p from its policy and limits, then re-evaluate the core. */
void intel_pstate_hwp_update_request(struct world *w, struct cpufreq_policy *p);
/* HWP: the hardware samples core at now (a transition or its timer). */
void intel_pstate_hwp_eval(struct world *w, int core, bool force);
void intel_pstate_hwp_timer(struct sim_event *ev, void *arg);
/* A thread of core went busy or idle (cpufreq_update_util) / the measurement
 * window restarts: lapsed evaluations are replayed where they must be. */
void intel_pstate_hwp_track(struct world *w, int core);
void intel_pstate_hwp_measure_reset(struct world *w);

/* power_limit.c: start the power-limit controller's evaluations (nothing
 * when the machine has no limits), and stop them. */
void cpufreq_power_limit_init(struct world *w);
void cpufreq_power_limit_destroy(struct world *w);

/* pelt.c */
void pelt_init(struct pelt_cpu *pc, sim_time_t now_ns);
/* Fold the time since the last update at cpu's current state and frequency. */
void pelt_sync(struct world *w, int cpu);
/* pelt_sync, then take the CPU's new state from the scheduler. */
void pelt_update(struct world *w, int cpu);
/* f/fmax of cpu's core now, in 1024ths, at most 1024 (arch_scale_freq_capacity). */
unsigned arch_scale_freq_capacity(const struct world *w, int cpu);

#endif
