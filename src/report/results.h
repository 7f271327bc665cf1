/* results: the immutable results model every report format renders.
 *
 * A job fills a struct rpt_metric_set (sim/metrics.h: name -> value, with unit
 * and which direction is better). The runner gathers one set per replication and variant;
 * rpt_variant_summarize() turns them into per-variant summaries (mean, stddev, 95 % CI
 * with Student t) and comparisons of every metric against the first variant
 * (paired or Welch t, report/inference.h: delta, its 95 % CI, p-values raw
 * and Holm-adjusted, verdict). Formats only read
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
    double ci_lo, ci_hi;     /* 95 % CI of the mean (Student t, n-1 df), cut to the
                              * metric's range (rpt_metric_range); NaN when n < 2:
                              * one replication has no interval */
    bool ci_cut;             /* the range cut an end of the t interval (then it is
                              * not symmetric about the mean) */
    double half_width;       /* the t interval's half-width before the cut (the
                              * precision --ci-target asks for); NaN when n < 2 */
};

/* The physical range of m, [*lo, *hi], from its unit: [0, 100] for a share
 * ("%"), [0, inf) for the nonnegative units (times, rates, power,
 * frequencies, scores, counts); false when the unit is not one of these or
 * a value of m lies outside (then no bound is claimed). */
bool rpt_metric_range(const struct rpt_metric *m, double *lo, double *hi);
/* The physical range of a metric in unit: shares ("%") are in [0, 100],
 * every other unit pmlab reports (times, rates, power, frequencies, scores,
 * counts) is nonnegative. *lo, *hi; false for a unit not known here. */
bool rpt_unit_range(const char *unit, double *lo, double *hi);
/* Whether m has at least 2 replications, all with the same value. */
bool rpt_metric_constant(const struct rpt_metric *m);

/* A series of one variant: one table per replication (in replication order). */
struct rpt_variant_series {
    char name[RPT_NAME_MAX];
    int nreps;
    struct rpt_series *rep;  /* [nreps] */
};

struct rpt_variant {
    char *name, *kernel, *patches, *cmdline, *sysfs, *config;
    char *workload;          /* its own workload keys, "key=value ..." (NULL or "": none) */
    char *settings;          /* its section's keys after --set, "KEY = VALUE" lines
                              * (scenario_variant.config_text); NULL = not recorded */
    struct rpt_metric *metrics;
    int nmetrics;
    struct rpt_variant_series *series;
    int nseries;
    /* Open-loop workloads (rpt_mark_saturation): served short of offered by
     * more than RPT_SATURATION_PCT; offered and served are the means. */
    bool saturated;
    double offered, served;
    /* Steady-state workloads (rpt_check_warmup): where MSER-5 puts the end of
     * the start-up transient, mean over the replications, and the configured
     * warm-up, in ms from the start of a run (NaN: not checked); warmup_short
     * when the first is later. */
    double transient_ms, warmup_ms;
    bool warmup_short;
};

/* The smallest change worth a verdict. A difference can be significant and
 * still too small to act on: at the RAPL limit pkg_watts sits on a few
 * levels 0.04 % apart, and 4 replications of one seed on one level against
 * 4 of another on the next gave Welch p = 1e-4 for a change no user would
 * act on (and 12 replications overlapped). So better/worse (higher/lower)
 * also needs |delta| of at least the threshold of the metric's class, in %
 * of the baseline mean; a significant change under it is "negligible".
 * Classes by unit and direction (rpt_metric_effect_class): power (W),
 * latency (a time: ns, us, ms, s), throughput (other higher-is-better
 * metrics: jOPS, scores, IOPS, rates), other (shares, frequencies, counts,
 * neutral metrics). The defaults are the limits of what a power or
 * performance change is usually reported to (0.5 %) and of run-to-run
 * latency jitter on real hosts (2 %); they are settable ([report]
 * min_effect_CLASS_pct) because what is worth acting on is the user's
 * call. 0 = no threshold. */
