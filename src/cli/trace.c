/* trace: `pmlab trace stats TRACE`: idlestat-like statistics of a trace-cmd
 * recording of a real system; `pmlab trace whatif TRACE`: its idle periods
 * through another governor and table; `pmlab trace tasks TRACE`: the tasks a
 * replay (type = replay) would run (src/trace/). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/machine.h"
#include "kernel/cpuidle/driver.h"
#include "kernel/params.h"
#include "scenario/machine_path.h"
#include "trace/replay.h"
#include "trace/trace.h"
#include "util/strutil.h"
#include "util/xalloc.h"

static void trace_usage(void)
{
    printf("usage: pmlab trace stats TRACE [--target-residency-us LIST] [--format text|json]\n"
           "       pmlab trace whatif TRACE --governor G (--machine M | --target-residency-us\n"
           "                          LIST --exit-latency-us LIST) [--kernel V] [--hz N]\n"
           "       pmlab trace tasks TRACE\n"
           "\n"
           "Read a trace-cmd recording (trace.dat, through libtracecmd) and print what the\n"
           "real system did, as idlestat does: per CPU and idle state, the entries (hits),\n"
           "the periods whose exit is in the trace, their total, average, minimum and\n"
           "maximum residency, and with an idle table the periods above (shorter than the\n"
           "state's target residency) and below (long enough for the next state's); per\n"
           "CPU the busy time, the time its state is unknown (before its first cpu_idle\n"
           "event, after lost events) and the wake-ups by source (timer, ipi, irq, task,\n"
           "unknown); and per CPU the time at each cpu_frequency value. Lost events and a\n"
           "file that ends early are said, with what was dropped.\n"
           "\n"
           "  --target-residency-us LIST  the idle table: target residency of states 0, 1,\n"
           "                              ... in us, comma-separated, as\n"
           "                              /sys/devices/system/cpu/cpu0/cpuidle/stateN/residency\n"
           "                              reads on the traced machine\n"
           "  --format F                  text (default) or json: the same numbers, with\n"
           "                              state_hits (entries per state, all CPUs)\n"
           "\n"
           "The trace needs power:cpu_idle; power:cpu_frequency, sched:sched_switch,\n"
           "sched:sched_wakeup, irq, ipi and timer events add the frequency and wake-up\n"
           "columns.\n"
           "\n"
           "whatif replays the trace's own idle periods through cpuidle governor G (menu,\n"
           "teo, ladder) choosing from the table the two lists give (states 0, 1, ...), and\n"
           "prints per CPU and state the real governor's entries, time, above and below\n"
           "beside G's, both counted by the kernel's rule. The periods keep their recorded\n"
           "lengths; the sleep length G is told is the observed length (exact for a timer\n"
           "wake-up, optimistic otherwise); the tick runs at --hz (default 250); no energy\n"
           "(the table has no state powers).\n"
           "  --governor G          menu, teo or ladder\n"
           "  --machine M           the table the cpuidle driver registers on machine M (a\n"
           "                        name as pmlab run finds it, or a file) under kernel V;\n"
           "                        the trace's state N is the table's state N\n"
           "  --exit-latency-us LIST  exit latency of states 0, 1, ... in us\n"
           "                          (cpuidle stateN/latency)\n"
           "  --kernel V            governor behaviour of kernel V (default 6.12)\n"
           "  --hz N                CONFIG_HZ of the traced kernel (default 250)\n"
           "\n"
           "tasks prints what a replay ([workload] type = replay, docs/scenario-files.md)\n"
           "takes from the trace: per task (pid, comm; not the idle task) its first CPU,\n"
           "start, switch-ins (slices), run bursts (on-CPU time up to a blocking\n"
           "switch-out), busy time, sleeps of a recorded length and waits on another\n"
           "task's wake-up; and the wake-ups by what woke the task. It needs\n"
           "sched:sched_switch; record with\n"
           "  trace-cmd record -e sched:sched_switch -e sched:sched_wakeup\n"
           "    -e sched:sched_wakeup_new -e sched:sched_waking -e sched:sched_process_fork\n"
           "    -e sched:sched_process_exit -e irq:irq_handler_entry\n"
           "    -e timer:hrtimer_expire_entry -e power:cpu_frequency\n"
           "Without wake-up events every sleep keeps its recorded length (no dependency).\n"
           "\n"
           "A gzipped trace (trace.dat.gz) is read as well.\n"
           "\n"
           "Exit status 2: not a trace.dat, no cpu_idle events (stats, whatif) or no\n"
           "sched_switch events (tasks), a bad option.\n");
}

/* "1,2000,2500" into res[]; the count, or -1. */
static int trace_parse_table(const char *text, int64_t *res, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char num[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof num || n == max)
            return -1;
        memcpy(num, p, len);
        num[len] = 0;
        if (str_to_i64(num, &res[n]) != 0 || res[n] < 0)
            return -1;
        n++;
        p += len + (p[len] == ',');
    }
    return n;
}

