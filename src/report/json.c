/* json: the machine-readable report, schema of DESIGN.md §7, through jansson.
 * Object keys keep insertion order (JSON_PRESERVE_ORDER) and reals print with
 * 17 significant digits, so equal results give byte-identical files.
 * Non-finite numbers (which JSON cannot hold) are written as null. */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "report/results.h"

static json_t *json_num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *json_str(const char *s)
{
    return json_string(s ? s : "");
}

/* A 95 % interval, or null without one. */
static json_t *json_interval(double lo, double hi)
{
    if (isnan(lo) || isnan(hi))
        return json_null();
    return json_pack("[oo]", json_num(lo), json_num(hi));
}

static json_t *json_metric(const struct rpt_metric *m)
{
    json_t *o = json_object();
    json_t *values = json_array();
    for (int i = 0; i < m->n; i++)
        json_array_append_new(values, json_num(m->values[i]));
    json_object_set_new(o, "unit", json_str(m->unit));
    json_object_set_new(o, "better", json_string(m->better == RPT_HIGHER_BETTER  ? "higher"
                                                 : m->better == RPT_LOWER_BETTER ? "lower"
                                                                                 : "neutral"));
    json_object_set_new(o, "mean", json_num(m->mean));
    json_object_set_new(o, "stddev", json_num(m->stddev));
    json_object_set_new(o, "ci95", json_interval(m->ci_lo, m->ci_hi));
    json_object_set_new(o, "values", values);
    return o;
}

/* {"columns": [...], "replications": [[row, ...] per replication]} */
static json_t *json_series(const struct rpt_variant_series *vs)
{
    json_t *o = json_object();
    json_t *cols = json_array();
    int ncols = vs->nreps > 0 ? vs->rep[0].ncols : 0;
    for (int c = 0; c < ncols; c++)
        json_array_append_new(cols, json_string(vs->rep[0].cols[c]));
    json_object_set_new(o, "columns", cols);
    json_t *reps = json_array();
    for (int r = 0; r < vs->nreps; r++) {
        const struct rpt_series *sr = &vs->rep[r];
        json_t *rows = json_array();
        for (int i = 0; i < sr->nrows; i++) {
            json_t *row = json_array();
            for (int c = 0; c < sr->ncols; c++)
                json_array_append_new(row, json_num(sr->rows[(size_t)i * (size_t)sr->ncols + (size_t)c]));
            json_array_append_new(rows, row);
        }
        json_array_append_new(reps, rows);
    }
    json_object_set_new(o, "replications", reps);
    return o;
}

static json_t *json_variant(const struct rpt_variant *v, bool open_loop)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_str(v->name));
    json_object_set_new(o, "kernel", json_str(v->kernel));
    json_object_set_new(o, "patches", json_str(v->patches));
    json_object_set_new(o, "cmdline", json_str(v->cmdline));
    json_object_set_new(o, "sysfs", json_str(v->sysfs));
    json_object_set_new(o, "config", json_str(v->config));
    if (v->workload && *v->workload)    /* only where the variant has its own */
        json_object_set_new(o, "workload", json_str(v->workload));
    if (v->settings)
        json_object_set_new(o, "settings", json_str(v->settings));
    if (open_loop)
        json_object_set_new(o, "saturated", json_boolean(v->saturated));
    if (!isnan(v->warmup_ms))
        json_object_set_new(o, "warmup", json_pack("{s:o, s:o, s:b}", "mser5_ms",
                                                   json_num(v->transient_ms), "warmup_ms",
                                                   json_num(v->warmup_ms), "short",
                                                   v->warmup_short));
    json_t *metrics = json_object();
    for (int i = 0; i < v->nmetrics; i++)
        json_object_set_new(metrics, v->metrics[i].name, json_metric(&v->metrics[i]));
    json_object_set_new(o, "metrics", metrics);
    if (v->nseries > 0) {
        json_t *series = json_object();
        for (int i = 0; i < v->nseries; i++)
            json_object_set_new(series, v->series[i].name, json_series(&v->series[i]));
        json_object_set_new(o, "series", series);
    }
    return o;
}

static json_t *json_comparison(const struct rpt_comparison *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "metric", json_str(c->metric));
    json_object_set_new(o, "base", json_str(c->base));
    json_object_set_new(o, "variant", json_str(c->variant));
    json_object_set_new(o, "test", json_string(rpt_test_name(c->test)));
    json_object_set_new(o, "n_base", json_integer(c->n_base));
    json_object_set_new(o, "n_variant", json_integer(c->n_variant));
    json_object_set_new(o, "delta_pct", json_num(c->delta_pct));
    json_object_set_new(o, "ci95_pct", json_interval(c->ci_lo_pct, c->ci_hi_pct));
    json_object_set_new(o, "delta", json_num(c->delta));
    json_object_set_new(o, "ci95", json_interval(c->ci_lo, c->ci_hi));
    json_object_set_new(o, "constant", json_boolean(c->constant));
    json_object_set_new(o, "delta_unit", json_str(c->delta_unit));
    json_object_set_new(o, "delta_shown", json_string(c->absolute ? "absolute" : "relative"));
    json_object_set_new(o, "p_value", json_num(c->p_value));
    json_object_set_new(o, "p_adjusted", json_num(c->p_adjusted));
    json_object_set_new(o, "verdict", json_str(c->verdict));
    json_object_set_new(o, "effect_class", json_string(rpt_effect_class_name(c->effect_class)));
    json_object_set_new(o, "min_effect_pct", json_num(c->min_effect_pct));
    bool perm = c->test == RPT_TEST_SIGNFLIP || c->test == RPT_TEST_PERMUTATION;
    json_object_set_new(o, "p_min", json_num(perm ? c->p_min : NAN));
    return o;
}

