/* import: `pmlab import`: a machine file and a scenario skeleton from a
 * host (import.h says what is read). What a host does not show (power, the
 * model's calibration, the core/package split of a C-state exit) is taken
 * from the nearest shipped machine and marked "estimated, from MACHINE" or
 * "estimate" (import_cstates.c: the host's own idle table); measured
 * figures (turbostat averages, interrupt rates) go into comments, and into
 * the scenario's idle workload and [measured] section (import_measured.c
 * reads them) so a run can be held against them. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/import.h"
#include "cli/output.h"
#include "hw/machine.h"
#include "kernel/cpuidle/cpuidle.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/cmdline.h"
#include "kernel/params.h"
#include "scenario/machine_path.h"
#include "scenario/scenario.h"
#include "util/cpulist.h"
#include "util/xalloc.h"

/* Write text as "; " comment lines of at most 100 characters, broken at
 * spaces (the machine file's lines may not exceed 198); a longer word is cut. */
static void import_comment(FILE *f, const char *text)
{
    char *copy = xstrdup(text);
    size_t col = 0;
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(w);
        if (n > 150)
            n = 150;
        if (col > 0 && col + 1 + n > 100) {
            fprintf(f, "\n");
            col = 0;
        }
        col += (size_t)fprintf(f, "%s%.*s", col ? " " : "; ", (int)n, w);
    }
    if (col)
        fprintf(f, "\n");
    free(copy);
}

static void import_usage(void)
{
    printf("usage: pmlab import [--root DIR | SNAPSHOT_DIR] [-o MACHINE.ini] [--scenario OUT.ini]\n"
           "                    [--name NAME]\n"
           "\n"
           "Write a machine file (to -o, default standard output) describing a host, and\n"
           "with --scenario a scenario skeleton whose variant 'host' reproduces its kernel,\n"
           "command line, cpuidle governor and sysfs settings. The host is the live system\n"
           "(/sys and /proc) by default, a copied tree with --root DIR, or a stats-collect /\n"
           "pepc snapshot directory (sys-*.raw.txt dumps, pepc_topology, proc_cpuinfo,\n"
           "uname-a, turbostat, interrupts). Topology (L3 groups from cache/index3, 1 to\n"
           "8 threads per core), vendor/family/model, frequencies and idle states come\n"
           "from the host; on intel_idle's own table so do the hardware C-states (names,\n"
           "MWAIT hints, exit latencies split core/package by the nearest machine's rule,\n"
           "no state the host lacks). Power figures and the rest of the C-state physics\n"
           "come from the nearest shipped machine (same vendor, then family and model,\n"
           "else size) and are marked 'estimated, from MACHINE'; turbostat averages and\n"
           "timer interrupt rates are written as '; measured' comments. The scenario runs\n"
           "the idle workload at the snapshot's per-CPU timer (LOC) and device interrupt\n"
           "rates, and its [measured] section holds turbostat's means, the cpuidle\n"
           "above/below shares, idle entries per CPU per second, each state's share of\n"
           "them and the IPI rates under pmlab's metric names (pmlab run prints each beside\n"
           "its prediction). The machine's [calibration] bg_msgs_per_irq (the wake-up\n"
           "chains' mean length) is the host's idle entries over its interrupts, minus one.\n"
           "With console=ttyUSB* on the host's command line, the busiest\n"
           "xhci_hcd interrupt line becomes a [device xhci_hcd] section (its interrupts;\n"
           "no package-depth limit is inferred: see the file). Missing files are listed as\n"
           "warnings (exit\n"
           "0) while a machine can still be built; without a CPU list or /proc/cpuinfo\n"
           "the exit status is 2. The scenario finds the machine by name: keep the machine\n"
           "file in a machines/ directory next to the scenario's, or set PMLAB_MACHINES.\n"
           "Each file is written to a temporary beside it and renamed into place when\n"
           "complete: an import that fails leaves an earlier file as it was.\n");
}

/* Intel family 6 model numbers and their kernel names (arch/x86/include/
 * asm/intel-family.h): the models pmlab has idle or frequency data for. */
static const struct { int model; const char *name; } intel_models[] = {
    { 0x4E, "SKYLAKE_L" }, { 0x5E, "SKYLAKE" }, { 0x55, "SKYLAKE_X" },
    { 0x8E, "KABYLAKE_L" }, { 0x9E, "KABYLAKE" }, { 0x6A, "ICELAKE_X" },
    { 0x6C, "ICELAKE_D" }, { 0x8F, "SAPPHIRERAPIDS_X" }, { 0xCF, "EMERALDRAPIDS_X" },
    { 0x97, "ALDERLAKE" }, { 0x9A, "ALDERLAKE_L" }, { 0xBE, "ATOM_GRACEMONT" },
    { 0xB7, "RAPTORLAKE" }, { 0xBA, "RAPTORLAKE_P" }, { 0xBF, "RAPTORLAKE_S" },
    { 0x3C, "HASWELL" }, { 0x45, "HASWELL_L" }, { 0x46, "HASWELL_G" }, { 0x3F, "HASWELL_X" },
    { 0x3D, "BROADWELL" }, { 0x47, "BROADWELL_G" }, { 0x4F, "BROADWELL_X" },
    { 0x56, "BROADWELL_D" }, { 0x5C, "ATOM_GOLDMONT" }, { 0x7A, "ATOM_GOLDMONT_PLUS" },
    { 0x5F, "ATOM_GOLDMONT_D" }, { 0x86, "ATOM_TREMONT_D" }, { 0x57, "XEON_PHI_KNL" },
    { 0x85, "XEON_PHI_KNM" }, { 0xAF, "ATOM_CRESTMONT_X" }, { 0xAD, "GRANITERAPIDS_X" },
    { 0x7E, "ICELAKE_L" }, { 0x8C, "TIGERLAKE_L" }, { 0x8D, "TIGERLAKE" },
    { 0xAA, "METEORLAKE_L" },
};

static void import_cpu_model(const struct imp_host *h, char *out, size_t outsz)
{
    if (strcmp(h->vendor, "intel") == 0 && h->family == 6)
        for (size_t i = 0; i < sizeof intel_models / sizeof intel_models[0]; i++)
            if (intel_models[i].model == h->model) {
                snprintf(out, outsz, "%s", intel_models[i].name);
                return;
            }
    snprintf(out, outsz, "FAM%X_MODEL%X", (unsigned)h->family, (unsigned)h->model);
}

/* Topology as the machine file gives it. */
struct import_topo {
    int packages;
    int ntypes;
    char types[2];              /* 'P','E' or 'U' */
    int cores[2];               /* per package */
    int threads[2];
    int first_cpu[2];           /* a CPU of each type */
    bool adjacent;
    bool modules;               /* some module holds more than one core */
};

/* AMD (and Hygon, a Zen licensee): the shipped machine of the host's family
 * and model range, else one of its size: a server part (more than one
 * package, or more than 16 cores in one) stands nearest the Genoa server,
 * a client part the Phoenix laptop. */
