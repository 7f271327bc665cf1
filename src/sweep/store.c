/* store: SQLite results of a sweep, see store.h. */
#include "sweep/store.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/readfile.h"
#include "util/sha256.h"
#include "util/strutil.h"
#include "util/version.h"
#include "util/xalloc.h"

struct sweep_store {
    sqlite3 *db;
    const char *path;
    sqlite3_stmt *has_point;
};

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
    sha256_file_hex(spec->scenario, hex);
    store_id_put(id, "scenario_sha256", xstrdup(hex));
    sha256_file_hex(base->machine->path, hex);
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

/* What lies under an SQLITE_IOERR of db, as " (...)" into buf, or "": the
 * system error when SQLite kept it, else a file size limit (ulimit -f: pmlab
 * ignores SIGXFSZ, so a write past it fails with EFBIG, which SQLite reports
 * as a bare "disk I/O error"). */
static const char *store_io_cause(sqlite3 *db, char *buf, size_t size)
{
    buf[0] = '\0';
    if ((sqlite3_errcode(db) & 0xff) != SQLITE_IOERR && (sqlite3_errcode(db) & 0xff) != SQLITE_FULL)
        return buf;
    struct rlimit lim;
    if (sqlite3_system_errno(db) != 0)
        snprintf(buf, size, " (%s)", strerror(sqlite3_system_errno(db)));
    else if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
        snprintf(buf, size, " (%s? the file size limit is %llu bytes: ulimit -f)",
                 strerror(EFBIG), (unsigned long long)lim.rlim_cur);
    return buf;
}

static int store_exec(sqlite3 *db, const char *sql, char *msg, size_t msgsize)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
        return 0;
    char cause[128];
    snprintf(msg, msgsize, "%s%s", err ? err : sqlite3_errmsg(db),
             store_io_cause(db, cause, sizeof cause));
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
    " unit TEXT NOT NULL, value REAL, PRIMARY KEY(point, variant, replication, metric));"
    /* The process running the sweep (store_lock): one row while it runs. */
    "CREATE TABLE IF NOT EXISTS lock(pid INTEGER NOT NULL, host TEXT NOT NULL,"
    " proc_start INTEGER NOT NULL, since TEXT NOT NULL);";

/* A failure of an SQLite call on the database at path while doing what:
 * msg names the file; the exit status (a file that is not a database is
 * bad input; a corrupt one, a full disk or an I/O error a failure). */
static int store_fail(sqlite3 *db, const char *path, const char *doing, char *msg, size_t msgsize)
{
    int code = sqlite3_errcode(db);
    if (code == SQLITE_CORRUPT)
        snprintf(msg, msgsize, "%s: the database is corrupt (%s: %s); restore it from a copy "
                 "or run the sweep again", path, doing, sqlite3_errmsg(db));
    else if (code == SQLITE_NOTADB)
        snprintf(msg, msgsize, "%s is not a pmlab sweep database (%s)", path, sqlite3_errmsg(db));
    else {
        char cause[128];
        snprintf(msg, msgsize, "%s: %s: %s%s", path, doing, sqlite3_errmsg(db),
                 store_io_cause(db, cause, sizeof cause));
    }
    return code == SQLITE_NOTADB ? STORE_BAD_INPUT : STORE_FAILED;
}

/* SQLite's own consistency check of every page (PRAGMA quick_check: the
 * b-trees, not the values): a damaged file must not read as a shorter
 * sweep. 0 or STORE_FAILED / STORE_BAD_INPUT with msg. */
