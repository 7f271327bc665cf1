/* params: knob registry lookup, value parsing and per-variant settings.
 * See params.h for the model: declared once, validated on input, applied in
 * order. */
#include "kernel/params.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/xalloc.h"

extern const struct kparam cpuidle_core_params[];
extern const struct kparam pm_qos_params[];
extern const struct kparam x86_idle_params[];
extern const struct kparam tick_params[];
extern const struct kparam intel_idle_params[];
extern const struct kparam x86_bugs_params[];
extern const struct kparam cpufreq_params[];
extern const struct kparam kvm_params[];
extern const struct kparam acpi_cppc_params[];
extern const struct kparam itmt_params[];
extern const struct kparam acpi_processor_idle_params[];
extern const struct kparam sched_params[];
extern const struct kparam isolation_params[];
extern const struct kparam rcu_params[];

/* Every subsystem's table; a new subsystem adds its table here. */
const struct kparam *const kparam_tables[] = {
    cpuidle_core_params,
    pm_qos_params,
    x86_idle_params,
    tick_params,
    intel_idle_params,
    x86_bugs_params,
    cpufreq_params,
    kvm_params,
    acpi_cppc_params,
    itmt_params,
    acpi_processor_idle_params,
    sched_params,
    isolation_params,
    rcu_params,
    NULL,
};

/* Named patches. Each later subsystem that models an unmerged change adds it. */
const struct kpatch kpatch_table[] = {
    { "kvm-powersave-nopoll",
      "KVM: no halt polling when the vCPU's host CPU runs a powersave policy "
      "(D. Mi, kvm list 15 Sep 2022; not merged; FACTS.md section 4)" },
    { "acpi-ignore-osc-cppc-bit",
      "ACPI: early parameter ignore_osc_cppc_bit probes _CPC without the _OSC CPPC v2 ack "
      "(A. Rainbolt V3, linux-acpi 18 Jun 2024; not merged; FACTS.md section 6)" },
    { NULL, NULL },
};

const struct kpatch *kpatch_find(const char *name)
{
    for (const struct kpatch *p = kpatch_table; p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

/* Compare parameter names as the kernel's parameq() does: '-' equals '_'. */
static bool kparam_name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = *a == '-' ? '_' : *a;
        char cb = *b == '-' ? '_' : *b;
        if (ca != cb)
            return false;
    }
    return *a == *b;
}

const struct kparam *kparam_find(const char *name)
{
    for (const struct kparam *const *t = kparam_tables; *t; t++)
        for (const struct kparam *p = *t; p->name; p++)
            if (kparam_name_eq(p->name, name))
                return p;
    return NULL;
}

/* Match one path segment against a pattern segment that may hold a single
 * placeholder ("cpu{cpu}", "state{state}"); the matched text goes to out. */
static bool sysfs_segment_match(const char *pat, size_t patlen, const char *seg, size_t seglen,
                                char *out, size_t outsize)
{
    const char *brace = memchr(pat, '{', patlen);
    if (!brace)
        return patlen == seglen && memcmp(pat, seg, seglen) == 0;
    size_t prefix = (size_t)(brace - pat);
    if (seglen <= prefix || memcmp(pat, seg, prefix) != 0)
        return false;
    size_t n = seglen - prefix;
    if (n >= outsize)
        return false;
    memcpy(out, seg + prefix, n);
    out[n] = '\0';
    return true;
}

/* Whether the first len bytes of seg contain needle. */
static bool sysfs_segment_has(const char *seg, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(seg + i, needle, n) == 0)
            return true;
    return false;
}

/* Match a concrete user path against a registry pattern, segment by segment. */
static bool sysfs_path_match(const char *pattern, const char *path, char *cpu_glob,
                             size_t cpu_glob_size, char *state_text, size_t state_size)
{
    while (*pattern && *path) {
        const char *pe = strchr(pattern, '/'), *se = strchr(path, '/');
        size_t pl = pe ? (size_t)(pe - pattern) : strlen(pattern);
        size_t sl = se ? (size_t)(se - path) : strlen(path);
        bool is_state = sysfs_segment_has(pattern, pl, "{state}");
        char *out = is_state ? state_text : cpu_glob;
        size_t outsize = is_state ? state_size : cpu_glob_size;
        if (!sysfs_segment_match(pattern, pl, path, sl, out, outsize))
            return false;
        pattern += pl + (pe ? 1 : 0);
        path += sl + (se ? 1 : 0);
        if (!pe != !se)
            return false;
    }
    return *pattern == '\0' && *path == '\0';
}