static const char *import_nearest_amd(const struct imp_host *h, const struct import_topo *t)
{
    static const struct {
        int family, model_lo, model_hi;
        const char *machine;
    } amd[] = {
        { 0x19, 0x10, 0x1f, "epyc-genoa-2s" }, /* Genoa, EPYC 9004 (9354: model 0x11) */
        { 0x19, 0x70, 0x7f, "ryzen-7840u" },   /* Phoenix / Hawk Point (7840U, 8840U) */
    };
    for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++)
        if (h->family == amd[i].family && h->model >= amd[i].model_lo &&
            h->model <= amd[i].model_hi)
            return amd[i].machine;
    int cores = 0;
    for (int ti = 0; ti < t->ntypes; ti++)
        cores += t->cores[ti];
    return t->packages > 1 || cores > 16 ? "epyc-genoa-2s" : "ryzen-7840u";
}

/* The shipped machine closest to the host: same vendor, same family of
 * parts (client hybrids, server; for AMD the family and model, else the
 * size). */
static const char *import_nearest(const struct imp_host *h, const char *cpu_model,
                                  const struct import_topo *t)
{
    if (strcmp(h->vendor, "intel") != 0)
        return import_nearest_amd(h, t);
    if (strncmp(cpu_model, "RAPTORLAKE", 10) == 0)
        return "rpl-h";
    if (strncmp(cpu_model, "ALDERLAKE", 9) == 0 || t->ntypes > 1)
        return "adl-desktop";
    return "skx-2s";
}

static int import_threads_of(const struct imp_host *h, int cpu)
{
    int n = 0;
    for (int k = 0; k < h->ncpus; k++)
        n += h->cpu[k].package == h->cpu[cpu].package && h->cpu[k].core == h->cpu[cpu].core;
    return n;
}

static void import_topology(const struct imp_host *h, struct import_topo *t)
{
    memset(t, 0, sizeof *t);
    for (int cpu = 0; cpu < h->ncpus; cpu++) {
        const struct imp_cpu *c = &h->cpu[cpu];
        if (c->package + 1 > t->packages)
            t->packages = c->package + 1;
        int ti = 0;
        while (ti < t->ntypes && t->types[ti] != c->type)
            ti++;
        if (ti == t->ntypes && t->ntypes < 2) {
            t->types[t->ntypes] = c->type;
            t->first_cpu[t->ntypes] = cpu;
            t->threads[t->ntypes] = import_threads_of(h, cpu);
            t->ntypes++;
        }
    }
    for (int ti = 0; ti < t->ntypes; ti++) {
        int threads = 0;
        for (int cpu = 0; cpu < h->ncpus; cpu++)
            threads += h->cpu[cpu].type == t->types[ti];
        t->cores[ti] = threads / t->threads[ti] / t->packages;
    }
    t->adjacent = h->ncpus < 2 || (h->cpu[1].core == h->cpu[0].core &&
                                   h->cpu[1].package == h->cpu[0].package) ||
                  t->threads[0] == 1;
    for (int a = 0; a < h->ncpus && !t->modules; a++)
        for (int b = a + 1; b < h->ncpus && !t->modules; b++)
            t->modules = h->cpu[a].module >= 0 && h->cpu[a].module == h->cpu[b].module &&
                         h->cpu[a].package == h->cpu[b].package && h->cpu[a].core != h->cpu[b].core;
}

/* The nearest machine's core type standing in for host type c. */
static const struct hw_core_type *import_type_of(const struct hw_machine *near, char c)
{
    const char want[2] = { c == 'U' ? 'P' : c, '\0' };
    for (int i = 0; i < near->ntypes; i++)
        if (strcmp(near->types[i].name, want) == 0)
            return &near->types[i];
    return c == 'E' ? &near->types[near->ntypes - 1] : &near->types[0];
}

/* A cpufreq value of cpu in MHz, or fallback_mhz (then *estimated). */
static unsigned import_freq_mhz(const struct imp_host *h, int cpu, const char *file,
                                unsigned fallback_mhz, bool *estimated)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/%s", cpu, file);
    long long khz = imp_sysfs_ll(h, path, -1);
    if (khz <= 0) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, file);
        khz = imp_sysfs_ll(h, path, -1);
    }
    if (khz <= 0) {
        *estimated = true;
        return fallback_mhz;
    }
    return (unsigned)(khz / 1000);
}

static void import_l2_groups(FILE *f, const struct imp_host *h)
{
    fprintf(f, "; pepc Module / sysfs cluster_id: the CPUs sharing each L2\nl2_groups =");
    bool *done = xcalloc((size_t)h->ncpus, sizeof *done);
    for (int a = 0; a < h->ncpus; a++) {
        if (done[a])
            continue;
        bool *mask = xcalloc((size_t)h->ncpus, sizeof *mask);
        for (int b = a; b < h->ncpus; b++)
            if (h->cpu[b].package == h->cpu[a].package && h->cpu[b].module == h->cpu[a].module)
                mask[b] = done[b] = true;
        char *list = cpulist_format(mask, h->ncpus);
        fprintf(f, " %s", list);
        free(list);
        free(mask);
    }
    fprintf(f, "\n");
    free(done);
}

/* cpu's cache/index3/shared_cpu_list (the CPUs sharing its L3), or NULL. */
static char *import_llc_list(const struct imp_host *h, int cpu)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
    return imp_sysfs(h, path);
}

/* Whether the CPUs listed in list are exactly those whose own list is list
 * (every CPU's L3 holds it, and the lists partition the CPUs). */
static bool import_llc_consistent(char *const *lists, int ncpus, const char *list)
{
    bool *mask = xcalloc((size_t)ncpus, sizeof *mask);
    char msg[128];
    bool ok = cpulist_parse(list, ncpus, mask, msg, sizeof msg) == 0;
    for (int cpu = 0; ok && cpu < ncpus; cpu++)
        ok = mask[cpu] == (strcmp(lists[cpu], list) == 0);
    free(mask);
    return ok;
}

/* llc_groups from every CPU's index3 shared_cpu_list (the L3 of a Zen
 * CCX, or a whole Intel package), in the order of each group's first CPU,
 * a continuation line every 8 groups (the 199-character line limit). Nothing
 * when the source has no index3 lists (the machine keeps its default, one
 * LLC per package); a warning when only some CPUs have one or the lists do
 * not partition the CPUs. */
static void import_llc_groups(FILE *f, const struct imp_host *h)
{
    char **lists = xcalloc((size_t)h->ncpus, sizeof *lists);
    int have = 0;
    for (int cpu = 0; cpu < h->ncpus; cpu++)
        have += (lists[cpu] = import_llc_list(h, cpu)) != NULL;
    bool ok = have == h->ncpus;
    for (int cpu = 0; ok && cpu < h->ncpus; cpu++)
        ok = import_llc_consistent(lists, h->ncpus, lists[cpu]);
    if (have && !ok)
        fprintf(stderr, "pmlab import: warning: cache/index3/shared_cpu_list %s; llc_groups left "
                        "out (one LLC per package)\n",
                have < h->ncpus ? "missing for some CPUs" : "does not split the CPUs into groups");
    if (ok) {
        fprintf(f, "; cpu*/cache/index3/shared_cpu_list: the CPUs sharing each L3\nllc_groups =");
        int ngroups = 0;
        for (int cpu = 0; cpu < h->ncpus; cpu++) {
            int first = 0;
            while (strcmp(lists[first], lists[cpu]) != 0)
                first++;
            if (first == cpu)   /* the group's first CPU: print it once */
                fprintf(f, "%s %s", ngroups > 0 && ngroups % 8 == 0 ? "\n   " : "", lists[cpu]),
                    ngroups++;
        }
        fprintf(f, "\n");
    }
    for (int cpu = 0; cpu < h->ncpus; cpu++)
        free(lists[cpu]);
    free(lists);
}

