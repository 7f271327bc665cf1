/* intel_idle: builds the cpuidle state list of an Intel CPU at boot.
 *
 * Why it matters to pmlab: the governors only ever see this list, so which
 * states exist, their latency/residency numbers, which start disabled and how
 * each is entered (IRQs on or off at MWAIT, SPEC_CTRL cleared around it) are
 * all decided here, once, from the CPU model and the boot knobs.
 *
 * Follows mainline v6.12 (driver version 0.5.1; the tables used here are
 * unchanged in the 2025 tree), with these version keys: ADL and ADL mobile
 * tables from 5.19, ADL-N ("gmt") 6.1, SPR 5.18, EMR 6.3, Sierra Forest 6.9,
 * Granite Rapids 6.12 (older kernels treat the model as unknown); HSW/BDW
 * (client and server), BXT/GLK, DNV, SNR and KNL/KNM predate every modelled
 * kernel. Ice Lake client, Tiger Lake and Meteor Lake have no table in the
 * stored source and take the _CST fallback, like Raptor Lake; IRQ_ENABLE on SKX/ICX C1 from 5.16; the IBRS flag
 * from 5.19; knob availability via the registry's `since`. The entry method is
 * chosen by the v6.5 state_update_enter_method() order for every version (for
 * these tables older kernels reach the same result).
 *
 * Departures from the kernel:
 *  - no real CPUID/MSRs: a hint is "supported" (intel_idle_verify_cstate) when
 *    the boot CPU's core type has a hardware C-state with the same major
 *    C-state; package C6 counts as enabled in firmware when the machine lists a
 *    PC6 package state (SKX/SPR C6 numbers); every modelled CPU has ARAT, so no
 *    state gets TIMER_STOP; SKL-H's C8/C9 drop (needs MSR and SGX state) and
 *    the IVT/BXT table updates are not modelled;
 *  - the _CST: for a model with a table, the machine file's [firmware] cst_*
 *    when given (the use_acpi OFF rule then applies), else pmlab assumes the
 *    firmware lists every table state's hint (so it marks nothing); for a
 *    model without one, intel_idle_firmware_cst() supplies it (see there);
 *  - intel_idle_ibrs() tests sched_smt_active() at every entry; pmlab decides
 *    once: a state takes the IBRS entry only when SMT is active, otherwise it
 *    is plain MWAIT with IRQs off (what the kernel's function then does);
 *  - SPR before 6.0 had C1/C1E exclusivity; modelled as in 6.0+ (independent);
 *  - the ACPI fallback gets no IBRS/force_irq_on handling, as in the kernel,
 *    which enters every _CST state with plain intel_idle(). */
#include "kernel/idle/intel_idle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cpuidle/cpuidle_psci.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/x86/bugs.h"
#include "sim/time.h"


/* One row of a static table: latency and residency in µs, as in the kernel. */
struct intel_idle_cstate {
    const char *name;
    uint32_t mwait_hint;
    unsigned flags;             /* CPUIDLE_FLAG_* | INTEL_IDLE_FLAG_* */
    int64_t exit_latency_us;
    int64_t target_residency_us;
};

/* Which *_idle_state_table_update() a model gets. */
enum intel_idle_table_update {
    TABLE_UPDATE_NONE,
    TABLE_UPDATE_SKX,   /* PC6 off in firmware: C6 92/276 */
    TABLE_UPDATE_SPR,   /* PC6 off in firmware: C6 190/600 */
    TABLE_UPDATE_ADL,   /* C1/C1E exclusive: preferred_cstates, C1E promotion */
};

/* struct idle_cpu: a model's table and attributes. */
struct idle_cpu {
    const char *name;
    const struct intel_idle_cstate *state_table;
    int nstates;
    bool disable_promotion_to_c1e;
    bool use_acpi;
    enum intel_idle_table_update update;
};

#define TLB CPUIDLE_FLAG_TLB_FLUSHED
#define IRQ INTEL_IDLE_FLAG_IRQ_ENABLE
#define ALWAYS INTEL_IDLE_FLAG_ALWAYS_ENABLE
#define IBRS INTEL_IDLE_FLAG_IBRS
#define XSTATE INTEL_IDLE_FLAG_INIT_XSTATE
#define UNUSABLE CPUIDLE_FLAG_UNUSABLE
#define PARTIAL INTEL_IDLE_FLAG_PARTIAL_HINT_MATCH
#define NSTATES(t) ((int)(sizeof(t) / sizeof((t)[0])))

