/* results: metric sets, per-variant summaries and Welch comparisons.
 *
 * Statistics: the 95 % CI of a mean is mean +- t(0.975, n-1) s / sqrt(n). The
 * comparison of variant V against base B is Welch's unequal-variance t-test:
 * se = sqrt(sV^2/nV + sB^2/nB), df by Welch-Satterthwaite, CI of the difference
 * = (mV - mB) +- t(0.975, df) se, expressed in % of |mB|. The verdict is "noise"
 * unless that CI excludes 0 (equivalently p < 0.05); then better/worse by the
 * metric's direction. t quantiles and CDFs come from GSL. */
#include "report/results.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/xalloc.h"

void rpt_set_put(struct rpt_metric_set *s, const char *name, const char *unit,
                 enum rpt_better better, double value)
{
    struct rpt_metric_value *slot = (struct rpt_metric_value *)rpt_set_get(s, name);
    if (!slot) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 16;
            s->m = xreallocarray(s->m, (size_t)s->cap, sizeof *s->m);
        }
        slot = &s->m[s->n++];
        memset(slot, 0, sizeof *slot);
        str_copy(slot->name, sizeof slot->name, name);
    }
    str_copy(slot->unit, sizeof slot->unit, unit);
    slot->better = better;
    slot->value = value;
}

/* Names are stored cut to RPT_NAME_MAX - 1 bytes (str_copy), so lookups
 * compare as much: a longer name then finds the entry it made instead of
 * adding another each time, which overran the per-replication arrays that
 * rpt_variant_summarize sizes by the number of sets. */
const struct rpt_metric_value *rpt_set_get(const struct rpt_metric_set *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strncmp(s->m[i].name, name, RPT_NAME_MAX - 1) == 0)
            return &s->m[i];
    return NULL;
}

const struct rpt_cpu_scope rpt_scope_host = { .cpus = NULL, .prefix = "" };

int rpt_scope_ncpus(const struct rpt_cpu_scope *sc, int ncpus)
{
    int n = 0;
    for (int cpu = 0; cpu < ncpus; cpu++)
        n += rpt_scope_has(sc, cpu);
    return n;
}

/* prefix + name into buf[RPT_NAME_MAX]; a name that does not fit is a bug. */
static const char *rpt_scope_name(const struct rpt_cpu_scope *sc, const char *name, char *buf)
{
    int n = snprintf(buf, RPT_NAME_MAX, "%s%s", sc->prefix, name);
    assert(n >= 0 && n < RPT_NAME_MAX);
    (void)n;
    return buf;
}

void rpt_scope_put(struct rpt_metric_set *s, const struct rpt_cpu_scope *sc, const char *name,
                   const char *unit, enum rpt_better better, double value)
{
    char buf[RPT_NAME_MAX];
    rpt_set_put(s, rpt_scope_name(sc, name, buf), unit, better, value);
}

const struct rpt_metric_value *rpt_scope_get(const struct rpt_metric_set *s,
                                             const struct rpt_cpu_scope *sc, const char *name)
{
    char buf[RPT_NAME_MAX];
    return rpt_set_get(s, rpt_scope_name(sc, name, buf));
}

const struct rpt_series *rpt_set_series(const struct rpt_metric_set *s, const char *name)
{
    for (int i = 0; i < s->nseries; i++)
        if (strncmp(s->series[i].name, name, RPT_NAME_MAX - 1) == 0) /* as rpt_set_get */
            return &s->series[i];
    return NULL;
}

static struct rpt_series *rpt_series_new(struct rpt_metric_set *s, const char *name,
                                         const char *const *cols, int ncols)
{
    s->series = xreallocarray(s->series, (size_t)s->nseries + 1, sizeof *s->series);
    struct rpt_series *sr = &s->series[s->nseries++];
    memset(sr, 0, sizeof *sr);
    str_copy(sr->name, sizeof sr->name, name);
    sr->ncols = ncols < RPT_SERIES_MAX_COLS ? ncols : RPT_SERIES_MAX_COLS;
    for (int c = 0; c < sr->ncols; c++)
        str_copy(sr->cols[c], sizeof sr->cols[c], cols[c]);
    return sr;
}

static void rpt_series_append(struct rpt_series *sr, const double *row)
{
    if (sr->nrows == sr->caprows) {
        sr->caprows = sr->caprows ? sr->caprows * 2 : 32;
        sr->rows = xreallocarray(sr->rows, (size_t)sr->caprows * (size_t)sr->ncols, sizeof *sr->rows);
    }
    memcpy(sr->rows + (size_t)sr->nrows * (size_t)sr->ncols, row, (size_t)sr->ncols * sizeof *row);
    sr->nrows++;
}

void rpt_set_series_row(struct rpt_metric_set *s, const char *name, const char *const *cols,
                        int ncols, const double *row)
{
    struct rpt_series *sr = (struct rpt_series *)rpt_set_series(s, name);
    if (!sr)
        sr = rpt_series_new(s, name, cols, ncols);
    rpt_series_append(sr, row);
}

static void rpt_series_copy(struct rpt_series *dst, const struct rpt_series *src)
{
    *dst = *src;
    dst->caprows = src->nrows;
    dst->rows = xcalloc((size_t)src->nrows * (size_t)src->ncols + 1, sizeof *dst->rows);
    memcpy(dst->rows, src->rows, (size_t)src->nrows * (size_t)src->ncols * sizeof *dst->rows);
}

void rpt_set_copy(struct rpt_metric_set *dst, const struct rpt_metric_set *src)
{
    for (int i = 0; i < src->n; i++)
        rpt_set_put(dst, src->m[i].name, src->m[i].unit, src->m[i].better, src->m[i].value);
    for (int i = 0; i < src->nseries; i++) {
        const struct rpt_series *sr = &src->series[i];
        struct rpt_series *d = rpt_series_new(dst, sr->name, NULL, 0);
        free(d->rows);
        rpt_series_copy(d, sr);
    }
}

void rpt_set_free(struct rpt_metric_set *s)
{
    for (int i = 0; i < s->nseries; i++)
        free(s->series[i].rows);
    free(s->series);
    free(s->m);
    memset(s, 0, sizeof *s);
}

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
    if (isnan(lo) || isnan(hi))
        return NULL; /* no usable values: nothing to judge */
    if (lo <= 0 && hi >= 0)
        return "noise";
    bool up = lo > 0;
    if (better == RPT_NEUTRAL)
        return up ? "higher" : "lower";
    return (up == (better == RPT_HIGHER_BETTER)) ? "better" : "worse";
}

/* Welch-Satterthwaite degrees of freedom, written with each side's share of
 * the variance of the difference so that tiny or huge variances neither
 * underflow nor overflow: (vb + vv)^2 / (vb^2 / ...) is 0/0 for variances
 * near 1e-320, and GSL's t functions reject the NaN. */
static double rpt_welch_df(double vb, int nb, double vv, int nv)
{
    double a = vb / (vb + vv), b = vv / (vb + vv);
    return 1 / (a * a / (nb - 1) + b * b / (nv - 1));
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
    if (!isfinite(diff) || !isfinite(se)) {
        /* A NaN replication, or values beyond the range of a double: no CI,
         * no p-value, no verdict (GSL would be handed NaN). */
        lo = hi = p = NAN;
    } else if (se > 0 && base->n > 1 && var->n > 1) {
        double df = rpt_welch_df(vb, base->n, vv, var->n);
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