static void import_core_type(FILE *f, const struct imp_host *h, const struct import_topo *t,
                             int ti, const struct hw_machine *near)
{
    const struct hw_core_type *nt = import_type_of(near, t->types[ti]);
    int cpu = t->first_cpu[ti];
    bool est_min = false, est_base = false, est_max = false;
    unsigned min = import_freq_mhz(h, cpu, "cpuinfo_min_freq", nt->min_mhz, &est_min);
    unsigned max = import_freq_mhz(h, cpu, "cpuinfo_max_freq", nt->max_mhz, &est_max);
    unsigned base = import_freq_mhz(h, cpu, "base_frequency", nt->base_mhz, &est_base);
    if (base > max || base < min) {     /* the nearest machine's base outside the host's range */
        base = base > max ? max : min;
        est_base = true;
    }
    const char *src = "cpufreq sysfs";
    char est[64];
    snprintf(est, sizeof est, "estimated, from %s", near->name);
    fprintf(f, "\n[core_type %s]\n", t->types[ti] == 'U' ? "U" : t->types[ti] == 'P' ? "P" : "E");
    fprintf(f, "cores_per_package = %d        ; topology\n", t->cores[ti]);
    fprintf(f, "threads_per_core = %d         ; topology\n", t->threads[ti]);
    fprintf(f, "ipc_factor = %g               ; estimated, from %s\n", nt->ipc_factor, near->name);
    fprintf(f, "min_mhz = %u                  ; %s\n", min, est_min ? est : src);
    fprintf(f, "base_mhz = %u                 ; %s\n", base, est_base ? est : src);
    fprintf(f, "max_mhz = %u                  ; %s\n", max, est_max ? est : src);
    fprintf(f, "active_power_mw_base = %g     ; estimated, from %s\n", nt->active_power_mw_base,
            near->name);
    fprintf(f, "active_power_mw_max = %g      ; estimated, from %s\n",
            nt->active_power_mw_max < nt->active_power_mw_base ? nt->active_power_mw_base
                                                               : nt->active_power_mw_max,
            near->name);
    imp_write_cstates(f, h, t->types[ti] == 'U' ? 'U' : t->types[ti] == 'P' ? 'P' : 'E', nt, near);
}

/* The host's cpuidle states of cpu0 as "[firmware]" _CST entries: the
 * method and address from the desc ("ACPI FFH MWAIT 0x21", "ACPI IOPORT
 * 0x414", "ACPI HLT", or intel_idle's "MWAIT 0x20"), the latency as sysfs
 * shows it. Returns the count. */
static int import_cst(const struct imp_host *h, char *methods, char *hints, char *lats, size_t sz)
{
    int n = 0;
    size_t lm = 0, lh = 0, ll = 0;
    for (int s = 1; s < 10 && n < HW_MAX_CST; s++) {
        char *desc = imp_state_file(h, s, "desc");
        if (!desc)
            break;
        long long lat = imp_state_ll(h, s, "latency", 0);
        const char *m = "ffh";
        unsigned addr = 0;
        char *p;
        if ((p = strstr(desc, "IOPORT 0x")))
            m = "io", addr = (unsigned)strtoul(p + 7, NULL, 16);
        else if ((p = strstr(desc, "MWAIT 0x")))
            addr = (unsigned)strtoul(p + 6, NULL, 16);
        else if (strstr(desc, "HLT"))
            m = "halt";
        free(desc);
        lm += (size_t)snprintf(methods + lm, sz - lm, " %s", m);
        lh += (size_t)snprintf(hints + lh, sz - lh, " 0x%x", addr);
        ll += (size_t)snprintf(lats + ll, sz - ll, " %lld", lat);
        n++;
    }
    return n;
}

static void import_firmware(FILE *f, const struct imp_host *h, const struct hw_machine *near,
                            bool model_known)
{
    char methods[128] = "", hints[128] = "", lats[128] = "";
    char *drv = imp_sysfs(h, "/sys/devices/system/cpu/cpuidle/current_driver");
    bool acpi = drv && strcmp(drv, "acpi_idle") == 0;
    char *name1 = imp_state_file(h, 1, "name");
    acpi |= name1 && strstr(name1, "_ACPI");
    free(name1);
    fprintf(f, "\n[firmware]\nosc_cppc_v2 = %s   ; estimated, from %s\n",
            near->fw.osc_cppc_v2 ? "yes" : "no", near->name);
    if (near->fw.pm_profile[0])
        fprintf(f, "pm_profile = %s   ; estimated, from %s\n", near->fw.pm_profile, near->name);
    if ((acpi || !model_known) && import_cst(h, methods, hints, lats, sizeof methods) > 0) {
        fprintf(f, "; the host's cpuidle states (driver %s) as its _CST%s\n", drv ? drv : "?",
                acpi ? "" : " (pmlab has no intel_idle table for this model: its ACPI fallback "
                            "builds C<n>_ACPI states from these)");
        fprintf(f, "cst_methods =%s\ncst_mwait_hints =%s\ncst_latency_us =%s\n", methods, hints,
                lats);
    }
    free(drv);
}

/* [calibration]: the wake-up chains' length from the host's inputs. Each
 * interrupt (LOC and the numbered lines) ends one idle period; the entries
 * beyond those come from the hand-offs it sets going, so the mean chain is
 * entries / interrupts - 1 (kernel/irq/wakeup_chain.h). Inputs only: the
 * cpuidle usage counters and /proc/interrupts, never above/below shares,
 * residencies or power. */
static void import_calibration(FILE *f, const struct imp_host *h)
{
    struct imp_idle_counts c;
    struct imp_irq_rates r;
    const char *how;
    double seconds = imp_snapshot_seconds(h, &how);
    if (seconds <= 0 || imp_idle_counts(h, &c) != 0)
        return;
    if (imp_irq_rates(h, &r) != 0)
        return;
    double usage = 0, irq_hz = 0;
    for (int s = 0; s < c.nstates; s++)
        usage += c.sum[s][IMP_IDLE_USAGE];
    for (int cpu = 0; cpu < h->ncpus; cpu++)
        irq_hz += r.loc_hz[cpu] + r.device_hz[cpu];
    imp_irq_rates_free(&r);
    double entries_hz = usage / h->ncpus / seconds;
    irq_hz /= h->ncpus;
    if (entries_hz <= 0 || irq_hz <= 0)
        return;
    double msgs = entries_hz / irq_hz - 1;
    if (msgs < 0)
        msgs = 0;
    fprintf(f, "\n[calibration]\n"
               "; wake-up chains: %.2f idle entries per CPU per second (sys-cpuidle usage\n"
               "; growth over %.0f s, %s) over %.2f interrupts (interrupts.raw.txt: LOC and\n"
               "; the numbered lines), minus each interrupt's own entry\n"
               "bg_msgs_per_irq = %.2f\n", entries_hz, seconds, how, irq_hz, msgs);
}

