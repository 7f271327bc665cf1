/* table: the human report. A header (scenario, machine, seed, replications),
 * the variants as the user wrote them, one row per metric and compared
 * variant (mean +- 95 % CI half-width, delta % with its CI, p-value, verdict),
 * then a turbostat-style view per variant (Busy%, Bzy_MHz, per-state residency
 * C1% .., core CPU%c1 .., package Pkg%pc2 .., CorWatt, PkgWatt: the columns
 * kernel engineers already read) and the idle states' above/below shares. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/cells.h"
#include "report/inference.h"
#include "report/results.h"

/* Decimals suited to a magnitude. */
static int table_prec(double mag)
{
    mag = fabs(mag);
    return mag >= 1000 ? 0 : mag >= 100 ? 1 : mag >= 1 ? 2 : 4;
}

/* "mean ± half (n)": the replication count beside every interval; one
 * replication has no interval ("mean ± n/a (1)"), equal replications none
 * either ("mean constant (n)"), and an interval cut to the metric's range
 * is shown by its ends ("mean [lo, hi] (n)"). */
void rpt_cell_mean_ci(const struct rpt_metric *m, char *buf, size_t size)
{
    double half = (m->ci_hi - m->ci_lo) / 2;
    int prec = table_prec(m->mean);
    if (!isfinite(m->mean)) /* a replication without a usable value, or beyond a double */
        snprintf(buf, size, "n/a (%d)", m->n);
    else if (rpt_metric_constant(m)) /* every replication the same value: no spread */
        snprintf(buf, size, "%.*f constant (%d)", prec, m->mean, m->n);
    else if (fabs(m->mean) >= 1e9) /* keep the column's width */
        snprintf(buf, size, "%.4g ± %.2g (%d)", m->mean, half, m->n);
    else if (m->ci_cut) /* cut to the metric's range: not symmetric */
        snprintf(buf, size, "%.*f [%.*f, %.*f] (%d)", prec, m->mean, prec, m->ci_lo, prec,
                 m->ci_hi, m->n);
    else if (isfinite(half))
        snprintf(buf, size, "%.*f ± %.*f (%d)", prec, m->mean, prec, half, m->n);
    else
        snprintf(buf, size, "%.*f ± n/a (%d)", prec, m->mean, m->n);
}

/* The practical thresholds a verdict needs, by class ("and a change of at
 * least 0.5 % (power), ..."); nothing when none is set. */
static void table_min_effect(const struct rpt_results *r, FILE *out)
{
    const char *sep = " and a change of at least ";
    for (int k = 0; k < RPT_NEFFECT_CLASSES; k++) {
        if (!(r->min_effect.pct[k] > 0))
            continue;
        fprintf(out, "%s%g %% (%s)", sep, r->min_effect.pct[k], rpt_effect_class_name(k));
        sep = ", ";
    }
    if (*sep == ',')
        fprintf(out, ", else negligible");
}

/* How the deltas were tested, one line under the header. */
void rpt_table_method(const struct rpt_results *r, FILE *out)
{
    if (r->nvariants < 2)
        return;
    if (r->paired)
        fprintf(out, "deltas: paired t on per-replication differences (replication r of every "
                     "variant is offered the same work: common random numbers)\n");
    else
        fprintf(out, "deltas: Welch's t-test, unpaired (%s)\n",
                r->unpaired_why ? r->unpaired_why : "independent runs");
    fprintf(out, "verdicts: Holm-adjusted p < 0.05 over each variant's metrics");
    table_min_effect(r, out);
    fprintf(out, "; intervals are per metric; (n) = replications\n\n");
}

/* The saturation mark of an open-loop variant, under its line. */
static void table_saturated(const struct rpt_results *r, const struct rpt_variant *var, FILE *out)
{
    if (!var->saturated)
        return;
    const struct rpt_metric *m = rpt_variant_metric(var, r->served_metric);
    fprintf(out, "  SATURATED: served %.0f of %.0f %s offered (%.1f %%): its latencies measure a "
                 "queue that grows all run long\n",
            var->served, var->offered, m ? m->unit : "", 100 * var->served / var->offered);
}

/* The --set overrides the run was made with, one line: a result read
 * without them would be taken for the scenario as written. */
static void table_overrides(const struct rpt_results *r, FILE *out)
{
    if (r->nsets == 0)
        return;
    fprintf(out, "overrides");
    for (int i = 0; i < r->nsets; i++)
        fprintf(out, " --set %s", r->sets[i]);
    fputc('\n', out);
}

