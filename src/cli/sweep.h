/* sweep (cli): the parts of `pmlab sweep` that pmlab-mpi shares
 * (cli/sweep.c). */
#ifndef PMLAB_CLI_SWEEP_H
#define PMLAB_CLI_SWEEP_H

#include <stdbool.h>

#include "scenario/scenario.h"
#include "sweep/sweep.h"

/* --shard I/N: points index, index + count, ... */
struct sweep_shard {
    long index, count;
};

/* Parse "I/N" (0 <= I < N); -1 after one line on stderr. */
int cli_parse_shard(const char *cmd, const char *text, struct sweep_shard *out);
/* Add the scenario's [sweep] axes to spec's grid, load the base scenario
 * (spec's --set texts, no grid) into *base, take its seed unless seed_set,
 * and load every point once. 0, or -1 after the message (exit 2). */
int cli_sweep_prepare(struct sweep_spec *spec, bool seed_set, struct scenario **base);
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
