/* summary: a sweep database per point, variant and metric, see summary.h. */
#include "sweep/summary.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot.h"
#include "sweep/store.h"
#include "util/strutil.h"
#include "util/xalloc.h"

#define SWEEP_SUMMARY_MAX_COLS 16 /* SWEEP_MAX_AXES */
/* "sweep-" METRIC "+N" */
#define SUMMARY_PLOT_NAME (RPT_NAME_MAX + 24)

/* Values of the cell being read. */
struct summary_acc {
    struct sweep_summary *s;
    long cur_point;             /* database point id of the current cell, -1 none */
    int cur_variant, cur_metric;
    double *values;
    int n;
};

static int summary_index(char (*names)[RPT_NAME_MAX], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* Cut c's t interval to the range of unit, as a run's metric is
 * (results.c rpt_metric_finish), when every value is in it; and say whether
 * the values are all equal. */
static void summary_cut(struct sweep_cell *c, const char *unit, const double *v, int n)
{
    double lo, hi, first = NAN;
    bool in_range = rpt_unit_range(unit, &lo, &hi);
    c->constant = c->n >= 2;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        in_range = in_range && v[i] >= lo && v[i] <= hi;
        if (isnan(first))
            first = v[i];
        c->constant = c->constant && v[i] == first;
    }
    if (c->n < 2 || !in_range)
        return;
    c->ci_cut = c->ci_lo < lo || c->ci_hi > hi;
    c->ci_lo = fmax(c->ci_lo, lo);
    c->ci_hi = fmin(c->ci_hi, hi);
}

/* Close the current cell: mean and Student t 95 % CI of its values. */
static void summary_flush(struct summary_acc *a)
{
    if (a->cur_point < 0)
        return;
    struct sweep_summary *s = a->s;
    s->cells = xreallocarray(s->cells, (size_t)s->ncells + 1, sizeof *s->cells);
    struct sweep_cell *c = &s->cells[s->ncells++];
    c->point = s->npoints - 1;
    c->variant = a->cur_variant;
    c->metric = a->cur_metric;
    c->n = 0;
    double sum = 0, sq = 0;
    for (int i = 0; i < a->n; i++)
        if (isfinite(a->values[i])) {
            c->n++;
            sum += a->values[i];
        }
    c->mean = c->n ? sum / c->n : NAN;
    for (int i = 0; i < a->n; i++)
        if (isfinite(a->values[i]))
            sq += (a->values[i] - c->mean) * (a->values[i] - c->mean);
    c->ci_lo = c->ci_hi = NAN;
    c->ci_cut = c->constant = false;
    if (c->n >= 2) {
        double half = gsl_cdf_tdist_Pinv(0.975, c->n - 1) * sqrt(sq / (c->n - 1) / c->n);
        c->ci_lo = c->mean - half;
        c->ci_hi = c->mean + half;
    }
    summary_cut(c, s->units[c->metric], a->values, a->n);
    if (a->n > s->reps)
        s->reps = a->n;
    a->n = 0;
}

/* Register row's variant and metric names (first-seen order). */
static void summary_register(struct sweep_summary *s, const struct store_row *row)
{
    int v = -1;
    for (int i = 0; i < s->nvariants; i++)
        if (strcmp(s->variants[i], row->variant_name) == 0)
            v = i;
    if (v < 0) {
        s->variants = xreallocarray(s->variants, (size_t)s->nvariants + 1, sizeof *s->variants);
        str_copy(s->variants[s->nvariants++], sizeof s->variants[0], row->variant_name);
    }
    if (summary_index(s->metrics, s->nmetrics, row->metric) < 0) {
        s->metrics = xreallocarray(s->metrics, (size_t)s->nmetrics + 1, sizeof *s->metrics);
        s->units = xreallocarray(s->units, (size_t)s->nmetrics + 1, sizeof *s->units);
        str_copy(s->metrics[s->nmetrics], sizeof s->metrics[0], row->metric);
        str_copy(s->units[s->nmetrics++], sizeof s->units[0], row->unit);
    }
}

