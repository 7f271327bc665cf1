/* store: SQLite results of a sweep, see store.h. */
#include "sweep/store.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <nettle/sha2.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"
#include "util/readfile.h"

#ifndef PMLAB_GIT_COMMIT
#define PMLAB_GIT_COMMIT "unknown"
#endif

struct sweep_store {
    sqlite3 *db;
    sqlite3_stmt *has_point;
};

void store_file_sha256(const char *path, char hex[65])
{
    hex[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    uint8_t buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&ctx, n, buf);
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        return;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static void store_id_put(struct store_identity *id, const char *key, char *value)
{
    id->key[id->n] = key;
    id->value[id->n++] = value;
}

void store_identity_of(const struct sweep_spec *spec, const struct scenario *base,
                       struct store_identity *id)
{
    memset(id, 0, sizeof *id);
    char hex[65];
    store_id_put(id, "scenario", xstrdup(base->name));
    store_file_sha256(spec->scenario, hex);
    store_id_put(id, "scenario_sha256", xstrdup(hex));
    store_file_sha256(base->machine->path, hex);
    store_id_put(id, "machine_sha256", xstrdup(hex));
    store_id_put(id, "grid", sweep_grid_describe(&spec->grid));
    char *sets = xstrdup("");
    for (int i = 0; i < spec->nsets; i++) {
        char *next = xasprintf("%s%s%s", sets, i ? " " : "", spec->sets[i]);
        free(sets);
        sets = next;
    }
    store_id_put(id, "sets", sets);
    store_id_put(id, "seed", xasprintf("%" PRIu64, spec->seed));
    store_id_put(id, "replications", xasprintf("%d", spec->reps));
    store_id_put(id, "quick", xstrdup(spec->quick ? "yes" : "no"));
    store_id_put(id, "points", xasprintf("%ld", sweep_grid_npoints(&spec->grid)));
}

void store_identity_free(struct store_identity *id)
{
    for (int i = 0; i < id->n; i++)
        free(id->value[i]);
    id->n = 0;
}

static int store_exec(sqlite3 *db, const char *sql, char *msg, size_t msgsize)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
        return 0;
    snprintf(msg, msgsize, "%s", err ? err : sqlite3_errmsg(db));
    sqlite3_free(err);
    return -1;
}

static const char store_schema[] =
    "CREATE TABLE IF NOT EXISTS sweep(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS provenance(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS scenario(path TEXT NOT NULL, text TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS axes(axis INTEGER PRIMARY KEY, key TEXT NOT NULL,"
    " nvalues INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS points(point INTEGER PRIMARY KEY, label TEXT NOT NULL,"
    " seed INTEGER NOT NULL, reps INTEGER NOT NULL, machine TEXT NOT NULL,"
    " machine_sha256 TEXT NOT NULL, wall_s REAL NOT NULL);"
    "CREATE TABLE IF NOT EXISTS point_keys(point INTEGER NOT NULL, axis INTEGER NOT NULL,"
    " key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(point, axis));"
    "CREATE TABLE IF NOT EXISTS results(point INTEGER NOT NULL, variant INTEGER NOT NULL,"
    " variant_name TEXT NOT NULL, replication INTEGER NOT NULL, metric TEXT NOT NULL,"
    " unit TEXT NOT NULL, value REAL, PRIMARY KEY(point, variant, replication, metric));";

/* The stored identity differs from id: say which key (-1), or 0. */
static int store_check_identity(sqlite3 *db, const struct store_identity *id, const char *path,
                                char *msg, size_t msgsize)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT value FROM sweep WHERE key = ?", -1, &q, NULL) != SQLITE_OK) {
        snprintf(msg, msgsize, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < id->n && rc == 0; i++) {
        sqlite3_reset(q);
        sqlite3_bind_text(q, 1, id->key[i], -1, SQLITE_STATIC);
        const char *have = sqlite3_step(q) == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0)
                                                         : NULL;
        if (!have || strcmp(have, id->value[i]) != 0) {
            snprintf(msg, msgsize, "%s holds another sweep: %s is '%s' there, '%s' here", path,
                     id->key[i], have ? have : "(none)", id->value[i]);
            rc = -1;
        }
    }
    sqlite3_finalize(q);
    return rc;
}

