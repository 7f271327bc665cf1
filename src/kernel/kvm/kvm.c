/* kvm: VMs, vCPU threads, KVM halt polling and the guest's idle, see kvm.h.
 *
 * Follows kvm_vcpu_halt as of v6.2+ (David Matlack's 2022 series): the window
 * is clamped to the VM's limit when the halt starts, grow does not cap it,
 * and the window is adjusted only when polling was allowed at that halt
 * (FACTS.md §4 [K2, K5, K7]). Before 6.2 grow capped the value itself; the
 * clamp at the next halt makes the two behave the same here. The poll loop
 * goes on only while the vCPU thread is alone on its CPU and no reschedule
 * is pending (kvm_vcpu_can_poll); pmlab sets need_resched only by queueing a
 * task there, so the scheduler's rq_grew hook stands for both checks. */
#include "kernel/kvm/kvm.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cpu.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/sched/idle.h"
#include "kernel/time/tick_sched.h"
#include "util/strutil.h"
#include "util/cpulist.h"
#include "util/xalloc.h"
#include "world.h"
#include "util/container.h"


/* Bit 0 of MSR_KVM_POLL_CONTROL: 1 (the reset value) lets the host poll. */
#define KVM_POLL_CONTROL_ENABLE 1u

/* Guest timer defaults (docs/vms.md "The guest's timers"):
 * - guest_hz 1000: CONFIG_HZ_1000 of the Fedora, RHEL and Ubuntu (24.04 on)
 *   generic kernels; an estimate of the guest's distribution, which seed 004
 *   does not name.
 * - guest_nohz yes: every one of those configs has NO_HZ_IDLE or NO_HZ_FULL.
 * - guest_timer_hz 8.5 per vCPU: estimate. A guest is a Linux kernel with
 *   its daemons; taken at the timer-interrupt rate an idle Linux host showed
 *   (data/hosts/adl0: /proc/interrupts LOC grew ~8.5 per CPU per second over
 *   115 s, an input of that snapshot, the same figure sched/idle.c's
 *   housekeeping default uses). Not fitted to any seed-004 output.
 * - guest_timer_irq_us 2: estimate. The guest's local-timer interrupt
 *   (hrtimer_interrupt, the tick's or the timer's callback, the deadline
 *   re-armed: a WRMSR that exits with the hypervisor timer, or not) on a
 *   reference core; the order of the host's own ~1.5 us timer-interrupt cost
 *   (machine wake_irq_ns) plus the MSR write; not measured in a guest. */
#define KVM_GUEST_HZ_DEFAULT 1000
#define KVM_GUEST_TIMER_HZ_DEFAULT 8.5
#define KVM_GUEST_TIMER_IRQ_US_DEFAULT 2.0

double kvm_guest_timer_hz_default(void)
{
    return KVM_GUEST_TIMER_HZ_DEFAULT;
}

/* ---- module parameters and the window rules ---- */

void kvm_halt_poll_params_get(const struct kparams *kp, struct kvm_halt_poll_params *out)
{
    out->halt_poll_ns = kparams_get(kp, "kvm.halt_poll_ns", 0, -1);
    out->grow = kparams_get(kp, "kvm.halt_poll_ns_grow", 0, -1);
    out->grow_start = kparams_get(kp, "kvm.halt_poll_ns_grow_start", 0, -1);
    /* [K4]: shrink 2 by default from the KVM generic pull for 6.11; before,
     * 0 (a missed poll resets the window). */
    if (!kparams_find_setting(kp, "kvm.halt_poll_ns_shrink", 0, -1, &out->shrink))
        out->shrink = kversion_at_least(&kp->kernel, "6.11") ? 2 : 0;
}

int64_t grow_halt_poll_ns(const struct kvm_halt_poll_params *p, int64_t window_ns)
{
    if (p->grow == 0)
        return window_ns; /* growing disabled */
    int64_t v = window_ns * p->grow;
    return v < p->grow_start ? p->grow_start : v;
}

int64_t shrink_halt_poll_ns(const struct kvm_halt_poll_params *p, int64_t window_ns)
{
    int64_t v = p->shrink == 0 ? 0 : window_ns / p->shrink;
    /* [K5] 2021: a window shrunk below grow_start is pointless polling. */
    return v < p->grow_start ? 0 : v;
}

int64_t kvm_halt_poll_adjust(const struct kvm_halt_poll_params *p, int64_t max_ns,
                             int64_t window_ns, int64_t halt_ns)
{
    if (max_ns == 0)
        return 0;
    if (halt_ns <= window_ns)
        return window_ns;                       /* the window was right */
    if (window_ns > 0 && halt_ns > max_ns)
        return shrink_halt_poll_ns(p, window_ns); /* long block: polling wasted */
    if (window_ns < max_ns && halt_ns < max_ns)
        return grow_halt_poll_ns(p, window_ns); /* short halt missed by a small window */
    return window_ns;
}

bool kvm_arch_no_poll_decide(uint64_t msr_poll_control, bool patch_nopoll, bool cpu_powersave)
{
    if (!(msr_poll_control & KVM_POLL_CONTROL_ENABLE))
        return true;
    return patch_nopoll && cpu_powersave;
}

int64_t haltpoll_adjust_poll_limit(const struct haltpoll_params *p, int64_t limit_ns,
                                   int64_t block_ns)
{
    if (block_ns > limit_ns && block_ns <= p->guest_halt_poll_ns) {
        int64_t v = limit_ns * p->grow;
        if (v < p->grow_start)
            v = p->grow_start;
        return v > p->guest_halt_poll_ns ? p->guest_halt_poll_ns : v;
    }
    if (block_ns > p->guest_halt_poll_ns && p->allow_shrink)
        return p->shrink == 0 ? 0 : limit_ns / p->shrink;
    return limit_ns;
}

/* ---- [vm] configuration ---- */

