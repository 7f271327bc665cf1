/* xalloc: allocation that cannot fail from the caller's point of view.
 *
 * pmlab cannot do anything useful after running out of memory in the middle of
 * a simulation, so (like Redis' zmalloc) an allocation failure prints a message
 * and aborts. Callers therefore never check for NULL. */
#ifndef PMLAB_UTIL_XALLOC_H
#define PMLAB_UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* xreallocarray: p resized to n elements of size bytes, overflow-checked. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* The printf-formatted string, allocated: for paths and other text with no
 * bound known in advance (no fixed-size buffers that cut them). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
