/* tracedat: read a trace-cmd trace.dat through libtracecmd (see trace.h).
 *
 * The libraries trust the file, so pmlab checks its layout first
 * (tracedat_check.c) and reads it in a child process before reading it
 * itself: a file that passes the checks and still crashes the library ends
 * in a message naming it (a library bug, to report upstream), not in a
 * signal. libtracecmd trusts the per-CPU data extents too, so a file cut
 * short (a copy that stopped, a disk that filled) would make it read past
 * the end: when some extents run past it, a copy with those sizes cut to
 * the whole pages present is read instead (in memory, memfd) and `dropped`
 * says what was cut. A .gz is inflated into memory up to a cap
 * (trace_max_uncompressed), its header checked after the first block. */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <trace-cmd.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/trace.h"
#include "trace/tracedat_check.h"
#include "util/xalloc.h"

#define TRACE_MAGIC "\x17\x08\x44tracing"

void trace_add_sched(struct trace_data *td, uint64_t ts_ns, int cpu, enum trace_ev_kind kind,
                     int64_t value, int32_t pid, int64_t aux)
{
    if (td->n == td->cap) {
        td->cap = td->cap ? 2 * td->cap : 1024;
        td->ev = xreallocarray(td->ev, td->cap, sizeof *td->ev);
    }
    td->ev[td->n++] = (struct trace_ev){ .ts_ns = ts_ns, .cpu = cpu, .kind = kind, .value = value,
                                         .pid = pid, .aux = aux };
    td->count[kind]++;
}

void trace_add(struct trace_data *td, uint64_t ts_ns, int cpu, enum trace_ev_kind kind,
               int64_t value)
{
    trace_add_sched(td, ts_ns, cpu, kind, value, -1, 0);
}

static int trace_comm_cmp(const void *a, const void *b)
{
    int32_t x = ((const struct trace_comm *)a)->pid, y = ((const struct trace_comm *)b)->pid;
    return (x > y) - (x < y);
}

void trace_set_comm(struct trace_data *td, int32_t pid, const char *comm)
{
    if (pid < 0 || !comm || !*comm)
        return;
    struct trace_comm *node = xmalloc(sizeof *node);
    node->pid = pid;
    struct trace_comm **found = tsearch(node, &td->comm_tree, trace_comm_cmp);
    if (!found)
        abort(); /* tsearch's only failure is memory, as xmalloc's */
    if (*found != node)
        free(node);
    else
        td->ncomm++;
    snprintf((*found)->comm, sizeof (*found)->comm, "%s", comm);
}

const char *trace_comm_of(const struct trace_data *td, int32_t pid)
{
    struct trace_comm key = { .pid = pid };
    struct trace_comm *const *found = tfind(&key, &td->comm_tree, trace_comm_cmp);
    return found ? (*found)->comm : "";
}

