/* device: platform devices that interrupt a CPU and, while active, hold the
 * package in a shallow package C-state (a scenario's [device NAME] sections,
 * docs/scenario-files.md).
 *
 * On Intel client parts the package state is resolved from the cores'
 * requests "and the status of the platform components" (12th Gen Core
 * datasheet vol. 1, "Package C-States"): PC2 and PC3 cannot be requested by
 * software, the package sits there when the cores are deep but the platform
 * grants nothing deeper. What the platform withholds depends on the devices:
 * a PCIe device's Latency Tolerance Reporting value (a NIC with a short LTR),
 * or a controller doing DMA (an xHCI host controller with an active USB
 * device, such as the USB-serial adapter behind console=ttyUSB0, which the
 * kernel never autosuspends while the console holds it open). The limit
 * depends on the host's set-up, not the part, so it is declared in the
 * scenario, not the machine file.
 *
 * "Active" is modelled from the device's own interrupts: a device is active
 * from each of its interrupts until active_ms after the latest one (default
 * 2000 ms, usbcore's autosuspend delay, Documentation/driver-api/usb/
 * power-management.rst: a USB device idle that long is suspended and its
 * controller may follow). A device interrupting more often than that is
 * active throughout; one that stops lets the package go deeper active_ms
 * later. Its interrupts are a Poisson stream at irq_hz on its CPU, delivered
 * like the idle workload's device interrupts (unannounced to the governor). */
#ifndef PMLAB_HW_DEVICE_H
#define PMLAB_HW_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/cpu.h"
#include "hw/machine.h"
#include "sim/eventq.h"
#include "sim/time.h"

#define HW_DEVICE_NAME_MAX 32
/* usbcore.autosuspend's default, 2 s (drivers/usb/core/usb.c). */
#define HW_DEVICE_ACTIVE_MS_DEFAULT 2000.0

struct hw_device_config {
    char name[HW_DEVICE_NAME_MAX];
    int line;                  /* of its [device NAME] header */
    int cpu;                   /* the CPU its interrupt line is routed to; -1: not set */
    double irq_hz;             /* interrupts per second; < 0: not set */
    int pkg_limit;             /* deepest package state while active (index into the
                                * machine's pkgstates); -1: none */
    double active_ms;          /* how long it stays active after an interrupt, ms */
};

/* A [device NAME] header: defaults (no limit, active_ms 2000). */
void hw_device_config_init(struct hw_device_config *c, const char *name, int line);
/* Set key = value (cpu, irq_hz, pkg_limit, active_ms) against machine m.
 * 0, or -1 with msg saying what is wrong. */
int hw_device_config_set(struct hw_device_config *c, const struct hw_machine *m, const char *key,
                         const char *value, char *msg, size_t msgsize);
/* Whether the section is complete (cpu and irq_hz given). */
int hw_device_config_check(const struct hw_device_config *c, char *msg, size_t msgsize);

/* A device during a run. */
struct hw_device {
    const struct hw_device_config *cfg;
    int package;               /* its CPU's package */
    sim_time_t active_until_ns; /* active while now < this (0: never interrupted) */
    struct sim_event irq_ev;   /* its next interrupt */
    struct sim_event quiet_ev; /* when it goes quiet (active_until_ns) */
};

struct hw_devices {
    struct hw_device *dev;
    int n;
};

/* Whether device d is active at now_ns. */
static inline bool hw_device_active(const struct hw_device *d, sim_time_t now_ns)
{
    return now_ns < d->active_until_ns;
}
/* The deepest package state package pkg may enter at now_ns: the shallowest
 * limit of its active devices, m->npkgstates - 1 when none holds it. */
int hw_devices_pkg_limit(const struct hw_devices *ds, const struct hw_machine *m, int pkg,
                         sim_time_t now_ns);
/* Apply that limit to every package of hw (hw_pkg_set_depth_limit). */
void hw_devices_apply_limits(const struct hw_devices *ds, struct hw_state *hw, sim_time_t now_ns);

#endif