const struct kparam *kparam_find_sysfs(const char *path, char *cpu_glob, size_t cpu_glob_size,
                                       int *state)
{
    for (const struct kparam *const *t = kparam_tables; *t; t++) {
        for (const struct kparam *p = *t; p->name; p++) {
            char state_text[16] = "";
            if (!p->sysfs)
                continue;
            str_copy(cpu_glob, cpu_glob_size, "*");
            if (!sysfs_path_match(p->sysfs, path, cpu_glob, cpu_glob_size, state_text,
                                  sizeof state_text))
                continue;
            int64_t s = -1;
            if (state_text[0] && (str_to_i64(state_text, &s) != 0 || s < 0 || s > 9))
                return NULL;
            *state = (int)s;
            return p;
        }
    }
    return NULL;
}

static void kparam_choices_text(const struct kparam *p, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *const *c = p->choices; *c && used < size; c++) {
        if (!**c)
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", *c);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* The flags of a CPU-list knob before its list ("domain,managed_irq,"), as
 * housekeeping_isolcpus_setup reads them: a word of letters and '_' then a
 * comma. Returns the list's start, or NULL with msg set for a flag not in
 * choices (the kernel skips an unknown word of letters with an info line
 * and refuses the parameter for other characters: pmlab refuses both). */
static const char *kparam_cpulist_flags(const struct kparam *p, const char *text, char *msg,
                                        size_t msgsize)
{
    while (p->choices && ((*text >= 'a' && *text <= 'z') || (*text >= 'A' && *text <= 'Z'))) {
        size_t n = strcspn(text, ",");
        bool known = false;
        for (const char *const *c = p->choices; *c && !known; c++)
            known = strlen(*c) == n && strncmp(*c, text, n) == 0;
        if (!known || text[n] != ',') {
            char choices[160];
            kparam_choices_text(p, choices, sizeof choices);
            snprintf(msg, msgsize, "'%.*s' is not a flag (%s) followed by ','", (int)n, text,
                     choices);
            return NULL;
        }
        text += n + 1;
    }
    return text;
}

int kparam_parse_cpulist(const struct kparam *p, const char *text, int ncpus, bool *mask,
                         char *msg, size_t msgsize)
{
    const char *list = kparam_cpulist_flags(p, text, msg, msgsize);
    if (!list)
        return -1;
    bool *m = mask ? mask : xcalloc((size_t)ncpus, sizeof *m);
    int rc = cpulist_parse(list, ncpus, m, msg, msgsize);
    if (m != mask)
        free(m);
    return rc;
}

int kparam_parse_value(const struct kparam *p, const char *text, int64_t *out, char *msg,
                       size_t msgsize)
{
    if (p->parse_special && p->parse_special(text, out) == 0)
        return 0;
    switch (p->type) {
    case KPARAM_BOOL: {
        bool b;
        if (str_to_bool(text, &b) != 0) {
            snprintf(msg, msgsize, "expected a boolean (1/0, y/n, on/off), got '%s'", text);
            return -1;
        }
        *out = b;
        return 0;
    }
    case KPARAM_INT:
        if (str_to_i64(text, out) != 0) {
            snprintf(msg, msgsize, "expected an integer, got '%s'", text);
            return -1;
        }
        if (*out < p->min || *out > p->max) {
            snprintf(msg, msgsize, "%s out of range [%" PRId64 ", %" PRId64 "]", text, p->min,
                     p->max);
            return -1;
        }
        return 0;
    case KPARAM_ENUM:
        for (int i = 0; p->choices[i]; i++) {
            /* An empty choice stands for "not given" and cannot be typed. */
            if (p->choices[i][0] && strcmp(p->choices[i], text) == 0) {
                *out = i;
                return 0;
            }
        }
        char choices[160];
        kparam_choices_text(p, choices, sizeof choices);
        snprintf(msg, msgsize, "'%s' is not one of: %s", text, choices);
        return -1;
    case KPARAM_CPULIST:
        return kparam_parse_cpulist(p, text, KPARAM_CPULIST_SYNTAX_NCPUS, NULL, msg, msgsize);
    }
    snprintf(msg, msgsize, "unsupported knob type");
    return -1;
}

int64_t kparam_default(const struct kparam *p)
{
    int64_t v = 0;
    char msg[8];
    if (p->type == KPARAM_CPULIST)
        return 0;   /* not set: no list */
    /* An enum default may be the untypeable "not given" choice. */
    for (int i = 0; p->type == KPARAM_ENUM && p->choices[i]; i++)
        if (strcmp(p->choices[i], p->def) == 0)
            return i;
    /* Defaults are part of the registry and checked by a unit test, so a
     * failure here is a programming error. */
    if (kparam_parse_value(p, p->def, &v, msg, sizeof msg) != 0)
        abort();
    return v;
}

void kparams_init(struct kparams *kp)
{
    memset(kp, 0, sizeof *kp);
    kversion_parse(KVERSION_DEFAULT, &kp->kernel);
}

void kparams_destroy(struct kparams *kp)
{
    for (int i = 0; i < kp->npatches; i++)
        free(kp->patches[i]);
    free(kp->patches);
    for (int i = 0; i < kp->nset; i++)
        free(kp->set[i].text);
    free(kp->set);
    for (int i = 0; i < kp->nwarnings; i++)
        free(kp->warnings[i]);
    free(kp->warnings);
    memset(kp, 0, sizeof *kp);
}

bool kparams_has_patch(const struct kparams *kp, const char *patch)
{
    for (int i = 0; i < kp->npatches; i++)
        if (strcmp(kp->patches[i], patch) == 0)
            return true;
    return false;
}

/* Checks shared by every way of setting a knob: kernel version and patch. */
/* Why p does not exist in this variant's kernel, or NULL if it does. */
static const char *kparams_missing(const struct kparams *kp, const struct kparam *p, char *buf,
                                   size_t size)
{
    char kv[32];
    kversion_format(&kp->kernel, kv, sizeof kv);
    if (!kversion_at_least(&kp->kernel, p->since)) {
        snprintf(buf, size, "not in kernel %s (added in %s)", kv, p->since);
        return buf;
    }
    if (p->patch && !kparams_has_patch(kp, p->patch)) {
        snprintf(buf, size, "exists only with 'patches = %s'", p->patch);
        return buf;
    }
    return NULL;
}

/* What the kernel logs for a boot parameter nobody claims: a built-in
 * module's parameter is "MODULE: unknown parameter 'NAME' ignored"; any other
 * word goes to init as an argument or environment variable. */
static void kparams_warn_missing(struct kparams *kp, const char *word, const char *why,
                                 const char *file, int line)
{
    char msg[512];
    const char *dot = strchr(word, '.');
    if (dot)
        snprintf(msg, sizeof msg,
                 "%s:%d: warning: %s: %s; the kernel logs \"%.*s: unknown parameter '%s' "
                 "ignored\" and boots without it", file, line, word, why, (int)(dot - word), word,
                 dot + 1);
    else
        snprintf(msg, sizeof msg,
                 "%s:%d: warning: %s: %s; the kernel logs \"Unknown kernel command line "
                 "parameters \\\"%s\\\", will be passed to user space.\" and boots without it",
                 file, line, word, why, word);
    kp->warnings = xreallocarray(kp->warnings, (size_t)kp->nwarnings + 1, sizeof *kp->warnings);
    kp->warnings[kp->nwarnings++] = xstrdup(msg);
}

static void kparams_add_warning(struct kparams *kp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void kparams_add_warning(struct kparams *kp, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, again);
    va_end(again);
    va_end(ap);
    kp->warnings = xreallocarray(kp->warnings, (size_t)kp->nwarnings + 1, sizeof *kp->warnings);
    kp->warnings[kp->nwarnings++] = msg;
}

/* Whether pmlab models module mod (len bytes): some registered command-line
 * parameter is named "mod.PARAM". */
static bool kparams_module_modelled(const char *mod, size_t len)
{
    for (const struct kparam *const *t = kparam_tables; *t; t++)
        for (const struct kparam *p = *t; p->name; p++)
            if ((p->sources & KPARAM_SRC_CMDLINE) && strncmp(p->name, mod, len) == 0 &&
                p->name[len] == '.')
                return true;
    return false;
}

/* The nearest modelled command-line parameter to name: of module mod
 * (modlen bytes) when mod is not NULL, else those without a module; NULL
 * when none is within a typo's distance. */
static const char *kparams_nearest_modelled(const char *name, const char *mod, size_t modlen)
{
    struct suggest s;
    suggest_init(&s, name);
    for (const struct kparam *const *t = kparam_tables; *t; t++)
        for (const struct kparam *p = *t; p->name; p++)
            if ((p->sources & KPARAM_SRC_CMDLINE) &&
                (mod ? strncmp(p->name, mod, modlen) == 0 && p->name[modlen] == '.'
                     : !strchr(p->name, '.')))
                suggest_add(&s, p->name);
    return suggest_result(&s);
}

/* The nearest real parameter (modelled or not) to a word without a module. */
static const char *kparams_nearest_known(const char *name)
{
    struct suggest s;
    suggest_init(&s, name);
    for (const struct kparam *const *t = kparam_tables; *t; t++)
        for (const struct kparam *p = *t; p->name; p++)
            if ((p->sources & KPARAM_SRC_CMDLINE) && !strchr(p->name, '.'))
                suggest_add(&s, p->name);
    kparam_unmodelled_suggest(&s);
    kparam_vocab_suggest(&s, NULL, 0);
    return suggest_result(&s);
}

/* A command-line word no registered knob claims: a note or the kernel's
 * warning for what the kernel knows or would pass on, an error for a typo
 * of a modelled knob (see kparams_set_cmdline). */
static int kparams_unknown_cmdline(struct kparams *kp, const char *name, const char *value,
                                   const char *file, int line, struct diag *d)
{
    const char *eq = value ? "=" : "", *val = value ? value : "";
    const char *what = kparam_unmodelled(name);
    const char *dot = strchr(name, '.');
    int modlen = dot ? (int)(dot - name) : 0;
    if (what) {
        kparams_add_warning(kp, "%s:%d: note: %s%s%s: %s: not modelled by pmlab, ignored", file,
                            line, name, eq, val, what);
        return 0;
    }
    if (kparam_vocab_known(name)) {
        kparams_add_warning(kp, "%s:%d: note: %s%s%s: a kernel parameter, known but not "
                            "modelled by pmlab; ignored", file, line, name, eq, val);
        return 0;
    }
    if (dot && !kparams_module_modelled(name, (size_t)modlen)) {
        kparams_add_warning(kp, "%s:%d: note: %s%s%s: a parameter of module %.*s, which pmlab "
                            "does not model; ignored", file, line, name, eq, val, modlen, name);
        return 0;
    }
    if (dot) {
        /* A module pmlab models has no such parameter: a typo, whose
         * setting would silently not happen (the kernel only logs it). */
        const char *hint = kparams_nearest_modelled(name, name, (size_t)modlen);
        return diag_error(d, file, line, "%s%s%s: module %.*s has no parameter '%s'%s%s%s "
                          "(see 'pmlab params')", name, eq, val, modlen, name, dot + 1,
                          hint ? "; did you mean " : "", hint ? hint : "", hint ? "?" : "");
    }
    const char *hint = kparams_nearest_known(name);
    if (hint && kparams_nearest_modelled(name, NULL, 0) == hint)
        return diag_error(d, file, line, "%s%s%s: unknown kernel parameter; did you mean %s? "
                          "(the kernel would pass it to init and boot without it)", name, eq,
                          val, hint);
    kparams_add_warning(kp, "%s:%d: warning: %s%s%s: the kernel logs \"Unknown kernel "
                        "command line parameters \\\"%s%s%s\\\", will be passed to user "
                        "space.\" and boots without it%s%s%s", file, line, name, eq, val,
                        name, eq, val, hint ? "; did you mean " : "", hint ? hint : "",
                        hint ? "?" : "");
    return 0;
}

static int kparams_append(struct kparams *kp, const struct kparam *p, enum kparam_source src,
                          const char *text, const char *cpu_glob, int state, const char *word,
                          const char *file, int line, struct diag *d)
{
    int64_t v;
    char msg[200];
    const char *why = kparams_missing(kp, p, msg, sizeof msg);
    if (why && src == KPARAM_SRC_CMDLINE) {
        kparams_warn_missing(kp, word, why, file, line);
        return 0;
    }
    if (why)
        return diag_error(d, file, line, "%s: %s", word, why);
    if (kparam_parse_value(p, text, &v, msg, sizeof msg) != 0)
        return diag_error(d, file, line, "%s: %s", word, msg);
    if (p->type == KPARAM_CPULIST)
        v = 1;
    if (kp->nset == kp->capset) {
        kp->capset = kp->capset ? kp->capset * 2 : 8;
        kp->set = xreallocarray(kp->set, (size_t)kp->capset, sizeof *kp->set);
    }
    struct ksetting *s = &kp->set[kp->nset++];
    s->param = p;
    s->value = v;
    s->state = state;
    s->line = line;
    s->text = p->type == KPARAM_CPULIST ? xstrdup(text) : NULL;
    str_copy(s->cpu_glob, sizeof s->cpu_glob, cpu_glob);
    return 0;
}

int kparams_set_cmdline(struct kparams *kp, const char *name, const char *value,
                        const char *file, int line, struct diag *d)
{
    const struct kparam *p = kparam_find(name);
    if (!p)
        return kparams_unknown_cmdline(kp, name, value, file, line, d);
    if (!(p->sources & KPARAM_SRC_CMDLINE))
        return diag_error(d, file, line,
                          "unknown kernel parameter '%s' (see 'pmlab params')", name);
    if (!value) {
        /* The kernel lets a bare word set a bool parameter to true only. */
        if (p->type != KPARAM_BOOL)
            return diag_error(d, file, line, "%s: needs a value (%s=...)", name, name);
        value = "1";
    }
    return kparams_append(kp, p, KPARAM_SRC_CMDLINE, value, "*", -1, name, file, line, d);
}

/* path with its cpuN and stateN segments written as the registry's
 * placeholders (cpu{cpu}, state{state}), into out. */
static void kparams_sysfs_pattern_of(const char *path, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *seg = path; *seg && used < size;) {
        size_t n = strcspn(seg, "/");
        const char *as = NULL;
        if (n > 3 && strncmp(seg, "cpu", 3) == 0 && strchr("0123456789[*?", seg[3]))
            as = "cpu{cpu}";
        else if (n > 5 && strncmp(seg, "state", 5) == 0 && strchr("0123456789", seg[5]))
            as = "state{state}";
        int w = as ? snprintf(out + used, size - used, "%s", as)
                   : snprintf(out + used, size - used, "%.*s", (int)n, seg);
        used += w > 0 ? (size_t)w : 0;
        seg += n;
        if (*seg == '/' && used + 1 < size) {
            out[used++] = '/';
            out[used] = '\0';
            seg++;
        }
    }
}