static int store_quick_check(sqlite3 *db, const char *path, char *msg, size_t msgsize)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &q, NULL) != SQLITE_OK)
        return store_fail(db, path, "checking it", msg, msgsize);
    int rc = sqlite3_step(q);
    const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
    int status = 0;
    if (rc != SQLITE_ROW)
        status = store_fail(db, path, "checking it", msg, msgsize);
    else if (!res || strcmp(res, "ok") != 0) {
        /* SQLite's first finding, on one line. */
        static const char banner[] = "*** in database main ***\n";
        char what[300];
        str_copy(what, sizeof what, !res ? "?" : strncmp(res, banner, sizeof banner - 1) == 0
                                                      ? res + sizeof banner - 1 : res);
        for (char *c = what; *c; c++)
            *c = *c == '\n' ? ' ' : *c;
        snprintf(msg, msgsize, "%s: the database is corrupt (quick_check: %s); restore it from a "
                 "copy or run the sweep again", path, what);
        status = STORE_FAILED;
    }
    sqlite3_finalize(q);
    return status;
}

/* A database from elsewhere is untrusted: no schema object of it may call
 * a function with side effects (SQLite's defensive mode and
 * trusted_schema=OFF, https://sqlite.org/security.html). */
static void store_distrust(sqlite3 *db)
{
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
}

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
        int step = sqlite3_step(q);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            store_fail(db, path, "reading its identity", msg, msgsize);
            rc = -1;
            break;
        }
        const char *have = step == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
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
    rc |= store_put_kv(db, "provenance", "git_commit", pmlab_git_commit());
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

/* How many rows the sweep table has: 0 for a new database, -1 on an error
 * (never taken for 0: a corrupt database is not a new one). */
static int store_count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return -1;
    int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    return n;
}

/* This process's start time in clock ticks since boot (/proc/PID/stat
 * field 22, proc(5)), which tells a live process from a later one that got
 * the same PID; -1 when it is not running (or not readable). */
static long long store_proc_start(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    long long start = -1;
    /* after ")": state (field 3) ... starttime (field 22) */
    if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                           "%*d %*d %lld", &start) != 1)
        start = -1;
    return start;
}

/* Take the database for this process (inside the open's transaction): a
 * second sweep appending to it at the same time would run the same points
 * and fail on the first commit. A lock row of a process that is gone (killed,
 * even by SIGKILL; same host, PID not running or started at another time) is
 * taken over. 0, or -1 with msg naming the holder. */
static int store_lock(sqlite3 *db, const char *path, char *msg, size_t msgsize)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT pid, host, proc_start, since FROM lock", -1, &q, NULL) !=
        SQLITE_OK) {
        store_fail(db, path, "reading its lock", msg, msgsize);
        return -1;
    }
    int rc = 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        long pid = (long)sqlite3_column_int64(q, 0);
        const char *their_host = (const char *)sqlite3_column_text(q, 1);
        const char *since = (const char *)sqlite3_column_text(q, 3);
        bool here = their_host && strcmp(their_host, host) == 0;
        if (here && (pid == (long)getpid() ||
                     store_proc_start(pid) != sqlite3_column_int64(q, 2)))
            continue; /* gone: a stale lock */
        snprintf(msg, msgsize, "%s is locked: pmlab sweep PID %ld on %s has been running it since "
                 "%s; wait for it to finish%s", path, pid, their_host ? their_host : "?",
                 since ? since : "?",
                 here ? "" : " (if that process is gone: sqlite3 DB 'DELETE FROM lock')");
        rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE) {
        store_fail(db, path, "reading its lock", msg, msgsize);
        rc = -1;
    }
    sqlite3_finalize(q);
    if (rc != 0)
        return -1;
    char since[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if (sqlite3_prepare_v2(db, "DELETE FROM lock", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_DONE) {
        sqlite3_finalize(q);
        store_fail(db, path, "taking its lock", msg, msgsize);
        return -1;
    }
    sqlite3_finalize(q);
    if (sqlite3_prepare_v2(db, "INSERT INTO lock VALUES(?, ?, ?, ?)", -1, &q, NULL) != SQLITE_OK) {
        store_fail(db, path, "taking its lock", msg, msgsize);
        return -1;
    }
    sqlite3_bind_int64(q, 1, (sqlite3_int64)getpid());
    sqlite3_bind_text(q, 2, host, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, store_proc_start((long)getpid()));
    sqlite3_bind_text(q, 4, since, -1, SQLITE_STATIC);
    rc = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
    if (rc != 0)
        store_fail(db, path, "taking its lock", msg, msgsize);
    sqlite3_finalize(q);
    return rc;
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
    store_distrust(db);
    sqlite3_busy_timeout(db, 10000);
    if (store_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;", err, sizeof err) ||
        store_exec(db, "BEGIN IMMEDIATE;", err, sizeof err)) {
        snprintf(msg, msgsize, "%s: %s", path, err);
        *bad_input = sqlite3_errcode(db) == SQLITE_NOTADB; /* not a database */
        sqlite3_close(db);
        return NULL;
    }
    /* An existing database is checked before anything is added to it: a
     * damaged one must not take new points (nor read as a short sweep). */
    int status = store_quick_check(db, path, msg, msgsize);
    if (status == 0 && store_exec(db, store_schema, err, sizeof err) != 0)
        status = store_fail(db, path, "creating its tables", msg, msgsize);
    if (status != 0) {
        *bad_input = status == STORE_BAD_INPUT;
        sqlite3_close(db);
        return NULL;
    }
    int n = store_count(db, "SELECT count(*) FROM sweep");
    int rc = 0;
    if (n < 0) {
        store_fail(db, path, "reading its identity", msg, msgsize);
        rc = -1;
    } else if (n > 0 && !resume) {
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
    if (rc == 0)
        rc = store_lock(db, path, msg, msgsize);
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
    st->path = path;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM points WHERE point = ?", -1, &st->has_point,
                           NULL) != SQLITE_OK) {
        store_fail(db, path, "reading its points", msg, msgsize);
        store_close(st);
        return NULL;
    }
    return st;
}

