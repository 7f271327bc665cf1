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

const char *const imp_ipi_rows[IMP_NIPI] = { "RES", "CAL", "TLB", "IWI" };

/* The per-CPU sums a dump's row adds to: LOC, the device lines, or one of
 * the IPI rows; NULL for any other row. */
static double *imp_irq_target(const char *line, double *loc, double *dev, double *const *ipi,
                              const char **after)
{
    const char *p = line + strspn(line, " ");
    if (strncmp(p, "LOC:", 4) == 0) {
        *after = p + 4;
        return loc;
    }
    for (int i = 0; i < IMP_NIPI; i++)
        if (strncmp(p, imp_ipi_rows[i], 3) == 0 && p[3] == ':') {
            *after = p + 4;
            return ipi[i];
        }
    return imp_irq_device_row(line, after) ? dev : NULL;
}

/* Add row (LOC, a device line or an IPI row) of one dump to the sums, per CPU. */
static void imp_irq_add(const char *line, int ncpus, double *loc, double *dev, double *const *ipi,
                        double *row)
{
    const char *p;
    double *into = imp_irq_target(line, loc, dev, ipi, &p);
    if (!into)
        return;
    int n = imp_irq_row(p, ncpus, row);
    for (int cpu = 0; cpu < n; cpu++)
        into[cpu] += row[cpu];
}

/* The sums a rate is taken from: LOC, devices, then the IPI rows. */
#define IMP_IRQ_SUMS (2 + IMP_NIPI)

int imp_irq_rates(const struct imp_host *h, struct imp_irq_rates *r)
{
    memset(r, 0, sizeof *r);
    char *text = imp_file(h, NULL, "interrupts.raw.txt");
    if (!text)
        return -1;
    int n = h->ncpus;
    double *cur[IMP_IRQ_SUMS], *rate[IMP_IRQ_SUMS];
    for (int k = 0; k < IMP_IRQ_SUMS; k++)
        cur[k] = xcalloc((size_t)n, sizeof *cur[k]);
    double *row = xcalloc((size_t)n, sizeof *row);
    r->loc_hz = rate[0] = xcalloc((size_t)n, sizeof *r->loc_hz);
    r->device_hz = rate[1] = xcalloc((size_t)n, sizeof *r->device_hz);
    for (int i = 0; i < IMP_NIPI; i++)
        r->ipi_hz[i] = rate[2 + i] = xcalloc((size_t)n, sizeof *r->ipi_hz[i]);
    double t0 = -1, t1 = -1;
    int dumps = 0;
    char *save = NULL;
    /* Each dump's totals go to cur; the first dump's are kept in the rate
     * arrays (negated), the last one's added at the end. */
    for (char *line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        double ts;
        bool stamp = line && sscanf(line, "Timestamp: %lf", &ts) == 1;
        if (!line || stamp) {
            if (dumps == 1)
                for (int k = 0; k < IMP_IRQ_SUMS; k++)
                    for (int cpu = 0; cpu < n; cpu++)
                        rate[k][cpu] = -cur[k][cpu];
            if (!line)
                break;
            for (int k = 0; k < IMP_IRQ_SUMS; k++)
                memset(cur[k], 0, (size_t)n * sizeof *cur[k]);
            t0 = t0 < 0 ? ts : t0;
            t1 = ts;
            dumps++;
            continue;
        }
        if (dumps > 0)
            imp_irq_add(line, n, cur[0], cur[1], cur + 2, row);
    }
    r->seconds = t1 - t0;
    if (dumps >= 2 && r->seconds > 0)
        for (int k = 0; k < IMP_IRQ_SUMS; k++)
            for (int cpu = 0; cpu < n; cpu++)
                rate[k][cpu] = (rate[k][cpu] + cur[k][cpu]) / r->seconds;
    for (int k = 0; k < IMP_IRQ_SUMS; k++)
        free(cur[k]);
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
    for (int i = 0; i < IMP_NIPI; i++)
        free(r->ipi_hz[i]);
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

/* "2m", "120s", "1m30s", "120": seconds, or -1. */
static double imp_duration_s(const char *v)
{
    double total = 0;
    bool any = false;
    while (*v && *v != '\n') {
        char *end;
        double x = strtod(v, &end);
        if (end == v || x < 0)
            return -1;
        double unit = *end == 'h' ? 3600 : *end == 'm' ? 60 : 1;
        total += x * unit;
        any = true;
        v = end + (*end == 'h' || *end == 'm' || *end == 's');
        v += strspn(v, " \t\r");
    }
    return any && total > 0 ? total : -1;
}

double imp_snapshot_seconds(const struct imp_host *h, const char **how)
{
    char *info = imp_file(h, NULL, "info.yml");
    double s = -1;
    *how = NULL;
    for (char *line = info, *next; line && *line && s < 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "duration:", 9) == 0) {
            s = imp_duration_s(line + 9 + strspn(line + 9, " "));
            *how = "info.yml duration";
        } else if (strncmp(line, "cmd: sleep ", 11) == 0) {
            s = imp_duration_s(line + 11);
            *how = "info.yml cmd";
        }
    }
    free(info);
    if (s < 0)
        *how = NULL;
    return s;
}
