/* explain_kvm: the KVM line of `pmlab explain`, printed from struct
 * kvm_explain (kernel/kvm/kvm.h), and a VM's guest timers from its
 * [vm NAME] configuration. */
#include "kernel/kvm/kvm.h"
#include "report/explain.h"

void explain_add_kvm(struct explain *x, const struct kvm_explain *e)
{
    const struct kvm_halt_poll_params *p = &e->halt_poll;
    explain_add(x, "kvm: halt_poll_ns %lld, halt_poll_ns_grow %lld, halt_poll_ns_grow_start %lld, "
                   "halt_poll_ns_shrink %lld%s", (long long)p->halt_poll_ns, (long long)p->grow,
                (long long)p->grow_start, (long long)p->shrink,
                e->patch_nopoll ? "; patch kvm-powersave-nopoll: no polling on powersave CPUs" : "");
    /* No measured PAUSE-loop power is known for any part (FACTS-3.md §9). */
    if (e->poll_power_ratio == 1.0)
        explain_add(x, "kvm: a polling core draws its full active power (poll_power_ratio 1, "
                       "the default: no PAUSE saving assumed; no measured figure is known)");
    else
        explain_add(x, "kvm: a polling core draws %g x its active power (poll_power_ratio, an "
                       "estimate: no measured PAUSE-loop power is known)", e->poll_power_ratio);
}

void explain_add_vm(struct explain *x, const struct kvm_vm_config *c)
{
    explain_add(x, "vm %s: %d vCPUs; guest timers: tick %d Hz, %s; own timers %g/s per vCPU "
                   "(%s%s), handler %g us; halted, they are host hrtimers on the vCPU's CPU",
                c->name, c->nvcpus, c->guest_hz,
                c->guest_nohz ? "nohz idle (stopped on an idle vCPU)" : "never stopped (no nohz)",
                c->guest_timer_hz,
                c->guest_timer_pattern == KVM_GUEST_TIMER_POISSON ? "Poisson" : "periodic",
                c->guest_timer_hz == kvm_guest_timer_hz_default() ? ", estimate" : "",
                c->guest_timer_irq_us);
}
