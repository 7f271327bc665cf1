/* record: the simulated machine's own trace, as the kernel's tracepoints
 * would have recorded it (issue 31; written out by tracedat_write.h).
 *
 * A world that is traced holds a trace_buf (world.trace; NULL, the default,
 * costs one pointer test per hook). The hooks are called where the kernel
 * fires the tracepoint of the same name:
 *   power:cpu_idle       trace_cpu_idle: the cpuidle state entered, and
 *                        TRACE_IDLE_EXIT_STATE when the CPU leaves it
 *                        (cpuidle_enter_state, cpuidle_idle_call);
 *   power:cpu_frequency  trace_cpu_frequency: every change of a core's
 *                        frequency, for each of its CPUs (on HWP parts the
 *                        kernel traces no such event: this is the hardware's);
 *   sched:sched_switch   trace_sched_switch: a CPU starts running a task, or
 *                        the idle task (pid 0, "swapper/N");
 *   sched:sched_wakeup   trace_sched_wakeup: a task is queued on target_cpu,
 *                        recorded on the waker's CPU (ttwu_do_activate);
 *                        sched_wakeup_new for a fork.
 * Only the window [start_ns, end_ns) is kept (by default the measurement
 * window), and at most max_bytes of records: past it recording stops and
 * the buffer says when (truncated_ns). Records are per CPU in time order,
 * which the simulator's monotonic clock guarantees. */
#ifndef PMLAB_TRACE_RECORD_H
#define PMLAB_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

#define TRACE_IDLE_EXIT_STATE 0xffffffffu   /* PWR_EVENT_EXIT, (u32)-1 */
#define TRACE_COMM_LEN 16                   /* TASK_COMM_LEN */

enum trace_rec_type {
    TRACE_REC_CPU_IDLE,
    TRACE_REC_CPU_FREQUENCY,
    TRACE_REC_SCHED_SWITCH,
    TRACE_REC_SCHED_WAKEUP,
    TRACE_REC_SCHED_WAKEUP_NEW,
    TRACE_REC_NTYPES,
};

/* One event. a, b, c by type: cpu_idle (state, cpu_id, -), cpu_frequency
 * (kHz, cpu_id, -), sched_switch (prev pid, next pid, prev_state: 0
 * runnable, 1 sleeping), sched_wakeup(_new) (pid, target_cpu, prio). */
struct trace_rec {
    sim_time_t ts_ns;
    uint32_t a, b, c;
    uint8_t type;
};

struct trace_cpu_buf {
    struct trace_rec *recs;
    size_t n, cap;
    size_t page_used;      /* bytes of events in its last ring-buffer page */
    sim_time_t last_ns;    /* its last event's time (time-extend entries) */
    int32_t curr_pid;      /* the pid the last sched_switch left running (0: idle) */
    uint32_t curr_prio;
};

/* A task's identity in the trace: pid (assigned at first sight, from 1 up;
 * 0 is the CPUs' idle tasks) and comm. */
struct trace_task_name {
    char comm[TRACE_COMM_LEN];
};

struct trace_buf {
    int ncpus;
    struct trace_cpu_buf *cpu;
    sim_time_t start_ns, end_ns;   /* the window kept */
    size_t max_bytes, bytes;       /* bytes: the CPUs' ring-buffer pages and the
                                    * saved command lines so far */
    sim_time_t truncated_ns;       /* recording stopped here (-1: it did not) */
    struct trace_task_name *names; /* [npids], index pid - 1 */
    int32_t npids, capnames;
    uint64_t nrecs[TRACE_REC_NTYPES];
};

/* A buffer for ncpus CPUs keeping [start_ns, end_ns) (end -1: to the end of
 * the run) and at most max_bytes of records. */
struct trace_buf *trace_buf_new(int ncpus, sim_time_t start_ns, sim_time_t end_ns,
                                size_t max_bytes);
void trace_buf_free(struct trace_buf *b);
/* A trace window "START:END" in ms from the measurement's start (END may
 * be empty: to the end of the run) into w[2] (END -1 when empty): 0, or -1
 * when it is not that (END must exceed START). */
int trace_window_parse(const char *text, int64_t w[2]);

/* Whether an event at ts_ns would be kept: in the window, before the limit. */
bool trace_buf_wants(const struct trace_buf *b, sim_time_t ts_ns);

/* A new pid for a task called comm (truncated to 15 characters); its line
 * in the saved command lines counts towards the size limit. */
int32_t trace_buf_new_pid(struct trace_buf *b, const char *comm);
/* comm of pid >= 1 (pid 0 is the idle task). */
const char *trace_buf_comm(const struct trace_buf *b, int32_t pid);

/* Append one record on cpu at ts_ns (dropped outside the window or past
 * the size limit). */
void trace_buf_add(struct trace_buf *b, int cpu, sim_time_t ts_ns, enum trace_rec_type type,
                   uint32_t a, uint32_t b_, uint32_t c);

/* The bytes of one record once written (tracedat_write's encoding), for the
 * size limit: the 4-byte event header and the event's payload. */
size_t trace_rec_bytes(enum trace_rec_type type);
/* The tracepoint's name without its system ("cpu_idle", "sched_switch"). */
const char *trace_rec_name(enum trace_rec_type type);

/* Ring-buffer page layout shared with tracedat_write.c: 4096-byte pages of
 * a 16-byte header (timestamp, commit) and 4080 bytes of events; a gap of
 * 2^27 ns or more between events takes an 8-byte time-extend entry. */
#define TRACE_PAGE_SIZE 4096
#define TRACE_PAGE_DATA (TRACE_PAGE_SIZE - 16)
#define TRACE_DELTA_BITS 27

#endif
