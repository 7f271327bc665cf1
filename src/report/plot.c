/* plot: gnuplot figures of a result, see plot.h. Every plot is a data file
 * plus a script rendered twice (PNG with cairo, SVG), so it can be re-rendered
 * or edited by hand. gnuplot is spawned directly (no shell).
 *
 * No path ever appears in a script: gnuplot runs in the output directory and
 * every file is named relative to it, so a directory name with a quote in it
 * can neither break a plot nor run a command (gnuplot's `system`). Every
 * string that reaches a script -- file names included, and whatever a
 * scenario, a results JSON or a sweep database says (variants, metrics,
 * units, grid values) -- goes through plot_str, a single-quoted gnuplot
 * string in which nothing is interpreted; none is ever printed into a script
 * with %s. File names are made of plot_safe_name's characters only, and
 * names in data files go through plot_dat_field: a data file is data to
 * gnuplot, but a newline or a quote in a name must not shift its columns. */
/* posix_spawn_file_actions_addchdir_np (glibc 2.29+) */
#define _GNU_SOURCE
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "report/cells.h"
#include "util/xalloc.h"

extern char **environ;

/* Run `gnuplot [script]` quietly in dir (script relative to it); returns its
 * exit status, 1000 + the signal that killed it, or -1 if it could not
 * start. The caller may block signals
 * (cli/output.c): gnuplot gets an empty mask, so Ctrl-C stops it too. */
static int plot_run_gnuplot(const char *dir, const char *script)
{
    char *argv[] = { "gnuplot", (char *)script, NULL };
    char *argv_version[] = { "gnuplot", "--version", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, deflt;
    sigemptyset(&none);
    /* pmlab ignores SIGXFSZ (main.c); gnuplot, which does not check its
     * writes, gets the default back so that a file size limit stops it. */
    sigemptyset(&deflt);
    sigaddset(&deflt, SIGXFSZ);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &deflt);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_init(&fa);
    if (dir)
        posix_spawn_file_actions_addchdir_np(&fa, dir);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, &attr, script ? argv : argv_version, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        return -1;
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : -1;
}

int rpt_plot_available(void)
{
    return plot_run_gnuplot(NULL, NULL) == 0;
}

/* s as a single-quoted gnuplot string: gnuplot interprets nothing inside
 * one but '' (a quote); a control character, which would end the command,
 * becomes '?'. */
static void plot_str(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", gp);
        else
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, gp);
    }
    fputc('\'', gp);
}

/* The file name.ext as a gnuplot string (relative to the script's
 * directory, where gnuplot runs). */
static void plot_file_ref(FILE *gp, const char *name, const char *ext)
{
    char *file = xasprintf("%s.%s", name, ext);
    plot_str(gp, file);
    free(file);
}

/* Whether c may appear in a plot's file name as it is: a name from a
 * results file or a sweep database may hold '/', a quote or a newline. */
static bool plot_safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-' || c == '+';
}

void rpt_plot_safe_name(char *out, size_t size, const char *name)
{
    size_t n = 0;
    for (; *name && n + 1 < size; name++)
        out[n++] = plot_safe_char(*name) ? *name : '_';
    out[n] = '\0';
    if (out[0] == '.' && size > 1)
        out[0] = '_'; /* never a hidden file, never ".." */
}

/* s as one whitespace-separated field of a data file (xtic(), columnheader):
 * as it is when it is a plain word, else double-quoted, gnuplot's quoted
 * field, with a quote or control character in it as '?'. */
static void plot_dat_field(FILE *dat, const char *s)
{
    bool plain = *s != '\0' && *s != '#';
    for (const char *c = s; *c && plain; c++)
        plain = (unsigned char)*c > 0x20 && *c != '"' && *c != '\'' && *c != 0x7f;
    if (plain) {
        fputs(s, dat);
        return;
    }
    fputc('"', dat);
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f || *s == '"' ? '?' : *s, dat);
    fputc('"', dat);
}

void rpt_plot_dat_comment(FILE *dat, const char *text)
{
    fputs("# ", dat);
    for (; *text; text++)
        fputc((unsigned char)*text < 0x20 || *text == 0x7f ? '?' : *text, dat);
    fputc('\n', dat);
}

/* The lines every script starts with; the plot command follows, then
 * plot_tail renders the SVG too. */
