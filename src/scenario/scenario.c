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
#include <unistd.h>

#include "kernel/cmdline.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/idle/intel_idle.h"
#include "kernel/x86/itmt.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/uclamp.h"
#include "scenario/machine_path.h"
#include "trace/record.h"
#include "util/cpulist.h"
#include "util/inifile.h"
#include "util/sha256.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/xalloc.h"

enum { SEC_SCENARIO, SEC_WORKLOAD, SEC_QUICK, SEC_REPORT, SEC_SWEEP, SEC_MEASURED, SEC_VARIANT0 };
/* [vm NAME] sections are numbered from here, above any variant's number. */
#define SEC_VM0 (1 << 20)
/* [device NAME] sections from here, above any vm's. */
#define SEC_DEV0 (1 << 21)

struct raw_kv {
    int sec;          /* SEC_* or SEC_VARIANT0 + variant index */
    char *key, *value;
    int line;
    bool continuation;
    const char *origin; /* the --set text it came from, NULL for the file */
};

/* Where a key was given, for diag_error: the file and line, or the --set
 * option (line 0). */
#define KV_WHERE(st, kv) ((kv)->origin ? (kv)->origin : (st)->path), (kv)->line

struct scn_parse {
    struct scenario *s;
    const char *path;
    int sec_line[SEC_VARIANT0]; /* header line of the fixed sections, 0 = absent */
    int cur_sec;
    struct raw_kv *kv;
    int nkv;
    char **origins;   /* "--set TEXT" of each --set, for messages */
    int norigins;
    struct hw_machine_override *machine_ov; /* --set machine.*: strings owned */
    int nmachine_ov;
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

/* A [device NAME] header: a platform device with default settings
 * (hw/device.h); its keys are checked once the machine is loaded. */
static int scn_device_section(struct scn_parse *st, const char *name, int line, struct diag *d)
{
    struct scenario *s = st->s;
    if (!scn_valid_name(name) || strlen(name) >= HW_DEVICE_NAME_MAX)
        return diag_error(d, st->path, line,
                          "device name '%s' must be up to %d letters, digits, '_', '.', '-' or '+'",
                          name, HW_DEVICE_NAME_MAX - 1);
    for (int i = 0; i < s->ndevices; i++)
        if (strcmp(s->devices[i].name, name) == 0)
            return diag_error(d, st->path, line, "duplicate device '%s' (first at line %d)", name,
                              s->devices[i].line);
    s->devices = xreallocarray(s->devices, (size_t)s->ndevices + 1, sizeof *s->devices);
    hw_device_config_init(&s->devices[s->ndevices], name, line);
    st->cur_sec = SEC_DEV0 + s->ndevices++;
    return 0;
}

static int scn_on_section(void *ctx, const char *name, int line, struct diag *d)
{
    static const char *const fixed[SEC_VARIANT0] = { "scenario", "workload", "quick", "report",
                                                     "sweep", "measured" };
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
    if (strncmp(name, "device", 6) == 0 && (name[6] == ' ' || name[6] == '\t' || !name[6])) {
        const char *dname = str_skip_space(name + 6);
        if (!*dname)
            return diag_error(d, st->path, line, "[device] needs a name: [device NAME]");
        return scn_device_section(st, dname, line, d);
    }
    return diag_error(d, st->path, line,
                      "unknown section [%s] (expected scenario, workload, quick, report, sweep, measured, variant NAME, vm NAME or device NAME)",
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
    path = kv->origin ? kv->origin : path;
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
        return diag_error(d, kv->origin ? kv->origin : path, kv->line, "%s does not take continuation lines", kv->key);
    return 0;
}


/* "unknown key" for kv in [section], with the nearest of the n known keys
 * when it looks like a typo of one. */
static int scn_unknown_key(const struct scn_parse *st, const struct raw_kv *kv,
                           const char *section, const char *const *known, int n,
                           const char *list, struct diag *d)
{
    struct suggest sg;
    suggest_init(&sg, kv->key);
    for (int i = 0; i < n; i++)
        suggest_add(&sg, known[i]);
    if (suggest_result(&sg))
        return diag_error(d, KV_WHERE(st, kv), "unknown key '%s' in [%s]; did you mean %s?",
                          kv->key, section, suggest_result(&sg));
    return diag_error(d, KV_WHERE(st, kv), "unknown key '%s' in [%s] (%s)", kv->key, section,
                      list);
}

/* Set workload key `key` of cfg to value (given at kv), naming the nearest
 * parameter of the workload when the key is not one of them; a per-CPU list
 * must fit the machine. */
static int scn_wl_set(const struct scn_parse *st, void *cfg, const struct raw_kv *kv,
                      const char *key, const char *value, struct diag *d)
{
    const struct wl_ops *wl = st->s->wl;
    struct suggest sg;
    suggest_init(&sg, key);
    bool known = false;
    for (const struct wl_param *p = wl->params; p->name; p++) {
        known |= strcmp(p->name, key) == 0;
        suggest_add(&sg, p->name);
    }
    if (!known && suggest_result(&sg))
        return diag_error(d, KV_WHERE(st, kv), "unknown key '%s' for workload '%s'; did you mean %s?",
                          key, wl->name, suggest_result(&sg));
    const struct wl_param *p = wl_param_find(wl, key);
    /* A file named in the scenario is relative to the scenario's directory;
     * one given on the command line (--set, --grid), to the current one. */
    char *abs = NULL;
    if (kv->origin && p && p->type == WL_PARAM_FILE && value[0] && value[0] != '/') {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            value = abs = xasprintf("%s/%s", cwd, value);
    }
    int rc = wl_config_set(wl, cfg, key, value, KV_WHERE(st, kv), d);
    free(abs);
    if (rc != 0)
        return -1;
    const char *bad = NULL;
    char msg[200];
    if (p && p->type == WL_PARAM_CPU_VALUES &&
        wl_config_check_cpus(wl, cfg, st->s->machine->ncpus, &bad, msg, sizeof msg) != 0 &&
        strcmp(bad, key) == 0)
        return diag_error(d, KV_WHERE(st, kv), "%s of machine %s", msg, st->s->machine->name);
    return 0;
}

/* Whether kv is a line of a per-CPU workload list, which may go on over
 * continuation lines (a machine's worth of numbers). */
static bool scn_wl_list_key(const struct scenario *s, const char *key)
{
    const struct wl_param *p = wl_param_find(s->wl, key);
    return p && p->type == WL_PARAM_CPU_VALUES;
}

/* The value of st->kv[i] with the continuation lines that follow it. */
static char *scn_joined_value(const struct scn_parse *st, int i)
{
    char *text = NULL;
    scn_append(&text, st->kv[i].value);
    for (int k = i + 1; k < st->nkv && st->kv[k].continuation && st->kv[k].sec == st->kv[i].sec; k++)
        scn_append(&text, st->kv[k].value);
    return text;
}

/* Set workload key kv (st->kv[i]) of cfg, a per-CPU list with its
 * continuation lines; continuation lines themselves were taken with their
 * key and are skipped. */
static int scn_wl_set_kv(const struct scn_parse *st, void *cfg, int i, struct diag *d)
{
    const struct raw_kv *kv = &st->kv[i];
    if (!scn_wl_list_key(st->s, kv->key))
        return scn_no_continuation(kv, st->path, d) != 0 ? -1
                                                         : scn_wl_set(st, cfg, kv, kv->key, kv->value, d);
    if (kv->continuation)
        return 0;
    char *value = scn_joined_value(st, i);
    int rc = scn_wl_set(st, cfg, kv, kv->key, value, d);
    free(value);
    return rc;
}

static const char *const scn_scenario_keys[] = { "name", "description", "machine", "seed",
                                                 "replications" };

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
            return diag_error(d, KV_WHERE(st, kv), "name: '%s' is not a valid scenario name",
                              kv->value);
        return str_copy(s->name, sizeof s->name, kv->value);
    }
    if (strcmp(kv->key, "machine") == 0) {
        if (!scn_valid_name(kv->value) || strlen(kv->value) >= SCN_NAME_MAX)
            return diag_error(d, KV_WHERE(st, kv), "machine: '%s' is not a machine name",
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
    return scn_unknown_key(st, kv, "scenario", scn_scenario_keys, 5,
                           "name, description, machine, seed, replications", d);
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
                                            : scn_machine_search_path(st->path);
    char *path = hw_machine_find_path(s->machine_name, dirs);
    if (!path)
        diag_error(d, st->path, line, "unknown machine '%s' (looked for %s.ini in %s)",
                   s->machine_name, s->machine_name, dirs);
    else
        s->machine = hw_machine_load_with(path, st->machine_ov, st->nmachine_ov, d);
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
        return diag_error(d, KV_WHERE(st, kv), "affinity = %s: Invalid argument (%s)",
                          kv->value, msg);
    }
    free(s->wl_affinity);
    s->wl_affinity = mask;
    return 0;
}

/* The workload's checks of cfg against the machine; section sec (and its
 * line sec_line when the key is not in it) for the message. */
static int scn_wl_check_machine(struct scn_parse *st, const void *cfg, int sec, int sec_line,
                                const char *what, struct diag *d)
{
    const struct wl_ops *wl = st->s->wl;
    const char *key = NULL;
    char msg[400];
    if (!wl->check_machine || wl->check_machine(cfg, st->s->machine, &key, msg, sizeof msg) == 0)
        return 0;
    char *vkey = key ? xasprintf("workload.%s", key) : NULL; /* a variant's spelling */
    int line = key ? scn_key_line(st, sec, sec >= SEC_VARIANT0 ? vkey : key) : 0;
    free(vkey);
    if (!line && key && sec != SEC_WORKLOAD)
        line = scn_key_line(st, SEC_WORKLOAD, key);
    return diag_error(d, st->path, line ? line : sec_line, "%s%s: %s", what, key ? key : "workload",
                      msg);
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
            return diag_error(d, KV_WHERE(st, kv), "unknown workload type '%s'", kv->value);
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
        if (scn_wl_set_kv(st, s->wl_cfg, i, d) != 0)
            return -1;
    }
    char msg[200];
    if (s->wl->validate && s->wl->validate(s->wl_cfg, msg, sizeof msg) != 0)
        return diag_error(d, st->path, st->sec_line[SEC_WORKLOAD], "%s", msg);
    return scn_wl_check_machine(st, s->wl_cfg, SEC_WORKLOAD, st->sec_line[SEC_WORKLOAD], "", d);
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
        } else if (scn_wl_set_kv(st, s->wl_cfg_quick, i, d) != 0) {
            return -1;
        }
    }
    char msg[200];
    if (s->wl->validate && s->wl->validate(s->wl_cfg_quick, msg, sizeof msg) != 0)
        return diag_error(d, st->path, st->sec_line[SEC_QUICK], "[quick]: %s", msg);
    return scn_wl_check_machine(st, s->wl_cfg_quick, SEC_QUICK, st->sec_line[SEC_QUICK],
                                "[quick]: ", d);
}

