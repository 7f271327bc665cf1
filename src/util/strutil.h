/* strutil: small string and number helpers shared by the file parsers. */
#ifndef PMLAB_UTIL_STRUTIL_H
#define PMLAB_UTIL_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pointer to the first non-space character of s. */
const char *str_skip_space(const char *s);
/* Remove leading and trailing white space in place; returns s. */
char *str_trim_inplace(char *s);
/* Parse the whole of s (surrounding space allowed) as a base-10 integer or a
 * finite double. Return 0, or -1 if s is empty, has trailing junk, overflows or
 * (for doubles) is not finite. */
int str_to_i64(const char *s, int64_t *out);
int str_to_double(const char *s, double *out);
/* Booleans the way the kernel's kstrtobool reads them: 1/y/Y/on, 0/n/N/off. */
int str_to_bool(const char *s, bool *out);
/* Copy at most size-1 bytes of src to dst, always NUL-terminated; returns -1
 * if src did not fit. */
int str_copy(char *dst, size_t size, const char *src);
/* Shell-style glob match (fnmatch without flags). */
bool str_glob_match(const char *pattern, const char *s);

#endif
