/* output: write-then-rename outputs and the interruption watcher, see
 * output.h. */
#include "cli/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

static int out_error(char *msg, size_t msgsize, const char *what, const char *path, int err)
{
    snprintf(msg, msgsize, "%s %s: %s", what, path, strerror(err));
    return -1;
}

/* This host's name as temporary names hold it (no '/'). */
static void out_host(char *host, size_t size)
{
    if (gethostname(host, size - 1) != 0 || !host[0])
        snprintf(host, size, "localhost");
    host[size - 1] = '\0';
    for (char *c = host; *c; c++)
        *c = *c == '/' ? '_' : *c;
}

/* "HOST-PID-": what every temporary name of this process holds after
 * ".pmlab-" (allocated), so that a later run can tell its own host's
 * leftovers of a process that is gone (killed by SIGKILL, an abort) from
 * another's, live or on another host sharing the directory (NFS). */
static char *out_owner_tag(void)
{
    char host[256];
    out_host(host, sizeof host);
    return xasprintf("%s-%ld-", host, (long)getpid());
}

/* Whether name is PREFIX "HOST-PID-..." of this host with a PID that is not
 * running: a temporary left behind. */
static bool out_is_stale(const char *name, const char *prefix)
{
    char host[256];
    out_host(host, sizeof host);
    char *mine = xasprintf("%s%s-", prefix, host);
    size_t len = strlen(mine);
    bool here = strncmp(name, mine, len) == 0;
    free(mine);
    if (!here)
        return false;
    char *end;
    long pid = strtol(name + len, &end, 10);
    return end != name + len && *end == '-' && pid > 0 && pid != (long)getpid() &&
           kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Names from before temporaries said their host (pmlab until 7c9f4e2):
 * files PREFIX "PID-N" and staging directories PREFIX "XXXXXX" (mkdtemp's
 * six characters). Such a name cannot tell this host's leftovers from a
 * live run on another host sharing the directory, so it is stale only when
 * it is also more than OUT_OLD_STALE_S old (and, with a PID, that PID is not
 * running here). */
#define OUT_OLD_STALE_S (24 * 3600)

static bool out_is_stale_old(int dirfd, const char *name, const char *prefix, bool stages)
{
    size_t len = strlen(prefix);
    if (strncmp(name, prefix, len) != 0)
        return false;
    const char *rest = name + len;
    if (stages) {
        if (strlen(rest) != 6 || strchr(rest, '-'))
            return false;
    } else {
        char *end;
        long pid = strtol(rest, &end, 10);
        size_t digits = strspn(end + 1, "0123456789");
        bool tail_ok = end[1 + digits] == '\0' || strcmp(end + 1 + digits, "-journal") == 0;
        if (end == rest || *end != '-' || pid <= 0 || digits == 0 || !tail_ok)
            return false;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            return false;
    }
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        (stages ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
        return false;
    return time(NULL) - st.st_mtime > OUT_OLD_STALE_S;
}

static void out_remove_stage(const char *stage);

/* Remove the entries of dir named PREFIX "HOST-PID-..." left by a process of
 * this host that is gone, and old-format ones past OUT_OLD_STALE_S: files, or
 * (stages) staging directories. */
static void out_clean_stale(const char *dir, const char *prefix, bool stages)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!out_is_stale(e->d_name, prefix) &&
            !out_is_stale_old(dirfd(d), e->d_name, prefix, stages))
            continue;
        if (stages) {
            char *path = xasprintf("%s/%s", dir, e->d_name);
            out_remove_stage(path);
            free(path);
        } else {
            unlinkat(dirfd(d), e->d_name, 0);
        }
    }
    closedir(d);
}

/* A new file beside target, named .BASE.pmlab-HOST-PID-N so that it is
 * hidden, says what made it, and no two runs pick the same one (O_EXCL).
 * Those of the same target left by a process that is gone are removed
 * first. Returns the descriptor with *tmp set, or -1 with errno. */
static int out_create_beside(const char *target, char **tmp)
{
    const char *slash = strrchr(target, '/');
    char *dir = slash ? xstrndup(target, slash == target ? 1 : (size_t)(slash - target))
                      : xstrdup(".");
    const char *base = slash ? slash + 1 : target;
    char *prefix = xasprintf(".%s.pmlab-", base);
    out_clean_stale(dir, prefix, false);
    free(prefix);
    char *tag = out_owner_tag();
    int fd = -1;
    for (int n = 0; fd < 0 && n < 100; n++) {
        *tmp = xasprintf("%s/.%s.pmlab-%s%d", dir, base, tag, n);
        fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            int err = errno;
            free(*tmp);
            *tmp = NULL;
            errno = err;
            if (err != EEXIST)
                break;
        }
    }
    free(tag);
    free(dir);
    return fd;
}