static int scn_variant_patches(struct scn_parse *st, struct scenario_variant *v,
                               const struct raw_kv *kv, struct diag *d)
{
    char *copy = xstrdup(kv->value), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, " \t,", &save); tok && rc == 0;
         tok = strtok_r(NULL, " \t,", &save)) {
        if (!kpatch_find(tok)) {
            rc = diag_error(d, KV_WHERE(st, kv), "unknown patch '%s' (see 'pmlab params')", tok);
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
 * name=value, bare words) and hand each word to the registry. *after_dashes
 * carries a cmdline's "--" from one line (or piece of a long line) to the
 * next: the variant's cmdline lines are one command line. */
static int scn_variant_words(struct scn_parse *st, struct scenario_variant *v,
                             const struct raw_kv *kv, scn_knob_setter set, bool *after_dashes,
                             struct diag *d)
{
    struct cmdline c;
    char msg[200];
    bool before = *after_dashes;
    if (cmdline_split_more(kv->value, before, &c, msg, sizeof msg) != 0)
        return diag_error(d, KV_WHERE(st, kv), "%s: %s", kv->key, msg);
    int rc = 0;
    if (c.rest && set == kparams_set_cmdline) {
        if (c.rest[0])
            fprintf(stderr, "%s:%d: note: '%s%s' goes to init and is ignored\n",
                    KV_WHERE(st, kv), before ? "" : "-- ", c.rest);
        *after_dashes = true;
    } else if (c.rest) {
        rc = diag_error(d, KV_WHERE(st, kv), "%s: unexpected '--'", kv->key);
    }
    for (int i = 0; i < c.nargs && rc == 0; i++)
        rc = set(&v->kp, c.args[i].name, c.args[i].value, KV_WHERE(st, kv), d);
    cmdline_free(&c);
    return rc;
}

static int scn_variant_kernel(struct scn_parse *st, struct scenario_variant *v,
                              const struct raw_kv *kv, struct diag *d)
{
    if (scn_no_continuation(kv, st->path, d) != 0)
        return -1;
    if (kversion_parse(kv->value, &v->kp.kernel) != 0)
        return diag_error(d, KV_WHERE(st, kv), "kernel: '%s' is not a kernel version (e.g. 6.7)",
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
    bool after_dashes = false; /* a "--" in the cmdline so far */
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < st->nkv; i++) {
            const struct raw_kv *kv = &st->kv[i];
            if (kv->sec != SEC_VARIANT0 + vi || strcmp(kv->key, scn_variant_keys[k]) != 0)
                continue;
            scn_append(scn_variant_text(v, k), kv->value);
            bool never = false; /* sysfs and config have no "--" */
            int rc = k == 0   ? scn_variant_kernel(st, v, kv, d)
                     : k == 1 ? scn_variant_patches(st, v, kv, d)
                     : scn_variant_words(st, v, kv,
                                         k == 2 ? kparams_set_config
                                         : k == 3 ? kparams_set_cmdline
                                                  : kparams_set_sysfs,
                                         k == 3 ? &after_dashes : &never, d);
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
    if (uclamp_validate(&v->kp, st->path, d) != 0)
        return -1;
    return cpufreq_validate(st->s->machine, &v->kp, st->path, d);
}

/* A variant's workload.KEY lines: its own copies of the workload
 * configuration (full and quick, the variant's value winning over [quick]),
 * each checked as a whole. The type and the CPU affinity stay the
 * scenario's: they decide what runs, not how hard it is driven. */
static int scn_variant_workload(struct scn_parse *st, int vi, struct diag *d)
{
    struct scenario *s = st->s;
    struct scenario_variant *v = &s->variants[vi];
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_VARIANT0 + vi || strncmp(kv->key, "workload.", 9) != 0)
            continue;
        const char *key = kv->key + 9;
        if (strcmp(key, "type") == 0 || strcmp(key, "affinity") == 0)
            return diag_error(d, KV_WHERE(st, kv), "%s: a variant cannot change the workload's %s",
                              kv->key, key);
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        if (!v->wl_cfg) {
            v->wl_cfg = xmalloc(s->wl->config_size);
            v->wl_cfg_quick = xmalloc(s->wl->config_size);
            /* Counted copies: a file key set below replaces (and puts) the
             * scenario's file in the copy, not in the scenario. */
            wl_config_copy(s->wl, v->wl_cfg, s->wl_cfg);
            wl_config_copy(s->wl, v->wl_cfg_quick, s->wl_cfg_quick);
        }
        if (scn_wl_set(st, v->wl_cfg, kv, key, kv->value, d) != 0 ||
            scn_wl_set(st, v->wl_cfg_quick, kv, key, kv->value, d) != 0)
            return -1;
        char *pair = xasprintf("%s=%s", key, kv->value);
        scn_append(&v->workload, pair);
        free(pair);
    }
    if (v->wl_cfg && s->wl->nload_points &&
        s->wl->nload_points(v->wl_cfg) != s->wl->nload_points(s->wl_cfg))
        return diag_error(d, st->path, v->line, "[variant %s]: its workload keys change the "
                          "number of load points, which every variant shares", v->name);
    char msg[200];
    if (v->wl_cfg && s->wl->validate &&
        (s->wl->validate(v->wl_cfg, msg, sizeof msg) != 0 ||
         s->wl->validate(v->wl_cfg_quick, msg, sizeof msg) != 0))
        return diag_error(d, st->path, v->line, "[variant %s]: %s", v->name, msg);
    if (!v->wl_cfg)
        return 0;
    char *what = xasprintf("[variant %s]: ", v->name);
    int rc = scn_wl_check_machine(st, v->wl_cfg, SEC_VARIANT0 + vi, v->line, what, d);
    if (rc == 0)
        rc = scn_wl_check_machine(st, v->wl_cfg_quick, SEC_VARIANT0 + vi, v->line, what, d);
    free(what);
    return rc;
}

