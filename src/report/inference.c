/* inference: paired t, Welch t, Holm, permutation tests; see inference.h. */
#include "report/inference.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/rng.h"
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
    out->rearrangements = 0;
    out->exact = false;
    out->p_min = 0;
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

static int double_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Distinct values among x[0..na) and y[0..ny) together. */
static int distinct_count(const double *x, int nx, const double *y, int ny)
{
    int n = nx + ny;
    double *v = xcalloc((size_t)n + 1, sizeof *v);
    memcpy(v, x, (size_t)nx * sizeof *v);
    if (ny > 0)
        memcpy(v + nx, y, (size_t)ny * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, double_cmp);
    int k = n > 0;
    for (int i = 1; i < n; i++)
        k += v[i] != v[i - 1];
    free(v);
    return k;
}

bool rpt_sample_discrete(const double *x, int n)
{
    return n >= 2 && 2 * distinct_count(x, n, NULL, 0) <= n;
}

bool rpt_t_unsuited(const double *a, int na, const double *b, int nb)
{
    return rpt_sample_discrete(a, na) || rpt_sample_discrete(b, nb) ||
           2 * distinct_count(a, na, b, nb) <= na + nb;
}

/* The rearrangements of a permutation test, each reduced to how its
 * statistic moves with a hypothesised shift delta: stat(delta) = base -
 * delta * slope (a difference in means is linear in the shift). Entry 0 is
 * the data as observed (slope 1). */
struct perm_set {
    double *base, *slope;    /* [n] */
    long n;
    bool exact;
    double magnitude;        /* the largest |value|: the scale of rounding errors */
    int nvalues;             /* values summed into one statistic */
};

static void perm_set_init(struct perm_set *ps, long n, const double *x, int nx)
{
    ps->base = xcalloc((size_t)n, sizeof *ps->base);
    ps->slope = xcalloc((size_t)n, sizeof *ps->slope);
    ps->n = 0;
    ps->magnitude = 0;
    ps->nvalues = nx;
    for (int i = 0; i < nx; i++)
        ps->magnitude = fmax(ps->magnitude, fabs(x[i]));
}

static void perm_set_free(struct perm_set *ps)
{
    free(ps->base);
    free(ps->slope);
}

/* The test's p for a shift delta: the share of rearrangements at least as
 * extreme as the observed one, which is one of them, so p >= 1 / n (and in
 * the Monte-Carlo case the (1 + hits) / (1 + draws) of Phipson and Smyth).
 * Statistics equal but for rounding (sums of the same values in another
 * order) count as ties. */
static double perm_p(const struct perm_set *ps, double delta)
{
    double tol = 16.0 * ps->nvalues * DBL_EPSILON * (ps->magnitude + fabs(delta));
    double obs = fabs(ps->base[0] - delta * ps->slope[0]) - tol;
    long hits = 0;
    for (long s = 0; s < ps->n; s++)
        hits += fabs(ps->base[s] - delta * ps->slope[s]) >= obs;
    return (double)hits / (double)ps->n;
}

/* The smallest p any data could give this design: far from the estimate
 * only rearrangements that move with the shift as fast as the observed one
 * (|slope| = 1: itself, its mirror image) stay as extreme. */
static double perm_p_min(const struct perm_set *ps)
{
    long hits = 0;
    for (long s = 0; s < ps->n; s++)
        hits += fabs(ps->slope[s]) >= 1 - 1e-12;
    return (double)hits / (double)ps->n;
}

/* One end of the interval {delta : p(delta) >= RPT_ALPHA}, going from the
 * estimate (where p = 1) in direction dir: double the step until the test
 * rejects, then bisect. Unbounded when the design cannot reject. */
static double perm_bound(const struct perm_set *ps, double estimate, double dir, double step,
                         double p_min)
{
    if (!(p_min < RPT_ALPHA))
        return dir * INFINITY;
    double in = estimate, out = estimate + dir * step;
    for (int i = 0; perm_p(ps, out) >= RPT_ALPHA; i++) {
        if (i == 200)
            return dir * INFINITY;
        in = out;
        step *= 2;
        out = estimate + dir * step;
    }
    for (int i = 0; i < 64; i++) {
        double mid = in + (out - in) / 2;
        if (perm_p(ps, mid) >= RPT_ALPHA)
            in = mid;
        else
            out = mid;
    }
    return in;
}

/* p, the interval and the design's bookkeeping, from the filled set. */
static void perm_result(const struct perm_set *ps, double spread, struct rpt_diff_test *out)
{
    double estimate = ps->base[0];
    double step = spread > 0 ? spread : fabs(estimate) > 0 ? fabs(estimate) : 1;
    out->diff = estimate;
    out->df = NAN;
    out->p_value = perm_p(ps, 0);
    out->p_min = perm_p_min(ps);
    out->ci_lo = perm_bound(ps, estimate, -1, step, out->p_min);
    out->ci_hi = perm_bound(ps, estimate, +1, step, out->p_min);
    out->rearrangements = (double)ps->n - !ps->exact; /* the draws, without the data */
    out->exact = ps->exact;
}

