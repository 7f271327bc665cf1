/* scenario: scenario-file loading, see scenario.h.
 *
 * Two passes: the inifile callbacks only classify sections and collect
 * key/value lines (with their line numbers); interpretation happens after, in
 * dependency order (scenario keys -> machine -> workload -> quick -> variants),
 * because a variant's knobs are checked against its kernel version, its
 * patches and the machine's CPUs. */
#include "scenario/scenario.h"

#include <ctype.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/idle/intel_idle.h"
#include "kernel/x86/itmt.h"
#include "kernel/sched/idle.h"
#include "util/cpulist.h"
#include "util/inifile.h"
#include "util/strutil.h"
#include "util/xalloc.h"

enum { SEC_SCENARIO, SEC_WORKLOAD, SEC_QUICK, SEC_REPORT, SEC_VARIANT0 };
/* [vm NAME] sections are numbered from here, above any variant's number. */
#define SEC_VM0 (1 << 20)

struct raw_kv {
    int sec;          /* SEC_* or SEC_VARIANT0 + variant index */
    char *key, *value;
    int line;
    bool continuation;
};

struct scn_parse {
    struct scenario *s;
    const char *path;
    int sec_line[SEC_VARIANT0]; /* header line of the fixed sections, 0 = absent */
    int cur_sec;
    struct raw_kv *kv;
    int nkv;
};

static bool scn_valid_name(const char *name)
{
    if (!*name)
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.-+", *p))
            return false;
    return true;
}

static int scn_variant_section(struct scn_parse *st, const char *name, int line, struct diag *d)
{
    struct scenario *s = st->s;
    if (!scn_valid_name(name))
        return diag_error(d, st->path, line,
                          "variant name '%s' must be letters, digits, '_', '.', '-' or '+'", name);
    if (strlen(name) >= SCN_NAME_MAX)
        return diag_error(d, st->path, line, "variant name longer than %d characters",
                          SCN_NAME_MAX - 1);
    for (int i = 0; i < s->nvariants; i++)
        if (strcmp(s->variants[i].name, name) == 0)
            return diag_error(d, st->path, line, "duplicate variant '%s' (first at line %d)", name,
                              s->variants[i].line);
    s->variants = xreallocarray(s->variants, (size_t)s->nvariants + 1, sizeof *s->variants);
    struct scenario_variant *v = &s->variants[s->nvariants];
    memset(v, 0, sizeof *v);
    str_copy(v->name, sizeof v->name, name);
    v->line = line;
    kparams_init(&v->kp);
    st->cur_sec = SEC_VARIANT0 + s->nvariants++;
    return 0;
}

/* A [vm NAME] header: a new VM with default settings. */
static int scn_vm_section(struct scn_parse *st, const char *name, int line, struct diag *d)
{
    struct scenario *s = st->s;
    if (!scn_valid_name(name) || strlen(name) >= KVM_VM_NAME_MAX)
        return diag_error(d, st->path, line,
                          "vm name '%s' must be up to %d letters, digits, '_', '.', '-' or '+'",
                          name, KVM_VM_NAME_MAX - 1);
    for (int i = 0; i < s->nvms; i++)
        if (strcmp(s->vms[i].name, name) == 0)
            return diag_error(d, st->path, line, "duplicate vm '%s' (first at line %d)", name,
                              s->vms[i].line);
    s->vms = xreallocarray(s->vms, (size_t)s->nvms + 1, sizeof *s->vms);
    kvm_vm_config_init(&s->vms[s->nvms], name, line);
    st->cur_sec = SEC_VM0 + s->nvms++;
    return 0;
}

