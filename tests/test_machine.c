/* test_machine: the machine-file loader (src/hw/machine.c).
 *
 * Three kinds of checks: every bad-input fixture under tests/data/machines/
 * fails with NULL and the exact "FILE:LINE: message" (a loader that crashes or
 * names the wrong line is as useless as one that accepts the file); the
 * shipped machines load with the topology and latencies Linux and the sources
 * give; and the small helpers (find, calib, power, cstate index), with the
 * run-time state's use of them (hw/cpu.c: a core's power from its threads'
 * modes, active power by frequency). Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/machine.h"

#define FIXTURES "tests/data/machines/"

static struct hw_machine *load_ok(const char *path)
{
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load(path, &d);
    if (!m)
        fail_msg("%s: unexpected error: %s", path, d.msg);
    assert_false(d.set);
    return m;
}

/* ---- bad input ---------------------------------------------------------- */

struct bad_case {
    const char *file;      /* under FIXTURES */
    int line;              /* 0: the message has no line */
    const char *message;   /* what follows "FILE:LINE: " */
};

static const struct bad_case bad_cases[] = {
    { "unknown-section.ini", 34, "unknown section [pkg_state PC6]; expected [machine], [core_type NAME], "
                                 "[cstate TYPE NAME], [pkgstate NAME], [firmware], [rapl] or [calibration]" },
    { "unknown-key.ini", 13, "unknown key 'ipc' in [core_type P]" },
    { "bad-number.ini", 15, "base_mhz: '2.0GHz' is not an integer" },
    { "bad-hint.ini", 28, "mwait_hint: '0x2g' is not an integer" },
    { "bad-bool.ini", 25, "flushes_caches: 'maybe' is not a boolean (yes or no)" },
    { "cst-bad-method.ini", 38, "cst_methods: 'iox' is not ffh, io or halt" },
    { "negative-latency.ini", 29, "exit_latency_us = -100 is out of range [0, 1000000]" },
    { "zero-packages.ini", 7, "packages = 0 is out of range [1, 64]" },
    { "turbo-too-long.ini", 17, "turbo_mhz lists 3 values but [core_type P] has 2 cores per package" },
    { "turbo-above-max.ini", 17, "turbo_mhz value 1 (3100 MHz) is outside [base_mhz, max_mhz] = [2000, 3000]" },
    { "min-above-base.ini", 15, "need min_mhz <= base_mhz <= max_mhz, got 2500, 2000, 3000" },
    { "duplicate-section.ini", 27, "duplicate section [cstate P C1]" },
    { "duplicate-key.ini", 8, "duplicate key 'packages' in [machine] (first at line 7)" },
    { "missing-key.ini", 27, "[cstate P C6]: missing required key 'core_power_mw'" },
    { "cstate-unknown-type.ini", 27, "[cstate E C6]: unknown core type 'E' (declare [core_type E] before its C-states)" },
    { "cstate-order.ini", 29, "C-states go shallowest first, but C6 exits faster than C1 before it" },
    { "pkgstate-unknown-cstate.ini", 35, "core_cstate 'C7' is not a C-state of core type P" },
    { "pkgstate-bad-name.ini", 34, "package state 'C6' is not named as turbostat names them (PC1..PC10)" },
    { "pkgstate-number-order.ini", 39, "package states go shallowest first: PC3 after PC6" },
    { "unknown-calib.ini", 40, "unknown calibration key 'smt_factor' (known: smt_corun_factor, smt_poll_factor, poll_power_ratio, exit_ramp_ratio, ibrs_sibling_factor, spec_ctrl_write_ns, irq_off_exit_ns, wake_irq_ns, wake_switch_ns, softirq_ns, bg_wake_share, bg_msgs_per_irq, bg_run_ns, bg_hrtimer_share, bg_timer_slack_ns, bg_deferrable_hz, rcu_callback_ns, rcu_kthread_run_ns, hwp_window_us, hwp_eval_us, hwp_busy_full, hwp_epp255_ceiling_ratio)" },
    { "calib-out-of-range.ini", 40, "smt_corun_factor = 1.5 is out of range [0.3, 1]" },
    { "continuation-scalar.ini", 14, "'ipc_factor' takes one value (an indented line continues the key above)" },
    { "key-before-section.ini", 3, "key 'name' before any section" },
    { "machine-not-first.ini", 3, "[machine] must be the first section" },
    { "section-args.ini", 11, "section [core_type] should read [core_type NAME]" },
    { "threads-mismatch.ini", 8, "threads_per_core = 2 but no core type has that many threads" },
    { "no-machine.ini", 0, "no [machine] section" },
    { "rapl-pl2-below-pl1.ini", 40, "pl2_w (20 W) is below pl1_w (25 W): PL2 must be >= PL1" },
    { "rapl-zero-pl1.ini", 39, "pl1_w = 0 is out of range [0.001, 10000]" },
    { "rapl-zero-tau.ini", 41, "tau_s = 0 is out of range [0.001, 1000]" },
    { "rapl-missing-tau.ini", 38, "[rapl]: missing required key 'tau_s'" },
    { "l2-overlap.ini", 9, "l2_groups: CPU 2 is in two groups (an L2 is shared by one set of cores)" },
    { "l2-missing.ini", 9, "l2_groups: CPUs 2-3 are in no group (every CPU has an L2: list a core "
                           "with its own L2 as a group of its threads)" },
    { "l2-split-core.ini", 9, "l2_groups: '0' has CPU 0 but not its SMT sibling 1 (threads of a "
                              "core share its L2)" },
    { "l2-bad-list.ini", 9, "l2_groups: '2-9': CPU 9 is out of range: the machine has CPUs 0-3" },
    { "llc-crosses-l2.ini", 10, "llc_groups: CPUs 0 and 2 share an L2 (l2_groups) but not an LLC "
                                "(an L2 group lies within one LLC)" },
    { "llc-missing.ini", 9, "llc_groups: CPUs 2-3 are in no group (every CPU has an LLC: list each "
                            "L3 (each CCD's on AMD) as a group)" },
    { "llc-split-core.ini", 9, "llc_groups: '0' has CPU 0 but not its SMT sibling 1 (threads of a "
                               "core share its LLC)" },
    { "arm-mwait.ini", 35, "[cstate B WFI]: mwait_hint is x86 (MWAIT / ACPI _CST); an Arm idle "
                           "state is a device-tree state entered through PSCI" },
    { "arm-wfi-dt-key.ini", 60, "[cstate L WFI]: the first state of an Arm core type is WFI "
                                "(cpuidle-psci's state 0, not a device-tree state): drop "
                                "min_residency_us" },
    { "arm-missing-dt-key.ini", 49, "[cstate B cluster-sleep-0]: missing required key "
                                    "'min_residency_us' (a device-tree idle state after WFI)" },
    { "arm-cpu-model.ini", 7, "[machine]: cpu_model and cpu_family are x86 (CPUID); an Arm "
                              "machine names each core type's MIDR part in [core_type] cpu_part" },
    { "arm-no-part.ini", 23, "[core_type L]: missing required key 'cpu_part' (the MIDR part, "
                             "e.g. cortex-a57)" },
    { "arm-cpus-count.ini", 25, "cpus: '0,3-4': CPU 4 is out of range: the machine has CPUs 0-3" },
    { "arm-cpus-short.ini", 25, "cpus: '0' lists 1 CPUs but [core_type L] has 2" },
    { "arm-cpus-partial.ini", 23, "[core_type L] has no cpus list but another type has one: give "
                                  "every type's CPUs or none" },
    { "arm-bad-domain.ini", 55, "domain: 'package' is neither 'cpu' nor 'cluster'" },
    { "x86-dt-key.ini", 28, "[cstate P C6]: domain is a device-tree idle-state key, for vendor = "
                            "arm only" },
    { "x86-no-model.ini", 3, "[machine]: missing required key 'cpu_model'" },
    { "arm-opp-ends.ini", 20, "opp_mhz runs from 450 to 800 MHz but min_mhz and max_mhz are 450 "
                              "and 1100 (the table's ends are the policy's limits)" },
    { "x86-opp.ini", 17, "opp_mhz is an Arm DVFS table (vendor = arm); x86 frequencies are "
                         "P-state ratios between min_mhz and max_mhz" },
};

