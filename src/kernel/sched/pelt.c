/* pelt: the kernel's PELT arithmetic, see pelt.h. */
#include "kernel/sched/pelt.h"

/* y^n x 2^32 for n < 32, y^32 = 1/2 (runnable_avg_yN_inv, generated in the
 * kernel by Documentation/scheduler/sched-pelt.c): a table of facts. */
static const uint32_t pelt_yn_inv[LOAD_AVG_PERIOD] = {
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
    0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
    0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
    0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
    0x85aac367, 0x82cd8698,
};

/* (val x mul) >> 32 without losing the top bits (mul_u64_u32_shr): split
 * val in 32-bit halves; the high half's product has no bits below 2^32. */
static uint64_t mul_u64_u32_shr32(uint64_t val, uint32_t mul)
{
    uint64_t hi = val >> 32, lo = val & 0xffffffffu;
    return hi * mul + ((lo * mul) >> 32);
}

uint64_t pelt_decay_load(uint64_t val, uint64_t periods)
{
    if (periods > LOAD_AVG_PERIOD * 63)
        return 0;
    unsigned n = (unsigned)periods;
    /* y^n = (1/2)^(n / 32) x y^(n % 32): a shift and one table entry */
    val >>= n / LOAD_AVG_PERIOD;
    return mul_u64_u32_shr32(val, pelt_yn_inv[n % LOAD_AVG_PERIOD]);
}

uint32_t pelt_accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3)
{
    /* the full periods: 1024 x (sum y^k for k in 1..p-1), from the infinite
     * sum LOAD_AVG_MAX less its tail from p on and its first term */
    uint32_t full = LOAD_AVG_MAX - (uint32_t)pelt_decay_load(LOAD_AVG_MAX, periods) - 1024;
    return (uint32_t)pelt_decay_load(d1, periods) + full + d3;
}

/* accumulate_sum: decay the sums by the periods that ended in delta units,
 * then add the new contribution. Returns the number of periods ended. */
static uint64_t pelt_accumulate_sum(struct sched_avg *sa, uint64_t delta, unsigned long load,
                                    bool running)
{
    uint64_t contrib = delta;
    delta += sa->period_contrib;
    uint64_t periods = delta / PELT_PERIOD_UNITS;
    if (periods) {
        sa->load_sum = pelt_decay_load(sa->load_sum, periods);
        sa->util_sum = (uint32_t)pelt_decay_load(sa->util_sum, periods);
        delta %= PELT_PERIOD_UNITS;
        if (load)
            contrib = pelt_accumulate_segments(periods, PELT_PERIOD_UNITS - sa->period_contrib,
                                               (uint32_t)delta);
    }
    sa->period_contrib = (uint32_t)delta;
    if (load)
        sa->load_sum += load * contrib;
    if (running)
        sa->util_sum += (uint32_t)(contrib << PELT_UNIT_SHIFT);
    return periods;
}

/* n / d, exactly. A 64-bit dividend that fits in 32 bits (every task's
 * weight x load_sum, a runqueue's up to ~87 tasks) takes the 32-bit divide,
 * several times cheaper on x86 than the 64-bit one; the quotient is the
 * same integer either way. */
static uint64_t pelt_div_u64_u32(uint64_t n, uint32_t d)
{
    if (n <= UINT32_MAX)
        return (uint32_t)n / d;
    return n / d;
}

/* ___update_load_avg */
static void pelt_update_avgs(struct sched_avg *sa, unsigned long weight)
{
    uint32_t divider = pelt_divider(sa);
    sa->load_avg = (unsigned long)pelt_div_u64_u32(weight * sa->load_sum, divider);
    sa->util_avg = sa->util_sum / divider;
}

bool pelt_update_load_avg_slow(struct sched_avg *sa, sim_time_t now_ns, unsigned long load,
                               bool running, unsigned long weight)
{
    sim_time_t delta_ns = now_ns - sa->last_update_ns;
    if (delta_ns < 0) {
        sa->last_update_ns = now_ns;   /* time went back: restart from now */
        return false;
    }
    uint64_t delta = (uint64_t)delta_ns >> PELT_UNIT_SHIFT;
    if (!delta)
        return false;
    sa->last_update_ns += (sim_time_t)(delta << PELT_UNIT_SHIFT);
    if (!load)
        running = false;   /* running is a subset of runnable */
    if (!pelt_accumulate_sum(sa, delta, load, running))
        return false;
    pelt_update_avgs(sa, weight);
    return true;
}

