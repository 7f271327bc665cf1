/* x86 idle selection on the command line (arch/x86/kernel/process.c):
 * idle=poll|halt|nomwait. Any idle= keeps intel_idle from loading
 * (FACTS.md §1 [S3]). Choice 0 ("") is "not given". */
#include <stddef.h>

#include "kernel/params.h"

static const char *const x86_idle_choices[] = { "", "poll", "halt", "nomwait", NULL };

const struct kparam x86_idle_params[] = {
    {
        .name = "idle", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = x86_idle_choices,
        .def = "", .unit = "", .since = "2.6.0",
        .desc = "poll: spin instead of idling; halt: HLT only, no cpuidle driver; nomwait: no MWAIT-based states",
    },
    { .name = NULL },
};
