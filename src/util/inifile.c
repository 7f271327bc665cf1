/* inifile: inih with line numbers, see inifile.h. */
#include "util/inifile.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/strutil.h"

struct inifile_state {
    FILE *f;
    const char *path;
    const struct inifile_ops *ops;
    void *ctx;
    struct diag *d;
    char *raw;              /* the line as read (getline: any length, NUL bytes seen) */
    size_t rawcap;
    const char *pending;    /* the rest of a long value line, for inih in pieces */
    int line;               /* line last handed to inih, 1-based */
    bool line_indented;     /* it starts with white space: a continuation */
    bool failed;            /* a callback or the reader reported an error */
};

static char *inifile_fail(struct inifile_state *st, const char *why)
{
    diag_error(st->d, st->path, st->line, "%s", why);
    st->failed = true;
    return NULL;
}

static char *inifile_too_long(struct inifile_state *st, int size)
{
    char why[120];
    snprintf(why, sizeof why,
             "line longer than %d characters; continue a long value on an indented next line",
             size - 2);
    return inifile_fail(st, why);
}

/* Read the next line into st->raw, without its newline, and check it is
 * text: a NUL byte is an error (fgets would cut the line there, and at its
 * start drop it silently). Returns its length, or -1 at the end or on an
 * error (st->failed). */
static ssize_t inifile_next_line(struct inifile_state *st)
{
    errno = 0;
    ssize_t n = getline(&st->raw, &st->rawcap, st->f);
    if (n < 0) {
        if (errno && errno != ENOMEM)
            inifile_fail(st, strerror(errno));
        return -1;
    }
    st->line++;
    const char *nul = memchr(st->raw, '\0', (size_t)n);
    if (nul) {
        char why[80];
        snprintf(why, sizeof why, "NUL byte at column %d: not a text file", (int)(nul - st->raw) + 1);
        inifile_fail(st, why);
        return -1;
    }
    /* UTF-8 byte order mark before the first line, as editors on Windows
     * write it: skipped, as inih itself would. */
    if (st->line == 1 && n >= 3 && memcmp(st->raw, "\xEF\xBB\xBF", 3) == 0) {
        memmove(st->raw, st->raw + 3, (size_t)n - 2);
        n -= 3;
    }
    if (n > 0 && st->raw[n - 1] == '\n')
        st->raw[--n] = '\0';
    return n;
}

/* Where to cut text for a piece of at most max bytes: the last blank after
 * from and outside double quotes (a kernel command line's quoting), so no
 * word or quoted value is split; 0 if there is none. */
static size_t inifile_cut(const char *text, size_t from, size_t max)
{
    size_t cut = 0;
    bool quoted = false;
    for (size_t i = 0; text[i] && i <= max; i++) {
        if (text[i] == '"')
            quoted = !quoted;
        else if (!quoted && i > from && (text[i] == ' ' || text[i] == '\t'))
            cut = i;
    }
    return cut;
}

/* Copy the next piece of a long value line into buf as an indented
 * continuation line, so inih (200-byte lines) reads a pasted /proc/cmdline
 * of any length as the key plus continuation lines, under the file's line
 * number. */
static char *inifile_next_piece(struct inifile_state *st, char *buf, int size)
{
    size_t max = (size_t)size - 4; /* "  " + piece + "\n" + NUL */
    size_t len = strlen(st->pending);
    size_t cut = len <= max ? len : inifile_cut(st->pending, 0, max);
    if (!cut)
        return inifile_too_long(st, size);
    snprintf(buf, (size_t)size, "  %.*s\n", (int)cut, st->pending);
    st->pending = str_skip_space(st->pending + cut);
    if (!*st->pending)
        st->pending = NULL;
    st->line_indented = true;
    return buf;
}

/* Hand inih one line, noting its number, its indentation and section headers. */
static char *inifile_read_line(char *buf, int size, void *stream)
{
    struct inifile_state *st = stream;
    if (st->failed)
        return NULL;
    if (st->pending)
        return inifile_next_piece(st, buf, size);
    ssize_t n = inifile_next_line(st);
    if (n < 0)
        return NULL;
    const char *p = str_skip_space(st->raw);
    if ((size_t)n + 2 > (size_t)size && *p != ';' && *p != '#') {
        /* An inline comment (" ;", as inih reads it) is dropped here, or
         * the pieces after the first would carry its words as values. */
        for (ssize_t i = 1; i < n; i++)
            if (st->raw[i] == ';' && (st->raw[i - 1] == ' ' || st->raw[i - 1] == '\t')) {
                st->raw[i] = '\0';
                n = i;
                break;
            }
    }
    if ((size_t)n + 2 > (size_t)size) {
        /* A `key = value` line too long for inih goes in pieces. */
        const char *eq = strchr(p, '=');
        size_t cut = *p == '[' || *p == ';' || *p == '#' || !eq
                         ? 0 : inifile_cut(st->raw, (size_t)(eq - st->raw), (size_t)size - 2);
        if (!cut)
            return inifile_too_long(st, size);
        snprintf(buf, (size_t)size, "%.*s\n", (int)cut, st->raw);
        st->pending = str_skip_space(st->raw + cut);
        st->line_indented = buf[0] == ' ' || buf[0] == '\t';
        return buf;
    }
    /* An indented section header is a header (inih would take it as a
     * continuation of the key before it while pmlab opened the section). */
    snprintf(buf, (size_t)size, "%s\n", *p == '[' ? p : st->raw);
    st->line_indented = buf[0] == ' ' || buf[0] == '\t';
    p = buf;
    if (*p == '[' && st->ops->section) {
        const char *end = strchr(p, ']');
        if (!end) {
            diag_error(st->d, st->path, st->line, "section header without ']'");
            st->failed = true;
            return NULL;
        }
        char name[INIFILE_LINE_MAX + 1];
        size_t namelen = (size_t)(end - p - 1);
        memcpy(name, p + 1, namelen);
        name[namelen] = '\0';
        str_trim_inplace(name);
        if (st->ops->section(st->ctx, name, st->line, st->d) != 0) {
            st->failed = true;
            return NULL;
        }
    }
    return buf;
}

static int inifile_handle_key(void *user, const char *section, const char *name, const char *value)
{
    struct inifile_state *st = user;
    if (st->failed)
        return 0;
    if (st->ops->key(st->ctx, section, name, value, st->line_indented, st->line, st->d) != 0) {
        st->failed = true;
        return 0;
    }
    return 1;
}

int inifile_parse(const char *path, const struct inifile_ops *ops, void *ctx, struct diag *d)
{
    struct inifile_state st = { .path = path, .ops = ops, .ctx = ctx, .d = d };
    st.f = fopen(path, "r");
    if (!st.f)
        return diag_error(d, path, 0, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fileno(st.f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(st.f);
        return diag_error(d, path, 0, "is a directory, not a file");
    }
    int rc = ini_parse_stream(inifile_read_line, &st, inifile_handle_key, &st);
    fclose(st.f);
    free(st.raw);
    if (st.failed)
        return -1;
    if (rc > 0)
        return diag_error(d, path, rc, "expected 'key = value', '[section]' or a comment");
    if (rc < 0)
        return diag_error(d, path, 0, "cannot parse (inih error %d)", rc);
    return 0;
}
