/* idle: the idle loop of every CPU (kernel/sched/idle.c do_idle and
 * cpuidle_idle_call) on top of the cpuidle core, and the physics of entering
 * and leaving an idle state.
 *
 * Three modes, as the kernel picks them at boot: idle=poll spins
 * (cpu_idle_poll); without a cpuidle driver (cpuidle.off=1, idle=halt|nomwait,
 * a driver that does not load) the architecture's default_idle halts into the
 * shallowest hardware state; otherwise each idle period is governor select ->
 * driver enter -> (wakeup) -> cpuidle accounting -> governor reflect.
 *
 * Wakeups end an idle period five ways: a task woken onto the CPU (IPI, or no
 * IPI for a polling CPU), the periodic tick when the governor kept it, a
 * housekeeping timer, a device interrupt, and the POLL state's time limit.
 * The tick is modelled only where it matters: on idle CPUs whose tick is
 * running (busy CPUs' ticks cost nothing here). Housekeeping timers (the
 * kernel's timer-wheel timers, rounded as the wheel rounds them, and
 * daemons' hrtimers with slack, which a tick may expire early) fire on every
 * CPU at random intervals with the mean measured on a real idle machine, or
 * at the rates a workload sets (idle_set_irq_rates); the next one is the
 * next timer of the sleep length the governor is told
 * (tick_nohz_get_sleep_length). A deferrable timer per CPU is in no sleep
 * length and waits for the CPU's next tick or wake-up. Each housekeeping
 * timer and device interrupt also starts a wake-up chain
 * (kernel/irq/wakeup_chain.h).
 * Device interrupts (none unless a workload sets a rate) arrive at random
 * too, but no timer announces them: the governor cannot see them coming.
 *
 * Leaving an idle state takes the hardware exit latency (HW_THREAD_WAKE),
 * then kernel code as busy time: the exit path, the waking interrupt and the
 * switch to a woken task (idle_exit_begin). */
#ifndef PMLAB_KERNEL_SCHED_IDLE_H
#define PMLAB_KERNEL_SCHED_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/machine.h"
#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/params.h"
#include "kernel/time/hrtimer.h"
#include "sim/eventq.h"
#include "sim/metrics.h"

struct world;

enum idle_mode {
    IDLE_MODE_CPUIDLE,   /* a cpuidle driver and governor */
    IDLE_MODE_HALT,      /* default_idle: HLT into the shallowest hardware state */
    IDLE_MODE_POLL,      /* idle=poll */
};

enum idle_wake {
    IDLE_WAKE_IPI,        /* a task was woken onto this CPU */
    IDLE_WAKE_TICK,       /* the periodic tick */
    IDLE_WAKE_POLL_LIMIT, /* POLL ran out of time */
    IDLE_WAKE_TIMER,      /* a housekeeping timer (not the tick) */
    IDLE_WAKE_DEVICE,     /* a device interrupt (idle_set_irq_rates) */
    IDLE_WAKE_NR,
};

struct idle_cpu {
    int state;                  /* cpuidle state while idle, -1 when not in one */
    bool in_idle;               /* in an idle period (until its exit completes) */
    bool tick_stopped;          /* stopped by the governor; restarts when a task runs */
    enum idle_wake wake;        /* what ended the current period */
    sim_time_t entered_ns;      /* start of the current idle period */
    sim_time_t acct_since_ns;   /* start of the part not yet in state_time_ns */
    struct sim_event tick_ev;   /* next tick while idle with the tick running */
    struct sim_event poll_ev;   /* POLL time limit */
    struct sim_event timer_ev;  /* next housekeeping timer of this CPU */
    struct sim_event device_ev; /* next device interrupt of this CPU */
    struct sim_event defer_ev;  /* next deferrable timer's expiry (BASE_DEF) */
    struct hrtimer_range hk_range; /* the pending housekeeping timer's expiry range
                                 * (a wheel timer: soft = hard = bucket expiry) */
    sim_time_t hk_req_ns;       /* requested expiry of the pending housekeeping
                                 * timer, before the wheel's rounding or slack */
    bool defer_pending;         /* a deferrable timer expired while idle: it runs
                                 * at the next tick or wake-up */
    double timer_mean_ns;       /* mean gap of the housekeeping timers, ns (0: none) */
    double device_mean_ns;      /* mean gap of the device interrupts, ns (0: none) */
    sim_time_t wl_timer_ns;     /* earliest workload hrtimer armed on this CPU
                                 * (idle_set_wl_timer), SIM_TIME_MAX none */
    sim_time_t guest_timer_ns;  /* earliest guest LAPIC timer queued here as an
                                 * hrtimer while its vCPU halts
                                 * (idle_set_guest_timer), SIM_TIME_MAX none */
    /* Metric accumulators since the measurement start. */
    uint64_t nr_entries;        /* idle entries (governor selections) */
    uint64_t nr_tick_stopped;   /* of those, entries that left the tick stopped */
    uint64_t idle_calls;        /* tick_sched.idle_calls: entries that tried to stop the
                                 * tick (tick_nohz_idle_stop_tick), schedutil's "idle
                                 * since" (tick_nohz_get_idle_calls_cpu) */
    uint64_t nr_wake[IDLE_WAKE_NR]; /* idle periods ended, by cause */
    uint64_t nr_timer_irqs;     /* housekeeping timers fired, busy or idle */
    uint64_t nr_device_irqs;    /* device interrupts fired, busy or idle */
    uint64_t nr_ipis;           /* task wake-ups that needed an IPI (not polling) */
    uint64_t nr_coalesced;      /* housekeeping hrtimers expired by a tick, within slack */
    uint64_t nr_deferred_runs;  /* deferrable timers run */
    sim_time_t state_time_ns[CPUIDLE_STATE_MAX];
    struct cpuidle_state_usage base[CPUIDLE_STATE_MAX]; /* counters at measure start */
};

