/* tracedat_check: a trace.dat's layout checked by pmlab before libtracecmd
 * reads it (see tracedat_check.h for why, and what is checked).
 *
 * The layout is trace-cmd's file format version 6 (trace-cmd.dat(5)): the
 * magic, the version as text, endianness, the size of a long and the page
 * size; then "header_page" and "header_event", each a 64-bit size and text;
 * the ftrace events' formats (a 32-bit count, each a 64-bit size and text);
 * the event systems (a 32-bit count, each a name, a 32-bit count of events,
 * each a 64-bit size and text); kallsyms and printk formats (a 32-bit size
 * each); the saved command lines (a 64-bit size); the CPU count (32 bits);
 * "options  " blocks (a 16-bit id, a 32-bit size and data, ending at id 0);
 * "flyrecord" and one 64-bit offset and size per CPU: its ring-buffer pages. */
#define _GNU_SOURCE /* memmem */
#include "trace/tracedat_check.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TDC_MAGIC "\x17\x08\x44tracing"
#define TDC_MAGIC_LEN 10
#define TDC_TAG_LEN 10                 /* "options  ", "flyrecord": 9 + NUL */
#define TDC_MAX_TEXT (1u << 20)        /* bytes of one event format, in practice < 4 KiB */
#define TDC_MAX_EVENTS 65536           /* an event's ID is common_type, 16 bits */
#define TDC_MAX_CPUS 65536
#define TDC_MIN_PAGE 1024u             /* bytes; kernels use 4, 16 or 64 KiB */
#define TDC_MAX_PAGE (1u << 20)

/* Option ids (trace-cmd's enum tracecmd_file_options) whose contents the
 * library reads as structures of counts and offsets (host/guest tracing);
 * pmlab reads single-host traces only. */
#define TDC_OPT_DONE 0
#define TDC_OPT_BUFFER 3
#define TDC_OPT_TIME_SHIFT 12
#define TDC_OPT_GUEST 13
#define TDC_OPT_BUFFER_TEXT 15

struct tdc {
    const unsigned char *buf;
    size_t len, at;
    const char *path;
    struct diag *d;
    uint32_t page;
};

static int tdc_fail(struct tdc *c, const char *what)
{
    return diag_error(c->d, c->path, 0, "not a valid trace-cmd trace.dat: %s at byte %zu", what,
                      c->at);
}

static uint64_t tdc_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Read an n-byte little-endian number; -1 past the end. */
static int tdc_num(struct tdc *c, int n, uint64_t *v, const char *what)
{
    if (c->len - c->at < (size_t)n)
        return tdc_fail(c, what);
    *v = tdc_le(c->buf + c->at, n);
    c->at += (size_t)n;
    return 0;
}

static int tdc_tag(struct tdc *c, const char *tag, size_t n)
{
    if (c->len - c->at < n || memcmp(c->buf + c->at, tag, n) != 0)
        return tdc_fail(c, tag);
    c->at += n;
    return 0;
}

/* size bytes of text from here: every byte printable ASCII, a tab or a
 * newline (formats and symbol tables are), or with high true any byte but
 * a control character (task names may be UTF-8). */
static int tdc_text(struct tdc *c, uint64_t size, uint64_t max, bool high, const char *what)
{
    if (size > max || size > c->len - c->at)
        return tdc_fail(c, what);
    for (uint64_t i = 0; i < size; i++) {
        unsigned char ch = c->buf[c->at + i];
        if (!isprint(ch) && ch != '\t' && ch != '\n' && !(high && ch >= 0x80))
            return c->at += i, tdc_fail(c, what);
    }
    c->at += size;
    return 0;
}

/* A NUL-terminated name (an event system) of at most 255 bytes. */
static int tdc_name(struct tdc *c, const char *what)
{
    size_t i = 0;
    for (; c->at + i < c->len && i < 256 && c->buf[c->at + i]; i++)
        if (!isgraph(c->buf[c->at + i]))
            return tdc_fail(c, what);
    if (c->at + i >= c->len || i == 0 || i == 256)
        return tdc_fail(c, what);
    c->at += i + 1;
    return 0;
}

