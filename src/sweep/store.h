/* store: a sweep's results in an SQLite database (Debian libsqlite3).
 *
 * Tables (docs/sweeps.md):
 *   sweep(key, value)       what makes two databases the same sweep: scenario
 *                           name and SHA-256 of its text, machine file hash,
 *                           grid, --set texts, seed, replications, quick,
 *                           points; the identity checked by --resume and merge
 *   provenance(key, value)  pmlab version, git commit, shard, started
 *   scenario(path, text)    the scenario file as it was read
 *   points(point, label, seed, reps, machine, machine_sha256, wall_s)
 *   point_keys(point, key, value)           one row per grid axis
 *   results(point, variant, variant_name, replication, metric, unit, value)
 *
 * Each finished point is one transaction (its points row, keys and
 * results), so a process killed at any moment, even by SIGKILL, leaves every
 * committed point whole and nothing of the others: SQLite rolls a torn
 * transaction back at the next open. The database is opened with a rollback
 * journal and synchronous=FULL for that reason. */
#ifndef PMLAB_SWEEP_STORE_H
#define PMLAB_SWEEP_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/sweep.h"

struct sweep_store;

/* The identity of a sweep: key/value pairs, in a fixed order. */
#define STORE_MAX_ID 16
struct store_identity {
    const char *key[STORE_MAX_ID];
    char *value[STORE_MAX_ID];   /* owned */
    int n;
};

/* spec's identity; base is the scenario loaded without grid (for its
 * name and machine). Free with store_identity_free. */
void store_identity_of(const struct sweep_spec *spec, const struct scenario *base,
                       struct store_identity *id);
void store_identity_free(struct store_identity *id);

/* Open path for spec. Without resume the file must not hold a sweep
 * already; with resume it must hold this one (same identity) or not exist.
 * An existing file is checked (PRAGMA quick_check) first. The database is
 * locked for this process until store_close (a row in its lock table: PID,
 * host, start time); another live process's lock is an error naming it.
 * shard is "I/N" or "" (provenance only). Returns the store, or NULL with
 * msg; *bad_input is set when the cause is the user's (exit 2). */
struct sweep_store *store_open(const char *path, bool resume, const struct store_identity *id,
                               const struct sweep_spec *spec, const char *shard, bool *bad_input,
                               char *msg, size_t msgsize);
/* Whether point p is committed: 1, 0, or -1 with msg (a read error). */
int store_has_point(struct sweep_store *st, long p, char *msg, size_t msgsize);
/* Commit r (point r->point of spec) in one transaction. 0 or -1 with msg. */
int store_commit_point(struct sweep_store *st, const struct sweep_spec *spec,
                       const struct sweep_result *r, char *msg, size_t msgsize);
void store_close(struct sweep_store *st);

/* Reading a store back (summary, export, merge). */
struct store_row {
    long point;
    const char *const *axis_values;  /* [naxes] of the point */
    int variant, replication;
    const char *variant_name, *metric, *unit;
    double value;                    /* NaN: no value */
};

/* A database is untrusted input, even pmlab's own (a copy from elsewhere, a
 * hand edit, a damaged disk). What a failure to read one is, as an exit
 * status: */
#define STORE_BAD_INPUT 2   /* not a pmlab sweep database, or a value in it of
                             * the wrong type, NULL, too long or out of range */
#define STORE_FAILED 1      /* corrupt (SQLITE_CORRUPT, PRAGMA quick_check),
                             * or an I/O error */

struct store_reader {
    void *db;                        /* sqlite3 */
    const char *path;
    int naxes;                       /* at most SWEEP_MAX_AXES */
    char **axis_keys;                /* [naxes] */
    char *identity;                  /* the sweep table as "key=value" lines */
    long npoints;                    /* of the whole sweep: 1 to SWEEP_MAX_POINTS */
    int status;                      /* 0, or STORE_* after a failure, with err */
    char err[640];                   /* what, naming the file and row */
};

/* Open path read-only, check it (quick_check, the identity, the grid).
 * 0, or STORE_BAD_INPUT / STORE_FAILED with msg naming the file. */
int store_reader_open(struct store_reader *rd, const char *path, char *msg, size_t msgsize);
/* Call fn for every result row in (point, variant, replication, metric as
 * stored) order, every column checked (type, NULL, length, range: names fit
 * SCN_NAME_MAX, RPT_NAME_MAX and RPT_UNIT_MAX, a point is in the sweep, a
 * value finite or NULL). Stops at fn's first non-zero return, which it
 * returns, or at the first bad row or SQLite error: -1 with rd->status and
 * rd->err. */
int store_reader_rows(struct store_reader *rd, int (*fn)(void *ctx, const struct store_row *row),
                      void *ctx);
/* Every result row read and checked as store_reader_rows does: 0, or -1
 * with rd->status and rd->err. */
int store_reader_check(struct store_reader *rd);
/* The value of key in table (allocated), or NULL: none, or an error
 * (rd->status set). */
char *store_reader_get(struct store_reader *rd, const char *table, const char *key);
void store_reader_close(struct store_reader *rd);

/* Join the databases of one sweep's shards (inputs[n]) into a new database
 * at out (an empty file or none; the caller builds it under a temporary name
 * and renames it into place: cli/merge.c). They must hold the same sweep
 * (identity), no point twice and together every point. Returns 0, or -1
 * with msg; *bad_input when the inputs are at fault (exit 2). */
int store_merge(const char *const *inputs, int n, const char *out, bool *bad_input, char *msg,
                size_t msgsize);

#endif
