/* acpi_idle: the cpuidle states of the ACPI processor driver, see
 * processor_idle.h. Follows drivers/acpi/processor_idle.c and the _CST
 * parser in drivers/acpi/acpi_processor.c as FACTS-2.md §5 describes them:
 *  - entries come from _CST unless processor.nocst; C1 always exists (HLT
 *    when the _CST has no usable C1); validation stops at
 *    processor.max_cstate (default 8; 0 counts as 1);
 *  - an FFH entry is MWAIT with the address as hint and ECX bit 0 (an
 *    interrupt breaks it, IRQs off); the probe needs a hint the CPU
 *    reports sub-states for (CPUID leaf 5: here, a hardware C-state of the
 *    boot CPU's core type with the same major C-state) on Intel, AMD or
 *    Hygon; a C1 that fails it runs as HLT, a deeper entry is dropped;
 *  - an I/O entry reads the P_LVLx port (IRQs off; the old-Intel PM-timer
 *    dummy read is not modelled); HALT is safe_halt (IRQs on at HLT);
 *  - latency = the _CST's; target residency = latency x
 *    processor.latency_factor (default 2) for every state; C3-type entries
 *    flush the TLB; out-of-order latencies are sorted ("FW issue");
 *  - bus masters: bm_check on Intel and, from v5.16 (D. Sharma, "x86: ACPI:
 *    cstate: Optimize C3 entry on AMD CPUs", Sep 2021), on AMD/Hygon family
 *    0x17 and later; then a C3-type entry checks BM_STS and demotes to the
 *    deepest non-C3 state (or HLT) on activity, unless
 *    processor.bm_check_disable. Without bm_check a C3-type entry flushes
 *    caches with WBINVD (pmlab assumes the FADT allows it).
 * Entry costs: none is charged beyond the hardware state's exit latency
 * (machine file), for any method: no source gives the cost of the MWAIT,
 * the port read or HLT itself. Every modelled CPU has ARAT (no TIMER_STOP)
 * and a non-stop TSC. */
#include "kernel/acpi/processor_idle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/time.h"

/* The boot knobs acpi_idle reads. */
struct acpi_idle_opts {
    int max_cstate;         /* processor.max_cstate, 0 read as 1 */
    bool nocst;
    int latency_factor;
    bool bm_check_disable;
    bool nomwait;           /* idle=nomwait: C1 runs as HLT */
};

static void acpi_idle_read_opts(const struct kparams *kp, struct acpi_idle_opts *o)
{
    o->max_cstate = (int)kparams_get(kp, "processor.max_cstate", 0, -1);
    if (o->max_cstate < 1)
        o->max_cstate = 1;
    o->nocst = kparams_get(kp, "processor.nocst", 0, -1) != 0;
    o->latency_factor = (int)kparams_get(kp, "processor.latency_factor", 0, -1);
    o->bm_check_disable = kparams_get(kp, "processor.bm_check_disable", 0, -1) != 0;
    o->nomwait = kparams_get(kp, "idle", 0, -1) == 3; /* "", poll, halt, nomwait */
}

/* acpi_processor_ffh_cstate_probe: the vendor sets FFH up, and CPUID leaf 5
 * reports sub-states for the hint's C-state on the boot CPU. */
static bool acpi_ffh_usable(const struct hw_machine *m, uint32_t hint)
{
    if (strcmp(m->vendor, "intel") != 0 && strcmp(m->vendor, "amd") != 0 &&
        strcmp(m->vendor, "hygon") != 0)
        return false;
    const struct hw_core_type *t = &m->types[m->ncpus > 0 ? m->cpus[0].type : 0];
    for (int i = 0; i < t->ncstates; i++)
        if ((t->cstates[i].mwait_hint >> 4) == (hint >> 4))
            return true;
    return false;
}

/* bm_check: set on Intel, and on AMD/Hygon Zen (family >= 0x17) from 5.16. */
static bool acpi_bm_check(const struct hw_machine *m, const struct kparams *kp)
{
    if (strcmp(m->vendor, "intel") == 0)
        return true;
    bool amd = strcmp(m->vendor, "amd") == 0 || strcmp(m->vendor, "hygon") == 0;
    return amd && m->cpu_family >= 0x17 && kversion_at_least(&kp->kernel, "5.16");
}

/* The C1 every CPU has without a usable _CST C1 (acpi_processor_get_power_info_default):
 * HLT, latency 0. */
static const struct acpi_cst_entry acpi_default_c1 = { 1, 0, 0, HW_CST_HALT };

/* The _CST entries acpi_idle keeps, in state order: C1 first (the _CST's
 * C1 or the default), the rest as listed, each probed; at most max_cstate.
 * Returns the count. */
static int acpi_idle_entries(const struct hw_machine *m, const struct acpi_idle_opts *o,
                             const struct acpi_cst *cst, struct acpi_cst_entry *out)
{
    int n = 0;
    out[n++] = acpi_default_c1;         /* replaced by the _CST's own C1 */
    for (int i = 0; i < cst->count && n < ACPI_CST_MAX; i++) {
        struct acpi_cst_entry cx = cst->states[i];
        if (cx.method == HW_CST_FFH && (o->nomwait || !acpi_ffh_usable(m, cx.mwait_hint))) {
            if (cx.type != 1)
                continue;               /* a deeper FFH entry the CPU cannot enter */
            cx.method = HW_CST_HALT;
        }
        if (cx.type == 1)
            out[0] = cx;                /* one C1, always first */
        else
            out[n++] = cx;
    }
    return n < o->max_cstate ? n : o->max_cstate;
}

