/* params_unmodelled: kernel parameters that exist but pmlab does not model.
 *
 * Why: a variant's cmdline is often a paste of a real /proc/cmdline, which
 * holds BOOT_IMAGE=, root=, quiet and the like next to the settings that
 * matter. The kernel accepts its own parameters whatever they are, passes
 * words it does not know to init with a warning, and leaves module
 * parameters to their module; so does pmlab (kparams_set_cmdline). A
 * parameter listed here is one the kernel knows: it is accepted with a
 * one-line note saying what it would do and that pmlab leaves it out, so
 * nobody mistakes it for a modelled one; the ones that change the idle path
 * say so (README, "Status"). The list holds the parameters of
 * Documentation/admin-guide/kernel-parameters.txt commonly seen on servers
 * and laptops, not all of them: anything else gets the kernel's "passed to
 * user space" warning, which is what an unknown word gets on a real kernel. */
#include "kernel/params.h"

#include <stdbool.h>
#include <string.h>

#include "util/suggest.h"

static const struct {
    const char *name;
    const char *what;
} kparam_unmodelled_table[] = {
    /* The idle path and the tick: results on those CPUs will differ. */
    { "rcu_nocb_poll", "RCU offload threads poll: changes wake-ups" },
    { "irqaffinity", "default interrupt affinity" },
    { "skew_tick", "tick offset per CPU" },
    { "maxcpus", "CPUs brought up at boot" },
    { "nr_cpus", "CPUs the kernel supports" },
    { "nosmp", "one CPU only" },
    { "threadirqs", "interrupt handlers in threads" },
    { "preempt", "preemption model" },
    { "nowatchdog", "no lockup detectors" },
    { "nmi_watchdog", "NMI watchdog" },
    { "nosoftlockup", "no soft-lockup detector" },
    { "clocksource", "clock source" },
    { "tsc", "TSC handling" },
    { "hpet", "HPET" },
    { "acpi", "ACPI mode" },
    { "acpi_osi", "the _OSI strings ACPI firmware is told" },
    { "acpi_backlight", "ACPI backlight control" },
    { "pcie_aspm", "PCIe link power management" },
    { "intel_iommu", "Intel IOMMU" },
    { "amd_iommu", "AMD IOMMU" },
    { "iommu", "IOMMU mode" },
    { "transparent_hugepage", "transparent huge pages" },
    { "hugepages", "huge pages reserved at boot" },
    { "hugepagesz", "huge page size" },
    { "default_hugepagesz", "default huge page size" },
    { "numa_balancing", "automatic NUMA balancing" },
    { "mem", "memory size" },
    /* Mitigations other than Spectre v2 / Retbleed: no idle-path effect. */
    { "pti", "page-table isolation" },
    { "nopti", "no page-table isolation" },
    { "spectre_v2_user", "user-space Spectre v2 mitigation" },
    { "spec_store_bypass_disable", "Speculative Store Bypass mitigation" },
    { "nospec_store_bypass_disable", "no Speculative Store Bypass mitigation" },
    { "l1tf", "L1TF mitigation" },
    { "mds", "MDS mitigation (VERW on idle entry)" },
    { "tsx", "TSX" },
    { "tsx_async_abort", "TAA mitigation" },
    { "mmio_stale_data", "MMIO stale data mitigation" },
    { "srbds", "SRBDS mitigation" },
    { "gather_data_sampling", "GDS mitigation" },
    { "spectre_bhi", "BHI mitigation" },
    { "nospectre_v1", "no Spectre v1 mitigation" },
    /* Boot, storage, security, logging: no effect on what pmlab models. */
    { "root", "root file system" },
    { "rootfstype", "root file system type" },
    { "rootflags", "root mount options" },
    { "rootwait", "wait for the root device" },
    { "ro", "root mounted read-only" },
    { "rw", "root mounted read-write" },
    { "init", "init program" },
    { "initrd", "initial RAM disk" },
    { "resume", "resume device" },
    { "resume_offset", "resume offset" },
    { "noresume", "no resume" },
    { "quiet", "quiet boot log" },
    { "loglevel", "console log level" },
    { "ignore_loglevel", "print every message" },
    { "debug", "debug log level" },
    { "console", "console device" },
    { "earlycon", "early console" },
    { "earlyprintk", "early console" },
    { "log_buf_len", "log buffer size" },
    { "panic", "reboot after a panic" },
    { "crashkernel", "kdump memory" },
    { "audit", "audit subsystem" },
    { "selinux", "SELinux" },
    { "apparmor", "AppArmor" },
    { "security", "security module" },
    { "lsm", "security modules" },
    { "nokaslr", "no address-space randomisation" },
    { "nomodeset", "no kernel mode setting" },
    { "psi", "pressure stall information" },
    { "cgroup_enable", "cgroup controllers" },
    { "cgroup_disable", "cgroup controllers" },
    { "cgroup_no_v1", "cgroup v1 controllers" },
    { "efi", "EFI options" },
    { "noefi", "no EFI runtime services" },
    { "mce", "machine-check handling" },
    { "vsyscall", "vsyscall page" },
    { "init_on_alloc", "zero memory on allocation" },
    { "init_on_free", "zero memory on free" },
    { "elevator", "I/O scheduler" },
    /* Parameters of modules pmlab leaves out, worth a word of their own. */
    { "pcie_aspm.policy", "PCIe link power policy" },
    { "workqueue.power_efficient", "unbound work for power-efficient workqueues" },
};

/* The kernel's parameq(): '-' and '_' are the same character. */
static bool kparam_unmodelled_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if ((*a == '-' ? '_' : *a) != (*b == '-' ? '_' : *b))
            return false;
    return *a == *b;
}

const char *kparam_unmodelled(const char *name)
{
    for (size_t i = 0; i < sizeof kparam_unmodelled_table / sizeof kparam_unmodelled_table[0]; i++)
        if (kparam_unmodelled_eq(kparam_unmodelled_table[i].name, name))
            return kparam_unmodelled_table[i].what;
    return NULL;
}

void kparam_unmodelled_suggest(struct suggest *s)
{
    for (size_t i = 0; i < sizeof kparam_unmodelled_table / sizeof kparam_unmodelled_table[0]; i++)
        suggest_add(s, kparam_unmodelled_table[i].name);
}
