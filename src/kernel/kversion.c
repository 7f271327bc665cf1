/* kversion: parse and compare kernel versions, see kversion.h. */
#include "kernel/kversion.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* Read one decimal component; returns the character after it, or NULL. */
static const char *kversion_component(const char *s, int *out)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    long v = 0;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (*s++ - '0');
        if (v > 100000)
            return NULL;
    }
    *out = (int)v;
    return s;
}

int kversion_parse(const char *s, struct kversion *out)
{
    struct kversion v = { 0, 0, 0 };
    int *parts[3] = { &v.major, &v.minor, &v.sub };
    for (int i = 0; i < 3; i++) {
        s = kversion_component(s, parts[i]);
        if (!s)
            return -1;
        if (*s != '.')
            break;
        s++;
    }
    if (*s != '\0' && *s != '-')
        return -1;
    if (v.major < 2)
        return -1;
    *out = v;
    return 0;
}

int kversion_cmp(const struct kversion *a, const struct kversion *b)
{
    if (a->major != b->major)
        return a->major - b->major;
    if (a->minor != b->minor)
        return a->minor - b->minor;
    return a->sub - b->sub;
}

bool kversion_at_least(const struct kversion *v, const char *since)
{
    struct kversion s;
    if (!since || kversion_parse(since, &s) != 0)
        return true;
    return kversion_cmp(v, &s) >= 0;
}

void kversion_format(const struct kversion *v, char *buf, size_t size)
{
    if (v->sub)
        snprintf(buf, size, "%d.%d.%d", v->major, v->minor, v->sub);
    else
        snprintf(buf, size, "%d.%d", v->major, v->minor);
}
