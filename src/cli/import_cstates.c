/* import_cstates: the imported machine's hardware idle states (import.h).
 *
 * When the host ran intel_idle with its own table (every state past POLL an
 * "MWAIT 0x.." desc), the [cstate] sections are the host's: its names, its
 * MWAIT hints and its exit latencies, and no state the host lacks (a state
 * the kernel's table left unusable, like Alder Lake's C1, is not in sysfs and
 * is not added). pmlab splits an exit latency into a core part, paid on every
 * exit, and a package part, paid only when the package was in the matching
 * PC state (docs/machine-files.md); the host shows only the total, so the
 * split follows the nearest shipped machine's rule. Power, cache flushes,
 * refill times and the package states' power stay the nearest machine's and
 * are marked so. Other hosts (acpi_idle, intel_idle's ACPI fallback, no
 * dump) keep the nearest machine's hardware states as before: their sysfs
 * names are the driver's, not the hardware's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/import.h"
#include "util/xalloc.h"

/* Where a shipped machine's file splits by a rule of its own rather than by
 * its numbers: adl-desktop takes the core part of each state as the same
 * cores' total in the mobile table (the host's own table for an Alder Lake-P
 * host) times SKX's measured core-only share, 92 of 133 us (its [cstate]
 * comment; commit 64233338499126c5). Machines not listed split a host's
 * total in the ratio of their own core and package parts. */
static const struct {
    const char *machine;
    double core_share;
    const char *rule;
} imp_split_rules[] = {
    { "adl-desktop", 92.0 / 133.0,
      "split as adl-desktop's rule, core = total x SKX's core-only share 92/133" },
};

int imp_host_states(const struct imp_host *h, struct imp_host_state *st, int max)
{
    char *drv = imp_sysfs(h, "/sys/devices/system/cpu/cpuidle/current_driver");
    bool intel = drv && strcmp(drv, "intel_idle") == 0;
    free(drv);
    int n = 0;
    for (int s = 1; intel && s < IMP_IDLE_MAX_STATES && n < max; s++) {
        char *name = imp_state_file(h, s, "name");
        char *desc = imp_state_file(h, s, "desc");
        long long lat = imp_state_ll(h, s, "latency", -1);
        long long res = imp_state_ll(h, s, "residency", -1);
        bool ok = name && desc && strncmp(desc, "MWAIT 0x", 8) == 0 && !strstr(name, "_ACPI") &&
                  strlen(name) < sizeof st[n].name && lat >= 0;
        if (ok) {
            snprintf(st[n].name, sizeof st[n].name, "%s", name);
            snprintf(st[n].desc, sizeof st[n].desc, "%s", desc);
            st[n].mwait_hint = (uint32_t)strtoul(desc + 6, NULL, 16);
            st[n].latency_us = lat;
            st[n].residency_us = res;
            n++;
        }
        bool end = !name;
        bool foreign = !ok && !end;     /* a state pmlab cannot read as intel_idle's */
        free(name);
        free(desc);
        if (foreign)
            n = 0;
        if (end || foreign)
            break;
    }
    return n;
}

/* The nearest type's hardware state standing in for a host state: the same
 * name, else the same MWAIT hint, else the deepest of the same major
 * C-state (hint bits 7:4); NULL when none. */
static const struct hw_cstate *imp_near_cstate(const struct hw_core_type *nt,
                                               const struct imp_host_state *hs)
{
    for (int i = 0; i < nt->ncstates; i++)
        if (strcmp(nt->cstates[i].name, hs->name) == 0)
            return &nt->cstates[i];
    for (int i = 0; i < nt->ncstates; i++)
        if (nt->cstates[i].mwait_hint == hs->mwait_hint)
            return &nt->cstates[i];
    for (int i = nt->ncstates - 1; i >= 0; i--)
        if (nt->cstates[i].mwait_hint >> 4 == hs->mwait_hint >> 4)
            return &nt->cstates[i];
    return NULL;
}

