/* workload: what runs on the simulated machine, behind one ops struct.
 *
 * A workload declares its parameters (the keys of a scenario's [workload]
 * section) in a table, like module_param, so parsing, range checks, defaults
 * and `pmlab params`-style help are generic. A run of one job is
 * run(world, cfg, load_point); it fills the metrics of that load point. The
 * runner then calls combine() over the load points of one replication to get
 * the replication's metric values (jbb turns an RT curve into max-jOPS there;
 * a single-point workload just copies). Metrics are named as in DESIGN.md §7. */
#ifndef PMLAB_WORKLOAD_WORKLOAD_H
#define PMLAB_WORKLOAD_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/metrics.h"
#include "sim/time.h"
#include "util/diag.h"

struct world;
struct hw_machine;

enum wl_param_type {
    WL_PARAM_DOUBLE,  /* stored as double */
    WL_PARAM_INT,     /* stored as int64_t */
    WL_PARAM_FILE,    /* a file the workload reads when the scenario loads (ops->load_file),
                       * relative to the scenario's directory; stored as struct wl_file *,
                       * NULL while unset (default "") */
    WL_PARAM_CPU_VALUES, /* one number for every CPU, or one per CPU in CPU order,
                          * separated by blanks; stored as struct wl_cpu_values
                          * (default "": unset) */
    WL_PARAM_TEXT,    /* a word or list, stored as char[WL_TEXT_MAX] (the workload's
                       * validate() checks it); min, max unused */
};

/* Most values a WL_PARAM_CPU_VALUES list holds: pmlab import's CPU limit. */
#define WL_CPU_VALUES_MAX 1024

/* A WL_PARAM_CPU_VALUES parameter: n = 0 unset, 1 the same for every CPU,
 * else one per CPU (the scenario checks n against the machine's CPUs). */
struct wl_cpu_values {
    int n;
    double v[WL_CPU_VALUES_MAX];
};

/* The value of cpu in cv, or def when cv is unset. */
double wl_cpu_value(const struct wl_cpu_values *cv, int cpu, double def);

#define WL_TEXT_MAX 128

/* A workload's input file, read once and shared read-only by every run and by
 * the full and quick configurations (reference counted: wl_config_copy,
 * wl_config_release). */
struct wl_file {
    int refs;
    char *path;               /* as opened */
    void *data;               /* ops->load_file's result */
    void (*free_data)(void *data);
};

struct wl_param {
    const char *name;        /* key in [workload], unit suffix in the name */
    enum wl_param_type type;
    size_t offset;           /* into the workload's config struct */
    double min, max;         /* inclusive range */
    const char *def;         /* default as text */
    const char *desc;
};

struct explain;

struct wl_ops {
    const char *name;        /* `type = NAME` */
    const char *desc;
    /* The headline metric, the number a user of the benchmark quotes: what
     * --ci-target replicates for and the primary plot shows (--primary
     * chooses another). */
    const char *primary_metric;
    /* Open-loop workloads: the metrics of the offered and the served rate,
     * in the same unit. A variant serving less than it is offered, beyond
     * RPT_SATURATION_PCT, is saturated: its latencies measure a queue that
     * grows for as long as the run lasts (NULL: closed loop, the work
     * waits for the system, never saturated). */
    const char *offered_metric, *served_metric;
    const struct wl_param *params;  /* terminated by name NULL */
    size_t config_size;
    /* Cross-parameter checks after every key is set; -1 with msg on error. */
    int (*validate)(const void *cfg, char *msg, size_t msgsize);
    int (*nload_points)(const void *cfg);
    /* Run one load point in w (machine, kernel settings and rng set up by the
     * runner) and put its metrics in out. Returns 0, or -1 with msg if the run
     * failed (exit status 1). */
    int (*run)(struct world *w, const void *cfg, int load_point, struct rpt_metric_set *out,
               char *msg, size_t msgsize);
    /* Merge the load points of one replication into out (NULL: the workload
     * has exactly one load point and its metrics are used as they are). */
    void (*combine)(const void *cfg, const struct rpt_metric_set *points, int npoints,
                    struct rpt_metric_set *out);
    /* WL_PARAM_FILE: read and check path; NULL with d = "PATH:LINE: what is
     * wrong" (exit status 2). Warnings (keys ignored) go to stderr. */
    void *(*load_file)(const char *path, struct diag *d);
    void (*free_file)(void *data);
    /* Checks against the scenario's machine (CPU numbers a file or key
     * names); -1 with *key = the parameter at fault and msg = what is wrong
     * (exit status 2, at that key's line). NULL: none. */
    int (*check_machine)(const void *cfg, const struct hw_machine *m, const char **key,
                         char *msg, size_t msgsize);
    /* It runs inside the scenario's first [vm]: loading a scenario without
     * one is an error at its `type` line, not a failure of every job. */
    bool needs_vm;
    /* `pmlab explain`: the scheduling class and priority of its tasks, one
     * "workload: ..." line each (NULL: every task is SCHED_OTHER). */
    void (*explain)(const void *cfg, struct explain *x);
};

