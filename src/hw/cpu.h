/* cpu: the physical state of every hardware thread, core and package during a
 * run, the execution speed it implies and the energy it draws.
 *
 * A thread is running, polling, idle in a hardware C-state, or waking (the
 * exit latency of the state it left). A core is in the shallowest state of its
 * threads: active if any thread is awake, otherwise the shallowest C-state any
 * of them requested; a package is in the deepest package state whose core
 * C-state every one of its cores has reached, else active (DESIGN.md §3).
 *
 * Cluster states (Arm, a [cstate] with domain = cluster): PSCI platform
 * coordination, the mode of a device tree that lists the cluster state in
 * each CPU's cpu-idle-states (Juno r0; Arm PSCI spec DEN0022, "platform
 * coordinated" mode, and the idle-states binding): a CPU that asks for a
 * cluster state votes for it; the firmware powers the cluster (the CPUs of
 * its l2_groups group) down only when every core of it has voted, and until
 * then puts the core in the deepest core (domain = cpu) state below the one
 * it asked for. The kernel still counts the state it asked for; the core's
 * power, exit latency and refill follow the state it is really in. With
 * several cluster states the votes are not reconciled to the shallowest
 * (each core keeps its own): Juno has one.
 *
 * Speed of a running thread, relative to the reference (core type 0 at its
 * base frequency, running alone):
 *     ipc_factor(type) x f(type) / f_ref
 *     x smt_corun_factor   if the sibling runs,
 *     x smt_poll_factor    if the sibling polls,
 *     x ibrs_sibling_factor if the sibling sits in the kernel (idle, polling or
 *                           waking) with legacy IBRS still set: the control is
 *                           per core, so it slows the busy thread too (FACTS.md §7).
 * Power of a core: its C-state's when all threads idle; active power at its
 * frequency when a thread runs; a share of it (poll_power_ratio) when the
 * awake threads only spin; while the awake threads are still in their
 * hardware exit, the power of the state being left plus the ramp towards its
 * shallowest C-state's (exit_ramp_ratio, an estimate, see cpu.c). A package
 * leaving a package state draws likewise that state's power plus the ramp
 * towards PC0 until one of its cores runs or polls. Software on the
 * wake-up path (interrupt entry, context switch) runs as RUN: busy and at
 * active power.
 * Energy is integrated exactly at every change of power (piecewise constant),
 * so it does not depend on any sampling period. */
#ifndef PMLAB_HW_CPU_H
#define PMLAB_HW_CPU_H

#include <math.h>
#include <stdbool.h>

#include "hw/machine.h"
#include "sim/metrics.h"
#include "sim/time.h"

enum hw_thread_mode {
    HW_THREAD_RUN,    /* executing work */
    HW_THREAD_POLL,   /* spinning in the idle loop (idle=poll, POLL state, KVM halt polling) */
    HW_THREAD_IDLE,   /* in hardware C-state `cstate` */
    HW_THREAD_WAKE,   /* leaving C-state `cstate`: the hardware exit latency */
};

struct hw_thread {
    enum hw_thread_mode mode;
    int cstate;                       /* index into its type's cstates while IDLE/WAKE */
    bool ibrs_set;                    /* in the kernel with legacy IBRS set (idle paths) */
    sim_time_t since_ns;              /* when the current mode began */
    /* Time accounting since the start of the measurement window, ns. */
    sim_time_t run_ns, poll_ns, wake_ns;
    sim_time_t cstate_ns[HW_MAX_CSTATES];
    double c0_mhz_ns;                 /* integral of core MHz over RUN+POLL time */
};

/* Dynamic state of a core; its topology is the machine's struct hw_core. */
struct hw_core_state {
    int cstate;                       /* core C-state index, -1 when active: the state it
                                       * is in (a cluster state only when its cluster is) */
    bool cluster_vote;                /* its threads all ask for a cluster state */
    sim_time_t since_ns;
    sim_time_t cstate_ns[HW_MAX_CSTATES]; /* core residency (turbostat CPU%cN) */
    double power_mw;                  /* current core power */
    int exit_from;                    /* the C-state it left last (-1: none): what an exit
                                       * draws (hw_exit_power_mw) */
    uint32_t active_mhz;              /* frequency active_mw was computed for (0: none) */
    double active_mw;                 /* active power at active_mhz */
    /* Its threads by mode, kept by hw_thread_set_mode so that the core's
     * state and power do not read every sibling on each change (the
     * invariant build recounts them): */
    int nawake;                       /* threads not IDLE (RUN, POLL or WAKE) */
    int nrun;                         /* threads in RUN */
    int npoll;                        /* threads in POLL */
};

