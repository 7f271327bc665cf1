/* run: `pmlab run SCENARIO`: load, run every job, print the report. */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "report/explain.h"
#include "report/mdreport.h"
#include "report/plot.h"
#include "report/results.h"
#include "runner/runner.h"
#include "scenario/scenario.h"
#include "trace/record.h"
#include "util/strutil.h"

static void run_usage(void)
{
    printf("usage: pmlab run SCENARIO.ini [OPTIONS]\n"
           "\n"
           "Run every variant of the scenario for its replications and compare each metric\n"
           "against the first variant: replication r of every variant is offered the same\n"
           "work, so each delta's 95 %% CI is a paired t interval; p-values are Holm-adjusted\n"
           "over each variant's metrics and verdicts use the adjusted ones; a significant\n"
           "change under its class's practical threshold ([report] min_effect_CLASS_pct:\n"
           "power and throughput 0.5 %%, latency 2 %%) is 'negligible'. Metrics on a few\n"
           "discrete levels get an exact permutation test instead of t. Fewer than 2\n"
           "replications give no interval or verdict (n/a). See STATISTICS in pmlab(1).\n"
           "\n"
           "options:\n"
           "  --format table|json|csv  output format (default table)\n"
           "  --output FILE            write the report to FILE instead of stdout (through a\n"
           "                           temporary file: FILE keeps its contents unless the run\n"
           "                           succeeds)\n"
           "  --reps N                 replications per variant (default: the scenario's); with\n"
           "                           --ci-target, the first batch\n"
           "  --ci-target PCT          add replications in batches until, for every variant, the\n"
           "                           95 %% CI half-width of the primary metric is under PCT %%\n"
           "                           of its mean; the result is exactly that of --reps with\n"
           "                           the count reached\n"
           "  --primary METRIC         the primary metric, for --ci-target and the primary plot\n"
           "                           (default: the workload's headline: critical_jops for jbb,\n"
           "                           lat_p99_us for rr, read_mbps for fio, trans_per_s for\n"
           "                           netrr, single_score for compute, pkg_watts for idle); a\n"
           "                           metric the run does not report is exit status 2\n"
           "  --max-reps N             with --ci-target: stop at N replications (default %d) and\n"
           "                           say on stderr which variant missed the target\n"
           "  --seed N                 base random seed (default: the scenario's)\n"
           "  --jobs N                 worker threads (default: all online CPUs)\n"
           "  --quick                  the scenario's [quick] configuration: fewer, shorter runs\n"
           "  --set SECTION.KEY=VALUE  set a scenario key as if written at the end of its\n"
           "                           section (repeatable): scenario.seed=7, workload.load=0.5,\n"
           "                           quick.duration_ms=20, variant.NAME.cmdline=WORDS (added\n"
           "                           to the variant's: the last value wins), variant.*.KEY\n"
           "                           (every variant), variant.NAME.workload.KEY (that\n"
           "                           variant's own workload value), vm.NAME.KEY,\n"
           "                           machine.SECTION.KEY (a machine-file key, SECTION its\n"
           "                           header's words: machine.cstate.P.C6.exit_latency_us=100);\n"
           "                           listed on the table's overrides line and recorded in\n"
           "                           the JSON's configuration (compare refuses runs whose\n"
           "                           settings differ outside their variants)\n"
           "  --variant NAME           run only this variant (repeatable); each keeps the random\n"
           "                           streams it has in a full run, so its numbers are the same\n"
           "  --cpus LIST              also report busy, polling, MHz, tick, residency and\n"
           "                           above/below over these CPUs only, as cpus.* metrics beside\n"
           "                           the host-wide ones (like turbostat --cpu); LIST in the\n"
           "                           kernel's cpulist format (0-15, 0-3,8,10-11); overrides the\n"
           "                           scenario's [report] cpus\n"
           "  --per-cpu                also turbostat's rows per CPU and, on hybrids, per core\n"
           "                           type (JSON series per_cpu, per_type.TYPE)\n"
           "  --interval MS            also turbostat --interval's samples every MS ms of\n"
           "                           simulated time (JSON series interval; a time plot)\n"
           "  --trace DIR              also write the first replication of each variant as a\n"
           "                           trace-cmd trace.dat, DIR/VARIANT.dat (created if\n"
           "                           missing): power:cpu_idle, power:cpu_frequency,\n"
           "                           sched:sched_switch, sched_wakeup(_new), over the\n"
           "                           measurement window; for trace-cmd report, KernelShark,\n"
           "                           Perfetto and pmlab trace stats\n"
           "  --trace-window START:END  trace only ms START to END of the measurement window\n"
           "                           (END empty: to its end)\n"
           "  --trace-max-mib N        stop a trace at N MiB of events (default 256), saying\n"
           "                           where on stderr; the three --trace options default to\n"
           "                           the scenario's [report] trace, trace_window and\n"
           "                           trace_max_mib\n"
           "  --plot DIR               also write plots (PNG and SVG, with their gnuplot scripts\n"
           "                           and data) into DIR: RT curve, residency, primary metric and\n"
           "                           package power with CIs, latency CDF, above/below; needs\n"
           "                           gnuplot (a missing gnuplot is a message, not a failure)\n"
           "  --report DIR             also write DIR/report.md and a self-contained\n"
           "                           DIR/report.html: variants, what they resolve to (explain),\n"
           "                           the comparison and turbostat tables, the plots\n"
           "  --quiet                  no progress or summary line on stderr (warnings and errors\n"
           "                           are still printed)\n"
           "  -h, --help               this text\n"
           "\n"
           "A progress line (ETA from the runs finished so far) is drawn on stderr only when\n"
           "it is a terminal and --quiet is not given; an estimate over an hour is a warning\n"
           "(even with --quiet). Output is byte-identical for a given scenario, seed and replication\n"
           "count, whatever --jobs is. Exit status: 0 success, 1 a run failed, 2 bad input,\n"
           "130/143 interrupted by SIGINT/SIGTERM (nothing incomplete is left behind).\n",
           RUNNER_DEFAULT_MAX_REPS);
}