static double binomial(int n, int k)
{
    double c = 1;
    for (int i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return c;
}

/* A split of the pooled values z[0..n) (a's first) putting in_b[0..nb) in
 * group b: its difference in means and slope (how many of b's own values
 * it keeps in b, each carrying the shift). */
static void perm_add_split(struct perm_set *ps, const double *z, int na, int nb,
                           const int *in_b, double total)
{
    double sum_b = 0;
    int kept = 0;
    for (int i = 0; i < nb; i++) {
        sum_b += z[in_b[i]];
        kept += in_b[i] >= na;
    }
    ps->base[ps->n] = sum_b / nb - (total - sum_b) / na;
    ps->slope[ps->n] = (double)kept / nb - (double)(nb - kept) / na;
    ps->n++;
}

/* Every split but the observed one (which is entry 0), in lexicographic
 * order of the index sets. */
static void perm_enumerate_splits(struct perm_set *ps, const double *z, int na, int nb,
                                  double total)
{
    int n = na + nb, *c = xcalloc((size_t)nb, sizeof *c);
    for (int i = 0; i < nb; i++)
        c[i] = i;
    for (;;) {
        if (c[0] != na) /* the observed split is {na .. n - 1} */
            perm_add_split(ps, z, na, nb, c, total);
        int i = nb - 1;
        while (i >= 0 && c[i] == n - nb + i)
            i--;
        if (i < 0)
            break;
        c[i]++;
        for (int j = i + 1; j < nb; j++)
            c[j] = c[j - 1] + 1;
    }
    free(c);
}

/* RPT_PERM_DRAWS random splits: the first nb of a partial Fisher-Yates
 * shuffle of the indices. */
static void perm_draw_splits(struct perm_set *ps, const double *z, int na, int nb, double total,
                             uint64_t seed)
{
    int n = na + nb, *idx = xcalloc((size_t)n, sizeof *idx);
    struct sim_rng rng;
    sim_rng_init(&rng, &(struct sim_rng_key){ .scenario_seed = seed });
    for (int d = 0; d < RPT_PERM_DRAWS; d++) {
        for (int i = 0; i < n; i++)
            idx[i] = i;
        for (int i = 0; i < nb; i++) {
            int j = i + (int)sim_rng_below(&rng, (uint64_t)(n - i));
            int t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
        perm_add_split(ps, z, na, nb, idx, total);
    }
    sim_rng_destroy(&rng);
    free(idx);
}

int rpt_perm_test(const double *a, int na, const double *b, int nb, uint64_t seed,
                  struct rpt_diff_test *out)
{
    if (na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb))
        return -1;
    int n = na + nb;
    double *z = xcalloc((size_t)n, sizeof *z);
    memcpy(z, a, (size_t)na * sizeof *z);
    memcpy(z + na, b, (size_t)nb * sizeof *z);
    double total = 0, lo = z[0], hi = z[0];
    for (int i = 0; i < n; i++) {
        total += z[i];
        lo = fmin(lo, z[i]);
        hi = fmax(hi, z[i]);
    }
    double splits = binomial(n, nb);
    struct perm_set ps;
    bool exact = splits <= RPT_PERM_EXACT_MAX;
    perm_set_init(&ps, exact ? (long)splits : RPT_PERM_DRAWS + 1, z, n);
    ps.exact = exact;
    int *observed = xcalloc((size_t)nb, sizeof *observed);
    for (int i = 0; i < nb; i++)
        observed[i] = na + i;
    perm_add_split(&ps, z, na, nb, observed, total);
    free(observed);
    if (exact)
        perm_enumerate_splits(&ps, z, na, nb, total);
    else
        perm_draw_splits(&ps, z, na, nb, total, seed);
    perm_result(&ps, hi - lo, out);
    perm_set_free(&ps);
    free(z);
    return 0;
}

/* A sign assignment to d[0..n) (bit i set: d[i] flipped): mean of the
 * signed differences, and how the shift enters (the signs' mean). */
static void perm_add_signs(struct perm_set *ps, const double *d, int n, const bool *flip)
{
    double sum = 0, signs = 0;
    for (int i = 0; i < n; i++) {
        sum += flip[i] ? -d[i] : d[i];
        signs += flip[i] ? -1 : 1;
    }
    ps->base[ps->n] = sum / n;
    ps->slope[ps->n] = signs / n;
    ps->n++;
}

int rpt_signflip_test(const double *a, const double *b, int n, uint64_t seed,
                      struct rpt_diff_test *out)
{
    if (n < 2 || !all_finite(a, n) || !all_finite(b, n))
        return -1;
    double *d = xcalloc((size_t)n, sizeof *d), spread = 0;
    bool *flip = xcalloc((size_t)n, sizeof *flip);
    for (int i = 0; i < n; i++) {
        d[i] = b[i] - a[i];
        spread = fmax(spread, fabs(d[i]));
    }
    bool exact = n < 63 && ldexp(1, n) <= RPT_PERM_EXACT_MAX;
    struct perm_set ps;
    perm_set_init(&ps, exact ? 1L << n : RPT_PERM_DRAWS + 1, d, n);
    ps.exact = exact;
    perm_add_signs(&ps, d, n, flip); /* the observed: no flips */
    if (exact) {
        for (long mask = 1; mask < 1L << n; mask++) {
            for (int i = 0; i < n; i++)
                flip[i] = (mask >> i) & 1;
            perm_add_signs(&ps, d, n, flip);
        }
    } else {
        struct sim_rng rng;
        sim_rng_init(&rng, &(struct sim_rng_key){ .scenario_seed = seed });
        for (int k = 0; k < RPT_PERM_DRAWS; k++) {
            for (int i = 0; i < n; i++)
                flip[i] = sim_rng_below(&rng, 2);
            perm_add_signs(&ps, d, n, flip);
        }
        sim_rng_destroy(&rng);
    }
    perm_result(&ps, spread, out);
    perm_set_free(&ps);
    free(flip);
    free(d);
    return 0;
}
