/* cst: the firmware _CST of a machine, see cst.h. */
#include "kernel/acpi/cst.h"

#include <stddef.h>
#include <string.h>

/* Models whose firmware _CST pmlab knows without a machine file's cst_*. */
static const char *const acpi_cst_models[] = {
    "ALDERLAKE", "ALDERLAKE_L", "ALDERLAKE_N", "ATOM_GRACEMONT",
    "RAPTORLAKE", "RAPTORLAKE_P", "RAPTORLAKE_S",
};

#define NMODELS (sizeof acpi_cst_models / sizeof acpi_cst_models[0])

bool acpi_cst_model_known(const char *cpu_model)
{
    for (size_t i = 0; i < NMODELS; i++)
        if (strcmp(acpi_cst_models[i], cpu_model) == 0)
            return true;
    return false;
}

const char *acpi_cst_known_model(size_t i)
{
    return i < NMODELS ? acpi_cst_models[i] : NULL;
}

/* Intel's reference _CST for Alder/Raptor Lake client parts with S0ix: C1
 * (MWAIT 0x00, 1 µs), C6 (0x21, 127 µs), C10 (0x60, 1048 µs) as types
 * C1/C2/C3, all FFH (coreboot src/soc/intel/alderlake: cstate_set_s0ix and
 * the C*_LATENCY values; a stock 6.4 kernel on a Raptor Lake-H ThinkPad lists
 * exactly POLL, C1_ACPI, C2_ACPI, C3_ACPI). */
static const struct acpi_cst_entry client_cst[] = {
    { 1, 0x00, 1, HW_CST_FFH },
    { 2, 0x21, 127, HW_CST_FFH },
    { 3, 0x60, 1048, HW_CST_FFH },
};

const char *acpi_evaluate_cst(const struct hw_machine *m, struct acpi_cst *cst)
{
    memset(cst, 0, sizeof *cst);
    if (m->fw.ncst > 0) {
        for (int i = 0; i < m->fw.ncst && i < ACPI_CST_MAX; i++)
            cst->states[cst->count++] = (struct acpi_cst_entry){
                .type = m->fw.ncst_type > 0 ? (int)m->fw.cst_type[i] : (i < 2 ? i + 1 : 3),
                .mwait_hint = m->fw.cst_mwait_hint[i],
                .latency_us = m->fw.cst_latency_us[i],
                .method = m->fw.cst_method[i],
            };
        return "the machine file's [firmware] cst_*";
    }
    if (strcmp(m->vendor, "intel") == 0 && acpi_cst_model_known(m->cpu_model)) {
        cst->count = (int)(sizeof client_cst / sizeof client_cst[0]);
        memcpy(cst->states, client_cst, sizeof client_cst);
        return "Intel's reference client _CST (coreboot alderlake; no [firmware] cst_* in the file)";
    }
    return "none";
}
