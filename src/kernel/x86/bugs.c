/* bugs: the Spectre v2 mitigation choice, reduced to whether kernel IBRS is on.
 *
 * Why pmlab models it: kernel IBRS is what makes intel_idle's IBRS entry
 * (SPEC_CTRL cleared around MWAIT) and intel_idle.ibrs_off matter (FACTS.md
 * §1, §7). The rule follows spectre_v2_parse_cmdline() and
 * spectre_v2_select_mitigation() of v6.12 (arch/x86/kernel/cpu/bugs.c; the
 * IBRS parts arrived with the Retbleed series, 7c693f54c873, v5.19):
 *  1. nospectre_v2 or mitigations=off -> no mitigation;
 *  2. spectre_v2=ibrs is refused (-> auto) on a kernel before 5.19 (unknown
 *     option), on a non-Intel CPU or one without IBRS; eibrs* is refused
 *     (-> auto) without enhanced IBRS; eibrs* and retpoline,lfence are unknown
 *     before 5.17 (-> auto);
 *  3. auto/on: enhanced IBRS if the CPU has it; else, from 5.19, legacy IBRS
 *     on an Intel CPU with the Retbleed bug (the Skylake generation) unless
 *     retbleed=off (or retbleed=stuff, 6.2+); else retpoline;
 *  4. KERNEL_IBRS is set exactly when the result is IBRS, also on an eIBRS CPU
 *     given spectre_v2=ibrs (the kernel then warns of a needless slowdown).
 * Departures: the CPU facts (IBRS, eIBRS, Retbleed bug) come from a small
 * per-model table, not CPUID/ARCH_CAPABILITIES, and steppings are not told
 * apart (SKYLAKE_X is Skylake-SP, not the eIBRS Cascade Lake sharing its model
 * number); the 2025 restructuring of bugs.c (attack vectors) keeps these
 * outcomes and is not modelled separately; the XenPV and CONFIG_MITIGATION_*
 * checks assume a bare-metal default config. */
#include "kernel/x86/bugs.h"

#include <stddef.h>
#include <string.h>

/* CPU facts by the kernel's model name. */
struct x86_cpu_spec {
    const char *cpu_model;
    bool ibrs;      /* X86_FEATURE_IBRS (microcode with SPEC_CTRL) */
    bool eibrs;     /* X86_FEATURE_IBRS_ENHANCED (ARCH_CAPABILITIES.IBRS_ALL) */
    bool retbleed;  /* X86_BUG_RETBLEED (cpu_vuln_blacklist) */
    bool l1tf_mds;  /* X86_BUG_L1TF and X86_BUG_MDS (not MSBDS-only): the Core
                     * generations before the RDCL_NO/MDS_NO parts (cpu_vuln_whitelist
                     * lists neither NO_L1TF nor NO_MDS for them) */
};

static const struct x86_cpu_spec x86_cpu_specs[] = {
    { "HASWELL", true, false, false, true },      { "HASWELL_X", true, false, false, true },
    { "BROADWELL", true, false, false, true },    { "BROADWELL_X", true, false, false, true },
    { "SKYLAKE", true, false, true, true },       { "SKYLAKE_L", true, false, true, true },
    { "SKYLAKE_X", true, false, true, true },     { "KABYLAKE", true, false, true, true },
    { "KABYLAKE_L", true, false, true, true },    { "COMETLAKE", true, true, true, false },
    { "COMETLAKE_L", true, true, true, false },   { "ICELAKE_L", true, true, true, false },
    { "ICELAKE_X", true, true, false, false },    { "ICELAKE_D", true, true, false, false },
    { "SAPPHIRERAPIDS_X", true, true, false, false },
    { "EMERALDRAPIDS_X", true, true, false, false },
    { "ALDERLAKE", true, true, false, false },    { "ALDERLAKE_L", true, true, false, false },
    { "ALDERLAKE_N", true, true, false, false },  { "ATOM_GRACEMONT", true, true, false, false },
    { "RAPTORLAKE", true, true, false, false },   { "RAPTORLAKE_P", true, true, false, false },
    { "RAPTORLAKE_S", true, true, false, false }, { "METEORLAKE_L", true, true, false, false },
};

/* An Intel model pmlab does not list is taken as a post-2019 part: IBRS and
 * eIBRS, no Retbleed, L1TF or MDS bug. */
static const struct x86_cpu_spec x86_cpu_spec_modern = { "", true, true, false, false };
/* Other vendors (the models above are Intel's names): IBRS but no Intel
 * eIBRS, so auto picks retpolines, as on AMD Zen 2/3 (Zen 4's AutoIBRS, 6.3+,
 * is not modelled); it used to claim "Enhanced IBRS" for vendor = amd. No
 * L1TF or MDS (AMD is in the whitelist for both). */
