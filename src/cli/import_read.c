/* import_read: reading a host for `pmlab import`, see import.h. No library
 * parses these ad-hoc dumps (sysfs "PATH:" / value blocks, pepc's and
 * turbostat's tables), so they are read by hand here. */
#include "cli/import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/xalloc.h"
#include "util/readfile.h"

static char *imp_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

void imp_missing(struct imp_host *h, const char *what)
{
    size_t len = strlen(h->missing);
    if (strstr(h->missing, what))
        return;
    snprintf(h->missing + len, sizeof h->missing - len, "%s%s", len ? "; " : "", what);
}

char *imp_file(const struct imp_host *h, const char *root_path, const char *snap_name)
{
    const char *name = h->root ? root_path : snap_name;
    if (!name)
        return NULL;            /* the source has no such file */
    char *path = h->root ? xasprintf("%s%s", h->root, name) : xasprintf("%s/%s", h->snap, name);
    char *text = read_whole_file(path);
    free(path);
    return text;
}

/* Add a snapshot dump: blocks of "/sys/...:" then the value up to a blank line. */
static void imp_parse_dump(struct imp_host *h, char *text)
{
    char *save = NULL, *path = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        if (line[0] == '/' && n > 1 && line[n - 1] == ':') {
            line[n - 1] = '\0';
            path = line;
            continue;
        }
        if (!path)
            continue;
        h->kv = xreallocarray(h->kv, (size_t)h->nkv + 1, sizeof *h->kv);
        h->kv[h->nkv].path = xstrdup(path);
        h->kv[h->nkv].value = xstrdup(imp_trim(line));
        h->nkv++;
        path = NULL;            /* one value line per file is all import reads */
    }
}

char *imp_sysfs(const struct imp_host *h, const char *path)
{
    if (h->root) {
        char *full = xasprintf("%s%s", h->root, path);
        char *v = read_whole_file(full);
        free(full);
        if (!v)
            return NULL;
        char *t = xstrdup(imp_trim(v));
        free(v);
        return t;
    }
    for (int i = h->nkv - 1; i >= 0; i--)
        if (strcmp(h->kv[i].path, path) == 0)
            return xstrdup(h->kv[i].value);
    return NULL;
}

long long imp_sysfs_ll(const struct imp_host *h, const char *path, long long def)
{
    char *v = imp_sysfs(h, path);
    if (!v)
        return def;
    char *end;
    long long x = strtoll(v, &end, 10);
    bool ok = end != v && *imp_trim(end) == '\0';
    if (!ok)
        fprintf(stderr, "pmlab import: warning: %s: '%s' is not a number; ignored\n", path, v);
    free(v);
    return ok ? x : def;
}

/* A topology id (package, cluster) from sysfs: a number in [0, IMP_MAX_CPUS),
 * else def with a warning (no host numbers its packages past its CPUs;
 * -1 is sysfs's "none"). */
static int imp_sysfs_id(const struct imp_host *h, const char *path, int def)
{
    long long v = imp_sysfs_ll(h, path, def);
    if (v == def || (v >= 0 && v < IMP_MAX_CPUS))
        return (int)v;
    fprintf(stderr, "pmlab import: warning: %s: %lld is out of range [0, %d]; taken as %d\n",
            path, v, IMP_MAX_CPUS - 1, def);
    return def;
}

/* /proc/cpuinfo: vendor, family, model and name of processor 0. */
static void imp_read_cpuinfo(struct imp_host *h)
{
    char *text = imp_file(h, "/proc/cpuinfo", "proc_cpuinfo.after.raw.txt");
    if (!text) {
        imp_missing(h, "/proc/cpuinfo (vendor, family, model)");
        return;
    }
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *key = imp_trim(line), *val = imp_trim(colon + 1);
        if (strcmp(key, "processor") == 0 && atoi(val) > 0)
            break;
        if (strcmp(key, "vendor_id") == 0)
            snprintf(h->vendor, sizeof h->vendor, "%s",
                     strcmp(val, "GenuineIntel") == 0 ? "intel"
                     : strcmp(val, "AuthenticAMD") == 0 ? "amd"
                     : strcmp(val, "HygonGenuine") == 0 ? "hygon" : "unknown");
        else if (strcmp(key, "cpu family") == 0)
            h->family = atoi(val);
        else if (strcmp(key, "model") == 0)
            h->model = atoi(val);
        else if (strcmp(key, "model name") == 0)
            snprintf(h->model_name, sizeof h->model_name, "%s", val);
    }
    free(text);
}

