/* machine: load and validate a machine file into an immutable struct hw_machine.
 *
 * Why table-driven: every key of every section is one row of a descriptor
 * table {name, type, offset, range, required}, so a new key is one line, and
 * range checks, duplicate keys and missing required keys need no per-key code.
 * A file is checked in three passes, each naming the line at fault: each value
 * as it is read, each section when it ends (required keys, rules that relate
 * keys of one section), and the whole file at the end (every core type has
 * C-states, every package state names a C-state every core type has). Only a
 * file that passes all three becomes a machine; nothing is ever half-loaded.
 *
 * Units come from the key's suffix: _us and _s keys are stored as sim_time_t
 * ns, _w keys as mW, _mhz and _mw keep their unit. The format is documented in docs/machine-files.md. */
#include "hw/machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpulist.h"
#include "util/inifile.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/xalloc.h"

/* ---- calibration registry --------------------------------------------- */

/* Every constant of the model that no datasheet or kernel source gives. A
 * machine file may override the default in its [calibration] section; a key
 * not listed here is an error there. */
static const struct hw_calib_desc calib_registry[] = {
    { .key = "smt_corun_factor", .unit = "ratio", .default_value = 0.62,
      .min = 0.3, .max = 1.0,
      .description = "speed of each SMT thread while its sibling is busy, relative to "
                     "running alone (0.62: the core does 1.24x the work of one thread)" },
    { .key = "smt_poll_factor", .unit = "ratio", .default_value = 0.9,
      .min = 0.3, .max = 1.0,
      .description = "speed of a thread while its sibling spins in the idle loop "
                     "(PAUSE-based polling leaves most of the core to the sibling)" },
    { .key = "poll_power_ratio", .unit = "ratio", .default_value = 1.0,
      .min = 0.1, .max = 1.0,
      .description = "power of a core whose awake threads all spin in a PAUSE loop (the POLL "
                     "state, KVM or guest halt polling), as a share of its active power at the "
                     "same frequency; 1 = no difference" },
    /* The power of a C-state exit (hw/cpu.c, hw_exit_power_mw). */
    { .key = "exit_ramp_ratio", .unit = "ratio", .default_value = 0.5,
      .min = 0, .max = 1.0,
      .description = "power of a core or package leaving an idle state, as the share of the "
                     "way from the state being left to the state it wakes into (the package's "
                     "PC0, the core's shallowest C-state) it draws over the exit latency; "
                     "0.5 = a linear ramp (estimate: no source gives an exit's power profile)" },
    { .key = "ibrs_sibling_factor", .unit = "ratio", .default_value = 1.0,
      .min = 0.3, .max = 1.0,
      .description = "speed of a busy thread while its sibling sits in the kernel with "
                     "legacy IBRS set (idle without the IBRS-off entry); 1 = no effect" },
    { .key = "spec_ctrl_write_ns", .unit = "ns", .default_value = 0,
      .min = 0, .max = 100000,
      .description = "cost of one SPEC_CTRL MSR write (the IBRS-off idle entry does one "
                     "before MWAIT and one after)" },
    { .key = "irq_off_exit_ns", .unit = "ns", .default_value = 0,
      .min = 0, .max = 100000,
      .description = "extra delay before an interrupt handler runs when the idle state was "
                     "entered with interrupts off (the idle exit path runs first)" },
    { .key = "wake_irq_ns", .unit = "ns", .default_value = 1500,
      .min = 0, .max = 100000,
      .description = "kernel time on a CPU woken from idle by an interrupt (IPI, timer, tick): "
                     "entry, handler and exit, counted as busy (FACTS-2.md section 7: IPI "
                     "cost a tunable around 1-2 us)" },
    { .key = "wake_switch_ns", .unit = "ns", .default_value = 1400,
      .min = 0, .max = 100000,
      .description = "kernel time to switch a CPU woken from idle to the task woken onto it, "
                     "counted as busy (FACTS-2.md section 7: perf bench sched pipe, 2.79 us "
                     "per two wakeups and switches)" },
    { .key = "softirq_ns", .unit = "ns", .default_value = 1000,
      .min = 0, .max = 1000000,
      .description = "softirq work (timer wheel, NET_RX, BLOCK, RCU) run at irq_exit after a "
                     "housekeeping timer or device interrupt on an idle CPU, counted as busy "
                     "(estimate: a timer softirq expiring a few timers, ~1 us)" },
    { .key = "bg_wake_share", .unit = "ratio", .default_value = 1.0,
      .min = 0, .max = 1,
      .description = "share of housekeeping timer and device interrupts whose handler wakes "
                     "the CPU's background thread (a kworker or the daemon waiting on it), "
                     "starting a wake-up chain (kernel/irq/wakeup_chain.h); 0 turns chains off" },
    { .key = "bg_msgs_per_irq", .unit = "count", .default_value = 2.4,
      .min = 0, .max = 100,
      .description = "mean number of hand-offs (task wake-ups between background threads) "
                     "in a wake-up chain, geometric (estimated from adl0's inputs: 43.1 idle "
                     "entries per CPU per second over 12.7 interrupts, minus the interrupt's "
                     "own entry)" },
    { .key = "bg_run_ns", .unit = "ns", .default_value = 5000,
      .min = 0, .max = 10000000,
      .description = "mean run of a background thread per wake-up, exponential, ns on the "
                     "reference core (estimate: a small work item or daemon reply, above "
                     "perf bench sched pipe's 1.4 us per wake-up and switch)" },
    { .key = "bg_hrtimer_share", .unit = "ratio", .default_value = 0.5,
      .min = 0, .max = 1,
      .description = "share of the housekeeping timers that are user-space sleeps (hrtimers "
                     "with the default 50 us slack); the rest are kernel timer-wheel timers, "
                     "rounded up to their wheel level's granularity (estimate: no per-host "
                     "split is measured; a trace of timer:hrtimer_start and timer_start "
                     "gives it)" },
    { .key = "bg_timer_slack_ns", .unit = "ns", .default_value = 50000,
      .min = 0, .max = 100000000,
      .description = "timer slack of the housekeeping hrtimers (user-space sleeps): the "
                     "device fires this long after the soft expiry unless another timer "
                     "interrupt comes first (init_task.timer_slack_ns, 50 us; a daemon may "
                     "set its own with PR_SET_TIMERSLACK or systemd's TimerSlackNSec=)" },
    { .key = "bg_deferrable_hz", .unit = "Hz", .default_value = 1.0,
      .min = 0, .max = 1000,
      .description = "deferrable timers per CPU per second (they never wake an idle CPU; "
                     "they run at its next tick or wake-up and wake its kworker) (estimate: "
                     "vmstat_update's vm.stat_interval of 1 s, mm/vmstat.c)" },
    { .key = "rcu_callback_ns", .unit = "ns", .default_value = 500,
      .min = 0, .max = 1000000,
      .description = "run of one RCU callback in RCU_SOFTIRQ or an rcuo kthread, ns on the "
                     "reference core (estimate: freeing a task_struct or a struct pid to "
                     "its slab, a few hundred ns; not measured)" },
    { .key = "rcu_kthread_run_ns", .unit = "ns", .default_value = 2000,
      .min = 0, .max = 1000000,
      .description = "run of an rcuo kthread woken to request a grace period for an "
                     "offloaded CPU's new callbacks, ns on the reference core (estimate: a "
                     "kthread wake-up's bookkeeping, of the order of perf bench sched pipe's "
                     "1.4 us per wake-up and switch)" },
    { .key = "hwp_window_us", .unit = "us", .default_value = 4000,
      .min = 100, .max = 100000,
      .description = "HWP model (hw/hwp.h): time constant of the filter on the core's C0 "
                     "share that the hardware's frequency choice follows" },
    { .key = "hwp_eval_us", .unit = "us", .default_value = 1000,
      .min = 50, .max = 20000,
      .description = "HWP model: how often the hardware re-evaluates a busy core's frequency" },
    { .key = "hwp_busy_full", .unit = "ratio", .default_value = 1.0,
      .min = 0.05, .max = 1.0,
      .description = "HWP model: busy share at which a core reaches its EPP ceiling at EPP "
                     "255 (scaled by EPP/255; EPP 0 races to the ceiling)" },
    { .key = "hwp_epp255_ceiling_ratio", .unit = "ratio", .default_value = 1.0,
      .min = 0.3, .max = 1.5,
      .description = "HWP model: highest frequency at EPP 255 as a share of base (the ceiling "
                     "falls linearly to it from the maximum at EPP 0x80)" },
};
#define NCALIB_REGISTRY (sizeof calib_registry / sizeof calib_registry[0])

const struct hw_calib_desc *hw_calib_registry(size_t *n)
{
    *n = NCALIB_REGISTRY;
    return calib_registry;
}

static const struct hw_calib_desc *calib_lookup(const char *key)
{
    for (size_t i = 0; i < NCALIB_REGISTRY; i++)
        if (strcmp(calib_registry[i].key, key) == 0)
            return &calib_registry[i];
    return NULL;
}

double hw_machine_calib(const struct hw_machine *m, const char *key)
{
    const struct hw_calib_desc *desc = calib_lookup(key);
    if (!desc) {
        fprintf(stderr, "pmlab: BUG: calibration key '%s' is not in the registry\n", key);
        abort();
    }
    for (int i = 0; i < m->ncalib; i++)
        if (strcmp(m->calib[i].key, key) == 0)
            return m->calib[i].value;
    return desc->default_value;
}

/* ---- key descriptors ---------------------------------------------------- */

