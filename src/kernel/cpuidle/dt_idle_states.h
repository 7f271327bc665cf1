/* dt_idle_states: a device-tree idle state as the kernel registers it
 * (drivers/cpuidle/dt_idle_states.c, the arm,idle-state binding in
 * Documentation/devicetree/bindings/cpu/idle-states.yaml). */
#ifndef PMLAB_KERNEL_CPUIDLE_DT_IDLE_STATES_H
#define PMLAB_KERNEL_CPUIDLE_DT_IDLE_STATES_H

#include "hw/machine.h"
#include "kernel/cpuidle/cpuidle.h"

/* Fill s from DT state c (a [cstate] with dt_state set): name the node's
 * name, exit latency entry-latency-us + exit-latency-us, target residency
 * min-residency-us, TIMER_STOP from local-timer-stop. The enter method is
 * the driver's to set. */
void dt_idle_state_init(struct cpuidle_state *s, const struct hw_cstate *c);

#endif
