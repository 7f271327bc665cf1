/* record: the simulated machine's trace buffer, see record.h. */
#include "trace/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/xalloc.h"

/* Payload bytes of each event after the 8 common bytes (common_type,
 * common_flags, common_preempt_count, common_pid), as the format texts in
 * tracedat_write.c lay them out. */
static const size_t trace_payload_bytes[TRACE_REC_NTYPES] = {
    [TRACE_REC_CPU_IDLE] = 8,          /* u32 state, u32 cpu_id */
    [TRACE_REC_CPU_FREQUENCY] = 8,     /* u32 state, u32 cpu_id */
    [TRACE_REC_SCHED_SWITCH] = 56,     /* comm, pid, prio, long state, comm, pid, prio */
    [TRACE_REC_SCHED_WAKEUP] = 28,     /* comm, pid, prio, target_cpu */
    [TRACE_REC_SCHED_WAKEUP_NEW] = 28,
};

const char *trace_rec_name(enum trace_rec_type type)
{
    static const char *const names[TRACE_REC_NTYPES] = {
        [TRACE_REC_CPU_IDLE] = "cpu_idle", [TRACE_REC_CPU_FREQUENCY] = "cpu_frequency",
        [TRACE_REC_SCHED_SWITCH] = "sched_switch", [TRACE_REC_SCHED_WAKEUP] = "sched_wakeup",
        [TRACE_REC_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
    };
    return names[type];
}

size_t trace_rec_bytes(enum trace_rec_type type)
{
    size_t data = 8 + trace_payload_bytes[type];
    return 4 + (data + 3) / 4 * 4;
}

struct trace_buf *trace_buf_new(int ncpus, sim_time_t start_ns, sim_time_t end_ns,
                                size_t max_bytes)
{
    struct trace_buf *b = xcalloc(1, sizeof *b);
    b->ncpus = ncpus;
    b->cpu = xcalloc((size_t)ncpus, sizeof *b->cpu);
    for (int i = 0; i < ncpus; i++)
        b->cpu[i].curr_prio = 120;   /* each CPU's idle task, pid 0 */
    b->start_ns = start_ns;
    b->end_ns = end_ns;
    b->max_bytes = max_bytes;
    b->truncated_ns = -1;
    return b;
}

void trace_buf_free(struct trace_buf *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->ncpus; i++)
        free(b->cpu[i].recs);
    free(b->cpu);
    free(b->names);
    free(b);
}

bool trace_buf_wants(const struct trace_buf *b, sim_time_t ts_ns)
{
    return ts_ns >= b->start_ns && (b->end_ns < 0 || ts_ns < b->end_ns) && b->truncated_ns < 0;
}

int32_t trace_buf_new_pid(struct trace_buf *b, const char *comm)
{
    if (b->npids == b->capnames) {
        b->capnames = b->capnames ? 2 * b->capnames : 64;
        b->names = xreallocarray(b->names, (size_t)b->capnames, sizeof *b->names);
    }
    snprintf(b->names[b->npids].comm, TRACE_COMM_LEN, "%s", comm ? comm : "task");
    b->npids++;
    char pid[16];
    b->bytes += (size_t)snprintf(pid, sizeof pid, "%d", b->npids) + 2 +
                strlen(b->names[b->npids - 1].comm);   /* "pid comm\n" */
    return b->npids;   /* pid 0 is every CPU's idle task (swapper/N), as in the kernel */
}

const char *trace_buf_comm(const struct trace_buf *b, int32_t pid)
{
    int32_t i = pid - 1;
    return i >= 0 && i < b->npids ? b->names[i].comm : "?";
}

void trace_buf_add(struct trace_buf *b, int cpu, sim_time_t ts_ns, enum trace_rec_type type,
                   uint32_t a, uint32_t b_, uint32_t c)
{
    if (!trace_buf_wants(b, ts_ns))
        return;
    struct trace_cpu_buf *cb = &b->cpu[cpu];
    /* The file's size as the writer will lay the pages out: a new page when
     * this event (and its time extend) does not fit the current one. */
    size_t ev = trace_rec_bytes(type);
    if (cb->page_used && (uint64_t)(ts_ns - cb->last_ns) >= (1u << TRACE_DELTA_BITS))
        ev += 8;
    bool new_page = cb->page_used == 0 || cb->page_used + ev > TRACE_PAGE_DATA;
    if (new_page && b->bytes + TRACE_PAGE_SIZE > b->max_bytes) {
        b->truncated_ns = ts_ns;
        return;
    }
    if (new_page) {
        b->bytes += TRACE_PAGE_SIZE;
        cb->page_used = 0;
        ev = trace_rec_bytes(type);   /* a page's first event has no delta */
    }
    cb->page_used += ev;
    cb->last_ns = ts_ns;
    if (cb->n == cb->cap) {
        cb->cap = cb->cap ? 2 * cb->cap : 1024;
        cb->recs = xreallocarray(cb->recs, cb->cap, sizeof *cb->recs);
    }
    cb->recs[cb->n++] = (struct trace_rec){ .ts_ns = ts_ns, .a = a, .b = b_, .c = c,
                                            .type = (uint8_t)type };
    b->nrecs[type]++;
}

int trace_window_parse(const char *text, int64_t w[2])
{
    const char *colon = strchr(text, ':');
    char start[32];
    if (!colon || (size_t)(colon - text) >= sizeof start)
        return -1;
    memcpy(start, text, (size_t)(colon - text));
    start[colon - text] = '\0';
    int64_t end = -1, begin;
    if (str_to_i64(start, &begin) != 0 || begin < 0 ||
        (colon[1] && (str_to_i64(colon + 1, &end) != 0 || end <= begin)))
        return -1;
    w[0] = begin;
    w[1] = end;
    return 0;
}