enum key_type {
    KT_INT,       /* int */
    KT_U32,       /* uint32_t, decimal */
    KT_HEX,       /* uint32_t, 0x-prefixed hex or decimal */
    KT_DOUBLE,    /* double */
    KT_US,        /* microseconds in the file (may be fractional), sim_time_t ns in memory */
    KT_SECONDS,   /* seconds in the file (may be fractional), sim_time_t ns in memory */
    KT_WATTS,     /* watts in the file, double mW in memory */
    KT_BOOL,      /* bool, yes/no as the kernel's kstrtobool reads it */
    KT_STR,       /* char[aux] */
    KT_CPU_GROUPS, /* char[aux]: cpulists; continuation lines append (a 2-socket list is long) */
    KT_MHZ_LIST,  /* uint32_t[HW_MAX_TURBO_BINS], count (int) at offset aux; continuation lines append */
    KT_PERF_LIST, /* as KT_MHZ_LIST, values hex (0x) or decimal, up to cap of them */
    KT_NUMBERING, /* enum hw_cpu_numbering: adjacent | split */
    KT_DOMAIN,    /* bool hw_cstate.cluster_domain: cpu | cluster */
};

struct key_desc {
    const char *name;
    enum key_type type;
    size_t offset;     /* of the field in the section's struct */
    size_t aux;        /* KT_STR: buffer size; KT_MHZ_LIST: offset of the count */
    double min, max;   /* accepted range, in the file's unit (lists: each element) */
    bool required;
    size_t cap;        /* KT_PERF_LIST: capacity of the array */
};

#define KEY(st, key, field, kt, lo, hi, req) \
    { key, kt, offsetof(struct st, field), 0, lo, hi, req, 0 }
#define KEY_STR(st, field, req) \
    { #field, KT_STR, offsetof(struct st, field), sizeof(((struct st *)0)->field), 0, 0, req, 0 }

#define MHZ_MAX 20000.0
#define POWER_MW_MAX 1e7
#define LATENCY_US_MAX 1e6
#define POWER_W_MAX (POWER_MW_MAX / 1000)
#define TAU_S_MAX 1000.0
#define HWP_PERF_MAX 255  /* HWP_CAPABILITIES fields are 8 bits wide */

static const struct key_desc machine_keys[] = {
    KEY_STR(hw_machine, name, true),
    KEY_STR(hw_machine, description, false),
    KEY_STR(hw_machine, vendor, true),
    KEY_STR(hw_machine, cpu_model, false),  /* required on x86 (check_machine) */
    KEY(hw_machine, "cpu_family", cpu_family, KT_HEX, 0, 0xff, false),
    KEY(hw_machine, "packages", packages, KT_INT, 1, 64, true),
    KEY(hw_machine, "threads_per_core", threads_per_core, KT_INT, 1, HW_MAX_SMT, true),
    KEY(hw_machine, "cpu_numbering", cpu_numbering, KT_NUMBERING, 0, 0, false),
    KEY(hw_machine, "pkg_active_power_mw", pkg_active_power_mw, KT_DOUBLE, 0, POWER_MW_MAX, true),
    { "l2_groups", KT_CPU_GROUPS, offsetof(struct hw_machine, l2_groups_text),
      sizeof(((struct hw_machine *)0)->l2_groups_text), 0, 0, false, 0 },
    { "llc_groups", KT_CPU_GROUPS, offsetof(struct hw_machine, llc_groups_text),
      sizeof(((struct hw_machine *)0)->llc_groups_text), 0, 0, false, 0 },
};

static const struct key_desc core_type_keys[] = {
    KEY(hw_core_type, "cores_per_package", cores_per_package, KT_INT, 1, 4096, true),
    KEY(hw_core_type, "threads_per_core", threads_per_core, KT_INT, 1, HW_MAX_SMT, false),
    KEY(hw_core_type, "ipc_factor", ipc_factor, KT_DOUBLE, 0.01, 100, true),
    KEY(hw_core_type, "min_mhz", min_mhz, KT_U32, 1, MHZ_MAX, true),
    KEY(hw_core_type, "base_mhz", base_mhz, KT_U32, 1, MHZ_MAX, true),
    KEY(hw_core_type, "max_mhz", max_mhz, KT_U32, 1, MHZ_MAX, true),
    { "turbo_mhz", KT_MHZ_LIST, offsetof(struct hw_core_type, turbo_mhz),
      offsetof(struct hw_core_type, nturbo), 1, MHZ_MAX, false, 0 },
    KEY(hw_core_type, "active_power_mw_base", active_power_mw_base, KT_DOUBLE, 0.001, POWER_MW_MAX, true),
    KEY(hw_core_type, "active_power_mw_max", active_power_mw_max, KT_DOUBLE, 0.001, POWER_MW_MAX, true),
    KEY(hw_core_type, "hwp_highest_perf", hwp_highest_perf, KT_HEX, 1, HWP_PERF_MAX, false),
    KEY(hw_core_type, "hwp_guaranteed_perf", hwp_guaranteed_perf, KT_HEX, 1, HWP_PERF_MAX, false),
    KEY(hw_core_type, "hwp_lowest_perf", hwp_lowest_perf, KT_HEX, 1, HWP_PERF_MAX, false),
    KEY_STR(hw_core_type, cpu_part, false),  /* required on arm (check_machine) */
    { "opp_mhz", KT_MHZ_LIST, offsetof(struct hw_core_type, opp_mhz),
      offsetof(struct hw_core_type, nopp), 1, MHZ_MAX, false, 0 },
    KEY(hw_core_type, "capacity_dmips_mhz", capacity_dmips_mhz, KT_U32, 1, 1e6, false),
    { "cpus", KT_STR, offsetof(struct hw_core_type, cpus_text),
      sizeof(((struct hw_core_type *)0)->cpus_text), 0, 0, false, 0 },
};

/* mwait_hint is required on x86 and refused on arm, the DT keys the other
 * way round (close_cstate). */
static const struct key_desc cstate_keys[] = {
    KEY(hw_cstate, "mwait_hint", mwait_hint, KT_HEX, 0, 0xff, false),
    KEY(hw_cstate, "exit_latency_us", exit_latency_ns, KT_US, 0, LATENCY_US_MAX, true),
    KEY(hw_cstate, "core_power_mw", core_power_mw, KT_DOUBLE, 0, POWER_MW_MAX, true),
    KEY(hw_cstate, "flushes_caches", flushes_caches, KT_BOOL, 0, 0, true),
    KEY(hw_cstate, "refill_us", refill_ns, KT_US, 0, LATENCY_US_MAX, false),
    KEY(hw_cstate, "io_port", io_port, KT_HEX, 1, 0xffff, false),
    KEY(hw_cstate, "psci_suspend_param", psci_suspend_param, KT_HEX, 0, 0xffffffffu, false),
    KEY(hw_cstate, "entry_latency_us", entry_latency_ns, KT_US, 0, LATENCY_US_MAX, false),
    KEY(hw_cstate, "min_residency_us", min_residency_ns, KT_US, 0, LATENCY_US_MAX, false),
    KEY(hw_cstate, "local_timer_stop", local_timer_stop, KT_BOOL, 0, 0, false),
    KEY(hw_cstate, "domain", cluster_domain, KT_DOMAIN, 0, 0, false),
};

/* [firmware]: _CPC HighestPerformance is a 32-bit register, but the values
 * firmware reports (and the 0xFF placeholder) fit 8 bits; wider ones are
 * taken as typos. */
static const struct key_desc firmware_keys[] = {
    KEY(hw_firmware, "osc_cppc_v2", osc_cppc_v2, KT_BOOL, 0, 0, true),
    { "cpc_highest_perf", KT_PERF_LIST, offsetof(struct hw_firmware, cpc_highest_perf),
      offsetof(struct hw_firmware, ncpc), 0, HW_CPPC_MAX_PERF, false, HW_MAX_CPC },
    /* An address: an MWAIT hint (8 bits, checked per entry) or an I/O port. */
    { "cst_mwait_hints", KT_PERF_LIST, offsetof(struct hw_firmware, cst_mwait_hint),
      offsetof(struct hw_firmware, ncst), 0, 0xffff, false, HW_MAX_CST },
    { "cst_methods", KT_STR, offsetof(struct hw_firmware, cst_methods_text),
      sizeof(((struct hw_firmware *)0)->cst_methods_text), 0, 0, false, 0 },
    { "pm_profile", KT_STR, offsetof(struct hw_firmware, pm_profile),
      sizeof(((struct hw_firmware *)0)->pm_profile), 0, 0, false, 0 },
    { "cst_types", KT_PERF_LIST, offsetof(struct hw_firmware, cst_type),
      offsetof(struct hw_firmware, ncst_type), 1, 3, false, HW_MAX_CST },
    { "cst_latency_us", KT_PERF_LIST, offsetof(struct hw_firmware, cst_latency_us),
      offsetof(struct hw_firmware, ncst_latency), 0, LATENCY_US_MAX, false, HW_MAX_CST },
};

/* [rapl]: watts and seconds, as turbostat and powercap show them. Zero is
 * not a limit: a machine without limits leaves the section out. */
static const struct key_desc rapl_keys[] = {
    KEY(hw_power_limits, "pl1_w", pl1_mw, KT_WATTS, 0.001, POWER_W_MAX, true),
    KEY(hw_power_limits, "pl2_w", pl2_mw, KT_WATTS, 0.001, POWER_W_MAX, true),
    KEY(hw_power_limits, "tau_s", tau_ns, KT_SECONDS, 0.001, TAU_S_MAX, true),
};

static const struct key_desc pkgstate_keys[] = {
    KEY_STR(hw_pkgstate, core_cstate, true),
    KEY(hw_pkgstate, "exit_latency_us", exit_latency_ns, KT_US, 0, LATENCY_US_MAX, true),
    KEY(hw_pkgstate, "pkg_power_mw", pkg_power_mw, KT_DOUBLE, 0, POWER_MW_MAX, true),
};

#define MAX_SECTION_KEYS 16 /* bits of struct loader.seen in use */
#define NKEYS(a) (sizeof a / sizeof a[0])
_Static_assert(NKEYS(machine_keys) <= MAX_SECTION_KEYS && NKEYS(core_type_keys) <= MAX_SECTION_KEYS &&
               NKEYS(cstate_keys) <= MAX_SECTION_KEYS && NKEYS(pkgstate_keys) <= MAX_SECTION_KEYS &&
               NKEYS(firmware_keys) <= MAX_SECTION_KEYS && NKEYS(rapl_keys) <= MAX_SECTION_KEYS,
               "a section has more keys than struct loader tracks");

/* ---- sections ------------------------------------------------------------ */

enum sec_kind { SEC_NONE, SEC_MACHINE, SEC_CORE_TYPE, SEC_CSTATE, SEC_PKGSTATE, SEC_CALIB,
                SEC_FIRMWARE, SEC_RAPL };

struct sec_desc {
    const char *word;          /* first word of the header */
    enum sec_kind kind;
    int nargs;                 /* names after the word */
    const char *usage;
    const struct key_desc *keys;
    size_t nkeys;
};

#define KEYS(a) a, NKEYS(a)
static const struct sec_desc sections[] = {
    { "machine", SEC_MACHINE, 0, "[machine]", KEYS(machine_keys) },
    { "core_type", SEC_CORE_TYPE, 1, "[core_type NAME]", KEYS(core_type_keys) },
    { "cstate", SEC_CSTATE, 2, "[cstate TYPE NAME]", KEYS(cstate_keys) },
    { "pkgstate", SEC_PKGSTATE, 1, "[pkgstate NAME]", KEYS(pkgstate_keys) },
    { "calibration", SEC_CALIB, 0, "[calibration]", NULL, 0 },
    { "firmware", SEC_FIRMWARE, 0, "[firmware]", KEYS(firmware_keys) },
    { "rapl", SEC_RAPL, 0, "[rapl]", KEYS(rapl_keys) },
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

/* Everything the loader needs while reading one file; lives on the stack of
 * hw_machine_load. Lines are kept so checks made after a section or after the
 * file can still name the line at fault. */
struct loader {
    const char *path;
    struct hw_machine *m;
    /* the open section */
    const struct sec_desc *sd;     /* NULL before the first section */
    void *obj;                     /* the struct its keys fill */
    int line;                      /* its header line */
    char label[128];               /* "[cstate P C6]", for messages */
    uint32_t seen;                 /* bit i: sd->keys[i] was given */
    int key_line[MAX_SECTION_KEYS];
    int last_key;                  /* index of the previous key (continuations), or -1 */
    int type;                      /* core type of an open [cstate] section */
    /* lines for the whole-file checks */
    int machine_line, machine_threads_line, calib_section_line;
    int l2_groups_line;            /* the [machine] l2_groups key, 0 if absent */
    int llc_groups_line;           /* the [machine] llc_groups key, 0 if absent */
    int firmware_line, cpc_line;   /* [firmware] header, its cpc_highest_perf key */
    int rapl_line;                 /* [rapl] header */
    int type_line[HW_MAX_CORE_TYPES];
    int type_cpus_line[HW_MAX_CORE_TYPES];   /* a type's cpus key, 0 if absent */
    int type_part_line[HW_MAX_CORE_TYPES];   /* a type's cpu_part key, 0 if absent */
    int pkg_cstate_line[HW_MAX_PKGSTATES];
    /* --set machine.* overrides (hw_machine_load_with) */
    const struct hw_machine_override *ov;
    int nov;
    bool *ov_done;                 /* [nov]: applied */
    bool *ov_section_seen;         /* [nov]: its section is in the file */
    char header[128];              /* the open section's words, single-spaced */
    bool last_key_overridden;      /* continuation lines of it are dropped */
    char **headers;                /* every section's words, for suggestions */
    int nheaders;
};

/* ---- values --------------------------------------------------------------- */

static int out_of_range(struct loader *ld, int line, const struct key_desc *k, const char *value,
                        struct diag *d)
{
    return diag_error(d, ld->path, line, "%s = %s is out of range [%.15g, %.15g]", k->name, value,
                      k->min, k->max);
}

/* Parse an integer, decimal or (for KT_HEX) 0x-prefixed hex, within k's range. */
static int parse_integer(struct loader *ld, int line, const struct key_desc *k, const char *value,
                         int64_t *out, struct diag *d)
{
    const char *s = str_skip_space(value);
    int rc;
    bool hex_ok = k->type == KT_HEX || k->type == KT_PERF_LIST;
    if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        char *end;
        unsigned long long v = strtoull(s + 2, &end, 16);
        rc = (end == s + 2 || *str_skip_space(end) || v > INT64_MAX) ? -1 : 0;
        *out = (int64_t)v;
    } else {
        rc = str_to_i64(s, out);
    }
    if (rc != 0)
        return diag_error(d, ld->path, line, "%s: '%s' is not an integer", k->name, value);
    if ((double)*out < k->min || (double)*out > k->max)
        return out_of_range(ld, line, k, value, d);
    return 0;
}

static int parse_real(struct loader *ld, int line, const struct key_desc *k, const char *value,
                      double *out, struct diag *d)
{
    if (str_to_double(value, out) != 0)
        return diag_error(d, ld->path, line, "%s: '%s' is not a number", k->name, value);
    if (*out < k->min || *out > k->max)
        return out_of_range(ld, line, k, value, d);
    return 0;
}

/* Append the space- or comma-separated MHz values in value to a KT_MHZ_LIST.
 * A token starting with ';' or '#' starts a comment: inih strips inline
 * comments from a key's first line but hands continuation lines over whole. */
static int parse_mhz_list(struct loader *ld, int line, const struct key_desc *k, const char *value,
                          struct diag *d)
{
    uint32_t *list = (uint32_t *)((char *)ld->obj + k->offset);
    int *count = (int *)((char *)ld->obj + k->aux);
    const char *p = value;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p || *p == ';' || *p == '#')
            return 0;
        size_t len = strcspn(p, " \t,");
        char tok[32];
        if (len >= sizeof tok)
            return diag_error(d, ld->path, line, "%s: '%.*s' is not an integer", k->name, (int)len, p);
        memcpy(tok, p, len);
        tok[len] = '\0';
        int cap = k->cap ? (int)k->cap : HW_MAX_TURBO_BINS;
        if (*count >= cap)
            return diag_error(d, ld->path, line, "%s: more than %d values", k->name, cap);
        int64_t v;
        if (parse_integer(ld, line, k, tok, &v, d) != 0)
            return -1;
        list[(*count)++] = (uint32_t)v;
        p += len;
    }
}