#define RUN_MAX_SELECT 64
#define RUN_MAX_SETS 256

struct run_args {
    const char *scenario;
    const char *select[RUN_MAX_SELECT]; /* --variant names */
    int nselect;
    const char *sets[RUN_MAX_SETS];    /* --set texts */
    int nsets;
    const char *format;
    const char *output;
    const char *plot_dir;      /* --plot */
    const char *report_dir;    /* --report */
    const char *cpus;          /* --cpus LIST, checked once the machine is known */
    bool per_cpu;              /* --per-cpu */
    int64_t interval_ms;       /* --interval MS; 0: none */
    const char *trace_dir;     /* --trace DIR */
    int64_t trace_window_ms[2]; /* --trace-window START:END, ms; END -1: the end */
    int64_t trace_max_mib;     /* --trace-max-mib */
    bool trace_window_given, trace_max_given; /* on the command line, over [report]'s */
    struct runner_opts opts;
    bool reps_set, max_reps_set;
    bool quiet;
};

static int run_parse_int(const char *opt, const char *text, int64_t min, int64_t max, int64_t *out)
{
    if (str_to_i64(text, out) != 0 || *out < min || *out > max) {
        fprintf(stderr, "pmlab run: %s: expected an integer in [%lld, %lld], got '%s'\n", opt,
                (long long)min, (long long)max, text);
        return -1;
    }
    return 0;
}

static int run_parse_pct(const char *opt, const char *text, double *out)
{
    if (str_to_double(text, out) != 0 || !(*out > 0 && *out <= 100)) {
        fprintf(stderr, "pmlab run: %s: expected a percentage in (0, 100], got '%s'\n", opt, text);
        return -1;
    }
    return 0;
}

