/* results: the immutable results model every report format renders.
 *
 * A job fills a struct rpt_metric_set (name -> value, with unit and which
 * direction is better). The runner gathers one set per replication and variant;
 * rpt_summarize() turns them into per-variant summaries (mean, stddev, 95 % CI
 * with Student t) and comparisons of every metric against the first variant
 * (Welch's t-test: delta %, its 95 % CI, p-value, verdict). Formats only read
 * this model, so a new metric touches no format. */
#ifndef PMLAB_REPORT_RESULTS_H
#define PMLAB_REPORT_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RPT_NAME_MAX 48
#define RPT_UNIT_MAX 12

enum rpt_better {
    RPT_LOWER_BETTER = -1,
    RPT_NEUTRAL = 0,        /* a change is reported as "higher"/"lower", not judged */
    RPT_HIGHER_BETTER = 1,
};

struct rpt_metric_value {
    char name[RPT_NAME_MAX];
    char unit[RPT_UNIT_MAX];
    enum rpt_better better;
    double value;
};

#define RPT_SERIES_MAX_COLS 8

/* A named table a run produces besides its metrics (jbb's RT curve: one row
 * per injection step). Rows are doubles, row-major. */
struct rpt_series {
    char name[RPT_NAME_MAX];
    int ncols;
    char cols[RPT_SERIES_MAX_COLS][RPT_NAME_MAX];
    double *rows;            /* [nrows * ncols] */
    int nrows, caprows;
};

struct rpt_metric_set {
    struct rpt_metric_value *m;
    int n, cap;
    struct rpt_series *series;
    int nseries;
};

/* Set (or replace) metric name in s. */
void rpt_set_put(struct rpt_metric_set *s, const char *name, const char *unit,
                 enum rpt_better better, double value);
const struct rpt_metric_value *rpt_set_get(const struct rpt_metric_set *s, const char *name);

/* The CPUs a group of per-CPU metrics covers, as turbostat --cpu restricts
 * its per-thread columns. The host-wide metrics cover every CPU under their
 * plain names (rpt_scope_host); with [report] cpus or --cpus LIST the same
 * quantities are added over the listed CPUs, named RPT_CPUS_PREFIX NAME
 * ("cpus.busy_pct", "cpus.residency.C1E"). */
#define RPT_CPUS_PREFIX "cpus."
struct rpt_cpu_scope {
    const bool *cpus;        /* [ncpus of the machine]: the CPUs covered, never none;
                              * NULL = all */
    const char *prefix;      /* "" or RPT_CPUS_PREFIX */
};
extern const struct rpt_cpu_scope rpt_scope_host;

static inline bool rpt_scope_has(const struct rpt_cpu_scope *sc, int cpu)
{
    return !sc->cpus || sc->cpus[cpu];
}
/* How many of CPUs 0 .. ncpus-1 the scope covers. */
int rpt_scope_ncpus(const struct rpt_cpu_scope *sc, int ncpus);
/* rpt_set_put / rpt_set_get of the scope's name for name (prefix + name).
 * The name must fit in RPT_NAME_MAX with the prefix: callers check their
 * longest names at compile time against RPT_SCOPED_NAME_MAX. */
void rpt_scope_put(struct rpt_metric_set *s, const struct rpt_cpu_scope *sc, const char *name,
                   const char *unit, enum rpt_better better, double value);
const struct rpt_metric_value *rpt_scope_get(const struct rpt_metric_set *s,
                                             const struct rpt_cpu_scope *sc, const char *name);
/* The longest metric name that still fits with RPT_CPUS_PREFIX, in bytes
 * with its NUL. */
#define RPT_SCOPED_NAME_MAX (RPT_NAME_MAX - (int)sizeof RPT_CPUS_PREFIX + 1)
/* Append a row to series name of s, creating it with columns cols[ncols] on
 * first use (later calls must pass the same columns). */
void rpt_set_series_row(struct rpt_metric_set *s, const char *name, const char *const *cols,
                        int ncols, const double *row);
const struct rpt_series *rpt_set_series(const struct rpt_metric_set *s, const char *name);
/* Copy metrics and series of src into dst. */
void rpt_set_copy(struct rpt_metric_set *dst, const struct rpt_metric_set *src);
void rpt_set_free(struct rpt_metric_set *s);

/* One metric of one variant over its replications. */
struct rpt_metric {
    char name[RPT_NAME_MAX];
    char unit[RPT_UNIT_MAX];
    enum rpt_better better;
    double *values;          /* [n], in replication order */
    int n;
    double mean, stddev;     /* sample stddev; 0 when n < 2 */
    double ci_lo, ci_hi;     /* 95 % CI of the mean (Student t, n-1 df); = mean when n < 2 */
};

/* A series of one variant: one table per replication (in replication order). */
struct rpt_variant_series {
    char name[RPT_NAME_MAX];
    int nreps;
    struct rpt_series *rep;  /* [nreps] */
};

struct rpt_variant {
    char *name, *kernel, *patches, *cmdline, *sysfs, *config;
    struct rpt_metric *metrics;
    int nmetrics;
    struct rpt_variant_series *series;
    int nseries;
};

struct rpt_comparison {
    char metric[RPT_NAME_MAX];
    const char *base, *variant;   /* variant names (owned by the variants) */
    double delta_pct;             /* 100 (mean_v - mean_b) / |mean_b| */
    double ci_lo_pct, ci_hi_pct;  /* 95 % CI of the delta, Welch-Satterthwaite */
    double p_value;               /* two-sided Welch t-test; 1 when undefined; NaN as verdict */
    const char *verdict;          /* better | worse | noise (higher | lower for neutral metrics);
                                   * NULL when a side has no usable values (NaN) */
};

struct rpt_results {
    char *scenario, *description, *machine, *machine_desc;
    uint64_t seed;
    int reps;
    bool quick;
    char *cpus;              /* the CPU list of the cpus.* metrics ("0-15"); NULL = none */
    struct rpt_variant *variants;
    int nvariants;
    struct rpt_comparison *cmp;
    int ncmp;
};

/* Fill variant v's summaries from sets[rep] (reps sets, one per replication).
 * Metric order is the order of first appearance. */
void rpt_variant_summarize(struct rpt_variant *v, const struct rpt_metric_set *sets, int reps);
/* Compute r->cmp: every metric of every variant after the first against the
 * first variant (metrics absent from either side are skipped). */
void rpt_compare_all(struct rpt_results *r);
/* One comparison by Welch's test; exposed for the tests. */
void rpt_compare_metric(const struct rpt_metric *base, const struct rpt_metric *var,
                        struct rpt_comparison *out);
const struct rpt_metric *rpt_variant_metric(const struct rpt_variant *v, const char *name);
/* The mean of metric name in v, or missing if v has no such metric. */
double rpt_variant_mean(const struct rpt_variant *v, const char *name, double missing);
/* The comparison of metric in variant against the first variant, or NULL. */
const struct rpt_comparison *rpt_find_comparison(const struct rpt_results *r, const char *variant,
                                                 const char *metric);
void rpt_results_free(struct rpt_results *r);

/* Output formats, one file each, registered by name. */
struct rpt_format {
    const char *name;
    void (*render)(const struct rpt_results *r, FILE *out);
};
extern const struct rpt_format *const rpt_formats[];
const struct rpt_format *rpt_format_find(const char *name);

#define PMLAB_VERSION "0.1.0"

#endif