/* "measured": the scenario's [measured] values, each with every variant's
 * prediction ({"metric", "measured", "predictions": [{"variant", "mean",
 * "ci95", "gap", "gap_pct"}]}; mean and gap null when the variant reports
 * no such metric). */
static json_t *json_measured(const struct rpt_results *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->nmeasured; i++) {
        const struct rpt_measured *mv = &r->measured[i];
        json_t *preds = json_array();
        for (int v = 0; v < r->nvariants; v++) {
            double gap, gap_pct;
            const struct rpt_metric *m = rpt_measured_gap(&r->variants[v], mv, &gap, &gap_pct);
            json_t *p = json_object();
            json_object_set_new(p, "variant", json_str(r->variants[v].name));
            json_object_set_new(p, "mean", json_num(m ? m->mean : NAN));
            json_object_set_new(p, "ci95", m ? json_interval(m->ci_lo, m->ci_hi) : json_null());
            json_object_set_new(p, "gap", json_num(gap));
            json_object_set_new(p, "gap_pct", json_num(gap_pct));
            json_array_append_new(preds, p);
        }
        json_t *o = json_object();
        json_object_set_new(o, "metric", json_str(mv->metric));
        json_object_set_new(o, "measured", json_num(mv->value));
        json_object_set_new(o, "predictions", preds);
        json_array_append_new(arr, o);
    }
    return arr;
}

/* {"sha256", "overrides": [--set texts], "commit", "text"}: what the run
 * was besides its variants (results.h config_text), or NULL when not
 * recorded. */
static json_t *json_configuration(const struct rpt_results *r)
{
    if (!r->config_text)
        return NULL;
    json_t *sets = json_array();
    for (int i = 0; i < r->nsets; i++)
        json_array_append_new(sets, json_str(r->sets[i]));
    return json_pack("{s:s, s:o, s:o, s:o}", "sha256", r->config_sha256, "overrides", sets,
                     "commit", json_str(r->commit), "text", json_str(r->config_text));
}

static void json_render(const struct rpt_results *r, FILE *out)
{
    json_t *root = json_object();
    json_object_set_new(root, "pmlab", json_string(PMLAB_VERSION));
    json_object_set_new(root, "scenario", json_str(r->scenario));
    json_object_set_new(root, "machine", json_str(r->machine));
    json_object_set_new(root, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(root, "reps", json_integer(r->reps));
    json_object_set_new(root, "quick", json_boolean(r->quick));
    json_t *config = json_configuration(r);
    if (config)
        json_object_set_new(root, "configuration", config);
    json_object_set_new(root, "paired", json_boolean(r->paired));
    if (!r->paired && r->unpaired_why)
        json_object_set_new(root, "unpaired", json_string(r->unpaired_why));
    json_object_set_new(root, "adjustment", json_string("holm"));
    json_t *min_effect = json_object();
    for (int k = 0; k < RPT_NEFFECT_CLASSES; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_pct", rpt_effect_class_name(k));
        json_object_set_new(min_effect, key, json_real(r->min_effect.pct[k]));
    }
    json_object_set_new(root, "min_effect", min_effect);
    if (r->cpus)
        json_object_set_new(root, "cpus", json_string(r->cpus));
    if (r->primary)
        json_object_set_new(root, "primary", json_string(r->primary));
    if (r->offered_metric && r->served_metric)
        json_object_set_new(root, "open_loop", json_pack("{s:s, s:s}", "offered", r->offered_metric,
                                                         "served", r->served_metric));
    json_t *variants = json_array();
    for (int v = 0; v < r->nvariants; v++)
        json_array_append_new(variants, json_variant(&r->variants[v], r->offered_metric != NULL));
    json_object_set_new(root, "variants", variants);
    json_t *cmp = json_array();
    for (int i = 0; i < r->ncmp; i++)
        json_array_append_new(cmp, json_comparison(&r->cmp[i]));
    json_object_set_new(root, "comparisons", cmp);
    if (r->nmeasured > 0)
        json_object_set_new(root, "measured", json_measured(r));
    json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', out);
    json_decref(root);
}

const struct rpt_format rpt_json_format = {
    .name = "json",
    .render = json_render,
};
