/* inifile: inih with line numbers, see inifile.h. */
#include "util/inifile.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

struct inifile_state {
    FILE *f;
    const char *path;
    const struct inifile_ops *ops;
    void *ctx;
    struct diag *d;
    int line;               /* line last handed to inih, 1-based */
    bool line_indented;     /* it starts with white space: a continuation */
    bool failed;            /* a callback or the reader reported an error */
};

/* Hand inih one line, noting its number, its indentation and section headers. */
static char *inifile_read_line(char *buf, int size, void *stream)
{
    struct inifile_state *st = stream;
    if (st->failed || !fgets(buf, size, st->f))
        return NULL;
    st->line++;
    size_t len = strlen(buf);
    if (len > 0 && buf[len - 1] != '\n' && !feof(st->f)) {
        diag_error(st->d, st->path, st->line,
                   "line longer than %d characters; continue a long value on an indented next line",
                   INIFILE_LINE_MAX - 1);
        st->failed = true;
        return NULL;
    }
    st->line_indented = buf[0] == ' ' || buf[0] == '\t';
    const char *p = str_skip_space(buf);
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
    int rc = ini_parse_stream(inifile_read_line, &st, inifile_handle_key, &st);
    fclose(st.f);
    if (st.failed)
        return -1;
    if (rc > 0)
        return diag_error(d, path, rc, "expected 'key = value', '[section]' or a comment");
    if (rc < 0)
        return diag_error(d, path, 0, "cannot parse (inih error %d)", rc);
    return 0;
}
