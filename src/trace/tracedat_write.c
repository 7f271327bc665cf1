/* tracedat_write: trace.dat version 6 from a trace_buf, see tracedat_write.h.
 * Written by hand: no library on Debian writes the format. */
#include "trace/tracedat_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define TDW_PAGE_HEADER 16   /* u64 timestamp, u64 commit (local_t on a 64-bit kernel) */
#define TDW_PAGE_DATA TRACE_PAGE_DATA
#define TDW_DELTA_BITS TRACE_DELTA_BITS
#define TDW_TYPE_TIME_EXTEND 30

/* The event IDs of this file (any unique numbers: the formats carry them). */
enum { TDW_ID_CPU_IDLE = 1, TDW_ID_CPU_FREQUENCY, TDW_ID_SCHED_SWITCH, TDW_ID_SCHED_WAKEUP,
       TDW_ID_SCHED_WAKEUP_NEW };

static const char tdw_header_page[] =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char tdw_header_event[] =
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n"
    "\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n";

#define TDW_COMMON_FIELDS                                                         \
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"        \
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"        \
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char tdw_fmt_state_cpu[] =
    "format:\n" TDW_COMMON_FIELDS
    "\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n"
    "print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, (unsigned long)REC->cpu_id\n";

static const char tdw_fmt_switch[] =
    "format:\n" TDW_COMMON_FIELDS
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s "
    "next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
    "REC->prev_state ? \"S\" : \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

static const char tdw_fmt_wakeup[] =
    "format:\n" TDW_COMMON_FIELDS
    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
    "REC->target_cpu\n";

struct tdw_event_desc {
    enum trace_rec_type type;   /* its name: trace_rec_name */
    int id;
    const char *format;
};

static const struct tdw_event_desc tdw_power[] = {
    { TRACE_REC_CPU_IDLE, TDW_ID_CPU_IDLE, tdw_fmt_state_cpu },
    { TRACE_REC_CPU_FREQUENCY, TDW_ID_CPU_FREQUENCY, tdw_fmt_state_cpu },
};
static const struct tdw_event_desc tdw_sched[] = {
    { TRACE_REC_SCHED_SWITCH, TDW_ID_SCHED_SWITCH, tdw_fmt_switch },
    { TRACE_REC_SCHED_WAKEUP, TDW_ID_SCHED_WAKEUP, tdw_fmt_wakeup },
    { TRACE_REC_SCHED_WAKEUP_NEW, TDW_ID_SCHED_WAKEUP_NEW, tdw_fmt_wakeup },
};

/* A growable byte buffer (the whole file is built in memory, then written). */
struct tdw_out {
    unsigned char *p;
    size_t n, cap;
};

static void tdw_bytes(struct tdw_out *o, const void *data, size_t n)
{
    if (n == 0)
        return;   /* data may be NULL (an empty buffer) */
    if (o->n + n > o->cap) {
        while (o->n + n > o->cap)
            o->cap = o->cap ? 2 * o->cap : 1 << 16;
        o->p = xrealloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, data, n);
    o->n += n;
}

/* Little-endian integers of n bytes. */
static void tdw_le(struct tdw_out *o, uint64_t v, int n)
{
    unsigned char b[8];
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    tdw_bytes(o, b, (size_t)n);
}

static void tdw_str0(struct tdw_out *o, const char *s)
{
    tdw_bytes(o, s, strlen(s) + 1);
}

/* A text section: its 64-bit size, then the text. */
static void tdw_text64(struct tdw_out *o, const char *s)
{
    tdw_le(o, strlen(s), 8);
    tdw_bytes(o, s, strlen(s));
}

static void tdw_event_format(struct tdw_out *o, const struct tdw_event_desc *e)
{
    char *text = xasprintf("name: %s\nID: %d\n%s", trace_rec_name(e->type), e->id, e->format);
    tdw_text64(o, text);
    free(text);
}

static void tdw_system(struct tdw_out *o, const char *name, const struct tdw_event_desc *e,
                       int n)
{
    tdw_str0(o, name);
    tdw_le(o, (uint64_t)n, 4);
    for (int i = 0; i < n; i++)
        tdw_event_format(o, &e[i]);
}

/* The saved command lines: "pid comm" per line (not pid 0: readers name
 * the idle task themselves). */
static void tdw_cmdlines(struct tdw_out *o, const struct trace_buf *b)
{
    struct tdw_out t = { 0 };
    for (int32_t i = 0; i < b->npids; i++) {
        char line[48];
        int n = snprintf(line, sizeof line, "%d %s\n", i + 1, b->names[i].comm);
        tdw_bytes(&t, line, (size_t)n);
    }
    tdw_le(o, t.n, 8);
    tdw_bytes(o, t.p, t.n);
    free(t.p);
}