static void table_header(const struct rpt_results *r, FILE *out)
{
    fprintf(out, "pmlab %s  scenario %s%s\n", PMLAB_VERSION, r->scenario, r->quick ? " (quick)" : "");
    if (r->quick)
        fprintf(out, "QUICK RUN: the scenario's [quick] configuration, fewer and shorter runs: for "
                     "smoke tests, not for decisions\n");
    if (r->description && *r->description)
        fprintf(out, "  %s\n", r->description);
    fprintf(out, "machine  %s: %s\n", r->machine, r->machine_desc ? r->machine_desc : "");
    fprintf(out, "seed %llu, %d replications, 95 %% confidence intervals\n",
            (unsigned long long)r->seed, r->reps);
    table_overrides(r, out);
    if (r->primary)
        fprintf(out, "primary metric: %s (first, marked *)\n", r->primary);
    rpt_table_method(r, out);
    if (r->nvariants < 2)
        fputc('\n', out);
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
        if (var->workload && *var->workload)
            fprintf(out, "  workload: %s", var->workload);
        fputc('\n', out);
        table_saturated(r, var, out);
        if (var->warmup_short)
            fprintf(out, "  WARM-UP TOO SHORT: MSER-5 puts the end of the start-up transient at "
                         "%.0f ms (mean over replications), after the %.0f ms warm-up: the "
                         "window includes it\n",
                    var->transient_ms, var->warmup_ms);
    }
    fputc('\n', out);
}

/* Metrics shown in the turbostat and idle-state blocks rather than the main
 * table, host-wide or over the --cpus CPUs. */
