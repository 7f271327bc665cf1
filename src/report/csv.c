/* csv: one row per (variant, metric), RFC 4180 quoting, for spreadsheets and
 * scripts. Columns after ci95_hi hold the comparison with the first variant and
 * are empty on the first variant's rows. */
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
            fprintf(out, ",%s,%s,%d,%.10g,%.10g,%.10g,%.10g", m->name, m->unit, m->n, m->mean,
                    m->stddev, m->ci_lo, m->ci_hi);
            const struct rpt_comparison *c = rpt_find_comparison(r, var->name, m->name);
            if (c && v > 0)
                fprintf(out, ",%.6g,%.6g,%.6g,%.6g,%s\n", c->delta_pct, c->ci_lo_pct,
                        c->ci_hi_pct, c->p_value, c->verdict);
            else
                fputs(",,,,,\n", out);
        }
    }
}

const struct rpt_format rpt_csv_format = {
    .name = "csv",
    .render = csv_render,
};