static int scn_check_variant_keys(struct scn_parse *st, struct diag *d)
{
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec < SEC_VARIANT0 || kv->sec >= SEC_VM0)
            continue;
        bool known = strncmp(kv->key, "workload.", 9) == 0;
        for (int k = 0; k < 5; k++)
            known |= strcmp(kv->key, scn_variant_keys[k]) == 0;
        if (!known)
            return scn_unknown_key(st, kv, "variant", scn_variant_keys, 5,
                                   "kernel, patches, cmdline, sysfs, config, workload.KEY", d);
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
        if (kv->sec < SEC_VM0 || kv->sec >= SEC_DEV0)
            continue;
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        struct kvm_vm_config *vm = &s->vms[kv->sec - SEC_VM0];
        if (kvm_vm_config_set(vm, kv->key, kv->value, msg, sizeof msg) != 0 ||
            (strcmp(kv->key, "iothread_affinity") == 0 &&
             kvm_vm_config_check_io_affinity(vm, s->machine, msg, sizeof msg) != 0))
            return diag_error(d, KV_WHERE(st, kv), "%s", msg);
    }
    for (int i = 0; i < s->nvms; i++)
        if (kvm_vm_config_check(&s->vms[i], s->machine, msg, sizeof msg) != 0)
            return diag_error(d, st->path, s->vms[i].line, "[vm %s]: %s", s->vms[i].name, msg);
    return 0;
}