/* turbostat's summary rows (CPU column "-"): the mean of each column named
 * *%*, *MHz or *Watt over the intervals, as one comment line. */
static void import_turbostat(FILE *f, const struct imp_host *h)
{
    struct imp_turbostat ts;
    if (imp_turbostat_means(h, &ts) != 0)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fprintf(m, "measured: turbostat.raw.txt, mean of %d summary intervals:", ts.rows);
    for (int i = 0; i < ts.ncols; i++)
        if (strchr(ts.cols[i], '%') || strstr(ts.cols[i], "Watt") || strstr(ts.cols[i], "MHz"))
            fprintf(m, " %s %.2f", ts.cols[i], ts.mean[i]);
    fclose(m);
    import_comment(f, buf);
    free(buf);
}

/* /proc/interrupts snapshots: the local timer (LOC) rate per CPU between the
 * first and the last, as a comment (the scenario's idle workload gets them
 * and the device rates as keys). */
static void import_interrupts(FILE *f, const struct imp_host *h)
{
    struct imp_irq_rates r;
    if (imp_irq_rates(h, &r) != 0)
        return;
    double total = 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fprintf(m, "measured: interrupts.raw.txt, local timer (LOC) interrupts/s per CPU over %.0f s:",
            r.seconds);
    for (int cpu = 0; cpu < h->ncpus; cpu++) {
        total += r.loc_hz[cpu];
        fprintf(m, " %.1f", r.loc_hz[cpu]);
    }
    fprintf(m, "; mean %.2f /s per CPU", total / h->ncpus);
    fclose(m);
    import_comment(f, buf);
    free(buf);
    imp_irq_rates_free(&r);
}

/* The host's idle states of cpu0 as comments: pmlab builds its own list. */
static void import_host_states(FILE *f, const struct imp_host *h)
{
    char *drv = imp_sysfs(h, "/sys/devices/system/cpu/cpuidle/current_driver");
    char *gov = imp_sysfs(h, "/sys/devices/system/cpu/cpuidle/current_governor");
    fprintf(f, "; host cpuidle: driver %s, governor %s; states of cpu0 (name desc latency/residency us):\n",
            drv ? drv : "?", gov ? gov : "?");
    for (int s = 0; s < 10; s++) {
        char *name = imp_state_file(h, s, "name");
        if (!name)
            break;
        char *desc = imp_state_file(h, s, "desc");
        long long lat = imp_state_ll(h, s, "latency", -1);
        long long res = imp_state_ll(h, s, "residency", -1);
        fprintf(f, ";   state%d %s \"%s\" %lld/%lld\n", s, name, desc ? desc : "", lat, res);
        free(name);
        free(desc);
    }
    free(drv);
    free(gov);
}

struct import_opts {
    const char *root, *snap, *out, *scenario, *name;
};

/* The N of turbostat's package C-state column Pkg%pcN (Pk%pc10 for the
 * tenth, to fit the column), or NULL for another column. */
static const char *import_pkg_col_number(const char *col)
{
    const char *n = strncmp(col, "Pkg%pc", 6) == 0 ? col + 6 : strncmp(col, "Pk%pc", 5) == 0 ? col + 5 : NULL;
    return n && *n && strspn(n, "0123456789") == strlen(n) ? n : NULL;
}

/* Whether the host's turbostat shows package states and not this one
 * (PCn): turbostat prints a Pkg%pcN column (Pk%pc10) for each package state
 * the part has, so a state of the nearest machine the host lacks is left
 * out. Which columns exist describes the part; their values are outputs and
 * are not read here. Without turbostat every state is kept. */
bool imp_host_lacks_pkgstate(const struct imp_host *h, const char *name)
{
    struct imp_turbostat ts;
    if (imp_turbostat_means(h, &ts) != 0 || strncmp(name, "PC", 2) != 0)
        return false;
    bool any = false;
    for (int i = 0; i < ts.ncols; i++) {
        const char *n = import_pkg_col_number(ts.cols[i]);
        if (!n)
            continue;
        any = true;
        if (strcmp(n, name + 2) == 0)
            return false;
    }
    return any;
}

static void import_machine(FILE *f, const struct import_opts *o, const struct imp_host *h,
                           const struct hw_machine *near, const char *cpu_model, bool model_known)
{
    struct import_topo t;
    import_topology(h, &t);
    const char *src = o->snap                  ? o->snap
                      : o->root && o->root[0] ? o->root
                                             : "this host's /sys and /proc";
    fprintf(f, "; %s: imported by `pmlab import` from %s (%s).\n", o->name, src,
            h->model_name[0] ? h->model_name : "model name unknown");
    fprintf(f, "; Topology, CPU identity and frequencies are the host's; every number marked\n"
               "; 'estimated, from %s' is that shipped machine's (power, C-state physics).\n",
            near->name);
    imp_write_borrowed_note(f, h, near);
    char *line = xasprintf("host kernel %s; command line: %s", h->kernel[0] ? h->kernel : "?",
                           h->cmdline ? h->cmdline : "?");
    import_comment(f, line);
    free(line);
    import_host_states(f, h);
    import_turbostat(f, h);
    import_interrupts(f, h);
    fprintf(f, "\n[machine]\nname = %s\n", o->name);
    fprintf(f, "description = imported: %.120s\n", h->model_name[0] ? h->model_name : src);
    fprintf(f, "vendor = %s\n", h->vendor);
    fprintf(f, "cpu_model = %s   ; /proc/cpuinfo family %d model %d%s\n", cpu_model, h->family,
            h->model, model_known ? "" : " (no kernel name known to pmlab)");
    fprintf(f, "cpu_family = 0x%x\n", (unsigned)h->family);
    fprintf(f, "packages = %d\n", t.packages);
    fprintf(f, "threads_per_core = %d\n", t.threads[0] > t.threads[1] ? t.threads[0] : t.threads[1]);
    fprintf(f, "cpu_numbering = %s   ; cpu0 and cpu1 %s\n", t.adjacent ? "adjacent" : "split",
            t.adjacent ? "share a core (or no SMT)" : "are on different cores");
    fprintf(f, "pkg_active_power_mw = %g   ; estimated, from %s\n", near->pkg_active_power_mw,
            near->name);
    if (t.modules)
        import_l2_groups(f, h);
    import_llc_groups(f, h);
    for (int ti = 0; ti < t.ntypes; ti++)
        import_core_type(f, h, &t, ti, near);
    imp_write_pkgstates(f, h, near);
    import_firmware(f, h, near, model_known);
    import_calibration(f, h);
}

