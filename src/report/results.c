/* results: per-variant summaries of metric sets and Welch comparisons.
 *
 * Statistics: the 95 % CI of a mean is mean +- t(0.975, n-1) s / sqrt(n). The
 * comparison of variant V against base B is Welch's unequal-variance t-test:
 * se = sqrt(sV^2/nV + sB^2/nB), df by Welch-Satterthwaite, CI of the difference
 * = (mV - mB) +- t(0.975, df) se, expressed in % of |mB|. The verdict is "noise"
 * unless that CI excludes 0 (equivalently p < 0.05); then better/worse by the
 * metric's direction. t quantiles and CDFs come from GSL. */
#include "report/results.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/xalloc.h"

/* Gather each replication's copy of every series into v->series. */
static void rpt_variant_gather_series(struct rpt_variant *v, const struct rpt_metric_set *sets,
                                      int reps)
{
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < sets[r].nseries; i++) {
            const struct rpt_series *sr = &sets[r].series[i];
            struct rpt_variant_series *vs = NULL;
            for (int k = 0; k < v->nseries && !vs; k++)
                if (strcmp(v->series[k].name, sr->name) == 0)
                    vs = &v->series[k];
            if (!vs) {
                v->series = xreallocarray(v->series, (size_t)v->nseries + 1, sizeof *v->series);
                vs = &v->series[v->nseries++];
                memset(vs, 0, sizeof *vs);
                str_copy(vs->name, sizeof vs->name, sr->name);
                vs->rep = xcalloc((size_t)reps, sizeof *vs->rep);
            }
            rpt_series_copy(&vs->rep[vs->nreps++], sr);
        }
    }
}

static void rpt_metric_finish(struct rpt_metric *m)
{
    double sum = 0, ss = 0;
    for (int i = 0; i < m->n; i++)
        sum += m->values[i];
    m->mean = m->n ? sum / m->n : 0;
    for (int i = 0; i < m->n; i++)
        ss += (m->values[i] - m->mean) * (m->values[i] - m->mean);
    m->stddev = m->n > 1 ? sqrt(ss / (m->n - 1)) : 0;
    double half = 0;
    if (m->n > 1)
        half = gsl_cdf_tdist_Pinv(0.975, m->n - 1) * m->stddev / sqrt(m->n);
    m->ci_lo = m->mean - half;
    m->ci_hi = m->mean + half;
}

static struct rpt_metric *rpt_variant_add_metric(struct rpt_variant *v,
                                                 const struct rpt_metric_value *mv, int reps)
{
    v->metrics = xreallocarray(v->metrics, (size_t)v->nmetrics + 1, sizeof *v->metrics);
    struct rpt_metric *m = &v->metrics[v->nmetrics++];
    memset(m, 0, sizeof *m);
    str_copy(m->name, sizeof m->name, mv->name);
    str_copy(m->unit, sizeof m->unit, mv->unit);
    m->better = mv->better;
    m->values = xcalloc((size_t)reps, sizeof *m->values);
    return m;
}

void rpt_variant_summarize(struct rpt_variant *v, const struct rpt_metric_set *sets, int reps)
{
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < sets[r].n; i++) {
            const struct rpt_metric_value *mv = &sets[r].m[i];
            struct rpt_metric *m = (struct rpt_metric *)rpt_variant_metric(v, mv->name);
            if (!m)
                m = rpt_variant_add_metric(v, mv, reps);
            m->values[m->n++] = mv->value;
        }
    }
    for (int i = 0; i < v->nmetrics; i++)
        rpt_metric_finish(&v->metrics[i]);
    rpt_variant_gather_series(v, sets, reps);
}

const struct rpt_metric *rpt_variant_metric(const struct rpt_variant *v, const char *name)
{
    for (int i = 0; i < v->nmetrics; i++)
        if (strcmp(v->metrics[i].name, name) == 0)
            return &v->metrics[i];
    return NULL;
}

double rpt_variant_mean(const struct rpt_variant *v, const char *name, double missing)
{
    const struct rpt_metric *m = rpt_variant_metric(v, name);
    return m ? m->mean : missing;
}