static int store_put_kv(sqlite3 *db, const char *table, const char *key, const char *value)
{
    char *sql = xasprintf("INSERT OR REPLACE INTO %s(key, value) VALUES(?, ?)", table);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return -1;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 2, value, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* A new sweep's identity, provenance and scenario text. */
static int store_init_sweep(sqlite3 *db, const struct store_identity *id,
                            const struct sweep_spec *spec, const char *shard)
{
    int rc = 0;
    for (int i = 0; i < id->n; i++)
        rc |= store_put_kv(db, "sweep", id->key[i], id->value[i]);
    char started[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    rc |= store_put_kv(db, "provenance", "pmlab_version", PMLAB_VERSION);
    rc |= store_put_kv(db, "provenance", "git_commit", PMLAB_GIT_COMMIT);
    rc |= store_put_kv(db, "provenance", "shard", shard[0] ? shard : "all");
    rc |= store_put_kv(db, "provenance", "started", started);
    char *text = read_whole_file(spec->scenario);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "INSERT INTO scenario(path, text) VALUES(?, ?)", -1, &q, NULL) !=
        SQLITE_OK) {
        free(text);
        return -1;
    }
    sqlite3_bind_text(q, 1, spec->scenario, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 2, text ? text : "", -1, SQLITE_TRANSIENT);
    rc |= sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(q);
    free(text);
    if (sqlite3_prepare_v2(db, "INSERT INTO axes VALUES(?, ?, ?)", -1, &q, NULL) != SQLITE_OK)
        return -1;
    for (int i = 0; i < spec->grid.naxes; i++) {
        sqlite3_reset(q);
        sqlite3_bind_int(q, 1, i);
        sqlite3_bind_text(q, 2, spec->grid.axes[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 3, spec->grid.axes[i].nvalues);
        rc |= sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(q);
    return rc;
}

/* How many rows the sweep table has: 0 for a new database. */
static int store_count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return -1;
    int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    return n;
}

struct sweep_store *store_open(const char *path, bool resume, const struct store_identity *id,
                               const struct sweep_spec *spec, const char *shard, bool *bad_input,
                               char *msg, size_t msgsize)
{
    *bad_input = false;
    sqlite3 *db = NULL;
    char err[300];
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(msg, msgsize, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 10000);
    if (store_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;", err, sizeof err) ||
        store_exec(db, "BEGIN IMMEDIATE;", err, sizeof err) ||
        store_exec(db, store_schema, err, sizeof err)) {
        snprintf(msg, msgsize, "%s: %s", path, err);
        *bad_input = true; /* not a database, or not ours */
        sqlite3_close(db);
        return NULL;
    }
    int n = store_count(db, "SELECT count(*) FROM sweep");
    int rc = 0;
    if (n > 0 && !resume) {
        snprintf(msg, msgsize, "%s already holds a sweep: --resume continues it (or remove it)",
                 path);
        *bad_input = true;
        rc = -1;
    } else if (n > 0) {
        rc = store_check_identity(db, id, path, msg, msgsize);
        *bad_input = rc != 0;
    } else if (store_init_sweep(db, id, spec, shard) != 0) {
        snprintf(msg, msgsize, "%s: %s", path, sqlite3_errmsg(db));
        rc = -1;
    }
    if (rc == 0 && store_exec(db, "COMMIT;", err, sizeof err) != 0) {
        snprintf(msg, msgsize, "%s: %s", path, err);
        rc = -1;
    }
    if (rc != 0) {
        sqlite3_close(db);
        return NULL;
    }
    struct sweep_store *st = xcalloc(1, sizeof *st);
    st->db = db;
    sqlite3_prepare_v2(db, "SELECT 1 FROM points WHERE point = ?", -1, &st->has_point, NULL);
    return st;
}

bool store_has_point(struct sweep_store *st, long p)
{
    sqlite3_reset(st->has_point);
    sqlite3_bind_int64(st->has_point, 1, p);
    return sqlite3_step(st->has_point) == SQLITE_ROW;
}

static int store_insert_rows(sqlite3 *db, const struct sweep_result *r)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "INSERT INTO results VALUES(?, ?, ?, ?, ?, ?, ?)", -1, &q, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    for (int i = 0; i < r->nrows && rc == 0; i++) {
        const struct sweep_row *row = &r->rows[i];
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, r->point);
        sqlite3_bind_int(q, 2, row->variant);
        sqlite3_bind_text(q, 3, row->variant_name, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 4, row->replication);
        sqlite3_bind_text(q, 5, row->metric, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 6, row->unit, -1, SQLITE_STATIC);
        if (isfinite(row->value))
            sqlite3_bind_double(q, 7, row->value);
        else
            sqlite3_bind_null(q, 7); /* no value: nothing to measure */
        rc = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(q);
    return rc;
}

