/* libFuzzer target: a sweep results database (an SQLite file), as every
 * reader of one takes it: the summary (table, CSV) `sweep --resume` prints,
 * `export` (CSV or JSON lines, by the input's size), and, for one input in
 * four, `merge` of it alone into a scratch directory. The seeds are small
 * real sweep databases (512-byte pages), so mutations land in page headers,
 * records and values alike: corrupt files and hostile values.
 *
 * Not a memfd as the other targets: SQLite resolves /proc/self/fd/N to
 * "/memfd:... (deleted)" and cannot open that. Each input is written to a
 * file in a directory of its own (on tmpfs when there is one). */
#define _GNU_SOURCE /* fuzz_common.h: memfd_create */
#include "cli/cli.h"
#include "sweep/store.h"
#include "sweep/summary.h"
#include "fuzz_common.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fuzz_summary(const char *path)
{
    struct sweep_summary s;
    char msg[700];
    if (sweep_summary_load(&s, path, NULL, msg, sizeof msg) != 0)
        return;
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        sweep_summary_table(&s, null);
        sweep_summary_csv(&s, null);
        fclose(null);
    }
    sweep_summary_free(&s);
}

/* The scratch directory of one input (its file, SQLite's journal, WAL and
 * shared-memory files, merge's output), made and emptied for each input,
 * so that nothing stays behind when libFuzzer stops. */
static void fuzz_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

static void fuzz_merge(const char *dir, const char *path)
{
    char out[128];
    snprintf(out, sizeof out, "%s/m.db", dir);
    const char *inputs[] = { path };
    bool bad_input;
    char msg[700];
    store_merge(inputs, 1, out, &bad_input, msg, sizeof msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "%s/pmlab-fuzz-store-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/in.db", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool whole = fd >= 0 && write(fd, data, size) == (ssize_t)size;
    if (fd >= 0)
        close(fd);
    if (!whole)
        abort();
    fuzz_summary(path);
    char *argv[] = { "export", path, "--format", size % 2 ? "jsonl" : "csv", NULL };
    cli_export_command.main(4, argv);
    if (size % 4 == 0)
        fuzz_merge(dir, path);
    fuzz_remove_dir(dir);
    return 0;
}