const struct rpt_comparison *rpt_find_comparison(const struct rpt_results *r, const char *variant,
                                                 const char *metric)
{
    for (int i = 0; i < r->ncmp; i++)
        if (strcmp(r->cmp[i].variant, variant) == 0 && strcmp(r->cmp[i].metric, metric) == 0)
            return &r->cmp[i];
    return NULL;
}

static const char *rpt_verdict(enum rpt_better better, double lo, double hi)
{
    if (lo <= 0 && hi >= 0)
        return "noise";
    bool up = lo > 0;
    if (better == RPT_NEUTRAL)
        return up ? "higher" : "lower";
    return (up == (better == RPT_HIGHER_BETTER)) ? "better" : "worse";
}

void rpt_compare_metric(const struct rpt_metric *base, const struct rpt_metric *var,
                        struct rpt_comparison *out)
{
    str_copy(out->metric, sizeof out->metric, base->name);
    double diff = var->mean - base->mean;
    double vb = base->n > 0 ? base->stddev * base->stddev / base->n : 0;
    double vv = var->n > 0 ? var->stddev * var->stddev / var->n : 0;
    double se = sqrt(vb + vv);
    /* A change from a zero baseline has no percentage: NaN (null in JSON,
     * "n/a" in the table); no change from zero is 0 %. */
    double scale = fabs(base->mean) > 0 ? 100.0 / fabs(base->mean) : diff == 0 ? 0 : NAN;
    double lo = diff, hi = diff, p = 1.0;
    if (se > 0 && base->n > 1 && var->n > 1) {
        double df = (vb + vv) * (vb + vv) /
                    (vb * vb / (base->n - 1) + vv * vv / (var->n - 1));
        double t = diff / se;
        p = 2 * gsl_cdf_tdist_Q(fabs(t), df);
        double half = gsl_cdf_tdist_Pinv(0.975, df) * se;
        lo = diff - half;
        hi = diff + half;
    } else if (diff == 0) {
        p = 1.0;
    } else {
        /* No spread on either side (deterministic metric): any difference is
         * exact, so it is significant. */
        p = 0.0;
    }
    out->delta_pct = diff * scale;
    out->ci_lo_pct = lo * scale;
    out->ci_hi_pct = hi * scale;
    out->p_value = p;
    out->verdict = rpt_verdict(base->better, lo, hi);
}

void rpt_compare_all(struct rpt_results *r)
{
    if (r->nvariants < 2)
        return;
    const struct rpt_variant *b = &r->variants[0];
    for (int v = 1; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        for (int i = 0; i < b->nmetrics; i++) {
            const struct rpt_metric *mv = rpt_variant_metric(var, b->metrics[i].name);
            if (!mv)
                continue;
            r->cmp = xreallocarray(r->cmp, (size_t)r->ncmp + 1, sizeof *r->cmp);
            struct rpt_comparison *c = &r->cmp[r->ncmp++];
            rpt_compare_metric(&b->metrics[i], mv, c);
            c->base = b->name;
            c->variant = var->name;
        }
    }
}

void rpt_results_free(struct rpt_results *r)
{
    for (int v = 0; v < r->nvariants; v++) {
        struct rpt_variant *var = &r->variants[v];
        for (int i = 0; i < var->nmetrics; i++)
            free(var->metrics[i].values);
        free(var->metrics);
        for (int i = 0; i < var->nseries; i++) {
            for (int k = 0; k < var->series[i].nreps; k++)
                free(var->series[i].rep[k].rows);
            free(var->series[i].rep);
        }
        free(var->series);
        free(var->name);
        free(var->kernel);
        free(var->patches);
        free(var->cmdline);
        free(var->sysfs);
        free(var->config);
    }
    free(r->variants);
    free(r->cmp);
    free(r->scenario);
    free(r->description);
    free(r->machine);
    free(r->machine_desc);
    free(r->cpus);
    memset(r, 0, sizeof *r);
}

extern const struct rpt_format rpt_table_format, rpt_json_format, rpt_csv_format;

const struct rpt_format *const rpt_formats[] = {
    &rpt_table_format,
    &rpt_json_format,
    &rpt_csv_format,
    NULL,
};

const struct rpt_format *rpt_format_find(const char *name)
{
    for (const struct rpt_format *const *f = rpt_formats; *f; f++)
        if (strcmp((*f)->name, name) == 0)
            return *f;
    return NULL;
}
