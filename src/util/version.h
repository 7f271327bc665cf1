/* version: which pmlab made an output, for provenance (a sweep database, a
 * run's recorded configuration). */
#ifndef PMLAB_UTIL_VERSION_H
#define PMLAB_UTIL_VERSION_H

/* The git commit the binary was built from (make passes it to this file
 * only, so a new commit rebuilds one object), or "unknown" outside a
 * checkout. */
const char *pmlab_git_commit(void);

#endif