static int parse_numbering(struct loader *ld, int line, const struct key_desc *k, const char *value,
                           enum hw_cpu_numbering *out, struct diag *d)
{
    if (strcmp(value, "adjacent") == 0)
        *out = HW_CPU_NUMBERING_ADJACENT;
    else if (strcmp(value, "split") == 0)
        *out = HW_CPU_NUMBERING_SPLIT;
    else
        return diag_error(d, ld->path, line, "%s: '%s' is neither 'adjacent' nor 'split'",
                          k->name, value);
    return 0;
}

static int parse_domain(struct loader *ld, int line, const struct key_desc *k, const char *value,
                        bool *cluster, struct diag *d)
{
    if (strcmp(value, "cpu") == 0)
        *cluster = false;
    else if (strcmp(value, "cluster") == 0)
        *cluster = true;
    else
        return diag_error(d, ld->path, line, "%s: '%s' is neither 'cpu' nor 'cluster'", k->name,
                          value);
    return 0;
}

static int parse_string(struct loader *ld, int line, const struct key_desc *k, const char *value,
                        char *out, struct diag *d)
{
    if (!*value)
        return diag_error(d, ld->path, line, "%s is empty", k->name);
    if (str_copy(out, k->aux, value) != 0)
        return diag_error(d, ld->path, line, "%s is longer than %zu characters", k->name, k->aux - 1);
    return 0;
}

/* A continuation line of a KT_CPU_GROUPS key: more groups, after a space.
 * Its comment (from ';' or '#') is dropped: inih hands such lines over whole. */
static int append_cpu_groups(struct loader *ld, int line, const struct key_desc *k,
                             const char *value, struct diag *d)
{
    char *field = (char *)ld->obj + k->offset;
    size_t len = strlen(field), add = strcspn(value, ";#");
    while (add > 0 && (value[add - 1] == ' ' || value[add - 1] == '\t'))
        add--;
    if (add == 0)
        return 0;
    if (len + 1 + add >= k->aux)
        return diag_error(d, ld->path, line, "%s is longer than %zu characters", k->name,
                          k->aux - 1);
    field[len] = ' ';
    memcpy(field + len + 1, value, add);
    field[len + 1 + add] = '\0';
    return 0;
}