void kvm_vm_config_init(struct kvm_vm_config *c, const char *name, int line)
{
    memset(c, 0, sizeof *c);
    str_copy(c->name, sizeof c->name, name);
    c->line = line;
    c->nvcpus = 1;
    c->guest_idle = KVM_GUEST_IDLE_HALT;
    c->poll_control = true;
    c->halt_poll_ns = -1;
    /* [C10, K9] haltpoll governor defaults. */
    c->guest_halt_poll_ns = 200000;
    c->guest_halt_poll_grow = 2;
    c->guest_halt_poll_shrink = 2;
    c->guest_halt_poll_grow_start = 50000;
    c->guest_halt_poll_allow_shrink = true;
    c->vmexit_us = 1.0;
    c->block_wake_us = 3.0;
    c->guest_hz = KVM_GUEST_HZ_DEFAULT;
    c->guest_nohz = true;
    c->guest_timer_hz = KVM_GUEST_TIMER_HZ_DEFAULT;
    c->guest_timer_pattern = KVM_GUEST_TIMER_POISSON;
    c->guest_timer_irq_us = KVM_GUEST_TIMER_IRQ_US_DEFAULT;
}

/* "0-3,8,10-11" into c->pin. */
static int kvm_parse_cpu_list(struct kvm_vm_config *c, const char *text, char *msg, size_t size)
{
    char *copy = xstrdup(text), *save = NULL;
    int rc = 0;
    c->npin = 0;
    for (char *tok = strtok_r(copy, ", \t", &save); tok && rc == 0;
         tok = strtok_r(NULL, ", \t", &save)) {
        int64_t lo, hi;
        char *dash = strchr(tok, '-');
        if (dash)
            *dash = '\0';
        if (str_to_i64(tok, &lo) != 0 || (dash && str_to_i64(dash + 1, &hi) != 0) || lo < 0) {
            rc = snprintf(msg, size, "pin: '%s' is not a CPU list (e.g. 0-3 or 0,2,4,6)", text);
            break;
        }
        if (!dash)
            hi = lo;
        if (hi < lo) {
            rc = snprintf(msg, size, "pin: empty range in '%s'", text);
            break;
        }
        for (int64_t cpu = lo; cpu <= hi; cpu++) {
            if (c->npin == KVM_MAX_VCPUS || cpu > 1000000) {
                rc = snprintf(msg, size, "pin: more than %d CPUs", KVM_MAX_VCPUS);
                break;
            }
            c->pin[c->npin++] = (int)cpu;
        }
    }
    free(copy);
    return rc ? -1 : 0;
}

static int kvm_cfg_int(const char *key, const char *value, int64_t min, int64_t max,
                       int64_t *out, char *msg, size_t size)
{
    if (str_to_i64(value, out) != 0 || *out < min || *out > max) {
        snprintf(msg, size, "%s: expected an integer in [%lld, %lld], got '%s'", key,
                 (long long)min, (long long)max, value);
        return -1;
    }
    return 0;
}

static int kvm_cfg_bool(const char *key, const char *value, bool *out, char *msg, size_t size)
{
    if (str_to_bool(value, out) != 0) {
        snprintf(msg, size, "%s: expected yes or no, got '%s'", key, value);
        return -1;
    }
    return 0;
}

static int kvm_cfg_us(const char *key, const char *value, double *out, char *msg, size_t size)
{
    if (str_to_double(value, out) != 0 || *out < 0 || *out > 1e6) {
        snprintf(msg, size, "%s: expected microseconds in [0, 1e6], got '%s'", key, value);
        return -1;
    }
    return 0;
}

/* The guest timer keys: true when key is one of them, with *rc its result
 * (0, or -1 with msg); false for any other key. */
static bool kvm_cfg_guest_timer(struct kvm_vm_config *c, const char *key, const char *value,
                                char *msg, size_t size, int *rc)
{
    *rc = 0;
    if (strcmp(key, "guest_hz") == 0) {
        int64_t hz;
        /* The CONFIG_HZ choices of kernel/Kconfig.hz. */
        if (str_to_i64(value, &hz) != 0 || (hz != 100 && hz != 250 && hz != 300 && hz != 1000)) {
            snprintf(msg, size, "guest_hz: expected 100, 250, 300 or 1000 (the guest's "
                     "CONFIG_HZ), got '%s'", value);
            *rc = -1;
        } else
            c->guest_hz = (int)hz;
    } else if (strcmp(key, "guest_nohz") == 0) {
        *rc = kvm_cfg_bool(key, value, &c->guest_nohz, msg, size);
    } else if (strcmp(key, "guest_timer_hz") == 0) {
        double hz;
        if (str_to_double(value, &hz) != 0 || !(hz >= 0 && hz <= 1e5)) {
            snprintf(msg, size, "guest_timer_hz: expected timers per second in [0, 1e5], "
                     "got '%s'", value);
            *rc = -1;
        } else
            c->guest_timer_hz = hz;
    } else if (strcmp(key, "guest_timer_pattern") == 0) {
        if (strcmp(value, "poisson") == 0)
            c->guest_timer_pattern = KVM_GUEST_TIMER_POISSON;
        else if (strcmp(value, "periodic") == 0)
            c->guest_timer_pattern = KVM_GUEST_TIMER_PERIODIC;
        else {
            snprintf(msg, size, "guest_timer_pattern: '%s' is not one of: poisson periodic",
                     value);
            *rc = -1;
        }
    } else if (strcmp(key, "guest_timer_irq_us") == 0) {
        *rc = kvm_cfg_us(key, value, &c->guest_timer_irq_us, msg, size);
    } else {
        return false;
    }
    return true;
}

