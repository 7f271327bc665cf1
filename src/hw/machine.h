/* machine: the simulated silicon as described by a machine file.
 *
 * A machine file (machines/NAME.ini) is data, not code: topology, core types,
 * per-type idle-state hardware, package states, frequencies and power figures,
 * and the calibration constants of the model. Every number carries its unit in
 * its key and a source comment in the file. A user adds a machine by writing a
 * file; see docs/machine-files.md for the format.
 *
 * The loaded struct hw_machine is immutable and shared by every run that uses
 * it (runs only read it), so it needs no locking. */
#ifndef PMLAB_HW_MACHINE_H
#define PMLAB_HW_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"
#include "util/diag.h"

#define HW_NAME_MAX 32
#define HW_TEXT_MAX 160
#define HW_MAX_CSTATES 10     /* hardware core C-states per core type */
#define HW_MAX_PKGSTATES 8
#define HW_MAX_CORE_TYPES 4
#define HW_MAX_TURBO_BINS 64  /* max turbo frequency by number of active cores */
#define HW_MAX_CALIB 32
#define HW_MAX_SMT 8           /* threads per core (SMT2, SMT4, SMT8 parts; hw/cpu.h hw_siblings_factor) */
#define HW_MAX_CPC 512         /* CPUs a [firmware] _CPC list may describe */
#define HW_CPU_GROUPS_TEXT_MAX 1024 /* [machine] l2_groups, llc_groups: a line and its
                                    * continuation lines */
#define HW_MAX_CST 8           /* [firmware] _CST entries (ACPI_CST_MAX) */

/* A core idle state the hardware offers (what MWAIT with this hint does). The
 * driver's table (latency/residency the kernel believes) is kernel data and
 * lives in intel_idle, not here; these are the physics. */
struct hw_cstate {
    char name[HW_NAME_MAX];        /* "C1", "C1E", "C6" */
    uint32_t mwait_hint;           /* MWAIT EAX hint, e.g. 0x20 for C6 */
    sim_time_t exit_latency_ns;    /* wakeup to first instruction */
    double core_power_mw;          /* one core resident in this state */
    bool flushes_caches;           /* L1/L2 (and TLB) contents lost */
    sim_time_t refill_ns;          /* extra run time after wakeup to refill them */
    uint32_t io_port;              /* a _CST I/O entry reading this port enters this
                                    * state (AMD's C2); 0: none */
    /* vendor = arm: a device-tree idle state (arm,idle-state binding,
     * Documentation/devicetree/bindings/cpu/idle-states.yaml). The first
     * [cstate] of an Arm core type is the architectural WFI and has none of
     * these; every later one is a DT state with all of them. exit_latency_us
     * above is the DT's exit-latency-us. */
    bool dt_state;                 /* has a psci_suspend_param: a DT idle state */
    uint32_t psci_suspend_param;   /* arm,psci-suspend-param (the PSCI power_state) */
    sim_time_t entry_latency_ns;   /* entry-latency-us */
    sim_time_t min_residency_ns;   /* min-residency-us */
    bool local_timer_stop;         /* local-timer-stop: needs the broadcast timer */
    bool cluster_domain;           /* domain = cluster: the state powers the whole cluster
                                    * (the CPU's l2_groups group) down, see hw/cpu.h */
};

/* A package C-state: entered when every core of the package is in core state
 * core_cstate (matched by name in each type's cstates) or deeper. */
struct hw_pkgstate {
    char name[HW_NAME_MAX];        /* "PC2", "PC6" as turbostat names them */
    char core_cstate[HW_NAME_MAX]; /* shallowest core state that allows it */
    sim_time_t exit_latency_ns;    /* added to a core's exit latency */
    double pkg_power_mw;           /* uncore + package power while resident */
};

struct hw_core_type {
    char name[HW_NAME_MAX];        /* "P", "E", or the core name for uniform parts */
    int cores_per_package;
    int threads_per_core;          /* SMT threads of this type (E cores: 1) */
    double ipc_factor;             /* work per cycle relative to the reference core */
    uint32_t min_mhz, base_mhz, max_mhz;
    uint32_t turbo_mhz[HW_MAX_TURBO_BINS]; /* [k] = max with k+1 active cores */
    int nturbo;
    double active_power_mw_base;   /* one busy core at base_mhz */
    double active_power_mw_max;    /* one busy core at max_mhz */
    /* IA32_HWP_CAPABILITIES of this type's cores, in the type's performance
     * units (0 when the file gives none: intel_pstate then reads max_mhz /
     * 100, the 100 MHz unit of non-hybrid parts). */
    uint32_t hwp_highest_perf, hwp_guaranteed_perf, hwp_lowest_perf;
    struct hw_cstate cstates[HW_MAX_CSTATES]; /* shallowest first */
    int ncstates;
    /* vendor = arm: the MIDR part name ("cortex-a57"), as the DT's
     * compatible names the core; empty on x86. */
    char cpu_part[HW_NAME_MAX];
    /* cpus as written: the Linux CPU numbers of this type's threads, a
     * cpulist; empty: numbered by cpu_numbering (see hw_machine.cpus). */
    char cpus_text[HW_TEXT_MAX];
    /* vendor = arm: the operating points (MHz) the firmware's DVFS table
     * offers, ascending, from min_mhz to max_mhz (SCPI / the DT OPP
     * table); nopp = 0: none (x86 steps in 100 MHz ratios). */
    uint32_t opp_mhz[HW_MAX_TURBO_BINS];
    int nopp;
    /* vendor = arm: the DT's capacity-dmips-mhz of this type's CPUs (the
     * kernel's work per MHz; 0: not given). */
    uint32_t capacity_dmips_mhz;
};

