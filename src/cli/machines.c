/* machines: `pmlab machines`: list the machine files pmlab can find. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/machine.h"
#include "kernel/idle/intel_idle.h"
#include "scenario/machine_path.h"
#include "util/xalloc.h"

static void machines_usage(void)
{
    printf("usage: pmlab machines [--dir DIR]\n"
           "\n"
           "List the machine files in DIR (default: each directory of $PMLAB_MACHINES, a\n"
           "name once, as a scenario finds it; else ./machines when it\n"
           "exists, else the installed ones in %s), one\n"
           "line each: name, CPUs, core types and description. A scenario names a machine by\n"
           "its file name without .ini. Each file is fully validated; a broken one is\n"
           "reported as FILE:LINE and the exit status is 2.\n",
           scn_machine_installed_dir());
}

static int machines_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of *.ini names in dir; NULL (and *n = -1) if dir cannot be read. */
static char **machines_scan(const char *dir, int *n)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return *n = -1, NULL;
    char **names = NULL;
    *n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        names = xreallocarray(names, (size_t)*n + 1, sizeof *names);
        names[(*n)++] = xstrdup(de->d_name);
    }
    closedir(dp);
    if (*n > 0)
        qsort(names, (size_t)*n, sizeof *names, machines_cmp);
    return names;
}

static void machines_print(const struct hw_machine *m)
{
    char types[128] = "";
    size_t used = 0;
    for (int t = 0; t < m->ntypes && used < sizeof types; t++) {
        int n = snprintf(types + used, sizeof types - used, "%s%dx%s", t ? "+" : "",
                         m->types[t].cores_per_package * m->packages, m->types[t].name);
        if (n > 0)
            used += (size_t)n;
    }
    /* Arm parts have no model: their core types' MIDR parts stand for it. */
    char model[HW_NAME_MAX * HW_MAX_CORE_TYPES] = "";
    for (int t = 0, u = 0; t < m->ntypes && hw_machine_is_arm(m); t++)
        u += snprintf(model + u, sizeof model - (size_t)u, "%s%s", t ? "/" : "",
                      m->types[t].cpu_part);
    printf("%-14s %4d CPUs  %d pkg  %-12s %-14s %s\n", m->name, m->ncpus, m->packages, types,
           hw_machine_is_arm(m) ? model : m->cpu_model, m->description);
}

struct hw_machine *cli_machine_load(const char *path, struct diag *d)
{
    struct hw_machine *m = hw_machine_load(path, d);
    if (m && intel_idle_check_machine(m, d) != 0) {
        hw_machine_free(m);
        m = NULL;
    }
    return m;
}

static void machines_free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Whether name is in names[n]. */
static bool machines_seen(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Prints every machine file in dir whose name is not in seen[*nseen] (a
 * directory earlier in the search path holds it: that one is what a
 * scenario gets), adding the names to seen. EXIT_BAD_INPUT when dir cannot
 * be read or a file is broken (each said on stderr), else 0. */
static int machines_list(const char *dir, char ***seen, int *nseen)
{
    int n;
    char **names = machines_scan(dir, &n);
    if (n < 0) {
        fprintf(stderr, "pmlab machines: cannot read directory %s\n", dir);
        return EXIT_BAD_INPUT;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (machines_seen(*seen, *nseen, names[i])) {
            free(names[i]);
            continue;
        }
        char *path = xasprintf("%s/%s", dir, names[i]);
        struct diag d = { 0 };
        struct hw_machine *m = cli_machine_load(path, &d);
        free(path);
        if (m)
            machines_print(m);
        else
            fprintf(stderr, "%s\n", d.msg), rc = EXIT_BAD_INPUT;
        hw_machine_free(m);
        *seen = xreallocarray(*seen, (size_t)*nseen + 1, sizeof **seen);
        (*seen)[(*nseen)++] = names[i];
    }
    free(names);
    return rc;
}

/* machines_list over each directory of the colon-separated dirs, in order
 * (empty entries skipped). */
static int machines_list_dirs(const char *dirs)
{
    char **seen = NULL;
    int nseen = 0, rc = 0;
    char *copy = xstrdup(dirs);
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
        if (machines_list(d, &seen, &nseen) != 0)
            rc = EXIT_BAD_INPUT;
    free(copy);
    machines_free_names(seen, nseen);
    return rc;
}

static int machines_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "dir", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *dir = NULL;
    int c;
    optind = 1;
    opterr = 0; /* cli_bad_option says it */
    while ((c = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
        if (c == 'd')
            dir = optarg;
        else if (c == 'h')
            return machines_usage(), 0;
        else
            return cli_bad_option("machines", argv, longopts, "d:h");
    }
    if (optind != argc) {
        fprintf(stderr, "pmlab machines: unexpected argument '%s'\n", argv[optind]);
        return EXIT_BAD_INPUT;
    }
    if (dir) { /* one directory, as given */
        char **seen = NULL;
        int nseen = 0;
        int rc = machines_list(dir, &seen, &nseen);
        machines_free_names(seen, nseen);
        return rc;
    }
    char *dirs = scn_machine_list_dirs();
    int rc = machines_list_dirs(dirs);
    free(dirs);
    return rc;
}

const struct cli_command cli_machines_command = {
    .name = "machines",
    .summary = "list the machine files",
    .main = machines_main,
    .usage = machines_usage,
};