/* The writable sysfs file of the registry nearest to path, or NULL. */
static const char *kparams_nearest_sysfs(const char *path)
{
    char pattern[256];
    kparams_sysfs_pattern_of(path, pattern, sizeof pattern);
    struct suggest s;
    suggest_init(&s, pattern);
    for (const struct kparam *const *t = kparam_tables; *t; t++)
        for (const struct kparam *p = *t; p->name; p++)
            if (p->sysfs && (p->sources & KPARAM_SRC_SYSFS))
                suggest_add(&s, p->sysfs);
    return suggest_result(&s);
}

int kparams_set_sysfs(struct kparams *kp, const char *path, const char *value, const char *file,
                      int line, struct diag *d)
{
    char cpu_glob[KSETTING_GLOB_MAX];
    int state = -1;
    const struct kparam *p = kparam_find_sysfs(path, cpu_glob, sizeof cpu_glob, &state);
    if (!p || !(p->sources & KPARAM_SRC_SYSFS)) {
        const char *hint = p ? NULL : kparams_nearest_sysfs(path);
        return diag_error(d, file, line, "unknown or read-only sysfs file '%s'%s%s%s (see 'pmlab "
                          "params')", path, hint ? "; did you mean " : "", hint ? hint : "",
                          hint ? "?" : "");
    }
    if (!value)
        return diag_error(d, file, line, "%s: needs a value (%s=VALUE)", path, path);
    return kparams_append(kp, p, KPARAM_SRC_SYSFS, value, cpu_glob, state, path, file, line, d);
}

