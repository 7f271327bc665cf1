/* htmlreport: report.html, see htmlreport.h. Real tables whose cells are the
 * table format's text (report/cells.h), so the page, the terminal and the
 * JSON agree; plain CSS that reflows from a phone to a desktop; no script.
 *
 * The plots are gnuplot's SVG inlined. gnuplot gives every SVG the same ids
 * (gnuplot_canvas, gpPt0, ..) and, for a plot without a key entry, a
 * tooltip with its plot command ('NAME.dat' using ...); inlined as they are,
 * five figures would share ids and show file names. Each SVG is therefore
 * copied with its ids prefixed by the plot's name and gnuplot's own
 * tooltips dropped (no gnuplot 5.4 terminal option does either). */
#include "report/htmlreport.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cells.h"
#include "util/xalloc.h"
#include "util/readfile.h"

static const char html_css[] =
    "body{font:16px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b1b1b;"
    "max-width:84rem;margin:0 auto;padding:0 1rem 3rem}"
    "h1{font-size:1.6rem;overflow-wrap:anywhere}h2{margin-top:2rem;font-size:1.3rem}"
    ".scroll{overflow-x:auto;margin:0 0 1rem}"
    "table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}"
    "caption{text-align:left;font-weight:600;padding:.3rem 0}"
    "th,td{padding:.25rem .55rem;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
    "th{background:#f0f0f0}th.l,td.l{text-align:left}"
    "td.knob{white-space:normal;min-width:8rem;overflow-wrap:anywhere;font-family:monospace}"
    "td.better{background:#d3f0da;color:#0b5d1e;font-weight:600}"
    "td.worse{background:#fbdcda;color:#8a1c13;font-weight:600}"
    "td.noise,td.na,td.negligible{color:#6b6b6b}td.higher,td.lower{background:#e4ecfb}"
    "td.warn{color:#8a1c13;white-space:normal}"
    "pre{background:#f6f6f6;padding:.75rem;overflow-x:auto;font-size:.85rem;line-height:1.35}"
    "pre .diff{background:#ffe9a8;display:inline-block;min-width:100%}"
    "pre .off{background:#eee;color:#8a1c13;display:inline-block;min-width:100%}"
    ".notes{font-size:.9rem;color:#444;white-space:pre-line}"
    "figure{margin:1.5rem 0}figure svg{display:block;width:100%;height:auto;max-width:75rem}"
    "figcaption{font-size:.9rem;color:#333;margin-top:.3rem}"
    "@media (max-width:40rem){body{font-size:15px;padding:0 .5rem 2rem}"
    "table{font-size:.8rem}th,td{padding:.2rem .35rem}h1{font-size:1.3rem}}";

static void html_escape(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
    }
}

/* <td class="cls">text</td> (no class when cls is empty), text escaped. */
static void html_td(FILE *out, const char *cls, const char *text)
{
    if (*cls)
        fprintf(out, "<td class=\"%s\">", cls);
    else
        fputs("<td>", out);
    html_escape(out, text);
    fputs("</td>", out);
}

/* A text renderer's output (a function of r writing lines) as escaped text. */
static void html_text_of(FILE *out, const struct rpt_results *r,
                         void (*render)(const struct rpt_results *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return;
    render(r, mem);
    fclose(mem);
    html_escape(out, buf);
    free(buf);
}

static void html_head(FILE *out, const struct rpt_results *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>pmlab: ",
          out);
    html_escape(out, r->scenario);
    fprintf(out, "</title>\n<style>%s</style>\n</head><body>\n<header><h1>pmlab: ", html_css);
    html_escape(out, r->scenario);
    fputs("</h1>\n<p>", out);
    html_escape(out, r->description);
    fputs("</p>\n<p>machine <b>", out);
    html_escape(out, r->machine);
    fputs("</b>: ", out);
    html_escape(out, r->machine_desc);
    fprintf(out, "<br>seed %llu, %d replications%s, 95 %% confidence intervals, pmlab %s</p>\n",
            (unsigned long long)r->seed, r->reps,
            r->quick ? " (<b>quick configuration</b>: for smoke tests, not for decisions)" : "",
            PMLAB_VERSION);
    if (r->primary) {
        fputs("<p>primary metric: <b>", out);
        html_escape(out, r->primary);
        fputs("</b> (first in the table, marked *)</p>\n", out);
    }
    fputs("</header>\n", out);
}

