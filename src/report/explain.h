/* explain: what a variant's kernel, patches, cmdline and sysfs resolve to on
 * a machine, as lines a user would recognise from the real system (sysfs
 * files, turbostat and dmesg vocabulary). Each subsystem contributes its own
 * section through a function that appends lines; `pmlab explain` prints the
 * sections of every variant and marks the lines that differ from the first. */
#ifndef PMLAB_REPORT_EXPLAIN_H
#define PMLAB_REPORT_EXPLAIN_H

#include <stdarg.h>

struct explain {
    char **line;
    int n, cap;
};

/* Append one formatted line ("section: text" by convention). */
void explain_add(struct explain *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void explain_free(struct explain *x);
/* Whether line appears in x. */
int explain_has(const struct explain *x, const char *line);

#endif
