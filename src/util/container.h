/* container: container_of, for intrusive structures (events, tasks) embedded
 * in their owner: the owner's address from a member's. */
#ifndef PMLAB_UTIL_CONTAINER_H
#define PMLAB_UTIL_CONTAINER_H

#include <stddef.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#endif
