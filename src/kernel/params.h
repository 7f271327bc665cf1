/* params: the knob registry and a variant's settings.
 *
 * Every knob pmlab understands is declared once, like a module_param(): its
 * command-line name, its sysfs path, type, range, default, the kernel it
 * appeared in and one line of description. Each subsystem keeps its own table
 * (cpuidle_core_params in kernel/cpuidle/params.c, ...) and kernel/params.c
 * lists the tables; `pmlab params` prints them all.
 *
 * A variant's kernel command line, sysfs writes and kernel config values are
 * validated against the registry as they are parsed (unknown knob, bad value,
 * out of range, too old a kernel, missing patch: an error with FILE:LINE) and
 * stored as an ordered list of settings; later settings override earlier ones,
 * as a later write or a later command-line word does in the kernel. */
#ifndef PMLAB_KERNEL_PARAMS_H
#define PMLAB_KERNEL_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kversion.h"
#include "util/diag.h"

enum kparam_type {
    KPARAM_BOOL,    /* y/n/1/0/on/off; a bare command-line word means true */
    KPARAM_INT,     /* decimal in [min, max] */
    KPARAM_ENUM,    /* one of choices[]; stored as its index */
    KPARAM_CPULIST, /* a CPU list (cpulist.h), after the flags of choices[]
                     * ("domain,managed_irq,2-5"); stored as text, value 1 */
};

/* Where a knob lives; sets which placeholders its sysfs path may hold. */
enum kparam_scope {
    KPARAM_GLOBAL,         /* one value for the machine */
    KPARAM_PER_CPU,        /* sysfs path has {cpu} */
    KPARAM_PER_CPU_STATE,  /* sysfs path has {cpu} and {state} */
};

/* How a knob is given in a variant. */
enum kparam_source {
    KPARAM_SRC_CMDLINE = 1 << 0, /* `cmdline = name=value` */
    KPARAM_SRC_SYSFS   = 1 << 1, /* `sysfs = path=value` */
    KPARAM_SRC_CONFIG  = 1 << 2, /* `config = CONFIG_X=value` (build-time) */
};

struct kparam {
    const char *name;       /* command-line or config name; the registry key */
    const char *sysfs;      /* sysfs path, {cpu}/{state} placeholders, or NULL */
    unsigned sources;       /* KPARAM_SRC_* bits */
    enum kparam_type type;
    enum kparam_scope scope;
    int64_t min, max;       /* KPARAM_INT range, inclusive */
    const char *const *choices; /* KPARAM_ENUM, NULL-terminated; KPARAM_CPULIST:
                                 * the flags that may come before the list */
    const char *def;        /* default, as the user would write it */
    const char *unit;       /* "us", "ns", "" */
    const char *since;      /* first kernel version that has it, or NULL */
    const char *patch;      /* exists only with this named patch, or NULL */
    const char *desc;       /* one line */
    /* Optional: parse a value the generic rules do not cover (e.g. "n/a").
     * Return 0 and set *out, or 1 to fall back to the generic parse. */
    int (*parse_special)(const char *text, int64_t *out);
};

/* The registry: every table, each terminated by an entry with name NULL. */
extern const struct kparam *const kparam_tables[];

/* Registry lookup by name. The kernel treats '-' and '_' in parameter names as
 * the same character, and so do we. NULL if unknown. */
const struct kparam *kparam_find(const char *name);
/* Registry lookup by sysfs path; on a match, the {cpu} and {state} parts of
 * path are copied out (cpu as a glob such as "*", "1", "[0-3]"; state as a
 * decimal index, -1 when absent). NULL if no knob has that path. */
const struct kparam *kparam_find_sysfs(const char *path, char *cpu_glob, size_t cpu_glob_size,
                                       int *state);

/* Parse text as a value of p. Returns 0, or -1 with msg describing the problem
 * ("out of range [0, 9]", "expected one of: poll halt nomwait"). */
int kparam_parse_value(const struct kparam *p, const char *text, int64_t *out,
                       char *msg, size_t msgsize);
/* Parse CPU-list knob p's text (its flags, then the list) for a machine of
 * ncpus CPUs into mask[ncpus] (NULL: check only). Returns 0, or -1 with msg.
 * At parse time, before the machine is known, the list is checked against
 * KPARAM_CPULIST_SYNTAX_NCPUS CPUs (the kernel's largest NR_CPUS). */
#define KPARAM_CPULIST_SYNTAX_NCPUS 8192
int kparam_parse_cpulist(const struct kparam *p, const char *text, int ncpus, bool *mask,
                         char *msg, size_t msgsize);
/* The default value of p as stored. */
int64_t kparam_default(const struct kparam *p);

