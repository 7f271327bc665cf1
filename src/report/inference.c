/* inference: paired t, Welch t, Holm; see inference.h. */
#include "report/inference.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/xalloc.h"

static bool all_finite(const double *x, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

static double mean_of(const double *x, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    return sum / n;
}

/* Sample variance (n - 1 denominator), n >= 2. */
static double var_of(const double *x, int n, double mean)
{
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    return ss / (n - 1);
}

/* Fill out from diff, its standard error and df. se = 0 is an exact
 * difference. A t quantile GSL cannot give (NaN with its handler off)
 * leaves an unbounded interval and p = 1: no verdict can come of it. */
static void t_result(double diff, double se, double df, struct rpt_diff_test *out)
{
    out->diff = diff;
    out->df = df;
    if (se == 0) {
        out->ci_lo = out->ci_hi = diff;
        out->p_value = diff == 0 ? 1.0 : 0.0;
        return;
    }
    double q = gsl_cdf_tdist_Pinv(1 - RPT_ALPHA / 2, df);
    double p = 2 * gsl_cdf_tdist_Q(fabs(diff) / se, df);
    if (!isfinite(q) || !isfinite(p)) {
        out->ci_lo = -INFINITY;
        out->ci_hi = INFINITY;
        out->p_value = 1.0;
        return;
    }
    out->ci_lo = diff - q * se;
    out->ci_hi = diff + q * se;
    out->p_value = p > 1 ? 1 : p;
}

int rpt_paired_t(const double *a, const double *b, int n, struct rpt_diff_test *out)
{
    if (n < 2 || !all_finite(a, n) || !all_finite(b, n))
        return -1;
    double *d = xcalloc((size_t)n, sizeof *d);
    for (int i = 0; i < n; i++)
        d[i] = b[i] - a[i];
    double md = mean_of(d, n);
    double se = sqrt(var_of(d, n, md) / n);
    free(d);
    t_result(md, se, n - 1, out);
    return 0;
}

/* Welch-Satterthwaite degrees of freedom, written with each side's share of
 * the variance of the difference so that tiny or huge variances neither
 * underflow nor overflow: (va + vb)^2 / (va^2 / ...) is 0/0 for variances
 * near 1e-320, which left no interval for values such as 1e-160. */
static double welch_df(double va, int na, double vb, int nb)
{
    double sa = va / (va + vb), sb = vb / (va + vb);
    return 1 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
}

int rpt_welch_t(const double *a, int na, const double *b, int nb, struct rpt_diff_test *out)
{
    if (na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb))
        return -1;
    double ma = mean_of(a, na), mb = mean_of(b, nb);
    double va = var_of(a, na, ma) / na, vb = var_of(b, nb, mb) / nb;
    double se = sqrt(va + vb);
    double df = se > 0 ? welch_df(va, na, vb, nb) : na + nb - 2;
    t_result(mb - ma, se, df, out);
    return 0;
}

struct holm_item {
    double p;
    int index;
};

static int holm_cmp(const void *x, const void *y)
{
    const struct holm_item *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return a->index - b->index; /* a stable order for equal p */
}

void rpt_holm(const double *p, int n, double *adj)
{
    struct holm_item *it = xcalloc((size_t)n + 1, sizeof *it);
    int m = 0;
    for (int i = 0; i < n; i++) {
        adj[i] = NAN;
        if (!isnan(p[i]))
            it[m++] = (struct holm_item){ p[i], i };
    }
    qsort(it, (size_t)m, sizeof *it, holm_cmp);
    double running = 0;
    for (int j = 0; j < m; j++) {
        double a = (double)(m - j) * it[j].p;
        a = a < 1 ? a : 1;
        running = a > running ? a : running; /* step-down: never below an earlier one */
        adj[it[j].index] = running;
    }
    free(it);
}