/* Every [device] key against the machine, then each device complete. */
static int scn_devices(struct scn_parse *st, struct diag *d)
{
    struct scenario *s = st->s;
    char msg[300];
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec < SEC_DEV0)
            continue;
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        struct hw_device_config *dev = &s->devices[kv->sec - SEC_DEV0];
        if (hw_device_config_set(dev, s->machine, kv->key, kv->value, msg, sizeof msg) != 0)
            return diag_error(d, KV_WHERE(st, kv), "[device %s] %s", dev->name, msg);
    }
    for (int i = 0; i < s->ndevices; i++)
        if (hw_device_config_check(&s->devices[i], msg, sizeof msg) != 0)
            return diag_error(d, st->path, s->devices[i].line, "[device %s]: %s",
                              s->devices[i].name, msg);
    return 0;
}

/* [report] min_effect_CLASS_pct = P, the smallest change in % of the
 * baseline mean that a verdict reports (report/results.h). 1 when key is
 * not such a key, 0 when set, -1 on a bad value. */
static int scn_report_min_effect(struct scn_parse *st, const struct raw_kv *kv, struct diag *d)
{
    static const char prefix[] = "min_effect_", suffix[] = "_pct";
    size_t len = strlen(kv->key), plen = sizeof prefix - 1, slen = sizeof suffix - 1;
    if (len <= plen + slen || strncmp(kv->key, prefix, plen) != 0 ||
        strcmp(kv->key + len - slen, suffix) != 0)
        return 1;
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(len - plen - slen), kv->key + plen);
    int c = rpt_effect_class_find(name);
    if (c < 0)
        return 1;
    double pct;
    if (str_to_double(kv->value, &pct) != 0 || pct < 0 || pct >= 100)
        return diag_error(d, KV_WHERE(st, kv), "%s: expected a percentage of the baseline mean, "
                          ">= 0 and < 100, got '%s'", kv->key, kv->value);
    st->s->min_effect.pct[c] = pct;
    return 0;
}