static const struct x86_cpu_spec x86_cpu_spec_other_vendor = { "", true, false, false, false };

static bool x86_cpu_is_intel(const struct hw_machine *m);

static const struct x86_cpu_spec *x86_cpu_spec_find(const struct hw_machine *m)
{
    if (!x86_cpu_is_intel(m))
        return &x86_cpu_spec_other_vendor;
    for (size_t i = 0; i < sizeof x86_cpu_specs / sizeof x86_cpu_specs[0]; i++)
        if (strcmp(x86_cpu_specs[i].cpu_model, m->cpu_model) == 0)
            return &x86_cpu_specs[i];
    return &x86_cpu_spec_modern;
}

/* The choice text of an enum knob's current value. */
static const char *kparam_choice(const struct kparams *kp, const char *name)
{
    const struct kparam *p = kparam_find(name);
    return p->choices[kparams_get(kp, name, 0, -1)];
}

enum spectre_v2_cmd {
    SPECTRE_V2_CMD_NONE,
    SPECTRE_V2_CMD_AUTO,
    SPECTRE_V2_CMD_FORCE,
    SPECTRE_V2_CMD_RETPOLINE,
    SPECTRE_V2_CMD_RETPOLINE_GENERIC,
    SPECTRE_V2_CMD_RETPOLINE_LFENCE,
    SPECTRE_V2_CMD_EIBRS,
    SPECTRE_V2_CMD_EIBRS_RETPOLINE,
    SPECTRE_V2_CMD_EIBRS_LFENCE,
    SPECTRE_V2_CMD_IBRS,
};

/* spectre_v2= option text -> command, with the kernel version it appeared in. */
static const struct {
    const char *option;
    enum spectre_v2_cmd cmd;
    const char *since;
} spectre_v2_options[] = {
    { "off", SPECTRE_V2_CMD_NONE, NULL },
    { "on", SPECTRE_V2_CMD_FORCE, NULL },
    { "auto", SPECTRE_V2_CMD_AUTO, NULL },
    { "retpoline", SPECTRE_V2_CMD_RETPOLINE, NULL },
    { "retpoline,generic", SPECTRE_V2_CMD_RETPOLINE_GENERIC, NULL },
    { "retpoline,amd", SPECTRE_V2_CMD_RETPOLINE_LFENCE, NULL },
    { "retpoline,lfence", SPECTRE_V2_CMD_RETPOLINE_LFENCE, "5.17" },
    { "eibrs", SPECTRE_V2_CMD_EIBRS, "5.17" },
    { "eibrs,retpoline", SPECTRE_V2_CMD_EIBRS_RETPOLINE, "5.17" },
    { "eibrs,lfence", SPECTRE_V2_CMD_EIBRS_LFENCE, "5.17" },
    { "ibrs", SPECTRE_V2_CMD_IBRS, "5.19" },
};

static bool x86_cpu_is_intel(const struct hw_machine *m)
{
    return strcmp(m->vendor, "intel") == 0;
}

/* spectre_v2_parse_cmdline: the command after the kernel's own checks. */
static enum spectre_v2_cmd spectre_v2_parse_cmdline(const struct hw_machine *m,
                                                    const struct kparams *kp,
                                                    const struct x86_cpu_spec *cpu)
{
    if (kparams_get(kp, "nospectre_v2", 0, -1) ||
        strcmp(kparam_choice(kp, "mitigations"), "off") == 0)
        return SPECTRE_V2_CMD_NONE;
    const char *text = kparam_choice(kp, "spectre_v2");
    enum spectre_v2_cmd cmd = SPECTRE_V2_CMD_AUTO;
    for (size_t i = 0; i < sizeof spectre_v2_options / sizeof spectre_v2_options[0]; i++) {
        if (strcmp(spectre_v2_options[i].option, text) != 0)
            continue;
        /* An option newer than the kernel is "unknown": auto. */
        if (kversion_at_least(&kp->kernel, spectre_v2_options[i].since))
            cmd = spectre_v2_options[i].cmd;
        break;
    }
    bool eibrs_cmd = cmd == SPECTRE_V2_CMD_EIBRS || cmd == SPECTRE_V2_CMD_EIBRS_RETPOLINE ||
                     cmd == SPECTRE_V2_CMD_EIBRS_LFENCE;
    if (eibrs_cmd && !cpu->eibrs)
        return SPECTRE_V2_CMD_AUTO;
    if (cmd == SPECTRE_V2_CMD_IBRS && (!x86_cpu_is_intel(m) || !cpu->ibrs))
        return SPECTRE_V2_CMD_AUTO;
    return cmd;
}

/* The auto choice on a CPU without enhanced IBRS: legacy IBRS where Retbleed
 * needs it (5.19+), retpoline otherwise. */