/* The one TRACE argument after the options, read into td. -1 when absent or
 * unreadable, said on stderr. */
static int trace_load_arg(const char *sub, int argc, char **argv, struct trace_data *td)
{
    if (argc - optind != 1) {
        fprintf(stderr, "pmlab trace %s: expected one TRACE file (pmlab trace --help)\n", sub);
        return -1;
    }
    struct diag d = { 0 };
    if (trace_read(argv[optind], td, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        trace_data_free(td);
        return -1;
    }
    return 0;
}

static int trace_stats_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "target-residency-us", required_argument, NULL, 'r' },
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int64_t res[TRACE_MAX_STATES];
    int nres = 0, c;
    bool json = false;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h')
            return trace_usage(), 0;
        if (c == 'f') {
            json = strcmp(optarg, "json") == 0;
            if (!json && strcmp(optarg, "text") != 0) {
                fprintf(stderr, "pmlab trace stats: --format %s: expected text or json\n", optarg);
                return EXIT_BAD_INPUT;
            }
            continue;
        }
        if (c != 'r')
            return cli_bad_option("trace stats", argv, longopts, "h");
        nres = trace_parse_table(optarg, res, TRACE_MAX_STATES);
        if (nres <= 0) {
            fprintf(stderr, "pmlab trace stats: --target-residency-us %s: expected up to %d "
                    "comma-separated whole numbers of us\n", optarg, TRACE_MAX_STATES);
            return EXIT_BAD_INPUT;
        }
    }
    struct trace_data td;
    if (trace_load_arg("stats", argc, argv, &td) != 0)
        return EXIT_BAD_INPUT;
    struct trace_stats s;
    trace_stats_compute(&td, res, nres, &s);
    int rc = 0;
    if (json)
        rc = trace_stats_json(stdout, &td, &s) == 0 ? 0 : EXIT_FAILURE;
    else
        trace_stats_print(stdout, &td, &s);
    trace_stats_free(&s);
    trace_data_free(&td);
    return rc;
}

/* The table from the two lists (same length). -1 with a message. */
static int trace_whatif_table(struct cpuidle_driver *drv, const int64_t *res, int nres,
                              const int64_t *lat, int nlat)
{
    if (nres <= 0 || nres != nlat || nres > CPUIDLE_STATE_MAX) {
        fprintf(stderr, "pmlab trace whatif: --target-residency-us and --exit-latency-us must "
                "give the same number of states, 1 to %d\n", CPUIDLE_STATE_MAX);
        return -1;
    }
    memset(drv, 0, sizeof *drv);
    snprintf(drv->name, sizeof drv->name, "trace-table");
    drv->state_count = nres;
    for (int i = 0; i < nres; i++) {
        struct cpuidle_state *st = &drv->states[i];
        snprintf(st->name, sizeof st->name, "state%u", (unsigned)i % CPUIDLE_STATE_MAX);
        st->target_residency_ns = res[i] * 1000;
        st->exit_latency_ns = lat[i] * 1000;
        st->enter = CPUIDLE_ENTER_MWAIT;
    }
    return 0;
}

/* The table the cpuidle driver registers on machine name_or_path under
 * kernel, as pmlab run builds it; source: "DRIVER on M: where from". -1
 * with a message. */
static int trace_machine_table(const char *name_or_path, const struct kversion *kernel,
                               struct cpuidle_driver *drv, char *source, size_t sourcesize)
{
    char *dirs = scn_machine_search_path(NULL);
    bool is_path = strchr(name_or_path, '/') || strstr(name_or_path, ".ini");
    char *path = is_path ? xstrdup(name_or_path) : hw_machine_find_path(name_or_path, dirs);
    if (!path) {
        fprintf(stderr, "pmlab trace whatif: --machine %s: unknown machine (looked for %s.ini "
                "in %s)\n", name_or_path, name_or_path, dirs);
        free(dirs);
        return -1;
    }
    free(dirs);
    struct diag d = { 0 };
    struct hw_machine *m = cli_machine_load(path, &d);
    free(path);
    if (!m) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    struct kparams kp;
    kparams_init(&kp);
    kp.kernel = *kernel;
    struct cpuidle_probe_result r;
    int rc = cpuidle_driver_probe(m, &kp, drv, &r);
    if (rc != 0)
        fprintf(stderr, "pmlab trace whatif: --machine %s: no cpuidle driver registers: %s\n",
                name_or_path, r.why_not);
    else
        snprintf(source, sourcesize, "%s on %s: %s", drv->name, m->name, r.source);
    kparams_destroy(&kp);
    hw_machine_free(m);
    return rc == 0 ? 0 : -1;
}

