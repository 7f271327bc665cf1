/* table: the human report. A header (scenario, machine, seed, replications),
 * the variants as the user wrote them, one row per metric and compared
 * variant (mean +- 95 % CI half-width, delta % with its CI, p-value, verdict),
 * then a turbostat-style view per variant (Busy%, Avg_MHz, POLL%, per-state
 * residency, CorWatt, PkgWatt), the columns kernel engineers already read. */
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

static bool table_is_turbostat_metric(const char *name)
{
    return strncmp(name, "residency.", 10) == 0 || strncmp(name, "pkg_residency.", 14) == 0;
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

static double table_mean_of(const struct rpt_variant *v, const char *name)
{
    const struct rpt_metric *m = rpt_variant_metric(v, name);
    return m ? m->mean : NAN;
}

/* turbostat-like columns; residency.* states in the order the first variant
 * reports them. */
static void table_turbostat(const struct rpt_results *r, FILE *out)
{
    fprintf(out, "turbostat view (means)\n%-16s %7s %8s %7s", "variant", "Busy%", "Avg_MHz", "POLL%");
    const struct rpt_variant *base = &r->variants[0];
    for (int i = 0; i < base->nmetrics; i++)
        if (table_is_turbostat_metric(base->metrics[i].name) &&
            strcmp(base->metrics[i].name, "residency.POLL") != 0)
            fprintf(out, " %7s%%", strchr(base->metrics[i].name, '.') + 1);
    fprintf(out, " %8s %8s\n", "CorWatt", "PkgWatt");
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        fprintf(out, "%-16s %7.2f %8.0f %7.2f", var->name, table_mean_of(var, "busy_pct"),
                table_mean_of(var, "avg_mhz"), table_mean_of(var, "poll_pct"));
        for (int i = 0; i < base->nmetrics; i++)
            if (table_is_turbostat_metric(base->metrics[i].name) &&
                strcmp(base->metrics[i].name, "residency.POLL") != 0)
                fprintf(out, " %8.2f", table_mean_of(var, base->metrics[i].name));
        fprintf(out, " %8.2f %8.2f\n", table_mean_of(var, "core_watts"),
                table_mean_of(var, "pkg_watts"));
    }
}

static void table_render(const struct rpt_results *r, FILE *out)
{
    table_header(r, out);
    if (r->nvariants == 0)
        return;
    table_metrics(r, out);
    table_turbostat(r, out);
}

const struct rpt_format rpt_table_format = {
    .name = "table",
    .render = table_render,
};
