/* steady: MSER-5 and the binned output it reads; see steady.h. */
#include "sim/steady.h"

#include <math.h>
#include <stdlib.h>

#include "util/xalloc.h"

#define MSER_BATCH 5

int sim_mser5(const double *x, int n)
{
    int k = n / MSER_BATCH;
    if (k < 4)
        return -1;
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -1;
    double *z = xcalloc((size_t)k, sizeof *z);
    for (int i = 0; i < k; i++) {
        double sum = 0;
        for (int j = 0; j < MSER_BATCH; j++)
            sum += x[i * MSER_BATCH + j];
        z[i] = sum / MSER_BATCH;
    }
    /* Batches k-1, k-2, .. 0 join a running mean and sum of squared
     * deviations (Welford's update, stable where the mean is large against
     * the spread), so every d costs O(1). */
    double mean = 0, ss = 0, best = INFINITY;
    int best_d = 0;
    for (int d = k - 1; d >= 0; d--) {
        double m = k - d, delta = z[d] - mean;
        mean += delta / m;
        ss += delta * (z[d] - mean);
        if (d >= k / 2)
            continue;
        double mser = ss / (m * m);
        if (mser <= best) { /* ties to the smaller d: truncate no more than needed */
            best = mser;
            best_d = d;
        }
    }
    free(z);
    return best_d * MSER_BATCH;
}

void sim_steady_init(struct sim_steady *s, sim_time_t start_ns, sim_time_t end_ns)
{
    s->start_ns = start_ns;
    s->bin_ns = (end_ns - start_ns + SIM_STEADY_BINS - 1) / SIM_STEADY_BINS;
    if (s->bin_ns < 1)
        s->bin_ns = 1;
    s->sum = xcalloc(SIM_STEADY_BINS, sizeof *s->sum);
    s->count = xcalloc(SIM_STEADY_BINS, sizeof *s->count);
}

void sim_steady_destroy(struct sim_steady *s)
{
    free(s->sum);
    free(s->count);
    s->sum = NULL;
    s->count = NULL;
}

void sim_steady_add(struct sim_steady *s, sim_time_t t_ns, double x)
{
    if (t_ns < s->start_ns)
        return;
    sim_time_t bin = (t_ns - s->start_ns) / s->bin_ns;
    if (bin >= SIM_STEADY_BINS)
        return;
    s->sum[bin] += x;
    s->count[bin]++;
}

sim_time_t sim_steady_end_ns(const struct sim_steady *s, enum sim_steady_series what)
{
    double *x = xcalloc(SIM_STEADY_BINS, sizeof *x);
    int *bin_of = xcalloc(SIM_STEADY_BINS, sizeof *bin_of);
    int n = 0;
    for (int b = 0; b < SIM_STEADY_BINS; b++) {
        if (what == SIM_STEADY_MEAN && s->count[b] == 0)
            continue;
        x[n] = what == SIM_STEADY_MEAN ? s->sum[b] / (double)s->count[b] : (double)s->count[b];
        bin_of[n++] = b;
    }
    int d = sim_mser5(x, n);
    sim_time_t end = d < 0 ? -1 : d == 0 ? 0 : (sim_time_t)bin_of[d] * s->bin_ns;
    free(x);
    free(bin_of);
    return end;
}