/* Options that only make sense together. */
static int run_check_args(const struct run_args *a)
{
    if (a->max_reps_set && a->opts.ci_target_pct <= 0) {
        fprintf(stderr, "pmlab run: --max-reps needs --ci-target\n");
        return -1;
    }
    int max = a->max_reps_set ? a->opts.max_reps : RUNNER_DEFAULT_MAX_REPS;
    if (a->opts.ci_target_pct > 0 && a->reps_set && a->opts.reps > max) {
        fprintf(stderr, "pmlab run: --reps %d is more than --max-reps %d\n", a->opts.reps, max);
        return -1;
    }
    return 0;
}

/* --trace DIR: made if missing; it must be a directory. */
static int run_trace_dir(const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "pmlab run: --trace %s: %s\n", dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "pmlab run: --trace %s: not a directory\n", dir);
        return -1;
    }
    return 0;
}

/* The trace's directory, window and size limit: the command line's, else
 * the scenario's [report] trace keys, else none (window: all of the
 * measurement; limit 256 MiB). */
static void run_trace_settings(const struct run_args *a, struct scenario *s)
{
    s->trace_dir = a->trace_dir ? a->trace_dir : s->report_trace_dir;
    const int64_t *w = a->trace_window_given ? a->trace_window_ms : s->report_trace_window_ms;
    s->trace_window_ms[0] = w[0];
    s->trace_window_ms[1] = w[1];
    s->trace_max_mib = a->trace_max_given || !s->report_trace_max_mib ? a->trace_max_mib
                                                                      : s->report_trace_max_mib;
    s->trace_quiet = a->quiet;
}

/* --trace-window START:END in ms of simulated time from the measurement's
 * start; END may be empty (the end of the run). */
static int run_parse_trace_window(const char *text, int64_t *w)
{
    if (trace_window_parse(text, w) == 0)
        return 0;
    fprintf(stderr, "pmlab run: --trace-window: expected START:END in ms from the measurement's "
                    "start (END > START, or empty for the end of the run), got '%s'\n", text);
    return -1;
}

