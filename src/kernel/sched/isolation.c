/* isolation: housekeeping masks from the boot parameters, see isolation.h.
 *
 * Rules, in the kernel's order (stored upstream source; versions from the
 * commits' merge windows, not checked against release tags: flags 4.15,
 * managed_irq 5.6, the remote residual tick 4.17, offline IBRS 6.7):
 *  - housekeeping_setup, once per nohz_full= and isolcpus= (command-line
 *    order): the CPUs outside the list are that setup's housekeeping CPUs;
 *    with none of them present the boot CPU is made one ("must include one
 *    present CPU, using boot CPU"); a second setup that shares a mask type
 *    with the first (nohz_full= and isolcpus=nohz) must give the same list,
 *    else it is ignored ("nohz_full= must match isolcpus=");
 *  - isolcpus flags (housekeeping_isolcpus_setup, v4.15): nohz (as
 *    nohz_full=), domain, managed_irq (v5.6, 11ea68f553e2); no flag means
 *    domain; kernels before v4.15 read "domain,2-3" as a bad list and
 *    ignore the parameter;
 *  - nohz_full without CONFIG_NO_HZ_FULL: ignored ("nohz unsupported");
 *  - tick_nohz_init: with CONFIG_PM_SLEEP_SMP and without
 *    PM_SLEEP_SMP_NONZERO_CPU (x86 distribution configs) the boot CPU is
 *    cleared from the nohz_full mask ("Clearing 0 from nohz_full range for
 *    timekeeping"); it stays out of the housekeeping masks;
 *  - rcu_init_nohz: rcu_nocb_mask = rcu_nocbs= | the nohz_full mask;
 *  - SMT control (kernel/cpu.c, v4.19): nosmt or smt/control=off takes
 *    every thread after a core's first offline (the primary thread stays).
 * Departures: CPU 0 is the boot CPU and every CPU is present; the newest
 * kernels' check that nohz_full= and isolcpus=domain leave a CPU in
 * neither is not made (pmlab falls back to the CPUs in domains, noted);
 * the 3.10-4.x rules (nohz_full CPUs had to be rcu_nocbs, boot CPU
 * refused) are not modelled separately. */
#include "kernel/sched/isolation.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/x86/bugs.h"
#include "util/cpulist.h"
#include "util/xalloc.h"

#define HK_FLAGS_SINCE "4.15"          /* isolcpus=nohz,domain flags */
#define HK_MANAGED_IRQ_SINCE "5.6"     /* 11ea68f553e2 */
#define HK_REMOTE_TICK_SINCE "4.17"    /* sched_tick_remote: residual tick offloaded */
#define HK_OFFLINE_IBRS_OFF_SINCE "6.7" /* 8c7a9b1bb450: IBRS cleared when offline */

enum { HKF_NOISE = 1, HKF_DOMAIN = 2, HKF_MANAGED_IRQ = 4 };