int store_has_point(struct sweep_store *st, long p, char *msg, size_t msgsize)
{
    sqlite3_reset(st->has_point);
    sqlite3_bind_int64(st->has_point, 1, p);
    int rc = sqlite3_step(st->has_point);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return rc == SQLITE_ROW;
    store_fail(st->db, st->path, "reading its points", msg, msgsize);
    return -1;
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
    sha256_file_hex(machine_path, hex);
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
        snprintf(msg, msgsize, "%s: %s", st->path, err);
        return -1;
    }
    if (store_insert_point(st->db, spec, r) != 0 || store_insert_rows(st->db, r) != 0 ||
        (r->primary && r->primary[0] &&
         store_put_kv(st->db, "provenance", "primary", r->primary) != 0)) {
        store_fail(st->db, st->path, "committing the point", msg, msgsize);
        store_exec(st->db, "ROLLBACK;", err, sizeof err);
        return -1;
    }
    if (store_exec(st->db, "COMMIT;", err, sizeof err) != 0) {
        snprintf(msg, msgsize, "%s: %s", st->path, err);
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
    /* The lock goes with the process (a killed one leaves it stale:
     * store_lock takes it over). */
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "DELETE FROM lock WHERE pid = ?", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, (sqlite3_int64)getpid());
        sqlite3_step(q);
    }
    sqlite3_finalize(q);
    sqlite3_close(st->db);
    free(st);
}

/* Whether s[0..len) is UTF-8 (no overlong forms, surrogates or values
 * past U+10FFFF): JSON export and the reports need it. */
static bool store_utf8(const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (n == 0 || i + n > len)
            return false;
        uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n;
    }
    return true;
}

/* Column col of a row of table (rowid row) as text: present, at most max - 1
 * bytes, UTF-8, no NUL and, for a name (flags STORE_NAME), no control
 * character. NULL with rd's error set when it is not. */