/* PC2 and PC3 parse as Alder Lake has them: resolved from core C6, as PC6
 * is, with their own exit latency and power. */
static void test_pkgstates_pc2_pc3(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "pkg-limit.ini");
    assert_int_equal(m->npkgstates, 3);
    assert_string_equal(m->pkgstates[0].name, "PC2");
    assert_string_equal(m->pkgstates[1].name, "PC3");
    assert_string_equal(m->pkgstates[2].name, "PC6");
    assert_string_equal(m->pkgstates[1].core_cstate, "C6");
    assert_int_equal(m->pkgstates[1].exit_latency_ns, 20000);
    assert_float_equal(m->pkgstates[0].pkg_power_mw, 600, 0);
    assert_float_equal(m->pkgstates[1].pkg_power_mw, 400, 0);
    hw_machine_free(m);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        char path[256], want[DIAG_MSG_MAX];
        snprintf(path, sizeof path, FIXTURES "%s", c->file);
        if (c->line)
            snprintf(want, sizeof want, "%s:%d: %s", path, c->line, c->message);
        else
            snprintf(want, sizeof want, "%s: %s", path, c->message);
        struct diag d = { 0 };
        struct hw_machine *m = hw_machine_load(path, &d);
        if (m) {
            hw_machine_free(m);
            fail_msg("%s: loaded, expected: %s", path, want);
        }
        assert_true(d.set);
        assert_string_equal(d.msg, want);
    }
}

