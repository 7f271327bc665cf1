/* results: per-variant summaries of metric sets and their comparisons.
 *
 * Statistics: the 95 % CI of a mean is mean +- t(0.975, n-1) s / sqrt(n); one
 * replication has none. Variant V is compared with base B replication by
 * replication when the runs are paired (common random numbers: the paired t
 * interval on the differences, narrower than either side's spread by as much
 * of it as the shared workload causes), else -- and for a quantized metric
 * whose pairs all differ alike (rpt_paired_degenerate) -- by Welch's
 * unequal-variance t-test (report/inference.h). Each variant's p-values over all its host-wide
 * metrics (and, as a family of its own, over its --cpus view) are then
 * adjusted by Holm's step-down method, so the chance of any false
 * better/worse among them stays under 5 % (family-wise): 20-80 metrics
 * each tested at 5 % alone would show a few "significant" changes between
 * two identical configurations. Holm rather than Benjamini-Hochberg because
 * the verdicts are read one metric at a time, as claims, and because these
 * metrics are dependent in both directions (residency shares sum to 100 %,
 * power follows busy time): Holm holds under any dependence, BH's false
 * discovery rate only under positive dependence. A sample a t test cannot
 * judge (ties dominate: a constant side, a few levels) gets the exact
 * permutation test instead (inference.h). The verdict is "noise" unless the
 * adjusted p is under 0.05; then "negligible" when the change is under its
 * class's practical threshold (struct rpt_min_effect), else better/worse by
 * the metric's direction. A delta is shown in % of |mB|, or, for a near-zero baseline, as
 * a difference in percentage points or the metric's unit. */
#include "report/results.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/inference.h"
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

bool rpt_unit_range(const char *unit, double *lo, double *hi)
{
    static const char *const nonnegative[] = { "", "ns", "us", "ms", "s", "W", "MHz", "1/s",
                                               "req/s", "jOPS", "MB/s", "points" };
    *lo = 0;
    *hi = INFINITY;
    if (strcmp(unit, "%") == 0)
        return *hi = 100, true;
    for (size_t i = 0; i < sizeof nonnegative / sizeof nonnegative[0]; i++)
        if (strcmp(unit, nonnegative[i]) == 0)
            return true;
    return false;
}

bool rpt_metric_range(const struct rpt_metric *m, double *lo, double *hi)
{
    if (!rpt_unit_range(m->unit, lo, hi))
        return false;
    /* A value outside the range says the unit does not describe this
     * metric: no bound is claimed for it. */
    for (int i = 0; i < m->n; i++)
        if (!(m->values[i] >= *lo && m->values[i] <= *hi))
            return false;
    return true;
}

bool rpt_metric_constant(const struct rpt_metric *m)
{
    if (m->n < 2)
        return false;
    for (int i = 1; i < m->n; i++)
        if (!(m->values[i] == m->values[0]))
            return false;
    return true;
}

/* The t interval of the mean, cut to the metric's range (rpt_metric_range).
 * The true mean of a quantity in [lo, hi] is in [lo, hi], so the cut
 * interval covers it whenever the t interval does: the coverage is the
 * same, and no end claims an impossible value (a share under 0 %, a
 * latency under 0 us). */