#define STORE_NAME 1
static const char *store_col_str(struct store_reader *rd, sqlite3_stmt *q, int col,
                                 const char *table, sqlite3_int64 row, size_t max, int flags)
{
    const char *name = sqlite3_column_name(q, col);
    int type = sqlite3_column_type(q, col);
    const unsigned char *t = sqlite3_column_text(q, col);
    size_t len = (size_t)sqlite3_column_bytes(q, col);
    const char *why = NULL;
    if (type == SQLITE_NULL)
        why = "is NULL";
    else if (type != SQLITE_TEXT)
        why = "is not text";
    else if (!t)
        why = "cannot be read (out of memory)";
    else if (len >= max || strlen((const char *)t) != len)
        why = len >= max ? "is too long" : "holds a NUL byte";
    else if (!store_utf8(t, len))
        why = "is not UTF-8";
    for (size_t i = 0; !why && (flags & STORE_NAME) && i < len; i++)
        if (t[i] < 0x20 || t[i] == 0x7f)
            why = "holds a control character";
    if (!why)
        return (const char *)t;
    rd->status = STORE_BAD_INPUT;
    if (strcmp(why, "is too long") == 0)
        snprintf(rd->err, sizeof rd->err, "%s: %s row %lld: %s is %zu bytes long (at most %zu)",
                 rd->path, table, (long long)row, name, len, max - 1);
    else
        snprintf(rd->err, sizeof rd->err, "%s: %s row %lld: %s %s", rd->path, table,
                 (long long)row, name, why);
    return NULL;
}

/* Column col as an integer in [min, max], into *out; -1 with rd's error. */
static int store_col_int(struct store_reader *rd, sqlite3_stmt *q, int col, const char *table,
                         sqlite3_int64 row, sqlite3_int64 min, sqlite3_int64 max,
                         sqlite3_int64 *out)
{
    *out = sqlite3_column_int64(q, col);
    if (sqlite3_column_type(q, col) == SQLITE_INTEGER && *out >= min && *out <= max)
        return 0;
    rd->status = STORE_BAD_INPUT;
    if (sqlite3_column_type(q, col) != SQLITE_INTEGER)
        snprintf(rd->err, sizeof rd->err, "%s: %s row %lld: %s is not an integer", rd->path,
                 table, (long long)row, sqlite3_column_name(q, col));
    else
        snprintf(rd->err, sizeof rd->err, "%s: %s row %lld: %s %lld is outside [%lld, %lld]",
                 rd->path, table, (long long)row, sqlite3_column_name(q, col), (long long)*out,
                 (long long)min, (long long)max);
    return -1;
}

/* The end of a statement's rows: SQLITE_DONE is the end, anything else
 * (SQLITE_CORRUPT above all) a failure that must not pass for it. 0, or -1
 * with rd's error. */
static int store_rows_end(struct store_reader *rd, int rc, const char *doing)
{
    if (rc == SQLITE_DONE || rd->status)
        return rd->status ? -1 : 0;
    rd->status = store_fail(rd->db, rd->path, doing, rd->err, sizeof rd->err);
    return -1;
}

/* The longest text pmlab stores in a database (a grid value, a label, a
 * path): 64 KiB. */
#define STORE_TEXT_MAX 65536

/* The sweep table, as "key=value" lines in key order, into rd->identity. */
static int store_reader_identity(struct store_reader *rd)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(rd->db, "SELECT key, value, rowid FROM sweep ORDER BY key", -1, &q,
                           NULL) != SQLITE_OK) {
        if (sqlite3_errcode(rd->db) == SQLITE_ERROR) { /* no such table */
            rd->status = STORE_BAD_INPUT;
            snprintf(rd->err, sizeof rd->err, "%s is not a pmlab sweep database (%s)", rd->path,
                     sqlite3_errmsg(rd->db));
        } else {
            rd->status = store_fail(rd->db, rd->path, "reading its identity", rd->err,
                                    sizeof rd->err);
        }
        return -1;
    }
    char *id = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&id, &len);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_int64 row = sqlite3_column_int64(q, 2);
        const char *key = store_col_str(rd, q, 0, "sweep", row, STORE_TEXT_MAX, STORE_NAME);
        const char *value = key ? store_col_str(rd, q, 1, "sweep", row, STORE_TEXT_MAX, 0) : NULL;
        if (!value)
            break;
        fprintf(m, "%s=%s\n", key, value);
    }
    fclose(m);
    rd->identity = id;
    rc = store_rows_end(rd, rc, "reading its identity");
    sqlite3_finalize(q);
    return rc;
}

