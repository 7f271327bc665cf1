/* cmdline: split a kernel command line into parameters, by the kernel's rules
 * (lib/cmdline.c next_arg, kernel/params.c parse_args):
 *  - words are separated by white space;
 *  - a word is `name`, `name=value` or `module.name=value`;
 *  - double quotes group white space: `name="a b"` gives value `a b`, and a
 *    quote at the start of the word (`"name=a b"`) is stripped as well;
 *  - a bare `--` ends the kernel's parameters; the rest goes to init and is
 *    ignored here (returned as `rest`).
 * Names are matched later with '-' and '_' equivalent. */
#ifndef PMLAB_KERNEL_CMDLINE_H
#define PMLAB_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

struct cmdline_arg {
    char *name;
    char *value;   /* NULL for a bare word */
};

struct cmdline {
    struct cmdline_arg *args;
    int nargs;
    char *rest;    /* words after "--", or NULL */
};

/* Split text. Returns 0, or -1 with msg set (an unterminated quote). */
int cmdline_split(const char *text, struct cmdline *out, char *msg, size_t msgsize);
/* The same for a piece of a longer command line (a scenario's line cut in
 * pieces, or a second cmdline key): after_dashes says a "--" came in an
 * earlier piece, and then all of text goes to rest (NULL if blank). */
int cmdline_split_more(const char *text, bool after_dashes, struct cmdline *out, char *msg,
                       size_t msgsize);
void cmdline_free(struct cmdline *c);

#endif