struct sched_avg pelt_avg_at(const struct sched_avg *sa, sim_time_t now_ns, unsigned long load,
                             bool running, unsigned long weight)
{
    struct sched_avg out = *sa;
    /* Within the current period the averages stand still: no work to do. */
    if (pelt_period_ended(sa, now_ns))
        pelt_update_load_avg(&out, now_ns, load, running, weight);
    return out;
}

void pelt_attach(struct sched_avg *sa, const struct sched_avg *rq, unsigned long weight)
{
    sa->last_update_ns = rq->last_update_ns;
    sa->period_contrib = rq->period_contrib;
    uint32_t divider = pelt_divider(sa);
    sa->util_sum = (uint32_t)(sa->util_avg * divider);
    uint64_t load_sum = (uint64_t)sa->load_avg * divider;
    sa->load_sum = weight < load_sum ? load_sum / weight : 1;
}

sim_time_t pelt_clock_update(struct pelt_clock *c, sim_time_t now_ns, bool running,
                             unsigned cap_scale, unsigned freq_scale)
{
    sim_time_t dt = now_ns - c->last_update_ns;
    if (dt <= 0)
        return 0;
    if (running) {
        /* capacity first, then frequency, each truncated as cap_scale does */
        sim_time_t scaled = pelt_clock_advance(0, dt, cap_scale);
        c->clock_pelt_ns = pelt_clock_advance(c->clock_pelt_ns, scaled, freq_scale);
    } else {
        c->clock_pelt_ns = now_ns;   /* idle: the PELT clock follows the real one */
    }
    c->last_update_ns = now_ns;
    return dt;
}

sim_time_t pelt_clock_at(const struct pelt_clock *c, sim_time_t now_ns, bool running,
                         unsigned cap_scale, unsigned freq_scale)
{
    struct pelt_clock tmp = *c;
    pelt_clock_update(&tmp, now_ns, running, cap_scale, freq_scale);
    return rq_clock_pelt(&tmp);
}

/* ceil(a x 1024 / scale) for a > 0: the least x with (x x scale) >> 10 >= a. */
static uint64_t pelt_unscale_ceil(uint64_t a, unsigned scale)
{
    return (a * 1024 + scale - 1) / scale;
}

sim_time_t pelt_clock_reach_ns(const struct pelt_clock *c, sim_time_t now_ns, bool running,
                               unsigned cap_scale, unsigned freq_scale, sim_time_t target_ns)
{
    if (pelt_clock_at(c, now_ns, running, cap_scale, freq_scale) >= target_ns)
        return now_ns;
    /* The clock moves only at a time after its last update; then idle it
     * reads t - lost_idle, running clock_pelt + the scaled time since. */
    sim_time_t want = target_ns + c->lost_idle_ns;
    if (!running)
        return want > c->last_update_ns + 1 ? want : c->last_update_ns + 1;
    if (!cap_scale || !freq_scale)
        return INT64_MAX;
    uint64_t scaled = pelt_unscale_ceil((uint64_t)(want - c->clock_pelt_ns), freq_scale);
    uint64_t dt = pelt_unscale_ceil(scaled, cap_scale);
    sim_time_t t = c->last_update_ns + (sim_time_t)dt;
    return t > now_ns ? t : now_ns;
}

void pelt_clock_enter_idle(struct pelt_clock *c, sim_time_t now_ns, uint32_t util_sum)
{
    /* the most a util_sum holds, against the divider's upper bound as the
     * kernel compares: reaching it means no idle time in the window */
    const uint32_t full = ((LOAD_AVG_MAX - 1024) << 10) - LOAD_AVG_MAX;
    if (util_sum >= full)
        c->lost_idle_ns += now_ns - c->clock_pelt_ns;
    c->clock_pelt_ns = now_ns;
}