#define KSETTING_GLOB_MAX 32

struct ksetting {
    const struct kparam *param;
    int64_t value;
    char cpu_glob[KSETTING_GLOB_MAX]; /* "cpu" suffix glob for per-CPU knobs; "*" if all */
    int state;                        /* state index for per-state knobs, else -1 */
    int line;                         /* where it was set, for later validation errors */
    char *text;                       /* KPARAM_CPULIST: the value as given (owned) */
};

/* A variant's kernel: version, applied patches and the knob settings. */
struct kparams {
    struct kversion kernel;
    char **patches;
    int npatches;
    struct ksetting *set;
    int nset, capset;
    /* What the real kernel would log about this variant's settings and then
     * ignore (a boot parameter its version or patches lack), as
     * "FILE:LINE: warning: ..." lines for the user. */
    char **warnings;
    int nwarnings;
};

void kparams_init(struct kparams *kp);
void kparams_destroy(struct kparams *kp);
bool kparams_has_patch(const struct kparams *kp, const char *patch);

/* Apply one `name=value` (or bare `name`) from the kernel command line. Errors
 * name file:line and the word (a bad value, a sysfs-only knob). As on the
 * real kernel, a word nobody claims is not an error, so a real /proc/cmdline
 * can be pasted: a registered parameter this kernel version (or its
 * patches) lacks, or a word the kernel does not know (BOOT_IMAGE=, splash)
 * gets a warning saying what the kernel logs; a parameter the kernel has
 * but pmlab does not model (root=, reboot=, isolcpus=, processor.ignore_ppc=:
 * kparam_unmodelled, kparam_vocab_known) or one of a module pmlab does not
 * model (i915.*) gets a one-line note. Both go to kp->warnings, and the word
 * is ignored. What the kernel does not know and reads as a typo of a
 * modelled knob is an error naming the nearest name: a parameter of a
 * modelled module (cpuidle.govenor=, intel_idle.max_cstat=), or a word one
 * or two edits from a modelled parameter (intel_pstat=, idel=). */
int kparams_set_cmdline(struct kparams *kp, const char *name, const char *value,
                        const char *file, int line, struct diag *d);
/* Apply one sysfs write `path=value`. */
int kparams_set_sysfs(struct kparams *kp, const char *path, const char *value,
                      const char *file, int line, struct diag *d);
/* Apply one kernel config value `CONFIG_X=value`. */
int kparams_set_config(struct kparams *kp, const char *name, const char *value,
                       const char *file, int line, struct diag *d);

/* The value of knob `name` for cpu (and state) after every setting: the last
 * matching setting, else the default. cpu and state are ignored for global
 * knobs. Aborts on an unregistered name (a programming error). */
int64_t kparams_get(const struct kparams *kp, const char *name, int cpu, int state);
/* The value of the last setting of `name` that applies to cpu (and state), if
 * any: true with *out set, false when only the default applies. */
bool kparams_find_setting(const struct kparams *kp, const char *name, int cpu, int state,
                          int64_t *out);
/* Whether any setting of `name` was made. */
bool kparams_is_set(const struct kparams *kp, const char *name);
/* The text of the last setting of CPU-list knob `name` and its line, or NULL
 * when it was not set. */
const char *kparams_get_text(const struct kparams *kp, const char *name, int *line);

/* Check settings against a machine with ncpus CPUs: every cpu glob must match
 * at least one CPU, every CPU list name CPUs it has. Errors name the
 * setting's line in file. */
int kparams_check_cpus(const struct kparams *kp, int ncpus, const char *file, struct diag *d);

/* What a kernel parameter pmlab does not model does, in a few words, or NULL
 * when it is not one (kernel/params_unmodelled.c). */
const char *kparam_unmodelled(const char *name);
struct suggest;
/* Offer every such parameter's name to s. */
void kparam_unmodelled_suggest(struct suggest *s);
/* Whether name is a parameter the kernel documents (kernel/params_vocab.def:
 * Documentation/admin-guide/kernel-parameters.txt of the kernel it names,
 * and the modelled modules' undocumented ones), modelled or not. */
bool kparam_vocab_known(const char *name);
/* Offer its names to s: those of module (modlen bytes) when module is not
 * NULL, else those without a module. */
void kparam_vocab_suggest(struct suggest *s, const char *module, size_t modlen);

/* The registry of named patches (unmerged or out-of-tree changes a variant can
 * apply with `patches = NAME`). Later subsystems add rows. */
struct kpatch {
    const char *name;
    const char *desc;
};
extern const struct kpatch kpatch_table[];
const struct kpatch *kpatch_find(const char *name);

#endif
