/* cmdline: kernel command-line splitting, see cmdline.h. */
#include "kernel/cmdline.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Copy one word starting at *p into a new string with its quotes removed,
 * advancing *p past it. Returns NULL on an unterminated quote. */
static char *cmdline_next_word(const char **p)
{
    const char *s = *p;
    size_t cap = strlen(s) + 1, n = 0;
    char *word = xmalloc(cap);
    bool quoted = false;
    for (; *s && (quoted || !isspace((unsigned char)*s)); s++) {
        if (*s == '"') {
            quoted = !quoted;
            continue;
        }
        word[n++] = *s;
    }
    word[n] = '\0';
    *p = s;
    if (quoted) {
        free(word);
        return NULL;
    }
    return word;
}

static void cmdline_push(struct cmdline *c, char *word)
{
    c->args = xreallocarray(c->args, (size_t)c->nargs + 1, sizeof *c->args);
    char *eq = strchr(word, '=');
    struct cmdline_arg *a = &c->args[c->nargs++];
    if (eq) {
        *eq = '\0';
        a->name = word;
        a->value = xstrdup(eq + 1);
    } else {
        a->name = word;
        a->value = NULL;
    }
}

int cmdline_split(const char *text, struct cmdline *out, char *msg, size_t msgsize)
{
    return cmdline_split_more(text, false, out, msg, msgsize);
}

int cmdline_split_more(const char *text, bool after_dashes, struct cmdline *out, char *msg,
                       size_t msgsize)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    if (after_dashes) {
        /* The kernel stops parsing at "--" (kernel/params.c parse_args):
         * whatever follows, however it reached us, is init's. */
        while (isspace((unsigned char)*p))
            p++;
        if (*p)
            out->rest = xstrdup(p);
        return 0;
    }
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            return 0;
        if (p[0] == '-' && p[1] == '-' && (p[2] == '\0' || isspace((unsigned char)p[2]))) {
            p += 2;
            while (isspace((unsigned char)*p))
                p++;
            out->rest = xstrdup(p);
            return 0;
        }
        const char *start = p;
        char *word = cmdline_next_word(&p);
        if (!word) {
            snprintf(msg, msgsize, "unterminated quote in '%s'", start);
            cmdline_free(out);
            return -1;
        }
        cmdline_push(out, word);
    }
}

void cmdline_free(struct cmdline *c)
{
    for (int i = 0; i < c->nargs; i++) {
        free(c->args[i].name);
        free(c->args[i].value);
    }
    free(c->args);
    free(c->rest);
    memset(c, 0, sizeof *c);
}
