/* cpulist: parsing and printing the kernel's CPU list format, see cpulist.h. */
#include "util/cpulist.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

/* Where the parser is in the list, and where to say what went wrong. */
struct cpulist_parser {
    const char *text, *p;
    int ncpus;
    char *msg;
    size_t msgsize;
};

static int cpulist_syntax_error(struct cpulist_parser *ps)
{
    snprintf(ps->msg, ps->msgsize, "'%s' is not a CPU list (e.g. 0-15 or 0-3,8,10-11)", ps->text);
    return -1;
}

/* A decimal number at ps->p, or N (the last CPU) when n_allowed; moves past
 * it. Values past any CPU are clamped, so huge numbers cannot overflow. */
static int cpulist_number(struct cpulist_parser *ps, bool n_allowed, long long *out)
{
    if (n_allowed && *ps->p == 'N') {
        ps->p++;
        *out = ps->ncpus - 1;
        return 0;
    }
    if (!isdigit((unsigned char)*ps->p))
        return cpulist_syntax_error(ps);
    long long v = 0;
    for (; isdigit((unsigned char)*ps->p); ps->p++)
        v = v > 1000000000LL ? v : v * 10 + (*ps->p - '0');
    *out = v;
    return 0;
}

/* A CPU number that must name one of the machine's CPUs. */
static int cpulist_cpu(struct cpulist_parser *ps, long long *out)
{
    const char *start = ps->p;
    if (cpulist_number(ps, true, out) != 0)
        return -1;
    if (*out < ps->ncpus)
        return 0;
    snprintf(ps->msg, ps->msgsize, "CPU %.*s is out of range: the machine has CPUs 0-%d",
             (int)(ps->p - start), start, ps->ncpus - 1);
    return -1;
}

/* "all", "A" or "A-B": the first and last CPU of a region. */
static int cpulist_range(struct cpulist_parser *ps, long long *first, long long *last)
{
    if (strncmp(ps->p, "all", 3) == 0) {
        ps->p += 3;
        *first = 0;
        *last = ps->ncpus - 1;
        return 0;
    }
    if (cpulist_cpu(ps, first) != 0)
        return -1;
    *last = *first;
    if (*ps->p != '-')
        return 0;
    ps->p++;
    if (cpulist_cpu(ps, last) != 0)
        return -1;
    if (*last >= *first)
        return 0;
    snprintf(ps->msg, ps->msgsize, "'%lld-%lld' is an empty range in '%s'", *first, *last,
             ps->text);
    return -1;
}

/* One REGION into mask; ps->p ends on the ',' or NUL after it. */
static int cpulist_region(struct cpulist_parser *ps, bool *mask)
{
    long long first, last, used = 1, group = 1;
    if (cpulist_range(ps, &first, &last) != 0)
        return -1;
    if (*ps->p == ':') {
        ps->p++;
        if (cpulist_number(ps, false, &used) != 0 || *ps->p++ != '/' ||
            cpulist_number(ps, false, &group) != 0)
            return cpulist_syntax_error(ps);
        if (used == 0 || used > group) {
            snprintf(ps->msg, ps->msgsize, "'%s': in USED/GROUP, 0 < USED <= GROUP", ps->text);
            return -1;
        }
    }
    if (*ps->p != ',' && *ps->p != '\0')
        return cpulist_syntax_error(ps);
    for (long long cpu = first; cpu <= last; cpu++)
        if ((cpu - first) % group < used)
            mask[cpu] = true;
    return 0;
}

int cpulist_parse(const char *text, int ncpus, bool *mask, char *msg, size_t msgsize)
{
    struct cpulist_parser ps = { .text = text, .p = text, .ncpus = ncpus, .msg = msg,
                                 .msgsize = msgsize };
    memset(mask, 0, (size_t)ncpus * sizeof *mask);
    if (!*text) {
        snprintf(msg, msgsize, "an empty CPU list selects no CPU (e.g. 0-15 or 0-3,8,10-11)");
        return -1;
    }
    for (;;) {
        if (cpulist_region(&ps, mask) != 0)
            return -1;
        if (*ps.p == '\0')
            return 0;
        ps.p++; /* the ',' */
    }
}

char *cpulist_format(const bool *mask, int ncpus)
{
    /* At most ncpus numbers of up to 11 characters with a separator each. */
    size_t size = (size_t)ncpus * 12 + 1, used = 0;
    char *buf = xmalloc(size);
    buf[0] = '\0';
    for (int first = 0; first < ncpus; first++) {
        if (!mask[first])
            continue;
        int last = first;
        while (last + 1 < ncpus && mask[last + 1])
            last++;
        const char *sep = used ? "," : "";
        int n = last == first ? snprintf(buf + used, size - used, "%s%d", sep, first)
                              : snprintf(buf + used, size - used, "%s%d-%d", sep, first, last);
        used += (size_t)n;
        first = last;
    }
    return buf;
}

int cpulist_weight(const bool *mask, int ncpus)
{
    int n = 0;
    for (int cpu = 0; cpu < ncpus; cpu++)
        n += mask[cpu];
    return n;
}
