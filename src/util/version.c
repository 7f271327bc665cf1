/* version: see version.h. */
#include "util/version.h"

#ifndef PMLAB_GIT_COMMIT
#define PMLAB_GIT_COMMIT "unknown"
#endif

const char *pmlab_git_commit(void)
{
    return PMLAB_GIT_COMMIT;
}
