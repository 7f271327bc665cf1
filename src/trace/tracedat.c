/* tracedat: read a trace-cmd trace.dat through libtracecmd (see trace.h).
 *
 * libtracecmd reads the header and the per-CPU ring-buffer pages; it
 * trusts the per-CPU data extents the header gives, so a file cut short
 * (a copy that stopped, a disk that filled) would make it read past the end.
 * Before opening, a version 6 file's extents ("flyrecord" section: per CPU
 * a 64-bit offset and size) are checked against the file size; when some
 * run past it, a copy with those sizes cut to the whole pages present is
 * read instead (in memory, memfd) and `dropped` says what was cut. */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <trace-cmd.h>
#include <unistd.h>

#include "trace/trace.h"
#include "util/xalloc.h"

#define TRACE_MAGIC "\x17\x08\x44tracing"
#define TRACE_FLYRECORD "flyrecord"

void trace_add(struct trace_data *td, uint64_t ts_ns, int cpu, enum trace_ev_kind kind,
               int64_t value)
{
    if (td->n == td->cap) {
        td->cap = td->cap ? 2 * td->cap : 1024;
        td->ev = xreallocarray(td->ev, td->cap, sizeof *td->ev);
    }
    td->ev[td->n++] = (struct trace_ev){ .ts_ns = ts_ns, .cpu = cpu, .kind = kind, .value = value };
    td->count[kind]++;
}

void trace_data_free(struct trace_data *td)
{
    free(td->ev);
    free(td->path);
    memset(td, 0, sizeof *td);
}

