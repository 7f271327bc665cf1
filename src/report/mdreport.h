/* mdreport: the page a kernel developer pastes into a review or a mailing
 * list reply: report.md (Markdown) and report.html (self-contained: plots
 * inlined as SVG), with the scenario, machine, variants, what each variant
 * resolves to (explain, lines differing from the first variant marked), the
 * comparison table with the turbostat view, and the plots when present. */
#ifndef PMLAB_REPORT_MDREPORT_H
#define PMLAB_REPORT_MDREPORT_H

#include <stddef.h>

#include "report/explain.h"
#include "report/results.h"

/* explain[v] holds the explain lines of variant v (already marked). Writes
 * dir/report.md and dir/report.html; plots_dir is where the plots were
 * rendered (dir itself, so the Markdown links are relative; NULL: none).
 * Returns 0 or -1 with msg. */
int rpt_write_report(const struct rpt_results *r, const struct explain *explain,
                     const char *dir, const char *plots_dir, char *msg, size_t msgsize);

#endif
