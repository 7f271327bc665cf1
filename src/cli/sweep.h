/* sweep (cli): the parts of `pmlab sweep` that pmlab-mpi shares
 * (cli/sweep.c). */
#ifndef PMLAB_CLI_SWEEP_H
#define PMLAB_CLI_SWEEP_H

#include <stdbool.h>

#include "cli/output.h"
#include "scenario/scenario.h"
#include "sweep/sweep.h"

/* --shard I/N: points index, index + count, ... */
struct sweep_shard {
    long index, count;
};

#define CLI_SWEEP_MAX_OPTS 256

/* A sweep being run: its options, base scenario, store and points to do. */
struct cli_sweep {
    struct sweep_spec spec;
    const char *sets[CLI_SWEEP_MAX_OPTS];
    int nsets;
    const char *db_opt, *output, *plot_dir;
    const char *format;
    bool resume, quiet, seed_set;
    int jobs;
    struct sweep_shard shard;
    struct scenario *base;
    char *db;                    /* the database's path */
    struct sweep_store *st;
    long *todo;                  /* [ntodo] points of this shard not yet committed */
    long ntodo, nshard;
    long ncommitted;             /* of todo, by this run (under guard->lock) */
    char *resume_cmd;            /* the command line that continues it */
    struct out_guard *guard;     /* while cli_sweep_guarded runs, else NULL */
};

#define CLI_SWEEP_HELP (-100)

/* Parse `sweep` arguments and check every point; unless worker (an MPI
 * rank that only runs points), open the store and list the points to do.
 * program is what the resume command an interruption prints starts with
 * ("pmlab"; pmlab-mpi: "mpirun -n N pmlab-mpi"), before "sweep ARGS
 * --resume". Returns 0, CLI_SWEEP_HELP after printing the usage, or an exit
 * status after the message. */
int cli_sweep_open(int argc, char **argv, struct cli_sweep *a, bool worker, const char *program);
/* Run the points to do here, one after another, committing each; 0 or an
 * exit status (ctx unused: the signature of cli_sweep_guarded's fn). */
int cli_sweep_run_local(struct cli_sweep *a, void *ctx);
/* Run fn under the signal watcher; its return value. */
int cli_sweep_guarded(struct cli_sweep *a, int (*fn)(struct cli_sweep *a, void *ctx), void *ctx);
/* Commit the result of the i-th point to do (1-based, for progress), run
 * with status rc and message err; 0 or an exit status. */
int cli_sweep_commit(struct cli_sweep *a, long i, const struct sweep_result *r, int rc,
                     const char *err, double t0);
/* Close the store, print the summary (and plots) when rc is 0, free a;
 * the exit status. */
int cli_sweep_close(struct cli_sweep *a, int rc);

/* Parse "I/N" (0 <= I < N); -1 after one line on stderr. */
int cli_parse_shard(const char *cmd, const char *text, struct sweep_shard *out);
/* Add the scenario's [sweep] axes to spec's grid, load the base scenario
 * (spec's --set texts, no grid) into *base, take its seed unless seed_set,
 * and, with check, load every point once. 0, or -1 after the message
 * (exit 2). */
int cli_sweep_prepare(struct sweep_spec *spec, bool seed_set, struct scenario **base, bool check);
/* The database path when --db is not given (allocated). */
char *cli_sweep_default_db(const struct scenario *base, const char *output,
                           const struct sweep_shard *shard);
/* The progress line: done of total points, the last one's label. */
void cli_sweep_progress(const char *name, long done, long total, double t0, const char *label);
/* The summary of db to output (or stdout) in format, and the plots into
 * plot_dir when given. Returns the exit status. */
int cli_sweep_finish(const char *db, const char *output, const char *format, const char *plot_dir,
                     const char *primary, bool quiet);

#endif
