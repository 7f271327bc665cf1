/* amd-pstate: AMD's CPPC scaling driver (drivers/cpufreq/amd-pstate.c,
 * FACTS-2.md §6), as three cpufreq drivers chosen at boot:
 *  - passive ("amd-pstate"): a target driver under the generic governors;
 *    the requested performance is the governor's target (desired = target);
 *  - guided ("amd-pstate"): the same driver, but the target becomes the
 *    minimum of a range whose maximum is the policy max, and the platform
 *    picks within it (modelled by the autonomous-frequency model, hw/hwp.h,
 *    as intel_cpufreq with HWP);
 *  - active ("amd-pstate-epp"): a setpolicy driver with its own performance
 *    and powersave; the platform chooses from min, max and EPP (hw/hwp.h).
 * Which one loads, by kernel version: none before 6.1 (the 5.17 driver was
 * a module loaded by hand; pmlab takes acpi-cpufreq); 6.1 to 6.4 only with
 * amd_pstate= on the command line (passive 6.1, active 6.3, guided 6.4);
 * from 6.5 the build's default mode is active (CONFIG_X86_AMD_PSTATE_
 * DEFAULT_MODE=3 in distro configs, not verified in Kconfig) but without a
 * command-line mode the driver declines when the FADT PM profile is
 * unspecified or a server profile, so EPYC servers keep acpi-cpufreq.
 * amd_pstate=disable: acpi-cpufreq. Transition latency 20 µs, transition
 * delay 1000 µs.
 *
 * Preferred core (FACTS-2.md §6 [D1, D4]; amd_pstate_prefcore_init below):
 * from v6.9 (f3a052391822) each CPU's CPPC highest performance is its ITMT
 * priority (sched_set_itmt_core_prio) and ITMT support is set, so the
 * scheduler packs work toward the best-ranked cores (SD_ASYM_PACKING) as
 * with Intel's ITMT. Which CPUs count, by version: v6.9 to v6.11 every CPU
 * whose highest_perf reads below 255 (CPPC_MAX_PERF; 255 means firmware has
 * no ranking); from v6.12 (279f838a61f9, "x86/amd: Detect preferred cores in
 * amd_get_boost_ratio_numerator()") only a system where at least two CPUs
 * report different highest_perf (amd_detect_prefcore), then every CPU.
 * amd_prefcore=disable turns it off. Each mode of the driver does it
 * (amd_pstate_cpu_init and amd_pstate_epp_cpu_init). sysfs: amd_pstate/
 * prefcore reads "enabled" or "disabled", cpufreq/amd_pstate_hw_prefcore
 * and amd_pstate_prefcore_ranking per CPU (the ranking = the priority).
 *
 * Left out: the firmware's runtime re-ranking (amd_pstate_update_limits on
 * a highest-perf change notification), the
 * boost numerator (166/196) of the frequency scale (the machine file's
 * frequencies are used as they are), the shared-memory (non-MSR) CPPC
 * interface, runtime mode switching through amd_pstate/status, and AMD's
 * balance_power EPP value (0xBF: the shared EPP parser maps it to 0xC0). */
#include <stdio.h>
#include <string.h>

#include "kernel/acpi/cppc.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/x86/itmt.h"
#include "world.h"

#define AMD_PSTATE_LATENCY_NS (20 * SIM_NS_PER_US)       /* AMD_PSTATE_TRANSITION_LATENCY */
#define AMD_PSTATE_DELAY_NS (1000 * SIM_NS_PER_US)       /* AMD_PSTATE_TRANSITION_DELAY */
#define AMD_PREFCORE_SINCE "6.9"          /* f3a052391822, the 6.9 PM pull */
#define AMD_PREFCORE_DETECT_SINCE "6.12"  /* 279f838a61f9, amd-pstate series for 6.12 (tag
                                           * from the series date, not verified) */

/* Keep in order with the amd_pstate= choices (cpufreq_params.c). */
enum amd_pstate_mode {
    AMD_PSTATE_UNSET,
    AMD_PSTATE_DISABLE,
    AMD_PSTATE_PASSIVE,
    AMD_PSTATE_ACTIVE,
    AMD_PSTATE_GUIDED,
};

/* amd_pstate_epp_set_policy: performance or powersave; the platform picks
 * within [min, max] with the EPP (the HWP model, hw/hwp.h). */
static void amd_pstate_epp_set_policy(struct world *w, struct cpufreq_policy *p)
{
    intel_pstate_hwp_update_request(w, p);
}

static void amd_pstate_epp_update_util(struct world *w, struct cpufreq_policy *p)
{
    intel_pstate_hwp_eval(w, p->core, false);
}

static const struct cpufreq_driver amd_pstate_epp_driver = {
    .name = "amd-pstate-epp",
    /* Documentation/admin-guide/pm/amd-pstate.rst, active mode: the
     * platform's CPPC autonomous selection with the EPP hint. */
    .autonomous = "CPPC autonomous selection (active mode, EPP)",
    .setpolicy = true,
    .set_policy = amd_pstate_epp_set_policy,
    .update_util = amd_pstate_epp_update_util,
};

/* passive and guided: the target is the desired performance (passive) or
 * the floor of the platform's range (guided, hwp set) -- the same hook as
 * intel_cpufreq. */
static const struct cpufreq_driver amd_pstate_driver = {
    .name = "amd-pstate",
    /* guided mode (amd-pstate.rst): the platform selects autonomously at or
     * above the driver's desired performance; passive mode has hwp off. */
    .autonomous = "CPPC guided autonomous selection (guided mode)",
    .transition_latency_ns = AMD_PSTATE_LATENCY_NS,
    .transition_delay_ns = AMD_PSTATE_DELAY_NS,
    .target = intel_cpufreq_target,
};

