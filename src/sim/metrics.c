/* metrics: metric sets and series, see metrics.h. */
#include "sim/metrics.h"

#include <assert.h>
#include <stdio.h>
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

void rpt_series_copy(struct rpt_series *dst, const struct rpt_series *src)
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
