/* kvm_explain: what `pmlab explain` shows of KVM: the halt-polling module
 * parameters as /sys/module/kvm/parameters shows them, and whether the
 * kvm-powersave-nopoll patch is applied, and the machine's polling power. */
#include "kernel/kvm/kvm.h"

void kvm_explain(const struct hw_machine *m, const struct kparams *kp, struct kvm_explain *e)
{
    kvm_halt_poll_params_get(kp, &e->halt_poll);
    e->patch_nopoll = kparams_has_patch(kp, "kvm-powersave-nopoll");
    /* The power a polling core draws: no measured figure is known for any
     * part (FACTS-3.md §9), so explain calls it an estimate. */
    e->poll_power_ratio = hw_machine_calib(m, "poll_power_ratio");
}