bool rpt_is_turbostat_metric(const char *name)
{
    static const char *const prefixes[] = { "residency.", "core_residency.", "pkg_residency.",
                                            "above_pct.", "below_pct." };
    if (strncmp(name, RPT_CPUS_PREFIX, strlen(RPT_CPUS_PREFIX)) == 0)
        name += strlen(RPT_CPUS_PREFIX);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* The unit a delta is shown in: "%", "pp", the metric's unit, or "abs" for
 * a plain count. */
static const char *table_delta_unit(const struct rpt_comparison *c)
{
    return c->delta_unit[0] ? c->delta_unit : "abs";
}

/* The delta, its CI with the replications behind it, and the p-values. */
void rpt_cell_delta(const struct rpt_comparison *c, char *delta, size_t dsize, char *ci,
                              size_t csize, char *p, char *padj, size_t psize)
{
    const char *unit = table_delta_unit(c);
    char n[24];
    if (c->test == RPT_TEST_WELCH || c->test == RPT_TEST_PERMUTATION)
        snprintf(n, sizeof n, "(%d, %d)", c->n_base, c->n_variant);
    else
        snprintf(n, sizeof n, "(%d)", c->n_base < c->n_variant ? c->n_base : c->n_variant);
    if (!isfinite(c->delta)) {
        snprintf(delta, dsize, "n/a"); /* a side without usable values */
    } else if (c->absolute) {
        snprintf(delta, dsize, "%+.3g %s", c->delta, unit);
        if (c->test != RPT_TEST_NONE)
            snprintf(ci, csize, "[%+.3g, %+.3g] %s %s", c->ci_lo, c->ci_hi, unit, n);
    } else {
        snprintf(delta, dsize, "%+.2f%%", c->delta_pct);
        if (c->test != RPT_TEST_NONE)
            snprintf(ci, csize, "[%+.2f, %+.2f] %% %s", c->ci_lo_pct, c->ci_hi_pct, n);
    }
    if (c->constant && c->test != RPT_TEST_NONE && isfinite(c->delta))
        snprintf(ci, csize, "constant %s", n); /* no spread on either side */
    if (c->test == RPT_TEST_NONE) {
        snprintf(ci, csize, "n/a %s", n);
        snprintf(p, psize, "n/a");
        snprintf(padj, psize, "n/a");
        return;
    }
    snprintf(p, psize, "%.3g", c->p_value);
    snprintf(padj, psize, "%.3g", c->p_adjusted);
}

/* One compared variant's cells of a metric row. */
static void table_variant_cells(const struct rpt_results *r, const struct rpt_variant *var,
                                const char *metric, FILE *out)
{
    const struct rpt_metric *mv = rpt_variant_metric(var, metric);
    const struct rpt_comparison *c = rpt_find_comparison(r, var->name, metric);
    if (!mv || !c) {
        fprintf(out, " %-14s (not reported)", var->name);
        return;
    }
    char b[64], delta[32], ci[64], p[16], padj[16];
    rpt_cell_mean_ci(mv, b, sizeof b);
    rpt_cell_delta(c, delta, sizeof delta, ci, sizeof ci, p, padj, sizeof p);
    fprintf(out, " %-14s %-26s %10s  %-28s %8s %8s  %s", var->name, b, delta, ci, p, padj,
            c->verdict);
}

/* Why some rows were judged by a permutation test, and what that allows. */
static void table_note_permutation(double p_min, FILE *out)
{
    fprintf(out, "sign-flip/permutation rows: values on a few discrete levels or constant, which a "
                 "t test cannot judge; exact permutation test, interval by inverting it");
    if (p_min >= RPT_ALPHA)
        fprintf(out, "; with these replications some cannot reach p < %.2g (smallest possible p "
                     "%.3g): run more replications for a verdict", RPT_ALPHA, p_min);
    fputc('\n', out);
}

/* Notes under the metrics: why a row says n/a, what a non-% delta is. */
void rpt_table_notes(const struct rpt_results *r, FILE *out)
{
    bool na = false, absolute = false, unpaired = false, perm = false, negligible = false;
    double p_min = 0;
    for (int i = 0; i < r->ncmp; i++) {
        const struct rpt_comparison *c = &r->cmp[i];
        na |= c->test == RPT_TEST_NONE;
        absolute |= c->absolute;
        negligible |= strcmp(c->verdict, "negligible") == 0;
        unpaired |= r->paired && (c->test == RPT_TEST_WELCH || c->test == RPT_TEST_PERMUTATION);
        if (c->test == RPT_TEST_SIGNFLIP || c->test == RPT_TEST_PERMUTATION) {
            perm = true;
            p_min = fmax(p_min, c->p_min);
        }
    }
    if (na)
        fprintf(out, "n/a: fewer than 2 replications (or a value that is not a number): no "
                     "interval, p-value or verdict; run with --reps 2 or more\n");
    if (absolute)
        fprintf(out, "deltas not in %%: the baseline is near zero (a share under 1 %%, a count "
                     "or a rate under 1, or 0), so the difference is shown in percentage points "
                     "(pp) or the metric's unit\n");
    if (unpaired)
        fprintf(out, "(n, n): an unpaired test: every pair differed by the same amount while "
                     "the values varied (a quantized metric), so the paired variance, 0, says "
                     "nothing\n");
    if (perm)
        table_note_permutation(p_min, out);
    if (negligible)
        fprintf(out, "negligible: a significant change smaller than its class's practical "
                     "threshold (in the verdicts line; [report] min_effect_CLASS_pct)\n");
    if (na || absolute || unpaired || perm || negligible)
        fputc('\n', out);
}

/* One metric's rows: the baseline, then every compared variant. */
static void table_metric_rows(const struct rpt_results *r, const struct rpt_metric *m, FILE *out)
{
    char a[64], name[RPT_NAME_MAX + 2];
    rpt_cell_mean_ci(m, a, sizeof a);
    bool primary = r->primary && strcmp(r->primary, m->name) == 0;
    snprintf(name, sizeof name, "%s%s", m->name, primary ? " *" : "");
    fprintf(out, "%-22s %-7s %-26s", name, m->unit, a);
    for (int v = 1; v < r->nvariants; v++) {
        if (v > 1)
            fprintf(out, "\n%-22s %-7s %-26s", "", "", "");
        table_variant_cells(r, &r->variants[v], m->name, out);
    }
    fputc('\n', out);
}

/* The primary metric first, then the others in the workload's order. */
static void table_metrics(const struct rpt_results *r, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    fprintf(out, "%-22s %-7s %-26s", "metric", "unit", base->name);
    if (r->nvariants > 1)
        fprintf(out, " %-14s %-26s %10s  %-28s %8s %8s  %s", "variant", "mean ± ci (n)", "delta",
                "95% CI of delta (n)", "p", "p(Holm)", "verdict");
    fputc('\n', out);
    const struct rpt_metric *primary = r->primary ? rpt_variant_metric(base, r->primary) : NULL;
    if (primary)
        table_metric_rows(r, primary, out);
    for (int i = 0; i < base->nmetrics; i++)
        if (&base->metrics[i] != primary && !rpt_is_turbostat_metric(base->metrics[i].name))
            table_metric_rows(r, &base->metrics[i], out);
    fputc('\n', out);
    rpt_table_notes(r, out);
}

/* turbostat's column name for a metric: residency.C1 -> C1%, core_residency.C6
 * -> CPU%c6, pkg_residency.PC6 -> Pkg%pc6. NULL for other metrics. */
const char *rpt_turbostat_column(const char *metric, char *buf, size_t size)
{
    const char *dot = strchr(metric, '.');
    if (!dot)
        return NULL;
    const char *state = dot + 1;
    char lower[RPT_NAME_MAX];
    size_t i = 0;
    for (; state[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)((state[i] >= 'A' && state[i] <= 'Z') ? state[i] - 'A' + 'a' : state[i]);
    lower[i] = '\0';
    if (strncmp(metric, "residency.", 10) == 0)
        snprintf(buf, size, "%s%%", state);
    else if (strncmp(metric, "core_residency.", 15) == 0)
        snprintf(buf, size, "CPU%%%s", lower);
    else if (strncmp(metric, "pkg_residency.", 14) == 0)
        snprintf(buf, size, "Pkg%%%s", lower);
    else
        return NULL;
    return buf;
}

/* Residency columns in turbostat's order: cpuidle states (POLL%, C1%, ..),
 * then core states (CPU%c1, ..), then package states (Pkg%pc2, ..). */
const char *const rpt_turbostat_prefixes[3] = { "residency.", "core_residency.",
                                                        "pkg_residency." };

/* The mean of metric prefix+name in var, or NAN. */
double rpt_prefixed_mean(const struct rpt_variant *var, const char *prefix, const char *name)
{
    char full[RPT_NAME_MAX];
    snprintf(full, sizeof full, "%s%s", prefix, name);
    return rpt_variant_mean(var, full, NAN);
}

/* A number in a column of width w, or "-" where there is none. */
static void table_cell(FILE *out, int w, int prec, double val)
{
    if (isnan(val))
        fprintf(out, " %*s", w, "-");
    else
        fprintf(out, " %*.*f", w, prec, val);
}

/* The residency columns' headers (var NULL) or var's values of the metrics
 * named prefix+column ("-" where var has none: core and package states
 * over chosen CPUs). */
static void table_turbostat_cells(const struct rpt_variant *base, const struct rpt_variant *var,
                                  const char *prefix, FILE *out)
{
    char col[RPT_NAME_MAX + 8];
    for (size_t p = 0; p < 3; p++) {
        const char *kind = rpt_turbostat_prefixes[p];
        for (int i = 0; i < base->nmetrics; i++) {
            const char *name = base->metrics[i].name;
            if (strncmp(name, kind, strlen(kind)) != 0 ||
                !rpt_turbostat_column(name, col, sizeof col))
                continue;
            if (var)
                table_cell(out, 8, 2, rpt_prefixed_mean(var, prefix, name));
            else
                fprintf(out, " %8s", col);
        }
    }
}

/* Width of the variant column: 16, or wider for "NAME cpus LIST" rows. */
static int table_label_width(const struct rpt_results *r)
{
    size_t width = 16;
    for (int v = 0; r->cpus && v < r->nvariants; v++) {
        size_t len = strlen(r->variants[v].name) + 6 + strlen(r->cpus); /* NAME cpus LIST */
        width = len > width ? len : width;
    }
    return (int)width;
}

/* A variant's rows: host-wide, then over the --cpus CPUs when there are
 * such metrics, labelled "NAME cpus LIST"; row(prefix) prints the numbers. */
static void table_variant_rows(const struct rpt_results *r, const struct rpt_variant *var,
                               int width, FILE *out,
                               void (*row)(const struct rpt_results *, const struct rpt_variant *,
                                           const char *, FILE *))
{
    fprintf(out, "%-*s", width, var->name);
    row(r, var, "", out);
    if (!r->cpus)
        return;
    fprintf(out, "%s cpus %-*s", var->name, width - (int)strlen(var->name) - 6, r->cpus);
    row(r, var, RPT_CPUS_PREFIX, out);
}

/* Busy% .. CorWatt of one turbostat row. */
static void table_turbostat_row(const struct rpt_results *r, const struct rpt_variant *var,
                                const char *prefix, FILE *out)
{
    table_cell(out, 7, 2, rpt_prefixed_mean(var, prefix, "busy_pct"));
    table_cell(out, 8, 0, rpt_prefixed_mean(var, prefix, "bzy_mhz"));
    table_turbostat_cells(&r->variants[0], var, prefix, out);
    table_cell(out, 8, 2, rpt_prefixed_mean(var, prefix, "tick_stopped_pct"));
    table_cell(out, 8, 2, rpt_prefixed_mean(var, prefix, "pkg_watts"));
    table_cell(out, 8, 2, rpt_prefixed_mean(var, prefix, "core_watts"));
    fputc('\n', out);
}

/* The turbostat view: Busy%, Bzy_MHz, the residency columns, then pmlab's
 * TkStop% (tick_stopped_pct: idle entries that left the tick stopped, which
 * turbostat cannot show), PkgWatt and CorWatt, one row per variant (two with
 * --cpus). */
static void table_turbostat(const struct rpt_results *r, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    int width = table_label_width(r);
    fprintf(out, "turbostat view (means)\n%-*s %7s %8s", width, "variant", "Busy%", "Bzy_MHz");
    table_turbostat_cells(base, NULL, "", out);
    fprintf(out, " %8s %8s %8s\n", "TkStop%", "PkgWatt", "CorWatt");
    for (int v = 0; v < r->nvariants; v++)
        table_variant_rows(r, &r->variants[v], width, out, table_turbostat_row);
}

/* "above / below", or "-" for a variant without cpuidle states. */
static void table_above_below(FILE *out, double above, double below)
{
    if (isnan(above) || isnan(below))
        fprintf(out, " %15s", "-");
    else
        fprintf(out, "   %5.1f / %5.1f", above, below);
}

/* The idle state an above_pct.<STATE> metric is about, else NULL. */
static const char *table_above_state(const char *metric)
{
    return strncmp(metric, "above_pct.", 10) == 0 ? metric + 10 : NULL;
}

/* One idle-states row: above / below of each state and of all. */
static void table_idle_states_row(const struct rpt_results *r, const struct rpt_variant *var,
                                  const char *prefix, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    char above[RPT_NAME_MAX], below[RPT_NAME_MAX];
    for (int i = 0; i < base->nmetrics; i++) {
        const char *state = table_above_state(base->metrics[i].name);
        if (!state)
            continue;
        snprintf(above, sizeof above, "above_pct.%s", state);
        snprintf(below, sizeof below, "below_pct.%s", state);
        table_above_below(out, rpt_prefixed_mean(var, prefix, above), rpt_prefixed_mean(var, prefix, below));
    }
    table_above_below(out, rpt_prefixed_mean(var, prefix, "above_pct"),
                      rpt_prefixed_mean(var, prefix, "below_pct"));
    fputc('\n', out);
}

/* Per idle state: the share of entries that were too deep (above) or too
 * shallow (below), as the cpuidle sysfs counters would show. */
static void table_idle_states(const struct rpt_results *r, FILE *out)
{
    const struct rpt_variant *base = &r->variants[0];
    if (!rpt_variant_metric(base, "above_pct"))
        return;
    int width = table_label_width(r);
    fprintf(out, "\nidle states: above / below (%% of entries, means)\n%-*s", width, "variant");
    for (int i = 0; i < base->nmetrics; i++)
        if (table_above_state(base->metrics[i].name))
            fprintf(out, " %15s", table_above_state(base->metrics[i].name));
    fprintf(out, " %15s\n", "all");
    for (int v = 0; v < r->nvariants; v++)
        table_variant_rows(r, &r->variants[v], width, out, table_idle_states_row);
}

double rpt_series_mean(const struct rpt_variant_series *vs, int row, int col)
{
    double sum = 0;
    int n = 0;
    for (int k = 0; k < vs->nreps; k++) {
        const struct rpt_series *sr = &vs->rep[k];
        if (row < sr->nrows && col < sr->ncols) {
            sum += sr->rows[row * sr->ncols + col];
            n++;
        }
    }
    return n ? sum / n : NAN;
}

const char *rpt_series_column(const char *col, char *buf, size_t size)
{
    if (strcmp(col, "busy_pct") == 0)
        return "Busy%";
    if (strcmp(col, "bzy_mhz") == 0)
        return "Bzy_MHz";
    if (strcmp(col, "cpu") == 0)
        return "CPU";
    if (strcmp(col, "cpus") == 0)
        return "CPUs";
    if (strcmp(col, "time_ms") == 0)
        return "time_ms";
    if (strcmp(col, "pkg_watts") == 0)
        return "PkgWatt";
    if (strcmp(col, "core_watts") == 0)
        return "CorWatt";
    const char *ts = rpt_turbostat_column(col, buf, size);
    return ts ? ts : col;
}

int rpt_series_prec(const char *col)
{
    return strcmp(col, "bzy_mhz") == 0 || strcmp(col, "cpu") == 0 || strcmp(col, "cpus") == 0 ||
                   strcmp(col, "time_ms") == 0
               ? 0
               : 2;
}

const struct rpt_variant_series *rpt_series_next(const struct rpt_variant *var,
                                                 const char *prefix, int *k)
{
    for (; *k < var->nseries; ++*k) {
        const struct rpt_variant_series *vs = &var->series[*k];
        if (strncmp(vs->name, prefix, strlen(prefix)) == 0 && vs->nreps > 0) {
            ++*k;
            return vs;
        }
    }
    return NULL;
}

/* The rows of every variant's series whose name starts with prefix (per_cpu;
 * per_type., one series per type, labelled by the type), means over the
 * replications, under title; nothing when no variant has one. */
static void table_series_view(const struct rpt_results *r, const char *prefix, const char *title,
                              FILE *out)
{
    bool header = false, typed = strchr(prefix, '.') != NULL;
    char buf[RPT_NAME_MAX + 8];
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        const struct rpt_variant_series *vs;
        for (int k = 0; (vs = rpt_series_next(var, prefix, &k));) {
            const struct rpt_series *s0 = &vs->rep[0];
            if (!header) {
                fprintf(out, "\n%s\n%-16s", title, "variant");
                if (typed)
                    fprintf(out, " %-8s", "type");
                for (int c = 0; c < s0->ncols; c++)
                    fprintf(out, " %8s", rpt_series_column(s0->cols[c], buf, sizeof buf));
                fputc('\n', out);
                header = true;
            }
            for (int i = 0; i < s0->nrows; i++) {
                fprintf(out, "%-16s", var->name);
                if (typed)
                    fprintf(out, " %-8s", vs->name + strlen(prefix));
                for (int c = 0; c < s0->ncols; c++)
                    table_cell(out, 8, rpt_series_prec(s0->cols[c]), rpt_series_mean(vs, i, c));
                fputc('\n', out);
            }
        }
    }
}

/* The scenario's [measured] values beside each variant's prediction: the
 * host against pmlab, gap = pmlab - measured (in the metric's unit and in %
 * of the measured value). */
static void table_measured(const struct rpt_results *r, FILE *out)
{
    if (r->nmeasured == 0)
        return;
    fprintf(out, "\nmeasured on the host beside pmlab (scenario's [measured]; gap = pmlab - "
                 "measured)\n%-22s %-7s %10s", "metric", "unit", "measured");
    for (int v = 0; v < r->nvariants; v++)
        fprintf(out, "  %-24s %10s %8s", r->variants[v].name, "gap", "gap %");
    fputc('\n', out);
    for (int i = 0; i < r->nmeasured; i++) {
        const struct rpt_measured *mv = &r->measured[i];
        const struct rpt_metric *m0 = rpt_variant_metric(&r->variants[0], mv->metric);
        fprintf(out, "%-22s %-7s %10.*f", mv->metric, m0 ? m0->unit : "", table_prec(mv->value),
                mv->value);
        for (int v = 0; v < r->nvariants; v++) {
            double gap, gap_pct;
            const struct rpt_metric *m = rpt_measured_gap(&r->variants[v], mv, &gap, &gap_pct);
            char cell[64];
            if (!m) {
                fprintf(out, "  %-24s %10s %8s", "not reported", "-", "-");
                continue;
            }
            rpt_cell_mean_ci(m, cell, sizeof cell);
            fprintf(out, "  %-24s %+10.*f", cell, table_prec(gap), gap);
            if (isfinite(gap_pct))
                fprintf(out, " %+7.1f%%", gap_pct);
            else
                fprintf(out, " %8s", "-");
        }
        fputc('\n', out);
    }
}

static void table_render(const struct rpt_results *r, FILE *out)
{
    table_header(r, out);
    if (r->nvariants == 0)
        return;
    table_metrics(r, out);
    table_turbostat(r, out);
    table_series_view(r, "per_type.", "turbostat view per core type (--per-cpu; means)", out);
    table_series_view(r, "per_cpu", "turbostat view per CPU (--per-cpu; means)", out);
    table_series_view(r, "interval", "turbostat --interval: each interval of the window, ending "
                      "at time_ms (means over replications)", out);
    table_idle_states(r, out);
    table_measured(r, out);
}

const struct rpt_format rpt_table_format = {
    .name = "table",
    .render = table_render,
};
