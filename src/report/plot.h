/* plot: figures of a result with gnuplot (optional at run time).
 *
 * For each plot, a data file and a gnuplot script are written to the output
 * directory, then gnuplot renders a PNG (pngcairo) and an SVG, so a user can
 * edit and re-render the script. Plots: the RT curve (jbb: p99 response time
 * against injection rate per variant, the five SLA lines, max-jOPS marked),
 * per-state residency as stacked bars per variant, the primary metric and
 * package power per variant with 95 % CI whiskers, response time by
 * percentile on a log tail axis (workloads that report a latency_cdf series)
 * and the governor's above/below shares per state. The RT curve and the
 * response times are the median over all replications with a band from the
 * least to the greatest, not one replication. */
#ifndef PMLAB_REPORT_PLOT_H
#define PMLAB_REPORT_PLOT_H

#include <stddef.h>

#include "report/results.h"

/* Whether gnuplot can be run (found on PATH). */
int rpt_plot_available(void);
/* Write every plot that applies to r into dir (which must exist and be
 * writable). Returns the number of plots rendered, 0 if gnuplot is missing
 * (msg says so), or -1 with msg on an error. The names of the files written
 * are appended to msg's caller through list (NULL to skip). */
int rpt_plot_all(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize);


/* One plot of another writer (sweep/summary.c), with this file's
 * conventions: DIR/NAME.dat and DIR/NAME.gp, a script naming no path
 * (gnuplot runs in DIR), PNG and SVG. open writes the header (title and
 * axis labels); the caller writes the data and the plot command, then
 * render (1, or -1 with msg) or discard. NULL with msg when a file cannot
 * be created. */
struct rpt_plot_file;
struct rpt_plot_file *rpt_plot_file_open(const char *dir, const char *name, const char *title,
                                         const char *xlabel, const char *ylabel, char *msg,
                                         size_t msgsize);
FILE *rpt_plot_file_dat(struct rpt_plot_file *f);
FILE *rpt_plot_file_gp(struct rpt_plot_file *f);
/* s as a gnuplot string in which nothing is interpreted: the only way a
 * string from any input reaches a script. */
void rpt_plot_file_str(FILE *gp, const char *s);
/* The plot's data file, NAME.dat, as such a string (the plot command's
 * file). */
void rpt_plot_file_ref_dat(struct rpt_plot_file *f);
/* name with every character but A-Z a-z 0-9 . _ - + as '_' (and no leading
 * '.'), cut to size - 1: a file name for a plot of it. open refuses others. */
void rpt_plot_safe_name(char *out, size_t size, const char *name);
/* "# text" and a newline, control characters in text as '?', into a data
 * file. */
void rpt_plot_dat_comment(FILE *dat, const char *text);
int rpt_plot_file_render(struct rpt_plot_file *f, char *msg, size_t msgsize);
void rpt_plot_file_discard(struct rpt_plot_file *f);

#endif