/* Sort by latency (the kernel sorts and logs "FW issue"). Returns whether
 * the order changed. */
static bool acpi_idle_sort(struct acpi_cst_entry *cx, int n)
{
    bool moved = false;
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && cx[k - 1].latency_us > cx[k].latency_us; k--) {
            struct acpi_cst_entry tmp = cx[k];
            cx[k] = cx[k - 1];
            cx[k - 1] = tmp;
            moved = true;
        }
    return moved;
}

static void acpi_idle_fill_state(struct cpuidle_state *s, int idx, const struct acpi_cst_entry *cx,
                                 const struct acpi_idle_opts *o)
{
    snprintf(s->name, sizeof s->name, "C%u", (unsigned)(unsigned char)idx);
    switch (cx->method) {
    case HW_CST_FFH:
        snprintf(s->desc, sizeof s->desc, "ACPI FFH MWAIT 0x%x", (unsigned)cx->mwait_hint);
        s->enter = CPUIDLE_ENTER_MWAIT;
        s->mwait_hint = cx->mwait_hint;
        break;
    case HW_CST_SYSTEM_IO:
        snprintf(s->desc, sizeof s->desc, "ACPI IOPORT 0x%x", (unsigned)cx->mwait_hint);
        s->enter = CPUIDLE_ENTER_IO;
        s->io_port = cx->mwait_hint;
        break;
    case HW_CST_HALT:
        snprintf(s->desc, sizeof s->desc, "ACPI HLT");
        s->enter = CPUIDLE_ENTER_HLT;
        break;
    }
    s->exit_latency_ns = cx->latency_us * SIM_NS_PER_US;
    s->target_residency_ns = s->exit_latency_ns * o->latency_factor;
    s->flags = cx->type == 3 ? CPUIDLE_FLAG_TLB_FLUSHED : 0;
}

int acpi_idle_init(const struct hw_machine *m, const struct kparams *kp,
                   struct cpuidle_driver *drv, struct acpi_idle_info *info, char *msg,
                   size_t msgsize)
{
    memset(drv, 0, sizeof *drv);
    memset(info, 0, sizeof *info);
    if (msgsize)
        msg[0] = '\0';
    if (hw_machine_is_arm(m)) {
        /* A device-tree Arm machine has no ACPI processor objects (arm64
         * ACPI machines describe idle states as _LPI, which pmlab does not
         * model). */
        snprintf(msg, msgsize, "acpi_idle: not loaded: no ACPI on a device-tree Arm machine");
        return -ENODEV;
    }
    int64_t idle = kparams_get(kp, "idle", 0, -1);
    if (idle == 1 || idle == 2) {       /* disabled_by_idle_boot_param() */
        snprintf(msg, msgsize, "acpi_idle: not registered: idle=%s",
                 idle == 1 ? "poll" : "halt");
        return -ENODEV;
    }
    struct acpi_idle_opts o;
    acpi_idle_read_opts(kp, &o);
    struct acpi_cst cst;
    const char *from = "processor.nocst=1";
    memset(&cst, 0, sizeof cst);
    if (!o.nocst)
        from = acpi_evaluate_cst(m, &cst);
    struct acpi_cst_entry cx[ACPI_CST_MAX];
    int n = acpi_idle_entries(m, &o, &cst, cx);
    info->sorted = acpi_idle_sort(cx, n);
    info->bm_check = acpi_bm_check(m, kp);

    snprintf(drv->name, sizeof drv->name, "acpi_idle");
    cpuidle_poll_state_init(drv);
    drv->state_count = 1;
    for (int i = 0; i < n && drv->state_count < CPUIDLE_STATE_MAX; i++) {
        int idx = drv->state_count++;
        acpi_idle_fill_state(&drv->states[idx], idx, &cx[i], &o);
        if (cx[i].type == 3)
            info->bm_check_state[idx] = info->bm_check && !o.bm_check_disable;
        else
            info->safe_state_index = idx;
    }
    snprintf(info->source, sizeof info->source,
             "firmware _CST (%s) read by acpi_idle: residency = latency x %d "
             "(processor.latency_factor)%s%s", cst.count ? from : "none: C1 (HLT) only",
             o.latency_factor, info->sorted ? "; latencies out of order, sorted (FW issue)" : "",
             info->bm_check ? "; bus-master check on C3-type states" : "");
    return 0;
}

int acpi_idle_state_entered(const struct acpi_idle_info *info, int idx, bool bm_active)
{
    if (bm_active && idx > 0 && idx < CPUIDLE_STATE_MAX && info->bm_check_state[idx])
        return info->safe_state_index;
    return idx;
}

/* The registry's view of acpi_idle (kernel/cpuidle/driver.h). */
static int acpi_idle_probe(const struct hw_machine *m, const struct kparams *kp,
                           struct cpuidle_driver *drv, char *source, size_t sourcesize, char *why,
                           size_t whysize)
{
    struct acpi_idle_info info;
    int err = acpi_idle_init(m, kp, drv, &info, why, whysize);
    if (err == 0)
        snprintf(source, sourcesize, "%s", info.source);
    return err;
}

const struct cpuidle_driver_ops acpi_idle_driver_ops = {
    .name = "acpi_idle",
    .probe = acpi_idle_probe,
};