/* One "field:" line's offset and size within a record of the page. */
static int tdc_field_line(struct tdc *c, const char *line, size_t n)
{
    char text[512];
    if (n >= sizeof text)
        return tdc_fail(c, "an event field line longer than 511 bytes");
    memcpy(text, line, n);
    text[n] = 0;
    const char *o = strstr(text, "offset:"), *s = strstr(text, "size:");
    char *end;
    if (!o || !s)
        return tdc_fail(c, "an event field without offset or size");
    unsigned long off = strtoul(o + 7, &end, 10);
    if (end == o + 7 || *end != ';')
        return tdc_fail(c, "an event field's offset");
    unsigned long size = strtoul(s + 5, &end, 10);
    if (end == s + 5 || *end != ';')
        return tdc_fail(c, "an event field's size");
    if (off > c->page || size > c->page || off + size > c->page)
        return tdc_fail(c, "an event field beyond the page size");
    return 0;
}

/* An event format (header_event too): text whose field lines fit a page. */
static int tdc_format(struct tdc *c, bool event, const char *what)
{
    uint64_t size = 0;
    if (tdc_num(c, 8, &size, what) != 0)
        return -1;
    size_t start = c->at;
    if (tdc_text(c, size, TDC_MAX_TEXT, false, what) != 0)
        return -1;
    const char *t = (const char *)c->buf + start, *end = t + size;
    if (event && (size < 6 || memcmp(t, "name: ", 6) != 0 || !memmem(t, size, "\nID: ", 5) ||
                  !memmem(t, size, "\nformat:", 8)))
        return c->at = start, tdc_fail(c, "an event format without name, ID or format");
    for (const char *line = t; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        const char *f = memmem(line, n, "field:", 6);
        if (f && (f == line || isspace((unsigned char)f[-1])) &&
            tdc_field_line(c, line, n) != 0)
            return -1;
        line += n + 1;
    }
    return 0;
}

/* header_page: the ring-buffer page header's fields (timestamp, commit,
 * data); pmlab reads 64-bit timestamps and a commit of the file's long. */
static int tdc_header_page(struct tdc *c, int long_size)
{
    if (tdc_tag(c, "header_page", 12) != 0)
        return -1;
    size_t start = c->at + 8;
    if (tdc_format(c, false, "header_page") != 0)
        return -1;
    const char *t = (const char *)c->buf + start;
    size_t n = c->at - start;
    char want[64];
    snprintf(want, sizeof want, "offset:8;\tsize:%d;", long_size);
    if (!memmem(t, n, "u64 timestamp;\toffset:0;\tsize:8;", 32) || !memmem(t, n, want, strlen(want)))
        return c->at = start, tdc_fail(c, "header_page: no 64-bit timestamp at 0 and commit at 8");
    return 0;
}

/* kallsyms ("ADDR TYPE NAME[\tMODULE]" lines), printk formats ("ADDR :
 * \"TEXT\"" lines) and saved command lines ("PID COMM" lines): text whose
 * every line has that shape, since the library's parsers trust it. */
static int tdc_lines(struct tdc *c, int size_bytes, int kind, const char *what)
{
    uint64_t size = 0;
    if (tdc_num(c, size_bytes, &size, what) != 0)
        return -1;
    size_t start = c->at;
    if (tdc_text(c, size, UINT64_MAX, kind == 2, what) != 0)
        return -1;
    const char *t = (const char *)c->buf + start, *end = t + size;
    for (const char *line = t; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        char text[1024];
        if (n >= sizeof text)
            return c->at = start + (size_t)(line - t), tdc_fail(c, what);
        memcpy(text, line, n);
        text[n] = 0;
        char a[32], b[4], rest[1024];
        bool ok = n == 0;
        if (kind == 0)
            ok = ok || sscanf(text, "%31[0-9a-fA-F] %3s %1023s", a, b, rest) == 3;
        else if (kind == 1)
            ok = ok || (sscanf(text, "0x%31[0-9a-fA-F] : \"%1023[^\n]", a, rest) == 2 &&
                        n > 0 && text[n - 1] == '"');
        else
            ok = ok || sscanf(text, "%31[0-9]", a) == 1;
        if (!ok)
            return c->at = start + (size_t)(line - t), tdc_fail(c, what);
        line += n + 1;
    }
    return 0;
}

/* "options  " blocks: each option's size within the file; guest and
 * time-shift options (host/guest traces) and instance buffers refused. */