/* One physical core and the logical CPUs (SMT threads) on it. */
struct hw_core {
    int package;
    int type;                      /* index into hw_machine.types */
    int nthreads;
    int cpus[HW_MAX_SMT];          /* Linux CPU number of each thread */
};

/* How Linux numbers the SMT threads, as the firmware's MADT lists them:
 * ADJACENT: siblings get consecutive numbers (cpu0/cpu1 share core 0), as on
 *   client hybrids; SPLIT: thread 0 of every core of every package first, then
 *   thread 1 of every core, ..., as on multi-socket Xeons. */
enum hw_cpu_numbering {
    HW_CPU_NUMBERING_ADJACENT,
    HW_CPU_NUMBERING_SPLIT,
};

/* One logical CPU (SMT thread). */
struct hw_cpu {
    int package;
    int core;       /* machine-wide core index */
    int thread;     /* 0 .. threads_per_core-1 within its core */
    int type;       /* index into hw_machine.types */
};

/* How a firmware _CST entry is entered (its register's address space):
 * FFH = MWAIT with the address as hint, SYSTEM_IO = a read of the I/O port
 * at the address, HALT = HLT (ACPI_CSTATE_FFH/SYSTEMIO/HALT). */
enum hw_cst_method {
    HW_CST_FFH,
    HW_CST_SYSTEM_IO,
    HW_CST_HALT,
};

/* What the platform firmware (ACPI) tells the OS about CPPC, FACTS.md §6.
 * A machine file without [firmware] has neither: no v2 ack, no _CPC. */
struct hw_firmware {
    /* The final _OSC acknowledges CPPC v2 (platform-wide capability DWORD
     * bit 6, 0x40); the kernel asks for it when it supports CPPC. */
    bool osc_cppc_v2;
    /* _CPC HighestPerformance of each logical CPU, Linux numbering; 0xFF is
     * the value some firmware reports when it has nothing better. ncpc = 0:
     * the processor objects have no _CPC. */
    uint32_t cpc_highest_perf[HW_MAX_CPC];
    int ncpc;
    /* The _CST the processor objects list, in order (ACPI FFH entries: the
     * MWAIT hint and the worst-case latency); ncst = 0: no _CST given. A
     * model without an intel_idle table runs on it, as the kernel does. */
    uint32_t cst_mwait_hint[HW_MAX_CST]; /* the entry's address: hint or I/O port */
    uint32_t cst_latency_us[HW_MAX_CST];
    int ncst, ncst_latency;
    /* cst_methods as written ("ffh io"), and parsed: one per entry, all FFH
     * when the key is absent. */
    char cst_methods_text[HW_TEXT_MAX];
    enum hw_cst_method cst_method[HW_MAX_CST];
    /* cst_types: each entry's ACPI C-state type (1..3); ncst_type = 0: the
     * default C1, C2, then C3 by position. */
    uint32_t cst_type[HW_MAX_CST];
    int ncst_type;
    /* FADT Preferred_PM_Profile, as a word ("unspecified", "desktop",
     * "mobile", "enterprise_server", ...); amd-pstate reads it. */
    char pm_profile[HW_NAME_MAX];
};

#define HW_CPPC_MAX_PERF 0xFF  /* CPPC_MAX_PERF: "not a real value" (a1ff59784b27) */

/* [rapl]: the package power limits firmware leaves in MSR_PKG_POWER_LIMIT,
 * the same for every package (FACTS-2.md §8). PL1 holds the power averaged
 * over tau, PL2 the power over a short window (hw/rapl.h says how pmlab
 * models both). A machine file without [rapl] has no limits: pl1_mw = 0. */
struct hw_power_limits {
    double pl1_mw;                 /* long-term limit (powercap constraint_0) */
    double pl2_mw;                 /* short-term limit (constraint_1), >= pl1_mw */
    sim_time_t tau_ns;             /* PL1 time window, the "Turbo Time Parameter" */
};

struct hw_calib {
    char key[HW_NAME_MAX];
    double value;
};

/* A calibration constant the model knows: what a [calibration] key may be. */
struct hw_calib_desc {
    const char *key;
    const char *unit;
    double default_value;
    double min, max;               /* accepted range in a machine file */
    const char *description;
};

