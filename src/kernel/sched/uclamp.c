/* uclamp: utilization clamping, see uclamp.h. */
#include "kernel/sched/uclamp.h"

#include <string.h>

#include "kernel/params.h"
#include "kernel/sched/sched.h"
#include "util/diag.h"
#include "world.h"

#define UCLAMP_SINCE "5.3"          /* 69842cba9ace: per-task clamps, the sysctls */
#define UCLAMP_STATIC_KEY_SINCE "5.9" /* 46609ce22703 (and 13685c4a08fc: RT's default) */
#define UCLAMP_CAPPED_SINCE "5.18"  /* 7a17e1db1265: uclamp_rq_is_capped */
#define UCLAMP_FITS_SINCE "6.2"     /* 48d5e9daa8b7: util_fits_cpu */
#define UCLAMP_PERF_SINCE "6.8"     /* 9c0b4bb7f630: sugov_effective_cpu_perf */

/* The three sysctls, in the order of enum uclamp_sysctl. */
enum uclamp_sysctl { UCLAMP_SYSCTL_MIN, UCLAMP_SYSCTL_MAX, UCLAMP_SYSCTL_MIN_RT, UCLAMP_NSYSCTL };
static const char *const uclamp_sysctl_name[UCLAMP_NSYSCTL] = {
    "sched_util_clamp_min", "sched_util_clamp_max", "sched_util_clamp_min_rt_default",
};

/* Which of the three sysctls setting s writes, or -1. */
static int uclamp_sysctl_of(const struct ksetting *s)
{
    for (int i = 0; i < UCLAMP_NSYSCTL; i++)
        if (strcmp(s->param->name, uclamp_sysctl_name[i]) == 0)
            return i;
    return -1;
}

/* The writes replayed in order as sysctl_sched_uclamp_handler takes them:
 * a write that would leave uclamp_min above uclamp_max is refused (its line
 * in *bad_line, else 0); *changed when a write changed a value (the handler
 * then enables sched_uclamp_used). */
static void uclamp_sysctl_replay(const struct kparams *kp, unsigned val[UCLAMP_NSYSCTL],
                                 bool *changed, int *bad_line)
{
    for (int i = 0; i < UCLAMP_NSYSCTL; i++)
        val[i] = UCLAMP_SCALE;
    *changed = false;
    *bad_line = 0;
    for (int s = 0; s < kp->nset; s++) {
        int which = uclamp_sysctl_of(&kp->set[s]);
        if (which < 0)
            continue;
        unsigned v = (unsigned)kp->set[s].value;
        if ((which == UCLAMP_SYSCTL_MIN && v > val[UCLAMP_SYSCTL_MAX]) ||
            (which == UCLAMP_SYSCTL_MAX && v < val[UCLAMP_SYSCTL_MIN])) {
            if (!*bad_line)
                *bad_line = kp->set[s].line;
            continue;
        }
        *changed |= v != val[which];
        val[which] = v;
    }
}

int uclamp_validate(const struct kparams *kp, const char *file, struct diag *d)
{
    if (!kparams_get(kp, "CONFIG_UCLAMP_TASK", 0, -1))
        for (int s = 0; s < kp->nset; s++)
            if (uclamp_sysctl_of(&kp->set[s]) >= 0)
                return diag_error(d, file, kp->set[s].line, "/proc/sys/kernel/%s: no such "
                                  "file: the kernel has no uclamp (CONFIG_UCLAMP_TASK=n)",
                                  kp->set[s].param->name);
    unsigned val[UCLAMP_NSYSCTL];
    bool changed;
    int bad_line;
    uclamp_sysctl_replay(kp, val, &changed, &bad_line);
    if (!bad_line)
        return 0;
    return diag_error(d, file, bad_line,
                      "the kernel refuses this write (EINVAL): sched_util_clamp_min may not "
                      "exceed sched_util_clamp_max (min %u, max %u before it; both start at "
                      "1024, so lower the min first)",
                      val[UCLAMP_SYSCTL_MIN], val[UCLAMP_SYSCTL_MAX]);
}