int kvm_vm_config_set(struct kvm_vm_config *c, const char *key, const char *value, char *msg,
                      size_t msgsize)
{
    int64_t v;
    const int64_t u32max = 4294967295LL;
    if (strcmp(key, "vcpus") == 0) {
        if (kvm_cfg_int(key, value, 1, KVM_MAX_VCPUS, &v, msg, msgsize) != 0)
            return -1;
        c->nvcpus = (int)v;
        return 0;
    }
    if (strcmp(key, "iothread_affinity") == 0) {
        char why[160];
        if (cpulist_parse(value, KVM_MAX_HOST_CPUS, c->io_affinity, why, sizeof why) != 0)
            return snprintf(msg, msgsize, "iothread_affinity = %s: Invalid argument (%s)", value,
                            why), -1;
        c->has_io_affinity = true;
        return 0;
    }
    if (strcmp(key, "pin") == 0)
        return kvm_parse_cpu_list(c, value, msg, msgsize);
    if (strcmp(key, "overcommit") == 0)
        return kvm_cfg_bool(key, value, &c->overcommit, msg, msgsize);
    if (strcmp(key, "poll_control") == 0)
        return kvm_cfg_bool(key, value, &c->poll_control, msg, msgsize);
    if (strcmp(key, "guest_cpuidle") == 0) {
        if (strcmp(value, "halt") == 0)
            c->guest_idle = KVM_GUEST_IDLE_HALT;
        else if (strcmp(value, "haltpoll") == 0)
            c->guest_idle = KVM_GUEST_IDLE_HALTPOLL;
        else
            return snprintf(msg, msgsize, "guest_cpuidle: '%s' is not one of: halt haltpoll",
                            value), -1;
        return 0;
    }
    struct { const char *k; int64_t *p; int64_t min; } ints[] = {
        { "halt_poll_ns", &c->halt_poll_ns, 0 },
        { "guest_halt_poll_ns", &c->guest_halt_poll_ns, 0 },
        { "guest_halt_poll_grow", &c->guest_halt_poll_grow, 0 },
        { "guest_halt_poll_shrink", &c->guest_halt_poll_shrink, 0 },
        { "guest_halt_poll_grow_start", &c->guest_halt_poll_grow_start, 0 },
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(key, ints[i].k) == 0)
            return kvm_cfg_int(key, value, ints[i].min, u32max, ints[i].p, msg, msgsize);
    if (strcmp(key, "guest_halt_poll_allow_shrink") == 0)
        return kvm_cfg_bool(key, value, &c->guest_halt_poll_allow_shrink, msg, msgsize);
    if (strcmp(key, "vmexit_us") == 0)
        return kvm_cfg_us(key, value, &c->vmexit_us, msg, msgsize);
    if (strcmp(key, "block_wake_us") == 0)
        return kvm_cfg_us(key, value, &c->block_wake_us, msg, msgsize);
    int rc;
    if (kvm_cfg_guest_timer(c, key, value, msg, msgsize, &rc))
        return rc;
    snprintf(msg, msgsize,
             "unknown key '%s' in [vm] (vcpus, pin, iothread_affinity, overcommit, guest_cpuidle, "
             "poll_control, halt_poll_ns, guest_halt_poll_ns, guest_halt_poll_grow, guest_halt_poll_shrink, "
             "guest_halt_poll_grow_start, guest_halt_poll_allow_shrink, vmexit_us, block_wake_us, "
             "guest_hz, guest_nohz, guest_timer_hz, guest_timer_pattern, guest_timer_irq_us)",
             key);
    return -1;
}

int kvm_vm_config_check(const struct kvm_vm_config *c, const struct hw_machine *m, char *msg,
                        size_t msgsize)
{
    int hostcpus = m->ncpus;
    if (c->npin) {
        if (c->npin != c->nvcpus)
            return snprintf(msg, msgsize, "pin lists %d CPUs for %d vCPUs (one per vCPU)",
                            c->npin, c->nvcpus), -1;
        hostcpus = 0;
        for (int i = 0; i < c->npin; i++) {
            if (c->pin[i] >= m->ncpus)
                return snprintf(msg, msgsize, "pin: CPU %d does not exist on %s (CPUs 0-%d)",
                                c->pin[i], m->name, m->ncpus - 1), -1;
            bool dup = false;
            for (int j = 0; j < i; j++)
                dup |= c->pin[j] == c->pin[i];
            hostcpus += !dup;
        }
    }
    if (c->nvcpus > hostcpus && !c->overcommit)
        return snprintf(msg, msgsize,
                        "%d vCPUs on %d host CPUs: overcommitted (say 'overcommit = yes' if meant)",
                        c->nvcpus, hostcpus), -1;
    return 0;
}

/* ---- the vCPU thread ---- */

static void kvm_vcpu_task_done(struct world *w, struct task *t);
static void kvm_vcpu_rq_grew(struct world *w, struct task *t);
static void kvm_vcpu_kick(struct world *w, struct kvm_vcpu *v, int waker_cpu);
static void kvm_lapic_switch_to_sw_timer(struct world *w, struct kvm_vcpu *v);
static void kvm_lapic_switch_to_hv_timer(struct world *w, struct kvm_vcpu *v);
static void kvm_guest_timer_fired(struct sim_event *ev, void *arg);
static void kvm_guest_timer_irq_done(struct world *w, struct kvm_guest_work *gw);
static void kvm_guest_own_timer_arm(struct world *w, struct kvm_vcpu *v, bool first);
static void kvm_guest_timer_program(struct world *w, struct kvm_vcpu *v);

/* The CPU QEMU's main thread runs on when it creates a VM's threads: the
 * boot CPU; where its launcher ran is not modelled. */
#define KVM_QEMU_CPU 0

/* The new vCPU thread ran its (empty) start and blocks in the halted guest;
 * an interrupt posted meanwhile kicks it at once. */
static void kvm_vcpu_started(struct world *w, struct task *t)
{
    struct kvm_vcpu *v = container_of(t, struct kvm_vcpu, task);
    t->done = kvm_vcpu_task_done;
    v->starting = false;
    if (v->head)
        kvm_vcpu_kick(w, v, kvm_vcpu_cpu(v));
    else
        kvm_lapic_switch_to_sw_timer(w, v); /* blocked in the halted guest */
}
static void kvm_poll_end(struct sim_event *ev, void *arg);

int kvm_vm_config_check_io_affinity(const struct kvm_vm_config *c, const struct hw_machine *m,
                                    char *msg, size_t msgsize)
{
    if (!c->has_io_affinity)
        return 0;
    for (int cpu = m->ncpus; cpu < KVM_MAX_HOST_CPUS; cpu++)
        if (c->io_affinity[cpu])
            return snprintf(msg, msgsize, "iothread_affinity: Invalid argument (CPU %d does not "
                            "exist on %s: CPUs 0-%d)", cpu, m->name, m->ncpus - 1), -1;
    return 0;
}

