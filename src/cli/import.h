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
/* Note a missing piece (for the warning list). */
void imp_missing(struct imp_host *h, const char *what);

#endif
