/* cpuidle: the kernel's idle-state framework (include/linux/cpuidle.h,
 * drivers/cpuidle/), split as in the kernel:
 *  - a driver describes the states of a CPU (intel_idle, acpi_idle, haltpoll,
 *    psci_idle), state 0 being the core's own POLL state on x86 and WFI on Arm;
 *  - a governor only decides: select() returns a state index and whether to
 *    stop the tick, reflect() learns from what happened;
 *  - the core (cpuidle.c) runs select -> enter -> reflect for each idle period
 *    and keeps every counter (usage, time, above, below, rejected).
 *
 * Units: all times in ns (the kernel keeps exit_latency_ns and
 * target_residency_ns too; sysfs shows µs). A struct cpuidle_device is one CPU's
 * view: its per-state counters and disable flags, what the core measured about
 * the last idle period, and what the timer subsystem says about the next one.
 * Governors see nothing else, which is what lets the replay tests drive them
 * with scripted sequences and no simulated machine. */
#ifndef PMLAB_KERNEL_CPUIDLE_CPUIDLE_H
#define PMLAB_KERNEL_CPUIDLE_CPUIDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kversion.h"

#define CPUIDLE_STATE_MAX 10
#define CPUIDLE_NAME_LEN 16
#define CPUIDLE_DESC_LEN 32

/* State flags (include/linux/cpuidle.h). */
#define CPUIDLE_FLAG_POLLING     (1u << 0) /* polling state: no IPI needed to wake */
#define CPUIDLE_FLAG_TIMER_STOP  (1u << 2) /* local timer stops: needs broadcast */
#define CPUIDLE_FLAG_UNUSABLE    (1u << 3) /* never used (not in sysfs choices) */
#define CPUIDLE_FLAG_OFF         (1u << 4) /* disabled by default, user may enable */
#define CPUIDLE_FLAG_TLB_FLUSHED (1u << 5) /* TLB lost: lazy mm dropped first */

/* How the driver enters a state, decided once per state at driver init
 * (intel_idle's state_update_enter_method, FACTS.md §1). It sets whether
 * interrupts are on while idle and what is done around MWAIT. */
enum cpuidle_enter_method {
    CPUIDLE_ENTER_POLL,          /* poll_idle: IRQs on, spin with cpu_relax */
    CPUIDLE_ENTER_MWAIT,         /* MWAIT, IRQs off, ECX bit 0: interrupt breaks it */
    CPUIDLE_ENTER_MWAIT_IRQ,     /* IRQs enabled at MWAIT (IRQ_ENABLE, force_irq_on) */
    CPUIDLE_ENTER_MWAIT_IBRS,    /* SPEC_CTRL = 0 before MWAIT, restored after; IRQs off */
    CPUIDLE_ENTER_MWAIT_XSTATE,  /* AMX/extended state reset to init first; IRQs off */
    CPUIDLE_ENTER_HLT,           /* HLT (acpi_idle C1, default_idle) */
    CPUIDLE_ENTER_IO,            /* acpi_idle: read the _CST's I/O port, IRQs off */
    CPUIDLE_ENTER_WFI,           /* Arm WFI (cpu_do_idle), IRQs off: a pending one wakes it */
    CPUIDLE_ENTER_PSCI,          /* PSCI CPU_SUSPEND with the state's power_state, IRQs off */
};

struct cpuidle_state {
    char name[CPUIDLE_NAME_LEN];    /* sysfs name: "POLL", "C1", "C1E", "C6" */
    char desc[CPUIDLE_DESC_LEN];    /* sysfs desc: "MWAIT 0x20" */
    int64_t exit_latency_ns;
    int64_t target_residency_ns;
    unsigned flags;                 /* CPUIDLE_FLAG_* */
    enum cpuidle_enter_method enter;
    uint32_t mwait_hint;            /* selects the hardware C-state (machine file) */
    uint32_t io_port;               /* CPUIDLE_ENTER_IO: the port ([cstate] io_port) */
    uint32_t psci_suspend_param;    /* CPUIDLE_ENTER_PSCI: arm,psci-suspend-param */
};

struct cpuidle_driver {
    char name[CPUIDLE_NAME_LEN];    /* "intel_idle", "acpi_idle", "haltpoll" */
    struct cpuidle_state states[CPUIDLE_STATE_MAX];
    int state_count;
};