/* path with its directory and any symbolic links resolved, for a file that
 * need not exist: realpath(3) where it does, else its links followed by hand
 * and the directory resolved. Allocated. */
static char *out_resolve(const char *path)
{
    char *cur = xstrdup(path);
    for (int hops = 0; hops < 40; hops++) { /* the kernel's MAXSYMLINKS */
        char *real = realpath(cur, NULL);
        if (real) {
            free(cur);
            return real;
        }
        char link[4096];
        ssize_t len = readlink(cur, link, sizeof link - 1);
        if (len < 0)
            break;
        link[len] = '\0';
        const char *slash = strrchr(cur, '/');
        char *next = link[0] == '/' || !slash
                         ? xstrdup(link)
                         : xasprintf("%.*s/%s", (int)(slash - cur), cur, link);
        free(cur);
        cur = next;
    }
    const char *slash = strrchr(cur, '/');
    char *dir = slash ? xstrndup(cur, slash == cur ? 1 : (size_t)(slash - cur)) : xstrdup(".");
    char *real_dir = realpath(dir, NULL);
    char *out = real_dir ? xasprintf("%s/%s", strcmp(real_dir, "/") == 0 ? "" : real_dir,
                                     slash ? slash + 1 : cur)
                         : xstrdup(cur);
    free(real_dir);
    free(dir);
    free(cur);
    return out;
}

int out_check_not_input(const char *opt, const char *out, const char *what, const char *input,
                        char *msg, size_t msgsize)
{
    struct stat so, si;
    bool same;
    if (stat(out, &so) == 0 && stat(input, &si) == 0) {
        same = so.st_dev == si.st_dev && so.st_ino == si.st_ino;
    } else {
        char *ro = out_resolve(out), *ri = out_resolve(input);
        same = strcmp(ro, ri) == 0;
        free(ro);
        free(ri);
    }
    if (!same)
        return 0;
    snprintf(msg, msgsize, "%s %s is %s %s: writing it would destroy what is read; choose another "
             "name", opt, out, what, input);
    return -1;
}

int out_check_not_inputs(const char *opt, const char *out, const char *const *in,
                         const char *const *what, int n, char *msg, size_t msgsize)
{
    for (int i = 0; i < n; i++)
        if (out_check_not_input(opt, out, what[i], in[i], msg, msgsize) != 0)
            return -1;
    return 0;
}

int out_file_open(struct out_file *o, const char *path, char *msg, size_t msgsize)
{
    memset(o, 0, sizeof *o);
    if (!path[0]) {
        snprintf(msg, msgsize, "an empty file name");
        return -1;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* /dev/null, a FIFO, a terminal: a rename would replace the node
         * itself, so write in place (and never remove it). */
        o->f = fopen(path, "w");
        if (!o->f)
            return out_error(msg, msgsize, "cannot write", path, errno);
        o->target = xstrdup(path);
        return 0;
    }
    if (exists && access(path, W_OK) != 0)
        return out_error(msg, msgsize, "cannot write", path, errno);
    /* Through a symlink, replace the file it names, not the link. */
    char *real = exists ? realpath(path, NULL) : NULL;
    o->target = real ? real : xstrdup(path);
    int fd = out_create_beside(o->target, &o->tmp);
    if (fd < 0) {
        out_error(msg, msgsize, "cannot write", path, errno);
        free(o->target);
        o->target = NULL;
        return -1;
    }
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777); /* keep the file's permissions */
    o->f = fdopen(fd, "w");
    if (!o->f) {
        out_error(msg, msgsize, "cannot write", path, errno);
        close(fd);
        out_file_abort(o);
        out_file_free(o);
        return -1;
    }
    return 0;
}

void out_file_free(struct out_file *o)
{
    free(o->target);
    free(o->tmp);
    o->target = o->tmp = NULL;
}

int out_file_commit(struct out_file *o, char *msg, size_t msgsize)
{
    int err = 0;
    errno = 0;
    if (!o->f)
        ; /* written and synced by another (merge: SQLite) */
    else if (fflush(o->f) != 0 || ferror(o->f))
        err = errno ? errno : EIO;
    /* On disk before the rename, so a crash leaves the old file or the new
     * one, never an empty one. */
    else if (o->tmp && fsync(fileno(o->f)) != 0 && errno != EINVAL)
        err = errno;
    if (o->f && fclose(o->f) != 0 && !err)
        err = errno;
    o->f = NULL;
    if (!err && o->tmp && rename(o->tmp, o->target) != 0)
        err = errno;
    if (err) {
        out_file_abort(o);
        return out_error(msg, msgsize, "error writing", o->target, err);
    }
    o->done = true;
    free(o->tmp);
    o->tmp = NULL;
    return 0;
}