static int scn_on_section(void *ctx, const char *name, int line, struct diag *d)
{
    static const char *const fixed[SEC_VARIANT0] = { "scenario", "workload", "quick", "report" };
    struct scn_parse *st = ctx;
    for (int i = 0; i < SEC_VARIANT0; i++) {
        if (strcmp(name, fixed[i]) != 0)
            continue;
        if (st->sec_line[i])
            return diag_error(d, st->path, line, "duplicate section [%s] (first at line %d)", name,
                              st->sec_line[i]);
        st->sec_line[i] = line;
        st->cur_sec = i;
        return 0;
    }
    if (strncmp(name, "variant", 7) == 0 && (name[7] == ' ' || name[7] == '\t' || !name[7])) {
        const char *vname = str_skip_space(name + 7);
        if (!*vname)
            return diag_error(d, st->path, line, "[variant] needs a name: [variant NAME]");
        return scn_variant_section(st, vname, line, d);
    }
    if (strncmp(name, "vm", 2) == 0 && (name[2] == ' ' || name[2] == '\t' || !name[2])) {
        const char *vmname = str_skip_space(name + 2);
        if (!*vmname)
            return diag_error(d, st->path, line, "[vm] needs a name: [vm NAME]");
        return scn_vm_section(st, vmname, line, d);
    }
    return diag_error(d, st->path, line,
                      "unknown section [%s] (expected scenario, workload, quick, report, variant NAME or vm NAME)",
                      name);
}

static int scn_on_key(void *ctx, const char *section, const char *key, const char *value,
                      bool continuation, int line, struct diag *d)
{
    struct scn_parse *st = ctx;
    if (!section[0])
        return diag_error(d, st->path, line, "'%s' outside any section", key);
    st->kv = xreallocarray(st->kv, (size_t)st->nkv + 1, sizeof *st->kv);
    st->kv[st->nkv++] = (struct raw_kv){
        .sec = st->cur_sec, .key = xstrdup(key), .value = xstrdup(value),
        .line = line, .continuation = continuation,
    };
    return 0;
}

/* Append value to *text with a space, for continuation lines. */
static void scn_append(char **text, const char *value)
{
    if (!*text) {
        *text = xstrdup(value);
        return;
    }
    size_t a = strlen(*text), b = strlen(value);
    *text = xrealloc(*text, a + b + 2);
    (*text)[a] = ' ';
    memcpy(*text + a + 1, value, b + 1);
}

static int scn_int_key(const struct raw_kv *kv, int64_t min, int64_t max, int64_t *out,
                       const char *path, struct diag *d)
{
    if (str_to_i64(kv->value, out) != 0)
        return diag_error(d, path, kv->line, "%s: expected an integer, got '%s'", kv->key,
                          kv->value);
    if (*out < min || *out > max)
        return diag_error(d, path, kv->line, "%s: %s out of range [%" PRId64 ", %" PRId64 "]",
                          kv->key, kv->value, min, max);
    return 0;
}

static int scn_no_continuation(const struct raw_kv *kv, const char *path, struct diag *d)
{
    if (kv->continuation)
        return diag_error(d, path, kv->line, "%s does not take continuation lines", kv->key);
    return 0;
}

static int scn_scenario_key(struct scn_parse *st, const struct raw_kv *kv, struct diag *d)
{
    struct scenario *s = st->s;
    int64_t v;
    if (strcmp(kv->key, "description") == 0) {
        scn_append(&s->description, kv->value);
        return 0;
    }
    if (scn_no_continuation(kv, st->path, d) != 0)
        return -1;
    if (strcmp(kv->key, "name") == 0) {
        if (!scn_valid_name(kv->value) || strlen(kv->value) >= SCN_NAME_MAX)
            return diag_error(d, st->path, kv->line, "name: '%s' is not a valid scenario name",
                              kv->value);
        return str_copy(s->name, sizeof s->name, kv->value);
    }
    if (strcmp(kv->key, "machine") == 0) {
        if (!scn_valid_name(kv->value) || strlen(kv->value) >= SCN_NAME_MAX)
            return diag_error(d, st->path, kv->line, "machine: '%s' is not a machine name",
                              kv->value);
        return str_copy(s->machine_name, sizeof s->machine_name, kv->value);
    }
    if (strcmp(kv->key, "seed") == 0) {
        if (scn_int_key(kv, 0, INT64_MAX, &v, st->path, d) != 0)
            return -1;
        s->seed = (uint64_t)v;
        return 0;
    }
    if (strcmp(kv->key, "replications") == 0) {
        if (scn_int_key(kv, 1, 1000, &v, st->path, d) != 0)
            return -1;
        s->replications = (int)v;
        return 0;
    }
    return diag_error(d, st->path, kv->line,
                      "unknown key '%s' in [scenario] (name, description, machine, seed, replications)",
                      kv->key);
}