static void plot_head(FILE *gp, const char *name, const char *title, const char *xlabel,
                      const char *ylabel)
{
    fprintf(gp, "set terminal pngcairo size 1200,720 font 'Sans,12' noenhanced\n");
    fputs("set output ", gp);
    plot_file_ref(gp, name, "png");
    fputs("\nset title ", gp);
    plot_str(gp, title);
    fputs("\nset xlabel ", gp);
    plot_str(gp, xlabel);
    fputs("\nset ylabel ", gp);
    plot_str(gp, ylabel);
    fprintf(gp, "\nset grid ytics\nset key outside right top\n");
}

static void plot_tail(FILE *gp, const char *name)
{
    fprintf(gp, "set terminal svg size 1200,720 font 'Sans,12' noenhanced\nset output ");
    plot_file_ref(gp, name, "svg");
    fputs("\nreplot\n", gp);
}

struct plot_files {
    FILE *dat, *gp;
    const char *dir, *name;
    char *gp_path, *dat_path;
};

static void plot_files_free(struct plot_files *pf)
{
    free(pf->gp_path);
    free(pf->dat_path);
}

static int plot_open(struct plot_files *pf, const char *dir, const char *name, char *msg,
                     size_t msgsize)
{
    pf->dir = dir;
    pf->name = name;
    pf->dat_path = xasprintf("%s/%s.dat", dir, name);
    pf->gp_path = xasprintf("%s/%s.gp", dir, name);
    pf->dat = fopen(pf->dat_path, "w");
    pf->gp = pf->dat ? fopen(pf->gp_path, "w") : NULL;
    if (!pf->gp) {
        snprintf(msg, msgsize, "cannot write %s.%s: %s", name, pf->dat ? "gp" : "dat",
                 strerror(errno));
        if (pf->dat)
            fclose(pf->dat);
        plot_files_free(pf);
        return -1;
    }
    return 0;
}

/* Nothing to plot after all: remove the files. Returns 0. */
static int plot_discard(struct plot_files *pf)
{
    fclose(pf->dat);
    fclose(pf->gp);
    remove(pf->gp_path);
    remove(pf->dat_path);
    plot_files_free(pf);
    return 0;
}

/* Close f (pf's name.EXT); 0, or -1 with msg naming the file and the real
 * error (a full disk is "No space left on device", not gnuplot's fault). */
static int plot_close(FILE *f, const struct plot_files *pf, const char *ext, char *msg,
                      size_t msgsize)
{
    errno = 0;
    int bad = ferror(f);
    if (fclose(f) == 0 && !bad)
        return 0;
    snprintf(msg, msgsize, "cannot write %s.%s: %s", pf->name, ext, strerror(errno ? errno : EIO));
    return -1;
}

/* gnuplot's name.EXT must be whole: on a full disk gnuplot leaves it empty
 * or cut short, says nothing and exits 0, so a file system with no space
 * left after it ran counts as a failure too. */
static int plot_check_output(const struct plot_files *pf, const char *ext, char *msg,
                             size_t msgsize)
{
    char *path = xasprintf("%s/%s.%s", pf->dir, pf->name, ext);
    struct stat st;
    struct statvfs fs;
    bool empty = stat(path, &st) != 0 || st.st_size == 0;
    bool full = statvfs(pf->dir, &fs) == 0 && fs.f_bavail == 0;
    free(path);
    if (full)
        snprintf(msg, msgsize, "gnuplot could not write %s.%s: %s", pf->name, ext,
                 strerror(ENOSPC));
    else if (empty)
        snprintf(msg, msgsize, "gnuplot left %s.%s empty", pf->name, ext);
    return full || empty ? -1 : 0;
}

/* Close the files and render; 1 on success, -1 with msg. */
static int plot_close_render(struct plot_files *pf, char *msg, size_t msgsize)
{
    int rc = plot_close(pf->dat, pf, "dat", msg, msgsize);
    if (plot_close(pf->gp, pf, "gp", msg, msgsize) != 0)
        rc = -1;
    if (rc == 0) {
        char *script = xasprintf("%s.gp", pf->name);
        int status = plot_run_gnuplot(pf->dir, script);
        free(script);
        if (status >= 1000 && status - 1000 == SIGXFSZ) {
            snprintf(msg, msgsize, "gnuplot could not write %s: %s", pf->name, strerror(EFBIG));
            rc = -1;
        } else if (status != 0) {
            snprintf(msg, msgsize, "gnuplot failed on %s.gp (%s)", pf->name,
                     status < 0 ? "could not run it"
                     : status >= 1000 ? strsignal(status - 1000) : "see its message above");
            rc = -1;
        }
    }
    if (rc == 0 && (plot_check_output(pf, "png", msg, msgsize) != 0 ||
                    plot_check_output(pf, "svg", msg, msgsize) != 0))
        rc = -1;
    plot_files_free(pf);
    return rc == 0 ? 1 : -1;
}