enum rpt_effect_class {
    RPT_EFFECT_POWER,
    RPT_EFFECT_THROUGHPUT,
    RPT_EFFECT_LATENCY,
    RPT_EFFECT_OTHER,
    RPT_NEFFECT_CLASSES
};
struct rpt_min_effect {
    double pct[RPT_NEFFECT_CLASSES]; /* % of the baseline mean, per class */
};
extern const struct rpt_min_effect rpt_min_effect_default;
/* "power", "throughput", "latency", "other". */
const char *rpt_effect_class_name(enum rpt_effect_class c);
/* The class named name, or -1. */
int rpt_effect_class_find(const char *name);
enum rpt_effect_class rpt_metric_effect_class(const char *unit, enum rpt_better better);

/* How a variant's metric was compared with the baseline's. */
enum rpt_test {
    RPT_TEST_NONE,           /* no test: fewer than 2 replications, or a value not finite */
    RPT_TEST_PAIRED,         /* paired t on per-replication differences (common random numbers) */
    RPT_TEST_WELCH,          /* Welch's t: independent samples */
    /* Samples a t test cannot judge (rpt_t_unsuited: a few discrete levels,
     * a constant side): the exact permutation tests of inference.h. */
    RPT_TEST_SIGNFLIP,       /* paired: sign flips of the per-replication differences */
    RPT_TEST_PERMUTATION,    /* unpaired: splits of the pooled values (Fisher-Pitman) */
};

struct rpt_comparison {
    char metric[RPT_NAME_MAX];
    const char *base, *variant;   /* variant names (owned by the variants) */
    enum rpt_test test;
    int n_base, n_variant;        /* replications on each side (pairs: equal) */
    double delta;                 /* mean_v - mean_b, in the metric's unit */
    double ci_lo, ci_hi;          /* its 95 % CI, cut where the variant's mean would
                                   * leave the metric's range (rpt_metric_range, from
                                   * the baseline's mean); NaN without a test */
    bool ci_cut;                  /* the range cut an end of the test's interval */
    bool constant;                /* both sides constant (rpt_metric_constant): the
                                   * delta is what it is; no interval is shown */
    double delta_pct;             /* 100 delta / |mean_b|; NaN when mean_b = 0 */
    double ci_lo_pct, ci_hi_pct;  /* the CI in % of |mean_b|; NaN without a test or % */
    /* Near-zero baseline: the report shows delta in delta_unit (percentage
     * points "pp" for a share, else the metric's unit) instead of %. */
    bool absolute;
    char delta_unit[RPT_UNIT_MAX];
    double p_value;               /* two-sided, of the test; NaN without a test */
    double p_min;                 /* permutation tests: the smallest p the replications
                                   * allow (0 for a t test) */
    double rearrangements;        /* permutation tests: rearrangements weighed; 0 else */
    bool exact;                   /* permutation tests: all of them (else Monte-Carlo) */
    double p_adjusted;            /* Holm over the variant's family (host-wide or cpus.*);
                                   * NaN without a test */
    enum rpt_effect_class effect_class;
    double min_effect_pct;        /* the class's threshold, % of |mean_b| */
    /* better | worse | negligible | noise (higher | lower | negligible |
     * noise for neutral metrics): noise unless p_adjusted < RPT_ALPHA, then
     * negligible when |delta_pct| < min_effect_pct, else the delta's sign;
     * n/a without a test. */
    const char *verdict;
};

/* One value of the scenario's [measured] section: what a real host measured
 * under the name of the metric pmlab reports (docs/scenario-files.md). The
 * reports set it beside each variant's prediction with the gap. */
struct rpt_measured {
    char metric[RPT_NAME_MAX];
    double value;
};

struct rpt_results {
    char *scenario, *description, *machine, *machine_desc;
    uint64_t seed;
    int reps;
    bool quick;
    /* Replication r of every variant shares the workload's random numbers
     * (common random numbers), so comparisons are paired. False for
     * `compare` of files whose runs do not pair; unpaired_why says why. */
    bool paired;
    const char *unpaired_why;     /* static text; NULL when paired */
    char *cpus;              /* the CPU list of the cpus.* metrics ("0-15"); NULL = none */
    char *primary;           /* the primary metric's name (the workload's headline or
                              * --primary); NULL = none */
    /* An open-loop workload's offered and served rate metrics, whose
     * comparison marks saturated variants; NULL = closed loop. */
    char *offered_metric, *served_metric;
    struct rpt_variant *variants;
    int nvariants;
    struct rpt_comparison *cmp;
    int ncmp;
    /* Thresholds of the verdicts (rpt_compare_all); all 0 (as memset leaves
     * them) judges on p alone. */
    struct rpt_min_effect min_effect;
    struct rpt_measured *measured; /* [measured], in file order; NULL = none */
    int nmeasured;
    /* What the run was, besides its variants (scenario.config_text): the
     * canonical text of the shared configuration and its SHA-256 (hex), the
     * --set overrides as given, the git commit of the binary. NULL / "" /
     * 0: not recorded (a compare of files saved before it was). */
    char *config_text;
    char config_sha256[65];
    char **sets;
    int nsets;
    char *commit;
};