/* Parse argv; returns 0, 1 for --help (exit 0), or -1 (exit 2). */
static int run_parse_args(int argc, char **argv, struct run_args *a)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
        { "reps", required_argument, NULL, 'r' },   { "seed", required_argument, NULL, 's' },
        { "jobs", required_argument, NULL, 'j' },   { "quick", no_argument, NULL, 'q' },
        { "quiet", no_argument, NULL, 'Q' },        { "help", no_argument, NULL, 'h' },
        { "variant", required_argument, NULL, 'V' },
        { "plot", required_argument, NULL, 'P' },
        { "report", required_argument, NULL, 'R' },
        { "ci-target", required_argument, NULL, 'C' },
        { "max-reps", required_argument, NULL, 'M' },
        { "cpus", required_argument, NULL, 'c' },
        { "primary", required_argument, NULL, 'p' },
        { "per-cpu", no_argument, NULL, 'U' },
        { "interval", required_argument, NULL, 'I' },
        { "trace", required_argument, NULL, 'T' },
        { "trace-window", required_argument, NULL, 'W' },
        { "trace-max-mib", required_argument, NULL, 'X' },
        { "set", required_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    int64_t v;
    optind = 1;
    opterr = 0; /* cli_bad_option says it */
    while ((c = getopt_long(argc, argv, "f:o:r:s:j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': a->format = optarg; break;
        case 'o': a->output = optarg; break;
        case 'r':
            if (run_parse_int("--reps", optarg, 1, 1000, &v) != 0)
                return -1;
            a->opts.reps = (int)v;
            a->reps_set = true;
            break;
        case 'C':
            if (run_parse_pct("--ci-target", optarg, &a->opts.ci_target_pct) != 0)
                return -1;
            break;
        case 'M':
            if (run_parse_int("--max-reps", optarg, 2, 1000, &v) != 0)
                return -1;
            a->opts.max_reps = (int)v;
            a->max_reps_set = true;
            break;
        case 's':
            if (run_parse_int("--seed", optarg, 0, INT64_MAX, &v) != 0)
                return -1;
            a->opts.seed = (uint64_t)v;
            a->opts.seed_set = true;
            break;
        case 'j':
            if (run_parse_int("--jobs", optarg, 1, 4096, &v) != 0)
                return -1;
            a->opts.jobs = (int)v;
            break;
        case 'q': a->opts.quick = true; break;
        case 'P': a->plot_dir = optarg; break;
        case 'R': a->report_dir = optarg; break;
        case 'c': a->cpus = optarg; break;
        case 'U': a->per_cpu = true; break;
        case 'I':
            if (run_parse_int("--interval", optarg, 1, 3600000, &a->interval_ms) != 0)
                return -1;
            break;
        case 'T': a->trace_dir = optarg; break;
        case 'W':
            if (run_parse_trace_window(optarg, a->trace_window_ms) != 0)
                return -1;
            a->trace_window_given = true;
            break;
        case 'X':
            if (run_parse_int("--trace-max-mib", optarg, 1, 65536, &a->trace_max_mib) != 0)
                return -1;
            a->trace_max_given = true;
            break;
        case 'p': a->opts.primary = optarg; break;
        case 'V':
            if (a->nselect == RUN_MAX_SELECT) {
                fprintf(stderr, "pmlab run: at most %d --variant options\n", RUN_MAX_SELECT);
                return -1;
            }
            a->select[a->nselect++] = optarg;
            break;
        case 'S':
            if (a->nsets == RUN_MAX_SETS) {
                fprintf(stderr, "pmlab run: at most %d --set options\n", RUN_MAX_SETS);
                return -1;
            }
            a->sets[a->nsets++] = optarg;
            break;
        case 'Q': a->quiet = true; break;
        case 'h': return 1;
        default: return cli_bad_option("run", argv, longopts, "f:o:r:s:j:qh"), -1;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "pmlab run: expected exactly one scenario file (see 'pmlab run --help')\n");
        return -1;
    }
    a->scenario = argv[optind];
    return run_check_args(a);
}

/* Resolve --variant names into ascending scenario indices in sel. */
static int run_select_variants(const struct run_args *a, const struct scenario *s, int *sel)
{
    int n = 0;
    for (int v = 0; v < s->nvariants; v++)
        for (int i = 0; i < a->nselect; i++)
            if (strcmp(a->select[i], s->variants[v].name) == 0) {
                sel[n++] = v;
                break;
            }
    for (int i = 0; i < a->nselect; i++) {
        bool found = false;
        for (int v = 0; v < s->nvariants; v++)
            found |= strcmp(a->select[i], s->variants[v].name) == 0;
        if (!found) {
            fprintf(stderr, "pmlab run: --variant: %s has no variant '%s'\n", s->path, a->select[i]);
            return -1;
        }
    }
    return n;
}

/* Every place a run writes, and the watcher that undoes what is not in
 * place when the run is interrupted (cli/output.h). */
struct run_outputs {
    struct out_file file;      /* --output */
    struct out_dir plot, report;
    struct out_guard guard;
};

/* Undo what is not in place (the caller holds the guard's lock). */
static void run_abort_outputs(struct run_outputs *o)
{
    if (o->guard.file)
        out_file_abort(&o->file);
    for (int i = 0; i < o->guard.ndirs; i++)
        out_dir_abort(o->guard.dirs[i]);
}

/* Open every output before running, so a bad path fails at once: the
 * targets themselves are untouched until their content is complete. On
 * failure what was opened is discarded; run_close_outputs still follows. */
static int run_open_outputs(const struct run_args *a, struct run_outputs *o)
{
    memset(o, 0, sizeof *o);
    o->guard.cmd = "pmlab run";
    o->guard.report_pending = true;
    if (out_guard_start(&o->guard) != 0) {
        fprintf(stderr, "pmlab run: cannot start the signal watcher\n");
        return -1;
    }
    char msg[512];
    int rc = 0;
    pthread_mutex_lock(&o->guard.lock);
    if (a->plot_dir && out_dir_open(&o->plot, a->plot_dir, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: --plot: %s\n", msg);
        rc = -1;
    } else if (a->plot_dir) {
        o->guard.dirs[o->guard.ndirs++] = &o->plot;
    }
    if (rc == 0 && a->report_dir && out_dir_open(&o->report, a->report_dir, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: --report: %s\n", msg);
        rc = -1;
    } else if (rc == 0 && a->report_dir) {
        o->guard.dirs[o->guard.ndirs++] = &o->report;
    }
    if (rc == 0 && a->output && out_file_open(&o->file, a->output, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: --output: %s\n", msg);
        rc = -1;
    } else if (rc == 0 && a->output) {
        o->guard.file = &o->file;
    }
    if (rc != 0)
        run_abort_outputs(o);
    pthread_mutex_unlock(&o->guard.lock);
    return rc;
}

static void run_close_outputs(struct run_outputs *o)
{
    out_guard_stop(&o->guard);
    out_file_free(&o->file);
    out_dir_free(&o->plot);
    out_dir_free(&o->report);
}

/* The report, to stdout or into the --output temporary and then in place. */
static int run_report(const struct rpt_format *fmt, const struct rpt_results *r,
                      struct run_outputs *o, const char *path)
{
    char msg[512];
    int rc = 0;
    fmt->render(r, path ? o->file.f : stdout);
    if (!path && fflush(stdout) != 0) {
        fprintf(stderr, "pmlab run: error writing the report: %s\n", strerror(errno));
        rc = EXIT_RUN_FAILED;
    }
    if (path && out_file_commit(&o->file, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: %s (the previous contents are kept)\n", msg);
        rc = EXIT_RUN_FAILED;
    }
    o->guard.report_pending = false;
    return rc;
}

/* With --ci-target: one stderr line per variant that missed the target.
 * Printed even with --quiet: the report's precision is then not what was
 * asked for. */
static void run_ci_verdict(const struct run_args *a, const struct rpt_results *r)
{
    double target = a->opts.ci_target_pct;
    if (target <= 0)
        return;
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        double pct = runner_primary_ci_pct(var, r->primary);
        if (pct < target)
            continue;
        fprintf(stderr,
                "pmlab run: ci-target %g %% not reached for variant %s after %d replications: "
                "%.3g %% (%s)\n",
                target, var->name, r->reps, pct, r->primary ? r->primary : "-");
    }
}

/* One stderr line per saturated variant (even with --quiet: the run failed
 * to measure what it was asked to). Returns -1 if there was any. */
static int run_saturated(const struct rpt_results *r)
{
    int rc = 0;
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        if (!var->saturated)
            continue;
        const struct rpt_metric *m = rpt_variant_metric(var, r->served_metric);
        const char *unit = m ? m->unit : "";
        fprintf(stderr, "pmlab run: variant %s is saturated: offered %.0f %s, served %.0f %s\n",
                var->name, var->offered, unit, var->served, unit);
        rc = -1;
    }
    return rc;
}

/* One stderr warning per variant whose start-up transient outlasts the
 * warm-up (even with --quiet, as other warnings). */
static void run_warmup_warnings(const struct rpt_results *r)
{
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        if (var->warmup_short)
            fprintf(stderr, "pmlab run: warning: variant %s: the start-up transient lasts about "
                            "%.0f ms (MSER-5), longer than the %.0f ms warm-up; raise warmup_ms\n",
                    var->name, var->transient_ms, var->warmup_ms);
    }
}

/* One stderr line per variant with metrics that have no value in some
 * replication (NaN: a window in which no request completed has no latency),
 * since those get no mean, CI or verdict. Printed even with --quiet. */
static void run_warn_no_value(const struct rpt_results *r)
{
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        int most = 0, shown = 0;
        char names[400] = "";
        for (int i = 0; i < var->nmetrics; i++) {
            const struct rpt_metric *m = &var->metrics[i];
            int nan = 0;
            for (int k = 0; k < m->n; k++)
                nan += isnan(m->values[k]);
            if (!nan)
                continue;
            most = nan > most ? nan : most;
            size_t len = strlen(names);
            if (shown++ < 8)
                snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", m->name);
        }
        if (shown)
            fprintf(stderr, "pmlab run: warning: variant %s: %s%s without a value in %d of %d "
                    "replications (nothing to measure in the window, e.g. no request completed): "
                    "no mean, CI or verdict\n", var->name, names, shown > 8 ? ", ..." : "", most,
                    r->reps);
    }
}

/* The one-line summary: runs, events, speed, replications, memory. */
static void run_summary(const struct scenario *s, const struct runner_stats *st)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = st->wall_s > 0 ? st->wall_s : 1e-9;
    fprintf(stderr,
            "pmlab: %s: %d runs (%d replications), %.3g events in %.2f s (%.2f M events/s, "
            "%.3g simulated s per wall s), peak RSS %ld kB\n",
            s->name, st->njobs, st->reps, (double)st->nevents, st->wall_s,
            (double)st->nevents / wall / 1e6, st->sim_s / wall, ru.ru_maxrss);
}