void out_file_abort(struct out_file *o)
{
    if (o->done)
        return;
    o->done = true;
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp)
        unlink(o->tmp);
}

int out_dir_open(struct out_dir *d, const char *dir, char *msg, size_t msgsize)
{
    memset(d, 0, sizeof *d);
    if (!dir[0]) {
        snprintf(msg, msgsize, "an empty directory name");
        return -1;
    }
    if (mkdir(dir, 0777) == 0)
        d->created = true;
    else if (errno != EEXIST)
        return out_error(msg, msgsize, "cannot create", dir, errno);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        snprintf(msg, msgsize, "%s is not a writable directory", dir);
        return -1;
    }
    d->target = xstrdup(dir);
    out_clean_stale(dir, ".pmlab-", true);
    char *tag = out_owner_tag();
    d->stage = xasprintf("%s/.pmlab-%sXXXXXX", dir, tag);
    free(tag);
    if (!mkdtemp(d->stage)) {
        out_error(msg, msgsize, "cannot write in", dir, errno);
        free(d->stage);
        d->stage = NULL;
        out_dir_abort(d);
        out_dir_free(d);
        return -1;
    }
    return 0;
}

void out_dir_free(struct out_dir *d)
{
    free(d->target);
    free(d->stage);
    d->target = d->stage = NULL;
}

static int out_not_dot(const struct dirent *e)
{
    return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

/* Plots before report.*, which link to them; otherwise by name. */
static int out_report_last(const struct dirent **a, const struct dirent **b)
{
    int ra = strncmp((*a)->d_name, "report.", 7) == 0;
    int rb = strncmp((*b)->d_name, "report.", 7) == 0;
    return ra != rb ? ra - rb : strcmp((*a)->d_name, (*b)->d_name);
}

/* Remove the staging directory and everything in it: all of it is pmlab's
 * (mkdtemp made it, mode 0700). */
static void out_remove_stage(const char *stage)
{
    DIR *dir = opendir(stage);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)))
            if (out_not_dot(e))
                unlinkat(dirfd(dir), e->d_name, 0);
        closedir(dir);
    }
    rmdir(stage);
}

/* Whether every staged name can replace what DIR has of that name (nothing,
 * or a file: never a directory of the user's). 0, or -1 with msg. */
static int out_dir_check_targets(const struct out_dir *d, int tfd, struct dirent **ents, int n,
                                 char *msg, size_t msgsize)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (fstatat(tfd, ents[i]->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
            char *path = xasprintf("%s/%s", d->target, ents[i]->d_name);
            snprintf(msg, msgsize, "cannot write %s: it is a directory", path);
            free(path);
            return -1;
        }
    }
    return 0;
}

/* Move the first n staged entries back (the new files to the stage, the
 * old ones from the backup into DIR): a failed commit leaves DIR as it was. */
static void out_dir_rollback(int tfd, int sfd, int bfd, struct dirent **ents, int n,
                             const bool *backed_up)
{
    for (int i = n - 1; i >= 0; i--) {
        renameat(tfd, ents[i]->d_name, sfd, ents[i]->d_name);
        if (backed_up[i])
            renameat(bfd, ents[i]->d_name, tfd, ents[i]->d_name);
    }
}

