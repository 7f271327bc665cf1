/* pmlab: Linux CPU power-management policies on a simulated machine.
 * Entry point: dispatch to a subcommand (src/cli/). */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/results.h"
#include "util/suggest.h"

static const struct cli_command *const commands[] = {
    &cli_run_command,
    &cli_compare_command,
    &cli_explain_command,
    &cli_machines_command,
    &cli_params_command,
    &cli_sweep_command,
    &cli_export_command,
    &cli_merge_command,
    &cli_trace_command,
    &cli_import_command,
    NULL,
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: pmlab COMMAND [OPTIONS]\n"
            "\n"
            "Run the Linux kernel's CPU power-management policies on a simulated machine and\n"
            "compare kernel variants (command line, sysfs, version, patches) with confidence\n"
            "intervals.\n\n"
            "commands:\n");
    for (const struct cli_command *const *c = commands; *c; c++)
        fprintf(out, "  %-10s %s\n", (*c)->name, (*c)->summary);
    fprintf(out, "\n'pmlab COMMAND --help' describes a command. 'pmlab --version' prints %s.\n",
            PMLAB_VERSION);
}

/* Dispatch argv to a command; its exit status. */
static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2)
            for (const struct cli_command *const *c = commands; *c; c++)
                if (strcmp((*c)->name, argv[2]) == 0)
                    return (*c)->usage(), 0;
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pmlab %s\n", PMLAB_VERSION);
        return 0;
    }
    for (const struct cli_command *const *c = commands; *c; c++)
        if (strcmp((*c)->name, cmd) == 0)
            return (*c)->main(argc - 1, argv + 1);
    struct suggest s;
    suggest_init(&s, cmd);
    for (const struct cli_command *const *c = commands; *c; c++)
        suggest_add(&s, (*c)->name);
    if (suggest_result(&s))
        fprintf(stderr, "pmlab: unknown command '%s'; did you mean %s?\n\n", cmd,
                suggest_result(&s));
    else
        fprintf(stderr, "pmlab: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
    /* GSL's default error handler aborts the process on a domain error (a t
     * quantile with no degrees of freedom, say). pmlab checks every GSL result
     * instead (report/inference.c), so the handler is switched off here, once,
     * before any thread starts: it is the one process-wide setting pmlab
     * makes, and no run depends on it. */
    gsl_set_error_handler_off();
    /* Past a file size limit (ulimit -f) the kernel sends SIGXFSZ, whose
     * default action kills the process without a word (status 153). Ignored,
     * the write fails with EFBIG instead, which every output path reports
     * with the file's name ("File too large") and exit status 1. */
    signal(SIGXFSZ, SIG_IGN);
    /* One large buffer for stdout, so that a command's whole output (help,
     * explain, a table: well under 1 MiB) is written by the flush below,
     * where a failure still has its errno (ENOSPC on a full disk, EPIPE):
     * after a failed write in mid-command glibc drops the buffer and the
     * cause, and the message could only say "Input/output error". Larger
     * outputs still fail with exit 1, then with that generic cause. A
     * terminal keeps its line buffering. The buffer is stdio's, not model
     * state: runs stay pure functions of (scenario, seed). */
    static char stdout_buf[1 << 20];
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
    int rc = dispatch(argc, argv);
    /* Output that never arrived is a failure, whichever command wrote it
     * (explain > /dev/full, a closed pipe): exit 1 like a failed run. A
     * command that already failed has said why and keeps its status. */
    errno = 0;
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "pmlab: error writing standard output: %s\n",
                strerror(errno ? errno : EIO));
        rc = EXIT_RUN_FAILED;
    }
    return rc;
}
