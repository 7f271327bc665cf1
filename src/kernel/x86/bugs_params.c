/* Spectre v2 / Retbleed knobs on the command line
 * (arch/x86/kernel/cpu/bugs.c, Documentation/admin-guide/kernel-parameters.txt).
 * pmlab needs them only to decide whether kernel IBRS is on (bugs.c). Values
 * such as "retpoline,generic" hold a comma inside one value; the command-line
 * splitter keeps it. Choice availability varies by kernel (ibrs since 5.19,
 * eibrs* and retpoline,lfence since 5.17); an option the variant's kernel does
 * not know is accepted here and treated as the kernel does: "unknown option",
 * auto. */
#include <stddef.h>

#include "kernel/params.h"

static const char *const spectre_v2_choices[] = {
    "auto", "off", "on", "retpoline", "retpoline,generic", "retpoline,lfence", "retpoline,amd",
    "eibrs", "eibrs,retpoline", "eibrs,lfence", "ibrs", NULL,
};

static const char *const retbleed_choices[] = {
    "auto", "off", "unret", "ibpb", "unret,nosmt", "ibpb,nosmt", "nosmt", "stuff", "force", NULL,
};

static const char *const mitigations_choices[] = { "auto", "off", "auto,nosmt", NULL };

const struct kparam x86_bugs_params[] = {
    {
        .name = "spectre_v2", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = spectre_v2_choices,
        .def = "auto", .unit = "", .since = "4.15",
        .desc = "Spectre v2 mitigation; ibrs = legacy kernel IBRS (5.19+), auto picks eIBRS, else IBRS on Retbleed-affected Intel (Skylake), else retpoline",
    },
    {
        .name = "nospectre_v2", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_BOOL, .scope = KPARAM_GLOBAL,
        .def = "0", .unit = "", .since = "4.15",
        .desc = "same as spectre_v2=off",
    },
    {
        .name = "retbleed", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = retbleed_choices,
        .def = "auto", .unit = "", .since = "5.19",
        .desc = "Retbleed mitigation; off (or stuff, 6.2+) keeps spectre_v2=auto from choosing IBRS on Skylake",
    },
    {
        .name = "mitigations", .sources = KPARAM_SRC_CMDLINE,
        .type = KPARAM_ENUM, .scope = KPARAM_GLOBAL, .choices = mitigations_choices,
        .def = "auto", .unit = "", .since = "5.2",
        .desc = "off disables every CPU vulnerability mitigation (then no kernel IBRS); auto,nosmt also turns SMT off on a part with the L1TF and MDS bugs (Skylake-SP and the Core generations to Coffee Lake)",
    },
    { .name = NULL },
};
