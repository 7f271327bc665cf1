/* PM QoS latency knobs (kernel/power/qos.c, drivers/base/power/sysfs.c): the
 * global CPU latency limit behind /dev/cpu_dma_latency and each CPU's resume
 * latency limit. The effective limit of a CPU is the smaller of the two
 * (FACTS.md §2 [C1, C3]); values are stored in µs. */
#include <string.h>

#include "kernel/params.h"

/* PM_QOS_CPU_LATENCY_DEFAULT_VALUE: 2000 s in µs, i.e. no limit. */
#define PM_QOS_CPU_LATENCY_DEFAULT_US 2000000000LL
/* PM_QOS_RESUME_LATENCY_NO_CONSTRAINT (S32_MAX), in µs. */
#define PM_QOS_RESUME_NO_CONSTRAINT_US 2147483647LL

/* Since 4.14 (0cc2b4e5a020) the sysfs file reads "0" as "no constraint" and
 * "n/a" as "no latency tolerated at all". */
static int pm_qos_resume_parse(const char *text, int64_t *out)
{
    if (strcmp(text, "n/a") == 0)
        return *out = 0, 0;
    if (strcmp(text, "0") == 0)
        return *out = PM_QOS_RESUME_NO_CONSTRAINT_US, 0;
    return 1;
}

const struct kparam pm_qos_params[] = {
    {
        .name = "cpu_dma_latency", .sysfs = "/dev/cpu_dma_latency",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_GLOBAL, .min = 0, .max = PM_QOS_CPU_LATENCY_DEFAULT_US,
        .def = "2000000000", .unit = "us", .since = "2.6.25",
        .desc = "global CPU latency limit (a process holding /dev/cpu_dma_latency open); 0 allows only state 0",
    },
    {
        .name = "pm_qos_resume_latency_us",
        .sysfs = "/sys/devices/system/cpu/cpu{cpu}/power/pm_qos_resume_latency_us",
        .sources = KPARAM_SRC_SYSFS,
        .type = KPARAM_INT, .scope = KPARAM_PER_CPU, .min = 1,
        .max = PM_QOS_RESUME_NO_CONSTRAINT_US, .parse_special = pm_qos_resume_parse,
        .def = "0", .unit = "us", .since = "4.14",
        .desc = "this CPU's resume latency limit; 0 = no constraint, n/a = no latency at all",
    },
    { .name = NULL },
};