/* Rows arrive by (point, variant, replication, metric): collect each
 * (point, variant) block, then summarise per metric. */
struct summary_block {
    struct sweep_summary *s;
    long point;                 /* database point id, -1 before the first */
    int variant;
    int *metric;                /* [n] metric index of each row */
    double *value;              /* [n] */
    int n, cap;
};

static void summary_block_flush(struct summary_block *b)
{
    if (b->point < 0 || b->n == 0)
        return;
    struct sweep_summary *s = b->s;
    double *vals = xcalloc((size_t)b->n, sizeof *vals);
    for (int m = 0; m < s->nmetrics; m++) {
        int n = 0;
        for (int i = 0; i < b->n; i++)
            if (b->metric[i] == m)
                vals[n++] = b->value[i];
        if (n == 0)
            continue;
        struct summary_acc a = { .s = s, .cur_point = b->point, .cur_variant = b->variant,
                                 .cur_metric = m, .values = vals, .n = n };
        summary_flush(&a);
    }
    free(vals);
    b->n = 0;
}

static int summary_block_row(void *ctx, const struct store_row *row)
{
    struct summary_block *b = ctx;
    struct sweep_summary *s = b->s;
    if (row->point != b->point) {
        summary_block_flush(b);
        s->point_ids = xreallocarray(s->point_ids, (size_t)s->npoints + 1, sizeof *s->point_ids);
        s->point_ids[s->npoints] = row->point;
        s->axis_values = xreallocarray(s->axis_values, (size_t)(s->npoints + 1) * (size_t)s->naxes + 1,
                                       sizeof *s->axis_values);
        for (int i = 0; i < s->naxes; i++)
            s->axis_values[s->npoints * s->naxes + i] = xstrdup(row->axis_values[i]);
        s->npoints++;
        b->point = row->point;
        b->variant = -1;
    }
    summary_register(s, row);
    int v = 0;
    while (strcmp(s->variants[v], row->variant_name) != 0)
        v++;
    if (v != b->variant) {
        summary_block_flush(b);
        b->variant = v;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->metric = xreallocarray(b->metric, (size_t)b->cap, sizeof *b->metric);
        b->value = xreallocarray(b->value, (size_t)b->cap, sizeof *b->value);
    }
    b->metric[b->n] = summary_index(s->metrics, s->nmetrics, row->metric);
    b->value[b->n++] = row->value;
    return 0;
}

int sweep_summary_load(struct sweep_summary *s, const char *db, const char *primary, char *msg,
                       size_t msgsize)
{
    memset(s, 0, sizeof *s);
    struct store_reader rd;
    int status = store_reader_open(&rd, db, msg, msgsize);
    if (status != 0)
        return status;
    s->scenario = store_reader_get(&rd, "sweep", "scenario");
    s->naxes = rd.naxes;
    s->axis_keys = xcalloc((size_t)rd.naxes + 1, sizeof *s->axis_keys);
    for (int i = 0; i < rd.naxes; i++)
        s->axis_keys[i] = xstrdup(rd.axis_keys[i]);
    struct summary_block b = { .s = s, .point = -1 };
    if (rd.status == 0)
        store_reader_rows(&rd, summary_block_row, &b);
    summary_block_flush(&b);
    free(b.metric);
    free(b.value);
    char *stored = rd.status == 0 ? store_reader_get(&rd, "provenance", "primary") : NULL;
    if (rd.status != 0) {
        snprintf(msg, msgsize, "%s", rd.err);
        status = rd.status;
        store_reader_close(&rd);
        free(stored);
        sweep_summary_free(s);
        return status;
    }
    store_reader_close(&rd);
    const char *want = primary ? primary : stored;
    if (want && summary_index(s->metrics, s->nmetrics, want) >= 0)
        s->primary = xstrdup(want);
    else if (primary && s->nmetrics) {
        snprintf(msg, msgsize, "--primary: the sweep reports no metric '%s'", primary);
        free(stored);
        sweep_summary_free(s);
        return STORE_BAD_INPUT;
    } else if (s->nmetrics) {
        s->primary = xstrdup(s->metrics[0]);
    }
    free(stored);
    s->power = summary_index(s->metrics, s->nmetrics, "pkg_watts") >= 0 ? "pkg_watts" : NULL;
    return 0;
}