/* The axes table: keys in axis order 0, 1, ... (at most SWEEP_MAX_AXES). */
static int store_reader_axes(struct store_reader *rd)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(rd->db, "SELECT axis, key, rowid FROM axes ORDER BY axis", -1, &q,
                           NULL) != SQLITE_OK) {
        rd->status = store_fail(rd->db, rd->path, "reading its grid", rd->err, sizeof rd->err);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_int64 row = sqlite3_column_int64(q, 2), axis;
        if (store_col_int(rd, q, 0, "axes", row, rd->naxes, rd->naxes, &axis) != 0 ||
            rd->naxes == SWEEP_MAX_AXES) {
            if (rd->naxes == SWEEP_MAX_AXES) {
                rd->status = STORE_BAD_INPUT;
                snprintf(rd->err, sizeof rd->err, "%s: axes: more than %d grid keys", rd->path,
                         SWEEP_MAX_AXES);
            }
            break;
        }
        const char *key = store_col_str(rd, q, 1, "axes", row, STORE_TEXT_MAX, STORE_NAME);
        if (!key)
            break;
        rd->axis_keys = xreallocarray(rd->axis_keys, (size_t)rd->naxes + 1, sizeof *rd->axis_keys);
        rd->axis_keys[rd->naxes++] = xstrdup(key);
    }
    rc = store_rows_end(rd, rc, "reading its grid");
    sqlite3_finalize(q);
    return rc;
}

int store_reader_open(struct store_reader *rd, const char *path, char *msg, size_t msgsize)
{
    memset(rd, 0, sizeof *rd);
    rd->path = path;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(msg, msgsize, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return STORE_BAD_INPUT;
    }
    store_distrust(db);
    sqlite3_busy_timeout(db, 10000);
    rd->db = db;
    int status = store_quick_check(db, path, msg, msgsize);
    if (status == 0 && (store_reader_identity(rd) != 0 || store_reader_axes(rd) != 0)) {
        snprintf(msg, msgsize, "%s", rd->err);
        status = rd->status;
    }
    char *points = status == 0 ? store_reader_get(rd, "sweep", "points") : NULL;
    int64_t np = 0;
    if (status == 0 && rd->status) {
        snprintf(msg, msgsize, "%s", rd->err);
        status = rd->status;
    } else if (status == 0 && !points) {
        snprintf(msg, msgsize, "%s is not a pmlab sweep database (no sweep identity)", path);
        status = STORE_BAD_INPUT;
    } else if (status == 0 && (str_to_i64(points, &np) != 0 || np < 1 || np > SWEEP_MAX_POINTS)) {
        snprintf(msg, msgsize, "%s: sweep: points is '%.40s', not a count in [1, %ld]", path,
                 points, (long)SWEEP_MAX_POINTS);
        status = STORE_BAD_INPUT;
    }
    free(points);
    rd->npoints = (long)np;
    if (status != 0) {
        store_reader_close(rd);
        return status;
    }
    return 0;
}

char *store_reader_get(struct store_reader *rd, const char *table, const char *key)
{
    char *sql = xasprintf("SELECT value, rowid FROM %s WHERE key = ?", table);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(rd->db, sql, -1, &q, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        rd->status = store_fail(rd->db, rd->path, "reading it", rd->err, sizeof rd->err);
        return NULL;
    }
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    char *value = NULL;
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        const char *t = store_col_str(rd, q, 0, table, sqlite3_column_int64(q, 1), STORE_TEXT_MAX, 0);
        value = t ? xstrdup(t) : NULL;
    } else {
        store_rows_end(rd, rc, "reading it");
    }
    sqlite3_finalize(q);
    return value;
}

