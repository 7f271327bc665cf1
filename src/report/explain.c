/* explain: a growable list of lines, see explain.h. */
#include "report/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void explain_add(struct explain *x, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 32;
        x->line = xreallocarray(x->line, (size_t)x->cap, sizeof *x->line);
    }
    x->line[x->n++] = xstrdup(buf);
}

void explain_free(struct explain *x)
{
    for (int i = 0; i < x->n; i++)
        free(x->line[i]);
    free(x->line);
    memset(x, 0, sizeof *x);
}

int explain_has(const struct explain *x, const char *line)
{
    for (int i = 0; i < x->n; i++)
        if (strcmp(x->line[i], line) == 0)
            return 1;
    return 0;
}