/* A variant's warnings: saturated, warm-up too short. */
static void html_variant_warnings(FILE *out, const struct rpt_results *r,
                                  const struct rpt_variant *var)
{
    fputs("<td class=\"l warn\">", out);
    if (var->saturated) {
        const struct rpt_metric *m = rpt_variant_metric(var, r->served_metric);
        fprintf(out, "SATURATED: served %.0f of %.0f ", var->served, var->offered);
        html_escape(out, m ? m->unit : "");
        fprintf(out, " offered (%.1f %%)", 100 * var->served / var->offered);
    }
    if (var->warmup_short)
        fprintf(out, "%sWARM-UP TOO SHORT: transient until %.0f ms, warm-up %.0f ms",
                var->saturated ? "; " : "", var->transient_ms, var->warmup_ms);
    fputs("</td>", out);
}

static void html_variants(FILE *out, const struct rpt_results *r)
{
    fputs("<section id=\"variants\"><h2>Variants</h2>\n<div class=\"scroll\"><table id=\"variants-table\">\n"
          "<thead><tr><th class=\"l\">variant</th><th class=\"l\">kernel</th><th class=\"l\">patches"
          "</th><th class=\"l\">cmdline</th><th class=\"l\">sysfs</th><th class=\"l\">config</th>"
          "<th class=\"l\">warnings</th></tr></thead>\n<tbody>\n",
          out);
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        fputs("<tr>", out);
        html_td(out, "l", var->name);
        html_td(out, "l", var->kernel);
        html_td(out, "l knob", var->patches);
        html_td(out, "l knob", var->cmdline);
        html_td(out, "l knob", var->sysfs);
        html_td(out, "l knob", var->config);
        html_variant_warnings(out, r, var);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div></section>\n", out);
}

/* The explain lines, "* " (differs from the first variant) or "  ". */
static void html_explain(FILE *out, const struct rpt_results *r, const struct explain *ex)
{
    fputs("<section id=\"explain\"><h2>What each variant resolves to</h2>\n<p>Lines marked "
          "<code>*</code> (highlighted) differ from <b>",
          out);
    html_escape(out, r->variants[0].name);
    fputs("</b>; idle states REMOVED (by intel_idle.max_cstate) or DISABLED are in red.</p>\n", out);
    for (int v = 0; v < r->nvariants; v++) {
        fprintf(out, "<h3 id=\"explain-%d\">", v);
        html_escape(out, r->variants[v].name);
        fputs("</h3>\n<pre>", out);
        for (int i = 0; i < ex[v].n; i++) {
            const char *line = ex[v].line[i];
            /* differs from the first variant; a state removed or disabled */
            const char *cls = line[0] == '*' ? "diff"
                              : strstr(line, " REMOVED: ") || strstr(line, "; DISABLED on") ? "off"
                                                                                            : NULL;
            if (cls)
                fprintf(out, "<span class=\"%s\">", cls);
            html_escape(out, line);
            fputs(cls ? "</span>\n" : "\n", out);
        }
        fputs("</pre>\n", out);
    }
    fputs("</section>\n", out);
}

/* A compared variant's cells of a metric row, the verdict cell classed by
 * the verdict (better, worse, negligible, noise, higher, lower). */
static void html_variant_cells(FILE *out, const struct rpt_results *r,
                               const struct rpt_variant *var, const char *metric)
{
    const struct rpt_metric *mv = rpt_variant_metric(var, metric);
    const struct rpt_comparison *c = rpt_find_comparison(r, var->name, metric);
    html_td(out, "l variant", var->name);
    if (!mv || !c) {
        fputs("<td class=\"na\" colspan=\"6\">not reported</td>", out);
        return;
    }
    char mean[64], delta[32], ci[64], p[16], padj[16];
    rpt_cell_mean_ci(mv, mean, sizeof mean);
    ci[0] = '\0';
    rpt_cell_delta(c, delta, sizeof delta, ci, sizeof ci, p, padj, sizeof p);
    html_td(out, "mean", mean);
    html_td(out, "delta", delta);
    html_td(out, "ci", ci);
    html_td(out, "p", p);
    html_td(out, "padj", padj);
    char cls[32];
    snprintf(cls, sizeof cls, "verdict %s", strcmp(c->verdict, "n/a") == 0 ? "na" : c->verdict);
    html_td(out, cls, c->verdict);
}

