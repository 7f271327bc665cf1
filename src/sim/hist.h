/* hist: latency histogram with bounded memory and relative accuracy.
 *
 * Log-linear buckets (the HdrHistogram idea): values 0 .. SIM_HIST_SUB - 1 ns
 * have a bucket each (exact), and each power of two above, up to 2^44 ns
 * (~4.9 h), is split into SIM_HIST_SUB linear sub-buckets, so a bucket is at
 * most 1/SIM_HIST_SUB of its lower bound wide. Percentiles report the bucket
 * midpoint (clamped to [min_ns, max_ns]), within half a bucket (< 0.4 %) of the
 * exact order statistic. Values below 1 ns count as 0, above the range in the
 * last bucket (and max_ns keeps the true maximum). Memory: a fixed array,
 * ~38 KiB. */
#ifndef PMLAB_SIM_HIST_H
#define PMLAB_SIM_HIST_H

#include <stdint.h>

#include "sim/time.h"

#define SIM_HIST_SUB_BITS 7
#define SIM_HIST_SUB (1 << SIM_HIST_SUB_BITS)  /* sub-buckets per octave */
#define SIM_HIST_OCTAVES 38  /* groups of SIM_HIST_SUB buckets: 0..127 ns, then 2^7 .. 2^44 ns */
#define SIM_HIST_BUCKETS (SIM_HIST_SUB * SIM_HIST_OCTAVES)

struct sim_hist {
    uint64_t count;
    double sum_ns;          /* for the exact mean */
    sim_time_t min_ns, max_ns;  /* SIM_TIME_MAX and 0 while empty */
    uint64_t bucket[SIM_HIST_BUCKETS];
};

void sim_hist_init(struct sim_hist *h);
void sim_hist_add(struct sim_hist *h, sim_time_t value_ns);
/* Add every sample of src to dst. */
void sim_hist_merge(struct sim_hist *dst, const struct sim_hist *src);
/* The p-th percentile (0 < p <= 100) in ns, by the nearest-rank rule on
 * bucket midpoints; 0 for an empty histogram. */
double sim_hist_percentile(const struct sim_hist *h, double p);
double sim_hist_mean(const struct sim_hist *h);
/* The same in µs for a report: NaN for an empty histogram (nothing completed
 * in the window has no latency; 0 would read as an infinitely fast one). */
double sim_hist_percentile_us(const struct sim_hist *h, double p);
double sim_hist_mean_us(const struct sim_hist *h);

#endif
