/* intel_idle table construction and the kernel-IBRS rule: for the shipped SKX,
 * ADL desktop and Raptor Lake-H machines, the state list (names, latency and
 * residency in ns, flags, disabled-by-default, entry method) after each boot
 * knob, and when the driver does not load. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hw/machine.h"
#include "kernel/idle/intel_idle.h"
#include "kernel/params.h"
#include "kernel/x86/bugs.h"

#define US 1000
#define TLB CPUIDLE_FLAG_TLB_FLUSHED
#define IRQ INTEL_IDLE_FLAG_IRQ_ENABLE
#define ALWAYS INTEL_IDLE_FLAG_ALWAYS_ENABLE
#define IBRS INTEL_IDLE_FLAG_IBRS
#define OFF CPUIDLE_FLAG_OFF
#define XSTATE INTEL_IDLE_FLAG_INIT_XSTATE
#define PARTIAL INTEL_IDLE_FLAG_PARTIAL_HINT_MATCH

/* One test's world: a machine, a variant's knobs, the driver built from them. */
struct ii {
    struct hw_machine *m;
    struct kparams kp;
    struct cpuidle_driver drv;
    struct intel_idle_info info;
    char msg[256];
};

static struct ii *ii_new(const char *machine, const char *kernel)
{
    struct ii *t = test_calloc(1, sizeof *t);
    struct diag d = { 0 };
    t->m = hw_machine_load(machine, &d);
    if (!t->m)
        fail_msg("%s", d.msg);
    kparams_init(&t->kp);
    if (kernel)
        assert_int_equal(kversion_parse(kernel, &t->kp.kernel), 0);
    return t;
}

static void ii_free(struct ii *t)
{
    kparams_destroy(&t->kp);
    hw_machine_free(t->m);
    test_free(t);
}

static void ii_set(struct ii *t, const char *name, const char *value)
{
    struct diag d = { 0 };
    if (kparams_set_cmdline(&t->kp, name, value, "test", 1, &d) != 0)
        fail_msg("%s", d.msg);
}

static int ii_init(struct ii *t)
{
    return intel_idle_init(t->m, &t->kp, &t->drv, &t->info, t->msg, sizeof t->msg);
}

/* Assert state i of the driver. flags are the full final flags (OFF included);
 * OFF must agree with info.off_by_default. */
static void expect_state(const struct ii *t, int i, const char *name, int64_t lat_us,
                         int64_t res_us, unsigned flags, enum cpuidle_enter_method enter)
{
    const struct cpuidle_state *s = &t->drv.states[i];
    assert_true(i < t->drv.state_count);
    assert_string_equal(s->name, name);
    assert_int_equal(s->exit_latency_ns, lat_us * US);
    assert_int_equal(s->target_residency_ns, res_us * US);
    assert_int_equal(s->flags, flags);
    assert_int_equal(s->enter, enter);
    assert_int_equal(t->info.off_by_default[i], (flags & OFF) != 0);
}

static void expect_poll(const struct ii *t, unsigned extra_flags)
{
    expect_state(t, 0, "POLL", 0, 0, CPUIDLE_FLAG_POLLING | extra_flags, CPUIDLE_ENTER_POLL);
}

/* ---- SKX (skx-2s: Skylake-SP, SMT, PC6 enabled) ---- */

/* Default 6.12 boot: spectre_v2=auto on Skylake picks legacy IBRS (Retbleed),
 * so C6 (IBRS flag) takes the SPEC_CTRL-clearing entry; C1 keeps IRQ_ENABLE. */
static void test_skx_defaults(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->drv.name, "intel_idle");
    assert_string_equal(t->info.table, "skx");
    assert_int_equal(t->drv.state_count, 4);
    expect_poll(t, 0);
    expect_state(t, 1, "C1", 2, 2, IRQ, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 2, "C1E", 10, 20, ALWAYS, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT_IBRS);
    assert_string_equal(t->drv.states[3].desc, "MWAIT 0x20");
    assert_int_equal(t->drv.states[3].mwait_hint, 0x20);
    assert_true(t->info.kernel_ibrs);
    assert_true(t->info.smt_active);
    assert_true(t->info.acpi_cst_read);     /* use_acpi model, _CST lists every hint */
    assert_int_equal(t->info.c1e_promotion, C1E_PROMOTION_DISABLE);
    ii_free(t);
}