/* One metric's rows: the baseline cells span the compared variants' rows. */
static void html_metric_rows(FILE *out, const struct rpt_results *r, const struct rpt_metric *m)
{
    int span = r->nvariants > 2 ? r->nvariants - 1 : 1;
    bool primary = r->primary && strcmp(r->primary, m->name) == 0;
    char base[64];
    rpt_cell_mean_ci(m, base, sizeof base);
    for (int v = 1; v < r->nvariants || v == 1; v++) {
        fputs("<tr data-metric=\"", out);
        html_escape(out, m->name);
        fputs("\"", out);
        if (v < r->nvariants) {
            fputs(" data-variant=\"", out);
            html_escape(out, r->variants[v].name);
            fputs("\"", out);
        }
        fputs(">", out);
        if (v == 1) {
            fprintf(out, "<th class=\"l metric\" rowspan=\"%d\" scope=\"rowgroup\">", span);
            html_escape(out, m->name);
            fprintf(out, "%s</th><td class=\"l unit\" rowspan=\"%d\">", primary ? " *" : "", span);
            html_escape(out, m->unit);
            fprintf(out, "</td><td class=\"base\" rowspan=\"%d\">", span);
            html_escape(out, base);
            fputs("</td>", out);
        }
        if (v < r->nvariants)
            html_variant_cells(out, r, &r->variants[v], m->name);
        fputs("</tr>\n", out);
    }
}

static void html_metrics(FILE *out, const struct rpt_results *r)
{
    const struct rpt_variant *base = &r->variants[0];
    fputs("<section id=\"results\"><h2>Results</h2>\n<p class=\"notes\">", out);
    html_text_of(out, r, rpt_table_method);
    fputs("</p>\n<div class=\"scroll\"><table id=\"metrics\">\n<thead><tr><th class=\"l\">metric"
          "</th><th class=\"l\">unit</th><th>",
          out);
    html_escape(out, base->name);
    fputs("<br>mean ± CI (n)</th>", out);
    if (r->nvariants > 1)
        fputs("<th class=\"l\">variant</th><th>mean ± CI (n)</th><th>delta</th>"
              "<th>95% CI of delta (n)</th><th>p</th><th>p (Holm)</th><th>verdict</th>",
              out);
    fputs("</tr></thead>\n<tbody>\n", out);
    const struct rpt_metric *primary = r->primary ? rpt_variant_metric(base, r->primary) : NULL;
    if (primary)
        html_metric_rows(out, r, primary);
    for (int i = 0; i < base->nmetrics; i++)
        if (&base->metrics[i] != primary && !rpt_is_turbostat_metric(base->metrics[i].name))
            html_metric_rows(out, r, &base->metrics[i]);
    fputs("</tbody></table></div>\n<p class=\"notes\">", out);
    html_text_of(out, r, rpt_table_notes);
    fputs("</p>\n</section>\n", out);
}

/* A number cell with prec decimals, "-" for none. */
static void html_num(FILE *out, double val, int prec)
{
    if (isnan(val))
        fputs("<td class=\"na\">-</td>", out);
    else
        fprintf(out, "<td>%.*f</td>", prec, val);
}

/* The residency columns: headers (var NULL) or var's means. */
static void html_residency_cells(FILE *out, const struct rpt_variant *base,
                                 const struct rpt_variant *var, const char *prefix)
{
    char col[RPT_NAME_MAX + 8];
    for (size_t p = 0; p < 3; p++) {
        const char *kind = rpt_turbostat_prefixes[p];
        for (int i = 0; i < base->nmetrics; i++) {
            const char *name = base->metrics[i].name;
            if (strncmp(name, kind, strlen(kind)) != 0 || !rpt_turbostat_column(name, col, sizeof col))
                continue;
            if (var) {
                html_num(out, rpt_prefixed_mean(var, prefix, name), 2);
            } else {
                fputs("<th>", out);
                html_escape(out, col);
                fputs("</th>", out);
            }
        }
    }
}

/* The row label: the variant, or "NAME cpus LIST" for the --cpus rows. */
static void html_row_label(FILE *out, const struct rpt_results *r, const struct rpt_variant *var,
                           const char *prefix)
{
    fputs("<th class=\"l\" scope=\"row\">", out);
    html_escape(out, var->name);
    if (*prefix) {
        fputs(" cpus ", out);
        html_escape(out, r->cpus);
    }
    fputs("</th>", out);
}

