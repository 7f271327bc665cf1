/* explain_kvm: the KVM line of `pmlab explain`, printed from struct
 * kvm_explain (kernel/kvm/kvm.h). */
#include "kernel/kvm/kvm.h"
#include "report/explain.h"

void explain_add_kvm(struct explain *x, const struct kvm_explain *e)
{
    const struct kvm_halt_poll_params *p = &e->halt_poll;
    explain_add(x, "kvm: halt_poll_ns %lld, halt_poll_ns_grow %lld, halt_poll_ns_grow_start %lld, "
                   "halt_poll_ns_shrink %lld%s", (long long)p->halt_poll_ns, (long long)p->grow,
                (long long)p->grow_start, (long long)p->shrink,
                e->patch_nopoll ? "; patch kvm-powersave-nopoll: no polling on powersave CPUs" : "");
}