/* A machine file with its own C6 exit (190 us) for a model with a table:
 * the driver keeps the table's C6 (290/800, PC6 enabled) and says so; the
 * file's _CST, lacking C6, marks it off because SPR is a use_acpi model,
 * and intel_idle.no_acpi=1 leaves it on (the _CST is not read). */
static void test_table_wins_file_cst_marks_off(void **state)
{
    (void)state;
    struct ii *t = ii_new("tests/data/machines/spr-file-cst.ini", NULL);
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "spr");
    assert_int_equal(t->drv.state_count, 4);
    expect_state(t, 3, "C6", 290, 800, TLB | XSTATE | OFF, CPUIDLE_ENTER_MWAIT_XSTATE);
    expect_state(t, 2, "C1E", 2, 4, ALWAYS, CPUIDLE_ENTER_MWAIT);
    assert_non_null(strstr(t->info.source, "compiled table 'spr' for SAPPHIRERAPIDS_X"));
    assert_non_null(strstr(t->info.source, "marks table states it lacks off"));
    ii_set(t, "intel_idle.no_acpi", "1");
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 3, "C6", 290, 800, TLB | XSTATE, CPUIDLE_ENTER_MWAIT_XSTATE);
    ii_free(t);
}

/* More of the kernel's tables, keyed by model name, on a machine whose
 * hardware has every major C-state: count, a state's numbers, use_acpi, and
 * PARTIAL_HINT_MATCH (a _CST listing 0x20 keeps GNR's C6P 0x21 on, SRF's C6S
 * 0x22 too, while an exact-match state whose hint is missing goes OFF). */
static void set_model(struct ii *t, const char *model)
{
    snprintf(t->m->cpu_model, sizeof t->m->cpu_model, "%s", model);
}

static void test_more_tables(void **state)
{
    (void)state;
    struct ii *t = ii_new("tests/data/machines/many-cstates.ini", "6.12");
    set_model(t, "HASWELL_X");
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "hsx");
    assert_int_equal(t->drv.state_count, 9);
    expect_state(t, 8, "C10", 2600, 7700, TLB, CPUIDLE_ENTER_MWAIT);
    set_model(t, "BROADWELL");
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 3, "C3", 40, 100, TLB, CPUIDLE_ENTER_MWAIT);
    set_model(t, "ATOM_TREMONT_D");
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 2, "C1E", 15, 25, ALWAYS, CPUIDLE_ENTER_MWAIT);
    set_model(t, "GRANITERAPIDS_X");
    t->m->fw.ncst = t->m->fw.ncst_latency = 2;
    t->m->fw.cst_mwait_hint[0] = 0x00, t->m->fw.cst_mwait_hint[1] = 0x20;
    t->m->fw.cst_latency_us[0] = 1, t->m->fw.cst_latency_us[1] = 170;
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "gnr");
    expect_state(t, 3, "C6", 170, 650, TLB | XSTATE | PARTIAL, CPUIDLE_ENTER_MWAIT_XSTATE);
    expect_state(t, 4, "C6P", 210, 1000, TLB | XSTATE | PARTIAL, CPUIDLE_ENTER_MWAIT_XSTATE);
    set_model(t, "ATOM_CRESTMONT_X");
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 3, "C6S", 270, 700, TLB | PARTIAL, CPUIDLE_ENTER_MWAIT);
    set_model(t, "HASWELL_X");          /* exact match: C3 0x10 not in the _CST */
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 3, "C3", 33, 100, TLB | OFF, CPUIDLE_ENTER_MWAIT);
    assert_int_equal(kversion_parse("6.11", &t->kp.kernel), 0);
    set_model(t, "GRANITERAPIDS_X");    /* no table before 6.12: the _CST fallback */
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "acpi");
    ii_free(t);
}

static void test_skx_max_cstate(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "intel_idle.max_cstate", "1");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    expect_state(t, 1, "C1", 2, 2, IRQ, CPUIDLE_ENTER_MWAIT_IRQ);
    ii_set(t, "intel_idle.max_cstate", "2");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 3);
    expect_state(t, 2, "C1E", 10, 20, ALWAYS, CPUIDLE_ENTER_MWAIT);
    ii_free(t);
}

