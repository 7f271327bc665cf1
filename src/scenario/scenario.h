/* scenario: an experiment file (scenarios/NAME.ini), parsed and validated.
 *
 *   [scenario]   name, description, machine, seed, replications
 *   [workload]   type = NAME, then that workload's parameters
 *   [quick]      replications and workload keys that --quick overrides
 *   [variant X]  kernel, patches, cmdline, sysfs, config (one section each),
 *                and workload.KEY: that variant's own value of a workload key
 *   [vm X]       a guest: vcpus, pin, guest_cpuidle, ... (docs/vms.md)
 *   [device X]   a platform device: cpu, irq_hz, pkg_limit, active_ms (hw/device.h)
 *   [report]     cpus = LIST: also report the per-CPU metrics over these CPUs;
 *                min_effect_CLASS_pct = P: the practical threshold of a class
 *   [sweep]      SECTION.KEY = V1, V2, ...: the grid of `pmlab sweep`
 *                (sweep/sweep.h; a run ignores it)
 *
 * Everything is checked at load time against the machine, the knob registry
 * and the workload's parameter table, so a run never starts on a typo: the
 * first problem comes back as "FILE:LINE: message" (exit status 2). */
#ifndef PMLAB_SCENARIO_SCENARIO_H
#define PMLAB_SCENARIO_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/device.h"
#include "hw/machine.h"
#include "kernel/kvm/kvm.h"
#include "kernel/params.h"
#include "report/results.h"
#include "util/diag.h"
#include "workload/workload.h"

#define SCN_NAME_MAX 64

struct scenario_variant {
    char name[SCN_NAME_MAX];
    int line;                   /* of its [variant NAME] header */
    /* The text as written (continuation lines joined by a space), for reports. */
    char *kernel, *patches, *cmdline, *sysfs, *config;
    struct kparams kp;          /* resolved kernel settings */
    char *workload;             /* its workload.KEY = VALUE lines as "KEY=VALUE ..." */
    /* The workload configuration with its workload.KEY lines applied (full
     * and --quick); NULL when it has none: the scenario's. */
    void *wl_cfg, *wl_cfg_quick;
    /* Its section's keys after every --set, one "KEY = VALUE" line each
     * (scenario_config_text's rule): what it runs besides the shared part. */
    char *config_text;
};

/* One [measured] value: a metric as a real host measured it. */
struct scenario_measured {
    char metric[RPT_NAME_MAX];
    double value;
    int line;
};

struct scenario {
    char *path;                 /* as given (owned) */
    char name[SCN_NAME_MAX];
    char *description;
    char machine_name[SCN_NAME_MAX];
    struct hw_machine *machine; /* owned */
    uint64_t seed;
    int replications;
    int quick_replications;
    const struct wl_ops *wl;
    void *wl_cfg;               /* full configuration */
    void *wl_cfg_quick;         /* with [quick] overrides applied */
    struct scenario_variant *variants;
    int nvariants;
    struct kvm_vm_config *vms;  /* [vm NAME] sections, in file order */
    int nvms;
    struct hw_device_config *devices; /* [device NAME] sections, in file order */
    int ndevices;
    bool *report_cpus;          /* [machine->ncpus]: [report] cpus; NULL when not set */
    struct rpt_min_effect min_effect; /* [report] min_effect_CLASS_pct (results.h) */
    bool report_per_cpu;        /* --per-cpu: the per_cpu and per_type.* series */
    int64_t report_interval_ms; /* --interval: the interval series' period; 0 = none */
    /* --trace DIR: the first replication of each variant (first load point)
     * is traced into DIR/VARIANT.dat (trace/record.h), keeping the window
     * trace_window_ms (from the measurement's start; end -1: its end) and at
     * most trace_max_mib MiB of events. NULL: no trace. */
    const char *trace_dir;
    int64_t trace_window_ms[2];
    int64_t trace_max_mib;
    bool trace_quiet;           /* --quiet: no line per trace written */
    /* [report] trace = DIR, trace_window = START:END, trace_max_mib = N:
     * what --trace, --trace-window and --trace-max-mib default to (DIR
     * relative to the current directory, as --trace's). report_trace_dir
     * NULL: not set; report_trace_max_mib 0: not set. */
    char *report_trace_dir;
    int64_t report_trace_window_ms[2];
    int64_t report_trace_max_mib;
    bool *wl_affinity;          /* [machine->ncpus]: [workload] affinity, the CPUs the
                                 * workload's threads may run on; NULL: every CPU */
    struct scenario_measured *measured; /* [measured], in file order */
    int nmeasured;
    /* The configuration every variant shares, resolved (config_text, with
     * its SHA-256 as hex): see scenario_load. */
    char *config_text;
    char config_sha256[65];
    char **sets;                /* the --set texts as given, in order */
    int nsets;
};

struct scenario_load_opts {
    /* Colon-separated directories searched for the machine file; NULL means
     * scn_machine_search_path(the scenario's path), the documented order
     * (scenario/machine_path.h). */
    const char *machine_dirs;
    /* --set SECTION.KEY=VALUE texts, applied after the file as if written at
     * the end of that section: SECTION is scenario, workload, quick, report,
     * variant.NAME (variant.* = every variant) or vm.NAME. A key of a
     * variant's cmdline, sysfs, config or patches adds to what the file has
     * (the kernel's rule: the last value given wins); any other key replaces
     * the file's value. Errors name the --set text. */
    const char *const *sets;
    int nsets;
    /* [nsets] or NULL: what names each set in messages ("--grid
     * workload.load=7"); a NULL entry is "--set TEXT". */
    const char *const *set_labels;
};

/* Load and validate path. NULL with d set on any error.
 *
 * s->config_text records what every variant shares, so that two runs can be
 * told apart by more than their names (compare refuses to pair runs made
 * with different settings): one line per key of every section but the
 * variants' and [sweep] (a run ignores it), "SECTION.KEY = VALUE" in file
 * order after the --set overrides (a replaced key appears once, with its new
 * value; "+=" marks a continuation line), then each --set machine.* override,
 * then the SHA-256 of the machine file and of every workload input file the
 * shared configuration names (their contents are part of what ran; not
 * their paths, so a run from another directory records the same text). The
 * seed and the replication count are not in it: they decide pairing, not
 * what a run is. Each variant's own keys are its config_text. */
struct scenario *scenario_load(const char *path, const struct scenario_load_opts *opts,
                               struct diag *d);
/* Report the cpus.* metrics over the CPUs of list (the kernel's cpulist
 * format, util/cpulist.h), replacing [report] cpus: what --cpus does.
 * Returns 0, or -1 with msg = what is wrong, the setting unchanged. */
int scenario_set_report_cpus(struct scenario *s, const char *list, char *msg, size_t msgsize);
void scenario_free(struct scenario *s);
/* The files s was read from: the scenario file, its machine file and every
 * workload input file (the scenario's and each variant's, full and quick),
 * at most SCN_MAX_INPUTS into in (owned by s, repeats possible), each with
 * what it is ("the scenario"); returns how many. What an output must not
 * replace (cli/output.h out_check_not_input). */
#define SCN_MAX_INPUTS 64
struct scenario_inputs {
    const char *path[SCN_MAX_INPUTS], *what[SCN_MAX_INPUTS];
    int n;
};
int scenario_input_files(const struct scenario *s, struct scenario_inputs *in);
/* The workload configuration variant v runs (its own, or the scenario's). */
const void *scenario_wl_cfg(const struct scenario *s, int v, bool quick);

#endif