static const struct hw_pkgstate *imp_near_pkgstate(const struct hw_machine *near, const char *core)
{
    for (int i = 0; i < near->npkgstates; i++)
        if (strcmp(near->pkgstates[i].core_cstate, core) == 0)
            return &near->pkgstates[i];
    return NULL;
}

/* The core part of host state hs's exit latency, us, and the rule (why).
 * One split per state name, from the nearest machine's first core type,
 * so every type's core part and the package state's part add up to the
 * host's total. */
static long long imp_core_part_us(const struct hw_machine *near, const struct imp_host_state *hs,
                                  char *why, size_t whysz)
{
    const struct hw_cstate *c = imp_near_cstate(&near->types[0], hs);
    const struct hw_pkgstate *p = imp_near_pkgstate(near, c ? c->name : hs->name);
    if (!c || !p) {
        snprintf(why, whysz, "all of it: %s has no package state entered from it", near->name);
        return hs->latency_us;
    }
    for (size_t i = 0; i < sizeof imp_split_rules / sizeof imp_split_rules[0]; i++)
        if (strcmp(near->name, imp_split_rules[i].machine) == 0) {
            snprintf(why, whysz, "estimate: %s", imp_split_rules[i].rule);
            return llround((double)hs->latency_us * imp_split_rules[i].core_share);
        }
    double core_ns = (double)c->exit_latency_ns, total_ns = core_ns + (double)p->exit_latency_ns;
    snprintf(why, whysz, "estimate: split as %s's ratio, core %g of %g us", near->name,
             core_ns / 1000.0, total_ns / 1000.0);
    return total_ns > 0 ? llround((double)hs->latency_us * core_ns / total_ns) : hs->latency_us;
}

/* The nearest machine's hardware states, as the import wrote them before
 * it read the host's table: for a host whose sysfs states are not
 * intel_idle's own. */
static void imp_write_near_cstates(FILE *f, char type, const struct hw_core_type *nt,
                                   const struct hw_machine *near)
{
    for (int i = 0; i < nt->ncstates; i++) {
        const struct hw_cstate *c = &nt->cstates[i];
        fprintf(f, "\n; estimated, from %s [cstate %s %s]\n", near->name, nt->name, c->name);
        fprintf(f, "[cstate %c %s]\nmwait_hint = 0x%02x\n", type, c->name, (unsigned)c->mwait_hint);
        if (c->io_port)
            fprintf(f, "io_port = 0x%x\n", (unsigned)c->io_port);
        fprintf(f, "exit_latency_us = %g\ncore_power_mw = %g\nflushes_caches = %s\nrefill_us = %g\n",
                (double)c->exit_latency_ns / 1000.0, c->core_power_mw,
                c->flushes_caches ? "yes" : "no", (double)c->refill_ns / 1000.0);
    }
}

void imp_write_cstates(FILE *f, const struct imp_host *h, char type, const struct hw_core_type *nt,
                       const struct hw_machine *near)
{
    struct imp_host_state st[IMP_IDLE_MAX_STATES];
    int n = imp_host_states(h, st, IMP_IDLE_MAX_STATES);
    if (n == 0) {
        imp_write_near_cstates(f, type, nt, near);
        return;
    }
    for (int i = 0; i < n; i++) {
        const struct hw_cstate *c = imp_near_cstate(nt, &st[i]);
        if (!c) {
            fprintf(f, "\n; host state %s (%s) left out: %s has no state to borrow its power "
                       "from\n", st[i].name, st[i].desc, near->name);
            fprintf(stderr, "pmlab import: warning: host state %s left out: no hardware state of "
                            "%s to borrow its power from\n", st[i].name, near->name);
            continue;
        }
        char why[200];
        long long core_us = imp_core_part_us(near, &st[i], why, sizeof why);
        fprintf(f, "\n; the host's %s (sysfs \"%s\", latency %lld us, residency %lld us);\n"
                   "; exit_latency_us: its core part,\n;   %s\n"
                   "; core_power_mw, flushes_caches, refill_us: estimated, from %s [cstate %s %s]\n",
                st[i].name, st[i].desc, st[i].latency_us, st[i].residency_us, why, near->name,
                nt->name, c->name);
        fprintf(f, "[cstate %c %s]\nmwait_hint = 0x%02x\nexit_latency_us = %lld\n", type,
                st[i].name, (unsigned)st[i].mwait_hint, core_us);
        fprintf(f, "core_power_mw = %g\nflushes_caches = %s\nrefill_us = %g\n", c->core_power_mw,
                c->flushes_caches ? "yes" : "no", (double)c->refill_ns / 1000.0);
    }
}

