/* output: a run's files written whole or not at all.
 *
 * Why: a run takes minutes and its outputs replace earlier ones. Truncating
 * --output before the run lost the previous results to any failure or Ctrl-C,
 * report and plot directories were left half-written, and two runs writing
 * the same directory mixed their files. So every output is built under a
 * temporary name beside its target -- a file next to --output, a staging
 * directory inside --plot/--report DIR -- and renamed into place once it is
 * complete. Until then the target keeps whatever it held; on failure or
 * interruption only what pmlab created is removed (the temporary file, the
 * staging directory, and DIR itself if pmlab made it and it is still empty).
 * A target that is not a regular file (/dev/null, a pipe, a terminal) cannot
 * be replaced by a rename: it is written directly and never removed.
 *
 * SIGINT, SIGTERM and SIGHUP (unless ignored on entry, as nohup does) are
 * taken by a thread that waits for them (sigwait), not by a handler: it
 * removes what is not yet in place, says so in one line and exits with
 * 128 + the signal number, as a shell reports a process killed by it. Its
 * state lives in a struct out_guard the caller owns, so there is no global
 * state, not even the one volatile flag a handler would need. */
#ifndef PMLAB_CLI_OUTPUT_H
#define PMLAB_CLI_OUTPUT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* --output FILE. */
struct out_file {
    char *target;            /* the file the report goes to (symlinks resolved) */
    char *tmp;               /* the temporary beside it; NULL when written in place */
    FILE *f;                 /* write the report here */
    bool done;               /* committed or aborted */
};

/* Open a temporary beside path (or path itself when it exists and is not a
 * regular file). Returns 0, or -1 with msg ("cannot write PATH: why"). */
int out_file_open(struct out_file *o, const char *path, char *msg, size_t msgsize);
/* Flush, sync and rename the temporary into place. Returns 0, or -1 with
 * msg ("error writing PATH: why", e.g. No space left on device) after
 * removing the temporary. */
int out_file_commit(struct out_file *o, char *msg, size_t msgsize);
/* Close and remove the temporary; the target is left as it was. */
void out_file_abort(struct out_file *o);
/* Free o's strings (after commit or abort). */
void out_file_free(struct out_file *o);

/* --plot DIR or --report DIR. */
struct out_dir {
    char *target;            /* DIR */
    char *stage;             /* DIR/.pmlab-XXXXXX: write the files here */
    bool created;            /* DIR did not exist before */
    bool done;
};

/* Create DIR if needed and a staging directory in it. Returns 0, or -1 with
 * msg. */
int out_dir_open(struct out_dir *d, const char *dir, char *msg, size_t msgsize);
/* Move every file of the staging directory into DIR (replacing files of the
 * same name; report.* last) under an exclusive flock(2) of DIR, so two runs
 * never interleave, then remove the staging directory. 0, or -1 with msg. */
int out_dir_commit(struct out_dir *d, char *msg, size_t msgsize);
/* Remove the staging directory and what is in it (all pmlab's), and DIR if
 * pmlab created it and it is empty. */
void out_dir_abort(struct out_dir *d);
void out_dir_free(struct out_dir *d);

/* Refuse to write opt's path out over an input (what: "the scenario",
 * "the database"): the same file, by device and inode when both exist, else
 * the same path once the directory and any symbolic links are resolved (an
 * input that is created later, as a new --db, or an output not yet there).
 * Returns 0, or -1 with msg ("--output X is the database Y: ..."). */
int out_check_not_input(const char *opt, const char *out, const char *what, const char *input,
                        char *msg, size_t msgsize);
/* The same for every file of in[n] (what[i] says what each is). */
int out_check_not_inputs(const char *opt, const char *out, const char *const *in,
                         const char *const *what, int n, char *msg, size_t msgsize);

#define OUT_MAX_DIRS 2

/* What an interruption must undo: set before out_guard_start, then read by
 * the watcher with lock held. */
struct out_guard {
    const char *cmd;                 /* "pmlab run" */
    struct out_file *file;           /* NULL without --output */
    struct out_dir *dirs[OUT_MAX_DIRS];
    int ndirs;
    bool report_pending;             /* the report to stdout is not out yet */
    pthread_mutex_t lock;            /* held by the caller while it writes outputs */
    pthread_t watcher;
    sigset_t set, old;
    bool running;
    bool stopping;                   /* out_guard_stop is waking the watcher */
    bool term_ignored;               /* SIGTERM was ignored on entry */
    /* When set, what an interruption leaves, written by the watcher (with
     * lock held) after "CMD: interrupted by SIG: " instead of the list of
     * outputs not written (a sweep: the points committed, how to resume). */
    void (*describe)(void *ctx, FILE *out);
    void *describe_ctx;
};

/* Block SIGINT, SIGTERM and SIGHUP in the calling thread (and so in every
 * thread it starts later) and start the watcher. Call before any worker
 * thread exists. Returns 0 or -1 (then nothing changed). */
int out_guard_start(struct out_guard *g);
/* Stop the watcher and restore the signal mask. */
void out_guard_stop(struct out_guard *g);

#endif