/* pid's comm as the event's char[16] field, NUL-padded. */
static void tdw_comm16(struct tdw_out *o, const struct trace_buf *b, uint32_t pid)
{
    char comm[TRACE_COMM_LEN] = { 0 };
    snprintf(comm, sizeof comm, "%s", pid == 0 ? "swapper" : trace_buf_comm(b, (int32_t)pid));
    tdw_bytes(o, comm, sizeof comm);
}

/* One event's bytes after the 4-byte header: the common fields (type, no
 * flags, no preempt count, the pid running on the CPU) and the payload. */
static size_t tdw_payload(const struct trace_buf *b, const struct trace_rec *r, int32_t pid,
                          unsigned char *buf)
{
    static const int ids[TRACE_REC_NTYPES] = {
        [TRACE_REC_CPU_IDLE] = TDW_ID_CPU_IDLE, [TRACE_REC_CPU_FREQUENCY] = TDW_ID_CPU_FREQUENCY,
        [TRACE_REC_SCHED_SWITCH] = TDW_ID_SCHED_SWITCH,
        [TRACE_REC_SCHED_WAKEUP] = TDW_ID_SCHED_WAKEUP,
        [TRACE_REC_SCHED_WAKEUP_NEW] = TDW_ID_SCHED_WAKEUP_NEW,
    };
    struct tdw_out o = { .p = buf, .cap = 64 };   /* the longest payload, sched_switch */
    tdw_le(&o, (uint64_t)ids[r->type], 2);
    tdw_le(&o, 0, 2);
    tdw_le(&o, (uint64_t)(uint32_t)pid, 4);
    switch ((enum trace_rec_type)r->type) {
    case TRACE_REC_CPU_IDLE:
    case TRACE_REC_CPU_FREQUENCY:
        tdw_le(&o, r->a, 4);
        tdw_le(&o, r->b, 4);
        break;
    case TRACE_REC_SCHED_SWITCH:
        tdw_comm16(&o, b, r->a);
        tdw_le(&o, r->a, 4);
        tdw_le(&o, r->c >> 8 & 0xff, 4);
        tdw_le(&o, r->c & 0xff, 8);
        tdw_comm16(&o, b, r->b);
        tdw_le(&o, r->b, 4);
        tdw_le(&o, r->c >> 16 & 0xff, 4);
        break;
    case TRACE_REC_SCHED_WAKEUP:
    case TRACE_REC_SCHED_WAKEUP_NEW:
        tdw_comm16(&o, b, r->a);
        tdw_le(&o, r->a, 4);
        tdw_le(&o, r->c, 4);
        tdw_le(&o, r->b, 4);
        break;
    case TRACE_REC_NTYPES:
        break;
    }
    while (o.n % 4)
        tdw_le(&o, 0, 1);
    return o.n;
}

/* One event with its header(s) into ev: a time-extend entry first when
 * the delta does not fit 27 bits. Returns the bytes (at most 8 + 4 + 64). */
static size_t tdw_encode(const struct trace_buf *b, const struct trace_rec *r, int32_t pid,
                         uint64_t delta_ns, unsigned char *ev)
{
    size_t at = 0;
    if (delta_ns >= (1u << TDW_DELTA_BITS)) {
        uint32_t low = (uint32_t)(delta_ns & ((1u << TDW_DELTA_BITS) - 1));
        struct tdw_out o = { .p = ev, .cap = 8 };
        tdw_le(&o, TDW_TYPE_TIME_EXTEND | low << 5, 4);
        tdw_le(&o, delta_ns >> TDW_DELTA_BITS, 4);
        at = 8;
        delta_ns = 0;
    }
    size_t pn = tdw_payload(b, r, pid, ev + at + 4);
    struct tdw_out o = { .p = ev + at, .cap = 4 };
    tdw_le(&o, (uint32_t)(pn / 4) | (uint32_t)delta_ns << 5, 4);
    return at + 4 + pn;
}

/* Close the page being filled (used bytes of data) onto o. */
static void tdw_page_close(struct tdw_out *o, unsigned char *page, size_t used)
{
    memset(page + TDW_PAGE_HEADER + used, 0, TDW_PAGE_DATA - used);
    struct tdw_out h = { .p = page + 8, .cap = 8 };
    tdw_le(&h, used, 8);   /* commit: the data's length, no flags */
    tdw_bytes(o, page, TRACEDAT_PAGE_SIZE);
}

