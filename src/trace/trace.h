/* trace: a recorded ftrace trace (trace-cmd's trace.dat) as the events pmlab
 * reads from it, and idlestat-like statistics of the real system.
 *
 * tracedat.c reads the file through libtracecmd (trace-cmd's own reader) into
 * a list of events in time order; stats.c turns that list into per-CPU,
 * per-idle-state statistics; neither knows the other's format, so the
 * statistics are tested on hand-made event lists. */
#ifndef PMLAB_TRACE_TRACE_H
#define PMLAB_TRACE_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel/cpuidle/cpuidle.h"
#include "kernel/kversion.h"
#include "util/diag.h"

#define TRACE_MAX_STATES 16   /* cpuidle states per CPU (CPUIDLE_STATE_MAX is 10) */
#define TRACE_IDLE_EXIT (-1)  /* cpu_idle state=4294967295 (PWR_EVENT_EXIT) */

enum trace_ev_kind {
    TRACE_EV_IDLE,     /* power:cpu_idle: value = state index or TRACE_IDLE_EXIT */
    TRACE_EV_FREQ,     /* power:cpu_frequency (or devlib's print marker): value = kHz */
    TRACE_EV_SWITCH,   /* sched:sched_switch: value = next pid (0: the idle task) */
    TRACE_EV_WAKEUP,   /* sched:sched_wakeup(_new): value = target CPU */
    TRACE_EV_IRQ,      /* irq:irq_handler_entry: a device interrupt */
    TRACE_EV_IPI,      /* ipi:ipi_entry, irq_vectors IPI entries */
    TRACE_EV_TIMER,    /* timer:hrtimer_expire_entry, timer_expire_entry, local timer */
    TRACE_EV_LOST,     /* events lost on this CPU's buffer just before */
    /* The scheduler's view, read for replay (replay.c); after LOST so the
     * counts `trace stats` prints (the kinds before LOST) stay as they are. */
    TRACE_EV_FORK,     /* sched:sched_process_fork: pid = parent, value = child */
    TRACE_EV_EXIT,     /* sched:sched_process_exit: pid = the exiting task */
    TRACE_EV_WAKING,   /* sched:sched_waking: as WAKEUP, on the waker's CPU */
    TRACE_EV_NKINDS,
};

/* The common_flags bits of a record's context (include/linux/trace_events.h
 * enum trace_flag_type, which libtraceevent mirrors): an event emitted in an
 * interrupt handler, hard or soft. TRACE_EV_WAKEUP/WAKING keep them in aux. */
#define TRACE_CTX_HARDIRQ 0x08
#define TRACE_CTX_SOFTIRQ 0x10

#define TRACE_COMM_LEN 16     /* TASK_COMM_LEN */

struct trace_ev {
    uint64_t ts_ns;
    int cpu;               /* the CPU it is about (cpu_id field, else the buffer's) */
    enum trace_ev_kind kind;
    int64_t value;
    int32_t pid;           /* SWITCH: prev_pid; WAKEUP, WAKING: the wakee; FORK: parent;
                            * EXIT: the task */
    int64_t aux;           /* SWITCH: prev_state; WAKEUP, WAKING: context flags */
};

/* The name (comm) a pid last had in the trace: a node of td->comm_tree. */
struct trace_comm {
    int32_t pid;
    char comm[TRACE_COMM_LEN];
};

struct trace_data {
    char *path;
    int ncpus;
    struct trace_ev *ev;   /* time order */
    size_t n, cap;
    uint64_t first_ts_ns, last_ts_ns;
    uint64_t nrecords;     /* every record read, of any event */
    uint64_t count[TRACE_EV_NKINDS];
    uint64_t ndevlib_freq; /* of count[TRACE_EV_FREQ], devlib's start markers (ftrace print) */
    uint64_t nlost;        /* lost events, as the buffers counted them (-1 unknown: 1) */
    char dropped[512];     /* what the file lacked (truncated data), "" if nothing */
    void *comm_tree;       /* struct trace_comm by pid: tsearch(3)'s tree, NULL empty */
    size_t ncomm;
    /* Which of the scheduler events the file's header describes (whether
     * recorded), so a replay can say which `trace-cmd record -e` it lacked. */
    bool has_switch, has_wakeup, has_waking, has_fork, has_exit;
};

/* What a reader needs from the file: `trace stats` and `whatif` the idle
 * events, a replay the scheduler's. */
enum trace_need { TRACE_NEED_IDLE, TRACE_NEED_SCHED };

/* Read path; -1 with d = "PATH: what is wrong" (exit status 2): not a
 * trace.dat, or without power:cpu_idle (naming the trace-cmd record options
 * it needs). A file cut short is read as far as it goes and td->dropped
 * says what was missing. */
int trace_read(const char *path, struct trace_data *td, struct diag *d);
/* The same for need: TRACE_NEED_SCHED needs sched:sched_switch instead of
 * power:cpu_idle (the message names every event a replay uses). A gzip
 * file (trace.dat.gz) is read through zlib, uncompressed in memory up to
 * trace_max_uncompressed(). */
int trace_read_need(const char *path, enum trace_need need, struct trace_data *td,
                    struct diag *d);
/* How much a trace.dat.gz may uncompress to, in MiB, unless
 * PMLAB_TRACE_MAX_MIB says otherwise: the file is inflated into memory, and
 * a small file can inflate to gigabytes. */