static int tdc_options(struct tdc *c)
{
    for (;;) {
        uint64_t id = 0, size = 0;
        if (tdc_num(c, 2, &id, "options") != 0)
            return -1;
        if (id == TDC_OPT_DONE)
            return 0;
        if (tdc_num(c, 4, &size, "an option's size") != 0)
            return -1;
        if (size > c->len - c->at)
            return tdc_fail(c, "an option past the end of the file");
        if (id == TDC_OPT_BUFFER || id == TDC_OPT_BUFFER_TEXT || id == TDC_OPT_TIME_SHIFT ||
            id == TDC_OPT_GUEST)
            return diag_error(c->d, c->path, 0, "trace-cmd option %" PRIu64 " (instance "
                              "buffers or host/guest tracing) at byte %zu: pmlab reads the "
                              "top-level buffer of a single-host trace only", id, c->at - 6);
        c->at += (size_t)size;
    }
}

/* One ring-buffer page's events: every length within the page's commit,
 * as the kernel's ring buffer (kernel/trace/ring_buffer.c) lays them out:
 * a 32-bit header (type_len: 5 bits, time delta: 27); type_len 1-28: that
 * many 32-bit words of data; 0: a 32-bit length (itself included) first;
 * 29 padding (a length), 30 a time extend, 31 an absolute time stamp. */
static int tdc_page(struct tdc *c, size_t page_at, int long_size)
{
    size_t hdr = 8 + (size_t)long_size;
    uint64_t commit = tdc_le(c->buf + page_at + 8, long_size) & ((1u << 27) - 1);
    if (commit > c->page - hdr)
        return c->at = page_at + 8, tdc_fail(c, "a page's commit beyond the page");
    size_t p = page_at + hdr, end = p + (size_t)commit;
    while (p < end) {
        c->at = p;
        if (end - p < 4)
            return tdc_fail(c, "an event header cut by the page's end");
        uint32_t h = (uint32_t)tdc_le(c->buf + p, 4);
        unsigned type_len = h & 31;
        p += 4;
        uint64_t len;
        if (type_len >= 1 && type_len <= 28) {
            len = 4u * type_len;
        } else if (type_len == 30 || type_len == 31) {
            len = 4;
        } else {
            if (end - p < 4)
                return tdc_fail(c, "an event length cut by the page's end");
            len = tdc_le(c->buf + p, 4);
            if (type_len == 29 && (h >> 5) == 0)
                return 0; /* padding to the end of the page */
            if (type_len == 0) {
                if (len < 4)
                    return tdc_fail(c, "an event length under 4 bytes");
                len = (len - 4 + 3) / 4 * 4 + 4;
            }
        }
        if (len > end - p)
            return tdc_fail(c, "an event past the page's commit");
        p += (size_t)len;
    }
    return 0;
}

/* The flyrecord table: per CPU an offset and size of whole pages after the
 * header; the pages present (the rest is a cut file's loss, which
 * tracedat.c repairs) checked event by event. */
static int tdc_flyrecord(struct tdc *c, struct tracedat_layout *lay)
{
    size_t header_end = c->at + 16 * (size_t)lay->ncpus;
    if (header_end > c->len)
        return tdc_fail(c, "the flyrecord table past the end of the file");
    for (int cpu = 0; cpu < lay->ncpus; cpu++) {
        c->at = lay->fly_at + 16 * (size_t)cpu;
        uint64_t off = tdc_le(c->buf + c->at, 8), size = tdc_le(c->buf + c->at + 8, 8);
        if (size == 0)
            continue;
        if (off < header_end || off % c->page != 0 || size % c->page != 0 ||
            size > UINT64_MAX - off)
            return tdc_fail(c, "a CPU's data not whole pages after the header");
        for (uint64_t page = off; page < off + size && page + c->page <= c->len; page += c->page)
            if (tdc_page(c, (size_t)page, lay->long_size) != 0)
                return -1;
    }
    c->at = header_end;
    return 0;
}

