/* htmlreport: the HTML report (report.html, written by report/mdreport.c):
 * self-contained, no script; the variants with their knobs, what each
 * resolves to with the differing lines marked, the metrics table with CIs
 * and coloured verdicts, the turbostat and above/below tables, and the plots
 * inlined as SVG, each with a caption. Every id on the page is unique. */
#ifndef PMLAB_REPORT_HTMLREPORT_H
#define PMLAB_REPORT_HTMLREPORT_H

#include <stddef.h>
#include <stdio.h>

#include "report/explain.h"
#include "report/results.h"

/* explain[v]: variant v's explain lines, marked ("* " or "  "). The plots
 * named plots[0..nplots) are inlined from plots_dir/NAME.svg, those present
 * (plots_dir NULL: none). */
void rpt_write_html(FILE *out, const struct rpt_results *r, const struct explain *explain,
                    const char *plots_dir, const char *const *plots, size_t nplots);

#endif
