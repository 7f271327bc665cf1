/* time: the one time type of pmlab. Simulated time is int64 nanoseconds
 * (about 292 years of range); never a double, so ordering is exact and a run is
 * a pure function of its inputs. */
#ifndef PMLAB_SIM_TIME_H
#define PMLAB_SIM_TIME_H

#include <stdint.h>

typedef int64_t sim_time_t; /* ns */

#define SIM_NS_PER_US 1000LL
#define SIM_NS_PER_MS 1000000LL
#define SIM_NS_PER_S  1000000000LL
#define SIM_TIME_MAX  INT64_MAX

#endif
