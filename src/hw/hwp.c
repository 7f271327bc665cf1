/* hwp: the hardware's frequency choice under HWP, see hwp.h. */
#include "hw/hwp.h"

#include <math.h>

#define HWP_RATIO_MHZ 100u      /* bus clock: frequencies are ratios of 100 MHz */
#define HWP_EPP_BALANCE_PERF 0x80 /* FACTS.md §5 [F4]: balance_performance */

/* Weight of the old filtered value after dt_ns (exponential, time constant
 * window_ns). */
static double hwp_filter_keep(const struct hwp_params *prm, sim_time_t dt_ns)
{
    return exp(-(double)dt_ns / prm->window_ns);
}

void hwp_params_init(struct hwp_params *prm, const struct hw_machine *m)
{
    prm->window_ns = hw_machine_calib(m, "hwp_window_us") * SIM_NS_PER_US;
    prm->eval_ns = (sim_time_t)(hw_machine_calib(m, "hwp_eval_us") * SIM_NS_PER_US);
    prm->busy_full = hw_machine_calib(m, "hwp_busy_full");
    prm->epp255_ceiling_ratio = hw_machine_calib(m, "hwp_epp255_ceiling_ratio");
    prm->eval_keep = hwp_filter_keep(prm, prm->eval_ns);
}

sim_time_t hwp_core_c0_ns(const struct hw_state *hw, int core, sim_time_t now_ns)
{
    const struct hw_core_state *cs = &hw->core[core];
    const struct hw_core_type *t = &hw->m->types[hw->m->cores[core].type];
    sim_time_t idle = 0;
    for (int i = 0; i < t->ncstates; i++)
        idle += cs->cstate_ns[i];
    if (cs->cstate >= 0)
        idle += now_ns - cs->since_ns;
    return now_ns - hw->measure_start_ns - idle;
}

sim_time_t hwp_thread_c0_ns(const struct hw_state *hw, int cpu, sim_time_t now_ns)
{
    const struct hw_thread *th = &hw->thr[cpu];
    sim_time_t c0 = th->run_ns + th->poll_ns;
    if (th->mode == HW_THREAD_RUN || th->mode == HW_THREAD_POLL)
        c0 += now_ns - th->since_ns;
    return c0;
}

/* Fold an interval of dt_ns > 0 with busy_ns of it in C0 into the filter.
 * The one place the filter's arithmetic is written, so that a replayed
 * sample (hwp_core_sample_c0) is bit for bit an eager one. */
static void hwp_filter_fold(struct hwp_core *hc, const struct hwp_params *prm, sim_time_t dt,
                            sim_time_t busy_ns)
{
    double share = (double)busy_ns / (double)dt;
    share = share < 0 ? 0 : share > 1 ? 1 : share;
    /* Evaluations are eval_ns apart while the core stays in C0: the same
     * exp() result, computed once (bit-identical, no libm call per event). */
    double keep = dt == prm->eval_ns ? prm->eval_keep : hwp_filter_keep(prm, dt);
    hc->busy_avg = hc->busy_avg * keep + share * (1 - keep);
}

void hwp_core_sample(struct hwp_core *hc, const struct hwp_params *prm,
                     const struct hw_state *hw, int core, sim_time_t now_ns)
{
    sim_time_t dt = now_ns - hc->last_ns;
    if (dt <= 0)
        return;
    sim_time_t c0 = hwp_core_c0_ns(hw, core, now_ns);
    sim_time_t busy_ns;
    if (hc->epoch_ns == hw->measure_start_ns) {
        busy_ns = c0 - hc->c0_last_ns;
    } else {
        /* The counters restarted (measurement window): the part of the
         * interval before the restart is taken at the same share. */
        sim_time_t since = now_ns - hw->measure_start_ns;
        busy_ns = since > 0 ? (sim_time_t)((double)c0 * (double)dt / (double)since) : 0;
        hc->epoch_ns = hw->measure_start_ns;
    }
    hwp_filter_fold(hc, prm, dt, busy_ns);
    hc->last_ns = now_ns;
    hc->c0_last_ns = c0;
}

void hwp_core_sample_c0(struct hwp_core *hc, const struct hwp_params *prm, sim_time_t now_ns)
{
    sim_time_t dt = now_ns - hc->last_ns;
    if (dt <= 0)
        return;
    /* In C0 throughout, in one counter epoch: the counter moved by dt. */
    hwp_filter_fold(hc, prm, dt, dt);
    hc->last_ns = now_ns;
    hc->c0_last_ns += dt;
}

/* A sample of eval_ns in C0 maps busy_avg b to fl(fl(b x keep) + fl(1 - keep)),
 * each rounding monotone in b: so if one such sample does not lower b, by
 * induction no later one lowers it, and saturation (busy / sat >= 1, also
 * monotone) holds at every one of them. */