static void hk_note(struct housekeeping *hk, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void hk_note(struct housekeeping *hk, const char *fmt, ...)
{
    if (hk->nnotes >= HK_NOTES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(hk->notes[hk->nnotes++], HK_NOTE_LEN, fmt, ap);
    va_end(ap);
}

void housekeeping_format(const bool *mask, int ncpus, char *buf, size_t size)
{
    char *s = cpulist_format(mask, ncpus);
    snprintf(buf, size, "%s", s);
    free(s);
}

/* The position of the last setting of knob name, -1 when not set (the
 * order housekeeping_setup sees the parameters in). */
static int hk_setting_index(const struct kparams *kp, const char *name)
{
    const struct kparam *p = kparam_find(name);
    for (int i = kp->nset - 1; i >= 0; i--)
        if (kp->set[i].param == p)
            return i;
    return -1;
}

/* One housekeeping_setup call: list's CPUs leave housekeeping for the mask
 * types in flags; the boot CPU comes back when no CPU would be left. */
struct hk_setup {
    const char *name;
    unsigned flags;
    bool *list;           /* [ncpus] non-housekeeping CPUs */
    bool valid;
};

static bool hk_parse_setup(const struct kparams *kp, const struct kparam *p, const char *text,
                           int ncpus, struct hk_setup *s, struct housekeeping *hk)
{
    char msg[160];
    if (kparam_parse_cpulist(p, text, ncpus, s->list, msg, sizeof msg) != 0)
        return false;   /* kparams_check_cpus reported it */
    if (strcmp(p->name, "isolcpus") != 0) {
        s->flags = HKF_NOISE;
        return true;
    }
    /* The flag words before the list (validated against the table). */
    const char *c = text;
    bool flagged = false;
    while ((*c >= 'a' && *c <= 'z') || *c == '_') {
        size_t n = strcspn(c, ",");
        flagged = true;
        if (n == 4 && strncmp(c, "nohz", 4) == 0)
            s->flags |= HKF_NOISE;
        else if (n == 6 && strncmp(c, "domain", 6) == 0)
            s->flags |= HKF_DOMAIN;
        else if (kversion_at_least(&kp->kernel, HK_MANAGED_IRQ_SINCE))
            s->flags |= HKF_MANAGED_IRQ;
        else
            hk_note(hk, "isolcpus=%s: kernel has no managed_irq flag (added in %s): the flag "
                    "is not applied (4.15-5.5 may refuse the whole parameter: not checked)",
                    text, HK_MANAGED_IRQ_SINCE);
        c += n + 1;
    }
    if (flagged && !kversion_at_least(&kp->kernel, HK_FLAGS_SINCE)) {
        hk_note(hk, "isolcpus=%s: kernels before %s take no flags and ignore the parameter",
                text, HK_FLAGS_SINCE);
        return false;
    }
    if (!s->flags && !flagged)
        s->flags = HKF_DOMAIN;
    return s->flags != 0;
}

/* housekeeping_setup for s, after the setups in done[0..ndone). */
static void hk_apply_setup(struct housekeeping *hk, struct hk_setup *s, const struct hk_setup *prev)
{
    int n = hk->ncpus;
    bool any_hk = false, any_iso = false;
    for (int cpu = 0; cpu < n; cpu++) {
        any_hk |= !s->list[cpu];
        any_iso |= s->list[cpu];
    }
    if (!any_hk) {
        s->list[0] = false;
        hk_note(hk, "%s: Housekeeping: must include one present CPU, using boot CPU:0", s->name);
    }
    any_iso = false;
    for (int cpu = 0; cpu < n; cpu++)
        any_iso |= s->list[cpu];
    if (!any_iso)
        return;
    if (prev && prev->valid && (prev->flags & s->flags) &&
        memcmp(prev->list, s->list, (size_t)n * sizeof *s->list) != 0) {
        hk_note(hk, "%s: Housekeeping: nohz_full= must match isolcpus=: ignored", s->name);
        return;
    }
    s->valid = true;
}

/* Where each CPU that may not run unbound timers sends them: a kthread CPU
 * of its package, spread over them in CPU order (get_nohz_timer_target
 * picks a busy housekeeping CPU nearby, else housekeeping_any_cpu: the
 * static spread stands for both). */
static void hk_timer_targets(const struct hw_machine *m, struct housekeeping *hk)
{
    int n = hk->ncpus;
    int *seen = xcalloc((size_t)m->packages + 1, sizeof *seen);
    for (int cpu = 0; cpu < n; cpu++) {
        hk->timer_cpu[cpu] = cpu;
        if (hk->kthread_cpus[cpu])
            continue;
        int pkg = m->cpus[cpu].package, count = 0, any = -1;
        for (int i = 0; i < n; i++) {
            if (!hk->kthread_cpus[i])
                continue;
            any = any < 0 ? i : any;
            count += m->cpus[i].package == pkg;
        }
        /* an offline thread has no timers: its target only places its
         * background thread, and takes no share of the spread */
        int k = !count ? 0 : hk->offline[cpu] ? 0 : seen[pkg]++ % count;
        for (int i = 0; i < n && count; i++)
            if (hk->kthread_cpus[i] && m->cpus[i].package == pkg && k-- == 0) {
                hk->timer_cpu[cpu] = i;
                break;
            }
        if (!count && any >= 0)
            hk->timer_cpu[cpu] = any;
    }
    free(seen);
}

static void hk_smt(const struct hw_machine *m, const struct kparams *kp, struct housekeeping *hk)
{
    bool by_mitigations = x86_mitigations_disable_smt(m, kp);
    bool off = kparams_get(kp, "nosmt", 0, -1) != 0 || kparams_get(kp, "smt_control", 0, -1) != 0 ||
               by_mitigations;
    if (by_mitigations)
        hk_note(hk, "mitigations=auto,nosmt: %s (%s) has the L1TF and MDS bugs: SMT off "
                    "(cpu_smt_disable)", m->name, m->cpu_model);
    if (!off)
        return;
    for (int c = 0; c < m->ncores; c++)
        for (int t = 1; t < m->cores[c].nthreads; t++) {
            hk->offline[m->cores[c].cpus[t]] = true;
            hk->offline_any = true;
        }
    if (!hk->offline_any)
        hk_note(hk, "nosmt: %s has no SMT threads: nothing goes offline", m->name);
}

/* The derived masks: in domains, kthread CPUs (never empty: the CPUs in
 * domains, else the online ones, with a note), timer targets. */
static void hk_derive(const struct hw_machine *m, struct housekeeping *hk)
{
    int n = hk->ncpus;
    bool any_kthread = false, any_domain = false;
    for (int cpu = 0; cpu < n; cpu++) {
        bool online = hk->online[cpu] = !hk->offline[cpu];
        hk->in_domains[cpu] = online && !hk->isolated[cpu];
        hk->kthread_cpus[cpu] = hk->in_domains[cpu] && !hk->noise_isolated[cpu];
        any_kthread |= hk->kthread_cpus[cpu];
        any_domain |= hk->in_domains[cpu];
    }
    if (!any_domain) {
        hk_note(hk, "no online CPU outside isolcpus=domain: pmlab keeps CPU 0 in the domains");
        hk->in_domains[0] = true;
    }
    if (!any_kthread) {
        hk_note(hk, "no online CPU outside both nohz_full= and isolcpus=: housekeeping runs on "
                "the CPUs in domains");
        for (int cpu = 0; cpu < n; cpu++)
            hk->kthread_cpus[cpu] = hk->in_domains[cpu];
    }
    hk_timer_targets(m, hk);
}

void housekeeping_resolve(const struct hw_machine *m, const struct kparams *kp,
                          struct housekeeping *hk)
{
    memset(hk, 0, sizeof *hk);
    int n = hk->ncpus = m->ncpus;
    bool **masks[] = { &hk->nohz_full, &hk->isolated, &hk->managed_irq, &hk->rcu_nocb,
                       &hk->offline, &hk->noise_isolated, &hk->online, &hk->in_domains,
                       &hk->kthread_cpus };
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++)
        *masks[i] = xcalloc((size_t)n, sizeof **masks[i]);
    hk->timer_cpu = xcalloc((size_t)n, sizeof *hk->timer_cpu);
    hk->remote_tick = kversion_at_least(&kp->kernel, HK_REMOTE_TICK_SINCE);
    hk->offline_ibrs = !kversion_at_least(&kp->kernel, HK_OFFLINE_IBRS_OFF_SINCE);

    struct hk_setup s[2] = { { .name = "nohz_full" }, { .name = "isolcpus" } };
    int order[2] = { hk_setting_index(kp, "nohz_full"), hk_setting_index(kp, "isolcpus") };
    const struct hk_setup *prev = NULL;
    /* in command-line order: the earlier setting first */
    int first = order[0] >= 0 && (order[1] < 0 || order[0] < order[1]) ? 0 : 1;
    for (int k = 0; k < 2; k++) {
        int i = k == 0 ? first : 1 - first;
        if (order[i] < 0)
            continue;
        const char *text = kp->set[order[i]].text;
        s[i].list = xcalloc((size_t)n, sizeof *s[i].list);
        if (!hk_parse_setup(kp, kp->set[order[i]].param, text, n, &s[i], hk))
            continue;
        if ((s[i].flags & HKF_NOISE) && !kparams_get(kp, "CONFIG_NO_HZ_FULL", 0, -1)) {
            hk_note(hk, "%s=%s: Housekeeping: nohz unsupported (CONFIG_NO_HZ_FULL=n)", s[i].name,
                    text);
            s[i].flags &= ~(unsigned)HKF_NOISE;
            if (!s[i].flags)
                continue;
        }
        hk_apply_setup(hk, &s[i], prev);
        if (s[i].valid)
            prev = &s[i];
    }
    for (int i = 0; i < 2; i++) {
        for (int cpu = 0; s[i].valid && cpu < n; cpu++) {
            if (!s[i].list[cpu])
                continue;
            hk->noise_isolated[cpu] |= (s[i].flags & HKF_NOISE) != 0;
            hk->isolated[cpu] |= (s[i].flags & HKF_DOMAIN) != 0;
            hk->managed_irq[cpu] |= (s[i].flags & HKF_MANAGED_IRQ) != 0;
        }
        free(s[i].list);
    }
    memcpy(hk->nohz_full, hk->noise_isolated, (size_t)n * sizeof *hk->nohz_full);
    if (hk->nohz_full[0]) {
        hk->nohz_full[0] = false;
        hk_note(hk, "NO_HZ: Clearing 0 from nohz_full range for timekeeping (CONFIG_PM_SLEEP_SMP; "
                "taken for every machine, checked for x86)");
    }
    int line;
    const char *nocbs = kparams_get_text(kp, "rcu_nocbs", &line);
    char msg[160];
    if (nocbs)
        kparam_parse_cpulist(kparam_find("rcu_nocbs"), nocbs, n, hk->rcu_nocb, msg, sizeof msg);
    hk_smt(m, kp, hk);
    for (int cpu = 0; cpu < n; cpu++) {
        hk->rcu_nocb[cpu] |= hk->nohz_full[cpu];
        hk->nohz_full_any |= hk->nohz_full[cpu];
        hk->isolated_any |= hk->isolated[cpu];
        hk->managed_any |= hk->managed_irq[cpu];
        hk->rcu_nocb_any |= hk->rcu_nocb[cpu];
        hk->any |= hk->noise_isolated[cpu] || hk->isolated[cpu] || hk->managed_irq[cpu] ||
                   hk->rcu_nocb[cpu] || hk->offline[cpu];
    }
    hk_derive(m, hk);
}

void housekeeping_destroy(struct housekeeping *hk)
{
    free(hk->nohz_full);
    free(hk->isolated);
    free(hk->managed_irq);
    free(hk->rcu_nocb);
    free(hk->offline);
    free(hk->noise_isolated);
    free(hk->online);
    free(hk->in_domains);
    free(hk->kthread_cpus);
    free(hk->timer_cpu);
    memset(hk, 0, sizeof *hk);
}