/* Parse value into the field k describes in the open section's struct. */
static int parse_value(struct loader *ld, int line, const struct key_desc *k, const char *value,
                       struct diag *d)
{
    void *field = (char *)ld->obj + k->offset;
    int64_t i;
    double x;
    switch (k->type) {
    case KT_INT:
        return parse_integer(ld, line, k, value, &i, d) ? -1 : (*(int *)field = (int)i, 0);
    case KT_U32:
    case KT_HEX:
        return parse_integer(ld, line, k, value, &i, d) ? -1 : (*(uint32_t *)field = (uint32_t)i, 0);
    case KT_DOUBLE:
        return parse_real(ld, line, k, value, field, d);
    case KT_US:
    case KT_SECONDS:
        if (parse_real(ld, line, k, value, &x, d) != 0)
            return -1;
        x *= (double)(k->type == KT_US ? SIM_NS_PER_US : SIM_NS_PER_S);
        *(sim_time_t *)field = (sim_time_t)llround(x);
        return 0;
    case KT_WATTS:
        if (parse_real(ld, line, k, value, &x, d) != 0)
            return -1;
        *(double *)field = x * 1000.0;
        return 0;
    case KT_BOOL:
        if (str_to_bool(value, field) != 0)
            return diag_error(d, ld->path, line, "%s: '%s' is not a boolean (yes or no)", k->name, value);
        return 0;
    case KT_STR:
    case KT_CPU_GROUPS:
        return parse_string(ld, line, k, value, field, d);
    case KT_MHZ_LIST:
    case KT_PERF_LIST:
        return parse_mhz_list(ld, line, k, value, d);
    case KT_NUMBERING:
        return parse_numbering(ld, line, k, value, field, d);
    case KT_DOMAIN:
        return parse_domain(ld, line, k, value, field, d);
    }
    return diag_error(d, ld->path, line, "%s: internal error: unknown key type", k->name);
}

/* ---- checks when a section ends ----------------------------------------- */

/* Line of key name in the open section (its header line if it was not given). */
static int key_line(const struct loader *ld, const char *name)
{
    for (size_t i = 0; i < ld->sd->nkeys; i++)
        if (strcmp(ld->sd->keys[i].name, name) == 0 && (ld->seen & (1u << i)))
            return ld->key_line[i];
    return ld->line;
}

static int check_turbo(struct loader *ld, const struct hw_core_type *t, struct diag *d)
{
    int line = key_line(ld, "turbo_mhz");
    if (t->nturbo > t->cores_per_package)
        return diag_error(d, ld->path, line,
                          "turbo_mhz lists %d values but %s has %d cores per package",
                          t->nturbo, ld->label, t->cores_per_package);
    for (int i = 0; i < t->nturbo; i++) {
        if (t->turbo_mhz[i] < t->base_mhz || t->turbo_mhz[i] > t->max_mhz)
            return diag_error(d, ld->path, line,
                              "turbo_mhz value %d (%u MHz) is outside [base_mhz, max_mhz] = [%u, %u]",
                              i + 1, t->turbo_mhz[i], t->base_mhz, t->max_mhz);
        if (i > 0 && t->turbo_mhz[i] > t->turbo_mhz[i - 1])
            return diag_error(d, ld->path, line,
                              "turbo_mhz rises with more active cores (value %d: %u > %u MHz)",
                              i + 1, t->turbo_mhz[i], t->turbo_mhz[i - 1]);
    }
    return 0;
}

/* HWP capabilities, when given, are all given and ordered lowest <= guaranteed
 * <= highest, as the hardware reports them. */
static int check_hwp_caps(struct loader *ld, const struct hw_core_type *t, struct diag *d)
{
    int given = !!t->hwp_highest_perf + !!t->hwp_guaranteed_perf + !!t->hwp_lowest_perf;
    if (given == 0)
        return 0;
    if (given != 3)
        return diag_error(d, ld->path, ld->line,
                          "%s: give all of hwp_highest_perf, hwp_guaranteed_perf and "
                          "hwp_lowest_perf, or none", ld->label);
    if (t->hwp_lowest_perf > t->hwp_guaranteed_perf || t->hwp_guaranteed_perf > t->hwp_highest_perf)
        return diag_error(d, ld->path, key_line(ld, "hwp_guaranteed_perf"),
                          "need hwp_lowest_perf <= hwp_guaranteed_perf <= hwp_highest_perf, "
                          "got %u, %u, %u", t->hwp_lowest_perf, t->hwp_guaranteed_perf,
                          t->hwp_highest_perf);
    return 0;
}

/* An OPP table (Arm only) rises strictly from min_mhz to max_mhz: the
 * cpufreq policy's cpuinfo limits are its ends. */
static int check_opps(struct loader *ld, const struct hw_core_type *t, struct diag *d)
{
    if (t->nopp == 0)
        return 0;
    int line = key_line(ld, "opp_mhz");
    if (!hw_machine_is_arm(ld->m))
        return diag_error(d, ld->path, line, "opp_mhz is an Arm DVFS table (vendor = arm); x86 "
                          "frequencies are P-state ratios between min_mhz and max_mhz");
    for (int i = 1; i < t->nopp; i++)
        if (t->opp_mhz[i] <= t->opp_mhz[i - 1])
            return diag_error(d, ld->path, line, "opp_mhz must rise (value %d: %u after %u MHz)",
                              i + 1, t->opp_mhz[i], t->opp_mhz[i - 1]);
    if (t->opp_mhz[0] != t->min_mhz || t->opp_mhz[t->nopp - 1] != t->max_mhz)
        return diag_error(d, ld->path, line, "opp_mhz runs from %u to %u MHz but min_mhz and "
                          "max_mhz are %u and %u (the table's ends are the policy's limits)",
                          t->opp_mhz[0], t->opp_mhz[t->nopp - 1], t->min_mhz, t->max_mhz);
    return 0;
}

static int check_core_type(struct loader *ld, const struct hw_core_type *t, struct diag *d)
{
    if (check_opps(ld, t, d) != 0)
        return -1;
    const struct hw_machine *m = ld->m;
    if (t->threads_per_core > m->threads_per_core)
        return diag_error(d, ld->path, key_line(ld, "threads_per_core"),
                          "threads_per_core = %d exceeds the machine's threads_per_core = %d",
                          t->threads_per_core, m->threads_per_core);
    if (t->min_mhz > t->base_mhz || t->base_mhz > t->max_mhz)
        return diag_error(d, ld->path, key_line(ld, "base_mhz"),
                          "need min_mhz <= base_mhz <= max_mhz, got %u, %u, %u",
                          t->min_mhz, t->base_mhz, t->max_mhz);
    if (t->active_power_mw_max < t->active_power_mw_base)
        return diag_error(d, ld->path, key_line(ld, "active_power_mw_max"),
                          "active_power_mw_max (%g) is below active_power_mw_base (%g)",
                          t->active_power_mw_max, t->active_power_mw_base);
    if (check_turbo(ld, t, d) != 0)
        return -1;
    return check_hwp_caps(ld, t, d);
}

/* PL2 is the short-term ceiling above the long-term PL1, never below it. */
static int check_rapl(struct loader *ld, const struct hw_power_limits *r, struct diag *d)
{
    if (r->pl2_mw < r->pl1_mw)
        return diag_error(d, ld->path, key_line(ld, "pl2_w"),
                          "pl2_w (%g W) is below pl1_w (%g W): PL2 must be >= PL1",
                          r->pl2_mw / 1000, r->pl1_mw / 1000);
    return 0;
}

static bool key_seen(const struct loader *ld, const char *name)
{
    for (size_t i = 0; i < ld->sd->nkeys; i++)
        if (strcmp(ld->sd->keys[i].name, name) == 0)
            return (ld->seen & (1u << i)) != 0;
    return false;
}

/* An Arm [cstate]: the type's first is the architectural WFI (cpuidle-psci's
 * state 0, not in the device tree), so it takes none of the DT keys; each
 * later one is a DT idle state and needs them all (idle-states.yaml makes
 * entry-latency-us, exit-latency-us and min-residency-us required). MWAIT
 * and I/O-port entry are x86. */
static int check_arm_cstate(struct loader *ld, struct hw_cstate *c, bool first, struct diag *d)
{
    static const char *const x86_keys[] = { "mwait_hint", "io_port" };
    static const char *const dt_keys[] = { "psci_suspend_param", "entry_latency_us",
                                           "min_residency_us" };
    for (size_t i = 0; i < 2; i++)
        if (key_seen(ld, x86_keys[i]))
            return diag_error(d, ld->path, key_line(ld, x86_keys[i]),
                              "%s: %s is x86 (MWAIT / ACPI _CST); an Arm idle state is a "
                              "device-tree state entered through PSCI", ld->label, x86_keys[i]);
    for (size_t i = 0; i < 3; i++) {
        if (first && key_seen(ld, dt_keys[i]))
            return diag_error(d, ld->path, key_line(ld, dt_keys[i]),
                              "%s: the first state of an Arm core type is WFI (cpuidle-psci's "
                              "state 0, not a device-tree state): drop %s", ld->label,
                              dt_keys[i]);
        if (!first && !key_seen(ld, dt_keys[i]))
            return diag_error(d, ld->path, ld->line,
                              "%s: missing required key '%s' (a device-tree idle state after "
                              "WFI)", ld->label, dt_keys[i]);
    }
    if (first && (key_seen(ld, "domain") || key_seen(ld, "local_timer_stop")))
        return diag_error(d, ld->path, ld->line,
                          "%s: WFI takes neither domain nor local_timer_stop", ld->label);
    c->dt_state = !first;
    return 0;
}

/* The keys of a [cstate]: the Arm rules above, or on x86 an MWAIT hint and
 * none of the device-tree keys. */
static int check_cstate_keys(struct loader *ld, struct diag *d)
{
    struct hw_core_type *t = &ld->m->types[ld->type];
    struct hw_cstate *c = &t->cstates[t->ncstates - 1];
    if (hw_machine_is_arm(ld->m))
        return check_arm_cstate(ld, c, t->ncstates == 1, d);
    if (!key_seen(ld, "mwait_hint"))
        return diag_error(d, ld->path, ld->line, "%s: missing required key 'mwait_hint'",
                          ld->label);
    static const char *const dt_keys[] = { "psci_suspend_param", "entry_latency_us",
                                           "min_residency_us", "local_timer_stop", "domain" };
    for (size_t i = 0; i < 5; i++)
        if (key_seen(ld, dt_keys[i]))
            return diag_error(d, ld->path, key_line(ld, dt_keys[i]),
                              "%s: %s is a device-tree idle-state key, for vendor = arm only",
                              ld->label, dt_keys[i]);
    return 0;
}

