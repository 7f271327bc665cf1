/* strutil: string and number helpers, see strutil.h. */
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *str_skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

char *str_trim_inplace(char *s)
{
    const char *start = str_skip_space(s);
    size_t len = strlen(start);
    memmove(s, start, len + 1);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    return s;
}

int str_to_i64(const char *s, int64_t *out)
{
    s = str_skip_space(s);
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *str_skip_space(end))
        return -1;
    *out = v;
    return 0;
}

int str_to_double(const char *s, double *out)
{
    s = str_skip_space(s);
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *str_skip_space(end) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int str_to_bool(const char *s, bool *out)
{
    static const char *const yes[] = { "1", "y", "Y", "yes", "on", "true" };
    static const char *const no[] = { "0", "n", "N", "no", "off", "false" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return *out = true, 0;
        if (strcasecmp(s, no[i]) == 0)
            return *out = false, 0;
    }
    return -1;
}

int str_copy(char *dst, size_t size, const char *src)
{
    size_t len = strlen(src);
    if (size == 0)
        return -1;
    if (len >= size) {
        memcpy(dst, src, size - 1);
        dst[size - 1] = '\0';
        return -1;
    }
    memcpy(dst, src, len + 1);
    return 0;
}

bool str_glob_match(const char *pattern, const char *s)
{
    return fnmatch(pattern, s, 0) == 0;
}
