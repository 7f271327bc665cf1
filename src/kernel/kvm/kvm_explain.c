/* kvm_explain: the KVM lines of `pmlab explain`: the halt-polling module
 * parameters as /sys/module/kvm/parameters shows them, and whether the
 * kvm-powersave-nopoll patch is applied. */
#include "kernel/kvm/kvm.h"
#include "report/explain.h"

void kvm_explain(const struct hw_machine *m, const struct kparams *kp, struct explain *x);
void kvm_explain(const struct hw_machine *m, const struct kparams *kp, struct explain *x)
{
    (void)m;
    struct kvm_halt_poll_params p;
    kvm_halt_poll_params_get(kp, &p);
    explain_add(x, "kvm: halt_poll_ns %lld, halt_poll_ns_grow %lld, halt_poll_ns_grow_start %lld, "
                   "halt_poll_ns_shrink %lld%s", (long long)p.halt_poll_ns, (long long)p.grow,
                (long long)p.grow_start, (long long)p.shrink,
                kparams_has_patch(kp, "kvm-powersave-nopoll")
                    ? "; patch kvm-powersave-nopoll: no polling on powersave CPUs" : "");
}