/* Point p's axis values into vals (each allocated; freed by the caller):
 * one per axis, an axis without a row is "". 0, or -1 with rd's error. */
static int store_point_values(struct store_reader *rd, long p, char **vals)
{
    sqlite3_stmt *q;
    for (int i = 0; i < rd->naxes; i++)
        vals[i] = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(rd->db, "SELECT axis, value, rowid FROM point_keys WHERE point = ?",
                           -1, &q, NULL) != SQLITE_OK) {
        rd->status = store_fail(rd->db, rd->path, "reading the grid values", rd->err,
                                sizeof rd->err);
    } else {
        sqlite3_bind_int64(q, 1, p);
        int step;
        while ((step = sqlite3_step(q)) == SQLITE_ROW) {
            sqlite3_int64 row = sqlite3_column_int64(q, 2), axis;
            const char *v;
            if (store_col_int(rd, q, 0, "point_keys", row, 0, rd->naxes - 1, &axis) != 0 ||
                !(v = store_col_str(rd, q, 1, "point_keys", row, STORE_TEXT_MAX, 0)))
                break;
            if (!vals[axis])
                vals[axis] = xstrdup(v);
        }
        rc = store_rows_end(rd, step, "reading the grid values");
        sqlite3_finalize(q);
    }
    for (int i = 0; i < rd->naxes; i++)
        if (!vals[i])
            vals[i] = xstrdup("");
    return rc;
}

/* The result row of q (rowid in column 7) into row; every column checked.
 * 0, or -1 with rd's error. */
static int store_result_row(struct store_reader *rd, sqlite3_stmt *q, struct store_row *row)
{
    sqlite3_int64 rowid = sqlite3_column_int64(q, 7), point, variant, rep;
    if (store_col_int(rd, q, 0, "results", rowid, 0, rd->npoints - 1, &point) != 0 ||
        store_col_int(rd, q, 1, "results", rowid, 0, INT32_MAX, &variant) != 0 ||
        store_col_int(rd, q, 3, "results", rowid, 0, INT32_MAX, &rep) != 0 ||
        !(row->variant_name = store_col_str(rd, q, 2, "results", rowid, SCN_NAME_MAX, STORE_NAME)) ||
        !(row->metric = store_col_str(rd, q, 4, "results", rowid, RPT_NAME_MAX, STORE_NAME)) ||
        !(row->unit = store_col_str(rd, q, 5, "results", rowid, RPT_UNIT_MAX, STORE_NAME)))
        return -1;
    row->point = (long)point;
    row->variant = (int)variant;
    row->replication = (int)rep;
    int type = sqlite3_column_type(q, 6);
    row->value = type == SQLITE_NULL ? NAN : sqlite3_column_double(q, 6);
    if ((type != SQLITE_NULL && type != SQLITE_FLOAT && type != SQLITE_INTEGER) ||
        !(type == SQLITE_NULL || isfinite(row->value))) {
        rd->status = STORE_BAD_INPUT;
        snprintf(rd->err, sizeof rd->err, "%s: results row %lld: value is not a finite number "
                 "(nor NULL: no value)", rd->path, (long long)rowid);
        return -1;
    }
    return 0;
}