/* Per-CPU per-state counters, as in /sys/devices/system/cpu/cpuN/cpuidle/stateK. */
struct cpuidle_state_usage {
    uint64_t usage;     /* entries */
    int64_t time_ns;    /* total residency */
    uint64_t above;     /* residency < target residency and a shallower enabled state existed */
    uint64_t below;     /* residency - exit latency >= next deeper enabled state's target */
    uint64_t rejected;  /* the driver refused to enter */
    bool disable;       /* sysfs `disable` (set from the OFF flag and the variant's sysfs) */
};

struct cpuidle_device {
    int cpu;
    const struct kversion *kernel;  /* behaviour keyed by version (FACTS.md §3) */
    struct cpuidle_state_usage states_usage[CPUIDLE_STATE_MAX];

    /* Filled by the core before select(): */
    int64_t latency_req_ns;         /* PM QoS limit (cpuidle_governor_latency_req) */
    int64_t tick_period_ns;         /* TICK_NSEC */
    bool tick_stopped;              /* the tick is already stopped (tick_nohz_tick_stopped) */
    int64_t next_timer_ns;          /* time to the next timer if the tick were stopped
                                     * (tick_nohz_get_sleep_length), INT64_MAX if none */
    int64_t delta_tick_ns;          /* time to the next tick */
    int64_t poll_limit_ns;          /* governor-set POLL limit (haltpoll), 0 = default rule */

    /* Filled by the core after the idle period, before reflect(): */
    int last_state_idx;
    int64_t last_residency_ns;      /* entry to return */
    bool poll_time_limit;           /* POLL ended because its limit elapsed */
    bool woke_by_tick;              /* the wakeup was the tick (tick_nohz_idle_got_tick) */

    void *governor_data;            /* the governor's per-CPU data, data_size bytes */
};

struct cpuidle_governor {
    const char *name;
    unsigned rating;                /* highest wins unless cpuidle.governor= names one */
    size_t data_size;               /* per-CPU data the core allocates (zeroed) */
    /* Prepare dev's data for drv. Returns 0. */
    int (*enable)(const struct cpuidle_driver *drv, struct cpuidle_device *dev);
    /* Choose a state index for the coming idle period and whether to stop the
     * tick (*stop_tick is true on entry; a governor that keeps the tick sets it
     * false). Must respect latency_req_ns and disabled states. */
    int (*select)(const struct cpuidle_driver *drv, struct cpuidle_device *dev, bool *stop_tick);
    /* Learn from the idle period that ended (last_* fields). May be NULL. */
    void (*reflect)(struct cpuidle_device *dev, int index);
};

/* Registered governors (menu, teo, ladder, haltpoll), NULL-terminated. */
extern const struct cpuidle_governor *const cpuidle_governors[];
/* By name, or NULL. */
const struct cpuidle_governor *cpuidle_find_governor(const char *name);
/* The highest-rated governor usable on a kernel with (nohz true) or without a
 * tickless idle: ladder is the default of periodic-tick kernels. */
const struct cpuidle_governor *cpuidle_default_governor(bool nohz);

/* Whether state i may be selected on dev: not disabled by sysfs or the driver
 * (UNUSABLE). */
static inline bool cpuidle_state_enabled(const struct cpuidle_driver *drv,
                                         const struct cpuidle_device *dev, int i)
{
    return !dev->states_usage[i].disable && !(drv->states[i].flags & CPUIDLE_FLAG_UNUSABLE);
}

/* Fill state 0 of drv with the core's POLL state (drivers/cpuidle/poll_state.c):
 * latency 0, residency 0, POLLING. */
void cpuidle_poll_state_init(struct cpuidle_driver *drv);
/* The POLL state's time limit on dev, ns (cpuidle_poll_time, FACTS-2.md §2):
 * dev->poll_limit_ns if a governor set it; else by dev->kernel (NULL = newest):
 * from v5.11 the target residency of the first enabled non-POLL state whose
 * residency is at least 10 µs, capped at TICK_NSEC/16, and TICK_NSEC/16 when
 * none qualifies; v5.5 to v5.10 (and 5.4.4+) the first enabled non-POLL
 * state's residency, else TICK_NSEC; older kernels TICK_NSEC/16. */
int64_t cpuidle_poll_limit_ns(const struct cpuidle_driver *drv, const struct cpuidle_device *dev);

/* The core's bookkeeping after an idle period in state idx of residency_ns
 * (cpuidle_enter_state): usage, time, above, below; sets last_state_idx and
 * last_residency_ns. rejected: the driver refused (residency counted as 0). */
void cpuidle_account(const struct cpuidle_driver *drv, struct cpuidle_device *dev, int idx,
                     int64_t residency_ns, bool rejected);

#endif
