/* kvm_explain: what `pmlab explain` shows of KVM: the halt-polling module
 * parameters as /sys/module/kvm/parameters shows them, and whether the
 * kvm-powersave-nopoll patch is applied. */
#include "kernel/kvm/kvm.h"

void kvm_explain(const struct kparams *kp, struct kvm_explain *e)
{
    kvm_halt_poll_params_get(kp, &e->halt_poll);
    e->patch_nopoll = kparams_has_patch(kp, "kvm-powersave-nopoll");
}