struct hw_pkg_state {
    int pkgstate;                     /* index into machine pkgstates, -1 when active */
    int exit_from;                    /* package state being left, -1 once a core runs */
    int ncores_c0;                    /* cores with a thread running or polling */
    /* The deepest package state the platform allows now (index; npkgstates
     * - 1 = no limit): a device's latency tolerance or DMA holds the package
     * shallower whatever its cores do (hw_pkg_set_depth_limit). */
    int depth_limit;
    sim_time_t since_ns;
    sim_time_t pkgstate_ns[HW_MAX_PKGSTATES];
    double power_mw;                  /* uncore/package power now */
    /* The package's energy counter (MSR_PKG_ENERGY_STATUS): its cores and
     * uncore, integrated from time 0 and never reset. */
    double total_mw;                  /* cores + uncore of this package now */
    double energy_mw_ns;              /* up to energy_since_ns */
    sim_time_t energy_since_ns;
};

struct hw_state {
    const struct hw_machine *m;
    /* The threads host-wide thread metrics cover (busy_pct, avg_mhz ...):
     * NULL every one; the online ones when SMT is off (turbostat lists
     * online CPUs only). */
    const bool *online;
    struct hw_thread *thr;            /* [ncpus] */
    struct hw_core_state *core;       /* [ncores] */
    struct hw_pkg_state *pkg;         /* [packages] */
    uint32_t *core_mhz;               /* [ncores] current frequency of each core */
    /* [ntypes][npkgstates]: the core C-state index each package state needs. */
    int *pkg_core_cstate;
    /* Kept as cores change state, so no event scans the machine: */
    int *pkg_type_active;             /* [packages][ntypes] cores in C0 (turbo bins) */
    int *pkg_ncores;                  /* [packages] cores in the package */
    int *pkg_cores_ready;             /* [packages][HW_MAX_PKGSTATES] cores whose
                                         C-state allows each package state */
    bool cluster_states;              /* some core type has a domain = cluster state */
    bool pkgstates_nested;            /* every core that allows a package state
                                         allows each shallower one (see cpu.c) */
    /* [ntypes]: a busy core's power by frequency, [t][mhz - min_mhz] for
     * every MHz of type t's range, hw_core_active_power_mw's values
     * tabulated once per run (it takes two logs and a pow); NULL for a range
     * too wide to tabulate, which calls the function instead. */
    double **active_mw_by_mhz;
    double smt_corun_factor, smt_poll_factor, ibrs_sibling_factor; /* calibration */
    double poll_power_ratio;  /* calibration: PAUSE-loop core power / active power */
    double exit_ramp_ratio;   /* calibration: an exit's power, see hw_exit_power_mw */
    double power_mw;                  /* all cores + all packages, mW */
    double core_power_mw;             /* all cores, mW */
    sim_time_t power_since_ns;        /* last change of power */
    double energy_mw_ns, core_energy_mw_ns; /* integrals since measure start */
    sim_time_t measure_start_ns;
};

void hw_state_init(struct hw_state *hw, const struct hw_machine *m);
void hw_state_destroy(struct hw_state *hw);

/* Change cpu's mode at now_ns (cstate is used for IDLE and WAKE). Accounts the
 * time of the mode it leaves and updates its core's and package's state and
 * power. */
void hw_thread_set_mode(struct hw_state *hw, int cpu, enum hw_thread_mode mode, int cstate,
                        sim_time_t now_ns);
/* Set core's frequency at now_ns (accounting the time at the old one). The
 * caller re-times running work (sched_core_speed_changed). */
void hw_core_set_mhz(struct hw_state *hw, int core, uint32_t mhz, sim_time_t now_ns);
/* Hold package pkg no deeper than package state `deepest` (an index into the
 * machine's pkgstates; npkgstates - 1 or more lifts the limit) from now_ns:
 * the platform's grant, which device activity (LTR, DMA) limits on Intel
 * client parts (12th Gen Core datasheet vol. 1, "Package C-States": a
 * package state is resolved from the cores' requests and "the status of the
 * platform components"). */
void hw_pkg_set_depth_limit(struct hw_state *hw, int pkg, int deepest, sim_time_t now_ns);
/* The package's energy counter at now_ns: mW x ns since time 0. */
double hw_pkg_energy_mw_ns(const struct hw_state *hw, int package, sim_time_t now_ns);
/* Busy (C0) cores of the given core type in a package: what that type's
 * turbo limit depends on. */
static inline int hw_pkg_active_cores(const struct hw_state *hw, int package, int type)
{
    return hw->pkg_type_active[package * hw->m->ntypes + type];
}
/* The highest frequency core may run at with the package's active cores now
 * (turbo_mhz bins, counting active cores of its type; max_mhz when the file
 * has none). */
