/* csv: one row per (variant, metric), RFC 4180 quoting, for spreadsheets and
 * scripts. Columns after ci95_hi hold the comparison with the first variant and
 * are empty on the first variant's rows; a number that does not exist (no
 * interval below 2 replications, no percentage of a zero baseline) is an
 * empty field. Columns are only ever appended, so scripts that read them by
 * position keep working. The turbostat views follow a variant's metrics as
 * rows of their own (csv_series_rows). */
#include <math.h>
#include <string.h>

#include "report/cells.h"
#include "report/results.h"

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A number, or an empty field for one that is not (no interval, no test). */
static void csv_num(FILE *out, double x)
{
    fputc(',', out);
    if (isfinite(x))
        fprintf(out, "%.6g", x);
}

/* The comparison columns of a variant's row, from delta_pct on. */
static void csv_comparison(FILE *out, const struct rpt_comparison *c)
{
    csv_num(out, c->delta_pct);
    csv_num(out, c->ci_lo_pct);
    csv_num(out, c->ci_hi_pct);
    csv_num(out, c->p_value);
    fprintf(out, ",%s", c->verdict);
    fprintf(out, ",%s", rpt_test_name(c->test));
    csv_num(out, c->delta);
    csv_num(out, c->ci_lo);
    csv_num(out, c->ci_hi);
    csv_num(out, c->p_adjusted);
    fputc(',', out);
    csv_field(out, c->delta_unit);
    fprintf(out, ",%s", c->absolute ? "absolute" : "relative");
}

/* The columns after saturated: the metric's class, its practical
 * threshold, and the smallest p a permutation test could give (empty for a
 * t test). */
static void csv_threshold(FILE *out, const struct rpt_comparison *c)
{
    fprintf(out, ",%s", rpt_effect_class_name(c->effect_class));
    csv_num(out, c->min_effect_pct);
    bool perm = c->test == RPT_TEST_SIGNFLIP || c->test == RPT_TEST_PERMUTATION;
    csv_num(out, perm ? c->p_min : NAN);
}

/* The unit of a turbostat series column. */
static const char *csv_series_unit(const char *col)
{
    return strstr(col, "mhz") ? "MHz" : strstr(col, "watts") ? "W" : "%";
}

/* The turbostat views (--per-cpu: per_cpu, per_type.TYPE; --interval:
 * interval) as rows after the metrics, one per row and column of the view,
 * named VIEW.ROW.COLUMN (per_cpu.cpu3.busy_pct, per_type.P.bzy_mhz,
 * interval.100ms.pkg_watts): n and the mean over the replications, no
 * interval or comparison (they are views, not compared metrics). */
static void csv_series_rows(const struct rpt_results *r, const struct rpt_variant *var, FILE *out)
{
    for (int k = 0; k < var->nseries; k++) {
        const struct rpt_variant_series *vs = &var->series[k];
        bool per_cpu = strcmp(vs->name, "per_cpu") == 0, interval = strcmp(vs->name, "interval") == 0;
        if ((!per_cpu && !interval && strncmp(vs->name, "per_type.", 9) != 0) || vs->nreps == 0)
            continue;
        const struct rpt_series *s0 = &vs->rep[0];
        for (int i = 0; i < s0->nrows; i++)
            for (int c = 1; c < s0->ncols; c++) {
                csv_field(out, r->scenario);
                fputc(',', out);
                csv_field(out, r->machine);
                fputc(',', out);
                csv_field(out, var->name);
                if (per_cpu)
                    fprintf(out, ",per_cpu.cpu%.0f.", s0->rows[i * s0->ncols]);
                else if (interval)
                    fprintf(out, ",interval.%.0fms.", rpt_series_mean(vs, i, 0));
                else
                    fprintf(out, ",%s.", vs->name);
                fprintf(out, "%s,%s,%d", s0->cols[c], csv_series_unit(s0->cols[c]), vs->nreps);
                double mean = rpt_series_mean(vs, i, c);
                fprintf(out, isfinite(mean) ? ",%.10g" : ",", mean);
                fputs(",,,,,,,,,,,,,,,", out);
                fprintf(out, ",%s,,,\n", !r->offered_metric ? "" : var->saturated ? "yes" : "no");
            }
    }
}

static void csv_render(const struct rpt_results *r, FILE *out)
{
    fputs("scenario,machine,variant,metric,unit,n,mean,stddev,ci95_lo,ci95_hi,"
          "delta_pct,delta_ci95_lo_pct,delta_ci95_hi_pct,p_value,verdict,"
          "test,delta,delta_ci95_lo,delta_ci95_hi,p_adjusted,delta_unit,delta_shown,saturated,"
          "effect_class,min_effect_pct,p_min\n", out);
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        for (int i = 0; i < var->nmetrics; i++) {
            const struct rpt_metric *m = &var->metrics[i];
            csv_field(out, r->scenario);
            fputc(',', out);
            csv_field(out, r->machine);
            fputc(',', out);
            csv_field(out, var->name);
            fprintf(out, ",%s,%s,%d", m->name, m->unit, m->n);
            /* Empty where there is no number: no interval below 2
             * replications; no mean at all without usable values (printf
             * would write nan or -nan, which spreadsheets read as text). */
            const double stats[] = { m->mean, m->stddev, m->ci_lo, m->ci_hi };
            for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++)
                fprintf(out, isfinite(stats[k]) ? ",%.10g" : ",", stats[k]);
            const struct rpt_comparison *c = rpt_find_comparison(r, var->name, m->name);
            if (c && v > 0)
                csv_comparison(out, c);
            else
                fputs(",,,,,,,,,,,,", out); /* the 12 comparison columns */
            /* open-loop workloads: yes or no on every row of the variant */
            fprintf(out, ",%s", !r->offered_metric ? "" : var->saturated ? "yes" : "no");
            if (c && v > 0)
                csv_threshold(out, c);
            else
                fputs(",,,", out);
            fputc('\n', out);
        }
        csv_series_rows(r, var, out);
    }
}

const struct rpt_format rpt_csv_format = {
    .name = "csv",
    .render = csv_render,
};