/* The seed-000/001 setup: kernel IBRS, C1 only, with and without ibrs_off. */
static void test_skx_ibrs(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "spectre_v2", "ibrs");
    assert_int_equal(ii_init(t), 0);
    assert_true(t->info.kernel_ibrs);
    expect_state(t, 1, "C1", 2, 2, IRQ, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 2, "C1E", 10, 20, ALWAYS, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT_IBRS);

    ii_set(t, "intel_idle.ibrs_off", NULL);     /* bare word = 1 */
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 1, "C1", 2, 2, 0, CPUIDLE_ENTER_MWAIT_IBRS);   /* IRQ_ENABLE dropped */
    expect_state(t, 2, "C1E", 10, 20, ALWAYS, CPUIDLE_ENTER_MWAIT_IBRS);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT_IBRS);

    ii_set(t, "intel_idle.max_cstate", "1");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    expect_state(t, 1, "C1", 2, 2, 0, CPUIDLE_ENTER_MWAIT_IBRS);
    ii_free(t);
}

/* Without kernel IBRS the IBRS flag and ibrs_off change nothing. */
static void test_skx_no_kernel_ibrs(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "spectre_v2", "retpoline,generic");
    ii_set(t, "intel_idle.ibrs_off", "1");
    assert_int_equal(ii_init(t), 0);
    assert_false(t->info.kernel_ibrs);
    expect_state(t, 1, "C1", 2, 2, IRQ, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT);
    ii_free(t);

    t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "retbleed", "off");           /* auto then picks retpoline */
    assert_int_equal(ii_init(t), 0);
    assert_false(t->info.kernel_ibrs);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT);
    ii_free(t);
}

/* With SMT off intel_idle_ibrs() writes no MSR: plain MWAIT, IRQs off. */
static void test_skx_ibrs_no_smt(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    t->m->threads_per_core = 1;
    assert_int_equal(ii_init(t), 0);
    assert_true(t->info.kernel_ibrs);
    assert_false(t->info.smt_active);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT);
    ii_free(t);
}

static void test_skx_states_off_and_force_irq_on(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "intel_idle.states_off", "0x9");  /* POLL and C6 */
    assert_int_equal(ii_init(t), 0);
    expect_poll(t, OFF);
    expect_state(t, 1, "C1", 2, 2, IRQ, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 2, "C1E", 10, 20, ALWAYS, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS | OFF, CPUIDLE_ENTER_MWAIT_IBRS);
    ii_set(t, "intel_idle.states_off", "4");
    ii_set(t, "intel_idle.force_irq_on", "y");
    assert_int_equal(ii_init(t), 0);
    expect_poll(t, 0);
    expect_state(t, 2, "C1E", 10, 20, ALWAYS | OFF, CPUIDLE_ENTER_MWAIT_IRQ);
    /* The IBRS entry comes first: force_irq_on does not reach C6. */
    expect_state(t, 3, "C6", 133, 600, TLB | IBRS, CPUIDLE_ENTER_MWAIT_IBRS);
    ii_free(t);
}

/* Package C6 disabled in firmware (no PC6 in the machine): C6 = 92/276. */
static void test_skx_no_pc6(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    t->m->npkgstates = 0;
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 3, "C6", 92, 276, TLB | IBRS, CPUIDLE_ENTER_MWAIT_IBRS);
    ii_free(t);
}

/* 5.15: no IRQ_ENABLE on C1 (5.16), no IBRS flag or kernel IBRS (5.19), no
 * ibrs_off knob (6.7). */