/* "6.11.4-301.fc41.x86_64" -> "6.11". */
static void import_kernel_version(const char *release, char *out, size_t outsz)
{
    int a = 0, b = 0;
    if (sscanf(release, "%d.%d", &a, &b) == 2)
        snprintf(out, outsz, "%d.%d", a, b);
    else
        snprintf(out, outsz, "6.12");
}

/* The cmdline words worth keeping: drop the boot loader's and the root
 * file system's (pmlab would only warn about them). */
static bool import_keep_word(const struct cmdline_arg *a)
{
    static const char *const drop_value[] = { "BOOT_IMAGE", "initrd", "root", "console" };
    static const char *const drop_bare[] = { "ro", "rw", "quiet", "splash" };
    const char *const *list = a->value ? drop_value : drop_bare;
    size_t n = a->value ? sizeof drop_value / sizeof *drop_value
                        : sizeof drop_bare / sizeof *drop_bare;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a->name, list[i]) == 0)
            return false;
    return true;
}

/* Append " WORD" to *list as a scenario writes it: a value holding white
 * space in double quotes, as the kernel's next_arg reads it back. */
static void import_cmdline_append(char **list, const struct cmdline_arg *a)
{
    const char *v = a->value;
    bool quote = v && strpbrk(v, " \t\n\v\f\r");
    char *next = xasprintf("%s %s%s%s%s%s", *list, a->name, v ? "=" : "", quote ? "\"" : "",
                           v ? v : "", quote ? "\"" : "");
    free(*list);
    *list = next;
}

/* The host's command line, split by the kernel's rules (kernel/cmdline.c),
 * less the words pmlab would only warn about and those it rejects (a bad
 * value, an unknown knob of a modelled module: written as a comment and a
 * warning); what follows "--" is init's and goes into a comment, without a
 * warning: the host's kernel ignored it too. */
static void import_cmdline(FILE *f, const struct imp_host *h)
{
    char *kept = xstrdup(""), *dropped = xstrdup("");
    struct cmdline c = { 0 };
    char msg[200] = "";
    if (h->cmdline && cmdline_split(h->cmdline, &c, msg, sizeof msg) != 0) {
        fprintf(f, "; the host's command line is left out: %s\n", msg);
        fprintf(stderr, "pmlab import: warning: the host's command line is left out: %s\n",
                msg);
    }
    struct kparams kp;
    kparams_init(&kp);
    for (int i = 0; i < c.nargs; i++) {
        if (!import_keep_word(&c.args[i]))
            continue;
        struct diag d = { 0 };
        bool ok = kparams_set_cmdline(&kp, c.args[i].name, c.args[i].value, "import", 1, &d) == 0;
        import_cmdline_append(ok ? &kept : &dropped, &c.args[i]);
    }
    kparams_destroy(&kp);
    if (dropped[0]) {
        fprintf(f, "; left out of cmdline, pmlab rejects them:%s\n", dropped);
        fprintf(stderr, "pmlab import: warning: cmdline words left out (pmlab rejects "
                        "them):%s\n", dropped);
    }
    if (c.rest && c.rest[0]) {
        char *init = xasprintf("init's arguments on the host (after --, not the kernel's): %s",
                               c.rest);
        import_comment(f, init);
        free(init);
    }
    fprintf(f, "cmdline =%s", kept);
    cmdline_free(&c);
    free(kept);
    free(dropped);
}

/* key = the per-CPU values v[n], 16 to a line, the rest on indented
 * continuation lines (docs/scenario-files.md, the idle workload). */
static void import_cpu_list(FILE *f, const char *key, const double *v, int n)
{
    fprintf(f, "%s =", key);
    for (int cpu = 0; cpu < n; cpu++)
        fprintf(f, "%s %.2f", cpu > 0 && cpu % 16 == 0 ? "\n   " : "", v[cpu]);
    fprintf(f, "\n");
}

/* The share of a CPU's device interrupts that a [device] section
 * (import_devices) generates itself, taken out of device_hz so that the
 * two add up to what the host counted. */
static void import_devices_adjust(const struct imp_host *h, double *device_hz)
{
    struct imp_irq_line x;
    if (imp_usb_console_xhci(h, &x) == 0)
        device_hz[x.cpu] = device_hz[x.cpu] > x.cpu_hz ? device_hz[x.cpu] - x.cpu_hz : 0;
}

/* [device] sections from the host's inputs: the xHCI controller of a USB
 * serial console (console=ttyUSB*), whose line interrupts all the time
 * (usbcore never autosuspends the open console's adapter). A controller
 * with transfers in flight can withhold the deeper package states (12th Gen
 * Core datasheet vol. 1, "Package C-States"), but the inputs do not say
 * whether this one does: adl0 and rpl0 had the same console and the same
 * xHCI rate (62.6/s), and one package sat in PC3, the other reached PC8. So
 * no limit is inferred; the section says how to declare one. */
static void import_devices(FILE *f, const struct imp_host *h)
{
    struct imp_irq_line x;
    if (imp_usb_console_xhci(h, &x) != 0)
        return;
    fprintf(f, "\n[device xhci_hcd]\n"
               "; the USB serial console's host controller (console=ttyUSB* on the command\n"
               "; line), IRQ %d in interrupts.raw.txt: its interrupts come from here, not\n"
               "; device_hz. pkg_limit: such a controller may hold the package shallow\n"
               "; (docs/scenario-files.md [device]), but a console does not decide it: of\n"
               "; two hosts with the same console and rate, one sat in PC3, one reached PC8.\n"
               "; If this host's turbostat shows its package held (Pkg%%pc3 high, deeper\n"
               "; columns 0), declare it: pkg_limit = PC3\n"
               "cpu = %d\nirq_hz = %.2f\npkg_limit = none\n", x.irq, x.cpu, x.cpu_hz);
}

/* The idle workload at the snapshot's interrupt rates (pmlab's default
 * background without them). */
static void import_workload(FILE *f, const struct imp_host *h)
{
    struct imp_irq_rates r;
    fprintf(f, "\n[workload]\n");
    if (imp_irq_rates(h, &r) != 0) {
        fprintf(f, "; no timestamped /proc/interrupts dumps: pmlab's default background\n"
                   "type = idle\n");
    } else {
        fprintf(f, "; the host's background, per CPU, from interrupts.raw.txt over %.0f s: LOC\n"
                   "; (housekeeping timers and ticks) and the numbered lines (devices), per s\n"
                   "type = idle\n", r.seconds);
        import_cpu_list(f, "timer_hz", r.loc_hz, h->ncpus);
        import_devices_adjust(h, r.device_hz);
        import_cpu_list(f, "device_hz", r.device_hz, h->ncpus);
        imp_irq_rates_free(&r);
    }
    fprintf(f, "\n[quick]\nreplications = 2\nwarmup_ms = 200\nduration_ms = 4000\n");
}

/* turbostat's means under pmlab's metric names: Busy%, PkgWatt, CorWatt and
 * the cpuidle states' residencies (turbostat's "NAME%" columns are cpuidle
 * time, as residency.NAME is). */