/* Default machine search path: $PMLAB_MACHINES, <scenario dir>/../machines,
 * ./machines (allocated). */
static char *scn_machine_dirs(const char *scenario_path)
{
    char *copy = xstrdup(scenario_path);
    const char *env = getenv("PMLAB_MACHINES");
    char *dirs = xasprintf("%s%s%s/../machines:machines", env ? env : "", env ? ":" : "",
                           dirname(copy));
    free(copy);
    return dirs;
}

static int scn_load_machine(struct scn_parse *st, const struct scenario_load_opts *opts,
                            struct diag *d)
{
    struct scenario *s = st->s;
    int line = 0;
    for (int i = 0; i < st->nkv; i++)
        if (st->kv[i].sec == SEC_SCENARIO && strcmp(st->kv[i].key, "machine") == 0)
            line = st->kv[i].line;
    if (!s->machine_name[0])
        return diag_error(d, st->path, st->sec_line[SEC_SCENARIO],
                          "[scenario] needs 'machine = NAME' (see 'pmlab machines')");
    char *dirs = opts && opts->machine_dirs ? xstrdup(opts->machine_dirs)
                                            : scn_machine_dirs(st->path);
    char *path = hw_machine_find_path(s->machine_name, dirs);
    if (!path)
        diag_error(d, st->path, line, "unknown machine '%s' (looked for %s.ini in %s)",
                   s->machine_name, s->machine_name, dirs);
    else
        s->machine = hw_machine_load(path, d);
    free(path);
    free(dirs);
    return s->machine ? intel_idle_check_machine(s->machine, d) : -1;
}

/* The line of the first key `key` of section sec, or 0. */
static int scn_key_line(const struct scn_parse *st, int sec, const char *key)
{
    for (int i = 0; i < st->nkv; i++)
        if (st->kv[i].sec == sec && strcmp(st->kv[i].key, key) == 0)
            return st->kv[i].line;
    return 0;
}

/* [workload] affinity = LIST: every thread of the workload restricted to
 * these CPUs, as taskset -c LIST would start it. sched_setaffinity's answer
 * to a set with no CPU of the machine is EINVAL, so that is the message. */
static int scn_affinity(struct scn_parse *st, const struct raw_kv *kv, struct diag *d)
{
    struct scenario *s = st->s;
    int ncpus = s->machine->ncpus;
    char msg[160];
    bool *mask = xcalloc((size_t)ncpus, sizeof *mask);
    if (cpulist_parse(kv->value, ncpus, mask, msg, sizeof msg) != 0) {
        free(mask);
        return diag_error(d, st->path, kv->line, "affinity = %s: Invalid argument (%s)",
                          kv->value, msg);
    }
    free(s->wl_affinity);
    s->wl_affinity = mask;
    return 0;
}