/* [report] trace, trace_window, trace_max_mib: 1 when kv is none of them,
 * 0 when it was one, -1 on a bad value. */
static int scn_report_trace(struct scn_parse *st, const struct raw_kv *kv, struct diag *d)
{
    struct scenario *s = st->s;
    if (strcmp(kv->key, "trace") == 0) {
        if (!kv->value[0])
            return diag_error(d, KV_WHERE(st, kv), "trace: expected a directory");
        free(s->report_trace_dir);
        s->report_trace_dir = xstrdup(kv->value);
        return 0;
    }
    if (strcmp(kv->key, "trace_window") == 0) {
        if (trace_window_parse(kv->value, s->report_trace_window_ms) != 0)
            return diag_error(d, KV_WHERE(st, kv), "trace_window: expected START:END in ms "
                              "from the measurement's start (END > START, or empty for the "
                              "end of the run), got '%s'", kv->value);
        return 0;
    }
    if (strcmp(kv->key, "trace_max_mib") == 0) {
        int64_t v;
        if (str_to_i64(kv->value, &v) != 0 || v < 1 || v > 65536)
            return diag_error(d, KV_WHERE(st, kv), "trace_max_mib: expected an integer in "
                              "[1, 65536], got '%s'", kv->value);
        s->report_trace_max_mib = v;
        return 0;
    }
    return 1;
}

/* [report] cpus = LIST (scenario_set_report_cpus), min_effect_CLASS_pct,
 * and the trace keys. */
static int scn_report(struct scn_parse *st, struct diag *d)
{
    char msg[200];
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_REPORT)
            continue;
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        int rc = scn_report_min_effect(st, kv, d);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        rc = scn_report_trace(st, kv, d);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (strcmp(kv->key, "cpus") != 0)
            return diag_error(d, KV_WHERE(st, kv), "unknown key '%s' in [report] (cpus, "
                              "min_effect_power_pct, min_effect_throughput_pct, "
                              "min_effect_latency_pct, min_effect_other_pct, trace, "
                              "trace_window, trace_max_mib)", kv->key);
        if (scenario_set_report_cpus(st->s, kv->value, msg, sizeof msg) != 0)
            return diag_error(d, KV_WHERE(st, kv), "cpus: %s", msg);
    }
    return 0;
}

/* [measured] METRIC = NUMBER: what a real host measured (pmlab import
 * writes it), kept for whoever holds a run against it; runs ignore it. */
static int scn_measured(struct scn_parse *st, struct diag *d)
{
    struct scenario *s = st->s;
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec != SEC_MEASURED)
            continue;
        if (scn_no_continuation(kv, st->path, d) != 0)
            return -1;
        double v;
        if (!scn_valid_name(kv->key) || strlen(kv->key) >= RPT_NAME_MAX)
            return diag_error(d, KV_WHERE(st, kv), "[measured]: '%s' is not a metric name",
                              kv->key);
        if (str_to_double(kv->value, &v) != 0)
            return diag_error(d, KV_WHERE(st, kv), "[measured] %s: expected a number, got '%s'",
                              kv->key, kv->value);
        s->measured = xreallocarray(s->measured, (size_t)s->nmeasured + 1, sizeof *s->measured);
        struct scenario_measured *m = &s->measured[s->nmeasured++];
        snprintf(m->metric, sizeof m->metric, "%s", kv->key);
        m->value = v;
        m->line = kv->line;
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
        scn_vms(st, d) != 0 || scn_devices(st, d) != 0 || scn_report(st, d) != 0 || scn_measured(st, d) != 0 ||
        scn_workload(st, d) != 0 || scn_quick(st, d) != 0)
        return -1;
    if (s->nvariants == 0)
        return diag_error(d, st->path, 0, "no [variant NAME] section: nothing to run");
    for (int v = 0; v < s->nvariants; v++)
        if (scn_variant_apply(st, v, d) != 0 || scn_variant_workload(st, v, d) != 0)
            return -1;
    return 0;
}

/* The name of section sec as a --set names it: "workload", "vm NAME". */
static char *scn_section_name(const struct scn_parse *st, int sec)
{
    static const char *const fixed[SEC_VARIANT0] = { "scenario", "workload", "quick", "report",
                                                     "sweep", "measured" };
    if (sec < SEC_VARIANT0)
        return xstrdup(fixed[sec]);
    if (sec < SEC_VM0)
        return xasprintf("variant %s", st->s->variants[sec - SEC_VARIANT0].name);
    if (sec < SEC_DEV0)
        return xasprintf("vm %s", st->s->vms[sec - SEC_VM0].name);
    return xasprintf("device %s", st->s->devices[sec - SEC_DEV0].name);
}