static void test_missing_file(void **state)
{
    (void)state;
    struct diag d = { 0 };
    assert_null(hw_machine_load(FIXTURES "does-not-exist.ini", &d));
    assert_string_equal(d.msg, FIXTURES "does-not-exist.ini: cannot open: No such file or directory");
}

/* ---- Arm: device-tree states, CPU numbering by type ---------------------- */

/* juno-r0: the DT's idle states land in the [cstate] fields, and the CPUs
 * are numbered as Linux numbers Juno's (boot A53 first, then DT order). */
static void test_juno_r0(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok("machines/juno-r0.ini");
    assert_true(hw_machine_is_arm(m));
    assert_string_equal(m->cpu_model, "");
    assert_int_equal(m->ncpus, 6);
    assert_string_equal(m->types[0].cpu_part, "cortex-a57");
    assert_string_equal(m->types[1].cpu_part, "cortex-a53");
    static const int type_of_cpu[] = { 1, 0, 0, 1, 1, 1 }; /* A53, A57, A57, A53 x3 */
    for (int cpu = 0; cpu < 6; cpu++) {
        assert_int_equal(m->cpus[cpu].type, type_of_cpu[cpu]);
        assert_int_equal(m->cores[m->cpus[cpu].core].cpus[0], cpu);
    }
    assert_int_equal(m->types[0].nopp, 5);
    assert_int_equal(m->types[0].opp_mhz[2], 800);
    assert_int_equal(m->types[1].opp_mhz[4], 850);
    assert_int_equal(m->l2_group[2], 1);
    assert_int_equal(m->l2_group[5], 0);
    for (int t = 0; t < 2; t++) {
        const struct hw_core_type *ct = &m->types[t];
        assert_int_equal(ct->ncstates, 3);
        assert_false(ct->cstates[0].dt_state);
        assert_true(ct->cstates[1].dt_state && ct->cstates[2].dt_state);
        assert_int_equal(ct->cstates[1].psci_suspend_param, 0x0010000);
        assert_int_equal(ct->cstates[2].psci_suspend_param, 0x1010000);
        assert_int_equal(ct->cstates[1].entry_latency_ns, 300000);
        assert_int_equal(ct->cstates[1].exit_latency_ns, 1200000);
        assert_int_equal(ct->cstates[1].min_residency_ns, 2000000);
        assert_int_equal(ct->cstates[2].min_residency_ns, 2500000);
        assert_true(ct->cstates[1].local_timer_stop);
        assert_false(ct->cstates[1].cluster_domain);
        assert_true(ct->cstates[2].cluster_domain);
    }
    hw_machine_free(m);
}

/* ---- the minimal fixture: every field lands where it should -------------- */

