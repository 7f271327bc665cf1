/* summary: a sweep database summarised per point, variant and metric (mean
 * and 95 % CI over the replications), as a table, CSV and plots. */
#ifndef PMLAB_SWEEP_SUMMARY_H
#define PMLAB_SWEEP_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "report/results.h"
#include "scenario/scenario.h"

struct sweep_cell {
    long point;                 /* index into sweep_summary.points */
    int variant;                /* index into sweep_summary.variants */
    int metric;                 /* index into sweep_summary.metrics */
    int n;                      /* replications with a value */
    double mean, ci_lo, ci_hi;  /* NaN when n == 0; the CI NaN when n < 2; cut to the
                                 * unit's range as a run's (rpt_unit_range) */
    bool ci_cut;                /* the range cut an end of the t interval */
    bool constant;              /* n >= 2 values, all equal */
};

struct sweep_summary {
    char *scenario;
    int naxes;
    char **axis_keys;           /* [naxes] */
    long npoints;               /* points present in the database */
    long *point_ids;            /* [npoints] */
    char **axis_values;         /* [npoints * naxes] */
    char (*variants)[SCN_NAME_MAX];
    int nvariants;
    char (*metrics)[RPT_NAME_MAX];
    char (*units)[RPT_UNIT_MAX];
    int nmetrics;
    struct sweep_cell *cells;   /* (point, variant, metric) where present */
    long ncells;
    char *primary;              /* the primary metric, NULL if none */
    const char *power;          /* "pkg_watts" when reported, else NULL */
    int reps;
};

/* Read db. primary: the primary metric (NULL: the one stored). 0, or an
 * exit status with msg: STORE_BAD_INPUT (not a sweep database, a bad value,
 * an unknown --primary) or STORE_FAILED (corrupt, I/O; sweep/store.h). */
int sweep_summary_load(struct sweep_summary *s, const char *db, const char *primary, char *msg,
                       size_t msgsize);
void sweep_summary_free(struct sweep_summary *s);
/* One line per point and variant: the axes, the primary metric and power
 * with their 95 % CIs. */
void sweep_summary_table(const struct sweep_summary *s, FILE *out);
/* One row per point, variant and metric: point, the axes, variant, metric,
 * unit, n, mean, ci95_lo, ci95_hi. */
void sweep_summary_csv(const struct sweep_summary *s, FILE *out);
/* A CSV field: quoted when it holds a comma, quote or line break. */
void sweep_csv_field(FILE *out, const char *text);
/* Plots into dir: every metric against the first grid key with a 95 % CI
 * band per variant (and per value of the other keys), and power against
 * the primary metric per variant. The number of plots, 0 when gnuplot is
 * missing (msg says so), or -1 with msg. */
int sweep_summary_plot(const struct sweep_summary *s, const char *dir, char *msg, size_t msgsize);

#endif