static int plot_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of x[n] (sorted in place), n >= 1. */
static double plot_median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, plot_cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Row i of series vs over all its replications: the median of column xcol,
 * and the median, least and greatest of column ycol, over the replications
 * that have row i. Returns 0, or -1 when fewer than half have it (a tail
 * that only some replications reach is not a median). x and y are scratch
 * of nreps doubles. */
static int plot_row_band(const struct rpt_variant_series *vs, int i, int xcol, int ycol,
                         double *x, double *y, double out[4])
{
    int n = 0;
    for (int k = 0; k < vs->nreps; k++) {
        const struct rpt_series *s = &vs->rep[k];
        if (i >= s->nrows)
            continue;
        x[n] = s->rows[(size_t)i * (size_t)s->ncols + (size_t)xcol];
        y[n++] = s->rows[(size_t)i * (size_t)s->ncols + (size_t)ycol];
    }
    if (n == 0 || 2 * n < vs->nreps)
        return -1;
    out[0] = plot_median(x, n);
    out[1] = plot_median(y, n); /* sorted now: y[0] and y[n-1] are the extremes */
    out[2] = y[0];
    out[3] = y[n - 1];
    return 0;
}

/* For each variant with a series `name`, one data block of its rows over
 * all replications (x as xform(column xcol), the median of column ycol,
 * and its least and greatest) and two plot clauses: the band between least
 * and greatest, and the median line (colour = variant index, so plots
 * agree). Returns the number of blocks written. */
static int plot_series_bands(struct plot_files *pf, const struct rpt_results *r, const char *name,
                             int xcol, int ycol, double (*xform)(double), const char *style)
{
    int block = 0;
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        for (int k = 0; k < var->nseries; k++) {
            const struct rpt_variant_series *vs = &var->series[k];
            if (strcmp(vs->name, name) != 0 || vs->nreps == 0)
                continue;
            int nrows = 0;
            for (int rep = 0; rep < vs->nreps; rep++)
                nrows = vs->rep[rep].nrows > nrows ? vs->rep[rep].nrows : nrows;
            double *x = calloc((size_t)vs->nreps, sizeof *x), *y = calloc((size_t)vs->nreps, sizeof *y);
            if (!x || !y) {
                free(x);
                free(y);
                return block;
            }
            char *comment = xasprintf("%s: %s, %s median, least, greatest over %d replications",
                                      var->name, vs->rep[0].cols[xcol], vs->rep[0].cols[ycol],
                                      vs->nreps);
            rpt_plot_dat_comment(pf->dat, comment);
            free(comment);
            double row[4];
            for (int i = 0; i < nrows; i++)
                if (plot_row_band(vs, i, xcol, ycol, x, y, row) == 0)
                    fprintf(pf->dat, "%g %g %g %g\n", xform ? xform(row[0]) : row[0], row[1], row[2],
                            row[3]);
            fprintf(pf->dat, "\n\n");
            free(x);
            free(y);
            fputs(block ? ", " : "", pf->gp);
            plot_file_ref(pf->gp, name, "dat");
            fprintf(pf->gp, " index %d using 1:3:4 with filledcurves fs transparent solid 0.2 "
                            "noborder lc %d notitle, ", block, v + 1);
            plot_file_ref(pf->gp, name, "dat");
            fprintf(pf->gp, " index %d using 1:2 with %s lc %d title ", block, style, v + 1);
            plot_str(pf->gp, var->name);
            block++;
        }
    }
    return block;
}

/* jbb's RT curve per variant over all replications (step k's median
 * injection rate and p99, a band from the least to the greatest p99), SLA
 * lines, max-jOPS marks. */