static void test_skx_kernel_5_15(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", "5.15");
    struct diag d = { 0 };
    /* Too new for 5.15: ignored with the kernel's warning, not an error. */
    assert_int_equal(kparams_set_cmdline(&t->kp, "intel_idle.ibrs_off", "1", "v.ini", 7, &d), 0);
    assert_int_equal(t->kp.nwarnings, 1);
    assert_non_null(strstr(t->kp.warnings[0], "added in 6.7"));
    assert_non_null(strstr(t->kp.warnings[0], "intel_idle: unknown parameter 'ibrs_off' ignored"));
    assert_false(kparams_is_set(&t->kp, "intel_idle.ibrs_off"));
    ii_set(t, "spectre_v2", "ibrs");        /* unknown before 5.19: auto */
    assert_int_equal(ii_init(t), 0);
    assert_false(t->info.kernel_ibrs);
    expect_state(t, 1, "C1", 2, 2, 0, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C6", 133, 600, TLB, CPUIDLE_ENTER_MWAIT);
    ii_free(t);
}

static void test_not_loaded(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "idle", "poll");
    assert_int_equal(ii_init(t), -ENODEV);
    assert_int_equal(t->drv.state_count, 0);
    assert_non_null(strstr(t->msg, "idle=poll"));
    ii_free(t);

    t = ii_new("machines/adl-desktop.ini", NULL);
    ii_set(t, "idle", "nomwait");
    assert_int_equal(ii_init(t), -ENODEV);
    ii_free(t);

    t = ii_new("machines/skx-2s.ini", NULL);
    ii_set(t, "intel_idle.max_cstate", "0");
    assert_int_equal(ii_init(t), -EPERM);
    assert_int_equal(t->drv.state_count, 0);
    assert_non_null(strstr(t->msg, "acpi_idle"));
    ii_free(t);
}

/* ---- ADL desktop (Alder Lake-S: eIBRS, SMT on P-cores) ---- */

static void test_adl_defaults(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/adl-desktop.ini", NULL);
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "adl");
    assert_int_equal(t->drv.state_count, 5);
    expect_poll(t, 0);
    expect_state(t, 1, "C1E", 2, 4, ALWAYS, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 2, "C6", 220, 600, TLB, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C8", 280, 800, TLB, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 4, "C10", 680, 2000, TLB, CPUIDLE_ENTER_MWAIT);
    assert_int_equal(t->info.c1e_promotion, C1E_PROMOTION_ENABLE);
    assert_false(t->info.kernel_ibrs);      /* eIBRS */
    assert_false(t->info.acpi_cst_read);
    ii_free(t);
}

static void test_adl_preferred_cstates(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/adl-desktop.ini", NULL);
    ii_set(t, "intel_idle.preferred_cstates", "2");     /* C1 */
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 5);
    expect_state(t, 1, "C1", 1, 1, 0, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 2, "C6", 220, 600, TLB, CPUIDLE_ENTER_MWAIT);
    assert_int_equal(t->info.c1e_promotion, C1E_PROMOTION_DISABLE);

    ii_set(t, "intel_idle.preferred_cstates", "6");     /* both: no preference */
    assert_int_equal(ii_init(t), 0);
    expect_state(t, 1, "C1E", 2, 4, ALWAYS, CPUIDLE_ENTER_MWAIT);
    assert_int_equal(t->info.c1e_promotion, C1E_PROMOTION_ENABLE);
    ii_free(t);
}

/* max_cstate counts table positions, the unusable C1 included. */
static void test_adl_max_cstate(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/adl-desktop.ini", NULL);
    ii_set(t, "intel_idle.max_cstate", "1");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 1);           /* POLL only */
    ii_set(t, "intel_idle.max_cstate", "2");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    expect_state(t, 1, "C1E", 2, 4, ALWAYS, CPUIDLE_ENTER_MWAIT);
    ii_set(t, "intel_idle.max_cstate", "1");
    ii_set(t, "intel_idle.preferred_cstates", "0x2");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 2);
    expect_state(t, 1, "C1", 1, 1, 0, CPUIDLE_ENTER_MWAIT);
    ii_free(t);
}

static void test_adl_states_off_force_irq_on_use_acpi(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/adl-desktop.ini", NULL);
    ii_set(t, "intel_idle.states_off", "12");   /* sysfs states 2, 3: C6, C8 */
    ii_set(t, "intel_idle.force_irq_on", "1");
    ii_set(t, "intel_idle.use_acpi", "1");
    assert_int_equal(ii_init(t), 0);
    assert_true(t->info.acpi_cst_read);
    expect_poll(t, 0);
    expect_state(t, 1, "C1E", 2, 4, ALWAYS, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 2, "C6", 220, 600, TLB | OFF, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 3, "C8", 280, 800, TLB | OFF, CPUIDLE_ENTER_MWAIT_IRQ);
    expect_state(t, 4, "C10", 680, 2000, TLB, CPUIDLE_ENTER_MWAIT_IRQ);
    ii_free(t);
}

