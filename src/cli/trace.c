/* trace: `pmlab trace stats TRACE`: idlestat-like statistics of a trace-cmd
 * recording of a real system (src/trace/). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/trace.h"
#include "util/strutil.h"

static void trace_usage(void)
{
    printf("usage: pmlab trace stats TRACE [--target-residency-us LIST]\n"
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
           "\n"
           "The trace needs power:cpu_idle; power:cpu_frequency, sched:sched_switch,\n"
           "sched:sched_wakeup, irq, ipi and timer events add the frequency and wake-up\n"
           "columns. Exit status 2: not a trace.dat, no cpu_idle events, a bad option.\n");
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

static int trace_stats_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "target-residency-us", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int64_t res[TRACE_MAX_STATES];
    int nres = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h')
            return trace_usage(), 0;
        if (c != 'r')
            return cli_bad_option("trace stats", argv, longopts, "h");
        nres = trace_parse_table(optarg, res, TRACE_MAX_STATES);
        if (nres <= 0) {
            fprintf(stderr, "pmlab trace stats: --target-residency-us %s: expected up to %d "
                    "comma-separated whole numbers of us\n", optarg, TRACE_MAX_STATES);
            return EXIT_BAD_INPUT;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "pmlab trace stats: expected one TRACE file (pmlab trace --help)\n");
        return EXIT_BAD_INPUT;
    }
    struct trace_data td;
    struct diag d = { 0 };
    if (trace_read(argv[optind], &td, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        trace_data_free(&td);
        return EXIT_BAD_INPUT;
    }
    struct trace_stats s;
    trace_stats_compute(&td, res, nres, &s);
    trace_stats_print(stdout, &td, &s);
    trace_stats_free(&s);
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
    fprintf(stderr, "pmlab trace: unknown subcommand '%s' (stats)\n", argv[1]);
    return EXIT_BAD_INPUT;
}

const struct cli_command cli_trace_command = {
    .name = "trace",
    .summary = "statistics of a trace-cmd recording (trace stats)",
    .main = trace_main,
    .usage = trace_usage,
};