int out_dir_commit(struct out_dir *d, char *msg, size_t msgsize)
{
    int tfd = open(d->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int sfd = open(d->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirent **ents = NULL;
    int n = tfd >= 0 && sfd >= 0 ? scandir(d->stage, &ents, out_not_dot, out_report_last) : -1;
    int rc = n < 0 ? out_error(msg, msgsize, "cannot read", d->stage, errno) : 0;
    /* One run's files land together: another run moving into the same
     * directory waits for the lock. */
    if (rc == 0 && flock(tfd, LOCK_EX) != 0)
        rc = out_error(msg, msgsize, "cannot lock", d->target, errno);
    if (rc == 0)
        rc = out_dir_check_targets(d, tfd, ents, n, msg, msgsize);
    /* The files DIR has of the new names wait in a backup stage until every
     * new one is in, so that a failure half-way (a full disk can refuse a
     * rename that grows DIR) puts them back: DIR holds the old set or the
     * new one, never a mix. */
    char *backup = NULL;
    int bfd = -1;
    if (rc == 0) {
        char *tag = out_owner_tag();
        backup = xasprintf("%s/.pmlab-%sXXXXXX", d->target, tag);
        free(tag);
        if (!mkdtemp(backup) || (bfd = open(backup, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            rc = out_error(msg, msgsize, "cannot write in", d->target, errno);
    }
    bool *backed_up = xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof *backed_up);
    for (int i = 0; rc == 0 && i < n; i++) {
        const char *name = ents[i]->d_name;
        struct stat st;
        int err = 0;
        if (fstatat(tfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            if (renameat(tfd, name, bfd, name) == 0)
                backed_up[i] = true;
            else
                err = errno;
        }
        if (!err && renameat(sfd, name, tfd, name) != 0)
            err = errno;
        if (err) {
            char *path = xasprintf("%s/%s", d->target, name);
            rc = out_error(msg, msgsize, "cannot write", path, err);
            free(path);
            if (backed_up[i] && renameat(bfd, name, tfd, name) == 0)
                backed_up[i] = false;
            out_dir_rollback(tfd, sfd, bfd, ents, i, backed_up);
        }
    }
    for (int i = 0; i < n; i++)
        free(ents[i]);
    free(ents);
    free(backed_up);
    if (bfd >= 0)
        close(bfd);
    if (backup)
        out_remove_stage(backup);
    free(backup);
    if (sfd >= 0)
        close(sfd);
    if (tfd >= 0)
        close(tfd); /* releases the lock */
    out_remove_stage(d->stage);
    d->done = true;
    return rc;
}

void out_dir_abort(struct out_dir *d)
{
    if (d->done)
        return;
    d->done = true;
    if (d->stage)
        out_remove_stage(d->stage);
    if (d->created && d->target)
        rmdir(d->target); /* only if still empty: nothing else is touched */
}

static const char *out_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* The watcher: wait for a signal, then, once the caller is not in the middle
 * of writing an output, undo what is not in place, say what, and exit. */
static void *out_guard_watch(void *arg)
{
    struct out_guard *g = arg;
    int sig;
    for (;;) {
        if (sigwait(&g->set, &sig) != 0)
            return NULL;
        pthread_mutex_lock(&g->lock);
        if (g->stopping) { /* out_guard_stop's own signal */
            pthread_mutex_unlock(&g->lock);
            return NULL;
        }
        if (!(sig == SIGTERM && g->term_ignored))
            break;
        pthread_mutex_unlock(&g->lock); /* ignored on entry: stays ignored */
    }
    char *lost = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&lost, &len);
    int n = 0;
    if (g->file && !g->file->done) {
        fprintf(m, "%s", g->file->target);
        out_file_abort(g->file);
        n++;
    } else if (!g->file && g->report_pending) {
        fprintf(m, "the report");
        n++;
    }
    for (int i = 0; i < g->ndirs; i++) {
        if (g->dirs[i]->done)
            continue;
        fprintf(m, "%s%s/", n++ ? ", " : "", g->dirs[i]->target);
        out_dir_abort(g->dirs[i]);
    }
    if (m)
        fclose(m);
    if (g->describe) {
        fprintf(stderr, "\n%s: interrupted by %s: ", g->cmd, out_signal_name(sig));
        g->describe(g->describe_ctx, stderr);
        fputc('\n', stderr);
    } else if (n && lost)
        fprintf(stderr, "\n%s: interrupted by %s: %s not written (previous contents kept)\n",
                g->cmd, out_signal_name(sig), lost);
    else
        fprintf(stderr, "\n%s: interrupted by %s after every output was written\n", g->cmd,
                out_signal_name(sig));
    /* The caller's threads may be mid-run: nothing else to finish. */
    _exit(128 + sig);
}

int out_guard_start(struct out_guard *g)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    sigemptyset(&g->set);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        /* A signal ignored on entry (nohup, a shell's background job) stays
         * ignored: blocked, it would be queued for sigwait instead. */
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&g->set, sigs[i]);
        else if (sigs[i] == SIGTERM)
            g->term_ignored = true;
    }
    /* out_guard_stop wakes the watcher with SIGTERM sent to it alone. */
    sigaddset(&g->set, SIGTERM);
    if (pthread_mutex_init(&g->lock, NULL) != 0)
        return -1;
    if (pthread_sigmask(SIG_BLOCK, &g->set, &g->old) != 0) {
        pthread_mutex_destroy(&g->lock);
        return -1;
    }
    if (pthread_create(&g->watcher, NULL, out_guard_watch, g) != 0) {
        pthread_sigmask(SIG_SETMASK, &g->old, NULL);
        pthread_mutex_destroy(&g->lock);
        return -1;
    }
    g->running = true;
    return 0;
}

void out_guard_stop(struct out_guard *g)
{
    if (!g->running)
        return;
    /* Wake the watcher with a signal sent to it alone, flagged so that it
     * returns (pthread_cancel would do, but it unwinds past ASan's stack
     * bookkeeping). A watcher already past sigwait exits the process. */
    pthread_mutex_lock(&g->lock);
    g->stopping = true;
    pthread_mutex_unlock(&g->lock);
    pthread_kill(g->watcher, SIGTERM);
    pthread_join(g->watcher, NULL);
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
    pthread_mutex_destroy(&g->lock);
    g->running = false;
}
