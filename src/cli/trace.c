/* trace: `pmlab trace stats TRACE`: idlestat-like statistics of a trace-cmd
 * recording of a real system; `pmlab trace whatif TRACE`: its idle periods
 * through another governor and table (src/trace/). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/trace.h"
#include "util/strutil.h"

static void trace_usage(void)
{
    printf("usage: pmlab trace stats TRACE [--target-residency-us LIST] [--format text|json]\n"
           "       pmlab trace whatif TRACE --governor G --target-residency-us LIST\n"
           "                          --exit-latency-us LIST [--kernel V] [--hz N]\n"
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
           "  --exit-latency-us LIST  exit latency of states 0, 1, ... in us\n"
           "                          (cpuidle stateN/latency)\n"
           "  --kernel V            governor behaviour of kernel V (default 6.12)\n"
           "  --hz N                CONFIG_HZ of the traced kernel (default 250)\n"
           "\n"
           "Exit status 2: not a trace.dat, no cpu_idle events, a bad option.\n");
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

static int trace_whatif_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "governor", required_argument, NULL, 'g' },
        { "target-residency-us", required_argument, NULL, 'r' },
        { "exit-latency-us", required_argument, NULL, 'l' },
        { "kernel", required_argument, NULL, 'k' },
        { "hz", required_argument, NULL, 'z' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int64_t res[TRACE_MAX_STATES], lat[TRACE_MAX_STATES];
    int nres = 0, nlat = 0, c;
    const char *gov = NULL, *kernel = "6.12";
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
    if (trace_whatif_table(&o.drv, res, nres, lat, nlat) != 0)
        return EXIT_BAD_INPUT;
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
    fprintf(stderr, "pmlab trace: unknown subcommand '%s' (stats, whatif)\n", argv[1]);
    return EXIT_BAD_INPUT;
}

const struct cli_command cli_trace_command = {
    .name = "trace",
    .summary = "a trace-cmd recording: statistics (stats), other governors (whatif)",
    .main = trace_main,
    .usage = trace_usage,
};
