/* options: one line for a bad command-line option, see cli.h.
 *
 * getopt_long's own messages name the program as argv[0], which for a
 * subcommand is "run", and say nothing about what was meant; the commands
 * set opterr = 0 and report here instead, with the nearest option for a
 * typo (--quik: did you mean --quick?). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/suggest.h"

/* The long option whose short form or value is c, or NULL. */
static const struct option *cli_option_by_val(const struct option *longopts, int c)
{
    for (const struct option *o = longopts; o->name; o++)
        if (o->val == c)
            return o;
    return NULL;
}

int cli_bad_option(const char *cmd, char *const *argv, const struct option *longopts,
                   const char *shortopts)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (optopt) {
        bool known = (optopt != ':' && strchr(shortopts, optopt)) ||
                     cli_option_by_val(longopts, optopt);
        if (known && strncmp(arg, "--", 2) == 0 && strchr(arg, '='))
            fprintf(stderr, "pmlab %s: option '%.*s' takes no value\n", cmd,
                    (int)strcspn(arg, "="), arg);
        else if (known)
            fprintf(stderr, "pmlab %s: option '%s' needs a value (see 'pmlab %s --help')\n", cmd,
                    arg, cmd);
        else
            fprintf(stderr, "pmlab %s: unknown option '-%c' (see 'pmlab %s --help')\n", cmd,
                    optopt, cmd);
        return EXIT_BAD_INPUT;
    }
    /* An unknown or ambiguous long option: argv[optind - 1], maybe =VALUE. */
    const char *name = strncmp(arg, "--", 2) == 0 ? arg + 2 : arg;
    size_t len = strcspn(name, "=");
    int prefixed = 0;
    for (const struct option *o = longopts; o->name; o++)
        prefixed += strncmp(o->name, name, len) == 0;
    if (prefixed > 1) {
        fprintf(stderr, "pmlab %s: option '--%.*s' is ambiguous:", cmd, (int)len, name);
        for (const struct option *o = longopts; o->name; o++)
            if (strncmp(o->name, name, len) == 0)
                fprintf(stderr, " --%s", o->name);
        fputc('\n', stderr);
        return EXIT_BAD_INPUT;
    }
    char typed[64];
    snprintf(typed, sizeof typed, "%.*s", (int)len, name);
    struct suggest s;
    suggest_init(&s, typed);
    for (const struct option *o = longopts; o->name; o++)
        suggest_add(&s, o->name);
    const char *hint = suggest_result(&s);
    if (hint)
        fprintf(stderr, "pmlab %s: unknown option '--%s'; did you mean --%s?\n", cmd, typed, hint);
    else
        fprintf(stderr, "pmlab %s: unknown option '--%s' (see 'pmlab %s --help')\n", cmd, typed,
                cmd);
    return EXIT_BAD_INPUT;
}