static int store_insert_point(sqlite3 *db, const struct sweep_spec *spec,
                              const struct sweep_result *r)
{
    const char *machine_path = r->machine ? r->machine : "";
    char hex[65];
    store_file_sha256(machine_path, hex);
    char *label = sweep_point_label(&spec->grid, r->point);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO points VALUES(?, ?, ?, ?, ?, ?, ?)", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, r->point);
        sqlite3_bind_text(q, 2, label, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 3, (sqlite3_int64)r->seed);
        sqlite3_bind_int(q, 4, r->reps);
        sqlite3_bind_text(q, 5, machine_path, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 6, hex, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 7, r->wall_s);
        rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_finalize(q);
    }
    free(label);
    if (rc != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO point_keys VALUES(?, ?, ?, ?)", -1, &q, NULL) != SQLITE_OK)
        return -1;
    int coords[SWEEP_MAX_AXES];
    sweep_point_coords(&spec->grid, r->point, coords);
    for (int i = 0; i < spec->grid.naxes && rc == SQLITE_OK; i++) {
        const struct sweep_axis *a = &spec->grid.axes[i];
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, r->point);
        sqlite3_bind_int(q, 2, i);
        sqlite3_bind_text(q, 3, a->key, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, a->values[coords[i]], -1, SQLITE_STATIC);
        rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(q);
    return rc == SQLITE_OK ? 0 : -1;
}

int store_commit_point(struct sweep_store *st, const struct sweep_spec *spec,
                       const struct sweep_result *r, char *msg, size_t msgsize)
{
    char err[300];
    if (store_exec(st->db, "BEGIN IMMEDIATE;", err, sizeof err) != 0) {
        snprintf(msg, msgsize, "%s", err);
        return -1;
    }
    if (store_insert_point(st->db, spec, r) != 0 || store_insert_rows(st->db, r) != 0 ||
        (r->primary && r->primary[0] &&
         store_put_kv(st->db, "provenance", "primary", r->primary) != 0)) {
        snprintf(msg, msgsize, "point %ld: %s", r->point, sqlite3_errmsg(st->db));
        store_exec(st->db, "ROLLBACK;", err, sizeof err);
        return -1;
    }
    if (store_exec(st->db, "COMMIT;", err, sizeof err) != 0) {
        snprintf(msg, msgsize, "point %ld: %s", r->point, err);
        store_exec(st->db, "ROLLBACK;", err, sizeof err);
        return -1;
    }
    return 0;
}

void store_close(struct sweep_store *st)
{
    if (!st)
        return;
    sqlite3_finalize(st->has_point);
    sqlite3_close(st->db);
    free(st);
}

static const char *store_col_text(sqlite3_stmt *q, int col)
{
    const unsigned char *t = sqlite3_column_text(q, col);
    return t ? (const char *)t : "";
}

int store_reader_open(struct store_reader *rd, const char *path, char *msg, size_t msgsize)
{
    memset(rd, 0, sizeof *rd);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(msg, msgsize, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 10000);
    rd->db = db;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM sweep ORDER BY key", -1, &q, NULL) !=
        SQLITE_OK) {
        snprintf(msg, msgsize, "%s is not a pmlab sweep database (%s)", path, sqlite3_errmsg(db));
        store_reader_close(rd);
        return -1;
    }
    rd->identity = xstrdup("");
    while (sqlite3_step(q) == SQLITE_ROW) {
        char *next = xasprintf("%s%s=%s\n", rd->identity, sqlite3_column_text(q, 0),
                               sqlite3_column_text(q, 1));
        free(rd->identity);
        rd->identity = next;
    }
    sqlite3_finalize(q);
    char *points = store_reader_get(rd, "sweep", "points");
    if (!points ||
        sqlite3_prepare_v2(db, "SELECT key FROM axes ORDER BY axis", -1, &q, NULL) != SQLITE_OK) {
        free(points);
        snprintf(msg, msgsize, "%s is not a pmlab sweep database (no sweep identity)", path);
        store_reader_close(rd);
        return -1;
    }
    rd->npoints = strtol(points, NULL, 10);
    free(points);
    while (sqlite3_step(q) == SQLITE_ROW) {
        rd->axis_keys = xreallocarray(rd->axis_keys, (size_t)rd->naxes + 1, sizeof *rd->axis_keys);
        rd->axis_keys[rd->naxes++] = xstrdup(store_col_text(q, 0));
    }
    sqlite3_finalize(q);
    return 0;
}