void kvm_init(struct world *w)
{
    struct kvm_sys *k = &w->kvm;
    memset(k, 0, sizeof *k);
    kvm_halt_poll_params_get(w->kp, &k->params);
    k->patch_nopoll = kparams_has_patch(w->kp, "kvm-powersave-nopoll");
    k->cpu_is_powersave = cpufreq_cpu_is_powersave;
}

void kvm_destroy(struct world *w)
{
    for (int i = 0; i < w->kvm.nvms; i++)
        free(w->kvm.vms[i].vcpus);
    free(w->kvm.vms);
    free(w->kvm.halt_poll_ns_on_cpu);
    free(w->kvm.iothread_mask);
    memset(&w->kvm, 0, sizeof w->kvm);
}

void kvm_create_vms(struct world *w, const struct kvm_vm_config *cfg, int n)
{
    struct kvm_sys *k = &w->kvm;
    k->vms = xcalloc((size_t)(n > 0 ? n : 1), sizeof *k->vms);
    k->nvms = n;
    k->halt_poll_ns_on_cpu = xcalloc((size_t)w->machine->ncpus, sizeof *k->halt_poll_ns_on_cpu);
    if (n > 0 && cfg[0].has_io_affinity) {
        k->iothread_mask = xcalloc((size_t)w->machine->ncpus, sizeof *k->iothread_mask);
        for (int cpu = 0; cpu < w->machine->ncpus; cpu++)
            k->iothread_mask[cpu] = cfg[0].io_affinity[cpu];
    }
    for (int i = 0; i < n; i++) {
        struct kvm *vm = &k->vms[i];
        vm->cfg = cfg[i];
        vm->hp = (struct haltpoll_params){
            .guest_halt_poll_ns = cfg[i].guest_halt_poll_ns, .grow = cfg[i].guest_halt_poll_grow,
            .shrink = cfg[i].guest_halt_poll_shrink, .grow_start = cfg[i].guest_halt_poll_grow_start,
            .allow_shrink = cfg[i].guest_halt_poll_allow_shrink,
        };
        vm->vcpus = xcalloc((size_t)cfg[i].nvcpus, sizeof *vm->vcpus);
        for (int j = 0; j < cfg[i].nvcpus; j++) {
            struct kvm_vcpu *v = &vm->vcpus[j];
            v->kvm = vm;
            v->vcpu_id = j;
            /* QEMU's main thread (on CPU 0) creates the vCPU thread; the
             * kernel places it, or its pin does. */
            task_init(&v->task, kvm_vcpu_started, KVM_QEMU_CPU);
            v->task.comm = "qemu-vcpu";
            v->task.rq_grew = kvm_vcpu_rq_grew;
            task_set_affinity(&v->task, cfg[i].npin ? cfg[i].pin[j] : -1);
            v->starting = true;
            sim_event_init(&v->poll_end_ev, kvm_poll_end);
            /* Born halted: the guest idles until its first interrupt. */
            v->state = KVM_VCPU_BLOCKED;
            v->halt_start_ns = v->idle_start_ns = w->q.now_ns;
            v->in_guest_idle = true;
            /* [K6] reset value 1; the guest haltpoll driver writes 0 when its
             * CPU comes online, if the host offers the feature. */
            v->msr_poll_control = KVM_POLL_CONTROL_ENABLE;
            if (cfg[i].guest_idle == KVM_GUEST_IDLE_HALTPOLL && cfg[i].poll_control)
                v->msr_poll_control = 0;
            /* The guest's timers: an idle guest with nohz has its tick
             * stopped; its own timers run from the start. */
            sim_event_init(&v->guest_timer_ev, kvm_guest_timer_fired);
            v->sw_timer_cpu = -1;
            v->guest_tick_running = !cfg[i].guest_nohz;
            v->timer_irq = (struct kvm_guest_work){
                .work_ns = cfg[i].guest_timer_irq_us * 1000.0, .fn = kvm_guest_timer_irq_done,
            };
            kvm_guest_own_timer_arm(w, v, true);
            kvm_guest_timer_program(w, v);
            task_fork(w, &v->task, 0, KVM_QEMU_CPU);
        }
    }
}

struct kvm_vcpu *kvm_get_vcpu(struct world *w, int vm, int i)
{
    if (vm < 0 || vm >= w->kvm.nvms || i < 0 || i >= w->kvm.vms[vm].cfg.nvcpus)
        return NULL;
    return &w->kvm.vms[vm].vcpus[i];
}

int kvm_vcpu_cpu(const struct kvm_vcpu *v)
{
    return v->task.cpu >= 0 ? v->task.cpu : v->task.prev_cpu;
}

/* ---- the guest's timers and their host side ---- */

/* The guest's next tick after now: its jiffy boundaries at 1 / guest_hz
 * (every vCPU's tick on the same boundaries: sched_skew_tick is off by
 * default). */
static sim_time_t kvm_guest_next_tick_ns(const struct kvm_vcpu *v, sim_time_t now_ns)
{
    sim_time_t period = SIM_NS_PER_S / v->kvm->cfg.guest_hz;
    return (now_ns / period + 1) * period;
}

/* The next of the guest's own timers (guest_timer_hz; none at 0). first:
 * the stream starts (a periodic one at a random phase). */
static void kvm_guest_own_timer_arm(struct world *w, struct kvm_vcpu *v, bool first)
{
    const struct kvm_vm_config *c = &v->kvm->cfg;
    v->guest_own_timer_ns = SIM_TIME_MAX;
    if (c->guest_timer_hz <= 0)
        return;
    struct sim_rng *rng = &w->rng[WORLD_STREAM_GUEST_TIMERS];
    double mean_ns = (double)SIM_NS_PER_S / c->guest_timer_hz;
    double gap_ns = c->guest_timer_pattern == KVM_GUEST_TIMER_POISSON
                        ? sim_rng_exp(rng, mean_ns)
                        : (first ? sim_rng_uniform(rng) * mean_ns : mean_ns);
    v->guest_own_timer_ns = w->q.now_ns + 1 + (sim_time_t)gap_ns;
}

