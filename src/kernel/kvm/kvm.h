/* kvm: virtual machines on the simulated host, and KVM halt polling
 * (virt/kvm/kvm_main.c kvm_vcpu_halt, arch/x86/kvm/x86.c kvm_arch_no_poll;
 * FACTS.md §4, guest side §2-3).
 *
 * A VM is a set of vCPUs; each vCPU is one host task (the vCPU thread),
 * optionally pinned to a host CPU. What a vCPU thread does on the host:
 *   - runs guest work (a workload's struct kvm_guest_work items, FIFO);
 *   - when the guest has nothing to run, the guest idles: by default it
 *     executes HLT (a KVM guest has no cpuidle driver: default_idle), which
 *     exits to KVM; KVM's kvm_vcpu_halt then polls for up to the vCPU's
 *     window (a `polling` segment: the host CPU spins in C0, counted as POLL)
 *     while the thread is the only task runnable on its CPU, and, if nothing
 *     arrives, blocks: the thread sleeps and the host CPU runs its own idle
 *     loop (cpuidle governor, C-states) or the task that ended the poll;
 *   - with the guest cpuidle-haltpoll driver, the guest first spins inside
 *     the guest (also a polling segment) under the haltpoll governor, then
 *     halts; the driver clears bit 0 of MSR_KVM_POLL_CONTROL, so the host
 *     does not poll for that vCPU.
 * A guest interrupt (kvm_vcpu_post of work) ends a poll at once
 * (sched_task_finish_now) or wakes the blocked thread (kvm_vcpu_kick: host
 * wakeup with the host C-state's exit latency).
 *
 * The guest's timers (FACTS-3.md §4): its tick at guest_hz, stopped by guest
 * nohz idle when its idle path says so, and its own timers. While a vCPU
 * halts, its LAPIC timer is an hrtimer on its host CPU (vcpu_block ->
 * kvm_lapic_switch_to_sw_timer): the host governor's sleep length there
 * includes it (idle_set_guest_timer), and its expiry kicks the vCPU
 * (apic_timer_fn -> kvm_vcpu_kick), a halt wake-up like any other.
 *
 * Host side kept: the per-vCPU window with the grow/shrink/grow_start rules,
 * clamping to the per-VM limit (KVM_CAP_HALT_POLL) or the module parameter,
 * adjusting only when polling is allowed, kvm_arch_no_poll (the poll-control
 * MSR, and with patch kvm-powersave-nopoll the host CPU's cpufreq policy),
 * version-keyed halt_poll_ns_shrink default, and kvm_vcpu_can_poll's
 * single_task_running()/need_resched(): another host task queued on the
 * vCPU's CPU (at the HLT or during the poll: the scheduler's rq_grew hook)
 * ends the poll at once; the thread blocks, the halt counts as a failed poll
 * and the window is adjusted from the whole halt. Dropped: invalid wakeups
 * (every wakeup here is a guest interrupt), signals, halt-poll statistics
 * other than those reported. The guest's own haltpoll polling is guest mode
 * and yields to nothing: pmlab's scheduler does not preempt.
 *
 * Also here: a host I/O thread (QEMU iothread / vhost worker), the host-side
 * half of virtio, shared by the fio and netrr workloads. */
#ifndef PMLAB_KERNEL_KVM_KVM_H
#define PMLAB_KERNEL_KVM_KVM_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/machine.h"
#include "kernel/params.h"
#include "kernel/sched/sched.h"
#include "sim/eventq.h"
#include "sim/metrics.h"

struct world;

#define KVM_VM_NAME_MAX 32
#define KVM_MAX_VCPUS 64
#define KVM_MAX_HOST_CPUS 512           /* CPUs an iothread_affinity list may name */

/* ---- configuration (a scenario's [vm NAME] section) ---- */

/* How the guest's own timers (not its tick) fall, per vCPU. */
enum kvm_guest_timer_pattern {
    KVM_GUEST_TIMER_POISSON,  /* exponential gaps of mean 1 / guest_timer_hz */
    KVM_GUEST_TIMER_PERIODIC, /* every 1 / guest_timer_hz, random phase per vCPU */
};

enum kvm_guest_idle {
    KVM_GUEST_IDLE_HALT,      /* default_idle: HLT on every idle period */
    KVM_GUEST_IDLE_HALTPOLL,  /* cpuidle-haltpoll driver + haltpoll governor */
};