/* The kernel release and command line. */
static void imp_read_kernel(struct imp_host *h)
{
    char *rel = h->root ? imp_file(h, "/proc/sys/kernel/osrelease", NULL)
                        : imp_file(h, NULL, "uname-a.after.raw.txt");
    if (rel) {
        char a[64] = "", b[64] = "", c[64] = "";
        if (h->root)
            snprintf(h->kernel, sizeof h->kernel, "%s", imp_trim(rel));
        else if (sscanf(rel, "%63s %63s %63s", a, b, c) == 3)
            snprintf(h->kernel, sizeof h->kernel, "%s", c);
        free(rel);
    } else {
        imp_missing(h, "kernel release (uname -a / osrelease)");
    }
    if (h->root) {
        char *cl = imp_file(h, "/proc/cmdline", NULL);
        if (cl) {
            h->cmdline = xstrdup(imp_trim(cl));
            free(cl);
        }
    } else {
        char *ts = imp_file(h, NULL, "turbostat.raw.txt");
        if (!ts)
            ts = imp_file(h, NULL, "turbostat.discovery.raw.txt");
        char *p = ts ? strstr(ts, "Kernel command line: ") : NULL;
        if (p) {
            p += strlen("Kernel command line: ");
            size_t n = strcspn(p, "\n");
            h->cmdline = xasprintf("%.*s", (int)n, p);
        }
        free(ts);
    }
    if (!h->cmdline)
        imp_missing(h, "kernel command line");
}

/* pepc topology table: CPU Core Module Node Package Hybrid. */
static int imp_read_pepc_topology(struct imp_host *h)
{
    char *text = imp_file(h, NULL, "pepc_topology.after.raw.txt");
    if (!text)
        return -1;
    char *save = NULL;
    int col[6] = { -1, -1, -1, -1, -1, -1 }; /* CPU Core Module Package Hybrid */
    static const char *const names[] = { "CPU", "Core", "Module", "Package", "Hybrid" };
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *w[16];
        int nw = 0;
        char *s2 = NULL;
        for (char *t = strtok_r(line, " \t", &s2); t && nw < 16; t = strtok_r(NULL, " \t", &s2))
            w[nw++] = t;
        if (nw > 0 && strcmp(w[0], "CPU") == 0) {
            for (int i = 0; i < nw; i++)
                for (int k = 0; k < 5; k++)
                    if (strcmp(w[i], names[k]) == 0)
                        col[k] = i;
            continue;
        }
        if (col[0] < 0 || nw <= col[0] || !isdigit((unsigned char)w[col[0]][0]))
            continue;
        int cpu = atoi(w[col[0]]);
        if (cpu < 0 || cpu >= IMP_MAX_CPUS)
            continue;
        struct imp_cpu *c = &h->cpu[cpu];
        c->core = col[1] >= 0 && col[1] < nw ? atoi(w[col[1]]) : cpu;
        c->module = col[2] >= 0 && col[2] < nw ? atoi(w[col[2]]) : -1;
        c->package = col[3] >= 0 && col[3] < nw ? atoi(w[col[3]]) : 0;
        c->type = col[4] >= 0 && col[4] < nw ? (w[col[4]][0] == 'E' ? 'E' : 'P') : 'U';
        if (cpu + 1 > h->ncpus)
            h->ncpus = cpu + 1;
    }
    free(text);
    return h->ncpus > 0 ? 0 : -1;
}

