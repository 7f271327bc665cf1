/* import: the platform devices a host's inputs show (import.h): a [device]
 * section for the xHCI controller behind a USB serial console, from the
 * kernel command line and that controller's /proc/interrupts line. Never
 * from turbostat's Pkg%pc residencies: those are what a run is checked
 * against. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/import.h"
#include "util/xalloc.h"

/* Whether the command line puts a console on a USB serial adapter
 * (console=ttyUSB0,115200): the usb-serial console keeps the port open, so
 * usbcore never autosuspends the adapter and its host controller stays busy
 * polling it (drivers/usb/serial/console.c). */
static bool imp_usb_console(const struct imp_host *h)
{
    for (const char *p = h->cmdline; p && (p = strstr(p, "console=ttyUSB")); p++)
        if (p == h->cmdline || p[-1] == ' ')
            return true;
    return false;
}

/* The driver a numbered /proc/interrupts row belongs to: its last word. */
static bool imp_irq_row_is(const char *line, const char *driver)
{
    size_t n = strlen(line), k = strlen(driver);
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\r'))
        n--;
    return n > k && line[n - k - 1] == ' ' && strncmp(line + n - k, driver, k) == 0;
}

/* Counts per CPU of one row after its "NUM:" label; the IRQ number, or -1. */
static int imp_irq_row_counts(const char *line, int ncpus, double *v)
{
    char *end;
    long irq = strtol(line, &end, 10);
    if (end == line || *end != ':')
        return -1;
    const char *p = end + 1;
    for (int cpu = 0; cpu < ncpus; cpu++) {
        v[cpu] = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
    }
    return (int)irq;
}

int imp_irq_line(const struct imp_host *h, const char *driver, struct imp_irq_line *out)
{
    memset(out, 0, sizeof *out);
    char *text = imp_file(h, NULL, "interrupts.raw.txt");
    if (!text)
        return -1;
    int n = h->ncpus, nlines = 0;
    enum { MAXL = 16 };
    int irq[MAXL];
    double *first = xcalloc((size_t)n * MAXL, sizeof *first);
    double *last = xcalloc((size_t)n * MAXL, sizeof *last);
    double *row = xcalloc((size_t)n, sizeof *row);
    double t0 = -1, t1 = -1;
    int dumps = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double ts;
        if (sscanf(line, "Timestamp: %lf", &ts) == 1) {
            t0 = t0 < 0 ? ts : t0;
            t1 = ts;
            dumps++;
            continue;
        }
        int q;
        if (dumps == 0 || !imp_irq_row_is(line, driver) ||
            (q = imp_irq_row_counts(line + strspn(line, " "), n, row)) < 0)
            continue;
        int i = 0;
        while (i < nlines && irq[i] != q)
            i++;
        if (i == nlines && nlines == MAXL)
            continue;
        if (i == nlines) {
            irq[nlines++] = q;
            memcpy(&first[i * n], row, (size_t)n * sizeof *row);
        }
        memcpy(&last[i * n], row, (size_t)n * sizeof *row);
    }
    /* The busiest of the driver's lines, on the CPU that took most of it. */
    double seconds = t1 - t0;
    for (int i = 0; dumps >= 2 && seconds > 0 && i < nlines; i++) {
        double sum = 0, best = -1;
        int cpu = 0;
        for (int c = 0; c < n; c++) {
            double d = last[i * n + c] - first[i * n + c];
            sum += d;
            if (d > best)
                best = d, cpu = c;
        }
        if (sum / seconds > out->hz) {
            out->hz = sum / seconds;
            out->cpu = cpu;
            out->cpu_hz = best / seconds;
            out->irq = irq[i];
        }
    }
    free(first);
    free(last);
    free(row);
    free(text);
    return out->hz > 0 ? 0 : -1;
}

int imp_usb_console_xhci(const struct imp_host *h, struct imp_irq_line *out)
{
    memset(out, 0, sizeof *out);
    if (!imp_usb_console(h))
        return -1;
    return imp_irq_line(h, "xhci_hcd", out);
}
