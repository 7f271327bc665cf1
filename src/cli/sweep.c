/* sweep: `pmlab sweep SCENARIO --grid KEY=V1,V2 ...`: every point of the
 * grid x variants x replications, each finished point committed to the
 * results database (sweep/store.h), then a summary per point and variant. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/sweep.h"
#include "runner/runner.h"
#include "sweep/store.h"
#include "sweep/summary.h"
#include "util/strutil.h"
#include "util/xalloc.h"

static void sweep_usage(void)
{
    printf("usage: pmlab sweep SCENARIO.ini --grid SECTION.KEY=V1,V2,... [OPTIONS]\n"
           "\n"
           "Run the scenario at every point of a grid: the cartesian product of the --grid\n"
           "values (and the scenario's [sweep] lines), each point x every variant x the\n"
           "replications. A point's random streams are keyed by its KEY=VALUE settings and\n"
           "the seed, so a point gives the same numbers in any grid, shard or order. Each\n"
           "finished point is committed to an SQLite database; then a summary of every\n"
           "point and variant is printed (see SWEEPS in pmlab(1), docs/sweeps.md).\n"
           "\n"
           "options:\n"
           "  --grid KEY=V1,V2,...     a grid axis (repeatable): KEY as for --set\n"
           "                           (workload.load, variant.*.cmdline, scenario.machine,\n"
           "                           machine.cstate.P.C6.exit_latency_us, ...); replaces a\n"
           "                           [sweep] line of the same key\n"
           "  --set SECTION.KEY=VALUE  set a scenario key for every point (repeatable; see\n"
           "                           pmlab run --help)\n"
           "  --db FILE                the results database (default: --output's name with\n"
           "                           .db, else SCENARIO_NAME.db; with --shard I/N,\n"
           "                           SCENARIO_NAME.shardI-of-N.db)\n"
           "  --resume                 continue the sweep in --db: skip its committed points\n"
           "                           (the database must hold this same sweep)\n"
           "  --shard I/N              run only points I, I+N, I+2N, ... (0 <= I < N), e.g. one\n"
           "                           Slurm array task; 'pmlab merge' joins the databases\n"
           "  --format table|csv       summary format (default table)\n"
           "  --output FILE            write the summary to FILE (whole or not at all)\n"
           "  --plot DIR               also plot each metric against each grid key with 95 %%\n"
           "                           CI bands per variant, and power against the primary\n"
           "                           metric (Pareto view); needs gnuplot\n"
           "  --reps N                 replications per variant (default: the scenario's)\n"
           "  --seed N                 base random seed (default: the scenario's)\n"
           "  --jobs N                 worker threads per point (default: all online CPUs)\n"
           "  --quick                  the scenario's [quick] configuration\n"
           "  --primary METRIC         the summary's and plots' primary metric (default: the\n"
           "                           workload's headline)\n"
           "  --quiet                  no progress line on stderr\n"
           "  -h, --help               this text\n"
           "\n"
           "Exit status: 0 success, 1 a run failed, 2 bad input (a grid key or value the\n"
           "scenario rejects, --resume on another sweep's database: before anything runs),\n"
           "130/143 interrupted: every point committed before stays in the database.\n");
}

static int sweep_parse_int(const char *opt, const char *text, int64_t min, int64_t max,
                           int64_t *out)
{
    if (str_to_i64(text, out) != 0 || *out < min || *out > max) {
        fprintf(stderr, "pmlab sweep: %s: expected an integer in [%lld, %lld], got '%s'\n", opt,
                (long long)min, (long long)max, text);
        return -1;
    }
    return 0;
}

int cli_parse_shard(const char *cmd, const char *text, struct sweep_shard *out)
{
    int64_t i, n;
    const char *slash = strchr(text, '/');
    char *first = slash ? xasprintf("%.*s", (int)(slash - text), text) : NULL;
    int rc = slash && str_to_i64(first, &i) == 0 && str_to_i64(slash + 1, &n) == 0 && n >= 1 &&
                     n <= 1000000 && i >= 0 && i < n
                 ? 0
                 : -1;
    free(first);
    if (rc != 0) {
        fprintf(stderr, "pmlab %s: --shard: expected I/N with 0 <= I < N, got '%s'\n", cmd, text);
        return -1;
    }
    out->index = (long)i;
    out->count = (long)n;
    return 0;
}

static int sweep_parse_option(struct cli_sweep *a, int c)
{
    int64_t v;
    char msg[300];
    switch (c) {
    case 'g':
        if (sweep_grid_add(&a->spec.grid, optarg, msg, sizeof msg) != 0) {
            fprintf(stderr, "pmlab sweep: --grid %s\n", msg);
            return -1;
        }
        return 0;
    case 'S':
        if (a->nsets == CLI_SWEEP_MAX_OPTS) {
            fprintf(stderr, "pmlab sweep: at most %d --set options\n", CLI_SWEEP_MAX_OPTS);
            return -1;
        }
        a->sets[a->nsets++] = optarg;
        return 0;
    case 'd': a->db_opt = optarg; return 0;
    case 'R': a->resume = true; return 0;
    case 'x': return cli_parse_shard("sweep", optarg, &a->shard);
    case 'f': a->format = optarg; return 0;
    case 'o': a->output = optarg; return 0;
    case 'P': a->plot_dir = optarg; return 0;
    case 'r':
        if (sweep_parse_int("--reps", optarg, 1, 1000, &v) != 0)
            return -1;
        a->spec.reps = (int)v;
        return 0;
    case 's':
        if (sweep_parse_int("--seed", optarg, 0, INT64_MAX, &v) != 0)
            return -1;
        a->spec.seed = (uint64_t)v;
        a->seed_set = true;
        return 0;
    case 'j':
        if (sweep_parse_int("--jobs", optarg, 1, 4096, &v) != 0)
            return -1;
        a->jobs = (int)v;
        return 0;
    case 'q': a->spec.quick = true; return 0;
    case 'p': a->spec.primary = optarg; return 0;
    case 'Q': a->quiet = true; return 0;
    default: return -1;
    }
}

/* Parse argv; 0, 1 for --help, -1 for bad input. */
static int sweep_parse_args(int argc, char **argv, struct cli_sweep *a)
{
    static const struct option longopts[] = {
        { "grid", required_argument, NULL, 'g' },   { "set", required_argument, NULL, 'S' },
        { "db", required_argument, NULL, 'd' },     { "resume", no_argument, NULL, 'R' },
        { "shard", required_argument, NULL, 'x' },  { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' }, { "plot", required_argument, NULL, 'P' },
        { "reps", required_argument, NULL, 'r' },   { "seed", required_argument, NULL, 's' },
        { "jobs", required_argument, NULL, 'j' },   { "quick", no_argument, NULL, 'q' },
        { "primary", required_argument, NULL, 'p' }, { "quiet", no_argument, NULL, 'Q' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:o:r:s:j:qh", longopts, NULL)) != -1) {
        if (c == 'h')
            return 1;
        if (c == '?')
            return cli_bad_option("sweep", argv, longopts, "f:o:r:s:j:qh"), -1;
        if (sweep_parse_option(a, c) != 0)
            return -1;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "pmlab sweep: expected exactly one scenario file (see 'pmlab sweep --help')\n");
        return -1;
    }
    a->spec.scenario = argv[optind];
    if (strcmp(a->format, "table") != 0 && strcmp(a->format, "csv") != 0) {
        fprintf(stderr, "pmlab sweep: --format: '%s' is not one of: table csv\n", a->format);
        return -1;
    }
    return 0;
}

int cli_sweep_prepare(struct sweep_spec *spec, bool seed_set, struct scenario **base, bool check)
{
    struct diag d = { 0 };
    /* Axes written in the file, after --grid's (which win). */
    if (sweep_grid_from_file(&spec->grid, spec->scenario, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    char msg[400];
    if (sweep_grid_check_size(&spec->grid, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab sweep: %s\n", msg);
        return -1;
    }
    struct scenario_load_opts lo = { .sets = spec->sets, .nsets = spec->nsets };
    *base = scenario_load(spec->scenario, &lo, &d);
    if (!*base) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    if (!seed_set)
        spec->seed = (*base)->seed;
    if (check && sweep_check(spec, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        scenario_free(*base);
        *base = NULL;
        return -1;
    }
    return 0;
}

char *cli_sweep_default_db(const struct scenario *base, const char *output,
                           const struct sweep_shard *shard)
{
    if (shard->count > 1)
        return xasprintf("%s.shard%ld-of-%ld.db", base->name, shard->index, shard->count);
    if (!output)
        return xasprintf("%s.db", base->name);
    const char *slash = strrchr(output, '/');
    const char *dot = strrchr(slash ? slash + 1 : output, '.');
    int len = dot ? (int)(dot - output) : (int)strlen(output);
    return xasprintf("%.*s.db", len, output);
}

static double sweep_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The points of this shard that the store lacks, ascending; NULL with msg
 * when the store cannot be read. */
static long *sweep_todo(const struct sweep_spec *spec, const struct sweep_shard *shard,
                        struct sweep_store *st, long *ntodo, long *nshard, char *msg,
                        size_t msgsize)
{
    long n = sweep_grid_npoints(&spec->grid);
    long *todo = xcalloc((size_t)n + 1, sizeof *todo);
    *ntodo = *nshard = 0;
    for (long p = shard->index; p < n; p += shard->count) {
        ++*nshard;
        int have = store_has_point(st, p, msg, msgsize);
        if (have < 0) {
            free(todo);
            return NULL;
        }
        if (!have)
            todo[(*ntodo)++] = p;
    }
    return todo;
}

void cli_sweep_progress(const char *name, long done, long total, double t0, const char *label)
{
    double el = sweep_now_s() - t0;
    fprintf(stderr, "\rpmlab sweep: %s: %ld/%ld points, %.1f s elapsed%s%s   ", name, done, total,
            el, label ? ": " : "", label ? label : "");
    if (done == total)
        fputc('\n', stderr);
}

int cli_sweep_finish(const char *db, const char *output, const char *format, const char *plot_dir,
                     const char *primary, bool quiet)
{
    struct out_guard guard = { .cmd = "pmlab sweep", .report_pending = true };
    struct out_file file = { 0 };
    struct out_dir plot = { 0 };
    char msg[512];
    int rc = 0;
    if (out_guard_start(&guard) != 0) {
        fprintf(stderr, "pmlab sweep: cannot start the signal watcher\n");
        return EXIT_RUN_FAILED;
    }
    pthread_mutex_lock(&guard.lock);
    if (output && out_file_open(&file, output, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab sweep: --output: %s\n", msg);
        rc = EXIT_BAD_INPUT;
    } else if (output) {
        guard.file = &file;
    }
    if (rc == 0 && plot_dir && out_dir_open(&plot, plot_dir, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab sweep: --plot: %s\n", msg);
        rc = EXIT_BAD_INPUT;
    } else if (rc == 0 && plot_dir) {
        guard.dirs[guard.ndirs++] = &plot;
    }
    struct sweep_summary sum;
    int status = rc == 0 ? sweep_summary_load(&sum, db, primary, msg, sizeof msg) : 0;
    if (status != 0) {
        fprintf(stderr, "pmlab sweep: %s\n", msg);
        rc = status;
    } else if (rc == 0) {
        FILE *out = output ? file.f : stdout;
        if (strcmp(format, "csv") == 0)
            sweep_summary_csv(&sum, out);
        else
            sweep_summary_table(&sum, out);
        if (output && out_file_commit(&file, msg, sizeof msg) != 0) {
            fprintf(stderr, "pmlab sweep: %s\n", msg);
            rc = EXIT_RUN_FAILED;
        }
        if (plot_dir) {
            int n = sweep_summary_plot(&sum, plot.stage, msg, sizeof msg);
            if (n < 0 || out_dir_commit(&plot, msg, sizeof msg) != 0) {
                fprintf(stderr, "pmlab sweep: --plot: %s\n", msg);
                out_dir_abort(&plot);
                rc = EXIT_RUN_FAILED;
            } else if (n == 0 && msg[0]) {
                fprintf(stderr, "pmlab sweep: %s\n", msg);
            } else if (!quiet) {
                fprintf(stderr, "pmlab sweep: %d plots (PNG and SVG) in %s\n", n, plot_dir);
            }
        }
        sweep_summary_free(&sum);
    }
    if (rc != 0) {
        if (guard.file)
            out_file_abort(&file);
        if (guard.ndirs)
            out_dir_abort(&plot);
    }
    guard.report_pending = false;
    pthread_mutex_unlock(&guard.lock);
    out_guard_stop(&guard);
    out_file_free(&file);
    out_dir_free(&plot);
    return rc;
}

/* Neither --output nor the database may be a file the sweep reads, nor
 * --output the database (--output res.db names the database res.db too):
 * the summary renamed over it would lose the whole sweep. 0, or -1 after
 * the message. */
static int sweep_check_outputs(const struct cli_sweep *a)
{
    /* Written only after the points have run: a name that cannot be one
     * must not wait that long to fail. */
    const char *empty = !a->db[0] ? "--db" : a->output && !a->output[0] ? "--output"
                      : a->plot_dir && !a->plot_dir[0] ? "--plot" : NULL;
    if (empty) {
        fprintf(stderr, "pmlab sweep: %s: an empty %s name\n", empty,
                strcmp(empty, "--plot") == 0 ? "directory" : "file");
        return -1;
    }
    struct scenario_inputs in;
    scenario_input_files(a->base, &in);
    char msg[600];
    int rc = out_check_not_inputs("--db", a->db, in.path, in.what, in.n, msg, sizeof msg);
    if (rc == 0 && a->output)
        rc = out_check_not_input("--output", a->output, "the results database", a->db, msg,
                                 sizeof msg) ||
             out_check_not_inputs("--output", a->output, in.path, in.what, in.n, msg, sizeof msg);
    if (rc != 0)
        fprintf(stderr, "pmlab sweep: %s\n", msg);
    return rc;
}

/* word as one shell word: as it is when it is plain, else in single quotes
 * (a quote inside as '\''). */
static void sweep_shell_word(FILE *out, const char *word)
{
    bool plain = *word != '\0';
    for (const char *c = word; *c && plain; c++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=,:+-@%",
                       *c) != NULL;
    if (plain) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (; *word; word++)
        if (*word == '\'')
            fputs("'\\''", out);
        else
            fputc(*word, out);
    fputc('\'', out);
}

/* "PROGRAM sweep ARGS --resume", the words quoted for a shell (allocated):
 * what continues this sweep, same options, same database, same launcher. */
static char *sweep_resume_command(const char *program, int argc, char **argv, bool resume)
{
    char *cmd = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&cmd, &len);
    fputs(program, m);
    for (int i = 0; i < argc; i++) {
        fputc(' ', m);
        sweep_shell_word(m, argv[i]);
    }
    if (!resume)
        fputs(" --resume", m);
    fclose(m);
    return cmd;
}

/* --resume: the database, when it exists and is not empty, read and
 * checked whole before a point is added to it, as the summary will read it.
 * 0, or the exit status after the message. */
static int sweep_check_db(const char *db)
{
    struct stat st;
    if (stat(db, &st) != 0 || st.st_size == 0)
        return 0; /* store_open creates it */
    struct store_reader rd;
    char msg[700];
    int status = store_reader_open(&rd, db, msg, sizeof msg);
    if (status == 0) {
        if (store_reader_check(&rd) != 0) {
            snprintf(msg, sizeof msg, "%s", rd.err);
            status = rd.status;
        }
        store_reader_close(&rd);
    }
    if (status != 0)
        fprintf(stderr, "pmlab sweep: %s\n", msg);
    return status;
}

int cli_sweep_open(int argc, char **argv, struct cli_sweep *a, bool worker, const char *program)
{
    memset(a, 0, sizeof *a);
    a->format = "table";
    a->shard.count = 1;
    int prc = sweep_parse_args(argc, argv, a);
    a->spec.sets = a->sets;
    a->spec.nsets = a->nsets;
    if (prc != 0 || cli_sweep_prepare(&a->spec, a->seed_set, &a->base, !worker) != 0) {
        sweep_grid_free(&a->spec.grid);
        return prc > 0 ? (sweep_usage(), CLI_SWEEP_HELP) : EXIT_BAD_INPUT;
    }
    if (worker)
        return 0;
    a->resume_cmd = sweep_resume_command(program, argc, argv, a->resume);
    a->db = a->db_opt ? xstrdup(a->db_opt) : cli_sweep_default_db(a->base, a->output, &a->shard);
    if (sweep_check_outputs(a) != 0)
        return cli_sweep_close(a, EXIT_BAD_INPUT);
    int status = a->resume ? sweep_check_db(a->db) : 0;
    if (status != 0)
        return cli_sweep_close(a, status);
    struct store_identity id;
    store_identity_of(&a->spec, a->base, &id);
    char shard[48] = "", msg[600];
    if (a->shard.count > 1)
        snprintf(shard, sizeof shard, "%ld/%ld", a->shard.index, a->shard.count);
    bool bad_input;
    a->st = store_open(a->db, a->resume, &id, &a->spec, shard, &bad_input, msg, sizeof msg);
    store_identity_free(&id);
    if (!a->st) {
        fprintf(stderr, "pmlab sweep: %s\n", msg);
        return cli_sweep_close(a, bad_input ? EXIT_BAD_INPUT : EXIT_RUN_FAILED);
    }
    a->todo = sweep_todo(&a->spec, &a->shard, a->st, &a->ntodo, &a->nshard, msg, sizeof msg);
    if (!a->todo) {
        fprintf(stderr, "pmlab sweep: %s\n", msg);
        return cli_sweep_close(a, EXIT_RUN_FAILED);
    }
    if (!a->quiet)
        fprintf(stderr, "pmlab sweep: %s: %ld points x %d variants into %s (%ld to run)\n",
                a->base->name, a->nshard, a->base->nvariants, a->db, a->ntodo);
    return 0;
}

int cli_sweep_close(struct cli_sweep *a, int rc)
{
    if (a->st) {
        store_close(a->st);
        a->st = NULL;
        if (rc == 0)
            rc = cli_sweep_finish(a->db, a->output, a->format, a->plot_dir, a->spec.primary,
                                  a->quiet);
    }
    free(a->todo);
    free(a->db);
    free(a->resume_cmd);
    scenario_free(a->base);
    sweep_grid_free(&a->spec.grid);
    memset(a, 0, sizeof *a);
    return rc;
}

int cli_sweep_commit(struct cli_sweep *a, long i, const struct sweep_result *r, int rc,
                     const char *err, double t0)
{
    char msg[512];
    bool progress = !a->quiet && isatty(STDERR_FILENO);
    /* Under the guard's lock: an interruption says how many points are in
     * the database, so it waits for a commit in progress. */
    if (a->guard)
        pthread_mutex_lock(&a->guard->lock);
    if (rc == 0 && store_commit_point(a->st, &a->spec, r, msg, sizeof msg) != 0) {
        rc = -1;
        err = msg;
    } else if (rc == 0) {
        a->ncommitted++;
    }
    if (a->guard)
        pthread_mutex_unlock(&a->guard->lock);
    char *label = sweep_point_label(&a->spec.grid, r->point);
    if (rc != 0)
        fprintf(stderr, "%spmlab sweep: point %ld (%s): %s\n", progress ? "\n" : "", r->point,
                label, err);
    else if (progress)
        cli_sweep_progress(a->base->name, i, a->ntodo, t0, label);
    free(label);
    if (rc == 0)
        return 0;
    return rc == RUNNER_BAD_PRIMARY ? EXIT_BAD_INPUT : EXIT_RUN_FAILED;
}

int cli_sweep_run_local(struct cli_sweep *a, void *ctx)
{
    (void)ctx;
    double t0 = sweep_now_s();
    for (long i = 0; i < a->ntodo; i++) {
        struct sweep_result r;
        char err[512];
        int rc = sweep_run_point(&a->spec, a->todo[i], a->jobs, &r, err, sizeof err);
        r.point = a->todo[i];
        rc = cli_sweep_commit(a, i + 1, &r, rc, err, t0);
        sweep_result_free(&r);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The signal watcher around the points: an interruption between points
 * loses nothing (each is committed), one in flight is rolled back by
 * SQLite at the next open. */
/* What an interrupted sweep leaves: the points in the database, and the
 * command that continues it (the watcher calls this with the lock held). */
static void sweep_describe_interrupt(void *ctx, FILE *out)
{
    const struct cli_sweep *a = ctx;
    long have = a->nshard - a->ntodo + a->ncommitted;
    fprintf(out, "%ld of the %ld points%s are committed to %s (%ld by this run; one in flight "
            "runs again), no summary%s written; continue with:\n  %s", have, a->nshard,
            a->shard.count > 1 ? " of this shard" : "", a->db, a->ncommitted,
            a->plot_dir ? " or plots" : "", a->resume_cmd);
}

int cli_sweep_guarded(struct cli_sweep *a, int (*run)(struct cli_sweep *a, void *ctx), void *ctx)
{
    struct out_guard guard = { .cmd = "pmlab sweep", .describe = sweep_describe_interrupt,
                               .describe_ctx = a };
    if (out_guard_start(&guard) != 0) {
        fprintf(stderr, "pmlab sweep: cannot start the signal watcher\n");
        return EXIT_RUN_FAILED;
    }
    a->guard = &guard;
    int rc = run(a, ctx);
    a->guard = NULL;
    out_guard_stop(&guard);
    return rc;
}

static int sweep_main(int argc, char **argv)
{
    struct cli_sweep a;
    int rc = cli_sweep_open(argc, argv, &a, false, "pmlab");
    if (rc != 0)
        return rc == CLI_SWEEP_HELP ? 0 : rc;
    rc = cli_sweep_guarded(&a, cli_sweep_run_local, NULL);
    return cli_sweep_close(&a, rc);
}

const struct cli_command cli_sweep_command = {
    .name = "sweep",
    .summary = "run a scenario over a grid of knob values into a results database",
    .main = sweep_main,
    .usage = sweep_usage,
};