bool hwp_busy_stays_saturated(const struct hwp_core *hc, const struct hwp_params *prm,
                              const struct hwp_request *r)
{
    if (!hwp_busy_saturated(prm, hc->busy_avg, r))
        return false;
    struct hwp_core next = *hc;
    hwp_filter_fold(&next, prm, prm->eval_ns, prm->eval_ns);
    return next.busy_avg >= hc->busy_avg;
}

struct hwp_request hwp_core_request(const struct hwp_request *thread_req, int nthreads)
{
    struct hwp_request r = thread_req[0];
    for (int i = 1; i < nthreads; i++) {
        const struct hwp_request *q = &thread_req[i];
        if (q->min_mhz > r.min_mhz)
            r.min_mhz = q->min_mhz;
        if (q->max_mhz > r.max_mhz)
            r.max_mhz = q->max_mhz;
        if (q->epp < r.epp)
            r.epp = q->epp;
        if (q->desired_mhz > r.desired_mhz)
            r.desired_mhz = q->desired_mhz;
    }
    return r;
}

uint32_t hwp_ratio_round_up(uint32_t mhz)
{
    return (mhz + HWP_RATIO_MHZ - 1) / HWP_RATIO_MHZ * HWP_RATIO_MHZ;
}

/* The EPP's frequency ceiling within [lo, hi] (see hwp.h). */
static double hwp_epp_ceiling_mhz(const struct hwp_params *prm, const struct hw_core_type *t,
                                  int epp, double hi)
{
    if (epp <= HWP_EPP_BALANCE_PERF)
        return hi;
    double low = prm->epp255_ceiling_ratio * t->base_mhz;
    double x = (double)(epp - HWP_EPP_BALANCE_PERF) / (255 - HWP_EPP_BALANCE_PERF);
    double c = hi - (hi - low) * x;
    return c < hi ? c : hi;
}

/* The share of the way from min to ceil that busy asks for, 0..1 (see
 * hwp.h). */
static double hwp_busy_frac(const struct hwp_params *prm, double busy, const struct hwp_request *r)
{
    if (r->desired_mhz)
        return 1;   /* a desired level: the request alone decides (hwp_frac_mhz) */
    double sat = prm->busy_full * r->epp / 255.0;
    double frac = sat <= 0 ? (busy > 0 ? 1 : 0) : busy / sat;
    return frac > 1 ? 1 : frac;
}

/* f for a busy fraction frac of the range, rounded and clamped (hwp.h). */
static uint32_t hwp_frac_mhz(const struct hwp_params *prm, const struct hw_core_type *t,
                             double frac, const struct hwp_request *r, uint32_t turbo_limit_mhz)
{
    double hi = r->max_mhz;
    if (hi > turbo_limit_mhz)
        hi = turbo_limit_mhz;
    if (hi > t->max_mhz)
        hi = t->max_mhz;
    double lo = r->min_mhz < t->min_mhz ? t->min_mhz : r->min_mhz;
    if (lo > hi)
        lo = hi;
    if (r->desired_mhz) {
        /* A non-zero desired level turns autonomous selection off (SDM,
         * IA32_HWP_REQUEST Desired_Performance): the core runs there, within
         * [min, max] and the turbo limit, whatever the EPP and the load. */
        double d = r->desired_mhz < lo ? lo : r->desired_mhz > hi ? hi : r->desired_mhz;
        uint32_t mhz = hwp_ratio_round_up((uint32_t)ceil(d - 1e-9));
        return mhz > (uint32_t)hi ? (uint32_t)hi : mhz;
    }
    double ceil_mhz = hwp_epp_ceiling_mhz(prm, t, r->epp, hi);
    if (ceil_mhz < lo)
        ceil_mhz = lo;
    double f = lo + (ceil_mhz - lo) * frac;
    uint32_t mhz = hwp_ratio_round_up((uint32_t)ceil(f - 1e-9));
    if (mhz > (uint32_t)ceil_mhz)
        mhz = (uint32_t)ceil_mhz;
    if (mhz < (uint32_t)lo)
        mhz = (uint32_t)lo;
    return mhz;
}

uint32_t hwp_select_mhz(const struct hwp_params *prm, const struct hw_core_type *t,
                        double busy, const struct hwp_request *r, uint32_t turbo_limit_mhz)
{
    return hwp_frac_mhz(prm, t, hwp_busy_frac(prm, busy, r), r, turbo_limit_mhz);
}

bool hwp_busy_saturated(const struct hwp_params *prm, double busy, const struct hwp_request *r)
{
    return hwp_busy_frac(prm, busy, r) == 1;
}

uint32_t hwp_saturated_mhz(const struct hwp_params *prm, const struct hw_core_type *t,
                           const struct hwp_request *r, uint32_t turbo_limit_mhz)
{
    return hwp_frac_mhz(prm, t, 1, r, turbo_limit_mhz);
}