static int scn_workload(struct scn_parse *st, struct diag *d)
{
    struct scenario *s = st->s;
    if (!st->sec_line[SEC_WORKLOAD])
        return diag_error(d, st->path, 0, "no [workload] section");
    for (int i = 0; i < st->nkv && !s->wl; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_WORKLOAD || strcmp(kv->key, "type") != 0)
            continue;
        s->wl = wl_find(kv->value);
        if (!s->wl)
            return diag_error(d, st->path, kv->line, "unknown workload type '%s'", kv->value);
    }
    if (!s->wl)
        return diag_error(d, st->path, st->sec_line[SEC_WORKLOAD], "[workload] needs 'type = NAME'");
    if (s->wl->needs_vm && s->nvms == 0)
        return diag_error(d, st->path, scn_key_line(st, SEC_WORKLOAD, "type"),
                          "%s runs inside a VM: the scenario needs a [vm NAME] section (docs/vms.md)",
                          s->wl->name);
    /* Zeroed: a load that fails before [quick] is copied frees no file. */
    s->wl_cfg = xcalloc(1, s->wl->config_size);
    s->wl_cfg_quick = xcalloc(1, s->wl->config_size);
    wl_config_defaults(s->wl, s->wl_cfg);
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_WORKLOAD || strcmp(kv->key, "type") == 0)
            continue;
        if (strcmp(kv->key, "affinity") == 0) {
            if (scn_no_continuation(kv, st->path, d) != 0 || scn_affinity(st, kv, d) != 0)
                return -1;
            continue;
        }
        if (scn_no_continuation(kv, st->path, d) != 0 ||
            wl_config_set(s->wl, s->wl_cfg, kv->key, kv->value, st->path, kv->line, d) != 0)
            return -1;
    }
    char msg[200];
    if (s->wl->validate && s->wl->validate(s->wl_cfg, msg, sizeof msg) != 0)
        return diag_error(d, st->path, st->sec_line[SEC_WORKLOAD], "%s", msg);
    return 0;
}

static int scn_quick(struct scn_parse *st, struct diag *d)
{
    struct scenario *s = st->s;
    wl_config_copy(s->wl, s->wl_cfg_quick, s->wl_cfg);
    s->quick_replications = s->replications < 3 ? s->replications : 3;
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_QUICK)
            continue;
        int64_t v;
        if (strcmp(kv->key, "replications") == 0) {
            if (scn_int_key(kv, 1, 1000, &v, st->path, d) != 0)
                return -1;
            s->quick_replications = (int)v;
        } else if (wl_config_set(s->wl, s->wl_cfg_quick, kv->key, kv->value, st->path, kv->line,
                                 d) != 0) {
            return -1;
        }
    }
    char msg[200];
    if (s->wl->validate && s->wl->validate(s->wl_cfg_quick, msg, sizeof msg) != 0)
        return diag_error(d, st->path, st->sec_line[SEC_QUICK], "[quick]: %s", msg);
    return 0;
}

static int scn_variant_patches(struct scn_parse *st, struct scenario_variant *v,
                               const struct raw_kv *kv, struct diag *d)
{
    char *copy = xstrdup(kv->value), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, " \t,", &save); tok && rc == 0;
         tok = strtok_r(NULL, " \t,", &save)) {
        if (!kpatch_find(tok)) {
            rc = diag_error(d, st->path, kv->line, "unknown patch '%s' (see 'pmlab params')", tok);
            break;
        }
        if (kparams_has_patch(&v->kp, tok))
            continue;
        v->kp.patches = xreallocarray(v->kp.patches, (size_t)v->kp.npatches + 1,
                                      sizeof *v->kp.patches);
        v->kp.patches[v->kp.npatches++] = xstrdup(tok);
    }
    free(copy);
    return rc;
}

typedef int (*scn_knob_setter)(struct kparams *kp, const char *name, const char *value,
                               const char *file, int line, struct diag *d);

/* cmdline, sysfs and config lines: split as a kernel command line (quotes,
 * name=value, bare words) and hand each word to the registry. */
static int scn_variant_words(struct scn_parse *st, struct scenario_variant *v,
                             const struct raw_kv *kv, scn_knob_setter set, struct diag *d)
{
    struct cmdline c;
    char msg[200];
    if (cmdline_split(kv->value, &c, msg, sizeof msg) != 0)
        return diag_error(d, st->path, kv->line, "%s: %s", kv->key, msg);
    int rc = 0;
    if (c.rest && set == kparams_set_cmdline)
        fprintf(stderr, "%s:%d: note: '-- %s' goes to init and is ignored\n", st->path, kv->line,
                c.rest);
    else if (c.rest)
        rc = diag_error(d, st->path, kv->line, "%s: unexpected '--'", kv->key);
    for (int i = 0; i < c.nargs && rc == 0; i++)
        rc = set(&v->kp, c.args[i].name, c.args[i].value, st->path, kv->line, d);
    cmdline_free(&c);
    return rc;
}

