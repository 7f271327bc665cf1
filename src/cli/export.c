/* export: `pmlab export DB --format csv|jsonl`: a sweep database as
 * long-form (tidy) rows, one per point, variant, replication and metric,
 * with a column per grid key, for pandas or R. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "sweep/store.h"
#include "sweep/summary.h"

static void export_usage(void)
{
    printf("usage: pmlab export DB [--format csv|jsonl] [--output FILE]\n"
           "\n"
           "Write the results of a sweep database ('pmlab sweep') as long-form rows, one per\n"
           "point, variant, replication and metric: point, one column per grid key, variant,\n"
           "replication, metric, unit, value (empty in CSV, null in JSONL: no value). Rows\n"
           "come in point, variant, replication order, so two databases with the same\n"
           "results export the same bytes.\n"
           "\n"
           "options:\n"
           "  --format csv|jsonl  (default csv)\n"
           "  --output FILE       write to FILE (whole or not at all) instead of stdout\n"
           "  -h, --help          this text\n");
}

struct export_ctx {
    FILE *out;
    const struct store_reader *rd;
    bool jsonl;
};

static int export_row(void *arg, const struct store_row *row)
{
    struct export_ctx *x = arg;
    if (x->jsonl) {
        json_t *o = json_object();
        json_object_set_new(o, "point", json_integer(row->point));
        for (int i = 0; i < x->rd->naxes; i++)
            json_object_set_new(o, x->rd->axis_keys[i], json_string(row->axis_values[i]));
        json_object_set_new(o, "variant", json_string(row->variant_name));
        json_object_set_new(o, "replication", json_integer(row->replication));
        json_object_set_new(o, "metric", json_string(row->metric));
        json_object_set_new(o, "unit", json_string(row->unit));
        json_object_set_new(o, "value", isfinite(row->value) ? json_real(row->value) : json_null());
        char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        fprintf(x->out, "%s\n", line);
        free(line);
        json_decref(o);
        return 0;
    }
    fprintf(x->out, "%ld", row->point);
    for (int i = 0; i < x->rd->naxes; i++) {
        fputc(',', x->out);
        sweep_csv_field(x->out, row->axis_values[i]);
    }
    fputc(',', x->out);
    sweep_csv_field(x->out, row->variant_name);
    fprintf(x->out, ",%d,%s,%s,", row->replication, row->metric, row->unit);
    if (isfinite(row->value))
        fprintf(x->out, "%.17g", row->value);
    fputc('\n', x->out);
    return 0;
}

static int export_write(const struct store_reader *rd, FILE *out, bool jsonl)
{
    /* Every row checked before the first is written: a bad one stops the
     * export with nothing on stdout, not after half of it. */
    if (store_reader_check((struct store_reader *)rd) != 0)
        return -1;
    if (!jsonl) {
        fputs("point", out);
        for (int i = 0; i < rd->naxes; i++) {
            fputc(',', out);
            sweep_csv_field(out, rd->axis_keys[i]);
        }
        fputs(",variant,replication,metric,unit,value\n", out);
    }
    struct export_ctx x = { .out = out, .rd = rd, .jsonl = jsonl };
    return store_reader_rows((struct store_reader *)rd, export_row, &x);
}

static int export_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    const char *format = "csv", *output = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:o:h", longopts, NULL)) != -1) {
        if (c == 'h')
            return export_usage(), 0;
        if (c == 'f')
            format = optarg;
        else if (c == 'o')
            output = optarg;
        else
            return cli_bad_option("export", argv, longopts, "f:o:h");
    }
    if (optind != argc - 1) {
        fprintf(stderr, "pmlab export: expected exactly one database (see 'pmlab export --help')\n");
        return EXIT_BAD_INPUT;
    }
    if (strcmp(format, "csv") != 0 && strcmp(format, "jsonl") != 0) {
        fprintf(stderr, "pmlab export: --format: '%s' is not one of: csv jsonl\n", format);
        return EXIT_BAD_INPUT;
    }
    char msg[512];
    if (output && out_check_not_input("--output", output, "the database", argv[optind], msg,
                                      sizeof msg) != 0) {
        fprintf(stderr, "pmlab export: %s\n", msg);
        return EXIT_BAD_INPUT;
    }
    struct store_reader rd;
    int status = store_reader_open(&rd, argv[optind], msg, sizeof msg);
    if (status != 0) {
        fprintf(stderr, "pmlab export: %s\n", msg);
        return status;
    }
    struct out_file file = { 0 };
    int rc = 0;
    if (output && out_file_open(&file, output, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab export: --output: %s\n", msg);
        rc = EXIT_BAD_INPUT;
    } else if (export_write(&rd, output ? file.f : stdout, strcmp(format, "jsonl") == 0) != 0) {
        /* Rows already written to stdout stay there: the exit status says
         * they are not the whole database. */
        fprintf(stderr, "pmlab export: %s\n", rd.err);
        if (output)
            out_file_abort(&file);
        rc = rd.status ? rd.status : EXIT_RUN_FAILED;
    } else if (output && out_file_commit(&file, msg, sizeof msg) != 0) {
        fprintf(stderr, "pmlab export: %s\n", msg);
        rc = EXIT_RUN_FAILED;
    }
    out_file_free(&file);
    store_reader_close(&rd);
    return rc;
}

const struct cli_command cli_export_command = {
    .name = "export",
    .summary = "write a sweep database as long-form CSV or JSON lines",
    .main = export_main,
    .usage = export_usage,
};
