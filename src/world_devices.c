/* world_devices: the events of a run's platform devices, see world_devices.h.
 *
 * Each device's interrupts are a Poisson stream at irq_hz from the workload's
 * stream of device interrupts for platform devices (common to every variant:
 * it is the offered traffic, not the kernel's doing). An interrupt first
 * makes the device active (the DMA or link activity that raised it), which
 * may lift the package out of a deeper state than the device allows, then
 * reaches its CPU through the idle loop like any device interrupt. The
 * device goes quiet active_ms after its latest interrupt; the limit is then
 * recomputed. */
#include "world_devices.h"

#include <stdlib.h>

#include "util/container.h"
#include "util/xalloc.h"
#include "world.h"

static void world_device_arm(struct world *w, struct hw_device *d)
{
    if (d->cfg->irq_hz <= 0)
        return;
    double gap_ns = sim_rng_exp(&w->rng[WORLD_STREAM_PLATFORM_DEVICE],
                                (double)SIM_NS_PER_S / d->cfg->irq_hz);
    sim_event_schedule(&w->q, &d->irq_ev, w->q.now_ns + 1 + (sim_time_t)gap_ns);
}

static void world_device_irq(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct hw_device *d = container_of(ev, struct hw_device, irq_ev);
    sim_time_t now = w->q.now_ns;
    d->active_until_ns = now + (sim_time_t)(d->cfg->active_ms * SIM_NS_PER_MS);
    if (!sim_event_pending(&d->quiet_ev))
        sim_event_schedule(&w->q, &d->quiet_ev, d->active_until_ns);
    hw_devices_apply_limits(&w->devices, &w->hw, now);
    world_device_arm(w, d);
    idle_device_interrupt(w, d->cfg->cpu);
}

/* The quiet check: a device interrupted again since it was queued is still
 * active, so look again at its new end; else its limit goes. */
static void world_device_quiet(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct hw_device *d = container_of(ev, struct hw_device, quiet_ev);
    if (hw_device_active(d, w->q.now_ns)) {
        sim_event_schedule(&w->q, &d->quiet_ev, d->active_until_ns);
        return;
    }
    hw_devices_apply_limits(&w->devices, &w->hw, w->q.now_ns);
}

void world_devices_create(struct world *w, const struct hw_device_config *cfg, int n)
{
    struct hw_devices *ds = &w->devices;
    ds->n = n;
    ds->dev = n > 0 ? xcalloc((size_t)n, sizeof *ds->dev) : NULL;
    for (int i = 0; i < n; i++) {
        struct hw_device *d = &ds->dev[i];
        d->cfg = &cfg[i];
        d->package = w->machine->cpus[cfg[i].cpu].package;
        sim_event_init(&d->irq_ev, world_device_irq);
        sim_event_init(&d->quiet_ev, world_device_quiet);
        world_device_arm(w, d);
    }
}

void world_devices_destroy(struct world *w)
{
    free(w->devices.dev);
    w->devices.dev = NULL;
    w->devices.n = 0;
}
