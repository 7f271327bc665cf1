/* params: `pmlab params`: every knob, patch and workload parameter, the way
 * `modinfo -p` lists a module's parameters. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "kernel/params.h"
#include "workload/workload.h"

static void params_usage(void)
{
    printf("usage: pmlab params\n"
           "\n"
           "Print every kernel knob a variant can set (with where it is set: cmdline,\n"
           "sysfs or config), its type and range, default, the kernel that added it and\n"
           "what it does; then the named patches and each workload's parameters.\n");
}

static void params_type_text(const struct kparam *p, char *buf, size_t size)
{
    size_t used;
    switch (p->type) {
    case KPARAM_BOOL:
        snprintf(buf, size, "bool");
        return;
    case KPARAM_INT:
        snprintf(buf, size, "int [%" PRId64 "..%" PRId64 "]", p->min, p->max);
        return;
    case KPARAM_ENUM:
        used = (size_t)snprintf(buf, size, "one of:");
        for (const char *const *c = p->choices; *c && used < size; c++)
            if (**c)
                used += (size_t)snprintf(buf + used, size - used, " %s", *c);
        return;
    case KPARAM_CPULIST:
        used = (size_t)snprintf(buf, size, "CPU list");
        if (p->choices) {
            used += (size_t)snprintf(buf + used, size - used, ", after flags:");
            for (const char *const *c = p->choices; *c && used < size; c++)
                used += (size_t)snprintf(buf + used, size - used, " %s,", *c);
        }
        return;
    }
}

static void params_print_knob(const struct kparam *p)
{
    char type[160];
    params_type_text(p, type, sizeof type);
    const char *where = (p->sources & KPARAM_SRC_CONFIG) ? "config" : "cmdline";
    if (p->sources & KPARAM_SRC_CMDLINE || p->sources & KPARAM_SRC_CONFIG)
        printf("%s (%s)\n", p->name, where);
    else
        printf("%s\n", p->name);
    if (p->sysfs)
        printf("    sysfs:   %s\n", p->sysfs);
    printf("    type:    %s%s%s\n", type, p->unit && *p->unit ? ", unit " : "", p->unit ? p->unit : "");
    printf("    default: %s\n", *p->def ? p->def : "(not set)");
    if (p->since)
        printf("    since:   %s\n", p->since);
    if (p->patch)
        printf("    patch:   %s\n", p->patch);
    printf("    %s\n", p->desc);
}

static void params_print_workloads(void)
{
    printf("\nworkloads ([workload] type = NAME, then its keys):\n");
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        printf("%s: %s\n", (*w)->name, (*w)->desc);
        for (const struct wl_param *p = (*w)->params; p->name; p++) {
            if (p->type == WL_PARAM_FILE)
                printf("    %-14s (a file, required)  %s\n", p->name, p->desc);
            else if (p->type == WL_PARAM_CPU_VALUES)
                printf("    %-14s one value, or one per CPU; default %s; range [%g, %g]  %s\n",
                       p->name, *p->def ? p->def : "(unset)", p->min, p->max, p->desc);
            else if (p->type == WL_PARAM_TEXT)
                printf("    %-14s default %-8s  %s\n", p->name, *p->def ? p->def : "\"\"",
                       p->desc);
            else
                printf("    %-14s default %-8s range [%g, %g]  %s\n", p->name, p->def, p->min,
                       p->max, p->desc);
        }
    }
}

static int params_main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return params_usage(), 0;
    if (argc > 1) {
        fprintf(stderr, "pmlab params: unexpected argument '%s'\n", argv[1]);
        return EXIT_BAD_INPUT;
    }
    printf("kernel knobs (a variant's cmdline, sysfs and config keys):\n");
    for (const struct kparam *const *t = kparam_tables; *t; t++)
        for (const struct kparam *p = *t; p->name; p++)
            params_print_knob(p);
    printf("\npatches (a variant's patches key):\n");
    if (!kpatch_table[0].name)
        printf("    (none registered yet)\n");
    for (const struct kpatch *k = kpatch_table; k->name; k++)
        printf("%-28s %s\n", k->name, k->desc);
    params_print_workloads();
    return 0;
}

const struct cli_command cli_params_command = {
    .name = "params",
    .summary = "list every kernel knob, patch and workload parameter",
    .main = params_main,
    .usage = params_usage,
};