void imp_write_pkgstates(FILE *f, const struct imp_host *h, const struct hw_machine *near)
{
    struct imp_host_state st[IMP_IDLE_MAX_STATES];
    int n = imp_host_states(h, st, IMP_IDLE_MAX_STATES);
    for (int i = 0; i < near->npkgstates; i++) {
        const struct hw_pkgstate *p = &near->pkgstates[i];
        if (imp_host_lacks_pkgstate(h, p->name)) {
            fprintf(f, "\n; %s's %s left out: the host's turbostat has no column for it\n",
                    near->name, p->name);
            continue;
        }
        /* The host's latency of core state CN holds the package exit of the
         * matching PCN only; a shallower package state entered from it
         * (PC2, PC3 from C6) keeps the nearest machine's estimate. */
        bool matching = strcmp(p->name + 2, p->core_cstate + 1) == 0;
        if (n == 0 || !matching) {
            fprintf(f, "\n; estimated, from %s\n[pkgstate %s]\ncore_cstate = %s\n", near->name,
                    p->name, p->core_cstate);
            fprintf(f, "exit_latency_us = %g\npkg_power_mw = %g\n",
                    (double)p->exit_latency_ns / 1000.0, p->pkg_power_mw);
            continue;
        }
        const struct imp_host_state *hs = NULL;
        for (int k = 0; k < n && !hs; k++) {
            const struct hw_cstate *c = imp_near_cstate(&near->types[0], &st[k]);
            if (c && strcmp(c->name, p->core_cstate) == 0)
                hs = &st[k];
        }
        if (!hs) {
            fprintf(f, "\n; %s's [pkgstate %s] left out: the host has no %s to enter it from\n",
                    near->name, p->name, p->core_cstate);
            continue;
        }
        char why[200];
        long long pkg_us = hs->latency_us - imp_core_part_us(near, hs, why, sizeof why);
        fprintf(f, "\n; exit_latency_us: the rest of the host's %s latency, %lld us,\n;   %s\n"
                   "; pkg_power_mw: estimated, from %s [pkgstate %s]\n",
                hs->name, hs->latency_us, why, near->name, p->name);
        fprintf(f, "[pkgstate %s]\ncore_cstate = %s\nexit_latency_us = %lld\npkg_power_mw = %g\n",
                p->name, hs->name, pkg_us, p->pkg_power_mw);
    }
}

void imp_write_borrowed_note(FILE *f, const struct imp_host *h, const struct hw_machine *near)
{
    struct imp_host_state st[IMP_IDLE_MAX_STATES];
    if (imp_host_states(h, st, IMP_IDLE_MAX_STATES) > 0)
        fprintf(f, "; Idle states: names, MWAIT hints and exit latencies are the host's (sysfs\n"
                   "; cpuidle; the core/package split of each latency an estimate). Still\n"
                   "; borrowed from %s: every power figure (core, C-state, package state),\n"
                   "; cache flushes, refill times, which package states exist, IPC, firmware.\n",
                near->name);
    else
        fprintf(f, "; Idle states: the host's sysfs states are not intel_idle's own table, so\n"
                   "; the hardware C-states, their exit latencies and power are %s's.\n",
                near->name);
}
