/* import: what `pmlab import` reads from a host, from a live (or copied)
 * /sys and /proc tree or a stats-collect/pepc snapshot directory
 * (/work/shared/data/hosts/NAME): the "PATH:" then value dumps of sysfs
 * (sys-*.raw.txt), pepc's topology table, /proc/cpuinfo, uname -a, turbostat
 * and /proc/interrupts. import_read.c reads, import.c writes the machine
 * file and the scenario. */
#ifndef PMLAB_CLI_IMPORT_H
#define PMLAB_CLI_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>
#include <stdio.h>

#include "hw/machine.h"
#include "util/diag.h"

#define IMP_MAX_CPUS 1024

/* One logical CPU as the host numbers it. */
struct imp_cpu {
    int package, core, module;  /* module: the L2 group (cluster) id, -1 unknown */
    char type;                  /* 'P', 'E' (hybrid) or 'U' (uniform) */
};

/* A sysfs value dump: path -> value (snapshot files). */
struct imp_kv {
    char *path, *value;
};

struct imp_host {
    const char *root;           /* --root DIR, or NULL */
    const char *snap;           /* snapshot directory, or NULL */
    struct imp_kv *kv;          /* the snapshot's sysfs dumps */
    int nkv;
    int ncpus;
    struct imp_cpu cpu[IMP_MAX_CPUS];
    char vendor[32];            /* "intel", "amd" */
    int family, model;
    char model_name[128];
    char kernel[64];            /* uname -r */
    char *cmdline;              /* /proc/cmdline, or turbostat's copy */
    char missing[512];          /* pieces not found, "; "-separated */
};

/* Read what src holds into h. Returns 0, or -1 with d naming the first
 * piece without which no machine can be built (the CPU list). */
int imp_host_read(struct imp_host *h, struct diag *d);
void imp_host_free(struct imp_host *h);

/* A sysfs file's value (trimmed; caller frees), or NULL when absent. path
 * is absolute ("/sys/devices/system/cpu/cpu0/cpuidle/state1/name"). */
char *imp_sysfs(const struct imp_host *h, const char *path);
/* An integer sysfs value, or def when absent or not a number. */
long long imp_sysfs_ll(const struct imp_host *h, const char *path, long long def);
/* A whole file of the source: for --root the path under DIR ("/proc/cpuinfo"),
 * for a snapshot the snapshot file name ("turbostat.raw.txt"). NULL when
 * absent. Caller frees. */
char *imp_file(const struct imp_host *h, const char *root_path, const char *snap_name);
/* cpu0's cpuidle state s file (name, desc, latency, ...): its value, or
 * NULL when absent (caller frees); as a number, or def. */
char *imp_state_file(const struct imp_host *h, int s, const char *file);
long long imp_state_ll(const struct imp_host *h, int s, const char *file, long long def);
/* Note a missing piece (for the warning list). */
void imp_missing(struct imp_host *h, const char *what);

/* import_measured.c: what a snapshot measured while the host ran. */

/* Per-CPU interrupt rates, per second, between the first and the last
 * timestamped dump of interrupts.raw.txt: (last - first) / (t_last -
 * t_first), for the local timer (LOC) row, the sum of the numbered
 * (device) rows and each IPI row. */
#define IMP_NIPI 4
/* The IPI rows read: RES (rescheduling), CAL (function call), TLB
 * (shootdowns), IWI (IRQ work). */
extern const char *const imp_ipi_rows[IMP_NIPI];
struct imp_irq_rates {
    double *loc_hz, *device_hz;  /* [ncpus] */
    double *ipi_hz[IMP_NIPI];    /* [ncpus] each, in imp_ipi_rows' order */
    double seconds;              /* t_last - t_first */
};
/* 0, or -1 (nothing allocated) without two timestamped dumps. */
int imp_irq_rates(const struct imp_host *h, struct imp_irq_rates *r);
void imp_irq_rates_free(struct imp_irq_rates *r);