int store_reader_rows(struct store_reader *rd, int (*fn)(void *ctx, const struct store_row *row),
                      void *ctx)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(rd->db,
                           "SELECT point, variant, variant_name, replication, metric, unit, value, "
                           "rowid FROM results ORDER BY point, variant, replication, rowid",
                           -1, &q, NULL) != SQLITE_OK) {
        rd->status = store_fail(rd->db, rd->path, "reading the results", rd->err, sizeof rd->err);
        return -1;
    }
    char **vals = xcalloc((size_t)rd->naxes + 1, sizeof *vals);
    long cur = -1;
    int rc = 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        struct store_row row = { 0 };
        if (store_result_row(rd, q, &row) != 0) {
            rc = -1;
            break;
        }
        if (row.point != cur) {
            for (int i = 0; cur >= 0 && i < rd->naxes; i++)
                free(vals[i]);
            cur = row.point;
            if (store_point_values(rd, row.point, vals) != 0) {
                rc = -1;
                break;
            }
        }
        row.axis_values = (const char *const *)vals;
        rc = fn(ctx, &row);
    }
    if (rc == 0)
        rc = store_rows_end(rd, step, "reading the results");
    if (cur >= 0)
        for (int i = 0; i < rd->naxes; i++)
            free(vals[i]);
    free(vals);
    sqlite3_finalize(q);
    return rc;
}

static int store_row_ignore(void *ctx, const struct store_row *row)
{
    (void)ctx;
    (void)row;
    return 0;
}

int store_reader_check(struct store_reader *rd)
{
    return store_reader_rows(rd, store_row_ignore, NULL);
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
                                    int *status, char *msg, size_t msgsize)
{
    long np = rd[0].npoints; /* at most SWEEP_MAX_POINTS (store_reader_open) */
    int *owner = xcalloc((size_t)np + 1, sizeof *owner);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(rd[i].db, "SELECT point, rowid FROM points", -1, &q, NULL) !=
            SQLITE_OK) {
            *status = store_fail(rd[i].db, inputs[i], "reading its points", msg, msgsize);
            rc = -1;
            break;
        }
        int step = SQLITE_DONE;
        while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
            sqlite3_int64 p;
            if (store_col_int(&rd[i], q, 0, "points", sqlite3_column_int64(q, 1), 0, np - 1,
                              &p) != 0) {
                snprintf(msg, msgsize, "%s", rd[i].err);
                rc = -1;
            } else if (owner[p]) {
                snprintf(msg, msgsize, "point %lld is in both %s and %s (overlapping shards)",
                         (long long)p, inputs[owner[p] - 1], inputs[i]);
                rc = -1;
            } else {
                owner[p] = i + 1;
            }
        }
        if (rc == 0 && store_rows_end(&rd[i], step, "reading its points") != 0) {
            snprintf(msg, msgsize, "%s", rd[i].err);
            *status = rd[i].status;
            rc = -1;
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
    struct store_reader *rd = xcalloc((size_t)n, sizeof *rd);
    int opened = 0, status = 0;
    for (; opened < n && status == 0; opened++)
        status = store_reader_open(&rd[opened], inputs[opened], msg, msgsize);
    if (status != 0)
        opened--;
    int rc = status ? -1 : 0;
    if (rc == 0) {
        status = STORE_BAD_INPUT;
        rc = store_merge_check_identity(rd, inputs, n, msg, msgsize);
    }
    if (rc == 0)
        rc = store_merge_check_points(rd, inputs, n, &status, msg, msgsize);
    /* Every row read once, as export would: a value out of range stops
     * here, not in the merged database. */
    for (int i = 0; i < n && rc == 0; i++)
        if (store_reader_check(&rd[i]) != 0) {
            snprintf(msg, msgsize, "%s", rd[i].err);
            status = rd[i].status;
            rc = -1;
        }
    for (int i = 0; i < opened; i++)
        store_reader_close(&rd[i]);
    free(rd);
    *bad_input = rc != 0 && status == STORE_BAD_INPUT;
    if (rc != 0)
        return -1;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(msg, msgsize, "cannot create %s: %s", out, db ? sqlite3_errmsg(db) : "out of memory");
        rc = -1;
    } else {
        rc = store_merge_copy(db, inputs, n, msg, msgsize);
    }
    if (sqlite3_close(db) != SQLITE_OK && rc == 0) {
        snprintf(msg, msgsize, "cannot close %s", out);
        rc = -1;
    }
    return rc;
}