void uclamp_resolve(const struct kparams *kp, struct uclamp_sys *u)
{
    const struct kversion *k = &kp->kernel;
    unsigned val[UCLAMP_NSYSCTL];
    bool changed;
    int bad_line;
    uclamp_sysctl_replay(kp, val, &changed, &bad_line);
    bool key = kversion_at_least(k, UCLAMP_STATIC_KEY_SINCE);
    *u = (struct uclamp_sys){
        .built = kversion_at_least(k, UCLAMP_SINCE) && kparams_get(kp, "CONFIG_UCLAMP_TASK", 0, -1),
        .used = !key || changed,
        .sys_value = { val[UCLAMP_SYSCTL_MIN], val[UCLAMP_SYSCTL_MAX] },
        /* Before 13685c4a08fc an RT task's default boost was the maximum. */
        .rt_min_default = key ? val[UCLAMP_SYSCTL_MIN_RT] : UCLAMP_SCALE,
        .fits_v6_2 = kversion_at_least(k, UCLAMP_FITS_SINCE),
        .perf_v6_8 = kversion_at_least(k, UCLAMP_PERF_SINCE),
        .capped_skips_busy = kversion_at_least(k, UCLAMP_CAPPED_SINCE),
    };
}

bool uclamp_sysctl_written(const struct kparams *kp)
{
    for (int i = 0; i < UCLAMP_NSYSCTL; i++)
        if (kparams_is_set(kp, uclamp_sysctl_name[i]))
            return true;
    return kparams_is_set(kp, "CONFIG_UCLAMP_TASK");
}

void uclamp_init(struct world *w)
{
    uclamp_resolve(w->kp, &w->sched.uclamp);
    for (int cpu = 0; cpu < w->sched.ncpus; cpu++)
        w->sched.cpu[cpu].uclamp_max_idle = UCLAMP_SCALE; /* init_uclamp_rq: uclamp_none */
}

bool task_set_uclamp(struct world *w, struct task *t, int util_min, int util_max)
{
    struct uclamp_sys *u = &w->sched.uclamp;
    if (!u->built)
        return false;   /* uclamp_validate: -EOPNOTSUPP */
    /* uclamp_validate: a clamp not given is the task's current request. */
    unsigned lo = util_min >= 0 ? (unsigned)util_min : t->uclamp_req[UCLAMP_MIN].value;
    unsigned hi = util_max >= 0 ? (unsigned)util_max
                  : t->uclamp_req[UCLAMP_MAX].user_defined ? t->uclamp_req[UCLAMP_MAX].value
                                                           : UCLAMP_SCALE;
    if (lo > hi || hi > UCLAMP_SCALE)
        return false;   /* -EINVAL */
    if (util_min >= 0)
        t->uclamp_req[UCLAMP_MIN] = (struct uclamp_se){ (unsigned)util_min, true };
    if (util_max >= 0)
        t->uclamp_req[UCLAMP_MAX] = (struct uclamp_se){ (unsigned)util_max, true };
    u->used = true;     /* static_branch_enable(&sched_uclamp_used) */
    return true;
}

/* p->uclamp_req[id], or the default a task of its class gets
 * (uclamp_fork's uclamp_none; __uclamp_update_util_min_rt_default). */
static unsigned uclamp_task_req(const struct uclamp_sys *u, const struct task *t,
                                enum uclamp_id id)
{
    if (t->uclamp_req[id].user_defined)
        return t->uclamp_req[id].value;
    if (id == UCLAMP_MAX)
        return UCLAMP_SCALE;
    return task_is_rt(t) ? u->rt_min_default : 0;
}

unsigned uclamp_eff_value(const struct world *w, const struct task *t, enum uclamp_id id)
{
    const struct uclamp_sys *u = &w->sched.uclamp;
    unsigned req = uclamp_task_req(u, t, id);
    /* uclamp_eff_get: the system default restricts every request. */
    return req > u->sys_value[id] ? u->sys_value[id] : req;
}

unsigned uclamp_rq_get(const struct world *w, int cpu, enum uclamp_id id)
{
    const struct sched_cpu *c = &w->sched.cpu[cpu];
    bool any = false;
    unsigned v = 0;
    if (c->curr) {   /* a waker in done() is still current */
        v = uclamp_eff_value(w, c->curr, id);
        any = true;
    }
    for (const struct task *p = c->head; p; p = p->next) {
        unsigned e = uclamp_eff_value(w, p, id);
        v = !any || e > v ? e : v;
        any = true;
    }
    if (any)
        return v;
    /* uclamp_idle_value: an empty runqueue keeps its last uclamp_max. */
    return id == UCLAMP_MAX ? c->uclamp_max_idle : 0;
}

void uclamp_rq_dec(struct world *w, int cpu, const struct task *t)
{
    if (w->sched.uclamp.built)
        w->sched.cpu[cpu].uclamp_max_idle = uclamp_eff_value(w, t, UCLAMP_MAX);
}
