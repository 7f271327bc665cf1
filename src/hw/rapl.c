/* rapl: the package power-limit controller, see rapl.h. */
#include "hw/rapl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define RAPL_BIN_MHZ 100u        /* ceilings move in whole ratio bins */
#define RAPL_HOLD_BAND 0.03      /* estimate, see rapl.h: below budget by this, step up */

void hw_rapl_init(struct hw_rapl *r, const struct hw_machine *m, const struct hw_state *hw)
{
    memset(r, 0, sizeof *r);
    r->m = m;
    r->enabled = m->rapl.pl1_mw > 0;
    if (!r->enabled)
        return;
    r->pkg = xcalloc((size_t)m->packages, sizeof *r->pkg);
    r->want_mhz = xcalloc((size_t)m->ncores, sizeof *r->want_mhz);
    for (int c = 0; c < m->ncores; c++)
        r->want_mhz[c] = hw->core_mhz[c];
}

void hw_rapl_destroy(struct hw_rapl *r)
{
    free(r->pkg);
    free(r->want_mhz);
    memset(r, 0, sizeof *r);
}

static bool hw_rapl_limited(const struct hw_rapl *r, const struct hw_rapl_pkg *pp)
{
    for (int t = 0; t < r->m->ntypes; t++)
        if (pp->ceiling_mhz[t])
            return true;
    return false;
}

/* Whether core runs below want under its package's ceiling. */
static bool hw_rapl_holds(const struct hw_rapl *r, int core, uint32_t want)
{
    const struct hw_core *c = &r->m->cores[core];
    uint32_t ceil_mhz = r->pkg[c->package].ceiling_mhz[c->type];
    return ceil_mhz && want > ceil_mhz;
}

/* The package's count of held cores becomes n at now_ns. */
static void hw_rapl_set_nclamped(struct hw_rapl_pkg *pp, int n, sim_time_t now_ns)
{
    if (pp->nclamped == 0 && n > 0)
        pp->clamped_since_ns = now_ns;
    if (pp->nclamped > 0 && n == 0)
        pp->clamped_ns += now_ns - pp->clamped_since_ns;
    pp->nclamped = n;
}

uint32_t hw_rapl_clamp(struct hw_rapl *r, int core, uint32_t want_mhz, sim_time_t now_ns)
{
    if (!r->enabled)
        return want_mhz;
    struct hw_rapl_pkg *pp = &r->pkg[r->m->cores[core].package];
    int was = hw_rapl_holds(r, core, r->want_mhz[core]);
    int is = hw_rapl_holds(r, core, want_mhz);
    r->want_mhz[core] = want_mhz;
    if (is != was)
        hw_rapl_set_nclamped(pp, pp->nclamped + is - was, now_ns);
    if (!is)
        return want_mhz;
    return pp->ceiling_mhz[r->m->cores[core].type];
}

/* The power that brings an average with time constant window_ns from avg_mw
 * to limit_mw within the payback time (rapl.h, "budget"): the average moves
 * at (power - avg) / window. */
static double hw_rapl_budget_one_mw(double avg_mw, double limit_mw, double window_ns)
{
    double gain = window_ns / (double)HW_RAPL_PAYBACK_NS;
    return avg_mw + (limit_mw - avg_mw) * (gain > 1 ? gain : 1);
}

/* The power package pkg may draw now: the lower of the two limits' budgets. */
static double hw_rapl_budget_mw(const struct hw_rapl *r, const struct hw_rapl_pkg *pp)
{
    const struct hw_power_limits *lim = &r->m->rapl;
    double b1 = hw_rapl_budget_one_mw(pp->avg_mw, lim->pl1_mw, (double)lim->tau_ns);
    double b2 = hw_rapl_budget_one_mw(pp->avg2_mw, lim->pl2_mw, (double)HW_RAPL_PL2_WINDOW_NS);
    return b1 < b2 ? b1 : b2;
}

/* Fold mean power p over the last dt_ns into the average with time constant
 * window_ns. */
static double hw_rapl_average(double avg_mw, double p_mw, sim_time_t dt_ns, double window_ns)
{
    double keep = exp(-(double)dt_ns / window_ns);
    return keep * avg_mw + (1 - keep) * p_mw;
}

/* The highest frequency of a busy (C0) core of type t in package pkg now, or
 * of any core of the type when none is busy: idle cores keep the frequency
 * they last ran at, which may be well above what the busy ones get. */
static uint32_t hw_rapl_top_mhz(const struct hw_rapl *r, const struct hw_state *hw, int pkg, int t)
{
    uint32_t top_busy = 0, top = 0;
    for (int c = 0; c < r->m->ncores; c++) {
        if (r->m->cores[c].package != pkg || r->m->cores[c].type != t)
            continue;
        uint32_t f = hw->core_mhz[c];
        top = f > top ? f : top;
        if (hw->core[c].cstate < 0 && f > top_busy)
            top_busy = f;
    }
    return top_busy ? top_busy : top;
}

static uint32_t hw_rapl_bin_floor(double mhz)
{
    return mhz <= 0 ? 0 : (uint32_t)(mhz / RAPL_BIN_MHZ) * RAPL_BIN_MHZ;
}