/* ---- truncated files ------------------------------------------------------ */

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void le64_put(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

/* The offset of the per-CPU extents in buf (a v6 little-endian file), or
 * -1: just after the first "flyrecord" tag, which ends the header. */
static long trace_flyrecord_at(const unsigned char *buf, size_t len, int ncpus)
{
    size_t tag = sizeof TRACE_FLYRECORD; /* with its NUL */
    const unsigned char *p = memmem(buf, len, TRACE_FLYRECORD, tag);
    if (!p || (size_t)(p - buf) + tag + (size_t)ncpus * 16 > len)
        return -1;
    return (long)((size_t)(p - buf) + tag);
}

/* Cut the extents of buf that pass its end to the whole pages present;
 * describe what was cut in dropped. True if anything was. */
static bool trace_cut_extents(unsigned char *buf, size_t len, long at, int ncpus,
                              uint64_t page, char *dropped, size_t dsize)
{
    bool cut = false;
    size_t used = 0;
    for (int c = 0; c < ncpus; c++) {
        unsigned char *p = buf + at + 16 * c;
        uint64_t off = le64(p), size = le64(p + 8);
        if (off + size <= len)
            continue;
        uint64_t keep = off >= len ? 0 : (len - off) / page * page;
        int n = snprintf(dropped + used, dsize - used, "%sCPU %d: %llu of %llu KiB of events",
                         cut ? "; " : "", c, (unsigned long long)(keep / 1024),
                         (unsigned long long)(size / 1024));
        used += n > 0 && (size_t)n < dsize - used ? (size_t)n : 0;
        le64_put(p + 8, keep);
        cut = true;
    }
    return cut;
}

/* An fd to open: the file itself, or a repaired in-memory copy. -1 with d. */
static int trace_open_fd(const char *path, int ncpus, struct trace_data *td, struct diag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return diag_error(d, path, 0, "%s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size < 18)
        return close(fd), diag_error(d, path, 0, "not a trace-cmd trace.dat (too short)");
    size_t len = (size_t)sb.st_size;
    unsigned char *buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (buf == MAP_FAILED)
        return close(fd), diag_error(d, path, 0, "%s", strerror(errno));
    /* Magic, "6\0", endianness (0 little), long size, page size (4 bytes). */
    bool v6le = len >= 18 && memcmp(buf, TRACE_MAGIC "6", 12) == 0 && buf[12] == 0;
    uint64_t page = v6le ? (uint64_t)buf[14] | (uint64_t)buf[15] << 8 |
                               (uint64_t)buf[16] << 16 | (uint64_t)buf[17] << 24
                         : 0;
    long at = v6le ? trace_flyrecord_at(buf, len, ncpus) : -1;
    bool truncated = false;
    for (int c = 0; at >= 0 && c < ncpus; c++)
        truncated |= le64(buf + at + 16 * c) + le64(buf + at + 16 * c + 8) > len;
    if (!truncated || page == 0) {
        munmap(buf, len);
        return fd;
    }
    int mfd = memfd_create("pmlab-trace", MFD_CLOEXEC);
    unsigned char *copy = mfd < 0 || ftruncate(mfd, (off_t)len) != 0
                              ? MAP_FAILED
                              : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    if (copy == MAP_FAILED) {
        munmap(buf, len);
        close(fd);
        if (mfd >= 0)
            close(mfd);
        return diag_error(d, path, 0, "truncated, and no memory to repair a copy");
    }
    memcpy(copy, buf, len);
    trace_cut_extents(copy, len, at, ncpus, page, td->dropped, sizeof td->dropped);
    munmap(copy, len);
    munmap(buf, len);
    close(fd);
    return mfd;
}

/* ---- events ----------------------------------------------------------------- */

struct trace_ids {
    int idle, freq, sw, wakeup, wakeup_new, irq, ipi_entry, hrtimer, timer, print;
    int vec_resched, vec_call, vec_call_single, vec_local_timer;
};

static int trace_event_id(struct tep_handle *tep, const char *sys, const char *name)
{
    struct tep_event *e = tep_find_event_by_name(tep, sys, name);
    return e ? e->id : -1;
}

static void trace_find_ids(struct tep_handle *tep, struct trace_ids *ids)
{
    ids->idle = trace_event_id(tep, "power", "cpu_idle");
    ids->freq = trace_event_id(tep, "power", "cpu_frequency");
    ids->sw = trace_event_id(tep, "sched", "sched_switch");
    ids->wakeup = trace_event_id(tep, "sched", "sched_wakeup");
    ids->wakeup_new = trace_event_id(tep, "sched", "sched_wakeup_new");
    ids->irq = trace_event_id(tep, "irq", "irq_handler_entry");
    ids->ipi_entry = trace_event_id(tep, "ipi", "ipi_entry");
    ids->hrtimer = trace_event_id(tep, "timer", "hrtimer_expire_entry");
    ids->timer = trace_event_id(tep, "timer", "timer_expire_entry");
    ids->print = trace_event_id(tep, "ftrace", "print");
    ids->vec_resched = trace_event_id(tep, "irq_vectors", "reschedule_entry");
    ids->vec_call = trace_event_id(tep, "irq_vectors", "call_function_entry");
    ids->vec_call_single = trace_event_id(tep, "irq_vectors", "call_function_single_entry");
    ids->vec_local_timer = trace_event_id(tep, "irq_vectors", "local_timer_entry");
}

struct trace_reader {
    struct trace_data *td;
    struct trace_ids ids;
    struct tep_handle *tep;
};

static int64_t trace_field(struct tep_handle *tep, struct tep_record *r, const char *name,
                           int64_t dflt)
{
    struct tep_event *e = tep_find_event_by_record(tep, r);
    unsigned long long v;
    if (!e || tep_get_field_val(NULL, e, name, r, &v, 0) != 0)
        return dflt;
    return (int64_t)v;
}

/* devlib (LISA) writes each CPU's frequency at the start as a trace marker,
 * "cpu_frequency_devlib: state=KHZ cpu_id=N": the initial frequencies. */
static void trace_devlib_freq(struct trace_reader *rd, struct tep_record *r)
{
    struct tep_event *e = tep_find_event_by_record(rd->tep, r);
    struct tep_format_field *f = e ? tep_find_field(e, "buf") : NULL;
    if (!f || (unsigned)f->offset >= (unsigned)r->size)
        return;
    char text[128];
    size_t n = (size_t)r->size - (size_t)f->offset;
    n = n < sizeof text - 1 ? n : sizeof text - 1;
    memcpy(text, (const char *)r->data + f->offset, n);
    text[n] = 0;
    const char *m = strstr(text, "cpu_frequency_devlib:");
    long long khz;
    int cpu;
    if (m && sscanf(m, "cpu_frequency_devlib: state=%lld cpu_id=%d", &khz, &cpu) == 2 &&
        cpu >= 0 && cpu < rd->td->ncpus) {
        trace_add(rd->td, r->ts, cpu, TRACE_EV_FREQ, khz);
        rd->td->ndevlib_freq++;
    }
}

static int trace_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *arg)
{
    (void)h;
    struct trace_reader *rd = arg;
    struct trace_data *td = rd->td;
    const struct trace_ids *ids = &rd->ids;
    if (td->nrecords++ == 0)
        td->first_ts_ns = r->ts;
    td->last_ts_ns = r->ts;
    if (r->missed_events) {
        td->nlost += r->missed_events > 0 ? (uint64_t)r->missed_events : 1;
        trace_add(td, r->ts, cpu, TRACE_EV_LOST, r->missed_events);
    }
    int id = tep_data_type(rd->tep, r);
    if (id < 0)
        return 0;
    if (id == ids->idle || id == ids->freq) {
        int64_t state = trace_field(rd->tep, r, "state", -2);
        int64_t on = trace_field(rd->tep, r, "cpu_id", cpu);
        if (on < 0 || on >= td->ncpus || state == -2)
            return 0;
        if (id == ids->idle)
            state = (uint32_t)state == UINT32_MAX ? TRACE_IDLE_EXIT : state;
        trace_add(td, r->ts, (int)on, id == ids->idle ? TRACE_EV_IDLE : TRACE_EV_FREQ, state);
    } else if (id == ids->sw) {
        trace_add(td, r->ts, cpu, TRACE_EV_SWITCH, trace_field(rd->tep, r, "next_pid", -1));
    } else if (id == ids->wakeup || id == ids->wakeup_new) {
        trace_add(td, r->ts, cpu, TRACE_EV_WAKEUP, trace_field(rd->tep, r, "target_cpu", -1));
    } else if (id == ids->irq) {
        trace_add(td, r->ts, cpu, TRACE_EV_IRQ, trace_field(rd->tep, r, "irq", -1));
    } else if (id == ids->ipi_entry || id == ids->vec_resched || id == ids->vec_call ||
               id == ids->vec_call_single) {
        trace_add(td, r->ts, cpu, TRACE_EV_IPI, 0);
    } else if (id == ids->hrtimer || id == ids->timer || id == ids->vec_local_timer) {
        trace_add(td, r->ts, cpu, TRACE_EV_TIMER, 0);
    } else if (id == ids->print) {
        trace_devlib_freq(rd, r);
    }
    return 0;
}

int trace_read(const char *path, struct trace_data *td, struct diag *d)
{
    memset(td, 0, sizeof *td);
    td->path = xstrdup(path);
    tracecmd_set_loglevel(TEP_LOG_NONE); /* its messages would not name the file */
    int flags = TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS;
    struct tracecmd_input *head = tracecmd_open_head(path, flags);
    if (!head)
        return diag_error(d, path, 0, "not a trace-cmd trace.dat (libtracecmd cannot read its "
                          "header)");
    int ncpus = tep_get_cpus(tracecmd_get_tep(head));
    tracecmd_close(head);
    if (ncpus <= 0 || ncpus > 65536)
        return diag_error(d, path, 0, "the header gives %d CPUs", ncpus);
    td->ncpus = ncpus;
    int fd = trace_open_fd(path, ncpus, td, d);
    if (fd < 0)
        return -1;
    struct tracecmd_input *h = tracecmd_open_fd(fd, flags); /* owns fd from here */
    if (!h) {
        close(fd);
        return diag_error(d, path, 0, "libtracecmd cannot read its events%s%s",
                          td->dropped[0] ? ": truncated: " : "", td->dropped);
    }
    struct trace_reader rd = { .td = td, .tep = tracecmd_get_tep(h) };
    trace_find_ids(rd.tep, &rd.ids);
    if (rd.ids.idle < 0) {
        tracecmd_close(h);
        return diag_error(d, path, 0, "no power:cpu_idle event in the trace: record with "
                          "`trace-cmd record -e power:cpu_idle -e power:cpu_frequency -e "
                          "sched:sched_switch -e sched:sched_wakeup -e irq -e ipi -e timer`");
    }
    tracecmd_iterate_events(h, NULL, 0, trace_record, &rd);
    tracecmd_close(h);
    return 0;
}
