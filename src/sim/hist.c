/* hist: log-linear latency histogram, see hist.h.
 *
 * Why this bucket layout: a bucket must be narrow relative to the values in it
 * (for percentiles within a fraction of a percent) at every scale from 1 ns to
 * minutes, in a fixed array. Values below SIM_HIST_SUB get one bucket each
 * (exact: splitting [1, 2) ns into 128 parts would waste buckets on
 * non-integers). From there on, each power of two [2^k, 2^(k+1)) is cut into
 * SIM_HIST_SUB equal buckets of width 2^(k - SUB_BITS), so a bucket is never
 * wider than 1/SIM_HIST_SUB of its lower bound. Group g >= 1 of the array
 * holds the octave k = g + SUB_BITS - 1; group 0 holds 0 .. SUB - 1. The same
 * 38 x 128 buckets therefore reach 2^44 ns (about 4.9 hours), beyond the
 * 2^37 ns a naive one-group-per-octave layout would. Index and bounds are
 * a bit scan and shifts, no floating point. */
#include "sim/hist.h"

#include <math.h>
#include <string.h>

/* Largest value with its own bucket: the top of the last group. */
#define HIST_TOP_NS (((sim_time_t)1 << (SIM_HIST_OCTAVES + SIM_HIST_SUB_BITS - 1)) - 1)

/* Index of the highest set bit of v > 0. */
static unsigned log2_floor(uint64_t v)
{
#if defined(__GNUC__)
    return 63u - (unsigned)__builtin_clzll(v);
#else
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
#endif
}

static size_t bucket_of(sim_time_t value_ns)
{
    if (value_ns < SIM_HIST_SUB)
        return value_ns > 0 ? (size_t)value_ns : 0;
    if (value_ns > HIST_TOP_NS)
        return SIM_HIST_BUCKETS - 1;
    uint64_t v = (uint64_t)value_ns;
    unsigned k = log2_floor(v);
    unsigned shift = k - SIM_HIST_SUB_BITS;
    size_t group = k - SIM_HIST_SUB_BITS + 1;
    /* v >> shift is in [SUB, 2 SUB): its low bits are the sub-bucket. */
    return group * SIM_HIST_SUB + (size_t)((v >> shift) - SIM_HIST_SUB);
}

/* Lowest value of bucket b and its width, both in ns. */
static void bucket_bounds(size_t b, sim_time_t *lo_ns, sim_time_t *width_ns)
{
    size_t group = b / SIM_HIST_SUB;
    size_t sub = b % SIM_HIST_SUB;
    if (group == 0) {
        *lo_ns = (sim_time_t)sub;
        *width_ns = 1;
        return;
    }
    unsigned shift = (unsigned)group - 1;
    *lo_ns = (sim_time_t)(SIM_HIST_SUB + sub) << shift;
    *width_ns = (sim_time_t)1 << shift;
}

void sim_hist_init(struct sim_hist *h)
{
    memset(h, 0, sizeof *h);
    h->min_ns = SIM_TIME_MAX;
    h->max_ns = 0;
}

void sim_hist_add(struct sim_hist *h, sim_time_t value_ns)
{
    if (value_ns < 0)
        value_ns = 0;
    h->bucket[bucket_of(value_ns)]++;
    h->count++;
    h->sum_ns += (double)value_ns;
    if (value_ns < h->min_ns)
        h->min_ns = value_ns;
    if (value_ns > h->max_ns)
        h->max_ns = value_ns;
}

void sim_hist_merge(struct sim_hist *dst, const struct sim_hist *src)
{
    for (size_t b = 0; b < SIM_HIST_BUCKETS; b++)
        dst->bucket[b] += src->bucket[b];
    dst->count += src->count;
    dst->sum_ns += src->sum_ns;
    if (src->min_ns < dst->min_ns)
        dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
}

/* The midpoint of the integer values a bucket holds, clamped to the observed
 * range (which makes the first and last percentiles, and everything in the
 * overflow bucket, exact at the extremes). */
static double bucket_value(const struct sim_hist *h, size_t b)
{
    sim_time_t lo_ns, width_ns;
    bucket_bounds(b, &lo_ns, &width_ns);
    double mid = (double)lo_ns + (double)(width_ns - 1) / 2.0;
    if (b == SIM_HIST_BUCKETS - 1 || mid > (double)h->max_ns)
        mid = (double)h->max_ns;
    if (mid < (double)h->min_ns)
        mid = (double)h->min_ns;
    return mid;
}

double sim_hist_percentile(const struct sim_hist *h, double p)
{
    if (h->count == 0)
        return 0.0;
    /* Nearest rank: the smallest sample with at least p % of samples <= it. */
    double r = ceil(p / 100.0 * (double)h->count);
    uint64_t rank = r < 1.0 ? 1 : (r > (double)h->count ? h->count : (uint64_t)r);
    uint64_t seen = 0;
    for (size_t b = 0; b < SIM_HIST_BUCKETS; b++) {
        seen += h->bucket[b];
        if (seen >= rank)
            return bucket_value(h, b);
    }
    return (double)h->max_ns; /* not reached: the buckets sum to count */
}

double sim_hist_mean(const struct sim_hist *h)
{
    return h->count ? h->sum_ns / (double)h->count : 0.0;
}

double sim_hist_percentile_us(const struct sim_hist *h, double p)
{
    return h->count ? sim_hist_percentile(h, p) / 1000.0 : NAN;
}

double sim_hist_mean_us(const struct sim_hist *h)
{
    return h->count ? sim_hist_mean(h) / 1000.0 : NAN;
}