char *store_reader_get(struct store_reader *rd, const char *table, const char *key)
{
    char *sql = xasprintf("SELECT value FROM %s WHERE key = ?", table);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(rd->db, sql, -1, &q, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    char *value = sqlite3_step(q) == SQLITE_ROW ? xstrdup((const char *)sqlite3_column_text(q, 0))
                                                : NULL;
    sqlite3_finalize(q);
    return value;
}

/* Point p's axis values into vals (each allocated; freed by the caller). */
static void store_point_values(sqlite3 *db, long p, int naxes, char **vals)
{
    sqlite3_stmt *q;
    for (int i = 0; i < naxes; i++)
        vals[i] = NULL;
    if (sqlite3_prepare_v2(db, "SELECT axis, value FROM point_keys WHERE point = ?", -1, &q,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, p);
        while (sqlite3_step(q) == SQLITE_ROW) {
            int axis = sqlite3_column_int(q, 0);
            if (axis >= 0 && axis < naxes && !vals[axis])
                vals[axis] = xstrdup((const char *)sqlite3_column_text(q, 1));
        }
        sqlite3_finalize(q);
    }
    for (int i = 0; i < naxes; i++)
        if (!vals[i])
            vals[i] = xstrdup("");
}


int store_reader_rows(struct store_reader *rd, int (*fn)(void *ctx, const struct store_row *row),
                      void *ctx)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(rd->db,
                           "SELECT point, variant, variant_name, replication, metric, unit, value "
                           "FROM results ORDER BY point, variant, replication, rowid",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    char **vals = xcalloc((size_t)rd->naxes + 1, sizeof *vals);
    long cur = -1;
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        struct store_row row = { .point = sqlite3_column_int64(q, 0) };
        if (row.point != cur) {
            for (int i = 0; i < rd->naxes; i++)
                free(vals[i]);
            store_point_values(rd->db, row.point, rd->naxes, vals);
            cur = row.point;
        }
        row.axis_values = (const char *const *)vals;
        row.variant = sqlite3_column_int(q, 1);
        row.variant_name = store_col_text(q, 2);
        row.replication = sqlite3_column_int(q, 3);
        row.metric = store_col_text(q, 4);
        row.unit = store_col_text(q, 5);
        row.value = sqlite3_column_type(q, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 6);
        rc = fn(ctx, &row);
    }
    if (cur >= 0)
        for (int i = 0; i < rd->naxes; i++)
            free(vals[i]);
    free(vals);
    sqlite3_finalize(q);
    return rc;
}

void store_reader_close(struct store_reader *rd)
{
    sqlite3_close(rd->db);
    for (int i = 0; i < rd->naxes; i++)
        free(rd->axis_keys[i]);
    free(rd->axis_keys);
    free(rd->identity);
    memset(rd, 0, sizeof *rd);
}

/* Every input holds the same sweep as the first. */
static int store_merge_check_identity(struct store_reader *rd, const char *const *inputs, int n,
                                      char *msg, size_t msgsize)
{
    for (int i = 1; i < n; i++) {
        if (strcmp(rd[i].identity, rd[0].identity) == 0)
            continue;
        /* Name the first key that differs. */
        const char *a = rd[0].identity, *b = rd[i].identity;
        while (*a && *a == *b) {
            a++;
            b++;
        }
        while (a > rd[0].identity && a[-1] != '\n') {
            a--;
            b--;
        }
        snprintf(msg, msgsize, "%s and %s are not the same sweep: '%.*s' against '%.*s'",
                 inputs[0], inputs[i], (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
        return -1;
    }
    return 0;
}

/* No point in two inputs, none missing. */
static int store_merge_check_points(struct store_reader *rd, const char *const *inputs, int n,
                                    char *msg, size_t msgsize)
{
    long np = rd[0].npoints;
    int *owner = xcalloc((size_t)np + 1, sizeof *owner);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(rd[i].db, "SELECT point FROM points", -1, &q, NULL) != SQLITE_OK)
            break;
        while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
            long p = (long)sqlite3_column_int64(q, 0);
            if (p < 0 || p >= np) {
                snprintf(msg, msgsize, "%s: point %ld is outside the sweep's %ld", inputs[i], p, np);
                rc = -1;
            } else if (owner[p]) {
                snprintf(msg, msgsize, "point %ld is in both %s and %s (overlapping shards)", p,
                         inputs[owner[p] - 1], inputs[i]);
                rc = -1;
            } else {
                owner[p] = i + 1;
            }
        }
        sqlite3_finalize(q);
    }
    long missing = 0, first = -1;
    for (long p = 0; rc == 0 && p < np; p++)
        if (!owner[p] && missing++ == 0)
            first = p;
    if (rc == 0 && missing) {
        snprintf(msg, msgsize, "%ld of the sweep's %ld points are in no input (the first: point "
                 "%ld): a shard is missing or unfinished (--resume it)", missing, np, first);
        rc = -1;
    }
    free(owner);
    return rc;
}

