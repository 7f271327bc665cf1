/* KVM halt-polling knobs (virt/kvm/kvm_main.c, FACTS.md §4): filled in with
 * the KVM model. */
#include <stddef.h>

#include "kernel/params.h"

const struct kparam kvm_params[] = {
    { .name = NULL },
};