/* One CPU's events as ring-buffer pages appended to o. Returns the bytes.
 * An event's common_pid is the task running on the CPU when it fires (for
 * sched_switch, the one it leaves). */
static size_t tdw_cpu_pages(struct tdw_out *o, const struct trace_buf *b, int cpu)
{
    const struct trace_cpu_buf *cb = &b->cpu[cpu];
    size_t start = o->n, used = 0;
    unsigned char page[TRACEDAT_PAGE_SIZE], ev[96];
    sim_time_t last_ns = 0;
    int32_t running = 0;
    for (size_t i = 0; i < cb->n; i++) {
        const struct trace_rec *r = &cb->recs[i];
        size_t evn = used ? tdw_encode(b, r, running, (uint64_t)(r->ts_ns - last_ns), ev) : 0;
        if (used && used + evn > TDW_PAGE_DATA) {
            tdw_page_close(o, page, used);
            used = 0;
        }
        if (used == 0) {   /* a new page: its timestamp is this event's */
            struct tdw_out h = { .p = page, .cap = 8 };
            tdw_le(&h, (uint64_t)r->ts_ns, 8);
            evn = tdw_encode(b, r, running, 0, ev);
        }
        memcpy(page + TDW_PAGE_HEADER + used, ev, evn);
        used += evn;
        last_ns = r->ts_ns;
        if (r->type == TRACE_REC_SCHED_SWITCH)
            running = (int32_t)r->b;
    }
    if (used)
        tdw_page_close(o, page, used);
    return o->n - start;
}

/* Everything before the CPU data: header, formats, names, options. */
static void tdw_headers(struct tdw_out *o, const struct trace_buf *b)
{
    tdw_bytes(o, "\x17\x08\x44tracing", 10);
    tdw_str0(o, "6");
    tdw_le(o, 0, 1);   /* little endian */
    tdw_le(o, 8, 1);   /* sizeof(long) */
    tdw_le(o, TRACEDAT_PAGE_SIZE, 4);
    tdw_str0(o, "header_page");
    tdw_text64(o, tdw_header_page);
    tdw_str0(o, "header_event");
    tdw_text64(o, tdw_header_event);
    tdw_le(o, 0, 4);   /* ftrace events */
    tdw_le(o, 2, 4);   /* event systems */
    tdw_system(o, "power", tdw_power, (int)(sizeof tdw_power / sizeof tdw_power[0]));
    tdw_system(o, "sched", tdw_sched, (int)(sizeof tdw_sched / sizeof tdw_sched[0]));
    tdw_le(o, 0, 4);   /* kallsyms */
    tdw_le(o, 0, 4);   /* printk formats */
    tdw_cmdlines(o, b);
    tdw_le(o, (uint64_t)b->ncpus, 4);
    tdw_bytes(o, "options  ", 10);
    tdw_le(o, 0, 2);   /* TRACECMD_OPTION_DONE */
    tdw_bytes(o, "flyrecord", 10);
}

static int tdw_write_file(const struct tdw_out *o, const char *path, struct diag *d)
{
    char *tmp = xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = 0;
    if (!f || fwrite(o->p, 1, o->n, f) != o->n || fflush(f) != 0) {
        diag_error(d, path, 0, "cannot write the trace: %s", strerror(errno));
        rc = 1;
        if (f)
            fclose(f);
        remove(tmp);
    } else if (fclose(f) != 0 || rename(tmp, path) != 0) {
        diag_error(d, path, 0, "cannot write the trace: %s", strerror(errno));
        rc = 1;
        remove(tmp);
    }
    free(tmp);
    return rc;
}

int tracedat_write(const struct trace_buf *b, const char *path, struct diag *d)
{
    struct tdw_out o = { 0 };
    tdw_headers(&o, b);
    /* The per-CPU offsets and sizes follow; the data starts on a page. */
    size_t table = o.n;
    for (int cpu = 0; cpu < b->ncpus; cpu++) {
        tdw_le(&o, 0, 8);   /* offset */
        tdw_le(&o, 0, 8);   /* size */
    }
    while (o.n % TRACEDAT_PAGE_SIZE)
        tdw_le(&o, 0, 1);
    for (int cpu = 0; cpu < b->ncpus; cpu++) {
        size_t off = o.n, size = tdw_cpu_pages(&o, b, cpu);
        struct tdw_out t = { .p = o.p + table + 16 * (size_t)cpu, .cap = 16 };
        tdw_le(&t, off, 8);
        tdw_le(&t, size, 8);
    }
    int rc = tdw_write_file(&o, path, d);
    free(o.p);
    return rc;
}