/* Plots into stage (shown as dir); a missing gnuplot is a message, not a
 * failure. */
static int run_plots(const struct rpt_results *r, const char *stage, const char *dir, bool quiet)
{
    char msg[512] = "";
    int n = rpt_plot_all(r, stage, msg, sizeof msg);
    if (n < 0) {
        fprintf(stderr, "pmlab run: plots in %s: %s\n", dir, msg);
        return EXIT_RUN_FAILED;
    }
    if (n == 0 && msg[0])
        fprintf(stderr, "pmlab run: %s\n", msg);
    else if (!quiet)
        fprintf(stderr, "pmlab run: %d plots (PNG and SVG) in %s\n", n, dir);
    return 0;
}

/* report.md and report.html in stage (shown as dir), with plots rendered
 * there too. */
static int run_write_report(const struct scenario *s, const struct rpt_results *r,
                            const char *stage, const char *dir, bool quiet)
{
    int rc = run_plots(r, stage, dir, true);
    struct explain *ex = calloc((size_t)r->nvariants, sizeof *ex);
    int base = -1;
    for (int v = 0; v < r->nvariants; v++)
        for (int k = 0; k < s->nvariants; k++)
            if (strcmp(s->variants[k].name, r->variants[v].name) == 0) {
                if (base < 0)
                    base = k;
                cli_explain_marked(s, k, base, &ex[v]);
            }
    char msg[512];
    if (rc == 0 && rpt_write_report(r, ex, stage, stage, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: report in %s: %s\n", dir, msg);
        rc = EXIT_RUN_FAILED;
    } else if (!quiet) {
        fprintf(stderr, "pmlab run: report in %s/report.md and %s/report.html\n", dir, dir);
    }
    for (int v = 0; v < r->nvariants; v++)
        explain_free(&ex[v]);
    free(ex);
    return rc;
}

/* Fill d's staging directory with write(), then move it into place, or
 * discard it; 0 or EXIT_RUN_FAILED. */
static int run_commit_dir(struct out_dir *d, int rc, const char *opt)
{
    char msg[512];
    if (rc != 0) {
        out_dir_abort(d);
        fprintf(stderr, "pmlab run: %s: %s/ not written (the previous contents are kept)\n", opt,
                d->target);
        return EXIT_RUN_FAILED;
    }
    if (out_dir_commit(d, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: %s: %s\n", opt, msg);
        return EXIT_RUN_FAILED;
    }
    return 0;
}

/* Everything a finished run writes, each output put in place on its own:
 * one that fails leaves its target as it was and the others still land. */
static int run_write_outputs(const struct run_args *a, const struct scenario *s,
                             const struct rpt_results *r, const struct rpt_format *fmt,
                             struct run_outputs *o)
{
    int rc = run_report(fmt, r, o, a->output);
    run_ci_verdict(a, r);
    run_warn_no_value(r);
    run_warmup_warnings(r);
    if (run_saturated(r) != 0)
        rc = EXIT_RUN_FAILED;
    if (a->plot_dir &&
        run_commit_dir(&o->plot, run_plots(r, o->plot.stage, a->plot_dir, a->quiet), "--plot"))
        rc = EXIT_RUN_FAILED;
    if (a->report_dir &&
        run_commit_dir(&o->report, run_write_report(s, r, o->report.stage, a->report_dir, a->quiet),
                       "--report"))
        rc = EXIT_RUN_FAILED;
    return rc;
}

static int run_main(int argc, char **argv)
{
    struct run_args a = { .format = "table", .trace_window_ms = { 0, -1 }, .trace_max_mib = 256 };
    int prc = run_parse_args(argc, argv, &a);
    if (prc != 0)
        return prc > 0 ? (run_usage(), 0) : EXIT_BAD_INPUT;
    const struct rpt_format *fmt = rpt_format_find(a.format);
    if (!fmt) {
        fprintf(stderr, "pmlab run: --format: '%s' is not one of: table json csv\n", a.format);
        return EXIT_BAD_INPUT;
    }
    struct diag d = { 0 };
    struct scenario_load_opts lo = { .sets = a.sets, .nsets = a.nsets };
    struct scenario *s = scenario_load(a.scenario, &lo, &d);
    if (!s) {
        fprintf(stderr, "%s\n", d.msg);
        return EXIT_BAD_INPUT;
    }
    char msg[600];
    if (a.cpus && scenario_set_report_cpus(s, a.cpus, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: --cpus: %s\n", msg);
        scenario_free(s);
        return EXIT_BAD_INPUT;
    }
    s->report_per_cpu = a.per_cpu;
    s->report_interval_ms = a.interval_ms;
    run_trace_settings(&a, s);
    if (s->trace_dir && run_trace_dir(s->trace_dir) != 0) {
        scenario_free(s);
        return EXIT_BAD_INPUT;
    }
    int sel[RUN_MAX_SELECT];
    if (a.nselect) {
        a.opts.nvariants = run_select_variants(&a, s, sel);
        if (a.opts.nvariants < 0) {
            scenario_free(s);
            return EXIT_BAD_INPUT;
        }
        a.opts.variants = sel;
    }
    struct scenario_inputs in;
    scenario_input_files(s, &in);
    if (a.output && out_check_not_inputs("--output", a.output, in.path, in.what, in.n, msg,
                                         sizeof msg) != 0) {
        fprintf(stderr, "pmlab run: %s\n", msg);
        scenario_free(s);
        return EXIT_BAD_INPUT;
    }
    struct run_outputs o;
    if (run_open_outputs(&a, &o) != 0) {
        run_close_outputs(&o);
        scenario_free(s);
        return EXIT_BAD_INPUT;
    }
    a.opts.progress = !a.quiet && isatty(STDERR_FILENO);
    a.opts.warn_long = true; /* a warning: said even with --quiet */
    struct rpt_results r;
    struct runner_stats st;
    char err[512];
    int rc = runner_run(s, &a.opts, &r, &st, err, sizeof err);
    /* From here to the end the outputs are written: an interruption waits
     * for them to be in place or discarded. */
    pthread_mutex_lock(&o.guard.lock);
    if (rc != 0) {
        fprintf(stderr, "pmlab run: %s: %s\n", a.scenario, err);
        run_abort_outputs(&o);
        rc = rc == RUNNER_BAD_PRIMARY ? EXIT_BAD_INPUT : EXIT_RUN_FAILED;
    } else {
        rc = run_write_outputs(&a, s, &r, fmt, &o);
        if (!a.quiet)
            run_summary(s, &st);
        rpt_results_free(&r);
    }
    pthread_mutex_unlock(&o.guard.lock);
    run_close_outputs(&o);
    scenario_free(s);
    return rc;
}

const struct cli_command cli_run_command = {
    .name = "run",
    .summary = "run a scenario file and compare its variants",
    .main = run_main,
    .usage = run_usage,
};