static void test_minimal_values(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "minimal.ini");
    assert_string_equal(m->name, "mini");
    assert_string_equal(m->path, FIXTURES "minimal.ini");
    assert_string_equal(m->description, "");
    assert_int_equal(m->cpu_numbering, HW_CPU_NUMBERING_ADJACENT); /* the default */
    assert_int_equal(m->ncores, 2);
    assert_int_equal(m->ncpus, 4);
    const struct hw_core_type *t = &m->types[0];
    assert_int_equal(t->threads_per_core, 2); /* inherited from [machine] */
    assert_int_equal(t->nturbo, 2);
    assert_int_equal(t->turbo_mhz[0], 3000);
    assert_int_equal(t->turbo_mhz[1], 2800);
    assert_int_equal(t->ncstates, 2);
    assert_int_equal(t->cstates[1].mwait_hint, 0x20);
    assert_int_equal(t->cstates[1].exit_latency_ns, 100 * SIM_NS_PER_US);
    assert_int_equal(t->cstates[1].refill_ns, 10 * SIM_NS_PER_US);
    assert_int_equal(t->cstates[0].refill_ns, 0);
    assert_true(t->cstates[1].flushes_caches);
    assert_false(t->cstates[0].flushes_caches);
    assert_int_equal(m->npkgstates, 1);
    assert_string_equal(m->pkgstates[0].core_cstate, "C6");
    assert_int_equal(m->pkgstates[0].exit_latency_ns, 50 * SIM_NS_PER_US);
    assert_int_equal(m->ncalib, 0);
    assert_true(m->rapl.pl1_mw == 0);   /* no [rapl]: no power limits */
    /* no [calibration] section: the registry default */
    assert_true(hw_machine_calib(m, "smt_corun_factor") == 0.62);
    assert_int_equal(hw_cstate_index(t, "C6"), 1);
    assert_int_equal(hw_cstate_index(t, "C7"), -1);
    hw_machine_free(m);
}

/* l2_groups: absent, each core's threads are one group (first CPU of the
 * core); given, each CPU maps to the first CPU of its group. */
/* SMT4 and SMT8 cores (POWER-like widths): every thread of a core listed,
 * adjacent numbering in blocks, split numbering one thread per round. */
static void test_smt_widths(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "smt4.ini");
    assert_int_equal(m->ncpus, 8);
    assert_int_equal(m->cores[0].nthreads, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m->cores[0].cpus[i], i);
        assert_int_equal(m->cores[1].cpus[i], 4 + i);
    }
    hw_machine_free(m);
    m = load_ok(FIXTURES "smt8.ini");
    assert_int_equal(m->ncpus, 16);
    assert_int_equal(m->cores[1].nthreads, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(m->cores[1].cpus[i], 1 + 2 * i);
    hw_machine_free(m);
}

static void test_l2_groups(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "minimal.ini");
    static const int own[4] = { 0, 0, 2, 2 };
    for (int cpu = 0; cpu < 4; cpu++)
        assert_int_equal(m->l2_group[cpu], own[cpu]);
    hw_machine_free(m);
    m = load_ok(FIXTURES "l2-shared.ini");
    for (int cpu = 0; cpu < 4; cpu++)
        assert_int_equal(m->l2_group[cpu], 0);
    hw_machine_free(m);
    m = load_ok("machines/rpl-h.ini");   /* rpl0's modules: P-cores alone, E-cores in 4s */
    static const int rpl[16] = { 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 8, 8, 12, 12, 12, 12 };
    for (int cpu = 0; cpu < 16; cpu++)
        assert_int_equal(m->l2_group[cpu], rpl[cpu]);
    hw_machine_free(m);
}

/* llc_groups: absent, one LLC per package (its first CPU); given (with a
 * continuation line), each CPU maps to the first CPU of its group. Genoa:
 * an L3 per 4-core CCD, siblings 64 CPUs up (split numbering). */
static void test_llc_groups(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "minimal.ini");
    for (int cpu = 0; cpu < 4; cpu++)
        assert_int_equal(m->llc_group[cpu], 0);
    hw_machine_free(m);
    m = load_ok(FIXTURES "llc-split.ini");
    static const int own[4] = { 0, 0, 2, 2 };
    for (int cpu = 0; cpu < 4; cpu++)
        assert_int_equal(m->llc_group[cpu], own[cpu]);
    assert_string_equal(m->llc_groups_text, "0-1 2-3");
    hw_machine_free(m);
    m = load_ok("machines/skx-2s.ini");
    assert_int_equal(m->llc_group[27], 0);
    assert_int_equal(m->llc_group[56], 0);
    assert_int_equal(m->llc_group[111], 28);
    hw_machine_free(m);
    m = load_ok("machines/epyc-genoa-2s.ini");
    assert_int_equal(m->llc_group[3], 0);
    assert_int_equal(m->llc_group[67], 0);
    assert_int_equal(m->llc_group[68], 4);
    assert_int_equal(m->llc_group[127], 60);
    assert_int_equal(m->llc_group[32], 32);
    hw_machine_free(m);
}