/* C-states are listed shallowest first: exit latency never decreases. */
static int check_cstate(struct loader *ld, struct diag *d)
{
    if (check_cstate_keys(ld, d) != 0)
        return -1;
    const struct hw_core_type *t = &ld->m->types[ld->type];
    if (t->ncstates < 2)
        return 0;
    const struct hw_cstate *c = &t->cstates[t->ncstates - 1], *prev = c - 1;
    if (c->exit_latency_ns < prev->exit_latency_ns)
        return diag_error(d, ld->path, key_line(ld, "exit_latency_us"),
                          "C-states go shallowest first, but %s exits faster than %s before it",
                          c->name, prev->name);
    return 0;
}

/* [firmware]: pm_profile is a FADT profile word (default unspecified);
 * cst_methods gives one word per _CST entry (ffh, io, halt), cst_types one
 * type per entry; an FFH entry's address is an 8-bit MWAIT hint. */
static int check_firmware_keys(struct loader *ld, struct hw_firmware *fw, struct diag *d)
{
    /* ACPI 6.x FADT Preferred_PM_Profile values 0..8. */
    static const char *const profiles[] = {
        "unspecified", "desktop", "mobile", "workstation", "enterprise_server",
        "soho_server", "appliance_pc", "performance_server", "tablet",
    };
    if (!fw->pm_profile[0])
        snprintf(fw->pm_profile, sizeof fw->pm_profile, "unspecified");
    bool known = false;
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        known |= strcmp(fw->pm_profile, profiles[i]) == 0;
    if (!known)
        return diag_error(d, ld->path, key_line(ld, "pm_profile"),
                          "pm_profile '%s' is not one of unspecified, desktop, mobile, "
                          "workstation, enterprise_server, soho_server, appliance_pc, "
                          "performance_server, tablet", fw->pm_profile);
    static const char *const names[] = { [HW_CST_FFH] = "ffh", [HW_CST_SYSTEM_IO] = "io",
                                         [HW_CST_HALT] = "halt" };
    int n = 0, line = key_line(ld, "cst_methods");
    char text[HW_TEXT_MAX];
    snprintf(text, sizeof text, "%s", fw->cst_methods_text);
    char *save = NULL;
    for (char *w = strtok_r(text, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save), n++) {
        int k = 0;
        while (k < 3 && strcmp(w, names[k]) != 0)
            k++;
        if (k == 3)
            return diag_error(d, ld->path, line, "cst_methods: '%s' is not ffh, io or halt", w);
        if (n < HW_MAX_CST)
            fw->cst_method[n] = (enum hw_cst_method)k;
    }
    if (fw->cst_methods_text[0] && n != fw->ncst)
        return diag_error(d, ld->path, line, "cst_methods lists %d entries but cst_mwait_hints %d",
                          n, fw->ncst);
    if (fw->ncst_type > 0 && fw->ncst_type != fw->ncst)
        return diag_error(d, ld->path, key_line(ld, "cst_types"),
                          "cst_types lists %d entries but cst_mwait_hints %d", fw->ncst_type,
                          fw->ncst);
    for (int i = 0; i < fw->ncst; i++)
        if (fw->cst_method[i] == HW_CST_FFH && fw->cst_mwait_hint[i] > 0xff)
            return diag_error(d, ld->path, key_line(ld, "cst_mwait_hints"),
                              "cst_mwait_hints: entry %d (0x%x) is an ffh entry, whose MWAIT "
                              "hint is 8 bits", i + 1, (unsigned)fw->cst_mwait_hint[i]);
    return 0;
}

static int apply_override(struct loader *ld, int o, int line, struct diag *d);

static int close_section(struct loader *ld, struct diag *d)
{
    if (!ld->sd)
        return 0;
    const struct sec_desc *sd = ld->sd;
    for (int o = ld->nov - 1; o >= 0; o--) /* keys the file leaves out */
        if (!ld->ov_done[o] && strcmp(ld->ov[o].section, ld->header) == 0 &&
            apply_override(ld, o, 0, d) != 0)
            return -1;
    for (size_t i = 0; i < sd->nkeys; i++)
        if (sd->keys[i].required && !(ld->seen & (1u << i)))
            return diag_error(d, ld->path, ld->line, "%s: missing required key '%s'",
                              ld->label, sd->keys[i].name);
    int rc = 0;
    if (sd->kind == SEC_MACHINE) {
        ld->machine_threads_line = key_line(ld, "threads_per_core");
        if (ld->m->l2_groups_text[0])
            ld->l2_groups_line = key_line(ld, "l2_groups");
        if (ld->m->llc_groups_text[0])
            ld->llc_groups_line = key_line(ld, "llc_groups");
        ld->m->vendor_line = key_line(ld, "vendor");
        ld->m->cpu_model_line = key_line(ld, "cpu_model");
    }
    else if (sd->kind == SEC_CORE_TYPE) {
        int ti = (int)((struct hw_core_type *)ld->obj - ld->m->types);
        ld->type_cpus_line[ti] = key_seen(ld, "cpus") ? key_line(ld, "cpus") : 0;
        ld->type_part_line[ti] = key_seen(ld, "cpu_part") ? key_line(ld, "cpu_part") : 0;
        rc = check_core_type(ld, ld->obj, d);
    }
    else if (sd->kind == SEC_CSTATE)
        rc = check_cstate(ld, d);
    else if (sd->kind == SEC_PKGSTATE)
        ld->pkg_cstate_line[ld->m->npkgstates - 1] = key_line(ld, "core_cstate");
    else if (sd->kind == SEC_FIRMWARE) {
        ld->cpc_line = key_line(ld, "cpc_highest_perf");
        if (ld->m->fw.ncst != ld->m->fw.ncst_latency)
            rc = diag_error(d, ld->path, key_line(ld, "cst_latency_us"),
                            "cst_mwait_hints lists %d states but cst_latency_us %d",
                            ld->m->fw.ncst, ld->m->fw.ncst_latency);
        else
            rc = check_firmware_keys(ld, &ld->m->fw, d);
    }
    else if (sd->kind == SEC_RAPL)
        rc = check_rapl(ld, ld->obj, d);
    ld->sd = NULL;
    return rc;
}

/* ---- opening sections ------------------------------------------------------ */

static int type_index(const struct hw_machine *m, const char *name)
{
    for (int i = 0; i < m->ntypes; i++)
        if (strcmp(m->types[i].name, name) == 0)
            return i;
    return -1;
}

static int pkgstate_index(const struct hw_machine *m, const char *name)
{
    for (int i = 0; i < m->npkgstates; i++)
        if (strcmp(m->pkgstates[i].name, name) == 0)
            return i;
    return -1;
}

static int copy_name(struct loader *ld, char *dst, const char *src, struct diag *d)
{
    if (str_copy(dst, HW_NAME_MAX, src) != 0)
        return diag_error(d, ld->path, ld->line, "%s: name '%s' is longer than %d characters",
                          ld->label, src, HW_NAME_MAX - 1);
    return 0;
}

static int duplicate(struct loader *ld, int first_line, struct diag *d)
{
    return diag_error(d, ld->path, ld->line, "duplicate section %s (first at line %d)",
                      ld->label, first_line);
}

static int too_many(struct loader *ld, int limit, struct diag *d)
{
    return diag_error(d, ld->path, ld->line, "%s: more than %d sections of this kind",
                      ld->label, limit);
}

static int open_machine(struct loader *ld, struct diag *d)
{
    if (ld->machine_line)
        return duplicate(ld, ld->machine_line, d);
    ld->machine_line = ld->line;
    ld->obj = ld->m;
    return 0;
}

static int open_core_type(struct loader *ld, const char *name, struct diag *d)
{
    struct hw_machine *m = ld->m;
    int i = type_index(m, name);
    if (i >= 0)
        return duplicate(ld, ld->type_line[i], d);
    if (m->ntypes == HW_MAX_CORE_TYPES)
        return too_many(ld, HW_MAX_CORE_TYPES, d);
    struct hw_core_type *t = &m->types[m->ntypes];
    if (copy_name(ld, t->name, name, d) != 0)
        return -1;
    t->threads_per_core = m->threads_per_core;
    ld->type_line[m->ntypes++] = ld->line;
    ld->obj = t;
    return 0;
}

static int open_cstate(struct loader *ld, const char *type, const char *name, struct diag *d)
{
    int ti = type_index(ld->m, type);
    if (ti < 0)
        return diag_error(d, ld->path, ld->line,
                          "%s: unknown core type '%s' (declare [core_type %s] before its C-states)",
                          ld->label, type, type);
    struct hw_core_type *t = &ld->m->types[ti];
    if (hw_cstate_index(t, name) >= 0)
        return diag_error(d, ld->path, ld->line, "duplicate section %s", ld->label);
    if (t->ncstates == HW_MAX_CSTATES)
        return too_many(ld, HW_MAX_CSTATES, d);
    struct hw_cstate *c = &t->cstates[t->ncstates];
    if (copy_name(ld, c->name, name, d) != 0)
        return -1;
    t->ncstates++;
    ld->type = ti;
    ld->obj = c;
    return 0;
}

/* A package state's number: "PC3" -> 3, -1 for a name that is not turbostat's
 * Pkg%pcN form (PC2, PC3, PC6, PC7, PC8, PC9, PC10 on Intel client parts;
 * tools/power/x86/turbostat). */
static int pkgstate_number(const char *name)
{
    if (strncmp(name, "PC", 2) != 0 || name[2] < '1' || name[2] > '9')
        return -1;
    char *end;
    long n = strtol(name + 2, &end, 10);
    return *end == '\0' && n >= 1 && n <= 10 ? (int)n : -1;
}

