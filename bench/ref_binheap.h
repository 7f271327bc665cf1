/* ref_binheap: a plain textbook binary min-heap, bench-only.
 *
 * It is the yardstick that bench/hold.c measures pmlab's event queue against
 * in the same process run: absolute rates drift on a shared machine, a ratio
 * to this heap measured alongside drifts much less. So it is deliberately the
 * obvious version, with no tuning: an array of (time, sequence, pointer)
 * entries, ordered by (time, sequence); push appends and sifts up, pop moves
 * the last entry to the root and sifts down, picking the smaller of two
 * children with an ordinary branch. It supports no cancel (entries do not
 * record where they are), which only makes its job easier.
 *
 * Header-only because every .c file in bench/ is built as its own program. */
#ifndef PMLAB_BENCH_REF_BINHEAP_H
#define PMLAB_BENCH_REF_BINHEAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/xalloc.h"

struct ref_binheap_entry {
    int64_t time;
    uint64_t seq;
    void *item;
};

struct ref_binheap {
    struct ref_binheap_entry *a;
    size_t count, cap;
    uint64_t next_seq;
};

static inline void ref_binheap_init(struct ref_binheap *h)
{
    h->a = NULL;
    h->count = 0;
    h->cap = 0;
    h->next_seq = 0;
}

static inline void ref_binheap_destroy(struct ref_binheap *h)
{
    free(h->a);
    h->a = NULL;
    h->count = h->cap = 0;
}

static inline int ref_binheap_less(const struct ref_binheap_entry *x,
                                   const struct ref_binheap_entry *y)
{
    if (x->time != y->time)
        return x->time < y->time;
    return x->seq < y->seq;
}

static inline void ref_binheap_push(struct ref_binheap *h, int64_t time, void *item)
{
    if (h->count == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 64;
        h->a = xreallocarray(h->a, h->cap, sizeof *h->a);
    }
    struct ref_binheap_entry e = { .time = time, .seq = h->next_seq++, .item = item };
    size_t i = h->count++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ref_binheap_less(&e, &h->a[parent]))
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = e;
}

/* Remove and return the earliest entry; the heap must not be empty. */
static inline struct ref_binheap_entry ref_binheap_pop(struct ref_binheap *h)
{
    struct ref_binheap_entry top = h->a[0];
    struct ref_binheap_entry last = h->a[--h->count];
    size_t n = h->count;
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && ref_binheap_less(&h->a[child + 1], &h->a[child]))
            child++;
        if (!ref_binheap_less(&h->a[child], &last))
            break;
        h->a[i] = h->a[child];
        i = child;
    }
    if (n > 0)
        h->a[i] = last;
    return top;
}

#endif