struct kvm_vm_config {
    char name[KVM_VM_NAME_MAX];
    int line;                       /* of the [vm NAME] header */
    int nvcpus;
    int pin[KVM_MAX_VCPUS];         /* host CPU of each vCPU (pin list order) */
    int npin;                       /* 0 = not pinned: the scheduler places them */
    /* iothread_affinity: the host CPUs the VM's I/O thread may run on, as
     * libvirt's <iothreadpin> or taskset would set them; none = every CPU */
    bool io_affinity[KVM_MAX_HOST_CPUS];
    bool has_io_affinity;
    bool overcommit;                /* more vCPUs than host CPUs allowed */
    enum kvm_guest_idle guest_idle;
    bool poll_control;              /* KVM_FEATURE_POLL_CONTROL offered to the guest */
    int64_t halt_poll_ns;           /* KVM_CAP_HALT_POLL value, -1 = capability not used */
    /* Guest haltpoll governor parameters (FACTS.md §3 [C10, K9]). */
    int64_t guest_halt_poll_ns, guest_halt_poll_grow, guest_halt_poll_shrink;
    int64_t guest_halt_poll_grow_start;
    bool guest_halt_poll_allow_shrink;
    /* Software path costs, reference-core work (estimates, see docs/vms.md). */
    double vmexit_us;               /* HLT exit to KVM and re-entry */
    double block_wake_us;           /* vCPU thread schedule out, wakeup, vcpu_load */
    /* The guest's timers (FACTS-3.md §4): its tick at guest_hz (CONFIG_HZ of
     * the guest kernel), stopped on an idle vCPU by nohz idle when the
     * guest's idle path says so, and its own hrtimers and timer-wheel timers
     * at guest_timer_hz per vCPU (estimates, see kvm.c and docs/vms.md). */
    int guest_hz;                   /* 100, 250, 300 or 1000 */
    bool guest_nohz;                /* CONFIG_NO_HZ_IDLE (and not nohz=off) in the guest */
    double guest_timer_hz;          /* guest timers per vCPU per second, besides the tick */
    enum kvm_guest_timer_pattern guest_timer_pattern;
    double guest_timer_irq_us;      /* guest local-timer interrupt handler, reference-core us */
};

/* Defaults for a VM named name with one vCPU. */
void kvm_vm_config_init(struct kvm_vm_config *c, const char *name, int line);
/* Set one [vm] key. Returns 0, or -1 with msg ("unknown key ...", range). */
int kvm_vm_config_set(struct kvm_vm_config *c, const char *key, const char *value, char *msg,
                      size_t msgsize);
/* Cross-key checks against machine m: pin list length, CPUs m lacks, more
 * vCPUs than host CPUs without overcommit. Returns 0, or -1 with msg. */
/* iothread_affinity against machine m: some CPU, none that m lacks. 0, or -1
 * with msg (sched_setaffinity's EINVAL). */
int kvm_vm_config_check_io_affinity(const struct kvm_vm_config *c, const struct hw_machine *m,
                                    char *msg, size_t msgsize);
int kvm_vm_config_check(const struct kvm_vm_config *c, const struct hw_machine *m, char *msg,
                        size_t msgsize);

/* ---- halt polling: the window rules, pure functions for the tests ---- */

/* The kvm module parameters in effect (FACTS.md §4 [K1-K4]). */
struct kvm_halt_poll_params {
    int64_t halt_poll_ns, grow, grow_start, shrink;
};

/* Module parameters of a variant: settings, else defaults; the
 * halt_poll_ns_shrink default is keyed by kernel version (2 since 6.11,
 * "KVM: enable halt polling shrink parameter by default", else 0). */
void kvm_halt_poll_params_get(const struct kparams *kp, struct kvm_halt_poll_params *out);
/* The window after growing / shrinking window_ns (grow_halt_poll_ns,
 * shrink_halt_poll_ns). */
int64_t grow_halt_poll_ns(const struct kvm_halt_poll_params *p, int64_t window_ns);
int64_t shrink_halt_poll_ns(const struct kvm_halt_poll_params *p, int64_t window_ns);
/* The window after a halt of total length halt_ns (polling included) that
 * started with window_ns, max_ns being the VM's limit (the end of
 * kvm_vcpu_halt, when polling was allowed). */