/* Copy every input into the new database db. */
static int store_merge_copy(sqlite3 *db, const char *const *inputs, int n, char *msg,
                            size_t msgsize)
{
    char err[300];
    if (store_exec(db, "PRAGMA journal_mode=DELETE; BEGIN;", err, sizeof err) ||
        store_exec(db, store_schema, err, sizeof err))
        goto fail;
    for (int i = 0; i < n; i++) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS src", -1, &q, NULL) != SQLITE_OK) {
            snprintf(err, sizeof err, "%s", sqlite3_errmsg(db));
            goto fail;
        }
        sqlite3_bind_text(q, 1, inputs[i], -1, SQLITE_STATIC);
        int rc = sqlite3_step(q);
        sqlite3_finalize(q);
        if (rc != SQLITE_DONE) {
            snprintf(err, sizeof err, "%s: %s", inputs[i], sqlite3_errmsg(db));
            goto fail;
        }
        /* Rows in point order, each point's in the order stored, so the
         * merged database reads back as an unsharded run's does. */
        if ((i == 0 && store_exec(db,
                                  "INSERT INTO sweep SELECT * FROM src.sweep;"
                                  "INSERT INTO provenance SELECT * FROM src.provenance;"
                                  "INSERT INTO scenario SELECT * FROM src.scenario;"
                                  "INSERT INTO axes SELECT * FROM src.axes;",
                                  err, sizeof err)) ||
            store_exec(db,
                       "INSERT INTO points SELECT * FROM src.points;"
                       "INSERT INTO point_keys SELECT * FROM src.point_keys;"
                       "INSERT INTO results SELECT * FROM src.results ORDER BY point, variant, "
                       "replication, rowid;"
                       "INSERT OR IGNORE INTO provenance SELECT * FROM src.provenance;",
                       err, sizeof err) ||
            store_exec(db, "COMMIT; DETACH DATABASE src; BEGIN;", err, sizeof err))
            goto fail;
    }
    if (store_exec(db, "INSERT OR REPLACE INTO provenance VALUES('shard', 'merged');COMMIT;", err,
                   sizeof err) == 0)
        return 0;
fail:
    snprintf(msg, msgsize, "merging: %s", err);
    return -1;
}

int store_merge(const char *const *inputs, int n, const char *out, bool *bad_input, char *msg,
                size_t msgsize)
{
    *bad_input = true;
    struct store_reader *rd = xcalloc((size_t)n, sizeof *rd);
    int opened = 0, rc = 0;
    for (; opened < n && rc == 0; opened++)
        rc = store_reader_open(&rd[opened], inputs[opened], msg, msgsize);
    if (rc != 0)
        opened--;
    if (rc == 0)
        rc = store_merge_check_identity(rd, inputs, n, msg, msgsize);
    if (rc == 0)
        rc = store_merge_check_points(rd, inputs, n, msg, msgsize);
    for (int i = 0; i < opened; i++)
        store_reader_close(&rd[i]);
    free(rd);
    if (rc != 0)
        return -1;
    *bad_input = false;
    char *tmp = xasprintf("%s.tmp-%ld", out, (long)getpid());
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(msg, msgsize, "cannot create %s: %s", tmp, db ? sqlite3_errmsg(db) : "out of memory");
        rc = -1;
    } else {
        rc = store_merge_copy(db, inputs, n, msg, msgsize);
    }
    if (sqlite3_close(db) != SQLITE_OK && rc == 0) {
        snprintf(msg, msgsize, "cannot close %s", tmp);
        rc = -1;
    }
    if (rc == 0 && rename(tmp, out) != 0) {
        snprintf(msg, msgsize, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        remove(tmp);
    free(tmp);
    return rc;
}
