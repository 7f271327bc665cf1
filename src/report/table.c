/* table: the human report. A header (scenario, machine, seed, replications),
 * the variants as the user wrote them, one row per metric and compared
 * variant (mean +- 95 % CI half-width, delta % with its CI, p-value, verdict),
 * then a turbostat-style view per variant (Busy%, Bzy_MHz, per-state residency
 * C1% .., core CPU%c1 .., package Pkg%pc2 .., CorWatt, PkgWatt: the columns
 * kernel engineers already read) and the idle states' above/below shares. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/results.h"

/* "mean ± half" with a precision suited to the magnitude. */
static void table_mean_ci(const struct rpt_metric *m, char *buf, size_t size)
{
    double half = (m->ci_hi - m->ci_lo) / 2;
    double mag = fabs(m->mean);
    int prec = mag >= 1000 ? 0 : mag >= 100 ? 1 : mag >= 1 ? 2 : 4;
    snprintf(buf, size, "%.*f ± %.*f", prec, m->mean, prec, half);
}

static void table_header(const struct rpt_results *r, FILE *out)
{
    fprintf(out, "pmlab %s  scenario %s%s\n", PMLAB_VERSION, r->scenario, r->quick ? " (quick)" : "");
    if (r->description && *r->description)
        fprintf(out, "  %s\n", r->description);
    fprintf(out, "machine  %s: %s\n", r->machine, r->machine_desc ? r->machine_desc : "");
    fprintf(out, "seed %llu, %d replications, 95 %% confidence intervals\n\n",
            (unsigned long long)r->seed, r->reps);
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        fprintf(out, "variant %-14s kernel %s", var->name, var->kernel);
        if (var->patches && *var->patches)
            fprintf(out, "  patches: %s", var->patches);
        if (var->cmdline && *var->cmdline)
            fprintf(out, "  cmdline: %s", var->cmdline);
        if (var->sysfs && *var->sysfs)
            fprintf(out, "  sysfs: %s", var->sysfs);
        if (var->config && *var->config)
            fprintf(out, "  config: %s", var->config);
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* Metrics shown in the turbostat and idle-state blocks rather than the main
 * table. */
static bool table_is_turbostat_metric(const char *name)
{
    static const char *const prefixes[] = { "residency.", "core_residency.", "pkg_residency.",
                                            "above_pct.", "below_pct." };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static void table_metrics(const struct rpt_results *r, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    char a[48], b[48];
    fprintf(out, "%-22s %-7s %-22s", "metric", "unit", base->name);
    if (r->nvariants > 1)
        fprintf(out, " %-14s %-22s %8s  %-19s %7s  %s", "variant", "mean ± ci", "delta", "95% CI of delta",
                "p", "verdict");
    fputc('\n', out);
    for (int i = 0; i < base->nmetrics; i++) {
        const struct rpt_metric *m = &base->metrics[i];
        if (table_is_turbostat_metric(m->name))
            continue;
        table_mean_ci(m, a, sizeof a);
        fprintf(out, "%-22s %-7s %-22s", m->name, m->unit, a);
        for (int v = 1; v < r->nvariants; v++) {
            const struct rpt_variant *var = &r->variants[v];
            const struct rpt_metric *mv = rpt_variant_metric(var, m->name);
            const struct rpt_comparison *c = rpt_find_comparison(r, var->name, m->name);
            if (v > 1)
                fprintf(out, "\n%-22s %-7s %-22s", "", "", "");
            if (!mv || !c) {
                fprintf(out, " %-14s (not reported)", var->name);
                continue;
            }
            table_mean_ci(mv, b, sizeof b);
            char ci[40], delta[16];
            if (isnan(c->delta_pct)) {
                snprintf(delta, sizeof delta, "n/a");
                snprintf(ci, sizeof ci, "(zero baseline)");
            } else {
                snprintf(delta, sizeof delta, "%+.2f%%", c->delta_pct);
                snprintf(ci, sizeof ci, "[%+.2f, %+.2f] %%", c->ci_lo_pct, c->ci_hi_pct);
            }
            fprintf(out, " %-14s %-22s %8s  %-19s %7.3g  %s", var->name, b, delta, ci,
                    c->p_value, c->verdict);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* turbostat's column name for a metric: residency.C1 -> C1%, core_residency.C6
 * -> CPU%c6, pkg_residency.PC6 -> Pkg%pc6. NULL for other metrics. */
static const char *table_turbostat_column(const char *metric, char *buf, size_t size)
{
    const char *dot = strchr(metric, '.');
    if (!dot)
        return NULL;
    const char *state = dot + 1;
    char lower[RPT_NAME_MAX];
    size_t i = 0;
    for (; state[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)((state[i] >= 'A' && state[i] <= 'Z') ? state[i] - 'A' + 'a' : state[i]);
    lower[i] = '\0';
    if (strncmp(metric, "residency.", 10) == 0)
        snprintf(buf, size, "%s%%", state);
    else if (strncmp(metric, "core_residency.", 15) == 0)
        snprintf(buf, size, "CPU%%%s", lower);
    else if (strncmp(metric, "pkg_residency.", 14) == 0)
        snprintf(buf, size, "Pkg%%%s", lower);
    else
        return NULL;
    return buf;
}

/* Residency columns in turbostat's order: cpuidle states (POLL%, C1%, ..),
 * then core states (CPU%c1, ..), then package states (Pkg%pc2, ..). */
static const char *const table_turbostat_prefixes[] = { "residency.", "core_residency.",
                                                        "pkg_residency." };

static void table_turbostat_cells(const struct rpt_variant *base, const struct rpt_variant *var,
                                  FILE *out)
{
    char col[RPT_NAME_MAX + 8];
    for (size_t p = 0; p < 3; p++) {
        const char *prefix = table_turbostat_prefixes[p];
        for (int i = 0; i < base->nmetrics; i++) {
            const char *name = base->metrics[i].name;
            if (strncmp(name, prefix, strlen(prefix)) != 0 ||
                !table_turbostat_column(name, col, sizeof col))
                continue;
            if (!var) {
                fprintf(out, " %8s", col);
                continue;
            }
            double val = rpt_variant_mean(var, name, NAN);
            if (isnan(val))
                fprintf(out, " %8s", "-");
            else
                fprintf(out, " %8.2f", val);
        }
    }
}

/* The turbostat view: Busy%, Bzy_MHz, the residency columns, PkgWatt and
 * CorWatt, one row per variant. */
static void table_turbostat(const struct rpt_results *r, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    fprintf(out, "turbostat view (means)\n%-16s %7s %8s", "variant", "Busy%", "Bzy_MHz");
    table_turbostat_cells(base, NULL, out);
    fprintf(out, " %8s %8s\n", "PkgWatt", "CorWatt");
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        fprintf(out, "%-16s %7.2f %8.0f", var->name, rpt_variant_mean(var, "busy_pct", NAN),
                rpt_variant_mean(var, "bzy_mhz", NAN));
        table_turbostat_cells(base, var, out);
        fprintf(out, " %8.2f %8.2f\n", rpt_variant_mean(var, "pkg_watts", NAN),
                rpt_variant_mean(var, "core_watts", NAN));
    }
}

/* "above / below", or "-" for a variant without cpuidle states. */
static void table_above_below(FILE *out, double above, double below)
{
    if (isnan(above) || isnan(below))
        fprintf(out, " %15s", "-");
    else
        fprintf(out, "   %5.1f / %5.1f", above, below);
}

/* Per idle state: the share of entries that were too deep (above) or too
 * shallow (below), as the cpuidle sysfs counters would show. */
static void table_idle_states(const struct rpt_results *r, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    if (!rpt_variant_metric(base, "above_pct"))
        return;
    fprintf(out, "\nidle states: above / below (%% of entries, means)\n%-16s", "variant");
    for (int i = 0; i < base->nmetrics; i++)
        if (strncmp(base->metrics[i].name, "above_pct.", 10) == 0)
            fprintf(out, " %15s", base->metrics[i].name + 10);
    fprintf(out, " %15s\n", "all");
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        fprintf(out, "%-16s", var->name);
        for (int i = 0; i < base->nmetrics; i++) {
            const char *name = base->metrics[i].name;
            if (strncmp(name, "above_pct.", 10) != 0)
                continue;
            char below[RPT_NAME_MAX];
            snprintf(below, sizeof below, "below_pct.%s", name + 10);
            table_above_below(out, rpt_variant_mean(var, name, NAN),
                              rpt_variant_mean(var, below, NAN));
        }
        table_above_below(out, rpt_variant_mean(var, "above_pct", NAN),
                          rpt_variant_mean(var, "below_pct", NAN));
        fputc('\n', out);
    }
}

static void table_render(const struct rpt_results *r, FILE *out)
{
    table_header(r, out);
    if (r->nvariants == 0)
        return;
    table_metrics(r, out);
    table_turbostat(r, out);
    table_idle_states(r, out);
}

const struct rpt_format rpt_table_format = {
    .name = "table",
    .render = table_render,
};