int64_t kvm_halt_poll_adjust(const struct kvm_halt_poll_params *p, int64_t max_ns,
                             int64_t window_ns, int64_t halt_ns);
/* kvm_arch_no_poll on x86: the guest cleared bit 0 of MSR_KVM_POLL_CONTROL,
 * or (patch kvm-powersave-nopoll) the host CPU runs a powersave policy. */
bool kvm_arch_no_poll_decide(uint64_t msr_poll_control, bool patch_nopoll, bool cpu_powersave);

/* What `pmlab explain` shows of KVM (report/explain_kvm.c prints it). */
struct kvm_explain {
    struct kvm_halt_poll_params halt_poll; /* as /sys/module/kvm/parameters reads */
    bool patch_nopoll;                      /* patch kvm-powersave-nopoll applied */
    double poll_power_ratio;                /* machine [calibration]: an estimate */
};
void kvm_explain(const struct hw_machine *m, const struct kparams *kp, struct kvm_explain *e);
/* The default own-timer rate of a guest vCPU, per second (an estimate, see kvm.c). */
double kvm_guest_timer_hz_default(void);

/* Guest haltpoll governor per vCPU (drivers/cpuidle/governors/haltpoll.c). */
struct haltpoll_params {
    int64_t guest_halt_poll_ns, grow, shrink, grow_start;
    bool allow_shrink;
};
/* Window after a halt of block_ns (adjust_poll_limit). */
int64_t haltpoll_adjust_poll_limit(const struct haltpoll_params *p, int64_t limit_ns,
                                   int64_t block_ns);

/* ---- guest work and the running model ---- */

struct kvm_guest_work;
typedef void (*kvm_guest_work_fn)(struct world *w, struct kvm_guest_work *gw);

/* A piece of guest execution (an interrupt handler and what it wakes, an
 * application step). Intrusive: a workload embeds it. fn runs when the work
 * is done; it may post more work. */
struct kvm_guest_work {
    double work_ns;                 /* reference-core ns */
    kvm_guest_work_fn fn;
    struct kvm_guest_work *next;
};

enum kvm_vcpu_state {
    KVM_VCPU_RUN,          /* running guest work */
    KVM_VCPU_GUEST_POLL,   /* guest haltpoll POLL state: spinning in the guest */
    KVM_VCPU_HALT_POLL,    /* KVM halt polling after HLT */
    KVM_VCPU_BLOCKED,      /* thread asleep after HLT */
    KVM_VCPU_WAKING,       /* kicked; the thread is on its way back */
};

struct kvm;

struct kvm_vcpu {
    struct task task;               /* the vCPU thread on the host */
    struct kvm *kvm;
    int vcpu_id;
    enum kvm_vcpu_state state;
    struct kvm_guest_work *head, *tail; /* pending guest work */
    struct sim_event poll_end_ev;   /* end of a halt-poll or guest-poll window */
    int64_t halt_poll_ns;           /* the per-vCPU window */
    sim_time_t halt_start_ns;       /* HLT of the current halt */
    sim_time_t idle_start_ns;       /* guest idle period start (poll or halt) */
    sim_time_t poll_start_ns;       /* start of the current host halt poll */
    bool in_guest_idle;
    bool starting;                  /* the thread was forked and has not run yet */
    struct kvm_guest_work *curr;    /* the work being run */
    bool halt_poll_allowed;         /* decided at the HLT */
    double pending_overhead_ns;     /* exit/entry costs charged to the next run */
    uint64_t msr_poll_control;      /* MSR_KVM_POLL_CONTROL as the guest wrote it */
    /* The guest's LAPIC timer (TSC deadline): the earlier of its next tick
     * (while the guest tick runs) and its next own timer. While the vCPU
     * halts it is a host hrtimer on sw_timer_cpu (kvm_lapic_switch_to_sw_timer
     * in vcpu_block), which the host governor's sleep length includes. */
    struct sim_event guest_timer_ev;
    sim_time_t guest_own_timer_ns;  /* next own timer, SIM_TIME_MAX none */
    bool guest_tick_running;        /* the guest's tick is not stopped */
    int sw_timer_cpu;               /* host CPU holding the timer as an hrtimer, -1 none */
    struct kvm_guest_work timer_irq; /* the guest's timer interrupt handler */
    bool timer_irq_queued;          /* timer_irq is posted and not yet run */
    /* guest haltpoll governor */
    int64_t guest_poll_limit_ns;
    bool guest_last_was_poll, guest_poll_time_limit;
    /* statistics since the measurement start */
    sim_time_t guest_idle_ns, guest_halted_ns;
    uint64_t halts, halt_attempted_poll, halt_successful_poll, halt_wakeups;
    uint64_t guest_timer_irqs;      /* guest timer interrupts (tick and own timers) */
    uint64_t guest_timer_wakeups;   /* of those, the ones that ended a halt */
    sim_time_t halt_poll_ns_total;
};