static void test_power_interpolation(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "minimal.ini");
    const struct hw_core_type *t = &m->types[0];
    assert_float_equal(hw_core_active_power_mw(t, 2000), 2000.0, 1e-6);
    assert_float_equal(hw_core_active_power_mw(t, 3000), 4000.0, 1e-6);
    assert_float_equal(hw_core_active_power_mw(t, 9999), 4000.0, 1e-6); /* clamped to max_mhz */
    double below = hw_core_active_power_mw(t, 800), mid = hw_core_active_power_mw(t, 2500);
    assert_true(below > 0 && below < 2000);
    assert_true(mid > 2000 && mid < 4000);
    assert_float_equal(hw_core_active_power_mw(t, 100), below, 1e-9);   /* clamped to min_mhz */
    hw_machine_free(m);
}

/* A core's power follows its threads' modes (cpu.c keeps counts of them, so
 * a count that drifts shows here as a wrong power) and its frequency (from a
 * table of hw_core_active_power_mw's values: exactly equal). skx-2s core 0
 * holds cpus 0 and 56. */
static void test_core_power_by_modes(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok("machines/skx-2s.ini");
    const struct hw_core_type *t = &m->types[0];
    struct hw_state hw;
    hw_state_init(&hw, m);
    const struct hw_core_state *cs = &hw.core[0];
    double active = hw_core_active_power_mw(t, t->base_mhz);
    double poll = active * hw_machine_calib(m, "poll_power_ratio");
    assert_true(cs->power_mw == active);                   /* both start running */
    hw_thread_set_mode(&hw, 0, HW_THREAD_POLL, 0, 10);
    assert_true(cs->power_mw == active);                   /* one still runs */
    hw_thread_set_mode(&hw, 56, HW_THREAD_IDLE, 1, 20);
    assert_true(cs->power_mw == poll);
    hw_thread_set_mode(&hw, 0, HW_THREAD_IDLE, 2, 30);
    assert_int_equal(cs->cstate, 1);                       /* the shallower request */
    assert_true(cs->power_mw == t->cstates[1].core_power_mw);
    hw_thread_set_mode(&hw, 56, HW_THREAD_WAKE, 1, 40);
    assert_int_equal(cs->cstate, -1);
    /* An exit from C1 (the shallower request): C1's power, ramping to C1's. */
    assert_true(cs->power_mw == t->cstates[1].core_power_mw +
                                    hw.exit_ramp_ratio * (t->cstates[0].core_power_mw -
                                                          t->cstates[1].core_power_mw));
    hw_thread_set_mode(&hw, 56, HW_THREAD_POLL, 0, 50);
    assert_true(cs->power_mw == poll);
    hw_thread_set_mode(&hw, 0, HW_THREAD_RUN, 0, 60);
    hw_thread_set_mode(&hw, 56, HW_THREAD_RUN, 0, 60);
    assert_int_equal(cs->nawake, 2);
    assert_int_equal(cs->nrun, 2);
    assert_int_equal(cs->npoll, 0);
    /* Every MHz of the range and beyond it, clamped as the function does. */
    const uint32_t mhz[] = { 100, t->min_mhz, 1234, t->base_mhz + 1, t->max_mhz, 9999 };
    for (size_t i = 0; i < sizeof mhz / sizeof mhz[0]; i++) {
        hw_core_set_mhz(&hw, 0, mhz[i], 100 + (sim_time_t)i);
        assert_true(cs->power_mw == hw_core_active_power_mw(t, mhz[i]));
    }
    hw_state_destroy(&hw);
    hw_machine_free(m);
}

/* Split numbering on a hybrid: the thread-0 round covers every core of both
 * packages (E-cores included), the thread-1 round only the SMT cores. */
