/* A simulated world for tests (skx-2s unless a machine file is named;
 * cpufreq.off=1 unless overridden): the machine file, a variant's command
 * line and sysfs writes (space-separated, kernel quoting rules), optional
 * calibration overrides, and a probe task that records when it finished.
 * Header-only (static functions) so each test program stays one file. */
#ifndef PMLAB_TESTS_WORLD_FIXTURE_H
#define PMLAB_TESTS_WORLD_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "quiet_machine.h"
#include "world.h"

struct fx {
    struct hw_machine *m;
    struct kparams kp;
    struct world w;
};

struct probe {
    struct task t;
    sim_time_t done_ns;
    int ran_on;
};

static inline void probe_done(struct world *w, struct task *t)
{
    struct probe *p = (struct probe *)t;
    p->done_ns = w->q.now_ns;
    p->ran_on = t->prev_cpu;
}

/* Apply every word of text with set (kparams_set_cmdline or _sysfs). */
static inline void fx_apply(struct kparams *kp, const char *text,
                            int (*set)(struct kparams *, const char *, const char *, const char *,
                                       int, struct diag *))
{
    struct cmdline c;
    char msg[128];
    struct diag d = { 0 };
    assert_int_equal(cmdline_split(text ? text : "", &c, msg, sizeof msg), 0);
    for (int i = 0; i < c.nargs; i++)
        if (set(kp, c.args[i].name, c.args[i].value, "t", 1, &d) != 0)
            fail_msg("%s", d.msg);
    cmdline_free(&c);
}

/* The world of machine file path: calibration overrides calib[n] (key,
 * value) first, then the kernel version (NULL: pmlab's default), config
 * options (CONFIG_HZ=1000 ...), cpufreq.off=1 when cpufreq_off (exact
 * timings at base frequency), the command line and the sysfs writes. */
static inline struct fx *fx_build(const char *path, const char *kernel, const char *config,
                                  const char *cmdline, const char *sysfs,
                                  const struct hw_calib *calib, int n, bool cpufreq_off)
{
    struct fx *f = calloc(1, sizeof *f);
    struct diag d = { 0 };
    f->m = hw_machine_load(path, &d);
    if (!f->m)
        fail_msg("%s", d.msg);
    fx_quiet_machine(f->m);
    for (int i = 0; i < n; i++)
        fx_set_calib(f->m, calib[i].key, calib[i].value);
    kparams_init(&f->kp);
    if (kernel)
        assert_int_equal(kversion_parse(kernel, &f->kp.kernel), 0);
    fx_apply(&f->kp, config, kparams_set_config);
    if (cpufreq_off)
        fx_apply(&f->kp, "cpufreq.off=1", kparams_set_cmdline);
    fx_apply(&f->kp, cmdline, kparams_set_cmdline);
    fx_apply(&f->kp, sysfs, kparams_set_sysfs);
    struct world_key key = { .seed = 3 };
    world_init(&f->w, f->m, &f->kp, &key);
    return f;
}

/* Machine file path with calibration overrides and config options; no
 * cpufreq driver unless the caller's command line loads one. */
static inline struct fx *fx_new_machine(const char *path, const char *config, const char *cmdline,
                                        const char *sysfs, const struct hw_calib *calib, int n)
{
    return fx_build(path, NULL, config, cmdline, sysfs, calib, n, true);
}

/* Machine file path running kernel version `kernel` (NULL: pmlab's
 * default); cpufreq.off=1 first when cpufreq_off. */
static inline struct fx *fx_new_kernel_machine(const char *path, const char *kernel,
                                               const char *cmdline, const char *sysfs,
                                               bool cpufreq_off)
{
    return fx_build(path, kernel, NULL, cmdline, sysfs, NULL, 0, cpufreq_off);
}

/* skx-2s with calibration overrides. */
static inline struct fx *fx_new_calib(const char *cmdline, const char *sysfs,
                                      const struct hw_calib *calib, int n)
{
    return fx_new_machine("machines/skx-2s.ini", NULL, cmdline, sysfs, calib, n);
}

static inline struct fx *fx_new(const char *cmdline, const char *sysfs)
{
    return fx_new_calib(cmdline, sysfs, NULL, 0);
}

static inline void fx_free(struct fx *f)
{
    world_destroy(&f->w);
    kparams_destroy(&f->kp);
    hw_machine_free(f->m);
    free(f);
}

/* One metric of the measurement window so far (NAN if not reported). */
static inline double fx_metric(struct fx *f, const char *name)
{
    struct rpt_metric_set s = { 0 };
    world_collect_metrics(&f->w, &s);
    const struct rpt_metric_value *v = rpt_set_get(&s, name);
    double x = v ? v->value : NAN;
    rpt_set_free(&s);
    return x;
}

/* A metric a workload's run reported into m; the test fails if it is
 * missing (a renamed metric must not pass as a zero). */
static inline double fx_set_metric(const struct rpt_metric_set *m, const char *name)
{
    const struct rpt_metric_value *v = rpt_set_get(m, name);
    if (!v)
        fail_msg("no metric %s", name);
    return v->value;
}

#endif