struct idle_sys {
    enum idle_mode mode;
    char why_no_driver[CPUIDLE_WHY_LEN];            /* the kernel's reason, when mode != CPUIDLE */
    struct cpuidle_driver drv;
    const struct cpuidle_governor *gov;
    struct cpuidle_device *dev;         /* [ncpus] */
    unsigned char *gov_data;            /* [ncpus * gov->data_size] */
    struct idle_cpu *cpu;               /* [ncpus] */
    int *hw_cstate;                     /* [ncpus * CPUIDLE_STATE_MAX] hw state per driver state */
    sim_time_t tick_period_ns;
    sim_time_t jiffy_ns;                /* the last tick boundary idle_next_tick_ns found */
    bool nohz;                          /* the tick may stop on idle CPUs */
    bool kernel_ibrs;                   /* legacy IBRS set on kernel entry */
    sim_time_t spec_ctrl_write_ns, irq_off_exit_ns; /* calibration, see machine.c */
    sim_time_t wake_irq_ns, wake_switch_ns;         /* wake-up path software, ditto */
    sim_time_t softirq_ns;                          /* softirq after a timer or device irq */
    int hz;                                         /* CONFIG_HZ */
    double hk_hrtimer_share;                        /* housekeeping timers that are hrtimers */
    sim_time_t hk_slack_ns;                         /* their timer slack */
    sim_time_t defer_period_ns;                     /* each CPU's deferrable timer, 0 none */
    sim_time_t measure_start_ns;
};

/* Check a variant's idle settings against what its kernel builds on machine
 * m: sysfs writes to cpuidle state files need a cpuidle driver and a state of
 * that index. Returns 0, or -1 with d = "file:line: ..." naming the write. */
int idle_validate(const struct hw_machine *m, const struct kparams *kp, const char *file,
                  struct diag *d);

/* What a variant's idle settings resolve to on a machine, for `pmlab
 * explain` (report/explain_idle.c prints it): the mitigation, the tick, the
 * cpuidle driver and governor or why there is none, the idle-state table with
 * the CPUs each state is disabled on, and the PM QoS limits. */
struct idle_explain {
    const char *spectre_v2;             /* as sysfs vulnerabilities/spectre_v2 reads */
    int hz;                             /* CONFIG_HZ */
    bool nohz;                          /* the idle tick may stop (NO_HZ_IDLE) */
    enum idle_mode mode;
    char why_no_driver[CPUIDLE_WHY_LEN];            /* the kernel's reason, when mode != CPUIDLE */
    struct cpuidle_driver drv;          /* when mode == CPUIDLE; else no states */
    char driver_source[CPUIDLE_SOURCE_LEN]; /* where drv's numbers come from */
    const char *hw_type;                /* core type of cpu0, whose hardware states follow */
    const struct hw_cstate *hw_state[CPUIDLE_STATE_MAX]; /* the machine file's state each
                                         * driver state enters on cpu0, NULL for POLL */
    const char *governor;               /* when mode == CPUIDLE */
    int ncpus;
    bool *state_disabled;               /* [drv.state_count * ncpus]: state s is
                                         * disabled on cpu c at [s * ncpus + c] */
    int64_t cpu_dma_latency_us;         /* /dev/cpu_dma_latency */
    bool cpu_dma_latency_set;           /* by the variant; else the default, no limit */
    int64_t *resume_latency_us;         /* [ncpus] pm_qos_resume_latency_us */
    /* The usable states intel_idle.max_cstate=max_cstate kept out of the
     * driver (intel_idle_info.removed), when mode == CPUIDLE. */
    int max_cstate, nremoved;
    char removed[CPUIDLE_STATE_MAX][CPUIDLE_NAME_LEN];
};

