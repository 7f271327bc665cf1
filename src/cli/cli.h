/* cli: the subcommands of the pmlab binary, one file each. Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the exit
 * status: 0 success, 1 a run failed, 2 bad input. */
#ifndef PMLAB_CLI_CLI_H
#define PMLAB_CLI_CLI_H

struct cli_command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
    void (*usage)(void);
};

extern const struct cli_command cli_run_command, cli_compare_command, cli_machines_command,
    cli_params_command, cli_explain_command, cli_trace_command, cli_import_command;
/* Sweeps and their results database (cli/sweep.c, export.c, merge.c). */
extern const struct cli_command cli_sweep_command, cli_export_command, cli_merge_command;

struct scenario;
struct explain;
/* The explain lines of scenario variant v (cli/explain.c). */
void cli_explain_collect(const struct scenario *s, int v, struct explain *x);
/* The same, each line prefixed "* " when it is not among base_v's, else "  ". */
void cli_explain_marked(const struct scenario *s, int v, int base_v, struct explain *out);

struct hw_machine;
struct diag;
/* The machine file at path, loaded and checked as pmlab run checks a
 * scenario's machine (intel_idle's rules included); NULL with d->msg
 * (cli/machines.c). */
struct hw_machine *cli_machine_load(const char *path, struct diag *d);

#define EXIT_RUN_FAILED 1
#define EXIT_BAD_INPUT 2

struct option;
/* After getopt_long returned '?' (with opterr = 0): print one line for the
 * bad option -- unknown (with "did you mean --X?" for a near miss),
 * ambiguous, or missing its value -- and return EXIT_BAD_INPUT (cli/options.c). */
int cli_bad_option(const char *cmd, char *const *argv, const struct option *longopts,
                   const char *shortopts);

#endif