static void rpt_metric_finish(struct rpt_metric *m)
{
    double sum = 0, ss = 0;
    for (int i = 0; i < m->n; i++)
        sum += m->values[i];
    m->mean = m->n ? sum / m->n : 0;
    for (int i = 0; i < m->n; i++)
        ss += (m->values[i] - m->mean) * (m->values[i] - m->mean);
    m->stddev = m->n > 1 ? sqrt(ss / (m->n - 1)) : 0;
    /* One replication says nothing about the spread: no interval. */
    double half = NAN;
    if (m->n > 1)
        half = gsl_cdf_tdist_Pinv(1 - RPT_ALPHA / 2, m->n - 1) * m->stddev / sqrt(m->n);
    m->half_width = half;
    m->ci_lo = m->mean - half;
    m->ci_hi = m->mean + half;
    m->ci_cut = false;
    double lo, hi;
    if (isfinite(half) && rpt_metric_range(m, &lo, &hi)) {
        m->ci_cut = m->ci_lo < lo || m->ci_hi > hi;
        m->ci_lo = fmax(m->ci_lo, lo);
        m->ci_hi = fmin(m->ci_hi, hi);
    }
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

void rpt_mark_saturation(struct rpt_results *r, const char *offered, const char *served)
{
    free(r->offered_metric);
    free(r->served_metric);
    r->offered_metric = xstrdup(offered);
    r->served_metric = xstrdup(served);
    for (int i = 0; i < r->nvariants; i++) {
        struct rpt_variant *v = &r->variants[i];
        const struct rpt_metric *o = rpt_variant_metric(v, offered);
        const struct rpt_metric *s = rpt_variant_metric(v, served);
        v->saturated = false;
        if (!o || !s)
            continue;
        v->offered = o->mean;
        v->served = s->mean;
        v->saturated = s->mean < o->mean * (1 - RPT_SATURATION_PCT / 100);
    }
}

static const struct rpt_variant_series *rpt_variant_series_get(const struct rpt_variant *v,
                                                               const char *name)
{
    for (int i = 0; i < v->nseries; i++)
        if (strcmp(v->series[i].name, name) == 0)
            return &v->series[i];
    return NULL;
}

void rpt_check_warmup(struct rpt_results *r)
{
    for (int i = 0; i < r->nvariants; i++) {
        struct rpt_variant *v = &r->variants[i];
        const struct rpt_variant_series *vs = rpt_variant_series_get(v, "steady_state");
        double sum = 0;
        int n = 0;
        v->transient_ms = v->warmup_ms = NAN;
        for (int k = 0; vs && k < vs->nreps; k++) {
            const struct rpt_series *sr = &vs->rep[k];
            if (sr->nrows < 1 || sr->ncols < 2 || !(sr->rows[0] >= 0))
                continue; /* too few observations for MSER-5 */
            sum += sr->rows[0];
            v->warmup_ms = sr->rows[1];
            n++;
        }
        if (n > 0)
            v->transient_ms = sum / n;
        /* A saturated variant never settles; its saturation says more. */
        v->warmup_short = n > 0 && v->transient_ms > v->warmup_ms && !v->saturated;
    }
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

const char *rpt_test_name(enum rpt_test t)
{
    switch (t) {
    case RPT_TEST_PAIRED:
        return "paired-t";
    case RPT_TEST_WELCH:
        return "welch-t";
    case RPT_TEST_SIGNFLIP:
        return "sign-flip";
    case RPT_TEST_PERMUTATION:
        return "permutation";
    case RPT_TEST_NONE:
        break;
    }
    return "none";
}

/* Near-zero baselines. A percentage of a baseline near zero is huge and says
 * nothing ("poll_pct +26,739,386 %"); under these thresholds the delta is
 * shown as a difference: of a share in percentage points, of a count or an
 * event rate in its unit. Any metric with a zero baseline has no
 * percentage at all. */
static const struct {
    const char *unit;
    double below;            /* |baseline mean| under this is near zero */
    const char *shown_unit;
} rpt_near_zero[] = {
    { "%", 1.0, "pp" },      /* a share under one percentage point */
    { "", 1.0, "" },         /* a count under one */
    { "1/s", 1.0, "1/s" },   /* an event rate under one a second */
};

static void rpt_choose_scale(const struct rpt_metric *base, struct rpt_comparison *out)
{
    double mb = fabs(base->mean);
    out->absolute = mb == 0;
    str_copy(out->delta_unit, sizeof out->delta_unit, out->absolute ? base->unit : "%");
    for (size_t i = 0; i < sizeof rpt_near_zero / sizeof rpt_near_zero[0]; i++)
        if (strcmp(base->unit, rpt_near_zero[i].unit) == 0 && mb < rpt_near_zero[i].below) {
            out->absolute = true;
            str_copy(out->delta_unit, sizeof out->delta_unit, rpt_near_zero[i].shown_unit);
        }
}

const struct rpt_min_effect rpt_min_effect_default = {
    .pct = { [RPT_EFFECT_POWER] = 0.5, [RPT_EFFECT_THROUGHPUT] = 0.5, [RPT_EFFECT_LATENCY] = 2,
             [RPT_EFFECT_OTHER] = 0 },
};

static const char *const rpt_effect_names[RPT_NEFFECT_CLASSES] = {
    [RPT_EFFECT_POWER] = "power", [RPT_EFFECT_THROUGHPUT] = "throughput",
    [RPT_EFFECT_LATENCY] = "latency", [RPT_EFFECT_OTHER] = "other",
};

const char *rpt_effect_class_name(enum rpt_effect_class c)
{
    return c >= 0 && c < RPT_NEFFECT_CLASSES ? rpt_effect_names[c] : "other";
}

int rpt_effect_class_find(const char *name)
{
    for (int c = 0; c < RPT_NEFFECT_CLASSES; c++)
        if (strcmp(rpt_effect_names[c], name) == 0)
            return c;
    return -1;
}

enum rpt_effect_class rpt_metric_effect_class(const char *unit, enum rpt_better better)
{
    static const char *const power[] = { "W", "mW", "J" }, *const time[] = { "ns", "us", "ms", "s" };
    for (size_t i = 0; i < sizeof power / sizeof power[0]; i++)
        if (strcmp(unit, power[i]) == 0)
            return RPT_EFFECT_POWER;
    for (size_t i = 0; i < sizeof time / sizeof time[0]; i++)
        if (strcmp(unit, time[i]) == 0)
            return RPT_EFFECT_LATENCY;
    return better == RPT_HIGHER_BETTER ? RPT_EFFECT_THROUGHPUT : RPT_EFFECT_OTHER;
}

/* Under the practical threshold. A change from a zero baseline has no
 * percentage and is never under it. */
static bool rpt_below_min_effect(const struct rpt_comparison *c)
{
    return c->min_effect_pct > 0 && isfinite(c->delta_pct) &&
           fabs(c->delta_pct) < c->min_effect_pct;
}

static const char *rpt_verdict(enum rpt_better better, const struct rpt_comparison *c)
{
    if (c->test == RPT_TEST_NONE)
        return "n/a";
    if (!(c->p_adjusted < RPT_ALPHA) || c->delta == 0)
        return "noise";
    if (rpt_below_min_effect(c))
        return "negligible";
    bool up = c->delta > 0;
    if (better == RPT_NEUTRAL)
        return up ? "higher" : "lower";
    return (up == (better == RPT_HIGHER_BETTER)) ? "better" : "worse";
}

/* Every pair differs by the same amount while the values themselves vary:
 * a quantized metric (a percentile on histogram buckets, a rate on the RT
 * curve's steps) whose differences fall below its resolution, not an exact
 * difference. The paired variance (0) says nothing then, and p = 0 would
 * claim certainty; the unpaired test uses the spread that is there. */
static bool rpt_paired_degenerate(const struct rpt_metric *base, const struct rpt_metric *var,
                                  const struct rpt_diff_test *t)
{
    return t->ci_lo == t->ci_hi && t->diff != 0 && (base->stddev > 0 || var->stddev > 0);
}

/* Paired on the differences, unless they have fewer than 2 pairs, or are
 * degenerate (then unpaired), or discrete (then sign flips). */
static enum rpt_test rpt_paired_test(const struct rpt_metric *base, const struct rpt_metric *var,
                                     uint64_t seed, struct rpt_diff_test *t)
{
    if (rpt_paired_t(base->values, var->values, base->n, t) != 0 ||
        rpt_paired_degenerate(base, var, t))
        return RPT_TEST_NONE;
    double *d = xcalloc((size_t)base->n, sizeof *d);
    for (int i = 0; i < base->n; i++)
        d[i] = var->values[i] - base->values[i];
    bool discrete = rpt_sample_discrete(d, base->n);
    free(d);
    if (!discrete)
        return RPT_TEST_PAIRED;
    return rpt_signflip_test(base->values, var->values, base->n, seed, t) == 0 ? RPT_TEST_SIGNFLIP
                                                                               : RPT_TEST_NONE;
}

static enum rpt_test rpt_unpaired_test(const struct rpt_metric *base,
                                       const struct rpt_metric *var, uint64_t seed,
                                       struct rpt_diff_test *t)
{
    if (rpt_welch_t(base->values, base->n, var->values, var->n, t) != 0)
        return RPT_TEST_NONE;
    if (!rpt_t_unsuited(base->values, base->n, var->values, var->n))
        return RPT_TEST_WELCH;
    return rpt_perm_test(base->values, base->n, var->values, var->n, seed, t) == 0
               ? RPT_TEST_PERMUTATION
               : RPT_TEST_NONE;
}

/* A delta's interval cut at the changes that would take the variant's mean
 * out of the metric's range [lo, hi] from the baseline's mean: mean_v - mean_b
 * lies in [lo - mean_b, hi - mean_b] (a nonnegative quantity cannot fall by
 * more than 100 %, a share cannot rise past 100 %). The baseline's mean
 * stands for its true value here, as it does in the delta's percentage. */
static void rpt_cut_delta(const struct rpt_metric *base, const struct rpt_metric *var,
                          struct rpt_comparison *out)
{
    double lo, hi, lo_v, hi_v;
    if (!rpt_metric_range(base, &lo, &hi) || !rpt_metric_range(var, &lo_v, &hi_v))
        return;
    double cut_lo = lo - base->mean, cut_hi = hi - base->mean;
    out->ci_cut = out->ci_lo < cut_lo || out->ci_hi > cut_hi;
    out->ci_lo = fmax(out->ci_lo, cut_lo);
    out->ci_hi = fmin(out->ci_hi, cut_hi);
}

void rpt_compare_metric(const struct rpt_metric *base, const struct rpt_metric *var, bool paired,
                        uint64_t seed, const struct rpt_min_effect *min_effect,
                        struct rpt_comparison *out)
{
    memset(out, 0, sizeof *out);
    str_copy(out->metric, sizeof out->metric, base->name);
    out->n_base = base->n;
    out->n_variant = var->n;
    out->delta = var->mean - base->mean;
    struct rpt_diff_test t = { 0 };
    out->test = RPT_TEST_NONE;
    if (paired && base->n == var->n)
        out->test = rpt_paired_test(base, var, seed, &t);
    if (out->test == RPT_TEST_NONE)
        out->test = rpt_unpaired_test(base, var, seed, &t);
    out->p_min = out->test ? t.p_min : NAN;
    out->rearrangements = out->test ? t.rearrangements : 0;
    out->exact = t.exact;
    out->ci_lo = out->test ? t.ci_lo : NAN;
    out->ci_hi = out->test ? t.ci_hi : NAN;
    if (out->test)
        rpt_cut_delta(base, var, out);
    out->constant = rpt_metric_constant(base) && rpt_metric_constant(var);
    out->p_value = out->p_adjusted = out->test ? t.p_value : NAN;
    /* No change from zero is 0 %; a change from zero has no percentage. */
    double scale = base->mean != 0 ? 100.0 / fabs(base->mean) : out->delta == 0 ? 0 : NAN;
    out->delta_pct = out->delta * scale;
    out->ci_lo_pct = out->ci_lo * scale;
    out->ci_hi_pct = out->ci_hi * scale;
    rpt_choose_scale(base, out);
    out->effect_class = rpt_metric_effect_class(base->unit, base->better);
    out->min_effect_pct = min_effect ? min_effect->pct[out->effect_class] : 0;
    out->verdict = rpt_verdict(base->better, out);
}

/* Whether a metric belongs to the per-CPU view (--cpus) rather than the
 * host-wide metrics. */
static bool rpt_in_cpus_view(const char *metric)
{
    return strncmp(metric, RPT_CPUS_PREFIX, strlen(RPT_CPUS_PREFIX)) == 0;
}

/* Holm over one family -- the comparisons among cmp[first .. first + n)
 * (one variant's) in the per-CPU view or not -- then their verdicts from
 * the adjusted p-values. The host-wide metrics and the --cpus view are
 * separate families, so asking for the view changes no host-wide verdict. */
static void rpt_adjust_family(struct rpt_results *r, int first, int n, bool cpus_view)
{
    double *p = xcalloc((size_t)n + 1, sizeof *p), *adj = xcalloc((size_t)n + 1, sizeof *adj);
    for (int i = 0; i < n; i++) {
        const struct rpt_comparison *c = &r->cmp[first + i];
        p[i] = rpt_in_cpus_view(c->metric) == cpus_view ? c->p_value : NAN;
    }
    rpt_holm(p, n, adj);
    for (int i = 0; i < n; i++) {
        struct rpt_comparison *c = &r->cmp[first + i];
        if (rpt_in_cpus_view(c->metric) != cpus_view)
            continue;
        const struct rpt_metric *b = rpt_variant_metric(&r->variants[0], c->metric);
        c->p_adjusted = adj[i];
        c->verdict = rpt_verdict(b->better, c);
    }
    free(p);
    free(adj);
}

/* The seed of one comparison's Monte-Carlo draws: the run's seed mixed
 * with the variant and the metric's name (FNV-1a), so that each metric has
 * a stream of its own and a report is a pure function of (scenario, seed). */
static uint64_t rpt_metric_seed(uint64_t seed, int variant, const char *metric)
{
    uint64_t h = 14695981039346656037ull ^ seed;
    for (const char *c = metric; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h ^ ((uint64_t)variant << 32);
}

void rpt_compare_all(struct rpt_results *r)
{
    if (r->nvariants < 2)
        return;
    const struct rpt_variant *b = &r->variants[0];
    for (int v = 1; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        int first = r->ncmp;
        for (int i = 0; i < b->nmetrics; i++) {
            const struct rpt_metric *mv = rpt_variant_metric(var, b->metrics[i].name);
            if (!mv)
                continue;
            r->cmp = xreallocarray(r->cmp, (size_t)r->ncmp + 1, sizeof *r->cmp);
            struct rpt_comparison *c = &r->cmp[r->ncmp++];
            rpt_compare_metric(&b->metrics[i], mv, r->paired, rpt_metric_seed(r->seed, v, mv->name),
                               &r->min_effect, c);
            c->base = b->name;
            c->variant = var->name;
        }
        rpt_adjust_family(r, first, r->ncmp - first, false);
        rpt_adjust_family(r, first, r->ncmp - first, true);
    }
}

const struct rpt_metric *rpt_measured_gap(const struct rpt_variant *v,
                                          const struct rpt_measured *mv, double *gap,
                                          double *gap_pct)
{
    const struct rpt_metric *m = rpt_variant_metric(v, mv->metric);
    *gap = m ? m->mean - mv->value : NAN;
    *gap_pct = m && mv->value != 0 ? 100.0 * *gap / fabs(mv->value) : NAN;
    return m;
}

void rpt_results_free(struct rpt_results *r)
{
    free(r->measured);
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
        free(var->workload);
        free(var->sysfs);
        free(var->config);
        free(var->settings);
    }
    free(r->variants);
    free(r->config_text);
    for (int i = 0; i < r->nsets; i++)
        free(r->sets[i]);
    free(r->sets);
    free(r->commit);
    free(r->cmp);
    free(r->scenario);
    free(r->description);
    free(r->machine);
    free(r->machine_desc);
    free(r->cpus);
    free(r->primary);
    free(r->offered_metric);
    free(r->served_metric);
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
