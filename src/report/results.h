/* results: the immutable results model every report format renders.
 *
 * A job fills a struct rpt_metric_set (sim/metrics.h: name -> value, with unit
 * and which direction is better). The runner gathers one set per replication and variant;
 * rpt_summarize() turns them into per-variant summaries (mean, stddev, 95 % CI
 * with Student t) and comparisons of every metric against the first variant
 * (Welch's t-test: delta %, its 95 % CI, p-value, verdict). Formats only read
 * this model, so a new metric touches no format. */
#ifndef PMLAB_REPORT_RESULTS_H
#define PMLAB_REPORT_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/metrics.h"

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
    double p_value;               /* two-sided Welch t-test; 1 when undefined */
    const char *verdict;          /* better | worse | noise (higher | lower for neutral metrics) */
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