static const struct intel_idle_cstate skl_cstates[] = {
    { "C1", 0x00, 0, 2, 2 },
    { "C1E", 0x01, ALWAYS, 10, 20 },
    { "C3", 0x10, TLB, 70, 100 },
    { "C6", 0x20, TLB | IBRS, 85, 200 },
    { "C7s", 0x33, TLB | IBRS, 124, 800 },
    { "C8", 0x40, TLB | IBRS, 200, 800 },
    { "C9", 0x50, TLB | IBRS, 480, 5000 },
    { "C10", 0x60, TLB | IBRS, 890, 5000 },
};

static const struct intel_idle_cstate skx_cstates[] = {
    { "C1", 0x00, IRQ, 2, 2 },
    { "C1E", 0x01, ALWAYS, 10, 20 },
    { "C6", 0x20, TLB | IBRS, 133, 600 },
};

static const struct intel_idle_cstate icx_cstates[] = {
    { "C1", 0x00, IRQ, 1, 1 },
    { "C1E", 0x01, ALWAYS, 4, 4 },
    { "C6", 0x20, TLB, 170, 600 },
};

static const struct intel_idle_cstate spr_cstates[] = {
    { "C1", 0x00, 0, 1, 1 },
    { "C1E", 0x01, ALWAYS, 2, 4 },
    { "C6", 0x20, TLB | XSTATE, 290, 800 },
};

/* C1 and C1E are mutually exclusive on Alder Lake (C1E exists only through
 * C1E promotion, which turns every C1 request into C1E), so C1 starts unusable. */
static const struct intel_idle_cstate adl_cstates[] = {
    { "C1", 0x00, UNUSABLE, 1, 1 },
    { "C1E", 0x01, ALWAYS, 2, 4 },
    { "C6", 0x20, TLB, 220, 600 },
    { "C8", 0x40, TLB, 280, 800 },
    { "C10", 0x60, TLB, 680, 2000 },
};

static const struct intel_idle_cstate adl_l_cstates[] = {
    { "C1", 0x00, UNUSABLE, 1, 1 },
    { "C1E", 0x01, ALWAYS, 2, 4 },
    { "C6", 0x20, TLB, 170, 500 },
    { "C8", 0x40, TLB, 200, 600 },
    { "C10", 0x60, TLB, 230, 700 },
};

/* Alder Lake-N (adl_n_cstates until renamed gmt_cstates). */
static const struct intel_idle_cstate gmt_cstates[] = {
    { "C1", 0x00, UNUSABLE, 1, 1 },
    { "C1E", 0x01, ALWAYS, 2, 4 },
    { "C6", 0x20, TLB, 195, 585 },
    { "C8", 0x40, TLB, 260, 1040 },
    { "C10", 0x60, TLB, 660, 1980 },
};

/* Haswell and Broadwell client and server (hsw_cstates, bdw_cstates). */
static const struct intel_idle_cstate hsw_cstates[] = {
    { "C1", 0x00, 0, 2, 2 },
    { "C1E", 0x01, ALWAYS, 10, 20 },
    { "C3", 0x10, TLB, 33, 100 },
    { "C6", 0x20, TLB, 133, 400 },
    { "C7s", 0x32, TLB, 166, 500 },
    { "C8", 0x40, TLB, 300, 900 },
    { "C9", 0x50, TLB, 600, 1800 },
    { "C10", 0x60, TLB, 2600, 7700 },
};

static const struct intel_idle_cstate bdw_cstates[] = {
    { "C1", 0x00, 0, 2, 2 },
    { "C1E", 0x01, ALWAYS, 10, 20 },
    { "C3", 0x10, TLB, 40, 100 },
    { "C6", 0x20, TLB, 133, 400 },
    { "C7s", 0x32, TLB, 166, 500 },
    { "C8", 0x40, TLB, 300, 900 },
    { "C9", 0x50, TLB, 600, 1800 },
    { "C10", 0x60, TLB, 2600, 7700 },
};

/* Broxton / Gemini Lake (the IRTL-MSR update of C6 and deeper is not modelled). */
static const struct intel_idle_cstate bxt_cstates[] = {
    { "C1", 0x00, 0, 2, 2 },
    { "C1E", 0x01, ALWAYS, 10, 20 },
    { "C6", 0x20, TLB, 133, 133 },
    { "C7s", 0x31, TLB, 155, 155 },
    { "C8", 0x40, TLB, 1000, 1000 },
    { "C9", 0x50, TLB, 2000, 2000 },
    { "C10", 0x60, TLB, 10000, 10000 },
};

/* Denverton (dnv) and Snow Ridge (snr). */
static const struct intel_idle_cstate dnv_cstates[] = {
    { "C1", 0x00, 0, 2, 2 },
    { "C1E", 0x01, ALWAYS, 10, 20 },
    { "C6", 0x20, TLB, 50, 500 },
};

