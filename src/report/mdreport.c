/* mdreport: Markdown and HTML reports, see mdreport.h. The Markdown's
 * comparison table is the table format's own text, so the report and the
 * terminal agree; the HTML is report/htmlreport.c. */
#include "report/mdreport.h"

#include <errno.h>
#include <stdbool.h>
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

/* text as Markdown's literal text: the ASCII punctuation that Markdown
 * (CommonMark, GFM) or the HTML it may carry gives a meaning anywhere is
 * backslash-escaped ('<' of a <script>, '&' of an entity, '|' of a table
 * cell, '*', '_', '[', '`' ...), and so is what makes a block at the start
 * ('#', '-', '+', '=', the '.' or ')' after leading digits); a line break is
 * a space. Text from a scenario (its description, a kernel or patches line)
 * is shown, never interpreted. */
static void md_text(FILE *out, const char *text)
{
    text = text ? text : "";
    bool digits = true; /* only digits so far: "1." would start a list */
    for (const char *p = text; *p; p++) {
        bool lead = p == text && strchr("#-+=", *p);
        bool list = digits && p > text && (*p == '.' || *p == ')');
        if (*p == '\n' || *p == '\r')
            fputc(' ', out);
        else if (lead || list || strchr("\\`*_[]<>!|&~", *p))
            fprintf(out, "\\%c", *p);
        else
            fputc(*p, out);
        digits = digits && *p >= '0' && *p <= '9';
    }
}

/* text as a Markdown code span: fenced by one backtick more than its
 * longest run of backticks (and a space each side when it has one), so no
 * backtick in it can end the span; line breaks are spaces. A '|' is
 * escaped, which a table cell needs even inside a span (GFM). */
static void md_code(FILE *out, const char *text)
{
    text = text ? text : "";
    int longest = 0, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    for (int i = 0; i <= longest; i++)
        fputc('`', out);
    if (longest)
        fputc(' ', out);
    for (const char *p = text; *p; p++) {
        if (*p == '|')
            fputs("\\|", out);
        else
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
    }
    if (longest)
        fputc(' ', out);
    for (int i = 0; i <= longest; i++)
        fputc('`', out);
}

/* A code block's fence: longer than any run of backticks in its text (the
 * table carries the scenario's description), so none can close it early;
 * at least min, at most the MD_BACKTICKS there are. */
#define MD_BACKTICKS "````````````````````````````````"
static int md_fence_len(const char *text, int min)
{
    int longest = min - 1, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    int len = longest + 1;
    return len < (int)sizeof MD_BACKTICKS - 1 ? len : (int)sizeof MD_BACKTICKS - 1;
}

static void report_md(FILE *out, const struct rpt_results *r, const struct explain *ex,
                      const char *table, const char *plots_dir)
{
    fputs("# pmlab: ", out);
    md_text(out, r->scenario);
    fputs("\n\n", out);
    md_text(out, r->description);
    fputs("\n\n- machine: **", out);
    md_text(out, r->machine);
    fputs("**, ", out);
    md_text(out, r->machine_desc);
    fprintf(out, "\n- seed %llu, %d replications%s, 95 %% confidence intervals\n"
                 "- pmlab %s\n\n", (unsigned long long)r->seed, r->reps,
            r->quick ? " (quick configuration)" : "", PMLAB_VERSION);
    fprintf(out, "## Variants\n\n| variant | kernel | patches | cmdline | sysfs |\n|---|---|---|---|---|\n");
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        const char *cells[] = { var->name, var->kernel, var->patches };
        for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
            fputs("| ", out);
            md_text(out, cells[i]);
            fputc(' ', out);
        }
        fputs("| ", out);
        md_code(out, var->cmdline);
        fputs(" | ", out);
        md_code(out, var->sysfs);
        fputs(" |\n", out);
    }
    fprintf(out, "\n## What each variant resolves to\n\nLines marked `*` differ from `%s`.\n\n",
            r->variants[0].name);
    for (int v = 0; v < r->nvariants; v++) {
        int fence = 3;
        for (int i = 0; i < ex[v].n; i++)
            fence = md_fence_len(ex[v].line[i], fence);
        fprintf(out, "**%s**\n\n%.*s\n", r->variants[v].name, fence, MD_BACKTICKS);
        for (int i = 0; i < ex[v].n; i++)
            fprintf(out, "%s\n", ex[v].line[i]);
        fprintf(out, "%.*s\n\n", fence, MD_BACKTICKS);
    }
    int fence = md_fence_len(table, 3);
    fprintf(out, "## Results\n\n%.*s\n%s%.*s\n\n", fence, MD_BACKTICKS, table, fence,
            MD_BACKTICKS);
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