static int plot_rt_curve(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize)
{
    struct plot_files pf;
    if (plot_open(&pf, dir, "rt_curve", msg, msgsize) != 0)
        return -1;
    plot_head(pf.gp, "rt_curve",
              "RT curve: p99 response time by injection rate (median over replications, band: "
              "least to greatest)", "injection rate (jOPS)", "p99 response time (ms)");
    fprintf(pf.gp, "set logscale y\n");
    static const int sla_ms[] = { 10, 25, 50, 75, 100 };
    for (int i = 0; i < 5; i++)
        fprintf(pf.gp, "set arrow from graph 0, first %d to graph 1, first %d nohead dt 2 lc rgb 'gray50'\n"
                       "set label 'SLA %d ms' at graph 0.01, first %d offset 0,0.5 tc rgb 'gray40'\n",
                sla_ms[i], sla_ms[i], sla_ms[i], sla_ms[i]);
    /* max-jOPS of each variant (mean over replications) as a dotted line. */
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_metric *mx = rpt_variant_metric(&r->variants[v], "max_jops");
        if (!mx)
            continue;
        char *label = xasprintf("max-jOPS %s", r->variants[v].name);
        fprintf(pf.gp, "set arrow from first %g, graph 0 to first %g, graph 1 nohead dt 3 lw 2 lc %d\n"
                       "set label ", mx->mean, mx->mean, v + 1);
        plot_str(pf.gp, label);
        /* Variants' max-jOPS are often close: each label starts lower than
         * the last (three heights, a third of the plot apart) so they do not
         * overlap. */
        fprintf(pf.gp, " at first %g, graph %.2f rotate by 90 right offset -0.7,0\n", mx->mean,
                0.97 - 0.32 * (v % 3));
        free(label);
    }
    fprintf(pf.gp, "plot ");
    int block = plot_series_bands(&pf, r, "rt_curve", 0, 4, NULL, "linespoints lw 2");
    fprintf(pf.gp, "\n");
    if (block == 0)
        return plot_discard(&pf);
    plot_tail(pf.gp, "rt_curve");
    return plot_close_render(&pf, msg, msgsize);
}

/* Count the metrics of the first variant with this prefix. */
static int plot_count_prefix(const struct rpt_variant *v, const char *prefix)
{
    int n = 0;
    for (int i = 0; i < v->nmetrics; i++)
        n += strncmp(v->metrics[i].name, prefix, strlen(prefix)) == 0;
    return n;
}

/* Stacked bars: share of CPU time per idle state (residency.*) and busy. */
static int plot_residency(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize)
{
    const struct rpt_variant *base = &r->variants[0];
    if (plot_count_prefix(base, "residency.") == 0)
        return 0;
    struct plot_files pf;
    if (plot_open(&pf, dir, "residency", msg, msgsize) != 0)
        return -1;
    plot_head(pf.gp, "residency", "Where CPU time goes: busy and idle-state residency (means)",
              "variant", "share of CPU time (%)");
    fprintf(pf.gp, "set style data histograms\nset style histogram rowstacked\n"
                   "set style fill solid 0.85 border -1\nset boxwidth 0.6\nset yrange [0:100]\n");
    fprintf(pf.dat, "variant busy_no_poll");
    for (int i = 0; i < base->nmetrics; i++)
        if (strncmp(base->metrics[i].name, "residency.", 10) == 0) {
            fputc(' ', pf.dat);
            plot_dat_field(pf.dat, base->metrics[i].name + 10);
        }
    fprintf(pf.dat, "\n");
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        plot_dat_field(pf.dat, var->name);
        fprintf(pf.dat, " %g",
                rpt_variant_mean(var, "busy_pct", 0) - rpt_variant_mean(var, "poll_pct", 0));
        for (int i = 0; i < base->nmetrics; i++)
            if (strncmp(base->metrics[i].name, "residency.", 10) == 0)
                fprintf(pf.dat, " %g", rpt_variant_mean(var, base->metrics[i].name, 0));
        fprintf(pf.dat, "\n");
    }
    int ncol = 1 + plot_count_prefix(base, "residency.");
    fprintf(pf.gp, "plot for [c=2:%d] ", ncol + 1);
    plot_file_ref(pf.gp, "residency", "dat");
    fputs(" using c:xtic(1) title columnheader(c)\n", pf.gp);
    plot_tail(pf.gp, "residency");
    return plot_close_render(&pf, msg, msgsize);
}