static int trace_whatif_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "governor", required_argument, NULL, 'g' },
        { "target-residency-us", required_argument, NULL, 'r' },
        { "exit-latency-us", required_argument, NULL, 'l' },
        { "kernel", required_argument, NULL, 'k' },
        { "hz", required_argument, NULL, 'z' },
        { "machine", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int64_t res[TRACE_MAX_STATES], lat[TRACE_MAX_STATES];
    int nres = 0, nlat = 0, c;
    const char *gov = NULL, *kernel = "6.12", *machine = NULL;
    int64_t hz = 250;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        if (c == 'h')
            return trace_usage(), 0;
        else if (c == 'g')
            gov = optarg;
        else if (c == 'k')
            kernel = optarg;
        else if (c == 'm')
            machine = optarg;
        else if (c == 'z')
            bad = str_to_i64(optarg, &hz) != 0 || hz < 24 || hz > 10000;
        else if (c == 'r')
            bad = (nres = trace_parse_table(optarg, res, TRACE_MAX_STATES)) <= 0;
        else if (c == 'l')
            bad = (nlat = trace_parse_table(optarg, lat, TRACE_MAX_STATES)) <= 0;
        else
            return cli_bad_option("trace whatif", argv, longopts, "h");
        if (bad) {
            fprintf(stderr, "pmlab trace whatif: %s: bad value '%s'\n", argv[optind - 1], optarg);
            return EXIT_BAD_INPUT;
        }
    }
    struct trace_whatif_opts o = { .hz = (int)hz };
    o.gov = gov ? cpuidle_find_governor(gov) : NULL;
    if (!o.gov || strcmp(gov, "haltpoll") == 0) {
        fprintf(stderr, "pmlab trace whatif: --governor %s: expected menu, teo or ladder\n",
                gov ? gov : "(missing)");
        return EXIT_BAD_INPUT;
    }
    if (kversion_parse(kernel, &o.kernel) != 0) {
        fprintf(stderr, "pmlab trace whatif: --kernel %s: expected a version like 6.12\n", kernel);
        return EXIT_BAD_INPUT;
    }
    char source[CPUIDLE_SOURCE_LEN + 2 * HW_NAME_MAX];
    if (machine && (nres || nlat)) {
        fprintf(stderr, "pmlab trace whatif: --machine gives the table: no --target-residency-us "
                "or --exit-latency-us with it\n");
        return EXIT_BAD_INPUT;
    }
    if (machine) {
        if (trace_machine_table(machine, &o.kernel, &o.drv, source, sizeof source) != 0)
            return EXIT_BAD_INPUT;
        o.table_from = source;
    } else if (trace_whatif_table(&o.drv, res, nres, lat, nlat) != 0) {
        return EXIT_BAD_INPUT;
    }
    struct trace_data td;
    if (trace_load_arg("whatif", argc, argv, &td) != 0)
        return EXIT_BAD_INPUT;
    struct trace_whatif w;
    trace_whatif_run(&td, &o, &w);
    trace_whatif_print(stdout, &td, &o, &w);
    trace_whatif_free(&w);
    trace_data_free(&td);
    return 0;
}

static int trace_tasks_main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return trace_usage(), 0;
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "pmlab trace tasks: expected one TRACE file (pmlab trace --help)\n");
        return EXIT_BAD_INPUT;
    }
    struct trace_model m;
    struct diag d = { 0 };
    if (trace_model_load(argv[1], &m, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        return EXIT_BAD_INPUT;
    }
    trace_model_print(stdout, &m);
    trace_model_free(&m);
    return 0;
}

static int trace_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        trace_usage();
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    if (strcmp(argv[1], "stats") == 0)
        return trace_stats_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "whatif") == 0)
        return trace_whatif_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "tasks") == 0)
        return trace_tasks_main(argc - 1, argv + 1);
    fprintf(stderr, "pmlab trace: unknown subcommand '%s' (stats, whatif, tasks)\n", argv[1]);
    return EXIT_BAD_INPUT;
}

const struct cli_command cli_trace_command = {
    .name = "trace",
    .summary = "a trace-cmd recording: statistics (stats), other governors (whatif), tasks",
    .main = trace_main,
    .usage = trace_usage,
};