struct kvm {
    struct kvm_vm_config cfg;
    struct kvm_vcpu *vcpus;         /* [cfg.nvcpus] */
    struct haltpoll_params hp;
};

/* The host CPU policy check kvm_arch_no_poll uses; a test may install a fake. */
typedef bool (*kvm_cpu_is_powersave_fn)(const struct world *w, int cpu);

struct kvm_sys {
    struct kvm *vms;                /* [nvms] */
    int nvms;
    struct kvm_halt_poll_params params;
    bool patch_nopoll;              /* kvm-powersave-nopoll applied */
    kvm_cpu_is_powersave_fn cpu_is_powersave;
    sim_time_t measure_start_ns;
    /* [ncpus] with VMs: halt-polling time since the measurement start by the
     * host CPU it ran on (the vCPUs' halt_poll_ns_total, placed), for
     * kvm_poll_pct over any set of CPUs. */
    sim_time_t *halt_poll_ns_on_cpu;
    bool *iothread_mask;            /* [ncpus] the first VM's iothread_affinity, or NULL */
};

/* Set up w->kvm with no VMs (world_init). */
void kvm_init(struct world *w);
void kvm_destroy(struct world *w);
/* Create the VMs of cfg[n]: vCPU threads asleep in a halted guest. Call once,
 * after world_init and before the run. */
void kvm_create_vms(struct world *w, const struct kvm_vm_config *cfg, int n);
/* vCPU i of VM vm, or NULL. */
struct kvm_vcpu *kvm_get_vcpu(struct world *w, int vm, int i);

/* Queue guest work on v; if the guest is idle this is an interrupt that
 * ends its poll or kicks its thread (kvm_vcpu_kick) from waker_cpu (the host
 * CPU whose code injects it). gw must stay valid until its fn runs. */
void kvm_vcpu_post(struct world *w, struct kvm_vcpu *v, struct kvm_guest_work *gw,
                   int waker_cpu);
/* The host CPU v's thread runs or last ran on (vcpu->cpu). */
int kvm_vcpu_cpu(const struct kvm_vcpu *v);

void kvm_measure_reset(struct world *w);
/* guest_halt_pct, halt_poll_success_pct, kvm_poll_pct, vcpu_wakeups_per_s
 * (nothing without VMs). */
void kvm_collect_metrics(struct world *w, struct rpt_metric_set *out);
/* kvm_poll_pct under sc's name: halt-polling time on sc's CPUs in % of
 * their time (nothing without VMs). */
void kvm_collect_poll(struct world *w, const struct rpt_cpu_scope *sc, struct rpt_metric_set *out);

/* ---- host I/O thread (QEMU iothread, vhost worker) ---- */

struct kvm_io_req;
typedef void (*kvm_io_fn)(struct world *w, struct kvm_io_req *r);

/* One piece of host work for the I/O thread; fn runs when it is done. */
struct kvm_io_req {
    double work_ns;
    kvm_io_fn fn;
    struct kvm_io_req *next;
};

struct kvm_iothread {
    struct task task;
    struct kvm_io_req *head, *tail, *curr;
    bool starting;              /* forked, its first run not yet over */
};

/* Create the I/O thread: QEMU's main thread, running on parent_cpu, forks
 * it and the kernel places it (no CPU is chosen here). Work submitted
 * before it has started waits for it. */
void kvm_iothread_start(struct world *w, struct kvm_iothread *io, int parent_cpu);
/* Queue r; wakes the thread if it sleeps, from waker_cpu (the CPU whose code
 * submits: a vCPU thread's ioeventfd kick, or a device interrupt). */
void kvm_iothread_submit(struct world *w, struct kvm_iothread *io, struct kvm_io_req *r,
                         int waker_cpu);
/* The host CPU the I/O thread runs or last ran on. */
int kvm_iothread_cpu(const struct kvm_iothread *io);

#endif