#define TRACE_MAX_UNCOMPRESSED_MIB 512
/* The cap in bytes: PMLAB_TRACE_MAX_MIB's, else the default; 0 with d
 * when the variable is not a number of MiB. */
uint64_t trace_max_uncompressed(struct diag *d);

struct trace_read_opts {
    uint64_t max_uncompressed; /* bytes a .gz may inflate to */
    bool in_process;           /* no reading child first (a fuzzer's coverage) */
};
/* trace_read_need with o's cap and isolation. The file's layout is checked
 * (tracedat_check.h) before the library reads it, and the library reads it
 * first in a child process unless o->in_process: a crash of the library
 * there is an error naming the file, not a crash of pmlab. */
int trace_read_with(const char *path, enum trace_need need, const struct trace_read_opts *o,
                    struct trace_data *td, struct diag *d);
void trace_data_free(struct trace_data *td);
/* Append an event (the reader, and tests building traces by hand). */
void trace_add(struct trace_data *td, uint64_t ts_ns, int cpu, enum trace_ev_kind kind,
               int64_t value);
/* The same with the scheduler fields (pid, aux: see struct trace_ev). */
void trace_add_sched(struct trace_data *td, uint64_t ts_ns, int cpu, enum trace_ev_kind kind,
                     int64_t value, int32_t pid, int64_t aux);
/* Remember that pid is called comm (at most TRACE_COMM_LEN - 1 bytes kept);
 * the name pid had last, or "" if the trace never named it. */
void trace_set_comm(struct trace_data *td, int32_t pid, const char *comm);
const char *trace_comm_of(const struct trace_data *td, int32_t pid);

/* ---- statistics (stats.c) ---------------------------------------------------- */

enum trace_wake_src {
    TRACE_WAKE_TIMER, TRACE_WAKE_IPI, TRACE_WAKE_IRQ, TRACE_WAKE_TASK, TRACE_WAKE_UNKNOWN,
    TRACE_WAKE_NSRC,
};

struct trace_state_stats {
    uint64_t hits;         /* entries (cpu_idle with this state) */
    uint64_t closed;       /* of those, periods whose exit is in the trace */
    double total_ns, min_ns, max_ns;
    uint64_t above, below; /* against the table's target residencies */
};

struct trace_freq_time {
    int64_t khz;           /* 0: not known yet (before the CPU's first event) */
    double ns;
};

struct trace_cpu_stats {
    struct trace_state_stats st[TRACE_MAX_STATES];
    int nstates;           /* highest state seen + 1 */
    double busy_ns;        /* between an idle exit and the next entry */
    double unknown_ns;     /* before its first idle event, and after lost events */
    uint64_t wake[TRACE_WAKE_NSRC];
    uint64_t lost_periods; /* idle periods cut by lost events */
    struct trace_freq_time *freq;
    int nfreq;
};

struct trace_stats {
    int ncpus;
    struct trace_cpu_stats *cpu;
    double span_ns;
    /* target residency (us) of each state, nres of them; 0: no table, no
     * above/below */
    int64_t target_res_us[TRACE_MAX_STATES];
    int nres;
};

/* Statistics of td; target_res_us[nres] the idle table (nres 0: none). */
void trace_stats_compute(const struct trace_data *td, const int64_t *target_res_us, int nres,
                         struct trace_stats *out);
void trace_stats_free(struct trace_stats *s);
/* The report: events read and dropped, per CPU and state, busy and wake-ups,
 * frequency residency. */
void trace_stats_print(FILE *out, const struct trace_data *td, const struct trace_stats *s);
/* The same as JSON ({"pmlab", "events", "state_hits", "cpus": [...]});
 * -1 when it could not be written. */
int trace_stats_json(FILE *out, const struct trace_data *td, const struct trace_stats *s);


/* ---- what-if (whatif.c) ------------------------------------------------------ */

struct trace_whatif_opts {
    const struct cpuidle_governor *gov;
    struct cpuidle_driver drv;     /* the idle table the governor chooses from */
    struct kversion kernel;        /* governor behaviour by version */
    int hz;                        /* CONFIG_HZ: the tick */
    const char *table_from;        /* where drv came from, printed; NULL: the options */
};

struct trace_whatif_cpu {
    struct cpuidle_state_usage real[CPUIDLE_STATE_MAX], sim[CPUIDLE_STATE_MAX];
};

struct trace_whatif {
    int ncpus, nstates;
    struct trace_whatif_cpu *cpu;
    uint64_t beyond_table;         /* real periods in a state the table lacks */
    uint64_t periods;              /* closed periods replayed */
    uint64_t timer_ended;          /* of them, ended by the recorded timer the governor
                                    * was told of (told about their length) */
    uint64_t no_timer;             /* of them, with no timer recorded after their entry
                                    * (told the tick period) */
};

/* Replay td's closed idle periods through o->gov on o->drv, telling it only
 * what the trace records about timers (whatif.c says what, and what is
 * approximated). */
void trace_whatif_run(const struct trace_data *td, const struct trace_whatif_opts *o,
                      struct trace_whatif *out);
void trace_whatif_free(struct trace_whatif *w);
void trace_whatif_print(FILE *out, const struct trace_data *td, const struct trace_whatif_opts *o,
                        const struct trace_whatif *w);

#endif