/* text += "PREFIXKEY = VALUE\n" ("+=" for a continuation line). */
static void scn_config_line(char **text, const char *prefix, const struct raw_kv *kv)
{
    char *next = xasprintf("%s%s%s %s %s\n", *text ? *text : "", prefix, kv->key,
                           kv->continuation ? "+=" : "=", kv->value);
    free(*text);
    *text = next;
}

static bool scn_config_shared(const struct raw_kv *kv)
{
    if (kv->sec < 0 || kv->sec == SEC_SWEEP || (kv->sec >= SEC_VARIANT0 && kv->sec < SEC_VM0))
        return false;
    /* Where a trace goes changes no result. */
    if (kv->sec == SEC_REPORT && strncmp(kv->key, "trace", 5) == 0)
        return false;
    return !(kv->sec == SEC_SCENARIO &&
             (strcmp(kv->key, "seed") == 0 || strcmp(kv->key, "replications") == 0));
}

/* text += "WHAT N sha256 = HEX\n" for each of what's files: their contents,
 * not their paths (the keys naming them are lines of their own), so that a
 * run from another directory records the same configuration. */
static void scn_config_files(char **text, const char *what, const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        char hex[65];
        sha256_file_hex(paths[i], hex);
        char *next = xasprintf("%s%s %d sha256 = %s\n", *text, what, i + 1, hex);
        free(*text);
        *text = next;
    }
}

/* s->config_text, its hash, s->sets and every variant's config_text (see
 * scenario_load). */
static void scn_record_config(struct scn_parse *st, const struct scenario_load_opts *opts)
{
    struct scenario *s = st->s;
    char *text = xstrdup("");
    for (int i = 0; i < st->nkv; i++) {
        const struct raw_kv *kv = &st->kv[i];
        if (kv->sec >= SEC_VARIANT0 && kv->sec < SEC_VM0)
            scn_config_line(&s->variants[kv->sec - SEC_VARIANT0].config_text, "", kv);
        if (!scn_config_shared(kv))
            continue;
        char *sec = scn_section_name(st, kv->sec), *prefix = xasprintf("%s.", sec);
        scn_config_line(&text, prefix, kv);
        free(prefix);
        free(sec);
    }
    for (int i = 0; i < st->nmachine_ov; i++) {
        const struct hw_machine_override *o = &st->machine_ov[i];
        char *next = xasprintf("%smachine.%s.%s = %s\n", text, o->section, o->key, o->value);
        free(text);
        text = next;
    }
    const char *machine_path = s->machine->path;
    scn_config_files(&text, "machine file", &machine_path, 1);
    for (int quick = 0; quick < 2; quick++) {
        const char *paths[SCN_MAX_INPUTS];
        int n = wl_config_files(s->wl, quick ? s->wl_cfg_quick : s->wl_cfg, paths, SCN_MAX_INPUTS);
        scn_config_files(&text, quick ? "quick input" : "input", paths, n);
    }
    s->config_text = text;
    sha256_text_hex(text, strlen(text), s->config_sha256);
    s->nsets = opts ? opts->nsets : 0;
    s->sets = xcalloc((size_t)s->nsets + 1, sizeof *s->sets);
    for (int i = 0; i < s->nsets; i++)
        s->sets[i] = xstrdup(opts->sets[i]);
}

/* --set: the sections a SECTION.KEY may name. */
static const char *const scn_set_sections[] = { "scenario", "workload", "quick", "report",
                                                "sweep", "variant", "vm", "machine" };

/* Remove every earlier value of (sec, key): a --set replaces them. */
static void scn_drop_key(struct scn_parse *st, int sec, const char *key)
{
    for (int i = 0; i < st->nkv; i++)
        if (st->kv[i].sec == sec && strcmp(st->kv[i].key, key) == 0)
            st->kv[i].sec = -1;
}

/* Add key = value to section sec, from the --set text origin. */
static void scn_add_set(struct scn_parse *st, int sec, const char *key, const char *value,
                        const char *origin)
{
    /* A variant's words add to its lines (the last value wins, as on a
     * kernel command line); every other key has one value: the new one. */
    bool adds = sec >= SEC_VARIANT0 && sec < SEC_VM0 &&
                (strcmp(key, "cmdline") == 0 || strcmp(key, "sysfs") == 0 ||
                 strcmp(key, "config") == 0 || strcmp(key, "patches") == 0);
    if (!adds)
        scn_drop_key(st, sec, key);
    st->kv = xreallocarray(st->kv, (size_t)st->nkv + 1, sizeof *st->kv);
    st->kv[st->nkv++] = (struct raw_kv){
        .sec = sec, .key = xstrdup(key), .value = xstrdup(value), .origin = origin,
    };
}

/* The variant or VM (names[i], stride bytes apart) that text names after
 * its "variant." prefix, up to the '.' before its key: the longest match,
 * since names may contain dots. -1 when none does; *key then points past
 * the name. */
