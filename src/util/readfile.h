/* readfile: the whole of a small text file in memory.
 *
 * For inputs read once and parsed as a string (a snapshot's sysfs dump, a
 * scenario hashed for a sweep's identity, an SVG inlined in the report). */
#ifndef PMLAB_UTIL_READFILE_H
#define PMLAB_UTIL_READFILE_H

/* The file at path, NUL-terminated (caller frees), or NULL with errno set
 * when it cannot be opened or read. A NUL inside the file ends the string
 * early; callers that care about that reject such files themselves. */
char *read_whole_file(const char *path);

#endif