static int scn_variant_kernel(struct scn_parse *st, struct scenario_variant *v,
                              const struct raw_kv *kv, struct diag *d)
{
    if (scn_no_continuation(kv, st->path, d) != 0)
        return -1;
    if (kversion_parse(kv->value, &v->kp.kernel) != 0)
        return diag_error(d, st->path, kv->line, "kernel: '%s' is not a kernel version (e.g. 6.7)",
                          kv->value);
    return 0;
}

/* Keys of a variant in the order they must be applied: the kernel version and
 * patches decide which knobs exist. */
static const char *const scn_variant_keys[] = { "kernel", "patches", "config", "cmdline", "sysfs" };

static char **scn_variant_text(struct scenario_variant *v, int k)
{
    char **fields[] = { &v->kernel, &v->patches, &v->config, &v->cmdline, &v->sysfs };
    return fields[k];
}

static int scn_variant_apply(struct scn_parse *st, int vi, struct diag *d)
{
    struct scenario_variant *v = &st->s->variants[vi];
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < st->nkv; i++) {
            const struct raw_kv *kv = &st->kv[i];
            if (kv->sec != SEC_VARIANT0 + vi || strcmp(kv->key, scn_variant_keys[k]) != 0)
                continue;
            scn_append(scn_variant_text(v, k), kv->value);
            int rc = k == 0   ? scn_variant_kernel(st, v, kv, d)
                     : k == 1 ? scn_variant_patches(st, v, kv, d)
                     : scn_variant_words(st, v, kv,
                                         k == 2 ? kparams_set_config
                                         : k == 3 ? kparams_set_cmdline
                                                  : kparams_set_sysfs,
                                         d);
            if (rc != 0)
                return -1;
        }
    }
    if (!v->kernel)
        v->kernel = xstrdup(KVERSION_DEFAULT);
    for (int i = 0; i < v->kp.nwarnings; i++)
        fprintf(stderr, "%s (variant %s)\n", v->kp.warnings[i], v->name);
    if (kparams_check_cpus(&v->kp, st->s->machine->ncpus, st->path, d) != 0)
        return -1;
    if (idle_validate(st->s->machine, &v->kp, st->path, d) != 0)
        return -1;
    if (itmt_validate(st->s->machine, &v->kp, st->path, d) != 0)
        return -1;
    return cpufreq_validate(st->s->machine, &v->kp, st->path, d);
}

static int scn_check_variant_keys(struct scn_parse *st, struct diag *d)
{
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec < SEC_VARIANT0 || kv->sec >= SEC_VM0)
            continue;
        bool known = false;
        for (int k = 0; k < 5; k++)
            known |= strcmp(kv->key, scn_variant_keys[k]) == 0;
        if (!known)
            return diag_error(d, st->path, kv->line,
                              "unknown key '%s' in [variant] (kernel, patches, cmdline, sysfs, config)",
                              kv->key);
    }
    return 0;
}

/* Every [vm] key, then each VM checked against the machine. */
static int scn_vms(struct scn_parse *st, struct diag *d)
{
    struct scenario *s = st->s;
    char msg[300];
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec < SEC_VM0)
            continue;
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        struct kvm_vm_config *vm = &s->vms[kv->sec - SEC_VM0];
        if (kvm_vm_config_set(vm, kv->key, kv->value, msg, sizeof msg) != 0 ||
            (strcmp(kv->key, "iothread_affinity") == 0 &&
             kvm_vm_config_check_io_affinity(vm, s->machine, msg, sizeof msg) != 0))
            return diag_error(d, st->path, kv->line, "%s", msg);
    }
    for (int i = 0; i < s->nvms; i++)
        if (kvm_vm_config_check(&s->vms[i], s->machine, msg, sizeof msg) != 0)
            return diag_error(d, st->path, s->vms[i].line, "[vm %s]: %s", s->vms[i].name, msg);
    return 0;
}