/* Variant v's prediction of the measured value mv: its metric of that name
 * (NULL when v reports none; then *gap and *gap_pct are NaN), *gap = mean -
 * measured in the metric's unit, *gap_pct = 100 gap / |measured| (NaN when
 * the measured value is 0). */
const struct rpt_metric *rpt_measured_gap(const struct rpt_variant *v,
                                          const struct rpt_measured *mv, double *gap,
                                          double *gap_pct);

/* An open-loop variant whose mean served rate is below the mean offered rate
 * by more than this share is saturated. In a stable system the shortfall is
 * only the requests still in flight when the window closes (the response
 * time over the window, well under 1 %); 5 % leaves room for a heavily
 * loaded but stable system while a queue that grows all run long, and the
 * latencies that measure only that queue, are caught. */
#define RPT_SATURATION_PCT 5.0

/* Fill variant v's summaries from sets[rep] (reps sets, one per replication).
 * Metric order is the order of first appearance. */
void rpt_variant_summarize(struct rpt_variant *v, const struct rpt_metric_set *sets, int reps);
/* Mark every variant of r saturated or not from its metrics offered and
 * served (an open-loop workload's, wl_ops); r->open_loop records them. A
 * variant lacking either is not marked. */
void rpt_mark_saturation(struct rpt_results *r, const char *offered, const char *served);
/* Check every variant's warm-up from its series "steady_state" (one row per
 * replication: mser5_ms, warmup_ms; wl_put_steady_state). The mean over
 * replications, not the worst: MSER-5 on one noisy run can land late by
 * chance, a transient that outlasts the warm-up does so on average. A
 * saturated variant (rpt_mark_saturation first) is not flagged: it never
 * settles, and its saturation says more. */
void rpt_check_warmup(struct rpt_results *r);
/* Compute r->cmp: every metric of every variant after the first against the
 * first variant (metrics absent from either side are skipped), paired when
 * r->paired, then Holm's adjustment over each variant's host-wide metrics
 * and, separately, over its cpus.* metrics, and the verdicts. */
void rpt_compare_all(struct rpt_results *r);
/* One comparison, without the multiple-comparison step: p_adjusted =
 * p_value and the verdict from it. Paired needs base->n == var->n, else, or
 * when every pair differs by the same amount although the values vary (a
 * quantized metric), unpaired. Either way a sample a t test cannot judge
 * (rpt_t_unsuited; for pairs, rpt_sample_discrete of the differences) gets
 * the permutation test instead: sign flips paired, splits unpaired, whose
 * Monte-Carlo draws (many replications only) come from a stream seeded by
 * seed. min_effect NULL: no threshold. Exposed for the tests. */
void rpt_compare_metric(const struct rpt_metric *base, const struct rpt_metric *var, bool paired,
                        uint64_t seed, const struct rpt_min_effect *min_effect,
                        struct rpt_comparison *out);
const struct rpt_metric *rpt_variant_metric(const struct rpt_variant *v, const char *name);
/* The mean of metric name in v, or missing if v has no such metric. */
double rpt_variant_mean(const struct rpt_variant *v, const char *name, double missing);
/* The comparison of metric in variant against the first variant, or NULL. */
const struct rpt_comparison *rpt_find_comparison(const struct rpt_results *r, const char *variant,
                                                 const char *metric);
/* "paired-t" / "welch-t" / "sign-flip" / "permutation" / "none": a test's
 * name in JSON and CSV. */
const char *rpt_test_name(enum rpt_test t);
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