/* Bars with 95 % CI whiskers of one metric per variant. */
static int plot_metric(const struct rpt_results *r, const char *dir, const char *metric,
                       const char *name, char *msg, size_t msgsize)
{
    const struct rpt_metric *m0 = rpt_variant_metric(&r->variants[0], metric);
    if (!m0)
        return 0;
    struct plot_files pf;
    if (plot_open(&pf, dir, name, msg, msgsize) != 0)
        return -1;
    char *title = xasprintf("%s per variant: mean and 95 %% CI (%d replications)", metric, r->reps);
    char *ylabel = xasprintf("%s (%s)", metric, m0->unit[0] ? m0->unit : "value");
    plot_head(pf.gp, name, title, "variant", ylabel);
    free(title);
    free(ylabel);
    /* Points with whiskers, not bars from zero: the differences that matter
     * are a few percent. */
    fprintf(pf.gp, "set xrange [-0.6:%g]\nset offsets 0, 0, graph 0.1, graph 0.1\nset key off\n",
            r->nvariants - 0.4);
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_metric *m = rpt_variant_metric(&r->variants[v], metric);
        if (!m)
            continue;
        fprintf(pf.dat, "%d ", v);
        plot_dat_field(pf.dat, r->variants[v].name);
        fprintf(pf.dat, " %g %g %g\n", m->mean, m->ci_lo, m->ci_hi);
    }
    fputs("plot ", pf.gp);
    plot_file_ref(pf.gp, name, "dat");
    /* an untitled plot's SVG tooltip is its command */
    fputs(" using 1:3:4:5:xtic(2) with yerrorbars lw 2 pt 7 ps 1.5 notitle\n", pf.gp);
    plot_tail(pf.gp, name);
    return plot_close_render(&pf, msg, msgsize);
}

/* The "nines" of a percentile: -log10(1 - p/100), so 90, 99, 99.9 and 99.99
 * are evenly spaced and the tail, where power management shows, is not
 * squeezed into the top of the plot. */
static double plot_nines(double pct)
{
    return pct < 100 ? -log10(1 - pct / 100) : 5;
}

/* Response time by percentile per variant over all replications (median, a
 * band from the least to the greatest), on a log tail axis (latency_cdf
 * series), as latency-by-percentile plots (HdrHistogram's) show it. */
static int plot_cdf(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize)
{
    struct plot_files pf;
    if (plot_open(&pf, dir, "latency_cdf", msg, msgsize) != 0)
        return -1;
    plot_head(pf.gp, "latency_cdf",
              "Response time by percentile (median over replications, band: least to greatest)",
              "percentile (log tail axis)", "response time (us)");
    fprintf(pf.gp, "set logscale y\nset grid xtics\nset key inside left top\n"
                   "set xtics ('0' 0, '50' %g, '90' 1, '99' 2, '99.9' 3, '99.99' 4)\n"
                   "set xrange [0:4.05]\nplot ",
            plot_nines(50));
    int block = plot_series_bands(&pf, r, "latency_cdf", 0, 1, plot_nines, "lines lw 2");
    fprintf(pf.gp, "\n");
    if (block == 0)
        return plot_discard(&pf);
    plot_tail(pf.gp, "latency_cdf");
    return plot_close_render(&pf, msg, msgsize);
}

/* Clustered bars: the governor's above and below shares per idle state. */
static int plot_above_below(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize)
{
    const struct rpt_variant *base = &r->variants[0];
    if (plot_count_prefix(base, "above_pct.") == 0)
        return 0;
    struct plot_files pf;
    if (plot_open(&pf, dir, "above_below", msg, msgsize) != 0)
        return -1;
    plot_head(pf.gp, "above_below",
              "Idle-state misses: above (too deep) and below (too shallow), % of entries",
              "idle state", "share of entries into that state (%)");
    fprintf(pf.gp, "set style data histograms\nset style histogram clustered gap 1\n"
                   "set style fill solid 0.8 border -1\n");
    fprintf(pf.dat, "state");
    for (int v = 0; v < r->nvariants; v++)
        for (int k = 0; k < 2; k++) {
            char *head = xasprintf("%s:%s", r->variants[v].name, k ? "below" : "above");
            fputc(' ', pf.dat);
            plot_dat_field(pf.dat, head);
            free(head);
        }
    fprintf(pf.dat, "\n");
    for (int i = 0; i < base->nmetrics; i++) {
        const char *name = base->metrics[i].name;
        if (strncmp(name, "above_pct.", 10) != 0)
            continue;
        char below[RPT_NAME_MAX];
        snprintf(below, sizeof below, "below_pct.%s", name + 10);
        plot_dat_field(pf.dat, name + 10);
        for (int v = 0; v < r->nvariants; v++)
            fprintf(pf.dat, " %g %g", rpt_variant_mean(&r->variants[v], name, 0),
                    rpt_variant_mean(&r->variants[v], below, 0));
        fprintf(pf.dat, "\n");
    }
    fprintf(pf.gp, "plot for [c=2:%d] ", 1 + 2 * r->nvariants);
    plot_file_ref(pf.gp, "above_below", "dat");
    fputs(" using c:xtic(1) title columnheader(c)\n", pf.gp);
    plot_tail(pf.gp, "above_below");
    return plot_close_render(&pf, msg, msgsize);
}