void trace_data_free(struct trace_data *td)
{
    free(td->ev);
    free(td->path);
    tdestroy(td->comm_tree, free);
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

/* An fd to open: the file at open_path itself, or a repaired in-memory
 * copy, once tracedat_check passed (td->ncpus from it). -1 with d naming
 * path. */
static int trace_open_fd(const char *open_path, const char *path, struct trace_data *td,
                         struct diag *d)
{
    int fd = open(open_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return diag_error(d, path, 0, "%s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size < 18)
        return close(fd), diag_error(d, path, 0, "not a trace-cmd trace.dat (too short)");
    size_t len = (size_t)sb.st_size;
    unsigned char *buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (buf == MAP_FAILED)
        return close(fd), diag_error(d, path, 0, "%s", strerror(errno));
    struct tracedat_layout lay;
    if (tracedat_check(buf, len, path, &lay, d) != 0) {
        munmap(buf, len);
        close(fd);
        return -1;
    }
    td->ncpus = lay.ncpus;
    long at = (long)lay.fly_at;
    bool truncated = false;
    for (int c = 0; c < lay.ncpus; c++)
        truncated |= le64(buf + at + 16 * c) + le64(buf + at + 16 * c + 8) > len;
    if (!truncated) {
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
    trace_cut_extents(copy, len, at, lay.ncpus, lay.page_size, td->dropped, sizeof td->dropped);
    munmap(copy, len);
    munmap(buf, len);
    close(fd);
    return mfd;
}

/* ---- events ----------------------------------------------------------------- */

struct trace_ids {
    int idle, freq, sw, wakeup, wakeup_new, irq, ipi_entry, hrtimer, timer, print;
    int waking, fork, exit;
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
    ids->waking = trace_event_id(tep, "sched", "sched_waking");
    ids->fork = trace_event_id(tep, "sched", "sched_process_fork");
    ids->exit = trace_event_id(tep, "sched", "sched_process_exit");
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
    struct tep_format_field *f = e ? tep_find_field(e, name) : NULL;
    unsigned long long v;
    /* The library reads a field where the format says, whatever the
     * record's size: a short record would be read past its end. */
    if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > r->size ||
        tep_read_number_field(f, r->data, &v) != 0)
        return dflt;
    return (int64_t)v;
}

/* A char[] field of r (a comm) into buf[TRACE_COMM_LEN]; "" when absent. */
static void trace_field_str(struct tep_handle *tep, struct tep_record *r, const char *name,
                            char *buf)
{
    struct tep_event *e = tep_find_event_by_record(tep, r);
    struct tep_format_field *f = e ? tep_find_field(e, name) : NULL;
    buf[0] = 0;
    if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > r->size)
        return;
    size_t n = (size_t)f->size < TRACE_COMM_LEN - 1 ? (size_t)f->size : TRACE_COMM_LEN - 1;
    memcpy(buf, (const char *)r->data + f->offset, n);
    buf[n] = 0;
}

/* sched_switch, sched_wakeup(_new), sched_waking, fork and exit: the fields
 * a replay needs, and the names of the tasks. */
static void trace_sched_record(struct trace_reader *rd, struct tep_record *r, int cpu, int id)
{
    struct tep_handle *tep = rd->tep;
    struct trace_data *td = rd->td;
    const struct trace_ids *ids = &rd->ids;
    char comm[TRACE_COMM_LEN];
    if (id == ids->sw) {
        int32_t prev = (int32_t)trace_field(tep, r, "prev_pid", -1);
        int64_t next = trace_field(tep, r, "next_pid", -1);
        trace_field_str(tep, r, "prev_comm", comm);
        trace_set_comm(td, prev, comm);
        trace_field_str(tep, r, "next_comm", comm);
        trace_set_comm(td, (int32_t)next, comm);
        trace_add_sched(td, r->ts, cpu, TRACE_EV_SWITCH, next, prev,
                        trace_field(tep, r, "prev_state", 0));
    } else if (id == ids->wakeup || id == ids->wakeup_new || id == ids->waking) {
        int32_t pid = (int32_t)trace_field(tep, r, "pid", -1);
        trace_field_str(tep, r, "comm", comm);
        trace_set_comm(td, pid, comm);
        int flags = tep_data_flags(tep, r);
        trace_add_sched(td, r->ts, cpu, id == ids->waking ? TRACE_EV_WAKING : TRACE_EV_WAKEUP,
                        trace_field(tep, r, "target_cpu", -1), pid,
                        flags < 0 ? 0 : flags & (TRACE_CTX_HARDIRQ | TRACE_CTX_SOFTIRQ));
    } else if (id == ids->fork) {
        int32_t child = (int32_t)trace_field(tep, r, "child_pid", -1);
        trace_field_str(tep, r, "child_comm", comm);
        trace_set_comm(td, child, comm);
        trace_add_sched(td, r->ts, cpu, TRACE_EV_FORK, child,
                        (int32_t)trace_field(tep, r, "parent_pid", -1), 0);
    } else {
        trace_add_sched(td, r->ts, cpu, TRACE_EV_EXIT, 0, (int32_t)trace_field(tep, r, "pid", -1),
                        0);
    }
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
    } else if (id == ids->sw || id == ids->wakeup || id == ids->wakeup_new ||
               id == ids->waking || id == ids->fork || id == ids->exit) {
        trace_sched_record(rd, r, cpu, id);
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

/* The events a replay uses, as `trace-cmd record` options. */
#define TRACE_SCHED_EVENTS "-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new " \
                           "-e sched:sched_waking -e sched:sched_process_fork " \
                           "-e sched:sched_process_exit -e irq:irq_handler_entry " \
                           "-e timer:hrtimer_expire_entry -e power:cpu_frequency"

/* What the header lacks for need; -1 with d naming the trace-cmd options. */
static int trace_check_need(const struct trace_reader *rd, enum trace_need need,
                            const char *path, struct diag *d)
{
    if (need == TRACE_NEED_IDLE && rd->ids.idle < 0)
        return diag_error(d, path, 0, "no power:cpu_idle event in the trace: record with "
                          "`trace-cmd record -e power:cpu_idle -e power:cpu_frequency -e "
                          "sched:sched_switch -e sched:sched_wakeup -e irq -e ipi -e timer`");
    if (need == TRACE_NEED_SCHED && rd->ids.sw < 0)
        return diag_error(d, path, 0, "no sched:sched_switch event in the trace, which a replay "
                          "needs: record with `trace-cmd record " TRACE_SCHED_EVENTS "`");
    return 0;
}

uint64_t trace_max_uncompressed(struct diag *d)
{
    const char *env = getenv("PMLAB_TRACE_MAX_MIB");
    if (!env || !*env)
        return (uint64_t)TRACE_MAX_UNCOMPRESSED_MIB << 20;
    char *end;
    errno = 0;
    unsigned long long mib = strtoull(env, &end, 10);
    if (errno || *end || env[0] == '-' || mib < 1 || mib > (1ull << 20)) {
        diag_error(d, "PMLAB_TRACE_MAX_MIB", 0, "'%s': expected MiB, 1 to 1048576", env);
        return 0;
    }
    return (uint64_t)mib << 20;
}

/* A gzip file (magic 1f 8b) uncompressed into a memfd through zlib, at most
 * max bytes of it, and only while it begins as a trace.dat: the fd, or -1
 * when path is not gzip (*err false) or cannot be read (*err, d). */
static int trace_gunzip(const char *path, uint64_t max, bool *err, struct diag *d)
{
    *err = false;
    unsigned char magic[2] = { 0 };
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(magic, 1, 2, f) : 0;
    if (f)
        fclose(f);
    if (got != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
        return -1;
    *err = true;
    gzFile gz = gzopen(path, "rb");
    int mfd = memfd_create("pmlab-trace-gz", MFD_CLOEXEC);
    if (!gz || mfd < 0) {
        if (gz)
            gzclose(gz);
        if (mfd >= 0)
            close(mfd);
        return diag_error(d, path, 0, "cannot uncompress: %s", strerror(errno));
    }
    char buf[65536];
    int n;
    uint64_t total = 0;
    const char *bad = NULL;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) {
        if (total == 0 && ((size_t)n < sizeof TRACE_MAGIC - 1 ||
                           memcmp(buf, TRACE_MAGIC, sizeof TRACE_MAGIC - 1) != 0)) {
            bad = "not a gzip-compressed trace-cmd trace.dat (no trace-cmd magic at its start)";
            break;
        }
        total += (uint64_t)n;
        if (total > max) {
            bad = "uncompresses to more than the limit";
            break;
        }
        if (write(mfd, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    }
    int zerr = Z_OK;
    const char *zmsg = n < 0 ? gzerror(gz, &zerr) : ""; /* gz's own, until gzclose */
    if (bad && total > max)
        diag_error(d, path, 0, "uncompresses to more than %llu MiB, the limit (a larger trace: "
                   "set PMLAB_TRACE_MAX_MIB)", (unsigned long long)(max >> 20));
    else if (bad)
        diag_error(d, path, 0, "%s", bad);
    else if (n < 0)
        diag_error(d, path, 0, "cannot uncompress: %s", zerr == Z_ERRNO ? strerror(errno) : zmsg);
    gzclose(gz);
    if (bad || n < 0) {
        close(mfd);
        return -1;
    }
    *err = false;
    return mfd;
}

int trace_read(const char *path, struct trace_data *td, struct diag *d)
{
    return trace_read_need(path, TRACE_NEED_IDLE, td, d);
}

/* Read the events of fd (a checked file; the library owns fd from here)
 * into td. */
static int trace_lib_read(int fd, const char *path, enum trace_need need, struct trace_data *td,
                          struct diag *d)
{
    tracecmd_set_loglevel(TEP_LOG_NONE); /* its messages would not name the file */
    int flags = TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS;
    struct tracecmd_input *h = tracecmd_open_fd(fd, flags);
    if (!h) {
        close(fd);
        return diag_error(d, path, 0, "libtracecmd cannot read its events%s%s",
                          td->dropped[0] ? ": truncated: " : "", td->dropped);
    }
    struct trace_reader rd = { .td = td, .tep = tracecmd_get_tep(h) };
    trace_find_ids(rd.tep, &rd.ids);
    if (trace_check_need(&rd, need, path, d) != 0) {
        tracecmd_close(h);
        return -1;
    }
    td->has_switch = rd.ids.sw >= 0;
    td->has_wakeup = rd.ids.wakeup >= 0;
    td->has_waking = rd.ids.waking >= 0;
    td->has_fork = rd.ids.fork >= 0;
    td->has_exit = rd.ids.exit >= 0;
    tracecmd_iterate_events(h, NULL, 0, trace_record, &rd);
    tracecmd_close(h);
    return 0;
}

/* The sanitizers' runtime (ASan/UBSan builds only; NULL in a plain
 * build): where their reports go. libFuzzer points it at a file named by
 * the pid in the working directory, which a child would leave behind. */
void __sanitizer_set_report_path(const char *path) __attribute__((weak));

/* Exit statuses of the child that reads first. */
#define TRACE_CHILD_OK 0
#define TRACE_CHILD_REFUSED 3

/* Read fd's file once in a child process: 0 when the child read it or the
 * library refused it (the parent then reads it and says so), -1 with d when
 * the child died: a library crash on a file that passed pmlab's checks. */
static int trace_read_in_child(int fd, const char *path, enum trace_need need,
                               const struct trace_data *td, struct diag *d)
{
    char fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd); /* its own file offset */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return diag_error(d, path, 0, "cannot start the reading process: %s", strerror(errno));
    if (pid == 0) {
        struct trace_data mine = *td; /* this process's copy: never freed, _exit */
        struct diag md = { 0 };
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, STDERR_FILENO); /* a sanitizer's report of the crash: the parent says it */
        if (__sanitizer_set_report_path)
            __sanitizer_set_report_path("/dev/null");
        int cfd = open(fdpath, O_RDONLY | O_CLOEXEC);
        _exit(cfd >= 0 && trace_lib_read(cfd, path, need, &mine, &md) == 0 ? TRACE_CHILD_OK
                                                                          : TRACE_CHILD_REFUSED);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return diag_error(d, path, 0, "lost the reading process: %s", strerror(errno));
    if (WIFEXITED(status) &&
        (WEXITSTATUS(status) == TRACE_CHILD_OK || WEXITSTATUS(status) == TRACE_CHILD_REFUSED))
        return 0;
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "signal %d, %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    return diag_error(d, path, 0, "libtracecmd/libtraceevent crashed reading it (%s) although "
                      "it passed pmlab's checks of the format: a bug of those libraries, "
                      "to report upstream (trace-cmd) with the file", how);
}

/* Read the file at open_path (path itself, or its uncompressed copy), naming
 * path in messages. */
static int trace_read_from(const char *open_path, const char *path, enum trace_need need,
                           bool in_process, struct trace_data *td, struct diag *d)
{
    int fd = trace_open_fd(open_path, path, td, d);
    if (fd < 0)
        return -1;
    if (!in_process && trace_read_in_child(fd, path, need, td, d) != 0) {
        close(fd);
        return -1;
    }
    return trace_lib_read(fd, path, need, td, d);
}

int trace_read_need(const char *path, enum trace_need need, struct trace_data *td,
                    struct diag *d)
{
    struct trace_read_opts o = { .max_uncompressed = trace_max_uncompressed(d) };
    if (o.max_uncompressed == 0) {
        memset(td, 0, sizeof *td);
        return -1;
    }
    return trace_read_with(path, need, &o, td, d);
}

int trace_read_with(const char *path, enum trace_need need, const struct trace_read_opts *o,
                    struct trace_data *td, struct diag *d)
{
    memset(td, 0, sizeof *td);
    td->path = xstrdup(path);
    bool gz_err;
    int gz = trace_gunzip(path, o->max_uncompressed, &gz_err, d);
    if (gz_err)
        return -1;
    if (gz < 0)
        return trace_read_from(path, path, need, o->in_process, td, d);
    char fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", gz); /* libtracecmd opens by name */
    int rc = trace_read_from(fdpath, path, need, o->in_process, td, d);
    close(gz);
    return rc;
}