/* Magic, version, endianness, long size, page size. */
static int tdc_initial(struct tdc *c, struct tracedat_layout *lay)
{
    if (c->len < TDC_MAGIC_LEN || memcmp(c->buf, TDC_MAGIC, TDC_MAGIC_LEN) != 0)
        return diag_error(c->d, c->path, 0, "not a trace-cmd trace.dat (no trace-cmd magic at "
                          "its start)");
    c->at = TDC_MAGIC_LEN;
    const unsigned char *v = c->buf + c->at;
    size_t vn = 0;
    while (c->at + vn < c->len && vn < 8 && isdigit(v[vn]))
        vn++;
    if (vn == 0 || c->at + vn >= c->len || v[vn] != 0)
        return tdc_fail(c, "the file version");
    if (vn != 1 || v[0] != '6')
        return diag_error(c->d, c->path, 0, "trace-cmd file version %.*s: pmlab reads version 6 "
                          "(record with `trace-cmd record --file-version 6`)", (int)vn, v);
    c->at += vn + 1;
    uint64_t endian = 0, long_size = 0, page = 0;
    if (tdc_num(c, 1, &endian, "endianness") != 0 || tdc_num(c, 1, &long_size, "long size") != 0 ||
        tdc_num(c, 4, &page, "page size") != 0)
        return -1;
    if (endian != 0)
        return diag_error(c->d, c->path, 0, "a big-endian trace.dat: pmlab reads little-endian "
                          "ones (x86, Arm)");
    if (long_size != 4 && long_size != 8)
        return c->at -= 5, tdc_fail(c, "a long size other than 4 or 8");
    if (page < TDC_MIN_PAGE || page > TDC_MAX_PAGE || (page & (page - 1)) != 0)
        return c->at -= 4, tdc_fail(c, "a page size that is not a power of two of 1 KiB to 1 MiB");
    c->page = (uint32_t)page;
    lay->long_size = (int)long_size;
    lay->page_size = (uint32_t)page;
    return 0;
}

/* The event systems: names and formats. */
static int tdc_events(struct tdc *c)
{
    uint64_t n = 0, nsys = 0, total = 0;
    if (tdc_num(c, 4, &n, "the ftrace event count") != 0)
        return -1;
    if (n > TDC_MAX_EVENTS)
        return tdc_fail(c, "more ftrace events than IDs");
    for (uint64_t i = 0; i < n; i++)
        if (tdc_format(c, true, "an ftrace event format") != 0)
            return -1;
    if (tdc_num(c, 4, &nsys, "the event system count") != 0)
        return -1;
    if (nsys > TDC_MAX_EVENTS)
        return tdc_fail(c, "more event systems than IDs");
    for (uint64_t s = 0; s < nsys; s++) {
        if (tdc_name(c, "an event system's name") != 0 || tdc_num(c, 4, &n, "an event count") != 0)
            return -1;
        if (n > TDC_MAX_EVENTS || (total += n) > TDC_MAX_EVENTS)
            return tdc_fail(c, "more events than IDs");
        for (uint64_t i = 0; i < n; i++)
            if (tdc_format(c, true, "an event format") != 0)
                return -1;
    }
    return 0;
}

int tracedat_check(const unsigned char *buf, size_t len, const char *path,
                   struct tracedat_layout *lay, struct diag *d)
{
    struct tdc c = { .buf = buf, .len = len, .path = path, .d = d };
    memset(lay, 0, sizeof *lay);
    if (tdc_initial(&c, lay) != 0 || tdc_header_page(&c, lay->long_size) != 0 ||
        tdc_tag(&c, "header_event", 13) != 0 || tdc_format(&c, false, "header_event") != 0 ||
        tdc_events(&c) != 0 || tdc_lines(&c, 4, 0, "kallsyms") != 0 ||
        tdc_lines(&c, 4, 1, "printk formats") != 0 ||
        tdc_lines(&c, 8, 2, "saved command lines") != 0)
        return -1;
    uint64_t ncpus = 0;
    if (tdc_num(&c, 4, &ncpus, "the CPU count") != 0)
        return -1;
    if (ncpus == 0 || ncpus > TDC_MAX_CPUS)
        return c.at -= 4, tdc_fail(&c, "a CPU count of 0 or over 65536");
    lay->ncpus = (int)ncpus;
    while (c.len - c.at >= TDC_TAG_LEN && memcmp(c.buf + c.at, "options  ", TDC_TAG_LEN) == 0) {
        c.at += TDC_TAG_LEN;
        if (tdc_options(&c) != 0)
            return -1;
    }
    if (c.len - c.at >= TDC_TAG_LEN && memcmp(c.buf + c.at, "latency  ", TDC_TAG_LEN) == 0)
        return diag_error(d, path, 0, "a latency-tracer trace.dat (no per-CPU ring buffers): "
                          "pmlab reads `trace-cmd record` files");
    if (tdc_tag(&c, "flyrecord", TDC_TAG_LEN) != 0)
        return -1;
    lay->fly_at = c.at;
    return tdc_flyrecord(&c, lay);
}
