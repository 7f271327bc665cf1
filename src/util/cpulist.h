/* cpulist: the kernel's CPU list format, as isolcpus=, taskset -c and
 * turbostat --cpu take it (lib/bitmap-str.c bitmap_parselist;
 * Documentation/admin-guide/kernel-parameters.rst "cpu lists"):
 *
 *     LIST   = REGION[,REGION]...
 *     REGION = A | A-B | A-B:USED/GROUP | all | all:USED/GROUP
 *
 * A and B are CPU numbers, or N for the last CPU; A-B:USED/GROUP takes the
 * first USED CPUs of every GROUP CPUs from A ("0-15:2/4" is 0,1,4,5,8,9,12,13).
 * As in the kernel, no spaces; unlike it, an empty list is an error (a report
 * over no CPU means nothing). A set is a bool array of ncpus, allocated by the
 * caller, so there is no limit on the CPU count. */
#ifndef PMLAB_UTIL_CPULIST_H
#define PMLAB_UTIL_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

/* Parse text into mask[ncpus] (every entry written). Returns 0, or -1 with
 * msg = what is wrong, e.g. "CPU 24 is out of range: the machine has CPUs
 * 0-23" (no file or option name: the caller adds it). */
int cpulist_parse(const char *text, int ncpus, bool *mask, char *msg, size_t msgsize);
/* mask[ncpus] in the kernel's canonical form ("0-3,8,10-11", "" when empty),
 * as /sys/devices/system/cpu/online prints it. The caller frees it. */
char *cpulist_format(const bool *mask, int ncpus);
/* How many CPUs mask[ncpus] holds. */
int cpulist_weight(const bool *mask, int ncpus);

#endif
