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
 * Left out: preferred-core ranking (v6.9) and its ITMT priorities, the
 * boost numerator (166/196) of the frequency scale (the machine file's
 * frequencies are used as they are), the shared-memory (non-MSR) CPPC
 * interface, runtime mode switching through amd_pstate/status, and AMD's
 * balance_power EPP value (0xBF: the shared EPP parser maps it to 0xC0). */
#include <string.h>

#include "kernel/cpufreq/cpufreq.h"
#include "world.h"

#define AMD_PSTATE_LATENCY_NS (20 * SIM_NS_PER_US)       /* AMD_PSTATE_TRANSITION_LATENCY */
#define AMD_PSTATE_DELAY_NS (1000 * SIM_NS_PER_US)       /* AMD_PSTATE_TRANSITION_DELAY */

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
    .setpolicy = true,
    .set_policy = amd_pstate_epp_set_policy,
    .update_util = amd_pstate_epp_update_util,
};

/* passive and guided: the target is the desired performance (passive) or
 * the floor of the platform's range (guided, hwp set) -- the same hook as
 * intel_cpufreq. */
static const struct cpufreq_driver amd_pstate_driver = {
    .name = "amd-pstate",
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
