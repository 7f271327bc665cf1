/* kversion: kernel versions, so behaviour that changed between releases can be
 * keyed by the variant's `kernel = 6.7`. */
#ifndef PMLAB_KERNEL_KVERSION_H
#define PMLAB_KERNEL_KVERSION_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel a variant runs when it names none (the newest behaviour modelled). */
#define KVERSION_DEFAULT "6.12"

struct kversion {
    int major, minor, sub; /* 6.12.44 -> 6, 12, 44; a missing sub is 0 */
};

/* Parse "6", "6.7", "6.12.44" (optionally with a "-rcN"/"-suffix", ignored).
 * Returns 0 or -1. */
int kversion_parse(const char *s, struct kversion *out);
/* <0, 0, >0 as a is older than, equal to or newer than b. */
int kversion_cmp(const struct kversion *a, const struct kversion *b);
/* True when v is at least the version written in since ("6.7"); a NULL since
 * is always true. */
bool kversion_at_least(const struct kversion *v, const char *since);
void kversion_format(const struct kversion *v, char *buf, size_t size);

#endif