/* Whether cpu is in the cpulist file at path (hybrid PMU cpus lists). */
static bool imp_in_list(const struct imp_host *h, const char *path, int cpu)
{
    char *v = imp_sysfs(h, path);
    if (!v)
        return false;
    bool in = false;
    for (char *save = NULL, *r = strtok_r(v, ",", &save); r && !in; r = strtok_r(NULL, ",", &save)) {
        int a, b;
        int n = sscanf(r, "%d-%d", &a, &b);
        in = (n == 1 && cpu == a) || (n == 2 && cpu >= a && cpu <= b);
    }
    free(v);
    return in;
}

/* sysfs topology under --root: cpuN/topology/{physical_package_id,core_id,cluster_id}. */
static int imp_read_sysfs_topology(struct imp_host *h)
{
    bool hybrid = false;
    char *atom = imp_sysfs(h, "/sys/devices/cpu_atom/cpus");
    if (atom)
        hybrid = true, free(atom);
    for (int cpu = 0; cpu < IMP_MAX_CPUS; cpu++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
        long long core = imp_sysfs_ll(h, path, -1);
        if (core < 0)
            break;
        if (core >= IMP_MAX_CPUS * 64) {
            fprintf(stderr, "pmlab import: warning: %s: %lld is not a core number; taken as "
                            "%d\n", path, core, cpu);
            core = cpu;
        }
        struct imp_cpu *c = &h->cpu[cpu];
        c->core = (int)core;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
        c->package = imp_sysfs_id(h, path, 0);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/cluster_id", cpu);
        c->module = imp_sysfs_id(h, path, -1);
        c->type = !hybrid ? 'U' : imp_in_list(h, "/sys/devices/cpu_atom/cpus", cpu) ? 'E' : 'P';
        h->ncpus = cpu + 1;
    }
    return h->ncpus > 0 ? 0 : -1;
}

static void imp_load_dumps(struct imp_host *h)
{
    static const char *const files[] = {
        "sys-cpuidle.before.raw.txt", "sys-cpuidle.after.raw.txt", "sys-cpufreq.after.raw.txt",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *text = imp_file(h, NULL, files[i]);
        if (!text) {
            imp_missing(h, files[i]);
            continue;
        }
        imp_parse_dump(h, text);
        free(text);
    }
}

int imp_host_read(struct imp_host *h, struct diag *d)
{
    const char *dir = h->snap ? h->snap : h->root && h->root[0] ? h->root : NULL;
    struct stat sb;
    if (dir && stat(dir, &sb) != 0)
        return diag_error(d, dir, 0, "cannot read the host's files: %s", strerror(errno));
    if (dir && !S_ISDIR(sb.st_mode))
        return diag_error(d, dir, 0, "not a directory (a snapshot directory or a copied root)");
    if (h->snap)
        imp_load_dumps(h);
    imp_read_cpuinfo(h);
    imp_read_kernel(h);
    int rc = h->snap ? imp_read_pepc_topology(h) : imp_read_sysfs_topology(h);
    if (rc != 0)
        return diag_error(d, h->root ? h->root : h->snap, 0,
                          "no CPU topology: %s not found or empty; a machine cannot be built",
                          h->snap ? "pepc_topology.after.raw.txt"
                                  : "/sys/devices/system/cpu/cpu0/topology/core_id");
    if (!h->vendor[0])
        return diag_error(d, h->root ? h->root : h->snap, 0,
                          "no CPU vendor: /proc/cpuinfo not found; a machine cannot be built");
    return 0;
}

void imp_host_free(struct imp_host *h)
{
    for (int i = 0; i < h->nkv; i++) {
        free(h->kv[i].path);
        free(h->kv[i].value);
    }
    free(h->kv);
    free(h->cmdline);
}

char *imp_state_file(const struct imp_host *h, int s, const char *file)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cpuidle/state%d/%s", s, file);
    return imp_sysfs(h, path);
}

long long imp_state_ll(const struct imp_host *h, int s, const char *file, long long def)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cpuidle/state%d/%s", s, file);
    return imp_sysfs_ll(h, path, def);
}
