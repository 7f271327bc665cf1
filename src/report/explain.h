/* explain: what a variant's kernel, patches, cmdline and sysfs resolve to on
 * a machine, as lines a user would recognise from the real system (sysfs
 * files, turbostat and dmesg vocabulary). Each kernel subsystem returns what
 * it resolves as data (struct idle_explain, ...), and a function here turns it
 * into its section's lines (report/explain_*.c); `pmlab explain` prints the
 * sections of every variant and marks the lines that differ from the first. */
#ifndef PMLAB_REPORT_EXPLAIN_H
#define PMLAB_REPORT_EXPLAIN_H

#include <stdarg.h>

struct explain {
    char **line;
    int n, cap;
};

/* Append one formatted line ("section: text" by convention). */
void explain_add(struct explain *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void explain_free(struct explain *x);
/* Whether line appears in x. */
int explain_has(const struct explain *x, const char *line);

/* The sections: append the lines of a subsystem's explain data to x. */
struct idle_explain;
struct cpufreq_explain;
struct kvm_explain;
struct itmt_explain;
struct sched_topology;
struct kversion;
void explain_add_idle(struct explain *x, const struct idle_explain *e);
void explain_add_cpufreq(struct explain *x, const struct cpufreq_explain *e);
void explain_add_kvm(struct explain *x, const struct kvm_explain *e);
struct kvm_vm_config;
/* The guest timers of a [vm NAME] section (one line). */
void explain_add_vm(struct explain *x, const struct kvm_vm_config *c);
void explain_add_itmt(struct explain *x, const struct itmt_explain *e);
/* The machine's package states; the scenario's [device] sections and the
 * package-depth limit each holds while active (explain_devices.c). */
struct hw_machine;
struct hw_device_config;
void explain_add_pkgstates(struct explain *x, const struct hw_machine *m);
void explain_add_devices(struct explain *x, const struct hw_machine *m,
                         const struct hw_device_config *dev, int n);
/* What nohz_full=, isolcpus=, rcu_nocbs= and nosmt resolved to
 * (explain_isolation.c); nothing when none is set. */
struct housekeeping;
void explain_add_isolation(struct explain *x, const struct hw_machine *m,
                           const struct housekeeping *hk);
/* uclamp's limits and rules (explain_uclamp.c). */
struct uclamp_sys;
void explain_add_uclamp(struct explain *x, const struct uclamp_sys *u);
/* The sched domains of t (built for kernel k). */
void explain_add_topology(struct explain *x, const struct sched_topology *t,
                          const struct kversion *k);

#endif