/* The guest's LAPIC deadline: its next clock event, the earlier of the next
 * tick (while the tick runs) and its next own timer; SIM_TIME_MAX none. */
static sim_time_t kvm_guest_deadline_ns(const struct world *w, const struct kvm_vcpu *v)
{
    sim_time_t next = v->guest_own_timer_ns;
    if (v->guest_tick_running) {
        sim_time_t tick = kvm_guest_next_tick_ns(v, w->q.now_ns);
        if (tick < next)
            next = tick;
    }
    return next;
}

/* The host CPU's view of the guest timers queued on it as hrtimers: the
 * earliest of its halted vCPUs' (several VMs' vCPUs may share a CPU). */
static void kvm_host_guest_timers_update(struct world *w, int cpu)
{
    sim_time_t next = SIM_TIME_MAX;
    for (int i = 0; i < w->kvm.nvms; i++)
        for (int j = 0; j < w->kvm.vms[i].cfg.nvcpus; j++) {
            const struct kvm_vcpu *v = &w->kvm.vms[i].vcpus[j];
            if (v->sw_timer_cpu == cpu && sim_event_pending(&v->guest_timer_ev) &&
                v->guest_timer_ev.when_ns < next)
                next = v->guest_timer_ev.when_ns;
        }
    idle_set_guest_timer(w, cpu, next);
}

/* The guest (re)programs its LAPIC timer: the tick started or stopped, or
 * its handler re-armed the next event. */
static void kvm_guest_timer_program(struct world *w, struct kvm_vcpu *v)
{
    sim_event_cancel(&w->q, &v->guest_timer_ev);
    sim_time_t when = kvm_guest_deadline_ns(w, v);
    /* A deadline already past (an own timer that came due while its
     * interrupt waited to be handled) fires at once, as a TSC deadline
     * written in the past does. */
    if (when < w->q.now_ns)
        when = w->q.now_ns;
    if (when != SIM_TIME_MAX)
        sim_event_schedule(&w->q, &v->guest_timer_ev, when);
    if (v->sw_timer_cpu >= 0)
        kvm_host_guest_timers_update(w, v->sw_timer_cpu);
}

/* vcpu_block: before polling or blocking, the guest's timer moves from the
 * hypervisor timer (which runs only in guest mode) to an hrtimer on the host
 * CPU running the vCPU thread (arch/x86/kvm/x86.c vcpu_block,
 * lapic.c kvm_lapic_switch_to_sw_timer; FACTS-3.md §4). */
static void kvm_lapic_switch_to_sw_timer(struct world *w, struct kvm_vcpu *v)
{
    v->sw_timer_cpu = kvm_vcpu_cpu(v);
    kvm_host_guest_timers_update(w, v->sw_timer_cpu);
}

/* After the halt, back to the hypervisor timer: no host hrtimer. */
static void kvm_lapic_switch_to_hv_timer(struct world *w, struct kvm_vcpu *v)
{
    int cpu = v->sw_timer_cpu;
    if (cpu < 0)
        return;
    v->sw_timer_cpu = -1;
    kvm_host_guest_timers_update(w, cpu);
}

/* The guest's timer expires. Halted, it is the host hrtimer: apic_timer_fn
 * -> apic_timer_expired -> kvm_vcpu_kick, a wake-up of the vCPU from the
 * CPU the hrtimer is on (it ends a halt poll at its next check, or wakes
 * the blocked thread); the guest then runs its timer interrupt (timer_irq,
 * one pending interrupt however many timers expired), which re-arms the
 * next event, and halts again. Running (or on its way back from a halt),
 * the interrupt is taken in the guest at once: pmlab does not split a
 * segment, so the handler's time is charged to the vCPU's next piece of
 * work and the next event is armed now. In the guest haltpoll POLL state
 * the handler runs inside poll_idle's loop, which goes on (it checks only
 * need_resched): the vCPU stays in the poll, the handler's time not
 * separated from the polling. */
static void kvm_guest_timer_fired(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct kvm_vcpu *v = container_of(ev, struct kvm_vcpu, guest_timer_ev);
    if (v->guest_own_timer_ns <= w->q.now_ns)
        kvm_guest_own_timer_arm(w, v, false);
    v->guest_timer_irqs++;
    int cpu = v->sw_timer_cpu;
    if (cpu >= 0)
        kvm_host_guest_timers_update(w, cpu); /* the hrtimer left the host's queue */
    switch (v->state) {
    case KVM_VCPU_HALT_POLL:
    case KVM_VCPU_BLOCKED:
        if (v->timer_irq_queued)
            return;
        v->timer_irq_queued = true;
        v->guest_timer_wakeups++;
        kvm_vcpu_post(w, v, &v->timer_irq, cpu >= 0 ? cpu : kvm_vcpu_cpu(v));
        return;
    case KVM_VCPU_RUN:
    case KVM_VCPU_WAKING:
        v->pending_overhead_ns += v->timer_irq.work_ns;
        break;
    case KVM_VCPU_GUEST_POLL:
        break;
    }
    if (!v->timer_irq_queued) /* else its handler, still to run, re-arms */
        kvm_guest_timer_program(w, v);
}

/* The guest's timer interrupt handler ran: it programmed the next event. */
static void kvm_guest_timer_irq_done(struct world *w, struct kvm_guest_work *gw)
{
    struct kvm_vcpu *v = container_of(gw, struct kvm_vcpu, timer_irq);
    v->timer_irq_queued = false;
    kvm_guest_timer_program(w, v);
}

/* The guest's idle path decides about its tick: default_idle (no cpuidle
 * driver) calls tick_nohz_idle_stop_tick every time (kernel/sched/idle.c
 * cpuidle_idle_call); the haltpoll governor leaves stop_tick set when it
 * halts and clears it when it polls (haltpoll_select). The guest kernel
 * keeps its tick when its next timer is due within a tick of its last
 * jiffy (tick_nohz_next_event, as on the host). A stopped tick stays
 * stopped until the guest runs a task again; without nohz it never stops. */
