/* mdreport: Markdown and HTML reports, see mdreport.h. The Markdown's
 * comparison table is the table format's own text, so the report and the
 * terminal agree; the HTML is report/htmlreport.c. */
#include "report/mdreport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/htmlreport.h"
#include "util/xalloc.h"

static const char *const report_plots[] = { "rt_curve", "primary_metric", "pkg_watts",
                                            "residency", "latency_cdf", "above_below",
                                            "interval" };
#define NPLOTS (sizeof report_plots / sizeof report_plots[0])

/* The table format's output as a string (caller frees). */
static char *report_table_text(const struct rpt_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return NULL;
    rpt_format_find("table")->render(r, mem);
    fclose(mem);
    return buf;
}

static int report_has_plot(const char *plots_dir, const char *name, const char *ext)
{
    if (!plots_dir)
        return 0;
    char *path = xasprintf("%s/%s.%s", plots_dir, name, ext);
    FILE *f = fopen(path, "r");
    free(path);
    if (f)
        fclose(f);
    return f != NULL;
}

static void report_md(FILE *out, const struct rpt_results *r, const struct explain *ex,
                      const char *table, const char *plots_dir)
{
    fprintf(out, "# pmlab: %s\n\n%s\n\n", r->scenario, r->description ? r->description : "");
    fprintf(out, "- machine: **%s**, %s\n- seed %llu, %d replications%s, 95 %% confidence intervals\n"
                 "- pmlab %s\n\n", r->machine, r->machine_desc ? r->machine_desc : "",
            (unsigned long long)r->seed, r->reps, r->quick ? " (quick configuration)" : "",
            PMLAB_VERSION);
    fprintf(out, "## Variants\n\n| variant | kernel | patches | cmdline | sysfs |\n|---|---|---|---|---|\n");
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        fprintf(out, "| %s | %s | %s | `%s` | `%s` |\n", var->name, var->kernel, var->patches,
                var->cmdline, var->sysfs);
    }
    fprintf(out, "\n## What each variant resolves to\n\nLines marked `*` differ from `%s`.\n\n",
            r->variants[0].name);
    for (int v = 0; v < r->nvariants; v++) {
        fprintf(out, "**%s**\n\n```\n", r->variants[v].name);
        for (int i = 0; i < ex[v].n; i++)
            fprintf(out, "%s\n", ex[v].line[i]);
        fprintf(out, "```\n\n");
    }
    fprintf(out, "## Results\n\n```\n%s```\n\n", table);
    int any = 0;
    for (size_t i = 0; i < NPLOTS; i++) {
        if (!report_has_plot(plots_dir, report_plots[i], "png"))
            continue;
        if (!any++)
            fprintf(out, "## Plots\n\n");
        fprintf(out, "![%s](%s.png)\n\n", report_plots[i], report_plots[i]);
    }
}

static int report_write(const char *dir, const char *name, const struct rpt_results *r,
                        const struct explain *ex, const char *table, const char *plots_dir,
                        int html, char *msg, size_t msgsize)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *out = fopen(path, "w");
    int rc = 0;
    if (!out) {
        snprintf(msg, msgsize, "cannot write %s: %s", name, strerror(errno));
        free(path);
        return -1;
    }
    if (html)
        rpt_write_html(out, r, ex, plots_dir, report_plots, NPLOTS);
    else
        report_md(out, r, ex, table, plots_dir);
    errno = 0;
    int bad = ferror(out);
    if (fclose(out) != 0 || bad) {
        /* the real cause (No space left on device), not just "error" */
        snprintf(msg, msgsize, "error writing %s: %s", name, strerror(errno ? errno : EIO));
        rc = -1;
    }
    free(path);
    return rc;
}

int rpt_write_report(const struct rpt_results *r, const struct explain *explain,
                     const char *dir, const char *plots_dir, char *msg, size_t msgsize)
{
    char *table = report_table_text(r);
    if (!table) {
        snprintf(msg, msgsize, "out of memory rendering the table");
        return -1;
    }
    int rc = report_write(dir, "report.md", r, explain, table, plots_dir, 0, msg, msgsize);
    if (rc == 0)
        rc = report_write(dir, "report.html", r, explain, table, plots_dir, 1, msg, msgsize);
    free(table);
    return rc;
}
