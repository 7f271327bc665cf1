/* explain: `pmlab explain SCENARIO`: what each variant's kernel, patches,
 * cmdline and sysfs resolve to on the scenario's machine, in the vocabulary of
 * the real system, with the lines that differ from the first variant marked.
 * Every subsystem that has something to say adds a section function below. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/rapl.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/kvm/kvm.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/isolation.h"
#include "kernel/sched/topology.h"
#include "kernel/sched/uclamp.h"
#include "kernel/x86/itmt.h"
#include "report/explain.h"
#include "scenario/scenario.h"
#include "util/cpulist.h"

typedef void (*explain_section_fn)(const struct hw_machine *m, const struct kparams *kp,
                                   struct explain *x);

/* Each section asks the kernel what the variant resolves to, as data, and has
 * the report layer print it. */
static void explain_idle_section(const struct hw_machine *m, const struct kparams *kp,
                                 struct explain *x)
{
    struct idle_explain e;
    idle_explain(m, kp, &e);
    explain_add_idle(x, &e);
    idle_explain_free(&e);
}

static void explain_cpufreq_section(const struct hw_machine *m, const struct kparams *kp,
                                    struct explain *x)
{
    struct cpufreq_explain e;
    cpufreq_explain(m, kp, &e);
    explain_add_cpufreq(x, &e);
    cpufreq_explain_free(&e);
}

static void explain_kvm_section(const struct hw_machine *m, const struct kparams *kp,
                                struct explain *x)
{
    struct kvm_explain e;
    kvm_explain(m, kp, &e);
    explain_add_kvm(x, &e);
}

static void explain_itmt_section(const struct hw_machine *m, const struct kparams *kp,
                                 struct explain *x)
{
    struct itmt_explain e;
    itmt_explain(m, kp, &e);
    explain_add_itmt(x, &e);
    itmt_explain_free(&e);
}

static void explain_topology_section(const struct hw_machine *m, const struct kparams *kp,
                                     struct explain *x)
{
    struct itmt it;
    itmt_resolve(m, kp, &it);
    struct sched_topology t;
    sched_topology_build(m, kp, &it, &t);
    explain_add_topology(x, &t, &kp->kernel);
    sched_topology_destroy(&t);
    itmt_destroy(&it);
}

static void explain_isolation_section(const struct hw_machine *m, const struct kparams *kp,
                                      struct explain *x)
{
    struct housekeeping hk;
    housekeeping_resolve(m, kp, &hk);
    explain_add_isolation(x, m, &hk);
    housekeeping_destroy(&hk);
}

/* uclamp's system limits and rules, where the variant sets them (a task's
 * own clamps are the workload's to show). */
static void explain_uclamp_section(const struct hw_machine *m, const struct kparams *kp,
                                   struct explain *x)
{
    (void)m;
    if (!uclamp_sysctl_written(kp))
        return;
    struct uclamp_sys u;
    uclamp_resolve(kp, &u);
    explain_add_uclamp(x, &u);
}

/* The sections, in print order. */
static const explain_section_fn explain_sections[] = {
    explain_idle_section,
    explain_cpufreq_section,
    explain_kvm_section,
    explain_itmt_section,
    explain_isolation_section,
    explain_uclamp_section,
    explain_topology_section,
};

static void explain_usage(void)
{
    printf("usage: pmlab explain SCENARIO.ini [--variant NAME]... [--set SECTION.KEY=VALUE]...\n"
           "\n"
           "Show the scenario's machine (core types, package power limits) and what each\n"
           "variant resolves to on it, as the real system would show it: the Spectre v2\n"
           "mitigation, the tick, the cpuidle driver and governor, every idle state\n"
           "(latency, residency, entry method: IRQs on or off, IBRS off; the CPUs it is\n"
           "disabled on), the PM QoS limits, whether ACPI CPPC was probed and the ITMT\n"
           "state and priorities, the sched domain tree of one CPU of each kind as\n"
           "/sys/kernel/debug/sched/domains shows it and the CPU capacities; and the CPUs\n"
           "a [report] cpus key restricts the cpus.* metrics to. Lines of a variant that\n"
           "differ from the first variant are marked with '*'. Warnings the kernel would\n"
           "print for the variant (an unknown parameter, ignored) come first. --set applies\n"
           "a key as 'pmlab run --set' does (repeatable; the overrides line lists them), so\n"
           "what a run with overrides resolves to can be shown before it runs.\n");
}

