/* libFuzzer target: a kernel command line. Splits it by the kernel's rules,
 * applies every word to a default 6.12 kernel's settings (unknown words are
 * warnings, bad values errors) and, when all apply, checks them against the
 * skx-2s machine as a scenario's variant is (CPU globs, idle, cpufreq). */
#define _GNU_SOURCE /* memfd_create */
#define FUZZ_OWN_INIT
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "hw/machine.h"
#include "kernel/cmdline.h"
#include "kernel/cpufreq/cpufreq.h"
#include "kernel/params.h"
#include "kernel/sched/idle.h"
#include "kernel/x86/bugs.h"
#include "kernel/x86/itmt.h"

/* The machine every input is checked against, loaded once: a harness's
 * only state, read-only after LLVMFuzzerInitialize (loading it per input
 * cut the rate tenfold). */
static struct hw_machine *fuzz_machine;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_like_main();
    struct diag d = { 0 };
    fuzz_machine = hw_machine_load("machines/skx-2s.ini", &d);
    if (!fuzz_machine)
        abort(); /* run from the repository root */
    return 0;
}

/* Resolve kp on skx-2s as scenario loading does. */
static void fuzz_resolve(const struct kparams *kp)
{
    const struct hw_machine *m = fuzz_machine;
    struct diag d = { 0 };
    if (kparams_check_cpus(kp, m->ncpus, "fuzz", &d) == 0 && idle_validate(m, kp, "fuzz", &d) == 0 &&
        itmt_validate(m, kp, "fuzz", &d) == 0 && cpufreq_validate(m, kp, "fuzz", &d) == 0)
        (void)x86_spectre_v2_select_mitigation(m, kp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct cmdline c;
    char msg[200];
    if (cmdline_split(text, &c, msg, sizeof msg) == 0) {
        struct kparams kp;
        kparams_init(&kp);
        struct diag d = { 0 };
        int rc = 0;
        for (int i = 0; i < c.nargs && rc == 0; i++)
            rc = kparams_set_cmdline(&kp, c.args[i].name, c.args[i].value, "fuzz", 1, &d);
        if (rc == 0)
            fuzz_resolve(&kp);
        kparams_destroy(&kp);
        cmdline_free(&c);
    }
    free(text);
    return 0;
}