int kparams_set_config(struct kparams *kp, const char *name, const char *value, const char *file,
                       int line, struct diag *d)
{
    const struct kparam *p = kparam_find(name);
    if (!p || !(p->sources & KPARAM_SRC_CONFIG))
        return diag_error(d, file, line, "unknown kernel config option '%s' (see 'pmlab params')",
                          name);
    if (!value)
        return diag_error(d, file, line, "%s: needs a value (%s=...)", name, name);
    return kparams_append(kp, p, KPARAM_SRC_CONFIG, value, "*", -1, name, file, line, d);
}

static bool ksetting_applies(const struct ksetting *s, int cpu, int state)
{
    if (s->param->scope == KPARAM_GLOBAL)
        return true;
    if (s->param->scope == KPARAM_PER_CPU_STATE && s->state != state)
        return false;
    char cpuname[24];
    snprintf(cpuname, sizeof cpuname, "%d", cpu);
    return str_glob_match(s->cpu_glob, cpuname);
}

static const struct kparam *kparam_must_find(const char *name)
{
    const struct kparam *p = kparam_find(name);
    if (!p) {
        fprintf(stderr, "pmlab: internal error: knob '%s' is not registered\n", name);
        abort();
    }
    return p;
}

bool kparams_find_setting(const struct kparams *kp, const char *name, int cpu, int state,
                          int64_t *out)
{
    const struct kparam *p = kparam_must_find(name);
    for (int i = kp->nset - 1; i >= 0; i--) {
        if (kp->set[i].param == p && ksetting_applies(&kp->set[i], cpu, state)) {
            *out = kp->set[i].value;
            return true;
        }
    }
    return false;
}