/* The column of series sr named col, or -1. */
static int plot_series_col(const struct rpt_series *sr, const char *col)
{
    for (int c = 0; c < sr->ncols; c++)
        if (strcmp(sr->cols[c], col) == 0)
            return c;
    return -1;
}

/* One panel of the interval plot: column col (1-based in interval.dat) of
 * every variant's block over time; shares: every residency column instead,
 * a dash type per state. */
static void plot_interval_panel(FILE *gp, const struct rpt_results *r, const struct rpt_series *s0,
                                const char *ylabel, int col, bool shares)
{
    fputs("set ylabel ", gp);
    plot_str(gp, ylabel);
    fputs("\nplot ", gp);
    int n = 0;
    for (int v = 0, block = 0; v < r->nvariants; v++) {
        const struct rpt_variant *var = &r->variants[v];
        int k = 0;
        if (!rpt_series_next(var, "interval", &k))
            continue;
        for (int c = 0; c < s0->ncols; c++) {
            if (shares ? strchr(s0->cols[c], '.') == NULL : c + 1 != col)
                continue;
            char col_name[RPT_NAME_MAX + 8];
            const char *ts = shares ? rpt_turbostat_column(s0->cols[c], col_name, sizeof col_name) : NULL;
            char *title = xasprintf("%s%s%s", var->name, ts ? " " : "", ts ? ts : "");
            fputs(n++ ? ", " : "", gp);
            plot_file_ref(gp, "interval", "dat");
            fprintf(gp, " index %d using 1:%d with lines lw 2 lc %d dt %d title ", block, c + 1,
                    v + 1, shares ? c % 5 + 1 : 1);
            plot_str(gp, title);
            free(title);
        }
        block++;
    }
    fputc('\n', gp);
}

/* The interval plot's panels for one terminal: Busy%, C-state shares,
 * Bzy_MHz, PkgWatt over the window. */
static void plot_interval_render(FILE *gp, const struct rpt_results *r, const struct rpt_series *s0,
                                 const char *term, const char *ext)
{
    fprintf(gp, "set terminal %s size 1200,1400 font 'Sans,12' noenhanced\nset output 'interval.%s'\n"
                "set multiplot layout 4,1 title 'turbostat --interval: each interval of the "
                "measurement window (means over replications)'\nset grid\n"
                "set key outside right top font ',10'\n"
                /* the same plot area in every panel, whatever its key's width */
                "set lmargin 10\nset rmargin at screen 0.78\nunset xlabel\n", term, ext);
    plot_interval_panel(gp, r, s0, "Busy%", plot_series_col(s0, "busy_pct") + 1, false);
    plot_interval_panel(gp, r, s0, "C-state share (%)", 0, true);
    plot_interval_panel(gp, r, s0, "Bzy_MHz", plot_series_col(s0, "bzy_mhz") + 1, false);
    fprintf(gp, "set xlabel 'time in the window (ms, end of each interval)'\n");
    plot_interval_panel(gp, r, s0, "PkgWatt (W)", plot_series_col(s0, "pkg_watts") + 1, false);
    fprintf(gp, "unset multiplot\n");
}

/* --interval: the samples over simulated time, one block per variant, each
 * row the mean over the replications. */
