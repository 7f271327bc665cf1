/* merge: `pmlab merge A.db B.db ... -o ALL.db`: the databases of one
 * sweep's shards (--shard I/N, e.g. a Slurm job array) joined into one. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "sweep/store.h"

static void merge_usage(void)
{
    printf("usage: pmlab merge A.db B.db ... -o ALL.db\n"
           "\n"
           "Join the results databases of one sweep's shards ('pmlab sweep --shard I/N') into\n"
           "one, which reads, exports and plots as an unsharded run of the sweep does. The\n"
           "inputs must hold the same sweep (scenario, machine file, grid, --set texts,\n"
           "seed, replications, quick), no point twice and together every point; otherwise\n"
           "exit status 2 says what differs, which point overlaps or which is missing.\n"
           "ALL.db must not exist; it appears only when complete.\n"
           "\n"
           "options:\n"
           "  -o, --output FILE  the merged database (required)\n"
           "  -h, --help         this text\n");
}

static int merge_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'h')
            return merge_usage(), 0;
        if (c != 'o')
            return cli_bad_option("merge", argv, longopts, "o:h");
        out = optarg;
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "pmlab merge: expected databases and -o ALL.db (see 'pmlab merge --help')\n");
        return EXIT_BAD_INPUT;
    }
    char msg[600];
    for (int i = optind; i < argc; i++)
        if (out_check_not_input("-o", out, "the input", argv[i], msg, sizeof msg) != 0) {
            fprintf(stderr, "pmlab merge: %s\n", msg);
            return EXIT_BAD_INPUT;
        }
    struct stat st;
    if (stat(out, &st) == 0) {
        fprintf(stderr, "pmlab merge: %s exists: choose another name or remove it\n", out);
        return EXIT_BAD_INPUT;
    }
    /* Built under a temporary name beside ALL.db (cli/output.h: hidden, named
     * for this process, removed by a later run if this one is killed) and
     * renamed into place once complete. */
    struct out_file of;
    if (out_file_open(&of, out, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab merge: -o: %s\n", msg);
        return EXIT_BAD_INPUT;
    }
    fclose(of.f); /* SQLite writes it, and syncs it */
    of.f = NULL;
    bool bad_input;
    int rc = 0;
    if (store_merge((const char *const *)argv + optind, argc - optind, of.tmp, &bad_input, msg,
                    sizeof msg) != 0) {
        fprintf(stderr, "pmlab merge: %s\n", msg);
        out_file_abort(&of);
        rc = bad_input ? EXIT_BAD_INPUT : EXIT_RUN_FAILED;
    } else if (out_file_commit(&of, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab merge: %s\n", msg);
        rc = EXIT_RUN_FAILED;
    }
    out_file_free(&of);
    return rc;
}

const struct cli_command cli_merge_command = {
    .name = "merge",
    .summary = "join the results databases of a sweep's shards",
    .main = merge_main,
    .usage = merge_usage,
};
