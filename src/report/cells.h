/* cells: the text of the report's cells, shared by the table format and the
 * HTML report (report/htmlreport.c) so that both show the same numbers. */
#ifndef PMLAB_REPORT_CELLS_H
#define PMLAB_REPORT_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/results.h"

/* "mean ± half (n)", the 95 % CI half-width beside the replication count;
 * "mean ± n/a (1)" without an interval, "n/a (n)" without a mean. */
void rpt_cell_mean_ci(const struct rpt_metric *m, char *buf, size_t size);
/* A comparison's delta ("+1.23%" or "+0.5 pp"), its CI with the
 * replications behind it, and the raw and Holm-adjusted p-values ("n/a"
 * without a test). */
void rpt_cell_delta(const struct rpt_comparison *c, char *delta, size_t dsize, char *ci,
                    size_t csize, char *p, char *padj, size_t psize);
/* Metrics shown in the turbostat and idle-state views rather than the
 * metrics table (residency.*, core_residency.*, pkg_residency.*, above_pct.*,
 * below_pct.*, host-wide or cpus.*). */
bool rpt_is_turbostat_metric(const char *name);
/* turbostat's column name of a residency metric: residency.C1 -> C1%,
 * core_residency.C6 -> CPU%c6, pkg_residency.PC6 -> Pkg%pc6; else NULL. */
const char *rpt_turbostat_column(const char *metric, char *buf, size_t size);
/* The residency prefixes in turbostat's column order: cpuidle states, core
 * states, package states. */
extern const char *const rpt_turbostat_prefixes[3];
/* The mean of metric prefix+name in var, or NAN. */
double rpt_prefixed_mean(const struct rpt_variant *var, const char *prefix, const char *name);

/* The mean over vs's replications of column col of row (NAN: none has it). */
double rpt_series_mean(const struct rpt_variant_series *vs, int row, int col);
/* turbostat's name of a series column (busy_pct -> Busy%, residency.C6 ->
 * C6%, cpu -> CPU), else the column's own name. */
const char *rpt_series_column(const char *col, char *buf, size_t size);
/* Decimals of a turbostat view's column: none for MHz, CPU numbers and
 * counts and times, else 2. */
int rpt_series_prec(const char *col);
/* The next of var's series from index *k on whose name starts with prefix
 * and which has replications, *k moved past it; NULL when there is none. */
const struct rpt_variant_series *rpt_series_next(const struct rpt_variant *var,
                                                 const char *prefix, int *k);
/* How the deltas were tested and what the verdicts mean (lines of text;
 * nothing with one variant). */
void rpt_table_method(const struct rpt_results *r, FILE *out);
/* The notes under the metrics: why a row says n/a, what a delta not in %
 * is (lines of text; nothing when no row needs one). */
void rpt_table_notes(const struct rpt_results *r, FILE *out);

#endif
