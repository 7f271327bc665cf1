/* device: platform devices' configuration and the package-depth limit their
 * activity sets, see device.h. The events that make a device interrupt and
 * go quiet are the world's (world_devices.c). */
#include "hw/device.h"

#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

void hw_device_config_init(struct hw_device_config *c, const char *name, int line)
{
    memset(c, 0, sizeof *c);
    str_copy(c->name, sizeof c->name, name);
    c->line = line;
    c->cpu = -1;
    c->irq_hz = -1;
    c->pkg_limit = -1;
    c->active_ms = HW_DEVICE_ACTIVE_MS_DEFAULT;
}

/* pkg_limit = NAME: one of the machine's package states, or "none". */
static int hw_device_set_limit(struct hw_device_config *c, const struct hw_machine *m,
                               const char *value, char *msg, size_t msgsize)
{
    if (strcmp(value, "none") == 0) {
        c->pkg_limit = -1;
        return 0;
    }
    for (int i = 0; i < m->npkgstates; i++)
        if (strcmp(m->pkgstates[i].name, value) == 0) {
            c->pkg_limit = i;
            return 0;
        }
    size_t len = (size_t)snprintf(msg, msgsize, "pkg_limit: '%s' is not a package state of "
                                                "machine %s (it has:", value, m->name);
    for (int i = 0; i < m->npkgstates && len < msgsize; i++)
        len += (size_t)snprintf(msg + len, msgsize - len, " %s", m->pkgstates[i].name);
    if (len < msgsize)
        snprintf(msg + len, msgsize - len, "%s; or none)", m->npkgstates ? "" : " none");
    return -1;
}

int hw_device_config_set(struct hw_device_config *c, const struct hw_machine *m, const char *key,
                         const char *value, char *msg, size_t msgsize)
{
    double v;
    if (strcmp(key, "pkg_limit") == 0)
        return hw_device_set_limit(c, m, value, msg, msgsize);
    if (strcmp(key, "cpu") == 0) {
        int64_t cpu;
        if (str_to_i64(value, &cpu) != 0 || cpu < 0 || cpu >= m->ncpus) {
            snprintf(msg, msgsize, "cpu: '%s' is not a CPU of machine %s (0..%d)", value,
                     m->name, m->ncpus - 1);
            return -1;
        }
        c->cpu = (int)cpu;
        return 0;
    }
    bool hz = strcmp(key, "irq_hz") == 0;
    if (!hz && strcmp(key, "active_ms") != 0) {
        snprintf(msg, msgsize, "unknown key '%s' (known: cpu, irq_hz, pkg_limit, active_ms)", key);
        return -1;
    }
    /* irq_hz: what a /proc/interrupts line can show; active_ms: up to an hour. */
    double lo = hz ? 0 : 0.001, hi = hz ? 1e6 : 3.6e6;
    if (str_to_double(value, &v) != 0 || !(v >= lo && v <= hi)) {
        snprintf(msg, msgsize, "%s: '%s' is not a number in [%g, %g]", key, value, lo, hi);
        return -1;
    }
    *(hz ? &c->irq_hz : &c->active_ms) = v;
    return 0;
}

int hw_device_config_check(const struct hw_device_config *c, char *msg, size_t msgsize)
{
    if (c->cpu < 0 || c->irq_hz < 0) {
        snprintf(msg, msgsize, "missing required key '%s'", c->cpu < 0 ? "cpu" : "irq_hz");
        return -1;
    }
    return 0;
}

int hw_devices_pkg_limit(const struct hw_devices *ds, const struct hw_machine *m, int pkg,
                         sim_time_t now_ns)
{
    int deepest = m->npkgstates - 1;
    for (int i = 0; i < ds->n; i++) {
        const struct hw_device *d = &ds->dev[i];
        if (d->package == pkg && d->cfg->pkg_limit >= 0 && d->cfg->pkg_limit < deepest &&
            hw_device_active(d, now_ns))
            deepest = d->cfg->pkg_limit;
    }
    return deepest;
}

void hw_devices_apply_limits(const struct hw_devices *ds, struct hw_state *hw, sim_time_t now_ns)
{
    for (int p = 0; p < hw->m->packages; p++) {
        int deepest = hw_devices_pkg_limit(ds, hw->m, p, now_ns);
        if (deepest != hw->pkg[p].depth_limit)
            hw_pkg_set_depth_limit(hw, p, deepest, now_ns);
    }
}