static void html_turbostat_row(FILE *out, const struct rpt_results *r,
                               const struct rpt_variant *var, const char *prefix)
{
    fputs("<tr>", out);
    html_row_label(out, r, var, prefix);
    html_num(out, rpt_prefixed_mean(var, prefix, "busy_pct"), 2);
    html_num(out, rpt_prefixed_mean(var, prefix, "bzy_mhz"), 0);
    html_residency_cells(out, &r->variants[0], var, prefix);
    html_num(out, rpt_prefixed_mean(var, prefix, "tick_stopped_pct"), 2);
    html_num(out, rpt_prefixed_mean(var, prefix, "pkg_watts"), 2);
    html_num(out, rpt_prefixed_mean(var, prefix, "core_watts"), 2);
    fputs("</tr>\n", out);
}

/* turbostat's columns, one row per variant (two with --cpus), as the table
 * format shows them; TkStop% is pmlab's (idle entries with the tick
 * stopped), which turbostat cannot show. */
static void html_turbostat(FILE *out, const struct rpt_results *r)
{
    fputs("<section id=\"turbostat\"><h2>turbostat view</h2>\n<div class=\"scroll\">"
          "<table id=\"turbostat-table\"><caption>means over replications</caption>\n"
          "<thead><tr><th class=\"l\">variant</th><th>Busy%</th><th>Bzy_MHz</th>",
          out);
    html_residency_cells(out, &r->variants[0], NULL, "");
    fputs("<th>TkStop%</th><th>PkgWatt</th><th>CorWatt</th></tr></thead>\n<tbody>\n", out);
    for (int v = 0; v < r->nvariants; v++) {
        html_turbostat_row(out, r, &r->variants[v], "");
        if (r->cpus)
            html_turbostat_row(out, r, &r->variants[v], RPT_CPUS_PREFIX);
    }
    fputs("</tbody></table></div></section>\n", out);
}

/* "above / below" of one state (state NULL: all states). */
static void html_above_below_cell(FILE *out, const struct rpt_variant *var, const char *prefix,
                                  const char *state)
{
    char above[RPT_NAME_MAX], below[RPT_NAME_MAX];
    snprintf(above, sizeof above, "above_pct%s%s", state ? "." : "", state ? state : "");
    snprintf(below, sizeof below, "below_pct%s%s", state ? "." : "", state ? state : "");
    double a = rpt_prefixed_mean(var, prefix, above), b = rpt_prefixed_mean(var, prefix, below);
    if (isnan(a) || isnan(b))
        fputs("<td class=\"na\">-</td>", out);
    else
        fprintf(out, "<td>%.1f / %.1f</td>", a, b);
}

static void html_above_below_row(FILE *out, const struct rpt_results *r,
                                 const struct rpt_variant *var, const char *prefix)
{
    const struct rpt_variant *base = &r->variants[0];
    fputs("<tr>", out);
    html_row_label(out, r, var, prefix);
    for (int i = 0; i < base->nmetrics; i++)
        if (strncmp(base->metrics[i].name, "above_pct.", 10) == 0)
            html_above_below_cell(out, var, prefix, base->metrics[i].name + 10);
    html_above_below_cell(out, var, prefix, NULL);
    fputs("</tr>\n", out);
}

/* Per idle state, the shares of entries that were too deep (above) and too
 * shallow (below), as the cpuidle sysfs counters would show. */
static void html_above_below(FILE *out, const struct rpt_results *r)
{
    const struct rpt_variant *base = &r->variants[0];
    if (!rpt_variant_metric(base, "above_pct"))
        return;
    fputs("<section id=\"idle-states\"><h2>Idle states: above / below</h2>\n<div class=\"scroll\">"
          "<table id=\"above-below\"><caption>% of entries into each state, means: above = too "
          "deep for the idle period that followed, below = too shallow</caption>\n"
          "<thead><tr><th class=\"l\">variant</th>",
          out);
    for (int i = 0; i < base->nmetrics; i++)
        if (strncmp(base->metrics[i].name, "above_pct.", 10) == 0) {
            fputs("<th>", out);
            html_escape(out, base->metrics[i].name + 10);
            fputs("</th>", out);
        }
    fputs("<th>all</th></tr></thead>\n<tbody>\n", out);
    for (int v = 0; v < r->nvariants; v++) {
        html_above_below_row(out, r, &r->variants[v], "");
        if (r->cpus)
            html_above_below_row(out, r, &r->variants[v], RPT_CPUS_PREFIX);
    }
    fputs("</tbody></table></div></section>\n", out);
}

/* The scenario's [measured] values beside each variant's prediction and
 * the gap, as the table format's block. */
