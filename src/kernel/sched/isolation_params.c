/* CPU isolation and SMT control on the command line (kernel/sched/isolation.c
 * housekeeping_setup, kernel/time/tick-sched.c, kernel/rcu/tree_nocb.h,
 * kernel/cpu.c cpu_smt_control): what isolation.c resolves them to is in
 * isolation.h. Versions: nohz_full and CONFIG_NO_HZ_FULL 3.10, rcu_nocbs
 * 3.7 (RCU_NOCB_CPU), nosmt and smt/control 4.19 (the L1TF SMT control);
 * isolcpus is in the first git tree (2.6.12). From the commits' merge
 * windows, not checked against release tags. */
#include <stddef.h>
#include <string.h>

#include "kernel/params.h"

/* isolcpus= flags (housekeeping_isolcpus_setup): nohz and domain since v4.15,
 * managed_irq since v5.6 (isolation.c keys them by version). */
static const char *const isolcpus_flags[] = { "nohz", "domain", "managed_irq", NULL };
static const char *const smt_control_choices[] = { "on", "off", "forceoff", NULL };

/* nosmt=force (kernel/cpu.c smt_cmdline_disable): SMT off and not to be
 * turned on at run time; for a run, the same as nosmt. */
static int nosmt_parse(const char *text, int64_t *out)
{
    if (strcmp(text, "force") != 0)
        return 1;
    *out = 1;
    return 0;
}

const struct kparam isolation_params[] = {
    {
        .name = "CONFIG_NO_HZ_FULL", .sources = KPARAM_SRC_CONFIG,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "y", .unit = "", .since = "3.10",
        .desc = "adaptive ticks may be enabled with nohz_full= (Debian, Fedora, Ubuntu: y); n: nohz_full= and isolcpus=nohz are ignored",
    },
    {
        .name = "nohz_full", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_CPULIST, .scope = KPARAM_GLOBAL,
        .def = "", .unit = "", .since = "3.10",
        .desc = "adaptive-tick CPUs: no tick while one task runs (1 Hz residual, from a housekeeping CPU since 4.17); unbound timers and kthreads move to the other CPUs; implies rcu_nocbs",
    },
    {
        .name = "isolcpus", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_CPULIST, .scope = KPARAM_GLOBAL, .choices = isolcpus_flags,
        .def = "", .unit = "", .since = "2.6.12",
        .desc = "[nohz,][domain,][managed_irq,]LIST: CPUs in no scheduler domain (no balancing, default affinity elsewhere; no flag = domain); nohz as nohz_full; managed_irq: device interrupts elsewhere where possible",
    },
    {
        .name = "rcu_nocbs", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_CPULIST, .scope = KPARAM_GLOBAL,
        .def = "", .unit = "", .since = "3.7",
        .desc = "CPUs whose RCU callbacks rcuo kthreads run (on the kthread CPUs) instead of the CPU's RCU softirq: their callbacks no longer hold the tick",
    },
    {
        .name = "nosmt", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = "4.19", .parse_special = nosmt_parse,
        .desc = "SMT off at boot (nosmt=force: and not to be turned on): every core's secondary threads offline, parked in the deepest C-state",
    },
    {
        .name = "smt_control", .sysfs = "/sys/devices/system/cpu/smt/control",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = smt_control_choices,
        .def = "on", .unit = "", .since = "4.19",
        .desc = "off/forceoff: the secondary threads go offline, as with nosmt",
    },
    { .name = NULL },
};