static enum spectre_v2_mitigation spectre_v2_auto_legacy(const struct hw_machine *m,
                                                         const struct kparams *kp,
                                                         const struct x86_cpu_spec *cpu)
{
    const char *retbleed = kparam_choice(kp, "retbleed");
    bool retbleed_on = strcmp(retbleed, "off") != 0 &&
                       !(strcmp(retbleed, "stuff") == 0 && kversion_at_least(&kp->kernel, "6.2"));
    if (kversion_at_least(&kp->kernel, "5.19") && cpu->retbleed && retbleed_on && cpu->ibrs &&
        x86_cpu_is_intel(m))
        return SPECTRE_V2_IBRS;
    return SPECTRE_V2_RETPOLINE;
}

enum spectre_v2_mitigation x86_spectre_v2_select_mitigation(const struct hw_machine *m,
                                                           const struct kparams *kp)
{
    const struct x86_cpu_spec *cpu = x86_cpu_spec_find(m);
    switch (spectre_v2_parse_cmdline(m, kp, cpu)) {
    case SPECTRE_V2_CMD_NONE:
        return SPECTRE_V2_NONE;
    case SPECTRE_V2_CMD_AUTO:
    case SPECTRE_V2_CMD_FORCE:
        return cpu->eibrs ? SPECTRE_V2_EIBRS : spectre_v2_auto_legacy(m, kp, cpu);
    case SPECTRE_V2_CMD_RETPOLINE:
    case SPECTRE_V2_CMD_RETPOLINE_GENERIC:
        return SPECTRE_V2_RETPOLINE;
    case SPECTRE_V2_CMD_RETPOLINE_LFENCE:
        return SPECTRE_V2_LFENCE;
    case SPECTRE_V2_CMD_EIBRS:
        return SPECTRE_V2_EIBRS;
    case SPECTRE_V2_CMD_EIBRS_RETPOLINE:
        return SPECTRE_V2_EIBRS_RETPOLINE;
    case SPECTRE_V2_CMD_EIBRS_LFENCE:
        return SPECTRE_V2_EIBRS_LFENCE;
    case SPECTRE_V2_CMD_IBRS:
        return SPECTRE_V2_IBRS;
    }
    return SPECTRE_V2_NONE;
}

bool x86_kernel_ibrs_active(const struct hw_machine *m, const struct kparams *kp)
{
    return x86_spectre_v2_select_mitigation(m, kp) == SPECTRE_V2_IBRS;
}

const char *spectre_v2_mitigation_name(enum spectre_v2_mitigation mode)
{
    switch (mode) {
    case SPECTRE_V2_NONE:
        return "Vulnerable";
    case SPECTRE_V2_RETPOLINE:
        return "Mitigation: Retpolines";
    case SPECTRE_V2_LFENCE:
        return "Mitigation: LFENCE";
    case SPECTRE_V2_EIBRS:
        return "Mitigation: Enhanced IBRS";
    case SPECTRE_V2_EIBRS_RETPOLINE:
        return "Mitigation: Enhanced IBRS + Retpolines";
    case SPECTRE_V2_EIBRS_LFENCE:
        return "Mitigation: Enhanced IBRS + LFENCE";
    case SPECTRE_V2_IBRS:
        return "Mitigation: IBRS";
    }
    return "Unknown";
}

/* mitigations=auto,nosmt (v5.2, with the MDS series): l1tf_select_mitigation
 * takes L1TF_MITIGATION_FLUSH_NOSMT and mds_select_mitigation calls
 * cpu_smt_disable(false) on a CPU with those bugs, which is the nosmt boot
 * parameter's effect (SMT off, the control left writable). pmlab's rule: an
 * Intel part with L1TF and MDS. Not modelled: the later SMT-disabling
 * mitigations (TAA 5.4 with TSX on, MMIO stale data 5.19, Retbleed on a part
 * without STIBP), which need per-stepping facts pmlab's table lacks (Comet
 * Lake and Ice Lake's MMIO stale data among them); l1tf=flush,nosmt and
 * mds=full,nosmt themselves. */
#define X86_AUTO_NOSMT_SINCE "5.2"

bool x86_mitigations_disable_smt(const struct hw_machine *m, const struct kparams *kp)
{
    if (strcmp(m->vendor, "intel") != 0 && strcmp(m->vendor, "amd") != 0)
        return false;   /* the option is x86's (arch/x86/kernel/cpu/bugs.c) */
    return strcmp(kparam_choice(kp, "mitigations"), "auto,nosmt") == 0 &&
           kversion_at_least(&kp->kernel, X86_AUTO_NOSMT_SINCE) && x86_cpu_spec_find(m)->l1tf_mds;
}