/* Fill e for kp on m (arrays allocated; free with idle_explain_free). */
void idle_explain(const struct hw_machine *m, const struct kparams *kp, struct idle_explain *e);
void idle_explain_free(struct idle_explain *e);

/* Set up w->idle from the machine and kernel settings; every CPU enters idle. */
void idle_init(struct world *w);
void idle_destroy(struct world *w);

/* The CPU has nothing to run: start an idle period. */
void idle_enter(struct world *w, int cpu);
/* Begin leaving the idle period for reason why. Returns the hardware exit
 * latency (the CPU is then HW_THREAD_WAKE; 0 for a polling CPU) and stores
 * in *kernel_ns the kernel code to run after it, as busy time, before the CPU
 * goes on: exit path, interrupt, context switch (see idle.c). */
sim_time_t idle_exit_begin(struct world *w, int cpu, enum idle_wake why, sim_time_t *kernel_ns);
/* The hardware exit is over (cpuidle_enter_state returns): account the
 * period and let the governor learn. */
void idle_exit_end(struct world *w, int cpu);
/* A workload armed (or moved) an hrtimer on cpu: when_ns is the earliest of
 * its timers there (SIM_TIME_MAX: none). The timer wheel and hrtimer queue
 * are the kernel's, so the governor sees the timer in its sleep length
 * (tick_nohz_get_sleep_length) like any other; the workload fires it. */
void idle_set_wl_timer(struct world *w, int cpu, sim_time_t when_ns);
/* KVM queued (or removed) guest LAPIC timers on cpu as hrtimers: when_ns is
 * the earliest (SIM_TIME_MAX: none). A halted vCPU's timer is a host hrtimer
 * on the CPU that runs its thread (arch/x86/kvm/x86.c vcpu_block ->
 * kvm_lapic_switch_to_sw_timer), so the governor's sleep length sees it;
 * KVM fires it (apic_timer_fn -> kvm_vcpu_kick), not idle.c. */
void idle_set_guest_timer(struct world *w, int cpu, sim_time_t when_ns);
/* Set cpu's background interrupt rates, per second, from now on: its
 * housekeeping timers (mean gap 1 / timer_hz; a negative timer_hz keeps the
 * default, IDLE_BG_TIMER_MEAN_NS in idle.c) and its device interrupts
 * (1 / device_hz); 0 stops a stream. Both are Poisson: exponential gaps,
 * timers from the system's stream, device interrupts from the workload's
 * (common to every variant). */
void idle_set_irq_rates(struct world *w, int cpu, double timer_hz, double device_hz);
/* One device interrupt on cpu now (a [device] section's, world_devices.c):
 * counted as the idle workload's are, and waking cpu if it idles. */
void idle_device_interrupt(struct world *w, int cpu);
/* A task starts running on cpu: the tick runs again (tick_nohz_idle_exit). */
void idle_task_runs(struct world *w, int cpu);
/* tick_nohz_get_idle_calls_cpu: cpu's idle_calls (idle_cpu.idle_calls). */
uint64_t tick_nohz_get_idle_calls_cpu(const struct world *w, int cpu);
/* cpu's timer softirq runs (a tick, an idle exit): the deferrable timers
 * that expired while nothing ran them. */
void idle_run_deferred_timers(struct world *w, int cpu);

void idle_measure_reset(struct world *w, sim_time_t now_ns);
/* tick_stopped_pct, residency.<state>, above_pct, below_pct and the
 * per-state shares over the CPUs of sc, under sc's names (rpt_scope_host:
 * every CPU, plain names). Call after the hw metrics of the same scope. */
void idle_collect_metrics(struct world *w, sim_time_t now_ns, const struct rpt_cpu_scope *sc,
                          struct rpt_metric_set *out);

#endif
