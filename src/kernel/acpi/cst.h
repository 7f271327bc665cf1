/* cst: the firmware's _CST as the kernel reads it (acpi_processor_evaluate_cst
 * in drivers/acpi/acpi_processor.c), shared by intel_idle's ACPI fallback and
 * acpi_idle (kernel/acpi/processor_idle.c).
 *
 * pmlab has no ACPI tables: the machine file's [firmware] cst_* keys are the
 * _CST, and for the client models below, where no file gives one, pmlab knows
 * Intel's reference set. One _CST serves every CPU: both drivers register one
 * state table for all CPUs (intel_idle from the first CPU with a usable _CST,
 * acpi_idle from the boot CPU's). */
#ifndef PMLAB_KERNEL_ACPI_CST_H
#define PMLAB_KERNEL_ACPI_CST_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/machine.h"

#define ACPI_CST_MAX 8

/* One _CST entry. */
struct acpi_cst_entry {
    int type;                   /* ACPI C-state type: 1, 2 or 3 */
    uint32_t mwait_hint;        /* the register's address: MWAIT hint (FFH) or I/O port */
    int64_t latency_us;         /* worst-case latency */
    enum hw_cst_method method;  /* FFH, SYSTEM_IO or HALT */
};

/* The _CST, in order. count 0: no _CST. */
struct acpi_cst {
    int count;
    struct acpi_cst_entry states[ACPI_CST_MAX];
};

/* m's _CST: the machine file's [firmware] cst_* when given (types from
 * cst_types, else C1, C2, then C3 by position; methods from cst_methods,
 * else FFH), else for ALDERLAKE* and RAPTORLAKE* Intel's reference set, else
 * none. Returns a phrase naming which, for messages. */
const char *acpi_evaluate_cst(const struct hw_machine *m, struct acpi_cst *cst);

/* Whether pmlab knows the firmware _CST of Intel cpu_model without a
 * machine file's [firmware] cst_* (the reference set above). */
bool acpi_cst_model_known(const char *cpu_model);

/* Name of the models of acpi_cst_model_known, i-th, or NULL past the end. */
const char *acpi_cst_known_model(size_t i);

#endif
