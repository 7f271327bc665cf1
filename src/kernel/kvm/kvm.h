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

/* ---- configuration (a scenario's [vm NAME] section) ---- */

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
};

/* Defaults for a VM named name with one vCPU. */
void kvm_vm_config_init(struct kvm_vm_config *c, const char *name, int line);
/* Set one [vm] key. Returns 0, or -1 with msg ("unknown key ...", range). */
int kvm_vm_config_set(struct kvm_vm_config *c, const char *key, const char *value, char *msg,
                      size_t msgsize);
/* Cross-key checks against machine m: pin list length, CPUs m lacks, more
 * vCPUs than host CPUs without overcommit. Returns 0, or -1 with msg. */
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
};
void kvm_explain(const struct kparams *kp, struct kvm_explain *e);

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
    struct kvm_guest_work *curr;    /* the work being run */
    bool halt_poll_allowed;         /* decided at the HLT */
    double pending_overhead_ns;     /* exit/entry costs charged to the next run */
    uint64_t msr_poll_control;      /* MSR_KVM_POLL_CONTROL as the guest wrote it */
    /* guest haltpoll governor */
    int64_t guest_poll_limit_ns;
    bool guest_last_was_poll, guest_poll_time_limit;
    /* statistics since the measurement start */
    sim_time_t guest_idle_ns, guest_halted_ns;
    uint64_t halts, halt_attempted_poll, halt_successful_poll, halt_wakeups;
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
 * ends its poll or kicks its thread (kvm_vcpu_kick). gw must stay valid until
 * its fn runs. */
void kvm_vcpu_post(struct world *w, struct kvm_vcpu *v, struct kvm_guest_work *gw);

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
};

/* A host CPU for an I/O thread to start on: the first CPU of the first core
 * that no vCPU is pinned to (0 if every core has one). */
int kvm_iothread_default_cpu(const struct world *w);
/* A sleeping I/O thread whose first placement hint is cpu. */
void kvm_iothread_init(struct kvm_iothread *io, int cpu);
/* Queue r; wakes the thread if it sleeps. */
void kvm_iothread_submit(struct world *w, struct kvm_iothread *io, struct kvm_io_req *r);

#endif