/* Scale every type's ceiling (or, where none, its highest frequency) by
 * ratio < 1, at least one bin, not below min_mhz. */
static void hw_rapl_step_down(struct hw_rapl *r, const struct hw_state *hw, int pkg, double ratio)
{
    struct hw_rapl_pkg *pp = &r->pkg[pkg];
    for (int t = 0; t < r->m->ntypes; t++) {
        const struct hw_core_type *ty = &r->m->types[t];
        uint32_t from = hw_rapl_top_mhz(r, hw, pkg, t);
        if (pp->ceiling_mhz[t] && pp->ceiling_mhz[t] < from)
            from = pp->ceiling_mhz[t];
        uint32_t to = hw_rapl_bin_floor(from * ratio);
        if (to + RAPL_BIN_MHZ > from)
            to = from > RAPL_BIN_MHZ ? from - RAPL_BIN_MHZ : 0;
        pp->ceiling_mhz[t] = to < ty->min_mhz ? ty->min_mhz : to;
    }
}

/* Raise every set ceiling by ratio > 1, at least one bin; lift it at max_mhz. */
static void hw_rapl_step_up(struct hw_rapl *r, int pkg, double ratio)
{
    struct hw_rapl_pkg *pp = &r->pkg[pkg];
    for (int t = 0; t < r->m->ntypes; t++) {
        uint32_t from = pp->ceiling_mhz[t];
        if (!from)
            continue;
        double up = ratio * from;
        uint32_t to = up >= r->m->types[t].max_mhz ? 0 : hw_rapl_bin_floor(up);
        if (to && to < from + RAPL_BIN_MHZ)
            to = from + RAPL_BIN_MHZ;
        pp->ceiling_mhz[t] = to >= r->m->types[t].max_mhz ? 0 : to;
    }
}

/* After the ceilings moved: recount the package's held cores. */
static void hw_rapl_recount(struct hw_rapl *r, int pkg, sim_time_t now_ns)
{
    int n = 0;
    for (int c = 0; c < r->m->ncores; c++)
        if (r->m->cores[c].package == pkg)
            n += hw_rapl_holds(r, c, r->want_mhz[c]);
    hw_rapl_set_nclamped(&r->pkg[pkg], n, now_ns);
}

bool hw_rapl_eval(struct hw_rapl *r, const struct hw_state *hw, int pkg, sim_time_t now_ns)
{
    struct hw_rapl_pkg *pp = &r->pkg[pkg];
    sim_time_t dt = now_ns - pp->last_ns;
    if (!r->enabled || dt <= 0)
        return false;
    double energy = hw_pkg_energy_mw_ns(hw, pkg, now_ns);
    double p = (energy - pp->energy_mw_ns) / (double)dt;
    pp->energy_mw_ns = energy;
    pp->last_ns = now_ns;
    pp->last_mw = p;
    pp->avg_mw = hw_rapl_average(pp->avg_mw, p, dt, (double)r->m->rapl.tau_ns);
    pp->avg2_mw = hw_rapl_average(pp->avg2_mw, p, dt, (double)HW_RAPL_PL2_WINDOW_NS);
    double budget = hw_rapl_budget_mw(r, pp);
    uint32_t before[HW_MAX_CORE_TYPES];
    memcpy(before, pp->ceiling_mhz, sizeof before);
    if (p > budget)
        hw_rapl_step_down(r, hw, pkg, budget > 0 ? budget / p : 0);
    else if (p < budget * (1 - RAPL_HOLD_BAND) && hw_rapl_limited(r, pp))
        hw_rapl_step_up(r, pkg, p > 0 ? budget / p : INFINITY);
    if (memcmp(before, pp->ceiling_mhz, sizeof before) == 0)
        return false;
    hw_rapl_recount(r, pkg, now_ns);
    return true;
}

sim_time_t hw_rapl_next_eval_ns(const struct hw_rapl *r, int pkg, sim_time_t now_ns)
{
    bool clamped = hw_rapl_limited(r, &r->pkg[pkg]);
    return now_ns + (clamped ? HW_RAPL_CLAMPED_EVAL_NS : HW_RAPL_FREE_EVAL_NS);
}

void hw_rapl_measure_reset(struct hw_rapl *r, sim_time_t now_ns)
{
    r->measure_start_ns = now_ns;
    if (!r->enabled)
        return;
    for (int p = 0; p < r->m->packages; p++) {
        r->pkg[p].clamped_ns = 0;
        r->pkg[p].clamped_since_ns = now_ns;
    }
}

void hw_rapl_collect_metrics(const struct hw_rapl *r, sim_time_t now_ns,
                             struct rpt_metric_set *out)
{
    double held_ns = 0;
    for (int p = 0; r->enabled && p < r->m->packages; p++) {
        const struct hw_rapl_pkg *pp = &r->pkg[p];
        held_ns += (double)pp->clamped_ns;
        if (pp->nclamped > 0)
            held_ns += (double)(now_ns - pp->clamped_since_ns);
    }
    double window_ns = (double)(now_ns - r->measure_start_ns) * r->m->packages;
    rpt_set_put(out, "rapl_throttle_pct", "%", RPT_NEUTRAL,
                window_ns > 0 ? 100.0 * held_ns / window_ns : 0);
}