void sweep_summary_free(struct sweep_summary *s)
{
    for (int i = 0; i < s->naxes; i++)
        free(s->axis_keys[i]);
    for (long i = 0; i < s->npoints * s->naxes; i++)
        free(s->axis_values[i]);
    free(s->axis_keys);
    free(s->axis_values);
    free(s->point_ids);
    free(s->variants);
    free(s->metrics);
    free(s->units);
    free(s->cells);
    free(s->primary);
    free(s->scenario);
    memset(s, 0, sizeof *s);
}

/* The cell of (point index, variant, metric name), or NULL. */
static const struct sweep_cell *summary_cell(const struct sweep_summary *s, long p, int v,
                                             const char *metric)
{
    int m = metric ? summary_index(s->metrics, s->nmetrics, metric) : -1;
    for (long i = 0; m >= 0 && i < s->ncells; i++)
        if (s->cells[i].point == p && s->cells[i].variant == v && s->cells[i].metric == m)
            return &s->cells[i];
    return NULL;
}

/* "mean ± half" of c into buf; "mean [lo, hi]" when the range cut the
 * interval, "mean constant" when every replication gave the same value (as
 * a run's table shows them). */
static const char *summary_fmt(const struct sweep_cell *c, char *buf, size_t size)
{
    if (!c || c->n == 0)
        snprintf(buf, size, "n/a");
    else if (c->n < 2)
        snprintf(buf, size, "%.4g ± n/a", c->mean);
    else if (c->constant)
        snprintf(buf, size, "%.4g constant", c->mean);
    else if (c->ci_cut)
        snprintf(buf, size, "%.4g [%.4g, %.4g]", c->mean, c->ci_lo, c->ci_hi);
    else
        snprintf(buf, size, "%.4g ± %.2g", c->mean, (c->ci_hi - c->ci_lo) / 2);
    return buf;
}

void sweep_summary_table(const struct sweep_summary *s, FILE *out)
{
    fprintf(out, "sweep %s: %ld points x %d variants, %d replications; mean ± 95 %% CI half-width "
                 "(mean [lo, hi] where the metric's range cut it; constant: all replications "
                 "equal)\n\n",
            s->scenario ? s->scenario : "?", s->npoints, s->nvariants, s->reps);
    int w[SWEEP_SUMMARY_MAX_COLS], vw = 7;
    int naxes = s->naxes < SWEEP_SUMMARY_MAX_COLS ? s->naxes : SWEEP_SUMMARY_MAX_COLS;
    for (int i = 0; i < naxes; i++) {
        w[i] = (int)strlen(s->axis_keys[i]);
        for (long p = 0; p < s->npoints; p++) {
            int len = (int)strlen(s->axis_values[p * s->naxes + i]);
            w[i] = len > w[i] ? len : w[i];
        }
    }
    for (int v = 0; v < s->nvariants; v++) {
        int len = (int)strlen(s->variants[v]);
        vw = len > vw ? len : vw;
    }
    fprintf(out, "%-5s", "point");
    for (int i = 0; i < naxes; i++)
        fprintf(out, "  %-*s", w[i], s->axis_keys[i]);
    fprintf(out, "  %-*s  %-20s  %s\n", vw, "variant", s->primary ? s->primary : "-",
            s->power ? s->power : "-");
    char a[64], b[64];
    for (long p = 0; p < s->npoints; p++)
        for (int v = 0; v < s->nvariants; v++) {
            fprintf(out, "%-5ld", s->point_ids[p]);
            for (int i = 0; i < naxes; i++)
                fprintf(out, "  %-*s", w[i], s->axis_values[p * s->naxes + i]);
            fprintf(out, "  %-*s  %-20s  %s\n", vw, s->variants[v],
                    summary_fmt(summary_cell(s, p, v, s->primary), a, sizeof a),
                    summary_fmt(summary_cell(s, p, v, s->power), b, sizeof b));
        }
}

