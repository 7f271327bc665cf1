/* cpu: the physical state of every hardware thread and core during a run,
 * the execution speed it implies and the energy it draws.
 *
 * A thread is running, polling, idle in a hardware C-state, or waking (the
 * exit latency of the state it left). A core is in the shallowest state of its
 * threads: active if any thread is awake, otherwise the shallowest C-state any
 * of them requested (DESIGN.md §3). Speed of a running thread, relative to the
 * reference (core type 0 at its base frequency, running alone):
 *     ipc_factor(type) x f(type) / f_ref x (smt_corun_factor if the sibling is
 *     running, smt_poll_factor if it is polling, else 1).
 * Energy is integrated exactly at every change of a core's power (piecewise
 * constant power), so it is independent of any sampling period. */
#ifndef PMLAB_HW_CPU_H
#define PMLAB_HW_CPU_H

#include <stdbool.h>

#include "hw/machine.h"
#include "report/results.h"
#include "sim/time.h"

enum hw_thread_mode {
    HW_THREAD_RUN,    /* executing work */
    HW_THREAD_POLL,   /* spinning in the idle loop (idle=poll, POLL state, KVM halt polling) */
    HW_THREAD_IDLE,   /* in hardware C-state `cstate` */
    HW_THREAD_WAKE,   /* leaving C-state `cstate`: exit latency */
};

struct hw_thread {
    enum hw_thread_mode mode;
    int cstate;                       /* index into its type's cstates while IDLE/WAKE */
    sim_time_t since_ns;              /* when the current mode began */
    /* Time accounting since the start of the measurement window, ns. */
    sim_time_t run_ns, poll_ns, wake_ns;
    sim_time_t cstate_ns[HW_MAX_CSTATES];
};

/* Dynamic state of a core; its topology is the machine's struct hw_core. */
struct hw_core_state {
    double power_mw;                  /* current core power */
};

struct hw_state {
    const struct hw_machine *m;
    struct hw_thread *thr;            /* [ncpus] */
    struct hw_core_state *core;       /* [ncores] */
    uint32_t *freq_mhz;               /* [ntypes] current frequency of each core type */
    double smt_corun_factor;          /* from the machine's calibration */
    double smt_poll_factor;
    double core_power_mw;             /* sum of core power, mW */
    sim_time_t power_since_ns;        /* last change of core_power_mw */
    double core_energy_mw_ns;         /* integral of core_power_mw, since measure start */
    sim_time_t measure_start_ns;
};

void hw_state_init(struct hw_state *hw, const struct hw_machine *m);
void hw_state_destroy(struct hw_state *hw);

/* Change cpu's mode at now_ns (cstate is used for IDLE and WAKE). Accounts the
 * time of the mode it leaves and updates its core's power. */
void hw_thread_set_mode(struct hw_state *hw, int cpu, enum hw_thread_mode mode, int cstate,
                        sim_time_t now_ns);
/* Current speed of cpu relative to the reference (see top of file). */
double hw_thread_speed(const struct hw_state *hw, int cpu);
/* The SMT sibling of cpu, or -1 when its core has one thread. */
int hw_thread_sibling(const struct hw_state *hw, int cpu);
/* Exit latency of the C-state cpu is in (0 if awake), ns. */
sim_time_t hw_thread_exit_latency_ns(const struct hw_state *hw, int cpu);
/* Cache/TLB refill cost after leaving cpu's C-state, ns of reference work. */
sim_time_t hw_thread_refill_ns(const struct hw_state *hw, int cpu);

/* Start the measurement window at now_ns: zero every accumulator. */
void hw_measure_reset(struct hw_state *hw, sim_time_t now_ns);
/* Add the window's machine metrics (pkg_watts, core_watts, busy_pct, poll_pct,
 * avg_mhz, residency.<state>) to out. */
void hw_collect_metrics(struct hw_state *hw, sim_time_t now_ns, struct rpt_metric_set *out);

#endif