void cli_explain_collect(const struct scenario *s, int v, struct explain *x)
{
    const struct scenario_variant *var = &s->variants[v];
    for (int i = 0; i < var->kp.nwarnings; i++)
        explain_add(x, "warning: %s", var->kp.warnings[i]);
    for (size_t i = 0; i < sizeof explain_sections / sizeof explain_sections[0]; i++)
        explain_sections[i](s->machine, &var->kp, x);
    /* A variant's own workload keys (workload.file = ...): its tasks, as the
     * scenario's are shown once above. */
    if (var->wl_cfg && s->wl->explain)
        s->wl->explain(var->wl_cfg, x);
}

void cli_explain_marked(const struct scenario *s, int v, int base_v, struct explain *out)
{
    struct explain x = { 0 }, base = { 0 };
    cli_explain_collect(s, v, &x);
    if (v != base_v)
        cli_explain_collect(s, base_v, &base);
    for (int i = 0; i < x.n; i++)
        explain_add(out, "%c %s", v != base_v && !explain_has(&base, x.line[i]) ? '*' : ' ',
                    x.line[i]);
    explain_free(&x);
    explain_free(&base);
}

static void explain_print_variant(const struct scenario *s, int v, const struct explain *base,
                                  FILE *out)
{
    const struct scenario_variant *var = &s->variants[v];
    struct explain x = { 0 };
    cli_explain_collect(s, v, &x);
    fprintf(out, "\nvariant %s: kernel %s%s%s%s%s%s%s\n", var->name, var->kernel,
            var->patches ? ", patches: " : "", var->patches ? var->patches : "",
            var->cmdline ? ", cmdline: " : "", var->cmdline ? var->cmdline : "",
            var->sysfs ? ", sysfs: " : "", var->sysfs ? var->sysfs : "");
    for (int i = 0; i < x.n; i++)
        fprintf(out, "%c %s\n", base && !explain_has(base, x.line[i]) ? '*' : ' ', x.line[i]);
    explain_free(&x);
}

static void explain_machine(const struct hw_machine *m, FILE *out)
{
    fprintf(out, "machine %s: %s\n", m->name, m->description);
    for (int t = 0; t < m->ntypes; t++)
        fprintf(out, "  core type %s: %d x %d cores, %d thread%s each, %u-%u MHz (base %u)\n",
                m->types[t].name, m->packages, m->types[t].cores_per_package,
                m->types[t].threads_per_core, m->types[t].threads_per_core > 1 ? "s" : "",
                m->types[t].min_mhz, m->types[t].max_mhz, m->types[t].base_mhz);
    const struct hw_power_limits *r = &m->rapl;
    if (r->pl1_mw > 0)
        fprintf(out, "  package power limits: PL1 %g W averaged over tau %g s, PL2 %g W over "
                "%lld ms, per package\n", r->pl1_mw / 1000, (double)r->tau_ns / SIM_NS_PER_S,
                r->pl2_mw / 1000, (long long)(HW_RAPL_PL2_WINDOW_NS / SIM_NS_PER_MS));
    else
        fprintf(out, "  package power limits: none (no [rapl] in the machine file)\n");
}

/* The package states and the [device] sections' package-depth limits. */
static void explain_package(const struct scenario *s, FILE *out)
{
    struct explain x = { 0 };
    explain_add_pkgstates(&x, s->machine);
    explain_add_devices(&x, s->machine, s->devices, s->ndevices);
    for (int i = 0; i < x.n; i++)
        fprintf(out, "  %s\n", x.line[i]);
    explain_free(&x);
}

/* [report] cpus: which CPUs the cpus.* metrics of a run will cover. */
static void explain_report(const struct scenario *s, FILE *out)
{
    if (!s->report_cpus)
        return;
    char *list = cpulist_format(s->report_cpus, s->machine->ncpus);
    fprintf(out, "report cpus %s: busy, polling, MHz, tick, residency and above/below also over\n"
            "  these %d CPUs (cpus.* metrics; core, package and power stay host-wide)\n", list,
            cpulist_weight(s->report_cpus, s->machine->ncpus));
    free(list);
}