/* spectre_v2=ibrs forces kernel IBRS even on an eIBRS CPU; no ADL state has the
 * IBRS flag, so only ibrs_off brings the IBRS entry. */
static void test_adl_ibrs(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/adl-desktop.ini", NULL);
    ii_set(t, "spectre_v2", "ibrs");
    assert_int_equal(ii_init(t), 0);
    assert_true(t->info.kernel_ibrs);
    expect_state(t, 2, "C6", 220, 600, TLB, CPUIDLE_ENTER_MWAIT);
    ii_set(t, "intel_idle.ibrs_off", "1");
    assert_int_equal(ii_init(t), 0);
    for (int i = 1; i < t->drv.state_count; i++)
        assert_int_equal(t->drv.states[i].enter, CPUIDLE_ENTER_MWAIT_IBRS);
    ii_free(t);
}

/* Before 5.19 intel_idle has no ADL table: the _CST fallback. */
static void test_adl_kernel_5_18(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/adl-desktop.ini", "5.18");
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "acpi");
    assert_int_equal(t->drv.state_count, 4);
    expect_state(t, 1, "C1_ACPI", 1, 1, 0, CPUIDLE_ENTER_MWAIT);
    ii_free(t);
}

/* ---- Raptor Lake-H (RAPTORLAKE_P): no table in mainline, ACPI _CST ---- */

static void test_rpl_acpi(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/rpl-h.ini", NULL);
    assert_int_equal(ii_init(t), 0);
    assert_string_equal(t->info.table, "acpi");
    assert_true(t->info.acpi_cst_read);
    assert_int_equal(t->info.c1e_promotion, C1E_PROMOTION_PRESERVE);
    assert_int_equal(t->drv.state_count, 4);
    expect_poll(t, 0);
    expect_state(t, 1, "C1_ACPI", 1, 1, 0, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 2, "C2_ACPI", 127, 381, 0, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 3, "C3_ACPI", 1048, 3144, TLB, CPUIDLE_ENTER_MWAIT);
    assert_string_equal(t->drv.states[2].desc, "ACPI FFH MWAIT 0x21");
    assert_int_equal(t->drv.states[3].mwait_hint, 0x60);
    ii_free(t);
}

static void test_rpl_knobs(void **state)
{
    (void)state;
    struct ii *t = ii_new("machines/rpl-h.ini", NULL);
    ii_set(t, "intel_idle.max_cstate", "2");
    ii_set(t, "intel_idle.states_off", "4");
    ii_set(t, "spectre_v2", "ibrs");
    ii_set(t, "intel_idle.ibrs_off", "1");
    ii_set(t, "intel_idle.force_irq_on", "1");
    assert_int_equal(ii_init(t), 0);
    assert_int_equal(t->drv.state_count, 3);
    assert_true(t->info.kernel_ibrs);
    /* The _CST path enters every state with plain MWAIT. */
    expect_state(t, 1, "C1_ACPI", 1, 1, 0, CPUIDLE_ENTER_MWAIT);
    expect_state(t, 2, "C2_ACPI", 127, 381, OFF, CPUIDLE_ENTER_MWAIT);
    ii_free(t);

    t = ii_new("machines/rpl-h.ini", NULL);
    ii_set(t, "intel_idle.no_acpi", "1");
    assert_int_equal(ii_init(t), -ENODEV);
    assert_non_null(strstr(t->msg, "_CST"));
    ii_free(t);
}

/* ---- spectre_v2 rule ---- */

static enum spectre_v2_mitigation mode_of(const char *machine, const char *kernel,
                                          const char *name, const char *value)
{
    struct ii *t = ii_new(machine, kernel);
    if (name)
        ii_set(t, name, value);
    enum spectre_v2_mitigation mode = x86_spectre_v2_select_mitigation(t->m, &t->kp);
    ii_free(t);
    return mode;
}