static int open_pkgstate(struct loader *ld, const char *name, struct diag *d)
{
    struct hw_machine *m = ld->m;
    if (pkgstate_index(m, name) >= 0)
        return diag_error(d, ld->path, ld->line, "duplicate section %s", ld->label);
    int num = pkgstate_number(name);
    if (num < 0)
        return diag_error(d, ld->path, ld->line,
                          "package state '%s' is not named as turbostat names them (PC1..PC10)",
                          name);
    if (m->npkgstates > 0 && num <= pkgstate_number(m->pkgstates[m->npkgstates - 1].name))
        return diag_error(d, ld->path, ld->line,
                          "package states go shallowest first: %s after %s", name,
                          m->pkgstates[m->npkgstates - 1].name);
    if (m->npkgstates == HW_MAX_PKGSTATES)
        return too_many(ld, HW_MAX_PKGSTATES, d);
    struct hw_pkgstate *p = &m->pkgstates[m->npkgstates];
    if (copy_name(ld, p->name, name, d) != 0)
        return -1;
    m->npkgstates++;
    ld->obj = p;
    return 0;
}

static int open_firmware(struct loader *ld, struct diag *d)
{
    if (ld->firmware_line)
        return duplicate(ld, ld->firmware_line, d);
    ld->firmware_line = ld->line;
    ld->obj = &ld->m->fw;
    return 0;
}

static int open_rapl(struct loader *ld, struct diag *d)
{
    if (ld->rapl_line)
        return duplicate(ld, ld->rapl_line, d);
    ld->rapl_line = ld->line;
    ld->obj = &ld->m->rapl;
    return 0;
}

static int open_calibration(struct loader *ld, struct diag *d)
{
    if (ld->calib_section_line)
        return duplicate(ld, ld->calib_section_line, d);
    ld->calib_section_line = ld->line;
    ld->obj = NULL;
    return 0;
}

/* Split a header into at most 4 space-separated words, in place. */
static int split_words(char *s, char *words[4])
{
    int n = 0;
    for (char *p = s; *p;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        if (n == 4)
            return 5;
        words[n++] = p;
        p += strcspn(p, " \t");
    }
    return n;
}

/* Remember the open section's header words, single-spaced, for overrides. */
static void loader_note_header(struct loader *ld, char *const *w, int n)
{
    ld->header[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(ld->header + strlen(ld->header), sizeof ld->header - strlen(ld->header), "%s%s",
                 i ? " " : "", w[i]);
    ld->headers = xreallocarray(ld->headers, (size_t)ld->nheaders + 1, sizeof *ld->headers);
    ld->headers[ld->nheaders++] = xstrdup(ld->header);
    for (int i = 0; i < ld->nov; i++)
        if (strcmp(ld->ov[i].section, ld->header) == 0)
            ld->ov_section_seen[i] = true;
}

/* The override of key in the open section, or -1. */
static int override_of(const struct loader *ld, const char *key)
{
    for (int i = ld->nov - 1; i >= 0; i--) /* the last one given wins */
        if (strcmp(ld->ov[i].section, ld->header) == 0 && strcmp(ld->ov[i].key, key) == 0)
            return i;
    return -1;
}

static const struct sec_desc *sec_lookup(const char *word)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (strcmp(sections[i].word, word) == 0)
            return &sections[i];
    return NULL;
}

static int on_section(void *ctx, const char *name, int line, struct diag *d)
{
    struct loader *ld = ctx;
    if (close_section(ld, d) != 0)
        return -1;
    char buf[INIFILE_LINE_MAX + 1];
    str_copy(buf, sizeof buf, name);
    char *w[4] = { 0 };
    int n = split_words(buf, w);
    const struct sec_desc *sd = n > 0 ? sec_lookup(w[0]) : NULL;
    if (!sd)
        return diag_error(d, ld->path, line,
                          "unknown section [%s]; expected [machine], [core_type NAME], "
                          "[cstate TYPE NAME], [pkgstate NAME], [firmware], [rapl] or "
                          "[calibration]", name);
    if (n - 1 != sd->nargs)
        return diag_error(d, ld->path, line, "section [%s] should read %s", name, sd->usage);
    if (sd->kind != SEC_MACHINE && !ld->machine_line)
        return diag_error(d, ld->path, line, "[machine] must be the first section");
    ld->sd = sd;
    ld->line = line;
    ld->seen = 0;
    ld->last_key = -1;
    ld->last_key_overridden = false;
    loader_note_header(ld, w, n);
    snprintf(ld->label, sizeof ld->label, "[%.100s]", name);
    switch (sd->kind) {
    case SEC_MACHINE: return open_machine(ld, d);
    case SEC_CORE_TYPE: return open_core_type(ld, w[1], d);
    case SEC_CSTATE: return open_cstate(ld, w[1], w[2], d);
    case SEC_PKGSTATE: return open_pkgstate(ld, w[1], d);
    case SEC_CALIB: return open_calibration(ld, d);
    case SEC_FIRMWARE: return open_firmware(ld, d);
    case SEC_RAPL: return open_rapl(ld, d);
    case SEC_NONE: break;
    }
    return diag_error(d, ld->path, line, "internal error: section kind");
}

/* ---- keys -------------------------------------------------------------------- */

static int on_calib_key(struct loader *ld, const char *key, const char *value, int line,
                        struct diag *d)
{
    struct hw_machine *m = ld->m;
    const struct hw_calib_desc *c = calib_lookup(key);
    if (!c) {
        char known[400] = "";
        for (size_t i = 0; i < NCALIB_REGISTRY; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     calib_registry[i].key);
        return diag_error(d, ld->path, line, "unknown calibration key '%s' (known: %s)", key, known);
    }
    for (int i = 0; i < m->ncalib; i++)
        if (strcmp(m->calib[i].key, key) == 0)
            return diag_error(d, ld->path, line, "duplicate key '%s' in [calibration]", key);
    const struct key_desc k = { .name = c->key, .type = KT_DOUBLE, .min = c->min, .max = c->max };
    double v;
    if (parse_real(ld, line, &k, value, &v, d) != 0)
        return -1;
    if (m->ncalib == HW_MAX_CALIB)
        return diag_error(d, ld->path, line, "more than %d calibration keys", HW_MAX_CALIB);
    str_copy(m->calib[m->ncalib].key, HW_NAME_MAX, key);
    m->calib[m->ncalib++].value = v;
    return 0;
}

/* Set a key of the open section from text; line is the file's line of the
 * key (0: the file leaves it out). */
static int set_key(struct loader *ld, const char *key, const char *value, int line,
                   struct diag *d)
{
    const struct sec_desc *sd = ld->sd;
    if (sd->kind == SEC_CALIB)
        return on_calib_key(ld, key, value, line, d);
    for (size_t i = 0; i < sd->nkeys; i++) {
        if (strcmp(sd->keys[i].name, key) != 0)
            continue;
        if (ld->seen & (1u << i))
            return diag_error(d, ld->path, line, "duplicate key '%s' in %s (first at line %d)",
                              key, ld->label, ld->key_line[i]);
        ld->seen |= 1u << i;
        ld->key_line[i] = line;
        ld->last_key = (int)i;
        return parse_value(ld, line, &sd->keys[i], value, d);
    }
    return -2; /* no such key */
}

/* Override o in place of the file's line (or of no line, line 0): its value
 * is checked as the file's would be, errors naming the override. */
static int apply_override(struct loader *ld, int o, int line, struct diag *d)
{
    const struct hw_machine_override *ov = &ld->ov[o];
    for (int i = 0; i < ld->nov; i++) /* earlier ones of the same key are replaced */
        if (strcmp(ld->ov[i].section, ov->section) == 0 && strcmp(ld->ov[i].key, ov->key) == 0)
            ld->ov_done[i] = true;
    const char *path = ld->path;
    ld->path = ov->origin;
    int rc = set_key(ld, ov->key, ov->value, 0, d);
    ld->path = path;
    if (rc == -2) {
        struct suggest sg;
        suggest_init(&sg, ov->key);
        for (size_t i = 0; i < ld->sd->nkeys; i++)
            suggest_add(&sg, ld->sd->keys[i].name);
        for (size_t i = 0; ld->sd->kind == SEC_CALIB && i < NCALIB_REGISTRY; i++)
            suggest_add(&sg, calib_registry[i].key);
        const char *near = suggest_result(&sg);
        return diag_error(d, ov->origin, 0, "%s has no key '%s'%s%s%s (machine %s)", ld->label,
                          ov->key, near ? "; did you mean " : "", near ? near : "",
                          near ? "?" : "", path);
    }
    if (rc == 0 && line > 0 && ld->sd->kind != SEC_CALIB)
        ld->key_line[ld->last_key] = line;
    return rc;
}

static int on_key(void *ctx, const char *section, const char *key, const char *value,
                  bool continuation, int line, struct diag *d)
{
    struct loader *ld = ctx;
    (void)section; /* the loader tracks the open section itself */
    if (!ld->sd)
        return diag_error(d, ld->path, line, "key '%s' before any section", key);
    const struct sec_desc *sd = ld->sd;
    if (continuation && ld->last_key_overridden)
        return 0; /* more of a list the override replaces */
    /* inih hands an indented line to the previous key; only lists take more. */
    if (continuation && ld->last_key >= 0 && strcmp(key, sd->keys[ld->last_key].name) == 0) {
        const struct key_desc *k = &sd->keys[ld->last_key];
        if (k->type == KT_CPU_GROUPS)
            return append_cpu_groups(ld, line, k, value, d);
        if (k->type != KT_MHZ_LIST && k->type != KT_PERF_LIST)
            return diag_error(d, ld->path, line,
                              "'%s' takes one value (an indented line continues the key above)",
                              key);
        return parse_mhz_list(ld, line, k, value, d);
    }
    int o = override_of(ld, key);
    ld->last_key_overridden = o >= 0;
    if (o >= 0)
        return apply_override(ld, o, line, d);
    int rc = set_key(ld, key, value, line, d);
    return rc == -2 ? diag_error(d, ld->path, line, "unknown key '%s' in %s", key, ld->label) : rc;
}