void sweep_csv_field(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\n\r")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

static void summary_csv_num(FILE *out, double x)
{
    if (isfinite(x))
        fprintf(out, ",%.10g", x);
    else
        fputc(',', out);
}

void sweep_summary_csv(const struct sweep_summary *s, FILE *out)
{
    fputs("point", out);
    for (int i = 0; i < s->naxes; i++) {
        fputc(',', out);
        sweep_csv_field(out, s->axis_keys[i]);
    }
    fputs(",variant,metric,unit,n,mean,ci95_lo,ci95_hi\n", out);
    for (long i = 0; i < s->ncells; i++) {
        const struct sweep_cell *c = &s->cells[i];
        fprintf(out, "%ld", s->point_ids[c->point]);
        for (int k = 0; k < s->naxes; k++) {
            fputc(',', out);
            sweep_csv_field(out, s->axis_values[c->point * s->naxes + k]);
        }
        fputc(',', out);
        sweep_csv_field(out, s->variants[c->variant]);
        fprintf(out, ",%s,%s,%d", s->metrics[c->metric], s->units[c->metric], c->n);
        summary_csv_num(out, c->mean);
        summary_csv_num(out, c->ci_lo);
        summary_csv_num(out, c->ci_hi);
        fputc('\n', out);
    }
}

/* Whether every value of axis 0 is a number (then it is the x axis as
 * such; else the values are categories at 0, 1, ...). */
static bool summary_axis_numeric(const struct sweep_summary *s)
{
    double x;
    for (long p = 0; p < s->npoints; p++)
        if (str_to_double(s->axis_values[p * s->naxes], &x) != 0)
            return false;
    return true;
}

/* The series point p belongs to: its variant and its values of the axes
 * after the first, as a label (allocated). */
static char *summary_series_label(const struct sweep_summary *s, long p, int v)
{
    char *label = xstrdup(s->variants[v]);
    for (int i = 1; i < s->naxes; i++) {
        char *next = xasprintf("%s %s=%s", label, s->axis_keys[i], s->axis_values[p * s->naxes + i]);
        free(label);
        label = next;
    }
    return label;
}

/* The x of point p: its axis-0 value, or the index of that value among the
 * distinct ones (categories). */
static double summary_x(const struct sweep_summary *s, long p, bool numeric)
{
    const char *val = s->axis_values[p * s->naxes];
    if (numeric) {
        double x = 0;
        str_to_double(val, &x);
        return x;
    }
    int idx = 0;
    for (long q = 0; q < p; q++) {
        bool seen = false;
        for (long r = 0; r < q; r++)
            seen |= strcmp(s->axis_values[r * s->naxes], s->axis_values[q * s->naxes]) == 0;
        if (!seen && strcmp(s->axis_values[q * s->naxes], val) != 0)
            idx++;
        else if (strcmp(s->axis_values[q * s->naxes], val) == 0)
            return idx;
    }
    return idx;
}

/* One data block per series (variant and other axes' values): x, mean,
 * CI low, CI high; returns the number of blocks, labels in *labels. */
static int summary_metric_blocks(const struct sweep_summary *s, int m, bool numeric, FILE *dat,
                                 char ***labels)
{
    int nblocks = 0;
    *labels = NULL;
    for (int v = 0; v < s->nvariants; v++)
        for (long p = 0; p < s->npoints; p++) {
            char *label = summary_series_label(s, p, v);
            bool seen = false;
            for (int b = 0; b < nblocks; b++)
                seen |= strcmp((*labels)[b], label) == 0;
            if (seen) {
                free(label);
                continue;
            }
            *labels = xreallocarray(*labels, (size_t)nblocks + 1, sizeof **labels);
            (*labels)[nblocks++] = label;
            rpt_plot_dat_comment(dat, label);
            for (long q = p; q < s->npoints; q++) {
                char *other = summary_series_label(s, q, v);
                const struct sweep_cell *c = summary_cell(s, q, v, s->metrics[m]);
                if (strcmp(other, label) == 0 && c && c->n > 0)
                    fprintf(dat, "%.10g %.10g %.10g %.10g\n", summary_x(s, q, numeric), c->mean,
                            c->n > 1 ? c->ci_lo : c->mean, c->n > 1 ? c->ci_hi : c->mean);
                free(other);
            }
            fputs("\n\n", dat);
        }
    return nblocks;
}

/* xtics for a categorical axis 0. */
static void summary_xtics(const struct sweep_summary *s, FILE *gp)
{
    fputs("set xtics (", gp);
    int k = 0;
    for (long p = 0; p < s->npoints; p++) {
        bool seen = false;
        for (long q = 0; q < p; q++)
            seen |= strcmp(s->axis_values[q * s->naxes], s->axis_values[p * s->naxes]) == 0;
        if (seen)
            continue;
        fputs(k ? ", " : "", gp);
        rpt_plot_file_str(gp, s->axis_values[p * s->naxes]);
        fprintf(gp, " %g", summary_x(s, p, false));
        k++;
    }
    fputs(")\n", gp);
}

/* The file name of metric m's plot into name: sweep-METRIC with only
 * rpt_plot_safe_name's characters (a metric from a database may hold '/' or
 * a quote), "+N" added until it differs from every one of used[nused]. */
static void summary_plot_name(const struct sweep_summary *s, int m, char (*used)[SUMMARY_PLOT_NAME],
                              int nused, char *name)
{
    char safe[RPT_NAME_MAX];
    rpt_plot_safe_name(safe, sizeof safe, s->metrics[m]);
    snprintf(name, SUMMARY_PLOT_NAME, "sweep-%s", safe);
    for (int k = 2, i = 0; i < nused; i++)
        if (strcmp(used[i], name) == 0) {
            snprintf(name, SUMMARY_PLOT_NAME, "sweep-%s+%d", safe, k++);
            i = -1; /* check the new name against all of them */
        }
}

/* NAME (sweep-METRIC): metric m against axis 0, a CI band and a line per
 * series. */
static int summary_plot_metric(const struct sweep_summary *s, int m, const char *dir,
                               const char *name, char *msg, size_t msgsize)
{
    char *title = xasprintf("%s: %s against %s (95 %% CI bands)", s->scenario ? s->scenario : "?",
                            s->metrics[m], s->axis_keys[0]);
    char *ylabel = xasprintf("%s (%s)", s->metrics[m], s->units[m]);
    struct rpt_plot_file *f =
        rpt_plot_file_open(dir, name, title, s->axis_keys[0], ylabel, msg, msgsize);
    free(title);
    free(ylabel);
    if (!f)
        return -1;
    bool numeric = summary_axis_numeric(s);
    char **labels;
    int n = summary_metric_blocks(s, m, numeric, rpt_plot_file_dat(f), &labels);
    FILE *gp = rpt_plot_file_gp(f);
    if (!numeric)
        summary_xtics(s, gp);
    fputs("set style fill transparent solid 0.2 noborder\nplot ", gp);
    for (int b = 0; b < n; b++) {
        fputs(b ? ", \\\n     " : "", gp);
        rpt_plot_file_ref_dat(f);
        fprintf(gp, " index %d using 1:3:4 with filledcurves lc %d notitle, "
                    "'' index %d using 1:2 with linespoints lc %d lw 2 title ", b, b + 1, b, b + 1);
        rpt_plot_file_str(gp, labels[b]);
        free(labels[b]);
    }
    free(labels);
    fputc('\n', gp);
    return rpt_plot_file_render(f, msg, msgsize);
}

/* sweep-pareto: power against the primary metric, one series per variant
 * over every point, with both CIs as error bars. */
static int summary_plot_pareto(const struct sweep_summary *s, const char *dir, char *msg,
                               size_t msgsize)
{
    char *title = xasprintf("%s: %s against %s per variant (Pareto view, 95 %% CIs)",
                            s->scenario ? s->scenario : "?", s->power, s->primary);
    struct rpt_plot_file *f =
        rpt_plot_file_open(dir, "sweep-pareto", title, s->primary, "pkg_watts (W)", msg, msgsize);
    free(title);
    if (!f)
        return -1;
    FILE *dat = rpt_plot_file_dat(f), *gp = rpt_plot_file_gp(f);
    fputs("plot ", gp);
    for (int v = 0; v < s->nvariants; v++) {
        char *comment = xasprintf("%s: %s %s_lo %s_hi %s %s_lo %s_hi", s->variants[v], s->primary,
                                  s->primary, s->primary, s->power, s->power, s->power);
        rpt_plot_dat_comment(dat, comment);
        free(comment);
        for (long p = 0; p < s->npoints; p++) {
            const struct sweep_cell *x = summary_cell(s, p, v, s->primary);
            const struct sweep_cell *y = summary_cell(s, p, v, s->power);
            if (!x || !y || x->n == 0 || y->n == 0)
                continue;
            fprintf(dat, "%.10g %.10g %.10g %.10g %.10g %.10g\n", x->mean, y->mean,
                    x->n > 1 ? x->ci_lo : x->mean, x->n > 1 ? x->ci_hi : x->mean,
                    y->n > 1 ? y->ci_lo : y->mean, y->n > 1 ? y->ci_hi : y->mean);
        }
        fputs("\n\n", dat);
        fputs(v ? ", \\\n     " : "", gp);
        rpt_plot_file_ref_dat(f);
        fprintf(gp, " index %d using 1:2:3:4:5:6 with xyerrorbars lc %d pt 7 title ", v, v + 1);
        rpt_plot_file_str(gp, s->variants[v]);
    }
    fputc('\n', gp);
    return rpt_plot_file_render(f, msg, msgsize);
}

/* Whether metric m has one value everywhere (an idle state never entered):
 * a flat line says nothing, so it gets no plot. */
static bool summary_metric_constant(const struct sweep_summary *s, int m)
{
    const struct sweep_cell *first = NULL;
    for (long i = 0; i < s->ncells; i++) {
        const struct sweep_cell *c = &s->cells[i];
        if (c->metric != m || c->n == 0)
            continue;
        if (first && c->mean != first->mean)
            return false;
        first = first ? first : c;
    }
    return true;
}

int sweep_summary_plot(const struct sweep_summary *s, const char *dir, char *msg, size_t msgsize)
{
    msg[0] = '\0';
    if (!rpt_plot_available()) {
        snprintf(msg, msgsize, "gnuplot not found (Debian: apt-get install gnuplot-nox); no plots written");
        return 0;
    }
    if (s->naxes == 0 || s->npoints == 0) {
        snprintf(msg, msgsize, "no grid key to plot against; no plots written");
        return 0;
    }
    int n = 0, nused = 0;
    char (*used)[SUMMARY_PLOT_NAME] = xcalloc((size_t)s->nmetrics + 1, sizeof *used);
    strcpy(used[nused++], "sweep-pareto");
    for (int m = 0; m < s->nmetrics; m++) {
        /* The host-wide metrics; the cpus.* ones repeat them over a subset. */
        if (strncmp(s->metrics[m], RPT_CPUS_PREFIX, strlen(RPT_CPUS_PREFIX)) == 0 ||
            summary_metric_constant(s, m))
            continue;
        summary_plot_name(s, m, used, nused, used[nused]);
        if (summary_plot_metric(s, m, dir, used[nused], msg, msgsize) < 0) {
            free(used);
            return -1;
        }
        nused++;
        n++;
    }
    free(used);
    if (s->primary && s->power) {
        if (summary_plot_pareto(s, dir, msg, msgsize) < 0)
            return -1;
        n++;
    }
    return n;
}