/* The workload's tasks: their scheduling class and priority. */
static void explain_workload(const struct scenario *s, FILE *out)
{
    struct explain x = { 0 };
    if (s->wl->explain)
        s->wl->explain(s->wl_cfg, &x);
    else
        explain_add(&x, "workload: %s: every task SCHED_OTHER (fair class, nice 0)", s->wl->name);
    for (int i = 0; i < x.n; i++)
        fprintf(out, "%s\n", x.line[i]);
    explain_free(&x);
}

/* [vm NAME]: each guest's timers (kernel/kvm/kvm.h). */
static void explain_vms(const struct scenario *s, FILE *out)
{
    struct explain x = { 0 };
    for (int i = 0; i < s->nvms; i++)
        explain_add_vm(&x, &s->vms[i]);
    for (int i = 0; i < x.n; i++)
        fprintf(out, "%s\n", x.line[i]);
    explain_free(&x);
}

#define EXPLAIN_MAX_OPTS 256

struct explain_args {
    const char *scenario;
    const char *only[EXPLAIN_MAX_OPTS]; /* --variant names */
    int nonly;
    const char *sets[EXPLAIN_MAX_OPTS]; /* --set texts */
    int nsets;
};

/* 0, 1 for --help, or an exit status after a message. */
static int explain_parse_args(int argc, char **argv, struct explain_args *a)
{
    static const struct option longopts[] = {
        { "variant", required_argument, NULL, 'V' }, { "set", required_argument, NULL, 'S' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    opterr = 0; /* cli_bad_option says it */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h')
            return 1;
        if (c != 'V' && c != 'S')
            return cli_bad_option("explain", argv, longopts, "h");
        int *n = c == 'V' ? &a->nonly : &a->nsets;
        if (*n == EXPLAIN_MAX_OPTS) {
            fprintf(stderr, "pmlab explain: at most %d %s options\n", EXPLAIN_MAX_OPTS,
                    c == 'V' ? "--variant" : "--set");
            return EXIT_BAD_INPUT;
        }
        (c == 'V' ? a->only : a->sets)[(*n)++] = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "pmlab explain: expected exactly one scenario file\n");
        return EXIT_BAD_INPUT;
    }
    a->scenario = argv[optind];
    return 0;
}

static int explain_main(int argc, char **argv)
{
    struct explain_args a = { 0 };
    int prc = explain_parse_args(argc, argv, &a);
    if (prc != 0)
        return prc == 1 ? (explain_usage(), 0) : prc;
    const char *const *only = a.only;
    int nonly = a.nonly;
    struct scenario_load_opts lo = { .sets = a.sets, .nsets = a.nsets };
    struct diag d = { 0 };
    struct scenario *s = scenario_load(a.scenario, &lo, &d);
    if (!s) {
        fprintf(stderr, "%s\n", d.msg);
        return EXIT_BAD_INPUT;
    }
    for (int i = 0; i < nonly; i++) {
        bool found = false;
        for (int v = 0; v < s->nvariants; v++)
            found |= strcmp(s->variants[v].name, only[i]) == 0;
        if (!found) {
            fprintf(stderr, "pmlab explain: --variant: %s has no variant '%s'\n", s->path, only[i]);
            scenario_free(s);
            return EXIT_BAD_INPUT;
        }
    }
    printf("scenario %s (%s)\n", s->name, s->path);
    if (s->nsets > 0) {
        printf("overrides");
        for (int i = 0; i < s->nsets; i++)
            printf(" --set %s", s->sets[i]);
        printf("\n");
    }
    explain_machine(s->machine, stdout);
    explain_package(s, stdout);
    explain_report(s, stdout);
    explain_vms(s, stdout);
    explain_workload(s, stdout);
    struct explain base = { 0 };
    cli_explain_collect(s, 0, &base);
    for (int v = 0; v < s->nvariants; v++) {
        bool show = nonly == 0;
        for (int i = 0; i < nonly; i++)
            show |= strcmp(s->variants[v].name, only[i]) == 0;
        if (show)
            explain_print_variant(s, v, v == 0 ? NULL : &base, stdout);
    }
    explain_free(&base);
    scenario_free(s);
    return 0;
}

const struct cli_command cli_explain_command = {
    .name = "explain",
    .summary = "show what each variant's settings resolve to on the machine",
    .main = explain_main,
    .usage = explain_usage,
};