static void import_measured_turbostat(FILE *f, const struct imp_host *h)
{
    struct imp_turbostat ts;
    if (imp_turbostat_means(h, &ts) != 0) {
        fprintf(f, "; no turbostat averages in the snapshot (turbostat.raw.txt): busy_pct,\n"
                   "; residency.* and pkg_watts not measured\n");
        return;
    }
    static const char *const plain[][2] = { { "Busy%", "busy_pct" }, { "PkgWatt", "pkg_watts" },
                                            { "CorWatt", "core_watts" } };
    fprintf(f, "; turbostat.raw.txt, mean of %d summary intervals\n", ts.rows);
    bool found;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        double v = imp_turbostat_col(&ts, plain[i][0], &found);
        if (found)
            fprintf(f, "%s = %.2f\n", plain[i][1], v);
    }
    for (int s = 0; s < IMP_IDLE_MAX_STATES; s++) {
        char *name = imp_state_file(h, s, "name");
        if (!name)
            break;
        char col[64];
        snprintf(col, sizeof col, "%s%%", name);
        double v = imp_turbostat_col(&ts, col, &found);
        if (found)
            fprintf(f, "residency.%s = %.2f\n", name, v);
        free(name);
    }
}

/* Idle entries per CPU per second (every state's usage growth over the
 * workload's run time) and each state's share of them, as pmlab's
 * idle_entries_per_s and usage_pct.NAME. */
static void import_measured_entries(FILE *f, const struct imp_host *h,
                                    const struct imp_idle_counts *c, double usage)
{
    const char *how;
    double seconds = imp_snapshot_seconds(h, &how);
    if (usage <= 0)
        return;
    if (seconds > 0)
        fprintf(f, "; the same growth over the %.0f s the workload ran (%s), per CPU\n"
                   "idle_entries_per_s = %.2f\n", seconds, how, usage / h->ncpus / seconds);
    else
        fprintf(f, "; no run time in info.yml (duration, cmd sleep N): idle_entries_per_s not "
                   "measured\n");
    fprintf(f, "; each state's share of the entries, %%\n");
    for (int s = 0; s < c->nstates; s++) {
        char *name = imp_state_file(h, s, "name");
        if (name)
            fprintf(f, "usage_pct.%s = %.2f\n", name, 100 * c->sum[s][IMP_IDLE_USAGE] / usage);
        free(name);
    }
}

/* turbostat's package C-state columns (Pkg%pc2 ... Pk%pc10, as the part has
 * them) as pkg_residency.PCn: a yardstick for the run, never an input. */
static void import_measured_pkgstates(FILE *f, const struct imp_host *h)
{
    struct imp_turbostat ts;
    if (imp_turbostat_means(h, &ts) != 0)
        return;
    for (int i = 0; i < ts.ncols; i++) {
        const char *n = import_pkg_col_number(ts.cols[i]);
        if (n)
            fprintf(f, "pkg_residency.PC%s = %.2f\n", n, ts.mean[i]);
    }
}

/* The cpuidle counters' growth, all CPUs: above and below as a share of
 * each state's usage, and overall; the entries' rate and shares. */
static void import_measured_cpuidle(FILE *f, const struct imp_host *h)
{
    struct imp_idle_counts c;
    if (imp_idle_counts(h, &c) != 0) {
        fprintf(f, "; no sys-cpuidle before/after dumps: above_pct and below_pct not measured\n");
        return;
    }
    fprintf(f, "; sys-cpuidle after minus before, all CPUs: above and below, %% of usage\n");
    double usage = 0, above = 0, below = 0;
    for (int s = 0; s < c.nstates; s++) {
        char *name = imp_state_file(h, s, "name");
        const double *k = c.sum[s];
        usage += k[IMP_IDLE_USAGE];
        above += k[IMP_IDLE_ABOVE];
        below += k[IMP_IDLE_BELOW];
        if (name && k[IMP_IDLE_USAGE] > 0)
            fprintf(f, "above_pct.%s = %.2f\nbelow_pct.%s = %.2f\n", name,
                    100 * k[IMP_IDLE_ABOVE] / k[IMP_IDLE_USAGE], name,
                    100 * k[IMP_IDLE_BELOW] / k[IMP_IDLE_USAGE]);
        free(name);
    }
    if (usage > 0)
        fprintf(f, "above_pct = %.2f\nbelow_pct = %.2f\n", 100 * above / usage,
                100 * below / usage);
    import_measured_entries(f, h, &c, usage);
}

/* The IPI rows' rates, mean per CPU, as res_per_s, cal_per_s, tlb_per_s
 * and iwi_per_s: measured, not workload inputs (the idle workload has no
 * IPIs to drive) and not metrics pmlab reports yet. */
static void import_measured_ipis(FILE *f, const struct imp_host *h, const struct imp_irq_rates *r)
{
    fprintf(f, "; IPIs (RES rescheduling, CAL function call, TLB shootdown, IWI IRQ work), mean\n"
               "; per CPU: no idle-workload input and no pmlab metric yet, kept for reference\n");
    for (int i = 0; i < IMP_NIPI; i++) {
        double sum = 0;
        for (int cpu = 0; cpu < h->ncpus; cpu++)
            sum += r->ipi_hz[i][cpu];
        char key[8];
        for (int k = 0; k < 3; k++)
            key[k] = (char)(imp_ipi_rows[i][k] - 'A' + 'a');
        key[3] = '\0';
        fprintf(f, "%s_per_s = %.2f\n", key, sum / h->ncpus);
    }
}

/* [measured]: what the snapshot measured, under the names of the metrics
 * `pmlab run` reports, so a run can be held against it (make validate
 * does). */
static void import_measured(FILE *f, const struct imp_host *h)
{
    if (!h->snap)
        return;     /* a live system or a copied tree: one moment, no measurement */
    fprintf(f, "\n[measured]\n; what the host measured while the snapshot was taken, under pmlab's\n"
               "; metric names (docs/scenario-files.md): not inputs, a run's yardstick\n");
    struct imp_irq_rates r;
    if (imp_irq_rates(h, &r) == 0) {
        double loc = 0, dev = 0;
        for (int cpu = 0; cpu < h->ncpus; cpu++) {
            loc += r.loc_hz[cpu] / h->ncpus;
            dev += r.device_hz[cpu] / h->ncpus;
        }
        fprintf(f, "; interrupts.raw.txt over %.0f s, mean per CPU\nloc_per_s = %.2f\n"
                   "device_irqs_per_s = %.2f\n", r.seconds, loc, dev);
        import_measured_ipis(f, h, &r);
        imp_irq_rates_free(&r);
    }
    import_measured_turbostat(f, h);
    import_measured_pkgstates(f, h);
    import_measured_cpuidle(f, h);
}

/* The host's CONFIG_HZ, an input the tick, POLL's time limit and menu's
 * tick rules depend on: from /boot/config-RELEASE under --root, else from
 * the distribution a snapshot's release names (Fedora's .fcNN and RHEL's
 * .elN kernels are built with CONFIG_HZ_1000; their kernel configs). 0:
 * unknown, pmlab's default (250) stays. *why: where it came from. */
