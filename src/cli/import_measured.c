/* import: what a snapshot measured while the host ran (import.h): the
 * interrupt rates of /proc/interrupts, turbostat's summary means and the
 * cpuidle counters' growth between the before and after sysfs dumps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/import.h"
#include "util/xalloc.h"

/* A /proc/interrupts row's per-CPU counts after its "NAME:" label into
 * v[ncpus]; the count of numbers read. */
static int imp_irq_row(const char *p, int ncpus, double *v)
{
    int n = 0;
    while (n < ncpus) {
        char *end;
        double x = strtod(p, &end);
        if (end == p)
            break;
        v[n++] = x;
        p = end;
    }
    return n;
}

/* A numbered row ("  135:"): a device's interrupt line. */
static bool imp_irq_device_row(const char *line, const char **after)
{
    const char *p = line + strspn(line, " ");
    size_t digits = strspn(p, "0123456789");
    if (digits == 0 || p[digits] != ':')
        return false;
    *after = p + digits + 1;
    return true;
}

/* Add row (LOC or a device line) of one dump to sum, per CPU. */
static void imp_irq_add(const char *line, int ncpus, double *loc, double *dev, double *row)
{
    const char *p = strstr(line, "LOC:");
    double *into = NULL;
    if (p == line + strspn(line, " ")) {
        p += 4;
        into = loc;
    } else if (imp_irq_device_row(line, &p)) {
        into = dev;
    }
    if (!into)
        return;
    int n = imp_irq_row(p, ncpus, row);
    for (int cpu = 0; cpu < n; cpu++)
        into[cpu] += row[cpu];
}

int imp_irq_rates(const struct imp_host *h, struct imp_irq_rates *r)
{
    memset(r, 0, sizeof *r);
    char *text = imp_file(h, NULL, "interrupts.raw.txt");
    if (!text)
        return -1;
    int n = h->ncpus;
    double *cur_loc = xcalloc((size_t)n, sizeof *cur_loc), *cur_dev = xcalloc((size_t)n, sizeof *cur_dev);
    double *row = xcalloc((size_t)n, sizeof *row);
    r->loc_hz = xcalloc((size_t)n, sizeof *r->loc_hz);
    r->device_hz = xcalloc((size_t)n, sizeof *r->device_hz);
    double t0 = -1, t1 = -1;
    int dumps = 0;
    char *save = NULL;
    /* Each dump's totals go to cur_*; the first dump's are kept in r's
     * arrays (negated), the last one's added at the end. */
    for (char *line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        double ts;
        bool stamp = line && sscanf(line, "Timestamp: %lf", &ts) == 1;
        if (!line || stamp) {
            if (dumps == 1)
                for (int cpu = 0; cpu < n; cpu++) {
                    r->loc_hz[cpu] = -cur_loc[cpu];
                    r->device_hz[cpu] = -cur_dev[cpu];
                }
            if (!line)
                break;
            memset(cur_loc, 0, (size_t)n * sizeof *cur_loc);
            memset(cur_dev, 0, (size_t)n * sizeof *cur_dev);
            t0 = t0 < 0 ? ts : t0;
            t1 = ts;
            dumps++;
            continue;
        }
        if (dumps > 0)
            imp_irq_add(line, n, cur_loc, cur_dev, row);
    }
    r->seconds = t1 - t0;
    if (dumps >= 2 && r->seconds > 0)
        for (int cpu = 0; cpu < n; cpu++) {
            r->loc_hz[cpu] = (r->loc_hz[cpu] + cur_loc[cpu]) / r->seconds;
            r->device_hz[cpu] = (r->device_hz[cpu] + cur_dev[cpu]) / r->seconds;
        }
    free(cur_loc);
    free(cur_dev);
    free(row);
    free(text);
    if (dumps < 2 || r->seconds <= 0) {
        imp_irq_rates_free(r);
        return -1;
    }
    return 0;
}

void imp_irq_rates_free(struct imp_irq_rates *r)
{
    free(r->loc_hz);
    free(r->device_hz);
    memset(r, 0, sizeof *r);
}

int imp_turbostat_means(const struct imp_host *h, struct imp_turbostat *ts)
{
    memset(ts, 0, sizeof *ts);
    char *text = imp_file(h, NULL, "turbostat.raw.txt");
    if (!text)
        return -1;
    int cpu_col = -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *w[IMP_TS_MAX_COLS];
        int nw = 0;
        for (char *s2 = NULL, *t = strtok_r(line, "\t", &s2); t && nw < IMP_TS_MAX_COLS;
             t = strtok_r(NULL, "\t", &s2))
            w[nw++] = t;
        bool header = false;
        for (int i = 0; i < nw; i++)
            header |= strcmp(w[i], "Busy%") == 0;
        if (header && ts->ncols == 0) {
            for (int i = 0; i < nw; i++) {
                snprintf(ts->cols[i], sizeof ts->cols[i], "%s", w[i]);
                if (strcmp(w[i], "CPU") == 0)
                    cpu_col = i;
            }
            ts->ncols = nw;
            continue;
        }
        /* The summary rows: CPU column "-". */
        if (ts->ncols == 0 || cpu_col < 0 || nw != ts->ncols || strcmp(w[cpu_col], "-") != 0)
            continue;
        for (int i = 0; i < nw; i++)
            ts->mean[i] += atof(w[i]);
        ts->rows++;
    }
    free(text);
    for (int i = 0; i < ts->ncols; i++)
        ts->mean[i] = ts->rows ? ts->mean[i] / ts->rows : 0;
    return ts->rows > 0 ? 0 : -1;
}

double imp_turbostat_col(const struct imp_turbostat *ts, const char *col, bool *found)
{
    for (int i = 0; i < ts->ncols; i++)
        if (strcmp(ts->cols[i], col) == 0) {
            *found = true;
            return ts->mean[i];
        }
    *found = false;
    return 0;
}

/* The cpuidle counter files the measurement reads, by index. */
static const char *const imp_idle_counters[IMP_IDLE_NCOUNTERS] = { "usage", "above", "below",
                                                                   "time" };

/* Add sign x every cpuidle counter of a sysfs dump to c. */
static void imp_idle_add(char *text, int sign, struct imp_idle_counts *c)
{
    char *save = NULL;
    int state = -1, k = -1;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int cpu, s;
        char file[16];
        if (sscanf(line, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/%15[a-z]:", &cpu, &s,
                   file) == 3) {
            state = s >= 0 && s < IMP_IDLE_MAX_STATES ? s : -1;
            k = -1;
            for (int i = 0; i < IMP_IDLE_NCOUNTERS; i++)
                if (strcmp(file, imp_idle_counters[i]) == 0)
                    k = i;
            continue;
        }
        if (state >= 0 && k >= 0) {
            c->sum[state][k] += sign * strtod(line, NULL);
            if (state + 1 > c->nstates)
                c->nstates = state + 1;
        }
        state = k = -1;
    }
}

int imp_idle_counts(const struct imp_host *h, struct imp_idle_counts *c)
{
    memset(c, 0, sizeof *c);
    char *before = imp_file(h, NULL, "sys-cpuidle.before.raw.txt");
    char *after = imp_file(h, NULL, "sys-cpuidle.after.raw.txt");
    int rc = -1;
    if (before && after) {
        imp_idle_add(after, 1, c);
        imp_idle_add(before, -1, c);
        rc = c->nstates > 0 ? 0 : -1;
    }
    free(before);
    free(after);
    return rc;
}