/* ---- whole-file checks and topology ------------------------------------------- */

/* The CPU identity: x86 parts name their model in [machine] (cpu_model,
 * cpu_family: what intel_idle and intel_pstate match on); Arm parts have no
 * such thing, each core type is a MIDR part (cpu_part, the DT compatible). */
static int check_identity(struct loader *ld, struct diag *d)
{
    const struct hw_machine *m = ld->m;
    bool arm = hw_machine_is_arm(m);
    if (!arm && !m->cpu_model[0])
        return diag_error(d, ld->path, ld->machine_line,
                          "[machine]: missing required key 'cpu_model'");
    if (arm && (m->cpu_model[0] || m->cpu_family))
        return diag_error(d, ld->path, m->cpu_model[0] ? m->cpu_model_line : ld->machine_line,
                          "[machine]: cpu_model and cpu_family are x86 (CPUID); an Arm machine "
                          "names each core type's MIDR part in [core_type] cpu_part");
    for (int i = 0; i < m->ntypes; i++) {
        if (arm && !m->types[i].cpu_part[0])
            return diag_error(d, ld->path, ld->type_line[i],
                              "[core_type %s]: missing required key 'cpu_part' (the MIDR part, "
                              "e.g. cortex-a57)", m->types[i].name);
        if (!arm && m->types[i].capacity_dmips_mhz)
            return diag_error(d, ld->path, ld->type_line[i],
                              "[core_type %s]: capacity_dmips_mhz is a device-tree property "
                              "(vendor = arm)", m->types[i].name);
        if (!arm && m->types[i].cpu_part[0])
            return diag_error(d, ld->path, ld->type_part_line[i],
                              "[core_type %s]: cpu_part is for vendor = arm; an x86 machine "
                              "names its model in [machine] cpu_model", m->types[i].name);
    }
    return 0;
}

static int check_machine(struct loader *ld, struct diag *d)
{
    struct hw_machine *m = ld->m;
    if (m->cpu_family == 0 && strcmp(m->vendor, "intel") == 0)
        m->cpu_family = 6;      /* every Intel core pmlab models is family 6 */
    if (!ld->machine_line)
        return diag_error(d, ld->path, 0, "no [machine] section");
    if (m->ntypes == 0)
        return diag_error(d, ld->path, ld->machine_line, "no [core_type NAME] section");
    if (check_identity(ld, d) != 0)
        return -1;
    int max_threads = 0;
    for (int i = 0; i < m->ntypes; i++) {
        const struct hw_core_type *t = &m->types[i];
        if (t->ncstates == 0)
            return diag_error(d, ld->path, ld->type_line[i],
                              "[core_type %s] has no [cstate %s NAME] section", t->name, t->name);
        if (t->threads_per_core > max_threads)
            max_threads = t->threads_per_core;
    }
    if (max_threads != m->threads_per_core)
        return diag_error(d, ld->path, ld->machine_threads_line,
                          "threads_per_core = %d but no core type has that many threads",
                          m->threads_per_core);
    return 0;
}

/* Each package state names a core C-state every core type has; package
 * states go shallowest first, i.e. by that C-state's depth. */
static int check_pkgstates(struct loader *ld, struct diag *d)
{
    const struct hw_machine *m = ld->m;
    int prev_depth = -1;
    for (int i = 0; i < m->npkgstates; i++) {
        const struct hw_pkgstate *p = &m->pkgstates[i];
        int line = ld->pkg_cstate_line[i];
        for (int t = 0; t < m->ntypes; t++)
            if (hw_cstate_index(&m->types[t], p->core_cstate) < 0)
                return diag_error(d, ld->path, line,
                                  "core_cstate '%s' is not a C-state of core type %s",
                                  p->core_cstate, m->types[t].name);
        int depth = hw_cstate_index(&m->types[0], p->core_cstate);
        if (depth < prev_depth)
            return diag_error(d, ld->path, line,
                              "package states go shallowest first, but %s needs a shallower "
                              "core state than the one before it", p->name);
        prev_depth = depth;
    }
    return 0;
}

/* A _CPC list describes every CPU: the kernel reads one _CPC per processor
 * object, so a shorter list is a file that forgot some. */
static int check_firmware(struct loader *ld, struct diag *d)
{
    const struct hw_machine *m = ld->m;
    if (m->fw.ncpc > 0 && m->fw.ncpc != m->ncpus)
        return diag_error(d, ld->path, ld->cpc_line,
                          "cpc_highest_perf lists %d values but the machine has %d CPUs",
                          m->fw.ncpc, m->ncpus);
    return 0;
}

/* Number the cores package-major, then by type in file order; number the CPUs
 * as Linux does for the machine's cpu_numbering (see enum hw_cpu_numbering). */
static void build_topology(struct hw_machine *m)
{
    m->ncores = 0;
    m->ncpus = 0;
    for (int t = 0; t < m->ntypes; t++) {
        m->ncores += m->packages * m->types[t].cores_per_package;
        m->ncpus += m->packages * m->types[t].cores_per_package * m->types[t].threads_per_core;
    }
    m->cores = xcalloc((size_t)m->ncores, sizeof *m->cores);
    m->cpus = xcalloc((size_t)m->ncpus, sizeof *m->cpus);
    int c = 0;
    for (int p = 0; p < m->packages; p++)
        for (int t = 0; t < m->ntypes; t++)
            for (int k = 0; k < m->types[t].cores_per_package; k++, c++)
                m->cores[c] = (struct hw_core){ .package = p, .type = t,
                                                .nthreads = m->types[t].threads_per_core };
    int cpu = 0;
    bool split = m->cpu_numbering == HW_CPU_NUMBERING_SPLIT;
    int rounds = split ? m->threads_per_core : 1;
    for (int r = 0; r < rounds; r++) {
        for (c = 0; c < m->ncores; c++) {
            struct hw_core *core = &m->cores[c];
            int first = split ? r : 0, last = split ? r + 1 : core->nthreads;
            for (int th = first; th < last && th < core->nthreads; th++) {
                core->cpus[th] = cpu;
                m->cpus[cpu++] = (struct hw_cpu){ .package = core->package, .core = c,
                                                  .thread = th, .type = core->type };
            }
        }
    }
}

/* The CPUs a type's cpus list names, into mask; none in two types. */
static int type_cpus_parse(struct loader *ld, int t, bool *taken, bool *mask, struct diag *d)
{
    const struct hw_machine *m = ld->m;
    const struct hw_core_type *ct = &m->types[t];
    int line = ld->type_cpus_line[t];
    char msg[160];
    if (cpulist_parse(ct->cpus_text, m->ncpus, mask, msg, sizeof msg) != 0)
        return diag_error(d, ld->path, line, "cpus: '%s': %s", ct->cpus_text, msg);
    int want = m->packages * ct->cores_per_package * ct->threads_per_core;
    if (cpulist_weight(mask, m->ncpus) != want)
        return diag_error(d, ld->path, line,
                          "cpus: '%s' lists %d CPUs but [core_type %s] has %d", ct->cpus_text,
                          cpulist_weight(mask, m->ncpus), ct->name, want);
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        if (mask[cpu] && taken[cpu])
            return diag_error(d, ld->path, line, "cpus: CPU %d is in two core types", cpu);
        taken[cpu] |= mask[cpu];
    }
    return 0;
}

/* Number the CPUs by the types' cpus lists (as the firmware enumerates
 * them: on Juno the boot CPU, an A53, is cpu0, then the device tree's order
 * puts the A57s at 1-2): each type's cores in order take the type's CPUs in
 * ascending order, threads of a core consecutively. All types give a list
 * or none does. */
static int apply_type_cpus(struct loader *ld, struct diag *d)
{
    struct hw_machine *m = ld->m;
    int given = 0;
    for (int t = 0; t < m->ntypes; t++)
        given += m->types[t].cpus_text[0] != '\0';
    if (given == 0)
        return 0;
    for (int t = 0; t < m->ntypes; t++)
        if (!m->types[t].cpus_text[0])
            return diag_error(d, ld->path, ld->type_line[t],
                              "[core_type %s] has no cpus list but another type has one: give "
                              "every type's CPUs or none", m->types[t].name);
    bool *taken = xcalloc((size_t)m->ncpus, sizeof *taken);
    bool *mask = xcalloc((size_t)m->ncpus * (size_t)m->ntypes, sizeof *mask);
    int rc = 0;
    for (int t = 0; t < m->ntypes && rc == 0; t++)
        rc = type_cpus_parse(ld, t, taken, mask + (size_t)t * (size_t)m->ncpus, d);
    for (int c = 0, next[HW_MAX_CORE_TYPES] = { 0 }; c < m->ncores && rc == 0; c++) {
        struct hw_core *core = &m->cores[c];
        const bool *tm = mask + (size_t)core->type * (size_t)m->ncpus;
        for (int th = 0; th < core->nthreads; th++) {
            int cpu = next[core->type];
            while (!tm[cpu])
                cpu++;
            next[core->type] = cpu + 1;
            core->cpus[th] = cpu;
            m->cpus[cpu] = (struct hw_cpu){ .package = core->package, .core = c, .thread = th,
                                            .type = core->type };
        }
    }
    free(taken);
    free(mask);
    return rc;
}

/* A [machine] key listing the CPUs that share one cache level. */
struct cpu_groups_desc {
    const char *key;               /* "l2_groups" */
    const char *cache;             /* "L2", in messages ("an L2") */
    const char *missing_hint;      /* what to do about CPUs in no group */
};