struct hw_machine {
    char name[HW_NAME_MAX];
    char description[HW_TEXT_MAX];
    char *path;                    /* the file it was loaded from (owned) */
    char vendor[HW_NAME_MAX];      /* "intel", "amd", ..., or "arm" */
    char cpu_model[HW_NAME_MAX];   /* kernel's INTEL_FAM6 name: "SKYLAKE_X", "ALDERLAKE";
                                    * empty for arm (each core type has a cpu_part) */
    uint32_t cpu_family;           /* CPUID family: 6 for the Intel cores modelled,
                                    * 0x19 for AMD Zen 3/4; 0 in the file: 6 on Intel */
    int vendor_line, cpu_model_line; /* of those keys, for errors found later */
    int packages;
    int threads_per_core;          /* 2 with SMT, 1 without (per P core; E cores have 1) */
    enum hw_cpu_numbering cpu_numbering;
    int ntypes;
    struct hw_core_type types[HW_MAX_CORE_TYPES];
    int ncores;                    /* all packages */
    int ncpus;                     /* logical CPUs, all packages */
    struct hw_cpu *cpus;           /* [ncpus], numbered as Linux enumerates them: by
                                    * cpu_numbering, or by the types' cpus lists */
    struct hw_core *cores;         /* [ncores]: package-major, then type order */
    double pkg_active_power_mw;    /* uncore power of a package not in a package C-state */
    /* [machine] l2_groups as written: the CPUs sharing each L2 (the
     * kernel's cluster, cpu_clustergroup_mask on x86), cpulists separated by
     * spaces; empty: every core has its own L2. */
    char l2_groups_text[HW_CPU_GROUPS_TEXT_MAX];
    int *l2_group;                 /* [ncpus]: first CPU of the CPU's L2 group */
    /* [machine] llc_groups as written: the CPUs sharing each last-level
     * cache (cpu_llc_shared_mask on x86: an L3 per CCD/CCX on AMD Zen),
     * same syntax; empty: one LLC per package. Each L2 group lies in one. */
    char llc_groups_text[HW_CPU_GROUPS_TEXT_MAX];
    int *llc_group;                /* [ncpus]: first CPU of the CPU's LLC group */
    struct hw_pkgstate pkgstates[HW_MAX_PKGSTATES]; /* shallowest first */
    int npkgstates;
    struct hw_firmware fw;         /* [firmware]: _OSC and _CPC */
    struct hw_power_limits rapl;   /* [rapl]: package power limits (pl1_mw 0: none) */
    struct hw_calib calib[HW_MAX_CALIB]; /* calibration constants present in the file */
    int ncalib;
};

/* Load and validate a machine file. Returns NULL with d set ("FILE:LINE: ...")
 * on any unknown section or key, bad number, out-of-range value or missing
 * required key. Free with hw_machine_free. */
struct hw_machine *hw_machine_load(const char *path, struct diag *d);

/* One key of a machine file replaced for a run (--set machine.SECTION.KEY=
 * VALUE): the file's value of KEY in the section whose header words are
 * `section` (single-spaced: "cstate P C6", "rapl"), or the key added there
 * when the file leaves it out. */
struct hw_machine_override {
    const char *section;
    const char *key;
    const char *value;
    const char *origin;            /* where it came from, for messages */
};

/* hw_machine_load with overrides: each is checked as the file's own line
 * would be (a bad value is "ORIGIN: ..."); a section the file lacks or a key
 * its section does not take is an error naming the closest one. */
struct hw_machine *hw_machine_load_with(const char *path, const struct hw_machine_override *ov,
                                        int nov, struct diag *d);
void hw_machine_free(struct hw_machine *m);

/* Find machine NAME: NAME.ini in each directory of the colon-separated list
 * dirs, in order. Returns its path (the caller frees it), or NULL if not
 * found. */
char *hw_machine_find_path(const char *name, const char *dirs);
/* The same into out; -1 also when the path does not fit. */
int hw_machine_find(const char *name, const char *dirs, char *out, size_t outsz);

/* A calibration constant by key: the file's value, else the registry default.
 * Aborts on a key not in the registry (a programming error). */
double hw_machine_calib(const struct hw_machine *m, const char *key);

/* The calibration registry (every key a machine file may set), for listing. */
const struct hw_calib_desc *hw_calib_registry(size_t *n);

/* Power of one busy core of type t at freq_mhz, in mW: the power law
 * P = P_base * (f / base_mhz)^k through the file's base and max points (k from
 * those two points), with f clamped to [min_mhz, max_mhz]. A power law rather
 * than a line because it stays positive below base_mhz. */
double hw_core_active_power_mw(const struct hw_core_type *t, uint32_t freq_mhz);

/* Whether m is an Arm machine (vendor = arm): device-tree idle states and
 * PSCI instead of MWAIT hints and ACPI. */
bool hw_machine_is_arm(const struct hw_machine *m);

/* Index of the hardware C-state named name in type t, or -1. */
int hw_cstate_index(const struct hw_core_type *t, const char *name);

#endif
