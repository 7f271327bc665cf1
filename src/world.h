/* world: everything one simulation run owns.
 *
 * There is no global mutable state in pmlab: a run is a struct world built
 * from an immutable machine, a variant's kernel settings and a seed, so runs go
 * in parallel on the thread pool and each is a pure function of
 * (scenario, variant, replication, load point). */
#ifndef PMLAB_WORLD_H
#define PMLAB_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/cpu.h"
#include "hw/device.h"
#include "hw/machine.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/irq/wakeup_chain.h"
#include "kernel/kvm/kvm.h"
#include "kernel/params.h"
#include "kernel/rcu/tree.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/isolation_run.h"
#include "kernel/sched/sched.h"
#include "sim/eventq.h"
#include "sim/rng.h"
#include "trace/record.h"

/* Random streams of a run, one per purpose so that changing how one part
 * draws does not shift the others.
 *
 * Common random numbers (Law & Kelton, "Simulation Modeling and Analysis",
 * 5th ed., section 11.2): everything the workload draws comes from streams
 * keyed without the variant (world_stream_common), so replication r of
 * every variant is offered the same work -- the same arrivals, service
 * demands, device and network latencies, interrupt CPUs and background
 * activity -- and the variants' difference in replication r is a paired
 * observation, free of the workload's own noise. The system's streams stay
 * per variant: the housekeeping timers model the machine's background (other
 * kernel activity), which a kernel change may itself alter, not the offered
 * work. The stream ids (the enum values) are part of the keys: append, never
 * reorder. */
enum world_stream {
    WORLD_STREAM_ARRIVAL,     /* workload: arrival gaps */
    WORLD_STREAM_SERVICE,     /* workload: service demands, device and network latencies */
    WORLD_STREAM_IRQ,         /* workload: the CPU a request's device interrupt lands on
                               * (RSS: the NIC's choice, not the scheduler's) */
    WORLD_STREAM_TIMERS,      /* system: housekeeping timers (sched/idle.c) */
    WORLD_STREAM_BACKGROUND,  /* workload: its background tasks' periods and phases */
    WORLD_STREAM_DEVICE_IRQ,  /* workload: device interrupt gaps (idle_set_irq_rates) */
    WORLD_STREAM_GUEST_TIMERS, /* VMs: the guests' own timers (kvm.c), common to
                                * every variant: a host kernel change does not
                                * alter the guest's timers */
    WORLD_STREAM_KERNEL_WORK, /* system: the wake-up chains background interrupts
                               * start (kernel/irq/wakeup_chain.c) */
    WORLD_STREAM_PLATFORM_DEVICE, /* workload: [device] interrupt gaps (world_devices.c) */
    WORLD_NSTREAMS,
};

/* Whether stream s is the workload's, common to every variant. */
bool world_stream_common(enum world_stream s);

struct world_check;

struct world {
    struct sim_eventq q;
    const struct hw_machine *machine;
    const struct kparams *kp;
    struct sim_rng rng[WORLD_NSTREAMS];
    struct hw_state hw;       /* per-thread and per-core physical state, energy */
    struct isol_sys isol;     /* housekeeping masks: nohz_full, isolcpus, nosmt */
    struct idle_sys idle;     /* cpuidle driver, governor, per-CPU idle loop */
    struct cpufreq_sys cpufreq; /* frequency policies */
    struct sched sched;       /* runqueues, tasks, idle entry */
    struct kvm_sys kvm;       /* VMs and KVM halt polling (none until kvm_create_vms) */
    struct wchain_sys wchain; /* background threads woken by interrupts */
    struct rcu_sys rcu;       /* RCU callbacks and grace periods */
    struct hw_devices devices; /* [device] sections (none until world_devices_create) */
    /* [machine->ncpus]: the CPUs of the cpus.* metrics ([report] cpus,
     * --cpus), shared read-only by the runner's worlds; NULL = none. */
    const bool *report_cpus;
    /* --per-cpu: also the series per_cpu (turbostat's rows per CPU) and, on
     * a machine with several core types, per_type.<TYPE> (one row each). */
    bool report_per_cpu;
    /* --interval: turbostat --interval's samples every interval_ns of the
     * measurement window (0: none) into the series "interval" of samples;
     * sample_prev holds the window's cumulative metrics at the last sample,
     * sample_prev_ns its time, sample_next_ns the next (0: not measuring). */
    sim_time_t interval_ns, sample_next_ns, sample_prev_ns;
    struct rpt_metric_set sample_prev, samples;
    /* [machine->ncpus]: the CPUs a workload's threads may run on ([workload]
     * affinity; wl_task_affinity applies it), NULL = every CPU. */
    const bool *wl_affinity;
    uint64_t nevents;         /* events handled, for the events/s figure */
    struct world_check *check; /* invariant checker (world_check.h); NULL in other builds */
    void *wl_state;           /* the running workload's state */
    /* The simulated machine's trace (trace/record.h), NULL when not traced;
     * trace_window_ns: the window kept, from the measurement's start (end
     * -1: to the end of the run). */
    struct trace_buf *trace;
    sim_time_t trace_window_ns[2];
};

struct world_key {
    uint64_t seed;
    uint32_t variant, replication, load_point;
};

/* Build a world for machine m and kernel settings kp, seeded from key. */
void world_init(struct world *w, const struct hw_machine *m, const struct kparams *kp,
                const struct world_key *key);
void world_destroy(struct world *w);
/* Start the measurement window now: machine and idle-state accumulators. */
void world_measure_reset(struct world *w);
/* The machine, idle and KVM metrics of the window so far (DESIGN.md §7),
 * then, with report_cpus, their per-thread ones over those CPUs as cpus.*,
 * and with report_per_cpu the per-CPU and per-type series. */
void world_collect_metrics(struct world *w, struct rpt_metric_set *out);
/* Run the event loop until simulated time end_ns (events at end_ns included). */
void world_run_until(struct world *w, sim_time_t end_ns);

#endif