/* A steady-state workload's warm-up check (sim/steady.h) into out, as the
 * series "steady_state" with one row (mser5_ms, warmup_ms): where MSER-5
 * puts the end of the run's start-up transient (-1: too few observations)
 * and the configured warm-up, both from the start of the run. The report
 * warns when the first is later (rpt_check_warmup). */
void wl_put_steady_state(struct rpt_metric_set *out, sim_time_t transient_end_ns,
                         sim_time_t warmup_ns);

struct task;
/* Restrict t to the scenario's [workload] affinity, if any (before it is
 * forked or woken). The only way a workload places a thread by hand. */
void wl_task_affinity(const struct world *w, struct task *t);
/* A new thread t, forked from parent_cpu with work_ns of reference work and
 * done() to run when it ends: task_init, the [workload] affinity, then the
 * kernel's fork placement (task_fork). */
void wl_task_spawn(struct world *w, struct task *t, void (*done)(struct world *, struct task *),
                   double work_ns, int parent_cpu);
/* wl_task_spawn with the task's name in a trace (comm: static text). */
void wl_task_spawn_named(struct world *w, struct task *t, const char *comm,
                         void (*done)(struct world *, struct task *), double work_ns,
                         int parent_cpu);
/* The speed of machine CPU cpu running alone at its core type's top
 * frequency (single-core turbo, else max_mhz) relative to the reference
 * (hw/cpu.h: type 0 at base frequency): the reference work it does in 1 ns.
 * What a calibrated busy loop (rt-app's run) or a recorded burst measures. */
double wl_cpu_top_speed(const struct hw_machine *m, int cpu);
/* The CPU a workload process is started from (its first thread's parent):
 * the boot CPU, 0. Where a shell or launcher ran is not modelled. */
#define WL_LAUNCH_CPU 0

/* Registered workloads, NULL-terminated. */
extern const struct wl_ops *const wl_registry[];
const struct wl_ops *wl_find(const char *name);

/* Fill cfg with every parameter's default. */
void wl_config_defaults(const struct wl_ops *ops, void *cfg);
/* Copy a configuration, sharing its files (memcpy would not count them). */
void wl_config_copy(const struct wl_ops *ops, void *dst, const void *src);
/* Drop cfg's references to its files (cfg's memory stays the caller's). */
void wl_config_release(const struct wl_ops *ops, void *cfg);
/* The paths of cfg's input files (file parameters that are set), at most
 * max into paths (owned by cfg); returns how many. */
int wl_config_files(const struct wl_ops *ops, const void *cfg, const char **paths, int max);
/* The parameter key of ops, or NULL. */
const struct wl_param *wl_param_find(const struct wl_ops *ops, const char *key);
/* Check the WL_PARAM_CPU_VALUES parameters of cfg against a machine of
 * ncpus CPUs: -1 with msg (naming the key in *bad_key) when a list has
 * neither one value nor one per CPU. */
int wl_config_check_cpus(const struct wl_ops *ops, const void *cfg, int ncpus,
                         const char **bad_key, char *msg, size_t msgsize);
/* Set one parameter from text. Returns 0, or -1 with d = "file:line: ...";
 * a file parameter's errors are the file's own ("x.json:12: ..."). */
int wl_config_set(const struct wl_ops *ops, void *cfg, const char *key, const char *value,
                  const char *file, int line, struct diag *d);

#endif
