/* KVM halt-polling knobs (virt/kvm/kvm_main.c module parameters, all 0644,
 * FACTS.md §4 [K1-K5]): kvm.NAME on the command line,
 * /sys/module/kvm/parameters/NAME at run time. The shrink default changed
 * with the kernel version, which kvm_halt_poll_params_get() applies when the
 * variant does not set it. */
#include <stddef.h>

#include "kernel/params.h"

const struct kparam kvm_params[] = {
    {
        .name = "kvm.halt_poll_ns", .sysfs = "/sys/module/kvm/parameters/halt_poll_ns",
        .sources = KPARAM_SRC_CMDLINE | KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 4294967295LL,
        .def = "200000", .unit = "ns", .since = "4.0",
        .desc = "longest a vCPU polls after HLT before blocking (x86 KVM_HALT_POLL_NS_DEFAULT); 0 disables polling; a VM's KVM_CAP_HALT_POLL overrides it",
    },
    {
        .name = "kvm.halt_poll_ns_grow", .sysfs = "/sys/module/kvm/parameters/halt_poll_ns_grow",
        .sources = KPARAM_SRC_CMDLINE | KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 4294967295LL,
        .def = "2", .unit = "", .since = "4.3",
        .desc = "factor a vCPU's window grows by after a short halt it missed; 0 never grows",
    },
    {
        .name = "kvm.halt_poll_ns_grow_start",
        .sysfs = "/sys/module/kvm/parameters/halt_poll_ns_grow_start",
        .sources = KPARAM_SRC_CMDLINE | KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 4294967295LL,
        .def = "10000", .unit = "ns", .since = "5.4",
        .desc = "first non-zero window when growing; a window shrunk below it becomes 0",
    },
    {
        .name = "kvm.halt_poll_ns_shrink",
        .sysfs = "/sys/module/kvm/parameters/halt_poll_ns_shrink",
        .sources = KPARAM_SRC_CMDLINE | KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = 4294967295LL,
        .def = "2", .unit = "", .since = "4.3",
        .desc = "divisor of the window after a long halt; 0 resets it to 0. Default 2 since 6.11, 0 before",
    },
    { .name = NULL },
};