static void kvm_guest_tick_idle(struct world *w, struct kvm_vcpu *v, bool stop_tick)
{
    if (!v->kvm->cfg.guest_nohz || !stop_tick || !v->guest_tick_running)
        return;
    if (tick_nohz_retains_tick(w->q.now_ns, SIM_NS_PER_S / v->kvm->cfg.guest_hz,
                               v->guest_own_timer_ns, false))
        return;
    v->guest_tick_running = false;
    kvm_guest_timer_program(w, v);
}

/* The guest leaves idle for work other than its timer interrupt (a device
 * interrupt that wakes a task): tick_nohz_idle_exit restarts the tick. A
 * timer interrupt alone does not (tick_nohz_irq_exit keeps it stopped). */
static void kvm_guest_tick_busy(struct world *w, struct kvm_vcpu *v)
{
    if (v->guest_tick_running)
        return;
    v->guest_tick_running = true;
    kvm_guest_timer_program(w, v);
}

/* A polling segment of window_ns: spins in C0 (task->polling). The segment
 * is given about window_ns of work at the CPU's current speed, so it ends by
 * itself even if it starts late; poll_end_ev ends it exactly on time. */
static void kvm_vcpu_start_poll(struct world *w, struct kvm_vcpu *v, sim_time_t window_ns)
{
    int cpu = kvm_vcpu_cpu(v);   /* a pinned vCPU's last CPU is its pin */
    v->task.polling = true;
    sim_event_schedule(&w->q, &v->poll_end_ev, w->q.now_ns + window_ns);
    sched_wake_task(w, &v->task, (double)window_ns * hw_thread_speed(&w->hw, cpu), cpu);
}

static void kvm_poll_end(struct sim_event *ev, void *arg)
{
    struct kvm_vcpu *v = container_of(ev, struct kvm_vcpu, poll_end_ev);
    sched_task_finish_now(arg, &v->task);
}

static int64_t kvm_vcpu_max_halt_poll_ns(const struct world *w, const struct kvm_vcpu *v)
{
    /* KVM_CAP_HALT_POLL overrides the module parameter for this VM [K7]. */
    return v->kvm->cfg.halt_poll_ns >= 0 ? v->kvm->cfg.halt_poll_ns : w->kvm.params.halt_poll_ns;
}

/* kvm_arch_no_poll for v on the host CPU it runs on. */
static bool kvm_arch_no_poll(const struct world *w, const struct kvm_vcpu *v)
{
    const struct kvm_sys *k = &w->kvm;
    /* The patch reads the policy only when polling is otherwise on, which is
     * what Sean asked for ("skip the work if polling is already off"). */
    if (!(v->msr_poll_control & KVM_POLL_CONTROL_ENABLE))
        return true;
    return kvm_arch_no_poll_decide(v->msr_poll_control, k->patch_nopoll,
                                   k->patch_nopoll && k->cpu_is_powersave(w, kvm_vcpu_cpu(v)));
}

/* The guest executed HLT: VM exit into kvm_vcpu_halt. Called with the
 * thread just off the CPU (in its done callback). */
static void kvm_vcpu_halt(struct world *w, struct kvm_vcpu *v)
{
    int64_t max_ns = kvm_vcpu_max_halt_poll_ns(w, v);
    v->halts++;
    v->halt_start_ns = w->q.now_ns;
    kvm_lapic_switch_to_sw_timer(w, v);
    v->pending_overhead_ns += v->kvm->cfg.vmexit_us * 1000.0;
    if (v->halt_poll_ns > max_ns)
        v->halt_poll_ns = max_ns;
    v->halt_poll_allowed = !kvm_arch_no_poll(w, v);
    if (v->halt_poll_allowed && v->halt_poll_ns > 0) {
        v->halt_attempted_poll++;
        /* kvm_vcpu_can_poll: the loop goes on only while this thread is
         * alone on its CPU; with another task queued there it checks for
         * its event once (none: the guest has no work) and blocks. */
        if (sched_single_task_running(w, kvm_vcpu_cpu(v), &v->task)) {
            v->state = KVM_VCPU_HALT_POLL;
            v->poll_start_ns = w->q.now_ns;
            kvm_vcpu_start_poll(w, v, v->halt_poll_ns);
            return;
        }
    }
    v->state = KVM_VCPU_BLOCKED; /* kvm_vcpu_block: the thread sleeps */
    v->task.polling = false;
}

/* The halt is over (after a poll that saw the interrupt, or a block and
 * wakeup): adjust the window as kvm_vcpu_halt does, and the guest's. */
static void kvm_vcpu_halt_end(struct world *w, struct kvm_vcpu *v)
{
    sim_time_t halt_ns = w->q.now_ns - v->halt_start_ns;
    kvm_lapic_switch_to_hv_timer(w, v);
    if (v->halt_poll_allowed)
        v->halt_poll_ns = kvm_halt_poll_adjust(&w->kvm.params, kvm_vcpu_max_halt_poll_ns(w, v),
                                               v->halt_poll_ns, halt_ns);
    if (v->kvm->cfg.guest_idle == KVM_GUEST_IDLE_HALTPOLL)
        v->guest_poll_limit_ns = haltpoll_adjust_poll_limit(&v->kvm->hp, v->guest_poll_limit_ns,
                                                            halt_ns);
    v->guest_halted_ns += w->q.now_ns - (v->halt_start_ns > w->kvm.measure_start_ns
                                         ? v->halt_start_ns : w->kvm.measure_start_ns);
}

/* The guest has nothing to run: its idle loop. default_idle halts; the
 * haltpoll governor polls in the guest while its window says so
 * (haltpoll_select: window 0 -> halt; a poll that ran out -> halt; else poll). */