static int plot_interval(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize)
{
    const struct rpt_series *s0 = NULL;
    for (int v = 0, k = 0; v < r->nvariants && !s0; v++, k = 0) {
        const struct rpt_variant_series *vs = rpt_series_next(&r->variants[v], "interval", &k);
        s0 = vs ? &vs->rep[0] : NULL;
    }
    if (!s0 || s0->nrows == 0 || plot_series_col(s0, "busy_pct") < 0)
        return 0;
    struct plot_files pf;
    if (plot_open(&pf, dir, "interval", msg, msgsize) != 0)
        return -1;
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant_series *vs;
        for (int k = 0; (vs = rpt_series_next(&r->variants[v], "interval", &k));) {
            char *comment = xasprintf("%s: each interval's means over %d replications",
                                      r->variants[v].name, vs->nreps);
            rpt_plot_dat_comment(pf.dat, comment);
            free(comment);
            for (int i = 0; i < vs->rep[0].nrows; i++) {
                for (int c = 0; c < vs->rep[0].ncols; c++)
                    fprintf(pf.dat, "%s%g", c ? " " : "", rpt_series_mean(vs, i, c));
                fputc('\n', pf.dat);
            }
            fputs("\n\n", pf.dat);
        }
    }
    plot_interval_render(pf.gp, r, s0, "pngcairo", "png");
    plot_interval_render(pf.gp, r, s0, "svg", "svg");
    return plot_close_render(&pf, msg, msgsize);
}

int rpt_plot_all(const struct rpt_results *r, const char *dir, char *msg, size_t msgsize)
{
    if (!rpt_plot_available()) {
        snprintf(msg, msgsize, "gnuplot not found (Debian: apt-get install gnuplot-nox); no plots written");
        return 0;
    }
    if (r->nvariants == 0)
        return 0;
    const char *primary = r->primary;
    int total = 0, rc;
    if ((rc = plot_rt_curve(r, dir, msg, msgsize)) < 0)
        return -1;
    total += rc;
    if ((rc = plot_residency(r, dir, msg, msgsize)) < 0)
        return -1;
    total += rc;
    if (primary && (rc = plot_metric(r, dir, primary, "primary_metric", msg, msgsize)) < 0)
        return -1;
    total += primary ? rc : 0;
    if ((rc = plot_metric(r, dir, "pkg_watts", "pkg_watts", msg, msgsize)) < 0)
        return -1;
    total += rc;
    if ((rc = plot_cdf(r, dir, msg, msgsize)) < 0)
        return -1;
    total += rc;
    if ((rc = plot_above_below(r, dir, msg, msgsize)) < 0)
        return -1;
    total += rc;
    if ((rc = plot_interval(r, dir, msg, msgsize)) < 0)
        return -1;
    return total + rc;
}

/* For plot writers outside this file (sweep/summary.c): the same files,
 * header, quoting and rendering as every plot here. */
struct rpt_plot_file {
    struct plot_files pf;
};

struct rpt_plot_file *rpt_plot_file_open(const char *dir, const char *name, const char *title,
                                         const char *xlabel, const char *ylabel, char *msg,
                                         size_t msgsize)
{
    for (const char *c = name; *c; c++)
        if (!plot_safe_char(*c) || name[0] == '.') {
            snprintf(msg, msgsize, "internal error: plot file name '%s' not made safe", name);
            return NULL;
        }
    struct rpt_plot_file *f = xcalloc(1, sizeof *f);
    if (plot_open(&f->pf, dir, name, msg, msgsize) != 0) {
        free(f);
        return NULL;
    }
    plot_head(f->pf.gp, name, title, xlabel, ylabel);
    return f;
}

FILE *rpt_plot_file_dat(struct rpt_plot_file *f)
{
    return f->pf.dat;
}

FILE *rpt_plot_file_gp(struct rpt_plot_file *f)
{
    return f->pf.gp;
}

void rpt_plot_file_str(FILE *gp, const char *s)
{
    plot_str(gp, s);
}

void rpt_plot_file_ref_dat(struct rpt_plot_file *f)
{
    plot_file_ref(f->pf.gp, f->pf.name, "dat");
}

int rpt_plot_file_render(struct rpt_plot_file *f, char *msg, size_t msgsize)
{
    plot_tail(f->pf.gp, f->pf.name);
    int rc = plot_close_render(&f->pf, msg, msgsize);
    free(f);
    return rc;
}

void rpt_plot_file_discard(struct rpt_plot_file *f)
{
    plot_discard(&f->pf);
    free(f);
}