/* turbostat.raw.txt's summary rows (CPU "-"): each column's mean. */
#define IMP_TS_MAX_COLS 96
struct imp_turbostat {
    int ncols, rows;
    char cols[IMP_TS_MAX_COLS][32];
    double mean[IMP_TS_MAX_COLS];
};
/* 0, or -1 without a turbostat.raw.txt with summary rows. */
int imp_turbostat_means(const struct imp_host *h, struct imp_turbostat *ts);
/* The mean of column col (*found false and 0 when it has none). */
double imp_turbostat_col(const struct imp_turbostat *ts, const char *col, bool *found);

/* The cpuidle counters' growth over all CPUs, after minus before dump:
 * sum[state][IMP_IDLE_USAGE...]. */
enum { IMP_IDLE_USAGE, IMP_IDLE_ABOVE, IMP_IDLE_BELOW, IMP_IDLE_TIME_US, IMP_IDLE_NCOUNTERS };
#define IMP_IDLE_MAX_STATES 10
struct imp_idle_counts {
    int nstates;
    double sum[IMP_IDLE_MAX_STATES][IMP_IDLE_NCOUNTERS];
};
/* 0, or -1 without both sys-cpuidle dumps. */
int imp_idle_counts(const struct imp_host *h, struct imp_idle_counts *c);
/* The workload's run time between the before and after dumps, s: info.yml's
 * "duration:" (stats-collect's "2m"), else its "cmd: sleep N"; -1 when
 * neither (*how: which one, or NULL). */
double imp_snapshot_seconds(const struct imp_host *h, const char **how);


/* import_cstates.c: the machine's hardware idle states from the host's own
 * intel_idle table. */
struct imp_host_state {
    char name[HW_NAME_MAX];
    char desc[64];
    uint32_t mwait_hint;            /* from the desc, "MWAIT 0x60" */
    long long latency_us, residency_us;
};
/* cpu0's states past POLL when the host ran intel_idle on a table of its
 * own (every desc "MWAIT 0x.."), shallowest first; 0 otherwise (acpi_idle,
 * the _ACPI fallback, no dump). */
int imp_host_states(const struct imp_host *h, struct imp_host_state *st, int max);
/* [cstate TYPE NAME] sections for core type type ('P', 'E', 'U'): the
 * host's states with the nearest type nt's power, or nt's own states when
 * the host has no table of its own. */
void imp_write_cstates(FILE *f, const struct imp_host *h, char type, const struct hw_core_type *nt,
                       const struct hw_machine *near);
/* [pkgstate] sections: the nearest machine's whose core state the host
 * has, exit latency the package part of the host's total. */
void imp_write_pkgstates(FILE *f, const struct imp_host *h, const struct hw_machine *near);
/* Whether the host's turbostat has Pkg%pcN columns but none for package
 * state name (PCn): a state of the nearest machine the part lacks. */
bool imp_host_lacks_pkgstate(const struct imp_host *h, const char *name);
/* The header comment saying which physics is the host's and which borrowed. */
void imp_write_borrowed_note(FILE *f, const struct imp_host *h, const struct hw_machine *near);

/* import_device.c: one interrupt line of a driver in interrupts.raw.txt. */
struct imp_irq_line {
    int irq;                    /* its number */
    double hz;                  /* interrupts per second, all CPUs */
    int cpu;                    /* the CPU that took most of them */
    double cpu_hz;              /* ... at this rate */
};
/* The busiest line of driver (the row's last word, "xhci_hcd") between
 * the first and last dumps: 0, or -1 when none interrupted. */
int imp_irq_line(const struct imp_host *h, const char *driver, struct imp_irq_line *out);
/* The xHCI line behind a USB serial console (console=ttyUSB* on the
 * command line): 0, or -1 without such a console or line. */
int imp_usb_console_xhci(const struct imp_host *h, struct imp_irq_line *out);

#endif