static int scn_set_named(const char *text, const char *first_name, size_t stride, int n,
                         const char **key)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < n; i++) {
        const char *name = first_name + (size_t)i * stride;
        size_t len = strlen(name);
        if (strncmp(text, name, len) == 0 && text[len] == '.' && len > best_len) {
            best = i;
            best_len = len;
        }
    }
    *key = best >= 0 ? text + best_len + 1 : NULL;
    return best;
}

/* "no variant X" naming the nearest one. */
static int scn_set_no_such(const char *origin, const char *what, const char *text,
                           const char *first_name, size_t stride, int n, struct diag *d)
{
    size_t len = strcspn(text, ".");
    char *typed = xasprintf("%.*s", (int)len, text);
    struct suggest sg;
    suggest_init(&sg, typed);
    for (int i = 0; i < n; i++)
        suggest_add(&sg, first_name + (size_t)i * stride);
    if (suggest_result(&sg))
        diag_error(d, origin, 0, "no %s '%s'; did you mean %s?", what, typed, suggest_result(&sg));
    else
        diag_error(d, origin, 0, "no %s '%s' in the scenario", what, typed);
    free(typed);
    return -1;
}

/* A --set naming a variant (or every variant, variant.*). */
static int scn_set_variant(struct scn_parse *st, const char *origin, const char *rest,
                           const char *value, struct diag *d)
{
    struct scenario *s = st->s;
    const char *key;
    int vi = -2;
    if (strncmp(rest, "*.", 2) == 0)
        key = rest + 2;
    else if ((vi = scn_set_named(rest, s->nvariants ? s->variants[0].name : "",
                                 sizeof *s->variants, s->nvariants, &key)) < 0)
        return scn_set_no_such(origin, "variant", rest, s->nvariants ? s->variants[0].name : "",
                               sizeof *s->variants, s->nvariants, d);
    if (!*key)
        return diag_error(d, origin, 0, "expected variant.NAME.KEY=VALUE");
    for (int i = 0; i < s->nvariants; i++)
        if (vi == -2 || vi == i)
            scn_add_set(st, SEC_VARIANT0 + i, key, value, origin);
    return 0;
}

static int scn_set_vm(struct scn_parse *st, const char *origin, const char *rest,
                      const char *value, struct diag *d)
{
    struct scenario *s = st->s;
    const char *key;
    int i = scn_set_named(rest, s->nvms ? s->vms[0].name : "", sizeof *s->vms, s->nvms, &key);
    if (i < 0)
        return scn_set_no_such(origin, "vm", rest, s->nvms ? s->vms[0].name : "", sizeof *s->vms,
                               s->nvms, d);
    if (!*key)
        return diag_error(d, origin, 0, "expected vm.NAME.KEY=VALUE");
    scn_add_set(st, SEC_VM0 + i, key, value, origin);
    return 0;
}

/* --set machine.SECTION.KEY=VALUE: a key of the machine file, SECTION its
 * header's words joined by '.' or blanks (machine.cstate.P.C6.exit_latency_us,
 * machine.rapl.pl1_w); checked when the machine is loaded. */
static int scn_set_machine(struct scn_parse *st, const char *origin, const char *rest,
                           const char *value, struct diag *d)
{
    const char *dot = strrchr(rest, '.');
    if (!dot || dot == rest || !dot[1])
        return diag_error(d, origin, 0, "expected machine.SECTION.KEY=VALUE with SECTION a "
                          "machine-file header, e.g. machine.cstate.P.C6.exit_latency_us=200 "
                          "or machine.rapl.pl1_w=35");
    char *section = xasprintf("%.*s", (int)(dot - rest), rest);
    char *out = section;
    for (const char *p = section; *p; p++) { /* words single-spaced */
        bool sep = *p == '.' || *p == ' ' || *p == '\t';
        if (!sep)
            *out++ = *p;
        else if (out > section && out[-1] != ' ')
            *out++ = ' ';
    }
    while (out > section && out[-1] == ' ')
        out--;
    *out = '\0';
    st->machine_ov = xreallocarray(st->machine_ov, (size_t)st->nmachine_ov + 1,
                                   sizeof *st->machine_ov);
    st->machine_ov[st->nmachine_ov++] = (struct hw_machine_override){
        .section = section, .key = xstrdup(dot + 1), .value = xstrdup(value), .origin = origin,
    };
    return 0;
}