static void kvm_guest_idle(struct world *w, struct kvm_vcpu *v)
{
    if (!v->in_guest_idle) {
        v->in_guest_idle = true;
        v->idle_start_ns = w->q.now_ns;
    }
    if (v->kvm->cfg.guest_idle == KVM_GUEST_IDLE_HALTPOLL && v->guest_poll_limit_ns > 0 &&
        !(v->guest_last_was_poll && v->guest_poll_time_limit)) {
        kvm_guest_tick_idle(w, v, false);
        v->state = KVM_VCPU_GUEST_POLL;
        v->guest_last_was_poll = true;
        v->guest_poll_time_limit = false;
        kvm_vcpu_start_poll(w, v, v->guest_poll_limit_ns);
        return;
    }
    v->guest_last_was_poll = false;
    kvm_guest_tick_idle(w, v, true);
    kvm_vcpu_halt(w, v);
}

/* Leave guest idle (if in it) and run the next piece of guest work, or idle. */
static void kvm_vcpu_run_next(struct world *w, struct kvm_vcpu *v)
{
    struct kvm_guest_work *gw = v->head;
    if (!gw) {
        kvm_guest_idle(w, v);
        return;
    }
    if (v->in_guest_idle) {
        sim_time_t from = v->idle_start_ns > w->kvm.measure_start_ns ? v->idle_start_ns
                                                                      : w->kvm.measure_start_ns;
        v->guest_idle_ns += w->q.now_ns - from;
        v->in_guest_idle = false;
    }
    v->head = gw->next;
    if (!v->head)
        v->tail = NULL;
    gw->next = NULL;
    if (gw != &v->timer_irq)
        kvm_guest_tick_busy(w, v);
    v->curr = gw;
    v->state = KVM_VCPU_RUN;
    v->task.polling = false;
    double work_ns = gw->work_ns + v->pending_overhead_ns;
    v->pending_overhead_ns = 0;
    sched_wake_task(w, &v->task, work_ns, kvm_vcpu_cpu(v)); /* from its own done() */
}

/* The halt poll that ends now, inside the measurement window: to the vCPU's
 * statistics and to the host CPU it spun on (done() runs with the task just
 * off its CPU: prev_cpu). */
static void kvm_account_halt_poll(struct world *w, struct kvm_vcpu *v)
{
    struct kvm_sys *k = &w->kvm;
    sim_time_t from = v->poll_start_ns > k->measure_start_ns ? v->poll_start_ns
                                                              : k->measure_start_ns;
    v->halt_poll_ns_total += w->q.now_ns - from;
    k->halt_poll_ns_on_cpu[v->task.prev_cpu] += w->q.now_ns - from;
}

static void kvm_vcpu_task_done(struct world *w, struct task *t)
{
    struct kvm_vcpu *v = container_of(t, struct kvm_vcpu, task);
    sim_event_cancel(&w->q, &v->poll_end_ev);
    switch (v->state) {
    case KVM_VCPU_RUN: {
        struct kvm_guest_work *gw = v->curr;
        v->curr = NULL;
        gw->fn(w, gw); /* may post more work to v: it only queues while RUN */
        break;
    }
    case KVM_VCPU_GUEST_POLL:
        /* An interrupt ended the poll, or the window ran out (then the
         * governor halts next: poll_time_limit). */
        v->guest_poll_time_limit = v->head == NULL;
        break;
    case KVM_VCPU_HALT_POLL:
        kvm_account_halt_poll(w, v);
        if (!v->head) {
            /* Nothing came (the window ran out, or another task became
             * runnable here): block. A failed poll; the window is adjusted
             * from the whole halt when the thread wakes. */
            v->state = KVM_VCPU_BLOCKED;
            v->task.polling = false;
            return;
        }
        v->halt_successful_poll++;
        kvm_vcpu_halt_end(w, v);
        break;
    case KVM_VCPU_WAKING:
        kvm_vcpu_halt_end(w, v);
        break;
    case KVM_VCPU_BLOCKED:
        abort(); /* a sleeping thread has no segment to finish */
    }
    kvm_vcpu_run_next(w, v);
}

/* Another host task was queued on the vCPU's CPU. A halt poll stops at once
 * (kvm_vcpu_can_poll: single_task_running() and !need_resched(), FACTS.md
 * §4 [K2]) and the thread blocks, so the other task runs. Guest work and
 * guest haltpoll polling go on: they are guest mode, which only wakeup
 * preemption would interrupt, and pmlab's scheduler does not preempt. */
static void kvm_vcpu_rq_grew(struct world *w, struct task *t)
{
    struct kvm_vcpu *v = container_of(t, struct kvm_vcpu, task);
    if (v->state == KVM_VCPU_HALT_POLL)
        sched_task_finish_now(w, t); /* done() cancels poll_end_ev */
}

/* kvm_vcpu_kick of a blocked vCPU: wake its thread; the wakeup path (schedule
 * in, vcpu_load) runs before the guest does. */
static void kvm_vcpu_kick(struct world *w, struct kvm_vcpu *v, int waker_cpu)
{
    v->state = KVM_VCPU_WAKING;
    v->halt_wakeups++;
    v->task.polling = false;
    sched_wake_task(w, &v->task, v->kvm->cfg.block_wake_us * 1000.0, waker_cpu);
}

void kvm_vcpu_post(struct world *w, struct kvm_vcpu *v, struct kvm_guest_work *gw, int waker_cpu)
{
    gw->next = NULL;
    if (v->tail)
        v->tail->next = gw;
    else
        v->head = gw;
    v->tail = gw;
    switch (v->state) {
    case KVM_VCPU_GUEST_POLL:
    case KVM_VCPU_HALT_POLL:
        /* The poll loop sees the pending interrupt at its next check. */
        sim_event_cancel(&w->q, &v->poll_end_ev);
        sched_task_finish_now(w, &v->task);
        break;
    case KVM_VCPU_BLOCKED:
        if (!v->starting)   /* a starting thread takes its work when it blocks */
            kvm_vcpu_kick(w, v, waker_cpu);
        break;
    case KVM_VCPU_RUN:
    case KVM_VCPU_WAKING:
        break; /* runs after what it is doing */
    }
}

/* ---- metrics ---- */

