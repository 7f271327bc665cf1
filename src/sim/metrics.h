/* metrics: the metric sets and series a run fills, the bottom of the results
 * model.
 *
 * A job fills a struct rpt_metric_set (name -> value, with unit and which
 * direction is better, plus named tables such as jbb's RT curve): the
 * hardware, the kernel's idle and KVM code and the workloads each add theirs.
 * It lives in sim/ so that those layers write results without seeing the
 * report layer above them; report/results.h turns the sets of every
 * replication into summaries and comparisons and the formats render those.
 * The rpt_ names are kept from when this lived in report/: they name the
 * results model, which only the report layer renders. */
#ifndef PMLAB_SIM_METRICS_H
#define PMLAB_SIM_METRICS_H

#include <stdbool.h>

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

#define RPT_SERIES_MAX_COLS 16

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
/* Copy series src into dst (rows newly allocated; dst's old rows are not freed). */
void rpt_series_copy(struct rpt_series *dst, const struct rpt_series *src);

#endif