static void test_spectre_v2(void **state)
{
    (void)state;
    const char *skx = "machines/skx-2s.ini", *adl = "machines/adl-desktop.ini";
    assert_int_equal(mode_of(skx, NULL, NULL, NULL), SPECTRE_V2_IBRS);
    assert_int_equal(mode_of(skx, NULL, "retbleed", "off"), SPECTRE_V2_RETPOLINE);
    assert_int_equal(mode_of(skx, NULL, "retbleed", "stuff"), SPECTRE_V2_RETPOLINE);
    assert_int_equal(mode_of(skx, NULL, "spectre_v2", "eibrs"), SPECTRE_V2_IBRS); /* refused: auto */
    assert_int_equal(mode_of(skx, NULL, "spectre_v2", "retpoline,lfence"), SPECTRE_V2_LFENCE);
    assert_int_equal(mode_of(skx, NULL, "spectre_v2", "off"), SPECTRE_V2_NONE);
    assert_int_equal(mode_of(skx, NULL, "nospectre_v2", NULL), SPECTRE_V2_NONE);
    assert_int_equal(mode_of(skx, NULL, "mitigations", "off"), SPECTRE_V2_NONE);
    assert_int_equal(mode_of(skx, "5.18", NULL, NULL), SPECTRE_V2_RETPOLINE);
    assert_int_equal(mode_of(adl, NULL, NULL, NULL), SPECTRE_V2_EIBRS);
    assert_int_equal(mode_of(adl, NULL, "spectre_v2", "on"), SPECTRE_V2_EIBRS);
    assert_int_equal(mode_of(adl, NULL, "spectre_v2", "eibrs,retpoline"),
                     SPECTRE_V2_EIBRS_RETPOLINE);
    assert_int_equal(mode_of(adl, NULL, "spectre_v2", "ibrs"), SPECTRE_V2_IBRS);
    assert_string_equal(spectre_v2_mitigation_name(SPECTRE_V2_IBRS), "Mitigation: IBRS");
}

/* Registry rows: defaults and ranges as the kernel declares them. */
static void test_params(void **state)
{
    (void)state;
    struct kparams kp;
    struct diag d = { 0 };
    kparams_init(&kp);
    assert_int_equal(kparams_get(&kp, "intel_idle.max_cstate", 0, -1), 9);
    assert_int_equal(kparams_get(&kp, "intel_idle.states_off", 0, -1), 0);
    assert_int_equal(kparams_get(&kp, "intel-idle.ibrs-off", 0, -1), 0);
    assert_int_equal(kparams_set_cmdline(&kp, "intel_idle.max_cstate", "10", "f", 2, &d), -1);
    assert_int_equal(kparams_set_cmdline(&kp, "intel_idle.states_off", "0x1f", "f", 3, &d), 0);
    assert_int_equal(kparams_get(&kp, "intel_idle.states_off", 0, -1), 0x1f);
    assert_int_equal(kparams_set_cmdline(&kp, "spectre_v2", "retpoline,generic", "f", 4, &d), 0);
    assert_int_equal(kparams_set_cmdline(&kp, "spectre_v2", "ibrs,foo", "f", 5, &d), -1);
    assert_null(kparam_find("intel_idle.max_cstate")->sysfs);
    kparams_destroy(&kp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skx_defaults),
        cmocka_unit_test(test_skx_max_cstate),
        cmocka_unit_test(test_skx_ibrs),
        cmocka_unit_test(test_skx_no_kernel_ibrs),
        cmocka_unit_test(test_skx_ibrs_no_smt),
        cmocka_unit_test(test_skx_states_off_and_force_irq_on),
        cmocka_unit_test(test_skx_no_pc6),
        cmocka_unit_test(test_skx_kernel_5_15),
        cmocka_unit_test(test_not_loaded),
        cmocka_unit_test(test_adl_defaults),
        cmocka_unit_test(test_adl_preferred_cstates),
        cmocka_unit_test(test_adl_max_cstate),
        cmocka_unit_test(test_adl_states_off_force_irq_on_use_acpi),
        cmocka_unit_test(test_adl_ibrs),
        cmocka_unit_test(test_adl_kernel_5_18),
        cmocka_unit_test(test_rpl_acpi),
        cmocka_unit_test(test_rpl_knobs),
        cmocka_unit_test(test_spectre_v2),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_table_wins_file_cst_marks_off),
        cmocka_unit_test(test_more_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