void kvm_measure_reset(struct world *w)
{
    struct kvm_sys *k = &w->kvm;
    k->measure_start_ns = w->q.now_ns;
    for (int i = 0; i < k->nvms; i++) {
        for (int j = 0; j < k->vms[i].cfg.nvcpus; j++) {
            struct kvm_vcpu *v = &k->vms[i].vcpus[j];
            v->guest_idle_ns = v->guest_halted_ns = 0;
            v->halts = v->halt_attempted_poll = v->halt_successful_poll = v->halt_wakeups = 0;
            v->guest_timer_irqs = v->guest_timer_wakeups = 0;
            v->halt_poll_ns_total = 0;
        }
    }
    if (k->halt_poll_ns_on_cpu)
        memset(k->halt_poll_ns_on_cpu, 0,
               (size_t)w->machine->ncpus * sizeof *k->halt_poll_ns_on_cpu);
}

void kvm_collect_poll(struct world *w, const struct rpt_cpu_scope *sc, struct rpt_metric_set *out)
{
    const struct kvm_sys *k = &w->kvm;
    int ncpus = w->machine->ncpus;
    double window_ns = (double)(w->q.now_ns - k->measure_start_ns);
    if (k->nvms == 0 || window_ns <= 0)
        return;
    double poll = 0;
    for (int cpu = 0; cpu < ncpus; cpu++)
        if (rpt_scope_has(sc, cpu))
            poll += (double)k->halt_poll_ns_on_cpu[cpu];
    rpt_scope_put(out, sc, "kvm_poll_pct", "%", RPT_NEUTRAL,
                  100.0 * poll / (window_ns * rpt_scope_ncpus(sc, ncpus)));
}

void kvm_collect_metrics(struct world *w, struct rpt_metric_set *out)
{
    struct kvm_sys *k = &w->kvm;
    if (k->nvms == 0)
        return;
    sim_time_t now = w->q.now_ns, start = k->measure_start_ns;
    double window_ns = (double)(now - start);
    double idle = 0, halted = 0, attempted = 0, success = 0, wakeups = 0;
    int nvcpus = 0;
    for (int i = 0; i < k->nvms; i++) {
        for (int j = 0; j < k->vms[i].cfg.nvcpus; j++) {
            const struct kvm_vcpu *v = &k->vms[i].vcpus[j];
            sim_time_t from = v->idle_start_ns > start ? v->idle_start_ns : start;
            idle += (double)v->guest_idle_ns + (v->in_guest_idle ? (double)(now - from) : 0);
            bool halted_now = v->state == KVM_VCPU_HALT_POLL || v->state == KVM_VCPU_BLOCKED ||
                              v->state == KVM_VCPU_WAKING;
            from = v->halt_start_ns > start ? v->halt_start_ns : start;
            halted += (double)v->guest_halted_ns + (halted_now ? (double)(now - from) : 0);
            attempted += (double)v->halt_attempted_poll;
            success += (double)v->halt_successful_poll;
            wakeups += (double)v->halt_wakeups;
            nvcpus++;
        }
    }
    if (window_ns <= 0)
        return;
    double vcpu_ns = window_ns * nvcpus;
    rpt_set_put(out, "guest_idle_pct", "%", RPT_NEUTRAL, 100.0 * idle / vcpu_ns);
    rpt_set_put(out, "guest_halt_pct", "%", RPT_NEUTRAL, 100.0 * halted / vcpu_ns);
    kvm_collect_poll(w, &rpt_scope_host, out);
    rpt_set_put(out, "halt_poll_success_pct", "%", RPT_NEUTRAL,
                attempted > 0 ? 100.0 * success / attempted : 0);
    rpt_set_put(out, "vcpu_wakeups_per_s", "1/s", RPT_NEUTRAL, wakeups / (window_ns / 1e9));
}

/* ---- host I/O thread ---- */

static void kvm_iothread_done(struct world *w, struct task *t);
static void kvm_iothread_next(struct world *w, struct kvm_iothread *io, int waker_cpu);
int kvm_iothread_cpu(const struct kvm_iothread *io);

/* The thread ran its (empty) start: take what was submitted meanwhile. */
static void kvm_iothread_started(struct world *w, struct task *t)
{
    struct kvm_iothread *io = container_of(t, struct kvm_iothread, task);
    t->done = kvm_iothread_done;
    io->starting = false;
    if (io->head)
        kvm_iothread_next(w, io, kvm_iothread_cpu(io));
}

void kvm_iothread_start(struct world *w, struct kvm_iothread *io, int parent_cpu)
{
    memset(io, 0, sizeof *io);
    task_init(&io->task, kvm_iothread_started, parent_cpu);
    io->task.comm = "qemu-iothread";
    if (w->kvm.iothread_mask)
        task_set_cpus_allowed(&io->task, w->kvm.iothread_mask, w->machine->ncpus);
    io->starting = true;
    task_fork(w, &io->task, 0, parent_cpu);
}

int kvm_iothread_cpu(const struct kvm_iothread *io)
{
    return io->task.cpu >= 0 ? io->task.cpu : io->task.prev_cpu;
}

static void kvm_iothread_next(struct world *w, struct kvm_iothread *io, int waker_cpu)
{
    struct kvm_io_req *r = io->head;
    if (!r)
        return; /* sleep until the next submission */
    io->head = r->next;
    if (!io->head)
        io->tail = NULL;
    r->next = NULL;
    io->curr = r;
    sched_wake_task(w, &io->task, r->work_ns, waker_cpu);
}

static void kvm_iothread_done(struct world *w, struct task *t)
{
    struct kvm_iothread *io = container_of(t, struct kvm_iothread, task);
    struct kvm_io_req *r = io->curr;
    r->fn(w, r); /* may submit more: it queues while curr is set */
    io->curr = NULL;
    kvm_iothread_next(w, io, kvm_iothread_cpu(io));
}

void kvm_iothread_submit(struct world *w, struct kvm_iothread *io, struct kvm_io_req *r,
                         int waker_cpu)
{
    r->next = NULL;
    if (io->tail)
        io->tail->next = r;
    else
        io->head = r;
    io->tail = r;
    if (!io->curr && !io->starting)
        kvm_iothread_next(w, io, waker_cpu);
}