static void test_split_hybrid(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok(FIXTURES "split-hybrid.ini");
    assert_int_equal(m->ncores, 6);
    assert_int_equal(m->ncpus, 10);
    /* cores: pkg0 P0 P1 E2, pkg1 P3 P4 E5 */
    static const int core_of[10] = { 0, 1, 2, 3, 4, 5, 0, 1, 3, 4 };
    for (int cpu = 0; cpu < 10; cpu++) {
        assert_int_equal(m->cpus[cpu].core, core_of[cpu]);
        assert_int_equal(m->cpus[cpu].thread, cpu < 6 ? 0 : 1);
    }
    assert_int_equal(m->cpus[5].package, 1);
    assert_string_equal(m->types[m->cpus[5].type].name, "E");
    const struct hw_core_type *p = &m->types[0];
    assert_int_equal(p->nturbo, 2);
    assert_int_equal(p->turbo_mhz[1], 2900);
    assert_int_equal(p->cstates[0].exit_latency_ns, 500);
    assert_int_equal(m->types[1].nturbo, 0);
    assert_float_equal(hw_core_active_power_mw(&m->types[1], 1000), 500.0, 1e-9); /* flat */
    assert_float_equal(hw_machine_calib(m, "smt_corun_factor"), 0.7, 1e-12);
    hw_machine_free(m);
}

/* ---- shipped machines ------------------------------------------------------ */

/* Every CPU is listed by its core, on the core's package and type. */
static void assert_topology_consistent(const struct hw_machine *m)
{
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        const struct hw_cpu *c = &m->cpus[cpu];
        assert_in_range(c->core, 0, m->ncores - 1);
        const struct hw_core *core = &m->cores[c->core];
        assert_int_equal(core->cpus[c->thread], cpu);
        assert_int_equal(core->package, c->package);
        assert_int_equal(core->type, c->type);
    }
}

static void assert_cpu(const struct hw_machine *m, int cpu, int package, int core, int thread,
                       const char *type)
{
    assert_int_equal(m->cpus[cpu].package, package);
    assert_int_equal(m->cpus[cpu].core, core);
    assert_int_equal(m->cpus[cpu].thread, thread);
    assert_string_equal(m->types[m->cpus[cpu].type].name, type);
}

static void test_skx_2s(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok("machines/skx-2s.ini");
    assert_string_equal(m->cpu_model, "SKYLAKE_X");
    assert_int_equal(m->packages, 2);
    assert_int_equal(m->ncores, 56);
    assert_int_equal(m->ncpus, 112);
    assert_topology_consistent(m);
    /* thread 0 of every core of both packages first, then the siblings */
    assert_cpu(m, 0, 0, 0, 0, "SKX");
    assert_cpu(m, 27, 0, 27, 0, "SKX");
    assert_cpu(m, 28, 1, 28, 0, "SKX");
    assert_cpu(m, 56, 0, 0, 1, "SKX");
    assert_cpu(m, 111, 1, 55, 1, "SKX");
    assert_int_equal(m->cores[0].cpus[1], 56);
    const struct hw_core_type *t = &m->types[0];
    assert_int_equal(t->nturbo, 28);
    assert_int_equal(t->turbo_mhz[0], 3800);
    int c6 = hw_cstate_index(t, "C6");
    assert_int_equal(c6, 2);
    assert_int_equal(t->cstates[c6].exit_latency_ns, 92 * SIM_NS_PER_US);
    assert_int_equal(t->cstates[0].exit_latency_ns, 2 * SIM_NS_PER_US);
    /* package C6 adds the rest of intel_idle's 133 us */
    assert_int_equal(t->cstates[c6].exit_latency_ns + m->pkgstates[0].exit_latency_ns,
                     133 * SIM_NS_PER_US);
    assert_true(hw_machine_calib(m, "smt_corun_factor") == 0.62);
    /* [rapl]: the 8180's TDP, 1.2 x TDP, 1 s */
    assert_float_equal(m->rapl.pl1_mw, 205000, 1e-6);
    assert_float_equal(m->rapl.pl2_mw, 246000, 1e-6);
    assert_int_equal(m->rapl.tau_ns, 1 * SIM_NS_PER_S);
    hw_machine_free(m);
}