static const struct cpu_groups_desc l2_groups_desc = {
    "l2_groups", "L2", "every CPU has an L2: list a core with its own L2 as a group of its threads",
};
static const struct cpu_groups_desc llc_groups_desc = {
    "llc_groups", "LLC", "every CPU has an LLC: list each L3 (each CCD's on AMD) as a group",
};

/* One group of a cpu-groups key: the CPUs of text (a cpulist) into mask,
 * none of them already in a group (group[cpu] >= 0), whole cores of one
 * package. */
static int cpu_group_parse(struct loader *ld, const struct cpu_groups_desc *gd, int line,
                           const char *text, bool *mask, int *group, struct diag *d)
{
    const struct hw_machine *m = ld->m;
    char msg[160];
    if (cpulist_parse(text, m->ncpus, mask, msg, sizeof msg) != 0)
        return diag_error(d, ld->path, line, "%s: '%s': %s", gd->key, text, msg);
    int first = -1;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        if (!mask[cpu])
            continue;
        if (first < 0)
            first = cpu;
        if (group[cpu] >= 0)
            return diag_error(d, ld->path, line,
                              "%s: CPU %d is in two groups (an %s is shared by one set of cores)",
                              gd->key, cpu, gd->cache);
        if (m->cpus[cpu].package != m->cpus[first].package)
            return diag_error(d, ld->path, line, "%s: '%s' spans packages %d and %d", gd->key,
                              text, m->cpus[first].package, m->cpus[cpu].package);
        const struct hw_core *core = &m->cores[m->cpus[cpu].core];
        for (int t = 0; t < core->nthreads; t++)
            if (!mask[core->cpus[t]])
                return diag_error(d, ld->path, line,
                                  "%s: '%s' has CPU %d but not its SMT sibling %d (threads "
                                  "of a core share its %s)", gd->key, text, cpu, core->cpus[t],
                                  gd->cache);
    }
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        if (mask[cpu])
            group[cpu] = first;
    return 0;
}

/* text (the key's value, at line) into group: every CPU in exactly one
 * group, group[cpu] the group's first CPU. group[] starts all -1. */
static int cpu_groups_parse(struct loader *ld, const struct cpu_groups_desc *gd, int line,
                            const char *text, int *group, struct diag *d)
{
    struct hw_machine *m = ld->m;
    bool *mask = xcalloc((size_t)m->ncpus, sizeof *mask);
    char buf[HW_CPU_GROUPS_TEXT_MAX];
    str_copy(buf, sizeof buf, text);
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " \t", &save); tok && rc == 0;
         tok = strtok_r(NULL, " \t", &save))
        rc = cpu_group_parse(ld, gd, line, tok, mask, group, d);
    for (int cpu = 0; cpu < m->ncpus && rc == 0; cpu++)
        mask[cpu] = group[cpu] < 0;
    if (rc == 0 && cpulist_weight(mask, m->ncpus) > 0) {
        char *missing = cpulist_format(mask, m->ncpus);
        rc = diag_error(d, ld->path, line, "%s: CPUs %s are in no group (%s)", gd->key, missing,
                        gd->missing_hint);
        free(missing);
    }
    free(mask);
    return rc;
}

/* l2_groups: absent, each core its own. */
static int check_l2_groups(struct loader *ld, struct diag *d)
{
    struct hw_machine *m = ld->m;
    m->l2_group = xcalloc((size_t)m->ncpus, sizeof *m->l2_group);
    for (int cpu = 0; cpu < m->ncpus; cpu++)
        m->l2_group[cpu] = m->l2_groups_text[0] ? -1 : m->cores[m->cpus[cpu].core].cpus[0];
    if (!m->l2_groups_text[0])
        return 0;
    return cpu_groups_parse(ld, &l2_groups_desc, ld->l2_groups_line, m->l2_groups_text,
                            m->l2_group, d);
}

/* llc_groups: absent, one LLC per package (its first CPU). Given, each L2
 * group lies in one LLC: the CLS domain is MC's child, and a child span
 * that is not a subset of its parent's is the kernel's "BUG: arch topology
 * borken" (build_sched_domain, kernel/sched/topology.c). */
static int check_llc_groups(struct loader *ld, struct diag *d)
{
    struct hw_machine *m = ld->m;
    m->llc_group = xcalloc((size_t)m->ncpus, sizeof *m->llc_group);
    int *pkg_first = xcalloc((size_t)m->packages, sizeof *pkg_first);
    for (int p = 0; p < m->packages; p++)
        pkg_first[p] = -1;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        int *first = &pkg_first[m->cpus[cpu].package];
        *first = *first < 0 ? cpu : *first;
        m->llc_group[cpu] = m->llc_groups_text[0] ? -1 : *first;
    }
    free(pkg_first);
    if (!m->llc_groups_text[0])
        return 0;
    if (cpu_groups_parse(ld, &llc_groups_desc, ld->llc_groups_line, m->llc_groups_text,
                         m->llc_group, d) != 0)
        return -1;
    for (int cpu = 0; cpu < m->ncpus; cpu++) {
        int l2_first = m->l2_group[cpu];
        if (m->llc_group[l2_first] != m->llc_group[cpu])
            return diag_error(d, ld->path, ld->llc_groups_line,
                              "llc_groups: CPUs %d and %d share an L2 (l2_groups) but not an "
                              "LLC (an L2 group lies within one LLC)", l2_first, cpu);
    }
    return 0;
}

/* ---- public ------------------------------------------------------------------ */

/* An override of a section the file does not have. */
static int check_override_sections(struct loader *ld, struct diag *d)
{
    for (int o = 0; o < ld->nov; o++) {
        if (ld->ov_section_seen[o])
            continue;
        struct suggest sg;
        suggest_init(&sg, ld->ov[o].section);
        for (int i = 0; i < ld->nheaders; i++)
            suggest_add(&sg, ld->headers[i]);
        const char *near = suggest_result(&sg);
        return diag_error(d, ld->ov[o].origin, 0, "machine %s has no section [%s]%s%s%s", ld->path,
                          ld->ov[o].section, near ? "; did you mean [" : "", near ? near : "",
                          near ? "]?" : "");
    }
    return 0;
}

struct hw_machine *hw_machine_load_with(const char *path, const struct hw_machine_override *ov,
                                        int nov, struct diag *d)
{
    struct hw_machine *m = xcalloc(1, sizeof *m);
    struct loader ld = { .path = path, .m = m, .last_key = -1, .ov = ov, .nov = nov };
    static const struct inifile_ops ops = { .section = on_section, .key = on_key };
    ld.ov_done = xcalloc((size_t)nov + 1, sizeof *ld.ov_done);
    ld.ov_section_seen = xcalloc((size_t)nov + 1, sizeof *ld.ov_section_seen);
    m->path = xstrdup(path);
    int rc = inifile_parse(path, &ops, &ld, d);
    if (rc == 0 && (close_section(&ld, d) != 0 || check_override_sections(&ld, d) != 0 ||
                    check_machine(&ld, d) != 0 || check_pkgstates(&ld, d) != 0))
        rc = -1;
    if (rc == 0)
        build_topology(m);
    if (rc == 0 && (apply_type_cpus(&ld, d) != 0 || check_firmware(&ld, d) != 0 ||
                    check_l2_groups(&ld, d) != 0 || check_llc_groups(&ld, d) != 0))
        rc = -1;
    for (int i = 0; i < ld.nheaders; i++)
        free(ld.headers[i]);
    free(ld.headers);
    free(ld.ov_done);
    free(ld.ov_section_seen);
    if (rc == 0)
        return m;
    hw_machine_free(m);
    return NULL;
}

struct hw_machine *hw_machine_load(const char *path, struct diag *d)
{
    return hw_machine_load_with(path, NULL, 0, d);
}

void hw_machine_free(struct hw_machine *m)
{
    if (!m)
        return;
    free(m->l2_group);
    free(m->llc_group);
    free(m->cpus);
    free(m->cores);
    free(m->path);
    free(m);
}

char *hw_machine_find_path(const char *name, const char *dirs)
{
    if (!name || !*name || strchr(name, '/') || !dirs)
        return NULL;
    for (const char *p = dirs;;) {
        size_t len = strcspn(p, ":");
        const char *sep = len && p[len - 1] != '/' ? "/" : "";
        char *path = xasprintf("%.*s%s%s.ini", (int)len, p, sep, name);
        if (access(path, R_OK) == 0)
            return path;
        free(path);
        if (!p[len])
            return NULL;
        p += len + 1;
    }
}

int hw_machine_find(const char *name, const char *dirs, char *out, size_t outsz)
{
    char *path = hw_machine_find_path(name, dirs);
    int rc = path ? str_copy(out, outsz, path) : -1;
    free(path);
    return rc;
}

double hw_core_active_power_mw(const struct hw_core_type *t, uint32_t freq_mhz)
{
    double f = freq_mhz;
    if (f < t->min_mhz)
        f = t->min_mhz;
    if (f > t->max_mhz)
        f = t->max_mhz;
    if (t->max_mhz <= t->base_mhz || t->active_power_mw_base <= 0)
        return t->active_power_mw_max;
    double k = log(t->active_power_mw_max / t->active_power_mw_base) /
               log((double)t->max_mhz / t->base_mhz);
    return t->active_power_mw_base * pow(f / t->base_mhz, k);
}

bool hw_machine_is_arm(const struct hw_machine *m)
{
    return strcmp(m->vendor, "arm") == 0;
}

int hw_cstate_index(const struct hw_core_type *t, const char *name)
{
    for (int i = 0; i < t->ncstates; i++)
        if (strcmp(t->cstates[i].name, name) == 0)
            return i;
    return -1;
}
