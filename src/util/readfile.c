#include "util/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/xalloc.h"

char *read_whole_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, got;
    char *buf = xmalloc(cap + 1);
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            buf = xrealloc(buf, (cap *= 2) + 1);
    }
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}