/* The FADT PM profiles for which amd-pstate declines without a mode on the
 * command line: unspecified and the server ones. */
static bool amd_pstate_profile_declines(const char *profile)
{
    if (!profile[0])
        return true;            /* no [firmware]: unspecified */
    static const char *const declines[] = {
        "unspecified", "enterprise_server", "soho_server", "performance_server",
    };
    for (size_t i = 0; i < sizeof declines / sizeof declines[0]; i++)
        if (strcmp(profile, declines[i]) == 0)
            return true;
    return false;
}

/* The mode the driver starts in on m under kp, AMD_PSTATE_DISABLE when it
 * does not load. */
static enum amd_pstate_mode amd_pstate_mode(const struct hw_machine *m, const struct kparams *kp)
{
    const struct kversion *kv = &kp->kernel;
    if (!kversion_at_least(kv, "6.1"))
        return AMD_PSTATE_DISABLE;
    enum amd_pstate_mode mode = (enum amd_pstate_mode)kparams_get(kp, "amd_pstate", 0, -1);
    if (mode == AMD_PSTATE_UNSET) {
        if (!kversion_at_least(kv, "6.5") || amd_pstate_profile_declines(m->fw.pm_profile))
            return AMD_PSTATE_DISABLE;
        return AMD_PSTATE_ACTIVE;
    }
    return mode;
}

const struct cpufreq_driver *amd_pstate_probe(const struct hw_machine *m,
                                              const struct kparams *kp, bool *hwp)
{
    *hwp = false;
    if (strcmp(m->vendor, "amd") != 0 && strcmp(m->vendor, "hygon") != 0)
        return NULL;
    switch (amd_pstate_mode(m, kp)) {
    case AMD_PSTATE_UNSET:
    case AMD_PSTATE_DISABLE:
        return NULL;
    case AMD_PSTATE_PASSIVE:
        return &amd_pstate_driver;
    case AMD_PSTATE_GUIDED:
        *hwp = true;
        return &amd_pstate_driver;
    case AMD_PSTATE_ACTIVE:
        *hwp = true;
        return &amd_pstate_epp_driver;
    }
    return NULL;
}

/* ---- preferred core ---------------------------------------------------------- */

/* Whether cpu has a preferred-core ranking from firmware (hw_prefcore) and
 * which: its CPPC highest performance (MSR_AMD_CPPC_CAP1 or _CPC; the
 * machine file's [firmware] cpc_highest_perf). */
static bool amd_pstate_highest_perf(const struct hw_machine *m, const struct kparams *kp, int cpu,
                                    uint32_t *perf)
{
    struct cppc_perf_caps caps;
    if (cppc_get_perf_caps(m, kp, cpu, &caps) != 0)
        return false;
    *perf = caps.highest_perf;
    return true;
}

/* amd_detect_prefcore (v6.12): at least two CPUs with different highest
 * performance; false also when a CPU's cannot be read. */
static bool amd_detect_prefcore(const struct hw_machine *m, const struct kparams *kp)
{
    uint32_t first = 0, perf;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        if (!amd_pstate_highest_perf(m, kp, cpu, &perf))
            return false;
        if (cpu > 0 && perf != first)
            return true;
        first = cpu == 0 ? perf : first;
    }
    return false;
}

/* Why preferred core is off on m under kp (NULL when it is on), for the
 * sysctl's absence in explain. */
static const char *amd_prefcore_off_why(const struct hw_machine *m, const struct kparams *kp)
{
    if (!kversion_at_least(&kp->kernel, AMD_PREFCORE_SINCE))
        return "amd-pstate sets no ITMT priorities before v6.9 (preferred core, f3a052391822)";
    if (kparams_get(kp, "amd_prefcore", 0, -1) != 0)
        return "amd-pstate preferred core disabled (amd_prefcore=disable)";
    uint32_t perf;
    if (!amd_pstate_highest_perf(m, kp, 0, &perf))
        return "amd-pstate: no CPPC highest performance (the machine file gives no [firmware] cpc_highest_perf)";
    if (kversion_at_least(&kp->kernel, AMD_PREFCORE_DETECT_SINCE) && !amd_detect_prefcore(m, kp))
        return "amd-pstate: every CPU has the same highest performance, no preferred core "
               "(amd_detect_prefcore, v6.12)";
    return NULL;
}

void amd_pstate_prefcore_init(const struct hw_machine *m, const struct kparams *kp,
                              struct itmt *it)
{
    const char *why = amd_prefcore_off_why(m, kp);
    bool any = false;
    for (int cpu = 0; cpu < m->ncpus && !why; cpu++) {
        uint32_t perf;
        if (!amd_pstate_highest_perf(m, kp, cpu, &perf))
            continue;
        /* v6.9-6.11: 255 on a CPU means no ranking (hw_prefcore false). */
        if (!kversion_at_least(&kp->kernel, AMD_PREFCORE_DETECT_SINCE) &&
            perf >= HW_CPPC_MAX_PERF)
            continue;
        sched_set_itmt_core_prio(m, &kp->kernel, it, (int)perf, cpu);
        any = true;
    }
    if (any) {
        sched_set_itmt_support(it);   /* sched_prefcore_work */
        return;
    }
    snprintf(it->why, sizeof it->why, "%s",
             why ? why : "amd-pstate: highest performance 255 on every CPU, preferred core "
                         "unsupported (v6.9-6.11 rule)");
}