/* One --set SECTION.KEY=VALUE (scenario_load_opts.sets). */
static int scn_apply_set(struct scn_parse *st, const char *text, const char *label,
                         struct diag *d)
{
    st->origins = xreallocarray(st->origins, (size_t)st->norigins + 1, sizeof *st->origins);
    const char *origin = st->origins[st->norigins++] =
        label ? xstrdup(label) : xasprintf("--set %s", text);
    const char *eq = strchr(text, '=');
    size_t sec_len = strcspn(text, ".=");
    if (!eq || text[sec_len] != '.' || sec_len == 0 || text + sec_len + 1 >= eq)
        return diag_error(d, label ? label : "--set", 0,
                          "'%s': expected SECTION.KEY=VALUE (e.g. workload.load=0.5)", text);
    char *lhs = xasprintf("%.*s", (int)(eq - text), text);
    char *section = xasprintf("%.*s", (int)sec_len, text);
    const char *rest = lhs + sec_len + 1, *value = eq + 1;
    int rc = 0;
    if (strcmp(section, "variant") == 0) {
        rc = scn_set_variant(st, origin, rest, value, d);
    } else if (strcmp(section, "vm") == 0) {
        rc = scn_set_vm(st, origin, rest, value, d);
    } else if (strcmp(section, "sweep") == 0) {
        rc = diag_error(d, origin, 0, "[sweep] is the grid of 'pmlab sweep' (--grid KEY=V1,V2)");
    } else if (strcmp(section, "machine") == 0) {
        rc = scn_set_machine(st, origin, rest, value, d);
    } else {
        int sec = -1;
        for (int i = 0; i < SEC_VARIANT0; i++)
            if (strcmp(section, scn_set_sections[i]) == 0)
                sec = i;
        if (sec >= 0) {
            scn_add_set(st, sec, rest, value, origin);
        } else {
            struct suggest sg;
            suggest_init(&sg, section);
            for (size_t i = 0; i < sizeof scn_set_sections / sizeof *scn_set_sections; i++)
                suggest_add(&sg, scn_set_sections[i]);
            rc = suggest_result(&sg)
                     ? diag_error(d, origin, 0, "unknown section '%s'; did you mean %s?", section,
                                  suggest_result(&sg))
                     : diag_error(d, origin, 0, "unknown section '%s' (scenario, workload, quick, "
                                  "report, variant.NAME, vm.NAME, machine.SECTION)", section);
        }
    }
    free(section);
    free(lhs);
    return rc;
}

static int scn_apply_sets(struct scn_parse *st, const struct scenario_load_opts *opts,
                          struct diag *d)
{
    for (int i = 0; opts && i < opts->nsets; i++)
        if (scn_apply_set(st, opts->sets[i], opts->set_labels ? opts->set_labels[i] : NULL,
                          d) != 0)
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
    s->min_effect = rpt_min_effect_default;
    s->report_trace_window_ms[1] = -1;
    struct scn_parse st = { .s = s, .path = path, .cur_sec = -1 };
    static const struct inifile_ops ops = { .section = scn_on_section, .key = scn_on_key };
    int rc = inifile_parse(path, &ops, &st, d);
    if (rc == 0)
        rc = scn_apply_sets(&st, opts, d);
    if (rc == 0)
        rc = scn_interpret(&st, opts, d);
    if (rc == 0)
        scn_record_config(&st, opts);
    for (int i = 0; i < st.nkv; i++) {
        free(st.kv[i].key);
        free(st.kv[i].value);
    }
    free(st.kv);
    for (int i = 0; i < st.norigins; i++)
        free(st.origins[i]);
    free(st.origins);
    for (int i = 0; i < st.nmachine_ov; i++) {
        free((char *)st.machine_ov[i].section);
        free((char *)st.machine_ov[i].key);
        free((char *)st.machine_ov[i].value);
    }
    free(st.machine_ov);
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

const void *scenario_wl_cfg(const struct scenario *s, int v, bool quick)
{
    const struct scenario_variant *sv = &s->variants[v];
    if (sv->wl_cfg)
        return quick ? sv->wl_cfg_quick : sv->wl_cfg;
    return quick ? s->wl_cfg_quick : s->wl_cfg;
}

int scenario_input_files(const struct scenario *s, struct scenario_inputs *in)
{
    in->n = 0;
    in->path[in->n] = s->path;
    in->what[in->n++] = "the scenario";
    if (s->machine) {
        in->path[in->n] = s->machine->path;
        in->what[in->n++] = "the machine file";
    }
    for (int v = -1; v < s->nvariants; v++)
        for (int quick = 0; quick < 2; quick++) {
            const struct scenario_variant *sv = v < 0 ? NULL : &s->variants[v];
            const void *cfg = sv ? (quick ? sv->wl_cfg_quick : sv->wl_cfg)
                                 : (quick ? s->wl_cfg_quick : s->wl_cfg);
            int first = in->n;
            if (cfg)
                in->n += wl_config_files(s->wl, cfg, in->path + in->n, SCN_MAX_INPUTS - in->n);
            for (int i = first; i < in->n; i++)
                in->what[i] = "the workload's input file";
        }
    return in->n;
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
        free(v->workload);
        if (s->wl && v->wl_cfg)
            wl_config_release(s->wl, v->wl_cfg);
        if (s->wl && v->wl_cfg_quick)
            wl_config_release(s->wl, v->wl_cfg_quick);
        free(v->wl_cfg);
        free(v->wl_cfg_quick);
        free(v->config_text);
        kparams_destroy(&v->kp);
    }
    free(s->variants);
    free(s->report_trace_dir);
    free(s->measured);
    free(s->vms);
    free(s->devices);
    free(s->report_cpus);
    free(s->wl_affinity);
    free(s->description);
    free(s->config_text);
    for (int i = 0; i < s->nsets; i++)
        free(s->sets[i]);
    free(s->sets);
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