static void html_measured(FILE *out, const struct rpt_results *r)
{
    if (r->nmeasured == 0)
        return;
    fputs("<section id=\"measured\"><h2>Measured on the host beside pmlab</h2>\n"
          "<div class=\"scroll\"><table id=\"measured-table\"><caption>the scenario's [measured] "
          "values; gap = pmlab - measured</caption>\n<thead><tr><th class=\"l\">metric</th>"
          "<th>measured</th>", out);
    for (int v = 0; v < r->nvariants; v++) {
        fputs("<th>", out);
        html_escape(out, r->variants[v].name);
        fputs("</th><th>gap</th><th>gap %</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (int i = 0; i < r->nmeasured; i++) {
        const struct rpt_measured *mv = &r->measured[i];
        fputs("<tr><th class=\"l\" scope=\"row\">", out);
        html_escape(out, mv->metric);
        fputs("</th>", out);
        html_num(out, mv->value, 2);
        for (int v = 0; v < r->nvariants; v++) {
            double gap, gap_pct;
            const struct rpt_metric *m = rpt_measured_gap(&r->variants[v], mv, &gap, &gap_pct);
            char cell[64];
            if (m)
                rpt_cell_mean_ci(m, cell, sizeof cell);
            html_td(out, m ? "" : "na", m ? cell : "not reported");
            html_num(out, gap, 2);
            html_num(out, gap_pct, 1);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div></section>\n", out);
}

/* Every variant's series named prefix* as one table (per_cpu: a row per
 * CPU; per_type.: a row per core type, labelled by it), means over the
 * replications; nothing when no variant has one. */
static void html_series_view(FILE *out, const struct rpt_results *r, const char *prefix,
                             const char *id, const char *title)
{
    bool open = false, typed = strchr(prefix, '.') != NULL;
    char buf[RPT_NAME_MAX + 8];
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        const struct rpt_variant_series *vs;
        for (int k = 0; (vs = rpt_series_next(var, prefix, &k));) {
            const struct rpt_series *s0 = &vs->rep[0];
            if (!open) {
                fprintf(out, "<section id=\"%s\"><h2>", id);
                html_escape(out, title);
                fprintf(out, "</h2>\n<div class=\"scroll\"><table id=\"%s-table\"><caption>means "
                             "over replications</caption>\n<thead><tr><th class=\"l\">variant</th>%s",
                        id, typed ? "<th class=\"l\">type</th>" : "");
                for (int c = 0; c < s0->ncols; c++) {
                    fputs("<th>", out);
                    html_escape(out, rpt_series_column(s0->cols[c], buf, sizeof buf));
                    fputs("</th>", out);
                }
                fputs("</tr></thead>\n<tbody>\n", out);
                open = true;
            }
            for (int i = 0; i < s0->nrows; i++) {
                fputs("<tr>", out);
                html_row_label(out, r, var, "");
                if (typed)
                    html_td(out, "l", vs->name + strlen(prefix));
                for (int c = 0; c < s0->ncols; c++)
                    html_num(out, rpt_series_mean(vs, i, c), rpt_series_prec(s0->cols[c]));
                fputs("</tr>\n", out);
            }
        }
    }
    if (open)
        fputs("</tbody></table></div></section>\n", out);
}

/* gnuplot's own tooltips: "Gnuplot", "gnuplot_plot_N", or a plot command
 * naming its data file; a key entry's title (a variant) is kept. */
static bool svg_title_is_gnuplots(const char *text, const char *end)
{
    size_t n = (size_t)(end - text);
    char *t = xasprintf("%.*s", (int)n, text);
    bool noise = strcmp(t, "Gnuplot") == 0 || strncmp(t, "gnuplot_plot_", 13) == 0 ||
                 strstr(t, ".dat") != NULL;
    free(t);
    return noise;
}

/* Copy svg into out: without the XML prolog, ids and references to them
 * prefixed with "NAME-", gnuplot's tooltips dropped, labelled by its
 * caption. */
static void svg_copy(FILE *out, const char *svg, const char *name)
{
    for (const char *p = svg; *p;) {
        if (strncmp(p, "<?xml", 5) == 0 || strncmp(p, "<!DOCTYPE", 9) == 0) {
            const char *e = strchr(p, '>');
            p = e ? e + 1 : p + strlen(p);
        } else if (strncmp(p, "<title>", 7) == 0 && strstr(p, "</title>") &&
                   svg_title_is_gnuplots(p + 7, strstr(p, "</title>"))) {
            p = strstr(p, "</title>") + 8;
        } else if (strncmp(p, "<svg", 4) == 0 && (p[4] == ' ' || p[4] == '\n')) {
            fprintf(out, "<svg role=\"img\" aria-labelledby=\"cap-%s\"", name);
            p += 4;
        } else if (p > svg && (p[-1] == ' ' || p[-1] == '\t') && strncmp(p, "id=", 3) == 0 &&
                   (p[3] == '\'' || p[3] == '"')) {
            fprintf(out, "id=%c%s-", p[3], name);
            p += 4;
        } else if (strncmp(p, "href=", 5) == 0 && (p[5] == '\'' || p[5] == '"') && p[6] == '#') {
            fprintf(out, "href=%c#%s-", p[5], name);
            p += 7;
        } else if (strncmp(p, "url(#", 5) == 0) {
            fprintf(out, "url(#%s-", name);
            p += 5;
        } else {
            fputc(*p++, out);
        }
    }
}

/* What a figure shows, under it. */
static void html_caption(FILE *out, const struct rpt_results *r, const char *name)
{
    if (strcmp(name, "rt_curve") == 0)
        fprintf(out, "RT curve: p99 response time against injection rate per variant. Line: median "
                     "over the %d replications; band: least to greatest; dotted verticals: each "
                     "variant's max-jOPS (mean); dashed horizontals: the SLA bounds.", r->reps);
    else if (strcmp(name, "residency") == 0)
        fputs("Where CPU time goes: busy (polling excluded) and each idle state's residency, "
              "% of CPU time, means over replications.", out);
    else if (strcmp(name, "primary_metric") == 0) {
        html_escape(out, r->primary);
        fputs(" (the primary metric) per variant: mean and its 95 % confidence interval.", out);
    } else if (strcmp(name, "pkg_watts") == 0)
        fputs("Package power (pkg_watts, W) per variant: mean and its 95 % confidence interval.",
              out);
    else if (strcmp(name, "latency_cdf") == 0)
        fputs("Response time by percentile on a log tail axis (50, 90, 99, 99.9, 99.99). Line: "
              "median over replications; band: least to greatest.", out);
    else if (strcmp(name, "above_below") == 0)
        fputs("Idle-state misses per state: above (too deep for the idle period that followed) "
              "and below (too shallow), % of entries into that state, means.", out);
    else if (strcmp(name, "interval") == 0)
        fputs("turbostat --interval over the measurement window: Busy%, each idle state's and "
              "package C-state's share, Bzy_MHz and PkgWatt of every interval (a point at the "
              "end of each), means over replications; a colour per variant.", out);
    else
        html_escape(out, name);
}

static void html_plots(FILE *out, const struct rpt_results *r, const char *plots_dir,
                       const char *const *plots, size_t nplots)
{
    int fig = 0;
    for (size_t i = 0; plots_dir && i < nplots; i++) {
        char *path = xasprintf("%s/%s.svg", plots_dir, plots[i]);
        char *svg = read_whole_file(path);
        free(path);
        if (!svg)
            continue;
        if (!fig)
            fputs("<section id=\"plots\"><h2>Plots</h2>\n", out);
        fprintf(out, "<figure id=\"fig-%s\">\n", plots[i]);
        svg_copy(out, svg, plots[i]);
        fprintf(out, "<figcaption id=\"cap-%s\">Figure %d. ", plots[i], ++fig);
        html_caption(out, r, plots[i]);
        fputs("</figcaption></figure>\n", out);
        free(svg);
    }
    if (fig)
        fputs("</section>\n", out);
}

void rpt_write_html(FILE *out, const struct rpt_results *r, const struct explain *ex,
                    const char *plots_dir, const char *const *plots, size_t nplots)
{
    html_head(out, r);
    if (r->nvariants > 0) {
        html_variants(out, r);
        html_explain(out, r, ex);
        html_metrics(out, r);
        html_turbostat(out, r);
        html_series_view(out, r, "per_type.", "per-type", "turbostat view per core type");
        html_series_view(out, r, "per_cpu", "per-cpu", "turbostat view per CPU");
        html_series_view(out, r, "interval", "interval",
                         "turbostat --interval: each interval, ending at time_ms");
        html_above_below(out, r);
        html_measured(out, r);
        html_plots(out, r, plots_dir, plots, nplots);
    }
    fputs("</body></html>\n", out);
}