static const struct intel_idle_cstate snr_cstates[] = {
    { "C1", 0x00, 0, 2, 2 },
    { "C1E", 0x01, ALWAYS, 15, 25 },
    { "C6", 0x20, TLB, 130, 500 },
};

/* Knights Landing / Mill. */
static const struct intel_idle_cstate knl_cstates[] = {
    { "C1", 0x00, 0, 1, 2 },
    { "C6", 0x10, TLB, 120, 500 },
};

/* Granite Rapids Xeon: C6 stays a core state, C6P lets the package into PC6
 * (wult-measured, A. Bityutskiy, linux-pm Aug 2024); both match the _CST by
 * major C-state (PARTIAL_HINT_MATCH). */
static const struct intel_idle_cstate gnr_cstates[] = {
    { "C1", 0x00, 0, 1, 1 },
    { "C1E", 0x01, ALWAYS, 4, 4 },
    { "C6", 0x20, TLB | XSTATE | PARTIAL, 170, 650 },
    { "C6P", 0x21, TLB | XSTATE | PARTIAL, 210, 1000 },
};

/* Sierra Forest: no core C6; C6S has module scope (4 cores and their L2),
 * C6SP package scope. */
static const struct intel_idle_cstate srf_cstates[] = {
    { "C1", 0x00, ALWAYS, 1, 1 },
    { "C1E", 0x01, ALWAYS, 2, 10 },
    { "C6S", 0x22, TLB | PARTIAL, 270, 700 },
    { "C6SP", 0x23, TLB | PARTIAL, 310, 900 },
};

#undef TLB
#undef IRQ
#undef ALWAYS
#undef IBRS
#undef XSTATE
#undef UNUSABLE
#undef PARTIAL

