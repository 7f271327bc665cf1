/* csv: one row per (variant, metric), RFC 4180 quoting, for spreadsheets and
 * scripts. Columns after ci95_hi hold the comparison with the first variant and
 * are empty on the first variant's rows. */
#include <math.h>
#include <string.h>

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

/* ",x" with x in %.*g, or "," alone for a number that is not there: printf
 * writes NaN as "nan" or "-nan" by its sign bit, which spreadsheets read as
 * text; an empty field is what CSV readers take as missing. */
static void csv_num(FILE *out, int prec, double x)
{
    if (isfinite(x))
        fprintf(out, ",%.*g", prec, x);
    else
        fputc(',', out);
}

static void csv_render(const struct rpt_results *r, FILE *out)
{
    fputs("scenario,machine,variant,metric,unit,n,mean,stddev,ci95_lo,ci95_hi,"
          "delta_pct,delta_ci95_lo_pct,delta_ci95_hi_pct,p_value,verdict\n", out);
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
            csv_num(out, 10, m->mean);
            csv_num(out, 10, m->stddev);
            csv_num(out, 10, m->ci_lo);
            csv_num(out, 10, m->ci_hi);
            const struct rpt_comparison *c = rpt_find_comparison(r, var->name, m->name);
            if (c && v > 0) {
                csv_num(out, 6, c->delta_pct);
                csv_num(out, 6, c->ci_lo_pct);
                csv_num(out, 6, c->ci_hi_pct);
                csv_num(out, 6, c->p_value);
                fprintf(out, ",%s\n", c->verdict ? c->verdict : "");
            } else {
                fputs(",,,,,\n", out);
            }
        }
    }
}

const struct rpt_format rpt_csv_format = {
    .name = "csv",
    .render = csv_render,
};