static int import_config_hz(const struct imp_host *h, const char **why)
{
    if (h->root && h->kernel[0]) {
        char path[128];
        snprintf(path, sizeof path, "/boot/config-%s", h->kernel);
        char *cfg = imp_file(h, path, NULL);
        const char *p = cfg ? strstr(cfg, "\nCONFIG_HZ=") : NULL;
        int hz = p ? atoi(p + strlen("\nCONFIG_HZ=")) : 0;
        free(cfg);
        if (hz == 100 || hz == 250 || hz == 300 || hz == 1000) {
            *why = "the host's /boot/config";
            return hz;
        }
    }
    const char *fc = strstr(h->kernel, ".fc"), *el = strstr(h->kernel, ".el");
    if (fc && fc[3] >= '0' && fc[3] <= '9') {
        *why = "Fedora's kernel config (the release's .fc tag): CONFIG_HZ_1000";
        return 1000;
    }
    if (el && el[3] >= '0' && el[3] <= '9') {
        *why = "RHEL's kernel config (the release's .el tag): CONFIG_HZ_1000";
        return 1000;
    }
    return 0;
}

static void import_config(FILE *f, const struct imp_host *h)
{
    const char *why = NULL;
    int hz = import_config_hz(h, &why);
    if (hz)
        fprintf(f, "config = CONFIG_HZ=%d   ; %s\n", hz, why);
    else
        fprintf(f, "; CONFIG_HZ unknown (no kernel config in the source, release %s): pmlab's "
                   "default 250\n", h->kernel[0] ? h->kernel : "?");
}

static void import_scenario(FILE *f, const struct import_opts *o, const struct imp_host *h)
{
    char kv[16];
    import_kernel_version(h->kernel, kv, sizeof kv);
    fprintf(f, "; %s: scenario skeleton written by `pmlab import`; variant 'host' is the host's\n"
               "; kernel %s, command line, cpuidle governor and cpufreq settings. The workload\n"
               "; is the host idle, as the snapshot saw it: replace it with what the host runs.\n",
            o->name, h->kernel[0] ? h->kernel : "?");
    fprintf(f, "\n[scenario]\nname = %s\ndescription = imported host %s\nmachine = %s\n"
               "seed = 1\nreplications = 3\n", o->name, o->name, o->name);
    import_workload(f, h);
    import_devices(f, h);
    fprintf(f, "\n[variant host]\nkernel = %s\n", kv);
    import_config(f, h);
    import_cmdline(f, h);
    char *gov = imp_sysfs(h, "/sys/devices/system/cpu/cpuidle/current_governor");
    if (gov && strcmp(gov, "menu") != 0 && cpuidle_find_governor(gov))
        fprintf(f, " cpuidle.governor=%s", gov);
    else if (gov && strcmp(gov, "menu") != 0)
        fprintf(stderr, "pmlab import: warning: cpuidle governor %s is not modelled on a host; "
                        "the scenario keeps the default\n", gov);
    free(gov);
    fprintf(f, "\n");
    char *sg = imp_sysfs(h, "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    if (sg)
        fprintf(f, "sysfs = /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor=%s\n", sg);
    free(sg);
    char *epp = imp_sysfs(h, "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
    if (epp && strcmp(epp, "balance_performance") != 0)
        fprintf(f, "sysfs = /sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference=%s\n", epp);
    free(epp);
    import_measured(f, h);
}

/* Load the machine just written and compare the cpuidle states pmlab builds
 * for it (on the host's kernel version) with the host's own list: a host
 * running a patched kernel, or a model pmlab reads differently, shows up
 * here. Returns -1 when the written file does not load (a bug). */
static int import_check_states(const char *path, const struct imp_host *h)
{
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load(path, &d);
    if (!m) {
        fprintf(stderr, "pmlab import: the machine file written does not load: %s\n", d.msg);
        return -1;
    }
    struct kparams kp;
    kparams_init(&kp);
    char kv[16];
    import_kernel_version(h->kernel, kv, sizeof kv);
    if (kversion_parse(kv, &kp.kernel) != 0)
        kversion_parse("6.12", &kp.kernel);
    struct cpuidle_driver drv;
    struct cpuidle_probe_result r;
    if (cpuidle_driver_probe(m, &kp, &drv, &r) == 0) {
        /* Past the end of either list, the other's next state is the difference. */
        for (int i = 1; i < CPUIDLE_STATE_MAX; i++) {
            char *name = imp_state_file(h, i, "name");
            if (!name && i >= drv.state_count)
                break;
            long long lat = imp_state_ll(h, i, "latency", -1);
            long long res = imp_state_ll(h, i, "residency", -1);
            bool ours = i < drv.state_count;
            bool same = name && ours && strcmp(name, drv.states[i].name) == 0 &&
                        lat * 1000 == drv.states[i].exit_latency_ns &&
                        (res < 0 || res * 1000 == drv.states[i].target_residency_ns);
            if (!same)
                fprintf(stderr, "pmlab import: note: state%d is %s (%lld/%lld us) on the host but "
                                "%s (%lld/%lld us) in pmlab's %s on kernel %s: %s\n", i,
                        name ? name : "absent", lat, res, ours ? drv.states[i].name : "absent",
                        ours ? (long long)(drv.states[i].exit_latency_ns / 1000) : -1,
                        ours ? (long long)(drv.states[i].target_residency_ns / 1000) : -1,
                        drv.name, kv, r.source);
            free(name);
            if (!same)
                break;
        }
    }
    kparams_destroy(&kp);
    hw_machine_free(m);
    return 0;
}

/* Open the output at path ("-" or none: stdout) through a temporary beside
 * it (cli/output.h): a failed or interrupted import leaves an earlier file
 * whole, and a reader never sees half a machine file. */
static FILE *import_open(struct out_file *of, const char *path)
{
    memset(of, 0, sizeof *of);
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    char msg[512];
    if (out_file_open(of, path, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab import: %s\n", msg);
        return NULL;
    }
    return of->f;
}

/* Flush and rename the temporary into place (stdout: flush). */
static int import_close(struct out_file *of, FILE *f)
{
    if (f == stdout)
        return fflush(f) == 0 ? 0 : -1;
    char msg[512];
    int rc = out_file_commit(of, msg, sizeof msg);
    if (rc != 0)
        fprintf(stderr, "pmlab import: %s\n", msg);
    out_file_free(of);
    return rc;
}

/* The machine file and the scenario are two files (near NULL: checked
 * before reading anything), neither the shipped machine import reads
 * (near): the second written would replace the first, or the shipped file
 * be lost. 0, or -1 after the message. */
static int import_check_outputs(const struct import_opts *o, const char *near)
{
    char msg[600];
    bool out_file = o->out && strcmp(o->out, "-") != 0;
    int rc = 0;
    if (!near && out_file && o->scenario)
        rc = out_check_not_input("--scenario", o->scenario, "the machine file (-o)", o->out, msg,
                                 sizeof msg);
    else if (near && out_file)
        rc = out_check_not_input("-o", o->out, "the shipped machine file read", near, msg,
                                 sizeof msg);
    if (rc == 0 && near && o->scenario)
        rc = out_check_not_input("--scenario", o->scenario, "the shipped machine file read", near,
                                 msg, sizeof msg);
    if (rc != 0)
        fprintf(stderr, "pmlab import: %s\n", msg);
    return rc;
}

static int import_parse(int argc, char **argv, struct import_opts *o)
{
    static const struct option longopts[] = {
        { "root", required_argument, NULL, 'r' }, { "scenario", required_argument, NULL, 's' },
        { "name", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': o->root = optarg; break;
        case 's': o->scenario = optarg; break;
        case 'n': o->name = optarg; break;
        case 'o': o->out = optarg; break;
        case 'h': import_usage(); return -2;
        default: return cli_bad_option("import", argv, longopts, "o:h");
        }
    }
    if (optind < argc)
        o->snap = argv[optind++];
    if (optind < argc || (o->snap && o->root)) {
        fprintf(stderr, "pmlab import: give one of --root DIR or SNAPSHOT_DIR\n");
        return EXIT_BAD_INPUT;
    }
    if (!o->snap && !o->root)
        o->root = "";           /* the live system */
    return 0;
}

static char *import_default_name(const struct import_opts *o)
{
    if (o->name)
        return xstrdup(o->name);
    if (o->out && strcmp(o->out, "-") != 0) {
        /* The scenario finds the machine by file name: NAME.ini. */
        char *copy = xstrdup(o->out);
        char *base = xstrdup(basename(copy));
        free(copy);
        size_t n = strlen(base);
        if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
            base[n - 4] = '\0';
        return base;
    }
    const char *from = o->snap ? o->snap : (o->root && o->root[0]) ? o->root : NULL;
    if (!from)
        return xstrdup("host");
    char *copy = xstrdup(from);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    char *name = xstrdup(basename(copy));
    free(copy);
    return name;
}

/* Write the machine file and the scenario into a temporary directory and
 * load them as `pmlab run` would: import writes only what pmlab itself
 * loads. -1 (with the reason on stderr) when either does not load; the
 * loader's notes on the host's cmdline words are not shown twice. */
static int import_check_written(const struct import_opts *o, const struct imp_host *h,
                                const struct hw_machine *near, const char *cpu_model,
                                bool model_known)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/pmlab-import-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "pmlab import: cannot check what it writes: %s: %s\n", dir,
                strerror(errno));
        free(dir);
        return -1;
    }
    char *mpath = xasprintf("%s/%s.ini", dir, o->name), *spath = xasprintf("%s/scenario.ini", dir);
    FILE *mf = fopen(mpath, "w"), *sf = o->scenario ? fopen(spath, "w") : NULL;
    int rc = -1;
    struct diag d = { 0 };
    if (mf && (sf || !o->scenario)) {
        import_machine(mf, o, h, near, cpu_model, model_known);
        if (sf)
            import_scenario(sf, o, h);
    }
    bool written = mf && fclose(mf) == 0 && (!sf || fclose(sf) == 0);
    mf = sf = NULL;
    struct hw_machine *m = written ? hw_machine_load(mpath, &d) : NULL;
    if (!written)
        fprintf(stderr, "pmlab import: cannot check what it writes in %s\n", dir);
    else if (!m)
        fprintf(stderr, "pmlab import: the machine file it would write does not load: %s\n",
                d.msg);
    else if (o->scenario) {
        struct scenario_load_opts so = { .machine_dirs = dir };
        fflush(stderr);
        int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (saved >= 0 && null >= 0)
            dup2(null, STDERR_FILENO);
        struct scenario *sc = scenario_load(spath, &so, &d);
        fflush(stderr);
        if (saved >= 0 && null >= 0)
            dup2(saved, STDERR_FILENO);
        if (saved >= 0)
            close(saved);
        if (null >= 0)
            close(null);
        if (!sc)
            fprintf(stderr, "pmlab import: the scenario it would write does not load (a bug of "
                            "pmlab import; nothing written): %s\n", d.msg);
        rc = sc ? 0 : -1;
        scenario_free(sc);
    } else {
        rc = 0;
    }
    hw_machine_free(m);
    remove(spath);
    remove(mpath);
    rmdir(dir);
    free(spath);
    free(mpath);
    free(dir);
    return rc;
}