/* [report] cpus = LIST (scenario_set_report_cpus). */
static int scn_report(struct scn_parse *st, struct diag *d)
{
    char msg[200];
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_REPORT)
            continue;
        if (strcmp(kv->key, "cpus") != 0)
            return diag_error(d, st->path, kv->line, "unknown key '%s' in [report] (cpus)",
                              kv->key);
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        if (scenario_set_report_cpus(st->s, kv->value, msg, sizeof msg) != 0)
            return diag_error(d, st->path, kv->line, "cpus: %s", msg);
    }
    return 0;
}

static int scn_interpret(struct scn_parse *st, const struct scenario_load_opts *opts,
                         struct diag *d)
{
    struct scenario *s = st->s;
    if (!st->sec_line[SEC_SCENARIO])
        return diag_error(d, st->path, 0, "no [scenario] section");
    for (int i = 0; i < st->nkv; i++)
        if (st->kv[i].sec == SEC_SCENARIO && scn_scenario_key(st, &st->kv[i], d) != 0)
            return -1;
    if (scn_check_variant_keys(st, d) != 0 || scn_load_machine(st, opts, d) != 0 ||
        scn_vms(st, d) != 0 || scn_report(st, d) != 0 ||
        scn_workload(st, d) != 0 || scn_quick(st, d) != 0)
        return -1;
    if (s->nvariants == 0)
        return diag_error(d, st->path, 0, "no [variant NAME] section: nothing to run");
    for (int v = 0; v < s->nvariants; v++)
        if (scn_variant_apply(st, v, d) != 0)
            return -1;
    return 0;
}

static void scn_default_name(struct scenario *s, const char *path)
{
    char *copy = xstrdup(path);
    char *base = basename(copy);
    char *dot = strrchr(base, '.');
    if (dot)
        *dot = '\0';
    str_copy(s->name, sizeof s->name, base);
    free(copy);
}

struct scenario *scenario_load(const char *path, const struct scenario_load_opts *opts,
                               struct diag *d)
{
    struct scenario *s = xcalloc(1, sizeof *s);
    s->path = xstrdup(path);
    scn_default_name(s, path);
    s->seed = 1;
    s->replications = 5;
    struct scn_parse st = { .s = s, .path = path, .cur_sec = -1 };
    static const struct inifile_ops ops = { .section = scn_on_section, .key = scn_on_key };
    int rc = inifile_parse(path, &ops, &st, d);
    if (rc == 0)
        rc = scn_interpret(&st, opts, d);
    for (int i = 0; i < st.nkv; i++) {
        free(st.kv[i].key);
        free(st.kv[i].value);
    }
    free(st.kv);
    if (rc != 0) {
        scenario_free(s);
        return NULL;
    }
    return s;
}

int scenario_set_report_cpus(struct scenario *s, const char *list, char *msg, size_t msgsize)
{
    int ncpus = s->machine->ncpus;
    bool *mask = xcalloc((size_t)ncpus, sizeof *mask);
    if (cpulist_parse(list, ncpus, mask, msg, msgsize) != 0) {
        free(mask);
        return -1;
    }
    free(s->report_cpus);
    s->report_cpus = mask;
    return 0;
}

void scenario_free(struct scenario *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nvariants; i++) {
        struct scenario_variant *v = &s->variants[i];
        free(v->kernel);
        free(v->patches);
        free(v->cmdline);
        free(v->sysfs);
        free(v->config);
        kparams_destroy(&v->kp);
    }
    free(s->variants);
    free(s->vms);
    free(s->report_cpus);
    free(s->wl_affinity);
    free(s->description);
    if (s->wl && s->wl_cfg)
        wl_config_release(s->wl, s->wl_cfg);
    if (s->wl && s->wl_cfg_quick)
        wl_config_release(s->wl, s->wl_cfg_quick);
    free(s->wl_cfg);
    free(s->wl_cfg_quick);
    hw_machine_free(s->machine);
    free(s->path);
    free(s);
}