static const struct idle_cpu idle_cpu_hsw = {
    "hsw", hsw_cstates, NSTATES(hsw_cstates), true, false, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_hsx = {
    "hsx", hsw_cstates, NSTATES(hsw_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_bdw = {
    "bdw", bdw_cstates, NSTATES(bdw_cstates), true, false, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_bdx = {
    "bdx", bdw_cstates, NSTATES(bdw_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_bxt = {
    "bxt", bxt_cstates, NSTATES(bxt_cstates), true, false, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_dnv = {
    "dnv", dnv_cstates, NSTATES(dnv_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_snr = {
    "snr", snr_cstates, NSTATES(snr_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_knl = {
    "knl", knl_cstates, NSTATES(knl_cstates), false, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_gnr = {
    "gnr", gnr_cstates, NSTATES(gnr_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_srf = {
    "srf", srf_cstates, NSTATES(srf_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_skl = {
    "skl", skl_cstates, NSTATES(skl_cstates), true, false, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_skx = {
    "skx", skx_cstates, NSTATES(skx_cstates), true, true, TABLE_UPDATE_SKX,
};
static const struct idle_cpu idle_cpu_icx = {
    "icx", icx_cstates, NSTATES(icx_cstates), true, true, TABLE_UPDATE_NONE,
};
static const struct idle_cpu idle_cpu_spr = {
    "spr", spr_cstates, NSTATES(spr_cstates), true, true, TABLE_UPDATE_SPR,
};
static const struct idle_cpu idle_cpu_adl = {
    "adl", adl_cstates, NSTATES(adl_cstates), false, false, TABLE_UPDATE_ADL,
};
static const struct idle_cpu idle_cpu_adl_l = {
    "adl_l", adl_l_cstates, NSTATES(adl_l_cstates), false, false, TABLE_UPDATE_ADL,
};
static const struct idle_cpu idle_cpu_gmt = {
    "gmt", gmt_cstates, NSTATES(gmt_cstates), false, false, TABLE_UPDATE_ADL,
};

/* intel_idle_ids[]: model -> table, with the kernel that added the match.
 * Raptor Lake is deliberately absent: mainline never matched it (the Jan 2023
 * "intel_idle: Add RaptorLake support" patch was not taken; Intel's reply was
 * that the _CST path is the support and a table only an optimisation), so
 * RAPTORLAKE* use the ACPI fallback. */
static const struct {
    const char *cpu_model;
    const struct idle_cpu *icpu;
    const char *since;
} intel_idle_ids[] = {
    { "SKYLAKE_L", &idle_cpu_skl, NULL },
    { "SKYLAKE", &idle_cpu_skl, NULL },
    { "KABYLAKE_L", &idle_cpu_skl, NULL },
    { "KABYLAKE", &idle_cpu_skl, NULL },
    { "SKYLAKE_X", &idle_cpu_skx, NULL },
    { "ICELAKE_X", &idle_cpu_icx, NULL },
    { "ICELAKE_D", &idle_cpu_icx, NULL },
    { "ALDERLAKE", &idle_cpu_adl, "5.19" },
    { "ALDERLAKE_L", &idle_cpu_adl_l, "5.19" },
    { "ALDERLAKE_N", &idle_cpu_gmt, "6.1" },
    { "ATOM_GRACEMONT", &idle_cpu_gmt, "6.1" },
    { "SAPPHIRERAPIDS_X", &idle_cpu_spr, "5.18" },
    { "EMERALDRAPIDS_X", &idle_cpu_spr, "6.3" },
    { "HASWELL", &idle_cpu_hsw, NULL },
    { "HASWELL_L", &idle_cpu_hsw, NULL },
    { "HASWELL_G", &idle_cpu_hsw, NULL },
    { "HASWELL_X", &idle_cpu_hsx, NULL },
    { "BROADWELL", &idle_cpu_bdw, NULL },
    { "BROADWELL_G", &idle_cpu_bdw, NULL },
    { "BROADWELL_X", &idle_cpu_bdx, NULL },
    { "BROADWELL_D", &idle_cpu_bdx, NULL },
    { "ATOM_GOLDMONT", &idle_cpu_bxt, NULL },
    { "ATOM_GOLDMONT_PLUS", &idle_cpu_bxt, NULL },
    { "ATOM_GOLDMONT_D", &idle_cpu_dnv, NULL },
    { "ATOM_TREMONT_D", &idle_cpu_snr, NULL },
    { "XEON_PHI_KNL", &idle_cpu_knl, NULL },
    { "XEON_PHI_KNM", &idle_cpu_knl, NULL },
    /* Versions not re-verified: the patches went to linux-pm in early 2024
     * (Sierra Forest) and August 2024 (Granite Rapids). */
    { "ATOM_CRESTMONT_X", &idle_cpu_srf, "6.9" },
    { "GRANITERAPIDS_X", &idle_cpu_gnr, "6.12" },
};

/* x86_match_cpu(intel_idle_ids): the table for m on kernel kv, or NULL. */
static const struct idle_cpu *intel_idle_match(const char *cpu_model, const struct kversion *kv)
{
    for (size_t i = 0; i < sizeof intel_idle_ids / sizeof intel_idle_ids[0]; i++)
        if (strcmp(intel_idle_ids[i].cpu_model, cpu_model) == 0)
            return kversion_at_least(kv, intel_idle_ids[i].since) ? intel_idle_ids[i].icpu
                                                                  : NULL;
    return NULL;
}

/* The boot knobs, read once. */
struct intel_idle_opts {
    int max_cstate;
    uint32_t states_off;        /* disabled_states_mask */
    uint32_t preferred;         /* preferred_states_mask */
    bool force_irq_on;
    bool ibrs_off;
    bool no_acpi;
    bool use_acpi;              /* force_use_acpi */
    bool kernel_ibrs;
    bool smt_active;
};

/* The firmware _CST of a model without a static table (kernel/acpi/cst.h). */
const char *intel_idle_firmware_cst(const struct hw_machine *m, struct acpi_cst *cst)
{
    return acpi_evaluate_cst(m, cst);
}

bool intel_idle_model_has_table(const char *cpu_model, const struct kversion *kv)
{
    return intel_idle_match(cpu_model, kv) != NULL;
}

static bool intel_idle_has_table(const char *model)
{
    for (size_t i = 0; i < sizeof intel_idle_ids / sizeof intel_idle_ids[0]; i++)
        if (strcmp(intel_idle_ids[i].cpu_model, model) == 0)
            return true;
    return false;
}

static bool intel_idle_model_known(const char *model)
{
    return acpi_cst_model_known(model) || intel_idle_has_table(model);
}

int intel_idle_check_machine(const struct hw_machine *m, struct diag *d)
{
    /* The vendor strings the kernel's x86 code tells apart; a capital or a
     * typo would silently make an Intel part "not Intel". */
    static const char *const vendors[] = { "intel", "amd", "hygon", "centaur", "zhaoxin", "arm" };
    bool vendor_ok = false;
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        vendor_ok |= strcmp(m->vendor, vendors[i]) == 0;
    if (!vendor_ok)
        return diag_error(d, m->path, m->vendor_line,
                          "vendor '%s' is not one of intel, amd, hygon, centaur, zhaoxin, arm",
                          m->vendor);
    if (hw_machine_is_arm(m))
        return psci_idle_check_machine(m, d);
    if (strcmp(m->vendor, "intel") != 0 || m->fw.ncst > 0 || intel_idle_model_known(m->cpu_model))
        return 0;
    char known[1024] = "";  /* every model name, about 500 characters */
    size_t len = 0;
    for (size_t i = 0; i < sizeof intel_idle_ids / sizeof intel_idle_ids[0] && len < sizeof known; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s ", intel_idle_ids[i].cpu_model);
    for (size_t i = 0; acpi_cst_known_model(i) && len < sizeof known; i++)
        if (!intel_idle_has_table(acpi_cst_known_model(i)))
            len += (size_t)snprintf(known + len, sizeof known - len, "%s ",
                                    acpi_cst_known_model(i));
    if (len >= sizeof known)
        len = sizeof known - 1;
    known[len ? len - 1 : 0] = '\0';
    return diag_error(d, m->path, m->cpu_model_line,
                      "cpu_model '%s' is not a model pmlab knows (%s); for another model give "
                      "its firmware's idle states in [firmware] cst_mwait_hints and "
                      "cst_latency_us (docs/machine-files.md)", m->cpu_model, known);
}

/* The _CST pmlab assumes beside a static table when the machine file gives
 * none: it lists every table state's hint, so the use_acpi rule marks
 * nothing off (FACTS.md §1 construction rule, with the lead's default). */
static void intel_idle_cst_from_table(const struct idle_cpu *icpu, struct acpi_cst *cst)
{
    memset(cst, 0, sizeof *cst);
    for (int i = 0; i < icpu->nstates && cst->count < ACPI_CST_MAX; i++) {
        uint32_t hint = icpu->state_table[i].mwait_hint;
        cst->states[cst->count++] = (struct acpi_cst_entry){
            .type = (hint >> 4) == 0 ? 1 : 3,
            .mwait_hint = hint,
            .method = HW_CST_FFH,
            .latency_us = icpu->state_table[i].exit_latency_us,
        };
    }
}

/* The _CST a use_acpi model (or intel_idle.use_acpi=1) reads beside its
 * table: the machine file's [firmware] cst_* when given (a state whose hint
 * it lacks then starts OFF, as in the kernel), else every table hint. */
static void intel_idle_table_cst(const struct hw_machine *m, const struct idle_cpu *icpu,
                                 struct acpi_cst *cst)
{
    if (m->fw.ncst > 0)
        intel_idle_firmware_cst(m, cst);
    else
        intel_idle_cst_from_table(icpu, cst);
}

/* info->source for a model with a table: the kernel's numbers win over the
 * machine file's, which only time the hardware's exit (FACTS.md §1: the
 * driver registers its static table for a matched model). */
static void intel_idle_table_source(const struct hw_machine *m, const struct idle_cpu *icpu,
                                    struct intel_idle_info *info)
{
    snprintf(info->source, sizeof info->source,
             "intel_idle's compiled table '%s' for %s (drivers/idle/intel_idle.c); the machine "
             "file's [cstate] exit_latency_us are the hardware's wakeup times%s",
             icpu->name, m->cpu_model,
             info->acpi_cst_read && m->fw.ncst > 0
                 ? "; [firmware] _CST marks table states it lacks off (use_acpi)" : "");
}

/* intel_idle_max_cstate_reached: table position pos is beyond max_cstate. */
static bool intel_idle_max_cstate_reached(const struct intel_idle_opts *o, int pos)
{
    return pos + 1 > o->max_cstate;
}

/* CPUID leaf 5 reports sub-states for the hint's C-state: here, the boot CPU's
 * core type has a hardware state with the same major C-state. */
static bool intel_idle_verify_cstate(const struct hw_machine *m, uint32_t mwait_hint)
{
    const struct hw_core_type *t = &m->types[m->ncpus > 0 ? m->cpus[0].type : 0];
    for (int i = 0; i < t->ncstates; i++)
        if ((t->cstates[i].mwait_hint >> 4) == (mwait_hint >> 4))
            return true;
    return false;
}

/* intel_idle_off_by_default: a _CST was read and does not list the hint
 * (with PARTIAL_HINT_MATCH, its major C-state: the sub-state nibble is
 * ignored on both sides). */
static bool intel_idle_off_by_default(const struct acpi_cst *cst, unsigned flags,
                                      uint32_t mwait_hint)
{
    if (cst->count == 0)
        return false;
    uint32_t mask = (flags & INTEL_IDLE_FLAG_PARTIAL_HINT_MATCH) ? ~0x0fu : ~0u;
    for (int i = 0; i < cst->count; i++)
        if ((cst->states[i].mwait_hint & mask) == (mwait_hint & mask))
            return false;
    return true;
}

/* Whether the firmware leaves package C6 enabled (MSR_PKG_CST_CONFIG_CONTROL
 * limit >= 2): the machine describes a PC6 package state. */
static bool hw_pkg_c6_enabled(const struct hw_machine *m)
{
    for (int i = 0; i < m->npkgstates; i++)
        if (strcmp(m->pkgstates[i].name, "PC6") == 0)
            return true;
    return false;
}

static struct intel_idle_cstate *table_find(struct intel_idle_cstate *t, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

/* The *_idle_state_table_update() step on table (a copy of the static one):
 * returns the C1E promotion decision, or prom unchanged. */
static enum intel_idle_c1e_promotion
intel_idle_state_table_update(const struct hw_machine *m, const struct idle_cpu *icpu,
                              const struct intel_idle_opts *o, struct intel_idle_cstate *table,
                              enum intel_idle_c1e_promotion prom)
{
    struct intel_idle_cstate *c6 = table_find(table, icpu->nstates, "C6");
    switch (icpu->update) {
    case TABLE_UPDATE_NONE:
        break;
    case TABLE_UPDATE_SKX:
        if (c6 && !hw_pkg_c6_enabled(m)) {
            c6->exit_latency_us = 92;
            c6->target_residency_us = 276;
        }
        break;
    case TABLE_UPDATE_SPR:
        if (c6 && !hw_pkg_c6_enabled(m)) {
            c6->exit_latency_us = 190;
            c6->target_residency_us = 600;
        }
        break;
    case TABLE_UPDATE_ADL:
        /* preferred_cstates bits are sysfs indices: 1 = C1, 2 = C1E. */
        if ((o->preferred & (1u << 1)) && !(o->preferred & (1u << 2))) {
            table[0].flags &= ~(unsigned)CPUIDLE_FLAG_UNUSABLE;
            table[1].flags |= CPUIDLE_FLAG_UNUSABLE;
            return C1E_PROMOTION_DISABLE;
        }
        return C1E_PROMOTION_ENABLE;
    }
    return prom;
}

/* state_update_enter_method: first match wins (FACTS.md §1). */
static void state_update_enter_method(struct cpuidle_state *s, const struct intel_idle_opts *o)
{
    if (s->flags & INTEL_IDLE_FLAG_INIT_XSTATE) {
        s->enter = CPUIDLE_ENTER_MWAIT_XSTATE;
        return;
    }
    if (o->kernel_ibrs && ((s->flags & INTEL_IDLE_FLAG_IBRS) || o->ibrs_off)) {
        /* IBRS off across idle needs IRQs off: ibrs_off drops IRQ_ENABLE. */
        if (o->ibrs_off)
            s->flags &= ~(unsigned)INTEL_IDLE_FLAG_IRQ_ENABLE;
        s->enter = o->smt_active ? CPUIDLE_ENTER_MWAIT_IBRS : CPUIDLE_ENTER_MWAIT;
        return;
    }
    if ((s->flags & INTEL_IDLE_FLAG_IRQ_ENABLE) || o->force_irq_on) {
        s->enter = CPUIDLE_ENTER_MWAIT_IRQ;
        return;
    }
    s->enter = CPUIDLE_ENTER_MWAIT;
}

/* Flags a state's table entry had in kernel kv. */
static unsigned intel_idle_flags_for_kernel(unsigned flags, const struct kversion *kv)
{
    if (!kversion_at_least(kv, "5.16"))
        flags &= ~(unsigned)INTEL_IDLE_FLAG_IRQ_ENABLE;
    if (!kversion_at_least(kv, "5.19"))
        flags &= ~(unsigned)INTEL_IDLE_FLAG_IBRS;
    return flags;
}

static void intel_idle_mark_off(struct cpuidle_driver *drv, struct intel_idle_info *info)
{
    struct cpuidle_state *s = &drv->states[drv->state_count];
    s->flags |= CPUIDLE_FLAG_OFF;
    info->off_by_default[drv->state_count] = true;
}

/* A usable state beyond max_cstate: the kernel skips it (the loop ends
 * there); explain names it. */
static void intel_idle_note_removed(struct intel_idle_info *info, const char *name)
{
    if (info->nremoved < CPUIDLE_STATE_MAX)
        snprintf(info->removed[info->nremoved++], CPUIDLE_NAME_LEN, "%s", name);
}

/* intel_idle_init_cstates_icpu: the static table, state by state. */
static void intel_idle_init_cstates_icpu(const struct hw_machine *m, const struct kparams *kp,
                                         const struct idle_cpu *icpu,
                                         const struct intel_idle_opts *o,
                                         const struct acpi_cst *cst, struct cpuidle_driver *drv,
                                         struct intel_idle_info *info)
{
    struct intel_idle_cstate table[CPUIDLE_STATE_MAX];
    int n = icpu->nstates < CPUIDLE_STATE_MAX ? icpu->nstates : CPUIDLE_STATE_MAX;
    memcpy(table, icpu->state_table, (size_t)n * sizeof table[0]);
    info->c1e_promotion = intel_idle_state_table_update(m, icpu, o, table, info->c1e_promotion);

    for (int pos = 0; pos < n && drv->state_count < CPUIDLE_STATE_MAX; pos++) {
        const struct intel_idle_cstate *c = &table[pos];
        if (c->flags & CPUIDLE_FLAG_UNUSABLE)
            continue;
        if (!intel_idle_verify_cstate(m, c->mwait_hint))
            continue;
        if (intel_idle_max_cstate_reached(o, pos)) {
            intel_idle_note_removed(info, c->name);
            continue;
        }
        struct cpuidle_state *s = &drv->states[drv->state_count];
        snprintf(s->name, sizeof s->name, "%s", c->name);
        snprintf(s->desc, sizeof s->desc, "MWAIT 0x%02x", (unsigned)c->mwait_hint);
        s->exit_latency_ns = c->exit_latency_us * SIM_NS_PER_US;
        s->target_residency_ns = c->target_residency_us * SIM_NS_PER_US;
        s->flags = intel_idle_flags_for_kernel(c->flags, &kp->kernel);
        s->mwait_hint = c->mwait_hint;
        state_update_enter_method(s, o);
        bool acpi_off = (icpu->use_acpi || o->use_acpi) &&
                        intel_idle_off_by_default(cst, c->flags, c->mwait_hint) &&
                        !(s->flags & INTEL_IDLE_FLAG_ALWAYS_ENABLE);
        if ((o->states_off & (1u << drv->state_count)) || acpi_off)
            intel_idle_mark_off(drv, info);
        drv->state_count++;
    }
}

/* intel_idle_init_cstates_acpi: one state per _CST entry, "C<n>_ACPI". */
static void intel_idle_init_cstates_acpi(const struct intel_idle_opts *o,
                                         const struct acpi_cst *cst, struct cpuidle_driver *drv,
                                         struct intel_idle_info *info)
{
    for (int i = 0; i < cst->count && drv->state_count < CPUIDLE_STATE_MAX; i++) {
        int cstate = i + 1;     /* _CST index; state 0 is POLL */
        if (intel_idle_max_cstate_reached(o, cstate - 1)) {
            char name[CPUIDLE_NAME_LEN];
            snprintf(name, sizeof name, "C%u_ACPI", (unsigned)(unsigned char)cstate);
            intel_idle_note_removed(info, name);
            continue;
        }
        const struct acpi_cst_entry *cx = &cst->states[i];
        struct cpuidle_state *s = &drv->states[drv->state_count];
        /* cstate < ACPI_CST_MAX: the cast only tells the compiler so. */
        snprintf(s->name, sizeof s->name, "C%u_ACPI", (unsigned)(unsigned char)cstate);
        snprintf(s->desc, sizeof s->desc, "ACPI FFH MWAIT 0x%x", (unsigned)cx->mwait_hint);
        s->exit_latency_ns = cx->latency_us * SIM_NS_PER_US;
        /* Residency: the latency for C1-type, three times it for deeper types. */
        s->target_residency_ns = s->exit_latency_ns * (cx->type > 1 ? 3 : 1);
        s->flags = cx->type > 2 ? CPUIDLE_FLAG_TLB_FLUSHED : 0;
        s->mwait_hint = cx->mwait_hint;
        s->enter = CPUIDLE_ENTER_MWAIT;
        if (o->states_off & (1u << cstate))
            intel_idle_mark_off(drv, info);
        drv->state_count++;
    }
}

static void intel_idle_read_opts(const struct hw_machine *m, const struct kparams *kp,
                                 struct intel_idle_opts *o)
{
    o->max_cstate = (int)kparams_get(kp, "intel_idle.max_cstate", 0, -1);
    o->states_off = (uint32_t)kparams_get(kp, "intel_idle.states_off", 0, -1);
    o->preferred = (uint32_t)kparams_get(kp, "intel_idle.preferred_cstates", 0, -1);
    o->force_irq_on = kparams_get(kp, "intel_idle.force_irq_on", 0, -1) != 0;
    o->ibrs_off = kparams_get(kp, "intel_idle.ibrs_off", 0, -1) != 0;
    o->no_acpi = kparams_get(kp, "intel_idle.no_acpi", 0, -1) != 0;
    o->use_acpi = kparams_get(kp, "intel_idle.use_acpi", 0, -1) != 0;
    o->kernel_ibrs = x86_kernel_ibrs_active(m, kp);
    o->smt_active = m->threads_per_core > 1;
}

/* intel_idle_cst_usable: every _CST entry within max_cstate must be entered
 * by MWAIT (FFH). Returns the 1-based index of the first that is not, or 0. */
static int intel_idle_cst_first_not_ffh(const struct acpi_cst *cst, const struct intel_idle_opts *o)
{
    for (int i = 0; i < cst->count && !intel_idle_max_cstate_reached(o, i); i++)
        if (cst->states[i].method != HW_CST_FFH)
            return i + 1;
    return 0;
}

/* The early exits of intel_idle_init(), before any table work. Returns 0 or
 * the negative errno with msg set. */
static int intel_idle_check_load(const struct hw_machine *m, const struct kparams *kp,
                                 const struct intel_idle_opts *o, char *msg, size_t msgsize)
{
    int64_t idle = kparams_get(kp, "idle", 0, -1);
    if (idle != 0) {
        const struct kparam *p = kparam_find("idle");
        snprintf(msg, msgsize,
                 "intel_idle: not loaded: idle=%s overrides the idle driver (the kernel logs nothing)",
                 p->choices[idle]);
        return -ENODEV;
    }
    if (o->max_cstate == 0) {
        snprintf(msg, msgsize,
                 "intel_idle: disabled (intel_idle.max_cstate=0); acpi_idle registers instead");
        return -EPERM;
    }
    if (strcmp(m->vendor, "intel") != 0) {
        snprintf(msg, msgsize, "intel_idle: not loaded: not an Intel CPU (vendor %s)", m->vendor);
        return -ENODEV;
    }
    return 0;
}

int intel_idle_init(const struct hw_machine *m, const struct kparams *kp,
                    struct cpuidle_driver *drv, struct intel_idle_info *info, char *msg,
                    size_t msgsize)
{
    struct intel_idle_opts o;
    struct acpi_cst cst;
    memset(drv, 0, sizeof *drv);
    memset(info, 0, sizeof *info);
    if (msgsize)
        msg[0] = '\0';
    intel_idle_read_opts(m, kp, &o);
    int err = intel_idle_check_load(m, kp, &o, msg, msgsize);
    if (err)
        return err;

    const struct idle_cpu *icpu = intel_idle_match(m->cpu_model, &kp->kernel);
    memset(&cst, 0, sizeof cst);
    if (icpu) {
        info->acpi_cst_read = (icpu->use_acpi || o.use_acpi) && !o.no_acpi;
        if (info->acpi_cst_read)
            intel_idle_table_cst(m, icpu, &cst);
        if (icpu->disable_promotion_to_c1e)
            info->c1e_promotion = C1E_PROMOTION_DISABLE;
        intel_idle_table_source(m, icpu, info);
    } else {
        const char *from = "none";
        if (!o.no_acpi)
            from = intel_idle_firmware_cst(m, &cst);
        snprintf(info->source, sizeof info->source,
                 "firmware _CST (%s): %s has no intel_idle table on this kernel, so the "
                 "ACPI fallback builds C<n>_ACPI states", from, m->cpu_model);
        int not_ffh = intel_idle_cst_first_not_ffh(&cst, &o);
        if (cst.count == 0 || not_ffh > 0) {
            snprintf(msg, msgsize,
                     "intel_idle: ACPI _CST not found or not usable (model %s has no table%s)",
                     m->cpu_model, o.no_acpi ? ", intel_idle.no_acpi=1"
                                  : not_ffh ? ", an entry is not FFH/MWAIT" : "");
            memset(info, 0, sizeof *info);
            return -ENODEV;
        }
        info->acpi_cst_read = true;
    }

    snprintf(drv->name, sizeof drv->name, "intel_idle");
    cpuidle_poll_state_init(drv);
    if (o.states_off & 1u)
        intel_idle_mark_off(drv, info);
    drv->state_count = 1;
    info->table = icpu ? icpu->name : "acpi";
    info->kernel_ibrs = o.kernel_ibrs;
    info->smt_active = o.smt_active;
    info->max_cstate = o.max_cstate;
    if (icpu)
        intel_idle_init_cstates_icpu(m, kp, icpu, &o, &cst, drv, info);
    else
        intel_idle_init_cstates_acpi(&o, &cst, drv, info);
    return 0;
}

/* The registry's view of intel_idle (kernel/cpuidle/driver.h). */
static int intel_idle_probe(const struct hw_machine *m, const struct kparams *kp,
                            struct cpuidle_driver *drv, char *source, size_t sourcesize,
                            char *why, size_t whysize)
{
    struct intel_idle_info info;
    int err = intel_idle_init(m, kp, drv, &info, why, whysize);
    if (err == 0)
        snprintf(source, sourcesize, "%s", info.source);
    return err;
}

const struct cpuidle_driver_ops intel_idle_driver_ops = {
    .name = "intel_idle",
    .probe = intel_idle_probe,
};