int64_t kparams_get(const struct kparams *kp, const char *name, int cpu, int state)
{
    int64_t v;
    if (kparams_find_setting(kp, name, cpu, state, &v))
        return v;
    return kparam_default(kparam_must_find(name));
}

bool kparams_is_set(const struct kparams *kp, const char *name)
{
    const struct kparam *p = kparam_find(name);
    for (int i = 0; p && i < kp->nset; i++)
        if (kp->set[i].param == p)
            return true;
    return false;
}

const char *kparams_get_text(const struct kparams *kp, const char *name, int *line)
{
    const struct kparam *p = kparam_must_find(name);
    for (int i = kp->nset - 1; i >= 0; i--)
        if (kp->set[i].param == p) {
            if (line)
                *line = kp->set[i].line;
            return kp->set[i].text;
        }
    return NULL;
}

int kparams_check_cpus(const struct kparams *kp, int ncpus, const char *file, struct diag *d)
{
    for (int i = 0; i < kp->nset; i++) {
        const struct ksetting *s = &kp->set[i];
        char msg[160];
        if (s->param->type == KPARAM_CPULIST &&
            kparam_parse_cpulist(s->param, s->text, ncpus, NULL, msg, sizeof msg) != 0)
            return diag_error(d, file, s->line, "%s=%s: %s", s->param->name, s->text, msg);
        if (s->param->scope == KPARAM_GLOBAL)
            continue;
        bool any = false;
        for (int cpu = 0; cpu < ncpus && !any; cpu++)
            any = ksetting_applies(s, cpu, s->state);
        if (!any)
            return diag_error(d, file, s->line, "cpu%s matches no CPU of this machine (cpu0..cpu%d)",
                              s->cpu_glob, ncpus - 1);
    }
    return 0;
}
