/* stats: Welford mean/variance and time-weighted averages, see stats.h.
 *
 * Why Welford: the textbook sum-of-squares formula subtracts two large, nearly
 * equal numbers and loses every digit when the mean is large against the
 * spread (throughputs around 1e5 with a spread of a few percent, times in ns);
 * updating the mean and the sum of squared deviations per sample does not. */
#include "sim/stats.h"

#include <math.h>

void sim_stat_init(struct sim_stat *s)
{
    s->n = 0;
    s->mean = 0.0;
    s->m2 = 0.0;
    s->min = INFINITY;
    s->max = -INFINITY;
}

void sim_stat_add(struct sim_stat *s, double x)
{
    s->n++;
    double delta = x - s->mean;
    s->mean += delta / (double)s->n;
    /* delta before times delta after the update: the exact increment of the
     * sum of squared deviations. */
    s->m2 += delta * (x - s->mean);
    if (x < s->min)
        s->min = x;
    if (x > s->max)
        s->max = x;
}

double sim_stat_variance(const struct sim_stat *s)
{
    return s->n < 2 ? 0.0 : s->m2 / (double)(s->n - 1);
}

double sim_stat_stddev(const struct sim_stat *s)
{
    return sqrt(sim_stat_variance(s));
}

void sim_tavg_init(struct sim_tavg *a, sim_time_t t0_ns, double v0)
{
    a->start_ns = t0_ns;
    a->last_ns = t0_ns;
    a->value = v0;
    a->integral = 0.0;
}

void sim_tavg_set(struct sim_tavg *a, sim_time_t now_ns, double v)
{
    a->integral += a->value * (double)(now_ns - a->last_ns);
    a->last_ns = now_ns;
    a->value = v;
}

double sim_tavg_mean(const struct sim_tavg *a, sim_time_t now_ns)
{
    sim_time_t span_ns = now_ns - a->start_ns;
    if (span_ns <= 0)
        return a->value;
    double integral = a->integral + a->value * (double)(now_ns - a->last_ns);
    return integral / (double)span_ns;
}

void sim_tavg_reset(struct sim_tavg *a, sim_time_t now_ns)
{
    sim_tavg_init(a, now_ns, a->value);
}