uint32_t hw_core_turbo_limit_mhz(const struct hw_state *hw, int core);
/* Whether cpu, while not running, keeps legacy IBRS set (see top). */
void hw_thread_set_ibrs(struct hw_state *hw, int cpu, bool ibrs_set);
/* The first SMT sibling of cpu (the other thread on a 2-thread core), or
 * -1 when its core has one thread. Inline: asked on nearly every event. */
static inline int hw_thread_sibling(const struct hw_state *hw, int cpu)
{
    const struct hw_core *core = &hw->m->cores[hw->m->cpus[cpu].core];
    if (core->nthreads < 2)
        return -1;
    return core->cpus[0] == cpu ? core->cpus[1] : core->cpus[0];
}

/* What a sibling that is not running does to the busy thread's speed. */
static inline double hw_sibling_factor(const struct hw_state *hw, const struct hw_thread *sib)
{
    double f = 1.0;
    if (sib->mode == HW_THREAD_POLL)
        f *= hw->smt_poll_factor;
    if (sib->ibrs_set)
        f *= hw->ibrs_sibling_factor;
    return f;
}

/* What cpu's siblings do to its speed: each one not running by its state
 * (hw_sibling_factor), and n threads running together (cpu among them) each
 * at smt_corun_factor per doubling of n: the calibrated 2-thread factor, and
 * for 4 and 8 threads (estimate, no measurement behind it) the same loss
 * again per doubling, so the core's total keeps growing but ever less
 * (0.62: 1.24x for 2 threads, 1.54x for 4, 1.91x for 8). */
static inline double hw_siblings_factor(const struct hw_state *hw, int cpu)
{
    const struct hw_core *core = &hw->m->cores[hw->m->cpus[cpu].core];
    double f = 1.0;
    int running = 1;
    for (int i = 0; i < core->nthreads; i++) {
        if (core->cpus[i] == cpu)
            continue;
        const struct hw_thread *sib = &hw->thr[core->cpus[i]];
        if (sib->mode == HW_THREAD_RUN)
            running++;
        else
            f *= hw_sibling_factor(hw, sib);
    }
    if (running == 2)
        return hw->smt_corun_factor * f;
    return running > 2 ? pow(hw->smt_corun_factor, log2(running)) * f : f;
}

/* Current speed of cpu relative to the reference (see top of file). */
static inline double hw_thread_speed(const struct hw_state *hw, int cpu)
{
    const struct hw_machine *m = hw->m;
    int type = m->cpus[cpu].type;
    const struct hw_core_type *t = &m->types[type];
    double speed = t->ipc_factor / m->types[0].ipc_factor *
                   (double)hw->core_mhz[m->cpus[cpu].core] / (double)m->types[0].base_mhz;
    if (m->cores[m->cpus[cpu].core].nthreads > 1)
        speed *= hw_siblings_factor(hw, cpu);
    return speed;
}
/* Exit latency of the C-state cpu is in, including its package state's, ns
 * (0 if awake). With cluster states, the state its core is really in. */
sim_time_t hw_thread_exit_latency_ns(const struct hw_state *hw, int cpu);
/* Cache/TLB refill cost after leaving cpu's C-state, ns of reference work. */
sim_time_t hw_thread_refill_ns(const struct hw_state *hw, int cpu);
/* Index of the hardware C-state of cpu's core type entered by MWAIT hint, or
 * -1 when the machine has none with that hint. */
int hw_cstate_by_hint(const struct hw_state *hw, int cpu, uint32_t mwait_hint);

/* Start the measurement window at now_ns: zero every accumulator. */
void hw_measure_reset(struct hw_state *hw, sim_time_t now_ns);
/* Add the window's machine metrics (pkg_watts, core_watts, busy_pct, poll_pct,
 * avg_mhz, bzy_mhz, core_residency.<state>, pkg_residency.<state>) to out. */
void hw_collect_metrics(struct hw_state *hw, sim_time_t now_ns, struct rpt_metric_set *out);
/* The per-thread ones of those (busy_pct, poll_pct, avg_mhz, bzy_mhz) over
 * the CPUs of sc, under sc's names; hw_collect_metrics reports them for
 * every CPU (package and core quantities are not per CPU). */
void hw_collect_cpu_metrics(struct hw_state *hw, sim_time_t now_ns,
                            const struct rpt_cpu_scope *sc, struct rpt_metric_set *out);
/* residency.<hw state>: the share of the time of sc's CPUs that they spent
 * requesting each hardware C-state; what the idle layer reports when no
 * cpuidle driver has states of its own (default_idle). Call after
 * hw_collect_metrics or hw_collect_cpu_metrics. */
void hw_collect_thread_residency(const struct hw_state *hw, sim_time_t now_ns,
                                 const struct rpt_cpu_scope *sc, struct rpt_metric_set *out);

#endif
