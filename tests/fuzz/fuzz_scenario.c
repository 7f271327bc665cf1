/* libFuzzer target: a scenario file. Loads it (every key, knob and VM
 * checked against machines/ of the working directory, as `pmlab explain`
 * does) and, when it loads, resolves every variant as explain shows it. */
#define _GNU_SOURCE /* memfd_create */
#include "cli/cli.h"
#include "fuzz_common.h"
#include "report/explain.h"
#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    struct scenario_load_opts opts = { .machine_dirs = "machines" };
    struct diag d = { 0 };
    struct scenario *s = scenario_load(path, &opts, &d);
    for (int v = 0; s && v < s->nvariants; v++) {
        struct explain x = { 0 };
        cli_explain_marked(s, v, 0, &x);
        explain_free(&x);
    }
    scenario_free(s);
    close(fd);
    return 0;
}
