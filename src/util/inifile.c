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

/* Read the next line into st->raw and check it is text that fits inih's
 * buffer of size bytes: a NUL byte is an error (fgets would cut the line
 * there, and at its start drop it silently), so is a longer line. Returns
 * its length, or -1 at the end or on an error (st->failed). */
static ssize_t inifile_next_line(struct inifile_state *st, int size)
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
    size_t content = (size_t)n - (n > 0 && st->raw[n - 1] == '\n');
    if (content + 2 > (size_t)size) {
        char why[120];
        snprintf(why, sizeof why,
                 "line longer than %d characters; continue a long value on an indented next line",
                 size - 2);
        inifile_fail(st, why);
        return -1;
    }
    return n;
}

/* Hand inih one line, noting its number, its indentation and section headers. */
static char *inifile_read_line(char *buf, int size, void *stream)
{
    struct inifile_state *st = stream;
    if (st->failed || inifile_next_line(st, size) < 0)
        return NULL;
    const char *p = str_skip_space(st->raw);
    /* An indented section header is a header (inih would take it as a
     * continuation of the key before it while pmlab opened the section). */
    memcpy(buf, *p == '[' ? p : st->raw, strlen(*p == '[' ? p : st->raw) + 1);
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
        size_t n = (size_t)(end - p - 1);
        memcpy(name, p + 1, n);
        name[n] = '\0';
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