static void test_adl_desktop(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok("machines/adl-desktop.ini");
    assert_string_equal(m->cpu_model, "ALDERLAKE");
    assert_int_equal(m->ncores, 16);
    assert_int_equal(m->ncpus, 24);
    assert_topology_consistent(m);
    /* P-core threads first with siblings adjacent, then the E-cores */
    assert_cpu(m, 0, 0, 0, 0, "P");
    assert_cpu(m, 1, 0, 0, 1, "P");
    assert_cpu(m, 15, 0, 7, 1, "P");
    assert_cpu(m, 16, 0, 8, 0, "E");
    assert_cpu(m, 23, 0, 15, 0, "E");
    assert_int_equal(m->types[1].threads_per_core, 1);
    assert_true(m->types[1].ipc_factor < 1.0);
    const struct hw_core_type *p = &m->types[0];
    /* intel_idle's 680 us for C10 is the core's exit plus PC10's. */
    assert_int_equal(p->cstates[hw_cstate_index(p, "C10")].exit_latency_ns, 159 * SIM_NS_PER_US);
    assert_string_equal(m->pkgstates[4].name, "PC10");
    assert_int_equal(m->pkgstates[4].exit_latency_ns, 521 * SIM_NS_PER_US);
    /* The datasheet's PC2 and PC3, resolved from core C6 like PC6. */
    assert_string_equal(m->pkgstates[1].name, "PC3");
    assert_string_equal(m->pkgstates[1].core_cstate, "C6");
    assert_int_equal(p->cstates[hw_cstate_index(p, "C1E")].mwait_hint, 0x01);
    assert_float_equal(m->rapl.pl1_mw, 125000, 1e-6);   /* i9-12900K base power */
    assert_float_equal(m->rapl.pl2_mw, 241000, 1e-6);   /* ... maximum turbo power */
    assert_int_equal(m->rapl.tau_ns, 56 * SIM_NS_PER_S);
    hw_machine_free(m);
}

static void test_rpl_h(void **state)
{
    (void)state;
    struct hw_machine *m = load_ok("machines/rpl-h.ini");
    assert_string_equal(m->cpu_model, "RAPTORLAKE_P");
    assert_int_equal(m->ncores, 12);
    assert_int_equal(m->ncpus, 16);
    assert_topology_consistent(m);
    /* as data/hosts/rpl0 pepc_topology: cpu0-7 on P-cores 0-3, cpu8-15 E-cores */
    assert_cpu(m, 6, 0, 3, 0, "P");
    assert_cpu(m, 7, 0, 3, 1, "P");
    assert_cpu(m, 8, 0, 4, 0, "E");
    assert_cpu(m, 15, 0, 11, 0, "E");
    const struct hw_core_type *e = &m->types[1];
    assert_int_equal(e->cstates[hw_cstate_index(e, "C6")].exit_latency_ns, 170 * SIM_NS_PER_US);
    assert_int_equal(m->npkgstates, 5);
    assert_string_equal(m->pkgstates[0].name, "PC2");
    assert_float_equal(m->rapl.pl1_mw, 45000, 1e-6);    /* i5-13500H base power */
    assert_float_equal(m->rapl.pl2_mw, 95000, 1e-6);
    assert_int_equal(m->rapl.tau_ns, 28 * SIM_NS_PER_S);
    hw_machine_free(m);
}

/* ---- helpers ------------------------------------------------------------------ */

static void test_find(void **state)
{
    (void)state;
    char out[256];
    assert_int_equal(hw_machine_find("skx-2s", "tests/data/nowhere:machines", out, sizeof out), 0);
    assert_string_equal(out, "machines/skx-2s.ini");
    assert_int_equal(hw_machine_find("minimal", "machines:" FIXTURES, out, sizeof out), 0);
    assert_string_equal(out, FIXTURES "minimal.ini");
    assert_int_equal(hw_machine_find("no-such-machine", "machines", out, sizeof out), -1);
    assert_int_equal(hw_machine_find("../machines/skx-2s", "machines", out, sizeof out), -1);
    assert_int_equal(hw_machine_find("skx-2s", "machines", out, 8), -1); /* out too small */
}

static void test_calib_registry(void **state)
{
    (void)state;
    size_t n;
    const struct hw_calib_desc *r = hw_calib_registry(&n);
    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(r[i].unit);
        assert_non_null(r[i].description);
        assert_true(r[i].min <= r[i].default_value && r[i].default_value <= r[i].max);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_smt_widths),
        cmocka_unit_test(test_pkgstates_pc2_pc3),
        cmocka_unit_test(test_l2_groups),
        cmocka_unit_test(test_llc_groups),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_minimal_values),
        cmocka_unit_test(test_juno_r0),
        cmocka_unit_test(test_power_interpolation),
        cmocka_unit_test(test_core_power_by_modes),
        cmocka_unit_test(test_split_hybrid),
        cmocka_unit_test(test_skx_2s),
        cmocka_unit_test(test_adl_desktop),
        cmocka_unit_test(test_rpl_h),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_calib_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