static int import_main(int argc, char **argv)
{
    struct import_opts o = { 0 };
    int rc = import_parse(argc, argv, &o);
    if (rc)
        return rc == -2 ? 0 : rc;
    if (import_check_outputs(&o, NULL) != 0)
        return EXIT_BAD_INPUT;
    char *name = import_default_name(&o);
    o.name = name;
    struct imp_host *h = xcalloc(1, sizeof *h);
    h->root = o.root;
    h->snap = o.snap;
    struct diag d = { 0 };
    struct hw_machine *near = NULL;
    rc = EXIT_BAD_INPUT;
    if (imp_host_read(h, &d) != 0) {
        fprintf(stderr, "pmlab import: %s\n", d.msg);
        goto out;
    }
    char cpu_model[HW_NAME_MAX];
    import_cpu_model(h, cpu_model, sizeof cpu_model);
    bool model_known = strncmp(cpu_model, "FAM", 3) != 0;
    struct import_topo t;
    import_topology(h, &t);
    const char *near_name = import_nearest(h, cpu_model, &t);
    char *dirs = scn_machine_search_path(NULL);
    char *near_path = hw_machine_find_path(near_name, dirs);
    near = near_path ? hw_machine_load(near_path, &d) : NULL;
    if (near && import_check_outputs(&o, near_path) != 0) {
        free(near_path);
        free(dirs);
        goto out;
    }
    free(near_path);
    if (!near)
        fprintf(stderr, "pmlab import: shipped machine %s (the nearest to this host) not found "
                        "in %s%s%s\n", near_name, dirs, d.msg[0] ? ": " : "", d.msg);
    free(dirs);
    if (!near)
        goto out;
    if (h->missing[0])
        fprintf(stderr, "pmlab import: warning: not found, left out or estimated: %s\n", h->missing);
    if (import_check_written(&o, h, near, cpu_model, model_known) != 0)
        goto out;
    struct out_file of;
    FILE *f = import_open(&of, o.out);
    if (!f)
        goto out;
    import_machine(f, &o, h, near, cpu_model, model_known);
    if (import_close(&of, f) != 0)
        goto out;
    if (o.out && strcmp(o.out, "-") != 0 && import_check_states(o.out, h) != 0)
        goto out;
    if (o.scenario) {
        f = import_open(&of, o.scenario);
        if (!f)
            goto out;
        import_scenario(f, &o, h);
        if (import_close(&of, f) != 0)
            goto out;
    }
    rc = 0;
out:
    hw_machine_free(near);
    imp_host_free(h);
    free(h);
    free(name);
    return rc;
}

const struct cli_command cli_import_command = {
    .name = "import",
    .summary = "write a machine file and scenario from a host or a snapshot",
    .main = import_main,
    .usage = import_usage,
};
